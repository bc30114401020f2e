// Issue 21, point 4 (samples/composite): the schedule prefetches the next NCE layer's constants
// after a layer's first tile, so that they arrive while it computes. Before the second NCE layer
// nothing computes yet, and a layer of one tile per cluster waits for every tile's loads: there
// the prefetch comes after the loads of all its tiles (Scheduler::run), else the second
// cluster's tile started only after the next layer's constants had crossed a DMA queue.
#include <doctest/doctest.h>

#include <set>
#include <string>
#include <vector>

#include "unit/vpu/compile_support.hpp"

namespace prefetch_order_test {

using namespace vpu_compile_support;
using I = std::vector<std::int64_t>;

// x [1,3,H,H] NCHW -> 3x3 conv to 8 channels (padding 1) -> 3x3 conv to 256 channels with stride 2
// (padding 0 above and left, 1 below and right; biases): y NHWC, the start of samples/composite.
Graph two_convs(std::int64_t H) {
    Graph g;
    g.name = "two";
    const ValueId x = g.add_value(f32({1, 3, H, H}), "x");
    g.main().inputs = {x};
    ValueId v = g.add_op(0, OpKind::TRANSPOSE, {x}, {f32({1, H, H, 3})}, {{AttrName::perms, I{0, 2, 3, 1}}}).outputs[0];
    std::int64_t C = 3, OH = H;
    for (unsigned k = 0; k < 2; ++k) {
        const std::int64_t O = k == 0 ? 8 : 256, S = k + 1;
        OH /= S;
        const std::vector<std::pair<AttrName, Attr>> attrs = {{AttrName::pad, k == 0 ? I{1, 1, 1, 1} : I{0, 1, 0, 1}}, {AttrName::stride, I{S, S}},
                                                              {AttrName::dilation, I{1, 1}}, {AttrName::acc_type, AccType::FP32}};
        v = g.add_op(0, OpKind::CONV2D, {v, constant(g, {O, 3, 3, C}, 20 + 2 * k, 0.2f), constant(g, {O}, 21 + 2 * k), zero(g), zero(g)},
                     {f32({1, OH, OH, O})}, attrs)
                .outputs[0];
        g.values[v].name = k == 0 ? "a" : "y";
        C = O;
    }
    g.main().outputs = {v};
    return g;
}


TEST_SUITE("vpu") {
    TEST_CASE("prefetch order: the first layer's tiles load their operands before the next layer's constants") {
        const Graph g = two_convs(64);
        vpu::TaskList list;
        compile_and_check(g, vpu::Target{}, nullptr, &list);  // values the interpreter's, simulator clean
        // the first conv (stride 1): one NCE task per cluster; every DMA into a buffer its tasks
        // read comes before the first DMA of the second conv's (stride 2) constants
        std::vector<std::string> nce_queues;
        std::set<std::string> first_reads, next_constants;
        for (const auto& task : list.tasks) {
            if (task.kind != vpu::TaskKind::NCE) continue;
            if (task.nce.stride[0] == 1) {
                nce_queues.push_back(task.queue);
                for (const auto& r : task.reads) first_reads.insert(r.buffer);
            } else {
                for (std::size_t k = 1; k < task.reads.size(); ++k) next_constants.insert(task.reads[k].buffer);
            }
        }
        REQUIRE(nce_queues.size() == std::size_t(list.target.clusters));
        REQUIRE(nce_queues[0] != nce_queues[1]);
        long last_first = -1, first_next = -1;
        for (std::size_t i = 0; i < list.tasks.size(); ++i) {
            const auto& task = list.tasks[i];
            if (task.kind != vpu::TaskKind::DMA) continue;
            if (first_reads.count(task.writes[0].buffer)) last_first = long(i);
            if (next_constants.count(task.writes[0].buffer) && !first_reads.count(task.writes[0].buffer) && first_next < 0) first_next = long(i);
        }
        REQUIRE(last_first >= 0);
        REQUIRE(first_next >= 0);
        CHECK(last_first < first_next);
    }
}

}  // namespace prefetch_order_test
