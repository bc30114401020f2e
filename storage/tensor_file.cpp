#include <storage/tensor_file.hpp>
#include <storage/memory.hpp>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <string>
#include <utility>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace nnef::storage {

namespace tensor_file_cpp {

constexpr std::uint8_t magic0 = 0x4E;  // 'N'
constexpr std::uint8_t magic1 = 0xEF;

std::uint32_t load_u32(const std::uint8_t* p) {
    return std::uint32_t(p[0]) | (std::uint32_t(p[1]) << 8) | (std::uint32_t(p[2]) << 16) |
           (std::uint32_t(p[3]) << 24);
}

void store_u32(std::uint8_t* p, std::uint32_t v) {
    for (int k = 0; k < 4; ++k) p[k] = std::uint8_t(v >> (8 * k));
}

std::string hex(std::uint64_t v, int digits) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "0x%0*llX", digits, static_cast<unsigned long long>(v));
    return buf;
}

std::string num(double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.9g", v);
    return buf;
}

std::string plural(std::uint64_t n, const char* word) {
    return std::to_string(n) + " " + word + (n == 1 ? "" : "s");
}

// Reports one error with stage data, the path and the byte offset.
void report(Diagnostics& out, const std::string& name, const char* code, std::string message,
            std::uint64_t offset) {
    Diagnostic& d = out.error(Stage::data, code, std::move(message));
    d.path = name;
    d.byte_offset = offset;
}

void report_io(Diagnostics& out, const std::string& name, std::string message) {
    Diagnostic& d = out.error(Stage::io, "io-error", std::move(message));
    d.path = name;
}

// Magic and version on the bytes available (a short file still gets the more telling message),
// then the header length.
bool check_prefix(const std::uint8_t* p, std::size_t avail, const std::string& name, Diagnostics& out) {
    if (avail > 0 && p[0] != magic0) {
        report(out, name, "tensor-bad-magic",
               "bad magic number: byte 0 is " + hex(p[0], 2) + ", expected 0x4E ('N')", 0);
        return false;
    }
    if (avail > 1 && p[1] != magic1) {
        report(out, name, "tensor-bad-magic", "bad magic number: byte 1 is " + hex(p[1], 2) + ", expected 0xEF", 1);
        return false;
    }
    if (avail > 3 && (p[2] != 1 || p[3] != 0)) {
        report(out, name, "tensor-bad-version",
               "unsupported version " + std::to_string(p[2]) + "." + std::to_string(p[3]) + ": expected 1.0",
               p[2] != 1 ? 2 : 3);
        return false;
    }
    if (avail < TensorHeader::size) {
        report(out, name, "tensor-truncated-header",
               avail == 0 ? std::string("file is empty: expected a 128-byte tensor header")
                          : "file ends after " + plural(avail, "byte") + ": expected a 128-byte tensor header",
               avail);
        return false;
    }
    return true;
}

// ceil(volume * bits / 8), or false when volume * bits exceeds 64 bits.
bool expected_data_length(const TensorHeader& h, std::uint64_t& volume, std::uint64_t& bytes) {
    constexpr std::uint64_t max = std::numeric_limits<std::uint64_t>::max();
    volume = 1;
    bool ok = true;
    const std::uint32_t rank = h.rank <= TensorHeader::max_rank ? h.rank : 0;
    for (std::uint32_t i = 0; i < rank; ++i) {
        const std::uint64_t e = h.extents[i];
        if (e != 0 && volume > max / e) {
            ok = false;
            volume = max;
        } else {
            volume *= e;
        }
    }
    if (!ok || (h.bits != 0 && volume > max / h.bits)) return false;
    const std::uint64_t total_bits = volume * h.bits;
    bytes = total_bits / 8 + (total_bits % 8 != 0 ? 1 : 0);
    return true;
}

// The size check once the total file size is known.
bool check_file_size(const TensorHeader& h, std::uint64_t file_size, const std::string& name, Diagnostics& out) {
    const std::uint64_t want = TensorHeader::size + std::uint64_t(h.data_length);
    if (file_size < want) {
        report(out, name, "tensor-truncated-data",
               "header claims " + plural(h.data_length, "data byte") + " but the file holds " +
                   std::to_string(file_size - TensorHeader::size) + " after the 128-byte header",
               TensorHeader::offset_data_length);
        return false;
    }
    if (file_size > want) {
        report(out, name, "tensor-trailing-bytes",
               plural(file_size - want, "trailing byte") + " after the " + plural(h.data_length, "data byte") +
                   ": expected the file to end at byte " + std::to_string(want),
               want);
        return false;
    }
    return true;
}

