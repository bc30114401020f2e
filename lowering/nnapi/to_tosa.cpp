// NNAPI 1.0 model -> TOSA IR (to_tosa.hpp): one TOSA expression per NNAPI operation, float32.
#include "lowering/nnapi/to_tosa.hpp"

#include <algorithm>
#include <cstring>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include <nnef/diagnostics.hpp>

#include "lowering/nnapi/op_rules.hpp"
#include "lowering/tosa/from_nnef/context.hpp"

namespace nnef::nnapi {

namespace {

using tosa::AccType;
using tosa::Attr;
using tosa::AttrName;
using tosa::DType;
using tosa::NanMode;
using tosa::OpKind;
using tosa::TensorType;
using tosa::ValueId;
using Ints = std::vector<std::int64_t>;
using Attrs = std::vector<std::pair<AttrName, Attr>>;

constexpr float kInf = std::numeric_limits<float>::infinity();

// The TOSA element type of an NNAPI tensor type lowered here; none otherwise.
DType dtype_of(OperandType t) {
    switch (t) {
        case OperandType::TENSOR_FLOAT32: return DType::fp32;
        case OperandType::TENSOR_INT32: return DType::i32;
        default: return DType::none;
    }
}

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

class Lowering {
public:
    Lowering(const Model& m, tosa::Graph& g, Diagnostics& diags) : m_(m), g_(g), diags_(diags) {}

    bool run() {
        dims_.resize(m_.operands.size());
        for (std::size_t i = 0; i < m_.operands.size(); ++i) dims_[i] = m_.operands[i].dimensions;
        known_ = detail::constant_values(m_);
        values_.assign(m_.operands.size(), tosa::no_value);
        for (std::size_t k = 0; k < m_.inputIndexes.size(); ++k) {
            const std::uint32_t i = m_.inputIndexes[k];
            const auto& d = dims_[i];
            if (std::find(d.begin(), d.end(), 0u) != d.end()) {
                diags_.error(Stage::nnapi, "nnapi-to-tosa",
                             "model input " + std::to_string(k) + " (operand " + std::to_string(i) + ", " +
                                 describe(m_.operands[i]) +
                                 ") has unspecified dimensions; TOSA needs every dimension known [to-tosa]");
                return false;
            }
            if (dtype_of(m_.operands[i].type) != DType::fp32) {
                diags_.error(Stage::nnapi, "nnapi-to-tosa",
                             "model input " + std::to_string(k) + " (operand " + std::to_string(i) + ") is " +
                                 to_string(m_.operands[i].type) + "; only TENSOR_FLOAT32 models are lowered to TOSA [to-tosa]");
                return false;
            }
            values_[i] = g_.add_value(type_of(i), "operand " + std::to_string(i));
            g_.main().inputs.push_back(values_[i]);
        }
        for (k_ = 0; k_ < m_.operations.size(); ++k_) {
            const Operation& op = m_.operations[k_];
            if (!detail::check_operation(m_, k_, known_, dims_, diags_)) return false;
            origin_ = g_.add_origin(tosa::Origin{to_string(op.type), "operand " + std::to_string(op.outputs[0]), {}});
            if (!tosa_lowers(m_, op))
                return refuse(is_lowered_type(op.type)
                                  ? std::string("its operand types are not lowered to TOSA (only TENSOR_FLOAT32 models are)")
                                  : std::string(to_string(op.type)) + " has no TOSA lowering here");
            if (!lower(op)) return false;
        }
        for (std::uint32_t i : m_.outputIndexes) {
            if (values_[i] == tosa::no_value) return refuse("model output operand " + std::to_string(i) + " was not computed");
            tosa::from_nnef::add_graph_output(g_, values_[i], "operand " + std::to_string(i));
        }
        return true;
    }

private:
    const Model& m_;
    tosa::Graph& g_;
    Diagnostics& diags_;
    std::vector<std::vector<std::uint32_t>> dims_;
    detail::KnownValues known_;
    std::vector<ValueId> values_;
    std::size_t k_ = 0;
    std::uint32_t origin_ = tosa::no_origin;

    bool refuse(const std::string& why) {
        detail::report(diags_, m_, k_, "", "to-tosa", why);
        return false;
    }

    const Operation& op() const { return m_.operations[k_]; }
    std::uint32_t in_operand(std::size_t p) const { return op().inputs[p]; }

    TensorType type_of(std::uint32_t operand) const {
        TensorType t{dtype_of(m_.operands[operand].type), {}};
        for (std::uint32_t d : dims_[operand]) t.shape.push_back(std::int64_t(d));
        return t;
    }

