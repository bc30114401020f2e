// Lowering a flat NNEF graph (as loaded, with its weights) to a TOSA 1.0.1 graph
// (specs/tosa-1.0.1.md): the legalization of each NNEF operation (lowering/tosa/from_nnef/, one
// place per operation, by family), then the layout passes (lowering/tosa/passes/) that fold and
// cancel the TRANSPOSE operators the legalization puts around every NHWC operator.
//
// The result's main block has the NNEF graph's externals as inputs and its outputs as outputs, in
// order, with NNEF's shapes and layout (NCHW); the layout changes happen inside. Values that stand
// for NNEF tensors carry their names. Every operator has an Origin: the NNEF operation it came from
// and its source range, which diagnostics of later stages name.
//
// An NNEF operation without a TOSA form (a custom operation, an operation whose TOSA form this
// lowering refuses for a documented reason) is an error (stage tosa, code `unsupported-operation`)
// that names it, its source line and why; never a silent skip.
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <nnef/diagnostics.hpp>
#include <nnef/graph.hpp>

#include "lowering/pass_manager.hpp"
#include "lowering/tosa/ir.hpp"
#include "storage/quantization.hpp"

namespace nnef::tosa {

struct LowerOptions {
    Profile profile = Profile::pro_fp;
    Level level = Level::eight_k();
    // Validate the graph (lowering/tosa/validator.hpp) after the legalization and after every pass.
    bool verify_each = true;
    // Pass names ("legalize-nnef-to-tosa", the layout passes, or "all") after which `print`
    // receives the graph as text.
    std::set<std::string> print_after;
    std::function<void(const std::string& pass, const std::string& text)> print;
    // Variables get pseudo-random weights from this seed instead of their tensor data (the same
    // values `nnef-run --random-weights SEED` uses; storage/random_data.hpp).
    std::optional<std::uint64_t> random_weights;
    // Run the layout passes (off: the legalized graph, with a TRANSPOSE around every NHWC operator).
    bool layout_passes = true;
    // PRO-INT: a convolution's float bias that lies between its accumulator's steps (input scale
    // times weight scale) is added at a finer grid (the accumulator clamped and times 2^j, then one
    // RESCALE), so that the codes are nnef-run's, which adds the bias exactly; true rounds it to the
    // accumulator's grid instead (one CONV2D + RESCALE, the form an NCE packs into one layer, but up
    // to half an accumulator step off: codes near ties move, AlexNet int8: 390 of 1000 outputs).
    bool bias_on_accumulator_grid = false;
};

// The whole lowering: legalization, then the layout pipeline, with the verifier after each step
// (LowerOptions::verify_each). Errors are stage tosa diagnostics; nullopt after any error.
std::optional<Graph> lower_to_tosa(const nnef::Graph& model, const LowerOptions& options, Diagnostics& diags);

// The legalization alone (the pass named "legalize-nnef-to-tosa").
std::optional<Graph> legalize_nnef(const nnef::Graph& model, const LowerOptions& options, Diagnostics& diags);

// The passes after the legalization, in order (lowering/tosa/passes/), with the validator
// (lowering/tosa/validator.hpp, at the options' profile and level) as the verifier.
lowering::Pipeline<Graph> layout_pipeline(const LowerOptions& options);

// ---- quantized graphs (PRO-INT) ---------------------------------------------------------------

// At PRO-INT a quantized graph (graph.quant entries or quantize fragments) is lowered in integers
// (lowering/tosa/from_nnef/integer.hpp; each operation by its registry entry's `lower_integer`): its
// function takes and returns the i8 codes of the graph inputs' and outputs' graph.quant entries.
// The i8 code of a tensor's entry is the entry's code plus `offset` (-128 for unsigned 8-bit codes, 0
// otherwise); real = params.dequantize(code - offset).
struct IntegerCodes {
    storage::QuantParams params;
    std::int64_t offset = 0;
};
// The codes of `tensor`'s graph.quant entry; nullopt when it has none or none with an i8 form.
std::optional<IntegerCodes> integer_codes(const nnef::Graph& model, const std::string& tensor);
// The i8 (i16 for more than 8 bits) codes of the reals of a tensor of `shape` on such a grid, as
// nnef-run's simulated quantization rounds them (integer_codes.cpp), and the reals of codes. A
// per-channel entry applies along its axis; a shape it does not broadcast to is an error (nullopt).
std::optional<std::vector<std::int64_t>> codes_of(const IntegerCodes& codes, const Shape& shape, const std::vector<double>& reals);
std::optional<std::vector<double>> reals_of(const IntegerCodes& codes, const Shape& shape, const std::vector<std::int64_t>& items);
namespace from_nnef {
// A quantized graph (graph.quant entries or quantize fragments): default_profile picks PRO-INT for it.
bool is_quantized(const nnef::Graph& model);
}  // namespace from_nnef

// ---- the options a user names (lower_options.cpp) ----------------------------------------------
// One rule and one set of names for every tool with --profile / --bias-grid (nnef-to-tosa,
// nnef-to-vpu, nnef-run --via tosa) and the Python package's profile= / bias_grid=.

// The profile a model is lowered at when none is asked for: PRO-INT for a quantized model (its
// natural lowering: i8 codes, i32 accumulators, RESCALE; the VPU's int8 path), PRO-FP for any other,
// and for a quantized model whose quantization is not simulated (`quantization` false: nnef-run
// --no-quant). An unquantized model so never meets PRO-INT's refusal of float operators by default.
Profile default_profile(const nnef::Graph& model, bool quantization = true);
// The profile named "pro-fp" or "pro-int" (--profile's values); nullopt for any other text.
std::optional<Profile> profile_named(std::string_view name);
// The setting of LowerOptions::bias_on_accumulator_grid named "fine" (false, the default: codes as
// nnef-run computes them) or "accumulator" (true: one CONV2D + RESCALE per convolution, one NCE
// layer; codes near ties may move by one); nullopt for any other text.
std::optional<bool> bias_on_accumulator_grid_named(std::string_view name);

// ---- the registry of legalizations -----------------------------------------------------------

namespace from_nnef {
class Context;
namespace integer {
class Lowering;
}
}  // namespace from_nnef

// One NNEF operation: how it becomes TOSA operators, or why it does not.
struct Legalization {
    std::string op;      // the NNEF operation (fragment) name
    std::string family;  // the file of lowering/tosa/from_nnef/ that handles it, e.g. "sliding_window"
    // Emits the TOSA operators for the context's current operation and binds its results; returns
    // false after reporting an error. Null for a refusal.
    std::function<bool(from_nnef::Context&)> lower;
    std::string refusal;  // a refusal: why there is no TOSA form (set exactly when `lower` is null)
    // The integer form (PRO-INT, a quantized graph: lowering/tosa/from_nnef/integer.hpp): emits the
    // operators on the codes of the operation's quantized tensors. Null: the operation has no integer
    // form, which is an error in a quantized graph at PRO-INT.
    std::function<bool(from_nnef::integer::Lowering&)> lower_integer = {};
};

// Every entry, sorted by operation name.
const std::vector<Legalization>& legalizations();
const Legalization* find_legalization(std::string_view op);

}  // namespace nnef::tosa
