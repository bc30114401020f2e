#include "lowering/tosa/passes/passes.hpp"

namespace nnef::tosa::passes {

bool eliminate_dead_code(Graph& g, Diagnostics&) {
    std::vector<std::uint8_t> live(g.values.size(), 0);
    for (const Block& b : g.blocks)
        for (ValueId v : b.outputs) live[v] = 1;
    // operands of nested blocks' operators are live (those blocks are not pruned here)
    for (std::size_t b = 1; b < g.blocks.size(); ++b)
        for (const Op& op : g.blocks[b].ops)
            for (ValueId v : op.inputs) live[v] = 1;
    std::vector<Op>& ops = g.main().ops;
    std::vector<std::uint8_t> keep(ops.size(), 0);
    for (std::size_t i = ops.size(); i-- > 0;) {
        const Op& op = ops[i];
        bool needed = op.kind == OpKind::VARIABLE || op.kind == OpKind::VARIABLE_WRITE || op.kind == OpKind::CUSTOM ||
                      op.kind == OpKind::COND_IF || op.kind == OpKind::WHILE_LOOP;
        for (ValueId v : op.outputs) needed = needed || live[v];
        if (!needed) continue;
        keep[i] = 1;
        for (ValueId v : op.inputs) live[v] = 1;
    }
    std::vector<Op> out;
    out.reserve(ops.size());
    for (std::size_t i = 0; i < ops.size(); ++i)
        if (keep[i]) out.push_back(std::move(ops[i]));
    ops = std::move(out);
    return true;
}

}  // namespace nnef::tosa::passes
