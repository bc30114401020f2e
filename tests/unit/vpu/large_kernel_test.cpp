// Issue 21: a CONV2D whose kernel or stride exceeds the NCE's (ViT's patch embedding: 32x32, stride
// 32) is not refused but compiled as partial convolutions within the NCE's limits, one per kernel
// row, summed by NCE eltwise adds (assign_executors_decompose.cpp); the simulated values equal the
// TOSA interpreter's within fp16. What does not decompose (padding, dilation, a stride over columns
// beyond the NCE's that is not the kernel's width) is a clear error naming the operator.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "lowering/vpu/compiler.hpp"
#include "unit/vpu/compile_support.hpp"

namespace large_kernel_test {

using namespace vpu_compile_support;
using Attrs = std::vector<std::pair<AttrName, Attr>>;
using I = std::vector<std::int64_t>;

// x [1,C,H,W] NCHW -> TRANSPOSE to NHWC -> CONV2D (O, KHxKW, stride, padding) -> y; the input
// transposed as the NNEF legalization writes it (the conv then reads a view whose channels are
// H x W items apart). `nhwc`: x is [1,H,W,C] already, no transpose.
Graph conv_graph(std::int64_t C, std::int64_t H, std::int64_t W, std::int64_t O, I kernel, I stride, I pad, bool nhwc = false) {
    Graph g;
    g.name = "large_kernel";
    const ValueId x = g.add_value(f32(nhwc ? I{1, H, W, C} : I{1, C, H, W}), "x");
    g.main().inputs = {x};
    ValueId xt = x;
    if (!nhwc) xt = g.add_op(0, OpKind::TRANSPOSE, {x}, {f32({1, H, W, C})}, {{AttrName::perms, I{0, 2, 3, 1}}}).outputs[0];
    const std::int64_t OH = (H + pad[0] + pad[1] - kernel[0]) / stride[0] + 1, OW = (W + pad[2] + pad[3] - kernel[1]) / stride[1] + 1;
    const std::uint32_t origin = g.add_origin({"conv", "patches", {}});
    const ValueId y = g.add_op(0, OpKind::CONV2D,
                               {xt, constant(g, {O, kernel[0], kernel[1], C}, 5, 0.05f), constant(g, {O}, 6), zero(g), zero(g)},
                               {f32({1, OH, OW, O})},
                               Attrs{{AttrName::pad, pad}, {AttrName::stride, stride}, {AttrName::dilation, I{1, 1}},
                                     {AttrName::acc_type, AccType::FP32}},
                               origin)
                          .outputs[0];
    g.values[y].name = "y";
    g.main().outputs = {y};
    return g;
}

struct Counts {
    int convs = 0, adds = 0, copies = 0, largest_kernel = 0, largest_stride = 0;
};

Counts count(const vpu::TaskList& list) {
    Counts c;
    for (const auto& t : list.tasks) {
        if (t.kind != vpu::TaskKind::NCE) continue;
        if (t.op == "conv") {
            ++c.convs;
            c.largest_kernel = std::max<int>({c.largest_kernel, int(t.nce.kernel[0]), int(t.nce.kernel[1])});
            c.largest_stride = std::max<int>({c.largest_stride, int(t.nce.stride[0]), int(t.nce.stride[1])});
        }
        if (t.op == "eltwise") ++c.adds;
    }
    return c;
}

std::string refusal(const Graph& g) {
    Diagnostics d{0};
    const auto list = vpu::compile(g, vpu::Target{}, {}, d);
    CHECK_FALSE(list);
    return text(d);
}


TEST_SUITE("vpu") {
    TEST_CASE("large kernels: a patchify CONV2D (kernel = stride = 16, NCHW input) runs as one 1x1 conv per kernel row, summed") {
        // 3 channels, 64x64 image, 16x16 patches: a 4x4 grid of 48 features
        const Graph g = conv_graph(3, 64, 64, 48, {16, 16}, {16, 16}, {0, 0, 0, 0});
        vpu::TaskList list;
        compile_and_check(g, vpu::Target{}, nullptr, &list);
        const Counts c = count(list);
        // each part is within the NCE's limits: 1x1, stride 1 (the view's rows step by 16)
        CHECK(c.largest_kernel == 1);
        CHECK(c.largest_stride == 1);
        CHECK(c.convs >= 16);      // one part per kernel row (tiles may split them further)
        CHECK(c.adds >= 15);       // summed
        // every task of the decomposition names the NNEF source
        for (const auto& t : list.tasks)
            if (t.kind == vpu::TaskKind::NCE) CHECK(t.source.rfind("patches", 0) == 0);
        // the same on a tiny CMX (the parts tiled) and with the input already NHWC (no copy first)
        vpu::Target small;
        small.cmx_bytes = 96 * 1024;
        compile_and_check(g, small);
        compile_and_check(conv_graph(3, 64, 64, 48, {16, 16}, {16, 16}, {0, 0, 0, 0}, true), vpu::Target{});
    }

    TEST_CASE("large kernels: a patchify CONV2D with many channels per part, and one on a tiny CMX") {
        // 60x48 with 12x12 patches of 32 channels: 384 items per part row
        compile_and_check(conv_graph(32, 60, 48, 24, {12, 12}, {12, 12}, {0, 0, 0, 0}), vpu::Target{});
        // 96 channels of 12 columns: 1152 channels per part, split again over channels on a 96 KiB CMX
        vpu::Target small;
        small.cmx_bytes = 96 * 1024;
        compile_and_check(conv_graph(96, 24, 24, 16, {12, 12}, {12, 12}, {0, 0, 0, 0}), small);
    }

    TEST_CASE("large kernels: a kernel taller than the NCE's (13x5, stride 1) runs as 1x5 convolutions per kernel row, summed") {
        const Graph g = conv_graph(16, 24, 20, 16, {13, 5}, {1, 1}, {0, 0, 0, 0});
        vpu::TaskList list;
        compile_and_check(g, vpu::Target{}, nullptr, &list);
        const Counts c = count(list);
        CHECK(c.largest_kernel == 5);
        CHECK(c.convs >= 13);
        // and a stride over rows beyond the NCE's (9) with a kernel within it: rows of the view
        compile_and_check(conv_graph(16, 39, 21, 16, {3, 3}, {9, 2}, {0, 0, 0, 0}), vpu::Target{});
    }

    TEST_CASE("large kernels: padding, dilation and a column stride beyond the NCE's are refused with the reason") {
        std::string e = refusal(conv_graph(3, 64, 64, 16, {16, 16}, {16, 16}, {8, 8, 8, 8}));
        CHECK(e.find("kernel 16x16 stride 16x16 exceeds the NCE's (kernel 11, stride 8) and is padded") != std::string::npos);
        e = refusal(conv_graph(3, 65, 66, 16, {3, 3}, {2, 9}, {0, 0, 0, 0}));
        CHECK(e.find("kernel 3x3 stride 2x9") != std::string::npos);
        CHECK(e.find("its columns do not decompose") != std::string::npos);
        // the message names the TOSA operator and its NNEF source
        CHECK(e.find("patches") != std::string::npos);
    }
}

}  // namespace large_kernel_test
