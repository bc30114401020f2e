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

// Parses the text registered as `file` in `sm`. Syntax errors (stage `syntax`), including the use
// of constructs whose extension is not enabled, are added to `diags`; on any error the result is
// nullopt. Dialect deviations accepted in the default dialect are warnings.
std::optional<ast::Document> parse(const SourceManager& sm, std::uint32_t file, const ParseOptions& opts,
                                   Diagnostics& diags);

// Parses a quantization file (spec 5.3) registered as `file`: entries `"tensor-id": algo(args);`
// with matching '...' or "..." quotes, `#` comments and blank lines. The algorithm is an
// invocation of the expression grammar; argument values may be operator expressions (no extension
// is needed). Only the syntax is checked here (stage `syntax`); the meaning of each entry is
// checked by storage::apply_quantization. `opts.stdlib` is ignored. On any error: nullopt.
std::optional<ast::QuantDocument> parse_quant(const SourceManager& sm, std::uint32_t file, const ParseOptions& opts,
                                              Diagnostics& diags);

}  // namespace nnef::grammar
