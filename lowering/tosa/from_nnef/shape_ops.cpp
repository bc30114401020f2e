// Shape operations (NNEF spec 4.5 and the later revisions' tile, pad, gather, strided slice):
// RESHAPE, TRANSPOSE, CONCAT, SLICE, TILE, PAD (with the border modes of Context::pad_border),
// GATHER. The result shapes are the front end's (shape inference), so reshape-like operations need
// no shape arithmetic here.
#include <cmath>
#include <algorithm>
#include "lowering/tosa/from_nnef/context.hpp"
#include "lowering/tosa/from_nnef/integer.hpp"

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

// The current slice operation's result from x (any dtype), reshaped to out_shape.
ValueId slice_value(Context& c, ValueId x, const Shape& out_shape) {
    const Ints axes = c.ints_attr("axes"), begin = c.ints_attr("begin"), end = c.ints_attr("end");
    const Ints stride = c.ints_attr("stride");
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
        x = strided(c, x, a, b, out_shape[a], s > 0 ? s : -s);
        (void)e;
    }
    return c.reshape(x, out_shape);
}

bool slice(Context& c) { return c.bind("output", slice_value(c, c.input("input"), c.result_type("output").shape)); }

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

// GATHER of x along `axis` at idx (negative indices count from the end), reshaped to out_shape.
ValueId gather_value(Context& c, ValueId x, ValueId idx, std::size_t axis, const Shape& out_shape) {
    const Shape xs = c.shape(x);
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
    return c.reshape(y, out_shape);
}

bool gather(Context& c) {
    const ValueId x = c.input("input");
    const std::size_t axis = std::size_t(c.int_attr("axis", 0));
    return c.bind("output", gather_value(c, x, c.input("indices"), axis, c.result_type("output").shape));
}

using integer::Act;
using integer::Real;

// gather of an activation at compile-time indices (a literal or a constant): GATHER of the codes
// (each item keeps its grid), RESCALEd to the result's entry if it has another.
bool gather_integer(integer::Lowering& q) {
    const Act* x = q.input_act("input");
    if (!x) return false;
    std::vector<double> items;
    Shape shape;
    const nnef::Value& v = q.c.argument("indices");
    if (v.is_integer()) items = {double(v.as_integer())};
    else if (const Real* r = q.real(q.arg_id("indices"))) items = r->items, shape = r->shape;
    else return q.fail("its indices are not known at compile time (only constant indices are lowered at PRO-INT)");
    auto idx = ConstData::allocate(TensorType{DType::i32, shape});
    for (std::size_t i = 0; i < items.size(); ++i) idx->mutable_items<std::int32_t>()[i] = static_cast<std::int32_t>(items[i]);
    const Tensor& out = q.c.result("output");
    Act y = *x;
    y.v = gather_value(q.c, x->v, q.c.constant(std::move(idx)), std::size_t(q.c.int_attr("axis", 0)), *out.shape);
    return q.bind_act(out.name, y);
}

// split: slices of the codes (each result RESCALEd to its entry if it has another grid).
bool split_integer(integer::Lowering& q) {
    const Act* x = q.input_act("value");
    if (!x) return false;
    std::int64_t axis = q.c.int_attr("axis");
    if (axis < 0) axis += std::int64_t(q.c.rank(x->v));
    std::int64_t begin = 0;
    for (std::size_t i = 0; i < q.c.result_count("values"); ++i) {
        const Tensor& t = q.c.result("values", i);
        const std::int64_t end = begin + (*t.shape)[std::size_t(axis)];
        if (!q.bind_act(t.name, Act{q.c.slice_axis(x->v, std::size_t(axis), begin, end), x->grid})) return false;
        begin = end;
    }
    return true;
}

