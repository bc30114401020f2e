// The type checker (spec 3.3.1, 3.3.2, 3.3.3 typing and SPEC_NOTES section 5). It walks the AST
// once: declarations, then fragment bodies, then the graph. Every expression gets a Type; an
// erroneous expression gets the unknown type (semantics/types.hpp), which is castable to and from
// anything, so one mistake produces one diagnostic. Values, shapes and recursion are the
// expander's business; only static rules live here.
//
// Readings where the spec leaves room (also listed in the final report of this component):
//  - Common types (array items, `+` on arrays, if-else branches) never promote a primitive to a
//    tensor: the spec allows that cast for fragment inputs only, so `y = x if c else 0.0` with a
//    tensor `x` has no common type (the printed `add_n` body relies on it; our stdlib does not).
//  - `==` / `!=` compare primitives of the same type (Table 1's `?`), not arrays or tuples.
//  - `*` repeats an array or a string: `array * integer`, `string * integer`.
//  - Comprehensions iterate arrays (not strings). Tuple subscripts are integer literals within
//    the tuple's arity (the index is static, so its range is a type rule, not a shape one).
//  - The casts `integer() scalar() logical() string()` take any primitive value (including the
//    opaque `?` of a generic fragment body); `shape_of` a tensor or a primitive.
//  - Generic binding: explicit `<T>`, else the declared default `<? = T>` (no deduction then),
//    else the unique deduction from the given arguments. Defaults of unassigned generic parameters
//    must match the binding. Inside a generic body `?` is an opaque type equal only to itself.
//  - Attribute parameters given positionally are errors; tensor parameters may also be named.
//  - In the graph every assigned identifier must be a single tensor; `external` may only be the
//    whole right-hand side defining a graph parameter.
#include "semantics/checker.hpp"

#include <boost/container/small_vector.hpp>

#include <algorithm>
#include <string_view>
#include <unordered_set>
#include <utility>
#include <vector>

#include "nnef/detail/deep_stack.hpp"
#include "nnef/detail/spelling.hpp"
#include "semantics/types.hpp"

namespace nnef::sema {
namespace checker_cpp {

// Tensor operator expressions map to these standard fragments (spec 3.3.3, Table 1).
const char* unary_fragment(const std::string& op) {
    if (op == "-") return "neg";
    if (op == "+") return "copy";
    if (op == "!") return "not";
    return nullptr;
}

const char* binary_fragment(const std::string& op) {
    static const std::pair<const char*, const char*> table[] = {
        {"+", "add"}, {"-", "sub"}, {"*", "mul"}, {"/", "div"}, {"^", "pow"},
        {"<", "lt"},  {"<=", "le"}, {">", "gt"},  {">=", "ge"}, {"==", "eq"},
        {"!=", "ne"}, {"&&", "and"}, {"||", "or"},
    };
    for (const auto& [o, f] : table)
        if (op == o) return f;
    return nullptr;
}

bool is_prim(const Type& t, PrimType p) { return t.is_primitive() && t.prim() == p; }
bool is_numeric(const Type& t) { return is_prim(t, PrimType::integer) || is_prim(t, PrimType::scalar); }

std::string quoted(std::string_view s) { return "'" + std::string(s) + "'"; }

// True if the later-revision standard text declares `name` (for a helpful strict-mode message).
bool is_later_revision_name(std::string_view name) {
    const std::string_view text = stdlib_later_text();
    const std::string key = "fragment " + std::string(name);
    for (std::size_t at = text.find(key); at != std::string_view::npos; at = text.find(key, at + 1)) {
        const std::size_t end = at + key.size();
        if (end < text.size() && (text[end] == '(' || text[end] == '<' || text[end] == ' ')) return true;
    }
    return false;
}

const ast::Expr& strip_parens(const ast::Expr& e) {
    const ast::Expr* p = &e;
    while (p->kind == ast::ExprKind::paren && !p->children.empty()) p = &p->children[0];
    return *p;
}

// An identifier visible in a body.
struct Symbol {
    Type type;
    bool parameter = false;   // fragment parameter, or graph parameter
    bool result = false;      // fragment or graph result
    bool defined = false;     // has been assigned (fragment parameters: always)
    const ast::Result* declared_result = nullptr;  // fragment result declaration
};

// One argument of an invocation (explicit or from an operator expression).
struct Arg {
    Type type;
    SourceRange range;
    ast::Text name;  // "" if positional
    SourceRange name_range;
};

class Checker {
public:
    Checker(const ast::Document& doc, std::shared_ptr<const Stdlib> stdlib, const Options& opts,
            Diagnostics& diags)
        : doc_(doc), stdlib_(std::move(stdlib)), opts_(opts), diags_(&diags) {
        program_.document = &doc_;
        program_.stdlib = stdlib_;
        if (stdlib_) program_.fragments = stdlib_->fragments;
        // The document's own fragments; the first of duplicates wins, and a document fragment
        // named like a standard one (an error) replaces it so its own body is what gets checked.
        std::unordered_set<std::string> own;
        for (const ast::Fragment& f : doc_.fragments)
            if (own.insert(f.name).second) program_.fragments[f.name] = &f;
    }

    Program& program() { return program_; }

    void check_declarations() {
        std::unordered_map<std::string, const ast::Fragment*> seen;
        for (const ast::Fragment& f : doc_.fragments) {
            if (stop()) break;
            check_fragment(f, seen);
        }
    }

private:
    // ---- diagnostics ------------------------------------------------------------------------
    bool stop() const { return diags_->limit_reached(); }
    Diagnostic& error(const char* code, std::string message, SourceRange range) {
        return diags_->error(Stage::semantic, code, std::move(message), range);
    }

