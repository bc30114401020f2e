// The convolutions of the tensor operators (spec 2.3): CONV2D, CONV3D, DEPTHWISE_CONV2D,
// TRANSPOSE_CONV2D.
#include "lowering/tosa/ops/check.hpp"
#include "lowering/tosa/ops/kernel.hpp"
#include "lowering/tosa/ops/registry.hpp"

namespace nnef::tosa {

// ---- validation ----------------------------------------------------------------------------

namespace checks {

// The Supported Data Types and Compile Time Constant tables of the family.
void add_convolution_tables(Tables& t) {
    constexpr std::uint32_t both = atom_pro_int | atom_pro_fp;
    t.types.insert(t.types.end(), {
        {OpKind::CONV2D, conv_columns, conv_rows},
        {OpKind::CONV3D, conv_columns, conv_rows},
        {OpKind::DEPTHWISE_CONV2D, conv_columns, conv_rows},
        {OpKind::TRANSPOSE_CONV2D, conv_columns, conv_rows},
    });
    t.ctc.insert(t.ctc.end(), {
        {OpKind::CONV2D, "input_zp weight_zp", both},
        {OpKind::CONV3D, "input_zp weight_zp", both},
        {OpKind::DEPTHWISE_CONV2D, "input_zp weight_zp", both},
        {OpKind::TRANSPOSE_CONV2D, "input_zp weight_zp", both},
    });
}

// CONV2D, CONV3D, DEPTHWISE_CONV2D.
void check_conv(OpCheck& c, std::size_t spatial, bool depthwise) {
    const std::size_t rank = spatial + 2;
    if (c.input_rank(0, rank) || c.input_rank(1, rank) || c.input_rank(2, 1) || c.input_shape(3, {1}, "[1]") ||
        c.input_shape(4, {1}, "[1]"))
        return;
    if (c.attr_len(AttrName::pad, 2 * spatial) || c.attr_len(AttrName::stride, spatial) ||
        c.attr_len(AttrName::dilation, spatial))
        return;
    const auto& p = c.ints(AttrName::pad);
    const auto& s = c.ints(AttrName::stride);
    const auto& d = c.ints(AttrName::dilation);
    const Shape& x = c.ish(0);
    const Shape& w = c.ish(1);
    // Kernel extents and channels: CONV [OC,K...,IC], DEPTHWISE [KH,KW,C,M].
    Shape kernel(spatial);
    for (std::size_t i = 0; i < spatial; ++i) kernel[i] = depthwise ? w[i] : w[1 + i];
    const I64 ic = x[rank - 1];
    if (depthwise) {
        if (c.argument(w[2] == ic, "weight [KH,KW,C,M] and input [N,IH,IW,C] share C (argument table)",
                       "weight is " + to_string(c.in(1)) + ", input " + to_string(c.in(0))))
            return;
    } else if (c.argument(w[rank - 1] == ic, "weight [OC,...,IC] and input [N,...,IC] share IC (argument table)",
                          "weight is " + to_string(c.in(1)) + ", input " + to_string(c.in(0)))) {
        return;
    }
    const I64 oc = depthwise ? w[2] * w[3] : w[0];
    static const char* const dims3[] = {"d", "y", "x"};
    static const char* const dims2[] = {"y", "x"};
    const char* const* dn = spatial == 3 ? dims3 : dims2;
    static const char* const pads3[] = {"pad_d0", "pad_d1", "pad_top", "pad_bottom", "pad_left", "pad_right"};
    static const char* const pads2[] = {"pad_top", "pad_bottom", "pad_left", "pad_right"};
    const char* const* pn = spatial == 3 ? pads3 : pads2;
    static const char* const kn3[] = {"KD", "KH", "KW"};
    static const char* const kn2[] = {"KH", "KW"};
    const char* const* kn = spatial == 3 ? kn3 : kn2;
    if (c.validating()) {
        for (std::size_t i = 0; i < spatial; ++i)
            if (c.level(d[i] * kernel[i], c.lv().max_kernel,
                        std::string("dilation_") + dn[i] + " * " + kn[i] + " <= MAX_KERNEL"))
                return;
        for (std::size_t i = 0; i < 2 * spatial; ++i)
            if (c.level(p[i], c.lv().max_kernel, std::string(pn[i]) + " <= MAX_KERNEL")) return;
        for (std::size_t i = 0; i < spatial; ++i)
            if (c.level(s[i], c.lv().max_stride, std::string("stride_") + dn[i] + " <= MAX_STRIDE")) return;
    }
    if (c.zero_point(3, c.idt(0), "in_t") || c.zero_point(4, c.idt(1), "weight_t")) return;
    for (std::size_t i = 0; i < 2 * spatial; ++i)
        if (c.error_if(p[i] < 0, spatial == 3 ? "pad_d0 < 0 || pad_d1 < 0 || pad_top < 0 || pad_bottom < 0 || pad_left < 0 || pad_right < 0"
                                              : "pad_top < 0 || pad_bottom < 0 || pad_left < 0 || pad_right < 0",
                       "pad " + ints_text(p)))
            return;
    for (std::size_t i = 0; i < spatial; ++i)
        if (c.error_if(s[i] < 1, spatial == 3 ? "stride_d < 1 || stride_y < 1 || stride_x < 1" : "stride_y < 1 || stride_x < 1",
                       "stride " + ints_text(s)))
            return;
    for (std::size_t i = 0; i < spatial; ++i)
        if (c.error_if(d[i] < 1,
                       spatial == 3 ? "dilation_d < 1 || dilation_y < 1 || dilation_x < 1" : "dilation_y < 1 || dilation_x < 1",
                       "dilation " + ints_text(d)))
            return;
    const DType out_t = c.idt(2);
    if (c.expect_rank(0, out_t, rank, "rank(output) != " + std::to_string(rank)) ||
        c.expect_dim(0, 0, x[0], "output N != input N"))
        return;
    static const char* const in3[] = {"ID", "IH", "IW"};
    static const char* const in2[] = {"IH", "IW"};
    static const char* const on3[] = {"OD", "OH", "OW"};
    static const char* const on2[] = {"OH", "OW"};
    const char* const* inn = spatial == 3 ? in3 : in2;
    const char* const* onn = spatial == 3 ? on3 : on2;
    for (std::size_t i = 0; i < spatial; ++i) {
        const std::string rule = std::string(onn[i]) + " != idiv_check(" + inn[i] + " - 1 + " + pn[2 * i] + " + " +
                                 pn[2 * i + 1] + " - (" + kn[i] + " - 1) * dilation_" + dn[i] + ", stride_" + dn[i] +
                                 ") + 1";
        if (c.sliding_extent(0, 1 + i, x[1 + i] - 1 + p[2 * i] + p[2 * i + 1] - (kernel[i] - 1) * d[i], s[i], rule, onn[i]))
            return;
    }
    if (c.expect_dim(0, rank - 1, oc, depthwise ? "output channels != C * M" : "output channels != OC")) return;
    const I64 bc = c.ish(2)[0];
    c.error_if(bc != oc && bc != 1, depthwise ? "BC != C*M && BC != 1" : "BC != OC && BC != 1",
               "bias is " + to_string(c.in(2)) + ", " + std::to_string(oc) + " output channels");
}

void check_transpose_conv(OpCheck& c) {
    if (c.input_rank(0, 4) || c.input_rank(1, 4) || c.input_rank(2, 1) || c.input_shape(3, {1}, "[1]") ||
        c.input_shape(4, {1}, "[1]"))
        return;
    if (c.attr_len(AttrName::out_pad, 4) || c.attr_len(AttrName::stride, 2)) return;
    const auto& p = c.ints(AttrName::out_pad);
    const auto& s = c.ints(AttrName::stride);
    const Shape& x = c.ish(0);
    const Shape& w = c.ish(1);
    if (c.argument(w[3] == x[3], "weight [OC,KH,KW,IC] and input [N,IH,IW,IC] share IC (argument table)",
                   "weight is " + to_string(c.in(1)) + ", input " + to_string(c.in(0))))
        return;
    const I64 kh = w[1], kw = w[2];
    if (c.validating()) {
        const Level& l = c.lv();
        if (c.level(kh, l.max_kernel, "KH <= MAX_KERNEL") || c.level(kw, l.max_kernel, "KW <= MAX_KERNEL") ||
            c.level(p[0], l.max_kernel, "out_pad_top <= MAX_KERNEL") ||
            c.level(p[1], l.max_kernel, "out_pad_bottom <= MAX_KERNEL") ||
            c.level(p[2], l.max_kernel, "out_pad_left <= MAX_KERNEL") ||
            c.level(p[3], l.max_kernel, "out_pad_right <= MAX_KERNEL") ||
            c.level(s[0], l.max_stride, "stride_y <= MAX_STRIDE") || c.level(s[1], l.max_stride, "stride_x <= MAX_STRIDE"))
            return;
    }
    if (c.zero_point(3, c.idt(0), "in_t") || c.zero_point(4, c.idt(1), "weight_t")) return;
    if (c.error_if(p[0] <= -kh || p[1] <= -kh, "out_pad_top <= -KH || out_pad_bottom <= -KH",
                   "out_pad " + ints_text(p) + ", KH " + std::to_string(kh)) ||
        c.error_if(p[2] <= -kw || p[3] <= -kw, "out_pad_left <= -KW || out_pad_right <= -KW",
                   "out_pad " + ints_text(p) + ", KW " + std::to_string(kw)) ||
        c.error_if(s[0] < 1 || s[1] < 1, "stride_y < 1 || stride_x < 1", "stride " + ints_text(s)))
        return;
    const I64 oh = (x[1] - 1) * s[0] + p[0] + p[1] + kh;
    const I64 ow = (x[2] - 1) * s[1] + p[2] + p[3] + kw;
    if (c.error_if(oh < 1 || ow < 1, "OH != (IH - 1) * stride_y + out_pad_top + out_pad_bottom + KH",
                   "the output would be " + std::to_string(oh) + "x" + std::to_string(ow)))
        return;
    if (c.expect_rank(0, c.idt(2), 4, "rank(output) != 4") || c.expect_dim(0, 0, x[0], "output N != input N") ||
        c.expect_dim(0, 1, oh, "OH != (IH - 1) * stride_y + out_pad_top + out_pad_bottom + KH") ||
        c.expect_dim(0, 2, ow, "OW != (IW - 1) * stride_x + out_pad_left + out_pad_right + KW") ||
        c.expect_dim(0, 3, w[0], "output channels != OC"))
        return;
    const I64 bc = c.ish(2)[0];
    c.error_if(bc != w[0] && bc != 1, "BC != OC && BC != 1",
               "bias is " + to_string(c.in(2)) + ", " + std::to_string(w[0]) + " output channels");
}

void check_conv2d(OpCheck& c) { check_conv(c, 2, false); }
void check_conv3d(OpCheck& c) { check_conv(c, 3, false); }
void check_depthwise_conv2d(OpCheck& c) { check_conv(c, 2, true); }

}  // namespace checks

// ---- interpreter kernels ---------------------------------------------------------------------

namespace kernels {

// The window of a 2-D convolution (the one iterator of CONV2D, DEPTHWISE_CONV2D and
// TRANSPOSE_CONV2D): which input position each kernel tap of an output position reads.
// CONV2D / DEPTHWISE_CONV2D: iy = oy * stride_y - pad_top + ky * dilation_y. TRANSPOSE_CONV2D,
// read as a gather: the input row iy that scatters to oy through tap ky, iy * stride_y +
// out_pad_top + ky = oy (dilation 1). Likewise along x.
struct Window2d {
    I64 IH, IW, KH, KW, sy, sx, dy, dx, pt, pl;
    bool transposed = false;

