// Region-of-interest operations (spec 4.6): avg_roi_pool, max_roi_pool, roi_resample. The RoI
// align compounds run through their expansion (roi_resample, then pooling).
//
// Readings (the text gives the 2-d case): a row of `rois` holds the M start coordinates, then the
// M end coordinates ((y0, x0, y1, x1) in 2-d). RoI pooling rounds them (floor(v + 0.5)); with
// r = max(end - start, 1), cell i of a dimension with output size p starts at start + i *
// floor(r / p) and spans ceil(r / p) items, clipped to the input; it is averaged (over the items
// inside the input) or maximized; an empty cell gives 0. roi_resample samples output index i of a
// dimension with output size h over the region [start, end) of extent r as multilinear_upsample
// samples its input (so the whole input as region reproduces multilinear_upsample):
//   'asymmetric': v = start + i * r / h
//   'symmetric':  v = start + (i + 0.5) * r / h - 0.5
//   'aligned':    v = start + i * (r - 1) / (h - 1)   (start + (r - 1) / 2 when h = 1)
// with items outside the input replicated from the edge.
#include <algorithm>
#include <cmath>
#include <limits>

#include "exec/common.hpp"

namespace nnef::NNEF_EXEC_NS {

namespace exec_roi_cpp {

struct Rois {
    std::int64_t count = 0, spatial = 0;
    std::vector<double> coords;  // count x 2 * spatial
    Ints batch;                  // per RoI
};

bool read_rois(KernelContext& ctx, const TensorValue& x, Rois& r) {
    const TensorValue& rois = ctx.input("rois", PrimType::scalar);
    const TensorValue& index = ctx.input("batch_index", PrimType::integer);
    r.spatial = static_cast<std::int64_t>(x.rank()) - 2;
    r.count = rois.rank() > 0 ? rois.shape()[0] : 0;
    if (rois.volume() != r.count * 2 * r.spatial || index.volume() != r.count)
        return ctx.error("'rois' and 'batch_index' do not fit the input");
    r.coords = rois.to_doubles();
    const std::int64_t* b = index.data<std::int64_t>();
    for (std::int64_t i = 0; i < r.count; ++i) {
        if (b[i] < 0 || b[i] >= x.shape()[0])
            return ctx.error("'batch_index' item " + std::to_string(i) + " is " + std::to_string(b[i]) +
                             "; the input has batch extent " + std::to_string(x.shape()[0]));
        r.batch.push_back(b[i]);
    }
    return true;
}

// Averages or maximizes cells of rounded RoIs.
template <bool Max>
bool roi_pool(KernelContext& ctx) {
    const TensorValue& x = ctx.input("input", PrimType::scalar);
    Rois rois;
    if (!read_rois(ctx, x, rois)) return false;
    TensorValue out = ctx.make_output("output");
    const Shape& in = x.shape();
    const Shape& os = out.shape();
    const std::size_t S = static_cast<std::size_t>(rois.spatial);
    const std::int64_t channels = in[1];
    const Ints in_strides = strides_of(in);
    const std::int64_t cells = volume_of(Shape(os.begin() + 2, os.end()));
    const Real* src = x.data<Real>();
    Real* dst = out.data<Real>();
    for (std::int64_t n = 0; n < rois.count; ++n) {
        // per spatial dimension: cell start and size
        Ints start(S), cell(S), step(S);
        for (std::size_t k = 0; k < S; ++k) {
            const double* c = rois.coords.data() + n * 2 * rois.spatial;
            const auto s = static_cast<std::int64_t>(std::floor(c[k] + 0.5));
            const auto e = static_cast<std::int64_t>(std::floor(c[S + k] + 0.5));
            const std::int64_t r = std::max<std::int64_t>(e - s, 1), p = os[k + 2];
            start[k] = s;
            cell[k] = (r + p - 1) / p;
            step[k] = r / p;
        }
        for (std::int64_t ch = 0; ch < channels; ++ch) {
            const Real* plane = src + rois.batch[static_cast<std::size_t>(n)] * in_strides[0] + ch * in_strides[1];
            Real* y = dst + (n * channels + ch) * cells;
            Ints index(S, 0);
            for (std::int64_t o = 0; o < cells; ++o) {
                // the items of the cell inside the input, as an odometer over its extents
                Ints lo(S), hi(S);
                bool empty = false;
                for (std::size_t k = 0; k < S; ++k) {
                    lo[k] = std::max<std::int64_t>(start[k] + index[k] * step[k], 0);
                    hi[k] = std::min<std::int64_t>(start[k] + index[k] * step[k] + cell[k], in[k + 2]);
                    empty = empty || lo[k] >= hi[k];
                }
                double acc = Max ? -std::numeric_limits<double>::infinity() : 0.0;
                std::int64_t count = 0;
                Ints at = lo;
                while (!empty) {
                    std::int64_t offset = 0;
                    for (std::size_t k = 0; k < S; ++k) offset += at[k] * in_strides[k + 2];
                    const double v = plane[offset];
                    acc = Max ? std::max(acc, v) : acc + v;
                    ++count;
                    std::size_t k = S;
                    while (k-- > 0) {
                        if (++at[k] < hi[k]) break;
                        at[k] = lo[k];
                    }
                    if (k == static_cast<std::size_t>(-1)) break;
                }
                y[o] = count == 0 ? 0.0f : static_cast<Real>(Max ? acc : acc / double(count));
                for (std::size_t k = S; k-- > 0;) {
                    if (++index[k] < os[k + 2]) break;
                    index[k] = 0;
                }
            }
        }
    }
    ctx.set_output("output", std::move(out));
    return true;
}

bool roi_resample(KernelContext& ctx) {
    const TensorValue& x = ctx.input("input", PrimType::scalar);
    Rois rois;
    if (!read_rois(ctx, x, rois)) return false;
    const std::string method = ctx.string_attr("method", "symmetric");
    if (method != "symmetric" && method != "asymmetric" && method != "aligned")
        return ctx.error("unknown method '" + method + "'");
    TensorValue out = ctx.make_output("output");
    const Shape& in = x.shape();
    const Shape& os = out.shape();
    const std::size_t S = static_cast<std::size_t>(rois.spatial);
    const std::int64_t item_out = volume_of(Shape(os.begin() + 1, os.end()));
    for (std::int64_t n = 0; n < rois.count; ++n) {
        const double* c = rois.coords.data() + n * 2 * rois.spatial;
        // one batch item of the input, resampled one spatial dimension at a time
        Shape shape(in.begin() + 1, in.end());
        TensorValue current = TensorValue(PrimType::scalar, shape);
        std::copy(x.data<Real>() + rois.batch[static_cast<std::size_t>(n)] * volume_of(shape),
                  x.data<Real>() + (rois.batch[static_cast<std::size_t>(n)] + 1) * volume_of(shape), current.data<Real>());
        for (std::size_t k = 0; k < S; ++k) {
            const double s = c[k], r = c[S + k] - c[k];
            const std::int64_t h = os[k + 2];
            std::vector<double> v(static_cast<std::size_t>(h));
            for (std::int64_t i = 0; i < h; ++i) {
                double p;
                if (method == "asymmetric") p = s + double(i) * r / double(h);
                else if (method == "symmetric") p = s + (double(i) + 0.5) * r / double(h) - 0.5;
                else p = h > 1 ? s + double(i) * (r - 1.0) / double(h - 1) : s + (r - 1.0) / 2.0;
                v[static_cast<std::size_t>(i)] = p;
            }
            Shape next_shape = current.shape();
            next_shape[k + 1] = h;
            TensorValue next(PrimType::scalar, next_shape);
            resample_axis(current.data<Real>(), current.shape(), k + 1, linear_taps(v, in[k + 2], Border::replicate),
                          next.data<Real>());
            current = std::move(next);
        }
        std::copy(current.data<Real>(), current.data<Real>() + item_out, out.data<Real>() + n * item_out);
    }
    ctx.set_output("output", std::move(out));
    return true;
}

}  // namespace exec_roi_cpp

void add_roi_kernels(KernelRegistry& r) {
    using namespace exec_roi_cpp;
    r.add("avg_roi_pool", roi_pool<false>);
    r.add("max_roi_pool", roi_pool<true>);
    r.add("roi_resample", roi_resample);
}

}  // namespace nnef::NNEF_EXEC_NS
