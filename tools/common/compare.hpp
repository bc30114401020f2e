// --compare: one comparison of an output with a reference for every tool (nnef-run, nnef-to-vpu),
// its options (--rtol, --atol, --max-quanta-off, --max-share-off), its result line and its JSON.
//
// Real outputs:      match when max|out - ref| <= atol + rtol * max|ref| over the items where both
//                    are finite, and no item is NaN or infinite on one side only (or infinite with
//                    the other sign).
// Quantized outputs (a linear graph.quant entry: the values lie on a grid of step `scale`):
//                    the difference of each item in quanta, |out - ref| / scale; match when the
//                    largest is <= --max-quanta-off and the share of items more than one quantum
//                    off is <= --max-share-off (and no one-sided NaN or infinity).
// docs/cli.md says why these definitions and the defaults.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include <nnef/graph.hpp>

#include "cli.hpp"
#include "storage/quantization.hpp"
#include "storage/tensor_file.hpp"

namespace nnef::cli {

struct CompareOptions {
    std::string dir;  // --compare DIR; empty: no comparison
    double rtol = 1e-4;
    double atol = 0.0;
    double max_quanta_off = 2.0;
    double max_share_off = 0.02;
};

// Binds --compare, --rtol, --atol, --max-quanta-off and --max-share-off (the defaults shown in
// --help are the values `c` holds; `rtol_note` says why a tool's default differs, if it does).
void add_compare_options(Options& options, CompareOptions& c, const std::string& rtol_note = "");

// The reference file of output `name`: DIR/NAME.dat, or DIR/output.dat for the one output of a
// graph when DIR/NAME.dat does not exist.
std::string reference_path(const std::string& dir, const std::string& name, bool only_output);

struct Comparison {
    std::string name, reference;
    std::uint64_t items = 0;
    std::uint64_t one_sided = 0;  // items NaN or infinite on one side only
    double max_abs = 0.0, max_ref = 0.0, rel_l2 = 0.0;
    // quantized outputs
    bool quantized = false;
    double scale = 0.0;  // the step (per-tensor; the smallest of the channels')
    double max_quanta = 0.0;
    std::uint64_t items_off = 0;  // more than one quantum off
    double share_off = 0.0;
    bool match = false;
};

// Compares `out` with `ref` (row-major items of `shape`). `grid`: the output's quantization (a
// linear algorithm), or null for a real output.
Comparison compare(const std::string& name, const std::string& reference, const std::vector<double>& out,
                   const std::vector<double>& ref, const Shape& shape, const storage::QuantParams* grid,
                   const CompareOptions& options);

// The result line ("compare NAME with FILE: ...: match") and the JSON of one comparison; the
// JSON member `compare` of a document ({rtol, atol, max_quanta_off, max_share_off, match, outputs}).
std::string comparison_text(const Comparison& c);
Json comparison_json(const Comparison& c);
Json compare_json(const std::vector<Comparison>& list, const CompareOptions& options);
// The error message after a mismatch (the criteria).
std::string mismatch_message(const std::vector<Comparison>& list, const CompareOptions& options);

// The linear quantization of tensor `name` of `g` (graph.quant), or nothing (none, logarithmic,
// or unusable parameters).
std::optional<storage::QuantParams> linear_grid(const Graph& g, const std::string& name);

// A tensor file of the integer codes of `reals` on `grid` (the entry's bits and signedness), for
// --output-codes.
Result<storage::TensorDataPtr> codes_tensor(const storage::QuantParams& grid, const Shape& shape,
                                            const std::vector<double>& reals);

}  // namespace nnef::cli
