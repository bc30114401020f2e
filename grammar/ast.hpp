// The NNEF document AST produced by grammar::parse and consumed by semantics. Plain C++ (no X3
// types): every node carries a self-contained SourceRange.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nnef/source.hpp>
#include <nnef/value.hpp>

namespace nnef::ast {

enum class ExprKind : std::uint8_t {
    integer,        // ival; `text` holds the literal as written
    scalar,         // sval; `text` holds the literal as written
    logical,        // bval
    string,         // text (unescaped)
    identifier,     // text
    array,          // items: children
    tuple,          // items: children (also parenthesised lvalue tuples and bare `a, b` lvalues)
    unary,          // op: "-", "+", "!"; children[0]
    binary,         // op: "+ - * / ^ < <= > >= == != && || in"; children[0], children[1]
    if_else,        // children: [0] then-value, [1] condition, [2] else-value
    comprehension,  // names: loop variables; children: iterables (names.size()), then the
                    // filter if has_filter, then the yield expression (last)
    subscript,      // children: [0] object, [1] index
    range,          // children: [0] object, then begin if has_begin, then end if has_end
    builtin,        // text: shape_of length_of range_of integer scalar logical string; children[0]
    invocation,     // text: operation name; generic: explicit <type>; children: arguments;
                    // arg_names[i]: "" for positional, else the name of a named argument
    paren,          // children[0]: a parenthesised expression `(e)` (kept for faithful ranges)
};

struct Expr {
    ExprKind kind = ExprKind::integer;
    SourceRange range;
    std::int64_t ival = 0;
    double sval = 0.0;
    bool bval = false;
    bool has_filter = false;  // comprehension
    bool has_begin = false;   // range
    bool has_end = false;     // range
    bool negative_literal = false;  // integer/scalar written with a leading '-' (flat syntax)
    std::string text;
    std::string op;
    std::optional<Type> generic;       // invocation `<type>`
    SourceRange generic_range;         // range of the `<type>` part
    std::vector<std::string> names;    // comprehension loop variables
    std::vector<SourceRange> name_ranges;
    std::vector<std::string> arg_names;  // invocation
    std::vector<SourceRange> arg_name_ranges;
    std::vector<Expr> children;
};

struct Assignment {
    Expr lhs;  // identifier | array | tuple of lvalues
    Expr rhs;  // invocation in flat syntax; any expression with operator expressions
    SourceRange range;
};

struct Param {
    std::string name;
    SourceRange name_range;
    Type type;
    SourceRange type_range;
    std::optional<Expr> default_value;
};

struct Result {
    std::string name;
    SourceRange name_range;
    Type type;
    SourceRange type_range;
};

struct Fragment {
    std::string name;
    SourceRange name_range;
    bool generic = false;               // `<?>` or `<? = T>`
    std::optional<PrimType> generic_default;  // the T of `<? = T>`
    std::vector<Param> params;
    std::vector<Result> results;
    std::optional<std::vector<Assignment>> body;  // nullopt: body-less declaration `...;`
    SourceRange range;
};

struct Identifier {
    std::string name;
    SourceRange range;
};

struct GraphDef {
    std::string name;
    SourceRange name_range;
    std::vector<Identifier> params;
    std::vector<Identifier> results;
    std::vector<Assignment> body;
    SourceRange range;
};

struct Document {
    int version_major = 1;
    int version_minor = 0;
    SourceRange version_range;
    std::vector<Identifier> extensions;
    std::vector<Fragment> fragments;
    std::optional<GraphDef> graph;  // always set for a parsed document; the stdlib has none
    std::uint32_t file = 0;         // SourceManager id of the text
};

// One line of a quantization file (spec 5.3): `"tensor-id": algorithm(name = value, ...);`.
struct QuantEntry {
    std::string tensor;        // the identifier between the quotes (unescaped)
    SourceRange tensor_range;  // the quoted string, quotes included
    Expr invocation;           // ExprKind::invocation: the algorithm and its arguments
    SourceRange range;         // the whole entry, through the ';'
};

struct QuantDocument {
    std::vector<QuantEntry> entries;
    std::uint32_t file = 0;  // SourceManager id of the text
};

}  // namespace nnef::ast
