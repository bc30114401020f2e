// The fast path for plain flat documents (see semantics/plain_flat.hpp). Every `return false`
// below means "not here": the full front end takes the document from the start.
#include "semantics/plain_flat.hpp"

#include <boost/container/small_vector.hpp>

#include <sched.h>

#include <algorithm>
#include <cstdio>
#include <array>
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
#include "semantics/ops/common.hpp"
#include "semantics/types.hpp"

namespace nnef::sema {

namespace plain_flat_cpp {

namespace plain = grammar::plain;

// A standard operation as this path uses it.
struct OpInfo {
    const ast::Fragment* decl = nullptr;
    const OpDef* def = nullptr;
    bool usable = false;  // atomic, one tensor result, literal defaults
    std::vector<char> tensor_param;              // per parameter: a tensor type (an input)
    std::vector<std::size_t> slot;               // per parameter: its place in op.inputs or op.attribs
    std::vector<std::optional<Value>> defaults;  // per parameter
    PrimType result = PrimType::none;            // the result's data type (generic: the binding)
    // The operation the shape function sees, reused by every statement of this operation: the
    // parameter names stay, the values are replaced.
    Operation op;
    std::size_t memo_tries = 0, memo_hits = 0;  // see Checker::infer
    std::size_t label_param = SIZE_MAX;          // `variable`: its `label` parameter
    bool external = false;                       // `external`
    std::size_t last_named = 0;                  // see param_named

    std::vector<std::uint32_t> name_hashes;      // per parameter: Graph::hash_name of its name

    // The parameter of that name (params.size(): none). Named arguments mostly come in the
    // declaration's order: the search starts after the last one found.
    std::size_t param_named(std::string_view name, std::uint32_t hash) {
        const std::size_t n = name_hashes.size();
        for (std::size_t k = 0, p = last_named; k < n; ++k, p = p + 1 == n ? 0 : p + 1) {
            if (name_hashes[p] == hash && decl->params[p].name == name) {
                last_named = p + 1 == n ? 0 : p + 1;
                return p;
            }
        }
        return n;
    }
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
// collected while the statements are checked (appended in order, as views of the text, which
// outlives the check: no look-up, no copy, no allocation per label); check() puts them into an
// open-addressing table by the hash of their key once at the end, comparing each with the first
// of its key.
class LabelTable {
public:
    void add(std::string_view label, std::size_t tensor) {
        entries_.push_back(Entry{hash(label), static_cast<std::uint32_t>(tensor), label});
    }

    // True when variables with equal keys have equal shapes (where both are known).
    bool check(const Graph& g) const {
        std::size_t cap = 16;
        while (cap < entries_.size() * 2) cap *= 2;
        std::vector<std::uint32_t> table(cap, 0);  // an entry's place + 1; 0: empty
        const std::size_t mask = cap - 1;
        for (std::size_t i = 0; i < entries_.size(); ++i) {
            const Entry& e = entries_[i];
            std::size_t k = static_cast<std::size_t>(e.hash) & mask;
            for (;; k = (k + 1) & mask) {
                if (table[k] == 0) {
                    table[k] = static_cast<std::uint32_t>(i + 1);
                    break;
                }
                const Entry& first = entries_[table[k] - 1];
                if (first.hash != e.hash || compare_keys(first.label, e.label) != 0) continue;
                const Tensor& a = g.tensors[first.tensor];
                const Tensor& b = g.tensors[e.tensor];
                if (!a.shape) table[k] = static_cast<std::uint32_t>(i + 1);  // the first known shape stands
                else if (b.shape && *a.shape != *b.shape) return false;
                break;
            }
        }
        return true;
    }

private:
    struct Entry {
        std::uint64_t hash;  // of the key
        std::uint32_t tensor;
        std::string_view label;
    };
    static unsigned char lower(char c) {
        return static_cast<unsigned char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
    }
    // The labels' keys (spec 5.1: the label in lower case) compared.
    static int compare_keys(std::string_view a, std::string_view b) {
        for (std::size_t i = 0; i < a.size() && i < b.size(); ++i)
            if (lower(a[i]) != lower(b[i])) return lower(a[i]) < lower(b[i]) ? -1 : 1;
        return a.size() == b.size() ? 0 : a.size() < b.size() ? -1 : 1;
    }
    // Equal keys give equal hashes: eight bytes at a time with bit 5 set in each, which is what
    // lower() does to a letter (other bytes may collide, and the keys are then compared).
    static std::uint64_t hash(std::string_view label) {
        constexpr std::uint64_t m = 0xFF51AFD7ED558CCDull, case_bits = 0x2020202020202020ull;
        std::uint64_t h = 0x9E3779B97F4A7C15ull ^ label.size();
        std::size_t i = 0;
        for (; i + 8 <= label.size(); i += 8) {
            std::uint64_t w;
            std::memcpy(&w, label.data() + i, 8);
            h = (h ^ (w | case_bits)) * m;
            h ^= h >> 32;
        }
        std::uint64_t w = 0;
        for (std::size_t k = 0; i + k < label.size(); ++k)
            w |= std::uint64_t(static_cast<unsigned char>(label[i + k]) | 0x20u) << (8 * k);
        h = (h ^ w) * m;
        return h ^ (h >> 29);
    }
    std::vector<Entry> entries_;
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

// Keys (sequences of 64-bit words) to shape ids: an open-addressing table over one buffer of
// keys, without a node per entry.
class MemoTable {
public:
    static std::uint64_t hash(const std::int64_t* key, std::size_t n) {
        // Two lanes: half the multiplications on each dependency chain.
        std::uint64_t a = 0x9E3779B97F4A7C15ull, b = n;
        std::size_t i = 0;
        for (; i + 2 <= n; i += 2) {
            a = (a ^ static_cast<std::uint64_t>(key[i])) * 0xFF51AFD7ED558CCDull;
            b = (b ^ static_cast<std::uint64_t>(key[i + 1])) * 0xC4CEB9FE1A85EC53ull;
        }
        if (i < n) a = (a ^ static_cast<std::uint64_t>(key[i])) * 0xFF51AFD7ED558CCDull;
        std::uint64_t h = a ^ (b * 0x9E3779B97F4A7C15ull);
        h ^= h >> 33;
        h *= 0xFF51AFD7ED558CCDull;
        return h ^ (h >> 33);
    }

