// The fragment expander: evaluates compile-time expressions, expands compound fragments into
// atomic operations and infers dtypes and shapes as it goes (shape_of needs them), producing the
// flat Graph. Errors of this stage have stage `shape` (SPEC_NOTES section 5).
#pragma once
#include <map>
#include <memory>
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
    bool collect_exports = false;        // fill Expansion::exported
    // Keep the operations in Expansion::graph. Without, each graph statement's operations are
    // dropped once expanded and checked (a validator's mode: every check runs, every tensor keeps
    // its dtype and shape, and memory grows with the tensors only); Expansion::operation_count
    // still counts them.
    bool keep_operations = true;
};

struct Expansion {
    Graph graph;
    // Custom operations (body-less document fragments) without a registered shape function that
    // occur in the graph, in first-use order: their outputs and everything downstream have unknown
    // shapes.
    std::vector<std::string> custom_operations;
    std::vector<SourceRange> custom_operation_sites;  // the first use of each
    std::size_t operation_count = 0;                  // operations made (kept or not)
    // With ExpandOptions::collect_exports: for each tensor (by position), whether it is exported
    // (spec 3.3.4: a graph parameter or an identifier assigned in the graph body) rather than a
    // temporary of an expansion.
    std::vector<bool> exported;
};

namespace expander_cpp {
class Expander;
}

// Expands a checked program a statement at a time: the graph's header, each statement of its body
// in order (as a streaming parse delivers them), then finish().
class Expanding {
public:
    // `program` (and the fragments it refers to) must outlive this object.
    Expanding(const Program& program, const ExpandOptions& options, Diagnostics& diags);
    ~Expanding();
    Expanding(const Expanding&) = delete;
    Expanding& operator=(const Expanding&) = delete;

    void begin_graph(const ast::GraphDef& header);
    void statement(const ast::Assignment& a);
    Expansion finish();

private:
    std::unique_ptr<expander_cpp::Expander> impl_;
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
