// nnef-run --via nnapi: the model exported as an NNAPI 1.0 model (lowering/nnapi/from_nnef.hpp)
// and run by the NNAPI reference interpreter (lowering/nnapi/interpreter.hpp), with the executor's
// interface (engine.hpp).
//
// Inputs and outputs are the NNEF graph's: rank-4 tensors are transposed between NNEF's NCHW and
// the model's NHWC; a quantized model's inputs are quantized to their graph.quant entries (the codes
// shifted to NNAPI's unsigned ones) and its outputs' codes dequantized, so outputs are compared on
// their grids as nnef-run's simulated quantization is. --dump makes the dumped tensors extra model
// outputs; a tensor the export fused away (into an activation), or holds as a constant or a
// channel view, is an error that says so.
#pragma once
#include <memory>

#include <nnef/diagnostics.hpp>
#include <nnef/graph.hpp>

#include "exec/executor.hpp"
#include "engine.hpp"

namespace nnef::run_engine {

// Exports `g` (errors: stage nnapi diagnostics), validates the model and prepares the run; null
// after an error. Uses the options' random_weights, keep and keep_all.
std::unique_ptr<Engine<exec::TensorValue>> make_nnapi_engine(const Graph& g, const exec::ExecOptions& options, Diagnostics& diags);

}  // namespace nnef::run_engine
