// Compile-time evaluation and fragment expansion (spec 3.3.3), producing the flat graph.
#include "semantics/expander.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <limits>
#include <deque>
#include <unordered_map>
#include <unordered_set>

#include "nnef/detail/deep_stack.hpp"
#include "semantics/infer.hpp"

namespace nnef::sema {

namespace expander_cpp {

// Thrown after an error has been reported: abandons the current graph statement.
struct Abort {};
// Thrown when a statement uses a value that failed earlier: abandons it silently.
struct Poisoned {};

struct Scope {
    const Scope* parent = nullptr;
    std::unordered_map<std::string, Value> vars;
    PrimType generic = PrimType::none;  // binding of `?` in the current fragment
    std::string prefix;                 // prefix for generated tensor names
    bool graph = false;                 // the graph body (not a fragment)

    const Value* lookup(const std::string& n) const {
        for (const Scope* s = this; s; s = s->parent) {
            auto it = s->vars.find(n);
            if (it != s->vars.end()) return &it->second;
        }
        return nullptr;
    }
};

// Names for the results of the invocation at the top of an assignment's right-hand side.
struct Hint {
    const ast::Expr* lhs = nullptr;
    bool graph = false;
};

const char* operator_fragment(const std::string& op, bool unary) {
    if (unary) {
        if (op == "-") return "neg";
        if (op == "+") return "copy";
        if (op == "!") return "not";
        return nullptr;
    }
    static const std::pair<const char*, const char*> table[] = {
        {"+", "add"}, {"-", "sub"}, {"*", "mul"}, {"/", "div"}, {"^", "pow"},   {"<", "lt"},  {"<=", "le"},
        {">", "gt"},  {">=", "ge"}, {"==", "eq"}, {"!=", "ne"}, {"&&", "and"}, {"||", "or"},
    };
    for (const auto& [o, f] : table)
        if (op == o) return f;
    return nullptr;
}

bool contains_tensor(const Value& v) {
    if (v.is_identifier()) return true;
    if (v.is_list())
        for (const Value& i : v.items())
            if (contains_tensor(i)) return true;
    return false;
}

class Expander {
public:
    Expander(const Program& p, const ExpandOptions& o, Diagnostics& d) : prog_(p), opts_(o), diags_(d) {
        if (p.stdlib)
            for (const ast::Document& doc : p.stdlib->documents) stdlib_files_.insert(doc.file);
    }

    // The graph is expanded a statement at a time (a streaming parse hands them over as they
    // come): begin_graph with the header, statement for each assignment, finish.
    void begin_graph(const ast::GraphDef& gd) {
        Graph& g = out_.graph;
        g.name = gd.name;
        for (const auto& p : gd.params) {
            g.inputs.push_back(p.name);
            reserved_.insert(std::string_view(params_.emplace_back(p.name)));
        }
        for (const auto& r : gd.results) g.outputs.push_back(r.name);
        for (const auto& [name, shape] : opts_.input_shapes) {
            bool found = false;
            for (const auto& p : gd.params) found = found || p.name == name;
            if (!found)
                diags_.error(Stage::shape, "unknown-input", "--input-shape names '" + name + "', which is not a graph input",
                             gd.name_range);
        }
        graph_scope_.graph = true;
    }

    void statement(const ast::Assignment& a) {
        allowance_ += statement_allowance;
        if (diags_.limit_reached()) return;
        Graph& g = out_.graph;
        claim_lvalue(a.lhs);
        statements_.push_back(Mark{g.operations.size(), g.tensors.size()});
        Scope& scope = graph_scope_;
        scope.prefix = first_identifier(a.lhs);
        try {
            Value v = eval(a.rhs, scope, Hint{&a.lhs, true});
            bind_graph(a.lhs, v, scope, a.range);
        } catch (const Abort&) {
            poison(a.lhs, scope);
        } catch (const Poisoned&) {
            poison(a.lhs, scope);
        }
        if (!opts_.keep_operations) {
            // Checked: the statement's operations have left what later ones need in the tensors,
            // the producer names and the graph-level records (labels, updates).
            out_.operation_count += g.operations.size();
            g.operations.clear();
            statements_.back().first_op = 0;
        }
    }

    Expansion finish() {
        if (opts_.keep_operations) out_.operation_count = out_.graph.operations.size();
        // The graph-level rules, recorded as the operations were made, count only for an
        // otherwise valid graph: labels first, then updates.
        if (!diags_.has_errors()) {
            for (Diagnostic& d : label_errors_) diags_.add(std::move(d));
            for (Diagnostic& d : update_errors_) diags_.add(std::move(d));
        }
        if (opts_.collect_exports) {
            // Every graph-level name is reserved, and no temporary keeps a reserved name.
            const std::vector<Tensor>& tensors = out_.graph.tensors;
            out_.exported.resize(tensors.size());
            for (std::size_t i = 0; i < tensors.size(); ++i) out_.exported[i] = reserved(tensors[i].name);
        }
        return std::move(out_);
    }

private:
    // ---- diagnostics ------------------------------------------------------------------------
    bool is_stdlib(const SourceRange& r) const { return stdlib_files_.count(r.file) != 0; }

    // Reports at the innermost location in user text; the call chain becomes notes.
    [[noreturn]] void fail(const std::string& code, const std::string& message, SourceRange at) {
        report(code, message, at, chain_);
        throw Abort{};
    }

    void report(const std::string& code, const std::string& message, SourceRange at, const CallChain& chain) {
        // Walk from the innermost call site outwards to find a user location.
        SourceRange primary = at;
        CallChain::iterator it = chain.begin();
        for (; is_stdlib(primary) && it != chain.end(); ++it) primary = it->range;
        Diagnostic& d = diags_.error(Stage::shape, code, message, primary);
        for (; it != chain.end(); ++it) d.notes.push_back({"in expansion of '" + it->fragment + "'", it->range});
    }

    // A de facto form accepted in the default dialect: warned about once per message, so that a
    // model with a hundred rank-1 biases does not print a hundred warnings.
    void warn_once(const std::string& code, const std::string& message, SourceRange at) {
        if (!warned_.insert(message).second) return;
        SourceRange primary = at;
        for (auto it = chain_.begin(); is_stdlib(primary) && it != chain_.end(); ++it) primary = it->range;
        diags_.warning(Stage::shape, code, message + " (accepted in the default dialect; an error with --strict)", primary);
    }

    // ---- names ------------------------------------------------------------------------------
    // Graph-level names (parameters and the identifiers a statement assigns) are never given to
    // temporaries. A statement's names are claimed before it is expanded: a temporary of an
    // earlier statement that took one of them (it could not know) is renamed first.
    void claim_lvalue(const ast::Expr& e) {
        if (e.kind != ast::ExprKind::identifier) {
            for (const ast::Expr& c : e.children) claim_lvalue(c);
            return;
        }
        const std::string_view name = e.text;  // a view into the source text: it stays valid
        reserved_.insert(name);
        if (!retired_.empty()) retired_.erase(std::string(name));
        if (Tensor* t = out_.graph.tensor(name)) rename_temporary(*t);
    }

