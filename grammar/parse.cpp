// The grammar boundary: runs the X3 document rule, turns expectation failures and lexical errors
// into diagnostics, then checks the extension and dialect rules on the AST (spec 3.2.2, 3.2.3,
// SPEC_NOTES 3).
#include "grammar/parse.hpp"

#include <boost/spirit/home/x3.hpp>

#include <algorithm>
#include <cstring>
#include <limits>
#include <string>
#include <string_view>
#include <utility>

#include "grammar/config.hpp"
#include "grammar/document.hpp"
#include "grammar/parse_state.hpp"
#include "grammar/quant.hpp"
#include "grammar/tokens.hpp"
#include "nnef/detail/deep_stack.hpp"

namespace nnef::grammar {

namespace parse_cpp {

constexpr const char* fragment_extension = "KHR_enable_fragment_definitions";
constexpr const char* operator_extension = "KHR_enable_operator_expressions";

// Characters that can start or continue some NNEF token (or white space / comment).
inline bool is_token_char(char c) {
    if (tokens::is_ident_char(c)) return true;
    switch (c) {
        case ' ': case '\t': case '\n': case '\r': case '\v': case '\f': case '#':
        case '(': case ')': case '[': case ']': case '{': case '}': case ':': case '=': case ',': case ';':
        case '<': case '>': case '+': case '-': case '*': case '/': case '^': case '!': case '&': case '|':
        case '\'': case '"': case '.': case '?':
            return true;
        default:
            return false;
    }
}

inline const char* skip_blanks(const char* p, const char* last) {
    tokens::skipper_parser skipper;
    x3::unused_type u;
    skipper.parse(p, last, u, u, u);
    return p;
}

// End of the token starting at p (for diagnostic ranges and quoting).
inline const char* token_end(const char* p, const char* last) {
    if (p == last) return p;
    if (tokens::is_digit(*p)) {  // a numeric literal: digits, '.', exponent
        while (p != last && (tokens::is_ident_char(*p) || *p == '.' ||
                             ((*p == '-' || *p == '+') && (p[-1] == 'e' || p[-1] == 'E'))))
            ++p;
        return p;
    }
    if (tokens::is_ident_char(*p)) {
        while (p != last && tokens::is_ident_char(*p)) ++p;
        return p;
    }
    static const char* const two[] = {"->", "<=", ">=", "==", "!=", "&&", "||"};
    for (const char* t : two)
        if (last - p >= 2 && p[0] == t[0] && p[1] == t[1]) return p + 2;
    return p + 1;
}

inline std::string describe_token(const char* p, const char* last) {
    if (p == last) return "end of file";
    const char* e = token_end(p, last);
    std::string text(p, std::min<std::size_t>(static_cast<std::size_t>(e - p), 40));
    if (tokens::is_ident_start(*p))
        return (tokens::is_keyword(p, static_cast<std::size_t>(e - p)) ? "keyword '" : "identifier '") + text + "'";
    if (tokens::is_digit(*p)) return "number '" + text + "'";
    if (*p == '\'' || *p == '"') return "string literal";
    return "'" + text + "'";
}

// `';'` from X3's literal names; rule names are already readable.
inline std::string readable_expectation(const std::string& which) {
    if (which.size() >= 2 && which.front() == '"' && which.back() == '"')
        return "'" + which.substr(1, which.size() - 2) + "'";
    return which;
}

// The end of the last token before `where` (white space and comments skipped backwards), or
// nullptr when nothing but blanks precedes it. A comment runs to the end of its line, so each
// earlier line is cut at its first '#' outside a string literal.
inline const char* previous_token_end(const char* begin, const char* where) {
    auto comment_start = [](const char* line, const char* end) -> const char* {
        char quote = 0;
        for (const char* p = line; p != end; ++p) {
            if (quote) {
                if (*p == quote) quote = 0;
            } else if (*p == '\'' || *p == '"') {
                quote = *p;
            } else if (*p == '#') {
                return p;
            }
        }
        return end;
    };
    const char* p = where;
    while (p != begin) {
        const char c = p[-1];
        if (c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f') {
            --p;
        } else if (c == '\n') {
            const char* end = p - 1;
            const char* line = end;
            while (line != begin && line[-1] != '\n') --line;
            p = comment_start(line, end);
        } else {
            return p;
        }
    }
    return nullptr;
}

// The start of the token that ends at `end` (after previous_token_end).
inline const char* token_start(const char* begin, const char* end) {
    const char* p = end;
    const char c = p[-1];
    if (c == '\'' || c == '"') {  // a string literal: back to its opening quote on the same line
        --p;
        while (p != begin && p[-1] != c && p[-1] != '\n') --p;
        return p != begin && p[-1] == c ? p - 1 : end - 1;
    }
    if (tokens::is_ident_char(c) || c == '.') {  // a word or a number (with '.', exponent sign)
        while (p != begin && (tokens::is_ident_char(p[-1]) || p[-1] == '.' ||
                              ((p[-1] == '-' || p[-1] == '+') && p - 1 != begin && (p[-2] == 'e' || p[-2] == 'E') &&
                               p - 2 != begin && (tokens::is_digit(p[-3]) || p[-3] == '.'))))
            --p;
        return p;
    }
    if (end - begin >= 2 && token_end(end - 2, end) == end) return end - 2;  // '->', '<=', '==', ...
    return end - 1;
}

// What the token ending at `end` is, for `expected X after ...`: its text in quotes (at most 40
// characters); a version number with its keyword.
inline std::string describe_previous(const char* begin, const char* end) {
    const char* start = token_start(begin, end);
    std::string text(start, std::min<std::size_t>(static_cast<std::size_t>(end - start), 40));
    if (*start == '\'' || *start == '"') return "string literal";
    if (tokens::is_digit(*start)) {
        const char* before = previous_token_end(begin, start);
        if (before && before - begin >= 7 && std::string_view(before - 7, 7) == "version" &&
            (before - begin == 7 || !tokens::is_ident_char(before[-8])))
            return "'version " + text + "'";
    }
    return "'" + text + "'";
}

inline std::string expectation_code(const std::string& which, const char* where, const char* last) {
    if (which == "version statement") return "missing-version";
    if (which == "graph definition" && where == last) return "missing-graph";
    if (which == "end of input") return "unexpected-content";
    return "expected-token";
}

class Checker {
public:
    Checker(const ParseOptions& opts, const ParseState& st, Diagnostics& diags) : opts_(opts), st_(st), diags_(diags) {}

