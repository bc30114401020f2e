#include "semantics/ops/common.hpp"

#include <algorithm>

namespace nnef::sema::ops {

namespace ops_common_cpp {

std::string kind_name(const Value& v) {
    switch (v.kind()) {
        case Value::Kind::none: return "nothing";
        case Value::Kind::integer: return "an integer";
        case Value::Kind::scalar: return "a scalar";
        case Value::Kind::logical: return "a logical";
        case Value::Kind::string: return "a string";
        case Value::Kind::identifier: return "a tensor";
        case Value::Kind::array: return "an array";
        case Value::Kind::tuple: return "a tuple";
    }
    return "a value";
}

// The caller evaluates attributes against the declaration, so a missing or mistyped attribute is
// a bug in the caller (or a custom registry entry); report it instead of crashing.
bool bad_attribute(ShapeContext& ctx, std::string_view name, const Value& v, const char* expected) {
    if (v.is_none()) return fail(ctx, "missing attribute " + q(name));
    return fail(ctx, "attribute " + q(name) + " is " + kind_name(v) + ", expected " + expected);
}

bool int_item(const Value& v, std::int64_t& out) {
    if (!v.is_integer()) return false;
    out = v.as_integer();
    return true;
}

}  // namespace ops_common_cpp

bool fail(ShapeContext& ctx, const std::string& message) { return ctx.error(ctx.op().name + ": " + message); }

std::string str(const Ints& items) {
    std::string out = "[";
    for (std::size_t i = 0; i < items.size(); ++i) {
        if (i) out += ',';
        out += std::to_string(items[i]);
    }
    return out + "]";
}

std::string q(std::string_view name) { return "'" + std::string(name) + "'"; }

std::optional<std::int64_t> checked_add(std::int64_t a, std::int64_t b) {
    std::int64_t r = 0;
    if (__builtin_add_overflow(a, b, &r)) return std::nullopt;
    return r;
}

std::optional<std::int64_t> checked_sub(std::int64_t a, std::int64_t b) {
    std::int64_t r = 0;
    if (__builtin_sub_overflow(a, b, &r)) return std::nullopt;
    return r;
}

std::optional<std::int64_t> checked_mul(std::int64_t a, std::int64_t b) {
    std::int64_t r = 0;
    if (__builtin_mul_overflow(a, b, &r)) return std::nullopt;
    return r;
}

std::optional<std::int64_t> checked_volume(const Ints& items) {
    std::int64_t v = 1;
    for (std::int64_t x : items) {
        auto p = checked_mul(v, x);
        if (!p) return std::nullopt;
        v = *p;
    }
    return v;
}

bool volume_of(ShapeContext& ctx, const Ints& items, std::string_view what, std::int64_t& out) {
    auto v = checked_volume(items);
    if (!v) return fail(ctx, "the volume of " + std::string(what) + " " + str(items) + " overflows a 64-bit integer");
    out = *v;
    return true;
}

// ---- attributes ------------------------------------------------------------------------------

bool get_int(ShapeContext& ctx, std::string_view name, std::int64_t& out) {
    const Value& v = ctx.attr(name);
    if (!ops_common_cpp::int_item(v, out)) return ops_common_cpp::bad_attribute(ctx, name, v, "an integer");
    return true;
}

bool get_ints(ShapeContext& ctx, std::string_view name, Ints& out) {
    const Value& v = ctx.attr(name);
    if (!v.is_array()) return ops_common_cpp::bad_attribute(ctx, name, v, "an integer array");
    out.clear();
    out.reserve(v.size());
    for (const Value& item : v.items()) {
        std::int64_t x = 0;
        if (!ops_common_cpp::int_item(item, x))
            return fail(ctx, "attribute " + q(name) + " has an item that is " + ops_common_cpp::kind_name(item) +
                                 ", expected an integer");
        out.push_back(x);
    }
    return true;
}

bool get_pairs(ShapeContext& ctx, std::string_view name, Pairs& out) {
    const Value& v = ctx.attr(name);
    if (!v.is_array()) return ops_common_cpp::bad_attribute(ctx, name, v, "an array of (integer, integer)");
    out.clear();
    out.reserve(v.size());
    for (const Value& item : v.items()) {
        Pair p;
        if (!item.is_tuple() || item.size() != 2 || !ops_common_cpp::int_item(item[0], p.first) ||
            !ops_common_cpp::int_item(item[1], p.second))
            return fail(ctx, "attribute " + q(name) + " has an item that is not an (integer, integer) pair");
        out.push_back(p);
    }
    return true;
}

namespace ops_common_cpp {
struct LabelChars {
    bool ok[256] = {};
    constexpr LabelChars() {
        for (int c = 0; c < 256; ++c)
            ok[c] = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-' ||
                    c == '.' || c == '/' || c == '\\';
    }
};
constexpr LabelChars label_chars{};
}  // namespace ops_common_cpp

bool label_char(char c) { return ops_common_cpp::label_chars.ok[static_cast<unsigned char>(c)]; }

bool valid_label(std::string_view label) {
    bool ok = !label.empty();
    for (char c : label) ok &= ops_common_cpp::label_chars.ok[static_cast<unsigned char>(c)];
    return ok;
}

bool get_string(ShapeContext& ctx, std::string_view name, std::string& out) {
    const Value& v = ctx.attr(name);
    if (!v.is_string()) return ops_common_cpp::bad_attribute(ctx, name, v, "a string");
    out = v.as_string();
    return true;
}

bool get_logical(ShapeContext& ctx, std::string_view name, bool& out) {
    const Value& v = ctx.attr(name);
    if (!v.is_logical()) return ops_common_cpp::bad_attribute(ctx, name, v, "a logical");
    out = v.as_logical();
    return true;
}

bool get_int_or(ShapeContext& ctx, std::string_view name, std::int64_t fallback, std::int64_t& out) {
    if (ctx.attr(name).is_none()) {
        out = fallback;
        return true;
    }
    return get_int(ctx, name, out);
}

bool get_ints_or(ShapeContext& ctx, std::string_view name, const Ints& fallback, Ints& out) {
    if (ctx.attr(name).is_none()) {
        out = fallback;
        return true;
    }
    return get_ints(ctx, name, out);
}

// ---- inputs ----------------------------------------------------------------------------------

bool get_shape(ShapeContext& ctx, std::string_view name, Shape& out) {
    const Value& v = ctx.input(name);
    if (v.is_none()) return fail(ctx, "missing tensor argument " + q(name));
    if (v.is_list()) return fail(ctx, "tensor argument " + q(name) + " is an array, expected a single tensor");
    out = ctx.shape_of(v);
    return true;
}

bool get_shapes(ShapeContext& ctx, std::string_view name, std::vector<Shape>& out) {
    const Value& v = ctx.input(name);
    if (v.is_none()) return fail(ctx, "missing tensor argument " + q(name));
    if (!v.is_array()) return fail(ctx, "tensor argument " + q(name) + " is not an array of tensors");
    out.clear();
    out.reserve(v.size());
    for (const Value& item : v.items()) out.push_back(ctx.shape_of(item));
    return true;
}

// ---- broadcasting ----------------------------------------------------------------------------

bool broadcast(ShapeContext& ctx, const std::vector<Operand>& operands, Shape& out) {
    std::size_t rank = 0;
    for (const Operand& o : operands) rank = std::max(rank, o.shape.size());
    out.assign(rank, 1);
    std::vector<std::size_t> from(rank, operands.size());  // operand that set the extent
    for (std::size_t k = 0; k < operands.size(); ++k) {
        const Shape& s = operands[k].shape;
        for (std::size_t i = 0; i < s.size(); ++i) {
            if (s[i] == out[i] || s[i] == 1) continue;
            if (out[i] == 1) {
                out[i] = s[i];
                from[i] = k;
                continue;
            }
            const Operand& prev = operands[from[i]];
            return fail(ctx, "the shapes of " + q(prev.name) + " " + to_string(prev.shape) + " and " +
                                 q(operands[k].name) + " " + to_string(s) + " do not broadcast: extents " +
                                 std::to_string(out[i]) + " and " + std::to_string(s[i]) + " in dimension " +
                                 std::to_string(i) +
                                 " (dimensions are matched from dimension 0; missing trailing extents are 1)");
        }
    }
    return true;
}

// One tensor argument `in`, one result `out` of the same shape.
ShapeFunction same_shape_op(std::string in, std::string out) {
    return [in = std::move(in), out = std::move(out)](ShapeContext& ctx) {
        Shape s;
        if (!get_shape(ctx, in, s)) return false;
        ctx.set_shape(out, s);
        return true;
    };
}

// Tensor arguments `ins` broadcast together (4.2.2) into the result `out`.
ShapeFunction broadcasting_op(std::vector<std::string> ins, std::string out) {
    return [ins = std::move(ins), out = std::move(out)](ShapeContext& ctx) {
        std::vector<Operand> operands;
        for (const std::string& name : ins) {
            Operand o{name, {}};
            if (!get_shape(ctx, name, o.shape)) return false;
            operands.push_back(std::move(o));
        }
        Shape s;
        if (!broadcast(ctx, operands, s)) return false;
        ctx.set_shape(out, s);
        return true;
    };
}

// ---- checks ----------------------------------------------------------------------------------

bool check_positive(ShapeContext& ctx, std::string_view name, const Ints& items) {
    for (std::size_t i = 0; i < items.size(); ++i)
        if (items[i] <= 0)
            return fail(ctx, "item " + std::to_string(i) + " of " + q(name) + " " + str(items) + " is " +
                                 std::to_string(items[i]) + "; items must be positive");
    return true;
}

bool check_axes(ShapeContext& ctx, std::string_view name, const Ints& axes, std::size_t rank,
                std::string_view rank_of, bool unique) {
    for (std::size_t i = 0; i < axes.size(); ++i) {
        const std::int64_t a = axes[i];
        if (a < 0)
            return fail(ctx, "item " + std::to_string(i) + " of " + q(name) + " " + str(axes) + " is " +
                                 std::to_string(a) + "; axes must be non-negative");
        if (static_cast<std::uint64_t>(a) >= rank)
            return fail(ctx, "item " + std::to_string(i) + " of " + q(name) + " " + str(axes) + " is " +
                                 std::to_string(a) + "; axes must be less than the rank " + std::to_string(rank) +
                                 " of " + std::string(rank_of));
        if (unique)
            for (std::size_t j = 0; j < i; ++j)
                if (axes[j] == a)
                    return fail(ctx, q(name) + " " + str(axes) + " lists axis " + std::to_string(a) +
                                         " twice; axes must be unique");
    }
    return true;
}

bool check_one_of(ShapeContext& ctx, std::string_view name, const std::string& value,
                  const std::vector<std::string>& allowed) {
    for (const std::string& a : allowed)
        if (value == a) return true;
    std::string list;
    for (std::size_t i = 0; i < allowed.size(); ++i) list += (i ? ", '" : "'") + allowed[i] + "'";
    return fail(ctx, q(name) + " is " + quote(value) + "; it must be one of " + list);
}

bool check_min_rank(ShapeContext& ctx, std::string_view name, const Shape& shape, std::size_t min_rank,
                    std::string_view why) {
    if (shape.size() >= min_rank) return true;
    return fail(ctx, q(name) + " " + to_string(shape) + " has rank " + std::to_string(shape.size()) +
                         "; it must have rank at least " + std::to_string(min_rank) +
                         (why.empty() ? std::string() : " (" + std::string(why) + ")"));
}

Shape bias_shape(ShapeContext& ctx, std::string_view name, const Shape& shape) {
    if (shape.size() != 1 || shape[0] == 1 || ctx.strict()) return shape;
    Shape read{1, shape[0]};
    ctx.warning(ctx.op().name + ": rank-1 " + q(name) + " " + to_string(shape) + " is read as " + to_string(read) +
                " (a de facto form of exported models; revision 3 requires " + to_string(read) + ")");
    return read;
}

const std::vector<std::string>& borders_all() {
    static const std::vector<std::string> v{"ignore", "constant", "replicate", "reflect", "reflect-even"};
    return v;
}

const std::vector<std::string>& borders_no_ignore() {
    static const std::vector<std::string> v{"constant", "replicate", "reflect", "reflect-even"};
    return v;
}

const std::vector<std::string>& linear_methods() {
    static const std::vector<std::string> v{"asymmetric", "symmetric", "aligned"};
    return v;
}

// ---- sliding windows -------------------------------------------------------------------------

namespace ops_common_cpp {

bool too_long(ShapeContext& ctx, std::string_view name, std::size_t length, const Window& w, std::string_view unit) {
    return fail(ctx, q(name) + " has " + std::to_string(length) + " items but there are " + std::to_string(w.dims) +
                         " " + std::string(unit) + "; it must have at most one item per dimension");
}

// Dilated filter size fd = (f - 1) * d + 1.
std::optional<std::int64_t> dilated(const Window& w, std::size_t i) {
    auto a = checked_mul(w.size[i] - 1, w.dilation[i]);
    if (!a) return std::nullopt;
    return checked_add(*a, 1);
}

}  // namespace ops_common_cpp

bool set_window(ShapeContext& ctx, Window& w, std::string_view unit, const Pairs& padding, const Ints& stride,
                const Ints& dilation) {
    if (padding.size() > w.dims) return ops_common_cpp::too_long(ctx, "padding", padding.size(), w, unit);
    if (stride.size() > w.dims) return ops_common_cpp::too_long(ctx, "stride", stride.size(), w, unit);
    if (dilation.size() > w.dims) return ops_common_cpp::too_long(ctx, "dilation", dilation.size(), w, unit);
    if (!check_positive(ctx, "stride", stride) || !check_positive(ctx, "dilation", dilation)) return false;
    w.auto_padding = padding.empty();
    w.padding = padding;
    w.padding.resize(w.dims, Pair{0, 0});
    w.stride = stride;
    w.stride.resize(w.dims, 1);
    w.dilation = dilation;
    w.dilation.resize(w.dims, 1);
    return true;
}

bool read_window(ShapeContext& ctx, Window& w, std::string_view unit) {
    Pairs padding;
    Ints stride, dilation;
    if (!get_pairs(ctx, "padding", padding) || !get_ints(ctx, "stride", stride) ||
        !get_ints(ctx, "dilation", dilation))
        return false;
    return set_window(ctx, w, unit, padding, stride, dilation);
}

bool read_size(ShapeContext& ctx, std::string_view name, Window& w, std::string_view unit) {
    Ints size;
    if (!get_ints(ctx, name, size)) return false;
    if (size.size() > w.dims) return ops_common_cpp::too_long(ctx, name, size.size(), w, unit);
    if (!check_positive(ctx, name, size)) return false;
    size.resize(w.dims, 1);
    w.size = std::move(size);
    return true;
}

std::optional<std::int64_t> down_extent(const Window& w, std::size_t i, std::int64_t X) {
    const std::int64_t s = w.stride[i];
    if (w.auto_padding) return X / s + (X % s != 0 ? 1 : 0);  // ceil(X / s), X > 0
    auto fd = ops_common_cpp::dilated(w, i);
    if (!fd) return std::nullopt;
    auto padded = checked_add(w.padding[i].first, X);
    if (padded) padded = checked_add(*padded, w.padding[i].second);
    if (!padded) return std::nullopt;
    auto num = checked_sub(*padded, *fd);
    if (!num || *num < 0) return std::nullopt;
    return *num / s + 1;
}

bool window_down(ShapeContext& ctx, const Window& w, const Shape& in, std::string_view input_name, Shape& out) {
    out = in;
    for (std::size_t i = 0; i < w.dims; ++i) {
        const std::size_t k = w.offset + i;
        auto x = down_extent(w, i, in[k]);
        if (x) {
            out[k] = *x;
            continue;
        }
        auto fd = ops_common_cpp::dilated(w, i);
        if (!fd) return fail(ctx, "the dilated window size in dimension " + std::to_string(k) + " overflows");
        return fail(ctx, "in dimension " + std::to_string(k) + " the padded extent of " + std::string(input_name) + " " +
                             to_string(in) + ", p + X + q = " + std::to_string(w.padding[i].first) + " + " +
                             std::to_string(in[k]) + " + " + std::to_string(w.padding[i].second) +
                             ", is smaller than the dilated window size (f - 1) * d + 1 = " + std::to_string(*fd));
    }
    return true;
}

bool window_up(ShapeContext& ctx, const Window& w, const Shape& in, std::string_view input_name,
               const Ints& output_shape, Shape& out) {
    out = in;
    for (std::size_t i = 0; i < w.dims; ++i) {
        const std::size_t k = w.offset + i;
        const std::int64_t x = in[k];
        const std::int64_t s = w.stride[i];
        if (!output_shape.empty()) {
            const std::int64_t X = output_shape[k];
            auto back = down_extent(w, i, X);
            if (!back || *back != x)
                return fail(ctx, "'output_shape' " + str(output_shape) + " is inconsistent with " + std::string(input_name) + " " +
                                     to_string(in) + ": down-scaling its extent " + std::to_string(X) +
                                     " in dimension " + std::to_string(k) + " gives " +
                                     (back ? std::to_string(*back) : std::string("no valid extent")) + ", not " +
                                     std::to_string(x));
            out[k] = X;
            continue;
        }
        std::optional<std::int64_t> X;
        if (w.auto_padding) {
            X = checked_mul(x, s);
        } else {
            auto fd = ops_common_cpp::dilated(w, i);
            auto a = checked_mul(x - 1, s);
            if (fd && a) X = checked_add(*a, *fd);
            if (X) X = checked_sub(*X, w.padding[i].first);
            if (X) X = checked_sub(*X, w.padding[i].second);
        }
        if (!X) return fail(ctx, "the up-scaled extent in dimension " + std::to_string(k) + " overflows");
        if (*X <= 0)
            return fail(ctx, "the up-scaled extent in dimension " + std::to_string(k) +
                                 ", (x - 1) * s + (f - 1) * d + 1 - (p + q), is " + std::to_string(*X) +
                                 "; the padding is too large for " + std::string(input_name) + " " + to_string(in));
        out[k] = *X;
    }
    return true;
}

}  // namespace nnef::sema::ops