    // Gives a temporary a fresh name, in its tensor and in the operations of its statement (the
    // only ones that refer to it; none are left when operations are not kept).
    void rename_temporary(Tensor& t) {
        Graph& g = out_.graph;
        const std::string from = t.name;
        const std::string to = fresh_name(from);
        const std::size_t index = static_cast<std::size_t>(&t - g.tensors.data());
        g.rename_tensor(t, to);
        if (!opts_.keep_operations) return;
        // The statement that made the tensor: the last one whose first tensor is at or before it.
        auto next = std::upper_bound(statements_.begin(), statements_.end(), index,
                                     [](std::size_t i, const Mark& m) { return i < m.first_tensor; });
        const std::size_t begin = std::prev(next)->first_op;
        const std::size_t end = next == statements_.end() ? g.operations.size() : next->first_op;
        for (std::size_t i = begin; i < end; ++i) {
            for (auto& [n, x] : g.operations[i].inputs) rename_in(x, from, to);
            for (auto& [n, x] : g.operations[i].outputs) rename_in(x, from, to);
        }
    }

    static std::string first_identifier(const ast::Expr& e) {
        if (e.kind == ast::ExprKind::identifier) return e.text;
        for (const ast::Expr& c : e.children) {
            std::string s = first_identifier(c);
            if (!s.empty()) return s;
        }
        return {};
    }

    // A tensor name is taken when the graph has such a tensor, or had one before a rename.
    bool used(std::string_view name) const { return out_.graph.tensor(name) || retired_.count(std::string(name)); }
    bool reserved(std::string_view name) const { return reserved_.count(name) != 0; }

    // The caller creates the tensor (that marks the name used); names chosen for tensors not yet
    // created are in `pending`.
    std::string fresh_name(const std::string& base, const std::unordered_set<std::string>* pending = nullptr) {
        auto free = [&](const std::string& n) {
            return !used(n) && !reserved(n) && (!pending || !pending->count(n));
        };
        std::string name = base;
        if (free(name)) return name;
        std::size_t& n = counters_[base];
        for (;;) {
            name = base + "_" + std::to_string(++n);
            if (free(name)) break;
        }
        return name;
    }

    // ---- work budget (Limits::max_work) ----------------------------------------------------------
    // What the text does not spell out costs work: evaluation inside fragment bodies and
    // comprehensions, every item (or 16 bytes of string) of a value built, and the fragment bodies
    // expanded and operations made there. The costs are in units of about one evaluated expression
    // (some 30 ns) or one 16-byte item (memory), so that the budget bounds both, including values
    // and operations discarded later: an operation made with its tensor costs some 4 us and 900
    // bytes until its statement ends (its provenance is one pointer into the call chain, which the
    // operations made below one call site share). A graph statement's own expressions, literals and operations
    // are bounded by the document's size and are free, and every graph statement adds
    // statement_allowance to the budget (for the standard compounds --expand-all expands).
    static constexpr std::uint64_t expansion_cost = 32;
    static constexpr std::uint64_t operation_cost = 128;
    static constexpr std::uint64_t comprehension_iteration_cost = 4;
    static constexpr std::uint64_t statement_allowance = 1024;

    bool derived() const { return !chain_.empty() || comprehensions_ != 0; }

    void charge(std::uint64_t units, SourceRange at) {
        work_ += units;
        if (work_ > opts_.options.limits.max_work + allowance_) {
            std::string where = chain_.empty() ? std::string() : " in '" + chain_.front().fragment + "'";
            fail("limit-exceeded", "expansion work exceeds limit max_work (" + std::to_string(opts_.options.limits.max_work) +
                                       ")" + where + ": values built, expressions evaluated and operations made in fragment "
                                       "bodies and comprehensions",
                 at);
        }
    }

    // ---- evaluation -------------------------------------------------------------------------
    Value eval(const ast::Expr& e, Scope& s, Hint hint = {}) {
        using K = ast::ExprKind;
        if (derived()) charge(1, e.range);
        switch (e.kind) {
            case K::integer: return Value::integer(e.ival);
            case K::scalar: return Value::scalar(e.sval);
            case K::logical: return Value::logical(e.bval);
            case K::string: return Value::string(e.text);
            case K::identifier: {
                const Value* v = s.lookup(e.text);
                if (!v) fail("undefined-identifier", "identifier '" + e.text + "' is not defined", e.range);
                if (v->is_none()) throw Poisoned{};
                return *v;
            }
            case K::array:
            case K::tuple: {
                Value::Items items;
                items.reserve(e.children.size());
                for (const ast::Expr& c : e.children) items.push_back(eval(c, s));
                // A literal of a graph statement is spelled out by the text: it is not charged.
                return bounded(e.kind == K::array ? Value::array(std::move(items)) : Value::tuple(std::move(items)), e,
                               derived());
            }
            case K::paren: return eval(e.children[0], s, hint);
            case K::unary: return eval_unary(e, s);
            case K::binary: return eval_binary(e, s);
            case K::if_else: {
                Value c = eval(e.children[1], s);
                if (!c.is_logical()) fail("condition-not-logical", "if-else condition is not a logical value", e.children[1].range);
                return eval(c.as_logical() ? e.children[0] : e.children[2], s, hint);
            }
            case K::comprehension: return eval_comprehension(e, s);
            case K::subscript: return eval_subscript(e, s);
            case K::range: return eval_range(e, s);
            case K::builtin: return eval_builtin(e, s);
            case K::invocation: return eval_invocation(e, s, hint);
        }
        fail("internal", "unknown expression kind", e.range);
    }

    Value emit_operator(const char* fragment, std::vector<Value> args, Scope& s, const ast::Expr& e) {
        const ast::Fragment* decl = prog_.find(fragment);
        if (!decl) fail("unknown-operation", std::string("operator maps to '") + fragment + "', which is not declared", e.range);
        std::vector<std::optional<Value>> values(decl->params.size());
        for (std::size_t i = 0; i < args.size() && i < values.size(); ++i) values[i] = std::move(args[i]);
        return invoke(*decl, values, std::nullopt, s, e, Hint{});
    }

    Value eval_unary(const ast::Expr& e, Scope& s) {
        Value v = eval(e.children[0], s);
        if (contains_tensor(v)) return emit_operator(operator_fragment(e.op, true), {v}, s, e);
        if (e.op == "!") {
            if (!v.is_logical()) fail("operand-type", "'!' needs a logical operand", e.range);
            return Value::logical(!v.as_logical());
        }
        if (v.is_integer()) {
            if (e.op == "-") {
                if (v.as_integer() == std::numeric_limits<std::int64_t>::min())
                    fail("integer-overflow", "integer overflow in negation", e.range);
                return Value::integer(-v.as_integer());
            }
            return v;
        }
        if (v.is_scalar()) return e.op == "-" ? Value::scalar(-v.as_scalar()) : v;
        fail("operand-type", "'" + e.op + "' needs a numeric operand", e.range);
    }

    bool member(const Value& item, const Value& array, const ast::Expr& e) {
        charge(array.size(), e.range);
        for (const Value& v : array.items())
            if (v == item) return true;
        return false;
    }

