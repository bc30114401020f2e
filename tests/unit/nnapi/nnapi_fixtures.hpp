// Small hand-built NNAPI 1.0 models for the tests of lowering/nnapi, and helpers to read their
// diagnostics.
#pragma once
#include <doctest/doctest.h>

#include <cstring>
#include <string>
#include <vector>

#include <nnef/diagnostics.hpp>

#include "lowering/nnapi/interpreter.hpp"
#include "lowering/nnapi/model.hpp"

namespace nnapi_test {

using namespace nnef::nnapi;
constexpr OperandType F32 = OperandType::TENSOR_FLOAT32;
constexpr OperandType Q8 = OperandType::TENSOR_QUANT8_ASYMM;
constexpr OperandType I32T = OperandType::TENSOR_INT32;

inline std::uint32_t float_constant(Model& m, std::vector<std::uint32_t> dims, const std::vector<float>& v) {
    return add_constant(m, F32, std::move(dims), v.data(), v.size() * 4);
}
inline std::uint32_t int_constant(Model& m, std::vector<std::uint32_t> dims, const std::vector<std::int32_t>& v,
                                  float scale = 0.0f) {
    return add_constant(m, I32T, std::move(dims), v.data(), v.size() * 4, scale);
}
inline std::uint32_t quant_constant(Model& m, std::vector<std::uint32_t> dims, const std::vector<std::uint8_t>& v, float scale,
                                    std::int32_t zeroPoint) {
    return add_constant(m, Q8, std::move(dims), v.data(), v.size(), scale, zeroPoint);
}

// CONV_2D, implicit padding VALID, stride 1: input [1,3,3,2] -> output [1,2,2,2] (operands: 0 input,
// 1 filter, 2 bias, 3 padding scheme, 4 and 5 strides, 6 activation, 7 output). Quantized: input
// scale 0.5 zeroPoint 128, filter 0.25 / 128, bias scale 0.125, output 1.0 / 100.
inline Model conv_model(bool quant) {
    Model m;
    OperandType t = quant ? Q8 : F32;
    std::uint32_t in = add_operand(m, t, {1, 3, 3, 2}, quant ? 0.5f : 0.0f, quant ? 128 : 0);
    std::uint32_t filter, bias;
    if (quant) {
        filter = quant_constant(m, {2, 2, 2, 2}, std::vector<std::uint8_t>(16, 130), 0.25f, 128);
        bias = int_constant(m, {2}, {4, -4}, 0.125f);
    } else {
        filter = float_constant(m, {2, 2, 2, 2}, std::vector<float>(16, 0.5f));
        bias = float_constant(m, {2}, {1.0f, -1.0f});
    }
    std::uint32_t scheme = add_int32_scalar(m, 2);
    std::uint32_t sw = add_int32_scalar(m, 1);
    std::uint32_t sh = add_int32_scalar(m, 1);
    std::uint32_t act = add_int32_scalar(m, 0);
    std::uint32_t out = add_operand(m, t, {1, 2, 2, 2}, quant ? 1.0f : 0.0f, quant ? 100 : 0);
    add_operation(m, OperationType::CONV_2D, {in, filter, bias, scheme, sw, sh, act}, {out});
    set_inputs_and_outputs(m, {in}, {out});
    return m;
}

// input [1,2,2,1] -> RELU -> temporary -> ADD (with a constant) -> output (operands 0 input,
// 1 temporary, 2 constant, 3 activation, 4 output).
inline Model chain_model() {
    Model m;
    std::uint32_t in = add_operand(m, F32, {1, 2, 2, 1});
    std::uint32_t mid = add_operand(m, F32, {1, 2, 2, 1});
    std::uint32_t c = float_constant(m, {1}, {1.0f});
    std::uint32_t act = add_int32_scalar(m, 0);
    std::uint32_t out = add_operand(m, F32, {1, 2, 2, 1});
    add_operation(m, OperationType::RELU, {in}, {mid});
    add_operation(m, OperationType::ADD, {mid, c, act}, {out});
    set_inputs_and_outputs(m, {in}, {out});
    return m;
}

// The messages of the errors validate() reports.
inline std::vector<std::string> validation_errors(const Model& m) {
    nnef::Diagnostics d(100);
    validate(m, d);
    std::vector<std::string> out;
    for (const auto& e : d)
        if (e.severity == nnef::Severity::error) out.push_back(e.message);
    return out;
}

inline bool has_message(const std::vector<std::string>& messages, const std::string& part) {
    for (const auto& m : messages)
        if (m.find(part) != std::string::npos) return true;
    return false;
}

inline std::string joined(const std::vector<std::string>& messages) {
    std::string s;
    for (const auto& m : messages) s += m + "\n";
    return s;
}

// Sets the INT32 scalar constant operand `index` to `value`.
inline void set_int32(Model& m, std::uint32_t index, std::int32_t value) {
    const Operand& o = m.operands[index];
    std::memcpy(m.operandValues.data() + o.location.offset, &value, 4);
}

}  // namespace nnapi_test
