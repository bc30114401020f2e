// The picture model of nnef-draw (docs/draw.md): a model's flat graph as nodes (graph inputs,
// variables, constants, operations, outputs) and edges (tensors), with the compound-fragment
// invocations it was expanded through as a hierarchy of clusters. Built from what the front end
// produced, also for an invalid model (what parsed and checked, and the first error marked).
// Serialised by picture_to_json as the document "nnef-draw/1" that the HTML page reads; drawn by
// nnef::draw::to_dot (render.hpp). std-only.
#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <nnef/diagnostics.hpp>
#include <nnef/graph.hpp>
#include <nnef/nnef.hpp>
#include <nnef/source.hpp>

namespace nnef::draw {

struct Location {
    std::string file;
    std::uint32_t line = 0;    // 1-based
    std::uint32_t column = 0;  // 1-based
};

// One invocation of a compound fragment; the operations made by its body are its members.
struct Cluster {
    std::string fragment;
    std::string label;                  // the fragment's name (the page and DOT add the line)
    std::optional<std::size_t> parent;  // index of the enclosing invocation
    std::optional<Location> location;   // the call site
    bool expanded = false;              // drawn open (PictureOptions)
    std::size_t depth = 0;              // 0: called from the graph body
};

// A quantization: the algorithm and its compile-time arguments (graph.quant, spec 5.3).
struct QuantInfo {
    std::string op;
    NamedValues arguments;
};

// Unknown dimensions (and an unknown rank: no dims at all) are nullopt.
struct TensorInfo {
    std::string dtype;  // "scalar", "integer", "logical", or "" when unknown
    std::optional<std::vector<std::optional<std::int64_t>>> shape;
    std::optional<std::uint64_t> bytes;  // variables: stored bytes, else the declared type's nominal size
    std::optional<QuantInfo> quantization;
};

enum class NodeKind { input, output, variable, constant, operation, error };
const char* to_string(NodeKind);

struct Node {
    NodeKind kind = NodeKind::operation;
    std::string name;  // the (first) result tensor's name, or the operation's name
    std::string op;    // the NNEF operation ("external", "conv", ...; "output" for a graph output)
    std::optional<std::size_t> cluster;  // innermost enclosing invocation
    std::vector<std::pair<std::string, std::string>> attributes;  // printed as NNEF text
    std::optional<Location> location;
    std::optional<std::string> error;  // the first error's diagnostic, when it sits here
    std::optional<TensorInfo> tensor;  // the (first) result
};

// One per (producer node, consumer node, tensor).
struct Edge {
    std::size_t from = 0;
    std::size_t to = 0;
    std::string tensor;
    TensorInfo info;
};

// A diagnostic of the run (all of them, errors and warnings), for the page.
struct PictureDiagnostic {
    std::string severity;
    std::string stage;
    std::string message;
    std::optional<Location> location;
};

struct Picture {
    std::string model;   // folder or file stem
    std::string source;  // the path given
    std::vector<Cluster> clusters;
    std::vector<Node> nodes;
    std::vector<Edge> edges;
    std::vector<PictureDiagnostic> diagnostics;
};

struct PictureOptions {
    std::size_t depth = 0;           // invocations at nesting depth < depth start expanded
    std::set<std::string> expand;    // invocations of these fragments (and their ancestors) expanded
    bool expand_all = false;         // every invocation expanded
};

// What the front end produced: `graph` is null when it produced none (a syntax error, say);
// `failed` describes the statement of the first semantic error when the front end stopped there
// (Session::failed_statement()).
struct Source {
    std::string path;
    const Graph* graph = nullptr;
    const SourceManager* sources = nullptr;
    const Diagnostics* diagnostics = nullptr;
    const FailedStatement* failed = nullptr;
};

Picture build_picture(const Source& source, const PictureOptions& options = {});
// The same from a Session after load_path(path) (its partial graph when the load failed).
Picture build_picture(const Session& session, const std::string& path, const PictureOptions& options = {});

// Sets each cluster's `expanded` from the options (the collapsing rule of docs/draw.md).
void apply_expansion(Picture& picture, const PictureOptions& options);

// The document "nnef-draw/1" (docs/draw.md), compact, no trailing newline.
std::string picture_to_json(const Picture& picture);

// The model's name for a path: the folder's name, or the file's stem (graph.nnef: its folder).
std::string model_name(const std::string& path);

// "n3", "c0", "e12".
inline std::string node_id(std::size_t i) { return "n" + std::to_string(i); }
inline std::string cluster_id(std::size_t i) { return "c" + std::to_string(i); }
inline std::string edge_id(std::size_t i) { return "e" + std::to_string(i); }

}  // namespace nnef::draw
