// The export of tensor introductions (external, variable, constant) and of the shape operations
// (copy, reshape, squeeze, unsqueeze, transpose, slice, concat, pad): NNAPI 1.0 has RESHAPE and
// CONCATENATION only, so the others become constants (on constants), aliases (identities), views
// (rearrangements of an activation, expressed when they pick channels: from_nnef_context.hpp) or
// refusals.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>

#include "lowering/attributes.hpp"
#include "lowering/nnapi/from_nnef_context.hpp"
#include <nnef/tensor_data.hpp>

#include "storage/random_data.hpp"

namespace nnef::nnapi::from_nnef {

namespace nnapi_from_nnef_shape_cpp {

// Views of activations up to this many items (the index map is materialized).
constexpr std::int64_t max_view_items = std::int64_t(1) << 24;

// Codes quantized on an entry of 8 bits (grid_of_entry has checked it) as Constant holds them.
std::vector<std::int32_t> codes_of(const std::vector<std::int64_t>& codes) {
    return std::vector<std::int32_t>(codes.begin(), codes.end());
}

bool external(Context& c) {
    const nnef::Tensor& t = c.result();
    if (std::find(c.graph().inputs.begin(), c.graph().inputs.end(), t.name) == c.graph().inputs.end())
        return c.error("not-an-input", "external '" + t.name + "' is not an input of the graph");
    const std::optional<std::uint32_t> o = c.new_operand(t);
    if (!o) return false;
    c.bind_operand(t.name, *o);
    return true;
}

std::shared_ptr<Constant> weights(Context& c, const nnef::Tensor& t, const std::string& label) {
    std::string key = label;
    for (char& ch : key) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    auto known = c.weights_by_label.find(key);
    if (known != c.weights_by_label.end() && known->second->shape == *t.shape)
        return std::make_shared<Constant>(*known->second);
    auto k = std::make_shared<Constant>();
    k->shape = *t.shape;
    const std::int64_t n = volume(k->shape);
    bool failed = false;
    const std::optional<storage::QuantParams> p = c.params(t, failed);
    if (failed) return nullptr;
    if (c.options().random_weights) {
        k->floats.resize(static_cast<std::size_t>(n));
        if (t.dtype == PrimType::scalar)
            storage::random_weights(k->floats.data(), k->shape, storage::variable_seed(key, *c.options().random_weights),
                                    storage::positive_variables(c.graph()).count(t.name) > 0);
    } else if (!t.data || !t.data->has_values()) {
        c.error("missing-weights", "variable '" + t.name + "' (label '" + label + "') has no tensor data (load the model with "
                                   "its weights, or use random weights)");
        return nullptr;
    } else if (p && storage::holds_codes(*t.data)) {
        // the codes in 32 bits, dequantized when read (storage::check_quantization has held them to
        // the entry's code range); a code beyond 32 bits: the values dequantized here
        storage::ChannelMap channels = storage::channel_map(*p, k->shape);
        k->codes.resize(std::size_t(n));
        bool fit = true;
        for (std::int64_t i = 0; i < n && fit; ++i) {
            const std::int64_t code = t.data->as_int64(std::uint64_t(i));
            fit = code >= std::numeric_limits<std::int32_t>::min() && code <= std::numeric_limits<std::int32_t>::max();
            k->codes[std::size_t(i)] = static_cast<std::int32_t>(code);
        }
        if (fit) {
            k->dequantization = std::make_shared<const Constant::Dequantization>(Constant::Dequantization{*p, std::move(channels)});
        } else {
            k->codes = {};
            k->values = storage::dequantize(*p, k->shape, t.data->to_int64s());
        }
    } else {
        // as floats while every item is one exactly (float32 or float16 data), else as doubles
        k->floats.resize(std::size_t(n));
        std::int64_t i = 0;
        for (; i < n; ++i) {
            const double v = t.data->as_double(std::uint64_t(i));
            const float f = static_cast<float>(v);
            if (double(f) != v && !std::isnan(v)) break;
            k->floats[std::size_t(i)] = f;
        }
        if (i < n) {
            k->floats = {};
            k->values.resize(std::size_t(n));
            for (i = 0; i < n; ++i) k->values[std::size_t(i)] = t.data->as_double(std::uint64_t(i));
        }
    }
    if (p && c.quantized()) {
        k->grid = c.grid_of_entry(t, failed);
        if (failed) return nullptr;
        if (k->codes.empty()) k->codes = codes_of(storage::quantize(*p, k->shape, k->doubles()));
    }
    c.weights_by_label[key] = k;
    return k;
}

bool variable(Context& c) {
    const nnef::Tensor& t = c.result();
    if (!t.shape) return c.refuse("variable '" + t.name + "' has no known shape");
    std::shared_ptr<Constant> k = weights(c, t, c.string_attr("label"));
    if (!k) return false;
    Ref r;
    r.kind = Ref::Kind::constant;
    r.constant = std::move(k);
    c.bind(t.name, std::move(r));
    return true;
}

bool constant(Context& c) {
    const nnef::Tensor& t = c.result();
    if (!t.shape) return c.refuse("constant '" + t.name + "' has no known shape");
    auto k = std::make_shared<Constant>();
    k->shape = *t.shape;
    const std::vector<double> items = lowering::scalars_attr(c.op(), "value");
    const std::int64_t n = volume(k->shape);
    if (items.size() != 1 && std::int64_t(items.size()) != n)
        return c.error("bad-constant", "constant '" + t.name + "' has " + std::to_string(items.size()) + " values for " + std::to_string(n) + " items");
    for (std::int64_t i = 0; i < n; ++i) k->values.push_back(items.size() == 1 ? items[0] : items[std::size_t(i)]);
    bool failed = false;
    if (c.quantized() && t.quantization) {
        k->grid = c.grid_of_entry(t, failed);
        std::optional<storage::QuantParams> p = c.params(t, failed);
        if (failed) return false;
        k->codes = codes_of(storage::quantize(*p, k->shape, k->values));
    }
    Ref r;
    r.kind = Ref::Kind::constant;
    r.constant = std::move(k);
    c.bind(t.name, std::move(r));
    return true;
}

// The result aliases the input's operand (an identity), requantized where the grids differ.
bool alias(Context& c, const std::string& input) {
    const nnef::Tensor& t = c.result();
    const Ref r = c.ref(input);
    if (r.kind != Ref::Kind::operand || !r.columns.empty() || !c.quantized()) {
        c.bind(t.name, r);
        return true;
    }
    const std::optional<std::uint32_t> o = c.on_grid_of(r.operand, t);
    if (!o) return false;
    Ref out = r;
    out.operand = *o;
    c.bind(t.name, std::move(out));
    return true;
}

// A constant with its items rearranged: item i of the result is item map(i) of the input.
bool constant_rearranged(Context& c, const Constant& in, const Shape& shape, const std::function<std::int64_t(std::int64_t)>& map) {
    auto k = std::make_shared<Constant>();
    k->shape = shape;
    k->grid = in.grid;
    const std::int64_t n = volume(shape);
    // codes of one scale and zero point stay codes, dequantized when read
    const bool lazy = in.dequantization && in.dequantization->channels.per_tensor();
    if (lazy) k->dequantization = in.dequantization;
    for (std::int64_t i = 0; i < n; ++i) {
        const std::size_t from = std::size_t(map(i));
        if (from >= in.count()) throw std::out_of_range("constant item");
        if (!lazy) k->values.push_back(in.value(from));
        if (!in.codes.empty()) k->codes.push_back(in.codes.at(from));
    }
    Ref r;
    r.kind = Ref::Kind::constant;
    r.constant = std::move(k);
    c.bind(c.result().name, std::move(r));
    return true;
}

// The result as a view of the input activation: item i of the result is item map(i) of the input.
bool view(Context& c, const std::string& input, const std::function<std::int64_t(std::int64_t)>& map) {
    const nnef::Tensor& t = c.result();
    const nnef::Tensor* x = c.graph().tensor(c.argument_tensors(input).front());
    Ref r = c.ref(input);
    if (volume(*t.shape) > max_view_items) return c.refuse("the rearranged tensor '" + t.name + "' is too large to analyse");
    // a view of a view composes unless the input was rounded to a grid of its own
    if (r.kind == Ref::Kind::view && c.quantized()) {
        bool failed = false;
        const std::optional<Grid> g = c.grid(*x, failed);
        if (failed) return false;
        if (g != c.operand_grid(r.operand)) {
            const std::optional<std::uint32_t> o = c.materialize(x->name, r);
            if (!o) return false;
            r = c.ref_of(x->name);
        }
    }
    if (r.kind == Ref::Kind::operand && (!r.nhwc || !r.columns.empty()))
        return c.refuse("it rearranges '" + x->name + "', which is not a rank-4 activation; NNAPI 1.0 has no transpose or slice");
    auto m = std::make_shared<Ints>(std::size_t(volume(*t.shape)));
    for (std::int64_t i = 0; i < std::int64_t(m->size()); ++i) {
        const std::int64_t j = map(i);
        (*m)[std::size_t(i)] = r.kind == Ref::Kind::view ? (*r.map)[std::size_t(j)] : j;
    }
    Ref out;
    out.kind = Ref::Kind::view;
    out.operand = r.operand;
    out.map = std::move(m);
    out.source_shape = r.kind == Ref::Kind::view ? r.source_shape : *x->shape;
    out.made_by = r.kind == Ref::Kind::view ? r.made_by + "', then '" + c.op().name : c.op().name;
    c.bind(t.name, std::move(out));
    return true;
}

// NNAPI holds a rank-4 NNEF tensor of this shape in NNEF's item order (NHWC order equals NCHW order).
bool same_order(const Shape& s) { return s.size() != 4 || s[1] == 1 || s[2] * s[3] == 1; }

// reshape, squeeze, unsqueeze: the same items in another shape.
bool reshape(Context& c) {
    const nnef::Tensor& t = c.result();
    const std::string in = c.op().inputs.front().first;
    const nnef::Tensor* x = c.graph().tensor(c.argument_tensors(in).front());
    if (!x || !x->shape || !t.shape) return c.refuse("its shapes are unknown");
    const Ref r = c.ref(in);
    const auto identity = [](std::int64_t i) { return i; };
    if (r.kind == Ref::Kind::constant) return constant_rearranged(c, *r.constant, *t.shape, identity);
    if (*t.shape == *x->shape) return alias(c, in);
    if (r.kind == Ref::Kind::operand && r.columns.empty() && t.shape->size() <= 4 &&
        ((same_order(*x->shape) && same_order(*t.shape)) ||
         (r.nhwc && t.shape->size() == 2 && (*t.shape)[0] == (*x->shape)[0]))) {
        std::optional<std::uint32_t> src = c.on_grid_of(r.operand, t);
        if (!src) return false;
        bool failed = false;
        const std::optional<Grid> g = c.grid(t, failed);
        if (failed) return false;
        const std::uint32_t out = c.new_operand(*t.shape, g);
        const std::vector<std::uint32_t> d = Context::dims(*t.shape);
        c.emit(OperationType::RESHAPE, {*src, c.int32_tensor({std::uint32_t(d.size())}, std::vector<std::int32_t>(d.begin(), d.end()), 0.0f)},
               out, false);
        c.bind_operand(t.name, out);
        if (!same_order(*x->shape)) {
            // a flatten of an NHWC tensor: NNAPI column (h * W + w) * C + ch is NNEF column (ch * H + h) * W + w
            const Shape& s = *x->shape;
            Ref& b = c.refs[t.name];
            b.made_by = c.op().name;
            for (std::int64_t h = 0; h < s[2]; ++h)
                for (std::int64_t w = 0; w < s[3]; ++w)
                    for (std::int64_t ch = 0; ch < s[1]; ++ch) b.columns.push_back((ch * s[2] + h) * s[3] + w);
        }
        return true;
    }
    if (r.kind == Ref::Kind::operand && !r.nhwc)
        return c.refuse("reshaping '" + x->name + "' " + nnef::to_string(*x->shape) + " to " + nnef::to_string(*t.shape) +
                        " would need a transpose to NNAPI's NHWC layout, which NNAPI 1.0 lacks");
    return view(c, in, identity);
}

// Row-major strides of a shape.
Ints strides(const Shape& s) {
    Ints st(s.size(), 1);
    for (std::size_t i = s.size(); i-- > 1;) st[i - 1] = st[i] * s[i];
    return st;
}

bool transpose(Context& c) {
    const nnef::Tensor& t = c.result();
    const nnef::Tensor* x = c.graph().tensor(c.argument_tensors("input").front());
    if (!x || !x->shape || !t.shape) return c.refuse("its shapes are unknown");
    Ints axes = c.ints_attr("axes");
    for (std::size_t i = axes.size(); i < x->shape->size(); ++i) axes.push_back(std::int64_t(i));
    const Ints in_st = strides(*x->shape);
    const Shape& s = *t.shape;
    const auto map = [&](std::int64_t i) {
        std::int64_t j = 0;
        for (std::size_t k = s.size(); k-- > 0;) {
            j += (i % s[k]) * in_st[std::size_t(axes[k])];
            i /= s[k];
        }
        return j;
    };
    const Ref r = c.ref("input");
    if (r.kind == Ref::Kind::constant) return constant_rearranged(c, *r.constant, s, map);
    return view(c, "input", map);
}

bool slice(Context& c) {
    const nnef::Tensor& t = c.result();
    const nnef::Tensor* x = c.graph().tensor(c.argument_tensors("input").front());
    if (!x || !x->shape || !t.shape) return c.refuse("its shapes are unknown");
    const Shape& xs = *x->shape;
    const Ints axes = c.ints_attr("axes"), begin = c.ints_attr("begin"), stride = c.ints_attr("stride");
    Ints first(xs.size(), 0), step(xs.size(), 1);
    for (std::size_t k = 0; k < axes.size() && k < begin.size(); ++k) {
        const std::size_t a = std::size_t(axes[k] < 0 ? axes[k] + std::int64_t(xs.size()) : axes[k]);
        const std::int64_t st = k < stride.size() && stride[k] != 0 ? stride[k] : 1;
        std::int64_t b = begin[k] < 0 ? begin[k] + xs[a] : begin[k];
        if (st < 0 && begin[k] == 0 && c.ints_attr("end").size() > k) b = xs[a] - 1;
        first[a] = std::clamp<std::int64_t>(b, 0, xs[a] - 1);
        step[a] = st;
    }
    const Ints in_st = strides(xs);
    const Shape& s = *t.shape;
    const auto map = [&](std::int64_t i) {
        std::int64_t j = 0;
        for (std::size_t k = s.size(); k-- > 0;) {
            j += (first[k] + (i % s[k]) * step[k]) * in_st[k];
            i /= s[k];
        }
        return j;
    };
    const Ref r = c.ref("input");
    if (r.kind == Ref::Kind::constant) return constant_rearranged(c, *r.constant, s, map);
    return view(c, "input", map);
}

bool copy(Context& c) { return alias(c, c.op().inputs.front().first); }

// A pad: the identity when it pads nothing; a zero pad of H and W that only a conv or an average
// pooling counting zeros reads folds into that operation's padding (`pad_folds_into`: Inception-v3's
// pad before avg_pool(border = 'ignore')); any other is refused.
bool pad(Context& c) {
    const Pairs padding = c.pairs_attr("padding");
    const auto nonzero = std::find_if(padding.begin(), padding.end(), [](const auto& p) { return p.first != 0 || p.second != 0; });
    if (nonzero == padding.end()) return alias(c, "input");
    const nnef::Tensor& t = c.result();
    const nnef::Operation* reader = c.sole_consumer(t.name);
    const std::string border = c.string_attr("border");
    const std::vector<double> value = lowering::scalars_attr(c.op(), "value");
    const bool zeros = (border.empty() || border == "constant") && (value.empty() || (value.size() == 1 && value[0] == 0.0));
    const bool spatial = padding.size() == 4 && padding[0] == std::make_pair<std::int64_t, std::int64_t>(0, 0) &&
                         padding[1] == std::make_pair<std::int64_t, std::int64_t>(0, 0);
    const bool constant = c.ref("input").kind == Ref::Kind::constant;
    if (zeros && spatial && reader && !c.is_output(t.name) && !constant && pad_folds_into(*reader, t.name)) {
        if (!alias(c, "input")) return false;
        c.pending_padding[t.name] = {padding[2].first, padding[2].second, padding[3].first, padding[3].second};
        return true;
    }
    return c.refuse("padding " + std::to_string(nonzero->first) + ", " + std::to_string(nonzero->second) +
                    ": NNAPI 1.0 has no pad operation (a zero pad of H and W folds into the conv or average pooling counting zeros "
                    "that alone reads it; this one " +
                    (!zeros                ? "pads with other than zeros"
                     : !spatial            ? "pads axes other than H and W"
                     : constant            ? "pads a constant"
                     : c.is_output(t.name) ? "is a graph output"
                     : !reader             ? "has " + std::to_string(c.consumers(t.name)) + " readers"
                                           : "is read by '" + reader->name + "'") +
                    ")");
}

bool concat(Context& c) {
    const nnef::Tensor& t = c.result();
    const std::vector<std::string> names = c.argument_tensors("values");
    std::int64_t axis = c.int_attr("axis");
    const std::size_t rank = t.shape->size();
    if (axis < 0) axis += std::int64_t(rank);
    if (rank == 4) axis = axis == 1 ? 3 : axis >= 2 ? axis - 1 : axis;
    std::vector<std::uint32_t> inputs;
    for (const std::string& n : names) {
        if (n.empty()) return c.refuse("a value is a literal");
        std::optional<std::uint32_t> o = c.materialize(n, c.ref_of(n));
        if (o) o = c.on_grid_of(*o, t);
        if (!o) return false;
        inputs.push_back(*o);
    }
    const std::optional<std::uint32_t> out = c.new_operand(t);
    if (!out) return false;
    inputs.push_back(c.int32(static_cast<std::int32_t>(axis)));
    c.emit(OperationType::CONCATENATION, std::move(inputs), *out, false);
    c.bind_operand(t.name, *out);
    return true;
}

}  // namespace nnapi_from_nnef_shape_cpp

void add_tensor_handlers(Handlers& h) {
    using namespace nnapi_from_nnef_shape_cpp;
    h["external"] = external;
    h["variable"] = variable;
    h["constant"] = constant;
    h["copy"] = copy;
    h["reshape"] = reshape;
    h["squeeze"] = reshape;
    h["unsqueeze"] = reshape;
    h["transpose"] = transpose;
    h["slice"] = slice;
    h["pad"] = pad;
    h["concat"] = concat;
}

}  // namespace nnef::nnapi::from_nnef