Result<TensorDataPtr> make_result(const TensorHeader& h, ByteView bytes) {
    Result<TensorDataPtr> r;
    auto t = std::make_shared<TensorData>();
    t->header = h;
    t->bytes = std::move(bytes);
    t->derive();
    r.value = std::move(t);
    return r;
}

// Validation of a memory image (header and data in `p[0..size)`); the data view is made by `view`.
template <class MakeView>
Result<TensorDataPtr> read_image(const std::uint8_t* p, std::size_t size, const std::string& name,
                                 const Limits& limits, MakeView&& view) {
    Result<TensorDataPtr> r;
    if (!check_prefix(p, size, name, r.diagnostics)) return r;
    const TensorHeader h = decode_tensor_header(p);
    if (!validate_tensor_header(h, name, limits, r.diagnostics)) return r;
    if (!check_file_size(h, size, name, r.diagnostics)) return r;
    return make_result(h, view(p + TensorHeader::size, std::size_t(h.data_length)));
}

// Reads until `n` bytes or end of file; returns the count read, or -1 on an error (errno set).
long long read_fully(int fd, std::uint8_t* dst, std::size_t n) {
    std::size_t done = 0;
    while (done < n) {
        const ssize_t k = ::read(fd, dst + done, n - done);
        if (k < 0) {
            if (errno == EINTR) continue;
            return -1;
        }
        if (k == 0) break;
        done += std::size_t(k);
    }
    return static_cast<long long>(done);
}

struct Fd {
    int fd = -1;
    ~Fd() {
        if (fd >= 0) ::close(fd);
    }
};

// A packer of `bits`-wide codes in the file's layout (little-endian bytes for multiples of 8,
// one MSB-first bit stream otherwise).
std::vector<std::uint8_t> pack_codes(const std::vector<std::uint64_t>& codes, unsigned bits, std::size_t length) {
    std::vector<std::uint8_t> out(length, 0);
    if (bits % 8 == 0) {
        const unsigned n = bits / 8;
        for (std::size_t i = 0; i < codes.size(); ++i)
            for (unsigned k = 0; k < n; ++k) out[i * n + k] = std::uint8_t(codes[i] >> (8 * k));
        return out;
    }
    std::uint64_t pos = 0;
    for (std::uint64_t code : codes) {
        unsigned left = bits;  // bits of `code` still to write, most significant first
        while (left > 0) {
            const unsigned off = unsigned(pos & 7u);
            const unsigned room = 8 - off;
            const unsigned take = room < left ? room : left;
            const unsigned chunk = unsigned(code >> (left - take)) & ((1u << take) - 1u);
            out[pos >> 3] |= std::uint8_t(chunk << (room - take));
            left -= take;
            pos += take;
        }
    }
    return out;
}

Result<TensorDataPtr> fail(const std::string& code, std::string message) {
    Result<TensorDataPtr> r;
    r.diagnostics.error(Stage::data, code, std::move(message));
    return r;
}

template <class T, class Encode>
Result<TensorDataPtr> make_from_values(const std::vector<std::int64_t>& shape, std::uint32_t item_type,
                                       unsigned bits, const std::array<std::uint32_t, 8>& params,
                                       const std::vector<T>& values, Encode&& encode) {
    std::vector<std::uint64_t> codes;
    codes.reserve(values.size());
    for (std::size_t i = 0; i < values.size(); ++i) {
        std::string problem;
        codes.push_back(encode(values[i], problem));
        if (!problem.empty()) return fail("tensor-value-range", "item " + std::to_string(i) + ": " + problem);
    }
    return make_tensor(shape, item_type, bits, params, codes);
}

}  // namespace tensor_file_cpp

TensorHeader decode_tensor_header(const std::uint8_t* p) {
    using tensor_file_cpp::load_u32;
    TensorHeader h;
    h.version_major = p[2];
    h.version_minor = p[3];
    h.data_length = load_u32(p + TensorHeader::offset_data_length);
    h.rank = load_u32(p + TensorHeader::offset_rank);
    for (std::size_t i = 0; i < 8; ++i) h.extents[i] = load_u32(p + TensorHeader::offset_extents + 4 * i);
    h.bits = load_u32(p + TensorHeader::offset_bits);
    const std::uint32_t item = load_u32(p + TensorHeader::offset_item_type);
    h.algorithm = std::uint16_t(item & 0xFFFFu);
    h.vendor = std::uint16_t(item >> 16);
    for (std::size_t i = 0; i < 8; ++i) h.params[i] = load_u32(p + TensorHeader::offset_params + 4 * i);
    std::memcpy(h.reserved.data(), p + TensorHeader::offset_reserved, h.reserved.size());
    return h;
}

