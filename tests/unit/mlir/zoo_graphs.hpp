// Hand-built graphs that together use every operator of ops.def: floating point (PRO-FP), integer
// (PRO-INT), and one with the extensions (control flow, variables, FFT) and a custom operator.
#pragma once
#include <cmath>
#include <cstdint>
#include <vector>

#include "graph_builder.hpp"

namespace nnef_test {

inline std::vector<float> ramp(std::size_t n, float scale = 0.125f, float offset = -1.0f) {
    std::vector<float> v(n);
    for (std::size_t i = 0; i < n; ++i) v[i] = offset + scale * static_cast<float>(i % 17);
    return v;
}

inline nnef::tosa::Graph fp32_zoo() {
    using namespace nnef::tosa;
    using A = AttrName;
    const DType F = DType::fp32, B = DType::bool_;
    TosaBuilder b("fp32_zoo");
    const ValueId x = b.input(F, {1, 4, 4, 2}, "x");
    const ValueId zp = b.f32({1}, {0.0f});
    const ValueId w = b.f32({2, 3, 3, 2}, ramp(36)), bias = b.f32({2}, {0.5f, -0.25f});
    const ValueId conv = b.op(OpKind::CONV2D, {x, w, bias, zp, zp}, F, {1, 4, 4, 2},
                              {{A::pad, std::vector<std::int64_t>{1, 1, 1, 1}}, {A::stride, std::vector<std::int64_t>{1, 1}},
                               {A::dilation, std::vector<std::int64_t>{1, 1}}, {A::acc_type, AccType::FP32}});
    const ValueId dw = b.f32({3, 3, 2, 1}, ramp(18, 0.25f));
    const ValueId dconv = b.op(OpKind::DEPTHWISE_CONV2D, {conv, dw, bias, zp, zp}, F, {1, 4, 4, 2},
                               {{A::pad, std::vector<std::int64_t>{1, 1, 1, 1}}, {A::stride, std::vector<std::int64_t>{1, 1}},
                                {A::dilation, std::vector<std::int64_t>{1, 1}}, {A::acc_type, AccType::FP32},
                                {A::local_bound, false}});
    const ValueId tw = b.f32({2, 2, 2, 2}, ramp(16, 0.5f));
    const ValueId tconv = b.op(OpKind::TRANSPOSE_CONV2D, {dconv, tw, bias, zp, zp}, F, {1, 8, 8, 2},
                               {{A::out_pad, std::vector<std::int64_t>{0, 0, 0, 0}}, {A::stride, std::vector<std::int64_t>{2, 2}},
                                {A::acc_type, AccType::FP32}});
    const ValueId maxp = b.op(OpKind::MAX_POOL2D, {tconv}, F, {1, 4, 4, 2},
                              {{A::kernel, std::vector<std::int64_t>{2, 2}}, {A::stride, std::vector<std::int64_t>{2, 2}},
                               {A::pad, std::vector<std::int64_t>{0, 0, 0, 0}}, {A::nan_mode, NanMode::PROPAGATE}});
    const ValueId avgp = b.op(OpKind::AVG_POOL2D, {maxp, zp, zp}, F, {1, 4, 4, 2},
                              {{A::kernel, std::vector<std::int64_t>{3, 3}}, {A::stride, std::vector<std::int64_t>{1, 1}},
                               {A::pad, std::vector<std::int64_t>{1, 1, 1, 1}}, {A::acc_type, AccType::FP32}});
    const nnef::Shape s = {1, 4, 4, 2};
    const ValueId clamp = b.op(OpKind::CLAMP, {avgp}, F, s, {{A::min_val, 0.0}, {A::max_val, 6.0}, {A::nan_mode, NanMode::PROPAGATE}});
    const ValueId relu = b.op(OpKind::CLAMP, {clamp}, F, s,
                              {{A::min_val, 0.0}, {A::max_val, HUGE_VAL}, {A::nan_mode, NanMode::IGNORE}});
    ValueId v = b.op(OpKind::SIGMOID, {relu}, F, s);
    v = b.op(OpKind::TANH, {v}, F, s);
    v = b.op(OpKind::ERF, {v}, F, s);
    v = b.op(OpKind::ADD, {v, x}, F, s);
    v = b.op(OpKind::SUB, {v, x}, F, s);
    const ValueId shift = b.i8({1}, {0});
    v = b.op(OpKind::MUL, {v, x, shift}, F, s);
    v = b.op(OpKind::ABS, {v}, F, s);
    v = b.op(OpKind::POW, {v, x}, F, s);
    v = b.op(OpKind::MAXIMUM, {v, x}, F, s, {{A::nan_mode, NanMode::PROPAGATE}});
    v = b.op(OpKind::MINIMUM, {v, x}, F, s, {{A::nan_mode, NanMode::IGNORE}});
    for (OpKind k : {OpKind::CEIL, OpKind::FLOOR, OpKind::EXP, OpKind::LOG, OpKind::RECIPROCAL, OpKind::RSQRT, OpKind::SIN,
                     OpKind::COS})
        v = b.op(k, {v}, F, s);
    v = b.op(OpKind::NEGATE, {v, zp, zp}, F, s);
    const ValueId eq = b.op(OpKind::EQUAL, {v, x}, B, s), gt = b.op(OpKind::GREATER, {v, x}, B, s),
                  ge = b.op(OpKind::GREATER_EQUAL, {v, x}, B, s);
    ValueId l = b.op(OpKind::LOGICAL_AND, {eq, gt}, B, s);
    l = b.op(OpKind::LOGICAL_OR, {l, ge}, B, s);
    l = b.op(OpKind::LOGICAL_XOR, {l, eq}, B, s);
    l = b.op(OpKind::LOGICAL_NOT, {l}, B, s);
    const ValueId sel = b.op(OpKind::SELECT, {l, v, x}, F, s);
    const ValueId all = b.op(OpKind::REDUCE_ALL, {l}, B, {1, 4, 4, 1}, {{A::axis, std::int64_t{3}}});
    const ValueId any = b.op(OpKind::REDUCE_ANY, {all}, B, {1, 1, 4, 1}, {{A::axis, std::int64_t{1}}});
    ValueId r = b.op(OpKind::REDUCE_MAX, {sel}, F, {1, 1, 4, 2}, {{A::axis, std::int64_t{1}}, {A::nan_mode, NanMode::PROPAGATE}});
    r = b.op(OpKind::REDUCE_MIN, {r}, F, {1, 1, 1, 2}, {{A::axis, std::int64_t{2}}, {A::nan_mode, NanMode::PROPAGATE}});
    r = b.op(OpKind::REDUCE_PRODUCT, {r}, F, {1, 1, 1, 1}, {{A::axis, std::int64_t{3}}});
    r = b.op(OpKind::REDUCE_SUM, {r}, F, {1, 1, 1, 1}, {{A::axis, std::int64_t{0}}});
    const ValueId am = b.op(OpKind::ARGMAX, {sel}, DType::i32, {1, 4, 4}, {{A::axis, std::int64_t{3}}, {A::nan_mode, NanMode::PROPAGATE}});
    const ValueId cat = b.op(OpKind::CONCAT, {sel, x}, F, {1, 4, 4, 4}, {{A::axis, std::int64_t{3}}});
    const ValueId pad = b.op(OpKind::PAD, {cat, b.shape({0, 0, 1, 1, 1, 1, 0, 0}), b.f32({1}, {-1.5f})}, F, {1, 6, 6, 4});
    const ValueId rev = b.op(OpKind::REVERSE, {pad}, F, {1, 6, 6, 4}, {{A::axis, std::int64_t{1}}});
    const ValueId sl = b.op(OpKind::SLICE, {rev, b.shape({0, 1, 1, 0}), b.shape({1, 4, 4, 4})}, F, {1, 4, 4, 4});
    const ValueId tile = b.op(OpKind::TILE, {sl, b.shape({1, 1, 1, 2})}, F, {1, 4, 4, 8});
    const ValueId tr = b.op(OpKind::TRANSPOSE, {tile}, F, {1, 8, 4, 4}, {{A::perms, std::vector<std::int64_t>{0, 3, 1, 2}}});
    const ValueId flat = b.op(OpKind::RESHAPE, {tr, b.shape({1, 16, 8})}, F, {1, 16, 8});
    const ValueId ga = b.op(OpKind::GATHER, {flat, b.i32({1, 3}, {2, 0, 15})}, F, {1, 3, 8});
    const ValueId sc = b.op(OpKind::SCATTER, {flat, b.i32({1, 2}, {4, 1}), b.f32({1, 2, 8}, ramp(16))}, F, {1, 16, 8});
    const ValueId mm = b.op(OpKind::MATMUL, {sc, b.f32({1, 8, 3}, ramp(24)), zp, zp}, F, {1, 16, 3});
    const ValueId rz = b.op(OpKind::RESIZE, {x, b.shape({2, 1, 2, 1}), b.shape({0, 0}), b.shape({1, 1})}, F, {1, 8, 8, 2},
                            {{A::mode, ResizeMode::BILINEAR}});
    const ValueId rn = b.op(OpKind::RESIZE, {x, b.shape({2, 1, 2, 1}), b.shape({0, 0}), b.shape({1, 1})}, F, {1, 8, 8, 2},
                            {{A::mode, ResizeMode::NEAREST_NEIGHBOR}});
    const ValueId h = b.op(OpKind::CAST, {rn}, DType::fp16, {1, 8, 8, 2});
    const ValueId hid = b.op(OpKind::IDENTITY, {h}, DType::fp16, {1, 8, 8, 2});
    const ValueId back = b.op(OpKind::CAST, {hid}, F, {1, 8, 8, 2});
    const ValueId both = b.op(OpKind::ADD, {back, rz}, F, {1, 8, 8, 2});
    const ValueId ints = b.op(OpKind::CAST, {both}, DType::i32, {1, 8, 8, 2});
    const ValueId x5 = b.op(OpKind::RESHAPE, {x, b.shape({1, 2, 2, 4, 2})}, F, {1, 2, 2, 4, 2});
    const ValueId c3 = b.op(OpKind::CONV3D, {x5, b.f32({2, 1, 1, 1, 2}, {1, 2, 3, 4}), bias, zp, zp}, F, {1, 2, 2, 4, 2},
                            {{A::pad, std::vector<std::int64_t>{0, 0, 0, 0, 0, 0}},
                             {A::stride, std::vector<std::int64_t>{1, 1, 1}},
                             {A::dilation, std::vector<std::int64_t>{1, 1, 1}}, {A::acc_type, AccType::FP32}});
    for (ValueId o : {r, am, ga, mm, any, ints, c3}) b.output(o);
    return std::move(b.g);
}

inline nnef::tosa::Graph int_zoo() {
    using namespace nnef::tosa;
    using A = AttrName;
    const DType I8 = DType::i8, I32 = DType::i32, B = DType::bool_;
    TosaBuilder b("int_zoo", Profile::pro_int);
    const ValueId x = b.input(I8, {1, 4, 4, 2}, "x");
    const ValueId zp8 = b.i8({1}, {0}), zp32 = b.i32({1}, {0}), izp = b.i8({1}, {-3});
    const ValueId w = b.i8({2, 1, 1, 2}, {1, -2, 3, 4}), bias = b.i32({2}, {100, -7});
    const ValueId conv = b.op(OpKind::CONV2D, {x, w, bias, izp, zp8}, I32, {1, 4, 4, 2},
                              {{A::pad, std::vector<std::int64_t>{0, 0, 0, 0}}, {A::stride, std::vector<std::int64_t>{1, 1}},
                               {A::dilation, std::vector<std::int64_t>{1, 1}}, {A::acc_type, AccType::INT32}});
    const nnef::Shape s = {1, 4, 4, 2};
    const std::vector<std::pair<AttrName, Attr>> rescale_attrs = {
        {A::scale32, true}, {A::rounding_mode, RoundingMode::SINGLE_ROUND}, {A::per_channel, false},
        {A::input_unsigned, false}, {A::output_unsigned, false}};
    const ValueId q = b.op(OpKind::RESCALE, {conv, b.i32({1}, {1 << 30}), b.i8({1}, {33}), zp32, b.i8({1}, {5})}, I8, s, rescale_attrs);
    auto per_channel = rescale_attrs;
    per_channel[2].second = true;
    const ValueId q2 = b.op(OpKind::RESCALE, {conv, b.i32({2}, {1 << 30, 3 << 28}), b.i8({2}, {32, 34}), zp32, zp8}, I8, s, per_channel);
    std::vector<std::int8_t> table(256);
    for (int i = 0; i < 256; ++i) table[static_cast<std::size_t>(i)] = static_cast<std::int8_t>((i * 7) % 256 - 128);
    const ValueId t = b.op(OpKind::TABLE, {q, b.i8({256}, table)}, I8, s);
    const ValueId avg = b.op(OpKind::AVG_POOL2D, {t, zp8, zp8}, I8, s,
                             {{A::kernel, std::vector<std::int64_t>{3, 3}}, {A::stride, std::vector<std::int64_t>{1, 1}},
                              {A::pad, std::vector<std::int64_t>{1, 1, 1, 1}}, {A::acc_type, AccType::INT32}});
    const ValueId mp = b.op(OpKind::MAX_POOL2D, {avg}, I8, {1, 2, 2, 2},
                            {{A::kernel, std::vector<std::int64_t>{2, 2}}, {A::stride, std::vector<std::int64_t>{2, 2}},
                             {A::pad, std::vector<std::int64_t>{0, 0, 0, 0}}, {A::nan_mode, NanMode::PROPAGATE}});
    const ValueId neg = b.op(OpKind::NEGATE, {q2, zp8, zp8}, I8, s);
    const ValueId cl = b.op(OpKind::CLAMP, {neg}, I8, s, {{A::min_val, std::int64_t{-100}}, {A::max_val, std::int64_t{100}},
                                                           {A::nan_mode, NanMode::PROPAGATE}});
    const ValueId mm = b.op(OpKind::MATMUL, {b.op(OpKind::RESHAPE, {cl, b.shape({1, 16, 2})}, I8, {1, 16, 2}),
                                             b.i8({1, 2, 3}, {1, 2, 3, -4, -5, 6}), zp8, zp8},
                            I32, {1, 16, 3});
    const nnef::Shape m = {1, 16, 3};
    ValueId v = b.op(OpKind::ADD, {mm, mm}, I32, m);
    v = b.op(OpKind::SUB, {v, b.i32({1, 1, 3}, {1, 2, 3})}, I32, m);
    v = b.op(OpKind::MUL, {v, mm, b.i8({1}, {2})}, I32, m);
    v = b.op(OpKind::INTDIV, {v, b.i32({1, 1, 1}, {3})}, I32, m);
    v = b.op(OpKind::BITWISE_AND, {v, mm}, I32, m);
    v = b.op(OpKind::BITWISE_OR, {v, mm}, I32, m);
    v = b.op(OpKind::BITWISE_XOR, {v, mm}, I32, m);
    v = b.op(OpKind::BITWISE_NOT, {v}, I32, m);
    const ValueId sh = b.i32({1, 1, 1}, {2});
    v = b.op(OpKind::LOGICAL_LEFT_SHIFT, {v, sh}, I32, m);
    v = b.op(OpKind::LOGICAL_RIGHT_SHIFT, {v, sh}, I32, m);
    v = b.op(OpKind::ARITHMETIC_RIGHT_SHIFT, {v, sh}, I32, m, {{A::round, true}});
    v = b.op(OpKind::ABS, {v}, I32, m);
    v = b.op(OpKind::CLZ, {v}, I32, m);
    v = b.op(OpKind::MAXIMUM, {v, mm}, I32, m, {{A::nan_mode, NanMode::PROPAGATE}});
    v = b.op(OpKind::MINIMUM, {v, mm}, I32, m, {{A::nan_mode, NanMode::PROPAGATE}});
    const ValueId gt = b.op(OpKind::GREATER, {v, mm}, B, m), eq = b.op(OpKind::EQUAL, {v, mm}, B, m);
    const ValueId sel = b.op(OpKind::SELECT, {b.op(OpKind::LOGICAL_OR, {gt, eq}, B, m), v, mm}, I32, m);
    const ValueId sum = b.op(OpKind::REDUCE_SUM, {sel}, I32, {1, 1, 3}, {{A::axis, std::int64_t{1}}});
    const ValueId am = b.op(OpKind::ARGMAX, {cl}, I32, {1, 4, 4}, {{A::axis, std::int64_t{3}}, {A::nan_mode, NanMode::PROPAGATE}});
    const ValueId narrow = b.op(OpKind::CAST, {sel}, I8, m);
    const ValueId tr = b.op(OpKind::TRANSPOSE, {narrow}, I8, {1, 3, 16}, {{A::perms, std::vector<std::int64_t>{0, 2, 1}}});
    const ValueId pad = b.op(OpKind::PAD, {tr, b.shape({0, 0, 1, 0, 2, 2}), b.i8({1}, {7})}, I8, {1, 4, 20});
    const ValueId cat = b.op(OpKind::CONCAT, {pad, pad}, I8, {2, 4, 20}, {{A::axis, std::int64_t{0}}});
    const ValueId rmax = b.op(OpKind::REDUCE_MAX, {cat}, I8, {2, 1, 20}, {{A::axis, std::int64_t{1}}, {A::nan_mode, NanMode::PROPAGATE}});
    const ValueId flag = b.op(OpKind::CAST, {b.op(OpKind::GREATER_EQUAL, {b.op(OpKind::CAST, {mp}, I32, {1, 2, 2, 2}), b.i32({1, 1, 1, 1}, {0})}, B, {1, 2, 2, 2})}, I8, {1, 2, 2, 2});
    const ValueId up = b.op(OpKind::RESIZE, {flag, b.shape({2, 1, 2, 1}), b.shape({0, 0}), b.shape({1, 1})}, I32, {1, 4, 4, 2},
                            {{A::mode, ResizeMode::BILINEAR}});
    for (ValueId o : {sum, am, rmax, up}) b.output(o);
    return std::move(b.g);
}

// COND_IF and WHILE_LOOP alone (what MLIR's lowering to LLVM executes): y = x + x or x - x by
// the flag, then squared while a counter that starts at 0 stays below 3.
inline nnef::tosa::Graph control_flow() {
    using namespace nnef::tosa;
    using A = AttrName;
    const DType F = DType::fp32;
    TosaBuilder b("control_flow");
    const ValueId x = b.input(F, {2, 3}, "x");
    const ValueId c = b.input(DType::bool_, {}, "flag");
    const std::uint32_t then_b = b.g.add_block("then_graph.0"), else_b = b.g.add_block("else_graph.0");
    b.block = then_b;
    ValueId a = b.input(F, {2, 3});
    b.output(b.op(OpKind::ADD, {a, a}, F, {2, 3}));
    b.block = else_b;
    a = b.input(F, {2, 3});
    b.output(b.op(OpKind::SUB, {a, b.f32({1, 1}, {0.5f})}, F, {2, 3}));
    b.block = 0;
    const ValueId chosen = b.g.add_op(0, OpKind::COND_IF, {c, x}, {{F, {2, 3}}},
                                      {{A::then_graph, BlockRef{then_b}}, {A::else_graph, BlockRef{else_b}}})
                               .outputs[0];
    const std::uint32_t cond_b = b.g.add_block("cond_graph.1"), body_b = b.g.add_block("body_graph.1");
    b.block = cond_b;
    ValueId i = b.input(F, {});
    b.input(F, {2, 3});
    b.output(b.op(OpKind::GREATER, {b.constant<float>(F, {}, {3.0f}), i}, DType::bool_, {}));
    b.block = body_b;
    i = b.input(F, {});
    const ValueId acc = b.input(F, {2, 3});
    b.output(b.op(OpKind::ADD, {i, b.constant<float>(F, {}, {1.0f})}, F, {}));
    b.output(b.op(OpKind::MUL, {acc, acc, b.i8({1}, {0})}, F, {2, 3}));
    b.block = 0;
    Op& loop = b.g.add_op(0, OpKind::WHILE_LOOP, {b.constant<float>(F, {}, {0.0f}), chosen}, {{F, {}}, {F, {2, 3}}},
                          {{A::cond_graph, BlockRef{cond_b}}, {A::body_graph, BlockRef{body_b}}});
    const ValueId count = loop.outputs[0], looped = loop.outputs[1];
    b.output(looped);
    b.output(count);
    return std::move(b.g);
}

// COND_IF, WHILE_LOOP, the variables, FFT2D / RFFT2D and CUSTOM: they need extensions
// (controlflow, variable, fft) or are implementation defined.
inline nnef::tosa::Graph extension_zoo() {
    using namespace nnef::tosa;
    using A = AttrName;
    const DType F = DType::fp32;
    TosaBuilder b("extension_zoo");
    const ValueId x = b.input(F, {2, 3}, "x");
    const ValueId c = b.input(DType::bool_, {}, "flag");
    const ValueId re = b.input(F, {1, 4, 8}, "re");
    b.g.add_op(0, OpKind::VARIABLE, {}, {},
               {{A::name, std::string("state")}, {A::var_shape, std::vector<std::int64_t>{2, 3}}, {A::type, F},
                {A::initial_value, TosaBuilder::data<float>(F, {2, 3}, {1, 2, 3, 4, 5, 6})}});
    const ValueId state = b.op(OpKind::VARIABLE_READ, {}, F, {2, 3}, {{A::name, std::string("state")}});
    const ValueId sum = b.op(OpKind::ADD, {state, x}, F, {2, 3});
    b.g.add_op(0, OpKind::VARIABLE_WRITE, {sum}, {}, {{A::name, std::string("state")}});

    const std::uint32_t then_b = b.g.add_block("then_graph.0"), else_b = b.g.add_block("else_graph.0");
    b.block = then_b;
    ValueId a = b.input(F, {2, 3});
    b.output(b.op(OpKind::ADD, {a, a}, F, {2, 3}));
    b.block = else_b;
    a = b.input(F, {2, 3});
    b.output(b.op(OpKind::SUB, {a, a}, F, {2, 3}));
    b.block = 0;
    Op& cond_if = b.g.add_op(0, OpKind::COND_IF, {c, sum}, {{F, {2, 3}}},
                             {{A::then_graph, BlockRef{then_b}}, {A::else_graph, BlockRef{else_b}}});
    const ValueId chosen = cond_if.outputs[0];

    const std::uint32_t cond_b = b.g.add_block("cond_graph.1"), body_b = b.g.add_block("body_graph.1");
    b.block = cond_b;
    ValueId i = b.input(F, {});
    b.input(F, {2, 3});
    b.output(b.op(OpKind::GREATER, {b.constant<float>(F, {}, {3.0f}), i}, DType::bool_, {}));
    b.block = body_b;
    i = b.input(F, {});
    const ValueId acc = b.input(F, {2, 3});
    b.output(b.op(OpKind::ADD, {i, b.constant<float>(F, {}, {1.0f})}, F, {}));
    b.output(b.op(OpKind::MUL, {acc, acc, b.i8({1}, {0})}, F, {2, 3}));
    b.block = 0;
    Op& loop = b.g.add_op(0, OpKind::WHILE_LOOP, {b.constant<float>(F, {}, {0.0f}), chosen}, {{F, {}}, {F, {2, 3}}},
                          {{A::cond_graph, BlockRef{cond_b}}, {A::body_graph, BlockRef{body_b}}});
    const ValueId looped = loop.outputs[1];

    Op& rfft = b.g.add_op(0, OpKind::RFFT2D, {re}, {{F, {1, 4, 5}}, {F, {1, 4, 5}}}, {});
    const ValueId rr = rfft.outputs[0], ri = rfft.outputs[1];
    Op& fft = b.g.add_op(0, OpKind::FFT2D, {re, re}, {{F, {1, 4, 8}}, {F, {1, 4, 8}}}, {{A::inverse, true}});
    const ValueId fr = fft.outputs[0];
    const ValueId custom = b.op(OpKind::CUSTOM, {x}, F, {2, 3},
                                {{A::operator_name, std::string("my_op")}, {A::domain_name, std::string("nnef")},
                                 {A::implementation_attrs, std::string("alpha=\"1\"")}});
    for (ValueId o : {looped, rr, ri, fr, custom}) b.output(o);
    return std::move(b.g);
}

}  // namespace nnef_test
