// fold-pads (passes.hpp): a PAD of height and width only read by a convolution or a max pool folds
// into the reader's own padding where the result is provably the same (docs/tosa-lowering.md):
//  - CONV2D, DEPTHWISE_CONV2D: the pad value is the input zero point (TOSA's convolutions skip the
//    taps outside the input, which is adding (zp - zp) * w = 0: the same as a tap on a padded
//    zero point). On the float path the zero point is 0, so a zero PAD folds.
//  - MAX_POOL2D: the pad value is the least value of the type (-infinity for floats): TOSA's
//    padding never wins, and neither does the least value (every window keeps a real element
//    because the folded padding stays below the kernel, as TOSA requires).
//  - AVG_POOL2D never: its divisor counts the elements inside the input only, so padded zeros
//    that the explicit PAD made part of the input (NNEF's avg_pool after pad, any border) would
//    no longer be counted.
// The folded padding on each side stays at most the (dilated) kernel extent minus one, so the
// operator stays within TOSA's limits. PADs in a chain (one per dimension, as the NNEF
// legalization writes them) fold one after the other.
#include <cmath>
#include <limits>

#include "lowering/tosa/passes/passes.hpp"

namespace nnef::tosa::passes {

namespace tosa_passes_fold_pads_cpp {

const Op* producer_op(const Graph& g, const std::vector<std::int64_t>& prod, ValueId v) {
    const std::int64_t p = v < prod.size() ? prod[v] : -1;
    return p < 0 ? nullptr : &g.main().ops[std::size_t(p)];
}

// The single item of a CONST operand, or NaN.
double scalar_const(const Graph& g, const std::vector<std::int64_t>& prod, ValueId v) {
    const Op* c = producer_op(g, prod, v);
    if (!c || c->kind != OpKind::CONST) return std::numeric_limits<double>::quiet_NaN();
    const ConstPtr& data = c->get<ConstPtr>(AttrName::values);
    if (!data || data->type.volume() != 1) return std::numeric_limits<double>::quiet_NaN();
    return number_item(*data, 0);
}

double least_value(DType t) {
    switch (t) {
        case DType::i8: return -128;
        case DType::i16: return -32768;
        case DType::i32: return double(std::numeric_limits<std::int32_t>::min());
        case DType::fp16:
        case DType::bf16:
        case DType::fp32: return -std::numeric_limits<double>::infinity();
        default: return std::numeric_limits<double>::quiet_NaN();
    }
}

}  // namespace tosa_passes_fold_pads_cpp

bool fold_pads(Graph& g, Diagnostics& diags) {
    using namespace tosa_passes_fold_pads_cpp;
    // only live readers count (the layout passes leave the legalization's TRANSPOSEs of a PAD dead)
    if (!eliminate_dead_code(g, diags)) return false;
    std::vector<std::uint32_t> uses(g.values.size(), 0);
    for (const Block& b : g.blocks) {
        for (const Op& op : b.ops)
            for (ValueId v : op.inputs) ++uses[v];
        for (ValueId v : b.outputs) ++uses[v];
    }
    const std::vector<std::int64_t> prod = producers(g);
    std::vector<Op>& ops = g.main().ops;
    for (std::size_t i = ops.size(); i-- > 0;) {
        Op& op = ops[i];
        const bool conv = op.kind == OpKind::CONV2D || op.kind == OpKind::DEPTHWISE_CONV2D;
        if (!conv && op.kind != OpKind::MAX_POOL2D) continue;
        for (;;) {
            const Op* pad = producer_op(g, prod, op.inputs[0]);
            if (!pad || pad->kind != OpKind::PAD || pad->inputs.size() != 3 || uses[op.inputs[0]] != 1) break;
            const Op* shape = producer_op(g, prod, pad->inputs[1]);
            if (!shape || shape->kind != OpKind::CONST_SHAPE) break;
            const auto& padding = shape->get<std::vector<std::int64_t>>(AttrName::values);
            const ValueId x = pad->inputs[0];
            if (g.type(x).rank() != 4 || padding.size() != 8 || padding[0] || padding[1] || padding[6] || padding[7]) break;
            const double value = scalar_const(g, prod, pad->inputs[2]);
            // the value the operator's own padding stands for
            const double implied = conv ? scalar_const(g, prod, op.inputs[3]) : least_value(g.type(x).dtype);
            if (std::isnan(value) || value != implied) break;
            // the (dilated) kernel extent per spatial dimension
            std::int64_t extent[2] = {1, 1};
            const auto* dilation = op.attr(AttrName::dilation);
            for (int j = 0; j < 2; ++j) {
                std::int64_t k = 1;
                if (op.kind == OpKind::CONV2D) k = g.type(op.inputs[1]).shape[std::size_t(1 + j)];       // [O, KH, KW, I]
                else if (op.kind == OpKind::DEPTHWISE_CONV2D) k = g.type(op.inputs[1]).shape[std::size_t(j)];  // [KH, KW, C, M]
                else k = op.get<std::vector<std::int64_t>>(AttrName::kernel)[std::size_t(j)];
                const std::int64_t d = dilation ? std::get<std::vector<std::int64_t>>(*dilation)[std::size_t(j)] : 1;
                extent[j] = (k - 1) * d + 1;
            }
            std::vector<std::int64_t> folded = op.get<std::vector<std::int64_t>>(AttrName::pad);  // top, bottom, left, right
            bool fits = true;
            for (int s = 0; s < 4; ++s) {
                folded[std::size_t(s)] += padding[std::size_t(2 + s)];
                fits = fits && folded[std::size_t(s)] <= extent[s / 2] - 1;
            }
            if (!fits) break;
            // the operator reads the PAD's input; the PAD is dead (eliminate-dead-code removes it)
            --uses[op.inputs[0]];
            for (ValueId v : pad->inputs) --uses[v];
            op.inputs[0] = x;
            ++uses[x];
            op.set(AttrName::pad, folded);
        }
    }
    return true;
}

}  // namespace nnef::tosa::passes
