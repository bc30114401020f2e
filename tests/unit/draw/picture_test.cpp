// The picture model (tools/draw/include/nnef/draw/picture.hpp): nodes, edges and clusters of a
// model against its graph, counted here from the graph itself; the collapsing rule; the JSON.
#include <doctest/doctest.h>

#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include <nnef/draw/picture.hpp>
#include <nnef/draw/render.hpp>
#include <nnef/nnef.hpp>

namespace {

using nnef::draw::Picture;
using Json = nlohmann::json;

std::string read_file(const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
}

struct Loaded {
    explicit Loaded(nnef::Session s) : session(std::move(s)) {}
    nnef::Session session;
    bool ok = false;
    Picture picture;
};

Loaded load(const std::string& text, const nnef::draw::PictureOptions& options = {}, bool expand_all = false) {
    nnef::FlattenOptions fo;
    fo.keep_partial = true;
    fo.expand_all = expand_all;
    Loaded l(nnef::Session{fo});
    l.ok = l.session.load_text("graph.nnef", text);
    l.picture = nnef::draw::build_picture(l.session, "model/graph.nnef", options);
    return l;
}

void collect(const nnef::Value& v, std::vector<std::string>& out) {
    if (v.is_identifier()) out.push_back(v.as_identifier());
    else if (v.is_list())
        for (const nnef::Value& i : v.items()) collect(i, out);
}

// Nodes and edges the graph has, counted from the graph: one node per operation and per graph
// output; one edge per distinct (producing operation, consuming operation or output, tensor).
std::pair<std::size_t, std::size_t> graph_counts(const nnef::Graph& g) {
    std::map<std::string, std::size_t> producer;
    std::set<std::tuple<std::size_t, std::size_t, std::string>> edges;
    for (std::size_t i = 0; i < g.operations.size(); ++i) {
        std::vector<std::string> ins, outs;
        for (const auto& [n, v] : g.operations[i].inputs) collect(v, ins);
        for (const std::string& t : ins)
            if (producer.count(t)) edges.emplace(producer[t], i, t);
        for (const auto& [n, v] : g.operations[i].outputs) collect(v, outs);
        for (const std::string& t : outs) producer[t] = i;
    }
    for (std::size_t k = 0; k < g.outputs.size(); ++k)
        if (producer.count(g.outputs[k])) edges.emplace(producer[g.outputs[k]], g.operations.size() + k, g.outputs[k]);
    return {g.operations.size() + g.outputs.size(), edges.size()};
}

}  // namespace