    // The shape id stored under the key of n words (with hash h), or nullptr.
    const std::uint32_t* find(const std::int64_t* key, std::size_t n, std::uint64_t h) const {
        if (slots_.empty()) return nullptr;
        const std::size_t mask = slots_.size() - 1;
        for (std::size_t k = static_cast<std::size_t>(h) & mask;; k = (k + 1) & mask) {
            const Slot& slot = slots_[k];
            if (slot.length == 0) return nullptr;
            if (slot.hash == h && slot.length == n &&
                std::memcmp(keys_.data() + slot.offset, key, n * sizeof(std::int64_t)) == 0)
                return &slot.shape;
        }
    }

    // Adds the key of n words (not present) with hash h.
    void insert(const std::int64_t* key, std::size_t n, std::uint64_t h, std::uint32_t shape) {
        if ((count_ + 1) * 2 > slots_.size()) grow();
        const std::size_t mask = slots_.size() - 1;
        std::size_t k = static_cast<std::size_t>(h) & mask;
        while (slots_[k].length != 0) k = (k + 1) & mask;
        slots_[k] = Slot{h, static_cast<std::uint32_t>(keys_.size()), static_cast<std::uint32_t>(n), shape};
        keys_.insert(keys_.end(), key, key + n);
        ++count_;
    }

    std::size_t size() const { return count_; }

private:
    struct Slot {
        std::uint64_t hash = 0;
        std::uint32_t offset = 0;
        std::uint32_t length = 0;  // 0: empty (a key has at least one word)
        std::uint32_t shape = 0;
    };
    void grow() {
        std::vector<Slot> old(std::max<std::size_t>(64, slots_.size() * 2));
        old.swap(slots_);
        const std::size_t mask = slots_.size() - 1;
        for (const Slot& slot : old) {
            if (slot.length == 0) continue;
            std::size_t k = static_cast<std::size_t>(slot.hash) & mask;
            while (slots_[k].length != 0) k = (k + 1) & mask;
            slots_[k] = slot;
        }
    }
    std::vector<Slot> slots_;
    std::vector<std::int64_t> keys_;
    std::size_t count_ = 0;
};

// A list's type, item by item: a tuple's item types, or an array's common item type.
class ListType {
public:
    explicit ListType(plain::Kind kind) : tuple_(kind == plain::Kind::tuple) {}
    // False: the array's items have no common type.
    bool add(Type item) {
        literal_ = literal_ && !item.contains_tensor();
        if (tuple_) {
            tuple_types_.push_back(std::move(item));
        } else if (!array_item_) {
            array_item_ = std::move(item);
        } else {
            std::optional<Type> common = common_type(*array_item_, item);
            if (!common) return false;
            array_item_ = std::move(common);
        }
        return true;
    }
    bool literal() const { return literal_; }  // no tensor inside
    Type finish() {
        if (tuple_) return Type::tuple(std::move(tuple_types_));
        return array_item_ ? array_of(std::move(*array_item_)) : empty_array_type();
    }

private:
    bool tuple_;
    bool literal_ = true;
    std::vector<Type> tuple_types_;
    std::optional<Type> array_item_;  // the common item type so far
};

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
            param_hashes_.push_back(Graph::hash_name(p.text));
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
        // Every tensor of a flat document is assigned in its body: all are exported.
        if (options_.collect_exports) result_.expansion.exported.assign(g.tensors.size(), true);
        return true;
    }

