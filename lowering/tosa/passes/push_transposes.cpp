#include "lowering/tosa/passes/passes.hpp"

namespace nnef::tosa::passes {

namespace tosa_passes_push_transposes_cpp {

enum class Role : std::uint8_t { none, elementwise, reduction };

// The tensor operands of an element-wise operator (others: zero points, shifts), or a reduction.
Role classify(OpKind k, std::vector<std::size_t>& operands) {
    switch (k) {
        case OpKind::CLAMP: case OpKind::ERF: case OpKind::SIGMOID: case OpKind::TANH: case OpKind::ABS:
        case OpKind::BITWISE_NOT: case OpKind::CEIL: case OpKind::CLZ: case OpKind::COS: case OpKind::EXP:
        case OpKind::FLOOR: case OpKind::LOG: case OpKind::LOGICAL_NOT: case OpKind::NEGATE: case OpKind::RECIPROCAL:
        case OpKind::RSQRT: case OpKind::SIN: case OpKind::CAST: case OpKind::IDENTITY:
            operands = {0};
            return Role::elementwise;
        case OpKind::ADD: case OpKind::SUB: case OpKind::MUL: case OpKind::POW: case OpKind::MAXIMUM:
        case OpKind::MINIMUM: case OpKind::EQUAL: case OpKind::GREATER: case OpKind::GREATER_EQUAL:
        case OpKind::LOGICAL_AND: case OpKind::LOGICAL_OR: case OpKind::LOGICAL_XOR: case OpKind::BITWISE_AND:
        case OpKind::BITWISE_OR: case OpKind::BITWISE_XOR: case OpKind::INTDIV: case OpKind::ARITHMETIC_RIGHT_SHIFT:
        case OpKind::LOGICAL_LEFT_SHIFT: case OpKind::LOGICAL_RIGHT_SHIFT:
            operands = {0, 1};
            return Role::elementwise;
        case OpKind::SELECT:
            operands = {0, 1, 2};
            return Role::elementwise;
        case OpKind::REDUCE_ALL: case OpKind::REDUCE_ANY: case OpKind::REDUCE_MAX: case OpKind::REDUCE_MIN:
        case OpKind::REDUCE_PRODUCT: case OpKind::REDUCE_SUM:
            operands = {0};
            return Role::reduction;
        default: return Role::none;
    }
}

}  // namespace tosa_passes_push_transposes_cpp

bool push_transposes(Graph& g, Diagnostics&) {
    using namespace tosa_passes_push_transposes_cpp;
    std::vector<Op> ops = std::move(g.main().ops);
    std::vector<Op>& out = g.main().ops;
    out.clear();
    std::vector<std::int64_t> prod(g.values.size(), -1);  // value -> index in `out`
    auto emit = [&](Op op) {
        for (ValueId v : op.outputs) {
            if (v >= prod.size()) prod.resize(g.values.size(), -1);
            prod[v] = std::int64_t(out.size());
        }
        out.push_back(std::move(op));
    };
    auto producer = [&](ValueId v) -> const Op* {
        return v < prod.size() && prod[v] >= 0 ? &out[std::size_t(prod[v])] : nullptr;
    };
    for (Op& op : ops) {
        std::vector<std::size_t> operands;
        const Role what = classify(op.kind, operands);
        if (what == Role::none || op.outputs.size() != 1) {
            emit(std::move(op));
            continue;
        }
        // the common permutation of the transposed operands; the others must be constants
        std::vector<std::int64_t> perms;
        bool ok = true, any = false;
        for (std::size_t i : operands) {
            const Op* p = producer(op.inputs[i]);
            if (p && p->kind == OpKind::TRANSPOSE) {
                const auto& q = p->get<std::vector<std::int64_t>>(AttrName::perms);
                if (!any) perms = q;
                ok = ok && q == perms;
                any = true;
            } else if (!(p && p->kind == OpKind::CONST)) {
                ok = false;
            }
        }
        if (!any || !ok) {
            emit(std::move(op));
            continue;
        }
        const std::vector<std::int64_t> inv = inverse(perms);
        for (std::size_t i : operands) {
            const Op* p = producer(op.inputs[i]);
            if (p->kind == OpKind::TRANSPOSE) {
                op.inputs[i] = p->inputs[0];
                continue;
            }
            const ConstPtr& data = p->get<ConstPtr>(AttrName::values);
            if (data->type.rank() != perms.size()) {
                ok = false;
                break;
            }
            if (data->type.volume() == 1) continue;  // the same items in any order
            const ConstPtr permuted = permute(*data, inv);
            Op c;
            c.kind = OpKind::CONST;
            c.origin = p->origin;
            c.outputs.push_back(g.add_value(permuted->type));
            c.set(AttrName::values, permuted);
            op.inputs[i] = c.outputs[0];
            emit(std::move(c));
        }
        if (!ok) {  // (a constant of another rank: cannot happen for valid operators)
            emit(std::move(op));
            continue;
        }
        const ValueId result = op.outputs[0];
        TensorType t = g.type(result);
        Shape before(t.shape.size());
        for (std::size_t j = 0; j < before.size(); ++j) before[j] = t.shape[std::size_t(inv[j])];
        t.shape = before;
        if (what == Role::reduction) op.set(AttrName::axis, perms[std::size_t(op.get<std::int64_t>(AttrName::axis))]);
        const ValueId moved = g.add_value(t);
        op.outputs[0] = moved;
        Op tr;
        tr.kind = OpKind::TRANSPOSE;
        tr.origin = op.origin;
        tr.inputs = {moved};
        tr.outputs = {result};
        tr.set(AttrName::perms, perms);
        emit(std::move(op));
        emit(std::move(tr));
    }
    return true;
}

}  // namespace nnef::tosa::passes
