// Expression rules of the compositional grammar (spec A.2, 3.2.3). Included only by
// grammar/document.cpp (through document_def.hpp).
//
// Primaries (literals, identifiers, invocations, built-ins, parentheses, tuples, arrays,
// comprehensions) are X3 rules whose semantic actions build ast::Expr in place. Operators are parsed
// by one X3 parser component (operator_expr_parser) with precedence climbing, so that a plain
// operand like `1` or `x` costs one primary call instead of one rule per precedence level.
//
// Precedence, lowest to highest (SPEC_NOTES 5): if-else; `in`; `&&` `||`; comparisons; `+ -`;
// `* /`; unary `+ - !`; `^` (right-associative, its right operand may carry a unary sign);
// postfix subscripts.
#pragma once
#include <boost/spirit/home/x3.hpp>

#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <string>
#include <utility>

#include <nnef/value.hpp>
#include "grammar/ast.hpp"
#include "grammar/config.hpp"
#include "grammar/parse_state.hpp"
#include "grammar/tokens.hpp"

namespace nnef::grammar {
namespace x3 = boost::spirit::x3;

namespace rules {

// ---- token parsers -------------------------------------------------------------------------
tokens::identifier_parser const identifier{false};
tokens::identifier_parser const name{true};  // an identifier is required here: keywords are errors
tokens::number_parser const number{};
tokens::string_parser const string_literal{};
tokens::punct_parser const lparen{'('};
tokens::punct_parser const rparen{')'};
tokens::punct_parser const lbracket{'['};
tokens::punct_parser const rbracket{']'};
tokens::punct_parser const semicolon{';'};
tokens::keyword_parser const kw_true{"true"};
tokens::keyword_parser const kw_false{"false"};
tokens::keyword_parser const kw_for{"for"};
tokens::keyword_parser const kw_in{"in"};
tokens::keyword_parser const kw_if{"if"};
tokens::keyword_parser const kw_else{"else"};
tokens::keyword_parser const kw_yield{"yield"};
inline constexpr const char* builtin_names[] = {"shape_of", "length_of", "range_of", "integer",
                                                "scalar",   "logical",   "string"};
tokens::keyword_set_parser<7> const builtin_name{builtin_names};
tokens::nest_gen const nest{};

// A primitive type name of spec 3.2.2 (without `tensor`): integer scalar logical string `?`.
struct prim_token {
    PrimType type = PrimType::none;
    Span span;
};
struct prim_type_parser : x3::parser<prim_type_parser> {
    using attribute_type = prim_token;

    template <class It, class Ctx, class RCtx, class Attr>
    bool parse(It& first, It const& last, Ctx const& ctx, RCtx&, Attr& attr) const {
        x3::skip_over(first, last, ctx);
        if (first == last) return false;
        if (*first == '?') {
            tokens::assign(attr, prim_token{PrimType::generic, Span{first, first + 1}});
            ++first;
            return true;
        }
        It p = first;
        while (p != last && tokens::is_ident_char(*p)) ++p;
        std::string_view word(first, static_cast<std::size_t>(p - first));
        PrimType t;
        if (word == "integer") t = PrimType::integer;
        else if (word == "scalar") t = PrimType::scalar;
        else if (word == "logical") t = PrimType::logical;
        else if (word == "string") t = PrimType::string;
        else return false;
        tokens::assign(attr, prim_token{t, Span{first, p}});
        first = p;
        return true;
    }
};
prim_type_parser const prim_type{};

// `name<word>(` where word is not a type name: an unknown type in an explicit generic argument.
// (Only reached when `<type>` did not match; `a < b > (c)` is not a meaningful comparison chain.)
struct unknown_generic_parser : x3::parser<unknown_generic_parser> {
    using attribute_type = x3::unused_type;
    static bool const has_attribute = false;

