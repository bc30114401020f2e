// The TOSA interpreter: runs a Graph by the operation functions of the spec (specs/tosa-1.0.1.md,
// chapter 2) and its pseudocode helpers (chapter 4). It is the ground truth for the VPU simulator.
//
// Integer arithmetic is bit-exact: zero points, int32 / int48 accumulators, apply_scale_32 (with
// double rounding) and apply_scale_16, RESCALE with per-channel scales and unsigned inputs or
// outputs, TABLE with 8-bit tables and 16-bit interpolation, saturation, INTDIV truncation and
// the shifts. Floating-point operators meet the spec's precision requirements: fp32 items are
// computed in fp32 (convolutions, MATMUL and TRANSPOSE_CONV2D with the GEMM of exec/gemm.hpp, as
// nnef-run does), fp16 and bf16 items in fp32 or fp64 and then rounded to nearest, ties to even.
//
// Before a graph runs, every operator's own rules (ERROR_IF, REQUIRE and argument tables that its
// attributes, shapes and constant operands decide) are checked by the validator's family checks,
// with the validator's codes and wording (operator_rules, validator.hpp): Interpreter::create refuses
// a graph that breaks one. A condition the spec marks ERROR_IF that depends on the data stops the
// run with an error (code `tosa-error-if`, the validator's); so does a
// failed REQUIRE that this interpreter detects (code `tosa-require`, the validator's: integer
// overflow of an accumulator or an apply_*_s helper, out-of-range shifts, scale arguments, GATHER /
// SCATTER indices, variables used before they are declared or written, ...), except in POW, whose
// result is computed by std::pow for every input (the spec leaves it unpredictable for a negative
// base). The kernels do not repeat the family checks: the ranks, shapes and attributes they index
// by are checked before the run, so a malformed graph gets an error, never a crash. Level limits
// are the validator's only; data types a kernel has no form for are refused when it runs. CUSTOM
// operators are refused (code `custom-op`). Diagnostics are stage `tosa` and located at the NNEF
// source of the operator's origin. std-only.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nnef/diagnostics.hpp>

#include "lowering/tosa/ir.hpp"
#include "lowering/tosa/scale.hpp"

namespace nnef::tosa {

struct InterpretOptions {
    // Called with every value an operator computes (in every block, each time it is computed),
    // e.g. to dump intermediate tensors. The ConstPtr may be kept.
    std::function<void(ValueId, const ConstPtr&)> observe;
    // Threads for convolutions and matrix products (as nnef-run's executor).
    unsigned threads = 2;
    // MAX_NESTING of COND_IF / WHILE_LOOP (the one level limit that is checked at run time).
    Level level = Level::none();
    // A WHILE_LOOP that has not ended after this many iterations is an error (0: no limit).
    std::uint64_t max_loop_iterations = 10000000;
};

// Runs a graph more than once, keeping the VARIABLE tensors between runs (spec 2.2: a context's
// variable tensors persist across graph executions). The graph must outlive the interpreter.
class Interpreter {
public:
    // Checks what can be checked before running: every operator's operand and result count and
    // attributes, block references, CUSTOM operators (refused). Stage `tosa`.
    static std::unique_ptr<Interpreter> create(const Graph& graph, InterpretOptions options, Diagnostics& diags);
    ~Interpreter();

    // Runs the main block on `inputs` (its input values in order, with exactly their types) and
    // returns its outputs in order; nullopt after an error.
    std::optional<std::vector<ConstPtr>> run(const std::vector<ConstPtr>& inputs, Diagnostics& diags);

    // The current value of variable `name`: null before it is declared or while it has not been
    // written.
    ConstPtr variable(const std::string& name) const;
    const Graph& graph() const;

    struct Impl;  // implementation detail (interpreter.cpp)

private:
    explicit Interpreter(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> impl_;
};

// One run of `graph` (a fresh variable context).
std::optional<std::vector<ConstPtr>> interpret(const Graph& graph, const std::vector<ConstPtr>& inputs,
                                               const InterpretOptions& options, Diagnostics& diags);

// The spec's scaling helpers (apply_scale_32, apply_scale_16, reciprocal_scale, apply_lookup_s):
// lowering/tosa/scale.hpp.

// Round-to-nearest-even conversions of a double to the 16-bit formats (one rounding step, so
// that fp16 / bf16 results computed in double are correctly rounded).
std::uint16_t fp64_to_fp16(double d);
std::uint16_t fp64_to_bf16(double d);

}  // namespace nnef::tosa
