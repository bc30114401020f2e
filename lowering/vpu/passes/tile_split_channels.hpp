// Split over output channels across the clusters (VPUX's SOK) for NCE layers whose weights traffic
// dominates (lowering/vpu/passes/tile_split_channels.cpp). `tile` splits a layer over rows across
// the clusters by default; each cluster then loads all of the layer's weights. Split over output
// channels instead, each cluster computes its channels of all rows and loads only their weights,
// but needs the whole input in its CMX (an NCE task reads only its cluster's CMX,
// specs/vpu-target.md section 2: the other cluster's rows are copied in by DMA) and its readers
// need the other cluster's channels (copied in too).
#pragma once
#include <cstdint>

#include "lowering/vpu/ir.hpp"

namespace nnef::vpu::ir {

// What the choice weighs for one NCE layer: bytes of its weights and table, of its input(s) and
// output, and its MACs at the NCE's rate (cycles of work on one cluster for the whole layer).
struct ChannelSplitCost {
    std::int64_t weights = 0, input = 0, output = 0;
    double work = 0.0;
};

// Whether layer `li` (an NCE conv tiled over rows across the clusters) should rather split its
// output channels over the clusters, by the cost model of the target: the row split loads the
// weights once more per extra cluster (a DMA: latency + bytes / rate); the channel split copies
// (clusters - 1) / clusters of the input and of the output between clusters (two DMAs per extra
// cluster). Only where the weights' load per cluster is not hidden behind the cluster's share of
// the work (at least half of it), and where no SHAVE kernel reads the result (directly or
// through a copy: SHAVE parts follow their producer's row split, `shave_parts.hpp`).
bool split_channels_wins(const Module& m, std::size_t li, const ChannelSplitCost& c);
// Whether a layer for which the channel split wins should rather run whole on one cluster (the
// first): where the work the other clusters would take off it, (clusters - 1) / clusters of its
// work, is less than the channel split's copies, two DMA latencies and (clusters - 1) / clusters
// of its input and output bytes per extra cluster. ShuffleNet v2's stage 4 (7x7, 232 -> 232 1x1
// convs: 1288 cycles of work saved against 1910 of copies, on the chain of its short layers,
// serialized on the DMA queues behind each other's latencies); a depthwise conv or pool reading
// such a result runs on that cluster too (`tile`). No copy between the clusters, no halo.
bool one_cluster_wins(const Module& m, const ChannelSplitCost& c);

}  // namespace nnef::vpu::ir
