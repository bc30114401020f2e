// schedule (scheduler.hpp): what a layer beside a streamed run would push out of CMX
// (docs/schedule.md step 21). A layer emitted beside a run (`beside`, schedule_stream.cpp) takes
// CMX for its constants and tiles while the run's waves are emitted, and `plan_streams` counts those
// bytes in the held results' budget of the run's layers. The results the run and its beside layers
// read (made before the run, or the run's own results a beside layer reads) are held in CMX from
// their layer to their last reader where they fit that budget; where they fit beside the run's
// parts without the layer but not with it, the layer would have them stored to DDR and loaded
// again. The zoo's EfficientNet-B1: the depthwise conv beside the stem's SiLU (861 KB per cluster,
// 33 K cycles of NCE work under 203 K of SHAVE work) pushed out the stem conv's and the SiLU's
// results (392 KB per cluster each): 69 K cycles later than without it.
#include <set>

#include "lowering/vpu/passes/scheduler.hpp"

namespace nnef::vpu::ir::schedule_impl {

std::int64_t Scheduler::beside_reads(std::size_t id, const std::vector<std::size_t>& layers) const {
    const std::size_t a = streams[id].first, b = streams[id].second;
    // the results made before the run (graph inputs are no layer's result: never held) and the run's
    std::set<int> made;
    for (std::size_t q = 0; q <= b; ++q) made.insert(m.layers[q].output.tensor);
    std::set<int> read;
    auto note = [&](std::size_t r) {
        for (const View& v : m.layers[r].inputs)
            if (made.count(v.tensor) && !stream_internal.count(v.tensor) && !banned.count(v.tensor)) read.insert(v.tensor);
    };
    for (std::size_t q = a; q <= b; ++q) note(q);
    for (std::size_t c : layers) note(c);
    std::int64_t bytes = 0;
    // (a held result's pieces: its rows over the clusters)
    for (int x : read) bytes += (m.tensors[std::size_t(x)].bytes + t.clusters - 1) / t.clusters;
    return bytes;
}

}  // namespace nnef::vpu::ir::schedule_impl