    // Items in a compile-time value, counted through nested arrays and tuples; bounded by
    // max_value_items so that doubling recursions end in a diagnostic, not in exhausted memory.
    // Counting stops once past `cap` (nested arrays that share one block can weigh far more than
    // they occupy).
    static std::uint64_t weight(const Value& v, std::uint64_t cap) {
        if (!v.is_array() && !v.is_tuple()) return 1;
        std::uint64_t w = 1;
        for (const Value& x : v.items()) {
            w += weight(x, cap - std::min(w, cap));
            if (w > cap) break;
        }
        return w;
    }

    // A value built by evaluation: within max_value_items / max_string_length, and charged to
    // max_work (its items, or its bytes / 16) unless `charged` is false.
    Value bounded(Value v, const ast::Expr& e, bool charged = true) {
        std::uint64_t limit = opts_.options.limits.max_value_items;
        if (v.is_string()) {
            if (v.as_string().size() > opts_.options.limits.max_string_length)
                fail("limit-exceeded", "string value exceeds limit max_string_length (" +
                                           std::to_string(opts_.options.limits.max_string_length) + ")", e.range);
            if (charged) charge(1 + v.as_string().size() / 16, e.range);
        }
        if (v.is_array() || v.is_tuple()) {
            const std::uint64_t w = weight(v, limit);
            if (w > limit)
                fail("limit-exceeded", "compile-time value exceeds limit max_value_items (" + std::to_string(limit) + ")",
                     e.range);
            if (charged) charge(w, e.range);
        }
        return v;
    }

    Value repeat(const Value& v, std::int64_t n, const ast::Expr& e) {
        if (n < 0) fail("negative-repeat", "repetition count " + std::to_string(n) + " is negative", e.range);
        std::size_t len = v.is_string() ? v.as_string().size() : v.size();
        const char* what = v.is_string() ? "max_string_length" : "max_value_items";
        std::size_t limit = v.is_string() ? opts_.options.limits.max_string_length : opts_.options.limits.max_value_items;
        if (len != 0 && static_cast<std::uint64_t>(n) > limit / len)
            fail("limit-exceeded", std::string("repetition exceeds limit ") + what + " (" + std::to_string(limit) + ")",
                 e.range);
        if (v.is_string()) {
            std::string out;
            out.reserve(len * static_cast<std::size_t>(n));
            for (std::int64_t i = 0; i < n; ++i) out += v.as_string();
            return bounded(Value::string(std::move(out)), e);
        }
        Value::Items items;
        items.reserve(len * static_cast<std::size_t>(n));
        for (std::int64_t i = 0; i < n; ++i) items.insert(items.end(), v.items().begin(), v.items().end());
        return bounded(Value::array(std::move(items)), e);
    }

    Value eval_binary(const ast::Expr& e, Scope& s) {
        const std::string& op = e.op;
        Value a = eval(e.children[0], s);
        // Logical operators on constants short-circuit (the other operand is not evaluated).
        if ((op == "&&" || op == "||") && a.is_logical()) {
            if (op == "&&" && !a.as_logical()) return a;
            if (op == "||" && a.as_logical()) return a;
        }
        Value b = eval(e.children[1], s);
        if (op == "in") {
            if (!b.is_array()) fail("operand-type", "right operand of 'in' is not an array", e.range);
            return Value::logical(member(a, b, e));
        }
        bool tensor = a.is_identifier() || b.is_identifier();
        if (tensor) return emit_operator(operator_fragment(op, false), {a, b}, s, e);
        if (op == "==" || op == "!=") {
            if (a.is_list() || a.is_string()) charge(a.is_string() ? a.as_string().size() / 16 : weight(a, UINT64_MAX >> 1), e.range);
            return Value::logical((a == b) == (op == "=="));
        }
        if (op == "&&" || op == "||") {
            if (!a.is_logical() || !b.is_logical()) fail("operand-type", "'" + op + "' needs logical operands", e.range);
            return Value::logical(op == "&&" ? a.as_logical() && b.as_logical() : a.as_logical() || b.as_logical());
        }
        // Concatenation and repetition of arrays and strings.
        if (op == "+" && a.is_array() && b.is_array()) {
            Value::Items items = a.items();
            items.insert(items.end(), b.items().begin(), b.items().end());
            return bounded(Value::array(std::move(items)), e);
        }
        if (op == "+" && a.is_string() && b.is_string()) return bounded(Value::string(a.as_string() + b.as_string()), e);
        if (op == "*" && (a.is_array() || a.is_string()) && b.is_integer()) return repeat(a, b.as_integer(), e);
        if (op == "*" && a.is_integer() && (b.is_array() || b.is_string())) return repeat(b, a.as_integer(), e);
        if (a.is_integer() && b.is_integer()) return integer_op(op, a.as_integer(), b.as_integer(), e);
        if (a.is_scalar() && b.is_scalar()) return scalar_op(op, a.as_scalar(), b.as_scalar(), e);
        if (a.is_string() && b.is_string() && (op == "<" || op == "<=" || op == ">" || op == ">="))
            return compare(op, a.as_string(), b.as_string());
        fail("operand-type", "operator '" + op + "' cannot be applied to these operands", e.range);
    }

    template <class T>
    static Value compare(const std::string& op, const T& x, const T& y) {
        if (op == "<") return Value::logical(x < y);
        if (op == "<=") return Value::logical(x <= y);
        if (op == ">") return Value::logical(x > y);
        return Value::logical(x >= y);
    }

    Value integer_op(const std::string& op, std::int64_t x, std::int64_t y, const ast::Expr& e) {
        std::int64_t r = 0;
        auto overflow = [&]() { fail("integer-overflow", "integer overflow in '" + op + "'", e.range); };
        if (op == "+") {
            if (__builtin_add_overflow(x, y, &r)) overflow();
            return Value::integer(r);
        }
        if (op == "-") {
            if (__builtin_sub_overflow(x, y, &r)) overflow();
            return Value::integer(r);
        }
        if (op == "*") {
            if (__builtin_mul_overflow(x, y, &r)) overflow();
            return Value::integer(r);
        }
        if (op == "/") {
            if (y == 0) fail("division-by-zero", "integer division by zero", e.range);
            if (x == std::numeric_limits<std::int64_t>::min() && y == -1) overflow();
            return Value::integer(x / y);  // truncates toward zero
        }
        if (op == "^") {
            if (y < 0) fail("negative-exponent", "integer power with negative exponent " + std::to_string(y), e.range);
            std::int64_t result = 1, base = x;
            for (std::int64_t k = y; k > 0; k >>= 1) {
                if (k & 1)
                    if (__builtin_mul_overflow(result, base, &result)) overflow();
                if (k > 1)
                    if (__builtin_mul_overflow(base, base, &base)) overflow();
            }
            return Value::integer(result);
        }
        if (op == "<" || op == "<=" || op == ">" || op == ">=") return compare(op, x, y);
        fail("operand-type", "operator '" + op + "' cannot be applied to integers", e.range);
    }

    Value scalar_op(const std::string& op, double x, double y, const ast::Expr& e) {
        if (op == "+") return Value::scalar(x + y);
        if (op == "-") return Value::scalar(x - y);
        if (op == "*") return Value::scalar(x * y);
        if (op == "/") return Value::scalar(x / y);
        if (op == "^") return Value::scalar(std::pow(x, y));
        if (op == "<" || op == "<=" || op == ">" || op == ">=") return compare(op, x, y);
        fail("operand-type", "operator '" + op + "' cannot be applied to scalars", e.range);
    }

