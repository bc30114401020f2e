// Issue 21, point 4 (docs/schedule.md step 22): the flags `early_loads` tries on the plan it keeps
// (lowering/vpu/passes/schedule.cpp, scheduler.hpp). `prefetch_per_cluster`: a layer split over
// channels across the clusters (every tile all rows, its input gathered on each cluster) has the
// next NCE layer's constants prefetched only after a tile on each cluster, so that the second
// cluster's gather does not queue behind them (ShuffleNet v2 int8's `conv56` before the global
// pool's tables). `dma_ties_spread`: a DMA two queues could start at once goes to the one free the
// longest, not always DMA0 (the classifier's exchanges and gathers at the end of the model).
#include <doctest/doctest.h>

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "lowering/vpu/ir.hpp"
#include "lowering/vpu/passes/scheduler.hpp"
#include "unit/vpu/compile_support.hpp"

namespace prefetch_per_cluster_test {

using namespace vpu_compile_support;

// x [1,64,7,7] NCHW -> two 3x3 convs of 64 channels (split over rows across the clusters) ->
// a 1x1 conv 64 -> 464 -> a 1x1 conv 464 -> 1024 (928 KB of fp16 weights: split over output
// channels across the clusters, its input gathered on each) -> a 1x1 conv 1024 -> 64 -> y.
Graph sok_graph() {
    Graph g;
    g.name = "sok_tail";
    const std::int64_t H = 7, C = 64;
    ValueId v = nhwc_input(g, C, H);
    auto conv = [&](ValueId in, std::int64_t cin, std::int64_t cout, std::int64_t k, unsigned seed) {
        const ValueId y = conv_same(g, in, H, cin, cout, k, seed);
        g.values[y].name = "conv" + std::to_string(seed);
        return y;
    };
    v = conv(v, C, C, 3, 40);
    v = conv(v, C, C, 3, 42);
    v = conv(v, C, 464, 1, 10);
    v = conv(v, 464, 1024, 1, 20);
    v = conv(v, 1024, C, 1, 30);
    g.values[v].name = "y";
    g.main().outputs = {v};
    return g;
}

struct Order {
    bool sok = false;                  // the 464 -> 1024 conv has a tile on each cluster, all rows
    std::int64_t prefetch_at = -1;     // index of the first DMA task of the 1024 -> 64 conv
    std::int64_t first_own_nce = -1;   // index of the first NCE task of the 464 -> 1024 conv
    std::int64_t first_other_nce = -1;  // and of its first on the other cluster (after its input's gather there)
    std::string store_queue;           // the queue of the output's store, the last task
    bool store_on_longest_free = false;
};

// The schedule pass's first attempt (7/8 of CMX for held results) with the flags on or off.
Order order(const Graph& g, bool per_cluster, bool ties) {
    vpu::ir::Module m;
    first_attempt(m, g, [&](vpu::ir::schedule_impl::Scheduler& s) {
        s.prefetch_per_cluster = per_cluster;
        s.dma_ties_spread = ties;
        s.pack_bytes = 0;  // each layer's constants in their own transfers
    });
    std::int64_t layer = -1, next = -1;
    for (std::size_t li = 0; li < m.layers.size(); ++li) {
        const vpu::ir::Layer& l = m.layers[li];
        if (l.exec != vpu::ir::Exec::nce || l.weights < 0) continue;
        if (l.weights_shape[0] == 1024) layer = std::int64_t(li);
        else if (layer >= 0 && next < 0) next = std::int64_t(li);
    }
    REQUIRE(layer >= 0);
    REQUIRE(next >= 0);
    Order o;
    std::set<std::int64_t> clusters;
    bool all_rows = true;
    for (const vpu::ir::Tile& tl : m.tiles)
        if (tl.layer == layer) {
            clusters.insert(tl.cluster);
            all_rows = all_rows && tl.row0 == 0 && tl.rows == m.layers[std::size_t(layer)].output.shape[1];
        }
    o.sok = all_rows && clusters.size() == std::size_t(m.target.clusters);
    // (the tasks' source is the NNEF origin, empty here, and weights are read from one blob of
    // constants: tasks are told by their shapes and buffers)
    std::set<int> next_weights;  // the CMX buffers the next conv's NCE tasks read as weights
    auto weights_in = [&](const vpu::ir::Task& task, std::int64_t ci) {
        return task.kind == vpu::TaskKind::NCE && task.reads.size() > 1 && task.reads[1].shape.size() == 4 && task.reads[1].shape[3] == ci;
    };
    for (const vpu::ir::Task& task : m.tasks)
        if (weights_in(task, 1024)) next_weights.insert(task.reads[1].ref.index);
    for (std::size_t i = 0; i < m.tasks.size(); ++i) {
        const vpu::ir::Task& task = m.tasks[i];
        if (weights_in(task, 464)) {
            if (o.first_own_nce < 0) o.first_own_nce = std::int64_t(i);
            if (o.first_other_nce < 0 && task.queue != m.tasks[std::size_t(o.first_own_nce)].queue) o.first_other_nce = std::int64_t(i);
        }
        if (task.kind == vpu::TaskKind::DMA && !task.reads[0].ref.cmx && next_weights.count(task.writes[0].ref.index) && o.prefetch_at < 0)
            o.prefetch_at = std::int64_t(i);
    }
    // the graph's output stored last: its queue, and whether the other queue's last transfer
    // before it came earlier in the list (that queue free the longest when both are idle)
    const vpu::ir::Task& store = m.tasks.back();
    REQUIRE(store.kind == vpu::TaskKind::DMA);
    REQUIRE_FALSE(store.writes[0].ref.cmx);
    o.store_queue = store.queue;
    std::map<std::string, std::size_t> last_on;
    for (std::size_t i = 0; i + 1 < m.tasks.size(); ++i)
        if (m.tasks[i].kind == vpu::TaskKind::DMA) last_on[m.tasks[i].queue] = i;
    const auto own = last_on.find(store.queue);
    o.store_on_longest_free = last_on.size() == 2 && own != last_on.end();
    for (const auto& q : last_on)
        if (own != last_on.end() && q.first != store.queue && q.second < own->second) o.store_on_longest_free = false;
    return o;
}


TEST_SUITE("vpu") {
    TEST_CASE("prefetch per cluster: a layer split over channels has a tile on each cluster before the next layer's loads") {
        const Graph g = sok_graph();
        const Order before = order(g, false, false), after = order(g, true, false);
        MESSAGE("the 1024 conv's first NCE tasks on its two clusters at " << before.first_own_nce << ", " << before.first_other_nce
                                                                          << ", the next layer's first load at " << before.prefetch_at << " -> "
                                                                          << after.first_own_nce << ", " << after.first_other_nce << ", "
                                                                          << after.prefetch_at);
        REQUIRE(before.sok);
        REQUIRE(before.first_own_nce >= 0);
        REQUIRE(before.first_other_nce >= 0);
        REQUIRE(before.prefetch_at >= 0);
        CHECK(before.first_own_nce < before.prefetch_at);
        CHECK(before.prefetch_at < before.first_other_nce);  // between the clusters' first tiles
        REQUIRE(after.sok);
        REQUIRE(after.first_other_nce >= 0);
        CHECK(after.first_other_nce < after.prefetch_at);  // after both
    }

    TEST_CASE("DMA ties spread: a transfer either idle queue could start goes to the one free the longest") {
        const Graph g = sok_graph();
        const Order off = order(g, true, false), on = order(g, true, true);
        MESSAGE("the output's store on " << off.store_queue << " -> " << on.store_queue);
        CHECK(off.store_queue == "DMA0");  // a tie: the first queue
        CHECK(on.store_queue == "DMA1");
        CHECK(on.store_on_longest_free);
    }

    TEST_CASE("prefetch per cluster, DMA ties spread: values equal the interpreter's") {
        // compile_and_check runs the whole pipeline: `early_loads` keeps the flagged plan only
        // where it simulates faster; the values must be the interpreter's either way
        compile_and_check(sok_graph(), vpu::Target{});
    }
}

}  // namespace prefetch_per_cluster_test
