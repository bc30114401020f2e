// The image operator (spec 2.12): RESIZE.
#include "lowering/tosa/ops/check.hpp"
#include "lowering/tosa/ops/kernel.hpp"
#include "lowering/tosa/ops/registry.hpp"

namespace nnef::tosa {

// ---- validation ----------------------------------------------------------------------------

namespace checks {

// The Supported Data Types and Compile Time Constant tables of the family.
void add_image_tables(Tables& t) {
    constexpr std::uint32_t both = atom_pro_int | atom_pro_fp;
    t.types.insert(t.types.end(), {
        {OpKind::RESIZE, "mode=mode resize_t in_t=input out_t=output shape_t=scale=offset=border",
         {{"PRO-FP", "- fp16 fp16 fp16"}, {"PRO-FP", "- fp32 fp32 fp32"}, {"PRO-INT", "BILINEAR i16 i8 i32"},
          {"PRO-INT", "NEAREST i16 i8 i8"}, {"EXT-BF16", "- bf16 bf16 bf16"}, {"EXT-INT16", "BILINEAR i16 i16 i48"},
          {"EXT-INT16", "NEAREST i16 i16 i16"}}},
    });
    t.ctc.insert(t.ctc.end(), {
        {OpKind::RESIZE, "scale offset border", both},
    });
}

void check_resize(OpCheck& c) {
    if (c.input_rank(0, 4)) return;
    bool bad = false;
    const auto* scale = shape_operand(c, 1, 4, "4", bad);
    if (bad) return;
    const auto* offset = shape_operand(c, 2, 2, "2", bad);
    if (bad) return;
    const auto* border = shape_operand(c, 3, 2, "2", bad);
    if (bad) return;
    const Shape& x = c.ish(0);
    if (c.expect_rank(0, DType::none, 4, "rank(output) != 4") || c.expect_dim(0, 0, x[0], "output N != input N") ||
        c.expect_dim(0, 3, x[3], "output C != input C"))
        return;
    if (c.error_if(std::max(x[1], x[2]) >= 16384, "max(OH,OW,IH,IW) >= 16384", "input is " + to_string(c.in(0))))
        return;
    if (!scale || !offset || !border) return;
    const I64 yn = (*scale)[0], yd = (*scale)[1], xn = (*scale)[2], xd = (*scale)[3];
    const I64 oy = (*offset)[0], ox = (*offset)[1], by = (*border)[0], bx = (*border)[1];
    if (c.error_if(yn <= 0 || yd <= 0 || xn <= 0 || xd <= 0, "scale_y_n <= 0 || scale_y_d <= 0 || scale_x_n <= 0 || scale_x_d <= 0",
                   "scale " + ints_text(*scale)))
        return;
    if (c.validating() && (c.level(yn / yd, c.lv().max_scale, "scale_y_n/scale_y_d <= MAX_SCALE") ||
                           c.level(xn / xd, c.lv().max_scale, "scale_x_n/scale_x_d <= MAX_SCALE")))
        return;
    if (c.error_if(yn > (1 << 11) || xn > (1 << 11), "scale_y_n > (1 << 11) || scale_x_n > (1 << 11)",
                   "scale " + ints_text(*scale)) ||
        c.error_if(yd >= 16 * yn || xd >= 16 * xn, "scale_y_d >= 16 * scale_y_n || scale_x_d >= 16 * scale_x_n",
                   "scale " + ints_text(*scale)) ||
        c.error_if(oy < -yn || oy >= 16 * yn, "offset_y < -scale_y_n || offset_y >= 16 * scale_y_n",
                   "offset " + ints_text(*offset) + ", scale " + ints_text(*scale)) ||
        c.error_if(ox < -xn || ox >= 16 * xn, "offset_x < -scale_x_n || offset_x >= 16 * scale_x_n",
                   "offset " + ints_text(*offset) + ", scale " + ints_text(*scale)) ||
        c.error_if(by < -16 * yn || by >= yn, "border_y < -16 * scale_y_n || border_y >= scale_y_n",
                   "border " + ints_text(*border) + ", scale " + ints_text(*scale)) ||
        c.error_if(bx < -16 * xn || bx >= xn, "border_x < -16 * scale_x_n || border_x >= scale_x_n",
                   "border " + ints_text(*border) + ", scale " + ints_text(*scale)))
        return;
    if (c.sliding_extent(0, 1, (x[1] - 1) * yn - oy + by, yd,
                         "OH != idiv_check((IH - 1) * scale_y_n - offset_y + border_y, scale_y_d) + 1", "OH") ||
        c.sliding_extent(0, 2, (x[2] - 1) * xn - ox + bx, xd,
                         "OW != idiv_check((IW - 1) * scale_x_n - offset_x + border_x, scale_x_d) + 1", "OW"))
        return;
    const I64 oh = c.out[0].shape[1], ow = c.out[0].shape[2];
    c.error_if(std::max({oh, ow, x[1], x[2]}) >= 16384, "max(OH,OW,IH,IW) >= 16384",
               "input " + to_string(c.in(0)) + ", output " + std::to_string(oh) + "x" + std::to_string(ow));
}

}  // namespace checks

// ---- interpreter kernels ---------------------------------------------------------------------

namespace kernels {

void op_resize(Ctx& c) {
    const ConstData& x = c.in(0);
    const std::vector<I64> scale = shape_operand(c.in(1), "scale");
    const std::vector<I64> offset = shape_operand(c.in(2), "offset");
    const std::vector<I64> border = shape_operand(c.in(3), "border");
    const TensorType& out = c.out_type(0);
    const ResizeMode mode = c.attr<ResizeMode>(AttrName::mode);
    // scale, offset and border that are not compile-time constants are known only here
    error_if(scale.size() != 4 || offset.size() != 2 || border.size() != 2, "scale [4], offset [2], border [2]");
    const I64 N = x.type.shape[0], IH = x.type.shape[1], IW = x.type.shape[2], C = x.type.shape[3], OH = out.shape[1], OW = out.shape[2];
    const I64 syn = scale[0], syd = scale[1], sxn = scale[2], sxd = scale[3], oy_ = offset[0], ox_ = offset[1], by = border[0], bx = border[1];
    error_if(std::max({OH, OW, IH, IW}) >= 16384, "max(OH,OW,IH,IW) >= 16384");
    error_if(syn <= 0 || syd <= 0 || sxn <= 0 || sxd <= 0, "scale_y_n <= 0 || scale_y_d <= 0 || scale_x_n <= 0 || scale_x_d <= 0");
    error_if(syn > (1 << 11) || sxn > (1 << 11), "scale_y_n > (1 << 11) || scale_x_n > (1 << 11)");
    error_if(syd >= 16 * syn || sxd >= 16 * sxn, "scale_y_d >= 16 * scale_y_n || scale_x_d >= 16 * scale_x_n");
    error_if(oy_ < -syn || oy_ >= 16 * syn, "offset_y < -scale_y_n || offset_y >= 16 * scale_y_n");
    error_if(ox_ < -sxn || ox_ >= 16 * sxn, "offset_x < -scale_x_n || offset_x >= 16 * scale_x_n");
    error_if(by < -16 * syn || by >= syn, "border_y < -16 * scale_y_n || border_y >= scale_y_n");
    error_if(bx < -16 * sxn || bx >= sxn, "border_x < -16 * scale_x_n || border_x >= scale_x_n");
    check_extent(OH, (IH - 1) * syn - oy_ + by, syd,
             "OH != idiv_check((IH - 1) * scale_y_n - offset_y + border_y, scale_y_d) + 1");
    check_extent(OW, (IW - 1) * sxn - ox_ + bx, sxd,
             "OW != idiv_check((IW - 1) * scale_x_n - offset_x + border_x, scale_x_d) + 1");
    auto idiv_floor = [](I64 a, I64 b) {
        I64 r = a / b;
        if (r * b > a) --r;
        return r;
    };
    const bool fl = is_float(x.type.dtype);
    if (!fl && !is_integer(x.type.dtype)) unsupported(std::string("RESIZE has no ") + to_string(x.type.dtype) + " form");
    const Floats<double> in = fl ? floats<double>(x) : Floats<double>{};
    auto y = c.alloc(0);
    I64 o = 0;
    for (I64 n = 0; n < N; ++n)
        for (I64 oy = 0; oy < OH; ++oy) {
            const I64 yy = oy * syd + oy_;
            const I64 iy = idiv_floor(yy, syn), ry = yy - iy * syn;
            const I64 iy0 = std::max<I64>(iy, 0), iy1 = std::min(iy + 1, IH - 1);
            for (I64 ox = 0; ox < OW; ++ox) {
                const I64 xx = ox * sxd + ox_;
                const I64 ix = idiv_floor(xx, sxn), rx = xx - ix * sxn;
                const I64 ix0 = std::max<I64>(ix, 0), ix1 = std::min(ix + 1, IW - 1);
                auto at = [&](I64 yi, I64 xi, I64 ch) { return ((n * IH + yi) * IW + xi) * C + ch; };
                for (I64 ch = 0; ch < C; ++ch, ++o) {
                    if (fl) {
                        const double dy = static_cast<double>(ry) / syn, dx = static_cast<double>(rx) / sxn;
                        if (mode == ResizeMode::BILINEAR) {
                            double acc = in.p[at(iy0, ix0, ch)] * (1.0 - dy) * (1.0 - dx);
                            acc += in.p[at(iy0, ix1, ch)] * (1.0 - dy) * dx;
                            acc += in.p[at(iy1, ix0, ch)] * dy * (1.0 - dx);
                            acc += in.p[at(iy1, ix1, ch)] * dy * dx;
                            store_float(*y, o, acc);
                        } else {
                            store_float(*y, o, in.p[at(dy >= 0.5 ? iy1 : iy0, dx >= 0.5 ? ix1 : ix0, ch)]);
                        }
                    } else if (mode == ResizeMode::BILINEAR) {
                        I64 acc = load_int(x, at(iy0, ix0, ch)) * (syn - ry) * (sxn - rx);
                        acc += load_int(x, at(iy0, ix1, ch)) * (syn - ry) * rx;
                        acc += load_int(x, at(iy1, ix0, ch)) * ry * (sxn - rx);
                        acc += load_int(x, at(iy1, ix1, ch)) * ry * rx;
                        store_int(*y, o, acc);
                    } else {
                        store_int(*y, o, load_int(x, at(2 * ry >= syn ? iy1 : iy0, 2 * rx >= sxn ? ix1 : ix0, ch)));
                    }
                }
            }
        }
    c.set(0, y);
}

}  // namespace kernels

}  // namespace nnef::tosa