    // ---- a statement --------------------------------------------------------------------------
    bool statement(const plain::Statement& s) override {
        if (operations_ >= options_.options.limits.max_operations) return false;
        OpInfo* info = cached_op_info(s.op, s.op_hash);
        if (!info) return false;
        const ast::Fragment& decl = *info->decl;
        const std::vector<ast::Param>& params = decl.params;
        Graph& g = result_.expansion.graph;

        // The left-hand side (a new name, checked where it is added below): a graph parameter
        // exactly when defined by `external`.
        if (is_param(s.lhs, s.lhs_hash) != info->external) return false;

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
                p = info->param_named(a.name, a.name_hash);
                if (p == params.size() || assigned[p] >= 0) return false;
            }
            assigned[p] = static_cast<int>(i);
        }

        // The arguments' types, identifiers resolved to their tensors (values are made only when
        // the shape function runs: see infer()).
        types_.resize(s.args.size());
        node_ref_.resize(s.nodes.size());
        for (std::size_t i = 0; i < s.args.size(); ++i)
            if (!type_of(s, s.args[i].node, types_[i])) return false;

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

        // Each argument castable to its parameter's type; a parameter without one has a default.
        const std::vector<Type>& types = info->param_types(bound);
        for (std::size_t p = 0; p < params.size(); ++p) {
            if (assigned[p] >= 0) {
                if (!castable(types_[static_cast<std::size_t>(assigned[p])], types[p], true)) return false;
            } else if (info->defaults[p]) {
                // A generic parameter's default must match the binding: not checked here.
                if (decl.generic && params[p].type.is_generic()) return false;
            } else {
                return false;  // a missing argument
            }
        }

        // The result.
        const std::size_t index = g.tensors.size();
        PrimType dtype = info->result == PrimType::generic ? bound : info->result;
        if (!g.try_add_tensor_hashed(s.lhs, s.lhs_hash, dtype)) return false;  // redefined
        producers_.set(index, &decl.name);
        ++operations_;

        if (!infer(*info, s, assigned.data(), decl.generic ? bound : PrimType::none, index)) return false;
        if (info->label_param != SIZE_MAX && !record_label(s, assigned[info->label_param], index)) return false;
        return true;
    }

    // Room for about `statements` tensors (a count of ';' in the text: at least the statements).
    void reserve(std::size_t statements) {
        std::vector<Tensor>& tensors = result_.expansion.graph.tensors;
        result_.expansion.graph.reserve(statements);
        if (options_.keep_operations) result_.expansion.graph.operations.reserve(statements);
        shape_ids_.reserve(statements);
        producers_.reserve(statements);
        detail::advise_huge_pages(tensors.data(), tensors.capacity() * sizeof(Tensor));
    }

    void name_seen(std::string_view, std::uint32_t hash) override { result_.expansion.graph.prefetch_hashed(hash); }

    PlainFlatResult take() { return std::move(result_); }

private:
    std::uint32_t offset(const char* p) const { return static_cast<std::uint32_t>(p - base_); }
    SourceRange range(const char* b, const char* e) const { return SourceRange{file_, offset(b), offset(e)}; }
    SourceRange range(const char* b, std::size_t n) const { return range(b, b + n); }

