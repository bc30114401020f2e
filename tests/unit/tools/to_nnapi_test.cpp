// End-to-end tests of `nnef-to-nnapi` (the export to an NNAPI 1.0 model, written as JSON and a
// .bin pool) and of `nnef-run --via nnapi` (the exported model run by the NNAPI interpreter), on the
// samples and the corpus: what exports, validates and matches nnef-run; what is refused, with the
// operation named; --partial; errors and exit codes.
#include <doctest/doctest.h>

#include <algorithm>
#include <iomanip>
#include <filesystem>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tool_runner.hpp"

namespace to_nnapi_test {

namespace fs = std::filesystem;
using nnef_test::quoted;
using nnef_test::run_tool;
using nnef_test::shell_quote;

using nnef_test::contains;

const fs::path classifier = nnef_test::source_dir() / "samples" / "classifier" / "graph.nnef";
// An empty scratch folder.
fs::path folder(const std::string& name) {
    const fs::path p = nnef_test::scratch_dir() / name;
    fs::remove_all(p);
    fs::create_directories(p);
    return p;
}
std::string sci(double v) {
    std::ostringstream os;
    os << std::scientific << std::setprecision(2) << v;
    return os.str();
}

// What NNAPI 1.0 cannot express in the corpus's real models: the operation each is refused at.
const std::map<std::string, std::string> refused = {
    {"convnext_tiny", "operation 'mean_reduce' cannot be expressed in NNAPI 1.0: it reduces axes other than [2, 3]"},
    {"gru_small_mirror", "operation 'GRU_v1' cannot be expressed in NNAPI 1.0: it is a custom operation"},
    {"lstm_small", "operation 'slice' cannot be expressed in NNAPI 1.0: it rearranges 'external1', which is not a rank-4 activation"},
    {"mobilenet_v3_small_mirror", "operation 'HardSigmoid_v1' cannot be expressed in NNAPI 1.0: it is a custom operation"},
};

TEST_SUITE("tools") {

TEST_CASE("nnef-to-nnapi writes a model the validator accepts, and nnef-run --via nnapi matches nnef-run (classifier)") {
    const fs::path dir = folder("to-nnapi-classifier");
    auto r = run_tool("nnef-to-nnapi", quoted(classifier) + " --random-weights 1 -o " + quoted(dir / "model.json"));
    CHECK_MESSAGE(r.code == 0, r.err);
    CHECK(contains(r.out, "graph classifier: "));
    CHECK(contains(r.out, "CONV_2D 2"));
    CHECK(contains(r.out, "SOFTMAX 1"));
    CHECK(contains(r.out, "input image: TENSOR_FLOAT32[1,32,32,3] (NHWC)"));
    CHECK(fs::file_size(dir / "model.json") > 0);
    CHECK(fs::file_size(dir / "model.bin") > 16 * 3 * 3 * 3 * 4);
    nlohmann::json m;
    REQUIRE_NOTHROW(m = nlohmann::json::parse(nnef_test::read_text(dir / "model.json")));
    CHECK(m.contains("operands"));
    CHECK(m.contains("operations"));

    const fs::path ref = folder("to-nnapi-classifier-ref");
    const std::string base = quoted(classifier) + " --random-weights 1 --input image=random:7";
    REQUIRE(run_tool("nnef-run", base + " --output-dir " + quoted(ref)).code == 0);
    auto v = run_tool("nnef-run", base + " --via nnapi --rtol 1e-5 --format json --compare " + quoted(ref));
    CHECK_MESSAGE(v.code == 0, v.err);
    nlohmann::json d;
    REQUIRE_NOTHROW(d = nlohmann::json::parse(v.out));
    CHECK(d.at("compare").at("outputs")[0].at("rel_l2_error").get<double>() <= 1e-5);
    // --dump of an intermediate tensor the model holds; a fused one is an error that says so
    auto dump = run_tool("nnef-run", base + " --via nnapi --dump pool1");
    CHECK_MESSAGE(dump.code == 0, dump.err);
    CHECK(contains(dump.out, "tensor pool1: scalar[1,16,16,16]"));
    auto fused = run_tool("nnef-run", base + " --via nnapi --dump conv1");
    CHECK(fused.code == 1);
    CHECK(contains(fused.err, "tensor 'conv1' has no operand of its own in the NNAPI model"));
}

TEST_CASE("nnef-to-nnapi: usage, refusal and --partial") {
    auto none = run_tool("nnef-to-nnapi", quoted(classifier) + " --random-weights 1");
    CHECK(none.code == 2);
    CHECK(contains(none.err, "nnef-to-nnapi: error[usage]: -o MODEL.json is needed"));
    const fs::path doc = nnef_test::write_scratch("to-nnapi-exp.nnef", "version 1.0;\ngraph G( x ) -> ( y )\n{\n"
                                                                        "    x = external<scalar>(shape = [1, 4]);\n"
                                                                        "    a = relu(x);\n    y = exp(a);\n}\n");
    auto bad = run_tool("nnef-to-nnapi", quoted(doc) + " -o " + quoted(nnef_test::scratch_dir() / "to-nnapi-exp.json"));
    CHECK(bad.code == 1);
    CHECK_MESSAGE(contains(bad.err, "to-nnapi-exp.nnef:6:9: error[nnapi]: operation 'exp' cannot be expressed in NNAPI 1.0"), bad.err);
    auto partial = run_tool("nnef-to-nnapi", quoted(doc) + " --partial");
    CHECK(partial.code == 0);
    CHECK(contains(partial.out, "to-nnapi-exp.nnef:5:9: relu -> a: supported"));
    CHECK(contains(partial.out, "to-nnapi-exp.nnef:6:9: exp -> y: unsupported: NNAPI 1.0 has no operation that computes it"));
    CHECK(contains(partial.out, "2 of 3 operations supported"));
}

TEST_CASE("nnef-to-nnapi and nnef-run --via nnapi on every real model of the corpus") {
    NNEF_RELEASE_PASS_ONLY("the NNAPI export and interpreter run under the sanitizers on the nnapi suite's models and on the corpus's int8 models (the TENSOR_QUANT8_ASYMM test)");
    // Every real model NNAPI 1.0 can express exports, validates and runs through --via nnapi,
    // matching nnef-run on the same input (random weights for the graph-only models) within
    // relative L2 1e-5; the others are refused with the operation named.
    NNEF_REQUIRE_CORPUS();
    const fs::path real = nnef_test::corpus_dir() / "real";
    nnef_test::CorpusTally tally;
    for (const std::string& name : nnef_test::real_models()) {
        CAPTURE(name);
        const fs::path m = real / name;
        const std::string weights = nnef_test::stores_weights(m) ? "" : " --random-weights 1";
        const fs::path out = folder("to-nnapi-" + name);
        auto e = run_tool("nnef-to-nnapi", quoted(m) + weights + " -o " + quoted(out / "model.json"));
        const auto why = refused.find(name);
        if (why != refused.end()) {
            const bool ok = e.code == 1 && contains(e.err, why->second);
            tally.record(name, ok, ok ? "refused: " + why->second : "exit " + std::to_string(e.code) + ": " + e.err.substr(0, 300));
            continue;
        }
        if (e.code != 0) {
            tally.record(name, false, "export: exit " + std::to_string(e.code) + ": " + e.err.substr(0, 400));
            continue;
        }
        auto r = run_tool("nnef-run", quoted(m) + weights + " --input random:1 --output-dir " + quoted(out / "ref"));
        REQUIRE(r.code == 0);
        auto v = run_tool("nnef-run", quoted(m) + weights + " --input random:1 --via nnapi --rtol 1 --format json --compare " + quoted(out / "ref"));
        double l2 = -1.0;
        if (v.code <= 1 && !v.out.empty()) {
            nlohmann::json d;
            REQUIRE_NOTHROW(d = nlohmann::json::parse(v.out));
            if (d.contains("compare"))
                for (const auto& o : d.at("compare").at("outputs")) l2 = std::max(l2, o.at("rel_l2_error").get<double>());
        }
        const bool ok = v.code == 0 && l2 >= 0.0 && l2 <= 1e-5;
        tally.record(name, ok, "relative L2 " + sci(l2) + (v.code == 0 ? "" : ", exit " + std::to_string(v.code) + ": " + v.err.substr(0, 300)));
    }
    MESSAGE("nnef-to-nnapi + nnef-run --via nnapi on the corpus: " << tally.passed << " passed, " << tally.failed << " failed\n" << tally.report);
}

TEST_CASE("the int8 corpus models export as TENSOR_QUANT8_ASYMM and run within one code of nnef-run on >= 99.9% of outputs") {
    NNEF_REQUIRE_CORPUS();
    for (const std::string name : {"squeezenet1_0_int8", "shufflenet_v2_x1_0_int8"}) {
        CAPTURE(name);
        const fs::path m = nnef_test::corpus_dir() / "quantized" / name;
        const fs::path out = folder("to-nnapi-" + name);
        auto e = run_tool("nnef-to-nnapi", quoted(m) + " --format json -o " + quoted(out / "model.json"));
        REQUIRE_MESSAGE(e.code == 0, e.err);
        nlohmann::json d = nlohmann::json::parse(e.out);
        CHECK(d.at("inputs")[0].at("type") == "TENSOR_QUANT8_ASYMM");
        CHECK(d.at("outputs")[0].at("type") == "TENSOR_QUANT8_ASYMM");
        const std::string input = " --input " + quoted(m / "reference" / "input.dat");
        REQUIRE(run_tool("nnef-run", quoted(m) + input + " --output-dir " + quoted(out / "ref")).code == 0);
        auto v = run_tool("nnef-run", quoted(m) + input + " --via nnapi --max-quanta-off 255 --max-share-off 0.001 --format json --compare " +
                                          quoted(out / "ref"));
        CHECK_MESSAGE(v.code == 0, v.err);
        REQUIRE_NOTHROW(d = nlohmann::json::parse(v.out));
        const nlohmann::json& o = d.at("compare").at("outputs")[0];
        CHECK(o.at("quantized").get<bool>());
        MESSAGE(name << " --via nnapi against nnef-run: " << o.at("items_more_than_one_quantum_off") << " of " << o.at("items")
                     << " outputs more than one code off, at most " << o.at("max_quanta_off") << " codes");
        CHECK(o.at("share_more_than_one_quantum_off").get<double>() <= 0.001);
    }
}

}  // TEST_SUITE

}  // namespace to_nnapi_test
