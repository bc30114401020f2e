// The elementwise binary operators (spec 2.5): ADD ... SUB, TABLE.
#include "lowering/tosa/ops/check.hpp"
#include "lowering/tosa/ops/kernel.hpp"
#include "lowering/tosa/ops/registry.hpp"

namespace nnef::tosa {

// ---- validation ----------------------------------------------------------------------------

namespace checks {

// The Supported Data Types and Compile Time Constant tables of the family.
void add_elementwise_binary_tables(Tables& t) {
    constexpr std::uint32_t both = atom_pro_int | atom_pro_fp;
    t.types.insert(t.types.end(), {
        {OpKind::ADD, "in_out_t=input1=input2=output", add_rows},
        {OpKind::ARITHMETIC_RIGHT_SHIFT, "in_out_t=input1=input2=output", int_bitwise_rows},
        {OpKind::BITWISE_AND, "in_out_t=input1=input2=output", int_bitwise_rows},
        {OpKind::BITWISE_OR, "in_out_t=input1=input2=output", int_bitwise_rows},
        {OpKind::BITWISE_XOR, "in_out_t=input1=input2=output", int_bitwise_rows},
        {OpKind::INTDIV, "in_out_t=input1=input2=output", {{"PRO-INT or PRO-FP", "i32"}}},
        {OpKind::LOGICAL_AND, "in_out_t=input1=input2=output", bool_rows},
        {OpKind::LOGICAL_LEFT_SHIFT, "in_out_t=input1=input2=output", shift_rows},
        {OpKind::LOGICAL_RIGHT_SHIFT, "in_out_t=input1=input2=output", shift_rows},
        {OpKind::LOGICAL_OR, "in_out_t=input1=input2=output", bool_rows},
        {OpKind::LOGICAL_XOR, "in_out_t=input1=input2=output", bool_rows},
        {OpKind::MAXIMUM, "in_out_t=input1=input2=output", minmax_rows},
        {OpKind::MINIMUM, "in_out_t=input1=input2=output", minmax_rows},
        {OpKind::MUL, "in_t=input1=input2 out_t=output i8_t=shift",
         {{"PRO-FP", "fp16 fp16"}, {"PRO-FP", "fp32 fp32"}, {"PRO-INT", "i16 i32"}, {"PRO-INT or PRO-FP", "i32 i32"},
          {"PRO-INT", "i8 i32"}, {"EXT-BF16", "bf16 bf16"}}},
        {OpKind::POW, "in_out_t=input1=input2=output", fp_rows},
        {OpKind::SUB, "in_out_t=input1=input2=output", add_rows},
        {OpKind::TABLE, "in_t=input1 table_t=table out_t=output",
         {{"PRO-INT", "i8 i8 i8"}, {"EXT-INT16", "i16 i16 i32"}}},
    });
    t.ctc.insert(t.ctc.end(), {
        {OpKind::MUL, "shift", both},
        {OpKind::TABLE, "table", atom_pro_int},
    });
}

// Integer shift amounts that a constant operand gives: REQUIRE(0 <= value2 <= bits - 1).
bool check_shift_amounts(OpCheck& c, std::size_t i) {
    const ConstData* k = c.constant(i);
    const int bits = integer_bits(c.idt(0));
    if (!k || bits == 0 || k->type.dtype != c.idt(0)) return false;
    for (I64 j = 0, n = k->type.volume(); j < n; ++j) {
        const I64 v = *OpCheck::item(*k, static_cast<std::size_t>(j));
        if (c.require(v >= 0 && v <= bits - 1,
                      std::string("is_same<in_out_t,") + to_string(c.idt(0)) + "_t>() && 0 <= value2 && value2 <= " +
                          std::to_string(bits - 1),
                      "input2 holds " + std::to_string(v)))
            return true;
    }
    return false;
}

void check_binary(OpCheck& c) {
    Shape s = c.ish(0);
    if (c.broadcast(s, c.ish(1), "input2")) return;
    switch (c.op_.kind) {
        case OpKind::ARITHMETIC_RIGHT_SHIFT:
        case OpKind::LOGICAL_LEFT_SHIFT:
        case OpKind::LOGICAL_RIGHT_SHIFT:
            if (check_shift_amounts(c, 1)) return;
            break;
        case OpKind::INTDIV:
            if (const ConstData* k = c.constant(1); k && k->type.dtype == DType::i32) {
                for (I64 j = 0, n = k->type.volume(); j < n; ++j)
                    if (c.require(k->items<std::int32_t>()[j] != 0, "value2 != 0", "input2 holds a zero")) return;
            }
            break;
        case OpKind::MUL: {
            if (c.input_shape(2, {1}, "[1]")) return;
            if (auto sh = c.scalar(2)) {
                if (c.require(*sh >= 0 && *sh <= 63, "0 <= shift && shift <= 63", "shift is " + std::to_string(I64(*sh))) ||
                    c.require(c.idt(0) == DType::i32 || *sh == 0, "is_same<in_t,int32_t>() || shift == 0",
                              "shift is " + std::to_string(I64(*sh)) + " for " + to_string(c.idt(0))))
                    return;
            }
            break;
        }
        default: break;
    }
    c.expect_shape(0, DType::none, s, "shape != broadcast_shape(shape1, shape2)");
}

void check_table(OpCheck& c) {
    if (c.input_rank(1, 1)) return;
    const DType t = c.idt(0);
    const I64 size = t == DType::i8 ? 256 : t == DType::i16 ? 513 : unknown;
    if (size != unknown && c.require(c.ish(1)[0] == size, "length(table) == TABLE_SIZE",
                                     "table is " + to_string(c.in(1)) + ", TABLE_SIZE is " + std::to_string(size) +
                                         " for " + to_string(t)))
        return;
    c.expect_shape(0, DType::none, c.ish(0), "shape(output) != shape(input1)");
}

}  // namespace checks

// ---- interpreter kernels ---------------------------------------------------------------------

namespace kernels {

template <class F>
void float_binary(Ctx& c, F f) {
    const ConstData& x1 = c.in(0);
    const ConstData& x2 = c.in(1);
    const TensorType& out = binary_shapes(c);
    error_if(out.dtype != x1.type.dtype, "input and output types differ");
    with_float(out.dtype, [&](auto tag) {
        using T = decltype(tag);
        const Floats<T> a = floats<T>(x1), b = floats<T>(x2);
        OutFloats<T> y(c.alloc(0));
        T* o = y.p;
        const T* pa = a.p;
        const T* pb = b.p;
        const I64 n = out.volume();
        if (x1.type.shape == out.shape && x2.type.shape == out.shape) {
            for (I64 i = 0; i < n; ++i) o[i] = f(pa[i], pb[i]);
        } else if (x1.type.shape == out.shape && x2.type.volume() == 1) {
            const T bv = pb[0];
            for (I64 i = 0; i < n; ++i) o[i] = f(pa[i], bv);
        } else if (x2.type.shape == out.shape && x1.type.volume() == 1) {
            const T av = pa[0];
            for (I64 i = 0; i < n; ++i) o[i] = f(av, pb[i]);
        } else {
            for_each_row<2>(out.shape, {&x1.type.shape, &x2.type.shape},
                            [&](I64 o0, const std::array<I64, 2>& base, const std::array<I64, 2>& step, I64 count) {
                                const T* ra = pa + base[0];
                                const T* rb = pb + base[1];
                                const I64 sa = step[0], sb = step[1];
                                T* ro = o + o0;
                                if (sa == 1 && sb == 1) {
                                    for (I64 j = 0; j < count; ++j) ro[j] = f(ra[j], rb[j]);
                                } else {
                                    for (I64 j = 0; j < count; ++j) ro[j] = f(ra[j * sa], rb[j * sb]);
                                }
                            });
        }
        c.set(0, y.finish());
    });
}

// f(a, b) returns the exact result; it is stored truncated to the output type.
template <class F>
void int_binary(Ctx& c, F f) {
    const ConstData& x1 = c.in(0);
    const ConstData& x2 = c.in(1);
    const TensorType& out = binary_shapes(c);
    auto y = c.alloc(0);
    for_each_broadcast<2>(out.shape, {&x1.type.shape, &x2.type.shape},
                          [&](I64 i, const std::array<I64, 2>& k) { store_int(*y, i, f(load_int(x1, k[0]), load_int(x2, k[1]))); });
    c.set(0, y);
}

void check_shift(DType t, I64 s) {
    const I64 bits = t == DType::i8 ? 8 : t == DType::i16 ? 16 : 32;
    require(0 <= s && s <= bits - 1, std::string("0 <= value2 && value2 <= ") + std::to_string(bits - 1) + " for " + to_string(t));
}

void op_binary(Ctx& c) {
    const DType t = c.in_type(0).dtype;
    const OpKind k = c.op.kind;
    const DType out = c.out_type(0).dtype;
    if (is_float(t)) {
        const NanMode nm = c.nan_mode();
        switch (k) {
            case OpKind::ADD: return float_binary(c, [](auto a, auto b) { return a + b; });
            case OpKind::SUB: return float_binary(c, [](auto a, auto b) { return a - b; });
            case OpKind::MUL:
                require(single_int(c.in(2), "shift") == 0, "is_same<in_t,int32_t>() || shift == 0");
                return float_binary(c, [](auto a, auto b) { return a * b; });
            case OpKind::POW: return float_binary(c, [](auto a, auto b) { return std::pow(a, b); });
            case OpKind::MAXIMUM: return float_binary(c, [nm](auto a, auto b) { return apply_max_f(a, b, nm); });
            case OpKind::MINIMUM: return float_binary(c, [nm](auto a, auto b) { return apply_min_f(a, b, nm); });
            default: break;
        }
        unsupported(std::string(to_string(k)) + " has no " + to_string(t) + " form");
    }
    if (t == DType::bool_) {
        switch (k) {
            case OpKind::LOGICAL_AND: return int_binary(c, [](I64 a, I64 b) -> I64 { return a && b; });
            case OpKind::LOGICAL_OR: return int_binary(c, [](I64 a, I64 b) -> I64 { return a || b; });
            case OpKind::LOGICAL_XOR: return int_binary(c, [](I64 a, I64 b) -> I64 { return a != b; });
            default: break;
        }
        unsupported(std::string(to_string(k)) + " has no bool form");
    }
    if (!is_integer(t)) unsupported(std::string(to_string(k)) + " has no " + to_string(t) + " form");
    const I64 bits = integer_bits(t);
    switch (k) {
        case OpKind::ADD: return int_binary(c, [t](I64 a, I64 b) { return add_s(t, a, b); });
        case OpKind::SUB: return int_binary(c, [t](I64 a, I64 b) { return sub_s(t, a, b); });
        case OpKind::MAXIMUM: return int_binary(c, [](I64 a, I64 b) { return a >= b ? a : b; });
        case OpKind::MINIMUM: return int_binary(c, [](I64 a, I64 b) { return a < b ? a : b; });
        case OpKind::MUL: {
            const I64 shift = single_int(c.in(2), "shift");
            require(0 <= shift && shift <= 63, "0 <= shift && shift <= 63");
            require(t == DType::i32 || shift == 0, "is_same<in_t,int32_t>() || shift == 0");
            if (t == DType::i32 && shift > 0)
                return int_binary(c, [shift](I64 a, I64 b) {
                    I64 product = a * b;
                    const I64 round = I64{1} << (shift - 1);
                    product = (product + round) >> shift;
                    require(product >= min_s(DType::i32) && product <= max_s(DType::i32),
                            "product >= minimum_s<i32_t>() && product <= maximum_s<i32_t>()");
                    return product;
                });
            // apply_mul_s<out_t>: the low bits of the product
            return int_binary(c, [out](I64 a, I64 b) { return truncate_to(out, a * b); });
        }
        case OpKind::INTDIV:
            return int_binary(c, [t](I64 a, I64 b) {
                require(b != 0, "value2 != 0");
                const I64 q = a / b;  // truncates towards zero
                require(q >= min_s(t) && q <= max_s(t), "apply_intdiv_s result in range");
                return q;
            });
        case OpKind::BITWISE_AND: return int_binary(c, [](I64 a, I64 b) { return a & b; });
        case OpKind::BITWISE_OR: return int_binary(c, [](I64 a, I64 b) { return a | b; });
        case OpKind::BITWISE_XOR: return int_binary(c, [](I64 a, I64 b) { return a ^ b; });
        case OpKind::LOGICAL_LEFT_SHIFT:
            return int_binary(c, [t, bits](I64 a, I64 b) {
                check_shift(t, b);
                return static_cast<I64>(unsigned_of(a, bits) << b);  // truncated on store
            });
        case OpKind::LOGICAL_RIGHT_SHIFT:
            return int_binary(c, [t, bits](I64 a, I64 b) {
                check_shift(t, b);
                return static_cast<I64>(unsigned_of(a, bits) >> b);
            });
        case OpKind::ARITHMETIC_RIGHT_SHIFT: {
            const bool round = c.attr<bool>(AttrName::round);
            return int_binary(c, [t, round](I64 a, I64 b) {
                check_shift(t, b);
                I64 result = a >> b;
                if (round && b > 0 && ((a >> (b - 1)) & 1) != 0) result = result + 1;
                return result;
            });
        }
        default: break;
    }
    unsupported(std::string(to_string(k)) + " has no " + to_string(t) + " form");
}

void op_table(Ctx& c) {
    const ConstData& x = c.in(0);
    const ConstData& table = c.in(1);
    const TensorType& out = c.out_type(0);
    const I64 n = out.volume();
    auto y = c.alloc(0);
    if (x.type.dtype == DType::i8) {
        error_if(table.type.dtype != DType::i8 || out.dtype != DType::i8, "an i8 TABLE has an i8 table and output");
        for (I64 i = 0; i < n; ++i) store_int(*y, i, load_int(table, load_int(x, i) + 128));
    } else if (x.type.dtype == DType::i16) {
        error_if(table.type.dtype != DType::i16 || out.dtype != DType::i32, "an i16 TABLE has an i16 table and an i32 output");
        const std::int16_t* tab = table.items<std::int16_t>();
        for (I64 i = 0; i < n; ++i) {
            const std::optional<std::int32_t> v = apply_lookup_s(tab, static_cast<std::int32_t>(load_int(x, i)));
            require(v.has_value(), "slope >= minimum<int16_t> && slope <= maximum<int16_t>");
            store_int(*y, i, *v);
        }
    } else {
        unsupported(std::string("TABLE has no ") + to_string(x.type.dtype) + " form");
    }
    c.set(0, y);
}

}  // namespace kernels

}  // namespace nnef::tosa