    Value eval_comprehension(const ast::Expr& e, Scope& s) {
        std::size_t n = e.names().size();
        std::vector<Value> iterables;
        std::size_t length = 0;
        for (std::size_t i = 0; i < n; ++i) {
            Value v = eval(e.children[i], s);
            if (!v.is_array()) fail("operand-type", "comprehension iterates a value that is not an array", e.children[i].range);
            if (i == 0) {
                length = v.size();
            } else if (v.size() != length) {
                fail("length-mismatch",
                     "comprehension iterators have different lengths (" + std::to_string(length) + " and " +
                         std::to_string(v.size()) + ")",
                     e.children[i].range);
            }
            iterables.push_back(std::move(v));
        }
        const ast::Expr* filter = e.has_filter ? &e.children[n] : nullptr;
        const ast::Expr& yield = e.children.back();
        Value::Items items;
        // Each iteration makes a scope and evaluates the body: work beyond the text wherever the
        // comprehension is.
        ++comprehensions_;
        struct Leave {
            std::size_t& depth;
            ~Leave() { --depth; }
        } leave{comprehensions_};
        for (std::size_t k = 0; k < length; ++k) {
            charge(comprehension_iteration_cost, e.range);
            Scope inner;
            inner.parent = &s;
            inner.generic = s.generic;
            inner.prefix = s.prefix;
            inner.graph = s.graph;
            for (std::size_t i = 0; i < n; ++i) inner.vars[e.names()[i].text.str()] = iterables[i][k];
            if (filter) {
                Value c = eval(*filter, inner);
                if (!c.is_logical()) fail("operand-type", "comprehension filter is not a logical value", filter->range);
                if (!c.as_logical()) continue;
            }
            items.push_back(eval(yield, inner));
        }
        return bounded(Value::array(std::move(items)), e);
    }

    Value eval_subscript(const ast::Expr& e, Scope& s) {
        Value obj = eval(e.children[0], s);
        Value idx = eval(e.children[1], s);
        if (!idx.is_integer()) fail("operand-type", "subscript index is not an integer", e.children[1].range);
        std::int64_t i = idx.as_integer();
        std::size_t len = obj.is_string() ? obj.as_string().size() : obj.is_list() ? obj.size() : 0;
        if (!obj.is_string() && !obj.is_list()) fail("operand-type", "subscript of a value that is not an array, tuple or string", e.range);
        if (i < 0 || static_cast<std::uint64_t>(i) >= len)
            fail("index-out-of-range", "index " + std::to_string(i) + " is out of range for length " + std::to_string(len), e.range);
        if (obj.is_string()) return Value::string(obj.as_string().substr(static_cast<std::size_t>(i), 1));
        return obj[static_cast<std::size_t>(i)];
    }

    Value eval_range(const ast::Expr& e, Scope& s) {
        Value obj = eval(e.children[0], s);
        std::size_t k = 1;
        std::size_t len = obj.is_string() ? obj.as_string().size() : obj.is_array() ? obj.size() : 0;
        if (!obj.is_string() && !obj.is_array()) fail("operand-type", "range subscript of a value that is not an array or string", e.range);
        std::int64_t b = 0, en = static_cast<std::int64_t>(len);
        if (e.has_begin) {
            Value v = eval(e.children[k++], s);
            if (!v.is_integer()) fail("operand-type", "range begin is not an integer", e.range);
            b = v.as_integer();
        }
        if (e.has_end) {
            Value v = eval(e.children[k++], s);
            if (!v.is_integer()) fail("operand-type", "range end is not an integer", e.range);
            en = v.as_integer();
        }
        b = std::max<std::int64_t>(0, std::min<std::int64_t>(b, static_cast<std::int64_t>(len)));
        en = std::max<std::int64_t>(0, std::min<std::int64_t>(en, static_cast<std::int64_t>(len)));
        if (b >= en) return obj.is_string() ? Value::string("") : Value::array();
        if (obj.is_string())
            return bounded(Value::string(obj.as_string().substr(static_cast<std::size_t>(b), static_cast<std::size_t>(en - b))), e);
        return bounded(Value::array(Value::Items(obj.items().begin() + b, obj.items().begin() + en)), e);
    }

    static bool parse_integer_literal(const std::string& s, std::int64_t& out) {
        std::size_t i = 0;
        bool neg = false;
        if (i < s.size() && s[i] == '-') {
            neg = true;
            ++i;
        }
        if (i >= s.size()) return false;
        for (std::size_t k = i; k < s.size(); ++k)
            if (!std::isdigit(static_cast<unsigned char>(s[k]))) return false;
        std::uint64_t v = 0;
        auto res = std::from_chars(s.data() + i, s.data() + s.size(), v);
        if (res.ec != std::errc() || v > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) return false;
        out = neg ? -static_cast<std::int64_t>(v) : static_cast<std::int64_t>(v);
        return true;
    }

    static bool parse_scalar_literal(const std::string& s, double& out) {
        // <numeric-literal>: [-] digits [. digits*] [(e|E) [+|-] digits]
        std::size_t i = 0, n = s.size();
        if (i < n && s[i] == '-') ++i;
        std::size_t d = i;
        while (i < n && std::isdigit(static_cast<unsigned char>(s[i]))) ++i;
        if (i == d) return false;
        if (i < n && s[i] == '.') {
            ++i;
            while (i < n && std::isdigit(static_cast<unsigned char>(s[i]))) ++i;
        }
        if (i < n && (s[i] == 'e' || s[i] == 'E')) {
            ++i;
            if (i < n && (s[i] == '+' || s[i] == '-')) ++i;
            std::size_t ed = i;
            while (i < n && std::isdigit(static_cast<unsigned char>(s[i]))) ++i;
            if (i == ed) return false;
        }
        if (i != n) return false;
        auto res = std::from_chars(s.data(), s.data() + n, out);
        return res.ec == std::errc();
    }

