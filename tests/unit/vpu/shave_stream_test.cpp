// Issue 21 point 4 (docs/schedule.md step 7): a chain of element-wise kernels over a tensor larger
// than CMX (ConvNeXt's erf polynomial as the exporter wrote it, its layer norms) runs part by part
// (schedule_stream.cpp): its intermediates stay in CMX for one part of the chain instead of going
// to DDR and back, each part's chain on one SHAVE engine; the chain's parts take equal rows
// (tile_streams.cpp), NCE eltwise, 1x1 depthwise and 1x1 pool layers among them. A MATMUL with constant weights runs as an NCE 1x1 conv on a plane of its rows
// whose padding to 4x4 cuboids is least (56 x 56 for 3136 rows, not 3136 x 1). The NCE layers after
// a run (step 10: ConvNeXt's second MLP conv and residual add after the GELU) go tile by tile between
// the run's waves, each tile as soon as the waves have written the rows it reads, so that the NCE
// computes them while the SHAVE engines run the next waves; before, they came after the run's last
// wave, NCE and SHAVE work of a block one after the other.
#include <doctest/doctest.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "unit/vpu/compile_support.hpp"
#include "unit/vpu/dma_count.hpp"
#include "unit/vpu/elementwise_ops.hpp"

namespace shave_stream_test {

using namespace vpu_compile_support;
using Attrs = std::vector<std::pair<AttrName, Attr>>;
using I = std::vector<std::int64_t>;

ValueId scalar4(Graph& g, unsigned seed) { return constant(g, {1, 1, 1, 1}, seed, 0.5f); }

// The shape of the erf polynomial of NNEF-Tools' exported ConvNeXt: t = 1 / (1 + a |x|),
// p = t (b + t (c + t d)) (constants times tensors on SHAVE, tensor times tensor on the NCE),
// e = exp(-x x), z = p e + x. x and t are read long after they are made.
// With `dw`, t's first scale and bias is a 1x1 DEPTHWISE_CONV2D (per-channel constants: the NCE
// form of an affine step) instead of SHAVE MUL and ADD; with `pool`, p passes a 1x1 MAX_POOL2D
// (an NCE 1x1 maxpool, the form fuse-post-ops may give a scale or shift) before its last product.
Graph erf_like(std::int64_t H, std::int64_t W, std::int64_t C, bool dw = false, bool pool = false) {
    const I s{1, H, W, C};
    Graph g;
    g.name = "erf_like";
    const ValueId x = g.add_value(f32(s), "x");
    g.main().inputs = {x};
    const ValueId ax = mul(g, unary(g, OpKind::ABS, x, s), fixed(g, 0.3275911f), s);
    const ValueId t = unary(g, OpKind::RECIPROCAL, add(g, ax, fixed(g, 1.0f), s), s);
    ValueId p = dw ? g.add_op(0, OpKind::DEPTHWISE_CONV2D, {t, constant(g, {1, 1, C, 1}, 2, 0.5f), constant(g, {C}, 3, 0.5f), zero(g), zero(g)},
                              {f32(s)},
                              {{AttrName::pad, I{0, 0, 0, 0}}, {AttrName::stride, I{1, 1}}, {AttrName::dilation, I{1, 1}},
                               {AttrName::acc_type, AccType::FP32}})
                         .outputs[0]
                   : add(g, mul(g, t, scalar4(g, 2), s), scalar4(g, 3), s);
    p = add(g, mul(g, p, t, s), scalar4(g, 4), s);
    if (pool)
        p = g.add_op(0, OpKind::MAX_POOL2D, {p}, {f32(s)},
                     {{AttrName::kernel, I{1, 1}}, {AttrName::stride, I{1, 1}}, {AttrName::pad, I{0, 0, 0, 0}},
                      {AttrName::nan_mode, NanMode::PROPAGATE}})
                .outputs[0];
    p = mul(g, p, t, s);
    const ValueId e = unary(g, OpKind::EXP, mul(g, mul(g, x, fixed(g, -1.0f), s), x, s), s);
    const ValueId z = add(g, mul(g, p, e, s), x, s);
    g.values[z].name = "z";
    g.main().outputs = {z};
    return g;
}

ValueId conv1x1(Graph& g, ValueId x, std::int64_t in, std::int64_t out, const I& plane, unsigned seed) {
    const Attrs attrs = {{AttrName::pad, I{0, 0, 0, 0}}, {AttrName::stride, I{1, 1}}, {AttrName::dilation, I{1, 1}}, {AttrName::acc_type, AccType::FP32}};
    return g.add_op(0, OpKind::CONV2D, {x, constant(g, {out, 1, 1, in}, seed, 0.1f), constant(g, {out}, seed + 1, 0.1f), zero(g), zero(g)},
                    {f32({1, plane[0], plane[1], out})}, attrs)
        .outputs[0];
}

// A ConvNeXt-like MLP: x -> 1x1 conv (C -> 4C) -> an element-wise SHAVE chain with NCE products
// (cos where the exporter's erf polynomial had abs on SHAVE, reciprocal, exp) -> 1x1 conv (4C -> C)
// -> + x.
Graph mlp_block(std::int64_t H, std::int64_t W, std::int64_t C) {
    const I s{1, H, W, 4 * C};
    Graph g;
    g.name = "mlp_block";
    const ValueId x = g.add_value(f32({1, H, W, C}), "x");
    g.main().inputs = {x};
    const ValueId h = conv1x1(g, x, C, 4 * C, {H, W}, 1);
    const ValueId t = unary(g, OpKind::RECIPROCAL, add(g, unary(g, OpKind::COS, h, s), fixed(g, 2.0f), s), s);
    const ValueId e = unary(g, OpKind::EXP, mul(g, mul(g, h, fixed(g, -1.0f), s), h, s), s);
    const ValueId z = add(g, mul(g, mul(g, t, e, s), h, s), h, s);
    const ValueId y = add(g, conv1x1(g, z, 4 * C, C, {H, W}, 3), x, {1, H, W, C});
    g.values[y].name = "y";
    g.main().outputs = {y};
    return g;
}


TEST_SUITE("vpu") {
    TEST_CASE("SHAVE chains stream part by part: intermediates of a tensor larger than CMX stay in CMX") {
        // 56 x 56 x 384 fp16 = 2.4 MB per intermediate, 13 intermediates: without streaming each was
        // stored to DDR and loaded again (the held results' budget cannot keep x and t whole)
        const Graph g = erf_like(56, 56, 384);
        const vpu::Target t;
        vpu::TaskList list;
        compile_and_check(g, t, nullptr, &list);  // values: the interpreter's
        const auto dma = vpu_test::count_dma(list);
        MESSAGE("erf-like chain on 56x56x384: " << dma.spills << " stores to DDR");
        CHECK(dma.spills == 0);
        // every kernel of the chain in the same row parts, each part's kernels on one SHAVE engine
        std::map<std::string, std::set<std::pair<std::int64_t, std::string>>> parts;  // kernel -> (rows, queue)
        for (const auto& task : list.tasks)
            if (task.kind == vpu::TaskKind::SHAVE) parts[task.op].insert({task.writes[0].shape[1], task.queue});
        REQUIRE(parts.count("exp"));
        // rows chosen so that the parts fall evenly on the four engines (56 rows: 28 parts of 2, not
        // 19 parts of 3, which put 5 on three engines and 4 on the fourth)
        std::map<std::string, int> per_queue;
        for (const auto& task : list.tasks)
            if (task.op == "exp") ++per_queue[task.queue];
        CHECK(per_queue.size() == 4);
        for (const auto& entry : per_queue) {  // not a structured binding: clang 14 cannot CAPTURE one
            const std::string& queue = entry.first;
            CAPTURE(queue);
            CHECK(entry.second == per_queue.begin()->second);
        }
        for (const auto& entry : parts) {
            const std::string& op = entry.first;
            CAPTURE(op);
            CHECK(entry.second == parts.at("exp"));
        }
        Diagnostics d{0};
        const auto r = vpu::simulate(list, t, {}, d);
        REQUIRE(r.valid);
        MESSAGE("makespan " << r.makespan << " cycles, busiest engine " << r.bound.engine);
        // 1.258x with the chain's multiplication by -1 an NCE 1x1 maxpool (scale_shift_nce.cpp: its
        // part waits for the NCE between two SHAVE kernels); 1.25x with all of it on SHAVE
        CHECK(r.makespan < 1.30 * r.bound.engine);
    }

    TEST_CASE("SHAVE chains stream through 1x1 depthwise convs and 1x1 pools (per-channel scales and biases on the NCE)") {
        for (const char* op : {"dwconv", "maxpool"}) {
            CAPTURE(op);
            const bool dw = std::string(op) == "dwconv";
            const Graph g = erf_like(56, 56, 384, dw, !dw);
            const vpu::Target t;
            vpu::TaskList list;
            compile_and_check(g, t, nullptr, &list);
            CHECK(vpu_test::count_dma(list).spills == 0);
            // the NCE layer in the chain's row parts (their pixels, on the plane that pads least:
            // docs/schedule.md step 30), all channels each
            std::set<std::int64_t> nce_pixels, exp_pixels;
            for (const auto& task : list.tasks) {
                if (task.op == op) {
                    CHECK(task.writes[0].shape[3] == 384);
                    nce_pixels.insert(task.writes[0].shape[1] * task.writes[0].shape[2]);
                }
                if (task.op == "exp") exp_pixels.insert(task.writes[0].shape[1] * task.writes[0].shape[2]);
            }
            CHECK_FALSE(nce_pixels.empty());
            CHECK(nce_pixels == exp_pixels);
        }
    }

    TEST_CASE("a MATMUL with constant weights runs on the NCE over a square plane of its rows") {
        // [1,3136,96] x [1,96,64]: as a 56 x 56 plane each NCE task pads nothing (3136 x 1 padded
        // every row to 4 columns: four times the work)
        Graph g;
        g.name = "matmul_plane";
        const ValueId x = g.add_value(f32({1, 3136, 96}), "x");
        g.main().inputs = {x};
        const ValueId y = g.add_op(0, OpKind::MATMUL, {x, constant(g, {1, 96, 64}, 5, 0.1f), zero(g), zero(g)}, {f32({1, 3136, 64})}).outputs[0];
        g.values[y].name = "y";
        g.main().outputs = {y};
        const vpu::Target t;
        vpu::TaskList list;
        compile_and_check(g, t, nullptr, &list);
        // (each task rows of the 56 x 56 plane, on the plane of its pixels that pads least: step 30)
        std::int64_t pixels = 0, cycles = 0;
        for (const auto& task : list.tasks)
            if (task.kind == vpu::TaskKind::NCE) {
                CHECK(task.writes[0].shape[1] * task.writes[0].shape[2] % 56 == 0);
                pixels += task.writes[0].shape[1] * task.writes[0].shape[2];
                cycles += task.cycles;
            }
        CHECK(pixels == 3136);
        // the work at the DPU's rate (every row and column a multiple of 4 but the last tile's rows)
        // plus each task's overhead: under 1.2x the work
        const double work = 3136.0 * 96 * 64 / double(t.nce_macs_per_cycle.fp16);
        MESSAGE("NCE cycles " << cycles << " for " << work << " cycles of MACs");
        CHECK(double(cycles) < 1.5 * work + 300.0 * 8);
    }

    TEST_CASE("the NCE layers after a streamed SHAVE run go between its waves, beside the SHAVE work") {
        const std::int64_t H = 56, W = 56, C = 96;
        const Graph g = mlp_block(H, W, C);
        const vpu::Target t;
        vpu::TaskList list;
        const auto r = compile_check_and_time(g, t, list);
        // the second conv's tasks (writing C channels) and the residual add's, against the chain's exp
        std::vector<std::size_t> conv2, exp;
        std::size_t adds = 0;
        for (std::size_t i = 0; i < list.tasks.size(); ++i) {
            const auto& task = list.tasks[i];
            if (task.op == "conv" && task.writes[0].shape[3] == C) conv2.push_back(i);
            if (task.op == "exp") exp.push_back(i);
            if (task.op == "eltwise" && task.writes[0].shape[3] == C) ++adds;
        }
        REQUIRE(conv2.size() >= 2);
        REQUIRE(exp.size() >= 8);
        CHECK(adds >= 2);
        // in program order, the conv's first tiles come before the run's last wave
        CHECK(conv2.front() < exp.back());
        // in time: most of the conv's tiles end before the last exp part starts (the last waves' rows
        // alone are left for after the run)
        const double last_exp = r.times[exp.back()].start;
        const auto before = std::count_if(conv2.begin(), conv2.end(), [&](std::size_t i) { return r.times[i].end <= last_exp; });
        MESSAGE("second conv: " << before << " of " << conv2.size() << " tiles done before the last exp part starts; makespan "
                                << r.makespan << ", busiest engine " << r.bound.engine);
        CHECK(2 * std::size_t(before) >= conv2.size());
        // and what is left after the run's last SHAVE task is a fraction of the conv's and add's NCE work
        // (all of it came after the run before)
        double after_work = 0.0;
        for (std::size_t i = 0; i < list.tasks.size(); ++i)
            if (list.tasks[i].kind == vpu::TaskKind::NCE && list.tasks[i].writes[0].shape[3] == C) after_work += double(r.cycles[i]);
        double shave_end = 0.0;
        for (std::size_t i = 0; i < list.tasks.size(); ++i)
            if (list.tasks[i].kind == vpu::TaskKind::SHAVE) shave_end = std::max(shave_end, r.times[i].end);
        MESSAGE("after the last SHAVE task: " << r.makespan - shave_end << " cycles; the conv's and add's NCE work " << after_work);
        CHECK(r.makespan - shave_end < 0.25 * after_work);
    }
}

}  // namespace shave_stream_test
