// The JSON form of a TOSA graph (schema in docs/tosa.md, "nnef-tosa-graph" version 1), written and
// read with nlohmann::json. Reading what was written gives the same graph (values, blocks,
// operators, attributes, constant data, origins' operation and tensor names).
#pragma once
#include <cstddef>
#include <optional>
#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

#include "lowering/tosa/ir.hpp"

namespace nnef {
class Diagnostics;
class SourceManager;
}  // namespace nnef

namespace nnef::tosa {

struct JsonOptions {
    // Constants with more than `elide_above` items are written without their data
    // ("elided": true); such a file describes the structure and cannot be read back.
    bool elide_weights = false;
    std::size_t elide_above = 16;
    // With it, origins carry the NNEF source file, line and column.
    const SourceManager* sources = nullptr;
};

nlohmann::json to_json(const Graph& g, const JsonOptions& options = {});

// Reads the JSON form; on malformed input reports errors (stage tosa, code "bad-tosa-json", the
// JSON pointer of the problem in the message) and returns nothing. `source` names the input in
// messages.
std::optional<Graph> graph_from_json(const nlohmann::json& j, Diagnostics& diags, const std::string& source = "TOSA JSON");

// ---- the codec of one attribute and of a constant: the one JSON form of TOSA attributes and
// constants, which the VPU side (the task list's SHAVE params, docs/vpu.md; the VPU IR text,
// docs/vpu-compiler.md) uses too.

// Thrown by the readers below: what() is "POINTER: what was expected" (POINTER the `where` given).
struct JsonError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// An attribute of kind spec.kind: integers, booleans, integer arrays, numbers (the strings "inf",
// "-inf", "nan" for what JSON cannot hold; an integer CLAMP bound as an integer), enumerators and
// element types by name, a constant as {"type", "shape", "data": HEX}, a block as {"block": N}.
nlohmann::json attribute_to_json(const Attr& a, const AttrSpec& spec, const JsonOptions& options = {});
// Reads what attribute_to_json writes; `block_count` bounds a block reference (the main block,
// 0, is none). Throws JsonError naming `where`.
Attr attribute_from_json(const nlohmann::json& j, const AttrSpec& spec, const std::string& where, std::size_t block_count = 0);

// A constant as numbers: {"dtype": "i8", "shape": [1], "values": [0]} (the task list's form of a
// SHAVE kernel's constant operands; "dtype": "shape" for a shape_t value). Values are exact for
// every integer type; float items are written as numbers (non-finite ones as "inf", "-inf", "nan").
nlohmann::json constant_to_values_json(const ConstData& c);
// Reads that form: every item must be a value of the dtype (an integer in its range, a bool as
// true / false or 0 / 1, a number or "inf" / "-inf" / "nan" for the float types). Throws JsonError.
ConstPtr constant_from_values_json(const nlohmann::json& j, const std::string& where);

}  // namespace nnef::tosa
