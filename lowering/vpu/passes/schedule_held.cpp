// schedule (scheduler.hpp): held results. Which NCE results stay in CMX for later readers (the
// budget, the pieces per cluster and rows with their halo margins, concats that alias their
// sources, in-place eltwise), and how a reading tile gets its box from the pieces (read in place,
// halo rows copied in, gathered).
#include "lowering/vpu/passes/scheduler.hpp"

namespace nnef::vpu::ir::schedule_impl {

const Scheduler::Piece& Scheduler::piece_for(const Tile& tl) {
    const Layer& l = m.layers[std::size_t(tl.layer)];
    const bool g = grouped[std::size_t(tl.layer)];
    auto& list = pieces[l.output.tensor];
    if (list.empty() && inplace[std::size_t(tl.layer)] >= 0)
        for (Piece p : pieces.at(inplace[std::size_t(tl.layer)])) {
            if (p.full) continue;
            p.lo = p.row0;
            p.hi = p.row0 + p.rows;
            list.push_back(p);
        }
    for (const Piece& p : list)
        if (!p.full && p.cluster == tl.cluster && p.row0 == tl.row0 && p.rows == tl.rows && (g || p.c0 == tl.ch0)) return p;
    Piece fp;
    if (family_piece(tl, fp)) {
        list.push_back(fp);
        return list.back();
    }
    const std::int64_t H = l.output.shape[1], W = l.output.shape[2];
    if (shared[std::size_t(tl.layer)] > 0) {
        const std::int64_t C = l.output.shape[3];
        int b = -1;
        for (const Piece& p : list)
            if (p.cluster == tl.cluster) b = p.buffer;
        if (b < 0) {
            b = cmx(tl.cluster, H * W * C * es(l.output), dtype(l.output), Role::activation, m.tensors[std::size_t(l.output.tensor)].name);
            hold(b, l.output.tensor);
        }
        list.push_back({tl.cluster, {0, 0, 0, 0}, {1, H, W, C}, 0, H, 0, H, b, tl.ch0, tl.chans});
        return list.back();
    }
    const std::int64_t r0 = std::max<std::int64_t>(0, tl.row0 - margin[std::size_t(tl.layer)][0]);
    const std::int64_t r1 = std::min(H, tl.row0 + tl.rows + margin[std::size_t(tl.layer)][1]);
    const std::int64_t c0 = g ? 0 : tl.ch0, cn = g ? l.output.shape[3] : tl.chans;
    const int b = cmx(tl.cluster, (r1 - r0) * W * cn * es(l.output), dtype(l.output), Role::activation,
                      m.tensors[std::size_t(l.output.tensor)].name);
    hold(b, l.output.tensor);
    list.push_back({tl.cluster, {0, r0, 0, c0}, {1, r1 - r0, W, cn}, tl.row0, tl.rows, tl.row0, tl.row0 + tl.rows, b, c0, cn});
    return list.back();
}

void Scheduler::copy_in(int tensor, const std::array<std::int64_t, 4>& a, const std::array<std::int64_t, 4>& z, int b,
             const std::array<std::int64_t, 4>& base, const std::vector<std::int64_t>& to_strides, const std::string& source) {
    const std::int64_t e = element_size(m.tensors[std::size_t(tensor)].dtype);
    for (const Piece& p : pieces.at(tensor)) {
        if (p.full) continue;
        std::array<std::int64_t, 4> x{}, y{};
        bool meets = true;
        for (std::size_t d = 0; d < 4; ++d) {
            const std::int64_t plo = d == 1 ? p.row0 : d == 3 ? p.c0 : p.origin[d];
            const std::int64_t phi = d == 1 ? p.row0 + p.rows : d == 3 ? p.c0 + p.cn : p.origin[d] + p.shape[d];
            x[d] = std::max(a[d], plo);
            y[d] = std::min(z[d], phi);
            meets = meets && x[d] < y[d];
        }
        if (!meets) continue;
        const std::vector<std::int64_t> shape = {y[0] - x[0], y[1] - x[1], y[2] - x[2], y[3] - x[3]};
        Box from = dense_box(p.buffer, shape, e);
        from.strides = dense_strides({p.shape[0], p.shape[1], p.shape[2], p.shape[3]}, e);
        Box to = dense_box(b, shape, e);
        to.strides = to_strides;
        for (std::size_t d = 0; d < 4; ++d) {
            from.offset += (x[d] - p.origin[d]) * from.strides[d];
            to.offset += (x[d] - base[d]) * to.strides[d];
        }
        dma(std::move(from), std::move(to), source);
    }
}

bool Scheduler::box_of(const View& full, const View& v, std::array<std::int64_t, 4>& lo, std::array<std::int64_t, 4>& hi) {
    if (v.tensor != full.tensor || v.shape.size() != 4 || v.strides != full.strides) return false;
    std::int64_t rel = v.offset - full.offset;
    if (rel < 0) return false;
    for (std::size_t d = 0; d < 4; ++d) {
        lo[d] = rel / full.strides[d];
        rel %= full.strides[d];
        hi[d] = lo[d] + v.shape[d];
        if (hi[d] > full.shape[d]) return false;
    }
    return rel == 0;
}

void Scheduler::exchange(int tensor, std::int64_t cluster, std::int64_t cc, const std::string& source) {
    if (family_of.count(tensor)) return;  // exchanged into the family's buffers at its first concat (or gathered)
    auto& list = pieces.at(tensor);
    std::vector<int> buffer(std::size_t(t.clusters), -1);
    for (const Piece& p : list) {
        if (p.full && p.cluster == cluster) return;
        buffer[std::size_t(p.cluster)] = p.buffer;
    }
    const Piece any = list.front();
    const std::int64_t H = any.shape[1], W = any.shape[2], C = any.shape[3], K = t.clusters;
    const std::int64_t e = element_size(m.tensors[std::size_t(tensor)].dtype);
    if (buffer[std::size_t(cluster)] < 0) return;
    for (std::int64_t j = 0; j < K; ++j) {
        if (j == cluster || buffer[std::size_t(j)] < 0) continue;
        const std::int64_t n = (C / cc - j + K - 1) / K;  // chunks j, j + K, ...
        Box from;
        from.ref = {true, buffer[std::size_t(j)]};
        from.offset = j * cc * e;
        from.shape = {H, W, n, cc};
        from.strides = {W * C * e, C * e, K * cc * e, e};
        Box to = from;
        to.ref = {true, buffer[std::size_t(cluster)]};
        dma(std::move(from), std::move(to), source);
    }
    list.push_back({cluster, {0, 0, 0, 0}, {1, H, W, C}, 0, H, 0, H, buffer[std::size_t(cluster)], 0, C, true});
}

Box Scheduler::gather(const View& v, std::int64_t cluster, const std::string& source) {
    std::array<std::int64_t, 4> lo{}, hi{};
    box_of(held_view.at(v.tensor), v, lo, hi);
    const std::int64_t cc = shared[held_span.at(v.tensor).first];
    if (cc > 0 && (lo[3] / cc != (hi[3] - 1) / cc)) exchange(v.tensor, cluster, cc, source);
    const std::int64_t e = es(v);
    for (Piece& p : pieces.at(v.tensor)) {
        bool in = p.cluster == cluster && p.c0 <= lo[3] && hi[3] <= p.c0 + p.cn;
        for (std::size_t d = 0; d < 3; ++d) in = in && p.origin[d] <= lo[d] && hi[d] <= p.origin[d] + p.shape[d];
        if (!in) continue;
        // the halo rows it lacks (all its channels), from the neighbouring pieces
        const std::vector<std::int64_t> strides = dense_strides({p.shape[0], p.shape[1], p.shape[2], p.shape[3]}, e);
        std::array<std::int64_t, 4> end{};
        for (std::size_t d = 0; d < 4; ++d) end[d] = p.origin[d] + p.shape[d];
        const std::int64_t oc = p.origin[3];
        p.origin[3] = p.c0;  // the halo rows of its own channels
        end[3] = p.c0 + p.cn;
        if (lo[1] < p.lo) {
            std::array<std::int64_t, 4> a = p.origin, z = end;
            a[1] = lo[1];
            z[1] = p.lo;
            copy_in(v.tensor, a, z, p.buffer, p.origin, strides, source);
            p.lo = lo[1];
        }
        if (hi[1] > p.hi) {
            std::array<std::int64_t, 4> a = p.origin, z = end;
            a[1] = p.hi;
            z[1] = hi[1];
            copy_in(v.tensor, a, z, p.buffer, p.origin, strides, source);
            p.hi = hi[1];
        }
        p.origin[3] = oc;
        Box box = dense_box(p.buffer, v.shape, e);
        box.strides = strides;
        box.offset = 0;
        for (std::size_t d = 0; d < 4; ++d) box.offset += (lo[d] - p.origin[d]) * strides[d];
        return box;
    }
    Box in_place;
    if (read_in_place(v, lo, hi, cluster, in_place)) return in_place;
    const auto key = std::make_tuple(v.tensor, cluster, lo, hi);
    auto it = gathered.find(key);
    if (it == gathered.end()) {
        const int b = cmx(cluster, v.elements() * e, dtype(v), Role::activation, m.tensors[std::size_t(v.tensor)].name);
        // counted with the held results for the allocator's spill choice, but placed by the ring
        // like a tile's input: it lives for one layer's tiles, and at the top of CMX the next
        // part's gathered box would take the same bytes, waiting (WAR) for this part's task
        held_tensor[b] = v.tensor;
        copy_in(v.tensor, lo, hi, b, lo, dense_strides(v.shape, e), source);
        it = gathered.emplace(key, b).first;
    }
    return dense_box(it->second, v.shape, e);
}

bool Scheduler::full_view(const View& v, View& full) const {
    const std::int64_t e = es(v);
    if (v.shape.size() != 4 || v.strides.size() != 4 || v.strides[3] != e) return false;
    // (a view read from IR text may have any strides: no division by zero)
    if (v.strides[0] <= 0 || v.strides[1] <= 0 || v.strides[2] <= 0) return false;
    const std::int64_t bytes = m.tensors[std::size_t(v.tensor)].bytes;
    full.tensor = v.tensor;
    full.offset = 0;
    full.strides = v.strides;
    full.shape = {bytes / v.strides[0], v.strides[0] / v.strides[1], v.strides[1] / v.strides[2], v.strides[2] / e};
    return full.shape[0] * v.strides[0] == bytes && full.shape[1] * v.strides[1] == v.strides[0] &&
           full.shape[2] * v.strides[2] == v.strides[1] && full.shape[3] * e == v.strides[2] && full.shape[0] == 1;
}

void Scheduler::plan_aliases() {
    std::map<int, std::vector<std::size_t>> writers;
    for (std::size_t li = 0; li < m.layers.size(); ++li) writers[m.layers[li].output.tensor].push_back(li);
    for (const auto& [y, ws] : writers) {
        View fy;
        bool ok = std::find(m.output_tensors.begin(), m.output_tensors.end(), y) == m.output_tensors.end() &&
                  full_view(m.layers[ws.front()].output, fy);
        for (std::size_t w : ws) {
            const Layer& l = m.layers[w];
            std::array<std::int64_t, 4> lo{}, hi{};
            ok = ok && l.exec == Exec::copy && l.inputs.size() == 1 && held_span.count(l.inputs[0].tensor) &&
                 l.inputs[0].shape == l.output.shape && l.inputs[0].offset == held_view.at(l.inputs[0].tensor).offset &&
                 l.inputs[0].shape == held_view.at(l.inputs[0].tensor).shape && box_of(fy, l.output, lo, hi);
        }
        std::size_t last = 0;
        for (std::size_t r = ws.front() + 1; ok && r < m.layers.size(); ++r)
            for (const View& in : m.layers[r].inputs) {
                if (in.tensor != y) continue;
                std::array<std::int64_t, 4> lo{}, hi{};
                ok = ok && box_of(fy, in, lo, hi);
                last = r;
            }
        // the pieces live until Y's last reader only if every source was held that long
        for (std::size_t w : ws) ok = ok && last > 0 && held_span.at(m.layers[w].inputs[0].tensor).second >= last;
        if (!ok) continue;
        for (std::size_t w : ws) alias[w] = true;
        held_view[y] = fy;
        held_span[y] = {ws.front(), last};
    }
}

bool Scheduler::box_tile(const Tile& tl, Tile& out) const {
    out = tl;
    const Layer& l = m.layers[std::size_t(tl.layer)];
    if (l.exec == Exec::nce) return true;
    const auto& s = l.output.shape;
    if (l.exec != Exec::shave || s.size() != 4) return false;
    out.channel_tile = 0;
    if (tl.split_dim < 0 || tl.split_dim == 1) {
        if (tl.split_dim < 0) {
            out.row0 = 0;
            out.rows = s[1];
        }
        out.ch0 = 0;
        out.chans = s[3];
        return true;
    }
    if (tl.split_dim != 3) return false;
    out.ch0 = tl.row0;
    out.chans = tl.rows;
    out.row0 = 0;
    out.rows = s[1];
    return true;
}

bool Scheduler::can_hold(std::size_t li, std::vector<std::vector<std::int64_t>>& live) {
    const Layer& p = m.layers[li];
    const int x = p.output.tensor;
    if ((p.exec != Exec::nce && p.exec != Exec::shave) || resident[li] || p.output.shape.size() != 4 || p.output.shape[0] != 1) return false;
    // the layer's tiles as rows and channels of its result (a SHAVE kernel's parts too)
    std::vector<Tile> tiles;
    for (std::size_t ti : tiles_of[std::int64_t(li)]) {
        Tile bt;
        if (!box_tile(m.tiles[ti], bt)) return false;
        tiles.push_back(bt);
    }
    if (banned.count(x)) return false;
    if (std::find(m.output_tensors.begin(), m.output_tensors.end(), x) != m.output_tensors.end()) return false;
    const std::int64_t e = es(p.output);
    if (p.output.elements() * e != m.tensors[std::size_t(x)].bytes || !p.output.dense(e)) return false;
    std::size_t last = li;
    std::array<std::int64_t, 2> mg{0, 0};
    // an NCE reader split over channels across the clusters (every tile all rows) of a result
    // split over rows: each piece is given room for all rows, so that the other clusters' rows are
    // copied in (as halo rows) and the piece is read in place, rather than all rows gathered into
    // a new buffer (DenseNet's 14 x 14 and 7 x 7 batch norms before their 1x1 convs)
    bool all_rows = false;
    auto all_rows_reader = [&](std::size_t r) {
        std::set<std::int64_t> on;
        for (std::size_t ti : tiles_of[std::int64_t(r)]) {
            const Tile& tl = m.tiles[ti];
            if (tl.row0 != 0 || tl.rows != m.layers[r].output.shape[1]) return false;
            on.insert(tl.cluster);
        }
        return on.size() >= 2 && m.layers[r].nce.stride[0] == 1;
    };
    for (std::size_t r = li + 1; r < m.layers.size(); ++r)
        for (const View& in : m.layers[r].inputs) {
            if (in.tensor != x) continue;
            std::array<std::int64_t, 4> lo{}, hi{};
            if (!box_of(p.output, in, lo, hi)) return false;
            last = r;
            const Layer& c = m.layers[r];
            if (c.exec == Exec::nce && c.nce_op != NceOp::eltwise) {
                mg[0] = std::max(mg[0], c.nce.pad[0]);
                mg[1] = std::max(mg[1], (c.nce.kernel[0] - 1) * c.nce.dilation[0] - c.nce.pad[0]);
                all_rows = all_rows || all_rows_reader(r);
            }
            // a copy of the whole result into a box of another tensor (a concat) may alias it
            // (see `alias`): that tensor's readers read these pieces too
            View fy;
            if (c.exec == Exec::copy && c.inputs.size() == 1 && in.shape == p.output.shape && full_view(c.output, fy))
                for (std::size_t r2 = r + 1; r2 < m.layers.size(); ++r2)
                    for (const View& in2 : m.layers[r2].inputs) {
                        if (in2.tensor != fy.tensor) continue;
                        last = std::max(last, r2);
                        const Layer& c2 = m.layers[r2];
                        if (c2.exec == Exec::nce && c2.nce_op != NceOp::eltwise) {
                            mg[0] = std::max(mg[0], c2.nce.pad[0]);
                            mg[1] = std::max(mg[1], (c2.nce.kernel[0] - 1) * c2.nce.dilation[0] - c2.nce.pad[0]);
                        }
                    }
        }
    if (last == li) return false;
    // grouped when every (rows) takes one cluster
    std::map<std::pair<std::int64_t, std::int64_t>, std::int64_t> cluster_of;
    bool g = true;
    for (const Tile& tl : tiles) {
        auto it = cluster_of.emplace(std::make_pair(tl.row0, tl.rows), tl.cluster).first;
        g = g && it->second == tl.cluster;
    }
    // shared: split only over channels, in equal chunks, chunk c on cluster c mod clusters
    const std::int64_t H = p.output.shape[1], C = p.output.shape[3];
    std::int64_t cc = g || t.clusters < 2 ? 0 : tiles.front().chans;
    for (const Tile& tl : tiles) {
        if (cc > 0 && (tl.row0 != 0 || tl.rows != H || tl.chans != cc || tl.ch0 != tl.channel_tile * cc || tl.cluster != tl.channel_tile % t.clusters)) cc = 0;
    }
    if (cc > 0 && C % cc != 0) cc = 0;
    shared[li] = cc;
    const std::int64_t a = t.cmx_alignment;
    auto bytes_for = [&](const std::array<std::int64_t, 2>& mr) {
        std::vector<std::int64_t> bytes(std::size_t(t.clusters), 0);
        std::set<std::pair<std::int64_t, std::int64_t>> seen;
        for (const Tile& tl : tiles) {
            if (g && !seen.insert({tl.row0, tl.rows}).second) continue;
            const std::int64_t rows = std::min(H, tl.row0 + tl.rows + mr[1]) - std::max<std::int64_t>(0, tl.row0 - mr[0]);
            bytes[std::size_t(tl.cluster)] += (rows * p.output.shape[2] * (g ? p.output.shape[3] : tl.chans) * e + a - 1) / a * a;
        }
        if (cc > 0) bytes.assign(bytes.size(), (H * p.output.shape[2] * C * e + a - 1) / a * a);
        return bytes;
    };
    std::vector<std::int64_t> bytes = bytes_for(mg);
    // Only where the producer has one piece per cluster (with several, each would take all rows
    // and have the others copied in: more copies than the gather) and is a pointwise layer of a
    // dense block (a 1x1 conv or pool reading a concat, or reading such a layer's result): on
    // other pointwise producers (ResNet-50's and GoogLeNet's 1x1 convs) it cost up to 1.4%, the
    // weights loads waiting longer (not analysed further).
    std::map<std::int64_t, std::int64_t> per_cluster;
    bool one_piece = true;
    for (const Tile& tl : tiles) {
        auto it = per_cluster.emplace(tl.cluster, tl.row0).first;
        one_piece = one_piece && it->second == tl.row0;
    }
    auto is_pointwise = [&](const Layer& l) {
        return l.exec == Exec::nce && l.nce_op != NceOp::eltwise && l.nce_op != NceOp::dwconv && l.inputs.size() == 1 &&
               l.nce.kernel == std::array<std::int64_t, 2>{1, 1} && l.nce.stride == std::array<std::int64_t, 2>{1, 1};
    };
    // the layer writing tensor `x` last before layer `before`, or -1
    auto writer = [&](int x, std::size_t before) {
        for (std::size_t w = before; w-- > 0;)
            if (m.layers[w].output.tensor == x) return std::int64_t(w);
        return std::int64_t(-1);
    };
    bool dense_block = false;
    if (is_pointwise(p)) {
        std::int64_t w = writer(p.inputs[0].tensor, li);
        if (w >= 0 && is_pointwise(m.layers[std::size_t(w)])) w = writer(m.layers[std::size_t(w)].inputs[0].tensor, std::size_t(w));
        dense_block = w >= 0 && m.layers[std::size_t(w)].exec == Exec::copy;
    }
    if (all_rows && one_piece && dense_block && g && cc == 0) {
        // (only where the larger pieces fit the budget beside the held results live)
        const std::vector<std::int64_t> more = bytes_for({H, H});
        bool fits = true;
        for (std::size_t k = li; k <= last; ++k)
            for (std::size_t c = 0; c < more.size(); ++c) fits = fits && live[k][c] + more[c] <= hold_budget;
        if (fits) {
            mg = {H, H};
            bytes = more;
        }
    }
    margin[li] = mg;
    grouped[li] = g;
    // an eltwise whose pieces would be those of a held input it is the last reader of writes
    // its result over that input (each tile over the box it reads): no new bytes
    std::size_t from = li;
    for (const View& in : p.exec == Exec::nce && p.nce_op == NceOp::eltwise ? p.inputs : std::vector<View>{}) {
        auto it = held_span.find(in.tensor);
        if (it == held_span.end() || it->second.second != li || in.shape != p.output.shape || in.offset != held_view.at(in.tensor).offset) continue;
        const std::size_t px = it->second.first;
        if (m.layers[px].exec != Exec::nce) continue;
        if (grouped[px] != g || shared[px] != cc || margin[px] != mg || piece_keys(px) != piece_keys(li)) continue;
        inplace[li] = in.tensor;
        from = li + 1;
        break;
    }
    for (std::size_t k = from; k <= last; ++k)
        for (std::size_t c = 0; c < bytes.size(); ++c)
            if (live[k][c] + bytes[c] > hold_budget) {
                inplace[li] = -1;
                return false;
            }
    for (std::size_t k = from; k <= last; ++k)
        for (std::size_t c = 0; c < bytes.size(); ++c) live[k][c] += bytes[c];
    held_view[x] = p.output;
    held_span[x] = {li, last};
    return true;
}

std::set<std::array<std::int64_t, 5>> Scheduler::piece_keys(std::size_t li) {
    std::set<std::array<std::int64_t, 5>> keys;
    for (std::size_t ti : tiles_of[std::int64_t(li)]) {
        const Tile& tl = m.tiles[ti];
        keys.insert({tl.cluster, tl.row0, tl.rows, grouped[li] ? 0 : tl.ch0, grouped[li] ? 0 : tl.chans});
    }
    return keys;
}

bool Scheduler::can_keep(std::size_t li, const std::vector<int>& readers) {
    if (li + 1 >= m.layers.size()) return false;
    const Layer& p = m.layers[li];
    const Layer& c = m.layers[li + 1];
    const int x = p.output.tensor;
    if (p.exec != Exec::nce || c.exec != Exec::nce || readers[std::size_t(x)] != 1) return false;
    if (std::find(m.output_tensors.begin(), m.output_tensors.end(), x) != m.output_tensors.end()) return false;
    if (p.output.elements() * es(p.output) != m.tensors[std::size_t(x)].bytes || !p.output.dense(es(p.output))) return false;
    // a 1x1 stride-1 pool is pointwise too (the int8 path's requantizations: NCE 1x1 maxpools)
    const bool pool = is_pool(c.nce_op);
    const bool pointwise = c.nce_op == NceOp::eltwise || ((c.nce_op == NceOp::conv || pool) && c.nce.kernel == std::array<std::int64_t, 2>{1, 1} &&
                                                 c.nce.stride == std::array<std::int64_t, 2>{1, 1} &&
                                                 c.nce.pad == std::array<std::int64_t, 4>{0, 0, 0, 0});
    if (!pointwise) return false;
    bool read = false;
    for (const View& in : c.inputs) {
        if (in.tensor != x) continue;
        if (in.offset != p.output.offset || in.shape != p.output.shape || in.strides != p.output.strides) return false;
        read = true;
    }
    if (!read) return false;
    const std::int64_t C = p.output.shape[3];
    std::map<std::tuple<std::int64_t, std::int64_t, std::int64_t>, std::int64_t> rows;  // (cluster, row0, rows) -> channels
    std::vector<std::int64_t> bytes(std::size_t(t.clusters), 0);
    for (std::size_t ti : tiles_of[std::int64_t(li)]) {
        const Tile& tl = m.tiles[ti];
        if ((rows[{tl.cluster, tl.row0, tl.rows}] += tl.chans) == tl.chans) bytes[std::size_t(tl.cluster)] += tl.rows * p.output.shape[2] * C * es(p.output);
    }
    for (const auto& [key, chans] : rows)
        if (chans != C) return false;
    for (std::int64_t b : bytes)
        if (b > t.cmx_bytes / 4) return false;
    for (std::size_t ti : tiles_of[std::int64_t(li + 1)]) {
        const Tile& tl = m.tiles[ti];
        if (!rows.count({tl.cluster, tl.row0, tl.rows})) return false;
        if ((c.nce_op == NceOp::eltwise || pool) && (tl.ch0 != 0 || tl.chans != c.output.shape[3])) return false;
    }
    return true;
}

}  // namespace nnef::vpu::ir::schedule_impl
