// The integer arithmetic of the NNAPI 1.0 CPU reference for TENSOR_QUANT8_ASYMM (internal to
// lowering/nnapi): a real multiplier becomes a 32-bit fixed-point multiplier (Q0.31) and a power-of-
// two shift; a product is taken with a rounding doubling high multiply and a rounding right shift
// (round half away from zero); results saturate to [0, 255] within the fused activation's range.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

namespace nnef::nnapi::detail {

struct QuantizedMultiplier {
    std::int32_t value = 0;  // Q0.31, in [2^30, 2^31) unless the real multiplier is 0
    int shift = 0;           // > 0: shift left first; < 0: shift right after
};

// m >= 0. For m < 1 this is the 1.0 reference's QuantizeMultiplierSmallerThanOne (shift <= 0);
// larger m (which the 1.0 reference refuses) get a left shift.
inline QuantizedMultiplier quantize_multiplier(double m) {
    QuantizedMultiplier q;
    if (!(m > 0)) return q;
    int exponent = 0;
    double fraction = std::frexp(m, &exponent);  // m = fraction * 2^exponent, fraction in [0.5, 1)
    auto fixed = static_cast<std::int64_t>(std::round(fraction * double(std::int64_t{1} << 31)));
    if (fixed == (std::int64_t{1} << 31)) {
        fixed /= 2;
        ++exponent;
    }
    q.value = static_cast<std::int32_t>(fixed);
    q.shift = exponent;
    return q;
}

// gemmlowp's SaturatingRoundingDoublingHighMul: (a * b * 2) / 2^32 rounded to nearest.
inline std::int32_t saturating_rounding_doubling_high_mul(std::int32_t a, std::int32_t b) {
    if (a == b && a == std::numeric_limits<std::int32_t>::min()) return std::numeric_limits<std::int32_t>::max();
    std::int64_t ab = std::int64_t{a} * std::int64_t{b};
    std::int64_t nudge = ab >= 0 ? (std::int64_t{1} << 30) : (1 - (std::int64_t{1} << 30));
    return static_cast<std::int32_t>((ab + nudge) / (std::int64_t{1} << 31));
}

// gemmlowp's RoundingDivideByPOT: x / 2^exponent, rounding half away from zero.
inline std::int32_t rounding_divide_by_pot(std::int32_t x, int exponent) {
    if (exponent <= 0) return x;
    if (exponent > 31) return 0;  // |x| / 2^32 is at most one half
    std::int32_t mask = static_cast<std::int32_t>((std::int64_t{1} << exponent) - 1);
    std::int32_t remainder = x & mask;
    std::int32_t threshold = (mask >> 1) + (x < 0 ? 1 : 0);
    return (x >> exponent) + (remainder > threshold ? 1 : 0);
}

// An int64 accumulator (sum of products plus bias) as the reference's int32 one, saturated.
inline std::int32_t saturate_int32(std::int64_t x) {
    return static_cast<std::int32_t>(
        std::clamp<std::int64_t>(x, std::numeric_limits<std::int32_t>::min(), std::numeric_limits<std::int32_t>::max()));
}

inline std::int32_t multiply_by_quantized_multiplier(std::int32_t x, QuantizedMultiplier q) {
    int left = std::min(std::max(q.shift, 0), 32);  // beyond 2^32 every nonzero x saturates anyway
    int right = std::max(-q.shift, 0);
    std::int64_t shifted = std::int64_t{x} * (std::int64_t{1} << left);
    shifted = std::clamp<std::int64_t>(shifted, std::numeric_limits<std::int32_t>::min(), std::numeric_limits<std::int32_t>::max());
    return rounding_divide_by_pot(saturating_rounding_doubling_high_mul(static_cast<std::int32_t>(shifted), q.value), right);
}

// The 1.0 reference's CalculateActivationRangeUint8: the codes a fused activation keeps.
struct CodeRange {
    std::int32_t min = 0, max = 255;
};
inline CodeRange activation_range_uint8(std::int32_t activation, float scale, std::int32_t zeroPoint) {
    // In double and clamped, so that a tiny scale cannot overflow the conversion.
    auto quantize = [&](float f) {
        double code = double(zeroPoint) + std::round(double(f) / double(scale));
        return static_cast<std::int32_t>(std::clamp(code, -1e9, 1e9));
    };
    CodeRange r;
    switch (activation) {
        case 1: r.min = std::max(0, quantize(0.0f)); break;
        case 2:
            r.min = std::max(0, quantize(-1.0f));
            r.max = std::min(255, quantize(1.0f));
            break;
        case 3:
            r.min = std::max(0, quantize(0.0f));
            r.max = std::min(255, quantize(6.0f));
            break;
        default: break;
    }
    return r;
}

inline float apply_activation(float x, std::int32_t activation) {
    switch (activation) {
        case 1: return std::max(0.0f, x);
        case 2: return std::min(1.0f, std::max(-1.0f, x));
        case 3: return std::min(6.0f, std::max(0.0f, x));
        default: return x;
    }
}

}  // namespace nnef::nnapi::detail
