// Sliding-window operations (NNEF spec 4.3, 4.9.3) other than the convolutions (convolution.cpp):
// pooling and box filters on TOSA's NHWC AVG_POOL2D / MAX_POOL2D (and DEPTHWISE_CONV2D), the local
// normalizations over box filters; max_pool / avg_pool of quantized graphs at PRO-INT; and the
// windows themselves (window.hpp), which the convolutions, sampling and normalization share.
//
// Padding: TOSA operators pad with zeros (convolutions) or not at all (pooling ignores padded
// positions), need non-negative padding, and need the window to end exactly at the padded input's
// end. So negative (automatic) padding crops the input, padding the last window does not reach is
// dropped (or the input cropped), and border modes TOSA cannot express implicitly are explicit
// pads before the operator: 'constant' for pooling (PAD with zeros, so the divisor of avg_pool
// counts the padded items), 'replicate', 'reflect' and 'reflect-even' (Context::pad_border).
// 'ignore' pooling is TOSA's own (AVG_POOL2D's divisor counts only the input items).
#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <stdexcept>

#include "lowering/tosa/from_nnef/context.hpp"
#include "lowering/tosa/from_nnef/integer.hpp"
#include "lowering/tosa/from_nnef/window.hpp"

namespace nnef::tosa::from_nnef {

Window make_window(Context& c, const Shape& in, const Shape& out, Ints size, std::size_t offset) {
    Window w;
    w.offset = offset;
    const std::size_t dims = in.size() - offset;
    w.size = std::move(size);
    w.size.resize(dims, 1);
    w.stride = c.ints_attr("stride");
    w.stride.resize(dims, 1);
    w.dilation = c.ints_attr("dilation");
    w.dilation.resize(dims, 1);
    w.padding = c.pairs_attr("padding");
    if (!w.padding.empty()) {
        w.padding.resize(dims, {0, 0});
        return w;
    }
    // automatic padding (spec 4.3): t = (x - 1) * s + (f - 1) * d + 1 - X, p = floor(t / 2)
    w.padding.resize(dims);
    for (std::size_t k = 0; k < dims; ++k) {
        const std::int64_t fd = (w.size[k] - 1) * w.dilation[k] + 1;
        const std::int64_t t = (out[offset + k] - 1) * w.stride[k] + fd - in[offset + k];
        const std::int64_t p = t >= 0 ? t / 2 : -((-t + 1) / 2);
        w.padding[k] = {p, t - p};
    }
    return w;
}

ValueId fit_window(Context& c, ValueId x, Window& w, const Shape& out) {
    for (std::size_t k = 0; k < w.size.size(); ++k) {
        const std::size_t axis = w.offset + k;
        std::int64_t in = c.shape(x)[axis];
        auto [p, q] = w.padding[k];
        if (p < 0) {
            x = c.slice_axis(x, axis, -p, in);
            in += p;
            p = 0;
        }
        if (q < 0) {
            x = c.slice_axis(x, axis, 0, in + q);
            in += q;
            q = 0;
        }
        const std::int64_t need = (out[axis] - 1) * w.stride[k] + (w.size[k] - 1) * w.dilation[k] + 1;
        std::int64_t extra = in + p + q - need;
        if (extra < 0) throw std::logic_error("the windows reach beyond the padded input");
        const std::int64_t r = std::min(q, extra);
        q -= r;
        extra -= r;
        if (extra > 0) {
            x = c.slice_axis(x, axis, 0, in - extra);
            in -= extra;
        }
        w.padding[k] = {p, q};
    }
    return x;
}

ValueId pad_window(Context& c, ValueId x, Window& w, const Shape& out, const std::string& border, double value) {
    for (std::size_t k = 0; k < w.size.size(); ++k) {
        auto& [p, q] = w.padding[k];
        x = c.pad_border(x, w.offset + k, std::max<std::int64_t>(p, 0), std::max<std::int64_t>(q, 0), border, value);
        p = std::min<std::int64_t>(p, 0);
        q = std::min<std::int64_t>(q, 0);
    }
    return fit_window(c, x, w, out);
}

namespace tosa_from_nnef_sliding_window_cpp {

// The pooling window of a rank-3 or rank-4 input as TOSA's [kernel_y, kernel_x] over NCHW: the
// batch and channel dimensions must have size 1, stride 1 and no padding.
bool pool_window(Context& c, const Window& w, std::size_t rank, std::string& why) {
    for (std::size_t k = 0; k < 2; ++k)
        if (w.size[k] != 1 || w.stride[k] != 1 || w.padding[k] != std::make_pair<std::int64_t, std::int64_t>(0, 0)) {
            why = "TOSA pools over the spatial dimensions only; this window has size " + std::to_string(w.size[k]) +
                  ", stride " + std::to_string(w.stride[k]) + " or padding in dimension " + std::to_string(k);
            return false;
        }
    for (std::int64_t d : w.dilation)
        if (d != 1) {
            why = "TOSA's pooling operators have no dilation";
            return false;
        }
    if (rank < 3 || rank > 4) {
        why = "only 1-D and 2-D pooling (rank-3 and rank-4 inputs) has a TOSA form here; this input has rank " +
              std::to_string(rank);
        return false;
    }
    (void)c;
    return true;
}

// A rank-3 input [N, C, W] as [N, C, 1, W], with its window.
void as_2d(Context& c, ValueId& x, Window& w, Shape& out) {
    if (c.rank(x) != 3) return;
    const Shape xs = c.shape(x);
    x = c.reshape(x, {xs[0], xs[1], 1, xs[2]});
    out = {out[0], out[1], 1, out[2]};
    w.size.insert(w.size.begin() + 2, 1);
    w.stride.insert(w.stride.begin() + 2, 1);
    w.dilation.insert(w.dilation.begin() + 2, 1);
    w.padding.insert(w.padding.begin() + 2, {0, 0});
}

bool implicit_fits(const Window& w) {
    for (std::size_t k = 0; k < w.size.size(); ++k)
        if (w.padding[k].first >= w.size[k] || w.padding[k].second >= w.size[k]) return false;
    return true;
}

// The spatial part of a pooling window over NCHW, as a window over NHWC (dimensions 1 and 2).
Window spatial_nhwc(const Window& w) {
    Window s;
    s.offset = 1;
    for (std::size_t k = 2; k < 4; ++k) {
        s.size.push_back(w.size[k]);
        s.stride.push_back(w.stride[k]);
        s.dilation.push_back(w.dilation[k]);
        s.padding.push_back(w.padding[k]);
    }
    return s;
}

ValueId pool2d(Context& c, OpKind kind, ValueId xn, const Window& w, const Shape& on) {
    const Ints pad{w.padding[0].first, w.padding[0].second, w.padding[1].first, w.padding[1].second};
    const TensorType t{c.type(xn).dtype, on};
    const DType dt = c.type(xn).dtype;
    if (kind == OpKind::MAX_POOL2D)
        return c.add(kind, {xn}, t,
                     {{AttrName::kernel, w.size}, {AttrName::stride, w.stride}, {AttrName::pad, pad},
                      {AttrName::nan_mode, NanMode::PROPAGATE}});
    return c.add(kind, {xn, c.zero_point(dt), c.zero_point(dt)}, t,
                 {{AttrName::kernel, w.size}, {AttrName::stride, w.stride}, {AttrName::pad, pad},
                  {AttrName::acc_type, is_integer(dt) ? AccType::INT32 : AccType::FP32}});
}

// The max or the mean (border 'constant': divided by the window volume; 'ignore': by the number of
// input items) of each window of x, with the current operation's stride, padding and dilation.
std::optional<ValueId> pool_value(Context& c, ValueId x, bool max, Shape out_shape, const std::string& border,
                                  const Ints& size) {
    Shape out = out_shape;
    Window full = make_window(c, c.shape(x), out, size, 0);
    std::string why;
    if (!pool_window(c, full, c.rank(x), why)) {
        c.refuse(why);
        return std::nullopt;
    }
    as_2d(c, x, full, out);
    Window w = spatial_nhwc(full);
    const Shape on{out[0], out[2], out[3], out[1]};
    ValueId xn = c.to_channels_last(x);
    if (border == "ignore") {
        // TOSA's pooling: padded positions take no part (nor count in the divisor)
        Window fitted = w;
        const ValueId xf = fit_window(c, xn, fitted, on);
        if (implicit_fits(fitted)) {
            xn = xf;
            w = fitted;
        } else if (max) {
            xn = pad_window(c, xn, w, on, "constant",
                            is_integer(c.type(xn).dtype) ? -128.0 : -double(std::numeric_limits<float>::infinity()));
        } else {
            c.refuse("with border 'ignore', TOSA's AVG_POOL2D needs padding smaller than the window");
            return std::nullopt;
        }
    } else {
        xn = pad_window(c, xn, w, on, border, 0.0);
    }
    const ValueId y = c.to_channels_first(pool2d(c, max ? OpKind::MAX_POOL2D : OpKind::AVG_POOL2D, xn, w, on));
    return c.reshape(y, out_shape);
}

bool pool(Context& c, bool max, const char* result) {
    const auto y = pool_value(c, c.input("input"), max, c.result_type(result).shape, c.string_attr("border", "constant"),
                              c.ints_attr("size"));
    return y && c.bind(result, *y);
}

// box: the window sums, or their mean with `normalize`. A sum is the mean with border 'constant'
// (divisor: the window volume) times the volume; with 'ignore' the padded items add nothing either.
std::optional<ValueId> box_value(Context& c, ValueId x, Shape out, const Ints& size, std::string border,
                                 bool normalize) {
    if (!normalize && border == "ignore") border = "constant";
    const auto mean = pool_value(c, x, false, out, border, size);
    if (!mean || normalize) return mean;
    double volume = 1.0;
    for (std::int64_t k : size) volume *= double(k);
    return c.mul(*mean, one_like(c, *mean, volume));
}

bool box(Context& c) {
    const auto y = box_value(c, c.input("input"), c.result_type("output").shape, c.ints_attr("size"),
                             c.string_attr("border", "constant"), c.logical_attr("normalize"));
    return y && c.bind("output", *y);
}

bool rms_pool(Context& c) {
    // sqrt(avg_pool(sqr(input)))
    const ValueId x = c.input("input");
    const auto m = pool_value(c, c.mul(x, x), false, c.result_type("output").shape, c.string_attr("border", "constant"),
                              c.ints_attr("size"));
    return m && c.bind("output", c.binary(OpKind::POW, *m, one_like(c, *m, 0.5)));
}

// The local normalizations (spec 4.9.4) over box(..., size, normalize = true) with the defaults of
// box (border 'constant', automatic padding, stride 1).
std::optional<ValueId> local_mean(Context& c, ValueId x) {
    return box_value(c, x, c.shape(x), c.ints_attr("size"), "constant", true);
}

bool local_response_normalization(Context& c) {
    // input / (bias + alpha * box(sqr(input)))^beta
    const ValueId x = c.input("input");
    const auto s = local_mean(c, c.mul(x, x));
    if (!s) return false;
    const ValueId sigma = c.binary(OpKind::ADD, one_like(c, *s, c.scalar_attr("bias", 1.0)),
                                   c.mul(one_like(c, *s, c.scalar_attr("alpha", 1.0)), *s));
    return c.bind("output", c.div(x, c.binary(OpKind::POW, sigma, one_like(c, sigma, c.scalar_attr("beta", 0.5)))));
}

bool local_mean_normalization(Context& c) {
    const ValueId x = c.input("input");
    const auto m = local_mean(c, x);
    return m && c.bind("output", c.binary(OpKind::SUB, x, *m));
}

// input / max(sqrt(box(sqr(input))) + bias, epsilon)
std::optional<ValueId> local_variance(Context& c, ValueId x) {
    const auto s = local_mean(c, c.mul(x, x));
    if (!s) return std::nullopt;
    const ValueId root = c.binary(OpKind::POW, *s, one_like(c, *s, 0.5));
    const ValueId den = c.nnef_max(c.binary(OpKind::ADD, root, one_like(c, root, c.scalar_attr("bias"))),
                                   one_like(c, root, c.scalar_attr("epsilon")));
    return c.div(x, den);
}

bool local_variance_normalization(Context& c) {
    const auto y = local_variance(c, c.input("input"));
    return y && c.bind("output", *y);
}

bool local_contrast_normalization(Context& c) {
    const ValueId x = c.input("input");
    const auto m = local_mean(c, x);
    if (!m) return false;
    const auto y = local_variance(c, c.binary(OpKind::SUB, x, *m));
    return y && c.bind("output", *y);
}

bool max_pool(Context& c) { return pool(c, true, "output"); }
bool avg_pool(Context& c) { return pool(c, false, "output"); }

using integer::Act;
using integer::Grid;

// avg_pool of rank 4 whose padding TOSA can take as it is: the window sums (code - zp) in i32 by a
// DEPTHWISE_CONV2D with a filter of ones (padding contributes 0), then one RESCALE to the result's
// grid: by 1 / (window volume) for 'constant' (padding counted) or without padding; for 'ignore'
// with padding, a MUL by round(2^22 / items inside) per output position first. Zero point
// fractions are added at that resolution. nullopt: not this form (the caller's AVG_POOL2D then).
std::optional<bool> window_mean(integer::Lowering& q, const Act& x, const std::string& border) {
    const Tensor& out = q.c.result("output");
    const Shape xs = q.c.shape(x.v), os = *out.shape;
    if (xs.size() != 4 || x.grid.dtype != DType::i8 || (border != "constant" && border != "ignore")) return std::nullopt;
    const Window w = make_window(q.c, xs, os, q.c.ints_attr("size"), 0);
    for (std::size_t k = 0; k < 4; ++k) {
        if (w.dilation[k] != 1) return std::nullopt;
        if (k < 2 && (w.size[k] != 1 || w.stride[k] != 1 || w.padding[k] != std::pair<std::int64_t, std::int64_t>(0, 0)))
            return std::nullopt;
        if (k >= 2 && (w.padding[k].first < 0 || w.padding[k].second < 0 ||
                       (xs[k] + w.padding[k].first + w.padding[k].second - w.size[k]) != (os[k] - 1) * w.stride[k]))
            return std::nullopt;
    }
    bool bad = false;
    const auto og = q.entry_grid(out.name, bad);
    if (bad) return false;
    const Grid g = og ? *og : x.grid;
    const std::int64_t C = xs[1], KH = w.size[2], KW = w.size[3], OH = os[2], OW = os[3];
    const bool padded = w.padding[2] != std::pair<std::int64_t, std::int64_t>(0, 0) ||
                        w.padding[3] != std::pair<std::int64_t, std::int64_t>(0, 0);
    const bool uniform = !padded || border == "constant";
    const double volume = double(KH * KW);
    // sums of (code - zp) over each window, NHWC
    auto ones = ConstData::allocate(TensorType{DType::i8, {KH, KW, C, 1}});
    std::fill(ones->mutable_items<std::int8_t>(), ones->mutable_items<std::int8_t>() + KH * KW * C, std::int8_t(1));
    const Ints pad{w.padding[2].first, w.padding[2].second, w.padding[3].first, w.padding[3].second};
    ValueId sum = q.c.add(OpKind::DEPTHWISE_CONV2D,
                         {q.c.to_channels_last(x.v), q.c.constant(std::move(ones)), q.c.splat(DType::i32, {1}, 0.0),
                          q.c.splat(DType::i8, {1}, double(x.grid.zp)), q.c.splat(DType::i8, {1}, 0.0)},
                         TensorType{DType::i32, {os[0], OH, OW, C}},
                         {{AttrName::pad, pad},
                          {AttrName::stride, Ints{w.stride[2], w.stride[3]}},
                          {AttrName::dilation, Ints{1, 1}},
                          {AttrName::acc_type, AccType::INT32}});
    // code = round((sum - frac_in * inside) / divisor * m + frac_out) + zp with m = scale_in / scale_out,
    // inside: the window's items within the input, divisor: the window volume ('constant') or inside
    const double m = x.grid.scale / g.scale;
    double unit;  // of the value RESCALEd, in input codes
    if (uniform && x.grid.frac == 0.0 && g.frac == 0.0) {
        unit = 1.0 / volume;
    } else {
        const double k = std::ldexp(1.0, 22);
        if ((255.0 + std::fabs(g.frac / m) + 1.0) * k >= std::ldexp(1.0, 31)) return std::nullopt;
        auto factor = ConstData::allocate(TensorType{DType::i32, {1, OH, OW, 1}});
        auto offset = ConstData::allocate(TensorType{DType::i32, {1, OH, OW, 1}});
        for (std::int64_t oy = 0; oy < OH; ++oy)
            for (std::int64_t ox = 0; ox < OW; ++ox) {
                const std::int64_t y0 = oy * w.stride[2] - w.padding[2].first, x0 = ox * w.stride[3] - w.padding[3].first;
                const double inside = double((std::min(y0 + KH, xs[2]) - std::max<std::int64_t>(y0, 0)) *
                                             (std::min(x0 + KW, xs[3]) - std::max<std::int64_t>(x0, 0)));
                const double divisor = uniform ? volume : inside;
                factor->mutable_items<std::int32_t>()[oy * OW + ox] = static_cast<std::int32_t>(storage::round_half_up(k / divisor));
                offset->mutable_items<std::int32_t>()[oy * OW + ox] = static_cast<std::int32_t>(
                    storage::round_half_up(k * (-x.grid.frac * inside / divisor + g.frac / m)));
            }
        sum = q.c.binary(OpKind::ADD, q.c.mul(sum, q.c.constant(std::move(factor))), q.c.constant(std::move(offset)));
        unit = 1.0 / k;
    }
    Act y;
    y.grid = g;
    y.v = q.c.reshape(q.c.to_channels_first(q.clamp_to(q.rescale(sum, 0, unit * m, g.zp, g.dtype), g)), os);
    return q.set(out.name, y);
}

// max_pool on the codes; avg_pool as window_mean, or else ('ignore' border: the mean of the input
// items) with AVG_POOL2D, whose zero points may stay 0 (the integer zero point commutes with the
// rounded mean), then a RESCALE to the result's grid (two roundings).
bool pool_integer(integer::Lowering& q, bool max) {
    const Act* x = q.input_act("input");
    if (!x) return false;
    const std::string border = q.c.string_attr("border", "constant");
    if (!max)
        if (const auto y = window_mean(q, *x, border)) return *y;
    bool padded = false;
    for (const auto& [p, after] : q.c.pairs_attr("padding")) padded = padded || p != 0 || after != 0;
    if (q.c.pairs_attr("padding").empty()) padded = true;  // automatic padding may pad
    if (padded && border != "ignore" && !(max && border == "constant" && x->grid.zp <= x->grid.lo))
        return q.fail("border '" + border + "' has no integer form here (use 'ignore')");
    const Tensor& out = q.c.result("output");
    const auto y = pool_nchw(q.c, x->v, max, *out.shape, max ? "ignore" : border, q.c.ints_attr("size"));
    if (!y) return false;
    return q.bind_act(out.name, Act{*y, x->grid});
}

}  // namespace tosa_from_nnef_sliding_window_cpp

std::optional<ValueId> pool_nchw(Context& c, ValueId x, bool max, const Shape& out, const std::string& border,
                                 const Ints& size) {
    return tosa_from_nnef_sliding_window_cpp::pool_value(c, x, max, out, border, size);
}

void add_sliding_window(Registry& r) {
    using namespace tosa_from_nnef_sliding_window_cpp;
    r.push_back({"max_pool", "sliding_window", max_pool, {},
                 [](integer::Lowering& q) { return pool_integer(q, true); }});
    r.push_back({"avg_pool", "sliding_window", avg_pool, {},
                 [](integer::Lowering& q) { return pool_integer(q, false); }});
    r.push_back({"rms_pool", "sliding_window", rms_pool, {}});
    r.push_back({"box", "sliding_window", box, {}});
    r.push_back({"local_response_normalization", "sliding_window", local_response_normalization, {}});
    r.push_back({"local_mean_normalization", "sliding_window", local_mean_normalization, {}});
    r.push_back({"local_variance_normalization", "sliding_window", local_variance_normalization, {}});
    r.push_back({"local_contrast_normalization", "sliding_window", local_contrast_normalization, {}});
    const std::string positions =
        "it computes or consumes the positions of items within windows; TOSA has no windowed arg-max (ARGMAX "
        "reduces a whole axis) and no per-window gather or scatter, and no decomposition is provided";
    r.push_back({"argmax_pool", "sliding_window", nullptr, positions});
    r.push_back({"max_pool_with_index", "sliding_window", nullptr, positions});
    r.push_back({"sample", "sliding_window", nullptr, positions});
    r.push_back({"desample", "sliding_window", nullptr, positions});
    r.push_back({"debox", "sliding_window", nullptr,
                 "the reverse box filter is not lowered (its TRANSPOSE_CONV2D form with a ones filter is not written)"});
}

}  // namespace nnef::tosa::from_nnef