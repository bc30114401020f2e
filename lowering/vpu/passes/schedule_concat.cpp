// schedule (scheduler.hpp): concats written in place. A concat of held results aliases its sources
// (`plan_aliases`: no copy, the sources' pieces are the concat's), but each source keeps a buffer
// of its own, so a reader of several sources' channels (DenseNet's batch norm of a dense block's
// concat) got its box gathered from the pieces by one CMX-to-CMX DMA per source piece, every
// layer again. Here the sources of a family of such concats are written by their producers into
// one buffer per (cluster, rows) of all the family's channels, each source at its channel offset
// (what compilers do for DenseNet), so that a concat's box is read where it lies.
#include "lowering/vpu/passes/scheduler.hpp"

namespace nnef::vpu::ir::schedule_impl {

void Scheduler::plan_concat_in_place(std::vector<std::vector<std::int64_t>>& live) {
    if (hold_budget <= 0) return;
    // the aliased concats, their writers (copies of whole held results), and the sources' offsets
    std::map<int, std::vector<std::size_t>> writers;
    for (std::size_t li = 0; li < m.layers.size(); ++li)
        if (alias[li]) writers[m.layers[li].output.tensor].push_back(li);
    if (writers.empty()) return;
    // union-find over source tensors: the sources of one concat are of one family
    std::map<int, int> parent;
    std::function<int(int)> root = [&](int x) {
        auto it = parent.find(x);
        if (it == parent.end() || it->second == x) return x;
        return it->second = root(it->second);
    };
    std::map<int, std::int64_t> offset;  // source -> its channel offset (-1: not the same in all concats)
    for (const auto& entry : writers) {
        const int y = entry.first;
        int first = -1;
        for (std::size_t w : entry.second) {
            const Layer& l = m.layers[w];
            const int x = l.inputs[0].tensor;
            std::array<std::int64_t, 4> lo{}, hi{};
            box_of(held_view.at(y), l.output, lo, hi);
            const bool whole_rows = lo[0] == 0 && lo[1] == 0 && lo[2] == 0;
            auto it = offset.emplace(x, whole_rows ? lo[3] : -1).first;
            if (it->second != lo[3] || !whole_rows) it->second = -1;
            parent.emplace(x, x);
            if (first < 0) first = x;
            else parent[root(x)] = root(first);
        }
    }
    std::map<int, std::vector<int>> members;  // root -> its sources
    for (const auto& entry : offset) members[root(entry.first)].push_back(entry.first);
    std::map<int, std::size_t> first_copy;  // root -> the first copy layer into one of its concats
    std::map<int, int> concats;             // root -> its concats
    for (const auto& entry : writers) {
        ++concats[root(m.layers[entry.second.front()].inputs[0].tensor)];
        for (std::size_t w : entry.second) {
            auto it = first_copy.emplace(root(m.layers[w].inputs[0].tensor), w).first;
            it->second = std::min(it->second, w);
        }
    }
    const std::int64_t a = t.cmx_alignment;
    for (const auto& family : members) {
        std::vector<int> xs = family.second;
        // a family of one concat is read once: its gathers are no more than the copies of a
        // concat (SqueezeNet's fire modules and samples/composite are slower written in place)
        if (xs.size() < 2 || concats[family.first] < 2) continue;
        // the sources in the order of their producers
        bool ok = true;
        for (int x : xs) ok = ok && offset.at(x) >= 0 && held_span.count(x) && m.layers[held_span.at(x).first].output.tensor == x;
        if (!ok) continue;
        std::sort(xs.begin(), xs.end(), [&](int u, int v) { return held_span.at(u).first < held_span.at(v).first; });
        std::set<std::array<std::int64_t, 3>> keys;
        bool chunks = false;  // the sources are split over channels across the clusters (`shared`)
        std::vector<std::pair<std::int64_t, std::int64_t>> ranges;  // (offset, channels)
        std::size_t to = 0;
        for (std::size_t i = 0; i < xs.size() && ok; ++i) {
            const int x = xs[i];
            const std::size_t px = held_span.at(x).first;
            const Layer& p = m.layers[px];
            ranges.push_back({offset.at(x), p.output.shape[3]});
            to = std::max(to, held_span.at(x).second);
            ok = held[px] && p.output.shape[1] == held_view.at(xs.front()).shape[1] && p.output.shape[2] == held_view.at(xs.front()).shape[2] &&
                 dtype(p.output) == dtype(held_view.at(xs.front()));
            if (i == 0) continue;  // the entry may be copied in (any pieces)
            // NCE results held in pieces of all channels per (cluster, rows), or of all rows per
            // cluster (split over channels), all alike, no halo rows, not overwritten
            if (i == 1) chunks = shared[px] > 0;
            ok = ok && p.exec == Exec::nce && (chunks ? shared[px] > 0 : grouped[px]) && margin[px] == std::array<std::int64_t, 2>{0, 0} &&
                 inplace[px] < 0 && std::find(inplace.begin(), inplace.end(), x) == inplace.end();
            if (!ok) break;
            const std::set<std::array<std::int64_t, 3>> k = family_keys(px);
            if (keys.empty()) keys = k;
            ok = k == keys;
        }
        if (!ok) continue;
        std::sort(ranges.begin(), ranges.end());
        for (std::size_t i = 1; i < ranges.size(); ++i) ok = ok && ranges[i - 1].first + ranges[i - 1].second <= ranges[i].first;
        if (!ok) continue;
        const std::int64_t C = ranges.back().first + ranges.back().second;
        const View& any = held_view.at(xs.front());
        const std::int64_t W = any.shape[2], e = es(any);
        // The bytes per cluster: the family's buffers from their first use to the last reader,
        // instead of each source's pieces over its own span. First with every source written in
        // place (the entry too, when its pieces are the others'), else with the entry copied in
        // at the family's first concat.
        std::vector<std::int64_t> bytes(std::size_t(t.clusters), 0);
        for (const auto& k : keys) bytes[std::size_t(k[0])] += (k[2] * W * C * e + a - 1) / a * a;
        // the bytes of a source's own pieces per cluster (as `can_hold` counts them)
        auto own = [&](int x) {
            const std::size_t px = held_span.at(x).first;
            std::vector<std::int64_t> b(std::size_t(t.clusters), 0);
            if (shared[px] > 0) {
                for (std::size_t ti : tiles_of[std::int64_t(px)])
                    b[std::size_t(m.tiles[ti].cluster)] = (held_view.at(x).elements() * e + a - 1) / a * a;
                return b;
            }
            for (const auto& k : piece_keys(px))
                b[std::size_t(k[0])] += ((grouped[px] ? k[2] * W * held_view.at(x).shape[3] : k[2] * W * k[4]) * e + a - 1) / a * a;
            return b;
        };
        std::vector<std::vector<std::int64_t>> next;
        std::size_t from = 0;
        bool copied = false;
        for (int attempt = 0; attempt < 2; ++attempt) {
            copied = attempt == 1 || family_keys(held_span.at(xs.front()).first) != keys ||
                     (shared[held_span.at(xs.front()).first] > 0) != chunks;
            if (attempt == 1 && first_copy.at(family.first) <= held_span.at(xs.front()).first) break;
            from = copied ? std::min(first_copy.at(family.first), held_span.at(xs[1]).first) : held_span.at(xs.front()).first;
            next.assign(live.begin() + std::ptrdiff_t(from), live.begin() + std::ptrdiff_t(to) + 1);
            for (std::size_t i = 0; i < xs.size(); ++i) {
                const auto span = held_span.at(xs[i]);
                const std::vector<std::int64_t> b = own(xs[i]);
                // a copied entry's pieces are read last by its copy
                for (std::size_t k = std::max(span.first, copied && i == 0 ? first_copy.at(family.first) + 1 : from); k <= span.second; ++k)
                    for (std::size_t c = 0; c < b.size(); ++c) next[k - from][c] -= b[c];
            }
            ok = true;
            for (auto& at : next)
                for (std::size_t c = 0; c < bytes.size(); ++c) {
                    at[c] += bytes[c];
                    ok = ok && at[c] <= hold_budget;
                }
            if (ok || copied) break;
        }
        if (!ok) continue;
        std::copy(next.begin(), next.end(), live.begin() + std::ptrdiff_t(from));
        Family f;
        f.channels = C;
        f.first = xs.front();
        f.width = W;
        f.chunks = chunks;
        if (copied) {
            f.entry = xs.front();
            f.entry_layer = first_copy.at(family.first);
        }
        f.keys = keys;
        // named after the concat of all the family's channels, if there is one
        for (const auto& entry : writers) {
            const View& y = held_view.at(entry.first);
            if (y.shape[3] == C && root(m.layers[entry.second.front()].inputs[0].tensor) == family.first)
                f.name = m.layers[entry.second.front()].source;
        }
        if (f.name.empty()) f.name = m.layers[held_span.at(xs.front()).first].source;
        for (int x : xs) family_of[x] = {families.size(), offset.at(x)};
        families.push_back(f);
    }
}

std::set<std::array<std::int64_t, 3>> Scheduler::family_keys(std::size_t px) {
    std::set<std::array<std::int64_t, 3>> keys;
    for (std::size_t ti : tiles_of[std::int64_t(px)]) {
        const Tile& tl = m.tiles[ti];
        if (shared[px] > 0) keys.insert({tl.cluster, 0, m.layers[px].output.shape[1]});
        else keys.insert({tl.cluster, tl.row0, tl.rows});
    }
    return keys;
}

int Scheduler::family_buffer(Family& f, const std::array<std::int64_t, 3>& key, DataType dt) {
    auto b = f.buffers.find(key);
    if (b == f.buffers.end()) {
        const int buffer = cmx(key[0], key[2] * f.width * f.channels * element_size(dt), dt, Role::activation, f.name);
        hold(buffer, f.first);
        b = f.buffers.emplace(key, buffer).first;
    }
    return b->second;
}

void Scheduler::copy_entry(std::size_t li) {
    const int x = m.layers[li].inputs[0].tensor;
    auto it = family_of.find(x);
    if (it == family_of.end()) return;
    Family& f = families[it->second.first];
    if (f.chunks && x != f.entry && family_exchanged.insert(x).second) {
        // each chunk into the other clusters' buffers: the same box, strides of the family's channels
        std::vector<Piece> made;
        const std::int64_t e = es(held_view.at(x));
        for (const Piece& p : pieces.at(x)) {
            if (p.full) continue;
            for (const auto& key : f.keys) {
                if (key[0] == p.cluster) continue;
                const int b = family_buffer(f, key, dtype(held_view.at(x)));
                Box from = dense_box(p.buffer, {1, p.rows, f.width, p.cn}, e);
                from.strides = dense_strides({1, p.shape[1], p.shape[2], p.shape[3]}, e);
                from.offset = (p.c0 - p.origin[3]) * e;
                Box to = from;
                to.ref = {true, b};
                dma(std::move(from), std::move(to), m.layers[li].source);
                Piece q = p;
                q.cluster = key[0];
                q.buffer = b;
                q.full = true;  // a copy: read there, not a source of copies
                made.push_back(q);
            }
        }
        auto& list = pieces.at(x);
        list.insert(list.end(), made.begin(), made.end());
    }
    if (f.entry < 0 || f.entry_layer != li) return;
    const std::int64_t off = family_of.at(f.entry).second;
    const View& v = held_view.at(f.entry);
    const std::int64_t e = es(v);
    std::vector<Piece> made;
    for (const auto& key : f.keys) {
        const int b = family_buffer(f, key, dtype(v));
        const std::array<std::int64_t, 4> origin{0, key[1], 0, -off};
        copy_in(f.entry, {0, key[1], 0, 0}, {1, key[1] + key[2], v.shape[2], v.shape[3]}, b, origin,
                dense_strides({1, key[2], f.width, f.channels}, e), m.layers[li].source);
        made.push_back({key[0], origin, {1, key[2], f.width, f.channels}, key[1], key[2], key[1], key[1] + key[2], b, 0, v.shape[3]});
    }
    // read there from now on (the entry's own pieces are dead after the copy)
    auto& list = pieces.at(f.entry);
    list.insert(list.begin(), made.begin(), made.end());
}

bool Scheduler::family_piece(const Tile& tl, Piece& out) {
    const Layer& l = m.layers[std::size_t(tl.layer)];
    auto it = family_of.find(l.output.tensor);
    if (it == family_of.end()) return false;
    Family& f = families[it->second.first];
    if (f.entry == l.output.tensor) return false;
    const std::int64_t off = it->second.second;
    const std::array<std::int64_t, 3> key = f.chunks ? std::array<std::int64_t, 3>{tl.cluster, 0, l.output.shape[1]}
                                                     : std::array<std::int64_t, 3>{tl.cluster, tl.row0, tl.rows};
    const int b = family_buffer(f, key, dtype(l.output));
    // the buffer as a box of the source: its channel c at the buffer's channel off + c; the
    // piece holds the channels the tile computes (split over channels) or all
    out = {tl.cluster, {0, key[1], 0, -off}, {1, key[2], f.width, f.channels}, key[1], key[2], key[1], key[1] + key[2], b,
           f.chunks ? tl.ch0 : 0, f.chunks ? tl.chans : l.output.shape[3]};
    return true;
}

bool Scheduler::read_in_place(const View& v, const std::array<std::int64_t, 4>& lo, const std::array<std::int64_t, 4>& hi,
                              std::int64_t cluster, Box& out) const {
    if (families.empty()) return false;
    // the pieces on `cluster` whose written rows hold the box's, by buffer: their channels
    std::map<int, std::vector<std::pair<std::int64_t, std::int64_t>>> channels;
    std::map<int, const Piece*> any;
    for (const Piece& p : pieces.at(v.tensor)) {
        bool in = p.cluster == cluster && p.lo <= lo[1] && hi[1] <= p.hi;
        for (std::size_t d = 0; d < 3; ++d) in = in && p.origin[d] <= lo[d] && hi[d] <= p.origin[d] + p.shape[d];
        if (!in) continue;
        const Piece*& first = any[p.buffer];
        if (first && (first->origin != p.origin || first->shape != p.shape)) continue;
        if (!first) first = &p;
        channels[p.buffer].push_back({p.c0, p.c0 + p.cn});
    }
    for (auto& entry : channels) {
        std::sort(entry.second.begin(), entry.second.end());
        std::int64_t reached = lo[3];
        for (const auto& range : entry.second)
            if (range.first <= reached) reached = std::max(reached, range.second);
        if (reached < hi[3]) continue;
        const Piece& p = *any.at(entry.first);
        const std::int64_t e = es(v);
        out = dense_box(p.buffer, v.shape, e);
        out.strides = dense_strides({p.shape[0], p.shape[1], p.shape[2], p.shape[3]}, e);
        out.offset = 0;
        for (std::size_t d = 0; d < 4; ++d) out.offset += (lo[d] - p.origin[d]) * out.strides[d];
        return true;
    }
    return false;
}

}  // namespace nnef::vpu::ir::schedule_impl
