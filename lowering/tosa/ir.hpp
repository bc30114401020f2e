// The TOSA IR: a small SSA graph of TOSA 1.0.1 operators (specs/tosa-1.0.1.md). std-only.
//
// A Graph owns a table of values (tensors: element type + shape, and an optional name, usually
// the NNEF tensor the value stands for) and a list of blocks; block 0 is the graph itself, the
// others are the tosa_graph_t attributes of COND_IF / WHILE_LOOP. A block has input values,
// operators in a valid topological order, and output values. Operators have operands and results
// (value ids) in the spec's argument order and named attributes (AttrName) holding the C++ types
// that lowering/tosa/ops.def gives for each kind. Every operator may point at an Origin: the NNEF
// operation it was lowered from and its source location, so that diagnostics of any later stage
// can name the NNEF line.
//
// Constants (CONST values, VARIABLE initial values) are ConstData: typed row-major items that may
// view memory owned elsewhere (loaded tensor files) without copying.
#pragma once
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include <nnef/graph.hpp>

namespace nnef::tosa {

// ---- element types ---------------------------------------------------------------------------

// `shape` is the element type of shape_t values (CONST_SHAPE and the shape operands of RESHAPE,
// SLICE, TILE, PAD, RESIZE): their TensorType has shape {rank of the described shape}.
enum class DType : std::uint8_t { none, bool_, i8, i16, i32, i48, fp16, bf16, fp32, shape };

const char* to_string(DType);          // "bool", "i8", "i16", "i32", "i48", "fp16", "bf16", "fp32", "shape"
std::optional<DType> dtype_from_string(std::string_view);
// Bytes per item in memory (ConstData, the interpreter): bool 1, i48 and shape 8 (as int64).
std::size_t storage_bytes(DType);
inline bool is_float(DType t) { return t == DType::fp16 || t == DType::bf16 || t == DType::fp32; }
inline bool is_integer(DType t) { return t == DType::i8 || t == DType::i16 || t == DType::i32 || t == DType::i48; }
// Bits of an integer type (8, 16, 32, 48); 0 otherwise.
int integer_bits(DType);

struct TensorType {
    DType dtype = DType::none;
    Shape shape;

    std::size_t rank() const { return shape.size(); }
    std::int64_t volume() const;  // product of the extents, 1 for rank 0
    friend bool operator==(const TensorType& a, const TensorType& b) {
        return a.dtype == b.dtype && a.shape == b.shape;
    }
    friend bool operator!=(const TensorType& a, const TensorType& b) { return !(a == b); }
};
std::string to_string(const TensorType&);  // "fp32[1,3,224,224]", "shape[4]"

// ---- constant data ---------------------------------------------------------------------------

// Typed row-major items in host byte order (bool as one byte 0/1; i48 and shape as int64; fp16 and
// bf16 as their 16-bit patterns). The items live as long as `owner` does.
struct ConstData {
    TensorType type;
    std::shared_ptr<const void> owner;
    const void* data = nullptr;

    std::size_t byte_size() const;
    template <class T>
    const T* items() const { return static_cast<const T*>(data); }

    // Fresh zeroed storage for `type` (returned mutable for filling in, then shared as const).
    static std::shared_ptr<ConstData> allocate(TensorType type);
    // A view of items owned elsewhere.
    static std::shared_ptr<const ConstData> view(TensorType type, std::shared_ptr<const void> owner, const void* data);
    template <class T>
    T* mutable_items() { return static_cast<T*>(const_cast<void*>(data)); }
};
using ConstPtr = std::shared_ptr<const ConstData>;

// ---- attributes ------------------------------------------------------------------------------

enum class AccType : std::uint8_t { INT32, FP16, FP32, INT48 };                    // acc_type_t
enum class NanMode : std::uint8_t { PROPAGATE, IGNORE };                           // nan_propagation_mode_t
enum class RoundingMode : std::uint8_t { SINGLE_ROUND, INEXACT_ROUND, DOUBLE_ROUND };  // rounding_mode_t
enum class ResizeMode : std::uint8_t { NEAREST_NEIGHBOR, BILINEAR };               // resize_mode_t
const char* to_string(AccType);
const char* to_string(NanMode);
const char* to_string(RoundingMode);
const char* to_string(ResizeMode);

struct BlockRef {
    std::uint32_t block = 0;  // index into Graph::blocks
    friend bool operator==(BlockRef a, BlockRef b) { return a.block == b.block; }
};

using Attr = std::variant<std::monostate, bool, std::int64_t, double, std::vector<std::int64_t>, std::string, DType,
                          AccType, NanMode, RoundingMode, ResizeMode, ConstPtr, BlockRef>;

// Every attribute name of the operator set (ops.def), in one enumeration.
enum class AttrName : std::uint8_t {
    axis, nan_mode, kernel, stride, pad, dilation, acc_type, local_bound, inverse, out_pad, min_val, max_val,
    round, scale32, rounding_mode, per_channel, input_unsigned, output_unsigned, values, mode, perms,
    operator_name, domain_name, implementation_attrs, then_graph, else_graph, cond_graph, body_graph, name,
    var_shape, type, initial_value,
};
const char* to_string(AttrName);
std::optional<AttrName> attr_name_from_string(std::string_view);

// ---- operators -------------------------------------------------------------------------------

enum class OpKind : std::uint8_t {
#define TOSA_OP(id, section, mnemonic, inputs, outputs, attributes, family, check, kernel) id,
#include "lowering/tosa/ops.def"
#undef TOSA_OP
};
inline constexpr std::size_t op_kind_count = static_cast<std::size_t>(OpKind::CONST_SHAPE) + 1;

// The kinds of attribute values (ops.def).
enum class AttrKind : std::uint8_t { i32, boolean, i32s, shape, num, acc, nan, round, resize, str, dtype, tensor, graph };
const char* to_string(AttrKind);

struct AttrSpec {
    AttrName name;
    AttrKind kind;
    bool optional = false;
};

// What ops.def says of one operator.
struct OpInfo {
    OpKind kind;
    std::string name;      // the spec's name, e.g. "DEPTHWISE_CONV2D"
    std::string section;   // e.g. "2.3.5"
    std::string mnemonic;  // the MLIR tosa dialect's, e.g. "depthwise_conv2d"
    std::string family;    // lowering/tosa/ops/<family>.cpp holds its validation and kernel
    std::vector<std::string> inputs;   // argument names in order
    bool variadic_inputs = false;      // the last input is a tensor list (takes the rest)
    std::vector<std::string> outputs;
    bool variadic_outputs = false;
    std::vector<AttrSpec> attributes;

