// Issue 21 point 4 (docs/schedule.md step 32): an fp16 ADD, SUB or MUL of a [1, H, W, C] value
// and a [1, H, W, 1] one (a layer norm's x - mean and (x - mean) * 1 / sqrt(var + eps); [1, N, C]
// tokens and [1, N, 1] likewise) runs on the NCE: the narrow operand broadcast over the channels by
// a 1x1 conv of weights 1, then the eltwise (assign_executors_nce.cpp `channel_broadcast`). On
// SHAVE such a kernel took 0.5 cycles per element on one engine; ConvNeXt-tiny's layer norms so
// took 77.6 K cycles of each SHAVE engine apiece.
#include <doctest/doctest.h>

#include <array>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "unit/vpu/compile_support.hpp"
#include "unit/vpu/elementwise_ops.hpp"

namespace channel_broadcast_test {

using namespace vpu_compile_support;
namespace ir = nnef::vpu::ir;

// A layer norm over the last axis of `s` without its affine part: d = x - sum(x) / C,
// z = d * rsqrt(sum(d d) / C + 1e-6).
Graph layer_norm(const std::vector<std::int64_t>& s, bool swap) {
    Graph g;
    const ValueId x = input_x(g, "layer_norm", s);
    std::vector<std::int64_t> n = s;
    n.back() = 1;
    const float inv_c = 1.0f / float(s.back());
    auto scalar = [&](float v) {  // a constant of the rank of s
        auto k = ConstData::allocate({DType::fp32, std::vector<std::int64_t>(s.size(), 1)});
        k->mutable_items<float>()[0] = v;
        return g.add_const(0, k);
    };
    auto mean = [&](ValueId v) {
        const ValueId sum = g.add_op(0, OpKind::REDUCE_SUM, {v}, {f32(n)}, {{AttrName::axis, std::int64_t(s.size() - 1)}}).outputs[0];
        return mul(g, sum, scalar(inv_c), n);
    };
    const ValueId mu = mean(x);
    // (x - mu, or with `swap` (mu * -1) + x: the narrow operand first)
    const ValueId d = swap ? add(g, mul(g, mu, scalar(-1.0f), n), x, s) : g.add_op(0, OpKind::SUB, {x, mu}, {f32(s)}).outputs[0];
    const ValueId var = add(g, mean(mul(g, d, d, s)), scalar(1e-6f), n);
    const ValueId r = unary(g, OpKind::RSQRT, var, n);
    output_z(g, swap ? mul(g, r, d, s) : mul(g, d, r, s));
    return g;
}


TEST_SUITE("vpu") {
    TEST_CASE("a layer norm's channel-broadcast SUB and MUL run on the NCE, with the interpreter's values") {
        for (const auto& s : {std::vector<std::int64_t>{1, 14, 14, 96}, std::vector<std::int64_t>{1, 50, 64}}) {
            for (bool swap : {false, true}) {
                CAPTURE(s.size());
                CAPTURE(swap);
                const Graph g = layer_norm(s, swap);
                ir::Module m;
                graph_until(m, g, "assign-executors");
                // the SUB (or ADD) and the MUL: each an NCE eltwise of the wide operand and an NCE
                // 1x1 conv of weights 1 from the narrow one's single channel
                int eltwise = 0, broadcasts = 0;
                for (const ir::Layer& l : m.layers) {
                    if (l.exec == ir::Exec::shave) CHECK(l.shave.name != "sub");
                    if (l.exec == ir::Exec::nce && l.nce_op == ir::NceOp::conv) {
                        ++broadcasts;
                        REQUIRE(l.weights_shape.size() == 4);
                        CHECK(l.weights_shape[0] == s.back());
                        CHECK(l.weights_shape[3] == 1);
                        for (float w : l.weights_f32) CHECK(w == 1.0f);
                        CHECK(l.inputs[0].shape.back() == 1);
                        CHECK(l.output.shape.back() == s.back());
                    }
                    if (l.exec == ir::Exec::nce && l.nce_op == ir::NceOp::eltwise && l.output.shape.back() == s.back()) ++eltwise;
                }
                CHECK(broadcasts == 2);
                CHECK(eltwise >= 3);  // x - mu (or -mu + x), d * d, d * r
                // compiled and simulated: the interpreter's values, no SHAVE kernel on C channels
                vpu::TaskList list;
                compile_and_check(g, vpu::Target{}, nullptr, &list);
                for (const auto& task : list.tasks)
                    if (task.kind == vpu::TaskKind::SHAVE) {
                        CAPTURE(task.op);
                        CHECK(task.writes[0].shape.back() == 1);
                    }
            }
        }
    }

    TEST_CASE("a layer norm's channel broadcasts take the row parts of its chain, or of the chain after them where a tile of their rows fits") {
        // (docs/schedule.md step 36) ConvNeXt-tiny's stage 3 (14 x 14 x 384): the layer norm's
        // reductions and eltwise layers run part by part in rows dealt round the clusters; the
        // broadcasts must have the same rows on the same clusters, or every step between them
        // copies rows from one cluster to the other
        const Graph g = layer_norm({1, 14, 14, 384}, false);
        ir::Module m;
        graph_until(m, g, "tile");
        std::vector<std::size_t> broadcasts;
        for (std::size_t li = 0; li < m.layers.size(); ++li)
            if (m.layers[li].exec == ir::Exec::nce && m.layers[li].nce_op == ir::NceOp::conv) broadcasts.push_back(li);
        REQUIRE(broadcasts.size() == 2);
        auto rows_of = [&](std::size_t li) {
            std::vector<std::array<std::int64_t, 3>> out;  // (row0, rows, cluster) of each tile, all channels
            for (const ir::Tile& tl : m.tiles)
                if (std::size_t(tl.layer) == li) {
                    if (m.layers[li].exec == ir::Exec::nce) CHECK(tl.chans == m.layers[li].output.shape[3]);
                    out.push_back({tl.row0, tl.rows, tl.cluster});
                }
            return out;
        };
        for (std::size_t b : broadcasts) {
            CAPTURE(b);
            // its reader, the eltwise after it (x - mean; d * r), and the layer it reads (the mean's
            // scale; the reciprocal square root) have its rows on its clusters
            REQUIRE(b + 1 < m.layers.size());
            CHECK(m.layers[b + 1].nce_op == ir::NceOp::eltwise);
            const auto own = rows_of(b);
            CHECK(own.size() >= 4);  // a part per SHAVE engine
            CHECK(own == rows_of(b + 1));
            CHECK(own == rows_of(b - 1));
        }
        // compiled and simulated: the interpreter's values
        compile_and_check(g, vpu::Target{});

        // a broadcast whose result does not fit a tile (ConvNeXt's stage 1, 56 x 56 x 96: two tiles
        // of its own before docs/schedule.md step 42) takes the rows of the chain after it where a
        // tile of them fits (tile_streams.cpp `lead_conv_rows`)
        const Graph large = layer_norm({1, 56, 56, 96}, false);
        ir::Module ml;
        graph_until(ml, large, "tile");
        std::size_t checked = 0;
        for (std::size_t li = 0; li + 1 < ml.layers.size(); ++li) {
            if (ml.layers[li].exec != ir::Exec::nce || ml.layers[li].nce_op != ir::NceOp::conv) continue;
            CAPTURE(li);
            CHECK(ml.tensors[std::size_t(ml.layers[li].output.tensor)].bytes > vpu::ir::tile_budget(ml.target));
            std::vector<std::array<std::int64_t, 3>> own, reader;
            for (const ir::Tile& tl : ml.tiles) {
                if (std::size_t(tl.layer) == li) own.push_back({tl.row0, tl.rows, tl.cluster});
                if (std::size_t(tl.layer) == li + 1) reader.push_back({tl.row0, tl.rows, tl.cluster});
            }
            CHECK(own.size() >= 4);
            CHECK(own == reader);
            ++checked;
        }
        CHECK(checked == 2);
        compile_and_check(large, vpu::Target{});
    }

    TEST_CASE("a product with a [1, H, W, 1] constant or of equal shapes is not broadcast") {
        const std::vector<std::int64_t> s{1, 8, 8, 32}, n{1, 8, 8, 1};
        Graph g;
        const ValueId x = input_x(g, "no_broadcast", s);
        output_z(g, mul(g, mul(g, x, constant(g, n, 5), s), x, s));
        ir::Module m;
        graph_until(m, g, "assign-executors");
        for (const ir::Layer& l : m.layers) CHECK_FALSE((l.exec == ir::Exec::nce && l.nce_op == ir::NceOp::conv));
        compile_and_check(g, vpu::Target{});
    }
}

}  // namespace channel_broadcast_test
