// NNAPI 1.0 -> TOSA, the TENSOR_QUANT8_ASYMM operations (to_tosa_lowering.hpp): PRO-INT graphs of i8
// codes (the uint8 code minus 128, zeroPoint minus 128). Convolutions and FULLY_CONNECTED
// accumulate in i32 with the input's and the filter's zero points and RESCALE by
// input_scale * filter_scale / output_scale; ADD brings both operands to a common i32 grid (twice the
// larger scale, 20 bits finer, as the 1.0 CPU reference does) before adding; the fused activations
// are CLAMPs at the output codes of their bounds (the reference's activation range). RESCALE rounds
// once (SINGLE_ROUND) where the reference rounds its fixed-point product and its shift separately, so
// results may differ from the reference by one code.
#include <algorithm>
#include <cstdint>

#include "lowering/nnapi/fixed_point.hpp"
#include "lowering/nnapi/to_tosa_lowering.hpp"
#include "lowering/tosa/scale.hpp"

namespace nnef::nnapi::detail {

bool ToTosa::quant_lowers(OperationType t) {
    switch (t) {
        case OperationType::CONV_2D:
        case OperationType::DEPTHWISE_CONV_2D:
        case OperationType::FULLY_CONNECTED:
        case OperationType::AVERAGE_POOL_2D:
        case OperationType::MAX_POOL_2D:
        case OperationType::ADD:
        case OperationType::MUL:
        case OperationType::CONCATENATION:
        case OperationType::RESHAPE:
        case OperationType::RELU:
        case OperationType::RELU1:
        case OperationType::RELU6:
        case OperationType::SPACE_TO_DEPTH:
        case OperationType::DEPTH_TO_SPACE:
        case OperationType::LOGISTIC:
        case OperationType::SOFTMAX: return true;
        default: return false;
    }
}

bool ToTosa::lower_quant(const Operation& o) {
    switch (o.type) {
        case OperationType::CONV_2D:
        case OperationType::DEPTHWISE_CONV_2D:
        case OperationType::FULLY_CONNECTED: return quant_conv(o.type);
        case OperationType::AVERAGE_POOL_2D:
        case OperationType::MAX_POOL_2D: return quant_pool(o.type == OperationType::MAX_POOL_2D);
        case OperationType::ADD: return quant_add();
        case OperationType::MUL: return quant_mul();
        case OperationType::LOGISTIC: return quant_logistic();
        case OperationType::SOFTMAX: return quant_softmax();
        case OperationType::CONCATENATION: {
            // the inputs brought to the output's scale and zeroPoint (the HAL makes them equal)
            const std::size_t n = o.inputs.size() - 1;
            std::vector<ValueId> parts;
            for (std::size_t p = 0; p < n; ++p) parts.push_back(requantize(in(p), in_quant(p), out_quant()));
            for (ValueId v : parts)
                if (v == tosa::no_value) return false;
            return bind(add(OpKind::CONCAT, std::move(parts), type_of(o.outputs[0]),
                            {{AttrName::axis, std::int64_t(int_scalar(n))}}));
        }
        case OperationType::RESHAPE: return bind(requantize(reshape(in(0), type_of(o.outputs[0]).shape), in_quant(0), out_quant()));
        case OperationType::SPACE_TO_DEPTH:
        case OperationType::DEPTH_TO_SPACE: return space_depth(o.type == OperationType::SPACE_TO_DEPTH);
        case OperationType::RELU:
        case OperationType::RELU1:
        case OperationType::RELU6: {
            const FusedActivationFunc f = o.type == OperationType::RELU    ? FusedActivationFunc::RELU
                                          : o.type == OperationType::RELU1 ? FusedActivationFunc::RELU1
                                                                           : FusedActivationFunc::RELU6;
            return bind(quant_activation(requantize(in(0), in_quant(0), out_quant()), std::int32_t(f), out_quant()));
        }
        default: return refuse(std::string(to_string(o.type)) + " has no TOSA lowering here for TENSOR_QUANT8_ASYMM");
    }
}

// The i8 codes of `to` for values in the i8 codes of `from`.
ValueId ToTosa::requantize(ValueId v, const Operand& from, const Operand& to) {
    if (v == tosa::no_value) return v;
    if (from.scale == to.scale && from.zeroPoint == to.zeroPoint) return v;
    return rescale(v, double(from.scale) / double(to.scale), from.zeroPoint - 128, to.zeroPoint - 128, DType::i8);
}

// The fused activation on i8 codes of `out`: a CLAMP at the reference's activation range.
ValueId ToTosa::quant_activation(ValueId v, std::int32_t code, const Operand& out) {
    if (v == tosa::no_value) return v;
    const CodeRange r = activation_range_uint8(code, out.scale, out.zeroPoint);
    const std::int64_t lo = std::int64_t(r.min) - 128, hi = std::int64_t(r.max) - 128;
    if (lo <= -128 && hi >= 127) return v;
    return clamp(v, std::max<std::int64_t>(lo, -128), std::min<std::int64_t>(hi, 127));
}

// CONV_2D, DEPTHWISE_CONV_2D, FULLY_CONNECTED: i32 sums of (x - zx) * (w - zw) plus the bias, then one
// RESCALE to the output's codes.
bool ToTosa::quant_conv(OperationType t) {
    const Operand& xq = in_quant(0);
    const Operand& wq = in_quant(1);
    const Operand& oq = out_quant();
    const TensorType out = type_of(op().outputs[0]);
    ValueId x, w = in(1);
    Attrs attrs{{AttrName::dilation, Ints{1, 1}}, {AttrName::acc_type, AccType::INT32}};
    std::int32_t act = 0;
    Shape acc_shape = out.shape;
    if (t == OperationType::FULLY_CONNECTED) {
        const std::int64_t units = type(w).shape[0], size = type(w).shape[1];
        const std::int64_t batch = type(in(0)).volume() / size;
        x = reshape(in(0), {batch, 1, 1, size});
        w = reshape(w, {units, 1, 1, size});
        attrs.emplace_back(AttrName::pad, Ints{0, 0, 0, 0});
        attrs.emplace_back(AttrName::stride, Ints{1, 1});
        act = int_scalar(3);
        acc_shape = {batch, 1, 1, units};
    } else {
        WindowPlan plan;
        if (!plan_window(plan)) return false;
        if (t == OperationType::DEPTHWISE_CONV_2D) {
            const ValueId sum = quant_window_sum(plan);
            if (sum != tosa::no_value) return bind(quant_activation(sum, plan.activation, oq));
        }
        x = plan.x;
        attrs.emplace_back(AttrName::pad, plan.pad);
        attrs.emplace_back(AttrName::stride, plan.stride);
        act = plan.activation;
        if (t == OperationType::DEPTHWISE_CONV_2D) {
            const std::int64_t c = type(x).shape[3];
            w = reshape(w, {plan.kernel[0], plan.kernel[1], c, out.shape[3] / c});
        }
    }
    const OpKind kind = t == OperationType::DEPTHWISE_CONV_2D ? OpKind::DEPTHWISE_CONV2D : OpKind::CONV2D;
    const ValueId acc = add(kind, {x, w, in(2), zp(DType::i8, xq.zeroPoint - 128), zp(DType::i8, wq.zeroPoint - 128)},
                            TensorType{DType::i32, acc_shape}, attrs);
    const double scale = double(xq.scale) * double(wq.scale) / double(oq.scale);
    ValueId y = rescale(acc, scale, 0, oq.zeroPoint - 128, DType::i8);
    if (y == tosa::no_value) return false;
    return bind(quant_activation(reshape(y, out.shape), act, oq));
}

// A DEPTHWISE_CONV_2D whose one window is its whole input (no padding, a 1x1 output, multiplier 1),
// whose filter holds one code and whose biases are 0 (the export's quantized mean_reduce onto a grid
// of its own): its accumulator is (w - w_zp) times the sum of x - x_zp, so REDUCE_SUM over H and W and
// one RESCALE by (w - w_zp) * input_scale * filter_scale / output_scale give its codes (the
// multiplier rounded to 31 bits once instead of twice: within one code, equal but in rare ties).
// The VPU's NCE takes no depthwise kernel above 11x11, and REDUCE_SUM runs on its SHAVEs, as the
// NNEF lowering's mean_reduce does. no_value (nothing added) when the operation is not of this form.
ValueId ToTosa::quant_window_sum(const WindowPlan& plan) {
    const Shape xs = type(plan.x).shape;
    const Shape out = type_of(op().outputs[0]).shape;
    if (plan.pad != Ints{0, 0, 0, 0} || xs.size() != 4 || plan.kernel != Ints{xs[1], xs[2]} || out != Shape{xs[0], 1, 1, xs[3]})
        return tosa::no_value;
    const Operand& w = in_quant(1);
    const Operand& b = in_quant(2);
    const auto wb = constant_bytes(m_, w), bb = constant_bytes(m_, b);
    if (!wb || !bb || wb->empty() || w.dimensions.size() != 4 || std::int64_t(w.dimensions[3]) != xs[3]) return tosa::no_value;
    for (std::uint8_t c : *wb)
        if (c != (*wb)[0]) return tosa::no_value;
    for (std::uint8_t c : *bb)
        if (c != 0) return tosa::no_value;
    const std::int32_t factor = std::int32_t((*wb)[0]) - w.zeroPoint;
    if (factor <= 0) return tosa::no_value;
    const Operand& xq = in_quant(0);
    const Operand& oq = out_quant();
    const double scale = double(factor) * double(xq.scale) * double(w.scale) / double(oq.scale);
    if (!tosa::scale32_multiplier(scale)) return tosa::no_value;  // the convolution's path reports it
    const ValueId wide = rescale(plan.x, 1.0, xq.zeroPoint - 128, 0, DType::i32);
    if (wide == tosa::no_value) return wide;
    const ValueId rows = add(OpKind::REDUCE_SUM, {wide}, TensorType{DType::i32, {xs[0], 1, xs[2], xs[3]}}, {{AttrName::axis, std::int64_t(1)}});
    const ValueId sum = add(OpKind::REDUCE_SUM, {rows}, TensorType{DType::i32, out}, {{AttrName::axis, std::int64_t(2)}});
    return rescale(sum, scale, 0, oq.zeroPoint - 128, DType::i8);
}

// The pools on the input's codes (AVG_POOL2D's zero points are the input's), then to the output's.
bool ToTosa::quant_pool(bool max) {
    WindowPlan plan;
    if (!plan_window(plan)) return false;
    const Operand& xq = in_quant(0);
    TensorType t = type_of(op().outputs[0]);
    ValueId y;
    if (max) {
        y = add(OpKind::MAX_POOL2D, {plan.x}, t,
                {{AttrName::kernel, plan.kernel}, {AttrName::stride, plan.stride}, {AttrName::pad, plan.pad},
                 {AttrName::nan_mode, NanMode::PROPAGATE}});
    } else {
        const ValueId z = zp(DType::i8, xq.zeroPoint - 128);
        y = add(OpKind::AVG_POOL2D, {plan.x, z, z}, t,
                {{AttrName::kernel, plan.kernel}, {AttrName::stride, plan.stride}, {AttrName::pad, plan.pad},
                 {AttrName::acc_type, AccType::INT32}});
    }
    return bind(quant_activation(requantize(y, xq, out_quant()), plan.activation, out_quant()));
}

// ADD: both operands RESCALEd to i32 on the grid of 2 * max(scale) / 2^20, added, RESCALEd to the output.
bool ToTosa::quant_add() {
    const Operand& aq = in_quant(0);
    const Operand& bq = in_quant(1);
    const Operand& oq = out_quant();
    const double common = 2.0 * std::max(double(aq.scale), double(bq.scale));
    const double fine = double(1 << 20);
    const std::size_t r = std::max(type(in(0)).rank(), type(in(1)).rank());
    const ValueId a = rescale(extend_rank(in(0), r), double(aq.scale) / common * fine, aq.zeroPoint - 128, 0, DType::i32);
    const ValueId b = rescale(extend_rank(in(1), r), double(bq.scale) / common * fine, bq.zeroPoint - 128, 0, DType::i32);
    if (a == tosa::no_value || b == tosa::no_value) return false;
    const TensorType out = type_of(op().outputs[0]);
    const ValueId sum = add(OpKind::ADD, {a, b}, TensorType{DType::i32, out.shape});
    const ValueId y = rescale(sum, common / (fine * double(oq.scale)), 0, oq.zeroPoint - 128, DType::i8);
    return bind(quant_activation(y, int_scalar(2), oq));
}

// MUL: (a - za) * (b - zb) in i32, RESCALEd by scale_a * scale_b / scale_out.
bool ToTosa::quant_mul() {
    const Operand& aq = in_quant(0);
    const Operand& bq = in_quant(1);
    const Operand& oq = out_quant();
    const std::size_t r = std::max(type(in(0)).rank(), type(in(1)).rank());
    const ValueId a = rescale(extend_rank(in(0), r), 1.0, aq.zeroPoint - 128, 0, DType::i32);
    const ValueId b = rescale(extend_rank(in(1), r), 1.0, bq.zeroPoint - 128, 0, DType::i32);
    if (a == tosa::no_value || b == tosa::no_value) return false;
    const TensorType out = type_of(op().outputs[0]);
    const ValueId product = add(OpKind::MUL, {a, b, no_shift()}, TensorType{DType::i32, out.shape});
    const double scale = double(aq.scale) * double(bq.scale) / double(oq.scale);
    return bind(quant_activation(rescale(product, scale, 0, oq.zeroPoint - 128, DType::i8), int_scalar(2), oq));
}

}  // namespace nnef::nnapi::detail