    Value eval_builtin(const ast::Expr& e, Scope& s) {
        Value v = eval(e.children[0], s);
        const std::string& f = e.text;
        if (f == "shape_of") {
            if (v.is_identifier()) {
                const Tensor* t = out_.graph.tensor(v.as_identifier());
                if (!t || !t->shape)
                    fail("unknown-shape", "shape_of('" + v.as_identifier() + "'): the shape is not known (it depends on a custom operation)", e.range);
                Value::Items items;
                for (std::int64_t d : *t->shape) items.push_back(Value::integer(d));
                return bounded(Value::array(std::move(items)), e);
            }
            if (v.is_primitive()) return Value::array();
            fail("operand-type", "shape_of needs a tensor or a primitive value", e.range);
        }
        if (f == "length_of" || f == "range_of") {
            std::size_t len = 0;
            if (v.is_array()) len = v.size();
            else if (v.is_string()) len = v.as_string().size();
            else fail("operand-type", f + " needs an array or a string", e.range);
            if (f == "length_of") return Value::integer(static_cast<std::int64_t>(len));
            Value::Items items;
            items.reserve(len);
            charge(len, e.range);
            for (std::size_t i = 0; i < len; ++i) items.push_back(Value::integer(static_cast<std::int64_t>(i)));
            return Value::array(std::move(items));
        }
        if (f == "integer") {
            if (v.is_integer()) return v;
            if (v.is_logical()) return Value::integer(v.as_logical() ? 1 : 0);
            if (v.is_scalar()) {
                double x = std::floor(v.as_scalar());
                if (!(x >= -9.2233720368547758e18 && x < 9.2233720368547758e18))
                    fail("bad-cast", "integer(" + format_scalar(v.as_scalar()) + ") is out of the integer range", e.range);
                return Value::integer(static_cast<std::int64_t>(x));
            }
            if (v.is_string()) {
                std::int64_t r = 0;
                if (!parse_integer_literal(v.as_string(), r))
                    fail("bad-cast", "integer(" + quote(v.as_string()) + "): not an integer literal", e.range);
                return Value::integer(r);
            }
        } else if (f == "scalar") {
            if (v.is_scalar()) return v;
            if (v.is_logical()) return Value::scalar(v.as_logical() ? 1.0 : 0.0);
            if (v.is_integer()) return Value::scalar(static_cast<double>(v.as_integer()));
            if (v.is_string()) {
                double r = 0;
                if (!parse_scalar_literal(v.as_string(), r))
                    fail("bad-cast", "scalar(" + quote(v.as_string()) + "): not a numeric literal", e.range);
                return Value::scalar(r);
            }
        } else if (f == "logical") {
            if (v.is_logical()) return v;
            if (v.is_integer()) return Value::logical(v.as_integer() != 0);
            if (v.is_scalar()) return Value::logical(v.as_scalar() != 0.0);
            if (v.is_string()) return Value::logical(!v.as_string().empty());
        } else if (f == "string") {
            if (v.is_string()) return v;
            if (v.is_primitive()) return Value::string(to_string(v));
        }
        fail("bad-cast", f + "() cannot be applied to this value", e.range);
    }

    // ---- invocations --------------------------------------------------------------------------
    Value eval_invocation(const ast::Expr& e, Scope& s, Hint hint) {
        const ast::Fragment* decl = prog_.find(e.text);
        if (!decl) fail("unknown-operation", "operation '" + e.text + "' is not declared", e.range);
        std::vector<std::optional<Value>> values(decl->params.size());
        std::size_t positional = 0;
        for (std::size_t i = 0; i < e.children.size(); ++i) {
            const std::string_view name = e.arg_name(i);
            std::size_t idx = decl->params.size();
            if (name.empty()) {
                idx = positional++;
            } else {
                for (std::size_t k = 0; k < decl->params.size(); ++k)
                    if (decl->params[k].name == name) idx = k;
            }
            if (idx >= decl->params.size()) fail("bad-argument", "argument does not match a parameter of '" + e.text + "'", e.children[i].range);
            values[idx] = eval(e.children[i], s);
        }
        std::optional<PrimType> explicit_type;
        if (e.generic()) {
            PrimType p = e.generic()->prim();
            explicit_type = p == PrimType::generic ? s.generic : p;
        }
        return invoke(*decl, values, explicit_type, s, e, hint);
    }

    // Deduces `?` from the value given for a parameter of (generic) type t.
    void deduce(const Type& t, const Value& v, std::vector<PrimType>& found) {
        if (t.is_primitive() || t.is_tensor()) {
            if (t.prim() != PrimType::generic) return;
            PrimType p = value_dtype(out_.graph, v);
            if (v.is_list()) return;
            if (p != PrimType::none && std::find(found.begin(), found.end(), p) == found.end()) found.push_back(p);
        } else if (t.is_array()) {
            if (v.is_list())
                for (const Value& i : v.items()) deduce(t.item(), i, found);
        } else if (t.is_tuple()) {
            if (v.is_list())
                for (std::size_t i = 0; i < v.size() && i < t.items().size(); ++i) deduce(t.items()[i], v[i], found);
        }
    }

    static bool invocation_free(const ast::Expr& e) {
        if (e.kind == ast::ExprKind::invocation) return false;
        for (const ast::Expr& c : e.children)
            if (!invocation_free(c)) return false;
        return true;
    }

    // OpRegistry::standard().find(decl.name), remembered per declaration.
    const OpDef* standard_def(const ast::Fragment& decl) {
        auto [it, inserted] = standard_defs_.try_emplace(&decl, nullptr);
        if (inserted) it->second = OpRegistry::standard().find(decl.name);
        return it->second;
    }

    bool keep_atomic(const ast::Fragment& decl) {
        if (!decl.body) return true;
        if (is_stdlib(decl.range) && !opts_.expand_all && !opts_.expand.count(decl.name))
            return standard_def(decl) != nullptr;
        return false;
    }

    Value invoke(const ast::Fragment& decl, std::vector<std::optional<Value>>& values, std::optional<PrimType> explicit_type,
                 Scope& s, const ast::Expr& e, Hint hint) {
        for (std::size_t i = 0; i < decl.params.size(); ++i) {
            if (values[i]) continue;
            const ast::Param& p = decl.params[i];
            if (!p.default_value) fail("missing-argument", "argument '" + p.name + "' of '" + decl.name + "' is missing", e.range);
            // A default without invocations has the same value at every call: it is evaluated once
            // (values share their data).
            auto memo = default_values_.find(&p);
            if (memo != default_values_.end() && memo->second) {
                values[i] = *memo->second;
                continue;
            }
            Scope empty;
            values[i] = eval(*p.default_value, empty);
            if (memo == default_values_.end())
                default_values_.emplace(&p, invocation_free(*p.default_value) ? values[i] : std::nullopt);
        }
        PrimType bound = PrimType::none;
        if (decl.generic) {
            if (explicit_type) {
                bound = *explicit_type;
            } else if (decl.generic_default) {
                bound = *decl.generic_default;
            } else {
                std::vector<PrimType> found;
                for (std::size_t i = 0; i < decl.params.size(); ++i)
                    if (decl.params[i].type.is_generic()) deduce(decl.params[i].type, *values[i], found);
                if (found.size() == 1) bound = found.front();
            }
        }
        if (keep_atomic(decl)) return emit(decl, values, bound, s, e, hint);
        return expand_fragment(decl, values, bound, s, e, hint);
    }