    // ---- declarations -----------------------------------------------------------------------
    // True when `doc_` is one of the standard library's own documents (checked in tests): its
    // fragments are not redefinitions of themselves.
    bool checking_stdlib() const {
        if (stdlib_)
            for (const ast::Document& d : stdlib_->documents)
                if (&d == &doc_) return true;
        return false;
    }

    void check_fragment(const ast::Fragment& f, std::unordered_map<std::string, const ast::Fragment*>& seen) {
        auto [first, fresh] = seen.emplace(f.name, &f);
        const ast::Fragment* standard = stdlib_ ? stdlib_->find(f.name) : nullptr;
        if (!fresh) {
            error("duplicate-fragment", "fragment " + quoted(f.name) + " is already defined", f.name_range)
                .notes.push_back(Note{"first defined here", first->second->name_range});
        } else if (standard && !checking_stdlib()) {
            error("redefined-standard-fragment", "fragment " + quoted(f.name) + " redefines a standard operation",
                  f.name_range)
                .notes.push_back(Note{"the standard declaration", standard->name_range});
        }
        check_declaration(f);
        if (f.body && !stop()) check_fragment_body(f);
    }

    void check_type_wellformed(const Type& t, SourceRange range) {
        if (tuple_mixes_tensor_and_attribute(t))
            error("mixed-tuple-type", "tuple type " + describe(t) + " mixes tensor and attribute items", range);
    }

    void check_declaration(const ast::Fragment& f) {
        // Generic declaration vs use of `?` (spec 3.3.2); reported once, at the first use.
        bool any_generic = false;
        auto generic_use = [&](const char* what, const std::string& name, const Type& type, SourceRange range) {
            if (any_generic) return;
            any_generic = true;
            if (!f.generic)
                error("undeclared-generic",
                      std::string(what) + " " + quoted(name) + " has generic type " + describe(type) + " but fragment " +
                          quoted(f.name) + " is not declared generic (<?>)",
                      range);
        };
        for (const ast::Param& p : f.params)
            if (p.type.is_generic()) generic_use("parameter", p.name, p.type, p.type_range);
        for (const ast::Result& r : f.results)
            if (r.type.is_generic()) generic_use("result", r.name, r.type, r.type_range);
        if (f.generic && !any_generic)
            error("unused-generic",
                  "fragment " + quoted(f.name) + " is declared generic but no parameter or result has a generic type",
                  f.name_range);

        // Parameters.
        std::unordered_set<std::string> names;
        const ast::Param* first_attribute = nullptr;
        for (const ast::Param& p : f.params) {
            if (stop()) return;
            if (!names.insert(p.name).second)
                error("duplicate-parameter", "parameter " + quoted(p.name) + " is declared twice in " + quoted(f.name),
                      p.name_range);
            check_type_wellformed(p.type, p.type_range);
            if (p.type.contains_tensor()) {
                if (first_attribute)
                    error("tensor-after-attribute",
                          "tensor parameter " + quoted(p.name) + " follows attribute parameter " +
                              quoted(first_attribute->name) + " (tensor parameters must precede attributes)",
                          p.name_range);
            } else if (!first_attribute) {
                first_attribute = &p;
            }
            if (p.default_value) check_default(f, p);
        }

        // Results.
        std::unordered_set<std::string> result_names;
        std::optional<bool> tensor_results;
        for (const ast::Result& r : f.results) {
            if (stop()) return;
            if (names.count(r.name))
                error("parameter-result-clash",
                      "result " + quoted(r.name) + " has the same name as a parameter of " + quoted(f.name),
                      r.name_range);
            else if (!result_names.insert(r.name).second)
                error("duplicate-result", "result " + quoted(r.name) + " is declared twice in " + quoted(f.name),
                      r.name_range);
            check_type_wellformed(r.type, r.type_range);
            if (contains_unbound_tensor(r.type))
                error("unbound-tensor-result",
                      "result " + quoted(r.name) + " has an unbound tensor type " + describe(r.type) +
                          " (tensor<> may only declare inputs)",
                      r.type_range);
            bool is_tensor = r.type.contains_tensor();
            if (!tensor_results)
                tensor_results = is_tensor;
            else if (*tensor_results != is_tensor)
                error("mixed-results",
                      "results of " + quoted(f.name) + " must be all tensors or all attributes; " + quoted(r.name) +
                          " is " + (is_tensor ? "a tensor" : "an attribute"),
                      r.type_range);
        }
    }

    // The type of a parameter's default value (typed in an empty scope). Diagnostics of the
    // expression itself are reported when `report`, else dropped (standard declarations).
    Type default_type(const ast::Param& p, bool report) {
        // Cached only when reported (declarations of the document are checked once, with their
        // diagnostics); a silent computation may run before that and must not hide them.
        if (!report) {
            for (const auto* cache : {&default_types_, &silent_default_types_}) {
                auto it = cache->find(&p);
                if (it != cache->end()) return it->second;
            }
        }
        Scope empty;
        Scope* saved_scope = scope_;
        std::vector<std::pair<std::string, Type>> saved_locals;
        std::swap(saved_locals, locals_);
        std::unordered_set<std::string> saved_undefined;
        std::swap(saved_undefined, undefined_reported_);
        Diagnostics scratch(0);
        Diagnostics* saved_diags = diags_;
        if (!report) diags_ = &scratch;
        scope_ = &empty;
        Type t = type_expr(*p.default_value);
        scope_ = saved_scope;
        diags_ = saved_diags;
        std::swap(saved_locals, locals_);
        std::swap(saved_undefined, undefined_reported_);
        (report ? default_types_ : silent_default_types_)[&p] = t;
        return t;
    }

