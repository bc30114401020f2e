// Quantization compounds (spec 4.9.5, SPEC_NOTES 2): element-wise, broadcasting their tensor
// arguments. `bits` must be positive, and small enough that the compound's `2 ^ bits` does not
// overflow an integer (the expanded body would fail there).
#include "semantics/ops/common.hpp"

namespace nnef::sema::ops {

namespace ops_quantization_cpp {

ShapeFunction quantize(std::vector<std::string> ins) {
    return [element_wise = broadcasting_op(std::move(ins), "y")](ShapeContext& ctx) {
        std::int64_t bits = 0;
        if (!get_int(ctx, "bits", bits)) return false;
        if (bits < 1) return fail(ctx, "'bits' is " + std::to_string(bits) + "; it must be positive");
        if (bits > 62)
            return fail(ctx, "'bits' is " + std::to_string(bits) + "; 2 ^ bits overflows a 64-bit integer (at most 62)");
        return element_wise(ctx);
    };
}

}  // namespace ops_quantization_cpp

void add_quantization_ops(OpRegistry& r) {
    using ops_quantization_cpp::quantize;
    r.add({"linear_quantize", quantize({"x", "min", "max"})});
    r.add({"logarithmic_quantize", quantize({"x", "max"})});
    r.add({"min_max_linear_quantize", quantize({"x", "min", "max"})});
    r.add({"zero_point_linear_quantize", quantize({"x", "zero_point", "scale"})});
}

}  // namespace nnef::sema::ops
