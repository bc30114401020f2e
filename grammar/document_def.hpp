// Document-level rules of the compositional grammar (spec A.2, which contains the flat grammar
// A.1): version, extensions, fragment definitions, types, the graph, assignments and lvalues.
// Included only by grammar/document.cpp.
//
// The grammar accepts the union of every dialect; extension and dialect rules (flat syntax without
// KHR_enable_operator_expressions, fragments without KHR_enable_fragment_definitions, comma
// separated extension lists, ...) are checked on the AST in grammar/parse.cpp, where they become
// errors or warnings at the offending construct.
#pragma once
#include <boost/spirit/home/x3.hpp>

#include <charconv>
#include <string>
#include <utility>
#include <vector>

#include "grammar/document.hpp"
#include "grammar/expression_def.hpp"

namespace nnef::grammar {
namespace x3 = boost::spirit::x3;

namespace rules {

tokens::keyword_parser const kw_version{"version"};
tokens::keyword_parser const kw_extension{"extension"};
tokens::keyword_parser const kw_fragment{"fragment"};
tokens::keyword_parser const kw_graph{"graph"};
tokens::keyword_parser const kw_tensor{"tensor"};
tokens::punct_parser const lbrace{'{'};
tokens::punct_parser const rbrace{'}'};
tokens::punct_parser const comma{','};
tokens::punct_parser const rangle{'>'};
tokens::stdlib_mode_parser const stdlib_mode{};

// A type with the source text it was written as; `items` collects tuple items while parsing.
struct TypeSpec {
    Type type;
    Span span;
    std::vector<Type> items;
    std::size_t arrays = 0;
};

// ---- rules ---------------------------------------------------------------------------------
document_type const document = "document";
x3::rule<class version_opt_class> const version_opt = "version statement";
x3::rule<class version_number_class, tokens::number_token> const version_number = "version number (major.minor)";
x3::rule<class extension_stmt_class> const extension_stmt = "extension statement";
x3::rule<class extension_name_class, Span> const extension_name = "extension name";
x3::rule<class fragment_def_class, ast::Fragment> const fragment_def = "fragment definition";
x3::rule<class param_class, ast::Param> const param = "parameter";
x3::rule<class result_class, ast::Result> const result = "result";
x3::rule<class type_spec_class, TypeSpec> const type_spec = "type";
x3::rule<class base_type_class, TypeSpec> const base_type = "type";
x3::rule<class tuple_type_class, TypeSpec> const tuple_type = "tuple type";
x3::rule<class tensor_type_class, TypeSpec> const tensor_type = "tensor type";
x3::rule<class prim_type_spec_class, TypeSpec> const prim_type_spec = "type";
x3::rule<class tuple_comma_class> const tuple_comma = "',' (a tuple type has at least two items)";
x3::rule<class graph_opt_class> const graph_opt = "graph definition";
x3::rule<class graph_def_class, ast::GraphDef> const graph_def = "graph definition";
x3::rule<class assignment_class, ast::Assignment> const assignment = "assignment";
x3::rule<class lvalue_class, ast::Expr> const lvalue = "left-hand side";
x3::rule<class lvalue_item_class, ast::Expr> const lvalue_item = "identifier, array or tuple";
x3::rule<class lvalue_name_class, ast::Expr> const lvalue_name = "identifier";
x3::rule<class lvalue_array_class, ast::Expr> const lvalue_array = "array";
x3::rule<class lvalue_tuple_class, ast::Expr> const lvalue_tuple = "tuple";
x3::rule<class arrow_class> const arrow = "'->'";
x3::rule<class end_of_input_class> const end_of_input = "end of input";

// ---- semantic actions ----------------------------------------------------------------------
namespace act {

inline int parse_version_part(Span s, const char* b, const char* e) {
    int v = 0;
    auto r = std::from_chars(b, e, v);
    if (r.ec != std::errc() || r.ptr != e)
        throw SyntaxError{s.b, "invalid-version", "version number '" + std::string(s.b, s.e) + "' is out of range", s.e};
    return v;
}

// `version M.N;` with M and N non-empty digit sequences (no exponent).
inline auto const set_version = [](auto& ctx) {
    ParseState& st = state(ctx);
    tokens::number_token const& t = x3::_attr(ctx);
    const char* dot = std::find(t.span.b, t.span.e, '.');
    bool digits_only = std::all_of(t.span.b, t.span.e, [](char c) { return tokens::is_digit(c) || c == '.'; });
    if (dot == t.span.e || dot + 1 == t.span.e || !digits_only)
        throw SyntaxError{t.span.b, "invalid-version",
                          "version must be written as major.minor (e.g. 1.0), not '" + std::string(t.span.b, t.span.e) + "'",
                          t.span.e};
    st.doc->version_major = parse_version_part(t.span, t.span.b, dot);
    st.doc->version_minor = parse_version_part(t.span, dot + 1, t.span.e);
    st.doc->version_range = st.range(t.span);
};

inline auto const push_extension = [](auto& ctx) {
    ParseState& st = state(ctx);
    Span s = x3::_attr(ctx);
    st.doc->extensions.push_back(ast::Identifier{std::string(s.b, s.e), st.range(s)});
};
inline auto const record_extension_comma = [](auto& ctx) {
    ParseState& st = state(ctx);
    const char* p = x3::_attr(ctx);
    st.extension_commas.push_back(st.range(p, p + 1));
};

inline auto const push_fragment = [](auto& ctx) { state(ctx).doc->fragments.push_back(std::move(x3::_attr(ctx))); };
inline auto const set_graph = [](auto& ctx) { state(ctx).doc->graph = std::move(x3::_attr(ctx)); };

// Fragments and graphs.
inline auto const begin_fragment = [](auto& ctx) {
    Span s = x3::_attr(ctx);
    x3::_val(ctx).range = state(ctx).range(s);
};
inline auto const set_fragment_name = [](auto& ctx) {
    auto& f = x3::_val(ctx);
    Span s = x3::_attr(ctx);
    f.name.assign(s.b, s.e);
    f.name_range = state(ctx).range(s);
};
inline auto const set_fragment_generic = [](auto& ctx) { x3::_val(ctx).generic = true; };
inline auto const set_generic_default = [](auto& ctx) {
    prim_token const& t = x3::_attr(ctx);
    if (t.type == PrimType::generic)
        throw SyntaxError{t.span.b, "invalid-generic-default", "the default of '?' must be a primitive type name",
                          t.span.e};
    x3::_val(ctx).generic_default = t.type;
};
inline auto const push_param = [](auto& ctx) { x3::_val(ctx).params.push_back(std::move(x3::_attr(ctx))); };
inline auto const push_result = [](auto& ctx) { x3::_val(ctx).results.push_back(std::move(x3::_attr(ctx))); };
inline auto const begin_fragment_body = [](auto& ctx) { x3::_val(ctx).body.emplace(); };
inline auto const push_fragment_statement = [](auto& ctx) { x3::_val(ctx).body->push_back(std::move(x3::_attr(ctx))); };
// The graph body goes through the parse state's hooks (grammar/parse.cpp), which keep each
// statement in the document or hand it to a statement sink.
inline auto const begin_graph_body = [](auto& ctx) { state(ctx).hooks->begin_graph(x3::_val(ctx), x3::_attr(ctx)); };
inline auto const push_graph_statement = [](auto& ctx) { state(ctx).hooks->statement(x3::_val(ctx), x3::_attr(ctx)); };
// Closing `}` or `;` of a fragment / graph.
inline auto const end_definition = [](auto& ctx) {
    const char* p = x3::_attr(ctx);
    x3::_val(ctx).range.end = state(ctx).range(p, p + 1).end;
};
inline auto const end_graph_body = [](auto& ctx) {
    end_definition(ctx);
    state(ctx).hooks->end_graph(x3::_val(ctx));
};
inline auto const push_graph_param = [](auto& ctx) {
    Span s = x3::_attr(ctx);
    x3::_val(ctx).params.push_back(ast::Identifier{std::string(s.b, s.e), state(ctx).range(s)});
};
inline auto const push_graph_result = [](auto& ctx) {
    Span s = x3::_attr(ctx);
    x3::_val(ctx).results.push_back(ast::Identifier{std::string(s.b, s.e), state(ctx).range(s)});
};

// Parameters and results.
inline auto const set_decl_name = [](auto& ctx) {
    auto& p = x3::_val(ctx);
    Span s = x3::_attr(ctx);
    p.name.assign(s.b, s.e);
    p.name_range = state(ctx).range(s);
};
inline auto const set_decl_type = [](auto& ctx) {
    auto& p = x3::_val(ctx);
    TypeSpec& t = x3::_attr(ctx);
    p.type = std::move(t.type);
    p.type_range = state(ctx).range(t.span);
};
inline auto const set_param_default = [](auto& ctx) { x3::_val(ctx).default_value = std::move(x3::_attr(ctx)); };

// Types.
inline auto const move_type = [](auto& ctx) { x3::_val(ctx) = std::move(x3::_attr(ctx)); };
inline auto const wrap_array = [](auto& ctx) {
    TypeSpec& t = x3::_val(ctx);
    const char* close = x3::_attr(ctx);
    ParseState& st = state(ctx);
    if (++t.arrays > st.max_nesting)
        throw SyntaxError{close, "max-nesting",
                          "array type nests deeper than the limit max_nesting = " + std::to_string(st.max_nesting)};
    t.type = Type::array(std::move(t.type));
    t.span.e = close + 1;
};
inline auto const set_prim_type = [](auto& ctx) {
    TypeSpec& t = x3::_val(ctx);
    prim_token const& p = x3::_attr(ctx);
    t.type = Type::primitive(p.type);
    t.span = p.span;
};
inline auto const begin_tensor_type = [](auto& ctx) {
    TypeSpec& t = x3::_val(ctx);
    t.type = Type::tensor(PrimType::none);
    t.span = x3::_attr(ctx);
};
inline auto const set_tensor_item = [](auto& ctx) { x3::_val(ctx).type = Type::tensor(x3::_attr(ctx).type); };
inline auto const end_type = [](auto& ctx) { x3::_val(ctx).span.e = x3::_attr(ctx) + 1; };
inline auto const begin_tuple_type = [](auto& ctx) { x3::_val(ctx).span.b = x3::_attr(ctx); };
inline auto const push_tuple_item = [](auto& ctx) { x3::_val(ctx).items.push_back(std::move(x3::_attr(ctx).type)); };
inline auto const end_tuple_type = [](auto& ctx) {
    TypeSpec& t = x3::_val(ctx);
    t.type = Type::tuple(std::move(t.items));
    t.items.clear();
    t.span.e = x3::_attr(ctx) + 1;
};

// Assignments and lvalues.
inline auto const set_lhs = [](auto& ctx) {
    ast::Assignment& a = x3::_val(ctx);
    a.lhs = std::move(x3::_attr(ctx));
    a.range = a.lhs.range;
};
inline auto const set_rhs = [](auto& ctx) { x3::_val(ctx).rhs = std::move(x3::_attr(ctx)); };
inline auto const end_assignment = [](auto& ctx) {
    const char* p = x3::_attr(ctx);
    x3::_val(ctx).range.end = state(ctx).range(p, p + 1).end;
};
inline auto const move_expr = [](auto& ctx) { x3::_val(ctx) = std::move(x3::_attr(ctx)); };
// `a, b = ...`: an unparenthesised tuple of lvalues.
inline auto const make_bare_tuple = [](auto& ctx) {
    ast::Expr& e = x3::_val(ctx);
    ParseState& st = state(ctx);
    std::vector<ast::Expr>& rest = x3::_attr(ctx);
    ast::Expr tuple;
    tuple.kind = ast::ExprKind::tuple;
    tuple.range = SourceRange{e.range.file, e.range.begin, rest.back().range.end};
    rest.insert(rest.begin(), e);
    tuple.children = ast::List<ast::Expr>(st.arena->copy(rest.data(), rest.size()), rest.size());
    e = tuple;
};
inline auto const begin_tuple = [](auto& ctx) {
    begin_bracket(ctx);
    x3::_val(ctx).kind = ast::ExprKind::tuple;
};

}  // namespace act

// ---- rule definitions ----------------------------------------------------------------------
auto const version_number_def = number;
auto const version_stmt = kw_version > version_number[act::set_version] > ';';
auto const version_opt_def = version_stmt | stdlib_mode;

auto const extension_name_def = name;
auto const extension_stmt_def =
    kw_extension > extension_name[act::push_extension] >>
    *(extension_name[act::push_extension] | (comma[act::record_extension_comma] > extension_name[act::push_extension])) >
    ';';

// Types: `integer`, `tensor<scalar>`, `tensor<>`, `tensor`, `(integer, scalar)`, `T[]`.
auto const prim_type_spec_def = prim_type[act::set_prim_type];
auto const tensor_type_def =
    kw_tensor[act::begin_tensor_type] >> -(x3::lit('<') > -prim_type[act::set_tensor_item] > rangle[act::end_type]);
auto const tuple_comma_def = x3::lit(',');
auto const tuple_type_def = lparen[act::begin_tuple_type] > nest[type_spec][act::push_tuple_item] > tuple_comma >
                            nest[type_spec][act::push_tuple_item] >> *(',' > nest[type_spec][act::push_tuple_item]) >
                            rparen[act::end_tuple_type];
auto const base_type_def = tuple_type | tensor_type | prim_type_spec;
auto const type_spec_def = base_type[act::move_type] >> *((x3::lit('[') > rbracket)[act::wrap_array]);

auto const param_def =
    name[act::set_decl_name] > ':' > type_spec[act::set_decl_type] > -(x3::lit('=') > expr[act::set_param_default]);
auto const result_def = name[act::set_decl_name] > ':' > type_spec[act::set_decl_type];

// Lvalues: identifiers, arrays and tuples of lvalues; `a, b = ...` is a tuple. (lvalue_item has no
// action of its own, so that its alternatives fill its attribute in place.)
auto const lvalue_name_def = name[act::set_identifier];
auto const lvalue_item_def = lvalue_name | lvalue_array | lvalue_tuple;
auto const lvalue_array_def = lbracket[act::begin_array] >>
                              -(nest[lvalue_item][act::push_child] >> *(',' > nest[lvalue_item][act::push_child])) >
                              rbracket[act::end_node];
auto const lvalue_tuple_def = lparen[act::begin_tuple] > nest[lvalue_item][act::push_child] > ',' >
                              nest[lvalue_item][act::push_child] >> *(',' > nest[lvalue_item][act::push_child]) >
                              rparen[act::end_node];
auto const lvalue_def = lvalue_item[act::move_expr] >> -(+(',' > lvalue_item))[act::make_bare_tuple];

auto const assignment_def = lvalue[act::set_lhs] > '=' > expr[act::set_rhs] > semicolon[act::end_assignment];

auto const arrow_def = x3::lit("->");
auto const body_end = !(x3::lit('}') | x3::eoi);

auto const fragment_body = lbrace[act::begin_fragment_body] > assignment[act::push_fragment_statement] >>
                           *(body_end > assignment[act::push_fragment_statement]) > rbrace[act::end_definition];
auto const generic_declaration =
    (x3::lit('<') > '?' > -(x3::lit('=') > prim_type[act::set_generic_default]) > '>')[act::set_fragment_generic];
auto const fragment_def_def =
    kw_fragment[act::begin_fragment] > name[act::set_fragment_name] > -generic_declaration > '(' >
    param[act::push_param] >> *(',' > param[act::push_param]) > ')' > arrow > '(' > result[act::push_result] >>
    *(',' > result[act::push_result]) > ')' > (fragment_body | semicolon[act::end_definition]);

auto const graph_def_def = kw_graph[act::begin_fragment] > name[act::set_fragment_name] > '(' >
                           name[act::push_graph_param] >> *(',' > name[act::push_graph_param]) > ')' > arrow > '(' >
                           name[act::push_graph_result] >> *(',' > name[act::push_graph_result]) > ')' > lbrace[act::begin_graph_body] >
                           assignment[act::push_graph_statement] >> *(body_end > assignment[act::push_graph_statement]) >
                           rbrace[act::end_graph_body];
auto const graph_opt_def = graph_def[act::set_graph] | stdlib_mode;
auto const end_of_input_def = x3::eoi;

auto const document_def = x3::eps > version_opt > *extension_stmt > *fragment_def[act::push_fragment] > graph_opt >
                          end_of_input;

BOOST_SPIRIT_DEFINE(document, version_opt, version_number, extension_stmt, extension_name, fragment_def, param, result,
                    type_spec, base_type, tuple_type, tensor_type, prim_type_spec, tuple_comma, graph_opt, graph_def,
                    assignment, lvalue, lvalue_item, lvalue_name, lvalue_array, lvalue_tuple, arrow, end_of_input)

}  // namespace rules

}  // namespace nnef::grammar
