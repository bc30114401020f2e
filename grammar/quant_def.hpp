// Rules of the quantization file (spec 5.3): one entry per line,
//     "tensor-id": algorithm(name = value, ...);
// with '...' or "..." quotes, `#` comments and blank lines (the document skipper). The algorithm
// is an invocation of the expression grammar (identifier, optional `<type>`, arguments whose
// values are any expressions); whether it is a valid quantization is checked later
// (storage/quant_file.cpp). Included only by grammar/document.cpp.
#pragma once
#include <boost/spirit/home/x3.hpp>

#include <string>
#include <utility>

#include "grammar/expression_def.hpp"
#include "grammar/quant.hpp"

namespace nnef::grammar {
namespace x3 = boost::spirit::x3;

namespace rules {

tokens::punct_parser const quant_colon{':'};

quant_document_type const quant_document = "quantization file";
x3::rule<class quant_entry_class, ast::QuantEntry> const quant_entry = "tensor identifier (a string in quotes)";
x3::rule<class quant_algorithm_class, ast::Expr> const quant_algorithm = "quantization algorithm 'name(arguments)'";
x3::rule<class quant_empty_call_class, ast::Expr> const quant_empty_call = "quantization algorithm 'name()'";

namespace act {

inline auto const set_quant_tensor = [](auto& ctx) {
    ast::QuantEntry& q = x3::_val(ctx);
    tokens::string_token& t = x3::_attr(ctx);
    q.tensor = std::string(t.value);
    q.tensor_range = state(ctx).range(t.span);
    q.range = q.tensor_range;
};

// The algorithm must be an invocation: a bare name (`"x": linear_quantize;`) is a syntax error.
inline auto const set_quant_invocation = [](auto& ctx) {
    ast::QuantEntry& q = x3::_val(ctx);
    ast::Expr& e = x3::_attr(ctx);
    if (e.kind != ast::ExprKind::invocation) {
        ParseState& st = state(ctx);
        throw SyntaxError{st.at(e.range.begin), "expected-invocation",
                          "expected an argument list after quantization algorithm '" + e.text + "'",
                          st.at(e.range.end)};
    }
    q.invocation = std::move(e);
};

inline auto const end_quant_entry = [](auto& ctx) {
    const char* p = x3::_attr(ctx);
    x3::_val(ctx).range.end = state(ctx).range(p, p + 1).end;
};

inline auto const push_quant_entry = [](auto& ctx) {
    state(ctx).quant->entries.push_back(std::move(x3::_attr(ctx)));
};

// `name()`: an algorithm without arguments besides the quantized tensor.
inline auto const set_empty_call = [](auto& ctx) {
    ast::Expr& e = x3::_val(ctx);
    auto& attr = x3::_attr(ctx);
    Span name = boost::fusion::at_c<0>(attr);
    const char* close = boost::fusion::at_c<1>(attr);
    ParseState& st = state(ctx);
    e.kind = ast::ExprKind::invocation;
    e.text = std::string_view(name.b, static_cast<std::size_t>(name.e - name.b));
    e.range = st.range(name.b, close + 1);
};

}  // namespace act

auto const quant_empty_call_def = (identifier >> x3::lit('(') >> rparen)[act::set_empty_call];
auto const quant_algorithm_def = quant_empty_call | ident_or_call;
auto const quant_entry_def = string_literal[act::set_quant_tensor] > quant_colon > quant_algorithm[act::set_quant_invocation] >
                             semicolon[act::end_quant_entry];
auto const quant_more = !x3::eoi;  // another entry follows (only white space and comments remain otherwise)
auto const quant_document_def = *(quant_more > quant_entry[act::push_quant_entry]);

BOOST_SPIRIT_DEFINE(quant_document, quant_entry, quant_algorithm, quant_empty_call)

}  // namespace rules
}  // namespace nnef::grammar
