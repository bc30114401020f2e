// Reductions (NNEF spec 4.4 and the later any/all), moments and softmax. TOSA reduces one axis per
// operator and keeps it (extent 1), as NNEF does; `normalize` (and mean_reduce) multiplies by the
// reciprocal of the reduction volume. The arg- reductions give the row-major position within the
// reduced axes: those axes are moved last, merged and reduced by ARGMAX (argmin as the ARGMAX of
// the negation; both take the first extreme item).
#include <algorithm>

#include "lowering/tosa/from_nnef/context.hpp"

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

}  // namespace tosa_from_nnef_reduce_cpp

void add_reduce(Registry& r) {
    using namespace tosa_from_nnef_reduce_cpp;
    r.push_back({"sum_reduce", "reduce", reduce(OpKind::REDUCE_SUM, false), {}});
    r.push_back({"mean_reduce", "reduce", reduce(OpKind::REDUCE_SUM, true), {}});
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
