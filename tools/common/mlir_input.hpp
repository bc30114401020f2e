// A TOSA MLIR file as the tools' input (nnef-to-tosa, nnef-to-vpu, nnef-run --via tosa): the file
// read (an I/O error ends the run with status 2), parsed and validated by tosa::read_mlir with the
// front end's limits (--max-rank, --max-volume, --max-nesting, ...); its diagnostics are reported
// with the file's lines, and an invalid file ends the run with status 1.
#pragma once
#include <optional>
#include <string>

#include <nnef/source.hpp>

#include "cli.hpp"
#include "lowering/tosa/mlir_read.hpp"

namespace nnef::cli {

// Reads `path` into `sources`. `profile` ("pro-fp", "pro-int" or empty) overrides the file's. With
// `name_interface`, graph inputs and outputs without a name (`%0`) are named `input<i>` and
// `output<i>` (what --input, --compare and output files go by).
tosa::MlirModule read_mlir_input(Tool& tool, const std::string& path, const std::string& profile, SourceManager& sources,
                                 bool name_interface = false);

}  // namespace nnef::cli
