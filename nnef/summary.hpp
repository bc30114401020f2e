// A summary of a flat graph: operation histogram, parameters, multiply-accumulate counts,
// element-wise operation counts and quantization (what nnef-info prints). std-only.
//
// Definitions (docs/info.md has the reasoning):
// - MACs (multiply-accumulates) are counted for the operations whose spec semantics is a sum of
//   products, from their shapes:
//     conv               output volume x filter volume / filter batch extent
//                        (= output volume x input channels / groups x kernel spatial volume;
//                        groups = 0 has a filter channel extent of 1, so it needs no special case)
//     deconv             input volume x filter volume / filter batch extent (each input item is
//                        multiplied with its group's C/G x kernel filter items once; with stride s
//                        only those terms exist, so "output volume x ..." would count s^n too many)
//     separable_conv     its depth-wise conv plus its point-wise conv (spec 4.9.2)
//     separable_deconv   its point-wise deconv plus its depth-wise deconv
//     matmul             output volume x K (the agreeing extent), batch dimensions included
//     linear             output volume x K (the filter's second extent)
//   Bias additions are not MACs. Every other operation counts 0 MACs.
// - Element-wise operations: one per output item of the element-wise operations (spec 4.2 unary,
//   binary, select and simplifiers, 4.9.1 activations, clamp, prelu, batch_normalization and the
//   quantization operations); add_n counts n - 1 per item; copy, copy_n and cast count 0.
// - Parameters are the variables, each label once (variables that share a label share data).
//   Elements come from the declared shape. Bytes come from the tensor data when it is loaded (its
//   stored length), else from the declared type's nominal size: scalar 4 (float32), integer 4
//   (int32), logical 1.
// - A number that needs a shape that is unknown (downstream of a custom operation) is unknown:
//   the operation is counted in `unknown`, and totals are marked incomplete. Custom operations
//   (not standard operations) are listed; their cost is unknown.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include <nnef/graph.hpp>

namespace nnef {

struct OperationCount {
    std::string name;
    std::uint64_t count = 0;
};

struct ParameterGroup {
    // Stored: the tensor file's item kind with its width ("float32", "float16", "int8", "qint8",
    // "linear_quantized8", "logical1", ...). Declared: "scalar", "integer" or "logical".
    std::string dtype;
    bool stored = false;  // bytes from loaded tensor data (else the nominal size)
    std::uint64_t tensors = 0;
    std::uint64_t elements = 0;
    std::uint64_t bytes = 0;
};

// A per-operation-type cost (MACs or element-wise operations).
struct CostGroup {
    std::string name;
    std::uint64_t operations = 0;  // operations of this type
    std::uint64_t unknown = 0;     // of which the cost is unknown (unknown shapes)
    std::uint64_t cost = 0;        // over the operations with known cost
};

struct CostTotal {
    std::vector<CostGroup> by_type;  // sorted by cost desc, then name
    std::uint64_t known = 0;         // sum over the operations with known cost
    std::uint64_t unknown_operations = 0;
    // True when every counted operation's cost is known and no custom operation is in the graph.
    bool complete = true;
};

struct QuantizationGroup {
    std::string algorithm;
    std::uint64_t attached = 0;    // tensors whose Tensor::quantization names it (graph.quant)
    std::uint64_t operations = 0;  // quantization operations in the graph (also expanded ones)
};

// Quantized parameters (variables with a graph.quant entry), by stored kind and algorithm: what
// the stored data costs against float32 storage of the same values.
struct QuantizedParameterGroup {
    std::string stored;     // as ParameterGroup::dtype, e.g. "qint8" (declared type when not loaded)
    bool loaded = false;    // `stored` and `bytes` come from loaded tensor data
    std::string algorithm;  // the graph.quant algorithm, e.g. "zero_point_linear_quantize"
    std::uint64_t tensors = 0;
    std::uint64_t elements = 0;
    std::uint64_t bytes = 0;        // as stored (nominal when not loaded)
    std::uint64_t float_bytes = 0;  // the same elements as float32: elements x 4
};

struct GraphSummary {
    std::vector<OperationCount> operations;  // by count desc, then name
    std::uint64_t operation_total = 0;
    std::vector<OperationCount> custom_operations;  // non-standard operations, by count desc

    std::uint64_t variables = 0;             // variable operations
    std::uint64_t parameter_tensors = 0;     // distinct labels
    std::uint64_t parameter_elements = 0;
    std::uint64_t parameter_bytes = 0;
    bool bytes_stored = false;               // every parameter's bytes come from loaded data
    std::vector<ParameterGroup> parameters;  // by bytes desc, then dtype
    std::uint64_t constant_tensors = 0;
    std::uint64_t constant_elements = 0;

    CostTotal macs;
    CostTotal elementwise;

    std::vector<QuantizationGroup> quantization;  // by algorithm name
    std::uint64_t quantized_tensors = 0;          // distinct tensors, either source
    std::vector<QuantizedParameterGroup> quantized_parameters;  // by stored kind, then algorithm
};

GraphSummary summarize(const Graph& graph);

}  // namespace nnef
