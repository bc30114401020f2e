// Weights loaded early (docs/schedule.md step 14). The schedule loads a weights chunk when its
// first tile comes, and the next NCE layer's first chunks right after the current layer's first
// tile. A weights-bound layer, whose chunks take longer to load than its tiles take to compute (a
// classifier after a global pool: MobileNet-v2's 2.56 MB of weights for 12 K cycles of NCE work),
// then makes the NCE wait for DMA at the end of the network, although DDR had room long before.
//
// `plan_prefetch` estimates each layer's time (its busiest cluster's NCE work, or, for a layer
// that is not weights-bound, its weights over DDR's rate when that is longer) and puts the loads of
// the other layers' chunks on DDR as late as they are needed (one after another, latest first);
// each chunk of a weights-bound layer then takes the latest free DDR time before it is needed (in
// pieces where the free time is in pieces) and is loaded after the first tile of the latest layer
// that starts before that time. `load_early` issues them there while the chunks loaded early and
// not used yet fit what CMX leaves beside the held results live until their layer and the tiles'
// own buffers (3/8 of CMX); one that does not fit waits for a later layer (at the latest it comes
// with its tile, as before). Their buffers are placed from the top of CMX like held results.
// The other layers' loads are timed at DDR's rate (shared by the DMA queues), or, with
// `early_serial`, at one DMA queue's rate: each queue issues its transfers in order, so a load
// moved early waits behind them and the estimate at DDR's rate puts it too late (ShuffleNet v2's
// classifier: docs/schedule.md step 15). With `early_exposed` a layer is weights-bound also where
// its loads, less the previous NCE layer's work on the cluster (what the prefetch one layer ahead
// hides), take longer than its own work (ShuffleNet v2's last 1x1 conv after the one-cluster stage
// 4: docs/schedule.md step 19). With `early_spread` (> 0) the chunks instead load one
// after another at one DMA queue's rate, earliest due first, from a tenth of the estimated end: the
// latest free time is where the queues carry the copies the layers wait for, while in the early
// layers a queue is mostly idle (docs/schedule.md step 20); a layer is then weights-bound when its
// chunks take more than `early_spread` times its work to load. `early_share` is the DDR time of the chunks moved over
// the estimated end. `schedule` (schedule.cpp, `early_loads`) tries such a schedule where that
// share is at least 5% and keeps it where the simulator runs it faster (schedule_choose.cpp).
#include <set>

#include "lowering/vpu/passes/scheduler.hpp"

