// Unit tests of the NNAPI export (lowering/nnapi/from_nnef.hpp): the operations and layouts each
// NNEF operation becomes, fusion, the quantized form, refusals with their messages, the
// getSupportedOperations listing; and numerics: the exported model run by the NNAPI interpreter
// against nnef-run's executor on the same inputs and random weights.
#include <doctest/doctest.h>

#include "common/compare.hpp"
#include "test_support.hpp"

#include <nnef/nnef.hpp>

#include <algorithm>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "exec/executor.hpp"
#include "lowering/nnapi/from_nnef.hpp"
#include "lowering/nnapi/from_nnef_context.hpp"
#include "lowering/nnapi/interpreter.hpp"
#include "lowering/nnapi/model.hpp"

namespace nnapi_export_test {

using namespace nnef;

struct Loaded {
    Session session;
    std::optional<nnapi::Exported> exported;
    Diagnostics diags;
    std::string messages;
};

std::unique_ptr<Loaded> export_text(const std::string& text, const std::string& quant = "") {
    auto l = std::make_unique<Loaded>();
    const bool loaded = quant.empty() ? l->session.load_text("test.nnef", text) : l->session.load_text("test.nnef", text, "graph.quant", quant);
    REQUIRE_MESSAGE(loaded, "the test document does not load");
    nnapi::ExportOptions eo;
    eo.random_weights = 1;
    l->exported = nnapi::export_model(*l->session.graph(), eo, l->diags);
    if (l->exported) nnapi::validate(l->exported->model, l->diags);
    for (const Diagnostic& d : l->diags) l->messages += render(d, l->session.sources(), false);
    return l;
}

std::map<std::string, int> histogram(const nnapi::Model& m) {
    std::map<std::string, int> h;
    for (const nnapi::Operation& op : m.operations) ++h[nnapi::to_string(op.type)];
    return h;
}

// The last input of operation i (its fused activation code), as an int32 scalar constant.
std::int32_t activation(const nnapi::Model& m, std::size_t i) {
    const nnapi::Operand& o = m.operands.at(m.operations.at(i).inputs.back());
    auto bytes = nnapi::constant_bytes(m, o);
    REQUIRE(bytes);
    std::int32_t v = 0;
    std::copy(bytes->begin(), bytes->begin() + 4, reinterpret_cast<std::uint8_t*>(&v));
    return v;
}

// The exported model run by the NNAPI interpreter against nnef-run's executor (same random input
// and weights, graph.quant simulated); the comparison of the first output.
nnef_test::Comparison run_both(Loaded& l, std::string& why) {
    nnef_test::Comparison c;
    const Graph& g = *l.session.graph();
    exec::ExecOptions eo;
    eo.random_weights = 1;
    auto ex = exec::Executor::create(g, eo);
    REQUIRE(ex);
    std::vector<nnapi::Tensor> inputs;
    for (std::size_t i = 0; i < g.inputs.size(); ++i) {
        const nnef::Tensor& t = *g.tensor(g.inputs[i]);
        const exec::TensorValue v = exec::random_tensor(t.dtype, *t.shape, 11 + i);
        Diagnostics d;
        REQUIRE((*ex.value)->set_input(t.name, v, d));
        std::optional<storage::QuantParams> p;
        if (t.quantization) p = *storage::quant_params(*t.quantization, t.name).value;
        inputs.push_back(nnapi::to_operand_value(l.exported->model, l.exported->inputs[i], *t.shape, v.to_doubles(), p ? &*p : nullptr));
    }
    Diagnostics d;
    REQUIRE((*ex.value)->run(d));
    std::optional<std::vector<nnapi::Tensor>> outs = nnapi::run(l.exported->model, inputs, d);
    for (const Diagnostic& x : d) why += render(x, l.session.sources(), false);
    if (!outs) return c;
    const nnef::Tensor& t = *g.tensor(g.outputs[0]);
    std::optional<storage::QuantParams> p;
    if (t.quantization) p = *storage::quant_params(*t.quantization, t.name).value;
    const std::vector<double> got = nnapi::from_operand_value(l.exported->outputs[0], *t.shape, outs->at(0), p ? &*p : nullptr);
    c.add(got, (*ex.value)->tensor(t.name)->to_doubles());
    return c;
}

// Exports `graph` float and then quantized by `quant`: `check` looks at each model, and its values
// are nnef-run's (float: relative L2 1e-6; quantized: within one step `step` of the output's grid).
void float_and_quantized(const std::string& graph, const std::string& quant, double step,
                         const std::function<void(const nnapi::Model&, bool quantized)>& check) {
    for (bool quantized : {false, true}) {
        CAPTURE(quantized);
        auto l = export_text(graph, quantized ? quant : "");
        REQUIRE_MESSAGE(l->exported, l->messages);
        check(l->exported->model, quantized);
        std::string why;
        const nnef_test::Comparison c = run_both(*l, why);
        if (quantized)
            CHECK_MESSAGE(c.max_abs_within(step * 1.0001), why << c.summary());
        else
            CHECK_MESSAGE(c.rel_l2_within(1e-6), why << c.summary());
    }
}

// graph.quant text `quant` with its placeholder SCALE replaced by `scale`.
std::string with_scale(const std::string& quant, const std::string& scale) {
    const std::size_t at = quant.find("SCALE");
    return quant.substr(0, at) + scale + quant.substr(at + 5);
}

const std::string conv_relu = R"(version 1.0;
graph G( x ) -> ( y )
{
    x = external<scalar>(shape = [1, 3, 8, 8]);
    w = variable<scalar>(shape = [4, 3, 3, 3], label = 'w');
    b = variable<scalar>(shape = [1, 4], label = 'b');
    c = conv(x, w, b, padding = [(1, 1), (1, 1)], stride = [2, 2]);
    y = relu(c);
}
)";