    void check_default(const ast::Fragment& f, const ast::Param& p) {
        const ast::Fragment* saved = fragment_;
        fragment_ = &f;
        Type t = default_type(p, true);
        fragment_ = saved;
        Type target = p.type;
        if (p.type.is_generic()) {
            if (f.generic_default) {
                target = p.type.bind(*f.generic_default);
            } else {
                Deduction d = deduce_generic({{t, p.type}});
                if (d.status == Deduction::Status::ambiguous) {
                    error("default-type-mismatch",
                          "default value of " + quoted(p.name) + " gives conflicting bindings of ?", p.default_value->range);
                    return;
                }
                target = p.type.bind(d.status == Deduction::Status::unique ? d.binding : PrimType::none);
                if (d.status != Deduction::Status::unique) return;
            }
        }
        if (!castable(t, target, true))
            error("default-type-mismatch",
                  "default value of " + quoted(p.name) + " has type " + describe(t) + ", expected " + describe(target),
                  p.default_value->range);
    }

    // ---- scopes -----------------------------------------------------------------------------
    using Scope = std::unordered_map<std::string, Symbol>;

    const Type* lookup(const std::string& name) const {
        for (auto it = locals_.rbegin(); it != locals_.rend(); ++it)
            if (it->first == name) return &it->second;
        auto it = scope_->find(name);
        if (it == scope_->end() || !it->second.defined) return nullptr;
        return &it->second.type;
    }

    // ---- fragment bodies --------------------------------------------------------------------
    void check_fragment_body(const ast::Fragment& f) {
        Scope scope;
        for (const ast::Param& p : f.params) {
            Symbol s;
            s.type = p.type;
            s.parameter = true;
            s.defined = true;
            scope.emplace(p.name, s);
        }
        for (const ast::Result& r : f.results) {
            if (scope.count(r.name)) continue;  // clash already reported
            Symbol s;
            s.type = r.type;
            s.result = true;
            s.declared_result = &r;
            scope.emplace(r.name, s);
        }
        fragment_ = &f;
        in_graph_ = false;
        scope_ = &scope;
        undefined_reported_.clear();
        for (const ast::Assignment& a : *f.body) {
            if (stop()) break;
            check_assignment(a);
        }
        if (!stop())
            for (const ast::Result& r : f.results) {
                auto it = scope.find(r.name);
                if (it != scope.end() && it->second.result && !it->second.defined)
                    error("result-not-assigned",
                          "result " + quoted(r.name) + " of " + quoted(f.name) + " is never assigned", r.name_range);
            }
        scope_ = &empty_scope_;
        fragment_ = nullptr;
    }

public:
    // ---- graph ------------------------------------------------------------------------------
    // The graph is checked a statement at a time (a streaming parse hands them over as they come):
    // begin_graph with the header, statement for each assignment, end_graph.
    void begin_graph(const ast::GraphDef& g) {
        graph_params_ = g.params;
        graph_results_ = g.results;
        Scope& scope = graph_scope_;
        scope.clear();
        for (const ast::Identifier& p : g.params) {
            if (scope.count(p.name)) {
                error("duplicate-graph-parameter", "graph parameter " + quoted(p.name) + " is listed twice", p.range);
                continue;
            }
            Symbol s;
            s.type = Type::tensor(PrimType::none);
            s.parameter = true;
            scope.emplace(p.name, s);
        }
        std::unordered_set<std::string> results;
        for (const ast::Identifier& r : g.results) {
            if (!results.insert(r.name).second) {
                error("duplicate-graph-result", "graph result " + quoted(r.name) + " is listed twice", r.range);
                continue;
            }
            auto it = scope.find(r.name);
            if (it != scope.end()) {
                it->second.result = true;  // a parameter may also be a result
                continue;
            }
            Symbol s;
            s.type = Type::tensor(PrimType::none);
            s.result = true;
            scope.emplace(r.name, s);
        }
        undefined_reported_.clear();
    }

    void statement(const ast::Assignment& a) {
        if (stop()) return;
        fragment_ = nullptr;
        in_graph_ = true;
        scope_ = &graph_scope_;
        check_assignment(a);
        scope_ = &empty_scope_;
        in_graph_ = false;
    }

    void end_graph() {
        if (stop()) return;
        const Scope& scope = graph_scope_;
        std::unordered_set<std::string> reported;
        for (const ast::Identifier& p : graph_params_) {
            const Symbol& s = scope.at(p.name);
            if (!s.defined && reported.insert(p.name).second)
                error("graph-parameter-not-defined",
                      "graph parameter " + quoted(p.name) + " is never defined by 'external'", p.range);
        }
        for (const ast::Identifier& r : graph_results_) {
            const Symbol& s = scope.at(r.name);
            if (!s.defined && reported.insert(r.name).second)
                error("graph-result-not-assigned", "graph result " + quoted(r.name) + " is never assigned", r.range);
        }
    }

private:
    // ---- assignments ------------------------------------------------------------------------
    static bool is_external_call(const ast::Expr& e) {
        const ast::Expr& s = strip_parens(e);
        return s.kind == ast::ExprKind::invocation && s.text == "external";
    }

