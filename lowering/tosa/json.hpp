// The JSON form of a TOSA graph (schema in docs/tosa.md, "nnef-tosa-graph" version 1), written and
// read with nlohmann::json. Reading what was written gives the same graph (values, blocks,
// operators, attributes, constant data, origins' operation and tensor names).
#pragma once
#include <cstddef>
#include <optional>
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

}  // namespace nnef::tosa
