// Region-of-interest operations (spec 4.6): avg_roi_pool, max_roi_pool, roi_resample and the
// compounds avg_roi_align, max_roi_align (checked by intent, SPEC_NOTES 5: resampling to
// output_size * sampling_rate, then pooling by sampling_rate, gives output_size).
#include "semantics/ops/common.hpp"

namespace nnef::sema::ops {

namespace ops_roi_cpp {

// Checks input (B, C, spatial...), rois (N, 2M), batch_index (N, 1) and output_size (M positive
// items); gives the output shape (N, C, output_size...).
bool roi_shape(ShapeContext& ctx, Shape& out) {
    Shape in, rois, index;
    Ints size;
    if (!get_shape(ctx, "input", in) || !get_shape(ctx, "rois", rois) || !get_shape(ctx, "batch_index", index) ||
        !get_ints(ctx, "output_size", size))
        return false;
    if (!check_min_rank(ctx, "input", in, 3, "a batch, a channel and at least one spatial dimension")) return false;
    const std::size_t spatial = in.size() - 2;
    if (rois.size() != 2 || static_cast<std::uint64_t>(rois[1]) != 2 * spatial)
        return fail(ctx, "'rois' " + to_string(rois) + " must have shape (N, " + std::to_string(2 * spatial) +
                             "): N regions of 2 coordinates per spatial dimension of 'input' " + to_string(in));
    const std::int64_t n = rois[0];
    // (N, 1); [N] is the same tensor (trailing singleton dimensions are implicit).
    if (!(index.size() == 2 && index[0] == n && index[1] == 1) && !(index.size() == 1 && index[0] == n))
        return fail(ctx, "'batch_index' " + to_string(index) + " must have shape (N, 1) = [" + std::to_string(n) +
                             ",1], one batch index per region of 'rois' " + to_string(rois));
    if (size.size() != spatial)
        return fail(ctx, "'output_size' " + str(size) + " has " + std::to_string(size.size()) + " items; it needs one " +
                             "per spatial dimension of 'input' " + to_string(in) + " (" + std::to_string(spatial) + ")");
    if (!check_positive(ctx, "output_size", size)) return false;
    out = Shape{n, in[1]};
    out.insert(out.end(), size.begin(), size.end());
    return true;
}

bool roi_pool(ShapeContext& ctx) {
    Shape out;
    if (!roi_shape(ctx, out)) return false;
    ctx.set_shape("output", out);
    return true;
}

bool roi_resample(ShapeContext& ctx) {
    std::string method;
    if (!get_string(ctx, "method", method) || !check_one_of(ctx, "method", method, linear_methods())) return false;
    return roi_pool(ctx);
}

bool roi_align(ShapeContext& ctx) {
    std::string method;
    Ints rate;
    if (!get_string(ctx, "resize_method", method) || !check_one_of(ctx, "resize_method", method, linear_methods()) ||
        !get_ints(ctx, "sampling_rate", rate))
        return false;
    Shape out;
    if (!roi_shape(ctx, out)) return false;
    const std::size_t spatial = out.size() - 2;
    if (rate.size() != spatial)
        return fail(ctx, "'sampling_rate' " + str(rate) + " has " + std::to_string(rate.size()) +
                             " items; it needs one per spatial dimension (" + std::to_string(spatial) + ")");
    if (!check_positive(ctx, "sampling_rate", rate)) return false;
    for (std::size_t i = 0; i < spatial; ++i)
        if (!checked_mul(out[i + 2], rate[i]))
            return fail(ctx, "the resampled size output_size * sampling_rate overflows in dimension " +
                                 std::to_string(i + 2));
    ctx.set_shape("output", out);
    return true;
}

}  // namespace ops_roi_cpp

void add_roi_ops(OpRegistry& r) {
    r.add({"avg_roi_pool", ops_roi_cpp::roi_pool});
    r.add({"max_roi_pool", ops_roi_cpp::roi_pool});
    r.add({"roi_resample", ops_roi_cpp::roi_resample});
    r.add({"avg_roi_align", ops_roi_cpp::roi_align});
    r.add({"max_roi_align", ops_roi_cpp::roi_align});
}

}  // namespace nnef::sema::ops
