#include "lowering/tosa/passes/passes.hpp"

namespace nnef::tosa::passes {

bool fold_constant_layouts(Graph& g, Diagnostics&) {
    const std::vector<std::int64_t> prod = producers(g);
    std::vector<Op>& ops = g.main().ops;
    for (Op& op : ops) {
        if ((op.kind != OpKind::TRANSPOSE && op.kind != OpKind::RESHAPE && op.kind != OpKind::SLICE) || op.inputs.empty())
            continue;
        const std::int64_t p = prod[op.inputs[0]];
        if (p < 0 || ops[std::size_t(p)].kind != OpKind::CONST) continue;
        const ConstPtr& data = ops[std::size_t(p)].get<ConstPtr>(AttrName::values);
        ConstPtr folded;
        if (op.kind == OpKind::TRANSPOSE) {
            folded = permute(*data, op.get<std::vector<std::int64_t>>(AttrName::perms));
        } else if (op.kind == OpKind::SLICE) {
            // the start a CONST_SHAPE (under EXT-DYNAMIC it may be computed: then no fold)
            const std::int64_t s = op.inputs.size() > 1 ? prod[op.inputs[1]] : -1;
            if (s < 0 || ops[std::size_t(s)].kind != OpKind::CONST_SHAPE) continue;
            folded = slice(*data, ops[std::size_t(s)].get<std::vector<std::int64_t>>(AttrName::values), g.type(op.outputs[0]).shape);
            if (!folded) continue;
        } else {
            folded = ConstData::view(g.type(op.outputs[0]), data->owner, data->data);
        }
        // the operator becomes the CONST (its result and origin stay)
        op.kind = OpKind::CONST;
        op.inputs.clear();
        op.attrs.clear();
        op.set(AttrName::values, std::move(folded));
    }
    return true;
}

}  // namespace nnef::tosa::passes
