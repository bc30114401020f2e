// The state of one export (lowering/nnapi/from_nnef.hpp) and the builders its per-operation
// handlers share: what holds each NNEF tensor (an operand, a constant not yet an operand, a lazy
// view of an activation, a flatten with permuted columns), the quantization grids, the emission of
// operations with a fusable activation, and the requantization and channel-selection convolutions.
#pragma once
#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "lowering/nnapi/from_nnef.hpp"
#include "storage/quantization.hpp"

namespace nnef::nnapi::from_nnef {

using Ints = std::vector<std::int64_t>;
using Pairs = std::vector<std::pair<std::int64_t, std::int64_t>>;

// A quantization grid of NNAPI: real = (code - zero_point) * scale, codes in [0, 255]. `offset`:
// NNAPI code = NNEF code + offset.
struct Grid {
    float scale = 0.0f;
    std::int32_t zero_point = 0;
    std::int32_t offset = 0;
    bool operator==(const Grid& o) const { return scale == o.scale && zero_point == o.zero_point; }
    bool operator!=(const Grid& o) const { return !(*this == o); }
};

// A constant known at export time (variables, constants, literals and the shape operations on
// them), in NNEF's layout.
struct Constant {
    Shape shape;
    // The real values: in `values`, in `floats` where every item is a float exactly (a float
    // model's weights: half the memory of doubles, VGG-11's 133 M), or, for weights stored as
    // codes, dequantized from `codes` when read (an int8 VGG-11's 133 M weights in 4 bytes each,
    // not 12); value(i) reads any of them.
    std::vector<double> values;
    std::vector<float> floats;
    struct Dequantization {
        storage::QuantParams params;
        storage::ChannelMap channels;  // of the tensor's items (in their order, whatever `shape` says later)
    };
    std::shared_ptr<const Dequantization> dequantization;
    std::size_t count() const { return dequantization ? codes.size() : floats.empty() ? values.size() : floats.size(); }
    double value(std::size_t i) const {
        if (dequantization) return dequantization->params.dequantize(codes[i], dequantization->channels.channel(i));
        return floats.empty() ? values[i] : double(floats[i]);
    }
    // all items as doubles (for the quantization helpers)
    std::vector<double> doubles() const;
    // Quantized weights: the NNEF codes (stored, or quantized on the graph.quant entry's grid of 8
    // bits, so 32 bits hold them) and the grid of that entry.
    std::vector<std::int32_t> codes;
    std::optional<Grid> grid;
};

// What holds an NNEF tensor.
struct Ref {
    enum class Kind { none, operand, constant, view } kind = Kind::none;
    std::uint32_t operand = 0;  // operand; view: the operand of the source
    bool nhwc = false;          // operand: a rank-4 tensor held NHWC
    // operand of rank 2 made by flattening an NHWC tensor: NNAPI column j holds NNEF column
    // columns[j] (empty: the same order)
    Ints columns;
    std::string made_by;  // for messages: the NNEF operation that permuted or viewed it
    std::shared_ptr<const Constant> constant;
    // view: the NNEF (row-major) item i of this tensor is item map[i] of the source tensor, an
    // NHWC rank-4 activation of NNEF shape source_shape.
    std::shared_ptr<const Ints> map;
    Shape source_shape;
};

class Context {
public:
    Context(const nnef::Graph& graph, const ExportOptions& options, Diagnostics& diags, bool partial);

    const nnef::Graph& graph() const { return graph_; }
    const ExportOptions& options() const { return options_; }
    Model& model() { return model_; }
    bool quantized() const { return quantized_; }
    bool partial() const { return partial_; }

    // ---- the current operation ----
    void begin(const nnef::Operation& op);
    const nnef::Operation& op() const { return *op_; }
    // An error at the current operation (stage nnapi) with its fragment call chain as notes;
    // returns false.
    bool error(const std::string& code, const std::string& message);
    // "operation 'conv' cannot be expressed in NNAPI 1.0: why" (code unsupported-operation).
    bool refuse(const std::string& why);
    std::string last_refusal;  // the `why` of the last refuse() (for supported_operations)

    // Attributes and arguments (defaults filled in by the front end).
    std::int64_t int_attr(std::string_view name, std::int64_t fallback = 0) const;
    std::string string_attr(std::string_view name) const;
    Ints ints_attr(std::string_view name) const;
    Pairs pairs_attr(std::string_view name) const;
    const nnef::Value& argument(std::string_view name) const;
    // The tensor of result `name` (empty: the first result).
    const nnef::Tensor& result(std::string_view name = "") const;
    // The NNEF tensors an argument names (one, or each item of an array); literals give "".
    std::vector<std::string> argument_tensors(std::string_view name) const;

