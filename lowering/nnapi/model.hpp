// The Android Neural Networks HAL 1.0 model (../shared/specs/nnapi-1.0-types.hal), mirrored field
// for field: the enum, struct and field names are the HAL's own (OperandLifeTime with the HAL's
// capital T; OperandLifetime is an alias), so a reader of the HAL text can read this IR and its JSON
// form (docs/nnapi.md) without a translation table. `vec<T>` becomes std::vector<T>; the HAL's
// `memory` (a shared memory pool) becomes Memory, the pool's bytes.
//
// Also here: the JSON form (reader and writer, docs/nnapi.md), the validator of every rule the HAL
// text states, and small helpers to build a model (used by the exporter and the tests).
// The interpreter is in lowering/nnapi/interpreter.hpp.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace nnef {
class Diagnostics;
}  // namespace nnef

namespace nnef::nnapi {

// ---- enums (values as the HAL gives them) ------------------------------------------------------

enum class OperandType : std::int32_t {
    FLOAT32 = 0,
    INT32 = 1,
    UINT32 = 2,
    TENSOR_FLOAT32 = 3,
    TENSOR_INT32 = 4,
    TENSOR_QUANT8_ASYMM = 5,
    OEM = 10000,
    TENSOR_OEM_BYTE = 10001,
};

// All 29 operations of HAL 1.0, plus the OEM escape.
enum class OperationType : std::int32_t {
    ADD = 0,
    AVERAGE_POOL_2D = 1,
    CONCATENATION = 2,
    CONV_2D = 3,
    DEPTHWISE_CONV_2D = 4,
    DEPTH_TO_SPACE = 5,
    DEQUANTIZE = 6,
    EMBEDDING_LOOKUP = 7,
    FLOOR = 8,
    FULLY_CONNECTED = 9,
    HASHTABLE_LOOKUP = 10,
    L2_NORMALIZATION = 11,
    L2_POOL_2D = 12,
    LOCAL_RESPONSE_NORMALIZATION = 13,
    LOGISTIC = 14,
    LSH_PROJECTION = 15,
    LSTM = 16,
    MAX_POOL_2D = 17,
    MUL = 18,
    RELU = 19,
    RELU1 = 20,
    RELU6 = 21,
    RESHAPE = 22,
    RESIZE_BILINEAR = 23,
    RNN = 24,
    SOFTMAX = 25,
    SPACE_TO_DEPTH = 26,
    SVDF = 27,
    TANH = 28,
    OEM_OPERATION = 10000,
};

enum class FusedActivationFunc : std::int32_t {
    NONE = 0,
    RELU = 1,
    RELU1 = 2,
    RELU6 = 3,
};

// The implicit padding scheme scalar of the pooling and convolution operations: the HAL text lists
// its values as "{0 (NONE), 1 (SAME), 2 (VALID)}" (NNAPI's PaddingCode); it is not a HAL enum.
enum class PaddingCode : std::int32_t {
    NONE = 0,
    SAME = 1,
    VALID = 2,
};

enum class OperandLifeTime : std::int32_t {
    TEMPORARY_VARIABLE = 0,
    MODEL_INPUT = 1,
    MODEL_OUTPUT = 2,
    CONSTANT_COPY = 3,
    CONSTANT_REFERENCE = 4,
    NO_VALUE = 5,
};
using OperandLifetime = OperandLifeTime;

enum class DeviceStatus : std::int32_t {
    AVAILABLE = 0,
    BUSY = 1,
    OFFLINE = 2,
    UNKNOWN = 3,
};

enum class ErrorStatus : std::int32_t {
    NONE = 0,
    DEVICE_UNAVAILABLE = 1,
    GENERAL_FAILURE = 2,
    OUTPUT_INSUFFICIENT_SIZE = 3,
    INVALID_ARGUMENT = 4,
};

// ---- structures ---------------------------------------------------------------------------------

struct PerformanceInfo {
    float execTime = 1.0f;
    float powerUsage = 1.0f;
};

struct Capabilities {
    PerformanceInfo float32Performance;
    PerformanceInfo quantized8Performance;
};

struct DataLocation {
    std::uint32_t poolIndex = 0;
    std::uint32_t offset = 0;
    std::uint32_t length = 0;
};

struct Operand {
    OperandType type = OperandType::TENSOR_FLOAT32;
    // Empty for a scalar; a 0 entry is an unspecified dimension.
    std::vector<std::uint32_t> dimensions;
    std::uint32_t numberOfConsumers = 0;
    float scale = 0.0f;
    std::int32_t zeroPoint = 0;
    OperandLifeTime lifetime = OperandLifeTime::TEMPORARY_VARIABLE;
    DataLocation location;
};

struct Operation {
    OperationType type = OperationType::ADD;
    std::vector<std::uint32_t> inputs;
    std::vector<std::uint32_t> outputs;
};

// The HAL's `memory`: one shared memory pool, here the bytes it holds.
struct Memory {
    std::vector<std::uint8_t> data;
};

struct Model {
    std::vector<Operand> operands;
    std::vector<Operation> operations;  // in execution order
    std::vector<std::uint32_t> inputIndexes;
    std::vector<std::uint32_t> outputIndexes;
    std::vector<std::uint8_t> operandValues;  // CONSTANT_COPY data
    std::vector<Memory> pools;                // CONSTANT_REFERENCE data
};

struct RequestArgument {
    bool hasNoValue = false;
    DataLocation location;
    std::vector<std::uint32_t> dimensions;
};

struct Request {
    std::vector<RequestArgument> inputs;   // inputs[i] is Model.inputIndexes[i]
    std::vector<RequestArgument> outputs;  // outputs[i] is Model.outputIndexes[i]
    std::vector<Memory> pools;
};

// ---- names and sizes ----------------------------------------------------------------------------

// The HAL names ("TENSOR_FLOAT32", "CONV_2D", "CONSTANT_COPY", ...).
const char* to_string(OperandType);
const char* to_string(OperationType);
const char* to_string(FusedActivationFunc);
const char* to_string(PaddingCode);
const char* to_string(OperandLifeTime);
const char* to_string(DeviceStatus);
const char* to_string(ErrorStatus);
// The inverse of to_string; nothing for a name the HAL does not have.
std::optional<OperandType> operand_type_from_string(std::string_view);
std::optional<OperationType> operation_type_from_string(std::string_view);
std::optional<OperandLifeTime> lifetime_from_string(std::string_view);
// Every operation of HAL 1.0 (the 29, without OEM_OPERATION), in enum order.
const std::vector<OperationType>& all_operation_types();

bool is_tensor(OperandType);
// Bytes of one element (4 for the 32-bit types, 1 for TENSOR_QUANT8_ASYMM and TENSOR_OEM_BYTE;
// 0 for OEM, whose size the HAL leaves to the vendor).
std::size_t element_size(OperandType);
// Product of the dimensions (1 for a scalar); nothing when a dimension is unspecified (0) or the
// product overflows.
std::optional<std::uint64_t> element_count(const Operand&);
// element_count * element_size, when known.
std::optional<std::uint64_t> byte_size(const Operand&);
// "TENSOR_FLOAT32[1,224,224,3]", with ", scale 0.5, zeroPoint 128" for quantized tensors.
std::string describe(const Operand&);

// ---- building a model ---------------------------------------------------------------------------

// Constants of at most this many bytes are copied into operandValues (CONSTANT_COPY); larger ones go
// to pool 0 (CONSTANT_REFERENCE). NNAPI's ANEURALNETWORKS_MAX_SIZE_OF_IMMEDIATELY_COPIED_VALUES.
inline constexpr std::size_t kMaxInlineConstantBytes = 128;

// Appends an operand (lifetime TEMPORARY_VARIABLE, numberOfConsumers 0) and returns its index.
std::uint32_t add_operand(Model&, OperandType type, std::vector<std::uint32_t> dimensions, float scale = 0.0f,
                          std::int32_t zeroPoint = 0);
// Appends a constant operand holding `bytes` (which must be byte_size of it): CONSTANT_COPY up to
// kMaxInlineConstantBytes, else CONSTANT_REFERENCE in pool 0 (created on first use), each value
// aligned to 4 bytes.
std::uint32_t add_constant(Model&, OperandType type, std::vector<std::uint32_t> dimensions, const void* bytes,
                           std::size_t size, float scale = 0.0f, std::int32_t zeroPoint = 0);
// The same, its `size` bytes written in place by `fill` (given where they go): a large constant is
// made where it stays, not built aside and copied.
std::uint32_t add_constant_filled(Model&, OperandType type, std::vector<std::uint32_t> dimensions, std::size_t size,
                                  const std::function<void(std::uint8_t*)>& fill, float scale = 0.0f, std::int32_t zeroPoint = 0);
std::uint32_t add_int32_scalar(Model&, std::int32_t value);
std::uint32_t add_float32_scalar(Model&, float value);
// Appends an operation and counts its inputs in their operands' numberOfConsumers.
void add_operation(Model&, OperationType type, std::vector<std::uint32_t> inputs, std::vector<std::uint32_t> outputs);
// Sets inputIndexes / outputIndexes and the operands' lifetimes MODEL_INPUT / MODEL_OUTPUT.
void set_inputs_and_outputs(Model&, std::vector<std::uint32_t> inputs, std::vector<std::uint32_t> outputs);
// The bytes of a constant operand (CONSTANT_COPY or CONSTANT_REFERENCE) when its location lies
// inside its buffer; nothing otherwise.
std::optional<std::basic_string_view<std::uint8_t>> constant_bytes(const Model&, const Operand&);

// ---- JSON form (docs/nnapi.md) ------------------------------------------------------------------

// The JSON object of a model: HAL field names, enums as HAL names, operandValues base64. The pools
// are stored one after another in one binary file named `pool_file` (written by write_model), each
// pool listed as {"file", "offset", "length"}.
nlohmann::json to_json(const Model&, const std::string& pool_file);
// The pools one after another, as to_json describes them: written to a stream (write_model's
// pool file, each pool as it is, no copy), or as bytes.
void write_pool_file(const Model&, std::ostream&);
std::vector<std::uint8_t> pool_file_bytes(const Model&);

// Reads a pool file named in the JSON ("file"); nothing if it cannot be read (then the reader
// reports it).
using PoolFileReader = std::function<std::optional<std::vector<std::uint8_t>>(const std::string& file)>;

// Reads the JSON object; on malformed input reports errors (stage nnapi, code "bad-nnapi-json" with
// `source` and the JSON path in the message; "bad-nnapi-pool" with the pool file and byte offset as
// the diagnostic's path and byte_offset) and
// returns nothing. The result has the structure of a model, not necessarily a valid one: run
// validate() on it.
std::optional<Model> model_from_json(const nlohmann::json&, const PoolFileReader&, Diagnostics&,
                                     const std::string& source = "NNAPI JSON");
// Parses JSON text (syntax errors reported with line and column), then model_from_json.
std::optional<Model> model_from_json_text(std::string_view text, const PoolFileReader&, Diagnostics&,
                                          const std::string& source = "NNAPI JSON");
// Reads MODEL.json and its pool file beside it (paths in the JSON are relative to its folder).
std::optional<Model> read_model(const std::string& json_path, Diagnostics&);
// Writes MODEL.json and, if the model has pools, MODEL.bin beside it (stage io errors).
bool write_model(const Model&, const std::string& json_path, Diagnostics&);

// ---- validation ---------------------------------------------------------------------------------

// Checks every rule the HAL 1.0 text states (docs/nnapi.md lists them): operand and lifetime rules,
// data locations inside operandValues and the pools, each operation's operand count and types,
// scalar operands, ranks, shapes, quantization rules (scale > 0, zeroPoint in [0, 255], bias scale,
// output scale), execution order. Errors have stage nnapi and a code naming the rule; messages name
// the operation index, the operand index and the rule. Returns true when there is no error.
bool validate(const Model&, Diagnostics&);
// The same, each diagnostic carrying `source` (the model's file) as its path, so that it renders as
// "m.json: error[nnapi]: operation 3 (CONV_2D), ...".
bool validate(const Model&, Diagnostics&, const std::string& source);
// A request against a valid model: one argument per model input and output, locations inside the
// request's pools, dimensions consistent with the model's, outputs not overlapping.
bool validate_request(const Model&, const Request&, Diagnostics&);

}  // namespace nnef::nnapi
