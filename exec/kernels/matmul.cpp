// Matrix multiplication (spec 4.7) and the compound linear (4.9.2: matmul(input, filter,
// transposeB = true) + bias). Leading dimensions are batch dimensions that broadcast as for
// binary operations.
#include "exec/common.hpp"
#include "exec/gemm.hpp"

namespace nnef::NNEF_EXEC_NS {

namespace exec_matmul_cpp {

// C = A' B' into `out` (its shape from the graph).
bool multiply(KernelContext& ctx, const TensorValue& a, bool ta, const TensorValue& b, bool tb, TensorValue& out) {
    const std::size_t r = out.rank();
    if (a.rank() != r || b.rank() != r || r < 2) return ctx.error("the operands must have the rank of the result (>= 2)");
    const std::int64_t rows = out.shape()[r - 2], cols = out.shape()[r - 1];
    const std::int64_t am = a.shape()[r - 2], an = a.shape()[r - 1], bm = b.shape()[r - 2], bn = b.shape()[r - 1];
    const std::int64_t K = ta ? am : an;
    if ((ta ? an : am) != rows || (tb ? bm : bn) != cols || (tb ? bn : bm) != K)
        return ctx.error("operand shapes " + to_string(a.shape()) + " and " + to_string(b.shape()) + " do not fit " +
                         to_string(out.shape()));
    const MatrixView av{nullptr, ta ? 1 : an, ta ? an : 1};
    const MatrixView bv{nullptr, tb ? 1 : bn, tb ? bn : 1};
    const Shape batch(out.shape().begin(), out.shape().end() - 2);
    const Shape a_batch(a.shape().begin(), a.shape().end() - 2), b_batch(b.shape().begin(), b.shape().end() - 2);
    const auto plan = broadcast_plan<2>(batch, {&a_batch, &b_batch});
    const Real* x = a.data<Real>();
    const Real* y = b.data<Real>();
    Real* z = out.data<Real>();
    for_each_run(plan, [&](const std::array<std::int64_t, 2>& off, std::int64_t oo, std::int64_t n,
                           const std::array<std::int64_t, 2>& st) {
        for (std::int64_t i = 0; i < n; ++i) {
            MatrixView A = av, B = bv;
            A.data = x + (off[0] + i * st[0]) * am * an;
            B.data = y + (off[1] + i * st[1]) * bm * bn;
            gemm(rows, cols, K, A, B, z + (oo + i) * rows * cols, cols, false, ctx.threads());
        }
    });
    return true;
}

bool matmul(KernelContext& ctx) {
    const TensorValue& a = ctx.input("A", PrimType::scalar);
    const TensorValue& b = ctx.input("B", PrimType::scalar);
    TensorValue c = ctx.make_output("C");
    if (!multiply(ctx, a, ctx.logical_attr("transposeA"), b, ctx.logical_attr("transposeB"), c)) return false;
    ctx.set_output("C", std::move(c));
    return true;
}

bool linear(KernelContext& ctx) {
    const TensorValue& input = ctx.input("input", PrimType::scalar);
    const TensorValue& filter = ctx.input("filter", PrimType::scalar);
    TensorValue bias = ctx.input("bias", PrimType::scalar);
    const Shape out_shape = ctx.output_shape("output");
    // matmul(input, filter, transposeB = true): the product has the rank of the input
    Shape product_shape(input.shape().begin(), input.shape().end() - 1);
    product_shape.push_back(filter.shape()[filter.rank() - 2]);
    TensorValue product(PrimType::scalar, product_shape);
    if (!multiply(ctx, input, false, filter, true, product)) return false;
    // A rank-1 bias [n] (n > 1) is the de facto [1, n] (as shape inference reads it).
    if (bias.rank() == 1 && bias.shape()[0] != 1) bias = bias.reshaped({1, bias.shape()[0]});
    TensorValue out = ctx.make_output("output");
    broadcast_binary<Real, Real, Real>(out, product, bias, [](Real p, Real b) { return p + b; });
    ctx.set_output("output", std::move(out));
    return true;
}

}  // namespace exec_matmul_cpp

void add_matmul_kernels(KernelRegistry& r) {
    r.add("matmul", exec_matmul_cpp::matmul);
    r.add("linear", exec_matmul_cpp::linear);
}

}  // namespace nnef::NNEF_EXEC_NS
