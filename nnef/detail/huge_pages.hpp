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

// Advises huge pages for the whole 2 MiB-aligned part of [p, p + bytes) (nothing below 2 MiB). Call it before the
// buffer is first written: pages touched already stay small. Only a hint; failures are ignored.
inline void advise_huge_pages(void* p, std::size_t bytes) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    constexpr std::uintptr_t huge = std::uintptr_t(2) << 20;
    if (bytes < huge) return;
    const std::uintptr_t b = (reinterpret_cast<std::uintptr_t>(p) + huge - 1) & ~(huge - 1);
    const std::uintptr_t e = (reinterpret_cast<std::uintptr_t>(p) + bytes) & ~(huge - 1);
    if (e > b) ::madvise(reinterpret_cast<void*>(b), e - b, MADV_HUGEPAGE);
#else
    (void)p;
    (void)bytes;
#endif
}

// Zeroed storage for `bytes` bytes, 8-byte aligned, freed when the last owner goes. Buffers of
// 256 KiB and more are mapped fresh from the system (the kernel hands them out zeroed: no memset
// pass over them); from 2 MiB on the mapping starts on a 2 MiB boundary with huge pages advised, so
// that each whole 2 MiB costs one page fault instead of 512. Smaller ones come from the heap.
inline std::shared_ptr<void> allocate_zeroed(std::size_t bytes) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    constexpr std::size_t mapped = std::size_t(256) << 10, huge = std::size_t(2) << 20, page = 4096;
    if (bytes >= mapped) {
        const std::size_t len = (bytes + page - 1) / page * page, pad = bytes >= huge ? huge : 0;
        void* p = ::mmap(nullptr, len + pad, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p != MAP_FAILED) {
            char* start = static_cast<char*>(p);
            if (pad) {  // keep the 2 MiB-aligned len bytes, unmap the rest
                const std::uintptr_t at = reinterpret_cast<std::uintptr_t>(p);
                const std::size_t head = static_cast<std::size_t>(((at + huge - 1) & ~(huge - 1)) - at);
                start += head;
                if (head) ::munmap(p, head);
                if (pad > head) ::munmap(start + len, pad - head);
                advise_huge_pages(start, len);
            }
            return std::shared_ptr<void>(start, [len](void* q) { ::munmap(q, len); });
        }
    }
#endif
    std::shared_ptr<std::uint64_t[]> heap(new std::uint64_t[bytes / 8 + 1]());
    return std::shared_ptr<void>(heap, heap.get());
}

}  // namespace nnef::detail