    const AttrSpec* attribute(AttrName n) const;
};
const OpInfo& op_info(OpKind);
const char* to_string(OpKind);  // the spec's name
std::optional<OpKind> op_kind_from_string(std::string_view spec_name);
std::optional<OpKind> op_kind_from_mnemonic(std::string_view mnemonic);  // "depthwise_conv2d"

// ---- the graph -------------------------------------------------------------------------------

using ValueId = std::uint32_t;
inline constexpr ValueId no_value = std::numeric_limits<ValueId>::max();
inline constexpr std::uint32_t no_origin = std::numeric_limits<std::uint32_t>::max();

struct Value {
    TensorType type;
    std::string name;  // the NNEF tensor this value stands for, or empty
};

// The NNEF operation an operator was lowered from.
struct Origin {
    std::string operation;  // NNEF operation name, e.g. "conv"
    std::string tensor;     // its (first) result tensor, e.g. "conv1"
    Provenance provenance;  // source location and fragment call chain
};

struct Op {
    OpKind kind = OpKind::IDENTITY;
    std::vector<ValueId> inputs;
    std::vector<ValueId> outputs;
    std::vector<std::pair<AttrName, Attr>> attrs;
    std::uint32_t origin = no_origin;  // index into Graph::origins

    const Attr* attr(AttrName n) const;
    // The attribute as T; throws std::logic_error when absent or of another type (a verified graph
    // has every required attribute with its kind's type).
    template <class T>
    const T& get(AttrName n) const {
        const Attr* a = attr(n);
        if (!a || !std::holds_alternative<T>(*a)) bad_attr(n);
        return std::get<T>(*a);
    }
    void set(AttrName n, Attr value);  // adds or replaces
    const OpInfo& info() const { return op_info(kind); }

private:
    [[noreturn]] void bad_attr(AttrName n) const;
};

struct Block {
    std::string name;  // "main" for block 0, else e.g. "then_graph.3"
    std::vector<ValueId> inputs;
    std::vector<Op> ops;
    std::vector<ValueId> outputs;
};

enum class Profile : std::uint8_t { pro_fp, pro_int };
const char* to_string(Profile);  // "PRO-FP", "PRO-INT"

// Level maxima (spec 1.7, table 4).
struct Level {
    std::string name;  // "8K" or "none"
    std::int64_t max_rank, max_kernel, max_stride, max_scale, max_log2_size, max_nesting, max_tensor_list_size;
    static Level eight_k();
    static Level none();
};

struct Graph {
    std::string name;
    Profile profile = Profile::pro_fp;
    std::vector<Value> values;
    std::vector<Block> blocks;  // blocks[0] is the graph
    std::vector<Origin> origins;

    Graph();
    Block& main() { return blocks[0]; }
    const Block& main() const { return blocks[0]; }
    const Value& value(ValueId v) const { return values.at(v); }
    const TensorType& type(ValueId v) const { return values.at(v).type; }

    ValueId add_value(TensorType type, std::string name = {});
    std::uint32_t add_origin(Origin origin);
    std::uint32_t add_block(std::string name);

    // Appends an operator to `block` whose results are new values of the given types. Returns it.
    Op& add_op(std::uint32_t block, OpKind kind, std::vector<ValueId> inputs, std::vector<TensorType> output_types,
               std::vector<std::pair<AttrName, Attr>> attrs = {}, std::uint32_t origin = no_origin);
    // CONST / CONST_SHAPE operators in `block`; return the result value.
    ValueId add_const(std::uint32_t block, ConstPtr data, std::uint32_t origin = no_origin, std::string name = {});
    ValueId add_const_shape(std::uint32_t block, std::vector<std::int64_t> shape, std::uint32_t origin = no_origin);

