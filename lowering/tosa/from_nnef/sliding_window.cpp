// Sliding-window operations (NNEF spec 4.3, 4.9.3): conv (groups, depthwise, dilation, padding
// including the automatic one, every border mode), pooling and box filters, on TOSA's NHWC
// CONV2D / DEPTHWISE_CONV2D / AVG_POOL2D / MAX_POOL2D.
//
// Padding: TOSA operators pad with zeros (convolutions) or not at all (pooling ignores padded
// positions), need non-negative padding, and need the window to end exactly at the padded input's
// end. So negative (automatic) padding crops the input, padding the last window does not reach is
// dropped (or the input cropped), and border modes TOSA cannot express implicitly are explicit
// pads before the operator: 'constant' for pooling (PAD with zeros, so the divisor of avg_pool
// counts the padded items), 'replicate', 'reflect' and 'reflect-even' (Context::pad_border).
// 'ignore' pooling is TOSA's own (AVG_POOL2D's divisor counts only the input items).
#include <algorithm>
#include <limits>
#include <optional>
#include <stdexcept>

#include "lowering/tosa/from_nnef/context.hpp"
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

}  // namespace tosa_from_nnef_sliding_window_cpp

std::optional<ValueId> conv_nchw(Context& c, ValueId x, ValueId filter, ValueId bias, const Shape& out,
                                 const std::string& border, std::int64_t groups, const ConvZeroPoints* zp) {
    const Shape fs = c.shape(filter);
    const Window w = make_window(c, c.shape(x), out, Ints(fs.begin() + 2, fs.end()), 2);
    return tosa_from_nnef_sliding_window_cpp::conv_value(c, x, filter, bias, out, border, groups, w, zp);
}

std::optional<ValueId> pool_nchw(Context& c, ValueId x, bool max, const Shape& out, const std::string& border,
                                 const Ints& size) {
    return tosa_from_nnef_sliding_window_cpp::pool_value(c, x, max, out, border, size);
}

void add_sliding_window(Registry& r) {
    using namespace tosa_from_nnef_sliding_window_cpp;
    r.push_back({"conv", "sliding_window", conv, {}});
    r.push_back({"max_pool", "sliding_window", max_pool, {}});
    r.push_back({"avg_pool", "sliding_window", avg_pool, {}});
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
    r.push_back({"deconv", "sliding_window", deconv, {}});
    r.push_back({"separable_conv", "sliding_window", separable_conv, {}});
    r.push_back({"separable_deconv", "sliding_window", nullptr,
                 "not lowered as one operation; expand it (--expand separable_deconv) into its deconvolutions"});
}

}  // namespace nnef::tosa::from_nnef
