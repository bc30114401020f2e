// End-to-end tests of nnef-to-tosa: the real binary on the samples and on small documents written
// here. The JSON output is read back with the library's reader and compared with the MLIR output
// of the same run (two writers, one graph).
#include <doctest/doctest.h>

#include <filesystem>
#include <map>
#include <set>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>
#include <nnef/diagnostics.hpp>

#include "lowering/tosa/json.hpp"
#include "tool_runner.hpp"

namespace to_tosa_test {

namespace fs = std::filesystem;
using nnef_test::quoted;
using nnef_test::contains;
using nnef_test::run_tool;
using nnef_test::shell_quote;

std::size_t count(const std::string& text, const std::string& what) {
    std::size_t n = 0;
    for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
    return n;
}

const fs::path classifier = nnef_test::source_dir() / "samples" / "classifier";

// A model folder with the given graph.nnef.
fs::path model(const std::string& name, const std::string& text) {
    return nnef_test::write_scratch("to_tosa/" + name + "/graph.nnef", text).parent_path();
}

TEST_CASE("nnef-to-tosa: help, version and usage errors") {
    auto r = run_tool("nnef-to-tosa", "--help");
    CHECK(r.code == 0);
    CHECK(contains(r.out, "--format FORMAT          the output's format: mlir|json|text (default mlir)"));
    CHECK(contains(r.out, "--profile PROFILE        the TOSA profile, pro-fp or pro-int (default: pro-int for a\n"
                     "                           quantized model (graph.quant), else pro-fp; a note says which)"));
    CHECK(contains(r.out, "--bias-grid GRID         PRO-INT: where a convolution's float bias"));
    CHECK(contains(r.out, "--no-weights"));
    r = run_tool("nnef-to-tosa", "--version");
    CHECK(r.code == 0);
    CHECK(contains(r.out, "nnef-to-tosa"));
    for (const char* bad : {"--format xml", "--profile pro-xx", "--level 4k", "--random-weights -1", "--random-weights",
                            "--bogus"}) {
        CAPTURE(bad);
        r = run_tool("nnef-to-tosa", std::string(bad) + " " + quoted(classifier));
        CHECK(r.code == 2);
        CHECK(contains(r.err, "nnef-to-tosa: error[usage]: "));
    }
    r = run_tool("nnef-to-tosa", "");
    CHECK(r.code == 2);
    CHECK(contains(r.err, "no input given"));
    r = run_tool("nnef-to-tosa", quoted(nnef_test::scratch_dir() / "no-such-model"));
    CHECK(r.code == 2);
}

TEST_CASE("nnef-to-tosa: MLIR, JSON and text of the classifier sample") {
    // The sample ships no weights: without --random-weights the loader says which files are missing.
    auto r = run_tool("nnef-to-tosa", quoted(classifier));
    CHECK(r.code == 1);
    CHECK(contains(r.err, "6 of the 6 variables have no tensor file in"));
    CHECK(contains(r.err, "'conv1/filter.dat', 'conv1/bias.dat', 'conv2/filter.dat' and 3 more"));

    const fs::path mlir_file = nnef_test::scratch_dir() / "classifier.mlir";
    r = run_tool("nnef-to-tosa", quoted(classifier) + " --random-weights 1 -o " + quoted(mlir_file));
    REQUIRE_MESSAGE(r.code == 0, r.err);
    CHECK(r.out.empty());
    const std::string mlir = nnef_test::read_text(mlir_file);
    // graph classifier(image) -> (output): image [1, 3, 32, 32], output [1, 10] (samples/classifier).
    CHECK(contains(mlir, "func.func @classifier(%image: tensor<1x3x32x32xf32>) -> (tensor<1x10xf32>) {"));
    CHECK(contains(mlir, "\"tosa.conv2d\""));
    CHECK(contains(mlir, "loc(\"conv1\"("));  // NNEF locations
    CHECK_FALSE(contains(mlir, "dense_resource<__elided__>"));

    r = run_tool("nnef-to-tosa", quoted(classifier) + " --random-weights 1 --format json");
    REQUIRE_MESSAGE(r.code == 0, r.err);
    nlohmann::json j;
    REQUIRE_NOTHROW(j = nlohmann::json::parse(r.out));
    nnef::Diagnostics d;
    auto g = nnef::tosa::graph_from_json(j, d);
    REQUIRE_MESSAGE(g.has_value(), (d.empty() ? "" : d.list().front().message));
    CHECK(g->name == "classifier");
    REQUIRE(g->main().inputs.size() == 1);
    CHECK(g->type(g->main().inputs[0]) == nnef::tosa::TensorType{nnef::tosa::DType::fp32, {1, 3, 32, 32}});
    CHECK(g->value(g->main().inputs[0]).name == "image");
    REQUIRE(g->main().outputs.size() == 1);
    CHECK(g->type(g->main().outputs[0]) == nnef::tosa::TensorType{nnef::tosa::DType::fp32, {1, 10}});
    // The MLIR text has one operator per operator of the graph (no control flow, no variables here).
    CHECK(count(mlir, "= \"tosa.") == g->main().ops.size());
    for (const nnef::tosa::Op& op : g->main().ops) CHECK(op.origin != nnef::tosa::no_origin);
    CHECK(j["origins"][0].contains("line"));

    r = run_tool("nnef-to-tosa", quoted(classifier) + " --random-weights 1 --format text");
    REQUIRE_MESSAGE(r.code == 0, r.err);
    CHECK(contains(r.out, "CONV2D("));
    CHECK(contains(r.out, "graph.nnef:"));

    // The same seed gives the same file, another seed other weights.
    r = run_tool("nnef-to-tosa", quoted(classifier) + " --random-weights 1");
    CHECK(r.out == mlir);
    r = run_tool("nnef-to-tosa", quoted(classifier) + " --random-weights 2");
    CHECK(r.code == 0);
    CHECK(r.out != mlir);
}

TEST_CASE("nnef-to-tosa: --no-weights and --resource-blobs") {
    auto r = run_tool("nnef-to-tosa", quoted(classifier) + " --no-weights");
    REQUIRE_MESSAGE(r.code == 0, r.err);
    CHECK(contains(r.out, "dense_resource<__elided__> : tensor<16x3x3x3xf32>"));  // conv1 filter, OHWI
    r = run_tool("nnef-to-tosa", quoted(classifier) + " --no-weights --format json");
    REQUIRE_MESSAGE(r.code == 0, r.err);
    CHECK(contains(r.out, "\"elided\": true"));
    r = run_tool("nnef-to-tosa", quoted(classifier) + " --random-weights 3 --resource-blobs");
    REQUIRE_MESSAGE(r.code == 0, r.err);
    CHECK(contains(r.out, "dialect_resources: {"));
    CHECK(contains(r.out, "dense_resource<c"));
}

TEST_CASE("nnef-to-tosa: an operation without a TOSA form, shapes beyond the level") {
    const fs::path custom = model("custom", "version 1.0;\nextension KHR_enable_fragment_definitions;\n\n"
                                            "fragment my_op( input: tensor<scalar> ) -> ( output: tensor<scalar> );\n\n"
                                            "graph g( x ) -> ( y )\n{\n    x = external<scalar>(shape = [1, 4]);\n"
                                            "    y = my_op(x);\n}\n");
    auto r = run_tool("nnef-to-tosa", quoted(custom));
    CHECK(r.code == 1);
    CHECK(contains(r.err, "my_op"));
    CHECK(contains(r.err, "graph.nnef:9:"));
    CHECK(r.out.empty());

    const fs::path rank7 = model("rank7", "version 1.0;\n\ngraph g( x ) -> ( y )\n{\n"
                                          "    x = external<scalar>(shape = [1, 2, 1, 2, 1, 2, 2]);\n    y = relu(x);\n}\n");
    r = run_tool("nnef-to-tosa", quoted(rank7));
    CHECK(r.code == 1);
    CHECK(contains(r.err, "error[tosa]"));
    CHECK(contains(r.err, "MAX_RANK"));
    CHECK(contains(r.err, "graph.nnef:6:"));
    CHECK(r.out.empty());
    // Level none allows rank 7 (MAX_RANK 32).
    r = run_tool("nnef-to-tosa", quoted(rank7) + " --level none");
    CHECK_MESSAGE(r.code == 0, r.err);
    CHECK(contains(r.out, "func.func @g(%x: tensor<1x2x1x2x1x2x2xf32>) -> (tensor<1x2x1x2x1x2x2xf32>)"));
}

TEST_CASE("nnef-to-tosa: --profile pro-int lowers the quantized sample to i8 codes, and names what has no integer form") {
    const fs::path quantized = nnef_test::source_dir() / "samples" / "quantized";
    auto r = run_tool("nnef-to-tosa", quoted(quantized) + " --profile pro-int --random-weights 1");
    REQUIRE_MESSAGE(r.code == 0, r.err);
    CHECK(contains(r.out, "profiles [pro_int]"));
    CHECK(contains(r.out, "func.func @quantized(%input: tensor<1x8xi8>) -> (tensor<1x4xi8>)"));
    CHECK(contains(r.out, "\"tosa.rescale\""));
    CHECK(contains(r.out, "\"tosa.table\""));
    CHECK(!contains(r.out, "xf32>"));
    // at PRO-FP the same sample computes in fp32
    r = run_tool("nnef-to-tosa", quoted(quantized) + " --profile pro-fp --random-weights 1");
    REQUIRE(r.code == 0);
    CHECK(contains(r.out, "tensor<1x8xf32>"));
    CHECK(r.err.empty());  // the profile was given: no note
    // a float graph without quantization has no PRO-INT form: one error that says so
    r = run_tool("nnef-to-tosa", quoted(classifier) + " --profile pro-int --random-weights 1");
    CHECK(r.code == 1);
    CHECK(contains(r.err, "has no quantization"));
    CHECK(count(r.err, "error") == 1);
    const fs::path soft = model("pro_int_softmax", "version 1.0;\ngraph G( x ) -> ( y )\n{\n    x = external(shape = [1, 4]);\n"
                                                   "    y = softmax(x);\n}\n");
    nnef_test::write_scratch("to_tosa/pro_int_softmax/graph.quant",
                             "\"x\": zero_point_linear_quantize(zero_point = 0, scale = 0.1, bits = 8, signed = true, "
                             "symmetric = false);\n");
    r = run_tool("nnef-to-tosa", quoted(soft) + " --profile pro-int");
    CHECK(r.code == 1);
    CHECK(contains(r.err, "operation 'softmax' cannot be lowered to TOSA"));
    CHECK(contains(r.err, "graph.nnef:5"));
}

TEST_CASE("nnef-to-tosa --profile pro-int: constant operands (tests/data/pro_int) lower to integers") {
    // mul / div / add / sub by literals and tensors, min / max / clamp with constants: i8 in and out,
    // no floating point, validated (nnef-to-tosa verifies by default)
    for (const std::string name : {"hard_swish", "squeeze_excite", "constants", "zoo_forms", "transformer_forms", "patch_embed"}) {
        CAPTURE(name);
        const fs::path m = nnef_test::source_dir() / "tests" / "data" / "pro_int" / name;
        auto r = run_tool("nnef-to-tosa", quoted(m) + " --profile pro-int");
        REQUIRE_MESSAGE(r.code == 0, r.err);
        CHECK(contains(r.out, "profiles [pro_int]"));
        CHECK(contains(r.out, "\"tosa.rescale\""));
        CHECK(!contains(r.out, "f32"));
        if (name == "constants") {  // min / max on (code - zp) in i32; x * -0.75 as 0 - (code - zp)
            CHECK(contains(r.out, "\"tosa.maximum\""));
            CHECK(contains(r.out, "\"tosa.minimum\""));
            CHECK(contains(r.out, "\"tosa.sub\""));
        }
    }
    // division by an activation: INTDIV of an i32 quotient (division.cpp); without an entry for its
    // result, an error naming it and its line
    const fs::path div = model("pro_int_div", "version 1.0;\ngraph G( x, y ) -> ( z )\n{\n    x = external(shape = [1, 4]);\n"
                                              "    y = external(shape = [1, 4]);\n    z = div(x, y);\n}\n");
    nnef_test::write_scratch("to_tosa/pro_int_div/graph.quant",
                             "\"x\": zero_point_linear_quantize(zero_point = 0, scale = 0.1, bits = 8, signed = true, symmetric = false);\n"
                             "\"y\": zero_point_linear_quantize(zero_point = 0, scale = 0.1, bits = 8, signed = true, symmetric = false);\n"
                             "\"z\": zero_point_linear_quantize(zero_point = 0, scale = 0.1, bits = 8, signed = true, symmetric = false);\n");
    auto r = run_tool("nnef-to-tosa", quoted(div) + " --profile pro-int");
    REQUIRE_MESSAGE(r.code == 0, r.err);
    CHECK(contains(r.out, "\"tosa.intdiv\""));
    CHECK(!contains(r.out, "f32"));
    nnef_test::write_scratch("to_tosa/pro_int_div/graph.quant",
                             "\"x\": zero_point_linear_quantize(zero_point = 0, scale = 0.1, bits = 8, signed = true, symmetric = false);\n"
                             "\"y\": zero_point_linear_quantize(zero_point = 0, scale = 0.1, bits = 8, signed = true, symmetric = false);\n");
    r = run_tool("nnef-to-tosa", quoted(div) + " --profile pro-int");
    CHECK(r.code == 1);
    CHECK(contains(r.err, "operation 'div' cannot be lowered to TOSA: its result 'z' has no graph.quant entry"));
    CHECK(contains(r.err, "graph.nnef:6"));
}

TEST_CASE("nnef-to-tosa picks PRO-INT for a quantized model unless --profile says otherwise, and says which") {
    const fs::path quantized = nnef_test::source_dir() / "samples" / "quantized";
    auto r = run_tool("nnef-to-tosa", quoted(quantized) + " --random-weights 1");
    REQUIRE_MESSAGE(r.code == 0, r.err);
    CHECK(contains(r.out, "profiles [pro_int]"));
    CHECK(contains(r.out, "func.func @quantized(%input: tensor<1x8xi8>) -> (tensor<1x4xi8>)"));
    CHECK_MESSAGE(r.err == "nnef-to-tosa: note: profile PRO-INT: the model is quantized (graph.quant); --profile pro-fp lowers "
                           "it in float\n", r.err);
    // --quiet silences the note; the JSON document carries it
    auto quiet = run_tool("nnef-to-tosa", quoted(quantized) + " --random-weights 1 --quiet");
    CHECK(quiet.code == 0);
    CHECK(quiet.err.empty());
    auto j = run_tool("nnef-to-tosa", quoted(quantized) + " --random-weights 1 --format json");
    REQUIRE(j.code == 0);
    nlohmann::json doc;
    REQUIRE_NOTHROW(doc = nlohmann::json::parse(j.out));
    CHECK(doc.at("diagnostics").at(0).at("severity") == "note");
    CHECK(contains(doc.at("diagnostics").at(0).at("message").get<std::string>(), "profile PRO-INT"));
    // a float model: PRO-FP, said so too
    auto f = run_tool("nnef-to-tosa", quoted(classifier) + " --random-weights 1");
    REQUIRE(f.code == 0);
    CHECK(contains(f.out, "profiles [pro_fp]"));
    // the header names the validation the docs use (docs/tosa.md)
    CHECK(contains(f.out, "--tosa-validate=\"strict-op-spec-alignment\")"));
    CHECK(f.err == "nnef-to-tosa: note: profile PRO-FP\n");
}

TEST_CASE("nnef-to-tosa --print-after and --verify-each, as in nnef-to-vpu") {
    auto r = run_tool("nnef-to-tosa", quoted(classifier) + " --random-weights 1 --print-after legalize-nnef-to-tosa -q");
    REQUIRE_MESSAGE(r.code == 0, r.err);
    CHECK(contains(r.err, "// after legalize-nnef-to-tosa\n"));
    auto bad = run_tool("nnef-to-tosa", quoted(classifier) + " --print-after nothing");
    CHECK(bad.code == 2);
    CHECK(contains(bad.err, "nnef-to-tosa: error[usage]: --print-after names no pass 'nothing' (passes: legalize-nnef-to-tosa, "));
    for (const char* v : {"--verify-each", "--no-verify-each", "--no-verify"})
        CHECK(run_tool("nnef-to-tosa", quoted(classifier) + " --random-weights 1 -q " + v).code == 0);
}

}  // namespace to_tosa_test