    ValueId add(OpKind kind, std::vector<ValueId> inputs, TensorType out, Attrs attrs = {}) {
        return g_.add_op(0, kind, std::move(inputs), {std::move(out)}, std::move(attrs), origin_).outputs[0];
    }
    const TensorType& type(ValueId v) const { return g_.type(v); }

    ValueId splat(DType dt, Shape shape, double v) {
        auto data = tosa::ConstData::allocate(TensorType{dt, std::move(shape)});
        const std::int64_t n = data->type.volume();
        if (dt == DType::fp32) std::fill_n(data->mutable_items<float>(), n, float(v));
        else if (dt == DType::i8) std::fill_n(data->mutable_items<std::int8_t>(), n, std::int8_t(v));
        else std::fill_n(data->mutable_items<std::int32_t>(), n, std::int32_t(v));
        return g_.add_const(0, std::move(data), origin_);
    }
    ValueId zp() { return splat(DType::fp32, {1}, 0.0); }

    ValueId reshape(ValueId v, const Shape& shape) {
        if (type(v).shape == shape) return v;
        return add(OpKind::RESHAPE, {v, g_.add_const_shape(0, shape, origin_)}, TensorType{type(v).dtype, shape});
    }
    ValueId transpose(ValueId v, const Ints& perms) {
        Shape s;
        for (std::int64_t p : perms) s.push_back(type(v).shape[std::size_t(p)]);
        return add(OpKind::TRANSPOSE, {v}, TensorType{type(v).dtype, s}, {{AttrName::perms, perms}});
    }
    // Leading 1 extents up to `rank` (NNAPI broadcasting aligns trailing dimensions).
    ValueId extend_rank(ValueId v, std::size_t rank) {
        Shape s = type(v).shape;
        if (s.size() >= rank) return v;
        s.insert(s.begin(), rank - s.size(), 1);
        return reshape(v, s);
    }

    // The value of a tensor operand: a graph input, an earlier result, or a constant (made once).
    ValueId value(std::uint32_t operand) {
        if (values_[operand] != tosa::no_value) return values_[operand];
        const Operand& o = m_.operands[operand];
        auto bytes = constant_bytes(m_, o);
        const TensorType t = type_of(operand);
        auto data = tosa::ConstData::allocate(t);
        if (bytes && bytes->size() == data->byte_size()) std::memcpy(data->mutable_items<std::uint8_t>(), bytes->data(), bytes->size());
        values_[operand] = g_.add_const(0, std::move(data), origin_, "operand " + std::to_string(operand));
        return values_[operand];
    }
    ValueId in(std::size_t p) { return value(in_operand(p)); }
    std::int32_t int_scalar(std::size_t p) const { return known_.int32(in_operand(p)).value_or(0); }
    float float_scalar(std::size_t p) const { return known_.float32(in_operand(p)).value_or(0.0f); }

    ValueId clamp(ValueId v, double lo, double hi) {
        return add(OpKind::CLAMP, {v}, type(v),
                   {{AttrName::min_val, lo}, {AttrName::max_val, hi}, {AttrName::nan_mode, NanMode::PROPAGATE}});
    }
    ValueId activation(ValueId v, std::int32_t code) {
        switch (FusedActivationFunc(code)) {
            case FusedActivationFunc::RELU: return clamp(v, 0.0, double(kInf));
            case FusedActivationFunc::RELU1: return clamp(v, -1.0, 1.0);
            case FusedActivationFunc::RELU6: return clamp(v, 0.0, 6.0);
            default: return v;
        }
    }

    // Binds the operation's output `p` to v, which must have the output's type.
    bool bind(ValueId v, std::size_t p = 0) {
        const std::uint32_t o = op().outputs[p];
        if (type(v) != type_of(o))
            return refuse("the lowering computed " + tosa::to_string(type(v)) + " for output " + std::to_string(p) +
                          "; the model's operand is " + tosa::to_string(type_of(o)));
        values_[o] = v;
        return true;
    }

