#include <cstring>

#include "lowering/tosa/passes/passes.hpp"

namespace nnef::tosa::passes {

ConstPtr permute(const ConstData& c, const std::vector<std::int64_t>& perms) {
    const Shape& in = c.type.shape;
    const std::size_t r = in.size();
    Shape out(r);
    for (std::size_t i = 0; i < r; ++i) out[i] = in[std::size_t(perms[i])];
    auto result = ConstData::allocate(TensorType{c.type.dtype, out});
    const std::size_t item = storage_bytes(c.type.dtype);
    // strides of the input, in the order of the output's dimensions
    std::vector<std::int64_t> in_strides(r, 1), strides(r);
    for (std::size_t i = r; i-- > 1;) in_strides[i - 1] = in_strides[i] * in[i];
    for (std::size_t i = 0; i < r; ++i) strides[i] = in_strides[std::size_t(perms[i])];
    const std::int64_t n = result->type.volume();
    const auto* src = static_cast<const unsigned char*>(c.data);
    auto* dst = static_cast<unsigned char*>(const_cast<void*>(result->data));
    std::vector<std::int64_t> index(r, 0);
    std::int64_t offset = 0;  // input item of output item i
    for (std::int64_t i = 0; i < n; ++i) {
        std::memcpy(dst + std::size_t(i) * item, src + std::size_t(offset) * item, item);
        for (std::size_t k = r; k-- > 0;) {
            ++index[k];
            offset += strides[k];
            if (index[k] < out[k]) break;
            offset -= strides[k] * out[k];
            index[k] = 0;
        }
    }
    return result;
}

std::vector<std::int64_t> inverse(const std::vector<std::int64_t>& perms) {
    std::vector<std::int64_t> inv(perms.size());
    for (std::size_t i = 0; i < perms.size(); ++i) inv[std::size_t(perms[i])] = std::int64_t(i);
    return inv;
}

bool is_identity(const std::vector<std::int64_t>& perms) {
    for (std::size_t i = 0; i < perms.size(); ++i)
        if (perms[i] != std::int64_t(i)) return false;
    return true;
}

std::vector<std::int64_t> producers(const Graph& g) {
    std::vector<std::int64_t> p(g.values.size(), -1);
    const Block& b = g.main();
    for (std::size_t i = 0; i < b.ops.size(); ++i)
        for (ValueId v : b.ops[i].outputs) p[v] = std::int64_t(i);
    return p;
}

void replace_uses(Graph& g, ValueId from, ValueId to) {
    for (Block& b : g.blocks) {
        for (Op& op : b.ops)
            for (ValueId& v : op.inputs)
                if (v == from) v = to;
        for (ValueId& v : b.outputs)
            if (v == from) v = to;
    }
}

std::vector<lowering::Pass<Graph>> layout_passes(const LowerOptions&) {
    return {
        {"fold-constant-layouts", "TRANSPOSE and RESHAPE of constants become constants", fold_constant_layouts},
        {"push-transposes", "TRANSPOSEs move below element-wise operators and reductions", push_transposes},
        {"cancel-transposes", "inverse TRANSPOSE pairs cancel, unit-dimension TRANSPOSEs become RESHAPEs",
         cancel_transposes},
        {"eliminate-dead-code", "operators whose results are unused are removed", eliminate_dead_code},
    };
}

}  // namespace nnef::tosa::passes
