// Issue 21, point 4 (docs/schedule.md step 40): the prefetch after a layer's first tile loads the
// next NCE layer's constants; with `prefetch_beyond` it also loads the first chunks of the NCE
// layers after that one whose loads take longer than the NCE work of the layers before them from
// the next one on (the one-ahead prefetch would leave them exposed: DenseNet-121's 1x1 convs after
// short batch norms and pools, ConvNeXt's first MLP conv after a layer norm). The schedule pass
// makes the plan kept once more with it and keeps it where the simulator runs it faster
// (schedule.cpp `early_loads`): not in this small chain, whose DMA queues the earlier load then
// delays, but in DenseNet-121 (tests/unit/tools/to_vpu_schedule_test.cpp guards its makespan).
#include <doctest/doctest.h>

#include <cstdint>
#include <vector>

#include "lowering/vpu/ir.hpp"
#include "lowering/vpu/passes/scheduler.hpp"
#include "unit/vpu/compile_support.hpp"

namespace prefetch_beyond_test {

using namespace vpu_compile_support;

// x [1,64,14,14] NCHW -> two 3x3 convs 64 -> 64 (time for a load to hide behind) -> three 1x1
// convs 64 -> 64 (little work, 8 KB of weights each) -> a 1x1 conv 64 -> 1536 (192 KB of fp16
// weights: several K cycles to load, more than the short convs before it compute) -> y
// [1,14,14,1536].
Graph chain() {
    Graph g;
    g.name = "short_then_wide";
    const std::int64_t H = 14;
    ValueId v = nhwc_input(g, 64, H);
    for (unsigned k = 0; k < 2; ++k) v = conv_same(g, v, H, 64, 64, 3, 40 + 2 * k);
    for (unsigned k = 0; k < 3; ++k) v = conv_same(g, v, H, 64, 64, 1, 50 + 2 * k);
    v = conv_same(g, v, H, 64, 1536, 1, 60);
    g.values[v].name = "y";
    g.main().outputs = {v};
    return g;
}

struct Order {
    std::size_t wide_load = 0;   // the first load of the wide conv's weights (program index)
    std::size_t second = 0;      // the second short conv's first NCE task
    std::size_t third = 0;       // the third's
};

// Where the scheduled module `m` puts the wide conv's first weights load.
Order order_in(const vpu::ir::Module& m) {
    // the NCE layers with weights in order (two 3x3 convs, three short ones, the wide one), and
    // how many tiles each has: with no runs here, their NCE tasks come layer after layer
    std::vector<std::size_t> convs;
    for (std::size_t li = 0; li < m.layers.size(); ++li)
        if (m.layers[li].exec == vpu::ir::Exec::nce && m.layers[li].weights >= 0) convs.push_back(li);
    REQUIRE(convs.size() == 6);
    const vpu::ir::Layer& wide = m.layers[convs[5]];
    REQUIRE(wide.weights_shape[0] == 1536);
    std::vector<std::size_t> tiles(6, 0);
    for (const auto& tl : m.tiles)
        for (std::size_t k = 0; k < 6; ++k) tiles[k] += tl.layer == std::int64_t(convs[k]);
    std::size_t before_second = 0, before_third = 0;  // NCE tasks before the second / third short conv's
    for (std::size_t k = 0; k < 3; ++k) before_second += tiles[k];
    before_third = before_second + tiles[3];
    const std::int64_t wide_bytes = 1536 * 64 * 2;
    Order o{m.tasks.size(), m.tasks.size(), m.tasks.size()};
    std::size_t nce = 0;
    for (std::size_t i = 0; i < m.tasks.size(); ++i) {
        const auto& task = m.tasks[i];
        const auto& from = task.reads.empty() ? vpu::ir::Box{} : task.reads[0];
        if (task.kind == vpu::TaskKind::DMA && !from.ref.cmx && from.ref.index == wide.weights && from.offset >= wide.weights_offset &&
            from.offset < wide.weights_offset + wide_bytes)
            o.wide_load = std::min(o.wide_load, i);
        if (task.kind != vpu::TaskKind::NCE) continue;
        if (nce == before_second) o.second = i;
        if (nce == before_third) o.third = i;
        ++nce;
    }
    REQUIRE(o.wide_load < m.tasks.size());
    return o;
}

// The same where the Scheduler alone (the first attempt's budgets) puts it, with
// `prefetch_beyond` on or off.
Order order(const Graph& g, bool beyond) {
    vpu::ir::Module m;
    first_attempt(m, g, [&](vpu::ir::schedule_impl::Scheduler& s) { s.prefetch_beyond = beyond; });
    return order_in(m);
}

TEST_SUITE("vpu") {
    TEST_CASE("prefetch beyond the next NCE layer: a wide conv's weights load before the short convs ahead of it") {
        const Graph g = chain();
        // one ahead: the wide conv's first chunks load after the third short conv's... first tile
        // of the second (the layer before the third), i.e. not before the second's tasks
        const Order plain = order(g, false);
        CHECK(plain.wide_load > plain.second);
        // beyond: with the prefetch after the first short conv's first tile, before the second's
        const Order beyond = order(g, true);
        CHECK(beyond.wide_load < beyond.second);
        CHECK(beyond.second < beyond.third);
    }
}

}  // namespace prefetch_beyond_test
