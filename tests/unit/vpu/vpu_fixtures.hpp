// Hand-written task lists for the VPU tests: a 3x3 convolution (2 -> 2 channels, 4x4 image,
// padding 1, ReLU) whose input, weights and weights table are DMA'd into CMX of cluster 0, computed
// by NCE0, and DMA'd back to DDR. Values are small integers and halves, exact in fp16, so that the
// expected output is exact.
#pragma once
#include <cstdint>
#include <cmath>
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

// Task `id`: a conv on NCE0 (op "conv", source "conv") reading input, weights and table, kernel
// k x k with padding (k - 1) / 2, waiting for barrier 0 and updating barrier 1 (cycles 0: to set).
inline Task nce_conv(std::int64_t id, std::vector<Access> reads, Access write, std::int64_t k) {
    Task t;
    t.id = id;
    t.queue = "NCE0";
    t.kind = TaskKind::NCE;
    t.op = "conv";
    t.reads = std::move(reads);
    t.writes = {std::move(write)};
    t.wait = {0};
    t.update = {1};
    t.nce.kernel = {k, k};
    const std::int64_t pad = (k - 1) / 2;
    t.nce.pad = {pad, pad, pad, pad};
    t.source = "conv";
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
    Task conv = nce_conv(3, {Access::dense("cx", 0, act, 2), Access::dense("cw", 0, wshape, 2), Access::dense("ct", 0, tshape, 4)},
                         Access::dense("cy", 0, act, 2), 3);
    conv.cycles = 336;
    conv.nce.post_op = PostOp::relu;
    l.tasks.push_back(conv);
    l.tasks.push_back(dma(4, "DMA0", Access::dense("cy", 0, act, 2), Access::dense("y", 0, act, 2), {1}, {}, 602, "y"));
    return l;
}

