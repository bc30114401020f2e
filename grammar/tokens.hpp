// Lexical elements of NNEF (spec 3.1) as X3 primitive parsers. Private to grammar/*.cpp.
//
// Each token parser pre-skips white space and comments through the context's skipper, as X3's own
// primitives do, and yields a Span (or a small token struct) so that actions can compute ranges.
// Malformed tokens (a bad escape, `1.5e`, `0x10`) throw SyntaxError with a precise position:
// backtracking cannot make them valid.
#pragma once
#include <boost/spirit/home/x3.hpp>

#include <algorithm>
#include <cstring>
#include <string>
#include <type_traits>
#include <utility>

#include "grammar/parse_state.hpp"

namespace nnef::grammar {
namespace x3 = boost::spirit::x3;

struct state_tag;

namespace tokens {

// Character classes by table (one load per character on the hot scanning loops).
namespace chars {
enum : unsigned char { ident_start = 1, ident = 2, digit = 4, space = 8, skip_start = 16 };
struct Table {
    unsigned char c[256] = {};
    constexpr Table() {
        for (int i = 0; i < 256; ++i) {
            const bool letter = (i >= 'a' && i <= 'z') || (i >= 'A' && i <= 'Z') || i == '_';
            const bool dig = i >= '0' && i <= '9';
            const bool sp = i == ' ' || i == '\n' || i == '\t' || i == '\r' || i == '\v' || i == '\f';
            c[i] = static_cast<unsigned char>((letter ? ident_start | ident : 0) | (dig ? digit | ident : 0) |
                                              (sp ? space | skip_start : 0) | (i == '#' ? skip_start : 0));
        }
    }
};
inline constexpr Table table{};
inline bool is(char c, unsigned char cls) { return (table.c[static_cast<unsigned char>(c)] & cls) != 0; }
}  // namespace chars

inline bool is_ident_start(char c) { return chars::is(c, chars::ident_start); }
inline bool is_ident_char(char c) { return chars::is(c, chars::ident); }
inline bool is_digit(char c) { return chars::is(c, chars::digit); }

// Reserved words of spec 3.1 plus the logical literals.
inline bool is_keyword(const char* s, std::size_t n) {
    auto eq = [&](const char* k) { return s[0] == k[0] && std::memcmp(s, k, n) == 0; };
    switch (n) {
        case 2: return eq("in") || eq("if");
        case 3: return eq("for");
        case 4: return eq("else") || eq("true");
        case 5: return eq("graph") || eq("yield") || eq("false");
        case 6: return eq("tensor") || eq("scalar") || eq("string");
        case 7: return eq("version") || eq("integer") || eq("logical");
        case 8: return eq("fragment") || eq("shape_of") || eq("range_of");
        case 9: return eq("extension") || eq("length_of");
        default: return false;
    }
}

template <class Attr, class T>
inline void assign(Attr& attr, T&& value) {
    if constexpr (!std::is_same_v<Attr, x3::unused_type>) attr = std::forward<T>(value);
}

// ---- white space and comments ------------------------------------------------------------
// Space, \t, \n, \v, \f, \r; `#` comments last until a new line or form feed (spec 3.1).
struct skipper_parser : x3::parser<skipper_parser> {
    using attribute_type = x3::unused_type;
    static bool const has_attribute = false;

    template <class It, class Ctx, class RCtx, class Attr>
    bool parse(It& first, It const& last, Ctx const&, RCtx&, Attr&) const {
        It p = skip_from(first, last);
        bool moved = p != first;
        first = p;
        return moved;
    }

    // Past the white space and comments from p on (what parse skips).
    template <class It>
    static It skip_from(It p, It const& last) {
        while (p != last && chars::is(*p, chars::skip_start)) {
            if (*p != '#') {
                ++p;
            } else {
                while (p != last && *p != '\n' && *p != '\f') ++p;
            }
        }
        return p;
    }
};

// ---- identifiers and keywords ------------------------------------------------------------
// [a-zA-Z_][a-zA-Z0-9_]* that is not a keyword. With `keyword_is_error`, a keyword (or a name
// starting with a digit) where an identifier is required throws instead of failing.
struct identifier_parser : x3::parser<identifier_parser> {
    using attribute_type = Span;
    bool keyword_is_error = false;
    constexpr explicit identifier_parser(bool keyword_error = false) : keyword_is_error(keyword_error) {}