    // Everything before the graph: version, extensions, fragments.
    void check_header(ast::Document& doc) {
        check_version(doc);
        check_extensions(doc);
        for (auto& f : doc.fragments) check_fragment(f);
    }
    // One statement of the graph body (after check_header).
    void check_statement(ast::Assignment& a) {
        if (!operators_enabled_ && !diags_.limit_reached()) check_flat(a);
    }

private:
    bool strict() const { return opts_.options.strict; }

    // An error in strict mode, a warning (naming the deviation) in the default dialect.
    void deviation(const char* code, const std::string& message, SourceRange range) {
        if (strict())
            diags_.error(Stage::syntax, code, message + " (not allowed with --strict)", range);
        else
            diags_.warning(Stage::syntax, code, message, range);
    }

    void check_version(const ast::Document& doc) {
        if (!doc.version_range.valid()) return;  // stdlib text without a version statement
        std::string v = std::to_string(doc.version_major) + "." + std::to_string(doc.version_minor);
        if (doc.version_major != 1)
            diags_.error(Stage::syntax, "unsupported-version", "unsupported version " + v + " (expected 1.0)",
                         doc.version_range);
        else if (doc.version_minor != 0)
            deviation("newer-minor-version", "version " + v + " is newer than revision 1.0; read as 1.0",
                      doc.version_range);
    }

    void check_extensions(const ast::Document& doc) {
        for (const SourceRange& r : st_.extension_commas)
            deviation("comma-separated-extensions",
                      "extension names separated by ',' (revision 3 separates them by white space)", r);
        for (const auto& e : doc.extensions) {
            if (e.name == fragment_extension)
                fragments_enabled_ = true;
            else if (e.name == operator_extension)
                operators_enabled_ = true;
            else
                deviation("unknown-extension", "unknown extension '" + e.name + "'", e.range);
        }
        if (opts_.stdlib) fragments_enabled_ = operators_enabled_ = true;
    }

    void check_fragment(ast::Fragment& f) {
        if (!fragments_enabled_)
            diags_.error(Stage::syntax, "extension-required",
                         "fragment definition requires extension " + std::string(fragment_extension),
                         SourceRange{f.range.file, f.range.begin, f.name_range.end});
        if (!f.body && !opts_.stdlib)
            deviation("fragment-declaration", "fragment '" + f.name + "' is declared without a body (custom operation)",
                      SourceRange{f.range.file, f.range.begin, f.name_range.end});
        for (auto& p : f.params)
            if (p.default_value) check_default(*p.default_value, p);
        if (f.body) check_body(*f.body);
    }

