// Issue 21 point 4 (docs/schedule.md step 16): a dense conv split over rows and over output
// channels takes a multiple of the NCE's cuboid height (4 rows) where a row split taken from the
// layer before (ConvNeXt's GELU parts of 2 or 3 rows) padded each tile to 4 rows
// (tile_cuboid_rows.hpp): ConvNeXt's stage-4 second MLP convs ran 64 tiles of 2 and 1 rows where 32
// of 4 and 3 rows fit.
#include <doctest/doctest.h>

#include <cstdint>

#include "lowering/vpu/passes/tile_cuboid_rows.hpp"

namespace tile_cuboid_rows_test {

// An NCE tile's cycles by its rows: overhead + work per 4-row cuboid band (the cost model's padding).
std::int64_t banded(std::int64_t rows) { return 300 + 1000 * ((rows + 3) / 4); }


TEST_SUITE("vpu") {
    TEST_CASE("a dense conv's row split on the cuboid height: tiles of 2 or 3 rows become 4") {
        using nnef::vpu::ir::busiest_cluster_cycles;
        using nnef::vpu::ir::cuboid_rows;
        auto all = [](std::int64_t) { return true; };
        // ConvNeXt stage 4: 7 rows in tiles of 2 (2, 2, 2, 1: two per cluster, each a full band)
        // -> 4 and 3 (one per cluster): half the busiest cluster's work
        CHECK(busiest_cluster_cycles(7, 2, 2, 16, banded) == 16 * 2 * banded(2));
        CHECK(cuboid_rows(7, 2, 4, 2, 16, all, banded) == 4);
        CHECK(busiest_cluster_cycles(7, 4, 2, 16, banded) == 16 * banded(4));
        // stage 1: 56 rows in tiles of 3 (19 tiles) -> 4 (14 tiles)
        CHECK(cuboid_rows(56, 3, 4, 2, 1, all, banded) == 4);
        // what does not fit stays: only 2 rows fit
        CHECK(cuboid_rows(7, 2, 4, 2, 16, [](std::int64_t r) { return r <= 2; }, banded) == 2);
        // 6 rows: 4 or 8 next to it; 14 rows in tiles of 6 (6, 6, 2: three bands and two overheads
        // on one cluster) -> 8 (8, 6: two bands and one overhead each; 4, 4, 4, 2 has two overheads)
        CHECK(cuboid_rows(14, 6, 4, 2, 1, all, banded) == 8);
        CHECK(cuboid_rows(14, 6, 4, 2, 1, [](std::int64_t r) { return r <= 6; }, banded) == 4);
        // every cluster keeps a row tile: 4 rows in tiles of 3 (3, 1); one tile of 4 would leave a
        // cluster idle
        CHECK(cuboid_rows(4, 3, 4, 2, 1, all, banded) == 3);
        // a multiple of 4 already, or no gain of 1/16: unchanged (7 -> 8 rows: 2 bands either way)
        CHECK(cuboid_rows(56, 8, 4, 2, 1, all, banded) == 8);
        CHECK(cuboid_rows(14, 7, 4, 2, 1, all, banded) == 7);
        // with no bands (cycles by rows alone), 12 rows in 3s against 4s: 2 tiles per cluster either way
        auto flat = [](std::int64_t rows) { return 100000 + rows; };
        CHECK(cuboid_rows(12, 3, 4, 2, 1, all, flat) == 3);
    }
}

}  // namespace tile_cuboid_rows_test
