// Variable updates (spec 4.8). The graph-level rules (at most one update per variable, labels
// shared case-insensitively) belong to the expander; this checks one update on its own.
#include "semantics/ops/common.hpp"

namespace nnef::sema::ops {

namespace ops_variable_update_cpp {

bool update(ShapeContext& ctx) {
    Shape variable, value;
    if (!get_shape(ctx, "variable", variable) || !get_shape(ctx, "value", value)) return false;
    const Value& arg = ctx.input("variable");
    const std::string_view producer = ctx.producer(arg);
    if (producer != "variable") {
        std::string what = !arg.is_identifier() ? "a literal"
                           : !producer.empty()  ? "the result of '" + std::string(producer) + "'"
                                                : "not produced by an operation";
        return fail(ctx, "'variable' " + (arg.is_identifier() ? q(arg.as_identifier()) + " " : std::string()) +
                             "is " + what + "; only tensors introduced by 'variable' can be updated");
    }
    if (value != variable)
        return fail(ctx, "the shape of 'value' " + to_string(value) + " must equal the shape of 'variable' " +
                             to_string(variable) + " (no broadcasting)");
    ctx.set_shape("result", variable);
    return true;
}

}  // namespace ops_variable_update_cpp

void add_variable_update_ops(OpRegistry& r) { r.add({"update", ops_variable_update_cpp::update}); }

}  // namespace nnef::sema::ops
