// Laying out large pictures fast (docs/draw.md, Limits and speed). Graphviz's dot layout turns every
// edge that spans k ranks into a chain of k - 1 virtual nodes; DenseNet-121's concatenations (each
// takes every earlier feature map of its block) make some 80 000 of them, and dot's crossing
// minimisation and network-simplex positioning then take 15 to 30 s. The long edges that are
// transitive (another path leads from their tail to their head, so the ranks do not depend on them)
// are taken out of the dot layout and drawn afterwards in lanes to the right of what lies between
// their ends: down from the tail, across below its rank, down the lane, across above the head's
// rank, into the head.
#pragma once
#include <cstddef>
#include <utility>
#include <vector>

namespace nnef::draw {

// Edges of a directed graph of `nodes` nodes, as (from, to).
using EdgeList = std::vector<std::pair<std::size_t, std::size_t>>;

// Ranks as dot would give them, about: the longest path from a source, with each source (no
// incoming edge) moved down to just above its first consumer. Empty when the graph has a cycle.
std::vector<std::size_t> layer_ranks(std::size_t nodes, const EdgeList& edges);

// The virtual nodes dot would make for the edges: the sum of (span - 1) over edges spanning more
// than one rank.
std::size_t virtual_nodes(const std::vector<std::size_t>& ranks, const EdgeList& edges, const std::vector<bool>* skip = nullptr);

// Above this many virtual nodes, edges are moved to lanes (moved_edges).
constexpr std::size_t max_virtual_nodes = 12000;

// The edges to take out of the dot layout: those spanning more than `min_span` ranks whose head is
// reached from their tail by another path (through another successor of the tail). All false when
// the graph has at most max_virtual_nodes virtual nodes or a cycle.
std::vector<bool> moved_edges(std::size_t nodes, const EdgeList& edges, std::size_t min_span = 2);

// A node's box as laid out: centre and half-extents, in points (Graphviz's coordinates: y grows up).
struct Box {
    double x = 0, y = 0;
    double left = 0, right = 0;  // extents left and right of x
    double half_height = 0;
};

// An axis-aligned rectangle (a cluster's frame), in points.
struct Frame {
    double x0 = 0, y0 = 0, x1 = 0, y1 = 0;
};

// The route of a moved edge: a polyline from the tail's bottom to the head's top (its last point),
// through the lane.
using Route = std::vector<std::pair<double, double>>;

// Routes for the moved edges (from, to) among the laid-out `boxes` (per node) and cluster `frames`:
// each in a vertical lane right of every node and frame whose vertical extent meets the lane's run;
// edges from one tail share a lane (a bus); lanes whose runs overlap are kept `gap` apart. Tails
// must lie above their heads (higher y).
std::vector<Route> route_lanes(const std::vector<Box>& boxes, const std::vector<Frame>& frames, const EdgeList& moved, double gap = 8.0);

}  // namespace nnef::draw