    void check_assignment(const ast::Assignment& a) {
        allowed_external_ = nullptr;
        rhs_is_external_ = false;
        const ast::Expr& lhs = strip_parens(a.lhs);
        if (in_graph_ && is_external_call(a.rhs)) {
            rhs_is_external_ = true;
            allowed_external_ = &strip_parens(a.rhs);
            if (lhs.kind == ast::ExprKind::identifier) {
                auto it = scope_->find(lhs.text);
                if (it == scope_->end() || !it->second.parameter)
                    error("external-not-parameter",
                          quoted(lhs.text) + " is defined by 'external' but is not a graph parameter", lhs.range);
            } else {
                error("external-not-parameter", "'external' must define a single graph parameter", lhs.range);
            }
        }
        Type t = type_expr(a.rhs);
        allowed_external_ = nullptr;
        bind_lvalue(a.lhs, t, lhs.kind == ast::ExprKind::identifier ? a.rhs.range : SourceRange{});
        rhs_is_external_ = false;
    }

    // Binds the identifiers of an lvalue to the parts of `t`. `value_range`: where to report a
    // type mismatch for a whole-value identifier (the right-hand side), else the identifier.
    void bind_lvalue(const ast::Expr& e, const Type& t, SourceRange value_range) {
        switch (e.kind) {
            case ast::ExprKind::paren:
                if (!e.children.empty()) bind_lvalue(e.children[0], t, value_range);
                return;
            case ast::ExprKind::identifier:
                bind_identifier(e, t, value_range);
                return;
            case ast::ExprKind::tuple: {
                const std::size_t n = e.children.size();
                if (is_unknown(t)) {
                    for (const ast::Expr& c : e.children) bind_lvalue(c, t, {});
                } else if (!t.is_tuple()) {
                    error("lvalue-type-mismatch", "cannot unpack a value of type " + describe(t) + " into a tuple of " +
                                                      std::to_string(n) + " items",
                          e.range);
                    for (const ast::Expr& c : e.children) bind_lvalue(c, unknown_type(), {});
                } else if (t.items().size() != n) {
                    error("unpack-count-mismatch", "cannot unpack a tuple of " + std::to_string(t.items().size()) +
                                                       " items into " + std::to_string(n) + " identifiers",
                          e.range);
                    for (const ast::Expr& c : e.children) bind_lvalue(c, unknown_type(), {});
                } else {
                    for (std::size_t i = 0; i < n; ++i) bind_lvalue(e.children[i], t.items()[i], {});
                }
                return;
            }
            case ast::ExprKind::array: {
                if (is_unknown(t)) {
                    for (const ast::Expr& c : e.children) bind_lvalue(c, t, {});
                } else if (!t.is_array()) {
                    error("lvalue-type-mismatch",
                          "cannot unpack a value of type " + describe(t) + " into an array" +
                              (t.is_tuple() ? " (a tuple must be unpacked into a tuple)" : ""),
                          e.range);
                    for (const ast::Expr& c : e.children) bind_lvalue(c, unknown_type(), {});
                } else {
                    for (const ast::Expr& c : e.children) bind_lvalue(c, t.item(), {});
                }
                return;
            }
            default:
                error("invalid-lvalue", "the left-hand side must be an identifier or an array or tuple of identifiers",
                      e.range);
                return;
        }
    }

    void bind_identifier(const ast::Expr& e, const Type& t, SourceRange value_range) {
        const std::string& name = e.text;
        auto it = scope_->find(name);
        if (it != scope_->end() && it->second.parameter && !in_graph_) {
            error("assign-to-parameter", "parameter " + quoted(name) + " cannot be assigned", e.range);
            return;
        }
        if (it != scope_->end() && it->second.defined) {
            error("redefinition", quoted(name) + " is already defined", e.range);
            return;
        }
        if (it == scope_->end()) {
            Symbol s;
            it = scope_->emplace(name, s).first;
        }
        Symbol& s = it->second;
        s.defined = true;
        if (in_graph_) {
            if (s.parameter && !rhs_is_external_)
                error("graph-parameter-not-external",
                      "graph parameter " + quoted(name) + " must be defined by 'external'", e.range);
            if (!is_unknown(t) && !t.is_tensor())
                error("graph-identifier-not-tensor",
                      "identifier " + quoted(name) + " in the graph body has type " + describe(t) +
                          "; graph identifiers must be single tensors",
                      e.range);
            s.type = t;
            return;
        }
        if (s.declared_result) {
            if (!castable(t, s.declared_result->type, false))
                error("result-type-mismatch", "cannot assign a value of type " + describe(t) + " to result " +
                                                  quoted(name) + " of type " + describe(s.declared_result->type),
                      value_range.valid() ? value_range : e.range);
            s.type = s.declared_result->type;
            return;
        }
        s.type = t;
    }

    // ---- expressions ------------------------------------------------------------------------
    Type type_expr(const ast::Expr& e) {
        switch (e.kind) {
            case ast::ExprKind::integer: return Type::primitive(PrimType::integer);
            case ast::ExprKind::scalar: return Type::primitive(PrimType::scalar);
            case ast::ExprKind::logical: return Type::primitive(PrimType::logical);
            case ast::ExprKind::string: return Type::primitive(PrimType::string);
            case ast::ExprKind::identifier: return type_identifier(e);
            case ast::ExprKind::paren: return e.children.empty() ? unknown_type() : type_expr(e.children[0]);
            case ast::ExprKind::array: return type_array(e);
            case ast::ExprKind::tuple: return type_tuple(e);
            case ast::ExprKind::unary: return type_unary(e);
            case ast::ExprKind::binary: return type_binary(e);
            case ast::ExprKind::if_else: return type_if_else(e);
            case ast::ExprKind::comprehension: return type_comprehension(e);
            case ast::ExprKind::subscript: return type_subscript(e);
            case ast::ExprKind::range: return type_range(e);
            case ast::ExprKind::builtin: return type_builtin(e);
            case ast::ExprKind::invocation: return type_invocation(e);
        }
        return unknown_type();
    }

