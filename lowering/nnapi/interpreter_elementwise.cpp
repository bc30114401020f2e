// The element-wise kernels of the NNAPI 1.0 interpreter: ADD and MUL (with broadcasting and a fused
// activation), RELU, RELU1, RELU6, FLOOR, TANH, LOGISTIC, DEQUANTIZE. Quant8 ADD and MUL follow the
// 1.0 CPU reference's integer arithmetic; quant8 LOGISTIC is computed in float from the dequantized
// input and rounded to the nearest code (the reference's fixed-point exp differs by at most a code).
#include <algorithm>
#include <cmath>

#include "lowering/nnapi/fixed_point.hpp"
#include "lowering/nnapi/interpreter_ops.hpp"

namespace nnef::nnapi::detail {

namespace {

// For each output element, the element of `in` it reads under broadcasting.
std::vector<std::uint32_t> broadcast_index(const std::vector<std::uint32_t>& in, const std::vector<std::uint32_t>& out) {
    std::size_t r = out.size();
    std::vector<std::uint64_t> stride(r, 0);
    std::uint64_t s = 1;
    for (std::size_t i = 0; i < in.size(); ++i) {
        std::size_t axis_in = in.size() - 1 - i, axis_out = r - 1 - i;
        stride[axis_out] = in[axis_in] == 1 ? 0 : s;
        s *= in[axis_in];
    }
    std::uint64_t total = 1;
    for (std::uint32_t d : out) total *= d;
    std::vector<std::uint32_t> index(total);
    std::vector<std::uint32_t> pos(r, 0);
    for (std::uint64_t e = 0; e < total; ++e) {
        std::uint64_t offset = 0;
        for (std::size_t a = 0; a < r; ++a) offset += pos[a] * stride[a];
        index[e] = std::uint32_t(offset);
        for (std::size_t a = r; a-- > 0;) {
            if (++pos[a] < out[a]) break;
            pos[a] = 0;
        }
    }
    return index;
}

bool binary(Kernel& k) {
    const Tensor& a = k.in(0);
    const Tensor& b = k.in(1);
    Tensor& out = k.out(0);
    const std::int32_t act = k.activation();
    const bool add = k.op().type == OperationType::ADD;
    auto ia = broadcast_index(a.dimensions, out.dimensions);
    auto ib = broadcast_index(b.dimensions, out.dimensions);
    if (a.type == OperandType::TENSOR_FLOAT32) {
        for (std::size_t e = 0; e < ia.size(); ++e) {
            float x = as<float>(a)[ia[e]], y = as<float>(b)[ib[e]];
            as<float>(out)[e] = apply_activation(add ? x + y : x * y, act);
        }
        return true;
    }
    CodeRange range = activation_range_uint8(act, out.scale, out.zeroPoint);
    if (add) {
        const int left_shift = 20;
        const double twice_max = 2.0 * std::max(double(a.scale), double(b.scale));
        const QuantizedMultiplier ma = quantize_multiplier(double(a.scale) / twice_max);
        const QuantizedMultiplier mb = quantize_multiplier(double(b.scale) / twice_max);
        const QuantizedMultiplier mo = quantize_multiplier(twice_max / (double(1 << left_shift) * double(out.scale)));
        for (std::size_t e = 0; e < ia.size(); ++e) {
            std::int32_t x = (std::int32_t(a.data[ia[e]]) - a.zeroPoint) * (1 << left_shift);
            std::int32_t y = (std::int32_t(b.data[ib[e]]) - b.zeroPoint) * (1 << left_shift);
            std::int32_t sum = saturate_int32(std::int64_t{multiply_by_quantized_multiplier(x, ma)} + multiply_by_quantized_multiplier(y, mb));
            std::int64_t v = std::int64_t{multiply_by_quantized_multiplier(sum, mo)} + out.zeroPoint;
            out.data[e] = std::uint8_t(std::clamp<std::int64_t>(v, range.min, range.max));
        }
        return true;
    }
    const QuantizedMultiplier m = quantize_multiplier(double(a.scale) * double(b.scale) / double(out.scale));
    for (std::size_t e = 0; e < ia.size(); ++e) {
        std::int32_t x = std::int32_t(a.data[ia[e]]) - a.zeroPoint;
        std::int32_t y = std::int32_t(b.data[ib[e]]) - b.zeroPoint;
        std::int64_t v = std::int64_t{multiply_by_quantized_multiplier(x * y, m)} + out.zeroPoint;
        out.data[e] = std::uint8_t(std::clamp<std::int64_t>(v, range.min, range.max));
    }
    return true;
}

}  // namespace

bool run_elementwise_operation(Kernel& k) {
    const OperationType type = k.op().type;
    if (type == OperationType::ADD || type == OperationType::MUL) return binary(k);
    const Tensor& in = k.in(0);
    Tensor& out = k.out(0);
    const std::size_t n = std::size_t(in.element_count());
    if (type == OperationType::DEQUANTIZE) {
        for (std::size_t e = 0; e < n; ++e) as<float>(out)[e] = float(std::int32_t(in.data[e]) - in.zeroPoint) * in.scale;
        return true;
    }
    if (in.type == OperandType::TENSOR_FLOAT32) {
        const float* x = as<float>(in);
        float* y = as<float>(out);
        for (std::size_t e = 0; e < n; ++e) {
            switch (type) {
                case OperationType::RELU: y[e] = apply_activation(x[e], 1); break;
                case OperationType::RELU1: y[e] = apply_activation(x[e], 2); break;
                case OperationType::RELU6: y[e] = apply_activation(x[e], 3); break;
                case OperationType::FLOOR: y[e] = std::floor(x[e]); break;
                case OperationType::TANH: y[e] = std::tanh(x[e]); break;
                case OperationType::LOGISTIC: y[e] = 1.0f / (1.0f + std::exp(-x[e])); break;
                default: return k.fail("not an element-wise operation");
            }
        }
        return true;
    }
    if (type == OperationType::LOGISTIC) {
        // The output's scale is 1/256 and its zeroPoint 0 (validated).
        for (std::size_t e = 0; e < n; ++e) {
            float x = float(std::int32_t(in.data[e]) - in.zeroPoint) * in.scale;
            float y = 1.0f / (1.0f + std::exp(-x));
            out.data[e] = std::uint8_t(std::clamp<long>(std::lround(y * 256.0f), 0, 255));
        }
        return true;
    }
    // RELU, RELU1, RELU6 on codes: the output has the input's scale and zeroPoint.
    std::int32_t activation = type == OperationType::RELU ? 1 : type == OperationType::RELU1 ? 2 : 3;
    CodeRange range = activation_range_uint8(activation, out.scale, out.zeroPoint);
    for (std::size_t e = 0; e < n; ++e) out.data[e] = std::uint8_t(std::clamp<std::int32_t>(in.data[e], range.min, range.max));
    return true;
}

}  // namespace nnef::nnapi::detail
