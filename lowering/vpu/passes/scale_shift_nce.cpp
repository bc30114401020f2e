// Scale and shift on the NCE (part of fuse-post-ops, lowering/vpu/passes/fuse_post_ops.cpp;
// docs/vpu-compiler.md): on the fp16 path a SHAVE `mul` / `add` / `sub` (x - c, or c - x as scale
// -1 and bias c: the erf polynomial's `1 - ...`) by a per-tensor or
// per-channel constant that no NCE producer can take (its operand is a concat's copies, a pool's
// result, a SHAVE result, a result with other readers, a graph input) becomes an NCE layer itself:
// a 1x1 `maxpool` (one tap: the accumulator is the input value, exactly) whose weights table carries
// the constant as the fp32 scale (a mul) or bias (an add, sub). The DPU's post-processing computes
// `acc * scale + bias` in fp32 and then its post-op (specs/vpu-target.md sections 3-4, docs/vpu.md),
// so fuse-post-ops, visiting the layers in program order, folds the rest of the chain into the new
// layer as into any NCE producer: the add of a batch norm into the bias, the relu into the post-op
// (DenseNet-121's pre-activation batch norms, whose producers are concats). The NCE runs it at
// `nce_dw_macs_per_cycle` (64 fp16 outputs per cycle per DPU) against 2 per SHAVE engine, and the
// values are rounded to fp16 once, from the exact float32 constants, where the SHAVE chain rounded
// every step and took its constants in fp16.
// Why a maxpool and not a 1x1 dwconv with identity weights: the same datapath and rate (the cost
// model charges both by `nce_dw_macs_per_cycle`) and the same values (x * 1.0 is x in fp32), but no
// weights to store and load; the scale in the table's fp32 word, not in fp16 weights, keeps it
// exact.
#include <cstdint>
#include <vector>

#include "lowering/vpu/ir.hpp"

namespace nnef::vpu::ir {

bool per_channel_constant(const Layer& s, std::int64_t C) {
    if (!s.shave.constant || s.shave.constant->input < 0 || std::size_t(s.shave.constant->input) >= s.inputs.size()) return false;
    const std::vector<std::int64_t>& cs = s.inputs[std::size_t(s.shave.constant->input)].shape;
    const std::size_t items = s.shave.constant->items.size();
    if (items == 1) return true;
    if (C <= 0 || cs.empty() || cs.back() != C || std::int64_t(items) != C) return false;
    for (std::size_t d = 0; d + 1 < cs.size(); ++d)
        if (cs[d] != 1) return false;
    return true;
}

bool scale_shift_to_nce(const Module& m, std::size_t i, const TensorUses& uses) {
    if (m.int8 || i >= m.layers.size()) return false;
    const Layer& s = m.layers[i];
    if (s.exec != Exec::shave || s.inputs.size() != 2 || !s.shave.constant) return false;
    const std::int64_t ci = s.shave.constant->input;
    const std::string& k = s.shave.name;
    if (ci < 0 || ci > 1 || !(k == "mul" || k == "add" || k == "sub")) return false;
    // NHWC, one image: the last dimension is the NCE's channels (whatever the graph calls it)
    const View& x = s.inputs[std::size_t(1 - ci)];
    const std::vector<std::int64_t>& shape = s.output.shape;
    if (shape.size() != 4 || shape[0] != 1 || x.shape != shape || !per_channel_constant(s, shape[3])) return false;
    const std::size_t n = m.tensors.size();
    if (x.tensor < 0 || std::size_t(x.tensor) >= n || s.output.tensor < 0 || std::size_t(s.output.tensor) >= n) return false;
    const Tensor &X = m.tensors[std::size_t(x.tensor)], &Y = m.tensors[std::size_t(s.output.tensor)];
    if (X.dtype != DataType::fp16 || Y.dtype != DataType::fp16 || (X.role != Role::activation && X.role != Role::input)) return false;
    if (s.output.offset != 0 || !s.output.dense(2) || s.output.elements() * 2 != Y.bytes) return false;
    // an NCE producer that takes it keeps it (fuse-post-ops folds it there)
    return fusible_post_op(m, i, uses) < 0;
}

void make_scale_shift_nce(Module& m, std::size_t i) {
    Layer& s = m.layers[i];
    const ShaveKernel k = s.shave;
    const std::int64_t C = s.output.shape[3];
    const std::vector<float>& items = k.constant->items;
    s.exec = Exec::nce;
    s.nce_op = NceOp::maxpool;
    s.nce = NceParams{};
    s.shave = ShaveKernel{};
    s.inputs = {s.inputs[std::size_t(1 - k.constant->input)]};
    s.scale.assign(std::size_t(C), 1.0f);
    s.bias.assign(std::size_t(C), 0.0f);
    for (std::int64_t c = 0; c < C; ++c) {
        const float v = items.size() == 1 ? items[0] : items[std::size_t(c)];
        if (k.name == "mul") {
            s.scale[std::size_t(c)] = v;
        } else if (k.name == "sub" && k.constant->input == 0) {  // c - x: -x + c
            s.scale[std::size_t(c)] = -1.0f;
            s.bias[std::size_t(c)] = v;
        } else {
            s.bias[std::size_t(c)] = k.name == "add" ? v : -v;
        }
    }
}

}  // namespace nnef::vpu::ir
