// Shape functions of the sliding-window operations (spec 4.3.1-4.3.3) and their compounds
// (separable convolutions, pooling, local normalizations).
#include "ops_mock.hpp"

namespace ops_sliding_window_test {

using namespace ops_test;

OpCall conv(Shape input, Shape filter) {
    OpCall c("conv");
    c.tensor("input", std::move(input)).tensor("filter", std::move(filter), "variable");
    return c;
}

OpCall deconv(Shape input, Shape filter) {
    OpCall c("deconv");
    c.tensor("input", std::move(input)).tensor("filter", std::move(filter), "variable");
    return c;
}

TEST_SUITE("semantics") {

TEST_CASE("ops: conv output shape") {
    SUBCASE("padding, stride and dilation per dimension (conformance 037)") {
        auto r = conv({1, 3, 32, 32}, {16, 3, 5, 5})
                     .tensor("bias", {1, 16}, "variable")
                     .arg("padding", Pads({{2, 1}, {0, 3}}))
                     .arg("stride", Ints({2, 3}))
                     .arg("dilation", Ints({1, 2}))
                     .run();
        REQUIRE(r.ok);
        // floor((2 + 32 + 1 - 5) / 2) + 1 = 16; floor((0 + 32 + 3 - 9) / 3) + 1 = 9
        CHECK(r.shape("output") == Shape{1, 16, 16, 9});
    }
    SUBCASE("groups (conformance 038)") {
        auto r = conv({2, 8, 10, 10}, {12, 4, 3, 3}).arg("padding", Pads({{1, 1}, {1, 1}})).arg("groups", I(2)).run();
        CHECK(r.shape("output") == Shape{2, 12, 10, 10});
    }
    SUBCASE("depth-wise: groups = 0") {
        auto r = conv({1, 4, 8, 8}, {8, 1, 3, 3}).arg("groups", I(0)).run();
        CHECK(r.shape("output") == Shape{1, 8, 8, 8});
    }
    SUBCASE("1-D with dilation (conformance 040)") {
        auto r = conv({4, 2, 20}, {3, 2, 4}).arg("padding", Pads({{0, 0}})).arg("stride", Ints({2})).arg("dilation", Ints({3})).run();
        CHECK(r.shape("output") == Shape{4, 3, 6});
    }
    SUBCASE("3-D (conformance 041)") {
        auto r = conv({1, 2, 8, 9, 10}, {4, 2, 3, 3, 3})
                     .arg("padding", Pads({{1, 1}, {0, 0}, {2, 0}}))
                     .arg("stride", Ints({1, 2, 3}))
                     .run();
        CHECK(r.shape("output") == Shape{1, 4, 8, 4, 4});
    }
    SUBCASE("automatic padding: ceil(X / s) (conformance 043)") {
        CHECK(conv({1, 3, 7, 7}, {8, 3, 3, 3}).arg("stride", Ints({2, 2})).run().shape("output") == Shape{1, 8, 4, 4});
        CHECK(conv({1, 3, 7, 7}, {8, 3, 3, 3}).arg("dilation", Ints({2, 2})).run().shape("output") == Shape{1, 8, 7, 7});
        CHECK(conv({1, 4, 9, 9}, {4, 4, 3, 3}).run().shape("output") == Shape{1, 4, 9, 9});
    }
    SUBCASE("negative padding (conformance 008)") {
        auto r = conv({1, 1, 8, 8}, {1, 1, 1, 1}).arg("padding", Pads({{-1, -1}, {-1, -1}})).run();
        CHECK(r.shape("output") == Shape{1, 1, 6, 6});
    }
    SUBCASE("shorter window arrays get neutral items (SPEC_NOTES 5)") {
        auto r = conv({1, 3, 8, 8}, {4, 3, 3, 3}).arg("padding", Pads({{1, 1}})).arg("stride", Ints({2})).run();
        // dimension 2: floor((1 + 8 + 1 - 3) / 2) + 1 = 4; dimension 3: padding (0,0), stride 1: 6
        CHECK(r.shape("output") == Shape{1, 4, 4, 6});
    }
    SUBCASE("bias forms (conformance 044)") {
        CHECK(conv({1, 3, 8, 8}, {5, 3, 1, 1}).tensor("bias", {1, 5, 1, 1}).run().ok);
        CHECK(conv({1, 3, 8, 8}, {5, 3, 1, 1}).tensor("bias", {1, 1}).run().ok);
        CHECK(conv({1, 3, 8, 8}, {5, 3, 1, 1}).arg("bias", S(0.5)).run().ok);
    }
}

TEST_CASE("ops: conv argument validity") {
    SUBCASE("conformance 218: filter rank") {
        auto r = conv({1, 3, 8, 8}, {4, 3, 3}).run();
        CHECK_MESSAGE(r.rejected_with({"conv:", "rank of 'filter' [4,3,3] is 3", "rank 4 of 'input'"}), r.joined());
    }
    SUBCASE("conformance 220: filter channels times groups") {
        auto r = conv({1, 8, 8, 8}, {8, 8, 3, 3}).arg("groups", I(2)).run();
        CHECK_MESSAGE(r.rejected_with({"channel extent 8 of 'filter' [8,8,3,3] times 'groups' (2)", "channel extent 8 of 'input'"}),
                      r.joined());
    }
    SUBCASE("conformance 221: groups not a divisor of the filter batch") {
        auto r = conv({1, 4, 8, 8}, {3, 2, 3, 3}).arg("groups", I(2)).run();
        CHECK_MESSAGE(r.rejected_with({"'groups' (2) does not divide the batch extent 3 of 'filter'"}), r.joined());
    }
    SUBCASE("conformance 223: depth-wise with a filter channel extent other than 1") {
        auto r = conv({1, 4, 8, 8}, {4, 4, 3, 3}).arg("groups", I(0)).run();
        CHECK_MESSAGE(r.rejected_with({"'groups' = 0", "must equal the channel extent 4"}), r.joined());
    }
    SUBCASE("negative groups") {
        CHECK(conv({1, 4, 8, 8}, {4, 4, 3, 3}).arg("groups", I(-1)).run().rejected_with({"non-negative"}));
    }
    SUBCASE("conformance 224: bias channel") {
        auto r = conv({1, 3, 8, 8}, {8, 3, 3, 3}).tensor("bias", {1, 5}).run();
        CHECK_MESSAGE(r.rejected_with({"channel extent 5 of 'bias' [1,5]", "number of output channels 8"}), r.joined());
    }
    SUBCASE("conformance 226: bias spatial extent") {
        auto r = conv({1, 3, 8, 8}, {8, 3, 3, 3}).tensor("bias", {1, 8, 8, 8}).run();
        CHECK_MESSAGE(r.rejected_with({"'bias' [1,8,8,8] has extent 8 in dimension 2"}), r.joined());
    }
    SUBCASE("conformance 227, 229, 230: window arrays longer than the spatial dimensions") {
        auto p = conv({1, 3, 8, 8}, {4, 3, 3, 3}).arg("padding", Pads({{1, 1}, {1, 1}, {1, 1}})).run();
        CHECK_MESSAGE(p.rejected_with({"'padding' has 3 items but there are 2 spatial dimensions"}), p.joined());
        auto s = conv({1, 3, 8, 8}, {4, 3, 3, 3}).arg("stride", Ints({1, 2, 2})).run();
        CHECK(s.rejected_with({"'stride' has 3 items"}));
        auto d = conv({1, 3, 8, 8}, {4, 3, 3, 3}).arg("dilation", Ints({2, 2, 2})).run();
        CHECK(d.rejected_with({"'dilation' has 3 items"}));
    }
    SUBCASE("conformance 232: zero dilation; zero stride") {
        auto d = conv({1, 3, 8, 8}, {4, 3, 3, 3}).arg("dilation", Ints({0, 1})).run();
        CHECK_MESSAGE(d.rejected_with({"item 0 of 'dilation' [0,1] is 0"}), d.joined());
        CHECK(conv({1, 3, 8, 8}, {4, 3, 3, 3}).arg("stride", Ints({1, -2})).run().rejected_with({"item 1 of 'stride'"}));
    }
    SUBCASE("conformance 233, 235: border") {
        auto r = conv({1, 3, 8, 8}, {4, 3, 3, 3}).arg("border", Str("ignore")).run();
        CHECK_MESSAGE(r.rejected_with({"'border' is 'ignore'", "'constant', 'replicate', 'reflect', 'reflect-even'"}), r.joined());
        CHECK(conv({1, 3, 8, 8}, {4, 3, 3, 3}).arg("border", Str("Constant")).run().rejected_with({"'Constant'"}));
        for (const char* b : {"constant", "replicate", "reflect", "reflect-even"})
            CHECK(conv({1, 3, 8, 8}, {4, 3, 3, 3}).arg("border", Str(b)).run().ok);
    }
    SUBCASE("conformance 236, 238: padded input smaller than the filter") {
        auto r = conv({1, 1, 4, 4}, {1, 1, 7, 7}).arg("padding", Pads({{0, 0}, {0, 0}})).run();
        CHECK_MESSAGE(r.rejected_with({"in dimension 2", "0 + 4 + 0", "dilated window size (f - 1) * d + 1 = 7"}), r.joined());
        auto n = conv({1, 1, 4, 4}, {1, 1, 3, 3}).arg("padding", Pads({{-1, -1}, {0, 0}})).run();
        CHECK_MESSAGE(n.rejected_with({"-1 + 4 + -1"}), n.joined());
    }
    SUBCASE("input of rank 1") {
        CHECK(conv({4}, {4}).run().rejected_with({"rank at least 2"}));
    }
    SUBCASE("rank-1 bias: warning in the default dialect, error in strict") {
        auto r = conv({1, 3, 8, 8}, {64, 3, 3, 3}).tensor("bias", {64}).run();
        REQUIRE(r.ok);
        CHECK(r.shape("output") == Shape{1, 64, 8, 8});
        REQUIRE(r.warnings.size() == 1);
        CHECK(r.warnings[0].find("rank-1 'bias' [64] is read as [1,64]") != std::string::npos);
        auto s = conv({1, 3, 8, 8}, {64, 3, 3, 3}).tensor("bias", {64}).strict().run();
        CHECK_MESSAGE(s.rejected_with({"'bias' [64] has extent 64 in dimension 0"}), s.joined());
        CHECK(s.warnings.empty());
    }
}

TEST_CASE("ops: deconv") {
    SUBCASE("explicit padding: X = (x - 1) * s + fd - (p + q) (conformance 046)") {
        auto r = deconv({1, 4, 5, 5}, {4, 4, 3, 3}).arg("stride", Ints({2, 2})).arg("padding", Pads({{1, 1}, {1, 1}})).run();
        CHECK(r.shape("output") == Shape{1, 4, 9, 9});
    }
    SUBCASE("output_shape (conformance 047)") {
        auto r = deconv({1, 4, 4, 4}, {4, 4, 3, 3})
                     .arg("stride", Ints({2, 2}))
                     .arg("padding", Pads({{1, 1}, {1, 1}}))
                     .arg("output_shape", Ints({1, 4, 8, 8}))
                     .run();
        CHECK(r.shape("output") == Shape{1, 4, 8, 8});
    }
    SUBCASE("output_shape with automatic padding") {
        auto r = deconv({1, 4, 4, 4}, {4, 4, 3, 3}).arg("stride", Ints({2, 2})).arg("output_shape", Ints({1, 4, 7, 8})).run();
        CHECK(r.shape("output") == Shape{1, 4, 7, 8});
        auto bad = deconv({1, 4, 4, 4}, {4, 4, 3, 3}).arg("stride", Ints({2, 2})).arg("output_shape", Ints({1, 4, 9, 8})).run();
        CHECK_MESSAGE(bad.rejected_with({"down-scaling its extent 9 in dimension 2 gives 5, not 4"}), bad.joined());
    }
    SUBCASE("groups (conformance 049)") {
        auto r = deconv({1, 6, 3, 3}, {6, 2, 2, 2}).arg("stride", Ints({2, 2})).arg("padding", Pads({{0, 0}, {0, 0}})).arg("groups", I(3)).run();
        CHECK(r.shape("output") == Shape{1, 6, 6, 6});
    }
    SUBCASE("depth-wise, bias (conformance 050)") {
        auto r1 = deconv({2, 4, 5, 5}, {4, 1, 3, 3}).tensor("bias", {1, 4}).arg("groups", I(0)).run();
        CHECK(r1.shape("output") == Shape{2, 4, 5, 5});
        auto r2 = deconv({2, 4, 5, 5}, {4, 1, 3, 3})
                      .tensor("bias", {1, 4})
                      .arg("stride", Ints({2, 2}))
                      .arg("padding", Pads({{1, 1}, {1, 1}}))
                      .arg("groups", I(0))
                      .run();
        CHECK(r2.shape("output") == Shape{2, 4, 9, 9});
    }
    SUBCASE("filter (c, C / groups, f...) with c the input channels (conformance 139)") {
        auto r = deconv({1, 6, 4, 4}, {6, 2, 3, 3}).arg("padding", Pads({{1, 1}, {1, 1}})).run();
        CHECK(r.shape("output") == Shape{1, 2, 4, 4});
        auto bad = deconv({1, 2, 4, 4}, {6, 2, 3, 3}).run();
        CHECK_MESSAGE(bad.rejected_with({"batch extent 6 of 'filter' [6,2,3,3] must equal the channel extent 2 of 'input'"}),
                      bad.joined());
        auto bias = deconv({1, 6, 4, 4}, {6, 2, 3, 3}).tensor("bias", {1, 6}).run();
        CHECK_MESSAGE(bias.rejected_with({"channel extent 6 of 'bias'", "output channels 2"}), bias.joined());
    }
    SUBCASE("automatic padding without output_shape: X = x * stride (conformance 140)") {
        CHECK(deconv({1, 4, 5, 5}, {4, 4, 3, 3}).arg("stride", Ints({2, 2})).run().shape("output") == Shape{1, 4, 10, 10});
    }
    SUBCASE("conformance 239: output_shape length") {
        auto r = deconv({1, 4, 4, 4}, {4, 4, 3, 3}).arg("stride", Ints({2, 2})).arg("padding", Pads({{1, 1}, {1, 1}})).arg("output_shape", Ints({8, 8})).run();
        CHECK_MESSAGE(r.rejected_with({"'output_shape' [8,8] has 2 items", "(4)"}), r.joined());
    }
    SUBCASE("conformance 241: output_shape batch") {
        auto r = deconv({1, 4, 4, 4}, {4, 4, 3, 3}).arg("stride", Ints({2, 2})).arg("padding", Pads({{1, 1}, {1, 1}})).arg("output_shape", Ints({2, 4, 8, 8})).run();
        CHECK_MESSAGE(r.rejected_with({"batch extent 2", "batch extent 1 of 'input'"}), r.joined());
    }
    SUBCASE("output_shape channels and spatial extents") {
        auto c = deconv({1, 4, 4, 4}, {4, 4, 3, 3}).arg("stride", Ints({2, 2})).arg("padding", Pads({{1, 1}, {1, 1}})).arg("output_shape", Ints({1, 3, 8, 8})).run();
        CHECK(c.rejected_with({"channel extent 3", "4 channels"}));
        auto s = deconv({1, 4, 4, 4}, {4, 4, 3, 3}).arg("stride", Ints({2, 2})).arg("padding", Pads({{1, 1}, {1, 1}})).arg("output_shape", Ints({1, 4, 8, 12})).run();
        CHECK(s.rejected_with({"extent 12 in dimension 3 gives 6, not 4"}));
        auto z = deconv({1, 4, 4, 4}, {4, 4, 3, 3}).arg("output_shape", Ints({1, 4, 0, 4})).run();
        CHECK(z.rejected_with({"item 2 of 'output_shape'"}));
    }
    SUBCASE("conformance 242: zero stride") {
        CHECK(deconv({1, 4, 4, 4}, {4, 4, 3, 3}).arg("stride", Ints({0, 2})).run().rejected_with({"item 0 of 'stride' [0,2] is 0"}));
    }
    SUBCASE("conformance 244: groups not a divisor") {
        auto r = deconv({1, 6, 4, 4}, {6, 2, 3, 3}).arg("groups", I(4)).run();
        CHECK_MESSAGE(r.rejected_with({"'groups' (4) does not divide the batch extent 6"}), r.joined());
    }
    SUBCASE("padding too large for an up-scaled extent") {
        auto r = deconv({1, 4, 1, 1}, {4, 4, 1, 1}).arg("padding", Pads({{1, 0}, {0, 0}})).run();
        CHECK_MESSAGE(r.rejected_with({"up-scaled extent in dimension 2", "is 0"}), r.joined());
    }
}

TEST_CASE("ops: separable convolutions (4.9.2)") {
    SUBCASE("separable_conv (conformance 068)") {
        auto r = OpCall("separable_conv")
                     .tensor("input", {1, 4, 8, 8})
                     .tensor("plane_filter", {4, 1, 3, 3})
                     .tensor("point_filter", {6, 4, 1, 1})
                     .tensor("bias", {1, 6})
                     .arg("padding", Pads({{1, 1}, {1, 1}}))
                     .run();
        CHECK(r.shape("output") == Shape{1, 6, 8, 8});
    }
    SUBCASE("separable_conv with a channel multiplier and stride") {
        auto r = OpCall("separable_conv")
                     .tensor("input", {1, 4, 8, 8})
                     .tensor("plane_filter", {8, 1, 3, 3})
                     .tensor("point_filter", {6, 8, 1, 1})
                     .arg("stride", Ints({2, 2}))
                     .run();
        CHECK(r.shape("output") == Shape{1, 6, 4, 4});
    }
    SUBCASE("separable_conv point filter mismatch") {
        auto r = OpCall("separable_conv")
                     .tensor("input", {1, 4, 8, 8})
                     .tensor("plane_filter", {4, 1, 3, 3})
                     .tensor("point_filter", {6, 3, 1, 1})
                     .run();
        CHECK_MESSAGE(r.rejected_with({"'point_filter' [6,3,1,1]", "the plane-wise result [1,4,8,8]"}), r.joined());
    }
    SUBCASE("separable_conv plane filter must be depth-wise") {
        auto r = OpCall("separable_conv")
                     .tensor("input", {1, 4, 8, 8})
                     .tensor("plane_filter", {4, 4, 3, 3})
                     .tensor("point_filter", {6, 4, 1, 1})
                     .run();
        CHECK(r.rejected_with({"'plane_filter'", "'groups' = 0"}));
    }
    SUBCASE("separable_deconv with output_shape (conformance 070)") {
        auto r = OpCall("separable_deconv")
                     .tensor("input", {1, 4, 4, 4})
                     .tensor("plane_filter", {4, 1, 3, 3})
                     .tensor("point_filter", {4, 4, 1, 1})
                     .arg("stride", Ints({2, 2}))
                     .arg("padding", Pads({{1, 1}, {1, 1}}))
                     .arg("output_shape", Ints({1, 4, 8, 8}))
                     .run();
        CHECK(r.shape("output") == Shape{1, 4, 8, 8});
    }
    SUBCASE("separable_deconv changes channels in the point-wise step") {
        auto r = OpCall("separable_deconv")
                     .tensor("input", {1, 4, 4, 4})
                     .tensor("plane_filter", {6, 1, 3, 3})
                     .tensor("point_filter", {4, 6, 1, 1})
                     .tensor("bias", {1, 6})
                     .arg("stride", Ints({2, 2}))
                     .run();
        CHECK(r.shape("output") == Shape{1, 6, 8, 8});
    }
}

TEST_CASE("ops: box and debox") {
    SUBCASE("box over every dimension") {
        auto r = OpCall("box")
                     .tensor("input", {1, 2, 9, 9})
                     .arg("size", Ints({1, 1, 3, 3}))
                     .arg("stride", Ints({1, 1, 2, 2}))
                     .arg("padding", Pads({{0, 0}, {0, 0}, {1, 1}, {1, 1}}))
                     .run();
        CHECK(r.shape("output") == Shape{1, 2, 5, 5});
        auto batch = OpCall("box").tensor("input", {4, 2, 3}).arg("size", Ints({2, 1, 1})).arg("stride", Ints({2})).arg("padding", Pads({{0, 0}})).run();
        CHECK(batch.shape("output") == Shape{2, 2, 3});
    }
    SUBCASE("conformance 245: zero size") {
        auto r = OpCall("box").tensor("input", {1, 1, 4, 4}).arg("size", Ints({1, 1, 0, 2})).run();
        CHECK_MESSAGE(r.rejected_with({"item 2 of 'size' [1,1,0,2] is 0"}), r.joined());
    }
    SUBCASE("size longer than the rank") {
        CHECK(OpCall("box").tensor("input", {1, 4}).arg("size", Ints({1, 1, 1})).run().rejected_with({"'size' has 3 items"}));
    }
    SUBCASE("conformance 247: stride longer than the rank") {
        auto r = OpCall("box").tensor("input", {1, 1, 4, 4}).arg("size", Ints({1, 1, 2, 2})).arg("stride", Ints({1, 1, 2, 2, 1})).run();
        CHECK_MESSAGE(r.rejected_with({"'stride' has 5 items but there are 4 dimensions of 'input'"}), r.joined());
    }
    SUBCASE("conformance 248: unknown border") {
        auto r = OpCall("box").tensor("input", {1, 1, 4, 4}).arg("size", Ints({1, 1, 2, 2})).arg("border", Str("mirror")).run();
        CHECK_MESSAGE(r.rejected_with({"'border' is 'mirror'", "'ignore'"}), r.joined());
    }
    SUBCASE("debox (conformance 133)") {
        auto r = OpCall("debox")
                     .tensor("input", {1, 1, 4, 4})
                     .arg("size", Ints({1, 1, 2, 2}))
                     .arg("stride", Ints({1, 1, 2, 2}))
                     .arg("padding", Pads({{0, 0}, {0, 0}, {0, 0}, {0, 0}}))
                     .run();
        CHECK(r.shape("output") == Shape{1, 1, 8, 8});
        auto o = OpCall("debox")
                     .tensor("input", {1, 1, 4, 4})
                     .arg("size", Ints({1, 1, 2, 2}))
                     .arg("stride", Ints({1, 1, 2, 2}))
                     .arg("padding", Pads({{0, 0}, {0, 0}, {0, 0}, {0, 0}}))
                     .arg("output_shape", Ints({1, 1, 9, 8}))
                     .run();
        CHECK(o.shape("output") == Shape{1, 1, 9, 8});
        auto bad = OpCall("debox").tensor("input", {1, 1, 4, 4}).arg("size", Ints({1, 1, 2, 2})).arg("output_shape", Ints({1, 1, 8})).run();
        CHECK(bad.rejected_with({"'output_shape' [1,1,8] has 3 items"}));
    }
}

Value zero_padding4() { return Pads({{0, 0}, {0, 0}, {0, 0}, {0, 0}}); }

OpCall pool(const char* name, Shape input) {
    OpCall c(name);
    c.tensor("input", std::move(input)).arg("size", Ints({1, 1, 2, 2})).arg("stride", Ints({1, 1, 2, 2}));
    return c;
}

TEST_CASE("ops: argmax_pool, sample, desample") {
    SUBCASE("argmax_pool then sample (conformance 052)") {
        auto index = pool("argmax_pool", {1, 2, 8, 8}).arg("padding", zero_padding4()).arg("border", Str("ignore")).run();
        CHECK(index.shape("index") == Shape{1, 2, 4, 4});
        auto out = pool("sample", {1, 2, 8, 8}).tensor("index", {1, 2, 4, 4}).arg("padding", zero_padding4()).run();
        CHECK(out.shape("output") == Shape{1, 2, 4, 4});
    }
    SUBCASE("desample with output_shape (conformance 053)") {
        auto r = pool("desample", {1, 2, 4, 4}).tensor("index", {1, 2, 4, 4}).arg("padding", zero_padding4()).arg("output_shape", Ints({1, 2, 8, 8})).run();
        CHECK(r.shape("output") == Shape{1, 2, 8, 8});
        auto a = pool("desample", {1, 2, 4, 4}).tensor("index", {1, 2, 4, 4}).run();
        CHECK(a.shape("output") == Shape{1, 2, 8, 8});
    }
    SUBCASE("conformance 328: argmax_pool dilation longer than the rank") {
        auto r = pool("argmax_pool", {1, 1, 4, 4}).arg("dilation", Ints({1, 1, 2, 2, 1})).run();
        CHECK_MESSAGE(r.rejected_with({"'dilation' has 5 items"}), r.joined());
    }
    SUBCASE("conformance 253: sample border 'ignore'") {
        auto r = pool("sample", {1, 1, 4, 4}).tensor("index", {1, 1, 2, 2}).arg("border", Str("ignore")).run();
        CHECK_MESSAGE(r.rejected_with({"sample:", "'border' is 'ignore'"}), r.joined());
    }
    SUBCASE("conformance 254: sample index shape") {
        auto r = pool("sample", {1, 1, 4, 4}).tensor("index", {1, 1, 4, 4}).run();
        CHECK_MESSAGE(r.rejected_with({"shape of 'index' [1,1,4,4] must equal the output shape [1,1,2,2]"}), r.joined());
    }
    SUBCASE("conformance 256: desample index shape") {
        auto r = pool("desample", {1, 1, 2, 2}).tensor("index", {1, 1, 4, 4}).run();
        CHECK_MESSAGE(r.rejected_with({"shape of 'index' [1,1,4,4] must equal the shape of 'input' [1,1,2,2]"}), r.joined());
    }
    SUBCASE("conformance 257: desample output_shape inconsistent") {
        auto r = pool("desample", {1, 1, 2, 2}).tensor("index", {1, 1, 2, 2}).arg("output_shape", Ints({1, 1, 8, 8})).run();
        CHECK_MESSAGE(r.rejected_with({"'output_shape' [1,1,8,8] is inconsistent", "gives 4, not 2"}), r.joined());
    }
    SUBCASE("desample border must be 'constant'") {
        auto r = pool("desample", {1, 1, 2, 2}).tensor("index", {1, 1, 2, 2}).arg("border", Str("replicate")).run();
        CHECK_MESSAGE(r.rejected_with({"'border' is 'replicate'; it must be one of 'constant'"}), r.joined());
    }
}

TEST_CASE("ops: pooling compounds (4.9.3)") {
    auto padding = Pads({{0, 0}, {0, 0}, {1, 1}, {1, 1}});
    auto pool3 = [&](const char* name) {
        OpCall c(name);
        c.tensor("input", {1, 2, 9, 9}).arg("size", Ints({1, 1, 3, 3})).arg("stride", Ints({1, 1, 2, 2})).arg("padding", padding);
        return c;
    };
    SUBCASE("conformance 071") {
        auto both = pool3("max_pool_with_index").run();
        CHECK(both.shape("output") == Shape{1, 2, 5, 5});
        CHECK(both.shape("index") == Shape{1, 2, 5, 5});
        CHECK(pool3("max_pool").arg("border", Str("constant")).run().shape("output") == Shape{1, 2, 5, 5});
        CHECK(pool3("avg_pool").arg("border", Str("ignore")).run().shape("output") == Shape{1, 2, 5, 5});
        CHECK(pool3("rms_pool").run().shape("output") == Shape{1, 2, 5, 5});
        auto dilated = OpCall("max_pool").tensor("input", {1, 2, 9, 9}).arg("size", Ints({1, 1, 2, 2})).arg("dilation", Ints({1, 1, 2, 2})).arg("stride", Ints({1, 1, 1, 1})).run();
        CHECK(dilated.shape("output") == Shape{1, 2, 9, 9});
    }
    SUBCASE("max_pool accepts border 'ignore' (conformance 137)") {
        auto r = OpCall("max_pool").tensor("input", {1, 1, 5, 5}).arg("size", Ints({1, 1, 3, 3})).arg("stride", Ints({1, 1, 2, 2})).arg("border", Str("ignore")).arg("padding", padding).run();
        CHECK(r.shape("output") == Shape{1, 1, 3, 3});
    }
    SUBCASE("conformance 250: avg_pool zero stride") {
        auto r = OpCall("avg_pool").tensor("input", {1, 3, 8, 8}).arg("size", Ints({1, 1, 2, 2})).arg("stride", Ints({1, 1, 0, 2})).run();
        CHECK_MESSAGE(r.rejected_with({"avg_pool:", "item 2 of 'stride' [1,1,0,2] is 0"}), r.joined());
    }
    SUBCASE("conformance 251: window larger than the padded input") {
        auto r = OpCall("avg_pool").tensor("input", {1, 3, 2, 2}).arg("size", Ints({1, 1, 3, 3})).arg("padding", zero_padding4()).run();
        CHECK_MESSAGE(r.rejected_with({"in dimension 2", "window size (f - 1) * d + 1 = 3"}), r.joined());
    }
    SUBCASE("unknown border") {
        CHECK(pool3("max_pool").arg("border", Str("wrap")).run().rejected_with({"'border' is 'wrap'"}));
    }
}

TEST_CASE("ops: local normalizations (4.9.4)") {
    SUBCASE("size shorter than the rank gets trailing 1s (conformance 136)") {
        auto r = OpCall("local_response_normalization").tensor("input", {1, 8, 5, 5}).arg("size", Ints({1, 5})).arg("alpha", S(1e-4)).arg("beta", S(0.75)).run();
        CHECK(r.shape("output") == Shape{1, 8, 5, 5});
    }
    SUBCASE("every local normalization keeps the input shape") {
        for (const char* name : {"local_mean_normalization", "local_variance_normalization", "local_contrast_normalization"}) {
            CAPTURE(name);
            CHECK(OpCall(name).tensor("input", {2, 3, 7}).arg("size", Ints({1, 3, 3})).run().shape("output") == Shape{2, 3, 7});
        }
    }
    SUBCASE("invalid sizes") {
        CHECK(OpCall("local_response_normalization").tensor("input", {1, 8}).arg("size", Ints({1, 0})).run().rejected_with({"item 1 of 'size'"}));
        CHECK(OpCall("local_mean_normalization").tensor("input", {1, 8}).arg("size", Ints({1, 3, 3})).run().rejected_with({"'size' has 3 items"}));
    }
}

}  // TEST_SUITE

}  // namespace ops_sliding_window_test
