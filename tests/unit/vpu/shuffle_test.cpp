// Issue 21, point 4: channel shuffles (ShuffleNet's RESHAPE [N,C,H,W] -> [N,g,C/g,H,W], TRANSPOSE
// [0,2,1,3,4], RESHAPE back, as the lowering of its ONNX export gives them) become copies straight
// into one NHWC tensor (assign_executors_shuffle.cpp), which the schedule keeps in CMX
// (schedule_permuted.cpp): no copy through an NCHW tensor, no spill, values the interpreter's.
#include <doctest/doctest.h>

#include <map>
#include <string>
#include <vector>

#include "unit/vpu/compile_support.hpp"
#include "unit/vpu/dma_count.hpp"

namespace shuffle_test {

using namespace vpu_compile_support;
namespace ir = nnef::vpu::ir;
using Attrs = std::vector<std::pair<AttrName, Attr>>;
using I = std::vector<std::int64_t>;

Attrs conv_attrs(std::int64_t pad) {
    return {{AttrName::pad, I{pad, pad, pad, pad}}, {AttrName::stride, I{1, 1}}, {AttrName::dilation, I{1, 1}}, {AttrName::acc_type, AccType::FP32}};
}

// An NHWC conv (k x k, `o` outputs) of `x` [1,H,W,C].
ValueId conv(Graph& g, ValueId x, std::int64_t k, std::int64_t o, unsigned seed) {
    const I s = g.type(x).shape;  // a copy: constant() adds values, which may move the types
    return g.add_op(0, OpKind::CONV2D, {x, constant(g, {o, k, k, s[3]}, seed, 0.2f), constant(g, {o}, seed + 1), zero(g), zero(g)},
                    {f32({1, s[1], s[2], o})}, conv_attrs(k / 2))
        .outputs[0];
}

ValueId transpose(Graph& g, ValueId x, const I& perms) {
    const I s = g.type(x).shape;
    I out;
    for (std::int64_t p : perms) out.push_back(s[std::size_t(p)]);
    return g.add_op(0, OpKind::TRANSPOSE, {x}, {f32(out)}, {{AttrName::perms, perms}}).outputs[0];
}

ValueId reshape(Graph& g, ValueId x, const I& shape) {
    return g.add_op(0, OpKind::RESHAPE, {x, g.add_const_shape(0, shape)}, {f32(shape)}).outputs[0];
}

// The channel shuffle of an NCHW value in `groups` groups, as the lowering of ONNX gives it.
ValueId shuffle(Graph& g, ValueId x, std::int64_t groups) {
    const auto s = g.type(x).shape;
    const ValueId r = reshape(g, x, {s[0], groups, s[1] / groups, s[2], s[3]});
    const ValueId t = transpose(g, r, {0, 2, 1, 3, 4});
    return reshape(g, t, s);
}

ValueId slice(Graph& g, ValueId x, const I& start, const I& size) {
    return g.add_op(0, OpKind::SLICE, {x, g.add_const_shape(0, start), g.add_const_shape(0, size)}, {f32(size)}).outputs[0];
}

// Two ShuffleNet v2 units on x [1,16,H,W] (NCHW): a = 1x1 conv, b = 3x3 conv, concat (NHWC), to
// NCHW, shuffle, split; the second half through a 1x1 conv, concat with the first half (NCHW),
// shuffle again; a 3x3 conv reads the whole result: z [1,H,W,8].
Graph units_graph(std::int64_t H, std::int64_t W) {
    Graph g;
    g.name = "shuffle_units";
    const ValueId x = g.add_value(f32({1, 16, H, W}), "x");
    g.main().inputs = {x};
    const ValueId xt = transpose(g, x, {0, 2, 3, 1});
    const ValueId a = conv(g, xt, 1, 16, 1), b = conv(g, xt, 3, 16, 3);
    const ValueId cat = g.add_op(0, OpKind::CONCAT, {a, b}, {f32({1, H, W, 32})}, {{AttrName::axis, std::int64_t(3)}}).outputs[0];
    const ValueId y1 = shuffle(g, transpose(g, cat, {0, 3, 1, 2}), 2);
    const ValueId s1 = slice(g, y1, {0, 0, 0, 0}, {1, 16, H, W});
    const ValueId s2 = slice(g, y1, {0, 16, 0, 0}, {1, 16, H, W});
    const ValueId c = conv(g, transpose(g, s2, {0, 2, 3, 1}), 1, 16, 5);
    const ValueId cat2 =
        g.add_op(0, OpKind::CONCAT, {s1, transpose(g, c, {0, 3, 1, 2})}, {f32({1, 32, H, W})}, {{AttrName::axis, std::int64_t(1)}}).outputs[0];
    const ValueId y2 = shuffle(g, cat2, 2);
    const ValueId z = conv(g, transpose(g, y2, {0, 2, 3, 1}), 3, 8, 7);
    g.values[z].name = "z";
    g.main().outputs = {z};
    return g;
}

// A shuffle in 4 groups of a conv's result alone (no concat): x -> 1x1 conv (32) -> NCHW ->
// shuffle -> NHWC -> 1x1 conv (8): z.
Graph bare_graph(std::int64_t H, std::int64_t W) {
    Graph g;
    g.name = "shuffle_bare";
    const ValueId x = g.add_value(f32({1, 16, H, W}), "x");
    g.main().inputs = {x};
    const ValueId a = conv(g, transpose(g, x, {0, 2, 3, 1}), 1, 32, 11);
    const ValueId y = shuffle(g, transpose(g, a, {0, 3, 1, 2}), 4);
    const ValueId z = conv(g, transpose(g, y, {0, 2, 3, 1}), 1, 8, 13);
    g.values[z].name = "z";
    g.main().outputs = {z};
    return g;
}

// Compiled for `target`: the values are the interpreter's (compile_and_check) and the shuffled
// tensors stay in CMX (no store to DDR but the graph output's).
void check_kept_in_cmx(const Graph& g, const vpu::Target& target) {
    vpu::TaskList list;
    compile_and_check(g, target, nullptr, &list);
    CHECK(vpu_test::count_dma(list).spills == 0);
}

// The copy layers after assign-executors.
std::vector<ir::Layer> copies(const Graph& g) {
    ir::Module m;
    m.graph = &g;
    m.target = vpu::Target{};
    m.name = g.name;
    Diagnostics d{0};
    REQUIRE_MESSAGE(vpu::run_pass(m, "assign-executors", d), text(d));
    std::vector<ir::Layer> out;
    for (const ir::Layer& l : m.layers)
        if (l.exec == ir::Exec::copy) out.push_back(l);
    return out;
}

// The tasks of `list` that write a box whose channel stride is `stride` bytes (every other
// channel of an fp16 NHWC tensor: 4), NCE tasks and CMX-to-CMX DMAs counted apart.
struct StridedWrites {
    int nce = 0, nce_all = 0, dma = 0;
};
StridedWrites strided_writes(const vpu::TaskList& list, std::int64_t stride) {
    std::map<std::string, const vpu::Buffer*> buffers;
    for (const auto& b : list.buffers) buffers[b.id] = &b;
    StridedWrites n;
    for (const auto& task : list.tasks) {
        const vpu::Access& w = task.writes[0];
        const bool strided = w.strides.size() == 4 && w.strides[3] == stride;
        if (task.kind == vpu::TaskKind::NCE) {
            ++n.nce_all;
            n.nce += strided;
        } else if (task.kind == vpu::TaskKind::DMA && strided && buffers.at(task.reads[0].buffer)->memory == vpu::Memory::CMX &&
                   buffers.at(w.buffer)->memory == vpu::Memory::CMX) {
            ++n.dma;
        }
    }
    return n;
}


TEST_SUITE("vpu") {
    TEST_CASE("channel shuffle: concat and shuffle are one copy per operand into channels j, j + g, ... of an NHWC tensor") {
        const Graph g = units_graph(12, 10);
        const std::vector<ir::Layer> cs = copies(g);
        // two units, each a concat of two operands: 4 copies (before: the concat's 2, then 2 more
        // through NCHW tensors per unit)
        REQUIRE(cs.size() == 4);
        for (std::size_t k = 0; k < cs.size(); ++k) {
            CAPTURE(k);
            const ir::Layer& l = cs[k];
            // every copy reads an NHWC box (channel stride one element) and writes every other
            // channel of an NHWC tensor, starting at channel k % 2
            CHECK(l.inputs[0].shape == I{1, 12, 10, 16});
            CHECK(l.inputs[0].strides[3] == 2);
            CHECK(l.output.shape == I{1, 12, 10, 16});
            CHECK(l.output.strides == I{12 * 10 * 32 * 2, 10 * 32 * 2, 32 * 2, 2 * 2});
            CHECK(l.output.offset == std::int64_t(k % 2) * 2);
        }
        // compiled: the shuffled tensors stay in CMX, and the values are the interpreter's, on the
        // default target and on one whose CMX holds less
        check_kept_in_cmx(g, vpu::Target{});
        vpu::Target small;
        small.cmx_bytes = 32768;
        compile_and_check(g, small);
    }

    TEST_CASE("channel shuffle: an NCE result only the shuffle reads is written straight into the shuffled tensor") {
        // schedule_direct.cpp: a, b and c (the 1x1 conv of the second unit) are read by nothing
        // but their shuffle's copy, so their NCE tasks write every other channel of the held
        // shuffled tensors' pieces (a channel stride of 2 fp16 elements) and those copies are
        // gone; the one copy left is the first half's (s1, a box of the first shuffled tensor)
        // into the second, one CMX-to-CMX DMA per piece (two clusters: two). Before: 8 such DMAs,
        // no strided NCE write. The values are the interpreter's (compile_and_check).
        const Graph g = units_graph(12, 10);
        vpu::TaskList list;
        compile_and_check(g, vpu::Target{}, nullptr, &list);
        const StridedWrites n = strided_writes(list, 4);
        CAPTURE(n.nce_all);
        CHECK(n.nce == n.nce_all - 2);  // all but z's two tiles (one per cluster)
        CHECK(n.dma == 2);
        CHECK(vpu_test::count_dma(list).spills == 0);
        // a shuffle of one conv's result in 4 groups is four copies of channel boxes of it (not
        // its whole result): they stay copies, and the conv writes a dense result
        vpu::TaskList bare;
        compile_and_check(bare_graph(8, 8), vpu::Target{}, nullptr, &bare);
        const StridedWrites nb = strided_writes(bare, 4 * 2);
        CHECK(nb.nce == 0);
        CHECK(nb.dma > 0);
    }

    TEST_CASE("channel shuffle: of one operand, in 4 groups, one copy per group") {
        const Graph g = bare_graph(8, 8);
        const std::vector<ir::Layer> cs = copies(g);
        REQUIRE(cs.size() == 4);
        for (std::size_t j = 0; j < cs.size(); ++j) {
            CAPTURE(j);
            // group j (channels 8j .. 8j + 7 of the conv's result) to channels j, j + 4, ...
            CHECK(cs[j].inputs[0].offset == std::int64_t(j) * 8 * 2);
            CHECK(cs[j].inputs[0].shape == I{1, 8, 8, 8});
            CHECK(cs[j].output.strides[3] == 4 * 2);
            CHECK(cs[j].output.offset == std::int64_t(j) * 2);
        }
        check_kept_in_cmx(g, vpu::Target{});
    }

    TEST_CASE("channel shuffle: a reshape / transpose chain that is not a shuffle keeps its copies") {
        // [1,32,H,W] -> [1,2,16,H,W] -> TRANSPOSE [0,1,2,4,3] (rows and columns swapped) -> back
        Graph g;
        g.name = "not_shuffle";
        const std::int64_t H = 6, W = 6;
        const ValueId x = g.add_value(f32({1, 16, H, W}), "x");
        g.main().inputs = {x};
        const ValueId a = conv(g, transpose(g, x, {0, 2, 3, 1}), 1, 32, 17);
        const ValueId r = reshape(g, transpose(g, a, {0, 3, 1, 2}), {1, 2, 16, H, W});
        const ValueId y = reshape(g, transpose(g, r, {0, 1, 2, 4, 3}), {1, 32, H, W});
        const ValueId z = conv(g, transpose(g, y, {0, 2, 3, 1}), 1, 8, 19);
        g.values[z].name = "z";
        g.main().outputs = {z};
        for (const ir::Layer& l : copies(g)) CHECK(l.output.strides.back() == 2);  // dense copies, as before
        compile_and_check(g, vpu::Target{});
    }
}

}  // namespace shuffle_test