namespace to_tosa_test {

TEST_CASE("nnef-to-tosa --print-after all: after every pass the printed MLIR reads back to the same graph") {
    const auto r = run_tool("nnef-to-tosa", quoted(classifier) + " --random-weights 1 -o /dev/null --print-after all");
    REQUIRE_MESSAGE(r.code == 0, r.err);
    const auto sections = nnef_test::print_after_sections(r.err);
    std::vector<std::string> names;
    for (const auto& s : sections) names.push_back(s.first);
    CHECK(names == std::vector<std::string>{"legalize-nnef-to-tosa", "fold-constant-layouts", "push-transposes", "cancel-transposes",
                                            "fold-pads", "eliminate-dead-code"});
    for (const auto& section : sections) {
        const auto& pass = section.first;  // (CAPTURE's lambda captures it: no structured binding, for clang 14)
        const auto& text = section.second;
        CAPTURE(pass);
        REQUIRE(contains(text, "func.func @"));
        // read (and validated) by nnef-to-tosa FILE.mlir, written back: the same text
        const fs::path in = nnef_test::write_scratch("after-" + pass + ".mlir", text);
        const auto back = run_tool("nnef-to-tosa", quoted(in) + " --format mlir");
        INFO(back.err);
        CHECK(back.code == 0);
        CHECK(back.out == text);
    }
}

}  // namespace to_tosa_test

