// Issue 21 point 4 (docs/schedule.md step 30): a pixelwise NCE task (an eltwise, or a 1x1 conv or
// pool of stride 1 and no padding) runs on the plane of its pixels that pads least to the DPU's
// 4 x 4 cuboids (tile_cuboid_rows.hpp `cuboid_plane`, schedule.cpp `nce_tile`). ConvNeXt's GELU
// parts of one row of 28 pixels cost what 4 x 28 did; as 4 x 7 they cost what 4 x 8 do. And
// (step 31) a depthwise conv whose row split, taken from the layer before, is 2 or 3 rows takes
// tiles of a multiple of 4 rows where they fit (tile.cpp, tile_cuboid_rows.hpp `cuboid_rows`).
#include <doctest/doctest.h>

#include <array>
#include <cstdint>
#include <map>
#include <set>
#include <vector>

#include "lowering/vpu/passes/tile_cuboid_rows.hpp"
#include "unit/vpu/compile_support.hpp"
#include "unit/vpu/elementwise_ops.hpp"

namespace cuboid_plane_test {

using namespace vpu_compile_support;
using Plane = std::array<std::int64_t, 2>;

// The cuboids a plane pads to.
std::int64_t cuboids(const Plane& p) { return (p[0] + 3) / 4 * ((p[1] + 3) / 4); }


TEST_SUITE("vpu") {
    TEST_CASE("cuboid_plane: the plane of the same pixels that pads least to 4 x 4 cuboids") {
        using nnef::vpu::ir::cuboid_plane;
        // one row of 28 (7 cuboids, a quarter used) -> 4 x 7 (2 cuboids)
        CHECK(cuboid_plane(1, 28, 4) == Plane{4, 7});
        // 2 x 56 (14 cuboids, half used) -> 4 x 28 (7, all used)
        CHECK(cuboid_plane(2, 56, 4) == Plane{4, 28});
        // 14 x 14 (16 cuboids) -> 4 x 49 (13)
        CHECK(cuboid_plane(14, 14, 4) == Plane{4, 49});
        // no better plane: kept as given (7 x 7 = 49 pixels; 8 x 8 already a whole number of cuboids)
        CHECK(cuboid_plane(7, 7, 4) == Plane{7, 7});
        CHECK(cuboid_plane(8, 8, 4) == Plane{8, 8});
        CHECK(cuboid_plane(28, 56, 4) == Plane{28, 56});
        // every plane returned holds the same pixels and pads no more than the one given
        for (std::int64_t h = 1; h <= 20; ++h)
            for (std::int64_t w = 1; w <= 60; ++w) {
                const Plane p = cuboid_plane(h, w, 4);
                CHECK(p[0] * p[1] == h * w);
                CHECK(cuboids(p) <= cuboids({h, w}));
            }
        // a cuboid of 1 (or nothing to move): as given
        CHECK(cuboid_plane(3, 5, 1) == Plane{3, 5});
        CHECK(cuboid_plane(0, 5, 4) == Plane{0, 5});
    }

    TEST_CASE("pixelwise NCE tasks of one row run as 4-row planes, with the interpreter's values") {
        // x [1, 2, 56, 32] (NHWC): a 1x1 conv to 48 channels, its
        // square (eltwise x * x) and its sum with the conv's result; the tiles of these layers
        // take one row per cluster (two rows over two clusters), 56 pixels: 4 x 14 pads to 4 x 16
        // where 1 x 56 padded to 4 x 56
        const std::vector<std::int64_t> s{1, 2, 56, 48};
        Graph g;
        const ValueId x = input_x(g, "one_row", {1, 2, 56, 32});
        const ValueId c = g.add_op(0, OpKind::CONV2D, {x, constant(g, {48, 1, 1, 32}, 31, 0.1f), constant(g, {48}, 32), zero(g), zero(g)},
                                   {f32(s)}, conv_attrs({0, 0, 0, 0}))
                              .outputs[0];
        output_z(g, add(g, mul(g, c, c, s), c, s));
        vpu::TaskList list;
        const vpu::SimulationResult r = compile_check_and_time(g, vpu::Target{}, list);
        int nce = 0, replaned = 0;
        for (const auto& task : list.tasks) {
            if (task.kind != vpu::TaskKind::NCE) continue;
            ++nce;
            REQUIRE(task.writes.size() == 1);
            const auto& o = task.writes[0].shape;
            REQUIRE(o.size() == 4);
            CAPTURE(task.source);
            // each task's pixels: one or two rows of 56, on a plane of 4 rows
            CHECK(o[1] * o[2] % 56 == 0);
            CHECK(o[1] % 4 == 0);
            replaned += o[2] != 56;
            // its cycles: the cost model's for that plane (the simulator checks them too: bad-cycles)
            const std::int64_t chans = (o[3] + 15) / 16 * 16;
            if (task.op == "eltwise") CHECK(task.cycles == 300 + (o[1] + 3) / 4 * 4 * ((o[2] + 3) / 4 * 4) * chans / 64);
        }
        CHECK(nce >= 3);
        CHECK(replaned == nce);
        CHECK(r.makespan > 0);
    }

    TEST_CASE("a 7x7 depthwise conv after a row split of 5 rows takes tiles of 4 rows") {
        // x [1, 56, 56, 384] -> exp (SHAVE, in row parts of 5 rows) -> 1x1 conv to 96 channels
        // (their row split) -> 7x7 depthwise conv, padding 3: its tiles took the conv's row split
        // (5 rows: each two 4-row bands of DPU work)
        const std::vector<std::int64_t> s{1, 56, 56, 384}, s2{1, 56, 56, 96};
        Graph g;
        const ValueId x = input_x(g, "dw_after_parts", s);
        const ValueId e = unary(g, OpKind::EXP, x, s);
        const ValueId c = g.add_op(0, OpKind::CONV2D, {e, constant(g, {96, 1, 1, 384}, 43, 0.05f), constant(g, {96}, 44), zero(g), zero(g)},
                                   {f32(s2)}, conv_attrs({0, 0, 0, 0}))
                              .outputs[0];
        const ValueId d = g.add_op(0, OpKind::DEPTHWISE_CONV2D, {c, constant(g, {7, 7, 96, 1}, 41, 0.05f), constant(g, {96}, 42), zero(g), zero(g)},
                                   {f32(s2)}, conv_attrs({3, 3, 3, 3}))
                              .outputs[0];
        output_z(g, d);
        vpu::ir::Module m;
        graph_until(m, g, "tile");
        std::map<std::string, std::set<std::int64_t>> rows;  // layer kind -> rows of its tiles but the last
        for (const auto& tl : m.tiles) {
            const auto& l = m.layers[std::size_t(tl.layer)];
            const std::string kind = l.exec != vpu::ir::Exec::nce ? "exp" : l.nce_op == vpu::ir::NceOp::conv ? "conv" : "dwconv";
            if (tl.row0 + tl.rows < l.output.shape[1]) rows[kind].insert(tl.rows);
        }
        REQUIRE(rows["conv"].size() == 1);
        REQUIRE(rows["dwconv"].size() == 1);
        INFO("conv tiles of " << *rows["conv"].begin() << " rows, dwconv tiles of " << *rows["dwconv"].begin());
        CHECK(*rows["conv"].begin() % 4 != 0);
        CHECK(*rows["dwconv"].begin() % 4 == 0);
        // and compiled: the interpreter's values, every depthwise task of whole cuboid bands but the last
        vpu::TaskList list;
        compile_and_check(g, vpu::Target{}, nullptr, &list);
        int odd = 0;
        for (const auto& task : list.tasks) odd += task.op == "dwconv" && task.writes[0].shape[1] % 4 != 0;
        CHECK(odd <= 1);
    }
}

}  // namespace cuboid_plane_test