    template <class It, class Ctx, class RCtx, class Attr>
    bool parse(It& first, It const& last, Ctx const& ctx, RCtx&, Attr&) const {
        It p = first;
        x3::skip_over(p, last, ctx);
        if (p == last || *p != '<') return false;
        ++p;
        x3::skip_over(p, last, ctx);
        It word = p;
        while (p != last && tokens::is_ident_char(*p)) ++p;
        It word_end = p;
        if (word == word_end) return false;
        x3::skip_over(p, last, ctx);
        if (p == last || *p != '>') return false;
        ++p;
        x3::skip_over(p, last, ctx);
        if (p == last || *p != '(') return false;
        throw SyntaxError{word, "unknown-type-name",
                          "unknown type name '" + std::string(word, word_end) +
                              "' in generic argument (expected integer, scalar, logical, string or ?)",
                          word_end};
    }
};

// One invocation argument: `value` or `name = value`.
struct Argument {
    Span name;
    bool named = false;
    ast::Expr value;
};

// ---- rules ---------------------------------------------------------------------------------
using expr_type = x3::rule<class expr_class, ast::Expr>;
expr_type const expr = "expression";
// An expression without a trailing if-else (comprehension iterables: `if` starts the filter).
x3::rule<class iter_expr_class, ast::Expr> const iter_expr = "expression";
x3::rule<class primary_class, ast::Expr> const primary = "expression";
x3::rule<class number_lit_class, ast::Expr> const number_lit = "numeric literal";
x3::rule<class string_lit_class, ast::Expr> const string_lit = "string literal";
x3::rule<class logical_lit_class, ast::Expr> const logical_lit = "logical literal";
x3::rule<class builtin_call_class, ast::Expr> const builtin_call = "built-in function call";
x3::rule<class paren_or_tuple_class, ast::Expr> const paren_or_tuple = "parenthesized expression";
x3::rule<class array_class, ast::Expr> const array_or_comprehension = "array";
x3::rule<class ident_or_call_class, ast::Expr> const ident_or_call = "identifier";
x3::rule<class argument_class, Argument> const argument = "argument";

// ---- semantic actions ----------------------------------------------------------------------
namespace act {

template <class Ctx>
ParseState& state(Ctx const& ctx) {
    return x3::get<state_tag>(ctx);
}

inline std::int64_t parse_integer(const ParseState&, Span s) {
    std::int64_t v = 0;
    auto r = std::from_chars(s.b, s.e, v);
    if (r.ec != std::errc() || r.ptr != s.e)
        throw SyntaxError{s.b, "invalid-number", "integer literal '" + std::string(s.b, s.e) + "' is out of range", s.e};
    return v;
}

inline double parse_scalar(Span s) {
    double v = 0.0;
    auto r = std::from_chars(s.b, s.e, v);
    if (r.ec == std::errc() && r.ptr == s.e) return v;
    // Out of range: overflow is an error, underflow reads as the nearest representable value.
    std::string text(s.b, s.e);
    errno = 0;
    v = std::strtod(text.c_str(), nullptr);
    if (errno == ERANGE && (v > 1.0 || v < -1.0))
        throw SyntaxError{s.b, "invalid-number", "scalar literal '" + text + "' is out of range", s.e};
    return v;
}

inline auto const set_number = [](auto& ctx) {
    ast::Expr& e = x3::_val(ctx);
    tokens::number_token const& t = x3::_attr(ctx);
    ParseState& st = state(ctx);
    e.range = st.range(t.span);
    e.text = std::string_view(t.span.b, static_cast<std::size_t>(t.span.e - t.span.b));
    if (t.real) {
        e.kind = ast::ExprKind::scalar;
        e.sval = parse_scalar(t.span);
    } else {
        e.kind = ast::ExprKind::integer;
        e.ival = parse_integer(st, t.span);
    }
};

inline auto const set_string = [](auto& ctx) {
    ast::Expr& e = x3::_val(ctx);
    auto& t = x3::_attr(ctx);
    e.kind = ast::ExprKind::string;
    e.range = state(ctx).range(t.span);
    e.text = t.value;
};

inline auto const set_true = [](auto& ctx) {
    ast::Expr& e = x3::_val(ctx);
    e.kind = ast::ExprKind::logical;
    e.bval = true;
    e.range = state(ctx).range(x3::_attr(ctx));
};
inline auto const set_false = [](auto& ctx) {
    ast::Expr& e = x3::_val(ctx);
    e.kind = ast::ExprKind::logical;
    e.bval = false;
    e.range = state(ctx).range(x3::_attr(ctx));
};

inline auto const set_identifier = [](auto& ctx) {
    ast::Expr& e = x3::_val(ctx);
    Span s = x3::_attr(ctx);
    e.kind = ast::ExprKind::identifier;
    e.text = std::string_view(s.b, static_cast<std::size_t>(s.e - s.b));
    e.range = state(ctx).range(s);
};

inline auto const set_generic = [](auto& ctx) {
    ast::Expr& e = x3::_val(ctx);
    prim_token const& t = x3::_attr(ctx);
    e.generic_type = t.type;
    e.generic_range_ = state(ctx).range(t.span);
};

// Children and names go to the parse state's scratch runs until the node is complete (end_node).
inline auto const begin_call = [](auto& ctx) {
    ast::Expr& e = x3::_val(ctx);
    ParseState& st = state(ctx);
    e.kind = ast::ExprKind::invocation;
    st.begin_children(e);
    st.begin_names(e);
};

inline auto const push_argument = [](auto& ctx) {
    ParseState& st = state(ctx);
    Argument& a = x3::_attr(ctx);
    if (a.named)
        st.scratch_names.push_back(
            ast::Name{std::string_view(a.name.b, static_cast<std::size_t>(a.name.e - a.name.b)), st.range(a.name)});
    else
        st.scratch_names.push_back(ast::Name{});
    st.scratch.push_back(a.value);
};

inline auto const set_arg_name = [](auto& ctx) {
    Argument& a = x3::_val(ctx);
    a.name = x3::_attr(ctx);
    a.named = true;
};
inline auto const set_arg_value = [](auto& ctx) { x3::_val(ctx).value = std::move(x3::_attr(ctx)); };

// Sets the end of the node's range to just after the closing punctuation in _attr. The node is
// complete: its children (and names) move from the scratch runs into the arena.
inline auto const end_node = [](auto& ctx) {
    ast::Expr& e = x3::_val(ctx);
    ParseState& st = state(ctx);
    const char* p = x3::_attr(ctx);
    e.range.end = st.range(p, p + 1).end;
    st.finish_children(e);
    if (e.kind == ast::ExprKind::invocation || e.kind == ast::ExprKind::comprehension) st.finish_names(e);
};

inline auto const begin_builtin = [](auto& ctx) {
    ast::Expr& e = x3::_val(ctx);
    tokens::keyword_choice const& k = x3::_attr(ctx);
    e.kind = ast::ExprKind::builtin;
    e.text = std::string_view(k.span.b, static_cast<std::size_t>(k.span.e - k.span.b));
    e.range = state(ctx).range(k.span);
    state(ctx).begin_children(e);
};

inline auto const push_child = [](auto& ctx) { state(ctx).scratch.push_back(x3::_attr(ctx)); };

// `(` or `[`: starts a parenthesized expression, a tuple or an array.
inline auto const begin_bracket = [](auto& ctx) {
    ast::Expr& e = x3::_val(ctx);
    ParseState& st = state(ctx);
    const char* p = x3::_attr(ctx);
    e.range = st.range(p, p + 1);
    st.begin_children(e);
};
inline auto const begin_paren = [](auto& ctx) {
    begin_bracket(ctx);
    x3::_val(ctx).kind = ast::ExprKind::paren;
};
inline auto const begin_array = [](auto& ctx) {
    begin_bracket(ctx);
    x3::_val(ctx).kind = ast::ExprKind::array;
};
inline auto const end_paren_or_tuple = [](auto& ctx) {
    end_node(ctx);
    ast::Expr& e = x3::_val(ctx);
    e.kind = e.children.size() > 1 ? ast::ExprKind::tuple : ast::ExprKind::paren;
};

inline auto const begin_comprehension = [](auto& ctx) {
    x3::_val(ctx).kind = ast::ExprKind::comprehension;
    state(ctx).begin_names(x3::_val(ctx));
};
inline auto const push_loop_name = [](auto& ctx) {
    ParseState& st = state(ctx);
    Span s = x3::_attr(ctx);
    st.scratch_names.push_back(ast::Name{std::string_view(s.b, static_cast<std::size_t>(s.e - s.b)), st.range(s)});
};
inline auto const set_filter = [](auto& ctx) {
    x3::_val(ctx).has_filter = true;
    state(ctx).scratch.push_back(x3::_attr(ctx));
};

}  // namespace act

// ---- the operator parser -------------------------------------------------------------------
namespace ops {

struct binop {
    const char* text = nullptr;
    std::uint8_t len = 0;
    std::uint8_t prec = 0;  // 1 `in`, 2 `&& ||`, 3 comparisons, 4 `+ -`, 5 `* /`
    explicit operator bool() const { return text != nullptr; }
};

inline binop peek_binop(const char* p, const char* last) {
    if (p == last) return {};
    char c = *p;
    char n = p + 1 != last ? p[1] : '\0';
    switch (c) {
        case '+': return {"+", 1, 4};
        case '-': return n == '>' ? binop{} : binop{"-", 1, 4};
        case '*': return {"*", 1, 5};
        case '/': return {"/", 1, 5};
        case '<': return n == '=' ? binop{"<=", 2, 3} : binop{"<", 1, 3};
        case '>': return n == '=' ? binop{">=", 2, 3} : binop{">", 1, 3};
        case '=': return n == '=' ? binop{"==", 2, 3} : binop{};
        case '!': return n == '=' ? binop{"!=", 2, 3} : binop{};
        case '&': return n == '&' ? binop{"&&", 2, 2} : binop{};
        case '|': return n == '|' ? binop{"||", 2, 2} : binop{};
        case 'i':
            if (n == 'n' && (p + 2 == last || !tokens::is_ident_char(p[2]))) return {"in", 2, 1};
            return {};
        default: return {};
    }
}

inline ast::Expr make_node(ast::ExprKind kind, const char* op, std::size_t op_len, SourceRange range) {
    ast::Expr node;
    node.kind = kind;
    node.op = ast::OpName(std::string_view(op, op_len));
    node.range = range;
    return node;
}

// Restores the nesting depth on scope exit (nodes built in one expression count as nesting).
struct DepthRestore {
    ParseState& st;
    std::size_t saved;
    ~DepthRestore() { st.depth = saved; }
};

template <class It>
[[noreturn]] inline void expected(It where, const char* what) {
    boost::throw_exception(x3::expectation_failure<It>(where, what));
}

struct operator_expr_parser : x3::parser<operator_expr_parser> {
    using attribute_type = ast::Expr;
    bool allow_if_else = true;
    constexpr explicit operator_expr_parser(bool if_else) : allow_if_else(if_else) {}

