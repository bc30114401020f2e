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
#include "lowering/vpu/passes/scheduler.hpp"
#include "lowering/vpu/passes/shave_parts.hpp"

namespace nnef::vpu::ir::schedule_impl {

std::vector<std::array<std::int64_t, 3>> Scheduler::stream_key(std::size_t li) const {
    const Layer& l = m.layers[li];
    std::vector<std::array<std::int64_t, 3>> key;
    const bool nce = pointwise_nce(l);
    if ((l.exec != Exec::shave && !nce) || l.output.shape.size() != 4 || l.output.shape[0] != 1) return {};
    // (an NCE layer whose result stays in CMX for the next one, or that reads such a result, keeps that path)
    if (nce && (resident[li] || (li > 0 && resident[li - 1]))) return {};
    const std::int64_t e = es(l.output);
    if (l.output.elements() * e != m.tensors[std::size_t(l.output.tensor)].bytes || !l.output.dense(e)) return {};
    const auto it = tiles_of.find(std::int64_t(li));
    // (a part per SHAVE engine at least: fewer parts are kept by the held results as they are)
    if (it == tiles_of.end() || std::int64_t(it->second.size()) < t.clusters * t.shave_per_cluster) return {};
    for (std::size_t ti : it->second) {
        const Tile& tl = m.tiles[ti];
        if (nce ? tl.ch0 != 0 || tl.chans != l.output.shape[3] : tl.split_dim != 1) return {};
        key.push_back({tl.cluster, tl.row0, tl.rows});
    }
    return key;
}

void Scheduler::plan_streams(std::vector<std::vector<std::int64_t>>& live) {
    const std::size_t L = m.layers.size();
    stream_of.assign(L, -1);
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
        const std::int64_t parts = std::int64_t(tiles_of.at(std::int64_t(a)).size());
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
    // whether layer r reads the results of layers [a, r) only as the rows it computes
    auto reads_rows = [&](std::size_t a, std::size_t r) {
        const Layer& l = m.layers[r];
        const std::vector<SplitUse> uses = l.exec == Exec::shave ? split_uses(l, 1) : std::vector<SplitUse>(l.inputs.size(), SplitUse::sliced);
        for (std::size_t i = 0; i < l.inputs.size(); ++i)
            for (std::size_t q = a; q < r; ++q) {
                const View& o = m.layers[q].output;
                if (l.inputs[i].tensor != o.tensor) continue;
                if (i >= uses.size() || uses[i] != SplitUse::sliced) return false;
                if (l.inputs[i].offset != o.offset || l.inputs[i].shape != o.shape || l.inputs[i].strides != o.strides) return false;
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
        while (b + 1 < L && stream_key(b + 1) == key && reads_rows(a, b + 1) && peak(a, b + 1).first * per_cluster <= stream_budget) ++b;
        const std::int64_t part_bytes = peak(a, b).first;
        if (b > a && part_bytes * per_cluster <= stream_budget) {
            const std::int64_t id = std::int64_t(streams.size());
            streams.push_back({a, b});
            for (std::size_t q = a; q <= b; ++q) {
                stream_of[q] = id;
                const int x = m.layers[q].output.tensor;
                bool inside = !is_output(x) && !readers[std::size_t(x)].empty();
                for (std::size_t rd : readers[std::size_t(x)]) inside = inside && rd > q && rd <= b;
                if (inside) stream_internal.insert(x);
                for (std::size_t c = 0; c < std::size_t(t.clusters); ++c) live[q][c] += part_bytes * per_cluster;
            }
        }
        a = b + 1;
    }
}

void Scheduler::emit_stream(std::int64_t id, bool& first, const std::function<void()>& prefetch) {
    const auto [a, b] = streams[std::size_t(id)];
    const std::size_t parts = tiles_of.at(std::int64_t(a)).size();
    const std::size_t wave = std::size_t(t.clusters * t.shave_per_cluster);
    for (std::size_t w0 = 0; w0 < parts; w0 += wave)
        for (std::size_t li = a; li <= b; ++li)
            for (std::size_t k = w0; k < std::min(parts, w0 + wave); ++k) {
                stream_part = std::int64_t(k);
                const Tile& tl = m.tiles[tiles_of.at(std::int64_t(li))[k]];
                if (m.layers[li].exec == Exec::nce) nce_tile(tl);
                else other_tile(tl);
                stream_part = -1;
                if (first) prefetch();
                first = false;
            }
}

bool Scheduler::stream_read(const View& v, Box& out) const {
    if (stream_part < 0) return false;
    const auto it = streamed.find({v.tensor, stream_part});
    if (it == streamed.end()) return false;
    out = it->second;
    return true;
}

}  // namespace nnef::vpu::ir::schedule_impl
