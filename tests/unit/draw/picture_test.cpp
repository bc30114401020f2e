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

#include "common/build_paths.hpp"
#include "unit/draw/graph_counts.hpp"

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

}  // namespace

TEST_SUITE("draw") {

TEST_CASE("picture of a flat sample: one node per operation and output, edges per tensor use") {
    Loaded l = load(read_file(std::string(NNEF_SOURCE_DIR) + "/samples/classifier/graph.nnef"));
    REQUIRE(l.ok);
    const nnef::Graph& g = *l.session.graph();
    const nnef_test::GraphCounts counts = nnef_test::graph_counts(g);
    CHECK(l.picture.nodes.size() == counts.nodes);
    CHECK(l.picture.edges.size() == counts.edges);
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
    Loaded l = load(read_file(std::string(NNEF_SOURCE_DIR) + "/samples/composite/graph.nnef"));
    REQUIRE(l.ok);
    const nnef::Graph& g = *l.session.graph();
    const nnef_test::GraphCounts counts = nnef_test::graph_counts(g);
    CHECK(l.picture.nodes.size() == counts.nodes);
    CHECK(l.picture.edges.size() == counts.edges);
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
    Loaded l = load(read_file(std::string(NNEF_SOURCE_DIR) + "/samples/composite/graph.nnef"));
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
    Loaded l = load(read_file(std::string(NNEF_SOURCE_DIR) + "/samples/composite/graph.nnef"));
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
    // the line of `image = external...` in the sample
    const std::string text = read_file(std::string(NNEF_SOURCE_DIR) + "/samples/composite/graph.nnef");
    const std::size_t at = text.find("image = external");
    REQUIRE(at != std::string::npos);
    CHECK(n0["location"]["line"] == 1 + std::count(text.begin(), text.begin() + at, '\n'));
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

TEST_CASE("an invalid model: the graph as far as it got, the first error marked") {
    SUBCASE("a semantic error in the third statement") {
        Loaded l = load("version 1.0;\ngraph g( x ) -> ( y )\n{\n    x = external(shape = [1, 4]);\n"
                        "    a = relu(x);\n    y = add(a, missing);\n}\n");
        CHECK_FALSE(l.ok);
        REQUIRE(l.session.partial_graph());
        CHECK(l.session.partial_graph()->operations.size() == 2);
        REQUIRE(l.session.failed_statement());
        CHECK(l.session.failed_statement()->operation == "add");
        CHECK(l.session.failed_statement()->results == std::vector<std::string>{"y"});
        CHECK(l.session.failed_statement()->arguments == std::vector<std::string>{"a", "missing"});
        const Picture& p = l.picture;
        REQUIRE(p.nodes.size() == 4);  // x, a, the failed statement, the output y
        const auto& failed = p.nodes[2];
        CHECK(failed.kind == nnef::draw::NodeKind::error);
        CHECK(failed.op == "add");
        REQUIRE(failed.error);
        CHECK(failed.error->find("graph.nnef:6:") == 0);
        CHECK(failed.error->find("error[semantic]") != std::string::npos);
        REQUIRE(failed.location);
        CHECK(failed.location->line == 6);
        // an edge from `a` into it (`missing` has no producer)
        std::size_t into = 0;
        for (const auto& e : p.edges) into += e.to == 2 ? 1 : 0;
        CHECK(into == 1);
        CHECK(p.diagnostics.size() >= 1);
    }
    SUBCASE("a syntax error before any operation: the error alone") {
        Loaded l = load("version 1.0;\ngraph g( x ) -> ( y )\n{\n    x = external(shape = [1, 4];\n}\n");
        CHECK_FALSE(l.ok);
        CHECK(l.session.partial_graph() == nullptr);
        REQUIRE(l.picture.nodes.size() == 1);
        CHECK(l.picture.nodes[0].kind == nnef::draw::NodeKind::error);
        CHECK(l.picture.edges.empty());
    }
    SUBCASE("a shape error: the invocation that made no operation, with edges from its arguments") {
        Loaded l = load("version 1.0;\ngraph g( x ) -> ( y )\n{\n    x = external(shape = [1, 4]);\n"
                        "    w = variable(shape = [3, 5], label = 'w');\n    y = matmul(x, w);\n}\n");
        CHECK_FALSE(l.ok);
        std::size_t marked = 0;
        for (const auto& n : l.picture.nodes)
            if (n.error) {
                ++marked;
                CHECK(n.op == "matmul");
                CHECK(n.kind == nnef::draw::NodeKind::error);
            }
        CHECK(marked == 1);
        CHECK(l.picture.edges.size() == 2);  // x and w into it
    }
    SUBCASE("keep_partial off: nothing kept") {
        nnef::Session s;
        CHECK_FALSE(s.load_text("graph.nnef", "version 1.0;\ngraph g( x ) -> ( y )\n{\n    x = external(shape = [1, 4]);\n"
                                              "    y = add(x, missing);\n}\n"));
        CHECK(s.partial_graph() == nullptr);
        CHECK(s.failed_statement() == nullptr);
    }
}

TEST_CASE("a custom operation's results have unknown extents") {
    Loaded l = load("version 1.0;\nextension KHR_enable_fragment_definitions;\n"
                    "fragment my_op( x: tensor<scalar> ) -> ( y: tensor<scalar> );\n"
                    "graph g( x ) -> ( y )\n{\n    x = external(shape = [1, 4]);\n    t = my_op(x);\n    y = relu(t);\n}\n");
    REQUIRE(l.ok);
    std::size_t unknown = 0;
    for (const auto& e : l.picture.edges) unknown += e.info.shape ? 0 : 1;
    CHECK(unknown == 2);  // t into relu, y into the output
    const std::string dot = nnef::draw::to_dot(l.picture);
    CHECK(dot.find("scalar[?]") != std::string::npos);
}

TEST_CASE("DOT: collapsed invocations are one node, open ones nested subgraphs") {
    Loaded l = load(read_file(std::string(NNEF_SOURCE_DIR) + "/samples/composite/graph.nnef"));
    REQUIRE(l.ok);
    std::string dot = nnef::draw::to_dot(l.picture);
    CHECK(dot.find("subgraph") == std::string::npos);
    nnef::draw::PictureOptions o;
    o.expand_all = true;
    nnef::draw::apply_expansion(l.picture, o);
    dot = nnef::draw::to_dot(l.picture);
    std::size_t subgraphs = 0;
    for (auto at = dot.find("subgraph cluster_"); at != std::string::npos; at = dot.find("subgraph cluster_", at + 1)) ++subgraphs;
    CHECK(subgraphs == l.picture.clusters.size());
    std::string svg, error;
    REQUIRE_MESSAGE(nnef::draw::render(dot, "svg", svg, error), error);
    CHECK(svg.find("<svg") != std::string::npos);
    CHECK_FALSE(nnef::draw::render("digraph { a -> ", "svg", svg, error));
    CHECK_FALSE(error.empty());
}

}  // TEST_SUITE
