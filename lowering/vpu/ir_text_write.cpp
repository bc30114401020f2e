// The VPU IR's text form, the writer (lowering/vpu/ir_text.hpp; the reader is ir_text_read.cpp).
#include <map>
#include <cmath>
#include <cstring>
#include <sstream>

#include "lowering/tosa/json.hpp"
#include "lowering/vpu/ir_text.hpp"

namespace nnef::vpu::ir {

namespace vpu_ir_text_write_cpp {

using J = nlohmann::ordered_json;

std::string hex(const std::uint8_t* p, std::size_t n) {
    static const char digits[] = "0123456789abcdef";
    std::string s(2 * n, '0');
    for (std::size_t i = 0; i < n; ++i) {
        s[2 * i] = digits[p[i] >> 4];
        s[2 * i + 1] = digits[p[i] & 15];
    }
    return s;
}

// Floats as the hex of their little-endian bytes (exact, NaN and infinities included).
std::string float_hex(const std::vector<float>& v) {
    std::vector<std::uint8_t> b(v.size() * 4);
    for (std::size_t i = 0; i < v.size(); ++i) {
        std::uint32_t u;
        std::memcpy(&u, &v[i], 4);
        for (int k = 0; k < 4; ++k) b[4 * i + std::size_t(k)] = std::uint8_t(u >> (8 * k));
    }
    return hex(b.data(), b.size());
}

// A double as a JSON number, or "inf" / "-inf" / "nan" (JSON has none of them).
J number(double v) {
    if (std::isnan(v)) return "nan";
    if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
    return v;
}

J view(const View& v) { return J{{"tensor", v.tensor}, {"offset", v.offset}, {"shape", v.shape}, {"strides", v.strides}}; }

J nce(const NceParams& p) {
    J j{{"kernel", p.kernel},
        {"stride", p.stride},
        {"dilation", p.dilation},
        {"pad", p.pad},
        {"eltwise", p.eltwise},
        {"post_op", to_string(p.post_op)},
        {"clamp_min", number(p.clamp_min)},
        {"clamp_max", number(p.clamp_max)},
        {"leaky_alpha", number(p.leaky_alpha)},
        {"quantized", p.quantized},
        {"input_zp", p.input_zp},
        {"weights_zp", p.weights_zp},
        {"output_zp", p.output_zp},
        {"double_round", p.double_round}};
    J in = J::array();
    for (const InputRescale& r : p.eltwise_inputs) in.push_back({r.multiplier, r.shift, r.zp});
    j["eltwise_inputs"] = std::move(in);
    return j;
}

J shave(const ShaveKernel& k) {
    J j{{"name", k.name}};
    j["axis"] = k.axis ? J(*k.axis) : J();
    j["clamp_float"] = k.clamp_float ? J{number((*k.clamp_float)[0]), number((*k.clamp_float)[1])} : J();
    j["clamp_int"] = k.clamp_int ? J(*k.clamp_int) : J();
    if (k.rescale)
        j["rescale"] = J{{"multiplier", k.rescale->multiplier},
                         {"shift", k.rescale->shift},
                         {"input_zp", k.rescale->input_zp},
                         {"output_zp", k.rescale->output_zp},
                         {"double_round", k.rescale->double_round}};
    else
        j["rescale"] = J();
    // the TOSA attributes as the task list's params write them (lowering/tosa/json.hpp), by name
    // (the order read_text gives them back, so that a text reads and writes to itself)
    std::map<std::string, J> sorted;
    for (const auto& [name, value] : k.attributes) {
        const tosa::AttrSpec* spec = k.attribute_spec(name);
        sorted[tosa::to_string(name)] = spec ? J(tosa::attribute_to_json(value, *spec)) : J(tosa::to_string(value));  // read_text refuses the latter
    }
    J attrs = J::object();
    for (auto& [name, value] : sorted) attrs[name] = std::move(value);
    j["attributes"] = std::move(attrs);
    J consts = J::array();
    for (const auto& [name, values] : k.shape_constants) consts.push_back({name, values});
    j["shape_constants"] = std::move(consts);
    j["constant"] = k.constant ? J{{"input", k.constant->input}, {"items", float_hex(k.constant->items)}} : J();
    return j;
}

J layer(const Layer& l) {
    J j{{"exec", to_string(l.exec)}, {"nce_op", to_string(l.nce_op)}, {"source", l.source}, {"origin", l.origin}};
    J in = J::array();
    for (const View& v : l.inputs) in.push_back(view(v));
    j["inputs"] = std::move(in);
    j["output"] = view(l.output);
    j["weights"] = l.weights;
    j["table"] = l.table;
    j["nce"] = nce(l.nce);
    j["shave"] = shave(l.shave);
    j["weights_shape"] = l.weights_shape;
    j["weights_f32"] = float_hex(l.weights_f32);
    j["bias"] = float_hex(l.bias);
    j["scale"] = float_hex(l.scale);
    j["q_bias"] = l.q_bias;
    j["q_mult"] = l.q_mult;
    j["q_shift"] = l.q_shift;
    j["weights_offset"] = l.weights_offset;
    j["table_offset"] = l.table_offset;
    if (l.table_rows > 0) j["table_rows"] = l.table_rows;
    return j;
}

J box(const Box& b) {
    return J{{"ref", (b.ref.cmx ? "c" : "t") + std::to_string(b.ref.index)}, {"offset", b.offset}, {"shape", b.shape}, {"strides", b.strides}};
}

J task(const Task& t) {
    J j{{"kind", to_string(t.kind)}, {"queue", t.queue}, {"op", t.op}, {"wait", t.wait}, {"update", t.update}};
    J r = J::array(), w = J::array();
    for (const Box& b : t.reads) r.push_back(box(b));
    for (const Box& b : t.writes) w.push_back(box(b));
    j["reads"] = std::move(r);
    j["writes"] = std::move(w);
    j["source"] = t.source;
    j["nce"] = nce(t.nce);
    j["shave"] = J{{"kernel", t.shave.kernel}, {"attrs", t.shave.attrs}};
    return j;
}

J io(const IoEntry& e) { return J{{"name", e.name}, {"buffer", e.buffer}, {"shape", e.shape}, {"layout", e.layout}, {"dtype", to_string(e.dtype)}}; }

// `"key": [` then one item per line.
void item_lines(std::ostringstream& os, const char* key, const std::vector<J>& items, bool last) {
    os << "  \"" << key << "\": [";
    for (std::size_t i = 0; i < items.size(); ++i) os << (i ? ",\n    " : "\n    ") << items[i].dump();
    os << (items.empty() ? "]" : "\n  ]") << (last ? "\n" : ",\n");
}

void field(std::ostringstream& os, const char* key, const J& value, bool last = false) {
    os << "  \"" << key << "\": " << value.dump() << (last ? "\n" : ",\n");
}

template <class T, class F>
std::vector<J> items(const std::vector<T>& v, F f) {
    std::vector<J> out;
    out.reserve(v.size());
    for (const T& x : v) out.push_back(f(x));
    return out;
}

}  // namespace vpu_ir_text_write_cpp

std::string write_text(const Module& m) {
    using namespace vpu_ir_text_write_cpp;
    std::ostringstream os;
    os << "{\n";
    field(os, "format", ir_text_format);
    field(os, "version", ir_text_version);
    field(os, "name", m.name);
    J promises = J::array();
    for (int p = 0; p < promise_count; ++p)
        if (m.has(Promise(p))) promises.push_back(to_string(Promise(p)));
    field(os, "promises", promises);
    field(os, "int8", m.int8);
    field(os, "target", to_json(m.target));
    // the TOSA graph: what assign-executors reads (no later pass looks at it)
    field(os, "graph", m.graph && m.promised == 0 ? J(tosa::to_json(*m.graph)) : J());
    item_lines(os, "tensors", items(m.tensors, [](const Tensor& t) {
                   return J{{"name", t.name}, {"dtype", to_string(t.dtype)}, {"role", to_string(t.role)}, {"bytes", t.bytes},
                            {"data", t.data ? J(hex(t.data->data(), t.data->size())) : J()}};
               }), false);
    item_lines(os, "inputs", items(m.inputs, io), false);
    item_lines(os, "outputs", items(m.outputs, io), false);
    field(os, "input_tensors", m.input_tensors);
    field(os, "output_tensors", m.output_tensors);
    std::vector<J> layers;
    for (std::size_t i = 0; i < m.layers.size(); ++i) {
        J l{{"layer", i}};
        l.update(layer(m.layers[i]));
        layers.push_back(std::move(l));
    }
    item_lines(os, "layers", layers, false);
    item_lines(os, "tiles", items(m.tiles, [](const Tile& t) {
                   return J{{"layer", t.layer},     {"cluster", t.cluster},           {"row0", t.row0},          {"rows", t.rows},
                            {"ch0", t.ch0},         {"chans", t.chans},               {"channel_tile", t.channel_tile},
                            {"split_dim", t.split_dim}};
               }), false);
    std::vector<J> cmx;
    for (std::size_t i = 0; i < m.cmx.size(); ++i) {
        const CmxBuffer& c = m.cmx[i];
        cmx.push_back(J{{"buffer", "c" + std::to_string(i)}, {"cluster", c.cluster}, {"offset", c.offset}, {"size", c.size},
                        {"dtype", to_string(c.dtype)}, {"role", to_string(c.role)}, {"tensor", c.tensor}, {"first", c.first},
                        {"last", c.last}, {"held", c.held}});
    }
    item_lines(os, "cmx", cmx, false);
    std::vector<J> tasks;
    for (std::size_t i = 0; i < m.tasks.size(); ++i) {
        J t{{"task", i}};
        t.update(task(m.tasks[i]));
        tasks.push_back(std::move(t));
    }
    item_lines(os, "tasks", tasks, false);
    field(os, "barrier_physical", m.barrier_physical);
    field(os, "barrier_segments", m.barrier_segments);
    field(os, "barrier_fallback", m.barrier_fallback);
    // the task list (after emit): its JSON one item per line, then which tensor's bytes each
    // constant buffer holds
    if (!m.has(Promise::emitted)) {
        field(os, "task_list", J(), true);
    } else {
        std::string list = to_json_text(m.list);
        while (!list.empty() && list.back() == '\n') list.pop_back();
        os << "  \"task_list\": " << list << ",\n";
        std::vector<J> data;
        for (std::size_t b = 0; b < m.list.buffers.size(); ++b) {
            const auto& d = m.list.buffers[b].data;
            if (!d) continue;
            int tensor = -1;
            for (std::size_t i = 0; i < m.tensors.size() && tensor < 0; ++i)
                if (m.tensors[i].data.get() == d.get()) tensor = int(i);
            data.push_back(tensor >= 0 ? J{{"buffer", m.list.buffers[b].id}, {"tensor", tensor}}
                                       : J{{"buffer", m.list.buffers[b].id}, {"hex", hex(d->data(), d->size())}});
        }
        item_lines(os, "task_list_data", data, true);
    }
    os << "}\n";
    return os.str();
}

}  // namespace nnef::vpu::ir