    template <class It, class Ctx, class RCtx, class Attr>
    bool parse(It& first, It const& last, Ctx const& ctx, RCtx& rctx, Attr& attr) const {
        if constexpr (std::is_same_v<Attr, x3::unused_type>) {
            ast::Expr scratch;
            return parse(first, last, ctx, rctx, scratch);
        } else {
            ParseState& st = x3::get<state_tag>(ctx);
            It const save = first;
            x3::skip_over(first, last, ctx);
            NestGuard guard(st, first);
            DepthRestore restore{st, st.depth};
            ast::Expr& out = attr;
            if (!parse_binary(first, last, ctx, st, out, 1)) {
                first = save;
                return false;
            }
            if (allow_if_else) {
                It before = first;
                if (kw_if.parse(first, last, ctx, x3::unused, x3::unused)) {
                    NestGuard::enter(st, before);
                    parse_if_else(first, last, ctx, st, out);
                } else {
                    first = before;
                }
            }
            return true;
        }
    }

    // `then if cond else other`, after `if`. Out of line (and so are the other rarely taken paths
    // with Expr locals) to keep the frames of the recursive path small: nesting costs stack.
    template <class It, class Ctx>
    BOOST_NOINLINE void parse_if_else(It& first, It const& last, Ctx const& ctx, ParseState& st, ast::Expr& out) const {
        ast::Expr cond;
        ast::Expr other;
        if (!expr.parse(first, last, ctx, x3::unused, cond)) expected(first, "condition after 'if'");
        if (!kw_else.parse(first, last, ctx, x3::unused, x3::unused)) expected(first, "'else'");
        if (!expr.parse(first, last, ctx, x3::unused, other)) expected(first, "expression after 'else'");
        ast::Expr node = make_node(ast::ExprKind::if_else, "", 0, SourceRange{st.file, out.range.begin, other.range.end});
        node.children = st.children({out, cond, other});
        out = node;
    }

