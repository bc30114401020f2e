// Tensor data as stored in an NNEF tensor file (spec 5.2, read as SPEC_NOTES section 4). std-only.
//
// A TensorData keeps the decoded 128-byte header, the element kind it describes, and the raw data
// bytes exactly as stored (owned, borrowed from a shared buffer, or memory-mapped; the bytes stay
// alive as long as any copy of the TensorData does). Items are decoded on demand from the raw
// codes, which are always kept, so writing a TensorData back reproduces the file bit for bit.
//
// Reading, validating and writing tensor files is in storage/tensor_file.hpp; a TensorData obtained
// from there has been validated, so every accessor below is safe for indices below count().
#pragma once
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <vector>

#include <nnef/value.hpp>

namespace nnef {

// Khronos algorithm codes (the low 16 bits of the item-type word when the vendor is 0).
namespace item_code {
inline constexpr std::uint16_t float_values = 0x00;        // IEEE float, 16/32/64 bits
inline constexpr std::uint16_t integer = 0x01;             // unsigned, signed if params[0] != 0
inline constexpr std::uint16_t quantized_unsigned = 0x02;  // integer codes, meaning from graph.quant
inline constexpr std::uint16_t quantized_signed = 0x03;    // integer codes, meaning from graph.quant
inline constexpr std::uint16_t signed_integer = 0x04;      // two's complement
inline constexpr std::uint16_t logical = 0x05;             // 1 or 8 bits
inline constexpr std::uint16_t linear_quantized = 0x10;    // params: min, max (float32)
inline constexpr std::uint16_t log_quantized = 0x11;       // params: min (0 or -max), max (float32)
}  // namespace item_code

// The finer element kind of a tensor file.
enum class ElementKind : std::uint8_t {
    float16,
    float32,
    float64,
    signed_int,          // code 0x01 with a non-zero signed flag, or 0x04
    unsigned_int,        // code 0x01 with a zero signed flag
    logical,             // code 0x05
    quantized_signed,    // code 0x03: integer codes
    quantized_unsigned,  // code 0x02: integer codes
    linear_quantized,    // code 0x10
    log_quantized,       // code 0x11
    opaque,              // non-zero vendor: bytes kept, values unknown
};

// "float16", "float32", "float64", "int", "uint", "logical", "qint", "quint", "linear_quantized",
// "log_quantized", "opaque".
inline const char* to_string(ElementKind k) {
    switch (k) {
        case ElementKind::float16: return "float16";
        case ElementKind::float32: return "float32";
        case ElementKind::float64: return "float64";
        case ElementKind::signed_int: return "int";
        case ElementKind::unsigned_int: return "uint";
        case ElementKind::logical: return "logical";
        case ElementKind::quantized_signed: return "qint";
        case ElementKind::quantized_unsigned: return "quint";
        case ElementKind::linear_quantized: return "linear_quantized";
        case ElementKind::log_quantized: return "log_quantized";
        case ElementKind::opaque: return "opaque";
    }
    return "opaque";
}

// The 128-byte header, field by field (all little-endian in the file).
struct TensorHeader {
    static constexpr std::size_t size = 128;
    static constexpr std::size_t max_rank = 8;
    // Byte offsets of the fields (used in diagnostics).
    static constexpr std::size_t offset_magic = 0;
    static constexpr std::size_t offset_version = 2;
    static constexpr std::size_t offset_data_length = 4;
    static constexpr std::size_t offset_rank = 8;
    static constexpr std::size_t offset_extents = 12;
    static constexpr std::size_t offset_bits = 44;
    static constexpr std::size_t offset_item_type = 48;
    static constexpr std::size_t offset_params = 52;
    static constexpr std::size_t offset_reserved = 84;

    std::uint8_t version_major = 1;
    std::uint8_t version_minor = 0;
    std::uint32_t data_length = 0;  // bytes after the header
    std::uint32_t rank = 0;
    std::array<std::uint32_t, 8> extents{};
    std::uint32_t bits = 0;         // bits per item
    std::uint16_t algorithm = 0;    // low 16 bits of the item-type word
    std::uint16_t vendor = 0;       // high 16 bits; 0 = Khronos
    std::array<std::uint32_t, 8> params{};   // raw parameter words
    std::array<std::uint8_t, 44> reserved{};  // kept as read (non-zero is not an error)