TEST_SUITE("nnapi") {

TEST_CASE("export: conv + relu is one CONV_2D with the RELU code, NHWC, filter [O, H, W, I]") {
    auto l = export_text(conv_relu);
    REQUIRE_MESSAGE(l->exported, l->messages);
    const nnapi::Model& m = l->exported->model;
    REQUIRE(m.operations.size() == 1);
    CHECK(m.operations[0].type == nnapi::OperationType::CONV_2D);
    CHECK(m.operations[0].inputs.size() == 10);
    CHECK(activation(m, 0) == int(nnapi::FusedActivationFunc::RELU));
    CHECK(m.operands.at(m.inputIndexes[0]).dimensions == std::vector<std::uint32_t>{1, 8, 8, 3});
    CHECK(m.operands.at(m.operations[0].inputs[1]).dimensions == std::vector<std::uint32_t>{4, 3, 3, 3});
    CHECK(m.operands.at(m.outputIndexes[0]).dimensions == std::vector<std::uint32_t>{1, 4, 4, 4});
    CHECK(l->exported->outputs[0].nhwc);
    std::string why;
    const nnef_test::Comparison c = run_both(*l, why);
    CHECK_MESSAGE(c.rel_l2_within(1e-6), why << c.summary());
}

TEST_CASE("export: depthwise conv, clamp(0, 6) fused as RELU6, mean_reduce as AVERAGE_POOL_2D, flatten + linear") {
    auto l = export_text(R"(version 1.0;
graph G( x ) -> ( y )
{
    x = external<scalar>(shape = [1, 4, 6, 6]);
    w = variable<scalar>(shape = [8, 1, 3, 3], label = 'w');
    c = conv(x, w, 0.0, padding = [(1, 1), (1, 1)], groups = 4);
    r = clamp(c, 0.0, 6.0);
    p = max_pool(r, size = [1, 1, 2, 2], stride = [1, 1, 2, 2], border = 'ignore');
    f = reshape(p, shape = [1, 72]);
    fw = variable<scalar>(shape = [5, 72], label = 'fw');
    fb = variable<scalar>(shape = [1, 5], label = 'fb');
    y = linear(f, fw, fb);
}
)");
    REQUIRE_MESSAGE(l->exported, l->messages);
    const nnapi::Model& m = l->exported->model;
    const auto h = histogram(m);
    CHECK(h.at("DEPTHWISE_CONV_2D") == 1);
    CHECK(h.at("MAX_POOL_2D") == 1);
    CHECK(h.at("RESHAPE") == 1);
    CHECK(h.at("FULLY_CONNECTED") == 1);
    CHECK(h.size() == 4);  // no RELU6 of its own
    CHECK(activation(m, 0) == int(nnapi::FusedActivationFunc::RELU6));
    CHECK(m.operands.at(m.operations[0].inputs[1]).dimensions == std::vector<std::uint32_t>{1, 3, 3, 8});
    std::string why;
    const nnef_test::Comparison c = run_both(*l, why);
    CHECK_MESSAGE(c.rel_l2_within(1e-6), why << c.summary());

    auto mean = export_text(R"(version 1.0;
graph G( x ) -> ( y )
{
    x = external<scalar>(shape = [1, 4, 5, 5]);
    m = mean_reduce(x, axes = [2, 3]);
    y = reshape(m, shape = [1, 4]);
}
)");
    REQUIRE_MESSAGE(mean->exported, mean->messages);
    CHECK(mean->exported->model.operations.front().type == nnapi::OperationType::AVERAGE_POOL_2D);
    const nnef_test::Comparison cm = run_both(*mean, why);
    CHECK_MESSAGE(cm.rel_l2_within(1e-6), why << cm.summary());
}

TEST_CASE("export: a grouped conv is one CONV_2D of a block-diagonal filter, float and quantized") {
    const std::string graph = R"(version 1.0;
graph G( x ) -> ( y )
{
    x = external<scalar>(shape = [1, 4, 7, 7]);
    w = variable<scalar>(shape = [6, 2, 3, 3], label = 'w');
    b = variable<scalar>(shape = [1, 6], label = 'b');
    y = conv(x, w, b, padding = [(1, 1), (1, 1)], stride = [2, 2], groups = 2);
}
)";
    const std::string quant = R"(
"x": zero_point_linear_quantize(zero_point = -5, scale = 0.03, bits = 8, signed = true, symmetric = false);
"w": zero_point_linear_quantize(zero_point = 0, scale = 0.01, bits = 8, signed = true, symmetric = true);
"y": zero_point_linear_quantize(zero_point = 3, scale = 0.01, bits = 8, signed = true, symmetric = false);
)";
    float_and_quantized(graph, quant, 0.01, [](const nnapi::Model& m, bool quantized) {
        REQUIRE(m.operations.size() == 1);
        CHECK(m.operations[0].type == nnapi::OperationType::CONV_2D);
        const nnapi::Operand& f = m.operands.at(m.operations[0].inputs[1]);
        REQUIRE(f.dimensions == std::vector<std::uint32_t>{6, 3, 3, 4});
        auto bytes = nnapi::constant_bytes(m, f);
        REQUIRE(bytes);
        // output channels 0-2 read input channels 0-1 only, 3-5 channels 2-3; the other weights are zero
        std::size_t zeros = 0, others = 0;
        for (std::size_t i = 0; i < 6 * 9; ++i)
            for (std::size_t c = 0; c < 4; ++c) {
                const bool inside = c / 2 == i / 9 / 3;
                const std::size_t at = i * 4 + c;
                const bool zero = quantized ? (*bytes)[at] == f.zeroPoint
                                            : std::all_of(bytes->begin() + long(at * 4), bytes->begin() + long(at * 4 + 4), [](std::uint8_t b) { return b == 0; });
                (inside ? others : zeros) += inside ? !zero : zero;
            }
        CHECK(zeros == 6 * 9 * 2);
        CHECK(others >= 6 * 9 * 2 - 4);  // random weights: hardly any is zero (a code may be)
    });
}