    // The input coordinate that tap k of output coordinate o reads along one axis, or -1.
    I64 input(I64 o, I64 k, I64 in, I64 s, I64 d, I64 p) const {
        if (!transposed) {
            const I64 i = o * s - p + k * d;
            return i >= 0 && i < in ? i : -1;
        }
        const I64 t = o - p - k;
        return t >= 0 && t < in * s && t % s == 0 ? t / s : -1;
    }
    // f(ky, kx, iy, ix) for every tap of output position (oy, ox) inside the input, in (ky, kx) order.
    template <class F>
    void taps(I64 oy, I64 ox, F&& f) const {
        for (I64 ky = 0; ky < KH; ++ky) {
            const I64 iy = input(oy, ky, IH, sy, dy, pt);
            if (iy < 0) continue;
            for (I64 kx = 0; kx < KW; ++kx) {
                const I64 ix = input(ox, kx, IW, sx, dx, pl);
                if (ix >= 0) f(ky, kx, iy, ix);
            }
        }
    }
};

// A zero point that is not a compile-time constant is known only when the kernel runs.
void zero_points_allowed(const ConstData& x, const ConstData& w, I64 izp, I64 wzp) {
    error_if(x.type.dtype != DType::i8 && izp != 0, "!is_same<in_t,i8_t>() && input_zp != 0");
    error_if(w.type.dtype != DType::i8 && wzp != 0, "!is_same<weight_t,i8_t>() && weight_zp != 0");
}

// The operands of a 2-D convolution. Their ranks, shapes, extents, zero points and the bias type
// are the family's check (check_conv, check_transpose_conv), which the interpreter runs first.
struct Conv2dOperands {
    const ConstData& x;
    const ConstData& w;
    const ConstData& bias;
    const TensorType& out;
    I64 izp, wzp, N, IC, OH, OW, BC;
    explicit Conv2dOperands(Ctx& c)
        : x(c.in(0)), w(c.in(1)), bias(c.in(2)), out(c.out_type(0)), izp(zero_point(c.in(3), "input_zp")),
          wzp(zero_point(c.in(4), "weight_zp")), N(x.type.shape[0]), IC(x.type.shape[3]), OH(out.shape[1]), OW(out.shape[2]),
          BC(bias.type.shape[0]) {
        zero_points_allowed(x, w, izp, wzp);
    }
};

// The integer CONV2D and TRANSPOSE_CONV2D (weights [OC,KH,KW,IC]): per output position and
// channel the sum over the window's taps, within the accumulator, plus the bias.
void conv2d_int(Ctx& c, const Conv2dOperands& a, const Window2d& win, I64 OC) {
    const DType acc_t = int_acc(a.x.type.dtype), out_t = a.out.dtype;
    const std::vector<std::int32_t> X = minus_zp(a.x, a.izp), W = minus_zp(a.w, a.wzp);
    auto y = c.alloc(0);
    parallel_for(a.N * a.OH, c.it.options.threads, 1, [&](I64 r0, I64 r1) {
        for (I64 r = r0; r < r1; ++r) {
            const I64 n = r / a.OH, oy = r % a.OH;
            for (I64 ox = 0; ox < a.OW; ++ox)
                for (I64 oc = 0; oc < OC; ++oc) {
                    I64 acc = 0;
                    win.taps(oy, ox, [&](I64 ky, I64 kx, I64 iy, I64 ix) {
                        const std::int32_t* xi = X.data() + ((n * win.IH + iy) * win.IW + ix) * a.IC;
                        const std::int32_t* wi = W.data() + ((oc * win.KH + ky) * win.KW + kx) * a.IC;
                        for (I64 ic = 0; ic < a.IC; ++ic) acc += static_cast<I64>(xi[ic]) * wi[ic];
                    });
                    check_acc(acc_t, acc);
                    store_int(*y, ((n * a.OH + oy) * a.OW + ox) * OC + oc, add_s(out_t, acc, load_int(a.bias, a.BC == 1 ? 0 : oc)));
                }
        }
    });
    c.set(0, y);
}

void op_conv2d(Ctx& c) {
    const Conv2dOperands a(c);
    const std::vector<I64>& pad = c.ints(AttrName::pad, 4);
    const std::vector<I64>& stride = c.ints(AttrName::stride, 2);
    const std::vector<I64>& dil = c.ints(AttrName::dilation, 2);
    const I64 OC = a.w.type.shape[0];
    const Window2d win{a.x.type.shape[1], a.x.type.shape[2], a.w.type.shape[1], a.w.type.shape[2], stride[0], stride[1], dil[0], dil[1], pad[0], pad[2]};
    if (!is_float(a.x.type.dtype)) {
        if (!is_integer(a.x.type.dtype)) unsupported(std::string("CONV2D has no ") + to_string(a.x.type.dtype) + " form");
        return conv2d_int(c, a, win, OC);
    }
    const unsigned threads = c.it.options.threads;
    const Floats<float> in = floats<float>(a.x), wt = floats<float>(a.w), b = floats<float>(a.bias);
    OutFloats<float> y(c.alloc(0));
    const I64 IC = a.IC, K = win.KH * win.KW * IC, M = a.OH * a.OW;
    const MatrixView B{wt.p, 1, K};  // (k, oc) = weight[oc][k]
    const bool direct = win.KH == 1 && win.KW == 1 && win.sy == 1 && win.sx == 1 && win.pt == 0 && win.pl == 0 && a.OH == win.IH && a.OW == win.IW;
    if (direct) {
        for (I64 n = 0; n < a.N; ++n)
            exec::gemm(M, OC, K, MatrixView{in.p + n * M * IC, IC, 1}, B, y.p + n * M * OC, OC, false, threads);
    } else {
        // im2col: one row of K items per output position (zero where a tap falls outside the
        // input), in chunks of about 16 MiB
        const I64 chunk = std::max<I64>(16, std::min<I64>(M, (4 << 20) / std::max<I64>(K, 1)));
        std::vector<float> col(static_cast<std::size_t>(chunk * K));
        for (I64 n = 0; n < a.N; ++n)
            for (I64 m0 = 0; m0 < M; m0 += chunk) {
                const I64 rows = std::min(chunk, M - m0);
                parallel_for(rows, threads, 16, [&](I64 r0, I64 r1) {
                    for (I64 r = r0; r < r1; ++r) {
                        const I64 m = m0 + r;
                        float* dst = col.data() + r * K;
                        std::fill(dst, dst + K, 0.0f);
                        win.taps(m / a.OW, m % a.OW, [&](I64 ky, I64 kx, I64 iy, I64 ix) {
                            std::memcpy(dst + (ky * win.KW + kx) * IC, in.p + ((n * win.IH + iy) * win.IW + ix) * IC, sizeof(float) * IC);
                        });
                    }
                });
                exec::gemm(rows, OC, K, MatrixView{col.data(), K, 1}, B, y.p + (n * M + m0) * OC, OC, false, threads);
            }
    }
    add_bias_float(y.p, a.N * M, OC, b, a.BC);
    c.set(0, y.finish());
}

void op_depthwise_conv2d(Ctx& c) {
    const Conv2dOperands a(c);
    const std::vector<I64>& pad = c.ints(AttrName::pad, 4);
    const std::vector<I64>& stride = c.ints(AttrName::stride, 2);
    const std::vector<I64>& dil = c.ints(AttrName::dilation, 2);
    const I64 C = a.IC, M = a.w.type.shape[3], CM = C * M, BC = a.BC;
    const Window2d win{a.x.type.shape[1], a.x.type.shape[2], a.w.type.shape[0], a.w.type.shape[1], stride[0], stride[1], dil[0], dil[1], pad[0], pad[2]};
    const unsigned threads = c.it.options.threads;
    // the input row of C items and the weights row of C*M items of a tap
    auto rows_of = [&](const auto* x, const auto* w, I64 n, I64 ky, I64 kx, I64 iy, I64 ix) {
        return std::make_pair(x + ((n * win.IH + iy) * win.IW + ix) * C, w + (ky * win.KW + kx) * CM);
    };
    if (is_float(a.x.type.dtype)) {
        const Floats<float> in = floats<float>(a.x), wt = floats<float>(a.w), b = floats<float>(a.bias);
        OutFloats<float> y(c.alloc(0));
        parallel_for(a.N * a.OH, threads, 1, [&](I64 r0, I64 r1) {
            for (I64 r = r0; r < r1; ++r) {
                const I64 n = r / a.OH, oy = r % a.OH;
                for (I64 ox = 0; ox < a.OW; ++ox) {
                    float* o = y.p + ((n * a.OH + oy) * a.OW + ox) * CM;
                    std::fill(o, o + CM, 0.0f);
                    win.taps(oy, ox, [&](I64 ky, I64 kx, I64 iy, I64 ix) {
                        const auto [src, wk] = rows_of(in.p, wt.p, n, ky, kx, iy, ix);
                        if (M == 1) {
                            for (I64 ch = 0; ch < C; ++ch) o[ch] += src[ch] * wk[ch];
                        } else {
                            for (I64 ch = 0; ch < C; ++ch)
                                for (I64 m = 0; m < M; ++m) o[ch * M + m] += src[ch] * wk[ch * M + m];
                        }
                    });
                    for (I64 j = 0; j < CM; ++j) o[j] += b[BC == 1 ? 0 : j];
                }
            }
        });
        return c.set(0, y.finish());
    }
    if (!is_integer(a.x.type.dtype)) unsupported(std::string("DEPTHWISE_CONV2D has no ") + to_string(a.x.type.dtype) + " form");
    const DType acc_t = int_acc(a.x.type.dtype), out_t = a.out.dtype;
    const std::vector<std::int32_t> X = minus_zp(a.x, a.izp), W = minus_zp(a.w, a.wzp);
    auto y = c.alloc(0);
    parallel_for(a.N * a.OH, threads, 1, [&](I64 r0, I64 r1) {
        std::vector<I64> acc(static_cast<std::size_t>(CM));
        for (I64 r = r0; r < r1; ++r) {
            const I64 n = r / a.OH, oy = r % a.OH;
            for (I64 ox = 0; ox < a.OW; ++ox) {
                std::fill(acc.begin(), acc.end(), 0);
                win.taps(oy, ox, [&](I64 ky, I64 kx, I64 iy, I64 ix) {
                    const auto [src, wk] = rows_of(X.data(), W.data(), n, ky, kx, iy, ix);
                    for (I64 ch = 0; ch < C; ++ch)
                        for (I64 m = 0; m < M; ++m) acc[ch * M + m] += static_cast<I64>(src[ch]) * wk[ch * M + m];
                });
                const I64 base = ((n * a.OH + oy) * a.OW + ox) * CM;
                for (I64 j = 0; j < CM; ++j) {
                    check_acc(acc_t, acc[j]);
                    store_int(*y, base + j, add_s(out_t, acc[j], load_int(a.bias, BC == 1 ? 0 : j)));
                }
            }
        }
    });
    c.set(0, y);
}

void op_transpose_conv2d(Ctx& c) {
    const Conv2dOperands a(c);
    const std::vector<I64>& op = c.ints(AttrName::out_pad, 4);
    const std::vector<I64>& stride = c.ints(AttrName::stride, 2);
    const I64 IH = a.x.type.shape[1], IW = a.x.type.shape[2], IC = a.IC, OH = a.OH, OW = a.OW, N = a.N;
    const I64 OC = a.w.type.shape[0], KH = a.w.type.shape[1], KW = a.w.type.shape[2];
    const I64 sy = stride[0], sx = stride[1], pt = op[0], pl = op[2];
    if (!is_float(a.x.type.dtype)) {
        if (!is_integer(a.x.type.dtype)) unsupported(std::string("TRANSPOSE_CONV2D has no ") + to_string(a.x.type.dtype) + " form");
        return conv2d_int(c, a, Window2d{IH, IW, KH, KW, sy, sx, 1, 1, pt, pl, true}, OC);
    }
    const unsigned threads = c.it.options.threads;
    const Floats<float> in = floats<float>(a.x), wt = floats<float>(a.w), b = floats<float>(a.bias);
    OutFloats<float> y(c.alloc(0));
    std::fill(y.p, y.p + a.out.volume(), 0.0f);
    // every input position contributes in[n,iy,ix,:] x weight[oc,ky,kx,:] to output position
    // (iy * stride_y + out_pad_top + ky, ix * stride_x + out_pad_left + kx): one GEMM per chunk
    // of input positions, then a scatter-add
    const I64 J = KH * KW * OC, P = IH * IW;
    std::vector<float> wr(static_cast<std::size_t>(J * IC));  // [ky][kx][oc][ic]
    for (I64 oc = 0; oc < OC; ++oc)
        for (I64 k = 0; k < KH * KW; ++k)
            std::memcpy(wr.data() + (k * OC + oc) * IC, wt.p + (oc * KH * KW + k) * IC, sizeof(float) * IC);
    const I64 chunk = std::max<I64>(1, std::min<I64>(P, (4 << 20) / std::max<I64>(J, 1)));
    std::vector<float> part(static_cast<std::size_t>(chunk * J));
    for (I64 n = 0; n < N; ++n)
        for (I64 p0 = 0; p0 < P; p0 += chunk) {
            const I64 rows = std::min(chunk, P - p0);
            exec::gemm(rows, J, IC, MatrixView{in.p + (n * P + p0) * IC, IC, 1}, MatrixView{wr.data(), 1, IC}, part.data(), J, false, threads);
            for (I64 r = 0; r < rows; ++r) {
                const I64 iy = (p0 + r) / IW, ix = (p0 + r) % IW;
                for (I64 ky = 0; ky < KH; ++ky) {
                    const I64 oy = iy * sy + pt + ky;
                    if (oy < 0 || oy >= OH) continue;
                    for (I64 kx = 0; kx < KW; ++kx) {
                        const I64 ox = ix * sx + pl + kx;
                        if (ox < 0 || ox >= OW) continue;
                        float* o = y.p + ((n * OH + oy) * OW + ox) * OC;
                        const float* s = part.data() + r * J + (ky * KW + kx) * OC;
                        for (I64 oc = 0; oc < OC; ++oc) o[oc] += s[oc];
                    }
                }
            }
        }
    add_bias_float(y.p, N * OH * OW, OC, b, a.BC);
    c.set(0, y.finish());
}

void op_conv3d(Ctx& c) {
    const ConstData& x = c.in(0);
    const ConstData& w = c.in(1);
    const ConstData& bias = c.in(2);
    const TensorType& out = c.out_type(0);
    const I64 izp = zero_point(c.in(3), "input_zp"), wzp = zero_point(c.in(4), "weight_zp");
    zero_points_allowed(x, w, izp, wzp);
    const std::vector<I64>& pad = c.ints(AttrName::pad, 6);
    const std::vector<I64>& st = c.ints(AttrName::stride, 3);
    const std::vector<I64>& dl = c.ints(AttrName::dilation, 3);
    const I64 N = x.type.shape[0], IC = x.type.shape[4], OC = w.type.shape[0], BC = bias.type.shape[0];
    const std::array<I64, 3> I{x.type.shape[1], x.type.shape[2], x.type.shape[3]};
    const std::array<I64, 3> K{w.type.shape[1], w.type.shape[2], w.type.shape[3]};
    const std::array<I64, 3> O{out.shape[1], out.shape[2], out.shape[3]};
    const bool fl = is_float(x.type.dtype);
    if (!fl && !is_integer(x.type.dtype)) unsupported(std::string("CONV3D has no ") + to_string(x.type.dtype) + " form");
    const Floats<double> fin = fl ? floats<double>(x) : Floats<double>{}, fw = fl ? floats<double>(w) : Floats<double>{};
    const std::vector<std::int32_t> X = fl ? std::vector<std::int32_t>{} : minus_zp(x, izp);
    const std::vector<std::int32_t> W = fl ? std::vector<std::int32_t>{} : minus_zp(w, wzp);
    const DType acc_t = int_acc(x.type.dtype);
    auto y = c.alloc(0);
    I64 o = 0;
    for (I64 n = 0; n < N; ++n)
        for (I64 od = 0; od < O[0]; ++od)
            for (I64 oy = 0; oy < O[1]; ++oy)
                for (I64 ox = 0; ox < O[2]; ++ox)
                    for (I64 oc = 0; oc < OC; ++oc, ++o) {
                        double facc = 0.0;
                        I64 iacc = 0;
                        for (I64 kd = 0; kd < K[0]; ++kd) {
                            const I64 id = od * st[0] - pad[0] + kd * dl[0];
                            if (id < 0 || id >= I[0]) continue;
                            for (I64 ky = 0; ky < K[1]; ++ky) {
                                const I64 iy = oy * st[1] - pad[2] + ky * dl[1];
                                if (iy < 0 || iy >= I[1]) continue;
                                for (I64 kx = 0; kx < K[2]; ++kx) {
                                    const I64 ix = ox * st[2] - pad[4] + kx * dl[2];
                                    if (ix < 0 || ix >= I[2]) continue;
                                    const I64 xi = (((n * I[0] + id) * I[1] + iy) * I[2] + ix) * IC;
                                    const I64 wi = (((oc * K[0] + kd) * K[1] + ky) * K[2] + kx) * IC;
                                    for (I64 ic = 0; ic < IC; ++ic) {
                                        if (fl) facc += fin.p[xi + ic] * fw.p[wi + ic];
                                        else iacc += static_cast<I64>(X[xi + ic]) * W[wi + ic];
                                    }
                                }
                            }
                        }
                        if (fl) {
                            store_float(*y, o, static_cast<double>(static_cast<float>(facc)) + load_float(bias, BC == 1 ? 0 : oc));
                        } else {
                            check_acc(acc_t, iacc);
                            store_int(*y, o, add_s(out.dtype, iacc, load_int(bias, BC == 1 ? 0 : oc)));
                        }
                    }
    c.set(0, y);
}

}  // namespace kernels

}  // namespace nnef::tosa
