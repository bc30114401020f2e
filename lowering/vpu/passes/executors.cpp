// assign-executors and layout-and-types (lowering/vpu/ir.hpp).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <optional>

#include "lowering/vpu/ir.hpp"

namespace nnef::vpu::ir {

namespace vpu_executors_cpp {

using tosa::AttrName;
using tosa::OpKind;
using tosa::ValueId;

// A constant folded at compile time (CONST, then RESHAPE / TRANSPOSE / IDENTITY of it): as floats
// (FConst), or exactly as integers on the int8 path (IConst: biases, multipliers, zero points).
template <class T>
struct Const {
    std::vector<std::int64_t> shape;
    std::vector<T> items;
};
using FConst = Const<float>;
using IConst = Const<std::int64_t>;

std::optional<FConst> to_const(const tosa::ConstData& c, float) {
    FConst f;
    f.shape = c.type.shape;
    const std::int64_t n = c.type.volume();
    f.items.resize(std::size_t(n));
    for (std::int64_t i = 0; i < n; ++i) {
        float v = 0;
        switch (c.type.dtype) {
            case tosa::DType::fp32: v = c.items<float>()[i]; break;
            case tosa::DType::fp16: v = tosa::fp16_to_fp32(c.items<std::uint16_t>()[i]); break;
            case tosa::DType::bf16: v = tosa::bf16_to_fp32(c.items<std::uint16_t>()[i]); break;
            case tosa::DType::i8: v = float(c.items<std::int8_t>()[i]); break;
            case tosa::DType::i16: v = float(c.items<std::int16_t>()[i]); break;
            case tosa::DType::i32: v = float(c.items<std::int32_t>()[i]); break;
            case tosa::DType::bool_: v = float(c.items<std::uint8_t>()[i]); break;
            default: return std::nullopt;
        }
        f.items[std::size_t(i)] = v;
    }
    return f;
}

std::optional<IConst> to_const(const tosa::ConstData& c, std::int64_t) {
    IConst f;
    f.shape = c.type.shape;
    const std::int64_t n = c.type.volume();
    f.items.resize(std::size_t(n));
    for (std::int64_t i = 0; i < n; ++i) {
        std::int64_t v = 0;
        switch (c.type.dtype) {
            case tosa::DType::i8: v = c.items<std::int8_t>()[i]; break;
            case tosa::DType::i16: v = c.items<std::int16_t>()[i]; break;
            case tosa::DType::i32: v = c.items<std::int32_t>()[i]; break;
            case tosa::DType::bool_: v = c.items<std::uint8_t>()[i]; break;
            default: return std::nullopt;
        }
        f.items[std::size_t(i)] = v;
    }
    return f;
}

template <class T>
Const<T> transpose(const Const<T>& x, const std::vector<std::int64_t>& perms) {
    Const<T> y;
    const std::size_t r = x.shape.size();
    for (std::size_t i = 0; i < r; ++i) y.shape.push_back(x.shape[std::size_t(perms[i])]);
    std::vector<std::int64_t> xs(r, 1);
    for (std::size_t i = r; i-- > 1;) xs[i - 1] = xs[i] * x.shape[i];
    y.items.resize(x.items.size());
    std::vector<std::int64_t> idx(r, 0);
    for (std::size_t o = 0; o < y.items.size(); ++o) {
        std::int64_t src = 0;
        for (std::size_t i = 0; i < r; ++i) src += idx[i] * xs[std::size_t(perms[i])];
        y.items[o] = x.items[std::size_t(src)];
        for (std::size_t i = r; i-- > 0;) {
            if (++idx[i] < y.shape[i]) break;
            idx[i] = 0;
        }
    }
    return y;
}

// The box of `x` from `start` with `shape` (TOSA SLICE).
template <class T>
Const<T> slice(const Const<T>& x, const std::vector<std::int64_t>& start, const std::vector<std::int64_t>& shape) {
    Const<T> y;
    y.shape = shape;
    const std::size_t r = shape.size();
    std::vector<std::int64_t> xs(r, 1);
    for (std::size_t i = r; i-- > 1;) xs[i - 1] = xs[i] * x.shape[i];
    std::int64_t n = 1;
    for (auto d : shape) n *= d;
    y.items.resize(std::size_t(n));
    std::vector<std::int64_t> idx(r, 0);
    for (std::size_t o = 0; o < y.items.size(); ++o) {
        std::int64_t src = 0;
        for (std::size_t i = 0; i < r; ++i) src += (start[i] + idx[i]) * xs[i];
        y.items[o] = x.items[std::size_t(src)];
        for (std::size_t i = r; i-- > 0;) {
            if (++idx[i] < shape[i]) break;
            idx[i] = 0;
        }
    }
    return y;
}

std::vector<std::uint8_t> fp16_bytes(const std::vector<float>& v) {
    std::vector<std::uint8_t> out(v.size() * 2);
    for (std::size_t i = 0; i < v.size(); ++i) {
        const std::uint16_t h = tosa::fp32_to_fp16(v[i]);
        std::memcpy(&out[2 * i], &h, 2);
    }
    return out;
}

struct Builder {
    Module& m;
    const tosa::Graph& g;
    Diagnostics& diags;
    std::vector<std::optional<View>> views;
    std::vector<int> producer_layer;  // value -> layer producing its view (-1: none)
    std::vector<int> uses;
    std::vector<std::vector<std::size_t>> users;  // value -> indices of the main ops reading it
    std::vector<bool> done;                      // main ops already compiled as part of another
    // int8 NCE eltwise: ADD/SUB op index -> the RESCALEs of its two operands and of its result
    struct EltwisePlan {
        const tosa::Op *a = nullptr, *b = nullptr, *out = nullptr;
        const tosa::Op *ta = nullptr, *tb = nullptr;  // a TRANSPOSE of an operand's RESCALE (layouts)
        const IConst* constant = nullptr;  // instead of b: a per-tensor or per-channel constant (the table's bias)
        bool negate = false;               // SUB of the constant
        std::vector<std::size_t> chain;  // the result's RESHAPEs and RESCALE
    };
    std::map<std::size_t, EltwisePlan> eltwise_plans;
    std::map<ValueId, FConst> consts;
    std::map<ValueId, IConst> iconsts;  // int8 path
    std::vector<tosa::Graph::Producer> producers;
    std::map<std::string, View> state;  // variable name -> its graph input's view

    Builder(Module& m_, Diagnostics& d) : m(m_), g(*m_.graph), diags(d) {}

    const tosa::Op* producer(ValueId v) const {
        const auto& p = producers[v];
        if (p.block != 0) return nullptr;
        return &g.main().ops[p.index];
    }

    const FConst* fconst(ValueId v) { return folded(v, consts); }
    const IConst* iconst(ValueId v) { return folded(v, iconsts); }

    template <class T>
    const Const<T>* folded(ValueId v, std::map<ValueId, Const<T>>& cache) {
        auto it = cache.find(v);
        if (it != cache.end()) return &it->second;
        const tosa::Op* op = producer(v);
        if (!op) return nullptr;
        std::optional<Const<T>> f;
        if (op->kind == OpKind::CONST) {
            const tosa::Attr* a = op->attr(AttrName::values);
            if (a && std::holds_alternative<tosa::ConstPtr>(*a)) f = to_const(*std::get<tosa::ConstPtr>(*a), T{});
        } else if (op->kind == OpKind::RESHAPE || op->kind == OpKind::IDENTITY || op->kind == OpKind::CAST) {
            if (const Const<T>* x = folded(op->inputs[0], cache)) {
                f = *x;
                f->shape = g.type(v).shape;
            }
        } else if (op->kind == OpKind::TRANSPOSE) {
            if (const Const<T>* x = folded(op->inputs[0], cache)) f = transpose(*x, op->get<std::vector<std::int64_t>>(AttrName::perms));
        } else if (op->kind == OpKind::SLICE) {
            const Const<T>* x = folded(op->inputs[0], cache);
            const auto start = const_shape(op->inputs[1]);
            if (x && start) f = slice(*x, *start, g.type(v).shape);
        }
        if (!f) return nullptr;
        return &(cache[v] = std::move(*f));
    }

    // The values of a CONST_SHAPE operand.
    std::optional<std::vector<std::int64_t>> const_shape(ValueId v) const {
        const tosa::Op* sp = producer(v);
        const tosa::Attr* a = sp && sp->kind == OpKind::CONST_SHAPE ? sp->attr(AttrName::values) : nullptr;
        if (!a || !std::holds_alternative<std::vector<std::int64_t>>(*a)) return std::nullopt;
        return std::get<std::vector<std::int64_t>>(*a);
    }

    std::string source_of(const tosa::Op& op) const {
        if (op.origin == tosa::no_origin) return {};
        const tosa::Origin& o = g.origins[op.origin];
        return o.tensor.empty() ? o.operation : o.tensor;
    }

    bool fail(const tosa::Op& op, const std::string& why) {
        SourceRange range;
        std::string from;
        if (op.origin != tosa::no_origin) {
            const tosa::Origin& o = g.origins[op.origin];
            range = o.provenance.range;
            from = " (from NNEF operation '" + o.operation + "'" + (o.tensor.empty() ? "" : " computing '" + o.tensor + "'") + ")";
        }
        diags.error(Stage::vpu, "unsupported-operation",
                    std::string("TOSA ") + tosa::to_string(op.kind) + from + " cannot run on the VPU: " + why, range);
        return false;
    }

    int add_tensor(std::string name, std::int64_t elements, Role role, DataType dt = DataType::fp16) {
        Tensor t;
        t.name = std::move(name);
        t.dtype = dt;
        t.role = role;
        t.bytes = elements * element_size(dt);
        m.tensors.push_back(std::move(t));
        return int(m.tensors.size()) - 1;
    }

