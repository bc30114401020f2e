// Normalization compounds with a dedicated kernel (spec 4.9.4): batch_normalization, computed as
// its body offset + scale * (input - mean) / sqrt(variance + epsilon), step by step with
// broadcasting (so it rounds as the expansion does). The local and l1/l2 normalizations run
// through their expansion.
#include <cmath>

#include "exec/common.hpp"

namespace nnef::NNEF_EXEC_NS {

namespace exec_normalization_cpp {

bool batch_normalization(KernelContext& ctx) {
    const TensorValue& input = ctx.input("input", PrimType::scalar);
    const TensorValue& mean = ctx.input("mean", PrimType::scalar);
    const TensorValue& variance = ctx.input("variance", PrimType::scalar);
    const TensorValue& offset = ctx.input("offset", PrimType::scalar);
    const TensorValue& scale = ctx.input("scale", PrimType::scalar);
    const Real epsilon = static_cast<Real>(ctx.scalar_attr("epsilon"));
    TensorValue deviation(PrimType::scalar, variance.shape());
    broadcast_unary<Real, Real>(deviation, variance,
                                  [epsilon](Real v) { return static_cast<Real>(std::sqrt(double(v + epsilon))); });
    TensorValue out = ctx.make_output("output");
    TensorValue t(PrimType::scalar, out.shape());
    broadcast_binary<Real, Real, Real>(t, input, mean, [](Real x, Real m) { return x - m; });
    TensorValue u(PrimType::scalar, out.shape());
    broadcast_binary<Real, Real, Real>(u, scale, t, [](Real s, Real d) { return s * d; });
    broadcast_binary<Real, Real, Real>(t, u, deviation, [](Real a, Real d) { return a / d; });
    broadcast_binary<Real, Real, Real>(out, offset, t, [](Real o, Real a) { return o + a; });
    ctx.set_output("output", std::move(out));
    return true;
}

}  // namespace exec_normalization_cpp

void add_normalization_kernels(KernelRegistry& r) {
    r.add("batch_normalization", exec_normalization_cpp::batch_normalization);
}

}  // namespace nnef::NNEF_EXEC_NS
