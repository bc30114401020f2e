// The NNAPI 1.0 interpreter's other kernels: CONCATENATION, RESHAPE, DEPTH_TO_SPACE, SPACE_TO_DEPTH,
// SOFTMAX, L2_NORMALIZATION, LOCAL_RESPONSE_NORMALIZATION, RESIZE_BILINEAR, EMBEDDING_LOOKUP,
// HASHTABLE_LOOKUP, RNN. LSTM, SVDF and LSH_PROJECTION are validated but not run (docs/nnapi.md).
#include <algorithm>
#include <cmath>
#include <cstring>

#include "lowering/nnapi/fixed_point.hpp"
#include "lowering/nnapi/interpreter_ops.hpp"

namespace nnef::nnapi::detail {

namespace {

std::size_t element_bytes(const Tensor& t) { return element_size(t.type); }

bool concatenation(Kernel& k) {
    const std::size_t n = k.inputs() - 1;
    const std::size_t axis = std::size_t(k.int_at(n));
    Tensor& out = k.out(0);
    std::uint64_t outer = 1;
    for (std::size_t a = 0; a < axis; ++a) outer *= out.dimensions[a];
    std::uint8_t* dst = out.data.data();
    for (std::uint64_t o = 0; o < outer; ++o)
        for (std::size_t i = 0; i < n; ++i) {
            const Tensor& in = k.in(i);
            std::uint64_t chunk = element_bytes(in);
            for (std::size_t a = axis; a < in.dimensions.size(); ++a) chunk *= in.dimensions[a];
            std::memcpy(dst, in.data.data() + o * chunk, chunk);
            dst += chunk;
        }
    return true;
}

// DEPTH_TO_SPACE and SPACE_TO_DEPTH (TensorFlow's layout of the blocks: depth index
// (block_row * block + block_col) * out_depth + c).
bool depth_space(Kernel& k) {
    const Tensor& in = k.in(0);
    Tensor& out = k.out(0);
    const std::uint32_t block = std::uint32_t(k.int_at(1));
    const std::size_t e = element_bytes(in);
    const bool to_space = k.op().type == OperationType::DEPTH_TO_SPACE;
    // Walk the side with the small depth: for DEPTH_TO_SPACE the output, else the input.
    const Tensor& spatial = to_space ? out : in;
    const Tensor& deep = to_space ? in : out;
    const std::uint32_t B = spatial.dimensions[0], H = spatial.dimensions[1], W = spatial.dimensions[2], C = spatial.dimensions[3];
    const std::uint32_t DH = deep.dimensions[1], DW = deep.dimensions[2], DC = deep.dimensions[3];
    for (std::uint32_t b = 0; b < B; ++b)
        for (std::uint32_t y = 0; y < H; ++y)
            for (std::uint32_t x = 0; x < W; ++x)
                for (std::uint32_t c = 0; c < C; ++c) {
                    std::uint32_t dy = y / block, dx = x / block;
                    std::uint32_t dc = ((y % block) * block + (x % block)) * C + c;
                    std::size_t s = ((std::size_t(b) * H + y) * W + x) * C + c;
                    std::size_t d = ((std::size_t(b) * DH + dy) * DW + dx) * DC + dc;
                    if (to_space) std::memcpy(out.data.data() + s * e, in.data.data() + d * e, e);
                    else std::memcpy(out.data.data() + d * e, in.data.data() + s * e, e);
                }
    return true;
}

// SOFTMAX, L2_NORMALIZATION, LOCAL_RESPONSE_NORMALIZATION: along the last dimension.
bool along_depth(Kernel& k) {
    const Tensor& in = k.in(0);
    Tensor& out = k.out(0);
    const std::size_t depth = in.dimensions.back();
    const std::size_t rows = depth == 0 ? 0 : std::size_t(in.element_count()) / depth;
    const OperationType type = k.op().type;
    std::vector<float> x(depth), y(depth);
    const bool quant = in.type == OperandType::TENSOR_QUANT8_ASYMM;
    for (std::size_t r = 0; r < rows; ++r) {
        for (std::size_t c = 0; c < depth; ++c)
            x[c] = quant ? float(std::int32_t(in.data[r * depth + c]) - in.zeroPoint) * in.scale : as<float>(in)[r * depth + c];
        if (type == OperationType::SOFTMAX) {
            const float beta = k.float_at(1);
            float max = *std::max_element(x.begin(), x.end());
            float sum = 0;
            for (std::size_t c = 0; c < depth; ++c) sum += y[c] = std::exp((x[c] - max) * beta);
            for (std::size_t c = 0; c < depth; ++c) y[c] /= sum;
        } else if (type == OperationType::L2_NORMALIZATION) {
            float sum = 0;
            for (float v : x) sum += v * v;
            float norm = std::sqrt(sum);
            for (std::size_t c = 0; c < depth; ++c) y[c] = x[c] / norm;
        } else {
            const std::int64_t radius = k.int_at(1);
            const float bias = k.float_at(2), alpha = k.float_at(3), beta = k.float_at(4);
            for (std::size_t c = 0; c < depth; ++c) {
                std::int64_t begin = std::max<std::int64_t>(0, std::int64_t(c) - radius);
                std::int64_t end = std::min<std::int64_t>(std::int64_t(depth), std::int64_t(c) + radius + 1);
                float sum = 0;
                for (std::int64_t i = begin; i < end; ++i) sum += x[std::size_t(i)] * x[std::size_t(i)];
                y[c] = x[c] * std::pow(bias + alpha * sum, -beta);
            }
        }
        for (std::size_t c = 0; c < depth; ++c) {
            if (quant) out.data[r * depth + c] = std::uint8_t(std::clamp<long>(std::lround(y[c] * 256.0f), 0, 255));
            else as<float>(out)[r * depth + c] = y[c];
        }
    }
    return true;
}

bool resize_bilinear(Kernel& k) {
    const Tensor& in = k.in(0);
    Tensor& out = k.out(0);
    const std::int64_t B = in.dimensions[0], IH = in.dimensions[1], IW = in.dimensions[2], C = in.dimensions[3];
    const std::int64_t OH = out.dimensions[1], OW = out.dimensions[2];
    const float sy = float(IH) / float(OH), sx = float(IW) / float(OW);
    const float* x = as<float>(in);
    float* y = as<float>(out);
    for (std::int64_t b = 0; b < B; ++b)
        for (std::int64_t oy = 0; oy < OH; ++oy) {
            float fy = float(oy) * sy;
            std::int64_t y0 = std::int64_t(std::floor(fy)), y1 = std::min(y0 + 1, IH - 1);
            float wy = fy - float(y0);
            for (std::int64_t ox = 0; ox < OW; ++ox) {
                float fx = float(ox) * sx;
                std::int64_t x0 = std::int64_t(std::floor(fx)), x1 = std::min(x0 + 1, IW - 1);
                float wx = fx - float(x0);
                for (std::int64_t c = 0; c < C; ++c) {
                    auto at = [&](std::int64_t yy, std::int64_t xx) { return x[((b * IH + yy) * IW + xx) * C + c]; };
                    y[((b * OH + oy) * OW + ox) * C + c] = at(y0, x0) * (1 - wy) * (1 - wx) + at(y1, x0) * wy * (1 - wx) +
                                                          at(y0, x1) * (1 - wy) * wx + at(y1, x1) * wy * wx;
                }
            }
        }
    return true;
}

bool embedding_lookup(Kernel& k) {
    const Tensor& lookups = k.in(0);
    const Tensor& values = k.in(1);
    Tensor& out = k.out(0);
    const std::size_t rows = values.dimensions[0];
    const std::size_t row_bytes = values.data.size() / rows;
    for (std::size_t i = 0; i < lookups.dimensions[0]; ++i) {
        std::int32_t index = as<std::int32_t>(lookups)[i];
        if (index < 0 || std::size_t(index) >= rows)
            return k.fail("Lookups[" + std::to_string(i) + "] is " + std::to_string(index) + ", out of bounds for " +
                          std::to_string(rows) + " Values rows");
        std::memcpy(out.data.data() + i * row_bytes, values.data.data() + std::size_t(index) * row_bytes, row_bytes);
    }
    return true;
}

bool hashtable_lookup(Kernel& k) {
    const Tensor& lookups = k.in(0);
    const Tensor& keys = k.in(1);
    const Tensor& values = k.in(2);
    Tensor& out = k.out(0);
    Tensor& hits = k.out(1);
    const std::int32_t* key = as<std::int32_t>(keys);
    const std::size_t n = keys.dimensions[0];
    if (!std::is_sorted(key, key + n)) return k.fail("Keys are not sorted in ascending order");
    const std::size_t row_bytes = n == 0 ? 0 : values.data.size() / n;
    for (std::size_t i = 0; i < lookups.dimensions[0]; ++i) {
        std::int32_t wanted = as<std::int32_t>(lookups)[i];
        const std::int32_t* found = std::lower_bound(key, key + n, wanted);
        bool hit = found != key + n && *found == wanted;
        hits.data[i] = hit ? 1 : 0;
        if (hit) std::memcpy(out.data.data() + i * row_bytes, values.data.data() + std::size_t(found - key) * row_bytes, row_bytes);
        else std::memset(out.data.data() + i * row_bytes, 0, row_bytes);
    }
    return true;
}

bool rnn(Kernel& k) {
    const Tensor& input = k.in(0);
    const Tensor& weights = k.in(1);
    const Tensor& recurrent = k.in(2);
    const Tensor& bias = k.in(3);
    const Tensor& state = k.in(4);
    const std::int32_t act = k.int_at(5);
    const std::size_t batches = input.dimensions[0], size = input.dimensions[1], units = weights.dimensions[0];
    if (recurrent.dimensions != std::vector<std::uint32_t>{std::uint32_t(units), std::uint32_t(units)} ||
        state.dimensions != std::vector<std::uint32_t>{std::uint32_t(batches), std::uint32_t(units)} ||
        bias.dimensions[0] != units)
        return k.fail("recurrent_weights must be [num_units, num_units], bias [num_units] and the state [batch_size, num_units]");
    for (std::size_t b = 0; b < batches; ++b)
        for (std::size_t u = 0; u < units; ++u) {
            float acc = as<float>(bias)[u];
            for (std::size_t i = 0; i < size; ++i) acc += as<float>(input)[b * size + i] * as<float>(weights)[u * size + i];
            for (std::size_t i = 0; i < units; ++i) acc += as<float>(state)[b * units + i] * as<float>(recurrent)[u * units + i];
            float v = apply_activation(acc, act);
            as<float>(k.out(0))[b * units + u] = v;
            as<float>(k.out(1))[b * units + u] = v;
        }
    return true;
}

}  // namespace

bool run_tensor_operation(Kernel& k) {
    switch (k.op().type) {
        case OperationType::CONCATENATION: return concatenation(k);
        case OperationType::RESHAPE:
            k.out(0).data = k.in(0).data;
            return true;
        case OperationType::DEPTH_TO_SPACE:
        case OperationType::SPACE_TO_DEPTH: return depth_space(k);
        case OperationType::SOFTMAX:
        case OperationType::L2_NORMALIZATION:
        case OperationType::LOCAL_RESPONSE_NORMALIZATION: return along_depth(k);
        case OperationType::RESIZE_BILINEAR: return resize_bilinear(k);
        case OperationType::EMBEDDING_LOOKUP: return embedding_lookup(k);
        case OperationType::HASHTABLE_LOOKUP: return hashtable_lookup(k);
        case OperationType::RNN: return rnn(k);
        default:
            return k.fail(std::string("this interpreter does not run ") + to_string(k.op().type) +
                          " (validated only; docs/nnapi.md)");
    }
}

}  // namespace nnef::nnapi::detail
