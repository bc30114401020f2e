// The TOSA 1.0.1 scaling helpers (specs/tosa-1.0.1.md 4.5.5: apply_scale_32, apply_scale_16,
// reciprocal_scale, apply_lookup_s): the one source of this arithmetic for the interpreter, the
// lowering and the VPU compiler and simulator. Header-only, std-only.
//
// The checked forms return nullopt where a REQUIRE of the spec fails; apply_scale_32_unchecked is
// the arithmetic alone, for callers whose operands are known to satisfy them (or that model
// hardware that does not check).
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <utility>

namespace nnef::tosa {

// (value * multiplier + round) >> shift, with the double rounding of shift > 31 when asked.
inline std::int64_t apply_scale_32_unchecked(std::int64_t value, std::int64_t multiplier, std::int64_t shift,
                                             bool double_round = false) {
    std::int64_t round = std::int64_t{1} << (shift - 1);
    if (double_round && shift > 31) round += value >= 0 ? (std::int64_t{1} << 30) : -(std::int64_t{1} << 30);
    return (value * multiplier + round) >> shift;  // arithmetic shift
}

// apply_scale_32(value, multiplier, shift, double_round); nullopt when a REQUIRE fails
// (multiplier < 0, shift outside [2, 62], value outside [-(1 << (shift - 1)), 1 << (shift - 1))).
inline std::optional<std::int32_t> apply_scale_32(std::int64_t value, std::int32_t multiplier, std::int32_t shift,
                                                  bool double_round = false) {
    if (multiplier < 0 || shift < 2 || shift > 62) return std::nullopt;
    const std::int64_t half = std::int64_t{1} << (shift - 1);
    if (value < -half || value >= half) return std::nullopt;
    if (value < std::numeric_limits<std::int32_t>::min() || value > std::numeric_limits<std::int32_t>::max())
        return std::nullopt;  // the argument is an int32_t
    return static_cast<std::int32_t>(apply_scale_32_unchecked(value, multiplier, shift, double_round));
}

// apply_scale_16(value, multiplier, shift) for 48-bit values; nullopt when a REQUIRE fails.
inline std::optional<std::int32_t> apply_scale_16(std::int64_t value, std::int32_t multiplier, std::int32_t shift) {
    if (multiplier < 0 || multiplier > std::numeric_limits<std::int16_t>::max() || shift < 2 || shift > 62)
        return std::nullopt;
    const std::int64_t round = std::int64_t{1} << (shift - 1);
    std::int64_t result = value * multiplier + round;
    result >>= shift;
    if (result < std::numeric_limits<std::int32_t>::min() || result > std::numeric_limits<std::int32_t>::max())
        return std::nullopt;
    return static_cast<std::int32_t>(result);
}

// reciprocal_scale(value): {multiplier, shift} with multiplier * 2^-shift ~ 1 / value (value > 0).
inline std::pair<std::int32_t, std::int32_t> reciprocal_scale(std::uint32_t value) {
    // k = 32 - count_leading_zeros(value - 1): (1 << k) / 2 < value <= (1 << k)
    std::int32_t k = 0;
    while (k < 32 && (std::uint64_t{1} << k) < value) ++k;
    const std::int64_t numerator = ((std::int64_t{1} << 30) + 1) << k;
    return {static_cast<std::int32_t>(numerator / value), 30 + k};
}

// apply_lookup_s(table, value): the 16-bit TABLE interpolation (513 entries); nullopt when the
// slope between two entries does not fit 16 bits.
inline std::optional<std::int32_t> apply_lookup_s(const std::int16_t* table, std::int32_t value) {
    const std::int32_t clipped = std::min(32767, std::max(-32768, value));
    const std::int32_t index = (clipped + 32768) >> 7;
    const std::int32_t fraction = clipped & 0x7f;
    const std::int32_t base = table[index];
    const std::int32_t next = table[index + 1];
    const std::int32_t slope = next - base;
    if (slope < -32768 || slope > 32767) return std::nullopt;
    return base * 128 + slope * fraction;  // (base << 7) + slope * fraction
}

// RESCALE's scale32 form (multiplier, shift) of a positive real factor: scale = m * 2^e with
// 0.5 <= m < 1 gives multiplier round(m * 2^31) and shift 31 - e (a multiplier rounded up to 2^31 is
// halved; a shift above 62 shrinks the multiplier instead). Nothing when the factor is outside
// RESCALE's range (shift < 2, or a multiplier of 0).
inline std::optional<std::pair<std::int32_t, std::int32_t>> scale32_multiplier(double scale) {
    int exp = 0;
    const double m = std::frexp(scale, &exp);
    std::int64_t multiplier = std::llround(std::ldexp(m, 31));
    std::int64_t shift = 31 - exp;
    if (multiplier == (std::int64_t(1) << 31)) {
        multiplier >>= 1;
        --shift;
    }
    while (shift > 62) {
        multiplier = (multiplier + 1) >> 1;
        --shift;
    }
    if (shift < 2 || multiplier == 0) return std::nullopt;
    return std::make_pair(static_cast<std::int32_t>(multiplier), static_cast<std::int32_t>(shift));
}

}  // namespace nnef::tosa
