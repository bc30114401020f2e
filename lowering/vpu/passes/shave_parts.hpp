// How the SHAVE kernels and copies of the VPU IR split into tiles (lowering/vpu/passes/shave_parts.cpp):
// which output dimensions a layer may be split along, and what one tile reads, writes and computes.
// `tile` chooses the tiles with it, `schedule` emits each tile's task from it, so both agree.
//
// A dimension of the output is split in one of two ways:
//  - plain: every operand that has the dimension in full is sliced like the output (element-wise
//    kernels, reductions along another axis, channels of a pool); TABLE reads its table whole,
//    GATHER its values (split over the indices) or its indices (split over the channels) whole;
//    MATMUL slices A over its rows and reads B whole, or slices B over its columns and reads A whole;
//  - window: the kernel reads a window of its input along the dimension (PAD, and the TOSA kernels
//    CONV2D, DEPTHWISE_CONV2D, AVG_POOL2D, MAX_POOL2D over height and width). A tile of output
//    indices [o0, o1) reads the input indices its window covers (the halo with them), and its own
//    padding (the part of the layer's padding that falls inside the tile) replaces the layer's.
// Operands of one element (PAD's pad value, zero points) and the weights and bias of a
// convolution are read whole by every tile.
#pragma once
#include <cstdint>
#include <optional>
#include <vector>

#include "lowering/vpu/ir.hpp"

namespace nnef::vpu::ir {

enum class SplitUse : std::uint8_t { sliced, whole, window };

// How each operand of layer `l` (SHAVE or copy) is read when the output is split along `dim`, or
// empty when it may not be split there.
std::vector<SplitUse> split_uses(const Layer& l, int dim);

// One tile's task: the boxes it reads (DDR views) and writes, and the kernel with the tile's own
// parameters (a window split changes the padding).
struct ShavePart {
    std::vector<View> inputs;
    View output;
    ShaveKernel kernel;
};
ShavePart shave_part(const Module& m, const Layer& l, const Tile& tl);

// The tiles of SHAVE or copy layer `li` (SHAVE kernels and copies), appended to m.tiles: whole when
// its operands and result fit `budget` and the kernel is short, else split along the outermost
// dimension that may be split and gives parts that fit. A long SHAVE kernel (`shave_parts_wanted`)
// splits into that many parts at least, one per SHAVE engine, so that every engine of every
// cluster works on it (as the NCE layers' tiles keep both NCEs busy); parts are dealt round the
// clusters from cluster 0 (part k on cluster k mod clusters, as an NCE layer's row tiles).
// `rows` in: the rows per tile of the previous layer when this one reads its result (0: none),
// taken for a split over dimension 1 when it gives at least as many parts that fit, so the
// parts read that result where it was computed; out: the rows per part of a split over
// dimension 1 of a rank-4 result over every cluster (else 0), for the next layer to take.
// False after reporting `does-not-fit`.
bool tile_shave(Module& m, std::size_t li, std::int64_t budget, Diagnostics& diags, std::int64_t& rows);
// The cluster that computed the first input of layer `li` with a producer, when all of that
// producer's tiles are on it (a SHAVE kernel run whole there reads its input without a copy
// between the clusters); none otherwise.
std::optional<std::int64_t> whole_on_cluster(const Module& m, std::size_t li);

// How many parts a SHAVE kernel of layer `l` is worth splitting into for the engines' sake: one
// per SHAVE engine of the target (clusters x shave_per_cluster), fewer when a part would do less
// than four times the kernel overhead of work; 1 for copies and short kernels.
std::int64_t shave_parts_wanted(const Module& m, const Layer& l);

// Chains of SHAVE layers split over rows (consecutive layers, each reading the previous one's
// result, every one in plain row parts on every cluster) whose rows per part differ all take the
// fewest rows of the chain (each part then fits every layer's budget), part k on cluster
// k mod clusters, so that `schedule` can run the chain part by part (tile_streams.cpp).
void unify_stream_rows(Module& m);

// Such a chain right after a dense NCE conv whose tiles are all rows in chunks of output channels
// (the conv's chunks grouped into at least a part per SHAVE engine) takes channel parts instead
// (SHAVE parts split over dimension 3, NCE tiles of all rows), part k on cluster k mod clusters,
// where that loads the busiest SHAVE engine less (tile_stream_channels.cpp): each part then waits
// only for its own chunks of the conv.
void stream_channel_parts(Module& m);

// The busiest SHAVE engine's cycles of a chain of `kernels` kernels of `work` cycles (without
// their overheads) in `parts` parts dealt round `engines` engines, each part at most `share` of it.
std::int64_t stream_part_cost(std::int64_t parts, std::int64_t engines, double share, std::int64_t work, std::int64_t kernels,
                              std::int64_t overhead);

// Whether the layer before the chain of layers [a, b] (in row parts) can take the chain's parts of
// `rows` rows and lead its streamed run (docs/schedule.md step 42): a dense 1x1 conv (float, stride
// 1, one image, the chain's plane) whose tiles are all of its output channels, whose result only
// the chain reads, and whose tile of `rows` rows with its whole weights and table fits a tile.
bool lead_conv_rows(const Module& m, std::size_t a, std::size_t b, std::int64_t rows);

// Whether NCE layer `l` (of `m`) joins such a chain: it computes each output row from the same
// input row alone, channel by channel (rank 4, one image): an eltwise, a dwconv or (not quantized)
// pool with a 1x1 kernel, stride 1 and no padding (a per-channel scale and bias on the NCE), or a
// channel broadcast (a 1x1 conv of one input channel, float) whose result fits a tile.
bool pointwise_nce(const Module& m, const Layer& l);
// A 1x1 window of stride 1, dilation 1 and no padding.
bool one_by_one(const NceParams& p);

}  // namespace nnef::vpu::ir
