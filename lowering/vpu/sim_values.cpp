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

#include "lowering/vpu/sim_memory.hpp"

namespace nnef::vpu {

namespace sim_values_cpp {


// TOSA 1.0.1 apply_scale_32 (section "Scaling Helpers"), without the REQUIREs on the value range.
std::int64_t apply_scale_32(std::int64_t value, std::int64_t multiplier, std::int64_t shift, bool double_round) {
    std::int64_t round = std::int64_t(1) << (shift - 1);
    if (double_round && shift > 31) round += value >= 0 ? (std::int64_t(1) << 30) : -(std::int64_t(1) << 30);
    return (value * multiplier + round) >> shift;
}

// TOSA reciprocal_scale: multiplier and shift of 1/value.
std::pair<std::int64_t, std::int64_t> reciprocal_scale(std::uint32_t value) {
    int k = 0;
    while (k < 32 && (std::uint64_t(1) << k) < value) ++k;  // (1 << k) / 2 < value <= (1 << k)
    const std::int64_t numerator = ((std::int64_t(1) << 30) + 1) << k;
    return {numerator / std::int64_t(value), 30 + k};
}


// ---- NCE ------------------------------------------------------------------------------------------

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
    for (std::int64_t n = 0; n < N; ++n)
        for (std::int64_t oy = 0; oy < OH; ++oy)
            for (std::int64_t ox = 0; ox < OW; ++ox)
                for (std::int64_t c = 0; c < C; ++c) {
                    const TableRow& row = table[std::size_t(c)];
                    float facc = 0.0f;
                    std::int64_t iacc = 0;
                    if (t.op == "eltwise") {
                        const std::size_t i = std::size_t(((n * OH + oy) * OW + ox) * C + c);
                        if (q) {
                            const std::int64_t a = apply_scale_32(std::int64_t(in.v[i]) - p.eltwise_inputs[0].zp,
                                                                  p.eltwise_inputs[0].multiplier, p.eltwise_inputs[0].shift, p.double_round);
                            const std::int64_t bb = apply_scale_32(std::int64_t(b.v[i]) - p.eltwise_inputs[1].zp,
                                                                   p.eltwise_inputs[1].multiplier, p.eltwise_inputs[1].shift, p.double_round);
                            iacc = p.eltwise == "add" ? a + bb : p.eltwise == "sub" ? a - bb : a * bb;
                        } else {
                            const float a = float(in.v[i]), bb = float(b.v[i]);
                            facc = p.eltwise == "add" ? a + bb : p.eltwise == "sub" ? a - bb : a * bb;
                        }
                    } else {
                        const bool conv = t.op == "conv", dw = t.op == "dwconv";
                        const bool maxp = t.op == "maxpool";
                        std::int64_t count = 0;
                        bool any = false;
                        for (std::int64_t ky = 0; ky < p.kernel[0]; ++ky) {
                            const std::int64_t iy = oy * p.stride[0] - p.pad[0] + ky * p.dilation[0];
                            if (iy < 0 || iy >= H) continue;
                            for (std::int64_t kx = 0; kx < p.kernel[1]; ++kx) {
                                const std::int64_t ix = ox * p.stride[1] - p.pad[2] + kx * p.dilation[1];
                                if (ix < 0 || ix >= W) continue;
                                ++count;
                                if (conv) {
                                    for (std::int64_t ci = 0; ci < CI; ++ci) {
                                        const double x = in.at4(n, iy, ix, ci), wt = w.at4(c, ky, kx, ci);
                                        if (q) iacc += (std::int64_t(x) - p.input_zp) * (std::int64_t(wt) - p.weights_zp);
                                        else facc += float(x) * float(wt);
                                    }
                                } else if (dw) {
                                    const double x = in.at4(n, iy, ix, c), wt = w.at4(c, ky, kx, 0);
                                    if (q) iacc += (std::int64_t(x) - p.input_zp) * (std::int64_t(wt) - p.weights_zp);
                                    else facc += float(x) * float(wt);
                                } else {
                                    const double x = in.at4(n, iy, ix, c);
                                    if (maxp) {
                                        if (q) iacc = any ? std::max(iacc, std::int64_t(x) - p.input_zp) : std::int64_t(x) - p.input_zp;
                                        else facc = any ? std::max(facc, float(x)) : float(x);
                                    } else {
                                        if (q) iacc += std::int64_t(x) - p.input_zp;
                                        else facc += float(x);
                                    }
                                    any = true;
                                }
                            }
                        }
                        if (t.op == "avgpool" && count > 0) {
                            if (q) {
                                const auto [m, s] = reciprocal_scale(std::uint32_t(count));
                                iacc = apply_scale_32(iacc, m, s, false);
                            } else {
                                facc = facc / float(count);
                            }
                        }
                    }
                    double v;
                    if (q) {
                        std::int64_t r = apply_scale_32(iacc + row.bias, row.mult, row.shift, p.double_round) + p.output_zp;
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
    scatter(mem, out_a, out);
}

// ---- SHAVE ----------------------------------------------------------------------------------------

double attr_number(const ShaveParams& p, const char* key) {
    auto it = p.attrs.find(key);
    if (it == p.attrs.end() || !it->is_number())
        throw ValueError{"SHAVE kernel '" + p.kernel + "' needs the number params." + key};
    return it->get<double>();
}


// Unary kernels, computed in fp32 (float outputs) or exactly (integer outputs).
std::function<double(double)> unary(const ShaveParams& p, bool float_out) {
    const std::string& k = p.kernel;
    auto f32 = [float_out](auto fn) {
        return std::function<double(double)>([fn, float_out](double x) { return float_out ? double(fn(float(x))) : double(fn(x)); });
    };
    if (k == "abs") return f32([](auto x) { return std::fabs(x); });
    if (k == "negate") return f32([](auto x) { return -x; });
    if (k == "exp") return f32([](auto x) { return std::exp(x); });
    if (k == "log") return f32([](auto x) { return std::log(x); });
    if (k == "sigmoid") return f32([](auto x) { return decltype(x)(1) / (decltype(x)(1) + std::exp(-x)); });
    if (k == "tanh") return f32([](auto x) { return std::tanh(x); });
    if (k == "erf") return f32([](auto x) { return std::erf(x); });
    if (k == "gelu")
        return f32([](auto x) { return decltype(x)(0.5) * x * (decltype(x)(1) + std::erf(x / std::sqrt(decltype(x)(2)))); });
    if (k == "reciprocal") return f32([](auto x) { return decltype(x)(1) / x; });
    if (k == "rsqrt") return f32([](auto x) { return decltype(x)(1) / std::sqrt(x); });
    if (k == "sqrt") return f32([](auto x) { return std::sqrt(x); });
    if (k == "floor") return f32([](auto x) { return std::floor(x); });
    if (k == "ceil") return f32([](auto x) { return std::ceil(x); });
    if (k == "sin") return f32([](auto x) { return std::sin(x); });
    if (k == "cos") return f32([](auto x) { return std::cos(x); });
    if (k == "identity" || k == "cast") return [](double x) { return x; };
    if (k == "logical_not") return [](double x) { return x == 0 ? 1.0 : 0.0; };
    if (k == "clamp") {
        const double lo = attr_number(p, "min"), hi = attr_number(p, "max");
        return [lo, hi](double x) { return std::min(hi, std::max(lo, x)); };
    }
    return nullptr;
}

std::function<double(double, double)> binary(const std::string& k, bool float_out) {
    auto f32 = [float_out](auto fn) {
        return std::function<double(double, double)>(
            [fn, float_out](double a, double b) { return float_out ? double(fn(float(a), float(b))) : double(fn(a, b)); });
    };
    if (k == "add") return f32([](auto a, auto b) { return a + b; });
    if (k == "sub") return f32([](auto a, auto b) { return a - b; });
    if (k == "mul") return f32([](auto a, auto b) { return a * b; });
    if (k == "maximum") return f32([](auto a, auto b) { return std::max(a, b); });
    if (k == "minimum") return f32([](auto a, auto b) { return std::min(a, b); });
    if (k == "pow") return f32([](auto a, auto b) { return std::pow(a, b); });
    // Comparisons and logical operators: bool results as 1 / 0 in the output's dtype, bool
    // operands true when nonzero (the target has no bool buffers).
    if (k == "greater") return [](double a, double b) { return a > b ? 1.0 : 0.0; };
    if (k == "greater_equal") return [](double a, double b) { return a >= b ? 1.0 : 0.0; };
    if (k == "equal") return [](double a, double b) { return a == b ? 1.0 : 0.0; };
    if (k == "logical_and") return [](double a, double b) { return a != 0 && b != 0 ? 1.0 : 0.0; };
    if (k == "logical_or") return [](double a, double b) { return a != 0 || b != 0 ? 1.0 : 0.0; };
    if (k == "logical_xor") return [](double a, double b) { return (a != 0) != (b != 0) ? 1.0 : 0.0; };
    return nullptr;
}

std::int64_t axis_attr(const ShaveParams& p, std::size_t rank) {
    const double a = attr_number(p, "axis");
    if (a < 0 || a >= double(rank) || std::floor(a) != a)
        throw ValueError{"SHAVE kernel '" + p.kernel + "': axis " + std::to_string(a) + " is not a dimension of its rank-" +
                         std::to_string(rank) + " input"};
    return std::int64_t(a);
}

// outer x axis x inner decomposition of `shape` around `axis`.
void split_axis(const std::vector<std::int64_t>& shape, std::int64_t axis, std::int64_t& outer, std::int64_t& n, std::int64_t& inner) {
    outer = inner = 1;
    for (std::int64_t d = 0; d < axis; ++d) outer *= shape[std::size_t(d)];
    n = shape[std::size_t(axis)];
    for (std::size_t d = std::size_t(axis) + 1; d < shape.size(); ++d) inner *= shape[d];
}

// out[i] = f(operands at i), each operand broadcast to `shape` (same rank, each dimension equal or 1).
template <class F>
void broadcast(const std::string& k, const std::vector<std::int64_t>& shape, const std::vector<Dense>& ins, std::vector<double>& out, F&& f) {
    const std::size_t r = shape.size();
    for (const Dense& d : ins) {
        if (d.shape.size() != r) throw ValueError{"SHAVE kernel '" + k + "': operands of different ranks"};
        for (std::size_t i = 0; i < r; ++i)
            if (d.shape[i] != shape[i] && d.shape[i] != 1) throw ValueError{"SHAVE kernel '" + k + "': operand shapes do not broadcast to the output's"};
    }
    std::vector<std::int64_t> idx(r, 0);
    std::vector<double> args(ins.size());
    for (std::size_t i = 0; i < out.size(); ++i) {
        for (std::size_t j = 0; j < ins.size(); ++j) {
            std::int64_t at = 0;
            for (std::size_t d = 0; d < r; ++d) at = at * ins[j].shape[d] + (ins[j].shape[d] == 1 ? 0 : idx[d]);
            args[j] = ins[j].v[std::size_t(at)];
        }
        out[i] = f(args);
        for (std::size_t d = r; d-- > 0;) {
            if (++idx[d] < shape[d]) break;
            idx[d] = 0;
        }
    }
}

std::optional<tosa::OpKind> tosa_kind(const std::string& kernel);
void run_tosa_kernel(Memories& mem, const Task& t, tosa::OpKind kind);

void run_shave(Memories& mem, const Task& t) {
    const ShaveParams& p = t.shave;
    const std::string& k = p.kernel;
    const Access& out_a = t.writes[0];
    const DataType out_t = mem.buffer(out_a.buffer).dtype;
    const bool float_out = !is_int(out_t);
    std::vector<double> out(std::size_t(out_a.elements()));
    auto need = [&](std::size_t reads, std::size_t writes) {
        if (t.reads.size() != reads || t.writes.size() != writes)
            throw ValueError{"SHAVE kernel '" + k + "' reads " + std::to_string(reads) + " boxes and writes " + std::to_string(writes) +
                             ", not " + std::to_string(t.reads.size()) + " and " + std::to_string(t.writes.size())};
    };
    if (auto f = unary(p, float_out)) {
        expect_attrs(p, k == "clamp" ? std::initializer_list<const char*>{"min", "max"} : std::initializer_list<const char*>{});
        need(1, 1);
        const Dense in = gather(mem, t.reads[0]);
        if (in.v.size() != out.size()) throw ValueError{"SHAVE kernel '" + k + "' reads and writes different element counts"};
        for (std::size_t i = 0; i < out.size(); ++i) out[i] = f(in.v[i]);
    } else if (auto g = binary(k, float_out)) {
        expect_attrs(p, {});
        need(2, 1);
        broadcast(k, out_a.shape, {gather(mem, t.reads[0]), gather(mem, t.reads[1])}, out,
                  [&](const std::vector<double>& x) { return g(x[0], x[1]); });
    } else if (k == "select") {
        expect_attrs(p, {});
        need(3, 1);
        broadcast(k, out_a.shape, {gather(mem, t.reads[0]), gather(mem, t.reads[1]), gather(mem, t.reads[2])}, out,
                  [](const std::vector<double>& x) { return x[0] != 0 ? x[1] : x[2]; });
    } else if (k == "matmul") {
        expect_attrs(p, {});
        need(2, 1);
        const Dense a = gather(mem, t.reads[0]), b = gather(mem, t.reads[1]);
        const auto& os = out_a.shape;
        if (a.shape.size() != 3 || b.shape.size() != 3 || os.size() != 3 || a.shape[0] != os[0] || b.shape[0] != os[0] ||
            a.shape[1] != os[1] || b.shape[2] != os[2] || a.shape[2] != b.shape[1])
            throw ValueError{"SHAVE kernel 'matmul' reads a [N,H,C] and b [N,C,W] and writes [N,H,W]; it has " + dims(a.shape) + ", " +
                             dims(b.shape) + " -> " + dims(os)};
        const std::int64_t N = os[0], H = os[1], W = os[2], C = a.shape[2];
        for (std::int64_t n = 0; n < N; ++n)
            for (std::int64_t h = 0; h < H; ++h)
                for (std::int64_t w = 0; w < W; ++w) {
                    float facc = 0.0f;
                    double iacc = 0.0;
                    for (std::int64_t c = 0; c < C; ++c) {
                        const double x = a.v[std::size_t((n * H + h) * C + c)], y = b.v[std::size_t((n * C + c) * W + w)];
                        if (float_out) facc += float(x) * float(y);
                        else iacc += x * y;
                    }
                    out[std::size_t((n * H + h) * W + w)] = float_out ? double(facc) : iacc;
                }
    } else if (k == "reduce_sum" || k == "reduce_max" || k == "reduce_min" || k == "reduce_product" || k == "softmax") {
        expect_attrs(p, {"axis"});
        need(1, 1);
        const Dense in = gather(mem, t.reads[0]);
        const std::int64_t axis = axis_attr(p, in.shape.size());
        std::int64_t outer, n, inner;
        split_axis(in.shape, axis, outer, n, inner);
        const bool softmax = k == "softmax";
        if (std::int64_t(out.size()) != (softmax ? outer * n * inner : outer * inner))
            throw ValueError{"SHAVE kernel '" + k + "': the output box does not have the shape the axis gives"};
        for (std::int64_t o = 0; o < outer; ++o)
            for (std::int64_t i = 0; i < inner; ++i) {
                auto x = [&](std::int64_t j) { return in.v[std::size_t((o * n + j) * inner + i)]; };
                if (softmax) {
                    float mx = float(x(0));
                    for (std::int64_t j = 1; j < n; ++j) mx = std::max(mx, float(x(j)));
                    float sum = 0.0f;
                    for (std::int64_t j = 0; j < n; ++j) sum += std::exp(float(x(j)) - mx);
                    for (std::int64_t j = 0; j < n; ++j) out[std::size_t((o * n + j) * inner + i)] = std::exp(float(x(j)) - mx) / sum;
                    continue;
                }
                double acc = x(0);
                for (std::int64_t j = 1; j < n; ++j) {
                    const double v = x(j);
                    if (k == "reduce_sum") acc = float_out ? double(float(acc) + float(v)) : acc + v;
                    else if (k == "reduce_product") acc = float_out ? double(float(acc) * float(v)) : acc * v;
                    else if (k == "reduce_max") acc = std::max(acc, v);
                    else acc = std::min(acc, v);
                }
                out[std::size_t(o * inner + i)] = acc;
            }
    } else if (k == "rescale") {
        expect_attrs(p, {"multiplier", "shift", "input_zp", "output_zp", "double_round"});
        need(1, 1);
        const Dense in = gather(mem, t.reads[0]);
        if (in.v.size() != out.size()) throw ValueError{"SHAVE kernel 'rescale' reads and writes different element counts"};
        // multiplier/shift: one number, or an array with one per index of the last dimension.
        auto per_channel = [&](const char* key) {
            auto it = p.attrs.find(key);
            std::vector<std::int64_t> v;
            if (it != p.attrs.end() && it->is_number_integer()) v.push_back(it->get<std::int64_t>());
            else if (it != p.attrs.end() && it->is_array())
                for (const auto& x : *it) v.push_back(x.is_number_integer() ? x.get<std::int64_t>() : 0);
            const std::int64_t c = in.shape.back();
            if (v.empty() || (v.size() != 1 && std::int64_t(v.size()) != c))
                throw ValueError{std::string("SHAVE kernel 'rescale' needs params.") + key +
                                 ": an integer or one per index of the last dimension (" + std::to_string(c) + ")"};
            return v;
        };
        const auto mult = per_channel("multiplier"), shift = per_channel("shift");
        const std::int64_t izp = std::int64_t(attr_number(p, "input_zp")), ozp = std::int64_t(attr_number(p, "output_zp"));
        auto dr = p.attrs.find("double_round");
        const bool double_round = dr != p.attrs.end() && dr->is_boolean() && dr->get<bool>();
        const std::int64_t c = in.shape.back();
        for (std::size_t i = 0; i < out.size(); ++i) {
            const std::size_t ch = std::size_t(std::int64_t(i) % c);
            const std::int64_t m = mult.size() == 1 ? mult[0] : mult[ch], s = shift.size() == 1 ? shift[0] : shift[ch];
            if (s < 2 || s > 62) throw ValueError{"SHAVE kernel 'rescale': shift " + std::to_string(s) + " outside [2, 62]"};
            out[i] = double(apply_scale_32(std::int64_t(in.v[i]) - izp, m, s, double_round) + ozp);
        }
    } else if (auto kind = tosa_kind(k)) {
        run_tosa_kernel(mem, t, *kind);
        return;
    } else {
        throw ValueError{"the simulator has no arithmetic for SHAVE kernel '" + k + "' (docs/vpu.md lists the kernels)"};
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
            store(e.dtype, base + i * eb, const_number(c, nnef_index(idx, e.shape, perm)));
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
