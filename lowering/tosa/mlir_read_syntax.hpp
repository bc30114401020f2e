// What the MLIR reader (mlir_read.cpp) takes from mlir_read_syntax.cpp: a cursor over the text
// (white space, comments, identifiers, numbers, strings), types, and attributes parsed into a small
// tree, constants decoded into ConstData. Internal to lowering/tosa.
#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "lowering/tosa/ir.hpp"
#include "lowering/tosa/mlir_read.hpp"

namespace nnef::tosa::mlir_read {

// The first error ends the reading: thrown inside the reader, caught by read_mlir.
struct ParseError {
    std::size_t at;
    std::string message;
};

class Cursor {
public:
    Cursor(std::string_view text, const MlirReadOptions& options) : text(text), opt(options) {}

    std::string_view text;
    std::size_t p = 0;
    const MlirReadOptions& opt;

    [[noreturn]] void fail(std::string message) const { throw ParseError{p, std::move(message)}; }
    [[noreturn]] static void fail_at(std::size_t at, std::string message) { throw ParseError{at, std::move(message)}; }

    void ws();  // white space and // comments
    bool at_end() {
        ws();
        return p >= text.size();
    }
    char peek() {
        ws();
        return p < text.size() ? text[p] : '\0';
    }
    bool eat(char c);
    bool eat(std::string_view punctuation);
    bool eat_word(std::string_view word);  // a keyword: not followed by an identifier character
    void expect(char c, const char* where);
    void expect(std::string_view s, const char* where);
    std::string_view bare_id(const char* what);   // [A-Za-z_][A-Za-z0-9_$.]*
    std::string_view suffix_id(const char* what);  // after % or ^: [A-Za-z0-9_$.-]+
    std::string string_literal();                  // "..." with its escapes decoded
    std::string_view raw_string();                 // "..." as written (hexadecimal data)
    std::string symbol();                          // @name or @"name"
    void skip_balanced(char open, char close);     // from `open` (the cursor on it) to its match
    void skip_location();                          // an optional loc(...)

    // A number as written: -?digits[.digits][e[+-]digits] or 0x hex digits.
    struct Number {
        std::size_t at = 0;
        std::string_view text;  // with the sign
        bool is_float = false, is_hex = false;
    };
    std::optional<Number> number();
    static std::int64_t to_int(const Number& n);  // fails when it does not fit 64 bits
    void check_nesting(std::size_t depth) const;
};

// Element types: "i1" ... "f32", "index" (shape items); nullopt otherwise.
std::optional<DType> element_type(std::string_view name);
DType parse_element_type(Cursor& c);
// tensor<AxBxT> or !tosa.shape<N> (a shape value: dtype shape, shape {N}); with `index_items`
// also tensor<Nxindex> (the type of shape data in attributes, dtype shape).
TensorType parse_value_type(Cursor& c, bool index_items = false);
// One type of a list: a value type.
std::vector<TensorType> parse_type_list(Cursor& c);  // "(t, ...)" or a single type; "()" empty
std::string type_text(const TensorType& t);          // the MLIR spelling, for messages

struct AttrNode {
    enum Kind { integer, floating, hex, boolean, string, array, dense, resource, dialect, type_value, symbol, unit, list, dict, function, other };
    Kind kind = other;
    std::size_t at = 0;
    Cursor::Number number;                 // integer, floating, hex
    std::optional<DType> number_type;      // `: i32` after a number
    std::string str;                       // string, symbol, resource name; dialect: "tosa.nan_mode"
    std::string inner;                     // dialect: the text between its <> (e.g. "PROPAGATE"); a bare
                                           // keyword (nan_mode = IGNORE in the pretty form): it, str ""
    TensorType type;                       // dense, resource, type
    bool value = false;                    // boolean
    std::vector<std::int64_t> ints;        // array
    ConstPtr data;                         // dense
    std::vector<AttrNode> items;           // list
    std::vector<std::pair<std::string, AttrNode>> entries;  // dict
    std::vector<TensorType> inputs, results;                 // function

    const AttrNode* find(std::string_view key) const;  // dict entry
};

AttrNode parse_attr(Cursor& c, std::size_t depth = 0);
// Entries up to `close` ('}' of `{...}` or of `<{...}>`); the opening is consumed by the caller.
std::vector<std::pair<std::string, AttrNode>> parse_dict_entries(Cursor& c, std::size_t depth);

// Hexadecimal blob data ("0x" + digits) of a dense_resource: a 4-byte alignment, then the items,
// decoded into a constant of `type`. `at` is where to point errors.
ConstPtr decode_blob(std::string_view hex, const TensorType& type, std::size_t at);

}  // namespace nnef::tosa::mlir_read
