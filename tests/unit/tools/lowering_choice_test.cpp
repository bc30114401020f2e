// End-to-end tests of the lowering's choices shared by every tool that lowers an NNEF model
// (tools/common/cli.hpp: add_lowering_options, apply_lowering_choice): without --profile a quantized
// model is lowered at PRO-INT and any other at PRO-FP in nnef-to-tosa, nnef-to-vpu and nnef-run
// --via tosa alike (each names the profile in a note and in its JSON document); --bias-grid
// accumulator rounds a convolution's float bias to the accumulator's grid (fewer TOSA operators, a
// shorter VPU schedule, codes within one of nnef-run --float64's on the corpus) and is refused where
// it cannot apply.
#include <doctest/doctest.h>

#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "tool_runner.hpp"

namespace lowering_choice_test {

namespace fs = std::filesystem;
using nnef_test::contains;
using nnef_test::fresh_scratch;
using nnef_test::occurrences;
using nnef_test::quoted;
using nnef_test::run_tool;

const char* const pro_int_note = "note: profile PRO-INT: the model is quantized (graph.quant); --profile pro-fp lowers it in float";

nlohmann::json document(const nnef_test::RunResult& r) {
    INFO(r.err);
    REQUIRE(r.code == 0);
    nlohmann::json j;
    REQUIRE_NOTHROW(j = nlohmann::json::parse(r.out));
    return j;
}

// The profile each tool lowers `model` at without --profile (from its JSON document), after
// checking that each said so in its note (text mode) or its diagnostics (json).
struct Profiles {
    std::string to_tosa, to_vpu, run;
};
Profiles default_profiles(const fs::path& model, const std::string& more, const std::string& note) {
    Profiles p;
    const auto t = run_tool("nnef-to-tosa", quoted(model) + more + " --no-weights --format json");
    p.to_tosa = document(t).at("profile").get<std::string>();
    const auto t_text = run_tool("nnef-to-tosa", quoted(model) + more + " --no-weights -o " + quoted(nnef_test::scratch_dir() / "choice-default.mlir"));
    CHECK(t_text.code == 0);
    CHECK(contains(t_text.err, "nnef-to-tosa: " + note));
    const auto v = run_tool("nnef-to-vpu", quoted(model) + more + " --simulate --format json");
    const nlohmann::json vd = document(v);
    p.to_vpu = vd.at("profile").get<std::string>();
    CHECK(contains(vd.at("diagnostics").dump(), note.substr(6)));
    const auto r = run_tool("nnef-run", quoted(model) + more + " --via tosa --input random:1 --format json");
    const nlohmann::json rd = document(r);
    p.run = rd.at("profile").get<std::string>();
    CHECK(contains(rd.at("diagnostics").dump(), note.substr(6)));
    const auto r_text = run_tool("nnef-run", quoted(model) + more + " --via tosa --input random:1 -q");
    CHECK(r_text.code == 0);
    CHECK(r_text.err.empty());  // --quiet silences the note
    return p;
}

TEST_SUITE("tools") {

TEST_CASE("without --profile every tool lowers a quantized model at PRO-INT and any other at PRO-FP") {
    NNEF_REQUIRE_CORPUS();
    const fs::path int8 = nnef_test::corpus_file("quantized/shufflenet_v2_x1_0_int8");
    const Profiles q = default_profiles(int8, "", pro_int_note);
    CHECK(q.to_tosa == "PRO-INT");
    CHECK(q.to_vpu == "PRO-INT");
    CHECK(q.run == "PRO-INT");
    // the default is --profile pro-int itself: the same MLIR
    const fs::path dir = fresh_scratch("choice-default");
    fs::create_directories(dir);
    REQUIRE(run_tool("nnef-to-tosa", quoted(int8) + " -q -o " + quoted(dir / "default.mlir")).code == 0);
    REQUIRE(run_tool("nnef-to-tosa", quoted(int8) + " --profile pro-int -o " + quoted(dir / "int.mlir")).code == 0);
    CHECK(nnef_test::read_text(dir / "default.mlir") == nnef_test::read_text(dir / "int.mlir"));
    // an unquantized model: PRO-FP everywhere, never PRO-INT's refusal
    const Profiles f = default_profiles(nnef_test::sample_dir("classifier"), " --random-weights 1", "note: profile PRO-FP");
    CHECK(f.to_tosa == "PRO-FP");
    CHECK(f.to_vpu == "PRO-FP");
    CHECK(f.run == "PRO-FP");
    // nnef-run --no-quant runs without graph.quant: PRO-FP, and says why
    const auto nq = run_tool("nnef-run", quoted(int8) + " --via tosa --no-quant --input random:1 --format json");
    const nlohmann::json nd = document(nq);
    CHECK(nd.at("profile") == "PRO-FP");
    CHECK(contains(nd.at("diagnostics").dump(), "profile PRO-FP: the model runs without its quantization (--no-quant)"));
    // samples/quantized (its input read by a linear_quantize fragment, kept atomic for --via tosa as
    // for nnef-to-tosa): the default PRO-INT runs and gives nnef-run's output
    const fs::path sample = nnef_test::sample_dir("quantized"), ref = fresh_scratch("choice-sample-ref");
    REQUIRE(run_tool("nnef-run", quoted(sample) + " --random-weights 1 --input random:3 -q --output-dir " + quoted(ref)).code == 0);
    const auto s = run_tool("nnef-run", quoted(sample) + " --random-weights 1 --input random:3 --via tosa --format json --compare " + quoted(ref));
    const nlohmann::json sd = document(s);
    CHECK(sd.at("profile") == "PRO-INT");
    CHECK(sd.at("compare").at("match").get<bool>());
    // the profile given: no note
    const auto given = run_tool("nnef-to-vpu", quoted(int8) + " --profile pro-fp --format json --simulate");
    const nlohmann::json gd = document(given);
    CHECK(gd.at("profile") == "PRO-FP");
    CHECK_FALSE(contains(gd.at("diagnostics").dump(), "profile PRO"));
}

TEST_CASE("--bias-grid accumulator: fewer TOSA operators, a shorter VPU schedule, codes within one of nnef-run --float64's") {
    NNEF_REQUIRE_CORPUS();
    // ShuffleNet-v2 int8's classifier has a float bias between its accumulator's steps (fine_bias,
    // convolution.cpp): the fine grid adds it after a clamp and a MUL by 2^j, the accumulator grid
    // packs it into the CONV2D.
    const fs::path m = nnef_test::corpus_file("quantized/shufflenet_v2_x1_0_int8");
    const auto fine = document(run_tool("nnef-to-tosa", quoted(m) + " --format json -q"));
    const auto acc = document(run_tool("nnef-to-tosa", quoted(m) + " --bias-grid accumulator --format json -q"));
    auto ops = [](const nlohmann::json& g) { return g.at("blocks").at(0).at("ops").size(); };
    MESSAGE("TOSA operators: fine " << ops(fine) << ", accumulator " << ops(acc));
    CHECK(ops(acc) < ops(fine));
    CHECK(acc.at("profile") == "PRO-INT");
    auto makespan = [&](const std::string& grid) {
        return document(run_tool("nnef-to-vpu", quoted(m) + " --bias-grid " + grid + " --simulate --format json -q"))
            .at("simulation").at("makespan_cycles").get<double>();
    };
    const double fine_cycles = makespan("fine"), acc_cycles = makespan("accumulator");
    MESSAGE("VPU makespan: fine " << fine_cycles << ", accumulator " << acc_cycles << " cycles");
    CHECK(acc_cycles < fine_cycles);
    // values: the accumulator grid's codes against nnef-run --float64's, within one code, on the
    // reference input and two random ones (the fine grid gives them exactly: run_pro_int_test)
    for (const std::string& in : {quoted(m / "reference" / "input.dat"), std::string("random:1"), std::string("random:2")}) {
        if (NNEF_TEST_SANITIZED && in.rfind("random:", 0) == 0) {
            NNEF_RELEASE_PASS_PART("the input " << in, "the same code runs on the reference input");
            continue;
        }
        CAPTURE(in);
        const fs::path ref = fresh_scratch("choice-f64");
        fs::create_directories(ref);
        REQUIRE(run_tool("nnef-run", quoted(m) + " --input " + in + " --float64 -q --output-dir " + quoted(ref)).code == 0);
        const auto c = document(run_tool("nnef-run", quoted(m) + " --input " + in + " --via tosa --bias-grid accumulator -q"
                                         " --max-quanta-off 1 --max-share-off 1 --format json --compare " + quoted(ref)));
        const nlohmann::json& o = c.at("compare").at("outputs").at(0);
        MESSAGE("accumulator grid vs nnef-run --float64: max " << o.at("max_quanta_off") << " quanta off");
        CHECK(o.at("quantized").get<bool>());
        CHECK(o.at("max_quanta_off").get<double>() <= 1.0);
        CHECK(c.at("compare").at("match").get<bool>());
    }
    // Python's bias_grid= is the same choice: tests/python/test_extras.py
}

TEST_CASE("--bias-grid and --profile: bad values and combinations are usage errors (exit 2), a PRO-FP model gets a note") {
    NNEF_REQUIRE_CORPUS();
    const fs::path int8 = nnef_test::corpus_file("quantized/shufflenet_v2_x1_0_int8");
    const fs::path classifier = nnef_test::sample_dir("classifier");
    for (const std::string tool : {"nnef-to-tosa", "nnef-to-vpu", "nnef-run"}) {
        CAPTURE(tool);
        const std::string via = tool == "nnef-run" ? " --via tosa --input random:1" : "";
        const auto bad = run_tool(tool, quoted(int8) + via + " --bias-grid exact");
        CHECK(bad.code == 2);
        CHECK(contains(bad.err, tool + ": error[usage]: --bias-grid takes 'fine' or 'accumulator', not 'exact'"));
        const auto fp = run_tool(tool, quoted(int8) + via + " --profile pro-fp --bias-grid accumulator");
        CHECK(fp.code == 2);
        CHECK(contains(fp.err, "--bias-grid accumulator says how PRO-INT adds a convolution's bias; it does not combine with --profile pro-fp"));
        // an unquantized model without --profile: PRO-FP, the option changes nothing and a note says so
        const auto plain = run_tool(tool, quoted(classifier) + " --random-weights 1" + via + " --bias-grid accumulator" +
                                              (tool == "nnef-to-vpu" ? " --simulate" : ""));
        INFO(plain.err);
        CHECK(plain.code == 0);
        CHECK(contains(plain.err, "--bias-grid accumulator: the model is lowered at PRO-FP, whose biases are exact; it changes nothing"));
    }
    const auto no_via = run_tool("nnef-run", quoted(int8) + " --input random:1 --bias-grid accumulator");
    CHECK(no_via.code == 2);
    CHECK(contains(no_via.err, "--bias-grid accumulator says how --via tosa lowers the model; it applies with --via tosa"));
    // TOSA already: FILE.mlir, a task list
    const fs::path dir = fresh_scratch("choice-inputs");
    fs::create_directories(dir);
    REQUIRE(run_tool("nnef-to-tosa", quoted(classifier) + " --random-weights 1 -q -o " + quoted(dir / "c.mlir")).code == 0);
    REQUIRE(run_tool("nnef-to-vpu", quoted(classifier) + " --random-weights 1 -q -o " + quoted(dir / "c.json")).code == 0);
    CHECK(run_tool("nnef-to-tosa", quoted(dir / "c.mlir") + " --bias-grid fine").code == 2);
    CHECK(run_tool("nnef-to-vpu", quoted(dir / "c.mlir") + " --bias-grid fine").code == 2);
    CHECK(run_tool("nnef-run", quoted(dir / "c.mlir") + " --input random:1 --bias-grid fine").code == 2);
    const auto list = run_tool("nnef-to-vpu", quoted(dir / "c.json") + " --bias-grid fine --simulate");
    CHECK(list.code == 2);
    CHECK(contains(list.err, "--bias-grid"));
}

}  // TEST_SUITE

}  // namespace lowering_choice_test