TEST_CASE("export: avg_pool with border 'ignore' and padding is AVERAGE_POOL_2D with explicit padding") {
    auto l = export_text(R"(version 1.0;
graph G( x ) -> ( y )
{
    x = external<scalar>(shape = [1, 2, 5, 5]);
    y = avg_pool(x, size = [1, 1, 3, 3], stride = [1, 1, 2, 2], padding = [(0, 0), (0, 0), (1, 1), (1, 1)], border = 'ignore');
}
)");
    REQUIRE_MESSAGE(l->exported, l->messages);
    REQUIRE(l->exported->model.operations.size() == 1);
    CHECK(l->exported->model.operations[0].type == nnapi::OperationType::AVERAGE_POOL_2D);
    CHECK(l->exported->model.operations[0].inputs.size() == 10);
    std::string why;
    const nnef_test::Comparison c = run_both(*l, why);
    CHECK_MESSAGE(c.rel_l2_within(1e-6), why << c.summary());
}

TEST_CASE("export: a zero pad folds into the conv or the average counting zeros that reads it (a DEPTHWISE_CONV_2D by 1/9)") {
    // Inception-v3's pad before avg_pool(border = 'ignore'), an avg_pool counting its own padding,
    // and a pad before a conv with padding of its own
    const std::string graph = R"(version 1.0;
graph G( x ) -> ( y )
{
    x = external<scalar>(shape = [1, 3, 6, 7]);
    p = pad(x, padding = [(0, 0), (0, 0), (1, 1), (1, 1)], border = 'constant', value = 0.0);
    a = avg_pool(p, size = [1, 1, 3, 3], stride = [1, 1, 1, 1], padding = [(0, 0), (0, 0), (0, 0), (0, 0)], border = 'ignore');
    b = avg_pool(a, size = [1, 1, 3, 3], stride = [1, 1, 2, 2], padding = [(0, 0), (0, 0), (1, 0), (1, 1)], border = 'constant');
    q = pad(b, padding = [(0, 0), (0, 0), (2, 0), (0, 1)]);
    w = variable<scalar>(shape = [4, 3, 3, 3], label = 'w');
    y = conv(q, w, 0.0, padding = [(1, 1), (0, 1)]);
}
)";
    const std::string quant = R"(