    // The buffer type of a TOSA value: fp16 for floats; on the int8 path int8 and int32 as they are.
    std::optional<DataType> data_type(tosa::DType t) const {
        if (tosa::is_float(t)) return DataType::fp16;
        if (!m.int8) return std::nullopt;
        if (t == tosa::DType::i8) return DataType::int8;
        // i16 values (16-bit intermediate grids) are stored widened in int32 buffers: the target has
        // no 16-bit type; every kernel producing one saturates to the i16 range (int_shave)
        if (t == tosa::DType::i32 || t == tosa::DType::i16) return DataType::int32;
        return std::nullopt;
    }
    DataType value_type(ValueId v) const { return data_type(g.type(v).dtype).value_or(DataType::fp16); }
    std::int64_t es(const View& v) const { return element_size(m.tensors[std::size_t(v.tensor)].dtype); }

    View dense_view(int tensor, const std::vector<std::int64_t>& shape) const {
        View v;
        v.tensor = tensor;
        v.shape = shape;
        v.strides = dense_strides(shape, element_size(m.tensors[std::size_t(tensor)].dtype));
        return v;
    }

    // The view of an operand, materializing constants as DDR tensors.
    std::optional<View> view_of(ValueId v) {
        if (views[v]) return views[v];
        if (m.int8 && !tosa::is_float(g.type(v).dtype)) {
            // the int8 path: an integer constant in its own type (int8 codes, int32 biases)
            const IConst* c = iconst(v);
            const auto dt = data_type(g.type(v).dtype);
            if (!c || !dt) return std::nullopt;
            const int t = add_tensor(g.value(v).name.empty() ? "const" + std::to_string(v) : g.value(v).name, std::int64_t(c->items.size()),
                                     Role::constant, *dt);
            auto bytes = std::make_shared<std::vector<std::uint8_t>>(std::size_t(m.tensors[std::size_t(t)].bytes));
            for (std::size_t i = 0; i < c->items.size(); ++i) {
                if (*dt == DataType::int8) (*bytes)[i] = std::uint8_t(std::int8_t(c->items[i]));
                else {
                    const std::int32_t x = std::int32_t(c->items[i]);
                    std::memcpy(bytes->data() + 4 * i, &x, 4);
                }
            }
            m.tensors[std::size_t(t)].data = std::move(bytes);
            views[v] = dense_view(t, g.type(v).shape);
            return views[v];
        }
        if (const FConst* f = fconst(v)) {
            const int t = add_tensor(g.value(v).name.empty() ? "const" + std::to_string(v) : g.value(v).name,
                                     std::int64_t(f->items.size()), Role::constant);
            m.tensors[std::size_t(t)].data = std::make_shared<std::vector<std::uint8_t>>(fp16_bytes(f->items));
            views[v] = dense_view(t, g.type(v).shape);
            return views[v];
        }
        return std::nullopt;
    }

    int add_layer(Layer l, ValueId out, const View& out_view) {
        m.layers.push_back(std::move(l));
        views[out] = out_view;
        producer_layer[out] = int(m.layers.size()) - 1;
        return producer_layer[out];
    }

    // A layer that copies `from` into a new dense tensor (reshape of a strided view, outputs).
    View materialize(const View& from, const std::string& name, Role role, const std::string& source) {
        const int t = add_tensor(name, from.elements(), role, m.tensors[std::size_t(from.tensor)].dtype);
        Layer l;
        l.exec = Exec::copy;
        l.op = "copy";
        l.inputs = {from};
        l.output = dense_view(t, from.shape);
        l.source = source;
        m.layers.push_back(l);
        return l.output;
    }

    // The single NCE layer producing `v` that nothing else reads, or -1.
    int fusable_producer(ValueId v) const {
        const int l = producer_layer[v];
        if (l < 0 || uses[v] != 1) return -1;
        return m.layers[std::size_t(l)].exec == Exec::nce ? l : -1;
    }

    // Channel c's value of a per-tensor (one value) or per-channel constant.
    static std::int64_t at(const IConst& k, std::int64_t c) { return k.items.size() == 1 ? k.items[0] : k.items[std::size_t(c)]; }

    // TRANSPOSE as a view: the dimensions and their strides permuted.
    static View transposed(const View& v, const tosa::Op& transpose) {
        const auto& perms = transpose.get<std::vector<std::int64_t>>(AttrName::perms);
        View r = v;
        for (std::size_t i = 0; i < perms.size(); ++i) {
            r.shape[i] = v.shape[std::size_t(perms[i])];
            r.strides[i] = v.strides[std::size_t(perms[i])];
        }
        return r;
    }

    static View as_nhwc4(const View& v) {
        // [1,H,C] -> [1,H,1,C]
        View r = v;
        r.shape = {v.shape[0], v.shape[1], 1, v.shape[2]};
        r.strides = {v.strides[0], v.strides[1], v.strides[2] * v.shape[2], v.strides[2]};
        return r;
    }

    bool nce_limits(const tosa::Op& op, std::int64_t kh, std::int64_t kw, std::int64_t sh, std::int64_t sw) {
        const Target& t = m.target;
        if (kh > t.nce_max_kernel || kw > t.nce_max_kernel)
            return fail(op, "kernel " + std::to_string(kh) + "x" + std::to_string(kw) + " exceeds the NCE's largest (" +
                                std::to_string(t.nce_max_kernel) + ")");
        if (sh > t.nce_max_stride || sw > t.nce_max_stride)
            return fail(op, "stride exceeds the NCE's largest (" + std::to_string(t.nce_max_stride) + ")");
        return true;
    }

    bool conv(const tosa::Op& op, bool depthwise) {
        const auto x = view_of(op.inputs[0]);
        const FConst* w = fconst(op.inputs[1]);
        const FConst* b = fconst(op.inputs[2]);
        if (m.int8 && !tosa::is_float(g.type(op.outputs[0]).dtype)) return conv_int8(op, depthwise, x, w);
        if (x && !depthwise && (!w || !b)) return conv_on_shave(op, *x);
        if (!x || !w || !b) return fail(op, "the weights and bias must be constants");
        Layer l;
        if (!nce_conv(op, l, *w, *x, depthwise)) return false;
        const std::int64_t O = l.weights_shape[0];
        l.bias.assign(std::size_t(O), 0.0f);
        for (std::int64_t c = 0; c < O; ++c) l.bias[std::size_t(c)] = b->items.size() == 1 ? b->items[0] : b->items[std::size_t(c)];
        const ValueId y = op.outputs[0];
        std::vector<std::int64_t> ys = g.type(y).shape;
        if (!batch_as_rows(op, l, ys)) return false;
        const std::int64_t KH = l.weights_shape[1], KW = l.weights_shape[2], I = l.weights_shape[3];
        const std::int64_t align = m.target.nce_channel_alignment;
        const std::int64_t ki = std::max<std::int64_t>(align, tile_budget(m.target) / 4 / (align * KH * KW * 2) / align * align);
        if (!depthwise && I > ki) return split_k(std::move(l), y, ki, ys);
        const int t = add_tensor(g.value(y).name, g.type(y).volume(), Role::activation);
        l.output = dense_view(t, ys);
        add_layer(std::move(l), y, dense_view(t, g.type(y).shape));
        return true;
    }

    // The NCE layer of a CONV2D (weights [O,KH,KW,I] as they are) or DEPTHWISE_CONV2D (TOSA
    // [KH,KW,C,M] -> [C,KH,KW,1]; only M = 1 runs as dwconv) reading `x`: weights, kernel, stride,
    // dilation, padding, within the NCE's kernel and stride.
    bool nce_conv(const tosa::Op& op, Layer& l, const FConst& w, const View& x, bool depthwise) {
        const auto& pad = op.get<std::vector<std::int64_t>>(AttrName::pad);
        const auto& stride = op.get<std::vector<std::int64_t>>(AttrName::stride);
        const auto& dil = op.get<std::vector<std::int64_t>>(AttrName::dilation);
        l.exec = Exec::nce;
        if (depthwise) {
            const std::int64_t KH = w.shape[0], KW = w.shape[1], C = w.shape[2], M = w.shape[3];
            if (M != 1) return fail(op, "depthwise multiplier " + std::to_string(M) + " (the NCE's dwconv takes 1)");
            l.op = "dwconv";
            l.weights_shape = {C, KH, KW, 1};
            l.weights_f32.resize(std::size_t(C * KH * KW));
            for (std::int64_t c = 0; c < C; ++c)
                for (std::int64_t i = 0; i < KH * KW; ++i) l.weights_f32[std::size_t(c * KH * KW + i)] = w.items[std::size_t(i * C + c)];
        } else {
            l.op = "conv";
            l.weights_shape = w.shape;
            l.weights_f32 = w.items;  // int8 codes are exact as floats
        }
        if (!nce_limits(op, l.weights_shape[1], l.weights_shape[2], stride[0], stride[1])) return false;
        l.nce.kernel = {l.weights_shape[1], l.weights_shape[2]};
        l.nce.stride = {stride[0], stride[1]};
        l.nce.dilation = {dil[0], dil[1]};
        l.nce.pad = {pad[0], pad[1], pad[2], pad[3]};
        l.inputs = {x};
        l.source = source_of(op);
        l.origin = op.origin;
        return true;
    }

    // The NCE works on one image: a 1x1 stride-1 conv (NNEF linear on a batch) takes the batch as
    // rows (the input view and the output shape `ys` folded); other convolutions of a batch are
    // refused.
    bool batch_as_rows(const tosa::Op& op, Layer& l, std::vector<std::int64_t>& ys) {
        if (ys[0] <= 1) return true;
        const auto& pad = op.get<std::vector<std::int64_t>>(AttrName::pad);
        const View& xv = l.inputs[0];
        const bool pointwise = l.nce.kernel[0] == 1 && l.nce.kernel[1] == 1 && l.nce.stride[0] == 1 && l.nce.stride[1] == 1 &&
                               pad == std::vector<std::int64_t>{0, 0, 0, 0};
        if (!pointwise || xv.strides[0] != xv.strides[1] * xv.shape[1])
            return fail(op, "a batch of " + std::to_string(ys[0]) + " (the NCE takes one image; a batch only for 1x1 convolutions)");
        l.inputs[0].shape = {1, xv.shape[0] * xv.shape[1], xv.shape[2], xv.shape[3]};
        l.inputs[0].strides = {xv.strides[0] * xv.shape[0], xv.strides[1], xv.strides[2], xv.strides[3]};
        ys = {1, ys[0] * ys[1], ys[2], ys[3]};
        return true;
    }

