// The per-operation rules of HAL 1.0 (op_rules.hpp): one function per operation family, each
// written from the operation's text in nnapi-1.0-types.hal.
#include "lowering/nnapi/op_rules.hpp"
#include "lowering/nnapi/op_check.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <sstream>

#include <nnef/diagnostics.hpp>

namespace nnef::nnapi::detail {

namespace {

using namespace check;

// ---- families ---------------------------------------------------------------------------------------

void elementwise_binary(Check& c) {
    if (!c.counts({3}, 1)) return;
    OperandType t = c.in(0).type;
    if (!c.in_type(0, {F32, Q8})) return;
    c.same_type(1, t, "both inputs have one type");
    c.activation(2);
    c.out_same_type(0, t);
    c.rank_between(0, 1, 4);
    c.rank_between(1, 1, 4);
    if (c.op().type == OperationType::MUL)
        c.output_scale_above(0, double(c.in(0).scale) * double(c.in(1).scale), "input1_scale * input2_scale");
    const Dims& a = c.in_dims(0);
    const Dims& b = c.in_dims(1);
    if (!fully_known(a) || !fully_known(b)) return;
    Dims out(std::max(a.size(), b.size()));
    for (std::size_t i = 0; i < out.size(); ++i) {
        std::uint32_t x = i < a.size() ? a[a.size() - 1 - i] : 1;
        std::uint32_t y = i < b.size() ? b[b.size() - 1 - i] : 1;
        if (x != y && x != 1 && y != 1) {
            c.fail("", "broadcast", "input dimensions " + dims_text(a) + " and " + dims_text(b) + " are not compatible");
            return;
        }
        out[out.size() - 1 - i] = std::max(x, y);
    }
    c.set_output(0, out);
}

// AVERAGE_POOL_2D, L2_POOL_2D, MAX_POOL_2D, CONV_2D, DEPTHWISE_CONV_2D: the scalar inputs.
void window_scalars(Check& c, std::size_t first, bool pooling, bool depthwise) {
    bool implicit = c.inputs() == (pooling ? 7u : depthwise ? 8u : 7u);
    std::size_t k = first;
    if (implicit) {
        auto scheme = c.int_scalar(k, "implicit padding scheme");
        if (scheme && (*scheme < 0 || *scheme > 2))
            c.fail(Check::in_pos(k), "padding-scheme",
                   "the implicit padding scheme is " + std::to_string(*scheme) + "; it must be 0 (NONE), 1 (SAME) or 2 (VALID)");
        ++k;
    } else {
        for (const char* what : {"left padding", "right padding", "top padding", "bottom padding"}) {
            c.at_least(k, c.int_scalar(k, what), 0, "padding", what);
            ++k;
        }
    }
    c.at_least(k, c.int_scalar(k, "width stride"), 1, "stride", "width stride");
    ++k;
    c.at_least(k, c.int_scalar(k, "height stride"), 1, "stride", "height stride");
    ++k;
    if (pooling) {
        c.at_least(k, c.int_scalar(k, "filter width"), 1, "filter-size", "filter width");
        ++k;
        c.at_least(k, c.int_scalar(k, "filter height"), 1, "filter-size", "filter height");
        ++k;
    }
    if (depthwise) {
        c.at_least(k, c.int_scalar(k, "depthwise multiplier"), 1, "depthwise-multiplier", "depthwise multiplier");
        ++k;
    }
    c.activation(k);
}

// Output height and width of a window operation, when the scalars and the input are known.
bool window_output(Check& c, const KnownValues& kv, std::uint32_t filter_h, std::uint32_t filter_w, Dims& out_hw) {
    auto p = window_params(c.op(), kv);
    const Dims& in = c.in_dims(0);
    if (!p || in.size() != 4 || !fully_known(in)) return false;
    if (filter_h == 0) filter_h = std::uint32_t(p->filter_h), filter_w = std::uint32_t(p->filter_w);
    std::optional<Window> h, w;
    if (p->implicit) {
        h = implicit_window(std::int32_t(in[1]), std::int32_t(filter_h), p->stride_h, p->scheme);
        w = implicit_window(std::int32_t(in[2]), std::int32_t(filter_w), p->stride_w, p->scheme);
    } else {
        h = explicit_window(std::int32_t(in[1]), std::int32_t(filter_h), p->stride_h, p->pad_top, p->pad_bottom);
        w = explicit_window(std::int32_t(in[2]), std::int32_t(filter_w), p->stride_w, p->pad_left, p->pad_right);
    }
    if (!h || !w) {
        c.fail("", "window-size",
               "the " + std::to_string(filter_h) + "x" + std::to_string(filter_w) + " window does not fit the padded " +
                   std::to_string(in[1]) + "x" + std::to_string(in[2]) + " input");
        return false;
    }
    out_hw = {std::uint32_t(h->out), std::uint32_t(w->out)};
    return true;
}

void pooling(Check& c, const KnownValues& kv) {
    if (!c.counts({10, 7}, 1)) return;
    bool l2 = c.op().type == OperationType::L2_POOL_2D;
    if (!(l2 ? c.in_type(0, {F32}) : c.in_type(0, {F32, Q8}))) return;
    c.out_same_type(0, c.in(0).type);
    c.rank(0, 4);
    window_scalars(c, 1, true, false);
    if (!l2) c.same_quantization(0, 0);
    Dims hw;
    if (c.ok() && window_output(c, kv, 0, 0, hw)) {
        const Dims& in = c.in_dims(0);
        c.set_output(0, {in[0], hw[0], hw[1], in[3]});
    }
}

void convolution(Check& c, const KnownValues& kv) {
    bool depthwise = c.op().type == OperationType::DEPTHWISE_CONV_2D;
    if (!(depthwise ? c.counts({11, 8}, 1) : c.counts({10, 7}, 1))) return;
    if (!c.in_type(0, {F32, Q8})) return;
    OperandType t = c.in(0).type;
    c.same_type(1, t, "the filter has the input's type");
    c.out_same_type(0, t);
    c.rank(0, 4);
    c.rank(1, 4);
    c.rank(2, 1);
    c.bias(2);
    window_scalars(c, 3, false, depthwise);
    c.output_scale_above(0, double(c.in(0).scale) * double(c.in(1).scale), "input_scale * filter_scale");
    if (!c.ok()) return;
    const Dims& in = c.in_dims(0);
    const Dims& f = c.in_dims(1);
    const Dims& b = c.in_dims(2);
    if (!fully_known(f)) return;
    std::uint32_t depth_out = depthwise ? f[3] : f[0];
    if (depthwise && f[0] != 1) c.fail(Check::in_pos(1), "filter-shape", "is " + dims_text(f) + "; a depthwise filter is [1, H, W, depth_out]");
    if (in[3] != 0) {
        if (!depthwise && f[3] != in[3])
            c.fail(Check::in_pos(1), "filter-shape",
                   "is " + dims_text(f) + "; its last dimension must be the input depth " + std::to_string(in[3]));
        if (depthwise) {
            auto mult = c.int_value(c.inputs() == 11 ? 9 : 6);
            if (mult && std::uint64_t(in[3]) * std::uint64_t(*mult) != depth_out)
                c.fail(Check::in_pos(1), "filter-shape",
                       "has depth_out " + std::to_string(depth_out) + "; it must be depth_in * multiplier = " +
                           std::to_string(in[3]) + " * " + std::to_string(*mult));
        }
    }
    if (b[0] != 0 && b[0] != depth_out)
        c.fail(Check::in_pos(2), "bias-shape", "is " + dims_text(b) + "; it must be [" + std::to_string(depth_out) + "]");
    Dims hw;
    if (c.ok() && window_output(c, kv, f[1], f[2], hw)) c.set_output(0, {in[0], hw[0], hw[1], depth_out});
}

void fully_connected(Check& c) {
    if (!c.counts({4}, 1)) return;
    if (!c.in_type(0, {F32, Q8})) return;
    OperandType t = c.in(0).type;
    c.same_type(1, t, "the weights have the input's type");
    c.out_same_type(0, t);
    c.rank_between(0, 2, 4);
    c.rank(1, 2);
    c.rank(2, 1);
    c.bias(2);
    c.activation(3);
    c.output_scale_above(0, double(c.in(0).scale) * double(c.in(1).scale), "input_scale * filter_scale");
    if (!c.ok()) return;
    const Dims& in = c.in_dims(0);
    const Dims& w = c.in_dims(1);
    const Dims& b = c.in_dims(2);
    if (w[0] != 0 && b[0] != 0 && b[0] != w[0])
        c.fail(Check::in_pos(2), "bias-shape", "is " + dims_text(b) + "; it must be [num_units] = [" + std::to_string(w[0]) + "]");
    if (!fully_known(in) || !fully_known(w)) return;
    std::uint64_t count = 1;
    for (std::uint32_t d : in) count *= d;
    if (count % w[1] != 0) {
        c.fail(Check::in_pos(0), "input-size",
               "has " + std::to_string(count) + " elements, not a multiple of input_size " + std::to_string(w[1]));
        return;
    }
    c.set_output(0, {std::uint32_t(count / w[1]), w[0]});
}

void unary(Check& c, std::initializer_list<OperandType> types, bool same_quant) {
    if (!c.counts({1}, 1)) return;
    if (!c.in_type(0, types)) return;
    c.out_same_type(0, c.in(0).type);
    c.rank_between(0, 1, 4);
    if (same_quant) c.same_quantization(0, 0);
    if (c.op().type == OperationType::LOGISTIC) c.fixed_quantization(0);
    c.set_output(0, c.in_dims(0));
}

void concatenation(Check& c) {
    const Operation& op = c.op();
    if (op.inputs.size() < 2 || op.outputs.size() != 1) {
        c.fail("", "operand-count", "has " + std::to_string(op.inputs.size()) + " inputs and " +
                                        std::to_string(op.outputs.size()) + " outputs; CONCATENATION takes n >= 1 tensors and "
                                                                            "the axis, and gives 1 output");
        return;
    }
    std::size_t n = op.inputs.size() - 1;
    if (!c.in_type(0, {F32, Q8})) return;
    OperandType t = c.in(0).type;
    std::size_t r = c.in_dims(0).size();
    c.rank_between(0, 1, 4);
    for (std::size_t k = 1; k < n; ++k) {
        c.same_type(k, t, "all inputs have one type");
        if (c.in_dims(k).size() != r)
            c.fail(Check::in_pos(k), "rank", "has rank " + std::to_string(c.in_dims(k).size()) + "; input 0 has rank " + std::to_string(r));
    }
    c.out_same_type(0, t);
    auto axis = c.int_scalar(n, "axis");
    for (std::size_t k = 0; k < n; ++k) c.same_quantization(0, k);
    if (!axis || !c.ok()) return;
    if (*axis < 0 || std::size_t(*axis) >= r) {
        c.fail(Check::in_pos(n), "concat-axis", "the axis is " + std::to_string(*axis) + "; the inputs have rank " + std::to_string(r));
        return;
    }
    Dims out = c.in_dims(0);
    for (std::size_t k = 1; k < n; ++k) {
        const Dims& d = c.in_dims(k);
        for (std::size_t i = 0; i < r; ++i) {
            if (i == std::size_t(*axis)) {
                out[i] = (out[i] == 0 || d[i] == 0) ? 0 : out[i] + d[i];
            } else if (d[i] != 0 && out[i] != 0 && d[i] != out[i]) {
                c.fail(Check::in_pos(k), "concat-shape",
                       "is " + dims_text(d) + "; it must match input 0 " + dims_text(c.in_dims(0)) + " except on axis " +
                           std::to_string(*axis));
                return;
            }
        }
    }
    c.set_output(0, out);
}

void depth_space(Check& c) {
    if (!c.counts({2}, 1)) return;
    if (!c.in_type(0, {F32, Q8})) return;
    c.out_same_type(0, c.in(0).type);
    c.rank(0, 4);
    c.same_quantization(0, 0);
    auto block = c.int_scalar(1, "block size");
    c.at_least(1, block, 1, "block-size", "block size");
    const Dims& in = c.in_dims(0);
    if (!block || *block < 1 || !c.ok() || !fully_known(in)) return;
    const std::uint64_t b = std::uint64_t(*block);
    auto fits = [](std::uint64_t v) { return v <= 0xffffffffu; };
    if (c.op().type == OperationType::DEPTH_TO_SPACE) {
        if (in[3] % (b * b) != 0 || !fits(in[1] * b) || !fits(in[2] * b)) {
            c.fail(Check::in_pos(1), "block-size",
                   "block_size * block_size = " + std::to_string(b * b) + " does not divide the input depth " + std::to_string(in[3]));
            return;
        }
        c.set_output(0, {in[0], std::uint32_t(in[1] * b), std::uint32_t(in[2] * b), std::uint32_t(in[3] / (b * b))});
    } else {
        if (in[1] % b != 0 || in[2] % b != 0 || double(in[3]) * double(b) * double(b) > 4294967295.0) {
            c.fail(Check::in_pos(1), "block-size",
                   "block_size " + std::to_string(b) + " does not divide the input height and width " + std::to_string(in[1]) + "x" +
                       std::to_string(in[2]));
            return;
        }
        c.set_output(0, {in[0], std::uint32_t(in[1] / b), std::uint32_t(in[2] / b), std::uint32_t(in[3] * b * b)});
    }
}

void reshape(Check& c) {
    if (!c.counts({2}, 1)) return;
    if (!c.in_type(0, {F32, Q8})) return;
    c.out_same_type(0, c.in(0).type);
    c.rank_between(0, 1, 4);
    c.in_type(1, {I32T});
    c.rank(1, 1);
    c.same_quantization(0, 0);
    auto shape = c.int_tensor_value(1);
    if (!shape || !c.ok()) return;
    if (shape->empty() || shape->size() > 4) {
        c.fail(Check::in_pos(1), "reshape-shape", "has " + std::to_string(shape->size()) + " entries; the output rank must be 1 to 4");
        return;
    }
    int unknown = -1;
    std::uint64_t known = 1;
    for (std::size_t i = 0; i < shape->size(); ++i) {
        std::int32_t v = (*shape)[i];
        if (v == -1 && unknown < 0) {
            unknown = int(i);
        } else if (v < 1) {
            c.fail(Check::in_pos(1), "reshape-shape",
                   "entry " + std::to_string(i) + " is " + std::to_string(v) + "; entries must be >= 1, or -1 once");
            return;
        } else {
            known *= std::uint64_t(v);
        }
    }
    const Dims& in = c.in_dims(0);
    if (!fully_known(in)) return;
    std::uint64_t count = 1;
    for (std::uint32_t d : in) count *= d;
    Dims out;
    for (std::int32_t v : *shape) out.push_back(v < 0 ? 0 : std::uint32_t(v));
    if (unknown >= 0) {
        if (known == 0 || count % known != 0) {
            c.fail(Check::in_pos(1), "reshape-size", "no size for the -1 entry gives " + std::to_string(count) + " elements");
            return;
        }
        out[std::size_t(unknown)] = std::uint32_t(count / known);
    } else if (known != count) {
        c.fail(Check::in_pos(1), "reshape-size",
               "the shape has " + std::to_string(known) + " elements; the input has " + std::to_string(count));
        return;
    }
    c.set_output(0, out);
}

void softmax(Check& c) {
    if (!c.counts({2}, 1)) return;
    if (!c.in_type(0, {F32, Q8})) return;
    c.out_same_type(0, c.in(0).type);
    std::size_t r = c.in_dims(0).size();
    if (r != 2 && r != 4) c.fail(Check::in_pos(0), "rank", "has rank " + std::to_string(r) + "; SOFTMAX supports rank 2 or 4");
    auto beta = c.float_scalar(1, "beta");
    if (beta && !(*beta > 0)) c.fail(Check::in_pos(1), "softmax-beta", "beta is " + std::to_string(*beta) + "; it must be positive");
    c.fixed_quantization(0);
    c.set_output(0, c.in_dims(0));
}

void local_response_normalization(Check& c) {
    if (!c.counts({5}, 1)) return;
    if (!c.in_type(0, {F32})) return;
    c.out_same_type(0, F32);
    c.rank(0, 4);
    c.at_least(1, c.int_scalar(1, "radius"), 0, "lrn-radius", "radius");
    auto bias = c.float_scalar(2, "bias");
    if (bias && *bias == 0) c.fail(Check::in_pos(2), "lrn-bias", "the bias is 0; it must not be zero");
    c.float_scalar(3, "alpha");
    c.float_scalar(4, "beta");
    c.set_output(0, c.in_dims(0));
}

void resize_bilinear(Check& c) {
    if (!c.counts({3}, 1)) return;
    if (!c.in_type(0, {F32})) return;
    c.out_same_type(0, F32);
    c.rank(0, 4);
    auto w = c.int_scalar(1, "output width");
    auto h = c.int_scalar(2, "output height");
    c.at_least(1, w, 1, "output-size", "output width");
    c.at_least(2, h, 1, "output-size", "output height");
    const Dims& in = c.in_dims(0);
    if (w && h && *w >= 1 && *h >= 1 && c.ok())
        c.set_output(0, {in[0], std::uint32_t(*h), std::uint32_t(*w), in[3]});
}

void dequantize(Check& c) {
    if (!c.counts({1}, 1)) return;
    c.in_type(0, {Q8});
    c.out_type(0, {F32});
    c.rank_between(0, 1, 4);
    c.set_output(0, c.in_dims(0));
}

}  // namespace


bool check_operation(const Model& m, std::size_t op_index, const KnownValues& kv, std::vector<Dims>& dims, Diagnostics& diags) {
    Check c(m, op_index, kv, dims, diags);
    switch (c.op().type) {
        case OperationType::ADD:
        case OperationType::MUL: elementwise_binary(c); break;
        case OperationType::AVERAGE_POOL_2D:
        case OperationType::L2_POOL_2D:
        case OperationType::MAX_POOL_2D: pooling(c, kv); break;
        case OperationType::CONCATENATION: concatenation(c); break;
        case OperationType::CONV_2D:
        case OperationType::DEPTHWISE_CONV_2D: convolution(c, kv); break;
        case OperationType::DEPTH_TO_SPACE:
        case OperationType::SPACE_TO_DEPTH: depth_space(c); break;
        case OperationType::DEQUANTIZE: dequantize(c); break;
        case OperationType::FLOOR:
        case OperationType::TANH: unary(c, {F32}, false); break;
        case OperationType::L2_NORMALIZATION:
            unary(c, {F32}, false);
            if (c.inputs() == 1) c.rank(0, 4);
            break;
        case OperationType::LOGISTIC: unary(c, {F32, Q8}, false); break;
        case OperationType::RELU:
        case OperationType::RELU1:
        case OperationType::RELU6: unary(c, {F32, Q8}, true); break;
        case OperationType::FULLY_CONNECTED: fully_connected(c); break;
        case OperationType::LOCAL_RESPONSE_NORMALIZATION: local_response_normalization(c); break;
        case OperationType::RESHAPE: reshape(c); break;
        case OperationType::RESIZE_BILINEAR: resize_bilinear(c); break;
        case OperationType::SOFTMAX: softmax(c); break;
        case OperationType::EMBEDDING_LOOKUP:
        case OperationType::HASHTABLE_LOOKUP:
        case OperationType::LSH_PROJECTION:
        case OperationType::LSTM:
        case OperationType::RNN:
        case OperationType::SVDF: sequence_operation(c); break;
        case OperationType::OEM_OPERATION:
            c.fail("", "oem-operation", "OEM_OPERATION is vendor-specific; this implementation has no OEM operations");
            break;
        default:
            c.fail("", "operation-type", "unknown operation type " + std::to_string(int(c.op().type)));
            break;
    }
    if (c.ok()) c.check_no_value();
    return c.ok();
}

// ---- shared helpers -----------------------------------------------------------------------------------

void report(Diagnostics& diags, const Model& m, std::size_t op_index, const std::string& operand_position,
            const std::string& rule, const std::string& message) {
    const Operation& op = m.operations[op_index];
    std::string text = "operation " + std::to_string(op_index) + " (" + to_string(op.type) + ")";
    if (!operand_position.empty()) {
        bool input = operand_position.rfind("input ", 0) == 0;
        std::size_t k = std::stoul(operand_position.substr(input ? 6 : 7));
        const auto& list = input ? op.inputs : op.outputs;
        text += ", " + operand_position;
        if (k < list.size()) text += " (operand " + std::to_string(list[k]) + ")";
    }
    diags.error(Stage::nnapi, "nnapi-" + rule, text + ": " + message + " [" + rule + "]");
}

KnownValues constant_values(const Model& m) {
    KnownValues kv;
    auto scalar_bytes = [&m](std::uint32_t index, OperandType t) -> std::optional<std::basic_string_view<std::uint8_t>> {
        if (index >= m.operands.size() || m.operands[index].type != t) return std::nullopt;
        auto bytes = constant_bytes(m, m.operands[index]);
        if (!bytes || bytes->size() != 4) return std::nullopt;
        return bytes;
    };
    kv.int32 = [scalar_bytes](std::uint32_t index) -> std::optional<std::int32_t> {
        auto bytes = scalar_bytes(index, OperandType::INT32);
        if (!bytes) return std::nullopt;
        std::int32_t v;
        std::memcpy(&v, bytes->data(), 4);
        return v;
    };
    kv.float32 = [scalar_bytes](std::uint32_t index) -> std::optional<float> {
        auto bytes = scalar_bytes(index, OperandType::FLOAT32);
        if (!bytes) return std::nullopt;
        float v;
        std::memcpy(&v, bytes->data(), 4);
        return v;
    };
    kv.int32_tensor = [&m](std::uint32_t index) -> std::optional<std::vector<std::int32_t>> {
        if (index >= m.operands.size() || m.operands[index].type != I32T) return std::nullopt;
        auto bytes = constant_bytes(m, m.operands[index]);
        if (!bytes || bytes->size() % 4 != 0) return std::nullopt;
        std::vector<std::int32_t> v(bytes->size() / 4);
        if (!v.empty()) std::memcpy(v.data(), bytes->data(), bytes->size());
        return v;
    };
    return kv;
}

std::optional<Window> implicit_window(std::int32_t in, std::int32_t filter, std::int32_t stride, std::int32_t scheme) {
    if (in < 1 || filter < 1 || stride < 1) return std::nullopt;
    Window w;
    if (scheme == int(PaddingCode::SAME)) {
        w.out = (in + stride - 1) / stride;
        std::int64_t total = std::max<std::int64_t>(std::int64_t(w.out - 1) * stride + filter - in, 0);
        w.pad_head = std::int32_t(total / 2);
        w.pad_tail = std::int32_t(total - total / 2);
        return w;
    }
    return explicit_window(in, filter, stride, 0, 0);
}

std::optional<Window> explicit_window(std::int32_t in, std::int32_t filter, std::int32_t stride, std::int32_t pad_head,
                                      std::int32_t pad_tail) {
    if (in < 1 || filter < 1 || stride < 1 || pad_head < 0 || pad_tail < 0) return std::nullopt;
    std::int64_t span = std::int64_t(in) + pad_head + pad_tail - filter;
    if (span < 0) return std::nullopt;
    Window w;
    w.pad_head = pad_head;
    w.pad_tail = pad_tail;
    w.out = std::int32_t(span / stride + 1);
    return w;
}

std::optional<WindowParams> window_params(const Operation& op, const KnownValues& kv) {
    bool pooling = op.type == OperationType::AVERAGE_POOL_2D || op.type == OperationType::L2_POOL_2D ||
                   op.type == OperationType::MAX_POOL_2D;
    bool depthwise = op.type == OperationType::DEPTHWISE_CONV_2D;
    std::size_t first = pooling ? 1 : 3;
    std::size_t explicit_count = pooling ? 10 : depthwise ? 11 : 10;
    std::size_t implicit_count = pooling ? 7 : depthwise ? 8 : 7;
    if (op.inputs.size() != explicit_count && op.inputs.size() != implicit_count) return std::nullopt;
    std::vector<std::int32_t> v;
    for (std::size_t k = first; k < op.inputs.size(); ++k) {
        auto x = kv.int32 ? kv.int32(op.inputs[k]) : std::nullopt;
        if (!x) return std::nullopt;
        v.push_back(*x);
    }
    WindowParams p;
    std::size_t i = 0;
    p.implicit = op.inputs.size() == implicit_count;
    if (p.implicit) {
        p.scheme = v[i++];
    } else {
        p.pad_left = v[i++];
        p.pad_right = v[i++];
        p.pad_top = v[i++];
        p.pad_bottom = v[i++];
    }
    p.stride_w = v[i++];
    p.stride_h = v[i++];
    if (pooling) {
        p.filter_w = v[i++];
        p.filter_h = v[i++];
    }
    if (depthwise) p.multiplier = v[i++];
    p.activation = v[i++];
    return p;
}

}  // namespace nnef::nnapi::detail