// pad: every border mode on the codes ('constant': the code of the value on the input's grid).
bool pad_integer(integer::Lowering& q) {
    const Act* x = q.input_act("input");
    if (!x) return false;
    const std::string border = q.c.string_attr("border", "constant");
    if (border == "ignore") return q.fail("border 'ignore' is not defined for pad");
    const double value = q.c.scalar_attr("value", 0.0);
    const std::int64_t code = x->grid.code(value);
    if (border == "constant" && std::fabs(x->grid.real(code) - value) > 1e-9 * x->grid.scale)
        return q.fail("its value " + std::to_string(value) + " is not on its input's grid");
    const Pairs padding = q.c.pairs_attr("padding");
    ValueId v = x->v;
    for (std::size_t i = 0; i < padding.size(); ++i)
        v = q.c.pad_border(v, i, padding[i].first, padding[i].second, border, double(code));
    return q.bind_act(q.c.result("output").name, Act{v, x->grid});
}

// concat: every input RESCALEd to the result's grid (or their common grid).
// A compile-time input (ViT's class token, a float variable) is coded on the result's grid, which
// is what rounding the concatenation to it gives (exact).
bool concat_integer(integer::Lowering& q) {
    const nnef::Value& vs = q.c.argument("values");
    std::vector<const Act*> in;
    std::vector<const integer::Real*> reals;  // per input: its compile-time items, when not an activation
    for (const nnef::Value& v : vs.items()) {
        const Act* a = v.is_identifier() ? q.act(v.as_identifier()) : nullptr;
        const integer::Real* r = v.is_identifier() && !a ? q.real(v.as_identifier()) : nullptr;
        if (!a && !r) return q.fail("an input is neither an integer activation nor known at compile time");
        in.push_back(a);
        reals.push_back(r);
    }
    const Tensor& out = q.c.result("value");
    bool bad = false;
    auto og = q.entry_grid(out.name, bad);
    if (bad) return false;
    if (!og) {
        const Act* first = nullptr;
        for (const Act* a : in) {
            if (!a) return q.fail("an input is a compile-time tensor and its result '" + out.name + "' has no graph.quant entry (no grid for it)");
            if (!first) first = a;
            if (!same_grid(a->grid, first->grid))
                return q.fail("its inputs have different grids and its result '" + out.name + "' has no graph.quant entry");
        }
        og = first->grid;
    }
    std::vector<ValueId> parts;
    for (std::size_t i = 0; i < in.size(); ++i) {
        if (in[i]) {
            parts.push_back(q.requantize(*in[i], *og).v);
            continue;
        }
        auto codes = ConstData::allocate(TensorType{og->dtype, reals[i]->shape});
        for (std::size_t k = 0; k < reals[i]->items.size(); ++k) {
            const std::int64_t code = og->code(reals[i]->items[k]);
            if (og->dtype == DType::i16) codes->mutable_items<std::int16_t>()[k] = static_cast<std::int16_t>(code);
            else codes->mutable_items<std::int8_t>()[k] = static_cast<std::int8_t>(code);
        }
        parts.push_back(q.c.constant(std::move(codes)));
    }
    std::int64_t axis = q.c.int_attr("axis");
    if (axis < 0) axis += std::int64_t(out.shape->size());
    Act y{q.c.concat(parts, axis), *og};
    return q.set(out.name, y);
}

}  // namespace tosa_from_nnef_shape_ops_cpp