    // The int8 path (TOSA PRO-INT): CONV2D / DEPTHWISE_CONV2D i8 -> i32, then (through RESHAPEs of
    // the i32 result) the RESCALE i32 -> i8 that alone reads it, become one NCE task with the
    // requantization in its table (bias, multiplier, shift per output channel) and the zero points
    // in its params. The RESHAPEs and the RESCALE are then done (`done`).
    bool conv_int8(const tosa::Op& op, bool depthwise, const std::optional<View>& x, const FConst* w) {
        const IConst* b = iconst(op.inputs[2]);
        const IConst* izp = iconst(op.inputs[3]);
        const IConst* wzp = iconst(op.inputs[4]);
        if (!x || !w || !b || !izp || !wzp) return fail(op, "the weights, bias and zero points must be constants");
        std::vector<std::size_t> chain;
        std::string why;
        const tosa::Op* rs = requant_of(op.outputs[0], chain, why);
        // the NCE convolves int8 into 8-bit results: an int32 result that no RESCALE to int8 alone
        // reads, or another input type, is the SHAVE kernel of the operator (computed whole: a split
        // would need halo rows; an i16 input is refused there)
        if (!rs || g.type(op.inputs[0]).dtype != tosa::DType::i8) return int_shave(op);
        Layer l;
        if (!nce_conv(op, l, *w, *x, depthwise)) return false;
        const std::int64_t O = l.weights_shape[0];
        const IConst* mult = iconst(rs->inputs[1]);
        const IConst* shift = iconst(rs->inputs[2]);
        const IConst* ozp = iconst(rs->inputs[4]);
        for (std::int64_t c = 0; c < O; ++c) {
            l.q_bias.push_back(at(*b, c));
            l.q_mult.push_back(at(*mult, c));
            l.q_shift.push_back(at(*shift, c));
        }
        l.nce.quantized = true;
        l.nce.input_zp = izp->items[0];
        l.nce.weights_zp = wzp->items[0];
        l.nce.output_zp = ozp->items[0];
        l.nce.double_round = rs->get<tosa::RoundingMode>(AttrName::rounding_mode) == tosa::RoundingMode::DOUBLE_ROUND;
        std::vector<std::int64_t> ys = g.type(op.outputs[0]).shape;
        if (!batch_as_rows(op, l, ys)) return false;
        const std::int64_t KH = l.weights_shape[1], KW = l.weights_shape[2], I = l.weights_shape[3];
        const std::int64_t align = m.target.nce_channel_alignment;
        const std::int64_t ki = std::max<std::int64_t>(align, tile_budget(m.target) / 4 / (align * KH * KW) / align * align);
        if (!depthwise && I > ki)
            return fail(op, std::to_string(I) + " input channels: the weights of " + std::to_string(align) +
                                " output channels exceed a tile, and a split over input channels would need int32 partial sums");
        const ValueId y = rs->outputs[0];
        const int t = add_tensor(g.value(y).name, g.type(y).volume(), Role::activation, DataType::int8);
        l.output = dense_view(t, ys);
        for (std::size_t k : chain) done[k] = true;
        add_layer(std::move(l), y, dense_view(t, g.type(y).shape));
        return true;
    }

    // The int8 eltwise form (docs/vpu.md): ADD/SUB of two i32 values, each the RESCALE i8 -> i32 of
    // an int8 activation that nothing else reads (one multiplier and shift, output zero point 0),
    // whose result only a RESCALE to int8 reads (requant_of), all with the same rounding, on one
    // image in NHWC: one NCE eltwise with a rescale per input and the table's requantization. The
    // operand RESCALEs are done here, the rest when the ADD/SUB comes.
    void plan_eltwise(std::size_t k) {
        const tosa::Op& op = g.main().ops[k];
        if ((op.kind != OpKind::ADD && op.kind != OpKind::SUB) || g.type(op.outputs[0]).dtype != tosa::DType::i32) return;
        const auto& ys = g.type(op.outputs[0]).shape;
        if (ys.empty()) return;
        EltwisePlan plan;
        std::optional<tosa::RoundingMode> rounding;
        auto operand = [&](ValueId v, const tosa::Op*& transpose) -> const tosa::Op* {
            if (g.type(v).shape != ys || uses[v] != 1) return nullptr;
            const tosa::Op* r = producer(v);
            if (r && r->kind == OpKind::TRANSPOSE && uses[r->inputs[0]] == 1) {
                transpose = r;
                r = producer(r->inputs[0]);
            }
            if (!r || r->kind != OpKind::RESCALE || g.type(r->inputs[0]).dtype != tosa::DType::i8) return nullptr;
            const IConst *mult = iconst(r->inputs[1]), *shift = iconst(r->inputs[2]), *izp = iconst(r->inputs[3]), *ozp = iconst(r->inputs[4]);
            if (!mult || !shift || !izp || !ozp || mult->items.size() != 1 || shift->items.size() != 1 || ozp->items[0] != 0) return nullptr;
            if (shift->items[0] < 2 || shift->items[0] > 62 || mult->items[0] < 0) return nullptr;
            if (r->get<bool>(AttrName::input_unsigned) || r->get<bool>(AttrName::output_unsigned) || !r->get<bool>(AttrName::scale32)) return nullptr;
            rounding = r->get<tosa::RoundingMode>(AttrName::rounding_mode);
            return r;
        };
        // a constant operand one per channel (or one): the table's bias, b read with multiplier 0
        auto bias = [&](ValueId v) -> const IConst* {
            const IConst* c = iconst(v);
            if (!c || c->shape.size() != ys.size()) return nullptr;
            for (std::size_t i = 0; i + 1 < ys.size(); ++i)
                if (c->shape[i] != 1) return nullptr;
            return c->shape.back() == 1 || c->shape.back() == ys.back() ? c : nullptr;
        };
        if ((plan.constant = bias(op.inputs[1]))) {
            plan.a = operand(op.inputs[0], plan.ta);
            plan.negate = op.kind == OpKind::SUB;
        } else if (op.kind == OpKind::ADD && (plan.constant = bias(op.inputs[0]))) {
            plan.a = operand(op.inputs[1], plan.ta);
        } else {
            plan.a = operand(op.inputs[0], plan.ta);
            const auto ra = rounding;
            plan.b = operand(op.inputs[1], plan.tb);
            if (!plan.b || ra != rounding || op.inputs[0] == op.inputs[1]) return;
        }
        if (!plan.a) return;
        // the NCE takes rank 4 with one image; another shape needs dense operands (see eltwise_int8)
        if ((ys.size() != 4 || ys[0] != 1) && (plan.ta || plan.tb)) return;
        std::string why;
        plan.out = requant_of(op.outputs[0], plan.chain, why);
        if (!plan.out || plan.out->get<tosa::RoundingMode>(AttrName::rounding_mode) != *rounding) return;
        for (const tosa::Op* r : {plan.a, plan.b, plan.ta, plan.tb})
            if (r) done[producers[r->outputs[0]].index] = true;
        eltwise_plans[k] = std::move(plan);
    }

    bool eltwise_int8(const tosa::Op& op, const EltwisePlan& plan) {
        auto operand = [&](const tosa::Op* r, const tosa::Op* transpose) -> std::optional<View> {
            auto v = view_of(r->inputs[0]);
            if (!v || !transpose) return v;
            return transposed(*v, *transpose);
        };
        auto av = operand(plan.a, plan.ta);
        auto bv = plan.b ? operand(plan.b, plan.tb) : av;  // with a constant: a again, scaled to 0
        if (!av || !bv) return fail(op, "an operand has no memory form");
        const auto& ys = g.type(op.outputs[0]).shape;
        const std::int64_t C = ys.back();
        std::vector<std::int64_t> shape4 = ys;
        if (ys.size() != 4 || ys[0] != 1) {
            // [..., C] dense (copied when it is a strided view) -> [1, rows, 1, C]
            shape4 = {1, g.type(op.outputs[0]).volume() / std::max<std::int64_t>(C, 1), 1, C};
            for (auto* v : {&av, &bv}) {
                if (!(*v)->dense(es(**v))) *v = materialize(**v, g.value(op.outputs[0]).name + ".operand", Role::activation, source_of(op));
                (*v)->shape = shape4;
                (*v)->strides = dense_strides(shape4, es(**v));
            }
        }
        Layer l;
        l.exec = Exec::nce;
        l.op = "eltwise";
        l.nce.eltwise = op.kind == OpKind::ADD || plan.constant ? "add" : "sub";
        l.nce.quantized = true;
        for (int i = 0; i < 2; ++i) {
            const tosa::Op* r = i == 0 ? plan.a : plan.b;
            l.nce.eltwise_inputs[std::size_t(i)] = r ? InputRescale{iconst(r->inputs[1])->items[0], iconst(r->inputs[2])->items[0], iconst(r->inputs[3])->items[0]}
                                                     : InputRescale{0, 30, 0};  // (b - 0) * 0 >> 30 = 0
        }
        const IConst *mult = iconst(plan.out->inputs[1]), *shift = iconst(plan.out->inputs[2]);  // one, or one per channel
        for (std::int64_t c = 0; c < C; ++c) {
            l.q_bias.push_back(plan.constant ? (plan.negate ? -at(*plan.constant, c) : at(*plan.constant, c)) : 0);
            l.q_mult.push_back(at(*mult, c));
            l.q_shift.push_back(at(*shift, c));
        }
        l.nce.output_zp = iconst(plan.out->inputs[4])->items[0];
        l.nce.double_round = plan.out->get<tosa::RoundingMode>(AttrName::rounding_mode) == tosa::RoundingMode::DOUBLE_ROUND;
        l.inputs = {*av, *bv};
        l.source = source_of(op);
        l.origin = op.origin;
        const ValueId y = plan.out->outputs[0];
        const int t = add_tensor(g.value(y).name, g.type(y).volume(), Role::activation, DataType::int8);
        l.output = dense_view(t, shape4);
        for (std::size_t k : plan.chain) done[k] = true;
        add_layer(std::move(l), y, dense_view(t, g.type(y).shape));
        return true;
    }

