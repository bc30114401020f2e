// Normalization compounds with a dedicated kernel (spec 4.9.4): batch_normalization, computed as
// its body offset + scale * (input - mean) / sqrt(variance + epsilon), step by step with
// broadcasting (so it rounds as the expansion does). The local and l1/l2 normalizations run
// through their expansion.
#include <cmath>

#include "exec/common.hpp"

namespace nnef::exec {

namespace exec_normalization_cpp {

bool batch_normalization(KernelContext& ctx) {
    const TensorValue& input = ctx.input("input", PrimType::scalar);
    const TensorValue& mean = ctx.input("mean", PrimType::scalar);
    const TensorValue& variance = ctx.input("variance", PrimType::scalar);
    const TensorValue& offset = ctx.input("offset", PrimType::scalar);
    const TensorValue& scale = ctx.input("scale", PrimType::scalar);
    const float epsilon = static_cast<float>(ctx.scalar_attr("epsilon"));
    TensorValue deviation(PrimType::scalar, variance.shape());
    broadcast_unary<float, float>(deviation, variance,
                                  [epsilon](float v) { return static_cast<float>(std::sqrt(double(v + epsilon))); });
    TensorValue out = ctx.make_output("output");
    TensorValue t(PrimType::scalar, out.shape());
    broadcast_binary<float, float, float>(t, input, mean, [](float x, float m) { return x - m; });
    TensorValue u(PrimType::scalar, out.shape());
    broadcast_binary<float, float, float>(u, scale, t, [](float s, float d) { return s * d; });
    broadcast_binary<float, float, float>(t, u, deviation, [](float a, float d) { return a / d; });
    broadcast_binary<float, float, float>(out, offset, t, [](float o, float a) { return o + a; });
    ctx.set_output("output", std::move(out));
    return true;
}

}  // namespace exec_normalization_cpp

void add_normalization_kernels(KernelRegistry& r) {
    r.add("batch_normalization", exec_normalization_cpp::batch_normalization);
}

}  // namespace nnef::exec
