// The fragment expander: evaluates compile-time expressions, expands compound fragments into
// atomic operations and infers dtypes and shapes as it goes (shape_of needs them), producing the
// flat Graph. Errors of this stage have stage `shape` (SPEC_NOTES section 5).
#pragma once
#include <map>
#include <set>
#include <string>
#include <vector>

#include <nnef/diagnostics.hpp>
#include <nnef/graph.hpp>
#include <nnef/op_def.hpp>
#include <nnef/options.hpp>
#include "semantics/checker.hpp"

namespace nnef::sema {

struct ExpandOptions {
    Options options;
    bool expand_all = false;          // expand every standard compound down to primitives
    std::set<std::string> expand;     // standard compounds to expand (others stay atomic)
    std::map<std::string, Shape> input_shapes;  // overrides of external shapes, by graph input name
    const OpRegistry* custom = nullptr;  // shape functions for custom operations (optional)
    // The graph definition of program.document, when the caller owns it and needs only its
    // lvalues after expansion: the right-hand side of each graph-body statement is released as
    // soon as it is expanded, so that the AST shrinks while the graph grows (peak memory of a big
    // flat graph is then about the larger of the two, not their sum). Lvalues are kept (graph.quant
    // checks exported names against them).
    ast::GraphDef* release_graph_values = nullptr;
};

struct Expansion {
    Graph graph;
    // Custom operations (body-less document fragments) without a registered shape function that
    // occur in the graph, in first-use order: their outputs and everything downstream have unknown
    // shapes.
    std::vector<std::string> custom_operations;
};

// Expands a checked program. The graph is complete only if no error was added.
Expansion expand(const Program& program, const ExpandOptions& options, Diagnostics& diags);

// Re-runs dtype/shape inference over a flat graph (e.g. after shapes of inputs changed).
// Declarations come from `program` (result types, generic binding).
void infer_shapes(Graph& graph, const Program& program, const ExpandOptions& options, Diagnostics& diags);

// Prints a flat NNEF document (version 1.0; no extensions unless custom operations need their
// declarations). With `shapes`, each statement gets a trailing comment with dtype and shape.
struct PrintOptions {
    bool shapes = false;
};
std::string print_flat(const Graph& graph, const Program& program, const PrintOptions& options = {});

}  // namespace nnef::sema
