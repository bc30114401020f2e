// assign-executors (assign_executors.hpp), the fp16 path: element-wise SHAVE kernels on a
// transformer's tokens, [1, N, C] values (ViT's layer norms, GELU, residual adds), run on the plane
// [1, N', W', C] (N = N' W', as_plane: the geometry its NCE matmuls already take), their operands
// [1, N, C'] likewise and [1, 1, C'] (a per-channel or scalar constant) as [1, 1, 1, C'], a
// reduction over C over the plane's channels. Rank 4 of one image is what fuse-post-ops' scale and
// shift on the NCE, the unary operators on the NCE and the streamed runs take (ConvNeXt's and
// Swin's NHWC chains); as [1, N, C] every such kernel ran on SHAVE, a result stored to DDR and
// loaded again by the next. The same bytes in the same order: the TOSA value keeps its own view.
#include "lowering/vpu/passes/assign_executors.hpp"

namespace nnef::vpu::ir::assign_executors_impl {

void Builder::tokens_as_plane(const tosa::Op& op, Layer& l) const {
    const std::string& family = tosa::op_info(op.kind).family;
    const bool reduce = family == "reduction";
    if (!(family == "activation" || family == "elementwise_unary" || family == "elementwise_binary" ||
          family == "elementwise_ternary" || family == "comparison" || reduce))
        return;
    const auto& ys = l.output.shape;
    if (ys.size() != 3 || ys[0] != 1 || ys[1] < 2 || l.inputs.empty()) return;
    if (reduce && (!l.shave.axis || *l.shave.axis != 2)) return;
    const std::int64_t N = ys[1];
    for (const View& in : l.inputs)
        if (in.shape.size() != 3 || in.shape[0] != 1 || (in.shape[1] != N && in.shape[1] != 1)) return;
    for (View& in : l.inputs) in = plane_of(in, N);
    l.output = plane_of(l.output, N);
    if (reduce) l.shave.axis = 3;
}

}  // namespace nnef::vpu::ir::assign_executors_impl