    // Left-associative binary operators of precedence >= min_prec.
    template <class It, class Ctx>
    bool parse_binary(It& first, It const& last, Ctx const& ctx, ParseState& st, ast::Expr& lhs, int min_prec) const {
        if (!parse_unary(first, last, ctx, st, lhs)) return false;
        parse_binary_tail(first, last, ctx, st, lhs, min_prec);
        return true;
    }

    template <class It, class Ctx>
    BOOST_NOINLINE void parse_binary_tail(It& first, It const& last, Ctx const& ctx, ParseState& st, ast::Expr& lhs,
                                          int min_prec) const {
        for (;;) {
            It before = first;
            x3::skip_over(first, last, ctx);
            binop op = peek_binop(first, last);
            if (!op || op.prec < min_prec) {
                first = before;
                return;
            }
            It op_pos = first;
            first += op.len;
            NestGuard::enter(st, op_pos);
            ast::Expr rhs;
            if (!parse_binary(first, last, ctx, st, rhs, op.prec + 1)) {
                x3::skip_over(first, last, ctx);
                expected(first, "expression");
            }
            ast::Expr node = make_node(ast::ExprKind::binary, op.text, op.len,
                                       SourceRange{st.file, lhs.range.begin, rhs.range.end});
            node.children = st.children({lhs, rhs});
            lhs = node;
        }
    }

