// Laying out large pictures fast (lanes.hpp): the long transitive edges that dot would turn into
// tens of thousands of virtual nodes, and their routes in lanes once the rest is laid out.
#include <nnef/draw/lanes.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>

namespace nnef::draw {

namespace lanes_cpp {

// A topological order of the nodes, or fewer than `nodes` entries when there is a cycle.
std::vector<std::size_t> topological_order(std::size_t nodes, const std::vector<std::vector<std::size_t>>& out) {
    std::vector<std::size_t> indegree(nodes, 0), order;
    for (const auto& targets : out)
        for (std::size_t t : targets) ++indegree[t];
    order.reserve(nodes);
    for (std::size_t n = 0; n < nodes; ++n)
        if (indegree[n] == 0) order.push_back(n);
    for (std::size_t k = 0; k < order.size(); ++k)
        for (std::size_t t : out[order[k]])
            if (--indegree[t] == 0) order.push_back(t);
    return order;
}

std::vector<std::vector<std::size_t>> successors(std::size_t nodes, const EdgeList& edges) {
    std::vector<std::vector<std::size_t>> out(nodes);
    for (const auto& [a, b] : edges) out[a].push_back(b);
    return out;
}

}  // namespace lanes_cpp

std::vector<std::size_t> layer_ranks(std::size_t nodes, const EdgeList& edges) {
    using namespace lanes_cpp;
    const auto out = successors(nodes, edges);
    const auto order = topological_order(nodes, out);
    if (order.size() != nodes) return {};
    std::vector<std::size_t> rank(nodes, 0);
    std::vector<bool> source(nodes, true);
    for (const auto& [a, b] : edges) source[b] = false;
    for (std::size_t n : order)
        for (std::size_t t : out[n]) rank[t] = std::max(rank[t], rank[n] + 1);
    // A source (a variable, a constant, an input) sits just above its first consumer, as dot's
    // ranking puts it.
    for (std::size_t n = 0; n < nodes; ++n) {
        if (!source[n] || out[n].empty()) continue;
        std::size_t first = std::numeric_limits<std::size_t>::max();
        for (std::size_t t : out[n]) first = std::min(first, rank[t]);
        rank[n] = first - 1;
    }
    return rank;
}

std::size_t virtual_nodes(const std::vector<std::size_t>& ranks, const EdgeList& edges, const std::vector<bool>* skip) {
    std::size_t total = 0;
    for (std::size_t i = 0; i < edges.size(); ++i) {
        if (skip && (*skip)[i]) continue;
        const auto [a, b] = edges[i];
        if (ranks[b] > ranks[a] + 1) total += ranks[b] - ranks[a] - 1;
    }
    return total;
}

std::vector<bool> moved_edges(std::size_t nodes, const EdgeList& edges, std::size_t min_span) {
    using namespace lanes_cpp;
    std::vector<bool> moved(edges.size(), false);
    const std::vector<std::size_t> rank = layer_ranks(nodes, edges);
    if (rank.empty() || virtual_nodes(rank, edges) <= max_virtual_nodes) return moved;
    const auto out = successors(nodes, edges);
    const auto order = topological_order(nodes, out);
    // reach[n]: the nodes reachable from n by a path of one edge or more, as a bit set.
    const std::size_t words = (nodes + 63) / 64;
    std::vector<std::uint64_t> reach(nodes * words, 0);
    for (auto it = order.rbegin(); it != order.rend(); ++it) {
        std::uint64_t* r = &reach[*it * words];
        for (std::size_t t : out[*it]) {
            const std::uint64_t* s = &reach[t * words];
            for (std::size_t w = 0; w < words; ++w) r[w] |= s[w];
            r[t / 64] |= std::uint64_t(1) << (t % 64);
        }
    }
    auto reaches = [&](std::size_t from, std::size_t to) { return (reach[from * words + to / 64] >> (to % 64)) & 1; };
    for (std::size_t i = 0; i < edges.size(); ++i) {
        const auto [a, b] = edges[i];
        if (rank[b] <= rank[a] + min_span) continue;
        for (std::size_t c : out[a])
            if (c != b && reaches(c, b)) {
                moved[i] = true;
                break;
            }
    }
    return moved;
}

std::vector<Route> route_lanes(const std::vector<Box>& boxes, const std::vector<Frame>& frames, const EdgeList& moved, double gap) {
    // The ranks as laid out: the distinct centre heights, top first, with the lowest bottom and the
    // highest top of their nodes.
    struct Level {
        double bottom, top;
    };
    std::map<long long, Level, std::greater<long long>> levels;
    auto key = [](double y) { return std::llround(y * 2); };
    for (const Box& b : boxes) {
        auto [it, fresh] = levels.try_emplace(key(b.y), Level{b.y - b.half_height, b.y + b.half_height});
        if (!fresh) {
            it->second.bottom = std::min(it->second.bottom, b.y - b.half_height);
            it->second.top = std::max(it->second.top, b.y + b.half_height);
        }
    }
    // Below the tail's rank: half way to the next rank down; above the head's: half way up.
    auto below = [&](const Box& b) {
        auto it = levels.find(key(b.y));
        const double bottom = it->second.bottom;
        ++it;
        return it == levels.end() ? bottom - 2 * gap : (bottom + it->second.top) / 2;
    };
    auto above = [&](const Box& b) {
        auto it = levels.find(key(b.y));
        const double top = it->second.top;
        if (it == levels.begin()) return top + 2 * gap;
        --it;
        return (top + it->second.bottom) / 2;
    };
    // The lane's run is [low, high]; its x is right of everything whose height meets the run.
    auto clearance = [&](double low, double high) {
        double x = -std::numeric_limits<double>::infinity();
        for (const Box& b : boxes)
            if (b.y - b.half_height <= high && b.y + b.half_height >= low) x = std::max(x, b.x + b.right);
        for (const Frame& f : frames)
            if (f.y0 <= high && f.y1 >= low) x = std::max(x, f.x1);
        return x + 2 * gap;
    };
    // One lane per tail (its edges share it), placed shortest run first.
    struct Lane {
        double low, high, x = 0;
    };
    std::map<std::size_t, std::size_t> lane_of;  // tail -> lane
    std::vector<Lane> lanes;
    for (const auto& [a, b] : moved) {
        const double high = below(boxes[a]), low = above(boxes[b]);
        auto [it, fresh] = lane_of.try_emplace(a, lanes.size());
        if (fresh) lanes.push_back({low, high});
        else lanes[it->second].low = std::min(lanes[it->second].low, low);
    }
    std::vector<std::size_t> by_length(lanes.size());
    for (std::size_t i = 0; i < lanes.size(); ++i) by_length[i] = i;
    std::sort(by_length.begin(), by_length.end(),
              [&](std::size_t p, std::size_t q) { return lanes[p].high - lanes[p].low < lanes[q].high - lanes[q].low; });
    std::vector<std::size_t> placed;
    for (std::size_t i : by_length) {
        Lane& l = lanes[i];
        l.x = clearance(l.low, l.high);
        for (std::size_t j : placed)
            if (lanes[j].low <= l.high && lanes[j].high >= l.low) l.x = std::max(l.x, lanes[j].x + gap);
        placed.push_back(i);
    }
    std::vector<Route> routes;
    routes.reserve(moved.size());
    for (const auto& [a, b] : moved) {
        const Box &t = boxes[a], &h = boxes[b];
        const double x = lanes[lane_of[a]].x, high = below(t), low = above(h);
        routes.push_back({{t.x, t.y - t.half_height}, {t.x, high}, {x, high}, {x, low}, {h.x, low}, {h.x, h.y + h.half_height}});
    }
    return routes;
}

}  // namespace nnef::draw
