// The model of one operation of a model (for asking a device about each operation alone, as
// getSupportedOperations does): the operation with its constant inputs copied, its other inputs
// MODEL_INPUTs and its outputs MODEL_OUTPUTs, every dimension as the validator's shape rules infer
// it in the whole model.
#pragma once
#include <cstddef>
#include <optional>

#include "lowering/nnapi/model.hpp"

namespace nnef {
class Diagnostics;
}  // namespace nnef

namespace nnef::nnapi {

// Operation `index` of a valid model alone. Nothing (and errors in `diags`) when a rule fails on
// the way, and nothing without an error when the operation reads no non-constant operand (a model
// needs an input).
std::optional<Model> operation_model(const Model&, std::size_t index, Diagnostics&);

}  // namespace nnef::nnapi