    // ---- what holds the tensors ----
    Ref ref(std::string_view argument_name) const;  // of an argument (a literal: a constant)
    const Ref& ref_of(const std::string& tensor) const;
    void bind(const std::string& tensor, Ref r);
    void bind_operand(const std::string& tensor, std::uint32_t operand);  // nhwc for rank 4
    std::shared_ptr<const Constant> constant(std::string_view argument_name) const;  // null if not one

    // The operand of an argument in NNAPI layout: constants become operands (float, or quant8
    // on their grid), views are materialized (a channel selection); null after an error.
    std::optional<std::uint32_t> operand(std::string_view argument_name);
    std::optional<std::uint32_t> materialize(const std::string& tensor, const Ref& r);
    const Operand& operand_info(std::uint32_t i) const { return model_.operands.at(i); }

    // NNAPI dimensions of an NNEF shape (rank 4: NHWC).
    static std::vector<std::uint32_t> dims(const Shape& nnef_shape);
    // A new operand for NNEF tensor `t` (its grid in a quantized graph); null after an error.
    std::optional<std::uint32_t> new_operand(const nnef::Tensor& t);
    std::uint32_t new_operand(const Shape& nnef_shape, const std::optional<Grid>& grid);
    std::optional<Grid> operand_grid(std::uint32_t operand) const;

    // ---- quantization ----
    // The NNAPI grid of tensor `t`'s graph.quant entry (or, without one, of the result of the one
    // activation-like operation that reads it); nullopt in a float graph. Reports an error (and
    // sets `failed`) when the entry has no NNAPI form.
    std::optional<Grid> grid(const nnef::Tensor& t, bool& failed);
    std::optional<Grid> grid_of_entry(const nnef::Tensor& t, bool& failed);
    std::optional<storage::QuantParams> params(const nnef::Tensor& t, bool& failed);

    // ---- emission ----
    // Emits an operation whose last input is a FusedActivationFunc operand (NONE until a
    // following relu/clamp fuses into it) or, with `activation` false, a plain one.
    void emit(OperationType type, std::vector<std::uint32_t> inputs, std::uint32_t output, bool activation);
    // Fuses `act` into the operation that computed `operand` when it is the last one emitted, has an
    // activation operand, `operand` has no other reader (NNEF consumers of `tensor`: one) and is not
    // a graph output. True when fused.
    bool fuse(const std::string& tensor, std::uint32_t operand, FusedActivationFunc act);
    void flush();  // appends the pending operation

    // Constant operands.
    std::uint32_t float_tensor(std::vector<std::uint32_t> dims, const std::vector<float>& values);
    std::uint32_t int32_tensor(std::vector<std::uint32_t> dims, const std::vector<std::int32_t>& values, float scale);
    std::uint32_t quant8_tensor(std::vector<std::uint32_t> dims, const std::vector<std::uint8_t>& codes, const Grid& g);
    std::uint32_t int32(std::int32_t v) { return add_int32_scalar(model_, v); }
    // The filter operand of constant `f` in an NNAPI layout `d`: the item at NNAPI index (i_0, ..)
    // is f's item sum_k i_k * from_strides[k], the last index taken through `last` first where it is
    // not empty (a flattened input's column order). Float, or quant8 on f's grid (refused without
    // one); with its scale (0 for float). Nothing after a refusal. Written in place in the pool.
    std::optional<std::pair<std::uint32_t, float>> filter(const Constant& f, std::vector<std::uint32_t> d,
                                                          const std::vector<std::int64_t>& from_strides, const Ints& last = {});
    // The filter [O, KH, KW, I] of a convolution with `groups` groups (f in NNEF's [O, I / groups,
    // KH, KW]) as one dense CONV_2D filter, block-diagonal: output channel o reads the input
    // channels of its group with f's weights and every other input channel with a weight of zero
    // (quantized: the zero point's code), so the dense convolution adds exact zeros to each group's
    // sums. As `filter` otherwise.
    std::optional<std::pair<std::uint32_t, float>> grouped_filter(const Constant& f, std::int64_t groups);
    // The n bias values of constant argument `name` (one value broadcasts); nothing after a refusal.
    std::optional<std::vector<double>> bias_values(std::string_view name, std::int64_t n);
    // Bias operand for an operation reading `input` with filter scale `filter_scale` (quantized:
    // TENSOR_INT32 at input_scale * filter_scale, items rounded; refused, nothing, where an item's
    // code is beyond int32: a grid too fine for the bias, which NNAPI's bias rule cannot hold).
    std::optional<std::uint32_t> bias(const std::vector<double>& values, std::uint32_t input, float filter_scale);

