#include "via_nnapi.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "lowering/nnapi/from_nnef.hpp"
#include "lowering/nnapi/interpreter.hpp"
#include "lowering/nnapi/model.hpp"
#include "storage/quantization.hpp"

namespace nnef::run_engine {

namespace run_via_nnapi_cpp {

using exec::TensorValue;

class NnapiEngine final : public Engine<TensorValue> {
public:
    const Graph& model;
    nnapi::Exported exported;
    std::vector<nnapi::Tensor> feeds;
    std::vector<nnapi::TensorBinding> watched;  // the model outputs: the graph's, then kept tensors
    std::map<std::string, TensorValue> tensors;
    std::map<std::string, storage::QuantParams> params;  // of the quantized boundary tensors

    explicit NnapiEngine(const Graph& g) : model(g) {}

    bool set_input(const std::string& name, const TensorValue& value, Diagnostics& diags) override {
        const auto at = std::find(model.inputs.begin(), model.inputs.end(), name);
        if (at == model.inputs.end()) {
            diags.error(Stage::data, "unknown-input", "graph '" + model.name + "' has no input '" + name + "'");
            return false;
        }
        const std::size_t i = static_cast<std::size_t>(at - model.inputs.begin());
        const nnapi::TensorBinding& b = exported.inputs[i];
        const Tensor* t = model.tensor(name);
        if (!t || !t->shape || value.shape() != *t->shape) {
            diags.error(Stage::data, "input-shape", "input '" + name + "' has shape " + to_string(value.shape()) + ", the graph takes " +
                                                        (t && t->shape ? to_string(*t->shape) : std::string("?")));
            return false;
        }
        auto p = params.find(name);
        feeds[i] = nnapi::to_operand_value(exported.model, b, *t->shape, value.to_doubles(), p == params.end() ? nullptr : &p->second);
        return true;
    }

    bool run(Diagnostics& diags) override {
        tensors.clear();
        for (std::size_t i = 0; i < feeds.size(); ++i)
            if (feeds[i].data.empty()) {
                diags.error(Stage::data, "missing-input", "no value for graph input '" + model.inputs[i] + "'");
                return false;
            }
        std::optional<std::vector<nnapi::Tensor>> outs = nnapi::run(exported.model, feeds, diags);
        if (!outs) return false;
        for (std::size_t i = 0; i < outs->size() && i < watched.size(); ++i) {
            const nnapi::TensorBinding& b = watched[i];
            const Tensor* t = model.tensor(b.name);
            const nnapi::Tensor& out = (*outs)[i];
            auto p = params.find(b.name);
            const std::vector<double> reals = nnapi::from_operand_value(b, *t->shape, out, p == params.end() ? nullptr : &p->second);
            TensorValue v(PrimType::scalar, *t->shape);
            if (std::int64_t(reals.size()) != v.volume()) {
                diags.error(Stage::nnapi, "output-shape", "output '" + b.name + "' of the NNAPI model has " + std::to_string(out.element_count()) +
                                                              " items, the NNEF tensor " + std::to_string(v.volume()));
                return false;
            }
            exec::Real* items = v.data<exec::Real>();
            for (std::int64_t k = 0; k < v.volume(); ++k) items[k] = static_cast<exec::Real>(reals[std::size_t(k)]);
            tensors[b.name] = std::move(v);
        }
        return true;
    }

    const TensorValue* tensor(const std::string& name) const override {
        auto it = tensors.find(name);
        return it == tensors.end() ? nullptr : &it->second;
    }
    const TensorValue* variable(const std::string&) const override { return nullptr; }
};

}  // namespace run_via_nnapi_cpp

std::unique_ptr<Engine<exec::TensorValue>> make_nnapi_engine(const Graph& g, const exec::ExecOptions& options, Diagnostics& diags) {
    using run_via_nnapi_cpp::NnapiEngine;
    auto engine = std::make_unique<NnapiEngine>(g);
    nnapi::ExportOptions eo;
    eo.random_weights = options.random_weights;
    std::optional<nnapi::Exported> e = nnapi::export_model(g, eo, diags);
    if (!e) return nullptr;
    engine->exported = std::move(*e);
    nnapi::Model& m = engine->exported.model;
    engine->watched = engine->exported.outputs;
    // the kept tensors become extra outputs of the model
    std::set<std::string> keep = options.keep;
    if (options.keep_all)
        for (const Tensor& t : g.tensors) keep.insert(t.name);
    for (const std::string& name : keep) {
        if (std::find(g.outputs.begin(), g.outputs.end(), name) != g.outputs.end()) continue;
        auto it = engine->exported.tensors.find(name);
        if (it == engine->exported.tensors.end()) {
            if (options.keep_all) continue;
            diags.error(Stage::nnapi, "dump-not-exported",
                        "tensor '" + name + "' has no operand of its own in the NNAPI model (the export fused it into an activation, "
                        "holds it as a constant, or as a channel view); dump it without --via nnapi");
            return nullptr;
        }
        nnapi::Operand& op = m.operands.at(it->second.operand);
        if (op.lifetime != nnapi::OperandLifeTime::TEMPORARY_VARIABLE) continue;
        op.lifetime = nnapi::OperandLifeTime::MODEL_OUTPUT;
        m.outputIndexes.push_back(it->second.operand);
        engine->watched.push_back(it->second);
    }
    if (!nnapi::validate(m, diags)) return nullptr;
    auto add_params = [&](const nnapi::TensorBinding& b) -> bool {
        const Tensor* t = g.tensor(b.name);
        if (!b.quantized || !t || !t->quantization) return true;
        Result<storage::QuantParams> p = storage::quant_params(*t->quantization, t->name);
        if (!p) {
            diags.append(p.diagnostics);
            return false;
        }
        engine->params[b.name] = *p.value;
        return true;
    };
    for (const nnapi::TensorBinding& b : engine->exported.inputs)
        if (!add_params(b)) return nullptr;
    for (const nnapi::TensorBinding& b : engine->watched)
        if (!add_params(b)) return nullptr;
    engine->feeds.resize(g.inputs.size());
    return engine;
}

}  // namespace nnef::run_engine
