#include "exec/common.hpp"

#include <algorithm>
#include <cmath>
#include <type_traits>
#include <exception>
#include <thread>

namespace nnef::NNEF_EXEC_NS {

// ---- KernelContext -----------------------------------------------------------------------------

const Value& KernelContext::attr(std::string_view name) const {
    static const Value none;
    const Value* v = op().attrib(name);
    return v ? *v : none;
}

std::int64_t KernelContext::int_attr(std::string_view name, std::int64_t fallback) const {
    const Value& v = attr(name);
    return v.is_integer() ? v.as_integer() : fallback;
}

double KernelContext::scalar_attr(std::string_view name, double fallback) const {
    const Value& v = attr(name);
    if (v.is_scalar()) return v.as_scalar();
    if (v.is_integer()) return static_cast<double>(v.as_integer());
    return fallback;
}

bool KernelContext::logical_attr(std::string_view name, bool fallback) const {
    const Value& v = attr(name);
    return v.is_logical() ? v.as_logical() : fallback;
}

std::string KernelContext::string_attr(std::string_view name, std::string fallback) const {
    const Value& v = attr(name);
    return v.is_string() ? v.as_string() : fallback;
}

Ints KernelContext::ints_attr(std::string_view name) const {
    Ints out;
    const Value& v = attr(name);
    if (v.is_list())
        for (const Value& item : v.items())
            if (item.is_integer()) out.push_back(item.as_integer());
    return out;
}

Pairs KernelContext::pairs_attr(std::string_view name) const {
    Pairs out;
    const Value& v = attr(name);
    if (v.is_list())
        for (const Value& item : v.items())
            if (item.is_list() && item.size() == 2 && item[0].is_integer() && item[1].is_integer())
                out.emplace_back(item[0].as_integer(), item[1].as_integer());
    return out;
}

const TensorValue& KernelContext::input(std::string_view name, PrimType dtype) {
    const TensorValue& t = input(name);
    if (t.dtype() == dtype) return t;
    return keep(convert(t, dtype));
}

TensorValue convert(const TensorValue& t, PrimType dtype) {
    TensorValue out(dtype, t.shape());
    const std::int64_t n = t.volume();
    dispatch(t.dtype(), [&](auto from_tag) {
        using From = decltype(from_tag);
        const From* x = t.data<From>();
        dispatch(dtype, [&](auto to_tag) {
            using To = decltype(to_tag);
            To* y = out.data<To>();
            for (std::int64_t i = 0; i < n; ++i) {
                if constexpr (std::is_same_v<To, bool>) {
                    y[i] = x[i] != From{};
                } else if constexpr (std::is_same_v<To, std::int64_t> && std::is_same_v<From, Real>) {
                    const double v = std::floor(static_cast<double>(x[i]));
                    y[i] = std::isnan(v)                  ? 0
                           : v >= 9223372036854775807.0   ? INT64_MAX
                           : v <= -9223372036854775808.0  ? INT64_MIN
                                                          : static_cast<std::int64_t>(v);
                } else {
                    y[i] = static_cast<To>(x[i]);
                }
            }
        });
    });
    return out;
}

// ---- threads -----------------------------------------------------------------------------------

void parallel_for(std::int64_t n, unsigned threads, std::int64_t grain,
                  const std::function<void(std::int64_t, std::int64_t)>& f) {
    if (n <= 0) return;
    if (grain < 1) grain = 1;
    std::int64_t parts = std::min<std::int64_t>(threads ? threads : 1, (n + grain - 1) / grain);
    if (parts <= 1) {
        f(0, n);
        return;
    }
    std::vector<std::thread> pool;
    std::vector<std::exception_ptr> errors(static_cast<std::size_t>(parts));
    auto bound = [&](std::int64_t p) { return n * p / parts; };
    for (std::int64_t p = 1; p < parts; ++p)
        pool.emplace_back([&, p] {
            try {
                f(bound(p), bound(p + 1));
            } catch (...) {
                errors[static_cast<std::size_t>(p)] = std::current_exception();
            }
        });
    try {
        f(0, bound(1));
    } catch (...) {
        errors[0] = std::current_exception();
    }
    for (std::thread& t : pool) t.join();
    for (const std::exception_ptr& e : errors)
        if (e) std::rethrow_exception(e);
}

// ---- broadcasting ------------------------------------------------------------------------------

Ints strides_of(const Shape& shape) {
    Ints s(shape.size(), 1);
    for (std::size_t k = shape.size(); k-- > 1;) s[k - 1] = s[k] * shape[k];
    return s;
}

template <std::size_t N>
BroadcastPlan<N> broadcast_plan(const Shape& out, const std::array<const Shape*, N>& in) {
    BroadcastPlan<N> p;
    std::array<Ints, N> strides;
    for (std::size_t j = 0; j < N; ++j) strides[j] = strides_of(*in[j]);
    for (std::size_t k = 0; k < out.size(); ++k) {
        if (out[k] == 1) continue;
        std::array<std::int64_t, N> s{};
        for (std::size_t j = 0; j < N; ++j) {
            const Shape& shape = *in[j];
            s[j] = k < shape.size() && shape[k] != 1 ? strides[j][k] : 0;
        }
        if (!p.extents.empty()) {
            // merge with the previous dimension when contiguous in every operand
            const std::array<std::int64_t, N>& prev = p.strides.back();
            bool merge = true;
            for (std::size_t j = 0; j < N; ++j) merge = merge && prev[j] == s[j] * out[k];
            if (merge) {
                p.extents.back() *= out[k];
                p.strides.back() = s;
                continue;
            }
        }
        p.extents.push_back(out[k]);
        p.strides.push_back(s);
    }
    if (p.extents.empty()) {
        p.extents.push_back(1);
        p.strides.push_back({});
    }
    return p;
}

template BroadcastPlan<1> broadcast_plan<1>(const Shape&, const std::array<const Shape*, 1>&);
template BroadcastPlan<2> broadcast_plan<2>(const Shape&, const std::array<const Shape*, 2>&);
template BroadcastPlan<3> broadcast_plan<3>(const Shape&, const std::array<const Shape*, 3>&);

// ---- borders and windows -----------------------------------------------------------------------

bool parse_border(const std::string& name, Border& out) {
    if (name == "ignore") out = Border::ignore;
    else if (name == "constant") out = Border::constant;
    else if (name == "replicate") out = Border::replicate;
    else if (name == "reflect") out = Border::reflect;
    else if (name == "reflect-even") out = Border::reflect_even;
    else return false;
    return true;
}

std::int64_t border_index(std::int64_t c, std::int64_t z, Border b) {
    if (c >= 0 && c < z) return c;
    switch (b) {
        case Border::ignore: return no_term;
        case Border::constant: return zero_term;
        case Border::replicate: return c < 0 ? 0 : z - 1;
        case Border::reflect: {
            // mirror around the edge items: period 2 (z - 1)
            if (z == 1) return 0;
            const std::int64_t period = 2 * (z - 1);
            std::int64_t m = c % period;
            if (m < 0) m += period;
            return m < z ? m : period - m;
        }
        case Border::reflect_even: {
            // mirror with the edge items repeated: period 2 z
            const std::int64_t period = 2 * z;
            std::int64_t m = c % period;
            if (m < 0) m += period;
            return m < z ? m : period - 1 - m;
        }
    }
    return zero_term;
}

AxisWindow axis_window(std::int64_t in, std::int64_t out, std::int64_t f, std::int64_t s, std::int64_t d,
                       std::int64_t p, Border b, bool reverse) {
    AxisWindow a;
    a.out = out;
    a.size = f;
    a.identity = f == 1 && s == 1 && p == 0 && in == out;
    a.index.resize(static_cast<std::size_t>(out * f));
    for (std::int64_t i = 0; i < out; ++i)
        for (std::int64_t j = 0; j < f; ++j) {
            std::int64_t c = i * s + j * d - p;
            if (reverse) {
                const std::int64_t n = i + p - j * d;
                c = floor_div(n, s);
                if (c * s != n) {
                    a.index[static_cast<std::size_t>(i * f + j)] = no_term;
                    continue;
                }
            }
            a.index[static_cast<std::size_t>(i * f + j)] = border_index(c, in, b);
        }
    return a;
}

WindowSpec window_spec(const KernelContext& ctx, Ints size, const Ints& up, const Ints& down) {
    const std::size_t dims = up.size();
    WindowSpec w;
    w.size = std::move(size);
    w.size.resize(dims, 1);
    w.stride = ctx.ints_attr("stride");
    w.stride.resize(dims, 1);
    w.dilation = ctx.ints_attr("dilation");
    w.dilation.resize(dims, 1);
    w.padding = ctx.pairs_attr("padding");
    if (!w.padding.empty()) {
        w.padding.resize(dims, {0, 0});
        return w;
    }
    w.padding.resize(dims);
    for (std::size_t k = 0; k < dims; ++k) {
        const std::int64_t fd = (w.size[k] - 1) * w.dilation[k] + 1;
        const std::int64_t t = (down[k] - 1) * w.stride[k] + fd - up[k];
        w.padding[k] = {floor_div(t, 2), t - floor_div(t, 2)};
    }
    return w;
}

std::vector<AxisWindow> windows(const WindowSpec& w, const Ints& in, const Ints& out, Border b, bool reverse) {
    std::vector<AxisWindow> axes;
    for (std::size_t k = 0; k < in.size(); ++k) {
        const std::int64_t s = w.stride[k], d = w.dilation[k], p = w.padding[k].first;
        axes.push_back(axis_window(in[k], out[k], w.size[k], s, d, p, b, reverse));
    }
    return axes;
}

WindowPlan window_plan(std::vector<AxisWindow> axes, const Shape& in) {
    WindowPlan plan;
    std::size_t first = 0;
    while (first + 1 < axes.size() && axes[first].identity) ++first;
    plan.first = first;
    const Ints strides = strides_of(in);
    for (std::size_t k = 0; k < axes.size(); ++k) {
        if (k < first) continue;
        plan.in_strides.push_back(strides[k]);
        plan.out_extents.push_back(axes[k].out);
        plan.plane_out *= axes[k].out;
        plan.window *= axes[k].size;
    }
    plan.plane_in = first < in.size() ? strides[first] * in[first] : 1;
    plan.axes.assign(std::make_move_iterator(axes.begin() + static_cast<std::ptrdiff_t>(first)),
                     std::make_move_iterator(axes.end()));
    return plan;
}

// ---- linear interpolation ----------------------------------------------------------------------

LinearTaps linear_taps(const std::vector<double>& v, std::int64_t z, Border border) {
    LinearTaps t;
    for (double c : v) {
        const double j = std::floor(c);
        const auto i = static_cast<std::int64_t>(j);
        t.first.push_back(border_index(i, z, border));
        t.second.push_back(border_index(i + 1, z, border));
        t.u.push_back(c - j);
    }
    return t;
}

void resample_axis(const Real* in, const Shape& shape, std::size_t axis, const LinearTaps& taps, Real* out) {
    std::int64_t outer = 1, inner = 1;
    for (std::size_t k = 0; k < axis; ++k) outer *= shape[k];
    for (std::size_t k = axis + 1; k < shape.size(); ++k) inner *= shape[k];
    const std::int64_t x = shape[axis];
    const auto X = static_cast<std::int64_t>(taps.u.size());
    for (std::int64_t o = 0; o < outer; ++o) {
        const Real* src = in + o * x * inner;
        Real* dst = out + o * X * inner;
        for (std::int64_t i = 0; i < X; ++i) {
            const std::int64_t a = taps.first[static_cast<std::size_t>(i)], b = taps.second[static_cast<std::size_t>(i)];
            const double u = taps.u[static_cast<std::size_t>(i)];
            for (std::int64_t e = 0; e < inner; ++e) {
                const double va = a >= 0 ? src[a * inner + e] : 0.0;
                const double vb = b >= 0 ? src[b * inner + e] : 0.0;
                dst[i * inner + e] = static_cast<Real>((1.0 - u) * va + u * vb);
            }
        }
    }
}

}  // namespace nnef::NNEF_EXEC_NS
