// The checking context of one operation (internal to op_rules*.cpp): reports with the operation and
// operand named, typed accessors for the operands, the common HAL rules (types, scalars, ranks,
// quantization) and the recording of inferred output dimensions.
#pragma once
#include <algorithm>
#include <cmath>
#include <sstream>
#include <string>
#include <vector>

#include "lowering/nnapi/op_rules.hpp"

namespace nnef::nnapi::detail::check {

using Dims = std::vector<std::uint32_t>;
constexpr OperandType F32 = OperandType::TENSOR_FLOAT32;
constexpr OperandType Q8 = OperandType::TENSOR_QUANT8_ASYMM;
constexpr OperandType I32T = OperandType::TENSOR_INT32;

inline std::string dims_text(const Dims& d) {
    std::string s = "[";
    for (std::size_t i = 0; i < d.size(); ++i) s += (i ? "," : "") + std::to_string(d[i]);
    return s + "]";
}

inline bool fully_known(const Dims& d) {
    return std::all_of(d.begin(), d.end(), [](std::uint32_t x) { return x != 0; });
}

class Check {
public:
    Check(const Model& m, std::size_t index, const KnownValues& kv, std::vector<Dims>& dims, Diagnostics& diags)
        : m_(m), index_(index), op_(m.operations[index]), kv_(kv), dims_(dims), diags_(diags) {}

    const Operation& op() const { return op_; }
    bool ok() const { return ok_; }
    std::size_t inputs() const { return op_.inputs.size(); }

    void fail(const std::string& position, const std::string& rule, const std::string& message) {
        report(diags_, m_, index_, position, rule, message);
        ok_ = false;
    }
    static std::string in_pos(std::size_t k) { return "input " + std::to_string(k); }
    static std::string out_pos(std::size_t k) { return "output " + std::to_string(k); }

    const Operand& in(std::size_t k) const { return m_.operands[op_.inputs[k]]; }
    const Operand& out(std::size_t k) const { return m_.operands[op_.outputs[k]]; }
    const Dims& in_dims(std::size_t k) const { return dims_[op_.inputs[k]]; }
    bool absent(std::size_t k) const { return in(k).lifetime == OperandLifeTime::NO_VALUE; }

    // The operand counts; on a mismatch nothing else of the operation is checked.
    bool counts(std::initializer_list<std::size_t> allowed_inputs, std::size_t outputs) {
        bool in_ok = std::find(allowed_inputs.begin(), allowed_inputs.end(), op_.inputs.size()) != allowed_inputs.end();
        if (!in_ok) {
            std::string expected;
            for (std::size_t n : allowed_inputs) expected += (expected.empty() ? "" : " or ") + std::to_string(n);
            fail("", "operand-count",
                 "has " + std::to_string(op_.inputs.size()) + " inputs; " + to_string(op_.type) + " takes " + expected);
        }
        if (op_.outputs.size() != outputs)
            fail("", "operand-count",
                 "has " + std::to_string(op_.outputs.size()) + " outputs; " + to_string(op_.type) + " gives " +
                     std::to_string(outputs));
        return in_ok && op_.outputs.size() == outputs;
    }
    void optional_input(std::size_t k) { optional_.push_back(k); }
    // Inputs that have no value where the operation requires one.
    void check_no_value() {
        for (std::size_t k = 0; k < op_.inputs.size(); ++k)
            if (absent(k) && std::find(optional_.begin(), optional_.end(), k) == optional_.end())
                fail(in_pos(k), "no-value", std::string("has lifetime NO_VALUE, but this input of ") + to_string(op_.type) +
                                                " is not optional");
    }

