// End-to-end tests of what a newcomer meets first (issue 24): models stored without weights (one
// diagnostic naming the missing files and the options that help; the tools that need no values
// work and say "weights not checked"), tensor files beside a graph.nnef checked when they exist,
// "did you mean" in the tools' diagnostics, repeated warnings collapsed and --quiet.
#include <doctest/doctest.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "storage/tensor_file.hpp"
#include "tool_runner.hpp"

namespace first_hour_test {

namespace fs = std::filesystem;
using nnef_test::quoted;
using nnef_test::run_tool;
const auto& has = nnef_test::contains;
const auto& count = nnef_test::occurrences;

// A fresh folder holding a copy of samples/NAME/graph.nnef (a model stored graph-only).
fs::path graph_only_copy(const std::string& name, const std::string& as) {
    const fs::path dir = nnef_test::scratch_dir() / as;
    fs::remove_all(dir);
    fs::create_directories(dir);
    fs::copy_file(nnef_test::source_dir() / "samples" / name / "graph.nnef", dir / "graph.nnef");
    return dir;
}

void write_tensor(const fs::path& folder, const std::string& label, const std::vector<std::int64_t>& shape) {
    std::size_t n = 1;
    for (auto d : shape) n *= static_cast<std::size_t>(d);
    auto t = nnef::storage::make_float_tensor(shape, std::vector<float>(n, 0.25f));
    REQUIRE(t.value);
    const fs::path p = folder / (label + ".dat");
    fs::create_directories(p.parent_path());
    REQUIRE(nnef::storage::write_tensor_file(p.string(), **t.value).value);
}

}  // namespace first_hour_test

