// The data nodes (spec 2.14: CONST, IDENTITY), CUSTOM (2.15) and CONST_SHAPE (2.18).
#include "lowering/tosa/ops/check.hpp"
#include "lowering/tosa/ops/kernel.hpp"
#include "lowering/tosa/ops/registry.hpp"

namespace nnef::tosa {

// ---- validation ----------------------------------------------------------------------------

namespace checks {

// The Supported Data Types and Compile Time Constant tables of the family.
void add_data_nodes_tables(Tables& t) {
    t.types.insert(t.types.end(), {
        {OpKind::CONST, "out_t=values=output", data_node_rows},
        {OpKind::IDENTITY, "in_out_t=input1=output", data_node_rows},
        {OpKind::CUSTOM, "", {{"PRO-INT or PRO-FP", ""}}},
        {OpKind::CONST_SHAPE, "shape_t=output", {{"PRO-INT or PRO-FP", ""}}},
    });
}

void check_const(OpCheck& c) {
    const ConstPtr& v = c.op_.get<ConstPtr>(AttrName::values);
    if (c.argument(v->data != nullptr || v->type.volume() == 0, "values holds the constant's items", "values has no data"))
        return;
    c.expect_shape(0, v->type.dtype, v->type.shape, "shape(output) != shape(values)");
}

void check_const_shape(OpCheck& c) {
    const auto& v = c.ints(AttrName::values);
    if (c.validating() && c.lv().max_log2_size < 63) {
        const I64 lim = I64(1) << c.lv().max_log2_size;
        for (I64 e : v)
            if (c.argument(e >= -lim && e < lim,
                           "tensor_size_t values are in [-(1 << MAX_LOG2_SIZE), (1 << MAX_LOG2_SIZE) - 1] (1.11.1)",
                           std::to_string(e) + " at level " + c.lv().name))
                return;
    }
    c.expect_shape(0, DType::shape, {static_cast<I64>(v.size())}, "output is shape_t<[length(values)]>");
}

void check_custom(OpCheck& c) {
    if (c.validating() &&
        (c.level(static_cast<I64>(c.n_in()), c.lv().max_tensor_list_size, "tensor_list_shape(input_list) <= MAX_TENSOR_LIST_SIZE") ||
         c.level(static_cast<I64>(c.op_.outputs.size()), c.lv().max_tensor_list_size,
                 "tensor_list_shape(output_list) <= MAX_TENSOR_LIST_SIZE")))
        return;
    c.outputs_free = true;
}

}  // namespace checks

// ---- interpreter kernels ---------------------------------------------------------------------

namespace kernels {

void op_const(Ctx& c) {
    const ConstPtr& v = c.attr<ConstPtr>(AttrName::values);
    if (!v) unsupported("CONST has no values");
    c.set(0, v);
}

void op_const_shape(Ctx& c) {
    const std::vector<I64>& v = c.attr<std::vector<I64>>(AttrName::values);
    auto y = c.alloc(0);
    error_if(y->type.dtype != DType::shape || y->type.rank() != 1, "the output is not a shape_t value");
    error_if(static_cast<I64>(v.size()) != y->type.volume(), "length(values) != the rank of the shape value");
    for (std::size_t i = 0; i < v.size(); ++i) y->mutable_items<I64>()[i] = v[i];
    c.set(0, y);
}

void op_identity(Ctx& c) {
    const ConstPtr& x = c.in_ptr(0);
    error_if(x->type != c.out_type(0), "the output type differs from the input's");
    c.set(0, x);
}

void op_custom(Ctx& c) {
    throw Failure{"custom-op", "CUSTOM operator '" + c.attr<std::string>(AttrName::operator_name) + "' (domain '" +
                                   c.attr<std::string>(AttrName::domain_name) + "') has no implementation in the interpreter"};
}

}  // namespace kernels

}  // namespace nnef::tosa
