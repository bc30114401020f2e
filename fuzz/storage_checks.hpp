// The properties the storage fuzz targets check, shared with the regression test that replays
// saved inputs in every build (tests/unit/storage/regressions_test.cpp). Each check returns an
// empty string when the properties hold, otherwise what was violated.
//
// Inputs become files without touching the disk: an anonymous memory file (memfd, Linux), reached
// through /proc/self/fd/N, is refilled for every input.
#pragma once
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <string>

#include "storage/container.hpp"
#include "storage/tensor_file.hpp"

namespace nnef_fuzz {

// Decoded values go here so that decoding is not optimized away.
inline volatile double sink = 0;

class MemoryFile {
public:
    explicit MemoryFile(const char* name) : fd_(::memfd_create(name, MFD_CLOEXEC)) {
        if (fd_ >= 0) path_ = "/proc/self/fd/" + std::to_string(fd_);
    }
    ~MemoryFile() {
        if (fd_ >= 0) ::close(fd_);
    }
    MemoryFile(const MemoryFile&) = delete;
    MemoryFile& operator=(const MemoryFile&) = delete;

    const std::string& path() const { return path_; }
    bool set(const std::uint8_t* data, std::size_t size) const {
        if (fd_ < 0 || ::ftruncate(fd_, 0) != 0) return false;
        std::size_t done = 0;
        while (done < size) {
            const ssize_t n = ::pwrite(fd_, data + done, size - done, off_t(done));
            if (n <= 0) return false;
            done += std::size_t(n);
        }
        return true;
    }

private:
    int fd_;
    std::string path_;
};

inline std::string same_tensor(const nnef::TensorData& a, const nnef::TensorData& b) {
    if (a.shape != b.shape || a.kind != b.kind || a.bits != b.bits || a.count != b.count)
        return "the readers disagree on the header";
    if (a.bytes.size() != b.bytes.size() ||
        (a.bytes.size() != 0 && std::memcmp(a.bytes.data(), b.bytes.data(), a.bytes.size()) != 0))
        return "the readers disagree on the data";
    return {};
}

// Decodes every item of an accepted tensor.
inline std::string decode_all(const nnef::TensorData& t) {
    if (t.bytes.size() != t.header.data_length || t.rank() != t.header.rank) return "inconsistent tensor";
    double sum = 0;
    for (std::uint64_t i = 0; i < t.count; ++i) {
        if (t.raw(i) > nnef::TensorData::max_code(t.bits)) return "a code exceeds its width";
        sum += t.as_double(i) + double(t.as_int64(i) & 1) + (t.as_bool(i) ? 1.0 : 0.0);
    }
    if (const float* p = t.float32_data()) sum += p[0];
    sink = sum;
    return {};
}

// Tensor file bytes: read as a copy, in place from a shared buffer and as a file (the mmap path
// for float32); the three agree. A refusal carries an error naming the file. An accepted tensor
// decodes item by item, and encode_tensor gives back exactly the input bytes.
inline std::string check_tensor_bytes(const std::uint8_t* data, std::size_t size) {
    static const MemoryFile file("nnef_fuzz_tensor");
    nnef::Limits limits;
    limits.max_volume = std::uint64_t(1) << 24;
    auto copied = nnef::storage::read_tensor_bytes(data, size, "fuzz.dat", limits);
    auto shared = nnef::storage::read_tensor_bytes(
        std::make_shared<const std::string>(reinterpret_cast<const char*>(data), size), "fuzz.dat", limits);
    if (copied.value.has_value() != shared.value.has_value()) return "copied and shared reads disagree";
    if (file.set(data, size)) {
        auto mapped = nnef::storage::read_tensor_file(file.path(), limits);
        if (mapped.value.has_value() != copied.value.has_value()) return "file and memory reads disagree";
        if (mapped.value) {
            std::string why = same_tensor(**mapped.value, **copied.value);
            if (!why.empty()) return "file read: " + why;
        }
    }
    if (!copied.value) {
        if (!copied.diagnostics.has_errors()) return "a refusal without an error";
        if (copied.diagnostics.list().front().path != "fuzz.dat") return "a refusal that does not name the file";
        return {};
    }
    const nnef::TensorData& t = **copied.value;
    std::string why = same_tensor(t, **shared.value);
    if (why.empty()) why = decode_all(t);
    if (!why.empty()) return why;
    auto encoded = nnef::storage::encode_tensor(t);
    if (!encoded.value) return "an accepted tensor does not encode";
    if (encoded.value->size() != size || std::memcmp(encoded.value->data(), data, size) != 0)
        return "encoding does not give back the input bytes";
    return {};
}

inline bool safe_member_name(const std::string& name) {
    if (name.empty() || name[0] == '/') return false;
    std::size_t start = 0;
    for (;;) {
        const std::size_t slash = name.find('/', start);
        const std::string part = name.substr(start, slash == std::string::npos ? std::string::npos : slash - start);
        if (part.empty() || part == "." || part == "..") return false;
        if (slash == std::string::npos) return true;
        start = slash + 1;
    }
}

inline std::size_t cwd_entries() {
    std::size_t n = 0;
    std::error_code ec;
    for (std::filesystem::directory_iterator it(".", ec), end; !ec && it != end; it.increment(ec)) ++n;
    return n;
}

// Container bytes (tar, tgz or a graph file, by content) opened with small limits: a refusal
// carries an error; an accepted container respects the limits, has safe member names, and every
// member reads as a tensor file or is refused. Nothing appears in the working directory.
inline std::string check_container_bytes(const std::uint8_t* data, std::size_t size) {
    static const MemoryFile file("nnef_fuzz_archive");
    static const std::size_t entries_before = cwd_entries();
    if (!file.set(data, size)) return {};
    nnef::storage::ContainerLimits limits;
    limits.max_members = 64;
    limits.max_total_bytes = 1 << 20;
    auto r = nnef::storage::open_container(file.path(), limits);
    if (!r.value) {
        if (!r.diagnostics.has_errors()) return "a refusal without an error";
    } else {
        const nnef::storage::Container& c = *r.value;
        if (c.members.size() > limits.max_members) return "more members than max_members";
        std::uint64_t total = c.graph_text.size() + (c.quant_text ? c.quant_text->size() : 0);
        nnef::Limits tensor_limits;
        tensor_limits.max_volume = std::uint64_t(1) << 24;
        for (const auto& [name, m] : c.members) {
            if (!m.in_memory()) return "an archive member on disk";
            if (!safe_member_name(name)) return "unsafe member name '" + name + "'";
            if (m.size != m.bytes.size()) return "member size differs from its bytes";
            total += m.size;
            auto t = nnef::storage::read_tensor_bytes(m.bytes, name, tensor_limits);
            if (t.value) {
                std::string why = decode_all(**t.value);
                if (!why.empty()) return name + ": " + why;
            } else if (!t.diagnostics.has_errors()) {
                return name + ": a refusal without an error";
            }
        }
        if (total > limits.max_total_bytes) return "more than max_total_bytes";
    }
    if (cwd_entries() != entries_before) return "the working directory changed";
    return {};
}

}  // namespace nnef_fuzz
