// Lowering NNEF to TOSA: the structure of the legalized graph on small documents (padding
// arithmetic computed by hand), errors for operations without a TOSA form, the layout passes, and
// the random weights shared with nnef-run.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <string>

#include <nnef/nnef.hpp>

#include "exec/executor.hpp"
#include "storage/random_data.hpp"
#include "lowering/tosa/from_nnef.hpp"
#include "test_support.hpp"

namespace legalize_test {

using namespace nnef::tosa;
using nnef::Shape;

struct Lowered {
    nnef::Session session;
    std::optional<Graph> graph;
    nnef::Diagnostics diags;
    std::string messages;
};

// Loads `text` and lowers it (random weights, seed 1, unless told otherwise).
std::unique_ptr<Lowered> lower_text(const std::string& text, LowerOptions options = {}) {
    auto l = std::make_unique<Lowered>();
    REQUIRE_MESSAGE(l->session.load_text("test.nnef", text), "the test document does not load");
    if (!options.random_weights) options.random_weights = 1;
    l->graph = lower_to_tosa(*l->session.graph(), options, l->diags);
    for (const nnef::Diagnostic& d : l->diags) l->messages += nnef::render(d, l->session.sources(), false);
    return l;
}

std::vector<const Op*> ops_of(const Graph& g, OpKind kind) {
    std::vector<const Op*> out;
    for (const Op& op : g.main().ops)
        if (op.kind == kind) out.push_back(&op);
    return out;
}

std::size_t count(const Graph& g, OpKind kind) { return ops_of(g, kind).size(); }

std::string conv_document(const std::string& input, const std::string& filter, const std::string& args) {
    return "version 1.0;\ngraph G( x ) -> ( y )\n{\n    x = external<scalar>(shape = " + input +
           ");\n    f = variable<scalar>(shape = " + filter + ", label = 'f');\n    y = conv(x, f" + args + ");\n}\n";
}

TEST_SUITE("tosa") {

TEST_CASE("legalize: conv becomes NHWC CONV2D with TOSA's exact padding") {
    using Ints = std::vector<std::int64_t>;
    struct Case {
        std::string input, filter, args;
        Ints pad, stride, dilation;
        Shape out;
    };
    // Padding by hand. Automatic: t = (x - 1) * s + (f - 1) * d + 1 - X, p = floor(t / 2), q = t - p;
    // then TOSA needs (X + p + q - (f - 1) * d - 1) divisible by s: padding the last window does not
    // reach is dropped.
    const Case cases[] = {
        // 5x5, 3x3, stride 1, auto: t = 4 + 3 - 5 = 2 -> (1, 1)
        {"[1,2,5,5]", "[4,2,3,3]", "", {1, 1, 1, 1}, {1, 1}, {1, 1}, {1, 4, 5, 5}},
        // 5x5, 3x3, stride 2, auto: x = 3, t = 4 + 3 - 5 = 2 -> (1, 1)
        {"[1,2,5,5]", "[4,2,3,3]", ", stride = [2,2]", {1, 1, 1, 1}, {2, 2}, {1, 1}, {1, 4, 3, 3}},
        // 6x6, 3x3, stride 2, auto: x = 3, t = 4 + 3 - 6 = 1 -> (0, 1)
        {"[1,2,6,6]", "[4,2,3,3]", ", stride = [2,2]", {0, 1, 0, 1}, {2, 2}, {1, 1}, {1, 4, 3, 3}},
        // 6x6, 3x3, stride 2, padding (1,1): x = (6 + 2 - 3) / 2 + 1 = 3; windows end at 2*2+3 = 7 of
        // 8 padded items: the bottom/right padding is dropped
        {"[1,2,6,6]", "[4,2,3,3]", ", stride = [2,2], padding = [(1,1),(1,1)]", {1, 0, 1, 0}, {2, 2}, {1, 1}, {1, 4, 3, 3}},
        // 7x8, 3x3, dilation 2, padding (2,2),(1,3): fd = 5, x = 7 + 4 - 5 + 1 = 7, 8 + 4 - 5 + 1 = 8
        {"[1,2,7,8]", "[4,2,3,3]", ", dilation = [2,2], padding = [(2,2),(1,3)]", {2, 2, 1, 3}, {1, 1}, {2, 2}, {1, 4, 7, 8}},
    };
    for (const Case& k : cases) {
        CAPTURE(k.args);
        auto l = lower_text(conv_document(k.input, k.filter, k.args));
        REQUIRE_MESSAGE(l->graph, l->messages);
        const auto convs = ops_of(*l->graph, OpKind::CONV2D);
        REQUIRE(convs.size() == 1);
        CHECK(convs[0]->get<Ints>(AttrName::pad) == k.pad);
        CHECK(convs[0]->get<Ints>(AttrName::stride) == k.stride);
        CHECK(convs[0]->get<Ints>(AttrName::dilation) == k.dilation);
        // NHWC result, NCHW graph output
        const Shape& nhwc = l->graph->type(convs[0]->outputs[0]).shape;
        CHECK(nhwc == Shape{k.out[0], k.out[2], k.out[3], k.out[1]});
        CHECK(l->graph->type(l->graph->main().outputs[0]).shape == k.out);
        // OHWI weights folded into a constant: transposes only at the input and the output
        CHECK(count(*l->graph, OpKind::TRANSPOSE) == 2);
        CHECK(l->graph->constant(convs[0]->inputs[1]) != nullptr);
    }
}

TEST_CASE("legalize: negative automatic padding crops the input") {
    // 4x4, 1x1 filter, stride 3: x = ceil(4 / 3) = 2, t = 1 * 3 + 1 - 4 = 0 -> (0, 0); windows end
    // at 4: nothing dropped. 5x5, stride 3: x = 2, t = 3 + 1 - 5 = -1 -> (-1, 0): the first row
    // and column are cropped.
    auto l = lower_text(conv_document("[1,1,5,5]", "[1,1,1,1]", ", stride = [3,3]"));
    REQUIRE_MESSAGE(l->graph, l->messages);
    const auto slices = ops_of(*l->graph, OpKind::SLICE);
    REQUIRE(slices.size() == 2);
    const auto conv = ops_of(*l->graph, OpKind::CONV2D);
    REQUIRE(conv.size() == 1);
    CHECK(conv[0]->get<std::vector<std::int64_t>>(AttrName::pad) == std::vector<std::int64_t>{0, 0, 0, 0});
    CHECK(l->graph->type(l->graph->main().outputs[0]).shape == Shape{1, 1, 2, 2});
}

TEST_CASE("legalize: depthwise and grouped convolutions") {
    SUBCASE("depthwise (groups = 0, multiplier 2)") {
        auto l = lower_text(conv_document("[1,3,6,6]", "[6,1,3,3]", ", groups = 0"));
        REQUIRE_MESSAGE(l->graph, l->messages);
        const auto dw = ops_of(*l->graph, OpKind::DEPTHWISE_CONV2D);
        REQUIRE(dw.size() == 1);
        CHECK(l->graph->type(dw[0]->inputs[1]).shape == Shape{3, 3, 3, 2});  // [KH, KW, C, M]
        CHECK(l->graph->constant(dw[0]->inputs[1]) != nullptr);
    }
    SUBCASE("two groups") {
        auto l = lower_text(conv_document("[1,4,6,6]", "[6,2,3,3]", ", groups = 2"));
        REQUIRE_MESSAGE(l->graph, l->messages);
        CHECK(count(*l->graph, OpKind::CONV2D) == 2);
        CHECK(count(*l->graph, OpKind::CONCAT) == 1);
    }
}

TEST_CASE("legalize: a custom operation is an error naming it, its line and why") {
    const std::string text =
        "version 1.0;\nextension KHR_enable_fragment_definitions;\n"
        "fragment mystery( x: tensor<scalar> ) -> ( y: tensor<scalar> );\n"
        "graph G( x ) -> ( y )\n{\n    x = external<scalar>(shape = [1,2]);\n    y = mystery(x);\n}\n";
    nnef::Session session;
    REQUIRE(session.load_text("custom.nnef", text));
    nnef::Diagnostics diags;
    CHECK_FALSE(lower_to_tosa(*session.graph(), {}, diags));
    REQUIRE(diags.error_count() == 1);
    const std::string m = nnef::render(*diags.begin(), session.sources(), false);
    CHECK(m.find("custom.nnef:7:") != std::string::npos);
    CHECK(m.find("error[tosa]") != std::string::npos);
    CHECK(m.find("'mystery'") != std::string::npos);
    CHECK(m.find("custom operation") != std::string::npos);
}

TEST_CASE("legalize: a rank-7 tensor is beyond level 8K, and fine at level none") {
    const std::string text = "version 1.0;\ngraph G( x ) -> ( y )\n{\n    x = external<scalar>(shape = [1,2,1,2,1,2,3]);\n"
                             "    y = relu(x);\n}\n";
    nnef::Session session;
    REQUIRE(session.load_text("rank7.nnef", text));
    nnef::Diagnostics diags;
    CHECK_FALSE(lower_to_tosa(*session.graph(), {}, diags));
    REQUIRE(diags.has_errors());
    std::string m;
    for (const nnef::Diagnostic& d : diags) m += nnef::render(d, session.sources(), false);
    INFO(m);
    CHECK(m.find("rank7.nnef:5:") != std::string::npos);  // the operator's NNEF line
    CHECK(m.find("MAX_RANK") != std::string::npos);
    LowerOptions none;
    none.level = Level::none();
    nnef::Diagnostics ok;
    CHECK(lower_to_tosa(*session.graph(), none, ok));
}

TEST_CASE("legalize: variables without weights need random weights") {
    nnef::Session session;
    REQUIRE(session.load_text("w.nnef", conv_document("[1,1,3,3]", "[1,1,1,1]", "")));
    nnef::Diagnostics diags;
    CHECK_FALSE(lower_to_tosa(*session.graph(), {}, diags));
    REQUIRE(diags.error_count() == 1);
    CHECK(diags.begin()->code == "missing-weights");
}

TEST_CASE("legalize: random weights are nnef-run's") {
    // The same seed gives the same items as the executor's random_weights for the label.
    auto l = lower_text(conv_document("[1,3,4,4]", "[5,3,3,3]", ""), [] {
        LowerOptions o;
        o.random_weights = 42;
        o.layout_passes = false;
        return o;
    }());
    REQUIRE_MESSAGE(l->graph, l->messages);
    const Value* named = nullptr;
    ValueId id = no_value;
    for (ValueId v = 0; v < l->graph->values.size(); ++v)
        if (l->graph->values[v].name == "f") named = &l->graph->values[v], id = v;
    REQUIRE(named);
    const ConstData* c = l->graph->constant(id);
    REQUIRE(c);
    // exec's seed for a label: storage::variable_seed (FNV-1a of the lower-case label)
    const nnef::exec::TensorValue expected = nnef::exec::random_weights(
        nnef::PrimType::scalar, {5, 3, 3, 3}, nnef::storage::variable_seed("f", 42), false);
    REQUIRE(c->type.volume() == expected.volume());
    for (std::int64_t i = 0; i < expected.volume(); ++i) CHECK(c->items<float>()[i] == expected.data<float>()[i]);
}

TEST_CASE("legalize: ResNet-50 ends with at most 2 TRANSPOSE operators") {
    NNEF_REQUIRE_CORPUS();
    nnef::Session session;
    REQUIRE(session.load_path((nnef_test::corpus_dir() / "real" / "resnet50" / "graph.nnef").string()));
    LowerOptions o;
    o.random_weights = 7;
    nnef::Diagnostics diags;
    std::optional<Graph> g = lower_to_tosa(*session.graph(), o, diags);
    std::string messages;
    for (const nnef::Diagnostic& d : diags) messages += nnef::render(d, session.sources(), false);
    REQUIRE_MESSAGE(g, messages);
    MESSAGE("resnet50: " << g->op_count() << " TOSA operators, " << count(*g, OpKind::TRANSPOSE) << " TRANSPOSE");
    CHECK(count(*g, OpKind::TRANSPOSE) <= 2);
    CHECK(count(*g, OpKind::CONV2D) == 54);  // 53 convolutions and the linear layer
}

}  // TEST_SUITE

}  // namespace legalize_test