    // Default values are literal expressions: literals, arrays and tuples of them. A negative
    // numeric literal is a dialect deviation (revision 3 has no sign in compositional syntax).
    void check_default(ast::Expr& e, const ast::Param& p) {
        switch (e.kind) {
            case ast::ExprKind::integer:
            case ast::ExprKind::scalar:
            case ast::ExprKind::logical:
            case ast::ExprKind::string:
                return;
            case ast::ExprKind::array:
            case ast::ExprKind::tuple:
                for (std::size_t i = 0; i < e.children.size(); ++i) check_default(e.children.mutable_at(i), p);
                return;
            case ast::ExprKind::unary:
                if (fold_negative_literal(e)) {
                    if (!opts_.stdlib)
                        deviation("negative-default-value",
                                  "negative literal as the default value of parameter '" + p.name +
                                      "' (revision 3 allows no sign in compositional syntax)",
                                  e.range);
                    return;
                }
                break;
            default:
                break;
        }
        diags_.error(Stage::syntax, "invalid-default-value",
                     "default value of parameter '" + p.name + "' must be a literal, or an array or tuple of literals",
                     e.range);
    }

    // `-` directly followed by a numeric literal becomes a negative literal (flat syntax).
    static bool fold_negative_literal(ast::Expr& e) {
        if (e.kind != ast::ExprKind::unary || e.op != "-" || e.children.size() != 1) return false;
        const ast::Expr& lit = e.children.front();
        if ((lit.kind != ast::ExprKind::integer && lit.kind != ast::ExprKind::scalar) || lit.negative_literal ||
            lit.range.begin != e.range.begin + 1)
            return false;
        ast::Expr folded = lit;
        folded.negative_literal = true;
        folded.ival = -folded.ival;
        folded.sval = -folded.sval;
        // The '-' is the character just before the literal's text in the source.
        folded.text = std::string_view(lit.text.data() - 1, lit.text.size() + 1);
        folded.range.begin = e.range.begin;
        e = folded;
        return true;
    }

    void check_body(std::vector<ast::Assignment>& body) {
        if (operators_enabled_) return;
        for (auto& a : body) {
            if (diags_.limit_reached()) return;
            check_flat(a);
        }
    }

    // Flat syntax: the right-hand side is an invocation with flat values as arguments.
    void check_flat(ast::Assignment& a) {
        if (a.rhs.kind != ast::ExprKind::invocation) {
            operator_error("a right-hand side that is not an operation invocation", a.rhs.range);
            return;
        }
        for (std::size_t i = 0; i < a.rhs.children.size(); ++i) check_flat_value(a.rhs.children.mutable_at(i));
    }

    void operator_error(const std::string& what, SourceRange range) {
        diags_.error(Stage::syntax, "extension-required",
                     what + " requires extension " + std::string(operator_extension), range);
    }

    // Flat rvalues: identifiers, literals (with an optional '-'), arrays and tuples of them.
    void check_flat_value(ast::Expr& e) {
        switch (e.kind) {
            case ast::ExprKind::integer:
            case ast::ExprKind::scalar:
            case ast::ExprKind::logical:
            case ast::ExprKind::string:
            case ast::ExprKind::identifier:
                return;
            case ast::ExprKind::array:
            case ast::ExprKind::tuple:
                for (std::size_t i = 0; i < e.children.size(); ++i) check_flat_value(e.children.mutable_at(i));
                return;
            case ast::ExprKind::unary:
                if (fold_negative_literal(e)) return;
                operator_error("unary operator '" + e.op + "'", e.range);
                return;
            case ast::ExprKind::binary: operator_error("binary operator '" + e.op + "'", e.range); return;
            case ast::ExprKind::if_else: operator_error("an if-else expression", e.range); return;
            case ast::ExprKind::comprehension: operator_error("an array comprehension", e.range); return;
            case ast::ExprKind::subscript:
            case ast::ExprKind::range: operator_error("a subscript expression", e.range); return;
            case ast::ExprKind::builtin: operator_error("built-in function '" + e.text + "'", e.range); return;
            case ast::ExprKind::invocation: operator_error("a nested invocation", e.range); return;
            case ast::ExprKind::paren: operator_error("a parenthesized expression", e.range); return;
        }
    }

