// schedule (scheduler.hpp, docs/schedule.md step 24): a streamed run software-pipelined over two
// waves. emit_stream emits a run wave by wave, each layer's parts of the wave in turn, so within a
// wave the NCE and the SHAVE engines wait for each other: the exporter's erf polynomial on
// ConvNeXt's GELU has, per part, NCE layers (|u|, its scale, -u, -u u), then the SHAVE kernels
// `reciprocal` and `exp`, then the NCE layers on their results (the Horner chain, the products, the
// sign); the engines' queues run in the list's order, so each SHAVE engine waited for its wave's
// first NCE layers and then for the Horner chain before `exp`, and the NCE for `exp` (the SHAVE
// engines 65% busy in its runs, the NCE 30%). Pipelined, a layer's stage is 1 when it is a SHAVE
// kernel or reads a stage-1 result of the run, else 0, and the list takes the stage-0 layers of
// wave w (the NCE work before the SHAVE kernels) before the stage-1 layers of wave w - 1: each SHAVE kernel's inputs were made during the wave before, and
// the NCE works on the next wave while the SHAVE engines run this one. The parts of two waves are
// live at once where one was: the candidate is kept only where it allocates and the simulator
// finds it faster (schedule.cpp `early_loads`).
#include <algorithm>

#include "lowering/vpu/passes/scheduler.hpp"

namespace nnef::vpu::ir::schedule_impl {

std::vector<int> Scheduler::stream_stages(std::size_t a, std::size_t b) const {
    std::vector<int> stage(b - a + 1, 0);
    bool zero = false, one = false;
    for (std::size_t li = a; li <= b; ++li) {
        const Layer& l = m.layers[li];
        int s = l.exec == Exec::nce ? 0 : 1;
        for (const View& v : l.inputs)
            for (std::size_t q = a; q < li; ++q)
                if (m.layers[q].output.tensor == v.tensor && stage[q - a] == 1) s = 1;
        stage[li - a] = s;
        (s == 0 ? zero : one) = true;
    }
    if (!zero || !one) return {};
    return stage;
}

bool Scheduler::pipelines() const {
    for (const auto& [a, b] : streams)
        if (!stream_stages(a, b).empty()) return true;
    return false;
}

void Scheduler::emit_stream_pipelined(std::int64_t id, const std::vector<int>& stage,
                                      const std::function<void(std::size_t, std::size_t)>& emit) {
    const auto [a, b] = streams[std::size_t(id)];
    const std::size_t parts = tiles_of.at(std::int64_t(a)).size();
    const std::size_t wave = std::size_t(t.clusters * t.shave_per_cluster);
    const std::size_t waves = (parts + wave - 1) / wave;
    const std::vector<std::size_t>& after = beside[std::size_t(id)];
    // within a wave the order emit_stream gives it (no leading layers: stage 0 takes their place),
    // the stage-0 layers (of the next wave) first
    std::vector<std::size_t> order = wave_order(a, b, a, b + 1);
    std::stable_sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) { return stage[x - a] < stage[y - a]; });
    for (std::size_t it = 0; it <= waves; ++it) {
        for (std::size_t li : order) {
            const std::size_t s = std::size_t(stage[li - a]);
            if (it < s || it - s >= waves) continue;
            const std::size_t w0 = (it - s) * wave;
            for (std::size_t k = w0; k < std::min(parts, w0 + wave); ++k) emit(li, k);
        }
        if (after.empty()) continue;
        // the rows each layer of the run has written: its waves done (part k of each layer: the same rows)
        for (std::size_t li = a; li <= b; ++li) {
            const std::size_t s = std::size_t(stage[li - a]);
            const std::size_t done = it + 1 < s ? 0 : std::min(waves, it + 1 - s);
            std::int64_t rows = 0;
            if (done > 0) {
                const Tile& last = m.tiles[tiles_of.at(std::int64_t(li))[std::min(parts, done * wave) - 1]];
                rows = last.row0 + last.rows;
            }
            rows_written[m.layers[li].output.tensor] = rows;
        }
        emit_beside(id, after);
    }
    rows_written.clear();
}

}  // namespace nnef::vpu::ir::schedule_impl
