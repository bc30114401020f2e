// The comparison operators (spec 2.8): EQUAL, GREATER, GREATER_EQUAL (their validation is
// check_binary, ops/elementwise_binary.cpp).
#include "lowering/tosa/ops/check.hpp"
#include "lowering/tosa/ops/kernel.hpp"
#include "lowering/tosa/ops/registry.hpp"

namespace nnef::tosa {

// ---- validation ----------------------------------------------------------------------------

namespace checks {

// The Supported Data Types and Compile Time Constant tables of the family.
void add_comparison_tables(Tables& t) {
    t.types.insert(t.types.end(), {
        {OpKind::EQUAL, "in_t=input1=input2 out_t=output", compare_rows},
        {OpKind::GREATER, "in_t=input1=input2 out_t=output", compare_rows},
        {OpKind::GREATER_EQUAL, "in_t=input1=input2 out_t=output", compare_rows},
    });
}

}  // namespace checks

// ---- interpreter kernels ---------------------------------------------------------------------

namespace kernels {

void op_compare(Ctx& c) {
    const ConstData& x1 = c.in(0);
    const ConstData& x2 = c.in(1);
    const TensorType& out = binary_shapes(c);
    error_if(out.dtype != DType::bool_, "output is not bool_t");
    const OpKind k = c.op.kind;
    auto y = c.alloc(0);
    auto* o = y->mutable_items<std::uint8_t>();
    auto cmp = [k](auto a, auto b) -> bool {
        return k == OpKind::EQUAL ? a == b : k == OpKind::GREATER ? a > b : a >= b;  // false for a NaN
    };
    if (is_float(x1.type.dtype)) {
        const Floats<double> a = floats<double>(x1), b = floats<double>(x2);
        for_each_broadcast<2>(out.shape, {&x1.type.shape, &x2.type.shape},
                              [&](I64 i, const std::array<I64, 2>& j) { o[i] = cmp(a.p[j[0]], b.p[j[1]]); });
    } else {
        for_each_broadcast<2>(out.shape, {&x1.type.shape, &x2.type.shape},
                              [&](I64 i, const std::array<I64, 2>& j) { o[i] = cmp(load_int(x1, j[0]), load_int(x2, j[1])); });
    }
    c.set(0, y);
}

}  // namespace kernels

}  // namespace nnef::tosa
