// layout-and-types (lowering/vpu/ir.hpp): the NCE layers' weights stored once in the layer's data
// type (fp16, or int8 codes on the int8 path) in OHWI order, and the weights table tensor of every
// NCE layer sized: [align(C), 4] 32-bit words, 16 bytes per aligned output channel. Its words
// depend on the channel chunks of the tiles: build-tables writes them. The constants are packed:
// the tables of all NCE layers are one tensor, the weights of each data type one tensor, each
// layer's part right after the previous layer's (Layer::weights_offset, table_offset), so that
// the schedule can load those of consecutive layers by one DMA.
#include <array>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "lowering/vpu/ir.hpp"

namespace nnef::vpu::ir {

bool layout_and_types(Module& m, Diagnostics&) {
    const std::int64_t align = m.target.nce_channel_alignment;
    // the packed constants: one table tensor, one weights tensor per data type (fp16, int8), each
    // layer's part after the previous layer's in program order
    int tables = -1;
    std::array<int, 2> weights{-1, -1};
    auto pack = [&](int& index, const char* name, Role role, DataType dt) {
        if (index < 0) {
            Tensor t;
            t.name = name;
            t.role = role;
            t.dtype = dt;
            t.data = std::make_shared<std::vector<std::uint8_t>>();
            m.tensors.push_back(std::move(t));
            index = int(m.tensors.size()) - 1;
        }
        return index;
    };
    // (each packed tensor's bytes reserved ahead: VGG-11's 266 MB of fp16 weights are not moved as the
    // tensor grows, and each layer's are written in place)
    std::array<std::size_t, 2> total{0, 0};
    for (const Layer& l : m.layers)
        if (l.exec == Exec::nce) total[l.nce.quantized] += l.weights_f32.size() * (l.nce.quantized ? 1 : 2);
    for (Layer& l : m.layers) {
        if (l.exec != Exec::nce) continue;
        const bool q = l.nce.quantized;
        if (!l.weights_f32.empty()) {
            Tensor& w = m.tensors[std::size_t(pack(weights[q], q ? "weights.int8" : "weights", Role::weights, q ? DataType::int8 : DataType::fp16))];
            l.weights = weights[q];
            l.weights_offset = std::int64_t(w.data->size());
            if (w.data->empty()) w.data->reserve(total[q]);
            w.data->resize(w.data->size() + l.weights_f32.size() * (q ? 1 : 2));
            std::uint8_t* to = w.data->data() + l.weights_offset;
            if (q) {
                for (std::size_t i = 0; i < l.weights_f32.size(); ++i) to[i] = std::uint8_t(std::int8_t(l.weights_f32[i]));
            } else {
                write_fp16(l.weights_f32, to);
            }
            w.bytes = std::int64_t(w.data->size());
            l.weights_f32.clear();
            l.weights_f32.shrink_to_fit();
        }
        Tensor& t = m.tensors[std::size_t(pack(tables, "tables", Role::table, DataType::int32))];
        l.table = tables;
        l.table_offset = t.bytes;
        t.bytes += l.table_bytes(align);
    }
    // build-tables writes the words
    if (tables >= 0) m.tensors[std::size_t(tables)].data.reset();
    return true;
}

}  // namespace nnef::vpu::ir