    // The RESCALE i32 -> i8 that alone reads `v`, through RESHAPEs (their op indices and its own go
    // to `chain`), when the NCE's requantization computes it: constant multiplier and shift (one,
    // or one per channel of the last dimension), input zero point 0, signed, single or double
    // rounding.
    const tosa::Op* requant_of(ValueId v, std::vector<std::size_t>& chain, std::string& why) const {
        const tosa::Block& main = g.main();
        const std::int64_t C = g.type(v).shape.back();
        for (;;) {
            why = "it has " + std::to_string(uses[v]) + " readers";
            if (uses[v] != 1 || users[v].size() != 1) return nullptr;
            const std::size_t k = users[v][0];
            const tosa::Op& u = main.ops[k];
            chain.push_back(k);
            if (u.kind == OpKind::RESHAPE && u.inputs[0] == v) {
                v = u.outputs[0];
                continue;
            }
            why = std::string("its reader is ") + tosa::to_string(u.kind);
            if (u.kind != OpKind::RESCALE || u.inputs[0] != v) return nullptr;
            why = std::string("the RESCALE gives ") + tosa::to_string(g.type(u.outputs[0]).dtype) + ", a type the target's buffers lack";
            if (g.type(u.outputs[0]).dtype != tosa::DType::i8) return nullptr;
            why = "the RESCALE's parameters are not constants the NCE's table takes (constant multiplier and shift, input zero point 0, "
                  "signed, single or double rounding)";
            auto* self = const_cast<Builder*>(this);
            const IConst *mult = self->iconst(u.inputs[1]), *shift = self->iconst(u.inputs[2]), *izp = self->iconst(u.inputs[3]),
                         *ozp = self->iconst(u.inputs[4]);
            if (!mult || !shift || !izp || !ozp || izp->items.empty() || izp->items[0] != 0 || ozp->items.empty()) return nullptr;
            if (u.get<bool>(AttrName::input_unsigned) || u.get<bool>(AttrName::output_unsigned)) return nullptr;
            if (u.get<tosa::RoundingMode>(AttrName::rounding_mode) == tosa::RoundingMode::INEXACT_ROUND) return nullptr;
            for (const IConst* k2 : {mult, shift})
                if (k2->items.size() != 1 && (std::int64_t(k2->items.size()) != C || g.type(v).shape.back() != C)) return nullptr;
            for (std::int64_t s2 : shift->items)
                if (s2 < 2 || s2 > 62) return nullptr;
            for (std::int64_t m2 : mult->items)
                if (m2 < 0) return nullptr;
            return &u;
        }
    }

    // A conv whose weights for even `align` output channels exceed what a tile may hold: split
    // over input channels into chunks of `ki`, each a conv into a partial sum (the bias in the
    // first), added up by NCE eltwise adds.
    bool split_k(Layer l, ValueId y, std::int64_t ki, const std::vector<std::int64_t>& ys) {
        const std::int64_t O = l.weights_shape[0], KH = l.weights_shape[1], KW = l.weights_shape[2], I = l.weights_shape[3];
        View acc;
        for (std::int64_t k0 = 0, j = 0; k0 < I; k0 += ki, ++j) {
            const std::int64_t kn = std::min(ki, I - k0);
            Layer part = l;
            part.inputs[0].offset += k0 * part.inputs[0].strides[3];
            part.inputs[0].shape[3] = kn;
            part.weights_shape = {O, KH, KW, kn};
            part.weights_f32.assign(std::size_t(O * KH * KW * kn), 0.0f);
            for (std::int64_t o = 0; o < O * KH * KW; ++o)
                for (std::int64_t i = 0; i < kn; ++i) part.weights_f32[std::size_t(o * kn + i)] = l.weights_f32[std::size_t(o * I + k0 + i)];
            if (j > 0) part.bias.assign(std::size_t(O), 0.0f);
            part.source = l.source + ".k" + std::to_string(j);
            part.output = dense_view(add_tensor(g.value(y).name + ".k" + std::to_string(j), g.type(y).volume(), Role::activation), ys);
            const View pv = part.output;
            m.layers.push_back(std::move(part));
            if (j == 0) {
                acc = pv;
                continue;
            }
            Layer add;
            add.exec = Exec::nce;
            add.op = "eltwise";
            add.nce.eltwise = "add";
            add.inputs = {acc, pv};
            add.source = l.source;
            add.origin = l.origin;
            const bool last = k0 + kn >= I;
            add.output = dense_view(add_tensor(last ? g.value(y).name : g.value(y).name + ".sum" + std::to_string(j), g.type(y).volume(),
                                               Role::activation),
                                    ys);
            acc = add.output;
            m.layers.push_back(std::move(add));
        }
        views[y] = dense_view(acc.tensor, g.type(y).shape);
        producer_layer[y] = int(m.layers.size()) - 1;
        return true;
    }

    bool pool(const tosa::Op& op) {
        const auto x = view_of(op.inputs[0]);
        if (!x) return fail(op, "no input");
        const auto& k = op.get<std::vector<std::int64_t>>(AttrName::kernel);
        const auto& s = op.get<std::vector<std::int64_t>>(AttrName::stride);
        const auto& p = op.get<std::vector<std::int64_t>>(AttrName::pad);
        const auto& ys = g.type(op.outputs[0]).shape;
        const bool global = k[0] == x->shape[1] && k[1] == x->shape[2] && ys[1] == 1 && ys[2] == 1 && p == std::vector<std::int64_t>{0, 0, 0, 0};
        if (global && (k[0] > m.target.nce_max_kernel || k[1] > m.target.nce_max_kernel)) {
            if (m.int8) return fail(op, "a global pool larger than the NCE's kernel (its SHAVE form is float only)");
            return global_pool(op, *x);
        }
        if (!nce_limits(op, k[0], k[1], s[0], s[1])) return false;
        if (ys[0] > 1) return fail(op, "a batch of " + std::to_string(ys[0]) + " (the NCE takes one image)");
        Layer l;
        l.exec = Exec::nce;
        l.op = op.kind == OpKind::MAX_POOL2D ? "maxpool" : "avgpool";
        if (m.int8 && !tosa::is_float(g.type(op.outputs[0]).dtype)) {
            if (g.type(op.outputs[0]).dtype != tosa::DType::i8)
                return fail(op, std::string("a ") + tosa::to_string(g.type(op.outputs[0]).dtype) + " pool (the NCE pools int8)");
            // int8: the table's identity requantization (multiplier 2^30, shift 30) keeps the
            // pooled codes; AVG_POOL2D's zero points go to the params
            l.nce.quantized = true;
            if (op.kind == OpKind::AVG_POOL2D) {
                const IConst *izp = iconst(op.inputs[1]), *ozp = iconst(op.inputs[2]);
                if (!izp || !ozp) return fail(op, "the zero points must be constants");
                l.nce.input_zp = izp->items[0];
                l.nce.output_zp = ozp->items[0];
            }
        }
        l.nce.kernel = {k[0], k[1]};
        l.nce.stride = {s[0], s[1]};
        l.nce.pad = {p[0], p[1], p[2], p[3]};
        l.inputs = {*x};
        l.source = source_of(op);
        l.origin = op.origin;
        const ValueId y = op.outputs[0];
        l.output = dense_view(add_tensor(g.value(y).name, g.type(y).volume(), Role::activation, value_type(y)), g.type(y).shape);
        const View ov = l.output;
        add_layer(std::move(l), y, ov);
        return true;
    }

    // A SHAVE layer on views; returns its output (a new dense tensor, or the one given).
    View shave_layer(const std::string& kernel, std::vector<View> inputs, const std::vector<std::int64_t>& shape, nlohmann::json attrs,
                     const tosa::Op& op, const std::string& name, DataType dt = DataType::fp16) {
        Layer l;
        l.exec = Exec::shave;
        l.op = kernel;
        l.inputs = std::move(inputs);
        l.attrs = std::move(attrs);
        l.source = source_of(op);
        l.origin = op.origin;
        std::int64_t n = 1;
        for (auto d : shape) n *= d;
        l.output = dense_view(add_tensor(name, n, Role::activation, dt), shape);
        m.layers.push_back(l);
        return l.output;
    }

    // A global pool whose window exceeds the NCE's kernel: reductions over H and W on SHAVE (and
    // the division for the average).
    bool global_pool(const tosa::Op& op, const View& x) {
        const bool avg = op.kind == OpKind::AVG_POOL2D;
        const std::string red = avg ? "reduce_sum" : "reduce_max";
        const ValueId y = op.outputs[0];
        const std::string name = g.value(y).name;
        const std::int64_t H = x.shape[1], W = x.shape[2], C = x.shape[3];
        View v = shave_layer(red, {x}, {1, 1, W, C}, {{"axis", 1}}, op, name + ".rows");
        v = shave_layer(red, {v}, {1, 1, 1, C}, {{"axis", 2}}, op, avg ? name + ".sum" : name);
        if (avg) {
            const int t = add_tensor(name + ".scale", 1, Role::constant);
            m.tensors[std::size_t(t)].data = std::make_shared<std::vector<std::uint8_t>>(fp16_bytes({1.0f / float(H * W)}));
            v = shave_layer("mul", {v, dense_view(t, {1, 1, 1, 1})}, {1, 1, 1, C}, nlohmann::json::object(), op, name);
        }
        views[y] = v;
        producer_layer[y] = int(m.layers.size()) - 1;
        return true;
    }

