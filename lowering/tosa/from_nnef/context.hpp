// The state of one legalization (lowering/tosa/from_nnef.hpp) and the builders the per-operation
// legalizations share: the map from NNEF tensors to TOSA values, readers of the current operation's
// attributes and arguments, and helpers that add TOSA operators (CONST, CONST_SHAPE, RESHAPE,
// TRANSPOSE, PAD, SLICE, ...) with the current operation as their origin.
//
// Layout: NNEF tensors are NCHW (OIHW filters); TOSA's 2-D operators are NHWC (OHWI). Each
// legalization works on the NNEF layout and puts a TRANSPOSE before and after every NHWC operator
// (to_channels_last / to_channels_first); the layout passes fold and cancel them.
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "lowering/tosa/from_nnef.hpp"

namespace nnef::tosa::from_nnef {

using Ints = std::vector<std::int64_t>;
using Pairs = std::vector<std::pair<std::int64_t, std::int64_t>>;

DType dtype_of(PrimType t);  // scalar fp32, integer i32, logical bool; none otherwise

class Context {
public:
    Context(const nnef::Graph& model, Graph& graph, const LowerOptions& options, Diagnostics& diags);

    const nnef::Graph& model() const { return model_; }
    Graph& graph() { return graph_; }
    const LowerOptions& options() const { return options_; }
    Diagnostics& diags() { return diags_; }

    // ---- the current operation ----
    void begin(const Operation& op);
    const Operation& op() const { return *op_; }
    std::uint32_t origin() const { return origin_; }

    // An error at the current operation (stage tosa), with its fragment call chain as notes.
    bool error(const std::string& code, const std::string& message);
    // The operation has no TOSA form here: "operation 'name' cannot be lowered to TOSA: why".
    bool refuse(const std::string& why);

    // Attributes (defaults filled in by the front end); `fallback` when absent (later-revision
    // parameters in the strict dialect).
    std::int64_t int_attr(std::string_view name, std::int64_t fallback = 0) const;
    double scalar_attr(std::string_view name, double fallback = 0.0) const;
    bool logical_attr(std::string_view name, bool fallback = false) const;
    std::string string_attr(std::string_view name, const std::string& fallback = {}) const;
    Ints ints_attr(std::string_view name) const;
    Pairs pairs_attr(std::string_view name) const;
    std::vector<double> scalars_attr(std::string_view name) const;

    // Tensor arguments: the TOSA value of a tensor argument (an identifier, or a literal, which
    // becomes a constant of rank `literal_rank` with extents 1 and the operation's dtype).
    bool has_input(std::string_view name) const;
    ValueId input(std::string_view name, std::size_t literal_rank = 0);
    std::vector<ValueId> inputs(std::string_view name);  // a tensor-array argument
    bool input_is_literal(std::string_view name) const;
    const nnef::Value& argument(std::string_view name) const;
    // The NNEF tensor of a result (item of an array result), with its dtype and shape.
    const Tensor& result(std::string_view name, std::size_t item = 0) const;
    std::size_t result_count(std::string_view name) const;
    TensorType result_type(std::string_view name, std::size_t item = 0) const;
    // Binds a result to a value (the value takes the tensor's name if it has none yet). The value
    // must have the result's type.
    bool bind(std::string_view name, ValueId v, std::size_t item = 0);
    // The value of a tensor by name (bound earlier); no_value if unbound.
    ValueId value_of(const std::string& tensor) const;
    void bind_tensor(const std::string& tensor, ValueId v);

    // ---- builders (the current operation is the origin) ----
    const TensorType& type(ValueId v) const { return graph_.type(v); }
    const Shape& shape(ValueId v) const { return graph_.type(v).shape; }
    std::size_t rank(ValueId v) const { return graph_.type(v).shape.size(); }
    ValueId add(OpKind kind, std::vector<ValueId> inputs, TensorType out,
                std::vector<std::pair<AttrName, Attr>> attrs = {});
    ValueId constant(ConstPtr data, std::string name = {});
    // The data of a value a CONST made in this legalization; null otherwise.
    ConstPtr constant_of(ValueId v) const;
    // A constant of `shape` with every item `value` (converted to dtype: fp32, i32, i8, i16, bool).
    ValueId splat(DType dtype, Shape shape, double value);
    // A rank-`rank` constant [1,...,1] holding `value`.
    ValueId scalar(DType dtype, double value, std::size_t rank) { return splat(dtype, Shape(rank, 1), value); }
    ValueId f32(const Shape& shape, const std::vector<float>& items);
    ValueId shape_value(const Ints& items);  // CONST_SHAPE
    // The zero points of CONV2D, AVG_POOL2D, NEGATE...: [1] zeros of the dtype.
    ValueId zero_point(DType dtype) { return splat(dtype, {1}, 0.0); }

