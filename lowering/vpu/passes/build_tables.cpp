// build-tables (lowering/vpu/ir.hpp): the words of each NCE layer's weights table, one row of four
// 32-bit words per output channel (docs/vpu.md, "weights table"): word 0 the byte offset of the
// channel's weights relative to the weights box an NCE task reads, which is the layer's whole
// weights tensor, or, when tile split the layer's output channels into chunks, the chunk's weights
// (offset from the chunk's first channel); then on the fp16 path 0, the scale (1.0, or the layer's
// own: scale_shift_nce.cpp) and the bias as fp32, on the int8 path the requantization's shift and multiplier and the int32 bias.
//
// A table whose rows are all alike (a pool or eltwise, no weights, whose scale and bias, or
// requantization, are one value for every channel: the element-wise layers of ConvNeXt's erf
// polynomial) keeps only as many rows as the layer's widest tile has channels (`table_rows`), and
// every task reads its rows from the first: a channel part of a GELU over 1536 or 3072 channels
// then loads 3 or 6 KB of table rather than 24 or 48 KB per layer and cluster, and the tables of a
// run's dozen layers take that much less CMX while the run is under way. The packed tables tensor
// is laid out again (layout-and-types' order, each layer's rows after the previous layer's).
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <vector>

#include "lowering/vpu/ir.hpp"

namespace nnef::vpu::ir {

namespace {

template <typename T>
bool alike(const std::vector<T>& v) {
    return std::all_of(v.begin(), v.end(), [&](const T& x) { return x == v.front(); });
}

// Whether every row of NCE layer `l`'s table is the same (word 0 is 0 without weights).
bool uniform_rows(const Layer& l) {
    if (l.weights >= 0) return false;
    if (l.nce.quantized) return alike(l.q_bias) && alike(l.q_mult) && alike(l.q_shift);
    return alike(l.scale) && alike(l.bias);
}

}  // namespace

bool build_tables(Module& m, Diagnostics&) {
    // per layer, the channel chunk of its tiles when they split the channels (0: not split), and
    // the most channels one of its tiles has
    std::vector<std::int64_t> chunk(m.layers.size(), 0), widest(m.layers.size(), 0);
    for (const Tile& tl : m.tiles) {
        if (tl.ch0 > 0) chunk[std::size_t(tl.layer)] = 1;
        widest[std::size_t(tl.layer)] = std::max(widest[std::size_t(tl.layer)], tl.chans);
    }
    for (const Tile& tl : m.tiles)
        if (chunk[std::size_t(tl.layer)] && tl.ch0 == 0) chunk[std::size_t(tl.layer)] = tl.chans;
    // tables of alike rows cut to the widest tile's channels, and the tables tensors laid out again
    const std::int64_t align = m.target.nce_channel_alignment;
    std::map<int, std::int64_t> end;  // table tensor -> its bytes so far
    for (std::size_t li = 0; li < m.layers.size(); ++li) {
        Layer& l = m.layers[li];
        if (l.exec != Exec::nce || l.table < 0) continue;
        l.table_rows = uniform_rows(l) && widest[li] > 0 && widest[li] < l.output.shape[3] ? widest[li] : 0;
        std::int64_t& at = end[l.table];
        l.table_offset = at;
        at += l.table_bytes(align);
    }
    for (const auto& [tensor, bytes] : end) {
        Tensor& t = m.tensors[std::size_t(tensor)];
        if (t.bytes != bytes) {
            t.bytes = bytes;
            t.data.reset();
        }
    }
    for (std::size_t li = 0; li < m.layers.size(); ++li) {
        const Layer& l = m.layers[li];
        if (l.exec != Exec::nce) continue;
        // the layer's rows of the packed tables (layout-and-types), zero where channels are padded
        Tensor& t = m.tensors[std::size_t(l.table)];
        if (!t.data || std::int64_t(t.data->size()) != t.bytes) t.data = std::make_shared<std::vector<std::uint8_t>>(std::size_t(t.bytes), 0);
        const bool q = l.nce.quantized;
        const std::int64_t C = l.table_rows > 0 ? l.table_rows : l.output.shape[3];
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
