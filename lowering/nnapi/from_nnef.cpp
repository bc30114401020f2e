#include "lowering/nnapi/from_nnef.hpp"

#include <algorithm>
#include <exception>
#include <set>

#include <nnef/op_def.hpp>

#include "lowering/nnapi/from_nnef_context.hpp"

namespace nnef::nnapi {

namespace nnapi_from_nnef_cpp {

using from_nnef::Context;
using from_nnef::Ref;

const from_nnef::Handlers& handlers() {
    static const from_nnef::Handlers h = [] {
        from_nnef::Handlers all;
        from_nnef::add_tensor_handlers(all);
        from_nnef::add_window_handlers(all);
        from_nnef::add_elementwise_handlers(all);
        return all;
    }();
    return h;
}

// The NNEF tensors an operation reads and writes.
std::vector<std::string> tensors_of(const NamedValues& values) {
    std::vector<std::string> out;
    for (const auto& [param, v] : values) {
        if (v.is_identifier()) out.push_back(v.as_identifier());
        else if (v.is_list())
            for (const nnef::Value& item : v.items())
                if (item.is_identifier()) out.push_back(item.as_identifier());
    }
    return out;
}

// In partial mode, the results of a refused operation become stand-in operands (as if inputs), so
// that the operations after it are judged alone.
void stand_in(Context& c, const nnef::Operation& op) {
    for (const std::string& n : tensors_of(op.outputs)) {
        const nnef::Tensor* t = c.graph().tensor(n);
        if (!t || !t->shape || t->shape->size() > 4 || c.refs.count(n)) continue;
        bool failed = false;
        std::optional<from_nnef::Grid> g;
        if (c.quantized() && t->quantization) g = c.grid_of_entry(*t, failed);
        c.bind_operand(n, c.new_operand(*t->shape, failed ? std::nullopt : g));
    }
}

// Walks the operations; returns whether every one was exported. With `support`, records each
// operation's verdict and goes on after a refusal.
bool walk(Context& c, Diagnostics& diags, std::vector<OperationSupport>* support) {
    const std::size_t errors = diags.error_count();
    const nnef::Graph& g = c.graph();
    for (std::size_t i = 0; i < g.operations.size(); ++i) {
        const nnef::Operation& op = g.operations[i];
        if (!support && diags.limit_reached()) break;
        c.begin(op);
        const std::size_t before = diags.error_count();
        bool missing = false;
        for (const std::string& n : tensors_of(op.inputs)) missing = missing || !c.refs.count(n);
        bool ok = false;
        c.last_refusal.clear();
        if (missing && diags.error_count() > errors) continue;  // downstream of an error reported already
        auto h = handlers().find(op.name);
        if (missing) {
            ok = c.error("internal-error", "an input of '" + op.name + "' has no NNAPI value");
        } else if (h == handlers().end()) {
            ok = c.refuse(OpRegistry::standard().find(op.name)
                              ? "NNAPI 1.0 has no operation that computes it (docs/nnapi.md lists the exported operations)"
                              : "it is a custom operation (a fragment declared without a body), whose computation NNAPI cannot know");
        } else {
            try {
                ok = h->second(c);
            } catch (const std::exception& e) {
                ok = c.error("internal-error", "exporting '" + op.name + "' failed: " + e.what());
            }
        }
        ok = ok && diags.error_count() == before;
        if (support) {
            OperationSupport s;
            s.index = i;
            s.op = op.name;
            const std::vector<std::string> results = tensors_of(op.outputs);
            s.result = results.empty() ? "" : results.front();
            s.range = op.provenance.range;
            s.supported = ok;
            if (!ok) {
                s.why = c.last_refusal;
                if (s.why.empty())
                    for (std::size_t k = before; k < diags.list().size(); ++k)
                        if (diags.list()[k].severity == Severity::error) {
                            s.why = diags.list()[k].message;
                            break;
                        }
                stand_in(c, op);
            }
            support->push_back(std::move(s));
        }
    }
    c.flush();
    return diags.error_count() == errors;
}

TensorBinding binding(Context& c, const std::string& name, std::uint32_t operand) {
    TensorBinding b;
    b.name = name;
    b.operand = operand;
    const nnef::Tensor* t = c.graph().tensor(name);
    b.nhwc = t && t->shape && t->shape->size() == 4;
    b.quantized = c.model().operands.at(operand).type == OperandType::TENSOR_QUANT8_ASYMM;
    bool failed = false;
    if (b.quantized && t && t->quantization) {
        const std::optional<from_nnef::Grid> g = c.grid_of_entry(*t, failed);
        if (g) b.offset = g->offset;
    }
    return b;
}

}  // namespace nnapi_from_nnef_cpp

std::optional<Exported> export_model(const nnef::Graph& graph, const ExportOptions& options, Diagnostics& diags) {
    using namespace nnapi_from_nnef_cpp;
    Context c(graph, options, diags, false);
    if (!walk(c, diags, nullptr)) return std::nullopt;
    Exported e;
    std::vector<std::uint32_t> ins, outs;
    std::set<std::uint32_t> used;
    for (const std::string& n : graph.inputs) {
        const Ref& r = c.ref_of(n);
        if (r.kind != Ref::Kind::operand) {
            diags.error(Stage::nnapi, "internal-error", "graph input '" + n + "' has no NNAPI operand");
            return std::nullopt;
        }
        ins.push_back(r.operand);
        used.insert(r.operand);
        e.inputs.push_back(binding(c, n, r.operand));
    }
    for (const std::string& n : graph.outputs) {
        const Ref r = c.ref_of(n);
        c.begin(graph.operations.back());
        if (r.kind == Ref::Kind::constant) {
            diags.error(Stage::nnapi, "constant-output", "graph output '" + n + "' is a constant; an NNAPI model output is computed by an operation");
            return std::nullopt;
        }
        std::optional<std::uint32_t> o = c.materialize(n, r);
        if (!o) return std::nullopt;
        if (used.count(*o)) {  // an input, or another output already: a copy of its own
            const Operand src = c.model().operands.at(*o);
            const std::uint32_t copy = add_operand(c.model(), src.type, src.dimensions, src.scale, src.zeroPoint);
            const std::vector<std::int32_t> shape(src.dimensions.begin(), src.dimensions.end());
            c.emit(OperationType::RESHAPE, {*o, c.int32_tensor({std::uint32_t(shape.size())}, shape, 0.0f)}, copy, false);
            o = copy;
        }
        used.insert(*o);
        outs.push_back(*o);
        e.outputs.push_back(binding(c, n, *o));
    }
    c.flush();
    if (diags.has_errors()) return std::nullopt;
    if (!c.rounded_twice.empty())
        diags.warning(Stage::nnapi, "rounded-twice",
                      std::to_string(c.rounded_twice.size()) + " sigmoid or softmax result(s) ('" + c.rounded_twice.front() +
                          "' first) round twice: onto the grid of scale 1/256 and zero point 0 that NNAPI 1.0's quantized LOGISTIC and "
                          "SOFTMAX output on, then onto graph.quant's (within one code of NNEF's one rounding)");
    set_inputs_and_outputs(c.model(), ins, outs);
    // the tensors operands hold as they are: the last tensor bound to each operand
    std::map<std::uint32_t, std::string> holder;
    for (const nnef::Operation& op : graph.operations)
        for (const std::string& n : tensors_of(op.outputs)) {
            const Ref& r = c.ref_of(n);
            if (r.kind == Ref::Kind::operand && r.columns.empty()) holder[r.operand] = n;
        }
    for (const auto& [operand, name] : holder) e.tensors[name] = binding(c, name, operand);
    // (pool 0 was made at the start, reserved: Context's constructor; no large constant, no pool)
    if (c.model().pools.size() == 1 && c.model().pools[0].data.empty()) c.model().pools.clear();
    e.model = std::move(c.model());
    return e;
}

std::vector<OperationSupport> supported_operations(const nnef::Graph& graph, const ExportOptions& options) {
    Diagnostics diags(0);
    from_nnef::Context c(graph, options, diags, true);
    std::vector<OperationSupport> support;
    nnapi_from_nnef_cpp::walk(c, diags, &support);
    return support;
}

std::vector<std::string> exported_operations() {
    std::vector<std::string> names;
    for (const auto& [name, h] : nnapi_from_nnef_cpp::handlers()) names.push_back(name);
    return names;
}

}  // namespace nnef::nnapi
