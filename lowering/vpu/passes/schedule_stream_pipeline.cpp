// schedule (scheduler.hpp, docs/schedule.md steps 25 and 28): a streamed run software-pipelined
// over two waves. emit_stream emits a run wave by wave, each layer's parts of the wave in turn, so within a
// wave the NCE and the SHAVE engines wait for each other: the exporter's erf polynomial on
// ConvNeXt's GELU has, per part, NCE layers (|u|, its scale, -u, -u u), then the SHAVE kernels
// `reciprocal` and `exp`, then the NCE layers on their results (the Horner chain, the products, the
// sign); the engines' queues run in the list's order, so each SHAVE engine waited for its wave's
// first NCE layers and then for the Horner chain before `exp`, and the NCE for `exp` (the SHAVE
// engines 65% busy in its runs, the NCE 30%). Pipelined, a layer's stage is 1 when it is a SHAVE
// kernel or reads a stage-1 result of the run, else 0, and the list takes the stage-0 layers of
// wave w (the NCE work before the SHAVE kernels) with the stage-1 layers of wave w - 1 (see the
// order in `emit_stream_pipelined`): each SHAVE kernel's inputs were made during the wave before, and
// the NCE works on the next wave while the SHAVE engines run this one. The parts of two waves are
// live at once where one was: the schedule pass makes the whole schedule a second time with the
// runs pipelined and keeps it only where it allocates and the simulator finds it faster
// (schedule.cpp `schedule`).
#include <algorithm>

#include "lowering/vpu/passes/scheduler.hpp"

namespace nnef::vpu::ir::schedule_impl {

namespace {

// Whether layer li of the run from layer a reads a result of a stage-1 layer before it.
bool reads_stage1(const Module& m, std::size_t a, std::size_t li, const std::vector<int>& stage) {
    for (const View& v : m.layers[li].inputs)
        for (std::size_t q = a; q < li; ++q)
            if (m.layers[q].output.tensor == v.tensor && stage[q - a] == 1) return true;
    return false;
}

}  // namespace

std::vector<int> Scheduler::stream_stages(std::size_t a, std::size_t b) const {
    std::vector<int> stage(b - a + 1, 0);
    bool zero = false, one = false;
    for (std::size_t li = a; li <= b; ++li) {
        const int s = m.layers[li].exec != Exec::nce || reads_stage1(m, a, li, stage) ? 1 : 0;
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

std::vector<std::size_t> Scheduler::pipelined_order(std::size_t a, std::size_t b, const std::vector<int>& stage) const {
    // In an iteration, in the order emit_stream gives a wave (no leading layers: stage 0 takes
    // their place): first the stage-1 SHAVE kernels that read no stage-1 result (of wave w - 1:
    // their inputs were made in the iteration before, so each engine starts at once, and their
    // buffers are placed before those of the layers after them, not on bytes an NCE layer of this
    // iteration still reads), then the stage-0 layers of wave w, then the rest of stage 1. (With
    // stage 0 before the whole of stage 1, each SHAVE engine waited for its kernels' bytes, the
    // Horner chain's intermediates, and for the load of u's part: ConvNeXt's GELU runs 75% busy,
    // 14177581 cycles against 13714448. With those kernels of wave w emitted after wave w's stage
    // 0 instead, 14594947: their buffers live beside wave w - 1's NCE layers, and the schedule's
    // retries found room for fewer held results.)
    const std::vector<std::size_t> base = wave_order(a, b, a, b + 1);
    std::vector<int> group(stage.size(), 2);  // 0: the kernels first, 1: stage 0, 2: the rest
    for (std::size_t li = a; li <= b; ++li) {
        if (stage[li - a] == 0) group[li - a] = 1;
        else if (m.layers[li].exec != Exec::nce && !reads_stage1(m, a, li, stage)) group[li - a] = 0;
    }
    std::vector<std::size_t> order;
    for (int g : {0, 1, 2})
        for (std::size_t li : base)
            if (group[li - a] == g) order.push_back(li);
    return order;
}

void Scheduler::emit_stream_pipelined(std::int64_t id, const std::vector<int>& stage,
                                      const std::function<void(std::size_t, std::size_t)>& emit) {
    const std::size_t a = streams[std::size_t(id)].first, b = streams[std::size_t(id)].second;
    const std::size_t parts = run_parts(a);
    const std::size_t wave = std::size_t(t.clusters * t.shave_per_cluster);
    const std::size_t waves = (parts + wave - 1) / wave;
    const std::vector<std::size_t>& after = beside[std::size_t(id)];
    const std::vector<std::size_t> order = pipelined_order(a, b, stage);
    for (std::size_t it = 0; it <= waves; ++it) {
        for (std::size_t li : order) {
            const std::size_t s = std::size_t(stage[li - a]);
            if (it < s || it - s >= waves) continue;
            const std::size_t w0 = (it - s) * wave;
            for (std::size_t k = w0; k < std::min(parts, w0 + wave); ++k) emit(li, k);
        }
        if (after.empty()) continue;
        // the rows (channels) each layer of the run has written: its waves done
        for (std::size_t li = a; li <= b; ++li) {
            const std::size_t st = std::size_t(stage[li - a]);
            const std::size_t done = it + 1 < st ? 0 : std::min(waves, it + 1 - st);
            mark_written(id, li, std::min(parts, done * wave));
        }
        emit_beside(id, after);
    }
    rows_written.clear();
    chans_written.clear();
}

}  // namespace nnef::vpu::ir::schedule_impl
