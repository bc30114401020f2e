// The VPU IR's text form (lowering/vpu/ir_text.hpp): lossless after every pass (write -> read ->
// write gives the same text, and the remaining passes compile the read module to the task list of
// the normal compile, constants included), and bad text gets a located error, never a crash.
#include <doctest/doctest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "common/skip.hpp"
#include "lowering/vpu/compiler.hpp"
#include "lowering/vpu/ir_text.hpp"
#include "unit/mlir/lowered_model.hpp"

namespace ir_text_test {

namespace fs = std::filesystem;
namespace vpu = nnef::vpu;
using nnef::Diagnostics;

std::string text(const Diagnostics& d) {
    std::string s;
    for (const auto& x : d) s += x.code + ": " + x.message + "\n";
    return s;
}

// The task list as its JSON and its constants' bytes.
std::string list_text(const vpu::TaskList& list) {
    std::string s = vpu::to_json_text(list);
    for (const vpu::Buffer& b : list.buffers)
        if (b.data) s += b.id + ":" + std::string(b.data->begin(), b.data->end()) + "\n";
    return s;
}

// After every pass (and before the first): write, read, write again and compare; then run the
// remaining passes on the read module and compare the task list with the normal compile's.
void check_round_trips(const fs::path& model, std::optional<std::uint64_t> seed, nnef::tosa::Profile profile) {
    auto lowered = nnef_test::lower_model(model, seed, profile);
    INFO(nnef_test::rendered(*lowered));
    REQUIRE(lowered->graph);
    const nnef::tosa::Graph& g = *lowered->graph;
    Diagnostics d0{0};
    const auto expected = vpu::compile(g, vpu::Target{}, {}, d0);
    INFO(text(d0));
    REQUIRE(expected);
    const std::string want = list_text(*expected);
    const auto pipeline = vpu::compile_pipeline();
    vpu::ir::Module m;
    m.graph = &g;
    m.name = g.name;
    for (std::size_t done = 0; done <= pipeline.passes.size(); ++done) {
        const std::string after = done == 0 ? "(none)" : pipeline.passes[done - 1].name;
        CAPTURE(after);
        if (done > 0) {
            Diagnostics d{0};
            REQUIRE(pipeline.passes[done - 1].run(m, d));
        }
        const std::string first = vpu::ir::write_text(m);
        Diagnostics d{0};
        auto read = vpu::ir::read_text(first, "first.txt", d);
        INFO(text(d));
        REQUIRE(read);
        const std::string second = vpu::ir::write_text(read->module);
        CHECK(second.size() == first.size());
        CHECK(second == first);
        // the rest of the pipeline on the read module, each pass verified
        for (std::size_t k = done; k < pipeline.passes.size(); ++k) {
            Diagnostics dk{0};
            INFO(pipeline.passes[k].name << ": " << text(dk));
            REQUIRE(vpu::run_pass(read->module, pipeline.passes[k].name, dk));
        }
        CHECK(list_text(read->module.list) == want);
    }
}

TEST_CASE("ir text: a sample (random weights), after every pass: write-read-write and the rest of the compile agree") {
    check_round_trips(fs::path(NNEF_SOURCE_DIR) / "samples" / "classifier", 1, nnef::tosa::Profile::pro_fp);
}

TEST_CASE("ir text: a quantized sample at pro-int (SHAVE kernels with TOSA attributes, tables with requantization)") {
    check_round_trips(fs::path(NNEF_SOURCE_DIR) / "samples" / "quantized", 1, nnef::tosa::Profile::pro_int);
}

TEST_CASE("ir text: squeezenet1_0 with its stored weights, after every pass") {
    const fs::path model = fs::path(NNEF_CORPUS_DIR) / "real" / "squeezenet1_0";
    if (!fs::exists(model / "graph.nnef")) NNEF_SKIP("the corpus model " + model.string() + " is not here");
    check_round_trips(model, std::nullopt, nnef::tosa::Profile::pro_fp);
}

// The error of reading `t`, or "(read)".
std::string read_error(const std::string& t) {
    Diagnostics d{0};
    const auto r = vpu::ir::read_text(t, "in.txt", d);
    if (r) return "(read)";
    REQUIRE(d.size() == 1);
    CHECK(d.list().front().code == "bad-vpu-ir");
    CHECK(d.list().front().path == "in.txt");
    return d.list().front().message;
}

// A module after tile from the classifier sample, as text.
std::string tiled_text() {
    auto lowered = nnef_test::lower_model(fs::path(NNEF_SOURCE_DIR) / "samples" / "classifier", 1);
    REQUIRE(lowered->graph);
    vpu::ir::Module m;
    m.graph = &*lowered->graph;
    m.name = lowered->graph->name;
    const auto pipeline = vpu::compile_pipeline();
    for (std::size_t k = 0; k < pipeline.passes.size(); ++k) {
        Diagnostics d{0};
        REQUIRE(pipeline.passes[k].run(m, d));
        if (pipeline.passes[k].name == "tile") break;
    }
    return vpu::ir::write_text(m);
}

// `t` with the first `from` after `anchor` replaced by `to`.
std::string edit(std::string t, const std::string& anchor, const std::string& from, const std::string& to) {
    const auto a = t.find(anchor);
    REQUIRE(a != std::string::npos);
    const auto i = t.find(from, a);
    REQUIRE(i != std::string::npos);
    return t.replace(i, from.size(), to);
}

int line_of(const std::string& t, const std::string& s) {
    const auto i = t.find(s);
    REQUIRE(i != std::string::npos);
    return 1 + int(std::count(t.begin(), t.begin() + std::ptrdiff_t(i), '\n'));
}

TEST_CASE("ir text: bad input is an error with its line and column and the field, never a crash") {
    const std::string t = tiled_text();
    CHECK(read_error(t) == "(read)");
    // malformed JSON
    CHECK(read_error("{\n  \"format\": \"nnef-vpu-ir\",\n  oops\n}") .find("line 3, column 3") != std::string::npos);
    CHECK(read_error("") .find("malformed JSON") != std::string::npos);
    // a wrong type in the third tile: its line and the pointer
    const int tile_line = line_of(t, "\"tiles\": [") + 1;  // the first tile
    std::string e = read_error(edit(t, "\"tiles\": [\n", "{\"layer\":", "{\"layer\":\"x\",\"_\":"));
    INFO(e);
    CHECK(e.find("line " + std::to_string(tile_line) + ", column") != std::string::npos);
    CHECK(e.find("field /tiles/0/") != std::string::npos);
    e = read_error(edit(t, "\"tiles\": [\n", "\"rows\":", "\"rows\":true,\"x\":"));
    CHECK(e.find("unknown field 'x'") != std::string::npos);
    // an index out of range, a bad enumeration name, bad hex, a wrong data size
    e = read_error(edit(t, "\"layers\": [", "\"tensor\":0", "\"tensor\":999"));
    CHECK(e.find("expected an integer in [-1,") != std::string::npos);
    e = read_error(edit(t, "\"layers\": [", "\"exec\":\"", "\"exec\":\"gpu"));
    CHECK(e.find("expected one of NCE, SHAVE, copy") != std::string::npos);
    e = read_error(edit(t, "\"tensors\": [", "\"data\":\"", "\"data\":\"zz"));
    CHECK(e.find("not a hex digit at character 0") != std::string::npos);
    e = read_error(edit(t, "\"tensors\": [", "\"data\":\"", "\"data\":\"00"));
    CHECK(e.find("the tensor") != std::string::npos);
    e = read_error(edit(t, "\"promises\"", "\"tiled\"", "\"tilled\""));
    CHECK(e.find("field /promises/3: expected one of layers, post-ops-fused,") != std::string::npos);
    e = read_error(edit(t, "\"format\"", "nnef-vpu-ir", "nnef-vpu-tasks"));
    CHECK(e.find("line 2, column 13: field /format: expected \"nnef-vpu-ir\"") != std::string::npos);
    // every prefix of the text: an error or a module, never a crash
    for (std::size_t n = 0; n < t.size(); n += 997) {
        Diagnostics d{0};
        if (!vpu::ir::read_text(t.substr(0, n), "cut.txt", d)) CHECK(d.has_errors());
    }
}

TEST_CASE("ir text: one pass runs on the module of the stage before it, else an error naming the stages") {
    Diagnostics d{0};
    auto r = vpu::ir::read_text(tiled_text(), "tiled.txt", d);
    REQUIRE(r);
    Diagnostics d1{0};
    CHECK_FALSE(vpu::run_pass(r->module, "schedule", d1));
    CHECK(text(d1).find("wrong-stage: pass 'schedule' runs on a module after pass 'build-tables'; this one carries the promises: "
                        "layers post-ops-fused weights-laid-out tiled") != std::string::npos);
    Diagnostics d2{0};
    CHECK_FALSE(vpu::run_pass(r->module, "fold", d2));
    CHECK(text(d2).find("unknown-pass") != std::string::npos);
    Diagnostics d3{0};
    CHECK(vpu::run_pass(r->module, "build-tables", d3));
    CHECK(r->module.has(vpu::ir::Promise::tables_built));
}

}  // namespace ir_text_test
