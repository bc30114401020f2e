// Element-wise operations (spec 4.2) and the element-wise compounds: unary, binary (with the
// broadcasting of 4.2.2), select, the simplifiers of 4.2.4, the activation functions of 4.9.1 and
// SPEC_NOTES 2, cast, copy_n and add_n (4.9.6).
#include "semantics/ops/common.hpp"

namespace nnef::sema::ops {

namespace ops_elementwise_cpp {

bool copy_n(ShapeContext& ctx) {
    Shape s;
    std::int64_t times = 0;
    if (!get_shape(ctx, "x", s) || !get_int(ctx, "times", times)) return false;
    if (times < 0) return fail(ctx, "'times' is " + std::to_string(times) + "; it must be non-negative");
    const std::size_t bound = ctx.result_count("y");
    if (bound != static_cast<std::uint64_t>(times))
        return fail(ctx, "the result 'y' is bound to " + std::to_string(bound) + " tensors but 'times' is " +
                             std::to_string(times));
    ctx.set_shapes("y", std::vector<Shape>(bound, s));
    return true;
}

bool add_n(ShapeContext& ctx) {
    std::vector<Shape> shapes;
    if (!get_shapes(ctx, "x", shapes)) return false;
    if (shapes.empty()) return fail(ctx, "'x' is empty; the sum of no tensors has no shape");
    std::vector<Operand> operands;
    for (std::size_t i = 0; i < shapes.size(); ++i) operands.push_back({"x[" + std::to_string(i) + "]", shapes[i]});
    Shape s;
    if (!broadcast(ctx, operands, s)) return false;
    ctx.set_shape("y", s);
    return true;
}

}  // namespace ops_elementwise_cpp

void add_elementwise_ops(OpRegistry& r) {
    using namespace ops_elementwise_cpp;
    // Unary primitives (4.2.1, tanh per SPEC_NOTES 1, trigonometric ones from SPEC_NOTES 2),
    // simplifiers (4.2.4) and activation compounds (4.9.1, SPEC_NOTES 2) with one tensor argument.
    for (const char* name :
         {"copy", "neg", "rcp", "exp", "log", "abs", "sign", "not", "floor", "ceil", "round", "tanh", "sin", "cos",
          "tan", "sinh", "cosh", "asin", "acos", "atan", "asinh", "acosh", "atanh", "sqr", "sqrt", "rsqr", "rsqrt",
          "log2", "sigmoid", "relu", "leaky_relu", "elu", "softplus", "selu", "gelu", "silu", "softabs"})
        r.add({name, same_shape_op("x", "y")});
    r.add({"cast", same_shape_op("input", "output")});
    // Binary primitives (4.2.2) and the binary simplifiers min/max (4.2.4).
    for (const char* name : {"add", "sub", "mul", "div", "pow", "lt", "gt", "le", "ge", "eq", "ne", "and", "or",
                             "min", "max"})
        r.add({name, broadcasting_op({"x", "y"}, "z")});
    r.add({"select", broadcasting_op({"condition", "true_value", "false_value"}, "output")});
    r.add({"clamp", broadcasting_op({"x", "a", "b"}, "y")});
    r.add({"prelu", broadcasting_op({"x", "alpha"}, "y")});
    r.add({"copy_n", copy_n});
    r.add({"add_n", add_n});
}

}  // namespace nnef::sema::ops
