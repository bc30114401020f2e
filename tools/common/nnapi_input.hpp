// An NNAPI 1.0 model in its JSON form (docs/nnapi.md) as the tools' input (nnef-to-tosa,
// nnef-to-vpu): recognised by its content, read and validated by nnapi::read_model and
// nnapi::validate, lowered by nnapi::to_tosa and checked by the TOSA validator. Errors are the
// reader's and the validator's diagnostics (the file named) and end the run with status 1 (2 for
// an unreadable file).
#pragma once
#include <map>
#include <string>

#include "cli.hpp"
#include "lowering/tosa/from_nnef.hpp"
#include "lowering/tosa/mlir_read.hpp"

namespace nnef::cli {

// Whether `path` is a regular file holding an NNAPI model's JSON form: its first non-blank byte is
// '{' and its first MB names the members "operands" and "operations" (no other JSON the tools
// read has them: a VPU task list has "tasks", a tool document "schema_version"). Judged by
// content, whatever the file's name; a malformed NNAPI JSON is still recognised, so that its
// reader's error is what the user sees.
bool is_nnapi_json(const std::string& path);

struct NnapiInput {
    tosa::MlirModule module;  // the TOSA graph (inputs and outputs "operand N"), level 8K
    // The grids of the graph's quantized inputs and outputs, by name: TOSA i8 code c - 128 of the
    // NNAPI uint8 code c (offset -128), real = (c - zeroPoint) * scale.
    std::map<std::string, tosa::IntegerCodes> codes;
};

// Reads, validates and lowers `path`. `uint8_io`: quantized inputs and outputs hold NNAPI's uint8
// codes (unsigned RESCALEs, nnef-to-tosa); false: the i8 codes c - 128 (nnef-to-vpu, whose compiler
// takes no unsigned RESCALE).
NnapiInput read_nnapi_input(Tool& tool, const std::string& path, bool uint8_io);

}  // namespace nnef::cli
