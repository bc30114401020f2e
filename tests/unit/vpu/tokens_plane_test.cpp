// A transformer's tokens on the NCE (assign_executors_plane.cpp): element-wise layers on [1, N, C]
// values take the plane [1, N', W', C] (N = N' W') of the NCE matmuls, so that scales and shifts by
// constants, eltwise products and sums, and the unary operators run on the NCE and chains of SHAVE
// kernels stream, as ConvNeXt's NHWC ones do; a reduction over C sums the plane's channels.
#include <doctest/doctest.h>

#include <map>
#include <string>
#include <vector>

#include "lowering/vpu/ir.hpp"
#include "unit/vpu/compile_support.hpp"
#include "unit/vpu/elementwise_ops.hpp"

namespace tokens_plane_test {

namespace ir = nnef::vpu::ir;
using namespace vpu_compile_support;
using I = std::vector<std::int64_t>;

// A layer norm without its affine and a GELU-like tail on 50 tokens of 768 channels (ViT-B/32's):
// m = sum_c x / 768, d = x - m, y = exp(-|d| * 0.5 + 0.25) * d + x
Graph tokens(std::int64_t N, std::int64_t C) {
    const I s{1, N, C}, col{1, N, 1};
    Graph g;
    g.name = "tokens";
    const ValueId x = g.add_value(f32(s), "x");
    g.main().inputs = {x};
    const ValueId sum = g.add_op(0, OpKind::REDUCE_SUM, {x}, {f32(col)}, {{AttrName::axis, std::int64_t(2)}}).outputs[0];
    auto scalar = [&](float v) {
        auto c = ConstData::allocate({DType::fp32, {1, 1, 1}});
        c->mutable_items<float>()[0] = v;
        return g.add_const(0, c);
    };
    const ValueId mean = mul(g, sum, scalar(1.0f / float(C)), col);
    const ValueId d = g.add_op(0, OpKind::SUB, {x, mean}, {f32(s)}).outputs[0];
    const ValueId a = unary(g, OpKind::ABS, d, s);
    const ValueId e = unary(g, OpKind::EXP, add(g, mul(g, a, scalar(-0.5f), s), scalar(0.25f), s), s);
    output_z(g, add(g, mul(g, e, d, s), x, s));
    return g;
}


TEST_SUITE("vpu") {
    TEST_CASE("element-wise layers on [1, N, C] tokens run on the plane [1, N', W', C]: scales, shifts, products and abs on the NCE") {
        const Graph g = tokens(50, 768);
        ir::Module m;
        graph_until(m, g, "fuse-post-ops");
        std::map<std::string, int> nce, shave;
        for (const ir::Layer& l : m.layers) {
            // every layer's output rank 4: 50 tokens as 10 x 5 (the plane padding least to 4 x 4 cuboids)
            CAPTURE(l.op_name());
            REQUIRE(l.output.shape.size() == 4);
            CHECK(l.output.shape[1] * l.output.shape[2] == 50);
            CHECK(l.output.shape[1] == 10);
            if (l.exec == ir::Exec::nce) ++nce[l.op_name()];
            if (l.exec == ir::Exec::shave) {
                ++shave[l.shave.name];
                if (l.shave.name == "reduce_sum") CHECK(l.shave.axis == std::optional<std::int64_t>(3));
            }
        }
        // on SHAVE: the sum over channels and exp
        CHECK(shave == std::map<std::string, int>{{"reduce_sum", 1}, {"exp", 1}});
        // on the NCE: the mean's scale, |d| (with its scale and shift after it), e d and + x, and
        // x - mean: the [1, N, 1] mean broadcast over the channels by a 1x1 conv, then an eltwise
        // (channel_broadcast_test.cpp)
        CHECK(nce["maxpool"] >= 3);
        CHECK(nce["eltwise"] == 3);
        CHECK(nce["conv"] == 1);
        compile_and_check(g, vpu::Target{});  // and the values are the interpreter's
    }

    TEST_CASE("a reduction over the tokens keeps [1, N, C], the element-wise kernel before it takes the plane") {
        const I s{1, 50, 8};
        Graph g;
        g.name = "rank3";
        const ValueId x = g.add_value(f32(s), "x");
        g.main().inputs = {x};
        const ValueId y = unary(g, OpKind::EXP, x, s);
        const ValueId z = g.add_op(0, OpKind::REDUCE_SUM, {y}, {f32({1, 1, 8})}, {{AttrName::axis, std::int64_t(1)}}).outputs[0];
        output_z(g, z);
        ir::Module m;
        graph_until(m, g, "assign-executors");
        bool reduce_seen = false;
        for (const ir::Layer& l : m.layers) {
            if (l.exec != ir::Exec::shave) continue;
            // exp on the plane; the sum over tokens (axis 1) keeps [1, N, C]
            if (l.shave.name == "exp") CHECK(l.output.shape.size() == 4);
            if (l.shave.name == "reduce_sum") {
                reduce_seen = true;
                CHECK(l.output.shape == std::vector<std::int64_t>{1, 1, 8});
                CHECK(l.inputs[0].shape.size() == 3);
            }
        }
        CHECK(reduce_seen);
        compile_and_check(g, vpu::Target{});
    }
}

}  // namespace tokens_plane_test