    // A 1x1 DEPTHWISE_CONV_2D or CONV_2D 1x1 with 0/1 filter: out channel k = in channel pick[k]
    // (pick empty: the identity, depthwise). `out` is an operand already made.
    void select_channels(std::uint32_t in, const Ints& pick, std::uint32_t out, FusedActivationFunc act);
    // `in` (rank 4 NHWC or rank 2) requantized to `to` (with an activation): a new operand.
    std::optional<std::uint32_t> requantize(std::uint32_t in, const Grid& to, FusedActivationFunc act);
    // `in` on the grid of NNEF tensor `t`: itself if equal, else requantized.
    std::optional<std::uint32_t> on_grid_of(std::uint32_t in, const nnef::Tensor& t);

    // Number of NNEF operations reading a tensor; graph outputs.
    std::size_t consumers(const std::string& tensor) const;
    bool is_output(const std::string& tensor) const;
    const nnef::Operation* sole_consumer(const std::string& tensor) const;

    // ---- results ----
    std::map<std::string, Ref> refs;  // by NNEF tensor
    std::map<std::string, std::shared_ptr<const Constant>> weights_by_label;
    // Pads folded into their one reader (NNAPI 1.0 has no pad operation): per result of such a
    // pad, bound to its unpadded input, the zero padding (top, bottom, left, right) that reader
    // adds to its own (`pad_folds_into`).
    std::map<std::string, std::array<std::int64_t, 4>> pending_padding;
    // Results of quantized LOGISTIC and SOFTMAX requantized from NNAPI's fixed output grid onto
    // graph.quant's (two roundings; export_model warns once).
    std::vector<std::string> rounded_twice;

private:
    // `filter` and `grouped_filter`: an NNAPI filter of dimensions `d` whose items are zero (the
    // grid's zero point when quantized) but those that each(put) sets by put(i, from): item i is
    // f's item `from`.
    template <typename Each>
    std::optional<std::pair<std::uint32_t, float>> filter_items(const Constant& f, const std::vector<std::uint32_t>& d, bool zeros, Each each);

    const nnef::Graph& graph_;
    const ExportOptions& options_;
    Diagnostics& diags_;
    bool partial_;
    bool quantized_ = false;
    Model model_;
    const nnef::Operation* op_ = nullptr;
    std::unordered_map<std::string, std::size_t> consumers_;
    std::unordered_map<std::string, const nnef::Operation*> consumer_;
    std::set<std::string> outputs_;
    struct Pending {
        OperationType type;
        std::vector<std::uint32_t> inputs;
        std::uint32_t output;
        bool activation;
        FusedActivationFunc act = FusedActivationFunc::NONE;
    };
    std::optional<Pending> pending_;
    std::set<std::uint32_t> read_;  // operands already read by an emitted operation
};

// ---- the handlers (one file each: from_nnef_shape.cpp, from_nnef_window.cpp, ...) -----------------

using Handler = std::function<bool(Context&)>;
using Handlers = std::map<std::string, Handler>;
void add_tensor_handlers(Handlers& h);       // external, variable, constant, copy, shape operations
void add_window_handlers(Handlers& h);       // conv, pools, spatial reductions
// Whether a zero pad of H and W whose result `tensor` only `reader` reads folds into it: a conv
// reading it as input whose own padding, if any, is zeros too (border 'constant'), or an avg_pool
// that counts padding (border 'constant', or no padding of its own), then a DEPTHWISE_CONV_2D.
bool pad_folds_into(const nnef::Operation& reader, const std::string& tensor);
void add_elementwise_handlers(Handlers& h);  // activations, add, mul, batch_normalization, linear

// Helpers shared by the handlers.
std::int64_t volume(const Shape& s);
// A constant's values in float32.
std::vector<float> floats(const Constant& c);
// The activation a relu or clamp is (with constant bounds), if NNAPI has it.
std::optional<FusedActivationFunc> activation_of(Context& c);

}  // namespace nnef::nnapi::from_nnef
