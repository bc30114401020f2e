// schedule (scheduler.hpp): NCE results written straight into a held permuted tensor. A channel
// shuffle's copies (assign_executors_shuffle.cpp) move each operand's channels into channels j,
// j + g, ... of one NHWC tensor Y, which `plan_permuted` (schedule_permuted.cpp) holds in CMX in
// pieces of rows. In ShuffleNet v2 one operand of every shuffle is the last 1x1 conv of the unit's
// branch, whose result nothing else reads: its copy is a CMX-to-CMX DMA (600 cycles of latency
// plus the bytes) between that conv and the next unit's first conv, on the network's chain. Here
// such an NCE layer writes its tiles' results straight into Y's pieces, through a box with the
// copy's channel stride (an NCE task writes a strided box, specs/vpu-target.md section 6), and the
// copy is gone: the same values in the same bytes (a copy does not convert), one task and one
// buffer fewer. The conditions: the copy is a writer of a held permuted tensor, it reads the
// layer's whole result, nothing else reads that result, and the layer's tiles have the rows (on
// the same clusters) of Y's pieces. The other writers of Y (the identity half's copies) write
// other channels of the same pieces, and a task's box is checked by its span, so they are ordered
// with the layer's tasks: they are emitted before the layer's first tile where their sources are
// ready by then, so they run while the branch computes, not after it.
#include "lowering/vpu/passes/scheduler.hpp"

namespace nnef::vpu::ir::schedule_impl {

void Scheduler::plan_direct() {
    const std::size_t n = m.layers.size();
    direct.assign(n, -1);
    direct_copy.assign(n, false);
    std::vector<int> reads(m.tensors.size(), 0);
    for (const Layer& l : m.layers)
        for (const View& in : l.inputs) ++reads[std::size_t(in.tensor)];
    for (std::size_t w = 0; w < n; ++w) {
        if (!permuted[w]) continue;
        const Layer& c = m.layers[w];
        const View& in = c.inputs[0];
        const auto hs = held_span.find(in.tensor);
        if (hs == held_span.end() || reads[std::size_t(in.tensor)] != 1) continue;
        const std::size_t p = hs->second.first;
        const Layer& pl = m.layers[p];
        if (pl.exec != Exec::nce || !held[p] || shared[p] > 0 || !grouped[p] || inplace[p] >= 0 || direct[p] >= 0 || stream_of[p] >= 0)
            continue;
        if (pl.output.tensor != in.tensor || in.offset != pl.output.offset || in.shape != pl.output.shape || in.strides != pl.output.strides)
            continue;
        const auto& rows = permuted_rows.at(c.output.tensor);
        bool same = true;
        for (std::size_t ti : tiles_of[std::int64_t(p)]) {
            const Tile& tl = m.tiles[ti];
            same = same && rows.count({tl.cluster, tl.row0, tl.rows});
        }
        if (!same) continue;
        direct[p] = std::int64_t(w);
        direct_copy[w] = true;
    }
    // the early copies: Y's other writers, after the first layer that follows their sources'
    // writers (so the transfers that layer's tiles issue, its inputs and the next layer's
    // weights, go ahead of a copy that waits for the last of those writers in an in-order DMA
    // queue; right after the writers: ShuffleNet 327862 cycles, after one layer 324471, after two
    // 341406), where that is not after the direct layer (else they stay where they are)
    std::vector<std::size_t> last_write(m.tensors.size(), 0);
    for (std::size_t li = 0; li < n; ++li) last_write[std::size_t(m.layers[li].output.tensor)] = li;
    std::set<std::size_t> seen;
    for (std::size_t p = 0; p < n; ++p) {
        if (direct[p] < 0) continue;
        const int y = m.layers[std::size_t(direct[p])].output.tensor;
        for (std::size_t k = held_span.at(y).first; k < n && m.layers[k].output.tensor == y; ++k) {
            if (!permuted[k] || direct_copy[k] || seen.count(k)) continue;
            const std::size_t at = last_write[std::size_t(m.layers[k].inputs[0].tensor)] + 2;
            if (at > p) continue;
            seen.insert(k);
            early.push_back({at, k});
        }
    }
    std::sort(early.begin(), early.end());
}

void Scheduler::emit_early(std::size_t li) {
    for (; early_next < early.size() && early[early_next].first <= li; ++early_next) {
        Tile copy;
        copy.layer = std::int64_t(early[early_next].second);
        permuted_copy(copy);
    }
}

void Scheduler::direct_result(const Tile& tl, Box& result) {
    const std::size_t w = std::size_t(direct[std::size_t(tl.layer)]);
    const View& out = m.layers[w].output;
    const int y = out.tensor;
    emit_early(std::size_t(tl.layer));  // (due before this layer: emitted already, unless in a run)
    const View& fy = held_view.at(y);
    const Piece& q = permuted_piece(y, {tl.cluster, tl.row0, tl.rows});
    const std::int64_t e = es(out);
    result = dense_box(q.buffer, {1, tl.rows, out.shape[2], tl.chans}, e);
    result.strides = {q.shape[1] * fy.strides[1], fy.strides[1], fy.strides[2], out.strides[3]};
    result.offset = out.offset + (tl.row0 - q.origin[1]) * fy.strides[1] + tl.ch0 * out.strides[3];
}

}  // namespace nnef::vpu::ir::schedule_impl
