// The TOSA interpreter against MLIR's own execution of the same graph (the emitted MLIR, lowered
// by MLIR 22 to LLVM and run by mlir-runner): the hand-built integer zoo gives the same integers,
// bit for bit (convolution with zero points, RESCALE per tensor and per channel, TABLE, average
// and max pooling, NEGATE, CLAMP, MATMUL, the integer elementwise operators, shifts, CAST, RESIZE).
#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

#include "common/compare.hpp"
#include "lowering/tosa/interpreter.hpp"
#include "lowering/tosa/mlir.hpp"
#include "mlir_support.hpp"
#include "zoo_graphs.hpp"

using namespace nnef::tosa;
using namespace nnef_test;

namespace {

// The items of a result as doubles; floating-point results as MLIR's driver prints them (fp32).
std::vector<double> doubles(const ConstData& c) {
    std::vector<double> v;
    for (std::int64_t i = 0; i < c.type.volume(); ++i) {
        switch (c.type.dtype) {
            case DType::fp32: v.push_back(c.items<float>()[i]); break;
            case DType::fp16: v.push_back(fp16_to_fp32(c.items<std::uint16_t>()[i])); break;
            case DType::bf16: v.push_back(bf16_to_fp32(c.items<std::uint16_t>()[i])); break;
            case DType::bool_: v.push_back(c.items<std::uint8_t>()[i]); break;
            case DType::i8: v.push_back(c.items<std::int8_t>()[i]); break;
            case DType::i16: v.push_back(c.items<std::int16_t>()[i]); break;
            case DType::i32: v.push_back(c.items<std::int32_t>()[i]); break;
            default: v.push_back(static_cast<double>(c.items<std::int64_t>()[i])); break;
        }
    }
    return v;
}

void compare_with_mlir(const Graph& g, const std::vector<ConstPtr>& inputs) {
    nnef::Diagnostics d;
    const auto ours = interpret(g, inputs, {}, d);
    std::string messages;
    for (const nnef::Diagnostic& x : d) messages += x.code + ": " + x.message + "\n";
    REQUIRE_MESSAGE(ours, messages);
    MlirOptions opt;
    opt.extra_ops.push_back(mlir_driver(g, inputs));
    const CommandResult r = mlir_execute(to_mlir(g, opt));
    REQUIRE_MESSAGE(r.code == 0, r.err);
    const auto theirs = printed_results(r.out);
    REQUIRE(theirs.size() == ours->size());
    for (std::size_t k = 0; k < theirs.size(); ++k) {
        CAPTURE(k);
        const ConstData& o = *(*ours)[k];
        const std::vector<double> a = doubles(o);
        REQUIRE(a.size() == theirs[k].size());
        // floating point: every item within 1e-5 * max(1, |MLIR's|), NaN and infinities where MLIR
        // has the same; integers: equal
        const Comparison c = compare(a, theirs[k], CompareOptions{true});
        CHECK_MESSAGE((is_float(o.type.dtype) ? c.scaled_within(1e-5) : c.exact()), "interpreter vs MLIR: " << c.summary());
    }
}

}  // namespace

TEST_SUITE("mlir") {
    TEST_CASE("the TOSA interpreter and MLIR's execution agree bit for bit on the integer zoo") {
        NNEF_REQUIRE_MLIR_RUNNER();
        // (the floating-point zoo has operators MLIR 22 does not lower to linalg, e.g.
        // TRANSPOSE_CONV2D; the float paths are checked against nnef-run instead)
        for (int seed : {37, 101, 7}) {
            CAPTURE(seed);
            std::vector<std::int8_t> x(32);
            for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<std::int8_t>(static_cast<int>(i * seed % 256) - 128);
            compare_with_mlir(int_zoo(), {TosaBuilder::data<std::int8_t>(DType::i8, {1, 4, 4, 2}, x)});
        }
    }
}