    // op_info through a small direct-mapped cache by the name's hash (usable operations only).
    OpInfo* cached_op_info(std::string_view name, std::uint32_t hash) {
        OpSlot& slot = op_cache_[hash % op_cache_.size()];
        if (slot.info && slot.hash == hash && slot.name == name) return slot.info;
        OpInfo* info = op_info(name);
        if (info) slot = OpSlot{hash, name, info};
        return info;
    }

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
            info.name_hashes.push_back(Graph::hash_name(p.name));
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
        info.external = decl->name == "external";
        if (decl->name == "variable")
            for (std::size_t p = 0; p < decl->params.size(); ++p)
                if (decl->params[p].name == "label") info.label_param = p;
        info.usable = true;
        return &info;
    }

    // The type of the flat value at `node`, without making its value: identifiers are resolved
    // (node_ref_[node]: the tensor), literal lists looked up by spelling (node_ref_[node]: their
    // place in lists_, or none) and made there the first time.
    bool type_of(const plain::Statement& s, std::uint32_t node, Type& t) {
        const plain::Node& n = s.nodes[node];
        switch (n.kind) {
            case plain::Kind::integer: t = Type::primitive(PrimType::integer); return true;
            case plain::Kind::scalar: t = Type::primitive(PrimType::scalar); return true;
            case plain::Kind::logical: t = Type::primitive(PrimType::logical); return true;
            case plain::Kind::string: t = Type::primitive(PrimType::string); return true;
            case plain::Kind::identifier: {
                Graph& g = result_.expansion.graph;
                const Tensor* tensor = g.tensor_hashed(n.text, n.hash);
                if (!tensor) return false;  // undefined (or a graph parameter before its `external`)
                node_ref_[node] = static_cast<std::uint32_t>(tensor - g.tensors.data());
                t = Type::tensor(tensor->dtype);
                return true;
            }
            case plain::Kind::array:
            case plain::Kind::tuple: break;
        }
        node_ref_[node] = none;
        if (auto it = lists_.find(n.text); it != lists_.end()) {
            t = it->second.type;
            node_ref_[node] = it->second.id;
            return true;
        }
        ListType list(n.kind);
        for (std::uint32_t c = node + 1; c < n.next; c = s.nodes[c].next) {
            Type item_type;
            if (!type_of(s, c, item_type) || !list.add(std::move(item_type))) return false;
        }
        if (list.literal() && lists_.size() < max_lists) {  // made once, kept by spelling
            Value v;
            if (!evaluate(s, node, v, t)) return false;
            if (auto it = lists_.find(n.text); it != lists_.end()) node_ref_[node] = it->second.id;
            return true;
        }
        t = list.finish();
        return true;
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
            v = it->second.value;
            t = it->second.type;
            return true;
        }
        Value::Items items;
        items.reserve(n.items);
        ListType list(n.kind);
        for (std::uint32_t c = node + 1; c < n.next; c = s.nodes[c].next) {
            Value item_value;
            Type item_type;
            if (!evaluate(s, c, item_value, item_type) || !list.add(std::move(item_type))) return false;
            items.push_back(std::move(item_value));
        }
        v = n.kind == plain::Kind::tuple ? Value::tuple(std::move(items)) : Value::array(std::move(items));
        t = list.finish();
        if (list.literal() && lists_.size() < max_lists)
            lists_.emplace(n.text, ListEntry{v, t, static_cast<std::uint32_t>(lists_.size())});
        return true;
    }

    // Variables sharing a label (case-insensitively) must have equal shapes: checked at the end.
    bool record_label(const plain::Statement& s, int arg, std::size_t index) {
        if (arg < 0) return false;
        const plain::Node& n = s.nodes[s.args[static_cast<std::size_t>(arg)].node];
        if (n.kind != plain::Kind::string) return false;
        labels_.add(n.text, index);
        return true;
    }

    // Shape inference of the statement's operation, with a memo: a shape function's outcome is a
    // function of the operation, its generic binding, its attribute values and its arguments'
    // values, dtypes and shapes (tensor names play no part, and one that asks for an argument's
    // producer is not memoized). Only clean outcomes are kept (anything else declines the
    // document), so an operation seen before with an equal key gets the same output shape without
    // running the shape function again, or making the values of its arguments. Operations whose
    // keys rarely repeat stop being memoized after a while.
    bool infer(OpInfo& info, const plain::Statement& s, const int* assigned, PrimType dtype, std::size_t index) {
        Graph& g = result_.expansion.graph;
        const std::vector<ast::Param>& params = info.decl->params;
        shape_ids_.push_back(none);
        const bool memo = info.memo_tries < 64 || info.memo_hits * 4 >= info.memo_tries;
        std::uint64_t key_hash = 0;
        if (memo) {
            key_length_ = 0;
            put(static_cast<std::int64_t>(reinterpret_cast<std::intptr_t>(&info)));
            put(static_cast<std::int64_t>(dtype));
            for (std::size_t p = 0; p < params.size(); ++p) {
                if (assigned[p] < 0) {
                    put(key_default);  // the operation's own default
                    continue;
                }
                const std::uint32_t node = s.args[static_cast<std::size_t>(assigned[p])].node;
                const plain::Node& n = s.nodes[node];
                if (p == info.label_param && n.kind == plain::Kind::string && ops::valid_label(n.text))
                    put(key_valid_label);  // variable() depends on nothing else of it
                else
                    put_key(s, node);
            }
            ++info.memo_tries;
            key_hash = MemoTable::hash(key_.data(), key_length_);
            if (const std::uint32_t* id = memo_.find(key_.data(), key_length_, key_hash)) {
                ++info.memo_hits;
                g.tensors[index].shape = shapes_[*id];
                shape_ids_.back() = *id;
                if (!options_.keep_operations) return true;
                if (!make_operation(info, s, assigned, dtype, index)) return false;
                g.operations.push_back(info.op);
                return true;
            }
        }

        // The operation's values, and the shape function.
        if (!make_operation(info, s, assigned, dtype, index)) return false;
        Operation& op = info.op;
        InferReport report = infer_report(options_.options);
        if (!infer_operation(g, producers_, op, info.def, report, known_.data(), known_.size())) return false;
        if (!report.warnings.empty() || !report.errors.empty()) return false;
        if (options_.keep_operations) g.operations.push_back(op);
        const std::optional<Shape>& shape = g.tensors[index].shape;
        if (!shape) return true;
        shape_ids_.back() = intern(*shape);
        if (memo && !report.asked_producer && memo_.size() < max_memo) memo_.insert(key_.data(), key_length_, key_hash, shape_ids_.back());
        return true;
    }

    // The statement's operation in info.op, as the full front end makes it (semantics/expander.cpp,
    // emit): the arguments' values in declaration order (defaults where not given), the result's
    // identifier, the invocation's range; known_: the tensors its identifiers name.
    bool make_operation(OpInfo& info, const plain::Statement& s, const int* assigned, PrimType dtype,
                        std::size_t index) {
        const std::vector<ast::Param>& params = info.decl->params;
        Operation& op = info.op;
        op.dtype = dtype;
        known_.clear();
        for (std::size_t p = 0; p < params.size(); ++p) {
            Value& v = (info.tensor_param[p] ? op.inputs : op.attribs)[info.slot[p]].second;
            if (assigned[p] >= 0) {
                Type t;
                if (!evaluate(s, s.args[static_cast<std::size_t>(assigned[p])].node, v, t)) return false;
            } else {
                v = *info.defaults[p];
            }
        }
        const Value& out = identifier(index);
        known_.push_back(KnownTensor{&out.as_identifier(), static_cast<std::uint32_t>(index)});
        op.outputs[0].second = out;
        op.provenance.range = range(s.rhs_begin, s.rhs_end);
        return true;
    }

    // The shape's place in shapes_ (added when new).
    std::uint32_t intern(const Shape& shape) {
        auto [it, added] = shape_index_.emplace(shape, static_cast<std::uint32_t>(shapes_.size()));
        if (added) shapes_.push_back(shape);
        return it->second;
    }

    void put(std::int64_t word) {
        if (key_length_ == key_.size()) key_.resize(key_.size() * 2 + 64);
        key_[key_length_++] = word;
    }

    // Appends the flat value at `node` to the memo key: a tag for its kind, then its content (an
    // identifier: its tensor's dtype and shape; a literal list kept in lists_: its place there).
    // Every form is self-delimiting, so equal keys mean equal values.
    void put_key(const plain::Statement& s, std::uint32_t node) {
        const plain::Node& n = s.nodes[node];
        switch (n.kind) {
            case plain::Kind::integer:
                put(1);
                put(n.ival);
                return;
            case plain::Kind::scalar: {
                std::int64_t bits = 0;
                std::memcpy(&bits, &n.sval, sizeof bits);
                put(2);
                put(bits);
                return;
            }
            case plain::Kind::logical:
                put(3);
                put(n.bval);
                return;
            case plain::Kind::string: {
                put(4);
                put(static_cast<std::int64_t>(n.text.size()));
                for (std::size_t i = 0; i < n.text.size(); i += 8) {
                    std::int64_t word = 0;
                    std::memcpy(&word, n.text.data() + i, std::min<std::size_t>(8, n.text.size() - i));
                    put(word);
                }
                return;
            }
            case plain::Kind::identifier: {
                const std::uint32_t t = node_ref_[node];
                put(5);
                put(static_cast<std::int64_t>(result_.expansion.graph.tensors[t].dtype));
                put(shape_ids_[t] == none ? -1 : static_cast<std::int64_t>(shape_ids_[t]));
                return;
            }
            case plain::Kind::array:
            case plain::Kind::tuple:
                if (node_ref_[node] != none) {
                    put(6);
                    put(node_ref_[node]);
                    return;
                }
                put(n.kind == plain::Kind::array ? 7 : 8);
                put(n.items);
                for (std::uint32_t c = node + 1; c < n.next; c = s.nodes[c].next) put_key(s, c);
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
    struct OpSlot {
        std::uint32_t hash = 0;
        std::string_view name;
        OpInfo* info = nullptr;
    };
    std::array<OpSlot, 64> op_cache_{};
    std::unordered_set<std::string_view> params_;
    std::vector<std::uint32_t> param_hashes_;  // Graph::hash_name of each graph parameter

    bool is_param(std::string_view name, std::uint32_t hash) const {
        for (std::uint32_t h : param_hashes_)
            if (h == hash) return params_.count(name) != 0;
        return false;
    }
    std::unordered_map<std::string_view, OpInfo> ops_;
    struct IdSlot {
        std::size_t tensor = SIZE_MAX;
        Value id;
    };
    static constexpr std::size_t id_slots = 1024;
    std::vector<IdSlot> ids_ = std::vector<IdSlot>(id_slots);
    std::vector<KnownTensor> known_;  // identifiers of the current statement
    static constexpr std::size_t max_memo = 1 << 16;
    MemoTable memo_;  // see infer(): key -> shapes_
    std::vector<std::int64_t> key_;  // the first key_length_ words: the current key
    std::size_t key_length_ = 0;
    static constexpr std::int64_t key_default = -2, key_valid_label = -3;
    static constexpr std::uint32_t none = UINT32_MAX;
    // Output shapes, each once; per tensor, its shape's place there (none: unknown).
    std::vector<Shape> shapes_;
    std::unordered_map<Shape, std::uint32_t, KeyHash> shape_index_;
    std::vector<std::uint32_t> shape_ids_;
    std::vector<std::uint32_t> node_ref_;  // per node of the statement: see type_of()
    std::unordered_map<std::string_view, Value> strings_;
    struct ListEntry {
        Value value;
        Type type;
        std::uint32_t id;  // its place in the order of insertion
    };
    static constexpr std::size_t max_lists = 4096;
    std::unordered_map<std::string_view, ListEntry> lists_;  // literal lists, keyed by source spelling
    LabelTable labels_;
    ProducerMap producers_;
    // Scratch lists, reused: they keep their capacity.
    std::vector<Type> types_;
    std::vector<std::pair<Type, Type>> pairs_;
    std::size_t operations_ = 0;
};

}  // namespace plain_flat_cpp

