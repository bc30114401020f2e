// The quantization fragments (NNEF spec 4.9.5 and the later min_max / zero_point forms) at PRO-FP:
// each computes its fragment's formula in fp32 (quantize, then dequantize), as nnef-run does. (The
// integer form of quantized graphs, PRO-INT, is a separate lowering.)
#include <cmath>

#include "lowering/tosa/from_nnef/context.hpp"
#include "lowering/tosa/from_nnef/integer.hpp"

namespace nnef::tosa::from_nnef {

namespace tosa_from_nnef_quantization_cpp {

ValueId lit(Context& c, ValueId like, double v) { return one_like(c, like, v); }

// round((clamp(x, min, max) - min) / (max - min) * r) / r * (max - min) + min
ValueId min_max(Context& c, ValueId x, ValueId lo, ValueId hi, double r) {
    const ValueId z = c.nnef_max(c.nnef_min(x, hi), lo);
    const ValueId range = c.binary(OpKind::SUB, hi, lo);
    const ValueId t = c.mul(c.div(c.binary(OpKind::SUB, z, lo), range), lit(c, z, r));
    const ValueId q = round_half_up(c, t);
    return c.binary(OpKind::ADD, c.mul(c.div(q, lit(c, q, r)), range), lo);
}

bool linear_quantize(Context& c) {
    const std::size_t rank = c.result_type("y").rank();
    const double r = std::ldexp(1.0, int(c.int_attr("bits"))) - 1.0;
    return c.bind("y", min_max(c, c.input("x", rank), c.input("min", rank), c.input("max", rank), r));
}

bool min_max_linear_quantize(Context& c) {
    // the offset p of the fragment cancels: (q + p) = round(...)
    const std::size_t rank = c.result_type("y").rank();
    const bool is_signed = c.logical_attr("signed"), symmetric = c.logical_attr("symmetric");
    const double r = std::ldexp(1.0, int(c.int_attr("bits"))) - 1.0 - (is_signed && symmetric ? 1.0 : 0.0);
    return c.bind("y", min_max(c, c.input("x", rank), c.input("min", rank), c.input("max", rank), r));
}

bool zero_point_linear_quantize(Context& c) {
    // s = round(x / scale) + zp; q = clamp(s, lower, r); y = (q - zp) * scale
    const std::size_t rank = c.result_type("y").rank();
    const ValueId x = c.input("x", rank), scale = c.input("scale", rank);
    const ValueId zp = c.cast(c.input("zero_point", rank), DType::fp32);
    const int bits = int(c.int_attr("bits"));
    const bool is_signed = c.logical_attr("signed"), symmetric = c.logical_attr("symmetric");
    const double r = is_signed ? std::ldexp(1.0, bits - 1) - 1.0 : std::ldexp(1.0, bits) - 1.0;
    const double lower = !is_signed ? 0.0 : symmetric ? -r : -r - 1.0;
    const ValueId s = c.binary(OpKind::ADD, round_half_up(c, c.div(x, scale)), zp);
    const ValueId q = c.nnef_max(c.nnef_min(s, lit(c, s, r)), lit(c, s, lower));
    return c.bind("y", c.mul(c.binary(OpKind::SUB, q, zp), scale));
}

bool logarithmic_quantize(Context& c) {
    // m = ceil(log2(max)); q = round(clamp(log2(|x|), m - r, m)); y = sign(x) * 2^q
    const std::size_t rank = c.result_type("y").rank();
    const ValueId x = c.input("x", rank), max = c.input("max", rank);
    const double r = std::ldexp(1.0, int(c.int_attr("bits"))) - 1.0;
    const double inv_ln2 = 1.0 / std::log(2.0);
    auto log2 = [&](ValueId v) { return c.mul(c.unary(OpKind::LOG, v), lit(c, v, inv_ln2)); };
    ValueId m;
    if (ConstPtr k = c.constant_of(max); k && k->type.dtype == DType::fp32) {
        // ceil(log(max) / log(2)) in double, as nnef-run: exact powers of two stay exact
        auto items = ConstData::allocate(k->type);
        for (std::int64_t i = 0; i < k->type.volume(); ++i)
            items->mutable_items<float>()[i] =
                static_cast<float>(std::ceil(std::log(double(k->items<float>()[i])) / std::log(2.0)));
        m = c.constant(std::move(items));
    } else {
        m = c.unary(OpKind::CEIL, log2(max));
    }
    const ValueId l = log2(c.unary(OpKind::ABS, x));
    const ValueId q = round_half_up(c, c.nnef_max(c.nnef_min(l, m), c.binary(OpKind::SUB, m, lit(c, m, r))));
    return c.bind("y", c.mul(sign(c, x), c.binary(OpKind::POW, lit(c, q, 2.0), q)));
}

using integer::Act;
using integer::Grid;
using integer::Real;
using integer::fragment_params_of;
using integer::grid_of;

// The quantize fragments on an activation: the linear ones RESCALE to the fragment's grid, the
// logarithmic one is a TABLE from the input's codes to the logarithmic codes (offset by -128; spec
// 5.2: the code holds the magnitude, so the input's reals must not be negative); on a compile-time
// tensor: computed.
bool quantize_integer(integer::Lowering& q) {
    const Operation& op = q.c.op();
    const std::string x = q.arg_id("x");
    const Tensor& out = q.c.result("y");
    const auto p = fragment_params_of(op);
    if (!p) return q.fail("its parameters must be compile-time numbers (" + std::string(op.name) + " of '" + x + "')");
    if (const Real* r = q.real(x)) {
        Real y = *r;
        storage::fake_quantize(*p, y.shape, y.items.data(), y.items.data());
        return q.bind_real(out.name, std::move(y));
    }
    const Act* a = q.act(x);
    if (!a) return q.fail("its input is neither an integer activation nor known at compile time");
    if (p->algorithm == storage::QuantAlgorithm::logarithmic) {
        if (p->channels() != 1 || p->bits > 8 || a->grid.dtype != DType::i8)
            return q.fail("only per-tensor logarithmic codes of at most 8 bits of an i8 input are lowered");
        if (a->grid.real(a->grid.lo) < 0.0)
            return q.fail("logarithmic codes hold magnitudes only (spec 5.2), and the input '" + x + "' has negative values");
        const Act y{q.table(*a, [&](double v) { return double(p->quantize(v) - 128); }), Grid{}};
        q.logarithmic.insert(out.name);
        return q.set(out.name, y);
    }
    std::string why;
    std::int64_t offset = 0;
    const auto g = grid_of(*p, offset, why);
    if (!g) return q.fail(why);
    return q.bind_act(out.name, q.requantize(*a, *g));
}

}  // namespace tosa_from_nnef_quantization_cpp

void add_quantization(Registry& r) {
    using namespace tosa_from_nnef_quantization_cpp;
    r.push_back({"linear_quantize", "quantization", linear_quantize, {}, quantize_integer});
    r.push_back({"min_max_linear_quantize", "quantization", min_max_linear_quantize, {}, quantize_integer});
    r.push_back({"zero_point_linear_quantize", "quantization", zero_point_linear_quantize, {}, quantize_integer});
    r.push_back({"logarithmic_quantize", "quantization", logarithmic_quantize, {}, quantize_integer});
}

}  // namespace nnef::tosa::from_nnef
