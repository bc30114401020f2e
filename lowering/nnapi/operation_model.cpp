#include "lowering/nnapi/operation_model.hpp"

#include <map>

#include <nnef/diagnostics.hpp>

#include "lowering/nnapi/op_rules.hpp"

namespace nnef::nnapi {

std::optional<Model> operation_model(const Model& m, std::size_t index, Diagnostics& diags) {
    if (index >= m.operations.size()) return std::nullopt;
    // the dimensions the rules infer up to this operation (temporaries may leave them unspecified)
    const detail::KnownValues known = detail::constant_values(m);
    std::vector<std::vector<std::uint32_t>> dims(m.operands.size());
    for (std::size_t i = 0; i < m.operands.size(); ++i) dims[i] = m.operands[i].dimensions;
    for (std::size_t k = 0; k <= index; ++k)
        if (!detail::check_operation(m, k, known, dims, diags)) return std::nullopt;

    const Operation& op = m.operations[index];
    Model s;
    std::map<std::uint32_t, std::uint32_t> copied;  // operand of m -> operand of s
    std::vector<std::uint32_t> inputs, outputs, model_inputs;
    for (std::uint32_t i : op.inputs) {
        const auto at = copied.find(i);
        if (at != copied.end()) {
            inputs.push_back(at->second);
            continue;
        }
        const Operand& o = m.operands.at(i);
        std::uint32_t n = 0;
        if (o.lifetime == OperandLifeTime::CONSTANT_COPY || o.lifetime == OperandLifeTime::CONSTANT_REFERENCE) {
            const auto bytes = constant_bytes(m, o);
            if (!bytes) return std::nullopt;  // the validator refuses such a model
            n = add_constant(s, o.type, o.dimensions, bytes->data(), bytes->size(), o.scale, o.zeroPoint);
        } else if (o.lifetime == OperandLifeTime::NO_VALUE) {
            n = add_operand(s, o.type, o.dimensions, o.scale, o.zeroPoint);
            s.operands[n].lifetime = OperandLifeTime::NO_VALUE;
        } else {
            n = add_operand(s, o.type, dims[i], o.scale, o.zeroPoint);
            model_inputs.push_back(n);
        }
        copied[i] = n;
        inputs.push_back(n);
    }
    if (model_inputs.empty()) return std::nullopt;
    for (std::uint32_t i : op.outputs) {
        const Operand& o = m.operands.at(i);
        outputs.push_back(add_operand(s, o.type, dims[i], o.scale, o.zeroPoint));
    }
    add_operation(s, op.type, inputs, outputs);
    set_inputs_and_outputs(s, model_inputs, outputs);
    return s;
}

}  // namespace nnef::nnapi
