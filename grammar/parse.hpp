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

}  // namespace nnef::grammar
