// What one operation's kernel sees while the interpreter runs (internal to lowering/nnapi): its
// input values, its output tensors (allocated with the dimensions the rules inferred) and a way to
// fail with the operation named.
#pragma once
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "lowering/nnapi/interpreter.hpp"

namespace nnef::nnapi::detail {

class Kernel {
public:
    Kernel(const Model& m, std::size_t index, std::vector<std::optional<Tensor>>& values, Diagnostics& diags)
        : m_(m), index_(index), op_(m.operations[index]), values_(values), diags_(diags) {}

    const Operation& op() const { return op_; }
    std::size_t inputs() const { return op_.inputs.size(); }
    bool has(std::size_t k) const { return values_[op_.inputs[k]].has_value(); }
    const Tensor& in(std::size_t k) const { return *values_[op_.inputs[k]]; }
    Tensor& out(std::size_t k) { return *values_[op_.outputs[k]]; }

    std::int32_t int_at(std::size_t k) const {
        std::int32_t v;
        std::memcpy(&v, in(k).data.data(), 4);
        return v;
    }
    float float_at(std::size_t k) const {
        float v;
        std::memcpy(&v, in(k).data.data(), 4);
        return v;
    }
    // The last input (the fused activation of most operations).
    std::int32_t activation() const { return int_at(inputs() - 1); }

    // Reports that the operation failed at run time (the HAL's "the operation must fail").
    bool fail(const std::string& message);

private:
    const Model& m_;
    std::size_t index_;
    const Operation& op_;
    std::vector<std::optional<Tensor>>& values_;
    Diagnostics& diags_;
};

template <class T>
const T* as(const Tensor& t) {
    return reinterpret_cast<const T*>(t.data.data());
}
template <class T>
T* as(Tensor& t) {
    return reinterpret_cast<T*>(t.data.data());
}

// The kernels: each returns false after reporting a failure.
bool run_window_operation(Kernel&);    // CONV_2D, DEPTHWISE_CONV_2D, *_POOL_2D (interpreter_window.cpp)
bool run_fully_connected(Kernel&);     // interpreter_window.cpp
bool run_elementwise_operation(Kernel&);  // ADD, MUL, activations, FLOOR, TANH, LOGISTIC, DEQUANTIZE (interpreter_elementwise.cpp)
bool run_tensor_operation(Kernel&);    // the others (interpreter_tensor.cpp)

}  // namespace nnef::nnapi::detail