    Type type_identifier(const ast::Expr& e) {
        if (const Type* t = lookup(e.text)) return *t;
        // Reported once per body: later uses of the same name are the same mistake.
        if (undefined_reported_.insert(e.text).second) {
            detail::ClosestName close(e.text);
            for (const auto& [name, type] : locals_) close.consider(name);
            for (const auto& [name, symbol] : *scope_)
                if (symbol.defined) close.consider(name);
            error("undefined-identifier", "identifier " + quoted(e.text) + " is used before it is defined" + close.suffix(),
                  e.range);
        }
        return unknown_type();
    }

    Type type_array(const ast::Expr& e) {
        Type item = unknown_type();
        bool ok = true;
        for (const ast::Expr& c : e.children) {
            Type t = type_expr(c);
            if (!ok) continue;
            auto common = common_type(item, t);
            if (!common) {
                error("array-item-type-mismatch",
                      "array items have no common type (" + describe(item) + " and " + describe(t) + ")", e.range);
                ok = false;
                continue;
            }
            item = std::move(*common);
        }
        if (!ok) return unknown_type();
        if (e.children.empty()) return empty_array_type();
        return Type::array(std::move(item));
    }

    Type type_tuple(const ast::Expr& e) {
        std::vector<Type> items;
        for (const ast::Expr& c : e.children) items.push_back(type_expr(c));
        Type t = Type::tuple(std::move(items));
        bool tensors = false, attributes = false;
        for (const Type& i : t.items()) {
            Tensorness x = tensorness(i);
            tensors |= x == Tensorness::yes;
            attributes |= x == Tensorness::no;
        }
        if (tensors && attributes) {
            error("mixed-tuple", "tuple " + describe(t) + " mixes tensor and attribute items", e.range);
            return unknown_type();
        }
        return t;
    }

    Type operator_mismatch(const ast::Expr& e, const std::vector<Type>& operands) {
        std::string types;
        for (std::size_t i = 0; i < operands.size(); ++i) types += (i ? " and " : "") + describe(operands[i]);
        error("operator-type-mismatch", "operator '" + e.op + "' cannot be applied to " + types, e.range);
        return unknown_type();
    }

    Type type_unary(const ast::Expr& e) {
        if (e.children.empty()) return unknown_type();
        Type t = type_expr(e.children[0]);
        if (is_unknown(t)) return t;
        if (t.is_tensor()) {
            const char* f = unary_fragment(e.op);
            if (!f) return operator_mismatch(e, {t});
            return type_call(f, e, std::nullopt, {}, {Arg{t, e.children[0].range, {}, {}}});
        }
        if (e.op == "-" || e.op == "+") {
            if (is_numeric(t)) return t;
        } else if (e.op == "!") {
            if (is_prim(t, PrimType::logical)) return t;
        }
        return operator_mismatch(e, {t});
    }

    Type type_binary(const ast::Expr& e) {
        if (e.children.size() < 2) return unknown_type();
        Type a = type_expr(e.children[0]);
        Type b = type_expr(e.children[1]);
        const std::string& op = e.op;
        const Type logical = Type::primitive(PrimType::logical);
        if (op == "in") {
            if (is_unknown(b)) return logical;
            if (!b.is_array() || a.is_tensor()) return operator_mismatch(e, {a, b});
            if (!common_type(a, b.item())) return operator_mismatch(e, {a, b});
            return logical;
        }
        if (a.is_tensor() || b.is_tensor()) {
            const char* f = binary_fragment(op);
            if (!f) return operator_mismatch(e, {a, b});
            return type_call(f, e, std::nullopt, {},
                             {Arg{a, e.children[0].range, {}, {}}, Arg{b, e.children[1].range, {}, {}}});
        }
        const bool comparison = op == "<" || op == "<=" || op == ">" || op == ">=";
        const bool equality = op == "==" || op == "!=";
        const bool logic = op == "&&" || op == "||";
        if (is_unknown(a) || is_unknown(b)) {
            if (comparison || equality || logic) return logical;
            return unknown_type();
        }
        if (comparison) {
            if (is_numeric(a) && a == b) return logical;
            return operator_mismatch(e, {a, b});
        }
        if (equality) {
            if (a.is_primitive() && a == b) return logical;
            return operator_mismatch(e, {a, b});
        }
        if (logic) {
            if (is_prim(a, PrimType::logical) && is_prim(b, PrimType::logical)) return logical;
            return operator_mismatch(e, {a, b});
        }
        // Arithmetic.
        if (is_numeric(a) && a == b && (op == "+" || op == "-" || op == "*" || op == "/" || op == "^")) return a;
        if (op == "+") {
            if (is_prim(a, PrimType::string) && is_prim(b, PrimType::string)) return a;
            if (a.is_array() && b.is_array()) {
                if (auto c = common_type(a, b)) return *c;
            }
        } else if (op == "*") {
            if ((is_prim(a, PrimType::string) || a.is_array()) && is_prim(b, PrimType::integer)) return a;
        }
        return operator_mismatch(e, {a, b});
    }

