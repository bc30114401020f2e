// PRO-INT lowerings (lowering/tosa/from_nnef/integer.hpp, each operation's integer form in its
// family file) checked by MLIR 22: mlir-opt's strict validation at pro_int accepts them (and
// refuses them at pro_fp), and MLIR's execution of an emitted file gives the same i8 codes as our
// TOSA interpreter, bit for bit.
#include <doctest/doctest.h>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include <nnef/nnef.hpp>

#include "exec/executor.hpp"
#include "lowering/tosa/from_nnef.hpp"
#include "lowering/tosa/interpreter.hpp"
#include "lowering/tosa/mlir.hpp"
#include "lowered_model.hpp"
#include "mlir_support.hpp"
#include "storage/tensor_file.hpp"
#include "unit/tosa/integer_support.hpp"

using namespace nnef::tosa;
using namespace nnef_test;
namespace fs = std::filesystem;

namespace {

// The codes of the model's inputs: `x` for the first one, random ones otherwise.
std::vector<ConstPtr> input_codes(const LoweredModel& l, const nnef::exec::TensorValue* x) {
    const nnef::Graph& g = *l.session.graph();
    std::vector<ConstPtr> out;
    for (std::size_t i = 0; i < g.inputs.size(); ++i) {
        const nnef::Tensor& t = *g.tensor(g.inputs[i]);
        const auto codes = integer_codes(g, t.name);
        REQUIRE(codes.has_value());
        out.push_back(integer_support::input_codes(*codes, x && i == 0 ? *x : nnef::exec::random_tensor(t.dtype, *t.shape, 11 + i)));
    }
    return out;
}

// Runs the graph through the interpreter and through MLIR; the number of output items that differ.
std::size_t differing_codes(const Graph& g, const std::vector<ConstPtr>& inputs) {
    nnef::Diagnostics d;
    auto expected = interpret(g, inputs, {}, d);
    REQUIRE_MESSAGE(expected.has_value(), (d.empty() ? "" : d.list().front().message));
    MlirOptions mo;
    mo.resource_blobs = true;
    mo.extra_ops.push_back(mlir_driver(g, inputs));
    const CommandResult r = mlir_execute(to_mlir(g, mo));
    REQUIRE_MESSAGE(r.code == 0, r.err.substr(0, 2000));
    const auto results = printed_results(r.out);
    REQUIRE(results.size() == expected->size());
    std::size_t differ = 0;
    for (std::size_t k = 0; k < results.size(); ++k) {
        const ConstData& want = *(*expected)[k];
        REQUIRE(want.type.dtype == DType::i8);
        REQUIRE(results[k].size() == static_cast<std::size_t>(want.type.volume()));
        for (std::size_t i = 0; i < results[k].size(); ++i) differ += results[k][i] != want.items<std::int8_t>()[i];
    }
    return differ;
}

}  // namespace