    // A 1x1 CONV2D (NNEF linear) with computed weights or bias: the NCE takes constant weights
    // only, so, as VPUX does with what the DPU cannot run, it becomes SHAVE kernels: MATMUL
    // x[1, N*H*W, C] x w^T[1, C, O] (the weights box read transposed through its strides), then
    // ADD of the bias broadcast over the rows.
    bool conv_on_shave(const tosa::Op& op, View x) {
        const auto w = view_of(op.inputs[1]), b = view_of(op.inputs[2]);
        if (!w || !b) return fail(op, "the weights or bias have no memory form");
        const auto& pad = op.get<std::vector<std::int64_t>>(AttrName::pad);
        const auto& stride = op.get<std::vector<std::int64_t>>(AttrName::stride);
        if (w->shape[1] != 1 || w->shape[2] != 1 || stride != std::vector<std::int64_t>{1, 1} || pad != std::vector<std::int64_t>{0, 0, 0, 0})
            return fail(op, "computed weights: the NCE needs constant weights, and SHAVE runs a convolution with computed weights only as 1x1, "
                            "stride 1, no padding (a matmul)");
        const ValueId y = op.outputs[0];
        const std::string name = g.value(y).name;
        const auto& ys = g.type(y).shape;
        const std::int64_t M = ys[0] * ys[1] * ys[2], C = x.shape[3], O = ys[3];
        if (!x.dense(2)) x = materialize(x, name + ".input", Role::activation, source_of(op));
        View a = x;
        a.shape = {1, M, C};
        a.strides = dense_strides(a.shape, 2);
        View wt = *w;  // [O,1,1,C] -> [1,C,O]
        wt.shape = {1, C, O};
        wt.strides = {w->strides[0] * O, w->strides[3], w->strides[0]};
        View bias = *b;  // [n] -> [1,1,n]
        const std::int64_t n = b->shape.empty() ? 1 : b->shape.back();
        const std::int64_t bs = b->shape.empty() ? 2 : b->strides.back();
        bias.shape = {1, 1, n};
        bias.strides = {bs * n, bs * n, bs};
        const View mm = shave_layer("matmul", {a, wt}, {1, M, O}, nlohmann::json::object(), op, name + ".matmul");
        const View sum = shave_layer("add", {mm, bias}, {1, M, O}, nlohmann::json::object(), op, name);
        views[y] = dense_view(sum.tensor, ys);
        producer_layer[y] = int(m.layers.size()) - 1;
        return true;
    }

    // Integer MATMUL on SHAVE: an operand whose zero point is not 0 first has it subtracted (SHAVE
    // `sub` into int32, exact), then the SHAVE `matmul` (exact on integers).
    bool matmul_int8(const tosa::Op& op) {
        const ValueId y = op.outputs[0];
        std::vector<View> operands;
        for (int i = 0; i < 2; ++i) {
            const ValueId x = op.inputs[std::size_t(i)];
            const IConst* zp = iconst(op.inputs[std::size_t(2 + i)]);
            auto v = view_of(x);
            if (!zp || zp->items.empty() || !v) return fail(op, "the zero points must be constants");
            if (zp->items[0] != 0) {
                auto z = view_of(op.inputs[std::size_t(2 + i)]);
                if (!z) return fail(op, "the zero point has no memory form");
                z->shape.assign(v->shape.size(), 1);
                z->strides.assign(v->shape.size(), es(*z));
                *v = shave_layer("sub", {*v, *z}, v->shape, nlohmann::json::object(), op,
                                 g.value(y).name + (i == 0 ? ".a" : ".b"), DataType::int32);
            }
            operands.push_back(*v);
        }
        views[y] = shave_layer("matmul", operands, g.type(y).shape, nlohmann::json::object(), op, g.value(y).name, value_type(y));
        producer_layer[y] = int(m.layers.size()) - 1;
        return true;
    }

    bool matmul(const tosa::Op& op) {
        const auto a = view_of(op.inputs[0]);
        const FConst* b = fconst(op.inputs[1]);
        const auto& at = g.type(op.inputs[0]).shape;
        if (m.int8 && !tosa::is_float(g.type(op.outputs[0]).dtype)) return matmul_int8(op);
        if (a && b && at[0] == 1) {
            const std::int64_t H = at[1], C = at[2], W = b->shape[2];
            Layer l;
            l.exec = Exec::nce;
            l.op = "conv";
            l.weights_shape = {W, 1, 1, C};
            l.weights_f32.resize(std::size_t(W * C));
            for (std::int64_t o = 0; o < W; ++o)
                for (std::int64_t i = 0; i < C; ++i) l.weights_f32[std::size_t(o * C + i)] = b->items[std::size_t(i * W + o)];
            l.bias.assign(std::size_t(W), 0.0f);
            l.inputs = {as_nhwc4(*a)};
            l.source = source_of(op);
            l.origin = op.origin;
            const ValueId y = op.outputs[0];
            const int t = add_tensor(g.value(y).name, g.type(y).volume(), Role::activation);
            const View yv = dense_view(t, {1, H, W});
            l.output = as_nhwc4(yv);
            add_layer(std::move(l), y, yv);
            return true;
        }
        return shave(op, "matmul");
    }

    // ADD/SUB/MUL with a per-channel constant after an NCE layer: folded into its bias and scale.
    bool fold_affine(const tosa::Op& op) {
        if (m.int8 || (op.kind != OpKind::ADD && op.kind != OpKind::SUB && op.kind != OpKind::MUL)) return false;
        for (int side = 0; side < 2; ++side) {
            const ValueId x = op.inputs[std::size_t(side)], c = op.inputs[std::size_t(1 - side)];
            if (op.kind == OpKind::SUB && side == 1) continue;  // c - x is not affine in the bias
            const int l = fusable_producer(x);
            if (l < 0) continue;
            Layer& L = m.layers[std::size_t(l)];
            if (L.op != "conv" && L.op != "dwconv") continue;
            if (L.nce.post_op != PostOp::none) continue;
            const FConst* f = fconst(c);
            if (!f) continue;
            const auto& ys = g.type(op.outputs[0]).shape;
            if (ys != g.type(x).shape) continue;
            const std::int64_t C = ys.back();
            bool per_channel = !f->shape.empty() && (f->shape.back() == C || f->shape.back() == 1);
            for (std::size_t i = 0; i + 1 < f->shape.size(); ++i) per_channel = per_channel && f->shape[i] == 1;
            if (f->items.size() == 1) per_channel = true;
            if (!per_channel || L.output.shape.back() != C) continue;
            if (L.weights_f32.empty()) continue;
            if (L.bias.empty()) L.bias.assign(std::size_t(C), 0.0f);
            const std::int64_t per = std::int64_t(L.weights_f32.size()) / C;
            for (std::int64_t ch = 0; ch < C; ++ch) {
                const float k = f->items.size() == 1 ? f->items[0] : f->items[std::size_t(ch)];
                if (op.kind == OpKind::ADD) L.bias[std::size_t(ch)] += k;
                else if (op.kind == OpKind::SUB) L.bias[std::size_t(ch)] -= k;
                else {
                    L.bias[std::size_t(ch)] *= k;
                    for (std::int64_t i = 0; i < per; ++i) L.weights_f32[std::size_t(ch * per + i)] *= k;
                }
            }
            const ValueId y = op.outputs[0];
            views[y] = views[x];
            producer_layer[y] = l;
            m.tensors[std::size_t(L.output.tensor)].name = g.value(y).name;
            return true;
        }
        return false;
    }

    bool eltwise(const tosa::Op& op) {
        if (fold_affine(op)) return true;
        if (m.int8 && !tosa::is_float(g.type(op.outputs[0]).dtype)) {
            const auto it = eltwise_plans.find(std::size_t(&op - g.main().ops.data()));
            return it != eltwise_plans.end() ? eltwise_int8(op, it->second) : int_shave(op);
        }
        const ValueId a = op.inputs[0], b = op.inputs[1], y = op.outputs[0];
        const auto& ys = g.type(y).shape;
        const auto av = view_of(a), bv = view_of(b);
        if (av && bv && g.type(a).shape == ys && g.type(b).shape == ys && ys.size() == 4 && ys[0] == 1 && !fconst(a) && !fconst(b)) {
            Layer l;
            l.exec = Exec::nce;
            l.op = "eltwise";
            l.nce.eltwise = op.kind == OpKind::ADD ? "add" : op.kind == OpKind::SUB ? "sub" : "mul";
            l.inputs = {*av, *bv};
            l.source = source_of(op);
            l.origin = op.origin;
            l.output = dense_view(add_tensor(g.value(y).name, g.type(y).volume(), Role::activation), ys);
            const View ov = l.output;
            add_layer(std::move(l), y, ov);
            return true;
        }
        return shave(op, tosa::op_info(op.kind).mnemonic);
    }

    bool clamp(const tosa::Op& op) {
        const ValueId x = op.inputs[0], y = op.outputs[0];
        if (m.int8 && !tosa::is_float(g.type(y).dtype)) return clamp_int(op);
        const double lo = op.get<double>(AttrName::min_val), hi = op.get<double>(AttrName::max_val);
        const int l = fusable_producer(x);
        if (l >= 0 && m.layers[std::size_t(l)].nce.post_op == PostOp::none) {
            Layer& L = m.layers[std::size_t(l)];
            if (lo == 0.0 && hi >= 65504.0) L.nce.post_op = PostOp::relu;
            else {
                L.nce.post_op = PostOp::clamp;
                L.nce.clamp_min = lo;
                L.nce.clamp_max = hi;
            }
            views[y] = views[x];
            producer_layer[y] = l;
            m.tensors[std::size_t(L.output.tensor)].name = g.value(y).name;
            return true;
        }
        nlohmann::json attrs = {{"min", std::isinf(lo) ? (lo < 0 ? -65504.0 : 65504.0) : lo},
                                {"max", std::isinf(hi) ? (hi < 0 ? -65504.0 : 65504.0) : hi}};
        return shave(op, "clamp", attrs);
    }

