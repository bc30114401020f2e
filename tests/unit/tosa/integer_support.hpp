// Shared by the PRO-INT tests (tests/unit/tosa/integer_test.cpp, tests/unit/mlir): a small
// quantized CNN with its graph.quant, written to a temporary model folder, and the i8 codes of an
// input for a PRO-INT function.
#pragma once
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "common/scratch.hpp"
#include "lowering/tosa/from_nnef.hpp"
#include "lowering/tosa/ir.hpp"
#include "storage/quantization.hpp"

namespace integer_support {

// A model folder in a fresh temporary directory.
inline std::filesystem::path write_model(const std::string& name, const std::string& graph, const std::string& quant) {
    const std::filesystem::path dir = nnef_test::process_scratch("nnef-integer-test") / name;
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    std::ofstream(dir / "graph.nnef") << graph;
    std::ofstream(dir / "graph.quant") << quant;
    return dir;
}

inline const char* const cnn_graph = R"(version 1.0;
graph G( input ) -> ( output )
{
    input = external(shape = [1, 3, 12, 12]);
    w1 = variable(shape = [8, 3, 3, 3], label = 'w1');
    b1 = variable(shape = [1, 8], label = 'b1');
    c1 = conv(input, w1, b1, padding = [(1, 1), (1, 1)]);
    r1 = relu(c1);
    p1 = max_pool(r1, size = [1, 1, 3, 3], stride = [1, 1, 2, 2], padding = [(0, 0), (0, 0), (1, 1), (1, 1)], border = 'ignore');
    w2 = variable(shape = [8, 1, 3, 3], label = 'w2');
    c2 = conv(p1, w2, 0.0, padding = [(1, 1), (1, 1)], groups = 8);
    r2 = relu(c2);
    k = concat([p1, r2], axis = 1);
    s = slice(k, axes = [1], begin = [4], end = [16]);
    a = avg_pool(s, size = [1, 1, 2, 2], stride = [1, 1, 2, 2], border = 'ignore');
    m = mean_reduce(a, axes = [2, 3]);
    f = reshape(m, shape = [1, 12]);
    w3 = variable(shape = [5, 12], label = 'w3');
    b3 = variable(shape = [1, 5], label = 'b3');
    output = linear(f, w3, b3);
}
)";

inline const char* const cnn_quant = R"(
"input": zero_point_linear_quantize(zero_point = -3, scale = 0.02, bits = 8, signed = true, symmetric = false);
"w1": zero_point_linear_quantize(zero_point = 0, scale = [0.004, 0.003, 0.005, 0.0045, 0.002, 0.004, 0.0035, 0.006], bits = 8, signed = true, symmetric = true);
"c1": zero_point_linear_quantize(zero_point = 5, scale = 0.03, bits = 8, signed = true, symmetric = false);
"r1": zero_point_linear_quantize(zero_point = -128, scale = 0.017, bits = 8, signed = true, symmetric = false);
"w2": zero_point_linear_quantize(zero_point = 0, scale = 0.005, bits = 8, signed = true, symmetric = true);
"c2": zero_point_linear_quantize(zero_point = -7, scale = 0.011, bits = 8, signed = true, symmetric = false);
"r2": zero_point_linear_quantize(zero_point = -128, scale = 0.006, bits = 8, signed = true, symmetric = false);
"k": zero_point_linear_quantize(zero_point = -128, scale = 0.013, bits = 8, signed = true, symmetric = false);
"s": zero_point_linear_quantize(zero_point = -128, scale = 0.012, bits = 8, signed = true, symmetric = false);
"m": zero_point_linear_quantize(zero_point = -128, scale = 0.004, bits = 8, signed = true, symmetric = false);
"w3": zero_point_linear_quantize(zero_point = 0, scale = 0.003, bits = 8, signed = true, symmetric = true);
"output": linear_quantize(min = 0.0, max = 0.8, bits = 8);
)";

// add, sub, mul and clamp of activations (two inputs, one with a min/max grid).
inline const char* const binary_graph = R"(version 1.0;
graph G( input, other ) -> ( output )
{
    input = external(shape = [1, 4, 5, 5]);
    other = external(shape = [1, 4, 5, 5]);
    w = variable(shape = [4, 4, 1, 1], label = 'w');
    c = conv(input, w, 0.0);
    s = add(c, other);
    k = clamp(s, 0.0, 0.75);
    d = sub(k, input);
    m = mul(d, other);
    b = variable(shape = [1, 4], label = 'b');
    output = add(m, b);
}
)";

