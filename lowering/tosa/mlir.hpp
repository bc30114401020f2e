// MLIR `tosa` dialect text of a TOSA graph (the interchange format): a module with one public
// `func.func` named after the graph, whose arguments and results are the main block's inputs and
// outputs in order. Written for MLIR 22's TOSA dialect (specification version 1.0): every TOSA
// operator in MLIR's generic form (`"tosa.conv2d"(%a, ...) <{pad = array<i64: ...>, ...}> : (...)
// -> ...`), which its parser reads for every operator alike; COND_IF / WHILE_LOOP bodies as
// regions ending in `tosa.yield`; VARIABLE as module-level `tosa.variable` symbols. Each operator
// carries the location of the NNEF operation it came from when the graph's origins and a
// SourceManager are given. docs/tosa.md describes the output and the MLIR 22 workarounds.
#pragma once
#include <cstddef>
#include <iosfwd>
#include <string>
#include <vector>

#include "lowering/tosa/ir.hpp"

namespace nnef {
class SourceManager;
}

namespace nnef::tosa {

struct MlirOptions {
    Level level = Level::eight_k();
    // Constants (CONST values, VARIABLE initial values) with more than `elide_above` items are
    // written as `dense_resource<__elided__>` (the structure without the data; MLIR's validator
    // still accepts it). Smaller ones (zero points, shifts, shapes) stay inline.
    bool elide_weights = false;
    std::size_t elide_above = 16;
    // Constants with more than `resource_above` items go into the file's `dialect_resources`
    // section as blobs referenced by `dense_resource<name>`; the others inline as `dense<...>`
    // (hexadecimal data). Off: every constant inline.
    bool resource_blobs = false;
    std::size_t resource_above = 16;
    // Attach `tosa.target_env` (profiles, level, the extensions the graph needs) to the module.
    // MLIR 22 prints an empty extension list that its own parser rejects, so a graph that needs
    // no extension gets the target as a comment instead (mlir-opt --tosa-attach-target supplies it).
    bool target_env = true;
    // MLIR 22 checks every !tosa.shape operand against MAX_RANK, so the padding of a PAD of rank 4
    // or more (!tosa.shape<2 * rank>) fails at level 8K although the specification allows it. With
    // this on, such a PAD is written as one PAD per padded axis on a rank-3 view (RESHAPE, PAD,
    // RESHAPE): the same values, and a file that MLIR 22 accepts.
    bool split_wide_pads = true;
    // With it, each operator's location is the NNEF source of its origin (`loc("graph.nnef":12:5)`).
    const SourceManager* sources = nullptr;
    // More top-level operations (MLIR text) placed into the module after the function, e.g. a
    // driver that calls it.
    std::vector<std::string> extra_ops;
};

std::string to_mlir(const Graph& g, const MlirOptions& options = {});
// The same text written to `os` as it is made (a few MiB at a time), for large models whose
// weights would make a string of hundreds of megabytes. Returns whether `os` is still good.
bool write_mlir(std::ostream& os, const Graph& g, const MlirOptions& options = {});

// The MLIR TOSA extension names (e.g. "controlflow", "variable", "bf16") the graph needs, sorted;
// and its profiles ("pro_fp", "pro_int"): the graph's own, plus pro_fp for a PRO-INT graph that
// computes in floating point too.
std::vector<std::string> mlir_extensions(const Graph& g);
std::vector<std::string> mlir_profiles(const Graph& g);
// The same extensions as the validator names them ("EXT-CONTROLFLOW", ...): what a lowered graph may
// use when it is validated (nnef-to-tosa, the Python module's to_tosa).
std::vector<std::string> validation_extensions(const Graph& g);

// MLIR spellings: element type ("f32", "i1", ...) and value type ("tensor<1x3xf32>", "!tosa.shape<4>").
std::string mlir_element_type(DType t);
std::string mlir_type(const TensorType& t);
// A constant as an MLIR attribute, `dense<"0x...">: tensor<...>` (bool as a literal list).
std::string mlir_dense_attr(const ConstData& c);

}  // namespace nnef::tosa
