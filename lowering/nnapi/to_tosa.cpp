// NNAPI 1.0 model -> TOSA IR (to_tosa.hpp): the lowering's state and builders, and the float32
// operations (to_tosa_lowering.hpp; the quantized ones are in to_tosa_quant.cpp).
#include "lowering/nnapi/to_tosa.hpp"

#include <algorithm>
#include <cstring>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include <nnef/diagnostics.hpp>

#include "lowering/nnapi/op_rules.hpp"
#include "lowering/nnapi/to_tosa_lowering.hpp"
#include "lowering/tosa/from_nnef/context.hpp"
#include "lowering/tosa/scale.hpp"

namespace nnef::nnapi {

namespace {

using namespace detail;  // ToTosa, Attrs, Ints and the tosa names it uses
using tosa::Attr;

constexpr float kInf = std::numeric_limits<float>::infinity();

bool is_lowered_type(OperationType t) {
    switch (t) {
        case OperationType::ADD:
        case OperationType::MUL:
        case OperationType::AVERAGE_POOL_2D:
        case OperationType::MAX_POOL_2D:
        case OperationType::L2_POOL_2D:
        case OperationType::CONV_2D:
        case OperationType::DEPTHWISE_CONV_2D:
        case OperationType::FULLY_CONNECTED:
        case OperationType::CONCATENATION:
        case OperationType::RESHAPE:
        case OperationType::SOFTMAX:
        case OperationType::LOGISTIC:
        case OperationType::TANH:
        case OperationType::RELU:
        case OperationType::RELU1:
        case OperationType::RELU6:
        case OperationType::FLOOR:
        case OperationType::L2_NORMALIZATION:
        case OperationType::DEPTH_TO_SPACE:
        case OperationType::SPACE_TO_DEPTH: return true;
        default: return false;
    }
}

// The padding of one spatial axis in TOSA's form: TOSA requires (in - 1 + pads - (k - 1)) to be a
// multiple of the stride (idiv_check), NNAPI floors. The window positions past the last output's
// window are unused: they are taken off the tail padding first, then off the input (`drop`).
struct Axis {
    std::int64_t pad_head = 0, pad_tail = 0, drop = 0;
};
Axis fit_axis(std::int64_t in, std::int64_t k, std::int64_t stride, std::int64_t pad_head, std::int64_t pad_tail,
              std::int64_t out) {
    Axis a{pad_head, pad_tail, 0};
    std::int64_t extra = (in - 1 + pad_head + pad_tail - (k - 1)) - (out - 1) * stride;
    const std::int64_t from_pad = std::min(std::max<std::int64_t>(extra, 0), pad_tail);
    a.pad_tail -= from_pad;
    extra -= from_pad;
    a.drop = std::max<std::int64_t>(extra, 0);
    return a;
}

}  // namespace

namespace detail {

tosa::DType tosa_dtype_of(OperandType t) {
    switch (t) {
        case OperandType::TENSOR_FLOAT32: return DType::fp32;
        case OperandType::TENSOR_INT32: return DType::i32;
        case OperandType::TENSOR_QUANT8_ASYMM: return DType::i8;
        default: return DType::none;
    }
}

bool ToTosa::run() {
    dims_.resize(m_.operands.size());
    for (std::size_t i = 0; i < m_.operands.size(); ++i) dims_[i] = m_.operands[i].dimensions;
    known_ = constant_values(m_);
    values_.assign(m_.operands.size(), tosa::no_value);
    for (std::size_t k = 0; k < m_.inputIndexes.size(); ++k) {
        const std::uint32_t i = m_.inputIndexes[k];
        const Operand& o = m_.operands[i];
        const auto& d = dims_[i];
        const std::string which = "model input " + std::to_string(k) + " (operand " + std::to_string(i) + ", " + describe(o) + ")";
        if (std::find(d.begin(), d.end(), 0u) != d.end()) {
            diags_.error(Stage::nnapi, "nnapi-to-tosa", which + " has unspecified dimensions; TOSA needs every dimension known [to-tosa]");
            return false;
        }
        if (o.type != OperandType::TENSOR_FLOAT32 && o.type != OperandType::TENSOR_QUANT8_ASYMM) {
            diags_.error(Stage::nnapi, "nnapi-to-tosa", which + " is neither TENSOR_FLOAT32 nor TENSOR_QUANT8_ASYMM [to-tosa]");
            return false;
        }
        const ValueId v = g_.add_value(type_of(i), "operand " + std::to_string(i));
        g_.main().inputs.push_back(v);
        // uint8 codes (as i8 bits) -> i8 codes c - 128
        const bool convert = o.type == OperandType::TENSOR_QUANT8_ASYMM && uint8_io_;
        values_[i] = convert ? rescale(v, 1.0, o.zeroPoint, o.zeroPoint - 128, DType::i8, true) : v;
    }
    for (k_ = 0; k_ < m_.operations.size(); ++k_) {
        const Operation& o = op();
        if (!check_operation(m_, k_, known_, dims_, diags_)) return false;
        origin_ = g_.add_origin(tosa::Origin{to_string(o.type), "operand " + std::to_string(o.outputs[0]), {}});
        if (!tosa_lowers(m_, o))
            return refuse(is_lowered_type(o.type) || quant_lowers(o.type)
                              ? std::string("its operand types are not lowered to TOSA for this operation")
                              : std::string(to_string(o.type)) + " has no TOSA lowering here");
        const bool quant = m_.operands[o.inputs[0]].type == OperandType::TENSOR_QUANT8_ASYMM;
        if (!(quant ? lower_quant(o) : lower_float(o))) return false;
    }
    for (std::uint32_t i : m_.outputIndexes) {
        ValueId v = values_[i];
        if (v == tosa::no_value) return refuse("model output operand " + std::to_string(i) + " was not computed");
        const Operand& o = m_.operands[i];
        if (o.type == OperandType::TENSOR_QUANT8_ASYMM && uint8_io_)  // i8 codes -> uint8 codes (as i8 bits)
            v = rescale(v, 1.0, o.zeroPoint - 128, o.zeroPoint, DType::i8, false, true);
        if (v == tosa::no_value) return false;
        tosa::from_nnef::add_graph_output(g_, v, "operand " + std::to_string(i));
    }
    return true;
}

bool ToTosa::refuse(const std::string& why) {
    report(diags_, m_, k_, "", "to-tosa", why);
    return false;
}

TensorType ToTosa::type_of(std::uint32_t operand) const {
    TensorType t{tosa_dtype_of(m_.operands[operand].type), {}};
    for (std::uint32_t d : dims_[operand]) t.shape.push_back(std::int64_t(d));
    return t;
}

ValueId ToTosa::add(OpKind kind, std::vector<ValueId> inputs, TensorType out, Attrs attrs) {
    return g_.add_op(0, kind, std::move(inputs), {std::move(out)}, std::move(attrs), origin_).outputs[0];
}

ValueId ToTosa::splat(DType dt, Shape shape, double v) {
    auto data = tosa::ConstData::allocate(TensorType{dt, std::move(shape)});
    const std::int64_t n = data->type.volume();
    if (dt == DType::fp32) std::fill_n(data->mutable_items<float>(), n, float(v));
    else if (dt == DType::i8) std::fill_n(data->mutable_items<std::int8_t>(), n, std::int8_t(std::int64_t(v)));
    else if (dt == DType::i16) std::fill_n(data->mutable_items<std::int16_t>(), n, std::int16_t(std::int64_t(v)));
    else std::fill_n(data->mutable_items<std::int32_t>(), n, std::int32_t(v));
    return g_.add_const(0, std::move(data), origin_);
}

ValueId ToTosa::reshape(ValueId v, const Shape& shape) {
    if (type(v).shape == shape) return v;
    const Shape s = shape;
    return add(OpKind::RESHAPE, {v, g_.add_const_shape(0, s, origin_)}, TensorType{type(v).dtype, s});
}

ValueId ToTosa::transpose(ValueId v, const Ints& perms) {
    Shape s;
    for (std::int64_t p : perms) s.push_back(type(v).shape[std::size_t(p)]);
    return add(OpKind::TRANSPOSE, {v}, TensorType{type(v).dtype, s}, {{AttrName::perms, perms}});
}

// Leading 1 extents up to `rank` (NNAPI broadcasting aligns trailing dimensions).
ValueId ToTosa::extend_rank(ValueId v, std::size_t rank) {
    Shape s = type(v).shape;
    if (s.size() >= rank) return v;
    s.insert(s.begin(), rank - s.size(), 1);
    return reshape(v, s);
}

ValueId ToTosa::clamp(ValueId v, Attr lo, Attr hi) {
    const TensorType t = type(v);
    return add(OpKind::CLAMP, {v}, t, {{AttrName::min_val, lo}, {AttrName::max_val, hi}, {AttrName::nan_mode, NanMode::PROPAGATE}});
}

ValueId ToTosa::rescale(ValueId v, double scale, std::int64_t in_zp, std::int64_t out_zp, DType out, bool input_unsigned,
                        bool output_unsigned) {
    const auto ms = tosa::scale32_multiplier(scale);
    if (!ms) {
        refuse("its rescaling factor " + std::to_string(scale) + " is outside TOSA RESCALE's range");
        return tosa::no_value;
    }
    const DType in_t = type(v).dtype;
    const Shape shape = type(v).shape;
    const ValueId multiplier = splat(DType::i32, {1}, ms->first), shift = splat(DType::i8, {1}, ms->second);
    // a zero point stored in its type (an unsigned i8's 0..255 as its bits)
    const ValueId izp = splat(in_t, {1}, double(in_t == DType::i8 ? std::int8_t(std::uint8_t(in_zp)) : 0));
    const ValueId ozp = splat(out, {1}, double(out == DType::i8 ? std::int8_t(std::uint8_t(out_zp)) : 0));
    return add(OpKind::RESCALE, {v, multiplier, shift, izp, ozp}, TensorType{out, shape},
               {{AttrName::scale32, true},
                {AttrName::rounding_mode, tosa::RoundingMode::SINGLE_ROUND},
                {AttrName::per_channel, false},
                {AttrName::input_unsigned, input_unsigned},
                {AttrName::output_unsigned, output_unsigned}});
}

ValueId ToTosa::value(std::uint32_t operand) {
    if (values_[operand] != tosa::no_value) return values_[operand];
    const Operand& o = m_.operands[operand];
    auto bytes = constant_bytes(m_, o);
    const TensorType t = type_of(operand);
    auto data = tosa::ConstData::allocate(t);
    if (bytes && bytes->size() == data->byte_size()) {
        std::memcpy(data->mutable_items<std::uint8_t>(), bytes->data(), bytes->size());
        if (o.type == OperandType::TENSOR_QUANT8_ASYMM)  // uint8 codes -> i8 codes c - 128
            for (std::size_t i = 0; i < bytes->size(); ++i)
                data->mutable_items<std::int8_t>()[i] = std::int8_t(int((*bytes)[i]) - 128);
    }
    values_[operand] = g_.add_const(0, std::move(data), origin_, "operand " + std::to_string(operand));
    return values_[operand];
}

bool ToTosa::bind(ValueId v, std::size_t p) {
    if (v == tosa::no_value) return false;
    const std::uint32_t o = op().outputs[p];
    if (type(v) != type_of(o))
        return refuse("the lowering computed " + tosa::to_string(type(v)) + " for output " + std::to_string(p) +
                      "; the model's operand is " + tosa::to_string(type_of(o)));
    values_[o] = v;
    return true;
}

bool ToTosa::plan_window(WindowPlan& plan) {
    auto p = window_params(op(), known_);
    if (!p) return refuse("its window scalars are not constants");
    const OperationType t = op().type;
    const bool conv = t == OperationType::CONV_2D || t == OperationType::DEPTHWISE_CONV_2D;
    ValueId x = in(0);
    const Shape xs = type(x).shape;
    const Shape out = type_of(op().outputs[0]).shape;
    std::int64_t kh = p->filter_h, kw = p->filter_w;
    if (conv) {
        kh = dims_[in_operand(1)][1];
        kw = dims_[in_operand(1)][2];
    }
    std::int64_t pt = p->pad_top, pb = p->pad_bottom, pl = p->pad_left, pr = p->pad_right;
    if (p->implicit) {
        auto wy = implicit_window(std::int32_t(xs[1]), std::int32_t(kh), p->stride_h, p->scheme);
        auto wx = implicit_window(std::int32_t(xs[2]), std::int32_t(kw), p->stride_w, p->scheme);
        if (!wy || !wx) return refuse("its implicit padding scheme cannot be resolved");
        pt = wy->pad_head;
        pb = wy->pad_tail;
        pl = wx->pad_head;
        pr = wx->pad_tail;
    }
    const Axis ay = fit_axis(xs[1], kh, p->stride_h, pt, pb, out[1]);
    const Axis ax = fit_axis(xs[2], kw, p->stride_w, pl, pr, out[2]);
    if (ay.drop || ax.drop) {
        const Shape size{xs[0], xs[1] - ay.drop, xs[2] - ax.drop, xs[3]};
        x = add(OpKind::SLICE, {x, g_.add_const_shape(0, {0, 0, 0, 0}, origin_), g_.add_const_shape(0, size, origin_)},
                TensorType{type(x).dtype, size});
    }
    plan.x = x;
    plan.pad = {ay.pad_head, ay.pad_tail, ax.pad_head, ax.pad_tail};
    plan.stride = {p->stride_h, p->stride_w};
    plan.kernel = {kh, kw};
    plan.activation = p->activation;
    if (!conv && (std::max(ay.pad_head, ay.pad_tail) >= kh || std::max(ax.pad_head, ax.pad_tail) >= kw))
        return refuse("its padding is not smaller than the window, which TOSA's pools require");
    return true;
}

// ---- float32 ------------------------------------------------------------------------------------

ValueId ToTosa::activation(ValueId v, std::int32_t code) {
    switch (FusedActivationFunc(code)) {
        case FusedActivationFunc::RELU: return clamp(v, 0.0, double(kInf));
        case FusedActivationFunc::RELU1: return clamp(v, -1.0, 1.0);
        case FusedActivationFunc::RELU6: return clamp(v, 0.0, 6.0);
        default: return v;
    }
}

bool ToTosa::lower_float(const Operation& o) {
    switch (o.type) {
        case OperationType::ADD:
        case OperationType::MUL: return binary(o.type == OperationType::ADD ? OpKind::ADD : OpKind::MUL);
        case OperationType::CONV_2D:
        case OperationType::DEPTHWISE_CONV_2D:
        case OperationType::AVERAGE_POOL_2D:
        case OperationType::MAX_POOL_2D:
        case OperationType::L2_POOL_2D: return window(o.type);
        case OperationType::FULLY_CONNECTED: return fully_connected();
        case OperationType::CONCATENATION: return concatenation();
        case OperationType::RESHAPE: return bind(reshape(in(0), type_of(o.outputs[0]).shape));
        case OperationType::SOFTMAX: return softmax();
        case OperationType::LOGISTIC: return bind(add(OpKind::SIGMOID, {in(0)}, type(in(0))));
        case OperationType::TANH: return bind(add(OpKind::TANH, {in(0)}, type(in(0))));
        case OperationType::FLOOR: return bind(add(OpKind::FLOOR, {in(0)}, type(in(0))));
        case OperationType::RELU: return bind(activation(in(0), std::int32_t(FusedActivationFunc::RELU)));
        case OperationType::RELU1: return bind(activation(in(0), std::int32_t(FusedActivationFunc::RELU1)));
        case OperationType::RELU6: return bind(activation(in(0), std::int32_t(FusedActivationFunc::RELU6)));
        case OperationType::L2_NORMALIZATION: return l2_normalization();
        case OperationType::DEPTH_TO_SPACE:
        case OperationType::SPACE_TO_DEPTH: return space_depth(o.type == OperationType::SPACE_TO_DEPTH);
        default: return refuse(std::string(to_string(o.type)) + " has no TOSA lowering here");
    }
}

bool ToTosa::binary(OpKind kind) {
    ValueId a = in(0), b = in(1);
    const std::size_t r = std::max(type(a).rank(), type(b).rank());
    a = extend_rank(a, r);
    b = extend_rank(b, r);
    std::vector<ValueId> ins{a, b};
    if (kind == OpKind::MUL) ins.push_back(no_shift());
    return bind(activation(add(kind, std::move(ins), type_of(op().outputs[0])), int_scalar(2)));
}

// CONV_2D, DEPTHWISE_CONV_2D and the pools: NHWC on both sides.
bool ToTosa::window(OperationType t) {
    WindowPlan w;
    if (!plan_window(w)) return false;
    const TensorType out = type_of(op().outputs[0]);
    ValueId y;
    if (t == OperationType::CONV_2D || t == OperationType::DEPTHWISE_CONV_2D) {
        ValueId weight = in(1);
        const Attrs attrs{{AttrName::pad, w.pad}, {AttrName::stride, w.stride}, {AttrName::dilation, Ints{1, 1}},
                          {AttrName::acc_type, AccType::FP32}};
        if (t == OperationType::CONV_2D) {
            y = add(OpKind::CONV2D, {w.x, weight, in(2), zp(), zp()}, out, attrs);
        } else {
            // [1, H, W, C*M] holds item (c, m) at c*M + m: TOSA's [H, W, C, M] is the same items.
            const std::int64_t c = type(w.x).shape[3], m = out.shape[3] / c;
            weight = reshape(weight, {w.kernel[0], w.kernel[1], c, m});
            y = add(OpKind::DEPTHWISE_CONV2D, {w.x, weight, in(2), zp(), zp()}, out, attrs);
        }
    } else if (t == OperationType::MAX_POOL_2D) {
        y = add(OpKind::MAX_POOL2D, {w.x}, out,
                {{AttrName::kernel, w.kernel}, {AttrName::stride, w.stride}, {AttrName::pad, w.pad},
                 {AttrName::nan_mode, NanMode::PROPAGATE}});
    } else {
        // L2_POOL_2D: sqrt(mean(x^2)) over the window's input positions.
        const bool l2 = t == OperationType::L2_POOL_2D;
        ValueId x = w.x;
        if (l2) x = add(OpKind::MUL, {x, x, no_shift()}, type(x));
        y = add(OpKind::AVG_POOL2D, {x, zp(), zp()}, out,
                {{AttrName::kernel, w.kernel}, {AttrName::stride, w.stride}, {AttrName::pad, w.pad},
                 {AttrName::acc_type, AccType::FP32}});
        if (l2) y = add(OpKind::POW, {y, splat(DType::fp32, {1, 1, 1, 1}, 0.5)}, out);
    }
    return bind(activation(y, w.activation));
}

// FULLY_CONNECTED: input [batch, input_size] (any rank, flattened), weights [units, input_size]:
// a 1x1 CONV2D of [batch, 1, 1, input_size] with the weights as OHWI [units, 1, 1, input_size].
bool ToTosa::fully_connected() {
    const ValueId x = in(0), w = in(1);
    const std::int64_t units = type(w).shape[0], size = type(w).shape[1];
    const std::int64_t batch = type(x).volume() / size;
    const TensorType out = type_of(op().outputs[0]);
    const ValueId y = add(OpKind::CONV2D, {reshape(x, {batch, 1, 1, size}), reshape(w, {units, 1, 1, size}), in(2), zp(), zp()},
                          TensorType{DType::fp32, {batch, 1, 1, units}},
                          {{AttrName::pad, Ints{0, 0, 0, 0}},
                           {AttrName::stride, Ints{1, 1}},
                           {AttrName::dilation, Ints{1, 1}},
                           {AttrName::acc_type, AccType::FP32}});
    return bind(activation(reshape(y, out.shape), int_scalar(3)));
}

// CONCATENATION (float32 and quant8, whose inputs share the output's scale and zeroPoint).
bool ToTosa::concatenation() {
    const std::size_t n = op().inputs.size() - 1;
    std::vector<ValueId> parts;
    for (std::size_t p = 0; p < n; ++p) parts.push_back(in(p));
    const std::int64_t axis = int_scalar(n);
    return bind(add(OpKind::CONCAT, std::move(parts), type_of(op().outputs[0]), {{AttrName::axis, axis}}));
}

// SOFTMAX over the last axis as the HAL defines it: exp((x - max) * beta) / sum.
bool ToTosa::softmax() {
    const ValueId x = in(0);
    const float beta = float_scalar(1);
    const TensorType t = type(x);
    const std::int64_t axis = std::int64_t(t.rank()) - 1;
    TensorType reduced = t;
    reduced.shape.back() = 1;
    const ValueId max = add(OpKind::REDUCE_MAX, {x}, reduced, {{AttrName::axis, axis}, {AttrName::nan_mode, NanMode::PROPAGATE}});
    ValueId d = add(OpKind::SUB, {x, max}, t);
    if (beta != 1.0f) d = add(OpKind::MUL, {d, splat(DType::fp32, Shape(t.rank(), 1), beta), no_shift()}, t);
    const ValueId e = add(OpKind::EXP, {d}, t);
    const ValueId sum = add(OpKind::REDUCE_SUM, {e}, reduced, {{AttrName::axis, axis}});
    const ValueId inv = add(OpKind::RECIPROCAL, {sum}, reduced);
    return bind(add(OpKind::MUL, {e, inv, no_shift()}, t));
}

// L2_NORMALIZATION over the last axis: x / sqrt(sum(x^2)).
bool ToTosa::l2_normalization() {
    const ValueId x = in(0);
    const TensorType t = type(x);
    TensorType reduced = t;
    reduced.shape.back() = 1;
    const ValueId sq = add(OpKind::MUL, {x, x, no_shift()}, t);
    const ValueId sum = add(OpKind::REDUCE_SUM, {sq}, reduced, {{AttrName::axis, std::int64_t(t.rank()) - 1}});
    return bind(add(OpKind::MUL, {x, add(OpKind::RSQRT, {sum}, reduced), no_shift()}, t));
}

// SPACE_TO_DEPTH: [N, H, W, C] -> [N, H/b, b, W/b, b, C] -> [N, H/b, W/b, b, b, C] -> [N, H/b, W/b, b*b*C];
// DEPTH_TO_SPACE the reverse (depth index (by * b + bx) * C' + c, as the HAL's examples).
bool ToTosa::space_depth(bool to_depth) {
    const ValueId x = in(0);
    const std::int64_t b = int_scalar(1);
    const Shape s = type(x).shape;
    const Shape o = type_of(op().outputs[0]).shape;
    const ValueId y = to_depth ? transpose(reshape(x, {s[0], o[1], b, o[2], b, s[3]}), {0, 1, 3, 2, 4, 5})
                               : transpose(reshape(x, {s[0], s[1], s[2], b, b, o[3]}), {0, 1, 3, 2, 4, 5});
    return bind(reshape(y, o));
}

}  // namespace detail

bool tosa_lowers(const Model& m, const Operation& op) {
    if (op.inputs.empty() || op.inputs[0] >= m.operands.size()) return false;
    const bool quant = m.operands[op.inputs[0]].type == OperandType::TENSOR_QUANT8_ASYMM;
    if (quant ? !ToTosa::quant_lowers(op.type) : !is_lowered_type(op.type)) return false;
    for (const auto& list : {op.inputs, op.outputs})
        for (std::uint32_t i : list) {
            if (i >= m.operands.size()) return false;
            const OperandType t = m.operands[i].type;
            if (!is_tensor(t) || t == OperandType::TENSOR_INT32) continue;  // scalars, shapes, quant8 biases
            if (t != (quant ? OperandType::TENSOR_QUANT8_ASYMM : OperandType::TENSOR_FLOAT32)) return false;
        }
    return true;
}

std::optional<tosa::Graph> to_tosa(const Model& m, Diagnostics& diags, const ToTosaOptions& options) {
    if (!validate(m, diags)) return std::nullopt;
    tosa::Graph g;
    g.name = "nnapi";
    bool quant = false;
    for (const Operand& o : m.operands) quant = quant || o.type == OperandType::TENSOR_QUANT8_ASYMM;
    g.profile = quant ? tosa::Profile::pro_int : tosa::Profile::pro_fp;
    ToTosa l(m, g, diags, options.uint8_io);
    if (!l.run()) return std::nullopt;
    return g;
}

}  // namespace nnef::nnapi
