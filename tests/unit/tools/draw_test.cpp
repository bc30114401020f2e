// End-to-end tests of nnef-draw: the real binary on every sample and corpus model (DOT and SVG, with
// node and edge counts against the graph counted here from the front end's graph), cluster nesting
// against the fragments of samples/composite, the error mark on broken models, `?` dimensions after
// a custom operation, the node limit of the laid-out formats, exit codes and bad options.
#include <doctest/doctest.h>

#include <filesystem>
#include <regex>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <nnef/nnef.hpp>

#include "tool_runner.hpp"
#include "unit/draw/graph_counts.hpp"

namespace draw_test {

namespace fs = std::filesystem;
using nnef_test::contains;
using nnef_test::occurrences;
using nnef_test::quoted;
using nnef_test::run_tool;

// Nodes and edges of DOT text as nnef-draw writes it: one `ID [label=...]` line per node, one
// `A -> B` line per edge; a copy of a shared variable or constant is `ID_K` (counted in `copies`).
nnef_test::GraphCounts dot_counts(const std::string& dot) {
    static const std::regex node("^\\s+[nc][0-9]+ \\[label=");
    static const std::regex copy("^\\s+n[0-9]+_[0-9]+ \\[label=");
    static const std::regex edge("^\\s+[nc][0-9]+(_[0-9]+)? -> [nc][0-9]+[ ;]");
    nnef_test::GraphCounts c;
    std::istringstream in(dot);
    std::string line;
    while (std::getline(in, line)) {
        if (std::regex_search(line, node)) ++c.nodes;
        if (std::regex_search(line, copy)) ++c.copies;
        if (std::regex_search(line, edge)) ++c.edges;
    }
    return c;
}

// The graph as the front end makes it (what nnef-draw draws, every invocation open).
nnef_test::GraphCounts model_counts(const fs::path& model, bool expand_all = false) {
    nnef::FlattenOptions o;
    o.weights_optional = true;
    o.expand_all = expand_all;
    nnef::Session s(o);
    REQUIRE_MESSAGE(s.load_path(model.string()), model.string());
    return nnef_test::graph_counts(*s.graph());
}

std::vector<fs::path> models_at_hand() {
    std::vector<fs::path> models;
    for (const auto& e : fs::directory_iterator(nnef_test::source_dir() / "samples")) models.push_back(e.path());
    if (!nnef_test::have_corpus()) {
        NNEF_SKIP_PART("corpus not found at " << nnef_test::corpus_dir().string() << ": the samples only");
    } else {
        for (const std::string& m : nnef_test::real_models())
            if (nnef_test::sweep_runs(m)) models.push_back(nnef_test::corpus_dir() / "real" / m);
        for (const auto& e : fs::directory_iterator(nnef_test::corpus_dir() / "quantized")) models.push_back(e.path());
    }
    std::sort(models.begin(), models.end());
    return models;
}

TEST_SUITE("tools") {

TEST_CASE("nnef-draw: every sample and corpus model as DOT and SVG, nodes and edges as in the graph") {
    for (const fs::path& model : models_at_hand()) {
        CAPTURE(model.string());
        // Every invocation open: one drawn node per operation and output of the expanded graph.
        const nnef_test::GraphCounts want = model_counts(model, true);
        const fs::path dot = nnef_test::fresh_scratch(model.filename().string() + ".dot");
        auto r = run_tool("nnef-draw", "--expand-all " + quoted(model) + " -o " + quoted(dot));
        CHECK_MESSAGE(r.code == 0, r.err);
        const nnef_test::GraphCounts got = dot_counts(nnef_test::read_text(dot));
        CHECK(got.nodes == want.nodes);
        CHECK(got.edges == want.edges);
        // Above 200 drawn edges a variable or constant read by several operations is drawn once
        // per reader (docs/draw.md, Limits and speed).
        const std::size_t copies = want.edges > nnef_test::large_picture_edges ? want.copies : 0;
        CHECK(got.copies == copies);
        // The SVG laid out in-process (every model, densenet121 and convnext_tiny too: their long
        // edges in lanes): one <g class="node"> per node and copy, one "edge" group per edge.
        const fs::path svg = nnef_test::fresh_scratch(model.filename().string() + ".svg");
        r = run_tool("nnef-draw", "--expand-all " + quoted(model) + " -o " + quoted(svg));
        CHECK_MESSAGE(r.code == 0, r.err);
        const std::string text = nnef_test::read_text(svg);
        CHECK(contains(text, "<svg"));
        CHECK(occurrences(text, "class=\"node\"") == want.nodes + copies);
        CHECK(occurrences(text, "class=\"edge\"") == want.edges);
    }
}

TEST_CASE("nnef-draw: the clusters of samples/composite nest as its fragments call each other") {
    const fs::path model = nnef_test::sample_dir("composite");
    // --depth 9 opens every invocation of the document's fragments (standard compounds stay atomic).
    auto r = run_tool("nnef-draw", "--depth 9 " + quoted(model));
    REQUIRE(r.code == 0);
    // The fragment of each cluster and of the cluster around it, from the nesting of the DOT text.
    std::vector<std::string> stack;
    std::map<std::string, std::multiset<std::string>> parents;  // fragment -> the fragments around its invocations
    std::size_t deepest = 0;
    std::istringstream in(r.out);
    std::string line;
    static const std::regex open("subgraph cluster_c[0-9]+ \\{");
    static const std::regex label("^\\s+label=\"([a-z_]+) \\(graph\\.nnef:[0-9]+\\)\"");
    bool want_label = false;
    while (std::getline(in, line)) {
        std::smatch m;
        if (std::regex_search(line, open)) {
            want_label = true;
        } else if (want_label && std::regex_search(line, m, label)) {
            parents[m[1]].insert(stack.empty() ? "" : stack.back());
            stack.push_back(m[1]);
            deepest = std::max(deepest, stack.size());
            want_label = false;
        } else if (line.find_first_not_of(' ') != std::string::npos && line.substr(line.find_first_not_of(' ')) == "}" &&
                   !stack.empty() && line != "}") {
            stack.pop_back();
        }
    }
    // conv_stack recurses for its 3 channel counts; each level calls conv_layer; branches calls it
    // for sizes 1, 3 and 5 (a comprehension, the 0 filtered out); flatten once.
    CHECK(parents["conv_stack"] == std::multiset<std::string>{"", "conv_stack", "conv_stack"});
    CHECK(parents["conv_layer"] == std::multiset<std::string>{"conv_stack", "conv_stack", "conv_stack", "branches", "branches", "branches"});
    CHECK(parents["branches"] == std::multiset<std::string>{""});
    CHECK(parents["flatten"] == std::multiset<std::string>{""});
    CHECK(deepest == 4);
    // Depth 0 (the default): the graph as written, each top-level invocation one box node.
    r = run_tool("nnef-draw", quoted(model));
    REQUIRE(r.code == 0);
    CHECK_FALSE(contains(r.out, "subgraph"));
    CHECK(occurrences(r.out, "shape=box3d") == 3);
    // --expand conv_layer: every conv_layer invocation open, and the invocations around them.
    r = run_tool("nnef-draw", "--expand conv_layer " + quoted(model));
    REQUIRE(r.code == 0);
    CHECK(occurrences(r.out, "subgraph cluster_") == 10);  // all but flatten
}

TEST_CASE("nnef-draw: an invalid model is drawn with its first error marked, and exits 1") {
    SUBCASE("a semantic error after two statements") {
        const fs::path doc = nnef_test::write_scratch("draw-semantic/graph.nnef",
                                                      "version 1.0;\n"
                                                      "graph g( x ) -> ( y )\n"
                                                      "{\n"
                                                      "    x = external(shape = [1, 4]);\n"
                                                      "    a = relu(x);\n"
                                                      "    y = add(a, missing);\n"
                                                      "}\n");
        const fs::path out = nnef_test::fresh_scratch("draw-semantic.dot");
        auto r = run_tool("nnef-draw", quoted(doc) + " -o " + quoted(out));
        CHECK(r.code == 1);
        CHECK(contains(r.err, "graph.nnef:6:"));
        CHECK(contains(r.err, "error[semantic]"));
        const std::string dot = nnef_test::read_text(out);
        // x, a, the failed statement (marked, with an edge from `a`) and the output y
        CHECK(dot_counts(dot).nodes == 4);
        CHECK(occurrences(dot, "penwidth=2.5") == 1);
        CHECK(contains(dot, "missing"));
        CHECK(contains(dot, "shape=octagon"));
        std::smatch m;
        REQUIRE(std::regex_search(dot, m, std::regex("(n[0-9]+) \\[label=\"add\\\\ny")));
        CHECK(contains(dot, "n1 -> " + m[1].str()));
    }
    SUBCASE("a shape error marks the invocation where it sits") {
        const fs::path doc = nnef_test::write_scratch("draw-shape/graph.nnef",
                                                      "version 1.0;\n"
                                                      "graph g( x ) -> ( y )\n"
                                                      "{\n"
                                                      "    x = external(shape = [1, 4]);\n"
                                                      "    w = variable(shape = [3, 5], label = 'w');\n"
                                                      "    y = matmul(x, w);\n"
                                                      "}\n");
        auto r = run_tool("nnef-draw", "--format json " + quoted(doc));
        CHECK(r.code == 1);
        const nlohmann::json d = nlohmann::json::parse(r.out);
        CHECK(d["exit_status"] == 1);
        const nlohmann::json& nodes = d["picture"]["nodes"];
        std::size_t marked = 0;
        for (const auto& n : nodes)
            if (!n["error"].is_null()) {
                ++marked;
                CHECK(n["op"] == "matmul");
                CHECK(n["error"].get<std::string>().find("graph.nnef:6:") != std::string::npos);
            }
        CHECK(marked == 1);
        CHECK(d["diagnostics"].size() >= 1);
    }
    SUBCASE("a syntax error before any operation: the error alone") {
        const fs::path doc = nnef_test::write_scratch("draw-syntax/graph.nnef",
                                                      "version 1.0;\n"
                                                      "graph g( x ) -> ( y )\n"
                                                      "{\n"
                                                      "    x = external(shape = [1, 4];\n"
                                                      "}\n");
        const fs::path out = nnef_test::fresh_scratch("draw-syntax.svg");
        auto r = run_tool("nnef-draw", quoted(doc) + " -o " + quoted(out));
        CHECK(r.code == 1);
        CHECK(contains(r.err, "graph.nnef:4:"));
        CHECK(contains(r.err, "error[syntax]"));
        const std::string svg = nnef_test::read_text(out);
        CHECK(occurrences(svg, "class=\"node\"") == 1);
        CHECK(contains(svg, "error[syntax]"));
    }
}

TEST_CASE("nnef-draw: a custom operation's unknown shapes are drawn as ?") {
    const fs::path doc = nnef_test::write_scratch("draw-custom/graph.nnef",
                                                  "version 1.0;\n"
                                                  "extension KHR_enable_fragment_definitions;\n"
                                                  "fragment my_op( x: tensor<scalar> ) -> ( y: tensor<scalar> );\n"
                                                  "graph g( x ) -> ( y )\n"
                                                  "{\n"
                                                  "    x = external(shape = [1, 4]);\n"
                                                  "    t = my_op(x);\n"
                                                  "    y = relu(t);\n"
                                                  "}\n");
    auto r = run_tool("nnef-draw", quoted(doc));
    CHECK(r.code == 0);
    CHECK(contains(r.out, "label=\"scalar[1,4]\""));  // into my_op
    CHECK(occurrences(r.out, "[?]\"") == 3);          // the edges of t and y, and the output node y
}

TEST_CASE("nnef-draw: formats, options and exit codes") {
    const fs::path model = nnef_test::sample_dir("classifier");
    SUBCASE("the format from the extension, or --format") {
        const fs::path png = nnef_test::fresh_scratch("draw.png");
        auto r = run_tool("nnef-draw", quoted(model) + " -o " + quoted(png));
        CHECK(r.code == 0);
        CHECK(nnef_test::read_text(png).rfind("\x89PNG", 0) == 0);
        r = run_tool("nnef-draw", "--format svg " + quoted(model));
        CHECK(r.code == 0);
        CHECK(contains(r.out, "<svg"));
        CHECK(contains(r.out, "scalar[1,3,32,32]"));
        r = run_tool("nnef-draw", "--no-shapes --format svg " + quoted(model));
        CHECK_FALSE(contains(r.out, "scalar[1,16,32,32]"));
        const fs::path json = nnef_test::fresh_scratch("draw.json");
        r = run_tool("nnef-draw", quoted(model) + " -o " + quoted(json));
        CHECK(r.code == 0);
        const nlohmann::json d = nlohmann::json::parse(nnef_test::read_text(json));
        CHECK(d["tool"] == "nnef-draw");
        CHECK(d["picture"]["schema"] == "nnef-draw/1");
    }
    SUBCASE("bad options and unreadable models") {
        auto r = run_tool("nnef-draw", quoted(model) + " -o " + quoted(nnef_test::fresh_scratch("x.pdf")));
        CHECK(r.code == 2);
        CHECK(contains(r.err, "nnef-draw: error[usage]: cannot tell the format from the file name"));
        r = run_tool("nnef-draw", "--depth x " + quoted(model));
        CHECK(r.code == 2);
        CHECK(contains(r.err, "nnef-draw: error[usage]: --depth"));
        r = run_tool("nnef-draw", "--format pdf " + quoted(model));
        CHECK(r.code == 2);
        const fs::path out = nnef_test::fresh_scratch("never.svg");
        r = run_tool("nnef-draw", quoted(nnef_test::scratch_dir() / "no-such-model") + " -o " + quoted(out));
        CHECK(r.code == 2);
        CHECK(contains(r.err, "error[io]"));
        CHECK_FALSE(fs::exists(out));
        r = run_tool("nnef-draw", "");
        CHECK(r.code == 2);
    }
}

TEST_CASE("nnef-draw: svg and png refuse more nodes than the layout limit, dot draws them") {
    // 7001 operations, above the limit of 2500.
    std::string text = "version 1.0;\ngraph g( x ) -> ( y )\n{\n    x = external(shape = [1, 4]);\n";
    std::string last = "x";
    for (int i = 0; i < 7000; ++i) {
        const std::string t = i + 1 == 7000 ? "y" : "t" + std::to_string(i);
        text += "    " + t + " = relu(" + last + ");\n";
        last = t;
    }
    text += "}\n";
    const fs::path doc = nnef_test::write_scratch("draw-large/graph.nnef", text);
    auto r = run_tool("nnef-draw", "--format svg " + quoted(doc));
    CHECK(r.code == 2);
    CHECK(contains(r.err, "nnef-draw: error[usage]: the picture has 7002 nodes to draw, more than 2500"));
    r = run_tool("nnef-draw", "--format dot " + quoted(doc));
    CHECK(r.code == 0);
    CHECK(dot_counts(r.out).nodes == 7002);
}

}  // TEST_SUITE

}  // namespace draw_test
