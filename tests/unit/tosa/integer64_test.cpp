// PRO-INT against nnef-run's float64 executor (`nnef-run --float64`, nnef::exec64): the corpus's
// int8 models lowered to integers give the output codes of the simulated quantization computed in
// double. (integer_test.cpp compares with the float32 executor, nnef-run's default, whose own
// rounding moves some codes of squeezenet1_0_int8 by one step.)
#define NNEF_EXEC_FLOAT64 1
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include <nnef/nnef.hpp>

#include "exec/executor.hpp"
#include "integer_support.hpp"
#include "lowering/tosa/interpreter.hpp"
#include "storage/tensor_file.hpp"
#include "test_support.hpp"

namespace integer64_test {

namespace fs = std::filesystem;

std::string rendered(const nnef::Diagnostics& d, const nnef::SourceManager& sm) {
    std::string s;
    for (const nnef::Diagnostic& x : d) s += nnef::render(x, sm, false);
    return s;
}

// A model loaded twice: its compounds expanded as nnef-run --float64 runs them (session), and as
// the lowering takes them (kept).
struct Loaded {
    nnef::Session session, kept;
    explicit Loaded(const fs::path& model) : session(expanded()), kept(nnef::FlattenOptions{}) {
        REQUIRE(session.load_path(model.string()));
        REQUIRE(kept.load_path(model.string()));
    }
    static nnef::FlattenOptions expanded() {
        nnef::FlattenOptions fo;
        fo.expand = nnef::exec64::compounds_without_kernel();
        return fo;
    }
    // The kept graph lowered at PRO-INT (the test stops with the diagnostics when it fails).
    nnef::tosa::Graph pro_int() {
        nnef::tosa::LowerOptions lo;
        lo.profile = nnef::tosa::Profile::pro_int;
        nnef::Diagnostics d;
        auto t = nnef::tosa::lower_to_tosa(*kept.graph(), lo, d);
        REQUIRE_MESSAGE(t.has_value(), rendered(d, kept.sources()));
        return std::move(*t);
    }
};

TEST_SUITE("tosa") {

TEST_CASE("integer: the corpus's int8 models give nnef-run --float64's codes exactly") {
    NNEF_RELEASE_PASS_ONLY("the same two models are lowered and interpreted under the sanitizers in integer: the corpus's int8 models match nnef-run's simulated quantization, and the float64 executor runs there in exec's float64 tests");
    NNEF_REQUIRE_CORPUS();
    for (const std::string name : {"shufflenet_v2_x1_0_int8", "squeezenet1_0_int8"}) {
        CAPTURE(name);
        const fs::path model = nnef_test::corpus_dir() / "quantized" / name;
        Loaded loaded(model);
        nnef::Session &session = loaded.session, &kept = loaded.kept;
        const nnef::Graph& g = *session.graph();
        auto in = nnef::storage::read_tensor_file((model / "reference" / "input.dat").string());
        REQUIRE(in);
        const auto x = nnef::exec64::from_tensor_data(**in.value, nnef::PrimType::scalar);
        REQUIRE(x.has_value());
        // nnef-run --float64
        nnef::Diagnostics d;
        auto ex = nnef::exec64::Executor::create(g, nnef::exec64::ExecOptions{});
        REQUIRE_MESSAGE(ex, rendered(ex.diagnostics, session.sources()));
        REQUIRE((*ex.value)->set_input(g.inputs.at(0), *x, d));
        REQUIRE_MESSAGE((*ex.value)->run(d), rendered(d, session.sources()));
        const std::vector<double> want = (*ex.value)->tensor(g.outputs.at(0))->to_doubles();
        // PRO-INT through the interpreter
        nnef::tosa::LowerOptions lo;
        lo.profile = nnef::tosa::Profile::pro_int;
        const auto t = nnef::tosa::lower_to_tosa(*kept.graph(), lo, d);
        REQUIRE_MESSAGE(t.has_value(), rendered(d, kept.sources()));
        const auto in_codes = nnef::tosa::integer_codes(*kept.graph(), g.inputs.at(0));
        const auto out_codes = nnef::tosa::integer_codes(*kept.graph(), g.outputs.at(0));
        REQUIRE(in_codes.has_value());
        REQUIRE(out_codes.has_value());
        const auto outs = nnef::tosa::interpret(*t, {integer_support::input_codes(*in_codes, *x)}, {}, d);
        REQUIRE_MESSAGE(outs.has_value(), rendered(d, kept.sources()));
        const nnef::tosa::ConstData& o = *outs->at(0);
        const std::vector<std::int64_t> expected = nnef::storage::quantize(out_codes->params, o.type.shape, want);
        REQUIRE(expected.size() == std::size_t(o.type.volume()));
        std::size_t differ = 0;
        for (std::size_t k = 0; k < expected.size(); ++k)
            differ += integer_support::code_at(o, std::int64_t(k)) - out_codes->offset != expected[k];
        MESSAGE(name << ": " << differ << " of " << expected.size() << " output codes differ from nnef-run --float64's");
        CHECK(differ == 0);
    }
}

TEST_CASE("integer: a float bias between the accumulator's steps gives nnef-run --float64's codes exactly") {
    // input step 0.1 times weight step 0.01: accumulator steps of 0.001; the bias 0.0046 is 4.6 of
    // them. Rounded to that grid (5 steps) an all-zero row would give round(0.5) = 1 on the output
    // grid (step 0.01), where nnef-run computes round(0.46) = 0; AlexNet int8's codes moved so.
    const std::string graph = R"(version 1.0;
graph G( x ) -> ( y )
{
    x = external(shape = [64, 4]);
    w = constant(shape = [3, 4], value = [0.05, -0.03, 0.12, 0.07, -0.11, 0.02, 0.0, 0.09, 0.01, 0.04, -0.06, 0.1]);
    b = constant(shape = [1, 3], value = [0.0046, -0.01234, 0.00049]);
    y = linear(x, w, b);
}
)";
    const std::string quant = R"("x": zero_point_linear_quantize(zero_point = 0, scale = 0.1, bits = 8, signed = true, symmetric = false);
"w": zero_point_linear_quantize(zero_point = 0, scale = 0.01, bits = 8, signed = true, symmetric = true);
"y": zero_point_linear_quantize(zero_point = 0, scale = 0.01, bits = 8, signed = true, symmetric = false);
)";
    Loaded loaded(integer_support::write_model("fine_bias", graph, quant));
    nnef::Session &session = loaded.session, &kept = loaded.kept;
    const nnef::Graph& g = *session.graph();
    const nnef::tosa::Graph t = loaded.pro_int();
    nnef::Diagnostics d;
    // rows of codes -10..10 (x = code * 0.1), the first all zero
    nnef::exec64::TensorValue x(nnef::PrimType::scalar, {64, 4});
    for (std::int64_t i = 0; i < 256; ++i) x.data<double>()[i] = i < 4 ? 0.0 : double((i * 7 + (i / 4) * 3) % 21 - 10) * 0.1;
    auto ex = nnef::exec64::Executor::create(g, nnef::exec64::ExecOptions{});
    REQUIRE_MESSAGE(ex, rendered(ex.diagnostics, session.sources()));
    REQUIRE((*ex.value)->set_input("x", x, d));
    REQUIRE_MESSAGE((*ex.value)->run(d), rendered(d, session.sources()));
    const auto in_codes = nnef::tosa::integer_codes(*kept.graph(), "x");
    const auto out_codes = nnef::tosa::integer_codes(*kept.graph(), "y");
    REQUIRE(in_codes.has_value());
    REQUIRE(out_codes.has_value());
    const auto outs = nnef::tosa::interpret(t, {integer_support::input_codes(*in_codes, x)}, {}, d);
    REQUIRE_MESSAGE(outs.has_value(), rendered(d, kept.sources()));
    const nnef::tosa::ConstData& o = *outs->at(0);
    const std::vector<std::int64_t> want = nnef::storage::quantize(out_codes->params, o.type.shape, (*ex.value)->tensor("y")->to_doubles());
    REQUIRE(want.size() == 192);
    CHECK(want[0] == 0);  // round(0.46)
    CHECK(want[2] == 0);  // round(0.049)
    std::size_t differ = 0;
    for (std::size_t k = 0; k < want.size(); ++k) differ += integer_support::code_at(o, std::int64_t(k)) - out_codes->offset != want[k];
    CHECK(integer_support::code_at(o, 0) == 0);
    CHECK(differ == 0);
}

