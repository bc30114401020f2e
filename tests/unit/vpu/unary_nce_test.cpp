// Element-wise operators on the NCE with their SHAVE kernels' values (docs/vpu-compiler.md, "Unary
// operators on the NCE"): NNEF's sign, abs and neg as 1x1 maxpools whose table scale and post-op
// compute them, pow(x, 2) as the eltwise x * x (passes/assign_executors_unary.cpp), c - x as scale -1 and bias c
// (passes/scale_shift_nce.cpp), and `+ c`, `* c`, `c - y` after an fp16 eltwise folded into the
// eltwise's table (passes/fuse_post_ops.cpp). The model: tests/data/vpu_unary_nce.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "common/build_paths.hpp"
#include "lowering/vpu/compiler.hpp"
#include "lowering/vpu/ir.hpp"
#include "lowering/vpu/simulator.hpp"
#include "unit/mlir/lowered_model.hpp"
#include "unit/vpu/compile_support.hpp"
#include "unit/vpu/elementwise_ops.hpp"

namespace unary_nce_test {

namespace fs = std::filesystem;
namespace ir = nnef::vpu::ir;
using namespace vpu_compile_support;

// fp16's value nearest f (the device stores every result so)
float fp16(float f) { return fp16_to_fp32(fp32_to_fp16(f)); }

// The input: every item an fp16 value, among them the ones where an NCE form could go wrong: zeros
// of both signs, fp16's smallest subnormal and normal, its largest finite value, infinities, NaN.
ConstPtr special_input(const TensorType& type) {
    const float specials[] = {0.0f,     -0.0f,     5.9604645e-08f, -5.9604645e-08f, 6.1035156e-05f, -6.1035156e-05f, 65504.0f, -65504.0f,
                              1.0f,     -1.0f,     0.5f,           -0.5f,           3.140625f,      -2.71875f,       1e-3f,    -1e-3f,
                              std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity(),
                              std::numeric_limits<float>::quiet_NaN()};
    auto c = ConstData::allocate(type);
    const std::size_t n = sizeof specials / sizeof specials[0];
    const ConstPtr rnd = filled(type.shape, 4, 8.0f);
    for (std::int64_t i = 0; i < type.volume(); ++i)
        c->mutable_items<float>()[i] = std::size_t(i) < 3 * n ? specials[std::size_t(i) % n] : fp16(rnd->items<float>()[i]);
    return c;
}

// Items of `got` that differ from `want` rounded to fp16 (NaN equals NaN).
std::int64_t fp16_mismatches(const ConstData& got, const ConstData& want, std::int64_t& nans) {
    std::int64_t bad = 0;
    nans = 0;
    for (std::int64_t i = 0; i < want.type.volume(); ++i) {
        const float g = got.items<float>()[i], w = fp16(want.items<float>()[i]);
        if (std::isnan(w) || std::isnan(g)) {
            nans += std::isnan(w) && std::isnan(g);
            bad += std::isnan(w) != std::isnan(g);
            continue;
        }
        bad += g != w;
    }
    return bad;
}


TEST_SUITE("vpu") {
    TEST_CASE("sign, abs, neg, 1 - x and x^2 run on the NCE with the interpreter's values, zeros, subnormals, infinities and NaN included") {
        const auto lowered = nnef_test::lower_model(fs::path(NNEF_SOURCE_DIR) / "tests" / "data" / "vpu_unary_nce", 1);
        INFO(nnef_test::rendered(*lowered));
        REQUIRE(lowered->graph);
        const Graph& g = *lowered->graph;
        // the TOSA form: NNEF's sign is two GREATERs and two SELECTs, abs ABS, neg NEGATE
        std::map<OpKind, int> kinds;
        for (const auto& op : g.main().ops) ++kinds[op.kind];
        CHECK(kinds[OpKind::GREATER] == 2);
        CHECK(kinds[OpKind::SELECT] == 2);
        CHECK(kinds[OpKind::ABS] == 2);
        CHECK(kinds[OpKind::NEGATE] == 1);
        CHECK(kinds[OpKind::POW] == 1);

        // after assign-executors: each an NCE 1x1 maxpool with its scale and post-op
        ir::Module m;
        m.graph = &g;
        m.name = g.name;
        run_passes_until(m, "assign-executors");
        std::map<std::string, const ir::Layer*> by_source;
        for (const ir::Layer& l : m.layers) by_source[l.source] = &l;
        for (const char* name : {"s", "a", "n"}) {
            CAPTURE(std::string(name));
            REQUIRE(by_source.count(name));
            const ir::Layer& l = *by_source.at(name);
            CHECK(l.exec == ir::Exec::nce);
            CHECK(l.nce_op == ir::NceOp::maxpool);
            REQUIRE(l.inputs.size() == 1);
            REQUIRE_FALSE(l.scale.empty());
        }
        CHECK(by_source.at("s")->scale.front() == 16777216.0f);
        CHECK(by_source.at("s")->nce.post_op == vpu::PostOp::clamp);
        CHECK(by_source.at("s")->nce.clamp_min == -1.0);
        CHECK(by_source.at("s")->nce.clamp_max == 1.0);
        CHECK(by_source.at("a")->scale.front() == 1.0f);
        CHECK(by_source.at("a")->nce.post_op == vpu::PostOp::leaky_relu);
        CHECK(by_source.at("a")->nce.leaky_alpha == -1.0);
        CHECK(by_source.at("n")->scale.front() == -1.0f);
        CHECK(by_source.at("n")->nce.post_op == vpu::PostOp::none);
        // x^2: the eltwise product of x with itself
        REQUIRE(by_source.count("q"));
        CHECK(by_source.at("q")->exec == ir::Exec::nce);
        CHECK(by_source.at("q")->nce_op == ir::NceOp::eltwise);
        CHECK(by_source.at("q")->nce.eltwise == "mul");
        REQUIRE(by_source.at("q")->inputs.size() == 2);
        CHECK(by_source.at("q")->inputs[0].tensor == by_source.at("q")->inputs[1].tensor);
        // sign's comparisons and inner SELECT are no layers of their own
        for (const ir::Layer& l : m.layers) CHECK(l.op_name() != "greater");

        // compiled: the one SHAVE kernel left is the reciprocal
        Diagnostics d{0};
        const auto list = vpu::compile(g, vpu::Target{}, {}, d);
        INFO(text(d));
        REQUIRE(list);
        std::set<std::string> shave;
        for (const auto& task : list->tasks)
            if (task.kind == vpu::TaskKind::SHAVE) shave.insert(task.op);
        CHECK(shave == std::set<std::string>{"reciprocal"});

        // values: s, a, n, c and q equal to the interpreter's rounded to fp16, item by item
        const ConstPtr x = special_input(g.type(g.main().inputs[0]));
        const auto want = interpret(g, {x}, {}, d);
        REQUIRE(want);
        vpu::SimulateOptions so;
        so.values = true;
        so.inputs["x"] = x;
        const auto r = vpu::simulate(*list, vpu::Target{}, so, d);
        INFO(text(d));
        REQUIRE(r.valid);
        for (std::size_t k = 0; k < g.main().outputs.size(); ++k) {
            const std::string name = g.value(g.main().outputs[k]).name;
            CAPTURE(name);
            REQUIRE(r.outputs.count(name));
            std::int64_t nans = 0;
            const std::int64_t bad = fp16_mismatches(*r.outputs.at(name), *(*want)[k], nans);
            if (name == "p") {
                // the Horner chain rounds to fp16 at each NCE layer where the interpreter keeps fp32:
                // within 1e-2 item by item (NaN where the interpreter has NaN)
                std::int64_t far = 0;
                const ConstData &got = *r.outputs.at(name), &ref = *(*want)[k];
                for (std::int64_t i = 0; i < ref.type.volume(); ++i) {
                    const float gv = got.items<float>()[i], wv = ref.items<float>()[i];
                    far += std::isnan(wv) ? !std::isnan(gv) : !(std::fabs(gv - wv) <= 1e-2f * std::max(1.0f, std::fabs(wv)));
                }
                CHECK(far == 0);
                continue;
            }
            CHECK(bad == 0);
            CHECK(nans == 3);  // the input's NaN, three times
        }
    }

    TEST_CASE("a SELECT of sign's shape whose comparison has another reader, or another constant, stays on SHAVE") {
        for (int variant = 0; variant < 2; ++variant) {
            CAPTURE(variant);
            const std::vector<std::int64_t> s{1, 4, 4, 16};
            Graph g;
            g.name = "not_sign";
            const ValueId x = g.add_value(f32(s), "x");
            g.main().inputs = {x};
            const TensorType b{DType::bool_, s};
            const ValueId pos = g.add_op(0, OpKind::GREATER, {x, fixed(g, 0.0f)}, {b}).outputs[0];
            const ValueId neg = g.add_op(0, OpKind::GREATER, {fixed(g, 0.0f), x}, {b}).outputs[0];
            const ValueId inner = g.add_op(0, OpKind::SELECT, {neg, fixed(g, -1.0f), x}, {f32(s)}).outputs[0];
            const ValueId y = g.add_op(0, OpKind::SELECT, {pos, fixed(g, variant == 0 ? 1.0f : 2.0f), inner}, {f32(s)}).outputs[0];
            g.values[y].name = "y";
            g.main().outputs = {y};
            if (variant == 0) {  // the comparison read again: (x > 0) * 1.0 as a second output
                const ValueId c = g.add_op(0, OpKind::SELECT, {pos, fixed(g, 1.0f), fixed(g, 0.0f)}, {f32(s)}).outputs[0];
                g.values[c].name = "c";
                g.main().outputs.push_back(c);
            }
            vpu::TaskList list;
            compile_and_check(g, vpu::Target{}, nullptr, &list);
            int greater = 0, clamp = 0;
            for (const auto& task : list.tasks) {
                greater += task.op == "greater";
                clamp += task.kind == vpu::TaskKind::NCE && task.nce.post_op == vpu::PostOp::clamp;
            }
            CHECK(greater > 0);
            CHECK(clamp == 0);
        }
    }

    TEST_CASE("fuse-post-ops folds + c, * c and c - y after an fp16 eltwise into its table") {
        // z = 1 - ((a b + 0.25) * 3): one eltwise, its table's scale -3 and bias 1 - 0.75
        const std::vector<std::int64_t> s{1, 8, 8, 32};
        Graph g;
        g.name = "eltwise_affine";
        const ValueId x = g.add_value(f32(s), "x");
        g.main().inputs = {x};
        const ValueId a = unary(g, OpKind::EXP, x, s);  // SHAVE results: no NCE producer to fold into
        const ValueId bb = unary(g, OpKind::SIGMOID, x, s);
        const ValueId p = mul(g, add(g, mul(g, a, bb, s), fixed(g, 0.25f), s), fixed(g, 3.0f), s);
        const ValueId z = g.add_op(0, OpKind::SUB, {fixed(g, 1.0f), p}, {f32(s)}).outputs[0];
        output_z(g, z);
        ir::Module m;
        m.graph = &g;
        m.name = g.name;
        run_passes_until(m, "fuse-post-ops");
        int eltwise = 0, shave_affine = 0, pools = 0;
        for (const ir::Layer& l : m.layers) {
            if (l.exec == ir::Exec::nce && l.nce_op == ir::NceOp::eltwise) {
                ++eltwise;
                REQUIRE(l.scale.size() == 32);
                REQUIRE(l.bias.size() == 32);
                CHECK(l.scale.front() == -3.0f);
                CHECK(l.bias.front() == doctest::Approx(1.0f - 0.75f).epsilon(1e-7));
            }
            if (l.exec == ir::Exec::nce && l.nce_op == ir::NceOp::maxpool) ++pools;
            if (l.exec == ir::Exec::shave && (l.shave.name == "add" || l.shave.name == "mul" || l.shave.name == "sub")) ++shave_affine;
        }
        CHECK(eltwise == 1);
        CHECK(pools == 0);
        CHECK(shave_affine == 0);
        compile_and_check(g, vpu::Target{});  // and the values are the interpreter's
    }
}

}  // namespace unary_nce_test
