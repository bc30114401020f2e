// The elementwise ternary operator (spec 2.7): SELECT.
#include "lowering/tosa/ops/check.hpp"
#include "lowering/tosa/ops/kernel.hpp"
#include "lowering/tosa/ops/registry.hpp"

namespace nnef::tosa {

// ---- validation ----------------------------------------------------------------------------

namespace checks {

// The Supported Data Types and Compile Time Constant tables of the family.
void add_elementwise_ternary_tables(Tables& t) {
    t.types.insert(t.types.end(), {
        {OpKind::SELECT, "bool_t=input1 in_out_t=input2=input3=output",
         {{"PRO-FP", "fp16"}, {"PRO-FP", "fp32"}, {"PRO-INT or PRO-FP", "bool"}, {"PRO-INT", "i16"},
          {"PRO-INT", "i32"}, {"PRO-INT", "i8"}, {"EXT-BF16", "bf16"}}},
    });
}

void check_select(OpCheck& c) {
    Shape s = c.ish(0);
    if (c.broadcast(s, c.ish(1), "input2") || c.broadcast(s, c.ish(2), "input3")) return;
    c.expect_shape(0, c.idt(1), s, "shape != broadcast_shape(broadcast_shape(shape1, shape2), shape3)");
}

}  // namespace checks

// ---- interpreter kernels ---------------------------------------------------------------------

namespace kernels {

void op_select(Ctx& c) {
    const ConstData& cond = c.in(0);
    const ConstData& a = c.in(1);
    const ConstData& b = c.in(2);
    const TensorType& out = c.out_type(0);
    error_if(cond.type.dtype != DType::bool_, "input1 is not bool_t");
    error_if(a.type.dtype != out.dtype || b.type.dtype != out.dtype, "input2, input3 and output types differ");
    auto y = c.alloc(0);
    const std::size_t bytes = storage_bytes(out.dtype);
    const auto* pc = cond.items<std::uint8_t>();
    const auto* pa = static_cast<const std::uint8_t*>(a.data);
    const auto* pb = static_cast<const std::uint8_t*>(b.data);
    auto* dst = static_cast<std::uint8_t*>(const_cast<void*>(y->data));
    for_each_broadcast<3>(out.shape, {&cond.type.shape, &a.type.shape, &b.type.shape}, [&](I64 o, const std::array<I64, 3>& i) {
        std::memcpy(dst + o * bytes, pc[i[0]] ? pa + i[1] * bytes : pb + i[2] * bytes, bytes);
    });
    c.set(0, y);
}

}  // namespace kernels

}  // namespace nnef::tosa