    // Prefix `+ - !`, then a power expression.
    template <class It, class Ctx>
    bool parse_unary(It& first, It const& last, Ctx const& ctx, ParseState& st, ast::Expr& out) const {
        It before = first;
        x3::skip_over(first, last, ctx);
        if (first != last) {
            char c = *first;
            char n = first + 1 != last ? first[1] : '\0';
            if ((c == '-' && n != '>') || c == '+' || (c == '!' && n != '=')) {
                parse_prefix(first, last, ctx, st, out);
                return true;
            }
        }
        first = before;
        return parse_power(first, last, ctx, st, out);
    }

    template <class It, class Ctx>
    BOOST_NOINLINE void parse_prefix(It& first, It const& last, Ctx const& ctx, ParseState& st, ast::Expr& out) const {
        It op_pos = first;
        ++first;
        NestGuard::enter(st, op_pos);
        ast::Expr operand;
        if (!parse_unary(first, last, ctx, st, operand)) {
            x3::skip_over(first, last, ctx);
            expected(first, "expression");
        }
        out = make_node(ast::ExprKind::unary, op_pos, 1, st.range(op_pos, op_pos + 1));
        out.range.end = operand.range.end;
        out.children = st.children({operand});
    }

    // postfix ['^' unary]  (right-associative through parse_unary)
    template <class It, class Ctx>
    bool parse_power(It& first, It const& last, Ctx const& ctx, ParseState& st, ast::Expr& out) const {
        if (!parse_postfix(first, last, ctx, st, out)) return false;
        It before = first;
        x3::skip_over(first, last, ctx);
        if (first == last || *first != '^') {
            first = before;
            return true;
        }
        parse_power_tail(first, last, ctx, st, out);
        return true;
    }

