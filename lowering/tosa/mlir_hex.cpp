// The hexadecimal form of constants' items in MLIR dense attributes (dense<"0x...">): item bytes,
// the SIMD encoders, and the literal lists of bool constants. Part of the MLIR writer (mlir.cpp).
#include "lowering/tosa/mlir_hex.hpp"

#include <array>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define NNEF_MLIR_X86 1
#endif

namespace nnef::tosa {

namespace tosa_mlir_cpp {

// Bytes of one item in MLIR's dense hexadecimal form (0: written as a literal list instead).
std::size_t hex_item_bytes(DType t) {
    // bool: MLIR packs i1 hex data in bits; shape: index. i48 as its six bytes (stored in eight).
    if (t == DType::bool_ || t == DType::shape) return 0;
    return t == DType::i48 ? 6 : storage_bytes(t);
}

// The little-endian bytes of item i of c (hex_item_bytes of them).
std::uint64_t item_bits(const ConstData& c, std::size_t i) {
    switch (c.type.dtype) {
        case DType::bool_:
        case DType::i8: return c.items<std::uint8_t>()[i];
        case DType::i16:
        case DType::fp16:
        case DType::bf16: return c.items<std::uint16_t>()[i];
        case DType::i32:
        case DType::fp32: return c.items<std::uint32_t>()[i];
        case DType::i48:
        case DType::shape: return static_cast<std::uint64_t>(c.items<std::int64_t>()[i]);
        case DType::none: break;
    }
    return 0;
}

void append_hex_item(std::string& out, std::uint64_t bits, std::size_t bytes) {
    static const char digits[] = "0123456789ABCDEF";
    for (std::size_t b = 0; b < bytes; ++b) {
        unsigned v = static_cast<unsigned>((bits >> (8 * b)) & 0xFF);
        out += digits[v >> 4];
        out += digits[v & 15];
    }
}

bool little_endian_host() {
    const std::uint16_t one = 1;
    unsigned char first;
    std::memcpy(&first, &one, 1);
    return first == 1;
}

// Writes the upper-case hexadecimal digits of the n bytes at p (2 n chars) to d: 16 bytes at a time
// with SSE2 where the compiler targets it (every x86-64), one table look-up per byte otherwise.
void encode_hex(char* d, const unsigned char* p, std::size_t n) {
    std::size_t i = 0;
#if defined(__SSE2__)
    const __m128i low = _mm_set1_epi8(0x0F), nine = _mm_set1_epi8(9), zero = _mm_set1_epi8('0'),
                  letters = _mm_set1_epi8('A' - '0' - 10);
    for (; i + 16 <= n; i += 16) {
        const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i));
        const __m128i hi = _mm_and_si128(_mm_srli_epi16(v, 4), low), lo = _mm_and_si128(v, low);
        __m128i a = _mm_unpacklo_epi8(hi, lo), b = _mm_unpackhi_epi8(hi, lo);  // high digit first
        a = _mm_add_epi8(_mm_add_epi8(a, zero), _mm_and_si128(_mm_cmpgt_epi8(a, nine), letters));
        b = _mm_add_epi8(_mm_add_epi8(b, zero), _mm_and_si128(_mm_cmpgt_epi8(b, nine), letters));
        _mm_storeu_si128(reinterpret_cast<__m128i*>(d + 2 * i), a);
        _mm_storeu_si128(reinterpret_cast<__m128i*>(d + 2 * i + 16), b);
    }
#endif
    static const auto pairs = [] {
        std::array<char, 512> t{};
        const char* digits = "0123456789ABCDEF";
        for (int b = 0; b < 256; ++b) {
            t[static_cast<std::size_t>(2 * b)] = digits[b >> 4];
            t[static_cast<std::size_t>(2 * b + 1)] = digits[b & 15];
        }
        return t;
    }();
    for (; i < n; ++i) std::memcpy(d + 2 * i, &pairs[2 * static_cast<std::size_t>(p[i])], 2);
}

#ifdef NNEF_MLIR_X86
#if defined(__GNUC__) && !defined(__clang__)
// GCC 12 takes the intrinsics' deliberately undefined pass-through operands for uninitialized reads.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
// encode_hex with AVX-512 (BW): 32 bytes a step, each widened to 16 bits that become its two digits.
__attribute__((target("avx512f,avx512bw"))) void encode_hex_avx512(char* d, const unsigned char* p, std::size_t n) {
    const __m512i low = _mm512_set1_epi16(0x0F), nine = _mm512_set1_epi8(9), zero = _mm512_set1_epi8('0'),
                  letters = _mm512_set1_epi8('A' - '0' - 10);
    std::size_t i = 0;
    for (; i + 32 <= n; i += 32) {
        const __m512i w = _mm512_cvtepu8_epi16(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + i)));
        // Each 16-bit lane: the high digit's value in its first byte, the low digit's in its second.
        const __m512i x = _mm512_or_si512(_mm512_srli_epi16(w, 4), _mm512_slli_epi16(_mm512_and_si512(w, low), 8));
        const __m512i c = _mm512_mask_add_epi8(x, _mm512_cmpgt_epi8_mask(x, nine), x, letters);
        _mm512_storeu_si512(d + 2 * i, _mm512_add_epi8(c, zero));
    }
    encode_hex(d + 2 * i, p + i, n - i);
}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

bool has_avx512bw() {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw");
}
#endif

// encode_hex, with the widest vectors the processor has.
void encode_hex_fast(char* d, const unsigned char* p, std::size_t n) {
#ifdef NNEF_MLIR_X86
    static const bool wide = has_avx512bw();
    if (wide) return encode_hex_avx512(d, p, n);
#endif
    encode_hex(d, p, n);
}

// Whether the hexadecimal form of c's items, `bytes` each, is that of its bytes as stored.
bool hex_of_storage(const ConstData& c, std::size_t bytes) {
    return bytes == storage_bytes(c.type.dtype) && little_endian_host();
}

// Appends the hexadecimal form of n items of c from item 0, each as `bytes` little-endian bytes.
void append_hex_items(std::string& out, const ConstData& c, std::size_t n, std::size_t bytes) {
    if (hex_of_storage(c, bytes)) {
        const std::size_t count = n * bytes, at = out.size();
        out.resize(at + 2 * count);
        encode_hex_fast(&out[at], static_cast<const unsigned char*>(c.data), count);
        return;
    }
    out.reserve(out.size() + 2 * n * bytes);
    for (std::size_t i = 0; i < n; ++i) append_hex_item(out, item_bits(c, i), bytes);
}

bool all_items_equal(const ConstData& c) {
    const std::size_t n = static_cast<std::size_t>(c.type.volume());
    const std::size_t w = storage_bytes(c.type.dtype);
    const auto* p = static_cast<const unsigned char*>(c.data);
    for (std::size_t i = 1; i < n; ++i)
        if (std::memcmp(p, p + i * w, w) != 0) return false;
    return true;
}

// Nested literal list of a bool constant: [[true, false], [false, true]].
void append_bool_list(std::string& out, const ConstData& c, std::size_t dim, std::size_t& index) {
    if (dim == c.type.shape.size()) {
        out += c.items<std::uint8_t>()[index++] ? "true" : "false";
        return;
    }
    out += '[';
    for (std::int64_t k = 0; k < c.type.shape[dim]; ++k) {
        if (k) out += ", ";
        append_bool_list(out, c, dim + 1, index);
    }
    out += ']';
}

}  // namespace tosa_mlir_cpp
}  // namespace nnef::tosa
