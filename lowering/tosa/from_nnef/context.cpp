#include "lowering/tosa/from_nnef/context.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "lowering/attributes.hpp"
#include "storage/random_data.hpp"

namespace nnef::tosa::from_nnef {

namespace tosa_from_nnef_context_cpp {

// An item of a splat constant, converted to the dtype.
void store(ConstData& c, std::size_t i, double value) {
    switch (c.type.dtype) {
        case DType::fp32: c.mutable_items<float>()[i] = static_cast<float>(value); break;
        case DType::fp16: c.mutable_items<std::uint16_t>()[i] = fp32_to_fp16(static_cast<float>(value)); break;
        case DType::bf16: c.mutable_items<std::uint16_t>()[i] = fp32_to_bf16(static_cast<float>(value)); break;
        case DType::i8: c.mutable_items<std::int8_t>()[i] = static_cast<std::int8_t>(value); break;
        case DType::i16: c.mutable_items<std::int16_t>()[i] = static_cast<std::int16_t>(value); break;
        case DType::i32: c.mutable_items<std::int32_t>()[i] = static_cast<std::int32_t>(value); break;
        case DType::i48:
        case DType::shape: c.mutable_items<std::int64_t>()[i] = static_cast<std::int64_t>(value); break;
        case DType::bool_: c.mutable_items<std::uint8_t>()[i] = value != 0.0 ? 1 : 0; break;
        case DType::none: break;
    }
}

}  // namespace tosa_from_nnef_context_cpp

DType dtype_of(PrimType t) {
    switch (t) {
        case PrimType::scalar: return DType::fp32;
        case PrimType::integer: return DType::i32;
        case PrimType::logical: return DType::bool_;
        default: return DType::none;
    }
}

Context::Context(const nnef::Graph& model, Graph& graph, const LowerOptions& options, Diagnostics& diags)
    : model_(model), graph_(graph), options_(options), diags_(diags) {}

const std::set<std::string>& Context::positive_variables() {
    if (!positive_) positive_ = storage::positive_variables(model_);
    return *positive_;
}

const std::set<std::string>& Context::updated_variables() {
    if (!updated_) {
        updated_.emplace();
        for (const Operation& op : model_.operations)
            if (op.name == "update")
                if (const nnef::Value* v = op.input("variable"); v && v->is_identifier()) updated_->insert(v->as_identifier());
    }
    return *updated_;
}

void Context::begin(const Operation& op) {
    op_ = &op;
    std::string first;
    for (const auto& [name, v] : op.outputs) {
        if (v.is_identifier()) first = v.as_identifier();
        else if (v.is_list() && v.size() > 0 && v[0].is_identifier()) first = v[0].as_identifier();
        if (!first.empty()) break;
    }
    origin_ = graph_.add_origin(Origin{op.name, first, op.provenance});
}

bool Context::error(const std::string& code, const std::string& message) {
    lowering::operation_error(diags_, Stage::tosa, code, message, op_);
    return false;
}

bool Context::refuse(const std::string& why) {
    return error("unsupported-operation", "operation '" + op_->name + "' cannot be lowered to TOSA: " + why);
}

// ---- attributes ------------------------------------------------------------------------------

std::int64_t Context::int_attr(std::string_view name, std::int64_t fallback) const { return lowering::int_attr(*op_, name, fallback); }

double Context::scalar_attr(std::string_view name, double fallback) const {
    const nnef::Value* v = op_->attrib(name);
    if (v && v->is_scalar()) return v->as_scalar();
    if (v && v->is_integer()) return double(v->as_integer());
    return fallback;
}

bool Context::logical_attr(std::string_view name, bool fallback) const {
    const nnef::Value* v = op_->attrib(name);
    return v && v->is_logical() ? v->as_logical() : fallback;
}

std::string Context::string_attr(std::string_view name, const std::string& fallback) const {
    return lowering::string_attr(*op_, name, fallback);
}

Ints Context::ints_attr(std::string_view name) const { return lowering::ints_attr(*op_, name); }

Pairs Context::pairs_attr(std::string_view name) const { return lowering::pairs_attr(*op_, name); }

std::vector<double> Context::scalars_attr(std::string_view name) const { return lowering::scalars_attr(*op_, name); }

// ---- arguments and results -------------------------------------------------------------------

bool Context::has_input(std::string_view name) const { return op_->input(name) != nullptr; }

const nnef::Value& Context::argument(std::string_view name) const {
    const nnef::Value* v = op_->input(name);
    if (!v) throw std::logic_error("no tensor argument '" + std::string(name) + "' of '" + op_->name + "'");
    return *v;
}

bool Context::input_is_literal(std::string_view name) const { return !argument(name).is_identifier(); }

ValueId Context::input(std::string_view name, std::size_t literal_rank) {
    const nnef::Value& v = argument(name);
    if (v.is_identifier()) {
        const ValueId id = value_of(v.as_identifier());
        if (id == no_value) throw std::logic_error("tensor '" + v.as_identifier() + "' has no TOSA value");
        return id;
    }
    if (v.is_scalar()) return scalar(DType::fp32, v.as_scalar(), literal_rank);
    if (v.is_integer()) return scalar(DType::i32, double(v.as_integer()), literal_rank);
    if (v.is_logical()) return scalar(DType::bool_, v.as_logical() ? 1.0 : 0.0, literal_rank);
    throw std::logic_error("argument '" + std::string(name) + "' of '" + op_->name + "' is not a tensor");
}

std::vector<ValueId> Context::inputs(std::string_view name) {
    const nnef::Value& v = argument(name);
    std::vector<ValueId> out;
    if (!v.is_list()) {
        out.push_back(input(name));
        return out;
    }
    for (const nnef::Value& item : v.items()) {
        if (!item.is_identifier()) throw std::logic_error("an item of '" + std::string(name) + "' is not a tensor");
        const ValueId id = value_of(item.as_identifier());
        if (id == no_value) throw std::logic_error("tensor '" + item.as_identifier() + "' has no TOSA value");
        out.push_back(id);
    }
    return out;
}

const Tensor& Context::result(std::string_view name, std::size_t item) const {
    const nnef::Value* v = op_->output(name);
    if (!v) throw std::logic_error("no result '" + std::string(name) + "' of '" + op_->name + "'");
    const nnef::Value& id = v->is_list() ? (*v)[item] : *v;
    const Tensor* t = id.is_identifier() ? model_.tensor(id.as_identifier()) : nullptr;
    if (!t) throw std::logic_error("result '" + std::string(name) + "' of '" + op_->name + "' is not a tensor");
    return *t;
}

std::size_t Context::result_count(std::string_view name) const {
    const nnef::Value* v = op_->output(name);
    if (!v) return 0;
    return v->is_list() ? v->size() : 1;
}

TensorType Context::result_type(std::string_view name, std::size_t item) const {
    const Tensor& t = result(name, item);
    return TensorType{dtype_of(t.dtype), t.shape ? *t.shape : Shape{}};
}

bool Context::bind(std::string_view name, ValueId v, std::size_t item) {
    const Tensor& t = result(name, item);
    const TensorType want = result_type(name, item);
    if (graph_.type(v) != want)
        throw std::logic_error("result '" + t.name + "' of '" + op_->name + "' lowered as " + to_string(graph_.type(v)) +
                               ", declared " + to_string(want));
    bind_tensor(t.name, v);
    return true;
}

ValueId Context::value_of(const std::string& tensor) const {
    auto it = values_.find(tensor);
    return it == values_.end() ? no_value : it->second;
}

void Context::bind_tensor(const std::string& tensor, ValueId v) {
    values_[tensor] = v;
    if (graph_.values[v].name.empty()) graph_.values[v].name = tensor;
}

// ---- builders ---------------------------------------------------------------------------------

ValueId Context::add(OpKind kind, std::vector<ValueId> ins, TensorType out,
                     std::vector<std::pair<AttrName, Attr>> attrs) {
    Op& op = graph_.add_op(0, kind, std::move(ins), {std::move(out)}, std::move(attrs), origin_);
    return op.outputs[0];
}

ValueId Context::constant(ConstPtr data, std::string name) {
    ConstPtr keep = data;
    const ValueId v = graph_.add_const(0, std::move(data), origin_, std::move(name));
    constants_[v] = std::move(keep);
    return v;
}

ConstPtr Context::constant_of(ValueId v) const {
    auto it = constants_.find(v);
    return it == constants_.end() ? nullptr : it->second;
}

ValueId Context::splat(DType dtype, Shape shape, double value) {
    auto c = ConstData::allocate(TensorType{dtype, shape});
    const std::int64_t n = c->type.volume();
    for (std::int64_t i = 0; i < n; ++i) tosa_from_nnef_context_cpp::store(*c, std::size_t(i), value);
    return constant(std::move(c));
}

ValueId Context::f32(const Shape& shape, const std::vector<float>& items) {
    auto c = ConstData::allocate(TensorType{DType::fp32, shape});
    std::copy(items.begin(), items.end(), c->mutable_items<float>());
    return constant(std::move(c));
}

ValueId Context::shape_value(const Ints& items) { return graph_.add_const_shape(0, items, origin_); }

bool Context::int_via_float(ValueId v) const {
    return options_.profile == Profile::pro_fp && is_integer(type(v).dtype);
}

ValueId Context::reshape(ValueId v, Shape shape) {
    if (this->shape(v) == shape) return v;
    if (ConstPtr data = constant_of(v))  // the same items seen with the new shape
        return constant(ConstData::view(TensorType{data->type.dtype, shape}, data->owner, data->data));
    if (int_via_float(v)) return cast(reshape(cast(v, DType::fp32), shape), type(v).dtype);
    const ValueId s = shape_value(shape);
    return add(OpKind::RESHAPE, {v, s}, TensorType{type(v).dtype, shape});
}

ValueId Context::transpose(ValueId v, const Ints& perms) {
    bool identity = true;
    for (std::size_t i = 0; i < perms.size(); ++i) identity = identity && perms[i] == std::int64_t(i);
    if (identity) return v;
    if (int_via_float(v)) return cast(transpose(cast(v, DType::fp32), perms), type(v).dtype);
    const Shape& in = shape(v);
    Shape out(perms.size());
    for (std::size_t i = 0; i < perms.size(); ++i) out[i] = in[std::size_t(perms[i])];
    return add(OpKind::TRANSPOSE, {v}, TensorType{type(v).dtype, out}, {{AttrName::perms, perms}});
}

ValueId Context::to_channels_last(ValueId v) {
    const std::size_t r = rank(v);
    Ints perms{0};
    for (std::size_t i = 2; i < r; ++i) perms.push_back(std::int64_t(i));
    perms.push_back(1);
    return transpose(v, perms);
}

ValueId Context::to_channels_first(ValueId v) {
    const std::size_t r = rank(v);
    Ints perms{0, std::int64_t(r) - 1};
    for (std::size_t i = 1; i + 1 < r; ++i) perms.push_back(std::int64_t(i));
    return transpose(v, perms);
}

ValueId Context::extend_rank(ValueId v, std::size_t r) {
    if (rank(v) >= r) return v;
    Shape s = shape(v);
    s.resize(r, 1);
    return reshape(v, s);
}

ValueId Context::slice(ValueId v, Ints start, Ints size) {
    if (size == shape(v)) return v;
    if (int_via_float(v)) return cast(slice(cast(v, DType::fp32), start, size), type(v).dtype);
    const ValueId a = shape_value(start), b = shape_value(size);
    return add(OpKind::SLICE, {v, a, b}, TensorType{type(v).dtype, size});
}

ValueId Context::pad(ValueId v, const Pairs& padding, double value) {
    bool none = true;
    Ints items;
    Shape out = shape(v);
    for (std::size_t i = 0; i < padding.size(); ++i) {
        none = none && padding[i].first == 0 && padding[i].second == 0;
        items.push_back(padding[i].first);
        items.push_back(padding[i].second);
        out[i] += padding[i].first + padding[i].second;
    }
    if (none) return v;
    if (int_via_float(v)) return cast(pad(cast(v, DType::fp32), padding, value), type(v).dtype);
    const ValueId p = shape_value(items);
    const ValueId c = splat(type(v).dtype, {1}, value);
    return add(OpKind::PAD, {v, p, c}, TensorType{type(v).dtype, out});
}

ValueId Context::slice_axis(ValueId v, std::size_t axis, std::int64_t begin, std::int64_t end) {
    Ints start(rank(v), 0);
    Ints size = shape(v);
    start[axis] = begin;
    size[axis] = end - begin;
    return slice(v, start, size);
}

ValueId Context::tile(ValueId v, const Ints& multiples) {
    bool ones = true;
    Shape out = shape(v);
    for (std::size_t i = 0; i < multiples.size(); ++i) {
        ones = ones && multiples[i] == 1;
        out[i] *= multiples[i];
    }
    if (ones) return v;
    if (int_via_float(v)) return cast(tile(cast(v, DType::fp32), multiples), type(v).dtype);
    const ValueId m = shape_value(multiples);
    return add(OpKind::TILE, {v, m}, TensorType{type(v).dtype, out});
}

ValueId Context::reverse(ValueId v, std::size_t axis) {
    if (shape(v)[axis] == 1) return v;
    if (int_via_float(v)) return cast(reverse(cast(v, DType::fp32), axis), type(v).dtype);
    return add(OpKind::REVERSE, {v}, type(v), {{AttrName::axis, std::int64_t(axis)}});
}

ValueId Context::pad_border(ValueId v, std::size_t axis, std::int64_t p, std::int64_t q, const std::string& border,
                            double value) {
    if (p == 0 && q == 0) return v;
    std::int64_t n = shape(v)[axis];
    if (border == "constant" || border == "ignore") {
        Pairs padding(rank(v), {0, 0});
        padding[axis] = {p, q};
        return pad(v, padding, value);
    }
    if (border == "replicate" || (border == "reflect" && n == 1)) {
        std::vector<ValueId> parts;
        Ints m(rank(v), 1);
        if (p > 0) {
            m[axis] = p;
            parts.push_back(tile(slice_axis(v, axis, 0, 1), m));
        }
        parts.push_back(v);
        if (q > 0) {
            m[axis] = q;
            parts.push_back(tile(slice_axis(v, axis, n - 1, n), m));
        }
        return concat(parts, std::int64_t(axis));
    }
    // reflect / reflect-even, at most one extent (minus the edge for 'reflect') at a time
    const bool even = border == "reflect-even";
    while (p > 0 || q > 0) {
        const std::int64_t limit = even ? n : n - 1;
        const std::int64_t pc = std::min(p, limit), qc = std::min(q, limit);
        std::vector<ValueId> parts;
        if (pc > 0) parts.push_back(reverse(even ? slice_axis(v, axis, 0, pc) : slice_axis(v, axis, 1, 1 + pc), axis));
        parts.push_back(v);
        if (qc > 0)
            parts.push_back(reverse(even ? slice_axis(v, axis, n - qc, n) : slice_axis(v, axis, n - 1 - qc, n - 1), axis));
        v = concat(parts, std::int64_t(axis));
        p -= pc;
        q -= qc;
        n += pc + qc;
    }
    return v;
}

ValueId Context::concat(const std::vector<ValueId>& vs, std::int64_t axis) {
    if (vs.size() == 1) return vs[0];
    if (int_via_float(vs[0])) {
        std::vector<ValueId> fs;
        for (ValueId v : vs) fs.push_back(cast(v, DType::fp32));
        return cast(concat(fs, axis), type(vs[0]).dtype);
    }
    const std::size_t limit = std::size_t(std::max<std::int64_t>(options_.level.max_tensor_list_size, 2));
    if (vs.size() > limit) {
        std::vector<ValueId> parts;
        for (std::size_t i = 0; i < vs.size(); i += limit)
            parts.push_back(concat(std::vector<ValueId>(vs.begin() + std::ptrdiff_t(i),
                                                        vs.begin() + std::ptrdiff_t(std::min(vs.size(), i + limit))),
                                   axis));
        return concat(parts, axis);
    }
    Shape out = shape(vs[0]);
    out[std::size_t(axis)] = 0;
    for (ValueId v : vs) out[std::size_t(axis)] += shape(v)[std::size_t(axis)];
    return add(OpKind::CONCAT, vs, TensorType{type(vs[0]).dtype, out}, {{AttrName::axis, axis}});
}

ValueId Context::cast(ValueId v, DType to) {
    if (type(v).dtype == to) return v;
    return add(OpKind::CAST, {v}, TensorType{to, shape(v)});
}

void add_graph_output(Graph& g, ValueId v, const std::string& name) {
    const auto& ins = g.main().inputs;
    const bool input = std::find(ins.begin(), ins.end(), v) != ins.end();
    const bool taken = std::find(g.main().outputs.begin(), g.main().outputs.end(), v) != g.main().outputs.end();
    if (g.values[v].name != name || taken || input) {
        v = g.add_op(0, OpKind::IDENTITY, {v}, {g.type(v)}).outputs[0];
        g.values[v].name = name;
    }
    g.main().outputs.push_back(v);
}

Shape Context::broadcast_shape(const Shape& a, const Shape& b) {
    Shape out(std::max(a.size(), b.size()), 1);
    for (std::size_t i = 0; i < out.size(); ++i) {
        const std::int64_t x = i < a.size() ? a[i] : 1, y = i < b.size() ? b[i] : 1;
        out[i] = x == 1 ? y : x;
    }
    return out;
}

ValueId Context::binary(OpKind kind, ValueId a, ValueId b, std::vector<std::pair<AttrName, Attr>> attrs) {
    const std::size_t r = std::max(rank(a), rank(b));
    a = extend_rank(a, r);
    b = extend_rank(b, r);
    const Shape out = broadcast_shape(shape(a), shape(b));
    DType dt = type(a).dtype;
    if (kind == OpKind::EQUAL || kind == OpKind::GREATER || kind == OpKind::GREATER_EQUAL) dt = DType::bool_;
    std::vector<ValueId> ins{a, b};
    if (kind == OpKind::MUL) ins.push_back(splat(DType::i8, {1}, 0.0));
    return add(kind, std::move(ins), TensorType{dt, out}, std::move(attrs));
}

ValueId Context::unary(OpKind kind, ValueId a) { return add(kind, {a}, type(a)); }

ValueId Context::mul(ValueId a, ValueId b) { return binary(OpKind::MUL, a, b); }

ValueId Context::div(ValueId a, ValueId b) {
    if (is_integer(type(a).dtype)) return binary(OpKind::INTDIV, a, b);
    return mul(a, unary(OpKind::RECIPROCAL, b));
}

ValueId Context::negate(ValueId a) {
    const DType dt = type(a).dtype;
    return add(OpKind::NEGATE, {a, zero_point(dt), zero_point(dt)}, type(a));
}

ValueId Context::clamp(ValueId a, double lo, double hi) {
    const DType dt = type(a).dtype;
    Attr min_val, max_val;
    if (is_float(dt)) {
        min_val = lo;
        max_val = hi;
    } else {
        min_val = static_cast<std::int64_t>(lo);
        max_val = static_cast<std::int64_t>(hi);
    }
    return add(OpKind::CLAMP, {a}, type(a),
               {{AttrName::min_val, min_val}, {AttrName::max_val, max_val}, {AttrName::nan_mode, NanMode::PROPAGATE}});
}

bool Context::nan_free_constant(ValueId v) const {
    const ConstPtr c = constant_of(v);
    if (!c) return false;
    if (c->type.dtype != DType::fp32) return !is_float(c->type.dtype);
    const float* f = c->items<float>();
    for (std::int64_t i = 0, n = c->type.volume(); i < n; ++i)
        if (std::isnan(f[i])) return false;
    return true;
}

ValueId Context::nnef_min(ValueId x, ValueId y) {
    if (!is_float(type(x).dtype)) return minimum(x, y);
    // a NaN x gives y; y is never NaN
    if (nan_free_constant(y)) return binary(OpKind::MINIMUM, x, y, {{AttrName::nan_mode, NanMode::IGNORE}});
    // x is never NaN; a NaN y gives NaN
    if (nan_free_constant(x)) return minimum(x, y);
    return select(compare(OpKind::GREATER, y, x), x, y);
}

ValueId Context::nnef_max(ValueId x, ValueId y) {
    if (!is_float(type(x).dtype)) return maximum(x, y);
    if (nan_free_constant(y)) return binary(OpKind::MAXIMUM, x, y, {{AttrName::nan_mode, NanMode::IGNORE}});
    if (nan_free_constant(x)) return maximum(x, y);
    return select(compare(OpKind::GREATER, x, y), x, y);
}

ValueId Context::select(ValueId c, ValueId a, ValueId b) {
    const std::size_t r = std::max({rank(c), rank(a), rank(b)});
    c = extend_rank(c, r);
    a = extend_rank(a, r);
    b = extend_rank(b, r);
    const Shape out = broadcast_shape(broadcast_shape(shape(c), shape(a)), shape(b));
    return add(OpKind::SELECT, {c, a, b}, TensorType{type(a).dtype, out});
}

ValueId Context::compare(OpKind kind, ValueId a, ValueId b) { return binary(kind, a, b); }

ValueId Context::reduce(OpKind kind, ValueId v, const Ints& axes) {
    for (std::int64_t axis : axes) {
        Shape out = shape(v);
        if (out[std::size_t(axis)] == 1) continue;  // nothing to reduce
        out[std::size_t(axis)] = 1;
        std::vector<std::pair<AttrName, Attr>> attrs{{AttrName::axis, axis}};
        if (kind == OpKind::REDUCE_MAX || kind == OpKind::REDUCE_MIN) attrs.emplace_back(AttrName::nan_mode, NanMode::PROPAGATE);
        v = add(kind, {v}, TensorType{type(v).dtype, out}, std::move(attrs));
    }
    return v;
}

}  // namespace nnef::tosa::from_nnef
