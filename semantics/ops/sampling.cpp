// Up- and down-sampling (spec 4.3.4): nearest_downsample, area_downsample, nearest_upsample,
// multilinear_upsample. Factors apply to the spatial dimensions; a shorter `factor` gets trailing
// 1s and a longer one is an error (the compounds' expansion passes `[1,1] + factor` as a window
// array, SPEC_NOTES 5). Down-sampling factors must divide the extents (SPEC_NOTES 5).
#include "semantics/ops/common.hpp"

namespace nnef::sema::ops {

namespace ops_sampling_cpp {

bool read_factor(ShapeContext& ctx, const Shape& in, Ints& factor) {
    if (!check_min_rank(ctx, "input", in, 2, "a batch and a channel dimension")) return false;
    if (!get_ints(ctx, "factor", factor)) return false;
    const std::size_t spatial = in.size() - 2;
    if (factor.size() > spatial)
        return fail(ctx, "'factor' " + str(factor) + " has " + std::to_string(factor.size()) + " items but 'input' " +
                             to_string(in) + " has " + std::to_string(spatial) +
                             " spatial dimensions; it must have at most one item per spatial dimension");
    if (!check_positive(ctx, "factor", factor)) return false;
    factor.resize(spatial, 1);
    return true;
}

bool downsample(ShapeContext& ctx) {
    Shape in;
    Ints factor;
    if (!get_shape(ctx, "input", in) || !read_factor(ctx, in, factor)) return false;
    Shape out = in;
    for (std::size_t i = 0; i < factor.size(); ++i) {
        const std::int64_t X = in[i + 2];
        if (X % factor[i] != 0)
            return fail(ctx, "item " + std::to_string(i) + " of 'factor' " + str(factor) + " (" +
                                 std::to_string(factor[i]) + ") does not divide the extent " + std::to_string(X) +
                                 " of 'input' " + to_string(in) + " in dimension " + std::to_string(i + 2));
        out[i + 2] = X / factor[i];
    }
    ctx.set_shape("output", out);
    return true;
}

bool upsample(ShapeContext& ctx) {
    Shape in;
    Ints factor;
    if (!get_shape(ctx, "input", in) || !read_factor(ctx, in, factor)) return false;
    Shape out = in;
    for (std::size_t i = 0; i < factor.size(); ++i) {
        auto X = checked_mul(in[i + 2], factor[i]);
        if (!X) return fail(ctx, "the up-sampled extent in dimension " + std::to_string(i + 2) + " overflows");
        out[i + 2] = *X;
    }
    ctx.set_shape("output", out);
    return true;
}

bool multilinear_upsample(ShapeContext& ctx) {
    std::string method, border;
    if (!get_string(ctx, "method", method) || !check_one_of(ctx, "method", method, linear_methods()) ||
        !get_string(ctx, "border", border) || !check_one_of(ctx, "border", border, borders_no_ignore()))
        return false;
    return upsample(ctx);
}

}  // namespace ops_sampling_cpp

void add_sampling_ops(OpRegistry& r) {
    r.add({"nearest_downsample", ops_sampling_cpp::downsample});
    r.add({"area_downsample", ops_sampling_cpp::downsample});
    r.add({"nearest_upsample", ops_sampling_cpp::upsample});
    r.add({"multilinear_upsample", ops_sampling_cpp::multilinear_upsample});
}

}  // namespace nnef::sema::ops