    template <class It, class Ctx, class RCtx, class Attr>
    bool parse(It& first, It const& last, Ctx const& ctx, RCtx&, Attr& attr) const {
        x3::skip_over(first, last, ctx);
        It p = first;
        if (p == last) return false;
        if (!is_ident_start(*p)) {
            if (keyword_is_error && is_digit(*p)) {
                It q = p;
                while (q != last && is_ident_char(*q)) ++q;
                if (std::find_if(p, q, [](char c) { return !is_digit(c); }) != q)
                    throw SyntaxError{p, "invalid-identifier",
                                      "identifier '" + std::string(p, q) + "' must not start with a digit", q};
            }
            return false;
        }
        ++p;
        while (p != last && is_ident_char(*p)) ++p;
        std::size_t n = static_cast<std::size_t>(p - first);
        if (is_keyword(first, n)) {
            if (keyword_is_error)
                throw SyntaxError{first, "keyword-as-identifier",
                                  "keyword '" + std::string(first, p) + "' cannot be used as an identifier", p};
            return false;
        }
        auto const& st = x3::get<state_tag>(ctx);
        if (n > st.max_string_length)
            throw SyntaxError{first, "identifier-too-long",
                              "identifier is longer than the limit max_string_length = " +
                                  std::to_string(st.max_string_length)};
        assign(attr, Span{first, p});
        first = p;
        return true;
    }
};

// A whole keyword (not the prefix of a longer identifier).
struct keyword_parser : x3::parser<keyword_parser> {
    using attribute_type = Span;
    const char* word;
    std::size_t size;
    constexpr explicit keyword_parser(const char* w) : word(w), size(std::char_traits<char>::length(w)) {}

    template <class It, class Ctx, class RCtx, class Attr>
    bool parse(It& first, It const& last, Ctx const& ctx, RCtx&, Attr& attr) const {
        x3::skip_over(first, last, ctx);
        if (static_cast<std::size_t>(last - first) < size || std::memcmp(first, word, size) != 0) return false;
        It p = first + size;
        if (p != last && is_ident_char(*p)) return false;
        assign(attr, Span{first, p});
        first = p;
        return true;
    }
};

// One of several keywords; the attribute is the index of the matched one and its span.
struct keyword_choice {
    int index = -1;
    Span span;
};
template <std::size_t N>
struct keyword_set_parser : x3::parser<keyword_set_parser<N>> {
    using attribute_type = keyword_choice;
    const char* const* words;
    constexpr explicit keyword_set_parser(const char* const* w) : words(w) {}

    template <class It, class Ctx, class RCtx, class Attr>
    bool parse(It& first, It const& last, Ctx const& ctx, RCtx&, Attr& attr) const {
        x3::skip_over(first, last, ctx);
        It p = first;
        while (p != last && is_ident_char(*p)) ++p;
        std::size_t n = static_cast<std::size_t>(p - first);
        if (n == 0) return false;
        for (std::size_t i = 0; i < N; ++i) {
            if (std::strlen(words[i]) == n && std::memcmp(words[i], first, n) == 0) {
                assign(attr, keyword_choice{static_cast<int>(i), Span{first, p}});
                first = p;
                return true;
            }
        }
        return false;
    }
};

// A punctuation character; the attribute is its position (for ranges).
struct punct_parser : x3::parser<punct_parser> {
    using attribute_type = const char*;
    char ch;
    constexpr explicit punct_parser(char c) : ch(c) {}

    template <class It, class Ctx, class RCtx, class Attr>
    bool parse(It& first, It const& last, Ctx const& ctx, RCtx&, Attr& attr) const {
        x3::skip_over(first, last, ctx);
        if (first == last || *first != ch) return false;
        assign(attr, static_cast<const char*>(first));
        ++first;
        return true;
    }
};

// ---- numeric literals --------------------------------------------------------------------
// digits ['.' digits*] [('e'|'E') ['+'|'-'] digits]. The sign of flat-syntax negative literals is
// handled by the expression grammar (see parse.cpp: negative literals are folded there).
struct number_token {
    Span span;
    bool real = false;
};
struct number_parser : x3::parser<number_parser> {
    using attribute_type = number_token;

