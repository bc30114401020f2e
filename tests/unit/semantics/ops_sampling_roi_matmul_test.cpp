// Shape functions of up/down-sampling (spec 4.3.4), the RoI operations (4.6), matmul (4.7) and
// linear (4.9.2).
#include "ops_mock.hpp"

namespace ops_sampling_roi_matmul_test {

using namespace ops_test;

OpCall sampling(const char* name, Shape input, std::vector<std::int64_t> factor) {
    OpCall c(name);
    c.tensor("input", std::move(input)).arg("factor", Ints(std::move(factor)));
    return c;
}

OpCall roi(const char* name, Shape input, Shape rois, Shape index, std::vector<std::int64_t> size) {
    OpCall c(name);
    c.tensor("input", std::move(input)).tensor("rois", std::move(rois)).tensor("batch_index", std::move(index)).arg("output_size", Ints(std::move(size)));
    return c;
}

OpCall matmul(Shape a, Shape b, bool ta = false, bool tb = false) {
    OpCall c("matmul");
    c.tensor("A", std::move(a)).tensor("B", std::move(b)).arg("transposeA", B(ta)).arg("transposeB", B(tb));
    return c;
}

TEST_SUITE("semantics") {

TEST_CASE("ops: up- and down-sampling") {
    SUBCASE("spatial dimensions scale by the factors") {
        CHECK(sampling("nearest_downsample", {1, 3, 8, 6}, {2, 3}).run().shape("output") == Shape{1, 3, 4, 2});
        CHECK(sampling("area_downsample", {1, 3, 8, 6}, {4, 2}).run().shape("output") == Shape{1, 3, 2, 3});
        CHECK(sampling("nearest_upsample", {1, 3, 4, 4}, {2, 3}).run().shape("output") == Shape{1, 3, 8, 12});
        CHECK(sampling("multilinear_upsample", {1, 3, 4, 4}, {2, 2}).run().shape("output") == Shape{1, 3, 8, 8});
    }
    SUBCASE("shorter factor arrays get trailing 1s") {
        CHECK(sampling("nearest_upsample", {1, 3, 4, 4}, {2}).run().shape("output") == Shape{1, 3, 8, 4});
    }
    SUBCASE("methods and borders of multilinear_upsample") {
        for (const char* m : {"asymmetric", "symmetric", "aligned"})
            CHECK(sampling("multilinear_upsample", {1, 1, 2, 2}, {2, 2}).arg("method", Str(m)).run().ok);
        CHECK(sampling("multilinear_upsample", {1, 1, 2, 2}, {2, 2}).arg("method", Str("cubic")).run().rejected_with({"'method' is 'cubic'"}));
        CHECK(sampling("multilinear_upsample", {1, 1, 2, 2}, {2, 2}).arg("border", Str("constant")).run().ok);
    }
    SUBCASE("conformance 259: multilinear border 'ignore'") {
        auto r = sampling("multilinear_upsample", {1, 1, 4, 4}, {2, 2}).arg("border", Str("ignore")).run();
        CHECK_MESSAGE(r.rejected_with({"multilinear_upsample:", "'border' is 'ignore'"}), r.joined());
    }
    SUBCASE("conformance 260: zero factor") {
        auto r = sampling("multilinear_upsample", {1, 1, 4, 4}, {2, 0}).run();
        CHECK_MESSAGE(r.rejected_with({"item 1 of 'factor' [2,0] is 0"}), r.joined());
    }
    SUBCASE("conformance 262: factor longer than the spatial dimensions") {
        auto r = sampling("nearest_downsample", {1, 1, 4, 4}, {2, 2, 1}).run();
        CHECK_MESSAGE(r.rejected_with({"'factor' [2,2,1] has 3 items", "2 spatial dimensions"}), r.joined());
    }
    SUBCASE("down-sampling factors must divide (SPEC_NOTES 5)") {
        auto r = sampling("area_downsample", {1, 1, 5, 4}, {2, 2}).run();
        CHECK_MESSAGE(r.rejected_with({"item 0 of 'factor' [2,2] (2) does not divide the extent 5", "dimension 2"}), r.joined());
        CHECK(sampling("nearest_downsample", {1, 1, 4, 6}, {2, 4}).run().rejected_with({"extent 6"}));
    }
    SUBCASE("input without a channel dimension") {
        CHECK(sampling("nearest_upsample", {4}, {}).run().rejected_with({"rank at least 2"}));
    }
}

TEST_CASE("ops: RoI operations") {
    SUBCASE("conformance 062") {
        CHECK(roi("avg_roi_pool", {2, 8, 16, 16}, {5, 4}, {5, 1}, {7, 7}).run().shape("output") == Shape{5, 8, 7, 7});
        CHECK(roi("max_roi_pool", {2, 8, 16, 16}, {5, 4}, {5, 1}, {3, 5}).run().shape("output") == Shape{5, 8, 3, 5});
        CHECK(roi("roi_resample", {2, 8, 16, 16}, {5, 4}, {5, 1}, {14, 14}).arg("method", Str("aligned")).run().shape("output") == Shape{5, 8, 14, 14});
    }
    SUBCASE("RoI align compounds (conformance 146)") {
        for (const char* name : {"avg_roi_align", "max_roi_align"}) {
            CAPTURE(name);
            CHECK(roi(name, {2, 8, 16, 16}, {5, 4}, {5, 1}, {7, 7}).arg("sampling_rate", Ints({2, 2})).run().shape("output") == Shape{5, 8, 7, 7});
            CHECK(roi(name, {2, 8, 16, 16}, {5, 4}, {5, 1}, {7, 7}).arg("sampling_rate", Ints({2})).run().rejected_with({"'sampling_rate' [2] has 1 items"}));
            CHECK(roi(name, {2, 8, 16, 16}, {5, 4}, {5, 1}, {7, 7}).arg("sampling_rate", Ints({2, 0})).run().rejected_with({"item 1 of 'sampling_rate'"}));
            CHECK(roi(name, {2, 8, 16, 16}, {5, 4}, {5, 1}, {7, 7}).arg("sampling_rate", Ints({2, 2})).arg("resize_method", Str("nearest")).run().rejected_with({"'resize_method' is 'nearest'"}));
        }
    }
    SUBCASE("3-D RoIs and a rank-1 batch_index") {
        CHECK(roi("max_roi_pool", {1, 4, 8, 8, 8}, {3, 6}, {3}, {2, 2, 2}).run().shape("output") == Shape{3, 4, 2, 2, 2});
    }
    SUBCASE("conformance 301: rois width") {
        auto r = roi("avg_roi_pool", {1, 4, 8, 8}, {3, 3}, {3, 1}, {2, 2}).run();
        CHECK_MESSAGE(r.rejected_with({"'rois' [3,3] must have shape (N, 4)"}), r.joined());
    }
    SUBCASE("conformance 302: batch_index count") {
        auto r = roi("max_roi_pool", {1, 4, 8, 8}, {3, 4}, {2, 1}, {2, 2}).run();
        CHECK_MESSAGE(r.rejected_with({"'batch_index' [2,1] must have shape (N, 1) = [3,1]"}), r.joined());
        CHECK(roi("max_roi_pool", {1, 4, 8, 8}, {3, 4}, {3, 2}, {2, 2}).run().rejected_with({"'batch_index' [3,2]"}));
    }
    SUBCASE("conformance 304: output_size item 0") {
        auto r = roi("roi_resample", {1, 4, 8, 8}, {3, 4}, {3, 1}, {0, 2}).run();
        CHECK_MESSAGE(r.rejected_with({"item 0 of 'output_size' [0,2] is 0"}), r.joined());
        CHECK(roi("roi_resample", {1, 4, 8, 8}, {3, 4}, {3, 1}, {2}).run().rejected_with({"'output_size' [2] has 1 items"}));
    }
    SUBCASE("conformance 347: roi_resample method") {
        auto r = roi("roi_resample", {1, 4, 8, 8}, {3, 4}, {3, 1}, {2, 2}).arg("method", Str("cubic")).run();
        CHECK_MESSAGE(r.rejected_with({"'method' is 'cubic'", "'asymmetric', 'symmetric', 'aligned'"}), r.joined());
    }
    SUBCASE("input without spatial dimensions") {
        CHECK(roi("avg_roi_pool", {1, 4}, {3, 0}, {3, 1}, {}).run().rejected_with({"rank at least 3"}));
    }
}

TEST_CASE("ops: matmul") {
    SUBCASE("transposes") {
        CHECK(matmul({3, 4}, {4, 5}).run().shape("C") == Shape{3, 5});
        CHECK(matmul({3, 4}, {5, 4}, false, true).run().shape("C") == Shape{3, 5});
        CHECK(matmul({4, 3}, {4, 5}, true, false).run().shape("C") == Shape{3, 5});
        CHECK(matmul({4, 3}, {5, 4}, true, true).run().shape("C") == Shape{3, 5});
    }
    SUBCASE("batch dimensions broadcast (conformance 061)") {
        CHECK(matmul({2, 1, 3, 4}, {1, 5, 4, 6}).run().shape("C") == Shape{2, 5, 3, 6});
        CHECK(matmul({7, 3, 4}, {7, 4, 2}).run().shape("C") == Shape{7, 3, 2});
    }
    SUBCASE("conformance 307: transposeB") {
        auto r = matmul({3, 4}, {4, 5}, false, true).run();
        CHECK_MESSAGE(r.rejected_with({"matmul:", "columns of 'A' [3,4] (4) must equal the columns of 'B' (transposed) [4,5] (5)"}), r.joined());
    }
    SUBCASE("conformance 308: transposeA") {
        auto r = matmul({3, 4}, {4, 5}, true, false).run();
        CHECK_MESSAGE(r.rejected_with({"rows of 'A' (transposed) [3,4] (3) must equal the rows of 'B' [4,5] (4)"}), r.joined());
    }
    SUBCASE("conformance 326: both transposed") {
        auto r = matmul({3, 4}, {5, 4}, true, true).run();
        CHECK_MESSAGE(r.rejected_with({"rows of 'A' (transposed) [3,4] (3)", "columns of 'B' (transposed) [5,4] (4)"}), r.joined());
    }
    SUBCASE("conformance 310: rank 1") {
        CHECK(matmul({4}, {4}).run().rejected_with({"ranks of 'A' [4] and 'B' [4] must be equal and at least 2"}));
        CHECK(matmul({2, 3, 4}, {4, 5}).run().rejected_with({"must be equal"}));
    }
    SUBCASE("conformance 311: batch mismatch") {
        auto r = matmul({2, 3, 4}, {3, 4, 5}).run();
        CHECK_MESSAGE(r.rejected_with({"'A' [2] and 'B' [3]", "dimension 0"}), r.joined());
    }
}

TEST_CASE("ops: linear") {
    auto linear = [](Shape input, Shape filter) {
        OpCall c("linear");
        c.tensor("input", std::move(input)).tensor("filter", std::move(filter));
        return c;
    };
    SUBCASE("conformance 067, 121") {
        CHECK(linear({4, 16}, {8, 16}).tensor("bias", {1, 8}).run().shape("output") == Shape{4, 8});
        CHECK(linear({4, 16}, {8, 16}).run().shape("output") == Shape{4, 8});
        CHECK(linear({4, 10}, {3, 10}).tensor("bias", {1}).run().shape("output") == Shape{4, 3});
    }
    SUBCASE("the sum broadcasts like add (conformance 349)") {
        CHECK(linear({8, 16}, {1, 16}).tensor("bias", {1, 8}).run().shape("output") == Shape{8, 8});
    }
    SUBCASE("filter and bias mismatches") {
        auto r = linear({4, 16}, {8, 15}).run();
        CHECK_MESSAGE(r.rejected_with({"linear:", "columns of 'input' [4,16] (16) must equal the columns of 'filter' (transposed) [8,15] (15)"}), r.joined());
        CHECK(linear({4, 16}, {8, 16}).tensor("bias", {1, 7}).run().rejected_with({"'bias' [1,7]"}));
    }
    SUBCASE("rank-1 bias: warning in the default dialect, error in strict") {
        auto r = linear({4, 16}, {8, 16}).tensor("bias", {8}).run();
        CHECK(r.shape("output") == Shape{4, 8});
        CHECK(r.warnings.size() == 1);
        CHECK(linear({4, 16}, {8, 16}).tensor("bias", {8}).strict().run().rejected_with({"'bias' [8]"}));
    }
}

}  // TEST_SUITE

}  // namespace ops_sampling_roi_matmul_test
