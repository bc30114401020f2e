// What a picture of a graph must hold, counted from the graph itself (not from a picture): one node
// per operation and per graph output; one edge per distinct (producing operation, consuming
// operation or output, tensor). Shared by the library's tests and nnef-draw's end-to-end tests.
// A large picture draws a variable or constant read by k operations k times: `copies` counts the
// extra ones, sum of (k - 1).
#pragma once
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <nnef/graph.hpp>

namespace nnef_test {

inline void identifiers_in(const nnef::Value& v, std::vector<std::string>& out) {
    if (v.is_identifier()) out.push_back(v.as_identifier());
    else if (v.is_list())
        for (const nnef::Value& i : v.items()) identifiers_in(i, out);
}

// Drawn edges above which a picture is large: nnef::draw::max_laid_out_labels (render.hpp; the draw
// unit tests check that the two agree; the tool tests do not link the library).
constexpr std::size_t large_picture_edges = 200;

struct GraphCounts {
    std::size_t nodes = 0;
    std::size_t edges = 0;
    std::size_t copies = 0;
};

inline GraphCounts graph_counts(const nnef::Graph& g) {
    std::map<std::string, std::size_t> producer;
    std::set<std::tuple<std::size_t, std::size_t, std::string>> edges;
    for (std::size_t i = 0; i < g.operations.size(); ++i) {
        std::vector<std::string> ins, outs;
        for (const auto& [n, v] : g.operations[i].inputs) identifiers_in(v, ins);
        for (const std::string& t : ins)
            if (producer.count(t)) edges.emplace(producer[t], i, t);
        for (const auto& [n, v] : g.operations[i].outputs) identifiers_in(v, outs);
        for (const std::string& t : outs) producer[t] = i;
    }
    for (std::size_t k = 0; k < g.outputs.size(); ++k)
        if (producer.count(g.outputs[k])) edges.emplace(producer[g.outputs[k]], g.operations.size() + k, g.outputs[k]);
    std::map<std::size_t, std::size_t> reads;  // per variable or constant
    for (const auto& [from, to, tensor] : edges)
        if (from < g.operations.size() && (g.operations[from].name == "variable" || g.operations[from].name == "constant")) ++reads[from];
    std::size_t copies = 0;
    for (const auto& [op, k] : reads) copies += k - 1;
    return {g.operations.size() + g.outputs.size(), edges.size(), copies};
}

}  // namespace nnef_test
