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
    const Act* x = q.act(q.arg_id("input"));
    if (!x) return q.fail("its input is not an integer activation");
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
    r.push_back({"softmax", "reduce", softmax, {}});
}

}  // namespace nnef::tosa::from_nnef
