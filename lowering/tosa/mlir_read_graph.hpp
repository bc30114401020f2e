// What the MLIR reader's structure (mlir_read.cpp) takes from mlir_read_graph.cpp: one parsed
// operator turned into a TOSA IR operator (its attributes checked against ops.def), and the graph
// finished (numbered values at their ids, the profile). Internal to lowering/tosa.
#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "lowering/tosa/mlir_read_syntax.hpp"

namespace nnef::tosa::mlir_read {

// An operator as written, before it becomes an Op.
struct ParsedOp {
    std::size_t at = 0, end = 0;   // its text
    std::string name;              // "tosa.conv2d"
    std::string result;            // the SSA name of its first result, without % (the origin's tensor)
    std::vector<ValueId> operands;
    std::vector<std::size_t> operand_at;  // where each operand is written
    std::vector<std::pair<std::string, AttrNode>> attrs;  // properties and attribute dictionary
    std::vector<TensorType> operand_types, result_types;  // the signature
    std::vector<std::uint32_t> regions;                   // blocks made for its regions
};

// A dense_resource constant waiting for the file's dialect_resources section.
struct PendingResource {
    std::uint32_t block = 0;
    std::size_t op = 0;
    AttrName attr{};
    std::string name;
    TensorType type;
    std::size_t at = 0;
};

// The OpKind of a tosa dialect operator name ("tosa.conv2d"); nullopt for others.
std::optional<OpKind> op_kind_of(const std::string& name);

// Appends `p` to `block` of `g` as an operator of `kind` whose results are new values (returned).
// Checks operand and result counts, operand types against the signature, and converts the
// attributes ops.def names (dense_resource data is left to `pending`).
std::vector<ValueId> add_operator(Graph& g, std::uint32_t block, OpKind kind, const ParsedOp& p, std::uint32_t file,
                                  std::vector<PendingResource>& pending);

// Gives every value whose SSA name was a number N (numbers[v]) the id N where it can, the others
// the free ids in order (unused ids become dead values), and renames every reference.
void number_values(Graph& g, const std::vector<std::optional<std::uint64_t>>& numbers);

// PRO-INT when the graph rescales or has 8/16/48-bit integer tensor data, else PRO-FP.
Profile guess_profile(const Graph& g);

}  // namespace nnef::tosa::mlir_read
