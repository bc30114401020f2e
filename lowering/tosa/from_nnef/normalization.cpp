// Normalization operations (NNEF spec 4.9.4). batch_normalization with constant statistics becomes
// one multiply-add per channel (a = scale / sqrt(variance + epsilon), b = offset - mean * a, computed
// in double precision); otherwise its formula, operator by operator. At PRO-INT the multiply-add is
// an exact per-channel affine map of the codes (batch_normalization_integer).
#include <cmath>

#include "lowering/tosa/from_nnef/context.hpp"
#include "lowering/tosa/from_nnef/integer.hpp"

namespace nnef::tosa::from_nnef {

namespace tosa_from_nnef_normalization_cpp {

ValueId lit(Context& c, ValueId like, double v) { return c.scalar(c.type(like).dtype, v, c.rank(like)); }

// NNEF broadcasting of a parameter against a tensor of rank r: the parameter's items along its
// leading dimensions (so [1, C] means per channel of NCHW).
bool batch_normalization(Context& c) {
    const TensorType out = c.result_type("output");
    const std::size_t r = out.rank();
    const ValueId x = c.input("input", r);
    const ValueId mean = c.input("mean", r), variance = c.input("variance", r);
    const ValueId offset = c.input("offset", r), scale = c.input("scale", r);
    const double epsilon = c.scalar_attr("epsilon");
    const ConstPtr m = c.constant_of(mean), v = c.constant_of(variance), o = c.constant_of(offset), s = c.constant_of(scale);
    if (m && v && o && s && m->type.dtype == DType::fp32 && v->type.dtype == DType::fp32 &&
        o->type.dtype == DType::fp32 && s->type.dtype == DType::fp32) {
        // every parameter broadcast to their common shape
        Shape shape = Context::broadcast_shape(Context::broadcast_shape(m->type.shape, v->type.shape),
                                               Context::broadcast_shape(o->type.shape, s->type.shape));
        const std::int64_t n = TensorType{DType::fp32, shape}.volume();
        auto item = [&](const ConstData& d, std::int64_t i) {
            // the index of item i of `shape` in d (extent 1 dimensions broadcast)
            std::int64_t idx = 0, rest = i, stride_out = n;
            const Shape& ds = d.type.shape;
            for (std::size_t k = 0; k < shape.size(); ++k) {
                stride_out /= shape[k];
                const std::int64_t coord = rest / stride_out;
                rest %= stride_out;
                const std::int64_t e = k < ds.size() ? ds[k] : 1;
                idx = idx * e + (e == 1 ? 0 : coord);
            }
            return double(d.items<float>()[idx]);
        };
        std::vector<float> a(static_cast<std::size_t>(n)), b(static_cast<std::size_t>(n));
        for (std::int64_t i = 0; i < n; ++i) {
            const double k = item(*s, i) / std::sqrt(item(*v, i) + epsilon);
            a[std::size_t(i)] = static_cast<float>(k);
            b[std::size_t(i)] = static_cast<float>(item(*o, i) - item(*m, i) * k);
        }
        shape.resize(std::max(shape.size(), r), 1);
        const ValueId y = c.binary(OpKind::ADD, c.mul(x, c.f32(shape, a)), c.f32(shape, b));
        return c.bind("output", c.reshape(y, out.shape));
    }
    // offset + scale * (input - mean) / sqrt(variance + epsilon)
    const ValueId d = c.binary(OpKind::SUB, x, mean);
    const ValueId k = c.unary(OpKind::RSQRT, c.binary(OpKind::ADD, variance, lit(c, variance, epsilon)));
    const ValueId y = c.binary(OpKind::ADD, offset, c.mul(c.mul(scale, d), k));
    return c.bind("output", c.reshape(y, out.shape));
}

// PRO-INT (DenseNet's pre-activation blocks): with compile-time statistics, per channel
// real = x * k + b (k = scale / sqrt(variance + epsilon), b = offset - mean * k, in double) is an exact
// affine map of the input's codes onto the result's grid (integer::Lowering::affine).
bool batch_normalization_integer(integer::Lowering& q) {
    const integer::Act* x = q.input_act("input");
    if (!x) return false;
    if (x->grid.dtype != DType::i8) return q.fail("its input is not an i8 activation");
    const Tensor& out = q.c.result("output");
    const auto og = q.result_grid(out.name);
    if (!og) return false;
    const Shape xs = q.c.shape(x->v);
    const std::int64_t C = xs.size() > 1 ? xs[1] : 1;
    // a parameter's items per channel: a literal, or a compile-time tensor of 1 or C items
    auto items = [&](const char* name, std::vector<double>& v) {
        const nnef::Value& a = q.c.argument(name);
        if (a.is_scalar() || a.is_integer()) {
            v = {a.is_scalar() ? a.as_scalar() : double(a.as_integer())};
            return true;
        }
        const integer::Real* r = a.is_identifier() ? q.real(a.as_identifier()) : nullptr;
        if (!r || (r->items.size() != 1 && std::int64_t(r->items.size()) != C)) return false;
        v = r->items;
        return true;
    };
    std::vector<double> mean, variance, offset, scale;
    if (!items("mean", mean) || !items("variance", variance) || !items("offset", offset) || !items("scale", scale))
        return q.fail("its mean, variance, offset and scale must be known at compile time, one item or one per channel");
    const double epsilon = q.c.scalar_attr("epsilon");
    auto at = [](const std::vector<double>& v, std::int64_t c) { return v.size() == 1 ? v[0] : v[std::size_t(c)]; };
    // real = (code - zp - frac) * s * k + b = (code - zp) * (s * k) + (b - frac * s * k)
    const std::size_t channels = static_cast<std::size_t>(C);
    std::vector<double> factor(channels), shift(channels);
    for (std::int64_t c = 0; c < C; ++c) {
        const double k = at(scale, c) / std::sqrt(at(variance, c) + epsilon);
        const double b = at(offset, c) - at(mean, c) * k;
        factor[std::size_t(c)] = x->grid.scale * k;
        shift[std::size_t(c)] = b - x->grid.frac * x->grid.scale * k;
    }
    const bool nchw = xs.size() > 2;
    const ValueId last = nchw ? q.c.to_channels_last(x->v) : x->v;
    const double span = double(std::max(x->grid.hi - x->grid.zp, x->grid.zp - x->grid.lo));
    std::string why;
    ValueId y = q.affine(last, x->grid.zp, span, factor, shift, *og, why);
    if (y == no_value) return q.fail(why);
    if (nchw) y = q.c.to_channels_first(y);
    return q.set(out.name, integer::Act{y, *og});
}

// l1 / l2: input / max(sigma + bias, epsilon) with sigma the sum of |x| or sqrt of the sum of x^2
std::function<bool(Context&)> axes_normalization(bool l2) {
    return [l2](Context& c) {
        const ValueId x = c.input("input");
        const Ints axes = c.ints_attr("axes");
        ValueId sigma = c.reduce(OpKind::REDUCE_SUM, l2 ? c.mul(x, x) : c.unary(OpKind::ABS, x), axes);
        if (l2) sigma = c.binary(OpKind::POW, sigma, lit(c, sigma, 0.5));
        const ValueId biased = c.binary(OpKind::ADD, sigma, lit(c, sigma, c.scalar_attr("bias")));
        const ValueId den = c.maximum(biased, lit(c, sigma, c.scalar_attr("epsilon")));
        return c.bind("output", c.div(x, den));
    };
}

}  // namespace tosa_from_nnef_normalization_cpp

void add_normalization(Registry& r) {
    using namespace tosa_from_nnef_normalization_cpp;
    r.push_back({"batch_normalization", "normalization", batch_normalization, {}, batch_normalization_integer});
    r.push_back({"l1_normalization", "normalization", axes_normalization(false), {}});
    r.push_back({"l2_normalization", "normalization", axes_normalization(true), {}});
}

}  // namespace nnef::tosa::from_nnef
