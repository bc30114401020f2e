// assign-executors (assign_executors.hpp): what fuses into the NCE layer that alone produces its
// operand (a bias, a scale, a clamp, a MINIMUM / MAXIMUM with a scalar), else its SHAVE kernel.
// Decided while the layers are built: the float constants are folded here before they are rounded
// to fp16.
#include "lowering/vpu/passes/assign_executors.hpp"

namespace nnef::vpu::ir::assign_executors_impl {

bool Builder::fused(ValueId y, ValueId x, int layer) {
    views[y] = views[x];
    producer_layer[y] = layer;
    m.tensors[std::size_t(m.layers[std::size_t(layer)].output.tensor)].name = g.value(y).name;
    return true;
}

void Builder::float_post_op(Layer& l, double lo, double hi) {
    if (lo == 0.0 && hi >= 65504.0) {
        l.nce.post_op = PostOp::relu;
        return;
    }
    l.nce.post_op = PostOp::clamp;
    l.nce.clamp_min = lo;
    l.nce.clamp_max = hi;
}

int Builder::fusable_producer(ValueId v) const {
    const int l = producer_layer[v];
    if (l < 0 || uses[v] != 1) return -1;
    return m.layers[std::size_t(l)].exec == Exec::nce ? l : -1;
}

bool Builder::fold_affine(const tosa::Op& op) {
    if (m.int8 || (op.kind != OpKind::ADD && op.kind != OpKind::SUB && op.kind != OpKind::MUL)) return false;
    for (int side = 0; side < 2; ++side) {
        const ValueId x = op.inputs[std::size_t(side)], c = op.inputs[std::size_t(1 - side)];
        if (op.kind == OpKind::SUB && side == 1) continue;  // c - x is not affine in the bias
        const int l = fusable_producer(x);
        if (l < 0) continue;
        Layer& L = m.layers[std::size_t(l)];
        if (!has_weights(L.nce_op)) continue;
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
        return fused(op.outputs[0], x, l);
    }
    return false;
}

bool Builder::clamp(const tosa::Op& op) {
    const ValueId x = op.inputs[0], y = op.outputs[0];
    if (m.int8 && !tosa::is_float(g.type(y).dtype)) return clamp_int(op);
    const double lo = op.get<double>(AttrName::min_val), hi = op.get<double>(AttrName::max_val);
    const int l = fusable_producer(x);
    if (l >= 0 && m.layers[std::size_t(l)].nce.post_op == PostOp::none) {
        Layer& L = m.layers[std::size_t(l)];
        float_post_op(L, lo, hi);
        return fused(y, x, l);
    }
    ShaveKernel k = kernel("clamp");
    k.clamp_float = std::array<double, 2>{std::isinf(lo) ? (lo < 0 ? -65504.0 : 65504.0) : lo, std::isinf(hi) ? (hi < 0 ? -65504.0 : 65504.0) : hi};
    return shave(op, std::move(k));
}

bool Builder::fuse_min_max(const tosa::Op& op) {
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
        float_post_op(L, lo, hi);
        return fused(op.outputs[0], x, l);
    }
    return false;
}

}  // namespace nnef::vpu::ir::assign_executors_impl