std::array<std::uint8_t, TensorHeader::size> encode_tensor_header(const TensorHeader& h) {
    using tensor_file_cpp::store_u32;
    std::array<std::uint8_t, TensorHeader::size> out{};
    out[0] = tensor_file_cpp::magic0;
    out[1] = tensor_file_cpp::magic1;
    out[2] = h.version_major;
    out[3] = h.version_minor;
    store_u32(&out[TensorHeader::offset_data_length], h.data_length);
    store_u32(&out[TensorHeader::offset_rank], h.rank);
    for (std::size_t i = 0; i < 8; ++i) store_u32(&out[TensorHeader::offset_extents + 4 * i], h.extents[i]);
    store_u32(&out[TensorHeader::offset_bits], h.bits);
    store_u32(&out[TensorHeader::offset_item_type], h.item_type());
    for (std::size_t i = 0; i < 8; ++i) store_u32(&out[TensorHeader::offset_params + 4 * i], h.params[i]);
    std::memcpy(&out[TensorHeader::offset_reserved], h.reserved.data(), h.reserved.size());
    return out;
}

bool validate_tensor_header(const TensorHeader& h, const std::string& name, const Limits& limits,
                            Diagnostics& out) {
    using tensor_file_cpp::hex;
    using tensor_file_cpp::report;
    using H = TensorHeader;
    if (h.version_major != 1 || h.version_minor != 0) {
        report(out, name, "tensor-bad-version",
               "unsupported version " + std::to_string(h.version_major) + "." + std::to_string(h.version_minor) +
                   ": expected 1.0",
               h.version_major != 1 ? H::offset_version : H::offset_version + 1);
        return false;
    }
    if (h.rank > H::max_rank) {
        report(out, name, "tensor-bad-rank", "rank " + std::to_string(h.rank) + ": expected at most 8", H::offset_rank);
        return false;
    }
    if (h.rank > limits.max_rank) {
        report(out, name, "limit-exceeded",
               "rank " + std::to_string(h.rank) + " exceeds the limit max_rank = " + std::to_string(limits.max_rank),
               H::offset_rank);
        return false;
    }
    for (std::uint32_t i = 0; i < H::max_rank; ++i) {
        const std::uint64_t offset = H::offset_extents + 4 * i;
        if (i < h.rank && h.extents[i] == 0) {
            report(out, name, "tensor-bad-extent",
                   "extent " + std::to_string(i) + " of a rank-" + std::to_string(h.rank) +
                       " tensor is 0: expected a positive extent",
                   offset);
            return false;
        }
        if (i >= h.rank && h.extents[i] != 0) {
            report(out, name, "tensor-bad-extent",
                   "extent slot " + std::to_string(i) + " beyond rank " + std::to_string(h.rank) + " holds " +
                       std::to_string(h.extents[i]) + ": expected 0",
                   offset);
            return false;
        }
    }
    if (h.bits == 0 || h.bits > 64) {
        report(out, name, "tensor-bad-bits",
               std::to_string(h.bits) + " bits per item: expected 1 to 64", H::offset_bits);
        return false;
    }
    if (h.vendor == 0) {
        const char* expected = nullptr;  // the widths the code allows, when limited
        bool bits_ok = true;
        switch (h.algorithm) {
            case item_code::float_values:
                bits_ok = h.bits == 16 || h.bits == 32 || h.bits == 64;
                expected = "16, 32 or 64";
                break;
            case item_code::logical:
                bits_ok = h.bits == 1 || h.bits == 8;
                expected = "1 or 8";
                break;
            case item_code::integer:
            case item_code::quantized_unsigned:
            case item_code::quantized_signed:
            case item_code::signed_integer:
            case item_code::linear_quantized:
            case item_code::log_quantized: break;
            default:
                report(out, name, "tensor-unknown-algorithm",
                       "unknown Khronos algorithm code " + hex(h.algorithm, 2) + " (item type " +
                           hex(h.item_type(), 8) + "): expected 0x00 to 0x05, 0x10 or 0x11",
                       H::offset_item_type);
                return false;
        }
        if (!bits_ok) {
            report(out, name, "tensor-bad-bits",
                   "code " + hex(h.algorithm, 2) + " with " + std::to_string(h.bits) +
                       " bits per item: expected " + expected,
                   H::offset_bits);
            return false;
        }
        if (h.algorithm == item_code::linear_quantized || h.algorithm == item_code::log_quantized) {
            const double min = h.param_float(0);
            const double max = h.param_float(1);
            const bool log = h.algorithm == item_code::log_quantized;
            const char* what = log ? "logarithmic" : "linear";
            if (!std::isfinite(min) && !log) {
                report(out, name, "tensor-bad-parameter",
                       std::string(what) + " quantization min is " + tensor_file_cpp::num(min) +
                           ": expected a finite float",
                       H::offset_params);
                return false;
            }
            if (!std::isfinite(max) || (log && !(max > 0.0))) {
                report(out, name, "tensor-bad-parameter",
                       std::string(what) + " quantization max is " + tensor_file_cpp::num(max) + ": expected a finite" +
                           (log ? " positive" : "") + " float",
                       H::offset_params + 4);
                return false;
            }
            if (log && !(min == 0.0 || min == -max)) {
                report(out, name, "tensor-bad-parameter",
                       "logarithmic quantization min is " + tensor_file_cpp::num(min) + " with max " +
                           tensor_file_cpp::num(max) + ": expected 0 (unsigned) or -max (signed)",
                       H::offset_params);
                return false;
            }
            if (log && min != 0.0 && h.bits < 2) {
                report(out, name, "tensor-bad-bits",
                       "signed logarithmic quantization with 1 bit per item: expected at least 2 (sign and code)",
                       H::offset_bits);
                return false;
            }
        }
    }
    std::uint64_t volume = 0, bytes = 0;
    if (!tensor_file_cpp::expected_data_length(h, volume, bytes)) {
        report(out, name, "tensor-bad-data-length",
               "data length is " + tensor_file_cpp::plural(h.data_length, "byte") + " but the shape times " +
                   std::to_string(h.bits) + " bits per item needs more than 2^64 bits",
               H::offset_data_length);
        return false;
    }
    if (bytes != h.data_length) {
        const std::uint64_t total_bits = volume * h.bits;
        report(out, name, "tensor-bad-data-length",
               "data length is " + tensor_file_cpp::plural(h.data_length, "byte") + " but " +
                   tensor_file_cpp::plural(volume, "item") + " of " + std::to_string(h.bits) + " bits need " +
                   (total_bits % 8 == 0 ? std::to_string(total_bits) + " / 8"
                                        : "ceil(" + std::to_string(total_bits) + " / 8)") +
                   " = " + tensor_file_cpp::plural(bytes, "byte"),
               H::offset_data_length);
        return false;
    }
    if (volume > limits.max_volume) {
        report(out, name, "limit-exceeded",
               "tensor has " + std::to_string(volume) + " items, more than the limit max_volume = " +
                   std::to_string(limits.max_volume),
               H::offset_extents);
        return false;
    }
    return true;
}

