// Shape functions of the reduce operations (spec 4.4) and the compounds checked through them:
// mean_reduce, moments, softmax, l1/l2_normalization; batch_normalization and the quantization
// compounds (element-wise).
#include "ops_mock.hpp"

namespace ops_reduce_test {

using namespace ops_test;

TEST_SUITE("semantics") {

TEST_CASE("ops: reductions") {
    const Shape in{2, 3, 4, 5};
    SUBCASE("conformance 055") {
        CHECK(OpCall("sum_reduce").tensor("input", in).arg("axes", Ints({1, 3})).arg("normalize", B(true)).run().shape("output") == Shape{2, 1, 4, 1});
        CHECK(OpCall("max_reduce").tensor("input", in).arg("axes", Ints({0})).run().shape("output") == Shape{1, 3, 4, 5});
        CHECK(OpCall("min_reduce").tensor("input", in).arg("axes", Ints({2})).run().shape("output") == Shape{2, 3, 1, 5});
        CHECK(OpCall("argmax_reduce").tensor("input", in).arg("axes", Ints({1})).run().shape("output") == Shape{2, 1, 4, 5});
        CHECK(OpCall("argmin_reduce").tensor("input", in).arg("axes", Ints({3, 0, 1, 2})).run().shape("output") == Shape{1, 1, 1, 1});
        CHECK(OpCall("sum_reduce").tensor("input", in).arg("axes", Ints({})).run().shape("output") == in);
    }
    SUBCASE("mean_reduce (conformance 076), any_reduce, all_reduce") {
        CHECK(OpCall("mean_reduce").tensor("input", in).arg("axes", Ints({2, 3})).run().shape("output") == Shape{2, 3, 1, 1});
        CHECK(OpCall("any_reduce").tensor("input", {2, 3}).arg("axes", Ints({1})).run().shape("output") == Shape{2, 1});
        CHECK(OpCall("all_reduce").tensor("input", {2, 3}).arg("axes", Ints({0})).run().shape("output") == Shape{1, 3});
    }
    SUBCASE("conformance 263, 266: axis equal to the rank") {
        auto r = OpCall("sum_reduce").tensor("input", {2, 3, 4}).arg("axes", Ints({3})).run();
        CHECK_MESSAGE(r.rejected_with({"sum_reduce:", "item 0 of 'axes' [3] is 3", "less than the rank 3 of 'input' [2,3,4]"}), r.joined());
        CHECK(OpCall("argmax_reduce").tensor("input", {2, 3}).arg("axes", Ints({2})).run().rejected_with({"less than the rank 2"}));
    }
    SUBCASE("conformance 265: duplicate axis") {
        auto r = OpCall("min_reduce").tensor("input", {2, 3, 4}).arg("axes", Ints({1, 1})).run();
        CHECK_MESSAGE(r.rejected_with({"'axes' [1,1] lists axis 1 twice"}), r.joined());
    }
    SUBCASE("negative axis") {
        CHECK(OpCall("max_reduce").tensor("input", {2, 3}).arg("axes", Ints({-1})).run().rejected_with({"non-negative"}));
    }
    SUBCASE("moments (conformance 016, 074)") {
        auto r = OpCall("moments").tensor("input", {2, 4, 6}).arg("axes", Ints({2})).run();
        CHECK(r.shape("mean") == Shape{2, 4, 1});
        CHECK(r.shape("variance") == Shape{2, 4, 1});
        CHECK(OpCall("moments").tensor("input", {2, 4}).arg("axes", Ints({2})).run().rejected_with({"moments:"}));
    }
    SUBCASE("softmax keeps the shape; default axes [1]") {
        CHECK(OpCall("softmax").tensor("x", {2, 10}).run().shape("y") == Shape{2, 10});
        CHECK(OpCall("softmax").tensor("x", {2, 10, 3}).arg("axes", Ints({1, 2})).run().shape("y") == Shape{2, 10, 3});
    }
    SUBCASE("conformance 268: softmax axis out of range") {
        auto r = OpCall("softmax").tensor("x", {2, 3}).arg("axes", Ints({2})).run();
        CHECK_MESSAGE(r.rejected_with({"softmax:", "'x' [2,3]"}), r.joined());
        CHECK(OpCall("softmax").tensor("x", {10}).run().rejected_with({"item 0 of 'axes' [1] is 1"}));
    }
}

TEST_CASE("ops: normalizations over axes, batch_normalization") {
    SUBCASE("l1/l2_normalization keep the shape") {
        CHECK(OpCall("l2_normalization").tensor("input", {2, 3}).arg("axes", Ints({1})).run().shape("output") == Shape{2, 3});
        CHECK(OpCall("l1_normalization").tensor("input", {2, 3}).arg("axes", Ints({0, 1})).run().shape("output") == Shape{2, 3});
    }
    SUBCASE("conformance 269: l2_normalization axis out of range") {
        auto r = OpCall("l2_normalization").tensor("input", {2, 3}).arg("axes", Ints({5})).run();
        CHECK_MESSAGE(r.rejected_with({"l2_normalization:", "item 0 of 'axes' [5] is 5"}), r.joined());
    }
    SUBCASE("batch_normalization broadcasts its statistics") {
        auto bn = [](Shape stats) {
            return OpCall("batch_normalization")
                .tensor("input", {4, 16, 8, 8})
                .tensor("mean", stats)
                .tensor("variance", stats)
                .tensor("offset", stats)
                .tensor("scale", stats)
                .arg("epsilon", S(1e-5))
                .run();
        };
        CHECK(bn({1, 16}).shape("output") == Shape{4, 16, 8, 8});
        auto r = bn({1, 8});
        CHECK_MESSAGE(r.rejected_with({"'input' [4,16,8,8] and 'mean' [1,8]", "dimension 1"}), r.joined());
    }
}

TEST_CASE("ops: quantization compounds") {
    SUBCASE("conformance 073") {
        CHECK(OpCall("linear_quantize").tensor("x", {1, 8, 4, 4}).arg("min", S(0)).arg("max", S(1)).arg("bits", I(8)).run().shape("y") == Shape{1, 8, 4, 4});
        CHECK(OpCall("linear_quantize").tensor("x", {1, 8, 4, 4}).tensor("min", {1, 8}).tensor("max", {1, 8}).arg("bits", I(4)).run().shape("y") == Shape{1, 8, 4, 4});
        CHECK(OpCall("logarithmic_quantize").tensor("x", {1, 8, 4, 4}).arg("max", S(4)).arg("bits", I(5)).run().shape("y") == Shape{1, 8, 4, 4});
    }
    SUBCASE("later compounds") {
        CHECK(OpCall("min_max_linear_quantize").tensor("x", {2, 3}).tensor("min", {1, 3}).arg("max", S(1)).arg("bits", I(8))
                  .arg("signed", B(true)).arg("symmetric", B(false)).run().shape("y") == Shape{2, 3});
        CHECK(OpCall("zero_point_linear_quantize").tensor("x", {2, 3}).tensor("zero_point", {1, 3}).tensor("scale", {1, 3}).arg("bits", I(8))
                  .arg("signed", B(false)).arg("symmetric", B(false)).run().shape("y") == Shape{2, 3});
    }
    SUBCASE("invalid arguments") {
        auto r = OpCall("linear_quantize").tensor("x", {1, 8, 4, 4}).tensor("min", {1, 4}).arg("max", S(1)).arg("bits", I(8)).run();
        CHECK_MESSAGE(r.rejected_with({"'x' [1,8,4,4] and 'min' [1,4]"}), r.joined());
        CHECK(OpCall("linear_quantize").tensor("x", {2}).arg("min", S(0)).arg("max", S(1)).arg("bits", I(0)).run().rejected_with({"'bits' is 0"}));
        CHECK(OpCall("logarithmic_quantize").tensor("x", {2}).arg("max", S(1)).arg("bits", I(63)).run().rejected_with({"'bits' is 63"}));
    }
}

}  // TEST_SUITE

}  // namespace ops_reduce_test