TEST_SUITE("draw") {

TEST_CASE("picture of a flat sample: one node per operation and output, edges per tensor use") {
    Loaded l = load(read_file(NNEF_SOURCE_DIR "/samples/classifier/graph.nnef"));
    REQUIRE(l.ok);
    const nnef::Graph& g = *l.session.graph();
    const auto [nodes, edges] = graph_counts(g);
    CHECK(l.picture.nodes.size() == nodes);
    CHECK(l.picture.edges.size() == edges);
    CHECK(l.picture.clusters.empty());
    CHECK(l.picture.model == "model");
    std::map<std::string, int> kinds;
    for (const auto& n : l.picture.nodes) ++kinds[nnef::draw::to_string(n.kind)];
    CHECK(kinds["input"] == 1);
    CHECK(kinds["output"] == 1);
    CHECK(kinds["variable"] == 6);
    // The variable's bytes: the nominal size of its declared shape (no tensor data loaded).
    for (const auto& n : l.picture.nodes)
        if (n.name == "conv1_filter") {
            REQUIRE(n.tensor);
            CHECK(n.tensor->bytes == std::optional<std::uint64_t>(16 * 3 * 3 * 3 * 4));
            CHECK(n.location);
        }
}

TEST_CASE("picture of a compositional sample: one cluster per invocation, nested as called") {
    Loaded l = load(read_file(NNEF_SOURCE_DIR "/samples/composite/graph.nnef"));
    REQUIRE(l.ok);
    const nnef::Graph& g = *l.session.graph();
    const auto [nodes, edges] = graph_counts(g);
    CHECK(l.picture.nodes.size() == nodes);
    CHECK(l.picture.edges.size() == edges);
    // The document's calls: conv_stack recurses twice below itself (3 channels), each level calls
    // conv_layer once; branches calls conv_layer three times (sizes 1, 3, 5; the 0 is filtered) in
    // a comprehension; flatten once.
    std::map<std::string, int> count;
    std::map<std::string, std::set<std::string>> parents;
    for (const auto& c : l.picture.clusters) {
        ++count[c.fragment];
        parents[c.fragment].insert(c.parent ? l.picture.clusters[*c.parent].fragment : "");
    }
    CHECK(count["conv_stack"] == 3);
    CHECK(count["conv_layer"] == 6);
    CHECK(count["branches"] == 1);
    CHECK(count["flatten"] == 1);
    CHECK(parents["conv_stack"] == std::set<std::string>{"", "conv_stack"});
    CHECK(parents["conv_layer"] == std::set<std::string>{"conv_stack", "branches"});
    CHECK(parents["branches"] == std::set<std::string>{""});
    std::size_t deepest = 0;
    for (const auto& c : l.picture.clusters) deepest = std::max(deepest, c.depth);
    CHECK(deepest == 3);  // conv_stack > conv_stack > conv_stack > conv_layer
    // Every conv is in a conv_layer invocation.
    for (const auto& n : l.picture.nodes)
        if (n.op == "conv") {
            REQUIRE(n.cluster);
            CHECK(l.picture.clusters[*n.cluster].fragment == "conv_layer");
        }
    // Default (depth 0): nothing expanded; the drawing shows the graph as written.
    for (const auto& c : l.picture.clusters) CHECK_FALSE(c.expanded);
    const nnef::draw::Visible v = nnef::draw::visible(l.picture);
    std::size_t top_ops = 0;
    for (const auto& n : l.picture.nodes) top_ops += n.cluster ? 0 : 1;
    CHECK(v.items.size() == top_ops + 3);  // + conv_stack, branches, flatten
}

TEST_CASE("the collapsing rule: --depth, --expand (with ancestors), --expand-all") {
    Loaded l = load(read_file(NNEF_SOURCE_DIR "/samples/composite/graph.nnef"));
    REQUIRE(l.ok);
    Picture& p = l.picture;
    nnef::draw::PictureOptions o;
    o.depth = 1;
    nnef::draw::apply_expansion(p, o);
    for (const auto& c : p.clusters) CHECK(c.expanded == (c.depth == 0));
    o = {};
    o.expand = {"conv_layer"};
    nnef::draw::apply_expansion(p, o);
    for (const auto& c : p.clusters) CHECK(c.expanded == (c.fragment != "flatten"));
    o = {};
    o.expand_all = true;
    nnef::draw::apply_expansion(p, o);
    for (const auto& c : p.clusters) CHECK(c.expanded);
    const nnef::draw::Visible v = nnef::draw::visible(p);
    CHECK(v.items.size() == p.nodes.size());
    CHECK(v.edges.size() == p.edges.size());
}

TEST_CASE("picture JSON: the fields of nnef-draw/1") {
    Loaded l = load(read_file(NNEF_SOURCE_DIR "/samples/composite/graph.nnef"));
    REQUIRE(l.ok);
    const Json j = Json::parse(nnef::draw::picture_to_json(l.picture));
    CHECK(j["schema"] == "nnef-draw/1");
    CHECK(j["model"] == "model");
    CHECK(j["source"] == "model/graph.nnef");
    CHECK(j["lowering"].is_null());
    REQUIRE(j["nodes"].size() == l.picture.nodes.size());
    REQUIRE(j["edges"].size() == l.picture.edges.size());
    REQUIRE(j["clusters"].size() == l.picture.clusters.size());
    const Json& n0 = j["nodes"][0];
    CHECK(n0["id"] == "n0");
    CHECK(n0["kind"] == "input");
    CHECK(n0["op"] == "external");
    CHECK(n0["attributes"]["shape"] == "[1, 3, 64, 64]");
    CHECK(n0["location"]["line"] == 57);
    CHECK(n0["tensor"]["shape"] == Json::array({1, 3, 64, 64}));
    for (const Json& c : j["clusters"]) {
        CHECK(c["id"].get<std::string>().rfind("c", 0) == 0);
        CHECK((c["parent"].is_null() || c["parent"].get<std::string>().rfind("c", 0) == 0));
        CHECK(c["location"]["file"] == "graph.nnef");
    }
    for (const Json& e : j["edges"]) {
        CHECK(e["from"].get<std::string>().rfind("n", 0) == 0);
        CHECK(e["shape"].is_array());
    }
}

}  // TEST_SUITE