    std::uint32_t item_type() const { return (std::uint32_t(vendor) << 16) | algorithm; }
    // Parameter word i reinterpreted as an IEEE float32 (min/max of codes 0x10 and 0x11).
    float param_float(std::size_t i) const {
        float f;
        std::memcpy(&f, &params[i], sizeof f);
        return f;
    }
    void set_param_float(std::size_t i, float f) { std::memcpy(&params[i], &f, sizeof f); }
};

// Immutable bytes that stay alive through a shared owner: an owned vector, a shared buffer or a
// memory mapping.
class ByteView {
public:
    ByteView() = default;
    explicit ByteView(std::vector<std::uint8_t> owned) {
        auto v = std::make_shared<const std::vector<std::uint8_t>>(std::move(owned));
        data_ = v->data();
        size_ = v->size();
        owner_ = std::move(v);
        owned_ = true;
    }
    // A view into memory kept alive by `owner`; `mapped` marks a memory mapping of a file.
    ByteView(std::shared_ptr<const void> owner, const std::uint8_t* data, std::size_t size, bool mapped)
        : owner_(std::move(owner)), data_(data), size_(size), mapped_(mapped) {}

    const std::uint8_t* data() const { return data_; }
    std::size_t size() const { return size_; }
    bool mapped() const { return mapped_; }  // zero copy from a file mapping
    bool owned() const { return owned_; }    // a vector that belongs to this view
    std::vector<std::uint8_t> to_vector() const { return std::vector<std::uint8_t>(data_, data_ + size_); }

private:
    std::shared_ptr<const void> owner_;
    const std::uint8_t* data_ = nullptr;
    std::size_t size_ = 0;
    bool mapped_ = false;
    bool owned_ = false;
};

namespace tensor_data_detail {

inline bool host_little_endian() {
#if defined(__BYTE_ORDER__) && defined(__ORDER_LITTLE_ENDIAN__)
    return __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__;
#else
    const std::uint16_t one = 1;
    std::uint8_t first;
    std::memcpy(&first, &one, 1);
    return first == 1;
#endif
}

inline double half_to_double(std::uint16_t h) {
    const bool negative = (h & 0x8000u) != 0;
    const unsigned exponent = (h >> 10) & 0x1fu;
    const unsigned mantissa = h & 0x3ffu;
    double v;
    if (exponent == 0) {
        v = std::ldexp(double(mantissa), -24);
    } else if (exponent == 31) {
        v = mantissa == 0 ? std::numeric_limits<double>::infinity() : std::numeric_limits<double>::quiet_NaN();
    } else {
        v = std::ldexp(double(mantissa | 0x400u), int(exponent) - 25);
    }
    return negative ? -v : v;
}

// ceil(log2(max)) for a finite max > 0, exactly.
inline int ceil_log2(double max) {
    int e = 0;
    const double f = std::frexp(max, &e);  // max = f * 2^e, f in [0.5, 1)
    return f == 0.5 ? e - 1 : e;
}

}  // namespace tensor_data_detail

struct TensorData {
    TensorHeader header;
    ByteView bytes;  // exactly header.data_length bytes

    // Derived from the header by derive():
    std::vector<std::int64_t> shape;  // header.extents[0 .. rank)
    std::uint64_t count = 1;          // number of items (1 for rank 0)
    ElementKind kind = ElementKind::opaque;
    // The type of the decoded values: scalar (float, linear/log quantized), integer (integer and
    // quantized codes 0x02/0x03, whose real meaning comes from graph.quant), logical, or none
    // (opaque vendor data).
    PrimType dtype = PrimType::none;
    unsigned bits = 0;
    bool is_signed = false;  // integer kinds, and signed logarithmic quantization
    double min = 0.0;        // codes 0x10/0x11: params 0 and 1 as float32
    double max = 0.0;
    int log_m = 0;           // code 0x11: ceil(log2(max))

