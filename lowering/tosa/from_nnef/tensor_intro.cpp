// Tensor introducing operations (NNEF spec 4.1): external (a block input, made by the driver),
// variable (its weights as a CONST that views the loaded tensor data, or pseudo-random weights),
// constant (a CONST). Variables that an `update` writes are TOSA variables (variable_update.cpp).
#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>

#include <nnef/tensor_data.hpp>

#include "lowering/tosa/from_nnef/context.hpp"
#include "lowering/tosa/from_nnef/integer.hpp"
#include "storage/random_data.hpp"

namespace nnef::tosa::from_nnef {

namespace tosa_from_nnef_tensor_intro_cpp {

std::string lower_case(std::string s) {
    for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

bool external(Context& c) {
    const Tensor& t = c.result("output");
    if (c.value_of(t.name) == no_value)
        return c.error("not-an-input", "external '" + t.name + "' is not an input of the graph");
    return true;
}

}  // namespace tosa_from_nnef_tensor_intro_cpp

// The items of a variable's tensor data as a constant of `type` (fp32 data in place, without a copy).
ConstPtr weights_constant(const TensorData& data, const TensorType& type, std::string& why) {
    if (!data.has_values()) {
        why = "its tensor data has an encoding of unknown meaning (vendor code)";
        return nullptr;
    }
    if (type.dtype == DType::fp32) {
        if (data.float32_data()) {
            auto owner = std::make_shared<TensorData>(data);  // shares the bytes
            return ConstData::view(type, owner, owner->float32_data());
        }
        auto out = ConstData::allocate(type);
        float* y = out->mutable_items<float>();
        for (std::uint64_t i = 0; i < data.count; ++i) y[i] = static_cast<float>(data.as_double(i));
        return out;
    }
    if (type.dtype == DType::i32) {
        auto out = ConstData::allocate(type);
        std::int32_t* y = out->mutable_items<std::int32_t>();
        for (std::uint64_t i = 0; i < data.count; ++i) {
            const std::int64_t v = data.as_int64(i);
            if (v < std::numeric_limits<std::int32_t>::min() || v > std::numeric_limits<std::int32_t>::max()) {
                why = "item " + std::to_string(i) + " (" + std::to_string(v) + ") is outside the range of i32";
                return nullptr;
            }
            y[i] = static_cast<std::int32_t>(v);
        }
        return out;
    }
    if (type.dtype == DType::bool_) {
        auto out = ConstData::allocate(type);
        std::uint8_t* y = out->mutable_items<std::uint8_t>();
        for (std::uint64_t i = 0; i < data.count; ++i) y[i] = data.as_bool(i) ? 1 : 0;
        return out;
    }
    why = "its data type has no TOSA form";
    return nullptr;
}

// The initial value of a variable: its tensor data or random weights (shared by label).
ConstPtr variable_weights(Context& c, const Tensor& t, const std::string& label) {
    const std::string key = tosa_from_nnef_tensor_intro_cpp::lower_case(label);
    auto it = c.weights_by_label.find(key);
    if (it != c.weights_by_label.end() && it->second->type.shape == *t.shape) return it->second;
    const TensorType type{dtype_of(t.dtype), *t.shape};
    ConstPtr data;
    if (c.options().random_weights) {
        auto out = ConstData::allocate(type);
        if (type.dtype == DType::fp32)
            storage::random_weights(out->mutable_items<float>(), type.shape,
                                    storage::variable_seed(key, *c.options().random_weights),
                                    c.positive_variables().count(t.name) > 0);
        data = std::move(out);
    } else if (!t.data) {
        c.error("missing-weights", "variable '" + t.name + "' (label '" + label +
                                       "') has no tensor data (load the model with its weights, or use random weights)");
        return nullptr;
    } else if (t.quantization && t.dtype == PrimType::scalar && storage::holds_codes(*t.data)) {
        // Integer codes mean what the graph.quant entry says ((code - zero_point) * scale, ...),
        // as the reference executor reads them; never the codes themselves as reals.
        Result<storage::QuantParams> p = storage::quant_params(*t.quantization, t.name);
        if (!p) {
            c.error("bad-weights", "the stored codes of variable '" + t.name + "' (label '" + label +
                                       "') cannot be dequantized: its graph.quant entry has no usable parameters");
            return nullptr;
        }
        const std::uint64_t n = t.data->count;
        std::vector<std::int64_t> codes(n);
        for (std::uint64_t i = 0; i < n; ++i) codes[i] = t.data->as_int64(i);
        const std::vector<double> reals = storage::dequantize(*p, type.shape, codes);
        auto out = ConstData::allocate(TensorType{DType::fp32, type.shape});
        for (std::uint64_t i = 0; i < n; ++i) out->mutable_items<float>()[i] = static_cast<float>(reals[i]);
        data = std::move(out);
    } else {
        std::string why;
        data = weights_constant(*t.data, type, why);
        if (!data) {
            c.error("bad-weights", "the tensor data of variable '" + t.name + "' (label '" + label + "') cannot be a TOSA constant: " + why);
            return nullptr;
        }
    }
    c.weights_by_label[key] = data;
    return data;
}

namespace tosa_from_nnef_tensor_intro_cpp {

bool variable(Context& c) {
    const Tensor& t = c.result("output");
    const std::string label = c.string_attr("label");
    c.variable_labels[t.name] = label;
    const bool declared = c.weights_by_label.count(lower_case(label)) > 0;
    ConstPtr data = variable_weights(c, t, label);
    if (!data) return false;
    if (!c.updated_variables().count(t.name)) return c.bind("output", c.constant(data, t.name));
    // a variable that an update writes: a TOSA variable (declared once per label), read here
    if (!declared)
        c.graph().add_op(0, OpKind::VARIABLE, {}, {},
                         {{AttrName::name, label},
                          {AttrName::var_shape, std::vector<std::int64_t>(t.shape->begin(), t.shape->end())},
                          {AttrName::type, data->type.dtype},
                          {AttrName::initial_value, data}},
                         c.origin());
    return c.bind("output", c.add(OpKind::VARIABLE_READ, {}, data->type, {{AttrName::name, label}}));
}

bool constant(Context& c) {
    const TensorType type = c.result_type("output");
    const std::vector<double> items = c.scalars_attr("value");
    const std::int64_t n = type.volume();
    if (items.size() != 1 && std::int64_t(items.size()) != n)
        return c.error("bad-constant", "constant '" + c.result("output").name + "' has " + std::to_string(items.size()) +
                                           " values for " + std::to_string(n) + " items");
    auto data = ConstData::allocate(type);
    for (std::int64_t i = 0; i < n; ++i) {
        const double v = items.size() == 1 ? items[0] : items[std::size_t(i)];
        switch (type.dtype) {
            case DType::fp32: data->mutable_items<float>()[i] = static_cast<float>(v); break;
            case DType::i32: data->mutable_items<std::int32_t>()[i] = static_cast<std::int32_t>(v); break;
            case DType::bool_: data->mutable_items<std::uint8_t>()[i] = v != 0.0 ? 1 : 0; break;
            default: return c.refuse("its data type has no TOSA form");
        }
    }
    return c.bind("output", c.constant(std::move(data)));
}

using integer::Real;
using integer::items_of;

bool variable_integer(integer::Lowering& q) {
    const Tensor& t = q.c.result("output");
    if (q.c.updated_variables().count(t.name)) return q.fail("variables that an update writes have no integer form here");
    Real r;
    r.shape = *t.shape;
    const std::uint64_t n = std::uint64_t(items_of(r.shape));
    r.items.resize(n);
    if (q.c.options().random_weights) {
        std::vector<float> f(n);
        const std::string label = q.c.string_attr("label");
        storage::random_weights(f.data(), r.shape, storage::variable_seed(lower_case(label), *q.c.options().random_weights),
                                q.c.positive_variables().count(t.name) > 0);
        std::copy(f.begin(), f.end(), r.items.begin());
    } else if (!t.data || !t.data->has_values()) {
        return q.c.error("missing-weights", "variable '" + t.name + "' has no usable tensor data");
    } else if (storage::holds_codes(*t.data) && t.quantization) {
        // stored codes: their entry dequantizes them (no second rounding)
        bool bad = false;
        const auto p = q.params_of(t.name, bad);
        if (!p) return false;
        std::vector<std::int64_t> codes(n);
        for (std::uint64_t i = 0; i < n; ++i) codes[i] = t.data->as_int64(i);
        r.items = storage::dequantize(*p, r.shape, codes);
        r.params = p;
        q.reals[t.name] = std::move(r);
        return true;
    } else {
        for (std::uint64_t i = 0; i < n; ++i) r.items[i] = t.data->as_double(i);
    }
    return q.bind_real(t.name, std::move(r));
}

bool constant_integer(integer::Lowering& q) {
    const Tensor& t = q.c.result("output");
    Real r;
    r.shape = *t.shape;
    const std::vector<double> items = q.c.scalars_attr("value");
    const std::size_t n = std::size_t(items_of(r.shape));
    if (items.size() != 1 && items.size() != n) return q.fail("its value does not match its shape");
    r.items.resize(n);
    for (std::size_t i = 0; i < n; ++i) r.items[i] = items.size() == 1 ? items[0] : items[i];
    return q.bind_real(t.name, std::move(r));
}

}  // namespace tosa_from_nnef_tensor_intro_cpp

void add_tensor_intro(Registry& r) {
    using namespace tosa_from_nnef_tensor_intro_cpp;
    r.push_back({"external", "tensor_intro", external, {},
                 [](integer::Lowering&) { return true; }});  // made with the inputs
    r.push_back({"variable", "tensor_intro", variable, {}, variable_integer});
    r.push_back({"constant", "tensor_intro", constant, {}, constant_integer});
}

}  // namespace nnef::tosa::from_nnef
