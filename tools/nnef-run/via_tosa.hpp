// nnef-run --via tosa: the model lowered to TOSA 1.0.1 (lower_to_tosa, PRO-FP), or a TOSA graph read
// from an MLIR file, run by the TOSA interpreter (lowering/tosa/interpreter.hpp), with the
// executor's interface (engine.hpp).
//
// Inputs and outputs are the NNEF graph's (the lowered graph keeps NNEF's shapes and layout at its
// boundary). --dump finds a tensor by the names of the TOSA values (Value::name): a value with
// the NNEF shape, or one in channels-last layout (transposed back), or a reshaped one; a dumped
// tensor that the lowering folded away is an error that says so.
#pragma once
#include <memory>

#include <nnef/diagnostics.hpp>
#include <nnef/graph.hpp>

#include "exec/executor.hpp"
#include "lowering/tosa/from_nnef.hpp"
#include "lowering/tosa/ir.hpp"
#include "engine.hpp"

namespace nnef::run_engine {

// Lowers `g` with `lowering` (its profile and bias grid; errors: stage tosa diagnostics) and prepares
// the interpreter; null after an error. Uses the options' threads, random_weights, keep and keep_all. At PRO-INT a quantized
// graph's function takes and gives codes: the engine quantizes its inputs' reals on their
// graph.quant grids (as nnef-run's simulation does) and gives the reals of the output codes (and
// of kept tensors with an entry), so that every nnef-run option works alike.
std::unique_ptr<Engine<exec::TensorValue>> make_tosa_engine(const Graph& g, const exec::ExecOptions& options, Diagnostics& diags,
                                                            tosa::LowerOptions lowering = {});

// A TOSA graph read from MLIR (FILE.mlir), run with `interface` as its NNEF graph (interface_of):
// prepares the interpreter; null after an error. Uses the options' threads, keep and keep_all.
std::unique_ptr<Engine<exec::TensorValue>> make_tosa_engine(tosa::Graph graph, const Graph& interface, const exec::ExecOptions& options,
                                                            Diagnostics& diags);
// The NNEF graph a TOSA graph's main block stands for at its boundary: inputs and outputs named
// after their values, with their element kinds (scalar, integer, logical) and shapes.
Graph interface_of(const tosa::Graph& g);

}  // namespace nnef::run_engine
