// Records the largest single heap allocation made through operator new (the whole test binary
// uses the replacement in alloc_probe.cpp). Used to prove that hostile headers cause no large
// allocation.
#pragma once
#include <cstddef>

namespace alloc_probe {

// Starts recording; largest() is the biggest request since the last reset().
void reset();
std::size_t largest();

}  // namespace alloc_probe
