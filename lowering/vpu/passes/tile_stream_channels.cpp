// tile (lowering/vpu/passes/shave_parts.hpp, `stream_channel_parts`): a chain of element-wise layers
// after a dense conv split over output channels, streamed in channel parts instead of row parts.
//
// ConvNeXt's stages 3-4: the first MLP conv (14 x 14 x 384 -> 1536, 7 x 7 x 768 -> 3072) runs in
// tiles of all rows and 192 or 96 output channels, and the GELU after it (the exporter's erf
// polynomial, 24 element-wise kernels) was streamed in row parts: its first part needed all of the
// conv's chunks, and the second MLP conv all of the GELU's rows, so the SHAVE engines were idle
// during both convs. An element-wise chain is channel-local: in parts of the conv's chunks (grouped
// so that the parts make whole waves of one part per SHAVE engine), part k waits only for chunks of
// part k, and the parts fall evenly on the engines (7 row parts fall 2, 2, 2, 1).
#include <algorithm>
#include <map>
#include <set>

#include "lowering/vpu/passes/shave_parts.hpp"
#include "lowering/vpu/simulator.hpp"

namespace nnef::vpu::ir {

namespace tile_stream_channels_impl {

// The output-channel chunks of dense conv `li` when every tile computes all rows (ch0 -> chans,
// each chunk once), else empty.
std::map<std::int64_t, std::int64_t> conv_chunks(const Module& m, const std::vector<std::size_t>& ts, std::size_t li) {
    const Layer& l = m.layers[li];
    std::map<std::int64_t, std::int64_t> chunks;
    if (l.exec != Exec::nce || l.nce_op != NceOp::conv || l.output.shape.size() != 4 || l.output.shape[0] != 1) return {};
    for (std::size_t ti : ts) {
        const Tile& tl = m.tiles[ti];
        if (tl.row0 != 0 || tl.rows != l.output.shape[1] || !chunks.emplace(tl.ch0, tl.chans).second) return {};
    }
    return chunks;
}

// Whether layer `li` (of output shape `shape`) can run in channel parts: a SHAVE kernel in row parts
// (a chain `unify_stream_rows` made) whose operands split over channels with no window, or a
// pointwise NCE layer (not a dense conv).
bool channel_local(const Module& m, const std::vector<std::size_t>& ts, std::size_t li, const std::vector<std::int64_t>& shape) {
    const Layer& l = m.layers[li];
    if (l.output.shape != shape || ts.empty()) return false;
    if (l.exec == Exec::nce) return pointwise_nce(m, l);
    if (l.exec != Exec::shave) return false;
    for (std::size_t ti : ts)
        if (m.tiles[ti].split_dim != 1) return false;
    const std::vector<SplitUse> uses = split_uses(l, 3);
    return !uses.empty() && std::find(uses.begin(), uses.end(), SplitUse::window) == uses.end();
}

// The channel chunk of NCE layer `l` computed whole on one cluster (all rows, chunks of `align`
// output channels' multiples) whose tile fits `budget`: its inputs, a chunk's weights and table
// and its result, in the fewest such chunks, of equal size; 0 when none fits.
std::int64_t whole_chunk(const Module& m, const Layer& l, std::int64_t budget) {
    const std::int64_t align = m.target.nce_channel_alignment;
    const std::int64_t C = l.output.shape[3], oes = element_size(m.tensors[std::size_t(l.output.tensor)].dtype);
    std::int64_t in = 0;
    for (const View& v : l.inputs) in += v.elements() * element_size(m.tensors[std::size_t(v.tensor)].dtype);
    std::int64_t per_channel = l.output.shape[1] * l.output.shape[2] * oes + 16;
    if (l.weights >= 0) {
        std::int64_t w = element_size(m.tensors[std::size_t(l.weights)].dtype);
        for (std::size_t d = 1; d < l.weights_shape.size(); ++d) w *= l.weights_shape[d];
        per_channel += w;
    }
    if (in + align * per_channel > budget) return 0;
    const std::int64_t cc = std::min(C, (budget - in) / per_channel / align * align);
    if (cc >= C) return C;
    // the fewest chunks that fit, made equal (multiples of `align`): ConvNeXt-tiny's stage-4 partial
    // sums (768 output channels) in 384 + 384 rather than 512 + 256, so one size of weights piece
    // (295 KB, not 393 KB and 197 KB) streams through the CMX the GELU run leaves: the second MLP
    // conv's phase 10-29 K cycles shorter per block, 8984421 -> 8923346 cycles (docs/schedule.md
    // step 45)
    const std::int64_t n = (C + cc - 1) / cc;
    return ((C + n - 1) / n + align - 1) / align * align;
}

// The layers after a chain streamed in channel parts (its last result `x`, part k of `parts` on
// cluster k % clusters) that run whole on the cluster of the parts they read: a 1x1 conv reading
// exactly part k's channels of x (the second MLP conv's partial sums, assign_executors'
// `mlp_partial_channels`), and an eltwise adding two results of such layers of one cluster (the
// sums of that cluster's parts). Layer -> cluster.
std::map<std::size_t, std::int64_t> part_readers(const Module& m, std::size_t b, const std::vector<std::pair<std::int64_t, std::int64_t>>& parts) {
    const int x = m.layers[b].output.tensor;
    const View& o = m.layers[b].output;
    std::map<std::size_t, std::int64_t> out;
    std::map<int, std::int64_t> on;  // result -> its cluster
    for (std::size_t q = b + 1; q < m.layers.size(); ++q) {
        const Layer& l = m.layers[q];
        if (l.exec != Exec::nce || l.output.shape.size() != 4 || l.nce.quantized) break;
        std::int64_t c = -1;
        if (l.nce_op == NceOp::conv && l.inputs.size() == 1 && l.inputs[0].tensor == x && one_by_one(l.nce) && o.strides.size() == 4 &&
            l.inputs[0].offset >= o.offset && (l.inputs[0].offset - o.offset) % o.strides[3] == 0) {
            const std::int64_t c0 = (l.inputs[0].offset - o.offset) / o.strides[3];
            for (std::size_t k = 0; k < parts.size(); ++k)
                if (parts[k].first == c0 && parts[k].second == l.inputs[0].shape[3]) c = std::int64_t(k) % m.target.clusters;
        } else if (l.nce_op == NceOp::eltwise && l.inputs.size() == 2) {
            const auto a = on.find(l.inputs[0].tensor), z = on.find(l.inputs[1].tensor);
            if (a != on.end() && z != on.end() && a->second == z->second) c = a->second;
        }
        if (c < 0) {
            // (the sum of the lanes, or the layer after: the chain of parts' readers ends where no
            // layer reads x or their results)
            bool reads = false;
            for (const View& v : l.inputs) reads = reads || v.tensor == x || on.count(v.tensor);
            if (!reads) break;
            continue;
        }
        out[q] = c;
        on[l.output.tensor] = c;
    }
    return out;
}

}  // namespace tile_stream_channels_impl

std::int64_t stream_part_cost(std::int64_t parts, std::int64_t engines, double share, std::int64_t work, std::int64_t kernels,
                              std::int64_t overhead) {
    const std::int64_t waves = (parts + engines - 1) / engines;
    return waves * (std::int64_t(share * double(work)) + kernels * overhead);
}

void stream_channel_parts(Module& m) {
    using namespace tile_stream_channels_impl;
    const Target& t = m.target;
    const std::int64_t engines = t.clusters * t.shave_per_cluster;
    const std::size_t L = m.layers.size();
    std::vector<std::vector<std::size_t>> tiles_of(L);
    for (std::size_t i = 0; i < m.tiles.size(); ++i) tiles_of[std::size_t(m.tiles[i].layer)].push_back(i);
    // layer -> its channel parts (ch0, chans)
    std::map<std::size_t, std::vector<std::pair<std::int64_t, std::int64_t>>> parts_of;
    // layer after a chain -> (the cluster it runs whole on, its channel chunk): part_readers
    std::map<std::size_t, std::pair<std::int64_t, std::int64_t>> pinned;
    for (std::size_t c = 0; c + 1 < L; ++c) {
        const std::map<std::int64_t, std::int64_t> chunks = conv_chunks(m, tiles_of[c], c);
        if (chunks.size() < 2) continue;
        const std::int64_t C = m.layers[c].output.shape[3];
        // the chain: the next layers, each reading a result of the chain (the conv's first), all of
        // one shape with the conv's channels
        const std::vector<std::int64_t> shape = m.layers[c + 1].output.shape;
        if (shape.size() != 4 || shape[3] != C) continue;
        std::set<int> results{m.layers[c].output.tensor};
        std::size_t b = c;
        for (; b + 1 < L; ++b) {
            const Layer& n = m.layers[b + 1];
            bool reads = false;
            for (const View& v : n.inputs) reads = reads || results.count(v.tensor);
            if (!reads || !channel_local(m, tiles_of[b + 1], b + 1, shape)) break;
            results.insert(n.output.tensor);
        }
        if (b < c + 2) continue;
        // the busiest SHAVE engine's work: the row parts as they are against the conv's chunks
        // grouped into parts (as many chunks per part as make two waves of a part per engine, one
        // chunk at least; a part per engine at least)
        std::int64_t work = 0, kernels = 0;
        for (std::size_t q = c + 1; q <= b; ++q)
            if (m.layers[q].exec == Exec::shave) {
                work += shave_cycles(t, m.layers[q].shave.name, m.layers[q].output.elements()) - t.shave_overhead_cycles;
                ++kernels;
            }
        if (kernels == 0) continue;
        std::int64_t row_parts = 0, most_rows = 0;
        for (std::size_t q = c + 1; q <= b; ++q)
            if (m.layers[q].exec == Exec::shave) {
                row_parts = std::int64_t(tiles_of[q].size());
                for (std::size_t ti : tiles_of[q]) most_rows = std::max(most_rows, m.tiles[ti].rows);
                break;
            }
        const std::int64_t by_rows =
            stream_part_cost(row_parts, engines, double(most_rows) / double(shape[1]), work, kernels, t.shave_overhead_cycles);
        const std::int64_t n = std::int64_t(chunks.size());
        const std::int64_t group = std::max<std::int64_t>(1, n / (2 * engines));  // two waves (ConvNeXt: 8 and 32 chunks)
        std::vector<std::pair<std::int64_t, std::int64_t>> parts;
        std::int64_t widest = 0, k = 0;
        for (const auto& chunk : chunks) {
            if (k++ % group == 0) parts.push_back({chunk.first, 0});
            if (parts.back().first + parts.back().second != chunk.first) break;  // chunks with a gap
            parts.back().second += chunk.second;
            widest = std::max(widest, parts.back().second);
        }
        std::int64_t covered = 0;
        for (const auto& p : parts) covered += p.second;
        if (covered != C || std::int64_t(parts.size()) < engines) continue;
        const std::int64_t by_channels =
            stream_part_cost(std::int64_t(parts.size()), engines, double(widest) / double(C), work, kernels, t.shave_overhead_cycles);
        if (by_channels >= by_rows) continue;
        for (std::size_t q = c + 1; q <= b; ++q) parts_of[q] = parts;
        for (const auto& [q, cluster] : part_readers(m, b, parts))
            if (const std::int64_t cc = whole_chunk(m, m.layers[q], tile_budget(t)); cc > 0) pinned[q] = {cluster, cc};
        // the conv's chunks of part k on part k's cluster, so that the part reads them where they
        // were computed (ConvNeXt's stage 4: 32 chunks dealt round the clusters, 4 to a part; a
        // part reading chunks of both clusters had a copy of all channels gathered for it, and the
        // allocator found no room for it at any stream budget)
        for (std::size_t ti : tiles_of[c]) {
            Tile& tl = m.tiles[ti];
            const std::int64_t j = std::int64_t(std::distance(chunks.begin(), chunks.find(tl.ch0)));
            tl.cluster = j / group % t.clusters;
        }
        c = b;
    }
    if (parts_of.empty()) return;
    std::vector<Tile> tiles;
    std::set<std::size_t> done;
    for (const Tile& tl : m.tiles) {
        const std::size_t li = std::size_t(tl.layer);
        if (const auto pin = pinned.find(li); pin != pinned.end()) {
            if (!done.insert(li).second) continue;
            const Layer& l = m.layers[li];
            for (std::int64_t c0 = 0, k = 0; c0 < l.output.shape[3]; c0 += pin->second.second, ++k) {
                Tile x = tl;
                x.cluster = pin->second.first;
                x.row0 = 0;
                x.rows = l.output.shape[1];
                x.ch0 = c0;
                x.chans = std::min(pin->second.second, l.output.shape[3] - c0);
                x.channel_tile = k;
                x.split_dim = -1;
                tiles.push_back(x);
            }
            continue;
        }
        const auto it = parts_of.find(li);
        if (it == parts_of.end()) {
            tiles.push_back(tl);
            continue;
        }
        if (!done.insert(li).second) continue;
        const Layer& l = m.layers[li];
        std::int64_t k = 0;
        for (const auto& p : it->second) {
            Tile x = tl;
            x.cluster = k % t.clusters;
            if (l.exec == Exec::nce) {
                x.row0 = 0;
                x.rows = l.output.shape[1];
                x.ch0 = p.first;
                x.chans = p.second;
                x.channel_tile = k;
            } else {
                x.split_dim = 3;
                x.row0 = p.first;
                x.rows = p.second;
            }
            ++k;
            tiles.push_back(x);
        }
    }
    m.tiles = std::move(tiles);
}

}  // namespace nnef::vpu::ir
