// Models lowered by lower_to_tosa and emitted as MLIR, checked by MLIR 22: the samples and corpus
// models pass mlir-opt's strict validation (weights elided where large); the models that ship
// reference/ run through mlir-runner and match the PyTorch output; the classifier sample runs
// through mlir-runner and matches nnef-run on the same (random) weights and input.
#include <doctest/doctest.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include <nnef/nnef.hpp>

#include "common/compare.hpp"
#include "lowering/tosa/from_nnef.hpp"
#include "lowering/tosa/mlir.hpp"
#include "lowering/tosa/validator.hpp"
#include "graph_builder.hpp"
#include "lowered_model.hpp"
#include "mlir_support.hpp"
#include "storage/tensor_file.hpp"
#include "unit/tools/tool_runner.hpp"

using namespace nnef::tosa;
using namespace nnef_test;
namespace fs = std::filesystem;

namespace {

// The float32 items of a tensor file.
std::vector<float> read_floats(const fs::path& p) {
    auto r = nnef::storage::read_tensor_file(p.string());
    REQUIRE_MESSAGE(r, "cannot read " << p.string());
    const nnef::TensorData& t = **r;
    REQUIRE(t.bits == 32);
    std::vector<float> v(t.count);
    std::memcpy(v.data(), t.bytes.data(), t.count * sizeof(float));
    return v;
}

fs::path classifier_dir() { return source_dir() / "samples" / "classifier"; }

}  // namespace

