// The legalization registry (lowering/tosa/from_nnef.hpp): one entry per NNEF operation with its
// floating-point form and, beside it, its integer (PRO-INT) form; and the map of docs/lowering.md,
// which names for every entry its family file and whether it has each form.
#include <doctest/doctest.h>

#include <string>

#include "lowering/tosa/from_nnef.hpp"
#include "test_support.hpp"

namespace legalize_registry_test {

TEST_SUITE("tosa") {

TEST_CASE("legalize registry: an integer form sits beside a floating-point form") {
    int integer = 0;
    for (const nnef::tosa::Legalization& l : nnef::tosa::legalizations()) {
        CAPTURE(l.op);
        if (!l.lower_integer) continue;
        ++integer;
        CHECK(l.lower != nullptr);  // no refusal has an integer form
    }
    // conv, linear, relu, matmul, clamp, add, sub, mul, the pools, reductions, layout and quantize
    // operations and the TABLE functions
    CHECK(integer >= 49);
    for (const char* op : {"conv", "linear", "relu", "matmul", "clamp", "add", "sub", "mul", "max_pool", "avg_pool",
                           "mean_reduce", "sum_reduce", "concat", "split", "pad", "copy", "reshape", "squeeze",
                           "unsqueeze", "transpose", "slice", "linear_quantize", "min_max_linear_quantize",
                           "zero_point_linear_quantize", "logarithmic_quantize", "external", "variable", "constant",
                           "sigmoid", "tanh", "exp", "log", "sqrt", "rsqrt", "abs", "neg", "sin", "cos", "leaky_relu",
                           "elu", "selu", "gelu", "silu", "softplus", "div", "min", "max", "pow", "batch_normalization", "softmax",
                           "gather"}) {
        CAPTURE(op);
        const nnef::tosa::Legalization* l = nnef::tosa::find_legalization(op);
        REQUIRE(l);
        CHECK(l->lower_integer != nullptr);
    }
    // operations without an integer form (PRO-INT refuses them in quantized graphs)
    for (const char* op : {"moments", "l2_normalization", "deconv", "rms_pool"}) {
        CAPTURE(op);
        const nnef::tosa::Legalization* l = nnef::tosa::find_legalization(op);
        REQUIRE(l);
        CHECK(l->lower_integer == nullptr);
    }
}

TEST_CASE("legalize registry: docs/lowering.md maps every NNEF operation to its file and forms") {
    const std::string doc = nnef_test::read_text(nnef_test::source_dir() / "docs" / "lowering.md");
    for (const nnef::tosa::Legalization& l : nnef::tosa::legalizations()) {
        CAPTURE(l.op);
        const std::string row = "| `" + l.op + "` | `from_nnef/" + l.family + ".cpp` | " +
                                (l.lower ? "yes" : "refused") + " | " + (l.lower_integer ? "yes" : "—") + " |";
        CHECK_MESSAGE(doc.find(row) != std::string::npos, "docs/lowering.md lacks the row " << row);
    }
}

}  // TEST_SUITE

}  // namespace legalize_registry_test