    // Fills the derived fields from `header`. Does not validate (storage does).
    void derive() {
        shape.assign(header.extents.begin(), header.extents.begin() + (header.rank <= 8 ? header.rank : 8));
        count = 1;
        for (std::int64_t e : shape) count *= std::uint64_t(e);
        bits = header.bits;
        is_signed = false;
        min = max = 0.0;
        log_m = 0;
        dtype = PrimType::none;
        kind = ElementKind::opaque;
        if (header.vendor != 0) return;
        switch (header.algorithm) {
            case item_code::float_values:
                kind = bits == 16 ? ElementKind::float16 : bits == 64 ? ElementKind::float64 : ElementKind::float32;
                dtype = PrimType::scalar;
                break;
            case item_code::integer:
                is_signed = header.params[0] != 0;
                kind = is_signed ? ElementKind::signed_int : ElementKind::unsigned_int;
                dtype = PrimType::integer;
                break;
            case item_code::signed_integer:
                is_signed = true;
                kind = ElementKind::signed_int;
                dtype = PrimType::integer;
                break;
            case item_code::quantized_unsigned:
                kind = ElementKind::quantized_unsigned;
                dtype = PrimType::integer;
                break;
            case item_code::quantized_signed:
                is_signed = true;
                kind = ElementKind::quantized_signed;
                dtype = PrimType::integer;
                break;
            case item_code::logical:
                kind = ElementKind::logical;
                dtype = PrimType::logical;
                break;
            case item_code::linear_quantized:
            case item_code::log_quantized:
                min = header.param_float(0);
                max = header.param_float(1);
                dtype = PrimType::scalar;
                if (header.algorithm == item_code::linear_quantized) {
                    kind = ElementKind::linear_quantized;
                } else {
                    kind = ElementKind::log_quantized;
                    is_signed = min != 0.0;
                    if (std::isfinite(max) && max > 0.0) log_m = tensor_data_detail::ceil_log2(max);
                }
                break;
            default: break;  // unknown Khronos code: refused by storage
        }
    }

    std::uint64_t size() const { return count; }
    std::size_t rank() const { return shape.size(); }
    // False for opaque (vendor) data: the accessors then return the raw codes as unsigned values.
    bool has_values() const { return kind != ElementKind::opaque; }
    bool is_float() const {
        return kind == ElementKind::float16 || kind == ElementKind::float32 || kind == ElementKind::float64;
    }

    // The raw code of item i: `bits` wide, zero-extended. Widths that are multiples of 8 are
    // little-endian bytes; other widths form one bit stream, most significant bit first.
    std::uint64_t raw(std::uint64_t i) const {
        const std::uint8_t* d = bytes.data();
        if (bits % 8 == 0) {
            const unsigned n = bits / 8;
            const std::uint8_t* p = d + i * n;
            std::uint64_t v = 0;
            for (unsigned k = n; k-- > 0;) v = (v << 8) | p[k];
            return v;
        }
        std::uint64_t pos = i * bits;
        unsigned need = bits;
        std::uint64_t v = 0;
        while (need > 0) {
            const unsigned off = unsigned(pos & 7u);
            const unsigned avail = 8 - off;
            const unsigned take = avail < need ? avail : need;
            const unsigned chunk = (unsigned(d[pos >> 3]) >> (avail - take)) & ((1u << take) - 1u);
            v = (v << take) | chunk;
            need -= take;
            pos += take;
        }
        return v;
    }

    // The raw code of item i as a two's complement number of `bits` bits.
    std::int64_t raw_signed(std::uint64_t i) const { return sign_extend(raw(i), bits); }

    // Item i as an integer: integer kinds exactly (unsigned values above INT64_MAX wrap; use raw()
    // for those), logical 0/1, opaque the raw code; float and quantized reals are truncated toward
    // zero and saturated (NaN gives 0).
    std::int64_t as_int64(std::uint64_t i) const {
        switch (kind) {
            case ElementKind::signed_int:
            case ElementKind::quantized_signed: return raw_signed(i);
            case ElementKind::unsigned_int:
            case ElementKind::quantized_unsigned:
            case ElementKind::opaque: return static_cast<std::int64_t>(raw(i));
            case ElementKind::logical: return raw(i) != 0 ? 1 : 0;
            default: break;
        }
        const double v = as_double(i);
        if (std::isnan(v)) return 0;
        if (v >= 9223372036854775808.0) return std::numeric_limits<std::int64_t>::max();
        if (v < -9223372036854775808.0) return std::numeric_limits<std::int64_t>::min();
        return static_cast<std::int64_t>(v);
    }

