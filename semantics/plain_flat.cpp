// The fast path for plain flat documents (see semantics/plain_flat.hpp). Every `return false`
// below means "not here": the full front end takes the document from the start.
#include "semantics/plain_flat.hpp"

#include <boost/container/small_vector.hpp>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "grammar/plain_flat.hpp"
#include "nnef/detail/huge_pages.hpp"
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
    std::vector<std::size_t> slot;               // per parameter: its place in op.inputs or op.attribs
    std::vector<std::optional<Value>> defaults;  // per parameter
    PrimType result = PrimType::none;            // the result's data type (generic: the binding)
    // The operation the shape function sees, reused by every statement of this operation: the
    // parameter names stay, the values are replaced.
    Operation op;
    std::size_t memo_tries = 0, memo_hits = 0;  // see Checker::infer
    // Per generic binding (by PrimType value): the parameters' types with the binding applied.
    std::vector<Type> bound[6];

    const std::vector<Type>& param_types(PrimType binding) {
        std::vector<Type>& types = bound[static_cast<std::size_t>(binding)];
        if (types.empty())
            for (const ast::Param& p : decl->params) types.push_back(p.type.bind(binding));
        return types;
    }
};

// Variables sharing a label up to case (spec 5.1) must have equal shapes. The labels are only
// collected while the statements are checked (appended in order: no look-up, no allocation per
// label); check() sorts them by the hash of their key once at the end and compares neighbours.
class LabelTable {
public:
    void add(std::string_view label, std::size_t tensor) {
        std::uint64_t h = 1469598103934665603ull;  // FNV-1a of the key (the label in lower case)
        for (char c : label) h = (h ^ static_cast<unsigned char>(lower(c))) * 1099511628211ull;
        entries_.push_back(Entry{h, static_cast<std::uint32_t>(tensor), static_cast<std::uint32_t>(keys_.size()),
                                 static_cast<std::uint32_t>(label.size())});
        for (char c : label) keys_.push_back(lower(c));
    }

    // True when variables with equal keys have equal shapes. Also false (and the full front end
    // decides) for two different keys with the same 64-bit hash.
    bool check(const Graph& g) {
        std::sort(entries_.begin(), entries_.end(),
                  [](const Entry& a, const Entry& b) { return a.hash != b.hash ? a.hash < b.hash : a.tensor < b.tensor; });
        for (std::size_t i = 1; i < entries_.size(); ++i) {
            const Entry& first = entries_[i - 1];
            const Entry& e = entries_[i];
            if (e.hash != first.hash) continue;
            if (e.length != first.length || keys_.compare(e.offset, e.length, keys_, first.offset, first.length) != 0)
                return false;
            const Tensor& a = g.tensors[first.tensor];
            const Tensor& b = g.tensors[e.tensor];
            if (a.shape && b.shape && *a.shape != *b.shape) return false;
        }
        return true;
    }

private:
    struct Entry {
        std::uint64_t hash;
        std::uint32_t tensor;
        std::uint32_t offset;  // of the key in keys_
        std::uint32_t length;
    };
    static char lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }
    std::vector<Entry> entries_;
    std::string keys_;
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
        if (!labels_.check(g)) return false;
        result_.expansion.operation_count = operations_;
        return true;
    }

    // ---- a statement --------------------------------------------------------------------------
    bool statement(const plain::Statement& s) override {
        if (operations_ >= options_.options.limits.max_operations) return false;
        OpInfo* info = op_info(s.op);
        if (!info) return false;
        const ast::Fragment& decl = *info->decl;
        const std::vector<ast::Param>& params = decl.params;
        Graph& g = result_.expansion.graph;

        // The left-hand side (a new name, checked where it is added below): a graph parameter
        // exactly when defined by `external`.
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
        known_.clear();
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
        Operation& op = info->op;
        op.dtype = decl.generic ? bound : PrimType::none;
        const std::vector<Type>& types = info->param_types(bound);
        for (std::size_t p = 0; p < params.size(); ++p) {
            Value& v = (info->tensor_param[p] ? op.inputs : op.attribs)[info->slot[p]].second;
            if (assigned[p] >= 0) {
                const std::size_t a = static_cast<std::size_t>(assigned[p]);
                if (!castable(types_[a], types[p], true)) return false;
                v = std::move(values_[a]);
            } else if (info->defaults[p]) {
                // A generic parameter's default must match the binding: not checked here.
                if (decl.generic && params[p].type.is_generic()) return false;
                v = *info->defaults[p];
            } else {
                return false;  // a missing argument
            }
        }

        // The result.
        const std::size_t index = g.tensors.size();
        PrimType dtype = info->result == PrimType::generic ? bound : info->result;
        if (!g.try_add_tensor_hashed(s.lhs, s.lhs_hash, dtype)) return false;  // redefined
        const Value& out = identifier(index);
        known_.push_back(KnownTensor{&out.as_identifier(), static_cast<std::uint32_t>(index)});
        producers_.set(index, &decl.name);
        op.outputs[0].second = out;
        op.provenance.range = range(s.rhs_begin, s.rhs_end);
        ++operations_;

        if (!infer(*info, op, index)) return false;
        if (decl.name == "variable" && !record_label(op, index)) return false;
        return true;
    }

    // Room for about `statements` tensors (a count of ';' in the text: at least the statements).
    void reserve(std::size_t statements) {
        std::vector<Tensor>& tensors = result_.expansion.graph.tensors;
        tensors.reserve(statements);
        detail::advise_huge_pages(tensors.data(), tensors.capacity() * sizeof(Tensor));
    }

    void name_seen(std::string_view, std::uint32_t hash) override { result_.expansion.graph.prefetch_hashed(hash); }

    PlainFlatResult take() { return std::move(result_); }

