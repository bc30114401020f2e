#include "lowering/tosa/passes/passes.hpp"

namespace nnef::tosa::passes {

namespace tosa_passes_push_transposes_cpp {

enum class Role : std::uint8_t { none, elementwise, reduction, layout };

// The tensor operands of an element-wise operator (others: zero points, shifts), or a reduction.
Role classify(OpKind k, std::vector<std::size_t>& operands) {
    switch (k) {
        case OpKind::CLAMP: case OpKind::ERF: case OpKind::SIGMOID: case OpKind::TANH: case OpKind::ABS:
        case OpKind::BITWISE_NOT: case OpKind::CEIL: case OpKind::CLZ: case OpKind::COS: case OpKind::EXP:
        case OpKind::FLOOR: case OpKind::LOG: case OpKind::LOGICAL_NOT: case OpKind::NEGATE: case OpKind::RECIPROCAL:
        case OpKind::RSQRT: case OpKind::SIN: case OpKind::CAST: case OpKind::IDENTITY: case OpKind::RESCALE:
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
        case OpKind::CONCAT:
            operands.clear();  // every operand (set by the caller)
            return Role::layout;
        case OpKind::SLICE: case OpKind::PAD: case OpKind::REVERSE: case OpKind::TILE:
            operands = {0};
            return Role::layout;
        default: return Role::none;
    }
}

}  // namespace tosa_passes_push_transposes_cpp

bool push_transposes(Graph& g, Diagnostics&) {
    using namespace tosa_passes_push_transposes_cpp;
    Rebuild rb(g);
    std::vector<Op>& ops = rb.ops;
    auto emit = [&](Op op) { rb.emit(std::move(op)); };
    auto producer = [&](ValueId v) { return rb.producer(v); };
    // Moves the permutation of op's operands below it: op works before the permutation, a new
    // TRANSPOSE (into `trailing`) gives its old result. False when the operands do not allow it.
    std::vector<Op> trailing;
    auto try_push = [&](Op& op) -> bool {
        std::vector<std::size_t> operands;
        const Role what = classify(op.kind, operands);
        if (op.kind == OpKind::CONCAT)
            for (std::size_t i = 0; i < op.inputs.size(); ++i) operands.push_back(i);
        if (what == Role::none || op.outputs.size() != 1 ||
            (op.kind == OpKind::RESCALE && op.get<bool>(AttrName::per_channel))) {
            return false;
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
            } else if (!(p && p->kind == OpKind::CONST) ||
                       p->get<ConstPtr>(AttrName::values)->type.rank() != g.type(op.outputs[0]).rank()) {
                ok = false;
            }
        }
        if (!any || !ok) {
            return false;
        }
        const std::vector<std::int64_t> inv = inverse(perms);
        for (std::size_t i : operands) {
            const Op* p = producer(op.inputs[i]);
            if (p->kind == OpKind::TRANSPOSE) {
                op.inputs[i] = p->inputs[0];
                continue;
            }
            const ConstPtr data = p->get<ConstPtr>(AttrName::values);
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
        const ValueId result = op.outputs[0];
        TensorType t = g.type(result);
        Shape before(t.shape.size());
        for (std::size_t j = 0; j < before.size(); ++j) before[j] = t.shape[std::size_t(inv[j])];
        t.shape = before;
        if (what == Role::reduction || op.kind == OpKind::CONCAT || op.kind == OpKind::REVERSE)
            op.set(AttrName::axis, perms[std::size_t(op.get<std::int64_t>(AttrName::axis))]);
        // per-dimension shape operands (SLICE start and size, TILE multiples, PAD's pairs) in the
        // order of the operand before the permutation: item j is the item of dimension inv[j]
        for (std::size_t i = 1; i < op.inputs.size() && what == Role::layout && op.kind != OpKind::CONCAT; ++i) {
            const Op* s = producer(op.inputs[i]);
            if (!s || s->kind != OpKind::CONST_SHAPE) continue;  // (PAD's pad_const)
            const auto& items = s->get<std::vector<std::int64_t>>(AttrName::values);
            const std::size_t per = items.size() / perms.size();  // 2 for PAD
            std::vector<std::int64_t> moved_items(items.size());
            for (std::size_t j = 0; j < perms.size(); ++j)
                for (std::size_t k = 0; k < per; ++k) moved_items[j * per + k] = items[std::size_t(inv[j]) * per + k];
            Op cs;
            cs.kind = OpKind::CONST_SHAPE;
            cs.origin = s->origin;
            cs.outputs.push_back(g.add_value(g.type(op.inputs[i])));
            cs.set(AttrName::values, moved_items);
            op.inputs[i] = cs.outputs[0];
            emit(std::move(cs));
        }
        const ValueId moved = g.add_value(t);
        op.outputs[0] = moved;
        Op tr;
        tr.kind = OpKind::TRANSPOSE;
        tr.origin = op.origin;
        tr.inputs = {moved};
        tr.outputs = {result};
        tr.set(AttrName::perms, perms);
        trailing.push_back(std::move(tr));
        return true;
    };
    for (Op& op : ops) {
        // pushed as far as it goes: through a chain of transposes, one at a time
        trailing.clear();
        while (try_push(op)) {
        }
        emit(std::move(op));
        for (std::size_t i = trailing.size(); i-- > 0;) emit(std::move(trailing[i]));
    }
    return true;
}

}  // namespace nnef::tosa::passes
