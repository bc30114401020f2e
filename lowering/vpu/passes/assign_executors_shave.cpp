// assign-executors (assign_executors.hpp): SHAVE kernels (what the NCE cannot run), gathers with
// constant indices and concats (copies).
#include "lowering/vpu/passes/assign_executors.hpp"

namespace nnef::vpu::ir::assign_executors_impl {

View Builder::shave_layer(ShaveKernel kernel, std::vector<View> inputs, const std::vector<std::int64_t>& shape, const tosa::Op& op,
                 const std::string& name, DataType dt) {
    Layer l;
    l.exec = Exec::shave;
    l.shave = std::move(kernel);
    l.inputs = std::move(inputs);
    l.source = source_of(op);
    l.origin = op.origin;
    std::int64_t n = 1;
    for (auto d : shape) n *= d;
    l.output = dense_view(add_tensor(name, n, Role::activation, dt), shape);
    m.layers.push_back(l);
    return l.output;
}

bool Builder::global_pool(const tosa::Op& op, const View& x) {
    const bool avg = op.kind == OpKind::AVG_POOL2D;
    const std::string red = avg ? "reduce_sum" : "reduce_max";
    const ValueId y = op.outputs[0];
    const std::string name = g.value(y).name;
    const std::int64_t H = x.shape[1], W = x.shape[2], C = x.shape[3];
    View v = shave_layer(kernel(red, 1), {x}, {1, 1, W, C}, op, name + ".rows");
    v = shave_layer(kernel(red, 2), {v}, {1, 1, 1, C}, op, avg ? name + ".sum" : name);
    if (avg) {
        const int t = add_tensor(name + ".scale", 1, Role::constant);
        m.tensors[std::size_t(t)].data = std::make_shared<std::vector<std::uint8_t>>(fp16_bytes({1.0f / float(H * W)}));
        v = shave_layer(kernel("mul"), {v, dense_view(t, {1, 1, 1, 1})}, {1, 1, 1, C}, op, name);
        // its exact float32 item, as for a TOSA constant (fuse-post-ops puts it in an NCE table)
        if (!m.int8) m.layers.back().shave.constant = ShaveKernel::Constant{1, {1.0f / float(H * W)}};
    }
    views[y] = v;
    producer_layer[y] = int(m.layers.size()) - 1;
    return true;
}

bool Builder::conv_on_shave(const tosa::Op& op, View x) {
    const auto w = view_of(op.inputs[1]), b = view_of(op.inputs[2]);
    if (!w || !b) return fail(op, "the weights or bias have no memory form");
    const auto& pad = op.get<std::vector<std::int64_t>>(AttrName::pad);
    const auto& stride = op.get<std::vector<std::int64_t>>(AttrName::stride);
    if (w->shape[1] != 1 || w->shape[2] != 1 || stride != std::vector<std::int64_t>{1, 1} || pad != std::vector<std::int64_t>{0, 0, 0, 0})
        return fail(op, "computed weights: the NCE needs constant weights, and SHAVE runs a convolution with computed weights only as 1x1, "
                        "stride 1, no padding (a matmul)");
    const ValueId y = op.outputs[0];
    const std::string name = g.value(y).name;
    const auto& ys = g.type(y).shape;
    const std::int64_t M = ys[0] * ys[1] * ys[2], C = x.shape[3], O = ys[3];
    if (!x.dense(2)) x = materialize(x, name + ".input", Role::activation, source_of(op));
    View a = x;
    a.shape = {1, M, C};
    a.strides = dense_strides(a.shape, 2);
    View wt = *w;  // [O,1,1,C] -> [1,C,O]
    wt.shape = {1, C, O};
    wt.strides = {w->strides[0] * O, w->strides[3], w->strides[0]};
    View bias = *b;  // [n] -> [1,1,n]
    const std::int64_t n = b->shape.empty() ? 1 : b->shape.back();
    const std::int64_t bs = b->shape.empty() ? 2 : b->strides.back();
    bias.shape = {1, 1, n};
    bias.strides = {bs * n, bs * n, bs};
    const View mm = shave_layer(kernel("matmul"), {a, wt}, {1, M, O}, op, name + ".matmul");
    const View sum = shave_layer(kernel("add"), {mm, bias}, {1, M, O}, op, name);
    views[y] = dense_view(sum.tensor, ys);
    producer_layer[y] = int(m.layers.size()) - 1;
    return true;
}

bool Builder::bool_result(OpKind k) {
    switch (k) {
        case OpKind::GREATER:
        case OpKind::GREATER_EQUAL:
        case OpKind::EQUAL:
        case OpKind::LOGICAL_AND:
        case OpKind::LOGICAL_OR:
        case OpKind::LOGICAL_XOR:
        case OpKind::LOGICAL_NOT: return true;
        default: return false;
    }
}

ShaveKernel Builder::kernel(std::string name, std::optional<std::int64_t> axis) {
    ShaveKernel k;
    k.name = std::move(name);
    k.axis = axis;
    return k;
}

bool Builder::shave(const tosa::Op& op, ShaveKernel k) {
    // An operator with shape operands (PAD's padding, RESIZE's scale, TILE's multiples) has no
    // native kernel: the TOSA kernel, with the shape operands as constants and its attributes.
    for (ValueId v : op.inputs)
        if (g.type(v).dtype == tosa::DType::shape) return tosa_kernel(op);
    std::size_t n_in = op.inputs.size();
    if (op.kind == OpKind::MUL) n_in = 2;  // the shift operand is integer-only
    if (op.kind == OpKind::MATMUL) n_in = 2;   // and the zero points (0 on the float path)
    if (op.kind == OpKind::NEGATE) n_in = 1;
    std::vector<ValueId> reads;
    for (std::size_t i = 0; i < n_in; ++i)
        if (g.type(op.inputs[i]).dtype != tosa::DType::shape) reads.push_back(op.inputs[i]);
    if (const auto* ax = op.attr(AttrName::axis)) k.axis = std::get<std::int64_t>(*ax);
    return shave_on(op, std::move(k), reads);
}

bool Builder::shave_on(const tosa::Op& op, ShaveKernel k, const std::vector<ValueId>& reads) {
    Layer l;
    l.exec = Exec::shave;
    l.shave = std::move(k);
    for (ValueId r : reads) {
        auto v = view_of(r);
        if (!v) return fail(op, "an operand has no memory form");
        l.inputs.push_back(*v);
    }
    l.source = source_of(op);
    l.origin = op.origin;
    if (op.outputs.size() != 1) return fail(op, "SHAVE kernels have one result");
    const ValueId y = op.outputs[0];
    // the float path's binary kernels with one per-tensor or per-channel constant operand: its
    // exact float32 items (what fuse-post-ops folds into an NCE producer's bias and weights)
    if (!m.int8 && reads.size() == 2 && (op.kind == OpKind::ADD || op.kind == OpKind::SUB || op.kind == OpKind::MUL ||
                                         op.kind == OpKind::MINIMUM || op.kind == OpKind::MAXIMUM)) {
        const FConst *c0 = fconst(reads[0]), *c1 = fconst(reads[1]);
        const FConst* c = c0 ? c1 ? nullptr : c0 : c1;
        bool per_channel = c && !c->items.empty();
        for (std::size_t i = 0; per_channel && i + 1 < c->shape.size(); ++i) per_channel = c->shape[i] == 1;
        if (per_channel) l.shave.constant = ShaveKernel::Constant{c == c0 ? 0 : 1, c->items};
    }
    // A bool result (comparisons, logical operators) is stored as fp16 1.0 / 0.0: the target's
    // buffers have no bool type, and its float path is fp16 (docs/vpu-compiler.md).
    const bool bool_kernel = g.type(y).dtype == tosa::DType::bool_ && bool_result(op.kind);
    const auto dt = data_type(g.type(y).dtype);
    if (!dt && !bool_kernel)
        return fail(op, "a " + std::string(tosa::to_string(g.type(y).dtype)) + " result (" +
                            (m.int8 ? "the int8 path stores i8 and i32" : "this compiler's PRO-FP path is fp16") + ")");
    l.output = dense_view(add_tensor(g.value(y).name, g.type(y).volume(), Role::activation, dt.value_or(DataType::fp16)), g.type(y).shape);
    const View ov = l.output;
    if (m.int8) vector_as_nhwc(op, l);  // (the value keeps its own view `ov`)
    else tokens_as_plane(op, l);
    add_layer(std::move(l), y, ov);
    return true;
}

bool Builder::clamp(const tosa::Op& op) {
    if (m.int8 && !tosa::is_float(g.type(op.outputs[0]).dtype)) return clamp_int(op);
    ShaveKernel k = kernel("clamp");
    k.clamp_float = std::array<double, 2>{op.get<double>(AttrName::min_val), op.get<double>(AttrName::max_val)};
    return shave(op, std::move(k));
}

bool Builder::gather(const tosa::Op& op) {
    const FConst* idx = fconst(op.inputs[1]);
    if (!idx) return shave(op, kernel("gather"));
    const auto x = view_of(op.inputs[0]);
    if (!x) return fail(op, "the values have no memory form");
    const ValueId y = op.outputs[0];
    const auto& ys = g.type(y).shape;
    const std::int64_t N = ys[0], W = ys[1], K = x->shape[1];
    for (float k : idx->items)
        if (k < 0 || k >= float(K) || std::floor(k) != k) return fail(op, "index " + std::to_string(k) + " outside [0, " + std::to_string(K) + ")");
    auto row = [&](std::int64_t n, std::int64_t w) {
        View r = *x;
        r.offset += n * x->strides[0] + std::int64_t(idx->items[std::size_t(n * W + w)]) * x->strides[1];
        r.shape = {1, 1, ys[2]};
        return r;
    };
    if (N * W == 1) {
        views[y] = row(0, 0);
        return true;
    }
    const View out = dense_view(add_tensor(g.value(y).name, g.type(y).volume(), Role::activation, value_type(y)), ys);
    for (std::int64_t n = 0; n < N; ++n)
        for (std::int64_t w = 0; w < W; ++w) {
            Layer l;
            l.exec = Exec::copy;
            l.inputs = {row(n, w)};
            l.output = out;
            l.output.shape = {1, 1, ys[2]};
            l.output.offset = out.offset + n * out.strides[0] + w * out.strides[1];
            l.source = source_of(op);
            l.origin = op.origin;
            m.layers.push_back(std::move(l));
        }
    views[y] = out;
    return true;
}

bool Builder::concat(const tosa::Op& op) {
    const ValueId y = op.outputs[0];
    const auto& ys = g.type(y).shape;
    const std::size_t axis = std::size_t(op.get<std::int64_t>(AttrName::axis));
    const int t = add_tensor(g.value(y).name, g.type(y).volume(), Role::activation, value_type(y));
    const View out = dense_view(t, ys);
    std::int64_t at = 0;
    for (ValueId v : op.inputs) {
        auto iv = view_of(v);
        if (!iv) return fail(op, "an operand has no memory form");
        Layer l;
        l.exec = Exec::copy;
        l.inputs = {*iv};
        l.output = out;
        l.output.shape = iv->shape;
        l.output.offset = out.offset + at * out.strides[axis];
        l.source = source_of(op);
        l.origin = op.origin;
        m.layers.push_back(std::move(l));
        at += g.type(v).shape[axis];
    }
    views[y] = out;
    return true;
}

}  // namespace nnef::vpu::ir::assign_executors_impl
