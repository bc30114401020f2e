// Element-wise TOSA operators on hand-built graphs, for the VPU compiler's unit tests of SHAVE
// chains (shave_stream_test.cpp, stream_lead_test.cpp): MUL (shift 0), ADD, unary operators, a
// constant scalar broadcast over NHWC, and a 1x1 conv followed by the exporter's erf shape
// (stream_channels_test.cpp, table_rows_test.cpp).
#pragma once
#include <string>
#include <vector>

#include "unit/vpu/compile_support.hpp"

namespace vpu_compile_support {

inline ValueId mul(Graph& g, ValueId a, ValueId b, const std::vector<std::int64_t>& shape) {
    auto shift = ConstData::allocate({DType::i8, {1}});
    shift->mutable_items<std::int8_t>()[0] = 0;
    return g.add_op(0, OpKind::MUL, {a, b, g.add_const(0, shift)}, {f32(shape)}).outputs[0];
}
inline ValueId add(Graph& g, ValueId a, ValueId b, const std::vector<std::int64_t>& shape) {
    return g.add_op(0, OpKind::ADD, {a, b}, {f32(shape)}).outputs[0];
}
inline ValueId unary(Graph& g, OpKind k, ValueId a, const std::vector<std::int64_t>& shape) {
    return g.add_op(0, k, {a}, {f32(shape)}).outputs[0];
}
inline ValueId fixed(Graph& g, float v) {
    auto c = ConstData::allocate({DType::fp32, {1, 1, 1, 1}});
    c->mutable_items<float>()[0] = v;
    return g.add_const(0, c);
}

// Names graph `g` `name` and gives it one input x of `shape`, which it returns.
inline ValueId input_x(Graph& g, const std::string& name, const std::vector<std::int64_t>& shape) {
    g.name = name;
    const ValueId x = g.add_value(f32(shape), "x");
    g.main().inputs = {x};
    return x;
}
// Starts graph `g` named `name` with one input x of NHWC `shape` and returns u = x / sqrt 2 (an
// NCE scale), as the exporter's GELU starts its erf (stream_lead_test.cpp, stream_hoist_test.cpp).
inline ValueId scaled_input(Graph& g, const std::string& name, const std::vector<std::int64_t>& shape) {
    return mul(g, input_x(g, name, shape), fixed(g, 0.70710678f), shape);
}
// Makes z the graph's one output, named "z".
inline void output_z(Graph& g, ValueId z) {
    g.values[z].name = "z";
    g.main().outputs = {z};
}

// x [1,H,W,IC] -> 1x1 conv (C outputs) = y, then the exporter's erf shape on y: u = y / sqrt 2 (an
// NCE scale), t = 1 / (1 + |u|), e = exp(-u u), z = (t e + u) y.
inline Graph conv_erf_chain(std::int64_t H, std::int64_t W, std::int64_t IC, std::int64_t C) {
    Graph g;
    g.name = "conv_chain";
    const ValueId x = g.add_value(f32({1, H, W, IC}), "x");
    g.main().inputs = {x};
    const std::vector<std::int64_t> s{1, H, W, C};
    const ValueId y =
        g.add_op(0, OpKind::CONV2D, {x, constant(g, {C, 1, 1, IC}, 20, 0.05f), constant(g, {C}, 21, 0.1f), zero(g), zero(g)}, {f32(s)}, conv_attrs({0, 0, 0, 0}))
            .outputs[0];
    const ValueId u = mul(g, y, fixed(g, 0.70710678f), s);
    const ValueId t = unary(g, OpKind::RECIPROCAL, add(g, unary(g, OpKind::ABS, u, s), fixed(g, 1.0f), s), s);
    const ValueId e = unary(g, OpKind::EXP, mul(g, mul(g, u, fixed(g, -1.0f), s), u, s), s);
    const ValueId z = mul(g, add(g, mul(g, t, e, s), u, s), y, s);
    g.values[z].name = "z";
    g.main().outputs = {z};
    return g;
}

}  // namespace vpu_compile_support