    template <class It, class Ctx, class RCtx, class Attr>
    bool parse(It& first, It const& last, Ctx const& ctx, RCtx&, Attr& attr) const {
        x3::skip_over(first, last, ctx);
        It p = first;
        if (p == last || !is_digit(*p)) return false;
        while (p != last && is_digit(*p)) ++p;
        bool real = false;
        if (p != last && *p == '.') {
            real = true;
            ++p;
            while (p != last && is_digit(*p)) ++p;
        }
        if (p != last && (*p == 'e' || *p == 'E')) {
            It e = p + 1;
            if (e != last && (*e == '+' || *e == '-')) ++e;
            if (e == last || !is_digit(*e))
                throw SyntaxError{first, "invalid-number",
                                  "exponent of numeric literal '" + std::string(first, e) + "' has no digits", e};
            while (e != last && is_digit(*e)) ++e;
            p = e;
            real = true;
        }
        if (p != last && (is_ident_char(*p) || *p == '.')) {
            It q = p;
            while (q != last && (is_ident_char(*q) || *q == '.')) ++q;
            throw SyntaxError{first, "invalid-number",
                              "invalid numeric literal '" + std::string(first, q) + "'", q};
        }
        assign(attr, number_token{Span{first, p}, real});
        first = p;
        return true;
    }
};

// ---- string literals ---------------------------------------------------------------------
// '...' or "..." of printable ASCII; the start quote and `\` are escaped by `\` (the other quote
// may be escaped too). The attribute holds the unescaped value: a view into the source when there
// is no escape, else into the parse state's arena.
struct string_token {
    Span span;
    std::string_view value;
};
struct string_parser : x3::parser<string_parser> {
    using attribute_type = string_token;

    template <class It, class Ctx, class RCtx, class Attr>
    bool parse(It& first, It const& last, Ctx const& ctx, RCtx&, Attr& attr) const {
        x3::skip_over(first, last, ctx);
        if (first == last || (*first != '\'' && *first != '"')) return false;
        char quote = *first;
        It p = first + 1;
        std::string value;  // only when there are escapes
        bool escaped = false;
        auto& st = x3::get<state_tag>(ctx);
        for (;;) {
            if (p == last || *p == '\n' || *p == '\r')
                throw SyntaxError{first, "unterminated-string", "unterminated string literal", p};
            char c = *p;
            if (c == quote) break;
            if (c == '\\') {
                It q = p + 1;
                if (q == last || !(*q == '\\' || *q == '\'' || *q == '"')) {
                    std::string seq = q == last ? std::string("\\") : std::string("\\") + *q;
                    throw SyntaxError{p, "invalid-escape",
                                      "invalid escape sequence '" + seq +
                                          "' in string literal (a backslash must be escaped as '\\\\')",
                                      q == last ? q : q + 1};
                }
                if (!escaped) value.assign(first + 1, p);
                escaped = true;
                value.push_back(*q);
                p = q + 1;
                continue;
            }
            auto u = static_cast<unsigned char>(c);
            if (u < 0x20 || u > 0x7E)
                throw SyntaxError{p, "invalid-string-character",
                                  describe_char(c) + " is not allowed in a string literal (printable ASCII only)"};
            if (escaped) value.push_back(c);
            ++p;
        }
        const std::size_t length = escaped ? value.size() : static_cast<std::size_t>(p - first - 1);
        if (length > st.max_string_length)
            throw SyntaxError{first, "string-too-long",
                              "string literal is longer than the limit max_string_length = " +
                                  std::to_string(st.max_string_length)};
        ++p;
        if constexpr (!std::is_same_v<Attr, x3::unused_type>) {
            attr.span = Span{first, p};
            attr.value = escaped ? st.arena->copy(value) : std::string_view(first + 1, length);
        }
        first = p;
        return true;
    }

