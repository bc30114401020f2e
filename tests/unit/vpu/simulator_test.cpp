// The simulator on hand-written task lists: timing against hand-computed figures, values against
// the convolution formula, and each rule of spec section 5 broken on purpose.
#include <doctest/doctest.h>

#include <cmath>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <tuple>

#include "common/compare.hpp"
#include "lowering/vpu/simulator.hpp"
#include "lowering/vpu/svg.hpp"
#include "vpu_fixtures.hpp"

using namespace nnef::vpu;

namespace simulator_test {

struct Run {
    SimulationResult result;
    nnef::Diagnostics diags{0};
    std::string messages() const {
        std::string s;
        for (const auto& d : diags) s += d.code + ": " + d.message + "\n";
        return s;
    }
    bool has(const std::string& code, const std::string& text) const {
        for (const auto& d : diags)
            if (d.code == code && d.message.find(text) != std::string::npos) return true;
        return false;
    }
};

Run simulate_list(const TaskList& l, bool values = false, const Target* target = nullptr) {
    Run r;
    SimulateOptions o;
    o.values = values;
    if (values) o.inputs["x"] = vpu_test::conv_input();
    r.result = simulate(l, target ? *target : l.target, o, r.diags);
    return r;
}

// A valid run whose bound has these four terms, `binding` binding, and is at most the makespan.
void check_bound(const Run& r, double engine, double ddr, double dataflow, double cut, const char* binding) {
    CAPTURE(r.messages());
    REQUIRE(r.result.valid);
    const LowerBound& b = r.result.bound;
    CHECK(b.engine == doctest::Approx(engine));
    CHECK(b.ddr == doctest::Approx(ddr));
    CHECK(b.dataflow == doctest::Approx(dataflow));
    CHECK(b.cut == doctest::Approx(cut));
    CHECK(std::string(b.binding()) == binding);
    CHECK(b.value() <= r.result.makespan * (1 + 1e-12));
}

TEST_SUITE("vpu") {
    TEST_CASE("cost model: the figures of section 4") {
        const Target t;
        // DMA: 600 + bytes / min(32, 48) touching DDR; CMX to CMX at 32.
        CHECK(dma_cycles(t, 64, true) == 602);
        CHECK(dma_cycles(t, 72, true) == 603);  // 72 / 32 = 2.25 -> 3
        CHECK(dma_cycles(t, 75264, true) == 600 + 2352);
        Target slow_ddr;
        slow_ddr.ddr_bytes_per_cycle = 16;
        CHECK(dma_cycles(slow_ddr, 64, true) == 604);
        CHECK(dma_cycles(slow_ddr, 64, false) == 602);
        // conv [1,4,4,2] <- [2,3,3,2]: ceil4(4) * ceil4(4) * align16(2) * 9 * align16(2) = 36864 MACs / 1024.
        CHECK(nce_cycles(t, "conv", false, {1, 4, 4, 2}, {2, 3, 3, 2}, {3, 3}) == 300 + 36);
        CHECK(nce_cycles(t, "conv", true, {1, 4, 4, 2}, {2, 3, 3, 2}, {3, 3}) == 300 + 18);
        // ResNet's first conv: [1,112,112,64] <- [64,7,7,3]: 112*112*64*49*16 / 1024.
        CHECK(nce_cycles(t, "conv", false, {1, 112, 112, 64}, {64, 7, 7, 3}, {7, 7}) == 300 + 614656);
        // Output plane padded to 4x4: 7x7 -> 8x8; depthwise 3x3 on 32 channels: 64 * 32 * 9 / 64.
        CHECK(nce_cycles(t, "dwconv", false, {1, 7, 7, 32}, {}, {3, 3}) == 300 + 288);
        CHECK(nce_cycles(t, "maxpool", false, {1, 7, 7, 20}, {}, {2, 2}) == 300 + 64 * 32 * 4 / 64);
        CHECK(nce_cycles(t, "eltwise", true, {1, 5, 5, 16}, {}, {1, 1}) == 300 + 64 * 16 / 128);
        // SHAVE: 1200 + elements x rate.
        CHECK(shave_cycles(t, "softmax", 1000) == 1200 + 4000);
        CHECK(shave_cycles(t, "reduce_max", 1001) == 1200 + 501);
    }

    TEST_CASE("simulator: a conv with weights DMA'd in, NCE, DMA out") {
        const TaskList l = vpu_test::conv_list();
        Run r = simulate_list(l, true);
        CAPTURE(r.messages());
        REQUIRE(r.result.valid);
        CHECK(r.diags.empty());
        // Hand-computed schedule (default target): DMA0 x and DMA1 w start at 0, 600 cycles of latency,
        // then share DDR (48 / 2 = 24 bytes per cycle < 32): x's 64 bytes end at 600 + 64/24. The table
        // DMA follows on DMA0 (latency until 1202.67, then 32 bytes alone at 32: 1203.67). Meanwhile w
        // has 8 bytes left, now alone at 32: ends at 602.67 + 0.25. NCE0 waits for barrier 0 (1203.67)
        // and runs 336 cycles; the output DMA runs 602.
        const double x_end = 600 + 64.0 / 24.0;
        CHECK(r.result.times[0].end == doctest::Approx(x_end));
        CHECK(r.result.times[1].end == doctest::Approx(x_end + 0.25));
        CHECK(r.result.times[2].start == doctest::Approx(x_end));
        CHECK(r.result.times[2].end == doctest::Approx(x_end + 601));
        CHECK(r.result.times[3].start == doctest::Approx(x_end + 601));
        CHECK(r.result.times[4].end == doctest::Approx(x_end + 601 + 336 + 602));
        CHECK(r.result.makespan == doctest::Approx(2141.0 + 2.0 / 3.0));
        CHECK(r.result.makespan_us == doctest::Approx((2141.0 + 2.0 / 3.0) / 1300.0));
        // The lower bound, each DMA at its shortest (600 + bytes / min(32, 48), unrounded): busiest
        // queue DMA0 = x 602 + table 601 + y 602 (DMA1's w alone: 600 + 72 / 32 = 602.25); DDR 232
        // bytes / 48; dataflow: conv reads x, w and t, y reads conv: w -> conv -> y = 602.25 + 336
        // + 602. The cut along that chain: conv starts after its ancestors x and t on DMA0 (1203),
        // so its end F(conv) = 1203 + 336 and y's F(y) = 1539 + 602 = 2141 (nothing after y). The
        // cut binds, and the run takes longer only by x's share of DDR with w (64 / 24 - 64 / 32 =
        // 2/3). The list's own chain x -> table -> conv -> y is 2141 too.
        CHECK(r.result.bound.engine == 1805);
        CHECK(r.result.bound.engine_queue == "DMA0");
        CHECK(r.result.bound.ddr == doctest::Approx(232.0 / 48.0));
        CHECK(r.result.bound.dataflow == doctest::Approx(602.25 + 336 + 602));
        CHECK(r.result.bound.cut == 2141);
        CHECK(r.result.bound.cut_task == 4);
        CHECK(r.result.bound.cut_before == 2141);
        CHECK(r.result.bound.cut_before_term == "DMA0 before task 3");
        CHECK(r.result.bound.cut_after == 0);
        CHECK(r.result.bound.list_chain == 2141);
        CHECK(r.result.bound.value() == 2141);
        CHECK(std::string(r.result.bound.binding()) == "cut");
        CHECK(r.result.makespan - r.result.bound.value() == doctest::Approx(2.0 / 3.0));
        REQUIRE(r.result.queues.size() == 8);
        CHECK(r.result.queues[0].name == "DMA0");
        CHECK(r.result.queues[0].busy == doctest::Approx(x_end + 601 + 602));
        CHECK(r.result.queues[2].busy == doctest::Approx(336));
        CHECK(r.result.queues[2].share == doctest::Approx(336 / (2141.0 + 2.0 / 3.0)));
        CHECK(r.result.queues[4].tasks == 0);
        CHECK(r.result.ddr.inputs == 64);
        CHECK(r.result.ddr.weights == 72 + 32);
        CHECK(r.result.ddr.outputs == 64);
        CHECK(r.result.ddr.spills == 0);
        // CMX0: x, w, table in use together with y while the conv runs: 64 + 72 + 32 + 64 bytes.
        REQUIRE(r.result.cmx.size() == 2);
        CHECK(r.result.cmx[0].peak == 232);
        CHECK(r.result.cmx[0].high_water == 320);
        CHECK(r.result.cmx[1].peak == 0);
        // Values: the convolution formula (fp16-exact data).
        REQUIRE(r.result.outputs.count("y"));
        const auto& y = *r.result.outputs.at("y");
        CHECK(y.type.shape == nnef::Shape{1, 2, 4, 4});
        const std::vector<float> want = vpu_test::expected_conv_output();
        for (std::size_t i = 0; i < want.size(); ++i) {
            CAPTURE(i);
            CHECK(y.items<float>()[i] == want[i]);
        }
        const std::string report = report_text(l, l.target, r.result);
        CHECK(report.find("makespan: 2142 cycles, 1.65 us at 1300 MHz (5 tasks, 2 barriers)") == 0);
        CHECK(report.find("lower bound: 2141 cycles, cut binds (busiest engine DMA0 1805, DDR bandwidth 5, dataflow chain 1541, cut 2141); "
                          "makespan / bound = 1.000\n"
                          "  cut at task 4 (DMA0 copy 'y'): 2141 cycles up to its end (DMA0 before task 3) + 0 after (chain)\n"
                          "list chain: 2141 cycles (this list's queue order and barriers; not a bound of other orders)\n") !=
              std::string::npos);
        CHECK(report.find("DDR traffic: 232 bytes (inputs 64, weights 104, spills 0, outputs 64)") != std::string::npos);
        const std::string svg = to_svg(l, l.target, r.result);
        CHECK(svg.find("<svg") == 0);
        CHECK(svg.find(">conv</text>") != std::string::npos);  // the NCE box is labelled with its operation
        CHECK(svg.find("#3 NCE0 conv: 1204..1540 cycles") != std::string::npos);
    }

    TEST_CASE("simulator: an fp16 conv's fp32 sums in the datapath's order, every output channel (groups of four and the rest)") {
        // 3 -> 6 channels, 5x5, 3x3 with padding 1, no post-op, an fp32 result; items of many
        // magnitudes, so that another order of the additions or a wrong weight changes fp32 sums.
        // Expected: per output item, sum += x * w over kernel row, column, input channel in fp32,
        // then * scale + bias.
        const std::int64_t CI = 3, C = 6, H = 5, W = 5, K = 3;
        auto fp16 = [](float f) { return nnef::tosa::fp16_to_fp32(nnef::tosa::fp32_to_fp16(f)); };
        auto x_at = [&](std::int64_t c, std::int64_t h, std::int64_t w) {
            return fp16(float(std::ldexp(1.0 + double((c * 37 + h * 11 + w * 7) % 97) / 97.0, int((c + h * 3 + w) % 13) - 6) *
                              ((h + w + c) % 3 == 0 ? -1.0 : 1.0)));
        };
        auto w_at = [&](std::int64_t o, std::int64_t ky, std::int64_t kx, std::int64_t i) {  // OHWI
            return fp16(float(std::ldexp(1.0 + double((o * 53 + ky * 19 + kx * 23 + i * 5) % 89) / 89.0, int((o * 5 + ky + kx * 2 + i) % 11) - 5) *
                              ((o + ky + i) % 2 == 0 ? 1.0 : -1.0)));
        };
        const float scale = 0.75f;
        auto bias_of = [](std::int64_t o) { return 0.125f * float(o) - 0.25f; };
        TaskList l;
        l.graph = "conv6";
        const std::vector<std::int64_t> xs{1, H, W, CI}, ws{C, K, K, CI}, ts{C, 4}, ys{1, H, W, C};
        const std::int64_t xb = H * W * CI * 2, wb = C * K * K * CI * 2, tb = C * 16, yb = H * W * C * 4;
        l.buffers = {vpu_test::buffer("x", Memory::DDR, 0, 0, xb, DataType::fp16, Role::input, "x"),
                     vpu_test::buffer("w", Memory::DDR, 0, 192, wb, DataType::fp16, Role::weights, "filter"),
                     vpu_test::buffer("t", Memory::DDR, 0, 576, tb, DataType::int32, Role::table, "conv"),
                     vpu_test::buffer("y", Memory::DDR, 0, 704, yb, DataType::fp32, Role::output, "y"),
                     vpu_test::buffer("cx", Memory::CMX, 0, 0, xb, DataType::fp16, Role::activation, "x"),
                     vpu_test::buffer("cw", Memory::CMX, 0, 192, wb, DataType::fp16, Role::weights, "filter"),
                     vpu_test::buffer("ct", Memory::CMX, 0, 576, tb, DataType::int32, Role::table, "conv"),
                     vpu_test::buffer("cy", Memory::CMX, 0, 704, yb, DataType::fp32, Role::activation, "y")};
        std::vector<float> wv;
        for (std::int64_t o = 0; o < C; ++o)
            for (std::int64_t ky = 0; ky < K; ++ky)
                for (std::int64_t kx = 0; kx < K; ++kx)
                    for (std::int64_t i = 0; i < CI; ++i) wv.push_back(w_at(o, ky, kx, i));
        l.buffers[1].data = vpu_test::fp16_bytes(wv);
        std::vector<std::int32_t> table;
        for (std::int64_t o = 0; o < C; ++o)
            for (std::int32_t v : {std::int32_t(o * K * K * CI * 2), 0, vpu_test::float_bits(scale), vpu_test::float_bits(bias_of(o))})
                table.push_back(v);
        l.buffers[2].data = vpu_test::int32_bytes(table);
        l.inputs = {{"x", "x", xs, "NHWC", DataType::fp16}};
        l.outputs = {{"y", "y", ys, "NHWC", DataType::fp32}};
        l.barriers = {{0, 0}, {1, 1}};
        l.tasks.push_back(vpu_test::dma(0, "DMA0", Access::dense("x", 0, xs, 2), Access::dense("cx", 0, xs, 2), {}, {0}, 0, "x"));
        l.tasks.push_back(vpu_test::dma(1, "DMA1", Access::dense("w", 0, ws, 2), Access::dense("cw", 0, ws, 2), {}, {0}, 0, "conv"));
        l.tasks.push_back(vpu_test::dma(2, "DMA0", Access::dense("t", 0, ts, 4), Access::dense("ct", 0, ts, 4), {}, {0}, 0, "conv"));
        l.tasks.push_back(vpu_test::nce_conv(3, {Access::dense("cx", 0, xs, 2), Access::dense("cw", 0, ws, 2), Access::dense("ct", 0, ts, 4)},
                                             Access::dense("cy", 0, ys, 4), K));
        l.tasks.push_back(vpu_test::dma(4, "DMA0", Access::dense("cy", 0, ys, 4), Access::dense("y", 0, ys, 4), {1}, {}, 0, "y"));
        for (Task& t : l.tasks) {
            const std::optional<std::int64_t> c = task_cycles(l, t, l.target);
            REQUIRE(c);
            t.cycles = *c;
        }
        auto x = nnef::tosa::ConstData::allocate({nnef::tosa::DType::fp32, {1, CI, H, W}});  // NCHW
        for (std::int64_t c = 0; c < CI; ++c)
            for (std::int64_t h = 0; h < H; ++h)
                for (std::int64_t w = 0; w < W; ++w) x->mutable_items<float>()[(c * H + h) * W + w] = x_at(c, h, w);
        Run r;
        SimulateOptions o;
        o.values = true;
        o.inputs["x"] = x;
        r.result = simulate(l, l.target, o, r.diags);
        CAPTURE(r.messages());
        REQUIRE(r.result.valid);
        CHECK(r.diags.empty());
        REQUIRE(r.result.outputs.count("y"));
        const auto& y = *r.result.outputs.at("y");
        REQUIRE(y.type.shape == nnef::Shape{1, C, H, W});
        std::size_t sums_in_another_order_differ = 0;
        for (std::int64_t oc = 0; oc < C; ++oc)
            for (std::int64_t oy = 0; oy < H; ++oy)
                for (std::int64_t ox = 0; ox < W; ++ox) {
                    float sum = 0.0f, reversed = 0.0f;
                    for (std::int64_t ky = 0; ky < K; ++ky)
                        for (std::int64_t kx = 0; kx < K; ++kx) {
                            const std::int64_t iy = oy + ky - 1, ix = ox + kx - 1;
                            if (iy < 0 || iy >= H || ix < 0 || ix >= W) continue;
                            for (std::int64_t i = 0; i < CI; ++i) sum += x_at(i, iy, ix) * w_at(oc, ky, kx, i);
                        }
                    for (std::int64_t ky = K; ky-- > 0;)
                        for (std::int64_t kx = K; kx-- > 0;) {
                            const std::int64_t iy = oy + ky - 1, ix = ox + kx - 1;
                            if (iy < 0 || iy >= H || ix < 0 || ix >= W) continue;
                            for (std::int64_t i = CI; i-- > 0;) reversed += x_at(i, iy, ix) * w_at(oc, ky, kx, i);
                        }
                    const float want = sum * scale + bias_of(oc);
                    if (reversed * scale + bias_of(oc) != want) ++sums_in_another_order_differ;
                    CAPTURE(oc);
                    CAPTURE(oy);
                    CAPTURE(ox);
                    CHECK(y.items<float>()[std::size_t((oc * H + oy) * W + ox)] == want);
                }
        // the data tells the orders apart (else the check above would not see another order)
        CHECK(sums_in_another_order_differ > 0);
    }

    TEST_CASE("simulator: the lower bound weighs a DMA unrounded, so a run can meet it but never beat it") {
        // The conv list with w's DMA on DMA0 too: one DMA at a time, never sharing DDR, so the run
        // is exactly the chain x -> w -> t -> conv -> y = 602 + (600 + 72 / 32) + 601 + 336 + 602.
        // Summing the rounded figures (w: 603) gave 2744, above the makespan.
        TaskList l = vpu_test::conv_list();
        l.tasks[1].queue = "DMA0";
        Run r = simulate_list(l);
        CAPTURE(r.messages());
        REQUIRE(r.result.valid);
        // The bound meets it: the cut at y, F(y) = (x + w + t on DMA0, before conv) + conv + y.
        CHECK(r.result.makespan == doctest::Approx(2743.25));
        CHECK(r.result.bound.list_chain == doctest::Approx(2743.25));
        CHECK(r.result.bound.cut == doctest::Approx(2743.25));
        CHECK(r.result.bound.engine == doctest::Approx(602 + 602.25 + 601 + 602));
        CHECK(r.result.bound.engine_queue == "DMA0");
        CHECK(r.result.bound.ddr == doctest::Approx(232.0 / 48.0));
        CHECK(std::string(r.result.bound.binding()) == "cut");
        CHECK(r.result.bound.value() <= r.result.makespan * (1 + 1e-12));
        CHECK(r.result.queues[0].work == 602 + 603 + 601 + 602);  // the figures alone, rounded as the list states them
        // Slow DDR: the conv list (x and w on two queues) with DDR at 0.01 bytes a cycle: ddr 232 /
        // 0.01 = 23200 > the list's chain x -> t -> conv -> y = 7000 + 3800 + 336 + 7000. The cut
        // binds: x, w and t (168 bytes) are in DDR before conv starts, then conv and y: 16800 + 336 +
        // 7000 = 24136.
        TaskList d = vpu_test::conv_list();
        d.target.ddr_bytes_per_cycle = 0.01;
        for (Task& task : d.tasks) task.cycles = *task_cycles(d, task, d.target);
        r = simulate_list(d);
        // engine DMA0 x + t + y; dataflow w -> conv -> y
        check_bound(r, 7000 + 3800 + 7000, 23200, 7800 + 336 + 7000, 24136, "cut");
        CHECK(r.result.bound.list_chain == doctest::Approx(18136));
        CHECK(r.result.bound.cut_before_term == "DDR before task 3");
        // DDR binds when two copies run side by side (nothing orders them): each 64 bytes at 0.01
        // bytes a cycle alone (600 + 6400), both 128 / 0.01 = 12800; the run shares DDR: 600 + 12800.
        TaskList two;
        two.target.ddr_bytes_per_cycle = 0.01;
        two.buffers = {vpu_test::buffer("a", Memory::DDR, 0, 0, 64, DataType::fp16, Role::input),
                       vpu_test::buffer("b", Memory::DDR, 0, 64, 64, DataType::fp16, Role::output),
                       vpu_test::buffer("c", Memory::DDR, 0, 128, 64, DataType::fp16, Role::input),
                       vpu_test::buffer("d", Memory::DDR, 0, 192, 64, DataType::fp16, Role::output)};
        two.inputs = {{"a", "a", {32}, "C", DataType::fp16}, {"c", "c", {32}, "C", DataType::fp16}};
        two.outputs = {{"b", "b", {32}, "C", DataType::fp16}, {"d", "d", {32}, "C", DataType::fp16}};
        two.tasks = {vpu_test::dma(0, "DMA0", Access::dense("a", 0, {32}, 2), Access::dense("b", 0, {32}, 2), {}, {}, 7000, "b"),
                     vpu_test::dma(1, "DMA1", Access::dense("c", 0, {32}, 2), Access::dense("d", 0, {32}, 2), {}, {}, 7000, "d")};
        r = simulate_list(two);
        check_bound(r, 7000, 12800, 7000, 7000, "ddr");
        CHECK(r.result.makespan == doctest::Approx(13400));
    }

    // A list of fp16 buffers of 64 elements (128 bytes) on a target with one cluster, no DMA
    // latency and no SHAVE overhead, DDR at 1 byte a cycle: a DMA of 128 bytes touching DDR takes
    // 128 cycles, CMX to CMX 4, a SHAVE add 64 x 0.5 = 32.
    namespace bound_lists {
    Target small_target() {
        Target t;
        t.clusters = 1;
        t.cmx_bytes = 256;
        t.dma_latency_cycles = 0;
        t.ddr_bytes_per_cycle = 1;
        t.shave_overhead_cycles = 0;
        t.shave_cycles_per_element["exp"] = 20;
        return t;
    }
    Buffer buf(const std::string& id, Memory mem, std::int64_t offset, Role role) {
        return vpu_test::buffer(id, mem, 0, offset, 128, DataType::fp16, role);
    }
    Access all(const std::string& b) { return Access::dense(b, 0, {64}, 2); }
    Task shave(std::int64_t id, const std::string& kernel, std::vector<Access> reads, Access write, std::vector<std::int64_t> wait,
               std::vector<std::int64_t> update) {
        Task t;
        t.id = id;
        t.queue = "SHAVE0.0";
        t.kind = TaskKind::SHAVE;
        t.op = kernel;
        t.shave.kernel = kernel;
        t.reads = std::move(reads);
        t.writes = {std::move(write)};
        t.wait = std::move(wait);
        t.update = std::move(update);
        return t;
    }
    void set_cycles(TaskList& l) {
        for (Task& task : l.tasks) task.cycles = *task_cycles(l, task, l.target);
    }
    }  // namespace bound_lists

    TEST_CASE("simulator: the dataflow term follows the bytes a task reads, not the list's orderings") {
        using namespace bound_lists;
        // CMX buffer c: E (DMA0) writes its even elements, O (DMA1) the odd ones of its first half,
        // R (DMA0) reads those odd ones back to DDR. Spans overlap, so the list orders E -> O -> R
        // (barriers), but R reads no byte of E. With DDR at 64 bytes a cycle a DMA moves 32 bytes
        // a cycle: E 2 cycles (64 bytes), O and R 1 each. The dataflow chain is O -> R = 2, the
        // list's chain E -> O -> R = 4, DDR 128 / 64 = 2; the engine term DMA0 = E + R = 3 binds (E
        // can run beside O -> R in another order).
        TaskList l;
        l.target = small_target();
        l.target.ddr_bytes_per_cycle = 64;
        l.buffers = {buf("e", Memory::DDR, 0, Role::input), buf("o", Memory::DDR, 128, Role::input), buf("y", Memory::DDR, 256, Role::output),
                     buf("c", Memory::CMX, 0, Role::activation)};
        l.inputs = {{"e", "e", {64}, "C", DataType::fp16}, {"o", "o", {64}, "C", DataType::fp16}};
        l.outputs = {{"y", "y", {16}, "C", DataType::fp16}};
        l.barriers = {{0, 0}, {1, 1}};
        Access even{"c", 0, {32}, {4}}, odd{"c", 2, {16}, {4}};
        l.tasks = {vpu_test::dma(0, "DMA0", Access::dense("e", 0, {32}, 2), even, {}, {0}, 0, "e"),
                   vpu_test::dma(1, "DMA1", Access::dense("o", 0, {16}, 2), odd, {0}, {1}, 0, "o"),
                   vpu_test::dma(2, "DMA0", odd, Access::dense("y", 0, {16}, 2), {1}, {}, 0, "y")};
        set_cycles(l);
        Run r = simulate_list(l);
        check_bound(r, 3, 2, 2, 2, "engine");  // the cut along O -> R: O then R
        CHECK(r.result.bound.list_chain == doctest::Approx(4));
        CHECK(r.result.makespan == doctest::Approx(4));
        // R reading the first 16 even elements instead (on DMA1) depends on E: the chain E -> R = 3
        // binds (engine 2, the cut along E -> R 3 too: dataflow first on a tie).
        l.tasks[2].reads = {Access{"c", 0, {16}, {4}}};
        l.tasks[2].queue = "DMA1";
        r = simulate_list(l);
        check_bound(r, 2, 2, 3, 3, "dataflow");
    }

    TEST_CASE("simulator: the cut's CMX term: loads that CMX cannot hold wait for DDR after the cut") {
        using namespace bound_lists;
        // T0 (DMA0) loads x into CMX a, S0 (SHAVE0.0 exp, 64 x 20 = 1280 cycles) computes on a in
        // place, then three times: Lk (DMA1) loads wk into CMX b, Sk (SHAVE add) a += b; O (DMA0)
        // stores a. CMX holds 256 bytes: a and b. S1, S2 and S3 read 3 x 128 bytes of loads, of
        // which at most 256 can be in CMX when S0 ends, so 128 bytes still come from DDR after it:
        // the cut at S0 is F(S0) = 128 + 1280 plus G(S0) = (O's 128 bytes + those 128) / 1 =
        // 1664, above the dataflow chain T0 -> S0 -> S1 -> S2 -> S3 -> O = 128 + 1280 + 3 x 32 +
        // 128 = 1632 and the engine SHAVE0.0 = 1280 + 96.
        TaskList l;
        l.target = small_target();
        l.buffers = {buf("x", Memory::DDR, 0, Role::input),      buf("w1", Memory::DDR, 128, Role::weights),
                     buf("w2", Memory::DDR, 256, Role::weights), buf("w3", Memory::DDR, 384, Role::weights),
                     buf("y", Memory::DDR, 512, Role::output),   buf("a", Memory::CMX, 0, Role::activation),
                     buf("b", Memory::CMX, 128, Role::weights)};
        l.inputs = {{"x", "x", {64}, "C", DataType::fp16}};
        l.outputs = {{"y", "y", {64}, "C", DataType::fp16}};
        for (std::int64_t b = 0; b < 7; ++b) l.barriers.push_back({b, b});
        l.tasks = {vpu_test::dma(0, "DMA0", all("x"), all("a"), {}, {0}, 0, "x"),
                   shave(1, "exp", {all("a")}, all("a"), {0}, {1}),
                   vpu_test::dma(2, "DMA1", all("w1"), all("b"), {}, {1}, 0, "w1"),
                   shave(3, "add", {all("a"), all("b")}, all("a"), {1}, {2}),
                   vpu_test::dma(4, "DMA1", all("w2"), all("b"), {2}, {3}, 0, "w2"),
                   shave(5, "add", {all("a"), all("b")}, all("a"), {3}, {4}),
                   vpu_test::dma(6, "DMA1", all("w3"), all("b"), {4}, {5}, 0, "w3"),
                   shave(7, "add", {all("a"), all("b")}, all("a"), {5}, {6}),
                   vpu_test::dma(8, "DMA0", all("a"), all("y"), {6}, {}, 0, "y")};
        set_cycles(l);
        Run r = simulate_list(l);
        check_bound(r, 1376, 640, 1632, 1664, "cut");
        const LowerBound& b = r.result.bound;
        CHECK(b.engine_queue == "SHAVE0.0");
        CHECK(b.cut_task == 1);
        CHECK(b.cut_before == doctest::Approx(1408));
        CHECK(b.cut_after == doctest::Approx(256));
        CHECK(b.cut_after_term == "DDR");
        CHECK(b.cut_cmx_excess == 128);
        // This list's own chain (w2 waits for S1, w3 for S2: b is reused) is longer than the bound.
        CHECK(b.list_chain == doctest::Approx(128 + 1280 + 32 + 128 + 32 + 128 + 32 + 128));
        // With CMX for all three loads there is no excess: the dataflow chain binds (the cut at
        // S0 is 1408 + 224, equal to it).
        l.target.cmx_bytes = 512;
        r = simulate_list(l);
        check_bound(r, 1376, 640, 1632, 1632, "dataflow");
        CHECK(r.result.bound.cut_cmx_excess == 0);
    }

    TEST_CASE("simulator: the cut's segments add the busiest queue of each phase between tasks of its chain") {
        using namespace bound_lists;
        // T0 (DMA0) loads x into CMX; three phases, each two `exp` kernels (64 x 20 = 1280 cycles)
        // on one SHAVE queue reading the last result, then an `add` (64 x 0.5 = 32) of the two on
        // the other queue: S1, S2 on SHAVE0.0 -> J1 on SHAVE0.1 -> S3, S4 on SHAVE0.1 -> J2 on
        // SHAVE0.0 -> S5, S6 on SHAVE0.0 -> J3 on SHAVE0.1; T1 (DMA0) stores J3's result. DDR at 64
        // bytes a cycle: a DMA of 128 bytes takes 4.
        //   engine: SHAVE0.0 = 4 x 1280 + 32 = 5152; DDR 256 / 64 = 4; dataflow T0 S J S J S J T1 =
        //   3 x (1280 + 32) + 8 = 3944.
        //   One cut, at J1: F(J1) = 32 + S1 + S2 = 2592 with G(J1) = S3 + G(S3) = 1280 + J2 + S5 + S6
        //   = 3872: 6464 (at J2 as much: F(J2) = 32 + S3 + F(J1) = 3904, G(J2) = S5 + S6).
        //   Segments: J1 ends at least at 4 (T0, before any SHAVE task can start) + S1 + S2 (on
        //   SHAVE0.0) + 32 (J1, after both) = 2596; S3, S4 and J2 descend from J1 and lead to J2:
        //   SHAVE0.1's 2560 and J2 after them, 2592 more; S5, S6 and J3 between J2 and J3, 2592;
        //   then T1 (4): 7784, the run's makespan (4 + 3 x (2560 + 32) + 4): no order does better.
        //   (Without a queue's least lead and trail, the segments gave 2592 + 2560 + 2560 + 4.)
        TaskList l;
        l.target = small_target();
        l.target.cmx_bytes = 4096;
        l.target.ddr_bytes_per_cycle = 64;
        l.buffers = {buf("x", Memory::DDR, 0, Role::input), buf("y", Memory::DDR, 128, Role::output)};
        const char* cmx[] = {"a", "b1", "b2", "c", "d1", "d2", "e", "f1", "f2", "g"};
        for (std::int64_t k = 0; k < 10; ++k) l.buffers.push_back(buf(cmx[k], Memory::CMX, 128 * k, Role::activation));
        l.inputs = {{"x", "x", {64}, "C", DataType::fp16}};
        l.outputs = {{"y", "y", {64}, "C", DataType::fp16}};
        for (std::int64_t b = 0; b < 7; ++b) l.barriers.push_back({b, b});
        auto on = [](Task t, const char* queue) {
            t.queue = queue;
            return t;
        };
        l.tasks = {vpu_test::dma(0, "DMA0", all("x"), all("a"), {}, {0}, 0, "x"),
                   shave(1, "exp", {all("a")}, all("b1"), {0}, {1}),
                   shave(2, "exp", {all("a")}, all("b2"), {0}, {1}),
                   on(shave(3, "add", {all("b1"), all("b2")}, all("c"), {1}, {2}), "SHAVE0.1"),
                   on(shave(4, "exp", {all("c")}, all("d1"), {2}, {3}), "SHAVE0.1"),
                   on(shave(5, "exp", {all("c")}, all("d2"), {2}, {3}), "SHAVE0.1"),
                   shave(6, "add", {all("d1"), all("d2")}, all("e"), {3}, {4}),
                   shave(7, "exp", {all("e")}, all("f1"), {4}, {5}),
                   shave(8, "exp", {all("e")}, all("f2"), {4}, {5}),
                   on(shave(9, "add", {all("f1"), all("f2")}, all("g"), {5}, {6}), "SHAVE0.1"),
                   vpu_test::dma(10, "DMA0", all("g"), all("y"), {6}, {}, 0, "y")};
        set_cycles(l);
        Run r = simulate_list(l);
        check_bound(r, 5152, 4, 3944, 7784, "cut");
        CHECK(r.result.makespan == doctest::Approx(7784));
        const LowerBound& b = r.result.bound;
        CHECK(b.cut_task == 10);
        CHECK(b.cut_before == doctest::Approx(7784));
        CHECK(b.cut_after == doctest::Approx(0));
        CHECK(b.cut_before_term == "4 segments");
        // (task, cycles, term) of each segment, in order along the chain
        const std::tuple<long, double, const char*> segments[] = {{3, 2596, "SHAVE0.0"}, {6, 2592, "SHAVE0.1"}, {9, 2592, "SHAVE0.0"}, {10, 4, "chain"}};
        REQUIRE(b.cut_segments.size() == 4);
        for (std::size_t k = 0; k < 4; ++k) {
            CAPTURE(k);
            CHECK(b.cut_segments[k].task == std::get<0>(segments[k]));
            CHECK(b.cut_segments[k].cycles == doctest::Approx(std::get<1>(segments[k])));
            CHECK(b.cut_segments[k].term == std::get<2>(segments[k]));
        }
        // Pairs among two tasks of the chain alone (its first and last, T0 and T1): no segment
        // between them beats the cuts at single tasks, F(J2) + G(J2) = 6464.
        SimulateOptions o;
        o.cut_pair_tasks = 2;
        Run few;
        few.result = simulate(l, l.target, o, few.diags);
        check_bound(few, 5152, 4, 3944, 6464, "cut");
        CHECK(few.result.bound.cut_task == 6);
        CHECK(few.result.bound.cut_segments.size() == 1);
        // Seven of its eight tasks (T0 S1 J1 S3 J2 S5 J3 T1), spread along it: all but J3. J2 ends
        // at least at 2596 + 2592, and S5, S6, J3 and T1 lie between it and T1: SHAVE0.0's 2560,
        // then J3 and T1 after S6 (36): 7784 again.
        o.cut_pair_tasks = 7;
        few.result = simulate(l, l.target, o, few.diags);
        check_bound(few, 5152, 4, 3944, 7784, "cut");
        CHECK(few.result.bound.cut_task == 10);
        REQUIRE(few.result.bound.cut_segments.size() == 3);
        CHECK(few.result.bound.cut_segments[1].task == 6);
        CHECK(few.result.bound.cut_segments[2].task == 10);
        CHECK(few.result.bound.cut_segments[2].cycles == doctest::Approx(2596));
    }

    TEST_CASE("simulator: the lower bound is at most the makespan of every queue order of small random lists") {
        using namespace bound_lists;
        // Random DAGs of SHAVE kernels on two queues, each reading one or two earlier results (or
        // the input, loaded by DMA0) and writing its own buffer; the last joins the sinks and DMA1
        // stores it. Every schedule of these tasks runs them in some topological order per queue,
        // each as soon as its queue and its inputs let it: the least makespan over all topological
        // orders is the best any schedule does. The bound (the same for every order) must not
        // exceed it; the cut's segments must raise it above the cuts at single tasks somewhere, and
        // leaving out a queue's tasks of least lead or trail from its figure must raise it above
        // the bound without (`cut_early_tasks` 0) somewhere.
        std::mt19937 rng(7);
        const char* kernels[] = {"exp", "tanh", "sigmoid", "add"};
        int raised = 0, early = 0, tight = 0, lists = 0;
        for (int dag = 0; dag < 400; ++dag) {
            CAPTURE(dag);
            const int N = 8;  // SHAVE tasks, the last one the join
            std::vector<std::vector<int>> reads(N);  // buffers: 0 the input in CMX, k + 1 task k's result
            std::vector<std::string> kernel(N), queue(N);
            std::vector<bool> read(N + 1, false);
            for (int k = 0; k + 1 < N; ++k) {
                kernel[k] = kernels[rng() % 4];
                const int ins = kernel[k] == "add" ? 2 : 1;
                for (int j = 0; j < ins; ++j) {
                    // mostly a result nothing reads yet (few sinks), else any
                    std::vector<int> open;
                    for (int b = 1; b <= k; ++b)
                        if (!read[std::size_t(b)]) open.push_back(b);
                    const int r = !open.empty() && rng() % 4 != 0 ? open[rng() % open.size()] : int(rng() % unsigned(k + 1));
                    reads[k].push_back(r);
                    read[std::size_t(r)] = true;
                }
                queue[k] = rng() % 2 ? "SHAVE0.1" : "SHAVE0.0";
            }
            std::vector<int> sinks;
            for (int k = 0; k + 1 < N; ++k)
                if (!read[std::size_t(k + 1)]) sinks.push_back(k + 1);
            if (sinks.size() > 2) continue;
            reads[N - 1] = sinks;
            kernel[N - 1] = sinks.size() == 2 ? "add" : "exp";
            queue[N - 1] = rng() % 2 ? "SHAVE0.1" : "SHAVE0.0";
            TaskList l;
            l.target = small_target();
            l.target.cmx_bytes = 1 << 16;
            l.target.ddr_bytes_per_cycle = 64;
            l.target.shave_cycles_per_element["tanh"] = 7;
            l.target.shave_cycles_per_element["sigmoid"] = 3;
            l.buffers = {buf("x", Memory::DDR, 0, Role::input), buf("y", Memory::DDR, 128, Role::output)};
            for (int b = 0; b <= N; ++b) l.buffers.push_back(buf("c" + std::to_string(b), Memory::CMX, 128 * b, Role::activation));
            l.inputs = {{"x", "x", {64}, "C", DataType::fp16}};
            l.outputs = {{"y", "y", {64}, "C", DataType::fp16}};
            // barrier b: the writer of buffer b, waited on by its readers
            for (int b = 0; b <= N; ++b) l.barriers.push_back({b, b});
            auto shave_task = [&](int k) {
                std::vector<Access> in;
                std::vector<std::int64_t> wait;
                for (int r : reads[std::size_t(k)]) {
                    in.push_back(all("c" + std::to_string(r)));
                    if (std::find(wait.begin(), wait.end(), r) == wait.end()) wait.push_back(r);
                }
                Task t = shave(k + 1, kernel[std::size_t(k)], in, all("c" + std::to_string(k + 1)), wait, {k + 1});
                t.queue = queue[std::size_t(k)];
                return t;
            };
            // (a barrier nobody waits on is not allowed: drop the writer's update then)
            std::vector<bool> waited(N + 1, false);
            for (int k = 0; k < N; ++k)
                for (int r : reads[std::size_t(k)]) waited[std::size_t(r)] = true;
            waited[std::size_t(N)] = true;  // the store
            std::vector<Barrier> used;
            for (int b = 0; b <= N; ++b)
                if (waited[std::size_t(b)]) used.push_back({b, b});
            l.barriers = used;
            double best = std::numeric_limits<double>::infinity();
            double bound = -1.0, two = -1.0, plain = -1.0;
            std::vector<int> order;
            std::vector<bool> placed(N, false);
            std::function<void()> each = [&]() {
                if (int(order.size()) == N) {
                    TaskList o = l;
                    o.tasks = {vpu_test::dma(0, "DMA0", all("x"), all("c0"), {}, {0}, 0, "x")};
                    for (int k : order) {
                        o.tasks.push_back(shave_task(k));
                        if (!waited[std::size_t(k + 1)]) o.tasks.back().update.clear();
                    }
                    o.tasks.push_back(vpu_test::dma(N + 1, "DMA1", all("c" + std::to_string(N)), all("y"), {N}, {}, 0, "y"));
                    set_cycles(o);
                    Run r = simulate_list(o);
                    CAPTURE(r.messages());
                    REQUIRE(r.result.valid);
                    best = std::min(best, r.result.makespan);
                    if (bound < 0) {
                        bound = r.result.bound.value();
                        SimulateOptions few;
                        few.cut_pair_tasks = 2;
                        few.cut_early_tasks = 0;
                        nnef::Diagnostics d(0);
                        two = simulate(o, o.target, few, d).bound.value();
                        SimulateOptions all_tasks;
                        all_tasks.cut_early_tasks = 0;
                        plain = simulate(o, o.target, all_tasks, d).bound.value();
                    }
                    CHECK(r.result.bound.value() == doctest::Approx(bound));
                    return;
                }
                for (int k = 0; k < N; ++k) {
                    if (placed[std::size_t(k)]) continue;
                    bool ready = true;
                    for (int r : reads[std::size_t(k)]) ready = ready && (r == 0 || placed[std::size_t(r - 1)]);
                    if (!ready) continue;
                    placed[std::size_t(k)] = true;
                    order.push_back(k);
                    each();
                    order.pop_back();
                    placed[std::size_t(k)] = false;
                }
            };
            each();
            CHECK(bound <= best * (1 + 1e-12));
            CHECK(two <= plain);
            CHECK(plain <= bound);
            ++lists;
            if (plain > two) ++raised;
            if (bound > plain * (1 + 1e-12)) ++early;
            if (bound >= best * (1 - 1e-12)) ++tight;
        }
        MESSAGE(lists << " lists: segments raised the bound on " << raised << ", leaving out a queue's tasks of least lead or trail on "
                      << early << ", the bound met the best makespan on " << tight);
        CHECK(raised > 0);
        CHECK(early > 0);
    }

    TEST_CASE("simulator: values of pooling, eltwise and SHAVE kernels") {
        // maxpool 2x2 stride 2 of the input, then a SHAVE sigmoid, then an eltwise add of the two.
        TaskList l = vpu_test::conv_list();
        l.tasks.resize(3);
        l.tasks[2].update = {0};
        l.buffers.push_back(vpu_test::buffer("cp", Memory::CMX, 0, 384, 16, DataType::fp16, Role::activation, "pool"));
        l.buffers.push_back(vpu_test::buffer("cs", Memory::CMX, 0, 448, 16, DataType::fp16, Role::activation, "sig"));
        l.buffers.push_back(vpu_test::buffer("ce", Memory::CMX, 0, 512, 16, DataType::fp16, Role::activation, "sum"));
        l.buffers[3].size = 16;
        l.outputs = {{"y", "y", {1, 2, 2, 2}, "NHWC", DataType::fp16}};
        const std::vector<std::int64_t> small{1, 2, 2, 2}, tshape{2, 4};
        Task pool;
        pool.id = 3;
        pool.queue = "NCE0";
        pool.kind = TaskKind::NCE;
        pool.op = "maxpool";
        pool.nce.kernel = {2, 2};
        pool.nce.stride = {2, 2};
        pool.reads = {Access::dense("cx", 0, {1, 4, 4, 2}, 2), Access::dense("ct", 0, tshape, 4)};
        pool.writes = {Access::dense("cp", 0, small, 2)};
        pool.wait = {0};
        pool.update = {1};
        pool.cycles = 300 + 16 * 16 * 4 / 64;
        Task sig;
        sig.id = 4;
        sig.queue = "SHAVE0.1";
        sig.kind = TaskKind::SHAVE;
        sig.op = sig.shave.kernel = "sigmoid";
        sig.reads = {Access::dense("cp", 0, small, 2)};
        sig.writes = {Access::dense("cs", 0, small, 2)};
        sig.wait = {1};
        sig.update = {2};
        sig.cycles = 1200 + 16;
        Task add;
        add.id = 5;
        add.queue = "NCE0";
        add.kind = TaskKind::NCE;
        add.op = "eltwise";
        add.nce.eltwise = "add";
        add.reads = {Access::dense("cp", 0, small, 2), Access::dense("cs", 0, small, 2), Access::dense("ct", 0, tshape, 4)};
        add.writes = {Access::dense("ce", 0, small, 2)};
        add.wait = {2};
        add.update = {3};
        add.cycles = 300 + 16 * 16 / 64;
        l.tasks.push_back(pool);
        l.tasks.push_back(sig);
        l.tasks.push_back(add);
        l.tasks.push_back(vpu_test::dma(6, "DMA1", Access::dense("ce", 0, small, 2), Access::dense("y", 0, small, 2), {3}, {}, 601, "sum"));
        l.barriers = {{0, 0}, {1, 1}, {2, 2}, {3, 0}};  // physical 0 reused: barrier 0's consumer (3) precedes 5
        Run r = simulate_list(l, true);
        CAPTURE(r.messages());
        REQUIRE(r.result.valid);
        // The table scales by 1 and adds bias 0.5 (channel 0) and 1.0 (channel 1) after each NCE op.
        const auto& y = *r.result.outputs.at("y");
        for (int c = 0; c < 2; ++c)
            for (int h = 0; h < 2; ++h)
                for (int w = 0; w < 2; ++w) {
                    float m = -1e9f;
                    for (int dy = 0; dy < 2; ++dy)
                        for (int dx = 0; dx < 2; ++dx) m = std::max(m, vpu_test::input_at(c, 2 * h + dy, 2 * w + dx));
                    const float pooled = nnef::tosa::fp16_to_fp32(nnef::tosa::fp32_to_fp16(m + vpu_test::bias_at(c)));
                    const float sig16 = nnef::tosa::fp16_to_fp32(nnef::tosa::fp32_to_fp16(1.0f / (1.0f + std::exp(-pooled))));
                    const float want = nnef::tosa::fp16_to_fp32(nnef::tosa::fp32_to_fp16(pooled + sig16 + vpu_test::bias_at(c)));
                    CAPTURE(c);
                    CAPTURE(h);
                    CAPTURE(w);
                    CHECK(y.items<float>()[(c * 2 + h) * 2 + w] == want);
                }
    }

    TEST_CASE("simulator: a missing barrier is a race naming both tasks, the buffer and the bytes") {
        TaskList l = vpu_test::conv_list();
        nnef::Diagnostics ok;
        CHECK(check_task_list(l, l.target, ok));
        CHECK(ok.empty());
        l.tasks[1].update.clear();  // the weights DMA no longer signals the conv
        nnef::Diagnostics bad;
        CHECK_FALSE(check_task_list(l, l.target, bad));
        Run r = simulate_list(l);
        CAPTURE(r.messages());
        CHECK_FALSE(r.result.valid);
        CHECK(r.has("race",
                    "race on CMX0 bytes [64, 136): task 1 (DMA1 copy 'conv') writes buffer cw and task 3 (NCE0 conv 'conv') reads buffer cw, "
                    "and no chain of queue order and barriers orders them"));
    }

    TEST_CASE("simulator: values catch a read of CMX bytes nothing wrote") {
        TaskList l = vpu_test::conv_list();
        l.tasks.erase(l.tasks.begin() + 2);  // the table is never DMA'd into CMX
        Run r = simulate_list(l, true);
        CAPTURE(r.messages());
        CHECK_FALSE(r.result.valid);
        CHECK(r.has("bad-values", "task 3 (NCE0 conv): reads byte 0 of buffer ct (CMX0 byte 192), which no task, input or constant wrote before"));
    }

    TEST_CASE("simulator: an overlapping CMX buffer is a race") {
        TaskList l = vpu_test::conv_list();
        l.buffers[6].offset = 128;  // the table's CMX copy [128, 160) overlaps the weights' [64, 136)
        Run r = simulate_list(l);
        CAPTURE(r.messages());
        CHECK_FALSE(r.result.valid);
        CHECK(r.has("race", "race on CMX0 bytes [128, 136): task 1 (DMA1 copy 'conv') writes buffer cw and task 2 (DMA0 copy 'conv') writes buffer ct"));
    }

    TEST_CASE("simulator: a reused physical barrier without ordering") {
        TaskList l = vpu_test::conv_list();
        l.barriers[1].physical = 0;  // barrier 1 is updated by the conv, the consumer of barrier 0
        Run r = simulate_list(l);
        CAPTURE(r.messages());
        CHECK_FALSE(r.result.valid);
        CHECK(r.has("barrier-reuse",
                    "physical barrier 0 is used by virtual barriers 0 and 1 without ordering: consumer task 3 (NCE0 conv 'conv') of barrier 0 "
                    "does not happen before producer task 3 (NCE0 conv 'conv') of barrier 1"));
    }

    TEST_CASE("simulator: a buffer past CMX, misaligned, on a missing cluster") {
        TaskList l = vpu_test::conv_list();
        l.buffers[7].offset = 1982464 - 64 + 64;
        l.buffers[5].offset = 96;
        Run r = simulate_list(l);
        CAPTURE(r.messages());
        CHECK_FALSE(r.result.valid);
        CHECK(r.has("cmx-capacity", "buffer cy (CMX0 bytes [1982464, 1982528)) lies past the cluster's CMX of 1982464 bytes, by 64 bytes"));
        CHECK(r.has("cmx-alignment", "buffer cw (CMX0 offset 96) is not aligned to cmx_alignment 64 (offset mod 64 = 32)"));
        // The same list on a target with 64 KiB of CMX and one cluster.
        Target tiny;
        tiny.cmx_bytes = 65536;
        tiny.clusters = 1;
        TaskList ok = vpu_test::conv_list();
        ok.buffers[7].cluster = 1;
        ok.buffers[7].offset = 65536;
        Run t = simulate_list(ok, false, &tiny);
        CAPTURE(t.messages());
        CHECK(t.has("cmx-capacity", "buffer cy is in CMX of cluster 1, but the target has 1 clusters"));
        CHECK(t.has("cmx-capacity", "buffer cy (CMX1 bytes [65536, 65600)) lies past the cluster's CMX of 65536 bytes, by 64 bytes"));
        CHECK(t.has("wrong-memory", "task 3 (NCE0 conv 'conv') writes buffer cy in CMX1; NCE tasks of cluster 0 reach only CMX0"));
    }

    TEST_CASE("simulator: deadlock, barrier counts, unwritten outputs, wrong cycles, bad NCE shapes") {
        SUBCASE("a cycle of barriers") {
            TaskList l = vpu_test::conv_list();
            l.tasks[0].wait = {1};  // the input DMA waits for the conv, which waits for it
            Run r = simulate_list(l);
            CAPTURE(r.messages());
            CHECK(r.has("deadlock", "happens-before has a cycle (the task list deadlocks): "));
            CHECK(r.has("deadlock", "task 0 (DMA0 copy 'x')"));
            CHECK(r.has("deadlock", "task 3 (NCE0 conv 'conv')"));
        }
        SUBCASE("a barrier nobody waits on, an output never written") {
            TaskList l = vpu_test::conv_list();
            l.tasks.pop_back();
            Run r = simulate_list(l);
            CAPTURE(r.messages());
            CHECK(r.has("barrier-consumers", "barrier 1 has no consumer (no task waits on it)"));
            CHECK(r.has("output-not-written", "output 'y' (buffer y): 64 of its 64 bytes are never written, the first at buffer bytes [0, 64)"));
        }
        SUBCASE("too many producers for the target") {
            Target t;
            t.barrier_max_producers = 2;
            Run r = simulate_list(vpu_test::conv_list(), false, &t);
            CHECK(r.has("barrier-producers", "barrier 0 has 3 producers; barrier_max_producers is 2"));
        }
        SUBCASE("physical id beyond the target's barriers") {
            Target t;
            t.barriers = 1;
            Run r = simulate_list(vpu_test::conv_list(), false, &t);
            CHECK(r.has("barrier-physical", "barrier 1 has physical id 1; the target has 1 physical barriers"));
        }
        SUBCASE("cycles that are not the cost model's") {
            TaskList l = vpu_test::conv_list();
            l.tasks[3].cycles = 300;
            Run r = simulate_list(l);
            CHECK(r.has("bad-cycles", "task 3 (NCE0 conv 'conv'): cycles is 300, the cost model gives 336"));
        }
        SUBCASE("an NCE conv whose output does not follow from its input") {
            TaskList l = vpu_test::conv_list();
            l.tasks[3].nce.pad = {0, 0, 1, 1};
            Run r = simulate_list(l);
            CAPTURE(r.messages());
            CHECK(r.has("bad-task", "task 3 (NCE0 conv 'conv'): output height 4 does not follow from input [1,4,4,2], kernel, stride, dilation and pad (expected 2)"));
        }
        SUBCASE("an access past its buffer") {
            TaskList l = vpu_test::conv_list();
            l.tasks[4].writes[0].offset = 2;
            Run r = simulate_list(l);
            CHECK(r.has("access-bounds", "task 4 (DMA0 copy 'y') writes bytes [2, 66) of buffer y, which has 64 bytes"));
        }
    }
}

TEST_SUITE("vpu") {
    TEST_CASE("simulator: a chain of convs with double-buffered weights") {
        // 3 layers, 16 channels, 8x8: values against the convolution formula, layer by layer.
        const int layers = 3;
        const std::int64_t C = 16, H = 8, W = 8;
        const TaskList l = vpu_test::conv_chain(layers, C, H, W);
        nnef::Diagnostics diags(0);
        SimulateOptions o;
        o.values = true;
        auto in = nnef::tosa::ConstData::allocate({nnef::tosa::DType::fp32, {1, C, H, W}});
        std::vector<double> x(std::size_t(C * H * W));
        for (std::size_t i = 0; i < x.size(); ++i) x[i] = in->mutable_items<float>()[i] = float(int(i * 7 % 11) - 5) / 4.0f;
        o.inputs["input"] = in;
        const SimulationResult r = simulate(l, l.target, o, diags);
        std::string messages;
        for (const auto& d : diags) messages += d.message + "\n";
        CAPTURE(messages);
        REQUIRE(r.valid);
        for (int k = 0; k < layers; ++k) {
            std::vector<double> y(x.size());
            for (std::int64_t oc = 0; oc < C; ++oc)
                for (std::int64_t h = 0; h < H; ++h)
                    for (std::int64_t w = 0; w < W; ++w) {
                        float s = 0;
                        for (int ky = 0; ky < 3; ++ky)
                            for (int kx = 0; kx < 3; ++kx) {
                                const std::int64_t ih = h + ky - 1, iw = w + kx - 1;
                                if (ih < 0 || ih >= H || iw < 0 || iw >= W) continue;
                                for (std::int64_t ic = 0; ic < C; ++ic)
                                    s += float(x[std::size_t((ic * H + ih) * W + iw)]) * (float((oc + 2 * ic + 3 * ky + kx) % 5 - 2) / 16.0f);
                            }
                        y[std::size_t((oc * H + h) * W + w)] = nnef::tosa::fp16_to_fp32(nnef::tosa::fp32_to_fp16(s > 0 ? s : 0));
                    }
            x = y;
        }
        const auto& out = *r.outputs.at("output");
        const nnef_test::Comparison c =
            nnef_test::compare(std::vector<float>(out.items<float>(), out.items<float>() + out.type.volume()), x);
        CHECK(c.max_ref() > 0);
        // fp32 accumulation order differs from the test's only in rounding
        CHECK_MESSAGE(c.rel_l2_within(1e-3), c.summary());
        // The weights of layer 1 arrive while layer 0 computes.
        CHECK(r.times[3].start < r.times[5].end);
    }

    TEST_CASE("simulator: a long chain is NCE-bound, with 64 or 4 physical barriers") {
        for (std::int64_t physical : {64, 4}) {
            CAPTURE(physical);
            const TaskList l = vpu_test::conv_chain(40, 64, 28, 28, physical);
            nnef::Diagnostics diags(0);
            const SimulationResult r = simulate(l, l.target, {}, diags);
            std::string messages;
            for (const auto& d : diags) messages += d.message + "\n";
            CAPTURE(messages);
            REQUIRE(r.valid);
            // Each conv: 28x28 -> 28x28 padded plane, 64 x 9 x 64 MACs per pixel / 1024 + 300.
            const double conv = 300 + 28.0 * 28 * 64 * 9 * 64 / 1024;
            CHECK(r.bound.engine == doctest::Approx(40 * conv));
            CHECK(r.bound.engine_queue == "NCE0");
            CHECK(r.makespan >= r.bound.value());
            CHECK(r.makespan / r.bound.value() < 1.05);  // prefetch hides all but the first weights and the edges
            CHECK(r.queues[2].share > 0.95);
        }
    }
}

// input DDR -> CMX, weights and table DDR -> CMX, one NCE task, output CMX -> DDR; all on cluster 0.
TaskList single_nce(const Task& nce_template, DataType in_t, std::vector<std::int64_t> in_shape, DataType w_t,
                    std::vector<std::int64_t> w_shape, std::shared_ptr<const std::vector<std::uint8_t>> w_data,
                    std::shared_ptr<const std::vector<std::uint8_t>> table, DataType out_t, std::vector<std::int64_t> out_shape) {
    using vpu_test::buffer;
    auto bytes = [](const std::vector<std::int64_t>& s, DataType t) {
        std::int64_t n = element_bytes(t);
        for (auto e : s) n *= e;
        return n;
    };
    TaskList l;
    l.graph = "single";
    const std::int64_t ib = bytes(in_shape, in_t), wb = bytes(w_shape, w_t), tb = std::int64_t(table->size()), ob = bytes(out_shape, out_t);
    l.buffers = {buffer("x", Memory::DDR, 0, 0, ib, in_t, Role::input), buffer("w", Memory::DDR, 0, 4096, wb, w_t, Role::weights),
                 buffer("t", Memory::DDR, 0, 8192, tb, DataType::int32, Role::table), buffer("y", Memory::DDR, 0, 12288, ob, out_t, Role::output),
                 buffer("cx", Memory::CMX, 0, 0, ib, in_t, Role::activation), buffer("cw", Memory::CMX, 0, 4096, wb, w_t, Role::weights),
                 buffer("ct", Memory::CMX, 0, 8192, tb, DataType::int32, Role::table), buffer("cy", Memory::CMX, 0, 12288, ob, out_t, Role::activation)};
    l.buffers[1].data = w_data;
    l.buffers[2].data = table;
    l.inputs = {{"x", "x", in_shape, "NHWC", in_t}};
    l.outputs = {{"y", "y", out_shape, "NHWC", out_t}};
    l.barriers = {{0, 0}, {1, 1}};
    const std::int64_t ie = element_bytes(in_t), we = element_bytes(w_t), oe = element_bytes(out_t);
    const Target t;
    l.tasks.push_back(vpu_test::dma(0, "DMA0", Access::dense("x", 0, in_shape, ie), Access::dense("cx", 0, in_shape, ie), {}, {0}, dma_cycles(t, ib, true), "x"));
    l.tasks.push_back(vpu_test::dma(1, "DMA1", Access::dense("w", 0, w_shape, we), Access::dense("cw", 0, w_shape, we), {}, {0}, dma_cycles(t, wb, true), "w"));
    l.tasks.push_back(vpu_test::dma(2, "DMA0", Access::dense("t", 0, {tb / 16, 4}, 4), Access::dense("ct", 0, {tb / 16, 4}, 4), {}, {0}, dma_cycles(t, tb, true), "t"));
    Task n = nce_template;
    n.id = 3;
    n.queue = "NCE0";
    n.kind = TaskKind::NCE;
    n.reads.insert(n.reads.begin(), Access::dense("cx", 0, in_shape, ie));
    if (n.op == "conv" || n.op == "dwconv") n.reads.push_back(Access::dense("cw", 0, w_shape, we));
    n.reads.push_back(Access::dense("ct", 0, {tb / 16, 4}, 4));
    n.writes = {Access::dense("cy", 0, out_shape, oe)};
    n.wait = {0};
    n.update = {1};
    n.cycles = *task_cycles(l, n, t);
    l.tasks.push_back(n);
    l.tasks.push_back(vpu_test::dma(4, "DMA0", Access::dense("cy", 0, out_shape, oe), Access::dense("y", 0, out_shape, oe), {1}, {}, dma_cycles(t, ob, true), "y"));
    return l;
}

std::shared_ptr<const std::vector<std::uint8_t>> int8_bytes(const std::vector<int>& v) {
    auto out = std::make_shared<std::vector<std::uint8_t>>();
    for (int x : v) out->push_back(std::uint8_t(std::int8_t(x)));
    return out;
}

TEST_SUITE("vpu") {
    TEST_CASE("simulator: int8 conv with per-channel requantization (TOSA apply_scale_32)") {
        // 1x1 conv of 2 int8 channels to 1, input_zp 1, output_zp -3; table: scale 2^30 / 2^32 = 0.25, bias 10.
        Task c;
        c.op = "conv";
        c.nce.post_op = PostOp::relu;
        c.nce.quantized = true;
        c.nce.input_zp = 1;
        c.nce.output_zp = -3;
        const TaskList l = single_nce(c, DataType::int8, {1, 2, 2, 2}, DataType::int8, {1, 1, 1, 2}, int8_bytes({2, -1}),
                                      vpu_test::int32_bytes({0, 32, 1 << 30, 10}), DataType::int8, {1, 2, 2, 1});
        SimulateOptions o;
        o.values = true;
        auto x = nnef::tosa::ConstData::allocate({nnef::tosa::DType::i32, {1, 2, 2, 2}});  // NCHW
        const int nhwc[8] = {5, -3, 7, 0, 2, 2, -128, 127};
        for (int h = 0; h < 2; ++h)
            for (int w = 0; w < 2; ++w)
                for (int ch = 0; ch < 2; ++ch) x->mutable_items<std::int32_t>()[(ch * 2 + h) * 2 + w] = nhwc[(h * 2 + w) * 2 + ch];
        o.inputs["x"] = x;
        nnef::Diagnostics d(0);
        const SimulationResult r = simulate(l, l.target, o, d);
        std::string messages;
        for (const auto& e : d) messages += e.message + "\n";
        CAPTURE(messages);
        REQUIRE(r.valid);
        // By hand: acc = (x0 - 1) 2 + (x1 - 1)(-1) + 10; (acc 2^30 + 2^31) >> 32; -3; relu at the zero point -3.
        // (5,-3): 22 -> 6 -> 3. (7,0): 23 -> 6 -> 3. (2,2): 11 -> 3 -> 0. (-128,127): -374 -> -93 -> -96 -> -3.
        const auto& y = *r.outputs.at("y");
        CHECK(y.type.dtype == nnef::tosa::DType::i32);
        CHECK(std::vector<std::int32_t>(y.items<std::int32_t>(), y.items<std::int32_t>() + 4) == std::vector<std::int32_t>{3, 3, 0, -3});
        CHECK(r.cycles[3] == 300 + 4 * 4 * 16 * 16 / 2048);
    }

    TEST_CASE("simulator: fp16 avgpool counts only the taps inside the input") {
        // 3x3 average, stride 1, padding 1 on a 2x2 single-channel image: every window holds all 4 pixels.
        Task p;
        p.op = "avgpool";
        p.nce.kernel = {3, 3};
        p.nce.pad = {1, 1, 1, 1};
        const TaskList l = single_nce(p, DataType::fp16, {1, 2, 2, 1}, DataType::fp16, {1}, vpu_test::fp16_bytes({0}),
                                      vpu_test::int32_bytes({0, 0, vpu_test::float_bits(2.0f), vpu_test::float_bits(-1.0f)}), DataType::fp16,
                                      {1, 2, 2, 1});
        SimulateOptions o;
        o.values = true;
        auto x = nnef::tosa::ConstData::allocate({nnef::tosa::DType::fp32, {1, 1, 2, 2}});
        const float v[4] = {1, 2, 3, 6};
        for (int i = 0; i < 4; ++i) x->mutable_items<float>()[i] = v[i];
        o.inputs["x"] = x;
        nnef::Diagnostics d(0);
        const SimulationResult r = simulate(l, l.target, o, d);
        std::string messages;
        for (const auto& e : d) messages += e.message + "\n";
        CAPTURE(messages);
        REQUIRE(r.valid);
        // (1 + 2 + 3 + 6) / 4 = 3, times the table's scale 2 plus its bias -1 = 5.
        const auto& y = *r.outputs.at("y");
        for (int i = 0; i < 4; ++i) CHECK(y.items<float>()[i] == 5.0f);
    }
}

TEST_SUITE("vpu") {
    TEST_CASE("simulator: a SHAVE kernel run by the TOSA interpreter (transpose)") {
        // The conv replaced by SHAVE0.0 `transpose` (TOSA TRANSPOSE, perms NHWC -> NCHW): the output,
        // stated in layout NCHW, is the NNEF input itself.
        TaskList l = vpu_test::conv_list();
        Task& s = l.tasks[3];
        s.queue = "SHAVE0.0";
        s.kind = TaskKind::SHAVE;
        s.op = s.shave.kernel = "transpose";
        s.shave.attrs = {{"attributes", {{"perms", {0, 3, 1, 2}}}}};
        s.reads = {Access::dense("cx", 0, {1, 4, 4, 2}, 2)};
        s.writes = {Access::dense("cy", 0, {1, 2, 4, 4}, 2)};
        s.cycles = 1200 + 16;
        l.tasks[4].reads[0] = Access::dense("cy", 0, {1, 2, 4, 4}, 2);
        l.tasks[4].writes[0] = Access::dense("y", 0, {1, 2, 4, 4}, 2);
        l.outputs[0].shape = {1, 2, 4, 4};
        l.outputs[0].layout = "NCHW";
        l.tasks.erase(l.tasks.begin() + 1, l.tasks.begin() + 3);  // no weights, no table
        l.tasks[0].update = {0};
        Run r = simulate_list(l, true);
        CAPTURE(r.messages());
        REQUIRE(r.result.valid);
        const auto& y = *r.result.outputs.at("y");
        const auto input = vpu_test::conv_input();
        const auto& x = *input;
        for (int i = 0; i < 32; ++i) CHECK(y.items<float>()[i] == x.items<float>()[i]);
        // An attribute TRANSPOSE does not have.
        l.tasks[1].shave.attrs = {{"attributes", {{"perms", {0, 3, 1, 2}}, {"axis", 1}}}};
        Run bad = simulate_list(l, true);
        CHECK(bad.has("bad-values", "task 3 (SHAVE0.0 transpose): SHAVE kernel 'transpose': TRANSPOSE has no attribute 'axis'"));
    }

    TEST_CASE("simulator: the native SHAVE kernels are TOSA operators (softmax, clamp, logical_not, comparisons)") {
        // The conv replaced by one SHAVE kernel on the input x (NHWC [1,4,4,2] fp16) into y.
        auto run = [](const std::string& kernel, const nlohmann::json& attrs, int operands) {
            TaskList l = vpu_test::conv_list();
            Task& s = l.tasks[3];
            s.queue = "SHAVE0.0";
            s.kind = TaskKind::SHAVE;
            s.op = s.shave.kernel = kernel;
            s.shave.attrs = attrs;
            s.reads.assign(std::size_t(operands), Access::dense("cx", 0, {1, 4, 4, 2}, 2));
            s.writes = {Access::dense("cy", 0, {1, 4, 4, 2}, 2)};
            s.cycles = shave_cycles(l.target, kernel, 32);
            l.tasks.erase(l.tasks.begin() + 1, l.tasks.begin() + 3);  // no weights, no table
            l.tasks[0].update = {0};
            return simulate_list(l, true);
        };
        auto each = [](const Run& r, auto&& want) {
            REQUIRE(r.result.valid);
            const auto& y = *r.result.outputs.at("y");
            for (int c = 0; c < 2; ++c)
                for (int h = 0; h < 4; ++h)
                    for (int w = 0; w < 4; ++w) {
                        CAPTURE(c);
                        CAPTURE(h);
                        CAPTURE(w);
                        want(y.items<float>()[(c * 4 + h) * 4 + w], c, h, w);
                    }
        };
        SUBCASE("softmax over the channels") {
            each(run("softmax", {{"axis", 3}}, 1), [](float y, int c, int h, int w) {
                const double a = vpu_test::input_at(c, h, w), b = vpu_test::input_at(1 - c, h, w);
                const double want = 1.0 / (1.0 + std::exp(b - a));
                CHECK(std::fabs(y - want) <= 1e-3);  // fp16's rounding of a value below 1
            });
        }
        SUBCASE("clamp") {
            each(run("clamp", {{"min", -1}, {"max", 1}}, 1), [](float y, int c, int h, int w) {
                CHECK(y == std::min(1.0f, std::max(-1.0f, vpu_test::input_at(c, h, w))));
            });
        }
        SUBCASE("logical_not: a bool operand is true when nonzero, the bool result fp16 1 / 0") {
            each(run("logical_not", nlohmann::json::object(), 1),
                 [](float y, int c, int h, int w) { CHECK(y == (vpu_test::input_at(c, h, w) == 0.0f ? 1.0f : 0.0f)); });
        }
        SUBCASE("comparisons of x with itself") {
            each(run("greater", nlohmann::json::object(), 2), [](float y, int, int, int) { CHECK(y == 0.0f); });
            each(run("greater_equal", nlohmann::json::object(), 2), [](float y, int, int, int) { CHECK(y == 1.0f); });
        }
        SUBCASE("TOSA's rules are the kernel's: a clamp with max < min") {
            const Run r = run("clamp", {{"min", 1}, {"max", -1}}, 1);
            CHECK(r.has("bad-values", "task 3 (SHAVE0.0 clamp): SHAVE kernel 'clamp': "));
            CHECK(r.has("bad-values", "max_val < min_val"));
        }
    }
}

}  // namespace simulator_test
