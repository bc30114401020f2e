// The TOSA interpreter: every operator on small cases computed by hand (or from the spec's formula),
// the integer corner cases (rounding of apply_scale_32 with and without double rounding, RESCALE
// saturation and unsigned forms, TABLE interpolation, INTDIV truncation, shifts, accumulators),
// ERROR_IF / REQUIRE failures as diagnostics, control flow and variables kept across runs, and a
// float CNN block checked against nnef-run's executor with NCHW <-> NHWC transposes built by hand.
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "lowering/tosa/interpreter.hpp"
#include "unit/exec/exec_support.hpp"

using namespace nnef::tosa;
using nnef::Shape;

namespace interpreter_test {

ConstPtr f32(Shape shape, const std::vector<float>& v) {
    auto c = ConstData::allocate(TensorType{DType::fp32, std::move(shape)});
    REQUIRE(static_cast<std::int64_t>(v.size()) == c->type.volume());
    std::memcpy(c->mutable_items<float>(), v.data(), v.size() * sizeof(float));
    return c;
}

ConstPtr ints(DType t, Shape shape, const std::vector<std::int64_t>& v) {
    auto c = ConstData::allocate(TensorType{t, std::move(shape)});
    REQUIRE(static_cast<std::int64_t>(v.size()) == c->type.volume());
    for (std::size_t i = 0; i < v.size(); ++i) {
        switch (t) {
            case DType::bool_: c->mutable_items<std::uint8_t>()[i] = v[i] ? 1 : 0; break;
            case DType::i8: c->mutable_items<std::int8_t>()[i] = static_cast<std::int8_t>(v[i]); break;
            case DType::i16: c->mutable_items<std::int16_t>()[i] = static_cast<std::int16_t>(v[i]); break;
            case DType::i32: c->mutable_items<std::int32_t>()[i] = static_cast<std::int32_t>(v[i]); break;
            default: c->mutable_items<std::int64_t>()[i] = v[i]; break;
        }
    }
    return c;
}

ConstPtr f16(Shape shape, const std::vector<float>& v) {
    auto c = ConstData::allocate(TensorType{DType::fp16, std::move(shape)});
    for (std::size_t i = 0; i < v.size(); ++i) c->mutable_items<std::uint16_t>()[i] = fp32_to_fp16(v[i]);
    return c;
}

std::vector<double> values_of(const ConstPtr& c) {
    std::vector<double> r;
    const std::int64_t n = c->type.volume();
    for (std::int64_t i = 0; i < n; ++i) {
        switch (c->type.dtype) {
            case DType::fp32: r.push_back(c->items<float>()[i]); break;
            case DType::fp16: r.push_back(fp16_to_fp32(c->items<std::uint16_t>()[i])); break;
            case DType::bf16: r.push_back(bf16_to_fp32(c->items<std::uint16_t>()[i])); break;
            case DType::bool_: r.push_back(c->items<std::uint8_t>()[i]); break;
            case DType::i8: r.push_back(c->items<std::int8_t>()[i]); break;
            case DType::i16: r.push_back(c->items<std::int16_t>()[i]); break;
            case DType::i32: r.push_back(c->items<std::int32_t>()[i]); break;
            default: r.push_back(static_cast<double>(c->items<std::int64_t>()[i])); break;
        }
    }
    return r;
}

// A graph under construction: inputs are fed at run(), every other operand is a constant.
struct G {
    Graph g;
    std::vector<ConstPtr> feeds;

    ValueId input(ConstPtr v) {
        const ValueId id = g.add_value(v->type, "in" + std::to_string(feeds.size()));
        g.main().inputs.push_back(id);
        feeds.push_back(std::move(v));
        return id;
    }
    ValueId constant(ConstPtr v) { return g.add_const(0, std::move(v)); }
    ValueId shape(std::vector<std::int64_t> s) { return g.add_const_shape(0, std::move(s)); }
    ValueId op(OpKind k, std::vector<ValueId> in, TensorType out, std::vector<std::pair<AttrName, Attr>> attrs = {}) {
        return g.add_op(0, k, std::move(in), {std::move(out)}, std::move(attrs)).outputs[0];
    }
    void output(ValueId v) { g.main().outputs.push_back(v); }

    // Runs; returns the outputs (empty with the messages in `errors` on failure).
    std::vector<ConstPtr> run(std::string* errors = nullptr) {
        nnef::Diagnostics d;
        auto r = interpret(g, feeds, InterpretOptions{}, d);
        std::string text;
        for (const nnef::Diagnostic& x : d) text += x.code + ": " + x.message + "\n";
        if (errors) *errors = text;
        else if (!r) FAIL_CHECK(text);
        return r ? *r : std::vector<ConstPtr>{};
    }
};

TensorType T(DType t, Shape s) { return TensorType{t, std::move(s)}; }

// One operator on fed inputs, one result.
std::vector<double> run_op(OpKind k, const std::vector<ConstPtr>& inputs, TensorType out, std::vector<std::pair<AttrName, Attr>> attrs = {},
                           std::string* errors = nullptr) {
    G b;
    std::vector<ValueId> in;
    for (const ConstPtr& x : inputs) in.push_back(b.input(x));
    b.output(b.op(k, in, std::move(out), std::move(attrs)));
    auto r = b.run(errors);
    return r.empty() ? std::vector<double>{} : values_of(r[0]);
}

ConstPtr zp(DType t, std::int64_t v = 0) {
    if (is_float(t)) {
        auto c = ConstData::allocate(TensorType{t, {1}});
        if (t == DType::fp32) c->mutable_items<float>()[0] = static_cast<float>(v);
        else c->mutable_items<std::uint16_t>()[0] = 0;
        return c;
    }
    return ints(t, {1}, {v});
}

const double nan_ = std::numeric_limits<double>::quiet_NaN();
const double inf_ = std::numeric_limits<double>::infinity();

bool same(const std::vector<double>& a, const std::vector<double>& b) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i)
        if (!(a[i] == b[i] || (std::isnan(a[i]) && std::isnan(b[i])))) return false;
    return true;
}