"x": zero_point_linear_quantize(zero_point = -20, scale = 0.03, bits = 8, signed = true, symmetric = false);
"p": zero_point_linear_quantize(zero_point = -20, scale = 0.03, bits = 8, signed = true, symmetric = false);
"a": zero_point_linear_quantize(zero_point = -10, scale = 0.011, bits = 8, signed = true, symmetric = false);
"b": zero_point_linear_quantize(zero_point = 7, scale = 0.0053, bits = 8, signed = true, symmetric = false);
"q": zero_point_linear_quantize(zero_point = 7, scale = 0.0053, bits = 8, signed = true, symmetric = false);
"w": zero_point_linear_quantize(zero_point = 0, scale = 0.01, bits = 8, signed = true, symmetric = true);
"y": zero_point_linear_quantize(zero_point = 0, scale = 0.0004, bits = 8, signed = true, symmetric = false);
)";
    float_and_quantized(graph, quant, 0.0004, [](const nnapi::Model& m, bool) {
        CHECK(histogram(m) == std::map<std::string, int>{{"CONV_2D", 1}, {"DEPTHWISE_CONV_2D", 2}});
        // explicit padding: left, right, top, bottom
        auto scalars = [&](std::size_t i) {
            std::vector<std::int32_t> v;
            for (std::size_t k = 3; k < 7; ++k) {
                auto bytes = nnapi::constant_bytes(m, m.operands.at(m.operations.at(i).inputs.at(k)));
                REQUIRE(bytes);
                std::int32_t x = 0;
                std::copy(bytes->begin(), bytes->begin() + 4, reinterpret_cast<std::uint8_t*>(&x));
                v.push_back(x);
            }
            return v;
        };
        CHECK(scalars(0) == std::vector<std::int32_t>{1, 1, 1, 1});  // the pad's
        CHECK(scalars(1) == std::vector<std::int32_t>{1, 1, 1, 0});  // b's own
        CHECK(scalars(2) == std::vector<std::int32_t>{0, 2, 3, 1});  // q's and the conv's
    });
}

TEST_CASE("export: a channel shuffle and channel slices become 1x1 CONV_2D selections") {
    auto l = export_text(R"(version 1.0;
graph G( x ) -> ( y )
{
    x = external<scalar>(shape = [1, 6, 3, 3]);
    r = reshape(x, shape = [1, 2, 3, 3, 3]);
    t = transpose(r, axes = [0, 2, 1, 3, 4]);
    s = reshape(t, shape = [1, 6, 3, 3]);
    a = slice(s, axes = [1], begin = [0], end = [3]);
    b = slice(s, axes = [1], begin = [3], end = [6]);
    y = add(a, b);
}
)");
    REQUIRE_MESSAGE(l->exported, l->messages);
    const auto h = histogram(l->exported->model);
    CHECK(h.at("CONV_2D") == 2);
    CHECK(h.at("ADD") == 1);
    std::string why;
    const nnef_test::Comparison c = run_both(*l, why);
    CHECK_MESSAGE(c.exact(), why << c.summary());
}

TEST_CASE("export: batch_normalization is MUL then ADD, and a relu after the ADD fuses") {
    auto l = export_text(R"(version 1.0;
graph G( x ) -> ( y )
{
    x = external<scalar>(shape = [1, 3, 4, 4]);
    m = variable<scalar>(shape = [1, 3], label = 'm');
    v = variable<scalar>(shape = [1, 3], label = 'v');
    o = variable<scalar>(shape = [1, 3], label = 'o');
    s = variable<scalar>(shape = [1, 3], label = 's');
    n = batch_normalization(x, m, v, o, s, epsilon = 0.001);
    y = relu(n);
}
)");
    REQUIRE_MESSAGE(l->exported, l->messages);
    const nnapi::Model& m = l->exported->model;
    REQUIRE(m.operations.size() == 2);
    CHECK(m.operations[0].type == nnapi::OperationType::MUL);
    CHECK(m.operations[1].type == nnapi::OperationType::ADD);
    CHECK(activation(m, 1) == int(nnapi::FusedActivationFunc::RELU));
    std::string why;
    const nnef_test::Comparison c = run_both(*l, why);
    CHECK_MESSAGE(c.rel_l2_within(1e-6), why << c.summary());
}

