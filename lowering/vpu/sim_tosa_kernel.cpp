// The simulator's SHAVE kernels that are one TOSA operator (docs/vpu.md), computed by the TOSA
// interpreter on the task's reads, with its attributes and constants from the params.
#include <algorithm>

#include "lowering/tosa/interpreter.hpp"
#include "lowering/vpu/sim_memory.hpp"

namespace nnef::vpu::sim_values_cpp {

void expect_attrs(const ShaveParams& p, std::initializer_list<const char*> allowed) {
    for (auto it = p.attrs.begin(); it != p.attrs.end(); ++it) {
        bool ok = false;
        for (const char* a : allowed)
            if (it.key() == a) ok = true;
        if (!ok) throw ValueError{"SHAVE kernel '" + p.kernel + "' has no parameter '" + it.key() + "'"};
    }
}

// ---- other SHAVE kernels: one TOSA operator run by the TOSA interpreter --------------------------

std::optional<tosa::DType> tosa_dtype(DataType t) {
    switch (t) {
        case DataType::fp16: return tosa::DType::fp16;
        case DataType::fp32: return tosa::DType::fp32;
        case DataType::int8: return tosa::DType::i8;
        case DataType::int32: return tosa::DType::i32;
        case DataType::uint8: return std::nullopt;
    }
    return std::nullopt;
}

template <class E>
E enum_attr(const nlohmann::json& j, const std::string& where, std::initializer_list<E> values) {
    if (j.is_string())
        for (E v : values)
            if (j.get<std::string>() == tosa::to_string(v)) return v;
    throw ValueError{where + ": not a valid value"};
}

tosa::Attr tosa_attr(const nlohmann::json& j, const tosa::AttrSpec& spec, const std::string& where) {
    using tosa::AttrKind;
    switch (spec.kind) {
        case AttrKind::i32:
            if (j.is_number_integer()) return j.get<std::int64_t>();
            break;
        case AttrKind::boolean:
            if (j.is_boolean()) return j.get<bool>();
            break;
        case AttrKind::i32s:
        case AttrKind::shape:
            if (j.is_array()) {
                std::vector<std::int64_t> v;
                for (const auto& x : j) {
                    if (!x.is_number_integer()) throw ValueError{where + ": expected integers"};
                    v.push_back(x.get<std::int64_t>());
                }
                return v;
            }
            break;
        case AttrKind::num:
            if (j.is_number()) return j.get<double>();
            break;
        case AttrKind::acc: return enum_attr(j, where, {tosa::AccType::INT32, tosa::AccType::FP16, tosa::AccType::FP32, tosa::AccType::INT48});
        case AttrKind::nan: return enum_attr(j, where, {tosa::NanMode::PROPAGATE, tosa::NanMode::IGNORE});
        case AttrKind::round:
            return enum_attr(j, where, {tosa::RoundingMode::SINGLE_ROUND, tosa::RoundingMode::INEXACT_ROUND, tosa::RoundingMode::DOUBLE_ROUND});
        case AttrKind::resize: return enum_attr(j, where, {tosa::ResizeMode::NEAREST_NEIGHBOR, tosa::ResizeMode::BILINEAR});
        case AttrKind::str:
            if (j.is_string()) return j.get<std::string>();
            break;
        case AttrKind::dtype:
            if (j.is_string())
                if (auto d = tosa::dtype_from_string(j.get<std::string>())) return *d;
            break;
        case AttrKind::tensor:
        case AttrKind::graph: break;
    }
    throw ValueError{where + ": expected a " + std::string(tosa::to_string(spec.kind)) + " value"};
}

// A constant operand {"dtype": "i8", "shape": [1], "values": [...]} ("shape" dtype: a shape_t).
tosa::ConstPtr tosa_constant(const nlohmann::json& j, const std::string& where) {
    if (!j.is_object() || !j.contains("dtype") || !j["dtype"].is_string() || !j.contains("values") || !j["values"].is_array())
        throw ValueError{where + ": expected {\"dtype\", \"shape\", \"values\"}"};
    const auto dt = tosa::dtype_from_string(j["dtype"].get<std::string>());
    if (!dt || *dt == tosa::DType::bf16 || *dt == tosa::DType::none) throw ValueError{where + "/dtype: not a supported TOSA type"};
    nnef::Shape shape;
    if (j.contains("shape") && j["shape"].is_array())
        for (const auto& x : j["shape"]) shape.push_back(x.is_number_integer() ? x.get<std::int64_t>() : -1);
    std::int64_t n = 1;
    for (std::int64_t e : shape) n = e < 0 ? -1 : n * e;
    if (n != std::int64_t(j["values"].size())) throw ValueError{where + ": values do not match the shape"};
    auto c = tosa::ConstData::allocate({*dt, shape});
    for (std::int64_t i = 0; i < n; ++i) {
        const auto& x = j["values"][std::size_t(i)];
        if (!x.is_number() && !x.is_boolean()) throw ValueError{where + "/values: expected numbers"};
        const double v = x.is_boolean() ? double(x.get<bool>()) : x.get<double>();
        switch (*dt) {
            case tosa::DType::bool_: c->mutable_items<std::uint8_t>()[i] = v != 0; break;
            case tosa::DType::i8: c->mutable_items<std::int8_t>()[i] = std::int8_t(v); break;
            case tosa::DType::i16: c->mutable_items<std::int16_t>()[i] = std::int16_t(v); break;
            case tosa::DType::i32: c->mutable_items<std::int32_t>()[i] = std::int32_t(v); break;
            case tosa::DType::i48:
            case tosa::DType::shape: c->mutable_items<std::int64_t>()[i] = std::int64_t(v); break;
            case tosa::DType::fp16: c->mutable_items<std::uint16_t>()[i] = tosa::fp32_to_fp16(float(v)); break;
            case tosa::DType::fp32: c->mutable_items<float>()[i] = float(v); break;
            default: break;
        }
    }
    return c;
}

// The TOSA operator whose MLIR mnemonic is `kernel`, if any.
std::optional<tosa::OpKind> tosa_kind(const std::string& kernel) {
    for (std::size_t k = 0; k < tosa::op_kind_count; ++k) {
        const tosa::OpInfo& info = tosa::op_info(static_cast<tosa::OpKind>(k));
        if (info.mnemonic == kernel) return info.kind;
    }
    return std::nullopt;
}

// params: {"kernel": mnemonic, "attributes": {name: value}, "constants": {argument name: constant}};
// the reads fill the other arguments in order (a variadic last argument takes the rest), the
// writes take the results in order.
void run_tosa_kernel(Memories& mem, const Task& t, tosa::OpKind kind) {
    const ShaveParams& p = t.shave;
    expect_attrs(p, {"attributes", "constants"});
    const tosa::OpInfo& info = tosa::op_info(kind);
    const std::string where = "SHAVE kernel '" + p.kernel + "'";
    tosa::Graph g;
    g.name = "shave";
    std::vector<tosa::ConstPtr> inputs;
    std::vector<tosa::ValueId> operands;
    const nlohmann::json constants = p.attrs.contains("constants") ? p.attrs["constants"] : nlohmann::json::object();
    if (!constants.is_object()) throw ValueError{where + ": params.constants must be an object"};
    std::size_t next_read = 0;
    auto add_read = [&]() {
        if (next_read >= t.reads.size()) throw ValueError{where + ": fewer reads than the operator's tensor arguments"};
        const Access& a = t.reads[next_read++];
        const Buffer& b = mem.buffer(a.buffer);
        const auto dt = tosa_dtype(b.dtype);
        if (!dt) throw ValueError{where + ": reads " + to_string(b.dtype) + ", which TOSA has no type for"};
        const Dense d = gather(mem, a);
        auto c = tosa::ConstData::allocate({*dt, a.shape});
        for (std::size_t i = 0; i < d.v.size(); ++i) {
            const double v = d.v[i];
            switch (*dt) {
                case tosa::DType::fp16: c->mutable_items<std::uint16_t>()[i] = tosa::fp32_to_fp16(float(v)); break;
                case tosa::DType::fp32: c->mutable_items<float>()[i] = float(v); break;
                case tosa::DType::i8: c->mutable_items<std::int8_t>()[i] = std::int8_t(v); break;
                default: c->mutable_items<std::int32_t>()[i] = std::int32_t(v); break;
            }
        }
        const tosa::ValueId id = g.add_value({*dt, a.shape});
        g.main().inputs.push_back(id);
        inputs.push_back(c);
        operands.push_back(id);
    };
    for (std::size_t i = 0; i < info.inputs.size(); ++i) {
        const std::string& name = info.inputs[i];
        const bool variadic = info.variadic_inputs && i + 1 == info.inputs.size();
        if (constants.contains(name)) {
            const tosa::ConstPtr c = tosa_constant(constants[name], where + " constant '" + name + "'");
            operands.push_back(c->type.dtype == tosa::DType::shape
                                   ? g.add_const_shape(0, std::vector<std::int64_t>(c->items<std::int64_t>(), c->items<std::int64_t>() + c->type.volume()))
                                   : g.add_const(0, c));
        } else if (variadic) {
            while (next_read < t.reads.size()) add_read();
        } else {
            add_read();
        }
    }
    for (auto it = constants.begin(); it != constants.end(); ++it)
        if (std::find(info.inputs.begin(), info.inputs.end(), it.key()) == info.inputs.end())
            throw ValueError{where + ": " + info.name + " has no argument '" + it.key() + "'"};
    if (next_read != t.reads.size()) throw ValueError{where + ": more reads than the operator's tensor arguments"};
    std::vector<std::pair<tosa::AttrName, tosa::Attr>> attrs;
    const nlohmann::json ja = p.attrs.contains("attributes") ? p.attrs["attributes"] : nlohmann::json::object();
    if (!ja.is_object()) throw ValueError{where + ": params.attributes must be an object"};
    for (auto it = ja.begin(); it != ja.end(); ++it) {
        const auto name = tosa::attr_name_from_string(it.key());
        const tosa::AttrSpec* spec = name ? info.attribute(*name) : nullptr;
        if (!spec) throw ValueError{where + ": " + info.name + " has no attribute '" + it.key() + "'"};
        attrs.push_back({*name, tosa_attr(it.value(), *spec, where + " attribute '" + it.key() + "'")});
    }
    std::vector<tosa::TensorType> out_types;
    for (const Access& w : t.writes) {
        const auto dt = tosa_dtype(mem.buffer(w.buffer).dtype);
        if (!dt) throw ValueError{where + ": writes a type TOSA has none for"};
        out_types.push_back({*dt, w.shape});
    }
    tosa::Op& op = g.add_op(0, kind, operands, out_types, attrs);
    g.main().outputs = op.outputs;
    Diagnostics d;
    auto interp = tosa::Interpreter::create(g, {}, d);
    std::optional<std::vector<tosa::ConstPtr>> results;
    if (interp) results = interp->run(inputs, d);
    if (!results) throw ValueError{where + " (TOSA " + info.name + "): " + (d.empty() ? std::string("failed") : d.list().front().message)};
    for (std::size_t i = 0; i < t.writes.size(); ++i) {
        const tosa::ConstData& c = *(*results)[i];
        std::vector<double> v(std::size_t(c.type.volume()));
        for (std::size_t k = 0; k < v.size(); ++k) v[k] = const_number(c, std::int64_t(k));
        if (std::int64_t(v.size()) != t.writes[i].elements()) throw ValueError{where + ": a result does not fill its write box"};
        scatter(mem, t.writes[i], v);
    }
}

}  // namespace nnef::vpu::sim_values_cpp
