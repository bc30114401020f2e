// Matrix multiplication (NNEF spec 4.7) and `linear` (4.9.2). matmul becomes TOSA's batched MATMUL
// ([N,H,C] x [N,C,W]); linear becomes a 1x1 CONV2D, whose weight layout OHWI is the NNEF filter
// [O, C] as it is (no transpose) and which adds the bias.
#include <cmath>
#include "lowering/tosa/from_nnef/context.hpp"
#include "lowering/tosa/from_nnef/integer.hpp"

namespace nnef::tosa::from_nnef {

namespace tosa_from_nnef_matmul_cpp {

ValueId transpose_last(Context& c, ValueId v) {
    const std::size_t r = c.rank(v);
    Ints perms;
    for (std::size_t i = 0; i < r; ++i) perms.push_back(std::int64_t(i));
    std::swap(perms[r - 2], perms[r - 1]);
    return c.transpose(v, perms);
}

bool matmul(Context& c) {
    const TensorType out = c.result_type("C");
    return c.bind("C", matmul_value(c, c.input("A"), c.input("B"), c.logical_attr("transposeA"),
                                    c.logical_attr("transposeB"), out.shape));
}

bool linear(Context& c) {
    const ValueId x = c.input("input");
    const ValueId filter = c.input("filter");
    const TensorType out = c.result_type("output");
    const Shape xs = c.shape(x), fs = c.shape(filter);
    if (xs.size() != 2 || fs.size() != 2) return c.refuse("linear needs a rank-2 input and filter");
    const std::int64_t N = xs[0], C = xs[1], O = fs[0];
    ValueId bias;
    if (c.input_is_literal("bias")) {
        const nnef::Value& b = c.argument("bias");
        bias = c.splat(DType::fp32, {1}, b.is_scalar() ? b.as_scalar() : b.is_integer() ? double(b.as_integer()) : 0.0);
    } else {
        const ValueId b = c.input("bias");
        const std::int64_t n = c.type(b).volume();
        if (n != O && n != 1) return c.refuse("the bias must have one item or one per output channel");
        bias = c.reshape(b, {n});
    }
    const ValueId x4 = c.reshape(x, {N, 1, 1, C});
    const ValueId w4 = c.reshape(filter, {O, 1, 1, C});
    const ValueId y = c.add(OpKind::CONV2D, {x4, w4, bias, c.zero_point(DType::fp32), c.zero_point(DType::fp32)},
                            TensorType{DType::fp32, {N, 1, 1, O}},
                            {{AttrName::pad, Ints{0, 0, 0, 0}},
                             {AttrName::stride, Ints{1, 1}},
                             {AttrName::dilation, Ints{1, 1}},
                             {AttrName::acc_type, AccType::FP32}});
    return c.bind("output", c.reshape(y, out.shape));
}

using integer::Act;
using integer::Real;

// matmul: MATMUL of i8 codes with their zero points (a compile-time operand as codes), i32, one
// RESCALE by scale_a * scale_b / scale_c.
bool matmul_integer(integer::Lowering& q) {
    const std::string ids[2] = {q.arg_id("A"), q.arg_id("B")};
    Act ops[2];
    for (int k = 0; k < 2; ++k) {
        if (const Act* a = q.act(ids[k])) ops[k] = *a;
        else if (const Real* r = q.real(ids[k])) ops[k] = q.codes_of(*r);
        else return q.fail("its operands must be activations or compile-time tensors");
        if (ops[k].grid.dtype != DType::i8 || ops[k].grid.frac != 0.0)
            return q.fail("its operand '" + ids[k] + "' is not on an i8 grid with an integer zero point");
    }
    const Tensor& out = q.c.result("C");
    const auto og = q.result_grid(out.name);
    if (!og) return false;
    const double unit = ops[0].grid.scale * ops[1].grid.scale;
    ValueId acc = matmul_value(q.c, ops[0].v, ops[1].v, q.c.logical_attr("transposeA"), q.c.logical_attr("transposeB"),
                               *out.shape, q.c.splat(DType::i8, {1}, double(ops[0].grid.zp)),
                               q.c.splat(DType::i8, {1}, double(ops[1].grid.zp)));
    const double offset = storage::round_half_up(og->frac * og->scale / unit);
    if (offset != 0.0) acc = q.c.binary(OpKind::ADD, acc, q.c.scalar(DType::i32, offset, q.c.rank(acc)));
    Act y{q.clamp_to(q.rescale(acc, 0, unit / og->scale, og->zp, og->dtype), *og), *og};
    return q.set(out.name, y);
}

}  // namespace tosa_from_nnef_matmul_cpp

ValueId matmul_value(Context& c, ValueId a, ValueId b, bool transpose_a, bool transpose_b, const Shape& out_shape,
                     ValueId a_zp, ValueId b_zp) {
    using tosa_from_nnef_matmul_cpp::transpose_last;
    if (transpose_a) a = transpose_last(c, a);
    if (transpose_b) b = transpose_last(c, b);
    const bool integer = a_zp != no_value;
    const DType dt = integer ? DType::i32 : DType::fp32;
    if (!integer) a_zp = b_zp = c.zero_point(DType::fp32);
    const std::size_t r = c.rank(a);
    const Shape as = c.shape(a), bs = c.shape(b);
    const std::int64_t M = as[r - 2], K = as[r - 1], N = bs[r - 1];
    const Shape a_batch(as.begin(), as.end() - 2), b_batch(bs.begin(), bs.end() - 2);
    std::int64_t a_volume = 1, b_volume = 1;
    for (std::int64_t e : a_batch) a_volume *= e;
    for (std::int64_t e : b_batch) b_volume *= e;
    ValueId y;
    if (b_volume == 1) {
        // every batch of A times the one B: the batches of A are rows of one product
        const ValueId a3 = c.reshape(a, {1, a_volume * M, K});
        const ValueId b3 = c.reshape(b, {1, K, N});
        y = c.add(OpKind::MATMUL, {a3, b3, a_zp, b_zp}, TensorType{dt, {1, a_volume * M, N}});
    } else {
        // batch dimensions broadcast by tiling
        const Shape batch = Context::broadcast_shape(a_batch, b_batch);
        std::int64_t volume = 1;
        Ints ta, tb;
        for (std::size_t i = 0; i < batch.size(); ++i) {
            volume *= batch[i];
            ta.push_back(batch[i] / a_batch[i]);
            tb.push_back(batch[i] / b_batch[i]);
        }
        ta.push_back(1), ta.push_back(1), tb.push_back(1), tb.push_back(1);
        const ValueId a3 = c.reshape(c.tile(a, ta), {volume, M, K});
        const ValueId b3 = c.reshape(c.tile(b, tb), {volume, K, N});
        y = c.add(OpKind::MATMUL, {a3, b3, a_zp, b_zp}, TensorType{dt, {volume, M, N}});
    }
    return c.reshape(y, out_shape);
}

void add_matmul(Registry& r) {
    using namespace tosa_from_nnef_matmul_cpp;
    r.push_back({"matmul", "matmul", matmul, {}, matmul_integer});
    r.push_back({"linear", "matmul", linear, {}, [](integer::Lowering& q) { return integer::conv_integer(q, true); }});
}

}  // namespace nnef::tosa::from_nnef