namespace integer {

// copy, reshape, squeeze, unsqueeze, transpose, slice: the same codes (compile-time items moved).
bool layout_integer(Lowering& q) {
    const Operation& op = q.c.op();
    // the first argument and result (copy's are x and y)
    const std::string x = op.inputs.empty() || !op.inputs[0].second.is_identifier() ? std::string()
                                                                                    : op.inputs[0].second.as_identifier();
    const Tensor& out = q.c.result(op.outputs.at(0).first);
    const Shape& os = *out.shape;
    Ints perm;
    if (op.name == "transpose") {
        perm = q.c.ints_attr("axes");
        const Tensor* in = q.model.tensor(x);
        for (std::size_t i = perm.size(); in && in->shape && i < in->shape->size(); ++i) perm.push_back(std::int64_t(i));
    }
    Ints start;
    bool strided_ = false;
    if (op.name == "slice") {
        const Tensor* in = q.model.tensor(x);
        if (!in || !in->shape) return q.fail("its input has no known shape");
        const Ints axes = q.c.ints_attr("axes"), begin = q.c.ints_attr("begin");
        for (std::int64_t s : q.c.ints_attr("stride")) strided_ = strided_ || s != 1;
        start.assign(in->shape->size(), 0);
        for (std::size_t i = 0; i < axes.size() && i < begin.size(); ++i) {
            const std::size_t a = std::size_t(axes[i] < 0 ? axes[i] + std::int64_t(in->shape->size()) : axes[i]);
            const std::int64_t e = (*in->shape)[a];
            start[a] = std::clamp<std::int64_t>(begin[i] < 0 ? begin[i] + e : begin[i], 0, e);
        }
    }
    if (const Real* r = q.real(x)) {
        if (strided_) return q.fail("strided slices of compile-time tensors have no integer form here");
        Real y;
        y.shape = os;
        if (op.name == "transpose" || op.name == "slice") {
            const Shape& is = r->shape;
            const std::size_t rank = is.size();
            std::vector<std::int64_t> istride(rank, 1);
            for (std::size_t i = rank; i-- > 1;) istride[i - 1] = istride[i] * is[i];
            y.items.resize(std::size_t(items_of(os)));
            std::vector<std::int64_t> idx(rank, 0);
            for (std::size_t k = 0; k < y.items.size(); ++k) {
                std::int64_t src = 0;
                for (std::size_t d = 0; d < rank; ++d)
                    src += op.name == "transpose" ? idx[d] * istride[std::size_t(perm[d])] : (idx[d] + start[d]) * istride[d];
                y.items[k] = r->items[std::size_t(src)];
                for (std::size_t d = rank; d-- > 0;)
                    if (++idx[d] < os[d]) break;
                    else idx[d] = 0;
            }
        } else {
            y.items = r->items;
        }
        return q.bind_real(out.name, std::move(y));
    }
    const Act* a = q.act(x);
    if (!a) return q.fail("its input is neither an integer activation nor known at compile time");
    Act y = *a;
    if (op.name == "transpose") y.v = q.c.transpose(a->v, perm);
    else if (op.name == "slice" && strided_) y.v = tosa_from_nnef_shape_ops_cpp::slice_value(q.c, a->v, os);
    else if (op.name == "slice") y.v = q.c.slice(a->v, start, os);
    else y.v = q.c.reshape(a->v, os);
    return q.bind_act(out.name, y);
}

}  // namespace integer

void add_shape_ops(Registry& r) {
    using namespace tosa_from_nnef_shape_ops_cpp;
    r.push_back({"reshape", "shape_ops", reshape_like, {}, integer::layout_integer});
    r.push_back({"squeeze", "shape_ops", reshape_like, {}, integer::layout_integer});
    r.push_back({"unsqueeze", "shape_ops", reshape_like, {}, integer::layout_integer});
    r.push_back({"transpose", "shape_ops", transpose, {}, integer::layout_integer});
    r.push_back({"concat", "shape_ops", concat, {}, concat_integer});
    r.push_back({"stack", "shape_ops", stack, {}});
    r.push_back({"split", "shape_ops", split, {}, split_integer});
    r.push_back({"unstack", "shape_ops", unstack, {}});
    r.push_back({"slice", "shape_ops", slice, {}, integer::layout_integer});
    r.push_back({"tile", "shape_ops", tile, {}});
    r.push_back({"pad", "shape_ops", pad, {}, pad_integer});
    r.push_back({"gather", "shape_ops", gather, {}, gather_integer});
    r.push_back({"_unsqueeze_shape", "shape_ops", nullptr,
                 "a compile-time helper of unsqueeze on integer arrays, evaluated by the front end; it never is an "
                 "operation of a graph"});
}

}  // namespace nnef::tosa::from_nnef