Result<TensorDataPtr> read_tensor_bytes(const std::uint8_t* data, std::size_t size, const std::string& name,
                                        const Limits& limits) {
    return tensor_file_cpp::read_image(data, size, name, limits, [](const std::uint8_t* p, std::size_t n) {
        return ByteView(std::vector<std::uint8_t>(p, p + n));
    });
}

Result<TensorDataPtr> read_tensor_bytes(std::shared_ptr<const std::string> bytes, const std::string& name,
                                        const Limits& limits) {
    if (!bytes) {
        Result<TensorDataPtr> r;
        tensor_file_cpp::check_prefix(nullptr, 0, name, r.diagnostics);
        return r;
    }
    const auto* p = reinterpret_cast<const std::uint8_t*>(bytes->data());
    return tensor_file_cpp::read_image(p, bytes->size(), name, limits, [&](const std::uint8_t* d, std::size_t n) {
        return ByteView(std::shared_ptr<const void>(bytes), d, n, false);
    });
}

Result<TensorDataPtr> read_tensor_bytes(const ByteView& bytes, const std::string& name, const Limits& limits) {
    // The new views share ownership of a copy of `bytes` (which holds the real owner).
    std::shared_ptr<const ByteView> keep;
    return tensor_file_cpp::read_image(bytes.data(), bytes.size(), name, limits,
                                       [&](const std::uint8_t* d, std::size_t n) {
                                           keep = std::make_shared<const ByteView>(bytes);
                                           return ByteView(std::shared_ptr<const void>(keep), d, n, bytes.mapped());
                                       });
}

