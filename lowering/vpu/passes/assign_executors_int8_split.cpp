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

}  // namespace nnef::vpu::ir::assign_executors_impl