    Value expand_fragment(const ast::Fragment& decl, std::vector<std::optional<Value>>& values, PrimType bound, Scope& s,
                          const ast::Expr& e, Hint hint) {
        if (chain_.size() >= opts_.options.limits.max_recursion)
            fail("limit-exceeded",
                 "fragment expansion depth exceeds limit max_recursion (" + std::to_string(opts_.options.limits.max_recursion) +
                     ") in '" + decl.name + "' (non-terminating recursion?)",
                 e.range);
        charge(expansion_cost, e.range);
        if (++expansions_ > opts_.options.limits.max_expansions)
            fail("limit-exceeded",
                 "fragment bodies expanded exceed limit max_expansions (" +
                     std::to_string(opts_.options.limits.max_expansions) + ") in '" + decl.name + "'",
                 e.range);
        Scope inner;
        inner.generic = bound;
        std::string local = hint.lhs ? first_identifier(*hint.lhs) : decl.name;
        inner.prefix = hint.graph ? s.prefix : s.prefix + "_" + local;
        for (std::size_t i = 0; i < decl.params.size(); ++i) inner.vars[decl.params[i].name] = std::move(*values[i]);
        {
            // The body is expanded with this call site innermost; the chain is restored however
            // the body ends (an error ends the statement, and the next one starts outside).
            struct Restore {
                CallChain& chain;
                CallChain saved;
                ~Restore() { chain = std::move(saved); }
            } restore{chain_, chain_};
            chain_ = chain_.called(CallSite{decl.name, e.range, expansions_});
            for (const ast::Assignment& a : *decl.body) {
                Value v = eval(a.rhs, inner, Hint{&a.lhs, false});
                bind_local(a.lhs, v, inner);
            }
        }
        Value::Items results;
        for (const ast::Result& r : decl.results) {
            auto it = inner.vars.find(r.name);
            if (it == inner.vars.end())
                fail("unassigned-result", "result '" + r.name + "' of '" + decl.name + "' is not assigned", decl.range);
            results.push_back(it->second);
        }
        if (results.size() == 1) return std::move(results.front());
        return Value::tuple(std::move(results));
    }

    void bind_local(const ast::Expr& lhs, const Value& v, Scope& s) {
        using K = ast::ExprKind;
        if (lhs.kind == K::identifier) {
            s.vars[lhs.text] = v;
            return;
        }
        if (lhs.kind == K::paren) return bind_local(lhs.children[0], v, s);
        if (!v.is_list() || v.size() != lhs.children.size())
            fail("unpack-mismatch",
                 "cannot unpack " + (v.is_list() ? std::to_string(v.size()) + " values" : std::string("a single value")) +
                     " into " + std::to_string(lhs.children.size()) + " identifiers",
                 lhs.range);
        for (std::size_t i = 0; i < lhs.children.size(); ++i) bind_local(lhs.children[i], v[i], s);
    }

    // ---- emitting atomic operations -------------------------------------------------------------
    // Names for the tensors of one result: from the lvalue hint when its structure fits.
    void result_names(const ast::Fragment& decl, const Operation& op, std::size_t ri, const ast::Expr* lhs, bool graph,
                      const Scope& s, Value& out, const ast::Expr& e) {
        const ast::Result& r = decl.results[ri];
        bool array = r.type.is_array();
        auto base = [&](const std::string& local) { return graph ? local : s.prefix + "_" + local; };
        if (!array) {
            std::string name;
            if (lhs && lhs->kind == ast::ExprKind::identifier && graph && !used(lhs->text)) {
                name = lhs->text;
            } else {
                name = fresh_name(lhs && lhs->kind == ast::ExprKind::identifier ? base(lhs->text) : base(op.name));
            }
            out = Value::identifier(name);
            return;
        }
        // Tensor-array result: the count comes from the lvalue, or from the operation itself.
        std::size_t count = 0;
        bool have_count = false;
        if (lhs && lhs->kind == ast::ExprKind::array) {
            count = lhs->children.size();
            have_count = true;
        } else if (op.name == "split") {
            if (const Value* ratios = op.attrib("ratios"); ratios && ratios->is_array()) {
                count = ratios->size();
                have_count = true;
            }
        } else if (op.name == "unstack") {
            const Value* in = op.input("value");
            const Value* axis = op.attrib("axis");
            if (in && in->is_identifier() && axis && axis->is_integer()) {
                const Tensor* t = out_.graph.tensor(in->as_identifier());
                std::int64_t rank = t && t->shape ? static_cast<std::int64_t>(t->shape->size()) : -1;
                std::int64_t a = axis->as_integer() < 0 ? axis->as_integer() + rank : axis->as_integer();
                if (t && t->shape && a >= 0 && a < rank) {
                    count = static_cast<std::size_t>((*t->shape)[static_cast<std::size_t>(a)]);
                    have_count = true;
                }
            }
        }
        if (!have_count)
            fail("unknown-result-count", "cannot tell how many tensors '" + decl.name + "' returns in '" + r.name +
                                             "'; assign its result to an array of identifiers", e.range);
        if (count > opts_.options.limits.max_value_items)
            fail("limit-exceeded", "result count exceeds limit max_value_items", e.range);
        charge(count, e.range);
        Value::Items items;
        std::unordered_set<std::string> taken;  // names of this result (their tensors come after)
        for (std::size_t i = 0; i < count; ++i) {
            const ast::Expr* item = lhs && lhs->kind == ast::ExprKind::array ? &lhs->children[i] : nullptr;
            std::string name;
            if (item && item->kind == ast::ExprKind::identifier && graph && !used(item->text) &&
                !taken.count(item->text)) {
                name = item->text;
            } else if (item && item->kind == ast::ExprKind::identifier) {
                name = fresh_name(base(item->text), &taken);
            } else {
                name = fresh_name(base(op.name), &taken);
            }
            taken.insert(name);
            items.push_back(Value::identifier(name));
        }
        out = Value::array(std::move(items));
    }

    Value emit(const ast::Fragment& decl, std::vector<std::optional<Value>>& values, PrimType bound, Scope& s,
               const ast::Expr& e, Hint hint) {
        Graph& g = out_.graph;
        check_operation_limit(e.range);
        if (decl.name == "external" && !s.graph) fail("external-in-fragment", "'external' used inside a fragment", e.range);
        Operation op;
        op.name = decl.name;
        op.dtype = decl.generic ? bound : PrimType::none;
        std::size_t ntensor = 0;
        for (const ast::Param& p : decl.params) ntensor += p.type.contains_tensor() ? 1 : 0;
        op.inputs.reserve(ntensor);
        op.attribs.reserve(decl.params.size() - ntensor);
        op.outputs.reserve(decl.results.size());
        for (std::size_t i = 0; i < decl.params.size(); ++i) {
            const ast::Param& p = decl.params[i];
            Value v = std::move(*values[i]);
            if (p.type.contains_tensor()) {
                for_each_identifier(v, [&](const std::string& n) {
                    if (!g.tensor(n)) fail("undefined-tensor", "tensor '" + n + "' is not defined", e.range);
                });
                op.inputs.emplace_back(p.name, std::move(v));
            } else {
                op.attribs.emplace_back(p.name, std::move(v));
            }
        }
        if (decl.name == "external" && s.graph && hint.lhs && hint.lhs->kind == ast::ExprKind::identifier) {
            auto it = opts_.input_shapes.find(hint.lhs->text);
            if (it != opts_.input_shapes.end())
                for (auto& [n, v] : op.attribs)
                    if (n == "shape") {
                        Value::Items items;
                        for (std::int64_t d : it->second) items.push_back(Value::integer(d));
                        v = Value::array(std::move(items));
                    }
        }
        op.provenance.range = e.range;
        op.provenance.chain = chain_;

        // Results: names from the hint where the lvalue matches the result structure.
        const ast::Expr* lhs = hint.lhs;
        while (lhs && lhs->kind == ast::ExprKind::paren) lhs = &lhs->children[0];
        std::size_t nres = decl.results.size();
        for (std::size_t ri = 0; ri < nres; ++ri) {
            const ast::Expr* rl = nullptr;
            if (lhs && nres == 1) rl = lhs;
            else if (lhs && lhs->kind == ast::ExprKind::tuple && lhs->children.size() == nres) rl = &lhs->children[ri];
            Value out;
            result_names(decl, op, ri, rl, hint.graph, s, out, e);
            for_each_identifier(out, [&](const std::string& n) { g.add_tensor(n); });
            op.outputs.emplace_back(decl.results[ri].name, std::move(out));
        }
        set_output_dtypes(g, op, decl);

        const OpDef* def = standard_def(decl);
        bool custom = !is_stdlib(decl.range);
        if (custom) {
            def = opts_.custom ? opts_.custom->find(decl.name) : nullptr;
            if (!def && std::find(out_.custom_operations.begin(), out_.custom_operations.end(), decl.name) == out_.custom_operations.end()) {
                out_.custom_operations.push_back(decl.name);
                out_.custom_operation_sites.push_back(e.range);
            }
        } else if (!def) {
            fail("internal", "standard operation '" + decl.name + "' has no shape definition", e.range);
        }
        for (const auto& [n, v] : op.outputs)
            for_each_identifier(v, [&](const std::string& t) { producers_.set(tensor_index(t), &decl.name); });
        InferReport inferred = infer_report(opts_.options);
        bool ok = infer_operation(g, producers_, op, def, inferred);
        for (const std::string& w : inferred.warnings) warn_once("de-facto-form", w, e.range);
        const std::vector<std::string>& errors = inferred.errors;
        if (!ok) {
            for (std::size_t i = 0; i + 1 < errors.size(); ++i) report("invalid-argument", errors[i], e.range, chain_);
            fail(inferred.limit_exceeded ? "limit-exceeded" : "invalid-argument",
                 errors.empty() ? "invalid arguments for '" + decl.name + "'" : errors.back(), e.range);
        }
        Value result;
        if (op.outputs.size() == 1) {
            result = op.outputs.front().second;
        } else {
            Value::Items results;
            results.reserve(op.outputs.size());
            for (auto& [n, v] : op.outputs) results.push_back(v);
            result = Value::tuple(std::move(results));
        }
        record_graph_rules(op);
        g.operations.push_back(std::move(op));
        return result;
    }