    Type type_if_else(const ast::Expr& e) {
        if (e.children.size() < 3) return unknown_type();
        Type then_t = type_expr(e.children[0]);
        Type cond = type_expr(e.children[1]);
        Type else_t = type_expr(e.children[2]);
        if (!is_unknown(cond) && !is_prim(cond, PrimType::logical))
            error("condition-not-logical",
                  "the condition of an if-else must be a logical value, not " + describe(cond), e.children[1].range);
        auto common = common_type(then_t, else_t);
        if (!common) {
            error("branch-type-mismatch",
                  "the branches of an if-else have no common type (" + describe(then_t) + " and " + describe(else_t) + ")",
                  e.range);
            return unknown_type();
        }
        return *common;
    }

    Type type_comprehension(const ast::Expr& e) {
        const std::size_t n = e.names().size();
        const std::size_t need = n + (e.has_filter ? 1 : 0) + 1;
        if (e.children.size() < need) return unknown_type();
        std::vector<Type> items;
        for (std::size_t i = 0; i < n; ++i) {
            Type t = type_expr(e.children[i]);
            if (is_unknown(t)) {
                items.push_back(t);
            } else if (!t.is_array()) {
                error("comprehension-not-array",
                      "a comprehension iterates arrays; " + quoted(e.names()[i].text) + " iterates a value of type " +
                          describe(t),
                      e.children[i].range);
                items.push_back(unknown_type());
            } else {
                items.push_back(t.item());
            }
        }
        const std::size_t mark = locals_.size();
        for (std::size_t i = 0; i < n; ++i) locals_.emplace_back(e.names()[i].text.str(), items[i]);
        if (e.has_filter) {
            const ast::Expr& filter = e.children[n];
            Type f = type_expr(filter);
            if (!is_unknown(f) && !is_prim(f, PrimType::logical))
                error("condition-not-logical", "the filter of a comprehension must be a logical value, not " + describe(f),
                      filter.range);
        }
        Type y = type_expr(e.children.back());
        locals_.resize(mark);
        return Type::array(std::move(y));
    }

    void check_index(const ast::Expr& index) {
        Type t = type_expr(index);
        if (!is_unknown(t) && !is_prim(t, PrimType::integer))
            error("index-not-integer", "an index must be an integer, not " + describe(t), index.range);
    }

    Type type_subscript(const ast::Expr& e) {
        if (e.children.size() < 2) return unknown_type();
        Type obj = type_expr(e.children[0]);
        const ast::Expr& index = e.children[1];
        if (obj.is_tuple()) {
            const ast::Expr& lit = strip_parens(index);
            if (lit.kind != ast::ExprKind::integer) {
                type_expr(index);
                error("tuple-index-not-literal", "a tuple may only be subscripted by an integer literal", index.range);
                return unknown_type();
            }
            if (lit.ival < 0 || static_cast<std::uint64_t>(lit.ival) >= obj.items().size()) {
                error("tuple-index-out-of-range",
                      "index " + std::to_string(lit.ival) + " is out of range for a tuple of " +
                          std::to_string(obj.items().size()) + " items",
                      index.range);
                return unknown_type();
            }
            return obj.items()[static_cast<std::size_t>(lit.ival)];
        }
        check_index(index);
        if (is_unknown(obj)) return obj;
        if (obj.is_array()) return obj.item();
        if (is_prim(obj, PrimType::string)) return obj;
        error("subscript-type-mismatch",
              std::string("a value of type ") + describe(obj) + " cannot be subscripted" +
                  (obj.is_tensor() ? " (tensors have no subscripts)" : ""),
              e.range);
        return unknown_type();
    }

    Type type_range(const ast::Expr& e) {
        if (e.children.empty()) return unknown_type();
        Type obj = type_expr(e.children[0]);
        for (std::size_t i = 1; i < e.children.size(); ++i) check_index(e.children[i]);
        if (is_unknown(obj)) return obj;
        if (obj.is_array() || is_prim(obj, PrimType::string)) return obj;
        if (obj.is_tuple()) {
            error("tuple-subscript-range", "a tuple cannot be subscripted by a range", e.range);
            return unknown_type();
        }
        error("subscript-type-mismatch",
              std::string("a value of type ") + describe(obj) + " cannot be sliced" +
                  (obj.is_tensor() ? " (tensors have no subscripts)" : ""),
              e.range);
        return unknown_type();
    }

    Type type_builtin(const ast::Expr& e) {
        if (e.children.empty()) return unknown_type();
        Type t = type_expr(e.children[0]);
        const std::string& f = e.text;
        const Type integer = Type::primitive(PrimType::integer);
        auto mismatch = [&](const char* expected) {
            error("builtin-type-mismatch", f + "() takes " + expected + ", not " + describe(t), e.children[0].range);
            return unknown_type();
        };
        if (f == "shape_of") {
            if (!is_unknown(t) && !t.is_tensor() && !t.is_primitive()) return mismatch("a tensor or a primitive value");
            return Type::array(integer);
        }
        if (f == "length_of" || f == "range_of") {
            if (!is_unknown(t) && !t.is_array() && !is_prim(t, PrimType::string)) return mismatch("an array or a string");
            return f == "length_of" ? integer : Type::array(integer);
        }
        PrimType target = PrimType::none;
        if (f == "integer") target = PrimType::integer;
        else if (f == "scalar") target = PrimType::scalar;
        else if (f == "logical") target = PrimType::logical;
        else if (f == "string") target = PrimType::string;
        else {
            error("unknown-builtin", "unknown built-in function " + quoted(f), e.range);
            return unknown_type();
        }
        if (!is_unknown(t) && !t.is_primitive()) return mismatch("a primitive value");
        return Type::primitive(target);
    }

