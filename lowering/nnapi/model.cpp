// Names, sizes and model-building helpers of the NNAPI 1.0 IR (model.hpp).
#include "lowering/nnapi/model.hpp"

#include <cstring>
#include <limits>
#include <sstream>
#include <utility>

namespace nnef::nnapi {

namespace {

template <class E>
struct Named {
    E value;
    const char* name;
};

constexpr Named<OperandType> kOperandTypes[] = {
    {OperandType::FLOAT32, "FLOAT32"},
    {OperandType::INT32, "INT32"},
    {OperandType::UINT32, "UINT32"},
    {OperandType::TENSOR_FLOAT32, "TENSOR_FLOAT32"},
    {OperandType::TENSOR_INT32, "TENSOR_INT32"},
    {OperandType::TENSOR_QUANT8_ASYMM, "TENSOR_QUANT8_ASYMM"},
    {OperandType::OEM, "OEM"},
    {OperandType::TENSOR_OEM_BYTE, "TENSOR_OEM_BYTE"},
};

constexpr Named<OperationType> kOperationTypes[] = {
    {OperationType::ADD, "ADD"},
    {OperationType::AVERAGE_POOL_2D, "AVERAGE_POOL_2D"},
    {OperationType::CONCATENATION, "CONCATENATION"},
    {OperationType::CONV_2D, "CONV_2D"},
    {OperationType::DEPTHWISE_CONV_2D, "DEPTHWISE_CONV_2D"},
    {OperationType::DEPTH_TO_SPACE, "DEPTH_TO_SPACE"},
    {OperationType::DEQUANTIZE, "DEQUANTIZE"},
    {OperationType::EMBEDDING_LOOKUP, "EMBEDDING_LOOKUP"},
    {OperationType::FLOOR, "FLOOR"},
    {OperationType::FULLY_CONNECTED, "FULLY_CONNECTED"},
    {OperationType::HASHTABLE_LOOKUP, "HASHTABLE_LOOKUP"},
    {OperationType::L2_NORMALIZATION, "L2_NORMALIZATION"},
    {OperationType::L2_POOL_2D, "L2_POOL_2D"},
    {OperationType::LOCAL_RESPONSE_NORMALIZATION, "LOCAL_RESPONSE_NORMALIZATION"},
    {OperationType::LOGISTIC, "LOGISTIC"},
    {OperationType::LSH_PROJECTION, "LSH_PROJECTION"},
    {OperationType::LSTM, "LSTM"},
    {OperationType::MAX_POOL_2D, "MAX_POOL_2D"},
    {OperationType::MUL, "MUL"},
    {OperationType::RELU, "RELU"},
    {OperationType::RELU1, "RELU1"},
    {OperationType::RELU6, "RELU6"},
    {OperationType::RESHAPE, "RESHAPE"},
    {OperationType::RESIZE_BILINEAR, "RESIZE_BILINEAR"},
    {OperationType::RNN, "RNN"},
    {OperationType::SOFTMAX, "SOFTMAX"},
    {OperationType::SPACE_TO_DEPTH, "SPACE_TO_DEPTH"},
    {OperationType::SVDF, "SVDF"},
    {OperationType::TANH, "TANH"},
    {OperationType::OEM_OPERATION, "OEM_OPERATION"},
};

constexpr Named<OperandLifeTime> kLifetimes[] = {
    {OperandLifeTime::TEMPORARY_VARIABLE, "TEMPORARY_VARIABLE"},
    {OperandLifeTime::MODEL_INPUT, "MODEL_INPUT"},
    {OperandLifeTime::MODEL_OUTPUT, "MODEL_OUTPUT"},
    {OperandLifeTime::CONSTANT_COPY, "CONSTANT_COPY"},
    {OperandLifeTime::CONSTANT_REFERENCE, "CONSTANT_REFERENCE"},
    {OperandLifeTime::NO_VALUE, "NO_VALUE"},
};

template <class E, std::size_t N>
const char* name_of(const Named<E> (&table)[N], E value, const char* unknown) {
    for (const auto& entry : table)
        if (entry.value == value) return entry.name;
    return unknown;
}

template <class E, std::size_t N>
std::optional<E> value_of(const Named<E> (&table)[N], std::string_view name) {
    for (const auto& entry : table)
        if (name == entry.name) return entry.value;
    return std::nullopt;
}

}  // namespace

const char* to_string(OperandType t) { return name_of(kOperandTypes, t, "<unknown OperandType>"); }
const char* to_string(OperationType t) { return name_of(kOperationTypes, t, "<unknown OperationType>"); }
const char* to_string(OperandLifeTime t) { return name_of(kLifetimes, t, "<unknown OperandLifeTime>"); }

const char* to_string(FusedActivationFunc f) {
    switch (f) {
        case FusedActivationFunc::NONE: return "NONE";
        case FusedActivationFunc::RELU: return "RELU";
        case FusedActivationFunc::RELU1: return "RELU1";
        case FusedActivationFunc::RELU6: return "RELU6";
    }
    return "<unknown FusedActivationFunc>";
}

const char* to_string(PaddingCode p) {
    switch (p) {
        case PaddingCode::NONE: return "NONE";
        case PaddingCode::SAME: return "SAME";
        case PaddingCode::VALID: return "VALID";
    }
    return "<unknown PaddingCode>";
}

const char* to_string(DeviceStatus s) {
    switch (s) {
        case DeviceStatus::AVAILABLE: return "AVAILABLE";
        case DeviceStatus::BUSY: return "BUSY";
        case DeviceStatus::OFFLINE: return "OFFLINE";
        case DeviceStatus::UNKNOWN: return "UNKNOWN";
    }
    return "<unknown DeviceStatus>";
}

const char* to_string(ErrorStatus s) {
    switch (s) {
        case ErrorStatus::NONE: return "NONE";
        case ErrorStatus::DEVICE_UNAVAILABLE: return "DEVICE_UNAVAILABLE";
        case ErrorStatus::GENERAL_FAILURE: return "GENERAL_FAILURE";
        case ErrorStatus::OUTPUT_INSUFFICIENT_SIZE: return "OUTPUT_INSUFFICIENT_SIZE";
        case ErrorStatus::INVALID_ARGUMENT: return "INVALID_ARGUMENT";
    }
    return "<unknown ErrorStatus>";
}

std::optional<OperandType> operand_type_from_string(std::string_view s) { return value_of(kOperandTypes, s); }
std::optional<OperationType> operation_type_from_string(std::string_view s) { return value_of(kOperationTypes, s); }
std::optional<OperandLifeTime> lifetime_from_string(std::string_view s) { return value_of(kLifetimes, s); }

const std::vector<OperationType>& all_operation_types() {
    static const std::vector<OperationType> all = [] {
        std::vector<OperationType> v;
        for (const auto& entry : kOperationTypes)
            if (entry.value != OperationType::OEM_OPERATION) v.push_back(entry.value);
        return v;
    }();
    return all;
}

bool is_tensor(OperandType t) {
    return t == OperandType::TENSOR_FLOAT32 || t == OperandType::TENSOR_INT32 ||
           t == OperandType::TENSOR_QUANT8_ASYMM || t == OperandType::TENSOR_OEM_BYTE;
}

std::size_t element_size(OperandType t) {
    switch (t) {
        case OperandType::FLOAT32:
        case OperandType::INT32:
        case OperandType::UINT32:
        case OperandType::TENSOR_FLOAT32:
        case OperandType::TENSOR_INT32: return 4;
        case OperandType::TENSOR_QUANT8_ASYMM:
        case OperandType::TENSOR_OEM_BYTE: return 1;
        case OperandType::OEM: return 0;
    }
    return 0;
}

std::optional<std::uint64_t> element_count(const Operand& o) {
    std::uint64_t n = 1;
    for (std::uint32_t d : o.dimensions) {
        if (d == 0) return std::nullopt;
        if (n > std::numeric_limits<std::uint64_t>::max() / d) return std::nullopt;
        n *= d;
    }
    return n;
}

std::optional<std::uint64_t> byte_size(const Operand& o) {
    auto n = element_count(o);
    std::size_t e = element_size(o.type);
    if (!n || e == 0) return std::nullopt;
    if (*n > std::numeric_limits<std::uint64_t>::max() / e) return std::nullopt;
    return *n * e;
}

std::string describe(const Operand& o) {
    std::ostringstream s;
    s << to_string(o.type);
    if (is_tensor(o.type)) {
        s << '[';
        for (std::size_t i = 0; i < o.dimensions.size(); ++i) s << (i ? "," : "") << o.dimensions[i];
        s << ']';
    }
    if (o.type == OperandType::TENSOR_QUANT8_ASYMM) s << ", scale " << o.scale << ", zeroPoint " << o.zeroPoint;
    return s.str();
}

// ---- building -------------------------------------------------------------------------------------

std::uint32_t add_operand(Model& m, OperandType type, std::vector<std::uint32_t> dimensions, float scale,
                          std::int32_t zeroPoint) {
    Operand o;
    o.type = type;
    o.dimensions = std::move(dimensions);
    o.scale = scale;
    o.zeroPoint = zeroPoint;
    m.operands.push_back(std::move(o));
    return static_cast<std::uint32_t>(m.operands.size() - 1);
}

namespace {
std::uint8_t* append_aligned(std::vector<std::uint8_t>& buffer, std::size_t size, DataLocation& location) {
    const std::size_t offset = (buffer.size() + 3) / 4 * 4;
    location.offset = static_cast<std::uint32_t>(offset);
    location.length = static_cast<std::uint32_t>(size);
    buffer.resize(offset + size);
    return buffer.data() + offset;
}
}  // namespace

std::uint32_t add_constant_filled(Model& m, OperandType type, std::vector<std::uint32_t> dimensions, std::size_t size,
                                  const std::function<void(std::uint8_t*)>& fill, float scale, std::int32_t zeroPoint) {
    std::uint32_t index = add_operand(m, type, std::move(dimensions), scale, zeroPoint);
    Operand& o = m.operands[index];
    o.location.poolIndex = 0;
    if (size <= kMaxInlineConstantBytes) {
        o.lifetime = OperandLifeTime::CONSTANT_COPY;
        fill(append_aligned(m.operandValues, size, o.location));
    } else {
        o.lifetime = OperandLifeTime::CONSTANT_REFERENCE;
        if (m.pools.empty()) m.pools.emplace_back();
        fill(append_aligned(m.pools[0].data, size, o.location));
    }
    return index;
}

std::uint32_t add_constant(Model& m, OperandType type, std::vector<std::uint32_t> dimensions, const void* bytes,
                           std::size_t size, float scale, std::int32_t zeroPoint) {
    return add_constant_filled(
        m, type, std::move(dimensions), size, [&](std::uint8_t* to) { if (size > 0) std::memcpy(to, bytes, size); }, scale, zeroPoint);
}

std::uint32_t add_int32_scalar(Model& m, std::int32_t value) {
    return add_constant(m, OperandType::INT32, {}, &value, sizeof value);
}

std::uint32_t add_float32_scalar(Model& m, float value) {
    return add_constant(m, OperandType::FLOAT32, {}, &value, sizeof value);
}

void add_operation(Model& m, OperationType type, std::vector<std::uint32_t> inputs, std::vector<std::uint32_t> outputs) {
    for (std::uint32_t i : inputs)
        if (i < m.operands.size()) ++m.operands[i].numberOfConsumers;
    m.operations.push_back(Operation{type, std::move(inputs), std::move(outputs)});
}

void set_inputs_and_outputs(Model& m, std::vector<std::uint32_t> inputs, std::vector<std::uint32_t> outputs) {
    for (std::uint32_t i : inputs)
        if (i < m.operands.size()) m.operands[i].lifetime = OperandLifeTime::MODEL_INPUT;
    for (std::uint32_t i : outputs)
        if (i < m.operands.size()) m.operands[i].lifetime = OperandLifeTime::MODEL_OUTPUT;
    m.inputIndexes = std::move(inputs);
    m.outputIndexes = std::move(outputs);
}

std::optional<std::basic_string_view<std::uint8_t>> constant_bytes(const Model& m, const Operand& o) {
    const std::vector<std::uint8_t>* buffer = nullptr;
    if (o.lifetime == OperandLifeTime::CONSTANT_COPY) {
        buffer = &m.operandValues;
    } else if (o.lifetime == OperandLifeTime::CONSTANT_REFERENCE) {
        if (o.location.poolIndex >= m.pools.size()) return std::nullopt;
        buffer = &m.pools[o.location.poolIndex].data;
    } else {
        return std::nullopt;
    }
    std::uint64_t end = std::uint64_t{o.location.offset} + o.location.length;
    if (end > buffer->size()) return std::nullopt;
    return std::basic_string_view<std::uint8_t>(buffer->data() + o.location.offset, o.location.length);
}

}  // namespace nnef::nnapi
