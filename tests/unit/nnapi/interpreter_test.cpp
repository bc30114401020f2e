// The NNAPI 1.0 interpreter (lowering/nnapi/interpreter.hpp): each operation on small inputs whose
// results are worked out by hand in the comments, float32 and quant8 (the 1.0 reference's
// fixed-point arithmetic), the HAL execute() form, and run-time failures.
#include <doctest/doctest.h>

#include <cmath>

#include "lowering/nnapi/fixed_point.hpp"
#include "unit/nnapi/nnapi_fixtures.hpp"

using namespace nnapi_test;

namespace interpreter_test {

Tensor run_one(const Model& m, const Tensor& input) {
    nnef::Diagnostics d;
    auto out = run(m, {input}, d);
    std::string errors;
    for (const auto& e : d) errors += e.message + "\n";
    CAPTURE(errors);
    REQUIRE(out.has_value());
    REQUIRE(out->size() == 1);
    return (*out)[0];
}

std::vector<float> run_floats(const Model& m, std::vector<std::uint32_t> dims, const std::vector<float>& v) {
    return to_floats(run_one(m, make_float_tensor(std::move(dims), v)));
}

std::vector<std::uint8_t> run_codes(const Model& m, std::vector<std::uint32_t> dims, const std::vector<std::uint8_t>& v) {
    const Operand& in = m.operands[0];
    return run_one(m, make_quant8_tensor(std::move(dims), v, in.scale, in.zeroPoint)).data;
}

void check_close(const std::vector<float>& got, const std::vector<float>& want) {
    REQUIRE(got.size() == want.size());
    for (std::size_t i = 0; i < got.size(); ++i) {
        CAPTURE(i);
        CHECK(got[i] == doctest::Approx(want[i]).epsilon(1e-6));  // NaN fails
    }
}


TEST_SUITE("nnapi") {
TEST_CASE("interpreter: fixed-point arithmetic of the 1.0 reference") {
    using namespace nnef::nnapi::detail;
    auto q = quantize_multiplier(0.5);
    CHECK(q.value == (1 << 30));
    CHECK(q.shift == 0);
    q = quantize_multiplier(0.125 / 0.3);  // 0.41666 = 0.8333 * 2^-1
    CHECK(q.shift == -1);
    CHECK(q.value == 1789569707);  // round(0.833333 * 2^31)
    // -8 * 0.41666 = -3.33, but the reference rounds twice: -8 * 0.8333 = -6.67 -> -7 (high
    // multiply), then -7 / 2 = -3.5 -> -4 (rounding shift, half away from zero).
    CHECK(multiply_by_quantized_multiplier(-8, q) == -4);
    CHECK(multiply_by_quantized_multiplier(9, quantize_multiplier(0.5)) == 5);  // 4.5 rounds up
    CHECK(multiply_by_quantized_multiplier(100, quantize_multiplier(3.0)) == 300);  // multipliers >= 1 shift left
    CHECK(rounding_divide_by_pot(-12, 3) == -2);  // -1.5 -> -2 (half away from zero)
    CHECK(rounding_divide_by_pot(11, 2) == 3);    // 2.75 -> 3
    auto r = activation_range_uint8(3, 0.5f, 128);  // RELU6: [zp, zp + 6 / 0.5]
    CHECK(r.min == 128);
    CHECK(r.max == 140);
    r = activation_range_uint8(2, 0.25f, 10);  // RELU1: [max(0, 10 - 4), 10 + 4]
    CHECK(r.min == 6);
    CHECK(r.max == 14);
}

TEST_CASE("interpreter: CONV_2D") {
    SUBCASE("float, VALID") {
        // 3x3 input 1..9, 2x2 diagonal filter, bias 0.5: out = x[i][j] + x[i+1][j+1] + 0.5.
        Model m = One(F32, {1, 3, 3, 1}).floats({1, 2, 2, 1}, {1, 0, 0, 1}).floats({1}, {0.5f}).i32(2).i32(1).i32(1).i32(0)
                      .done(OperationType::CONV_2D, F32, {1, 2, 2, 1});
        check_close(run_floats(m, {1, 3, 3, 1}, {1, 2, 3, 4, 5, 6, 7, 8, 9}), {6.5f, 8.5f, 12.5f, 14.5f});
    }
    SUBCASE("float, SAME pads at the tail, RELU6") {
        // SAME with a 2x2 filter pads 0 before and 1 after: the last row and column read one value.
        Model m = One(F32, {1, 3, 3, 1}).floats({1, 2, 2, 1}, {1, 0, 0, 1}).floats({1}, {0.5f}).i32(1).i32(1).i32(1).i32(3)
                      .done(OperationType::CONV_2D, F32, {1, 3, 3, 1});
        check_close(run_floats(m, {1, 3, 3, 1}, {1, 2, 3, 4, 5, 6, 7, 8, 9}), {6, 6, 3.5f, 6, 6, 6, 6, 6, 6});
    }
    SUBCASE("float, explicit padding, stride 2, two channels") {
        // Pads left 1, right 0, top 1, bottom 0; stride 2; out [1,2,2,2]; filter 1x1 is not enough:
        // a 2x2 filter summing channel 0 (out 0) and doubling channel 1 (out 1).
        std::vector<float> f(2 * 2 * 2 * 2, 0);
        for (int p = 0; p < 4; ++p) f[p * 2 + 0] = 1, f[8 + p * 2 + 1] = 2;
        Model m = One(F32, {1, 3, 3, 2}).floats({2, 2, 2, 2}, f).floats({2}, {0, 0})
                      .i32(1).i32(0).i32(1).i32(0).i32(2).i32(2).i32(0).done(OperationType::CONV_2D, F32, {1, 2, 2, 2});
        std::vector<float> x;
        for (int i = 0; i < 9; ++i) x.push_back(float(i + 1)), x.push_back(10.0f * float(i + 1));
        // Windows (rows/cols from -1): (0,0) reads x[0][0] = 1 -> (1, 20); (0,1) reads x[0][1], x[0][2] = 2 + 3;
        // (1,0) reads x[1][0], x[2][0] = 4 + 7; (1,1) reads x[1][1], x[1][2], x[2][1], x[2][2] = 5 + 6 + 8 + 9.
        check_close(run_floats(m, {1, 3, 3, 2}, x), {1, 20, 5, 100, 11, 220, 28, 560});
    }
    SUBCASE("quant8") {
        // Input codes 130, 132 (scale 0.5, zp 128) are 1 and 2; filter codes 136, 120 (0.25, 128)
        // are 2 and -2; bias 8 (scale 0.125) is 1. acc = 2*8 + 4*(-8) + 8 = -8 (units of 0.125).
        // Output scale 0.3: multiplier 0.125 / 0.3 = 0.8333 * 2^-1; -8 * 0.8333 = -6.67 rounds to -7,
        // the shift by 1 rounds -3.5 to -4; + zp 100 = 96.
        Model m = One(Q8, {1, 1, 1, 2}, 0.5f, 128).codes({1, 1, 1, 2}, {136, 120}, 0.25f, 128).ints({1}, {8}, 0.125f)
                      .i32(2).i32(1).i32(1).i32(0).done(OperationType::CONV_2D, Q8, {1, 1, 1, 1}, 0.3f, 100);
        CHECK(run_codes(m, {1, 1, 1, 2}, {130, 132}) == std::vector<std::uint8_t>{96});
        // With RELU the codes below the output's zero point (100) are cut.
        set_int32(m, 6, 1);
        CHECK(run_codes(m, {1, 1, 1, 2}, {130, 132}) == std::vector<std::uint8_t>{100});
        // Saturation: 127 * 8 + (-128) * (-8) + 8 = 2048 -> 853 + 100 is above 255.
        set_int32(m, 6, 0);
        CHECK(run_codes(m, {1, 1, 1, 2}, {255, 0}) == std::vector<std::uint8_t>{255});
    }
}

TEST_CASE("interpreter: DEPTHWISE_CONV_2D") {
    // Input 1x1x2 channels (1, 2), multiplier 2, 1x1 filter (1, 2, 3, 4), bias (0, 0, 0, 1):
    // out[c*2+q] = x[c] * w[c*2+q] + b = (1, 2, 6, 9).
    Model m = One(F32, {1, 1, 1, 2}).floats({1, 1, 1, 4}, {1, 2, 3, 4}).floats({4}, {0, 0, 0, 1})
                  .i32(2).i32(1).i32(1).i32(2).i32(0).done(OperationType::DEPTHWISE_CONV_2D, F32, {1, 1, 1, 4});
    check_close(run_floats(m, {1, 1, 1, 2}, {1, 2}), {1, 2, 6, 9});
    SUBCASE("quant8, 2x2 window") {
        // One channel, codes 4 values (scale 1, zp 0) 1,2,3,4; filter all 1 (scale 1, zp 0); bias 0.
        // Sum 10, output scale 2 (> 1): 10 / 2 = 5.
        Model q = One(Q8, {1, 2, 2, 1}, 1.0f, 0).codes({1, 2, 2, 1}, {1, 1, 1, 1}, 1.0f, 0).ints({1}, {0}, 1.0f)
                      .i32(2).i32(1).i32(1).i32(1).i32(0).done(OperationType::DEPTHWISE_CONV_2D, Q8, {1, 1, 1, 1}, 2.0f, 0);
        CHECK(run_codes(q, {1, 2, 2, 1}, {1, 2, 3, 4}) == std::vector<std::uint8_t>{5});
    }
}

TEST_CASE("interpreter: pooling counts only the positions inside the input") {
    // 2x2 input (1, 2, 3, 4), 2x2 window, stride 1, SAME: out (0,1) averages 2 and 4, (1,1) is 4.
    auto pool = [](OperationType t) {
        return One(F32, {1, 2, 2, 1}).i32(1).i32(1).i32(1).i32(2).i32(2).i32(0).done(t, F32, {1, 2, 2, 1});
    };
    check_close(run_floats(pool(OperationType::AVERAGE_POOL_2D), {1, 2, 2, 1}, {1, 2, 3, 4}), {2.5f, 3, 3.5f, 4});
    check_close(run_floats(pool(OperationType::MAX_POOL_2D), {1, 2, 2, 1}, {1, 2, 3, 4}), {4, 4, 4, 4});
    check_close(run_floats(pool(OperationType::L2_POOL_2D), {1, 2, 2, 1}, {1, 2, 3, 4}),
                {std::sqrt(30.0f / 4), std::sqrt(20.0f / 2), std::sqrt(25.0f / 2), 4});
    SUBCASE("quant8 average rounds half up, max keeps codes, activation clamps") {
        // Explicit padding 0, window 2x1, stride 1: (1 + 2) / 2 = 1.5 -> 2; (3 + 6) / 2 = 4.5 -> 5.
        Model avg = One(Q8, {1, 2, 2, 1}, 1.0f, 0).i32(0).i32(0).i32(0).i32(0).i32(1).i32(1).i32(1).i32(2).i32(0)
                        .done(OperationType::AVERAGE_POOL_2D, Q8, {1, 1, 2, 1}, 1.0f, 0);
        CHECK(run_codes(avg, {1, 2, 2, 1}, {1, 3, 2, 6}) == std::vector<std::uint8_t>{2, 5});
        // RELU1 at scale 1, zp 3: codes kept in [2, 4].
        Model max = One(Q8, {1, 2, 2, 1}, 1.0f, 3).i32(2).i32(1).i32(1).i32(1).i32(2).i32(2)
                        .done(OperationType::MAX_POOL_2D, Q8, {1, 1, 2, 1}, 1.0f, 3);
        CHECK(run_codes(max, {1, 2, 2, 1}, {0, 9, 1, 3}) == std::vector<std::uint8_t>{2, 4});
    }
}

TEST_CASE("interpreter: FULLY_CONNECTED") {
    // [1, 2, 3] times weights [[1, 0, 1], [0, 1, 0]] plus bias (0.5, -1): (4.5, 1).
    Model m = One(F32, {1, 3}).floats({2, 3}, {1, 0, 1, 0, 1, 0}).floats({2}, {0.5f, -1}).i32(0)
                  .done(OperationType::FULLY_CONNECTED, F32, {1, 2});
    check_close(run_floats(m, {1, 3}, {1, 2, 3}), {4.5f, 1});
    SUBCASE("a rank-4 input is flattened to [batch, input_size]") {
        Model f = One(F32, {2, 1, 1, 3}).floats({1, 3}, {1, 1, 1}).floats({1}, {0}).i32(0)
                      .done(OperationType::FULLY_CONNECTED, F32, {2, 1});
        check_close(run_floats(f, {2, 1, 1, 3}, {1, 2, 3, 4, 5, 6}), {6, 15});
    }
    SUBCASE("quant8") {
        // Inputs (2, 4) at scale 0.5 zp 0 are 1, 2; weights codes (3, 1) at scale 1, zp 1 are 2, 0;
        // bias 2 at scale 0.5 is 1: acc = 2*2 + 4*0 + 2 = 6 (units of 0.5) = 3.0; output scale 1,
        // zp 10: 3 + 10 = 13.
        Model q = One(Q8, {1, 2}, 0.5f, 0).codes({1, 2}, {3, 1}, 1.0f, 1).ints({1}, {2}, 0.5f).i32(0)
                      .done(OperationType::FULLY_CONNECTED, Q8, {1, 1}, 1.0f, 10);
        CHECK(run_codes(q, {1, 2}, {2, 4}) == std::vector<std::uint8_t>{13});
    }
}

TEST_CASE("interpreter: ADD and MUL") {
    SUBCASE("float with broadcasting and activation") {
        // [2,2] + [2] row-wise, then RELU1.
        Model m = One(F32, {2, 2}).floats({2}, {0.5f, -3}).i32(2).done(OperationType::ADD, F32, {2, 2});
        check_close(run_floats(m, {2, 2}, {0, 1, 2, 3}), {0.5f, -1, 1, 0});
        Model mul = One(F32, {2, 1}).floats({1, 3}, {1, 2, 3}).i32(0).done(OperationType::MUL, F32, {2, 3});
        check_close(run_floats(mul, {2, 1}, {1, -2}), {1, 2, 3, -2, -4, -6});
    }
    SUBCASE("quant8 ADD with different scales") {
        // a code 130 (scale 0.5, zp 128) is 1.0; b code 136 (scale 0.25, zp 128) is 2.0; sum 3.0 at
        // scale 0.5, zp 128 is code 134. Code 0 + code 0 = -64 - 32 = -96: saturates to 0.
        Model m = One(Q8, {2}, 0.5f, 128).codes({2}, {136, 0}, 0.25f, 128).i32(0).done(OperationType::ADD, Q8, {2}, 0.5f, 128);
        CHECK(run_codes(m, {2}, {130, 0}) == std::vector<std::uint8_t>{134, 0});
    }
    SUBCASE("quant8 MUL") {
        // 1.0 * 2.0 = 2.0 at scale 0.5, zp 128: code 132; 3.0 * -2.0 = -6: 128 - 12 = 116.
        Model m = One(Q8, {2}, 0.5f, 128).codes({2}, {136, 120}, 0.25f, 128).i32(0).done(OperationType::MUL, Q8, {2}, 0.5f, 128);
        CHECK(run_codes(m, {2}, {130, 134}) == std::vector<std::uint8_t>{132, 116});
    }
}

TEST_CASE("interpreter: activations and element-wise functions") {
    auto unary = [](OperationType t) { return One(F32, {4}).done(t, F32, {4}); };
    std::vector<float> x = {-2.5f, -0.5f, 0.5f, 7};
    check_close(run_floats(unary(OperationType::RELU), {4}, x), {0, 0, 0.5f, 7});
    check_close(run_floats(unary(OperationType::RELU1), {4}, x), {-1, -0.5f, 0.5f, 1});
    check_close(run_floats(unary(OperationType::RELU6), {4}, x), {0, 0, 0.5f, 6});
    check_close(run_floats(unary(OperationType::FLOOR), {4}, x), {-3, -1, 0, 7});
    check_close(run_floats(unary(OperationType::TANH), {4}, x), {std::tanh(-2.5f), std::tanh(-0.5f), std::tanh(0.5f), std::tanh(7.0f)});
    check_close(run_floats(unary(OperationType::LOGISTIC), {4}, {0, 0, 0, 0}), {0.5f, 0.5f, 0.5f, 0.5f});
    SUBCASE("quant8") {
        // RELU6 at scale 0.5, zp 128 keeps codes in [128, 140].
        Model relu6 = One(Q8, {3}, 0.5f, 128).done(OperationType::RELU6, Q8, {3}, 0.5f, 128);
        CHECK(run_codes(relu6, {3}, {100, 135, 200}) == std::vector<std::uint8_t>{128, 135, 140});
        // LOGISTIC: code 128 is 0 -> 0.5 -> code 128 at scale 1/256; code 255 is 63.5 -> 1 -> 255 (saturated).
        Model logistic = One(Q8, {2}, 0.5f, 128).done(OperationType::LOGISTIC, Q8, {2}, 1.0f / 256, 0);
        CHECK(run_codes(logistic, {2}, {128, 255}) == std::vector<std::uint8_t>{128, 255});
        // DEQUANTIZE: (code - 128) * 0.5.
        Model deq = One(Q8, {3}, 0.5f, 128).done(OperationType::DEQUANTIZE, F32, {3});
        check_close(to_floats(run_one(deq, make_quant8_tensor({3}, {0, 128, 255}, 0.5f, 128))), {-64, 0, 63.5f});
    }
}

TEST_CASE("interpreter: SOFTMAX, L2_NORMALIZATION, LOCAL_RESPONSE_NORMALIZATION") {
    Model softmax = One(F32, {1, 2}).f32(1.0f).done(OperationType::SOFTMAX, F32, {1, 2});
    const float e = std::exp(-1.0f);
    check_close(run_floats(softmax, {1, 2}, {1, 2}), {e / (1 + e), 1 / (1 + e)});
    // beta 2 doubles the differences: exp(-2) / (1 + exp(-2)).
    Model sharp = One(F32, {1, 2}).f32(2.0f).done(OperationType::SOFTMAX, F32, {1, 2});
    const float e2 = std::exp(-2.0f);
    check_close(run_floats(sharp, {1, 2}, {1, 2}), {e2 / (1 + e2), 1 / (1 + e2)});
    Model l2 = One(F32, {1, 1, 1, 2}).done(OperationType::L2_NORMALIZATION, F32, {1, 1, 1, 2});
    check_close(run_floats(l2, {1, 1, 1, 2}, {3, 4}), {0.6f, 0.8f});
    // radius 1, bias 1, alpha 1, beta 1 on (1, 2, 3): x / (1 + squares of the neighbourhood).
    Model lrn = One(F32, {1, 1, 1, 3}).i32(1).f32(1).f32(1).f32(1).done(OperationType::LOCAL_RESPONSE_NORMALIZATION, F32, {1, 1, 1, 3});
    check_close(run_floats(lrn, {1, 1, 1, 3}, {1, 2, 3}), {1.0f / 6, 2.0f / 15, 3.0f / 14});
    SUBCASE("quant8 SOFTMAX") {
        // Equal inputs: 0.5 each -> code 128 at scale 1/256.
        Model q = One(Q8, {1, 2}, 0.5f, 0).f32(1.0f).done(OperationType::SOFTMAX, Q8, {1, 2}, 1.0f / 256, 0);
        CHECK(run_codes(q, {1, 2}, {7, 7}) == std::vector<std::uint8_t>{128, 128});
    }
}

TEST_CASE("interpreter: shape operations") {
    SUBCASE("RESHAPE with -1") {
        Model m = One(F32, {2, 3}).ints({2}, {3, -1}).done(OperationType::RESHAPE, F32, {3, 2});
        Tensor out = run_one(m, make_float_tensor({2, 3}, {1, 2, 3, 4, 5, 6}));
        CHECK(out.dimensions == std::vector<std::uint32_t>{3, 2});
        check_close(to_floats(out), {1, 2, 3, 4, 5, 6});
    }
    SUBCASE("CONCATENATION on the last axis") {
        Model m = One(F32, {2, 1}).floats({2, 2}, {10, 11, 20, 21}).i32(1).done(OperationType::CONCATENATION, F32, {2, 3});
        check_close(run_floats(m, {2, 1}, {1, 2}), {1, 10, 11, 2, 20, 21});
    }
    SUBCASE("DEPTH_TO_SPACE and SPACE_TO_DEPTH are inverse") {
        // A 1x1 pixel with depth 4 becomes a 2x2 block: depth index (row * 2 + col).
        Model d2s = One(F32, {1, 1, 1, 4}).i32(2).done(OperationType::DEPTH_TO_SPACE, F32, {1, 2, 2, 1});
        check_close(run_floats(d2s, {1, 1, 1, 4}, {1, 2, 3, 4}), {1, 2, 3, 4});
        // 2x2 pixels of depth 2: out depth index (row * 2 + col) * 2 + c.
        Model s2d = One(F32, {1, 2, 2, 2}).i32(2).done(OperationType::SPACE_TO_DEPTH, F32, {1, 1, 1, 8});
        check_close(run_floats(s2d, {1, 2, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8}), {1, 2, 3, 4, 5, 6, 7, 8});
        Model d2s2 = One(F32, {1, 1, 2, 4}).i32(2).done(OperationType::DEPTH_TO_SPACE, F32, {1, 2, 4, 1});
        // Pixel 0 (1,2,3,4) -> rows 0-1, cols 0-1; pixel 1 (5,6,7,8) -> rows 0-1, cols 2-3.
        check_close(run_floats(d2s2, {1, 1, 2, 4}, {1, 2, 3, 4, 5, 6, 7, 8}), {1, 2, 5, 6, 3, 4, 7, 8});
    }
    SUBCASE("RESIZE_BILINEAR") {
        // 2x2 (1, 2; 3, 4) to 4x4: source position y * 0.5; the last rows and columns clamp.
        Model m = One(F32, {1, 2, 2, 1}).i32(4).i32(4).done(OperationType::RESIZE_BILINEAR, F32, {1, 4, 4, 1});
        check_close(run_floats(m, {1, 2, 2, 1}, {1, 2, 3, 4}),
                    {1, 1.5f, 2, 2, 2, 2.5f, 3, 3, 3, 3.5f, 4, 4, 3, 3.5f, 4, 4});
    }
}

TEST_CASE("interpreter: lookups and RNN") {
    SUBCASE("EMBEDDING_LOOKUP") {
        Model m = One(I32T, {2}).floats({3, 2}, {0, 1, 10, 11, 20, 21}).done(OperationType::EMBEDDING_LOOKUP, F32, {2, 2});
        Tensor lookups;
        lookups.type = I32T;
        lookups.dimensions = {2};
        std::int32_t idx[2] = {2, 0};
        lookups.data.assign(reinterpret_cast<std::uint8_t*>(idx), reinterpret_cast<std::uint8_t*>(idx) + 8);
        check_close(to_floats(run_one(m, lookups)), {20, 21, 0, 1});
        idx[0] = 3;  // out of range: the operation fails
        lookups.data.assign(reinterpret_cast<std::uint8_t*>(idx), reinterpret_cast<std::uint8_t*>(idx) + 8);
        nnef::Diagnostics d;
        CHECK_FALSE(run(m, {lookups}, d).has_value());
        REQUIRE(d.size() == 1);
        CHECK((*d.begin()).message ==
              "operation 0 (EMBEDDING_LOOKUP): Lookups[0] is 3, out of bounds for 3 Values rows [run-time]");
    }
    SUBCASE("HASHTABLE_LOOKUP") {
        Model m;
        std::uint32_t lookups = add_operand(m, I32T, {3});
        std::uint32_t keys = int_constant(m, {2}, {5, 9});
        std::uint32_t values = float_constant(m, {2, 1}, {50, 90});
        std::uint32_t out = add_operand(m, F32, {3, 1});
        std::uint32_t hits = add_operand(m, Q8, {3}, 1.0f, 0);
        add_operation(m, OperationType::HASHTABLE_LOOKUP, {lookups, keys, values}, {out, hits});
        set_inputs_and_outputs(m, {lookups}, {out, hits});
        Tensor in;
        in.type = I32T;
        in.dimensions = {3};
        std::int32_t v[3] = {9, 7, 5};
        in.data.assign(reinterpret_cast<std::uint8_t*>(v), reinterpret_cast<std::uint8_t*>(v) + 12);
        nnef::Diagnostics d;
        auto result = run(m, {in}, d);
        REQUIRE(result.has_value());
        check_close(to_floats((*result)[0]), {90, 0, 50});
        CHECK((*result)[1].data == std::vector<std::uint8_t>{1, 0, 1});
    }
    SUBCASE("RNN") {
        // input [1,1] = 2, weights [[3]], recurrent [[0.5]], bias [1], state [[4]]: 2*3 + 4*0.5 + 1 = 9, RELU6 -> 6.
        One b(F32, {1, 1});
        b.floats({1, 1}, {3}).floats({1, 1}, {0.5f}).floats({1}, {1}).floats({1, 1}, {4}).i32(3);
        Model m = b.m;
        std::uint32_t state_out = add_operand(m, F32, {1, 1});
        std::uint32_t out = add_operand(m, F32, {1, 1});
        add_operation(m, OperationType::RNN, {0, 1, 2, 3, 4, 5}, {state_out, out});
        set_inputs_and_outputs(m, {0}, {state_out, out});
        nnef::Diagnostics d;
        auto result = run(m, {make_float_tensor({1, 1}, {2})}, d);
        REQUIRE(result.has_value());
        check_close(to_floats((*result)[0]), {6});
        check_close(to_floats((*result)[1]), {6});
    }
}

TEST_CASE("interpreter: a chain of operations, unspecified dimensions, and execute()") {
    // RELU then ADD 1; the temporary's dimensions are left unspecified in the model.
    Model m = chain_model();
    m.operands[1].dimensions = {0, 0, 0, 0};
    m.operands[4].dimensions = {0, 2, 2, 1};
    m.operands[0].dimensions = {0, 2, 2, 1};
    CHECK(validation_errors(m).empty());
    nnef::Diagnostics d;
    auto out = run(m, {make_float_tensor({1, 2, 2, 1}, {-1, 0, 1, 2})}, d);
    REQUIRE(out.has_value());
    CHECK((*out)[0].dimensions == std::vector<std::uint32_t>{1, 2, 2, 1});
    check_close(to_floats((*out)[0]), {1, 1, 2, 3});

    Model fixed = chain_model();
    Request r;
    Memory pool;
    pool.data.resize(32);
    float in[4] = {-1, 0, 1, 2};
    std::memcpy(pool.data.data(), in, 16);
    r.pools.push_back(pool);
    r.inputs.push_back(RequestArgument{false, {0, 0, 16}, {}});
    r.outputs.push_back(RequestArgument{false, {0, 16, 16}, {}});
    CHECK(execute(fixed, r, d) == ErrorStatus::NONE);
    float result[4];
    std::memcpy(result, r.pools[0].data.data() + 16, 16);
    check_close({result[0], result[1], result[2], result[3]}, {1, 1, 2, 3});

    Request small = r;
    small.pools[0].data.resize(28);
    small.outputs[0].location.length = 12;
    nnef::Diagnostics d2;
    CHECK(execute(fixed, small, d2) == ErrorStatus::OUTPUT_INSUFFICIENT_SIZE);
    Request bad = r;
    bad.inputs.clear();
    CHECK(execute(fixed, bad, d2) == ErrorStatus::INVALID_ARGUMENT);
}

TEST_CASE("interpreter: invalid models and inputs are refused") {
    nnef::Diagnostics d;
    Model broken = conv_model(true);
    broken.operands[0].scale = 0;
    CHECK_FALSE(run(broken, {make_quant8_tensor({1, 3, 3, 2}, std::vector<std::uint8_t>(18), 0, 128)}, d).has_value());
    CHECK(d.has_errors());
    nnef::Diagnostics d2;
    CHECK_FALSE(run(conv_model(false), {make_float_tensor({1, 3, 3, 1}, std::vector<float>(9))}, d2).has_value());
    REQUIRE(d2.size() == 1);
    CHECK((*d2.begin()).message ==
          "input 0 (operand 0) has dimensions [1,3,3,1]; the model's operand has [1,3,3,2] (0: unspecified)");
    nnef::Diagnostics d3;
    CHECK_FALSE(run(conv_model(false), {}, d3).has_value());
    REQUIRE(d3.size() == 1);
    CHECK((*d3.begin()).message == "the model has 1 inputs; 0 values were given");
}
}

}  // namespace interpreter_test