TEST_SUITE("tosa interpreter") {
    TEST_CASE("scaling helpers (spec 4.5.5)") {
        // scale 1/2 (multiplier 1 << 30, shift 31): halves round up (towards +infinity)
        CHECK(apply_scale_32(3, 1 << 30, 31) == 2);
        CHECK(apply_scale_32(1, 1 << 30, 31) == 1);
        CHECK(apply_scale_32(-1, 1 << 30, 31) == 0);
        CHECK(apply_scale_32(-3, 1 << 30, 31) == -1);
        // scale 1/8 (shift 33): 3/8 = 0.375 is 0 with one rounding; double rounding rounds 3/2 to 2
        // first (shift 31), then 2/4 = 0.5 to 1
        CHECK(apply_scale_32(3, 1 << 30, 33, false) == 0);
        CHECK(apply_scale_32(3, 1 << 30, 33, true) == 1);
        CHECK(apply_scale_32(-3, 1 << 30, 33, true) == 0);
        CHECK(apply_scale_32(-5, 1 << 30, 33, true) == -1);
        // shift <= 31: double_round changes nothing
        CHECK(apply_scale_32(3, 1 << 30, 31, true) == 2);
        // REQUIREs
        CHECK_FALSE(apply_scale_32(1, 1 << 30, 1).has_value());
        CHECK_FALSE(apply_scale_32(1, -1, 31).has_value());
        CHECK_FALSE(apply_scale_32(2, 1 << 30, 2).has_value());  // value outside [-2, 2)
        CHECK(apply_scale_32(-2, 1 << 30, 2).has_value());
        // apply_scale_16 on 48-bit values: 2^40 * (1 << 14) >> 15 = 2^39
        CHECK(apply_scale_16(std::int64_t{1} << 40, 1 << 14, 30) == std::int64_t{1} << 24);
        CHECK(apply_scale_16(3, 1 << 14, 15) == 2);
        CHECK_FALSE(apply_scale_16(std::int64_t{1} << 46, 1 << 14, 14).has_value());  // result beyond int32
        // reciprocal_scale: (1 << 30) <= multiplier < (1 << 31), multiplier * 2^-shift ~ 1 / value
        CHECK(reciprocal_scale(1) == std::pair<std::int32_t, std::int32_t>{(1 << 30) + 1, 30});
        CHECK(reciprocal_scale(9) == std::pair<std::int32_t, std::int32_t>{1908874355, 34});
        CHECK(reciprocal_scale(16) == std::pair<std::int32_t, std::int32_t>{(1 << 30) + 1, 34});
    }

    TEST_CASE("fp16 and bf16 rounding from double: one rounding, ties to even") {
        CHECK(fp64_to_fp16(1.0) == 0x3c00);
        // 1 + 2^-11 is halfway between 1 and 1 + 2^-10: even is 1
        CHECK(fp64_to_fp16(1.0 + std::ldexp(1.0, -11)) == 0x3c00);
        CHECK(fp64_to_fp16(1.0 + 3 * std::ldexp(1.0, -11)) == 0x3c02);
        // just above the tie rounds up (float would round this to the tie first)
        CHECK(fp64_to_fp16(1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40)) == 0x3c01);
        CHECK(fp64_to_fp16(65520.0) == 0x7c00);   // overflows to infinity
        CHECK(fp64_to_fp16(65504.0) == 0x7bff);
        CHECK(fp64_to_fp16(std::ldexp(1.0, -25)) == 0x0000);  // half the smallest subnormal: even
        CHECK(fp64_to_fp16(std::ldexp(3.0, -26)) == 0x0001);
        CHECK(fp64_to_fp16(-2.0) == 0xc000);
        CHECK(fp64_to_bf16(1.0 + std::ldexp(1.0, -8)) == 0x3f80);
        CHECK(fp64_to_bf16(1.0 + std::ldexp(1.0, -8) + std::ldexp(1.0, -30)) == 0x3f81);
        CHECK(std::isnan(fp16_to_fp32(fp64_to_fp16(nan_))));
    }

    TEST_CASE("elementwise float: broadcasting, NaN modes, activations") {
        const ConstPtr a = f32({2, 3}, {1, 2, 3, 4, 5, 6});
        const ConstPtr b = f32({1, 3}, {10, 20, 30});
        CHECK(run_op(OpKind::ADD, {a, b}, T(DType::fp32, {2, 3})) == std::vector<double>{11, 22, 33, 14, 25, 36});
        CHECK(run_op(OpKind::SUB, {a, b}, T(DType::fp32, {2, 3})) == std::vector<double>{-9, -18, -27, -6, -15, -24});
        CHECK(run_op(OpKind::MUL, {a, b, ints(DType::i8, {1}, {0})}, T(DType::fp32, {2, 3})) ==
              std::vector<double>{10, 40, 90, 40, 100, 180});
        // broadcasting both ways: [2,1] x [1,3]
        CHECK(run_op(OpKind::ADD, {f32({2, 1}, {1, 2}), b}, T(DType::fp32, {2, 3})) == std::vector<double>{11, 21, 31, 12, 22, 32});
        // rank 0
        CHECK(run_op(OpKind::ADD, {f32({}, {1.5f}), f32({}, {2})}, T(DType::fp32, {})) == std::vector<double>{3.5});
        const ConstPtr x = f32({3}, {1, static_cast<float>(nan_), static_cast<float>(nan_)});
        const ConstPtr y = f32({3}, {2, 5, static_cast<float>(nan_)});
        CHECK(same(run_op(OpKind::MAXIMUM, {x, y}, T(DType::fp32, {3}), {{AttrName::nan_mode, NanMode::PROPAGATE}}), {2, nan_, nan_}));
        CHECK(same(run_op(OpKind::MAXIMUM, {x, y}, T(DType::fp32, {3}), {{AttrName::nan_mode, NanMode::IGNORE}}), {2, 5, nan_}));
        CHECK(same(run_op(OpKind::MINIMUM, {x, y}, T(DType::fp32, {3}), {{AttrName::nan_mode, NanMode::IGNORE}}), {1, 5, nan_}));
        // CLAMP: a NaN becomes min_val in the ignoring mode
        const ConstPtr c = f32({4}, {-2, 0.5f, 9, static_cast<float>(nan_)});
        CHECK(same(run_op(OpKind::CLAMP, {c}, T(DType::fp32, {4}),
                          {{AttrName::min_val, 0.0}, {AttrName::max_val, 6.0}, {AttrName::nan_mode, NanMode::IGNORE}}),
                   {0, 0.5, 6, 0}));
        CHECK(same(run_op(OpKind::CLAMP, {c}, T(DType::fp32, {4}),
                          {{AttrName::min_val, 0.0}, {AttrName::max_val, 6.0}, {AttrName::nan_mode, NanMode::PROPAGATE}}),
                   {0, 0.5, 6, nan_}));
        std::string err;
        run_op(OpKind::CLAMP, {c}, T(DType::fp32, {4}), {{AttrName::min_val, 1.0}, {AttrName::max_val, 0.0}, {AttrName::nan_mode, NanMode::IGNORE}}, &err);
        CHECK(err.find("ERROR_IF(max_val < min_val)") != std::string::npos);
        const ConstPtr u = f32({4}, {-1, 0, 0.25f, 4});
        CHECK(same(run_op(OpKind::RSQRT, {u}, T(DType::fp32, {4})), {nan_, inf_, 2, 0.5}));
        CHECK(same(run_op(OpKind::LOG, {u}, T(DType::fp32, {4})), {nan_, -inf_, std::log(0.25f), std::log(4.0f)}));
        CHECK(run_op(OpKind::RECIPROCAL, {u}, T(DType::fp32, {4})) == std::vector<double>{-1, inf_, 4, 0.25});
        CHECK(run_op(OpKind::ABS, {u}, T(DType::fp32, {4})) == std::vector<double>{1, 0, 0.25, 4});
        CHECK(run_op(OpKind::CEIL, {f32({3}, {-1.5f, 1.2f, 2})}, T(DType::fp32, {3})) == std::vector<double>{-1, 2, 2});
        CHECK(run_op(OpKind::FLOOR, {f32({3}, {-1.5f, 1.2f, 2})}, T(DType::fp32, {3})) == std::vector<double>{-2, 1, 2});
        CHECK(run_op(OpKind::NEGATE, {f32({2}, {1, -2}), zp(DType::fp32), zp(DType::fp32)}, T(DType::fp32, {2})) == std::vector<double>{-1, 2});
        const std::vector<double> s = run_op(OpKind::SIGMOID, {f32({3}, {0, 100, -100})}, T(DType::fp32, {3}));
        REQUIRE(s.size() == 3);
        CHECK(s[0] == 0.5);
        CHECK(s[1] == 1);
        CHECK((s[2] >= 0 && s[2] < 1e-37));  // 3.7e-44: subnormal or flushed
        CHECK(run_op(OpKind::TANH, {f32({2}, {0, 1})}, T(DType::fp32, {2}))[1] == doctest::Approx(std::tanh(1.0)).epsilon(1e-7));
        CHECK(run_op(OpKind::ERF, {f32({1}, {0.5f})}, T(DType::fp32, {1}))[0] == doctest::Approx(std::erf(0.5)).epsilon(1e-7));
        CHECK(run_op(OpKind::EXP, {f32({1}, {1})}, T(DType::fp32, {1}))[0] == doctest::Approx(std::exp(1.0)).epsilon(1e-7));
        CHECK(run_op(OpKind::SIN, {f32({1}, {1})}, T(DType::fp32, {1}))[0] == doctest::Approx(std::sin(1.0)).epsilon(1e-7));
        CHECK(run_op(OpKind::COS, {f32({1}, {1})}, T(DType::fp32, {1}))[0] == doctest::Approx(std::cos(1.0)).epsilon(1e-7));
        CHECK(run_op(OpKind::POW, {f32({2}, {2, 9}), f32({2}, {3, 0.5f})}, T(DType::fp32, {2})) == std::vector<double>{8, 3});
        // comparisons: NaN compares false
        CHECK(run_op(OpKind::EQUAL, {x, y}, T(DType::bool_, {3})) == std::vector<double>{0, 0, 0});
        CHECK(run_op(OpKind::GREATER, {f32({3}, {1, 2, 3}), f32({3}, {2, 2, 2})}, T(DType::bool_, {3})) == std::vector<double>{0, 0, 1});
        CHECK(run_op(OpKind::GREATER_EQUAL, {f32({3}, {1, 2, 3}), f32({3}, {2, 2, 2})}, T(DType::bool_, {3})) == std::vector<double>{0, 1, 1});
    }

    TEST_CASE("fp16: arithmetic in double, one rounding to fp16") {
        // 2048 + 1 = 2049 is halfway between the fp16 values 2048 and 2050: ties to even gives 2048
        CHECK(run_op(OpKind::ADD, {f16({2}, {2048, 2048}), f16({2}, {1, 3})}, T(DType::fp16, {2})) == std::vector<double>{2048, 2052});
        CHECK(run_op(OpKind::MUL, {f16({1}, {3}), f16({1}, {0.5f}), ints(DType::i8, {1}, {0})}, T(DType::fp16, {1})) == std::vector<double>{1.5});
        CHECK(run_op(OpKind::ADD, {f16({1}, {60000}), f16({1}, {10000})}, T(DType::fp16, {1})) == std::vector<double>{inf_});
    }

    TEST_CASE("bf16 and fp16 tensors: elementwise, convolution, reduction, CAST between the formats") {
        auto bf16 = [](Shape shape, const std::vector<float>& v) {
            auto c = ConstData::allocate(TensorType{DType::bf16, std::move(shape)});
            for (std::size_t i = 0; i < v.size(); ++i) c->mutable_items<std::uint16_t>()[i] = fp32_to_bf16(v[i]);
            return ConstPtr(c);
        };
        // bf16 has 8 significant bits: 256 + 1 is a tie between 256 and 258, ties to even give 256
        CHECK(run_op(OpKind::ADD, {bf16({2}, {256, 256}), bf16({2}, {1, 3})}, T(DType::bf16, {2})) == std::vector<double>{256, 260});
        CHECK(run_op(OpKind::REDUCE_SUM, {bf16({3}, {1, 2, 3})}, T(DType::bf16, {1}), {{AttrName::axis, std::int64_t{0}}}) == std::vector<double>{6});
        CHECK(run_op(OpKind::CAST, {bf16({1}, {3.0f})}, T(DType::fp16, {1})) == std::vector<double>{3});
        CHECK(run_op(OpKind::CAST, {f16({1}, {1.0f + 1.0f / 1024})}, T(DType::bf16, {1})) == std::vector<double>{1});  // rounds to bf16
        // fp16 convolution (fp32 accumulation), 2x2 ones over [1,2,3,4] plus bias 0.5
        const std::vector<std::pair<AttrName, Attr>> a{
            {AttrName::pad, std::vector<std::int64_t>{0, 0, 0, 0}}, {AttrName::stride, std::vector<std::int64_t>{1, 1}},
            {AttrName::dilation, std::vector<std::int64_t>{1, 1}}, {AttrName::acc_type, AccType::FP32}};
        CHECK(run_op(OpKind::CONV2D, {f16({1, 2, 2, 1}, {1, 2, 3, 4}), f16({1, 2, 2, 1}, {1, 1, 1, 1}), f16({1}, {0.5f}), zp(DType::fp16), zp(DType::fp16)},
                     T(DType::fp16, {1, 1, 1, 1}), a) == std::vector<double>{10.5});
        // bf16 x bf16 -> fp32 MATMUL
        CHECK(run_op(OpKind::MATMUL, {bf16({1, 1, 2}, {1, 2}), bf16({1, 2, 1}, {3, 4}), zp(DType::bf16), zp(DType::bf16)}, T(DType::fp32, {1, 1, 1})) ==
              std::vector<double>{11});
    }

    TEST_CASE("elementwise integer: saturation, truncation, shifts, REQUIRE") {
        CHECK(run_op(OpKind::ADD, {ints(DType::i32, {2}, {1, -5}), ints(DType::i32, {2}, {2, 3})}, T(DType::i32, {2})) == std::vector<double>{3, -2});
        std::string err;
        run_op(OpKind::ADD, {ints(DType::i32, {1}, {2147483647}), ints(DType::i32, {1}, {1})}, T(DType::i32, {1}), {}, &err);
        CHECK(err.find("tosa-require: ADD") == 0);
        // INTDIV truncates towards zero
        CHECK(run_op(OpKind::INTDIV, {ints(DType::i32, {4}, {-7, 7, 7, -7}), ints(DType::i32, {4}, {2, -2, 2, -2})}, T(DType::i32, {4})) ==
              std::vector<double>{-3, -3, 3, 3});
        run_op(OpKind::INTDIV, {ints(DType::i32, {1}, {1}), ints(DType::i32, {1}, {0})}, T(DType::i32, {1}), {}, &err);
        CHECK(err.find("REQUIRE(value2 != 0)") != std::string::npos);
        run_op(OpKind::INTDIV, {ints(DType::i32, {1}, {-2147483648LL}), ints(DType::i32, {1}, {-1})}, T(DType::i32, {1}), {}, &err);
        CHECK(err.find("tosa-require") == 0);
        // arithmetic right shift, rounded: -7 >> 1 = -4, + 1 (bit 0 set) = -3; 4 >> 1 = 2 (bit 0 clear)
        const ConstPtr v = ints(DType::i32, {4}, {-7, 5, 4, -8});
        const ConstPtr one = ints(DType::i32, {4}, {1, 1, 1, 2});
        CHECK(run_op(OpKind::ARITHMETIC_RIGHT_SHIFT, {v, one}, T(DType::i32, {4}), {{AttrName::round, false}}) == std::vector<double>{-4, 2, 2, -2});
        CHECK(run_op(OpKind::ARITHMETIC_RIGHT_SHIFT, {v, one}, T(DType::i32, {4}), {{AttrName::round, true}}) == std::vector<double>{-3, 3, 2, -2});
        run_op(OpKind::ARITHMETIC_RIGHT_SHIFT, {ints(DType::i8, {1}, {1}), ints(DType::i8, {1}, {8})}, T(DType::i8, {1}), {{AttrName::round, false}}, &err);
        CHECK(err.find("value2 <= 7") != std::string::npos);
        // logical shifts work on the unsigned bits of the type
        CHECK(run_op(OpKind::LOGICAL_RIGHT_SHIFT, {ints(DType::i8, {2}, {-1, -128}), ints(DType::i8, {2}, {1, 7})}, T(DType::i8, {2})) ==
              std::vector<double>{127, 1});
        CHECK(run_op(OpKind::LOGICAL_LEFT_SHIFT, {ints(DType::i8, {2}, {64, 3}), ints(DType::i8, {2}, {1, 2})}, T(DType::i8, {2})) ==
              std::vector<double>{-128, 12});
        CHECK(run_op(OpKind::LOGICAL_RIGHT_SHIFT, {ints(DType::i32, {1}, {-1}), ints(DType::i32, {1}, {28})}, T(DType::i32, {1})) ==
              std::vector<double>{15});
        CHECK(run_op(OpKind::BITWISE_AND, {ints(DType::i16, {1}, {0x0ff0}), ints(DType::i16, {1}, {0x00ff})}, T(DType::i16, {1})) == std::vector<double>{0xf0});
        CHECK(run_op(OpKind::BITWISE_OR, {ints(DType::i16, {1}, {0x0ff0}), ints(DType::i16, {1}, {0x00ff})}, T(DType::i16, {1})) == std::vector<double>{0xfff});
        CHECK(run_op(OpKind::BITWISE_XOR, {ints(DType::i16, {1}, {0x0ff0}), ints(DType::i16, {1}, {0x00ff})}, T(DType::i16, {1})) == std::vector<double>{0xf0f});
        CHECK(run_op(OpKind::BITWISE_NOT, {ints(DType::i8, {2}, {0, 5})}, T(DType::i8, {2})) == std::vector<double>{-1, -6});
        CHECK(run_op(OpKind::CLZ, {ints(DType::i32, {4}, {0, 1, -1, 0x10000})}, T(DType::i32, {4})) == std::vector<double>{32, 31, 0, 15});
        CHECK(run_op(OpKind::ABS, {ints(DType::i32, {2}, {-3, 3})}, T(DType::i32, {2})) == std::vector<double>{3, 3});
        run_op(OpKind::ABS, {ints(DType::i32, {1}, {-2147483648LL})}, T(DType::i32, {1}), {}, &err);
        CHECK(err.find("tosa-require") == 0);
        // MUL: i32 with a rounding shift; i8 x i8 -> i32; the low 32 bits without shift
        const ConstPtr sh1 = ints(DType::i8, {1}, {1});
        CHECK(run_op(OpKind::MUL, {ints(DType::i32, {3}, {3, -3, 1}), ints(DType::i32, {3}, {5, 5, 1}), sh1}, T(DType::i32, {3})) ==
              std::vector<double>{8, -7, 1});
        CHECK(run_op(OpKind::MUL, {ints(DType::i8, {2}, {100, -128}), ints(DType::i8, {2}, {100, -128}), ints(DType::i8, {1}, {0})}, T(DType::i32, {2})) ==
              std::vector<double>{10000, 16384});
        CHECK(run_op(OpKind::MUL, {ints(DType::i32, {1}, {65536}), ints(DType::i32, {1}, {65537}), ints(DType::i8, {1}, {0})}, T(DType::i32, {1})) ==
              std::vector<double>{65536});
        run_op(OpKind::MUL, {ints(DType::i8, {1}, {1}), ints(DType::i8, {1}, {1}), sh1}, T(DType::i32, {1}), {}, &err);
        CHECK(err.find("shift == 0") != std::string::npos);
        // NEGATE with zero points (i8, acc i32, saturated): -(x - 3) + 5
        CHECK(run_op(OpKind::NEGATE, {ints(DType::i8, {3}, {3, -128, 127}), zp(DType::i8, 3), zp(DType::i8, 5)}, T(DType::i8, {3})) ==
              std::vector<double>{5, 127, -119});
        CHECK(run_op(OpKind::CLAMP, {ints(DType::i8, {3}, {-100, 0, 100})}, T(DType::i8, {3}),
                     {{AttrName::min_val, std::int64_t{-10}}, {AttrName::max_val, std::int64_t{10}}, {AttrName::nan_mode, NanMode::PROPAGATE}}) ==
              std::vector<double>{-10, 0, 10});
        CHECK(run_op(OpKind::MAXIMUM, {ints(DType::i32, {2}, {-1, 4}), ints(DType::i32, {2}, {2, 3})}, T(DType::i32, {2}), {{AttrName::nan_mode, NanMode::PROPAGATE}}) ==
              std::vector<double>{2, 4});
        const ConstPtr p = ints(DType::bool_, {4}, {0, 0, 1, 1}), q = ints(DType::bool_, {4}, {0, 1, 0, 1});
        CHECK(run_op(OpKind::LOGICAL_AND, {p, q}, T(DType::bool_, {4})) == std::vector<double>{0, 0, 0, 1});
        CHECK(run_op(OpKind::LOGICAL_OR, {p, q}, T(DType::bool_, {4})) == std::vector<double>{0, 1, 1, 1});
        CHECK(run_op(OpKind::LOGICAL_XOR, {p, q}, T(DType::bool_, {4})) == std::vector<double>{0, 1, 1, 0});
        CHECK(run_op(OpKind::LOGICAL_NOT, {p}, T(DType::bool_, {4})) == std::vector<double>{1, 1, 0, 0});
        CHECK(run_op(OpKind::EQUAL, {ints(DType::i32, {2}, {1, 2}), ints(DType::i32, {2}, {1, 3})}, T(DType::bool_, {2})) == std::vector<double>{1, 0});
        CHECK(run_op(OpKind::SELECT, {ints(DType::bool_, {2, 1}, {1, 0}), f32({1, 2}, {1, 2}), f32({2, 2}, {5, 6, 7, 8})}, T(DType::fp32, {2, 2})) ==
              std::vector<double>{1, 2, 7, 8});
    }

    TEST_CASE("RESCALE: rounding modes, zero points, saturation, per-channel, unsigned") {
        auto rescale = [](ConstPtr x, DType out, std::vector<std::int64_t> m, std::vector<std::int64_t> s, std::int64_t izp, std::int64_t ozp,
                          bool scale32, RoundingMode rm, bool per_channel, bool in_u = false, bool out_u = false, std::string* err = nullptr) {
            const DType in = x->type.dtype;
            const std::int64_t nc = static_cast<std::int64_t>(m.size());
            const Shape shape = x->type.shape;
            return run_op(OpKind::RESCALE,
                          {x, ints(scale32 ? DType::i32 : DType::i16, {nc}, m), ints(DType::i8, {nc}, s), zp(in, izp), zp(out, ozp)},
                          T(out, shape),
                          {{AttrName::scale32, scale32}, {AttrName::rounding_mode, rm}, {AttrName::per_channel, per_channel},
                           {AttrName::input_unsigned, in_u}, {AttrName::output_unsigned, out_u}},
                          err);
        };
        const ConstPtr x = ints(DType::i32, {6}, {3, -3, 1000, -1000, 1, -1});
        // scale 1/2, output zero point 10; saturation at 127 / -128
        CHECK(rescale(x, DType::i8, {1 << 30}, {31}, 0, 10, true, RoundingMode::SINGLE_ROUND, false) ==
              std::vector<double>{12, 9, 127, -128, 11, 10});
        // scale 1/8: single vs double rounding (3/8 -> 0, or 1 through 2/4)
        const ConstPtr y = ints(DType::i32, {3}, {3, -3, -5});
        CHECK(rescale(y, DType::i32, {1 << 30}, {33}, 0, 0, true, RoundingMode::SINGLE_ROUND, false) == std::vector<double>{0, 0, -1});
        CHECK(rescale(y, DType::i32, {1 << 30}, {33}, 0, 0, true, RoundingMode::DOUBLE_ROUND, false) == std::vector<double>{1, 0, -1});
        // per channel (last dimension): x1 and x1/4
        const ConstPtr z = ints(DType::i8, {2, 2}, {10, 10, -6, -6});
        CHECK(rescale(z, DType::i8, {1 << 30, 1 << 30}, {30, 32}, 0, 0, true, RoundingMode::SINGLE_ROUND, true) ==
              std::vector<double>{10, 3, -6, -1});
        // input zero point on i8
        CHECK(rescale(ints(DType::i8, {2}, {-128, 127}), DType::i8, {1 << 30}, {30}, -128, 0, true, RoundingMode::SINGLE_ROUND, false) ==
              std::vector<double>{0, 127});
        // unsigned 8-bit input: -1 is 255; zero point 128 (stored as -128)
        CHECK(rescale(ints(DType::i8, {2}, {-1, 0}), DType::i8, {1 << 30}, {30}, -128, 0, true, RoundingMode::SINGLE_ROUND, false, true, false) ==
              std::vector<double>{127, -128});
        // unsigned 8-bit output: 300 saturates to 255 (bits -1), -5 to 0; output zp 0
        CHECK(rescale(ints(DType::i16, {3}, {300, -5, 200}), DType::i8, {1 << 30}, {30}, 0, 0, true, RoundingMode::SINGLE_ROUND, false, false, true) ==
              std::vector<double>{-1, 0, -56});
        // unsigned 16-bit output with zero point 32768 (stored as -32768)
        CHECK(rescale(ints(DType::i8, {2}, {0, -128}), DType::i16, {1 << 30}, {30}, 0, -32768, true, RoundingMode::SINGLE_ROUND, false, false, true) ==
              std::vector<double>{-32768, 32640});
        // 16-bit multiplier on a 48-bit input
        // (value * 2^14 + 2^29) >> 30: 2^40 + 2^15 -> 2^24 + 1 (the half rounds up), 3 * 2^15 -> 2
        CHECK(rescale(ints(DType::i48, {2}, {(std::int64_t{1} << 40) + (1 << 15), 3 << 15}), DType::i32, {1 << 14}, {30}, 0, 0, false,
                      RoundingMode::SINGLE_ROUND, false) == std::vector<double>{(1 << 24) + 1, 2});
        std::string err;
        rescale(x, DType::i8, {1 << 14}, {15}, 0, 0, false, RoundingMode::DOUBLE_ROUND, false, false, false, &err);
        CHECK(err.find("ERROR_IF(!scale32 && (rounding_mode == DOUBLE_ROUND))") != std::string::npos);
        rescale(x, DType::i8, {1 << 30}, {31}, 5, 0, true, RoundingMode::SINGLE_ROUND, false, false, false, &err);
        CHECK(err.find("input_zp != 0") != std::string::npos);
        rescale(ints(DType::i32, {1}, {4}), DType::i8, {1 << 30}, {2}, 0, 0, true, RoundingMode::SINGLE_ROUND, false, false, false, &err);
        CHECK(err.find("REQUIRE(apply_scale_32") != std::string::npos);
    }

    TEST_CASE("TABLE: 8-bit lookup and 16-bit interpolation") {
        std::vector<std::int64_t> t8(256);
        for (int i = 0; i < 256; ++i) t8[i] = 127 - i;
        CHECK(run_op(OpKind::TABLE, {ints(DType::i8, {3}, {-128, 0, 127}), ints(DType::i8, {256}, t8)}, T(DType::i8, {3})) ==
              std::vector<double>{127, -1, -128});
        // table[k] = 64 * (k - 256) is linear: the interpolation gives 64 * value exactly
        std::vector<std::int64_t> t16(513);
        for (int k = 0; k < 513; ++k) t16[k] = 64 * (k - 256);
        CHECK(run_op(OpKind::TABLE, {ints(DType::i16, {4}, {0, 100, -32768, 32767}), ints(DType::i16, {513}, t16)}, T(DType::i32, {4})) ==
              std::vector<double>{0, 6400, -2097152, 32767.0 * 64});
        // a non-linear table: base (table[index] << 7) + slope * fraction
        std::vector<std::int64_t> sq(513);
        for (int k = 0; k < 513; ++k) sq[k] = (k * k) / 16;  // 0 .. 16448
        // value -32768 + 128 * 3 + 5: index 3, fraction 5: (0 << 7) + (1 - 0) * 5
        CHECK(run_op(OpKind::TABLE, {ints(DType::i16, {1}, {-32768 + 3 * 128 + 5}), ints(DType::i16, {513}, sq)}, T(DType::i32, {1})) ==
              std::vector<double>{(9 / 16) * 128 + ((16 / 16) - (9 / 16)) * 5});
        std::string err;
        run_op(OpKind::TABLE, {ints(DType::i8, {1}, {0}), ints(DType::i8, {255}, std::vector<std::int64_t>(255))}, T(DType::i8, {1}), {}, &err);
        CHECK(err.find("length(table) == TABLE_SIZE") != std::string::npos);
    }

    TEST_CASE("CAST: round to nearest even, saturation, bool, float formats") {
        const ConstPtr x = f32({8}, {2.5f, 3.5f, -2.5f, -0.5f, 300, -300, 1.49f, 0});
        CHECK(run_op(OpKind::CAST, {x}, T(DType::i8, {8})) == std::vector<double>{2, 4, -2, -0.0, 127, -128, 1, 0});
        CHECK(run_op(OpKind::CAST, {x}, T(DType::i16, {8})) == std::vector<double>{2, 4, -2, 0, 300, -300, 1, 0});
        CHECK(run_op(OpKind::CAST, {x}, T(DType::bool_, {8})) == std::vector<double>{1, 1, 1, 1, 1, 1, 1, 0});
        CHECK(run_op(OpKind::CAST, {ints(DType::i32, {3}, {300, -129, 16777217})}, T(DType::i8, {3})) == std::vector<double>{44, 127, 1});
        CHECK(run_op(OpKind::CAST, {ints(DType::i8, {2}, {-1, 5})}, T(DType::i32, {2})) == std::vector<double>{-1, 5});
        CHECK(run_op(OpKind::CAST, {ints(DType::bool_, {2}, {1, 0})}, T(DType::fp32, {2})) == std::vector<double>{1, 0});
        // int32 to fp32: 16777217 rounds to even 16777216
        CHECK(run_op(OpKind::CAST, {ints(DType::i32, {1}, {16777217})}, T(DType::fp32, {1})) == std::vector<double>{16777216});
        CHECK(run_op(OpKind::CAST, {f32({2}, {1.0f + 1.0f / 2048, 70000})}, T(DType::fp16, {2})) == std::vector<double>{1, inf_});
        CHECK(run_op(OpKind::CAST, {f16({1}, {1.5f})}, T(DType::fp32, {1})) == std::vector<double>{1.5});
        std::string err;
        run_op(OpKind::CAST, {f32({1}, {static_cast<float>(nan_)})}, T(DType::i32, {1}), {}, &err);
        CHECK(err.find("tosa-require") == 0);
    }

    TEST_CASE("reductions and ARGMAX") {
        const ConstPtr x = f32({2, 3}, {1, 5, 3, 4, 2, 6});
        CHECK(run_op(OpKind::REDUCE_SUM, {x}, T(DType::fp32, {1, 3}), {{AttrName::axis, std::int64_t{0}}}) == std::vector<double>{5, 7, 9});
        CHECK(run_op(OpKind::REDUCE_SUM, {x}, T(DType::fp32, {2, 1}), {{AttrName::axis, std::int64_t{1}}}) == std::vector<double>{9, 12});
        CHECK(run_op(OpKind::REDUCE_MAX, {x}, T(DType::fp32, {2, 1}), {{AttrName::axis, std::int64_t{1}}, {AttrName::nan_mode, NanMode::PROPAGATE}}) ==
              std::vector<double>{5, 6});
        CHECK(run_op(OpKind::REDUCE_MIN, {x}, T(DType::fp32, {1, 3}), {{AttrName::axis, std::int64_t{0}}, {AttrName::nan_mode, NanMode::PROPAGATE}}) ==
              std::vector<double>{1, 2, 3});
        CHECK(run_op(OpKind::REDUCE_PRODUCT, {x}, T(DType::fp32, {2, 1}), {{AttrName::axis, std::int64_t{1}}}) == std::vector<double>{15, 48});
        const ConstPtr n = f32({3}, {1, static_cast<float>(nan_), 2});
        CHECK(same(run_op(OpKind::REDUCE_MAX, {n}, T(DType::fp32, {1}), {{AttrName::axis, std::int64_t{0}}, {AttrName::nan_mode, NanMode::PROPAGATE}}), {nan_}));
        CHECK(run_op(OpKind::REDUCE_MAX, {n}, T(DType::fp32, {1}), {{AttrName::axis, std::int64_t{0}}, {AttrName::nan_mode, NanMode::IGNORE}}) == std::vector<double>{2});
        CHECK(run_op(OpKind::REDUCE_SUM, {ints(DType::i32, {3}, {1, 2, 3})}, T(DType::i32, {1}), {{AttrName::axis, std::int64_t{0}}}) == std::vector<double>{6});
        CHECK(run_op(OpKind::REDUCE_MAX, {ints(DType::i8, {3}, {-128, -5, -7})}, T(DType::i8, {1}), {{AttrName::axis, std::int64_t{0}}, {AttrName::nan_mode, NanMode::PROPAGATE}}) ==
              std::vector<double>{-5});
        CHECK(run_op(OpKind::REDUCE_ALL, {ints(DType::bool_, {2, 2}, {1, 1, 0, 1})}, T(DType::bool_, {2, 1}), {{AttrName::axis, std::int64_t{1}}}) ==
              std::vector<double>{1, 0});
        CHECK(run_op(OpKind::REDUCE_ANY, {ints(DType::bool_, {2, 2}, {0, 0, 0, 1})}, T(DType::bool_, {2, 1}), {{AttrName::axis, std::int64_t{1}}}) ==
              std::vector<double>{0, 1});
        std::string err;
        run_op(OpKind::REDUCE_SUM, {ints(DType::i32, {2}, {2147483647, 1})}, T(DType::i32, {1}), {{AttrName::axis, std::int64_t{0}}}, &err);
        CHECK(err.find("tosa-require") == 0);
        run_op(OpKind::REDUCE_SUM, {x}, T(DType::fp32, {2, 3}), {{AttrName::axis, std::int64_t{1}}}, &err);
        CHECK(err.find("ERROR_IF(shape[axis] != 1)") != std::string::npos);
        // ARGMAX: the first of equal maxima; NaN: the first NaN (propagate) or ignored
        CHECK(run_op(OpKind::ARGMAX, {f32({2, 3}, {1, 7, 7, 9, 2, 9})}, T(DType::i32, {2}), {{AttrName::axis, std::int64_t{1}}, {AttrName::nan_mode, NanMode::PROPAGATE}}) ==
              std::vector<double>{1, 0});
        const ConstPtr m = f32({4}, {1, static_cast<float>(nan_), 5, static_cast<float>(nan_)});
        CHECK(run_op(OpKind::ARGMAX, {m}, T(DType::i32, {}), {{AttrName::axis, std::int64_t{0}}, {AttrName::nan_mode, NanMode::PROPAGATE}}) == std::vector<double>{1});
        CHECK(run_op(OpKind::ARGMAX, {m}, T(DType::i32, {}), {{AttrName::axis, std::int64_t{0}}, {AttrName::nan_mode, NanMode::IGNORE}}) == std::vector<double>{2});
        CHECK(run_op(OpKind::ARGMAX, {ints(DType::i8, {3}, {-128, -128, -3})}, T(DType::i32, {}), {{AttrName::axis, std::int64_t{0}}, {AttrName::nan_mode, NanMode::PROPAGATE}}) ==
              std::vector<double>{2});
    }

    TEST_CASE("data layout: CONCAT, PAD, RESHAPE, REVERSE, SLICE, TILE, TRANSPOSE, GATHER, SCATTER") {
        const ConstPtr a = f32({2, 2}, {1, 2, 3, 4});
        const ConstPtr b = f32({2, 1}, {5, 6});
        CHECK(run_op(OpKind::CONCAT, {a, b}, T(DType::fp32, {2, 3}), {{AttrName::axis, std::int64_t{1}}}) == std::vector<double>{1, 2, 5, 3, 4, 6});
        CHECK(run_op(OpKind::CONCAT, {a, a}, T(DType::fp32, {4, 2}), {{AttrName::axis, std::int64_t{0}}}) == std::vector<double>{1, 2, 3, 4, 1, 2, 3, 4});
        std::string err;
        run_op(OpKind::CONCAT, {a, b}, T(DType::fp32, {4, 2}), {{AttrName::axis, std::int64_t{0}}}, &err);
        CHECK(err.find("ERROR_IF(shapes1[shape_index][axis_index] != shapes1[0][axis_index])") != std::string::npos);
        {
            G g;
            const ValueId x = g.input(a);
            g.output(g.op(OpKind::PAD, {x, g.shape({1, 0, 0, 2}), g.constant(f32({1}, {-1}))}, T(DType::fp32, {3, 4})));
            CHECK(values_of(g.run()[0]) == std::vector<double>{-1, -1, -1, -1, 1, 2, -1, -1, 3, 4, -1, -1});
        }
        {
            G g;
            const ValueId x = g.input(ints(DType::i8, {2, 3}, {1, 2, 3, 4, 5, 6}));
            const ValueId r = g.op(OpKind::RESHAPE, {x, g.shape({3, 2})}, T(DType::i8, {3, 2}));
            g.output(g.op(OpKind::TRANSPOSE, {r}, T(DType::i8, {2, 3}), {{AttrName::perms, std::vector<std::int64_t>{1, 0}}}));
            CHECK(values_of(g.run()[0]) == std::vector<double>{1, 3, 5, 2, 4, 6});
        }
        {
            G g;  // RESHAPE to a shape of another volume
            const ValueId x = g.input(a);
            g.output(g.op(OpKind::RESHAPE, {x, g.shape({3})}, T(DType::fp32, {3})));
            g.run(&err);
            CHECK(err.find("ERROR_IF(tensor_size(shape1) != tensor_size(shape))") != std::string::npos);
        }
        // TRANSPOSE of rank 4 (NCHW -> NHWC)
        std::vector<float> v(24);
        for (int i = 0; i < 24; ++i) v[i] = static_cast<float>(i);
        const std::vector<double> t = run_op(OpKind::TRANSPOSE, {f32({1, 2, 3, 4}, v)}, T(DType::fp32, {1, 3, 4, 2}),
                                             {{AttrName::perms, std::vector<std::int64_t>{0, 2, 3, 1}}});
        REQUIRE(t.size() == 24);
        for (int h = 0; h < 3; ++h)
            for (int w = 0; w < 4; ++w)
                for (int c = 0; c < 2; ++c) CHECK(t[(h * 4 + w) * 2 + c] == c * 12 + h * 4 + w);
        run_op(OpKind::TRANSPOSE, {a}, T(DType::fp32, {2, 2}), {{AttrName::perms, std::vector<std::int64_t>{0, 0}}}, &err);
        CHECK(err.find("indexes_used[index] == true") != std::string::npos);
        CHECK(run_op(OpKind::REVERSE, {f32({2, 3}, {1, 2, 3, 4, 5, 6})}, T(DType::fp32, {2, 3}), {{AttrName::axis, std::int64_t{1}}}) ==
              std::vector<double>{3, 2, 1, 6, 5, 4});
        CHECK(run_op(OpKind::REVERSE, {f32({2, 3}, {1, 2, 3, 4, 5, 6})}, T(DType::fp32, {2, 3}), {{AttrName::axis, std::int64_t{0}}}) ==
              std::vector<double>{4, 5, 6, 1, 2, 3});
        {
            G g;
            const ValueId x = g.input(f32({3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9}));
            g.output(g.op(OpKind::SLICE, {x, g.shape({1, 1}), g.shape({2, 2})}, T(DType::fp32, {2, 2})));
            CHECK(values_of(g.run()[0]) == std::vector<double>{5, 6, 8, 9});
        }
        {
            G g;
            const ValueId x = g.input(f32({3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9}));
            g.output(g.op(OpKind::SLICE, {x, g.shape({2, 0}), g.shape({2, 1})}, T(DType::fp32, {2, 1})));
            g.run(&err);
            CHECK(err.find("ERROR_IF(start[index] + size[index] > shape1[index])") != std::string::npos);
        }
        {
            G g;
            const ValueId x = g.input(f32({1, 2}, {1, 2}));
            g.output(g.op(OpKind::TILE, {x, g.shape({2, 2})}, T(DType::fp32, {2, 4})));
            CHECK(values_of(g.run()[0]) == std::vector<double>{1, 2, 1, 2, 1, 2, 1, 2});
        }
        // GATHER values [1,3,2] with indices [1,2]; SCATTER back
        const ConstPtr values = f32({1, 3, 2}, {1, 2, 3, 4, 5, 6});
        CHECK(run_op(OpKind::GATHER, {values, ints(DType::i32, {1, 2}, {2, 0})}, T(DType::fp32, {1, 2, 2})) == std::vector<double>{5, 6, 1, 2});
        run_op(OpKind::GATHER, {values, ints(DType::i32, {1, 2}, {3, 0})}, T(DType::fp32, {1, 2, 2}), {}, &err);
        CHECK(err.find("REQUIRE(0 <= k && k < K)") != std::string::npos);
        CHECK(run_op(OpKind::SCATTER, {values, ints(DType::i32, {1, 2}, {2, 0}), f32({1, 2, 2}, {-1, -2, -3, -4})}, T(DType::fp32, {1, 3, 2})) ==
              std::vector<double>{-3, -4, 3, 4, -1, -2});
        run_op(OpKind::SCATTER, {values, ints(DType::i32, {1, 2}, {1, 1}), f32({1, 2, 2}, {-1, -2, -3, -4})}, T(DType::fp32, {1, 3, 2}), {}, &err);
        CHECK(err.find("output_modified") != std::string::npos);
    }

    TEST_CASE("RESIZE: nearest and bilinear, float and integer") {
        auto resize = [](ConstPtr x, TensorType out, std::vector<std::int64_t> scale, std::vector<std::int64_t> offset, std::vector<std::int64_t> border,
                         ResizeMode mode) {
            G g;
            const ValueId in = g.input(std::move(x));
            g.output(g.op(OpKind::RESIZE, {in, g.shape(std::move(scale)), g.shape(std::move(offset)), g.shape(std::move(border))}, std::move(out),
                          {{AttrName::mode, mode}}));
            return values_of(g.run()[0]);
        };
        // 2x upscale of [1, 2] along W, sampling (-0.5 .. 1.5): scale 4/2, offset -1, border 1
        const ConstPtr x = f32({1, 1, 2, 1}, {1, 2});
        CHECK(resize(x, T(DType::fp32, {1, 1, 4, 1}), {2, 1, 4, 2}, {0, -1}, {0, 1}, ResizeMode::BILINEAR) == std::vector<double>{1, 1.25, 1.75, 2});
        CHECK(resize(x, T(DType::fp32, {1, 1, 4, 1}), {2, 1, 4, 2}, {0, -1}, {0, 1}, ResizeMode::NEAREST_NEIGHBOR) == std::vector<double>{1, 1, 2, 2});
        // integer bilinear: the result is scaled by scale_y_n * scale_x_n (2 * 4)
        CHECK(resize(ints(DType::i8, {1, 1, 2, 1}, {1, 2}), T(DType::i32, {1, 1, 4, 1}), {2, 1, 4, 2}, {0, -1}, {0, 1}, ResizeMode::BILINEAR) ==
              std::vector<double>{8, 10, 14, 16});
        CHECK(resize(ints(DType::i8, {1, 1, 2, 1}, {1, 2}), T(DType::i8, {1, 1, 4, 1}), {2, 1, 4, 2}, {0, -1}, {0, 1}, ResizeMode::NEAREST_NEIGHBOR) ==
              std::vector<double>{1, 1, 2, 2});
    }

    TEST_CASE("CONV2D, DEPTHWISE_CONV2D, TRANSPOSE_CONV2D, CONV3D, MATMUL") {
        auto conv = [](OpKind k, ConstPtr x, ConstPtr w, ConstPtr bias, TensorType out, std::vector<std::pair<AttrName, Attr>> attrs, std::int64_t izp = 0,
                       std::int64_t wzp = 0, std::string* err = nullptr) {
            const DType xt = x->type.dtype, wt = w->type.dtype;
            return run_op(k, {x, w, bias, zp(xt, izp), zp(wt, wzp)}, std::move(out), std::move(attrs), err);
        };
        const ConstPtr x = f32({1, 3, 3, 1}, {1, 2, 3, 4, 5, 6, 7, 8, 9});
        const ConstPtr ones = f32({1, 2, 2, 1}, {1, 1, 1, 1});
        auto attrs = [](std::vector<std::int64_t> pad, std::vector<std::int64_t> stride, std::vector<std::int64_t> dil = {1, 1}) {
            return std::vector<std::pair<AttrName, Attr>>{
                {AttrName::pad, pad}, {AttrName::stride, stride}, {AttrName::dilation, dil}, {AttrName::acc_type, AccType::FP32}};
        };
        CHECK(conv(OpKind::CONV2D, x, ones, f32({1}, {1}), T(DType::fp32, {1, 2, 2, 1}), attrs({0, 0, 0, 0}, {1, 1})) ==
              std::vector<double>{13, 17, 25, 29});
        // padding at the bottom and right, stride 2
        CHECK(conv(OpKind::CONV2D, x, ones, f32({1}, {0}), T(DType::fp32, {1, 2, 2, 1}), attrs({0, 1, 0, 1}, {2, 2})) ==
              std::vector<double>{12, 9, 15, 9});
        // dilation 2: the four corners
        CHECK(conv(OpKind::CONV2D, x, ones, f32({1}, {0}), T(DType::fp32, {1, 1, 1, 1}), attrs({0, 0, 0, 0}, {1, 1}, {2, 2})) ==
              std::vector<double>{20});
        // 1x1 with two output channels and a bias each (the GEMM without gathering)
        CHECK(conv(OpKind::CONV2D, f32({1, 1, 2, 2}, {1, 2, 3, 4}), f32({2, 1, 1, 2}, {1, 0, 1, 1}), f32({2}, {0, 10}), T(DType::fp32, {1, 1, 2, 2}),
                   attrs({0, 0, 0, 0}, {1, 1})) == std::vector<double>{1, 13, 3, 17});
        std::string err;
        conv(OpKind::CONV2D, x, ones, f32({1}, {0}), T(DType::fp32, {1, 2, 2, 1}), attrs({1, 1, 1, 1}, {2, 2}), 0, 0, &err);
        CHECK(err.find("ERROR_IF(OH != idiv_check(IH - 1 + pad_top + pad_bottom - (KH - 1) * dilation_y, stride_y) + 1)") != std::string::npos);
        conv(OpKind::CONV2D, x, ones, f32({1}, {0}), T(DType::fp32, {1, 2, 2, 1}), attrs({0, 0, 0, 0}, {1, 1}), 1, 0, &err);
        CHECK(err.find("input_zp != 0") != std::string::npos);
        // int8: zero points subtracted, int32 accumulator, int32 bias
        const std::vector<std::pair<AttrName, Attr>> iattrs{
            {AttrName::pad, std::vector<std::int64_t>{0, 0, 0, 0}}, {AttrName::stride, std::vector<std::int64_t>{1, 1}},
            {AttrName::dilation, std::vector<std::int64_t>{1, 1}}, {AttrName::acc_type, AccType::INT32}};
        CHECK(conv(OpKind::CONV2D, ints(DType::i8, {1, 2, 2, 1}, {1, 2, 3, 4}), ints(DType::i8, {1, 2, 2, 1}, {1, 1, 1, 2}), ints(DType::i32, {1}, {10}),
                   T(DType::i32, {1, 1, 1, 1}), iattrs, 1, -1) == std::vector<double>{(0 * 2 + 1 * 2 + 2 * 2 + 3 * 3) + 10});
        // extremes: -128 * -128 * 4 + bias
        CHECK(conv(OpKind::CONV2D, ints(DType::i8, {1, 2, 2, 1}, {-128, -128, -128, -128}), ints(DType::i8, {1, 2, 2, 1}, {-128, -128, -128, -128}),
                   ints(DType::i32, {1}, {-1}), T(DType::i32, {1, 1, 1, 1}), iattrs) == std::vector<double>{65535});
        // i16 x i8 with an i48 accumulator and bias
        std::vector<std::pair<AttrName, Attr>> a48 = iattrs;
        a48[3].second = AccType::INT48;
        CHECK(conv(OpKind::CONV2D, ints(DType::i16, {1, 1, 1, 2}, {32767, 32767}), ints(DType::i8, {1, 1, 1, 2}, {127, 127}),
                   ints(DType::i48, {1}, {std::int64_t{1} << 40}), T(DType::i48, {1, 1, 1, 1}), a48) ==
              std::vector<double>{2.0 * 32767 * 127 + static_cast<double>(std::int64_t{1} << 40)});
        // depthwise: 2 channels, multiplier 1, 2x2 kernel over 2x2 input
        const ConstPtr dx = f32({1, 2, 2, 2}, {1, 10, 2, 20, 3, 30, 4, 40});
        const ConstPtr dw = f32({2, 2, 2, 1}, {1, 1, 1, 0, 1, 1, 1, 2});  // [KH,KW,C,M]
        CHECK(conv(OpKind::DEPTHWISE_CONV2D, dx, dw, f32({2}, {0, 1}), T(DType::fp32, {1, 1, 1, 2}), attrs({0, 0, 0, 0}, {1, 1})) ==
              std::vector<double>{10, 10 + 30 + 80 + 1});
        // multiplier 2
        CHECK(conv(OpKind::DEPTHWISE_CONV2D, f32({1, 1, 1, 2}, {2, 3}), f32({1, 1, 2, 2}, {1, 2, 3, 4}), f32({1}, {0}), T(DType::fp32, {1, 1, 1, 4}),
                   attrs({0, 0, 0, 0}, {1, 1})) == std::vector<double>{2, 4, 9, 12});
        CHECK(conv(OpKind::DEPTHWISE_CONV2D, ints(DType::i8, {1, 1, 1, 2}, {2, 3}), ints(DType::i8, {1, 1, 2, 2}, {1, 2, 3, 4}), ints(DType::i32, {4}, {1, 1, 1, 1}),
                   T(DType::i32, {1, 1, 1, 4}), iattrs, 1, 0) == std::vector<double>{2, 3, 7, 9});
        // transpose conv: stride 2 spreads each input item over a 2x2 block
        const std::vector<std::pair<AttrName, Attr>> tattrs{
            {AttrName::out_pad, std::vector<std::int64_t>{0, 0, 0, 0}}, {AttrName::stride, std::vector<std::int64_t>{2, 2}}, {AttrName::acc_type, AccType::FP32}};
        CHECK(conv(OpKind::TRANSPOSE_CONV2D, f32({1, 2, 2, 1}, {1, 2, 3, 4}), f32({1, 2, 2, 1}, {1, 2, 3, 4}), f32({1}, {0}), T(DType::fp32, {1, 4, 4, 1}),
                   tattrs) == std::vector<double>{1, 2, 2, 4, 3, 4, 6, 8, 3, 6, 4, 8, 9, 12, 12, 16});
        // stride 1 with a negative out_pad: overlapping sums, cropped
        const std::vector<std::pair<AttrName, Attr>> t1{
            {AttrName::out_pad, std::vector<std::int64_t>{0, -1, 0, -1}}, {AttrName::stride, std::vector<std::int64_t>{1, 1}}, {AttrName::acc_type, AccType::FP32}};
        CHECK(conv(OpKind::TRANSPOSE_CONV2D, f32({1, 2, 2, 1}, {1, 2, 3, 4}), ones, f32({1}, {0.5f}), T(DType::fp32, {1, 2, 2, 1}), t1) ==
              std::vector<double>{1.5, 3.5, 4.5, 10.5});
        std::vector<std::pair<AttrName, Attr>> ti = t1;
        ti[2].second = AccType::INT32;
        CHECK(conv(OpKind::TRANSPOSE_CONV2D, ints(DType::i8, {1, 2, 2, 1}, {1, 2, 3, 4}), ints(DType::i8, {1, 2, 2, 1}, {1, 1, 1, 1}), ints(DType::i32, {1}, {0}),
                   T(DType::i32, {1, 2, 2, 1}), ti) == std::vector<double>{1, 3, 4, 10});
        // conv3d: 2x2x2 ones kernel over a 2x2x2 input
        const std::vector<std::pair<AttrName, Attr>> a3{
            {AttrName::pad, std::vector<std::int64_t>{0, 0, 0, 0, 0, 0}}, {AttrName::stride, std::vector<std::int64_t>{1, 1, 1}},
            {AttrName::dilation, std::vector<std::int64_t>{1, 1, 1}}, {AttrName::acc_type, AccType::FP32}};
        CHECK(conv(OpKind::CONV3D, f32({1, 2, 2, 2, 1}, {1, 2, 3, 4, 5, 6, 7, 8}), f32({1, 2, 2, 2, 1}, {1, 1, 1, 1, 1, 1, 1, 1}), f32({1}, {0}),
                   T(DType::fp32, {1, 1, 1, 1, 1}), a3) == std::vector<double>{36});
        // MATMUL
        CHECK(run_op(OpKind::MATMUL, {f32({1, 2, 2}, {1, 2, 3, 4}), f32({1, 2, 2}, {5, 6, 7, 8}), zp(DType::fp32), zp(DType::fp32)}, T(DType::fp32, {1, 2, 2})) ==
              std::vector<double>{19, 22, 43, 50});
        CHECK(run_op(OpKind::MATMUL, {ints(DType::i8, {1, 1, 2}, {1, 2}), ints(DType::i8, {1, 2, 1}, {3, 4}), zp(DType::i8, 1), zp(DType::i8, 2)},
                     T(DType::i32, {1, 1, 1})) == std::vector<double>{0 * 1 + 1 * 2});
        CHECK(run_op(OpKind::MATMUL, {ints(DType::i16, {1, 1, 2}, {-32768, -32768}), ints(DType::i16, {1, 2, 1}, {-32768, -32768}), zp(DType::i16), zp(DType::i16)},
                     T(DType::i48, {1, 1, 1})) == std::vector<double>{2.0 * 32768 * 32768});
    }

    TEST_CASE("pooling: padding not counted, integer averages rounded per apply_scale_32") {
        const std::vector<std::pair<AttrName, Attr>> pa{
            {AttrName::kernel, std::vector<std::int64_t>{2, 2}}, {AttrName::stride, std::vector<std::int64_t>{1, 1}},
            {AttrName::pad, std::vector<std::int64_t>{1, 0, 1, 0}}, {AttrName::acc_type, AccType::FP32}};
        CHECK(run_op(OpKind::AVG_POOL2D, {f32({1, 2, 2, 1}, {1, 2, 3, 4}), zp(DType::fp32), zp(DType::fp32)}, T(DType::fp32, {1, 2, 2, 1}), pa) ==
              std::vector<double>{1, 1.5, 2, 2.5});
        const std::vector<std::pair<AttrName, Attr>> pm{
            {AttrName::kernel, std::vector<std::int64_t>{2, 2}}, {AttrName::stride, std::vector<std::int64_t>{1, 1}},
            {AttrName::pad, std::vector<std::int64_t>{1, 0, 1, 0}}, {AttrName::nan_mode, NanMode::PROPAGATE}};
        CHECK(run_op(OpKind::MAX_POOL2D, {f32({1, 2, 2, 1}, {1, 2, 4, 3})}, T(DType::fp32, {1, 2, 2, 1}), pm) == std::vector<double>{1, 2, 4, 4});
        CHECK(run_op(OpKind::MAX_POOL2D, {ints(DType::i8, {1, 2, 2, 1}, {-128, -100, -50, -60})}, T(DType::i8, {1, 2, 2, 1}), pm) ==
              std::vector<double>{-128, -100, -50, -50});
        // integer average over 4: 10 / 4 = 2.5 rounds to 3, -10 / 4 to -3 (the multiplier is a little
        // above 2^32 / 4, so the half of -2.5 lands below -2.5 + 0.5); output zero point 1
        const std::vector<std::pair<AttrName, Attr>> pi{
            {AttrName::kernel, std::vector<std::int64_t>{2, 2}}, {AttrName::stride, std::vector<std::int64_t>{1, 1}},
            {AttrName::pad, std::vector<std::int64_t>{0, 0, 0, 0}}, {AttrName::acc_type, AccType::INT32}};
        CHECK(run_op(OpKind::AVG_POOL2D, {ints(DType::i8, {1, 2, 2, 2}, {1, -1, 2, -2, 3, -3, 4, -4}), zp(DType::i8), zp(DType::i8, 1)}, T(DType::i8, {1, 1, 1, 2}), pi) ==
              std::vector<double>{4, -2});
        // input zero point, saturation at 127
        CHECK(run_op(OpKind::AVG_POOL2D, {ints(DType::i8, {1, 2, 2, 1}, {127, 127, 127, 127}), zp(DType::i8, -100), zp(DType::i8, 0)}, T(DType::i8, {1, 1, 1, 1}), pi) ==
              std::vector<double>{127});
        std::string err;
        std::vector<std::pair<AttrName, Attr>> bad = pa;
        bad[2].second = std::vector<std::int64_t>{2, 0, 0, 0};
        run_op(OpKind::AVG_POOL2D, {f32({1, 2, 2, 1}, {1, 2, 3, 4}), zp(DType::fp32), zp(DType::fp32)}, T(DType::fp32, {1, 2, 1, 1}), bad, &err);
        CHECK(err.find("ERROR_IF(pad_top >= kernel_y || pad_bottom >= kernel_y)") != std::string::npos);
    }

    TEST_CASE("FFT2D and RFFT2D") {
        // an impulse at (0, 0) has a flat spectrum; a constant has all its energy at (0, 0)
        G g;
        const ValueId re = g.input(f32({1, 2, 2}, {1, 0, 0, 0}));
        const ValueId im = g.input(f32({1, 2, 2}, {0, 0, 0, 0}));
        Op& op = g.g.add_op(0, OpKind::FFT2D, {re, im}, {T(DType::fp32, {1, 2, 2}), T(DType::fp32, {1, 2, 2})}, {{AttrName::inverse, false}});
        const ValueId o0 = op.outputs[0], o1 = op.outputs[1];
        g.output(o0);
        g.output(o1);
        Op& rop = g.g.add_op(0, OpKind::RFFT2D, {re}, {T(DType::fp32, {1, 2, 2}), T(DType::fp32, {1, 2, 2})});
        g.output(rop.outputs[0]);
        auto r = g.run();
        REQUIRE(r.size() == 3);
        CHECK(values_of(r[0]) == std::vector<double>{1, 1, 1, 1});
        CHECK(values_of(r[1]) == std::vector<double>{0, 0, 0, 0});
        CHECK(values_of(r[2]) == std::vector<double>{1, 1, 1, 1});
        // one cycle along W = 4: x = cos(2 pi n / 4) has spectrum 2 at w = 1 and w = 3
        G h;
        Op& r4 = h.g.add_op(0, OpKind::RFFT2D, {h.input(f32({1, 1, 4}, {1, 0, -1, 0}))}, {T(DType::fp32, {1, 1, 3}), T(DType::fp32, {1, 1, 3})});
        h.output(r4.outputs[0]);
        h.output(r4.outputs[1]);
        const auto spectrum = h.run();
        REQUIRE(spectrum.size() == 2);
        const std::vector<double> c = values_of(spectrum[0]);
        for (double v : values_of(spectrum[1])) CHECK(std::fabs(v) < 1e-6);
        REQUIRE(c.size() == 3);
        CHECK(c[0] == doctest::Approx(0).epsilon(1e-6));
        CHECK(c[1] == doctest::Approx(2).epsilon(1e-6));
        CHECK(std::fabs(c[2]) < 1e-6);
    }

    TEST_CASE("COND_IF and WHILE_LOOP") {
        // cond_if(x > 0) then x * 2 else x - 1
        auto build = [](float v) {
            G b;
            Graph& g = b.g;
            const ValueId x = b.input(f32({1}, {v}));
            const ValueId zero = b.constant(f32({1}, {0}));
            const ValueId cond = b.op(OpKind::GREATER, {x, zero}, T(DType::bool_, {1}));
            const std::uint32_t tb = g.add_block("then"), eb = g.add_block("else");
            const ValueId ti = g.add_value(T(DType::fp32, {1}));
            g.blocks[tb].inputs = {ti};
            const ValueId two = g.add_const(tb, f32({1}, {2}));
            const ValueId sh = g.add_const(tb, ints(DType::i8, {1}, {0}));
            g.blocks[tb].outputs = {g.add_op(tb, OpKind::MUL, {ti, two, sh}, {T(DType::fp32, {1})}).outputs[0]};
            const ValueId ei = g.add_value(T(DType::fp32, {1}));
            g.blocks[eb].inputs = {ei};
            const ValueId one = g.add_const(eb, f32({1}, {1}));
            g.blocks[eb].outputs = {g.add_op(eb, OpKind::SUB, {ei, one}, {T(DType::fp32, {1})}).outputs[0]};
            Op& op = g.add_op(0, OpKind::COND_IF, {cond, x}, {T(DType::fp32, {1})}, {{AttrName::then_graph, BlockRef{tb}}, {AttrName::else_graph, BlockRef{eb}}});
            b.output(op.outputs[0]);
            return b;
        };
        {
            G b = build(3);
            CHECK(values_of(b.run()[0]) == std::vector<double>{6});
        }
        {
            G b = build(-3);
            CHECK(values_of(b.run()[0]) == std::vector<double>{-4});
        }
        // while (i < 5) { i = i + 1; s = s + i }: i = 5, s = 15
        G b;
        Graph& g = b.g;
        const ValueId i0 = b.input(ints(DType::i32, {1}, {0}));
        const ValueId s0 = b.input(ints(DType::i32, {1}, {0}));
        const std::uint32_t cb = g.add_block("cond"), bb = g.add_block("body");
        const ValueId ci = g.add_value(T(DType::i32, {1})), cs = g.add_value(T(DType::i32, {1}));
        g.blocks[cb].inputs = {ci, cs};
        const ValueId five = g.add_const(cb, ints(DType::i32, {1}, {5}));
        g.blocks[cb].outputs = {g.add_op(cb, OpKind::GREATER, {five, ci}, {T(DType::bool_, {1})}).outputs[0]};
        const ValueId bi = g.add_value(T(DType::i32, {1})), bs = g.add_value(T(DType::i32, {1}));
        g.blocks[bb].inputs = {bi, bs};
        const ValueId one = g.add_const(bb, ints(DType::i32, {1}, {1}));
        const ValueId ni = g.add_op(bb, OpKind::ADD, {bi, one}, {T(DType::i32, {1})}).outputs[0];
        const ValueId ns = g.add_op(bb, OpKind::ADD, {bs, ni}, {T(DType::i32, {1})}).outputs[0];
        g.blocks[bb].outputs = {ni, ns};
        Op& w = g.add_op(0, OpKind::WHILE_LOOP, {i0, s0}, {T(DType::i32, {1}), T(DType::i32, {1})},
                         {{AttrName::cond_graph, BlockRef{cb}}, {AttrName::body_graph, BlockRef{bb}}});
        b.output(w.outputs[0]);
        b.output(w.outputs[1]);
        auto r = b.run();
        REQUIRE(r.size() == 2);
        CHECK(values_of(r[0]) == std::vector<double>{5});
        CHECK(values_of(r[1]) == std::vector<double>{15});
        // a loop that does not end is stopped
        b.feeds[0] = ints(DType::i32, {1}, {0});
        g.blocks[bb].outputs = {bi, ns};  // i never grows
        nnef::Diagnostics d;
        InterpretOptions o;
        o.max_loop_iterations = 1000;
        CHECK_FALSE(interpret(g, b.feeds, o, d).has_value());
        REQUIRE(d.error_count() == 1);
        CHECK(d.list()[0].code == "loop-limit");
    }

    TEST_CASE("VARIABLE state is kept across runs") {
        // acc = variable(i32[1], initial 0); acc += x; output acc
        Graph g;
        const ValueId x = g.add_value(T(DType::i32, {1}), "x");
        g.main().inputs = {x};
        g.add_op(0, OpKind::VARIABLE, {}, {},
                 {{AttrName::name, std::string("acc")}, {AttrName::var_shape, std::vector<std::int64_t>{1}}, {AttrName::type, DType::i32},
                  {AttrName::initial_value, ints(DType::i32, {1}, {100})}});
        const ValueId r = g.add_op(0, OpKind::VARIABLE_READ, {}, {T(DType::i32, {1})}, {{AttrName::name, std::string("acc")}}).outputs[0];
        const ValueId s = g.add_op(0, OpKind::ADD, {r, x}, {T(DType::i32, {1})}).outputs[0];
        g.add_op(0, OpKind::VARIABLE_WRITE, {s}, {}, {{AttrName::name, std::string("acc")}});
        g.main().outputs = {s};
        nnef::Diagnostics d;
        auto it = Interpreter::create(g, {}, d);
        REQUIRE(it);
        for (int k = 1; k <= 3; ++k) {
            auto out = it->run({ints(DType::i32, {1}, {2})}, d);
            REQUIRE(out);
            CHECK(values_of((*out)[0]) == std::vector<double>{100.0 + 2 * k});
        }
        CHECK(values_of(it->variable("acc")) == std::vector<double>{106});
        CHECK(it->variable("nothing") == nullptr);
        // a fresh interpret() starts from the initial value
        auto once = interpret(g, {ints(DType::i32, {1}, {2})}, {}, d);
        REQUIRE(once);
        CHECK(values_of((*once)[0]) == std::vector<double>{102});
        // reading a variable without initial value before it is written
        Graph h;
        h.add_op(0, OpKind::VARIABLE, {}, {}, {{AttrName::name, std::string("v")}, {AttrName::var_shape, std::vector<std::int64_t>{1}}, {AttrName::type, DType::fp32}});
        h.main().outputs = {h.add_op(0, OpKind::VARIABLE_READ, {}, {T(DType::fp32, {1})}, {{AttrName::name, std::string("v")}}).outputs[0]};
        nnef::Diagnostics e;
        CHECK_FALSE(interpret(h, {}, {}, e).has_value());
        REQUIRE(e.error_count() == 1);
        CHECK(e.list()[0].message.find("VARIABLE_READ") == 0);
        CHECK(e.list()[0].message.find("is_written") != std::string::npos);
    }

    TEST_CASE("errors: CUSTOM refused, bad inputs, located at the NNEF origin, observe hook") {
        {
            Graph g;
            const ValueId x = g.add_value(T(DType::fp32, {1}));
            g.main().inputs = {x};
            Op& op = g.add_op(0, OpKind::CUSTOM, {x}, {T(DType::fp32, {1})},
                              {{AttrName::operator_name, std::string("my_gru")}, {AttrName::domain_name, std::string("acme")},
                               {AttrName::implementation_attrs, std::string()}});
            g.main().outputs = {op.outputs[0]};
            nnef::Diagnostics d;
            CHECK_FALSE(Interpreter::create(g, {}, d));
            REQUIRE(d.error_count() == 1);
            CHECK(d.list()[0].code == "custom-op");
            CHECK(d.list()[0].stage == nnef::Stage::tosa);
            CHECK(d.list()[0].message.find("my_gru") != std::string::npos);
        }
        Graph g;
        const ValueId x = g.add_value(T(DType::fp32, {2}), "x");
        g.main().inputs = {x};
        Origin origin;
        origin.operation = "conv";
        origin.tensor = "y";
        origin.provenance.range = nnef::SourceRange{1, 70, 80};
        const std::uint32_t o = g.add_origin(origin);
        const ValueId y = g.add_op(0, OpKind::REDUCE_SUM, {x}, {T(DType::fp32, {2})}, {{AttrName::axis, std::int64_t{0}}}, o).outputs[0];
        g.main().outputs = {y};
        nnef::Diagnostics d;
        CHECK_FALSE(interpret(g, {f32({2}, {1, 2})}, {}, d).has_value());
        REQUIRE(d.error_count() == 1);
        CHECK(d.list()[0].code == "tosa-error-if");
        CHECK(d.list()[0].range.begin == 70);
        CHECK(d.list()[0].range.file == 1);
        CHECK(d.list()[0].message.find("REDUCE_SUM %1: ERROR_IF(shape[axis] != 1)") == 0);
        REQUIRE(d.list()[0].notes.size() == 1);
        CHECK(d.list()[0].notes[0].message == "lowered from NNEF operation 'conv' ('y')");
        // (refused before it runs: the inputs are checked on a valid graph)
        g.values[y].type.shape = {1};
        nnef::Diagnostics e;
        CHECK_FALSE(interpret(g, {f32({3}, {1, 2, 3})}, {}, e).has_value());
        CHECK(e.list()[0].code == "bad-input");
        CHECK(e.list()[0].message == "input 0 ('x') is fp32[3], the graph takes fp32[2]");
        nnef::Diagnostics f;
        CHECK_FALSE(interpret(g, {}, {}, f).has_value());
        CHECK(f.list()[0].message == "the graph takes 1 inputs, 0 given");
        // observe sees every computed value
        Graph h;
        const ValueId a = h.add_value(T(DType::fp32, {1}), "a");
        h.main().inputs = {a};
        const ValueId b = h.add_op(0, OpKind::NEGATE, {a, h.add_const(0, f32({1}, {0})), h.add_const(0, f32({1}, {0}))}, {T(DType::fp32, {1})}).outputs[0];
        const ValueId c = h.add_op(0, OpKind::ABS, {b}, {T(DType::fp32, {1})}).outputs[0];
        h.main().outputs = {c};
        std::vector<std::pair<ValueId, double>> seen;
        InterpretOptions opt;
        opt.observe = [&](ValueId v, const ConstPtr& p) {
            if (p->type.dtype == DType::fp32 && v != 1 && v != 2) seen.emplace_back(v, p->items<float>()[0]);
        };
        nnef::Diagnostics k;
        REQUIRE(interpret(h, {f32({1}, {5})}, opt, k));
        CHECK(seen == std::vector<std::pair<ValueId, double>>{{b, -5}, {c, 5}});
    }

    TEST_CASE("malformed operators get a diagnostic, never a crash") {
        // every operator (but control flow, variables and CUSTOM) on operands of mismatching
        // types, ranks and shapes, with attributes of the right kinds but arbitrary values
        const std::vector<TensorType> variants{T(DType::fp32, {1}),       T(DType::i8, {2, 3}),         T(DType::fp32, {1, 2, 2, 1}),
                                               T(DType::i32, {1, 3, 3, 2}), T(DType::fp16, {}),            T(DType::bool_, {2}),
                                               T(DType::i16, {1, 2, 2, 2, 1}), T(DType::shape, {4})};
        auto default_attr = [](const AttrSpec& a, std::size_t variant) -> Attr {
            switch (a.kind) {
                case AttrKind::i32: return std::int64_t(variant % 3);
                case AttrKind::boolean: return variant % 2 == 1;
                case AttrKind::i32s:
                case AttrKind::shape: return std::vector<std::int64_t>(2 + variant % 5, 1);
                case AttrKind::num: return 0.0;
                case AttrKind::acc: return AccType::FP32;
                case AttrKind::nan: return NanMode::PROPAGATE;
                case AttrKind::round: return RoundingMode::SINGLE_ROUND;
                case AttrKind::resize: return ResizeMode::BILINEAR;
                case AttrKind::str: return std::string("x");
                case AttrKind::dtype: return DType::fp32;
                case AttrKind::tensor: return f32({1}, {0});
                case AttrKind::graph: return BlockRef{0};
            }
            return {};
        };
        std::size_t ran = 0, failed = 0;
        for (std::size_t k = 0; k < op_kind_count; ++k) {
            const OpInfo& info = op_info(static_cast<OpKind>(k));
            if (info.kind == OpKind::COND_IF || info.kind == OpKind::WHILE_LOOP || info.kind == OpKind::CUSTOM ||
                info.kind == OpKind::VARIABLE || info.kind == OpKind::VARIABLE_READ || info.kind == OpKind::VARIABLE_WRITE)
                continue;
            for (std::size_t v = 0; v < variants.size(); ++v)
                for (std::size_t w = 0; w < variants.size(); w += 3) {
                    CAPTURE(info.name);
                    CAPTURE(v);
                    CAPTURE(w);
                    Graph g;
                    std::vector<ConstPtr> feeds;
                    std::vector<ValueId> ins;
                    const std::size_t n_in = info.inputs.size() + (info.variadic_inputs ? 1 : 0);
                    for (std::size_t i = 0; i < n_in; ++i) {
                        const TensorType& t = variants[(v + i * w) % variants.size()];
                        if (t.dtype == DType::shape) {
                            ins.push_back(g.add_const_shape(0, std::vector<std::int64_t>(4, 1)));
                            continue;
                        }
                        auto c = ConstData::allocate(t);
                        const ValueId id = g.add_value(t);
                        g.main().inputs.push_back(id);
                        feeds.push_back(c);
                        ins.push_back(id);
                    }
                    std::vector<TensorType> outs;
                    for (std::size_t i = 0; i < info.outputs.size(); ++i) outs.push_back(variants[(v + w + i) % (variants.size() - 1)]);
                    std::vector<std::pair<AttrName, Attr>> attrs;
                    for (const AttrSpec& a : info.attributes) attrs.emplace_back(a.name, default_attr(a, v));
                    Op& op = g.add_op(0, info.kind, ins, outs, attrs);
                    g.main().outputs = op.outputs;
                    nnef::Diagnostics d;
                    std::optional<std::vector<ConstPtr>> r;
                    CHECK_NOTHROW(r = interpret(g, feeds, {}, d));
                    ++ran;
                    if (!r) {
                        ++failed;
                        CHECK(d.has_errors());
                        for (const nnef::Diagnostic& x : d) CHECK(x.code != "internal");
                    }
                }
        }
        MESSAGE(ran << " malformed operators run, " << failed << " rejected");
        CHECK(failed > ran / 2);
    }

    TEST_CASE("a float CNN block matches nnef-run (NCHW <-> NHWC transposes built by hand)") {
        // NNEF: conv 3x3 (pad 1, stride 2) + bias, relu, max_pool 2x2, a 1x1 conv, then add of a
        // per-channel constant; the same in TOSA on NHWC with OHWI weights.
        const std::int64_t N = 1, C = 3, H = 11, W = 11, O = 4, P = 5;
        std::vector<float> xin(N * C * H * W), w1(O * C * 3 * 3), b1(O), w2(P * O), b2(P);
        unsigned s = 12345;
        auto rnd = [&] {
            s = s * 1103515245u + 12345u;
            return static_cast<float>((s >> 8) % 2001) / 1000.0f - 1.0f;
        };
        for (float& v : xin) v = rnd();
        for (float& v : w1) v = rnd();
        for (float& v : b1) v = rnd();
        for (float& v : w2) v = rnd();
        for (float& v : b2) v = rnd();
        auto list = [](const std::vector<float>& v) {
            std::string r;
            for (std::size_t i = 0; i < v.size(); ++i) r += (i ? ", " : "") + std::to_string(v[i]);
            return r;
        };
        // the constants as NNEF literals (printed with 6 decimals: use the same rounded values below)
        auto rounded = [](std::vector<float>& v) {
            for (float& x : v) x = std::stof(std::to_string(x));
        };
        rounded(w1);
        rounded(b1);
        rounded(w2);
        rounded(b2);
        const std::string body =
            "    w1 = constant<scalar>(shape = [4, 3, 3, 3], value = [" + list(w1) + "]);\n"
            "    b1 = constant<scalar>(shape = [1, 4], value = [" + list(b1) + "]);\n"
            "    w2 = constant<scalar>(shape = [5, 4, 1, 1], value = [" + list(w2) + "]);\n"
            "    b2 = constant<scalar>(shape = [1, 5], value = [" + list(b2) + "]);\n"
            "    c1 = conv(x, w1, b1, padding = [(1, 1), (1, 1)], stride = [2, 2]);\n"
            "    r1 = relu(c1);\n"
            "    p1 = max_pool(r1, size = [1, 1, 2, 2], stride = [1, 1, 2, 2], padding = [(0, 0), (0, 0), (0, 0), (0, 0)]);\n"
            "    y = conv(p1, w2, b2);\n";
        const exec_test::Outcome ref = exec_test::run1(exec_test::scalars({N, C, H, W}, std::vector<exec_test::Real>(xin.begin(), xin.end())), body);
        REQUIRE_MESSAGE(ref.ok, ref.messages);
        const std::vector<double> expect = ref["y"].to_doubles();

        G b;
        const ValueId x = b.input(f32({N, C, H, W}, xin));
        const std::vector<std::int64_t> to_nhwc{0, 2, 3, 1}, to_nchw{0, 3, 1, 2};
        const ValueId xh = b.op(OpKind::TRANSPOSE, {x}, T(DType::fp32, {N, H, W, C}), {{AttrName::perms, to_nhwc}});
        // OIHW -> OHWI by hand
        std::vector<float> w1t(w1.size());
        for (int o = 0; o < O; ++o)
            for (int c = 0; c < C; ++c)
                for (int kh = 0; kh < 3; ++kh)
                    for (int kw = 0; kw < 3; ++kw) w1t[((o * 3 + kh) * 3 + kw) * C + c] = w1[((o * C + c) * 3 + kh) * 3 + kw];
        const ValueId z = b.constant(f32({1}, {0}));
        const std::vector<std::pair<AttrName, Attr>> conv_attrs{
            {AttrName::pad, std::vector<std::int64_t>{1, 1, 1, 1}}, {AttrName::stride, std::vector<std::int64_t>{2, 2}},
            {AttrName::dilation, std::vector<std::int64_t>{1, 1}}, {AttrName::acc_type, AccType::FP32}};
        const ValueId c1 = b.op(OpKind::CONV2D, {xh, b.constant(f32({O, 3, 3, C}, w1t)), b.constant(f32({O}, b1)), z, z}, T(DType::fp32, {N, 6, 6, O}), conv_attrs);
        const ValueId r1 = b.op(OpKind::CLAMP, {c1}, T(DType::fp32, {N, 6, 6, O}),
                                {{AttrName::min_val, 0.0}, {AttrName::max_val, std::numeric_limits<double>::max()}, {AttrName::nan_mode, NanMode::PROPAGATE}});
        const ValueId p1 = b.op(OpKind::MAX_POOL2D, {r1}, T(DType::fp32, {N, 3, 3, O}),
                                {{AttrName::kernel, std::vector<std::int64_t>{2, 2}}, {AttrName::stride, std::vector<std::int64_t>{2, 2}},
                                 {AttrName::pad, std::vector<std::int64_t>{0, 0, 0, 0}}, {AttrName::nan_mode, NanMode::PROPAGATE}});
        const std::vector<std::pair<AttrName, Attr>> one_attrs{
            {AttrName::pad, std::vector<std::int64_t>{0, 0, 0, 0}}, {AttrName::stride, std::vector<std::int64_t>{1, 1}},
            {AttrName::dilation, std::vector<std::int64_t>{1, 1}}, {AttrName::acc_type, AccType::FP32}};
        const ValueId y = b.op(OpKind::CONV2D, {p1, b.constant(f32({P, 1, 1, O}, w2)), b.constant(f32({P}, b2)), z, z}, T(DType::fp32, {N, 3, 3, P}), one_attrs);
        b.output(b.op(OpKind::TRANSPOSE, {y}, T(DType::fp32, {N, P, 3, 3}), {{AttrName::perms, to_nchw}}));
        const std::vector<double> got = values_of(b.run()[0]);
        const nnef_test::Comparison c = nnef_test::compare(got, expect);
        CHECK_MESSAGE(c.scaled_within(1e-5), c.summary());
    }
}

}  // namespace interpreter_test
