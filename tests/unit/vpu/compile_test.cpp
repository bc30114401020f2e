// The VPU compiler on hand-built TOSA graphs: the task list it gives passes every check of the
// simulator, and the simulator's values (fp16) match the TOSA interpreter's (fp32, an independent
// path) within fp16 accuracy, on the default target, on a tiny CMX (tiling) and with few barriers.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "common/compare.hpp"
#include "lowering/tosa/interpreter.hpp"
#include "lowering/vpu/compiler.hpp"
#include "lowering/vpu/simulator.hpp"
#include "unit/vpu/compile_support.hpp"
#include "unit/vpu/dma_count.hpp"

using nnef::Diagnostics;
using nnef::Stage;
namespace vpu = nnef::vpu;
using namespace nnef::tosa;

namespace compile_test {

using namespace vpu_compile_support;

using Attrs = std::vector<std::pair<AttrName, Attr>>;
using I = std::vector<std::int64_t>;

// x [1,3,H,W] NCHW -> conv 3x3 (16) + relu -> maxpool 2x2 -> depthwise 3x3 + residual add ->
// sigmoid -> global avgpool -> matmul 16x10 + bias: y [1,1,10]; and z = the residual sum, NCHW.
Graph test_graph(std::int64_t H, std::int64_t W, std::int64_t kernel = 3) {
    Graph g;
    g.name = "test";
    const std::uint32_t origin = g.add_origin({"conv", "c1", {}});
    const ValueId x = g.add_value(f32({1, 3, H, W}), "x");
    g.main().inputs = {x};
    const ValueId xt = g.add_op(0, OpKind::TRANSPOSE, {x}, {f32({1, H, W, 3})}, {{AttrName::perms, I{0, 2, 3, 1}}}).outputs[0];
    const std::int64_t p = kernel / 2;
    const ValueId c1 = g.add_op(0, OpKind::CONV2D, {xt, constant(g, {16, kernel, kernel, 3}, 1, 0.3f), constant(g, {16}, 2), zero(g), zero(g)},
                                {f32({1, H, W, 16})},
                                {{AttrName::pad, I{p, p, p, p}}, {AttrName::stride, I{1, 1}}, {AttrName::dilation, I{1, 1}},
                                 {AttrName::acc_type, AccType::FP32}},
                                origin)
                           .outputs[0];
    g.values[c1].name = "c1";
    const ValueId r1 = g.add_op(0, OpKind::CLAMP, {c1}, {f32({1, H, W, 16})},
                                {{AttrName::min_val, 0.0}, {AttrName::max_val, 3.4e38}, {AttrName::nan_mode, NanMode::PROPAGATE}})
                           .outputs[0];
    const std::int64_t h = H / 2, w = W / 2;
    const ValueId p1 = g.add_op(0, OpKind::MAX_POOL2D, {r1}, {f32({1, h, w, 16})},
                                {{AttrName::kernel, I{2, 2}}, {AttrName::stride, I{2, 2}}, {AttrName::pad, I{0, 0, 0, 0}},
                                 {AttrName::nan_mode, NanMode::PROPAGATE}})
                           .outputs[0];
    const ValueId d2 = g.add_op(0, OpKind::DEPTHWISE_CONV2D, {p1, constant(g, {3, 3, 16, 1}, 3, 0.5f), constant(g, {16}, 4), zero(g), zero(g)},
                                {f32({1, h, w, 16})},
                                {{AttrName::pad, I{1, 1, 1, 1}}, {AttrName::stride, I{1, 1}}, {AttrName::dilation, I{1, 1}},
                                 {AttrName::acc_type, AccType::FP32}})
                           .outputs[0];
    const ValueId a = g.add_op(0, OpKind::ADD, {d2, p1}, {f32({1, h, w, 16})}).outputs[0];
    const ValueId s = g.add_op(0, OpKind::SIGMOID, {a}, {f32({1, h, w, 16})}).outputs[0];
    const ValueId ap = g.add_op(0, OpKind::AVG_POOL2D, {s, zero(g), zero(g)}, {f32({1, 1, 1, 16})},
                                {{AttrName::kernel, I{h, w}}, {AttrName::stride, I{1, 1}}, {AttrName::pad, I{0, 0, 0, 0}},
                                 {AttrName::acc_type, AccType::FP32}})
                           .outputs[0];
    const ValueId rs = g.add_op(0, OpKind::RESHAPE, {ap, g.add_const_shape(0, {1, 1, 16})}, {f32({1, 1, 16})}).outputs[0];
    const ValueId mm = g.add_op(0, OpKind::MATMUL, {rs, constant(g, {1, 16, 10}, 5), zero(g), zero(g)}, {f32({1, 1, 10})}).outputs[0];
    const ValueId y = g.add_op(0, OpKind::ADD, {mm, constant(g, {1, 1, 10}, 6)}, {f32({1, 1, 10})}).outputs[0];
    g.values[y].name = "y";
    const ValueId z = g.add_op(0, OpKind::TRANSPOSE, {a}, {f32({1, 16, h, w})}, {{AttrName::perms, I{0, 3, 1, 2}}}).outputs[0];
    g.values[z].name = "z";
    g.main().outputs = {y, z};
    return g;
}

// Graph input x [1,C,H,W] NCHW, transposed to NHWC (returned).
ValueId nhwc_input(Graph& g, std::int64_t H, std::int64_t W, std::int64_t C) {
    const ValueId x = g.add_value(f32({1, C, H, W}), "x");
    g.main().inputs = {x};
    return g.add_op(0, OpKind::TRANSPOSE, {x}, {f32({1, H, W, C})}, {{AttrName::perms, I{0, 2, 3, 1}}}).outputs[0];
}
const Attrs conv3x3 = {{AttrName::pad, I{1, 1, 1, 1}}, {AttrName::stride, I{1, 1}}, {AttrName::dilation, I{1, 1}}, {AttrName::acc_type, AccType::FP32}};

// x [1,IC,H,W] NCHW -> conv 3x3 (C outputs) -> conv 1x1 (8 outputs): y [1,H,W,8] NHWC.
Graph chain_graph(std::int64_t H, std::int64_t W, std::int64_t IC, std::int64_t C) {
    Graph g;
    g.name = "chain";
    const ValueId xt = nhwc_input(g, H, W, IC);
    const Attrs& conv = conv3x3;
    const ValueId a = g.add_op(0, OpKind::CONV2D, {xt, constant(g, {C, 3, 3, IC}, 11, 0.05f), constant(g, {C}, 12), zero(g), zero(g)}, {f32({1, H, W, C})}, conv)
                          .outputs[0];
    Attrs pointwise = conv;
    pointwise[0].second = I{0, 0, 0, 0};
    const ValueId y = g.add_op(0, OpKind::CONV2D, {a, constant(g, {8, 1, 1, C}, 13, 0.05f), constant(g, {8}, 14), zero(g), zero(g)}, {f32({1, H, W, 8})},
                               pointwise)
                          .outputs[0];
    g.values[y].name = "y";
    g.main().outputs = {y};
    return g;
}

// x [1,C,H,W] NCHW -> conv 3x3 (C) + relu = a -> conv 3x3 (C) = b -> b + a: y [1,H,W,C] NHWC. `a`
// is read by a 3x3 conv (halo rows) and by the residual add.
Graph residual_graph(std::int64_t H, std::int64_t W, std::int64_t C) {
    Graph g;
    g.name = "residual";
    const ValueId xt = nhwc_input(g, H, W, C);
    const Attrs& conv = conv3x3;
    const ValueId c1 = g.add_op(0, OpKind::CONV2D, {xt, constant(g, {C, 3, 3, C}, 21, 0.1f), constant(g, {C}, 22), zero(g), zero(g)}, {f32({1, H, W, C})}, conv)
                           .outputs[0];
    const ValueId a = g.add_op(0, OpKind::CLAMP, {c1}, {f32({1, H, W, C})},
                               {{AttrName::min_val, 0.0}, {AttrName::max_val, 3.4e38}, {AttrName::nan_mode, NanMode::PROPAGATE}})
                          .outputs[0];
    const ValueId b = g.add_op(0, OpKind::CONV2D, {a, constant(g, {C, 3, 3, C}, 23, 0.1f), constant(g, {C}, 24), zero(g), zero(g)}, {f32({1, H, W, C})}, conv)
                          .outputs[0];
    const ValueId y = g.add_op(0, OpKind::ADD, {b, a}, {f32({1, H, W, C})}).outputs[0];
    g.values[y].name = "y";
    g.main().outputs = {y};
    return g;
}

// A fire module: x [1,C,H,W] NCHW -> conv 1x1 (16) = a and conv 3x3 (16) = b -> concat on channels
// -> conv 1x1 (8): y [1,H,W,8] NHWC.
Graph fire_graph(std::int64_t H, std::int64_t W, std::int64_t C) {
    Graph g;
    g.name = "fire";
    const ValueId xt = nhwc_input(g, H, W, C);
    Attrs pointwise = conv3x3;
    pointwise[0].second = I{0, 0, 0, 0};
    const ValueId a = g.add_op(0, OpKind::CONV2D, {xt, constant(g, {16, 1, 1, C}, 31, 0.1f), constant(g, {16}, 32), zero(g), zero(g)}, {f32({1, H, W, 16})},
                               pointwise)
                          .outputs[0];
    const ValueId b = g.add_op(0, OpKind::CONV2D, {xt, constant(g, {16, 3, 3, C}, 33, 0.1f), constant(g, {16}, 34), zero(g), zero(g)}, {f32({1, H, W, 16})},
                               conv3x3)
                          .outputs[0];
    const ValueId c = g.add_op(0, OpKind::CONCAT, {a, b}, {f32({1, H, W, 32})}, {{AttrName::axis, std::int64_t(3)}}).outputs[0];
    const ValueId y = g.add_op(0, OpKind::CONV2D, {c, constant(g, {8, 1, 1, 32}, 35, 0.1f), constant(g, {8}, 36), zero(g), zero(g)}, {f32({1, H, W, 8})},
                               pointwise)
                          .outputs[0];
    g.values[y].name = "y";
    g.main().outputs = {y};
    return g;
}

// sign(x) as the NNEF legalizer writes it (GREATER, SELECT), then where 0 < x < 0.3 (LOGICAL_AND,
// LOGICAL_NOT, GREATER_EQUAL) x itself: y [1,3,8,8]; bool values in between.
Graph compare_graph() {
    Graph g;
    g.name = "compare";
    const TensorType t = f32({1, 3, 8, 8}), b = {DType::bool_, {1, 3, 8, 8}};
    const ValueId x = g.add_value(t, "x");
    g.main().inputs = {x};
    auto k = [&](float v) {
        auto c = ConstData::allocate({DType::fp32, {1, 1, 1, 1}});
        c->mutable_items<float>()[0] = v;
        return g.add_const(0, c);
    };
    auto op = [&](OpKind kind, std::vector<ValueId> in, const TensorType& type) { return g.add_op(0, kind, std::move(in), {type}).outputs[0]; };
    const ValueId pos = op(OpKind::GREATER, {x, k(0.0f)}, b), neg = op(OpKind::GREATER, {k(0.0f), x}, b);
    const ValueId sign = op(OpKind::SELECT, {pos, k(1.0f), op(OpKind::SELECT, {neg, k(-1.0f), x}, t)}, t);
    const ValueId band = op(OpKind::LOGICAL_AND, {pos, op(OpKind::LOGICAL_NOT, {op(OpKind::GREATER_EQUAL, {x, k(0.3f)}, b)}, b)}, b);
    const ValueId y = op(OpKind::SELECT, {band, x, sign}, t);
    g.values[y].name = "y";
    g.main().outputs = {y};
    return g;
}

// x [4,8]: a linear (1x1 CONV2D) whose weights are computed (sigmoid(x)) and whose bias is a SLICE
// of a constant: y [4,4]; a linear with constant weights and a sliced constant bias, then GATHER of
// rows 3 and 1 (constant indices): r [1,2,5], and of row 2 alone: s [1,1,5].
Graph linear_graph() {
    Graph g;
    g.name = "linear";
    const ValueId x = g.add_value(f32({4, 8}), "x");
    g.main().inputs = {x};
    auto reshape = [&](ValueId v, I shape) { return g.add_op(0, OpKind::RESHAPE, {v, g.add_const_shape(0, shape)}, {f32(shape)}).outputs[0]; };
    auto slice = [&](ValueId v, I start, I size) {
        return g.add_op(0, OpKind::SLICE, {v, g.add_const_shape(0, start), g.add_const_shape(0, size)}, {f32(size)}).outputs[0];
    };
    const Attrs conv = {{AttrName::pad, I{0, 0, 0, 0}}, {AttrName::stride, I{1, 1}}, {AttrName::dilation, I{1, 1}}, {AttrName::acc_type, AccType::FP32}};
    const ValueId biases = constant(g, {2, 8}, 21);
    const ValueId x4 = reshape(x, {4, 1, 1, 8});
    const ValueId w = reshape(g.add_op(0, OpKind::SIGMOID, {x}, {f32({4, 8})}).outputs[0], {4, 1, 1, 8});
    const ValueId b1 = reshape(slice(biases, {1, 2}, {1, 4}), {4});
    const ValueId c1 = g.add_op(0, OpKind::CONV2D, {x4, w, b1, zero(g), zero(g)}, {f32({4, 1, 1, 4})}, conv).outputs[0];
    const ValueId y = reshape(c1, {4, 4});
    g.values[y].name = "y";
    const ValueId b2 = reshape(slice(biases, {0, 3}, {1, 5}), {5});
    const ValueId c2 = g.add_op(0, OpKind::CONV2D, {x4, constant(g, {5, 1, 1, 8}, 22), b2, zero(g), zero(g)}, {f32({4, 1, 1, 5})}, conv).outputs[0];
    const ValueId rows = reshape(c2, {1, 4, 5});
    auto indices = [&](std::vector<std::int32_t> v) {
        auto c = ConstData::allocate({DType::i32, {1, std::int64_t(v.size())}});
        for (std::size_t i = 0; i < v.size(); ++i) c->mutable_items<std::int32_t>()[i] = v[i];
        return g.add_const(0, c);
    };
    const ValueId r = g.add_op(0, OpKind::GATHER, {rows, indices({3, 1})}, {f32({1, 2, 5})}).outputs[0];
    g.values[r].name = "r";
    const ValueId s = g.add_op(0, OpKind::GATHER, {rows, indices({2})}, {f32({1, 1, 5})}).outputs[0];
    g.values[s].name = "s";
    g.main().outputs = {y, r, s};
    return g;
}

// The value of a top-level field of the IR text (lowering/vpu/ir_text.hpp: one field per line).
std::string ir_field(const std::string& ir, const std::string& key) {
    const std::string at = "\n  \"" + key + "\": ";
    const auto i = ir.find(at);
    if (i == std::string::npos) return "(no field " + key + ")";
    const auto from = i + at.size();
    std::string v = ir.substr(from, ir.find('\n', from) - from);
    if (!v.empty() && v.back() == ',') v.pop_back();
    return v;
}



// The barrier structure of a task list, checked independently of the compiler: every producer of
// a barrier conflicts with every consumer of it (the two touch overlapping bytes of one memory and
// one of them writes), and no wait is redundant (a producer of a barrier a task waits on does not
// already happen before another of the task's direct predecessors: its queue predecessor or
// another producer). Happens-before as full reachability sets (the lists here are small).
struct BarrierFacts {
    std::size_t barriers = 0, non_conflicting = 0, redundant = 0, concurrent_pairs = 0;
};

BarrierFacts barrier_facts(const vpu::TaskList& l) {
    std::map<std::string, const vpu::Buffer*> buffers;
    for (const auto& b : l.buffers) buffers[b.id] = &b;
    struct Span {
        std::int64_t memory, lo, hi;
        bool write;
    };
    const std::size_t n = l.tasks.size();
    std::vector<std::vector<Span>> spans(n);
    for (std::size_t i = 0; i < n; ++i)
        for (int w = 0; w < 2; ++w)
            for (const auto& a : w ? l.tasks[i].writes : l.tasks[i].reads) {
                const vpu::Buffer& b = *buffers.at(a.buffer);
                const auto s = a.span(vpu::element_bytes(b.dtype));
                const std::int64_t memory = b.memory == vpu::Memory::DDR ? -1 : b.cluster;
                spans[i].push_back({memory, b.offset + s.first, b.offset + s.second, w == 1});
            }
    auto conflict = [&](std::size_t x, std::size_t y) {
        for (const Span& a : spans[x])
            for (const Span& b : spans[y])
                if (a.memory == b.memory && a.lo < b.hi && b.lo < a.hi && (a.write || b.write)) return true;
        return false;
    };
    std::map<std::int64_t, std::vector<std::size_t>> producers, consumers;
    std::map<std::string, std::size_t> last;
    std::vector<std::vector<std::size_t>> direct(n);
    for (std::size_t i = 0; i < n; ++i) {
        for (auto b : l.tasks[i].update) producers[b].push_back(i);
        for (auto b : l.tasks[i].wait) consumers[b].push_back(i);
    }
    BarrierFacts f;
    f.barriers = l.barriers.size();
    std::vector<std::vector<bool>> reach(n, std::vector<bool>(n, false));  // reach[t][a]: a happens before t
    for (std::size_t i = 0; i < n; ++i) {
        auto q = last.find(l.tasks[i].queue);
        const bool has_prev = q != last.end();
        if (has_prev) direct[i].push_back(q->second);
        last[l.tasks[i].queue] = i;
        for (auto b : l.tasks[i].wait)
            for (std::size_t p : producers[b]) {
                if (!conflict(p, i)) ++f.non_conflicting;
                direct[i].push_back(p);
            }
        for (std::size_t d : direct[i]) {
            reach[i][d] = true;
            for (std::size_t a = 0; a < n; ++a)
                if (reach[d][a]) reach[i][a] = true;
        }
        for (std::size_t k = has_prev ? 1 : 0; k < direct[i].size(); ++k)  // the producers
            for (std::size_t d : direct[i])
                if (d != direct[i][k] && reach[d][direct[i][k]]) {
                    ++f.redundant;
                    break;
                }
    }
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = 0; j < i; ++j)
            if (!reach[i][j]) ++f.concurrent_pairs;
    return f;
}
// The tiles of the NCE convolution of `g` whose output has `shape`, compiled for `target`: their row
// ranges and channel ranges. Checks that together they cover each (row, channel) of the output
// once, and that the task list has one NCE task per tile, writing the tile's extent.
struct ConvTiles {
    std::set<std::pair<std::int64_t, std::int64_t>> row_ranges, channel_ranges;  // (first, count)
};
ConvTiles conv_tiles(const Graph& g, const vpu::Target& target, const std::vector<std::int64_t>& shape) {
    vpu::ir::Module m;
    m.graph = &g;
    m.target = target;
    m.name = g.name;
    Diagnostics d{0};
    REQUIRE_MESSAGE(vpu::compile_pipeline().run(m, {}, d), text(d));
    std::int64_t conv = -1;
    for (std::size_t k = 0; k < m.layers.size(); ++k)
        if (m.layers[k].exec == vpu::ir::Exec::nce && m.layers[k].nce_op == vpu::ir::NceOp::conv && m.layers[k].output.shape == shape) conv = std::int64_t(k);
    REQUIRE(conv >= 0);
    REQUIRE(shape.size() == 4);
    const std::int64_t H = shape[1], W = shape[2], C = shape[3];
    ConvTiles r;
    std::multiset<std::pair<std::int64_t, std::int64_t>> extents, task_extents;  // (rows, channels)
    std::vector<int> covered(std::size_t(H * C), 0);
    for (const vpu::ir::Tile& tl : m.tiles) {
        if (tl.layer != conv) continue;
        r.row_ranges.insert({tl.row0, tl.rows});
        r.channel_ranges.insert({tl.ch0, tl.chans});
        extents.insert({tl.rows, tl.chans});
        for (std::int64_t y = tl.row0; y < tl.row0 + tl.rows; ++y)
            for (std::int64_t c = tl.ch0; c < tl.ch0 + tl.chans; ++c) {
                REQUIRE((y >= 0 && y < H && c >= 0 && c < C));
                ++covered[std::size_t(y * C + c)];
            }
    }
    INFO(r.row_ranges.size() << " row ranges, " << r.channel_ranges.size() << " channel ranges, " << extents.size() << " tiles");
    CHECK(std::count(covered.begin(), covered.end(), 1) == H * C);
    for (const vpu::Task& task : m.list.tasks)
        if (task.kind == vpu::TaskKind::NCE && task.op == "conv" && task.source == m.layers[std::size_t(conv)].source) {
            REQUIRE(task.writes.size() == 1);
            REQUIRE(task.writes[0].shape.size() == 4);
            CHECK(task.writes[0].shape[2] == W);
            task_extents.insert({task.writes[0].shape[1], task.writes[0].shape[3]});
        }
    CHECK(task_extents == extents);
    return r;
}


