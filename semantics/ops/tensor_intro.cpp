// Tensor introducing operations (spec 4.1): external, constant, variable.
#include "semantics/ops/common.hpp"

namespace nnef::sema::ops {

namespace ops_tensor_intro_cpp {

// `shape` items must be strictly positive and the volume must be representable.
bool read_shape(ShapeContext& ctx, Ints& shape, std::int64_t& volume) {
    if (!get_ints(ctx, "shape", shape)) return false;
    if (!check_positive(ctx, "shape", shape)) return false;
    return volume_of(ctx, shape, "'shape'", volume);
}

bool external(ShapeContext& ctx) {
    Ints shape;
    std::int64_t volume = 0;
    if (!read_shape(ctx, shape, volume)) return false;
    ctx.set_shape("output", shape);
    return true;
}

bool constant(ShapeContext& ctx) {
    Ints shape;
    std::int64_t volume = 0;
    if (!read_shape(ctx, shape, volume)) return false;
    const Value& value = ctx.attr("value");
    if (!value.is_array()) return fail(ctx, "attribute 'value' must be an array");
    const std::size_t n = value.size();
    if (n != 1 && static_cast<std::uint64_t>(volume) != n)
        return fail(ctx, "'value' has " + std::to_string(n) + " items; it must have 1 item or as many as the volume " +
                             std::to_string(volume) + " of 'shape' " + str(shape));
    ctx.set_shape("output", shape);
    return true;
}

std::string describe_char(char c) {
    const auto u = static_cast<unsigned char>(c);
    if (u >= 0x20 && u < 0x7f) return "'" + std::string(1, c) + "'";
    static const char hex[] = "0123456789abcdef";
    return std::string("byte 0x") + hex[u >> 4] + hex[u & 15];
}

bool variable(ShapeContext& ctx) {
    Ints shape;
    std::int64_t volume = 0;
    if (!read_shape(ctx, shape, volume)) return false;
    std::string label;
    if (!get_string(ctx, "label", label)) return false;
    // The label matters here only through valid_label (see there).
    if (!valid_label(label)) {
        if (label.empty()) return fail(ctx, "'label' is empty; a variable needs a label");
        for (std::size_t i = 0; i < label.size(); ++i)
            if (!label_char(label[i]))
                return fail(ctx, "'label' " + quote(label) + " contains " + describe_char(label[i]) + " at position " +
                                     std::to_string(i) +
                                     "; labels may only contain letters, digits, '_', '-', '.', '/' and '\\'");
    }
    ctx.set_shape("output", shape);
    return true;
}

}  // namespace ops_tensor_intro_cpp

void add_tensor_intro_ops(OpRegistry& r) {
    r.add({"external", ops_tensor_intro_cpp::external});
    r.add({"constant", ops_tensor_intro_cpp::constant});
    r.add({"variable", ops_tensor_intro_cpp::variable});
}

}  // namespace nnef::sema::ops
