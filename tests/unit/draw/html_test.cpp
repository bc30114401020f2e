// The nnef-draw HTML page (tools/draw/html) and the lowering member of the picture document.
#include <doctest/doctest.h>

#include <algorithm>
#include <map>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>
#include <nnef/draw/html.hpp>
#include <nnef/draw/lowering.hpp>
#include <nnef/nnef.hpp>

#include "common/skip.hpp"

namespace {

using nlohmann::json;

std::size_t count(const std::string& text, const std::string& what) {
    std::size_t n = 0;
    for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
    return n;
}

// A picture document as the contract of docs/draw.md writes it: one cluster, an error node, a
// tensor name that would close the script element if it were not escaped.
const char* small_picture = R"({"schema":"nnef-draw/1","model":"small","source":"small/graph.nnef",
 "clusters":[{"id":"c0","fragment":"block","label":"block","parent":null,"location":{"file":"graph.nnef","line":4,"column":5},"expanded":false}],
 "nodes":[{"id":"n0","kind":"input","name":"x","op":"external","cluster":null,"attributes":{"shape":"[1, 2]"},"location":null,"error":null,
           "tensor":{"dtype":"scalar","shape":[1,2],"bytes":8,"quantization":null}},
          {"id":"n1","kind":"operation","name":"y</script>","op":"relu","cluster":"c0","attributes":{},"location":{"file":"graph.nnef","line":5,"column":5},
           "error":"graph.nnef:5:5: error[shape]: bad","tensor":{"dtype":"scalar","shape":[1,null],"bytes":null,"quantization":null}}],
 "edges":[{"id":"e0","from":"n0","to":"n1","tensor":"x","dtype":"scalar","shape":[1,2],"quantization":null}],
 "lowering":null})";

// A picture of a loaded graph that names each operation by its first result (what the lowering
// links need: the producers of the tensors).
json picture_of(const nnef::Graph& g) {
    json nodes = json::array(), edges = json::array();
    std::map<std::string, std::string> producer;
    for (std::size_t i = 0; i < g.operations.size(); ++i) {
        const nnef::Operation& op = g.operations[i];
        std::string name = op.name;
        for (const auto& [param, v] : op.outputs)
            if (v.is_identifier()) {
                if (name == op.name) name = v.as_identifier();
                producer[v.as_identifier()] = "n" + std::to_string(i);
            }
        nodes.push_back({{"id", "n" + std::to_string(i)}, {"kind", "operation"}, {"name", name}, {"op", op.name}});
    }
    return {{"nodes", nodes}, {"edges", edges}};
}

}  // namespace

TEST_CASE("json_for_script: no '<' survives, so no text closes the script element") {
    CHECK(nnef::draw::json_for_script(R"({"a":"</script><!--"})") == R"({"a":"\u003c/script>\u003c!--"})");
    const json back = json::parse(nnef::draw::json_for_script(R"({"a":"</script>"})"));
    CHECK(back["a"] == "</script>");
}

TEST_CASE("write_html: one self-contained page with the picture embedded") {
    std::ostringstream out;
    std::string error;
    if (!nnef::draw::html_available()) {
        CHECK_FALSE(nnef::draw::write_html(small_picture, out, error));
        CHECK(error.find("no HTML page") != std::string::npos);
        NNEF_SKIP(error);
    }
    REQUIRE(nnef::draw::write_html(small_picture, out, error));
    CHECK(error.empty());
    const std::string page = out.str();
    CHECK(page.rfind("<!DOCTYPE html>", 0) == 0);
    CHECK(page.find("<title>small - nnef-draw</title>") != std::string::npos);
    // the libraries and the page's code inline; nothing to fetch at view time
    CHECK(page.find("cytoscape") != std::string::npos);
    CHECK(page.find("cytoscapeDagre") != std::string::npos);
    CHECK(page.find("<script src") == std::string::npos);
    CHECK(page.find("<link") == std::string::npos);
    CHECK(page.find("@import") == std::string::npos);
    // four script elements (two libraries, the picture, the page), and the tensor named
    // "y</script>" did not close one early
    CHECK(count(page, "<script") == 4);
    CHECK(count(page, "</script>") == 4);
    const std::size_t begin = page.find("<script id=\"picture\" type=\"application/json\">");
    REQUIRE(begin != std::string::npos);
    const std::size_t from = page.find('>', begin) + 1;
    const json embedded = json::parse(page.substr(from, page.find("</script>", from) - from));
    CHECK(embedded == json::parse(small_picture));
    CHECK(embedded["nodes"][1]["name"] == "y</script>");
}