TEST_CASE("export: a quantized graph becomes TENSOR_QUANT8_ASYMM with shifted codes and the bias rule") {
    const std::string quant = R"(
"x": zero_point_linear_quantize(zero_point = -5, scale = 0.03, bits = 8, signed = true, symmetric = false);
"w": zero_point_linear_quantize(zero_point = 0, scale = 0.01, bits = 8, signed = true, symmetric = true);
"c": zero_point_linear_quantize(zero_point = 3, scale = 0.05, bits = 8, signed = true, symmetric = false);
"y": zero_point_linear_quantize(zero_point = -128, scale = 0.025, bits = 8, signed = true, symmetric = false);
)";
    auto l = export_text(conv_relu, quant);
    REQUIRE_MESSAGE(l->exported, l->messages);
    const nnapi::Model& m = l->exported->model;
    for (const nnapi::Operand& o : m.operands)
        CHECK((o.type == nnapi::OperandType::TENSOR_QUANT8_ASYMM || o.type == nnapi::OperandType::TENSOR_INT32 ||
               o.type == nnapi::OperandType::INT32));
    const nnapi::Operand& in = m.operands.at(m.inputIndexes[0]);
    CHECK(in.zeroPoint == 123);
    CHECK(in.scale == doctest::Approx(0.03));
    // conv onto c's grid, then the relu onto y's grid: an identity DEPTHWISE_CONV_2D with RELU
    REQUIRE(m.operations.size() == 2);
    CHECK(m.operations[0].type == nnapi::OperationType::CONV_2D);
    CHECK(m.operations[1].type == nnapi::OperationType::DEPTHWISE_CONV_2D);
    CHECK(activation(m, 1) == int(nnapi::FusedActivationFunc::RELU));
    const nnapi::Operand& bias = m.operands.at(m.operations[0].inputs[2]);
    CHECK(bias.type == nnapi::OperandType::TENSOR_INT32);
    CHECK(bias.scale == in.scale * m.operands.at(m.operations[0].inputs[1]).scale);
    CHECK(m.operands.at(m.operations[0].inputs[1]).zeroPoint == 128);
    std::string why;
    const nnef_test::Comparison c = run_both(*l, why);
    // within one code of y's grid
    CHECK_MESSAGE(c.max_abs_within(0.025 * 1.0001), why << c.summary());
}

TEST_CASE("export: a quantized graph's literals (hard-swish's 3.0 and 1/6) are constants on grids of their own that hold them") {
    const std::string graph = R"(version 1.0;
graph G( x ) -> ( y )
{
    x = external<scalar>(shape = [1, 4, 6, 6]);
    a = add(x, 3.0);
    r = clamp(a, 0.0, 6.0);
    s = mul(r, 0.1666666716337204);
    h = mul(x, s);
    y = add(h, -2.5);
}
)";
    const std::string quant = R"(
"x": zero_point_linear_quantize(zero_point = -6, scale = 0.0255, bits = 8, signed = true, symmetric = false);
"a": zero_point_linear_quantize(zero_point = -123, scale = 0.0255, bits = 8, signed = true, symmetric = false);
"r": zero_point_linear_quantize(zero_point = -128, scale = 0.0235294, bits = 8, signed = true, symmetric = false);
"s": zero_point_linear_quantize(zero_point = -128, scale = 0.00392157, bits = 8, signed = true, symmetric = false);
"h": zero_point_linear_quantize(zero_point = -103, scale = 0.0148, bits = 8, signed = true, symmetric = false);
"y": zero_point_linear_quantize(zero_point = 40, scale = 0.0148, bits = 8, signed = true, symmetric = false);
)";
    auto l = export_text(graph, quant);
    REQUIRE_MESSAGE(l->exported, l->messages);
    const nnapi::Model& m = l->exported->model;
    // each literal: one code, 255 for 3.0 and 1/6 (zero point 0), 0 for -2.5 (zero point 255), so
    // that (code - zeroPoint) * scale is the literal
    std::map<double, int> literals;
    for (const nnapi::Operation& op : m.operations)
        for (std::uint32_t i : op.inputs) {
            if (op.type != nnapi::OperationType::ADD && op.type != nnapi::OperationType::MUL) continue;
            const nnapi::Operand& o = m.operands.at(i);
            if (o.type != nnapi::OperandType::TENSOR_QUANT8_ASYMM || o.lifetime != nnapi::OperandLifeTime::CONSTANT_COPY) continue;
            auto bytes = nnapi::constant_bytes(m, o);
            REQUIRE(bytes);
            REQUIRE(bytes->size() == 1);
            const double real = (double((*bytes)[0]) - o.zeroPoint) * o.scale;
            ++literals[std::round(real * 1e6) / 1e6];
            CHECK(real == doctest::Approx(real > 0 ? (real > 1 ? 3.0 : 1.0 / 6.0) : -2.5).epsilon(1e-7));
        }
    CHECK(literals == std::map<double, int>{{-2.5, 1}, {0.166667, 1}, {3.0, 1}});
    std::string why;
    const nnef_test::Comparison c = run_both(*l, why);
    // the quantized steps round as nnef-run's simulated quantization does, within two of y's codes
    CHECK_MESSAGE(c.max_abs_within(2 * 0.0148 * 1.0001), why << c.summary());

    // a constant of several values without a graph.quant entry would be rounded to 256 levels: refused
    auto k = export_text(R"(version 1.0;
graph G( x ) -> ( y )
{
    x = external<scalar>(shape = [1, 4, 6, 6]);
    k = constant<scalar>(shape = [1, 4, 1, 1], value = [1.0, 2.0, 3.0, 4.0]);
    y = add(x, k);
}
)", "\"x\": zero_point_linear_quantize(zero_point = 0, scale = 0.05, bits = 8, signed = true, symmetric = false);\n"
        "\"y\": zero_point_linear_quantize(zero_point = 0, scale = 0.05, bits = 8, signed = true, symmetric = false);\n");
    CHECK_FALSE(k->exported);
    CHECK_MESSAGE(k->messages.find("constant 'k' has no quantization (no graph.quant entry) and is not one finite value in every item") !=
                      std::string::npos,
                  k->messages);
}