inline const char* const binary_quant = R"("input": zero_point_linear_quantize(zero_point = -3, scale = 0.02, bits = 8, signed = true, symmetric = false);
"other": linear_quantize(min = -1.0, max = 1.5, bits = 8);
"w": zero_point_linear_quantize(zero_point = 0, scale = 0.01, bits = 8, signed = true, symmetric = true);
"c": zero_point_linear_quantize(zero_point = 4, scale = 0.015, bits = 8, signed = true, symmetric = false);
"s": zero_point_linear_quantize(zero_point = -20, scale = 0.021, bits = 8, signed = true, symmetric = false);
"k": zero_point_linear_quantize(zero_point = -128, scale = 0.005, bits = 8, signed = true, symmetric = false);
"d": zero_point_linear_quantize(zero_point = 0, scale = 0.012, bits = 8, signed = true, symmetric = false);
"m": zero_point_linear_quantize(zero_point = 2, scale = 0.009, bits = 8, signed = true, symmetric = false);
"output": zero_point_linear_quantize(zero_point = 0, scale = 0.02, bits = 8, signed = true, symmetric = false);
)";

// matmul of two activations, then by a constant.
inline const char* const matmul_graph = R"(version 1.0;
graph G( x, y ) -> ( output )
{
    x = external(shape = [2, 3, 6]);
    y = external(shape = [2, 5, 6]);
    w = variable(shape = [1, 5, 4], label = 'w');
    p = matmul(x, y, transposeB = true);
    output = matmul(p, w);
}
)";

inline const char* const matmul_quant = R"("x": zero_point_linear_quantize(zero_point = -5, scale = 0.02, bits = 8, signed = true, symmetric = false);
"y": zero_point_linear_quantize(zero_point = 9, scale = 0.015, bits = 8, signed = true, symmetric = false);
"w": zero_point_linear_quantize(zero_point = 0, scale = 0.004, bits = 8, signed = true, symmetric = true);
"p": zero_point_linear_quantize(zero_point = 3, scale = 0.01, bits = 8, signed = true, symmetric = false);
"output": linear_quantize(min = -0.3, max = 0.3, bits = 8);
)";

// avg_pool with and without padding counted, from a grid whose zero point falls between codes.
inline const char* const avg_graph = R"(version 1.0;
graph G( input ) -> ( a, b, c )
{
    input = external(shape = [1, 3, 7, 7]);
    a = avg_pool(input, size = [1, 1, 3, 3], stride = [1, 1, 2, 2], padding = [(0, 0), (0, 0), (1, 1), (1, 1)], border = 'ignore');
    b = avg_pool(input, size = [1, 1, 3, 3], stride = [1, 1, 2, 2], padding = [(0, 0), (0, 0), (1, 1), (1, 1)], border = 'constant');
    c = avg_pool(input, size = [1, 1, 7, 7], stride = [1, 1, 1, 1], padding = [(0, 0), (0, 0), (0, 0), (0, 0)], border = 'ignore');
}
)";

inline const char* const avg_quant = R"("input": linear_quantize(min = -1.0, max = 1.0, bits = 8);
"a": zero_point_linear_quantize(zero_point = 5, scale = 0.006, bits = 8, signed = true, symmetric = false);
"b": linear_quantize(min = -0.5, max = 0.6, bits = 8);
"c": zero_point_linear_quantize(zero_point = 0, scale = 0.002, bits = 8, signed = true, symmetric = false);
)";

// The i8 (i16 for more than 8 bits) codes of input x (nnef-run's quantization of it) for a PRO-INT
// function; x is a TensorValue of either executor (float32 or float64).
template <class TensorValue>
nnef::tosa::ConstPtr input_codes(const nnef::tosa::IntegerCodes& codes, const TensorValue& x) {
    const std::vector<std::int64_t> q = nnef::storage::quantize(codes.params, x.shape(), x.to_doubles());
    const bool wide = codes.params.bits > 8;
    auto c = nnef::tosa::ConstData::allocate(nnef::tosa::TensorType{wide ? nnef::tosa::DType::i16 : nnef::tosa::DType::i8, x.shape()});
    for (std::size_t k = 0; k < q.size(); ++k) {
        if (wide) c->mutable_items<std::int16_t>()[k] = std::int16_t(q[k] + codes.offset);
        else c->mutable_items<std::int8_t>()[k] = std::int8_t(q[k] + codes.offset);
    }
    return c;
}

// Inputs of graph g spread over [lo, hi] in a scrambled order (a golden-ratio sequence from
// `phase`), so that every code range of a graph's grids, saturation included, is met. TensorValue
// and Real: either executor's (float32 or float64).
template <class TensorValue, class Real>
std::vector<TensorValue> spread_inputs(const nnef::Graph& g, double lo, double hi, double phase) {
    std::vector<TensorValue> ins;
    for (const std::string& name : g.inputs) {
        TensorValue v(nnef::PrimType::scalar, *g.tensor(name)->shape);
        for (std::int64_t i = 0; i < v.volume(); ++i) {
            const double f = std::fmod(double(i) * 0.6180339887 + phase, 1.0);
            v.template data<Real>()[i] = Real(lo + (hi - lo) * f);
        }
        ins.push_back(std::move(v));
        phase += 0.37;
    }
    return ins;
}

// Item k of i8 or i16 codes.
inline std::int64_t code_at(const nnef::tosa::ConstData& c, std::int64_t k) {
    return c.type.dtype == nnef::tosa::DType::i16 ? c.items<std::int16_t>()[k] : c.items<std::int8_t>()[k];
}

}  // namespace integer_support
