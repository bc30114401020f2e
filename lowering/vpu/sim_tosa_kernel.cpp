// The simulator's SHAVE arithmetic is the TOSA interpreter's (lowering/tosa/ops): a SHAVE task
// becomes a small TOSA graph (KernelGraph) on its reads, run by tosa::Interpreter, whose results
// are stored to its writes. This file holds that graph and the kernels named by any other TOSA
// mnemonic (attributes and constants from the params, decoded by lowering/tosa/json.hpp);
// sim_shave.cpp maps the native kernels (docs/vpu.md) to TOSA operators.
#include <algorithm>

#include "lowering/tosa/interpreter.hpp"
#include "lowering/tosa/json.hpp"
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

// ---- KernelGraph -----------------------------------------------------------------------------------

KernelGraph::KernelGraph(std::string where) : where_(std::move(where)) { g_.name = "shave"; }

tosa::ValueId KernelGraph::input(const Dense& d, tosa::DType dt, const std::vector<std::int64_t>& shape) {
    auto c = tosa::ConstData::allocate({dt, shape});
    if (c->type.volume() != std::int64_t(d.v.size())) throw ValueError{where_ + ": an operand's shape does not hold its box"};
    for (std::size_t i = 0; i < d.v.size(); ++i) {
        // bool operands (the float path's 1.0 / 0.0): true when nonzero
        const double v = dt == tosa::DType::bool_ ? double(d.v[i] != 0) : d.v[i];
        if (!tosa::set_number_item(*c, std::int64_t(i), v))
            throw ValueError{where_ + ": item " + std::to_string(i) + " of an operand (" + std::to_string(v) + ") is no " +
                             tosa::to_string(dt) + " value, the type its TOSA operator computes in"};
    }
    const tosa::ValueId id = g_.add_value(c->type);
    g_.main().inputs.push_back(id);
    inputs_.push_back(c);
    return id;
}

tosa::ValueId KernelGraph::input(const Dense& d, tosa::DType dt) { return input(d, dt, d.shape); }

tosa::ValueId KernelGraph::constant(const tosa::ConstPtr& c) {
    if (c->type.dtype == tosa::DType::shape)
        return g_.add_const_shape(0, std::vector<std::int64_t>(c->items<std::int64_t>(), c->items<std::int64_t>() + c->type.volume()));
    return g_.add_const(0, c);
}

tosa::ValueId KernelGraph::scalar(tosa::DType dt, double v, std::size_t rank) {
    auto c = tosa::ConstData::allocate({dt, std::vector<std::int64_t>(rank, 1)});
    if (!tosa::set_number_item(*c, 0, v)) throw ValueError{where_ + ": " + std::to_string(v) + " is no " + tosa::to_string(dt) + " value"};
    return constant(c);
}

std::vector<tosa::ValueId> KernelGraph::ops(tosa::OpKind kind, const std::vector<tosa::ValueId>& operands,
                                             const std::vector<tosa::TensorType>& results,
                                             std::vector<std::pair<tosa::AttrName, tosa::Attr>> attributes) {
    return g_.add_op(0, kind, operands, results, std::move(attributes)).outputs;
}

tosa::ValueId KernelGraph::op(tosa::OpKind kind, const std::vector<tosa::ValueId>& operands, const tosa::TensorType& result,
                              std::vector<std::pair<tosa::AttrName, tosa::Attr>> attributes) {
    return ops(kind, operands, {result}, std::move(attributes))[0];
}

const tosa::TensorType& KernelGraph::type(tosa::ValueId v) const { return g_.type(v); }

std::vector<tosa::ConstPtr> KernelGraph::run(const std::vector<tosa::ValueId>& outputs) {
    g_.main().outputs = outputs;
    Diagnostics d;
    tosa::InterpretOptions options;
    options.threads = 1;  // one small operator per task: no thread pool
    auto interp = tosa::Interpreter::create(g_, options, d);
    std::optional<std::vector<tosa::ConstPtr>> results;
    if (interp) results = interp->run(inputs_, d);
    if (!results) throw ValueError{where_ + ": " + (d.empty() ? std::string("failed") : d.list().front().message)};
    return *results;
}

void KernelGraph::write(Memories& mem, const Access& a, const tosa::ConstData& c) const {
    if (c.type.volume() != a.elements()) throw ValueError{where_ + ": a result does not fill its write box"};
    std::vector<double> v(std::size_t(c.type.volume()));
    for (std::size_t k = 0; k < v.size(); ++k) v[k] = tosa::number_item(c, std::int64_t(k));
    scatter(mem, a, v);
}

// ---- kernels named by any other TOSA mnemonic ------------------------------------------------------

// params: {"kernel": mnemonic, "attributes": {name: value}, "constants": {argument name: constant}};
// the reads fill the other arguments in order (a variadic last argument takes the rest), the
// writes take the results in order; the buffers' dtypes are the TOSA types.
void run_tosa_kernel(Memories& mem, const Task& t, tosa::OpKind kind) {
    const ShaveParams& p = t.shave;
    expect_attrs(p, {"attributes", "constants"});
    const tosa::OpInfo& info = tosa::op_info(kind);
    const std::string where = "SHAVE kernel '" + p.kernel + "'";
    KernelGraph kg(where + " (TOSA " + info.name + ")");
    std::vector<tosa::ValueId> operands;
    const nlohmann::json constants = p.attrs.contains("constants") ? p.attrs["constants"] : nlohmann::json::object();
    if (!constants.is_object()) throw ValueError{where + ": params.constants must be an object"};
    std::size_t next_read = 0;
    auto add_read = [&]() {
        if (next_read >= t.reads.size()) throw ValueError{where + ": fewer reads than the operator's tensor arguments"};
        const Access& a = t.reads[next_read++];
        const auto dt = tosa_dtype(mem.buffer(a.buffer).dtype);
        if (!dt) throw ValueError{where + ": reads " + to_string(mem.buffer(a.buffer).dtype) + ", which TOSA has no type for"};
        operands.push_back(kg.input(gather(mem, a), *dt));
    };
    for (std::size_t i = 0; i < info.inputs.size(); ++i) {
        const std::string& name = info.inputs[i];
        const bool variadic = info.variadic_inputs && i + 1 == info.inputs.size();
        if (constants.contains(name)) {
            try {
                operands.push_back(kg.constant(tosa::constant_from_values_json(constants[name], "params/constants/" + name)));
            } catch (const tosa::JsonError& e) {
                throw ValueError{where + ": " + e.what()};
            }
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
        try {
            attrs.push_back({*name, tosa::attribute_from_json(it.value(), *spec, "params/attributes/" + it.key())});
        } catch (const tosa::JsonError& e) {
            throw ValueError{where + ": " + e.what()};
        }
    }
    std::vector<tosa::TensorType> results;
    for (const Access& w : t.writes) {
        const auto dt = tosa_dtype(mem.buffer(w.buffer).dtype);
        if (!dt) throw ValueError{where + ": writes a type TOSA has none for"};
        results.push_back({*dt, w.shape});
    }
    const std::vector<tosa::ConstPtr> values = kg.run(kg.ops(kind, operands, results, std::move(attrs)));
    for (std::size_t i = 0; i < t.writes.size(); ++i) kg.write(mem, t.writes[i], *values[i]);
}

}  // namespace nnef::vpu::sim_values_cpp
