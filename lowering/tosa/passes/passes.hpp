// The passes after the legalization (each one transformation, on the main block), and the helpers
// they share. The layout passes turn the legalization's TRANSPOSE around every NHWC operator into
// a graph with transposes only where the layout really changes (a plain CNN: at its input and, for
// a 4-D output, at its output).
#pragma once
#include <cstdint>
#include <vector>

#include <nnef/diagnostics.hpp>

#include "lowering/pass_manager.hpp"
#include "lowering/tosa/from_nnef.hpp"
#include "lowering/tosa/ir.hpp"

namespace nnef::tosa::passes {

// fold-constant-layouts: TRANSPOSE, RESHAPE and SLICE of a CONST (with a CONST_SHAPE start) become
// a CONST (a reshape views the same items; a transpose permutes them and a slice copies its box
// once, at lowering time). The operators run in order, so a chain of them folds in one walk.
bool fold_constant_layouts(Graph& g, Diagnostics& diags);
// push-transposes: an element-wise operator (or a reduction) whose transposed operands all carry the
// same permutation, the others being constants, works on the operands before the permutation and is
// followed by it: TRANSPOSEs move down the graph to where they meet their inverses.
bool push_transposes(Graph& g, Diagnostics& diags);
// cancel-transposes: TRANSPOSE of a TRANSPOSE composes (and disappears when the composition is the
// identity); a TRANSPOSE that moves only extent-1 dimensions is a RESHAPE; RESHAPE of a RESHAPE is
// one RESHAPE, and a RESHAPE to the same shape disappears.
bool cancel_transposes(Graph& g, Diagnostics& diags);
// fold-pads: a PAD of height and width that only a CONV2D, DEPTHWISE_CONV2D or MAX_POOL2D reads
// becomes the reader's own padding where the result is provably the same (the pad value is the
// convolution's input zero point, or the least value for a max pool; never for AVG_POOL2D, whose
// divisor would change; fold_pads.cpp states the cases).
bool fold_pads(Graph& g, Diagnostics& diags);
// eliminate-dead-code: operators whose results nothing uses (and that have no effect) go.
bool eliminate_dead_code(Graph& g, Diagnostics& diags);

std::vector<lowering::Pass<Graph>> layout_passes(const LowerOptions& options);

// ---- helpers ----------------------------------------------------------------------------------

// Items of `c` permuted: out[i0..ir] = c[i_perms[0]..], the result shape[i] = c.shape[perms[i]].
ConstPtr permute(const ConstData& c, const std::vector<std::int64_t>& perms);
// The box of `c` at `start` with extents `size` (SLICE's items); null when it is not inside `c`
// (the verifier names the SLICE).
ConstPtr slice(const ConstData& c, const std::vector<std::int64_t>& start, const Shape& size);
std::vector<std::int64_t> inverse(const std::vector<std::int64_t>& perms);
bool is_identity(const std::vector<std::int64_t>& perms);
// The index of the operator producing each value of the main block (-1: none).
std::vector<std::int64_t> producers(const Graph& g);
// Every use of `from` (operands of all blocks, block outputs) becomes `to`.
void replace_uses(Graph& g, ValueId from, ValueId to);

// The main block rebuilt operator by operator: the constructor takes its operators out (`ops`),
// emit() appends one to the new block, producer() is the emitted operator producing a value.
struct Rebuild {
    Graph& g;
    std::vector<Op> ops;              // the block's operators before the pass
    std::vector<std::int64_t> prod;   // value -> index of its producer in the new block (-1: none)
    explicit Rebuild(Graph& graph);
    void emit(Op op);
    const Op* producer(ValueId v) const;
};

}  // namespace nnef::tosa::passes
