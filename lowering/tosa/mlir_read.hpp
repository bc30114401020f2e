// Reading MLIR `tosa` dialect text (TOSA 1.0, as MLIR 22 and other tools write it) into the TOSA IR
// (ir.hpp), the inverse of mlir.hpp: the back ends (the interpreter, the VPU compiler) then serve
// any TOSA producer, not only the NNEF lowering.
//
// Read: a module (pretty `module [attributes {...}] {...}` or generic `"builtin.module"() ({...})`,
// or a bare function) holding one `func.func` (or several, one of them named `main`) with tensor
// arguments and results, `tosa.*` operators in MLIR's generic form (`"tosa.conv2d"(%a, ...) <{...}>
// : (...) -> ...`) and in the pretty forms mlir-opt prints (`tosa.conv2d %a, ... {...} : (...) ->
// ...`, `tosa.cond_if %c (%x = %v) : ... {...} else {...}`, `tosa.while_loop (...) ... do {...}`,
// `tosa.variable @v = dense<...> : tensor<...>`, `tosa.variable_read @v : ...`), module-level
// `tosa.variable` symbols, `tosa.const` / `tosa.const_shape` and `!tosa.shape<N>`; constants as
// `dense<...>` (a splat, nested literal lists, or hexadecimal "0x..." data) and `dense_resource<name>`
// with the `{-# dialect_resources: { builtin: { name: "0x..." } } #-}` trailer; element types i1, i8,
// i16, i32, i48, f16, bf16, f32. Locations (`loc(...)`) and `#alias = ...` definitions are skipped.
//
// Each operator's origin is its place in the file (Origin::provenance.range), so that the
// validator's diagnostics, and any later stage's, name the MLIR line. Values keep their SSA names
// (`%conv1` -> Value::name "conv1"); numbered ones (`%12`) get that value id where they can, so that
// our own files read back to the graph that wrote them (to_mlir(read) == the file read, without
// locations). The profile is the `tosa.target_env`'s when the module has one, else PRO-INT for a
// graph with RESCALE or 8/16-bit integer tensors, else PRO-FP; MlirReadOptions may set it.
//
// Errors (stage tosa, code "bad-mlir", the file, line and column) for anything malformed, of
// another dialect, of a type TOSA 1.0 lacks, or over a limit; the reader never throws nor crashes,
// and its work and memory are bounded by the text and the limits.
#pragma once
#include <cstdint>
#include <optional>
#include <string>

#include <nnef/diagnostics.hpp>
#include <nnef/options.hpp>

#include "lowering/tosa/ir.hpp"

namespace nnef {
class SourceManager;
}

namespace nnef::tosa {

struct MlirReadOptions {
    // max_rank and max_volume bound tensor types, max_nesting the nesting of regions and literal
    // lists, max_string_length names and strings (not hexadecimal data, which the text bounds).
    Limits limits;
    // A splat constant (dense<0.0> : tensor<...>) is stored item by item: at most this many bytes.
    std::uint64_t max_splat_bytes = std::uint64_t(1) << 30;
    std::optional<Profile> profile;  // instead of the module's target or the guess above
    std::optional<Level> level;      // instead of the module's target (default 8K)
    bool validate = true;            // run the validator (profile, level, the extensions the graph uses)
};

struct MlirModule {
    Graph graph;
    Level level = Level::eight_k();
    bool profile_from_target = false;  // the module's tosa.target_env named the profiles
};

// Reads the text registered in `sources` as `file`. Null after an error (in `diags`).
std::optional<MlirModule> read_mlir(const SourceManager& sources, std::uint32_t file, const MlirReadOptions& options,
                                    Diagnostics& diags);

// Whether a path names an MLIR file (ends in .mlir): what the tools read with read_mlir.
bool is_mlir_path(const std::string& path);

}  // namespace nnef::tosa
