// Reduce operations (spec 4.4): sum_reduce (with normalize), max_reduce, min_reduce,
// argmax_reduce, argmin_reduce, the later any_reduce and all_reduce (SPEC_NOTES 2), and the
// compounds mean_reduce and softmax (4.9.1). The arg- reductions give the row-major position within the reduced axes
// (for one axis, the index along it) of the first extreme item. Sums are accumulated in double.
#include <algorithm>
#include <cmath>

#include "exec/common.hpp"

namespace nnef::NNEF_EXEC_NS {

namespace exec_reduce_cpp {

// Output position o reduces the input items at bases[o] + offsets[r], r in row-major order over
// the reduced axes.
struct Reduction {
    std::vector<std::int64_t> bases, offsets;
};

bool plan(KernelContext& ctx, const TensorValue& x, Reduction& red) {
    const Ints axes = ctx.ints_attr("axes");
    const Shape& in = x.shape();
    std::vector<bool> reduced(in.size(), false);
    for (std::int64_t a : axes) {
        if (a < 0 || static_cast<std::size_t>(a) >= in.size()) return ctx.error("axis " + std::to_string(a) + " out of range");
        reduced[static_cast<std::size_t>(a)] = true;
    }
    const Ints strides = strides_of(in);
    // offsets: odometer over the reduced axes; bases: over the kept axes
    auto walk = [&](bool over_reduced) {
        std::vector<std::int64_t> out{0};
        for (std::size_t k = 0; k < in.size(); ++k) {
            if (reduced[k] != over_reduced || in[k] == 1) continue;
            std::vector<std::int64_t> next;
            next.reserve(out.size() * static_cast<std::size_t>(in[k]));
            for (std::int64_t base : out)
                for (std::int64_t i = 0; i < in[k]; ++i) next.push_back(base + i * strides[k]);
            out.swap(next);
        }
        return out;
    };
    red.offsets = walk(true);
    red.bases = walk(false);
    return true;
}

// Calls f(o, items at o) -> result for every output position, in parallel.
template <class T, class R, class F>
bool reduce(KernelContext& ctx, PrimType in_type, F f) {
    const TensorValue& x = ctx.input("input", in_type);
    Reduction red;
    if (!plan(ctx, x, red)) return false;
    TensorValue out = ctx.make_output("output");
    if (static_cast<std::int64_t>(red.bases.size()) != out.volume()) return ctx.error("output shape does not fit 'axes'");
    const T* in = x.data<T>();
    R* y = out.data<R>();
    const std::int64_t n = static_cast<std::int64_t>(red.offsets.size());
    const std::int64_t* offsets = red.offsets.data();
    parallel_for(out.volume(), ctx.threads(), std::max<std::int64_t>(1, 65536 / std::max<std::int64_t>(n, 1)),
                 [&](std::int64_t first, std::int64_t last) {
                     for (std::int64_t o = first; o < last; ++o) y[o] = f(in + red.bases[o], offsets, n);
                 });
    ctx.set_output("output", std::move(out));
    return true;
}

bool sum(KernelContext& ctx, bool normalize) {
    return reduce<Real, Real>(ctx, PrimType::scalar, [normalize](const Real* x, const std::int64_t* off, std::int64_t n) {
        double s = 0.0;
        for (std::int64_t r = 0; r < n; ++r) s += x[off[r]];
        return static_cast<Real>(normalize ? s / double(n) : s);
    });
}

bool sum_reduce(KernelContext& ctx) { return sum(ctx, ctx.logical_attr("normalize")); }
bool mean_reduce(KernelContext& ctx) { return sum(ctx, true); }

// The first position r whose item is better than every earlier one (NaN items are skipped unless
// all are NaN).
template <bool Max>
std::int64_t extreme(const Real* x, const std::int64_t* off, std::int64_t n) {
    std::int64_t best = 0;
    for (std::int64_t r = 1; r < n; ++r) {
        const Real v = x[off[r]], b = x[off[best]];
        if ((Max ? v > b : v < b) || (b != b && v == v)) best = r;
    }
    return best;
}

template <bool Max>
bool extreme_value(KernelContext& ctx) {
    return reduce<Real, Real>(ctx, PrimType::scalar, [](const Real* x, const std::int64_t* off, std::int64_t n) {
        return x[off[extreme<Max>(x, off, n)]];
    });
}

template <bool Max>
bool extreme_index(KernelContext& ctx) {
    return reduce<Real, std::int64_t>(ctx, PrimType::scalar, [](const Real* x, const std::int64_t* off, std::int64_t n) {
        return extreme<Max>(x, off, n);
    });
}

template <bool Any>
bool logical_reduce(KernelContext& ctx) {
    return reduce<bool, bool>(ctx, PrimType::logical, [](const bool* x, const std::int64_t* off, std::int64_t n) {
        for (std::int64_t r = 0; r < n; ++r)
            if (x[off[r]] == Any) return Any;
        return !Any;
    });
}

// softmax (4.9.1): e = exp(x - max_reduce(x, axes)), y = e / sum_reduce(e, axes).
bool softmax(KernelContext& ctx) {
    const TensorValue& x = ctx.input("x", PrimType::scalar);
    Reduction red;
    if (!plan(ctx, x, red)) return false;
    TensorValue y = ctx.make_output("y");
    const Real* in = x.data<Real>();
    Real* out = y.data<Real>();
    const std::int64_t n = static_cast<std::int64_t>(red.offsets.size());
    const std::int64_t* off = red.offsets.data();
    parallel_for(static_cast<std::int64_t>(red.bases.size()), ctx.threads(), std::max<std::int64_t>(1, 16384 / n),
                 [&](std::int64_t first, std::int64_t last) {
                     for (std::int64_t o = first; o < last; ++o) {
                         const Real* xo = in + red.bases[o];
                         Real* yo = out + red.bases[o];
                         const Real m = xo[off[extreme<true>(xo, off, n)]];
                         double sum = 0.0;
                         for (std::int64_t r = 0; r < n; ++r) sum += std::exp(double(xo[off[r]] - m));
                         for (std::int64_t r = 0; r < n; ++r)
                             yo[off[r]] = static_cast<Real>(std::exp(double(xo[off[r]] - m)) / sum);
                     }
                 });
    ctx.set_output("y", std::move(y));
    return true;
}

}  // namespace exec_reduce_cpp

void add_reduce_kernels(KernelRegistry& r) {
    using namespace exec_reduce_cpp;
    r.add("sum_reduce", sum_reduce);
    r.add("max_reduce", extreme_value<true>);
    r.add("min_reduce", extreme_value<false>);
    r.add("argmax_reduce", extreme_index<true>);
    r.add("argmin_reduce", extreme_index<false>);
    r.add("any_reduce", logical_reduce<true>);
    r.add("all_reduce", logical_reduce<false>);
    r.add("mean_reduce", mean_reduce);
    r.add("softmax", softmax);
}

}  // namespace nnef::NNEF_EXEC_NS