    // Integer CLAMP: the post-op (in the output's codes) of the int8 NCE layer that alone produces
    // its operand, else the SHAVE clamp.
    bool clamp_int(const tosa::Op& op) {
        const ValueId x = op.inputs[0], y = op.outputs[0];
        auto bound = [&](AttrName n) -> std::optional<std::int64_t> {
            const tosa::Attr* a = op.attr(n);
            if (const auto* i = a ? std::get_if<std::int64_t>(a) : nullptr) return *i;
            return std::nullopt;
        };
        const auto lo_ = bound(AttrName::min_val), hi_ = bound(AttrName::max_val);
        if (!lo_ || !hi_) return fail(op, "an integer CLAMP without integer bounds");
        const std::int64_t lo = *lo_, hi = *hi_;
        const int l = fusable_producer(x);
        if (l >= 0 && m.layers[std::size_t(l)].nce.post_op == PostOp::none && m.layers[std::size_t(l)].nce.quantized) {
            Layer& L = m.layers[std::size_t(l)];
            L.nce.post_op = PostOp::clamp;
            L.nce.clamp_min = double(lo);
            L.nce.clamp_max = double(hi);
            views[y] = views[x];
            producer_layer[y] = l;
            m.tensors[std::size_t(L.output.tensor)].name = g.value(y).name;
            return true;
        }
        return shave(op, "clamp", {{"min", lo}, {"max", hi}});
    }

    // The int8 path's SHAVE kernels: RESCALE as the native `rescale`, the element-wise and reduction
    // operators the simulator computes exactly on integers by their names, MUL without shift, and
    // any other operator as the TOSA kernel of its mnemonic (computed by the TOSA interpreter),
    // with its attributes and its shape operands as constants.
    bool int_shave(const tosa::Op& op) {
        switch (op.kind) {
            case OpKind::RESCALE: {
                const IConst *mult = iconst(op.inputs[1]), *shift = iconst(op.inputs[2]), *izp = iconst(op.inputs[3]),
                             *ozp = iconst(op.inputs[4]);
                if (!mult || !shift || !izp || !ozp) return fail(op, "the multiplier, shift and zero points must be constants");
                if (op.get<bool>(AttrName::input_unsigned) || op.get<bool>(AttrName::output_unsigned))
                    return fail(op, "unsigned input or output (uint8 has no TOSA type on this path)");
                const auto rm = op.get<tosa::RoundingMode>(AttrName::rounding_mode);
                if (rm == tosa::RoundingMode::INEXACT_ROUND) return fail(op, "INEXACT_ROUND rounding");
                if (rescale_on_nce(op, *mult, *shift, izp->items[0], ozp->items[0], rm == tosa::RoundingMode::DOUBLE_ROUND)) return true;
                auto one_or_many = [](const IConst* k) {
                    return k->items.size() == 1 ? nlohmann::json(k->items[0]) : nlohmann::json(k->items);
                };
                nlohmann::json a = {{"multiplier", one_or_many(mult)},
                                    {"shift", one_or_many(shift)},
                                    {"input_zp", izp->items[0]},
                                    {"output_zp", ozp->items[0]},
                                    {"double_round", rm == tosa::RoundingMode::DOUBLE_ROUND}};
                if (g.type(op.outputs[0]).dtype != tosa::DType::i16) return shave_on(op, "rescale", {op.inputs[0]}, std::move(a));
                // to i16 (held in int32): the rescale, then TOSA's saturation to the i16 range
                auto x = view_of(op.inputs[0]);
                if (!x) return fail(op, "the operand has no memory form");
                const ValueId y = op.outputs[0];
                const auto& ys = g.type(y).shape;
                View r = shave_layer("rescale", {*x}, ys, std::move(a), op, g.value(y).name + ".wide", DataType::int32);
                r = shave_layer("clamp", {r}, ys, {{"min", -32768}, {"max", 32767}}, op, g.value(y).name, DataType::int32);
                views[y] = r;
                producer_layer[y] = int(m.layers.size()) - 1;
                return true;
            }
            case OpKind::MUL: {
                const IConst* sh = iconst(op.inputs[2]);
                if (!sh || sh->items.empty() || sh->items[0] != 0) return fail(op, "an integer MUL with a shift (the SHAVE mul takes none)");
                return shave(op, "mul");
            }
            case OpKind::ADD:
            case OpKind::SUB:
            case OpKind::MAXIMUM:
            case OpKind::MINIMUM:
            case OpKind::SELECT:
            case OpKind::REDUCE_SUM:
            case OpKind::REDUCE_MAX:
            case OpKind::REDUCE_MIN: return shave(op, tosa::op_info(op.kind).mnemonic);
            case OpKind::CAST:
            case OpKind::NEGATE:
            case OpKind::ABS:
            case OpKind::REDUCE_PRODUCT:
                return fail(op, "an integer " + std::string(tosa::op_info(op.kind).mnemonic) +
                                    " (the SHAVE kernel of that name computes the float form)");
            default: break;
        }
        const tosa::OpInfo& info = tosa::op_info(op.kind);
        nlohmann::json attributes = nlohmann::json::object(), constants = nlohmann::json::object();
        for (const auto& [name, value] : op.attrs) {
            const char* key = tosa::to_string(name);
            if (const auto* b = std::get_if<bool>(&value)) attributes[key] = *b;
            else if (const auto* i = std::get_if<std::int64_t>(&value)) attributes[key] = *i;
            else if (const auto* d = std::get_if<double>(&value)) attributes[key] = *d;
            else if (const auto* v = std::get_if<std::vector<std::int64_t>>(&value)) attributes[key] = *v;
            else if (const auto* a = std::get_if<tosa::AccType>(&value)) attributes[key] = tosa::to_string(*a);
            else if (const auto* n = std::get_if<tosa::NanMode>(&value)) attributes[key] = tosa::to_string(*n);
            else if (const auto* r = std::get_if<tosa::RoundingMode>(&value)) attributes[key] = tosa::to_string(*r);
            else if (const auto* z = std::get_if<tosa::ResizeMode>(&value)) attributes[key] = tosa::to_string(*z);
            else return fail(op, std::string("attribute '") + key + "' has no SHAVE kernel form on the int8 path");
        }
        // the TOSA kernel takes its operands' types from the buffers: an i16 value (held in int32)
        // would be read as i32
        for (ValueId v : op.inputs)
            if (g.type(v).dtype == tosa::DType::i16)
                return fail(op, "an i16 operand (held in int32 buffers; the TOSA kernel " + std::string(info.mnemonic) + " would read i32)");
        if (g.type(op.outputs[0]).dtype == tosa::DType::i16)
            return fail(op, "an i16 result (held in int32 buffers; the TOSA kernel " + std::string(info.mnemonic) + " would not saturate it)");
        std::vector<ValueId> reads;
        for (std::size_t i = 0; i < op.inputs.size(); ++i) {
            const ValueId v = op.inputs[i];
            if (g.type(v).dtype == tosa::DType::shape) {
                const auto sh = const_shape(v);
                if (!sh || i >= info.inputs.size()) return fail(op, "a shape operand that is not a constant");
                constants[info.inputs[i]] = {{"dtype", "shape"}, {"shape", {std::int64_t(sh->size())}}, {"values", *sh}};
            } else {
                reads.push_back(v);
            }
        }
        nlohmann::json params = nlohmann::json::object();
        if (!attributes.empty()) params["attributes"] = std::move(attributes);
        if (!constants.empty()) params["constants"] = std::move(constants);
        return shave_on(op, info.mnemonic, reads, std::move(params));
    }

    // RESCALE i8 -> i8 (a requantization between two grids: relu's, concat's) on the NCE, as VPUX
    // runs its requantizations: a 1x1 `maxpool` with the input zero point computes in - input_zp,
    // and the table's requantization with the RESCALE's multiplier and shift (per tensor or per
    // channel), bias 0, plus the output zero point and saturation is exactly TOSA's RESCALE. The
    // operand: rank 4 with one image, or dense (then [1, rows, 1, C]).
    bool rescale_on_nce(const tosa::Op& op, const IConst& mult, const IConst& shift, std::int64_t izp, std::int64_t ozp, bool double_round) {
        const ValueId x = op.inputs[0], y = op.outputs[0];
        if (g.type(x).dtype != tosa::DType::i8 || g.type(y).dtype != tosa::DType::i8) return false;
        const auto& xs = g.type(x).shape;
        if (xs.empty()) return false;
        const std::int64_t C = xs.back();
        if ((mult.items.size() != 1 && std::int64_t(mult.items.size()) != C) || (shift.items.size() != 1 && std::int64_t(shift.items.size()) != C))
            return false;
        for (std::int64_t s2 : shift.items)
            if (s2 < 2 || s2 > 62) return false;
        for (std::int64_t m2 : mult.items)
            if (m2 < 0) return false;
        auto xv = view_of(x);
        if (!xv) return false;
        View in = *xv;
        std::vector<std::int64_t> shape4;
        if (xs.size() == 4 && xs[0] == 1) {
            shape4 = xs;
        } else if (in.dense(es(in))) {
            shape4 = {1, g.type(x).volume() / std::max<std::int64_t>(C, 1), 1, C};
            in.shape = shape4;
            in.strides = dense_strides(shape4, es(in));
        } else {
            return false;
        }
        Layer l;
        l.exec = Exec::nce;
        l.op = "maxpool";
        l.nce.quantized = true;
        l.nce.input_zp = izp;
        l.nce.output_zp = ozp;
        l.nce.double_round = double_round;
        for (std::int64_t c = 0; c < C; ++c) {
            l.q_bias.push_back(0);
            l.q_mult.push_back(at(mult, c));
            l.q_shift.push_back(at(shift, c));
        }
        l.inputs = {in};
        l.source = source_of(op);
        l.origin = op.origin;
        const int t = add_tensor(g.value(y).name, g.type(y).volume(), Role::activation, DataType::int8);
        l.output = dense_view(t, shape4);
        add_layer(std::move(l), y, dense_view(t, g.type(y).shape));
        return true;
    }

