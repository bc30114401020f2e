// Transparent huge pages for large, freshly allocated buffers that are about to be filled
// (Linux; elsewhere a no-op). Where the system leaves huge pages to madvise (the common default),
// a buffer of many megabytes otherwise costs one page fault and one TLB entry per 4 KiB.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>

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

// Zeroed storage for `bytes` bytes, 8-byte aligned, freed when the last owner goes. Buffers of
// 4 MiB and more are mapped fresh from the system with huge pages advised (the kernel hands them
// out zeroed: no memset, and one page fault per 2 MiB instead of one per 4 KiB); smaller ones come
// from the heap.
inline std::shared_ptr<void> allocate_zeroed(std::size_t bytes) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    constexpr std::size_t large = std::size_t(4) << 20;
    if (bytes >= large) {
        void* p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p != MAP_FAILED) {
            advise_huge_pages(p, bytes);
            return std::shared_ptr<void>(p, [bytes](void* q) { ::munmap(q, bytes); });
        }
    }
#endif
    std::shared_ptr<std::uint64_t[]> heap(new std::uint64_t[bytes / 8 + 1]());
    return std::shared_ptr<void>(heap, heap.get());
}

}  // namespace nnef::detail
