// storage/quantization: each algorithm on hand-computed cases (per tensor and per channel, ties,
// saturation at both ends), parameters from graph.quant entries, and the data-stage checks of
// graph.quant (scale 0, zero point outside the code range, codes that do not fit the bits, data of
// the wrong type), each naming the tensor, graph.quant and its line.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>
#include <vector>

#include <nnef/nnef.hpp>

#include "common/scratch.hpp"
#include "storage/quantization.hpp"
#include "storage/tensor_file.hpp"

namespace quantization_test {

namespace fs = std::filesystem;
using nnef::storage::QuantAlgorithm;
using nnef::storage::QuantParams;

QuantParams zero_point(double scale, std::int64_t zp, unsigned bits, bool is_signed, bool symmetric) {
    QuantParams p;
    p.algorithm = QuantAlgorithm::zero_point_linear;
    p.bits = bits;
    p.is_signed = is_signed;
    p.symmetric = symmetric;
    p.scale = {scale};
    p.zero_point = {zp};
    REQUIRE(!p.check());
    return p;
}

QuantParams min_max(QuantAlgorithm a, std::vector<double> min, std::vector<double> max, unsigned bits, bool is_signed,
                    bool symmetric, nnef::Shape shape = {}) {
    QuantParams p;
    p.algorithm = a;
    p.bits = bits;
    p.is_signed = is_signed;
    p.symmetric = symmetric;
    p.min = std::move(min);
    p.max = std::move(max);
    p.shape = std::move(shape);
    REQUIRE(!p.check());
    return p;
}

TEST_SUITE("storage") {

TEST_CASE("quantization: round is floor(x + 0.5), exactly") {
    using nnef::storage::round_half_up;
    CHECK(round_half_up(0.5) == 1.0);
    CHECK(round_half_up(1.5) == 2.0);
    CHECK(round_half_up(2.5) == 3.0);     // not to even
    CHECK(round_half_up(-0.5) == 0.0);    // ties go up, not away from zero
    CHECK(round_half_up(-1.5) == -1.0);
    CHECK(round_half_up(-2.5) == -2.0);
    CHECK(round_half_up(0.49999999999999994) == 0.0);  // floating-point x + 0.5 would give 1
    CHECK(round_half_up(-0.49999999999999994) == 0.0);
    CHECK(round_half_up(-0.5000000000000001) == -1.0);
    CHECK(round_half_up(4503599627370497.0) == 4503599627370497.0);  // 2^52 + 1: integers stay
}

TEST_CASE("quantization: zero_point_linear_quantize, hand-computed") {
    // scale 0.5, zero point 3, signed 8-bit asymmetric: codes [-128, 127]
    const QuantParams p = zero_point(0.5, 3, 8, true, false);
    CHECK(p.code_min() == -128);
    CHECK(p.code_max() == 127);
    CHECK(p.quantize(1.0) == 5);  // 1 / 0.5 = 2, + 3
    CHECK(p.dequantize(5) == 1.0);
    CHECK(p.fake_quantize(1.1) == 1.0);  // 2.2 -> 2
    // ties: x / scale = 0.5, 1.5, -0.5, -1.5 go up
    CHECK(p.quantize(0.25) == 4);
    CHECK(p.quantize(0.75) == 5);
    CHECK(p.quantize(-0.25) == 3);
    CHECK(p.quantize(-0.75) == 2);  // -1.5 -> -1 (half to even or away from zero would give -2)
    CHECK(p.fake_quantize(-0.75) == -0.5);
    // saturation at both ends
    CHECK(p.quantize(1000.0) == 127);
    CHECK(p.fake_quantize(1000.0) == 62.0);  // (127 - 3) * 0.5
    CHECK(p.quantize(-1000.0) == -128);
    CHECK(p.fake_quantize(-1000.0) == -65.5);  // (-128 - 3) * 0.5
    CHECK(p.affine().scale == 0.5);
    CHECK(p.affine().zero_point == 3.0);

    // symmetric: [-127, 127]
    const QuantParams s = zero_point(0.5, 3, 8, true, true);
    CHECK(s.code_min() == -127);
    CHECK(s.quantize(-1000.0) == -127);
    CHECK(s.fake_quantize(-1000.0) == -65.0);
    // unsigned: [0, 255]
    const QuantParams u = zero_point(0.25, 10, 8, false, false);
    CHECK(u.code_min() == 0);
    CHECK(u.code_max() == 255);
    CHECK(u.quantize(-1000.0) == 0);
    CHECK(u.fake_quantize(-1000.0) == -2.5);  // (0 - 10) * 0.25
    CHECK(u.quantize(1000.0) == 255);
    CHECK(u.fake_quantize(1000.0) == 61.25);  // (255 - 10) * 0.25
    // 4-bit signed: r = 7, codes [-8, 7]
    const QuantParams n = zero_point(1.0, 0, 4, true, false);
    CHECK(n.code_min() == -8);
    CHECK(n.code_max() == 7);
    CHECK(n.fake_quantize(7.5) == 7.0);   // 8 saturates to 7
    CHECK(n.fake_quantize(-8.5) == -8.0);  // -8.5 + 0.5 = -8
}

TEST_CASE("quantization: fake_quantize_float32 (PyTorch's arithmetic), hand-computed") {
    // zero point 3, scale 0.5: ties go to even, unlike fake_quantize
    const QuantParams p = zero_point(0.5, 3, 8, true, false);
    CHECK(p.fake_quantize_float32(0.25f) == 0.0f);   // 0.5 -> 0 (fake_quantize: 1 -> 0.5)
    CHECK(p.fake_quantize(0.25) == 0.5);
    CHECK(p.fake_quantize_float32(0.75f) == 1.0f);   // 1.5 -> 2
    CHECK(p.fake_quantize_float32(-0.75f) == -1.0f);  // -1.5 -> -2 (fake_quantize: -1 -> -0.5)
    CHECK(p.fake_quantize_float32(1.25f) == 1.0f);   // 2.5 -> 2
    CHECK(p.fake_quantize_float32(1.1f) == 1.0f);
    CHECK(p.fake_quantize_float32(1000.0f) == 62.0f);    // saturation: (127 - 3) * 0.5
    CHECK(p.fake_quantize_float32(-1000.0f) == -65.5f);  // (-128 - 3) * 0.5
    // the scale rounded to float32: 0.05f / 0.1f is exactly 0.5 in float32 (0.05f is half of 0.1f),
    // a tie that goes to 0; in double 0.05f / 0.1 = 0.50000000745... rounds to 1
    const QuantParams t = zero_point(0.1, 0, 8, true, false);
    CHECK(t.fake_quantize_float32(0.05f) == 0.0f);
    CHECK(t.fake_quantize(double(0.05f)) == 0.1);
    CHECK(t.fake_quantize_float32(0.15f) == 0.2f);  // 0.15f / 0.1f = 1.5 (float32) -> 2 -> 2 * 0.1f
    // min_max_linear_quantize(min = 0, max = 3, bits = 2): r = 3, grid 0, 1, 2, 3; clamped at both ends
    const QuantParams m = min_max(QuantAlgorithm::min_max_linear, {0.0}, {3.0}, 2, false, false);
    CHECK(m.fake_quantize_float32(1.2f) == 1.0f);
    CHECK(m.fake_quantize_float32(10.0f) == 3.0f);
    CHECK(m.fake_quantize_float32(-5.0f) == 0.0f);
    // logarithmic_quantize(max = 8, bits = 3): m = 3, exponents [-4, 3]
    QuantParams l;
    l.algorithm = QuantAlgorithm::logarithmic;
    l.bits = 3;
    l.max = {8.0};
    REQUIRE(!l.check());
    CHECK(l.fake_quantize_float32(-3.0f) == -4.0f);  // log2(3) = 1.58 -> 2
    CHECK(l.fake_quantize_float32(100.0f) == 8.0f);  // clamped at m
    CHECK(l.fake_quantize_float32(0.0f) == 0.0f);
    CHECK(l.fake_quantize_float32(0.001f) == 0.0625f);  // clamped at m - r = -4
}

TEST_CASE("quantization: linear_quantize and min_max_linear_quantize, hand-computed") {
    // linear_quantize(min = 0, max = 4, bits = 2): r = 3, grid 0, 4/3, 8/3, 4
    const QuantParams l = min_max(QuantAlgorithm::linear, {0.0}, {4.0}, 2, false, false);
    CHECK(l.code_min() == 0);
    CHECK(l.code_max() == 3);
    CHECK(l.quantize(2.0) == 2);  // 2 / 4 * 3 = 1.5: a tie, up
    CHECK(l.fake_quantize(2.0) == doctest::Approx(8.0 / 3.0));
    CHECK(l.quantize(1.0) == 1);  // 0.75
    CHECK(l.quantize(-5.0) == 0);  // clamped to min
    CHECK(l.fake_quantize(-5.0) == 0.0);
    CHECK(l.quantize(9.0) == 3);  // clamped to max
    CHECK(l.fake_quantize(9.0) == 4.0);
    CHECK(l.affine().scale == doctest::Approx(4.0 / 3.0));
    CHECK(l.affine().zero_point == 0.0);

    // min_max signed symmetric 8 bits, [-1, 1]: r = 254, p = 127, codes [-127, 127]
    const QuantParams s = min_max(QuantAlgorithm::min_max_linear, {-1.0}, {1.0}, 8, true, true);
    CHECK(s.code_min() == -127);
    CHECK(s.code_max() == 127);
    CHECK(s.quantize(0.0) == 0);  // 1 / 2 * 254 = 127, - 127
    CHECK(s.fake_quantize(0.0) == 0.0);
    CHECK(s.quantize(1.0) == 127);
    CHECK(s.fake_quantize(1.0) == 1.0);
    CHECK(s.quantize(-3.0) == -127);
    CHECK(s.fake_quantize(-3.0) == -1.0);
    CHECK(s.quantize(3.0) == 127);
    // min_max signed asymmetric 2 bits, [-4, 4]: r = 3, p = 2, codes [-2, 1]
    const QuantParams a = min_max(QuantAlgorithm::min_max_linear, {-4.0}, {4.0}, 2, true, false);
    CHECK(a.code_min() == -2);
    CHECK(a.code_max() == 1);
    CHECK(a.quantize(0.0) == 0);  // 4 / 8 * 3 = 1.5 -> 2, - 2
    CHECK(a.fake_quantize(0.0) == doctest::Approx(4.0 / 3.0));  // 2 / 3 * 8 - 4
    CHECK(a.quantize(-100.0) == -2);
    CHECK(a.fake_quantize(-100.0) == -4.0);
    CHECK(a.quantize(100.0) == 1);
    CHECK(a.fake_quantize(100.0) == 4.0);
    CHECK(a.affine().scale == doctest::Approx(8.0 / 3.0));
    CHECK(a.affine().zero_point == doctest::Approx(-2.0 + 1.5));  // -p - min / scale
}

TEST_CASE("quantization: logarithmic_quantize, hand-computed") {
    // max = 4: m = 2; bits = 2: r = 3; exponents -1..2, values 0.5, 1, 2, 4
    QuantParams p;
    p.algorithm = QuantAlgorithm::logarithmic;
    p.bits = 2;
    p.max = {4.0};
    REQUIRE(!p.check());
    CHECK(p.code_max() == 3);
    CHECK(p.quantize(3.0) == 3);  // log2 3 = 1.58 -> 2, code 2 - (2 - 3)
    CHECK(p.fake_quantize(3.0) == 4.0);
    CHECK(p.fake_quantize(-3.0) == -4.0);
    CHECK(p.fake_quantize(1.2) == 1.0);  // log2 1.2 = 0.26
    CHECK(p.quantize(0.1) == 0);  // saturation low: log2 0.1 = -3.3 -> -1
    CHECK(p.fake_quantize(0.1) == 0.5);
    CHECK(p.fake_quantize(-0.1) == -0.5);
    CHECK(p.fake_quantize(100.0) == 4.0);  // saturation high
    CHECK(p.fake_quantize(0.0) == 0.0);    // sign(0) * 2^q
    CHECK(p.dequantize(0) == 0.5);
    CHECK(p.dequantize(3) == 4.0);
    // max = 5: m = ceil(log2 5) = 3
    p.max = {5.0};
    CHECK(p.fake_quantize(7.0) == 8.0);
    CHECK(p.fake_quantize(0.01) == 1.0);  // exponents 0..3
}

TEST_CASE("quantization: per-channel parameters") {
    // a filter [2, 3]: per-output-channel min/max of shape [2] (broadcast from dimension 0)
    const QuantParams p = min_max(QuantAlgorithm::linear, {0.0, -1.0}, {1.0, 1.0}, 8, false, false, {2});
    CHECK(p.channels() == 2);
    CHECK(p.channel_axis() == 0);
    const std::vector<double> x = {0.5, 0.0, 2.0, 0.0, -2.0, 1.0};
    const std::vector<std::int64_t> codes = nnef::storage::quantize(p, {2, 3}, x);
    // row 0: 0.5 * 255 = 127.5 -> 128; 0; clamped 255. row 1: (0 + 1) / 2 * 255 = 127.5 -> 128; 0; 255
    CHECK(codes == std::vector<std::int64_t>{128, 0, 255, 128, 0, 255});
    const std::vector<double> y = nnef::storage::dequantize(p, {2, 3}, codes);
    CHECK(y[0] == doctest::Approx(128.0 / 255.0));
    CHECK(y[3] == doctest::Approx(128.0 / 255.0 * 2.0 - 1.0));
    CHECK(y[4] == -1.0);
    CHECK(y[5] == 1.0);

    // an activation [1, 2, 2]: per-channel scale of shape [1, 2], zero point per tensor
    QuantParams z;
    z.algorithm = QuantAlgorithm::zero_point_linear;
    z.bits = 8;
    z.is_signed = true;
    z.shape = {1, 2};
    z.scale = {1.0, 0.5};
    z.zero_point = {0, 0};
    REQUIRE(!z.check());
    CHECK(z.channel_axis() == 1);
    const std::vector<float> in = {1.4f, 1.6f, 1.4f, 1.6f}, expect = {1.0f, 2.0f, 1.5f, 1.5f};
    std::vector<float> out(4);
    nnef::storage::fake_quantize(z, {1, 2, 2}, in.data(), out.data());
    CHECK(out == expect);
    // parameters that do not broadcast
    CHECK(!nnef::storage::ChannelMap::make({3}, {2, 3}));
    CHECK(!nnef::storage::ChannelMap::make({1, 2, 5}, {1, 2}));
    CHECK(nnef::storage::ChannelMap::make({1, 2, 1}, {1, 2}));
    CHECK_THROWS_AS(nnef::storage::quantize(p, {3, 2}, x), std::invalid_argument);
}

TEST_CASE("quantization: parameters that cannot apply") {
    QuantParams p = zero_point(1.0, 0, 8, true, false);
    p.scale = {0.0};
    REQUIRE(p.check());
    CHECK(p.check()->find("scale is 0") != std::string::npos);
    p.scale = {1.0};
    p.zero_point = {128};
    REQUIRE(p.check());
    CHECK(p.check()->find("outside the code range [-128, 127]") != std::string::npos);
    p.symmetric = true;
    p.zero_point = {-128};
    CHECK(p.check()->find("[-127, 127]") != std::string::npos);
    p.bits = 63;
    CHECK(p.check()->find("1..62") != std::string::npos);
    QuantParams l = min_max(QuantAlgorithm::linear, {0.0}, {1.0}, 8, false, false);
    l.max = {0.0};
    CHECK(l.check()->find("not less than max") != std::string::npos);
    QuantParams g;
    g.algorithm = QuantAlgorithm::logarithmic;
    g.max = {-1.0};
    CHECK(g.check()->find("positive") != std::string::npos);
}

// ---- graph.quant entries through the Session (stage data, at the entry) ----------------------

struct Model {
    fs::path dir;
    explicit Model(const std::string& name) {
        dir = nnef_test::process_scratch("nnef-quantization-test") / name;
        fs::remove_all(dir);
        fs::create_directories(dir);
    }
    void file(const std::string& name, const std::string& text) const { std::ofstream(dir / name) << text; }
    void tensor(const std::string& name, const nnef::TensorData& t) const {
        REQUIRE(nnef::storage::write_tensor_file((dir / name).string(), t));
    }
};

const char* const graph_text =
    "version 1.0;\n"
    "graph g(x) -> (y)\n"
    "{\n"
    "    x = external<scalar>(shape = [1, 2]);\n"
    "    w = variable<scalar>(shape = [1, 2], label = 'w');\n"
    "    y = add(x, w);\n"
    "}\n";

// Loads the model; returns the diagnostics rendered.
std::string load(const Model& m, bool& ok) {
    nnef::Session s;
    ok = s.load_path(m.dir.string());
    std::string out;
    for (const nnef::Diagnostic& d : s.diagnostics()) out += nnef::render(d, s.sources(), false) + "\n";
    return out;
}

void int8_weights(const Model& m, std::vector<std::int64_t> codes, unsigned bits = 8, bool is_signed = true) {
    auto t = nnef::storage::make_integer_tensor({1, 2}, codes, bits, is_signed, nnef::item_code::quantized_signed);
    if (!is_signed) t = nnef::storage::make_integer_tensor({1, 2}, codes, bits, false, nnef::item_code::quantized_unsigned);
    REQUIRE(t);
    m.tensor("w.dat", **t.value);
}

TEST_CASE("quantization: graph.quant entries are checked at stage data, at their line") {
    const std::string y_ok = "\"y\": zero_point_linear_quantize(zero_point = 0, scale = 0.5, bits = 8, signed = true, symmetric = false);\n";
    SUBCASE("a valid model loads") {
        Model m("valid");
        m.file("graph.nnef", graph_text);
        int8_weights(m, {-128, 127});
        m.file("graph.quant", "# weights\n\"w\": zero_point_linear_quantize(zero_point = 0, scale = 0.25, bits = 8, "
                              "signed = true, symmetric = false);\n" + y_ok);
        bool ok = false;
        const std::string d = load(m, ok);
        CHECK_MESSAGE(ok, d);
    }
    SUBCASE("scale 0") {
        Model m("scale");
        m.file("graph.nnef", graph_text);
        int8_weights(m, {1, 2});
        m.file("graph.quant", y_ok + "\"w\": zero_point_linear_quantize(zero_point = 0, scale = 0.0, bits = 8, signed = true, symmetric = false);\n");
        bool ok = true;
        const std::string d = load(m, ok);
        CHECK(!ok);
        CHECK_MESSAGE(d.find("graph.quant:2:1: error[data]: quantization of 'w' (zero_point_linear_quantize): scale is 0") != std::string::npos, d);
    }
    SUBCASE("a zero point outside the code range") {
        Model m("zero_point");
        m.file("graph.nnef", graph_text);
        int8_weights(m, {1, 2});
        m.file("graph.quant", "\n\n\"y\": zero_point_linear_quantize(zero_point = 200, scale = 0.5, bits = 8, signed = true, symmetric = false);\n");
        bool ok = true;
        const std::string d = load(m, ok);
        CHECK(!ok);
        CHECK_MESSAGE(d.find("graph.quant:3:1: error[data]: quantization of 'y' (zero_point_linear_quantize): zero_point is 200, outside the code range [-128, 127]") != std::string::npos, d);
    }
    SUBCASE("bits that do not fit the stored codes") {
        Model m("bits");
        m.file("graph.nnef", graph_text);
        int8_weights(m, {3, 100});
        m.file("graph.quant", "\"w\": zero_point_linear_quantize(zero_point = 0, scale = 0.5, bits = 4, signed = true, symmetric = false);\n");
        bool ok = true;
        const std::string d = load(m, ok);
        CHECK(!ok);
        CHECK_MESSAGE(d.find("graph.quant:1:1: error[data]: quantization of 'w' (zero_point_linear_quantize): item 1 of the stored 8-bit signed codes is 100, outside the code range [-8, 7]") != std::string::npos, d);
    }
    SUBCASE("signed codes under an unsigned entry") {
        Model m("signedness");
        m.file("graph.nnef", graph_text);
        int8_weights(m, {-1, 2});
        m.file("graph.quant", "\"w\": linear_quantize(min = 0.0, max = 1.0, bits = 8);\n");
        bool ok = true;
        const std::string d = load(m, ok);
        CHECK(!ok);
        CHECK_MESSAGE(d.find("graph.quant:1:1: error[data]: quantization of 'w' (linear_quantize): item 0 of the stored 8-bit signed codes is -1, outside the code range [0, 255]") != std::string::npos, d);
    }
    SUBCASE("an entry for a tensor whose data has the wrong type") {
        Model m("dtype");
        m.file("graph.nnef", graph_text);
        auto t = nnef::storage::make_logical_tensor({1, 2}, {true, false});
        REQUIRE(t);
        m.tensor("w.dat", **t.value);
        m.file("graph.quant", "\"w\": linear_quantize(min = 0.0, max = 1.0, bits = 8);\n");
        bool ok = true;
        const std::string d = load(m, ok);
        CHECK(!ok);
        CHECK_MESSAGE(d.find("graph.quant:1:1: error[data]: quantization of 'w' (linear_quantize): the tensor's data is stored as logical values") != std::string::npos, d);
    }
    SUBCASE("per-channel parameters as arrays; a shape that does not apply") {
        Model m("channels");
        m.file("graph.nnef", graph_text);
        int8_weights(m, {1, 2});
        m.file("graph.quant", "\"w\": zero_point_linear_quantize(zero_point = 0, scale = [[0.5, 0.25]], bits = 8, signed = true, symmetric = false);\n"
                              "\"y\": linear_quantize(min = [0.0, 0.0, 0.0], max = 1.0, bits = 8);\n");
        bool ok = true;
        const std::string d = load(m, ok);
        CHECK(!ok);
        CHECK_MESSAGE(d.find("graph.quant:2:1: error[data]: quantization of 'y' (linear_quantize): parameters of shape [3] do not apply to the tensor's shape [1,2]") != std::string::npos, d);
        CHECK(d.find("graph.quant:1") == std::string::npos);
    }
    SUBCASE("min not below max") {
        Model m("minmax");
        m.file("graph.nnef", graph_text);
        int8_weights(m, {1, 2});
        m.file("graph.quant", "\"x\": min_max_linear_quantize(min = 1.0, max = 1.0, bits = 8, signed = false, symmetric = false);\n");
        bool ok = true;
        const std::string d = load(m, ok);
        CHECK(!ok);
        CHECK_MESSAGE(d.find("graph.quant:1:1: error[data]: quantization of 'x' (min_max_linear_quantize): min (1) is not less than max (1)") != std::string::npos, d);
    }
}

TEST_CASE("quantization: quant_params reads a graph.quant entry") {
    nnef::Quantization q;
    q.algorithm = "zero_point_linear_quantize";
    q.arguments = {{"zero_point", nnef::Value::array({nnef::Value::integer(1), nnef::Value::integer(-2)})},
                   {"scale", nnef::Value::scalar(0.5)},
                   {"bits", nnef::Value::integer(8)},
                   {"signed", nnef::Value::logical(true)},
                   {"symmetric", nnef::Value::logical(false)}};
    auto p = nnef::storage::quant_params(q, "t");
    REQUIRE(p);
    CHECK(p->shape == nnef::Shape{2});
    CHECK(p->scale == std::vector<double>{0.5, 0.5});
    CHECK(p->zero_point == std::vector<std::int64_t>{1, -2});
    CHECK(p->dequantize(3, 1) == 2.5);
    q.arguments[1].second = nnef::Value::array({nnef::Value::scalar(0.5), nnef::Value::scalar(0.5), nnef::Value::scalar(0.5)});
    auto bad = nnef::storage::quant_params(q, "t");
    CHECK(!bad);
    CHECK(bad.diagnostics.begin()->message.find("do not broadcast") != std::string::npos);
    q.algorithm = "my_quantize";
    CHECK(!nnef::storage::quant_params(q, "t"));
}

}  // TEST_SUITE

}  // namespace quantization_test
