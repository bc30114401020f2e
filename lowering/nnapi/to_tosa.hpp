// NNAPI 1.0 model -> TOSA IR (docs/nnapi.md, "To TOSA"): the lowering behind the driver's `vpu`
// device. Both are NHWC, so layouts map directly: CONV_2D filters [O,H,W,I] are TOSA's OHWI,
// DEPTHWISE_CONV_2D filters [1,H,W,C*M] reshape to TOSA's [H,W,C,M]; implicit padding schemes are
// resolved to explicit pads (trimmed, or the input sliced, so that TOSA's exact-division rule
// holds); fused activation codes become CLAMP; FULLY_CONNECTED a 1x1 CONV2D between reshapes.
// float32 models lower to PRO-FP graphs; TENSOR_QUANT8_ASYMM models to PRO-INT graphs of i8 codes (the
// uint8 code minus 128), their inputs and outputs uint8 codes held in i8 (to_tosa_quant.cpp).
#pragma once
#include <optional>

#include "lowering/nnapi/model.hpp"
#include "lowering/tosa/ir.hpp"

namespace nnef {
class Diagnostics;
}  // namespace nnef

namespace nnef::nnapi {

// Whether to_tosa lowers this operation (its type and its operands' types).
bool tosa_lowers(const Model&, const Operation&);

// Lowers a model: the graph's inputs and outputs are Model.inputIndexes and Model.outputIndexes in
// order (values named "operand N"). The model is validated first. An invalid model, a model input
// with unspecified dimensions, or an operation not lowered is reported (stage nnapi, code
// "to-tosa"; the message names the operation index and type) and gives nothing.
struct ToTosaOptions {
    // The graph's quantized inputs and outputs hold NNAPI's uint8 codes (as i8 bits, converted by
    // unsigned RESCALEs); false: the i8 codes c - 128 themselves (the caller converts; the vpu
    // device, whose compiler takes no unsigned RESCALE).
    bool uint8_io = true;
};
std::optional<tosa::Graph> to_tosa(const Model&, Diagnostics&, const ToTosaOptions& options = {});

}  // namespace nnef::nnapi
