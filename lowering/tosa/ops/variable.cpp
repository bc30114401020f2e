// The variable operators (spec 2.17): VARIABLE, VARIABLE_WRITE, VARIABLE_READ.
#include "lowering/tosa/ops/check.hpp"
#include "lowering/tosa/ops/kernel.hpp"
#include "lowering/tosa/ops/registry.hpp"

namespace nnef::tosa {

// ---- validation ----------------------------------------------------------------------------

namespace checks {

// The Supported Data Types and Compile Time Constant tables of the family.
void add_variable_tables(Tables& t) {
    t.types.insert(t.types.end(), {
        {OpKind::VARIABLE, "in_t=type=initial_value", variable_rows},
        {OpKind::VARIABLE_WRITE, "in_t=input1", variable_rows},
        {OpKind::VARIABLE_READ, "out_t=output1", variable_rows},
    });
}

// The VARIABLE declaring `name` (first in block order), or null.
const Op* find_variable(const Graph& g, const std::string& name,
                        const std::map<std::string, std::pair<std::uint32_t, std::uint32_t>>* declared) {
    if (declared) {
        auto it = declared->find(name);
        return it == declared->end() ? nullptr : &g.blocks[it->second.first].ops[it->second.second];
    }
    for (const Block& b : g.blocks)
        for (const Op& op : b.ops)
            if (op.kind == OpKind::VARIABLE) {
                const Attr* a = op.attr(AttrName::name);
                if (a && std::holds_alternative<std::string>(*a) && std::get<std::string>(*a) == name) return &op;
            }
    return nullptr;
}

void check_variable(OpCheck& c) {
    const auto& shape = c.ints(AttrName::var_shape);
    const DType type = c.op_.get<DType>(AttrName::type);
    if (c.validating() && c.level(static_cast<I64>(shape.size()), c.lv().max_rank, "rank(shape) <= MAX_RANK")) return;
    for (I64 e : shape)
        if (c.require(e >= 1, "1 <= shape[i] (tensor_size of var_shape)", "var_shape " + ints_text(shape))) return;
    if (const Attr* iv = c.op_.attr(AttrName::initial_value)) {
        const ConstData& init = *std::get<ConstPtr>(*iv);
        if (c.require(init.type.dtype == type, "var_t == in_t",
                      std::string("type is ") + to_string(type) + ", initial_value " + to_string(init.type)) ||
            c.require(init.type.shape == shape, "var_shape == shape",
                      "var_shape " + ints_text(shape) + ", initial_value " + to_string(init.type)))
            return;
    }
}

// VARIABLE_WRITE / VARIABLE_READ: the declaration and its shape and type.
void check_variable_access(OpCheck& c, bool write) {
    const std::string& name = c.op_.get<std::string>(AttrName::name);
    const Op* decl = find_variable(c.g_, name, c.variables);
    if (c.require(decl != nullptr, write ? "variable_tensor" : "variable_tensor != NULL",
                  "no VARIABLE declares '" + name + "'"))
        return;
    const auto* shape = std::get_if<std::vector<I64>>(decl->attr(AttrName::var_shape));
    const auto* type = std::get_if<DType>(decl->attr(AttrName::type));
    if (!shape || !type) return;  // the declaration's own check reports it
    if (write) {
        if (c.require(c.in(0).shape == *shape, "variable_tensor.shape == shape",
                      "input1 is " + to_string(c.in(0)) + ", variable '" + name + "' " + ints_text(*shape)))
            return;
        c.require(c.idt(0) == *type, "is_same<variable_tensor.type,in_t>()",
                  "input1 is " + to_string(c.in(0)) + ", variable '" + name + "' " + to_string(*type));
        return;
    }
    c.result(0, *type, *shape);
    if (!c.results_checked) return;
    const TensorType* a = c.actual_out(0);
    if (a && a->shape != *shape)
        c.require(false, "variable_tensor.shape == shape",
                  "output1 is " + to_string(*a) + ", variable '" + name + "' " + ints_text(*shape));
    else if (a && a->dtype != *type)
        c.require(false, "is_same<variable_tensor.type,out_t>()",
                  "output1 is " + to_string(*a) + ", variable '" + name + "' " + to_string(*type));
}

void check_variable_write(OpCheck& c) { check_variable_access(c, true); }
void check_variable_read(OpCheck& c) { check_variable_access(c, false); }

}  // namespace checks

// ---- interpreter kernels ---------------------------------------------------------------------

namespace kernels {

void op_variable(Ctx& c) {
    const std::string& name = c.attr<std::string>(AttrName::name);
    const std::vector<I64>& var_shape = c.attr<std::vector<I64>>(AttrName::var_shape);
    const DType type = c.attr<DType>(AttrName::type);
    const TensorType declared{type, Shape(var_shape.begin(), var_shape.end())};
    auto found = c.it.variables.find(name);
    if (found == c.it.variables.end()) {
        Impl::Variable v;
        v.type = declared;
        const Attr* init = c.op.attr(AttrName::initial_value);
        if (init && std::holds_alternative<ConstPtr>(*init) && std::get<ConstPtr>(*init)) {
            const ConstPtr& value = std::get<ConstPtr>(*init);
            require(value->type.dtype == type, "var_t == in_t");
            require(value->type.shape == declared.shape, "var_shape == shape");
            v.data = value;
            v.written = true;
        }
        found = c.it.variables.emplace(name, std::move(v)).first;
    } else {
        require(!found->second.seen, "!var_tensor.seen (variable '" + name + "' is declared twice in one graph execution)");
        require(found->second.type == declared, "variable '" + name + "' is declared as " + to_string(declared) + " but exists as " +
                                                    to_string(found->second.type));
    }
    found->second.seen = true;
}

Impl::Variable& lookup_variable(Ctx& c) {
    const std::string& name = c.attr<std::string>(AttrName::name);
    auto found = c.it.variables.find(name);
    require(found != c.it.variables.end(), "variable_tensor != NULL (variable '" + name + "' is not declared)");
    return found->second;
}

void op_variable_write(Ctx& c) {
    Impl::Variable& v = lookup_variable(c);
    const ConstPtr& x = c.in_ptr(0);
    require(v.seen, "variable_tensor.seen (declared in this graph execution)");
    require(v.type.shape == x->type.shape, "variable_tensor.shape == shape");
    require(v.type.dtype == x->type.dtype, "is_same<variable_tensor.type,in_t>()");
    v.data = x;  // values are immutable: the variable shares them
    v.written = true;
}

void op_variable_read(Ctx& c) {
    Impl::Variable& v = lookup_variable(c);
    require(v.written && v.data, "variable_tensor.is_written");
    require(v.type.shape == c.out_type(0).shape, "variable_tensor.shape == shape");
    require(v.type.dtype == c.out_type(0).dtype, "is_same<variable_tensor.type,out_t>()");
    c.set(0, v.data);
}

}  // namespace kernels

}  // namespace nnef::tosa
