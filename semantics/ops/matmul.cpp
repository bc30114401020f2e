// Matrix multiplication (spec 4.7) and the linear compound (4.9.2:
// matmul(input, filter, transposeB = true) + bias).
#include "semantics/ops/common.hpp"

namespace nnef::sema::ops {

namespace ops_matmul_cpp {

// C = A' B' for argument names `a_name`, `b_name`; leading r - 2 dimensions broadcast as batch
// dimensions.
bool matmul_shape(ShapeContext& ctx, const std::string& a_name, const Shape& a, bool ta, const std::string& b_name,
                  const Shape& b, bool tb, Shape& out) {
    if (a.size() < 2 || b.size() < 2 || a.size() != b.size())
        return fail(ctx, "the ranks of " + q(a_name) + " " + to_string(a) + " and " + q(b_name) + " " + to_string(b) +
                             " must be equal and at least 2");
    const std::size_t r = a.size();
    Shape batch;
    if (!broadcast(ctx, {{a_name, Shape(a.begin(), a.end() - 2)}, {b_name, Shape(b.begin(), b.end() - 2)}}, batch))
        return false;
    const std::int64_t mA = a[r - 2], nA = a[r - 1], mB = b[r - 2], nB = b[r - 1];
    const std::int64_t rows = ta ? nA : mA, inner_a = ta ? mA : nA;
    const std::int64_t inner_b = tb ? nB : mB, cols = tb ? mB : nB;
    if (inner_a != inner_b) {
        auto side = [](bool t, const std::string& name, bool left) {
            const char* which = left ? (t ? "rows" : "columns") : (t ? "columns" : "rows");
            return std::string(which) + " of " + q(name) + (t ? " (transposed)" : "");
        };
        return fail(ctx, "the " + side(ta, a_name, true) + " " + to_string(a) + " (" + std::to_string(inner_a) +
                             ") must equal the " + side(tb, b_name, false) + " " + to_string(b) + " (" +
                             std::to_string(inner_b) + ")");
    }
    out = batch;
    out.push_back(rows);
    out.push_back(cols);
    return true;
}

bool matmul(ShapeContext& ctx) {
    Shape a, b, out;
    bool ta = false, tb = false;
    if (!get_shape(ctx, "A", a) || !get_shape(ctx, "B", b) || !get_logical(ctx, "transposeA", ta) ||
        !get_logical(ctx, "transposeB", tb) || !matmul_shape(ctx, "A", a, ta, "B", b, tb, out))
        return false;
    ctx.set_shape("C", out);
    return true;
}

bool linear(ShapeContext& ctx) {
    Shape in, filter, bias, product, out;
    if (!get_shape(ctx, "input", in) || !get_shape(ctx, "filter", filter) || !get_shape(ctx, "bias", bias) ||
        !matmul_shape(ctx, "input", in, false, "filter", filter, true, product))
        return false;
    if (!broadcast(ctx, {{"matmul(input, filter)", product}, {"bias", bias_shape(ctx, "bias", bias)}}, out))
        return false;
    ctx.set_shape("output", out);
    return true;
}

}  // namespace ops_matmul_cpp

void add_matmul_ops(OpRegistry& r) {
    r.add({"matmul", ops_matmul_cpp::matmul});
    r.add({"linear", ops_matmul_cpp::linear});
}

}  // namespace nnef::sema::ops
