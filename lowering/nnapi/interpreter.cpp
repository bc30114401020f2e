// The NNAPI 1.0 interpreter's driver loop (interpreter.hpp): validates the model, binds the inputs
// and constants, runs the operations in order (each one's rules checked again on the actual values,
// its outputs allocated with the inferred dimensions), and collects the outputs.
#include "lowering/nnapi/interpreter.hpp"

#include <cstring>
#include <new>
#include <stdexcept>

#include <nnef/diagnostics.hpp>

#include "lowering/nnapi/interpreter_ops.hpp"
#include "lowering/nnapi/op_rules.hpp"

namespace nnef::nnapi {

std::uint64_t Tensor::element_count() const {
    std::uint64_t n = 1;
    for (std::uint32_t d : dimensions) n *= d;
    return n;
}

Tensor make_float_tensor(std::vector<std::uint32_t> dimensions, const std::vector<float>& values) {
    Tensor t;
    t.type = OperandType::TENSOR_FLOAT32;
    t.dimensions = std::move(dimensions);
    t.data.resize(values.size() * 4);
    if (!values.empty()) std::memcpy(t.data.data(), values.data(), t.data.size());
    return t;
}

Tensor make_quant8_tensor(std::vector<std::uint32_t> dimensions, const std::vector<std::uint8_t>& values, float scale,
                          std::int32_t zeroPoint) {
    Tensor t;
    t.type = OperandType::TENSOR_QUANT8_ASYMM;
    t.dimensions = std::move(dimensions);
    t.scale = scale;
    t.zeroPoint = zeroPoint;
    t.data = values;
    return t;
}

namespace {
// A tensor with the operand's type, dimensions and quantization, and no data yet.
Tensor shell_of(const Operand& o) {
    Tensor t;
    t.type = o.type;
    t.dimensions = o.dimensions;
    t.scale = o.scale;
    t.zeroPoint = o.zeroPoint;
    return t;
}
}  // namespace

std::optional<Tensor> filled_tensor(const Operand& o, std::uint8_t fill) {
    auto size = byte_size(o);
    if (!size) return std::nullopt;
    Tensor t = shell_of(o);
    t.data.assign(std::size_t(*size), fill);
    return t;
}

std::vector<float> to_floats(const Tensor& t) {
    std::vector<float> out;
    switch (t.type) {
        case OperandType::TENSOR_FLOAT32:
        case OperandType::FLOAT32:
            out.resize(t.data.size() / 4);
            if (!out.empty()) std::memcpy(out.data(), t.data.data(), out.size() * 4);
            break;
        case OperandType::TENSOR_INT32:
        case OperandType::INT32:
            for (std::size_t i = 0; i + 4 <= t.data.size(); i += 4) {
                std::int32_t v;
                std::memcpy(&v, t.data.data() + i, 4);
                out.push_back(float(v));
            }
            break;
        case OperandType::TENSOR_QUANT8_ASYMM:
            for (std::uint8_t q : t.data) out.push_back(float(std::int32_t(q) - t.zeroPoint) * t.scale);
            break;
        default: break;
    }
    return out;
}

namespace detail {

bool Kernel::fail(const std::string& message) {
    report(diags_, m_, index_, "", "run-time", message);
    return false;
}

}  // namespace detail

namespace {

std::string dims_text(const std::vector<std::uint32_t>& d) {
    std::string s = "[";
    for (std::size_t i = 0; i < d.size(); ++i) s += (i ? "," : "") + std::to_string(d[i]);
    return s + "]";
}

void run_error(Diagnostics& diags, const std::string& message) {
    diags.error(Stage::nnapi, "nnapi-run", message);
}

// The value of operand `i` as the model gives it (a constant), or nothing.
std::optional<Tensor> constant_tensor(const Model& m, std::uint32_t i) {
    const Operand& o = m.operands[i];
    auto bytes = constant_bytes(m, o);
    if (!bytes) return std::nullopt;
    Tensor t = shell_of(o);
    t.data.assign(bytes->begin(), bytes->end());
    return t;
}

bool run_operation(detail::Kernel& k) {
    switch (k.op().type) {
        case OperationType::CONV_2D:
        case OperationType::DEPTHWISE_CONV_2D:
        case OperationType::AVERAGE_POOL_2D:
        case OperationType::L2_POOL_2D:
        case OperationType::MAX_POOL_2D: return detail::run_window_operation(k);
        case OperationType::FULLY_CONNECTED: return detail::run_fully_connected(k);
        case OperationType::ADD:
        case OperationType::MUL:
        case OperationType::RELU:
        case OperationType::RELU1:
        case OperationType::RELU6:
        case OperationType::FLOOR:
        case OperationType::TANH:
        case OperationType::LOGISTIC:
        case OperationType::DEQUANTIZE: return detail::run_elementwise_operation(k);
        default: return detail::run_tensor_operation(k);
    }
}

}  // namespace

namespace {
std::optional<std::vector<Tensor>> run_model(const Model& m, const std::vector<Tensor>& inputs, Diagnostics& diags);
}  // namespace

std::optional<std::vector<Tensor>> run(const Model& m, const std::vector<Tensor>& inputs, Diagnostics& diags) {
    try {
        return run_model(m, inputs, diags);
    } catch (const std::bad_alloc&) {
        run_error(diags, "out of memory for the values of the model");
    } catch (const std::length_error&) {
        run_error(diags, "a value of the model is too large to hold");
    }
    return std::nullopt;
}

namespace {

std::optional<std::vector<Tensor>> run_model(const Model& m, const std::vector<Tensor>& inputs, Diagnostics& diags) {
    if (!validate(m, diags)) return std::nullopt;
    if (inputs.size() != m.inputIndexes.size()) {
        run_error(diags, "the model has " + std::to_string(m.inputIndexes.size()) + " inputs; " +
                             std::to_string(inputs.size()) + " values were given");
        return std::nullopt;
    }
    std::vector<std::optional<Tensor>> values(m.operands.size());
    auto constant = [&m](std::uint32_t i) {
        const OperandLifeTime l = m.operands[i].lifetime;
        return l == OperandLifeTime::CONSTANT_COPY || l == OperandLifeTime::CONSTANT_REFERENCE;
    };
    // constants: the scalars at once (the rules read them); the tensors when an operation first
    // reads them, dropped after the last (a model's weights are not all copied out of its pool at once)
    for (std::uint32_t i = 0; i < m.operands.size(); ++i)
        if (constant(i) && m.operands[i].dimensions.empty()) values[i] = constant_tensor(m, i);
    bool inputs_ok = true;
    for (std::size_t k = 0; k < inputs.size(); ++k) {
        const Operand& o = m.operands[m.inputIndexes[k]];
        const Tensor& t = inputs[k];
        std::string name = "input " + std::to_string(k) + " (operand " + std::to_string(m.inputIndexes[k]) + ")";
        bool dims_ok = t.dimensions.size() == o.dimensions.size();
        for (std::size_t d = 0; dims_ok && d < t.dimensions.size(); ++d)
            dims_ok = t.dimensions[d] != 0 && (o.dimensions[d] == 0 || o.dimensions[d] == t.dimensions[d]);
        Operand actual = o;
        actual.dimensions = t.dimensions;
        auto size = byte_size(actual);
        if (t.type != o.type) {
            run_error(diags, name + " is " + to_string(t.type) + "; the model's operand is " + to_string(o.type));
        } else if (!dims_ok) {
            run_error(diags, name + " has dimensions " + dims_text(t.dimensions) + "; the model's operand has " +
                                 dims_text(o.dimensions) + " (0: unspecified)");
        } else if (!size || *size != t.data.size()) {
            run_error(diags, name + " has " + std::to_string(t.data.size()) + " bytes; " + dims_text(t.dimensions) + " " +
                                 to_string(t.type) + " needs " + std::to_string(size ? *size : 0));
        } else if (o.type == OperandType::TENSOR_QUANT8_ASYMM && (t.scale != o.scale || t.zeroPoint != o.zeroPoint)) {
            run_error(diags, name + " has another scale or zeroPoint than the model's operand");
        } else {
            values[m.inputIndexes[k]] = t;
            continue;
        }
        inputs_ok = false;
    }
    if (!inputs_ok) return std::nullopt;

    // The rules again, on the values: scalars and shapes of this execution.
    detail::KnownValues known;
    known.int32 = [&values](std::uint32_t i) -> std::optional<std::int32_t> {
        if (!values[i] || values[i]->type != OperandType::INT32 || values[i]->data.size() != 4) return std::nullopt;
        std::int32_t v;
        std::memcpy(&v, values[i]->data.data(), 4);
        return v;
    };
    known.float32 = [&values](std::uint32_t i) -> std::optional<float> {
        if (!values[i] || values[i]->type != OperandType::FLOAT32 || values[i]->data.size() != 4) return std::nullopt;
        float v;
        std::memcpy(&v, values[i]->data.data(), 4);
        return v;
    };
    known.int32_tensor = [&values](std::uint32_t i) -> std::optional<std::vector<std::int32_t>> {
        if (!values[i] || values[i]->type != OperandType::TENSOR_INT32) return std::nullopt;
        std::vector<std::int32_t> v(values[i]->data.size() / 4);
        if (!v.empty()) std::memcpy(v.data(), values[i]->data.data(), v.size() * 4);
        return v;
    };
    std::vector<std::vector<std::uint32_t>> dims(m.operands.size());
    for (std::size_t i = 0; i < m.operands.size(); ++i)
        dims[i] = values[i] ? values[i]->dimensions : m.operands[i].dimensions;

    // A temporary's value is dropped after its last reader.
    std::vector<std::size_t> last_read(m.operands.size(), 0);
    for (std::size_t k = 0; k < m.operations.size(); ++k)
        for (std::uint32_t i : m.operations[k].inputs) last_read[i] = k;

    for (std::size_t k = 0; k < m.operations.size(); ++k) {
        const Operation& op = m.operations[k];
        for (std::uint32_t i : op.inputs)
            if (i < m.operands.size() && !values[i] && constant(i)) values[i] = constant_tensor(m, i);
        if (!detail::check_operation(m, k, known, dims, diags)) return std::nullopt;
        for (std::size_t p = 0; p < op.outputs.size(); ++p) {
            std::uint32_t i = op.outputs[p];
            const Operand& o = m.operands[i];
            Tensor t = shell_of(o);
            t.dimensions = dims[i];
            Operand actual = o;
            actual.dimensions = dims[i];
            auto size = byte_size(actual);
            if (!size) {
                detail::report(diags, m, k, "output " + std::to_string(p), "run-time",
                               "its dimensions " + dims_text(dims[i]) + " are not known at run time");
                return std::nullopt;
            }
            t.data.assign(*size, 0);
            values[i] = std::move(t);
        }
        detail::Kernel kernel(m, k, values, diags);
        if (!run_operation(kernel)) return std::nullopt;
        for (std::uint32_t i : op.inputs)
            if (last_read[i] == k && (m.operands[i].lifetime == OperandLifeTime::TEMPORARY_VARIABLE || (constant(i) && !m.operands[i].dimensions.empty())))
                values[i].reset();
    }
    std::vector<Tensor> outputs;
    for (std::uint32_t i : m.outputIndexes) outputs.push_back(*values[i]);
    return outputs;
}

}  // namespace

ErrorStatus execute(const Model& m, Request& r, Diagnostics& diags) {
    return execute_request(
        m, r, [](const Model& model, const std::vector<Tensor>& in, Diagnostics& d) { return run(model, in, d); }, diags);
}

ErrorStatus execute_request(const Model& m, Request& r, const Runner& runner, Diagnostics& diags) {
    if (!validate(m, diags) || !validate_request(m, r, diags)) return ErrorStatus::INVALID_ARGUMENT;
    std::vector<Tensor> inputs;
    for (std::size_t k = 0; k < r.inputs.size(); ++k) {
        const RequestArgument& a = r.inputs[k];
        const Operand& o = m.operands[m.inputIndexes[k]];
        if (a.hasNoValue) {
            run_error(diags, "request input " + std::to_string(k) + " has no value; the model's inputs are not optional");
            return ErrorStatus::INVALID_ARGUMENT;
        }
        Tensor t = shell_of(o);
        if (!a.dimensions.empty()) t.dimensions = a.dimensions;
        const auto& pool = r.pools[a.location.poolIndex].data;
        t.data.assign(pool.begin() + a.location.offset, pool.begin() + a.location.offset + a.location.length);
        inputs.push_back(std::move(t));
    }
    auto outputs = runner(m, inputs, diags);
    if (!outputs) return ErrorStatus::GENERAL_FAILURE;
    for (std::size_t k = 0; k < outputs->size(); ++k) {
        const RequestArgument& a = r.outputs[k];
        const Tensor& t = (*outputs)[k];
        if (a.hasNoValue) continue;
        if (!a.dimensions.empty() && a.dimensions != t.dimensions) {
            run_error(diags, "request output " + std::to_string(k) + " has dimensions " + dims_text(a.dimensions) +
                                 "; the model computes " + dims_text(t.dimensions));
            return ErrorStatus::GENERAL_FAILURE;
        }
        if (a.location.length < t.data.size()) {
            run_error(diags, "request output " + std::to_string(k) + " has " + std::to_string(a.location.length) +
                                 " bytes; the output " + dims_text(t.dimensions) + " needs " + std::to_string(t.data.size()));
            return ErrorStatus::OUTPUT_INSUFFICIENT_SIZE;
        }
    }
    for (std::size_t k = 0; k < outputs->size(); ++k) {
        const RequestArgument& a = r.outputs[k];
        if (a.hasNoValue) continue;
        const Tensor& t = (*outputs)[k];
        std::copy(t.data.begin(), t.data.end(), r.pools[a.location.poolIndex].data.begin() + a.location.offset);
    }
    return ErrorStatus::NONE;
}

}  // namespace nnef::nnapi