Result<TensorDataPtr> read_tensor_file(const std::string& path, const Limits& limits, const ReadOptions& options) {
    using namespace tensor_file_cpp;  // NOLINT: function scope only
    Result<TensorDataPtr> r;
    Fd f;
    do {
        f.fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    } while (f.fd < 0 && errno == EINTR);
    if (f.fd < 0) {
        report_io(r.diagnostics, path, "cannot open tensor file: " + std::string(std::strerror(errno)));
        return r;
    }
    struct stat st {};
    if (::fstat(f.fd, &st) != 0) {
        report_io(r.diagnostics, path, "cannot stat tensor file: " + std::string(std::strerror(errno)));
        return r;
    }
    if (S_ISDIR(st.st_mode)) {
        report_io(r.diagnostics, path, "cannot read tensor file: is a directory");
        return r;
    }
    const bool regular = S_ISREG(st.st_mode);

    std::array<std::uint8_t, TensorHeader::size> head{};
    const long long got = read_fully(f.fd, head.data(), head.size());
    if (got < 0) {
        report_io(r.diagnostics, path, "cannot read tensor file: " + std::string(std::strerror(errno)));
        return r;
    }
    if (!check_prefix(head.data(), std::size_t(got), path, r.diagnostics)) return r;
    const TensorHeader h = decode_tensor_header(head.data());
    if (!validate_tensor_header(h, path, limits, r.diagnostics)) return r;
    const std::size_t length = h.data_length;

    if (regular) {
        // The size is known: nothing is allocated or mapped before it confirms the header.
        if (!check_file_size(h, std::uint64_t(st.st_size), path, r.diagnostics)) return r;
        const bool float32 = h.vendor == 0 && h.algorithm == item_code::float_values && h.bits == 32;
        if (options.allow_mmap && float32 && length >= options.map_from && tensor_data_detail::host_little_endian()) {
            const std::size_t total = TensorHeader::size + length;
            int flags = MAP_PRIVATE;
#ifdef MAP_POPULATE
            if (options.populate) flags |= MAP_POPULATE;
#endif
            void* base = ::mmap(nullptr, total, PROT_READ, flags, f.fd, 0);
            if (base != MAP_FAILED) {
                std::shared_ptr<const void> owner(base, [total](const void* p) {
                    ::munmap(const_cast<void*>(p), total);
                });
                const auto* data = static_cast<const std::uint8_t*>(base) + TensorHeader::size;
                return make_result(h, ByteView(std::move(owner), data, length, true));
            }
            // Mapping can fail (e.g. special file systems): fall back to reading.
        }
        // Large data goes to huge-page memory (storage/memory.hpp), small data to a vector.
        std::vector<std::uint8_t> small;
        std::shared_ptr<const void> owner;
        std::uint8_t* data = nullptr;
        if (length >= memory::large) {
            data = memory::map_anonymous(length, owner);
            if (!data) {
                report_io(r.diagnostics, path, "cannot allocate " + plural(length, "byte") + " for the tensor data");
                return r;
            }
        } else {
            small.resize(length);
            data = small.data();
        }
        const long long n = read_fully(f.fd, data, length);
        if (n < 0) {
            report_io(r.diagnostics, path, "cannot read tensor file: " + std::string(std::strerror(errno)));
            return r;
        }
        std::uint8_t extra = 0;
        const long long more = std::size_t(n) == length ? read_fully(f.fd, &extra, 1) : 0;
        // The file changed after fstat: judge what was actually read.
        if (!check_file_size(h, TensorHeader::size + std::uint64_t(n) + std::uint64_t(more > 0 ? more : 0), path,
                             r.diagnostics))
            return r;
        if (owner) return make_result(h, ByteView(std::move(owner), data, length, false));
        return make_result(h, ByteView(std::move(small)));
    }

    // A pipe or device: the size is unknown, so the buffer grows only as data arrives.
    std::vector<std::uint8_t> data;
    std::size_t have = 0;
    while (have < length) {
        const std::size_t step = std::min<std::size_t>(length - have, std::max<std::size_t>(have, 1 << 16));
        data.resize(have + step);
        const long long n = read_fully(f.fd, data.data() + have, step);
        if (n < 0) {
            report_io(r.diagnostics, path, "cannot read tensor file: " + std::string(std::strerror(errno)));
            return r;
        }
        have += std::size_t(n);
        if (std::size_t(n) < step) break;
    }
    data.resize(have);
    std::uint8_t extra = 0;
    const long long more = have == length ? read_fully(f.fd, &extra, 1) : 0;
    if (!check_file_size(h, TensorHeader::size + have + std::uint64_t(more > 0 ? more : 0), path, r.diagnostics))
        return r;
    return make_result(h, ByteView(std::move(data)));
}