TEST_SUITE("tools") {
    using namespace first_hour_test;

    TEST_CASE("missing weights: one diagnostic naming the files and the options, validate and info work") {
        const fs::path model = graph_only_copy("classifier", "graph-only-classifier");
        // a tool that needs the values: one error, not one per variable
        auto run = run_tool("nnef-run", quoted(model) + " --input image=random:1");
        CHECK(run.code == 1);
        INFO(run.err);
        CHECK(count(run.err, "error[") == 1);
        CHECK(has(run.err, "error[data]: 6 of the 6 variables have no tensor file in '" + model.string() +
                               "': 'conv1/filter.dat', 'conv1/bias.dat', 'conv2/filter.dat' and 3 more"));
        CHECK(has(run.err, "note: the model is stored without weights (graph only): --no-weights checks its "
                           "structure, --random-weights SEED gives its variables pseudo-random values"));
        CHECK_FALSE(has(run.err, "stopped after"));
        auto tosa = run_tool("nnef-to-tosa", quoted(model));
        CHECK(tosa.code == 1);
        CHECK(count(tosa.err, "error[") == 1);
        CHECK(has(tosa.err, "6 of the 6 variables have no tensor file"));

        // the tools that need no values work on it and say so
        auto validate = run_tool("nnef-validate", quoted(model));
        CHECK(validate.code == 0);
        CHECK(validate.err.empty());
        CHECK(has(validate.out, "valid: graph 'classifier', 16 operations"));
        CHECK(has(validate.out, "; weights not checked\n"));
        auto json = run_tool("nnef-validate", "--format json " + quoted(model));
        CHECK(json.code == 0);
        CHECK(has(json.out, "\"weights\":\"weights not checked\""));
        auto info = run_tool("nnef-info", "--no-tosa " + quoted(model));
        CHECK(info.code == 0);
        CHECK(has(info.out, "model: " + model.string() + " (weights not checked)\n"));
        auto vpu = run_tool("nnef-to-vpu", quoted(model) + " --simulate");
        CHECK(vpu.code == 0);
        CHECK(has(vpu.err, "nnef-to-vpu: note: " + model.string() + ": weights not checked"));
        CHECK(has(vpu.out, "makespan"));
        auto vpu_quiet = run_tool("nnef-to-vpu", quoted(model) + " --simulate --quiet");
        CHECK(vpu_quiet.code == 0);
        CHECK(vpu_quiet.err.empty());
        // simulating values needs the weights: the same one diagnostic
        auto values = run_tool("nnef-to-vpu", quoted(model) + " --simulate --input image=random:1");
        CHECK(values.code == 1);
        CHECK(count(values.err, "error[") == 1);
        CHECK(has(values.err, "6 of the 6 variables have no tensor file"));

        // with the weights the same tools check them
        write_tensor(model, "conv1/filter", {16, 3, 3, 3});
        write_tensor(model, "conv1/bias", {1, 16});
        write_tensor(model, "conv2/filter", {32, 16, 3, 3});
        write_tensor(model, "conv2/bias", {1, 32});
        write_tensor(model, "fc/weights", {10, 32});
        // some but not all: an error in every tool, the one missing file named
        auto partial = run_tool("nnef-validate", quoted(model));
        CHECK(partial.code == 1);
        CHECK(count(partial.err, "error[") == 1);
        CHECK(has(partial.err, "error[data]: variable 'fc_bias' has no tensor file 'fc/bias.dat' in '" + model.string() + "'"));
        write_tensor(model, "fc/bias", {1, 10});
        auto full = run_tool("nnef-validate", quoted(model));
        CHECK(full.code == 0);
        CHECK(has(full.out, "; weights checked\n"));
        auto checked_info = run_tool("nnef-info", "--no-tosa " + quoted(model));
        CHECK(has(checked_info.out, "(weights checked)"));
    }

    TEST_CASE("missing weights: a corpus model stored graph-only") {
        NNEF_REQUIRE_CORPUS();
        const fs::path model = nnef_test::corpus_dir() / "real" / "resnet50";
        if (nnef_test::stores_weights(model)) {
            MESSAGE("skipped: " << model.string() << " stores weights here");
            return;
        }
        auto validate = run_tool("nnef-validate", quoted(model));
        CHECK(validate.code == 0);
        CHECK(has(validate.out, "weights not checked"));
        auto run = run_tool("nnef-run", quoted(model));
        CHECK(run.code == 1);
        INFO(run.err);
        CHECK(count(run.err, "error[") == 1);
        CHECK(has(run.err, "variables have no tensor file in"));
        CHECK(has(run.err, "more\n"));
        CHECK(has(run.err, "--random-weights SEED"));
        CHECK_FALSE(has(run.err, "stopped after"));
    }

    TEST_CASE("--no-weights where values are needed is refused up front") {
        const std::string model = quoted(nnef_test::source_dir() / "samples/classifier/graph.nnef");
        auto run = run_tool("nnef-run", model + " --no-weights --input image=random:1");
        CHECK(run.code == 2);
        CHECK(has(run.err, "nnef-run: error[usage]: --no-weights: running a model needs values for its variables; for a "
                           "model stored without weights use --random-weights SEED"));
        auto vpu = run_tool("nnef-to-vpu", model + " --no-weights --simulate --input image=random:1");
        CHECK(vpu.code == 2);
        CHECK(has(vpu.err, "nnef-to-vpu: error[usage]: --no-weights:"));
        CHECK(has(vpu.err, "use --random-weights SEED"));
        // timing needs no values: --no-weights compiles and simulates with stand-in values
        auto timing = run_tool("nnef-to-vpu", model + " --no-weights --simulate");
        CHECK(timing.code == 0);
        CHECK(has(timing.err, "weights not checked"));
    }

    TEST_CASE("graph.nnef: tensor files beside it are checked when they exist") {
        const fs::path dir = graph_only_copy("classifier", "beside-classifier");
        const fs::path graph = dir / "graph.nnef";
        auto none = run_tool("nnef-validate", quoted(graph));
        CHECK(none.code == 0);
        CHECK(has(none.out, "; weights not checked\n"));
        write_tensor(dir, "conv1/filter", {16, 3, 3, 3});
        auto one = run_tool("nnef-validate", quoted(graph));
        CHECK(one.code == 0);
        CHECK(has(one.out, "; weights checked for 1 of 6 variables\n"));
        // a corrupt tensor file beside it is reported (file and byte offset), exit 1
        std::ofstream(dir / "conv1" / "bias.dat", std::ios::binary) << std::string(200, 'x');
        auto corrupt = run_tool("nnef-validate", quoted(graph));
        CHECK(corrupt.code == 1);
        INFO(corrupt.err);
        CHECK(has(corrupt.err, (dir / "conv1" / "bias.dat").string()));
        CHECK(has(corrupt.err, "error[data]"));
        // one of the wrong shape too
        fs::remove(dir / "conv1" / "bias.dat");
        write_tensor(dir, "conv1/bias", {1, 17});
        auto shape = run_tool("nnef-validate", quoted(graph));
        CHECK(shape.code == 1);
        CHECK(has(shape.err, "stores shape [1,17], but the variable is declared with shape [1,16]"));
        // nnef-run finds the weights beside the file
        fs::remove(dir / "conv1" / "bias.dat");
        write_tensor(dir, "conv1/bias", {1, 16});
        write_tensor(dir, "conv2/filter", {32, 16, 3, 3});
        write_tensor(dir, "conv2/bias", {1, 32});
        write_tensor(dir, "fc/weights", {10, 32});
        write_tensor(dir, "fc/bias", {1, 10});
        auto run = run_tool("nnef-run", quoted(graph) + " --input image=random:1");
        CHECK(run.code == 0);
        CHECK(run.err.empty());
    }

    TEST_CASE("graph.nnef: a label never reaches outside the graph's folder") {
        const fs::path top = nnef_test::scratch_dir() / "beside-outside";
        fs::remove_all(top);
        fs::create_directories(top / "model");
        std::ofstream(top / "outside.dat", std::ios::binary) << std::string(200, 'x');  // corrupt, if read
        std::ofstream(top / "model" / "inside.dat", std::ios::binary) << std::string(200, 'x');
        std::ofstream(top / "model" / "graph.nnef") << "version 1.0;\ngraph G( x ) -> ( y )\n{\n"
                                                       "    x = external(shape = [1, 2]);\n"
                                                       "    w = variable(shape = [1, 2], label = '../outside');\n"
                                                       "    y = add(x, w);\n}\n";
        auto r = run_tool("nnef-validate", quoted(top / "model" / "graph.nnef"));
        CHECK(r.code == 0);
        CHECK(r.err.empty());
        CHECK(has(r.out, "; weights not checked\n"));
    }

    TEST_CASE("did you mean: operations, parameters and identifiers in the tools' diagnostics") {
        const fs::path doc = nnef_test::write_scratch("typos.nnef", "version 1.0;\n"
                                                                    "graph G( input ) -> ( output )\n"
                                                                    "{\n"
                                                                    "    input = external(shape = [1, 2, 8, 8]);\n"
                                                                    "    a = rleu(input);\n"
                                                                    "    b = max_pool(input, size = [1, 1, 2, 2], strid = [1, 1, 2, 2]);\n"
                                                                    "    output = add(inptu, input);\n"
                                                                    "}\n");
        auto r = run_tool("nnef-validate", quoted(doc));
        CHECK(r.code == 1);
        INFO(r.err);
        CHECK(has(r.err, "typos.nnef:5:9: error[semantic]: unknown operation 'rleu'; did you mean 'relu'?"));
        CHECK(has(r.err, "typos.nnef:6:46: error[semantic]: 'max_pool' has no parameter named 'strid'; did you mean 'stride'?"));
        CHECK(has(r.err, "typos.nnef:7:18: error[semantic]: identifier 'inptu' is used before it is defined; did you mean 'input'?"));
        auto j = run_tool("nnef-validate", "--format json " + quoted(doc));
        CHECK(j.code == 1);
        CHECK(has(j.out, "did you mean 'relu'?"));
    }

    TEST_CASE("repeated warnings are collapsed with a count, --quiet prints none") {
        // 8 convolutions with a rank-1 bias (a de facto form of exported models, accepted with a
        // warning in the default dialect): the same warning with other names and numbers
        std::string text = "version 1.0;\ngraph G( input ) -> ( output )\n{\n"
                           "    input = external(shape = [1, 4, 8, 8]);\n";
        std::string prev = "input";
        int channels = 4;
        for (int i = 0; i < 8; ++i) {
            const std::string n = std::to_string(i);
            const int out = 4 + i;
            text += "    f" + n + " = variable(shape = [" + std::to_string(out) + ", " + std::to_string(channels) +
                    ", 1, 1], label = 'f" + n + "');\n";
            text += "    b" + n + " = variable(shape = [" + std::to_string(out) + "], label = 'b" + n + "');\n";
            text += "    c" + n + " = conv(" + prev + ", f" + n + ", b" + n + ");\n";
            prev = "c" + n;
            channels = out;
        }
        text += "    output = copy(" + prev + ");\n}\n";
        const fs::path doc = nnef_test::write_scratch("alike.nnef", text);
        auto r = run_tool("nnef-validate", quoted(doc));
        INFO(r.err);
        REQUIRE(r.code == 0);
        CHECK(count(r.err, "warning[shape]: conv: rank-1 'bias'") == 3);
        CHECK(has(r.err, "[4] is read as [1,4]"));
        CHECK(has(r.err, "[6] is read as [1,6]"));
        CHECK_FALSE(has(r.err, "[7] is read as"));
        CHECK(count(r.err, "note: 5 more warnings like this one [") == 1);
        CHECK(has(r.out, "valid: graph 'G'"));
        // --quiet: no warnings, no summary
        auto quiet = run_tool("nnef-validate", "--quiet " + quoted(doc));
        CHECK(quiet.code == 0);
        CHECK(quiet.err.empty());
        CHECK(quiet.out.empty());
        // --quiet silences them in every tool: those that run and lower the model too
        for (const char* tool : {"nnef-run", "nnef-to-tosa", "nnef-to-vpu", "nnef-info", "nnef-flatten"}) {
            CAPTURE(tool);
            const std::string name = tool;
            const std::string weights = name == "nnef-info" || name == "nnef-flatten" ? ""
                                        : name == "nnef-run" ? " --random-weights 1 --input input=random:1"
                                                             : " --random-weights 1";
            auto loud = run_tool(tool, quoted(doc) + weights);
            CHECK(loud.code == 0);
            CHECK(count(loud.err, "warning[shape]: conv: rank-1 'bias'") == 3);
            auto silent = run_tool(tool, quoted(doc) + weights + " --quiet");
            CHECK(silent.code == 0);
            CHECK(silent.err.empty());
        }
        // JSON keeps every one of them
        auto json = run_tool("nnef-validate", "--format json " + quoted(doc));
        CHECK(json.code == 0);
        CHECK(count(json.out, "\"severity\":\"warning\"") == 8);
        // errors are never collapsed or silenced
        auto strict = run_tool("nnef-validate", "--strict --quiet " + quoted(doc));
        CHECK(strict.code == 1);
        CHECK(count(strict.err, "error[") >= 1);
    }

    TEST_CASE("repeated warnings: mobilenet_v3_small_mirror") {
        NNEF_REQUIRE_CORPUS();
        const fs::path model = nnef_test::corpus_dir() / "real" / "mobilenet_v3_small_mirror";
        for (const char* tool : {"nnef-validate", "nnef-info", "nnef-flatten"}) {
            CAPTURE(tool);
            auto r = run_tool(tool, quoted(model));
            REQUIRE(r.code == 0);
            INFO(r.err);
            const std::size_t warnings = count(r.err, "warning[");
            CHECK(warnings >= 1);
            CHECK(warnings <= 12);
            CHECK(has(r.err, "more warnings like this one ["));
            auto quiet = run_tool(tool, "--quiet " + quoted(model));
            CHECK(quiet.code == 0);
            CHECK(quiet.err.empty());
        }
    }
}
