// The state of one NNAPI -> TOSA lowering (internal to lowering/nnapi; to_tosa.hpp is the interface):
// the TOSA value of each operand, the builders the operations share, and the two families of
// operations: float32 (to_tosa.cpp) and TENSOR_QUANT8_ASYMM (to_tosa_quant.cpp).
//
// Quantized tensors are TOSA i8 codes: an NNAPI uint8 code c with zeroPoint z is the i8 code c - 128
// with zero point z - 128 (the same real value, scale unchanged). Graph inputs and outputs keep the
// uint8 codes (as i8 bits, RESCALE input_unsigned / output_unsigned converting).
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <nnef/diagnostics.hpp>

#include "lowering/nnapi/model.hpp"
#include "lowering/nnapi/op_rules.hpp"
#include "lowering/tosa/ir.hpp"

namespace nnef::nnapi::detail {

using tosa::AccType;
using tosa::AttrName;
using tosa::DType;
using tosa::NanMode;
using tosa::OpKind;
using tosa::TensorType;
using tosa::ValueId;
using Ints = std::vector<std::int64_t>;
using Attrs = std::vector<std::pair<tosa::AttrName, tosa::Attr>>;

// Whether an operand type is lowered (TENSOR_FLOAT32, TENSOR_QUANT8_ASYMM, TENSOR_INT32, scalars).
tosa::DType tosa_dtype_of(OperandType t);

// The padding of one spatial axis in TOSA's form (see fit_axis in to_tosa.cpp).
struct WindowPlan {
    tosa::ValueId x = tosa::no_value;  // the input, sliced where no window reads
    Ints pad, stride, kernel;          // [top, bottom, left, right], [y, x], [y, x]
    std::int32_t activation = 0;
};

class ToTosa {
public:
    ToTosa(const Model& m, tosa::Graph& g, Diagnostics& diags, bool uint8_io) : m_(m), g_(g), diags_(diags), uint8_io_(uint8_io) {}
    bool run();

    // ---- shared by the families ----
    const Model& m_;
    tosa::Graph& g_;
    Diagnostics& diags_;
    bool uint8_io_;  // ToTosaOptions::uint8_io
    std::vector<std::vector<std::uint32_t>> dims_;
    KnownValues known_;
    std::vector<tosa::ValueId> values_;
    std::size_t k_ = 0;  // the current operation
    std::uint32_t origin_ = tosa::no_origin;

    bool refuse(const std::string& why);
    const Operation& op() const { return m_.operations[k_]; }
    std::uint32_t in_operand(std::size_t p) const { return op().inputs[p]; }
    const Operand& in_quant(std::size_t p) const { return m_.operands[in_operand(p)]; }
    const Operand& out_quant(std::size_t p = 0) const { return m_.operands[op().outputs[p]]; }
    tosa::TensorType type_of(std::uint32_t operand) const;
    const tosa::TensorType& type(tosa::ValueId v) const { return g_.type(v); }

    tosa::ValueId add(tosa::OpKind kind, std::vector<tosa::ValueId> inputs, tosa::TensorType out, Attrs attrs = {});
    tosa::ValueId splat(tosa::DType dt, Shape shape, double v);
    tosa::ValueId zp(tosa::DType dt = tosa::DType::fp32, double v = 0.0) { return splat(dt, {1}, v); }
    tosa::ValueId no_shift() { return splat(tosa::DType::i8, {1}, 0.0); }
    tosa::ValueId reshape(tosa::ValueId v, const Shape& shape);
    tosa::ValueId transpose(tosa::ValueId v, const Ints& perms);
    tosa::ValueId extend_rank(tosa::ValueId v, std::size_t rank);
    tosa::ValueId clamp(tosa::ValueId v, tosa::Attr lo, tosa::Attr hi);
    // RESCALE (scale32, SINGLE_ROUND) of v by `scale` to `out` with the zero points; unsigned i8 in or out
    // for the graph's uint8 inputs and outputs. no_value after reporting a factor outside RESCALE's range.
    tosa::ValueId rescale(tosa::ValueId v, double scale, std::int64_t in_zp, std::int64_t out_zp, tosa::DType out,
                          bool input_unsigned = false, bool output_unsigned = false);

    // The value of a tensor operand: a graph input, an earlier result, or a constant (made once).
    tosa::ValueId value(std::uint32_t operand);
    tosa::ValueId in(std::size_t p) { return value(in_operand(p)); }
    std::int32_t int_scalar(std::size_t p) const { return known_.int32(in_operand(p)).value_or(0); }
    float float_scalar(std::size_t p) const { return known_.float32(in_operand(p)).value_or(0.0f); }
    // Binds the operation's output `p` to v, which must have the output's type.
    bool bind(tosa::ValueId v, std::size_t p = 0);

    // The window of CONV_2D, DEPTHWISE_CONV_2D and the pools, resolved for TOSA; false after refusing.
    bool plan_window(WindowPlan& plan);

    // ---- the families ----
    bool lower_float(const Operation& o);  // to_tosa.cpp
    bool lower_quant(const Operation& o);  // to_tosa_quant.cpp
    // Whether the quantized family lowers an operation of this type.
    static bool quant_lowers(OperationType t);

private:
    bool float_activation_ops(const Operation& o);
    bool binary(tosa::OpKind kind);
    bool window(OperationType t);
    bool fully_connected();
    bool concatenation();
    bool softmax();
    bool l2_normalization();
    bool space_depth(bool to_depth);
    tosa::ValueId activation(tosa::ValueId v, std::int32_t code);
    // quantized
    tosa::ValueId quant_activation(tosa::ValueId v, std::int32_t code, const Operand& out);
    tosa::ValueId requantize(tosa::ValueId v, const Operand& from, const Operand& to);
    bool quant_conv(OperationType t);
    tosa::ValueId quant_window_sum(const WindowPlan& plan);
    bool quant_pool(bool max);
    bool quant_add();
    bool quant_mul();
    bool quant_logistic();  // to_tosa_quant_tables.cpp
    bool quant_softmax();
};

}  // namespace nnef::nnapi::detail