Result<std::vector<std::uint8_t>> encode_tensor(const TensorData& tensor) {
    Result<std::vector<std::uint8_t>> r;
    const TensorHeader& h = tensor.header;
    if (!validate_tensor_header(h, "", Limits{}, r.diagnostics)) return r;
    if (tensor.bytes.size() != h.data_length) {
        r.diagnostics.error(Stage::data, "tensor-bad-data-length",
                            "tensor holds " + tensor_file_cpp::plural(tensor.bytes.size(), "data byte") +
                                " but its header declares " + std::to_string(h.data_length));
        return r;
    }
    const auto head = encode_tensor_header(h);
    std::vector<std::uint8_t> out;
    out.reserve(head.size() + tensor.bytes.size());
    out.insert(out.end(), head.begin(), head.end());
    out.insert(out.end(), tensor.bytes.data(), tensor.bytes.data() + tensor.bytes.size());
    r.value = std::move(out);
    return r;
}

Result<std::uint64_t> write_tensor_file(const std::string& path, const TensorData& tensor) {
    Result<std::uint64_t> r;
    auto image = encode_tensor(tensor);
    if (!image) {
        r.diagnostics.append(image.diagnostics);
        return r;
    }
    tensor_file_cpp::Fd f;
    do {
        f.fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    } while (f.fd < 0 && errno == EINTR);
    if (f.fd < 0) {
        tensor_file_cpp::report_io(r.diagnostics, path, "cannot create tensor file: " + std::string(std::strerror(errno)));
        return r;
    }
    const std::vector<std::uint8_t>& bytes = *image;
    std::size_t done = 0;
    while (done < bytes.size()) {
        const ssize_t k = ::write(f.fd, bytes.data() + done, bytes.size() - done);
        if (k < 0) {
            if (errno == EINTR) continue;
            tensor_file_cpp::report_io(r.diagnostics, path,
                                       "cannot write tensor file: " + std::string(std::strerror(errno)));
            return r;
        }
        done += std::size_t(k);
    }
    const int closed = ::close(f.fd);
    f.fd = -1;
    if (closed != 0) {
        tensor_file_cpp::report_io(r.diagnostics, path, "cannot write tensor file: " + std::string(std::strerror(errno)));
        return r;
    }
    r.value = done;
    return r;
}

// ---- building ------------------------------------------------------------------------------

Result<TensorDataPtr> make_tensor(const std::vector<std::int64_t>& shape, std::uint32_t item_type, unsigned bits,
                                  const std::array<std::uint32_t, 8>& params,
                                  const std::vector<std::uint64_t>& codes) {
    using tensor_file_cpp::fail;
    if (shape.size() > TensorHeader::max_rank)
        return fail("tensor-bad-rank", "rank " + std::to_string(shape.size()) + ": expected at most 8");
    TensorHeader h;
    h.rank = std::uint32_t(shape.size());
    for (std::size_t i = 0; i < shape.size(); ++i) {
        if (shape[i] < 1 || shape[i] > std::int64_t(std::numeric_limits<std::uint32_t>::max()))
            return fail("tensor-bad-extent", "extent " + std::to_string(i) + " is " + std::to_string(shape[i]) +
                                                 ": expected 1 to 4294967295");
        h.extents[i] = std::uint32_t(shape[i]);
    }
    h.bits = bits;
    h.algorithm = std::uint16_t(item_type & 0xFFFFu);
    h.vendor = std::uint16_t(item_type >> 16);
    h.params = params;
    std::uint64_t volume = 0, length = 0;
    if (!tensor_file_cpp::expected_data_length(h, volume, length) ||
        length > std::numeric_limits<std::uint32_t>::max())
        return fail("tensor-bad-data-length", "the tensor needs more than 4294967295 data bytes, the most a tensor "
                                              "file can hold");
    h.data_length = std::uint32_t(length);
    Result<TensorDataPtr> r;
    if (!validate_tensor_header(h, "", Limits{}, r.diagnostics)) return r;
    if (codes.size() != volume)
        return fail("tensor-value-count", "got " + tensor_file_cpp::plural(codes.size(), "value") + " for shape of " +
                                              tensor_file_cpp::plural(volume, "item"));
    const std::uint64_t top = TensorData::max_code(bits);
    for (std::size_t i = 0; i < codes.size(); ++i)
        if (codes[i] > top)
            return fail("tensor-value-range", "item " + std::to_string(i) + ": code " + std::to_string(codes[i]) +
                                                  " does not fit " + std::to_string(bits) + " bits");
    return tensor_file_cpp::make_result(h, ByteView(tensor_file_cpp::pack_codes(codes, bits, std::size_t(length))));
}