    bool type_of(const std::string& position, const Operand& o, std::initializer_list<OperandType> allowed) {
        if (std::find(allowed.begin(), allowed.end(), o.type) != allowed.end()) return true;
        std::string list;
        for (OperandType t : allowed) list += (list.empty() ? "" : ", ") + std::string(to_string(t));
        fail(position, "operand-type", std::string("is ") + to_string(o.type) + "; expected " + list);
        return false;
    }
    bool in_type(std::size_t k, std::initializer_list<OperandType> allowed) { return type_of(in_pos(k), in(k), allowed); }
    bool out_type(std::size_t k, std::initializer_list<OperandType> allowed) { return type_of(out_pos(k), out(k), allowed); }
    void same_type(std::size_t k, OperandType t, const std::string& what) {
        if (in(k).type != t)
            fail(in_pos(k), "operand-type",
                 std::string("is ") + to_string(in(k).type) + "; it must be " + to_string(t) + " (" + what + ")");
    }
    void out_same_type(std::size_t k, OperandType t) {
        if (out(k).type != t)
            fail(out_pos(k), "operand-type",
                 std::string("is ") + to_string(out(k).type) + "; it must be " + to_string(t) + " like input 0");
    }

    std::optional<std::int32_t> int_value(std::size_t k) const {
        return kv_.int32 ? kv_.int32(op_.inputs[k]) : std::nullopt;
    }
    std::optional<float> float_value(std::size_t k) const {
        return kv_.float32 ? kv_.float32(op_.inputs[k]) : std::nullopt;
    }
    std::optional<std::vector<std::int32_t>> int_tensor_value(std::size_t k) const {
        return kv_.int32_tensor ? kv_.int32_tensor(op_.inputs[k]) : std::nullopt;
    }

    // An INT32 scalar input; its value when known.
    std::optional<std::int32_t> int_scalar(std::size_t k, const char* what) {
        if (in(k).type != OperandType::INT32) {
            fail(in_pos(k), "scalar-type", std::string("is ") + to_string(in(k).type) + "; the " + what + " must be INT32");
            return std::nullopt;
        }
        return int_value(k);
    }
    std::optional<float> float_scalar(std::size_t k, const char* what) {
        if (in(k).type != OperandType::FLOAT32) {
            fail(in_pos(k), "scalar-type", std::string("is ") + to_string(in(k).type) + "; the " + what + " must be FLOAT32");
            return std::nullopt;
        }
        return float_value(k);
    }
    void at_least(std::size_t k, std::optional<std::int32_t> v, std::int32_t min, const char* rule, const char* what) {
        if (v && *v < min)
            fail(in_pos(k), rule, std::string("the ") + what + " is " + std::to_string(*v) + "; it must be >= " +
                                      std::to_string(min));
    }
    void activation(std::size_t k) {
        auto v = int_scalar(k, "fused activation");
        if (v && (*v < 0 || *v > 3))
            fail(in_pos(k), "fused-activation",
                 "the fused activation is " + std::to_string(*v) + "; it must be a FusedActivationFunc value (0 NONE, 1 RELU, "
                                                                   "2 RELU1, 3 RELU6)");
    }

    void rank(std::size_t k, std::size_t r) {
        if (in_dims(k).size() != r)
            fail(in_pos(k), "rank", "has rank " + std::to_string(in_dims(k).size()) + "; " + to_string(op_.type) +
                                        " needs rank " + std::to_string(r) + (r == 4 ? " (NHWC)" : ""));
    }
    void rank_between(std::size_t k, std::size_t lo, std::size_t hi) {
        std::size_t r = in_dims(k).size();
        if (r < lo || r > hi)
            fail(in_pos(k), "rank", "has rank " + std::to_string(r) + "; " + to_string(op_.type) + " supports rank " +
                                        std::to_string(lo) + " to " + std::to_string(hi));
    }

