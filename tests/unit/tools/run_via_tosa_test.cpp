// End-to-end tests of `nnef-run --via tosa`: the model lowered to TOSA and run by the TOSA
// interpreter gives what the reference executor gives (the samples, the real models with their
// PyTorch references), with the usual options (--output-dir, --dump, --compare, inputs), and clear
// errors for what has no TOSA form or does not combine.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdio>
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "common/compare.hpp"
#include "storage/tensor_file.hpp"
#include "tool_runner.hpp"
#include <nlohmann/json.hpp>

namespace run_via_tosa_test {

namespace fs = std::filesystem;
using nnef_test::quoted;
using nnef_test::contains;
using nnef_test::run_tool;
using nnef_test::shell_quote;

fs::path sample(const char* name) { return nnef_test::source_dir() / "samples" / name / "graph.nnef"; }
fs::path fresh(const std::string& name) {
    fs::path p = nnef_test::scratch_dir() / name;
    fs::remove_all(p);
    return p;
}
std::vector<double> read_tensor(const fs::path& p, std::vector<std::int64_t>& shape) {
    auto t = nnef::storage::read_tensor_file(p.string());
    REQUIRE(t);
    shape = (*t.value)->shape;
    return (*t.value)->to_doubles();
}
std::string sci(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.2e", v);
    return buf;
}

TEST_SUITE("tools") {

TEST_CASE("nnef-run --via tosa matches the reference executor on the classifier sample") {
    const fs::path ref = fresh("via-tosa-ref"), out = fresh("via-tosa-out");
    const std::string base = quoted(sample("classifier")) + " --random-weights 1 --input image=random:7 --dump relu1,pooled --output-dir ";
    auto r = run_tool("nnef-run", base + quoted(ref));
    INFO(r.err);
    REQUIRE(r.code == 0);
    auto t = run_tool("nnef-run", base + quoted(out) + " --via tosa");
    INFO(t.err);
    REQUIRE(t.code == 0);
    CHECK(contains(t.out, "output probabilities: scalar[1,10] min "));
    CHECK(contains(t.out, "tensor relu1: scalar[1,16,32,32] min 0 max "));
    for (const std::string name : {"probabilities", "relu1", "pooled"}) {
        CAPTURE(name);
        std::vector<std::int64_t> s1, s2;
        const std::vector<double> a = read_tensor(out / (name + ".dat"), s1);
        const std::vector<double> b = read_tensor(ref / (name + ".dat"), s2);
        CHECK(s1 == s2);
        const nnef_test::Comparison cmp = nnef_test::compare(a, b);
        CHECK_MESSAGE(cmp.max_rel_within(1e-5), cmp.summary());
    }
    // --compare against the executor's outputs
    auto c = run_tool("nnef-run", quoted(sample("classifier")) + " --random-weights 1 --input image=random:7 --via tosa --rtol 1e-5 --compare " + quoted(ref));
    INFO(c.err);
    CHECK(c.code == 0);
    CHECK(contains(c.out, ": match\n"));
}

TEST_CASE("nnef-run --via tosa: errors") {
    auto bad = run_tool("nnef-run", quoted(sample("classifier")) + " --random-weights 1 --input image=random:7 --via mlir");
    CHECK(bad.code == 2);
    CHECK(contains(bad.err, "--via takes 'tosa' or 'nnapi', not 'mlir'"));
    auto f64 = run_tool("nnef-run", quoted(sample("classifier")) + " --random-weights 1 --input image=random:7 --via tosa --float64");
    CHECK(f64.code == 2);
    CHECK(contains(f64.err, "does not combine with --float64"));
    // --dump of tensors the lowering folds away: every one is named in the one run (a script that
    // dumps many tensors, scripts/zoo/trace_codes.py, drops them all at once), and the exit status is 1
    const fs::path dir = fresh("via-tosa-folded");
    fs::create_directories(dir);
    std::ofstream(dir / "graph.nnef") << "version 1.0;\ngraph g(x) -> (y)\n{\n    x = external<scalar>(shape = [1, 4]);\n"
                                         "    a = copy(x);\n    b = unsqueeze(a, axes = [0]);\n    c = squeeze(b, axes = [0]);\n"
                                         "    y = relu(c);\n}\n";
    auto folded = run_tool("nnef-run", quoted(dir / "graph.nnef") + " --input x=random:1 --via tosa --dump a,y,c");
    CHECK(folded.code == 1);
    CHECK(contains(folded.err, "tensor 'a' has no value in the TOSA graph"));
    CHECK(contains(folded.err, "tensor 'c' has no value in the TOSA graph"));
    CHECK(!contains(folded.err, "tensor 'y' has no value"));
}

TEST_CASE("nnef-run --via tosa on real models") {
    NNEF_REQUIRE_CORPUS();
    const fs::path real = nnef_test::corpus_dir() / "real";
    SUBCASE("reference outputs") {
        for (const std::string name : {"squeezenet1_0", "mobilenet_v2", "shufflenet_v2_x1_0"}) {
            CAPTURE(name);
            const fs::path m = real / name;
            auto r = run_tool("nnef-run", quoted(m) + " --via tosa --input " + quoted(m / "reference" / "input.dat") + " --compare " +
                                              quoted(m / "reference") + " --format json");
            INFO(r.err);
            CHECK(r.code == 0);
            nlohmann::json v;
            REQUIRE_NOTHROW(v = nlohmann::json::parse(r.out));
            CHECK(v.at("compare").at("match").get<bool>());
            const double rel = v.at("compare").at("outputs").at(0).at("max_rel_error").get<double>();
            MESSAGE(name << " via tosa: max relative error " << rel);
            CHECK(rel <= 1e-4);
        }
    }
    SUBCASE("a custom operation has no TOSA form") {
        auto r = run_tool("nnef-run", quoted(real / "gru_small_mirror") + " --via tosa --input random:1");
        CHECK(r.code == 1);
        CHECK(contains(r.err, "error[tosa]"));
        CHECK(contains(r.err, "GRU_v1"));
    }
}

TEST_CASE("nnef-run --via tosa --profile pro-fp on the int8 corpus models: stored codes are dequantized as graph.quant says") {
    // PRO-FP (asked for: a quantized model's default is PRO-INT, run_pro_int_test) computes in
    // float: the weights are the stored int8 codes read through their graph.quant entries (not the
    // codes as reals), so the result is the reference executor's without the simulated quantization
    // of activations (--no-quant).
    NNEF_REQUIRE_CORPUS();
    for (const std::string name : {"squeezenet1_0_int8", "shufflenet_v2_x1_0_int8"}) {
        CAPTURE(name);
        const fs::path m = nnef_test::corpus_file("quantized/" + name);
        const fs::path ref = fresh("via-tosa-int8-" + name);
        auto r = run_tool("nnef-run", quoted(m) + " --no-quant --input random:3 --output-dir " + quoted(ref));
        INFO(r.err);
        REQUIRE(r.code == 0);
        auto t = run_tool("nnef-run", quoted(m) + " --via tosa --profile pro-fp --input random:3 --rtol 1e-4 --format json --compare " + quoted(ref));
        INFO(t.err);
        CHECK(t.code == 0);
        nlohmann::json v;
        REQUIRE_NOTHROW(v = nlohmann::json::parse(t.out));
        CHECK(v.at("compare").at("match").get<bool>());
    }
}

TEST_CASE("nnef-run --via tosa on every real model of the corpus: N passed, M failed") {
    NNEF_RELEASE_PASS_ONLY("the same lowering and TOSA interpreter run on every corpus model under the sanitizers in tosa: legalize: every corpus model and sample, and nnef-run --via tosa in nnef-run --via tosa on real models");
    // Each model lowered (PRO-FP, level 8K, the validator after each pass) and run by the TOSA
    // interpreter against the reference executor on the same input (random weights for the
    // graph-only models): max relative error <= 1e-5; and against the PyTorch reference where the
    // model ships one: <= 1e-4. Models with a custom operation must be refused by both.
    NNEF_REQUIRE_CORPUS();
    const fs::path real = nnef_test::corpus_dir() / "real";
    // Known failures (tally.known, name -> reason) must still fail; none today: the lowering and
    // nnef-run share storage/random_data, so batch-norm variances agree.
    nnef_test::CorpusTally tally;  // tally.known: none today
    for (const std::string& name : nnef_test::real_models()) {
        CAPTURE(name);
        const fs::path m = real / name;
        const std::string weights = nnef_test::stores_weights(m) ? "" : " --random-weights 1";
        const fs::path ref = fresh("via-tosa-corpus-" + name);
        auto r = run_tool("nnef-run", quoted(m) + weights + " --input random:1 --output-dir " + quoted(ref));
        std::string outcome;
        bool ok = false;
        if (r.code != 0) {
            // refused by the executor (a custom operation): the lowering must refuse it too
            auto t = run_tool("nnef-run", quoted(m) + weights + " --input random:1 --via tosa");
            ok = t.code == 1 && contains(t.err, "error[tosa]") && contains(t.err, "custom operation");
            outcome = ok ? "refused by both (custom operation)" : "executor refused, --via tosa: exit " + std::to_string(t.code);
        } else {
            auto t = run_tool("nnef-run", quoted(m) + weights + " --input random:1 --via tosa --rtol 1e-5 --format json --compare " + quoted(ref));
            nlohmann::json v;
            double rel = -1.0;
            if (t.code <= 1 && !t.out.empty()) {
                REQUIRE_NOTHROW(v = nlohmann::json::parse(t.out));
                for (const auto& o : v.at("compare").at("outputs")) rel = std::max(rel, o.at("max_rel_error").get<double>());
            }
            ok = t.code == 0;
            outcome = ok ? "executor: max relative error " + sci(rel)
                         : "exit " + std::to_string(t.code) + (rel >= 0 ? ", max relative error " + sci(rel) : ": " + t.err.substr(0, 300));
            if (ok && fs::exists(m / "reference" / "output.dat")) {
                auto p = run_tool("nnef-run", quoted(m) + " --via tosa --input " + quoted(m / "reference" / "input.dat") + " --compare " + quoted(m / "reference"));
                ok = p.code == 0;
                outcome += ok ? "; PyTorch reference: match (1e-4)" : "; PyTorch reference: MISMATCH";
            }
        }
        tally.record(name, ok, outcome);
    }
    MESSAGE("nnef-run --via tosa on the corpus: " << tally.passed << " passed, " << tally.failed << " failed\n" << tally.report);
}

}  // TEST_SUITE

}  // namespace run_via_tosa_test