    template <class It, class Ctx>
    BOOST_NOINLINE void parse_power_tail(It& first, It const& last, Ctx const& ctx, ParseState& st, ast::Expr& out) const {
        It op_pos = first;
        ++first;
        NestGuard::enter(st, op_pos);  // before recursing: `2^2^2^...` nests to the right
        ast::Expr rhs;
        if (!parse_unary(first, last, ctx, st, rhs)) {
            x3::skip_over(first, last, ctx);
            expected(first, "expression");
        }
        ast::Expr node = make_node(ast::ExprKind::binary, "^", 1, SourceRange{st.file, out.range.begin, rhs.range.end});
        node.children = st.children({out, rhs});
        out = node;
    }

    // primary ('[' index ']' | '[' [begin] ':' [end] ']')*
    template <class It, class Ctx>
    bool parse_postfix(It& first, It const& last, Ctx const& ctx, ParseState& st, ast::Expr& out) const {
        if (!primary.parse(first, last, ctx, x3::unused, out)) return false;
        for (;;) {
            It before = first;
            x3::skip_over(first, last, ctx);
            if (first == last || *first != '[') {
                first = before;
                return true;
            }
            It open = first;
            ++first;
            NestGuard::enter(st, open);
            parse_subscript(first, last, ctx, st, out);
        }
    }

    // After `[`: `index ]` or `[begin] : [end] ]`.
    template <class It, class Ctx>
    BOOST_NOINLINE void parse_subscript(It& first, It const& last, Ctx const& ctx, ParseState& st, ast::Expr& out) const {
        {
            ast::Expr begin;
            ast::Expr end;
            bool has_begin = expr.parse(first, last, ctx, x3::unused, begin);
            x3::skip_over(first, last, ctx);
            bool is_range = first != last && *first == ':';
            bool has_end = false;
            if (is_range) {
                ++first;
                has_end = expr.parse(first, last, ctx, x3::unused, end);
                x3::skip_over(first, last, ctx);
            }
            if (!has_begin && !is_range) expected(first, "index expression");
            if (first == last || *first != ']') expected(first, "']'");
            ++first;
            ast::Expr node;
            node.kind = is_range ? ast::ExprKind::range : ast::ExprKind::subscript;
            node.range = SourceRange{st.file, out.range.begin, st.range(first, first).begin};
            node.has_begin = is_range && has_begin;
            node.has_end = has_end;
            if (has_begin && has_end)
                node.children = st.children({out, begin, end});
            else if (has_begin)
                node.children = st.children({out, begin});
            else if (has_end)
                node.children = st.children({out, end});
            else
                node.children = st.children({out});
            out = node;
        }
    }
};

}  // namespace ops

// ---- rule definitions ----------------------------------------------------------------------
auto const expr_def = ops::operator_expr_parser{true};
auto const iter_expr_def = ops::operator_expr_parser{false};

auto const number_lit_def = number[act::set_number];
auto const string_lit_def = string_literal[act::set_string];
auto const logical_lit_def = kw_true[act::set_true] | kw_false[act::set_false];

auto const builtin_call_def =
    builtin_name[act::begin_builtin] > '(' > expr[act::push_child] >>
    -(&x3::lit(',') >> tokens::fail_parser{"builtin-arity", "a built-in function takes exactly one argument"}) >
    rparen[act::end_node];

auto const paren_or_tuple_def =
    lparen[act::begin_paren] > expr[act::push_child] >> *(',' > expr[act::push_child]) > rparen[act::end_paren_or_tuple];

auto const loop_iter = name[act::push_loop_name] > kw_in > iter_expr[act::push_child];
auto const comprehension_tail = loop_iter >> *(',' > loop_iter) >> -(kw_if > expr[act::set_filter]) > kw_yield >
                                expr[act::push_child] > rbracket[act::end_node];
auto const array_or_comprehension_def =
    lbracket[act::begin_array] >>
    ((kw_for[act::begin_comprehension] > comprehension_tail) |
     (-(expr[act::push_child] >> *(',' > expr[act::push_child])) > rbracket[act::end_node]));

// `name =` (not `name ==`) starts a named argument; anything else is a positional one. One scan
// decides, so a positional argument is parsed once.
struct argument_parser : x3::parser<argument_parser> {
    using attribute_type = Argument;

