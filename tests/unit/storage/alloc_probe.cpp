#include "alloc_probe.hpp"

#include <atomic>
#include <cstdlib>
#include <new>

namespace alloc_probe {

namespace alloc_probe_cpp {
std::atomic<std::size_t> largest_request{0};
}

void reset() { alloc_probe_cpp::largest_request.store(0); }
std::size_t largest() { return alloc_probe_cpp::largest_request.load(); }

}  // namespace alloc_probe

// Replacements of the ordinary (non-aligned) global allocation functions; the array forms and
// the nothrow forms forward to these by default.
void* operator new(std::size_t n) {
    std::size_t seen = alloc_probe::alloc_probe_cpp::largest_request.load(std::memory_order_relaxed);
    while (n > seen &&
           !alloc_probe::alloc_probe_cpp::largest_request.compare_exchange_weak(seen, n, std::memory_order_relaxed)) {
    }
    if (void* p = std::malloc(n == 0 ? 1 : n)) return p;
    throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