TEST_SUITE("mlir") {
    TEST_CASE("mlir-opt accepts the PRO-INT lowering of quantized models at pro_int, and refuses it at pro_fp") {
        NNEF_REQUIRE_MLIR_OPT();
        std::vector<std::pair<fs::path, std::optional<std::uint64_t>>> models;
        models.emplace_back(integer_support::write_model("mlir_cnn", integer_support::cnn_graph, integer_support::cnn_quant), 5);
        models.emplace_back(source_dir() / "samples" / "quantized", 7);
        models.emplace_back(integer_support::write_model("mlir_binary", integer_support::binary_graph, integer_support::binary_quant), 3);
        models.emplace_back(integer_support::write_model("mlir_matmul", integer_support::matmul_graph, integer_support::matmul_quant), 1);
        models.emplace_back(integer_support::write_model("mlir_avg", integer_support::avg_graph, integer_support::avg_quant), 1);
        for (const char* m : {"hard_swish", "squeeze_excite", "constants", "zoo_forms", "transformer_forms", "patch_embed"})  // constant operands
            models.emplace_back(source_dir() / "tests" / "data" / "pro_int" / m, std::nullopt);
        if (have_corpus()) {
            for (const char* m : {"shufflenet_v2_x1_0_int8", "squeezenet1_0_int8"})
                models.emplace_back(corpus_dir() / "quantized" / m, std::nullopt);
            models.emplace_back(corpus_dir() / "conformance" / "quant" / "01_linear_all_tensors", std::nullopt);
        } else {
            NNEF_SKIP_PART("corpus not found at " << corpus_dir().string() << ": the small CNN and the sample only");
        }
        for (const auto& model : models) {
            const auto& m = model.first;  // not a structured binding: CAPTURE's lambda takes it (clang 14, C++17)
            const auto& seed = model.second;
            CAPTURE(m.string());
            auto l = lower_model(m, seed, Profile::pro_int);
            REQUIRE_MESSAGE(l->graph.has_value(), rendered(*l));
            MlirOptions mo;
            mo.elide_weights = true;
            mo.elide_above = 1024;
            const std::string text = to_mlir(*l->graph, mo);
            const CommandResult r = mlir_validate(text, "pro_int");
            CHECK_MESSAGE(r.code == 0, r.err.substr(0, 2000));
            CHECK(mlir_validate(text, "pro_fp").code != 0);
        }
    }

    TEST_CASE("mlir-runner and our TOSA interpreter give the same i8 codes for the quantized sample, a CNN, add/sub/mul, matmul, avg_pool and constant operands") {
        NNEF_REQUIRE_MLIR_RUNNER();
        auto cnn = lower_model(integer_support::write_model("mlir_cnn_run", integer_support::cnn_graph, integer_support::cnn_quant), 5, Profile::pro_int);
        REQUIRE_MESSAGE(cnn->graph.has_value(), rendered(*cnn));
        CHECK(differing_codes(*cnn->graph, input_codes(*cnn, nullptr)) == 0);
        auto sample = lower_model(source_dir() / "samples" / "quantized", 7, Profile::pro_int);  // RESCALE with a fraction, TABLE
        REQUIRE_MESSAGE(sample->graph.has_value(), rendered(*sample));
        CHECK(differing_codes(*sample->graph, input_codes(*sample, nullptr)) == 0);
        auto binary = lower_model(integer_support::write_model("mlir_binary_run", integer_support::binary_graph, integer_support::binary_quant), 3, Profile::pro_int);
        REQUIRE_MESSAGE(binary->graph.has_value(), rendered(*binary));  // ADD/SUB/MUL in i32, CLAMP
        CHECK(differing_codes(*binary->graph, input_codes(*binary, nullptr)) == 0);
        auto matmul = lower_model(integer_support::write_model("mlir_matmul_run", integer_support::matmul_graph, integer_support::matmul_quant), 1, Profile::pro_int);
        REQUIRE_MESSAGE(matmul->graph.has_value(), rendered(*matmul));  // MATMUL with zero points
        CHECK(differing_codes(*matmul->graph, input_codes(*matmul, nullptr)) == 0);
        auto avg = lower_model(integer_support::write_model("mlir_avg_run", integer_support::avg_graph, integer_support::avg_quant), 1, Profile::pro_int);
        REQUIRE_MESSAGE(avg->graph.has_value(), rendered(*avg));  // window sums, MUL by per-position factors
        CHECK(differing_codes(*avg->graph, input_codes(*avg, nullptr)) == 0);
        for (const char* m : {"hard_swish", "squeeze_excite", "constants", "zoo_forms", "transformer_forms", "patch_embed"}) {  // constant operands: MINIMUM/MAXIMUM, NEGATE
            CAPTURE(m);
            auto l = lower_model(source_dir() / "tests" / "data" / "pro_int" / m, std::nullopt, Profile::pro_int);
            REQUIRE_MESSAGE(l->graph.has_value(), rendered(*l));
            CHECK(differing_codes(*l->graph, input_codes(*l, nullptr)) == 0);
        }
    }

    // The corpus's int8 models through mlir-runner on their reference inputs: 19 s for both on this
    // machine (2 cores, load 12; SqueezeNet alone 10 s), so both run in CI. The sanitizer build
    // leaves tests/unit/mlir out (tests/CMakeLists.txt).
    TEST_CASE("mlir-runner and our TOSA interpreter give the same i8 codes for the corpus's int8 models") {
        NNEF_REQUIRE_CORPUS();
        NNEF_REQUIRE_MLIR_RUNNER();
        const std::vector<std::string> names{"squeezenet1_0_int8", "shufflenet_v2_x1_0_int8"};
        for (const std::string& name : names) {
            CAPTURE(name);
            const fs::path model = corpus_file(fs::path("quantized") / name);
            auto l = lower_model(model, std::nullopt, Profile::pro_int);
            REQUIRE_MESSAGE(l->graph.has_value(), rendered(*l));
            auto in = nnef::storage::read_tensor_file(corpus_file(fs::path("quantized") / name / "reference" / "input.dat").string());
            REQUIRE(in);
            const auto x = nnef::exec::from_tensor_data(**in.value, nnef::PrimType::scalar);
            REQUIRE(x.has_value());
            const std::size_t differ = differing_codes(*l->graph, input_codes(*l, &*x));
            MESSAGE(name << ": " << differ << " output codes differ between mlir-runner and the interpreter");
            CHECK(differ == 0);
        }
    }
}