TEST_SUITE("vpu") {
    TEST_CASE("compile: conv, relu, pools, depthwise, residual add, sigmoid, matmul on the default target") {
        std::int64_t tasks = 0;
        compile_and_check(test_graph(16, 16), vpu::Target{}, &tasks);
        CHECK(tasks > 10);
    }

    TEST_CASE("compile: a small CMX forces tiling over rows and channels, the tiles partition the output, values unchanged") {
        vpu::Target t;
        t.cmx_bytes = 12288;
        std::int64_t small = 0, big = 0;
        compile_and_check(test_graph(32, 24), t, &small);
        compile_and_check(test_graph(32, 24), vpu::Target{}, &big);
        CHECK(small > big);
        // test_graph's first convolution (16 output channels, the NCE's channel alignment) splits
        // over rows only
        const ConvTiles first = conv_tiles(test_graph(32, 24), t, {1, 32, 24, 16});
        CHECK(first.row_ranges.size() > 1);
        CHECK(first.channel_ranges.size() == 1);
        // a 3x3 convolution of 16 to 64 channels: its weights (18 KB in fp16) exceed a tile's share
        // of the 12 KB CMX, so it splits over channels too
        compile_and_check(chain_graph(8, 8, 16, 64), t);
        const ConvTiles wide = conv_tiles(chain_graph(8, 8, 16, 64), t, {1, 8, 8, 64});
        CHECK(wide.row_ranges.size() > 1);
        CHECK(wide.channel_ranges.size() > 1);
    }

    TEST_CASE("compile: 4 and 2 physical barriers, one cluster, one DMA engine") {
        vpu::Target t;
        t.barriers = 4;
        compile_and_check(test_graph(16, 16), t);
        t.barriers = 2;
        t.clusters = 1;
        t.dma_engines = 1;
        t.shave_per_cluster = 1;
        compile_and_check(test_graph(16, 16), t);
    }

    TEST_CASE("compile: barriers are the reduced dependencies, one per producer set") {
        for (std::int64_t cmx : {std::int64_t(0), std::int64_t(12288)}) {
            vpu::Target t;
            if (cmx) t.cmx_bytes = cmx;
            Diagnostics d{0};
            const auto list = vpu::compile(test_graph(32, 24), t, {}, d);
            INFO(text(d));
            REQUIRE(list);
            const BarrierFacts f = barrier_facts(*list);
            INFO("cmx " << cmx << ": " << f.barriers << " barriers, " << f.concurrent_pairs << " concurrent pairs");
            CHECK(f.barriers > 0);
            CHECK(f.non_conflicting == 0);  // every producer -> consumer edge is a RAW, WAR or WAW
            CHECK(f.redundant == 0);        // transitive reduction
            CHECK(f.concurrent_pairs > 0);
            // no two barriers with the same producers, unless the consumer limit split them
            std::map<std::int64_t, std::vector<std::int64_t>> producers;
            for (std::size_t i = 0; i < list->tasks.size(); ++i)
                for (auto b : list->tasks[i].update) producers[b].push_back(std::int64_t(i));
            std::map<std::vector<std::int64_t>, int> sets;
            for (const auto& [b, p] : producers) CHECK(++sets[p] == 1);
        }
    }

    TEST_CASE("compile: few physical barriers: segments (2 and more), phases (limits below a sync), an error (1)") {
        // makespan and the first IR line for a barrier count (the small CMX makes many tiles)
        const auto run = [](std::int64_t count, std::int64_t max_producers, std::string& ir) {
            vpu::Target t;
            t.barriers = count;
            t.cmx_bytes = 12288;
            t.barrier_max_producers = max_producers;
            vpu::CompileOptions co;
            co.print_after = {"barriers"};
            co.print = [&](const std::string&, const std::string& text) {
                ir = "physical ids in " + ir_field(text, "barrier_segments") + " segment(s)" +
                     (ir_field(text, "barrier_fallback") == "true" ? ", phase fallback" : "") + ")";
            };
            Diagnostics d{0};
            const auto list = vpu::compile(test_graph(32, 24), t, co, d);
            INFO(text(d));
            REQUIRE(list);
            INFO(count << " barriers: " << ir);
            const auto r = vpu::simulate(*list, t, {}, d);
            INFO(text(d));
            REQUIRE(r.valid);  // every rule of section 5 (ordering of reused ids, races, deadlock)
            std::int64_t used = 0;
            for (const auto& b : list->barriers) used = std::max(used, b.physical + 1);
            if (count < 64) {  // every id used, each many times
                CHECK(used == count);
                CHECK(list->barriers.size() > std::size_t(4 * count));
            }
            return r.makespan;
        };
        std::string ir;
        const double full = run(64, 256, ir);
        CHECK(ir.find("physical ids in 1 segment(s))") != std::string::npos);  // every dependency its own barrier
        // the phases (a sync takes one producer per queue: with fewer allowed, phases), for comparison
        const double phases = run(4, 2, ir);
        CHECK(ir.find("phase fallback") != std::string::npos);
        // 2 ids: syncs only (a segment per dependency not implied by the last sync), no phases
        const double syncs = run(2, 256, ir);
        INFO("2 barriers: " << ir << ", makespan " << syncs << " (64: " << full << ", phases: " << phases << ")");
        CHECK(ir.find("phase fallback") == std::string::npos);
        CHECK(ir.find("physical ids in 1 segment(s)") == std::string::npos);
        CHECK(syncs >= full * 0.99);
        for (std::int64_t count : {3, 4, 6}) {
            const double segmented = run(count, 256, ir);
            INFO(count << " barriers: " << ir << ", makespan " << segmented << " (64: " << full << ", phases: " << phases << ")");
            CHECK(ir.find("phase fallback") == std::string::npos);
            CHECK(ir.find("physical ids in 1 segment(s)") == std::string::npos);  // syncs were needed
            CHECK(segmented < phases);
            CHECK(segmented >= full * 0.99);
        }
        vpu::Target one;
        one.barriers = 1;
        Diagnostics d{0};
        CHECK_FALSE(vpu::compile(test_graph(16, 16), one, {}, d));
        CHECK(text(d).find("too-few-barriers") != std::string::npos);
    }

    TEST_CASE("compile: a result read only by the next layer, pointwise, stays in CMX (no store, no load)") {
        // depthwise -> residual add: the add's tiles read the depthwise tiles' CMX results.
        Diagnostics d{0};
        const auto list = vpu::compile(test_graph(16, 16), vpu::Target{}, {}, d);
        INFO(text(d));
        REQUIRE(list);
        std::map<std::string, std::string> nce_writer;  // CMX buffer -> op of the NCE task writing it
        for (const auto& task : list->tasks)
            if (task.kind == vpu::TaskKind::NCE)
                for (const auto& w : task.writes) nce_writer[w.buffer] = task.op;
        int chained = 0;
        for (const auto& task : list->tasks)
            if (task.kind == vpu::TaskKind::NCE && task.op == "eltwise")
                for (const auto& r : task.reads)
                    if (nce_writer.count(r.buffer) && nce_writer[r.buffer] == "dwconv") ++chained;
        CHECK(chained >= 2);  // at least one tile per cluster
        // and the values stay right (compile_and_check compares with the TOSA interpreter)
        compile_and_check(test_graph(16, 16), vpu::Target{});
    }

    TEST_CASE("compile: a result computed in channel chunks stays in CMX for a 1x1 conv reading all channels") {
        vpu::Target t;  // the 3x3 conv's weights (256 x 3x3x64) come in two chunks of output channels; on 32x32
                        // rows the work hides their load, so the layer splits over rows (tile_split_channels.hpp)
        Diagnostics d{0};
        const auto list = vpu::compile(chain_graph(32, 32, 64, 256), t, {}, d);
        INFO(text(d));
        REQUIRE(list);
        std::map<std::string, int> chunk_writes;  // CMX buffer -> NCE tasks writing part of its channels
        for (const auto& task : list->tasks)
            if (task.kind == vpu::TaskKind::NCE)
                for (const auto& w : task.writes)
                    if (w.strides[2] != w.shape[3] * 2) ++chunk_writes[w.buffer];
        int read_whole = 0;
        for (const auto& task : list->tasks)
            if (task.kind == vpu::TaskKind::NCE && task.reads.size() == 3 && chunk_writes.count(task.reads[0].buffer) &&
                chunk_writes[task.reads[0].buffer] >= 2 && task.reads[0].shape[3] == 256)
                ++read_whole;
        CHECK(read_whole >= 2);
        compile_and_check(chain_graph(32, 32, 64, 256), t);
    }

    TEST_CASE("compile: a result read by a 3x3 conv and by a residual add stays in CMX, halo rows exchanged between clusters") {
        Diagnostics d{0};
        const auto list = vpu::compile(residual_graph(32, 32, 32), vpu::Target{}, {}, d);
        INFO(text(d));
        REQUIRE(list);
        const vpu_test::DmaCount n = vpu_test::count_dma(*list);
        CHECK(n.spills == 0);  // nothing goes to DDR but the output
        CHECK(n.cross >= 2);   // each cluster's 3x3 tiles get the other cluster's edge rows
        compile_and_check(residual_graph(32, 32, 32), vpu::Target{});
        // and on a CMX too small to hold it, it goes through DDR, still right
        vpu::Target small;
        for (std::int64_t kb : {24, 32, 40, 48, 64, 96}) {
            small.cmx_bytes = kb * 1024;
            INFO(kb);
            compile_and_check(residual_graph(32, 32, 32), small);
        }
    }

    TEST_CASE("compile: a concat of results held in CMX is not copied through DDR") {
        Diagnostics d{0};
        const auto list = vpu::compile(fire_graph(32, 32, 16), vpu::Target{}, {}, d);
        INFO(text(d));
        REQUIRE(list);
        CHECK(vpu_test::count_dma(*list).spills == 0);
        compile_and_check(fire_graph(32, 32, 16), vpu::Target{});
        vpu::Target small;
        small.cmx_bytes = 32768;  // no room to hold: through DDR, still right
        compile_and_check(fire_graph(32, 32, 16), small);
    }

    TEST_CASE("compile: barrier producer/consumer limits are kept") {
        vpu::Target t;
        t.barrier_max_producers = 2;
        t.barrier_max_consumers = 3;
        t.cmx_bytes = 16384;
        Diagnostics d{0};
        const auto list = vpu::compile(test_graph(32, 24), t, {}, d);
        INFO(text(d));
        REQUIRE(list);
        std::map<std::int64_t, int> prod, cons;
        for (const auto& task : list->tasks) {
            for (auto b : task.update) ++prod[b];
            for (auto b : task.wait) ++cons[b];
        }
        for (const auto& b : list->barriers) {
            CHECK(prod[b.id] >= 1);
            CHECK(prod[b.id] <= 2);
            CHECK(cons[b.id] >= 1);
            CHECK(cons[b.id] <= 3);
            CHECK(b.physical < t.barriers);
        }
    }

    TEST_CASE("compile: comparisons and SELECT run as SHAVE kernels, bool values as fp16 1 / 0") {
        vpu::TaskList l;
        compile_and_check(compare_graph(), vpu::Target{}, nullptr, &l);
        std::map<std::string, const vpu::Buffer*> buffers;
        for (const auto& b : l.buffers) buffers[b.id] = &b;
        std::map<std::string, int> kernels;
        for (const auto& t : l.tasks) {
            if (t.kind != vpu::TaskKind::SHAVE) continue;
            ++kernels[t.op];
            for (const auto& w : t.writes) CHECK(buffers.at(w.buffer)->dtype == vpu::DataType::fp16);
        }
        CHECK(kernels["greater"] >= 2);
        CHECK(kernels["greater_equal"] >= 1);
        CHECK(kernels["logical_and"] >= 1);
        CHECK(kernels["logical_not"] >= 1);
        CHECK(kernels["select"] >= 3);
    }

    TEST_CASE("compile: a linear with computed weights runs on SHAVE (matmul, add), sliced constant biases and constant-index GATHER fold") {
        vpu::TaskList l;
        compile_and_check(linear_graph(), vpu::Target{}, nullptr, &l);
        std::map<std::string, int> ops;
        for (const auto& t : l.tasks) ++ops[std::string(vpu::to_string(t.kind)) + " " + t.op];
        CHECK(ops["SHAVE matmul"] >= 1);
        CHECK(ops["SHAVE add"] >= 1);
        CHECK(ops["NCE conv"] >= 1);  // the linear with constant weights, its bias a slice
        CHECK(ops.count("SHAVE gather") == 0);
        CHECK(ops.count("SHAVE slice") == 0);
    }

    TEST_CASE("compile: an operator the NCE cannot take is an error naming it and its NNEF operation") {
        vpu::Target t;
        t.nce_max_kernel = 2;
        Diagnostics d{0};
        CHECK_FALSE(vpu::compile(test_graph(16, 16), t, {}, d));
        REQUIRE(d.has_errors());
        const auto& e = *d.begin();
        CHECK(e.stage == Stage::vpu);
        CHECK(e.message.find("CONV2D") != std::string::npos);
        CHECK(e.message.find("'conv'") != std::string::npos);
        CHECK(e.message.find("kernel 3x3") != std::string::npos);
    }

    TEST_CASE("compile: a layer too large for CMX is an error naming it") {
        vpu::Target t;
        t.cmx_bytes = 1024;
        Diagnostics d{0};
        CHECK_FALSE(vpu::compile(test_graph(16, 16), t, {}, d));
        CHECK(text(d).find("does-not-fit") != std::string::npos);
    }

    TEST_CASE("compile: the passes run in order, print-after gives the IR") {
        const auto names = vpu::compile_pipeline().names();
        CHECK(names == std::vector<std::string>{"assign-executors", "fuse-post-ops", "layout-and-types", "tile", "build-tables", "schedule", "barriers", "emit"});
        vpu::CompileOptions co;
        co.print_after = {"tile", "emit"};
        std::vector<std::string> seen;
        std::string tiles;
        co.print = [&](const std::string& pass, const std::string& ir) {
            seen.push_back(pass);
            if (pass == "tile") tiles = ir;
        };
        Diagnostics d{0};
        REQUIRE(vpu::compile(test_graph(16, 16), vpu::Target{}, co, d));
        CHECK(seen == std::vector<std::string>{"tile", "emit"});
        CHECK(tiles.find("{\"layer\":0,\"exec\":\"NCE\",\"nce_op\":\"conv\"") != std::string::npos);
        CHECK(tiles.find("\"post_op\":\"relu\"") != std::string::npos);
        CHECK(tiles.find("{\"layer\":0,\"cluster\":1,") != std::string::npos);
    }

    TEST_CASE("compile: each pass adds its promises, and the verifier checks them all after every later pass") {
        const Graph g = test_graph(16, 16);
        vpu::Target t;
        t.cmx_bytes = 4096;  // with an alignment of 4, the conv's channels split into chunks: table offsets per chunk
        t.nce_channel_alignment = 4;
        vpu::ir::Module m;
        m.graph = &g;
        m.target = t;
        const auto pipeline = vpu::compile_pipeline();
        using vpu::ir::Promise;
        const std::map<std::string, std::vector<Promise>> promises = {
            {"assign-executors", {Promise::layers}},
            {"fuse-post-ops", {Promise::post_ops_fused}},
            {"layout-and-types", {Promise::weights_laid_out}},
            {"tile", {Promise::tiled}},
            {"build-tables", {Promise::tables_built}},
            {"schedule", {Promise::scheduled, Promise::cmx_allocated}},
            {"barriers", {Promise::barriers}},
            {"emit", {Promise::emitted}},
        };
        for (const auto& pass : pipeline.passes) {
            Diagnostics d{0};
            const std::uint32_t before = m.promised;
            REQUIRE(pass.run(m, d));
            CHECK(vpu::ir::verify(m, pass.name, d));
            std::uint32_t want = before;
            for (Promise p : promises.at(pass.name)) want |= 1u << unsigned(p);
            CHECK_MESSAGE(m.promised == want, pass.name);
            if (pass.name == "tile") {
                bool chunked = false;
                for (const auto& tl : m.tiles) chunked = chunked || tl.ch0 > 0;
                CHECK(chunked);
                // the tables are sized but not written before build-tables (tile writes none)
                for (const auto& l : m.layers)
                    if (l.exec == vpu::ir::Exec::nce) CHECK_FALSE(m.tensors[std::size_t(l.table)].data);
            }
        }
        // a table word 0 past the weights breaks build-tables' promise, seen after any later pass
        int conv = -1;
        for (std::size_t i = 0; i < m.layers.size() && conv < 0; ++i)
            if (m.layers[i].exec == vpu::ir::Exec::nce && m.layers[i].nce_op == vpu::ir::NceOp::conv) conv = int(i);
        REQUIRE(conv >= 0);
        // (the layer's rows of the packed tables: from its table_offset)
        const vpu::ir::Layer& cl = m.layers[std::size_t(conv)];
        std::uint8_t* row1 = m.tensors[std::size_t(cl.table)].data->data() + cl.table_offset + 16;
        const std::int32_t far = std::int32_t(cl.weights_bytes());
        std::memcpy(row1, &far, 4);
        Diagnostics d{0};
        CHECK_FALSE(vpu::ir::verify(m, "barriers", d));
        CHECK(text(d).find("lies outside the weights") != std::string::npos);
        CHECK(text(d).find("after pass 'barriers'") != std::string::npos);
        // an unaligned CMX offset breaks the schedule's cmx-allocated promise
        std::memset(row1, 0, 4);
        REQUIRE(!m.cmx.empty());
        m.cmx[0].offset += 1;
        Diagnostics d2{0};
        CHECK_FALSE(vpu::ir::verify(m, "emit", d2));
        CHECK(text(d2).find("is unaligned or past the capacity") != std::string::npos);
    }

    TEST_CASE("compile: after the phase fallback the verifier checks CMX reuse on the barriers' happens-before") {
        // limits below one producer per queue: no sync can be made, the barriers fall back to phases
        const Graph g = test_graph(16, 16);
        vpu::Target t;
        t.barriers = 2;  // (4 were enough since the constants of consecutive layers load together)
        t.barrier_max_producers = 2;
        vpu::ir::Module m;
        m.graph = &g;
        m.target = t;
        run_passes_until(m, "barriers");
        REQUIRE(m.barrier_fallback);
        // two CMX buffers of one cluster whose tasks run on different queues with no barrier
        // between them: placing the second over the first's bytes is a reuse the barriers do not order
        std::size_t a = m.cmx.size(), b = m.cmx.size();
        for (std::size_t i = 0; i < m.cmx.size() && b == m.cmx.size(); ++i)
            for (std::size_t j = 0; j < m.cmx.size(); ++j) {
                if (i == j || m.cmx[i].cluster != m.cmx[j].cluster || m.cmx[i].size > m.cmx[j].size) continue;
                // their first tasks on different queues, neither waiting on anything: unordered
                const auto& ti = m.tasks[std::size_t(m.cmx[i].first)];
                const auto& tj = m.tasks[std::size_t(m.cmx[j].first)];
                if (ti.queue != tj.queue && ti.wait.empty() && tj.wait.empty() && ti.update.size() + tj.update.size() > 0) {
                    a = i;
                    b = j;
                    break;
                }
            }
        REQUIRE(b < m.cmx.size());
        m.cmx[a].offset = m.cmx[b].offset;
        Diagnostics d{0};
        CHECK_FALSE(vpu::ir::verify(m, "barriers", d));
        CHECK(text(d).find("the barriers do not order their tasks") != std::string::npos);
    }

    TEST_CASE("compile: print-after prints after every pass, with the promises made so far") {
        vpu::CompileOptions co;
        co.print_after = {"all"};
        std::map<std::string, std::string> printed;
        co.print = [&](const std::string& pass, const std::string& ir) { printed[pass] = ir; };
        Diagnostics d{0};
        REQUIRE(vpu::compile(test_graph(16, 16), vpu::Target{}, co, d));
        CHECK(printed.size() == vpu::compile_pipeline().passes.size() + 1);  // and "import", before the first pass
        CHECK(ir_field(printed[vpu::import_name], "promises") == "[]");
        CHECK(ir_field(printed[vpu::import_name], "graph").rfind("{\"blocks\":", 0) == 0);  // assign-executors' input
        CHECK(ir_field(printed["assign-executors"], "graph") == "null");
        CHECK(ir_field(printed["assign-executors"], "promises") == "[\"layers\"]");
        CHECK(ir_field(printed["build-tables"], "promises") == "[\"layers\",\"post-ops-fused\",\"weights-laid-out\",\"tiled\",\"tables-built\"]");
        CHECK(printed["schedule"].find("\"scheduled\",\"cmx-allocated\"]") != std::string::npos);
        CHECK(printed["assign-executors"].find("\"exec\":\"SHAVE\"") != std::string::npos);
        CHECK(printed["assign-executors"].find("\"name\":\"sigmoid\"") != std::string::npos);
    }
}

}  // namespace compile_test
