// assign-executors (lowering/vpu/ir.hpp; the pieces: assign_executors.hpp): the walk over the TOSA
// graph, operands' views and constants, graph inputs, outputs and variables.
#include "lowering/vpu/passes/assign_executors.hpp"

#include "lowering/tosa/interpreter.hpp"

namespace nnef::vpu::ir {

namespace assign_executors_impl {

std::optional<FConst> to_const(const tosa::ConstData& c, float) {
    FConst f;
    f.shape = c.type.shape;
    const std::size_t n = std::size_t(c.type.volume());
    // (the type decided once: a large model's weights are converted item by item here)
    auto convert = [&](const auto* from, auto to_float) {
        f.items.reserve(n);
        for (std::size_t i = 0; i < n; ++i) f.items.push_back(to_float(from[i]));
    };
    auto plain = [](auto x) { return float(x); };
    switch (c.type.dtype) {
        case tosa::DType::fp32: f.items.assign(c.items<float>(), c.items<float>() + n); break;
        case tosa::DType::fp16: convert(c.items<std::uint16_t>(), tosa::fp16_to_fp32); break;
        case tosa::DType::bf16: convert(c.items<std::uint16_t>(), tosa::bf16_to_fp32); break;
        case tosa::DType::i8: convert(c.items<std::int8_t>(), plain); break;
        case tosa::DType::i16: convert(c.items<std::int16_t>(), plain); break;
        case tosa::DType::i32: convert(c.items<std::int32_t>(), plain); break;
        case tosa::DType::bool_: convert(c.items<std::uint8_t>(), plain); break;
        default: return std::nullopt;
    }
    return f;
}

std::optional<IConst> to_const(const tosa::ConstData& c, std::int64_t) {
    IConst f;
    f.shape = c.type.shape;
    const std::int64_t n = c.type.volume();
    f.items.resize(std::size_t(n));
    for (std::int64_t i = 0; i < n; ++i) {
        std::int64_t v = 0;
        switch (c.type.dtype) {
            case tosa::DType::i8: v = c.items<std::int8_t>()[i]; break;
            case tosa::DType::i16: v = c.items<std::int16_t>()[i]; break;
            case tosa::DType::i32: v = c.items<std::int32_t>()[i]; break;
            case tosa::DType::bool_: v = c.items<std::uint8_t>()[i]; break;
            default: return std::nullopt;
        }
        f.items[std::size_t(i)] = v;
    }
    return f;
}

std::optional<FConst> Builder::evaluate(const tosa::Op& op) {
    switch (op.kind) {
        case OpKind::CONST:
        case OpKind::CONST_SHAPE:
        case OpKind::CUSTOM:
        case OpKind::COND_IF:
        case OpKind::WHILE_LOOP:
        case OpKind::VARIABLE:
        case OpKind::VARIABLE_READ:
        case OpKind::VARIABLE_WRITE: return std::nullopt;
        default: break;
    }
    if (op.inputs.empty() || op.outputs.size() != 1 || !tosa::is_float(g.type(op.outputs[0]).dtype) ||
        g.type(op.outputs[0]).volume() > (std::int64_t(1) << 20))
        return std::nullopt;
    tosa::Graph k;
    k.name = "fold";
    k.profile = g.profile;
    std::vector<ValueId> in;
    for (ValueId v : op.inputs) {
        const tosa::TensorType& t = g.type(v);
        if (t.dtype == tosa::DType::shape) {
            const auto sh = const_shape(v);
            if (!sh) return std::nullopt;
            in.push_back(k.add_const_shape(0, *sh));
            continue;
        }
        const FConst* c = fconst(v);
        if (!c) return std::nullopt;
        auto data = tosa::ConstData::allocate(t);
        if (data->type.volume() != std::int64_t(c->items.size())) return std::nullopt;
        for (std::size_t i = 0; i < c->items.size(); ++i)
            if (!tosa::set_number_item(*data, std::int64_t(i), c->items[i])) return std::nullopt;
        in.push_back(k.add_const(0, data));
    }
    const ValueId y = k.add_op(0, op.kind, in, {g.type(op.outputs[0])}, op.attrs).outputs[0];
    k.main().outputs = {y};
    Diagnostics quiet{0};
    const auto out = tosa::interpret(k, {}, {}, quiet);
    if (!out || out->size() != 1) return std::nullopt;  // the SHAVE kernel reports it at run time
    return to_const(*(*out)[0], float{});
}

const tosa::Op* Builder::producer(ValueId v) const {
    const auto& p = producers[v];
    if (p.block != 0) return nullptr;
    return &g.main().ops[p.index];
}

std::optional<std::vector<std::int64_t>> Builder::const_shape(ValueId v) const {
    const tosa::Op* sp = producer(v);
    const tosa::Attr* a = sp && sp->kind == OpKind::CONST_SHAPE ? sp->attr(AttrName::values) : nullptr;
    if (!a || !std::holds_alternative<std::vector<std::int64_t>>(*a)) return std::nullopt;
    return std::get<std::vector<std::int64_t>>(*a);
}

std::string Builder::source_of(const tosa::Op& op) const {
    if (op.origin == tosa::no_origin) return {};
    const tosa::Origin& o = g.origins[op.origin];
    return o.tensor.empty() ? o.operation : o.tensor;
}

bool Builder::fail(const tosa::Op& op, const std::string& why) {
    SourceRange range;
    std::string from;
    if (op.origin != tosa::no_origin) {
        const tosa::Origin& o = g.origins[op.origin];
        range = o.provenance.range;
        if (!o.operation.empty())  // empty: read from MLIR (the range says where)
            from = " (from NNEF operation '" + o.operation + "'" + (o.tensor.empty() ? "" : " computing '" + o.tensor + "'") + ")";
    }
    diags.error(Stage::vpu, "unsupported-operation",
                std::string("TOSA ") + tosa::to_string(op.kind) + from + " cannot run on the VPU: " + why, range);
    return false;
}

int Builder::add_tensor(std::string name, std::int64_t elements, Role role, DataType dt) {
    Tensor t;
    t.name = std::move(name);
    t.dtype = dt;
    t.role = role;
    t.bytes = elements * element_size(dt);
    m.tensors.push_back(std::move(t));
    return int(m.tensors.size()) - 1;
}

std::optional<DataType> Builder::data_type(tosa::DType t) const {
    if (tosa::is_float(t)) return DataType::fp16;
    if (!m.int8) return std::nullopt;
    if (t == tosa::DType::i8) return DataType::int8;
    // i16 values (16-bit intermediate grids) are stored widened in int32 buffers: the target has
    // no 16-bit type; every kernel producing one saturates to the i16 range (int_shave)
    if (t == tosa::DType::i32 || t == tosa::DType::i16) return DataType::int32;
    return std::nullopt;
}

View Builder::dense_view(int tensor, const std::vector<std::int64_t>& shape) const {
    View v;
    v.tensor = tensor;
    v.shape = shape;
    v.strides = dense_strides(shape, element_size(m.tensors[std::size_t(tensor)].dtype));
    return v;
}

std::optional<View> Builder::view_of(ValueId v) {
    if (views[v]) return views[v];
    if (m.int8 && !tosa::is_float(g.type(v).dtype)) {
        // the int8 path: an integer constant in its own type (int8 codes, int32 biases)
        const IConst* c = iconst(v);
        const auto dt = data_type(g.type(v).dtype);
        if (!c || !dt) return std::nullopt;
        const int t = add_tensor(g.value(v).name.empty() ? "const" + std::to_string(v) : g.value(v).name, std::int64_t(c->items.size()),
                                 Role::constant, *dt);
        auto bytes = std::make_shared<std::vector<std::uint8_t>>(std::size_t(m.tensors[std::size_t(t)].bytes));
        for (std::size_t i = 0; i < c->items.size(); ++i) {
            if (*dt == DataType::int8) (*bytes)[i] = std::uint8_t(std::int8_t(c->items[i]));
            else {
                const std::int32_t x = std::int32_t(c->items[i]);
                std::memcpy(bytes->data() + 4 * i, &x, 4);
            }
        }
        m.tensors[std::size_t(t)].data = std::move(bytes);
        views[v] = dense_view(t, g.type(v).shape);
        return views[v];
    }
    if (const FConst* f = fconst(v)) {
        const int t = add_tensor(g.value(v).name.empty() ? "const" + std::to_string(v) : g.value(v).name,
                                 std::int64_t(f->items.size()), Role::constant);
        m.tensors[std::size_t(t)].data = std::make_shared<std::vector<std::uint8_t>>(fp16_bytes(f->items));
        views[v] = dense_view(t, g.type(v).shape);
        return views[v];
    }
    return std::nullopt;
}

int Builder::add_layer(Layer l, ValueId out, const View& out_view) {
    m.layers.push_back(std::move(l));
    views[out] = out_view;
    producer_layer[out] = int(m.layers.size()) - 1;
    return producer_layer[out];
}

View Builder::materialize(const View& from, const std::string& name, Role role, const std::string& source) {
    const int t = add_tensor(name, from.elements(), role, m.tensors[std::size_t(from.tensor)].dtype);
    Layer l;
    l.exec = Exec::copy;
    l.inputs = {from};
    l.output = dense_view(t, from.shape);
    l.source = source;
    m.layers.push_back(l);
    return l.output;
}

View Builder::transposed(const View& v, const tosa::Op& transpose) {
    const auto& perms = transpose.get<std::vector<std::int64_t>>(AttrName::perms);
    View r = v;
    for (std::size_t i = 0; i < perms.size(); ++i) {
        r.shape[i] = v.shape[std::size_t(perms[i])];
        r.strides[i] = v.strides[std::size_t(perms[i])];
    }
    return r;
}

View Builder::as_nhwc4(const View& v) {
    // [1,H,C] -> [1,H,1,C]
    View r = v;
    r.shape = {v.shape[0], v.shape[1], 1, v.shape[2]};
    r.strides = {v.strides[0], v.strides[1], v.strides[2] * v.shape[2], v.strides[2]};
    return r;
}

std::int64_t Builder::plane_width(std::int64_t H) {
    // the DPU works on 4x4 cuboids of the output plane: H rows as H x 1 pad every row to 4
    // columns (ConvNeXt's MLP of 3136 rows cost four times its work); as H' x W' they pad to
    // ceil4(H') x ceil4(W'), exact for 3136 = 56 x 56. The fewest padded elements, then the
    // squarest plane.
    auto up4 = [](std::int64_t n) { return (n + 3) / 4 * 4; };
    std::int64_t best = 1;
    for (std::int64_t w = 1; w <= H; ++w) {
        if (H % w != 0) continue;
        const std::int64_t c = up4(H / w) * up4(w), cb = up4(H / best) * up4(best);
        const std::int64_t d = std::abs(H / w - w), db = std::abs(H / best - best);
        if (c < cb || (c == cb && d < db)) best = w;
    }
    return best;
}

View Builder::plane_of(const View& v, std::int64_t H) {
    View r = v;
    if (v.shape[1] == H) {
        const std::int64_t w = plane_width(H);
        r.shape = {v.shape[0], H / w, w, v.shape[2]};
        r.strides = {v.strides[0], v.strides[1] * w, v.strides[1], v.strides[2]};
    } else {  // [1, 1, C]: broadcast over the plane
        r.shape = {v.shape[0], 1, 1, v.shape[2]};
        r.strides = {v.strides[0], v.strides[1], v.strides[1], v.strides[2]};
    }
    return r;
}

View Builder::as_plane(const View& v) { return plane_of(v, v.shape[1]); }

bool Builder::run() {
    const tosa::Block& main = g.main();
    views.assign(g.values.size(), std::nullopt);
    producer_layer.assign(g.values.size(), -1);
    uses.assign(g.values.size(), 0);
    producers = g.producers();
    if (g.blocks.size() > 1) {
        diags.error(Stage::vpu, "unsupported-operation", "control flow (COND_IF / WHILE_LOOP) cannot run on the VPU");
        return false;
    }
    users.assign(g.values.size(), {});
    done.assign(main.ops.size(), false);
    for (std::size_t k = 0; k < main.ops.size(); ++k)
        for (ValueId v : main.ops[k].inputs) {
            ++uses[v];
            users[v].push_back(k);
        }
    for (ValueId v : main.outputs) ++uses[v];
    // Graph inputs: NHWC storage when the only use is the legalizer's transpose to NHWC.
    for (ValueId v : main.inputs) {
        const auto& shape = g.type(v).shape;
        const auto dt = data_type(g.type(v).dtype);
        if (!dt) {
            diags.error(Stage::vpu, "unsupported-type", "graph input '" + g.value(v).name + "' is " +
                                                            tosa::to_string(g.type(v).dtype) +
                                                            (m.int8 ? "; the int8 path takes i8 and i32 inputs" : "; this compiler takes float graphs (fp16)"));
            return false;
        }
        bool nhwc = false;
        if (shape.size() == 4) {
            for (const auto& op : main.ops)
                if (op.kind == OpKind::TRANSPOSE && op.inputs[0] == v &&
                    op.get<std::vector<std::int64_t>>(AttrName::perms) == std::vector<std::int64_t>{0, 2, 3, 1})
                    nhwc = true;
        }
        IoEntry e;
        e.name = g.value(v).name;
        e.dtype = *dt;
        const int t = add_tensor(e.name, g.type(v).volume(), Role::input, *dt);
        if (nhwc) {
            e.shape = {shape[0], shape[2], shape[3], shape[1]};
            e.layout = "NHWC";
            View s = dense_view(t, e.shape);
            View vv;
            vv.tensor = t;
            vv.shape = shape;
            vv.strides = {s.strides[0], s.strides[3], s.strides[1], s.strides[2]};
            views[v] = vv;
        } else {
            e.shape = shape;
            e.layout = identity_layout(shape.size());
            views[v] = dense_view(t, shape);
        }
        e.buffer = std::to_string(t);
        m.inputs.push_back(e);
        m.input_tensors.push_back(t);
    }
    if (m.int8)
        for (std::size_t k = 0; k < main.ops.size(); ++k) plan_eltwise(k);
    else
        for (std::size_t k = 0; k < main.ops.size(); ++k) plan_sign(k);
    for (std::size_t k = 0; k < main.ops.size(); ++k) {
        if (diags.has_errors()) return false;
        if (!done[k] && !one(main.ops[k])) return false;
    }
    for (ValueId v : main.outputs) {
        auto ov = view_of(v);
        if (!ov) {
            diags.error(Stage::vpu, "unsupported-operation", "graph output '" + g.value(v).name + "' has no memory form");
            return false;
        }
        output(v, *ov);
    }
    return !diags.has_errors();
}

bool Builder::variable(const tosa::Op& op) {
    const std::string& name = op.get<std::string>(AttrName::name);
    const auto& shape = op.get<std::vector<std::int64_t>>(AttrName::var_shape);
    if (!tosa::is_float(op.get<tosa::DType>(AttrName::type))) return fail(op, "a variable that is not float has no fp16 form");
    if (state.count(name)) return fail(op, "the variable is declared twice");
    std::int64_t n = 1;
    for (std::int64_t d : shape) n *= d;
    IoEntry e;
    e.name = name;
    e.dtype = DataType::fp16;
    e.shape = shape;
    e.layout = identity_layout(shape.size());
    const int t = add_tensor(name, n, Role::input);
    e.buffer = std::to_string(t);
    m.inputs.push_back(e);
    m.input_tensors.push_back(t);
    state.emplace(name, dense_view(t, shape));
    return true;
}

std::string Builder::identity_layout(std::size_t rank) {
    static const char* const l[] = {"", "C", "NC", "NCW", "NCHW", "NCDHW"};
    if (rank <= 5) return l[rank];
    std::string s;
    for (std::size_t i = 0; i < rank; ++i) s += char('A' + i);
    return s;
}

void Builder::output(ValueId v, View ov, const std::string& output_name) {
    const std::string name = output_name.empty() ? g.value(v).name : output_name;
    IoEntry e;
    e.name = name;
    const auto& shape = g.type(v).shape;
    int t = ov.tensor;
    Tensor* T = &m.tensors[std::size_t(t)];
    e.dtype = T->dtype;
    const std::int64_t eb = es(ov);
    const bool whole = ov.offset == 0 && ov.elements() * eb == T->bytes;
    const bool owned = T->role == Role::activation;
    if (whole && owned && ov.dense(eb)) {
        e.shape = shape;
        e.layout = identity_layout(shape.size());
    } else if (whole && owned && shape.size() == 4 && ov.strides[1] == eb && ov.strides[3] == ov.strides[1] * shape[1] &&
               ov.strides[2] == ov.strides[3] * shape[3] && ov.strides[0] == ov.strides[2] * shape[2]) {
        e.shape = {shape[0], shape[2], shape[3], shape[1]};
        e.layout = "NHWC";
    } else {
        ov = materialize(ov, name, Role::output, name);
        t = ov.tensor;
        e.shape = shape;
        e.layout = identity_layout(shape.size());
    }
    m.tensors[std::size_t(t)].role = Role::output;
    m.tensors[std::size_t(t)].name = name;
    e.buffer = std::to_string(t);
    m.outputs.push_back(e);
    m.output_tensors.push_back(t);
}

bool Builder::one(const tosa::Op& op) {
    const ValueId y = op.outputs.empty() ? tosa::no_value : op.outputs[0];
    switch (op.kind) {
        case OpKind::CONST:
        case OpKind::CONST_SHAPE: return true;
        default: break;
    }
    // a constant computed from constants is folded (evaluate), whatever the operator
    if (y != tosa::no_value && tosa::is_float(g.type(y).dtype) && fconst(y)) return true;
    switch (op.kind) {
        case OpKind::IDENTITY:
        case OpKind::RESHAPE:
        case OpKind::TRANSPOSE:
        case OpKind::SLICE: {
            if (fconst(y)) return true;
            if (op.kind == OpKind::RESHAPE && channel_shuffle(op)) return true;
            auto x = view_of(op.inputs[0]);
            if (!x) return fail(op, "the operand has no memory form");
            View v = *x;
            const auto& ys = g.type(y).shape;
            if (op.kind == OpKind::TRANSPOSE) {
                v = transposed(v, op);
            } else if (op.kind == OpKind::RESHAPE) {
                if (!v.dense(es(v))) v = materialize(v, g.value(y).name, Role::activation, source_of(op));
                v.shape = ys;
                v.strides = dense_strides(ys, es(v));
            } else if (op.kind == OpKind::SLICE) {
                const auto start = const_shape(op.inputs[1]);
                if (!start) return fail(op, "the start is not a constant");
                for (std::size_t i = 0; i < ys.size(); ++i) v.offset += (*start)[i] * v.strides[i];
                v.shape = ys;
            }
            views[y] = v;
            return true;
        }
        case OpKind::CONV2D: return conv(op, false);
        case OpKind::DEPTHWISE_CONV2D: return conv(op, true);
        case OpKind::MAX_POOL2D:
        case OpKind::AVG_POOL2D: return pool(op);
        case OpKind::MATMUL: return matmul(op);
        case OpKind::ADD:
        case OpKind::SUB:
        case OpKind::MUL: return eltwise(op);
        case OpKind::CLAMP: return clamp(op);
        case OpKind::CONCAT: return channel_shuffle(op) || concat(op);
        case OpKind::GATHER: return fconst(y) ? true : gather(op);
        case OpKind::CUSTOM:
            return fail(op, "custom operator '" + op.get<std::string>(AttrName::operator_name) + "' has no NCE form and no SHAVE kernel");
        case OpKind::COND_IF:
        case OpKind::WHILE_LOOP: return fail(op, "control flow has no task form");
        case OpKind::VARIABLE: return variable(op);
        case OpKind::VARIABLE_READ: {
            const auto it = state.find(op.get<std::string>(AttrName::name));
            if (it == state.end()) return fail(op, "the variable is not declared before it is read");
            views[y] = it->second;
            return true;
        }
        case OpKind::VARIABLE_WRITE: {
            const std::string& name = op.get<std::string>(AttrName::name);
            auto v = view_of(op.inputs[0]);
            if (!state.count(name)) return fail(op, "the variable is not declared before it is written");
            if (!v) return fail(op, "the operand has no memory form");
            output(op.inputs[0], *v, name);
            return true;
        }
        default: break;
    }
    if (fconst(y)) return true;
    if (m.int8 && !op.outputs.empty() && !tosa::is_float(g.type(y).dtype)) return int_shave(op);
    if (const std::optional<bool> r = unary(op)) return *r;
    return shave(op, kernel(tosa::op_info(op.kind).mnemonic));
}

}  // namespace assign_executors_impl

bool assign_executors(Module& m, Diagnostics& diags) {
    m.int8 = m.graph->profile == tosa::Profile::pro_int;
    assign_executors_impl::Builder b(m, diags);
    return b.run();
}

}  // namespace nnef::vpu::ir
