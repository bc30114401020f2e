// The quantization file graph.quant (spec 5.3, 7.1; SPEC_NOTES section 5): parsed with the
// front end's expression grammar, checked against the program's declarations and attached to the
// graph's tensors.
#pragma once
#include <cstdint>

#include <nnef/diagnostics.hpp>
#include <nnef/graph.hpp>
#include <nnef/options.hpp>
#include <nnef/source.hpp>
#include "semantics/checker.hpp"

namespace nnef::storage {

// Parses the quantization file registered as `file` in `sm` and checks every entry
//     "tensor-id": algorithm(name = value, ...);
// - the id names an exported tensor of the graph (an identifier assigned in the graph body, not a
//   variable label) that `graph.tensor(id)` finds; a tensor listed twice is an error;
// - the algorithm is a quantization fragment: `linear_quantize`, `logarithmic_quantize` and,
//   unless `options.strict`, `min_max_linear_quantize`, `zero_point_linear_quantize`; or a
//   fragment defined by the document whose first parameter is a tensor;
// - the first (tensor) parameter is not given; every other parameter is given by name (a
//   parameter with a default may be left out), no positional, unknown or repeated names;
// - each value is a compile-time expression (no tensor ids), evaluated here, whose type is
//   castable to the parameter's declared type (no integer -> scalar promotion).
// Syntax errors have stage `syntax`, the checks stage `semantic`, failing evaluations of
// well-typed expressions (division by zero, index out of range, overflow) stage `shape`; all are
// located in the quantization file. Only when no error was added is every listed tensor given
// its `quantization` (the algorithm and all its arguments but the tensor, in declaration order,
// defaults filled in); returns true then.
// `exported` (sema::Expansion::exported) tells which tensors the file may name; without it, the
// identifiers assigned in program.document's graph body are.
bool apply_quantization(Graph& graph, const sema::Program& program, const std::vector<bool>* exported,
                        const SourceManager& sm, std::uint32_t file, const Options& options, Diagnostics& diags);

}  // namespace nnef::storage
