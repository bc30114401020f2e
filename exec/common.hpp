// Helpers shared by the kernels (exec/kernels/*.cpp): broadcasting iteration (spec 4.2.2, read as
// in semantics/ops/common.hpp: dimensions are matched from dimension 0 and a tensor of lower rank
// has singleton trailing extents), border modes and sliding-window index maps (spec 4.3), and
// splitting work over threads.
#pragma once
#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "exec/kernel.hpp"

namespace nnef::NNEF_EXEC_NS {

// ---- threads -----------------------------------------------------------------------------------

// Calls f(begin, end) on `threads` (at most) contiguous parts of [0, n), one on the calling thread.
// Parts smaller than `grain` are not split off. Exceptions are rethrown on the calling thread.
void parallel_for(std::int64_t n, unsigned threads, std::int64_t grain,
                  const std::function<void(std::int64_t, std::int64_t)>& f);

// ---- broadcasting ------------------------------------------------------------------------------

// Row-major strides of a shape.
Ints strides_of(const Shape& shape);

// Iteration over an output shape with N operands broadcast to it: dimensions where the output
// extent is 1 are dropped and adjacent dimensions that are contiguous in every operand are merged.
template <std::size_t N>
struct BroadcastPlan {
    Ints extents;                                      // merged output dimensions (at least one)
    std::vector<std::array<std::int64_t, N>> strides;  // per dimension, per operand (0: broadcast)
};

// Instantiated for N = 1, 2, 3 (call as broadcast_plan<2>(out, {&a, &b})).
template <std::size_t N>
BroadcastPlan<N> broadcast_plan(const Shape& out, const std::array<const Shape*, N>& in);

// Calls f(offsets, out_offset, count, inner_strides) for each run of `count` consecutive output
// items along the last merged dimension; operand j's item t of the run is at
// offsets[j] + t * inner_strides[j].
template <std::size_t N, class F>
void for_each_run(const BroadcastPlan<N>& plan, F&& f) {
    const std::size_t rank = plan.extents.size();
    const std::int64_t inner = plan.extents[rank - 1];
    const std::array<std::int64_t, N> inner_strides = plan.strides[rank - 1];
    std::int64_t outer = 1;
    for (std::size_t k = 0; k + 1 < rank; ++k) outer *= plan.extents[k];
    Ints index(rank, 0);
    std::array<std::int64_t, N> offsets{};
    for (std::int64_t o = 0; o < outer; ++o) {
        f(offsets, o * inner, inner, inner_strides);
        // advance the multi-index over the outer dimensions
        for (std::size_t k = rank - 1; k-- > 0;) {
            for (std::size_t j = 0; j < N; ++j) offsets[j] += plan.strides[k][j];
            if (++index[k] < plan.extents[k]) break;
            for (std::size_t j = 0; j < N; ++j) offsets[j] -= plan.strides[k][j] * plan.extents[k];
            index[k] = 0;
        }
    }
}

// out[i] = f(a[i'], b[i'']) with a and b broadcast to the shape of `out`.
template <class R, class A, class B, class F>
void broadcast_binary(TensorValue& out, const TensorValue& a, const TensorValue& b, F&& f) {
    R* o = out.data<R>();
    const A* x = a.data<A>();
    const B* y = b.data<B>();
    const auto plan = broadcast_plan<2>(out.shape(), {&a.shape(), &b.shape()});
    for_each_run(plan, [&](const std::array<std::int64_t, 2>& off, std::int64_t oo, std::int64_t n,
                           const std::array<std::int64_t, 2>& st) {
        const A* xa = x + off[0];
        const B* yb = y + off[1];
        R* r = o + oo;
        if (st[0] == 1 && st[1] == 1) {
            for (std::int64_t i = 0; i < n; ++i) r[i] = f(xa[i], yb[i]);
        } else if (st[0] == 1 && st[1] == 0) {
            const B v = *yb;
            for (std::int64_t i = 0; i < n; ++i) r[i] = f(xa[i], v);
        } else if (st[0] == 0 && st[1] == 1) {
            const A v = *xa;
            for (std::int64_t i = 0; i < n; ++i) r[i] = f(v, yb[i]);
        } else {
            for (std::int64_t i = 0; i < n; ++i) r[i] = f(xa[i * st[0]], yb[i * st[1]]);
        }
    });
}

// out[i] = f(a[i']) with a broadcast to the shape of `out` (also a plain copy of a broadcast).
template <class R, class A, class F>
void broadcast_unary(TensorValue& out, const TensorValue& a, F&& f) {
    R* o = out.data<R>();
    const A* x = a.data<A>();
    const auto plan = broadcast_plan<1>(out.shape(), {&a.shape()});
    for_each_run(plan, [&](const std::array<std::int64_t, 1>& off, std::int64_t oo, std::int64_t n,
                           const std::array<std::int64_t, 1>& st) {
        const A* xa = x + off[0];
        R* r = o + oo;
        if (st[0] == 1) {
            for (std::int64_t i = 0; i < n; ++i) r[i] = f(xa[i]);
        } else {
            for (std::int64_t i = 0; i < n; ++i) r[i] = f(xa[i * st[0]]);
        }
    });
}

// ---- border modes and sliding windows (spec 4.3) -----------------------------------------------

enum class Border { ignore, constant, replicate, reflect, reflect_even };
// False for an unknown name.
bool parse_border(const std::string& name, Border& out);

// The input index that coordinate c of the extended input reads under border mode b (input extent
// z > 0): c itself inside [0, z); outside, the replicated or reflected index (reflection repeats
// for coordinates more than one extent away), or one of:
inline constexpr std::int64_t zero_term = -1;  // 'constant': the value 0
inline constexpr std::int64_t no_term = -2;    // 'ignore': not part of the calculation
std::int64_t border_index(std::int64_t c, std::int64_t z, Border b);

// Floor division and the matching non-negative remainder (b > 0).
inline std::int64_t floor_div(std::int64_t a, std::int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }

// The terms of a sliding window along one dimension: for output index i and window index j, the
// input index (after the border mode), zero_term or no_term.
struct AxisWindow {
    std::int64_t out = 0;   // output extent
    std::int64_t size = 0;  // window size f
    std::vector<std::int64_t> index;  // out * size entries, row i then window position j
    std::int64_t at(std::int64_t i, std::int64_t j) const { return index[static_cast<std::size_t>(i * size + j)]; }
    // f = 1, stride 1, no padding and equal extents: the output index is the input index.
    bool identity = false;
};

// The window of one dimension with input extent `in` and output extent `out`, filter size f,
// stride s, dilation d and padding p before the data. Basic (down-scaling) operations: term (i, j)
// reads input[i * s + j * d - p]. Reverse (up-scaling) operations: term (i, j) reads
// input[(i + p - j * d) / s], only when s divides i + p - j * d (otherwise no_term).
AxisWindow axis_window(std::int64_t in, std::int64_t out, std::int64_t f, std::int64_t s, std::int64_t d,
                       std::int64_t p, Border b, bool reverse);

// The window attributes of one operation for `dims` window dimensions, with neutral items filled
// in (SPEC_NOTES 5): size 1, stride 1, dilation 1, and padding: explicit (0, 0) items, or the
// automatic padding of spec 4.3 when the attribute is empty.
struct WindowSpec {
    Ints size, stride, dilation;
    Pairs padding;
};
// `up` and `down` are the up-scaled and down-scaled extents of the window dimensions (input and
// output of a basic operation, output and input of a reverse one); `size` has one item per
// dimension. Automatic padding: t = (x - 1) * s + (f - 1) * d + 1 - X, p = floor(t / 2),
// q = ceil(t / 2) (the formula as written; t may be negative).
WindowSpec window_spec(const KernelContext& ctx, Ints size, const Ints& up, const Ints& down);

// The windows of every dimension of an operation from input extents `in` to output extents `out`
// (basic, or `reverse`).
std::vector<AxisWindow> windows(const WindowSpec& w, const Ints& in, const Ints& out, Border b, bool reverse);

// A window over every dimension of an input: leading dimensions whose window is an identity are
// iterated as whole planes; the window dimensions follow.
struct WindowPlan {
    std::int64_t plane_in = 1;   // input items per plane
    std::int64_t plane_out = 1;  // output positions per plane
    std::size_t first = 0;       // first window dimension
    std::vector<AxisWindow> axes;  // the window dimensions
    Ints in_strides;             // their strides in the input (within a plane)
    Ints out_extents;            // their output extents
    std::int64_t window = 1;     // window volume (terms per output position)
};
WindowPlan window_plan(std::vector<AxisWindow> axes, const Shape& in);

// Calls f(o, terms) for each output position o in [first, last) (row-major over the output):
// terms[j] for each window position j (row-major over the window) is the flat input index, or
// zero_term / no_term.
template <class F>
void for_each_window(const WindowPlan& plan, std::int64_t first, std::int64_t last, F&& f) {
    const std::size_t R = plan.axes.size();
    std::vector<std::int64_t> terms(static_cast<std::size_t>(plan.window)), next(terms.size());
    Ints index(R, 0);  // output multi-index within the plane
    std::int64_t rest = first % plan.plane_out;
    for (std::size_t k = R; k-- > 0;) {
        index[k] = rest % plan.out_extents[k];
        rest /= plan.out_extents[k];
    }
    for (std::int64_t o = first; o < last; ++o) {
        const std::int64_t base = (o / plan.plane_out) * plan.plane_in;
        // expand the terms one window dimension at a time
        std::size_t count = 1;
        terms[0] = base;
        for (std::size_t k = 0; k < R; ++k) {
            const AxisWindow& a = plan.axes[k];
            const std::int64_t* row = a.index.data() + index[k] * a.size;
            const std::int64_t stride = plan.in_strides[k];
            std::size_t n = 0;
            for (std::size_t t = 0; t < count; ++t) {
                const std::int64_t p = terms[t];
                for (std::int64_t j = 0; j < a.size; ++j) {
                    const std::int64_t c = row[j];
                    next[n++] = p == no_term || c == no_term ? no_term
                                : p == zero_term || c == zero_term ? zero_term
                                                                   : p + c * stride;
                }
            }
            terms.swap(next);
            count = n;
        }
        f(o, static_cast<const std::int64_t*>(terms.data()));
        for (std::size_t k = R; k-- > 0;) {
            if (++index[k] < plan.out_extents[k]) break;
            index[k] = 0;
        }
    }
}

// ---- linear interpolation (multilinear_upsample, roi_resample) ----------------------------------

// Linear interpolation along one axis: output item i is (1 - u[i]) * in[first[i]] + u[i] *
// in[second[i]], where an index may be zero_term (the value 0).
struct LinearTaps {
    Ints first, second;
    std::vector<double> u;
};
// The taps for sampling coordinates v (in input index units) of an axis of extent z: j = floor(v),
// u = v - j, with j and j + 1 mapped by the border mode.
LinearTaps linear_taps(const std::vector<double>& v, std::int64_t z, Border border);
// Interpolates along `axis` of `in` (shape `shape`) into `out`, whose extent along the axis is the
// number of taps and which equals `shape` elsewhere.
void resample_axis(const Real* in, const Shape& shape, std::size_t axis, const LinearTaps& taps, Real* out);

}  // namespace nnef::NNEF_EXEC_NS