    // MINIMUM / MAXIMUM with a scalar constant after an NCE layer: its post-op becomes (or
    // narrows) a clamp, when the composition is one (lower bound <= upper bound).
    bool fuse_min_max(const tosa::Op& op) {
        if (m.int8) return false;
        for (int side = 0; side < 2; ++side) {
            const ValueId x = op.inputs[std::size_t(side)], c = op.inputs[std::size_t(1 - side)];
            const int l = fusable_producer(x);
            const FConst* f = fconst(c);
            if (l < 0 || !f || f->items.size() != 1 || g.type(op.outputs[0]).shape != g.type(x).shape) continue;
            Layer& L = m.layers[std::size_t(l)];
            double lo = -65504.0, hi = 65504.0;
            if (L.nce.post_op == PostOp::relu) lo = 0.0;
            else if (L.nce.post_op == PostOp::clamp) {
                lo = L.nce.clamp_min;
                hi = L.nce.clamp_max;
            } else if (L.nce.post_op != PostOp::none) continue;
            if (op.kind == OpKind::MINIMUM) hi = std::min(hi, double(f->items[0]));
            else lo = std::max(lo, double(f->items[0]));
            if (lo > hi) continue;
            if (lo == 0.0 && hi >= 65504.0) L.nce.post_op = PostOp::relu;
            else {
                L.nce.post_op = PostOp::clamp;
                L.nce.clamp_min = lo;
                L.nce.clamp_max = hi;
            }
            const ValueId y = op.outputs[0];
            views[y] = views[x];
            producer_layer[y] = l;
            m.tensors[std::size_t(L.output.tensor)].name = g.value(y).name;
            return true;
        }
        return false;
    }

    // Operators whose bool result a SHAVE kernel computes as fp16 1.0 / 0.0.
    static bool bool_result(OpKind k) {
        switch (k) {
            case OpKind::GREATER:
            case OpKind::GREATER_EQUAL:
            case OpKind::EQUAL:
            case OpKind::LOGICAL_AND:
            case OpKind::LOGICAL_OR:
            case OpKind::LOGICAL_XOR:
            case OpKind::LOGICAL_NOT: return true;
            default: return false;
        }
    }

    bool shave(const tosa::Op& op, const std::string& kernel, nlohmann::json attrs = nlohmann::json::object()) {
        std::size_t n_in = op.inputs.size();
        if (op.kind == OpKind::MUL) n_in = 2;  // the shift operand is integer-only
        if (op.kind == OpKind::MATMUL) n_in = 2;   // and the zero points (0 on the float path)
        if (op.kind == OpKind::NEGATE) n_in = 1;
        std::vector<ValueId> reads;
        for (std::size_t i = 0; i < n_in; ++i)
            if (g.type(op.inputs[i]).dtype != tosa::DType::shape) reads.push_back(op.inputs[i]);
        if (const auto* ax = op.attr(AttrName::axis)) attrs["axis"] = std::get<std::int64_t>(*ax);
        return shave_on(op, kernel, reads, std::move(attrs));
    }

    // A SHAVE kernel reading `reads` and writing the operator's one result.
    bool shave_on(const tosa::Op& op, const std::string& kernel, const std::vector<ValueId>& reads, nlohmann::json attrs) {
        Layer l;
        l.exec = Exec::shave;
        l.op = kernel;
        for (ValueId r : reads) {
            auto v = view_of(r);
            if (!v) return fail(op, "an operand has no memory form");
            l.inputs.push_back(*v);
        }
        l.attrs = std::move(attrs);
        l.source = source_of(op);
        l.origin = op.origin;
        if (op.outputs.size() != 1) return fail(op, "SHAVE kernels have one result");
        const ValueId y = op.outputs[0];
        // A bool result (comparisons, logical operators) is stored as fp16 1.0 / 0.0: the target's
        // buffers have no bool type, and its float path is fp16 (docs/vpu-compiler.md).
        const bool bool_kernel = g.type(y).dtype == tosa::DType::bool_ && bool_result(op.kind);
        const auto dt = data_type(g.type(y).dtype);
        if (!dt && !bool_kernel)
            return fail(op, "a " + std::string(tosa::to_string(g.type(y).dtype)) + " result (" +
                                (m.int8 ? "the int8 path stores i8 and i32" : "this compiler's PRO-FP path is fp16") + ")");
        l.output = dense_view(add_tensor(g.value(y).name, g.type(y).volume(), Role::activation, dt.value_or(DataType::fp16)), g.type(y).shape);
        const View ov = l.output;
        add_layer(std::move(l), y, ov);
        return true;
    }

    // GATHER with constant indices (VPUX turns such a Gather into slices): values [N,K,C],
    // indices [N,W] -> [N,W,C]; one row is a view of the values (no task), more rows are copies.
    bool gather(const tosa::Op& op) {
        const FConst* idx = fconst(op.inputs[1]);
        if (!idx) return shave(op, "gather");
        const auto x = view_of(op.inputs[0]);
        if (!x) return fail(op, "the values have no memory form");
        const ValueId y = op.outputs[0];
        const auto& ys = g.type(y).shape;
        const std::int64_t N = ys[0], W = ys[1], K = x->shape[1];
        for (float k : idx->items)
            if (k < 0 || k >= float(K) || std::floor(k) != k) return fail(op, "index " + std::to_string(k) + " outside [0, " + std::to_string(K) + ")");
        auto row = [&](std::int64_t n, std::int64_t w) {
            View r = *x;
            r.offset += n * x->strides[0] + std::int64_t(idx->items[std::size_t(n * W + w)]) * x->strides[1];
            r.shape = {1, 1, ys[2]};
            return r;
        };
        if (N * W == 1) {
            views[y] = row(0, 0);
            return true;
        }
        const View out = dense_view(add_tensor(g.value(y).name, g.type(y).volume(), Role::activation, value_type(y)), ys);
        for (std::int64_t n = 0; n < N; ++n)
            for (std::int64_t w = 0; w < W; ++w) {
                Layer l;
                l.exec = Exec::copy;
                l.op = "copy";
                l.inputs = {row(n, w)};
                l.output = out;
                l.output.shape = {1, 1, ys[2]};
                l.output.offset = out.offset + n * out.strides[0] + w * out.strides[1];
                l.source = source_of(op);
                l.origin = op.origin;
                m.layers.push_back(std::move(l));
            }
        views[y] = out;
        return true;
    }

    bool concat(const tosa::Op& op) {
        const ValueId y = op.outputs[0];
        const auto& ys = g.type(y).shape;
        const std::size_t axis = std::size_t(op.get<std::int64_t>(AttrName::axis));
        const int t = add_tensor(g.value(y).name, g.type(y).volume(), Role::activation, value_type(y));
        const View out = dense_view(t, ys);
        std::int64_t at = 0;
        for (ValueId v : op.inputs) {
            auto iv = view_of(v);
            if (!iv) return fail(op, "an operand has no memory form");
            Layer l;
            l.exec = Exec::copy;
            l.op = "copy";
            l.inputs = {*iv};
            l.output = out;
            l.output.shape = iv->shape;
            l.output.offset = out.offset + at * out.strides[axis];
            l.source = source_of(op);
            l.origin = op.origin;
            m.layers.push_back(std::move(l));
            at += g.type(v).shape[axis];
        }
        views[y] = out;
        return true;
    }

    bool run() {
        const tosa::Block& main = g.main();
        views.assign(g.values.size(), std::nullopt);
        producer_layer.assign(g.values.size(), -1);
        uses.assign(g.values.size(), 0);
        producers = g.producers();
        if (g.blocks.size() > 1) {
            diags.error(Stage::vpu, "unsupported-operation", "control flow (COND_IF / WHILE_LOOP) cannot run on the VPU");
            return false;
        }
        users.assign(g.values.size(), {});
        done.assign(main.ops.size(), false);
        for (std::size_t k = 0; k < main.ops.size(); ++k)
            for (ValueId v : main.ops[k].inputs) {
                ++uses[v];
                users[v].push_back(k);
            }
        for (ValueId v : main.outputs) ++uses[v];
        // Graph inputs: NHWC storage when the only use is the legalizer's transpose to NHWC.
        for (ValueId v : main.inputs) {
            const auto& shape = g.type(v).shape;
            const auto dt = data_type(g.type(v).dtype);
            if (!dt) {
                diags.error(Stage::vpu, "unsupported-type", "graph input '" + g.value(v).name + "' is " +
                                                                tosa::to_string(g.type(v).dtype) +
                                                                (m.int8 ? "; the int8 path takes i8 and i32 inputs" : "; this compiler takes float graphs (fp16)"));
                return false;
            }
            bool nhwc = false;
            if (shape.size() == 4) {
                for (const auto& op : main.ops)
                    if (op.kind == OpKind::TRANSPOSE && op.inputs[0] == v &&
                        op.get<std::vector<std::int64_t>>(AttrName::perms) == std::vector<std::int64_t>{0, 2, 3, 1})
                        nhwc = true;
            }
            IoEntry e;
            e.name = g.value(v).name;
            e.dtype = *dt;
            const int t = add_tensor(e.name, g.type(v).volume(), Role::input, *dt);
            if (nhwc) {
                e.shape = {shape[0], shape[2], shape[3], shape[1]};
                e.layout = "NHWC";
                View s = dense_view(t, e.shape);
                View vv;
                vv.tensor = t;
                vv.shape = shape;
                vv.strides = {s.strides[0], s.strides[3], s.strides[1], s.strides[2]};
                views[v] = vv;
            } else {
                e.shape = shape;
                e.layout = identity_layout(shape.size());
                views[v] = dense_view(t, shape);
            }
            e.buffer = std::to_string(t);
            m.inputs.push_back(e);
            m.input_tensors.push_back(t);
        }
        if (m.int8)
            for (std::size_t k = 0; k < main.ops.size(); ++k) plan_eltwise(k);
        for (std::size_t k = 0; k < main.ops.size(); ++k) {
            if (diags.has_errors()) return false;
            if (!done[k] && !one(main.ops[k])) return false;
        }
        for (ValueId v : main.outputs) {
            auto ov = view_of(v);
            if (!ov) {
                diags.error(Stage::vpu, "unsupported-operation", "graph output '" + g.value(v).name + "' has no memory form");
                return false;
            }
            output(v, *ov);
        }
        return !diags.has_errors();
    }

