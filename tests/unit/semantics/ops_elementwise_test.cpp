// Shape functions of the element-wise operations (spec 4.2, 4.9.1, 4.9.6, SPEC_NOTES 2).
#include "ops_mock.hpp"

namespace ops_elementwise_test {

using namespace ops_test;

TEST_SUITE("semantics") {

TEST_CASE("ops: unary operations keep the shape") {
    for (const char* name : {"copy", "neg", "rcp", "exp", "log", "abs", "sign", "not", "floor", "ceil", "round",
                             "tanh", "sin", "acosh", "sqr", "sqrt", "rsqr", "rsqrt", "log2", "sigmoid", "relu",
                             "elu", "softplus", "selu", "gelu", "silu"}) {
        CAPTURE(name);
        auto r = OpCall(name).tensor("x", {2, 3}).run();
        REQUIRE(r.ok);
        CHECK(r.shape("y") == Shape{2, 3});
    }
    auto leaky = OpCall("leaky_relu").tensor("x", {4}).arg("alpha", S(0.1)).run();
    CHECK(leaky.shape("y") == Shape{4});
    auto softabs = OpCall("softabs").tensor("x", {4, 1}).arg("epsilon", S(0.1)).run();
    CHECK(softabs.shape("y") == Shape{4, 1});
    auto cast = OpCall("cast").tensor("input", {2, 5}).run();
    CHECK(cast.shape("output") == Shape{2, 5});
    auto literal = OpCall("neg").arg("x", S(1.0)).run();
    CHECK(literal.shape("y") == Shape{});
}

TEST_CASE("ops: binary broadcasting (4.2.2)") {
    auto binary = [](const char* name, Shape x, Shape y) {
        return OpCall(name).tensor("x", std::move(x)).tensor("y", std::move(y)).run();
    };
    SUBCASE("equal, singleton and implicit trailing dimensions (conformance 032)") {
        CHECK(binary("add", {2, 3, 4}, {2, 1, 4}).shape("z") == Shape{2, 3, 4});
        CHECK(binary("sub", {2, 1, 4}, {2, 3, 4}).shape("z") == Shape{2, 3, 4});
        CHECK(binary("mul", {2, 3, 4}, {1, 3}).shape("z") == Shape{2, 3, 4});
        CHECK(binary("div", {1, 3}, {2, 1, 4}).shape("z") == Shape{2, 3, 4});
        CHECK(binary("max", {1, 3}, {2, 1}).shape("z") == Shape{2, 3});
    }
    SUBCASE("a literal operand has shape []") {
        auto r = OpCall("pow").tensor("x", {2, 3, 4}).arg("y", S(2.0)).run();
        CHECK(r.shape("z") == Shape{2, 3, 4});
        auto r2 = OpCall("sub").arg("x", S(0.5)).tensor("y", {3, 2}).run();
        CHECK(r2.shape("z") == Shape{3, 2});
    }
    SUBCASE("a lower rank operand is aligned from dimension 0") {
        CHECK(binary("add", {3}, {3, 4}).shape("z") == Shape{3, 4});
        CHECK(binary("add", {4, 1}, {4}).shape("z") == Shape{4, 1});
    }
    SUBCASE("comparisons and logical operations") {
        for (const char* name : {"lt", "gt", "le", "ge", "eq", "ne", "and", "or", "min"}) {
            CAPTURE(name);
            CHECK(binary(name, {2, 1}, {1, 5}).shape("z") == Shape{2, 5});
        }
    }
    SUBCASE("conformance 211: incompatible extents") {
        auto r = binary("add", {2, 3}, {3, 2});
        CHECK_MESSAGE(r.rejected_with({"add:", "'x' [2,3] and 'y' [3,2]", "extents 2 and 3 in dimension 0"}),
                      r.joined());
    }
    SUBCASE("conformance 212: numpy right alignment does not apply") {
        auto r = binary("mul", {4, 3}, {3});
        CHECK_MESSAGE(r.rejected_with({"'x' [4,3] and 'y' [3]", "extents 4 and 3 in dimension 0", "matched from dimension 0"}),
                      r.joined());
    }
    SUBCASE("conformance 214: operator expression on incompatible tensors") {
        CHECK(binary("mul", {2, 5}, {3, 5}).rejected_with({"dimension 0"}));
    }
    SUBCASE("conformance 217: min (compound)") {
        CHECK(binary("min", {2, 3}, {4, 3}).rejected_with({"min:", "dimension 0"}));
    }
}

TEST_CASE("ops: select, clamp, prelu") {
    SUBCASE("select broadcasts its three arguments") {
        auto r = OpCall("select").tensor("condition", {2, 1}).tensor("true_value", {2, 3}).arg("false_value", S(0.0)).run();
        REQUIRE(r.ok);
        CHECK(r.shape("output") == Shape{2, 3});
        auto r2 = OpCall("select").tensor("condition", {1, 3}).tensor("true_value", {2, 1}).tensor("false_value", {2, 3}).run();
        CHECK(r2.shape("output") == Shape{2, 3});
    }
    SUBCASE("conformance 215: select mismatch") {
        auto r = OpCall("select").tensor("condition", {2, 3}).tensor("true_value", {2, 3}).tensor("false_value", {2, 4}).run();
        CHECK_MESSAGE(r.rejected_with({"'condition' [2,3] and 'false_value' [2,4]", "dimension 1"}), r.joined());
    }
    SUBCASE("clamp (conformance 065)") {
        CHECK(OpCall("clamp").tensor("x", {2, 3}).arg("a", S(0)).arg("b", S(1)).run().shape("y") == Shape{2, 3});
        CHECK(OpCall("clamp").tensor("x", {2, 3}).tensor("a", {1, 3}).arg("b", S(6)).run().shape("y") == Shape{2, 3});
        CHECK(OpCall("clamp").tensor("x", {2, 3}).tensor("a", {2, 2}).arg("b", S(6)).run().rejected_with({"'a'"}));
    }
    SUBCASE("prelu") {
        CHECK(OpCall("prelu").tensor("x", {1, 8, 4, 4}).tensor("alpha", {1, 8}).run().shape("y") == Shape{1, 8, 4, 4});
        CHECK(OpCall("prelu").tensor("x", {2, 8, 4, 4}).tensor("alpha", {8}).run().rejected_with({"'alpha' [8]"}));
        // [8] is [8,1,1,1]: against a batch of 1 it broadcasts (4.2.2 aligns from dimension 0).
        CHECK(OpCall("prelu").tensor("x", {1, 8, 4, 4}).tensor("alpha", {8}).run().shape("y") == Shape{8, 8, 4, 4});
    }
}

TEST_CASE("ops: copy_n and add_n (4.9.6)") {
    SUBCASE("copy_n gives `times` copies (conformance 074)") {
        auto r = OpCall("copy_n").tensor("x", {1, 8, 4, 4}).arg("times", I(3)).count("y", 3).run();
        REQUIRE(r.ok);
        CHECK(r.arrays.at("y") == std::vector<Shape>(3, Shape{1, 8, 4, 4}));
    }
    SUBCASE("copy_n bound to a different number of tensors") {
        auto r = OpCall("copy_n").tensor("x", {2}).arg("times", I(3)).count("y", 2).run();
        CHECK_MESSAGE(r.rejected_with({"bound to 2 tensors", "'times' is 3"}), r.joined());
    }
    SUBCASE("copy_n with negative times") {
        CHECK(OpCall("copy_n").tensor("x", {2}).arg("times", I(-1)).run().rejected_with({"non-negative"}));
    }
    SUBCASE("add_n broadcasts every item") {
        auto r = OpCall("add_n").tensors("x", {{1, 8, 4, 4}, {1, 8, 4, 4}, {1, 8}}).run();
        REQUIRE(r.ok);
        CHECK(r.shape("y") == Shape{1, 8, 4, 4});
    }
    SUBCASE("add_n of one tensor (conformance 149)") {
        CHECK(OpCall("add_n").tensors("x", {{2}}).run().shape("y") == Shape{2});
    }
    SUBCASE("add_n mismatch names the items") {
        auto r = OpCall("add_n").tensors("x", {{2, 3}, {2, 3}, {2, 4}}).run();
        CHECK_MESSAGE(r.rejected_with({"'x[0]' [2,3] and 'x[2]' [2,4]"}), r.joined());
    }
    SUBCASE("add_n of nothing") {
        CHECK(OpCall("add_n").tensors("x", {}).run().rejected_with({"'x' is empty"}));
    }
}

}  // TEST_SUITE

}  // namespace ops_elementwise_test
