// Shape functions of external, constant, variable (spec 4.1) and update (4.8).
#include "ops_mock.hpp"

namespace ops_tensor_intro_test {

using namespace ops_test;

TEST_SUITE("semantics") {

TEST_CASE("ops: external") {
    SUBCASE("shape is the output shape") {
        auto r = OpCall("external").arg("shape", Ints({1, 2, 3, 4, 5, 6})).run();
        REQUIRE(r.ok);
        CHECK(r.shape("output") == Shape{1, 2, 3, 4, 5, 6});
    }
    SUBCASE("rank 0") {
        auto r = OpCall("external").arg("shape", Ints({})).run();
        REQUIRE(r.ok);
        CHECK(r.shape("output") == Shape{});
    }
    SUBCASE("conformance 196: zero extent") {
        auto r = OpCall("external").arg("shape", Ints({2, 0})).run();
        CHECK_MESSAGE(r.rejected_with({"external:", "item 1 of 'shape' [2,0] is 0", "positive"}), r.joined());
    }
    SUBCASE("conformance 197: negative extent") {
        auto r = OpCall("external").arg("shape", Ints({-1, 3})).run();
        CHECK_MESSAGE(r.rejected_with({"item 0 of 'shape'", "is -1"}), r.joined());
    }
    SUBCASE("volume overflow") {
        auto r = OpCall("external").arg("shape", Ints({std::int64_t(1) << 32, std::int64_t(1) << 32})).run();
        CHECK_MESSAGE(r.rejected_with({"overflows"}), r.joined());
    }
}

TEST_CASE("ops: constant") {
    SUBCASE("full value list") {
        auto r = OpCall("constant").arg("shape", Ints({2, 3})).arg("value", Scalars({1, 2, 3, 4, 5, 6})).run();
        REQUIRE(r.ok);
        CHECK(r.shape("output") == Shape{2, 3});
    }
    SUBCASE("one repeated value") {
        auto r = OpCall("constant").arg("shape", Ints({2, 3})).arg("value", Scalars({0.5})).run();
        REQUIRE(r.ok);
        CHECK(r.shape("output") == Shape{2, 3});
    }
    SUBCASE("conformance 199: value count neither 1 nor the volume") {
        auto r = OpCall("constant").arg("shape", Ints({2, 3})).arg("value", Scalars({1, 2})).run();
        CHECK_MESSAGE(r.rejected_with({"'value' has 2 items", "volume 6"}), r.joined());
    }
    SUBCASE("conformance 200: value longer than the volume") {
        auto r = OpCall("constant").arg("shape", Ints({2})).arg("value", Scalars({1, 2, 3})).run();
        CHECK_MESSAGE(r.rejected_with({"'value' has 3 items"}), r.joined());
    }
    SUBCASE("empty value") {
        auto r = OpCall("constant").arg("shape", Ints({1})).arg("value", Scalars({})).run();
        CHECK_MESSAGE(r.rejected_with({"'value' has 0 items"}), r.joined());
    }
    SUBCASE("zero extent") {
        auto r = OpCall("constant").arg("shape", Ints({0})).arg("value", Scalars({1})).run();
        CHECK_MESSAGE(r.rejected_with({"'shape'", "positive"}), r.joined());
    }
}

TEST_CASE("ops: variable") {
    auto var = [](Value shape, std::string label) {
        return OpCall("variable").arg("shape", std::move(shape)).arg("label", Str(std::move(label))).run();
    };
    SUBCASE("labels with every allowed character") {
        auto r = var(Ints({3, 3}), "Block_1/conv-1.weights\\W9");
        REQUIRE(r.ok);
        CHECK(r.shape("output") == Shape{3, 3});
    }
    SUBCASE("conformance 202: zero extent") {
        auto r = var(Ints({2, 0}), "w");
        CHECK_MESSAGE(r.rejected_with({"item 1 of 'shape'"}), r.joined());
    }
    SUBCASE("conformance 203: empty label") {
        auto r = var(Ints({2}), "");
        CHECK_MESSAGE(r.rejected_with({"'label' is empty"}), r.joined());
    }
    SUBCASE("conformance 205: colon") {
        auto r = var(Ints({2}), "scope:w");
        CHECK_MESSAGE(r.rejected_with({"contains ':' at position 5"}), r.joined());
    }
    SUBCASE("conformance 206: quote") {
        auto r = var(Ints({2}), "it's");
        CHECK_MESSAGE(r.rejected_with({"contains '''"}), r.joined());
    }
    SUBCASE("space and non-ASCII") {
        CHECK(var(Ints({2}), "a b").rejected_with({"contains ' '"}));
        CHECK(var(Ints({2}), "caf\xc3\xa9").rejected_with({"byte 0xc3"}));
    }
}

TEST_CASE("ops: update") {
    SUBCASE("value of the variable's shape") {
        auto r = OpCall("update").tensor("variable", {1, 4}, "variable").tensor("value", {1, 4}).run();
        REQUIRE(r.ok);
        CHECK(r.shape("result") == Shape{1, 4});
    }
    SUBCASE("conformance 313: update of an external") {
        auto r = OpCall("update").tensor("variable", {2}, "external", "input").tensor("value", {2}).run();
        CHECK_MESSAGE(r.rejected_with({"'variable' 'input' is the result of 'external'", "only tensors introduced by 'variable'"}),
                      r.joined());
    }
    SUBCASE("conformance 314: update of a computed tensor") {
        auto r = OpCall("update").tensor("variable", {2}, "add", "s").tensor("value", {2}).run();
        CHECK_MESSAGE(r.rejected_with({"the result of 'add'"}), r.joined());
    }
    SUBCASE("literal for the variable") {
        auto r = OpCall("update").arg("variable", S(1.0)).tensor("value", {}).run();
        CHECK_MESSAGE(r.rejected_with({"a literal"}), r.joined());
    }
    SUBCASE("conformance 316 and 349: a value that merely broadcasts") {
        auto r = OpCall("update").tensor("variable", {3}, "variable").tensor("value", {1}).run();
        CHECK_MESSAGE(r.rejected_with({"'value' [1] must equal the shape of 'variable' [3]"}), r.joined());
        auto r2 = OpCall("update").tensor("variable", {1, 8}, "variable").tensor("value", {8, 8}).run();
        CHECK_MESSAGE(r2.rejected_with({"[8,8]", "[1,8]"}), r2.joined());
    }
    SUBCASE("conformance 319: shape conflict") {
        auto r = OpCall("update").tensor("variable", {4, 3}, "variable").tensor("value", {2, 3}).run();
        CHECK(r.rejected_with({"must equal"}));
    }
    SUBCASE("rank differs with trailing singleton") {
        auto r = OpCall("update").tensor("variable", {2}, "variable").tensor("value", {2, 1}).run();
        CHECK(r.rejected_with({"must equal"}));
    }
}

}  // TEST_SUITE

}  // namespace ops_tensor_intro_test
