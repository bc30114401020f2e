// Shape operations (NNEF spec 4.5 and the later revisions' tile, pad, gather, strided slice):
// RESHAPE, TRANSPOSE, CONCAT, SLICE, TILE, PAD (with the border modes of Context::pad_border),
// GATHER. The result shapes are the front end's (shape inference), so reshape-like operations need
// no shape arithmetic here.
#include "lowering/tosa/from_nnef/context.hpp"

namespace nnef::tosa::from_nnef {

// Every `stride`-th item of [begin, begin + count * stride) along axis (begin + (count - 1) *
// stride inside the extent): a slice, padded at the end to a whole number of strides, reshaped to
// [count, stride] and the first of each stride taken.
ValueId strided(Context& c, ValueId x, std::size_t axis, std::int64_t begin, std::int64_t count, std::int64_t stride) {
    const std::int64_t extent = c.shape(x)[axis];
    if (stride == 1) return c.slice_axis(x, axis, begin, begin + count);
    const std::int64_t span = count * stride;
    ValueId v = c.slice_axis(x, axis, begin, std::min(extent, begin + span));
    const std::int64_t have = c.shape(v)[axis];
    if (have < span) v = c.pad_border(v, axis, 0, span - have, "constant", 0.0);
    Shape s = c.shape(v);
    s[axis] = count;
    s.insert(s.begin() + std::ptrdiff_t(axis) + 1, stride);
    v = c.slice_axis(c.reshape(v, s), axis + 1, 0, 1);
    s.erase(s.begin() + std::ptrdiff_t(axis) + 1);
    return c.reshape(v, s);
}

namespace tosa_from_nnef_shape_ops_cpp {

// reshape, squeeze, unsqueeze: a RESHAPE to the inferred result shape
bool reshape_like(Context& c) { return c.bind("output", c.reshape(c.input("input"), c.result_type("output").shape)); }

bool transpose(Context& c) {
    const ValueId x = c.input("input");
    Ints perms = c.ints_attr("axes");
    for (std::size_t i = perms.size(); i < c.rank(x); ++i) perms.push_back(std::int64_t(i));
    return c.bind("output", c.transpose(x, perms));
}

bool concat(Context& c) {
    return c.bind("value", c.concat(c.inputs("values"), c.int_attr("axis")));
}

bool stack(Context& c) {
    const TensorType out = c.result_type("value");
    const std::int64_t axis = c.int_attr("axis");
    std::vector<ValueId> items;
    for (ValueId v : c.inputs("values")) {
        Shape s = c.shape(v);
        s.insert(s.begin() + axis, 1);
        items.push_back(c.reshape(v, s));
    }
    return c.bind("value", c.concat(items, axis));
}

bool split(Context& c) {
    const ValueId x = c.input("value");
    const std::size_t axis = std::size_t(c.int_attr("axis"));
    std::int64_t begin = 0;
    for (std::size_t i = 0; i < c.result_count("values"); ++i) {
        const TensorType t = c.result_type("values", i);
        const std::int64_t end = begin + t.shape[axis];
        c.bind("values", c.slice_axis(x, axis, begin, end), i);
        begin = end;
    }
    return true;
}

bool unstack(Context& c) {
    const ValueId x = c.input("value");
    const std::size_t axis = std::size_t(c.int_attr("axis"));
    for (std::size_t i = 0; i < c.result_count("values"); ++i) {
        const TensorType t = c.result_type("values", i);
        c.bind("values", c.reshape(c.slice_axis(x, axis, std::int64_t(i), std::int64_t(i) + 1), t.shape), i);
    }
    return true;
}

bool slice(Context& c) {
    ValueId x = c.input("input");
    const Ints axes = c.ints_attr("axes"), begin = c.ints_attr("begin"), end = c.ints_attr("end");
    const Ints stride = c.ints_attr("stride");
    const TensorType out = c.result_type("output");
    for (std::size_t i = 0; i < axes.size(); ++i) {
        const std::size_t a = std::size_t(axes[i]);
        const std::int64_t n = c.shape(x)[a];
        const std::int64_t s = stride.empty() ? 1 : stride[i];
        std::int64_t b = begin[i], e = end[i];
        if (s > 0) {
            if (b < 0) b += n;
            if (e < 0) e += n;
            if (e == 0) e = n;
        } else {
            // walk down from b to e (exclusive): the reversed axis walked up
            if (b < 0) b += n;
            if (e < 0) e += n;
            x = c.reverse(x, a);
            b = n - 1 - b;
            e = n - 1 - e;
        }
        x = strided(c, x, a, b, out.shape[a], s > 0 ? s : -s);
        (void)e;
    }
    return c.bind("output", c.reshape(x, out.shape));
}

bool tile(Context& c) { return c.bind("output", c.tile(c.input("input"), c.ints_attr("repeats"))); }

bool pad(Context& c) {
    ValueId x = c.input("input");
    const Pairs padding = c.pairs_attr("padding");
    const std::string border = c.string_attr("border", "constant");
    const double value = c.scalar_attr("value", 0.0);
    if (border == "ignore") return c.refuse("border 'ignore' is not defined for pad");
    for (std::size_t i = 0; i < padding.size(); ++i)
        x = c.pad_border(x, i, padding[i].first, padding[i].second, border, value);
    return c.bind("output", x);
}

bool gather(Context& c) {
    const ValueId x = c.input("input");
    const TensorType out = c.result_type("output");
    const Shape xs = c.shape(x);
    const std::size_t axis = std::size_t(c.int_attr("axis", 0));
    ValueId idx = c.input("indices");
    const std::int64_t K = xs[axis];
    std::int64_t before = 1, after = 1;
    for (std::size_t i = 0; i < axis; ++i) before *= xs[i];
    for (std::size_t i = axis + 1; i < xs.size(); ++i) after *= xs[i];
    const std::int64_t W = c.type(idx).volume();
    // negative indices count from the end: folded for constant indices; otherwise computed in i32
    // (PRO-INT) or fp32 (PRO-FP has no i32 comparison; exact for indices up to 2^24)
    ValueId idx2;
    if (ConstPtr data = c.constant_of(idx)) {
        auto fixed = ConstData::allocate(TensorType{DType::i32, {before, W}});
        for (std::int64_t b = 0; b < before; ++b)
            for (std::int64_t i = 0; i < W; ++i) {
                const std::int32_t v = data->items<std::int32_t>()[i];
                fixed->mutable_items<std::int32_t>()[b * W + i] = v < 0 ? std::int32_t(v + K) : v;
            }
        idx2 = c.constant(std::move(fixed));
    } else {
        const DType work = c.options().profile == Profile::pro_fp ? DType::fp32 : DType::i32;
        idx = c.cast(idx, work);
        const ValueId zero = c.scalar(work, 0.0, c.rank(idx));
        idx = c.select(c.compare(OpKind::GREATER, zero, idx),
                       c.binary(OpKind::ADD, idx, c.scalar(work, double(K), c.rank(idx))), idx);
        idx2 = c.cast(c.tile(c.reshape(idx, {1, W}), {before, 1}), DType::i32);
    }
    const ValueId values = c.reshape(x, {before, K, after});
    const ValueId y = c.add(OpKind::GATHER, {values, idx2}, TensorType{c.type(x).dtype, {before, W, after}});
    return c.bind("output", c.reshape(y, out.shape));
}

}  // namespace tosa_from_nnef_shape_ops_cpp

void add_shape_ops(Registry& r) {
    using namespace tosa_from_nnef_shape_ops_cpp;
    r.push_back({"reshape", "shape_ops", reshape_like, {}});
    r.push_back({"squeeze", "shape_ops", reshape_like, {}});
    r.push_back({"unsqueeze", "shape_ops", reshape_like, {}});
    r.push_back({"transpose", "shape_ops", transpose, {}});
    r.push_back({"concat", "shape_ops", concat, {}});
    r.push_back({"stack", "shape_ops", stack, {}});
    r.push_back({"split", "shape_ops", split, {}});
    r.push_back({"unstack", "shape_ops", unstack, {}});
    r.push_back({"slice", "shape_ops", slice, {}});
    r.push_back({"tile", "shape_ops", tile, {}});
    r.push_back({"pad", "shape_ops", pad, {}});
    r.push_back({"gather", "shape_ops", gather, {}});
    r.push_back({"_unsqueeze_shape", "shape_ops", nullptr,
                 "a compile-time helper of unsqueeze on integer arrays, evaluated by the front end; it never is an "
                 "operation of a graph"});
}

}  // namespace nnef::tosa::from_nnef
