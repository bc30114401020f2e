// schedule (scheduler.hpp): permuted copies held in CMX. A tensor Y written only by copies whose
// sources are boxes of held results and whose destinations are boxes of Y's NHWC form with a
// channel stride above one element (a channel shuffle: assign_executors_shuffle.cpp writes channels j, j + g, ...),
// read only as boxes, is held like an NCE result: in one piece of all channels per (cluster, rows)
// of its sources' pieces (which must all have the same rows on the same clusters), each copy a
// CMX-to-CMX DMA from a source piece into Y's piece on the same cluster, rows for rows. A source
// split over output channels across the clusters (`shared`: every cluster holds all rows of its
// channels) takes no part in choosing the rows: its copies go to every piece of Y, on whichever
// cluster (a DMA between clusters); with only such sources Y takes equal rows per cluster. So does
// a source of one piece of all rows (a layer run whole on one cluster: tile_split_channels.hpp);
// with only such sources (and split ones) Y takes its rows. Without this each copy stored its
// result to DDR and each reader loaded it again.
#include "lowering/vpu/passes/scheduler.hpp"

namespace nnef::vpu::ir::schedule_impl {

bool Scheduler::channel_box(const View& v, View& full) const {
    const std::int64_t e = es(v);
    if (v.shape.size() != 4 || v.shape[0] != 1 || v.strides.size() != 4 || v.strides[3] < e || v.strides[3] % e != 0) return false;
    View dense = v;
    dense.strides[3] = e;
    View f;
    if (!full_view(dense, f)) return false;
    // every element of v within f: the channels' span inside the channel dimension
    const std::int64_t c0 = (v.offset % v.strides[2]) / e;
    if ((v.offset % v.strides[2]) % e != 0 || c0 + (v.shape[3] - 1) * (v.strides[3] / e) >= f.shape[3]) return false;
    const std::int64_t row = v.offset / v.strides[1], col = (v.offset % v.strides[1]) / v.strides[2];
    if (row + v.shape[1] > f.shape[1] || col + v.shape[2] > f.shape[2]) return false;
    full = f;
    return true;
}

void Scheduler::plan_permuted(std::size_t li, std::vector<std::vector<std::int64_t>>& live) {
    const Layer& first = m.layers[li];
    const int y = first.output.tensor;
    if (first.exec != Exec::copy || banned.count(y) || held_span.count(y)) return;
    if (std::find(m.output_tensors.begin(), m.output_tensors.end(), y) != m.output_tensors.end()) return;
    View fy;
    if (!channel_box(first.output, fy) || fy.elements() * es(fy) != m.tensors[std::size_t(y)].bytes) return;
    // the writers: consecutive copies from boxes of held results with the same rows on the same
    // clusters; the first reader after them
    std::vector<std::size_t> writers;
    std::set<std::array<std::int64_t, 3>> rows, whole;
    std::size_t li2 = li;
    for (; li2 < m.layers.size() && m.layers[li2].output.tensor == y; ++li2) {
        const Layer& w = m.layers[li2];
        View f;
        // (a channel stride above one element: a plain concat keeps its own paths, `plan_aliases`)
        if (w.exec != Exec::copy || w.inputs.size() != 1 || !channel_box(w.output, f) || f.strides != fy.strides || w.output.strides[3] == es(fy))
            return;
        const View& in = w.inputs[0];
        const auto hs = held_span.find(in.tensor);
        std::array<std::int64_t, 4> lo{}, hi{};
        if (hs == held_span.end() || hs->second.second < li2 || !box_of(held_view.at(in.tensor), in, lo, hi) || in.shape != w.output.shape) return;
        // rows to the same rows (the pieces are Y's rows): the same height and width, and the
        // destination box at the source box's row and column
        const View& fs = held_view.at(in.tensor);
        if (fs.shape[1] != fy.shape[1] || fs.shape[2] != fy.shape[2] || w.output.offset / fy.strides[1] != lo[1] ||
            (w.output.offset % fy.strides[1]) / fy.strides[2] != lo[2])
            return;
        std::set<std::array<std::int64_t, 3>> r;
        const auto pr = permuted_rows.find(in.tensor);
        if (pr != permuted_rows.end()) {
            r = pr->second;
        } else {
            const std::size_t ps = hs->second.first;
            if (m.layers[ps].exec == Exec::copy) return;
            // a source split over channels across the clusters (`shared`) has all rows on each
            // cluster: its copies go to every piece of Y, on whichever cluster (CMX to CMX)
            if (shared[ps] > 0) {
                writers.push_back(li2);
                continue;
            }
            if (!grouped[ps]) return;
            for (const auto& k : piece_keys(ps)) r.insert({k[0], k[1], k[2]});
        }
        // a source of one piece of all rows (a layer on one cluster, `one_cluster_wins`) has
        // every row of Y there: like a source split over channels, its copies go to every piece
        // of Y, and its rows are Y's only if no other source's are
        if (r.size() == 1 && r.begin()->at(1) == 0 && r.begin()->at(2) == fs.shape[1]) {
            whole = r;
            writers.push_back(li2);
            continue;
        }
        if (rows.empty()) rows = r;
        else if (r != rows) return;
        writers.push_back(li2);
    }
    // every other use of Y is a box of it, after its writers
    std::size_t last = 0;
    std::array<std::int64_t, 2> mg{0, 0};
    for (std::size_t r = 0; r < m.layers.size(); ++r) {
        if (r >= li && r < li2) continue;
        const Layer& c = m.layers[r];
        if (c.output.tensor == y) return;
        for (const View& in : c.inputs) {
            if (in.tensor != y) continue;
            std::array<std::int64_t, 4> lo{}, hi{};
            if (r < li2 || !box_of(fy, in, lo, hi)) return;
            last = r;
            if (c.exec == Exec::nce && c.nce_op != NceOp::eltwise) {
                mg[0] = std::max(mg[0], c.nce.pad[0]);
                mg[1] = std::max(mg[1], (c.nce.kernel[0] - 1) * c.nce.dilation[0] - c.nce.pad[0]);
            }
        }
    }
    if (last == 0) return;
    const std::int64_t H = fy.shape[1], W = fy.shape[2], C = fy.shape[3], e = es(fy), a = t.cmx_alignment;
    // every source split over channels or whole on one cluster: Y in the rows of the latter, if
    // any, else in a piece of equal rows per cluster
    if (rows.empty()) rows = whole;
    if (rows.empty())
        for (std::int64_t k = 0, n = (H + t.clusters - 1) / t.clusters; k * n < H; ++k) rows.insert({k, k * n, std::min(n, H - k * n)});
    std::vector<std::int64_t> bytes(std::size_t(t.clusters), 0);
    for (const auto& k : rows) {
        if (k[0] < 0 || k[0] >= t.clusters) return;
        const std::int64_t n = std::min(H, k[1] + k[2] + mg[1]) - std::max<std::int64_t>(0, k[1] - mg[0]);
        bytes[std::size_t(k[0])] += (n * W * C * e + a - 1) / a * a;
    }
    for (std::size_t k = li; k <= last; ++k)
        for (std::size_t c = 0; c < bytes.size(); ++c)
            if (live[k][c] + bytes[c] > hold_budget) return;
    for (std::size_t k = li; k <= last; ++k)
        for (std::size_t c = 0; c < bytes.size(); ++c) live[k][c] += bytes[c];
    for (std::size_t w : writers) permuted[w] = true;
    permuted_rows[y] = rows;
    margin[li] = mg;
    held_view[y] = fy;
    held_span[y] = {li, last};
}

void Scheduler::permuted_copy(const Tile& tl) {
    if (!copied.insert(tl.layer).second) return;  // a copy split in parts: done whole at its first
    const Layer& l = m.layers[std::size_t(tl.layer)];
    const View& in = l.inputs[0];
    const View& out = l.output;
    const int y = out.tensor;
    const View& fy = held_view.at(y);
    const std::int64_t e = es(out);
    std::array<std::int64_t, 4> lo{}, hi{};
    box_of(held_view.at(in.tensor), in, lo, hi);
    const std::vector<Piece> from_pieces = pieces.at(in.tensor);
    for (const Piece& p : from_pieces) {
        if (p.full) continue;
        for (const auto& k : permuted_rows.at(y)) {
            // a source piece's rows go to the piece of Y of the same rows (split over rows: on the
            // same cluster; a source split over channels: its rows of every piece of Y)
            const std::int64_t r0 = std::max({lo[1], p.row0, k[1]}), r1 = std::min({hi[1], p.row0 + p.rows, k[1] + k[2]});
            const std::int64_t c0 = std::max(lo[3], p.c0), c1 = std::min(hi[3], p.c0 + p.cn);
            if (r0 >= r1 || c0 >= c1) continue;
            const Piece* q = &permuted_piece(y, k);
            Box src = dense_box(p.buffer, {1, r1 - r0, hi[2] - lo[2], c1 - c0}, e);
            src.strides = dense_strides({p.shape[0], p.shape[1], p.shape[2], p.shape[3]}, e);
            src.offset = (r0 - p.origin[1]) * src.strides[1] + (lo[2] - p.origin[2]) * src.strides[2] + (c0 - p.origin[3]) * e;
            Box dst = dense_box(q->buffer, src.shape, e);
            dst.strides = out.strides;
            // the element (r0, lo[2], c0) of the source box lands at the copy's output element
            // (r0 - lo[1], 0, c0 - lo[3]), a byte of Y; the piece starts at Y's row q->origin[1]
            dst.offset = out.offset + (r0 - lo[1]) * out.strides[1] + (c0 - lo[3]) * out.strides[3] - q->origin[1] * fy.strides[1];
            dma(std::move(src), std::move(dst), l.source);
        }
    }
}

const Scheduler::Piece& Scheduler::permuted_piece(int y, const std::array<std::int64_t, 3>& k) {
    auto& list = pieces[y];
    for (const Piece& x : list)
        if (x.cluster == k[0] && x.row0 == k[1] && x.rows == k[2]) return x;
    const View& fy = held_view.at(y);
    const std::size_t first = held_span.at(y).first;
    const std::int64_t e = es(fy), H = fy.shape[1], W = fy.shape[2], C = fy.shape[3];
    const std::int64_t a = std::max<std::int64_t>(0, k[1] - margin[first][0]);
    const std::int64_t z = std::min(H, k[1] + k[2] + margin[first][1]);
    const int b = cmx(k[0], (z - a) * W * C * e, dtype(fy), Role::activation, m.tensors[std::size_t(y)].name);
    hold(b, y);
    list.push_back({k[0], {0, a, 0, 0}, {1, z - a, W, C}, k[1], k[2], k[1], k[1] + k[2], b, 0, C});
    return list.back();
}

}  // namespace nnef::vpu::ir::schedule_impl
