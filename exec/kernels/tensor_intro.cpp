// Tensor-introducing operations (spec 4.1: external, constant, variable) and variable updates
// (4.8: update). The executor holds the fed inputs and the variables' values.
#include "exec/common.hpp"

namespace nnef::NNEF_EXEC_NS {

namespace exec_tensor_intro_cpp {

// external and variable: the value the executor holds for the tensor.
bool introduced(KernelContext& ctx) {
    const TensorValue* v = ctx.introduced_value();
    if (!v) return ctx.error("no value for the introduced tensor");
    ctx.set_output("output", *v);
    return true;
}

// output is filled with `value` in row-major order; a single value is repeated.
bool constant(KernelContext& ctx) {
    TensorValue out = ctx.make_output("output");
    const Value& value = ctx.attr("value");
    const std::int64_t n = out.volume();
    if (!value.is_list() || value.size() == 0) return ctx.error("'value' is not a non-empty array");
    const auto count = static_cast<std::int64_t>(value.size());
    if (count != 1 && count != n)
        return ctx.error("'value' has " + std::to_string(count) + " items for " + std::to_string(n) + " tensor items");
    dispatch(out.dtype(), [&](auto tag) {
        using T = decltype(tag);
        T* d = out.data<T>();
        for (std::int64_t i = 0; i < n; ++i) {
            const Value& item = value[static_cast<std::size_t>(count == 1 ? 0 : i)];
            if (item.is_scalar()) d[i] = static_cast<T>(item.as_scalar());
            else if (item.is_integer()) d[i] = static_cast<T>(item.as_integer());
            else if (item.is_logical()) d[i] = static_cast<T>(item.as_logical());
        }
    });
    ctx.set_output("output", std::move(out));
    return true;
}

// The variable keeps its value for this cycle; the executor replaces it after the cycle.
bool update(KernelContext& ctx) {
    const Value* variable = ctx.op().input("variable");
    if (!variable || !variable->is_identifier()) return ctx.error("'variable' is not a variable tensor");
    const TensorValue& value = ctx.input("value", ctx.output_dtype("result"));
    TensorValue result = value;
    if (result.shape() != ctx.output_shape("result")) result = result.reshaped(ctx.output_shape("result"));
    if (!ctx.schedule_update(variable->as_identifier(), result)) return false;
    ctx.set_output("result", std::move(result));
    return true;
}

}  // namespace exec_tensor_intro_cpp

void add_tensor_intro_kernels(KernelRegistry& r) {
    using namespace exec_tensor_intro_cpp;
    r.add("external", introduced);
    r.add("variable", introduced);
    r.add("constant", constant);
    r.add("update", update);
}

}  // namespace nnef::NNEF_EXEC_NS