TEST_CASE("export: a quantized sigmoid on a grid of its own is LOGISTIC on 1/256, then requantized: within one code, with a warning") {
    const std::string graph = R"(version 1.0;
graph G( x ) -> ( y )
{
    x = external<scalar>(shape = [1, 4, 6, 6]);
    s = sigmoid(x);
    y = mul(x, s);
}
)";
    const std::string quant = R"(
"x": zero_point_linear_quantize(zero_point = 0, scale = 0.04, bits = 8, signed = true, symmetric = false);
"s": zero_point_linear_quantize(zero_point = -128, scale = SCALE, bits = 8, signed = true, symmetric = false);
"y": zero_point_linear_quantize(zero_point = -20, scale = 0.02, bits = 8, signed = true, symmetric = false);
)";
    auto l = export_text(graph, with_scale(quant, "0.0025"));  // a step under 1/256, above 1/512
    REQUIRE_MESSAGE(l->exported, l->messages);
    const nnapi::Model& m = l->exported->model;
    REQUIRE(m.operations.size() == 3);
    CHECK(m.operations[0].type == nnapi::OperationType::LOGISTIC);
    const nnapi::Operand& fixed = m.operands.at(m.operations[0].outputs[0]);
    CHECK(fixed.scale == 1.0f / 256.0f);
    CHECK(fixed.zeroPoint == 0);
    CHECK(m.operations[1].type == nnapi::OperationType::DEPTHWISE_CONV_2D);  // onto s's grid
    CHECK(m.operands.at(m.operations[1].outputs[0]).scale == 0.0025f);
    CHECK_MESSAGE(l->messages.find("warning[nnapi]: 1 sigmoid or softmax result(s) ('s' first) round twice") != std::string::npos, l->messages);
    std::string why;
    const nnef_test::Comparison c = run_both(*l, why);
    CHECK_MESSAGE(c.max_abs_within(0.02 * 1.0001), why << c.summary());  // within one code of y's grid

    auto fine = export_text(graph, with_scale(quant, "0.0019"));  // 1/512 is 0.00195
    CHECK_FALSE(fine->exported);
    CHECK_MESSAGE(fine->messages.find("graph.quant's for 's' has a step of 1/512 or less (scale 0.001900)") != std::string::npos, fine->messages);
}

TEST_CASE("export: a bias beyond int32 at input scale times filter scale is refused, not clamped") {
    // a collapsed activation's grid (zoo GoogLeNet int8 with random weights: scale 3.9e-9 before
    // its classifier): the bias rule puts 0.5 at 0.5 / (3.9e-9 * 0.004) steps, beyond int32
    const std::string graph = R"(version 1.0;
graph G( x ) -> ( y )
{
    x = external<scalar>(shape = [1, 8]);
    w = variable<scalar>(shape = [4, 8], label = 'w');
    b = constant<scalar>(shape = [1, 4], value = [0.5, -0.25, 0.125, 0.0]);
    y = linear(x, w, b);
}
)";
    const std::string quant = R"(
"x": zero_point_linear_quantize(zero_point = -128, scale = SCALE, bits = 8, signed = true, symmetric = false);
"w": zero_point_linear_quantize(zero_point = 0, scale = 0.004, bits = 8, signed = true, symmetric = true);
"y": zero_point_linear_quantize(zero_point = 0, scale = 0.005, bits = 8, signed = true, symmetric = false);
)";
    auto fine = export_text(graph, with_scale(quant, "3.9e-9"));
    CHECK_FALSE(fine->exported);
    CHECK_MESSAGE(fine->messages.find("operation 'linear' cannot be expressed in NNAPI 1.0: its bias 0.5 (item 0) is 3.20513e+10 steps of input scale "
                                      "times filter scale (3.9e-09 x 0.004), beyond the TENSOR_INT32") != std::string::npos,
                  fine->messages);
    auto usual = export_text(graph, with_scale(quant, "0.01"));
    REQUIRE_MESSAGE(usual->exported, usual->messages);
    std::string why;
    const nnef_test::Comparison c = run_both(*usual, why);
    CHECK_MESSAGE(c.max_abs_within(0.005 * 1.0001), why << c.summary());
}

