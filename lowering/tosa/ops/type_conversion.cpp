// The type conversion operators (spec 2.13): CAST, RESCALE.
#include "lowering/tosa/ops/check.hpp"
#include "lowering/tosa/ops/kernel.hpp"
#include "lowering/tosa/ops/registry.hpp"

namespace nnef::tosa {

// ---- validation ----------------------------------------------------------------------------

namespace checks {

// The Supported Data Types and Compile Time Constant tables of the family.
void add_type_conversion_tables(Tables& t) {
    t.types.insert(t.types.end(), {
        {OpKind::CAST, "in_t=input out_t=output",
         {{"PRO-FP", "fp16 fp32"},  {"PRO-FP", "fp16 i16"},   {"PRO-FP", "fp16 i32"},   {"PRO-FP", "fp16 i8"},
          {"PRO-FP", "fp32 fp16"},  {"PRO-FP", "fp32 i16"},   {"PRO-FP", "fp32 i32"},   {"PRO-FP", "fp32 i8"},
          {"PRO-FP", "i16 fp16"},   {"PRO-FP", "i16 fp32"},   {"PRO-FP", "i32 fp16"},   {"PRO-FP", "i32 fp32"},
          {"PRO-FP", "i8 fp16"},    {"PRO-FP", "i8 fp32"},    {"PRO-INT", "bool i16"},  {"PRO-INT", "bool i32"},
          {"PRO-INT", "bool i8"},   {"PRO-INT", "i16 bool"},  {"PRO-INT", "i16 i32"},   {"PRO-INT", "i16 i8"},
          {"PRO-INT", "i32 bool"},  {"PRO-INT", "i32 i16"},   {"PRO-INT", "i32 i8"},    {"PRO-INT", "i8 bool"},
          {"PRO-INT", "i8 i16"},    {"PRO-INT", "i8 i32"},    {"EXT-BF16", "bf16 fp32"}, {"EXT-BF16", "bf16 i16"},
          {"EXT-BF16", "bf16 i32"}, {"EXT-BF16", "bf16 i8"},  {"EXT-BF16", "fp32 bf16"}, {"EXT-BF16", "i16 bf16"},
          {"EXT-BF16", "i32 bf16"}, {"EXT-BF16", "i8 bf16"},
          {"EXT-BF16 and EXT-FP8E4M3", "bf16 fp8e4m3"}, {"EXT-BF16 and EXT-FP8E4M3", "fp8e4m3 bf16"},
          {"EXT-BF16 and EXT-FP8E5M2", "bf16 fp8e5m2"}, {"EXT-BF16 and EXT-FP8E5M2", "fp8e5m2 bf16"},
          {"EXT-FP8E4M3", "fp16 fp8e4m3"}, {"EXT-FP8E4M3", "fp32 fp8e4m3"}, {"EXT-FP8E4M3", "fp8e4m3 fp16"},
          {"EXT-FP8E4M3", "fp8e4m3 fp32"}, {"EXT-FP8E5M2", "fp16 fp8e5m2"}, {"EXT-FP8E5M2", "fp32 fp8e5m2"},
          {"EXT-FP8E5M2", "fp8e5m2 fp16"}, {"EXT-FP8E5M2", "fp8e5m2 fp32"}}},
        {OpKind::RESCALE, "in_t=input=input_zp out_t=output=output_zp i8_t=shift",
         {{"PRO-INT", "i16 i16"}, {"PRO-INT", "i16 i32"}, {"PRO-INT", "i16 i8"}, {"PRO-INT", "i32 i16"},
          {"PRO-INT", "i32 i32"}, {"PRO-INT", "i32 i8"}, {"PRO-INT", "i8 i16"}, {"PRO-INT", "i8 i32"},
          {"PRO-INT", "i8 i8"}, {"EXT-INT16", "i48 i16"}, {"EXT-INT16", "i48 i32"}, {"EXT-INT16", "i48 i8"}}},
    });
    t.ctc.insert(t.ctc.end(), {
        {OpKind::RESCALE, "multiplier shift input_zp output_zp", atom_pro_int},
    });
}

void check_rescale(OpCheck& c) {
    const bool scale32 = c.flag(AttrName::scale32);
    const bool per_channel = c.flag(AttrName::per_channel);
    const bool in_u = c.flag(AttrName::input_unsigned);
    const bool out_u = c.flag(AttrName::output_unsigned);
    const RoundingMode rounding = c.op_.get<RoundingMode>(AttrName::rounding_mode);
    const DType in_t = c.idt(0);
    const DType out_t = c.idt(4);
    const Shape& x = c.ish(0);
    if (c.error_if(per_channel && x.empty(), "per_channel && rank(input) < 1", "input is " + to_string(c.in(0)))) return;
    const I64 nc = per_channel ? x.back() : 1;
    const DType mul_t = scale32 ? DType::i32 : DType::i16;
    if (c.argument(c.idt(1) == mul_t, "multiplier is T<mul_t>, mul_t = scale32 ? i32_t : i16_t (argument table)",
                   "multiplier is " + to_string(c.in(1)) + " with scale32 " + (scale32 ? "true" : "false")) ||
        c.input_shape(1, {nc}, "[NC], NC = per_channel ? shape[rank(shape)-1] : 1") ||
        c.input_shape(2, {nc}, "[NC], NC = per_channel ? shape[rank(shape)-1] : 1") || c.input_shape(3, {1}, "[1]") ||
        c.input_shape(4, {1}, "[1]"))
        return;
    if (c.validating()) {
        const auto& ext = c.opts_->extensions;
        auto enabled = [&](Extension e) {
            for (const std::string& s : ext)
                if (extension_from_string(s) == e) return true;
            return false;
        };
        if (rounding == RoundingMode::DOUBLE_ROUND && !enabled(Extension::doubleround))
            if (c.fail("tosa-type-table", "rounding_mode_t DOUBLE_ROUND requires EXT-DOUBLEROUND (3.5)",
                       "EXT-DOUBLEROUND is not enabled"))
                return;
        if (rounding == RoundingMode::INEXACT_ROUND && !enabled(Extension::inexactround))
            if (c.fail("tosa-type-table", "rounding_mode_t INEXACT_ROUND requires EXT-INEXACTROUND (3.5)",
                       "EXT-INEXACTROUND is not enabled"))
                return;
    }
    const auto in_zp = c.scalar(3);
    const auto out_zp = c.scalar(4);
    auto zp_text = [](const std::optional<double>& z) { return z ? std::to_string(I64(*z)) : std::string("?"); };
    if (c.error_if(in_t != DType::i8 && (in_t != DType::i16 || !in_u) && in_zp && *in_zp != 0,
                   "!is_same<in_t,i8_t>() && (!is_same<in_t,i16_t>() || input_unsigned == false) && input_zp != 0",
                   "input_zp " + zp_text(in_zp) + " for " + to_string(in_t)) ||
        c.error_if(out_t != DType::i8 && (out_t != DType::i16 || !out_u) && out_zp && *out_zp != 0,
                   "!is_same<out_t,i8_t>() && (!is_same<out_t,i16_t>() || output_unsigned == false) && output_zp != 0",
                   "output_zp " + zp_text(out_zp) + " for " + to_string(out_t)))
        return;
    // An unsigned i16 zero point is stored in an i16: 32768 reads as -32768.
    auto is_u16_zp = [](double z) { return z == 0 || z == 32768 || z == -32768; };
    if (c.error_if(in_t == DType::i16 && in_u && in_zp && !is_u16_zp(*in_zp),
                   "is_same<in_t,i16_t>() && input_unsigned == true && input_zp != 0 && input_zp != 32768",
                   "input_zp " + zp_text(in_zp)) ||
        c.error_if(out_t == DType::i16 && out_u && out_zp && !is_u16_zp(*out_zp),
                   "is_same<out_t,i16_t>() && output_unsigned == true && output_zp != 0 && output_zp != 32768",
                   "output_zp " + zp_text(out_zp)) ||
        c.error_if(scale32 && in_t == DType::i48, "scale32 && is_same<in_t,i48_t>()") ||
        c.error_if(!scale32 && rounding == RoundingMode::DOUBLE_ROUND, "!scale32 && (rounding_mode == DOUBLE_ROUND)") ||
        c.error_if(in_u && out_u, "input_unsigned && output_unsigned") ||
        c.error_if(out_t == DType::i32 && in_u, "is_same<out_t,i32_t>() && input_unsigned") ||
        c.error_if(in_t == DType::i32 && out_u, "is_same<in_t,i32_t>() && output_unsigned") ||
        c.error_if(in_t == DType::i48 && out_u, "is_same<in_t,i48_t>() && output_unsigned") ||
        c.error_if(in_t == DType::i48 && in_u, "is_same<in_t, i48_t> && input_unsigned") ||
        c.error_if(in_t == DType::i32 && in_u, "is_same<in_t, i32_t> && input_unsigned") ||
        c.error_if(out_t == DType::i32 && out_u, "is_same<out_t, i32_t> && output_unsigned"))
        return;
    // The scale arrays (NC items): apply_scale_32 / apply_scale_16 REQUIRE multiplier >= 0 and
    // 2 <= shift <= 62.
    if (const ConstData* m = c.constant(1); m && m->type.dtype == mul_t) {
        for (I64 j = 0; j < m->type.volume(); ++j)
            if (c.require(*OpCheck::item(*m, static_cast<std::size_t>(j)) >= 0, "multiplier >= 0",
                          "multiplier[" + std::to_string(j) + "] is " +
                              std::to_string(*OpCheck::item(*m, static_cast<std::size_t>(j)))))
                return;
    }
    if (const ConstData* s = c.constant(2); s && s->type.dtype == DType::i8) {
        for (I64 j = 0; j < s->type.volume(); ++j) {
            const I64 v = s->items<std::int8_t>()[j];
            if (c.require(v >= 2 && v <= 62, "2 <= shift && shift <= 62",
                          "shift[" + std::to_string(j) + "] is " + std::to_string(v)))
                return;
        }
    }
    c.expect_shape(0, out_t, x, "shape(output) != shape(input)");
}

}  // namespace checks

// ---- interpreter kernels ---------------------------------------------------------------------

namespace kernels {

void op_cast(Ctx& c) {
    const ConstData& x = c.in(0);
    const TensorType& out = c.out_type(0);
    const DType it = x.type.dtype, ot = out.dtype;
    const I64 n = out.volume();
    auto y = c.alloc(0);
    if (ot == DType::bool_) {
        for (I64 i = 0; i < n; ++i) store_int(*y, i, is_float(it) ? load_float(x, i) != 0.0 : load_int(x, i) != 0);
    } else if (is_float(ot)) {
        if (it == DType::fp32 && ot == DType::fp16) {
            for (I64 i = 0; i < n; ++i) y->mutable_items<std::uint16_t>()[i] = fp32_to_fp16(x.items<float>()[i]);
        } else if (it == DType::fp32 && ot == DType::bf16) {
            for (I64 i = 0; i < n; ++i) y->mutable_items<std::uint16_t>()[i] = fp32_to_bf16(x.items<float>()[i]);
        } else {
            // exact in double for every input type, then one rounding
            for (I64 i = 0; i < n; ++i)
                store_float(*y, i, is_float(it) ? load_float(x, i) : static_cast<double>(load_int(x, i)));
        }
    } else if (is_integer(ot)) {
        const double lo = static_cast<double>(min_s(ot)), hi = static_cast<double>(max_s(ot));
        for (I64 i = 0; i < n; ++i) {
            if (is_float(it)) {
                const double v = load_float(x, i);
                require(!std::isnan(v), "a NaN input is not cast to an integer (unpredictable)");
                // round to nearest, ties to even; saturate
                store_int(*y, i, static_cast<I64>(std::min(hi, std::max(lo, std::nearbyint(v)))));
            } else {
                store_int(*y, i, load_int(x, i));  // sign_extend, or truncate to the smaller type
            }
        }
    } else {
        unsupported(std::string("CAST to ") + to_string(ot));
    }
    c.set(0, y);
}

void op_rescale(Ctx& c) {
    const ConstData& x = c.in(0);
    const ConstData& multiplier = c.in(1);
    const ConstData& shift = c.in(2);
    const TensorType& out = c.out_type(0);
    const DType in_t = x.type.dtype, out_t = out.dtype;
    const bool scale32 = c.attr<bool>(AttrName::scale32);
    const RoundingMode rounding = c.attr<RoundingMode>(AttrName::rounding_mode);
    const bool per_channel = c.attr<bool>(AttrName::per_channel);
    const bool input_unsigned = c.attr<bool>(AttrName::input_unsigned);
    const bool output_unsigned = c.attr<bool>(AttrName::output_unsigned);
    if (!is_integer(in_t) || !(out_t == DType::i8 || out_t == DType::i16 || out_t == DType::i32))
        unsupported(std::string("RESCALE from ") + to_string(in_t) + " to " + to_string(out_t));
    // zero points (the rules on them here for zero points that are no constants): read as the
    // signless bits of their type
    const I64 in_zp_raw = single_int(c.in(3), "input_zp");
    const I64 out_zp_raw = single_int(c.in(4), "output_zp");
    const I64 in_zp = input_unsigned ? static_cast<I64>(unsigned_of(in_zp_raw, integer_bits(in_t))) : in_zp_raw;
    const I64 out_zp = output_unsigned ? static_cast<I64>(unsigned_of(out_zp_raw, integer_bits(out_t))) : out_zp_raw;
    error_if(in_t != DType::i8 && (in_t != DType::i16 || !input_unsigned) && in_zp != 0,
             "!is_same<in_t,i8_t>() && (!is_same<in_t,i16_t>() || input_unsigned == false) && input_zp != 0");
    error_if(out_t != DType::i8 && (out_t != DType::i16 || !output_unsigned) && out_zp != 0,
             "!is_same<out_t,i8_t>() && (!is_same<out_t,i16_t>() || output_unsigned == false) && output_zp != 0");
    error_if(in_t == DType::i16 && input_unsigned && in_zp != 0 && in_zp != 32768,
             "is_same<in_t,i16_t>() && input_unsigned == true && input_zp != 0 && input_zp != 32768");
    error_if(out_t == DType::i16 && output_unsigned && out_zp != 0 && out_zp != 32768,
             "is_same<out_t,i16_t>() && output_unsigned == true && output_zp != 0 && output_zp != 32768");
    const I64 nc = per_channel ? x.type.shape.back() : 1;
    std::vector<std::int32_t> m(static_cast<std::size_t>(nc)), s(m.size());
    for (I64 i = 0; i < nc; ++i) {
        m[i] = static_cast<std::int32_t>(load_int(multiplier, i));
        s[i] = static_cast<std::int32_t>(load_int(shift, i));
    }
    const bool double_round = rounding == RoundingMode::DOUBLE_ROUND;
    const I64 in_bits = integer_bits(in_t), out_bits = integer_bits(out_t);
    const I64 lo = output_unsigned ? 0 : min_s(out_t);
    const I64 hi = output_unsigned ? (I64{1} << out_bits) - 1 : max_s(out_t);
    const I64 n = out.volume();
    auto y = c.alloc(0);
    for (I64 i = 0; i < n; ++i) {
        const I64 raw = load_int(x, i);
        const I64 value = (input_unsigned ? static_cast<I64>(unsigned_of(raw, in_bits)) : raw) - in_zp;
        const I64 ch = per_channel ? i % nc : 0;
        std::optional<std::int32_t> r = scale32 ? apply_scale_32(value, m[ch], s[ch], double_round)
                                                : apply_scale_16(value, m[ch], s[ch]);
        require(r.has_value(), scale32 ? "apply_scale_32: multiplier >= 0, 2 <= shift <= 62, value in range"
                                       : "apply_scale_16: 0 <= multiplier, 2 <= shift <= 62, result in int32 range");
        const I64 result = add_s(DType::i32, *r, out_zp);
        store_int(*y, i, std::min(hi, std::max(lo, result)));  // then the bits as out_t
    }
    c.set(0, y);
}

}  // namespace kernels

}  // namespace nnef::tosa