Result<TensorDataPtr> make_float_tensor(const std::vector<std::int64_t>& shape, const std::vector<float>& values) {
    return tensor_file_cpp::make_from_values(shape, item_code::float_values, 32, {}, values,
                                             [](float v, std::string&) {
                                                 std::uint32_t w;
                                                 std::memcpy(&w, &v, sizeof w);
                                                 return std::uint64_t(w);
                                             });
}

Result<TensorDataPtr> make_float_tensor(const std::vector<std::int64_t>& shape, const std::vector<double>& values,
                                        unsigned bits) {
    return tensor_file_cpp::make_from_values(shape, item_code::float_values, bits, {}, values,
                                             [bits](double v, std::string&) -> std::uint64_t {
                                                 if (bits == 16) return double_to_half(v);
                                                 if (bits == 64) {
                                                     std::uint64_t w;
                                                     std::memcpy(&w, &v, sizeof w);
                                                     return w;
                                                 }
                                                 const float f = static_cast<float>(v);
                                                 std::uint32_t w;
                                                 std::memcpy(&w, &f, sizeof w);
                                                 return w;
                                             });
}

Result<TensorDataPtr> make_integer_tensor(const std::vector<std::int64_t>& shape,
                                          const std::vector<std::int64_t>& values, unsigned bits, bool is_signed,
                                          std::uint16_t code) {
    if (code != item_code::integer && code != item_code::signed_integer && code != item_code::quantized_unsigned &&
        code != item_code::quantized_signed)
        return tensor_file_cpp::fail("tensor-unknown-algorithm", "code " + tensor_file_cpp::hex(code, 2) +
                                                                     " is not an integer code: expected 0x01 to 0x04");
    if (code == item_code::signed_integer || code == item_code::quantized_signed) is_signed = true;
    if (code == item_code::quantized_unsigned) is_signed = false;
    std::array<std::uint32_t, 8> params{};
    if (code == item_code::integer) params[0] = is_signed ? 1 : 0;
    const unsigned width = bits;
    return tensor_file_cpp::make_from_values(
        shape, code, bits, params, values, [width, is_signed](std::int64_t v, std::string& problem) -> std::uint64_t {
            if (width == 0 || width > 64) return 0;  // refused by make_tensor
            if (is_signed) {
                const std::int64_t lo = width == 64 ? std::numeric_limits<std::int64_t>::min()
                                                    : -(std::int64_t(1) << (width - 1));
                const std::int64_t hi = width == 64 ? std::numeric_limits<std::int64_t>::max()
                                                    : (std::int64_t(1) << (width - 1)) - 1;
                if (v < lo || v > hi)
                    problem = "value " + std::to_string(v) + " does not fit " + std::to_string(width) + " signed bits";
                return std::uint64_t(v) & TensorData::max_code(width);
            }
            if (v < 0 || std::uint64_t(v) > TensorData::max_code(width))
                problem = "value " + std::to_string(v) + " does not fit " + std::to_string(width) + " unsigned bits";
            return std::uint64_t(v);
        });
}

Result<TensorDataPtr> make_logical_tensor(const std::vector<std::int64_t>& shape, const std::vector<bool>& values,
                                          unsigned bits) {
    std::vector<std::uint64_t> codes(values.begin(), values.end());
    return make_tensor(shape, item_code::logical, bits, {}, codes);
}

