// Tensor shape operations (spec 4.5): reshape, squeeze, unsqueeze (the same items under the
// shape inference gave), transpose, split, concat, stack, unstack, slice (with the stride of later
// revisions), and the later primitives tile, pad and gather (SPEC_NOTES 2). Generic operations
// work for every data type.
#include <algorithm>
#include <cstring>

#include "exec/common.hpp"

namespace nnef::NNEF_EXEC_NS {

namespace exec_shape_ops_cpp {

// out[o] = in[sum over k of maps[k][o_k] * strides[k]], or `fill` where some maps[k][o_k] < 0.
template <class T>
void gather_axes(T* out, const Shape& shape, const T* in, const std::vector<Ints>& maps, const Ints& strides, T fill) {
    const std::size_t rank = shape.size();
    if (rank == 0) {
        out[0] = in[0];
        return;
    }
    const std::int64_t inner = shape[rank - 1];
    const Ints& last = maps[rank - 1];
    const std::int64_t last_stride = strides[rank - 1];
    std::int64_t outer = 1;
    for (std::size_t k = 0; k + 1 < rank; ++k) outer *= shape[k];
    Ints index(rank, 0);
    for (std::int64_t o = 0; o < outer; ++o) {
        std::int64_t base = 0;
        bool inside = true;
        for (std::size_t k = 0; k + 1 < rank; ++k) {
            const std::int64_t m = maps[k][static_cast<std::size_t>(index[k])];
            inside = inside && m >= 0;
            base += m * strides[k];
        }
        T* row = out + o * inner;
        if (!inside) {
            std::fill(row, row + inner, fill);
        } else {
            for (std::int64_t i = 0; i < inner; ++i) {
                const std::int64_t m = last[static_cast<std::size_t>(i)];
                row[i] = m >= 0 ? in[base + m * last_stride] : fill;
            }
        }
        for (std::size_t k = rank - 1; k-- > 0;) {
            if (++index[k] < shape[k]) break;
            index[k] = 0;
        }
    }
}

// Sets `result` to `x` under the output shape (reshape, squeeze, unsqueeze).
bool same_items(KernelContext& ctx, const char* input, const char* result) {
    const TensorValue& x = ctx.input(input, ctx.output_dtype(result));
    ctx.set_output(result, x.reshaped(ctx.output_shape(result)));
    return true;
}

bool reshape(KernelContext& ctx) { return same_items(ctx, "input", "output"); }

// Output through per-dimension maps over the input (transpose, slice, tile, pad).
bool gather_kernel(KernelContext& ctx, const TensorValue& x, const std::vector<Ints>& maps, const Ints& strides,
                   double fill = 0.0) {
    TensorValue out = ctx.make_output("output");
    dispatch(out.dtype(), [&](auto tag) {
        using T = decltype(tag);
        gather_axes<T>(out.data<T>(), out.shape(), x.data<T>(), maps, strides, static_cast<T>(fill));
    });
    ctx.set_output("output", std::move(out));
    return true;
}

Ints iota(std::int64_t n, std::int64_t start = 0, std::int64_t step = 1) {
    Ints v(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i) v[static_cast<std::size_t>(i)] = start + i * step;
    return v;
}

// output[i_axes[0], ..., i_axes[n-1], ...] = input[i_0, ..., i_{n-1}, ...]
bool transpose(KernelContext& ctx) {
    const TensorValue& x = ctx.input("input", ctx.output_dtype("output"));
    const Ints axes = ctx.ints_attr("axes");
    const Shape out = ctx.output_shape("output");
    const Ints in_strides = strides_of(x.shape());
    std::vector<Ints> maps;
    Ints strides;
    for (std::size_t k = 0; k < out.size(); ++k) {
        const std::size_t from = k < axes.size() ? static_cast<std::size_t>(axes[k]) : k;
        maps.push_back(iota(out[k]));
        strides.push_back(in_strides[from]);
    }
    return gather_kernel(ctx, x, maps, strides);
}

// Normalizes begin of slice axis i (rev 3 with the later stride; see semantics/ops/shape_ops.cpp).
bool slice(KernelContext& ctx) {
    const TensorValue& x = ctx.input("input", ctx.output_dtype("output"));
    const Ints axes = ctx.ints_attr("axes"), begin = ctx.ints_attr("begin"), stride = ctx.ints_attr("stride");
    const Shape out = ctx.output_shape("output");
    std::vector<Ints> maps;
    for (std::size_t k = 0; k < out.size(); ++k) maps.push_back(iota(out[k]));
    for (std::size_t i = 0; i < axes.size() && i < begin.size(); ++i) {
        const auto a = static_cast<std::size_t>(axes[i]);
        const std::int64_t extent = x.shape()[a];
        const std::int64_t s = i < stride.size() ? stride[i] : 1;
        std::int64_t b = begin[i];
        if (b < 0) b += extent;
        maps[a] = iota(out[a], b, s);
        for (std::int64_t m : maps[a])
            if (m < 0 || m >= extent) return ctx.error("slice of axis " + std::to_string(a) + " reads outside the input");
    }
    return gather_kernel(ctx, x, maps, strides_of(x.shape()));
}

// output[i] = input[i mod extent] in every dimension.
bool tile(KernelContext& ctx) {
    const TensorValue& x = ctx.input("input", ctx.output_dtype("output"));
    const Shape out = ctx.output_shape("output");
    std::vector<Ints> maps;
    for (std::size_t k = 0; k < out.size(); ++k) {
        Ints m = iota(out[k]);
        for (std::int64_t& v : m) v %= x.extent(k);
        maps.push_back(std::move(m));
    }
    return gather_kernel(ctx, x, maps, strides_of(x.shape()));
}

// output[i] = extended input[i - p] under the border mode; 'constant' uses `value`.
bool pad(KernelContext& ctx) {
    const TensorValue& x = ctx.input("input", PrimType::scalar);
    const Shape out = ctx.output_shape("output");
    Pairs padding = ctx.pairs_attr("padding");
    padding.resize(out.size(), {0, 0});
    const std::string name = ctx.string_attr("border", "constant");
    Border border;
    if (!parse_border(name, border) || border == Border::ignore) return ctx.error("border '" + name + "' is not allowed");
    std::vector<Ints> maps;
    for (std::size_t k = 0; k < out.size(); ++k) {
        Ints m = iota(out[k], -padding[k].first);
        for (std::int64_t& v : m) v = border_index(v, x.extent(k), border);
        maps.push_back(std::move(m));
    }
    return gather_kernel(ctx, x, maps, strides_of(x.shape()), ctx.scalar_attr("value", 0.0));
}

// ---- concat, split, stack, unstack, gather -------------------------------------------------------

// Copies `count` rows of `n` items from `from` (row stride from_stride) to `to` (row stride
// to_stride), items of `size` bytes.
void copy_rows(char* to, std::int64_t to_stride, const char* from, std::int64_t from_stride, std::int64_t count,
               std::int64_t n, std::size_t size) {
    for (std::int64_t r = 0; r < count; ++r)
        std::memcpy(to + r * to_stride * std::int64_t(size), from + r * from_stride * std::int64_t(size),
                    static_cast<std::size_t>(n) * size);
}

// Joins `parts` along `axis` of the result shape `out` (each part has extent sizes[i] there and
// spans `inner` items per unit of the axis).
TensorValue join(const std::vector<const TensorValue*>& parts, PrimType dtype, const Shape& out, std::size_t axis,
                 const Ints& sizes) {
    TensorValue result(dtype, out);
    std::int64_t outer = 1, inner = 1;
    for (std::size_t k = 0; k < axis; ++k) outer *= out[k];
    for (std::size_t k = axis + 1; k < out.size(); ++k) inner *= out[k];
    const std::size_t size = item_size(dtype);
    char* dst = static_cast<char*>(result.raw());
    std::int64_t at = 0;
    for (std::size_t i = 0; i < parts.size(); ++i) {
        const std::int64_t n = sizes[i] * inner;
        copy_rows(dst + at * inner * std::int64_t(size), out[axis] * inner, static_cast<const char*>(parts[i]->raw()), n,
                  outer, n, size);
        at += sizes[i];
    }
    return result;
}

bool concat_like(KernelContext& ctx, bool new_axis) {
    const PrimType dtype = ctx.output_dtype("value");
    std::vector<const TensorValue*> parts = ctx.inputs("values");
    for (const TensorValue*& p : parts)
        if (p->dtype() != dtype) p = &ctx.keep(convert(*p, dtype));
    const auto axis = static_cast<std::size_t>(ctx.int_attr("axis"));
    const Shape out = ctx.output_shape("value");
    Ints sizes;
    for (const TensorValue* p : parts) sizes.push_back(new_axis ? 1 : p->extent(axis));
    ctx.set_output("value", join(parts, dtype, out, axis, sizes));
    return true;
}

bool concat(KernelContext& ctx) { return concat_like(ctx, false); }
bool stack(KernelContext& ctx) { return concat_like(ctx, true); }

// split and unstack: the chunks of `value` along `axis`, in the shapes of the results.
bool split_like(KernelContext& ctx) {
    const PrimType dtype = ctx.output_dtype("values");
    const TensorValue& x = ctx.input("value", dtype);
    const auto axis = static_cast<std::size_t>(ctx.int_attr("axis"));
    const std::size_t n = ctx.output_count("values");
    std::int64_t outer = 1, inner = 1;
    for (std::size_t k = 0; k < axis; ++k) outer *= x.shape()[k];
    for (std::size_t k = axis + 1; k < x.rank(); ++k) inner *= x.shape()[k];
    const std::size_t size = item_size(dtype);
    const char* src = static_cast<const char*>(x.raw());
    std::int64_t at = 0;
    for (std::size_t i = 0; i < n; ++i) {
        TensorValue part = ctx.make_output("values", i);
        const std::int64_t extent = part.volume() / std::max<std::int64_t>(outer * inner, 1);
        copy_rows(static_cast<char*>(part.raw()), extent * inner, src + at * inner * std::int64_t(size),
                  x.extent(axis) * inner, outer, extent * inner, size);
        at += extent;
        ctx.set_output("values", std::move(part), i);
    }
    if (at != x.extent(axis)) return ctx.error("the results do not cover 'value' along the axis");
    return true;
}

// output[pre, j..., post] = input[pre, indices[j...], post]; negative indices count from the end.
bool gather(KernelContext& ctx) {
    const PrimType dtype = ctx.output_dtype("output");
    const TensorValue& x = ctx.input("input", dtype);
    const TensorValue& indices = ctx.input("indices", PrimType::integer);
    const auto axis = static_cast<std::size_t>(ctx.int_attr("axis", 0));
    if (axis >= x.rank()) return ctx.error("'axis' out of range");
    TensorValue out = ctx.make_output("output");
    std::int64_t outer = 1, inner = 1;
    for (std::size_t k = 0; k < axis; ++k) outer *= x.shape()[k];
    for (std::size_t k = axis + 1; k < x.rank(); ++k) inner *= x.shape()[k];
    const std::int64_t extent = x.shape()[axis], count = indices.volume();
    const std::int64_t* idx = indices.data<std::int64_t>();
    for (std::int64_t j = 0; j < count; ++j)
        if (idx[j] < -extent || idx[j] >= extent)
            return ctx.error("'indices' item " + std::to_string(j) + " is " + std::to_string(idx[j]) +
                             "; indices along axis " + std::to_string(axis) + " must be in [-" + std::to_string(extent) +
                             ", " + std::to_string(extent) + ")");
    const std::size_t size = item_size(dtype);
    const char* src = static_cast<const char*>(x.raw());
    char* dst = static_cast<char*>(out.raw());
    for (std::int64_t o = 0; o < outer; ++o)
        for (std::int64_t j = 0; j < count; ++j) {
            const std::int64_t i = idx[j] < 0 ? idx[j] + extent : idx[j];
            std::memcpy(dst + ((o * count + j) * inner) * std::int64_t(size), src + ((o * extent + i) * inner) * std::int64_t(size),
                        static_cast<std::size_t>(inner) * size);
        }
    ctx.set_output("output", std::move(out));
    return true;
}

}  // namespace exec_shape_ops_cpp

void add_shape_kernels(KernelRegistry& r) {
    using namespace exec_shape_ops_cpp;
    r.add("reshape", reshape);
    r.add("squeeze", reshape);
    r.add("unsqueeze", reshape);
    r.add("transpose", transpose);
    r.add("split", split_like);
    r.add("concat", concat);
    r.add("stack", stack);
    r.add("unstack", split_like);
    r.add("slice", slice);
    r.add("tile", tile);
    r.add("pad", pad);
    r.add("gather", gather);
}

}  // namespace nnef::NNEF_EXEC_NS
