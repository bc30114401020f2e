// assign-executors (assign_executors.hpp): convolutions, pools, matmul and eltwise as NCE layers.
#include <set>

#include "lowering/vpu/passes/assign_executors.hpp"

namespace nnef::vpu::ir::assign_executors_impl {

bool Builder::nce_limits(const tosa::Op& op, std::int64_t kh, std::int64_t kw, std::int64_t sh, std::int64_t sw) {
    const Target& t = m.target;
    if (kh > t.nce_max_kernel || kw > t.nce_max_kernel)
        return fail(op, "kernel " + std::to_string(kh) + "x" + std::to_string(kw) + " exceeds the NCE's largest (" +
                            std::to_string(t.nce_max_kernel) + ")");
    if (sh > t.nce_max_stride || sw > t.nce_max_stride)
        return fail(op, "stride exceeds the NCE's largest (" + std::to_string(t.nce_max_stride) + ")");
    return true;
}

bool Builder::conv(const tosa::Op& op, bool depthwise) {
    const auto x = view_of(op.inputs[0]);
    const FConst* w = fconst(op.inputs[1]);
    const FConst* b = fconst(op.inputs[2]);
    if (m.int8 && !tosa::is_float(g.type(op.outputs[0]).dtype)) return conv_int8(op, depthwise, x, w);
    if (x && !depthwise && (!w || !b)) return conv_on_shave(op, *x);
    if (!x || !w || !b) return fail(op, "the weights and bias must be constants");
    if (!depthwise && beyond_nce_limits(op, w->shape[1], w->shape[2])) return large_conv(op, *w, *b, *x);
    Layer l;
    if (!nce_conv(op, l, *w, *x, depthwise)) return false;
    const std::int64_t O = l.weights_shape[0];
    l.bias.assign(std::size_t(O), 0.0f);
    for (std::int64_t c = 0; c < O; ++c) l.bias[std::size_t(c)] = b->items.size() == 1 ? b->items[0] : b->items[std::size_t(c)];
    const ValueId y = op.outputs[0];
    std::vector<std::int64_t> ys = g.type(y).shape;
    if (!batch_as_rows(op, l, ys)) return false;
    const std::int64_t KH = l.weights_shape[1], KW = l.weights_shape[2], I = l.weights_shape[3];
    const std::int64_t ki = chunk_channels(KH, KW);
    if (!depthwise && I > ki) return split_k(std::move(l), y, ki, ys);
    const int t = add_tensor(g.value(y).name, g.type(y).volume(), Role::activation);
    l.output = dense_view(t, ys);
    add_layer(std::move(l), y, dense_view(t, g.type(y).shape));
    return true;
}

bool Builder::nce_conv(const tosa::Op& op, Layer& l, const FConst& w, const View& x, bool depthwise) {
    const auto& pad = op.get<std::vector<std::int64_t>>(AttrName::pad);
    const auto& stride = op.get<std::vector<std::int64_t>>(AttrName::stride);
    const auto& dil = op.get<std::vector<std::int64_t>>(AttrName::dilation);
    l.exec = Exec::nce;
    if (depthwise) {
        const std::int64_t KH = w.shape[0], KW = w.shape[1], C = w.shape[2], M = w.shape[3];
        if (M != 1) return fail(op, "depthwise multiplier " + std::to_string(M) + " (the NCE's dwconv takes 1)");
        l.nce_op = NceOp::dwconv;
        l.weights_shape = {C, KH, KW, 1};
        l.weights_f32.resize(std::size_t(C * KH * KW));
        for (std::int64_t c = 0; c < C; ++c)
            for (std::int64_t i = 0; i < KH * KW; ++i) l.weights_f32[std::size_t(c * KH * KW + i)] = w.items[std::size_t(i * C + c)];
    } else {
        l.nce_op = NceOp::conv;
        l.weights_shape = w.shape;
    }
    if (!nce_limits(op, l.weights_shape[1], l.weights_shape[2], stride[0], stride[1])) return false;
    if (!depthwise) l.weights_f32 = take(op.inputs[1], w, consts).items;  // int8 codes are exact as floats
    l.nce.kernel = {l.weights_shape[1], l.weights_shape[2]};
    l.nce.stride = {stride[0], stride[1]};
    l.nce.dilation = {dil[0], dil[1]};
    l.nce.pad = {pad[0], pad[1], pad[2], pad[3]};
    l.inputs = {x};
    l.source = source_of(op);
    l.origin = op.origin;
    return true;
}

bool Builder::batch_as_rows(const tosa::Op& op, Layer& l, std::vector<std::int64_t>& ys) {
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

bool Builder::split_k(Layer l, ValueId y, std::int64_t ki, const std::vector<std::int64_t>& ys) {
    std::vector<Layer> parts;
    channel_chunks(std::move(l), ki, parts);
    return sum_parts(std::move(parts), y, ys);
}

bool Builder::pool(const tosa::Op& op) {
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
    l.nce_op = op.kind == OpKind::MAX_POOL2D ? NceOp::maxpool : NceOp::avgpool;
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

bool Builder::matmul(const tosa::Op& op) {
    const auto a = view_of(op.inputs[0]);
    const FConst* b = fconst(op.inputs[1]);
    const auto& at = g.type(op.inputs[0]).shape;
    if (m.int8 && !tosa::is_float(g.type(op.outputs[0]).dtype)) return matmul_int8(op);
    if (a && b && at[0] == 1) {
        const std::int64_t H = at[1], C = at[2], W = b->shape[2];
        Layer l;
        l.exec = Exec::nce;
        l.nce_op = NceOp::conv;
        l.weights_shape = {W, 1, 1, C};
        l.weights_f32.resize(std::size_t(W * C));
        for (std::int64_t o = 0; o < W; ++o)
            for (std::int64_t i = 0; i < C; ++i) l.weights_f32[std::size_t(o * C + i)] = b->items[std::size_t(i * W + o)];
        l.bias.assign(std::size_t(W), 0.0f);
        l.inputs = {as_plane(*a)};
        l.source = source_of(op);
        l.origin = op.origin;
        const ValueId y = op.outputs[0];
        if (const std::int64_t ki = mlp_partial_channels(op); ki > 0) {
            std::vector<Layer> parts;
            const std::vector<std::int64_t> plane = as_plane(dense_view(l.inputs[0].tensor, {1, H, W})).shape;
            channel_chunks(std::move(l), ki, parts);
            return sum_parts(std::move(parts), y, plane, std::size_t(m.target.clusters));
        }
        const int t = add_tensor(g.value(y).name, g.type(y).volume(), Role::activation);
        const View yv = dense_view(t, {1, H, W});
        l.output = as_plane(yv);
        add_layer(std::move(l), y, yv);
        return true;
    }
    return shave(op, kernel("matmul"));
}

std::int64_t Builder::mlp_partial_channels(const tosa::Op& op) const {
    constexpr std::int64_t parts = 8;  // tile_stream_channels.cpp: two waves of a part per SHAVE engine
    if (m.target.clusters * m.target.shave_per_cluster * 2 != parts) return 0;
    const ValueId a = op.inputs[0];
    const std::vector<std::int64_t>& as = g.type(a).shape;
    const std::int64_t volume = g.type(a).volume();
    if (as.size() != 3 || as[0] != 1 || as[2] % (parts * m.target.nce_channel_alignment) != 0) return 0;
    // back through the element-wise chain (operands of a's size; constants and broadcasts aside)
    std::vector<ValueId> todo{a};
    std::set<ValueId> seen;
    bool exp = false;
    const tosa::Op* first = nullptr;
    while (!todo.empty() && seen.size() < 64) {
        const ValueId v = todo.back();
        todo.pop_back();
        if (!seen.insert(v).second) continue;
        const tosa::Op* p = producer(v);
        if (!p || p->outputs.size() != 1) return 0;
        if (p->kind == OpKind::MATMUL || p->kind == OpKind::CONV2D) {
            if (first && first != p) return 0;
            first = p;
            continue;
        }
        if (p->kind == OpKind::EXP) exp = true;
        for (ValueId in : p->inputs)
            if (g.type(in).volume() == volume) todo.push_back(in);
    }
    if (!todo.empty() || !exp || !first) return 0;
    // the first conv's output: `as` (rows x channels, any shape of that size, channels last)
    const std::vector<std::int64_t>& fs = g.type(first->outputs[0]).shape;
    if (g.type(first->outputs[0]).volume() != volume || fs.back() != as[2] || as[2] < 4 * as[1]) return 0;
    return as[2] / parts;
}

bool Builder::add_op_layer(const tosa::Op& op, Layer l) {
    const ValueId y = op.outputs[0];
    l.source = source_of(op);
    l.origin = op.origin;
    const View ov = dense_view(add_tensor(g.value(y).name, g.type(y).volume(), Role::activation), g.type(y).shape);
    l.output = nce_operand(ov, ov.shape);
    add_layer(std::move(l), y, ov);
    return true;
}

View Builder::nce_operand(const View& v, const std::vector<std::int64_t>& ys) const {
    return ys.size() == 3 ? plane_of(v, ys[1]) : v;
}

bool Builder::eltwise(const tosa::Op& op) {
    if (m.int8 && !tosa::is_float(g.type(op.outputs[0]).dtype)) {
        const auto it = eltwise_plans.find(std::size_t(&op - g.main().ops.data()));
        return it != eltwise_plans.end() ? eltwise_int8(op, it->second) : int_shave(op);
    }
    const ValueId a = op.inputs[0], b = op.inputs[1], y = op.outputs[0];
    const auto& ys = g.type(y).shape;
    const auto av = view_of(a), bv = view_of(b);
    // (NHWC of one image, or [1, N, C] tokens as a plane)
    if (av && bv && g.type(a).shape == ys && g.type(b).shape == ys && (ys.size() == 4 || ys.size() == 3) && ys[0] == 1 && !fconst(a) &&
        !fconst(b)) {
        Layer l;
        l.exec = Exec::nce;
        l.nce_op = NceOp::eltwise;
        l.nce.eltwise = op.kind == OpKind::ADD ? "add" : op.kind == OpKind::SUB ? "sub" : "mul";
        l.inputs = {nce_operand(*av, ys), nce_operand(*bv, ys)};
        return add_op_layer(op, std::move(l));
    }
    if (av && bv && channel_broadcast(op, *av, *bv)) return true;
    return shave(op, kernel(tosa::op_info(op.kind).mnemonic));
}

bool Builder::channel_broadcast(const tosa::Op& op, const View& av, const View& bv) {
    const ValueId a = op.inputs[0], b = op.inputs[1], y = op.outputs[0];
    const auto& ys = g.type(y).shape;
    if ((ys.size() != 4 && ys.size() != 3) || ys[0] != 1 || ys.back() <= 1 || fconst(a) || fconst(b)) return false;
    std::vector<std::int64_t> narrow = ys;
    narrow.back() = 1;
    const bool a_narrow = g.type(a).shape == narrow && g.type(b).shape == ys, b_narrow = g.type(b).shape == narrow && g.type(a).shape == ys;
    if (!a_narrow && !b_narrow) return false;
    for (ValueId v : {a, b, y})
        if (value_type(v) != DataType::fp16) return false;
    const std::int64_t C = ys.back();
    // the narrow operand on C channels: a 1x1 conv of weights 1 (its one input channel to each
    // output channel: the same fp16 values)
    Layer bc;
    bc.exec = Exec::nce;
    bc.nce_op = NceOp::conv;
    bc.weights_shape = {C, 1, 1, 1};
    bc.weights_f32.assign(std::size_t(C), 1.0f);
    bc.bias.assign(std::size_t(C), 0.0f);
    bc.inputs = {nce_operand(a_narrow ? av : bv, narrow)};
    bc.source = source_of(op);
    bc.origin = op.origin;
    std::int64_t volume = 1;
    for (std::int64_t d : ys) volume *= d;
    bc.output = nce_operand(dense_view(add_tensor(g.value(y).name + ".broadcast", volume, Role::activation), ys), ys);
    const View wide = bc.output;
    m.layers.push_back(std::move(bc));
    Layer l;
    l.exec = Exec::nce;
    l.nce_op = NceOp::eltwise;
    l.nce.eltwise = op.kind == OpKind::ADD ? "add" : op.kind == OpKind::SUB ? "sub" : "mul";
    l.inputs = a_narrow ? std::vector<View>{wide, nce_operand(bv, ys)} : std::vector<View>{nce_operand(av, ys), wide};
    return add_op_layer(op, std::move(l));
}

}  // namespace nnef::vpu::ir::assign_executors_impl