private:
    std::uint32_t offset(const char* p) const { return static_cast<std::uint32_t>(p - base_); }
    SourceRange range(const char* b, const char* e) const { return SourceRange{file_, offset(b), offset(e)}; }
    SourceRange range(const char* b, std::size_t n) const { return range(b, b + n); }

    OpInfo* op_info(std::string_view name) {
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
        info.op.name = decl->name;
        info.op.outputs.emplace_back(decl->results[0].name, Value());
        for (const ast::Param& p : decl->params) {
            const bool tensor = p.type.contains_tensor();
            info.tensor_param.push_back(tensor);
            NamedValues& list = tensor ? info.op.inputs : info.op.attribs;
            info.slot.push_back(list.size());
            list.emplace_back(p.name, Value());
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
                const Tensor* tensor = result_.expansion.graph.tensor_hashed(n.text, n.hash);
                if (!tensor) return false;  // undefined (or a graph parameter before its `external`)
                const std::size_t i = static_cast<std::size_t>(tensor - result_.expansion.graph.tensors.data());
                v = identifier(i);
                known_.push_back(KnownTensor{&v.as_identifier(), static_cast<std::uint32_t>(i)});
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

    // Variables sharing a label (case-insensitively) must have equal shapes: checked at the end.
    bool record_label(const Operation& op, std::size_t index) {
        const Value* label = op.attrib("label");
        if (!label || !label->is_string()) return false;
        labels_.add(label->as_string(), index);
        return true;
    }

    // Shape inference of the statement's operation, with a memo: a shape function's outcome is a
    // function of the operation, its generic binding, its attribute values and its arguments'
    // values, dtypes and shapes (tensor names play no part, and one that asks for an argument's
    // producer is not memoized). Only clean outcomes are kept (anything else declines the
    // document), so an operation seen before with an equal key gets the same output shape without
    // running the shape function again. Operations whose keys rarely repeat (a variable's label
    // is new each time) stop being memoized after a while.
    bool infer(OpInfo& info, Operation& op, std::size_t index) {
        Graph& g = result_.expansion.graph;
        const bool memo = info.memo_tries < 64 || info.memo_hits * 4 >= info.memo_tries;
        if (memo) {
            key_.clear();
            key_.push_back(static_cast<std::int64_t>(reinterpret_cast<std::intptr_t>(&info)));
            key_.push_back(static_cast<std::int64_t>(op.dtype));
            for (const auto& [name, v] : op.inputs) put_key(v);
            for (const auto& [name, v] : op.attribs) put_key(v);
            ++info.memo_tries;
            auto it = memo_.find(key_);
            if (it != memo_.end()) {
                ++info.memo_hits;
                g.tensors[index].shape = it->second;
                return true;
            }
        }
        InferReport report = infer_report(options_.options);
        if (!infer_operation(g, producers_, op, info.def, report, known_.data(), known_.size())) return false;
        if (!report.warnings.empty() || !report.errors.empty()) return false;
        if (memo && !report.asked_producer && g.tensors[index].shape && memo_.size() < max_memo)
            memo_.emplace(key_, *g.tensors[index].shape);
        return true;
    }

    // Appends a value to the memo key: its kind, then its content; for an identifier, its
    // tensor's dtype and shape.
    void put_key(const Value& v) {
        key_.push_back(static_cast<std::int64_t>(v.kind()));
        switch (v.kind()) {
            case Value::Kind::none: return;
            case Value::Kind::integer: key_.push_back(v.as_integer()); return;
            case Value::Kind::scalar: {
                std::int64_t bits = 0;
                const double d = v.as_scalar();
                std::memcpy(&bits, &d, sizeof bits);
                key_.push_back(bits);
                return;
            }
            case Value::Kind::logical: key_.push_back(v.as_logical()); return;
            case Value::Kind::string: {
                const std::string& text = v.as_string();
                key_.push_back(static_cast<std::int64_t>(text.size()));
                for (std::size_t i = 0; i < text.size(); i += 8) {
                    std::int64_t word = 0;
                    std::memcpy(&word, text.data() + i, std::min<std::size_t>(8, text.size() - i));
                    key_.push_back(word);
                }
                return;
            }
            case Value::Kind::identifier: {
                const Tensor* t = nullptr;
                for (const KnownTensor& k : known_)
                    if (k.name == &v.as_identifier()) t = &result_.expansion.graph.tensors[k.index];
                if (!t) t = result_.expansion.graph.tensor(v.as_identifier());
                key_.push_back(t ? static_cast<std::int64_t>(t->dtype) : -1);
                if (!t || !t->shape) {
                    key_.push_back(-1);
                    return;
                }
                key_.push_back(static_cast<std::int64_t>(t->shape->size()));
                key_.insert(key_.end(), t->shape->begin(), t->shape->end());
                return;
            }
            case Value::Kind::array:
            case Value::Kind::tuple:
                key_.push_back(static_cast<std::int64_t>(v.size()));
                for (const Value& item : v.items()) put_key(item);
                return;
        }
    }

    struct KeyHash {
        std::size_t operator()(const std::vector<std::int64_t>& key) const {
            std::uint64_t h = 0x9E3779B97F4A7C15ull;
            for (std::int64_t x : key) h = (h ^ static_cast<std::uint64_t>(x)) * 0xFF51AFD7ED558CCDull;
            return static_cast<std::size_t>(h ^ (h >> 29));
        }
    };

    // The identifier value of tensor i. Only recent tensors keep theirs (statements mostly refer
    // to recent results): a direct-mapped cache instead of one value per tensor.
    const Value& identifier(std::size_t i) {
        IdSlot& slot = ids_[i % id_slots];
        if (slot.tensor != i) {
            slot.tensor = i;
            slot.id = Value::identifier(result_.expansion.graph.tensors[i].name);
        }
        return slot.id;
    }

    std::uint32_t file_;
    const char* base_;
    const Stdlib& stdlib_;
    const ExpandOptions& options_;
    PlainFlatResult result_;
    std::unordered_set<std::string_view> params_;
    std::unordered_map<std::string_view, OpInfo> ops_;
    struct IdSlot {
        std::size_t tensor = SIZE_MAX;
        Value id;
    };
    static constexpr std::size_t id_slots = 1024;
    std::vector<IdSlot> ids_ = std::vector<IdSlot>(id_slots);
    std::vector<KnownTensor> known_;  // identifiers of the current statement
    static constexpr std::size_t max_memo = 1 << 16;
    std::unordered_map<std::vector<std::int64_t>, Shape, KeyHash> memo_;  // see infer()
    std::vector<std::int64_t> key_;
    std::unordered_map<std::string_view, Value> strings_;
    std::unordered_map<std::string_view, std::pair<Value, Type>> lists_;  // keyed by source spelling
    LabelTable labels_;
    ProducerMap producers_;
    // Scratch lists, reused: they keep their capacity.
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
                                                const ExpandOptions& options, std::size_t parallel_from) {
    if (!plain_flat_applies(options)) return std::nullopt;
    plain_flat_cpp::Checker checker(sm, file, stdlib, options);
    const std::string_view text = sm.text(file);
    std::size_t semicolons = 0;
    for (const char *p = text.data(), *e = p + text.size(); (p = static_cast<const char*>(std::memchr(p, ';', e - p)));
         ++p)
        ++semicolons;
    checker.reserve(std::min<std::size_t>(semicolons, std::size_t(1) << 21));
    if (!grammar::plain::scan_plain_flat(text, options.options, checker, parallel_from)) return std::nullopt;
    return checker.take();
}

}  // namespace nnef::sema