TEST_CASE("write_html: text that is no picture document is refused with a reason") {
    if (!nnef::draw::html_available()) NNEF_SKIP(nnef::draw::html_unavailable_reason());
    for (const char* bad : {"", "[1,2]", "{\"nodes\": 3}", "{\"nodes\": [", "{}"}) {
        CAPTURE(bad);
        std::ostringstream out;
        std::string error;
        CHECK_FALSE(nnef::draw::write_html(bad, out, error));
        CHECK(error.find("not a picture document") != std::string::npos);
        CHECK(out.str().empty());
    }
}

TEST_CASE("source_tensor: the NNEF tensor a VPU task's source names") {
    const std::map<std::string, std::string> producers = {{"conv1", "n1"}, {"conv10", "n9"}, {"a", "n0"}};
    CHECK(nnef::draw::source_tensor("conv1", producers) == "conv1");
    CHECK(nnef::draw::source_tensor("conv1.k2", producers) == "conv1");
    CHECK(nnef::draw::source_tensor("conv10 (weights)", producers) == "conv10");
    CHECK(nnef::draw::source_tensor("conv1:tile3", producers) == "conv1");
    CHECK(nnef::draw::source_tensor("conv100", producers) == "");  // not conv10 nor conv1
    CHECK(nnef::draw::source_tensor("abc", producers) == "");
    CHECK(nnef::draw::source_tensor("", producers) == "");
}

TEST_CASE("lowering_member: the TOSA graph, the VPU schedule and exact links per NNEF operation") {
    nnef::FlattenOptions f;
    f.weights_optional = true;  // the sample is stored without weights; the lowering needs none
    nnef::Session session(f);
    REQUIRE(session.load_path(std::string(NNEF_SOURCE_DIR) + "/samples/classifier"));
    const nnef::Graph& g = *session.graph();
    const json picture = picture_of(g);
    nnef::draw::LoweringOptions options;
    options.title = "classifier";
    const json m = nnef::draw::lowering_member(g, session.sources(), picture, options);
    CAPTURE(m["error"]);
    REQUIRE(m["error"].is_null());
    REQUIRE(m["tosa"].is_object());
    CHECK(m["tosa"]["profile"] == "PRO-FP");
    REQUIRE(m["vpu"].is_object());
    const std::string svg = m["vpu"]["svg"];
    CHECK(svg.rfind("<svg", 0) == 0);
    CHECK(svg.find("classifier on ") != std::string::npos);
    // every task box carries its id, and every linked task is a box of the timeline
    CHECK(count(svg, "<g data-task=\"") == m["vpu"]["tasks"].size());
    std::size_t linked_ops = 0, linked_tasks = 0;
    for (const json& t : m["tosa"]["nodes"]) {
        if (t["kind"] != "operation") continue;
        REQUIRE(t.contains("origin"));
        if (t["node"].is_null()) continue;
        ++linked_ops;
        // the link agrees with the origin: the NNEF node of the picture named by the origin's tensor
        const std::string id = t["node"];
        const json& node = picture["nodes"][std::stoul(id.substr(1))];
        CHECK(node["name"] == t["origin"]["tensor"]);
        const json& ids = m["links"][id]["tosa"];
        CHECK(std::find(ids.begin(), ids.end(), t["id"]) != ids.end());
    }
    for (const json& t : m["vpu"]["tasks"]) {
        if (t["node"].is_null()) continue;
        ++linked_tasks;
        CHECK(svg.find("<g data-task=\"" + std::to_string(t["id"].get<long long>()) + "\">") != std::string::npos);
    }
    // every operation that computes links (a reshape may fold into its neighbours and keep none)
    std::size_t computing = 0;
    for (const json& n : picture["nodes"]) {
        const std::string op = n["op"];
        if (op != "conv" && op != "relu" && op != "linear" && op != "max_pool" && op != "softmax") continue;
        ++computing;
        CAPTURE(n["name"]);
        CHECK(m["links"].contains(n["id"].get<std::string>()));
    }
    CHECK(computing > 3);
    CHECK(linked_ops > 3);
    CHECK(linked_tasks > 3);
}

TEST_CASE("lowering_member: a model that does not lower keeps the error for the lowering pane") {
    nnef::Session session;
    // a valid model with an operation the TOSA lowering refuses (a window across the channels)
    REQUIRE(session.load_text("graph.nnef", "version 1.0;\ngraph g( x ) -> ( y )\n{\n"
                                             "  x = external<scalar>(shape = [1, 4, 8, 8]);\n"
                                             "  y = local_response_normalization(x, size = [1, 3, 1, 1]);\n}\n"));
    const json m = nnef::draw::lowering_member(*session.graph(), session.sources(), picture_of(*session.graph()));
    REQUIRE(m["error"].is_string());
    CHECK(m["error"].get<std::string>().rfind("TOSA: ", 0) == 0);
    CHECK(m["error"].get<std::string>().find("graph.nnef:5:7: error[tosa]: operation 'local_response_normalization' cannot be lowered") !=
          std::string::npos);
    CHECK(m["tosa"].is_null());
    CHECK(m["vpu"].is_null());
}
