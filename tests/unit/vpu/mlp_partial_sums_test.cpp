// Issue 21 point 4 (docs/schedule.md step 34): the second MLP conv of ConvNeXt's stages 3-4 as
// partial sums over the GELU's channel parts. The first MLP conv's weights outweigh its input, so
// it is tiled over output channels and the GELU after it runs in eight channel parts, two waves
// over the four SHAVE engines (tile_stream_channels.cpp); the second conv read all of the GELU's
// channels, so it waited for the run's end, with the SHAVE engines idle through it. As eight 1x1
// convs, one per part's channels (assign_executors_nce.cpp `mlp_partial_channels`), each computed
// whole on its part's cluster and summed there (a chain of adds per cluster, the two sums added
// last), the first wave's partial sums run beside the second wave's kernels, reading each part
// where it is in CMX.
#include <doctest/doctest.h>

#include <map>
#include <set>
#include <string>
#include <vector>

#include "unit/vpu/compile_support.hpp"
#include "unit/vpu/elementwise_ops.hpp"

namespace mlp_partial_sums_test {

using namespace vpu_compile_support;
using I = std::vector<std::int64_t>;

// ConvNeXt's stage-3 MLP in small: tokens x [1, 196, 384] -> MATMUL (1536 outputs) -> RESHAPE
// [1, 14, 14, 1536] -> the erf polynomial's shape on it (with its EXP) -> RESHAPE [1, 196, 1536]
// -> MATMUL (384 outputs). With `exp` false the chain has no EXP (a plain product), with `tokens`
// the MLP's rows (196 in stage 3; 3136 in stage 1, where the first conv's weights do not outweigh
// its input).
// With `channels` the MLP's width (its hidden layer four times as wide: 768 in stage 4, 7 x 7).
Graph mlp(bool exp, std::int64_t tokens = 196, std::int64_t channels = 384) {
    const std::int64_t side = tokens == 196 ? 14 : tokens == 49 ? 7 : 56, hidden = 4 * channels;
    const I s{1, side, side, hidden};
    Graph g;
    g.name = "mlp";
    const ValueId x = g.add_value(f32({1, tokens, channels}), "x");
    g.main().inputs = {x};
    const ValueId y =
        g.add_op(0, OpKind::MATMUL, {x, constant(g, {1, channels, hidden}, 31, 0.05f), zero(g), zero(g)}, {f32({1, tokens, hidden})}).outputs[0];
    const ValueId r = g.add_op(0, OpKind::RESHAPE, {y, g.add_const_shape(0, s)}, {f32(s)}).outputs[0];
    const ValueId u = mul(g, r, fixed(g, 0.70710678f), s);
    const ValueId t = unary(g, OpKind::RECIPROCAL, add(g, mul(g, unary(g, OpKind::ABS, u, s), fixed(g, 0.3275911f), s), fixed(g, 1.0f), s), s);
    const ValueId e = exp ? unary(g, OpKind::EXP, mul(g, mul(g, u, fixed(g, -1.0f), s), u, s), s) : mul(g, u, u, s);
    const ValueId gelu = mul(g, add(g, mul(g, t, e, s), u, s), r, s);
    const ValueId h = g.add_op(0, OpKind::RESHAPE, {gelu, g.add_const_shape(0, {1, tokens, hidden})}, {f32({1, tokens, hidden})}).outputs[0];
    const ValueId z =
        g.add_op(0, OpKind::MATMUL, {h, constant(g, {1, hidden, channels}, 32, 0.02f), zero(g), zero(g)}, {f32({1, tokens, channels})}).outputs[0];
    output_z(g, z);
    return g;
}

// The layers of the second conv's partial sums (source "...k<j>") in `m`: part j -> layer.
std::map<int, std::size_t> partial_layers(const vpu::ir::Module& m) {
    std::map<int, std::size_t> out;
    for (std::size_t li = 0; li < m.layers.size(); ++li) {
        const std::string& s = m.layers[li].source;
        const auto k = s.rfind(".k");
        if (k != std::string::npos && k + 2 < s.size()) out[std::stoi(s.substr(k + 2))] = li;
    }
    return out;
}


TEST_SUITE("vpu") {
    TEST_CASE("the second MLP conv after a GELU in channel parts is summed over the parts' channels, each part's sum on its cluster") {
        const Graph g = mlp(true);
        vpu::ir::Module m;
        graph_until(m, g, "tile");
        const std::map<int, std::size_t> parts = partial_layers(m);
        REQUIRE(parts.size() == 8);
        const std::int64_t clusters = m.target.clusters;
        std::map<int, std::int64_t> cluster_of;  // result tensor -> the one cluster computing it
        for (const auto& [j, li] : parts) {
            const vpu::ir::Layer& l = m.layers[li];
            CHECK(l.nce_op == vpu::ir::NceOp::conv);
            REQUIRE(l.inputs.size() == 1);
            CHECK(l.inputs[0].shape[3] == 1536 / 8);  // the part's channels
            CHECK(l.weights_shape == I{384, 1, 1, 1536 / 8});
            // whole (all rows) on the part's cluster
            std::set<std::int64_t> on;
            std::int64_t rows = -1;
            for (const auto& tl : m.tiles)
                if (tl.layer == std::int64_t(li)) {
                    on.insert(tl.cluster);
                    CHECK(tl.row0 == 0);
                    rows = tl.rows;
                }
            CHECK(rows == l.output.shape[1]);
            CHECK(on == std::set<std::int64_t>{j % clusters});
            cluster_of[l.output.tensor] = j % clusters;
        }
        // each add sums results of one cluster there, but the last, which adds the clusters' sums
        int adds = 0, across = 0;
        for (std::size_t li = parts.at(0); li < m.layers.size(); ++li) {
            const vpu::ir::Layer& l = m.layers[li];
            if (l.nce_op != vpu::ir::NceOp::eltwise) continue;
            ++adds;
            REQUIRE(l.inputs.size() == 2);
            const std::int64_t a = cluster_of.count(l.inputs[0].tensor) ? cluster_of.at(l.inputs[0].tensor) : -1;
            const std::int64_t b = cluster_of.count(l.inputs[1].tensor) ? cluster_of.at(l.inputs[1].tensor) : -1;
            REQUIRE(a >= 0);
            REQUIRE(b >= 0);
            if (a != b) {
                ++across;
                continue;
            }
            for (const auto& tl : m.tiles)
                if (tl.layer == std::int64_t(li)) CHECK(tl.cluster == a);
            cluster_of[l.output.tensor] = a;
        }
        CHECK(adds == 7);
        CHECK(across == 1);
    }

    TEST_CASE("a partial sum too wide for one tile runs in the fewest chunks of its output channels that fit, of equal size") {
        // ConvNeXt's stage 4 (7 x 7 x 768, hidden 3072): a partial sum reads 7 x 7 x 384 (37632
        // bytes) and takes 882 bytes per output channel (its weights' 384 inputs, 49 results, a
        // table row), so at most 512 of its 768 channels fit a tile's 495616 bytes: two chunks,
        // 384 each (docs/schedule.md step 45; before, 512 and 256)
        const Graph g = mlp(true, 49, 768);
        vpu::ir::Module m;
        graph_until(m, g, "tile");
        const std::map<int, std::size_t> parts = partial_layers(m);
        REQUIRE(parts.size() == 8);
        for (const auto& [j, li] : parts) {
            const int part = j;  // (a structured binding cannot be captured before C++20)
            CAPTURE(part);
            std::vector<std::int64_t> chans;
            std::int64_t next = 0;
            for (const auto& tl : m.tiles)
                if (tl.layer == std::int64_t(li)) {
                    CHECK(tl.ch0 == next);
                    next += tl.chans;
                    chans.push_back(tl.chans);
                }
            CHECK(next == 768);
            CHECK(chans == std::vector<std::int64_t>{384, 384});
        }
    }

    TEST_CASE("the first wave's partial sums run beside the second wave's SHAVE kernels, reading the parts in CMX") {
        const vpu::Target t;
        vpu::TaskList list;
        const auto r = compile_check_and_time(mlp(true), t, list);  // values: the interpreter's
        // program order: the last exp part, and the first conv task of each partial sum
        std::size_t last_exp = 0;
        std::map<int, std::size_t> first;  // part -> task index
        for (std::size_t i = 0; i < list.tasks.size(); ++i) {
            const auto& task = list.tasks[i];
            if (task.op == "exp") last_exp = i;
            const auto k = task.source.rfind(".k");
            if (task.kind == vpu::TaskKind::NCE && k != std::string::npos) first.emplace(std::stoi(task.source.substr(k + 2)), i);
        }
        REQUIRE(first.size() == 8);
        // parts 0-3 (the first wave) before the second wave's last kernel
        for (int j = 0; j < 4; ++j) CHECK(first.at(j) < last_exp);
        // no partial sum loads its input from DDR (the only loads named after them: weights, tables)
        std::map<std::string, const vpu::Buffer*> buffers;
        for (const auto& b : list.buffers) buffers[b.id] = &b;
        int input_loads = 0;
        for (const auto& task : list.tasks)
            if (task.kind == vpu::TaskKind::DMA && task.source.find(".k") != std::string::npos) {
                const vpu::Buffer* from = buffers.at(task.reads[0].buffer);
                if (from->memory == vpu::Memory::DDR && !vpu::is_constant(from->role)) ++input_loads;
            }
        CHECK(input_loads == 0);
        MESSAGE("makespan " << r.makespan << ", bound " << r.bound.value());
    }

    TEST_CASE("a result every reader takes from CMX is not stored to DDR (docs/schedule.md step 39)") {
        // the GELU's product, read only by the partial sums, each from its part in CMX: its parts
        // were stored to DDR all the same (ConvNeXt-tiny's stage 3: 602 KB per block), read by no
        // task. Every DDR tensor a task writes is now read by a task or is a graph output.
        const vpu::Target t;
        vpu::TaskList list;
        compile_check_and_time(mlp(true), t, list);  // values: the interpreter's
        std::set<std::string> read, outputs;
        for (const auto& o : list.outputs) outputs.insert(o.buffer);
        for (const auto& task : list.tasks)
            for (const auto& a : task.reads) read.insert(a.buffer);
        std::map<std::string, const vpu::Buffer*> buffers;
        for (const auto& b : list.buffers) buffers[b.id] = &b;
        int stores = 0;
        for (const auto& task : list.tasks)
            if (task.kind == vpu::TaskKind::DMA && buffers.at(task.writes[0].buffer)->memory == vpu::Memory::DDR) {
                ++stores;
                CAPTURE(task.source);
                CHECK((read.count(task.writes[0].buffer) > 0 || outputs.count(task.writes[0].buffer) > 0));
            }
        CHECK(stores > 0);  // (the output's, at least)
    }

    TEST_CASE("an MLP's second conv stays one conv where the GELU has no EXP or the first conv's weights do not outweigh its input") {
        for (const auto& [exp, tokens] : std::vector<std::pair<bool, std::int64_t>>{{false, 196}, {true, 3136}}) {
            const Graph g = mlp(exp, tokens);
            vpu::ir::Module m;
            graph_until(m, g, "assign-executors");
            CHECK(partial_layers(m).empty());
        }
    }
}

}  // namespace mlp_partial_sums_test