    bool lower(const Operation& o) {
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

    bool binary(OpKind kind) {
        ValueId a = in(0), b = in(1);
        const std::size_t r = std::max(type(a).rank(), type(b).rank());
        a = extend_rank(a, r);
        b = extend_rank(b, r);
        std::vector<ValueId> ins{a, b};
        if (kind == OpKind::MUL) ins.push_back(splat(DType::i8, {1}, 0.0));
        const TensorType out = type_of(op().outputs[0]);
        return bind(activation(add(kind, std::move(ins), out), int_scalar(2)));
    }

    // CONV_2D, DEPTHWISE_CONV_2D and the pools: NHWC on both sides.
    bool window(OperationType t) {
        auto p = detail::window_params(op(), known_);
        if (!p) return refuse("its window scalars are not constants");
        const bool conv = t == OperationType::CONV_2D || t == OperationType::DEPTHWISE_CONV_2D;
        ValueId x = in(0);
        const Shape xs = type(x).shape;
        const TensorType out = type_of(op().outputs[0]);
        std::int64_t kh = p->filter_h, kw = p->filter_w;
        if (conv) {
            const auto& fd = dims_[in_operand(1)];
            kh = fd[1];
            kw = fd[2];
        }
        std::int64_t pt = p->pad_top, pb = p->pad_bottom, pl = p->pad_left, pr = p->pad_right;
        if (p->implicit) {
            auto wy = detail::implicit_window(std::int32_t(xs[1]), std::int32_t(kh), p->stride_h, p->scheme);
            auto wx = detail::implicit_window(std::int32_t(xs[2]), std::int32_t(kw), p->stride_w, p->scheme);
            if (!wy || !wx) return refuse("its implicit padding scheme cannot be resolved");
            pt = wy->pad_head;
            pb = wy->pad_tail;
            pl = wx->pad_head;
            pr = wx->pad_tail;
        }
        const Axis ay = fit_axis(xs[1], kh, p->stride_h, pt, pb, out.shape[1]);
        const Axis ax = fit_axis(xs[2], kw, p->stride_w, pl, pr, out.shape[2]);
        if (ay.drop || ax.drop) {
            const Shape size{xs[0], xs[1] - ay.drop, xs[2] - ax.drop, xs[3]};
            x = add(OpKind::SLICE, {x, g_.add_const_shape(0, {0, 0, 0, 0}, origin_), g_.add_const_shape(0, size, origin_)},
                    TensorType{type(x).dtype, size});
        }
        const Ints pad{ay.pad_head, ay.pad_tail, ax.pad_head, ax.pad_tail};
        const Ints stride{p->stride_h, p->stride_w};
        ValueId y;
        if (conv) {
            ValueId w = in(1);
            const Attrs attrs{{AttrName::pad, pad},
                              {AttrName::stride, stride},
                              {AttrName::dilation, Ints{1, 1}},
                              {AttrName::acc_type, AccType::FP32}};
            if (t == OperationType::CONV_2D) {
                y = add(OpKind::CONV2D, {x, w, in(2), zp(), zp()}, out, attrs);
            } else {
                // [1, H, W, C*M] holds item (c, m) at c*M + m: TOSA's [H, W, C, M] is the same items.
                const std::int64_t c = xs[3], m = out.shape[3] / c;
                w = reshape(w, {kh, kw, c, m});
                y = add(OpKind::DEPTHWISE_CONV2D, {x, w, in(2), zp(), zp()}, out, attrs);
            }
        } else {
            if (std::max({ay.pad_head, ay.pad_tail}) >= kh || std::max({ax.pad_head, ax.pad_tail}) >= kw)
                return refuse("its padding is not smaller than the window, which TOSA's pools require");
            const Attrs attrs{{AttrName::kernel, Ints{kh, kw}}, {AttrName::stride, stride}, {AttrName::pad, pad}};
            if (t == OperationType::MAX_POOL_2D) {
                Attrs a = attrs;
                a.emplace_back(AttrName::nan_mode, NanMode::PROPAGATE);
                y = add(OpKind::MAX_POOL2D, {x}, out, a);
            } else {
                Attrs a = attrs;
                a.emplace_back(AttrName::acc_type, AccType::FP32);
                // L2_POOL_2D: sqrt(mean(x^2)) over the window's input positions.
                const bool l2 = t == OperationType::L2_POOL_2D;
                if (l2) x = add(OpKind::MUL, {x, x, splat(DType::i8, {1}, 0.0)}, type(x));
                y = add(OpKind::AVG_POOL2D, {x, zp(), zp()}, out, a);
                if (l2) y = add(OpKind::POW, {y, splat(DType::fp32, {1, 1, 1, 1}, 0.5)}, out);
            }
        }
        return bind(activation(y, p->activation));
    }

    // FULLY_CONNECTED: input [batch, input_size] (any rank, flattened), weights [units, input_size]:
    // a 1x1 CONV2D of [batch, 1, 1, input_size] with the weights as OHWI [units, 1, 1, input_size].
    bool fully_connected() {
        const ValueId x = in(0), w = in(1);
        const std::int64_t units = type(w).shape[0], size = type(w).shape[1];
        const std::int64_t batch = type(x).volume() / size;
        const TensorType out = type_of(op().outputs[0]);
        const ValueId y = add(OpKind::CONV2D,
                              {reshape(x, {batch, 1, 1, size}), reshape(w, {units, 1, 1, size}), in(2), zp(), zp()},
                              TensorType{DType::fp32, {batch, 1, 1, units}},
                              {{AttrName::pad, Ints{0, 0, 0, 0}},
                               {AttrName::stride, Ints{1, 1}},
                               {AttrName::dilation, Ints{1, 1}},
                               {AttrName::acc_type, AccType::FP32}});
        return bind(activation(reshape(y, out.shape), int_scalar(3)));
    }

    bool concatenation() {
        const std::size_t n = op().inputs.size() - 1;
        std::vector<ValueId> parts;
        for (std::size_t p = 0; p < n; ++p) parts.push_back(in(p));
        const std::int64_t axis = int_scalar(n);
        return bind(add(OpKind::CONCAT, std::move(parts), type_of(op().outputs[0]), {{AttrName::axis, axis}}));
    }

    // SOFTMAX over the last axis as the HAL defines it: exp((x - max) * beta) / sum.
    bool softmax() {
        const ValueId x = in(0);
        const float beta = float_scalar(1);
        const TensorType t = type(x);
        const std::int64_t axis = std::int64_t(t.rank()) - 1;
        TensorType reduced = t;
        reduced.shape.back() = 1;
        const ValueId max = add(OpKind::REDUCE_MAX, {x}, reduced, {{AttrName::axis, axis}, {AttrName::nan_mode, NanMode::PROPAGATE}});
        ValueId d = add(OpKind::SUB, {x, max}, t);
        if (beta != 1.0f) d = add(OpKind::MUL, {d, splat(DType::fp32, Shape(t.rank(), 1), beta), splat(DType::i8, {1}, 0.0)}, t);
        const ValueId e = add(OpKind::EXP, {d}, t);
        const ValueId sum = add(OpKind::REDUCE_SUM, {e}, reduced, {{AttrName::axis, axis}});
        const ValueId inv = add(OpKind::RECIPROCAL, {sum}, reduced);
        return bind(add(OpKind::MUL, {e, inv, splat(DType::i8, {1}, 0.0)}, t));
    }

    // L2_NORMALIZATION over the last axis: x / sqrt(sum(x^2)).
    bool l2_normalization() {
        const ValueId x = in(0);
        const TensorType t = type(x);
        TensorType reduced = t;
        reduced.shape.back() = 1;
        const ValueId sq = add(OpKind::MUL, {x, x, splat(DType::i8, {1}, 0.0)}, t);
        const ValueId sum = add(OpKind::REDUCE_SUM, {sq}, reduced, {{AttrName::axis, std::int64_t(t.rank()) - 1}});
        return bind(add(OpKind::MUL, {x, add(OpKind::RSQRT, {sum}, reduced), splat(DType::i8, {1}, 0.0)}, t));
    }

    // SPACE_TO_DEPTH: [N, H, W, C] -> [N, H/b, b, W/b, b, C] -> [N, H/b, W/b, b, b, C] -> [N, H/b, W/b, b*b*C];
    // DEPTH_TO_SPACE the reverse (depth index (by * b + bx) * C' + c, as the HAL's examples).
    bool space_depth(bool to_depth) {
        const ValueId x = in(0);
        const std::int64_t b = int_scalar(1);
        const Shape s = type(x).shape;
        const Shape o = type_of(op().outputs[0]).shape;
        ValueId y;
        if (to_depth)
            y = transpose(reshape(x, {s[0], o[1], b, o[2], b, s[3]}), {0, 1, 3, 2, 4, 5});
        else
            y = transpose(reshape(x, {s[0], s[1], s[2], b, b, o[3]}), {0, 1, 3, 2, 4, 5});
        return bind(reshape(y, o));
    }
};

}  // namespace

bool tosa_lowers(const Model& m, const Operation& op) {
    if (!is_lowered_type(op.type)) return false;
    for (const auto& list : {op.inputs, op.outputs})
        for (std::uint32_t i : list) {
            if (i >= m.operands.size()) return false;
            const OperandType t = m.operands[i].type;
            if (is_tensor(t) && t != OperandType::TENSOR_FLOAT32 &&
                !(op.type == OperationType::RESHAPE && t == OperandType::TENSOR_INT32))
                return false;
        }
    return true;
}

std::optional<tosa::Graph> to_tosa(const Model& m, Diagnostics& diags) {
    if (!validate(m, diags)) return std::nullopt;
    tosa::Graph g;
    g.name = "nnapi";
    g.profile = tosa::Profile::pro_fp;
    Lowering l(m, g, diags);
    if (!l.run()) return std::nullopt;
    return g;
}

}  // namespace nnef::nnapi
