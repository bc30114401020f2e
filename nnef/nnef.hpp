// The NNEF toolkit's public API (umbrella header). std-only.
//
// Compiled mode: link the nnef::nnef CMake target.
// Header-only mode: put the repository root (or the installed include directory) on the include
// path and, in exactly one .cpp file, `#define NNEF_IMPLEMENTATION` before including this header.
#pragma once
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <nnef/diagnostics.hpp>
#include <nnef/graph.hpp>
#include <nnef/op_def.hpp>
#include <nnef/options.hpp>
#include <nnef/source.hpp>
#include <nnef/summary.hpp>
#include <nnef/value.hpp>

namespace nnef {

const char* version();

struct FlattenOptions {
    Options options;
    bool expand_all = false;                    // expand every standard compound to primitives
    std::vector<std::string> expand;            // expand these standard compounds
    std::map<std::string, Shape> input_shapes;  // override external shapes by graph input name
    const OpRegistry* custom_shapes = nullptr;  // shape functions for custom operations
    // Model containers (folders, .tar, .tgz): load and check every variable's tensor data
    // (spec 6 step 4). A bare graph.nnef file has none to load.
    bool load_weights = true;
    // A model container with no tensor file at all (a model published graph-only) loads without
    // weights instead of failing, for callers that need no values (a validator, a summary, a
    // schedule's timing); Session::weights() says they were not checked. A model with some of its
    // tensor files but not all is an error regardless.
    bool weights_optional = false;
    // Keep the graph's operations. Without, the front end checks every statement and drops its
    // operations (a validator's mode: memory for the tensors only): graph() then has the tensors,
    // inputs and outputs but no operations, and operation_count() tells how many there were. A
    // model whose weights are loaded, or that has a graph.quant, keeps them regardless.
    bool keep_operations = true;
    // With nothing to expand and no input shape overridden, a plain flat document (version 1.0,
    // no extension, no fragment, `id = op(args);` statements of standard operations) is checked
    // by a lean fast path with the same rules and results, operations included
    // (semantics/plain_flat.hpp); anything it does not take, and any document on which there is
    // something to report, goes through the full front end. False: always the full front end.
    bool plain_fast_path = true;
    // The fast path reads a large graph body (1 MiB and more) on a second thread, ahead of the
    // checks, which stay on the calling thread; the outcome is the same. False: one thread.
    bool parallel_scan = true;
    std::size_t max_archive_members = 1000000;  // a 500k-operation graph has some 200k variables
    std::uint64_t max_archive_bytes = std::uint64_t(16) << 30;
    // When the load fails, keep the graph as far as it got (for a picture of an invalid model,
    // nnef-draw): the statements before the first error, expanded, or the whole graph when a later
    // stage (shapes, tensor data, graph.quant) failed; Session::partial_graph() and
    // failed_statement() tell. Off: nothing is kept and nothing is recorded (no cost).
    bool keep_partial = false;
};

// The graph statement where the first semantic error sits (FlattenOptions::keep_partial).
struct FailedStatement {
    SourceRange range;                   // the statement
    std::string operation;               // the operation it invokes ("" when its value is no invocation)
    std::vector<std::string> results;    // the identifiers it assigns
    std::vector<std::string> arguments;  // the identifiers among its arguments
};

// What a load did with the model's tensor data.
struct WeightsReport {
    bool looked_for = false;    // tensor files were looked for (load_weights, and the model may have some)
    std::size_t variables = 0;  // variables of the graph, when looked for
    std::size_t checked = 0;    // of them, those whose tensor file was read and checked
    // "weights checked", "weights not checked", or "weights checked for K of N variables".
    std::string summary() const;
};

// One document taken through the front end: parse, type check, expand, shape inference.
// Owns the sources so that diagnostics and provenance stay valid.
class Session {
public:
    explicit Session(FlattenOptions options = {});
    ~Session();
    Session(Session&&) noexcept;
    Session& operator=(Session&&) noexcept;

    // Each returns true when no error was reported (warnings allowed).
    bool load_text(std::string name, std::string text);
    // The same with the text of a quantization file (graph.quant, spec 5.3) applied to the graph
    // and checked, as load_path does with a container's.
    bool load_text(std::string name, std::string text, std::string quant_name, std::string quant_text);
    // A model: a folder, a .tar or .tgz archive (by content), or a bare graph.nnef file.
    bool load_path(const std::string& path);

    const Graph* graph() const;  // null unless the front end got through expansion
    // With FlattenOptions::keep_partial, after a failed load: the graph as far as it got (null when
    // no statement was expanded, or the load succeeded), and the statement of the first semantic
    // error in the graph body (null when the first error was elsewhere).
    const Graph* partial_graph() const;
    const FailedStatement* failed_statement() const;
    std::size_t operation_count() const;  // operations of the graph (also when not kept)
    const Diagnostics& diagnostics() const;
    const SourceManager& sources() const;
    // Custom operations (body-less fragment declarations of the document) used by the graph that
    // have no shape function in FlattenOptions::custom_shapes: their outputs, and everything
    // computed from them, have unknown shapes.
    const std::vector<std::string>& custom_operations() const;
    const std::vector<SourceRange>& custom_operation_sites() const;  // the first use of each
    // True when the last load was checked by the plain flat fast path (FlattenOptions).
    bool used_plain_fast_path() const;
    // What the last load_path did with the tensor files (nothing for load_text).
    const WeightsReport& weights() const;
    // Flat NNEF text of the graph; with `shapes`, dtype and shape as trailing comments.
    std::string flat_text(bool shapes = false) const;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace nnef

#ifdef NNEF_IMPLEMENTATION
#include <nnef/detail/implementation.hpp>
#endif
