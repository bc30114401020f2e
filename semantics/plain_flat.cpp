// The fast path for plain flat documents (see semantics/plain_flat.hpp). Every `return false`
// below means "not here": the full front end takes the document from the start.
#include "semantics/plain_flat.hpp"

#include <boost/container/small_vector.hpp>

#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "grammar/plain_flat.hpp"
#include "semantics/infer.hpp"
#include "semantics/types.hpp"

namespace nnef::sema {

namespace plain_flat_cpp {

namespace plain = grammar::plain;

// A standard operation as this path uses it.
struct OpInfo {
    const ast::Fragment* decl = nullptr;
    const OpDef* def = nullptr;
    bool usable = false;  // atomic, one tensor result, literal defaults
    std::vector<bool> tensor_param;              // per parameter: a tensor type (an input)
    std::vector<std::optional<Value>> defaults;  // per parameter
    PrimType result = PrimType::none;            // the result's data type (generic: the binding)
};

// A parameter default (a literal expression) as a value; nullopt for anything else.
std::optional<Value> literal_value(const ast::Expr& e) {
    switch (e.kind) {
        case ast::ExprKind::integer: return Value::integer(e.ival);
        case ast::ExprKind::scalar: return Value::scalar(e.sval);
        case ast::ExprKind::logical: return Value::logical(e.bval);
        case ast::ExprKind::string: return Value::string(std::string(e.text));
        case ast::ExprKind::array:
        case ast::ExprKind::tuple: {
            Value::Items items;
            for (const ast::Expr& c : e.children) {
                std::optional<Value> v = literal_value(c);
                if (!v) return std::nullopt;
                items.push_back(std::move(*v));
            }
            return e.kind == ast::ExprKind::array ? Value::array(std::move(items)) : Value::tuple(std::move(items));
        }
        default: return std::nullopt;
    }
}

// Type::array out of line (GCC 12 inlining it into Checker::evaluate reports a false
// -Wfree-nonheap-object).
[[gnu::noinline]] Type array_of(Type item) { return Type::array(std::move(item)); }

class Checker final : public plain::Sink {
public:
    Checker(const SourceManager& sm, std::uint32_t file, const Stdlib& stdlib, const ExpandOptions& options)
        : file_(file), base_(sm.text(file).data()), stdlib_(stdlib), options_(options) {}

    // ---- the graph's header -----------------------------------------------------------------
    bool begin_graph(const plain::Header& h) override {
        ast::Document& doc = result_.document;
        doc.file = file_;
        doc.version_major = 1;
        doc.version_minor = 0;
        doc.version_range = range(h.version_begin, h.version_end);
        ast::GraphDef gd;
        gd.name = std::string(h.graph.text);
        gd.name_range = range(h.graph.at, h.graph.text.size());
        gd.range = range(h.graph_begin, h.graph_begin + 5);
        Graph& g = result_.expansion.graph;
        g.name = gd.name;
        for (const plain::Name& p : h.params) {
            if (!params_.insert(p.text).second) return false;  // listed twice
            gd.params.push_back(ast::Identifier{std::string(p.text), range(p.at, p.text.size())});
            g.inputs.emplace_back(p.text);
        }
        std::unordered_set<std::string_view> results;
        for (const plain::Name& r : h.results) {
            if (!results.insert(r.text).second) return false;
            gd.results.push_back(ast::Identifier{std::string(r.text), range(r.at, r.text.size())});
            g.outputs.emplace_back(r.text);
        }
        doc.graph = std::move(gd);
        return true;
    }

    bool end_graph(const char* graph_end) override {
        result_.document.graph->range.end = offset(graph_end);
        const Graph& g = result_.expansion.graph;
        for (const std::string& n : g.inputs)
            if (!g.tensor(n)) return false;  // never defined by `external`
        for (const std::string& n : g.outputs)
            if (!g.tensor(n)) return false;  // never assigned
        result_.expansion.operation_count = operations_;
        return true;
    }

