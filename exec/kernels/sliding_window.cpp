// Sliding-window operations (spec 4.3.1-4.3.3): conv, deconv, box, debox, argmax_pool, sample,
// desample, and the pooling compounds max_pool_with_index, max_pool, avg_pool, rms_pool (4.9.3).
//
// Windows are index maps per dimension (exec/common.hpp): each term of an output position reads
// one input item after the border mode, the value 0 ('constant'), or nothing ('ignore', and the
// positions of reverse operations that the stride does not divide). conv and deconv gather the
// terms of every output position into a matrix (im2col) and multiply it by the filter (gemm);
// depth-wise ones (one input channel per group) sum the terms directly.
#include <algorithm>
#include <cmath>
#include <limits>

#include "exec/common.hpp"
#include "exec/gemm.hpp"

namespace nnef::NNEF_EXEC_NS {

namespace exec_sliding_window_cpp {

bool read_border(KernelContext& ctx, Border& b) {
    const std::string name = ctx.string_attr("border", "constant");
    if (!parse_border(name, b)) return ctx.error("unknown border mode '" + name + "'");
    return true;
}

// ---- conv and deconv ---------------------------------------------------------------------------

struct ConvPlan {
    std::int64_t batch = 0, in_channels = 0, out_channels = 0, groups = 1;
    std::int64_t cg = 0;  // input channels per group
    std::int64_t og = 0;  // output channels per group
    std::int64_t in_plane = 0, out_plane = 0;  // spatial volumes
    std::int64_t window = 0;                   // filter spatial volume
    std::vector<std::int64_t> terms;           // out_plane x window: spatial input index or code
    std::vector<Real> weights;                // groups x og x (cg * window), row-major
    // depth-wise 2-d convolutions (no terms table): the windows of the two spatial dimensions
    bool depthwise_2d = false;
    std::vector<AxisWindow> axes;
    WindowSpec spec;
    Shape in_spatial;
};

// The term table of a window over the spatial dimensions: terms[n * W + j].
std::vector<std::int64_t> term_table(std::vector<AxisWindow> axes, const Shape& spatial, unsigned threads) {
    const WindowPlan plan = window_plan(std::move(axes), spatial);
    const std::int64_t n = volume_of([&] {
        Shape s;
        for (const AxisWindow& a : plan.axes) s.push_back(a.out);
        return s;
    }());
    const std::int64_t planes = plan.plane_in ? volume_of(spatial) / plan.plane_in : 1;
    const std::int64_t total = n * planes;
    std::vector<std::int64_t> terms(static_cast<std::size_t>(total * plan.window));
    parallel_for(total, threads, 4096, [&](std::int64_t first, std::int64_t last) {
        for_each_window(plan, first, last, [&](std::int64_t o, const std::int64_t* t) {
            std::copy(t, t + plan.window, terms.begin() + o * plan.window);
        });
    });
    return terms;
}

bool conv_plan(KernelContext& ctx, bool reverse, ConvPlan& p) {
    const TensorValue& x = ctx.input("input", PrimType::scalar);
    const TensorValue& w = ctx.input("filter", PrimType::scalar);
    const Shape out = ctx.output_shape("output");
    Border border;
    if (!read_border(ctx, border)) return false;
    if (border == Border::ignore) return ctx.error("border 'ignore' is not allowed");
    const std::size_t rank = x.rank();
    if (rank < 2 || w.rank() != rank || out.size() != rank) return ctx.error("'input' and 'filter' must have equal rank >= 2");
    p.batch = x.shape()[0];
    p.in_channels = x.shape()[1];
    p.out_channels = out[1];
    const std::int64_t g = ctx.int_attr("groups", 1);
    p.groups = g == 0 ? p.in_channels : g;
    if (p.groups <= 0 || p.in_channels % p.groups || p.out_channels % p.groups)
        return ctx.error("'groups' does not divide the channels");
    p.cg = p.in_channels / p.groups;
    p.og = p.out_channels / p.groups;
    Shape in_spatial(x.shape().begin() + 2, x.shape().end()), out_spatial(out.begin() + 2, out.end());
    Ints size(w.shape().begin() + 2, w.shape().end());
    p.in_plane = volume_of(in_spatial);
    p.out_plane = volume_of(out_spatial);
    p.window = volume_of(size);
    // padding, stride and dilation are in the up-scaled space: the input of conv, the output of deconv
    const WindowSpec spec = reverse ? window_spec(ctx, size, out_spatial, in_spatial)
                                    : window_spec(ctx, size, in_spatial, out_spatial);
    std::vector<AxisWindow> axes = windows(spec, in_spatial, out_spatial, border, reverse);
    p.depthwise_2d = !reverse && p.cg == 1 && axes.size() == 2 && !ctx.exact_sums();
    if (p.depthwise_2d) {
        p.axes = std::move(axes);
        p.spec = spec;
        p.in_spatial = in_spatial;
    } else {
        p.terms = term_table(std::move(axes), in_spatial, ctx.threads());
    }
    // weights[g][o][c * W + j]
    const std::int64_t W = p.window, K = p.cg * W;
    const Real* f = w.data<Real>();
    if (!reverse) {
        // filter (O, C / G, f...): already [g][o][c][j]
        if (w.shape()[0] != p.out_channels || w.shape()[1] != p.cg) return ctx.error("'filter' shape does not fit");
        p.weights.assign(f, f + p.out_channels * K);
    } else {
        // filter (C, O / G, f...): item [g * cg + c][o][j]
        if (w.shape()[0] != p.in_channels || w.shape()[1] != p.og) return ctx.error("'filter' shape does not fit");
        p.weights.resize(static_cast<std::size_t>(p.out_channels * K));
        for (std::int64_t gi = 0; gi < p.groups; ++gi)
            for (std::int64_t o = 0; o < p.og; ++o)
                for (std::int64_t c = 0; c < p.cg; ++c)
                    for (std::int64_t j = 0; j < W; ++j)
                        p.weights[static_cast<std::size_t>((gi * p.og + o) * K + c * W + j)] =
                            f[((gi * p.cg + c) * p.og + o) * W + j];
    }
    return true;
}

// Depth-wise 2-d convolution: each filter tap is accumulated over whole output rows. Along a row,
// tap kx reads input column ox * s + kx * d - p, inside the input for ox in a range [lo, hi): there
// the loop is a plain strided run; outside it the border mode's index (or nothing) is used.
void run_depthwise_2d(const ConvPlan& p, const Real* in, Real* out, unsigned threads) {
    const AxisWindow& ah = p.axes[0];
    const AxisWindow& aw = p.axes[1];
    const std::int64_t H = p.in_spatial[0], W = p.in_spatial[1], OH = ah.out, OW = aw.out, KH = ah.size, KW = aw.size;
    const std::int64_t s = p.spec.stride[1];
    std::vector<std::int64_t> lo(static_cast<std::size_t>(KW)), hi(lo.size()), off(lo.size());
    for (std::int64_t kx = 0; kx < KW; ++kx) {
        const std::int64_t c = kx * p.spec.dilation[1] - p.spec.padding[1].first;  // column of ox = 0
        off[kx] = c;
        lo[kx] = std::min(OW, std::max<std::int64_t>(0, floor_div(-c + s - 1, s)));
        hi[kx] = std::max(lo[kx], std::min(OW, floor_div(W - 1 - c, s) + 1));
    }
    parallel_for(p.batch * p.out_channels, threads, 1, [&](std::int64_t first, std::int64_t last) {
        for (std::int64_t bo = first; bo < last; ++bo) {
            const std::int64_t b = bo / p.out_channels, o = bo % p.out_channels, gi = o / p.og;
            const Real* x = in + (b * p.in_channels + gi) * H * W;
            const Real* w = p.weights.data() + o * KH * KW;
            Real* y = out + bo * OH * OW;
            std::fill(y, y + OH * OW, 0.0f);
            for (std::int64_t oy = 0; oy < OH; ++oy) {
                Real* row = y + oy * OW;
                for (std::int64_t ky = 0; ky < KH; ++ky) {
                    const std::int64_t iy = ah.at(oy, ky);
                    if (iy < 0) continue;
                    const Real* src = x + iy * W;
                    for (std::int64_t kx = 0; kx < KW; ++kx) {
                        const Real wv = w[ky * KW + kx];
                        const std::int64_t a = lo[kx], e = hi[kx], c = off[kx];
                        for (std::int64_t ox = 0; ox < a; ++ox) {
                            const std::int64_t ix = aw.at(ox, kx);
                            if (ix >= 0) row[ox] += wv * src[ix];
                        }
                        if (s == 1) {
                            const Real* run = src + c;
                            for (std::int64_t ox = a; ox < e; ++ox) row[ox] += wv * run[ox];
                        } else {
                            for (std::int64_t ox = a; ox < e; ++ox) row[ox] += wv * src[ox * s + c];
                        }
                        for (std::int64_t ox = e; ox < OW; ++ox) {
                            const std::int64_t ix = aw.at(ox, kx);
                            if (ix >= 0) row[ox] += wv * src[ix];
                        }
                    }
                }
            }
        }
    });
}

// out[b][o][n] = sum over c, j of input[b][g * cg + c][terms[n][j]] * weights[g][o][c][j].
void run_conv(const ConvPlan& p, const Real* in, Real* out, unsigned threads) {
    if (p.depthwise_2d) return run_depthwise_2d(p, in, out, threads);
    const std::int64_t W = p.window, N = p.out_plane, K = p.cg * W;
    const std::int64_t* T = p.terms.data();
    if (p.cg == 1) {
        // depth-wise: direct sums, one output channel at a time
        parallel_for(p.batch * p.out_channels, threads, 1, [&](std::int64_t first, std::int64_t last) {
            for (std::int64_t bo = first; bo < last; ++bo) {
                const std::int64_t b = bo / p.out_channels, o = bo % p.out_channels, gi = o / p.og;
                const Real* x = in + (b * p.in_channels + gi) * p.in_plane;
                const Real* w = p.weights.data() + o * K;
                Real* y = out + bo * N;
                for (std::int64_t n = 0; n < N; ++n) {
                    const std::int64_t* t = T + n * W;
                    Real acc = 0.0f;
                    for (std::int64_t j = 0; j < W; ++j)
                        if (t[j] >= 0) acc += x[t[j]] * w[j];
                    y[n] = acc;
                }
            }
        });
        return;
    }
    // A 1x1 window reading every input item in order needs no gathering.
    bool direct = W == 1 && N == p.in_plane;
    for (std::int64_t n = 0; direct && n < N; ++n) direct = T[n] == n;
    // Columns in chunks so that the gathered matrix stays within about 16 MiB.
    const std::int64_t chunk = direct ? N : std::max<std::int64_t>(64, std::min<std::int64_t>(N, (4 << 20) / std::max<std::int64_t>(K, 1)));
    std::vector<Real> col(direct ? 0 : static_cast<std::size_t>(K * chunk));
    for (std::int64_t b = 0; b < p.batch; ++b)
        for (std::int64_t gi = 0; gi < p.groups; ++gi) {
            const Real* x = in + (b * p.in_channels + gi * p.cg) * p.in_plane;
            Real* y = out + (b * p.out_channels + gi * p.og) * N;
            const Real* w = p.weights.data() + gi * p.og * K;
            for (std::int64_t n0 = 0; n0 < N; n0 += chunk) {
                const std::int64_t nc = std::min(chunk, N - n0);
                MatrixView B{x + n0, N, 1};
                if (!direct) {
                    parallel_for(K, threads, 16, [&](std::int64_t k0, std::int64_t k1) {
                        for (std::int64_t k = k0; k < k1; ++k) {
                            const std::int64_t c = k / W, j = k % W;
                            const Real* xc = x + c * p.in_plane;
                            Real* row = col.data() + k * nc;
                            const std::int64_t* t = T + n0 * W + j;
                            for (std::int64_t n = 0; n < nc; ++n) {
                                const std::int64_t idx = t[n * W];
                                row[n] = idx >= 0 ? xc[idx] : 0.0f;
                            }
                        }
                    });
                    B = MatrixView{col.data(), nc, 1};
                }
                gemm(p.og, nc, K, MatrixView{w, K, 1}, B, y + n0, N, false, threads);
            }
        }
}

// The bias of a convolution (one value, or one per output channel); null after an error.
const TensorValue* conv_bias(KernelContext& ctx, const char* name, std::int64_t channels) {
    const TensorValue& bias = ctx.input(name, PrimType::scalar);
    if (bias.volume() == 1 || bias.volume() == channels) return &bias;
    ctx.error("'" + std::string(name) + "' " + to_string(bias.shape()) + " does not fit " + std::to_string(channels) +
              " output channels");
    return nullptr;
}

// run_conv with every output's sum, bias included, accumulated in double and rounded once
// (ExecOptions::exact_sums): the products of two floats are exact in double, so the result is the
// correctly rounded sum up to double's own rounding. Gathers the terms of every output (no
// depth-wise shortcut).
void run_conv_exact(const ConvPlan& p, const Real* in, const TensorValue& bias, Real* out, unsigned threads) {
    const std::int64_t W = p.window, N = p.out_plane, K = p.cg * W;
    const std::int64_t* T = p.terms.data();
    const Real* bv = bias.data<Real>();
    const bool per_channel = bias.volume() != 1;
    const std::int64_t chunk = std::max<std::int64_t>(64, std::min<std::int64_t>(N, (4 << 20) / std::max<std::int64_t>(K, 1)));
    std::vector<Real> col(static_cast<std::size_t>(K * chunk));
    for (std::int64_t b = 0; b < p.batch; ++b)
        for (std::int64_t gi = 0; gi < p.groups; ++gi) {
            const Real* x = in + (b * p.in_channels + gi * p.cg) * p.in_plane;
            for (std::int64_t n0 = 0; n0 < N; n0 += chunk) {
                const std::int64_t nc = std::min(chunk, N - n0);
                for (std::int64_t k = 0; k < K; ++k) {
                    const Real* xc = x + (k / W) * p.in_plane;
                    const std::int64_t* t = T + n0 * W + k % W;
                    Real* row = col.data() + k * nc;
                    for (std::int64_t n = 0; n < nc; ++n) row[n] = t[n * W] >= 0 ? xc[t[n * W]] : Real(0);
                }
                parallel_for(p.og, threads, 1, [&](std::int64_t first, std::int64_t last) {
                    std::vector<double> acc(static_cast<std::size_t>(nc));
                    for (std::int64_t o = first; o < last; ++o) {
                        const std::int64_t oc = gi * p.og + o;
                        std::fill(acc.begin(), acc.end(), double(bv[per_channel ? oc : 0]));
                        const Real* w = p.weights.data() + oc * K;
                        for (std::int64_t k = 0; k < K; ++k) {
                            const double wv = double(w[k]);
                            const Real* row = col.data() + k * nc;
                            for (std::int64_t n = 0; n < nc; ++n) acc[std::size_t(n)] += wv * double(row[n]);
                        }
                        Real* y = out + (b * p.out_channels + oc) * N + n0;
                        for (std::int64_t n = 0; n < nc; ++n) y[n] = static_cast<Real>(acc[std::size_t(n)]);
                    }
                });
            }
        }
}

// Adds the bias (one value, or one per output channel) to out (batch, channels, plane).
bool add_bias(KernelContext& ctx, const char* name, TensorValue& out) {
    const std::int64_t channels = out.shape()[1], plane = volume_of(Shape(out.shape().begin() + 2, out.shape().end()));
    const TensorValue* bias = conv_bias(ctx, name, channels);
    if (!bias) return false;
    const std::int64_t nb = bias->volume();
    const Real* b = bias->data<Real>();
    Real* y = out.data<Real>();
    for (std::int64_t bc = 0; bc < out.shape()[0] * channels; ++bc) {
        const Real v = b[nb == 1 ? 0 : bc % channels];
        if (v == 0.0f) continue;
        Real* row = y + bc * plane;
        for (std::int64_t n = 0; n < plane; ++n) row[n] += v;
    }
    return true;
}

bool conv_or_deconv(KernelContext& ctx, bool reverse) {
    ConvPlan p;
    if (!conv_plan(ctx, reverse, p)) return false;
    TensorValue out = ctx.make_output("output");
    if (ctx.exact_sums()) {
        const TensorValue* bias = conv_bias(ctx, "bias", p.out_channels);
        if (!bias) return false;
        run_conv_exact(p, ctx.input("input", PrimType::scalar).data<Real>(), *bias, out.data<Real>(), ctx.threads());
        ctx.set_output("output", std::move(out));
        return true;
    }
    run_conv(p, ctx.input("input", PrimType::scalar).data<Real>(), out.data<Real>(), ctx.threads());
    if (!add_bias(ctx, "bias", out)) return false;
    ctx.set_output("output", std::move(out));
    return true;
}

bool conv(KernelContext& ctx) { return conv_or_deconv(ctx, false); }
bool deconv(KernelContext& ctx) { return conv_or_deconv(ctx, true); }

// ---- windows over every dimension (box, argmax_pool, sample, pooling) ---------------------------

// The window of an operation over all dimensions of `input` (`reverse`: debox, desample), from the
// shape of `result`.
bool plan_windows(KernelContext& ctx, const TensorValue& x, const char* result, bool reverse, WindowPlan& plan,
                  Border& border) {
    if (!read_border(ctx, border)) return false;
    const Shape out = ctx.output_shape(result);
    const Ints size = ctx.ints_attr("size");
    const WindowSpec spec = reverse ? window_spec(ctx, size, out, x.shape()) : window_spec(ctx, size, x.shape(), out);
    plan = window_plan(windows(spec, x.shape(), out, border, reverse), x.shape());
    return true;
}

// Calls f(o, terms) for every output position, in parallel.
template <class F>
void each_window(KernelContext& ctx, const WindowPlan& plan, std::int64_t outputs, F f) {
    parallel_for(outputs, ctx.threads(), 1024, [&](std::int64_t first, std::int64_t last) {
        for_each_window(plan, first, last, f);
    });
}

// Window sums (box, debox): normalized by the kernel volume, or with 'ignore' by the number of
// terms inside the input; `square` sums squares and `root` takes the square root (rms_pool).
bool window_sum(KernelContext& ctx, bool reverse, bool normalize, bool square = false, bool root = false) {
    const TensorValue& x = ctx.input("input", PrimType::scalar);
    WindowPlan plan;
    Border border;
    if (!plan_windows(ctx, x, "output", reverse, plan, border)) return false;
    TensorValue out = ctx.make_output("output");
    const Real* in = x.data<Real>();
    Real* y = out.data<Real>();
    const std::int64_t W = plan.window;
    each_window(ctx, plan, out.volume(), [&](std::int64_t o, const std::int64_t* t) {
        double sum = 0.0;
        std::int64_t count = 0;
        for (std::int64_t j = 0; j < W; ++j)
            if (t[j] >= 0) {
                const double v = in[t[j]];
                sum += square ? v * v : v;
                ++count;
            }
        if (normalize) {
            const std::int64_t d = border == Border::ignore ? count : W;
            sum = d > 0 ? sum / double(d) : 0.0;
        }
        y[o] = static_cast<Real>(root ? std::sqrt(sum) : sum);
    });
    ctx.set_output("output", std::move(out));
    return true;
}

bool box(KernelContext& ctx) { return window_sum(ctx, false, ctx.logical_attr("normalize")); }
// debox: output[i] = sum over j of the extended input at (i + p - j * d) / s, where divisible.
bool debox(KernelContext& ctx) { return window_sum(ctx, true, ctx.logical_attr("normalize")); }
bool avg_pool(KernelContext& ctx) { return window_sum(ctx, false, true); }
bool rms_pool(KernelContext& ctx) { return window_sum(ctx, false, true, true, true); }

// The first window position holding the maximum of the extended input ('constant' terms are 0,
// 'ignore' terms are skipped; 0 when no term is valid), and the value sampled there.
inline std::int64_t argmax_terms(const Real* in, const std::int64_t* t, std::int64_t W, Real& value) {
    std::int64_t best = -1;
    Real m = 0.0f;
    for (std::int64_t j = 0; j < W; ++j) {
        if (t[j] == no_term) continue;
        const Real v = t[j] >= 0 ? in[t[j]] : 0.0f;
        if (best < 0 || v > m) {
            best = j;
            m = v;
        }
    }
    value = best < 0 ? 0.0f : m;
    return best < 0 ? 0 : best;
}

// argmax_pool (index), max_pool (output), max_pool_with_index (both).
bool max_windows(KernelContext& ctx, bool with_output, bool with_index) {
    const TensorValue& x = ctx.input("input", PrimType::scalar);
    WindowPlan plan;
    Border border;
    if (!plan_windows(ctx, x, with_output ? "output" : "index", false, plan, border)) return false;
    TensorValue out, index;
    if (with_output) out = ctx.make_output("output");
    if (with_index) index = ctx.make_output("index");
    Real* y = with_output ? out.data<Real>() : nullptr;
    std::int64_t* k = with_index ? index.data<std::int64_t>() : nullptr;
    const Real* in = x.data<Real>();
    const std::int64_t W = plan.window;
    each_window(ctx, plan, with_output ? out.volume() : index.volume(), [&](std::int64_t o, const std::int64_t* t) {
        Real v;
        const std::int64_t j = argmax_terms(in, t, W, v);
        if (y) y[o] = v;
        if (k) k[o] = j;
    });
    if (with_output) ctx.set_output("output", std::move(out));
    if (with_index) ctx.set_output("index", std::move(index));
    return true;
}

bool argmax_pool(KernelContext& ctx) { return max_windows(ctx, false, true); }
bool max_pool(KernelContext& ctx) { return max_windows(ctx, true, false); }
bool max_pool_with_index(KernelContext& ctx) { return max_windows(ctx, true, true); }

// Reports an index outside [0, window volume).
bool bad_index(KernelContext& ctx, std::int64_t value, std::int64_t at, std::int64_t W) {
    return ctx.error("'index' item " + std::to_string(at) + " is " + std::to_string(value) +
                     "; window positions are in [0, " + std::to_string(W) + ")");
}

// sample: output[i] = extended input at window position index[i].
bool sample(KernelContext& ctx) {
    const TensorValue& x = ctx.input("input", PrimType::scalar);
    const TensorValue& index = ctx.input("index", PrimType::integer);
    WindowPlan plan;
    Border border;
    if (!plan_windows(ctx, x, "output", false, plan, border)) return false;
    TensorValue out = ctx.make_output("output");
    if (index.volume() != out.volume()) return ctx.error("'index' does not have the output shape");
    const Real* in = x.data<Real>();
    const std::int64_t* k = index.data<std::int64_t>();
    Real* y = out.data<Real>();
    const std::int64_t W = plan.window;
    for (std::int64_t o = 0; o < out.volume(); ++o)
        if (k[o] < 0 || k[o] >= W) return bad_index(ctx, k[o], o, W);
    each_window(ctx, plan, out.volume(), [&](std::int64_t o, const std::int64_t* t) {
        const std::int64_t term = t[k[o]];
        y[o] = term >= 0 ? in[term] : 0.0f;
    });
    ctx.set_output("output", std::move(out));
    return true;
}

// ---- desample ----------------------------------------------------------------------------------

// desample: output[i] = sum over j of input[(i + p - j * d) / s] where divisible, inside the
// input, and index there equals j.
bool desample(KernelContext& ctx) {
    const TensorValue& x = ctx.input("input", PrimType::scalar);
    const TensorValue& index = ctx.input("index", PrimType::integer);
    if (index.shape() != x.shape()) return ctx.error("'index' does not have the shape of 'input'");
    WindowPlan plan;
    Border border;
    if (!plan_windows(ctx, x, "output", true, plan, border)) return false;
    TensorValue out = ctx.make_output("output");
    const Real* in = x.data<Real>();
    const std::int64_t* k = index.data<std::int64_t>();
    Real* y = out.data<Real>();
    const std::int64_t W = plan.window;
    for (std::int64_t i = 0; i < index.volume(); ++i)
        if (k[i] < 0 || k[i] >= W) return bad_index(ctx, k[i], i, W);
    each_window(ctx, plan, out.volume(), [&](std::int64_t o, const std::int64_t* t) {
        double sum = 0.0;
        for (std::int64_t j = 0; j < W; ++j)
            if (t[j] >= 0 && k[t[j]] == j) sum += in[t[j]];
        y[o] = static_cast<Real>(sum);
    });
    ctx.set_output("output", std::move(out));
    return true;
}

}  // namespace exec_sliding_window_cpp

void add_sliding_window_kernels(KernelRegistry& r) {
    using namespace exec_sliding_window_cpp;
    r.add("conv", conv);
    r.add("deconv", deconv);
    r.add("box", box);
    r.add("debox", debox);
    r.add("argmax_pool", argmax_pool);
    r.add("sample", sample);
    r.add("desample", desample);
    // compounds (4.9.3)
    r.add("max_pool_with_index", max_pool_with_index);
    r.add("max_pool", max_pool);
    r.add("avg_pool", avg_pool);
    r.add("rms_pool", rms_pool);
}

}  // namespace nnef::NNEF_EXEC_NS
