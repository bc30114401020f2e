// The grammar's entry point. No X3 type appears here.
#pragma once
#include <cstdint>
#include <optional>

#include <nnef/diagnostics.hpp>
#include <nnef/options.hpp>
#include <nnef/source.hpp>
#include "grammar/ast.hpp"

namespace nnef::grammar {

struct ParseOptions {
    Options options;
    // Parsing the standard library: fragment definitions and operator expressions are allowed
    // without extension declarations, body-less declarations are primitives, and there is no
    // graph (nor version statement requirement beyond what the stdlib text has).
    bool stdlib = false;
};

// Receives the graph body one statement at a time while it is parsed (a streaming parse: the
// statements are not kept in the document, and each statement's nodes are freed once the sink has
// seen it). `syntax_errors` tells whether a syntax error has been reported so far; a sink can skip
// its work then, because a document with a syntax error gets only syntax diagnostics. A syntax
// error further on ends the parse without end_graph: the caller drops what the sink made.
class StatementSink {
public:
    // The version, extensions and fragments of `doc` are complete and checked; `header` has the
    // graph's name, parameters and results (doc.graph is set only when the parse ends).
    virtual void begin_graph(const ast::Document& doc, const ast::GraphDef& header, bool syntax_errors) = 0;
    virtual void statement(const ast::Assignment& a, bool syntax_errors) = 0;
    virtual void end_graph(bool syntax_errors) = 0;

protected:
    ~StatementSink() = default;
};

// Parses the text registered as `file` in `sm`. Syntax errors (stage `syntax`), including the use
// of constructs whose extension is not enabled, are added to `diags`; on any error the result is
// nullopt. Dialect deviations accepted in the default dialect are warnings. With a `sink`, the
// graph body is streamed to it instead of being stored in the document.
std::optional<ast::Document> parse(const SourceManager& sm, std::uint32_t file, const ParseOptions& opts,
                                   Diagnostics& diags, StatementSink* sink = nullptr);

// Parses a quantization file (spec 5.3) registered as `file`: entries `"tensor-id": algo(args);`
// with matching '...' or "..." quotes, `#` comments and blank lines. The algorithm is an
// invocation of the expression grammar; argument values may be operator expressions (no extension
// is needed). Only the syntax is checked here (stage `syntax`); the meaning of each entry is
// checked by storage::apply_quantization. `opts.stdlib` is ignored. On any error: nullopt.
std::optional<ast::QuantDocument> parse_quant(const SourceManager& sm, std::uint32_t file, const ParseOptions& opts,
                                              Diagnostics& diags);

}  // namespace nnef::grammar
