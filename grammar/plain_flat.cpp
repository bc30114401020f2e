// The plain-flat-document scanner (see grammar/plain_flat.hpp), built from the grammar's X3 token
// parsers so that its lexical rules are the grammar's.
#include "grammar/plain_flat.hpp"

#include <boost/spirit/home/x3.hpp>

#include <charconv>
#include <cstring>

#include "grammar/ast.hpp"
#include "grammar/config.hpp"

namespace nnef::grammar::plain {

namespace plain_flat_cpp {

// Nesting of flat values the scanner takes (deeper ones go to the full grammar).
constexpr std::size_t max_depth = 16;
// Items in one list the scanner takes.
constexpr std::size_t max_items = 4096;
// Values (items at every level) in one statement the scanner takes.
constexpr std::size_t max_nodes = 1 << 16;

template <class Ctx>
class Scanner {
public:
    Scanner(const char* b, const char* e, const Ctx& ctx, std::size_t max_nesting)
        : p_(b), end_(e), ctx_(ctx), max_nesting_(max_nesting) {}

    bool run(Sink& sink) {
        Header h;
        if (!word("version")) return false;
        skip();
        h.version_begin = p_;
        tokens::number_token v;
        if (!tokens::number_parser{}.parse(p_, end_, ctx_, x3::unused, v) || !v.real) return false;
        h.version_end = p_;
        if (std::string_view(v.span.b, static_cast<std::size_t>(v.span.e - v.span.b)) != "1.0") return false;
        if (!punct(';')) return false;
        skip();
        h.graph_begin = p_;
        if (!word("graph")) return false;
        if (!name(h.graph)) return false;
        if (!names(h.params) || !punct('-') || p_ == end_ || *p_ != '>') return false;
        ++p_;
        if (!names(h.results) || !punct('{')) return false;
        if (!sink.begin_graph(h)) return false;
        Statement s;
        std::size_t count = 0;
        for (;;) {
            skip();
            if (p_ != end_ && *p_ == '}') break;
            if (!statement(s) || !sink.statement(s)) return false;
            ++count;
        }
        ++p_;
        const char* graph_end = p_;
        skip();
        return count > 0 && p_ == end_ && sink.end_graph(graph_end);
    }

private:
    void skip() { x3::skip_over(p_, end_, ctx_); }

    bool punct(char c) {
        skip();
        if (p_ == end_ || *p_ != c) return false;
        ++p_;
        return true;
    }

    // A whole keyword.
    bool word(const char* w) {
        Span s;
        return tokens::keyword_parser{w}.parse(p_, end_, ctx_, x3::unused, s);
    }

    bool identifier(std::string_view& out) {
        Span s;
        if (!tokens::identifier_parser{}.parse(p_, end_, ctx_, x3::unused, s)) return false;
        out = std::string_view(s.b, static_cast<std::size_t>(s.e - s.b));
        return true;
    }

    bool name(Name& n) {
        skip();
        n.at = p_;
        return identifier(n.text);
    }

    // `( a, b, ... )` with at least one name.
    bool names(std::vector<Name>& out) {
        if (!punct('(')) return false;
        do {
            Name n;
            if (!name(n)) return false;
            out.push_back(n);
        } while (punct(','));
        return punct(')');
    }

    bool statement(Statement& s) {
        s.args.clear();
        s.nodes.clear();
        s.generic = PrimType::none;
        s.begin = p_;
        if (!identifier(s.lhs) || !punct('=')) return false;
        skip();
        s.rhs_begin = p_;
        if (!identifier(s.op)) return false;
        skip();
        if (p_ != end_ && *p_ == '<') {
            ++p_;
            skip();
            const char* b = p_;
            while (p_ != end_ && tokens::is_ident_char(*p_)) ++p_;
            const std::string_view t(b, static_cast<std::size_t>(p_ - b));
            if (t == "scalar") s.generic = PrimType::scalar;
            else if (t == "integer") s.generic = PrimType::integer;
            else if (t == "logical") s.generic = PrimType::logical;
            else return false;
            if (!punct('>')) return false;
        }
        if (!punct('(')) return false;
        skip();
        if (p_ == end_ || *p_ != ')') {
            bool named_seen = false;
            do {
                Arg a;
                skip();
                // `name = value` or a value.
                const char* save = p_;
                std::string_view n;
                if (identifier(n)) {
                    skip();
                    if (p_ != end_ && *p_ == '=' && (p_ + 1 == end_ || p_[1] != '=')) {
                        ++p_;
                        a.name = n;
                        named_seen = true;
                    } else {
                        p_ = save;
                    }
                }
                if (a.name.empty() && named_seen) return false;
                a.node = static_cast<std::uint32_t>(s.nodes.size());
                if (!value(s, 0)) return false;
                s.args.push_back(a);
            } while (punct(','));
        }
        if (!punct(')')) return false;
        s.rhs_end = p_;
        if (!punct(';')) return false;
        s.end = p_;
        return true;
    }

