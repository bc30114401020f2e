// NNAPI model -> TOSA (lowering/nnapi/to_tosa.hpp): for every operation lowered, a small model whose
// TOSA graph passes the TOSA validator and whose TOSA interpreter outputs equal the NNAPI
// interpreter's (relative L2 <= 1e-5); then the refusals, each naming the operation.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "common/compare.hpp"
#include "lowering/nnapi/to_tosa.hpp"
#include "lowering/tosa/interpreter.hpp"
#include "lowering/tosa/mlir.hpp"
#include "lowering/tosa/validator.hpp"
#include "test_support.hpp"
#include "unit/nnapi/nnapi_fixtures.hpp"

using namespace nnapi_test;
namespace tosa = nnef::tosa;

namespace to_tosa_test {

std::string messages(const nnef::Diagnostics& d) {
    std::string s;
    for (const auto& e : d) s += e.message + "\n";
    return s;
}

// Items that are not all alike (signs and magnitudes mixed), deterministic.
std::vector<float> wave(std::size_t n, float seed = 0.0f) {
    std::vector<float> v(n);
    for (std::size_t i = 0; i < n; ++i) v[i] = 2.0f * std::sin(0.7f * float(i) + seed) + 0.25f * std::cos(1.3f * float(i));
    return v;
}

std::size_t volume(const std::vector<std::uint32_t>& d) {
    std::size_t n = 1;
    for (std::uint32_t x : d) n *= x;
    return n;
}

struct BothRuns {
    std::vector<Tensor> want;            // the NNAPI interpreter's outputs
    std::vector<tosa::ConstPtr> got;     // the TOSA interpreter's
};

// Runs `m` on the NNAPI interpreter and, lowered to TOSA, on the TOSA interpreter after checking that
// the graph has `profile` and passes the TOSA validator (level 8K). The TOSA inputs are the NNAPI
// inputs' bytes (float32 as fp32, uint8 codes as the i8 inputs' bits).
BothRuns run_both(const Model& m, const std::vector<Tensor>& inputs, tosa::Profile profile) {
    std::vector<tosa::ConstPtr> tosa_inputs;
    for (const Tensor& t : inputs) {
        tosa::TensorType type{t.type == Q8 ? tosa::DType::i8 : tosa::DType::fp32, {}};
        for (std::uint32_t d : t.dimensions) type.shape.push_back(d);
        auto data = tosa::ConstData::allocate(type);
        REQUIRE(data->byte_size() == t.data.size());
        std::memcpy(data->mutable_items<std::uint8_t>(), t.data.data(), t.data.size());
        tosa_inputs.push_back(data);
    }
    nnef::Diagnostics d(100);
    auto want = run(m, inputs, d);
    CAPTURE(messages(d));
    REQUIRE(want.has_value());
    auto g = to_tosa(m, d);
    CAPTURE(messages(d));
    REQUIRE(g.has_value());
    CHECK(g->profile == profile);
    tosa::ValidateOptions vo;
    vo.profile = profile;
    vo.extensions = tosa::validation_extensions(*g);  // as the tools validate (quant8 SOFTMAX: EXT-INT16)
    const bool valid = tosa::validate(*g, vo, d);
    CAPTURE(messages(d));
    CAPTURE(tosa::to_text(*g));
    REQUIRE(valid);
    auto got = tosa::interpret(*g, tosa_inputs, tosa::InterpretOptions{}, d);
    CAPTURE(messages(d));
    REQUIRE(got.has_value());
    REQUIRE(got->size() == want->size());
    for (std::size_t k = 0; k < got->size(); ++k) {
        std::vector<std::int64_t> want_shape((*want)[k].dimensions.begin(), (*want)[k].dimensions.end());
        CHECK((*got)[k]->type.shape == want_shape);
    }
    return {std::move(*want), std::move(*got)};
}

// Float32: the TOSA outputs equal the NNAPI interpreter's (relative L2 <= 1e-5) on the wave inputs.
void check_lowering(const Model& m) {
    std::vector<Tensor> inputs;
    for (std::size_t k = 0; k < m.inputIndexes.size(); ++k) {
        const Operand& o = m.operands[m.inputIndexes[k]];
        inputs.push_back(make_float_tensor(o.dimensions, wave(volume(o.dimensions), float(k))));
    }
    const BothRuns r = run_both(m, inputs, tosa::Profile::pro_fp);
    for (std::size_t k = 0; k < r.got.size(); ++k) {
        const tosa::ConstData& c = *r.got[k];
        std::vector<float> items(c.items<float>(), c.items<float>() + c.type.volume());
        nnef_test::Comparison cmp;
        cmp.add(items, to_floats(r.want[k]));
        CHECK_MESSAGE(cmp.rel_l2_within(1e-5), cmp.summary());
    }
}

// TENSOR_QUANT8_ASYMM: uint8 codes in and out; every output code within 1 of the NNAPI
// interpreter's (RESCALE rounds once where the 1.0 reference rounds twice), and most equal.
void check_quant_lowering(const Model& m) {
    std::vector<Tensor> inputs;
    for (std::size_t k = 0; k < m.inputIndexes.size(); ++k) {
        const Operand& o = m.operands[m.inputIndexes[k]];
        std::vector<std::uint8_t> codes(volume(o.dimensions));
        for (std::size_t i = 0; i < codes.size(); ++i) codes[i] = std::uint8_t((i * 37 + k * 11 + (i * i) % 23) % 256);
        inputs.push_back(make_quant8_tensor(o.dimensions, codes, o.scale, o.zeroPoint));
    }
    const BothRuns r = run_both(m, inputs, tosa::Profile::pro_int);
    for (std::size_t k = 0; k < r.got.size(); ++k) {
        const tosa::ConstData& c = *r.got[k];
        REQUIRE(c.type.dtype == tosa::DType::i8);
        std::vector<int> items, wanted(r.want[k].data.begin(), r.want[k].data.end());
        for (std::int64_t i = 0; i < c.type.volume(); ++i) items.push_back(c.items<std::uint8_t>()[i]);
        nnef_test::Comparison cmp;
        cmp.add(items, wanted);
        std::size_t equal = 0;
        for (std::size_t i = 0; i < std::min(items.size(), wanted.size()); ++i) equal += items[i] == wanted[i];
        CHECK_MESSAGE(cmp.max_abs_within(1.0), cmp.summary());
        CHECK_MESSAGE(equal * 10 >= wanted.size() * 9, equal << " of " << wanted.size() << " codes equal");
        // not a constant output: the test inputs reach it
        CHECK(*std::max_element(wanted.begin(), wanted.end()) != *std::min_element(wanted.begin(), wanted.end()));
    }
}

// The number of operators of this kind in the graph's main block.
std::size_t count_ops(const tosa::Graph& g, tosa::OpKind kind) {
    std::size_t n = 0;
    for (const tosa::Op& op : g.main().ops) n += op.kind == kind;
    return n;
}

// The first error message of lowering `m`, which must fail.
std::string lowering_error(const Model& m) {
    nnef::Diagnostics d(100);
    auto g = to_tosa(m, d);
    CHECK_FALSE(g.has_value());
    for (const auto& e : d)
        if (e.severity == nnef::Severity::error) return e.message;
    return "";
}


TEST_CASE("nnapi to_tosa: CONV_2D, implicit SAME with stride 2 and RELU") {
    check_lowering(One(F32, {1, 5, 6, 3})
                       .floats({4, 3, 3, 3}, wave(108, 1.0f))
                       .floats({4}, {0.5f, -0.5f, 0.0f, 1.0f})
                       .i32(1).i32(2).i32(2).i32(1)
                       .done(OperationType::CONV_2D, F32, {1, 3, 3, 4}));
}

TEST_CASE("nnapi to_tosa: CONV_2D, explicit padding whose last rows no window reads (input sliced), RELU6") {
    // in 6, filter 3, stride 2, no padding: 2 outputs, the 6th row unused (TOSA wants exact division)
    check_lowering(One(F32, {1, 6, 7, 2})
                       .floats({3, 3, 3, 2}, wave(54, 2.0f))
                       .floats({3}, {0.1f, 0.2f, 0.3f})
                       .i32(0).i32(1).i32(0).i32(0).i32(2).i32(2).i32(3)
                       .done(OperationType::CONV_2D, F32, {1, 2, 3, 3}));
}

TEST_CASE("nnapi to_tosa: DEPTHWISE_CONV_2D with multiplier 2, implicit SAME, RELU1") {
    check_lowering(One(F32, {1, 4, 4, 3})
                       .floats({1, 3, 3, 6}, wave(54, 3.0f))
                       .floats({6}, {0, 1, 2, 3, 4, 5})
                       .i32(1).i32(1).i32(1).i32(2).i32(2)
                       .done(OperationType::DEPTHWISE_CONV_2D, F32, {1, 4, 4, 6}));
}

TEST_CASE("nnapi to_tosa: DEPTHWISE_CONV_2D, explicit padding, stride 2") {
    check_lowering(One(F32, {1, 7, 7, 2})
                       .floats({1, 3, 3, 2}, wave(18, 4.0f))
                       .floats({2}, {0.5f, -0.5f})
                       .i32(1).i32(1).i32(1).i32(1).i32(2).i32(2).i32(1).i32(0)
                       .done(OperationType::DEPTHWISE_CONV_2D, F32, {1, 4, 4, 2}));
}

TEST_CASE("nnapi to_tosa: the pools (padding counts no positions)") {
    SUBCASE("AVERAGE_POOL_2D, implicit SAME 3x3 stride 2") {
        check_lowering(One(F32, {1, 5, 5, 2}).i32(1).i32(2).i32(2).i32(3).i32(3).i32(0)
                           .done(OperationType::AVERAGE_POOL_2D, F32, {1, 3, 3, 2}));
    }
    SUBCASE("MAX_POOL_2D, explicit padding, RELU") {
        check_lowering(One(F32, {1, 6, 6, 3}).i32(1).i32(0).i32(1).i32(0).i32(2).i32(2).i32(2).i32(2).i32(1)
                           .done(OperationType::MAX_POOL_2D, F32, {1, 3, 3, 3}));
    }
    SUBCASE("L2_POOL_2D, implicit VALID") {
        check_lowering(One(F32, {1, 4, 4, 2}).i32(2).i32(1).i32(1).i32(2).i32(2).i32(0)
                           .done(OperationType::L2_POOL_2D, F32, {1, 3, 3, 2}));
    }
}

TEST_CASE("nnapi to_tosa: FULLY_CONNECTED flattens its input, RELU") {
    check_lowering(One(F32, {2, 3, 2})
                       .floats({4, 6}, wave(24, 5.0f))
                       .floats({4}, {0.1f, -0.1f, 0.2f, -0.2f})
                       .i32(1)
                       .done(OperationType::FULLY_CONNECTED, F32, {2, 4}));
}

TEST_CASE("nnapi to_tosa: ADD and MUL broadcast a lower-rank operand") {
    check_lowering(One(F32, {1, 2, 2, 3}).floats({3}, {1.0f, -2.0f, 0.5f}).i32(0).done(OperationType::ADD, F32, {1, 2, 2, 3}));
    check_lowering(One(F32, {1, 2, 2, 3}).floats({2, 1, 3}, wave(6, 6.0f)).i32(3).done(OperationType::MUL, F32, {1, 2, 2, 3}));
}

TEST_CASE("nnapi to_tosa: CONCATENATION, RESHAPE, SPACE_TO_DEPTH, DEPTH_TO_SPACE") {
    check_lowering(One(F32, {1, 2, 2, 3}).floats({1, 2, 2, 1}, {9, 8, 7, 6}).i32(3)
                       .done(OperationType::CONCATENATION, F32, {1, 2, 2, 4}));
    check_lowering(One(F32, {1, 2, 2, 3}).ints({2}, {1, 12}).done(OperationType::RESHAPE, F32, {1, 12}));
    check_lowering(One(F32, {1, 4, 6, 2}).i32(2).done(OperationType::SPACE_TO_DEPTH, F32, {1, 2, 3, 8}));
    check_lowering(One(F32, {1, 2, 3, 8}).i32(2).done(OperationType::DEPTH_TO_SPACE, F32, {1, 4, 6, 2}));
}

TEST_CASE("nnapi to_tosa: SOFTMAX (beta 0.5, 1.5), L2_NORMALIZATION") {
    check_lowering(One(F32, {2, 5}).f32(0.5f).done(OperationType::SOFTMAX, F32, {2, 5}));
    check_lowering(One(F32, {1, 2, 2, 4}).f32(1.5f).done(OperationType::SOFTMAX, F32, {1, 2, 2, 4}));
    check_lowering(One(F32, {1, 2, 2, 4}).done(OperationType::L2_NORMALIZATION, F32, {1, 2, 2, 4}));
}

TEST_CASE("nnapi to_tosa: the activations and FLOOR") {
    for (OperationType t : {OperationType::LOGISTIC, OperationType::TANH, OperationType::RELU, OperationType::RELU1,
                            OperationType::RELU6, OperationType::FLOOR}) {
        CAPTURE(to_string(t));
        check_lowering(One(F32, {1, 3, 3, 2}).done(t, F32, {1, 3, 3, 2}));
    }
}

TEST_CASE("nnapi to_tosa: a model of several operations (the depthwise-pool-softmax test model)") {
    nnef::Diagnostics d;
    auto m = read_model((nnef_test::source_dir() / "tests/unit/nnapi/models/depthwise-pool-softmax.json").string(), d);
    CAPTURE(messages(d));
    REQUIRE(m.has_value());
    check_lowering(*m);
}

TEST_CASE("nnapi to_tosa: TENSOR_QUANT8_ASYMM (PRO-INT, uint8 codes in and out)") {
    SUBCASE("CONV_2D, SAME stride 2, RELU6 (the activation range a clamp of codes)") {
        std::vector<std::uint8_t> w(4 * 3 * 3 * 3);
        for (std::size_t i = 0; i < w.size(); ++i) w[i] = std::uint8_t((i * 29) % 256);
        check_quant_lowering(One(Q8, {1, 5, 6, 3}, 0.05f, 120)
                                 .codes({4, 3, 3, 3}, w, 0.01f, 130)
                                 .ints({4}, {100, -200, 0, 50}, 0.0005f)
                                 .i32(1).i32(2).i32(2).i32(3)
                                 .done(OperationType::CONV_2D, Q8, {1, 3, 3, 4}, 0.05f, 10));
    }
    SUBCASE("DEPTHWISE_CONV_2D with multiplier 2, explicit padding, RELU") {
        std::vector<std::uint8_t> w(3 * 3 * 4);
        for (std::size_t i = 0; i < w.size(); ++i) w[i] = std::uint8_t((i * 53 + 7) % 256);
        check_quant_lowering(One(Q8, {1, 5, 5, 2}, 0.1f, 128)
                                 .codes({1, 3, 3, 4}, w, 0.02f, 128)
                                 .ints({4}, {10, 20, -30, 0}, 0.002f)
                                 .i32(1).i32(1).i32(1).i32(1).i32(1).i32(1).i32(2).i32(1)
                                 .done(OperationType::DEPTHWISE_CONV_2D, Q8, {1, 5, 5, 4}, 0.1f, 100));
    }
    SUBCASE("DEPTHWISE_CONV_2D over the whole input with one filter code (a mean onto another grid): REDUCE_SUM") {
        // the export's quantized mean_reduce of a 13x13 map: a kernel the VPU's NCE does not take
        const float fscale = 1.0f / (255.0f * 169.0f);
        const Model m = One(Q8, {1, 13, 13, 4}, 0.05f, 128)
                            .codes({1, 13, 13, 4}, std::vector<std::uint8_t>(13 * 13 * 4, 255), fscale, 0)
                            .ints({4}, {0, 0, 0, 0}, 0.05f * fscale)
                            .i32(0).i32(0).i32(0).i32(0).i32(1).i32(1).i32(1).i32(0)
                            .done(OperationType::DEPTHWISE_CONV_2D, Q8, {1, 1, 1, 4}, 0.002f, 120);
        check_quant_lowering(m);
        nnef::Diagnostics d;
        auto g = to_tosa(m, d);
        REQUIRE(g);
        CHECK(count_ops(*g, tosa::OpKind::REDUCE_SUM) == 2);
        CHECK(count_ops(*g, tosa::OpKind::DEPTHWISE_CONV2D) == 0);
    }
    SUBCASE("FULLY_CONNECTED") {
        std::vector<std::uint8_t> w(3 * 8);
        for (std::size_t i = 0; i < w.size(); ++i) w[i] = std::uint8_t((i * 71 + 3) % 256);
        check_quant_lowering(One(Q8, {2, 8}, 0.05f, 128)
                                 .codes({3, 8}, w, 0.01f, 127)
                                 .ints({3}, {5, -5, 100}, 0.0005f)
                                 .i32(0)
                                 .done(OperationType::FULLY_CONNECTED, Q8, {2, 3}, 0.02f, 128));
    }
    SUBCASE("AVERAGE_POOL_2D, MAX_POOL_2D with RELU") {
        check_quant_lowering(One(Q8, {1, 5, 5, 2}, 0.1f, 100).i32(1).i32(2).i32(2).i32(3).i32(3).i32(0)
                                 .done(OperationType::AVERAGE_POOL_2D, Q8, {1, 3, 3, 2}, 0.1f, 100));
        check_quant_lowering(One(Q8, {1, 4, 4, 2}, 0.1f, 100).i32(2).i32(2).i32(2).i32(2).i32(2).i32(1)
                                 .done(OperationType::MAX_POOL_2D, Q8, {1, 2, 2, 2}, 0.1f, 100));
    }
    SUBCASE("ADD and MUL of differently quantized operands, broadcast") {
        std::vector<std::uint8_t> c{10, 200, 128};
        check_quant_lowering(One(Q8, {1, 2, 2, 3}, 0.1f, 120).codes({3}, c, 0.05f, 128).i32(0)
                                 .done(OperationType::ADD, Q8, {1, 2, 2, 3}, 0.15f, 128));
        check_quant_lowering(One(Q8, {1, 2, 2, 3}, 0.1f, 120).codes({3}, c, 0.05f, 128).i32(1)
                                 .done(OperationType::MUL, Q8, {1, 2, 2, 3}, 0.5f, 0));
    }
    SUBCASE("RELU1, RESHAPE, CONCATENATION, SPACE_TO_DEPTH") {
        check_quant_lowering(One(Q8, {1, 3, 3, 2}, 0.02f, 128).done(OperationType::RELU1, Q8, {1, 3, 3, 2}, 0.02f, 128));
        check_quant_lowering(One(Q8, {1, 2, 2, 3}, 0.02f, 128).ints({2}, {1, 12}).done(OperationType::RESHAPE, Q8, {1, 12}, 0.02f, 128));
        check_quant_lowering(One(Q8, {1, 2, 2, 1}, 0.02f, 128).codes({1, 2, 2, 1}, {1, 2, 3, 4}, 0.02f, 128).i32(3)
                                 .done(OperationType::CONCATENATION, Q8, {1, 2, 2, 2}, 0.02f, 128));
        check_quant_lowering(One(Q8, {1, 4, 4, 2}, 0.02f, 128).i32(2).done(OperationType::SPACE_TO_DEPTH, Q8, {1, 2, 2, 8}, 0.02f, 128));
    }
}

TEST_CASE("nnapi to_tosa: quant8 LOGISTIC (an i8 TABLE) and SOFTMAX (an i16 TABLE of exp, INTDIV) within one code") {
    // inputs spread over the codes 0..255: at scale 0.05 the reals span [-6.4, 6.4], at 0.2 [-25.6, 25.6]
    for (float scale : {0.05f, 0.2f}) {
        CAPTURE(scale);
        check_quant_lowering(One(Q8, {1, 4, 4, 8}, scale, 128).done(OperationType::LOGISTIC, Q8, {1, 4, 4, 8}, 1.0f / 256, 0));
        check_quant_lowering(One(Q8, {2, 3, 3, 16}, scale, 100).f32(1.0f).done(OperationType::SOFTMAX, Q8, {2, 3, 3, 16}, 1.0f / 256, 0));
        check_quant_lowering(One(Q8, {4, 40}, scale, 128).f32(0.5f).done(OperationType::SOFTMAX, Q8, {4, 40}, 1.0f / 256, 0));
    }
    // a row of 1000 classes (a classifier's), one code above the rest: its output near 256 * e / (e + 999)
    check_quant_lowering(One(Q8, {2, 1000}, 0.1f, 128).f32(1.0f).done(OperationType::SOFTMAX, Q8, {2, 1000}, 1.0f / 256, 0));
    // the graph: TABLEs, the i16 one needing EXT-INT16
    nnef::Diagnostics d;
    auto g = to_tosa(One(Q8, {2, 8}, 0.1f, 128).f32(1.0f).done(OperationType::SOFTMAX, Q8, {2, 8}, 1.0f / 256, 0), d);
    REQUIRE(g);
    CHECK(count_ops(*g, tosa::OpKind::TABLE) == 1);
    CHECK(count_ops(*g, tosa::OpKind::INTDIV) == 2);
    const auto ext = tosa::validation_extensions(*g);
    CHECK(std::find(ext.begin(), ext.end(), "EXT-INT16") != ext.end());
}

TEST_CASE("nnapi to_tosa: what is not lowered is an error naming the operation and its index") {
    SUBCASE("an operation without a lowering") {
        Model m = One(F32, {1, 2, 2, 4}).i32(1).f32(1.0f).f32(1.0f).f32(0.5f)
                      .done(OperationType::LOCAL_RESPONSE_NORMALIZATION, F32, {1, 2, 2, 4});
        const std::string e = lowering_error(m);
        CHECK(e.find("operation 0 (LOCAL_RESPONSE_NORMALIZATION)") != std::string::npos);
        CHECK(e.find("has no TOSA lowering") != std::string::npos);
    }
    SUBCASE("a second operation without a lowering, after one that has") {
        Model m;
        const std::uint32_t in = add_operand(m, F32, {1, 2, 2, 1});
        const std::uint32_t mid = add_operand(m, F32, {1, 2, 2, 1});
        const std::uint32_t out = add_operand(m, F32, {1, 3, 3, 1});
        add_operation(m, OperationType::RELU, {in}, {mid});
        add_operation(m, OperationType::RESIZE_BILINEAR, {mid, add_int32_scalar(m, 3), add_int32_scalar(m, 3)}, {out});
        set_inputs_and_outputs(m, {in}, {out});
        const std::string e = lowering_error(m);
        CHECK(e.find("operation 1 (RESIZE_BILINEAR)") != std::string::npos);
    }
    SUBCASE("a quantized operation without a lowering") {
        Model m = One(Q8, {1, 4}, 0.5f, 128).done(OperationType::DEQUANTIZE, F32, {1, 4});
        const std::string e = lowering_error(m);
        CHECK(e.find("operation 0 (DEQUANTIZE)") != std::string::npos);
    }
    SUBCASE("an invalid model is the validator's error") {
        Model m = conv_model(false);
        m.operands[1].numberOfConsumers = 5;
        const std::string e = lowering_error(m);
        CHECK(e.find("numberOfConsumers") != std::string::npos);
    }
    SUBCASE("a model input with unspecified dimensions") {
        Model m = conv_model(false);
        m.operands[0].dimensions = {0, 3, 3, 2};
        const std::string e = lowering_error(m);
        CHECK(e.find("unspecified dimensions") != std::string::npos);
    }
}

}  // namespace to_tosa_test
