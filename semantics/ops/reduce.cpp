// Reduce operations (spec 4.4, any_reduce/all_reduce of SPEC_NOTES 2) and the compounds whose
// validity is that of their reductions: mean_reduce, moments (4.9.6) and softmax (4.9.1).
#include "semantics/ops/common.hpp"

namespace nnef::sema::ops {

namespace ops_reduce_cpp {

// Reads `axes` for the tensor argument `in` and gives the reduced shape (singular along `axes`).
bool reduced(ShapeContext& ctx, const char* in, Shape& shape, Shape& out) {
    Ints axes;
    if (!get_shape(ctx, in, shape) || !get_ints(ctx, "axes", axes) ||
        !check_axes(ctx, "axes", axes, shape.size(), "'" + std::string(in) + "' " + to_string(shape)))
        return false;
    out = shape;
    for (std::int64_t a : axes) out[static_cast<std::size_t>(a)] = 1;
    return true;
}

bool reduce(ShapeContext& ctx) {
    Shape in, out;
    if (!reduced(ctx, "input", in, out)) return false;
    ctx.set_shape("output", out);
    return true;
}

bool moments(ShapeContext& ctx) {
    Shape in, out;
    if (!reduced(ctx, "input", in, out)) return false;
    ctx.set_shape("mean", out);
    ctx.set_shape("variance", out);
    return true;
}

bool softmax(ShapeContext& ctx) {
    Shape in, out;
    if (!reduced(ctx, "x", in, out)) return false;
    ctx.set_shape("y", in);
    return true;
}

}  // namespace ops_reduce_cpp

void add_reduce_ops(OpRegistry& r) {
    for (const char* name : {"sum_reduce", "max_reduce", "min_reduce", "argmax_reduce", "argmin_reduce",
                             "mean_reduce", "any_reduce", "all_reduce"})
        r.add({name, ops_reduce_cpp::reduce});
    r.add({"moments", ops_reduce_cpp::moments});
    r.add({"softmax", ops_reduce_cpp::softmax});
}

}  // namespace nnef::sema::ops
