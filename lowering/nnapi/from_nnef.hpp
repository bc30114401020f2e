// Export of a flattened NNEF graph (as loaded, with its weights) as an NNAPI 1.0 model
// (lowering/nnapi/model.hpp): each NNEF operation becomes the NNAPI 1.0 operations that compute
// it, or is refused with the reason (docs/nnapi.md, section "Export", has the table).
//
// Layout: NNEF's rank-4 tensors are NCHW, NNAPI's NHWC: every rank-4 activation is held NHWC
// (the model's rank-4 inputs and outputs too); filters become [O, H, W, I] (CONV_2D) and
// [1, H, W, C * multiplier] (DEPTHWISE_CONV_2D); biases fold in; relu, clamp(0, 6) and
// clamp(-1, 1) after an operation with an activation operand fuse into it. mean_reduce over the
// spatial axes becomes AVERAGE_POOL_2D. NNAPI 1.0 has no transpose, slice or pad: a channel
// permutation or channel slice of an activation (the channel shuffle of ShuffleNet) becomes a
// 1x1 CONV_2D whose filter selects channels; zero padding is the identity; a flatten of an NHWC
// tensor read by `linear` permutes the weights' columns instead of the data.
//
// Quantized graphs (graph.quant entries, zero_point_linear_quantize or integral-zero-point
// linear ones, 8 bits, per tensor) become TENSOR_QUANT8_ASYMM graphs: codes of signed entries are
// shifted by 128 (zeroPoint + 128), filters keep their stored codes (shifted), biases become
// TENSOR_INT32 at input_scale * filter_scale. Where NNEF rounds a tensor to a grid that differs
// from its input's (a relu, concat, max_pool, reshape whose entry differs), a 1x1
// DEPTHWISE_CONV_2D whose filter is the identity requantizes to that grid, so the exported model
// rounds where the NNEF model does.
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nnef/diagnostics.hpp>
#include <nnef/graph.hpp>

#include "lowering/nnapi/interpreter.hpp"
#include "lowering/nnapi/model.hpp"
#include "storage/quantization.hpp"

namespace nnef::nnapi {

struct ExportOptions {
    // Variables get the pseudo-random weights of `nnef-run --random-weights SEED`.
    std::optional<std::uint64_t> random_weights;
};

// How an NNAPI operand holds an NNEF tensor.
struct TensorBinding {
    std::string name;          // the NNEF tensor
    std::uint32_t operand = 0;  // the operand of the model
    bool nhwc = false;         // a rank-4 NNEF (NCHW) tensor held NHWC
    // Quantized: NNAPI code = NNEF code + offset (128 for signed 8-bit NNEF codes, else 0), real
    // = (code - zeroPoint) * scale with the operand's scale and zeroPoint.
    bool quantized = false;
    std::int32_t offset = 0;
};

struct Exported {
    Model model;
    std::vector<TensorBinding> inputs;   // inputs[i] holds model.inputIndexes[i], the NNEF graph's input i
    std::vector<TensorBinding> outputs;  // likewise for the outputs
    // Every NNEF tensor an operand holds as it is (not a constant, a pending channel selection or a
    // flatten with permuted columns): for nnef-run --dump.
    std::map<std::string, TensorBinding> tensors;
};

// The export; errors are stage nnapi diagnostics (code `unsupported-operation` names the NNEF
// operation, its source line and why NNAPI 1.0 cannot express it). Nothing after an error.
std::optional<Exported> export_model(const nnef::Graph& graph, const ExportOptions& options, Diagnostics& diags);

// getSupportedOperations for the NNEF graph: one entry per NNEF operation, in order, saying whether
// the export can express it (judged alone: the results of a refused operation count as inputs).
struct OperationSupport {
    std::size_t index = 0;  // in graph.operations
    std::string op;         // the operation name
    std::string result;     // its first result
    SourceRange range;
    bool supported = false;
    std::string why;  // unsupported: the reason (the message of the error export_model reports)
};
std::vector<OperationSupport> supported_operations(const nnef::Graph& graph, const ExportOptions& options);

// The values at the model's boundary (from_nnef_boundary.cpp): NNEF items (row-major, NCHW for rank
// 4, reals) as the value of the operand that holds them (NHWC; quantized: the codes of grid `p`, the
// tensor's graph.quant entry, shifted by the binding's offset), and back (quantized: the codes
// dequantized on `p`).
Tensor to_operand_value(const Model& model, const TensorBinding& b, const Shape& nnef_shape, const std::vector<double>& reals,
                        const storage::QuantParams* p);
std::vector<double> from_operand_value(const TensorBinding& b, const Shape& nnef_shape, const Tensor& value,
                                       const storage::QuantParams* p);

// The NNEF operations the export knows (sorted): for docs and the coverage test.
std::vector<std::string> exported_operations();

}  // namespace nnef::nnapi