    // ---- invocations ------------------------------------------------------------------------
    Type type_invocation(const ast::Expr& e) {
        std::vector<Arg> args;
        args.reserve(e.children.size());
        for (std::size_t i = 0; i < e.children.size(); ++i) {
            Arg a;
            a.type = type_expr(e.children[i]);
            a.range = e.children[i].range;
            a.name = e.arg_name(i);
            a.name_range = e.arg_name_range(i);
            if (!a.name_range.valid()) a.name_range = a.range;
            args.push_back(std::move(a));
        }
        if (e.text == "external") {
            if (fragment_ && !in_graph_) {
                error("external-in-fragment", "'external' cannot be used in a fragment", e.range);
            } else if (in_graph_ && allowed_external_ != &e) {
                error("external-not-parameter", "'external' must be the whole right-hand side defining a graph parameter",
                      e.range);
            }
        }
        return type_call(e.text, e, e.generic(), e.generic_range(), args);
    }

    // Types an invocation of `name` (explicit, or the fragment a tensor operator maps to).
    // The declaration `name` resolves to. Names are views into the source (or static text), which
    // outlives the checker: the memo is keyed by them.
    const ast::Fragment* find_fragment(std::string_view name) {
        auto it = fragment_memo_.find(name);
        if (it != fragment_memo_.end()) return it->second;
        const ast::Fragment* f = program_.find(std::string(name));
        if (f) fragment_memo_.emplace(name, f);
        return f;
    }

    Type type_call(ast::Text name, const ast::Expr& e, const std::optional<Type>& explicit_generic,
                   SourceRange generic_range, const std::vector<Arg>& args) {
        const ast::Fragment* decl = find_fragment(name);
        if (!decl) {
            std::string msg = "unknown operation " + quoted(name);
            if (e.kind != ast::ExprKind::invocation) msg = "operator '" + e.op + "' needs operation " + quoted(name) + ", which is not declared";
            else if (opts_.strict && is_later_revision_name(name))
                msg += " (a later NNEF 1.0 revision operation, not part of revision 3)";
            else {
                detail::ClosestName close(name);
                for (const auto& [fragment, decl_] : program_.fragments) close.consider(fragment);
                msg += close.suffix();
            }
            error("unknown-operation", msg, e.range);
            return unknown_type();
        }
        const auto& params = decl->params;
        bool ok = true;

        // Explicit generic argument.
        std::optional<PrimType> binding;
        if (explicit_generic) {
            if (!explicit_generic->is_primitive()) {
                error("invalid-generic-argument", "the generic argument must be a primitive type", generic_range);
                ok = false;
            } else if (!decl->generic) {
                error("generic-on-non-generic",
                      "operation " + quoted(name) + " is not generic and takes no <" + describe(*explicit_generic) + ">",
                      generic_range);
            } else if (explicit_generic->prim() == PrimType::generic && !(fragment_ && fragment_->generic)) {
                error("undeclared-generic", "<?> can only be used inside a generic fragment", generic_range);
                ok = false;
            } else {
                binding = explicit_generic->prim();
            }
        }

        // Arguments to parameters.
        boost::container::small_vector<int, 16> assigned(params.size(), -1);
        boost::container::small_vector<bool, 16> misplaced(params.size(), false);  // attribute given positionally (reported)
        std::size_t position = 0;
        bool named_seen = false, too_many = false, misordered = false;
        for (std::size_t i = 0; i < args.size(); ++i) {
            const Arg& a = args[i];
            if (a.name.empty()) {
                if (named_seen) {
                    error("positional-after-named", "positional arguments must precede named arguments", a.range);
                    ok = false;
                    misordered = true;  // which parameter it meant is unknown: no missing-argument cascade
                    continue;
                }
                if (position >= params.size()) {
                    if (!too_many)
                        error("too-many-arguments", "too many arguments for " + quoted(name) + ", which takes " +
                                                        std::to_string(params.size()),
                              a.range);
                    too_many = true;
                    ok = false;
                    continue;
                }
                const std::size_t p = position++;
                misplaced[p] = !params[p].type.contains_tensor();
                if (misplaced[p])
                    error("positional-attribute",
                          "attribute " + quoted(params[p].name) + " of " + quoted(name) +
                              " must be passed as a named argument",
                          a.range);
                assigned[p] = static_cast<int>(i);
            } else {
                named_seen = true;
                auto it = std::find_if(params.begin(), params.end(),
                                       [&](const ast::Param& p) { return p.name == a.name; });
                if (it == params.end()) {
                    detail::ClosestName close(a.name);
                    for (const ast::Param& p : params) close.consider(p.name);
                    error("unknown-argument", quoted(name) + " has no parameter named " + quoted(a.name) + close.suffix(),
                          a.name_range);
                    continue;
                }
                const std::size_t p = static_cast<std::size_t>(it - params.begin());
                if (assigned[p] >= 0) {
                    error("duplicate-argument", "parameter " + quoted(a.name) + " of " + quoted(name) + " is given twice",
                          a.name_range);
                    continue;
                }
                assigned[p] = static_cast<int>(i);
            }
        }
        auto shadowed = [&](std::size_t p) {  // a repeated parameter name (reported at the declaration)
            for (std::size_t q = 0; q < p; ++q)
                if (params[q].name == params[p].name) return true;
            return false;
        };
        for (std::size_t p = 0; p < params.size(); ++p)
            if (assigned[p] < 0 && !params[p].default_value && !shadowed(p) && !misordered) {
                error("missing-argument", quoted(name) + " needs a value for parameter " + quoted(params[p].name), e.range);
                ok = false;
            }

        // Generic binding: explicit, else the declared default, else deduced (spec 3.3.2).
        if (decl->generic && !binding && !explicit_generic && decl->generic_default) {
            binding = *decl->generic_default;
        } else if (decl->generic && !binding && !explicit_generic) {
            std::vector<std::pair<Type, Type>> pairs;
            bool erroneous_arg = false;  // an argument whose error is already reported
            for (std::size_t p = 0; p < params.size(); ++p) {
                if (assigned[p] < 0) continue;
                pairs.emplace_back(args[assigned[p]].type, params[p].type);
                erroneous_arg |= params[p].type.is_generic() && is_unknown(args[assigned[p]].type);
            }
            Deduction d = resolve_generic(std::nullopt, decl->generic_default, pairs);
            if (d.status == Deduction::Status::unique) {
                binding = d.binding;
            } else if (d.status == Deduction::Status::ambiguous) {
                std::string c;
                for (std::size_t i = 0; i < d.candidates.size(); ++i)
                    c += (i ? ", " : "") + std::string(to_string(d.candidates[i]));
                error("ambiguous-generic", "the generic type of " + quoted(name) + " is ambiguous (candidates: " + c + ")",
                      e.range);
                ok = false;
            } else {
                if (!erroneous_arg)
                    error("undeducible-generic",
                          "the generic type of " + quoted(name) + " cannot be deduced from the arguments; give it as " +
                              name + "<type>",
                          e.range);
                ok = false;
            }
        }
        const bool bound = !decl->generic || binding.has_value();
        const PrimType b = binding.value_or(PrimType::none);

        // Argument types.
        if (bound) {
            for (std::size_t p = 0; p < params.size(); ++p) {
                if (assigned[p] < 0 || misplaced[p]) continue;
                const Arg& a = args[assigned[p]];
                Type target = params[p].type.bind(b);
                if (castable(a.type, target, true)) continue;
                const std::string what =
                    e.kind == ast::ExprKind::invocation
                        ? "argument " + quoted(params[p].name) + " of " + quoted(name)
                        : "operand " + std::to_string(assigned[p] + 1) + " of '" + e.op + "' (operation " + quoted(name) +
                              " on tensors)";
                error("argument-type-mismatch",
                      what + " has type " + describe(a.type) + ", expected " + describe(target), a.range);
            }
            // Defaults of generic parameters against the binding (e.g. `v: ? = 0.0` with <integer>).
            if (decl->generic)
                for (std::size_t p = 0; p < params.size(); ++p) {
                    if (assigned[p] >= 0 || !params[p].default_value || !params[p].type.is_generic()) continue;
                    Type t = default_type(params[p], false);
                    Type target = params[p].type.bind(b);
                    if (!castable(t, target, true))
                        error("default-type-mismatch",
                              "the default value of " + quoted(params[p].name) + " of " + quoted(name) + " has type " +
                                  describe(t) + ", which does not match " + describe(target) + "; pass " +
                                  quoted(params[p].name) + " explicitly",
                              e.range);
                }
        }

        if (!ok || !bound) return unknown_type();
        if (decl->results.size() == 1) return decl->results[0].type.bind(b);
        std::vector<Type> items;
        for (const ast::Result& r : decl->results) items.push_back(r.type.bind(b));
        return Type::tuple(std::move(items));
    }

