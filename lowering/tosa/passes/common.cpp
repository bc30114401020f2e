#include <cstdint>

#include "lowering/tosa/passes/passes.hpp"

namespace nnef::tosa::passes {

namespace tosa_passes_common_cpp {

// dst[i] = src[offset of output index i], the last output dimension as a strided inner loop.
template <class T>
void gather_items(const T* src, T* dst, const Shape& out, const std::vector<std::int64_t>& strides) {
    const std::size_t r = out.size();
    if (r == 0) {
        dst[0] = src[0];
        return;
    }
    const std::int64_t inner = out[r - 1], step = strides[r - 1];
    std::int64_t rows = 1;
    for (std::size_t k = 0; k + 1 < r; ++k) rows *= out[k];
    std::vector<std::int64_t> index(r, 0);
    std::int64_t offset = 0;
    for (std::int64_t row = 0; row < rows; ++row) {
        const T* s = src + offset;
        for (std::int64_t j = 0; j < inner; ++j) dst[j] = s[j * step];
        dst += inner;
        for (std::size_t k = r - 1; k-- > 0;) {
            ++index[k];
            offset += strides[k];
            if (index[k] < out[k]) break;
            offset -= strides[k] * out[k];
            index[k] = 0;
        }
    }
}

// gather_items in the storage width of c's items, from item `first`, into `out` (its shape).
void gather_stored(const ConstData& c, std::int64_t first, ConstData& out, const std::vector<std::int64_t>& strides) {
    void* dst = const_cast<void*>(out.data);
    const Shape& shape = out.type.shape;
    switch (storage_bytes(c.type.dtype)) {
        case 1: gather_items(static_cast<const std::uint8_t*>(c.data) + first, static_cast<std::uint8_t*>(dst), shape, strides); break;
        case 2: gather_items(static_cast<const std::uint16_t*>(c.data) + first, static_cast<std::uint16_t*>(dst), shape, strides); break;
        case 4: gather_items(static_cast<const std::uint32_t*>(c.data) + first, static_cast<std::uint32_t*>(dst), shape, strides); break;
        default: gather_items(static_cast<const std::uint64_t*>(c.data) + first, static_cast<std::uint64_t*>(dst), shape, strides); break;
    }
}

}  // namespace tosa_passes_common_cpp

ConstPtr permute(const ConstData& c, const std::vector<std::int64_t>& perms) {
    using namespace tosa_passes_common_cpp;
    const Shape& in = c.type.shape;
    const std::size_t r = in.size();
    Shape out(r);
    for (std::size_t i = 0; i < r; ++i) out[i] = in[std::size_t(perms[i])];
    // Extents of 1 aside, the dimensions keep their order (OIHW to OHWI of a 1x1 kernel): the items
    // are already in the new order, so the result shares them.
    bool same_order = true;
    for (std::size_t i = 0, last = 0, seen = 0; i < r && same_order; ++i) {
        const std::size_t d = std::size_t(perms[i]);
        if (in[d] == 1) continue;
        same_order = seen == 0 || d > last;
        last = d, seen = 1;
    }
    if (same_order && c.owner) return ConstData::view(TensorType{c.type.dtype, out}, c.owner, c.data);
    auto result = ConstData::allocate(TensorType{c.type.dtype, out});
    if (result->type.volume() == 0) return result;
    // strides of the input, in the order of the output's dimensions
    std::vector<std::int64_t> in_strides(r, 1), strides(r);
    for (std::size_t i = r; i-- > 1;) in_strides[i - 1] = in_strides[i] * in[i];
    for (std::size_t i = 0; i < r; ++i) strides[i] = in_strides[std::size_t(perms[i])];
    gather_stored(c, 0, *result, strides);
    return result;
}

ConstPtr slice(const ConstData& c, const std::vector<std::int64_t>& start, const Shape& size) {
    using namespace tosa_passes_common_cpp;
    const Shape& in = c.type.shape;
    const std::size_t r = in.size();
    if (start.size() != r || size.size() != r || !c.data) return nullptr;
    for (std::size_t i = 0; i < r; ++i)
        if (start[i] < 0 || size[i] < 0 || start[i] + size[i] > in[i]) return nullptr;
    auto result = ConstData::allocate(TensorType{c.type.dtype, size});
    if (result->type.volume() == 0) return result;
    // the input's row-major strides; the box starts at item `first`
    std::vector<std::int64_t> strides(r, 1);
    for (std::size_t i = r; i-- > 1;) strides[i - 1] = strides[i] * in[i];
    std::int64_t first = 0;
    for (std::size_t i = 0; i < r; ++i) first += start[i] * strides[i];
    gather_stored(c, first, *result, strides);
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
        {"fold-constant-layouts", "TRANSPOSE, RESHAPE and SLICE of constants become constants", fold_constant_layouts},
        {"push-transposes", "TRANSPOSEs move below element-wise operators and reductions", push_transposes},
        {"cancel-transposes", "inverse TRANSPOSE pairs cancel, unit-dimension TRANSPOSEs become RESHAPEs",
         cancel_transposes},
        {"fold-pads", "a zero PAD before a convolution (or a least-value PAD before a max pool) becomes its padding", fold_pads},
        {"eliminate-dead-code", "operators whose results are unused are removed", eliminate_dead_code},
    };
}

Rebuild::Rebuild(Graph& graph) : g(graph), ops(std::move(graph.main().ops)), prod(graph.values.size(), -1) { g.main().ops.clear(); }

void Rebuild::emit(Op op) {
    std::vector<Op>& out = g.main().ops;
    for (ValueId v : op.outputs) {
        if (v >= prod.size()) prod.resize(g.values.size(), -1);
        prod[v] = std::int64_t(out.size());
    }
    out.push_back(std::move(op));
}

const Op* Rebuild::producer(ValueId v) const {
    return v < prod.size() && prod[v] >= 0 ? &g.main().ops[std::size_t(prod[v])] : nullptr;
}

}  // namespace nnef::tosa::passes