TEST_CASE("export: what NNAPI 1.0 cannot express is refused with the operation, its line and why") {
    struct Case {
        const char* name;
        std::string text;
        const char* message;
    };
    const std::string head = "version 1.0;\ngraph G( x ) -> ( y )\n{\n    x = external<scalar>(shape = [1, 4, 6, 6]);\n";
    const std::vector<Case> cases = {
        {"dilation", head + "    w = variable<scalar>(shape = [4, 4, 3, 3], label = 'w');\n    y = conv(x, w, 0.0, dilation = [2, 2]);\n}\n",
         "test.nnef:6:9: error[nnapi]: operation 'conv' cannot be expressed in NNAPI 1.0: its dilation is 2, 2"},
        {"border", head + "    y = max_pool(x, size = [1, 1, 3, 3], padding = [(0, 0), (0, 0), (1, 1), (1, 1)], border = 'constant');\n}\n",
         "operation 'max_pool' cannot be expressed in NNAPI 1.0: border 'constant' with padding"},
        {"pad read twice", head + "    p = pad(x, padding = [(0, 0), (0, 0), (1, 1), (1, 1)]);\n    y = avg_pool(p, size = [1, 1, 3, 3]);\n    z = add(p, p);\n}\n",
         "operation 'pad' cannot be expressed in NNAPI 1.0: padding 1, 1: NNAPI 1.0 has no pad operation (a zero pad of H and W folds into "
         "the conv or average pooling counting zeros that alone reads it; this one has 3 readers)"},
        {"pad before max_pool", head + "    p = pad(x, padding = [(0, 0), (0, 0), (1, 1), (1, 1)]);\n    y = max_pool(p, size = [1, 1, 3, 3]);\n}\n",
         "this one is read by 'max_pool')"},
        {"pad of channels", head + "    p = pad(x, padding = [(0, 0), (1, 0), (1, 1), (1, 1)]);\n    y = avg_pool(p, size = [1, 1, 3, 3]);\n}\n",
         "this one pads axes other than H and W"},
        {"no operation", head + "    y = exp(x);\n}\n", "operation 'exp' cannot be expressed in NNAPI 1.0: NNAPI 1.0 has no operation that computes it"},
        {"transpose", head + "    y = transpose(x, axes = [0, 2, 3, 1]);\n}\n",
         "operation 'transpose' cannot be expressed in NNAPI 1.0: 'y' (made by 'transpose') rearranges an activation other than by picking channels"},
        {"rank 5", head + "    y = reshape(x, shape = [1, 2, 2, 6, 6]);\n}\n", "'y' (made by 'reshape') has rank 5 (NNAPI 1.0 tensors have rank 4 at most)"},
    };
    for (const Case& k : cases) {
        CAPTURE(k.name);
        auto l = export_text(k.text);
        CHECK_FALSE(l->exported);
        CHECK_MESSAGE(l->messages.find(k.message) != std::string::npos, l->messages);
    }
}

