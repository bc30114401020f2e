// build-tables (lowering/vpu/ir.hpp): the words of each NCE layer's weights table, one row of four
// 32-bit words per output channel (docs/vpu.md, "weights table"): word 0 the byte offset of the
// channel's weights relative to the weights box an NCE task reads, which is the layer's whole
// weights tensor, or, when tile split the layer's output channels into chunks, the chunk's weights
// (offset from the chunk's first channel); then on the fp16 path 0, the scale (1.0, or the layer's
// own: scale_shift_nce.cpp) and the bias as fp32, on the int8 path the requantization's shift and multiplier and the int32 bias.
#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#include "lowering/vpu/ir.hpp"

namespace nnef::vpu::ir {

bool build_tables(Module& m, Diagnostics&) {
    // per layer, the channel chunk of its tiles when they split the channels (0: not split)
    std::vector<std::int64_t> chunk(m.layers.size(), 0);
    for (const Tile& tl : m.tiles)
        if (tl.ch0 > 0) chunk[std::size_t(tl.layer)] = 1;
    for (const Tile& tl : m.tiles)
        if (chunk[std::size_t(tl.layer)] && tl.ch0 == 0) chunk[std::size_t(tl.layer)] = tl.chans;
    for (std::size_t li = 0; li < m.layers.size(); ++li) {
        const Layer& l = m.layers[li];
        if (l.exec != Exec::nce) continue;
        // the layer's rows of the packed tables (layout-and-types), zero where channels are padded
        Tensor& t = m.tensors[std::size_t(l.table)];
        if (!t.data || std::int64_t(t.data->size()) != t.bytes) t.data = std::make_shared<std::vector<std::uint8_t>>(std::size_t(t.bytes), 0);
        const bool q = l.nce.quantized;
        const std::int64_t C = l.output.shape[3];
        const std::int64_t per_channel =
            l.weights_shape.empty() ? 0 : (q ? 1 : 2) * l.weights_shape[1] * l.weights_shape[2] * l.weights_shape[3];
        for (std::int64_t c = 0; c < C; ++c) {
            const std::int32_t w0 = std::int32_t((chunk[li] ? c % chunk[li] : c) * per_channel);
            std::uint8_t* row = t.data->data() + l.table_offset + c * 16;
            std::memcpy(row, &w0, 4);
            if (q) {
                // empty requantization: the identity (multiplier 2^30, shift 30, bias 0)
                const bool id = l.q_mult.empty();
                const std::int32_t shift = id ? 30 : std::int32_t(l.q_shift[std::size_t(c)]);
                const std::int32_t mult = id ? (1 << 30) : std::int32_t(l.q_mult[std::size_t(c)]);
                const std::int32_t bias = id ? 0 : std::int32_t(l.q_bias[std::size_t(c)]);
                std::memcpy(row + 4, &shift, 4);
                std::memcpy(row + 8, &mult, 4);
                std::memcpy(row + 12, &bias, 4);
                continue;
            }
            const float scale = l.scale.empty() ? 1.0f : l.scale[std::size_t(c)], bias = l.bias.empty() ? 0.0f : l.bias[std::size_t(c)];
            std::memcpy(row + 8, &scale, 4);
            std::memcpy(row + 12, &bias, 4);
        }
    }
    return true;
}

}  // namespace nnef::vpu::ir
