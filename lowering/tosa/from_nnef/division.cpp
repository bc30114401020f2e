// PRO-INT: the division of one quantized activation by another (the layer norms of ConvNeXt, ViT and
// Swin: (x - mean) / sqrt(var + eps)). docs/tosa-lowering.md ("Division of two activations") gives the
// argument for its exactness against nnef-run.
//
// With n = (code_x - zp_x - frac_x) * m_x and d = (code_y - zp_y - frac_y) * m_y (m = 1, or 64 on a
// grid whose zero point falls between codes), the result's real is n / d * K with
// K = (scale_x / m_x) / (scale_y / m_y). In i32: q = INTDIV(n * 2^k, d), k as large as keeps
// |n| * 2^k within 2^30; one RESCALE by K * 2^-k / scale_z (round half up, NNEF's round) to the
// result's codes. q is within one unit (2^-k of n / d) of the exact quotient, so the code is the
// exact real's but where that lies within K * 2^-k steps of the result's grid of a tie.
// d = 0 (the divisor's real is 0): nnef-run's x / 0 is +-inf, saturated to the highest or lowest
// code, and 0 / 0 is NaN, whose code is the lowest: SELECTs on d == 0 and n > 0 give those codes
// (INTDIV reads 1 there, as dividing by 0 is outside its domain).
#include <cmath>
#include <cstdlib>

#include "lowering/tosa/from_nnef/integer.hpp"

namespace nnef::tosa::from_nnef::integer {

namespace tosa_from_nnef_division_cpp {

// (code - zp - frac) * m in i32, m = 1 on a grid with an integer zero point, else 64 (the fraction
// rounded to 1/64).
ValueId centred(Lowering& q, const Act& a, double& m) {
    m = a.grid.frac == 0.0 ? 1.0 : 64.0;
    ValueId w = q.rescale(a.v, a.grid.zp, m, 0, DType::i32);
    if (a.grid.frac != 0.0) w = q.c.binary(OpKind::ADD, w, q.c.scalar(DType::i32, storage::round_half_up(-a.grid.frac * m), q.c.rank(w)));
    return w;
}

}  // namespace tosa_from_nnef_division_cpp

bool divide_activations(Lowering& q, const Act& x, const Act& y, const Tensor& out) {
    using namespace tosa_from_nnef_division_cpp;
    if (x.grid.dtype != DType::i8 || y.grid.dtype != DType::i8) return q.fail("the division of activations is lowered for i8 operands only");
    const auto og = q.result_grid(out.name);
    if (!og) return false;
    double mx = 1.0, my = 1.0;
    const ValueId n = centred(q, x, mx);
    const ValueId d = centred(q, y, my);
    const double n_max = (double(std::max(std::abs(x.grid.hi - x.grid.zp), std::abs(x.grid.lo - x.grid.zp))) + 1.0) * mx;
    int k = int(std::floor(std::log2(std::ldexp(1.0, 30) / n_max)));
    const double ratio = (x.grid.scale / mx) / (y.grid.scale / my);  // the real of n / d = 1
    // RESCALE by unit / scale_z: below 2^-30 its multiplier would lose bits (a coarser quotient
    // then, where the result's grid is far coarser than the operands' ratio); below 1 its shift
    // is at least 31, so every |quotient| < 2^30 is in apply_scale_32's domain
    while (k > 8 && std::ldexp(ratio, -k) / og->scale < std::ldexp(1.0, -30)) --k;
    const double step = std::ldexp(ratio, -k) / og->scale;
    if (!(step >= std::ldexp(1.0, -31) && step < 1.0))
        return q.fail("the ratio of its operands' scales (" + format_scalar(ratio) + ") and its result's scale (" +
                      format_scalar(og->scale) + ") leave no RESCALE from an i32 quotient 2^8 times finer than that ratio");
    const double unit = std::ldexp(ratio, -k);  // the real of one unit of the quotient
    const std::size_t rank = out.shape->size();
    const ValueId zero = q.c.compare(OpKind::EQUAL, d, q.c.scalar(DType::i32, 0.0, q.c.rank(d)));
    const ValueId safe = q.c.select(zero, q.c.scalar(DType::i32, 1.0, q.c.rank(d)), d);
    const ValueId wide = q.c.mul(n, q.c.scalar(DType::i32, std::ldexp(1.0, k), q.c.rank(n)));
    ValueId quotient = q.c.reshape(q.c.binary(OpKind::INTDIV, wide, safe), *out.shape);
    const double offset = storage::round_half_up(og->frac * og->scale / unit);
    if (std::fabs(offset) > std::ldexp(1.0, 30)) return q.fail("its result's zero point fraction does not fit the i32 quotient's grid");
    if (offset != 0.0) quotient = q.c.binary(OpKind::ADD, quotient, q.c.scalar(DType::i32, offset, rank));
    const ValueId codes = q.clamp_to(q.rescale(quotient, 0, unit / og->scale, og->zp, og->dtype), *og);
    // d == 0: n > 0 gives +inf (the highest code), n < 0 -inf and n == 0 NaN (the lowest)
    const ValueId positive = q.c.compare(OpKind::GREATER, n, q.c.scalar(DType::i32, 0.0, q.c.rank(n)));
    const ValueId infinite = q.c.select(positive, q.c.scalar(og->dtype, double(og->hi), q.c.rank(n)),
                                        q.c.scalar(og->dtype, double(og->lo), q.c.rank(n)));
    return q.set(out.name, Act{q.c.reshape(q.c.select(zero, infinite, codes), *out.shape), *og});
}

}  // namespace nnef::tosa::from_nnef::integer
