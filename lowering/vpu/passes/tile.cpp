// tile (lowering/vpu/ir.hpp): every layer split so that one tile's working set (input rows with
// their halo, the weights of its output channels, the table, the output rows) fits a quarter of a
// cluster's CMX (the rest holds the next tile being loaded and the next layer's weights), and so
// that every cluster gets work.
#include <algorithm>
#include <array>
#include <map>

#include "lowering/vpu/ir.hpp"
#include "lowering/vpu/passes/shave_parts.hpp"
#include "lowering/vpu/passes/tile_cuboid_rows.hpp"
#include "lowering/vpu/simulator.hpp"
#include "lowering/vpu/passes/tile_split_channels.hpp"

namespace nnef::vpu::ir {

namespace tile_impl {

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

struct NceShape {
    std::int64_t H, W, I, OH, OW, C, KH, KW, SH, DH, es;
    std::int64_t oes;  // the output's element size (int32 partial sums of an int8 input: 4)
    // Input rows that `rows` output rows need (with the halo).
    std::int64_t in_rows(std::int64_t rows) const { return std::min(H, (rows - 1) * SH + (KH - 1) * DH + 1); }
    std::int64_t weights(std::int64_t c, bool dense, bool dw) const {
        if (!dense && !dw) return 0;
        return c * KH * KW * (dw ? 1 : I) * es;
    }
};

}  // namespace tile_impl

bool tile(Module& m, Diagnostics& diags) {
    using namespace tile_impl;
    const Target& t = m.target;
    const std::int64_t quarter = tile_budget(t);
    const std::int64_t align = t.nce_channel_alignment;
    m.tiles.clear();
    // the previous layer's row split (rows per tile, row tiles; 0: not split by rows over clusters)
    std::int64_t prev_rows = 0, prev_row_tiles = 0;
    std::int64_t prev_chans = 0;  // the previous layer's channel chunk when it split only channels over the clusters
    bool prev_single = false;     // the previous layer ran whole on one cluster (`one_cluster_wins`)
    // Per tensor: the row split (rows per tile, row tiles) of the NCE layer that wrote it split over
    // rows across the clusters; for a concat (a tensor written by copies of whole results), the
    // split its sources share ({0, 0}: they differ or one is not split so).
    std::map<int, std::array<std::int64_t, 2>> rows_of, concat_rows;
    std::map<int, std::size_t> written_by;  // per tensor: the NCE layer that wrote it
    // Per tensor: whether every layer reading it would run on the same cluster as a producer that
    // runs whole on one cluster: a depthwise conv or pool (which follows it there) or a channel
    // shuffle's copy (channel stride above one element, written from that cluster). Only
    // such a result may run on one cluster: the one-cluster rule's cost counts neither a reader
    // split over the clusters, which would need all of it on every cluster (DenseNet's block-4
    // 1x1 convs before their 3x3 convs: 2693249 -> 2827953 cycles), nor a concat written in place
    // on both clusters (its last 3x3 conv: -> 2860513), nor several readers.
    std::map<int, int> reader_count;
    std::map<int, bool> local_readers;
    for (const Layer& r : m.layers)
        for (const View& v : r.inputs) {
            ++reader_count[v.tensor];
            const std::int64_t es = element_size(m.tensors[std::size_t(r.output.tensor)].dtype);
            const bool permuted = r.exec == Exec::copy && !r.output.strides.empty() && r.output.strides.back() > es;
            const bool pointwise = r.exec == Exec::nce && r.nce_op == NceOp::conv && r.nce.kernel[0] == 1 && r.nce.kernel[1] == 1;
            const bool local = permuted || pointwise || (r.exec == Exec::nce && (r.nce_op == NceOp::dwconv || is_pool(r.nce_op)));
            auto it = local_readers.emplace(v.tensor, true).first;
            it->second = it->second && local;
        }
    for (std::size_t li = 0; li < m.layers.size(); ++li) {
        Layer& l = m.layers[li];
        if (l.exec == Exec::nce) {
            const View& x = l.inputs[0];
            NceShape s{x.shape[1], x.shape[2], x.shape[3], l.output.shape[1], l.output.shape[2], l.output.shape[3],
                       l.nce.kernel[0], l.nce.kernel[1], l.nce.stride[0], l.nce.dilation[0],
                       element_size(m.tensors[std::size_t(x.tensor)].dtype), element_size(m.tensors[std::size_t(l.output.tensor)].dtype)};
            const bool dense = l.nce_op == NceOp::conv, dw = l.nce_op == NceOp::dwconv;
            const std::int64_t n_in = std::int64_t(l.inputs.size());
            auto table = [&](std::int64_t c) { return ceil_div(c, align) * align * 16; };
            auto working = [&](std::int64_t rows, std::int64_t c) {
                const std::int64_t in_c = dense ? s.I : c;  // dw/pool/eltwise read only their channels
                return n_in * s.in_rows(rows) * s.W * in_c * s.es + rows * s.OW * c * s.oes + s.weights(c, dense, dw) + table(c);
            };
            // A layer one of whose output rows does not fit a quarter of CMX may take half (its tiles
            // then run without a next tile loaded beside them).
            const std::int64_t budget = working(1, std::min(s.C, align)) > quarter ? t.cmx_bytes / 2 : quarter;
            // channels: chunks (multiples of the alignment) whose weights take at most half the budget
            // (the table is not counted: schedule loads a layer's whole table once per cluster, not
            // per chunk; a fully connected layer's part of 3872 input channels, split_k's, then takes
            // chunks of 2 x align output channels, 242 KiB per weights DMA, where its table rows
            // left the chunks 512 bytes over and halved them)
            std::int64_t cc = s.C;
            while (cc > align && s.weights(cc, dense, dw) > budget / 2) cc = ceil_div(ceil_div(cc, 2), align) * align;
            std::int64_t rows = s.OH;
            while (rows > 1 && working(rows, cc) > budget) rows = ceil_div(rows, 2);
            while (cc > align && working(rows, cc) > budget) cc = ceil_div(ceil_div(cc, 2), align) * align;
            if (working(rows, cc) > budget) {
                diags.error(Stage::vpu, "does-not-fit",
                            "layer '" + l.source + "' (" + l.op_name() + "): one output row of " + std::to_string(cc) +
                                " channels needs " + std::to_string(working(rows, cc)) + " bytes of CMX, more than the " +
                                std::to_string(budget) + " a tile may take (cmx_bytes / 2)");
                return false;
            }
            std::int64_t row_tiles = ceil_div(s.OH, rows), ch_tiles = ceil_div(s.C, cc);
            // every cluster busy: split rows, else (few rows) channels; two tiles per cluster when the
            // layer is long enough for the next tile's load to hide behind the current one's work
            const double work = double(s.OH) * s.OW * s.C * s.KH * s.KW * (dense ? s.I : 1) / (dense ? t.nce_macs_per_cycle.fp16 : t.nce_dw_macs_per_cycle.fp16);
            const std::int64_t want = work > 16.0 * double(t.nce_overhead_cycles + t.dma_latency_cycles) * double(t.clusters)
                                          ? 2 * t.clusters
                                          : t.clusters;
            if (row_tiles * ch_tiles < want) {
                if (s.OH >= want) {
                    rows = ceil_div(s.OH, std::max<std::int64_t>(want / ch_tiles, 1));
                    row_tiles = ceil_div(s.OH, rows);
                } else if (s.C >= 2 * align) {
                    const std::int64_t need = ceil_div(want, row_tiles);
                    cc = std::max(align, ceil_div(ceil_div(s.C, need), align) * align);
                    ch_tiles = ceil_div(s.C, cc);
                }
            }
            // A pointwise layer reading the previous layer's result takes its row split when it fits,
            // so that the result can stay in CMX for it (schedule: `resident`), unless that would load
            // more weights (a split over channels across clusters loads each chunk once).
            const bool pool = is_pool(l.nce_op);
            const bool pointwise = l.nce_op == NceOp::eltwise || ((dense || pool) && s.KH == 1 && s.KW == 1 && s.SH == 1 && l.nce.stride[1] == 1 &&
                                                         l.nce.pad == std::array<std::int64_t, 4>{0, 0, 0, 0});
            // so does a layer of stride 1 over rows (a 3x3 conv): its input rows then lie in the
            // producer's held rows of its cluster with the halo rows around them (schedule: `held`)
            const bool same_rows = pointwise || s.SH == 1;
            if (same_rows && prev_rows > 0 && (row_tiles >= t.clusters || ch_tiles < 2) && li > 0 && m.layers[li - 1].output.shape.size() == 4 &&
                m.layers[li - 1].output.shape[1] == s.OH &&
                std::any_of(l.inputs.begin(), l.inputs.end(), [&](const View& v) { return v.tensor == m.layers[li - 1].output.tensor; })) {
                std::int64_t c2 = s.C;
                while (c2 > align && working(prev_rows, c2) > budget) c2 = ceil_div(ceil_div(c2, 2), align) * align;
                if (working(prev_rows, c2) <= budget && ceil_div(s.C, c2) <= ch_tiles) {
                    rows = prev_rows;
                    row_tiles = prev_row_tiles;
                    cc = c2;
                    ch_tiles = ceil_div(s.C, cc);
                }
            }
            // A pointwise layer reading a concat whose sources share a row split takes it (DenseNet's
            // batch norms of a dense block's concat: then the 1x1 and 3x3 convs after it take it too,
            // so every source of the block's concats has the same pieces and the concat can be
            // written in place, schedule: `concat_in_place`).
            if (pointwise && x.shape == l.output.shape) {
                auto it = concat_rows.find(x.tensor);
                if (it != concat_rows.end() && it->second[0] > 0 && it->second[1] >= t.clusters) {
                    std::int64_t c2 = s.C;
                    while (c2 > align && working(it->second[0], c2) > budget) c2 = ceil_div(ceil_div(c2, 2), align) * align;
                    if (working(it->second[0], c2) <= budget && ceil_div(s.C, c2) <= ch_tiles) {
                        rows = it->second[0];
                        row_tiles = it->second[1];
                        cc = c2;
                        ch_tiles = ceil_div(s.C, cc);
                    }
                }
            }
            // An eltwise reading the result of a layer split only over channels takes its chunks on
            // the same clusters, so that it reads that result where it was computed.
            if (l.nce_op == NceOp::eltwise && prev_chans > 0 && m.layers[li - 1].output.shape == l.output.shape &&
                std::any_of(l.inputs.begin(), l.inputs.end(), [&](const View& v) { return v.tensor == m.layers[li - 1].output.tensor; }) &&
                working(s.OH, prev_chans) <= budget) {
                rows = s.OH;
                row_tiles = 1;
                cc = prev_chans;
                ch_tiles = ceil_div(s.C, cc);
            }
            // Weights traffic dominating: each cluster its half of the output channels of all rows
            // (tile_split_channels.hpp), and a depthwise conv or pool reading such a result takes
            // its channel chunks, so that it reads them where they were computed.
            const bool reads_prev = li > 0 && std::any_of(l.inputs.begin(), l.inputs.end(), [&](const View& v) {
                return v.tensor == m.layers[li - 1].output.tensor;
            });
            const std::int64_t K = t.clusters;
            bool single = false;
            if (dense && K >= 2 && row_tiles >= K && s.C % K == 0 && working(s.OH, s.C / K) <= budget &&
                split_channels_wins(m, li, {s.weights(s.C, dense, dw) + table(s.C), n_in * s.H * s.W * s.I * s.es, s.OH * s.OW * s.C * s.oes, work})) {
                rows = s.OH;
                row_tiles = 1;
                cc = s.C / K;
                ch_tiles = K;
                // so small that the channel split's copies cost more than the cluster's share of
                // the work it saves: the whole layer on one cluster (tile_split_channels.hpp)
                if (reader_count[l.output.tensor] <= 1 && (reader_count[l.output.tensor] == 0 || local_readers[l.output.tensor]) &&
                    one_cluster_wins(m, {s.weights(s.C, dense, dw) + table(s.C), n_in * s.H * s.W * s.I * s.es, s.OH * s.OW * s.C * s.oes, work}) &&
                    working(s.OH, s.C) <= budget) {
                    cc = s.C;
                    ch_tiles = 1;
                    single = true;
                }
            } else if ((dw || pool) && prev_single && reads_prev && working(s.OH, s.C) <= budget) {
                // a depthwise conv or pool reading such a layer's result: on that cluster too
                rows = s.OH;
                row_tiles = 1;
                cc = s.C;
                ch_tiles = 1;
                single = true;
            } else if ((dw || pool) && prev_chans > 0 && reads_prev && m.layers[li - 1].output.shape[3] == s.C && working(s.OH, prev_chans) <= budget) {
                rows = s.OH;
                row_tiles = 1;
                cc = prev_chans;
                ch_tiles = ceil_div(s.C, cc);
            }
            // tiles of 2 or 3 rows (a row split taken from the layer before) cost what 4 rows do on
            // the DPU's 4x4x16 cuboids: a multiple of 4 rows where it fits and costs the busiest
            // cluster less (tile_cuboid_rows.hpp); only where the padding is a third of the rows or more,
            // and only dense convs split over channels too, and depthwise convs. Not a conv of all
            // output channels per tile: such a conv after a streamed run goes beside its waves
            // (schedule_stream.cpp), where tiles of 4 rows no longer fit the budget (shave_stream_test's
            // MLP block: none of its 14 tiles beside the run); on ConvNeXt those (stage 1's second MLP
            // convs) gave 23845525 -> 23542164, these 23784063. ConvNeXt's 7x7 depthwise convs in 4
            // rows made it slower when its SHAVE kernels bound it (24263142 -> 24674414 cycles: the
            // layer norm after them, in 14-row parts, waited longer); since the erf polynomial runs on
            // the NCE (steps 24-26) they are the most NCE work between two runs (stage 1: 235 K of
            // about 440 K cycles per NCE), twice what they need in tiles of 2 rows: 12693033 ->
            // 12345585 (docs/schedule.md step 31)
            if (((dense && ch_tiles > 1) || dw) && !single && row_tiles >= t.clusters && 3 * ceil_div(rows, 4) * 4 >= 4 * rows) {
                const bool int8 = m.tensors[std::size_t(x.tensor)].dtype == DataType::int8;
                const std::int64_t chunk = std::min(cc, s.C);
                const std::vector<std::int64_t> wshape = {chunk, s.KH, s.KW, s.I};
                const std::int64_t r2 = cuboid_rows(
                    s.OH, rows, 4, t.clusters, ch_tiles, [&](std::int64_t r) { return working(r, cc) <= budget; },
                    [&](std::int64_t r) { return nce_cycles(t, to_string(l.nce_op), int8, {1, r, s.OW, chunk}, wshape, l.nce.kernel); });
                if (r2 != rows) {
                    rows = r2;
                    row_tiles = ceil_div(s.OH, rows);
                }
            }
            prev_single = single;
            const bool by_rows = row_tiles >= t.clusters || ch_tiles < 2;
            prev_rows = by_rows && row_tiles >= t.clusters ? rows : 0;
            prev_row_tiles = row_tiles;
            prev_chans = !by_rows && row_tiles == 1 ? cc : 0;
            if (prev_rows > 0) rows_of[l.output.tensor] = {rows, row_tiles};
            written_by[l.output.tensor] = li;
            for (std::int64_t c = 0; c < ch_tiles; ++c)
                for (std::int64_t r = 0; r < row_tiles; ++r) {
                    Tile tl;
                    tl.layer = std::int64_t(li);
                    tl.row0 = r * rows;
                    tl.rows = std::min(rows, s.OH - tl.row0);
                    tl.ch0 = c * cc;
                    tl.chans = std::min(cc, s.C - tl.ch0);
                    tl.channel_tile = c;
                    tl.cluster = (by_rows ? r : c) % t.clusters;
                    m.tiles.push_back(tl);
                }
            continue;
        }
        // SHAVE kernels and copies: whole, or split along the outermost dimension that may be split
        // (shave_parts.hpp: plain, or a window with halos and per-tile padding) in parts that fit,
        // a long kernel in a part per SHAVE engine; over rows it takes the previous layer's row split
        // when it reads that layer's result, and the next layer may take its own
        const bool reads_prev = li > 0 && l.output.shape.size() == 4 && m.layers[li - 1].output.shape.size() == 4 &&
                                m.layers[li - 1].output.shape[1] == l.output.shape[1] &&
                                std::any_of(l.inputs.begin(), l.inputs.end(), [&](const View& v) { return v.tensor == m.layers[li - 1].output.tensor; });
        if (l.exec == Exec::copy && l.inputs.size() == 1 && l.inputs[0].shape == l.output.shape) {
            // (a source is a whole result copied into all rows of the concat: a copy of a box of one,
            // Swin-T's roll as slices of rows put back in another order, keeps no row split, and
            // the concat's reader taking one made the schedule read past a buffer and race)
            auto src = rows_of.find(l.inputs[0].tensor);
            const auto w = written_by.find(l.inputs[0].tensor);
            const bool whole = w != written_by.end() && m.layers[w->second].output.shape == l.inputs[0].shape &&
                               m.layers[w->second].output.offset == l.inputs[0].offset &&
                               l.output.shape.size() == 4 && l.output.shape[1] == l.inputs[0].shape[1];
            const std::array<std::int64_t, 2> split = src == rows_of.end() || !whole ? std::array<std::int64_t, 2>{0, 0} : src->second;
            auto it = concat_rows.emplace(l.output.tensor, split).first;
            if (it->second != split) it->second = {0, 0};
        }
        std::int64_t rows = reads_prev ? prev_rows : 0;
        prev_chans = 0;
        prev_single = false;
        if (!tile_shave(m, li, quarter, diags, rows)) return false;
        prev_rows = rows;
        prev_row_tiles = rows > 0 ? ceil_div(l.output.shape[1], rows) : 0;
    }
    unify_stream_rows(m);
    stream_channel_parts(m);
    return true;
}

}  // namespace nnef::vpu::ir
