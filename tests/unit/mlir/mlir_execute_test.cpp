// Executes emitted MLIR with MLIR 22 (TOSA -> linalg -> loops -> LLVM, then mlir-runner) and
// compares with results computed here from the specification's formulas.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include <nnef/diagnostics.hpp>

#include "lowering/tosa/interpreter.hpp"
#include "lowering/tosa/mlir.hpp"
#include "mlir_support.hpp"
#include "zoo_graphs.hpp"

using namespace nnef::tosa;
using namespace nnef_test;

TEST_SUITE("mlir") {
    TEST_CASE("mlir-runner executes an emitted function: convolution, clamp, pooling, a split PAD, RESCALE, TABLE") {
        using A = AttrName;
        const DType F = DType::fp32;
        TosaBuilder b("exec_check");
        const ValueId x = b.input(F, {1, 3, 3, 2}, "x");
        const ValueId xi = b.input(DType::i8, {4}, "xi");
        const std::vector<float> w = ramp(36, 0.25f, -2.0f), bias = {0.5f, 1.0f};
        const ValueId zp = b.f32({1}, {0.0f});
        const ValueId conv = b.op(OpKind::CONV2D, {x, b.f32({2, 3, 3, 2}, w), b.f32({2}, bias), zp, zp}, F, {1, 3, 3, 2},
                                  {{A::pad, std::vector<std::int64_t>{1, 1, 1, 1}}, {A::stride, std::vector<std::int64_t>{1, 1}},
                                   {A::dilation, std::vector<std::int64_t>{1, 1}}, {A::acc_type, AccType::FP32}});
        const ValueId clamp = b.op(OpKind::CLAMP, {conv}, F, {1, 3, 3, 2},
                                   {{A::min_val, 0.0}, {A::max_val, 6.0}, {A::nan_mode, NanMode::PROPAGATE}});
        const ValueId avg = b.op(OpKind::AVG_POOL2D, {clamp, zp, zp}, F, {1, 3, 3, 2},
                                 {{A::kernel, std::vector<std::int64_t>{3, 3}}, {A::stride, std::vector<std::int64_t>{1, 1}},
                                  {A::pad, std::vector<std::int64_t>{1, 1, 1, 1}}, {A::acc_type, AccType::FP32}});
        const ValueId pad = b.op(OpKind::PAD, {avg, b.shape({0, 0, 1, 1, 1, 1, 0, 0}), b.f32({1}, {-1.5f})}, F, {1, 5, 5, 2});
        const ValueId sum = b.op(OpKind::REDUCE_SUM, {pad}, F, {1, 1, 5, 2}, {{A::axis, std::int64_t{1}}});
        const ValueId q = b.op(OpKind::RESCALE, {xi, b.i32({1}, {1 << 30}), b.i8({1}, {31}), b.i8({1}, {0}), b.i8({1}, {3})},
                               DType::i8, {4},
                               {{A::scale32, true}, {A::rounding_mode, RoundingMode::SINGLE_ROUND}, {A::per_channel, false},
                                {A::input_unsigned, false}, {A::output_unsigned, false}});
        std::vector<std::int8_t> table(256);
        for (int i = 0; i < 256; ++i) table[static_cast<std::size_t>(i)] = static_cast<std::int8_t>(127 - i);
        const ValueId t = b.op(OpKind::TABLE, {q, b.i8({256}, table)}, DType::i8, {4});
        b.output(sum);
        b.output(t);

        // The inputs, and the expected results by the spec's formulas.
        const std::vector<float> xv = ramp(18, 0.375f, -2.5f);
        const std::vector<std::int8_t> xiv = {-128, -3, 5, 127};
        float conv_ref[3][3][2], clamp_ref[3][3][2], avg_ref[3][3][2];
        for (int h = 0; h < 3; ++h)
            for (int wi = 0; wi < 3; ++wi)
                for (int o = 0; o < 2; ++o) {
                    double acc = bias[static_cast<std::size_t>(o)];
                    for (int kh = 0; kh < 3; ++kh)
                        for (int kw = 0; kw < 3; ++kw)
                            for (int i = 0; i < 2; ++i) {
                                const int ih = h + kh - 1, iw = wi + kw - 1;
                                if (ih < 0 || ih >= 3 || iw < 0 || iw >= 3) continue;
                                acc += xv[static_cast<std::size_t>((ih * 3 + iw) * 2 + i)] *
                                       w[static_cast<std::size_t>(((o * 3 + kh) * 3 + kw) * 2 + i)];
                            }
                    conv_ref[h][wi][o] = static_cast<float>(acc);
                    clamp_ref[h][wi][o] = std::min(6.0f, std::max(0.0f, conv_ref[h][wi][o]));
                }
        for (int h = 0; h < 3; ++h)
            for (int wi = 0; wi < 3; ++wi)
                for (int o = 0; o < 2; ++o) {
                    double acc = 0;
                    int n = 0;  // TOSA's divisor: the elements inside the input (padding not counted)
                    for (int ih = h - 1; ih <= h + 1; ++ih)
                        for (int iw = wi - 1; iw <= wi + 1; ++iw)
                            if (ih >= 0 && ih < 3 && iw >= 0 && iw < 3) acc += clamp_ref[ih][iw][o], ++n;
                    avg_ref[h][wi][o] = static_cast<float>(acc / n);
                }
        std::vector<double> sum_ref;  // [1,1,5,2]: padded rows contribute -1.5 each
        for (int pw = 0; pw < 5; ++pw)
            for (int o = 0; o < 2; ++o) {
                double s = 0;
                for (int ph = 0; ph < 5; ++ph) {
                    const bool inside = ph >= 1 && ph <= 3 && pw >= 1 && pw <= 3;
                    s += inside ? avg_ref[ph - 1][pw - 1][o] : -1.5;
                }
                sum_ref.push_back(s);
            }
        // RESCALE: apply_scale_32(v, 2^30, 31) = (v * 2^30 + 2^30) >> 31, then + output_zp 3, clamped
        // to int8; TABLE (int8): table[v + 128].
        std::vector<double> table_ref;
        for (std::int8_t v : xiv) {
            const std::int64_t scaled = (static_cast<std::int64_t>(v) * (1 << 30) + (std::int64_t{1} << 30)) >> 31;
            const std::int64_t r = std::clamp<std::int64_t>(scaled + 3, -128, 127);
            table_ref.push_back(table[static_cast<std::size_t>(r + 128)]);
        }
        // By hand: rescaled -64, -1, 3, 64; plus 3: -61, 2, 6, 67; table[r + 128] = 127 - (r + 128) = -1 - r.
        CHECK(table_ref == std::vector<double>{60, -3, -7, -68});

        NNEF_REQUIRE_MLIR_RUNNER();
        MlirOptions opt;
        opt.extra_ops.push_back(mlir_driver(b.g, {TosaBuilder::data<float>(F, {1, 3, 3, 2}, xv),
                                                  TosaBuilder::data<std::int8_t>(DType::i8, {4}, xiv)}));
        const std::string text = to_mlir(b.g, opt);
        REQUIRE(text.find("\"tosa.pad\"(%pad_view") != std::string::npos);  // the split PAD is what runs
        const CommandResult r = mlir_execute(text);
        REQUIRE_MESSAGE(r.code == 0, r.err);
        const auto results = printed_results(r.out);
        REQUIRE(results.size() == 2);
        REQUIRE(results[0].size() == sum_ref.size());
        for (std::size_t i = 0; i < sum_ref.size(); ++i) {
            CAPTURE(i);
            CHECK(results[0][i] == doctest::Approx(sum_ref[i]).epsilon(1e-5));
        }
        CHECK(results[1] == table_ref);
    }

    TEST_CASE("mlir-runner and our TOSA interpreter agree bit for bit on the integer graph") {
        const Graph g = int_zoo();
        std::vector<std::int8_t> x(32);
        for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<std::int8_t>(static_cast<int>((i * 37 + 11) % 256) - 128);
        const ConstPtr input = TosaBuilder::data<std::int8_t>(DType::i8, {1, 4, 4, 2}, x);
        nnef::Diagnostics d;
        auto expected = interpret(g, {input}, {}, d);
        REQUIRE_MESSAGE(expected.has_value(), (d.empty() ? "" : d.list().front().message));
        NNEF_REQUIRE_MLIR_RUNNER();
        MlirOptions opt;
        opt.extra_ops.push_back(mlir_driver(g, {input}));
        const CommandResult r = mlir_execute(to_mlir(g, opt));
        REQUIRE_MESSAGE(r.code == 0, r.err);
        const auto results = printed_results(r.out);
        REQUIRE(results.size() == expected->size());
        for (std::size_t k = 0; k < results.size(); ++k) {
            const ConstData& want = *(*expected)[k];
            CAPTURE(k);
            CAPTURE(to_string(want.type));
            REQUIRE(results[k].size() == static_cast<std::size_t>(want.type.volume()));
            std::size_t differ = 0;
            for (std::size_t i = 0; i < results[k].size(); ++i) {
                const double w = want.type.dtype == DType::i8 ? want.items<std::int8_t>()[i] : want.items<std::int32_t>()[i];
                if (results[k][i] != w) ++differ;
            }
            CHECK(differ == 0);
        }
    }

    TEST_CASE("mlir-runner: COND_IF and WHILE_LOOP regions run as our interpreter and the hand computation say") {
        const Graph g = control_flow();
        const std::vector<float> x = {0.5f, -1.0f, 1.5f, 2.0f, -0.25f, 1.0f};
        for (const bool flag : {true, false}) {
            CAPTURE(flag);
            const std::vector<ConstPtr> inputs = {TosaBuilder::data<float>(DType::fp32, {2, 3}, x),
                                                  TosaBuilder::data<std::uint8_t>(DType::bool_, {}, {flag ? std::uint8_t{1} : std::uint8_t{0}})};
            // By hand: three iterations square three times: ((v^2)^2)^2 = v^8, v = 2x or x - 0.5.
            std::vector<double> want;
            for (float v : x) want.push_back(std::pow(flag ? 2.0 * v : v - 0.5, 8));
            nnef::Diagnostics d;
            auto interpreted = interpret(g, inputs, {}, d);
            REQUIRE_MESSAGE(interpreted.has_value(), (d.empty() ? "" : d.list().front().message));
            for (std::size_t i = 0; i < want.size(); ++i)
                CHECK((*interpreted)[0]->items<float>()[i] == doctest::Approx(want[i]).epsilon(1e-6));
            CHECK((*interpreted)[1]->items<float>()[0] == 3.0f);
            NNEF_REQUIRE_MLIR_RUNNER();
            const CommandResult valid = mlir_validate(to_mlir(g), "pro_fp", "8k", "controlflow");
            CHECK_MESSAGE(valid.code == 0, valid.err);
            MlirOptions opt;
            opt.extra_ops.push_back(mlir_driver(g, inputs));
            // mlir-runner does not load the tosa dialect, so it cannot read the module's
            // tosa.target_env (controlflow) that the lowered file would still carry.
            opt.target_env = false;
            const std::string text = to_mlir(g, opt);
            const CommandResult r = mlir_execute(text);
            REQUIRE_MESSAGE(r.code == 0, r.err);
            const auto results = printed_results(r.out);
            REQUIRE(results.size() == 2);
            REQUIRE(results[0].size() == want.size());
            for (std::size_t i = 0; i < want.size(); ++i) CHECK(results[0][i] == doctest::Approx(want[i]).epsilon(1e-5));
            CHECK(results[1] == std::vector<double>{3.0});
        }
    }
}