    // A variable (NNEF `variable` that the graph `update`s) is state the host keeps between runs,
    // as VPUX's NPU plugin keeps ReadValue/Assign states: a graph input of the task list named after
    // the variable (its value before this run), and VARIABLE_WRITE a graph output of the same name
    // (its value after). Variables that are only read are constants and never get here.
    bool variable(const tosa::Op& op) {
        const std::string& name = op.get<std::string>(AttrName::name);
        const auto& shape = op.get<std::vector<std::int64_t>>(AttrName::var_shape);
        if (!tosa::is_float(op.get<tosa::DType>(AttrName::type))) return fail(op, "a variable that is not float has no fp16 form");
        if (state.count(name)) return fail(op, "the variable is declared twice");
        std::int64_t n = 1;
        for (std::int64_t d : shape) n *= d;
        IoEntry e;
        e.name = name;
        e.dtype = DataType::fp16;
        e.shape = shape;
        e.layout = identity_layout(shape.size());
        const int t = add_tensor(name, n, Role::input);
        e.buffer = std::to_string(t);
        m.inputs.push_back(e);
        m.input_tensors.push_back(t);
        state.emplace(name, dense_view(t, shape));
        return true;
    }

    static std::string identity_layout(std::size_t rank) {
        static const char* const l[] = {"", "C", "NC", "NCW", "NCHW", "NCDHW"};
        if (rank <= 5) return l[rank];
        std::string s;
        for (std::size_t i = 0; i < rank; ++i) s += char('A' + i);
        return s;
    }

    // A graph output (or a variable's new value, named after the variable) from the view of `v`.
    void output(ValueId v, View ov, const std::string& output_name = {}) {
        const std::string name = output_name.empty() ? g.value(v).name : output_name;
        IoEntry e;
        e.name = name;
        const auto& shape = g.type(v).shape;
        int t = ov.tensor;
        Tensor* T = &m.tensors[std::size_t(t)];
        e.dtype = T->dtype;
        const std::int64_t eb = es(ov);
        const bool whole = ov.offset == 0 && ov.elements() * eb == T->bytes;
        const bool owned = T->role == Role::activation;
        if (whole && owned && ov.dense(eb)) {
            e.shape = shape;
            e.layout = identity_layout(shape.size());
        } else if (whole && owned && shape.size() == 4 && ov.strides[1] == eb && ov.strides[3] == ov.strides[1] * shape[1] &&
                   ov.strides[2] == ov.strides[3] * shape[3] && ov.strides[0] == ov.strides[2] * shape[2]) {
            e.shape = {shape[0], shape[2], shape[3], shape[1]};
            e.layout = "NHWC";
        } else {
            ov = materialize(ov, name, Role::output, name);
            t = ov.tensor;
            e.shape = shape;
            e.layout = identity_layout(shape.size());
        }
        m.tensors[std::size_t(t)].role = Role::output;
        m.tensors[std::size_t(t)].name = name;
        e.buffer = std::to_string(t);
        m.outputs.push_back(e);
        m.output_tensors.push_back(t);
    }

    bool one(const tosa::Op& op) {
        const ValueId y = op.outputs.empty() ? tosa::no_value : op.outputs[0];
        switch (op.kind) {
            case OpKind::CONST:
            case OpKind::CONST_SHAPE: return true;
            case OpKind::IDENTITY:
            case OpKind::RESHAPE:
            case OpKind::TRANSPOSE:
            case OpKind::SLICE: {
                if (fconst(y)) return true;
                auto x = view_of(op.inputs[0]);
                if (!x) return fail(op, "the operand has no memory form");
                View v = *x;
                const auto& ys = g.type(y).shape;
                if (op.kind == OpKind::TRANSPOSE) {
                    v = transposed(v, op);
                } else if (op.kind == OpKind::RESHAPE) {
                    if (!v.dense(es(v))) v = materialize(v, g.value(y).name, Role::activation, source_of(op));
                    v.shape = ys;
                    v.strides = dense_strides(ys, es(v));
                } else if (op.kind == OpKind::SLICE) {
                    const auto start = const_shape(op.inputs[1]);
                    if (!start) return fail(op, "the start is not a constant");
                    for (std::size_t i = 0; i < ys.size(); ++i) v.offset += (*start)[i] * v.strides[i];
                    v.shape = ys;
                }
                views[y] = v;
                return true;
            }
            case OpKind::CONV2D: return conv(op, false);
            case OpKind::DEPTHWISE_CONV2D: return conv(op, true);
            case OpKind::MAX_POOL2D:
            case OpKind::AVG_POOL2D: return pool(op);
            case OpKind::MATMUL: return matmul(op);
            case OpKind::ADD:
            case OpKind::SUB:
            case OpKind::MUL: return eltwise(op);
            case OpKind::CLAMP: return clamp(op);
            case OpKind::CONCAT: return concat(op);
            case OpKind::GATHER: return fconst(y) ? true : gather(op);
            case OpKind::MINIMUM:
            case OpKind::MAXIMUM:
                if (fuse_min_max(op)) return true;
                break;
            case OpKind::CUSTOM:
                return fail(op, "custom operator '" + op.get<std::string>(AttrName::operator_name) + "' has no NCE form and no SHAVE kernel");
            case OpKind::COND_IF:
            case OpKind::WHILE_LOOP: return fail(op, "control flow has no task form");
            case OpKind::VARIABLE: return variable(op);
            case OpKind::VARIABLE_READ: {
                const auto it = state.find(op.get<std::string>(AttrName::name));
                if (it == state.end()) return fail(op, "the variable is not declared before it is read");
                views[y] = it->second;
                return true;
            }
            case OpKind::VARIABLE_WRITE: {
                const std::string& name = op.get<std::string>(AttrName::name);
                auto v = view_of(op.inputs[0]);
                if (!state.count(name)) return fail(op, "the variable is not declared before it is written");
                if (!v) return fail(op, "the operand has no memory form");
                output(op.inputs[0], *v, name);
                return true;
            }
            default: break;
        }
        if (fconst(y)) return true;
        if (m.int8 && !op.outputs.empty() && !tosa::is_float(g.type(y).dtype)) return int_shave(op);
        return shave(op, tosa::op_info(op.kind).mnemonic);
    }
};

}  // namespace vpu_executors_cpp

bool assign_executors(Module& m, Diagnostics& diags) {
    m.int8 = m.graph->profile == tosa::Profile::pro_int;
    vpu_executors_cpp::Builder b(m, diags);
    if (!b.run()) return false;
    m.stage = 1;
    return true;
}

bool layout_and_types(Module& m, Diagnostics&) {
    const std::int64_t align = m.target.nce_channel_alignment;
    for (Layer& l : m.layers) {
        if (l.exec != Exec::nce) continue;
        const std::int64_t C = l.output.shape[3];
        const bool q = l.nce.quantized;
        const std::int64_t wes = q ? 1 : 2;
        if (!l.weights_f32.empty()) {
            Tensor w;
            w.name = l.source + ".weights";
            w.role = Role::weights;
            if (q) {
                w.dtype = DataType::int8;
                w.data = std::make_shared<std::vector<std::uint8_t>>(l.weights_f32.size());
                for (std::size_t i = 0; i < l.weights_f32.size(); ++i) (*w.data)[i] = std::uint8_t(std::int8_t(l.weights_f32[i]));
            } else {
                w.data = std::make_shared<std::vector<std::uint8_t>>(vpu_executors_cpp::fp16_bytes(l.weights_f32));
            }
            w.bytes = std::int64_t(w.data->size());
            m.tensors.push_back(std::move(w));
            l.weights = int(m.tensors.size()) - 1;
            l.weights_f32.clear();
            l.weights_f32.shrink_to_fit();
        }
        // weights table: [align(C), 4] int32; word 0 relative to the weights box (tile sets it)
        const std::int64_t rows = (C + align - 1) / align * align;
        Tensor t;
        t.name = l.source + ".table";
        t.role = Role::table;
        t.dtype = DataType::int32;
        t.bytes = rows * 16;
        t.data = std::make_shared<std::vector<std::uint8_t>>(std::size_t(t.bytes), 0);
        const std::int64_t wstride = l.weights_shape.empty() ? 0 : wes * l.weights_shape[1] * l.weights_shape[2] * l.weights_shape[3];
        for (std::int64_t c = 0; c < C; ++c) {
            const std::int32_t w0 = std::int32_t(c * wstride);
            std::uint8_t* row = t.data->data() + c * 16;
            std::memcpy(row, &w0, 4);
            if (q) {
                // int8: shift, multiplier, int32 bias (docs/vpu.md "weights table")
                const bool id = l.q_mult.empty();
                const std::int32_t shift = id ? 30 : std::int32_t(l.q_shift[std::size_t(c)]);
                const std::int32_t mult = id ? (1 << 30) : std::int32_t(l.q_mult[std::size_t(c)]);
                const std::int32_t bias = id ? 0 : std::int32_t(l.q_bias[std::size_t(c)]);
                std::memcpy(row + 4, &shift, 4);
                std::memcpy(row + 8, &mult, 4);
                std::memcpy(row + 12, &bias, 4);
                continue;
            }
            const float scale = 1.0f, bias = l.bias.empty() ? 0.0f : l.bias[std::size_t(c)];
            std::memcpy(row + 8, &scale, 4);
            std::memcpy(row + 12, &bias, 4);
        }
        m.tensors.push_back(std::move(t));
        l.table = int(m.tensors.size()) - 1;
    }
    m.stage = 2;
    return true;
}

}  // namespace nnef::vpu::ir
