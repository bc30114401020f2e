// assign-executors (assign_executors.hpp), the int8 path: a convolution's exact int32 accumulator on
// the NCE. Used where the requantization cannot be packed into one NCE layer:
// - the weights of `nce_channel_alignment` output channels exceed a tile (AlexNet's and VGG-11's
//   first classifier layer, 9216 and 25088 input channels; Wide-ResNet-50's 3x3 convolutions of 1024
//   channels): split over input channels, each chunk an NCE conv that writes its int32 accumulator
//   (the PPE's integer pipeline with the requantization bypassed: table multiplier 1, shift 0, the
//   bias in the first chunk only; docs/vpu.md), the chunks added by SHAVE `add`s in int32 (exact:
//   integers), and the result requantized once by the SHAVE `rescale` with the RESCALE's own
//   multipliers, shifts and zero point: sum(chunks) + bias is the unsplit accumulator, so the codes
//   are those of the unsplit TOSA CONV2D + RESCALE;
// - no RESCALE to int8 alone reads the accumulator (a bias added after the rescale, GoogLeNet's
//   classifier) and the weights exceed what a SHAVE kernel takes: the accumulator as an int32
//   tensor, its readers as they are.
#include "lowering/vpu/passes/assign_executors.hpp"

namespace nnef::vpu::ir::assign_executors_impl {

View Builder::int32_accumulator(Layer l, const tosa::Op& op, std::int64_t ki, const std::vector<std::int64_t>& ys, const std::string& name) {
    const std::int64_t O = l.weights_shape[0], I = l.weights_shape[3];
    std::int64_t volume = 1;
    for (std::int64_t d : ys) volume *= d;
    l.q_mult.assign(std::size_t(O), 1);  // the PPE's scale bypassed: the accumulator as it is
    l.q_shift.assign(std::size_t(O), 0);
    l.nce.output_zp = 0;
    l.nce.double_round = false;
    l.nce.post_op = PostOp::none;
    if (I <= ki) {
        l.output = dense_view(add_tensor(name + ".acc", volume, Role::activation, DataType::int32), ys);
        m.layers.push_back(l);
        return l.output;
    }
    const std::vector<std::int64_t> bias = std::move(l.q_bias);
    l.q_bias.assign(std::size_t(O), 0);
    std::vector<Layer> parts;
    channel_chunks(std::move(l), ki, parts);
    View acc;
    for (std::size_t j = 0; j < parts.size(); ++j) {
        Layer& part = parts[j];
        if (j == 0) part.q_bias = bias;
        part.source += ".k" + std::to_string(j);
        part.output = dense_view(add_tensor(name + ".k" + std::to_string(j), volume, Role::activation, DataType::int32), ys);
        const View pv = part.output;
        m.layers.push_back(std::move(part));
        acc = j == 0 ? pv : shave_layer(kernel("add"), {acc, pv}, ys, op, name + ".sum" + std::to_string(j), DataType::int32);
    }
    return acc;
}

bool Builder::requantize_accumulator(const View& acc, const tosa::Op& rs, const std::vector<std::size_t>& chain,
                                     const std::vector<std::int64_t>& ys) {
    const IConst* mult = iconst(rs.inputs[1]);
    const IConst* shift = iconst(rs.inputs[2]);
    const IConst* ozp = iconst(rs.inputs[4]);
    if (!mult || !shift || !ozp) return fail(rs, "the rescale's multipliers, shifts and zero point must be constants");
    const ValueId y = rs.outputs[0];
    ShaveKernel r = kernel("rescale");
    r.rescale = ShaveKernel::Rescale{mult->items, shift->items, 0, ozp->items[0],
                                     rs.get<tosa::RoundingMode>(AttrName::rounding_mode) == tosa::RoundingMode::DOUBLE_ROUND};
    const View out = shave_layer(std::move(r), {acc}, ys, rs, g.value(y).name, DataType::int8);
    for (std::size_t k : chain) done[k] = true;
    views[y] = dense_view(out.tensor, g.type(y).shape);
    producer_layer[y] = int(m.layers.size()) - 1;
    return true;
}

// A CONV2D beyond the NCE's kernel or stride (ViT's 32x32 patch embedding) on the int8 path: the
// float path's parts (large_conv_parts), each an NCE conv writing its exact int32 accumulator, the
// bias in the first, added by SHAVE `add`s in int32: the unsplit accumulator, requantized once.
bool Builder::large_conv_int8(const tosa::Op& op, const FConst& w, const View& x, const tosa::Op* rs, const std::vector<std::size_t>& chain) {
    const IConst* b = iconst(op.inputs[2]);
    const IConst* izp = iconst(op.inputs[3]);
    const IConst* wzp = iconst(op.inputs[4]);
    if (!b || !izp || !wzp) return fail(op, "the bias and zero points must be constants");
    const std::int64_t O = w.shape[0];
    Layer base;
    base.nce.quantized = true;
    base.nce.input_zp = izp->items[0];
    base.nce.weights_zp = wzp->items[0];
    base.q_mult.assign(std::size_t(O), 1);  // the PPE's scale bypassed: the accumulator as it is
    base.q_shift.assign(std::size_t(O), 0);
    base.q_bias.assign(std::size_t(O), 0);
    base.nce.output_zp = 0;
    base.nce.double_round = false;
    base.nce.post_op = PostOp::none;
    std::vector<Layer> parts;
    if (!large_conv_parts(op, w, x, std::move(base), parts)) return false;
    const std::vector<std::int64_t> ys = g.type(op.outputs[0]).shape;
    if (ys[0] != 1) return fail(op, "a batch of " + std::to_string(ys[0]) + " (the NCE takes one image)");
    std::int64_t volume = 1;
    for (std::int64_t d : ys) volume *= d;
    const std::string name = g.value(rs ? rs->outputs[0] : op.outputs[0]).name;
    View acc;
    for (std::size_t j = 0; j < parts.size(); ++j) {
        Layer& part = parts[j];
        if (j == 0)
            for (std::int64_t c = 0; c < O; ++c) part.q_bias[std::size_t(c)] = at(*b, c);
        part.source += ".k" + std::to_string(j);
        part.output = dense_view(add_tensor(name + ".k" + std::to_string(j), volume, Role::activation, DataType::int32), ys);
        const View pv = part.output;
        m.layers.push_back(std::move(part));
        acc = j == 0 ? pv : shave_layer(kernel("add"), {acc, pv}, ys, op, name + ".sum" + std::to_string(j), DataType::int32);
    }
    if (rs) return requantize_accumulator(acc, *rs, chain, ys);
    views[op.outputs[0]] = dense_view(acc.tensor, g.type(op.outputs[0]).shape);
    producer_layer[op.outputs[0]] = int(m.layers.size()) - 1;
    return true;
}

}  // namespace nnef::vpu::ir::assign_executors_impl
