// Up-sampling (spec 4.3.4): multilinear_upsample, one linear interpolation per spatial dimension
// (multilinear weights are the products of the linear ones). Output index i of a dimension with
// factor f and input extent x samples the input at
//   'asymmetric': v = i / f
//   'symmetric':  v = (i - (f - 1) / 2) / f
//   'aligned':    v = i * (x - 1) / (x * f - 1)   (v = 0 when x * f = 1)
// between items floor(v) and floor(v) + 1, weighted 1 - frac(v) and frac(v); items outside the
// input come from the border mode ('constant': 0, 'replicate': the edge, ...). The down-sampling
// compounds and nearest_upsample run through their expansion (box, debox).
#include "exec/common.hpp"

namespace nnef::NNEF_EXEC_NS {

namespace exec_sampling_cpp {

bool multilinear_upsample(KernelContext& ctx) {
    const TensorValue& x = ctx.input("input", PrimType::scalar);
    const Shape out_shape = ctx.output_shape("output");
    const std::string method = ctx.string_attr("method", "symmetric");
    const std::string border_name = ctx.string_attr("border", "replicate");
    Border border;
    if (!parse_border(border_name, border) || border == Border::ignore)
        return ctx.error("border '" + border_name + "' is not allowed");
    if (method != "symmetric" && method != "asymmetric" && method != "aligned")
        return ctx.error("unknown method '" + method + "'");
    TensorValue current = x;
    for (std::size_t k = 2; k < out_shape.size(); ++k) {
        const std::int64_t in = current.shape()[k], X = out_shape[k];
        if (in == X) continue;
        const double f = double(X) / double(in);
        std::vector<double> v(static_cast<std::size_t>(X));
        for (std::int64_t i = 0; i < X; ++i) {
            double c;
            if (method == "asymmetric") c = double(i) / f;
            else if (method == "symmetric") c = (double(i) - (f - 1.0) / 2.0) / f;
            else c = X > 1 ? double(i) * double(in - 1) / double(X - 1) : 0.0;
            v[static_cast<std::size_t>(i)] = c;
        }
        Shape next_shape = current.shape();
        next_shape[k] = X;
        TensorValue next(PrimType::scalar, next_shape);
        resample_axis(current.data<Real>(), current.shape(), k, linear_taps(v, in, border), next.data<Real>());
        current = std::move(next);
    }
    ctx.set_output("output", current.reshaped(out_shape));
    return true;
}

}  // namespace exec_sampling_cpp

void add_sampling_kernels(KernelRegistry& r) { r.add("multilinear_upsample", exec_sampling_cpp::multilinear_upsample); }

}  // namespace nnef::NNEF_EXEC_NS