    // The output has the scale and zeroPoint of input k (TENSOR_QUANT8_ASYMM only).
    void same_quantization(std::size_t out_k, std::size_t in_k) {
        const Operand& o = out(out_k);
        const Operand& i = in(in_k);
        if (o.type != Q8 || i.type != Q8) return;
        if (o.scale != i.scale || o.zeroPoint != i.zeroPoint) {
            std::ostringstream s;
            s << "has scale " << o.scale << " and zeroPoint " << o.zeroPoint << "; they must be input " << in_k << "'s, "
              << i.scale << " and " << i.zeroPoint;
            fail(out_pos(out_k), "output-quantization", s.str());
        }
    }
    void fixed_quantization(std::size_t out_k) {
        const Operand& o = out(out_k);
        if (o.type == Q8 && (o.scale != 1.0f / 256 || o.zeroPoint != 0)) {
            std::ostringstream s;
            s << "has scale " << o.scale << " and zeroPoint " << o.zeroPoint << "; " << to_string(op_.type)
              << " needs scale 1/256 and zeroPoint 0";
            fail(out_pos(out_k), "output-quantization", s.str());
        }
    }
    // output_scale > product (CONV_2D, DEPTHWISE_CONV_2D, FULLY_CONNECTED, MUL).
    void output_scale_above(std::size_t out_k, double product, const char* what) {
        const Operand& o = out(out_k);
        if (o.type == Q8 && !(double(o.scale) > product)) {
            std::ostringstream s;
            s << "has scale " << o.scale << "; it must be > " << what << " = " << product;
            fail(out_pos(out_k), "output-scale", s.str());
        }
    }
    // The bias of CONV_2D, DEPTHWISE_CONV_2D and FULLY_CONNECTED (input 2).
    void bias(std::size_t k) {
        const Operand& input = in(0);
        const Operand& filter = in(1);
        const Operand& b = in(k);
        if (input.type == F32) {
            same_type(k, F32, "the bias of a TENSOR_FLOAT32 input");
            return;
        }
        if (b.type != I32T) {
            fail(in_pos(k), "bias-type", std::string("is ") + to_string(b.type) +
                                             "; the bias of a TENSOR_QUANT8_ASYMM operation must be TENSOR_INT32");
            return;
        }
        if (b.zeroPoint != 0)
            fail(in_pos(k), "bias-zero-point", "has zeroPoint " + std::to_string(b.zeroPoint) + "; it must be 0");
        double product = double(input.scale) * double(filter.scale);
        // The product is formed in float by most writers; the 1.0 reference compares with a relative
        // tolerance of 1e-6 for that reason.
        if (std::fabs(double(b.scale) - product) > 1e-6 * std::min(double(b.scale), product) || b.scale <= 0) {
            std::ostringstream s;
            s << "has scale " << b.scale << "; it must be input_scale * filter_scale = " << input.scale << " * " << filter.scale
              << " = " << product;
            fail(in_pos(k), "bias-scale", s.str());
        }
    }

    // Records the inferred dimensions of output k; a specified entry that differs is an error.
    void set_output(std::size_t k, const Dims& inferred) {
        Dims& d = dims_[op_.outputs[k]];
        const Operand& o = out(k);
        if (o.dimensions.size() != inferred.size()) {
            fail(out_pos(k), "output-shape", "has rank " + std::to_string(o.dimensions.size()) + "; " + to_string(op_.type) +
                                                 " gives " + dims_text(inferred));
            return;
        }
        for (std::size_t i = 0; i < inferred.size(); ++i) {
            if (d[i] != 0 && inferred[i] != 0 && d[i] != inferred[i]) {
                fail(out_pos(k), "output-shape",
                     "has dimensions " + dims_text(d) + "; " + to_string(op_.type) + " gives " + dims_text(inferred));
                return;
            }
        }
        for (std::size_t i = 0; i < inferred.size(); ++i)
            if (inferred[i] != 0) d[i] = inferred[i];
    }

private:
    const Model& m_;
    std::size_t index_;
    const Operation& op_;
    const KnownValues& kv_;
    std::vector<Dims>& dims_;
    Diagnostics& diags_;
    std::vector<std::size_t> optional_;
    bool ok_ = true;
};

// EMBEDDING_LOOKUP, HASHTABLE_LOOKUP, LSH_PROJECTION, LSTM, RNN, SVDF (op_rules_sequence.cpp).
void sequence_operation(Check&);

}  // namespace nnef::nnapi::detail::check
