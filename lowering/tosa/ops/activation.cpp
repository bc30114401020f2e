// The activation functions (spec 2.4): CLAMP, ERF, SIGMOID, TANH.
#include "lowering/tosa/ops/check.hpp"
#include "lowering/tosa/ops/kernel.hpp"
#include "lowering/tosa/ops/registry.hpp"

namespace nnef::tosa {

// ---- validation ----------------------------------------------------------------------------

namespace checks {

// The Supported Data Types and Compile Time Constant tables of the family.
void add_activation_tables(Tables& t) {
    t.types.insert(t.types.end(), {
        {OpKind::CLAMP, "in_out_t=input=output",
         {{"PRO-FP", "fp16"}, {"PRO-FP", "fp32"}, {"PRO-INT", "i8"}, {"EXT-BF16", "bf16"}, {"EXT-INT16", "i16"}}},
        {OpKind::ERF, "in_out_t=input=output", fp_rows},
        {OpKind::SIGMOID, "in_out_t=input=output", fp_rows},
        {OpKind::TANH, "in_out_t=input=output", fp_rows},
    });
}

void check_clamp(OpCheck& c) {
    const DType t = c.idt(0);
    const Attr* lo = c.op_.attr(AttrName::min_val);
    const Attr* hi = c.op_.attr(AttrName::max_val);
    if (is_float(t)) {
        if (c.argument(std::holds_alternative<double>(*lo) && std::holds_alternative<double>(*hi),
                       "min_val and max_val are in_out_t (argument table)", "a floating-point CLAMP needs number attributes"))
            return;
        const double a = std::get<double>(*lo), b = std::get<double>(*hi);
        if (c.error_if(b < a, "max_val < min_val", "min_val " + std::to_string(a) + ", max_val " + std::to_string(b)) ||
            c.error_if(std::isnan(a) || std::isnan(b), "isNaN(min_val) || isNaN(max_val)"))
            return;
    } else {
        if (c.argument(std::holds_alternative<I64>(*lo) && std::holds_alternative<I64>(*hi),
                       "min_val and max_val are in_out_t (argument table)", "an integer CLAMP needs integer attributes"))
            return;
        const I64 a = std::get<I64>(*lo), b = std::get<I64>(*hi);
        const int bits = integer_bits(t);
        if (bits > 0 && bits < 64) {
            const I64 mn = -(I64(1) << (bits - 1)), mx = (I64(1) << (bits - 1)) - 1;
            if (c.argument(a >= mn && a <= mx && b >= mn && b <= mx, "min_val and max_val are in_out_t (argument table)",
                           "[" + std::to_string(a) + ", " + std::to_string(b) + "] is outside " + to_string(t)))
                return;
        }
        if (c.error_if(b < a, "max_val < min_val", "min_val " + std::to_string(a) + ", max_val " + std::to_string(b))) return;
    }
    c.expect_shape(0, t, c.ish(0), "shape(output) != shape(input)");
}

}  // namespace checks

// ---- interpreter kernels ---------------------------------------------------------------------

namespace kernels {

template <class T>
T sigmoid_of(T x) { return T(1) / (T(1) + std::exp(-x)); }

// A CLAMP bound: a double for floating-point types, an integer for integer types (either is read).
double num_attr(const Ctx& c, AttrName n) {
    const Attr* a = c.op.attr(n);
    if (a && std::holds_alternative<double>(*a)) return std::get<double>(*a);
    if (a && std::holds_alternative<I64>(*a)) return static_cast<double>(std::get<I64>(*a));
    unsupported(std::string("attribute '") + to_string(n) + "' is missing");
}

// A double bound as T, beyond the range of float as an infinity (not an undefined conversion).
template <class T>
T bound_as(double v) {
    if constexpr (std::is_same_v<T, float>) {
        if (v > std::numeric_limits<float>::max()) return std::numeric_limits<float>::infinity();
        if (v < -std::numeric_limits<float>::max()) return -std::numeric_limits<float>::infinity();
    }
    return static_cast<T>(v);
}

void op_clamp(Ctx& c) {
    const DType t = c.in_type(0).dtype;
    const NanMode nm = c.nan_mode();
    if (is_float(t)) {
        const double lo = num_attr(c, AttrName::min_val), hi = num_attr(c, AttrName::max_val);
        return float_unary(c, [&](auto v) {
            using T = decltype(v);
            return apply_min_f(apply_max_f(v, bound_as<T>(lo), nm), bound_as<T>(hi), nm);
        });
    }
    if (!is_integer(t)) unsupported(std::string("CLAMP has no ") + to_string(t) + " form");
    const Attr* a = c.op.attr(AttrName::min_val);
    const Attr* b = c.op.attr(AttrName::max_val);
    if (!a || !b || !std::holds_alternative<I64>(*a) || !std::holds_alternative<I64>(*b))
        unsupported("integer CLAMP needs integer min_val and max_val");
    const I64 lo = std::get<I64>(*a), hi = std::get<I64>(*b);
    int_unary(c, [lo, hi](I64 v) { return std::min(hi, std::max(lo, v)); });
}

void op_activation(Ctx& c) {
    const DType t = c.in_type(0).dtype;
    const OpKind k = c.op.kind;
    if (is_float(t)) {
        switch (k) {
            case OpKind::ERF: return float_unary(c, [](auto v) { return std::erf(v); });
            case OpKind::SIGMOID: return float_unary(c, [](auto v) { return sigmoid_of(v); });
            case OpKind::TANH: return float_unary(c, [](auto v) { return std::tanh(v); });
            default: break;
        }
    }
    unsupported(std::string(to_string(k)) + " has no " + to_string(t) + " form");
}

}  // namespace kernels

}  // namespace nnef::tosa