    // ---- a statement --------------------------------------------------------------------------
    bool statement(const plain::Statement& s) override {
        if (operations_ >= options_.options.limits.max_operations) return false;
        const OpInfo* info = op_info(s.op);
        if (!info) return false;
        const ast::Fragment& decl = *info->decl;
        const std::vector<ast::Param>& params = decl.params;
        Graph& g = result_.expansion.graph;

        // The left-hand side: a new name; a graph parameter exactly when defined by `external`.
        if (g.tensor(s.lhs)) return false;
        if ((params_.count(s.lhs) != 0) != (decl.name == "external")) return false;

        // Arguments to parameters: tensors by position, anything by name, once each.
        boost::container::small_vector<int, 16> assigned(params.size(), -1);
        std::size_t position = 0;
        for (std::size_t i = 0; i < s.args.size(); ++i) {
            const plain::Arg& a = s.args[i];
            std::size_t p = 0;
            if (a.name.empty()) {
                p = position++;
                if (p >= params.size() || !info->tensor_param[p]) return false;
            } else {
                while (p < params.size() && params[p].name != a.name) ++p;
                if (p == params.size() || assigned[p] >= 0) return false;
            }
            assigned[p] = static_cast<int>(i);
        }

        // The arguments' values and types.
        values_.resize(s.args.size());
        types_.resize(s.args.size());
        for (std::size_t i = 0; i < s.args.size(); ++i)
            if (!evaluate(s, s.args[i].node, values_[i], types_[i])) return false;

        // The generic binding (spec 3.3.2): explicit, else the declared default, else the unique
        // deduction from the arguments.
        PrimType bound = PrimType::none;
        if (s.generic != PrimType::none) {
            if (!decl.generic) return false;
            bound = s.generic;
        } else if (decl.generic && decl.generic_default) {
            bound = *decl.generic_default;
        } else if (decl.generic) {
            pairs_.clear();
            for (std::size_t p = 0; p < params.size(); ++p)
                if (assigned[p] >= 0) pairs_.emplace_back(types_[static_cast<std::size_t>(assigned[p])], params[p].type);
            Deduction d = resolve_generic(std::nullopt, std::nullopt, pairs_);
            if (d.status != Deduction::Status::unique) return false;
            bound = d.binding;
        }

        // Values in declaration order, each argument castable to its parameter's type.
        op_.name = decl.name;
        op_.dtype = decl.generic ? bound : PrimType::none;
        op_.inputs.clear();
        op_.attribs.clear();
        op_.outputs.clear();
        for (std::size_t p = 0; p < params.size(); ++p) {
            Value v;
            if (assigned[p] >= 0) {
                const std::size_t a = static_cast<std::size_t>(assigned[p]);
                if (!castable(types_[a], params[p].type.bind(bound), true)) return false;
                v = std::move(values_[a]);
            } else if (info->defaults[p]) {
                // A generic parameter's default must match the binding: not checked here.
                if (decl.generic && params[p].type.is_generic()) return false;
                v = *info->defaults[p];
            } else {
                return false;  // a missing argument
            }
            (info->tensor_param[p] ? op_.inputs : op_.attribs).emplace_back(params[p].name, std::move(v));
        }

        // The result.
        const std::size_t index = g.tensors.size();
        PrimType dtype = info->result == PrimType::generic ? bound : info->result;
        g.add_tensor(std::string(s.lhs), dtype);
        identifiers_.push_back(Value::identifier(std::string(s.lhs)));
        producers_.set(index, &decl.name);
        op_.outputs.emplace_back(decl.results[0].name, identifiers_.back());
        op_.provenance.range = range(s.rhs_begin, s.rhs_end);
        ++operations_;

        InferReport report = infer_report(options_.options);
        if (!infer_operation(g, producers_, op_, info->def, report)) return false;
        if (!report.warnings.empty() || !report.errors.empty()) return false;
        if (decl.name == "variable" && !record_label(index)) return false;
        return true;
    }

    PlainFlatResult take() { return std::move(result_); }

private:
    std::uint32_t offset(const char* p) const { return static_cast<std::uint32_t>(p - base_); }
    SourceRange range(const char* b, const char* e) const { return SourceRange{file_, offset(b), offset(e)}; }
    SourceRange range(const char* b, std::size_t n) const { return range(b, b + n); }

    const OpInfo* op_info(std::string_view name) {
        auto it = ops_.find(name);
        if (it != ops_.end()) return it->second.usable ? &it->second : nullptr;
        const ast::Fragment* decl = stdlib_.find(name);
        if (!decl) return nullptr;  // unknown (in this dialect)
        OpInfo& info = ops_[std::string_view(decl->name)];
        info.decl = decl;
        info.def = OpRegistry::standard().find(decl->name);
        // Atomic with a shape function (not update: its graph-level rule is the full path's), one
        // single-tensor result, literal defaults.
        if (!info.def || decl->name == "update" || decl->results.size() != 1 || !decl->results[0].type.is_tensor())
            return nullptr;
        info.result = decl->results[0].type.prim();
        for (const ast::Param& p : decl->params) {
            info.tensor_param.push_back(p.type.contains_tensor());
            if (p.default_value) {
                info.defaults.push_back(literal_value(*p.default_value));
                if (!info.defaults.back()) return nullptr;
            } else {
                info.defaults.emplace_back();
            }
        }
        info.usable = true;
        return &info;
    }

