// The export of activations (relu, clamp -> RELU / RELU6 / RELU1, fused into the operation before
// when it can; sigmoid -> LOGISTIC; tanh -> TANH; softmax -> SOFTMAX), of the binary operations
// add and mul (ADD, MUL, with NNEF's leading-axis broadcasting of constants turned into NNAPI's
// trailing one), batch_normalization (MUL then ADD by per-channel constants) and linear
// (FULLY_CONNECTED).
#include <algorithm>
#include <cmath>
#include <limits>

#include "lowering/nnapi/from_nnef_context.hpp"

namespace nnef::nnapi::from_nnef {

std::optional<FusedActivationFunc> activation_of(Context& c) {
    if (c.op().name == "relu") return FusedActivationFunc::RELU;
    if (c.op().name != "clamp") return std::nullopt;
    const std::shared_ptr<const Constant> a = c.constant("a"), b = c.constant("b");
    if (!a || !b || a->count() == 0 || b->count() == 0) return std::nullopt;
    const auto all = [](const Constant& k, double v) {
        for (std::size_t i = 0; i < k.count(); ++i)
            if (k.value(i) != v) return false;
        return true;
    };
    if (all(*a, 0.0) && all(*b, 6.0)) return FusedActivationFunc::RELU6;
    if (all(*a, -1.0) && all(*b, 1.0)) return FusedActivationFunc::RELU1;
    if (all(*a, 0.0) && all(*b, std::numeric_limits<double>::infinity())) return FusedActivationFunc::RELU;
    return std::nullopt;
}

namespace nnapi_from_nnef_elementwise_cpp {

OperationType standalone(FusedActivationFunc act) {
    switch (act) {
        case FusedActivationFunc::RELU1: return OperationType::RELU1;
        case FusedActivationFunc::RELU6: return OperationType::RELU6;
        default: return OperationType::RELU;
    }
}

bool activation(Context& c) {
    const std::optional<FusedActivationFunc> act = activation_of(c);
    if (!act) return c.refuse("its bounds are not constants 0 and 6, -1 and 1, or 0 and infinity (NNAPI 1.0's RELU6, RELU1, RELU)");
    const nnef::Tensor& t = c.result();
    const std::string x = c.argument_tensors("x").front();
    const std::optional<std::uint32_t> in = c.operand("x");
    if (!in) return false;
    bool failed = false;
    const std::optional<Grid> g = c.grid(t, failed);
    if (failed) return false;
    if (g && g != c.operand_grid(*in)) {  // quantized onto another grid: requantize with the activation
        const std::optional<std::uint32_t> out = c.requantize(*in, *g, *act);
        if (!out) return false;
        c.bind_operand(t.name, *out);
        return true;
    }
    if (c.fuse(x, *in, *act)) {
        c.bind_operand(t.name, *in);
        return true;
    }
    const std::uint32_t out = c.new_operand(*t.shape, g);
    c.emit(standalone(*act), {*in}, out, false);
    c.bind_operand(t.name, out);
    return true;
}

// Emits `type` (its inputs `inputs`) for result t on the fixed output grid of NNAPI 1.0's quantized
// LOGISTIC and SOFTMAX (scale 1/256, zero point 0), then requantized onto t's grid `g` where that
// differs: two roundings, within one code of NNEF's one where g's step is above 1/512 (the first
// rounding's largest error, half of 1/256, is then less than one step of g; Context::rounded_twice;
// a finer grid is refused). Float (no g): the operation alone.
bool on_fixed_grid(Context& c, OperationType type, std::vector<std::uint32_t> inputs, const std::optional<Grid>& g) {
    const nnef::Tensor& t = c.result();
    const Grid fixed{1.0f / 256.0f, 0, 0};
    if (g && *g != fixed && !(g->scale > fixed.scale / 2.0f))
        return c.refuse(std::string("NNAPI 1.0's quantized ") + to_string(type) + " outputs on the grid of scale 1/256 and zero point 0; graph.quant's for '" +
                        t.name + "' has a step of 1/512 or less (scale " + std::to_string(g->scale) + "), where requantizing could be more than one code off");
    const std::uint32_t out = c.new_operand(*t.shape, g ? std::optional<Grid>(fixed) : std::nullopt);
    c.emit(type, std::move(inputs), out, false);
    std::uint32_t res = out;
    if (g && *g != fixed) {
        const std::optional<std::uint32_t> r = c.requantize(out, *g, FusedActivationFunc::NONE);
        if (!r) return false;
        res = *r;
        c.rounded_twice.push_back(t.name);
    }
    c.bind_operand(t.name, res);
    return true;
}

// sigmoid (LOGISTIC; quantized: `on_fixed_grid`), tanh (TANH; float only: NNAPI 1.0 has no quantized TANH).
bool unary(Context& c, OperationType type, bool quantizable) {
    const std::optional<std::uint32_t> in = c.operand("x");
    if (!in) return false;
    bool failed = false;
    const std::optional<Grid> g = c.grid(c.result(), failed);
    if (failed) return false;
    if (g && !quantizable) return c.refuse(std::string("NNAPI 1.0's quantized ") + to_string(type) + " does not exist");
    return on_fixed_grid(c, type, {*in}, g);
}

bool sigmoid(Context& c) { return unary(c, OperationType::LOGISTIC, true); }
bool tanh_(Context& c) { return unary(c, OperationType::TANH, false); }

// The operand of binary argument `name` against an activation of shape `other`: a constant takes
// NNEF's broadcasting (trailing extents 1 up to the other's rank), then NNAPI's layout.
std::optional<std::uint32_t> binary_operand(Context& c, const std::string& name, const Shape& other) {
    Ref r = c.ref(name);
    if (r.kind == Ref::Kind::constant && r.constant->shape.size() < other.size()) {
        auto k = std::make_shared<Constant>(*r.constant);
        if (k->shape.empty() && k->count() > 0) k->shape = {1};
        while (k->shape.size() < other.size()) k->shape.push_back(1);
        r.constant = std::move(k);
    }
    const std::vector<std::string> ids = c.argument_tensors(name);
    return c.materialize(ids.front(), r);
}

bool binary(Context& c, OperationType type) {
    const nnef::Tensor& t = c.result();
    const nnef::Tensor* x = c.graph().tensor(c.argument_tensors("x").front());
    const nnef::Tensor* y = c.graph().tensor(c.argument_tensors("y").front());
    const bool xc = c.ref("x").kind == Ref::Kind::constant, yc = c.ref("y").kind == Ref::Kind::constant;
    if (!xc && !yc && x && y && x->shape && y->shape && x->shape->size() != y->shape->size())
        return c.refuse("it broadcasts activations of ranks " + std::to_string(x->shape->size()) + " and " + std::to_string(y->shape->size()) +
                        " (NNEF aligns leading axes, NNAPI trailing ones)");
    const std::optional<std::uint32_t> a = binary_operand(c, "x", *t.shape);
    const std::optional<std::uint32_t> b = a ? binary_operand(c, "y", *t.shape) : std::nullopt;
    if (!a || !b) return false;
    const std::optional<std::uint32_t> out = c.new_operand(t);
    if (!out) return false;
    if (type == OperationType::MUL && c.quantized() &&
        !(c.operand_info(*out).scale > c.operand_info(*a).scale * c.operand_info(*b).scale))
        return c.refuse("its output scale is not above the product of its input scales, as NNAPI 1.0's quantized MUL requires");
    c.emit(type, {*a, *b}, *out, true);
    c.bind_operand(t.name, *out);
    return true;
}

bool add(Context& c) { return binary(c, OperationType::ADD); }
bool mul(Context& c) { return binary(c, OperationType::MUL); }

bool batch_normalization(Context& c) {
    const nnef::Tensor& t = c.result();
    if (c.quantized()) return c.refuse("quantized batch_normalization has no NNAPI 1.0 form here (fold it into the convolution before quantizing)");
    const std::shared_ptr<const Constant> mean = c.constant("mean"), var = c.constant("variance"), offset = c.constant("offset"),
                                          scale = c.constant("scale");
    if (!mean || !var || !offset || !scale) return c.refuse("its mean, variance, offset and scale are not all constants");
    if (!t.shape || t.shape->size() < 2) return c.refuse("its input has no channel axis");
    const std::int64_t C = (*t.shape)[1];
    const double eps = c.op().attrib("epsilon") && c.op().attrib("epsilon")->is_scalar() ? c.op().attrib("epsilon")->as_scalar() : 0.0;
    auto item = [C](const Constant& k, std::int64_t i) { return k.value(k.count() == 1 ? 0 : std::size_t(i % C)); };
    for (const Constant* k : {mean.get(), var.get(), offset.get(), scale.get()})
        if (k->count() != 1 && std::int64_t(k->count()) != C) return c.refuse("its parameters are not per channel");
    std::vector<float> s(static_cast<std::size_t>(C), 0.0f), b(static_cast<std::size_t>(C), 0.0f);
    for (std::int64_t i = 0; i < C; ++i) {
        const double f = item(*scale, i) / std::sqrt(item(*var, i) + eps);
        s[std::size_t(i)] = float(f);
        b[std::size_t(i)] = float(item(*offset, i) - item(*mean, i) * f);
    }
    const std::optional<std::uint32_t> in = c.operand("input");
    if (!in) return false;
    // the channel axis is NNAPI's last one for ranks 2 and 4; rank 3 [N, C, W] is not
    if (t.shape->size() == 3) return c.refuse("rank-3 batch normalization normalizes NNAPI's middle axis, which NNAPI 1.0 cannot broadcast to");
    const std::uint32_t scaled = c.new_operand(*t.shape, std::nullopt);
    c.emit(OperationType::MUL, {*in, c.float_tensor({std::uint32_t(C)}, s)}, scaled, true);
    const std::uint32_t out = c.new_operand(*t.shape, std::nullopt);
    c.emit(OperationType::ADD, {scaled, c.float_tensor({std::uint32_t(C)}, b)}, out, true);
    c.bind_operand(t.name, out);
    return true;
}

bool linear(Context& c) {
    const nnef::Tensor& t = c.result();
    const std::shared_ptr<const Constant> f = c.constant("filter");
    if (!f || f->shape.size() != 2) return c.refuse("its filter is not a rank-2 constant");
    const std::string x = c.argument_tensors("input").front();
    Ref r = c.ref("input");
    const Ints columns = r.columns;
    r.columns.clear();  // FULLY_CONNECTED reads the flattened items in NNAPI's order: the weights follow it
    const std::optional<std::uint32_t> in = c.materialize(x, r);
    if (!in) return false;
    const std::int64_t O = f->shape[0], I = f->shape[1];
    if (!columns.empty() && std::int64_t(columns.size()) != I) return c.refuse("its filter does not match its input's columns");
    const std::vector<std::uint32_t> fd{std::uint32_t(O), std::uint32_t(I)};
    const std::optional<std::pair<std::uint32_t, float>> filter = c.filter(*f, fd, {I, 1}, columns);
    const std::optional<std::vector<double>> bias = filter ? c.bias_values("bias", O) : std::nullopt;
    if (!bias) return false;
    const float filter_scale = filter->second;
    const std::optional<std::uint32_t> out = c.new_operand(t);
    if (!out) return false;
    if (c.quantized() && !(c.operand_info(*out).scale > c.operand_info(*in).scale * filter_scale))
        return c.refuse("its output scale is not above input scale times filter scale, as NNAPI 1.0 requires");
    const std::optional<std::uint32_t> b = c.bias(*bias, *in, filter_scale);
    if (!b) return false;
    c.emit(OperationType::FULLY_CONNECTED, {*in, filter->first, *b}, *out, true);
    c.bind_operand(t.name, *out);
    return true;
}

bool softmax(Context& c) {
    const nnef::Tensor& t = c.result();
    const Ints axes = c.ints_attr("axes");
    if (!t.shape || (t.shape->size() != 2 && t.shape->size() != 4) || axes != Ints{1})
        return c.refuse("it normalizes other than the channel axis of a rank-2 or rank-4 tensor (NNAPI 1.0's SOFTMAX normalizes the last NNAPI axis)");
    const std::optional<std::uint32_t> in = c.operand("x");
    if (!in) return false;
    bool failed = false;
    const std::optional<Grid> g = c.grid(t, failed);
    if (failed) return false;
    return on_fixed_grid(c, OperationType::SOFTMAX, {*in, add_float32_scalar(c.model(), 1.0f)}, g);
}

}  // namespace nnapi_from_nnef_elementwise_cpp

void add_elementwise_handlers(Handlers& h) {
    using namespace nnapi_from_nnef_elementwise_cpp;
    h["relu"] = activation;
    h["clamp"] = activation;
    h["sigmoid"] = sigmoid;
    h["tanh"] = tanh_;
    h["add"] = add;
    h["mul"] = mul;
    h["batch_normalization"] = batch_normalization;
    h["linear"] = linear;
    h["softmax"] = softmax;
}

}  // namespace nnef::nnapi::from_nnef
