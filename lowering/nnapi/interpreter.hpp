// The NNAPI 1.0 reference interpreter: runs a valid Model on the CPU, every operation as the HAL 1.0
// text defines it, float32 in float and TENSOR_QUANT8_ASYMM with the 1.0 CPU reference's integer
// arithmetic (real multipliers as a 32-bit fixed-point multiplier and a shift, rounding to nearest,
// saturation to [0, 255]). docs/nnapi.md describes each operation's arithmetic.
#pragma once
#include <cstdint>
#include <optional>
#include <vector>

#include "lowering/nnapi/model.hpp"

namespace nnef {
class Diagnostics;
}  // namespace nnef

namespace nnef::nnapi {

// The value of one operand: its type, fully specified dimensions, quantization and bytes (host
// byte order, row-major over the dimensions, so NHWC for 4-D tensors).
struct Tensor {
    OperandType type = OperandType::TENSOR_FLOAT32;
    std::vector<std::uint32_t> dimensions;
    float scale = 0.0f;
    std::int32_t zeroPoint = 0;
    std::vector<std::uint8_t> data;

    std::uint64_t element_count() const;
};

// A float32 or quant8 tensor from values (for tests and tools).
Tensor make_float_tensor(std::vector<std::uint32_t> dimensions, const std::vector<float>& values);
Tensor make_quant8_tensor(std::vector<std::uint32_t> dimensions, const std::vector<std::uint8_t>& values, float scale,
                          std::int32_t zeroPoint);
// A value for the operand (its type, dimensions and quantization) whose every byte is `fill`;
// nothing when the operand's size is not known (unspecified dimensions, OEM).
std::optional<Tensor> filled_tensor(const Operand&, std::uint8_t fill);
// The elements as floats (TENSOR_QUANT8_ASYMM dequantized, INT32 converted).
std::vector<float> to_floats(const Tensor&);

// Runs the model: `inputs` are the values of Model.inputIndexes in order (their dimensions fill in
// the model's unspecified ones); returns the values of Model.outputIndexes in order. The model is
// validated first; an invalid model or input, or a value the HAL says makes an operation fail (an
// EMBEDDING_LOOKUP index out of range, for one), is reported (stage nnapi) and gives nothing.
std::optional<std::vector<Tensor>> run(const Model&, const std::vector<Tensor>& inputs, Diagnostics&);

// The HAL form: inputs are read from and outputs written to the request's pools. INVALID_ARGUMENT
// for a model or request that fails validation, OUTPUT_INSUFFICIENT_SIZE when an output location is
// shorter than the output, GENERAL_FAILURE when an operation fails at run time.
ErrorStatus execute(const Model&, Request&, Diagnostics&);

}  // namespace nnef::nnapi
