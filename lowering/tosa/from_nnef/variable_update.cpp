// Variable updates (NNEF spec 4.8): `update(variable, value)` writes the TOSA variable that the
// `variable` operation declared (tensor_intro.cpp: VARIABLE, then VARIABLE_READ where NNEF reads
// it, before any write, so reads see the value of the previous run as NNEF's cycle semantics say);
// its result is the new value.
#include "lowering/tosa/from_nnef/context.hpp"

namespace nnef::tosa::from_nnef {

namespace tosa_from_nnef_variable_update_cpp {

bool update(Context& c) {
    const nnef::Value& var = c.argument("variable");
    auto it = var.is_identifier() ? c.variable_labels.find(var.as_identifier()) : c.variable_labels.end();
    if (it == c.variable_labels.end()) return c.refuse("its first argument is not a variable");
    const ValueId value = c.input("value");
    c.graph().add_op(0, OpKind::VARIABLE_WRITE, {value}, {}, {{AttrName::name, it->second}}, c.origin());
    return c.bind("result", value);
}

}  // namespace tosa_from_nnef_variable_update_cpp

void add_variable_update(Registry& r) { r.push_back({"update", "variable_update", tosa_from_nnef_variable_update_cpp::update, {}}); }

}  // namespace nnef::tosa::from_nnef
