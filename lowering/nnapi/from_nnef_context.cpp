#include "lowering/nnapi/from_nnef_context.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <sstream>
#include <stdexcept>

#include "lowering/attributes.hpp"
#include "lowering/strided_rows.hpp"
#include "lowering/tosa/from_nnef.hpp"

namespace nnef::nnapi::from_nnef {

std::int64_t volume(const Shape& s) {
    std::int64_t v = 1;
    for (std::int64_t e : s) v *= e;
    return v;
}

std::vector<float> floats(const Constant& c) {
    std::vector<float> out(c.count());
    for (std::size_t i = 0; i < out.size(); ++i) out[i] = static_cast<float>(c.value(i));
    return out;
}

Context::Context(const nnef::Graph& graph, const ExportOptions& options, Diagnostics& diags, bool partial)
    : graph_(graph), options_(options), diags_(diags), partial_(partial) {
    quantized_ = tosa::from_nnef::is_quantized(graph);
    for (const nnef::Operation& op : graph.operations)
        for (const auto& [param, v] : op.inputs) {
            std::vector<const nnef::Value*> items;
            if (v.is_list())
                for (const nnef::Value& item : v.items()) items.push_back(&item);
            else
                items.push_back(&v);
            for (const nnef::Value* item : items)
                if (item->is_identifier()) {
                    ++consumers_[item->as_identifier()];
                    consumer_[item->as_identifier()] = &op;
                }
        }
    outputs_.insert(graph.outputs.begin(), graph.outputs.end());
    // pool 0 reserved for the variables' items at 4 bytes each (no more than float32 or int32
    // takes) and a sixteenth more (other constants: VGG-11's are 0.005% of its pool; untouched
    // reserved bytes cost no memory), so that it is not moved as it grows (an unused pool is
    // dropped at the end: export_model)
    std::size_t items = 0;
    for (const nnef::Operation& op : graph.operations)
        if (op.name == "variable")
            for (const auto& [param, v] : op.outputs)
                if (const nnef::Tensor* t = v.is_identifier() ? graph.tensor(v.as_identifier()) : nullptr; t && t->shape)
                    items += std::size_t(volume(*t->shape)) + 1;
    model_.pools.emplace_back();
    model_.pools[0].data.reserve(items * 4 + items / 4 + 4096);
}

// ---- the current operation ----------------------------------------------------------------------

void Context::begin(const nnef::Operation& op) { op_ = &op; }

bool Context::error(const std::string& code, const std::string& message) {
    lowering::operation_error(diags_, Stage::nnapi, code, message, op_);
    return false;
}

bool Context::refuse(const std::string& why) {
    last_refusal = why;
    return error("unsupported-operation", "operation '" + op_->name + "' cannot be expressed in NNAPI 1.0: " + why);
}

std::int64_t Context::int_attr(std::string_view name, std::int64_t fallback) const { return lowering::int_attr(*op_, name, fallback); }
std::string Context::string_attr(std::string_view name) const { return lowering::string_attr(*op_, name); }
Ints Context::ints_attr(std::string_view name) const { return lowering::ints_attr(*op_, name); }
Pairs Context::pairs_attr(std::string_view name) const { return lowering::pairs_attr(*op_, name); }

const nnef::Value& Context::argument(std::string_view name) const {
    static const nnef::Value none;
    const nnef::Value* v = op_->input(name);
    return v ? *v : none;
}

const nnef::Tensor& Context::result(std::string_view name) const {
    const nnef::Value* v = name.empty() ? nullptr : op_->output(name);
    if (!v && !op_->outputs.empty()) v = &op_->outputs.front().second;
    if (v && v->is_list() && v->size() > 0) v = &(*v)[0];
    const nnef::Tensor* t = v && v->is_identifier() ? graph_.tensor(v->as_identifier()) : nullptr;
    if (!t) throw std::runtime_error("operation '" + op_->name + "' has no result '" + std::string(name) + "'");
    return *t;
}

std::vector<std::string> Context::argument_tensors(std::string_view name) const {
    std::vector<std::string> out;
    const nnef::Value& v = argument(name);
    if (v.is_list()) {
        for (const nnef::Value& item : v.items()) out.push_back(item.is_identifier() ? item.as_identifier() : "");
    } else {
        out.push_back(v.is_identifier() ? v.as_identifier() : "");
    }
    return out;
}

// ---- what holds the tensors --------------------------------------------------------------------

Ref Context::ref(std::string_view argument_name) const {
    const nnef::Value& v = argument(argument_name);
    if (v.is_identifier()) return ref_of(v.as_identifier());
    Ref r;
    if (v.is_scalar() || v.is_integer() || v.is_logical()) {
        auto c = std::make_shared<Constant>();
        c->values.push_back(v.is_scalar() ? v.as_scalar() : v.is_integer() ? double(v.as_integer()) : v.as_logical() ? 1.0 : 0.0);
        r.kind = Ref::Kind::constant;
        r.constant = std::move(c);
    }
    return r;
}

const Ref& Context::ref_of(const std::string& tensor) const {
    static const Ref none;
    auto it = refs.find(tensor);
    return it == refs.end() ? none : it->second;
}

void Context::bind(const std::string& tensor, Ref r) { refs[tensor] = std::move(r); }

void Context::bind_operand(const std::string& tensor, std::uint32_t operand) {
    Ref r;
    r.kind = Ref::Kind::operand;
    r.operand = operand;
    const nnef::Tensor* t = graph_.tensor(tensor);
    r.nhwc = t && t->shape && t->shape->size() == 4;
    refs[tensor] = std::move(r);
}

std::shared_ptr<const Constant> Context::constant(std::string_view argument_name) const {
    Ref r = ref(argument_name);
    return r.kind == Ref::Kind::constant ? r.constant : nullptr;
}

std::vector<std::uint32_t> Context::dims(const Shape& s) {
    if (s.empty()) return {1};
    std::vector<std::uint32_t> d;
    for (std::int64_t e : s) d.push_back(static_cast<std::uint32_t>(e));
    if (d.size() == 4) d = {d[0], d[2], d[3], d[1]};
    return d;
}

std::optional<std::uint32_t> Context::operand(std::string_view argument_name) {
    const nnef::Value& v = argument(argument_name);
    return materialize(v.is_identifier() ? v.as_identifier() : std::string(), ref(argument_name));
}

std::vector<double> Constant::doubles() const {
    if (floats.empty() && !dequantization) return values;
    std::vector<double> out(count());
    for (std::size_t i = 0; i < out.size(); ++i) out[i] = value(i);
    return out;
}

std::optional<std::uint32_t> Context::materialize(const std::string& tensor, const Ref& r) {
    if (r.kind == Ref::Kind::operand) {
        if (!r.columns.empty()) {
            refuse("its argument '" + tensor + "' is the flatten of an NHWC tensor (by '" + r.made_by +
                   "'), whose items NNAPI holds in another order; only 'linear' can read it (NNAPI 1.0 has no transpose)");
            return std::nullopt;
        }
        return r.operand;
    }
    if (r.kind == Ref::Kind::constant) {
        const Constant& k = *r.constant;
        if (k.shape.size() > 4) {
            refuse("constant '" + tensor + "' has rank " + std::to_string(k.shape.size()) + " (NNAPI 1.0 tensors have rank 4 at most)");
            return std::nullopt;
        }
        // NNAPI layout: rank 4 as NHWC
        std::vector<double> values = k.doubles();
        std::vector<std::int32_t> codes = k.codes;
        if (k.shape.size() == 4) {
            const std::int64_t N = k.shape[0], C = k.shape[1], H = k.shape[2], W = k.shape[3];
            for (std::int64_t n = 0; n < N; ++n)
                for (std::int64_t ch = 0; ch < C; ++ch)
                    for (std::int64_t h = 0; h < H; ++h)
                        for (std::int64_t w = 0; w < W; ++w) {
                            const std::size_t from = std::size_t(((n * C + ch) * H + h) * W + w);
                            const std::size_t to = std::size_t(((n * H + h) * W + w) * C + ch);
                            values[to] = k.value(from);
                            if (!codes.empty()) codes[to] = k.codes[from];
                        }
        }
        if (!quantized_) {
            std::vector<float> f(values.begin(), values.end());
            return float_tensor(dims(k.shape), f);
        }
        if (!k.grid) {
            // One value in every item (a literal such as hard-swish's 3.0, a filled constant): on a
            // grid of its own whose code 255 (0 for a negative value) is that value, to float's
            // precision. Any other constant would be rounded to 256 levels: refused.
            const bool uniform = !values.empty() && std::all_of(values.begin(), values.end(), [&](double v) { return v == values[0]; });
            if (uniform && std::isfinite(values[0])) {
                const double v = values[0];
                Grid g;
                g.scale = v == 0.0 ? 1.0f : static_cast<float>(std::fabs(v) / 255.0);
                g.zero_point = v < 0.0 ? 255 : 0;
                if (g.scale > 0.0f && std::isfinite(g.scale))
                    return quant8_tensor(dims(k.shape), std::vector<std::uint8_t>(values.size(), v > 0.0 ? 255 : 0), g);
            }
            const std::string what = tensor.empty() ? std::string("a constant argument") : "constant '" + tensor + "'";
            refuse(what + " has no quantization (no graph.quant entry) and is not one finite value in every item, and every "
                   "tensor operand of a quantized NNAPI operation is TENSOR_QUANT8_ASYMM");
            return std::nullopt;
        }
        std::vector<std::uint8_t> q(values.size());
        for (std::size_t i = 0; i < q.size(); ++i) q[i] = static_cast<std::uint8_t>(codes[i] + k.grid->offset);
        return quant8_tensor(dims(k.shape), q, *k.grid);
    }
    if (r.kind == Ref::Kind::view) {
        const nnef::Tensor* t = graph_.tensor(tensor);
        const Shape& s = *t->shape;
        const Shape& src = r.source_shape;
        bool channels = s.size() == 4 && s[0] == src[0] && s[2] == src[2] && s[3] == src[3];
        Ints pick;
        const std::int64_t C = src[1], H = src[2], W = src[3];
        for (std::int64_t n = 0; channels && n < s[0]; ++n)
            for (std::int64_t k = 0; channels && k < s[1]; ++k) {
                const std::int64_t first = (*r.map)[std::size_t((n * s[1] + k) * H * W)];
                const std::int64_t ch = first / (H * W) % C;
                if (n == 0) pick.push_back(ch);
                channels = ch == pick[std::size_t(k)];
                for (std::int64_t hw = 0; channels && hw < H * W; ++hw)
                    channels = (*r.map)[std::size_t((n * s[1] + k) * H * W + hw)] == (n * C + ch) * H * W + hw;
            }
        if (!channels && s.size() > 4) {
            refuse("'" + tensor + "' (made by '" + r.made_by + "') has rank " + std::to_string(s.size()) +
                   " (NNAPI 1.0 tensors have rank 4 at most) and is read other than as a step of a rearrangement that picks channels");
            return std::nullopt;
        }
        if (!channels) {
            refuse("'" + tensor + "' (made by '" + r.made_by +
                   "') rearranges an activation other than by picking channels, which NNAPI 1.0 (no transpose, no slice) cannot express");
            return std::nullopt;
        }
        const std::optional<std::uint32_t> out = new_operand(*t);
        if (!out) return std::nullopt;
        select_channels(r.operand, pick, *out, FusedActivationFunc::NONE);
        bind_operand(tensor, *out);
        return out;
    }
    refuse("its argument '" + tensor + "' has no NNAPI operand");
    return std::nullopt;
}

std::optional<std::uint32_t> Context::new_operand(const nnef::Tensor& t) {
    if (!t.shape || t.dtype != PrimType::scalar) {
        refuse("result '" + t.name + "' is not a tensor of scalars with a known shape (NNAPI 1.0 computes in TENSOR_FLOAT32 or "
               "TENSOR_QUANT8_ASYMM)");
        return std::nullopt;
    }
    if (t.shape->size() > 4) {
        refuse("result '" + t.name + "' has rank " + std::to_string(t.shape->size()) + " (NNAPI 1.0 tensors have rank 4 at most)");
        return std::nullopt;
    }
    bool failed = false;
    const std::optional<Grid> g = grid(t, failed);
    if (failed) return std::nullopt;
    return new_operand(*t.shape, g);
}

std::uint32_t Context::new_operand(const Shape& nnef_shape, const std::optional<Grid>& g) {
    if (g) return add_operand(model_, OperandType::TENSOR_QUANT8_ASYMM, dims(nnef_shape), g->scale, g->zero_point);
    return add_operand(model_, OperandType::TENSOR_FLOAT32, dims(nnef_shape));
}

std::optional<Grid> Context::operand_grid(std::uint32_t operand) const {
    const Operand& o = model_.operands.at(operand);
    if (o.type != OperandType::TENSOR_QUANT8_ASYMM) return std::nullopt;
    return Grid{o.scale, o.zeroPoint, 0};
}

// ---- quantization -------------------------------------------------------------------------------

std::optional<storage::QuantParams> Context::params(const nnef::Tensor& t, bool& failed) {
    if (!t.quantization) return std::nullopt;
    Result<storage::QuantParams> p = storage::quant_params(*t.quantization, t.name);
    if (!p) {
        diags_.append(p.diagnostics);
        failed = true;
        return std::nullopt;
    }
    return *p.value;
}

std::optional<Grid> Context::grid_of_entry(const nnef::Tensor& t, bool& failed) {
    std::optional<storage::QuantParams> p = params(t, failed);
    if (!p) return std::nullopt;
    auto no = [&](const std::string& why) -> std::optional<Grid> {
        refuse("the graph.quant entry of '" + t.name + "' (" + t.quantization->algorithm + ") " + why);
        failed = true;
        return std::nullopt;
    };
    if (p->algorithm == storage::QuantAlgorithm::logarithmic) return no("is logarithmic; NNAPI 1.0 quantizes linearly");
    if (p->bits != 8) return no("has " + std::to_string(p->bits) + " bits; TENSOR_QUANT8_ASYMM has 8");
    if (p->channels() != 1) return no("is per channel; NNAPI 1.0 has one scale and zero point per tensor");
    const storage::Affine a = p->affine(0);
    const double zp = std::round(a.zero_point);
    if (std::fabs(zp - a.zero_point) > 1e-6) return no("has a zero point that is not an integer");
    Grid g;
    g.offset = p->is_signed ? 128 : 0;
    g.scale = static_cast<float>(a.scale);
    g.zero_point = static_cast<std::int32_t>(zp) + g.offset;
    if (!(g.scale > 0.0f) || g.zero_point < 0 || g.zero_point > 255) return no("has no TENSOR_QUANT8_ASYMM form");
    return g;
}

std::optional<Grid> Context::grid(const nnef::Tensor& t, bool& failed) {
    if (!quantized_) return std::nullopt;
    if (t.quantization) return grid_of_entry(t, failed);
    // no entry: the grid of the one relu / clamp / copy that reads it (its rounding comes there)
    const nnef::Operation* next = consumers(t.name) == 1 ? sole_consumer(t.name) : nullptr;
    if (next && (next->name == "relu" || next->name == "clamp" || next->name == "copy")) {
        const nnef::Value* out = next->outputs.empty() ? nullptr : &next->outputs.front().second;
        const nnef::Tensor* u = out && out->is_identifier() ? graph_.tensor(out->as_identifier()) : nullptr;
        if (u && u->quantization) return grid_of_entry(*u, failed);
    }
    refuse("tensor '" + t.name + "' of the quantized graph has no graph.quant entry, so its TENSOR_QUANT8_ASYMM grid is unknown");
    failed = true;
    return std::nullopt;
}

// ---- emission ----------------------------------------------------------------------------------

void Context::emit(OperationType type, std::vector<std::uint32_t> inputs, std::uint32_t output, bool activation) {
    flush();
    pending_ = Pending{type, std::move(inputs), output, activation, FusedActivationFunc::NONE};
}

bool Context::fuse(const std::string& tensor, std::uint32_t operand, FusedActivationFunc act) {
    if (!pending_ || pending_->output != operand || !pending_->activation || pending_->act != FusedActivationFunc::NONE)
        return false;
    if (consumers(tensor) != 1 || is_output(tensor)) return false;
    pending_->act = act;
    return true;
}

void Context::flush() {
    if (!pending_) return;
    Pending p = std::move(*pending_);
    pending_.reset();
    if (p.activation) p.inputs.push_back(int32(static_cast<std::int32_t>(p.act)));
    add_operation(model_, p.type, std::move(p.inputs), {p.output});
}

std::uint32_t Context::float_tensor(std::vector<std::uint32_t> d, const std::vector<float>& values) {
    return add_constant(model_, OperandType::TENSOR_FLOAT32, std::move(d), values.data(), values.size() * sizeof(float));
}

std::uint32_t Context::int32_tensor(std::vector<std::uint32_t> d, const std::vector<std::int32_t>& values, float scale) {
    return add_constant(model_, OperandType::TENSOR_INT32, std::move(d), values.data(), values.size() * sizeof(std::int32_t), scale);
}

std::uint32_t Context::quant8_tensor(std::vector<std::uint32_t> d, const std::vector<std::uint8_t>& codes, const Grid& g) {
    return add_constant(model_, OperandType::TENSOR_QUANT8_ASYMM, std::move(d), codes.data(), codes.size(), g.scale, g.zero_point);
}

namespace nnapi_from_nnef_context_cpp {
// Calls put(i, from) for every item i of an NNAPI tensor of dimensions `d` in order, `from` its
// source item as Context::filter describes.
template <typename Put>
void gather(const std::vector<std::uint32_t>& d, const std::vector<std::int64_t>& strides, const Ints& last, Put put) {
    if (d.empty()) return;
    const std::size_t inner = d.back();
    // a permutation `last` is followed in the source's order (its inverse: which item each source
    // item goes to), so that the source is read in order: VGG-11's first classifier layer, 103 M
    // items in rows of 25088 read 49 items apart otherwise, took 3x longer
    std::vector<std::size_t> to(last.size() == inner ? inner : 0, inner);
    for (std::size_t j = 0; j < to.size(); ++j)
        if (last[j] >= 0 && std::size_t(last[j]) < inner) to[std::size_t(last[j])] = j;
    if (std::find(to.begin(), to.end(), inner) != to.end()) to.clear();  // not a permutation
    const Shape out(d.begin(), d.end());
    lowering::for_each_strided_row<1>(out, {strides}, {0}, [&](std::int64_t o, const std::array<std::int64_t, 1>& base,
                                                               const std::array<std::int64_t, 1>& step, std::int64_t) {
        const std::size_t i = std::size_t(o);
        if (!to.empty())
            for (std::size_t s = 0; s < inner; ++s) put(i + to[s], std::size_t(base[0] + std::int64_t(s) * step[0]));
        else
            for (std::size_t j = 0; j < inner; ++j) put(i + j, std::size_t(base[0] + (last.empty() ? std::int64_t(j) : last[j]) * step[0]));
    });
}
}  // namespace nnapi_from_nnef_context_cpp
using nnapi_from_nnef_context_cpp::gather;

template <typename Each>
std::optional<std::pair<std::uint32_t, float>> Context::filter_items(const Constant& f, const std::vector<std::uint32_t>& d, bool zeros, Each each) {
    std::size_t n = 1;
    for (std::uint32_t e : d) n *= e;
    if (!quantized_) {
        const std::uint32_t k = add_constant_filled(model_, OperandType::TENSOR_FLOAT32, d, n * sizeof(float), [&](std::uint8_t* to) {
            if (zeros) std::fill(to, to + n * sizeof(float), std::uint8_t(0));  // +0.0f
            each([&](std::size_t i, std::size_t from) {
                const float v = float(f.value(from));
                std::memcpy(to + i * sizeof v, &v, sizeof v);
            });
        });
        return std::make_pair(k, 0.0f);
    }
    if (!f.grid) {
        refuse("its filter has no graph.quant entry (a quantized " + op_->name + " takes TENSOR_QUANT8_ASYMM weights)");
        return std::nullopt;
    }
    const Grid& g = *f.grid;
    const std::uint32_t k = add_constant_filled(
        model_, OperandType::TENSOR_QUANT8_ASYMM, d, n,
        [&](std::uint8_t* to) {
            if (zeros) std::fill(to, to + n, std::uint8_t(g.zero_point));
            each([&](std::size_t i, std::size_t from) { to[i] = std::uint8_t(f.codes[from] + g.offset); });
        },
        g.scale, g.zero_point);
    return std::make_pair(k, g.scale);
}

std::optional<std::pair<std::uint32_t, float>> Context::filter(const Constant& f, std::vector<std::uint32_t> d,
                                                               const std::vector<std::int64_t>& from_strides, const Ints& last) {
    return filter_items(f, d, false, [&](auto put) { gather(d, from_strides, last, put); });
}

std::optional<std::pair<std::uint32_t, float>> Context::grouped_filter(const Constant& f, std::int64_t groups) {
    const std::int64_t O = f.shape[0], FI = f.shape[1], KH = f.shape[2], KW = f.shape[3], I = FI * groups, OG = O / groups;
    const std::vector<std::uint32_t> d{std::uint32_t(O), std::uint32_t(KH), std::uint32_t(KW), std::uint32_t(I)};
    return filter_items(f, d, true, [&](auto put) {
        for (std::int64_t o = 0; o < O; ++o)
            for (std::int64_t y = 0; y < KH; ++y)
                for (std::int64_t x = 0; x < KW; ++x) {
                    const std::int64_t row = ((o * KH + y) * KW + x) * I + o / OG * FI;  // its group's first input channel
                    for (std::int64_t i = 0; i < FI; ++i) put(std::size_t(row + i), std::size_t(((o * FI + i) * KH + y) * KW + x));
                }
    });
}

std::optional<std::vector<double>> Context::bias_values(std::string_view name, std::int64_t n) {
    const std::shared_ptr<const Constant> b = constant(name);
    if (!b) {
        refuse("its bias is not a constant");
        return std::nullopt;
    }
    if (b->count() != 1 && std::int64_t(b->count()) != n) {
        refuse("its bias has " + std::to_string(b->count()) + " items for " + std::to_string(n) + " outputs");
        return std::nullopt;
    }
    std::vector<double> out(static_cast<std::size_t>(n));
    for (std::size_t o = 0; o < out.size(); ++o) out[o] = b->value(b->count() == 1 ? 0 : o);
    return out;
}

std::optional<std::uint32_t> Context::bias(const std::vector<double>& values, std::uint32_t input, float filter_scale) {
    const std::vector<std::uint32_t> d{static_cast<std::uint32_t>(values.size())};
    if (!quantized_) return float_tensor(d, std::vector<float>(values.begin(), values.end()));
    const float input_scale = model_.operands.at(input).scale;
    const float scale = input_scale * filter_scale;
    std::vector<std::int32_t> q(values.size());
    for (std::size_t i = 0; i < q.size(); ++i) {
        const double v = std::round(values[i] / double(scale));
        if (!(v >= -2147483648.0 && v <= 2147483647.0)) {
            std::ostringstream why;
            why << "its bias " << values[i] << " (item " << i << ") is " << v << " steps of input scale times filter scale (" << input_scale
                << " x " << filter_scale << "), beyond the TENSOR_INT32 that NNAPI 1.0's bias rule puts it on (the input's grid is too fine for it)";
            refuse(why.str());
            return std::nullopt;
        }
        q[i] = static_cast<std::int32_t>(v);
    }
    return int32_tensor(d, q, scale);
}

void Context::select_channels(std::uint32_t in, const Ints& pick, std::uint32_t out, FusedActivationFunc act) {
    const std::uint32_t C = model_.operands.at(in).dimensions.at(3);
    const std::uint32_t K = pick.empty() ? C : static_cast<std::uint32_t>(pick.size());
    const bool q = quantized_;
    const Grid one{1.0f / 255.0f, 0, 0};  // code 255 is 1.0
    std::uint32_t filter;
    if (pick.empty()) {
        filter = q ? quant8_tensor({1, 1, 1, C}, std::vector<std::uint8_t>(C, 255), one) : float_tensor({1, 1, 1, C}, std::vector<float>(C, 1.0f));
    } else {
        std::vector<float> f(std::size_t(K) * C, 0.0f);
        std::vector<std::uint8_t> codes(std::size_t(K) * C, 0);
        for (std::uint32_t k = 0; k < K; ++k) {
            f[std::size_t(k) * C + std::size_t(pick[k])] = 1.0f;
            codes[std::size_t(k) * C + std::size_t(pick[k])] = 255;
        }
        filter = q ? quant8_tensor({K, 1, 1, C}, codes, one) : float_tensor({K, 1, 1, C}, f);
    }
    const std::uint32_t b = *bias(std::vector<double>(K, 0.0), in, q ? one.scale : 0.0f);  // (zeros: always held)
    std::vector<std::uint32_t> inputs{in, filter, b, int32(0), int32(0), int32(0), int32(0), int32(1), int32(1)};
    if (pick.empty()) inputs.push_back(int32(1));  // depth multiplier
    emit(pick.empty() ? OperationType::DEPTHWISE_CONV_2D : OperationType::CONV_2D, std::move(inputs), out, true);
    pending_->act = act;
}

std::optional<std::uint32_t> Context::requantize(std::uint32_t in, const Grid& to, FusedActivationFunc act) {
    const std::vector<std::uint32_t> d = model_.operands.at(in).dimensions;
    const float s_in = model_.operands.at(in).scale;
    if (!(to.scale > s_in * (1.0f / 255.0f))) {
        refuse("requantizing to scale " + std::to_string(to.scale) + " from scale " + std::to_string(s_in) +
               " breaks NNAPI's rule output_scale > input_scale * filter_scale for the identity filter (scale 1/255)");
        return std::nullopt;
    }
    if (d.size() == 4) {
        const std::uint32_t out = add_operand(model_, OperandType::TENSOR_QUANT8_ASYMM, d, to.scale, to.zero_point);
        select_channels(in, {}, out, act);
        return out;
    }
    if (d.size() == 2) {
        // [N, K] -> [N, 1, 1, K], requantized, back
        const std::vector<std::uint32_t> d4{d[0], 1, 1, d[1]};
        const Operand& src = model_.operands.at(in);
        const std::uint32_t r4 = add_operand(model_, OperandType::TENSOR_QUANT8_ASYMM, d4, src.scale, src.zeroPoint);
        const std::vector<std::int32_t> shape4(d4.begin(), d4.end()), shape2(d.begin(), d.end());
        emit(OperationType::RESHAPE, {in, int32_tensor({4}, shape4, 0.0f)}, r4, false);
        const std::uint32_t q4 = add_operand(model_, OperandType::TENSOR_QUANT8_ASYMM, d4, to.scale, to.zero_point);
        select_channels(r4, {}, q4, act);
        const std::uint32_t out = add_operand(model_, OperandType::TENSOR_QUANT8_ASYMM, d, to.scale, to.zero_point);
        emit(OperationType::RESHAPE, {q4, int32_tensor({2}, shape2, 0.0f)}, out, false);
        return out;
    }
    refuse("requantizing a rank-" + std::to_string(d.size()) + " tensor (to a different graph.quant grid) is done for ranks 2 and 4 only");
    return std::nullopt;
}

std::optional<std::uint32_t> Context::on_grid_of(std::uint32_t in, const nnef::Tensor& t) {
    if (!quantized_) return in;
    bool failed = false;
    const std::optional<Grid> g = grid(t, failed);
    if (failed || !g) return std::nullopt;
    const std::optional<Grid> have = operand_grid(in);
    if (have && *have == *g) return in;
    return requantize(in, *g, FusedActivationFunc::NONE);
}

std::size_t Context::consumers(const std::string& tensor) const {
    auto it = consumers_.find(tensor);
    return it == consumers_.end() ? 0 : it->second;
}

bool Context::is_output(const std::string& tensor) const { return outputs_.count(tensor) > 0; }

const nnef::Operation* Context::sole_consumer(const std::string& tensor) const {
    auto it = consumer_.find(tensor);
    return consumers(tensor) == 1 && it != consumer_.end() ? it->second : nullptr;
}

}  // namespace nnef::nnapi::from_nnef
