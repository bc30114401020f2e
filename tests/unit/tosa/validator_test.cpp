// The TOSA validator: a valid graph for every operator (and the result types infer_output_types
// gives for it, against shapes computed by hand from the spec's formulas), a failing graph for each
// family of ERROR_IF / REQUIRE rules, the type tables per profile and extension, the level limits,
// SSA form, attributes, Compile Time Constant inputs, the provenance of messages, and that a
// ResNet-50-sized graph validates without reading its weights (its time: bench/tosa_validate_bench.cpp).
#include <doctest/doctest.h>
#include <sys/mman.h>

#include <cctype>
#include <random>
#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "lowering/pass_manager.hpp"
#include "lowering/tosa/validator.hpp"
#include "unit/mlir/zoo_graphs.hpp"
#include "unit/tosa/validator_cases.hpp"

TEST_SUITE("tosa") {
    TEST_CASE("validator: a valid graph for every operator, and its inferred result types") {
        std::vector<bool> covered(op_kind_count);
        for (const ValidCase& vc : valid_cases()) {
            const std::string name = to_string(vc.kind);
            CAPTURE(name);
            G b;
            vc.build(b);
            for (const Block& block : b.g.blocks)
                for (const Op& op : block.ops) covered[static_cast<std::size_t>(op.kind)] = true;
            CHECK(errors(b.g, opts(vc.profile, vc.extensions)) == "");
            CHECK(errors(b.g, opts(vc.profile, vc.extensions, Level::none())) == "");
            check_inference(b.g);
        }
        for (std::size_t k = 0; k < op_kind_count; ++k) {
            CAPTURE(op_info(static_cast<OpKind>(k)).name);
            CHECK(covered[k]);
        }
    }

    void sliding_window_cases() {
        // (5 - 1 + 0 + 0 - 2) = 2 is a multiple of stride 2: OH = 2
        CHECK(errors(conv({1, 5, 5, 3}, {4, 3, 3, 3}, {1, 2, 2, 4}, {0, 0, 0, 0}, {2, 2}, {1, 1})) == "");
        const std::string oh = "ERROR_IF(OH != idiv_check(IH - 1 + pad_top + pad_bottom - (KH - 1) * dilation_y, stride_y) + 1)";
        // 224 - 1 + 3 + 3 - 6 = 223 is not a multiple of 2 (ResNet's first convolution needs pad_bottom 2).
        const std::string e1 = errors(conv({1, 224, 224, 3}, {64, 7, 7, 3}, {1, 112, 112, 64}, {3, 3, 3, 3}, {2, 2}, {1, 1}));
        CHECK(has(e1, oh));
        CHECK(has(e1, "223 is not a multiple of 2"));
        CHECK(errors(conv({1, 224, 224, 3}, {64, 7, 7, 3}, {1, 112, 112, 64}, {3, 2, 3, 2}, {2, 2}, {1, 1})) == "");
        // A wrong output extent.
        CHECK(has(errors(conv({1, 5, 5, 3}, {4, 3, 3, 3}, {1, 2, 3, 4}, {0, 0, 0, 0}, {2, 2}, {1, 1})),
                  "ERROR_IF(OW != idiv_check(IW - 1 + pad_left + pad_right - (KW - 1) * dilation_x, stride_x) + 1)"));
        CHECK(has(errors(conv({1, 5, 5, 3}, {4, 3, 3, 3}, {1, 3, 3, 4}, {0, 0, 0, 0}, {0, 1}, {1, 1})),
                  "ERROR_IF(stride_y < 1 || stride_x < 1)"));
        CHECK(has(errors(conv({1, 5, 5, 3}, {4, 3, 3, 3}, {1, 3, 3, 4}, {0, -1, 0, 0}, {1, 1}, {1, 1})),
                  "ERROR_IF(pad_top < 0 || pad_bottom < 0 || pad_left < 0 || pad_right < 0)"));
        CHECK(has(errors(conv({1, 5, 5, 3}, {4, 3, 3, 3}, {1, 3, 3, 4}, {0, 0, 0, 0}, {1, 1}, {0, 1})),
                  "ERROR_IF(dilation_y < 1 || dilation_x < 1)"));
        CHECK(has(errors(conv({1, 5, 5, 3}, {4, 3, 3, 3}, {1, 3, 3, 4}, {0, 0, 0, 0}, {1, 1}, {1, 1}, 3)),
                  "ERROR_IF(BC != OC && BC != 1)"));
        CHECK(errors(conv({1, 5, 5, 3}, {4, 3, 3, 3}, {1, 3, 3, 4}, {0, 0, 0, 0}, {1, 1}, {1, 1}, 1)) == "");
        CHECK(has(errors(conv({1, 5, 5, 3}, {4, 3, 3, 3}, {1, 3, 3, 4}, {0, 0, 0, 0}, {1, 1}, {1, 1}, -1, 2)),
                  "ERROR_IF(!is_same<in_t,i8_t>() && input_zp != 0)"));
        CHECK(has(errors(conv({1, 5, 5, 2}, {4, 3, 3, 3}, {1, 3, 3, 4}, {0, 0, 0, 0}, {1, 1}, {1, 1})), "share IC"));
        // Pools.
        CHECK(errors(pool(OpKind::AVG_POOL2D, {1, 6, 6, 1}, {1, 3, 3, 1}, {2, 2}, {2, 2}, {0, 0, 0, 0})) == "");
        CHECK(has(errors(pool(OpKind::AVG_POOL2D, {1, 6, 6, 1}, {1, 4, 4, 1}, {2, 2}, {2, 2}, {2, 2, 0, 0})),
                  "ERROR_IF(pad_top >= kernel_y || pad_bottom >= kernel_y)"));
        CHECK(has(errors(pool(OpKind::MAX_POOL2D, {1, 6, 6, 1}, {1, 6, 6, 1}, {0, 1}, {1, 1}, {0, 0, 0, 0})),
                  "ERROR_IF(kernel_y < 1 || kernel_x < 1)"));
        CHECK(has(errors(pool(OpKind::MAX_POOL2D, {1, 6, 6, 1}, {1, 3, 2, 1}, {2, 2}, {2, 2}, {0, 0, 0, 0})),
                  "ERROR_IF(OW != idiv_check(IW + pad_left + pad_right - kernel_x, stride_x) + 1)"));
        CHECK(has(errors(pool(OpKind::AVG_POOL2D, {1, 6, 6, 1}, {1, 3, 4, 1}, {2, 2}, {2, 2}, {0, 0, 0, 2})),
                  "ERROR_IF(pad_right >= kernel_x || pad_left >= kernel_x)"));
        // DEPTHWISE_CONV2D: bias of C*M or 1; CONV3D: the depth formula.
        auto dw = [](I64 bias) {
            return build([&](G& b) {
                ValueId x = b.in(f32, {1, 3, 3, 2});
                b.out(b.op(OpKind::DEPTHWISE_CONV2D, {x, b.cst(f32, {1, 1, 2, 3}), b.cst(f32, {bias}), b.zp(f32), b.zp(f32)},
                           T(f32, {1, 3, 3, 6}), conv_attrs({0, 0, 0, 0}, {1, 1}, {1, 1})));
            });
        };
        CHECK(errors(dw(6)) == "");
        CHECK(has(errors(dw(2)), "ERROR_IF(BC != C*M && BC != 1)"));
        Graph c3 = build([](G& b) {
            ValueId x = b.in(f32, {1, 5, 4, 4, 1});
            b.out(b.op(OpKind::CONV3D, {x, b.cst(f32, {1, 2, 1, 1, 1}), b.cst(f32, {1}), b.zp(f32), b.zp(f32)}, T(f32, {1, 2, 4, 4, 1}),
                       conv_attrs({0, 0, 0, 0, 0, 0}, {2, 1, 1}, {1, 1, 1})));
        });
        CHECK(has(errors(c3), "ERROR_IF(OD != idiv_check(ID - 1 + pad_d0 + pad_d1 - (KD - 1) * dilation_d, stride_d) + 1)"));
        // TRANSPOSE_CONV2D: out_pad > -KH.
        Graph tc = build([](G& b) {
            b.out(b.op(OpKind::TRANSPOSE_CONV2D, {b.in(f32, {1, 3, 3, 2}), b.cst(f32, {4, 3, 3, 2}), b.cst(f32, {4}), b.zp(f32), b.zp(f32)},
                       T(f32, {1, 1, 7, 4}),
                       {{AttrName::out_pad, is({-3, -2, 0, 0})}, {AttrName::stride, is({2, 2})}, {AttrName::acc_type, AccType::FP32}}));
        });
        CHECK(has(errors(tc), "ERROR_IF(out_pad_top <= -KH || out_pad_bottom <= -KH)"));
        // FFT sizes.
        Graph fft = build([](G& b) { b.op_n(OpKind::RFFT2D, {b.in(f32, {1, 4, 6})}, {T(f32, {1, 4, 4}), T(f32, {1, 4, 4})}); });
        CHECK(has(errors(fft, opts(Profile::pro_fp, {"EXT-FFT"})), "ERROR_IF(!power_of_two(W))"));
    }
    CASE_GROUP(sliding_window_cases, "validator: sliding-window ERROR_IFs")

    void elementwise_layout_cases() {
        auto binary = [](Shape a, Shape b2, Shape out) {
            return build([&](G& b) { b.out(b.op(OpKind::ADD, {b.in(f32, a), b.in(f32, b2)}, T(f32, out))); });
        };
        CHECK(has(errors(binary({2, 3}, {3}, {2, 3})), "ERROR_IF(rank(shape1) != rank(shape2))"));
        CHECK(has(errors(binary({2, 3}, {2, 2}, {2, 3})), "ERROR_IF(shape2[i] != 1 && shape2[i] != shape[i])"));
        CHECK(has(errors(binary({2, 1}, {1, 3}, {2, 1})), "ERROR_IF(shape != broadcast_shape(shape1, shape2))"));
        // CLAMP.
        auto clamp = [](double lo, double hi) {
            return build([&](G& b) {
                b.out(b.op(OpKind::CLAMP, {b.in(f32, {2})}, T(f32, {2}),
                           {{AttrName::min_val, lo}, {AttrName::max_val, hi}, {AttrName::nan_mode, NanMode::PROPAGATE}}));
            });
        };
        CHECK(has(errors(clamp(1, -1)), "ERROR_IF(max_val < min_val)"));
        CHECK(has(errors(clamp(std::nan(""), 1)), "ERROR_IF(isNaN(min_val) || isNaN(max_val))"));
        // Reductions and ARGMAX.
        auto reduce = [](I64 axis, Shape out) {
            return build([&](G& b) { b.out(b.op(OpKind::REDUCE_SUM, {b.in(f32, {2, 3})}, T(f32, out), {{AttrName::axis, i(axis)}})); });
        };
        CHECK(has(errors(reduce(2, {2, 3})), "ERROR_IF(axis < 0 || axis >= rank(shape1))"));
        CHECK(has(errors(reduce(1, {2, 3})), "ERROR_IF(shape[axis] != 1)"));
        Graph am = build([](G& b) {
            b.out(b.op(OpKind::ARGMAX, {b.in(f32, {2, 3})}, T(DType::i32, {3}), {{AttrName::axis, i(-1)}, {AttrName::nan_mode, NanMode::IGNORE}}));
        });
        CHECK(has(errors(am), "ERROR_IF(axis < 0 || axis >= rank(shape1))"));
        // CONCAT.
        auto concat = [](std::vector<Shape> ins, Shape out, I64 axis) {
            return build([&](G& b) {
                std::vector<ValueId> vs;
                for (const Shape& s : ins) vs.push_back(b.in(f32, s));
                b.out(b.op(OpKind::CONCAT, vs, T(f32, out), {{AttrName::axis, i(axis)}}));
            });
        };
        CHECK(has(errors(concat({}, {2}, 0)), "ERROR_IF(input1 == [])"));
        CHECK(has(errors(concat({{2, 3}, {2}}, {2, 4}, 1)), "ERROR_IF(rank(shapes1[shape_index]) != rank(shapes1[0]))"));
        CHECK(has(errors(concat({{2, 3}, {3, 1}}, {2, 4}, 1)),
                  "ERROR_IF(shapes1[shape_index][axis_index] != shapes1[0][axis_index])"));
        CHECK(has(errors(concat({{2, 3}, {2, 1}}, {2, 5}, 1)), "ERROR_IF(axis_sum != shape[axis])"));
        // PAD.
        auto pad = [](Ints p, Shape out) {
            return build([&](G& b) { b.out(b.op(OpKind::PAD, {b.in(f32, {2, 3}), b.shape(p), b.zp(f32)}, T(f32, out))); });
        };
        CHECK(has(errors(pad({0, -1, 0, 0}, {1, 3})), "ERROR_IF(padding[i * 2] < 0 || padding[(i * 2) + 1] < 0)"));
        CHECK(has(errors(pad({1, 1, 0, 0}, {4, 4})), "ERROR_IF(shape[i] != padding[i * 2] + shape1[i] + padding[(i * 2) + 1])"));
        CHECK(has(errors(pad({1, 1}, {4, 3})), "length(padding) == 2*rank(shape1)"));
        // RESHAPE, SLICE, TILE, TRANSPOSE, REVERSE.
        Graph rs = build([](G& b) { b.out(b.op(OpKind::RESHAPE, {b.in(f32, {2, 3}), b.shape({4, 2})}, T(f32, {4, 2}))); });
        CHECK(has(errors(rs), "ERROR_IF(tensor_size(shape1) != tensor_size(shape))"));
        auto slice = [](Ints start, Ints size, Shape out) {
            return build([&](G& b) { b.out(b.op(OpKind::SLICE, {b.in(f32, {4, 5}), b.shape(start), b.shape(size)}, T(f32, out))); });
        };
        CHECK(has(errors(slice({2, 0}, {3, 5}, {3, 5})), "ERROR_IF(start[index] + size[index] > shape1[index])"));
        CHECK(has(errors(slice({-1, 0}, {3, 5}, {3, 5})), "ERROR_IF(start[index] < 0)"));
        CHECK(has(errors(slice({0, 0}, {0, 5}, {1, 5})), "ERROR_IF(size[index] <= 0)"));
        CHECK(has(errors(slice({0, 0}, {2, 5}, {2, 4})), "ERROR_IF(shape[index] != size[index])"));
        Graph tile = build([](G& b) { b.out(b.op(OpKind::TILE, {b.in(f32, {2, 3}), b.shape({2, 2})}, T(f32, {4, 3}))); });
        CHECK(has(errors(tile), "ERROR_IF(shape1[i] * multiples[i] != shape[i])"));
        auto transpose = [](Ints perms, Shape out) {
            return build([&](G& b) { b.out(b.op(OpKind::TRANSPOSE, {b.in(f32, {2, 3, 4})}, T(f32, out), {{AttrName::perms, is(perms)}})); });
        };
        CHECK(has(errors(transpose({0, 0, 1}, {2, 2, 3})), "ERROR_IF(indexes_used[index] == true)"));
        CHECK(has(errors(transpose({0, 3, 1}, {2, 4, 3})), "ERROR_IF(index >= rank(shape1))"));
        CHECK(has(errors(transpose({0, 2, 1}, {2, 3, 4})), "ERROR_IF(shape1[perms[i]] != shape[i])"));
        Graph rev = build([](G& b) { b.out(b.op(OpKind::REVERSE, {b.in(f32, {2, 3})}, T(f32, {2, 3}), {{AttrName::axis, i(2)}})); });
        CHECK(has(errors(rev), "ERROR_IF(axis < 0 || axis >= rank(shape))"));
    }
    CASE_GROUP(elementwise_layout_cases, "validator: elementwise, reduction and data layout ERROR_IFs")

    void resize_rescale_gather_cases() {
        // OH = ((2 - 1) * 4 - 0 + 0) / 2 + 1 = 3
        CHECK(errors(resize({1, 2, 2, 1}, {1, 3, 3, 1}, {4, 2, 4, 2}, {0, 0}, {0, 0})) == "");
        CHECK(has(errors(resize({1, 2, 2, 1}, {1, 3, 3, 1}, {0, 2, 4, 2}, {0, 0}, {0, 0})),
                  "ERROR_IF(scale_y_n <= 0 || scale_y_d <= 0 || scale_x_n <= 0 || scale_x_d <= 0)"));
        CHECK(has(errors(resize({1, 2, 2, 1}, {1, 1, 1, 1}, {1, 16, 1, 16}, {0, 0}, {0, 0})),
                  "ERROR_IF(scale_y_d >= 16 * scale_y_n || scale_x_d >= 16 * scale_x_n)"));
        CHECK(has(errors(resize({1, 2, 2, 1}, {1, 3, 3, 1}, {4, 2, 4, 2}, {-5, 0}, {0, 0})),
                  "ERROR_IF(offset_y < -scale_y_n || offset_y >= 16 * scale_y_n)"));
        CHECK(has(errors(resize({1, 2, 2, 1}, {1, 3, 3, 1}, {4, 2, 4, 2}, {0, 0}, {0, 4})),
                  "ERROR_IF(border_x < -16 * scale_x_n || border_x >= scale_x_n)"));
        CHECK(has(errors(resize({1, 2, 2, 1}, {1, 3, 3, 1}, {4, 3, 4, 2}, {0, 0}, {0, 0})),
                  "ERROR_IF(OH != idiv_check((IH - 1) * scale_y_n - offset_y + border_y, scale_y_d) + 1)"));
        CHECK(has(errors(resize({1, 2, 2, 1}, {1, 3, 3, 1}, {4096, 2048, 4, 2}, {0, 0}, {0, 0})),
                  "ERROR_IF(scale_y_n > (1 << 11) || scale_x_n > (1 << 11))"));
        // (8192 - 1) * 2 + 1 = 16383 rows, >= 16384 columns
        CHECK(has(errors(resize({1, 2, 8192, 1}, {1, 3, 16383, 1}, {2, 1, 2, 1}, {0, 0}, {0, 0})),
                  "ERROR_IF(max(OH,OW,IH,IW) >= 16384)") == false);
        CHECK(has(errors(resize({1, 2, 8193, 1}, {1, 3, 16385, 1}, {2, 1, 2, 1}, {0, 0}, {0, 0})),
                  "ERROR_IF(max(OH,OW,IH,IW) >= 16384)"));
        // RESCALE.
        const auto single = RoundingMode::SINGLE_ROUND, dbl = RoundingMode::DOUBLE_ROUND;
        const ValidateOptions pi = opts(Profile::pro_int);
        CHECK(errors(rescale(DType::i8, DType::i8, true, single, false, false, -128, 127), pi) == "");
        CHECK(errors(rescale(DType::i8, DType::i16, false, single, true, false, 200 - 256, 0), pi) == "");
        CHECK(errors(rescale(DType::i16, DType::i8, true, single, true, false, 32768, 0), pi) == "");
        CHECK(has(errors(rescale(DType::i16, DType::i8, true, single, true, false, 5, 0), pi),
                  "ERROR_IF(is_same<in_t,i16_t>() && input_unsigned == true && input_zp != 0 && input_zp != 32768)"));
        CHECK(has(errors(rescale(DType::i32, DType::i8, true, single, false, false, 3, 0), pi),
                  "ERROR_IF(!is_same<in_t,i8_t>() && (!is_same<in_t,i16_t>() || input_unsigned == false) && input_zp != 0)"));
        CHECK(has(errors(rescale(DType::i8, DType::i8, true, single, true, true), pi), "ERROR_IF(input_unsigned && output_unsigned)"));
        CHECK(has(errors(rescale(DType::i8, DType::i32, true, single, true, false), pi),
                  "ERROR_IF(is_same<out_t,i32_t>() && input_unsigned)"));
        CHECK(has(errors(rescale(DType::i32, DType::i8, true, single, false, true), pi),
                  "ERROR_IF(is_same<in_t,i32_t>() && output_unsigned)"));
        CHECK(has(errors(rescale(DType::i48, DType::i8, true, single, false, false), opts(Profile::pro_int, {"EXT-INT16"})),
                  "ERROR_IF(scale32 && is_same<in_t,i48_t>())"));
        CHECK(errors(rescale(DType::i48, DType::i8, false, single, false, false), opts(Profile::pro_int, {"EXT-INT16"})) == "");
        CHECK(has(errors(rescale(DType::i8, DType::i8, false, dbl, false, false), opts(Profile::pro_int, {"EXT-DOUBLEROUND"})),
                  "ERROR_IF(!scale32 && (rounding_mode == DOUBLE_ROUND))"));
        CHECK(has(errors(rescale(DType::i8, DType::i8, true, dbl, false, false), pi), "DOUBLE_ROUND requires EXT-DOUBLEROUND"));
        CHECK(errors(rescale(DType::i8, DType::i8, true, dbl, false, false), opts(Profile::pro_int, {"EXT-DOUBLEROUND"})) == "");
        CHECK(has(errors(rescale(DType::i8, DType::i8, true, RoundingMode::INEXACT_ROUND, false, false), pi),
                  "INEXACT_ROUND requires EXT-INEXACTROUND"));
        CHECK(has(errors(rescale(DType::i8, DType::i8, true, single, false, false, 0, 0, {63}), pi),
                  "REQUIRE(2 <= shift && shift <= 62)"));
        CHECK(has(errors(rescale(DType::i8, DType::i8, true, single, false, false, 0, 0, {1}), pi), "shift[0] is 1"));
        // TABLE sizes and MUL shifts.
        Graph t16 = build([](G& b) { b.out(b.op(OpKind::TABLE, {b.in(DType::i16, {4}), b.cst(DType::i16, {256})}, T(DType::i32, {4}))); });
        CHECK(has(errors(t16, opts(Profile::pro_int, {"EXT-INT16"})), "REQUIRE(length(table) == TABLE_SIZE)"));
        CHECK(has(errors(t16, opts(Profile::pro_int, {"EXT-INT16"})), "TABLE_SIZE is 513"));
        auto mul = [](DType t, DType out, double shift) {
            return build([&](G& b) { b.out(b.op(OpKind::MUL, {b.in(t, {2}), b.in(t, {2}), b.zp(DType::i8, shift)}, T(out, {2}))); });
        };
        CHECK(errors(mul(DType::i32, DType::i32, 31), opts(Profile::pro_int)) == "");
        CHECK(has(errors(mul(f32, f32, 1)), "REQUIRE(is_same<in_t,int32_t>() || shift == 0)"));
        CHECK(has(errors(mul(DType::i32, DType::i32, 64), opts(Profile::pro_int)), "REQUIRE(0 <= shift && shift <= 63)"));
        // Shift amounts and divisors given by constants.
        Graph sh = build([](G& b) {
            b.out(b.op(OpKind::LOGICAL_LEFT_SHIFT, {b.in(DType::i8, {3}), b.cst(DType::i8, {3}, {1, 8, 2})}, T(DType::i8, {3})));
        });
        CHECK(has(errors(sh, opts(Profile::pro_int)), "REQUIRE(is_same<in_out_t,i8_t>() && 0 <= value2 && value2 <= 7)"));
        Graph ash = build([](G& b) {
            b.out(b.op(OpKind::ARITHMETIC_RIGHT_SHIFT, {b.in(DType::i32, {1}), b.cst(DType::i32, {1}, {32})}, T(DType::i32, {1}),
                       {{AttrName::round, false}}));
        });
        CHECK(has(errors(ash, opts(Profile::pro_int)), "value2 <= 31): input2 holds 32"));
        Graph div = build([](G& b) {
            b.out(b.op(OpKind::INTDIV, {b.in(DType::i32, {3}), b.cst(DType::i32, {3}, {1, 0, 2})}, T(DType::i32, {3})));
        });
        CHECK(has(errors(div), "REQUIRE(value2 != 0)"));
        // Indices.
        Graph ga = build([](G& b) {
            b.out(b.op(OpKind::GATHER, {b.in(f32, {1, 5, 3}), b.cst(DType::i32, {1, 2}, {0, 5})}, T(f32, {1, 2, 3})));
        });
        CHECK(has(errors(ga), "REQUIRE(0 <= k && k < K)"));
        Graph sc = build([](G& b) {
            b.out(b.op(OpKind::SCATTER, {b.in(f32, {1, 5, 3}), b.cst(DType::i32, {1, 2}, {3, 3}), b.in(f32, {1, 2, 3})},
                       T(f32, {1, 5, 3})));
        });
        CHECK(has(errors(sc), "REQUIRE(output_modified[n,k,c] == false)"));
        // MATMUL zero points are for i8 only.
        Graph mm = build([](G& b) {
            b.out(b.op(OpKind::MATMUL, {b.in(f32, {1, 2, 3}), b.in(f32, {1, 3, 4}), b.zp(f32, 1), b.zp(f32)}, T(f32, {1, 2, 4})));
        });
        CHECK(has(errors(mm), "ERROR_IF(!is_same<in_t,i8_t> && (A_zp != 0 || B_zp != 0))"));
        Graph mm8 = build([](G& b) {
            b.out(b.op(OpKind::MATMUL, {b.in(DType::i8, {1, 2, 3}), b.in(DType::i8, {1, 3, 4}), b.zp(DType::i8, 1), b.zp(DType::i8, -2)},
                       T(DType::i32, {1, 2, 4})));
        });
        CHECK(errors(mm8, opts(Profile::pro_int)) == "");
        // Argument table shapes.
        Graph mmn = build([](G& b) {
            b.out(b.op(OpKind::MATMUL, {b.in(f32, {1, 2, 3}), b.in(f32, {2, 3, 4}), b.zp(f32), b.zp(f32)}, T(f32, {1, 2, 4})));
        });
        CHECK(has(errors(mmn), "A is [N,H,C] and B is [N,C,W] (argument table)"));
        Graph gn = build([](G& b) {
            b.out(b.op(OpKind::GATHER, {b.in(f32, {2, 5, 3}), b.in(DType::i32, {1, 2})}, T(f32, {2, 2, 3})));
        });
        CHECK(has(errors(gn), "values [N,K,C] and indices [N,W] share N"));
        Graph t8 = build([](G& b) { b.out(b.op(OpKind::TABLE, {b.in(DType::i8, {4}), b.cst(DType::i8, {255})}, T(DType::i8, {4}))); });
        CHECK(has(errors(t8, opts(Profile::pro_int)), "table is i8[255], TABLE_SIZE is 256 for i8"));
        Graph pc = build([](G& b) {
            b.out(b.op(OpKind::RESCALE, {b.in(DType::i8, {}), b.cst(DType::i32, {1}, {1 << 30}), b.cst(DType::i8, {1}, {30}), b.zp(DType::i8), b.zp(DType::i8)},
                       T(DType::i8, {}),
                       {{AttrName::scale32, true}, {AttrName::rounding_mode, RoundingMode::SINGLE_ROUND}, {AttrName::per_channel, true},
                        {AttrName::input_unsigned, false}, {AttrName::output_unsigned, false}}));
        });
        CHECK(has(errors(pc, opts(Profile::pro_int)), "ERROR_IF(per_channel && rank(input) < 1)"));
        Graph m16 = build([](G& b) {
            b.out(b.op(OpKind::RESCALE, {b.in(DType::i8, {2}), b.cst(DType::i16, {1}, {1 << 14}), b.cst(DType::i8, {1}, {14}), b.zp(DType::i8), b.zp(DType::i8)},
                       T(DType::i8, {2}),
                       {{AttrName::scale32, true}, {AttrName::rounding_mode, RoundingMode::SINGLE_ROUND}, {AttrName::per_channel, false},
                        {AttrName::input_unsigned, false}, {AttrName::output_unsigned, false}}));
        });
        CHECK(has(errors(m16, opts(Profile::pro_int)), "multiplier is T<mul_t>, mul_t = scale32 ? i32_t : i16_t"));
        // NEGATE zero points.
        Graph ng = build([](G& b) { b.out(b.op(OpKind::NEGATE, {b.in(f32, {2}), b.zp(f32, 1), b.zp(f32)}, T(f32, {2}))); });
        CHECK(has(errors(ng), "ERROR_IF(!is_same<in_out_t,i8_t>() && input1_zp != 0)"));
    }
    CASE_GROUP(resize_rescale_gather_cases, "validator: RESIZE, RESCALE, TABLE, MUL, GATHER / SCATTER rules")

    void control_flow_variable_cases() {
        const ValidateOptions cf = opts(Profile::pro_fp, {"EXT-CONTROLFLOW"});
        // COND_IF: a condition of one element; graphs whose interfaces match the lists.
        auto cond_if = [](Shape cond, Shape then_in) {
            return build([&](G& b) {
                ValueId c = b.in(DType::bool_, cond);
                ValueId x = b.in(f32, {2});
                const std::uint32_t tb = b.g.add_block("then"), eb = b.g.add_block("else");
                b.cur = tb;
                b.out(b.op(OpKind::IDENTITY, {b.in(f32, then_in)}, T(f32, then_in)));
                b.cur = eb;
                b.out(b.op(OpKind::IDENTITY, {b.in(f32, {2})}, T(f32, {2})));
                b.cur = 0;
                b.out(b.op(OpKind::COND_IF, {c, x}, T(f32, {2}),
                           {{AttrName::then_graph, BlockRef{tb}}, {AttrName::else_graph, BlockRef{eb}}}));
            });
        };
        CHECK(errors(cond_if({1}, {2}), cf) == "");
        CHECK(has(errors(cond_if({2}, {2}), cf), "ERROR_IF(tensor_size(shape) != 1)"));
        CHECK(has(errors(cond_if({1}, {3}), cf), "ERROR_IF(tensor_list_shape(input_list) != tosa_input_shape(then_graph))"));
        CHECK(has(errors(cond_if({1}, {2})), "needs EXT-CONTROLFLOW"));
        // WHILE_LOOP: the condition graph returns one bool.
        Graph wl = build([](G& b) {
            ValueId x = b.in(f32, {1});
            const std::uint32_t cb = b.g.add_block("cond"), bb = b.g.add_block("body");
            b.cur = cb;
            b.out(b.op(OpKind::IDENTITY, {b.in(f32, {1})}, T(f32, {1})));
            b.cur = bb;
            b.out(b.op(OpKind::IDENTITY, {b.in(f32, {1})}, T(f32, {1})));
            b.cur = 0;
            b.out(b.op(OpKind::WHILE_LOOP, {x}, T(f32, {1}), {{AttrName::cond_graph, BlockRef{cb}}, {AttrName::body_graph, BlockRef{bb}}}));
        });
        CHECK(has(errors(wl, cf), "ERROR_IF(tosa_output_type(cond_graph) != bool_t)"));
        Graph body = build([](G& b) {
            ValueId x = b.in(f32, {1});
            const std::uint32_t cb = b.g.add_block("cond"), bb = b.g.add_block("body");
            b.cur = cb;
            b.in(f32, {1});
            b.out(b.cst(DType::bool_, {1}, {1}));
            b.cur = bb;
            b.in(f32, {1});
            b.out(b.cst(f32, {2}, {1, 2}));
            b.cur = 0;
            b.out(b.op(OpKind::WHILE_LOOP, {x}, T(f32, {1}), {{AttrName::cond_graph, BlockRef{cb}}, {AttrName::body_graph, BlockRef{bb}}}));
        });
        CHECK(has(errors(body, cf), "ERROR_IF(tensor_list_shape(input_list) != tosa_output_shape(body_graph))"));
        // Nesting: 6 levels pass at 8K (depths 0..5), 7 need level none.
        CHECK(errors(nested_cond_if(6), cf) == "");
        const std::string deep = errors(nested_cond_if(7), cf);
        CHECK(has(deep, "ERROR_IF(tosa_nesting_depth >= MAX_NESTING): nesting depth 6, MAX_NESTING is 6 at level 8K"));
        CHECK(errors(nested_cond_if(7), opts(Profile::pro_fp, {"EXT-CONTROLFLOW"}, Level::none())) == "");
        check_inference(nested_cond_if(3));
        // Variables.
        const ValidateOptions var = opts(Profile::pro_fp, {"EXT-VARIABLE"});
        Graph undeclared = build([](G& b) {
            b.op_n(OpKind::VARIABLE_WRITE, {b.in(f32, {2})}, {}, {{AttrName::name, std::string("nope")}});
        });
        CHECK(has(errors(undeclared, var), "REQUIRE(variable_tensor): no VARIABLE declares 'nope'"));
        Graph wrong_shape = build([](G& b) {
            b.op_n(OpKind::VARIABLE, {}, {}, {{AttrName::name, std::string("v")}, {AttrName::var_shape, is({2})}, {AttrName::type, f32}});
            b.op_n(OpKind::VARIABLE_WRITE, {b.in(f32, {3})}, {}, {{AttrName::name, std::string("v")}});
            b.op_n(OpKind::VARIABLE, {}, {}, {{AttrName::name, std::string("v")}, {AttrName::var_shape, is({2})}, {AttrName::type, f32}});
        });
        const std::string ws = errors(wrong_shape, var);
        CHECK(has(ws, "REQUIRE(variable_tensor.shape == shape)"));
        CHECK(has(ws, "REQUIRE(!var_tensor.seen): variable 'v' is declared twice"));
        Graph bad_init = build([](G& b) {
            b.op_n(OpKind::VARIABLE, {}, {},
                   {{AttrName::name, std::string("v")}, {AttrName::var_shape, is({2})}, {AttrName::type, f32},
                    {AttrName::initial_value, ConstPtr(ConstData::allocate(T(f32, {3})))}});
        });
        CHECK(has(errors(bad_init, var), "REQUIRE(var_shape == shape)"));
        Graph read16 = build([](G& b) {
            b.op_n(OpKind::VARIABLE, {}, {}, {{AttrName::name, std::string("v")}, {AttrName::var_shape, is({2})}, {AttrName::type, f32}});
            b.out(b.op_n(OpKind::VARIABLE_READ, {}, {T(DType::fp16, {2})}, {{AttrName::name, std::string("v")}}).outputs[0]);
        });
        CHECK(has(errors(read16, var), "REQUIRE(is_same<variable_tensor.type,out_t>())"));
        Graph i8var = build([](G& b) {
            b.op_n(OpKind::VARIABLE, {}, {}, {{AttrName::name, std::string("v")}, {AttrName::var_shape, is({2})}, {AttrName::type, DType::i8}});
        });
        CHECK(has(errors(i8var, var), "needs EXT-VARIABLE and PRO-INT"));
        CHECK(has(errors(i8var, opts(Profile::pro_int)), "needs EXT-VARIABLE and PRO-INT"));
        CHECK(errors(i8var, opts(Profile::pro_int, {"EXT-VARIABLE"})) == "");
    }
    CASE_GROUP(control_flow_variable_cases, "validator: control flow and variables")

    void type_table_cases() {
        auto add = [](DType t) {
            return build([&](G& b) { b.out(b.op(OpKind::ADD, {b.in(t, {2}), b.in(t, {2})}, T(t, {2}))); });
        };
        CHECK(errors(add(DType::i32), opts(Profile::pro_int)) == "");
        CHECK(errors(add(DType::i32), opts(Profile::pro_fp)) == "");
        CHECK(has(errors(add(DType::bf16)), "Supported Data Types of ADD (2.5.1): in_out_t=bf16_t needs EXT-BF16"));
        CHECK(errors(add(DType::bf16), opts(Profile::pro_fp, {"EXT-BF16"})) == "");
        CHECK(has(errors(add(f32), opts(Profile::pro_int)), "in_out_t=fp32_t needs PRO-FP"));
        CHECK(has(errors(add(DType::i8)), "no row has in_out_t=i8_t"));
        // Arguments of one type variable must agree.
        Graph mixed = build([](G& b) { b.out(b.op(OpKind::ADD, {b.in(f32, {2}), b.in(DType::fp16, {2})}, T(f32, {2}))); });
        CHECK(has(errors(mixed), "input1 is fp32_t but input2 is fp16_t"));
        // CONV2D: i8 at PRO-INT only, i16 x i8 with EXT-INT16, accumulators from the table.
        auto conv_t = [](DType in_t, DType w_t, DType out_t, AccType acc) {
            return build([&](G& b) {
                ValueId x = b.in(in_t, {1, 3, 3, 1});
                b.out(b.op(OpKind::CONV2D, {x, b.cst(w_t, {2, 1, 1, 1}), b.cst(out_t, {2}), b.zp(in_t), b.zp(w_t)}, T(out_t, {1, 3, 3, 2}),
                           conv_attrs({0, 0, 0, 0}, {1, 1}, {1, 1}, acc)));
            });
        };
        CHECK(errors(conv_t(DType::i8, DType::i8, DType::i32, AccType::INT32), opts(Profile::pro_int)) == "");
        CHECK(has(errors(conv_t(DType::i8, DType::i8, DType::i32, AccType::INT32)), "needs PRO-INT"));
        CHECK(has(errors(conv_t(DType::i16, DType::i8, DType::i48, AccType::INT48), opts(Profile::pro_int)), "needs EXT-INT16"));
        CHECK(errors(conv_t(DType::i16, DType::i8, DType::i48, AccType::INT48), opts(Profile::pro_int, {"EXT-INT16"})) == "");
        CHECK(errors(conv_t(DType::fp16, DType::fp16, DType::fp16, AccType::FP32)) == "");
        CHECK(has(errors(conv_t(f32, f32, f32, AccType::FP16)), "no row has in_t=fp32_t, weight_t=fp32_t, out_t=fp32_t, acc_t=fp16_t"));
        // Fixed types: MUL's shift is i8_t; shape operands are shape_t.
        Graph mul16 = build([](G& b) { b.out(b.op(OpKind::MUL, {b.in(f32, {2}), b.in(f32, {2}), b.zp(DType::i16)}, T(f32, {2}))); });
        CHECK(has(errors(mul16), "shift is i8_t (argument table): shift is i16_t"));
        Graph pad_t = build([](G& b) {
            b.out(b.op(OpKind::PAD, {b.in(f32, {2}), b.cst(DType::i32, {2}, {1, 1}), b.zp(f32)}, T(f32, {4})));
        });
        CHECK(has(errors(pad_t), "padding is shape_t (argument table): padding is i32_t"));
        // RESIZE: the mode decides the integer output type.
        auto resize8 = [](ResizeMode m, DType out) {
            return build([&](G& b) {
                b.out(b.op(OpKind::RESIZE, {b.in(DType::i8, {1, 2, 2, 1}), b.shape({2, 1, 2, 1}), b.shape({0, 0}), b.shape({0, 0})},
                           T(out, {1, 3, 3, 1}), {{AttrName::mode, m}}));
            });
        };
        CHECK(errors(resize8(ResizeMode::BILINEAR, DType::i32), opts(Profile::pro_int)) == "");
        CHECK(errors(resize8(ResizeMode::NEAREST_NEIGHBOR, DType::i8), opts(Profile::pro_int)) == "");
        CHECK(has(errors(resize8(ResizeMode::NEAREST_NEIGHBOR, DType::i32), opts(Profile::pro_int)),
                  "no row has mode=NEAREST_NEIGHBOR, in_t=i8_t, out_t=i32_t"));
        // CAST pairs.
        auto cast = [](DType a, DType o) { return build([&](G& b) { b.out(b.op(OpKind::CAST, {b.in(a, {2})}, T(o, {2}))); }); };
        CHECK(errors(cast(DType::i8, DType::bool_), opts(Profile::pro_int)) == "");
        CHECK(has(errors(cast(DType::i8, DType::bool_)), "needs PRO-INT"));
        CHECK(has(errors(cast(f32, DType::bool_)), "no row has in_t=fp32_t, out_t=bool_t"));
        CHECK(has(errors(cast(f32, DType::bf16)), "needs EXT-BF16"));
        // EXT-INT16 adds i16 rows to PRO-INT operators.
        Graph am16 = build([](G& b) {
            b.out(b.op(OpKind::ARGMAX, {b.in(DType::i16, {4})}, T(DType::i32, {}), {{AttrName::axis, i(0)}, {AttrName::nan_mode, NanMode::PROPAGATE}}));
        });
        CHECK(has(errors(am16, opts(Profile::pro_int)), "in_t=i16_t, out_t=i32_t needs EXT-INT16"));
        CHECK(errors(am16, opts(Profile::pro_int, {"EXT-INT16"})) == "");
        check_inference(am16);
        // FFT needs EXT-FFT.
        Graph fft = build([](G& b) { b.op_n(OpKind::RFFT2D, {b.in(f32, {1, 4, 4})}, {T(f32, {1, 4, 3}), T(f32, {1, 4, 3})}); });
        CHECK(has(errors(fft), "needs EXT-FFT"));
        // Options: extensions by name, allowed profiles.
        CHECK(extension_from_string("ext-bf16") == Extension::bf16);
        CHECK(extension_from_string("INT16") == Extension::int16);
        CHECK_FALSE(extension_from_string("EXT-FOO").has_value());
        CHECK(has(errors(add(DType::i32), opts(Profile::pro_int, {"EXT-BF16"})), "EXT-BF16 is not allowed with PRO-INT"));
        // A target with both profiles takes the rows of either.
        ValidateOptions both = opts(Profile::pro_int, {"EXT-BF16"});
        both.also_profiles = {Profile::pro_fp};
        CHECK(errors(add(f32), both) == "");
        CHECK(errors(add(DType::bf16), both) == "");
        CHECK(errors(cast(DType::i8, DType::bool_), both) == "");
        CHECK(has(errors(add(DType::i32), opts(Profile::pro_fp, {"EXT-FOO"})), "unknown TOSA extension 'EXT-FOO'"));
        // Out of the IR's element types: their rows exist but never match.
        CHECK(errors(conv_t(DType::i8, DType::i8, DType::i32, AccType::INT32), opts(Profile::pro_int, {"EXT-INT4"})) == "");
    }
    CASE_GROUP(type_table_cases, "validator: Supported Data Types per profile and extension")

    void level_cases() {
        const ValidateOptions none = opts(Profile::pro_fp, {}, Level::none());
        // A rank-7 tensor: beyond 8K's MAX_RANK of 6, fine at level none.
        Graph r7 = build([](G& b) { b.out(b.op(OpKind::ABS, {b.in(f32, {1, 1, 1, 1, 1, 2, 2})}, T(f32, {1, 1, 1, 1, 1, 2, 2}))); });
        const std::string e7 = errors(r7);
        CHECK(has(e7, "LEVEL_CHECK(rank(shape) <= MAX_RANK)"));
        CHECK(has(e7, "7 exceeds 6 at level 8K"));
        CHECK(has(e7, "ABS (operator 0 of the main graph, from NNEF conv 'y')"));
        CHECK(errors(r7, none) == "");
        Graph r6 = build([](G& b) { b.out(b.op(OpKind::ABS, {b.in(f32, {1, 1, 1, 1, 2, 2})}, T(f32, {1, 1, 1, 1, 2, 2}))); });
        CHECK(errors(r6) == "");
        // Kernels, strides, pads.
        Graph k = pool(OpKind::MAX_POOL2D, {1, 8193, 1, 1}, {1, 1, 1, 1}, {8193, 1}, {1, 1}, {0, 0, 0, 0});
        CHECK(has(errors(k), "LEVEL_CHECK(kernel_y <= MAX_KERNEL): 8193 exceeds 8192 at level 8K"));
        CHECK(errors(k, none) == "");
        Graph s = pool(OpKind::AVG_POOL2D, {1, 1, 8194, 1}, {1, 1, 2, 1}, {1, 1}, {1, 8193}, {0, 0, 0, 0});
        CHECK(has(errors(s), "LEVEL_CHECK(stride_x <= MAX_STRIDE)"));
        CHECK(errors(s, none) == "");
        // dilation_y * KH = 4097 * 2 > 8192: OH = (8200 - 1 - 4097) / 1 + 1 = 4103
        Graph d = conv({1, 8200, 1, 1}, {1, 2, 1, 1}, {1, 4103, 1, 1}, {0, 0, 0, 0}, {1, 1}, {4097, 1});
        CHECK(has(errors(d), "LEVEL_CHECK(dilation_y * KH <= MAX_KERNEL): 8194 exceeds 8192"));
        CHECK(errors(d, none) == "");
        // RESIZE: 300 / 1 > MAX_SCALE 256; OH = (2 - 1) * 300 / 1 + 1 = 301
        Graph rz = resize({1, 2, 2, 1}, {1, 301, 301, 1}, {300, 1, 300, 1}, {0, 0}, {0, 0});
        CHECK(has(errors(rz), "LEVEL_CHECK(scale_y_n/scale_y_d <= MAX_SCALE): 300 exceeds 256"));
        CHECK(errors(rz, none) == "");
        // Tensor lists: 65 inputs of CONCAT.
        Graph cc = build([](G& b) {
            std::vector<ValueId> vs;
            for (int n = 0; n < 65; ++n) vs.push_back(b.in(f32, {1}));
            b.out(b.op(OpKind::CONCAT, vs, T(f32, {65}), {{AttrName::axis, i(0)}}));
        });
        CHECK(has(errors(cc), "LEVEL_CHECK(tensor_list_shape(input1) <= MAX_TENSOR_LIST_SIZE): 65 exceeds 64"));
        CHECK(errors(cc, none) == "");
        Graph cu = build([](G& b) {
            std::vector<TensorType> outs(65, T(f32, {1}));
            b.op_n(OpKind::CUSTOM, {b.in(f32, {1})}, outs,
                   {{AttrName::operator_name, std::string("many")}, {AttrName::domain_name, std::string("x")},
                    {AttrName::implementation_attrs, std::string("")}});
        });
        CHECK(has(errors(cu), "LEVEL_CHECK(tensor_list_shape(output_list) <= MAX_TENSOR_LIST_SIZE): 65 exceeds 64"));
        CHECK(errors(cu, none) == "");
        // MAX_LOG2_SIZE: 2^29 fp32 items are 2^31 bytes, not a tensor_size_t at 8K (31 bits).
        Graph big = build([](G& b) { b.out(b.op(OpKind::ABS, {b.in(f32, {I64(1) << 29})}, T(f32, {I64(1) << 29}))); });
        CHECK(has(errors(big), "below 2^MAX_LOG2_SIZE = 2^31 at level 8K"));
        CHECK(errors(big, none) == "");
        Graph fits = build([](G& b) { b.out(b.op(OpKind::ABS, {b.in(f32, {(I64(1) << 29) - 1})}, T(f32, {(I64(1) << 29) - 1}))); });
        CHECK(errors(fits) == "");
    }
    CASE_GROUP(level_cases, "validator: level limits")

    void ssa_attribute_ctc_cases() {
        // Use before definition.
        Graph use = build([](G& b) {
            ValueId x = b.in(f32, {2});
            ValueId later = b.g.add_value(T(f32, {2}));
            b.op(OpKind::ADD, {x, later}, T(f32, {2}));
            Op op;
            op.kind = OpKind::ABS;
            op.inputs = {x};
            op.outputs = {later};
            b.g.main().ops.push_back(op);
        });
        CHECK(has(errors(use), "operands are defined before use, in the same graph: operand 1 %1 is not defined before this operator"));
        // Defined twice.
        Graph twice = build([](G& b) {
            ValueId x = b.in(f32, {2});
            Op op;
            op.kind = OpKind::ABS;
            op.inputs = {x};
            op.outputs = {x};
            b.g.main().ops.push_back(op);
        });
        CHECK(has(errors(twice), "every value is defined once"));
        // A graph output that is not defined; a shape_t graph output.
        Graph out = build([](G& b) {
            b.in(f32, {2});
            b.out(b.g.add_value(T(f32, {2})));
        });
        CHECK(has(errors(out), "output of the main graph: %1 is not defined in the main graph"));
        Graph shape_out = build([](G& b) { b.out(b.shape({1, 2})); });
        CHECK(has(errors(shape_out), "which a graph may not return (2.2)"));
        // A control-flow graph sees only its own inputs.
        Graph capture = build([](G& b) {
            ValueId c = b.in(DType::bool_, {1});
            ValueId x = b.in(f32, {2});
            const std::uint32_t tb = b.g.add_block("then"), eb = b.g.add_block("else");
            b.cur = tb;
            b.out(b.op(OpKind::IDENTITY, {x}, T(f32, {2})));
            b.cur = eb;
            b.out(b.op(OpKind::IDENTITY, {b.in(f32, {2})}, T(f32, {2})));
            b.cur = 0;
            b.out(b.op(OpKind::COND_IF, {c}, T(f32, {2}), {{AttrName::then_graph, BlockRef{tb}}, {AttrName::else_graph, BlockRef{eb}}}));
        });
        const std::string ce = errors(capture, opts(Profile::pro_fp, {"EXT-CONTROLFLOW"}));
        CHECK(has(ce, "IDENTITY (operator 0 of block ^1 'then'"));
        CHECK(has(ce, "operand 0 %1 is defined in block 'main'"));
        // A block that no operator uses; a block used twice.
        Graph orphan = build([](G& b) {
            b.out(b.op(OpKind::ABS, {b.in(f32, {2})}, T(f32, {2})));
            b.g.add_block("lost");
        });
        CHECK(has(errors(orphan), "block ^1 'lost' is not the graph of any COND_IF / WHILE_LOOP"));
        Graph shared = build([](G& b) {
            ValueId c = b.in(DType::bool_, {1});
            ValueId x = b.in(f32, {2});
            const std::uint32_t tb = b.g.add_block("both");
            b.cur = tb;
            b.out(b.op(OpKind::IDENTITY, {b.in(f32, {2})}, T(f32, {2})));
            b.cur = 0;
            b.out(b.op(OpKind::COND_IF, {c, x}, T(f32, {2}), {{AttrName::then_graph, BlockRef{tb}}, {AttrName::else_graph, BlockRef{tb}}}));
        });
        CHECK(has(errors(shared, opts(Profile::pro_fp, {"EXT-CONTROLFLOW"})), "block ^1 'both' is used more than once"));
        // Operand counts.
        Graph count = build([](G& b) { b.out(b.op(OpKind::ADD, {b.in(f32, {2})}, T(f32, {2}))); });
        CHECK(has(errors(count), "operand count (argument table): 1 operands, the spec has 2"));
        // Attributes: missing, of the wrong kind, unknown, out of i32_t.
        Graph missing = build([](G& b) { b.out(b.op(OpKind::REDUCE_SUM, {b.in(f32, {2})}, T(f32, {1}))); });
        CHECK(has(errors(missing), "missing attribute 'axis' (i32)"));
        Graph kind = build([](G& b) { b.out(b.op(OpKind::REDUCE_SUM, {b.in(f32, {2})}, T(f32, {1}), {{AttrName::axis, 0.0}})); });
        CHECK(has(errors(kind), "attribute 'axis' must be i32"));
        Graph unknown_attr = build([](G& b) {
            b.out(b.op(OpKind::ABS, {b.in(f32, {2})}, T(f32, {2}), {{AttrName::axis, i(0)}}));
        });
        CHECK(has(errors(unknown_attr), "unknown attribute 'axis'"));
        Graph wide = build([](G& b) {
            b.out(b.op(OpKind::REDUCE_SUM, {b.in(f32, {2})}, T(f32, {1}), {{AttrName::axis, i(I64(1) << 40)}}));
        });
        CHECK(has(errors(wide), "attribute type i32_t"));
        Graph int_clamp = build([](G& b) {
            b.out(b.op(OpKind::CLAMP, {b.in(DType::i8, {2})}, T(DType::i8, {2}),
                       {{AttrName::min_val, i(-200)}, {AttrName::max_val, i(3)}, {AttrName::nan_mode, NanMode::PROPAGATE}}));
        });
        CHECK(has(errors(int_clamp, opts(Profile::pro_int)), "[-200, 3] is outside i8"));
        // Zero points and shape operands are compile-time constants unless EXT-DYNAMIC.
        Graph dyn = build([](G& b) {
            ValueId x = b.in(f32, {1, 3, 3, 1});
            ValueId zp = b.in(f32, {1});
            b.out(b.op(OpKind::CONV2D, {x, b.cst(f32, {1, 1, 1, 1}), b.cst(f32, {1}), zp, b.zp(f32)}, T(f32, {1, 3, 3, 1}),
                       conv_attrs({0, 0, 0, 0}, {1, 1}, {1, 1})));
        });
        CHECK(has(errors(dyn), "Compile Time Constant Status: input_zp is a CTC input (2.1): input_zp is a graph input, not of CONST"));
        CHECK(errors(dyn, opts(Profile::pro_fp, {"EXT-DYNAMIC"})) == "");
        // Every operator with a problem is reported, each once.
        Graph two = build([](G& b) {
            ValueId x = b.in(f32, {2, 3});
            ValueId y = b.op(OpKind::ABS, {x}, T(f32, {3, 2}));
            b.out(b.op(OpKind::REDUCE_SUM, {y}, T(f32, {3, 1}), {{AttrName::axis, i(2)}}));
        });
        Diagnostics d2;
        CHECK_FALSE(validate(two, opts(), d2));
        REQUIRE(d2.size() == 2);
        CHECK(has(d2.list()[0].message, "ABS (operator 0"));
        CHECK(has(d2.list()[1].message, "REDUCE_SUM (operator 1"));
        CHECK(has(d2.list()[1].message, "ERROR_IF(axis < 0 || axis >= rank(shape1))"));
        // Inputs of shape_t are not allowed (2.2).
        Graph shape_in = build([](G& b) {
            ValueId s = b.in(DType::shape, {2});
            b.out(b.op(OpKind::RESHAPE, {b.in(f32, {2, 3}), s}, T(f32, {3, 2})));
        });
        CHECK(has(errors(shape_in), "the inputs of a graph may not be shape_t (2.2)"));
        // Extents are at least 1 (tensor_size).
        Graph zero = build([](G& b) { b.out(b.op(OpKind::ABS, {b.in(f32, {2, 0})}, T(f32, {2, 0}))); });
        CHECK(has(errors(zero), "REQUIRE(1 <= shape[i]) (tensor_size, 4.4.1)"));
    }
    CASE_GROUP(ssa_attribute_ctc_cases, "validator: SSA form, operands, attributes, compile-time constants")

    void message_cases() {
        Graph g = conv({1, 5, 5, 3}, {4, 3, 3, 3}, {1, 4, 4, 4}, {0, 0, 0, 0}, {1, 1}, {1, 1});
        g.origins[0].provenance.chain = g.origins[0].provenance.chain.called(CallSite{"my_fragment", SourceRange{1, 30, 40}});
        Diagnostics d;
        CHECK_FALSE(validate(g, opts(), d));
        REQUIRE(d.size() == 1);
        const Diagnostic& x = d.list()[0];
        CHECK(x.stage == Stage::tosa);
        CHECK(x.code == "tosa-error-if");
        CHECK(x.range.file == 1);
        CHECK(x.range.begin == 10);
        CHECK(x.range.end == 20);
        REQUIRE(x.notes.size() == 1);
        CHECK(x.notes[0].message == "in expansion of 'my_fragment'");
        // The CONV2D follows the CONSTs of its weight, bias and two zero points: operator 4.
        CHECK(has(x.message, "CONV2D (operator 4 of the main graph, from NNEF conv 'y'): ERROR_IF(OH != idiv_check("));
        CHECK(has(x.message, "output is fp32[1,4,4,4], the rule gives 3 for dimension 1"));
    }
    CASE_GROUP(message_cases, "validator: messages carry the operator, the rule and the NNEF source range")

    void corrupted_graph_cases() {
        std::mt19937 rng(12345);
        auto pick = [&](std::size_t n) { return static_cast<std::size_t>(rng() % std::max<std::size_t>(n, 1)); };
        const std::vector<Attr> odd = {Attr(I64(5)), Attr(I64(-3)), Attr(std::vector<I64>{}), Attr(std::vector<I64>{0, -1, 70000}),
                                       Attr(2.5), Attr(true), Attr(std::string("x")), Attr(DType::i8), Attr(BlockRef{7}),
                                       Attr(BlockRef{0}), Attr(AccType::INT48), Attr(ConstPtr(ConstData::allocate(T(DType::i32, {2}))))};
        std::size_t reported = 0, runs = 0;
        for (const ValidCase& vc : valid_cases()) {
            for (int trial = 0; trial < 60; ++trial) {
                G b;
                vc.build(b);
                Graph& g = b.g;
                for (int m = 0, n = 1 + static_cast<int>(pick(3)); m < n; ++m) {
                    Block& block = g.blocks[pick(g.blocks.size())];
                    const std::size_t nv = g.values.size();
                    switch (pick(9)) {
                        case 0:
                            if (!block.ops.empty()) {
                                Op& op = block.ops[pick(block.ops.size())];
                                if (!op.inputs.empty()) op.inputs[pick(op.inputs.size())] = static_cast<ValueId>(pick(nv + 3));
                            }
                            break;
                        case 1: {
                            Shape s(pick(8));
                            for (auto& e : s) e = static_cast<I64>(pick(7)) - 1;
                            g.values[pick(nv)].type.shape = s;
                            break;
                        }
                        case 2: g.values[pick(nv)].type.dtype = static_cast<DType>(pick(10)); break;
                        case 3:
                            if (!block.ops.empty()) {
                                Op& op = block.ops[pick(block.ops.size())];
                                if (!op.attrs.empty()) op.attrs.erase(op.attrs.begin() + static_cast<std::ptrdiff_t>(pick(op.attrs.size())));
                            }
                            break;
                        case 4:
                            if (!block.ops.empty()) {
                                Op& op = block.ops[pick(block.ops.size())];
                                if (!op.attrs.empty()) op.attrs[pick(op.attrs.size())].second = odd[pick(odd.size())];
                            }
                            break;
                        case 5:
                            if (!block.ops.empty()) block.ops[pick(block.ops.size())].inputs.push_back(static_cast<ValueId>(pick(nv)));
                            break;
                        case 6:
                            if (!block.ops.empty() && !block.ops[0].inputs.empty()) block.ops[pick(block.ops.size())].inputs.clear();
                            break;
                        case 7:
                            if (!block.ops.empty()) block.ops[pick(block.ops.size())].outputs.clear();
                            break;
                        default:
                            if (!block.outputs.empty()) block.outputs[pick(block.outputs.size())] = static_cast<ValueId>(pick(nv + 2));
                            else block.inputs.push_back(static_cast<ValueId>(pick(nv + 2)));
                            break;
                    }
                }
                CAPTURE(to_text(g));
                Diagnostics d(50);
                bool ok = true;
                CHECK_NOTHROW(ok = validate(g, opts(vc.profile, vc.extensions), d));
                CHECK(ok == !d.has_errors());
                reported += ok ? 0 : 1;
                ++runs;
                for (const Block& blk : g.blocks)
                    for (const Op& op : blk.ops) {
                        std::string why;
                        std::optional<std::vector<TensorType>> t;
                        CHECK_NOTHROW(t = infer_output_types(g, op, &why));
                        if (!t) CHECK_FALSE(why.empty());
                    }
            }
        }
        // Most mutations break a rule (some are harmless: an attribute replaced by an equal one).
        MESSAGE(reported << " of " << runs << " corrupted graphs were refused");
        CHECK(reported * 10 > runs * 8);
    }
    CASE_GROUP(corrupted_graph_cases, "validator: corrupted graphs get diagnostics, never a crash")

    TEST_CASE("validator: as the verifier of a lowering pipeline") {
        Graph bad = build([](G& b) { b.out(b.op(OpKind::ABS, {b.in(f32, {2})}, T(f32, {3}))); });
        nnef::lowering::Pipeline<Graph> p;
        p.passes.push_back({"noop", "changes nothing", [](Graph&, Diagnostics&) { return true; }});
        p.verify = [](const Graph& g, const std::string& after, Diagnostics& d) {
            return validate_after_pass(g, opts(), after, d);
        };
        nnef::lowering::PassOptions po;
        Diagnostics d;
        CHECK_FALSE(p.run(bad, po, d));
        REQUIRE(d.size() == 1);
        CHECK(has(d.list()[0].message, "ERROR_IF(shape(output) != shape(input))"));
        REQUIRE(d.list()[0].notes.size() == 1);
        CHECK(d.list()[0].notes[0].message == "in the input of the lowering pipeline");
        // A pass that breaks the graph is named.
        Graph good = build([](G& b) { b.out(b.op(OpKind::ABS, {b.in(f32, {2})}, T(f32, {2}))); });
        p.passes.push_back({"break-it", "a wrong result shape", [](Graph& g, Diagnostics&) {
                                g.values[g.main().outputs[0]].type.shape = {3};
                                return true;
                            }});
        Diagnostics d2;
        CHECK_FALSE(p.run(good, po, d2));
        REQUIRE(d2.size() == 1);
        CHECK(d2.list()[0].notes.back().message == "after the lowering pass 'break-it'");
        Diagnostics d3;
        CHECK(validate_after_pass(build([](G& b) { b.out(b.op(OpKind::ABS, {b.in(f32, {2})}, T(f32, {2}))); }), opts(), "x", d3));
        CHECK(d3.empty());
    }

    TEST_CASE("validator: infer_output_types where the spec leaves a choice") {
        G b;
        ValueId x = b.in(f32, {2, 3});
        Op cast;
        cast.kind = OpKind::CAST;
        cast.inputs = {x};
        std::string why;
        CHECK_FALSE(infer_output_types(b.g, cast, &why).has_value());
        CHECK(has(why, "CAST: the element type of output (out_t) is not implied by the operands"));
        // With a result value, its type decides.
        Op& c2 = b.op_n(OpKind::CAST, {x}, {T(DType::i16, {2, 3})});
        auto t = infer_output_types(b.g, c2, &why);
        REQUIRE(t.has_value());
        CHECK(to_string((*t)[0]) == "i16[2,3]");
        // MUL on i8 gives i32 (one row).
        Op mul;
        mul.kind = OpKind::MUL;
        mul.inputs = {b.in(DType::i8, {2, 1}), b.in(DType::i8, {1, 3}), b.zp(DType::i8)};
        t = infer_output_types(b.g, mul, &why);
        REQUIRE(t.has_value());
        CHECK(to_string((*t)[0]) == "i32[2,3]");
        // A RESHAPE whose shape is not a CONST_SHAPE.
        Op rs;
        rs.kind = OpKind::RESHAPE;
        rs.inputs = {x, b.in(DType::shape, {2})};
        CHECK_FALSE(infer_output_types(b.g, rs, &why).has_value());
        CHECK(has(why, "not a CONST_SHAPE"));
        // PAD with padding from a graph input (EXT-DYNAMIC): rank known, extents not.
        Op pd;
        pd.kind = OpKind::PAD;
        pd.inputs = {x, b.in(DType::shape, {4}), b.zp(f32)};
        CHECK_FALSE(infer_output_types(b.g, pd, &why).has_value());
        CHECK(has(why, "PAD: the result shape depends on a shape operand that is not a CONST_SHAPE"));
        // CUSTOM results are implementation defined.
        Op custom;
        custom.kind = OpKind::CUSTOM;
        custom.inputs = {x};
        custom.attrs = {{AttrName::operator_name, std::string("a")}, {AttrName::domain_name, std::string("b")},
                        {AttrName::implementation_attrs, std::string("")}};
        CHECK_FALSE(infer_output_types(b.g, custom, &why).has_value());
        CHECK(has(why, "implementation defined"));
        // Errors say why.
        Op bad;
        bad.kind = OpKind::ADD;
        bad.inputs = {x, b.in(f32, {3, 2})};
        CHECK_FALSE(infer_output_types(b.g, bad, &why).has_value());
        CHECK(has(why, "ADD: ERROR_IF(shape2[i] != 1 && shape2[i] != shape[i])"));
    }

    TEST_CASE("validator: a ResNet-50-sized graph validates without reading a weight") {
        // 53 pairs of 1x1 convolutions (256 -> per -> 256 channels) with 25.5M fp32 weights in
        // constants (one 51 MB buffer that both convolutions of a pair view), each with its bias,
        // zero points and a CLAMP, and every fourth pair an ADD: about 600 operators. The weights'
        // buffer is memory that cannot be read (PROT_NONE): the validator's cost does not depend on
        // the weights (validator.hpp), and reading one would crash the test. The time it takes is
        // measured by bench/tosa_validate_bench.cpp.
        constexpr I64 total = 25'500'000;
        constexpr I64 per = total / 53 / 512;
        constexpr std::size_t bytes = std::size_t(per * 256 * 53) * sizeof(float);
        void* unreadable = ::mmap(nullptr, bytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        REQUIRE(unreadable != MAP_FAILED);
        const std::shared_ptr<const float> storage(static_cast<const float*>(unreadable),
                                                   [](const float* p) { ::munmap(const_cast<float*>(p), bytes); });
        G b;
        ValueId x = b.in(f32, {1, 56, 56, 256});
        I64 offset = 0, weights = 0;
        ValueId skip = x;
        for (int layer = 0; layer < 53; ++layer) {
            const float* items = storage.get() + offset;
            offset += per * 256;
            ValueId w1 = b.g.add_const(0, ConstData::view(T(f32, {per, 1, 1, 256}), storage, items), b.origin);
            ValueId w2 = b.g.add_const(0, ConstData::view(T(f32, {256, 1, 1, per}), storage, items), b.origin);
            weights += 2 * per * 256;
            ValueId y = b.op(OpKind::CONV2D, {x, w1, b.cst(f32, {per}), b.zp(f32), b.zp(f32)}, T(f32, {1, 56, 56, per}),
                             conv_attrs({0, 0, 0, 0}, {1, 1}, {1, 1}));
            ValueId z = b.op(OpKind::CONV2D, {y, w2, b.cst(f32, {256}), b.zp(f32), b.zp(f32)}, T(f32, {1, 56, 56, 256}),
                             conv_attrs({0, 0, 0, 0}, {1, 1}, {1, 1}));
            z = b.op(OpKind::CLAMP, {z}, T(f32, {1, 56, 56, 256}),
                     {{AttrName::min_val, 0.0}, {AttrName::max_val, 6.0}, {AttrName::nan_mode, NanMode::PROPAGATE}});
            if (layer % 4 == 3) {
                z = b.op(OpKind::ADD, {z, skip}, T(f32, {1, 56, 56, 256}));
                skip = z;
            }
            x = z;
        }
        b.out(x);
        CHECK(weights > 25'000'000);
        CHECK(errors(b.g) == "");
        CHECK(b.g.op_count() > 300);
        // and the same graph with one wrong result shape (the last CLAMP's) is refused
        G bad = b;
        bad.g.values[bad.g.blocks[0].outputs[0]].type.shape[1] = 55;
        CHECK(errors(bad.g) != "");
    }
    TEST_CASE("validator: the graphs that MLIR 22's TOSA validator accepts (tests/unit/mlir) are valid") {
        const Graph fp = nnef_test::fp32_zoo(), in = nnef_test::int_zoo(), ext = nnef_test::extension_zoo();
        CHECK(errors(fp) == "");
        CHECK(errors(in, opts(Profile::pro_int)) == "");
        CHECK(errors(ext, opts(Profile::pro_fp, {"EXT-CONTROLFLOW", "EXT-VARIABLE", "EXT-FFT"})) == "");
        check_inference(fp);
        check_inference(in);
        check_inference(ext);
        // What MLIR refuses (tests/unit/mlir/mlir_emit_test.cpp), this refuses too: the integer
        // graph at PRO-FP, the extensions' graph without them.
        CHECK(errors(in, opts(Profile::pro_fp)) != "");
        CHECK(has(errors(ext), "needs EXT-CONTROLFLOW"));
    }
}
