#include "lowering/tosa/passes/passes.hpp"

namespace nnef::tosa::passes {

bool cancel_transposes(Graph& g, Diagnostics&) {
    Rebuild rb(g);
    std::vector<Op>& ops = rb.ops;
    auto emit = [&](Op op) { rb.emit(std::move(op)); };
    auto producer = [&](ValueId v) { return rb.producer(v); };
    std::vector<ValueId> subst(g.values.size());
    for (ValueId v = 0; v < subst.size(); ++v) subst[v] = v;
    // graph outputs keep their (named) values
    std::vector<std::uint8_t> pinned(g.values.size(), 0);
    for (ValueId v : g.main().outputs) pinned[v] = 1;
    for (Op& op : ops) {
        for (ValueId& v : op.inputs)
            if (v < subst.size()) v = subst[v];
        if (op.kind == OpKind::TRANSPOSE) {
            auto perms = op.get<std::vector<std::int64_t>>(AttrName::perms);
            const Op* p = producer(op.inputs[0]);
            if (p && p->kind == OpKind::TRANSPOSE) {
                // out[i] = mid[q[i]] = x[p[q[i]]]
                const auto& first = p->get<std::vector<std::int64_t>>(AttrName::perms);
                std::vector<std::int64_t> composed(perms.size());
                for (std::size_t i = 0; i < perms.size(); ++i) composed[i] = first[std::size_t(perms[i])];
                op.inputs[0] = p->inputs[0];
                perms = composed;
                op.set(AttrName::perms, perms);
            }
            if (is_identity(perms) && !pinned[op.outputs[0]]) {
                subst[op.outputs[0]] = op.inputs[0];
                continue;
            }
            // only extent-1 dimensions move: the same items in the same order, a RESHAPE
            const Shape& in = g.type(op.inputs[0]).shape;
            std::int64_t last = -1;
            bool ordered = true;
            for (std::int64_t d : perms)
                if (in[std::size_t(d)] != 1) {
                    ordered = ordered && d > last;
                    last = d;
                }
            if (ordered) {
                const Shape shape = g.type(op.outputs[0]).shape;  // (a copy: add_value may move it)
                Op s;
                s.kind = OpKind::CONST_SHAPE;
                s.origin = op.origin;
                s.outputs.push_back(g.add_value(TensorType{DType::shape, {std::int64_t(shape.size())}}));
                s.set(AttrName::values, std::vector<std::int64_t>(shape.begin(), shape.end()));
                op.kind = OpKind::RESHAPE;
                op.attrs.clear();
                op.inputs.push_back(s.outputs[0]);
                emit(std::move(s));
            }
        }
        if (op.kind == OpKind::RESHAPE) {
            const Op* p = producer(op.inputs[0]);
            if (p && p->kind == OpKind::RESHAPE) op.inputs[0] = p->inputs[0];
            if (g.type(op.inputs[0]).shape == g.type(op.outputs[0]).shape && !pinned[op.outputs[0]]) {
                subst[op.outputs[0]] = op.inputs[0];
                continue;
            }
        }
        emit(std::move(op));
    }
    for (Block& b : g.blocks)
        for (ValueId& v : b.outputs)
            if (v < subst.size()) v = subst[v];
    return true;
}

}  // namespace nnef::tosa::passes
