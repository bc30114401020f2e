// The tensor operators (spec 2.3) but the convolutions (ops/convolution.cpp): ARGMAX, AVG_POOL2D,
// FFT2D, MATMUL, MAX_POOL2D, RFFT2D.
#include "lowering/tosa/ops/check.hpp"
#include "lowering/tosa/ops/kernel.hpp"
#include "lowering/tosa/ops/registry.hpp"

namespace nnef::tosa {

// ---- validation ----------------------------------------------------------------------------

namespace checks {

// The Supported Data Types and Compile Time Constant tables of the family.
void add_tensor_tables(Tables& t) {
    constexpr std::uint32_t both = atom_pro_int | atom_pro_fp;
    t.types.insert(t.types.end(), {
        {OpKind::ARGMAX, "in_t=input out_t=output",
         {{"PRO-FP", "fp16 i32"}, {"PRO-FP", "fp32 i32"}, {"PRO-INT", "i8 i32"}, {"EXT-BF16", "bf16 i32"},
          {"EXT-FP8E4M3", "fp8e4m3 i32"}, {"EXT-FP8E5M2", "fp8e5m2 i32"}, {"EXT-INT16", "i16 i32"}}},
        {OpKind::AVG_POOL2D, "in_out_t=input=input_zp=output_zp=output acc_t=acc_type",
         {{"PRO-FP", "fp16 fp16"}, {"PRO-FP", "fp16 fp32"}, {"PRO-FP", "fp32 fp32"}, {"PRO-INT", "i8 i32"},
          {"EXT-BF16", "bf16 fp32"}, {"EXT-FP8E4M3", "fp8e4m3 fp16"}, {"EXT-FP8E5M2", "fp8e5m2 fp16"},
          {"EXT-INT16", "i16 i32"}}},
        {OpKind::FFT2D, "in_out_t=input_real=input_imag=output_real=output_imag", {{"EXT-FFT", "fp32"}}},
        {OpKind::MATMUL, "in_t=A=B=A_zp=B_zp out_t=output",
         {{"PRO-FP", "fp16 fp16"}, {"PRO-FP", "fp16 fp32"}, {"PRO-FP", "fp32 fp32"}, {"PRO-INT", "i8 i32"},
          {"EXT-BF16", "bf16 fp32"}, {"EXT-FP8E4M3", "fp8e4m3 fp16"}, {"EXT-FP8E5M2", "fp8e5m2 fp16"},
          {"EXT-INT16", "i16 i48"}}},
        {OpKind::MAX_POOL2D, "in_out_t=input=output",
         {{"PRO-FP", "fp16"}, {"PRO-FP", "fp32"}, {"PRO-INT", "i8"}, {"EXT-BF16", "bf16"},
          {"EXT-FP8E4M3", "fp8e4m3"}, {"EXT-FP8E5M2", "fp8e5m2"}, {"EXT-INT16", "i16"}}},
        {OpKind::RFFT2D, "in_out_t=input_real=output_real=output_imag", {{"EXT-FFT", "fp32"}}},
    });
    t.ctc.insert(t.ctc.end(), {
        {OpKind::AVG_POOL2D, "input_zp output_zp", both},
        {OpKind::MATMUL, "A_zp B_zp", both},
    });
}

// Pads, strides, dilations and kernels of the sliding-window operators.
void check_pool(OpCheck& c, bool avg) {
    if (c.input_rank(0, 4)) return;
    if (avg && (c.input_shape(1, {1}, "[1]") || c.input_shape(2, {1}, "[1]"))) return;
    if (c.attr_len(AttrName::kernel, 2) || c.attr_len(AttrName::stride, 2) || c.attr_len(AttrName::pad, 4)) return;
    const auto& k = c.ints(AttrName::kernel);
    const auto& s = c.ints(AttrName::stride);
    const auto& p = c.ints(AttrName::pad);
    const Level* l = c.validating() ? &c.lv() : nullptr;
    if (l) {
        if (c.level(k[0], l->max_kernel, "kernel_y <= MAX_KERNEL") || c.level(k[1], l->max_kernel, "kernel_x <= MAX_KERNEL") ||
            c.level(s[0], l->max_stride, "stride_y <= MAX_STRIDE") || c.level(s[1], l->max_stride, "stride_x <= MAX_STRIDE") ||
            c.level(p[0], l->max_kernel, "pad_top <= MAX_KERNEL") || c.level(p[1], l->max_kernel, "pad_bottom <= MAX_KERNEL") ||
            c.level(p[2], l->max_kernel, "pad_left <= MAX_KERNEL") || c.level(p[3], l->max_kernel, "pad_right <= MAX_KERNEL"))
            return;
    }
    const DType t = c.idt(0);
    if (avg && (c.zero_point(1, t, "in_out_t") || c.zero_point(2, t, "in_out_t"))) return;
    if (c.error_if(k[0] < 1 || k[1] < 1, "kernel_y < 1 || kernel_x < 1", "kernel " + ints_text(k)) ||
        c.error_if(s[0] < 1 || s[1] < 1, "stride_y < 1 || stride_x < 1", "stride " + ints_text(s)) ||
        c.error_if(p[0] < 0 || p[1] < 0 || p[2] < 0 || p[3] < 0,
                   "pad_top < 0 || pad_bottom < 0 || pad_left < 0 || pad_right < 0", "pad " + ints_text(p)) ||
        c.error_if(p[3] >= k[1] || p[2] >= k[1], "pad_right >= kernel_x || pad_left >= kernel_x",
                   "pad " + ints_text(p) + ", kernel " + ints_text(k)) ||
        c.error_if(p[0] >= k[0] || p[1] >= k[0], "pad_top >= kernel_y || pad_bottom >= kernel_y",
                   "pad " + ints_text(p) + ", kernel " + ints_text(k)))
        return;
    const Shape& x = c.ish(0);
    if (c.expect_rank(0, t, 4, "rank(output) != 4") || c.expect_dim(0, 0, x[0], "output N != input N") ||
        c.sliding_extent(0, 1, x[1] + p[0] + p[1] - k[0], s[0],
                         "OH != idiv_check(IH + pad_top + pad_bottom - kernel_y, stride_y) + 1", "OH") ||
        c.sliding_extent(0, 2, x[2] + p[2] + p[3] - k[1], s[1],
                         "OW != idiv_check(IW + pad_left + pad_right - kernel_x, stride_x) + 1", "OW"))
        return;
    c.expect_dim(0, 3, x[3], "output C != input C");
}

void check_fft(OpCheck& c, bool real) {
    if (c.input_rank(0, 3)) return;
    if (!real && c.argument(c.ish(1) == c.ish(0), "shape(input_imag) == shape(input_real) == [N,H,W] (argument table)",
                            "input_imag is " + to_string(c.in(1)) + ", input_real " + to_string(c.in(0))))
        return;
    const Shape& x = c.ish(0);
    if (c.validating() && (c.level(x[1], c.lv().max_kernel, "H <= MAX_KERNEL") ||
                           c.level(x[2], c.lv().max_kernel, "W <= MAX_KERNEL")))
        return;
    if (c.error_if(!is_pow2(x[1]), "!power_of_two(H)", "H is " + std::to_string(x[1])) ||
        c.error_if(!is_pow2(x[2]), "!power_of_two(W)", "W is " + std::to_string(x[2])))
        return;
    const Shape o = real ? Shape{x[0], x[1], x[2] / 2 + 1} : x;
    const std::string rule = real ? "shape(output) != [N,H,W/2 + 1]" : "shape(output) != [N,H,W]";
    if (c.expect_shape(0, c.idt(0), o, rule)) return;
    c.expect_shape(1, c.idt(0), o, rule);
}

void check_matmul(OpCheck& c) {
    if (c.input_rank(0, 3) || c.input_rank(1, 3) || c.input_shape(2, {1}, "[1]") || c.input_shape(3, {1}, "[1]")) return;
    const Shape& a = c.ish(0);
    const Shape& b = c.ish(1);
    if (c.argument(a[0] == b[0] && a[2] == b[1], "A is [N,H,C] and B is [N,C,W] (argument table)",
                   "A is " + to_string(c.in(0)) + ", B " + to_string(c.in(1))))
        return;
    // The spec's line reads ERROR_IF(is_same<in_t,i8_t> && (A_zp != 0 || B_zp != 0)) under the
    // comment "Zero point only for i8_t" and the argument table's "Must be zero for non-int8
    // types": the negation is meant, as for every other operator with zero points.
    const DType t = c.idt(0);
    if (t != DType::i8) {
        auto za = c.scalar(2);
        auto zb = c.scalar(3);
        if (c.error_if((za && *za != 0) || (zb && *zb != 0), "!is_same<in_t,i8_t> && (A_zp != 0 || B_zp != 0)",
                       "zero points for " + std::string(to_string(t))))
            return;
    }
    c.expect_shape(0, DType::none, {a[0], a[1], b[2]}, "shape(output) != [N,H,W]");
}

void check_argmax(OpCheck& c) {
    if (c.input_rank_min(0, 1)) return;
    const I64 axis = c.i32(AttrName::axis);
    const Shape& x = c.ish(0);
    if (c.axis_in_range(axis, x.size(), "axis < 0 || axis >= rank(shape1)")) return;
    Shape o;
    for (std::size_t d = 0; d < x.size(); ++d)
        if (static_cast<I64>(d) != axis) o.push_back(x[d]);
    c.expect_shape(0, DType::i32, o, "flatten(left_shape, right_shape) != shape");
}

void check_avg_pool2d(OpCheck& c) { check_pool(c, true); }
void check_max_pool2d(OpCheck& c) { check_pool(c, false); }
void check_fft2d(OpCheck& c) { check_fft(c, false); }
void check_rfft2d(OpCheck& c) { check_fft(c, true); }

}  // namespace checks

// ---- interpreter kernels ---------------------------------------------------------------------

namespace kernels {

void op_argmax(Ctx& c) {
    const ConstData& x = c.in(0);
    const TensorType& out = c.out_type(0);
    const I64 axis = c.attr<I64>(AttrName::axis);
    const Shape& s1 = x.type.shape;
    error_if(out.dtype != DType::i32, "output is not i32_t");
    const AxisSplit a = split_at(s1, axis);
    const NanMode nm = c.nan_mode();
    const bool fl = is_float(x.type.dtype);
    const Floats<double> v = fl ? floats<double>(x) : Floats<double>{};
    auto y = c.alloc(0);
    for (I64 o = 0; o < a.outer; ++o)
        for (I64 j = 0; j < a.inner; ++j) {
            const I64 base = o * a.len * a.inner + j;
            I64 max_index = 0;
            if (fl) {
                double max_value = nm == NanMode::IGNORE ? std::numeric_limits<double>::quiet_NaN() : -std::numeric_limits<double>::infinity();
                for (I64 i = 0; i < a.len; ++i) {
                    const double result = apply_max_f(v.p[base + i * a.inner], max_value, nm);
                    if (result != max_value && !(std::isnan(result) && std::isnan(max_value))) {
                        max_value = result;
                        max_index = i;
                    }
                }
            } else {
                I64 max_value = min_s(x.type.dtype);
                for (I64 i = 0; i < a.len; ++i) {
                    const I64 value = load_int(x, base + i * a.inner);
                    if (value > max_value) {  // apply_max_s(value, max_value) != max_value
                        max_value = value;
                        max_index = i;
                    }
                }
            }
            store_int(*y, o * a.inner + j, max_index);
        }
    c.set(0, y);
}

void op_matmul(Ctx& c) {
    const ConstData& a = c.in(0);
    const ConstData& b = c.in(1);
    const TensorType& out = c.out_type(0);
    const I64 N = a.type.shape[0], H = a.type.shape[1], C = a.type.shape[2], W = b.type.shape[2];
    error_if(a.type.dtype != b.type.dtype, "A and B types differ");
    const I64 azp = zero_point(c.in(2), "A_zp"), bzp = zero_point(c.in(3), "B_zp");
    error_if(a.type.dtype != DType::i8 && (azp != 0 || bzp != 0), "!is_same<in_t,i8_t> && (A_zp != 0 || B_zp != 0)");
    if (is_float(a.type.dtype)) {
        const Floats<float> fa = floats<float>(a), fb = floats<float>(b);
        OutFloats<float> y(c.alloc(0));
        for (I64 n = 0; n < N; ++n)
            exec::gemm(H, W, C, MatrixView{fa.p + n * H * C, C, 1}, MatrixView{fb.p + n * C * W, W, 1}, y.p + n * H * W, W, false,
                       c.it.options.threads);
        return c.set(0, y.finish());
    }
    if (!is_integer(a.type.dtype)) unsupported(std::string("MATMUL has no ") + to_string(a.type.dtype) + " form");
    const std::vector<std::int32_t> A = minus_zp(a, azp), B = minus_zp(b, bzp);
    auto y = c.alloc(0);
    std::vector<I64> row(static_cast<std::size_t>(W));
    for (I64 n = 0; n < N; ++n)
        for (I64 h = 0; h < H; ++h) {
            std::fill(row.begin(), row.end(), 0);
            for (I64 k = 0; k < C; ++k) {
                const I64 av = A[(n * H + h) * C + k];
                const std::int32_t* bp = B.data() + (n * C + k) * W;
                for (I64 w = 0; w < W; ++w) row[w] += av * bp[w];
            }
            for (I64 w = 0; w < W; ++w) {
                check_acc(out.dtype, row[w]);
                store_int(*y, (n * H + h) * W + w, row[w]);
            }
        }
    c.set(0, y);
}

struct PoolGeom {
    I64 N, IH, IW, C, OH, OW, ky, kx, sy, sx, pt, pb, pl, pr;
};

PoolGeom pool_geometry(Ctx& c) {
    const ConstData& x = c.in(0);
    const TensorType& out = c.out_type(0);
    const std::vector<I64>& k = c.ints(AttrName::kernel, 2);
    const std::vector<I64>& s = c.ints(AttrName::stride, 2);
    const std::vector<I64>& p = c.ints(AttrName::pad, 4);
    PoolGeom g{x.type.shape[0], x.type.shape[1], x.type.shape[2], x.type.shape[3], out.shape[1], out.shape[2],
               k[0], k[1], s[0], s[1], p[0], p[1], p[2], p[3]};
    error_if(out.dtype != x.type.dtype, "input and output types differ");
    return g;
}

// Calls f(output offset, n, window rows [y0, y1), columns [x0, x1)) for every output position
// (the window clipped to the input).
template <class F>
void for_each_window(const PoolGeom& g, unsigned threads, F f) {
    parallel_for(g.N * g.OH, threads, 1, [&](I64 r0, I64 r1) {
        for (I64 r = r0; r < r1; ++r) {
            const I64 n = r / g.OH, oy = r % g.OH;
            const I64 iy = oy * g.sy - g.pt, y0 = std::max<I64>(0, iy), y1 = std::min(g.IH, iy + g.ky);
            for (I64 ox = 0; ox < g.OW; ++ox) {
                const I64 ix = ox * g.sx - g.pl, x0 = std::max<I64>(0, ix), x1 = std::min(g.IW, ix + g.kx);
                f((r * g.OW + ox) * g.C, n, y0, y1, x0, x1);
            }
        }
    });
}

void op_max_pool2d(Ctx& c) {
    const PoolGeom g = pool_geometry(c);
    const ConstData& x = c.in(0);
    const NanMode nm = c.nan_mode();
    if (is_float(x.type.dtype)) {
        const Floats<float> in = floats<float>(x);
        OutFloats<float> y(c.alloc(0));
        const float init = nm == NanMode::IGNORE ? std::numeric_limits<float>::quiet_NaN() : -std::numeric_limits<float>::infinity();
        for_each_window(g, c.it.options.threads, [&](I64 o, I64 n, I64 y0, I64 y1, I64 x0, I64 x1) {
            float* acc = y.p + o;
            std::fill(acc, acc + g.C, init);
            for (I64 iy = y0; iy < y1; ++iy)
                for (I64 ix = x0; ix < x1; ++ix) {
                    const float* v = in.p + ((n * g.IH + iy) * g.IW + ix) * g.C;
                    for (I64 ch = 0; ch < g.C; ++ch) acc[ch] = apply_max_f(acc[ch], v[ch], nm);
                }
        });
        return c.set(0, y.finish());
    }
    if (!is_integer(x.type.dtype)) unsupported(std::string("MAX_POOL2D has no ") + to_string(x.type.dtype) + " form");
    auto y = c.alloc(0);
    for_each_window(g, c.it.options.threads, [&](I64 o, I64 n, I64 y0, I64 y1, I64 x0, I64 x1) {
        for (I64 ch = 0; ch < g.C; ++ch) {
            I64 acc = min_s(x.type.dtype);
            for (I64 iy = y0; iy < y1; ++iy)
                for (I64 ix = x0; ix < x1; ++ix) acc = std::max(acc, load_int(x, ((n * g.IH + iy) * g.IW + ix) * g.C + ch));
            store_int(*y, o + ch, acc);
        }
    });
    c.set(0, y);
}

void op_avg_pool2d(Ctx& c) {
    const PoolGeom g = pool_geometry(c);
    const ConstData& x = c.in(0);
    const I64 izp = zero_point(c.in(1), "input_zp"), ozp = zero_point(c.in(2), "output_zp");
    error_if(x.type.dtype != DType::i8 && izp != 0, "!is_same<in_out_t,i8_t>() && input_zp != 0");
    error_if(x.type.dtype != DType::i8 && ozp != 0, "!is_same<in_out_t,i8_t>() && output_zp != 0");
    if (is_float(x.type.dtype)) {
        const Floats<float> in = floats<float>(x);
        OutFloats<float> y(c.alloc(0));
        for_each_window(g, c.it.options.threads, [&](I64 o, I64 n, I64 y0, I64 y1, I64 x0, I64 x1) {
            float* acc = y.p + o;
            std::fill(acc, acc + g.C, 0.0f);
            for (I64 iy = y0; iy < y1; ++iy)
                for (I64 ix = x0; ix < x1; ++ix) {
                    const float* v = in.p + ((n * g.IH + iy) * g.IW + ix) * g.C;
                    for (I64 ch = 0; ch < g.C; ++ch) acc[ch] += v[ch];
                }
            const float count = static_cast<float>((y1 - y0) * (x1 - x0));
            for (I64 ch = 0; ch < g.C; ++ch) acc[ch] /= count;
        });
        return c.set(0, y.finish());
    }
    if (!is_integer(x.type.dtype)) unsupported(std::string("AVG_POOL2D has no ") + to_string(x.type.dtype) + " form");
    const DType t = x.type.dtype;
    auto y = c.alloc(0);
    for_each_window(g, c.it.options.threads, [&](I64 o, I64 n, I64 y0, I64 y1, I64 x0, I64 x1) {
        const auto scale = reciprocal_scale(static_cast<std::uint32_t>((y1 - y0) * (x1 - x0)));
        for (I64 ch = 0; ch < g.C; ++ch) {
            I64 acc = 0;
            for (I64 iy = y0; iy < y1; ++iy)
                for (I64 ix = x0; ix < x1; ++ix)
                    acc = add_s(DType::i32, acc, sub_s(DType::i32, load_int(x, ((n * g.IH + iy) * g.IW + ix) * g.C + ch), izp));
            const std::optional<std::int32_t> scaled = apply_scale_32(acc, scale.first, scale.second, false);
            require(scaled.has_value(), "apply_scale_32 arguments in range");
            const I64 v = add_s(DType::i32, *scaled, ozp);
            store_int(*y, o + ch, std::min(max_s(t), std::max(min_s(t), v)));
        }
    });
    c.set(0, y);
}

void op_fft2d(Ctx& c, bool real) {
    const ConstData& re = c.in(0);
    const I64 N = re.type.shape[0], H = re.type.shape[1], W = re.type.shape[2];
    const I64 OW = real ? W / 2 + 1 : W;
    if (!is_float(re.type.dtype)) unsupported(std::string("FFT2D has no ") + to_string(re.type.dtype) + " form");
    const Floats<double> xr = floats<double>(re);
    Floats<double> xi;
    if (!real) xi = floats<double>(c.in(1));
    const double sign = !real && c.attr<bool>(AttrName::inverse) ? -1.0 : 1.0;
    const double pi = 3.14159265358979323846;
    auto yr = c.alloc(0);
    auto yi = c.alloc(1);
    for (I64 n = 0; n < N; ++n)
        for (I64 oy = 0; oy < H; ++oy)
            for (I64 ox = 0; ox < OW; ++ox) {
                double sr = 0.0, si = 0.0;
                for (I64 iy = 0; iy < H; ++iy)
                    for (I64 ix = 0; ix < W; ++ix) {
                        const I64 ay = (iy * oy) % H, ax = (ix * ox) % W;
                        const double a = sign * 2.0 * pi * (static_cast<double>(ay) / H + static_cast<double>(ax) / W);
                        const double vr = xr.p[(n * H + iy) * W + ix];
                        const double vi = real ? 0.0 : xi.p[(n * H + iy) * W + ix];
                        sr += vr * std::cos(a) + vi * std::sin(a);
                        si += -vr * std::sin(a) + vi * std::cos(a);
                    }
                store_float(*yr, (n * H + oy) * OW + ox, sr);
                store_float(*yi, (n * H + oy) * OW + ox, si);
            }
    c.set(0, yr);
    c.set(1, yi);
}

void op_fft2d(Ctx& c) { op_fft2d(c, false); }
void op_rfft2d(Ctx& c) { op_fft2d(c, true); }

}  // namespace kernels

}  // namespace nnef::tosa
