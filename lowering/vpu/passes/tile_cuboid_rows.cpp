// tile (lowering/vpu/ir.hpp): row splits on the NCE's cuboid height (tile_cuboid_rows.hpp).
#include "lowering/vpu/passes/tile_cuboid_rows.hpp"

#include <algorithm>
#include <utility>
#include <vector>

namespace nnef::vpu::ir {

std::int64_t busiest_cluster_cycles(std::int64_t OH, std::int64_t rows, std::int64_t clusters, std::int64_t ch_tiles, const RowCycles& cycles) {
    if (rows <= 0 || OH <= 0 || clusters <= 0) return 0;
    std::vector<std::int64_t> per(std::size_t(clusters), 0);
    std::int64_t k = 0;
    for (std::int64_t r0 = 0; r0 < OH; r0 += rows) per[std::size_t(k++ % clusters)] += ch_tiles * cycles(std::min(rows, OH - r0));
    return *std::max_element(per.begin(), per.end());
}

std::int64_t cuboid_rows(std::int64_t OH, std::int64_t rows, std::int64_t cuboid, std::int64_t clusters, std::int64_t ch_tiles,
                         const std::function<bool(std::int64_t)>& fits, const RowCycles& cycles) {
    if (rows <= 0 || rows >= OH || cuboid <= 1 || rows % cuboid == 0) return rows;
    const std::int64_t tiles_now = (OH + rows - 1) / rows;
    const std::int64_t least_tiles = std::min(clusters, tiles_now);
    const std::int64_t now = busiest_cluster_cycles(OH, rows, clusters, ch_tiles, cycles);
    std::int64_t best = rows, best_cost = now;
    // the multiples of the cuboid height next to `rows` (not larger tiles: `tile` chose their number)
    for (std::int64_t r : {std::max(cuboid, rows / cuboid * cuboid), (rows + cuboid - 1) / cuboid * cuboid}) {
        if (r >= OH) continue;
        if ((OH + r - 1) / r < least_tiles || !fits(r)) continue;
        const std::int64_t c = busiest_cluster_cycles(OH, r, clusters, ch_tiles, cycles);
        if (c < best_cost) {
            best = r;
            best_cost = c;
        }
    }
    return now - best_cost >= now / 16 ? best : rows;
}

std::array<std::int64_t, 2> cuboid_plane(std::int64_t rows, std::int64_t width, std::int64_t cuboid) {
    auto padded = [&](std::int64_t h, std::int64_t w) { return (h + cuboid - 1) / cuboid * ((w + cuboid - 1) / cuboid); };
    std::array<std::int64_t, 2> best = {rows, width};
    if (rows <= 0 || width <= 0 || cuboid <= 1) return best;
    const std::int64_t n = rows * width;
    std::int64_t least = padded(rows, width);
    for (std::int64_t h = 1; h * h <= n; ++h) {
        if (n % h != 0) continue;
        for (const auto& [a, b] : {std::pair<std::int64_t, std::int64_t>{h, n / h}, {n / h, h}})
            if (padded(a, b) < least) {
                least = padded(a, b);
                best = {a, b};
            }
    }
    return best;
}

}  // namespace nnef::vpu::ir
