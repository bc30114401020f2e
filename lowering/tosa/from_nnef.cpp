#include "lowering/tosa/from_nnef.hpp"

#include <algorithm>
#include <exception>
#include <vector>

#include <nnef/op_def.hpp>

#include "lowering/tosa/from_nnef/context.hpp"
#include "lowering/tosa/mlir.hpp"
#include "lowering/tosa/passes/passes.hpp"
#include "lowering/tosa/validator.hpp"

namespace nnef::tosa {

namespace tosa_from_nnef_cpp {

std::vector<Legalization> make_registry() {
    from_nnef::Registry r;
    from_nnef::add_tensor_intro(r);
    from_nnef::add_elementwise(r);
    from_nnef::add_activation(r);
    from_nnef::add_convolution(r);
    from_nnef::add_sliding_window(r);
    from_nnef::add_matmul(r);
    from_nnef::add_shape_ops(r);
    from_nnef::add_reduce(r);
    from_nnef::add_normalization(r);
    from_nnef::add_quantization(r);
    from_nnef::add_variable_update(r);
    from_nnef::add_sampling(r);
    from_nnef::add_roi(r);
    std::sort(r.begin(), r.end(), [](const Legalization& a, const Legalization& b) { return a.op < b.op; });
    return r;
}

// The validator's options for a graph: the lowering's profile and level, and the extensions the
// graph needs (EXT-VARIABLE for the variables that NNEF updates).
ValidateOptions validate_options(const LowerOptions& options, const Graph& g) {
    ValidateOptions vo;
    vo.profile = options.profile;
    vo.level = options.level;
    for (const Block& b : g.blocks)
        for (const Op& op : b.ops)
            if (op.kind == OpKind::VARIABLE) {
                vo.extensions.push_back("EXT-VARIABLE");
                return vo;
            }
    return vo;
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

std::optional<Graph> legalize_nnef(const nnef::Graph& model, const LowerOptions& options, Diagnostics& diags) {
    if (options.profile == Profile::pro_int && from_nnef::is_quantized(model))
        return from_nnef::legalize_integer(model, options, diags);
    if (options.profile == Profile::pro_int)
        for (const Tensor& t : model.tensors)
            if (t.dtype == PrimType::scalar) {
                diags.error(Stage::tosa, "unsupported-profile",
                            "graph '" + model.name + "' computes in floating point (tensor '" + t.name +
                                "') and has no quantization (no graph.quant entry, no quantize fragment): PRO-INT has "
                                "no floating-point operators; lower it at PRO-FP, or give it a graph.quant");
                return std::nullopt;
            }
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
    for (const std::string& name : model.outputs) {
        const ValueId v = c.value_of(name);
        if (v == no_value) {
            diags.error(Stage::tosa, "internal-error", "graph output '" + name + "' has no TOSA value");
            return std::nullopt;
        }
        from_nnef::add_graph_output(g, v, name);
    }
    return g;
}

// What --print-after writes after a pass: the graph as TOSA MLIR, which read_mlir (nnef-to-tosa and
// nnef-to-vpu FILE.mlir) reads back to the same graph: at the options' level, every constant
// inline, each PAD as it is.
namespace tosa_from_nnef_cpp {
std::string print_graph(const Graph& g, const LowerOptions& options) {
    MlirOptions mo;
    mo.level = options.level;
    mo.split_wide_pads = false;
    return to_mlir(g, mo);
}
}  // namespace tosa_from_nnef_cpp

lowering::Pipeline<Graph> layout_pipeline(const LowerOptions& options) {
    lowering::Pipeline<Graph> p;
    p.passes = passes::layout_passes(options);
    p.verify = [options](const Graph& g, const std::string&, Diagnostics& d) {
        return validate(g, tosa_from_nnef_cpp::validate_options(options, g), d);
    };
    p.printer = [options](const Graph& g) { return tosa_from_nnef_cpp::print_graph(g, options); };
    return p;
}

std::optional<Graph> lower_to_tosa(const nnef::Graph& model, const LowerOptions& options, Diagnostics& diags) {
    std::optional<Graph> g = legalize_nnef(model, options, diags);
    if (!g) return std::nullopt;
    const std::string legalize = "legalize-nnef-to-tosa";
    if (options.print && (options.print_after.count(legalize) || options.print_after.count("all")))
        options.print(legalize, tosa_from_nnef_cpp::print_graph(*g, options));
    if (!options.layout_passes) {
        if (options.verify_each && !validate(*g, tosa_from_nnef_cpp::validate_options(options, *g), diags))
            return std::nullopt;
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