// A chain of `layers` 3x3 convolutions (C channels, HxW, padding 1, ReLU) on NCE0 with the
// activations ping-ponging between two CMX buffers and the weights (and tables) double-buffered:
// the DMA of layer l+1's weights runs while the NCE computes layer l. Barrier v gets physical id
// v mod `physical`. Constant data: weights w(o,i,ky,kx) = ((o + 2i + 3ky + kx) mod 5 - 2) / 16,
// bias 0, scale 1. Cycles from the cost model of `target`.
inline TaskList conv_chain(int layers, std::int64_t C = 64, std::int64_t H = 28, std::int64_t W = 28, std::int64_t physical = 64,
                           const Target& target = Target{}) {
    TaskList l;
    l.target = target;
    l.graph = "conv_chain";
    const std::int64_t act = H * W * C * 2, wbytes = C * 9 * C * 2, tbytes = C * 16;
    auto align = [&](std::int64_t v) { return (v + target.cmx_alignment - 1) / target.cmx_alignment * target.cmx_alignment; };
    // DDR: input, output, then each layer's weights and table. CMX0: A, B, W0, W1, T0, T1.
    l.buffers.push_back(buffer("in", Memory::DDR, 0, 0, act, DataType::fp16, Role::input, "input"));
    l.buffers.push_back(buffer("out", Memory::DDR, 0, act, act, DataType::fp16, Role::output, "output"));
    std::int64_t at = 2 * act;
    const std::int64_t cmx[6] = {0, align(act), 2 * align(act), 2 * align(act) + align(wbytes), 2 * align(act) + 2 * align(wbytes),
                                 2 * align(act) + 2 * align(wbytes) + align(tbytes)};
    l.buffers.push_back(buffer("A", Memory::CMX, 0, cmx[0], act, DataType::fp16, Role::activation));
    l.buffers.push_back(buffer("B", Memory::CMX, 0, cmx[1], act, DataType::fp16, Role::activation));
    l.buffers.push_back(buffer("W0", Memory::CMX, 0, cmx[2], wbytes, DataType::fp16, Role::weights));
    l.buffers.push_back(buffer("W1", Memory::CMX, 0, cmx[3], wbytes, DataType::fp16, Role::weights));
    l.buffers.push_back(buffer("T0", Memory::CMX, 0, cmx[4], tbytes, DataType::int32, Role::table));
    l.buffers.push_back(buffer("T1", Memory::CMX, 0, cmx[5], tbytes, DataType::int32, Role::table));
    std::vector<float> w;
    for (std::int64_t o = 0; o < C; ++o)
        for (int ky = 0; ky < 3; ++ky)
            for (int kx = 0; kx < 3; ++kx)
                for (std::int64_t i = 0; i < C; ++i) w.push_back(float((o + 2 * i + 3 * ky + kx) % 5 - 2) / 16.0f);
    auto wdata = fp16_bytes(w);
    std::vector<std::int32_t> table;
    for (std::int64_t o = 0; o < C; ++o)
        for (std::int32_t v : {std::int32_t(o * 9 * C * 2), 0, float_bits(1.0f), float_bits(0.0f)}) table.push_back(v);
    auto tdata = int32_bytes(table);
    for (int k = 0; k < layers; ++k) {
        l.buffers.push_back(buffer("w" + std::to_string(k), Memory::DDR, 0, at, wbytes, DataType::fp16, Role::weights, "conv" + std::to_string(k)));
        l.buffers.back().data = wdata;
        at += wbytes;
        l.buffers.push_back(buffer("t" + std::to_string(k), Memory::DDR, 0, at, tbytes, DataType::int32, Role::table, "conv" + std::to_string(k)));
        l.buffers.back().data = tdata;
        at += tbytes;
    }
    l.inputs = {{"input", "in", {1, H, W, C}, "NHWC", DataType::fp16}};
    l.outputs = {{"output", "out", {1, H, W, C}, "NHWC", DataType::fp16}};
    const std::vector<std::int64_t> ashape{1, H, W, C}, wshape{C, 3, 3, C}, tshape{C, 4};
    std::int64_t next_barrier = 0, next_task = 0;
    auto barrier = [&] {
        l.barriers.push_back({next_barrier, next_barrier % physical});
        return next_barrier++;
    };
    auto copy = [&](const std::string& q, Access from, Access to, std::vector<std::int64_t> wait, std::vector<std::int64_t> update,
                    const std::string& source) {
        const std::int64_t bytes = from.elements() * (from.strides.back());
        const bool ddr = true;
        l.tasks.push_back(dma(next_task++, q, std::move(from), std::move(to), std::move(wait), std::move(update),
                              target.dma_latency_cycles + std::int64_t(std::ceil(double(bytes) / std::min(target.dma_bytes_per_cycle, ddr ? target.ddr_bytes_per_cycle : 1e30))),
                              source));
    };
    const std::int64_t in_ready = barrier();
    copy("DMA0", Access::dense("in", 0, ashape, 2), Access::dense("A", 0, ashape, 2), {}, {in_ready}, "input");
    std::vector<std::int64_t> weights_ready(static_cast<std::size_t>(layers)), done(static_cast<std::size_t>(layers));
    for (int k = 0; k < layers; ++k) {
        weights_ready[std::size_t(k)] = barrier();
        done[std::size_t(k)] = barrier();
    }
    auto load_weights = [&](int k) {
        std::vector<std::int64_t> wait;
        if (k >= 2) wait.push_back(done[std::size_t(k - 2)]);  // the buffer's previous user has finished
        const std::string wb = k % 2 ? "W1" : "W0", tb = k % 2 ? "T1" : "T0";
        copy(k % 2 ? "DMA1" : "DMA0", Access::dense("w" + std::to_string(k), 0, wshape, 2), Access::dense(wb, 0, wshape, 2), wait,
             {weights_ready[std::size_t(k)]}, "conv" + std::to_string(k));
        copy(k % 2 ? "DMA0" : "DMA1", Access::dense("t" + std::to_string(k), 0, tshape, 4), Access::dense(tb, 0, tshape, 4), wait,
             {weights_ready[std::size_t(k)]}, "conv" + std::to_string(k));
    };
    load_weights(0);
    if (layers > 1) load_weights(1);
    for (int k = 0; k < layers; ++k) {
        Task c;
        c.id = next_task++;
        c.queue = "NCE0";
        c.kind = TaskKind::NCE;
        c.op = "conv";
        const std::string src = k % 2 ? "B" : "A", dst = k % 2 ? "A" : "B";
        c.reads = {Access::dense(src, 0, ashape, 2), Access::dense(k % 2 ? "W1" : "W0", 0, wshape, 2), Access::dense(k % 2 ? "T1" : "T0", 0, tshape, 4)};
        c.writes = {Access::dense(dst, 0, ashape, 2)};
        c.wait = {weights_ready[std::size_t(k)]};
        if (k == 0) c.wait.push_back(in_ready);
        c.update = {done[std::size_t(k)]};
        c.nce.kernel = {3, 3};
        c.nce.pad = {1, 1, 1, 1};
        c.nce.post_op = PostOp::relu;
        c.cycles = target.nce_overhead_cycles +
                   std::int64_t(std::ceil(double(((H + 3) / 4 * 4) * ((W + 3) / 4 * 4) * ((C + 15) / 16 * 16) * 9 * ((C + 15) / 16 * 16)) /
                                          target.nce_macs_per_cycle.fp16));
        c.source = "conv" + std::to_string(k);
        l.tasks.push_back(c);
        if (k + 2 < layers) load_weights(k + 2);
    }
    // The last layer's result goes out; the done barriers of the other layers have the weight DMAs
    // two layers later as consumers, the last two need one: the output DMA waits on both.
    std::vector<std::int64_t> wait{done[std::size_t(layers - 1)]};
    if (layers > 1) wait.push_back(done[std::size_t(layers - 2)]);
    copy("DMA1", Access::dense(layers % 2 ? "B" : "A", 0, ashape, 2), Access::dense("out", 0, ashape, 2), wait, {}, "output");
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
