// Issue 21 point 4 (docs/schedule.md step 21): an NCE layer goes beside a streamed SHAVE run
// (schedule_stream.cpp `beside`) only where its CMX does not push the results the run and it read
// out of the held budget (schedule_beside.cpp `beside_reads`). EfficientNet-B1's stem: a 3x3
// stride-2 conv, its SiLU (x * sigmoid(x): a streamed run reading the conv's result twice) and a
// 3x3 depthwise conv reading the SiLU's result. The depthwise conv's 861 KB per cluster beside the
// run left no room for the conv's and the SiLU's results (392 KB per cluster each): both were
// stored to DDR and loaded again (the zoo's EfficientNet-B1 69 K cycles later); now both stay in CMX.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "unit/vpu/compile_support.hpp"
#include "unit/vpu/dma_count.hpp"
#include "unit/vpu/elementwise_ops.hpp"

namespace stream_beside_test {

using namespace vpu_compile_support;
using Attrs = std::vector<std::pair<AttrName, Attr>>;
using I = std::vector<std::int64_t>;

ValueId silu(Graph& g, ValueId x, const I& s) { return mul(g, x, unary(g, OpKind::SIGMOID, x, s), s); }

// x [1, 224, 224, 3] -> conv 3x3 stride 2 (32) -> SiLU -> depthwise 3x3 -> SiLU: y [1, 112, 112, 32]
Graph stem() {
    const I s{1, 112, 112, 32};
    Graph g;
    g.name = "stem";
    const ValueId x = g.add_value(f32({1, 224, 224, 3}), "x");
    g.main().inputs = {x};
    const Attrs down = conv_attrs({0, 1, 0, 1}, {2, 2});
    const Attrs same = conv_attrs({1, 1, 1, 1});
    const ValueId h =
        g.add_op(0, OpKind::CONV2D, {x, constant(g, {32, 3, 3, 3}, 1, 0.3f), constant(g, {32}, 2, 0.1f), zero(g), zero(g)}, {f32(s)}, down).outputs[0];
    const ValueId d =
        g.add_op(0, OpKind::DEPTHWISE_CONV2D, {silu(g, h, s), constant(g, {3, 3, 32, 1}, 3, 0.3f), constant(g, {32}, 4, 0.1f), zero(g), zero(g)}, {f32(s)}, same)
            .outputs[0];
    const ValueId y = silu(g, d, s);
    g.values[y].name = "y";
    g.main().outputs = {y};
    return g;
}


TEST_SUITE("vpu") {
    TEST_CASE("no NCE layer beside a streamed run where it would push the results the run reads out of CMX") {
        const Graph g = stem();
        const vpu::Target t;
        vpu::TaskList list;
        const auto r = compile_check_and_time(g, t, list);  // values: the interpreter's
        std::size_t sigmoids = 0, dw = 0;
        for (const auto& task : list.tasks) {
            sigmoids += task.op == "sigmoid";
            dw += task.op == "dwconv";
        }
        // the SiLUs run as streamed parts (one per SHAVE engine at least), the depthwise conv in tiles
        REQUIRE(sigmoids >= 2 * std::size_t(t.clusters * t.shave_per_cluster));
        REQUIRE(dw >= 2);
        // the conv's result and the first SiLU's stay in CMX for their readers: no store to DDR but
        // the output's (with the depthwise conv beside the first SiLU: 12 stores, 483909 cycles against 454125)
        const vpu_test::DmaCount n = vpu_test::count_dma(list);
        MESSAGE("makespan " << r.makespan << " cycles, " << n.spills << " stores to DDR besides the output's");
        CHECK(n.spills == 0);
    }
}

}  // namespace stream_beside_test