    const ParseOptions& opts_;
    const ParseState& st_;
    Diagnostics& diags_;
    bool fragments_enabled_ = false;
    bool operators_enabled_ = false;
};

// The graph body as the grammar reaches it: the dialect checks of everything before the graph at
// its `{`, of each statement as it completes; then the statement is kept in the document, or given
// to the sink and its nodes freed.
class Hooks final : public GraphHooks {
public:
    Hooks(ParseState& st, Checker& checker, Diagnostics& syntax, ast::Document& doc, StatementSink* sink)
        : st_(st), checker_(checker), syntax_(syntax), doc_(doc), sink_(sink) {}

    bool header_checked() const { return header_checked_; }

    void begin_graph(ast::GraphDef& graph, const char* body) override {
        checker_.check_header(doc_);
        header_checked_ = true;
        if (sink_) {
            sink_->begin_graph(doc_, graph, syntax_.has_errors());
            st_.arena = &statements_;
        } else {
            // One assignment per remaining `;` at most: the body is allocated once.
            graph.body.reserve(static_cast<std::size_t>(std::count(body, st_.end, ';')));
        }
    }

    void statement(ast::GraphDef& graph, ast::Assignment& a) override {
        checker_.check_statement(a);
        if (!sink_) {
            graph.body.push_back(a);
            return;
        }
        sink_->statement(a, syntax_.has_errors());
        statements_.reset();
    }

