// assign-executors (assign_executors.hpp), the int8 path: element-wise SHAVE kernels on a vector
// [1, C] (a classifier's int32 accumulator after its RESHAPE, the fine bias's MUL and ADD, the
// RESCALE to int8: `--bias-grid fine`, docs/vpu.md) run on [1, 1, 1, C], the geometry of the
// NCE conv that produced the accumulator. The schedule holds only rank-4 results of one image in
// CMX (schedule_held.cpp `can_hold`); as [1, C] each kernel's result was stored to DDR and loaded
// again by the next one (ShuffleNet v2 int8: six transfers of 4000 bytes on the critical path).
// The same bytes in the same order: the TOSA value keeps its [1, C] view of the tensor.
#include "lowering/vpu/passes/assign_executors.hpp"

namespace nnef::vpu::ir::assign_executors_impl {

void Builder::vector_as_nhwc(const tosa::Op& op, Layer& l) const {
    switch (op.kind) {
        case OpKind::ADD:
        case OpKind::SUB:
        case OpKind::MUL:
        case OpKind::MAXIMUM:
        case OpKind::MINIMUM:
        case OpKind::CLAMP:
        case OpKind::RESCALE: break;
        default: return;
    }
    const auto& ys = l.output.shape;
    if (ys.size() != 2 || ys[0] != 1 || l.inputs.empty()) return;
    for (const View& in : l.inputs)
        if (in.shape != ys || !in.dense(es(in))) return;
    const std::vector<std::int64_t> shape4 = {1, 1, 1, ys[1]};
    for (View& in : l.inputs) {
        in.shape = shape4;
        in.strides = dense_strides(shape4, es(in));
    }
    l.output.shape = shape4;
    l.output.strides = dense_strides(shape4, es(l.output));
}

}  // namespace nnef::vpu::ir::assign_executors_impl
