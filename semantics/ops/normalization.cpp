// Normalization compounds (spec 4.9.4): the local_* normalizations (a box filter of `size` with
// automatic padding and unit stride, so the output keeps the input shape), l1/l2_normalization
// (a sum reduction over `axes`) and batch_normalization (element-wise, broadcasting).
#include "semantics/ops/common.hpp"

namespace nnef::sema::ops {

namespace ops_normalization_cpp {

bool local_normalization(ShapeContext& ctx) {
    Shape in;
    if (!get_shape(ctx, "input", in)) return false;
    Window w;
    w.dims = in.size();
    if (!read_size(ctx, "size", w, "dimensions of 'input'") || !set_window(ctx, w, "dimensions of 'input'", {}, {}, {}))
        return false;
    Shape out;
    if (!window_down(ctx, w, in, "'input'", out)) return false;
    ctx.set_shape("output", out);
    return true;
}

bool axes_normalization(ShapeContext& ctx) {
    Shape in;
    Ints axes;
    if (!get_shape(ctx, "input", in) || !get_ints(ctx, "axes", axes) ||
        !check_axes(ctx, "axes", axes, in.size(), "'input' " + to_string(in)))
        return false;
    ctx.set_shape("output", in);
    return true;
}

}  // namespace ops_normalization_cpp

void add_normalization_ops(OpRegistry& r) {
    for (const char* name : {"local_response_normalization", "local_mean_normalization",
                             "local_variance_normalization", "local_contrast_normalization"})
        r.add({name, ops_normalization_cpp::local_normalization});
    r.add({"l1_normalization", ops_normalization_cpp::axes_normalization});
    r.add({"l2_normalization", ops_normalization_cpp::axes_normalization});
    r.add({"batch_normalization", broadcasting_op({"input", "mean", "variance", "offset", "scale"}, "output")});
}

}  // namespace nnef::sema::ops
