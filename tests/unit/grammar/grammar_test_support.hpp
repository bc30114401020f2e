// Helpers for the grammar unit tests: parse a text, print expressions as s-expressions, find the
// first diagnostic with its line and column.
#pragma once
#include <memory>
#include <optional>
#include <string>

#include "grammar/parse.hpp"
#include "test_support.hpp"

namespace grammar_test {

struct Parsed {
    nnef::SourceManager sm;
    std::uint32_t file = 0;
    nnef::Diagnostics diags;
    std::optional<nnef::ast::Document> doc;

    bool ok() const { return doc.has_value() && !diags.has_errors(); }
    const nnef::Diagnostic* first(nnef::Severity s) const {
        for (const auto& d : diags)
            if (d.severity == s) return &d;
        return nullptr;
    }
    const nnef::Diagnostic* error() const { return first(nnef::Severity::error); }
    const nnef::Diagnostic* warning() const { return first(nnef::Severity::warning); }
    nnef::LineCol at(const nnef::Diagnostic& d) const { return sm.begin(d.range); }
    std::string rendered() const {
        std::string out;
        for (const auto& d : diags) out += nnef::render(d, sm, false) + "\n";
        return out;
    }
    // Text covered by a range.
    std::string text(nnef::SourceRange r) const { return std::string(sm.text(file).substr(r.begin, r.end - r.begin)); }
};

struct Mode {
    bool strict = false;
    bool stdlib = false;
    std::size_t max_nesting = 512;
    std::size_t max_string_length = 1 << 20;
};

inline std::unique_ptr<Parsed> parse(const std::string& text, Mode mode = {}) {
    auto p = std::make_unique<Parsed>();
    p->file = p->sm.add("test.nnef", text);
    nnef::grammar::ParseOptions opts;
    opts.options.strict = mode.strict;
    opts.options.limits.max_nesting = mode.max_nesting;
    opts.options.limits.max_string_length = mode.max_string_length;
    opts.stdlib = mode.stdlib;
    p->doc = nnef::grammar::parse(p->sm, p->file, opts, p->diags);
    return p;
}

// A compositional document whose graph body is `y = <rhs>;` on line 4, column 9.
inline std::string compositional(const std::string& rhs) {
    return "version 1.0;\nextension KHR_enable_fragment_definitions KHR_enable_operator_expressions;\n"
           "graph G( x ) -> ( y ) {\n    y = " + rhs + ";\n}\n";
}
// A flat document whose graph body is `y = <rhs>;` on line 3, column 9.
inline std::string flat(const std::string& rhs) {
    return "version 1.0;\ngraph G( x ) -> ( y ) {\n    y = " + rhs + ";\n}\n";
}

inline std::string sexpr(const nnef::ast::Expr& e);

inline std::string join_children(const nnef::ast::Expr& e, std::size_t from = 0) {
    std::string out;
    for (std::size_t i = from; i < e.children.size(); ++i) out += " " + sexpr(e.children[i]);
    return out;
}

// (+ 1 2), (- x), (if-else then cond else), (at a i), (range a 1 _), [1 2], (tuple a b),
// (call f<scalar> x k=1), (shape_of x), (paren x), (for (i xs) (j ys) if c yield e).
inline std::string sexpr(const nnef::ast::Expr& e) {
    using K = nnef::ast::ExprKind;
    switch (e.kind) {
        case K::integer:
        case K::scalar:
        case K::identifier: return e.text;
        case K::logical: return e.bval ? "true" : "false";
        case K::string: return "'" + e.text + "'";
        case K::array: return "[" + (e.children.empty() ? std::string() : join_children(e).substr(1)) + "]";
        case K::tuple: return "(tuple" + join_children(e) + ")";
        case K::unary:
        case K::binary: return "(" + e.op + join_children(e) + ")";
        case K::if_else: return "(if-else" + join_children(e) + ")";
        case K::subscript: return "(at" + join_children(e) + ")";
        case K::range: {
            std::string out = "(range " + sexpr(e.children[0]);
            std::size_t i = 1;
            out += e.has_begin ? " " + sexpr(e.children[i++]) : std::string(" _");
            out += e.has_end ? " " + sexpr(e.children[i++]) : std::string(" _");
            return out + ")";
        }
        case K::builtin: return "(" + e.text + join_children(e) + ")";
        case K::paren: return "(paren" + join_children(e) + ")";
        case K::invocation: {
            std::string out = "(call " + e.text;
            if (e.generic()) out += "<" + nnef::to_string(*e.generic()) + ">";
            for (std::size_t i = 0; i < e.children.size(); ++i)
                out += " " + (e.arg_name(i).empty() ? std::string() : e.arg_name(i) + "=") + sexpr(e.children[i]);
            return out + ")";
        }
        case K::comprehension: {
            std::string out = "(for";
            for (std::size_t i = 0; i < e.names().size(); ++i) out += " (" + e.names()[i].text + " " + sexpr(e.children[i]) + ")";
            if (e.has_filter) out += " if " + sexpr(e.children[e.names().size()]);
            return out + " yield " + sexpr(e.children.back()) + ")";
        }
    }
    return "?";
}

// The right-hand side of the last assignment of the graph.
inline const nnef::ast::Expr& rhs(const Parsed& p) { return p.doc->graph->body.back().rhs; }

}  // namespace grammar_test
