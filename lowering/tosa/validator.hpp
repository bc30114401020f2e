// The TOSA 1.0.1 validator (specs/tosa-1.0.1.md): checks a tosa::Graph against the spec, the
// verifier that runs after every lowering pass. std-only.
//
// What it checks, per operator of every block:
//   - SSA form: every value is defined once (a block input or one operator result) before it is
//     used, in the block that uses it (control-flow graphs see only their own inputs, as
//     tosa_execute_graph gives them nothing else); block outputs are defined in the block; every
//     COND_IF / WHILE_LOOP graph is a block of its own, used by exactly one operator;
//   - operand and result counts, attributes (every required one present with its kind's type, no
//     unknown ones, T<i32_t> values in range), the argument tables' ranks and fixed shapes ([1] zero
//     points, [NC] RESCALE arrays, [TABLE_SIZE] tables...);
//   - the Supported Data Types table of the operator (a data table in its family file,
//     lowering/tosa/ops/<family>.cpp, one row per row of the spec) against the profile and the
//     enabled extensions;
//   - Compile Time Constant inputs come from CONST / CONST_SHAPE (unless EXT-DYNAMIC);
//   - every ERROR_IF of the operator's pseudocode, the REQUIREs that the constant operands decide
//     (shift ranges, TABLE sizes, divisors, gather/scatter indices), the LEVEL_CHECKs against the
//     level (MAX_RANK, MAX_KERNEL, MAX_STRIDE, MAX_SCALE, MAX_NESTING, MAX_TENSOR_LIST_SIZE) and
//     MAX_LOG2_SIZE (1.11.1: every tensor's size in bytes fits tensor_size_t), and the result types
//     that the spec implies (infer_output_types).
// The cost is linear in the number of operators and values: constant items are read only where the
// spec's rules depend on them (zero points, shift and multiplier arrays, TABLE, constant shift /
// divisor / index operands), never for weights.
//
// Diagnostics are at stage `tosa`, code "tosa-<rule family>"; the message names the operator (kind,
// index and block, the NNEF operation it came from), the rule as the spec writes it, and what was
// found; the range is the NNEF source range of the operator's origin (notes: the fragment calls).
//
// Extensions whose element types the IR has no DType for (EXT-INT4: i4; EXT-FP8E4M3, EXT-FP8E5M2:
// fp8) are accepted as names, but their table rows can never match a value of the IR.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nnef/diagnostics.hpp>

#include "lowering/tosa/ir.hpp"

namespace nnef::tosa {

// Profile extensions (spec 1.6, table 3).
enum class Extension : std::uint8_t {
    int16, int4, bf16, fp8e4m3, fp8e5m2, fft, variable, controlflow, dynamic, doubleround, inexactround
};
inline constexpr std::size_t extension_count = 11;
const char* to_string(Extension);  // the spec's name, e.g. "EXT-INT16"
// Accepts the spec's name ("EXT-BF16") in any case, with or without the "EXT-" prefix.
std::optional<Extension> extension_from_string(std::string_view);
// Whether an extension may be used with a profile (table 3, "Allowed profiles").
bool extension_allowed(Extension, Profile);

struct ValidateOptions {
    Profile profile = Profile::pro_fp;
    Level level = Level::eight_k();
    std::vector<std::string> extensions;  // e.g. {"EXT-BF16", "EXT-CONTROLFLOW"}
    // Profiles the target implements besides `profile` (an implementation may implement both,
    // spec 1.6; e.g. a PRO-INT graph that also computes in floating point needs PRO-FP too).
    std::vector<Profile> also_profiles;
};

// Checks the whole graph; reports every problem found (the first per operator) and returns
// whether there was none. Unknown extension names, and extensions that none of the profiles
// allows, are errors too.
bool validate(const Graph& g, const ValidateOptions& options, Diagnostics& diags);

// validate() as the verifier of a lowering::Pipeline<Graph> (pass_manager.hpp): each diagnostic
// gets a note naming the pass after which the graph broke the rule (`after_pass` empty: the input
// of the pipeline).
bool validate_after_pass(const Graph& g, const ValidateOptions& options, const std::string& after_pass,
                         Diagnostics& diags);

// The result types the spec implies for `op` of `g`, from its operands' types, its attributes and
// its constant shape operands (the argument tables and the ERROR_IF formulas), independent of the
// profile and level. Where the spec leaves an element type open (CAST's out_t, the accumulator of
// an fp16 MATMUL) the op's existing result values, when it has them, decide; CUSTOM results are
// implementation defined. On failure returns nullopt and says why in `why`.
std::optional<std::vector<TensorType>> infer_output_types(const Graph& g, const Op& op, std::string* why = nullptr);

// The first of an operator's own rules that it breaks (the structure, the argument tables, the
// ERROR_IFs and REQUIREs its attributes, shapes and constant operands decide; no level, no
// data-type table): its code ("tosa-error-if", "tosa-require", "tosa-argument", ...) and message
// (`ERROR_IF(rule): what was found`), as the validator reports them; nullopt when they hold. The
// interpreter checks every operator so before it runs a graph: one source for these rules.
// `producers` (value -> the operator defining it) speeds up constant look-ups when given.
struct RuleFailure {
    std::string code;
    std::string message;
    std::string site;  // the rule's place in the checks: "ops/data_layout.cpp:123" (for the tests)
};
std::optional<RuleFailure> operator_rules(const Graph& g, const Op& op, const std::vector<const Op*>* producers = nullptr);

}  // namespace nnef::tosa