    void end_graph(ast::GraphDef&) override {
        if (sink_) {
            sink_->end_graph(syntax_.has_errors());
            st_.arena = doc_.arena.get();
        }
    }

private:
    ParseState& st_;
    Checker& checker_;
    Diagnostics& syntax_;
    ast::Document& doc_;
    StatementSink* sink_;
    ast::Arena statements_;  // the nodes of the statement being streamed
    bool header_checked_ = false;
};

// Runs `rule` over the buffer of `st`, turning expectation failures and lexical errors into
// stage `syntax` diagnostics. `what` names the input in the one defensive message.
template <class Rule>
bool run_rule(Rule const& rule, ParseState& st, Diagnostics& diags, const char* what) {
    const char* const begin = st.base;
    const char* const last = st.end;
    // A diagnostic range covers at least one character unless it is at the end of the file.
    auto at = [&](const char* b, const char* e) { return st.range(b, e == b && e != last ? e + 1 : e); };
    const char* first = begin;
    skipper_type const skipper{};
    // x3::context keeps a reference to the next context: the skipper's context must be a named
    // object, not a temporary that dies at the end of this statement.
    auto const skipper_context = x3::make_context<x3::skipper_tag>(skipper);
    auto const context = x3::make_context<state_tag>(st, skipper_context);
    x3::unused_type attr;
    bool ok = false;
    try {
        ok = rules::parse_rule(rule, first, last, context, attr);
    } catch (const x3::expectation_failure<iterator_type>& e) {
        const char* where = skip_blanks(e.where(), last);
        if (where != last && !is_token_char(*where)) {
            diags.error(Stage::syntax, "unexpected-character",
                        "unexpected " + tokens::string_parser::describe_char(*where), at(where, where + 1));
        } else {
            std::string which = readable_expectation(e.which());
            const char* end = token_end(where, last);
            std::string found = describe_token(where, last);
            std::string_view word(where, static_cast<std::size_t>(end - where));
            if (word == "and" || word == "or")
                found += word == "and" ? " ('and' is not an operator: use '&&')" : " ('or' is not an operator: use '||')";
            // A missing token is reported right after the token before it (as C compilers do), the
            // place to insert it; what comes instead is a note when it is on a later line.
            // Only a missing token ('X': punctuation or a keyword) is placed so; an expected
            // construct (expression, assignment, graph definition) is reported where it should start.
            const bool token = which.size() >= 3 && which.front() == '\'' && which.back() == '\'' &&
                               which.find(' ') == std::string::npos;
            const char* previous = token ? previous_token_end(begin, where) : nullptr;
            if (!previous) {
                diags.error(Stage::syntax, expectation_code(which, where, last), "expected " + which + ", found " + found,
                            at(where, end));
            } else {
                const SourceRange after = st.range(previous, previous);
                const SourceRange next = at(where, end);
                const bool same_line = std::find(previous, where, '\n') == where;
                std::string message = "expected " + which + " after " + describe_previous(begin, previous);
                if (same_line) message += ", found " + found;
                Diagnostic& d = diags.error(Stage::syntax, expectation_code(which, where, last), message, after);
                if (!same_line) d.notes.push_back(Note{"found " + found + " here", next});
            }
        }
        return false;
    } catch (const SyntaxError& e) {
        std::string code = e.code;
        std::string message = e.message;
        // One character, or none at the end of the text (a limit reached by the last bracket).
        const char* end = e.where_end ? e.where_end : e.where != last ? e.where + 1 : e.where;
        // `"name'`: the string runs to the end of the line; say why when the other quote is in it.
        if (code == "unterminated-string" && e.where != last) {
            char other = *e.where == '"' ? '\'' : '"';
            if (std::find(e.where + 1, end, other) != end) {
                code = "mismatched-quotes";
                message = std::string("string literal opened with ") + *e.where + " is not closed (quotes must match: " +
                          *e.where + "..." + *e.where + ")";
            }
        }
        diags.error(Stage::syntax, code, message, at(e.where, end));
        return false;
    }
    if (!ok || skip_blanks(first, last) != last) {  // the rules start with expectations: defensive only
        const char* where = skip_blanks(first, last);
        diags.error(Stage::syntax, "expected-token",
                    std::string("expected ") + what + ", found " + describe_token(where, last),
                    at(where, token_end(where, last)));
        return false;
    }
    return true;
}

// A ParseState over the text of `file`; false (with a diagnostic) if the text is too large.
bool init_state(ParseState& st, const SourceManager& sm, std::uint32_t file, const ParseOptions& opts,
                Diagnostics& diags, const char* what) {
    const std::string_view text = sm.text(file);
    if (text.size() >= std::numeric_limits<std::uint32_t>::max()) {
        diags.error(Stage::syntax, "file-too-large", std::string(what) + " is larger than 4 GiB", SourceRange{file, 0, 0});
        return false;
    }
    st.base = text.data();
    st.end = text.data() + text.size();
    st.file = file;
    st.max_nesting = opts.options.limits.max_nesting;
    st.max_string_length = opts.options.limits.max_string_length;
    st.stdlib = opts.stdlib;
    return true;
}

std::optional<ast::Document> parse_document(const SourceManager& sm, std::uint32_t file, const ParseOptions& opts,
                                            Diagnostics& diags, StatementSink* sink);

}  // namespace parse_cpp

std::optional<ast::Document> parse(const SourceManager& sm, std::uint32_t file, const ParseOptions& opts,
                                   Diagnostics& diags, StatementSink* sink) {
    // The embedded standard library nests shallowly: in place when the stack allows.
    if (opts.stdlib && detail::ample_stack_here()) return parse_cpp::parse_document(sm, file, opts, diags, sink);
    return detail::on_deep_stack([&] { return parse_cpp::parse_document(sm, file, opts, diags, sink); });
}

std::optional<ast::Document> parse_cpp::parse_document(const SourceManager& sm, std::uint32_t file,
                                                      const ParseOptions& opts, Diagnostics& diags,
                                                      StatementSink* sink) {
    ParseState st;
    if (!parse_cpp::init_state(st, sm, file, opts, diags, "document")) return std::nullopt;
    ast::Document doc;
    doc.file = file;
    st.doc = &doc;
    st.arena = doc.arena.get();
    // The dialect checks run as the text is parsed; their diagnostics count only when the whole
    // text parses (a grammar error is then the only diagnostic, as the parse stops there).
    Diagnostics syntax(diags.max_errors());
    parse_cpp::Checker checker(opts, st, syntax);
    parse_cpp::Hooks hooks(st, checker, syntax, doc, sink);
    st.hooks = &hooks;
    if (!parse_cpp::run_rule(document_rule(), st, diags, "version statement")) return std::nullopt;
    if (!hooks.header_checked()) checker.check_header(doc);  // no graph (the standard library)

    diags.append(syntax);
    if (syntax.has_errors() || syntax.limit_reached()) return std::nullopt;
    return doc;
}

std::optional<ast::QuantDocument> parse_quant(const SourceManager& sm, std::uint32_t file, const ParseOptions& opts,
                                              Diagnostics& diags) {
    ParseState st;
    if (!parse_cpp::init_state(st, sm, file, opts, diags, "quantization file")) return std::nullopt;
    st.stdlib = false;
    ast::QuantDocument doc;
    doc.file = file;
    st.quant = &doc;
    st.arena = doc.arena.get();
    if (!parse_cpp::run_rule(quant_document_rule(), st, diags, "tensor identifier")) return std::nullopt;
    return doc;
}

}  // namespace nnef::grammar
