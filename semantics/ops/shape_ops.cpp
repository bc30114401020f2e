// Tensor shape operations (spec 4.5): reshape (with axis_start/axis_count of later revisions),
// squeeze, unsqueeze, transpose, split, concat, stack, unstack, slice (with stride of later
// revisions), and the later primitives tile, pad and gather (SPEC_NOTES 2).
#include "semantics/ops/common.hpp"

#include <algorithm>
#include <cstdint>
#include <optional>

namespace nnef::sema::ops {

namespace ops_shape_ops_cpp {

std::string ext(std::int64_t x) { return std::to_string(x); }

// ---- reshape, squeeze, unsqueeze ---------------------------------------------------------------

bool reshape(ShapeContext& ctx) {
    Shape in;
    Ints shape;
    std::int64_t start = 0, count = -1;
    if (!get_shape(ctx, "input", in) || !get_ints(ctx, "shape", shape) || !get_int_or(ctx, "axis_start", 0, start) ||
        !get_int_or(ctx, "axis_count", -1, count))
        return false;
    const auto rank = static_cast<std::int64_t>(in.size());
    if (start < 0 || start > rank)
        return fail(ctx, "'axis_start' is " + ext(start) + "; it must be in [0, " + ext(rank) + "] for 'input' " +
                             to_string(in));
    if (count == -1) count = rank - start;
    if (count < 0 || count > rank - start)
        return fail(ctx, "'axis_count' is " + ext(count) + "; with 'axis_start' " + ext(start) +
                             " it must be -1 or in [0, " + ext(rank - start) + "] for 'input' " + to_string(in));
    const Shape range(in.begin() + start, in.begin() + start + count);
    std::int64_t volume = 0;
    if (!volume_of(ctx, range, "'input'", volume)) return false;

    Shape replaced = shape;
    std::optional<std::size_t> unknown;
    std::int64_t known = 1;
    for (std::size_t i = 0; i < shape.size(); ++i) {
        const std::int64_t s = shape[i];
        if (s < -1)
            return fail(ctx, "item " + std::to_string(i) + " of 'shape' " + str(shape) + " is " + ext(s) +
                                 "; items must be positive, 0 (inherit) or -1 (infer)");
        if (s == -1) {
            if (unknown)
                return fail(ctx, "'shape' " + str(shape) + " has more than one -1 item; at most one extent can be inferred");
            unknown = i;
            continue;
        }
        if (s == 0) {
            if (static_cast<std::int64_t>(i) >= count)
                return fail(ctx, "item " + std::to_string(i) + " of 'shape' " + str(shape) +
                                     " is 0 (inherit), but the reshaped axes of 'input' " + to_string(in) + " have only " +
                                     ext(count) + " extents");
            replaced[i] = range[i];
        }
        auto p = checked_mul(known, replaced[i]);
        if (!p) return fail(ctx, "the volume of 'shape' " + str(shape) + " overflows a 64-bit integer");
        known = *p;
    }
    const std::string what = count == rank ? "the volume " + ext(volume) + " of 'input' " + to_string(in)
                                           : "the volume " + ext(volume) + " of the reshaped axes " + to_string(range) +
                                                 " of 'input' " + to_string(in);
    if (unknown) {
        if (volume % known != 0)
            return fail(ctx, "the product " + ext(known) + " of the known items of 'shape' " + str(shape) +
                                 " does not divide " + what + ", so -1 cannot be inferred");
        replaced[*unknown] = volume / known;
    } else if (known != volume) {
        return fail(ctx, "the volume " + ext(known) + " of 'shape' " + str(shape) +
                             (shape == replaced ? std::string() : " (" + str(replaced) + " after inheriting 0 items)") +
                             " differs from " + what);
    }
    Shape out(in.begin(), in.begin() + start);
    out.insert(out.end(), replaced.begin(), replaced.end());
    out.insert(out.end(), in.begin() + start + count, in.end());
    ctx.set_shape("output", out);
    return true;
}

bool squeeze(ShapeContext& ctx) {
    Shape in;
    Ints axes;
    if (!get_shape(ctx, "input", in) || !get_ints(ctx, "axes", axes) ||
        !check_axes(ctx, "axes", axes, in.size(), "'input' " + to_string(in)))
        return false;
    Shape out;
    for (std::size_t i = 0; i < in.size(); ++i) {
        const bool squeezed = std::find(axes.begin(), axes.end(), static_cast<std::int64_t>(i)) != axes.end();
        if (!squeezed) {
            out.push_back(in[i]);
        } else if (in[i] != 1) {
            return fail(ctx, "'axes' " + str(axes) + " lists axis " + std::to_string(i) + ", but 'input' " +
                                 to_string(in) + " has extent " + ext(in[i]) + " there; only singleton axes can be squeezed");
        }
    }
    ctx.set_shape("output", out);
    return true;
}

bool unsqueeze(ShapeContext& ctx) {
    Shape in;
    Ints axes;
    if (!get_shape(ctx, "input", in) || !get_ints(ctx, "axes", axes)) return false;
    const std::size_t rank = in.size() + axes.size();
    if (!check_axes(ctx, "axes", axes, rank, "the output (rank of 'input' " + to_string(in) + " plus the number of axes)"))
        return false;
    // `axes` are indices in the output (4.5.1).
    Shape out(rank, 1);
    std::size_t next = 0;
    for (std::size_t i = 0; i < rank; ++i)
        if (std::find(axes.begin(), axes.end(), static_cast<std::int64_t>(i)) == axes.end()) out[i] = in[next++];
    ctx.set_shape("output", out);
    return true;
}

// ---- transpose -----------------------------------------------------------------------------------

bool transpose(ShapeContext& ctx) {
    Shape in;
    Ints axes;
    if (!get_shape(ctx, "input", in) || !get_ints(ctx, "axes", axes)) return false;
    const std::size_t n = axes.size();
    if (n > in.size())
        return fail(ctx, "'axes' " + str(axes) + " has " + std::to_string(n) + " items; it must not be longer than the rank " +
                             std::to_string(in.size()) + " of 'input' " + to_string(in));
    std::vector<bool> seen(n, false);
    for (std::size_t i = 0; i < n; ++i) {
        const std::int64_t a = axes[i];
        if (a < 0 || static_cast<std::uint64_t>(a) >= n || seen[static_cast<std::size_t>(a)])
            return fail(ctx, "'axes' " + str(axes) + " is not a permutation of 0.." + std::to_string(n - 1) +
                                 " (item " + std::to_string(i) + " is " + ext(a) + ")");
        seen[static_cast<std::size_t>(a)] = true;
    }
    Shape out = in;
    for (std::size_t i = 0; i < n; ++i) out[i] = in[static_cast<std::size_t>(axes[i])];
    ctx.set_shape("output", out);
    return true;
}

// ---- split, concat, stack, unstack ---------------------------------------------------------------

// Checks that the array result `name` is bound to `n` tensors.
bool check_count(ShapeContext& ctx, std::string_view name, std::size_t n, const std::string& why) {
    const std::size_t bound = ctx.result_count(name);
    if (bound == n) return true;
    return fail(ctx, "the result " + q(name) + " is bound to " + std::to_string(bound) + " tensors but " + why +
                         " gives " + std::to_string(n));
}

bool check_axis(ShapeContext& ctx, std::int64_t axis, std::size_t rank, const std::string& of) {
    if (axis >= 0 && static_cast<std::uint64_t>(axis) < rank) return true;
    return fail(ctx, "'axis' is " + ext(axis) + "; it must be non-negative and less than the rank " +
                         std::to_string(rank) + " of " + of);
}

bool split(ShapeContext& ctx) {
    Shape value;
    std::int64_t axis = 0;
    Ints ratios;
    if (!get_shape(ctx, "value", value) || !get_int(ctx, "axis", axis) || !get_ints(ctx, "ratios", ratios) ||
        !check_axis(ctx, axis, value.size(), "'value' " + to_string(value)))
        return false;
    if (ratios.empty()) return fail(ctx, "'ratios' is empty; there must be at least one chunk");
    if (!check_positive(ctx, "ratios", ratios)) return false;
    std::int64_t total = 0;
    for (std::int64_t r : ratios) {
        auto t = checked_add(total, r);
        if (!t) return fail(ctx, "the sum of 'ratios' " + str(ratios) + " overflows a 64-bit integer");
        total = *t;
    }
    const std::int64_t extent = value[static_cast<std::size_t>(axis)];
    if (extent % total != 0)
        return fail(ctx, "the sum " + ext(total) + " of 'ratios' " + str(ratios) + " does not divide the extent " +
                             ext(extent) + " of 'value' " + to_string(value) + " along axis " + ext(axis));
    if (!check_count(ctx, "values", ratios.size(), "'ratios' " + str(ratios))) return false;
    std::vector<Shape> shapes;
    for (std::int64_t r : ratios) {
        Shape s = value;
        s[static_cast<std::size_t>(axis)] = extent / total * r;
        shapes.push_back(std::move(s));
    }
    ctx.set_shapes("values", std::move(shapes));
    return true;
}

bool concat(ShapeContext& ctx) {
    std::vector<Shape> values;
    std::int64_t axis = 0;
    if (!get_shapes(ctx, "values", values) || !get_int(ctx, "axis", axis)) return false;
    if (values.empty()) return fail(ctx, "'values' is empty; there must be at least one tensor to concatenate");
    const Shape& first = values[0];
    if (!check_axis(ctx, axis, first.size(), "'values' (" + to_string(first) + ")")) return false;
    const auto a = static_cast<std::size_t>(axis);
    Shape out = first;
    for (std::size_t i = 1; i < values.size(); ++i) {
        const Shape& s = values[i];
        if (s.size() != first.size())
            return fail(ctx, "'values' have different ranks: item 0 " + to_string(first) + " and item " +
                                 std::to_string(i) + " " + to_string(s));
        for (std::size_t k = 0; k < s.size(); ++k)
            if (k != a && s[k] != first[k])
                return fail(ctx, "'values' differ outside the concatenation axis " + ext(axis) + ": item 0 " +
                                     to_string(first) + " and item " + std::to_string(i) + " " + to_string(s) +
                                     " in dimension " + std::to_string(k));
        auto sum = checked_add(out[a], s[a]);
        if (!sum) return fail(ctx, "the concatenated extent overflows a 64-bit integer");
        out[a] = *sum;
    }
    ctx.set_shape("value", out);
    return true;
}

bool stack(ShapeContext& ctx) {
    std::vector<Shape> values;
    std::int64_t axis = 0;
    if (!get_shapes(ctx, "values", values) || !get_int(ctx, "axis", axis)) return false;
    if (values.empty()) return fail(ctx, "'values' is empty; there must be at least one tensor to stack");
    const Shape& first = values[0];
    for (std::size_t i = 1; i < values.size(); ++i)
        if (values[i] != first)
            return fail(ctx, "'values' must all have the same shape: item 0 is " + to_string(first) + ", item " +
                                 std::to_string(i) + " is " + to_string(values[i]));
    if (!check_axis(ctx, axis, first.size() + 1, "the output (rank of 'values' " + to_string(first) + " plus 1)"))
        return false;
    Shape out = first;
    out.insert(out.begin() + axis, static_cast<std::int64_t>(values.size()));
    ctx.set_shape("value", out);
    return true;
}

bool unstack(ShapeContext& ctx) {
    Shape value;
    std::int64_t axis = 0;
    if (!get_shape(ctx, "value", value) || !get_int(ctx, "axis", axis) ||
        !check_axis(ctx, axis, value.size(), "'value' " + to_string(value)))
        return false;
    const std::int64_t n = value[static_cast<std::size_t>(axis)];
    if (!check_count(ctx, "values", static_cast<std::size_t>(n),
                     "the extent of 'value' " + to_string(value) + " along axis " + ext(axis)))
        return false;
    Shape item = value;
    item.erase(item.begin() + axis);
    ctx.set_shapes("values", std::vector<Shape>(static_cast<std::size_t>(n), item));
    return true;
}

// ---- slice -----------------------------------------------------------------------------------------

// Revision 3 (4.5.4): begin and end in (-x, x], negative items count from the end, end == 0 means
// x, and end > begin. With a negative stride (later revisions) the slice walks from begin down to
// end (exclusive): begin in [-x, x), end in [-x - 1, x), negative items count from the end (so
// -x - 1 is "before the first item"), and begin > end.
bool slice(ShapeContext& ctx) {
    Shape in;
    Ints axes, begin, end, stride;
    if (!get_shape(ctx, "input", in) || !get_ints(ctx, "axes", axes) || !get_ints(ctx, "begin", begin) ||
        !get_ints(ctx, "end", end) || !get_ints_or(ctx, "stride", {}, stride))
        return false;
    if (begin.size() != axes.size() || end.size() != axes.size())
        return fail(ctx, "'axes' " + str(axes) + ", 'begin' " + str(begin) + " and 'end' " + str(end) +
                             " must have the same length");
    if (!stride.empty() && stride.size() != axes.size())
        return fail(ctx, "'stride' " + str(stride) + " must be empty or have one item per item of 'axes' " + str(axes));
    if (!check_axes(ctx, "axes", axes, in.size(), "'input' " + to_string(in))) return false;
    Shape out = in;
    for (std::size_t i = 0; i < axes.size(); ++i) {
        const auto a = static_cast<std::size_t>(axes[i]);
        const std::int64_t x = in[a];
        const std::int64_t s = stride.empty() ? 1 : stride[i];
        std::int64_t b = begin[i], e = end[i];
        const std::string where = " for axis " + ext(axes[i]) + " of 'input' " + to_string(in);
        if (s == 0) return fail(ctx, "item " + std::to_string(i) + " of 'stride' " + str(stride) + " is 0");
        if (s > 0) {
            if (b <= -x || b > x)
                return fail(ctx, "'begin' item " + ext(b) + " is outside (-" + ext(x) + ", " + ext(x) + "]" + where);
            if (e >= 2147483647 && e > x && !ctx.strict()) {
                // NNEF-Tools' converters write INT32_MAX for "to the end"; only that sentinel (or a
                // larger one) is read so: any other bound past the extent stays an error (conformance 296)
                ctx.warning("slice: 'end' item " + ext(e) + " is the 'to the end' sentinel of exported models" + where +
                            "; read as " + ext(x) + " (a de facto form; revision 3 requires (-x, x], with 0 for 'to the end')");
                e = x;
            }
            if (e <= -x || e > x)
                return fail(ctx, "'end' item " + ext(e) + " is outside (-" + ext(x) + ", " + ext(x) + "]" + where);
            if (b < 0) b += x;
            if (e < 0) e += x;
            if (e == 0) e = x;
            if (e <= b)
                return fail(ctx, "'end' item " + ext(end[i]) + " must be after 'begin' item " + ext(begin[i]) + where +
                                 " (the slice would be empty)");
            out[a] = (e - b - 1) / s + 1;
        } else {
            if (b < -x || b >= x)
                return fail(ctx, "'begin' item " + ext(b) + " is outside [-" + ext(x) + ", " + ext(x) + ")" + where +
                                     " (negative stride)");
            if (e < -x - 1 || e >= x)
                return fail(ctx, "'end' item " + ext(e) + " is outside [-" + ext(x) + " - 1, " + ext(x) + ")" + where +
                                     " (negative stride)");
            if (b < 0) b += x;
            if (e < 0) e += x;
            if (b <= e)
                return fail(ctx, "'end' item " + ext(end[i]) + " must be before 'begin' item " + ext(begin[i]) + where +
                                 " with a negative stride (the slice would be empty)");
            const std::int64_t step = s == INT64_MIN ? INT64_MAX : -s;  // |s| (any step past the range takes one item)
            out[a] = (b - e - 1) / step + 1;
        }
    }
    ctx.set_shape("output", out);
    return true;
}

// ---- tile, pad, gather -------------------------------------------------------------------------

bool tile(ShapeContext& ctx) {
    Shape in;
    Ints repeats;
    if (!get_shape(ctx, "input", in) || !get_ints(ctx, "repeats", repeats)) return false;
    if (repeats.size() != in.size())
        return fail(ctx, "'repeats' " + str(repeats) + " has " + std::to_string(repeats.size()) +
                             " items; it needs one per dimension of 'input' " + to_string(in));
    if (!check_positive(ctx, "repeats", repeats)) return false;
    Shape out = in;
    for (std::size_t i = 0; i < in.size(); ++i) {
        auto p = checked_mul(in[i], repeats[i]);
        if (!p) return fail(ctx, "the tiled extent in dimension " + std::to_string(i) + " overflows a 64-bit integer");
        out[i] = *p;
    }
    ctx.set_shape("output", out);
    return true;
}

bool pad(ShapeContext& ctx) {
    Shape in;
    Pairs padding;
    std::string border;
    if (!get_shape(ctx, "input", in) || !get_pairs(ctx, "padding", padding) || !get_string(ctx, "border", border) ||
        !check_one_of(ctx, "border", border, borders_no_ignore()))
        return false;
    if (padding.size() > in.size())
        return fail(ctx, "'padding' has " + std::to_string(padding.size()) + " items but 'input' " + to_string(in) +
                             " has rank " + std::to_string(in.size()) + "; it must have at most one item per dimension");
    Shape out = in;
    for (std::size_t i = 0; i < padding.size(); ++i) {
        const auto [p, q_] = padding[i];
        const std::string item = "item " + std::to_string(i) + " of 'padding' (" + ext(p) + ", " + ext(q_) + ")";
        if (p < 0 || q_ < 0) return fail(ctx, item + " is negative; padding extents must be non-negative");
        // 'reflect' mirrors around the edge item, 'reflect-even' repeats it: the padding must fit
        // in the input.
        const std::int64_t limit = border == "reflect" ? in[i] - 1 : border == "reflect-even" ? in[i] : INT64_MAX;
        if (p > limit || q_ > limit)
            return fail(ctx, item + " is larger than " + ext(limit) + ", the most that border " + quote(border) +
                                 " can take from extent " + ext(in[i]) + " of 'input' " + to_string(in));
        auto sum = checked_add(in[i], p);
        if (sum) sum = checked_add(*sum, q_);
        if (!sum) return fail(ctx, "the padded extent in dimension " + std::to_string(i) + " overflows a 64-bit integer");
        out[i] = *sum;
    }
    ctx.set_shape("output", out);
    return true;
}

bool gather(ShapeContext& ctx) {
    Shape in, indices;
    std::int64_t axis = 0;
    if (!get_shape(ctx, "input", in) || !get_shape(ctx, "indices", indices) || !get_int(ctx, "axis", axis) ||
        !check_axis(ctx, axis, in.size(), "'input' " + to_string(in)))
        return false;
    Shape out(in.begin(), in.begin() + axis);
    out.insert(out.end(), indices.begin(), indices.end());
    out.insert(out.end(), in.begin() + axis + 1, in.end());
    ctx.set_shape("output", out);
    return true;
}

}  // namespace ops_shape_ops_cpp

void add_shape_ops(OpRegistry& r) {
    using namespace ops_shape_ops_cpp;
    r.add({"reshape", reshape});
    r.add({"squeeze", squeeze});
    r.add({"unsqueeze", unsqueeze});
    r.add({"transpose", transpose});
    r.add({"split", split});
    r.add({"concat", concat});
    r.add({"stack", stack});
    r.add({"unstack", unstack});
    r.add({"slice", slice});
    r.add({"tile", tile});
    r.add({"pad", pad});
    r.add({"gather", gather});
}

}  // namespace nnef::sema::ops
