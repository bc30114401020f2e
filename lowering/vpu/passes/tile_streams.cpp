// tile (lowering/vpu/ir.hpp): the row parts of chains of SHAVE kernels made equal
// (shave_parts.hpp, `unify_stream_rows`), so that `schedule` can run such a chain part by part
// (schedule_stream.cpp) and keep its intermediates in CMX. `tile_shave` gives a layer that reads the
// previous one's result its rows per part only where they fit the layer's own budget; a kernel with
// more operands (ConvNeXt's erf polynomial: t * (a + t * (...)) reads two 56x56x384 tensors) takes
// fewer rows, and the chain's parts then differ from layer to layer.
#include <algorithm>
#include <array>

#include "lowering/vpu/passes/shave_parts.hpp"
#include "lowering/vpu/simulator.hpp"

namespace nnef::vpu::ir {

namespace tile_streams_impl {

// The most output rows of NCE layer `l` (pointwise, rank 4) whose tile of all output channels fits a
// tile's budget: its input rows, its output rows, the weights and the table.
std::int64_t rows_that_fit(const Module& m, const Layer& l) {
    auto es = [&](int tensor) { return element_size(m.tensors[std::size_t(tensor)].dtype); };
    std::int64_t row = l.output.shape[2] * l.output.shape[3] * es(l.output.tensor);
    for (const View& v : l.inputs) row += v.shape[2] * v.shape[3] * es(v.tensor);
    std::int64_t fixed = l.table_bytes(m.target.nce_channel_alignment);
    if (l.weights >= 0) fixed += l.weights_bytes();
    return std::max<std::int64_t>(0, (tile_budget(m.target) - fixed) / row);
}

// The rows per part of layer `li` in a chain: a SHAVE kernel's when its tiles split only rows
// (rank 4, one image), with no window, in at least one part per cluster; for a pointwise NCE
// layer, the most rows whose operands and result of all channels (and the weights and table)
// fit a tile. Else 0.
std::int64_t row_parts(const Module& m, const std::vector<std::vector<std::size_t>>& tiles_of, std::size_t li) {
    const Layer& l = m.layers[li];
    if (l.output.shape.size() != 4 || l.output.shape[0] != 1) return 0;
    if (l.exec == Exec::nce) {
        if (!pointwise_nce(m, l)) return 0;
        return rows_that_fit(m, l);
    }
    if (l.exec != Exec::shave) return 0;
    const auto& ts = tiles_of[li];
    if (std::int64_t(ts.size()) < m.target.clusters) return 0;
    const std::vector<SplitUse> uses = split_uses(l, 1);
    if (uses.empty() || std::find(uses.begin(), uses.end(), SplitUse::window) != uses.end()) return 0;
    for (std::size_t ti : ts)
        if (m.tiles[ti].split_dim != 1) return 0;
    return m.tiles[ts.front()].rows;
}

// Whether the tiles of layer `li` are `rows` rows each (the last fewer), all channels, part k on
// cluster k mod clusters.
bool has_rows(const Module& m, const std::vector<std::size_t>& ts, std::int64_t rows) {
    std::int64_t k = 0;
    for (std::size_t ti : ts) {
        const Tile& tl = m.tiles[ti];
        const Layer& l = m.layers[std::size_t(tl.layer)];
        if (tl.row0 != k * rows || tl.cluster != k % m.target.clusters) return false;
        if (l.exec == Exec::nce && (tl.ch0 != 0 || tl.chans != l.output.shape[3])) return false;
        ++k;
    }
    return k == (m.layers[std::size_t(m.tiles[ts.front()].layer)].output.shape[1] + rows - 1) / rows;
}

}  // namespace tile_streams_impl

bool lead_conv_rows(const Module& m, std::size_t a, std::size_t b, std::int64_t rows) {
    if (a == 0) return false;
    const Layer& c = m.layers[a - 1];
    if (c.exec != Exec::nce || c.nce_op != NceOp::conv || c.nce.quantized || !one_by_one(c.nce) || c.inputs.size() != 1 ||
        c.output.shape.size() != 4 || c.output.shape[0] != 1 || c.output.shape[1] != m.layers[a].output.shape[1] ||
        c.output.shape[2] != m.layers[a].output.shape[2])
        return false;
    const int x = c.output.tensor;
    if (std::find(m.output_tensors.begin(), m.output_tensors.end(), x) != m.output_tensors.end()) return false;
    for (std::size_t r = 0; r < m.layers.size(); ++r)
        if (r < a || r > b)
            for (const View& v : m.layers[r].inputs)
                if (v.tensor == x) return false;
    for (const Tile& tl : m.tiles)
        if (std::size_t(tl.layer) == a - 1 && (tl.ch0 != 0 || tl.chans != c.output.shape[3])) return false;
    return rows <= tile_streams_impl::rows_that_fit(m, c);
}

bool pointwise_nce(const Module& m, const Layer& l) {
    if (l.exec != Exec::nce || l.output.shape.size() != 4 || l.output.shape[0] != 1) return false;
    for (const View& v : l.inputs)
        if (v.shape.size() != 4 || v.shape[1] != l.output.shape[1] || v.shape[2] != l.output.shape[2]) return false;
    if (l.nce_op == NceOp::eltwise) return true;
    // a channel broadcast (assign-executors' `channel_broadcast`: a layer norm's mean or reciprocal
    // standard deviation, one channel, copied to all by a 1x1 conv of weights 1) whose whole result
    // fits a tile: in the layer norm's chain it takes the chain's row parts, where in tiles of its
    // own (two halves of the rows, dealt as the chain's parts are not) every step between it and
    // the chain copied rows between the clusters (docs/schedule.md step 36: ConvNeXt-tiny's stages
    // 3-4, 10343118 -> 10187316 cycles). Not a larger one: ConvNeXt's stage 1 (602 KB) in the
    // chain's parts of 14 rows left its wavefront regions no CMX placement (10644711).
    if (l.nce_op == NceOp::conv && !l.nce.quantized && l.inputs.size() == 1 && l.inputs[0].shape[3] == 1 && one_by_one(l.nce))
        return l.output.elements() * element_size(m.tensors[std::size_t(l.output.tensor)].dtype) <= tile_budget(m.target);
    // not a dense conv: ConvNeXt's MLP convs in the runs made no run cheaper (40.66 M -> 40.88 M
    // cycles at best), and their tiles of all output channels left the allocator no room at the
    // budgets that the SHAVE chains alone take; nor a quantized pool: the int8 path's 1x1 maxpool
    // requantizations in ShuffleNet's runs, 291487 -> 296125 cycles at PRO-INT. A float 1x1 pool
    // is a per-channel scale and bias in its table, as fuse-post-ops may make one.
    const bool pool = (l.nce_op == NceOp::maxpool || l.nce_op == NceOp::avgpool) && !l.nce.quantized;
    if (l.nce_op != NceOp::dwconv && !pool) return false;
    return one_by_one(l.nce);
}

bool one_by_one(const NceParams& p) {
    return p.kernel == std::array<std::int64_t, 2>{1, 1} && p.stride == std::array<std::int64_t, 2>{1, 1} &&
           p.dilation == std::array<std::int64_t, 2>{1, 1} && p.pad == std::array<std::int64_t, 4>{0, 0, 0, 0};
}

void unify_stream_rows(Module& m) {
    using namespace tile_streams_impl;
    const std::size_t L = m.layers.size();
    std::vector<std::vector<std::size_t>> tiles_of(L);
    for (std::size_t i = 0; i < m.tiles.size(); ++i) tiles_of[std::size_t(m.tiles[i].layer)].push_back(i);
    std::vector<std::int64_t> rows(L, 0);  // the new rows per part (0: unchanged)
    for (std::size_t a = 0; a < L;) {
        const std::int64_t ra = row_parts(m, tiles_of, a);
        if (ra == 0) {
            ++a;
            continue;
        }
        // the chain: the next layers that read a result of the chain (all rows)
        std::size_t b = a;
        std::int64_t least = ra;
        for (; b + 1 < L; ++b) {
            const Layer& n = m.layers[b + 1];
            const std::int64_t rn = row_parts(m, tiles_of, b + 1);
            bool reads = false;
            for (const View& v : n.inputs)
                for (std::size_t q = a; q <= b; ++q) reads = reads || v.tensor == m.layers[q].output.tensor;
            if (rn == 0 || !reads || n.output.shape[1] != m.layers[a].output.shape[1]) break;
            least = std::min(least, rn);
        }
        // the rows (at most `least`) whose parts load the busiest SHAVE engine least: the parts are
        // dealt round the engines, so ceil(parts / engines) of them fall on one (ConvNeXt's stage 3,
        // 14 rows: 5 parts of 3 rows put 6 rows and two overheads on one engine, 7 parts of 2 rows 4)
        const Target& t = m.target;
        const std::int64_t H = m.layers[a].output.shape[1], engines = t.clusters * t.shave_per_cluster;
        std::int64_t row_work = 0;  // cycles of the chain's SHAVE kernels per row
        bool shave = false;
        for (std::size_t q = a; q <= b; ++q)
            if (m.layers[q].exec == Exec::shave) {
                shave = true;
                const View& o = m.layers[q].output;
                row_work += shave_cycles(t, m.layers[q].shave.name, o.elements() / H) - t.shave_overhead_cycles;
            }
        std::int64_t best = least, best_cost = -1;
        std::int64_t kernels = 0;
        for (std::size_t q = a; q <= b; ++q) kernels += m.layers[q].exec == Exec::shave;
        for (std::int64_t r = least; r >= 1; --r) {
            const std::int64_t waves = ((H + r - 1) / r + engines - 1) / engines;
            const std::int64_t cost = waves * (r * row_work + kernels * t.shave_overhead_cycles);
            if (best_cost < 0 || cost < best_cost) {
                best = r;
                best_cost = cost;
            }
        }
        bool differ = false;
        for (std::size_t q = a; q <= b; ++q) differ = differ || !has_rows(m, tiles_of[q], best);
        // (a part per SHAVE engine at least, as `schedule` streams only such chains)
        const std::int64_t parts = (H + best - 1) / best;
        if (b > a && differ && shave && parts >= engines)
            for (std::size_t q = a; q <= b; ++q) rows[q] = best;
        // a layer norm's channel broadcast before the chain (one input channel: its mean or
        // reciprocal standard deviation copied to every channel) takes the chain's rows where a
        // tile of them fits, as one whose whole result fits a tile joins the chain (pointwise_nce).
        // ConvNeXt's stage 1 (602 KB, in two tiles of its own before): with its wavefront 9386247
        // -> 9139952 cycles, and the runs led by their convs (step 42) find a CMX placement; before
        // step 41 cut the tables of alike rows, its wavefront regions found none (step 36)
        if (b > a && shave && parts >= engines && lead_conv_rows(m, a, b, best) && m.layers[a - 1].inputs[0].shape[3] == 1 &&
            !has_rows(m, tiles_of[a - 1], best))
            rows[a - 1] = best;
        a = b + 1;
    }
    std::vector<Tile> tiles;
    std::vector<bool> done(L, false);
    for (const Tile& tl : m.tiles) {
        const std::size_t li = std::size_t(tl.layer);
        if (rows[li] == 0) {
            tiles.push_back(tl);
            continue;
        }
        if (done[li]) continue;
        done[li] = true;
        const std::int64_t H = m.layers[li].output.shape[1];
        std::int64_t k = 0;
        for (std::int64_t r = 0; r < H; r += rows[li]) {
            Tile x = tl;
            x.row0 = r;
            x.rows = std::min(rows[li], H - r);
            x.cluster = k++ % m.target.clusters;
            if (m.layers[li].exec == Exec::nce) {
                x.ch0 = 0;
                x.chans = m.layers[li].output.shape[3];
                x.channel_tile = 0;
            }
            tiles.push_back(x);
        }
    }
    m.tiles = std::move(tiles);
}

}  // namespace nnef::vpu::ir