    // The operator (block, index) producing each value of the graph; values without one are block
    // inputs (or dead). Recomputed on every call: cache it across passes that do not change ops.
    struct Producer {
        std::uint32_t block = no_origin;
        std::uint32_t index = no_origin;
    };
    std::vector<Producer> producers() const;
    // The constant a value holds when a CONST op produces it; null otherwise.
    const ConstData* constant(ValueId v) const;
    // How many operators (all blocks) there are, and a histogram by kind.
    std::size_t op_count() const;
};

// A readable dump: one line per operator, `%3:fp32[1,64,112,112] = CONV2D(%0, %1, %2, %4, %5)
// {pad=[3,3,3,3], ...}  # conv 'conv1' graph.nnef:12`, blocks in order. Constants print their
// type and, when small (at most `max_const_items`), their items. Given the SourceManager, origins
// print as path:line.
std::string to_text(const Graph& g, const SourceManager* sm = nullptr, std::size_t max_const_items = 8);
std::string to_string(const Attr& a);

// Float conversions of the 16-bit formats (round to nearest, ties to even; NaN stays NaN).
std::uint16_t fp32_to_fp16(float f);
// fp32_to_fp16 of n values, written at `to` (2 n bytes, little-endian, any alignment): eight at a
// time with the processor's F16C where it has one (the same bits).
void fp32_to_fp16_bytes(const float* from, std::size_t n, std::uint8_t* to);
float fp16_to_fp32(std::uint16_t h);
std::uint16_t fp32_to_bf16(float f);
float bf16_to_fp32(std::uint16_t b);

// ---- a constant's items as numbers: the one accessor -----------------------------------------

// Item i of an integer constant (bool as 0 / 1, i48 and shape as int64); nullopt for the
// floating-point types and none. The caller keeps i below c.type.volume().
inline std::optional<std::int64_t> int_item(const ConstData& c, std::int64_t i) {
    switch (c.type.dtype) {
        case DType::bool_: return c.items<std::uint8_t>()[i] ? 1 : 0;
        case DType::i8: return c.items<std::int8_t>()[i];
        case DType::i16: return c.items<std::int16_t>()[i];
        case DType::i32: return c.items<std::int32_t>()[i];
        case DType::i48:
        case DType::shape: return c.items<std::int64_t>()[i];
        default: return std::nullopt;
    }
}
// Item i of a floating-point constant (fp16 and bf16 widened exactly); nullopt for other types.
inline std::optional<double> float_item(const ConstData& c, std::int64_t i) {
    switch (c.type.dtype) {
        case DType::fp32: return c.items<float>()[i];
        case DType::fp16: return fp16_to_fp32(c.items<std::uint16_t>()[i]);
        case DType::bf16: return bf16_to_fp32(c.items<std::uint16_t>()[i]);
        default: return std::nullopt;
    }
}
// Item i of any constant as a number (int_item or float_item; NaN for none).
inline double number_item(const ConstData& c, std::int64_t i) {
    if (auto v = float_item(c, i)) return *v;
    if (auto v = int_item(c, i)) return static_cast<double>(*v);
    return std::numeric_limits<double>::quiet_NaN();
}
// Sets item i of a constant to the number v: an integer type (bool as 0 / 1) takes v when it is an
// integer within the type's range; a floating-point type takes v rounded to nearest (the 16-bit
// formats through fp32). False, the item unchanged, when v is no item of the type.
inline bool set_number_item(ConstData& c, std::int64_t i, double v) {
    // an integer item of type T in [lo, hi]
    auto integer = [&](auto* items, double lo, double hi) {
        if (!(v >= lo && v <= hi) || static_cast<double>(static_cast<std::int64_t>(v)) != v) return false;
        items[i] = static_cast<std::remove_pointer_t<decltype(items)>>(v);
        return true;
    };
    switch (c.type.dtype) {
        case DType::fp32: c.mutable_items<float>()[i] = static_cast<float>(v); return true;
        case DType::fp16: c.mutable_items<std::uint16_t>()[i] = fp32_to_fp16(static_cast<float>(v)); return true;
        case DType::bf16: c.mutable_items<std::uint16_t>()[i] = fp32_to_bf16(static_cast<float>(v)); return true;
        case DType::bool_: return integer(c.mutable_items<std::uint8_t>(), 0, 1);
        case DType::i8: return integer(c.mutable_items<std::int8_t>(), -128, 127);
        case DType::i16: return integer(c.mutable_items<std::int16_t>(), -32768, 32767);
        case DType::i32: return integer(c.mutable_items<std::int32_t>(), -2147483648.0, 2147483647.0);
        case DType::i48:
        case DType::shape: return integer(c.mutable_items<std::int64_t>(), -140737488355328.0, 140737488355327.0);
        default: return false;
    }
}

}  // namespace nnef::tosa
