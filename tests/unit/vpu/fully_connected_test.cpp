// Issue 21, point 4 (VGG-11): fully connected layers, which run as 1x1 convs on a 1x1 plane whose
// weights CMX cannot hold at once, in chunks of output channels that all read the whole input.
// - A tile's input loaded from DDR stays in CMX for the next tiles of the same layer on that
//   cluster that read the same box (Scheduler::load_input, `last_load`): VGG-11's FC input (7.7 KB
//   per chunk of its 25088 channels) was loaded 1586 times more than once per cluster, each load
//   paying the DMA latency while the FC weights stream over DDR.
// - A layer of more input channels than a part may take is split over input channels
//   (assign-executors `split_k`: 3872 for a 1x1 conv at fp16, whose 16 output channels' weights
//   take a quarter of a tile); `tile` gives each part chunks of output channels whose weights take
//   at most half a tile, not counting the table (loaded whole per layer and cluster): 32 channels,
//   one weights DMA per 32 output channels, not 16.
#include <doctest/doctest.h>

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "lowering/vpu/ir.hpp"
#include "unit/vpu/compile_support.hpp"

namespace fully_connected_test {

using namespace vpu_compile_support;
using I = std::vector<std::int64_t>;

// x [1,K,1,1] NCHW -> 1x1 conv to N channels with a bias: y [1,1,1,N] NHWC.
Graph fc_graph(std::int64_t K, std::int64_t N) {
    Graph g;
    g.name = "fc";
    const ValueId x = g.add_value(f32({1, K, 1, 1}), "x");
    g.main().inputs = {x};
    const ValueId v = g.add_op(0, OpKind::TRANSPOSE, {x}, {f32({1, 1, 1, K})}, {{AttrName::perms, I{0, 2, 3, 1}}}).outputs[0];
    const std::vector<std::pair<AttrName, Attr>> attrs = {{AttrName::pad, I{0, 0, 0, 0}}, {AttrName::stride, I{1, 1}},
                                                          {AttrName::dilation, I{1, 1}}, {AttrName::acc_type, AccType::FP32}};
    const ValueId y = g.add_op(0, OpKind::CONV2D, {v, constant(g, {N, 1, 1, K}, 7, 0.02f), constant(g, {N}, 8), zero(g), zero(g)},
                               {f32({1, 1, 1, N})}, attrs)
                          .outputs[0];
    g.values[y].name = "y";
    g.main().outputs = {y};
    return g;
}

struct Counts {
    int nce = 0;
    std::map<std::string, int> input_loads;  // per DDR activation or input buffer: DMAs from it into CMX
};

Counts count(const vpu::TaskList& list) {
    std::map<std::string, const vpu::Buffer*> buffers;
    for (const auto& b : list.buffers) buffers[b.id] = &b;
    Counts c;
    for (const auto& task : list.tasks) {
        if (task.kind == vpu::TaskKind::NCE) ++c.nce;
        if (task.kind != vpu::TaskKind::DMA) continue;
        const vpu::Buffer* r = buffers.at(task.reads[0].buffer);
        const vpu::Buffer* w = buffers.at(task.writes[0].buffer);
        if (r->memory == vpu::Memory::DDR && w->memory == vpu::Memory::CMX && !vpu::is_constant(r->role)) ++c.input_loads[r->id];
    }
    return c;
}


TEST_SUITE("vpu") {
    TEST_CASE("input reuse: the chunks of output channels of a fully connected layer load its input once per cluster") {
        // 2048 -> 1024 channels: 4 MiB of fp16 weights, more than a cluster's CMX, so the layer
        // runs in chunks of output channels, each reading all 2048 input channels (4 KiB)
        const Graph g = fc_graph(2048, 1024);
        vpu::TaskList list;
        compile_and_check(g, vpu::Target{}, nullptr, &list);  // values the interpreter's, simulator clean
        const Counts c = count(list);
        REQUIRE(c.nce >= 8);  // in chunks
        REQUIRE(c.input_loads.size() == 1);
        // once per cluster (a cluster's chunks come one after the other), not once per chunk
        CHECK(c.input_loads.begin()->second <= list.target.clusters);
        CAPTURE(c.nce);
    }

    TEST_CASE("split over input channels: each part's chunks take 2 x align output channels, their weights within half a tile") {
        // 8192 -> 64 channels: more input channels than a part takes (3872 for a 1x1 conv at
        // fp16 on the default target), so three parts summed by NCE adds
        const Graph g = fc_graph(8192, 64);
        vpu::TaskList list;
        compile_and_check(g, vpu::Target{}, nullptr, &list);
        const std::int64_t align = list.target.nce_channel_alignment;
        int convs = 0;
        std::int64_t parts_inputs = 0;
        for (const auto& task : list.tasks) {
            if (task.kind != vpu::TaskKind::NCE || task.op != "conv") continue;
            ++convs;
            const auto& w = task.reads[1];  // [O, 1, 1, I] of the chunk
            REQUIRE(w.shape.size() == 4);
            CAPTURE(w.shape[3]);
            CHECK(w.shape[0] == 2 * align);
            // the chunk's weights within half a tile (tile.cpp)
            CHECK(w.shape[0] * w.shape[3] * 2 <= vpu::ir::tile_budget(list.target) / 2);
            parts_inputs += w.shape[3];
        }
        // 64 output channels in chunks of 32: two tasks per part, three parts
        CHECK(convs == 6);
        CHECK(parts_inputs == 2 * 8192);
    }

    TEST_CASE("input reuse: tiles of other rows load their own rows") {
        // a 3x3 conv on 32x32x64 -> 64: row tiles read different boxes, each loaded once
        Graph g;
        g.name = "rows";
        const ValueId x = g.add_value(f32({1, 64, 32, 32}), "x");
        g.main().inputs = {x};
        const ValueId v = g.add_op(0, OpKind::TRANSPOSE, {x}, {f32({1, 32, 32, 64})}, {{AttrName::perms, I{0, 2, 3, 1}}}).outputs[0];
        const std::vector<std::pair<AttrName, Attr>> attrs = {{AttrName::pad, I{1, 1, 1, 1}}, {AttrName::stride, I{1, 1}},
                                                              {AttrName::dilation, I{1, 1}}, {AttrName::acc_type, AccType::FP32}};
        const ValueId y = g.add_op(0, OpKind::CONV2D, {v, constant(g, {64, 3, 3, 64}, 9, 0.05f), constant(g, {64}, 10), zero(g), zero(g)},
                                   {f32({1, 32, 32, 64})}, attrs)
                              .outputs[0];
        g.values[y].name = "y";
        g.main().outputs = {y};
        vpu::TaskList list;
        compile_and_check(g, vpu::Target{}, nullptr, &list);
        const Counts c = count(list);
        REQUIRE(c.input_loads.size() == 1);
        // every NCE task reads its rows: as many loads as tasks of distinct rows, at least one per task here
        CHECK(c.input_loads.begin()->second >= c.nce);
    }
}

}  // namespace fully_connected_test
