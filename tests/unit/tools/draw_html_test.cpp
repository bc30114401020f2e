// nnef-draw --format html end to end (docs/draw.md, The HTML page): the real binary on real models;
// the page's structure: the picture embedded in full, the lowering member with --lowering, the
// error mark and the lowering error of a broken model, the usage errors.
#include <doctest/doctest.h>

#include <map>

#include <nlohmann/json.hpp>

#include "common/skip.hpp"
#include "tool_runner.hpp"

namespace {

using nlohmann::json;
using namespace nnef_test;

// The picture document embedded in a page.
json embedded_picture(const std::string& page) {
    const std::string open = "<script id=\"picture\" type=\"application/json\">";
    const std::size_t at = page.find(open);
    REQUIRE(at != std::string::npos);
    const std::size_t from = at + open.size();
    return json::parse(page.substr(from, page.find("</script>", from) - from));
}

// Why this build writes no page (nnef-draw says so), or empty when it does.
std::string no_page_reason() {
    static const std::string reason = [] {
        const RunResult r = run_tool("nnef-draw", quoted(sample_dir("classifier")) + " --format html");
        if (r.code == 2 && contains(r.err, "this build has no HTML page")) return r.err;
        return std::string();
    }();
    return reason;
}

json json_picture(const std::string& args) {
    const RunResult r = run_tool("nnef-draw", args + " --format json");
    REQUIRE(r.code == 0);
    return json::parse(r.out)["picture"];
}

}  // namespace

TEST_CASE("nnef-draw -o x.html: one offline page holding the same picture as --format json") {
    if (!no_page_reason().empty()) NNEF_SKIP(no_page_reason());
    const auto page_path = fresh_scratch("composite.html");
    const RunResult r = run_tool("nnef-draw", quoted(sample_dir("composite")) + " --depth 1 -o " + quoted(page_path));
    CAPTURE(r.err);
    REQUIRE(r.code == 0);
    const std::string page = read_text(page_path);
    CHECK(page.rfind("<!DOCTYPE html>", 0) == 0);
    CHECK_FALSE(contains(page, "<script src"));
    CHECK_FALSE(contains(page, "<link"));
    const json pic = embedded_picture(page);
    const json same = json_picture(quoted(sample_dir("composite")) + " --depth 1");
    CHECK(pic["nodes"] == same["nodes"]);
    CHECK(pic["edges"] == same["edges"]);
    CHECK(pic["clusters"] == same["clusters"]);
    CHECK(pic["lowering"].is_null());
    CHECK(pic["clusters"].size() > 3);
    // --format html to stdout
    const RunResult s = run_tool("nnef-draw", quoted(sample_dir("composite")) + " --format html");
    CHECK(s.code == 0);
    CHECK(embedded_picture(s.out)["nodes"].size() == pic["nodes"].size());
}

TEST_CASE("nnef-draw --lowering: the TOSA graph, the VPU schedule and the links in the page") {
    if (!no_page_reason().empty()) NNEF_SKIP(no_page_reason());
    const auto page_path = fresh_scratch("classifier.html");
    const RunResult r = run_tool("nnef-draw", quoted(sample_dir("classifier")) + " --lowering -o " + quoted(page_path));
    CAPTURE(r.err);
    REQUIRE(r.code == 0);
    const json pic = embedded_picture(read_text(page_path));
    const json& low = pic["lowering"];
    REQUIRE(low.is_object());
    CHECK(low["error"].is_null());
    REQUIRE(low["tosa"].is_object());
    REQUIRE(low["vpu"].is_object());
    // each conv of the sample links to one CONV2D and to NCE tasks on the timeline
    std::size_t convs = 0;
    for (const json& n : pic["nodes"]) {
        if (n["op"] != "conv") continue;
        ++convs;
        const json& l = low["links"][n["id"].get<std::string>()];
        REQUIRE(l.is_object());
        std::size_t conv2d = 0;
        for (const json& t : low["tosa"]["nodes"])
            for (const json& id : l["tosa"])
                if (t["id"] == id && t["op"] == "CONV2D") ++conv2d;
        CHECK(conv2d == 1);
        REQUIRE(l["tasks"].is_array());
        bool nce = false;
        for (const json& t : low["vpu"]["tasks"])
            for (const json& id : l["tasks"])
                if (t["id"] == id && t["queue"].get<std::string>().rfind("NCE", 0) == 0) nce = true;
        CHECK(nce);
    }
    CHECK(convs >= 2);
    const std::string svg = low["vpu"]["svg"];
    CHECK(occurrences(svg, "<g data-task=\"") == low["vpu"]["tasks"].size());
}

