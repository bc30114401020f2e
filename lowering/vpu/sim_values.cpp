#include "lowering/vpu/sim_values.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <optional>
#include <limits>
#include <map>
#include <new>
#include <unordered_map>

#include "lowering/tosa/scale.hpp"
#include "lowering/vpu/sim_memory.hpp"

namespace nnef::vpu {

namespace sim_values_cpp {


// ---- NCE ------------------------------------------------------------------------------------------
// The NCE's own arithmetic, not a TOSA operator's: the DPU's datapath (specs/vpu-target.md sections
// 3-4) multiplies fp16 and accumulates in fp32 (int8: exact int32), then its post-processing applies
// the weights table (fp32 scale and bias, or int8's apply_scale_32 with the table's multiplier and
// shift and the output zero point) and the fused post-op. The integer scaling is TOSA's helper
// (lowering/tosa/scale.hpp: apply_scale_32_unchecked, reciprocal_scale), without the REQUIREs the
// hardware does not check. SHAVE kernels, in contrast, are TOSA operators (sim_shave.cpp).

struct TableRow {
    std::int32_t offset, shift, mult, bias;
};

std::vector<TableRow> read_table(Memories& mem, const Access& a) {
    const Dense d = gather(mem, a);
    std::vector<TableRow> rows;
    for (std::int64_t o = 0; o < a.shape[0]; ++o) {
        const std::size_t i = std::size_t(o * 4);
        rows.push_back({std::int32_t(d.v[i]), std::int32_t(d.v[i + 1]), std::int32_t(d.v[i + 2]), std::int32_t(d.v[i + 3])});
    }
    return rows;
}

float bits_to_float(std::int32_t bits) {
    float f;
    std::memcpy(&f, &bits, 4);
    return f;
}

void run_nce(Memories& mem, const Task& t) {
    const NceParams& p = t.nce;
    const Dense in = gather(mem, t.reads[0]);
    const Access& out_a = t.writes[0];
    const std::vector<TableRow> table = read_table(mem, t.reads.back());
    const bool q = p.quantized;
    const std::int64_t N = out_a.shape[0], OH = out_a.shape[1], OW = out_a.shape[2], C = out_a.shape[3];
    const std::int64_t H = in.shape[1], W = in.shape[2], CI = in.shape[3];
    Dense w;
    if (t.op == "conv" || t.op == "dwconv") {
        w = gather(mem, t.reads[1]);
        for (std::int64_t o = 0; o < C; ++o)
            if (table[std::size_t(o)].offset != o * t.reads[1].strides[0])
                throw ValueError{"weights table row " + std::to_string(o) + " points at weights byte " +
                                 std::to_string(table[std::size_t(o)].offset) + "; output channel " + std::to_string(o) +
                                 "'s weights start at byte " + std::to_string(o * t.reads[1].strides[0]) + " of the weights box"};
    }
    Dense b;
    if (t.op == "eltwise") b = gather(mem, t.reads[1]);
    const DataType out_t = mem.buffer(out_a.buffer).dtype;
    std::vector<double> out(std::size_t(N * OH * OW * C));
    const std::int64_t lo = out_t == DataType::uint8 ? 0 : -128, hi = out_t == DataType::uint8 ? 255 : 127;
    // an int8 conv's int32 partial sum: the accumulator plus the bias, the PPE's scale bypassed
    // (table multiplier 1, shift 0), saturated to int32
    const bool wide = q && out_t == DataType::int32;
    if (wide)
        for (std::int64_t c = 0; c < C; ++c)
            if (table[std::size_t(c)].mult != 1 || table[std::size_t(c)].shift != 0)
                throw ValueError{"weights table row " + std::to_string(c) + " of an int32 partial sum has multiplier " +
                                 std::to_string(table[std::size_t(c)].mult) + " and shift " + std::to_string(table[std::size_t(c)].shift) +
                                 " (the requantization is bypassed there: 1 and 0)"};
    // (the operation and its operands' strides fixed ahead of the loops; the accumulation order is
    // that of the datapath: kernel row, column, input channel)
    const bool eltwise = t.op == "eltwise", conv = t.op == "conv", dw = t.op == "dwconv", maxp = t.op == "maxpool",
               avgp = t.op == "avgpool";
    const bool add = p.eltwise == "add", sub = p.eltwise == "sub";
    const std::int64_t WK = conv || dw ? w.shape[1] : 0, WX = conv || dw ? w.shape[2] : 0, WC = conv || dw ? w.shape[3] : 0;
    // An fp16 conv's fp32 sums of one output pixel, four channels at a time: four independent
    // chains, each added in the datapath's order (the same sums as one channel after the other)
    std::vector<float> sums(conv && !q ? std::size_t(C) : 0);
    const std::size_t filter_items = std::size_t(WK * WX * WC);
    // f(ky, kx, x) for each tap of output item (n, oy, ox, _) inside the input, x = in[n, iy, ix, :]
    auto for_each_tap = [&](std::int64_t n, std::int64_t oy, std::int64_t ox, auto&& f) {
        for (std::int64_t ky = 0; ky < p.kernel[0]; ++ky) {
            const std::int64_t iy = oy * p.stride[0] - p.pad[0] + ky * p.dilation[0];
            if (iy < 0 || iy >= H) continue;
            for (std::int64_t kx = 0; kx < p.kernel[1]; ++kx) {
                const std::int64_t ix = ox * p.stride[1] - p.pad[2] + kx * p.dilation[1];
                if (ix < 0 || ix >= W) continue;
                f(ky, kx, in.v.data() + std::size_t(((n * H + iy) * W + ix) * CI));
            }
        }
    };
    auto conv_sums = [&](std::int64_t n, std::int64_t oy, std::int64_t ox) {
        std::fill(sums.begin(), sums.end(), 0.0f);
        for_each_tap(n, oy, ox, [&](std::int64_t ky, std::int64_t kx, const double* x) {
            const double* w0 = w.v.data() + std::size_t((ky * WX + kx) * WC);  // w[0, ky, kx, :]
            std::int64_t c = 0;
            for (; c + 4 <= C; c += 4) {
                const double* wc = w0 + std::size_t(c) * filter_items;
                float a0 = sums[std::size_t(c)], a1 = sums[std::size_t(c) + 1], a2 = sums[std::size_t(c) + 2], a3 = sums[std::size_t(c) + 3];
                for (std::int64_t ci = 0; ci < CI; ++ci) {
                    const float xf = float(x[ci]);
                    a0 += xf * float(wc[ci]);
                    a1 += xf * float(wc[filter_items + std::size_t(ci)]);
                    a2 += xf * float(wc[2 * filter_items + std::size_t(ci)]);
                    a3 += xf * float(wc[3 * filter_items + std::size_t(ci)]);
                }
                sums[std::size_t(c)] = a0;
                sums[std::size_t(c) + 1] = a1;
                sums[std::size_t(c) + 2] = a2;
                sums[std::size_t(c) + 3] = a3;
            }
            for (; c < C; ++c) {
                const double* wc = w0 + std::size_t(c) * filter_items;
                float a = sums[std::size_t(c)];
                for (std::int64_t ci = 0; ci < CI; ++ci) a += float(x[ci]) * float(wc[ci]);
                sums[std::size_t(c)] = a;
            }
        });
    };
    for (std::int64_t n = 0; n < N; ++n)
        for (std::int64_t oy = 0; oy < OH; ++oy)
            for (std::int64_t ox = 0; ox < OW; ++ox) {
                if (!sums.empty()) conv_sums(n, oy, ox);
                for (std::int64_t c = 0; c < C; ++c) {
                    const TableRow& row = table[std::size_t(c)];
                    float facc = 0.0f;
                    std::int64_t iacc = 0;
                    if (!sums.empty()) {
                        facc = sums[std::size_t(c)];
                    } else if (eltwise) {
                        const std::size_t i = std::size_t(((n * OH + oy) * OW + ox) * C + c);
                        if (q) {
                            const std::int64_t a = tosa::apply_scale_32_unchecked(std::int64_t(in.v[i]) - p.eltwise_inputs[0].zp,
                                                                  p.eltwise_inputs[0].multiplier, p.eltwise_inputs[0].shift, p.double_round);
                            const std::int64_t bb = tosa::apply_scale_32_unchecked(std::int64_t(b.v[i]) - p.eltwise_inputs[1].zp,
                                                                   p.eltwise_inputs[1].multiplier, p.eltwise_inputs[1].shift, p.double_round);
                            iacc = add ? a + bb : sub ? a - bb : a * bb;
                        } else {
                            const float a = float(in.v[i]), bb = float(b.v[i]);
                            facc = add ? a + bb : sub ? a - bb : a * bb;
                        }
                    } else {
                        std::int64_t count = 0;
                        bool any = false;
                        for_each_tap(n, oy, ox, [&](std::int64_t ky, std::int64_t kx, const double* x) {
                            ++count;
                            if (conv) {
                                const double* wt = w.v.data() + std::size_t(((c * WK + ky) * WX + kx) * WC);  // w[c, ky, kx, :]
                                if (q)
                                    for (std::int64_t ci = 0; ci < CI; ++ci)
                                        iacc += (std::int64_t(x[ci]) - p.input_zp) * (std::int64_t(wt[ci]) - p.weights_zp);
                                else
                                    for (std::int64_t ci = 0; ci < CI; ++ci) facc += float(x[ci]) * float(wt[ci]);
                            } else if (dw) {
                                const double xv = x[c], wt = w.v[std::size_t(((c * WK + ky) * WX + kx) * WC)];
                                if (q) iacc += (std::int64_t(xv) - p.input_zp) * (std::int64_t(wt) - p.weights_zp);
                                else facc += float(xv) * float(wt);
                            } else {
                                const double xv = x[c];
                                if (maxp) {
                                    if (q) iacc = any ? std::max(iacc, std::int64_t(xv) - p.input_zp) : std::int64_t(xv) - p.input_zp;
                                    else facc = any ? std::max(facc, float(xv)) : float(xv);
                                } else {
                                    if (q) iacc += std::int64_t(xv) - p.input_zp;
                                    else facc += float(xv);
                                }
                                any = true;
                            }
                        });
                        if (avgp && count > 0) {
                            if (q) {
                                const auto [m, s] = tosa::reciprocal_scale(std::uint32_t(count));
                                iacc = tosa::apply_scale_32_unchecked(iacc, m, s, false);
                            } else {
                                facc = facc / float(count);
                            }
                        }
                    }
                    double v;
                    if (wide) {
                        v = double(std::clamp<std::int64_t>(iacc + row.bias, std::numeric_limits<std::int32_t>::min(),
                                                            std::numeric_limits<std::int32_t>::max()));
                    } else if (q) {
                        std::int64_t r = tosa::apply_scale_32_unchecked(iacc + row.bias, row.mult, row.shift, p.double_round) + p.output_zp;
                        if (p.post_op == PostOp::relu) r = std::max<std::int64_t>(r, p.output_zp);
                        if (p.post_op == PostOp::clamp)
                            r = std::min<std::int64_t>(std::max<std::int64_t>(r, std::int64_t(p.clamp_min)), std::int64_t(p.clamp_max));
                        v = double(std::min(hi, std::max(lo, r)));
                    } else {
                        float f = facc * bits_to_float(row.mult) + bits_to_float(row.bias);
                        if (p.post_op == PostOp::relu) f = std::max(f, 0.0f);
                        if (p.post_op == PostOp::clamp) f = std::min(std::max(f, float(p.clamp_min)), float(p.clamp_max));
                        if (p.post_op == PostOp::leaky_relu && f < 0.0f) f *= float(p.leaky_alpha);
                        v = f;
                    }
                    out[std::size_t(((n * OH + oy) * OW + ox) * C + c)] = v;
                }
            }
    scatter(mem, out_a, out);
}

void run_dma(Memories& mem, const Task& t) {
    const Buffer& rb = mem.buffer(t.reads[0].buffer);
    const Buffer& wb = mem.buffer(t.writes[0].buffer);
    const std::int64_t eb = element_bytes(rb.dtype);
    mem.expect_written(t.reads[0], "reads");
    std::vector<std::uint8_t> bytes;
    bytes.reserve(std::size_t(t.reads[0].elements() * eb));
    const std::uint8_t* src = mem.base(rb);
    for_each_element(t.reads[0], [&](std::int64_t off) { bytes.insert(bytes.end(), src + off, src + off + eb); });
    std::uint8_t* dst = mem.base(wb);
    std::size_t i = 0;
    for_each_element(t.writes[0], [&](std::int64_t off) {
        std::memcpy(dst + off, bytes.data() + i, std::size_t(eb));
        i += std::size_t(eb);
    });
    mem.mark_written(t.writes[0]);
}

// Row-major index in NNEF order of the element at layout index `idx`.
std::int64_t nnef_index(const std::vector<std::int64_t>& idx, const std::vector<std::int64_t>& shape,
                        const std::vector<std::size_t>& perm) {
    std::int64_t lin = 0;
    for (std::size_t i = 0; i < perm.size(); ++i) lin = lin * shape[perm[i]] + idx[perm[i]];
    return lin;
}

template <class F>
void for_each_index(const std::vector<std::int64_t>& shape, F&& f) {
    std::int64_t n = 1;
    for (std::int64_t e : shape) n *= e;
    std::vector<std::int64_t> idx(shape.size(), 0);
    for (std::int64_t i = 0; i < n; ++i) {
        f(i, idx);
        for (std::size_t d = shape.size(); d-- > 0;) {
            if (++idx[d] < shape[d]) break;
            idx[d] = 0;
        }
    }
}

}  // namespace sim_values_cpp

std::vector<std::size_t> nnef_order(const std::string& layout) {
    std::vector<std::size_t> perm;
    const auto n = layout.find('N'), c = layout.find('C');
    if (layout.size() >= 3 && n != std::string::npos && c != std::string::npos) {
        perm.push_back(n);
        perm.push_back(c);
        for (std::size_t i = 0; i < layout.size(); ++i)
            if (i != n && i != c) perm.push_back(i);
    } else {
        for (std::size_t i = 0; i < layout.size(); ++i) perm.push_back(i);
    }
    return perm;
}

bool compute_values(const TaskList& list, const Target& target, const std::vector<std::size_t>& order,
                    const std::map<std::string, tosa::ConstPtr>& inputs, std::map<std::string, tosa::ConstPtr>& outputs,
                    Diagnostics& diags) {
    using namespace sim_values_cpp;
    std::optional<Memories> memories;
    try {
        memories.emplace(list, target);
    } catch (const std::bad_alloc&) {
        diags.error(Stage::vpu, "too-large", "the buffers of the task list do not fit in this machine's memory for computing values");
        return false;
    }
    Memories& mem = *memories;
    for (const Buffer& b : list.buffers) {
        if (!is_constant(b.role) || b.memory != Memory::DDR) continue;
        if (!b.data || std::int64_t(b.data->size()) != b.size) {
            diags.error(Stage::vpu, "missing-constant",
                        "constant buffer " + b.id + " (" + to_string(b.role) + (b.tensor.empty() ? "" : " '" + b.tensor + "'") +
                            ") has no data: values need the constant data file");
            return false;
        }
        std::memcpy(mem.base(b), b.data->data(), std::size_t(b.size));
        mem.mark_written(b, b.size);
    }
    for (const IoEntry& e : list.inputs) {
        auto it = inputs.find(e.name);
        if (it == inputs.end() || !it->second) {
            diags.error(Stage::vpu, "missing-input", "no value for graph input '" + e.name + "'");
            return false;
        }
        const tosa::ConstData& c = *it->second;
        const std::vector<std::size_t> perm = nnef_order(e.layout);
        std::vector<std::int64_t> nnef_shape;
        for (std::size_t i : perm) nnef_shape.push_back(e.shape[i]);
        if (c.type.shape != nnef_shape) {
            diags.error(Stage::vpu, "bad-input",
                        "graph input '" + e.name + "' has shape " + dims(c.type.shape) + "; the task list expects " + dims(nnef_shape) +
                            " (NNEF order of " + e.layout + dims(e.shape) + ")");
            return false;
        }
        if (is_int(e.dtype) != tosa::is_integer(c.type.dtype)) {
            diags.error(Stage::vpu, "bad-input",
                        "graph input '" + e.name + "' is " + tosa::to_string(c.type.dtype) + "; the task list expects " + to_string(e.dtype) +
                            " (float values for fp16/fp32 entries, integers for 8-bit ones)");
            return false;
        }
        const Buffer& b = mem.buffer(e.buffer);
        std::uint8_t* base = mem.base(b);
        const std::int64_t eb = element_bytes(e.dtype);
        for_each_index(e.shape, [&](std::int64_t i, const std::vector<std::int64_t>& idx) {
            store(e.dtype, base + i * eb, tosa::number_item(c, nnef_index(idx, e.shape, perm)));
        });
        std::int64_t bytes = eb;
        for (std::int64_t d : e.shape) bytes *= d;
        mem.mark_written(b, bytes);
    }
    try {
        for (std::size_t ti : order) {
            const Task& t = list.tasks[ti];
            try {
                if (t.kind == TaskKind::DMA) run_dma(mem, t);
                else if (t.kind == TaskKind::NCE) run_nce(mem, t);
                else run_shave(mem, t);
            } catch (const ValueError& e) {
                throw ValueError{"task " + std::to_string(t.id) + " (" + t.queue + " " + t.op + "): " + e.message};
            }
        }
    } catch (const ValueError& e) {
        diags.error(Stage::vpu, "bad-values", e.message);
        return false;
    }
    for (const IoEntry& e : list.outputs) {
        const Buffer& b = mem.buffer(e.buffer);
        const std::uint8_t* base = mem.base(b);
        const std::vector<std::size_t> perm = nnef_order(e.layout);
        std::vector<std::int64_t> nnef_shape;
        for (std::size_t i : perm) nnef_shape.push_back(e.shape[i]);
        const bool ints = is_int(e.dtype);
        auto data = tosa::ConstData::allocate({ints ? tosa::DType::i32 : tosa::DType::fp32, nnef_shape});
        const std::int64_t eb = element_bytes(e.dtype);
        for_each_index(e.shape, [&](std::int64_t i, const std::vector<std::int64_t>& idx) {
            const double v = load(e.dtype, base + i * eb);
            const std::int64_t j = nnef_index(idx, e.shape, perm);
            if (ints) data->mutable_items<std::int32_t>()[j] = std::int32_t(v);
            else data->mutable_items<float>()[j] = float(v);
        });
        outputs[e.name] = data;
    }
    return true;
}

}  // namespace nnef::vpu
