// Memory for tensor and archive bytes read into the process (storage-internal, POSIX).
//
// Large buffers are anonymous mappings aligned to and advised for transparent huge pages: the
// first touch of each fresh 4 KiB page costs more than copying its 4 KiB (several microseconds a
// page under virtualization), so a large tensor would pay more for its memory than for its bytes.
// Buffers are not zero-filled by us (mappings are zero already; small buffers are uninitialized),
// so callers write every byte they hand out.
#pragma once
#include <sys/mman.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <new>

namespace nnef::storage::memory {

inline constexpr std::size_t huge_page = std::size_t(2) << 20;
inline constexpr std::size_t large = std::size_t(1) << 20;  // tensor data from here on: a mapping

// A fresh zeroed mapping of at least `n` bytes starting on a huge-page boundary; `owner` unmaps
// it. Null when out of memory.
inline std::uint8_t* map_anonymous(std::size_t n, std::shared_ptr<const void>& owner) {
    if (n > std::numeric_limits<std::size_t>::max() / 2) return nullptr;
    const std::size_t length = ((std::max<std::size_t>(n, 1) + huge_page - 1) & ~(huge_page - 1)) + huge_page;
    void* raw = ::mmap(nullptr, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (raw == MAP_FAILED) return nullptr;
    owner = std::shared_ptr<const void>(raw, [length](const void* q) { ::munmap(const_cast<void*>(q), length); });
    const std::uintptr_t a =
        (reinterpret_cast<std::uintptr_t>(raw) + huge_page - 1) & ~std::uintptr_t(huge_page - 1);
    auto* aligned = reinterpret_cast<std::uint8_t*>(a);
#ifdef MADV_HUGEPAGE
    ::madvise(aligned, length - huge_page, MADV_HUGEPAGE);
#endif
    return aligned;
}

// Many buffers of one archive: small ones from the heap, the others carved (64-byte aligned) from
// chunks of huge-page memory; each piece's owner shares its chunk.
class Arena {
public:
    static constexpr std::size_t chunk_size = std::size_t(32) << 20;
    static constexpr std::size_t small = std::size_t(16) << 10;

    std::uint8_t* allocate(std::size_t n, std::shared_ptr<const void>& owner) {
        if (n < small) {
            // 64-byte aligned too, so that data at any 4-byte offset keeps float alignment.
            auto* p = static_cast<std::uint8_t*>(::operator new[](std::max<std::size_t>(n, 1), std::align_val_t(64),
                                                                   std::nothrow));
            if (p) owner = std::shared_ptr<const void>(p, [](const void* q) {
                ::operator delete[](const_cast<void*>(q), std::align_val_t(64));
            });
            return p;
        }
        n = (n + 63) & ~std::size_t(63);
        if (n > chunk_size / 4) return map_anonymous(n, owner);  // a chunk of its own
        if (!base_ || chunk_size - used_ < n) {
            std::shared_ptr<const void> fresh;
            std::uint8_t* b = map_anonymous(chunk_size, fresh);
            if (!b) return nullptr;
            base_ = b;
            owner_ = std::move(fresh);
            used_ = 0;
        }
        std::uint8_t* p = base_ + used_;
        used_ += n;
        owner = owner_;
        return p;
    }

private:
    std::uint8_t* base_ = nullptr;
    std::size_t used_ = 0;
    std::shared_ptr<const void> owner_;
};

}  // namespace nnef::storage::memory
