// Issue 21 point 4 (docs/schedule.md step 35): regions emitted as a wavefront
// (schedule_wavefront.cpp). Two ConvNeXt blocks in small: a 7x7 depthwise conv, a 1x1 conv to four
// times the channels, the exporter's erf polynomial on it (`reciprocal` and `exp` on the SHAVE
// engines: a pipelined run), a 1x1 conv back and the residual add. In layer order the second
// block's depthwise conv waits for the whole of the first block, whose run then has the SHAVE
// engines while the NCE waits for it; in a wavefront its rows start while the run's later waves
// compute.
#include <doctest/doctest.h>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "lowering/vpu/passes/scheduler.hpp"
#include "unit/vpu/compile_support.hpp"
#include "unit/vpu/elementwise_ops.hpp"

namespace wavefront_test {

using namespace vpu_compile_support;
using I = std::vector<std::int64_t>;

// z = h * (1 + erf(h / sqrt 2)), erf by the exporter's polynomial (Abramowitz and Stegun 7.1.26)
ValueId gelu(Graph& g, ValueId h, const I& s) {
    const ValueId u = mul(g, h, fixed(g, 0.70710678f), s);
    const ValueId t = unary(g, OpKind::RECIPROCAL, add(g, mul(g, unary(g, OpKind::ABS, u, s), fixed(g, 0.3275911f), s), fixed(g, 1.0f), s), s);
    ValueId p = mul(g, t, fixed(g, 1.061405f), s);
    for (float c : {-1.453152f, 1.421413f, -0.284496f, 0.254829592f}) p = mul(g, add(g, p, fixed(g, c), s), t, s);
    const ValueId e = unary(g, OpKind::EXP, mul(g, mul(g, u, fixed(g, -1.0f), s), u, s), s);
    return mul(g, add(g, mul(g, p, e, s), fixed(g, 1.0f), s), h, s);
}

ValueId block(Graph& g, ValueId x, std::int64_t H, std::int64_t C, unsigned seed) {
    const I s{1, H, H, C}, wide{1, H, H, 4 * C};
    const ValueId d = g.add_op(0, OpKind::DEPTHWISE_CONV2D, {x, constant(g, {7, 7, C, 1}, seed, 0.1f), constant(g, {C}, seed + 1, 0.1f), zero(g), zero(g)},
                               {f32(s)}, conv_attrs({3, 3, 3, 3}))
                          .outputs[0];
    const ValueId h = g.add_op(0, OpKind::CONV2D, {d, constant(g, {4 * C, 1, 1, C}, seed + 2, 0.1f), constant(g, {4 * C}, seed + 3, 0.1f), zero(g), zero(g)},
                               {f32(wide)}, conv_attrs({0, 0, 0, 0}))
                          .outputs[0];
    const ValueId y = g.add_op(0, OpKind::CONV2D, {gelu(g, h, wide), constant(g, {C, 1, 1, 4 * C}, seed + 4, 0.05f), constant(g, {C}, seed + 5, 0.1f), zero(g), zero(g)},
                               {f32(s)}, conv_attrs({0, 0, 0, 0}))
                          .outputs[0];
    return add(g, y, x, s);
}

Graph two_blocks(std::int64_t H, std::int64_t C) {
    Graph g;
    g.name = "two_blocks";
    const ValueId x = input_x(g, "two_blocks", {1, H, H, C});
    output_z(g, block(g, block(g, x, H, C, 10), H, C, 20));
    return g;
}

struct Scheduled {
    vpu::ir::Module m;
    std::vector<std::pair<std::size_t, std::size_t>> regions, runs;
    double makespan = 0.0;
};

// The schedule pass's first attempt, runs pipelined, in layer order or (`wavefront`) as a wavefront
// with the regions' pipelined runs in parts of one row, as `schedule` makes it; with `lead`, each
// run's 1x1 conv before it in its rows too, leading it (docs/schedule.md step 42).
// With `bands` off, a run's conv in channel chunks keeps the tile pass's order (docs/schedule.md
// step 46); `per_sweep`: Scheduler::region_tiles_per_sweep; `together`: its band_chunks_together.
Scheduled attempt(const vpu::ir::Module& ready, bool wavefront, bool lead = false, bool bands = true, int per_sweep = 3,
                  bool together = false) {
    Scheduled r;
    r.m = ready;
    Diagnostics d{0};
    if (wavefront) {
        vpu::ir::Module probe = ready;
        vpu::ir::schedule_impl::Scheduler s(probe, d);
        first_attempt_budgets(s, probe.target);
        s.stream_pipeline = true;
        REQUIRE(s.run());
        const std::size_t convs = vpu::ir::schedule_impl::split_run_rows(r.m, s.region_runs(), lead, bands);
        CHECK((convs > 0) == lead);
    }
    // at the first attempt's budgets, or as the schedule pass retries where the allocator finds no
    // room: the largest held result live at the first buffer without a place not held (five times),
    // then a smaller stream budget
    for (const std::int64_t sixteenths : {12, 8, 4}) {
        std::set<int> banned;
        for (int bans = 0; bans <= 5 && r.runs.empty(); ++bans) {
            r.m.tasks.clear();
            r.m.cmx.clear();
            vpu::ir::schedule_impl::Scheduler s(r.m, d);
            first_attempt_budgets(s, r.m.target);
            s.stream_budget = r.m.target.cmx_bytes / 16 * sixteenths;
            s.banned = banned;
            s.stream_pipeline = true;
            s.wavefront = wavefront;
            s.lead_convs = lead;
            s.region_tiles_per_sweep = per_sweep;
            s.band_chunks_together = together;
            REQUIRE(s.run());
            Diagnostics trial{0};
            if (vpu::ir::allocate_cmx(r.m, trial)) {
                r.regions = s.regions;
                r.runs = s.region_runs();
                break;
            }
            const int spill = s.spill_choice();
            if (spill < 0) break;
            banned.insert(spill);
        }
        if (!r.runs.empty()) break;
    }
    REQUIRE(!r.runs.empty());
    r.makespan = vpu::ir::schedule_impl::simulated_makespan(r.m);
    return r;
}

TEST_SUITE("vpu") {
    TEST_CASE("a region emitted as a wavefront: the next block's rows go while the run's later waves compute, with the interpreter's values") {
        const Graph g = two_blocks(56, 64);
        vpu::ir::Module ready;
        ready_to_schedule(ready, g);
        const Scheduled plain = attempt(ready, false), wave = attempt(ready, true);

        // one region from the first depthwise conv on, with both blocks' runs, pipelined
        REQUIRE(plain.regions.size() == 1);
        CHECK(plain.runs.size() == 2);
        CHECK(wave.regions.size() == 1);
        // in parts of one row in the wavefront (of more, as the tile pass makes them, in layer order)
        std::int64_t widest = 0;
        for (const vpu::ir::Tile& tl : plain.m.tiles)
            if (std::size_t(tl.layer) >= plain.runs.front().first && std::size_t(tl.layer) <= plain.runs.front().second) widest = std::max(widest, tl.rows);
        CHECK(widest > 1);
        for (const auto& run : wave.runs) {
            const std::size_t first = run.first, last = run.second;
            CAPTURE(first);
            for (const vpu::ir::Tile& tl : wave.m.tiles)
                if (std::size_t(tl.layer) >= first && std::size_t(tl.layer) <= last) CHECK(tl.rows == 1);
        }

        // the second block's first 7x7 depthwise conv task and the first block's last `exp`: the
        // first block's tasks of each come first in both orders (its depthwise conv reads the input
        // alone, its run ends before the next run starts), so they are counted by its tiles
        std::vector<std::size_t> dw, exp;
        for (std::size_t li = 0; li < ready.layers.size(); ++li) {
            const vpu::ir::Layer& l = ready.layers[li];
            if (l.exec == vpu::ir::Exec::nce && l.nce_op == vpu::ir::NceOp::dwconv && l.nce.kernel[0] == 7) dw.push_back(li);
            if (l.exec == vpu::ir::Exec::shave && l.shave.name == "exp") exp.push_back(li);
        }
        REQUIRE(dw.size() == 2);
        REQUIRE(exp.size() == 2);
        auto order = [&](const vpu::ir::Module& m) {
            std::size_t dw1 = 0, dw2 = 0, exp1 = 0, exp2 = 0;
            for (const vpu::ir::Tile& tl : m.tiles) {
                dw1 += std::size_t(tl.layer) == dw[0];
                dw2 += std::size_t(tl.layer) == dw[1];
                exp1 += std::size_t(tl.layer) == exp[0];
                exp2 += std::size_t(tl.layer) == exp[1];
            }
            std::vector<std::size_t> dws, exps;
            for (std::size_t i = 0; i < m.tasks.size(); ++i) {
                if (m.tasks[i].op == "dwconv" && m.tasks[i].nce.kernel[0] == 7) dws.push_back(i);
                if (m.tasks[i].op == "exp") exps.push_back(i);
            }
            REQUIRE(dws.size() == dw1 + dw2);
            REQUIRE(exps.size() == exp1 + exp2);
            return std::make_pair(dws[dw1], exps[exp1 - 1]);
        };
        const auto [p_dw, p_exp] = order(plain.m);
        const auto [w_dw, w_exp] = order(wave.m);
        CHECK(p_dw > p_exp);  // layer order: after the whole of the first block
        CHECK(w_dw < w_exp);  // wavefront: while the first block's run computes

        // in time (measured: see the message)
        MESSAGE("makespan in layer order " << plain.makespan << ", as a wavefront " << wave.makespan);
        REQUIRE(plain.makespan < 1e300);
        CHECK(wave.makespan < 0.95 * plain.makespan);

        // and the whole compiler keeps it, with the interpreter's values
        vpu::TaskList list;
        compile_check_and_time(g, vpu::Target{}, list);
        std::size_t tasks_with_one_row = 0;
        for (const auto& task : list.tasks)
            if (task.op == "exp" && task.writes.size() == 1 && task.writes[0].shape.size() == 4 && task.writes[0].shape[1] == 1) ++tasks_with_one_row;
        CHECK(tasks_with_one_row > 0);
    }

    // docs/schedule.md step 42: the 1x1 conv before each block's run (4 x the channels) in the
    // run's rows leads it, its rows made in the stage 0 of the wave that reads them and kept in
    // CMX; without it the conv ran ahead of the run, all of its rows stored to DDR and loaded again
    // part by part, and the next block's run waited for the whole conv.
    TEST_CASE("a wavefront's runs led by their 1x1 convs: the convs' results never leave CMX") {
        const Graph g = two_blocks(56, 64);
        vpu::ir::Module ready;
        ready_to_schedule(ready, g);
        const Scheduled wave = attempt(ready, true), led = attempt(ready, true, true);
        REQUIRE(wave.runs.size() == 2);
        REQUIRE(led.runs.size() == 2);
        std::int64_t stored_wave = 0, stored_led = 0;
        for (std::size_t k = 0; k < 2; ++k) {
            // the run starts one layer earlier, at the conv, whose tiles are the run's one-row parts
            CHECK(led.runs[k].first + 1 == wave.runs[k].first);
            CHECK(led.runs[k].second == wave.runs[k].second);
            const std::size_t conv = led.runs[k].first;
            CHECK(ready.layers[conv].nce_op == vpu::ir::NceOp::conv);
            for (const vpu::ir::Tile& tl : led.m.tiles)
                if (std::size_t(tl.layer) == conv) CHECK(tl.rows == 1);
            // its result stored to DDR in the wavefront, never when it leads the run
            const int x = ready.layers[conv].output.tensor;
            auto stored = [&](const vpu::ir::Module& m) {
                std::int64_t bytes = 0;
                for (const vpu::ir::Task& t : m.tasks)
                    if (t.kind == vpu::TaskKind::DMA && !t.writes[0].ref.cmx && t.writes[0].ref.index == x) {
                        std::int64_t n = 2;  // fp16
                        for (std::int64_t d : t.writes[0].shape) n *= d;
                        bytes += n;
                    }
                return bytes;
            };
            stored_wave += stored(wave.m);
            stored_led += stored(led.m);
        }
        CHECK(stored_wave > 0);
        CHECK(stored_led == 0);
        MESSAGE("makespan as a wavefront " << wave.makespan << ", its runs led by their convs " << led.makespan);
        REQUIRE(wave.makespan < 1e300);
        CHECK(led.makespan < wave.makespan);
    }

    // docs/schedule.md step 46: ConvNeXt's stage 2 in small. The 1x1 conv before each run (192 ->
    // 768 channels, 295 KB of weights) takes two chunks of output channels over bands of rows: it
    // cannot lead its run (a part would need all 768 channels), and in the tile pass's order (every
    // band of the first chunk, then of the second, the bands dealt round the clusters) no band is
    // whole before the last chunk's tiles, so the conv was no region layer and the next run waited
    // for all of it. Band by band, chunk c on cluster c, the conv joins the region: its bands go
    // between the run before's iterations, and each cluster loads one chunk's weights.
    TEST_CASE("a run's conv in channel chunks joins its wavefront region band by band, each chunk on its cluster") {
        const Graph g = two_blocks(28, 192);
        vpu::ir::Module ready;
        ready_to_schedule(ready, g);
        const Scheduled plain = attempt(ready, true, false, false), banded = attempt(ready, true);
        REQUIRE(banded.runs.size() == 2);
        const std::size_t conv = banded.runs[1].first - 1;  // the second block's 1x1 conv before its run
        REQUIRE(ready.layers[conv].nce_op == vpu::ir::NceOp::conv);
        CHECK(vpu::ir::schedule_impl::conv_bands(ready, conv));
        // in the tile pass's order: chunk by chunk, bands dealt round the clusters
        std::vector<vpu::ir::Tile> before, after;
        for (const vpu::ir::Tile& tl : ready.tiles)
            if (std::size_t(tl.layer) == conv) before.push_back(tl);
        for (const vpu::ir::Tile& tl : banded.m.tiles)
            if (std::size_t(tl.layer) == conv) after.push_back(tl);
        REQUIRE(before.size() >= 4);
        REQUIRE(after.size() == before.size());
        CHECK(before[0].channel_tile == before[1].channel_tile);
        for (std::size_t i = 0; i < after.size(); ++i) {
            CAPTURE(i);
            CHECK(after[i].row0 == after[i - i % 2].row0);  // two chunks a band, the bands in order
            if (i >= 2) CHECK(after[i].row0 > after[i - 2].row0);
            CHECK(after[i].channel_tile == std::int64_t(i % 2));
            CHECK(after[i].cluster == std::int64_t(i % 2));
        }
        // one region over both blocks with it; without, it ends before that conv
        CHECK(banded.regions.size() == 1);
        for (const auto& [a, b] : plain.regions) CHECK((conv < a || conv > b));
        // its first band's tasks go before the first block's last `exp` (the first block's conv and
        // run come first in the list: counted by their tiles)
        const std::size_t conv1 = banded.runs[0].first - 1;
        std::size_t exp1 = 0, conv1_tiles = 0;
        for (const vpu::ir::Tile& tl : banded.m.tiles) {
            conv1_tiles += std::size_t(tl.layer) == conv1;
            exp1 += ready.layers[std::size_t(tl.layer)].exec == vpu::ir::Exec::shave && ready.layers[std::size_t(tl.layer)].shave.name == "exp" &&
                    std::size_t(tl.layer) < banded.runs[1].first;
        }
        std::vector<std::size_t> convs, exps;  // the 1x1 convs' tasks of 384 output channels (the chunks), `exp`
        for (std::size_t i = 0; i < banded.m.tasks.size(); ++i) {
            const vpu::ir::Task& t = banded.m.tasks[i];
            if (t.op == "exp") exps.push_back(i);
            if (t.kind == vpu::TaskKind::NCE && t.op == "conv" && t.writes[0].shape.size() == 4 && t.writes[0].shape[3] == 384) convs.push_back(i);
        }
        REQUIRE(convs.size() == conv1_tiles + after.size());
        REQUIRE(exps.size() > exp1);
        CHECK(convs[conv1_tiles] < exps[exp1 - 1]);
        // each cluster loads the weights of its chunk only (one DMA each), where the bands dealt
        // round the clusters had both chunks on each
        const vpu::ir::Layer& c = ready.layers[conv];
        auto weights_loads = [&](const vpu::ir::Module& m) {
            std::size_t n = 0;
            for (const vpu::ir::Task& t : m.tasks)
                if (t.kind == vpu::TaskKind::DMA && !t.reads[0].ref.cmx && t.reads[0].ref.index == c.weights && t.reads[0].offset >= c.weights_offset &&
                    t.reads[0].offset < c.weights_offset + c.weights_bytes())
                    ++n;
            return n;
        };
        CHECK(weights_loads(banded.m) == 2);
        CHECK(weights_loads(plain.m) == 4);
        MESSAGE("makespan as a wavefront " << plain.makespan << ", the conv band by band " << banded.makespan);
        REQUIRE(plain.makespan < 1e300);
        CHECK(banded.makespan < plain.makespan);

        // step 47: with a band's chunks emitted together, no task of another layer goes into the
        // list between a band's two chunks (only the conv's own transfers); without, a band's
        // second chunk waits for its engine's estimated free time, and others go first
        const Scheduled together = attempt(ready, true, false, true, 3, true);
        auto interleaved = [&](const vpu::ir::Module& m) {
            std::size_t n = 0, chunk = 0;
            bool open = false;
            for (std::size_t i = 0; i < m.tasks.size(); ++i) {
                const vpu::ir::Task& t = m.tasks[i];
                const bool ours = t.kind == vpu::TaskKind::NCE && t.op == "conv" && t.writes[0].shape.size() == 4 && t.writes[0].shape[3] == 384;
                if (ours) {
                    if (chunk++ < conv1_tiles) continue;  // the first block's conv
                    open = !open;                         // a band's first chunk opens it, its second closes it
                } else if (open && t.kind != vpu::TaskKind::DMA) {
                    ++n;
                }
            }
            return n;
        };
        CHECK(interleaved(together.m) == 0);
        CHECK(interleaved(banded.m) > 0);
        MESSAGE("with a band's chunks together " << together.makespan);
    }
}

}  // namespace wavefront_test
