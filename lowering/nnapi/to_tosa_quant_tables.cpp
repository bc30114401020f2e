// NNAPI 1.0 -> TOSA, the quant8 operations that need a function table (to_tosa_lowering.hpp):
// LOGISTIC is one i8 TABLE; SOFTMAX takes x - max on the codes, looks up exp in an i16 TABLE
// (EXT-INT16; 2^14-scaled entries) and divides by the row sum with INTDIV. The other operations
// this file could have held (TANH, L2_POOL_2D, L2_NORMALIZATION, FLOOR) have no TENSOR_QUANT8_ASYMM
// form in HAL 1.0: the validator refuses them before a lowering is asked.
#include <algorithm>
#include <cmath>
#include <cstdint>

#include "lowering/nnapi/to_tosa_lowering.hpp"

namespace nnef::nnapi::detail {

// LOGISTIC: TABLE of the 256 input codes, each entry the output code of the sigmoid of its real
// value computed as the interpreter does (float, rounded to the nearest code, saturated).
bool ToTosa::quant_logistic() {
    const Operand& xq = in_quant(0);
    const Operand& oq = out_quant();
    auto t = tosa::ConstData::allocate(TensorType{DType::i8, {256}});
    for (int i = 0; i < 256; ++i) {  // TOSA's index i is the i8 code i - 128, the uint8 code i
        const float x = float(i - xq.zeroPoint) * xq.scale;
        const float y = 1.0f / (1.0f + std::exp(-x));
        const long code = std::clamp<long>(std::lround(y / oq.scale) + oq.zeroPoint, 0, 255);
        t->mutable_items<std::int8_t>()[i] = std::int8_t(code - 128);
    }
    const ValueId table = g_.add_const(0, std::move(t), origin_);
    return bind(add(OpKind::TABLE, {in(0), table}, type_of(op().outputs[0])));
}

// SOFTMAX over the last axis on the codes (the output's scale is 1/256, its zeroPoint 0: validated):
//   d = x - max(x) in [-255, 0] (i32), as i16 d * 128 (so the TABLE reads entry d + 256 exactly,
//   its 7 fraction bits 0); e = 2^14 * exp(d * scale * beta) from the table (TOSA returns it << 7,
//   RESCALEd back); out = (256 * e + sum / 2) / sum (INTDIV), saturated into the output's codes.
// Each e is within half a unit of 2^14 * exp and the largest is 2^14 exactly, so the code is within
// one of round(256 * softmax) (the interpreter's float result).
bool ToTosa::quant_softmax() {
    const Operand& xq = in_quant(0);
    const Operand& oq = out_quant();
    const float beta = float_scalar(1);
    const TensorType t = type(in(0));
    const std::int64_t axis = std::int64_t(t.rank()) - 1;
    const Shape shape = t.shape;
    Shape reduced = shape;
    reduced.back() = 1;
    const Shape ones(t.rank(), 1);
    const ValueId x = rescale(in(0), 1.0, 0, 0, DType::i32);
    if (x == tosa::no_value) return false;
    const ValueId max = add(OpKind::REDUCE_MAX, {x}, TensorType{DType::i32, reduced},
                            {{AttrName::axis, axis}, {AttrName::nan_mode, NanMode::PROPAGATE}});
    const ValueId d = add(OpKind::SUB, {x, max}, TensorType{DType::i32, shape});
    const ValueId d16 = rescale(d, 128.0, 0, 0, DType::i16);
    if (d16 == tosa::no_value) return false;
    auto table = tosa::ConstData::allocate(TensorType{DType::i16, {513}});
    for (int j = 0; j < 513; ++j) {
        const float e = j >= 256 ? 1.0f : std::exp(float(j - 256) * xq.scale * beta);
        table->mutable_items<std::int16_t>()[j] = std::int16_t(std::lround(e * 16384.0f));
    }
    const ValueId looked = add(OpKind::TABLE, {d16, g_.add_const(0, std::move(table), origin_)}, TensorType{DType::i32, shape});
    const ValueId e = rescale(looked, 1.0 / 128.0, 0, 0, DType::i32);
    if (e == tosa::no_value) return false;
    const ValueId sum = add(OpKind::REDUCE_SUM, {e}, TensorType{DType::i32, reduced}, {{AttrName::axis, axis}});
    const ValueId half = add(OpKind::INTDIV, {sum, splat(DType::i32, ones, 2.0)}, TensorType{DType::i32, reduced});
    const ValueId scaled = add(OpKind::MUL, {e, splat(DType::i32, ones, 1.0 / double(oq.scale)), no_shift()},
                               TensorType{DType::i32, shape});
    const ValueId numerator = add(OpKind::ADD, {scaled, half}, TensorType{DType::i32, shape});
    const ValueId q = add(OpKind::INTDIV, {numerator, sum}, TensorType{DType::i32, shape});
    return bind(rescale(q, 1.0, 0, oq.zeroPoint - 128, DType::i8));
}

}  // namespace nnef::nnapi::detail