    bool value(Statement& s, std::size_t depth) {
        if (depth >= max_depth || depth >= max_nesting_ || s.nodes.size() >= max_nodes) return false;
        skip();
        if (p_ == end_) return false;
        const std::uint32_t at = static_cast<std::uint32_t>(s.nodes.size());
        s.nodes.emplace_back();
        const char c = *p_;
        const char* const b = p_;
        if (c == '[' || c == '(') {
            ++p_;
            const char close = c == '[' ? ']' : ')';
            std::uint32_t items = 0;
            skip();
            if (p_ != end_ && *p_ == close) {
                if (c == '(') return false;  // `()` is not a value
                ++p_;
            } else {
                do {
                    if (++items > max_items || !value(s, depth + 1)) return false;
                } while (punct(','));
                if (!punct(close)) return false;
                if (c == '(' && items < 2) return false;  // a parenthesized value, not a tuple
            }
            Node& n = s.nodes[at];
            n.kind = c == '[' ? Kind::array : Kind::tuple;
            n.items = items;
            n.text = std::string_view(b, static_cast<std::size_t>(p_ - b));
        } else if (c == '\'' || c == '"') {
            tokens::string_token t;
            if (!tokens::string_parser{}.parse(p_, end_, ctx_, x3::unused, t)) return false;
            Node& n = s.nodes[at];
            n.kind = Kind::string;
            n.text = t.value;
        } else if (c == '-' || tokens::is_digit(c)) {
            // A flat-syntax negative literal: '-' directly followed by the number.
            const bool negative = c == '-';
            if (negative) ++p_;
            if (p_ == end_ || !tokens::is_digit(*p_)) return false;
            tokens::number_token t;
            if (!tokens::number_parser{}.parse(p_, end_, ctx_, x3::unused, t)) return false;
            Node& n = s.nodes[at];
            n.text = std::string_view(b, static_cast<std::size_t>(p_ - b));
            if (t.real) {
                double v = 0.0;
                auto r = std::from_chars(t.span.b, t.span.e, v);
                if (r.ec != std::errc() || r.ptr != t.span.e) return false;  // out of range: the grammar says
                n.kind = Kind::scalar;
                n.sval = negative ? -v : v;
            } else {
                std::int64_t v = 0;
                auto r = std::from_chars(t.span.b, t.span.e, v);
                if (r.ec != std::errc() || r.ptr != t.span.e) return false;
                n.kind = Kind::integer;
                n.ival = negative ? -v : v;
            }
        } else if (tokens::is_ident_start(c)) {
            const char* e = p_;
            while (e != end_ && tokens::is_ident_char(*e)) ++e;
            const std::string_view w(p_, static_cast<std::size_t>(e - p_));
            Node& n = s.nodes[at];
            if (w == "true" || w == "false") {
                n.kind = Kind::logical;
                n.bval = w == "true";
                n.text = w;
                p_ = e;
            } else {
                n.kind = Kind::identifier;
                if (!identifier(n.text)) return false;  // a keyword
            }
        } else {
            return false;
        }
        s.nodes[at].next = static_cast<std::uint32_t>(s.nodes.size());
        return true;
    }

    const char* p_;
    const char* end_;
    const Ctx& ctx_;
    std::size_t max_nesting_;
};

}  // namespace plain_flat_cpp

bool scan_plain_flat(std::string_view text, const Options& options, Sink& sink) {
    ast::Arena arena;  // string values with escapes
    ParseState st;
    st.base = text.data();
    st.end = text.data() + text.size();
    st.max_nesting = options.limits.max_nesting;
    st.max_string_length = options.limits.max_string_length;
    st.arena = &arena;
    skipper_type const skipper{};
    auto const skipper_context = x3::make_context<x3::skipper_tag>(skipper);
    auto const context = x3::make_context<state_tag>(st, skipper_context);
    plain_flat_cpp::Scanner<std::decay_t<decltype(context)>> scanner(st.base, st.end, context, options.limits.max_nesting);
    try {
        return scanner.run(sink);
    } catch (const SyntaxError&) {
        return false;  // the full grammar reports it
    }
}

}  // namespace nnef::grammar::plain
