// tile (lowering/vpu/ir.hpp): the row parts of chains of SHAVE kernels made equal
// (shave_parts.hpp, `unify_stream_rows`), so that `schedule` can run such a chain part by part
// (schedule_stream.cpp) and keep its intermediates in CMX. `tile_shave` gives a layer that reads the
// previous one's result its rows per part only where they fit the layer's own budget; a kernel with
// more operands (ConvNeXt's erf polynomial: t * (a + t * (...)) reads two 56x56x384 tensors) takes
// fewer rows, and the chain's parts then differ from layer to layer.
#include <algorithm>

#include "lowering/vpu/passes/shave_parts.hpp"

namespace nnef::vpu::ir {

namespace {

// The rows per part of layer `li` in a chain: a SHAVE kernel's when its tiles split only rows
// (rank 4, one image), with no window, in at least one part per cluster; for an NCE eltwise (rank
// 4, one image), the most rows whose operands and result of all channels fit a tile. Else 0.
std::int64_t row_parts(const Module& m, const std::vector<std::vector<std::size_t>>& tiles_of, std::size_t li) {
    const Layer& l = m.layers[li];
    if (l.output.shape.size() != 4 || l.output.shape[0] != 1) return 0;
    if (l.exec == Exec::nce && l.nce_op == NceOp::eltwise) {
        const std::int64_t row = l.output.shape[2] * l.output.shape[3] * element_size(m.tensors[std::size_t(l.output.tensor)].dtype);
        const std::int64_t table = (l.output.shape[3] + m.target.nce_channel_alignment - 1) / m.target.nce_channel_alignment *
                                   m.target.nce_channel_alignment * 16;
        return std::max<std::int64_t>(0, (tile_budget(m.target) - table) / (row * std::int64_t(l.inputs.size() + 1)));
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

}  // namespace

void unify_stream_rows(Module& m) {
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
        bool differ = false, shave = false;
        for (std::size_t q = a; q <= b; ++q) {
            differ = differ || !has_rows(m, tiles_of[q], least);
            shave = shave || m.layers[q].exec == Exec::shave;
        }
        // (a part per SHAVE engine at least, as `schedule` streams only such chains)
        const std::int64_t parts = (m.layers[a].output.shape[1] + least - 1) / least;
        if (b > a && differ && shave && parts >= m.target.clusters * m.target.shave_per_cluster)
            for (std::size_t q = a; q <= b; ++q) rows[q] = least;
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