    ValueId reshape(ValueId v, Shape shape);  // v itself when the shape is equal
    ValueId transpose(ValueId v, const Ints& perms);  // v itself for the identity
    ValueId to_channels_last(ValueId v);   // [N,C,d1..dk] -> [N,d1..dk,C]
    ValueId to_channels_first(ValueId v);  // [N,d1..dk,C] -> [N,C,d1..dk]
    // NNEF broadcasting aligns leading dimensions: a lower rank gets trailing 1 extents.
    ValueId extend_rank(ValueId v, std::size_t rank);
    ValueId slice(ValueId v, Ints start, Ints size);
    ValueId pad(ValueId v, const Pairs& padding, double value);  // constant border
    ValueId slice_axis(ValueId v, std::size_t axis, std::int64_t begin, std::int64_t end);
    ValueId concat(const std::vector<ValueId>& vs, std::int64_t axis);  // MAX_TENSOR_LIST_SIZE respected
    ValueId tile(ValueId v, const Ints& multiples);
    ValueId reverse(ValueId v, std::size_t axis);
    // Pads `axis` by p items before and q after under an NNEF border mode: 'constant' (`value`),
    // 'replicate', 'reflect' (mirrored at the edge items) or 'reflect-even' (edge items repeated),
    // the latter three built from SLICE, REVERSE, TILE and CONCAT since TOSA's PAD is constant only.
    // Padding beyond the extent repeats the reflection (the NNEF index rule, exec/common.cpp).
    ValueId pad_border(ValueId v, std::size_t axis, std::int64_t p, std::int64_t q, const std::string& border,
                       double value = 0.0);
    ValueId cast(ValueId v, DType to);

    // Elementwise operators with NNEF broadcasting (ranks equalized by extend_rank). `b` etc. are
    // values; literals come from scalar().
    ValueId binary(OpKind kind, ValueId a, ValueId b, std::vector<std::pair<AttrName, Attr>> attrs = {});
    ValueId unary(OpKind kind, ValueId a);
    ValueId mul(ValueId a, ValueId b);                 // MUL with shift 0
    ValueId div(ValueId a, ValueId b);                 // floats: a * RECIPROCAL(b); integers: INTDIV
    ValueId negate(ValueId a);
    ValueId maximum(ValueId a, ValueId b) { return binary(OpKind::MAXIMUM, a, b, {{AttrName::nan_mode, NanMode::PROPAGATE}}); }
    ValueId minimum(ValueId a, ValueId b) { return binary(OpKind::MINIMUM, a, b, {{AttrName::nan_mode, NanMode::PROPAGATE}}); }
    ValueId clamp(ValueId a, double lo, double hi);  // CLAMP, NaN propagated
    // NNEF's min(x, y) = select(x < y, x, y) and max(x, y) = select(x > y, x, y), NaN items included
    // (a NaN x gives y, a NaN y gives NaN): MINIMUM / MAXIMUM when a constant operand decides the
    // NaN rule, else the comparison and SELECT.
    ValueId nnef_min(ValueId x, ValueId y);
    ValueId nnef_max(ValueId x, ValueId y);
    bool nan_free_constant(ValueId v) const;
    ValueId select(ValueId c, ValueId a, ValueId b);
    ValueId compare(OpKind kind, ValueId a, ValueId b);  // EQUAL, GREATER, GREATER_EQUAL: bool result
    // REDUCE_* over the given axes, one operator per axis (keeping the reduced dimensions as 1).
    ValueId reduce(OpKind kind, ValueId v, const Ints& axes);

