// Issue 21 point 4 (docs/schedule.md steps 16, 18 and 23): a streamed run's leading NCE layers (ConvNeXt's
// `x / sqrt 2` before the erf polynomial, whose input comes from DDR) go a wave ahead
// (schedule_stream.cpp `lead_layers`): emitted with the wave before, the next wave's first SHAVE
// kernels no longer wait, in queue order, for the current wave's NCE tail, its stores and the load
// of that layer's input.
#include <doctest/doctest.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "lowering/vpu/passes/scheduler.hpp"
#include "unit/vpu/compile_support.hpp"
#include "unit/vpu/elementwise_ops.hpp"

namespace stream_lead_test {

using namespace vpu_compile_support;
using I = std::vector<std::int64_t>;

// u = x / sqrt 2 (a scale: an NCE 1x1 pool), then a chain of SHAVE kernels and NCE products on u
// shaped as the exporter's erf was before its abs and negate went to the NCE (assign_executors_
// unary.cpp; `cos` stands for the SHAVE kernel on u that abs was): t = 1 / (2 + cos u),
// e = exp(-u u), z = t e + u. With `horner` (step 18's test) t goes through a Horner chain of NCE
// layers first, p = ((t a + b) t + c) t, and e is cos(exp(u) u): its exp (a SHAVE kernel reading u
// only) comes after the chain, z = p e + u.
Graph scaled_chain(std::int64_t H, std::int64_t W, std::int64_t C, bool horner = false) {
    const I s{1, H, W, C};
    Graph g;
    const ValueId u = scaled_input(g, horner ? "horner_chain" : "scaled_chain", s);
    ValueId t = unary(g, OpKind::RECIPROCAL, add(g, unary(g, OpKind::COS, u, s), fixed(g, 2.0f), s), s);
    ValueId e;
    if (horner) {
        const ValueId p = add(g, mul(g, t, fixed(g, 0.5f), s), fixed(g, 0.25f), s);
        t = mul(g, add(g, mul(g, p, t, s), fixed(g, 0.125f), s), t, s);
        e = unary(g, OpKind::COS, mul(g, unary(g, OpKind::EXP, u, s), u, s), s);
    } else {
        e = unary(g, OpKind::EXP, mul(g, mul(g, u, fixed(g, -1.0f), s), u, s), s);
    }
    output_z(g, add(g, mul(g, t, e, s), u, s));
    return g;
}

// u = x / sqrt 2 (an NCE 1x1 pool); t = 1 / (2 + cos u); a Horner chain of NCE layers on t (products
// by constants, additions of constants, products by t); n = sin u (a SHAVE kernel: the erf
// polynomial's negate was one before assign_executors_unary.cpp), e = exp(n u); z = p e + u: the
// erf polynomial's shape as it was.
Graph erf_like(std::int64_t H, std::int64_t W, std::int64_t C) {
    const I s{1, H, W, C};
    Graph g;
    const ValueId u = scaled_input(g, "erf_like", s);
    const ValueId t = unary(g, OpKind::RECIPROCAL, add(g, unary(g, OpKind::COS, u, s), fixed(g, 2.0f), s), s);
    ValueId p = mul(g, t, fixed(g, 1.061405f), s);
    // (twelve steps: since fuse-post-ops folds each `+ c` into the eltwise product before it, a
    // step is one NCE layer, and the chain must still outlast the `sin` kernel)
    const float coeffs[] = {-1.453152f, 1.421413f, -0.284496f, 0.254829f, -0.5f, 0.25f,
                            -1.453152f, 1.421413f, -0.284496f, 0.254829f, -0.5f, 0.25f};
    for (float c : coeffs) p = mul(g, add(g, p, fixed(g, c), s), t, s);
    const ValueId n = unary(g, OpKind::SIN, u, s);
    const ValueId e = unary(g, OpKind::EXP, mul(g, n, u, s), s);
    output_z(g, add(g, mul(g, p, e, s), u, s));
    return g;
}


TEST_SUITE("vpu") {
    TEST_CASE("a streamed run's leading NCE layer goes a wave ahead") {
        const vpu::Target t;
        const Graph g = scaled_chain(56, 56, 384);  // 2.4 MB per result
        vpu::TaskList list;
        const auto r = compile_check_and_time(g, t, list);
        // The run emitted wave by wave (the schedule pass's first attempt without software
        // pipelining, schedule_stream_pipeline.cpp, which the pass keeps for this graph: its order
        // is stream_pipeline_test's): u's parts are the NCE tasks writing the buffers the cos
        // kernels read
        vpu::ir::Module m;
        ready_to_schedule(m, g);
        Diagnostics d{0};
        vpu::ir::schedule_impl::Scheduler s(m, d);
        first_attempt_budgets(s, t);
        REQUIRE(s.run());
        std::set<int> u;
        for (const auto& task : m.tasks)
            if (task.op == "cos") u.insert(task.reads[0].ref.index);
        REQUIRE_FALSE(u.empty());
        std::vector<std::size_t> lead, exp;
        for (std::size_t i = 0; i < m.tasks.size(); ++i) {
            const auto& task = m.tasks[i];
            if (task.kind == vpu::TaskKind::NCE && task.writes[0].ref.cmx && u.count(task.writes[0].ref.index)) lead.push_back(i);
            if (task.op == "exp") exp.push_back(i);
        }
        const std::size_t wave = std::size_t(t.clusters * t.shave_per_cluster);
        REQUIRE(lead.size() >= 2 * wave);
        REQUIRE(exp.size() == lead.size());
        // in program order, the second wave's parts of u come before the first wave's exp parts (with
        // each wave emitted whole they came after all of the first wave's tasks)
        CHECK(lead[wave] < exp.front());
        // and in time the SHAVE engines hardly wait between waves (the list the pass keeps, pipelined:
        // 100% busy, makespan 952268 cycles; wave by wave with the lead 97.8%, 966563; with each
        // wave emitted whole 90.4%, 1052010)
        double busy = 0.0, first = 1e300, last = 0.0;
        for (std::size_t i = 0; i < list.tasks.size(); ++i)
            if (list.tasks[i].queue == "SHAVE0.0") {
                busy += double(r.cycles[i]);
                first = std::min(first, r.times[i].start);
                last = std::max(last, r.times[i].end);
            }
        MESSAGE("SHAVE0.0 busy " << busy << " of " << last - first << " cycles; makespan " << r.makespan << ", bound " << r.bound.value());
        CHECK(busy > 0.95 * (last - first));
    }

    // docs/schedule.md step 18: inside a wave a SHAVE kernel goes ahead of the NCE layers before it
    // that it does not read (emit_stream). ConvNeXt's erf polynomial has `neg` (of x only) after
    // the Horner chain's NCE products; emitted there, its buffer took bytes the chain had just read
    // and its engine waited for the chain (a WAR barrier).
    TEST_CASE("a streamed run's SHAVE kernel goes ahead of the NCE layers it does not read") {
        const vpu::Target t;
        vpu::TaskList list;
        const auto r = compile_check_and_time(scaled_chain(56, 56, 384, true), t, list);  // 2.4 MB per result
        // the exp and reciprocal parts in program order
        std::vector<std::size_t> exp, recip;
        for (std::size_t i = 0; i < list.tasks.size(); ++i) {
            if (list.tasks[i].op == "exp") exp.push_back(i);
            if (list.tasks[i].op == "reciprocal") recip.push_back(i);
        }
        const std::size_t wave = std::size_t(t.clusters * t.shave_per_cluster);
        REQUIRE(exp.size() >= 2 * wave);
        REQUIRE(recip.size() == exp.size());
        // NCE tasks between the first wave's last reciprocal and its first exp: none now (the chain
        // came there before)
        int nce_between = 0;
        for (std::size_t i = recip[wave - 1] + 1; i < exp.front(); ++i) nce_between += list.tasks[i].kind == vpu::TaskKind::NCE;
        CHECK(nce_between == 0);
        // (each kernel stays behind the SHAVE kernels before it: the engines' order is the run's)
        CHECK(exp.front() > recip[wave - 1]);
        // In time this graph gains nothing (SHAVE0.0 97.9% busy either way, makespan 1134350): its
        // CMX has room off the chain's bytes. On ConvNeXt-tiny, where it has not: 23088921 ->
        // 22956800 cycles.
        CHECK(r.makespan >= r.bound.value());
    }

    // docs/schedule.md step 23 (schedule_wave_order.cpp `wave_order`): inside a wave an NCE layer that
    // reads a SHAVE kernel's result goes earlier among the NCE layers after that kernel that it does
    // not read, as far as the NCE work left between the kernel and it still takes the kernel's time.
    // ConvNeXt's erf polynomial: `neg * x`, read by `exp`, came after the whole Horner chain.
    TEST_CASE("a streamed run's NCE layer after a SHAVE kernel goes among the NCE layers before it") {
        const vpu::Target t;
        vpu::TaskList list;
        const auto r = compile_check_and_time(erf_like(56, 56, 384), t, list);  // 2.4 MB per result
        // the sin parts' buffers, the NCE tasks reading them (n u) and the exp parts
        std::vector<std::string> neg_out;
        std::vector<std::size_t> neg, prod, exp;
        for (std::size_t i = 0; i < list.tasks.size(); ++i) {
            const auto& task = list.tasks[i];
            if (task.op == "sin") {
                neg.push_back(i);
                neg_out.push_back(task.writes[0].buffer);
            }
            if (task.op == "exp") exp.push_back(i);
            if (task.kind == vpu::TaskKind::NCE)
                for (const auto& rd : task.reads)
                    if (std::find(neg_out.begin(), neg_out.end(), rd.buffer) != neg_out.end()) prod.push_back(i);
        }
        const std::size_t wave = std::size_t(t.clusters * t.shave_per_cluster);
        REQUIRE(neg.size() >= 2 * wave);
        REQUIRE(prod.size() == neg.size());
        REQUIRE(exp.size() == neg.size());
        // the product p e of the first wave's first part: the Horner chain's last product p is made
        // after that wave's exp parts in program order, `n u` before them (the whole chain came
        // before `n u` and the exp parts)
        const auto& exp_out = list.tasks[exp.front()].writes[0].buffer;
        std::size_t pe = 0;
        for (std::size_t i = exp.front() + 1; i < list.tasks.size() && pe == 0; ++i)
            if (list.tasks[i].kind == vpu::TaskKind::NCE && list.tasks[i].reads.size() >= 2 && list.tasks[i].reads[1].buffer == exp_out) pe = i;
        REQUIRE(pe > 0);
        const auto& p_buf = list.tasks[pe].reads[0].buffer;
        std::size_t p_writer = 0;
        for (std::size_t i = 0; i < pe; ++i)
            if (list.tasks[i].kind == vpu::TaskKind::NCE && list.tasks[i].writes[0].buffer == p_buf) p_writer = i;
        MESSAGE("n u at task " << prod.front() << ", exp at " << exp.front() << ", the chain's last product at " << p_writer);
        CHECK(prod.front() < exp.front());
        CHECK(p_writer > exp.front());
        // in time: each exp part starts soon after its engine's sin part ends (at most 4448
        // cycles; with `n u` after the whole chain, its NCE layers two parts per cluster, every exp
        // waited for the chain: up to 20888 cycles on SHAVE0.0, makespan 1251610 against 1136530)
        double waited = 0.0;
        for (std::size_t k = 0; k < neg.size(); ++k) {
            if (list.tasks[neg[k]].queue != "SHAVE0.0") continue;
            const auto it = std::find_if(exp.begin(), exp.end(), [&](std::size_t i) { return list.tasks[i].queue == "SHAVE0.0" && i > neg[k]; });
            REQUIRE(it != exp.end());
            waited = std::max(waited, r.times[*it].start - r.times[neg[k]].end);
        }
        MESSAGE("SHAVE0.0: at most " << waited << " cycles from a sin's end to the next exp's start; makespan " << r.makespan);
        CHECK(waited < 8000.0);
        CHECK(r.makespan >= r.bound.value());
    }
}

}  // namespace stream_lead_test
