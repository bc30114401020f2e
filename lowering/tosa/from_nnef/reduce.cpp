// Reductions (NNEF spec 4.4 and the later any/all), moments and softmax. TOSA reduces one axis per
// operator and keeps it (extent 1), as NNEF does; `normalize` (and mean_reduce) multiplies by the
// reciprocal of the reduction volume. The arg- reductions give the row-major position within the
// reduced axes: those axes are moved last, merged and reduced by ARGMAX (argmin as the ARGMAX of
// the negation; both take the first extreme item).
#include <cmath>
#include <algorithm>

#include "lowering/tosa/from_nnef/context.hpp"
#include "lowering/tosa/from_nnef/integer.hpp"

namespace nnef::tosa::from_nnef {

namespace tosa_from_nnef_reduce_cpp {

Ints sorted_axes(Context& c) {
    Ints axes = c.ints_attr("axes");
    std::sort(axes.begin(), axes.end());
    axes.erase(std::unique(axes.begin(), axes.end()), axes.end());
    return axes;
}

std::int64_t volume_of(Context& c, ValueId x, const Ints& axes) {
    std::int64_t n = 1;
    for (std::int64_t a : axes) n *= c.shape(x)[std::size_t(a)];
    return n;
}

ValueId mean(Context& c, ValueId x, const Ints& axes) {
    const ValueId s = c.reduce(OpKind::REDUCE_SUM, x, axes);
    const std::int64_t n = volume_of(c, x, axes);
    if (n == 1) return s;
    return c.mul(s, c.scalar(DType::fp32, 1.0 / double(n), c.rank(s)));
}

std::function<bool(Context&)> reduce(OpKind kind, bool normalized) {
    return [kind, normalized](Context& c) {
        const ValueId x = c.input("input");
        const Ints axes = sorted_axes(c);
        const bool normalize = normalized || c.logical_attr("normalize");
        const ValueId y = normalize ? mean(c, x, axes) : c.reduce(kind, x, axes);
        return c.bind("output", c.reshape(y, c.result_type("output").shape));
    };
}

std::function<bool(Context&)> arg_reduce(bool max) {
    return [max](Context& c) {
        ValueId x = c.input("input");
        const Ints axes = sorted_axes(c);
        const TensorType out = c.result_type("output");
        if (!max) x = c.negate(x);
        const Shape xs = c.shape(x);
        Ints perms;
        Shape kept;
        for (std::size_t i = 0; i < xs.size(); ++i)
            if (!std::binary_search(axes.begin(), axes.end(), std::int64_t(i))) {
                perms.push_back(std::int64_t(i));
                kept.push_back(xs[i]);
            }
        for (std::int64_t a : axes) perms.push_back(a);
        Shape merged = kept;
        merged.push_back(volume_of(c, x, axes));
        const ValueId m = c.reshape(c.transpose(x, perms), merged);
        const ValueId y = c.add(OpKind::ARGMAX, {m}, TensorType{DType::i32, kept},
                                {{AttrName::axis, std::int64_t(kept.size())}, {AttrName::nan_mode, NanMode::PROPAGATE}});
        return c.bind("output", c.reshape(y, out.shape));
    };
}

bool moments(Context& c) {
    const ValueId x = c.input("input");
    const Ints axes = sorted_axes(c);
    const ValueId m = mean(c, x, axes);
    const ValueId d = c.binary(OpKind::SUB, x, m);
    const ValueId v = mean(c, c.mul(d, d), axes);
    c.bind("mean", c.reshape(m, c.result_type("mean").shape));
    return c.bind("variance", c.reshape(v, c.result_type("variance").shape));
}

bool softmax(Context& c) {
    // e = exp(x - max_reduce(x)), y = e / sum_reduce(e)
    const ValueId x = c.input("x");
    const Ints axes = sorted_axes(c);
    const ValueId m = c.reduce(OpKind::REDUCE_MAX, x, axes);
    const ValueId e = c.unary(OpKind::EXP, c.binary(OpKind::SUB, x, m));
    const ValueId s = c.reduce(OpKind::REDUCE_SUM, e, axes);
    return c.bind("y", c.mul(e, c.unary(OpKind::RECIPROCAL, s)));
}

using integer::Act;
using integer::Grid;

// mean_reduce / sum_reduce: the codes minus the zero point summed in i32, one RESCALE to the
// result's grid (a single rounding, as the simulation's).
bool mean_reduce_integer(integer::Lowering& q, bool mean) {
    const Act* x = q.input_act("input");
    if (!x) return false;
    const Tensor& out = q.c.result("output");
    Ints axes = q.c.ints_attr("axes");
    const Shape& is = q.c.shape(x->v);
    std::int64_t count = 1;
    for (std::int64_t& a : axes) {
        if (a < 0) a += std::int64_t(is.size());
        count *= is[std::size_t(a)];
    }
    if (count >= (std::int64_t(1) << 23)) return q.fail("it reduces too many items for an i32 sum");
    bool bad = false;
    const auto og = q.entry_grid(out.name, bad);
    if (bad) return false;
    const Grid g = og ? *og : x->grid;
    if (!og && mean && count > 1) return q.fail("its result '" + out.name + "' has no graph.quant entry");
    if (x->grid.dtype != DType::i8) return q.fail("reductions of i16 inputs are not lowered here");
    // code = round(m * (sum - frac_in * count) + frac_out) + zp = round(m * (sum + shift)) + zp, with the
    // sum at k times the resolution when there is a fraction to add
    const double scale = x->grid.scale / g.scale / (mean ? double(count) : 1.0);
    const double shift = -x->grid.frac * double(count) + g.frac / scale;
    const double k = shift == 0.0 ? 1.0 : std::ldexp(1.0, std::min(16, int(std::floor(std::log2(std::ldexp(1.0, 29) / (double(count) * 256.0 + std::fabs(shift)))))));
    if (k < 1.0) return q.fail("it reduces too many items for an i32 sum");
    const ValueId wide = q.rescale(x->v, x->grid.zp, k, 0, DType::i32);
    ValueId sum = q.c.reduce(OpKind::REDUCE_SUM, wide, axes);
    if (shift != 0.0) sum = q.c.binary(OpKind::ADD, sum, q.c.scalar(DType::i32, storage::round_half_up(shift * k), q.c.rank(sum)));
    Act y;
    y.grid = g;
    y.v = q.clamp_to(q.rescale(q.c.reshape(sum, *out.shape), 0, scale / k, g.zp, g.dtype), g);
    return q.set(out.name, y);
}

// softmax at PRO-INT (PRO-INT has no i16 TABLE: EXT-INT16's): d = code - max(code) in [-255, 0]
// (i32; the zero point cancels) as the i8 index d + 127 of two i8 TABLEs holding the high and the
// low byte of e = round(2^15 * exp(d * scale)) (so e is exact to half a unit of 2^-15, the largest
// 2^15); e = 256 * (hi + 128) + (lo + 128) in i32, s = its sum over the axes; p = e / s by long
// division, q1 = INTDIV(e * 2^15, s) and q2 = INTDIV(r * 2^b, s) on the remainder r, b as large as
// keeps r * 2^b in i32; p * 2^(15 + b) = q1 * 2^b + q2 (truncated), one RESCALE to the result's
// grid. docs/tosa-lowering.md gives the error: below 0.01 of a step of the result's grid.
bool softmax_integer(integer::Lowering& q) {
    const Act* x = q.input_act("x");
    if (!x) return false;
    if (x->grid.dtype != DType::i8) return q.fail("softmax of i16 inputs is not lowered here (i8 only)");
    const Tensor& out = q.c.result("y");
    const auto og = q.result_grid(out.name);
    if (!og) return false;
    Ints axes = sorted_axes(q.c);
    const Shape& is = q.c.shape(x->v);
    std::int64_t count = 1;
    for (std::int64_t& a : axes) {
        if (a < 0) a += std::int64_t(is.size());
        count *= is[std::size_t(a)];
    }
    const double s_max = std::ldexp(double(count), 15);  // the largest sum
    const int b = int(std::floor(std::log2(std::ldexp(1.0, 31) / s_max))) - 1;
    if (b < 4) return q.fail("it normalizes " + std::to_string(count) + " items, too many for its i32 long division");
    const double unit = std::ldexp(1.0, -(15 + b));  // of p
    const double step = unit / og->scale;
    if (!(step < 1.0 && step >= std::ldexp(1.0, -31)))
        return q.fail("its result's scale " + format_scalar(og->scale) + " is finer than its integer quotient's " + format_scalar(unit));
    Context& c = q.c;
    const ValueId codes = q.rescale(x->v, 0, 1.0, 0, DType::i32);
    const ValueId d = c.binary(OpKind::SUB, codes, c.reduce(OpKind::REDUCE_MAX, codes, axes));
    const ValueId index = q.rescale(d, 0, 1.0, 127, DType::i8);  // d + 127, d in [-255, 0]
    auto high = ConstData::allocate(TensorType{DType::i8, {256}});
    auto low = ConstData::allocate(TensorType{DType::i8, {256}});
    for (std::int64_t i = 0; i < 256; ++i) {  // entry i: index i - 128, d = i - 255
        const auto e = std::int64_t(storage::round_half_up(std::ldexp(std::exp(double(i - 255) * x->grid.scale), 15)));
        high->mutable_items<std::int8_t>()[i] = static_cast<std::int8_t>((e >> 8) - 128);
        low->mutable_items<std::int8_t>()[i] = static_cast<std::int8_t>((e & 255) - 128);
    }
    const TensorType it = c.type(index);
    const ValueId hi = c.add(OpKind::TABLE, {index, c.constant(std::move(high))}, it);
    const ValueId lo = c.add(OpKind::TABLE, {index, c.constant(std::move(low))}, it);
    const ValueId e = c.binary(OpKind::ADD, q.rescale(hi, -128, 256.0, 0, DType::i32), q.rescale(lo, -128, 1.0, 0, DType::i32));
    const ValueId sum = c.reduce(OpKind::REDUCE_SUM, e, axes);
    const ValueId wide = c.mul(e, c.scalar(DType::i32, 32768.0, c.rank(e)));
    const ValueId q1 = c.binary(OpKind::INTDIV, wide, sum);
    const ValueId r = c.binary(OpKind::SUB, wide, c.mul(q1, sum));
    const ValueId q2 = c.binary(OpKind::INTDIV, c.mul(r, c.scalar(DType::i32, std::ldexp(1.0, b), c.rank(r))), sum);
    ValueId p = c.binary(OpKind::ADD, c.mul(q1, c.scalar(DType::i32, std::ldexp(1.0, b), c.rank(q1))), q2);
    const double offset = storage::round_half_up(og->frac / step);
    if (offset != 0.0) p = c.binary(OpKind::ADD, p, c.scalar(DType::i32, offset, c.rank(p)));
    return q.set(out.name, Act{q.clamp_to(q.rescale(c.reshape(p, *out.shape), 0, step, og->zp, og->dtype), *og), *og});
}

}  // namespace tosa_from_nnef_reduce_cpp

void add_reduce(Registry& r) {
    using namespace tosa_from_nnef_reduce_cpp;
    r.push_back({"sum_reduce", "reduce", reduce(OpKind::REDUCE_SUM, false), {},
                 [](integer::Lowering& q) { return mean_reduce_integer(q, false); }});
    r.push_back({"mean_reduce", "reduce", reduce(OpKind::REDUCE_SUM, true), {},
                 [](integer::Lowering& q) { return mean_reduce_integer(q, true); }});
    r.push_back({"max_reduce", "reduce", reduce(OpKind::REDUCE_MAX, false), {}});
    r.push_back({"min_reduce", "reduce", reduce(OpKind::REDUCE_MIN, false), {}});
    r.push_back({"any_reduce", "reduce", reduce(OpKind::REDUCE_ANY, false), {}});
    r.push_back({"all_reduce", "reduce", reduce(OpKind::REDUCE_ALL, false), {}});
    r.push_back({"argmax_reduce", "reduce", arg_reduce(true), {}});
    r.push_back({"argmin_reduce", "reduce", arg_reduce(false), {}});
    r.push_back({"moments", "reduce", moments, {}});
    r.push_back({"softmax", "reduce", softmax, {}, softmax_integer});
}

}  // namespace nnef::tosa::from_nnef
