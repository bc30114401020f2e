// The fast path's scanner for *plain flat documents* (no X3 type appears here).
//
// A plain flat document is the common case of exported models and of the large generated graphs
// of bench/: `version 1.0;`, no extension, no fragment, and a graph whose statements are all
// `identifier = operation(arguments);` with flat values (literals, an optional '-' glued to a
// number, identifiers, arrays and tuples of them). scan_plain_flat reads such a text with the
// grammar's own X3 token parsers (grammar/tokens.hpp: identifiers and keywords, numbers, strings,
// white space and comments) into compact statements, without building a syntax tree, and hands
// each statement to a sink.
//
// It accepts a subset of what the full grammar accepts, and only texts the full grammar accepts
// without a diagnostic: it answers false as soon as the text leaves the subset (anything else,
// including every syntax error) or the sink declines a statement. The caller then runs the full
// front end from the start, which is the definition (tests hold the two to the same results).
#pragma once
#include <cstdint>
#include <string_view>
#include <vector>

#include <nnef/graph.hpp>
#include <nnef/options.hpp>
#include <nnef/value.hpp>

namespace nnef::grammar::plain {

enum class Kind : std::uint8_t { integer, scalar, logical, string, identifier, array, tuple };

// A flat value, in preorder: a list's items follow it, and `next` is the index just past its
// subtree (for a literal or an identifier, its own index + 1).
struct Node {
    Kind kind = Kind::integer;
    bool bval = false;
    std::uint32_t next = 0;
    std::uint32_t items = 0;  // lists: number of items
    std::int64_t ival = 0;
    double sval = 0.0;
    std::string_view text;  // identifiers: the name; strings: the value (no escapes); lists and
                            // numbers: the source text as written
    std::uint32_t hash = 0;  // identifiers: Graph::hash_name of the name
};

struct Arg {
    std::string_view name;  // empty: positional
    std::uint32_t name_hash = 0;  // named: Graph::hash_name(name)
    std::uint32_t node = 0;
};

struct Statement {
    std::string_view lhs;
    std::uint32_t lhs_hash = 0;  // Graph::hash_name(lhs)
    std::string_view op;
    std::uint32_t op_hash = 0;  // Graph::hash_name(op)
    PrimType generic = PrimType::none;  // an explicit `<type>`, none when absent
    const char* begin = nullptr;        // the statement, through its ';'
    const char* end = nullptr;
    const char* rhs_begin = nullptr;    // the invocation
    const char* rhs_end = nullptr;
    std::vector<Arg> args;
    std::vector<Node> nodes;
};

struct Name {
    std::string_view text;
    const char* at = nullptr;
};

struct Header {
    const char* version_begin = nullptr;  // `1.0`
    const char* version_end = nullptr;
    Name graph;
    const char* graph_begin = nullptr;  // the `graph` keyword
    std::vector<Name> params;
    std::vector<Name> results;
};

class Sink {
public:
    // false: the document is not handled here (the caller falls back to the full front end).
    virtual bool begin_graph(const Header& h) = 0;
    virtual bool statement(const Statement& s) = 0;
    virtual bool end_graph(const char* graph_end) = 0;  // just past the closing '}'
    // Each statement's left-hand side and identifier values, as soon as they are read (before
    // the statement is complete): a sink may start fetching what it will look up.
    // `hash` is Graph::hash_name(name).
    virtual void name_seen(std::string_view name, std::uint32_t hash) {
        (void)name;
        (void)hash;
    }

protected:
    ~Sink() = default;
};

// Scans `text` (the whole document) as a plain flat document. True only if the text is one (up to
// its end) and the sink took every part of it.
//
// With `parallel_from` > 0 and a graph body of at least that many bytes, the statements are read
// on a second thread, a few hundred statements ahead of the sink; the sink still sees every call
// on the calling thread and in the same order, so the outcome is the same either way.
bool scan_plain_flat(std::string_view text, const Options& options, Sink& sink, std::size_t parallel_from = 0);

}  // namespace nnef::grammar::plain