    // Item i as a double: floats converted exactly, integers (rounded to the nearest double above
    // 2^53), logical 0/1, linear quantization q / r * (max - min) + min (all-zero code is min,
    // all-one code is max), logarithmic 2^(q + m - r) with the sign bit of signed data.
    double as_double(std::uint64_t i) const {
        switch (kind) {
            case ElementKind::float16: return tensor_data_detail::half_to_double(std::uint16_t(raw(i)));
            case ElementKind::float32: {
                const std::uint32_t w = std::uint32_t(raw(i));
                float f;
                std::memcpy(&f, &w, sizeof f);
                return f;
            }
            case ElementKind::float64: {
                const std::uint64_t w = raw(i);
                double f;
                std::memcpy(&f, &w, sizeof f);
                return f;
            }
            case ElementKind::signed_int:
            case ElementKind::quantized_signed: return double(raw_signed(i));
            case ElementKind::logical: return raw(i) != 0 ? 1.0 : 0.0;
            case ElementKind::linear_quantized: return linear_decode(raw(i));
            case ElementKind::log_quantized: return log_decode(raw(i));
            case ElementKind::unsigned_int:
            case ElementKind::quantized_unsigned:
            case ElementKind::opaque: return double(raw(i));
        }
        return double(raw(i));
    }

    // Item i is non-zero.
    bool as_bool(std::uint64_t i) const {
        if (is_float() || kind == ElementKind::linear_quantized || kind == ElementKind::log_quantized)
            return as_double(i) != 0.0;
        return raw(i) != 0;
    }

    // Every item decoded (see as_double).
    std::vector<double> to_doubles() const {
        std::vector<double> out(count);
        if (const float* f = float32_data()) {
            for (std::uint64_t i = 0; i < count; ++i) out[i] = f[i];
            return out;
        }
        for (std::uint64_t i = 0; i < count; ++i) out[i] = as_double(i);
        return out;
    }
    std::vector<std::int64_t> to_int64s() const {
        std::vector<std::int64_t> out(count);
        for (std::uint64_t i = 0; i < count; ++i) out[i] = as_int64(i);
        return out;
    }

    // The float32 items in place (zero copy), or null when the data is not float32, the host is
    // not little-endian, or the bytes are not aligned for float.
    const float* float32_data() const {
        if (kind != ElementKind::float32 || !tensor_data_detail::host_little_endian()) return nullptr;
        const std::uint8_t* d = bytes.data();
        if (d == nullptr || reinterpret_cast<std::uintptr_t>(d) % alignof(float) != 0) return nullptr;
        return reinterpret_cast<const float*>(d);
    }

    // The largest code at this width: 2^bits - 1.
    static std::uint64_t max_code(unsigned width) {
        return width >= 64 ? ~std::uint64_t(0) : (std::uint64_t(1) << width) - 1;
    }
    static std::int64_t sign_extend(std::uint64_t v, unsigned width) {
        if (width == 0 || width >= 64) return static_cast<std::int64_t>(v);
        const std::uint64_t sign = std::uint64_t(1) << (width - 1);
        if (v & sign) v |= ~max_code(width);
        return static_cast<std::int64_t>(v);
    }

    // Decoding of one code of the quantized kinds (public so that writers and tests can check
    // the formulas).
    double linear_decode(std::uint64_t q) const {
        const std::uint64_t r = max_code(bits);
        if (q == 0) return min;
        if (q == r) return max;
        return double(q) / double(r) * (max - min) + min;
    }
    double log_decode(std::uint64_t code) const {
        const unsigned width = is_signed ? bits - 1 : bits;
        const std::uint64_t r = max_code(width);
        const std::uint64_t q = code & r;
        const bool negative = is_signed && ((code >> width) & 1u) != 0;
        const std::uint64_t d = r - q;  // x = 2^(m - d)
        const double v = d > 4000 ? 0.0 : std::ldexp(1.0, log_m - int(d));
        return negative ? -v : v;
    }
};

}  // namespace nnef