TEST_SUITE("mlir") {
    // What our lowering and validator accept, MLIR's validator accepts too.
    TEST_CASE("mlir-opt accepts every emitted sample and corpus model that lowers and validates") {
        NNEF_REQUIRE_MLIR_OPT();
        std::vector<fs::path> models;
        for (const char* s : {"classifier", "composite"}) models.push_back(source_dir() / "samples" / s);
        if (have_corpus()) {
            std::vector<fs::path> real;
            for (const auto& e : fs::directory_iterator(corpus_dir() / "real")) real.push_back(e.path());
            std::sort(real.begin(), real.end());
            models.insert(models.end(), real.begin(), real.end());
        } else {
            NNEF_SKIP_PART("corpus not found at " << corpus_dir().string() << ": samples only");
        }
        std::size_t passed = 0;
        std::string not_lowered;
        for (const fs::path& m : models) {
            CAPTURE(m.string());
            auto l = lower_model(m, 1);
            if (l->graph) {
                // As nnef-to-tosa does: our validator on the result, with the extensions it needs.
                ValidateOptions vo;
                for (std::string e : mlir_extensions(*l->graph)) {
                    for (char& c : e) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
                    vo.extensions.push_back("EXT-" + e);
                }
                if (!validate(*l->graph, vo, l->diags)) l->graph.reset();
            }
            if (!l->graph) {
                // The lowering's own tests judge these; here: an error that says why, no crash.
                CHECK((l->diags.has_errors() || l->session.diagnostics().has_errors()));
                not_lowered += " " + m.filename().string();
                continue;
            }
            MlirOptions mo;
            mo.elide_weights = true;  // the structure is what the validator checks
            mo.elide_above = 1024;
            const CommandResult r = mlir_validate(to_mlir(*l->graph, mo), "pro_fp");
            CHECK_MESSAGE(r.code == 0, r.err.substr(0, 2000));
            if (r.code == 0) ++passed;
        }
        MESSAGE(passed << " models passed mlir-opt's strict validation; not lowered:" << (not_lowered.empty() ? " none" : not_lowered));
        CHECK(passed >= 2);
    }

    TEST_CASE("mlir-runner: the corpus models with a reference match PyTorch") {
        NNEF_REQUIRE_CORPUS();
        NNEF_REQUIRE_MLIR_RUNNER();
        // The three that ship reference/ (about 10 s each); NNEF_MLIR_MODELS (comma-separated)
        // chooses others.
        std::vector<std::string> names = {"squeezenet1_0", "mobilenet_v2", "shufflenet_v2_x1_0"};
        if (const char* env = std::getenv("NNEF_MLIR_MODELS")) {
            names.clear();
            std::string list = env;
            for (std::size_t at = 0; at <= list.size();) {
                const std::size_t comma = std::min(list.find(',', at), list.size());
                if (comma > at) names.push_back(list.substr(at, comma - at));
                at = comma + 1;
            }
        }
        for (const std::string& name : names) {
            CAPTURE(name);
            const fs::path model = corpus_dir() / "real" / name;
            auto l = lower_model(model, std::nullopt);
            REQUIRE_MESSAGE(l->graph.has_value(), rendered(*l));
            const std::vector<float> input = read_floats(model / "reference" / "input.dat");
            const std::vector<float> want = read_floats(model / "reference" / "output.dat");
            const Graph& g = *l->graph;
            REQUIRE(g.main().inputs.size() == 1);
            const TensorType in_type = g.type(g.main().inputs[0]);
            REQUIRE(static_cast<std::size_t>(in_type.volume()) == input.size());
            MlirOptions mo;
            mo.resource_blobs = true;
            mo.extra_ops.push_back(mlir_driver(g, {TosaBuilder::data<float>(DType::fp32, in_type.shape, input)}));
            const CommandResult r = mlir_execute(to_mlir(g, mo));
            REQUIRE_MESSAGE(r.code == 0, r.err.substr(0, 2000));
            const auto results = printed_results(r.out);
            REQUIRE(results.size() == 1);
            REQUIRE(results[0].size() == want.size());
            const Comparison c = compare(results[0], want);
            MESSAGE(name << " through MLIR: relative L2 " << c.rel_l2() << " against PyTorch");
            CHECK_MESSAGE(c.rel_l2_within(1e-4), c.summary());
        }
    }

    TEST_CASE("mlir-runner: the classifier sample matches nnef-run (same random weights and input)") {
        NNEF_REQUIRE_MLIR_RUNNER();
        auto l = lower_model(classifier_dir(), 7);
        REQUIRE_MESSAGE(l->graph.has_value(), rendered(*l));
        const Graph& g = *l->graph;
        REQUIRE(g.main().inputs.size() == 1);
        const TensorType in_type = g.type(g.main().inputs[0]);
        std::vector<float> input(static_cast<std::size_t>(in_type.volume()));
        for (std::size_t i = 0; i < input.size(); ++i) input[i] = static_cast<float>(std::sin(0.37 * static_cast<double>(i)));
        const fs::path dir = mlir_scratch("classifier_run");
        fs::create_directories(dir);
        auto t = nnef::storage::make_float_tensor(in_type.shape, input);
        REQUIRE(t.value);
        REQUIRE(nnef::storage::write_tensor_file((dir / "image.dat").string(), **t.value).value);
        const RunResult run = run_tool("nnef-run", shell_quote(classifier_dir().string()) + " --random-weights 7 --input image=" +
                                                        shell_quote((dir / "image.dat").string()) + " --output-dir " +
                                                        shell_quote(dir.string()));
        REQUIRE_MESSAGE(run.code == 0, run.err);
        const std::string output_name = l->session.graph()->outputs.at(0);
        const std::vector<float> want = read_floats(dir / (output_name + ".dat"));

        MlirOptions mo;
        mo.extra_ops.push_back(mlir_driver(g, {TosaBuilder::data<float>(DType::fp32, in_type.shape, input)}));
        const CommandResult r = mlir_execute(to_mlir(g, mo));
        REQUIRE_MESSAGE(r.code == 0, r.err.substr(0, 2000));
        const auto results = printed_results(r.out);
        REQUIRE(results.size() == 1);
        REQUIRE(results[0].size() == want.size());
        const Comparison c = compare(results[0], want);
        MESSAGE("classifier through MLIR vs nnef-run: max |difference| " << c.max_abs() << ", max |reference| " << c.max_ref());
        CHECK(c.max_ref() > 0);
        CHECK_MESSAGE(c.within(0.0, 1e-4), c.summary());
    }
}
