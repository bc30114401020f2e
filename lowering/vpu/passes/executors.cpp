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

// A constant folded at compile time (CONST, then RESHAPE / TRANSPOSE / IDENTITY of it), as floats.
struct FConst {
    std::vector<std::int64_t> shape;
    std::vector<float> items;
};

std::optional<FConst> to_fconst(const tosa::ConstData& c) {
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

FConst transpose(const FConst& x, const std::vector<std::int64_t>& perms) {
    FConst y;
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
FConst slice(const FConst& x, const std::vector<std::int64_t>& start, const std::vector<std::int64_t>& shape) {
    FConst y;
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
    std::map<ValueId, FConst> consts;
    std::vector<tosa::Graph::Producer> producers;
    std::map<std::string, View> state;  // variable name -> its graph input's view

    Builder(Module& m_, Diagnostics& d) : m(m_), g(*m_.graph), diags(d) {}

    const tosa::Op* producer(ValueId v) const {
        const auto& p = producers[v];
        if (p.block != 0) return nullptr;
        return &g.main().ops[p.index];
    }

    const FConst* fconst(ValueId v) {
        auto it = consts.find(v);
        if (it != consts.end()) return &it->second;
        const tosa::Op* op = producer(v);
        if (!op) return nullptr;
        std::optional<FConst> f;
        if (op->kind == OpKind::CONST) {
            const tosa::Attr* a = op->attr(AttrName::values);
            if (a && std::holds_alternative<tosa::ConstPtr>(*a)) f = to_fconst(*std::get<tosa::ConstPtr>(*a));
        } else if (op->kind == OpKind::RESHAPE || op->kind == OpKind::IDENTITY || op->kind == OpKind::CAST) {
            if (const FConst* x = fconst(op->inputs[0])) {
                f = *x;
                f->shape = g.type(v).shape;
            }
        } else if (op->kind == OpKind::TRANSPOSE) {
            if (const FConst* x = fconst(op->inputs[0])) f = transpose(*x, op->get<std::vector<std::int64_t>>(AttrName::perms));
        } else if (op->kind == OpKind::SLICE) {
            const FConst* x = fconst(op->inputs[0]);
            const auto start = const_shape(op->inputs[1]);
            if (x && start) f = slice(*x, *start, g.type(v).shape);
        }
        if (!f) return nullptr;
        return &(consts[v] = std::move(*f));
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
        const int t = add_tensor(name, from.elements(), role);
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
        if (x && !depthwise && (!w || !b)) return conv_on_shave(op, *x);
        if (!x || !w || !b) return fail(op, "the weights and bias must be constants");
        const auto& pad = op.get<std::vector<std::int64_t>>(AttrName::pad);
        const auto& stride = op.get<std::vector<std::int64_t>>(AttrName::stride);
        const auto& dil = op.get<std::vector<std::int64_t>>(AttrName::dilation);
        Layer l;
        l.exec = Exec::nce;
        if (depthwise) {
            // TOSA [KH,KW,C,M] -> [C*M... ] only M = 1 runs as dwconv
            const std::int64_t KH = w->shape[0], KW = w->shape[1], C = w->shape[2], M = w->shape[3];
            if (M != 1) return fail(op, "depthwise multiplier " + std::to_string(M) + " (the NCE's dwconv takes 1)");
            l.op = "dwconv";
            l.weights_shape = {C, KH, KW, 1};
            l.weights_f32.resize(std::size_t(C * KH * KW));
            for (std::int64_t c = 0; c < C; ++c)
                for (std::int64_t i = 0; i < KH * KW; ++i) l.weights_f32[std::size_t(c * KH * KW + i)] = w->items[std::size_t(i * C + c)];
        } else {
            l.op = "conv";
            l.weights_shape = w->shape;
            l.weights_f32 = w->items;
        }
        if (!nce_limits(op, l.weights_shape[1], l.weights_shape[2], stride[0], stride[1])) return false;
        const std::int64_t O = l.weights_shape[0];
        l.bias.assign(std::size_t(O), 0.0f);
        for (std::int64_t c = 0; c < O; ++c) l.bias[std::size_t(c)] = b->items.size() == 1 ? b->items[0] : b->items[std::size_t(c)];
        l.nce.kernel = {l.weights_shape[1], l.weights_shape[2]};
        l.nce.stride = {stride[0], stride[1]};
        l.nce.dilation = {dil[0], dil[1]};
        l.nce.pad = {pad[0], pad[1], pad[2], pad[3]};
        l.inputs = {*x};
        l.source = source_of(op);
        l.origin = op.origin;
        const ValueId y = op.outputs[0];
        std::vector<std::int64_t> ys = g.type(y).shape;
        if (ys[0] > 1) {
            // The NCE works on one image: a 1x1 stride-1 conv (NNEF linear on a batch) takes the
            // batch as rows; other convolutions of a batch are refused.
            const View& xv = l.inputs[0];
            const bool pointwise = l.nce.kernel[0] == 1 && l.nce.kernel[1] == 1 && l.nce.stride[0] == 1 && l.nce.stride[1] == 1 &&
                                   pad == std::vector<std::int64_t>{0, 0, 0, 0};
            if (!pointwise || xv.strides[0] != xv.strides[1] * xv.shape[1])
                return fail(op, "a batch of " + std::to_string(ys[0]) + " (the NCE takes one image; a batch only for 1x1 convolutions)");
            l.inputs[0].shape = {1, xv.shape[0] * xv.shape[1], xv.shape[2], xv.shape[3]};
            l.inputs[0].strides = {xv.strides[0] * xv.shape[0], xv.strides[1], xv.strides[2], xv.strides[3]};
            ys = {1, ys[0] * ys[1], ys[2], ys[3]};
        }
        const std::int64_t KH = l.weights_shape[1], KW = l.weights_shape[2], I = l.weights_shape[3];
        const std::int64_t align = m.target.nce_channel_alignment;
        const std::int64_t ki = std::max<std::int64_t>(align, tile_budget(m.target) / 4 / (align * KH * KW * 2) / align * align);
        if (!depthwise && I > ki) return split_k(std::move(l), y, ki, ys);
        const int t = add_tensor(g.value(y).name, g.type(y).volume(), Role::activation);
        l.output = dense_view(t, ys);
        add_layer(std::move(l), y, dense_view(t, g.type(y).shape));
        return true;
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
        if (global && (k[0] > m.target.nce_max_kernel || k[1] > m.target.nce_max_kernel)) return global_pool(op, *x);
        if (!nce_limits(op, k[0], k[1], s[0], s[1])) return false;
        if (ys[0] > 1) return fail(op, "a batch of " + std::to_string(ys[0]) + " (the NCE takes one image)");
        Layer l;
        l.exec = Exec::nce;
        l.op = op.kind == OpKind::MAX_POOL2D ? "maxpool" : "avgpool";
        l.nce.kernel = {k[0], k[1]};
        l.nce.stride = {s[0], s[1]};
        l.nce.pad = {p[0], p[1], p[2], p[3]};
        l.inputs = {*x};
        l.source = source_of(op);
        l.origin = op.origin;
        const ValueId y = op.outputs[0];
        l.output = dense_view(add_tensor(g.value(y).name, g.type(y).volume(), Role::activation), g.type(y).shape);
        const View ov = l.output;
        add_layer(std::move(l), y, ov);
        return true;
    }

    // A SHAVE layer on views; returns its output (a new dense tensor, or the one given).
    View shave_layer(const std::string& kernel, std::vector<View> inputs, const std::vector<std::int64_t>& shape, nlohmann::json attrs,
                     const tosa::Op& op, const std::string& name) {
        Layer l;
        l.exec = Exec::shave;
        l.op = kernel;
        l.inputs = std::move(inputs);
        l.attrs = std::move(attrs);
        l.source = source_of(op);
        l.origin = op.origin;
        std::int64_t n = 1;
        for (auto d : shape) n *= d;
        l.output = dense_view(add_tensor(name, n, Role::activation), shape);
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

    bool matmul(const tosa::Op& op) {
        const auto a = view_of(op.inputs[0]);
        const FConst* b = fconst(op.inputs[1]);
        const auto& at = g.type(op.inputs[0]).shape;
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
        if (op.kind != OpKind::ADD && op.kind != OpKind::SUB && op.kind != OpKind::MUL) return false;
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

    // MINIMUM / MAXIMUM with a scalar constant after an NCE layer: its post-op becomes (or
    // narrows) a clamp, when the composition is one (lower bound <= upper bound).
    bool fuse_min_max(const tosa::Op& op) {
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
        Layer l;
        l.exec = Exec::shave;
        l.op = kernel;
        std::size_t n_in = op.inputs.size();
        if (op.kind == OpKind::MUL) n_in = 2;  // the shift operand is integer-only
        if (op.kind == OpKind::MATMUL) n_in = 2;   // and the zero points (0 on the float path)
        if (op.kind == OpKind::NEGATE) n_in = 1;
        for (std::size_t i = 0; i < n_in; ++i) {
            if (g.type(op.inputs[i]).dtype == tosa::DType::shape) continue;
            auto v = view_of(op.inputs[i]);
            if (!v) return fail(op, "an operand has no memory form");
            l.inputs.push_back(*v);
        }
        if (const auto* ax = op.attr(AttrName::axis)) attrs["axis"] = std::get<std::int64_t>(*ax);
        l.attrs = std::move(attrs);
        l.source = source_of(op);
        l.origin = op.origin;
        if (op.outputs.size() != 1) return fail(op, "SHAVE kernels have one result");
        const ValueId y = op.outputs[0];
        // A bool result (comparisons, logical operators) is stored as fp16 1.0 / 0.0: the target's
        // buffers have no bool type, and its float path is fp16 (docs/vpu-compiler.md).
        const bool bool_kernel = g.type(y).dtype == tosa::DType::bool_ && bool_result(op.kind);
        if (!tosa::is_float(g.type(y).dtype) && !bool_kernel)
            return fail(op, "a " + std::string(tosa::to_string(g.type(y).dtype)) + " result (this compiler's PRO-FP path is fp16)");
        l.output = dense_view(add_tensor(g.value(y).name, g.type(y).volume(), Role::activation), g.type(y).shape);
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
        const View out = dense_view(add_tensor(g.value(y).name, g.type(y).volume(), Role::activation), ys);
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
        const int t = add_tensor(g.value(y).name, g.type(y).volume(), Role::activation);
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
        for (const auto& op : main.ops)
            for (ValueId v : op.inputs) ++uses[v];
        for (ValueId v : main.outputs) ++uses[v];
        // Graph inputs: NHWC storage when the only use is the legalizer's transpose to NHWC.
        for (ValueId v : main.inputs) {
            const auto& shape = g.type(v).shape;
            if (!tosa::is_float(g.type(v).dtype)) {
                diags.error(Stage::vpu, "unsupported-type", "graph input '" + g.value(v).name + "' is " +
                                                                tosa::to_string(g.type(v).dtype) + "; this compiler takes float graphs (fp16)");
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
            e.dtype = DataType::fp16;
            const int t = add_tensor(e.name, g.type(v).volume(), Role::input);
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
        for (const auto& op : main.ops) {
            if (diags.has_errors()) return false;
            if (!one(op)) return false;
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
        e.dtype = DataType::fp16;
        const auto& shape = g.type(v).shape;
        int t = ov.tensor;
        Tensor* T = &m.tensors[std::size_t(t)];
        const bool whole = ov.offset == 0 && ov.elements() * 2 == T->bytes;
        const bool owned = T->role == Role::activation;
        if (whole && owned && ov.dense(2)) {
            e.shape = shape;
            e.layout = identity_layout(shape.size());
        } else if (whole && owned && shape.size() == 4 && ov.strides[1] == 2 && ov.strides[3] == ov.strides[1] * shape[1] &&
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
                    const auto& perms = op.get<std::vector<std::int64_t>>(AttrName::perms);
                    View r = v;
                    for (std::size_t i = 0; i < perms.size(); ++i) {
                        r.shape[i] = v.shape[std::size_t(perms[i])];
                        r.strides[i] = v.strides[std::size_t(perms[i])];
                    }
                    v = r;
                } else if (op.kind == OpKind::RESHAPE) {
                    if (!v.dense(2)) v = materialize(v, g.value(y).name, Role::activation, source_of(op));
                    v.shape = ys;
                    v.strides = dense_strides(ys, 2);
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
        return shave(op, tosa::op_info(op.kind).mnemonic);
    }
};

}  // namespace vpu_executors_cpp

bool assign_executors(Module& m, Diagnostics& diags) {
    if (m.graph->profile != tosa::Profile::pro_fp) {
        diags.error(Stage::vpu, "unsupported-profile",
                    "this compiler takes PRO-FP graphs (fp16); PRO-INT (int8 with requantization) is not implemented");
        return false;
    }
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
        if (!l.weights_f32.empty()) {
            Tensor w;
            w.name = l.source + ".weights";
            w.role = Role::weights;
            w.data = std::make_shared<std::vector<std::uint8_t>>(vpu_executors_cpp::fp16_bytes(l.weights_f32));
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
        const std::int64_t wstride = l.weights_shape.empty() ? 0 : 2 * l.weights_shape[1] * l.weights_shape[2] * l.weights_shape[3];
        for (std::int64_t c = 0; c < C; ++c) {
            const std::int32_t w0 = std::int32_t(c * wstride);
            const float scale = 1.0f, bias = l.bias.empty() ? 0.0f : l.bias[std::size_t(c)];
            std::uint8_t* row = t.data->data() + c * 16;
            std::memcpy(row, &w0, 4);
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
