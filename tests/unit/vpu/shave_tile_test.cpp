// Issue 21: SHAVE kernels too large for a tile's CMX split like NCE layers, over a dimension they
// read a window of (PAD: halo rows and each part's own padding) or one they do not (channels). The
// tiles cover every output element once, each part reads the input rows its window covers, and the
// simulated values equal the TOSA interpreter's.
#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "lowering/vpu/passes/shave_parts.hpp"
#include "unit/vpu/compile_support.hpp"
#include "unit/vpu/dma_count.hpp"

namespace shave_tile_test {

using namespace vpu_compile_support;
namespace ir = nnef::vpu::ir;
using I = std::vector<std::int64_t>;

// x [1,H,W,C] (NHWC) -> PAD (top, bottom, left, right; value `fill`) -> y, then sigmoid(y) -> z (so
// that the padded result is read by another SHAVE kernel, not only stored).
Graph pad_graph(std::int64_t H, std::int64_t W, std::int64_t C, const I& pad, float fill) {
    Graph g;
    g.name = "pad";
    const ValueId x = g.add_value(f32({1, H, W, C}), "x");
    g.main().inputs = {x};
    const std::int64_t OH = H + pad[0] + pad[1], OW = W + pad[2] + pad[3];
    const ValueId padding = g.add_const_shape(0, {0, 0, pad[0], pad[1], pad[2], pad[3], 0, 0});
    auto vc = ConstData::allocate({DType::fp32, {1}});
    vc->mutable_items<float>()[0] = fill;
    const ValueId fillv = g.add_const(0, vc);
    const ValueId y = g.add_op(0, OpKind::PAD, {x, padding, fillv}, {f32({1, OH, OW, C})}).outputs[0];
    g.values[y].name = "y";
    const ValueId z = g.add_op(0, OpKind::SIGMOID, {y}, {f32({1, OH, OW, C})}).outputs[0];
    g.values[z].name = "z";
    g.main().outputs = {y, z};
    return g;
}

// x [1,H,W,C] -> SIGMOID = s -> PAD (rows 1, 1; columns 2, 0) = p -> TANH: z. s and p are SHAVE
// results read only by the next SHAVE kernel.
Graph shave_chain_graph(std::int64_t H, std::int64_t W, std::int64_t C) {
    Graph g;
    g.name = "shave_chain";
    const ValueId x = g.add_value(f32({1, H, W, C}), "x");
    g.main().inputs = {x};
    const ValueId s = g.add_op(0, OpKind::SIGMOID, {x}, {f32({1, H, W, C})}).outputs[0];
    const ValueId padding = g.add_const_shape(0, {0, 0, 1, 1, 2, 0, 0, 0});
    const ValueId p = g.add_op(0, OpKind::PAD, {s, padding, constant(g, {1}, 0, 0.0f)}, {f32({1, H + 2, W + 2, C})}).outputs[0];
    const ValueId z = g.add_op(0, OpKind::TANH, {p}, {f32({1, H + 2, W + 2, C})}).outputs[0];
    g.values[z].name = "z";
    g.main().outputs = {z};
    return g;
}

// The module after `tile` for graph `g` on `target`.
ir::Module tiled(const Graph& g, const vpu::Target& target) {
    ir::Module m;
    m.graph = &g;
    m.target = target;
    m.name = g.name;
    Diagnostics d{0};
    for (const char* pass : {"assign-executors", "fuse-post-ops", "layout-and-types", "tile"}) REQUIRE_MESSAGE(vpu::run_pass(m, pass, d), text(d));
    return m;
}

TEST_SUITE("vpu") {
    TEST_CASE("SHAVE tiling: a PAD too large for a tile splits over rows with halos and its own padding per part") {
        const I pad{2, 3, 1, 4};
        const Graph g = pad_graph(40, 30, 16, pad, 0.25f);
        vpu::Target t;
        t.cmx_bytes = 65536;  // a tile takes 16 KiB; the PAD reads 38400 and writes 55080 bytes
        const ir::Module m = tiled(g, t);
        std::int64_t li = -1;
        for (std::size_t k = 0; k < m.layers.size(); ++k)
            if (m.layers[k].exec == ir::Exec::shave && m.layers[k].shave.name == "pad") li = std::int64_t(k);
        REQUIRE(li >= 0);
        const ir::Layer& l = m.layers[std::size_t(li)];
        const std::int64_t OH = 45, H = 40;
        std::vector<int> covered(std::size_t(OH), 0);
        int parts = 0;
        for (const ir::Tile& tl : m.tiles) {
            if (tl.layer != li) continue;
            ++parts;
            REQUIRE(tl.split_dim == 1);  // the outermost dimension: rows, a window (padded)
            for (std::int64_t r = tl.row0; r < tl.row0 + tl.rows; ++r) ++covered[std::size_t(r)];
            const ir::ShavePart p = ir::shave_part(m, l, tl);
            // the input rows the part reads: its output rows shifted by the top padding, within the input
            const std::int64_t start = tl.row0 - pad[0], end = tl.row0 + tl.rows - pad[0];
            const std::int64_t a = std::clamp<std::int64_t>(start, 0, H), b = std::clamp<std::int64_t>(end, 0, H);
            CAPTURE(tl.row0);
            CAPTURE(tl.rows);
            CHECK(b > a);  // no part is padding only
            CHECK(p.inputs[0].shape == I{1, b - a, 30, 16});
            CHECK(p.inputs[0].offset == l.inputs[0].offset + a * l.inputs[0].strides[1]);
            CHECK(p.inputs[1].elements() == 1);  // the pad value, whole
            CHECK(p.output.shape == I{1, tl.rows, 35, 16});
            REQUIRE(p.kernel.shape_constants.size() == 1);
            CHECK(p.kernel.shape_constants[0].second == I{0, 0, a - start, end - b, 1, 4, 0, 0});
            // every part fits a tile's share of CMX
            CHECK((p.inputs[0].elements() + 1 + p.output.elements()) * 2 <= ir::tile_budget(t));
        }
        CHECK(parts > 2);
        CHECK(std::count(covered.begin(), covered.end(), 1) == OH);
        // and the values through the simulator equal the interpreter's (the padding value, the
        // halo rows), on the small CMX and on the default one (a single part)
        compile_and_check(g, t);
        compile_and_check(g, vpu::Target{});
    }

    TEST_CASE("SHAVE tiling: a part of a padded dimension that would be padding only joins its neighbour") {
        // 8 rows of padding above 4 input rows, 6 below: parts of few rows would read no input row
        const Graph g = pad_graph(4, 32, 16, I{8, 6, 0, 0}, -1.0f);
        vpu::Target t;
        t.cmx_bytes = 65536;
        const ir::Module m = tiled(g, t);
        for (std::size_t li = 0; li < m.layers.size(); ++li) {
            if (m.layers[li].shave.name != "pad" || m.layers[li].exec != ir::Exec::shave) continue;
            std::int64_t rows = 0, parts = 0;
            for (const ir::Tile& tl : m.tiles)
                if (tl.layer == std::int64_t(li)) {
                    CHECK(tl.split_dim == 1);
                    CHECK(ir::shave_part(m, m.layers[li], tl).inputs[0].shape[1] > 0);
                    // the first part takes the 8 rows of padding and at least one input row
                    if (tl.row0 == 0) CHECK(tl.rows > 8);
                    rows += tl.rows;
                    ++parts;
                }
            CHECK(parts > 1);
            CHECK(rows == 18);
        }
        compile_and_check(g, t);
    }

    TEST_CASE("SHAVE parts per engine: a long kernel runs on every SHAVE engine of every cluster, a short one whole") {
        // sigmoid of [1,32,32,64] (2 cycles per element: 131 K cycles whole) then tanh of its result
        const auto chain = [](std::int64_t H) {
            Graph g;
            g.name = "sigmoid_tanh";
            const ValueId x = g.add_value(f32({1, H, 32, 64}), "x");
            g.main().inputs = {x};
            const ValueId s = g.add_op(0, OpKind::SIGMOID, {x}, {f32({1, H, 32, 64})}).outputs[0];
            const ValueId z = g.add_op(0, OpKind::TANH, {s}, {f32({1, H, 32, 64})}).outputs[0];
            g.values[z].name = "z";
            g.main().outputs = {z};
            return g;
        };
        const vpu::Target t;
        const Graph g = chain(32);
        const ir::Module m = tiled(g, t);
        for (const ir::Layer& l : m.layers) {
            if (l.exec != ir::Exec::shave) continue;
            CHECK(ir::shave_parts_wanted(m, l) == t.clusters * t.shave_per_cluster);
        }
        vpu::TaskList list;
        compile_and_check(g, t, nullptr, &list);  // values: the interpreter's
        std::map<std::string, std::set<std::string>> queues;  // kernel -> the queues of its parts
        std::map<std::string, std::set<std::string>> pieces;  // kernel -> the CMX buffers its parts write
        for (const auto& task : list.tasks)
            if (task.kind == vpu::TaskKind::SHAVE) {
                queues[task.op].insert(task.queue);
                pieces[task.op].insert(task.writes[0].buffer);
            }
        CHECK(queues["sigmoid"] == std::set<std::string>{"SHAVE0.0", "SHAVE0.1", "SHAVE1.0", "SHAVE1.1"});
        CHECK(queues["tanh"] == queues["sigmoid"]);
        CHECK(pieces["sigmoid"].size() == 4);
        // the sigmoid's result stays in CMX for the tanh (held pieces, read where computed): no spill
        CHECK(vpu_test::count_dma(list).spills == 0);
        // both kernels in parallel parts: well under the two kernels' whole cost one after the other
        Diagnostics d{0};
        const auto r = vpu::simulate(list, t, {}, d);
        REQUIRE(r.valid);
        const double whole = double(vpu::shave_cycles(t, "sigmoid", 32 * 32 * 64) + vpu::shave_cycles(t, "tanh", 32 * 32 * 64));
        MESSAGE("sigmoid + tanh of 65536 elements: makespan " << r.makespan << " cycles, the kernels whole one after the other " << whole);
        CHECK(r.makespan < 0.5 * whole);
        // a short kernel (2 rows: 8 K cycles, less than 4x the overhead per part at 2 parts) stays whole
        const Graph small = chain(2);
        const ir::Module ms = tiled(small, t);
        for (const ir::Layer& l : ms.layers)
            if (l.exec == ir::Exec::shave) CHECK(ir::shave_parts_wanted(ms, l) == 1);
        compile_and_check(small, t);
    }

    TEST_CASE("SHAVE parts: a short kernel after a layer split over rows across the clusters takes its row split") {
        // x [1, 14, 14, 384] -> 7x7 depthwise conv (NCE, row tiles dealt round the clusters) -> the sum
        // over channels (SHAVE, 196 items: short, once whole on one cluster, gathering the other
        // cluster's rows by copies; docs/schedule.md step 33) -> z [1, 14, 14, 1]
        const I s{1, 14, 14, 384}, n{1, 14, 14, 1};
        Graph g;
        g.name = "dw_sum";
        const ValueId x = g.add_value(f32(s), "x");
        g.main().inputs = {x};
        const ValueId d = g.add_op(0, OpKind::DEPTHWISE_CONV2D, {x, constant(g, {7, 7, 384, 1}, 51, 0.05f), constant(g, {384}, 52), zero(g), zero(g)},
                                   {f32(s)}, conv_attrs({3, 3, 3, 3}))
                              .outputs[0];
        const ValueId z = g.add_op(0, OpKind::REDUCE_SUM, {d}, {f32(n)}, {{AttrName::axis, std::int64_t(3)}}).outputs[0];
        g.values[z].name = "z";
        g.main().outputs = {z};
        const vpu::Target t;
        const ir::Module m = tiled(g, t);
        std::map<ir::Exec, std::vector<std::array<std::int64_t, 3>>> parts;  // row0, rows, cluster
        for (const ir::Tile& tl : m.tiles) parts[m.layers[std::size_t(tl.layer)].exec].push_back({tl.row0, tl.rows, tl.cluster});
        REQUIRE(parts[ir::Exec::nce].size() >= 2);
        CHECK(ir::shave_parts_wanted(m, m.layers.back()) == 1);
        CHECK(parts[ir::Exec::shave] == parts[ir::Exec::nce]);
        vpu::TaskList list;
        compile_and_check(g, t, nullptr, &list);  // values: the interpreter's
        // each part reads its rows where they were computed: no copy between the clusters
        CHECK(vpu_test::count_dma(list).cross == 0);
    }

    TEST_CASE("SHAVE results read by the next kernels stay in CMX (no store, no load), whole or in parts") {
        // on the default target each kernel runs in a part per SHAVE engine (over rows, each part's
        // rows on the cluster of the producing part's rows) and both intermediate results are held
        Diagnostics d{0};
        const auto list = vpu::compile(shave_chain_graph(20, 24, 32), vpu::Target{}, {}, d);
        INFO(text(d));
        REQUIRE(list);
        CHECK(vpu_test::count_dma(*list).spills == 0);
        compile_and_check(shave_chain_graph(20, 24, 32), vpu::Target{});
        // on a 128 KiB CMX the kernels run in parts (the PAD's with halos); the results are held in
        // pieces while they fit, and go through DDR on a smaller CMX; the values are right throughout
        for (std::int64_t kb : {24, 48, 128}) {
            vpu::Target t;
            t.cmx_bytes = kb * 1024;
            CAPTURE(kb);
            compile_and_check(shave_chain_graph(20, 24, 32), t);
        }
        vpu::Target t;
        t.cmx_bytes = 128 * 1024;
        const auto parts = vpu::compile(shave_chain_graph(20, 24, 32), t, {}, d);
        REQUIRE(parts);
        int pads = 0;
        for (const auto& task : parts->tasks) pads += task.op == "pad";
        CHECK(pads > 1);
        CHECK(vpu_test::count_dma(*parts).spills == 0);
    }
}

// A PRO-INT graph of one SHAVE kernel on int8 (and int32) inputs, compiled on a CMX of `cmx_kb`
// KiB, simulated on `inputs`: the number of tasks of kernel `op`, and whether every output code
// equals the TOSA interpreter's.
struct IntRun {
    int parts = 0;
    std::int64_t items = 0, mismatches = 0;
};

IntRun run_int(const Graph& g, std::int64_t cmx_kb, const std::vector<ConstPtr>& inputs, const std::string& op) {
    IntRun r;
    vpu::Target t;
    t.cmx_bytes = cmx_kb * 1024;
    Diagnostics d{0};
    vpu::CompileOptions co;
    co.verify_each = true;
    const auto list = vpu::compile(g, t, co, d);
    INFO(text(d));
    REQUIRE(list);
    for (const auto& task : list->tasks) r.parts += task.op == op;
    const auto want = interpret(g, inputs, {}, d);
    REQUIRE(want);
    vpu::SimulateOptions so;
    so.values = true;
    for (std::size_t i = 0; i < inputs.size(); ++i) so.inputs[g.value(g.main().inputs[i]).name] = inputs[i];
    const auto sim = vpu::simulate(*list, t, so, d);
    INFO(text(d));
    REQUIRE(sim.valid);
    const ConstData& got = *sim.outputs.at("y");
    const ConstData& ref = *(*want)[0];
    REQUIRE(got.type.volume() == ref.type.volume());
    REQUIRE(got.type.dtype == DType::i32);  // the simulator's integer outputs: codes as int32
    REQUIRE(ref.type.dtype == DType::i8);
    for (std::int64_t i = 0; i < ref.type.volume(); ++i) {
        ++r.items;
        r.mismatches += got.items<std::int32_t>()[i] != ref.items<std::int8_t>()[i];
    }
    return r;
}

// int8 codes (or int32 items in [0, bound)) from `seed`
ConstPtr int_items(const TensorType& type, unsigned seed, std::int64_t bound = 256) {
    auto c = ConstData::allocate(type);
    std::uint32_t s = seed * 2654435761u + 7;
    for (std::int64_t i = 0; i < c->type.volume(); ++i) {
        s = s * 1664525u + 1013904223u;
        const std::int64_t v = std::int64_t((s >> 8) % std::uint32_t(bound));
        if (type.dtype == DType::i8) c->mutable_items<std::int8_t>()[i] = std::int8_t(v - 128);
        else c->mutable_items<std::int32_t>()[i] = std::int32_t(v);
    }
    return c;
}

TEST_SUITE("vpu") {
    TEST_CASE("SHAVE tiling: an int8 TABLE too large for a tile splits, every part reading the whole table (EfficientNet-B1's sigmoid)") {
        Graph g;
        g.name = "table";
        g.profile = Profile::pro_int;
        const TensorType xt{DType::i8, {1, 48, 40, 32}};
        const ValueId x = g.add_value(xt, "x");
        g.main().inputs = {x};
        const ValueId table = g.add_const(0, int_items({DType::i8, {256}}, 3));
        const ValueId y = g.add_op(0, OpKind::TABLE, {x, table}, {xt}).outputs[0];
        g.values[y].name = "y";
        g.main().outputs = {y};
        // 61440 bytes in, 61440 out: on the default target at most one part per SHAVE engine (a long
        // kernel is dealt over the engines for speed, not for room); on a 96 KiB CMX more parts,
        // because the whole does not fit a tile
        const std::vector<ConstPtr> in{int_items(xt, 5)};
        const IntRun whole = run_int(g, 1936, in, "table");
        CHECK(whole.parts <= 4);
        CHECK(whole.mismatches == 0);
        const IntRun split = run_int(g, 96, in, "table");
        CHECK(split.parts > whole.parts);
        CHECK(split.items == 48 * 40 * 32);
        CHECK(split.mismatches == 0);
    }

    TEST_CASE("SHAVE tiling: a GATHER with computed indices splits over its indices or its channels, the rest read whole") {
        // values [1, K, C] int8, indices [1, W] int32 (graph inputs, so the SHAVE kernel runs; constant
        // indices become copies), y [1, W, C]
        const auto graph = [](std::int64_t K, std::int64_t W, std::int64_t C) {
            Graph g;
            g.name = "gather";
            g.profile = Profile::pro_int;
            const ValueId x = g.add_value({DType::i8, {1, K, C}}, "x");
            const ValueId idx = g.add_value({DType::i32, {1, W}}, "idx");
            g.main().inputs = {x, idx};
            const ValueId y = g.add_op(0, OpKind::GATHER, {x, idx}, {{DType::i8, {1, W, C}}}).outputs[0];
            g.values[y].name = "y";
            g.main().outputs = {y};
            return g;
        };
        // many indices into a small table of values: split over the indices (dimension 1)
        {
            const Graph g = graph(64, 2048, 16);
            const IntRun r = run_int(g, 96, {int_items({DType::i8, {1, 64, 16}}, 1), int_items({DType::i32, {1, 2048}}, 2, 64)}, "gather");
            CHECK(r.parts > 1);
            CHECK(r.mismatches == 0);
        }
        // few indices into wide values: split over the channels (dimension 2)
        {
            const Graph g = graph(64, 8, 1024);
            const IntRun r = run_int(g, 96, {int_items({DType::i8, {1, 64, 1024}}, 3), int_items({DType::i32, {1, 8}}, 4, 64)}, "gather");
            CHECK(r.parts > 1);
            CHECK(r.mismatches == 0);
        }
        // the uses per dimension
        ir::Layer l;
        l.exec = ir::Exec::shave;
        l.shave.name = "gather";
        l.inputs.resize(2);
        l.inputs[0].shape = {1, 64, 16};
        l.inputs[1].shape = {1, 2048};
        l.output.shape = {1, 2048, 16};
        CHECK(ir::split_uses(l, 0) == std::vector<ir::SplitUse>{ir::SplitUse::sliced, ir::SplitUse::sliced});
        CHECK(ir::split_uses(l, 1) == std::vector<ir::SplitUse>{ir::SplitUse::whole, ir::SplitUse::sliced});
        CHECK(ir::split_uses(l, 2) == std::vector<ir::SplitUse>{ir::SplitUse::sliced, ir::SplitUse::whole});
    }

    TEST_CASE("SHAVE tiling: a kernel that cannot split names its kernel in the error") {
        // TILE repeats its input: its output indices are not its input's, so it does not split
        Graph g;
        g.name = "tile";
        const ValueId x = g.add_value(f32({1, 64, 64, 8}), "x");
        g.main().inputs = {x};
        const ValueId s = g.add_op(0, OpKind::SIGMOID, {x}, {f32({1, 64, 64, 8})}).outputs[0];
        const ValueId multiples = g.add_const_shape(0, {1, 1, 1, 4});
        const ValueId y = g.add_op(0, OpKind::TILE, {s, multiples}, {f32({1, 64, 64, 32})}).outputs[0];
        g.values[y].name = "y";
        g.main().outputs = {y};
        vpu::Target t;
        t.cmx_bytes = 64 * 1024;
        Diagnostics d{0};
        CHECK_FALSE(vpu::compile(g, t, {}, d));
        const std::string e = text(d);
        CHECK(e.find("(SHAVE tile) needs") != std::string::npos);
        CHECK(e.find("(SHAVE )") == std::string::npos);
    }
}

}  // namespace shave_tile_test
