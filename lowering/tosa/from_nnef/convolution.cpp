// Convolutions (NNEF spec 4.3): conv (groups, depthwise, dilation, padding including the automatic
// one, every border mode), separable_conv and deconv, on TOSA's NHWC CONV2D / DEPTHWISE_CONV2D /
// TRANSPOSE_CONV2D; and conv / linear of quantized graphs at PRO-INT (i8 codes, i32 accumulation,
// RESCALE to the result's grid). The windows and their padding: window.hpp (sliding_window.cpp).
#include <algorithm>
#include <cmath>
#include <optional>
#include <stdexcept>

#include "lowering/tosa/from_nnef/context.hpp"
#include "lowering/tosa/from_nnef/integer.hpp"
#include "lowering/tosa/from_nnef/window.hpp"

namespace nnef::tosa::from_nnef {

namespace tosa_from_nnef_convolution_cpp {

// The TOSA bias of a conv: [OC] from an NNEF bias [1,OC] (or [OC]), [1] from a literal or [1,1].
ValueId conv_bias(Context& c, std::int64_t oc) {
    if (c.input_is_literal("bias")) {
        const nnef::Value& b = c.argument("bias");
        return c.splat(DType::fp32, {1}, b.is_scalar() ? b.as_scalar() : b.is_integer() ? double(b.as_integer()) : 0.0);
    }
    const ValueId b = c.input("bias");
    const std::int64_t n = c.type(b).volume();
    return c.reshape(b, {n == oc ? oc : 1});
}

// A convolution of x (NCHW, rank 3 or 4) by filter (OIHW) with a TOSA bias ([O] or [1]), the window
// w (over dimensions from 2), NNEF's groups (0: depthwise) and border, to the NCHW shape out_type.
std::optional<ValueId> conv_value(Context& c, ValueId x, ValueId filter, ValueId bias, const Shape& out_type,
                                  const std::string& border, std::int64_t groups, Window w,
                                  const ConvZeroPoints* zp = nullptr) {
    const std::size_t rank = c.rank(x);
    if (rank < 3 || rank > 4) {
        c.refuse("only 1-D and 2-D convolutions (rank-3 and rank-4 inputs) have a TOSA form here; this input has rank " +
                 std::to_string(rank));
        return std::nullopt;
    }
    if (border == "ignore") {
        c.refuse("border 'ignore' is not defined for conv");
        return std::nullopt;
    }
    Shape out = out_type;
    if (rank == 3) {
        // 1-D: a 2-D convolution over [N, C, 1, W]
        const Shape xs = c.shape(x), fs = c.shape(filter);
        x = c.reshape(x, {xs[0], xs[1], 1, xs[2]});
        filter = c.reshape(filter, {fs[0], fs[1], 1, fs[2]});
        out = {out[0], out[1], 1, out[2]};
        w.size.insert(w.size.begin(), 1);
        w.stride.insert(w.stride.begin(), 1);
        w.dilation.insert(w.dilation.begin(), 1);
        w.padding.insert(w.padding.begin(), {0, 0});
    }
    // the window in NHWC: spatial dimensions from 1
    ValueId xn = c.to_channels_last(x);
    const Shape on_full{out[0], out[2], out[3], out[1]};
    w.offset = 1;
    xn = border == "constant" ? fit_window(c, xn, w, on_full) : pad_window(c, xn, w, on_full, border, 0.0);
    const Shape fs = c.shape(filter);
    const std::int64_t C = c.shape(xn)[3], O = fs[0];
    if (groups == 0) groups = C;
    const Ints pad{w.padding[0].first, w.padding[0].second, w.padding[1].first, w.padding[1].second};
    const std::vector<std::pair<AttrName, Attr>> attrs{{AttrName::pad, pad},
                                                       {AttrName::stride, w.stride},
                                                       {AttrName::dilation, w.dilation},
                                                       {AttrName::acc_type, zp ? AccType::INT32 : AccType::FP32}};
    const Shape on{out[0], out[2], out[3], O};
    const DType out_t = zp ? DType::i32 : DType::fp32;
    const ValueId izp = zp ? zp->input : c.zero_point(DType::fp32), wzp = zp ? zp->weight : c.zero_point(DType::fp32);
    ValueId y;
    if (groups == 1) {
        const ValueId wt = c.transpose(filter, {0, 2, 3, 1});  // OIHW -> OHWI
        y = c.add(OpKind::CONV2D, {xn, wt, bias, izp, wzp}, TensorType{out_t, on}, attrs);
    } else if (groups == C && fs[1] == 1 && O % C == 0) {
        // depthwise: output channel c * M + m reads input channel c; weight [KH, KW, C, M]
        const std::int64_t M = O / C;
        const ValueId wt = c.transpose(c.reshape(filter, {C, M, fs[2], fs[3]}), {2, 3, 0, 1});
        y = c.add(OpKind::DEPTHWISE_CONV2D, {xn, wt, bias, izp, wzp}, TensorType{out_t, on}, attrs);
    } else {
        // grouped: one CONV2D per group on its slice of channels and filters, concatenated
        const std::int64_t cg = C / groups, og = O / groups;
        const bool per_channel_bias = c.type(bias).volume() == O;
        std::vector<ValueId> parts;
        for (std::int64_t g = 0; g < groups; ++g) {
            const ValueId xg = c.slice_axis(xn, 3, g * cg, (g + 1) * cg);
            const ValueId fg = c.transpose(c.slice_axis(filter, 0, g * og, (g + 1) * og), {0, 2, 3, 1});
            const ValueId bg = per_channel_bias ? c.slice_axis(bias, 0, g * og, (g + 1) * og) : bias;
            parts.push_back(c.add(OpKind::CONV2D, {xg, fg, bg, izp, wzp}, TensorType{out_t, {on[0], on[1], on[2], og}}, attrs));
        }
        y = c.concat(parts, 3);
    }
    return c.reshape(c.to_channels_first(y), out_type);
}

bool conv(Context& c) {
    const ValueId x = c.input("input"), filter = c.input("filter");
    const Shape out = c.result_type("output").shape, fs = c.shape(filter);
    const Window w = make_window(c, c.shape(x), out, Ints(fs.begin() + 2, fs.end()), 2);
    const auto y = conv_value(c, x, filter, conv_bias(c, fs[0]), out, c.string_attr("border", "constant"),
                              c.int_attr("groups", 1), w);
    return y && c.bind("output", *y);
}

// separable_conv: conv(input, plane_filter, groups = 0, window...) then the 1x1
// conv(filtered, point_filter, bias, groups = groups).
bool separable_conv(Context& c) {
    const ValueId x = c.input("input"), plane = c.input("plane_filter"), point = c.input("point_filter");
    const Shape out = c.result_type("output").shape, xs = c.shape(x), ps = c.shape(plane);
    // the plane-wise result: down-scaled extents (automatic padding: ceil(X / s))
    const Ints stride = c.ints_attr("stride"), dilation = c.ints_attr("dilation");
    const Pairs padding = c.pairs_attr("padding");
    Shape mid{xs[0], ps[0]};
    for (std::size_t k = 2; k < xs.size(); ++k) {
        const std::int64_t s = k - 2 < stride.size() ? stride[k - 2] : 1, d = k - 2 < dilation.size() ? dilation[k - 2] : 1;
        const std::int64_t fd = (ps[k] - 1) * d + 1;
        if (padding.empty()) mid.push_back((xs[k] + s - 1) / s);
        else {
            const auto pq = k - 2 < padding.size() ? padding[k - 2] : std::make_pair<std::int64_t, std::int64_t>(0, 0);
            mid.push_back((xs[k] + pq.first + pq.second - fd) / s + 1);
        }
    }
    const Window w = make_window(c, xs, mid, Ints(ps.begin() + 2, ps.end()), 2);
    const auto filtered = conv_value(c, x, plane, c.zero_point(DType::fp32), mid, c.string_attr("border", "constant"), 0, w);
    if (!filtered) return false;
    Window unit;
    unit.offset = 2;
    for (std::size_t k = 2; k < xs.size(); ++k) {
        unit.size.push_back(1);
        unit.stride.push_back(1);
        unit.dilation.push_back(1);
        unit.padding.emplace_back(0, 0);
    }
    const auto y = conv_value(c, *filtered, point, conv_bias(c, c.shape(point)[0]), out, "constant",
                              c.int_attr("groups", 1), unit);
    return y && c.bind("output", *y);
}

// deconv (the reverse of conv): TRANSPOSE_CONV2D, where output oy = iy * s + out_pad_top + ky and
// NNEF's output i = ii * s + j * d - p: out_pad_top = -p. Padding that TOSA cannot express (p at
// least the kernel) is computed with a larger output and sliced; a dilated kernel is the kernel
// with d - 1 zeros between taps (a constant filter). Filters (C, O / groups, KH, KW) become OHWI.
bool deconv(Context& c) {
    ValueId x = c.input("input");
    const ValueId filter = c.input("filter");
    const TensorType out_type = c.result_type("output");
    const std::string border = c.string_attr("border", "constant");
    if (c.rank(x) != 4) return c.refuse("only 2-D deconvolutions (rank-4 inputs) have a TOSA form here");
    if (border != "constant")
        return c.refuse("TRANSPOSE_CONV2D adds nothing outside the input, which is border 'constant' only");
    const Shape xs = c.shape(x), fs = c.shape(filter), out = out_type.shape;
    Window w = make_window(c, out, xs, Ints(fs.begin() + 2, fs.end()), 2);
    const std::int64_t C = xs[1], O = out[1];
    std::int64_t groups = c.int_attr("groups", 1);
    if (groups == 0) groups = C;
    const std::int64_t cg = C / groups, og = O / groups;
    // the kernel, dilated: [C, O / groups, K'H, K'W]
    ValueId kernel = filter;
    Ints k{fs[2], fs[3]};
    if (w.dilation[0] != 1 || w.dilation[1] != 1) {
        const ConstPtr f = c.constant_of(filter);
        if (!f) return c.refuse("a dilated deconvolution needs a constant filter here (its kernel is spread with zeros)");
        k = {(fs[2] - 1) * w.dilation[0] + 1, (fs[3] - 1) * w.dilation[1] + 1};
        auto spread = ConstData::allocate(TensorType{DType::fp32, {fs[0], fs[1], k[0], k[1]}});
        for (std::int64_t a = 0; a < fs[0] * fs[1]; ++a)
            for (std::int64_t y = 0; y < fs[2]; ++y)
                for (std::int64_t z = 0; z < fs[3]; ++z)
                    spread->mutable_items<float>()[(a * k[0] + y * w.dilation[0]) * k[1] + z * w.dilation[1]] =
                        f->items<float>()[(a * fs[2] + y) * fs[3] + z];
        kernel = c.constant(std::move(spread));
    }
    Ints out_pad(4), start(2);
    Shape full{out[0], 0, 0, O};
    for (std::size_t d = 0; d < 2; ++d) {
        const std::int64_t p = w.padding[d].first, base = (xs[2 + d] - 1) * w.stride[d] + k[d];
        const std::int64_t top = std::max<std::int64_t>(-p, 0);
        start[d] = std::max<std::int64_t>(p, 0);
        const std::int64_t bottom = std::max<std::int64_t>(start[d] + out[2 + d] - (base + top), 0);
        out_pad[2 * d] = top;
        out_pad[2 * d + 1] = bottom;
        full[1 + d] = base + top + bottom;
    }
    const ValueId bias = conv_bias(c, O);
    const bool per_channel_bias = c.type(bias).volume() == O;
    const ValueId xn = c.to_channels_last(x);
    std::vector<ValueId> parts;
    for (std::int64_t g = 0; g < groups; ++g) {
        const ValueId xg = groups == 1 ? xn : c.slice_axis(xn, 3, g * cg, (g + 1) * cg);
        const ValueId kg = groups == 1 ? kernel : c.slice_axis(kernel, 0, g * cg, (g + 1) * cg);
        const ValueId wt = c.transpose(kg, {1, 2, 3, 0});  // [IC, OC, KH, KW] -> [OC, KH, KW, IC]
        const ValueId bg = per_channel_bias && groups > 1 ? c.slice_axis(bias, 0, g * og, (g + 1) * og) : bias;
        parts.push_back(c.add(OpKind::TRANSPOSE_CONV2D, {xg, wt, bg, c.zero_point(DType::fp32), c.zero_point(DType::fp32)},
                              TensorType{DType::fp32, {full[0], full[1], full[2], og}},
                              {{AttrName::out_pad, out_pad}, {AttrName::stride, w.stride}, {AttrName::acc_type, AccType::FP32}}));
    }
    ValueId y = c.concat(parts, 3);
    y = c.slice(y, {0, start[0], start[1], 0}, {out[0], out[2], out[3], O});
    return c.bind("output", c.to_channels_first(y));
}

}  // namespace tosa_from_nnef_convolution_cpp

std::optional<ValueId> conv_nchw(Context& c, ValueId x, ValueId filter, ValueId bias, const Shape& out,
                                 const std::string& border, std::int64_t groups, const ConvZeroPoints* zp) {
    const Shape fs = c.shape(filter);
    const Window w = make_window(c, c.shape(x), out, Ints(fs.begin() + 2, fs.end()), 2);
    return tosa_from_nnef_convolution_cpp::conv_value(c, x, filter, bias, out, border, groups, w, zp);
}

namespace integer {

namespace {

// The fine bias of each of n output channels (n = 1: one for all): the accumulator clamped to
// [lo, hi] (beyond them the result saturates anyway; no clamp when |acc| <= (xmax + 1) * wl1, the
// input's largest |code - zero point| and a border correction of at most one step per weight, is
// tighter), times 2^j, plus the bias (in accumulator steps) times 2^j, with j <= 30 the largest that
// keeps the sum within i32.
struct FineBias {
    std::vector<int> j;
    std::vector<double> lo, hi;  // the clamp, in accumulator steps
    bool clamp = false;
};

// Empty j when some channel cannot take a fine bias (no j >= 0, or a bias beyond 2^24 output steps,
// which the final RESCALE's multiplier cannot carry): the caller then rounds the bias to the
// accumulator's grid, the one-layer form (LowerOptions::bias_on_accumulator_grid's).
FineBias fine_bias_steps(const std::vector<double>& bias, const std::vector<double>& bs, const Grid& og, double xmax,
                         const std::vector<double>& wl1, std::int64_t n) {
    FineBias f;
    for (std::size_t o = 0; o < std::size_t(n); ++o) {
        const std::size_t bi = bias.size() == 1 ? 0 : o;
        double l1 = 0.0;
        if (n == 1)
            for (double v : wl1) l1 = std::max(l1, v);
        else
            l1 = wl1[o];
        // code = round(acc * m + beta * m) + zp with m = bs / out.scale, beta the bias in steps
        const double m = bs[bi] / og.scale, beta = (bias[bi] + og.frac * og.scale) / bs[bi];
        const double lo = std::floor((double(og.lo) - 1.0 - double(og.zp)) / m - beta);
        const double hi = std::ceil((double(og.hi) + 1.0 - double(og.zp)) / m - beta);
        if (std::fabs(beta * m) > std::ldexp(1.0, 24)) return {};  // beyond the final RESCALE's range: grid bias
        const double bound = (xmax + 1.0) * l1 + 1.0;
        const double span = std::min(bound, std::max(std::fabs(lo), std::fabs(hi)));
        f.clamp = f.clamp || span < bound;
        f.lo.push_back(std::max(lo, -2147483648.0));
        f.hi.push_back(std::min(hi, 2147483647.0));
        const int k = int(std::floor(std::log2(2147483647.0 / (span + std::fabs(beta) + 2.0))));
        if (k < 0) return {};
        f.j.push_back(std::min(30, k));
    }
    return f;
}

// The accumulator `acc` (i32, NCHW or [N, C]) with the bias added at 2^-j[o] of its steps, onto the
// result's grid: acc (clamped) * 2^j exactly (a MUL), plus round(bias * 2^j / bs) (and the result's
// zero point fraction), one RESCALE by bs / (out.scale * 2^j). Within 2^-(j+1) accumulator steps of
// nnef-run's sum acc * bs + bias, where a bias on the accumulator's grid would be up to half a step off.
ValueId fine_bias(Lowering& q, ValueId acc, const FineBias& f, const std::vector<double>& bias, const std::vector<double>& bs,
                  const Grid& og) {
    Context& c = q.c;
    const std::size_t n = f.j.size();
    const bool last = n > 1 && c.rank(acc) > 2;
    ValueId a = last ? c.to_channels_last(acc) : acc;
    std::vector<double> down(n);
    Shape per_c(c.rank(a), 1);
    per_c.back() = std::int64_t(n);
    auto offsets = ConstData::allocate(TensorType{DType::i32, per_c});
    auto factors = ConstData::allocate(TensorType{DType::i32, per_c});
    auto lows = ConstData::allocate(TensorType{DType::i32, per_c});
    auto highs = ConstData::allocate(TensorType{DType::i32, per_c});
    for (std::size_t o = 0; o < n; ++o) {
        const std::size_t bi = bias.size() == 1 ? 0 : o;
        const double up = std::ldexp(1.0, f.j[o]);
        down[o] = bs[bi] / og.scale / up;
        factors->mutable_items<std::int32_t>()[o] = static_cast<std::int32_t>(up);
        lows->mutable_items<std::int32_t>()[o] = static_cast<std::int32_t>(f.lo[o]);
        highs->mutable_items<std::int32_t>()[o] = static_cast<std::int32_t>(f.hi[o]);
        offsets->mutable_items<std::int32_t>()[o] =
            static_cast<std::int32_t>(storage::round_half_up((bias[bi] + og.frac * og.scale) / bs[bi] * up));
    }
    if (f.clamp) {
        a = c.maximum(a, c.constant(std::move(lows)));
        a = c.minimum(a, c.constant(std::move(highs)));
    }
    ValueId w = c.mul(a, c.constant(std::move(factors)));
    w = c.binary(OpKind::ADD, w, c.constant(std::move(offsets)));
    ValueId y = q.clamp_to(q.rescale(w, 0, down, og.zp, og.dtype), og);
    return last ? c.to_channels_first(y) : y;
}

}  // namespace

// conv / linear: i8 input and weights, i32 bias and accumulator, RESCALE to the result's grid.
bool conv_integer(Lowering& q, bool linear) {
    const Act* x = q.input_act("input");
    if (!x) return false;
    if (x->grid.dtype != DType::i8) return q.fail("convolutions of i16 inputs need EXT-INT16 (not lowered)");
    const Real* w = q.real(q.arg_id("filter"));
    if (!w) return q.fail("its filter is not known at compile time (weights must be constants for PRO-INT)");
    const Tensor& out = q.c.result("output");
    bool bad = false;
    const auto og = q.entry_grid(out.name, bad);
    if (bad) return false;
    if (!og) return q.fail("its result '" + out.name + "' has no graph.quant entry, so no grid for the accumulator's RESCALE");
    const std::string border = linear ? "constant" : q.c.string_attr("border", "constant");
    if (border != "constant") return q.fail("border '" + border + "' has no integer form here (TOSA pads with the zero point)");
    // the filter's codes: its entry's (per tensor, or per output channel with one zero point); for an
    // entry whose zero point falls between codes, half its scale when the codes fit i8, else (and
    // without an entry) a symmetric grid over each output channel's range (an approximation)
    const std::int64_t O = w->shape[0];
    const std::size_t per_o = w->items.size() / std::size_t(O);
    std::vector<double> ws(std::size_t(O), 0.0);
    std::int64_t wzp = 0;
    bool coded = false;
    if (w->params && w->params->channels() > 1) {
        const storage::QuantParams& p = *w->params;
        if (p.algorithm == storage::QuantAlgorithm::logarithmic || p.channel_axis() != 0 || std::int64_t(p.channels()) != O ||
            p.bits > 8)
            return q.fail("its filter's per-channel quantization is not along the output channels with linear 8-bit codes");
        coded = true;
        for (std::size_t o = 0; o < ws.size(); ++o) {
            const storage::Affine a = p.affine(o);
            const double zp = a.zero_point + (p.code_max() > 127 ? -128.0 : 0.0);
            coded = coded && zp == std::nearbyint(zp) && (o == 0 || std::int64_t(zp) == wzp);
            wzp = std::int64_t(std::nearbyint(zp));
            ws[o] = a.scale;
        }
        if (!coded) wzp = 0;
    } else if (w->params) {
        std::string why;
        std::int64_t offset = 0;
        const auto wg = grid_of(*w->params, offset, why);
        if (!wg) return q.fail("its filter's quantization has no i8 form: " + why);
        auto fits = [&](double scale) {
            for (double v : w->items) {
                const double units = v / scale;
                if (std::fabs(units - std::nearbyint(units)) > 1e-6 || std::fabs(units) > 127.0) return false;
            }
            return true;
        };
        if (wg->frac == 0.0) {
            std::fill(ws.begin(), ws.end(), wg->scale);
            wzp = wg->zp;
            coded = true;
        } else if (wg->frac == 0.5 && fits(wg->scale / 2)) {
            std::fill(ws.begin(), ws.end(), wg->scale / 2);
            coded = true;
        }
    }
    if (!coded)
        for (std::size_t i = 0; i < w->items.size(); ++i) ws[i / per_o] = std::max(ws[i / per_o], std::fabs(w->items[i]) / 127.0);
    for (double& v : ws)
        if (v == 0.0) v = 1.0;
    const bool per_channel = std::any_of(ws.begin(), ws.end(), [&](double v) { return v != ws[0]; });
    auto wc = ConstData::allocate(TensorType{DType::i8, w->shape});
    std::vector<double> wsum(std::size_t(O), 0.0);  // per output channel, of the weights as coded
    std::vector<double> wl1(std::size_t(O), 0.0);   // per output channel, sum |code - zero point|
    double wmax = 0.0;                               // the largest |code - zero point|
    for (std::size_t i = 0; i < w->items.size(); ++i) {
        const double s = ws[i / per_o];
        const double code = std::clamp<double>(storage::round_half_up(w->items[i] / s) + double(wzp), -128.0, 127.0);
        wc->mutable_items<std::int8_t>()[i] = static_cast<std::int8_t>(code);
        wsum[i / per_o] += (code - double(wzp)) * s;
        wmax = std::max(wmax, std::fabs(code - double(wzp)));
        wl1[i / per_o] += std::fabs(code - double(wzp));
    }
    // bias: i32 at scale in_scale * w_scale (per output channel), with the input's and the result's
    // zero point fractions: real = bs * (acc - frac_x * sum(w codes)) + b; code = round(real / out_scale + frac_out) + zp
    std::vector<double> bs(static_cast<std::size_t>(O));
    for (std::size_t o = 0; o < bs.size(); ++o) bs[o] = x->grid.scale * ws[o];
    std::vector<double> b{0.0};
    if (q.c.has_input("bias")) {
        const nnef::Value& bv = q.c.argument("bias");
        if (bv.is_identifier()) {
            const Real* br = q.real(bv.as_identifier());
            if (!br) return q.fail("its bias is not known at compile time");
            b = br->items;
        } else if (bv.is_scalar()) {
            b = {bv.as_scalar()};
        }
    }
    if (b.size() != 1 && std::int64_t(b.size()) != O) return q.fail("its bias has neither 1 nor " + std::to_string(O) + " items");
    if ((x->grid.frac != 0.0 || per_channel) && b.size() == 1) b.assign(std::size_t(O), b[0]);
    // The input's fraction over the items a window reads: a per-channel constant in the bias, or, where
    // padding leaves some windows partly outside the input, a constant per output position.
    std::optional<ValueId> border_correction;
    if (x->grid.frac != 0.0 && !linear) {
        const Shape xs = q.c.shape(x->v), os4 = *out.shape;
        const Window win = make_window(q.c, xs, os4, Ints(w->shape.begin() + 2, w->shape.end()), 2);
        bool padded = false;
        for (const auto& [p, after] : win.padding) padded = padded || p != 0 || after != 0;
        if (padded) {
            if (xs.size() != 4) return q.fail("the zero point fraction of a padded 1-D convolution's input is not lowered");
            const std::int64_t OH = os4[2], OW = os4[3], IH = xs[2], IW = xs[3], KH = w->shape[2], KW = w->shape[3];
            const std::int64_t CI = w->shape[1];
            auto corr = ConstData::allocate(TensorType{DType::i32, {1, O, OH, OW}});
            for (std::int64_t o = 0; o < O; ++o)
                for (std::int64_t oy = 0; oy < OH; ++oy)
                    for (std::int64_t ox = 0; ox < OW; ++ox) {
                        double sum = 0.0;  // of the weights as coded over the window's items inside the input
                        for (std::int64_t ky = 0; ky < KH; ++ky) {
                            const std::int64_t iy = oy * win.stride[0] - win.padding[0].first + ky * win.dilation[0];
                            if (iy < 0 || iy >= IH) continue;
                            for (std::int64_t kx = 0; kx < KW; ++kx) {
                                const std::int64_t ix = ox * win.stride[1] - win.padding[1].first + kx * win.dilation[1];
                                if (ix < 0 || ix >= IW) continue;
                                for (std::int64_t ci = 0; ci < CI; ++ci) {
                                    const std::int64_t at = ((o * CI + ci) * KH + ky) * KW + kx;
                                    sum += double(wc->items<std::int8_t>()[at]) - double(wzp);
                                }
                            }
                        }
                        corr->mutable_items<std::int32_t>()[(o * OH + oy) * OW + ox] =
                            static_cast<std::int32_t>(storage::round_half_up(-x->grid.frac * sum));
                    }
            border_correction = q.c.constant(std::move(corr));
            std::fill(wsum.begin(), wsum.end(), 0.0);  // not in the bias
        }
    }
    // A bias beyond i32 at that scale (GoogLeNet's classifier: its input grid is 3.9e-9) is added
    // after the accumulator's rescale instead, on a grid finer than the result's (late_bias).
    auto bc = ConstData::allocate(TensorType{DType::i32, {std::int64_t(b.size())}});
    std::vector<double> real_bias(b.size());
    std::optional<std::string> late_bias;  // why the bias is added late
    for (std::size_t i = 0; i < b.size(); ++i) {
        real_bias[i] = b[i] - (b.size() > 1 ? x->grid.frac * x->grid.scale * wsum[i] : 0.0);
        const double code = storage::round_half_up(real_bias[i] / bs[i] + og->frac * og->scale / bs[i]);
        if (std::fabs(code) > 2147483647.0 && !late_bias)
            late_bias = "its bias item " + std::to_string(i) + " (" + format_scalar(real_bias[i]) + ") does not fit i32 at scale " +
                        format_scalar(bs[i]) + " (input scale times weight scale): code " + format_scalar(code);
        bc->mutable_items<std::int32_t>()[i] = static_cast<std::int32_t>(std::fabs(code) > 2147483647.0 ? 0.0 : code);
    }
    // A bias between the accumulator's steps (a float bias: nnef-run adds it exactly) would be rounded
    // to that grid, which moves the codes near ties (fine_bias_steps says how it is added instead).
    const double xmax = double(std::max(x->grid.hi - x->grid.zp, x->grid.zp - x->grid.lo));
    FineBias fine;  // per output channel: the bias added at 2^-fine.j[o] accumulator steps
    if (!late_bias && !q.c.options().bias_on_accumulator_grid) {
        bool between = false;
        for (std::size_t i = 0; i < b.size(); ++i) {
            const double steps = real_bias[i] / bs[i] + og->frac * og->scale / bs[i];
            between = between || steps != std::nearbyint(steps);
        }
        if (between) fine = fine_bias_steps(real_bias, bs, *og, xmax, wl1, b.size() == 1 ? 1 : O);
    }
    if (late_bias || !fine.j.empty()) std::fill(bc->mutable_items<std::int32_t>(), bc->mutable_items<std::int32_t>() + b.size(), 0);
    ConvZeroPoints zp;
    zp.input = q.c.splat(DType::i8, {1}, double(x->grid.zp));
    zp.weight = q.c.splat(DType::i8, {1}, double(wzp));
    ValueId xv = x->v;
    ValueId filter = q.c.constant(std::move(wc));
    Shape os = *out.shape;
    if (linear) {
        const Shape xs = q.c.shape(xv);
        if (xs.size() != 2 || w->shape.size() != 2) return q.fail("linear needs a rank-2 input and filter");
        xv = q.c.reshape(xv, {xs[0], xs[1], 1, 1});
        filter = q.c.reshape(filter, {w->shape[0], w->shape[1], 1, 1});
        os = {os[0], os[1], 1, 1};
    }
    const auto acc = conv_nchw(q.c, xv, filter, q.c.constant(std::move(bc)), os, border,
                               linear ? 1 : q.c.int_attr("groups", 1), &zp);
    if (!acc) return false;
    Act y;
    y.grid = *og;
    std::vector<double> scales;
    for (double v : bs) scales.push_back(v / og->scale);
    if (!per_channel) scales.resize(1);
    ValueId a = q.c.reshape(*acc, *out.shape);
    if (border_correction) a = q.c.binary(OpKind::ADD, a, *border_correction);
    if (!fine.j.empty()) {
        y.v = fine_bias(q, a, fine, real_bias, bs, *og);
        return q.set(out.name, y);
    }
    if (late_bias) {
        // real = acc * bs + bias, exactly onto the result's grid (channels last when per channel)
        const double v_max = xmax * wmax * double(per_o);
        std::vector<double> factor = bs;
        if (!per_channel) factor.resize(1);
        const bool last = q.c.rank(a) > 2 && (factor.size() > 1 || real_bias.size() > 1);
        std::string why;
        y.v = q.affine(last ? q.c.to_channels_last(a) : a, 0, v_max, factor, real_bias, *og, why);
        if (y.v == no_value) return q.fail(*late_bias + "; added after the rescale, " + why);
        if (last) y.v = q.c.to_channels_first(y.v);
        return q.set(out.name, y);
    }
    if (per_channel) {  // the channels last for a per-channel RESCALE (the transposes cancel with the conv's)
        const ValueId last = q.c.to_channels_last(a);
        y.v = q.c.to_channels_first(q.rescale(last, 0, scales, og->zp, og->dtype));
    } else {
        y.v = q.rescale(a, 0, scales, og->zp, og->dtype);  // frac in the bias
    }
    y.v = q.clamp_to(y.v, *og);
    return q.set(out.name, y);
}

}  // namespace integer

void add_convolution(Registry& r) {
    using namespace tosa_from_nnef_convolution_cpp;
    r.push_back({"conv", "convolution", conv, {},
                 [](integer::Lowering& q) { return integer::conv_integer(q, false); }});
    r.push_back({"deconv", "convolution", deconv, {}});
    r.push_back({"separable_conv", "convolution", separable_conv, {}});
    r.push_back({"separable_deconv", "convolution", nullptr,
                 "not lowered as one operation; expand it (--expand separable_deconv) into its deconvolutions"});
}

}  // namespace nnef::tosa::from_nnef
