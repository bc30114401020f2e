// Helpers of the VPU compiler's unit tests on hand-built TOSA graphs (compile_test.cpp,
// shave_tile_test.cpp): pseudo-random constants, and compile_and_check, which compiles a graph,
// simulates the task list with values and compares each output with the TOSA interpreter's.
#pragma once
#include <doctest/doctest.h>

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "common/compare.hpp"
#include "lowering/tosa/interpreter.hpp"
#include "lowering/vpu/compiler.hpp"
#include "lowering/vpu/ir.hpp"
#include "lowering/vpu/passes/scheduler.hpp"
#include "lowering/vpu/simulator.hpp"

namespace vpu_compile_support {

using nnef::Diagnostics;
namespace vpu = nnef::vpu;
using namespace nnef::tosa;

inline ConstPtr filled(std::vector<std::int64_t> shape, unsigned seed, float scale) {
    auto c = ConstData::allocate({DType::fp32, shape});
    std::uint32_t s = seed * 2654435761u + 1;
    for (std::int64_t i = 0; i < c->type.volume(); ++i) {
        s = s * 1664525u + 1013904223u;
        c->mutable_items<float>()[i] = scale * (float((s >> 8) % 2001) / 1000.0f - 1.0f);
    }
    return c;
}

inline ValueId constant(Graph& g, std::vector<std::int64_t> shape, unsigned seed, float scale = 1.0f) {
    return g.add_const(0, filled(std::move(shape), seed, scale));
}
inline ValueId zero(Graph& g) { return constant(g, {1}, 0, 0.0f); }

inline TensorType f32(std::vector<std::int64_t> s) { return {DType::fp32, std::move(s)}; }

// The float32 items of an output, as a comparison helper reads them.
inline std::vector<float> floats(const ConstData& c) {
    const float* p = c.items<float>();
    return std::vector<float>(p, p + c.type.volume());
}

inline std::string text(const Diagnostics& d) {
    std::string s;
    for (const auto& x : d) s += x.code + ": " + x.message + "\n";
    return s;
}

// Compiles, simulates with values, and compares each output with the interpreter's.
inline void compile_and_check(const Graph& g, const vpu::Target& target, std::int64_t* tasks = nullptr, vpu::TaskList* out = nullptr) {
    Diagnostics d{0};
    vpu::CompileOptions co;
    const auto list = vpu::compile(g, target, co, d);
    INFO(text(d));
    REQUIRE(list);
    if (tasks) *tasks = std::int64_t(list->tasks.size());
    if (out) *out = *list;
    const ConstPtr x = filled(g.type(g.main().inputs[0]).shape, 9, 1.0f);
    InterpretOptions io;
    const auto want = interpret(g, {x}, io, d);
    REQUIRE(want);
    vpu::SimulateOptions so;
    so.values = true;
    so.inputs["x"] = x;
    const auto r = vpu::simulate(*list, target, so, d);
    INFO(text(d));
    REQUIRE(r.valid);
    for (std::int64_t c = 0; c < target.clusters; ++c) CHECK(r.cmx[std::size_t(c)].peak <= target.cmx_bytes);
    // the lower bound is one (docs/vpu.md): the float rounding of the event times aside
    CHECK(r.bound.value() <= r.makespan * (1 + 1e-12));
    for (std::size_t k = 0; k < g.main().outputs.size(); ++k) {
        const std::string name = g.value(g.main().outputs[k]).name;
        REQUIRE(r.outputs.count(name));
        CHECK(r.outputs.at(name)->type.shape == g.type(g.main().outputs[k]).shape);
        const nnef_test::Comparison c = nnef_test::compare(floats(*r.outputs.at(name)), floats(*(*want)[k]));
        INFO(name << ": " << c.summary());
        CHECK(c.rel_l2_within(1e-2));
    }
}

// compile_and_check, then the task list simulated again for its timing (no values), required valid.
inline vpu::SimulationResult compile_check_and_time(const Graph& g, const vpu::Target& target, vpu::TaskList& list) {
    compile_and_check(g, target, nullptr, &list);  // values: the interpreter's
    Diagnostics d{0};
    auto r = vpu::simulate(list, target, {}, d);
    REQUIRE(r.valid);
    return r;
}

// Runs the compiler's passes on `m` (its graph and target set) up to and including `last`, each
// verified after it.
inline void run_passes_until(vpu::ir::Module& m, const std::string& last) {
    for (const auto& pass : vpu::compile_pipeline().passes) {
        Diagnostics d{0};
        REQUIRE(pass.run(m, d));
        INFO(pass.name << ": " << text(d));
        CHECK(vpu::ir::verify(m, pass.name, d));
        if (pass.name == last) break;
    }
}

// The module of graph `g` for the default target, its passes run up to and including `last`.
inline void graph_until(vpu::ir::Module& m, const Graph& g, const std::string& last) {
    m.graph = &g;
    m.target = vpu::Target{};
    run_passes_until(m, last);
}

// A float CONV2D's or DEPTHWISE_CONV2D's attributes: `pad` (top, bottom, left, right), `stride`,
// dilation 1, fp32 accumulator.
inline std::vector<std::pair<AttrName, Attr>> conv_attrs(std::vector<std::int64_t> pad, std::vector<std::int64_t> stride = {1, 1}) {
    return {{AttrName::pad, std::move(pad)}, {AttrName::stride, std::move(stride)}, {AttrName::dilation, std::vector<std::int64_t>{1, 1}},
            {AttrName::acc_type, AccType::FP32}};
}

// A float conv k x k, stride 1, padding k / 2 on [1, h, h, cin] (NHWC) -> [1, h, h, cout], its
// weights and bias pseudo-random from `seed` (prefetch tests' chains of convs).
inline ValueId conv_same(Graph& g, ValueId in, std::int64_t h, std::int64_t cin, std::int64_t cout, std::int64_t k, unsigned seed) {
    const std::int64_t p = k / 2;
    return g.add_op(0, OpKind::CONV2D, {in, constant(g, {cout, k, k, cin}, seed, 0.1f), constant(g, {cout}, seed + 1), zero(g), zero(g)},
                    {f32({1, h, h, cout})}, conv_attrs({p, p, p, p}))
        .outputs[0];
}

// Graph input x [1, c, h, h] (NCHW, named "x") and its TRANSPOSE to NHWC, which is returned.
inline ValueId nhwc_input(Graph& g, std::int64_t c, std::int64_t h) {
    const ValueId x = g.add_value(f32({1, c, h, h}), "x");
    g.main().inputs = {x};
    return g.add_op(0, OpKind::TRANSPOSE, {x}, {f32({1, h, h, c})}, {{AttrName::perms, std::vector<std::int64_t>{0, 2, 3, 1}}}).outputs[0];
}

// The schedule pass's first attempt's budgets: 7/8 of CMX for held results, 3/4 for streamed runs.
inline void first_attempt_budgets(vpu::ir::schedule_impl::Scheduler& s, const vpu::Target& t) {
    s.hold_budget = t.cmx_bytes / 8 * 7;
    s.stream_budget = t.cmx_bytes / 16 * 12;
}

// The module of graph `g` for the default target, compiled up to the schedule pass (its tables built).
inline void ready_to_schedule(vpu::ir::Module& m, const Graph& g) {
    m.graph = &g;
    m.target = vpu::Target{};
    run_passes_until(m, "build-tables");
}

// The Scheduler alone on graph `g` at the first attempt's budgets (the prefetch tests): `set` gives
// its flags before it runs, `m` then holds its tasks, and `inspect` reads the Scheduler after it.
inline void first_attempt(vpu::ir::Module& m, const Graph& g, const std::function<void(vpu::ir::schedule_impl::Scheduler&)>& set,
                          const std::function<void(const vpu::ir::schedule_impl::Scheduler&)>& inspect = {}) {
    ready_to_schedule(m, g);
    Diagnostics d{0};
    vpu::ir::schedule_impl::Scheduler s(m, d);
    first_attempt_budgets(s, m.target);
    set(s);
    REQUIRE(s.run());
    if (inspect) inspect(s);
}

}  // namespace vpu_compile_support