Result<TensorDataPtr> make_linear_quantized_tensor(const std::vector<std::int64_t>& shape,
                                                   const std::vector<double>& values, float min, float max,
                                                   unsigned bits) {
    std::array<std::uint32_t, 8> params{};
    std::memcpy(&params[0], &min, 4);
    std::memcpy(&params[1], &max, 4);
    const unsigned width = bits > 64 ? 64 : bits;
    return tensor_file_cpp::make_from_values(shape, item_code::linear_quantized, bits, params, values,
                                             [=](double v, std::string&) {
                                                 return linear_quantize_code(v, min, max, width);
                                             });
}

Result<TensorDataPtr> make_log_quantized_tensor(const std::vector<std::int64_t>& shape,
                                                const std::vector<double>& values, float max, bool is_signed,
                                                unsigned bits) {
    std::array<std::uint32_t, 8> params{};
    const float min = is_signed ? -max : 0.0f;
    std::memcpy(&params[0], &min, 4);
    std::memcpy(&params[1], &max, 4);
    const bool usable = std::isfinite(max) && max > 0 && bits >= (is_signed ? 2u : 1u) && bits <= 64;
    return tensor_file_cpp::make_from_values(shape, item_code::log_quantized, bits, params, values,
                                             [=](double v, std::string&) -> std::uint64_t {
                                                 return usable ? log_quantize_code(v, max, is_signed, bits) : 0;
                                             });
}

std::uint16_t double_to_half(double x) {
    std::uint64_t b;
    std::memcpy(&b, &x, sizeof b);
    const std::uint16_t sign = std::uint16_t((b >> 63) << 15);
    const int exponent = int((b >> 52) & 0x7FF);
    const std::uint64_t fraction = b & ((std::uint64_t(1) << 52) - 1);
    if (exponent == 0x7FF)  // infinity or NaN (quiet, with the top payload bits)
        return std::uint16_t(sign | 0x7C00u | (fraction != 0 ? 0x200u | unsigned(fraction >> 42) : 0u));
    if (exponent == 0) return sign;  // zero or a double subnormal: far below half precision
    const int e = exponent - 1023;
    if (e > 15) return std::uint16_t(sign | 0x7C00u);
    const std::uint64_t m = fraction | (std::uint64_t(1) << 52);  // 53 significant bits
    // Round m * 2^(e - 52) to a multiple of the half's unit at this exponent (nearest, ties even).
    auto round_shift = [](std::uint64_t v, int s) {
        const std::uint64_t kept = v >> s;
        const std::uint64_t rest = v & ((std::uint64_t(1) << s) - 1);
        const std::uint64_t half = std::uint64_t(1) << (s - 1);
        return kept + ((rest > half || (rest == half && (kept & 1))) ? 1 : 0);
    };
    if (e >= -14) {
        const std::uint64_t q = round_shift(m, 42);  // 0x400 .. 0x800
        const std::uint64_t v = (std::uint64_t(e + 15) << 10) + (q - 0x400);
        return std::uint16_t(sign | (v >= 0x7C00 ? 0x7C00u : unsigned(v)));
    }
    const int s = 28 - e;  // subnormal: units of 2^-24
    if (s >= 54) return sign;
    return std::uint16_t(sign | unsigned(round_shift(m, s)));
}

std::uint64_t linear_quantize_code(double x, double min, double max, unsigned bits) {
    const std::uint64_t r = TensorData::max_code(bits);
    if (!(max != min)) return 0;  // also NaN
    double t = (x - min) / (max - min);
    if (!(t > 0.0)) return 0;  // also NaN
    if (t >= 1.0) return r;
    const double v = std::round(t * double(r));
    if (v >= 18446744073709551615.0) return r;
    const std::uint64_t q = std::uint64_t(v);
    return q > r ? r : q;
}

std::uint64_t log_quantize_code(double x, double max, bool is_signed, unsigned bits) {
    const unsigned width = is_signed ? bits - 1 : bits;
    const std::uint64_t r = TensorData::max_code(width);
    const int m = tensor_data_detail::ceil_log2(max);
    const bool negative = x < 0.0;
    const std::uint64_t sign = is_signed && negative ? std::uint64_t(1) << width : 0;
    const double a = std::fabs(x);
    if ((negative && !is_signed) || !(a > 0.0)) return sign;  // clamped to the smallest code
    const double l = std::log2(a);
    if (l >= m) return sign | r;
    const double d = double(m) - std::round(l);  // 0 .. ~1100
    if (d <= 0.0) return sign | r;
    const std::uint64_t di = std::uint64_t(d);
    return sign | (di >= r ? 0 : r - di);
}

}  // namespace nnef::storage
