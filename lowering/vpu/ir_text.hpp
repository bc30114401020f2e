// The lossless text form of the VPU IR (lowering/vpu/ir.hpp), "nnef-vpu-ir" version 1: what
// `--print-after` writes and `nnef-to-vpu --pass NAME IN.txt` reads. JSON, laid out one item per
// line (each tensor, layer, tile, CMX buffer and task on its own line) so that FileCheck can match
// lines; docs/vpu-compiler.md, "The IR as text", lists the fields. Every field of the Module is
// written, constants' bytes in hex, so that write -> read -> write gives the same text and the
// remaining passes compile the read module to the same task list. Before assign-executors (no
// promise made) the module carries its TOSA graph (lowering/tosa/json.hpp).
#pragma once
#include <memory>
#include <optional>
#include <string>

#include <nnef/diagnostics.hpp>

#include "lowering/tosa/ir.hpp"
#include "lowering/vpu/ir.hpp"

namespace nnef::vpu::ir {

inline constexpr const char* ir_text_format = "nnef-vpu-ir";
inline constexpr int ir_text_version = 1;

std::string write_text(const Module& m);

// A module read from text; `graph` owns the TOSA graph that module.graph points to (when the text
// carries one).
struct ReadModule {
    Module module;
    std::unique_ptr<tosa::Graph> graph;
};

// Strict reading: malformed JSON, an unknown or missing field, a wrong type, a bad enumeration
// name, an index out of range or hex of the wrong length is an error (stage vpu, code "bad-vpu-ir",
// path = `name`) whose message starts with the line and column of the offending value and names
// it as a JSON pointer. Never throws.
std::optional<ReadModule> read_text(const std::string& text, const std::string& name, Diagnostics& diags);

}  // namespace nnef::vpu::ir