    // `character 'a'`, `tab character (0x09)`, `non-ASCII byte 0xC3`.
    static std::string describe_char(char c) {
        static const char hex[] = "0123456789ABCDEF";
        auto u = static_cast<unsigned char>(c);
        std::string code = std::string("0x") + hex[u >> 4] + hex[u & 15];
        if (u >= 0x20 && u <= 0x7E) return std::string("character '") + c + "'";
        if (u == '\t') return "tab character (" + code + ")";
        if (u == 0) return "NUL character (" + code + ")";
        if (u >= 0x80) return "non-ASCII byte " + code;
        return "control character " + code;
    }
};

// Throws `code`/`message` when reached (used after a lookahead has identified the mistake).
struct fail_parser : x3::parser<fail_parser> {
    using attribute_type = x3::unused_type;
    static bool const has_attribute = false;
    const char* code;
    const char* message;
    constexpr fail_parser(const char* c, const char* m) : code(c), message(m) {}

    template <class It, class Ctx, class RCtx, class Attr>
    bool parse(It& first, It const& last, Ctx const& ctx, RCtx&, Attr&) const {
        x3::skip_over(first, last, ctx);
        throw SyntaxError{first, code, message};
    }
};

// True (consuming nothing) when parsing the standard library.
struct stdlib_mode_parser : x3::parser<stdlib_mode_parser> {
    using attribute_type = x3::unused_type;
    static bool const has_attribute = false;

    template <class It, class Ctx, class RCtx, class Attr>
    bool parse(It&, It const&, Ctx const& ctx, RCtx&, Attr&) const {
        return x3::get<state_tag>(ctx).stdlib;
    }
};

// nest[p]: p one bracket level deeper (limit max_nesting).
template <class Subject>
struct nest_directive : x3::unary_parser<Subject, nest_directive<Subject>> {
    using base_type = x3::unary_parser<Subject, nest_directive<Subject>>;
    static bool const is_pass_through_unary = true;
    constexpr explicit nest_directive(Subject const& subject) : base_type(subject) {}

    template <class It, class Ctx, class RCtx, class Attr>
    bool parse(It& first, It const& last, Ctx const& ctx, RCtx& rctx, Attr& attr) const {
        NestGuard guard(x3::get<state_tag>(ctx), first);
        return this->subject.parse(first, last, ctx, rctx, attr);
    }
};
struct nest_gen {
    template <class Subject>
    constexpr nest_directive<typename x3::extension::as_parser<Subject>::value_type> operator[](
        Subject const& subject) const {
        return nest_directive<typename x3::extension::as_parser<Subject>::value_type>(x3::as_parser(subject));
    }
};

}  // namespace tokens

using skipper_type = tokens::skipper_parser;

}  // namespace nnef::grammar

// Readable names for expectation failures (`expected <name>`): actions and sequences are named after
// what they start with, alternatives after their branches.
namespace boost::spirit::x3 {
template <class Subject, class Action>
struct get_info<action<Subject, Action>> {
    using result_type = std::string;
    std::string operator()(action<Subject, Action> const& p) const { return what(p.subject); }
};
template <class Left, class Right>
struct get_info<sequence<Left, Right>> {
    using result_type = std::string;
    std::string operator()(sequence<Left, Right> const& p) const { return what(p.left); }
};
template <class Left, class Right>
struct get_info<alternative<Left, Right>> {
    using result_type = std::string;
    std::string operator()(alternative<Left, Right> const& p) const { return what(p.left) + " or " + what(p.right); }
};
template <>
struct get_info<nnef::grammar::tokens::identifier_parser> {
    using result_type = std::string;
    std::string operator()(nnef::grammar::tokens::identifier_parser const&) const { return "identifier"; }
};
template <>
struct get_info<nnef::grammar::tokens::keyword_parser> {
    using result_type = std::string;
    std::string operator()(nnef::grammar::tokens::keyword_parser const& p) const {
        return std::string("'") + p.word + "'";
    }
};
template <>
struct get_info<nnef::grammar::tokens::punct_parser> {
    using result_type = std::string;
    std::string operator()(nnef::grammar::tokens::punct_parser const& p) const {
        return std::string("'") + p.ch + "'";
    }
};
template <>
struct get_info<nnef::grammar::tokens::number_parser> {
    using result_type = std::string;
    std::string operator()(nnef::grammar::tokens::number_parser const&) const { return "numeric literal"; }
};
template <>
struct get_info<nnef::grammar::tokens::string_parser> {
    using result_type = std::string;
    std::string operator()(nnef::grammar::tokens::string_parser const&) const { return "string literal"; }
};
}  // namespace boost::spirit::x3
