// assign-executors (assign_executors.hpp), the int8 path (TOSA PRO-INT): convolutions on the NCE
// when a RESCALE to int8 requantizes their result (their int32 accumulator, then the SHAVE
// `rescale` that fuse-post-ops packs into the conv's table), eltwise with the RESCALEs of its
// operands and result as one NCE layer, requantizations between grids as NCE 1x1 maxpools,
// integer SHAVE kernels.
#include "lowering/vpu/passes/assign_executors.hpp"

namespace nnef::vpu::ir::assign_executors_impl {

// Whether the SHAVE conv2d of `op` (NHWC input, OHWI weights) fits a tile in its smallest part:
// the int8 weights, the int32 bias, the input rows of one output row, that row in int32.
bool Builder::shave_conv_fits(const tosa::Op& op, const FConst& w) const {
    const auto& xs = g.type(op.inputs[0]).shape;
    const auto& ys = g.type(op.outputs[0]).shape;
    if (xs.size() != 4 || ys.size() != 4 || w.shape.size() != 4) return false;
    std::int64_t dilation = 1;
    if (const tosa::Attr* a = op.attr(AttrName::dilation); a && std::holds_alternative<std::vector<std::int64_t>>(*a))
        dilation = std::get<std::vector<std::int64_t>>(*a).at(0);
    const std::int64_t rows = (w.shape[1] - 1) * dilation + 1;
    const std::int64_t bytes = std::int64_t(w.items.size()) + 4 * ys[3] + rows * xs[2] * xs[3] + 4 * ys[2] * ys[3];
    return bytes <= tile_budget(m.target);
}

bool Builder::conv_int8(const tosa::Op& op, bool depthwise, const std::optional<View>& x, const FConst* w) {
    const IConst* b = iconst(op.inputs[2]);
    const IConst* izp = iconst(op.inputs[3]);
    const IConst* wzp = iconst(op.inputs[4]);
    if (!x || !w || !b || !izp || !wzp) return fail(op, "the weights, bias and zero points must be constants");
    std::vector<std::size_t> chain;
    std::string why;
    const tosa::Op* rs = requant_of(op.outputs[0], chain, why);
    // the NCE convolves int8 into 8-bit results (or int32 accumulators): another input type, or a
    // depthwise int32 result that no RESCALE to int8 alone reads, with weights a SHAVE kernel takes,
    // is the SHAVE kernel of the operator (in parts over rows; an i16 input is refused there)
    if (g.type(op.inputs[0]).dtype != tosa::DType::i8) return int_shave(op);
    // without such a RESCALE (a bias added after the accumulation at a finer grid than the
    // accumulator's: a float bias, GoogLeNet's classifier), a convolution whose SHAVE kernel's
    // smallest part (one output row, split over rows only) would not fit a tile: the NCE's int32
    // accumulator (assign_executors_int8_split.cpp, split over input channels), its readers as they are
    if (!rs && (depthwise || shave_conv_fits(op, *w))) return int_shave(op);
    if (!depthwise && beyond_nce_limits(op, w->shape[1], w->shape[2])) return large_conv_int8(op, *w, *x, rs, chain);
    Layer l;
    if (!nce_conv(op, l, *w, *x, depthwise)) return false;
    const std::int64_t O = l.weights_shape[0];
    l.nce.quantized = true;
    l.nce.input_zp = izp->items[0];
    l.nce.weights_zp = wzp->items[0];
    std::vector<std::int64_t> ys = g.type(op.outputs[0]).shape;
    if (!batch_as_rows(op, l, ys)) return false;
    const std::int64_t KH = l.weights_shape[1], KW = l.weights_shape[2];
    const std::int64_t align = m.target.nce_channel_alignment;
    const std::int64_t ki = std::max<std::int64_t>(align, tile_budget(m.target) / 4 / (align * KH * KW) / align * align);
    if (!rs) {
        for (std::int64_t c = 0; c < O; ++c) l.q_bias.push_back(at(*b, c));
        const View acc = int32_accumulator(std::move(l), op, ki, ys, g.value(op.outputs[0]).name);
        views[op.outputs[0]] = dense_view(acc.tensor, g.type(op.outputs[0]).shape);
        producer_layer[op.outputs[0]] = int(m.layers.size()) - 1;
        return true;
    }
    // the RESCALE to int8: the SHAVE `rescale` of the int32 accumulator (in chunks when the weights
    // exceed a tile: exact int32 partial sums, assign_executors_int8_split.cpp); fuse-post-ops packs
    // it into the conv's table when one NCE layer computes the accumulator
    for (std::int64_t c = 0; c < O; ++c) l.q_bias.push_back(at(*b, c));
    const ValueId y = rs->outputs[0];
    // a dwconv: I = 1 (assign_executors_int8_split.cpp: requantize_accumulator, the SHAVE `rescale`)
    return requantize_accumulator(int32_accumulator(std::move(l), op, ki, ys, g.value(y).name), *rs, chain, ys);
}

void Builder::plan_eltwise(std::size_t k) {
    const tosa::Op& op = g.main().ops[k];
    if ((op.kind != OpKind::ADD && op.kind != OpKind::SUB) || g.type(op.outputs[0]).dtype != tosa::DType::i32) return;
    const auto& ys = g.type(op.outputs[0]).shape;
    if (ys.empty()) return;
    EltwisePlan plan;
    std::optional<tosa::RoundingMode> rounding;
    auto operand = [&](ValueId v, const tosa::Op*& transpose) -> const tosa::Op* {
        if (g.type(v).shape != ys || uses[v] != 1) return nullptr;
        const tosa::Op* r = producer(v);
        if (r && r->kind == OpKind::TRANSPOSE && uses[r->inputs[0]] == 1) {
            transpose = r;
            r = producer(r->inputs[0]);
        }
        if (!r || r->kind != OpKind::RESCALE || g.type(r->inputs[0]).dtype != tosa::DType::i8) return nullptr;
        const IConst *mult = iconst(r->inputs[1]), *shift = iconst(r->inputs[2]), *izp = iconst(r->inputs[3]), *ozp = iconst(r->inputs[4]);
        if (!mult || !shift || !izp || !ozp || mult->items.size() != 1 || shift->items.size() != 1 || ozp->items[0] != 0) return nullptr;
        if (shift->items[0] < 2 || shift->items[0] > 62 || mult->items[0] < 0) return nullptr;
        if (r->get<bool>(AttrName::input_unsigned) || r->get<bool>(AttrName::output_unsigned) || !r->get<bool>(AttrName::scale32)) return nullptr;
        rounding = r->get<tosa::RoundingMode>(AttrName::rounding_mode);
        return r;
    };
    // a constant operand one per channel (or one): the table's bias, b read with multiplier 0
    auto bias = [&](ValueId v) -> const IConst* {
        const IConst* c = iconst(v);
        if (!c || c->shape.size() != ys.size()) return nullptr;
        for (std::size_t i = 0; i + 1 < ys.size(); ++i)
            if (c->shape[i] != 1) return nullptr;
        return c->shape.back() == 1 || c->shape.back() == ys.back() ? c : nullptr;
    };
    if ((plan.constant = bias(op.inputs[1]))) {
        plan.a = operand(op.inputs[0], plan.ta);
        plan.negate = op.kind == OpKind::SUB;
    } else if (op.kind == OpKind::ADD && (plan.constant = bias(op.inputs[0]))) {
        plan.a = operand(op.inputs[1], plan.ta);
    } else {
        plan.a = operand(op.inputs[0], plan.ta);
        const auto ra = rounding;
        plan.b = operand(op.inputs[1], plan.tb);
        if (!plan.b || ra != rounding || op.inputs[0] == op.inputs[1]) return;
    }
    if (!plan.a) return;
    // the NCE takes rank 4 with one image; another shape needs dense operands (see eltwise_int8)
    if ((ys.size() != 4 || ys[0] != 1) && (plan.ta || plan.tb)) return;
    std::string why;
    plan.out = requant_of(op.outputs[0], plan.chain, why);
    if (!plan.out || plan.out->get<tosa::RoundingMode>(AttrName::rounding_mode) != *rounding) return;
    for (const tosa::Op* r : {plan.a, plan.b, plan.ta, plan.tb})
        if (r) done[producers[r->outputs[0]].index] = true;
    eltwise_plans[k] = std::move(plan);
}

bool Builder::eltwise_int8(const tosa::Op& op, const EltwisePlan& plan) {
    auto operand = [&](const tosa::Op* r, const tosa::Op* transpose) -> std::optional<View> {
        auto v = view_of(r->inputs[0]);
        if (!v || !transpose) return v;
        return transposed(*v, *transpose);
    };
    auto av = operand(plan.a, plan.ta);
    auto bv = plan.b ? operand(plan.b, plan.tb) : av;  // with a constant: a again, scaled to 0
    if (!av || !bv) return fail(op, "an operand has no memory form");
    const auto& ys = g.type(op.outputs[0]).shape;
    const std::int64_t C = ys.back();
    std::vector<std::int64_t> shape4 = ys;
    if (ys.size() != 4 || ys[0] != 1) {
        // [..., C] dense (copied when it is a strided view) -> [1, rows, 1, C]
        shape4 = {1, g.type(op.outputs[0]).volume() / std::max<std::int64_t>(C, 1), 1, C};
        for (auto* v : {&av, &bv}) {
            if (!(*v)->dense(es(**v))) *v = materialize(**v, g.value(op.outputs[0]).name + ".operand", Role::activation, source_of(op));
            (*v)->shape = shape4;
            (*v)->strides = dense_strides(shape4, es(**v));
        }
    }
    Layer l;
    l.exec = Exec::nce;
    l.nce_op = NceOp::eltwise;
    l.nce.eltwise = op.kind == OpKind::ADD || plan.constant ? "add" : "sub";
    l.nce.quantized = true;
    for (int i = 0; i < 2; ++i) {
        const tosa::Op* r = i == 0 ? plan.a : plan.b;
        l.nce.eltwise_inputs[std::size_t(i)] = r ? InputRescale{iconst(r->inputs[1])->items[0], iconst(r->inputs[2])->items[0], iconst(r->inputs[3])->items[0]}
                                                 : InputRescale{0, 30, 0};  // (b - 0) * 0 >> 30 = 0
    }
    const IConst *mult = iconst(plan.out->inputs[1]), *shift = iconst(plan.out->inputs[2]);  // one, or one per channel
    for (std::int64_t c = 0; c < C; ++c) {
        l.q_bias.push_back(plan.constant ? (plan.negate ? -at(*plan.constant, c) : at(*plan.constant, c)) : 0);
        l.q_mult.push_back(at(*mult, c));
        l.q_shift.push_back(at(*shift, c));
    }
    l.nce.output_zp = iconst(plan.out->inputs[4])->items[0];
    l.nce.double_round = plan.out->get<tosa::RoundingMode>(AttrName::rounding_mode) == tosa::RoundingMode::DOUBLE_ROUND;
    l.inputs = {*av, *bv};
    l.source = source_of(op);
    l.origin = op.origin;
    const ValueId y = plan.out->outputs[0];
    const int t = add_tensor(g.value(y).name, g.type(y).volume(), Role::activation, DataType::int8);
    l.output = dense_view(t, shape4);
    for (std::size_t k : plan.chain) done[k] = true;
    add_layer(std::move(l), y, dense_view(t, g.type(y).shape));
    return true;
}

const tosa::Op* Builder::requant_of(ValueId v, std::vector<std::size_t>& chain, std::string& why) const {
    const tosa::Block& main = g.main();
    const std::int64_t C = g.type(v).shape.back();
    for (;;) {
        why = "it has " + std::to_string(uses[v]) + " readers";
        if (uses[v] != 1 || users[v].size() != 1) return nullptr;
        const std::size_t k = users[v][0];
        const tosa::Op& u = main.ops[k];
        chain.push_back(k);
        if (u.kind == OpKind::RESHAPE && u.inputs[0] == v) {
            v = u.outputs[0];
            continue;
        }
        why = std::string("its reader is ") + tosa::to_string(u.kind);
        if (u.kind != OpKind::RESCALE || u.inputs[0] != v) return nullptr;
        why = std::string("the RESCALE gives ") + tosa::to_string(g.type(u.outputs[0]).dtype) + ", a type the target's buffers lack";
        if (g.type(u.outputs[0]).dtype != tosa::DType::i8) return nullptr;
        why = "the RESCALE's parameters are not constants the NCE's table takes (constant multiplier and shift, input zero point 0, "
              "signed, single or double rounding)";
        auto* self = const_cast<Builder*>(this);
        const IConst *mult = self->iconst(u.inputs[1]), *shift = self->iconst(u.inputs[2]), *izp = self->iconst(u.inputs[3]),
                     *ozp = self->iconst(u.inputs[4]);
        if (!mult || !shift || !izp || !ozp || izp->items.empty() || izp->items[0] != 0 || ozp->items.empty()) return nullptr;
        if (u.get<bool>(AttrName::input_unsigned) || u.get<bool>(AttrName::output_unsigned)) return nullptr;
        if (u.get<tosa::RoundingMode>(AttrName::rounding_mode) == tosa::RoundingMode::INEXACT_ROUND) return nullptr;
        for (const IConst* k2 : {mult, shift})
            if (k2->items.size() != 1 && (std::int64_t(k2->items.size()) != C || g.type(v).shape.back() != C)) return nullptr;
        for (std::int64_t s2 : shift->items)
            if (s2 < 2 || s2 > 62) return nullptr;
        for (std::int64_t m2 : mult->items)
            if (m2 < 0) return nullptr;
        return &u;
    }
}

bool Builder::rescale_on_nce(const tosa::Op& op, const IConst& mult, const IConst& shift, std::int64_t izp, std::int64_t ozp, bool double_round) {
    const ValueId x = op.inputs[0], y = op.outputs[0];
    if (g.type(x).dtype != tosa::DType::i8 || g.type(y).dtype != tosa::DType::i8) return false;
    const auto& xs = g.type(x).shape;
    if (xs.empty()) return false;
    const std::int64_t C = xs.back();
    if ((mult.items.size() != 1 && std::int64_t(mult.items.size()) != C) || (shift.items.size() != 1 && std::int64_t(shift.items.size()) != C))
        return false;
    for (std::int64_t s2 : shift.items)
        if (s2 < 2 || s2 > 62) return false;
    for (std::int64_t m2 : mult.items)
        if (m2 < 0) return false;
    auto xv = view_of(x);
    if (!xv) return false;
    View in = *xv;
    std::vector<std::int64_t> shape4;
    // a per-tensor requantization of an NCHW view of NHWC data (ShuffleNet's channel split after
    // its shuffle) runs on the NHWC data and gives NHWC data, seen as NCHW again: the NCE reads a
    // box of the operand and its readers read a box of the result
    const bool nchw = xs.size() == 4 && xs[0] == 1 && mult.items.size() == 1 && shift.items.size() == 1 && in.strides[1] == es(in) &&
                      in.strides[3] > in.strides[1];
    if (nchw) {
        shape4 = {1, xs[2], xs[3], xs[1]};
        in.shape = shape4;
        in.strides = {xv->strides[0], xv->strides[2], xv->strides[3], xv->strides[1]};
    } else if (xs.size() == 4 && xs[0] == 1) {
        shape4 = xs;
    } else if (in.dense(es(in))) {
        shape4 = {1, g.type(x).volume() / std::max<std::int64_t>(C, 1), 1, C};
        in.shape = shape4;
        in.strides = dense_strides(shape4, es(in));
    } else {
        return false;
    }
    Layer l;
    l.exec = Exec::nce;
    l.nce_op = NceOp::maxpool;
    l.nce.quantized = true;
    l.nce.input_zp = izp;
    l.nce.output_zp = ozp;
    l.nce.double_round = double_round;
    for (std::int64_t c = 0; c < shape4[3]; ++c) {  // C, or (nchw, per tensor) the data's channels
        l.q_bias.push_back(0);
        l.q_mult.push_back(at(mult, c));
        l.q_shift.push_back(at(shift, c));
    }
    l.inputs = {in};
    l.source = source_of(op);
    l.origin = op.origin;
    const int t = add_tensor(g.value(y).name, g.type(y).volume(), Role::activation, DataType::int8);
    l.output = dense_view(t, shape4);
    View yv = dense_view(t, g.type(y).shape);
    if (nchw) yv.strides = {l.output.strides[0], l.output.strides[3], l.output.strides[1], l.output.strides[2]};
    add_layer(std::move(l), y, yv);
    return true;
}

bool Builder::int_shave(const tosa::Op& op) {
    switch (op.kind) {
        case OpKind::RESCALE: {
            const IConst *mult = iconst(op.inputs[1]), *shift = iconst(op.inputs[2]), *izp = iconst(op.inputs[3]),
                         *ozp = iconst(op.inputs[4]);
            if (!mult || !shift || !izp || !ozp) return fail(op, "the multiplier, shift and zero points must be constants");
            if (op.get<bool>(AttrName::input_unsigned) || op.get<bool>(AttrName::output_unsigned))
                return fail(op, "unsigned input or output (uint8 has no TOSA type on this path)");
            const auto rm = op.get<tosa::RoundingMode>(AttrName::rounding_mode);
            if (rm == tosa::RoundingMode::INEXACT_ROUND) return fail(op, "INEXACT_ROUND rounding");
            if (rescale_on_nce(op, *mult, *shift, izp->items[0], ozp->items[0], rm == tosa::RoundingMode::DOUBLE_ROUND)) return true;
            if (spatial_sum_on_nce(op)) return true;
            ShaveKernel a = kernel("rescale");
            a.rescale = ShaveKernel::Rescale{mult->items, shift->items, izp->items[0], ozp->items[0], rm == tosa::RoundingMode::DOUBLE_ROUND};
            if (g.type(op.outputs[0]).dtype != tosa::DType::i16) return shave_on(op, std::move(a), {op.inputs[0]});
            // to i16 (held in int32): the rescale, then TOSA's saturation to the i16 range
            auto x = view_of(op.inputs[0]);
            if (!x) return fail(op, "the operand has no memory form");
            const ValueId y = op.outputs[0];
            const auto& ys = g.type(y).shape;
            View r = shave_layer(std::move(a), {*x}, ys, op, g.value(y).name + ".wide", DataType::int32);
            ShaveKernel saturate = kernel("clamp");
            saturate.clamp_int = std::array<std::int64_t, 2>{-32768, 32767};
            r = shave_layer(std::move(saturate), {r}, ys, op, g.value(y).name, DataType::int32);
            views[y] = r;
            producer_layer[y] = int(m.layers.size()) - 1;
            return true;
        }
        case OpKind::MUL: {
            const IConst* sh = iconst(op.inputs[2]);
            if (!sh || sh->items.empty() || sh->items[0] != 0) return fail(op, "an integer MUL with a shift (the SHAVE mul takes none)");
            return shave(op, kernel("mul"));
        }
        case OpKind::ADD:
        case OpKind::SUB:
        case OpKind::MAXIMUM:
        case OpKind::MINIMUM:
        case OpKind::SELECT:
        case OpKind::REDUCE_SUM:
        case OpKind::REDUCE_MAX:
        case OpKind::REDUCE_MIN: return shave(op, kernel(tosa::op_info(op.kind).mnemonic));
        case OpKind::CAST:
        case OpKind::NEGATE:
        case OpKind::ABS:
        case OpKind::REDUCE_PRODUCT:
            return fail(op, "an integer " + std::string(tosa::op_info(op.kind).mnemonic) +
                                " (the SHAVE kernel of that name computes the float form)");
        default: break;
    }
    // the TOSA kernel takes its operands' types from the buffers: an i16 value (held in int32)
    // would be read as i32
    for (ValueId v : op.inputs)
        if (g.type(v).dtype == tosa::DType::i16)
            return fail(op, "an i16 operand (held in int32 buffers; the TOSA kernel " + std::string(tosa::op_info(op.kind).mnemonic) + " would read i32)");
    if (g.type(op.outputs[0]).dtype == tosa::DType::i16)
        return fail(op, "an i16 result (held in int32 buffers; the TOSA kernel " + std::string(tosa::op_info(op.kind).mnemonic) + " would not saturate it)");
    return tosa_kernel(op);
}

bool Builder::tosa_kernel(const tosa::Op& op) {
    const tosa::OpInfo& info = tosa::op_info(op.kind);
    ShaveKernel k = kernel(info.mnemonic);
    for (const auto& [name, value] : op.attrs) {
        if (!std::holds_alternative<bool>(value) && !std::holds_alternative<std::int64_t>(value) && !std::holds_alternative<double>(value) &&
            !std::holds_alternative<std::vector<std::int64_t>>(value) && !std::holds_alternative<tosa::AccType>(value) &&
            !std::holds_alternative<tosa::NanMode>(value) && !std::holds_alternative<tosa::RoundingMode>(value) &&
            !std::holds_alternative<tosa::ResizeMode>(value))
            return fail(op, std::string("attribute '") + tosa::to_string(name) + "' has no SHAVE kernel form" + std::string(m.int8 ? " on the int8 path" : ""));
        k.attributes.emplace_back(name, value);
    }
    std::vector<ValueId> reads;
    for (std::size_t i = 0; i < op.inputs.size(); ++i) {
        const ValueId v = op.inputs[i];
        if (g.type(v).dtype == tosa::DType::shape) {
            const auto sh = const_shape(v);
            if (!sh || i >= info.inputs.size()) return fail(op, "a shape operand that is not a constant");
            k.shape_constants.emplace_back(info.inputs[i], *sh);
        } else {
            reads.push_back(v);
        }
    }
    return shave_on(op, std::move(k), reads);
}

bool Builder::matmul_int8(const tosa::Op& op) {
    // (A - za)(B - zb) = A B - za * colsum(B) - zb * rowsum(A - za): the MATMUL reads the i8
    // operands, a quarter of their int32 differences, which need not fit a tile beside a part of the
    // other operand (ConvNeXt's MLPs: B of 1536 x 384); the sums are exact in int32
    const ValueId y = op.outputs[0];
    const std::string name = g.value(y).name;
    std::vector<View> operands, zps;
    for (int i = 0; i < 2; ++i) {
        const IConst* zp = iconst(op.inputs[std::size_t(2 + i)]);
        auto v = view_of(op.inputs[std::size_t(i)]);
        if (!zp || zp->items.empty() || !v) return fail(op, "the zero points must be constants");
        operands.push_back(*v);
        if (zp->items[0] == 0) continue;
        auto z = view_of(op.inputs[std::size_t(2 + i)]);
        if (!z) return fail(op, "the zero point has no memory form");
        z->shape.assign(v->shape.size(), 1);
        z->strides.assign(v->shape.size(), es(*z));
        zps.resize(std::size_t(i) + 1);
        zps[std::size_t(i)] = *z;
    }
    const bool za = !zps.empty() && !zps[0].shape.empty(), zb = zps.size() > 1;
    if (!za && !zb) {
        views[y] = shave_layer(kernel("matmul"), operands, g.type(y).shape, op, name, value_type(y));
    } else {
        const std::size_t rank = operands[0].shape.size();
        View acc = shave_layer(kernel("matmul"), operands, g.type(y).shape, op, name + ".ab", DataType::int32);
        // the correction of one zero point: acc - z * sum(x along axis)
        auto correct = [&](const View& x, std::size_t axis, const View& z, const std::string& tag, bool last) {
            std::vector<std::int64_t> s = x.shape;
            s[axis] = 1;
            const View sum = shave_layer(kernel("reduce_sum", std::int64_t(axis)), {x}, s, op, name + "." + tag + "sum", DataType::int32);
            const View zs = shave_layer(kernel("mul"), {sum, z}, s, op, name + "." + tag + "zp", DataType::int32);
            acc = shave_layer(kernel("sub"), {acc, zs}, g.type(y).shape, op, last ? name : name + "." + tag, last ? value_type(y) : DataType::int32);
        };
        if (za) correct(operands[1], rank - 2, zps[0], "col", !zb);
        if (zb) {
            View a = operands[0];
            if (za) a = shave_layer(kernel("sub"), {a, zps[0]}, a.shape, op, name + ".a", DataType::int32);
            correct(a, rank - 1, zps[1], "row", true);
        }
        views[y] = acc;
    }
    producer_layer[y] = int(m.layers.size()) - 1;
    return true;
}

bool Builder::clamp_int(const tosa::Op& op) {
    auto bound = [&](AttrName n) -> std::optional<std::int64_t> {
        const tosa::Attr* a = op.attr(n);
        if (const auto* i = a ? std::get_if<std::int64_t>(a) : nullptr) return *i;
        return std::nullopt;
    };
    const auto lo_ = bound(AttrName::min_val), hi_ = bound(AttrName::max_val);
    if (!lo_ || !hi_) return fail(op, "an integer CLAMP without integer bounds");
    ShaveKernel k = kernel("clamp");
    k.clamp_int = std::array<std::int64_t, 2>{*lo_, *hi_};
    return shave(op, std::move(k));
}

}  // namespace nnef::vpu::ir::assign_executors_impl
