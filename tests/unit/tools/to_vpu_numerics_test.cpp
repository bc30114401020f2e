// Issue 15, acceptance point 2: the models of the corpus that ship reference/ are compiled for the
// default target and simulated with values; their outputs are compared with nnef-run's on the same
// input (the reference input), and the figure is printed per model.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "exec/executor.hpp"
#include "storage/tensor_file.hpp"
#include "tool_runner.hpp"

namespace to_vpu_numerics_test {

namespace fs = std::filesystem;
using nnef_test::quoted;
using nnef_test::run_tool;

double max_abs_of(const fs::path& p) {
    auto t = nnef::storage::read_tensor_file(p.string());
    REQUIRE(t.value);
    auto v = nnef::exec::from_tensor_data(**t.value, nnef::PrimType::scalar);
    REQUIRE(v);
    double m = 0;
    for (std::int64_t i = 0; i < v->volume(); ++i) m = std::max(m, std::fabs(v->as_double(i)));
    return m;
}

// The figures of nnef-to-vpu's "compare NAME with FILE: max abs error A, ..., relative L2 error R: ..." line.
struct Figure {
    double rel_l2 = -1, max_abs = -1;
};
Figure parse_figure(const std::string& out) {
    Figure f;
    const auto at = out.find("relative L2 error "), abs = out.find("max abs error ");
    if (at == std::string::npos || abs == std::string::npos) return f;
    std::istringstream(out.substr(at + 18)) >> f.rel_l2;
    std::istringstream(out.substr(abs + 14)) >> f.max_abs;
    return f;
}

// Runs nnef-run (the ground truth) and the simulated task list on the same input; returns the
// figure and the largest magnitude of nnef-run's output.
struct Outcome {
    Figure fig;
    double ref_max = 0;
    int vpu_code = -1;
    std::string vpu_out;
};
Outcome run_both(const fs::path& model, const std::string& input, const std::string& weights, const fs::path& dir) {
    Outcome o;
    fs::remove_all(dir);
    fs::create_directories(dir);
    auto ref = run_tool("nnef-run", quoted(model) + weights + " --input " + input + " --output-dir " + quoted(dir));
    INFO(ref.err);
    REQUIRE(ref.code == 0);
    std::vector<fs::path> outs;
    for (const auto& e : fs::directory_iterator(dir)) outs.push_back(e.path());
    REQUIRE(outs.size() == 1);
    o.ref_max = max_abs_of(outs[0]);
    // A generous tolerance here: the test judges the figure itself below.
    auto vpu = run_tool("nnef-to-vpu", quoted(model) + weights + " --simulate --input " + input + " --compare " + quoted(dir) + " --rtol 1e9");
    o.vpu_code = vpu.code;
    o.vpu_out = vpu.out + vpu.err;
    o.fig = parse_figure(vpu.out);
    return o;
}

TEST_SUITE("tools") {
    TEST_CASE("nnef-to-vpu: every sample compiles and simulates against nnef-run") {
        // Issue 15 point 1 for the samples (random weights, random input), outputs within fp16
        // accuracy of nnef-run's.
        for (const auto& e : fs::directory_iterator(nnef_test::source_dir() / "samples")) {
            const std::string name = e.path().filename().string();
            CAPTURE(name);
            const fs::path dir = nnef_test::scratch_dir() / ("vpu-sample-" + name);
            fs::remove_all(dir);
            fs::create_directories(dir);
            auto ref = run_tool("nnef-run", quoted(e.path()) + " --random-weights 1 --input random:3 --output-dir " + quoted(dir) +
                                                " --save-variables " + quoted(dir));
            INFO(ref.err);
            REQUIRE(ref.code == 0);
            // the fp16 path (--profile pro-fp: samples/quantized would compile on the int8 path by
            // default, whose random:SEED input is codes, not nnef-run's reals; to_vpu_test covers it)
            auto vpu = run_tool("nnef-to-vpu", quoted(e.path()) + " --profile pro-fp --random-weights 1 --simulate --input random:3 --compare " + quoted(dir));
            INFO(vpu.out << vpu.err);
            CHECK(vpu.code == 0);
            CHECK(vpu.out.find(": match") != std::string::npos);
            CHECK(vpu.out.find("MISMATCH") == std::string::npos);
        }
    }

    TEST_CASE("nnef-to-vpu: a variable the graph updates is state kept by the host, an input and an output") {
        // samples/recurrent: `h = variable(...)`, `update(h, h_next)`. The task list takes state/h
        // as an input and gives its new value as an output of the same name; run twice, feeding the
        // first run's state to the second, it gives what nnef-run gives after two cycles.
        const fs::path model = nnef_test::source_dir() / "samples" / "recurrent";
        const fs::path dir = nnef_test::scratch_dir() / "vpu-state";
        fs::remove_all(dir);
        fs::create_directories(dir);
        auto ref = run_tool("nnef-run", quoted(model) + " --random-weights 1 --cycles 2 --input x=random:3,random:4 --output-dir " +
                                            quoted(dir / "two") + " --save-variables " + quoted(dir / "two"));
        INFO(ref.err);
        REQUIRE(ref.code == 0);
        auto first = run_tool("nnef-to-vpu", quoted(model) + " --random-weights 1 --simulate --input x=random:3 --output-dir " + quoted(dir / "one"));
        INFO(first.out << first.err);
        REQUIRE(first.code == 0);
        REQUIRE(fs::exists(dir / "one" / "state" / "h.dat"));
        auto second = run_tool("nnef-to-vpu", quoted(model) + " --random-weights 1 --simulate --input x=random:4 --input state/h=" +
                                                  quoted(dir / "one" / "state" / "h.dat") + " --compare " + quoted(dir / "two"));
        INFO(second.out << second.err);
        CHECK(second.code == 0);
        CHECK(second.out.find("compare state/h with ") != std::string::npos);
        CHECK(second.out.find("compare y with ") != std::string::npos);
        // Starting from the initial state again instead does not give the second cycle's output.
        auto again = run_tool("nnef-to-vpu", quoted(model) + " --random-weights 1 --simulate --input x=random:4 --compare " + quoted(dir / "two"));
        CHECK(again.code == 1);
        CHECK(again.out.find("MISMATCH") != std::string::npos);
        // A task list alone does not know the initial state: the input must be given.
        auto list = run_tool("nnef-to-vpu", quoted(model) + " --random-weights 1 -o " + quoted(dir / "tasks.json"));
        REQUIRE(list.code == 0);
        auto bare = run_tool("nnef-to-vpu", quoted(dir / "tasks.json") + " --simulate --input x=random:3");
        CHECK(bare.code == 2);
        CHECK(bare.err.find("no --input for graph input 'state/h'") != std::string::npos);
    }

    TEST_CASE("nnef-to-vpu: simulated fp16 outputs of the corpus models with reference/ match nnef-run") {
        NNEF_RELEASE_PASS_ONLY("nnef-to-vpu on every real model compiles and simulates these models under the sanitizers, and the value simulation runs there on the Inception-v3 stem and the samples");
        NNEF_REQUIRE_CORPUS();
        // fp16's smallest subnormal: outputs below it cannot be told apart from 0 in fp16, so for
        // them "within fp16 accuracy" is absolute (half that step), not relative.
        const double fp16_min_subnormal = std::ldexp(1.0, -24);
        std::string report;
        int models = 0;
        for (const std::string& name : nnef_test::real_models()) {
            const fs::path m = nnef_test::corpus_dir() / "real" / name;
            if (!fs::exists(m / "reference" / "input.dat")) continue;
            CAPTURE(name);
            ++models;
            const fs::path dir = nnef_test::scratch_dir() / ("vpu-numerics-" + name);
            const Outcome o = run_both(m, quoted(m / "reference" / "input.dat"), "", dir);
            INFO(o.vpu_out);
            REQUIRE(o.vpu_code == 0);
            REQUIRE(o.fig.rel_l2 >= 0);
            std::ostringstream line;
            line << "  " << name << " (stored weights, reference input): relative L2 " << o.fig.rel_l2
                 << ", max abs error " << o.fig.max_abs << ", max |nnef-run| " << o.ref_max;
            if (o.ref_max >= fp16_min_subnormal) {
                CHECK(o.fig.rel_l2 <= 1e-2);
            } else {
                // The model's outputs are below fp16's range (MobileNet-v2's stored weights give
                // about 3e-9): every simulated value must still be within half an fp16 step of it;
                // and the same graph with weights of ordinary magnitude must meet the relative bound.
                CHECK(o.fig.max_abs <= fp16_min_subnormal / 2);
                const Outcome r = run_both(m, "random:3", " --random-weights 1", dir);
                INFO(r.vpu_out);
                REQUIRE(r.vpu_code == 0);
                CHECK(r.ref_max >= fp16_min_subnormal);
                CHECK(r.fig.rel_l2 <= 1e-2);
                line << " (below fp16's smallest subnormal " << fp16_min_subnormal
                     << "); random weights and input: relative L2 " << r.fig.rel_l2;
            }
            report += line.str() + "\n";
        }
        CHECK(models >= 3);
        MESSAGE("simulated fp16 vs nnef-run:\n" << report);
    }
}

}  // namespace to_vpu_numerics_test
