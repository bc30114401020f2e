// The reduction operators (spec 2.9): REDUCE_ALL ... REDUCE_SUM (ARGMAX: ops/tensor.cpp).
#include "lowering/tosa/ops/check.hpp"
#include "lowering/tosa/ops/kernel.hpp"
#include "lowering/tosa/ops/registry.hpp"

namespace nnef::tosa {

// ---- validation ----------------------------------------------------------------------------

namespace checks {

// The Supported Data Types and Compile Time Constant tables of the family.
void add_reduction_tables(Tables& t) {
    t.types.insert(t.types.end(), {
        {OpKind::REDUCE_ALL, "in_out_t=input=output", bool_rows},
        {OpKind::REDUCE_ANY, "in_out_t=input=output", bool_rows},
        {OpKind::REDUCE_MAX, "in_out_t=input=output", reduce_minmax_rows},
        {OpKind::REDUCE_MIN, "in_out_t=input=output", reduce_minmax_rows},
        {OpKind::REDUCE_PRODUCT, "in_out_t=input=output", fp_rows},
        {OpKind::REDUCE_SUM, "in_out_t=input=output acc_t",
         {{"PRO-FP", "fp16 fp16"}, {"PRO-FP", "fp32 fp32"}, {"PRO-INT", "i32 i32"}, {"EXT-BF16", "bf16 fp32"}}},
    });
}

void check_reduce(OpCheck& c) {
    if (c.input_rank_min(0, 1)) return;
    const I64 axis = c.i32(AttrName::axis);
    Shape s = c.ish(0);
    if (c.axis_in_range(axis, s.size(), "axis < 0 || axis >= rank(shape1)")) return;
    s[axis] = 1;
    if (c.expect_rank(0, c.idt(0), s.size(), "rank(output) != rank(input)")) return;
    for (std::size_t d = 0; d < s.size(); ++d)
        if (c.expect_dim(0, d, s[d], static_cast<I64>(d) == axis ? "shape[axis] != 1" : "shape[i] != shape1[i]")) return;
}

}  // namespace checks

// ---- interpreter kernels ---------------------------------------------------------------------

namespace kernels {

void op_reduce(Ctx& c) {
    const ConstData& x = c.in(0);
    const TensorType& out = c.out_type(0);
    const I64 axis = c.attr<I64>(AttrName::axis);
    const Shape& s1 = x.type.shape;
    error_if(out.dtype != x.type.dtype, "input and output types differ");
    const AxisSplit a = split_at(s1, axis);
    const OpKind k = c.op.kind;
    const NanMode nm = c.nan_mode();
    auto y = c.alloc(0);
    const DType t = x.type.dtype;
    if (is_float(t)) {
        const Floats<double> v = floats<double>(x);
        for (I64 o = 0; o < a.outer; ++o)
            for (I64 j = 0; j < a.inner; ++j) {
                const double* p = v.p + o * a.len * a.inner + j;
                double acc = 0.0;
                switch (k) {
                    case OpKind::REDUCE_MAX:
                        acc = nm == NanMode::IGNORE ? std::numeric_limits<double>::quiet_NaN() : -std::numeric_limits<double>::infinity();
                        for (I64 i = 0; i < a.len; ++i) acc = apply_max_f(acc, p[i * a.inner], nm);
                        break;
                    case OpKind::REDUCE_MIN:
                        acc = nm == NanMode::IGNORE ? std::numeric_limits<double>::quiet_NaN() : std::numeric_limits<double>::infinity();
                        for (I64 i = 0; i < a.len; ++i) acc = apply_min_f(acc, p[i * a.inner], nm);
                        break;
                    case OpKind::REDUCE_PRODUCT:
                        acc = 1.0;
                        for (I64 i = 0; i < a.len; ++i) acc *= p[i * a.inner];
                        break;
                    case OpKind::REDUCE_SUM:
                        for (I64 i = 0; i < a.len; ++i) acc += p[i * a.inner];
                        break;
                    default: unsupported(std::string(to_string(k)) + " has no " + to_string(t) + " form");
                }
                store_float(*y, o * a.inner + j, acc);
            }
        return c.set(0, y);
    }
    if (t != DType::bool_ && !is_integer(t)) unsupported(std::string(to_string(k)) + " has no " + to_string(t) + " form");
    for (I64 o = 0; o < a.outer; ++o)
        for (I64 j = 0; j < a.inner; ++j) {
            const I64 base = o * a.len * a.inner + j;
            I64 acc = 0;
            switch (k) {
                case OpKind::REDUCE_ALL:
                    acc = 1;
                    for (I64 i = 0; i < a.len; ++i) acc = acc && load_int(x, base + i * a.inner);
                    break;
                case OpKind::REDUCE_ANY:
                    for (I64 i = 0; i < a.len; ++i) acc = acc || load_int(x, base + i * a.inner);
                    break;
                case OpKind::REDUCE_MAX:
                    acc = min_s(t);
                    for (I64 i = 0; i < a.len; ++i) acc = std::max(acc, load_int(x, base + i * a.inner));
                    break;
                case OpKind::REDUCE_MIN:
                    acc = max_s(t);
                    for (I64 i = 0; i < a.len; ++i) acc = std::min(acc, load_int(x, base + i * a.inner));
                    break;
                case OpKind::REDUCE_SUM:
                    for (I64 i = 0; i < a.len; ++i) acc = add_s(t, acc, load_int(x, base + i * a.inner));
                    break;
                default: unsupported(std::string(to_string(k)) + " has no " + to_string(t) + " form");
            }
            store_int(*y, o * a.inner + j, acc);
        }
    c.set(0, y);
}

}  // namespace kernels

}  // namespace nnef::tosa
