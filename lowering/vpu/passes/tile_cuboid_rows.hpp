// The rows per tile of an NCE layer split over rows, moved to a multiple of the NCE's cuboid height
// where that costs its busiest cluster less (lowering/vpu/passes/tile_cuboid_rows.cpp). The DPU
// works on 4x4x16 cuboids (specs/vpu-target.md section 4: the output plane is padded to multiples
// of 4 in height and width), so a tile of 2 or 3 rows costs as much as one of 4. `tile` takes a
// layer's row split from the previous layer's (so that results stay in CMX for it, or its input
// rows lie in the producer's held rows), and a split made for SHAVE kernels (ConvNeXt's GELU in 3-
// or 2-row parts) then gave the MLP convs and 7x7 depthwise convs after it tiles of 2 or 3 rows:
// stage 4's second MLP conv 64 tiles of 2 and 1 rows where 32 of 4 and 3 rows fit, twice its work.
#pragma once
#include <array>
#include <cstdint>
#include <functional>

#include "lowering/vpu/ir.hpp"

namespace nnef::vpu::ir {

// The NCE cycles of a tile of `rows` rows (all of the tile's other dimensions fixed by the caller).
using RowCycles = std::function<std::int64_t(std::int64_t rows)>;

// The busiest cluster's cycles when `OH` rows are split into tiles of `rows` (the last fewer),
// dealt round `clusters` clusters, each row tile taking `ch_tiles` channel chunks of `cycles`.
std::int64_t busiest_cluster_cycles(std::int64_t OH, std::int64_t rows, std::int64_t clusters, std::int64_t ch_tiles, const RowCycles& cycles);

// The rows per tile to use instead of `rows`: of `rows` and the two multiples of the cuboid height
// (`cuboid`) next to it (at least one cuboid, below OH) that fit (`fits`) and give at least
// min(clusters, current row tiles) row tiles, the one whose busiest cluster's cycles are least;
// `rows` itself on a tie, and when the gain is below 1/16 of its cycles (so that a split another
// layer shares is not given up for little).
std::int64_t cuboid_rows(std::int64_t OH, std::int64_t rows, std::int64_t cuboid, std::int64_t clusters, std::int64_t ch_tiles,
                         const std::function<bool(std::int64_t)>& fits, const RowCycles& cycles);

// The plane [h, w] (h * w == rows * width) on which a pointwise NCE task (an eltwise, or a 1x1
// conv or pool of stride 1 and no padding) over `rows` full rows of `width` pixels pads least to
// the cuboid (`cuboid` x `cuboid` pixels): such a task's pixels are independent and its boxes
// contiguous over them, so any plane of the same pixels in the same order computes the same
// values. ConvNeXt's GELU parts of one row of 28 pixels cost what 4 x 28 do, as 4 x 7 what 4 x 8
// do; its second MLP conv's tiles of 2 x 56 pixels nothing more as 4 x 28. The given plane on a tie.
std::array<std::int64_t, 2> cuboid_plane(std::int64_t rows, std::int64_t width, std::int64_t cuboid);

}  // namespace nnef::vpu::ir