namespace to_tosa_test {

// How many "tosa.slice" operators of MLIR text (generic form) read a "tosa.const"; `slices`: of all.
std::size_t slices_of_constants(const std::string& mlir, std::size_t& slices) {
    std::set<std::string> constants;
    std::size_t n = 0;
    slices = 0;
    std::istringstream in(mlir);
    for (std::string line; std::getline(in, line);) {
        const std::size_t eq = line.find(" = \"tosa.");
        if (eq == std::string::npos) continue;
        const std::string name = line.substr(line.find_first_not_of(' '), eq - line.find_first_not_of(' '));
        if (line.compare(eq, 15, " = \"tosa.const\"") == 0) constants.insert(name);
        const std::string slice = " = \"tosa.slice\"(";
        if (line.compare(eq, slice.size(), slice) != 0) continue;
        ++slices;
        const std::size_t from = eq + slice.size();
        n += constants.count(line.substr(from, line.find_first_of(",)", from) - from));
    }
    return n;
}

TEST_CASE("nnef-to-tosa on lstm_small: the SLICEs of constants (its split biases) are folded by fold-constant-layouts") {
    NNEF_REQUIRE_CORPUS();
    const fs::path lstm = nnef_test::corpus_dir() / "real" / "lstm_small";
    const auto r = run_tool("nnef-to-tosa", quoted(lstm) + " --print-after legalize-nnef-to-tosa --print-after fold-constant-layouts");
    REQUIRE_MESSAGE(r.code == 0, r.err);
    std::map<std::string, std::string> after;
    for (const auto& [pass, text] : nnef_test::print_after_sections(r.err)) after[pass] = text;
    REQUIRE(after.count("legalize-nnef-to-tosa"));
    REQUIRE(after.count("fold-constant-layouts"));
    std::size_t slices = 0;
    // the legalization slices the bias constant of every step's two linears
    const std::size_t legalized = slices_of_constants(after["legalize-nnef-to-tosa"], slices);
    CHECK(legalized > 0);
    const std::size_t all_legalized = slices;
    CHECK(slices_of_constants(after["fold-constant-layouts"], slices) == 0);
    CHECK(slices == all_legalized - legalized);  // the slices of activations stay
    CHECK(slices > 0);
    CHECK(slices_of_constants(r.out, slices) == 0);
    // the graph reads back and validates (nnef-to-tosa FILE.mlir validates what it reads)
    const fs::path in = nnef_test::write_scratch("lstm_small-folded.mlir", r.out);
    const auto back = run_tool("nnef-to-tosa", quoted(in) + " --format mlir");
    CHECK_MESSAGE(back.code == 0, back.err);
    CHECK(slices_of_constants(back.out, slices) == 0);
    CHECK(slices == all_legalized - legalized);
}

}  // namespace to_tosa_test
