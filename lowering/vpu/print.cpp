// The VPU IR as text (lowering/vpu/ir.hpp, to_text): what --print-after shows between passes.
#include <sstream>

#include "lowering/vpu/ir.hpp"

namespace nnef::vpu::ir {

namespace vpu_print_cpp {

std::string view_text(const Module& m, const View& v) {
    return "t" + std::to_string(v.tensor) + "(" + m.tensors[std::size_t(v.tensor)].name + ")+" + std::to_string(v.offset) + dims(v.shape) +
           "/" + dims(v.strides);
}

}  // namespace vpu_print_cpp

std::string to_text(const Module& m) {
    using namespace vpu_print_cpp;
    std::ostringstream os;
    os << "vpu module '" << m.name << "' (promises:";
    for (int p = 0; p < promise_count; ++p)
        if (m.has(Promise(p))) os << " " << to_string(Promise(p));
    os << "): " << m.tensors.size() << " DDR tensors, " << m.layers.size() << " layers, " << m.tiles.size() << " tiles, " << m.cmx.size()
       << " CMX buffers, " << m.tasks.size() << " tasks, " << m.barrier_physical.size() << " barriers";
    if (m.has(Promise::barriers))
        os << " (physical ids in " << m.barrier_segments << " segment(s)" << (m.barrier_fallback ? ", phase fallback" : "") << ")";
    os << "\n";
    for (std::size_t i = 0; i < m.layers.size(); ++i) {
        const Layer& l = m.layers[i];
        os << "  layer " << i << ": " << to_string(l.exec) << " " << l.op_name();
        if (l.exec == Exec::nce) {
            os << " kernel=" << dims({l.nce.kernel[0], l.nce.kernel[1]}) << " stride=" << dims({l.nce.stride[0], l.nce.stride[1]})
               << " pad=" << dims({l.nce.pad[0], l.nce.pad[1], l.nce.pad[2], l.nce.pad[3]}) << " post_op=" << to_string(l.nce.post_op);
            if (!l.nce.eltwise.empty()) os << " eltwise=" << l.nce.eltwise;
            if (l.nce.quantized) {
                os << " zp=" << dims({l.nce.input_zp, l.nce.weights_zp, l.nce.output_zp}) << (l.nce.double_round ? " double_round" : "");
                if (!l.nce.eltwise.empty())
                    for (const InputRescale& r : l.nce.eltwise_inputs) os << " in_rescale=" << dims({r.multiplier, r.shift, r.zp});
            }
            if (l.weights >= 0) os << " weights=t" << l.weights;
            if (l.table >= 0) os << " table=t" << l.table;
        } else if (l.exec == Exec::shave) {
            const nlohmann::json p = l.shave.params_json();
            if (!p.empty()) os << " " << p.dump();
        }
        os << "\n    in:";
        for (const View& v : l.inputs) os << " " << view_text(m, v);
        os << "\n    out: " << view_text(m, l.output) << "  # " << l.source << "\n";
    }
    for (const Tile& t : m.tiles)
        os << "  tile layer " << t.layer << " cluster " << t.cluster << " rows " << t.row0 << "+" << t.rows << " channels " << t.ch0 << "+"
           << t.chans << "\n";
    for (std::size_t i = 0; i < m.cmx.size(); ++i) {
        const CmxBuffer& c = m.cmx[i];
        os << "  cmx " << i << ": cluster " << c.cluster << " offset " << c.offset << " size " << c.size << " life [" << c.first << ","
           << c.last << "] " << c.tensor << "\n";
    }
    for (std::size_t i = 0; i < m.tasks.size(); ++i) {
        const Task& t = m.tasks[i];
        os << "  task " << i << ": " << t.queue << " " << t.op << " wait " << dims(t.wait) << " update " << dims(t.update) << "  # "
           << t.source << "\n";
    }
    return os.str();
}

}  // namespace nnef::vpu::ir
