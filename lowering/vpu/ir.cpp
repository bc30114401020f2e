// The VPU IR's helpers (lowering/vpu/ir.hpp): views, names of enumerators, the SHAVE kernel's
// parameters as the task list writes them.
#include "lowering/vpu/ir.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>

#include "lowering/tosa/json.hpp"

namespace nnef::vpu::ir {

std::int64_t element_size(DataType t) { return element_bytes(t); }

std::vector<std::int64_t> dense_strides(const std::vector<std::int64_t>& shape, std::int64_t es) {
    std::vector<std::int64_t> s(shape.size(), es);
    for (std::size_t i = shape.size(); i-- > 1;) s[i - 1] = s[i] * shape[i];
    return s;
}

void write_fp16(const std::vector<float>& v, std::uint8_t* to) { tosa::fp32_to_fp16_bytes(v.data(), v.size(), to); }

std::vector<std::uint8_t> fp16_bytes(const std::vector<float>& v) {
    std::vector<std::uint8_t> out(v.size() * 2);
    write_fp16(v, out.data());
    return out;
}

std::int64_t View::elements() const {
    std::int64_t n = 1;
    for (auto d : shape) n *= d;
    return n;
}

bool View::dense(std::int64_t es) const {
    std::int64_t expect = es;
    for (std::size_t i = shape.size(); i-- > 0;) {
        if (shape[i] != 1 && strides[i] != expect) return false;
        expect *= shape[i];
    }
    return true;
}

const char* to_string(Exec e) {
    switch (e) {
        case Exec::nce: return "NCE";
        case Exec::shave: return "SHAVE";
        case Exec::copy: return "copy";
    }
    return "?";
}

std::int64_t Layer::weights_bytes() const {
    if (weights_shape.size() != 4) return 0;
    return (nce.quantized ? 1 : 2) * weights_shape[0] * weights_shape[1] * weights_shape[2] * weights_shape[3];
}

std::int64_t Layer::table_bytes(std::int64_t align) const {
    const std::int64_t rows = table_rows > 0 ? table_rows : output.shape[3];
    return (rows + align - 1) / align * align * 16;
}

const char* to_string(NceOp o) {
    switch (o) {
        case NceOp::conv: return "conv";
        case NceOp::dwconv: return "dwconv";
        case NceOp::maxpool: return "maxpool";
        case NceOp::avgpool: return "avgpool";
        case NceOp::eltwise: return "eltwise";
    }
    return "?";
}

std::optional<NceOp> nce_op_from_string(const std::string& s) {
    for (NceOp o : {NceOp::conv, NceOp::dwconv, NceOp::maxpool, NceOp::avgpool, NceOp::eltwise})
        if (s == to_string(o)) return o;
    return std::nullopt;
}

const char* to_string(Promise p) {
    switch (p) {
        case Promise::layers: return "layers";
        case Promise::post_ops_fused: return "post-ops-fused";
        case Promise::weights_laid_out: return "weights-laid-out";
        case Promise::tiled: return "tiled";
        case Promise::tables_built: return "tables-built";
        case Promise::scheduled: return "scheduled";
        case Promise::cmx_allocated: return "cmx-allocated";
        case Promise::barriers: return "barriers";
        case Promise::emitted: return "emitted";
    }
    return "?";
}

std::string Layer::op_name() const {
    switch (exec) {
        case Exec::nce: return to_string(nce_op);
        case Exec::shave: return shave.name;
        case Exec::copy: return "copy";
    }
    return "?";
}

namespace vpu_ir_cpp {

nlohmann::json one_or_many(const std::vector<std::int64_t>& v) { return v.size() == 1 ? nlohmann::json(v[0]) : nlohmann::json(v); }

}  // namespace vpu_ir_cpp

const tosa::AttrSpec* ShaveKernel::attribute_spec(tosa::AttrName attribute) const {
    const auto kind = tosa::op_kind_from_mnemonic(name);
    return kind ? tosa::op_info(*kind).attribute(attribute) : nullptr;
}

nlohmann::json ShaveKernel::params_json() const {
    using namespace vpu_ir_cpp;
    nlohmann::json p = nlohmann::json::object();
    if (clamp_float) {
        // fp16's range: an infinite bound is its largest finite value
        const auto bound = [](double v) { return std::isinf(v) ? (v < 0 ? -65504.0 : 65504.0) : v; };
        p["min"] = bound((*clamp_float)[0]);
        p["max"] = bound((*clamp_float)[1]);
    }
    if (clamp_int) {
        p["min"] = (*clamp_int)[0];
        p["max"] = (*clamp_int)[1];
    }
    if (rescale) {
        p["multiplier"] = one_or_many(rescale->multiplier);
        p["shift"] = one_or_many(rescale->shift);
        p["input_zp"] = rescale->input_zp;
        p["output_zp"] = rescale->output_zp;
        p["double_round"] = rescale->double_round;
    }
    if (!attributes.empty()) {
        nlohmann::json a = nlohmann::json::object();
        for (const auto& [attr, value] : attributes) {
            const tosa::AttrSpec* spec = attribute_spec(attr);
            // assign-executors takes the attributes from the TOSA operator of this mnemonic, and
            // read_text refuses others: a missing spec is a bug of the caller
            if (!spec) throw std::logic_error("SHAVE kernel '" + name + "' has no attribute '" + tosa::to_string(attr) + "'");
            a[tosa::to_string(attr)] = tosa::attribute_to_json(value, *spec);  // the TOSA codec (lowering/tosa/json.hpp)
        }
        p["attributes"] = std::move(a);
    }
    if (!shape_constants.empty()) {
        nlohmann::json c = nlohmann::json::object();
        for (const auto& [argument, values] : shape_constants) {
            auto data = tosa::ConstData::allocate({tosa::DType::shape, {std::int64_t(values.size())}});
            std::copy(values.begin(), values.end(), data->mutable_items<std::int64_t>());
            c[argument] = tosa::constant_to_values_json(*data);
        }
        p["constants"] = std::move(c);
    }
    if (axis) p["axis"] = *axis;
    return p;
}

}  // namespace nnef::vpu::ir
