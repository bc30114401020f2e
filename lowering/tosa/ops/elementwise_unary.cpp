// The elementwise unary operators (spec 2.6): ABS ... SIN, NEGATE.
#include "lowering/tosa/ops/check.hpp"
#include "lowering/tosa/ops/kernel.hpp"
#include "lowering/tosa/ops/registry.hpp"

namespace nnef::tosa {

// ---- validation ----------------------------------------------------------------------------

namespace checks {

// The Supported Data Types and Compile Time Constant tables of the family.
void add_elementwise_unary_tables(Tables& t) {
    constexpr std::uint32_t both = atom_pro_int | atom_pro_fp;
    t.types.insert(t.types.end(), {
        {OpKind::ABS, "in_out_t=input1=output", minmax_rows},
        {OpKind::BITWISE_NOT, "in_out_t=input1=output", int_bitwise_rows},
        {OpKind::CEIL, "in_out_t=input1=output", fp_rows},
        {OpKind::CLZ, "in_out_t=input1=output", {{"PRO-INT", "i32"}}},
        {OpKind::COS, "in_out_t=input1=output", fp_rows},
        {OpKind::EXP, "in_out_t=input1=output", fp_rows},
        {OpKind::FLOOR, "in_out_t=input1=output", fp_rows},
        {OpKind::LOG, "in_out_t=input1=output", fp_rows},
        {OpKind::LOGICAL_NOT, "in_out_t=input1=output", bool_rows},
        {OpKind::NEGATE, "in_out_t=input1=input1_zp=output_zp=output acc_t",
         {{"PRO-FP", "fp16 fp16"}, {"PRO-FP", "fp32 fp32"}, {"PRO-INT", "i16 i32"}, {"PRO-INT", "i32 i32"},
          {"PRO-INT", "i8 i32"}, {"EXT-BF16", "bf16 bf16"}}},
        {OpKind::RECIPROCAL, "in_out_t=input1=output", fp_rows},
        {OpKind::RSQRT, "in_out_t=input1=output", fp_rows},
        {OpKind::SIN, "in_out_t=input1=output", fp_rows},
    });
    t.ctc.insert(t.ctc.end(), {
        {OpKind::NEGATE, "input1_zp output_zp", both},
    });
}

void check_negate(OpCheck& c) {
    if (c.input_shape(1, {1}, "[1]") || c.input_shape(2, {1}, "[1]")) return;
    const DType t = c.idt(0);
    if (c.zero_point(1, t, "in_out_t") || c.zero_point(2, t, "in_out_t")) return;
    c.expect_shape(0, t, c.ish(0), "shape(output) != shape(input1)");
}

}  // namespace checks

// ---- interpreter kernels ---------------------------------------------------------------------

namespace kernels {

void op_negate(Ctx& c) {
    const DType t = c.in_type(0).dtype;
    const I64 in_zp = zero_point(c.in(1), "input1_zp");
    const I64 out_zp = zero_point(c.in(2), "output_zp");
    if (t != DType::i8) error_if(in_zp != 0 || out_zp != 0, "!is_same<in_out_t,i8_t>() && (input1_zp != 0 || output_zp != 0)");
    if (is_float(t)) return float_unary(c, [](auto v) { return -v; });
    if (!is_integer(t)) unsupported(std::string("NEGATE has no ") + to_string(t) + " form");
    const DType acc = t == DType::i48 ? DType::i48 : DType::i32;
    int_unary(c, [&](I64 v) {
        I64 value = sub_s(acc, v, in_zp);
        value = sub_s(acc, 0, value);
        value = add_s(acc, value, out_zp);
        return std::min(max_s(t), std::max(min_s(t), value));
    });
}

void op_unary(Ctx& c) {
    const DType t = c.in_type(0).dtype;
    const OpKind k = c.op.kind;
    if (is_float(t)) {
        switch (k) {
            case OpKind::ABS: return float_unary(c, [](auto v) { return std::fabs(v); });
            case OpKind::CEIL: return float_unary(c, [](auto v) { return std::ceil(v); });
            case OpKind::FLOOR: return float_unary(c, [](auto v) { return std::floor(v); });
            case OpKind::COS: return float_unary(c, [](auto v) { return std::cos(v); });
            case OpKind::SIN: return float_unary(c, [](auto v) { return std::sin(v); });
            case OpKind::EXP: return float_unary(c, [](auto v) { return std::exp(v); });
            case OpKind::LOG: return float_unary(c, [](auto v) { return std::log(v); });  // -inf at 0, NaN below
            case OpKind::RECIPROCAL: return float_unary(c, [](auto v) { return decltype(v)(1) / v; });
            case OpKind::RSQRT:
                return float_unary(c, [](auto v) {
                    using T = decltype(v);
                    return v < 0 ? std::numeric_limits<T>::quiet_NaN() : T(1) / std::sqrt(v);
                });
            default: break;
        }
        unsupported(std::string(to_string(k)) + " has no " + to_string(t) + " form");
    }
    if (t == DType::bool_ && k == OpKind::LOGICAL_NOT) return int_unary(c, [](I64 v) -> I64 { return !v; });
    if (!is_integer(t)) unsupported(std::string(to_string(k)) + " has no " + to_string(t) + " form");
    switch (k) {
        case OpKind::ABS:
            return int_unary(c, [t](I64 v) { return v < 0 ? sub_s(t, 0, v) : v; });
        case OpKind::BITWISE_NOT: return int_unary(c, [](I64 v) { return ~v; });
        case OpKind::CLZ:
            return int_unary(c, [](I64 v) -> I64 {
                const std::uint32_t u = static_cast<std::uint32_t>(v);
                I64 n = 0;
                for (std::uint32_t mask = 0x80000000u; mask && !(u & mask); mask >>= 1) ++n;
                return n;
            });
        default: break;
    }
    unsupported(std::string(to_string(k)) + " has no " + to_string(t) + " form");
}

}  // namespace kernels

}  // namespace nnef::tosa
