// The reference executor (`nnef-run`): runs a flat graph with the kernels of exec/kernels, one
// operation at a time in the graph's topological order, for one or more cycles (spec 2.4: feed the
// externals, execute, read out; variables keep their values between cycles and `update` replaces
// them after a cycle, spec 4.8). std-only.
//
// Data types: scalar as float32 (float64 in the NNEF_EXEC_FLOAT64 build, namespace nnef::exec64;
// exec/precision.hpp), integer as int64, logical as bool (exec/tensor.hpp).
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <nnef/diagnostics.hpp>
#include <nnef/graph.hpp>
#include <nnef/tensor_data.hpp>

#include "exec/tensor.hpp"

namespace nnef::NNEF_EXEC_NS {

struct ExecOptions {
    unsigned threads = 2;
    // Variables get pseudo-random values from this seed instead of their tensor data (for models
    // stored without weights). See random_weights().
    std::optional<std::uint64_t> random_weights;
    // Intermediate tensors kept after a cycle (besides the graph outputs and the variables), e.g.
    // for dumping; keep_all keeps every tensor.
    std::set<std::string> keep;
    bool keep_all = false;
    // graph.quant (Tensor::quantization; storage/quantization.hpp). Variables whose tensor data
    // holds integer codes are always dequantized by their entry (the stored codes stay untouched in
    // Tensor::data). With simulate_quantization, every tensor with an entry (inputs, variables,
    // constants, results) is also rounded to its entry's grid right after it is computed, as the
    // quantized model computes (spec 7.1); without, the model runs in float (`nnef-run --no-quant`).
    bool simulate_quantization = true;
    // How the simulation follows graph.quant.
    //  spec: as above: every tensor with an entry, graph inputs included (spec 7.1's example
    //    quantizes the input), the fragment's formula in double with round() ties up (spec 4.2.1).
    //  nnef_tools: as NNEF-Tools' PyTorch interpreter (nnef_tools.execute) does, to reproduce its
    //    outputs: only results of operations are rounded (graph inputs, variables and constants
    //    keep their values; stored codes are still dequantized), in float32 steps with ties to
    //    even (QuantParams::fake_quantize_float32). Not the spec's reading; docs/exec.md says why it
    //    exists. nnef-run --quant-like nnef-tools sets it with exact_sums.
    enum class QuantMode { spec, nnef_tools };
    QuantMode quant_mode = QuantMode::spec;
    // Convolution sums (bias included) accumulated in double and rounded once to the scalar type,
    // instead of float32 blocked sums (slower; for comparing with a reference whose sums are
    // correctly rounded, where one-ulp differences flip quantized values).
    bool exact_sums = false;
};

class Executor {
public:
    // Checks the graph: every operation has a kernel, every tensor a known dtype and shape, every
    // variable tensor data (unless random_weights), every graph.quant entry to apply a standard
    // quantization algorithm whose parameters fit the tensor. Errors are stage `data` diagnostics
    // located at the operation or the graph.quant entry (codes: no-kernel, unknown-shape,
    // missing-weights, bad-quantization).
    static Result<std::unique_ptr<Executor>> create(const Graph& graph, ExecOptions options = {});
    ~Executor();

    const Graph& graph() const;

    // Feeds the graph input `name` (an external of the graph) for the following cycles. The shape
    // must equal the declared shape; numbers convert to the declared dtype. Stage `data`.
    bool set_input(const std::string& name, const TensorValue& value, Diagnostics& diags);
    // Runs one cycle. All inputs must have been fed. On an error the cycle's results are invalid.
    bool run(Diagnostics& diags);
    // The value of tensor `name` in the last cycle: graph outputs and kept tensors; null otherwise.
    const TensorValue* tensor(const std::string& name) const;
    // The current value of the variable tensor `name` (after the last cycle's updates; before the
    // first cycle, its initial value); null if `name` is not a variable.
    const TensorValue* variable(const std::string& name) const;
    std::uint64_t cycles() const;

    struct Impl;  // implementation detail (exec/executor.cpp)

private:
    explicit Executor(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> impl_;
};

// The standard compounds that have no dedicated kernel: a graph runs when these are expanded
// (FlattenOptions::expand). Sorted.
std::vector<std::string> compounds_without_kernel();

// The items of stored tensor data as a run-time tensor of `dtype` (float32 data is used in place,
// other encodings are decoded); nullopt for opaque (vendor) data.
std::optional<TensorValue> from_tensor_data(const TensorData& data, PrimType dtype);

// Pseudo-random data (deterministic for a seed on every platform): scalar items from N(0, 1)
// (rounded to float32 also in the float64 build, so that both builds get the same values),
// integer items in [0, 10), logical items true or false with equal chance.
TensorValue random_tensor(PrimType dtype, const Shape& shape, std::uint64_t seed);
// Weights for a variable of this shape: scalar items uniform in [-a, a] with a = sqrt(3 / fan_in)
// (fan_in: the volume divided by the first extent, for rank 2 or more; else 1), so that
// activations keep their scale through deep networks; `positive` (variances, scales) gives
// items in [0.5, 1.5) (float32 values in both builds). Integer items are 0, logical items false.
TensorValue random_weights(PrimType dtype, const Shape& shape, std::uint64_t seed, bool positive = false);

}  // namespace nnef::NNEF_EXEC_NS
