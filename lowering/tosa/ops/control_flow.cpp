// The control flow operators (spec 2.16): COND_IF, WHILE_LOOP.
#include "lowering/tosa/ops/check.hpp"
#include "lowering/tosa/ops/kernel.hpp"
#include "lowering/tosa/ops/registry.hpp"

namespace nnef::tosa {

// ---- validation ----------------------------------------------------------------------------

namespace checks {

// The Supported Data Types and Compile Time Constant tables of the family.
void add_control_flow_tables(Tables& t) {
    t.types.insert(t.types.end(), {
        {OpKind::COND_IF, "bool_t=condition", {{"EXT-CONTROLFLOW", ""}}},
        {OpKind::WHILE_LOOP, "", {{"EXT-CONTROLFLOW", ""}}},
    });
}

std::string types_text(const Graph& g, const std::vector<ValueId>& vs) {
    std::string s = "(";
    for (std::size_t i = 0; i < vs.size(); ++i) s += (i ? ", " : "") + to_string(g.values[vs[i]].type);
    return s + ")";
}
bool same_types(const Graph& g, const std::vector<ValueId>& a, std::size_t a_from, const std::vector<ValueId>& b) {
    if (a.size() - a_from != b.size()) return false;
    for (std::size_t i = 0; i < b.size(); ++i)
        if (g.values[a[a_from + i]].type != g.values[b[i]].type) return false;
    return true;
}
std::vector<ValueId> tail(const std::vector<ValueId>& v, std::size_t from) {
    return std::vector<ValueId>(v.begin() + static_cast<std::ptrdiff_t>(std::min(from, v.size())), v.end());
}

// A control-flow graph's interface names values of the graph.
bool block_ids(OpCheck& c, const Block& b) {
    for (const auto* list : {&b.inputs, &b.outputs})
        for (ValueId v : *list)
            if (v >= c.g_.values.size())
                return c.fail("tosa-ssa", "graph inputs and outputs are values of the graph",
                              "block '" + b.name + "' names %" + std::to_string(v) + ", which does not exist");
    return false;
}

void check_cond_if(OpCheck& c) {
    const TensorType& cond = c.in(0);
    if (c.error_if(cond.volume() != 1, "tensor_size(shape) != 1", "condition is " + to_string(cond))) return;
    const Block& then_b = c.g_.blocks[c.op_.get<BlockRef>(AttrName::then_graph).block];
    const Block& else_b = c.g_.blocks[c.op_.get<BlockRef>(AttrName::else_graph).block];
    if (block_ids(c, then_b) || block_ids(c, else_b)) return;
    const auto inputs = tail(c.op_.inputs, 1);
    if (c.error_if(!same_types(c.g_, c.op_.inputs, 1, then_b.inputs), "tensor_list_shape(input_list) != tosa_input_shape(then_graph)",
                   "input_list " + types_text(c.g_, inputs) + ", then_graph " + types_text(c.g_, then_b.inputs)) ||
        c.error_if(!same_types(c.g_, c.op_.inputs, 1, else_b.inputs), "tensor_list_shape(input_list) != tosa_input_shape(else_graph)",
                   "input_list " + types_text(c.g_, inputs) + ", else_graph " + types_text(c.g_, else_b.inputs)))
        return;
    if (c.results_checked) {
        if (c.error_if(!same_types(c.g_, c.op_.outputs, 0, then_b.outputs),
                       "tensor_list_shape(output_list) != tosa_output_shape(then_graph)",
                       "output_list " + types_text(c.g_, c.op_.outputs) + ", then_graph " + types_text(c.g_, then_b.outputs)) ||
            c.error_if(!same_types(c.g_, c.op_.outputs, 0, else_b.outputs),
                       "tensor_list_shape(output_list) != tosa_output_shape(else_graph)",
                       "output_list " + types_text(c.g_, c.op_.outputs) + ", else_graph " + types_text(c.g_, else_b.outputs)))
            return;
    } else if (c.error_if(!same_types(c.g_, then_b.outputs, 0, else_b.outputs),
                          "tosa_output_shape(then_graph) != tosa_output_shape(else_graph)",
                          "then_graph " + types_text(c.g_, then_b.outputs) + ", else_graph " +
                              types_text(c.g_, else_b.outputs))) {
        return;
    }
    for (std::size_t i = 0; i < then_b.outputs.size(); ++i) c.result(i, c.g_.type(then_b.outputs[i]).dtype, c.g_.type(then_b.outputs[i]).shape);
    c.out.resize(then_b.outputs.size());
}

void check_while(OpCheck& c) {
    const Block& cond_b = c.g_.blocks[c.op_.get<BlockRef>(AttrName::cond_graph).block];
    const Block& body_b = c.g_.blocks[c.op_.get<BlockRef>(AttrName::body_graph).block];
    if (block_ids(c, cond_b) || block_ids(c, body_b)) return;
    const auto& in = c.op_.inputs;
    if ((c.results_checked && c.error_if(!same_types(c.g_, in, 0, c.op_.outputs),
                                      "tensor_list_shape(input_list) != tensor_list_shape(output_list)",
                                      "input_list " + types_text(c.g_, in) + ", output_list " +
                                          types_text(c.g_, c.op_.outputs))) ||
        c.error_if(!same_types(c.g_, in, 0, cond_b.inputs), "tensor_list_shape(input_list) != tosa_input_shape(cond_graph)",
                   "input_list " + types_text(c.g_, in) + ", cond_graph " + types_text(c.g_, cond_b.inputs)) ||
        c.error_if(!same_types(c.g_, in, 0, body_b.inputs), "tensor_list_shape(input_list) != tosa_input_shape(body_graph)",
                   "input_list " + types_text(c.g_, in) + ", body_graph " + types_text(c.g_, body_b.inputs)) ||
        c.error_if(!same_types(c.g_, in, 0, body_b.outputs), "tensor_list_shape(input_list) != tosa_output_shape(body_graph)",
                   "input_list " + types_text(c.g_, in) + ", body_graph returns " + types_text(c.g_, body_b.outputs)) ||
        c.error_if(cond_b.outputs.size() != 1 || c.g_.type(cond_b.outputs[0]).volume() != 1,
                   "tensor_size(tosa_output_shape(cond_graph)) != 1", "cond_graph returns " + types_text(c.g_, cond_b.outputs)) ||
        c.error_if(c.g_.type(cond_b.outputs[0]).dtype != DType::bool_, "tosa_output_type(cond_graph) != bool_t",
                   "cond_graph returns " + types_text(c.g_, cond_b.outputs)))
        return;
    for (std::size_t i = 0; i < in.size(); ++i) c.result(i, c.in(i).dtype, c.in(i).shape);
    c.out.resize(in.size());
}

}  // namespace checks

// ---- interpreter kernels ---------------------------------------------------------------------

namespace kernels {

// Nesting depth bookkeeping that survives an unwinding error.
struct Nest {
    Impl& it;
    explicit Nest(Impl& i) : it(i) {
        error_if(it.depth >= it.options.level.max_nesting, "tosa_nesting_depth >= MAX_NESTING (" + std::to_string(it.options.level.max_nesting) + ")");
        ++it.depth;
    }
    ~Nest() { --it.depth; }
};

void op_cond_if(Ctx& c) {
    const ConstData& cond = c.in(0);
    error_if(cond.type.dtype != DType::bool_, "condition is not bool_t");
    std::vector<ConstPtr> ins(c.op.inputs.size() - 1);
    for (std::size_t i = 1; i < c.op.inputs.size(); ++i) ins[i - 1] = c.in_ptr(i);
    Nest nest(c.it);
    const std::uint32_t b = c.attr<BlockRef>(load_int(cond, 0) ? AttrName::then_graph : AttrName::else_graph).block;
    const std::vector<ConstPtr> outs = c.it.run_block(b, ins, c.diags);
    for (std::size_t i = 0; i < outs.size(); ++i) c.set(i, outs[i]);
}

void op_while_loop(Ctx& c) {
    const std::uint32_t cond_i = c.attr<BlockRef>(AttrName::cond_graph).block, body_i = c.attr<BlockRef>(AttrName::body_graph).block;
    std::vector<ConstPtr> list(c.op.inputs.size());
    for (std::size_t i = 0; i < c.op.inputs.size(); ++i) list[i] = c.in_ptr(i);
    Nest nest(c.it);
    std::uint64_t iterations = 0;
    std::vector<ConstPtr> condition = c.it.run_block(cond_i, list, c.diags);
    while (load_int(*condition[0], 0)) {
        if (c.it.options.max_loop_iterations && ++iterations > c.it.options.max_loop_iterations)
            throw Failure{"loop-limit", "the loop has not ended after " + std::to_string(c.it.options.max_loop_iterations) + " iterations"};
        list = c.it.run_block(body_i, list, c.diags);
        condition = c.it.run_block(cond_i, list, c.diags);
    }
    for (std::size_t i = 0; i < list.size(); ++i) c.set(i, list[i]);
}

}  // namespace kernels

}  // namespace nnef::tosa
