// Issue 21 point 4 (docs/schedule.md step 16): a streamed run's leading NCE layers (ConvNeXt's
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

#include "unit/vpu/compile_support.hpp"
#include "unit/vpu/elementwise_ops.hpp"

namespace {

using namespace vpu_compile_support;
using I = std::vector<std::int64_t>;

// u = x / sqrt 2 (a scale: an NCE 1x1 pool), then a chain of SHAVE kernels and NCE products on u as
// the exporter's erf has them: t = 1 / (1 + |u|), e = exp(-u u), z = t e + u.
Graph scaled_chain(std::int64_t H, std::int64_t W, std::int64_t C) {
    const I s{1, H, W, C};
    Graph g;
    g.name = "scaled_chain";
    const ValueId x = g.add_value(f32(s), "x");
    g.main().inputs = {x};
    const ValueId u = mul(g, x, fixed(g, 0.70710678f), s);
    const ValueId t = unary(g, OpKind::RECIPROCAL, add(g, unary(g, OpKind::ABS, u, s), fixed(g, 1.0f), s), s);
    const ValueId e = unary(g, OpKind::EXP, mul(g, mul(g, u, fixed(g, -1.0f), s), u, s), s);
    const ValueId z = add(g, mul(g, t, e, s), u, s);
    g.values[z].name = "z";
    g.main().outputs = {z};
    return g;
}

}  // namespace

TEST_SUITE("vpu") {
    TEST_CASE("a streamed run's leading NCE layer goes a wave ahead") {
        const vpu::Target t;
        vpu::TaskList list;
        const auto r = compile_check_and_time(scaled_chain(56, 56, 384), t, list);  // 2.4 MB per result
        // u's parts: the NCE tasks writing the buffers the abs kernels read (u's parts)
        std::set<std::string> u;
        for (const auto& task : list.tasks)
            if (task.op == "abs") u.insert(task.reads[0].buffer);
        REQUIRE_FALSE(u.empty());
        std::vector<std::size_t> lead, exp;
        for (std::size_t i = 0; i < list.tasks.size(); ++i) {
            const auto& task = list.tasks[i];
            if (task.kind == vpu::TaskKind::NCE && u.count(task.writes[0].buffer)) lead.push_back(i);
            if (task.op == "exp") exp.push_back(i);
        }
        const std::size_t wave = std::size_t(t.clusters * t.shave_per_cluster);
        REQUIRE(lead.size() >= 2 * wave);
        REQUIRE(exp.size() == lead.size());
        // in program order, the second wave's parts of u come before the first wave's exp parts (with
        // each wave emitted whole they came after all of the first wave's tasks)
        CHECK(lead[wave] < exp.front());
        // and in time the SHAVE engines hardly wait between waves: 97.8% busy (90.4% with each wave
        // emitted whole: makespan 1052010 cycles against 966563)
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
}
