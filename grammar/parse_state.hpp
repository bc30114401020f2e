// State shared by the grammar's semantic actions during one parse (private to grammar/, no X3).
#pragma once
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include <nnef/source.hpp>
#include "grammar/ast.hpp"

namespace nnef::grammar {

// A lexical error or a violated limit, thrown by a token parser and caught at the grammar boundary
// (grammar/parse.cpp) together with x3::expectation_failure.
struct SyntaxError {
    const char* where;
    std::string code;
    std::string message;
    const char* where_end = nullptr;  // end of the offending text; nullptr: one character
};

// A [b, e) slice of the source buffer.
struct Span {
    const char* b = nullptr;
    const char* e = nullptr;
};

// What the graph rules call as the graph body is parsed (implemented in grammar/parse.cpp): at
// its `{` (the header and everything before the graph are complete), for each statement, and at
// its `}`.
class GraphHooks {
public:
    virtual void begin_graph(ast::GraphDef& graph, const char* body) = 0;
    virtual void statement(ast::GraphDef& graph, ast::Assignment& a) = 0;
    virtual void end_graph(ast::GraphDef& graph) = 0;

protected:
    ~GraphHooks() = default;
};

// The one parse-time state object, injected into the X3 context under `state_tag`.
struct ParseState {
    const char* base = nullptr;  // first byte of the buffer (offsets are relative to it)
    const char* end = nullptr;   // one past the last byte
    std::uint32_t file = 0;
    std::size_t max_nesting = 512;
    std::size_t max_string_length = 1 << 20;
    std::size_t depth = 0;  // current nesting of brackets / expressions
    bool stdlib = false;
    ast::Document* doc = nullptr;                  // the document being built
    ast::QuantDocument* quant = nullptr;           // the quantization file being built
    std::vector<SourceRange> extension_commas;     // `extension A, B;` (a dialect deviation)
    ast::Arena* arena = nullptr;                   // where finished nodes go
    GraphHooks* hooks = nullptr;                   // set for documents
    // Children (and argument / loop names) of the nodes being built, innermost last: a node
    // remembers where its run starts (Expr::build_mark, name_mark) and moves the run into the
    // arena when it is complete (finish_children, finish_names).
    std::vector<ast::Expr> scratch;
    std::vector<ast::Name> scratch_names;

    void begin_children(ast::Expr& e) { e.build_mark = static_cast<std::uint32_t>(scratch.size()); }
    void begin_names(ast::Expr& e) { e.name_mark = static_cast<std::uint32_t>(scratch_names.size()); }
    void finish_children(ast::Expr& e) {
        const std::size_t mark = e.build_mark;
        e.children = ast::List<ast::Expr>(arena->copy(scratch.data() + mark, scratch.size() - mark), scratch.size() - mark);
        scratch.resize(mark);
        e.build_mark = 0;
    }
    // The names pushed since begin_names, plus `extra` more slots (see ast::Expr::names_).
    void finish_names(ast::Expr& e) {
        const std::size_t mark = e.name_mark;
        e.names_ = arena->copy(scratch_names.data() + mark, scratch_names.size() - mark);
        scratch_names.resize(mark);
        e.name_mark = 0;
    }
    // A node with exactly these children (operators), straight into the arena.
    ast::List<ast::Expr> children(std::initializer_list<ast::Expr> items) {
        return ast::List<ast::Expr>(arena->copy(items.begin(), items.size()), items.size());
    }

    SourceRange range(const char* b, const char* e) const {
        return SourceRange{file, static_cast<std::uint32_t>(b - base), static_cast<std::uint32_t>(e - base)};
    }
    SourceRange range(Span s) const { return range(s.b, s.e); }
    const char* at(std::uint32_t offset) const { return base + offset; }
};

// Increments the nesting depth and throws SyntaxError{max-nesting} beyond the limit.
class NestGuard {
public:
    NestGuard(ParseState& st, const char* where) : st_(st) { enter(st, where); }
    ~NestGuard() { --st_.depth; }
    NestGuard(const NestGuard&) = delete;
    NestGuard& operator=(const NestGuard&) = delete;

    static void enter(ParseState& st, const char* where) {
        if (++st.depth > st.max_nesting) {
            --st.depth;
            throw SyntaxError{where, "max-nesting",
                              "nesting is deeper than the limit max_nesting = " + std::to_string(st.max_nesting)};
        }
    }

private:
    ParseState& st_;
};

}  // namespace nnef::grammar
