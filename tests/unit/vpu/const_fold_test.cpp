// Issue 21: an operator whose operands are all constants is a constant of the VPU compiler
// (assign_executors.cpp, Builder::evaluate): Swin-T's attention scale pow(32.0, -0.5), rank 0,
// was a SHAVE task on rank-0 buffers, which the task list cannot describe (the simulator's
// bad-access). It is now folded at compile time with the TOSA interpreter's kernel, no task runs
// for it, and the values equal the interpreter's.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "lowering/vpu/compiler.hpp"
#include "unit/vpu/compile_support.hpp"

namespace const_fold_test {

using namespace vpu_compile_support;
using I = std::vector<std::int64_t>;

ValueId scalar(Graph& g, float v) {
    auto c = ConstData::allocate({DType::fp32, {}});
    c->mutable_items<float>()[0] = v;
    return g.add_const(0, c);
}

// x [1,8,8,16] -> SIGMOID -> s;  k = POW(32, -0.5) (rank 0) -> RESHAPE [1,1,1,1] -> y = s * k;
// z = s + POW(c, 2) with c [1,1,1,16] constants: a folded constant of more than one item
Graph scale_graph() {
    Graph g;
    g.name = "fold";
    const ValueId x = g.add_value(f32({1, 8, 8, 16}), "x");
    g.main().inputs = {x};
    const ValueId s = g.add_op(0, OpKind::SIGMOID, {x}, {f32({1, 8, 8, 16})}).outputs[0];
    const ValueId k = g.add_op(0, OpKind::POW, {scalar(g, 32.0f), scalar(g, -0.5f)}, {f32({})}).outputs[0];
    const ValueId kr = g.add_op(0, OpKind::RESHAPE, {k, g.add_const_shape(0, {1, 1, 1, 1})}, {f32({1, 1, 1, 1})}).outputs[0];
    auto shift = ConstData::allocate({DType::i8, {1}});
    shift->mutable_items<std::int8_t>()[0] = 0;
    const ValueId sh = g.add_const(0, shift);
    const ValueId y = g.add_op(0, OpKind::MUL, {s, kr, sh}, {f32({1, 8, 8, 16})}).outputs[0];
    g.values[y].name = "y";
    const ValueId c = constant(g, {1, 1, 1, 16}, 7, 1.5f);
    auto two = ConstData::allocate({DType::fp32, {1, 1, 1, 16}});
    for (int i = 0; i < 16; ++i) two->mutable_items<float>()[i] = 2.0f;
    const ValueId c2 = g.add_op(0, OpKind::POW, {c, g.add_const(0, two)}, {f32({1, 1, 1, 16})}).outputs[0];
    const ValueId z = g.add_op(0, OpKind::ADD, {s, c2}, {f32({1, 8, 8, 16})}).outputs[0];
    g.values[z].name = "z";
    g.main().outputs = {y, z};
    return g;
}


TEST_SUITE("vpu") {
    TEST_CASE("constant folding: POW of constants (rank 0 and rank 4) is no task, and the values equal the interpreter's") {
        const Graph g = scale_graph();
        vpu::TaskList list;
        compile_and_check(g, vpu::Target{}, nullptr, &list);
        for (const auto& t : list.tasks) {
            CAPTURE(t.source);
            CHECK(t.op != "pow");
            // every access has a shape (no rank-0 box)
            for (const auto& a : t.reads) CHECK_FALSE(a.shape.empty());
            for (const auto& a : t.writes) CHECK_FALSE(a.shape.empty());
        }
    }
}

}  // namespace const_fold_test
