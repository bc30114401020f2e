#include "lowering/tosa/from_nnef.hpp"

#include <algorithm>
#include <exception>
#include <vector>

#include <nnef/op_def.hpp>

#include "lowering/tosa/from_nnef/context.hpp"
#include "lowering/tosa/passes/passes.hpp"

namespace nnef::tosa {

namespace tosa_from_nnef_cpp {

std::vector<Legalization> make_registry() {
    from_nnef::Registry r;
    from_nnef::add_tensor_intro(r);
    from_nnef::add_elementwise(r);
    from_nnef::add_activation(r);
    from_nnef::add_sliding_window(r);
    from_nnef::add_matmul(r);
    from_nnef::add_shape_ops(r);
    from_nnef::add_reduce(r);
    from_nnef::add_normalization(r);
    std::sort(r.begin(), r.end(), [](const Legalization& a, const Legalization& b) { return a.op < b.op; });
    return r;
}

bool kind_matches(AttrKind kind, const Attr& a) {
    switch (kind) {
        case AttrKind::i32: return std::holds_alternative<std::int64_t>(a);
        case AttrKind::boolean: return std::holds_alternative<bool>(a);
        case AttrKind::i32s:
        case AttrKind::shape: return std::holds_alternative<std::vector<std::int64_t>>(a);
        case AttrKind::num: return std::holds_alternative<double>(a) || std::holds_alternative<std::int64_t>(a);
        case AttrKind::acc: return std::holds_alternative<AccType>(a);
        case AttrKind::nan: return std::holds_alternative<NanMode>(a);
        case AttrKind::round: return std::holds_alternative<RoundingMode>(a);
        case AttrKind::resize: return std::holds_alternative<ResizeMode>(a);
        case AttrKind::str: return std::holds_alternative<std::string>(a);
        case AttrKind::dtype: return std::holds_alternative<DType>(a);
        case AttrKind::tensor: return std::holds_alternative<ConstPtr>(a) && std::get<ConstPtr>(a) != nullptr;
        case AttrKind::graph: return std::holds_alternative<BlockRef>(a);
    }
    return false;
}

}  // namespace tosa_from_nnef_cpp

const std::vector<Legalization>& legalizations() {
    static const std::vector<Legalization> registry = tosa_from_nnef_cpp::make_registry();
    return registry;
}

const Legalization* find_legalization(std::string_view op) {
    const auto& r = legalizations();
    auto it = std::lower_bound(r.begin(), r.end(), op, [](const Legalization& l, std::string_view n) { return l.op < n; });
    return it != r.end() && it->op == op ? &*it : nullptr;
}

bool verify_structure(const Graph& g, Diagnostics& diags, const std::string& after_pass) {
    using namespace tosa_from_nnef_cpp;
    const std::size_t errors = diags.error_count();
    const std::string when = after_pass.empty() ? "" : " (after pass '" + after_pass + "')";
    std::vector<std::uint8_t> defined(g.values.size(), 0);
    for (std::size_t b = 0; b < g.blocks.size(); ++b) {
        const Block& block = g.blocks[b];
        auto report = [&](const Op* op, std::size_t index, const std::string& message) {
            SourceRange range;
            std::string where = "block '" + block.name + "'";
            if (op) {
                where += " operator " + std::to_string(index) + " (" + to_string(op->kind) + ")";
                if (op->origin < g.origins.size()) {
                    range = g.origins[op->origin].provenance.range;
                    where += " from NNEF '" + g.origins[op->origin].operation + "'";
                }
            }
            diags.error(Stage::tosa, "invalid-graph", "invalid TOSA graph" + when + ": " + where + ": " + message, range);
        };
        auto define = [&](ValueId v, const Op* op, std::size_t index) {
            if (v >= g.values.size()) return report(op, index, "value %" + std::to_string(v) + " does not exist");
            if (defined[v]) return report(op, index, "value %" + std::to_string(v) + " is defined twice");
            defined[v] = 1;
        };
        for (ValueId v : block.inputs) define(v, nullptr, 0);
        for (std::size_t i = 0; i < block.ops.size() && !diags.limit_reached(); ++i) {
            const Op& op = block.ops[i];
            const OpInfo& info = op.info();
            const std::size_t ni = info.inputs.size(), no = info.outputs.size();
            if (info.variadic_inputs ? op.inputs.size() + 1 < ni : op.inputs.size() != ni)
                report(&op, i, "has " + std::to_string(op.inputs.size()) + " operands, needs " + std::to_string(ni));
            if (info.variadic_outputs ? op.outputs.size() + 1 < no : op.outputs.size() != no)
                report(&op, i, "has " + std::to_string(op.outputs.size()) + " results, needs " + std::to_string(no));
            for (ValueId v : op.inputs)
                if (v >= g.values.size() || !defined[v])
                    report(&op, i, "operand %" + std::to_string(v) + " is not defined before its use");
            for (const AttrSpec& spec : info.attributes) {
                const Attr* a = op.attr(spec.name);
                if (!a) {
                    if (!spec.optional) report(&op, i, std::string("attribute '") + to_string(spec.name) + "' is missing");
                } else if (!kind_matches(spec.kind, *a)) {
                    report(&op, i, std::string("attribute '") + to_string(spec.name) + "' is not of kind " + to_string(spec.kind));
                }
            }
            for (const auto& [name, a] : op.attrs)
                if (!info.attribute(name))
                    report(&op, i, std::string("has attribute '") + to_string(name) + "', which the operator does not take");
            if (op.kind == OpKind::CONST && op.outputs.size() == 1 && op.outputs[0] < g.values.size()) {
                const Attr* a = op.attr(AttrName::values);
                if (a && std::holds_alternative<ConstPtr>(*a) && std::get<ConstPtr>(*a) &&
                    std::get<ConstPtr>(*a)->type != g.type(op.outputs[0]))
                    report(&op, i, "the constant's type " + to_string(std::get<ConstPtr>(*a)->type) +
                                       " differs from its result's " + to_string(g.type(op.outputs[0])));
            }
            for (ValueId v : op.outputs) define(v, &op, i);
        }
        for (ValueId v : block.outputs)
            if (v >= g.values.size() || !defined[v]) report(nullptr, 0, "output %" + std::to_string(v) + " is not defined");
    }
    return diags.error_count() == errors;
}

std::optional<Graph> legalize_nnef(const nnef::Graph& model, const LowerOptions& options, Diagnostics& diags) {
    const std::size_t errors = diags.error_count();
    Graph g;
    g.name = model.name;
    g.profile = options.profile;
    from_nnef::Context c(model, g, options, diags);
    // the graph's inputs, in order
    for (const std::string& name : model.inputs) {
        const Tensor* t = model.tensor(name);
        if (!t || !t->shape || from_nnef::dtype_of(t->dtype) == DType::none) {
            diags.error(Stage::tosa, "unknown-shape", "graph input '" + name + "' has no known data type and shape");
            continue;
        }
        const ValueId v = g.add_value(TensorType{from_nnef::dtype_of(t->dtype), *t->shape}, name);
        g.main().inputs.push_back(v);
        c.bind_tensor(name, v);
    }
    for (const Operation& op : model.operations) {
        if (diags.limit_reached()) break;
        c.begin(op);
        // an operation downstream of one that failed is not reported again
        bool missing = false;
        std::vector<std::string> ids;
        for (const auto& [param, v] : op.inputs) {
            if (v.is_identifier()) ids.push_back(v.as_identifier());
            else if (v.is_list())
                for (const nnef::Value& item : v.items())
                    if (item.is_identifier()) ids.push_back(item.as_identifier());
        }
        for (const std::string& id : ids) missing = missing || c.value_of(id) == no_value;
        if (missing && diags.error_count() > errors) continue;
        const Legalization* l = find_legalization(op.name);
        if (!l) {
            c.refuse(OpRegistry::standard().find(op.name)
                         ? "no legalization is registered for this standard operation"
                         : "it is a custom operation (a fragment declared without a body), whose computation TOSA "
                           "cannot know");
            continue;
        }
        if (!l->lower) {
            c.refuse(l->refusal);
            continue;
        }
        bool known = true;
        for (const auto& [param, v] : op.outputs) {
            std::vector<const nnef::Value*> items;
            if (v.is_list())
                for (const nnef::Value& item : v.items()) items.push_back(&item);
            else
                items.push_back(&v);
            for (const nnef::Value* item : items) {
                const Tensor* t = item->is_identifier() ? model.tensor(item->as_identifier()) : nullptr;
                if (!t || !t->shape || from_nnef::dtype_of(t->dtype) == DType::none) {
                    c.error("unknown-shape", "result '" + (t ? t->name : std::string("?")) + "' of '" + op.name +
                                                 "' has no known data type and shape (downstream of a custom operation?)");
                    known = false;
                    break;
                }
            }
            if (!known) break;
        }
        if (!known) continue;
        if (missing) {
            c.error("internal-error", "an input of '" + op.name + "' has no TOSA value");
            continue;
        }
        try {
            l->lower(c);
        } catch (const std::exception& e) {
            c.error("internal-error", "lowering '" + op.name + "' failed: " + e.what());
        }
    }
    if (diags.error_count() > errors) return std::nullopt;
    // the graph's outputs, in order, as values named after them
    std::vector<std::uint8_t> is_input(g.values.size(), 0);
    for (ValueId v : g.main().inputs) is_input[v] = 1;
    for (const std::string& name : model.outputs) {
        ValueId v = c.value_of(name);
        if (v == no_value) {
            diags.error(Stage::tosa, "internal-error", "graph output '" + name + "' has no TOSA value");
            return std::nullopt;
        }
        const bool taken = std::find(g.main().outputs.begin(), g.main().outputs.end(), v) != g.main().outputs.end();
        if (g.values[v].name != name || taken || (v < is_input.size() && is_input[v])) {
            v = g.add_op(0, OpKind::IDENTITY, {v}, {g.type(v)}).outputs[0];
            g.values[v].name = name;
        }
        g.main().outputs.push_back(v);
    }
    return g;
}

lowering::Pipeline<Graph> layout_pipeline(const LowerOptions& options) {
    lowering::Pipeline<Graph> p;
    p.passes = passes::layout_passes(options);
    p.verify = [](const Graph& g, const std::string& after, Diagnostics& d) { return verify_structure(g, d, after); };
    p.printer = [](const Graph& g) { return to_text(g); };
    return p;
}

std::optional<Graph> lower_to_tosa(const nnef::Graph& model, const LowerOptions& options, Diagnostics& diags) {
    std::optional<Graph> g = legalize_nnef(model, options, diags);
    if (!g) return std::nullopt;
    const std::string legalize = "legalize-nnef-to-tosa";
    if (options.print && (options.print_after.count(legalize) || options.print_after.count("all")))
        options.print(legalize, to_text(*g));
    if (!options.layout_passes) {
        if (options.verify_each && !verify_structure(*g, diags, legalize)) return std::nullopt;
        return g;
    }
    lowering::PassOptions po;
    po.verify_each = options.verify_each;
    po.print_after = options.print_after;
    po.print = options.print;
    if (!layout_pipeline(options).run(*g, po, diags)) return std::nullopt;
    return g;
}

}  // namespace nnef::tosa