TEST_CASE("nnef-draw --lowering on a broken model: the error marked, the lowering pane says why") {
    if (!no_page_reason().empty()) NNEF_SKIP(no_page_reason());
    write_scratch("draw-broken/graph.nnef", "version 1.0;\ngraph broken( input ) -> ( output )\n{\n"
                                            "    input = external<scalar>(shape = [1, 3, 8, 8]);\n"
                                            "    filter = variable<scalar>(shape = [4, 5, 3, 3], label = 'filter');\n"
                                            "    conv1 = conv(input, filter);\n"
                                            "    output = relu(conv1);\n}\n");
    const auto page_path = fresh_scratch("broken.html");
    const RunResult r = run_tool("nnef-draw", quoted(scratch_dir() / "draw-broken") + " --lowering -o " + quoted(page_path));
    CHECK(r.code == 1);
    CHECK(contains(r.err, "graph.nnef:6:"));
    const json pic = embedded_picture(read_text(page_path));
    std::size_t marked = 0;
    for (const json& n : pic["nodes"]) marked += n["error"].is_string();
    CHECK(marked == 1);
    REQUIRE(pic["lowering"].is_object());
    CHECK(contains(pic["lowering"]["error"].get<std::string>(), "nothing was lowered"));
    CHECK(pic["lowering"]["tosa"].is_null());

    // a valid model the TOSA lowering refuses: drawn, exit 0, the lowering error in the page
    write_scratch("draw-unlowerable/graph.nnef", "version 1.0;\ngraph g( x ) -> ( y )\n{\n"
                                                 "    x = external<scalar>(shape = [1, 4, 8, 8]);\n"
                                                 "    y = local_response_normalization(x, size = [1, 3, 1, 1]);\n}\n");
    const auto page2 = fresh_scratch("unlowerable.html");
    const RunResult u = run_tool("nnef-draw", quoted(scratch_dir() / "draw-unlowerable") + " --lowering -o " + quoted(page2));
    CHECK(u.code == 0);
    const json pic2 = embedded_picture(read_text(page2));
    CHECK(contains(pic2["lowering"]["error"].get<std::string>(), "error[tosa]: operation 'local_response_normalization' cannot be lowered"));
}

TEST_CASE("nnef-draw html usage errors") {
    const std::string model = quoted(sample_dir("classifier"));
    RunResult r = run_tool("nnef-draw", model + " --lowering --format svg");
    CHECK(r.code == 2);
    CHECK(contains(r.err, "--lowering applies to the html format"));
    r = run_tool("nnef-draw", model + " --lowering -o " + quoted(scratch_dir() / "x.dot"));
    CHECK(r.code == 2);
    r = run_tool("nnef-draw", model + " -o " + quoted(scratch_dir() / "x.htmx"));
    CHECK(r.code == 2);
    CHECK(contains(r.err, "dot|svg|png|json|html"));
}

TEST_CASE("nnef-draw html: a picture of more than 2500 drawn nodes is refused, not left to hang a browser") {
    if (!no_page_reason().empty()) NNEF_SKIP(no_page_reason());
    // 2600 operations in a chain: 2602 nodes with the input and the output (the page's first view
    // is laid out by Graphviz above 400 nodes, for at most 2500 as svg)
    std::string text = "version 1.0;\ngraph chain( x ) -> ( y )\n{\n    x = external<scalar>(shape = [1, 4]);\n    t0 = relu(x);\n";
    for (int i = 1; i < 2599; ++i) text += "    t" + std::to_string(i) + " = relu(t" + std::to_string(i - 1) + ");\n";
    text += "    y = relu(t2598);\n}\n";
    write_scratch("draw-chain/graph.nnef", text);
    const auto page = fresh_scratch("chain.html");
    const RunResult r = run_tool("nnef-draw", quoted(scratch_dir() / "draw-chain") + " -o " + quoted(page));
    CHECK(r.code == 2);
    CHECK(contains(r.err, "the picture has 2602 nodes to draw, more than 2500, the most that html is laid out for"));
    CHECK_FALSE(std::filesystem::exists(page));
    // the same model as dot is written
    CHECK(run_tool("nnef-draw", quoted(scratch_dir() / "draw-chain") + " --format dot").code == 0);
}

TEST_CASE("nnef-draw html: a large picture's first view comes laid out, every drawn node placed") {
    if (!no_page_reason().empty()) NNEF_SKIP(no_page_reason());
    // 500 operations in a chain, each also reading the variable w: 502 nodes (more than the 400
    // the browser lays out itself) and 500 edges from w, so w is drawn once per reader.
    std::string text = "version 1.0;\ngraph chain( x ) -> ( y )\n{\n    x = external<scalar>(shape = [1, 4]);\n"
                       "    w = variable<scalar>(shape = [1, 4], label = 'w');\n    t0 = add(x, w);\n";
    for (int i = 1; i < 499; ++i) text += "    t" + std::to_string(i) + " = add(t" + std::to_string(i - 1) + ", w);\n";
    text += "    y = add(t498, w);\n}\n";
    write_scratch("draw-wide/graph.nnef", text);
    const auto page = fresh_scratch("wide.html");
    const RunResult r = run_tool("nnef-draw", quoted(scratch_dir() / "draw-wide") + " -o " + quoted(page));
    REQUIRE_MESSAGE(r.code == 0, r.err);
    const json pic = embedded_picture(read_text(page));
    REQUIRE(pic["layout"].is_object());
    const json& layout = pic["layout"];
    // every node of the picture, and w's 499 copies (w_1 .. w_499 beside their readers)
    for (const json& n : pic["nodes"]) CHECK_MESSAGE(layout.contains(n["id"].get<std::string>()), n["id"]);
    std::string w;
    for (const json& n : pic["nodes"])
        if (n["name"] == "w") w = n["id"];
    REQUIRE_FALSE(w.empty());
    CHECK(layout.contains(w + "_499"));
    CHECK_FALSE(layout.contains(w + "_500"));
    CHECK(layout.size() == pic["nodes"].size() + 499);
    // the chain runs down the page (y grows downwards in the browser)
    std::map<std::string, double> y;
    for (const json& n : pic["nodes"]) y[n["name"].get<std::string>()] = layout[n["id"].get<std::string>()][1].get<double>();
    for (int i = 1; i < 499; ++i) CHECK(y["t" + std::to_string(i)] > y["t" + std::to_string(i - 1)]);
    // a small picture is laid out in the browser
    const auto small = fresh_scratch("classifier.html");
    REQUIRE(run_tool("nnef-draw", quoted(sample_dir("classifier")) + " -o " + quoted(small)).code == 0);
    CHECK_FALSE(embedded_picture(read_text(small)).contains("layout"));
}