    // Weights already made, by lower-case label (variables sharing a label share their data), and
    // the variables read as variances or scales (positive random weights; storage/random_data.hpp).
    std::map<std::string, ConstPtr> weights_by_label;
    const std::set<std::string>& positive_variables();
    // The variables some `update` writes (TOSA variables), and the label of each variable tensor.
    const std::set<std::string>& updated_variables();
    std::map<std::string, std::string> variable_labels;

    // Result shape of NNEF broadcasting of two shapes (trailing 1s for the lower rank).
    static Shape broadcast_shape(const Shape& a, const Shape& b);

    // PRO-FP moves integer tensors (indices) through the layout operators only as fp32 (CAST there
    // and back; exact for items up to 2^24 in magnitude): the layout builders do so for these.
    bool int_via_float(ValueId v) const;

private:
    const nnef::Graph& model_;
    Graph& graph_;
    const LowerOptions& options_;
    Diagnostics& diags_;
    const Operation* op_ = nullptr;
    std::uint32_t origin_ = no_origin;
    std::unordered_map<std::string, ValueId> values_;
    std::optional<std::set<std::string>> positive_, updated_;
    std::unordered_map<ValueId, ConstPtr> constants_;
};

// The items of a variable's tensor data as a constant of `type` (float32 data viewed in place);
// null with `why` when they cannot be one.
ConstPtr weights_constant(const TensorData& data, const TensorType& type, std::string& why);
// The initial value of the variable `t` (its tensor data, or random weights with
// LowerOptions::random_weights), shared by label; null after reporting an error.
ConstPtr variable_weights(Context& c, const Tensor& t, const std::string& label);

// NNEF's sign (1, -1, or x itself for 0, -0 and NaN) and round (floor(x + 0.5)), and a constant
// like `like` (its dtype, rank-many extents 1) holding v (elementwise.cpp).
ValueId sign(Context& c, ValueId x);
ValueId round_half_up(Context& c, ValueId x);
ValueId one_like(Context& c, ValueId like, double v);
// NNEF's matmul of a and b (transposes of the last two dimensions, batch broadcasting) as TOSA MATMUL,
// reshaped to out_shape (matmul.cpp); with zero points, the integer form (i8 operands, i32 result).
ValueId matmul_value(Context& c, ValueId a, ValueId b, bool transpose_a, bool transpose_b, const Shape& out_shape,
                     ValueId a_zp = no_value, ValueId b_zp = no_value);
// Every stride-th item of [begin, begin + count * stride) along axis (shape_ops.cpp).
ValueId strided(Context& c, ValueId x, std::size_t axis, std::int64_t begin, std::int64_t count, std::int64_t stride);

// A quantized graph (graph.quant entries or quantize fragments), and its integer legalization for
// PRO-INT (integer.cpp), which lowers each operation by the `lower_integer` of its registry entry.
bool is_quantized(const nnef::Graph& model);
// Appends v as the next output of the main block, named `name` (through an IDENTITY when v is an
// input, another output, or a value named otherwise).
void add_graph_output(Graph& g, ValueId v, const std::string& name);
std::optional<Graph> legalize_integer(const nnef::Graph& model, const LowerOptions& options, Diagnostics& diags);

// ---- the families (one file each in lowering/tosa/from_nnef/) -----------------------------------

using Registry = std::vector<Legalization>;
void add_tensor_intro(Registry& r);    // external, variable, constant, update
void add_elementwise(Registry& r);     // unary, binary, select, clamp, copy, cast, add_n, copy_n
void add_activation(Registry& r);      // relu, sigmoid, elu, gelu, ... (compounds)
void add_convolution(Registry& r);     // conv, deconv, separable_conv, separable_deconv
void add_sliding_window(Registry& r);  // pools, box, local normalizations, sample, ...
void add_matmul(Registry& r);          // matmul, linear
void add_shape_ops(Registry& r);       // reshape, squeeze, transpose, concat, split, slice, pad, ...
void add_reduce(Registry& r);          // *_reduce, moments, softmax
void add_normalization(Registry& r);   // batch_normalization, local_*_normalization, l1/l2
void add_sampling(Registry& r);        // up/down-sampling
void add_roi(Registry& r);             // RoI pooling and alignment
void add_quantization(Registry& r);    // the quantize fragments
void add_variable_update(Registry& r); // update (with variable: TOSA variables)

}  // namespace nnef::tosa::from_nnef