TEST_CASE("integer: constant operands give nnef-run --float64's codes within one step") {
    // tests/data/pro_int (integer_test.cpp compares the same graphs with the float32 executor);
    // transformer_forms (layer norm with division by an activation, attention, softmax, an erf
    // chain, x / 0) gives every code exactly
    struct Case {
        std::string name;
        double lo, hi;
    };
    for (const Case& k : {Case{"hard_swish", -5.5, 5.5}, Case{"squeeze_excite", -3.5, 3.5}, Case{"constants", -1.3, 1.3},
                          Case{"zoo_forms", -2.6, 2.6},
                          Case{"transformer_forms", -2.6, 2.6}, Case{"patch_embed", -2.6, 2.6}}) {
        CAPTURE(k.name);
        const fs::path model = nnef_test::source_dir() / "tests" / "data" / "pro_int" / k.name;
        Loaded loaded(model);
        nnef::Session &session = loaded.session, &kept = loaded.kept;
        const nnef::Graph& g = *session.graph();
        const nnef::tosa::Graph t = loaded.pro_int();
        nnef::Diagnostics d;
        std::size_t differ = 0, total = 0;
        std::int64_t worst = 0;
        for (double phase : {0.0, 0.25, 0.5}) {
            const auto xs = integer_support::spread_inputs<nnef::exec64::TensorValue, double>(g, k.lo, k.hi, phase);
            auto ex = nnef::exec64::Executor::create(g, nnef::exec64::ExecOptions{});
            REQUIRE_MESSAGE(ex, rendered(ex.diagnostics, session.sources()));
            std::vector<nnef::tosa::ConstPtr> ins;
            for (std::size_t i = 0; i < xs.size(); ++i) {
                REQUIRE((*ex.value)->set_input(g.inputs[i], xs[i], d));
                const auto codes = nnef::tosa::integer_codes(*kept.graph(), g.inputs[i]);
                REQUIRE(codes.has_value());
                ins.push_back(integer_support::input_codes(*codes, xs[i]));
            }
            REQUIRE_MESSAGE((*ex.value)->run(d), rendered(d, session.sources()));
            const auto outs = nnef::tosa::interpret(t, ins, {}, d);
            REQUIRE_MESSAGE(outs.has_value(), rendered(d, kept.sources()));
            for (std::size_t o = 0; o < g.outputs.size(); ++o) {
                const auto codes = nnef::tosa::integer_codes(*kept.graph(), g.outputs[o]);
                REQUIRE(codes.has_value());
                const nnef::tosa::ConstData& got = *outs->at(o);
                const std::vector<std::int64_t> want =
                    nnef::storage::quantize(codes->params, got.type.shape, (*ex.value)->tensor(g.outputs[o])->to_doubles());
                REQUIRE(want.size() == std::size_t(got.type.volume()));
                for (std::size_t i = 0; i < want.size(); ++i) {
                    const std::int64_t delta = integer_support::code_at(got, std::int64_t(i)) - codes->offset - want[i];
                    differ += delta != 0;
                    worst = std::max<std::int64_t>(worst, delta < 0 ? -delta : delta);
                    ++total;
                }
            }
        }
        MESSAGE(k.name << ": " << differ << " of " << total << " output codes differ from nnef-run --float64's, by at most "
                       << worst);
        CHECK(worst <= 1);
        if (k.name == "transformer_forms") CHECK(differ == 0);
    }
}

}  // TEST_SUITE

}  // namespace integer64_test
