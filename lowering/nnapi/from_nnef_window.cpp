// The export of the sliding-window operations: conv (CONV_2D, DEPTHWISE_CONV_2D; other groups as
// a CONV_2D of a block-diagonal filter), max_pool (MAX_POOL_2D), avg_pool (AVERAGE_POOL_2D; one
// counting zeros as a DEPTHWISE_CONV_2D) and the spatial reductions mean_reduce and max_reduce
// over axes [2, 3] (a pooling whose window is the whole image; quantized mean_reduce onto a grid
// of its own: a DEPTHWISE_CONV_2D whose filter is 1 / (H * W), so it rounds once as NNEF does);
// and the zero pads that fold into a conv or such an average.
#include <algorithm>
#include <cmath>

#include "lowering/attributes.hpp"
#include "lowering/nnapi/from_nnef_context.hpp"

namespace nnef::nnapi::from_nnef {

namespace nnapi_from_nnef_window_cpp {

// The 2-D window of a rank-4 NNEF operation: stride, padding, dilation of the spatial axes.
struct Window {
    std::int64_t kh = 1, kw = 1, sh = 1, sw = 1, dh = 1, dw = 1;
    std::int64_t top = 0, bottom = 0, left = 0, right = 0;
};

// Reads stride, dilation and padding of the spatial axes (`offset`: 0 for conv, whose arrays cover
// the spatial axes only; 2 for the pools, whose arrays cover every axis). Empty padding is NNEF's
// automatic padding.
bool read_window(Context& c, const Shape& in, std::size_t offset, Window& w) {
    const Ints stride = c.ints_attr("stride"), dilation = c.ints_attr("dilation");
    const Pairs padding = c.pairs_attr("padding");
    for (std::size_t k = 0; k < offset; ++k) {
        if (k < stride.size() && stride[k] != 1) return c.refuse("it strides over axis " + std::to_string(k) + " (NNAPI pools and convolves H and W only)");
        if (k < padding.size() && (padding[k].first != 0 || padding[k].second != 0))
            return c.refuse("it pads axis " + std::to_string(k) + " (NNAPI pads H and W only)");
    }
    auto at = [](const Ints& v, std::size_t i) { return i < v.size() ? v[i] : std::int64_t(1); };
    w.sh = at(stride, offset), w.sw = at(stride, offset + 1);
    w.dh = at(dilation, offset), w.dw = at(dilation, offset + 1);
    if (w.dh != 1 || w.dw != 1) return c.refuse("its dilation is " + std::to_string(w.dh) + ", " + std::to_string(w.dw) + " (NNAPI 1.0 has no dilation)");
    if (padding.empty()) {
        auto automatic = [](std::int64_t x, std::int64_t k, std::int64_t s, std::int64_t& p, std::int64_t& q) {
            const std::int64_t total = std::max<std::int64_t>(0, ((x + s - 1) / s - 1) * s + k - x);
            p = total / 2;
            q = total - p;
        };
        automatic(in[2], w.kh, w.sh, w.top, w.bottom);
        automatic(in[3], w.kw, w.sw, w.left, w.right);
    } else if (padding.size() >= offset + 2) {
        w.top = padding[offset].first, w.bottom = padding[offset].second;
        w.left = padding[offset + 1].first, w.right = padding[offset + 1].second;
    }
    return true;
}

std::vector<std::uint32_t> window_scalars(Context& c, const Window& w, bool with_filter) {
    std::vector<std::uint32_t> s{c.int32(std::int32_t(w.left)), c.int32(std::int32_t(w.right)), c.int32(std::int32_t(w.top)),
                                 c.int32(std::int32_t(w.bottom)), c.int32(std::int32_t(w.sw)), c.int32(std::int32_t(w.sh))};
    if (with_filter) {
        s.push_back(c.int32(std::int32_t(w.kw)));
        s.push_back(c.int32(std::int32_t(w.kh)));
    }
    return s;
}

bool padded(const Window& w) { return w.top || w.bottom || w.left || w.right; }

// The zero padding of a pad folded into this operation (its input `tensor`), added to its own.
void add_folded_pad(Context& c, const std::string& tensor, Window& w) {
    const auto p = c.pending_padding.find(tensor);
    if (p == c.pending_padding.end()) return;
    w.top += p->second[0], w.bottom += p->second[1], w.left += p->second[2], w.right += p->second[3];
}

// Whether padding attribute `padding` is given and all zeros.
bool no_padding(const Pairs& padding) {
    return !padding.empty() && std::all_of(padding.begin(), padding.end(), [](const auto& p) { return p.first == 0 && p.second == 0; });
}

// NNAPI's rule for quantized CONV_2D, DEPTHWISE_CONV_2D and FULLY_CONNECTED.
bool scale_rule(Context& c, std::uint32_t input, float filter_scale, std::uint32_t output) {
    const float product = c.operand_info(input).scale * filter_scale;
    if (!c.quantized() || c.operand_info(output).scale > product) return true;
    return c.refuse("its output scale " + std::to_string(c.operand_info(output).scale) + " is not above input scale times filter scale (" +
                    std::to_string(product) + "), as NNAPI 1.0 requires");
}

bool conv(Context& c) {
    const nnef::Tensor& t = c.result();
    const nnef::Tensor* x = c.graph().tensor(c.argument_tensors("input").front());
    const std::shared_ptr<const Constant> f = c.constant("filter");
    if (!x || !x->shape || x->shape->size() != 4) return c.refuse("it is not a 2-D convolution of a rank-4 tensor");
    if (!f) return c.refuse("its filter is not a constant (NNAPI 1.0 filters are operands given at model construction)");
    const Shape& in = *x->shape;
    const Shape& fs = f->shape;
    const std::int64_t O = fs[0], I = in[1];
    std::int64_t groups = c.int_attr("groups", 1);
    if (groups == 0) groups = I;
    const bool depthwise = groups != 1 && groups == I && fs[1] == 1 && O % I == 0;
    // other groups: one CONV_2D of a block-diagonal filter (NNAPI 1.0 has no grouped convolution
    // and no slice to convolve each group apart): exact, at `groups` times the weights and MACs
    const bool block_diagonal = groups != 1 && !depthwise;
    if (block_diagonal && (groups < 0 || I % groups != 0 || O % groups != 0 || fs[1] * groups != I))
        return c.refuse("groups = " + std::to_string(groups) + " does not divide its " + std::to_string(I) + " input and " + std::to_string(O) +
                        " output channels into groups of its filter's " + std::to_string(fs[1]) + " input channels");
    Window w;
    w.kh = fs[2], w.kw = fs[3];
    if (!read_window(c, in, 0, w)) return false;
    const std::string border = c.string_attr("border");
    if (padded(w) && !border.empty() && border != "constant")
        return c.refuse("border '" + border + "' with padding: NNAPI 1.0 pads with zeros only");
    add_folded_pad(c, x->name, w);
    std::optional<std::uint32_t> input = c.operand("input");
    if (!input) return false;
    const std::optional<std::uint32_t> out = c.new_operand(t);
    if (!out) return false;
    // the filter in NNAPI's layout: [O, kh, kw, I] or [1, kh, kw, O]
    const std::int64_t KH = fs[2], KW = fs[3], FI = fs[1];
    const std::vector<std::uint32_t> fd = depthwise ? std::vector<std::uint32_t>{1, std::uint32_t(KH), std::uint32_t(KW), std::uint32_t(O)}
                                                    : std::vector<std::uint32_t>{std::uint32_t(O), std::uint32_t(KH), std::uint32_t(KW), std::uint32_t(FI)};
    // (NNEF's [O, FI, KH, KW]: the source strides of NNAPI's indices)
    const std::vector<std::int64_t> from = depthwise ? std::vector<std::int64_t>{0, KW, 1, FI * KH * KW}
                                                     : std::vector<std::int64_t>{FI * KH * KW, KW, 1, KH * KW};
    const std::optional<std::pair<std::uint32_t, float>> filter = block_diagonal ? c.grouped_filter(*f, groups) : c.filter(*f, fd, from);
    const std::optional<std::vector<double>> bias = filter ? c.bias_values("bias", O) : std::nullopt;
    if (!bias) return false;
    const float filter_scale = filter->second;
    if (!scale_rule(c, *input, filter_scale, *out)) return false;
    const std::optional<std::uint32_t> b = c.bias(*bias, *input, filter_scale);
    if (!b) return false;
    std::vector<std::uint32_t> inputs{*input, filter->first, *b};
    for (std::uint32_t s : window_scalars(c, w, false)) inputs.push_back(s);
    if (depthwise) inputs.push_back(c.int32(std::int32_t(O / I)));
    c.emit(depthwise ? OperationType::DEPTHWISE_CONV_2D : OperationType::CONV_2D, std::move(inputs), *out, true);
    c.bind_operand(t.name, *out);
    return true;
}

// The average over windows `w` of `input` counting the padding's zeros (avg_pool with border
// 'constant' or a pad folded in; quantized, a mean onto another grid): a DEPTHWISE_CONV_2D by
// 1 / (kh kw) onto result t (quantized: filter code 255 on the grid of scale 1 / (255 kh kw), so
// the sum rounds once onto t's grid, as NNEF's average does; float: each item times the float
// nearest 1 / (kh kw), within float's rounding of NNEF's sum / (kh kw)).
bool uniform_average(Context& c, std::uint32_t input, const Window& w, const nnef::Tensor& t) {
    const std::uint32_t C = c.operand_info(input).dimensions.at(3);
    const std::uint32_t KH = std::uint32_t(w.kh), KW = std::uint32_t(w.kw);
    const std::size_t n = std::size_t(KH) * KW * C;
    const std::optional<std::uint32_t> out = c.new_operand(t);
    if (!out) return false;
    float filter_scale = 0.0f;
    std::uint32_t filter = 0;
    if (c.quantized()) {
        const Grid fg{1.0f / (255.0f * float(KH * KW)), 0, 0};
        filter = c.quant8_tensor({1, KH, KW, C}, std::vector<std::uint8_t>(n, 255), fg);
        filter_scale = fg.scale;
        if (!scale_rule(c, input, filter_scale, *out)) return false;
    } else {
        filter = c.float_tensor({1, KH, KW, C}, std::vector<float>(n, 1.0f / float(KH * KW)));
    }
    std::vector<std::uint32_t> inputs{input, filter, *c.bias(std::vector<double>(C, 0.0), input, filter_scale)};  // (zeros: always held)
    for (std::uint32_t s : window_scalars(c, w, false)) inputs.push_back(s);
    inputs.push_back(c.int32(1));
    c.emit(OperationType::DEPTHWISE_CONV_2D, std::move(inputs), *out, true);
    c.bind_operand(t.name, *out);
    return true;
}

// A pooling whose output is on the input's grid, then requantized to the result's grid.
bool pool_to_result(Context& c, OperationType type, std::uint32_t input, const Window& w) {
    const nnef::Tensor& t = c.result();
    const std::uint32_t out = c.new_operand(*t.shape, c.operand_grid(input));
    std::vector<std::uint32_t> inputs{input};
    for (std::uint32_t s : window_scalars(c, w, true)) inputs.push_back(s);
    c.emit(type, std::move(inputs), out, true);
    const std::optional<std::uint32_t> res = c.on_grid_of(out, t);
    if (!res) return false;
    c.bind_operand(t.name, *res);
    return true;
}

bool pool(Context& c, OperationType type) {
    const nnef::Tensor* x = c.graph().tensor(c.argument_tensors("input").front());
    if (!x || !x->shape || x->shape->size() != 4) return c.refuse("it pools a tensor of rank other than 4 (NNAPI pools NHWC images)");
    const Ints size = c.ints_attr("size");
    if (size.size() != 4 || size[0] != 1 || size[1] != 1)
        return c.refuse("its window spans the batch or channel axis (NNAPI pools H and W only)");
    Window w;
    w.kh = size[2], w.kw = size[3];
    if (!read_window(c, *x->shape, 2, w)) return false;
    const std::string border = c.string_attr("border");
    const bool folded = c.pending_padding.count(x->name) != 0;
    if (type == OperationType::AVERAGE_POOL_2D && ((padded(w) && border == "constant") || folded)) {
        // the padding's zeros counted: a DEPTHWISE_CONV_2D by 1 / (kh kw)
        add_folded_pad(c, x->name, w);
        const std::optional<std::uint32_t> input = c.operand("input");
        return input && uniform_average(c, *input, w, c.result());
    }
    if (padded(w) && border != "ignore")
        return c.refuse("border '" + border + "' with padding: NNAPI 1.0 pools leave the padding out, as border 'ignore' does" +
                        (type == OperationType::AVERAGE_POOL_2D ? " (an average counting zeros is a convolution)" : ""));
    if (w.kh == 1 && w.kw == 1 && w.sh == 1 && w.sw == 1 && !padded(w)) {  // the identity
        const Ref r = c.ref("input");
        const std::optional<std::uint32_t> in = c.materialize(x->name, r);
        if (!in) return false;
        const std::optional<std::uint32_t> res = c.on_grid_of(*in, c.result());
        if (!res) return false;
        c.bind_operand(c.result().name, *res);
        return true;
    }
    const std::optional<std::uint32_t> input = c.operand("input");
    return input && pool_to_result(c, type, *input, w);
}

bool max_pool(Context& c) { return pool(c, OperationType::MAX_POOL_2D); }
bool avg_pool(Context& c) { return pool(c, OperationType::AVERAGE_POOL_2D); }

// mean_reduce / max_reduce over the spatial axes of a rank-4 tensor.
bool spatial_reduce(Context& c, OperationType type) {
    const nnef::Tensor& t = c.result();
    const nnef::Tensor* x = c.graph().tensor(c.argument_tensors("input").front());
    Ints axes = c.ints_attr("axes");
    std::sort(axes.begin(), axes.end());
    if (!x || !x->shape || x->shape->size() != 4 || axes != Ints{2, 3})
        return c.refuse("it reduces axes other than [2, 3] of a rank-4 tensor (NNAPI 1.0 reduces only as a pooling over H and W)");
    const std::optional<std::uint32_t> input = c.operand("input");
    if (!input) return false;
    Window w;
    w.kh = (*x->shape)[2], w.kw = (*x->shape)[3];
    bool failed = false;
    const std::optional<Grid> g = c.grid(t, failed);
    if (failed) return false;
    if (type == OperationType::MAX_POOL_2D || !g || g == c.operand_grid(*input)) return pool_to_result(c, type, *input, w);
    return uniform_average(c, *input, w, t);  // quantized mean onto another grid: one rounding
}

bool mean_reduce(Context& c) { return spatial_reduce(c, OperationType::AVERAGE_POOL_2D); }
bool max_reduce(Context& c) { return spatial_reduce(c, OperationType::MAX_POOL_2D); }

}  // namespace nnapi_from_nnef_window_cpp

bool pad_folds_into(const nnef::Operation& reader, const std::string& tensor) {
    const nnef::Value* in = reader.input("input");
    if (!in || !in->is_identifier() || in->as_identifier() != tensor) return false;
    const std::string border = lowering::string_attr(reader, "border");
    const bool zeros = border.empty() || border == "constant";
    const bool own_none = nnapi_from_nnef_window_cpp::no_padding(lowering::pairs_attr(reader, "padding"));
    return (reader.name == "conv" || reader.name == "avg_pool") && (zeros || own_none);
}

void add_window_handlers(Handlers& h) {
    using namespace nnapi_from_nnef_window_cpp;
    h["conv"] = conv;
    h["max_pool"] = max_pool;
    h["avg_pool"] = avg_pool;
    h["mean_reduce"] = mean_reduce;
    h["max_reduce"] = max_reduce;
}

}  // namespace nnef::nnapi::from_nnef