namespace nnef::vpu::ir::schedule_impl {

namespace {

// Takes `need` cycles of the free time of DDR, whose busy intervals are `busy` (disjoint, any
// order), latest first, ending at `due` at the latest (as a fluid: in pieces where the free time
// is in pieces). Returns the first cycle taken and adds the pieces to `busy`.
double take_latest(std::vector<std::pair<double, double>>& busy, double due, double need) {
    std::sort(busy.begin(), busy.end(), [](const auto& x, const auto& y) { return x.second > y.second; });
    double at = due;
    std::vector<std::pair<double, double>> mine;
    for (const auto& iv : busy) {
        if (need <= 0.0) break;
        if (iv.second < at) {  // free time (iv.second, at)
            const double use = std::min(need, at - iv.second);
            mine.push_back({at - use, at});
            need -= use;
            at -= use;
        }
        at = std::min(at, iv.first);
    }
    if (need > 0.0) {
        mine.push_back({at - need, at});
        at -= need;
    }
    busy.insert(busy.end(), mine.begin(), mine.end());
    return at;
}

}  // namespace

void Scheduler::plan_prefetch() {
    early_share = 0.0;
    early_tiles.assign(m.layers.size(), {});
    weights_bound.assign(m.layers.size(), false);
    const double rate = load_rate();
    struct Chunk {
        std::int64_t layer = 0;
        double before = 0.0;      // the work of its cluster's tiles of the layer before its first tile
        std::size_t tile = 0;     // its first tile
        std::int64_t bytes = 0;
        bool prefetched = false;  // loaded after the previous NCE layer's first tile anyway
    };
    std::vector<Chunk> moved, others;
    std::vector<double> dur(m.layers.size(), 0.0);
    std::int64_t prev_nce = -1;
    std::vector<double> prev_work(std::size_t(t.clusters), 0.0);  // the previous NCE layer's tiles' work, per cluster
    for (std::int64_t h : nce_order) {
        const Layer& l = m.layers[std::size_t(h)];
        const bool has_prev = prev_nce >= 0;
        prev_nce = h;
        const std::int64_t per_chan =
            l.weights < 0 ? 0 : element_size(m.tensors[std::size_t(l.weights)].dtype) * l.weights_shape[1] * l.weights_shape[2] * l.weights_shape[3];
        const auto& tiles = tiles_of[h];
        std::vector<double> load(std::size_t(t.clusters), 0.0), work(std::size_t(t.clusters), 0.0), bytes(std::size_t(t.clusters), 0.0);
        std::set<std::pair<std::int64_t, std::int64_t>> seen;
        std::vector<Chunk> mine;
        for (std::size_t k = 0; k < tiles.size(); ++k) {
            const Tile& tl = m.tiles[tiles[k]];
            const std::size_t c = std::size_t(tl.cluster);
            if (l.weights >= 0 && seen.insert({tl.cluster, tl.channel_tile}).second) {
                load[c] += double(t.dma_latency_cycles) + double(tl.chans * per_chan) / rate;
                bytes[c] += double(tl.chans * per_chan);
                mine.push_back({h, work[c], tiles[k], tl.chans * per_chan, has_prev && k < std::size_t(t.clusters)});
            }
            work[c] += nce_tile_cycles(tl);
        }
        // weights-bound: on some cluster the chunks take longer to load than twice the tiles'
        // work (with `early_exposed`, or what the previous NCE layer's work leaves of their loads,
        // the part the prefetch one layer ahead does not hide, takes longer than the work), and
        // long against a transfer's latency (not the 16 KB matmuls of a recurrence); and they fit
        // 3/4 of CMX on every cluster (not AlexNet's 31 MB classifier layers)
        bool bound = false, fits = true;
        for (std::size_t c = 0; c < std::size_t(t.clusters); ++c) {
            const double ratio = early_spread > 0.0 ? early_spread : 2.0;
            const bool slow = load[c] > ratio * work[c] || (early_exposed && load[c] - prev_work[c] > work[c]);
            bound = bound || (slow && load[c] >= 8.0 * double(t.dma_latency_cycles));
            fits = fits && bytes[c] <= double(t.cmx_bytes) * 3 / 4;
        }
        prev_work = work;
        weights_bound[std::size_t(h)] = bound && fits;
        // a layer weights-bound by the exposed rule only moves the chunks of each cluster's first
        // tile: its later chunks load while its first tiles compute (ShuffleNet v2's conv56: the
        // CMX they leave takes more of the classifier's chunks early; docs/schedule.md step 19)
        bool twice = false;
        for (std::size_t c = 0; c < std::size_t(t.clusters); ++c) twice = twice || load[c] > 2.0 * work[c];
        if (early_exposed && weights_bound[std::size_t(h)] && !twice) {
            for (const Chunk& ch : mine) (ch.before == 0.0 ? moved : others).push_back(ch);
        } else {
            auto& to = weights_bound[std::size_t(h)] ? moved : others;
            to.insert(to.end(), mine.begin(), mine.end());
        }
        double all = 0.0;
        for (double b : bytes) all += b;
        dur[std::size_t(h)] = *std::max_element(work.begin(), work.end());
        if (!weights_bound[std::size_t(h)]) dur[std::size_t(h)] = std::max(dur[std::size_t(h)], all / double(t.ddr_bytes_per_cycle));
    }
    if (moved.empty()) return;
    // each layer's start (the layers other than NCE ones count nothing: the estimate is early)
    std::vector<double> start(m.layers.size() + 1, 0.0);
    for (std::size_t li = 0; li < m.layers.size(); ++li) start[li + 1] = start[li] + dur[li];
    auto due = [&](const Chunk& c) { return start[std::size_t(c.layer)] + c.before; };
    auto later_first = [&](const Chunk& a, const Chunk& b) { return due(a) > due(b); };
    // DDR time a load takes: its bytes at DDR's rate, and its latency shared by the DMA queues
    auto takes = [&](std::int64_t bytes) {
        return double(bytes) / double(t.ddr_bytes_per_cycle) + double(t.dma_latency_cycles) / double(std::max<std::int64_t>(1, t.dma_engines));
    };
    auto takes_other = [&](std::int64_t bytes) {
        return early_serial ? double(bytes) / double(t.dma_bytes_per_cycle) + double(t.dma_latency_cycles) / double(std::max<std::int64_t>(1, t.dma_engines))
                            : takes(bytes);
    };
    std::stable_sort(others.begin(), others.end(), later_first);
    std::vector<std::pair<double, double>> busy;
    double cursor = 1e300;
    for (const Chunk& c : others) {
        const double end = std::min(cursor, due(c));
        cursor = end - takes_other(c.bytes);
        if (!busy.empty() && busy.back().first <= end) busy.back().first = std::min(busy.back().first, cursor);
        else busy.push_back({cursor, end});
    }
    std::stable_sort(moved.begin(), moved.end(), later_first);
    // `early_spread`: earliest due first, one after another at one DMA queue's rate (never both
    // queues at once: the other carries the copies the layers wait for) from a tenth of the end
    if (early_spread > 0.0) std::reverse(moved.begin(), moved.end());
    double spread_at = start.back() / 10.0;
    for (const Chunk& c : moved) {
        double from = spread_at;
        if (early_spread > 0.0) spread_at += double(c.bytes) / double(t.dma_bytes_per_cycle) + double(t.dma_latency_cycles);
        else from = take_latest(busy, due(c), takes(c.bytes));
        // after the first tile of the latest layer starting at or before `from`
        std::int64_t j = std::int64_t(std::upper_bound(start.begin(), start.begin() + c.layer + 1, from) - start.begin()) - 1;
        j = std::max<std::int64_t>(j, 0);
        while (j > 0 && tiles_of[j].empty()) --j;
        // otherwise the chunk loads with its tile, or after the previous NCE layer's first tile
        std::int64_t natural = c.layer;
        if (c.prefetched) natural = *(std::lower_bound(nce_order.begin(), nce_order.end(), c.layer) - 1);
        // (a chunk of the layer itself: after the layer's first tile rather than with its own)
        if (j < natural || (!c.prefetched && c.tile != tiles_of[c.layer].front())) {
            early_tiles[std::size_t(std::min(j, c.layer))].push_back(c.tile);
            early_share += takes(c.bytes);
        }
    }
    for (auto& e : early_tiles) std::sort(e.begin(), e.end());
    early_share = start.back() > 0.0 ? early_share / start.back() : 0.0;
}

void Scheduler::load_early(std::size_t li) {
    if (!early_budget) return;
    const std::size_t carried = waiting.size();
    for (std::size_t ti : early_tiles[li]) waiting.push_back(ti);
    // chunks loaded early and not used yet, per cluster
    std::vector<std::int64_t> out(std::size_t(t.clusters), 0);
    for (const auto& e : early_bytes)
        if (e.first.first >= std::int64_t(li)) out[std::size_t(e.first.second)] += e.second;
    std::vector<std::size_t> later;
    std::vector<bool> blocked(std::size_t(t.clusters), false);
    std::int64_t late = 0;
    for (std::size_t wi = 0; wi < waiting.size(); ++wi) {
        const std::size_t ti = waiting[wi];
        const Tile& tl = m.tiles[ti];
        const Layer& l = m.layers[std::size_t(tl.layer)];
        if (tl.layer < std::int64_t(li) || weights.count(std::make_tuple(tl.layer, tl.cluster, tl.channel_tile))) continue;
        const std::int64_t bytes = tl.chans * element_size(m.tensors[std::size_t(l.weights)].dtype) * l.weights_shape[1] *
                                   l.weights_shape[2] * l.weights_shape[3];
        // the CMX it may take: what the held results live until its layer and 3/8 of CMX for the
        // tiles' own buffers leave
        std::int64_t held_max = 0;
        for (std::int64_t k = std::int64_t(li); k <= tl.layer && k < std::int64_t(held_live.size()); ++k)
            held_max = std::max(held_max, held_live[std::size_t(k)][std::size_t(tl.cluster)]);
        const std::int64_t cap = std::min(early_budget, t.cmx_bytes - t.cmx_bytes / 8 * 3 - held_max);
        auto& o = out[std::size_t(tl.cluster)];
        // in order per cluster: a chunk that does not fit keeps the later ones waiting too; of the
        // chunks that waited for CMX at an earlier layer, at most one per DMA queue loads after
        // this layer's first tile, so that the layer's own transfers do not queue behind all of
        // them (ShuffleNet v2's global pool behind the classifier's last chunks: step 19)
        const bool held_back = wi < carried && late_per_layer > 0 && late >= late_per_layer;
        if (blocked[std::size_t(tl.cluster)] || o + bytes > cap || held_back) {
            blocked[std::size_t(tl.cluster)] = true;
            later.push_back(ti);
            continue;
        }
        o += bytes;
        late += wi < carried;
        early_bytes[{tl.layer, tl.cluster}] += bytes;
        const std::size_t before = m.cmx.size();
        load_one(tl);
        // long-lived: placed from the top of CMX like the held results, away from the ring's churn
        for (std::size_t b = before; b < m.cmx.size(); ++b) m.cmx[b].held = true;
    }
    waiting = std::move(later);
}

std::size_t Scheduler::first_tile_per_cluster(std::size_t li) const {
    const auto it = tiles_of.find(std::int64_t(li));
    if (it == tiles_of.end()) return 0;
    const Layer& l = m.layers[li];
    if (l.output.shape.size() != 4) return 0;
    std::uint64_t seen = 0;
    for (std::size_t k = 0; k < it->second.size(); ++k) {
        const Tile& tl = m.tiles[it->second[k]];
        if (tl.row0 != 0 || tl.rows != l.output.shape[1]) return 0;
        seen |= std::uint64_t(1) << unsigned(tl.cluster);
        if (seen == clusters_of[li]) return k;
    }
    return 0;
}

}  // namespace nnef::vpu::ir::schedule_impl