    // ---- graph-level binding ----------------------------------------------------------------------
    void poison(const ast::Expr& lhs, Scope& s) {
        if (lhs.kind == ast::ExprKind::identifier) {
            s.vars[lhs.text] = Value();
            return;
        }
        for (const ast::Expr& c : lhs.children) poison(c, s);
    }

    void rename_in(Value& v, const std::string& from, const std::string& to) {
        if (v.is_identifier()) {
            if (v.as_identifier() == from) v = Value::identifier(to);
        } else if (v.is_list()) {
            for (Value& i : v.mutable_items()) rename_in(i, from, to);
        }
    }

    void bind_graph(const ast::Expr& lhs, const Value& v, Scope& s, SourceRange range) {
        using K = ast::ExprKind;
        if (lhs.kind == K::paren) return bind_graph(lhs.children[0], v, s, range);
        if (lhs.kind != K::identifier) {
            if (!v.is_list() || v.size() != lhs.children.size())
                fail("unpack-mismatch",
                     "cannot unpack " + (v.is_list() ? std::to_string(v.size()) + " values" : std::string("a single value")) +
                         " into " + std::to_string(lhs.children.size()) + " identifiers",
                     lhs.range);
            for (std::size_t i = 0; i < lhs.children.size(); ++i) bind_graph(lhs.children[i], v[i], s, range);
            return;
        }
        const std::string& name = lhs.text;
        Graph& g = out_.graph;
        if (v.is_identifier()) {
            const std::string& t = v.as_identifier();
            if (t == name) {
                s.vars[name] = v;
                return;
            }
            const Tensor* made = g.tensor(t);
            const Mark& here = statements_.back();
            bool fresh = made && static_cast<std::size_t>(made - g.tensors.data()) >= here.first_tensor && !reserved(t) &&
                         !used(name);
            if (fresh) {
                // A tensor made by this statement: it takes the graph's name (its producer entry
                // follows the tensor; the old name stays taken).
                retired_.insert(t);
                g.rename_tensor(*g.tensor(t), name);
                for (std::size_t i = here.first_op; i < g.operations.size(); ++i) {
                    for (auto& [n, x] : g.operations[i].inputs) rename_in(x, t, name);
                    for (auto& [n, x] : g.operations[i].outputs) rename_in(x, t, name);
                }
                s.vars[name] = Value::identifier(name);
                return;
            }
            emit_alias("copy", {{"x", v}}, {}, name, value_dtype(g, v), range);
        } else if (v.is_integer() || v.is_scalar() || v.is_logical()) {
            PrimType p = value_dtype(g, v);
            emit_alias("constant", {}, {{"shape", Value::array()}, {"value", Value::array({v})}}, name, p, range);
        } else {
            fail("not-a-tensor", "'" + name + "' in the graph body must be a tensor", lhs.range);
        }
        s.vars[name] = Value::identifier(name);
    }

    // Fails when the graph already has max_operations operations.
    void check_operation_limit(SourceRange at) {
        if (derived()) charge(operation_cost, at);
        if (out_.operation_count + out_.graph.operations.size() >= opts_.options.limits.max_operations)
            fail("limit-exceeded", "expansion exceeds limit max_operations (" + std::to_string(opts_.options.limits.max_operations) + ")",
                 at);
    }

    // Emits `name = copy(x)` or `name = constant(...)` for graph identifiers bound to an existing
    // tensor or a literal.
    void emit_alias(const std::string& opname, NamedValues inputs, NamedValues attribs, const std::string& name, PrimType dtype,
                    SourceRange range) {
        Graph& g = out_.graph;
        check_operation_limit(range);
        const ast::Fragment* decl = prog_.find(opname);
        Operation op;
        op.name = opname;
        op.dtype = dtype;
        op.inputs = std::move(inputs);
        op.attribs = std::move(attribs);
        if (decl)
            for (const ast::Param& p : decl->params)
                if (!p.type.contains_tensor() && !op.attrib(p.name) && p.default_value) {
                    Scope empty;
                    op.attribs.emplace_back(p.name, eval(*p.default_value, empty));
                }
        op.outputs.emplace_back(decl && !decl->results.empty() ? decl->results[0].name : "y", Value::identifier(name));
        op.provenance.range = range;
        g.add_tensor(name, dtype);
        producers_.set(g.tensors.size() - 1, decl ? &decl->name : nullptr);
        const OpDef* def = OpRegistry::standard().find(opname);
        InferReport report = infer_report(opts_.options);
        if (!infer_operation(g, producers_, op, def, report))
            fail(report.limit_exceeded ? "limit-exceeded" : "invalid-argument",
                 report.errors.empty() ? "invalid '" + opname + "'" : report.errors.back(), range);
        g.operations.push_back(std::move(op));
    }

    // ---- graph-level rules ------------------------------------------------------------------
    // Variables that share a label (case-insensitively) share data, so their shapes must be equal;
    // a variable (all variables of a label) may be updated once. Recorded as each operation is
    // made (its operations may not be kept); the diagnostics wait for finish(), since they count
    // only for an otherwise valid graph.
    std::size_t tensor_index(const Tensor* t) const { return static_cast<std::size_t>(t - out_.graph.tensors.data()); }
    std::size_t tensor_index(std::string_view name) const {
        const Tensor* t = out_.graph.tensor(name);
        return t ? tensor_index(t) : SIZE_MAX;
    }

