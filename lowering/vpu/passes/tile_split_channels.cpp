// tile (lowering/vpu/passes/tile_split_channels.hpp): the choice of a split over output channels
// across the clusters.
#include "lowering/vpu/passes/tile_split_channels.hpp"

#include <algorithm>
#include <vector>

namespace nnef::vpu::ir {

namespace {

// No SHAVE kernel reads layer `li`'s result, directly or through copies (a concat, a shuffle).
bool read_by_nce_and_copies(const Module& m, std::size_t li) {
    std::vector<int> results{m.layers[li].output.tensor};
    for (std::size_t r = li + 1; r < m.layers.size(); ++r)
        for (const View& v : m.layers[r].inputs) {
            if (std::find(results.begin(), results.end(), v.tensor) == results.end()) continue;
            if (m.layers[r].exec == Exec::shave) return false;
            if (m.layers[r].exec == Exec::copy) results.push_back(m.layers[r].output.tensor);
        }
    return true;
}

}  // namespace

bool split_channels_wins(const Module& m, std::size_t li, const ChannelSplitCost& c) {
    const Target& t = m.target;
    const double k = double(t.clusters);
    if (t.clusters < 2) return false;
    const double latency = double(t.dma_latency_cycles), rate = double(t.dma_bytes_per_cycle);
    const double rows_extra = (k - 1.0) * (latency + double(c.weights) / rate);
    const double channels_extra = (k - 1.0) * 2.0 * latency + (k - 1.0) / k * double(c.input + c.output) / rate;
    const bool weights_exposed = double(c.weights) / rate > 0.5 * c.work / k;
    return rows_extra > channels_extra && weights_exposed && read_by_nce_and_copies(m, li);
}

bool one_cluster_wins(const Module& m, const ChannelSplitCost& c) {
    const Target& t = m.target;
    const double k = double(t.clusters);
    const double latency = double(t.dma_latency_cycles), rate = double(t.dma_bytes_per_cycle);
    const double channels_extra = (k - 1.0) * 2.0 * latency + (k - 1.0) / k * double(c.input + c.output) / rate;
    return (k - 1.0) / k * c.work < channels_extra;
}

}  // namespace nnef::vpu::ir