    template <class It, class Ctx, class RCtx, class Attr>
    bool parse(It& first, It const& last, Ctx const& ctx, RCtx&, Attr& attr) const {
        Argument& a = attr;
        It p = first;
        Span name_span;
        if (identifier.parse(p, last, ctx, x3::unused, name_span)) {
            x3::skip_over(p, last, ctx);
            if (p != last && *p == '=' && (p + 1 == last || p[1] != '=')) {
                ++p;
                a.name = name_span;
                a.named = true;
                if (!expr.parse(p, last, ctx, x3::unused, a.value)) ops::expected(p, "expression");
                first = p;
                return true;
            }
        }
        return expr.parse(first, last, ctx, x3::unused, a.value);
    }
};
auto const argument_def = argument_parser{};

// `name`, `name(args)` or `name<type>(args)`; the `<type>` is taken only when `(` follows, so that
// `a < b` stays a comparison.
auto const invocation_generic = x3::lit('<') >> prim_type >> '>' >> &x3::lit('(');
auto const ident_or_call_def =
    identifier[act::set_identifier] >>
    -(-(invocation_generic[act::set_generic] | unknown_generic_parser{}) >> x3::lit('(')[act::begin_call] > argument[act::push_argument] >>
      *(',' > argument[act::push_argument]) > rparen[act::end_node]);

// A primary starts with a digit (number), a quote (string), `(`, `[`, or a word: `true`/`false`, a
// built-in function's name, else an identifier or invocation. The first character (and the word)
// picks the one alternative that can match, so no other is tried.
struct primary_parser : x3::parser<primary_parser> {
    using attribute_type = ast::Expr;

    template <class It, class Ctx, class RCtx, class Attr>
    bool parse(It& first, It const& last, Ctx const& ctx, RCtx& rctx, Attr& attr) const {
        It p = first;
        x3::skip_over(p, last, ctx);
        if (p == last) return false;
        const char c = *p;
        if (tokens::is_digit(c)) return number_lit.parse(first, last, ctx, rctx, attr);
        if (c == '\'' || c == '"') return string_lit.parse(first, last, ctx, rctx, attr);
        if (c == '(') return paren_or_tuple.parse(first, last, ctx, rctx, attr);
        if (c == '[') return array_or_comprehension.parse(first, last, ctx, rctx, attr);
        if (!tokens::is_ident_start(c)) return false;
        It q = p;
        while (q != last && tokens::is_ident_char(*q)) ++q;
        const std::string_view word(p, static_cast<std::size_t>(q - p));
        if (word == "true" || word == "false") return logical_lit.parse(first, last, ctx, rctx, attr);
        for (const char* b : builtin_names)
            if (word == b) return builtin_call.parse(first, last, ctx, rctx, attr);
        return ident_or_call.parse(first, last, ctx, rctx, attr);
    }
};
auto const primary_def = primary_parser{};

BOOST_SPIRIT_DEFINE(expr, iter_expr, primary, number_lit, string_lit, logical_lit, builtin_call, paren_or_tuple,
                    array_or_comprehension, argument, ident_or_call)

}  // namespace rules
}  // namespace nnef::grammar
