// The values at an exported model's boundary: NNEF's row-major NCHW reals <-> the NHWC (quant8)
// operand values of the NNAPI model (lowering/nnapi/from_nnef.hpp).
#include <algorithm>

#include "lowering/nnapi/from_nnef.hpp"

namespace nnef::nnapi {

namespace nnapi_from_nnef_boundary_cpp {

// NNEF item index -> NNAPI item index (NHWC for a rank-4 tensor held NHWC, else the same).
std::vector<std::size_t> item_map(const Shape& s, bool nhwc) {
    std::int64_t n = 1;
    for (std::int64_t e : s) n *= e;
    std::vector<std::size_t> map(static_cast<std::size_t>(n));
    for (std::size_t i = 0; i < map.size(); ++i) map[i] = i;
    if (!nhwc || s.size() != 4) return map;
    const std::int64_t N = s[0], C = s[1], H = s[2], W = s[3];
    std::size_t i = 0;
    for (std::int64_t b = 0; b < N; ++b)
        for (std::int64_t c = 0; c < C; ++c)
            for (std::int64_t h = 0; h < H; ++h)
                for (std::int64_t w = 0; w < W; ++w) map[i++] = static_cast<std::size_t>(((b * H + h) * W + w) * C + c);
    return map;
}

}  // namespace nnapi_from_nnef_boundary_cpp

Tensor to_operand_value(const Model& model, const TensorBinding& b, const Shape& nnef_shape, const std::vector<double>& reals,
                        const storage::QuantParams* p) {
    const Operand& op = model.operands.at(b.operand);
    const std::vector<std::size_t> map = nnapi_from_nnef_boundary_cpp::item_map(nnef_shape, b.nhwc);
    if (b.quantized && p) {
        std::vector<std::uint8_t> codes(map.size());
        for (std::size_t k = 0; k < map.size() && k < reals.size(); ++k)
            codes[map[k]] = static_cast<std::uint8_t>(std::clamp<std::int64_t>(p->quantize(reals[k]) + b.offset, 0, 255));
        return make_quant8_tensor(op.dimensions, codes, op.scale, op.zeroPoint);
    }
    std::vector<float> items(map.size());
    for (std::size_t k = 0; k < map.size() && k < reals.size(); ++k) items[map[k]] = static_cast<float>(reals[k]);
    return make_float_tensor(op.dimensions, items);
}

std::vector<double> from_operand_value(const TensorBinding& b, const Shape& nnef_shape, const Tensor& value,
                                       const storage::QuantParams* p) {
    const std::vector<std::size_t> map = nnapi_from_nnef_boundary_cpp::item_map(nnef_shape, b.nhwc);
    const std::vector<float> reals = to_floats(value);
    std::vector<double> out(map.size());
    for (std::size_t k = 0; k < map.size(); ++k) {
        const std::size_t at = map[k];
        if (at >= reals.size()) return {};
        out[k] = b.quantized && p && value.type == OperandType::TENSOR_QUANT8_ASYMM
                     ? p->dequantize(std::int64_t(value.data[at]) - b.offset)
                     : double(reals[at]);
    }
    return out;
}

}  // namespace nnef::nnapi
