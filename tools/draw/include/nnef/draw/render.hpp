// Drawing a picture (picture.hpp): Graphviz DOT text with the collapsing rule of docs/draw.md, and
// SVG or PNG laid out in-process by Graphviz's libraries (cgraph + gvc, the dot layout).
#pragma once
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include <nnef/draw/picture.hpp>

namespace nnef::draw {

struct DotOptions {
    bool shapes = true;  // edges labelled "dtype[shape]" (and the quantization)
};

// What is drawn once collapsed clusters are folded: each node's representative (the node itself,
// or the outermost collapsed cluster around it) and the edges between different representatives
// (one per representative pair and tensor). A representative r < nodes.size() is a node, else the
// cluster r - nodes.size().
struct Visible {
    std::vector<std::size_t> representative;  // per node
    std::vector<std::size_t> items;           // the representatives drawn, in order of first node
    std::vector<std::size_t> edges;           // indices into Picture::edges, one per drawn edge
};
Visible visible(const Picture& picture);

// Edges up to which the edge labels take part in the layout (more: placed after it, as xlabel).
constexpr std::size_t max_laid_out_labels = 200;

// The DOT text of the picture as drawn (the layout is left to Graphviz).
std::string to_dot(const Picture& picture, const DotOptions& options = {});

// The largest number of drawn items (nodes and collapsed clusters) that svg and png are laid out
// for; above it render() refuses (the layout time grows faster than linearly).
constexpr std::size_t max_layout_items = 2500;

// Lays out `dot` with Graphviz's dot layout and renders it as `format` ("svg" or "png") into `out`.
// False with `error` set when Graphviz fails (its message).
bool render(const std::string& dot, const std::string& format, std::string& out, std::string& error);

// Where render() puts each node of `dot`: its DOT name ("n7", "c2", a copy "n5_1") and its centre in
// points (Graphviz's coordinates: y grows upwards). The HTML page starts from these positions.
struct Position {
    std::string name;
    double x = 0, y = 0;
};
bool layout_positions(const std::string& dot, std::vector<Position>& out, std::string& error);

// The format a file name asks for by its extension: "dot" (.dot, .gv), "svg", "png", "json"; nothing
// for any other name.
std::optional<std::string> format_from_extension(const std::string& path);

// The picture in `format`: "dot", "svg", "png" (laid out), or "json" (picture_to_json). False with
// `error` set when it cannot be drawn: more than max_layout_items for svg and png, Graphviz's error,
// or an unknown format.
bool draw(const Picture& picture, const std::string& format, const DotOptions& options, std::string& out, std::string& error);

}  // namespace nnef::draw