namespace plain_flat_cpp {

// True when a processor other than the caller's is idle now: on Linux, fewer tasks runnable at
// this moment (/proc/loadavg, the caller included) than processors this process may use. True
// where that cannot be told. On a busy machine a second thread gains nothing (the two share one
// processor) and pays for handing the statements over.
bool processor_free() {
#if defined(__linux__)
    cpu_set_t set;
    CPU_ZERO(&set);
    if (::sched_getaffinity(0, sizeof set, &set) != 0) return true;
    const int cpus = CPU_COUNT(&set);
    if (cpus < 2) return false;
    std::FILE* f = std::fopen("/proc/loadavg", "r");
    if (!f) return true;
    double l1 = 0, l5 = 0, l15 = 0;
    int running = 0, total = 0;
    const int n = std::fscanf(f, "%lf %lf %lf %d/%d", &l1, &l5, &l15, &running, &total);
    std::fclose(f);
    return n != 5 || running < cpus;
#else
    return true;
#endif
}

}  // namespace plain_flat_cpp

bool plain_flat_applies(const ExpandOptions& options) {
    return !options.expand_all && options.expand.empty() && options.input_shapes.empty();
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
    if (parallel_from == plain_parallel_from && text.size() >= parallel_from && !plain_flat_cpp::processor_free())
        parallel_from = 0;
    if (!grammar::plain::scan_plain_flat(text, options.options, checker, parallel_from)) return std::nullopt;
    return checker.take();
}

}  // namespace nnef::sema
