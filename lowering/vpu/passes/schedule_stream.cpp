// schedule (scheduler.hpp): runs of SHAVE kernels streamed part by part. Consecutive SHAVE layers
// split over the same rows on the same clusters (`tile_shave` gives a layer that reads the
// previous one's result its row split), each reading the results of the run's earlier layers
// only as the rows it computes, form a run. A run is emitted in waves of one part per SHAVE
// engine: for each layer of the run, the wave's parts; part k of every layer runs on the same
// engine. A result read only inside its run (an intermediate of a chain of element-wise kernels:
// ConvNeXt's layer norms and the exporter's erf polynomial) then lives in CMX for one part of the
// chain, never in DDR; other results of the run are read there by the run's later layers and
// stored (or held) as before. Without this every layer ran all its parts before the next one, so
// a chain over a tensor larger than CMX stored each intermediate and loaded it again.
#include <optional>
#include <set>

#include "lowering/vpu/passes/scheduler.hpp"
#include "lowering/vpu/passes/shave_parts.hpp"

namespace nnef::vpu::ir::schedule_impl {

namespace schedule_stream_cpp {

// The first channel of `v` when it reads the channels [c0, c0 + v.shape[3]) of every pixel of `o`,
// a result with dense rows, in any plane arrangement of those pixels (another H x W of the same
// H * W, as a layer reading a result re-planed); none otherwise.
std::optional<std::int64_t> channel_slice(const View& v, const View& o) {
    if (v.shape.size() != 4 || o.shape.size() != 4 || v.shape[0] != o.shape[0] || v.strides[2] != o.strides[2] ||
        v.strides[3] != o.strides[3] || v.shape[1] * v.shape[2] != o.shape[1] * o.shape[2] ||
        v.strides[1] != v.shape[2] * v.strides[2] || o.strides[1] != o.shape[2] * o.strides[2] || v.offset < o.offset ||
        o.strides[3] <= 0 || (v.offset - o.offset) % o.strides[3] != 0)
        return std::nullopt;
    return (v.offset - o.offset) / o.strides[3];
}

}  // namespace schedule_stream_cpp
using schedule_stream_cpp::channel_slice;

std::vector<std::array<std::int64_t, 4>> Scheduler::stream_key(std::size_t li) const {
    const Layer& l = m.layers[li];
    std::vector<std::array<std::int64_t, 4>> key;
    // (pipelined, also a 1x1 conv in channel chunks: the first layer of the run it feeds, its stage 0)
    const bool chunk_conv = stream_pipeline && l.exec == Exec::nce && l.nce_op == NceOp::conv && !l.nce.quantized && one_by_one(l.nce);
    const bool nce = pointwise_nce(m, l) || chunk_conv;
    if ((l.exec != Exec::shave && !nce) || l.output.shape.size() != 4 || l.output.shape[0] != 1) return {};
    // (an NCE layer whose result stays in CMX for the next one, or that reads such a result, keeps that path)
    if (nce && (resident[li] || (li > 0 && resident[li - 1]))) return {};
    const std::int64_t e = es(l.output);
    if (l.output.elements() * e != m.tensors[std::size_t(l.output.tensor)].bytes || !l.output.dense(e)) return {};
    const auto it = tiles_of.find(std::int64_t(li));
    // (a part per SHAVE engine at least: fewer parts are kept by the held results as they are)
    if (it == tiles_of.end() || std::int64_t(it->second.size()) < t.clusters * t.shave_per_cluster) return {};
    // (the split dimension, the cluster, the part's rows, or its channels: tile_stream_channels.cpp)
    if (const std::size_t g = chunk_conv ? part_group[li] : 1; g > 1) {
        for (std::size_t k = 0; k < it->second.size(); k += g) {
            const Tile& tl = m.tiles[it->second[k]];
            std::int64_t chans = 0;
            for (std::size_t j = k; j < k + g; ++j) chans += m.tiles[it->second[j]].chans;
            key.push_back({3, tl.cluster, tl.ch0, chans});
        }
        return key;
    }
    for (std::size_t ti : it->second) {
        const Tile& tl = m.tiles[ti];
        if (!nce && tl.split_dim != 1 && tl.split_dim != 3) return {};
        if (!nce) key.push_back({tl.split_dim, tl.cluster, tl.row0, tl.rows});
        else if (tl.ch0 == 0 && tl.chans == l.output.shape[3]) key.push_back({1, tl.cluster, tl.row0, tl.rows});
        else if (tl.row0 == 0 && tl.rows == l.output.shape[1]) key.push_back({3, tl.cluster, tl.ch0, tl.chans});
        else return {};
    }
    return key;
}

std::size_t Scheduler::conv_group(std::size_t li) const {
    const Layer& l = m.layers[li];
    if (!stream_pipeline || l.exec != Exec::nce || l.nce_op != NceOp::conv || l.nce.quantized || !one_by_one(l.nce) || li + 1 >= m.layers.size())
        return 1;
    const Layer& n = m.layers[li + 1];
    const auto it = tiles_of.find(std::int64_t(li)), jt = tiles_of.find(std::int64_t(li + 1));
    const bool nce = n.exec == Exec::nce && pointwise_nce(m, n);
    if (it == tiles_of.end() || jt == tiles_of.end() || (n.exec != Exec::shave && !nce) || l.output.shape.size() != 4 ||
        n.output.shape != l.output.shape)
        return 1;
    const std::size_t T = it->second.size(), P = jt->second.size();
    if (P == 0 || T <= P || T % P != 0) return 1;
    const std::size_t g = T / P;
    for (std::size_t k = 0; k < P; ++k) {
        const Tile& p = m.tiles[jt->second[k]];
        // (a SHAVE part over channels has its range in row0, rows)
        if (nce ? p.row0 != 0 || p.rows != n.output.shape[1] : p.split_dim != 3) return 1;
        const std::int64_t c0 = nce ? p.ch0 : p.row0, cn = nce ? p.chans : p.rows;
        std::int64_t c = c0;
        for (std::size_t j = k * g; j < (k + 1) * g; ++j) {
            const Tile& tl = m.tiles[it->second[j]];
            if (tl.cluster != p.cluster || tl.row0 != 0 || tl.rows != l.output.shape[1] || tl.ch0 != c) return 1;
            c += tl.chans;
        }
        if (c != c0 + cn) return 1;
    }
    return g;
}

std::size_t Scheduler::run_parts(std::size_t a) const { return tiles_of.at(std::int64_t(a)).size() / part_group[a]; }

void Scheduler::plan_streams(std::vector<std::vector<std::int64_t>>& live) {
    const std::size_t L = m.layers.size();
    part_group.assign(L, 1);
    for (std::size_t li = 0; li < L; ++li) part_group[li] = conv_group(li);
    stream_of.assign(L, -1);
    beside.clear();
    stream_lead.clear();
    if (stream_budget <= 0) return;
    // the layers reading each tensor
    std::vector<std::vector<std::size_t>> readers(m.tensors.size());
    for (std::size_t r = 0; r < L; ++r)
        for (const View& in : m.layers[r].inputs)
            if (readers[std::size_t(in.tensor)].empty() || readers[std::size_t(in.tensor)].back() != r) readers[std::size_t(in.tensor)].push_back(r);
    auto is_output = [&](int x) { return std::find(m.output_tensors.begin(), m.output_tensors.end(), x) != m.output_tensors.end(); };
    // the bytes one part of run [a, b] keeps in CMX at its peak: each layer's loaded inputs and
    // result, the run's results until their last reader in the run (those read after it until
    // then too: their store waits in CMX)
    auto peak = [&](std::size_t a, std::size_t b) {
        const std::int64_t parts = std::int64_t(run_parts(a));
        std::int64_t top = 0;
        for (std::size_t r = a; r <= b; ++r) {
            std::int64_t now = 0;
            for (std::size_t q = a; q <= r; ++q) {
                const int x = m.layers[q].output.tensor;
                std::size_t last = q;
                for (std::size_t rd : readers[std::size_t(x)])
                    if (rd <= b) last = std::max(last, rd);
                if (last >= r) now += m.tensors[std::size_t(x)].bytes;
            }
            for (const View& in : m.layers[r].inputs) {
                bool inside = false;
                for (std::size_t q = a; q < r; ++q) inside = inside || m.layers[q].output.tensor == in.tensor;
                if (!inside) now += in.elements() * es(in);
            }
            top = std::max(top, now);
        }
        return std::make_pair((top + parts - 1) / parts, top);
    };
    // whether layer r reads the results of layers [a, r) only as the rows (or channels) it computes
    auto reads_rows = [&](std::size_t a, std::size_t r, int dim) {
        const Layer& l = m.layers[r];
        const std::vector<SplitUse> uses = l.exec == Exec::shave ? split_uses(l, dim) : std::vector<SplitUse>(l.inputs.size(), SplitUse::sliced);
        for (std::size_t i = 0; i < l.inputs.size(); ++i)
            for (std::size_t q = a; q < r; ++q) {
                const View& o = m.layers[q].output;
                if (l.inputs[i].tensor != o.tensor) continue;
                if (i >= uses.size() || uses[i] != SplitUse::sliced) return false;
                const View& v = l.inputs[i];
                // (over channels, the same pixels as another plane of them: stream_read)
                const bool replaned = dim == 3 && channel_slice(v, o) == std::optional<std::int64_t>(0) && v.shape[3] == o.shape[3];
                if (!replaned && (v.offset != o.offset || v.shape != o.shape || v.strides != o.strides)) return false;
            }
        return true;
    };
    for (std::size_t a = 0; a < L;) {
        const auto key = stream_key(a);
        if (key.empty()) {
            ++a;
            continue;
        }
        // two SHAVE parts per cluster at once (one per engine) within the budget
        const std::int64_t per_cluster = t.shave_per_cluster;
        std::size_t b = a;
        while (b + 1 < L && stream_key(b + 1) == key && reads_rows(a, b + 1, int(key.front()[0])) && peak(a, b + 1).first * per_cluster <= stream_budget) ++b;
        const std::int64_t part_bytes = peak(a, b).first;
        // (a run from a 1x1 conv in channel chunks only as such a run: its parts are the conv's
        // chunks; in row parts, with `lead_convs`: split_run_rows gave it the run's rows)
        const bool conv_first = m.layers[a].nce_op == NceOp::conv && m.layers[a].exec == Exec::nce;
        const bool by_rows = lead_convs && key.front()[0] == 1 && b > a;
        if (conv_first && (key.front()[0] != 3 || !conv_chunks_chain(a + 1, b)) && !by_rows) {
            ++a;
            continue;
        }
        if (b > a && part_bytes * per_cluster <= stream_budget && (key.front()[0] == 1 || conv_first || conv_chunks_chain(a, b))) {
            const std::int64_t id = std::int64_t(streams.size());
            streams.push_back({a, b});
            // the leading layers a wave ahead where their parts fit beside the run's
            std::pair<std::size_t, std::int64_t> lead = lead_layers(a, b);
            if (part_bytes * per_cluster + lead.second > stream_budget) lead = {a, 0};
            stream_lead.push_back(lead.first);
            stream_bytes.push_back(part_bytes * per_cluster + lead.second);
            for (std::size_t q = a; q <= b; ++q) {
                stream_of[q] = id;
                const int x = m.layers[q].output.tensor;
                bool inside = !is_output(x) && !readers[std::size_t(x)].empty();
                for (std::size_t rd : readers[std::size_t(x)]) inside = inside && rd > q && rd <= b;
                if (inside) stream_internal.insert(x);
                // (a result of a run in channel parts read after it is not held: its readers there
                // take all channels of their rows, so each cluster would hold a gathered copy of all
                // of it, and the allocator found no room for those in ConvNeXt's stage 4)
                else if (key.front()[0] == 3) banned.insert(x);
                for (std::size_t c = 0; c < std::size_t(t.clusters); ++c) live[q][c] += stream_bytes.back();
            }
        }
        a = b + 1;
    }
    beside.assign(streams.size(), {});
    std::vector<std::int64_t> used = stream_bytes;
    // the NCE layers after a run, tile by tile as its waves write the rows they read, while their
    // constants and tiles fit the budget beside the run's parts and push no result they and the
    // run read out of the held budget (`beside_reads`; a layer whose result stays in CMX for the
    // next only with that next layer)
    for (std::size_t id = 0; id < streams.size(); ++id) {
        std::vector<std::size_t> with;
        // (beside a run in channel parts, a layer counts only its constants, and the layers
        // together the largest's: they are loaded one layer at a time as the waves write the parts
        // they read, and read those parts where they are (`part_read`); counted as beside a run in
        // row parts, with four tiles each (or one) and each layer's, none of ConvNeXt's partial
        // sums fit beside its stage-3 runs (docs/schedule.md step 34))
        const bool chans = !stream_rows(std::int64_t(id));
        std::int64_t top = 0;
        for (std::size_t c : beside_layers(std::int64_t(id))) {
            std::int64_t extra = chans ? std::max<std::int64_t>(0, constant_bytes(c) - top) : beside_bytes(c);
            if (used[id] + extra > stream_budget) break;
            with.push_back(c);
            const std::int64_t reads = beside_reads(id, with);
            if (used[id] + reads <= hold_budget && used[id] + extra + reads > hold_budget) break;
            used[id] += extra;
            top += extra;
            beside[id].push_back(c);
        }
        while (!beside[id].empty() && resident[beside[id].back()]) {
            used[id] -= beside_bytes(beside[id].back());
            beside[id].pop_back();
        }
    }
    for (std::size_t id = 0; id < streams.size(); ++id)
        for (std::size_t q = streams[id].first; q <= streams[id].second; ++q)
            for (std::size_t c = 0; c < std::size_t(t.clusters); ++c) live[q][c] += used[id] - stream_bytes[id];
}

std::int64_t Scheduler::constant_bytes(std::size_t c) const {
    const Layer& l = m.layers[c];
    std::int64_t bytes = 0;
    if (l.weights >= 0) {
        std::int64_t w = element_size(m.tensors[std::size_t(l.weights)].dtype);
        for (std::int64_t d : l.weights_shape) w *= d;
        bytes += w;
    }
    return bytes + l.table_bytes(t.nce_channel_alignment);
}

std::int64_t Scheduler::beside_bytes(std::size_t c) const {
    const Layer& l = m.layers[c];
    const std::int64_t bytes = constant_bytes(c);
    // two tiles at once, each its result and its input rows (a gathered box at most), counted
    // twice: with two, the allocator's ring found no room beside the parts (fragmented CMX) in
    // five of eight schedules of ConvNeXt, each a held result spilled and the schedule made again
    // (compile time +45%); with four, as often as without `beside` (three)
    std::int64_t tile = 0;
    for (std::size_t ti : tiles_of.at(std::int64_t(c))) {
        const Tile& tl = m.tiles[ti];
        std::int64_t b = tl.rows * l.output.shape[2] * tl.chans * es(l.output);
        for (const View& v : l.inputs) {
            const std::int64_t rows = std::min(v.shape[1], (tl.rows - 1) * l.nce.stride[0] + (l.nce.kernel[0] - 1) * l.nce.dilation[0] + 1);
            b += rows * v.shape[2] * v.shape[3] * es(v);
        }
        tile = std::max(tile, b);
    }
    return bytes + 4 * tile;
}

void Scheduler::emit_stream(std::int64_t id, bool& first, const std::function<void()>& prefetch) {
    const auto [a, b] = streams[std::size_t(id)];
    const std::size_t parts = run_parts(a);
    const std::size_t wave = std::size_t(t.clusters * t.shave_per_cluster);
    const std::vector<std::size_t>& after = beside[std::size_t(id)];
    const std::size_t lead = stream_lead[std::size_t(id)];
    // the next wave's leading parts go after this wave's first NCE layer past them (ConvNeXt's
    // `t = 1 + p |x|` after `abs`): before it they would delay the NCE task this wave's next SHAVE
    // kernel waits for (ConvNeXt: 24369403 cycles with no lead, 23845525 with it; right after the
    // leading layers 0.9% slower than after the NCE layer, measured with tiles of cuboid rows);
    // with no such layer, at the wave's end
    std::size_t ahead_after = lead;
    while (ahead_after <= b && m.layers[ahead_after].exec != Exec::nce) ++ahead_after;
    ahead_after = std::min(ahead_after, b);
    rows_written.clear();
    auto emit = [&](std::size_t li, std::size_t k) {
        stream_part = std::int64_t(k);
        const std::size_t n = part_group[li];  // (a grouped conv: the chunks of part k)
        const auto& ts = tiles_of.at(std::int64_t(li));
        if (n > 1) {
            part_span = {m.tiles[ts[k * n]].ch0, 0};
            for (std::size_t j = k * n; j < (k + 1) * n; ++j) part_span[1] += m.tiles[ts[j]].chans;
        }
        for (std::size_t j = k * n; j < (k + 1) * n; ++j) {
            const Tile& tl = m.tiles[ts[j]];
            if (m.layers[li].exec == Exec::nce) nce_tile(tl);
            else other_tile(tl);
        }
        part_span = {0, 0};
        stream_part = -1;
        if (first) prefetch();
        first = false;
    };
    if (stream_pipeline) {
        const std::vector<int> stage = stream_stages(a, b);
        if (!stage.empty()) {
            emit_stream_pipelined(id, stage, [&](std::size_t li, std::size_t k) { emit(li, k); });
            return;
        }
    }
    const std::vector<std::size_t> order = wave_order(a, b, lead, ahead_after);
    for (std::size_t w0 = 0; w0 < parts; w0 += wave) {
        for (std::size_t li : order) {
            // (the leading layers' parts of this wave were emitted with the wave before)
            if (li >= lead || w0 == 0)
                for (std::size_t k = w0; k < std::min(parts, w0 + wave); ++k) emit(li, k);
            // the next wave's parts of the leading layers, after this wave's
            if (lead > a && li == ahead_after && w0 + wave < parts)
                for (std::size_t q = a; q < lead; ++q)
                    for (std::size_t k = w0 + wave; k < std::min(parts, w0 + 2 * wave); ++k) emit(q, k);
        }
        if (after.empty()) continue;
        // the rows (channels) every layer of the run has written (part k of each: the same)
        for (std::size_t li = a; li <= b; ++li) mark_written(id, li, std::min(parts, w0 + wave));
        emit_beside(id, after);
    }
    rows_written.clear();
    chans_written.clear();
}

void Scheduler::mark_written(std::int64_t id, std::size_t li, std::size_t done) {
    const int x = m.layers[li].output.tensor;
    const bool rows = stream_rows(id);
    std::int64_t n = 0;
    if (done > 0) {
        const Tile& last = m.tiles[tiles_of.at(std::int64_t(li))[done * part_group[li] - 1]];
        // (a channel part: an NCE tile's channels, a SHAVE part's split range)
        n = !rows && m.layers[li].exec == Exec::nce ? last.ch0 + last.chans : last.row0 + last.rows;
    }
    (rows ? rows_written : chans_written)[x] = n;
}

bool Scheduler::conv_chunks_chain(std::size_t a, std::size_t b) const {
    bool shave = false;
    for (std::size_t q = a; q <= b; ++q) {
        shave = shave || m.layers[q].exec == Exec::shave;
        if (m.layers[q].output.shape != m.layers[a].output.shape) return false;
    }
    if (!shave || a == 0 || m.layers[a - 1].exec != Exec::nce || m.layers[a - 1].nce_op != NceOp::conv) return false;
    for (const View& v : m.layers[a].inputs)
        if (v.tensor == m.layers[a - 1].output.tensor) return true;
    return false;
}

bool Scheduler::stream_rows(std::int64_t id) const {
    const Tile& tl = m.tiles[tiles_of.at(std::int64_t(streams[std::size_t(id)].first)).front()];
    return m.layers[std::size_t(tl.layer)].exec == Exec::nce ? tl.ch0 == 0 && tl.chans == m.layers[std::size_t(tl.layer)].output.shape[3]
                                                              : tl.split_dim == 1;
}

std::pair<std::size_t, std::int64_t> Scheduler::lead_layers(std::size_t a, std::size_t b) const {
    std::set<int> results;
    std::size_t lead = a;
    std::int64_t bytes = 0;
    const std::int64_t parts = std::int64_t(run_parts(a));
    for (; lead < b; ++lead) {
        const Layer& l = m.layers[lead];
        bool reads = false;
        for (const View& v : l.inputs) reads = reads || results.count(v.tensor);
        // (an NCE layer: a SHAVE kernel ahead would take the engine the current wave's kernels need)
        if (reads || l.exec != Exec::nce) break;
        results.insert(l.output.tensor);
        bytes += (m.tensors[std::size_t(l.output.tensor)].bytes + parts - 1) / parts;
    }
    // (counted three times: counted once or twice, the allocator's ring found no room for a buffer
    // beside the extra parts (fragmented CMX) in four more schedules of ConvNeXt, each a held result
    // spilled and the schedule made again: 10 schedules against 6 without the lead, compile time
    // +12% user; three times 8, the same schedule kept; four times ConvNeXt 24529038 cycles: runs
    // without a lead)
    return {lead, 3 * bytes * t.shave_per_cluster};
}

std::vector<std::size_t> Scheduler::beside_layers(std::int64_t id) const {
    const auto [a, b] = streams[std::size_t(id)];
    std::set<int> results;
    for (std::size_t q = a; q <= b; ++q) results.insert(m.layers[q].output.tensor);
    std::vector<std::size_t> out;
    for (std::size_t c = b + 1; c < m.layers.size(); ++c) {
        const Layer& l = m.layers[c];
        // (not a quantized layer: on the int8 path the NCE work after a run is little (requantizing
        // 1x1 pools, convs at twice the fp16 rate) and its tiles' room in the budget cost held
        // results: the zoo's int8 ConvNeXt at PRO-INT 28150288 -> 28463061 cycles, spills 420 -> 429 MB)
        if (l.exec != Exec::nce || l.nce.quantized || stream_of[c] >= 0 || l.output.shape.size() != 4 || l.output.shape[0] != 1) break;
        bool reads = false;
        for (const View& v : l.inputs) reads = reads || results.count(v.tensor);
        if (!reads) break;
        out.push_back(c);
        results.insert(l.output.tensor);
    }
    return out;
}

bool Scheduler::rows_ready(std::size_t a, const Tile& tl) const {
    const Layer& l = m.layers[std::size_t(tl.layer)];
    for (const View& v : l.inputs) {
        if (const auto ch = chans_written.find(v.tensor); ch != chans_written.end()) {
            // a channel slice [c0, c0 + n) of the whole result's pixels (any plane of them)
            const std::optional<std::int64_t> c0 = channel_slice(v, m.layers[std::size_t(writer[std::size_t(v.tensor)])].output);
            if (!c0 || *c0 + v.shape[3] > ch->second) return false;
            continue;
        }
        const auto it = rows_written.find(v.tensor);
        if (it == rows_written.end()) {
            // (a result of a layer before the run, complete)
            if (writer[std::size_t(v.tensor)] >= std::int64_t(a)) return false;
            continue;
        }
        // the whole result, read as an NCE tile reads its input rows
        const View& o = m.layers[std::size_t(writer[std::size_t(v.tensor)])].output;
        if (v.offset != o.offset || v.shape != o.shape || v.strides != o.strides || v.shape.size() != 4) return false;
        if (std::min(nce_input_rows(tl)[1], v.shape[1]) > it->second) return false;
    }
    return true;
}

void Scheduler::emit_beside(std::int64_t id, const std::vector<std::size_t>& layers) {
    const std::size_t a = streams[std::size_t(id)].first;
    for (std::size_t c : layers) {
        const auto& ts = tiles_of.at(std::int64_t(c));
        while (beside_done[c] < ts.size() && rows_ready(a, m.tiles[ts[beside_done[c]]])) {
            const Tile& tl = m.tiles[ts[beside_done[c]++]];
            // a tile reading one part of a result of a run in channel parts on that part's cluster
            // reads it where the part is (stream_read), not from DDR
            stream_part = part_read(tl);
            nce_tile(tl);
            stream_part = -1;
        }
        // the rows below the next tile's are written (tiles in row order; channel chunks of the
        // same rows wait for each other)
        rows_written[m.layers[c].output.tensor] = beside_done[c] < ts.size() ? m.tiles[ts[beside_done[c]]].row0 : m.layers[c].output.shape[1];
    }
}

std::int64_t Scheduler::part_read(const Tile& tl) const {
    const Layer& l = m.layers[std::size_t(tl.layer)];
    if (l.inputs.size() != 1) return -1;
    const View& v = l.inputs[0];
    if (!chans_written.count(v.tensor)) return -1;
    const std::size_t w = std::size_t(writer[std::size_t(v.tensor)]);
    if (part_group[w] > 1) return -1;  // (its tiles are not its parts)
    const std::optional<std::int64_t> slice = channel_slice(v, m.layers[w].output);
    if (!slice) return -1;
    const std::int64_t c0 = *slice;
    const auto& parts = tiles_of.at(std::int64_t(w));
    for (std::size_t k = 0; k < parts.size(); ++k) {
        const Tile& p = m.tiles[parts[k]];
        const bool nce = m.layers[w].exec == Exec::nce;
        if ((nce ? p.ch0 : p.row0) == c0 && (nce ? p.chans : p.rows) == v.shape[3] && p.cluster == tl.cluster &&
            streamed.count({v.tensor, std::int64_t(k)}))
            return std::int64_t(k);
    }
    return -1;
}

bool Scheduler::stream_read(const View& v, Box& out) const {
    if (stream_part < 0) return false;
    if (stream_run >= 0) {
        const std::int64_t w = writer[std::size_t(v.tensor)];
        if (w < 0 || stream_of[std::size_t(w)] != stream_run) return false;
    }
    const auto it = streamed.find({v.tensor, stream_part});
    if (it == streamed.end()) return false;
    out = it->second;
    // a channel part of all pixels read as another plane of them (a matmul's tokens as 49 x 4,
    // read as 14 x 14: the same bytes in the same order, reads_rows)
    if (even_pixels(out) && v.shape.size() == 4 && out.shape[2] != v.shape[2] && out.shape[1] * out.shape[2] == v.shape[1] * v.shape[2])
        on_plane(out, v.shape[1], v.shape[2]);
    return true;
}

}  // namespace nnef::vpu::ir::schedule_impl
