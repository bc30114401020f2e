// schedule (scheduler.hpp): regions of layers emitted as a wavefront (docs/schedule.md step 35).
// In layer order, a ConvNeXt block's 7x7 dwconv, layer norms and first MLP conv wait for the whole
// result of the block before; that block's GELU run (the exporter's erf polynomial: `reciprocal`
// and `exp` on the SHAVE engines per part) then has the engines while the NCE waits for it, and
// the next run's engines wait while the NCE computes that head: the two engines' times add up. In
// a region a tile goes into the list as soon as the rows it reads are written (and, estimated, when
// its engine would be free), so the head's rows are computed while the run's later waves are, on
// the NCE while it would wait for `exp`, and the next run finds its first waves' inputs ready.
// A run's 1x1 conv too wide to lead it (stage 2's, 295 KB of weights in two chunks of output
// channels) takes its bands of rows one after the other, chunk c on cluster c, and so joins the
// region: its bands go while the run before computes (docs/schedule.md step 46).
#include <algorithm>
#include <map>
#include <set>

#include "lowering/vpu/passes/scheduler.hpp"
#include "lowering/vpu/passes/shave_parts.hpp"
#include "lowering/vpu/simulator.hpp"

namespace nnef::vpu::ir::schedule_impl {

bool conv_bands(const Module& m, std::size_t li) {
    const Layer& c = m.layers[li];
    if (c.exec != Exec::nce || c.nce_op != NceOp::conv || c.output.shape.size() != 4) return false;
    std::map<std::int64_t, std::set<std::pair<std::int64_t, std::int64_t>>> bands;  // chunk -> its (row0, rows)
    std::map<std::int64_t, std::pair<std::int64_t, std::int64_t>> chans;           // chunk -> (ch0, chans)
    for (const Tile& tl : m.tiles) {
        if (std::size_t(tl.layer) != li) continue;
        bands[tl.channel_tile].insert({tl.row0, tl.rows});
        const auto it = chans.emplace(tl.channel_tile, std::make_pair(tl.ch0, tl.chans)).first;
        if (it->second != std::make_pair(tl.ch0, tl.chans)) return false;
    }
    if (bands.size() != std::size_t(m.target.clusters) || bands.begin()->second.size() < 2) return false;
    std::int64_t next = 0, k = 0;
    for (const auto& [chunk, rows] : bands) {
        if (chunk != k++ || rows != bands.begin()->second || chans.at(chunk).first != next) return false;
        next += chans.at(chunk).second;
    }
    return next == c.output.shape[3];
}

std::size_t split_run_rows(Module& m, const std::vector<std::pair<std::size_t, std::size_t>>& runs, bool lead_convs, bool bands) {
    std::vector<bool> split(m.layers.size(), false), banded(m.layers.size(), false);
    std::size_t convs = 0;
    for (const auto& [a, b] : runs) {
        for (std::size_t li = a; li <= b; ++li) split[li] = true;
        if (lead_convs && lead_conv_rows(m, a, b, 1)) {
            split[a - 1] = true;
            ++convs;
        } else if (bands && a > 0 && conv_bands(m, a - 1)) {
            banded[a - 1] = true;
        }
    }
    std::vector<std::int64_t> count(m.layers.size(), 0);  // the layer's parts so far (the cluster of the next)
    std::vector<Tile> tiles;
    for (const Tile& tl : m.tiles) {
        const std::size_t li = std::size_t(tl.layer);
        if (banded[li] && !split[li]) {
            // all the layer's tiles where its first was, band by band, each chunk on its cluster
            // (not a layer of a run in row parts too: those are split below)
            if (count[li]++ > 0) continue;
            std::vector<Tile> own;
            for (const Tile& x : m.tiles)
                if (std::size_t(x.layer) == li) own.push_back(x);
            std::stable_sort(own.begin(), own.end(), [](const Tile& p, const Tile& q) { return p.row0 != q.row0 ? p.row0 < q.row0 : p.ch0 < q.ch0; });
            for (Tile& x : own) {
                x.cluster = x.channel_tile % m.target.clusters;
                tiles.push_back(x);
            }
            continue;
        }
        if (!split[li]) {
            tiles.push_back(tl);
            continue;
        }
        for (std::int64_t r = 0; r < tl.rows; ++r) {
            Tile x = tl;
            x.row0 = tl.row0 + r;
            x.rows = 1;
            x.cluster = count[li]++ % m.target.clusters;
            tiles.push_back(x);
        }
    }
    m.tiles = std::move(tiles);
    return convs;
}

bool Scheduler::row_tiles(std::size_t li) const {
    const Layer& l = m.layers[li];
    if ((l.exec != Exec::nce && l.exec != Exec::shave) || l.output.shape.size() != 4 || l.output.shape[0] != 1) return false;
    // (results written elsewhere or by copies: schedule_direct.cpp, schedule_concat.cpp)
    if (alias[li] || permuted[li] || direct[li] >= 0 || direct_copy[li] || family_of.count(l.output.tensor)) return false;
    const auto it = tiles_of.find(std::int64_t(li));
    if (it == tiles_of.end()) return false;
    std::int64_t next = 0;
    const std::vector<std::size_t>& ts = it->second;
    for (std::size_t k = 0; k < ts.size();) {
        const Tile& band = m.tiles[ts[k]];
        if (band.row0 != next || band.rows <= 0) return false;
        if (l.exec == Exec::shave) {
            if (band.split_dim != 1) return false;
            ++k;
        } else {
            // the band's tiles: consecutive chunks of all its channels
            std::int64_t ch = 0;
            for (; k < ts.size() && m.tiles[ts[k]].row0 == band.row0; ++k) {
                const Tile& tl = m.tiles[ts[k]];
                if (tl.rows != band.rows || tl.ch0 != ch) return false;
                ch += tl.chans;
            }
            if (ch != l.output.shape[3]) return false;
        }
        next += band.rows;
    }
    return next == l.output.shape[1];
}

void Scheduler::plan_regions() {
    const std::size_t L = m.layers.size();
    regions.clear();
    region_at.assign(L, -1);
    for (std::size_t a = 0; a < L;) {
        if (!row_tiles(a)) {
            ++a;
            continue;
        }
        const std::vector<std::int64_t>& plane = m.layers[a].output.shape;
        std::size_t b = a;
        while (b + 1 < L && row_tiles(b + 1) && m.layers[b + 1].output.shape[1] == plane[1] && m.layers[b + 1].output.shape[2] == plane[2]) ++b;
        const std::size_t next = b + 1;
        // whole runs only, each in row parts
        while (a <= b && stream_of[a] >= 0 && streams[std::size_t(stream_of[a])].first < a) ++a;
        while (b >= a && b > 0 && stream_of[b] >= 0 && streams[std::size_t(stream_of[b])].second > b) --b;
        // worth it: a pipelined run (`heavy_run`) with layers after it in the region; every run in
        // row parts
        bool worth = false;
        for (std::size_t q = a; q <= b && a <= b; ++q) {
            const std::int64_t id = stream_of[q];
            if (id < 0) continue;
            if (!stream_rows(id)) {
                worth = false;
                break;
            }
            worth = worth || (streams[std::size_t(id)].second < b && heavy_run(id));
        }
        if (worth) {
            region_at[a] = std::int64_t(regions.size());
            regions.push_back({a, b});
            // (the layers beside a run: in the wavefront they go as their rows are written)
            for (std::size_t q = a; q <= b && wavefront; ++q)
                if (stream_of[q] >= 0) beside[std::size_t(stream_of[q])].clear();
        }
        a = next;
    }
}

bool Scheduler::heavy_run(std::int64_t id) const {
    const auto [ra, rb] = streams[std::size_t(id)];
    const std::size_t parts = run_parts(ra);
    double part_cycles = 0.0;
    for (std::size_t r = ra; r <= rb; ++r)
        if (m.layers[r].exec == Exec::shave)
            part_cycles += double(shave_cycles(t, m.layers[r].shave.name, m.layers[r].output.elements() / std::int64_t(parts)));
    return part_cycles >= 10.0 * double(t.shave_overhead_cycles) && parts > std::size_t(t.clusters * t.shave_per_cluster) &&
           !stream_stages(ra, rb).empty();
}

std::vector<std::pair<std::size_t, std::size_t>> Scheduler::region_runs() const {
    std::vector<std::pair<std::size_t, std::size_t>> out;
    for (std::size_t id = 0; id < streams.size(); ++id)
        if (heavy_run(std::int64_t(id)) && region_layer(std::int64_t(streams[id].first))) out.push_back(streams[id]);
    return out;
}

bool Scheduler::region_layer(std::int64_t li) const {
    for (const auto& [a, b] : regions)
        if (std::int64_t(a) <= li && li <= std::int64_t(b)) return true;
    return false;
}

bool Scheduler::region_ready(const Tile& tl, std::size_t a, std::size_t skip0, std::size_t skip1, double* at) const {
    const Layer& l = m.layers[std::size_t(tl.layer)];
    std::vector<View> views;
    if (l.exec == Exec::nce) {
        const auto [lo, hi] = nce_input_rows(tl);
        for (const View& in : l.inputs) {
            if (in.shape.size() != 4) return false;
            const std::int64_t y0 = std::max<std::int64_t>(0, lo), y1 = std::min(in.shape[1], hi);
            views.push_back(slice(in, 1, y0, std::max<std::int64_t>(0, y1 - y0)));
        }
    } else {
        views = shave_part(m, l, tl).inputs;
    }
    for (const View& v : views) {
        const std::int64_t w = writer[std::size_t(v.tensor)];
        if (w < std::int64_t(a) || (w >= std::int64_t(skip0) && w <= std::int64_t(skip1))) continue;  // complete, or its run's own
        const View& o = m.layers[std::size_t(w)].output;
        const auto it = region_rows.find(v.tensor);
        const std::int64_t written = it == region_rows.end() ? 0 : it->second;
        if (written >= o.shape[1]) continue;
        std::int64_t n = 1;
        for (std::int64_t d : v.shape) n *= d;
        if (n == 0) continue;
        // the last row of `o` the view touches (the same row stride, within o's bytes)
        if (v.shape.size() != 4 || o.shape.size() != 4 || v.strides[1] != o.strides[1] || v.offset < o.offset || o.strides[1] <= 0) return false;
        std::int64_t end = v.offset - o.offset;
        for (std::size_t d = 1; d < 4; ++d) end += (v.shape[d] - 1) * v.strides[d];
        if (end / o.strides[1] + 1 > written) return false;
        if (!at) continue;
        const auto times = region_time.find(v.tensor);
        if (times == region_time.end()) continue;
        const std::int64_t r0 = (v.offset - o.offset) / o.strides[1], r1 = std::min<std::int64_t>(end / o.strides[1] + 1, std::int64_t(times->second.size()));
        for (std::int64_t r = r0; r < r1; ++r) *at = std::max(*at, times->second[std::size_t(r)]);
    }
    return true;
}

double Scheduler::queue_free(const Tile& tl, std::int64_t part) {
    const Layer& l = m.layers[std::size_t(tl.layer)];
    if (l.exec == Exec::nce) return free_at["NCE" + std::to_string(tl.cluster)];
    const std::int64_t i = part >= 0 ? (part / t.clusters) % t.shave_per_cluster : shave_next[std::size_t(tl.cluster)] % t.shave_per_cluster;
    return free_at["SHAVE" + std::to_string(tl.cluster) + "." + std::to_string(i)];
}

bool Scheduler::emit_region(std::size_t id) {
    const std::size_t a = regions[id].first, b = regions[id].second;  // (not a structured binding: lambdas capture them)
    const std::size_t wave = std::size_t(t.clusters * t.shave_per_cluster);
    streamed.clear();
    region_rows.clear();
    region_time.clear();
    std::vector<std::size_t> done(b - a + 1, 0);  // per layer (a run: its first layer): tiles, parts or iterations emitted
    std::vector<bool> started(b - a + 1, false);
    // after a layer's first tile: the next NCE layer's constants (as the layer order prefetches them)
    auto start = [&](std::size_t li) {
        if (started[li - a]) return;
        started[li - a] = true;
        const auto next = std::upper_bound(nce_order.begin(), nce_order.end(), std::int64_t(li));
        if (next != nce_order.end()) load_weights(*next, std::size_t(t.clusters));
        load_early(li);
    };
    // the estimated end of the tasks computing a tile's rows (the one just added), per row (a band
    // of channel chunks: the last of them)
    auto record = [&](const Tile& tl) {
        const Layer& l = m.layers[std::size_t(tl.layer)];
        if (m.tasks.empty() || m.tasks.back().kind == TaskKind::DMA) return;
        std::vector<double>& times = region_time[l.output.tensor];
        times.resize(std::size_t(l.output.shape[1]), 0.0);
        const double end = free_at[m.tasks.back().queue];
        for (std::int64_t r = tl.row0; r < tl.row0 + tl.rows && r < l.output.shape[1]; ++r) times[std::size_t(r)] = std::max(times[std::size_t(r)], end);
    };
    auto mark = [&](std::size_t li, std::size_t n) {
        const auto& ts = tiles_of.at(std::int64_t(li));
        region_rows[m.layers[li].output.tensor] = n < ts.size() ? m.tiles[ts[n]].row0 : m.layers[li].output.shape[1];
    };
    auto tile = [&](std::size_t q, std::size_t j) -> const Tile& { return m.tiles[tiles_of.at(std::int64_t(q))[j]]; };
    auto emit = [&](std::int64_t run, std::size_t q, std::size_t j) {
        stream_part = run >= 0 ? std::int64_t(j) : -1;
        stream_run = run;
        const Tile& tl = tile(q, j);
        if (m.layers[q].exec == Exec::nce) nce_tile(tl);
        else other_tile(tl);
        stream_part = -1;
        stream_run = -1;
        record(tl);
        start(q);
    };
    // Per pipelined run (`heavy_run`: the exporter's erf polynomial): its stages and its order in an
    // iteration (schedule_stream_pipeline.cpp). Other runs (a layer norm's short parts) go part by
    // part as their rows are written (a wave of them would wait for four parts' rows).
    std::map<std::int64_t, std::vector<int>> stages;
    std::map<std::int64_t, std::vector<std::size_t>> orders;
    for (std::size_t q = a; q <= b; ++q) {
        const std::int64_t run = stream_of[q];
        if (run < 0 || stages.count(run)) continue;
        const std::size_t ra = streams[std::size_t(run)].first, rb = streams[std::size_t(run)].second;
        stages[run] = stream_pipeline && heavy_run(run) ? stream_stages(ra, rb) : std::vector<int>{};
        if (!stages[run].empty()) orders[run] = pipelined_order(ra, rb, stages[run]);
    }
    // The pipelined run under way (one at a time: two runs' parts at once would take the CMX the
    // budget gives one). Each sweep emits its next iteration in two halves: up to its last SHAVE
    // kernel (`exp`), then the other layers' tiles whose rows are written, then the NCE layers after
    // that kernel. On the in-order NCE queue the other tiles run while `exp` does, where the NCE
    // would wait for it, not ahead of the next iteration's NCE work that the SHAVE engines wait for.
    // The rows it writes are read from the next sweep on (after that iteration's first half).
    std::int64_t active = -1;
    std::vector<std::pair<std::size_t, std::size_t>> deferred;  // (layer, parts written)
    std::vector<std::pair<std::size_t, std::size_t>> second;    // the active run's second half
    bool force = false;  // a sweep after one without progress: tiles whose inputs come after their engine is free too
    // The items of the next iteration of pipelined run `run` if their inputs are written (and, but
    // with `force`, estimated ready when the first one's engine is free), else none.
    auto iteration = [&](std::int64_t run) {
        std::vector<std::pair<std::size_t, std::size_t>> items;
        const auto [ra, rb] = streams[std::size_t(run)];
        const std::vector<int>& stage = stages.at(run);
        const std::size_t parts = run_parts(ra), waves = (parts + wave - 1) / wave;
        const std::size_t it = done[ra - a];
        for (std::size_t q : orders.at(run)) {
            const std::size_t st = std::size_t(stage[q - ra]);
            if (it < st || it - st >= waves) continue;
            for (std::size_t j = (it - st) * wave; j < std::min(parts, (it - st + 1) * wave); ++j) items.push_back({q, j});
        }
        double at = 0.0;
        for (const auto& [q, j] : items)
            if (!region_ready(tile(q, j), a, ra, rb, &at)) return std::vector<std::pair<std::size_t, std::size_t>>{};
        if (!items.empty() && !force && at > queue_free(tile(items.front().first, items.front().second), std::int64_t(items.front().second)))
            return std::vector<std::pair<std::size_t, std::size_t>>{};
        return items;
    };
    // after an iteration of `run`: the rows its layers wrote, read from the next sweep on
    auto iterated = [&](std::int64_t run) {
        const auto [ra, rb] = streams[std::size_t(run)];
        const std::vector<int>& stage = stages.at(run);
        const std::size_t parts = run_parts(ra), waves = (parts + wave - 1) / wave;
        const std::size_t it = ++done[ra - a];
        for (std::size_t q = ra; q <= rb; ++q) {
            const std::size_t st = std::size_t(stage[q - ra]);
            deferred.push_back({q, std::min(parts, (it >= st ? it - st : 0) * wave)});
        }
        if (it > waves) active = -1;
    };
    for (;;) {
        bool left = false, progress = false;
        for (const auto& [q, n] : deferred) mark(q, n);
        deferred.clear();
        // the active run's next iteration, its first half
        const std::int64_t now = active;
        if (now >= 0) {
            std::vector<std::pair<std::size_t, std::size_t>> items = iteration(now);
            std::size_t cut = items.size();
            for (std::size_t i = 0; i < items.size(); ++i)
                if (m.layers[items[i].first].exec == Exec::shave) cut = i + 1;
            for (std::size_t i = 0; i < cut; ++i) emit(now, items[i].first, items[i].second);
            second.assign(items.begin() + std::ptrdiff_t(cut), items.end());
            if (!items.empty()) {
                iterated(now);
                progress = true;
            }
            left = true;
        }
        // the next pipelined run's first iteration (stage 0 only), first when none is under way:
        // its first waves' inputs are written early, and the SHAVE engines wait for it
        if (active < 0)
            for (const auto& [run, stage] : stages) {
                const std::size_t ra = streams[std::size_t(run)].first;
                if (stage.empty() || done[ra - a] > 0) continue;
                const std::vector<std::pair<std::size_t, std::size_t>> items = iteration(run);
                if (items.empty()) break;
                for (const auto& [q, j] : items) emit(run, q, j);
                active = run;
                iterated(run);
                progress = true;
                break;
            }
        for (std::size_t li = a; li <= b;) {
            const std::int64_t run = stream_of[li];
            if (run < 0) {
                const auto& ts = tiles_of.at(std::int64_t(li));
                std::size_t& k = done[li - a];
                std::vector<int> emitted(std::size_t(t.clusters), 0);  // an NCE layer's tiles this sweep, per cluster
                for (; k < ts.size(); ++k) {
                    const Tile& tl = m.tiles[ts[k]];
                    const bool nce = m.layers[li].exec == Exec::nce;
                    if (nce && !force && region_tiles_per_sweep > 0 && emitted[std::size_t(tl.cluster)] >= region_tiles_per_sweep) break;
                    // (`band_chunks_together`: a band's later chunks go with its first)
                    const bool band = band_chunks_together && nce && k > 0 && tl.row0 == m.tiles[ts[k - 1]].row0 && tl.ch0 > 0;
                    double at = 0.0;
                    if (!region_ready(tl, a, li, li, &at) || (!force && !band && at > queue_free(tl, -1))) break;
                    if (nce) ++emitted[std::size_t(tl.cluster)];
                    emit(-1, li, k);
                    progress = true;
                }
                mark(li, k);
                left = left || k < ts.size();
                ++li;
                continue;
            }
            const auto [ra, rb] = streams[std::size_t(run)];
            li = rb + 1;
            const std::size_t parts = run_parts(ra);
            if (!stages.at(run).empty()) {
                const std::size_t waves = (parts + wave - 1) / wave;
                left = left || done[ra - a] <= waves;
                continue;
            }
            // a run of short parts: the next parts (at most a wave) whose inputs are written
            std::size_t& k = done[ra - a];
            const std::size_t k0 = k;
            for (; k < parts && k < k0 + wave; ++k) {
                bool ready = true;
                double at = 0.0;
                for (std::size_t q = ra; q <= rb && ready; ++q) ready = region_ready(tile(q, k), a, ra, rb, &at);
                if (!ready || (!force && at > queue_free(tile(ra, k), std::int64_t(k)))) break;
            }
            if (k > k0) {
                for (std::size_t q : wave_order(ra, rb, ra, ra))
                    for (std::size_t j = k0; j < k; ++j) emit(run, q, j);
                for (std::size_t q = ra; q <= rb; ++q) mark(q, k);
                progress = true;
            }
            left = left || k < parts;
        }
        // the active run's second half
        for (const auto& [q, j] : second) emit(now, q, j);
        second.clear();
        if (!left) break;
        if (!progress && !force) {
            force = true;
            continue;
        }
        force = false;
        // (cannot happen: the layers are in program order, so the first unfinished one reads
        // complete results; a schedule that stops here is not kept)
        if (!progress) return false;
    }
    for (const auto& [q, n] : deferred) mark(q, n);
    streamed.clear();
    region_rows.clear();
    region_time.clear();
    return true;
}

}  // namespace nnef::vpu::ir::schedule_impl