    // ---- state ------------------------------------------------------------------------------
    const ast::Document& doc_;
    std::shared_ptr<const Stdlib> stdlib_;
    const Options& opts_;
    Diagnostics* diags_;
    Program program_;
    Scope graph_scope_;
    std::vector<ast::Identifier> graph_params_;
    std::vector<ast::Identifier> graph_results_;

    Scope empty_scope_;
    Scope* scope_ = &empty_scope_;
    std::vector<std::pair<std::string, Type>> locals_;  // comprehension loop variables
    const ast::Fragment* fragment_ = nullptr;            // the fragment being checked
    bool in_graph_ = false;
    const ast::Expr* allowed_external_ = nullptr;  // the `external` call defining a graph parameter
    bool rhs_is_external_ = false;
    std::unordered_set<std::string> undefined_reported_;  // per body
    std::unordered_map<const ast::Param*, Type> default_types_;         // checked declarations
    std::unordered_map<const ast::Param*, Type> silent_default_types_;  // computed without diagnostics
    std::unordered_map<std::string_view, const ast::Fragment*> fragment_memo_;
};

}  // namespace checker_cpp

Checking::Checking(const ast::Document& doc, std::shared_ptr<const Stdlib> stdlib, const Options& opts,
                   Diagnostics& diags)
    : impl_(std::make_unique<checker_cpp::Checker>(doc, std::move(stdlib), opts, diags)) {}
Checking::~Checking() = default;
void Checking::check_declarations() { impl_->check_declarations(); }
const Program& Checking::program() const { return impl_->program(); }
Program Checking::take_program() { return std::move(impl_->program()); }
void Checking::begin_graph(const ast::GraphDef& header) { impl_->begin_graph(header); }
void Checking::statement(const ast::Assignment& a) { impl_->statement(a); }
void Checking::end_graph() { impl_->end_graph(); }

Program check(const ast::Document& doc, std::shared_ptr<const Stdlib> stdlib, const Options& opts,
              Diagnostics& diags) {
    return detail::on_deep_stack([&] {
        Checking checking(doc, std::move(stdlib), opts, diags);
        checking.check_declarations();
        if (doc.graph && !diags.limit_reached()) {
            checking.begin_graph(*doc.graph);
            for (const ast::Assignment& a : doc.graph->body) checking.statement(a);
            checking.end_graph();
        }
        return checking.take_program();
    });
}

}  // namespace nnef::sema
