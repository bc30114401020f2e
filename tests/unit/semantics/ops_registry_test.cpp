// Coverage: every standard operation (the primitives and compounds of revision 3 and of the later
// revisions, SPEC_NOTES 2) has an OpDef in OpRegistry::standard(), and nothing else does.
#include "ops_mock.hpp"

#include <set>

namespace ops_registry_test {

TEST_SUITE("semantics") {

TEST_CASE("ops: every standard operation has a shape function") {
    // From spec chapter 4 (with the errata of SPEC_NOTES 1: debox, tanh) and SPEC_NOTES 2.
    const std::set<std::string> spec = {
        // 4.1
        "external", "constant", "variable",
        // 4.2
        "copy", "neg", "rcp", "exp", "log", "abs", "sign", "not", "floor", "ceil", "round",
        "add", "sub", "mul", "div", "pow", "lt", "gt", "le", "ge", "eq", "ne", "and", "or", "select",
        "sqr", "sqrt", "rsqr", "rsqrt", "log2", "min", "max", "clamp",
        // 4.3
        "conv", "deconv", "box", "debox", "argmax_pool", "sample", "desample",
        "nearest_downsample", "area_downsample", "nearest_upsample", "multilinear_upsample",
        // 4.4
        "sum_reduce", "max_reduce", "min_reduce", "argmax_reduce", "argmin_reduce", "mean_reduce",
        // 4.5
        "reshape", "squeeze", "unsqueeze", "transpose", "split", "concat", "stack", "unstack", "slice",
        // 4.6 - 4.8
        "avg_roi_pool", "max_roi_pool", "roi_resample", "avg_roi_align", "max_roi_align", "matmul", "update",
        // 4.9
        "sigmoid", "relu", "prelu", "leaky_relu", "elu", "tanh", "softmax", "softplus", "linear",
        "separable_conv", "separable_deconv", "max_pool_with_index", "max_pool", "avg_pool", "rms_pool",
        "local_response_normalization", "local_mean_normalization", "local_variance_normalization",
        "local_contrast_normalization", "l1_normalization", "l2_normalization", "batch_normalization",
        "linear_quantize", "logarithmic_quantize", "copy_n", "add_n", "moments",
        // SPEC_NOTES 2
        "tile", "pad", "gather", "cast", "sin", "cos", "tan", "sinh", "cosh", "asin", "acos", "atan", "asinh",
        "acosh", "atanh", "any_reduce", "all_reduce", "softabs", "selu", "gelu", "silu", "min_max_linear_quantize",
        "zero_point_linear_quantize",
    };
    const nnef::OpRegistry& registry = nnef::OpRegistry::standard();
    for (const std::string& name : spec) {
        CAPTURE(name);
        const nnef::OpDef* def = registry.find(name);
        REQUIRE(def != nullptr);
        CHECK(def->name == name);
        CHECK(static_cast<bool>(def->infer));
    }

    // The embedded standard library is the authoritative list: every fragment that introduces or
    // computes tensors has an OpDef (the helper `_unsqueeze_shape` only computes an integer array).
    std::set<std::string> stdlib_names;
    for (bool strict : {false, true}) {
        const nnef::sema::Stdlib& lib = ops_test::stdlib(strict);
        REQUIRE(!lib.fragments.empty());
        for (const auto& entry : lib.fragments) {
            const auto& name = entry.first;  // (CAPTURE's lambda captures it: no structured binding, for clang 14)
            const auto& fragment = entry.second;
            bool tensors = false;
            for (const auto& r : fragment->results) tensors = tensors || r.type.contains_tensor();
            if (!tensors) continue;
            stdlib_names.insert(name);
            CAPTURE(name);
            CHECK(registry.find(name) != nullptr);
        }
    }
    CHECK(stdlib_names == spec);

    // No OpDef for a name that is not a standard operation.
    for (const std::string& name : registry.names()) {
        CAPTURE(name);
        CHECK(spec.count(name) == 1);
    }
}

}  // TEST_SUITE

}  // namespace ops_registry_test
