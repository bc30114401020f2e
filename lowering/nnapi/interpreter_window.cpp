// The sliding-window kernels of the NNAPI 1.0 interpreter (CONV_2D, DEPTHWISE_CONV_2D,
// AVERAGE_POOL_2D, L2_POOL_2D, MAX_POOL_2D) and FULLY_CONNECTED, NHWC, float32 and quant8 as the
// 1.0 CPU reference computes them: window positions outside the input are skipped (they add
// nothing to a convolution; pools count and compare only the positions inside).
#include <algorithm>
#include <cmath>
#include <limits>

#include "lowering/nnapi/fixed_point.hpp"
#include "lowering/nnapi/interpreter_ops.hpp"
#include "lowering/nnapi/op_rules.hpp"

namespace nnef::nnapi::detail {

namespace {

struct Geometry {
    std::int64_t batches, in_h, in_w, in_c, out_h, out_w, out_c;
    std::int64_t filter_h, filter_w, stride_h, stride_w, pad_top, pad_left;
};

std::optional<Geometry> geometry(Kernel& k, std::int64_t filter_h, std::int64_t filter_w) {
    KnownValues kv;
    kv.int32 = [&k](std::uint32_t operand) -> std::optional<std::int32_t> {
        for (std::size_t p = 0; p < k.inputs(); ++p)
            if (k.op().inputs[p] == operand) return k.int_at(p);
        return std::nullopt;
    };
    auto p = window_params(k.op(), kv);
    if (!p) return std::nullopt;
    const Tensor& in = k.in(0);
    const Tensor& out = k.out(0);
    Geometry g;
    g.batches = in.dimensions[0];
    g.in_h = in.dimensions[1];
    g.in_w = in.dimensions[2];
    g.in_c = in.dimensions[3];
    g.out_h = out.dimensions[1];
    g.out_w = out.dimensions[2];
    g.out_c = out.dimensions[3];
    g.filter_h = filter_h ? filter_h : p->filter_h;
    g.filter_w = filter_w ? filter_w : p->filter_w;
    g.stride_h = p->stride_h;
    g.stride_w = p->stride_w;
    if (p->implicit) {
        g.pad_top = implicit_window(std::int32_t(g.in_h), std::int32_t(g.filter_h), p->stride_h, p->scheme)->pad_head;
        g.pad_left = implicit_window(std::int32_t(g.in_w), std::int32_t(g.filter_w), p->stride_w, p->scheme)->pad_head;
    } else {
        g.pad_top = p->pad_top;
        g.pad_left = p->pad_left;
    }
    return g;
}

// The sum over one output position's window: (x - x_zero) * (w - w_zero) plus the bias, for float
// (zero points 0) and quant8 (Acc = int64) alike. Window positions outside the input add nothing.
template <class T, class Acc>
Acc window_sum(const Geometry& g, const T* x, const T* w, Acc acc, Acc x_zero, Acc w_zero, bool depthwise, std::int64_t b,
               std::int64_t oy, std::int64_t ox, std::int64_t oc, std::int64_t multiplier) {
    const std::int64_t y0 = oy * g.stride_h - g.pad_top, x0 = ox * g.stride_w - g.pad_left;
    // Input channels read, and the filter's layout: [O, H, W, I] or [1, H, W, O].
    const std::int64_t c_begin = depthwise ? oc / multiplier : 0;
    const std::int64_t c_end = depthwise ? c_begin + 1 : g.in_c;
    for (std::int64_t dy = 0; dy < g.filter_h; ++dy) {
        const std::int64_t iy = y0 + dy;
        if (iy < 0 || iy >= g.in_h) continue;
        for (std::int64_t dx = 0; dx < g.filter_w; ++dx) {
            const std::int64_t ix = x0 + dx;
            if (ix < 0 || ix >= g.in_w) continue;
            const T* xp = x + ((b * g.in_h + iy) * g.in_w + ix) * g.in_c;
            if (depthwise) {
                acc += (Acc(xp[c_begin]) - x_zero) * (Acc(w[(dy * g.filter_w + dx) * g.out_c + oc]) - w_zero);
            } else {
                const T* wp = w + ((oc * g.filter_h + dy) * g.filter_w + dx) * g.in_c;
                // Four partial sums over the channels (independent, so the compiler can vectorize).
                Acc lanes[4] = {0, 0, 0, 0};
                std::int64_t c = c_begin;
                for (; c + 4 <= c_end; c += 4)
                    for (int l = 0; l < 4; ++l) lanes[l] += (Acc(xp[c + l]) - x_zero) * (Acc(wp[c + l]) - w_zero);
                for (; c < c_end; ++c) lanes[0] += (Acc(xp[c]) - x_zero) * (Acc(wp[c]) - w_zero);
                acc += (lanes[0] + lanes[1]) + (lanes[2] + lanes[3]);
            }
        }
    }
    return acc;
}

// CONV_2D and DEPTHWISE_CONV_2D.
bool convolution(Kernel& k, bool depthwise) {
    const Tensor& in = k.in(0);
    const Tensor& filter = k.in(1);
    const Tensor& bias = k.in(2);
    auto g = geometry(k, filter.dimensions[1], filter.dimensions[2]);
    if (!g) return k.fail("the window scalars are not known");
    const std::int32_t act = k.activation();
    const std::int64_t multiplier = depthwise ? g->out_c / g->in_c : 0;
    const bool quant = in.type == OperandType::TENSOR_QUANT8_ASYMM;
    Tensor& out = k.out(0);
    QuantizedMultiplier qm;
    CodeRange range;
    if (quant) {
        qm = quantize_multiplier(double(in.scale) * double(filter.scale) / double(out.scale));
        range = activation_range_uint8(act, out.scale, out.zeroPoint);
    }
    for (std::int64_t b = 0; b < g->batches; ++b)
        for (std::int64_t oy = 0; oy < g->out_h; ++oy)
            for (std::int64_t ox = 0; ox < g->out_w; ++ox)
                for (std::int64_t oc = 0; oc < g->out_c; ++oc) {
                    const std::size_t o = std::size_t(((b * g->out_h + oy) * g->out_w + ox) * g->out_c + oc);
                    if (!quant) {
                        float acc = window_sum<float, float>(*g, as<float>(in), as<float>(filter), as<float>(bias)[oc], 0.0f,
                                                             0.0f, depthwise, b, oy, ox, oc, multiplier);
                        as<float>(out)[o] = apply_activation(acc, act);
                    } else {
                        std::int64_t acc = window_sum<std::uint8_t, std::int64_t>(
                            *g, in.data.data(), filter.data.data(), as<std::int32_t>(bias)[oc], in.zeroPoint, filter.zeroPoint,
                            depthwise, b, oy, ox, oc, multiplier);
                        std::int64_t v = std::int64_t{multiply_by_quantized_multiplier(saturate_int32(acc), qm)} + out.zeroPoint;
                        out.data[o] = std::uint8_t(std::clamp<std::int64_t>(v, range.min, range.max));
                    }
                }
    return true;
}

bool pooling(Kernel& k) {
    auto g = geometry(k, 0, 0);
    if (!g) return k.fail("the window scalars are not known");
    const Tensor& in = k.in(0);
    Tensor& out = k.out(0);
    const std::int32_t act = k.activation();
    const OperationType type = k.op().type;
    const bool quant = in.type == OperandType::TENSOR_QUANT8_ASYMM;
    CodeRange range;
    if (quant) range = activation_range_uint8(act, out.scale, out.zeroPoint);
    for (std::int64_t b = 0; b < g->batches; ++b)
        for (std::int64_t oy = 0; oy < g->out_h; ++oy)
            for (std::int64_t ox = 0; ox < g->out_w; ++ox) {
                const std::int64_t y0 = oy * g->stride_h - g->pad_top, x0 = ox * g->stride_w - g->pad_left;
                const std::int64_t y_begin = std::max<std::int64_t>(0, y0), y_end = std::min(g->in_h, y0 + g->filter_h);
                const std::int64_t x_begin = std::max<std::int64_t>(0, x0), x_end = std::min(g->in_w, x0 + g->filter_w);
                const std::int64_t count = std::max<std::int64_t>(0, y_end - y_begin) * std::max<std::int64_t>(0, x_end - x_begin);
                if (count == 0) return k.fail("a pooling window lies wholly in the padding");
                for (std::int64_t c = 0; c < g->in_c; ++c) {
                    std::size_t o = std::size_t(((b * g->out_h + oy) * g->out_w + ox) * g->in_c + c);
                    auto at = [&](std::int64_t y, std::int64_t x) { return std::size_t(((b * g->in_h + y) * g->in_w + x) * g->in_c + c); };
                    if (!quant) {
                        const float* x = as<float>(in);
                        float acc = type == OperationType::MAX_POOL_2D ? -std::numeric_limits<float>::infinity() : 0.0f;
                        for (std::int64_t y = y_begin; y < y_end; ++y)
                            for (std::int64_t xx = x_begin; xx < x_end; ++xx) {
                                float v = x[at(y, xx)];
                                if (type == OperationType::MAX_POOL_2D) acc = std::max(acc, v);
                                else if (type == OperationType::L2_POOL_2D) acc += v * v;
                                else acc += v;
                            }
                        if (type == OperationType::AVERAGE_POOL_2D) acc /= float(count);
                        if (type == OperationType::L2_POOL_2D) acc = std::sqrt(acc / float(count));
                        as<float>(out)[o] = apply_activation(acc, act);
                    } else {
                        std::int32_t acc = 0;
                        for (std::int64_t y = y_begin; y < y_end; ++y)
                            for (std::int64_t xx = x_begin; xx < x_end; ++xx) {
                                std::int32_t v = in.data[at(y, xx)];
                                acc = type == OperationType::MAX_POOL_2D ? std::max(acc, v) : acc + v;
                            }
                        if (type == OperationType::AVERAGE_POOL_2D) acc = (acc + std::int32_t(count) / 2) / std::int32_t(count);
                        out.data[o] = std::uint8_t(std::clamp(acc, range.min, range.max));
                    }
                }
            }
    return true;
}

}  // namespace

bool run_window_operation(Kernel& k) {
    switch (k.op().type) {
        case OperationType::CONV_2D: return convolution(k, false);
        case OperationType::DEPTHWISE_CONV_2D: return convolution(k, true);
        default: return pooling(k);
    }
}

bool run_fully_connected(Kernel& k) {
    const Tensor& in = k.in(0);
    const Tensor& weights = k.in(1);
    const Tensor& bias = k.in(2);
    Tensor& out = k.out(0);
    const std::int32_t act = k.activation();
    const std::int64_t units = weights.dimensions[0], size = weights.dimensions[1];
    const std::int64_t batches = std::int64_t(in.element_count()) / size;
    if (in.type == OperandType::TENSOR_FLOAT32) {
        const float* x = as<float>(in);
        const float* w = as<float>(weights);
        for (std::int64_t b = 0; b < batches; ++b)
            for (std::int64_t u = 0; u < units; ++u) {
                float acc = as<float>(bias)[u];
                for (std::int64_t i = 0; i < size; ++i) acc += x[b * size + i] * w[u * size + i];
                as<float>(out)[b * units + u] = apply_activation(acc, act);
            }
        return true;
    }
    QuantizedMultiplier qm = quantize_multiplier(double(in.scale) * double(weights.scale) / double(out.scale));
    CodeRange range = activation_range_uint8(act, out.scale, out.zeroPoint);
    for (std::int64_t b = 0; b < batches; ++b)
        for (std::int64_t u = 0; u < units; ++u) {
            std::int64_t acc = as<std::int32_t>(bias)[u];
            for (std::int64_t i = 0; i < size; ++i)
                acc += (std::int32_t(in.data[std::size_t(b * size + i)]) - in.zeroPoint) *
                       (std::int32_t(weights.data[std::size_t(u * size + i)]) - weights.zeroPoint);
            std::int64_t v = std::int64_t{multiply_by_quantized_multiplier(saturate_int32(acc), qm)} + out.zeroPoint;
            out.data[std::size_t(b * units + u)] = std::uint8_t(std::clamp<std::int64_t>(v, range.min, range.max));
        }
    return true;
}

}  // namespace nnef::nnapi::detail
