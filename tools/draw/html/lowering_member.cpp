#include <nnef/draw/lowering.hpp>

#include <map>
#include <optional>

#include <nnef/diagnostics.hpp>

#include "lowering/tosa/from_nnef.hpp"
#include "lowering/vpu/compiler.hpp"
#include "lowering/vpu/simulator.hpp"
#include "lowering/vpu/svg.hpp"
#include "lowering/vpu/target.hpp"

namespace nnef::draw {

namespace {

using json = nlohmann::json;

json location(const SourceRange& r, const SourceManager& sm) {
    if (!r.valid() || r.file > sm.size()) return nullptr;
    const LineCol lc = sm.begin(r);
    return {{"file", sm.name(r.file)}, {"line", lc.line}, {"column", lc.col}};
}

// Which picture node produces each tensor: the edges' producers, then the nodes' own names (a node
// with no consumers has no edge), graph outputs last (an output node stands for a tensor another
// node produces).
std::map<std::string, std::string> producers_of(const json& picture) {
    std::map<std::string, std::string> producers;
    if (picture.contains("edges") && picture["edges"].is_array())
        for (const json& e : picture["edges"])
            if (e.contains("tensor") && e["tensor"].is_string() && e.contains("from") && e["from"].is_string())
                producers.emplace(e["tensor"].get<std::string>(), e["from"].get<std::string>());
    if (picture.contains("nodes") && picture["nodes"].is_array())
        for (const json& n : picture["nodes"])
            if (n.value("kind", "") != "output" && n.contains("name") && n["name"].is_string())
                producers.emplace(n["name"].get<std::string>(), n.value("id", ""));
    return producers;
}

json tosa_graph(const tosa::Graph& g, const SourceManager& sm, const std::map<std::string, std::string>& producers,
                json& links) {
    json nodes = json::array(), edges = json::array();
    const tosa::Block& main = g.main();
    std::map<tosa::ValueId, std::string> producer;  // value -> TOSA node id
    auto value_label = [&](tosa::ValueId v) {
        const tosa::Value& val = g.value(v);
        return (val.name.empty() ? "%" + std::to_string(v) : val.name) + ": " + tosa::to_string(val.type);
    };
    for (tosa::ValueId v : main.inputs) {
        const std::string id = "ti" + std::to_string(v);
        producer[v] = id;
        nodes.push_back({{"id", id}, {"kind", "input"}, {"op", "input"}, {"label", g.value(v).name},
                         {"type", tosa::to_string(g.type(v))}, {"node", nullptr}});
    }
    for (std::size_t i = 0; i < main.ops.size(); ++i) {
        const tosa::Op& op = main.ops[i];
        const std::string id = "t" + std::to_string(i);
        json node = {{"id", id}, {"kind", "operation"}, {"op", tosa::to_string(op.kind)}, {"node", nullptr}};
        json attrs = json::object();
        for (const auto& [name, a] : op.attrs) attrs[tosa::to_string(name)] = tosa::to_string(a);
        node["attributes"] = attrs;
        json outs = json::array();
        for (tosa::ValueId v : op.outputs) {
            producer[v] = id;
            outs.push_back(value_label(v));
        }
        node["outputs"] = outs;
        node["label"] = op.outputs.empty() || g.value(op.outputs[0]).name.empty() ? std::string() : g.value(op.outputs[0]).name;
        if (op.origin != tosa::no_origin && op.origin < g.origins.size()) {
            const tosa::Origin& o = g.origins[op.origin];
            node["origin"] = {{"operation", o.operation}, {"tensor", o.tensor}, {"location", location(o.provenance.range, sm)}};
            auto it = producers.find(o.tensor);
            if (it != producers.end()) {
                node["node"] = it->second;
                links[it->second]["tosa"].push_back(id);
            }
        }
        nodes.push_back(std::move(node));
    }
    for (std::size_t i = 0; i < main.ops.size(); ++i)
        for (tosa::ValueId v : main.ops[i].inputs) {
            auto it = producer.find(v);
            if (it == producer.end()) continue;  // a value of another block
            edges.push_back({{"from", it->second}, {"to", "t" + std::to_string(i)}, {"label", value_label(v)}});
        }
    for (tosa::ValueId v : main.outputs) {
        const std::string id = "to" + std::to_string(v);
        nodes.push_back({{"id", id}, {"kind", "output"}, {"op", "output"}, {"label", g.value(v).name},
                         {"type", tosa::to_string(g.type(v))}, {"node", nullptr}});
        auto it = producer.find(v);
        if (it != producer.end()) edges.push_back({{"from", it->second}, {"to", id}, {"label", value_label(v)}});
    }
    return {{"profile", tosa::to_string(g.profile)}, {"nodes", nodes}, {"edges", edges}};
}

}  // namespace

json lowering_member(const Graph& graph, const SourceManager& sources, const json& picture, const LoweringOptions& options) {
    json member = {{"error", nullptr}, {"tosa", nullptr}, {"vpu", nullptr}, {"links", json::object()}};
    const std::map<std::string, std::string> producers = producers_of(picture);
    json& links = member["links"];
    tosa::LowerOptions lo;
    lo.profile = options.profile;
    lo.random_weights = 0;
    Diagnostics diags(0);
    std::optional<tosa::Graph> g = tosa::lower_to_tosa(graph, lo, diags);
    if (!g) {
        member["error"] = "TOSA: " + render_list(diags, sources);
        return member;
    }
    member["tosa"] = tosa_graph(*g, sources, producers, links);
    const vpu::Target target;
    vpu::CompileOptions co;
    std::optional<vpu::TaskList> list = vpu::compile(*g, target, co, diags);
    if (!list) {
        member["error"] = "VPU: " + render_list(diags, sources);
        return member;
    }
    vpu::SimulateOptions so;
    const vpu::SimulationResult result = vpu::simulate(*list, target, so, diags);
    if (!result.valid) {
        member["error"] = "VPU simulation: " + render_list(diags, sources);
        return member;
    }
    vpu::SvgOptions svg;
    svg.title = options.title;
    json tasks = json::array();
    for (const vpu::Task& t : list->tasks) {
        json task = {{"id", t.id}, {"queue", t.queue}, {"op", t.op}, {"source", t.source}, {"node", nullptr}};
        const std::string tensor = source_tensor(t.source, producers);
        if (!tensor.empty()) {
            const std::string& node = producers.at(tensor);
            task["node"] = node;
            links[node]["tasks"].push_back(t.id);
        }
        tasks.push_back(std::move(task));
    }
    member["vpu"] = {{"target", target.name}, {"makespan_us", result.makespan_us}, {"tasks", tasks},
                     {"svg", vpu::to_svg(*list, target, result, svg)}};
    return member;
}

}  // namespace nnef::draw
