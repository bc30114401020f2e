// Shape functions of the tensor shape operations (spec 4.5, SPEC_NOTES 2).
#include "ops_mock.hpp"

namespace ops_shape_ops_test {

using namespace ops_test;

OpCall reshape(Shape input, std::vector<std::int64_t> shape) {
    OpCall c("reshape");
    c.tensor("input", std::move(input)).arg("shape", Ints(std::move(shape)));
    return c;
}

OpCall slice(Shape input, std::vector<std::int64_t> axes, std::vector<std::int64_t> begin, std::vector<std::int64_t> end) {
    OpCall c("slice");
    c.tensor("input", std::move(input)).arg("axes", Ints(std::move(axes))).arg("begin", Ints(std::move(begin))).arg("end", Ints(std::move(end)));
    return c;
}

TEST_SUITE("semantics") {

TEST_CASE("ops: reshape") {
    SUBCASE("0 inherits, -1 is inferred (conformance 056)") {
        CHECK(reshape({2, 3, 4}, {0, -1}).run().shape("output") == Shape{2, 12});
        CHECK(reshape({2, 3, 4}, {4, 0, 2}).run().shape("output") == Shape{4, 3, 2});
        CHECK(reshape({2, 3, 4}, {24}).run().shape("output") == Shape{24});
        CHECK(reshape({2, 3, 4}, {2, 2, -1, 3}).run().shape("output") == Shape{2, 2, 2, 3});
        CHECK(reshape({2, 3, 4}, {1, 1, 24, 1}).run().shape("output") == Shape{1, 1, 24, 1});
        CHECK(reshape({3, 4}, {-1}).run().shape("output") == Shape{12});
        CHECK(reshape({}, {1, 1}).run().shape("output") == Shape{1, 1});
    }
    SUBCASE("axis_start and axis_count (SPEC_NOTES 2)") {
        CHECK(reshape({2, 3, 4, 5}, {12}).arg("axis_start", I(1)).arg("axis_count", I(2)).run().shape("output") == Shape{2, 12, 5});
        CHECK(reshape({2, 3, 4, 5}, {-1, 2}).arg("axis_start", I(2)).run().shape("output") == Shape{2, 3, 10, 2});
        CHECK(reshape({2, 3, 4}, {0, 1}).arg("axis_start", I(1)).arg("axis_count", I(1)).run().shape("output") == Shape{2, 3, 1, 4});
        CHECK(reshape({2, 3}, {1}).arg("axis_start", I(2)).arg("axis_count", I(0)).run().shape("output") == Shape{2, 3, 1});
    }
    SUBCASE("invalid axis range") {
        CHECK(reshape({2, 3}, {6}).arg("axis_start", I(3)).run().rejected_with({"'axis_start' is 3"}));
        CHECK(reshape({2, 3}, {6}).arg("axis_start", I(-1)).run().rejected_with({"'axis_start' is -1"}));
        CHECK(reshape({2, 3}, {6}).arg("axis_start", I(1)).arg("axis_count", I(2)).run().rejected_with({"'axis_count' is 2"}));
        CHECK(reshape({2, 3, 4}, {0, 0}).arg("axis_start", I(1)).arg("axis_count", I(1)).run().rejected_with({"item 1 of 'shape' [0,0] is 0 (inherit)"}));
        CHECK(reshape({2, 3, 4}, {12}).arg("axis_start", I(1)).arg("axis_count", I(1)).run().rejected_with({"volume 3 of the reshaped axes [3]"}));
    }
    SUBCASE("conformance 271: volume mismatch") {
        auto r = reshape({2, 3, 4}, {5, 5}).run();
        CHECK_MESSAGE(r.rejected_with({"reshape:", "volume 25 of 'shape' [5,5] differs from the volume 24 of 'input' [2,3,4]"}), r.joined());
    }
    SUBCASE("conformance 272: two -1 items") {
        CHECK_MESSAGE(reshape({2, 3, 4}, {-1, -1}).run().rejected_with({"more than one -1"}), "");
    }
    SUBCASE("conformance 274: -1 cannot be inferred") {
        auto r = reshape({7}, {2, -1}).run();
        CHECK_MESSAGE(r.rejected_with({"product 2 of the known items", "does not divide the volume 7"}), r.joined());
    }
    SUBCASE("conformance 275: inherited 0 leads to a volume mismatch") {
        auto r = reshape({2, 3, 4}, {0, 0, 2}).run();
        CHECK_MESSAGE(r.rejected_with({"volume 12 of 'shape' [0,0,2] ([2,3,2] after inheriting 0 items) differs from the volume 24"}), r.joined());
    }
    SUBCASE("items below -1, 0 beyond the input rank") {
        CHECK(reshape({6}, {-2, -3}).run().rejected_with({"item 0 of 'shape' [-2,-3] is -2"}));
        CHECK(reshape({6}, {6, 0}).run().rejected_with({"item 1 of 'shape' [6,0] is 0 (inherit)"}));
    }
    SUBCASE("overflowing shape") {
        CHECK(reshape({6}, {std::int64_t(1) << 40, std::int64_t(1) << 40}).run().rejected_with({"overflows"}));
    }
    SUBCASE("strict dialect: no axis_start/axis_count attributes") {
        CHECK(reshape({2, 3, 4}, {0, -1}).strict().run().shape("output") == Shape{2, 12});
    }
}

TEST_CASE("ops: squeeze and unsqueeze") {
    SUBCASE("conformance 077") {
        CHECK(OpCall("squeeze").tensor("input", {1, 3, 1, 4}).arg("axes", Ints({0, 2})).run().shape("output") == Shape{3, 4});
        CHECK(OpCall("unsqueeze").tensor("input", {3, 4}).arg("axes", Ints({0, 3})).run().shape("output") == Shape{1, 3, 4, 1});
        CHECK(OpCall("unsqueeze").tensor("input", {3, 4}).arg("axes", Ints({1})).run().shape("output") == Shape{3, 1, 4});
    }
    SUBCASE("unsqueeze axes index the output, in any order") {
        CHECK(OpCall("unsqueeze").tensor("input", {3, 4}).arg("axes", Ints({3, 0})).run().shape("output") == Shape{1, 3, 4, 1});
        CHECK(OpCall("unsqueeze").tensor("input", {}).arg("axes", Ints({0})).run().shape("output") == Shape{1});
    }
    SUBCASE("conformance 277: squeeze axis not less than the rank") {
        auto r = OpCall("squeeze").tensor("input", {1, 3, 1}).arg("axes", Ints({3})).run();
        CHECK_MESSAGE(r.rejected_with({"squeeze:", "item 0 of 'axes' [3] is 3", "less than the rank 3"}), r.joined());
    }
    SUBCASE("conformance 329: squeeze negative axis") {
        CHECK(OpCall("squeeze").tensor("input", {3, 1}).arg("axes", Ints({-1})).run().rejected_with({"non-negative"}));
    }
    SUBCASE("squeeze of a non-singleton axis, duplicate axes") {
        auto r = OpCall("squeeze").tensor("input", {1, 3}).arg("axes", Ints({1})).run();
        CHECK_MESSAGE(r.rejected_with({"has extent 3 there", "only singleton axes"}), r.joined());
        CHECK(OpCall("squeeze").tensor("input", {1, 3}).arg("axes", Ints({0, 0})).run().rejected_with({"twice"}));
    }
    SUBCASE("conformance 278: unsqueeze axis not less than the output rank") {
        auto r = OpCall("unsqueeze").tensor("input", {3, 4}).arg("axes", Ints({3})).run();
        CHECK_MESSAGE(r.rejected_with({"unsqueeze:", "less than the rank 3 of the output"}), r.joined());
        CHECK(OpCall("unsqueeze").tensor("input", {3, 4}).arg("axes", Ints({1, 1})).run().rejected_with({"twice"}));
    }
}

TEST_CASE("ops: transpose") {
    CHECK(OpCall("transpose").tensor("input", {2, 3, 4}).arg("axes", Ints({2, 0, 1})).run().shape("output") == Shape{4, 2, 3});
    CHECK(OpCall("transpose").tensor("input", {2, 3, 4}).arg("axes", Ints({1, 0})).run().shape("output") == Shape{3, 2, 4});
    CHECK(OpCall("transpose").tensor("input", {2, 3, 4}).arg("axes", Ints({})).run().shape("output") == Shape{2, 3, 4});
    SUBCASE("conformance 280: repeated axis") {
        auto r = OpCall("transpose").tensor("input", {2, 3, 4}).arg("axes", Ints({1, 1, 0})).run();
        CHECK_MESSAGE(r.rejected_with({"'axes' [1,1,0] is not a permutation of 0..2"}), r.joined());
    }
    SUBCASE("conformance 281: axes longer than the rank") {
        auto r = OpCall("transpose").tensor("input", {2, 3}).arg("axes", Ints({2, 0, 1})).run();
        CHECK_MESSAGE(r.rejected_with({"'axes' [2,0,1] has 3 items", "rank 2"}), r.joined());
    }
    SUBCASE("item out of range") {
        CHECK(OpCall("transpose").tensor("input", {2, 3}).arg("axes", Ints({0, 2})).run().rejected_with({"not a permutation"}));
    }
}

TEST_CASE("ops: split, concat, stack, unstack") {
    SUBCASE("split by ratios (conformance 058)") {
        auto r = OpCall("split").tensor("value", {1, 8, 4, 4}).arg("axis", I(1)).arg("ratios", Ints({1, 2, 1})).count("values", 3).run();
        REQUIRE(r.ok);
        CHECK(r.arrays.at("values") == std::vector<Shape>{{1, 2, 4, 4}, {1, 4, 4, 4}, {1, 2, 4, 4}});
        auto s = OpCall("split").tensor("value", {1, 8, 4, 4}).arg("axis", I(3)).arg("ratios", Ints({3, 1})).count("values", 2).run();
        CHECK(s.arrays.at("values") == std::vector<Shape>{{1, 8, 4, 3}, {1, 8, 4, 1}});
    }
    SUBCASE("conformance 283: ratios do not divide") {
        auto r = OpCall("split").tensor("value", {4, 8}).arg("axis", I(1)).arg("ratios", Ints({2, 3})).count("values", 2).run();
        CHECK_MESSAGE(r.rejected_with({"sum 5 of 'ratios' [2,3] does not divide the extent 8"}), r.joined());
    }
    SUBCASE("conformance 284: split axis out of range") {
        auto r = OpCall("split").tensor("value", {4, 8}).arg("axis", I(2)).arg("ratios", Ints({1, 1})).count("values", 2).run();
        CHECK_MESSAGE(r.rejected_with({"'axis' is 2", "rank 2 of 'value' [4,8]"}), r.joined());
    }
    SUBCASE("conformance 286: result bound to a different number of tensors") {
        auto r = OpCall("split").tensor("value", {4, 8}).arg("axis", I(1)).arg("ratios", Ints({1, 1})).count("values", 3).run();
        CHECK_MESSAGE(r.rejected_with({"'values' is bound to 3 tensors but 'ratios' [1,1] gives 2"}), r.joined());
    }
    SUBCASE("split ratios empty or not positive") {
        CHECK(OpCall("split").tensor("value", {4}).arg("axis", I(0)).arg("ratios", Ints({})).run().rejected_with({"'ratios' is empty"}));
        CHECK(OpCall("split").tensor("value", {4}).arg("axis", I(0)).arg("ratios", Ints({2, 0})).count("values", 2).run().rejected_with({"item 1 of 'ratios'"}));
    }
    SUBCASE("concat (conformance 058)") {
        auto r = OpCall("concat").tensors("values", {{1, 2, 4, 4}, {1, 2, 4, 4}, {1, 4, 4, 4}}).arg("axis", I(1)).run();
        CHECK(r.shape("value") == Shape{1, 8, 4, 4});
        CHECK(OpCall("concat").tensors("values", {{1, 2}}).arg("axis", I(0)).run().shape("value") == Shape{1, 2});
    }
    SUBCASE("conformance 287: concat ranks differ") {
        auto r = OpCall("concat").tensors("values", {{2, 3}, {2, 3, 1, 5}}).arg("axis", I(1)).run();
        CHECK_MESSAGE(r.rejected_with({"different ranks: item 0 [2,3] and item 1 [2,3,1,5]"}), r.joined());
    }
    SUBCASE("conformance 289: concat axis out of range") {
        auto r = OpCall("concat").tensors("values", {{2, 3}, {2, 3}}).arg("axis", I(2)).run();
        CHECK_MESSAGE(r.rejected_with({"'axis' is 2"}), r.joined());
    }
    SUBCASE("concat shapes differ outside the axis; empty") {
        auto r = OpCall("concat").tensors("values", {{2, 3}, {3, 3}}).arg("axis", I(1)).run();
        CHECK_MESSAGE(r.rejected_with({"differ outside the concatenation axis 1", "in dimension 0"}), r.joined());
        CHECK(OpCall("concat").tensors("values", {}).arg("axis", I(0)).run().rejected_with({"'values' is empty"}));
    }
    SUBCASE("stack") {
        CHECK(OpCall("stack").tensors("values", {{2, 3}, {2, 3}, {2, 3}}).arg("axis", I(0)).run().shape("value") == Shape{3, 2, 3});
        CHECK(OpCall("stack").tensors("values", {{2, 3}, {2, 3}}).arg("axis", I(2)).run().shape("value") == Shape{2, 3, 2});
        CHECK(OpCall("stack").tensors("values", {{2, 3}}).arg("axis", I(3)).run().rejected_with({"'axis' is 3"}));
    }
    SUBCASE("conformance 290: stack shapes differ") {
        auto r = OpCall("stack").tensors("values", {{2, 3}, {2, 4}}).arg("axis", I(0)).run();
        CHECK_MESSAGE(r.rejected_with({"same shape: item 0 is [2,3], item 1 is [2,4]"}), r.joined());
    }
    SUBCASE("unstack") {
        auto r = OpCall("unstack").tensor("value", {2, 3, 4}).arg("axis", I(1)).count("values", 3).run();
        REQUIRE(r.ok);
        CHECK(r.arrays.at("values") == std::vector<Shape>(3, Shape{2, 4}));
        auto n = OpCall("unstack").tensor("value", {2, 3}).arg("axis", I(0)).count("values", 3).run();
        CHECK_MESSAGE(n.rejected_with({"bound to 3 tensors", "gives 2"}), n.joined());
    }
    SUBCASE("conformance 292: unstack axis out of range") {
        auto r = OpCall("unstack").tensor("value", {2, 3}).arg("axis", I(2)).count("values", 2).run();
        CHECK_MESSAGE(r.rejected_with({"'axis' is 2"}), r.joined());
    }
}

TEST_CASE("ops: slice") {
    SUBCASE("negative items and end 0 (conformance 059)") {
        CHECK(slice({3, 8, 6, 5}, {1, 2}, {1, -3}, {0, -1}).run().shape("output") == Shape{3, 7, 2, 5});
        CHECK(slice({3, 8, 6, 5}, {0}, {-1}, {0}).run().shape("output") == Shape{1, 8, 6, 5});
        CHECK(slice({3, 8, 6, 5}, {3, 0}, {0, 1}, {5, 3}).run().shape("output") == Shape{2, 8, 6, 5});
        CHECK(slice({3, 8, 6, 5}, {2}, {-5}, {4}).run().shape("output") == Shape{3, 8, 3, 5});
        CHECK(slice({3, 4}, {0}, {-1}, {3}).run().shape("output") == Shape{1, 4});  // -1 -> 2
        CHECK(slice({4, 6}, {}, {}, {}).run().shape("output") == Shape{4, 6});
    }
    SUBCASE("stride (SPEC_NOTES 2)") {
        CHECK(slice({10}, {0}, {1}, {8}).arg("stride", Ints({3})).run().shape("output") == Shape{3});   // 1 4 7
        CHECK(slice({10}, {0}, {0}, {0}).arg("stride", Ints({4})).run().shape("output") == Shape{3});   // 0 4 8
        CHECK(slice({10}, {0}, {-1}, {-11}).arg("stride", Ints({-1})).run().shape("output") == Shape{10});  // 9..0
        CHECK(slice({10}, {0}, {8}, {1}).arg("stride", Ints({-3})).run().shape("output") == Shape{3});  // 8 5 2
        CHECK(slice({10}, {0}, {5}, {0}).arg("stride", Ints({-2})).run().shape("output") == Shape{3});  // 5 3 1
    }
    SUBCASE("invalid strides") {
        CHECK(slice({10}, {0}, {1}, {8}).arg("stride", Ints({0})).run().rejected_with({"item 0 of 'stride' [0] is 0"}));
        CHECK(slice({10}, {0}, {1}, {8}).arg("stride", Ints({1, 1})).run().rejected_with({"'stride' [1,1] must be empty"}));
        CHECK(slice({10}, {0}, {1}, {8}).arg("stride", Ints({-1})).run().rejected_with({"must be before 'begin'"}));
        CHECK(slice({10}, {0}, {10}, {2}).arg("stride", Ints({-1})).run().rejected_with({"'begin' item 10 is outside [-10, 10)"}));
    }
    SUBCASE("conformance 293: lengths differ") {
        auto r = slice({4, 6}, {0, 1}, {1}, {3, 4}).run();
        CHECK_MESSAGE(r.rejected_with({"'axes' [0,1], 'begin' [1] and 'end' [3,4] must have the same length"}), r.joined());
    }
    SUBCASE("conformance 295, 296, 335: begin and end outside (-x, x]") {
        auto b = slice({4, 6}, {1}, {7}, {0}).run();
        CHECK_MESSAGE(b.rejected_with({"'begin' item 7 is outside (-6, 6] for axis 1 of 'input' [4,6]"}), b.joined());
        auto e = slice({4, 6}, {1}, {1}, {9}).run();
        CHECK_MESSAGE(e.rejected_with({"'end' item 9 is outside (-6, 6]"}), e.joined());
        auto m = slice({4, 6}, {1}, {-6}, {2}).run();
        CHECK_MESSAGE(m.rejected_with({"'begin' item -6 is outside (-6, 6]"}), m.joined());
    }
    SUBCASE("de facto: INT32_MAX as 'to the end' (NNEF-Tools' converters), a warning; an error in the strict dialect") {
        auto r = slice({4, 6}, {1}, {2}, {2147483647}).run();
        CHECK(r.shape("output") == Shape{4, 4});
        REQUIRE(r.warnings.size() == 1);
        CHECK(r.warnings[0].find("'end' item 2147483647 is the 'to the end' sentinel") != std::string::npos);
        CHECK(r.warnings[0].find("read as 6") != std::string::npos);
        auto s = slice({4, 6}, {1}, {2}, {2147483647}).strict().run();
        CHECK_MESSAGE(s.rejected_with({"'end' item 2147483647 is outside (-6, 6]"}), s.joined());
        auto near = slice({4, 6}, {1}, {2}, {2147483646}).run();  // only the sentinel, not any large bound
        CHECK_MESSAGE(near.rejected_with({"'end' item 2147483646 is outside (-6, 6]"}), near.joined());
    }
    SUBCASE("conformance 298, 299: empty slices") {
        auto r = slice({4, 6}, {1}, {2}, {2}).run();
        CHECK_MESSAGE(r.rejected_with({"'end' item 2 must be after 'begin' item 2"}), r.joined());
        CHECK(slice({4, 6}, {0}, {3}, {1}).run().rejected_with({"must be after"}));
        CHECK(slice({4, 6}, {0}, {4}, {0}).run().rejected_with({"must be after"}));  // begin x, end x
    }
    SUBCASE("axes out of range or repeated") {
        CHECK(slice({4, 6}, {2}, {0}, {1}).run().rejected_with({"item 0 of 'axes' [2] is 2"}));
        CHECK(slice({4, 6}, {1, 1}, {0, 1}, {1, 2}).run().rejected_with({"twice"}));
    }
}

TEST_CASE("ops: tile, pad, gather, cast (SPEC_NOTES 2)") {
    SUBCASE("tile") {
        CHECK(OpCall("tile").tensor("input", {2, 3}).arg("repeats", Ints({3, 1})).run().shape("output") == Shape{6, 3});
        CHECK(OpCall("tile").tensor("input", {2, 3}).arg("repeats", Ints({3})).run().rejected_with({"'repeats' [3] has 1 items"}));
        CHECK(OpCall("tile").tensor("input", {2, 3}).arg("repeats", Ints({1, 0})).run().rejected_with({"item 1 of 'repeats'"}));
        CHECK(OpCall("tile").tensor("input", {std::int64_t(1) << 62}).arg("repeats", Ints({4})).run().rejected_with({"overflows"}));
    }
    SUBCASE("pad") {
        CHECK(OpCall("pad").tensor("input", {1, 3, 4, 4}).arg("padding", Pads({{0, 0}, {0, 0}, {1, 2}, {3, 0}})).run().shape("output") == Shape{1, 3, 7, 7});
        CHECK(OpCall("pad").tensor("input", {4, 4}).arg("padding", Pads({{1, 1}})).run().shape("output") == Shape{6, 4});
        CHECK(OpCall("pad").tensor("input", {4}).arg("padding", Pads({{1, 1}, {1, 1}})).run().rejected_with({"'padding' has 2 items"}));
        CHECK(OpCall("pad").tensor("input", {4}).arg("padding", Pads({{-1, 1}})).run().rejected_with({"item 0 of 'padding' (-1, 1) is negative"}));
        CHECK(OpCall("pad").tensor("input", {4}).arg("padding", Pads({{1, 1}})).arg("border", Str("ignore")).run().rejected_with({"'border' is 'ignore'"}));
        CHECK(OpCall("pad").tensor("input", {4}).arg("padding", Pads({{3, 3}})).arg("border", Str("reflect")).run().ok);
        CHECK(OpCall("pad").tensor("input", {4}).arg("padding", Pads({{4, 0}})).arg("border", Str("reflect")).run().rejected_with({"larger than 3"}));
        CHECK(OpCall("pad").tensor("input", {4}).arg("padding", Pads({{4, 4}})).arg("border", Str("reflect-even")).run().ok);
        CHECK(OpCall("pad").tensor("input", {4}).arg("padding", Pads({{9, 9}})).arg("border", Str("replicate")).run().ok);
    }
    SUBCASE("gather") {
        CHECK(OpCall("gather").tensor("input", {5, 6, 7}).tensor("indices", {2, 3}).arg("axis", I(1)).run().shape("output") == Shape{5, 2, 3, 7});
        CHECK(OpCall("gather").tensor("input", {5, 6}).tensor("indices", {4}).run().shape("output") == Shape{4, 6});
        CHECK(OpCall("gather").tensor("input", {5, 6}).arg("indices", I(2)).arg("axis", I(1)).run().shape("output") == Shape{5});
        CHECK(OpCall("gather").tensor("input", {5, 6}).tensor("indices", {4}).arg("axis", I(2)).run().rejected_with({"'axis' is 2"}));
    }
}

}  // TEST_SUITE

}  // namespace ops_shape_ops_test
