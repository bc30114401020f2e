// assign-executors (assign_executors.hpp), the int8 path: a spatial sum of int8 codes on the NCE.
// TOSA PRO-INT lowers a mean over H and W (NNEF mean_reduce, the global average pool of
// ShuffleNet v2, MobileNet-v3, MnasNet) as
//   RESCALE i8 -> i32 (scale 1: multiplier 2^s, shift s; input zero point z) -> REDUCE_SUM over H
//   and/or W -> RESCALE i32 -> i8 (the mean's scale).
// The first RESCALE is exactly x - z ((x - z) 2^s + 2^(s-1) >> s, s <= 30: no double rounding), so
// the sum is sum(x - z) over the window: a depthwise convolution of weights 1 over the reduced
// extent with input zero point z, whose int32 accumulator the NCE computes exactly, and the last
// RESCALE its requantization (fuse-post-ops packs it into the table, as for any int8 conv). One
// NCE layer instead of three SHAVE kernels, their int32 intermediates (4x the bytes) and the
// copies that gather them; the codes are the same integers.
#include "lowering/vpu/passes/assign_executors.hpp"

namespace nnef::vpu::ir::assign_executors_impl {

bool Builder::spatial_sum_on_nce(const tosa::Op& op) {
    const ValueId x = op.inputs[0], r = op.outputs[0];
    if (g.type(x).dtype != tosa::DType::i8 || g.type(r).dtype != tosa::DType::i32) return false;
    const auto& xs = g.type(x).shape;
    if (xs.size() != 4 || xs[0] != 1) return false;
    const IConst *mult = iconst(op.inputs[1]), *shift = iconst(op.inputs[2]), *izp = iconst(op.inputs[3]), *ozp = iconst(op.inputs[4]);
    if (!mult || !shift || !izp || !ozp || mult->items.size() != 1 || shift->items.size() != 1 || izp->items.size() != 1 ||
        ozp->items.size() != 1 || ozp->items[0] != 0)
        return false;
    if (op.get<bool>(AttrName::input_unsigned) || op.get<bool>(AttrName::output_unsigned)) return false;
    if (op.get<tosa::RoundingMode>(AttrName::rounding_mode) == tosa::RoundingMode::INEXACT_ROUND) return false;
    const std::int64_t s = shift->items[0];
    if (s < 1 || s > 30 || mult->items[0] != (std::int64_t(1) << s)) return false;  // scale exactly 1
    // the REDUCE_SUMs over H (axis 1) and W (axis 2) that alone read it, one after another
    std::vector<std::size_t> chain;
    bool axis_done[3] = {false, false, false};
    ValueId v = r;
    for (;;) {
        if (uses[v] != 1 || users[v].size() != 1) break;
        const std::size_t k = users[v][0];
        const tosa::Op& u = g.main().ops[k];
        if (u.kind != OpKind::REDUCE_SUM || u.inputs[0] != v) break;
        const std::int64_t axis = u.get<std::int64_t>(AttrName::axis);
        if (axis < 1 || axis > 2 || axis_done[axis]) return false;
        axis_done[axis] = true;
        chain.push_back(k);
        v = u.outputs[0];
    }
    if (chain.empty()) return false;
    std::string why;
    const tosa::Op* rs = requant_of(v, chain, why);
    if (!rs) return false;
    const std::int64_t KH = axis_done[1] ? xs[1] : 1, KW = axis_done[2] ? xs[2] : 1, C = xs[3];
    if (KH > m.target.nce_max_kernel || KW > m.target.nce_max_kernel) return false;
    auto xv = view_of(x);
    if (!xv) return false;
    Layer l;
    l.exec = Exec::nce;
    l.nce_op = NceOp::dwconv;
    l.weights_shape = {C, KH, KW, 1};
    l.weights_f32.assign(std::size_t(C * KH * KW), 1.0f);
    l.nce.kernel = {KH, KW};
    l.nce.stride = {1, 1};
    l.nce.dilation = {1, 1};
    l.nce.pad = {0, 0, 0, 0};
    l.nce.quantized = true;
    l.nce.input_zp = izp->items[0];
    l.nce.weights_zp = 0;
    l.q_bias.assign(std::size_t(C), 0);
    l.inputs = {*xv};
    l.source = source_of(op);
    l.origin = op.origin;
    const std::vector<std::int64_t> ys = {1, xs[1] - KH + 1, xs[2] - KW + 1, C};
    const View acc = int32_accumulator(std::move(l), op, 1, ys, g.value(rs->outputs[0]).name);
    return requantize_accumulator(acc, *rs, chain, ys);
}

}  // namespace nnef::vpu::ir::assign_executors_impl
