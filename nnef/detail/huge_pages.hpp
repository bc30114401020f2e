// Transparent huge pages for large, freshly allocated buffers that are about to be filled
// (Linux; elsewhere a no-op). Where the system leaves huge pages to madvise (the common default),
// a buffer of many megabytes otherwise costs one page fault and one TLB entry per 4 KiB.
#pragma once
#include <cstddef>
#include <cstdint>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace nnef::detail {

// Advises huge pages for the whole 2 MiB-aligned part of [p, p + bytes). Call it before the
// buffer is first written: pages touched already stay small. Only a hint; failures are ignored.
inline void advise_huge_pages(void* p, std::size_t bytes) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    constexpr std::uintptr_t huge = std::uintptr_t(2) << 20;
    if (bytes < 2 * huge) return;
    const std::uintptr_t b = (reinterpret_cast<std::uintptr_t>(p) + huge - 1) & ~(huge - 1);
    const std::uintptr_t e = (reinterpret_cast<std::uintptr_t>(p) + bytes) & ~(huge - 1);
    if (e > b) ::madvise(reinterpret_cast<void*>(b), e - b, MADV_HUGEPAGE);
#else
    (void)p;
    (void)bytes;
#endif
}

}  // namespace nnef::detail