TEST_CASE("supported_operations answers per operation, judging each alone") {
    Session s;
    REQUIRE(s.load_text("test.nnef", R"(version 1.0;
graph G( x ) -> ( y )
{
    x = external<scalar>(shape = [1, 4, 6, 6]);
    a = relu(x);
    b = exp(a);
    y = relu(b);
}
)"));
    nnapi::ExportOptions eo;
    const std::vector<nnapi::OperationSupport> list = nnapi::supported_operations(*s.graph(), eo);
    REQUIRE(list.size() == 4);
    CHECK(list[0].op == "external");
    CHECK(list[0].supported);
    CHECK(list[1].supported);
    CHECK_FALSE(list[2].supported);
    CHECK(list[2].why.find("NNAPI 1.0 has no operation") != std::string::npos);
    CHECK(list[3].supported);
    CHECK(s.sources().begin(list[2].range).line == 6);
}

TEST_CASE("export: the pool holds exactly the large constants, each where its operand says, and without them there is no pool") {
    // (the export reserves pool 0 at the start for the variables and drops it unused at the end;
    // filters are written in place in their NNAPI layout, checked by value in the cases above)
    auto l = export_text(conv_relu);
    REQUIRE_MESSAGE(l->exported, l->messages);
    const nnapi::Model& m = l->exported->model;
    REQUIRE(m.pools.size() == 1);
    std::size_t end = 0, references = 0;
    for (const nnapi::Operand& o : m.operands)
        if (o.lifetime == nnapi::OperandLifeTime::CONSTANT_REFERENCE) {
            ++references;
            CHECK(o.location.poolIndex == 0);
            CHECK(o.location.offset % 4 == 0);
            end = std::max<std::size_t>(end, std::size_t(o.location.offset) + o.location.length);
        }
    CHECK(references == 1);  // the filter, 4 x 3 x 3 x 3 floats; the bias (16 bytes) is inline
    CHECK(end == 4 * 27 * 4);
    CHECK(m.pools[0].data.size() == end);

    auto small = export_text(R"(version 1.0;
graph G( x ) -> ( y )
{
    x = external<scalar>(shape = [1, 4, 6, 6]);
    w = variable<scalar>(shape = [4, 1, 1, 1], label = 'w');
    y = conv(x, w, 0.0, groups = 4);
}
)");
    REQUIRE_MESSAGE(small->exported, small->messages);
    CHECK(small->exported->model.pools.empty());
    CHECK_FALSE(small->exported->model.operandValues.empty());

    // a constant written in place: inline up to kMaxInlineConstantBytes, aligned to 4, else in pool 0
    nnapi::Model b;
    const std::uint8_t one = 7;
    nnapi::add_constant(b, nnapi::OperandType::TENSOR_QUANT8_ASYMM, {1}, &one, 1, 0.5f, 0);
    const std::uint32_t k = nnapi::add_constant_filled(b, nnapi::OperandType::TENSOR_INT32, {2}, 8, [](std::uint8_t* to) {
        for (int i = 0; i < 8; ++i) to[i] = std::uint8_t(i + 1);
    }, 0.25f);
    CHECK(b.operands[k].lifetime == nnapi::OperandLifeTime::CONSTANT_COPY);
    CHECK(b.operands[k].location.offset == 4);
    CHECK(b.operandValues == std::vector<std::uint8_t>{7, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8});
    const std::uint32_t big = nnapi::add_constant_filled(b, nnapi::OperandType::TENSOR_FLOAT32, {64}, 256, [](std::uint8_t* to) {
        for (int i = 0; i < 256; ++i) to[i] = std::uint8_t(255 - i);
    });
    CHECK(b.operands[big].lifetime == nnapi::OperandLifeTime::CONSTANT_REFERENCE);
    REQUIRE(b.pools.size() == 1);
    CHECK(b.pools[0].data.size() == 256);
    CHECK(b.pools[0].data[0] == 255);
    CHECK(b.pools[0].data[255] == 0);
}

TEST_CASE("export: weights stored as codes are held as codes and dequantized per channel when read") {
    // (the export holds an int8 model's stored weights so, 4 bytes each; its results are those of
    // the values dequantized ahead, as the corpus's int8 models' exports show byte for byte)
    storage::QuantParams p;
    p.algorithm = storage::QuantAlgorithm::zero_point_linear;
    p.is_signed = true;
    p.shape = {1, 3};
    p.scale = {0.5, 0.25, 2.0};
    p.zero_point = {1, -2, 0};
    const Shape shape{2, 3, 2};
    const std::vector<std::int64_t> codes{-128, -1, 0, 1, 127, 5, 9, -7, 3, 100, -100, 64};
    nnapi::from_nnef::Constant k;
    k.shape = shape;
    k.codes.assign(codes.begin(), codes.end());
    k.dequantization = std::make_shared<const nnapi::from_nnef::Constant::Dequantization>(
        nnapi::from_nnef::Constant::Dequantization{p, storage::channel_map(p, shape)});
    const std::vector<double> expected = storage::dequantize(p, shape, codes);
    REQUIRE(k.count() == codes.size());
    for (std::size_t i = 0; i < codes.size(); ++i) CHECK(k.value(i) == expected[i]);
    CHECK(k.doubles() == expected);
    CHECK(k.value(2) == 0.25 * (0 + 2));  // item 2: channel 1 of axis 1
    CHECK(k.value(11) == 2.0 * 64);       // item 11: channel 2
    // parameters that do not broadcast to the tensor: the error quantize and dequantize give
    CHECK_THROWS_WITH_AS(storage::channel_map(p, Shape{2, 4}), doctest::Contains("do not broadcast"), std::invalid_argument);
}

TEST_CASE("every exported operation is a standard NNEF operation") {
    for (const std::string& op : nnapi::exported_operations()) {
        CAPTURE(op);
        CHECK(OpRegistry::standard().find(op) != nullptr);
    }
}

}  // TEST_SUITE

}  // namespace nnapi_export_test
