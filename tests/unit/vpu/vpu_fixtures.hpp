// Hand-written task lists for the VPU tests: a 3x3 convolution (2 -> 2 channels, 4x4 image,
// padding 1, ReLU) whose input, weights and weights table are DMA'd into CMX of cluster 0, computed
// by NCE0, and DMA'd back to DDR. Values are small integers and halves, exact in fp16, so that the
// expected output is exact.
#pragma once
#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#include "lowering/tosa/ir.hpp"
#include "lowering/vpu/task_list.hpp"

namespace vpu_test {

using namespace nnef::vpu;

// The NNEF-layout data of the conv: input NCHW [1,2,4,4], filter OIHW [2,2,3,3], bias [2].
inline float input_at(int c, int h, int w) { return float((c * 16 + h * 4 + w) % 5 - 2); }
inline float weight_at(int o, int i, int kh, int kw) { return float((o * 18 + i * 9 + kh * 3 + kw) % 3 - 1); }
inline float bias_at(int o) { return 0.5f * float(o + 1); }

// The expected output NCHW [1,2,4,4] by the convolution formula (zero padding 1, stride 1), ReLU.
inline std::vector<float> expected_conv_output() {
    std::vector<float> y;
    for (int o = 0; o < 2; ++o)
        for (int h = 0; h < 4; ++h)
            for (int w = 0; w < 4; ++w) {
                double s = bias_at(o);
                for (int i = 0; i < 2; ++i)
                    for (int kh = 0; kh < 3; ++kh)
                        for (int kw = 0; kw < 3; ++kw) {
                            const int ih = h + kh - 1, iw = w + kw - 1;
                            if (ih >= 0 && ih < 4 && iw >= 0 && iw < 4) s += double(input_at(i, ih, iw)) * weight_at(o, i, kh, kw);
                        }
                y.push_back(float(s > 0 ? s : 0));
            }
    return y;
}

inline std::shared_ptr<const std::vector<std::uint8_t>> fp16_bytes(const std::vector<float>& v) {
    auto out = std::make_shared<std::vector<std::uint8_t>>();
    for (float f : v) {
        const std::uint16_t h = nnef::tosa::fp32_to_fp16(f);
        out->push_back(std::uint8_t(h & 0xff));
        out->push_back(std::uint8_t(h >> 8));
    }
    return out;
}

inline std::shared_ptr<const std::vector<std::uint8_t>> int32_bytes(const std::vector<std::int32_t>& v) {
    auto out = std::make_shared<std::vector<std::uint8_t>>();
    for (std::int32_t x : v) {
        const auto u = static_cast<std::uint32_t>(x);
        for (int b = 0; b < 4; ++b) out->push_back(std::uint8_t(u >> (8 * b)));
    }
    return out;
}

inline std::int32_t float_bits(float f) {
    std::int32_t i;
    std::memcpy(&i, &f, 4);
    return i;
}

inline Buffer buffer(std::string id, Memory mem, std::int64_t cluster, std::int64_t offset, std::int64_t size, DataType dt, Role role,
                     std::string tensor = {}) {
    Buffer b;
    b.id = std::move(id);
    b.memory = mem;
    b.cluster = cluster;
    b.offset = offset;
    b.size = size;
    b.dtype = dt;
    b.role = role;
    b.tensor = std::move(tensor);
    return b;
}

inline Task dma(std::int64_t id, std::string queue, Access from, Access to, std::vector<std::int64_t> wait,
                std::vector<std::int64_t> update, std::int64_t cycles, std::string source) {
    Task t;
    t.id = id;
    t.queue = std::move(queue);
    t.kind = TaskKind::DMA;
    t.op = "copy";
    t.reads = {std::move(from)};
    t.writes = {std::move(to)};
    t.wait = std::move(wait);
    t.update = std::move(update);
    t.cycles = cycles;
    t.source = std::move(source);
    return t;
}

// Buffers (DDR: x [0,64), w [64,136), table [192,224), y [256,320); CMX0: x 0, w 64, table 192,
// y 256), tasks 0 DMA0 x in, 1 DMA1 w in, 2 DMA0 table in (all update barrier 0), 3 NCE0 conv
// (waits 0, updates 1), 4 DMA0 y out (waits 1). Cycles are the cost model's (hand-computed in
// simulator_test.cpp).
inline TaskList conv_list() {
    TaskList l;
    l.graph = "conv_relu";
    l.buffers = {buffer("x", Memory::DDR, 0, 0, 64, DataType::fp16, Role::input, "x"),
                 buffer("w", Memory::DDR, 0, 64, 72, DataType::fp16, Role::weights, "filter"),
                 buffer("t", Memory::DDR, 0, 192, 32, DataType::int32, Role::table, "conv"),
                 buffer("y", Memory::DDR, 0, 256, 64, DataType::fp16, Role::output, "y"),
                 buffer("cx", Memory::CMX, 0, 0, 64, DataType::fp16, Role::activation, "x"),
                 buffer("cw", Memory::CMX, 0, 64, 72, DataType::fp16, Role::weights, "filter"),
                 buffer("ct", Memory::CMX, 0, 192, 32, DataType::int32, Role::table, "conv"),
                 buffer("cy", Memory::CMX, 0, 256, 64, DataType::fp16, Role::activation, "y")};
    // Constants: weights OHWI, table rows {weights offset, shift, scale bits, bias bits}.
    std::vector<float> w;
    for (int o = 0; o < 2; ++o)
        for (int kh = 0; kh < 3; ++kh)
            for (int kw = 0; kw < 3; ++kw)
                for (int i = 0; i < 2; ++i) w.push_back(weight_at(o, i, kh, kw));
    l.buffers[1].data = fp16_bytes(w);
    std::vector<std::int32_t> table;
    for (int o = 0; o < 2; ++o)
        for (std::int32_t v : {o * 36, 0, float_bits(1.0f), float_bits(bias_at(o))}) table.push_back(v);
    l.buffers[2].data = int32_bytes(table);
    l.inputs = {{"x", "x", {1, 4, 4, 2}, "NHWC", DataType::fp16}};
    l.outputs = {{"y", "y", {1, 4, 4, 2}, "NHWC", DataType::fp16}};
    l.barriers = {{0, 0}, {1, 1}};
    const std::vector<std::int64_t> act{1, 4, 4, 2}, wshape{2, 3, 3, 2}, tshape{2, 4};
    l.tasks.push_back(dma(0, "DMA0", Access::dense("x", 0, act, 2), Access::dense("cx", 0, act, 2), {}, {0}, 602, "x"));
    l.tasks.push_back(dma(1, "DMA1", Access::dense("w", 0, wshape, 2), Access::dense("cw", 0, wshape, 2), {}, {0}, 603, "conv"));
    l.tasks.push_back(dma(2, "DMA0", Access::dense("t", 0, tshape, 4), Access::dense("ct", 0, tshape, 4), {}, {0}, 601, "conv"));
    Task conv;
    conv.id = 3;
    conv.queue = "NCE0";
    conv.kind = TaskKind::NCE;
    conv.op = "conv";
    conv.reads = {Access::dense("cx", 0, act, 2), Access::dense("cw", 0, wshape, 2), Access::dense("ct", 0, tshape, 4)};
    conv.writes = {Access::dense("cy", 0, act, 2)};
    conv.wait = {0};
    conv.update = {1};
    conv.cycles = 336;
    conv.nce.kernel = {3, 3};
    conv.nce.pad = {1, 1, 1, 1};
    conv.nce.post_op = PostOp::relu;
    conv.source = "conv";
    l.tasks.push_back(conv);
    l.tasks.push_back(dma(4, "DMA0", Access::dense("cy", 0, act, 2), Access::dense("y", 0, act, 2), {1}, {}, 602, "y"));
    return l;
}

// The conv's input in NNEF layout as fp32 values.
inline nnef::tosa::ConstPtr conv_input() {
    auto c = nnef::tosa::ConstData::allocate({nnef::tosa::DType::fp32, {1, 2, 4, 4}});
    float* p = c->mutable_items<float>();
    for (int ch = 0; ch < 2; ++ch)
        for (int h = 0; h < 4; ++h)
            for (int w = 0; w < 4; ++w) *p++ = input_at(ch, h, w);
    return c;
}

}  // namespace vpu_test
