// layout-and-types (lowering/vpu/ir.hpp): the NCE layers' weights stored once in the layer's data
// type (fp16, or int8 codes on the int8 path) in OHWI order, and the weights table tensor of every
// NCE layer sized: [align(C), 4] 32-bit words, 16 bytes per aligned output channel. Its words
// depend on the channel chunks of the tiles: build-tables writes them.
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "lowering/vpu/ir.hpp"

namespace nnef::vpu::ir {

bool layout_and_types(Module& m, Diagnostics&) {
    const std::int64_t align = m.target.nce_channel_alignment;
    for (Layer& l : m.layers) {
        if (l.exec != Exec::nce) continue;
        const std::int64_t C = l.output.shape[3];
        const bool q = l.nce.quantized;
        if (!l.weights_f32.empty()) {
            Tensor w;
            w.name = l.source + ".weights";
            w.role = Role::weights;
            if (q) {
                w.dtype = DataType::int8;
                w.data = std::make_shared<std::vector<std::uint8_t>>(l.weights_f32.size());
                for (std::size_t i = 0; i < l.weights_f32.size(); ++i) (*w.data)[i] = std::uint8_t(std::int8_t(l.weights_f32[i]));
            } else {
                w.data = std::make_shared<std::vector<std::uint8_t>>(fp16_bytes(l.weights_f32));
            }
            w.bytes = std::int64_t(w.data->size());
            m.tensors.push_back(std::move(w));
            l.weights = int(m.tensors.size()) - 1;
            l.weights_f32.clear();
            l.weights_f32.shrink_to_fit();
        }
        Tensor t;
        t.name = l.source + ".table";
        t.role = Role::table;
        t.dtype = DataType::int32;
        t.bytes = (C + align - 1) / align * align * 16;
        m.tensors.push_back(std::move(t));
        l.table = int(m.tensors.size()) - 1;
    }
    return true;
}

}  // namespace nnef::vpu::ir