    static Diagnostic shape_error(const char* code, std::string message, SourceRange at, Note note) {
        Diagnostic d;
        d.severity = Severity::error;
        d.stage = Stage::shape;
        d.code = code;
        d.message = std::move(message);
        d.range = at;
        d.notes.push_back(std::move(note));
        return d;
    }

    void record_graph_rules(const Operation& op) {
        if (op.name == "variable")
            record_variable(op);
        else if (op.name == "update")
            record_update(op);
    }

    void record_variable(const Operation& op) {
        const Value* label = op.attrib("label");
        const Value* out = op.output("output");
        if (!label || !label->is_string() || !out || !out->is_identifier()) return;
        const Tensor* t = out_.graph.tensor(out->as_identifier());
        if (!t) return;
        const std::size_t index = tensor_index(t);
        auto [it, first] = labels_.try_emplace(label_key(label->as_string()), Label{index, user_range(op.provenance)});
        label_of_[index] = &it->first;
        if (first) return;
        const Tensor& other = out_.graph.tensors[it->second.tensor];
        if (t->shape && other.shape && *t->shape != *other.shape)
            label_errors_.push_back(shape_error("label-shape-mismatch",
                                                "variables labelled '" + label->as_string() + "' share data but have shapes " +
                                                    to_string(*other.shape) + " and " + to_string(*t->shape),
                                                user_range(op.provenance),
                                                Note{"the first variable with this label is here", it->second.where}));
    }

    void record_update(const Operation& op) {
        const Value* var = op.input("variable");
        if (!var || !var->is_identifier()) return;
        const std::size_t index = tensor_index(var->as_identifier());
        auto l = label_of_.find(index);
        const bool labelled = l != label_of_.end();
        std::string key = labelled ? "label:" + *l->second : "tensor:" + std::to_string(index);
        auto [it, first] = updated_.try_emplace(std::move(key), user_range(op.provenance));
        if (first) return;
        update_errors_.push_back(shape_error("variable-updated-twice",
                                             "variable '" + var->as_identifier() + "' is updated more than once" +
                                                 (labelled ? " (variables sharing a label are one variable)" : ""),
                                             user_range(op.provenance), Note{"first update is here", it->second}));
    }

    SourceRange user_range(const Provenance& p) const {
        SourceRange r = p.range;
        for (auto it = p.chain.begin(); is_stdlib(r) && it != p.chain.end(); ++it) r = it->range;
        return r;
    }

    const Program& prog_;
    const ExpandOptions& opts_;
    Diagnostics& diags_;
    Expansion out_;
    std::unordered_set<std::uint32_t> stdlib_files_;
    std::unordered_set<std::string_view> reserved_;  // graph-level names (never used for temporaries;
                                                     // views into the source text and params_)
    std::deque<std::string> params_;                 // the graph's parameter names
    Scope graph_scope_;
    std::unordered_set<std::string> retired_;        // former names of renamed tensors (still taken)
    std::unordered_map<std::string, std::size_t> counters_;
    std::unordered_set<std::string> warned_;
    ProducerMap producers_;
    // Where each graph statement's operations and tensors begin (operations: 0 once dropped).
    struct Mark {
        std::size_t first_op;
        std::size_t first_tensor;
    };
    std::vector<Mark> statements_;
    struct Label {
        std::size_t tensor;  // the first variable with the label
        SourceRange where;
    };
    std::unordered_map<std::string, Label> labels_;                 // lower-case label
    std::unordered_map<std::size_t, const std::string*> label_of_;  // variable tensor -> its key in labels_
    std::unordered_map<std::string, SourceRange> updated_;          // "label:..." or "tensor:N" -> first update
    std::vector<Diagnostic> label_errors_;
    std::vector<Diagnostic> update_errors_;
    std::unordered_map<const ast::Fragment*, const OpDef*> standard_defs_;
    std::unordered_map<const ast::Param*, std::optional<Value>> default_values_;  // evaluated defaults
    CallChain chain_;  // the fragment call sites being expanded, innermost first
    std::uint64_t expansions_ = 0;  // fragment bodies expanded so far (bounded by max_expansions)
    std::uint64_t work_ = 0;        // work beyond the text so far (bounded by max_work + allowance_)
    std::uint64_t allowance_ = 0;   // statement_allowance per graph statement so far
    std::size_t comprehensions_ = 0;  // comprehensions being evaluated
};

}  // namespace expander_cpp

Expanding::Expanding(const Program& program, const ExpandOptions& options, Diagnostics& diags)
    : impl_(std::make_unique<expander_cpp::Expander>(program, options, diags)) {}
Expanding::~Expanding() = default;
void Expanding::begin_graph(const ast::GraphDef& header) { impl_->begin_graph(header); }
void Expanding::statement(const ast::Assignment& a) { impl_->statement(a); }
Expansion Expanding::finish() { return impl_->finish(); }

Expansion expand(const Program& program, const ExpandOptions& options, Diagnostics& diags) {
    if (!program.document || !program.document->graph) {
        diags.error(Stage::semantic, "no-graph", "the document has no graph definition");
        return {};
    }
    return detail::on_deep_stack([&] {
        Expanding x(program, options, diags);
        x.begin_graph(*program.document->graph);
        for (const ast::Assignment& a : program.document->graph->body) x.statement(a);
        return x.finish();
    });
}

void infer_shapes(Graph& graph, const Program& program, const ExpandOptions& options, Diagnostics& diags) {
    ProducerMap producers;
    for (const Operation& op : graph.operations)
        for (const auto& [n, v] : op.outputs)
            for_each_identifier(v, [&](const std::string& t) {
                if (const Tensor* tensor = graph.tensor(t))
                    producers.set(static_cast<std::size_t>(tensor - graph.tensors.data()), &op.name);
            });
    for (Tensor& t : graph.tensors) t.shape.reset();
    for (Operation& op : graph.operations) {
        if (diags.limit_reached()) break;
        if (op.name == "external") {
            const Value* out = op.output("output");
            if (out && out->is_identifier()) {
                auto it = options.input_shapes.find(out->as_identifier());
                if (it != options.input_shapes.end())
                    for (auto& [n, v] : op.attribs)
                        if (n == "shape") {
                            Value::Items items;
                            for (std::int64_t d : it->second) items.push_back(Value::integer(d));
                            v = Value::array(std::move(items));
                        }
            }
        }
        const ast::Fragment* decl = program.find(op.name);
        if (decl) set_output_dtypes(graph, op, *decl);
        const OpDef* def = OpRegistry::standard().find(op.name);
        if (!def && options.custom) def = options.custom->find(op.name);
        InferReport report = infer_report(options.options);
        if (!infer_operation(graph, producers, op, def, report))
            for (const std::string& m : report.errors)
                diags.error(Stage::shape, report.limit_exceeded ? "limit-exceeded" : "invalid-argument", m, op.provenance.range);
    }
}

}  // namespace nnef::sema