    // The value and type of the flat value at `node`.
    bool evaluate(const plain::Statement& s, std::uint32_t node, Value& v, Type& t) {
        const plain::Node& n = s.nodes[node];
        switch (n.kind) {
            case plain::Kind::integer:
                v = Value::integer(n.ival);
                t = Type::primitive(PrimType::integer);
                return true;
            case plain::Kind::scalar:
                v = Value::scalar(n.sval);
                t = Type::primitive(PrimType::scalar);
                return true;
            case plain::Kind::logical:
                v = Value::logical(n.bval);
                t = Type::primitive(PrimType::logical);
                return true;
            case plain::Kind::string: {
                auto it = strings_.find(n.text);
                if (it == strings_.end()) {
                    // Labels are mostly unique: keep only the first few distinct strings.
                    if (strings_.size() >= 256) {
                        v = Value::string(std::string(n.text));
                        t = Type::primitive(PrimType::string);
                        return true;
                    }
                    Value made = Value::string(std::string(n.text));
                    it = strings_.emplace(std::string_view(made.as_string()), std::move(made)).first;
                }
                v = it->second;
                t = Type::primitive(PrimType::string);
                return true;
            }
            case plain::Kind::identifier: {
                const Tensor* tensor = result_.expansion.graph.tensor(n.text);
                if (!tensor) return false;  // undefined (or a graph parameter before its `external`)
                const std::size_t i = static_cast<std::size_t>(tensor - result_.expansion.graph.tensors.data());
                v = identifiers_[i];
                t = Type::tensor(tensor->dtype);
                return true;
            }
            case plain::Kind::array:
            case plain::Kind::tuple: break;
        }
        // Lists: literal ones are made once per spelling.
        if (auto it = lists_.find(n.text); it != lists_.end()) {
            v = it->second.first;
            t = it->second.second;
            return true;
        }
        Value::Items items;
        items.reserve(n.items);
        std::vector<Type> tuple_types;     // tuples: the item types
        std::optional<Type> array_item;    // arrays: the common item type so far
        bool literal = true;               // no identifier inside
        for (std::uint32_t c = node + 1; c < n.next; c = s.nodes[c].next) {
            Value item_value;
            Type item_type;
            if (!evaluate(s, c, item_value, item_type)) return false;
            literal = literal && !item_type.contains_tensor();
            items.push_back(std::move(item_value));
            if (n.kind == plain::Kind::tuple) {
                tuple_types.push_back(std::move(item_type));
            } else if (!array_item) {
                array_item = std::move(item_type);
            } else {
                std::optional<Type> common = common_type(*array_item, item_type);
                if (!common) return false;  // items without a common type
                array_item = std::move(common);
            }
        }
        if (n.kind == plain::Kind::tuple) {
            v = Value::tuple(std::move(items));
            t = Type::tuple(std::move(tuple_types));
        } else {
            v = Value::array(std::move(items));
            t = array_item ? array_of(std::move(*array_item)) : empty_array_type();
        }
        if (literal && lists_.size() < 4096) lists_.emplace(n.text, std::make_pair(v, t));
        return true;
    }

    // Variables sharing a label (case-insensitively) must have equal shapes.
    bool record_label(std::size_t index) {
        const Value* label = op_.attrib("label");
        if (!label || !label->is_string()) return false;
        const Graph& g = result_.expansion.graph;
        auto [it, first] = labels_.try_emplace(label_key(label->as_string()), index);
        if (first) return true;
        const Tensor& a = g.tensors[it->second];
        const Tensor& b = g.tensors[index];
        return !(a.shape && b.shape && *a.shape != *b.shape);
    }

    std::uint32_t file_;
    const char* base_;
    const Stdlib& stdlib_;
    const ExpandOptions& options_;
    PlainFlatResult result_;
    std::unordered_set<std::string_view> params_;
    std::unordered_map<std::string_view, OpInfo> ops_;
    std::vector<Value> identifiers_;  // per tensor: its identifier value
    std::unordered_map<std::string_view, Value> strings_;
    std::unordered_map<std::string_view, std::pair<Value, Type>> lists_;  // keyed by source spelling
    std::unordered_map<std::string, std::size_t> labels_;                 // lower-case label -> first variable
    ProducerMap producers_;
    Operation op_;  // reused, as the scratch lists below: they keep their capacity
    std::vector<Value> values_;
    std::vector<Type> types_;
    std::vector<std::pair<Type, Type>> pairs_;
    std::size_t operations_ = 0;
};

}  // namespace plain_flat_cpp

bool plain_flat_applies(const ExpandOptions& options) {
    return !options.keep_operations && !options.collect_exports && !options.expand_all && options.expand.empty() &&
           options.input_shapes.empty();
}

std::optional<PlainFlatResult> check_plain_flat(const SourceManager& sm, std::uint32_t file, const Stdlib& stdlib,
                                                const ExpandOptions& options) {
    if (!plain_flat_applies(options)) return std::nullopt;
    plain_flat_cpp::Checker checker(sm, file, stdlib, options);
    if (!grammar::plain::scan_plain_flat(sm.text(file), options.options, checker)) return std::nullopt;
    return checker.take();
}

}  // namespace nnef::sema
