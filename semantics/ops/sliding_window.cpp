// Sliding-window operations (spec 4.3.1-4.3.3) and the compounds built from them: conv, deconv,
// separable_conv, separable_deconv (4.9.2), box, debox, argmax_pool, sample, desample, and the
// pooling compounds max_pool_with_index, max_pool, avg_pool, rms_pool (4.9.3).
#include "semantics/ops/common.hpp"

#include <optional>

namespace nnef::sema::ops {

namespace ops_sliding_window_cpp {

// ---- conv / deconv -----------------------------------------------------------------------------

// One convolution or deconvolution, with its arguments given explicitly so that the separable
// compounds can chain two of them. Names are as displayed in messages (e.g. "'filter'").
struct Conv {
    bool reverse = false;  // deconv
    std::string input_name = "'input'";
    std::string filter_name = "'filter'";
    std::string bias_name = "'bias'";
    Shape input, filter;
    std::optional<Shape> bias;  // as read (bias_shape applied)
    Pairs padding;
    Ints stride, dilation;
    Ints output_shape;  // deconv only
    std::int64_t groups = 1;
};

bool conv_shape(ShapeContext& ctx, const Conv& c, Shape& out) {
    const std::size_t rank = c.input.size();
    if (rank < 2)
        return fail(ctx, c.input_name + " " + to_string(c.input) +
                             " must have rank at least 2 (a batch and a channel dimension)");
    if (c.filter.size() != rank)
        return fail(ctx, "the rank of " + c.filter_name + " " + to_string(c.filter) + " is " +
                             std::to_string(c.filter.size()) + "; it must equal the rank " + std::to_string(rank) +
                             " of " + c.input_name + " " + to_string(c.input));
    Window w;
    w.dims = rank - 2;
    w.offset = 2;
    w.size.assign(c.filter.begin() + 2, c.filter.end());
    if (!set_window(ctx, w, "spatial dimensions", c.padding, c.stride, c.dilation)) return false;

    if (c.groups < 0) return fail(ctx, "'groups' is " + std::to_string(c.groups) + "; it must be non-negative");
    const std::int64_t in_channels = c.input[1];
    const std::int64_t groups = c.groups == 0 ? in_channels : c.groups;
    const std::string groups_text =
        c.groups == 0 ? "'groups' = 0 (one group per input channel, " + std::to_string(groups) + ")"
                      : "'groups' (" + std::to_string(groups) + ")";
    if (c.filter[0] % groups != 0)
        return fail(ctx, groups_text + " does not divide the batch extent " + std::to_string(c.filter[0]) + " of " +
                             c.filter_name + " " + to_string(c.filter));
    std::int64_t out_channels = 0;
    if (!c.reverse) {
        // filter (c, C / G, f...): channel extent times groups equals the input channels.
        auto total = checked_mul(c.filter[1], groups);
        if (!total || *total != in_channels)
            return fail(ctx, "the channel extent " + std::to_string(c.filter[1]) + " of " + c.filter_name + " " +
                                 to_string(c.filter) + " times " + groups_text + " must equal the channel extent " +
                                 std::to_string(in_channels) + " of " + c.input_name + " " + to_string(c.input));
        out_channels = c.filter[0];
    } else {
        // filter (c, C / G, f...) with c the input channels and C the output channels (SPEC_NOTES 5).
        if (c.filter[0] != in_channels)
            return fail(ctx, "the batch extent " + std::to_string(c.filter[0]) + " of " + c.filter_name + " " +
                                 to_string(c.filter) + " must equal the channel extent " + std::to_string(in_channels) +
                                 " of " + c.input_name + " " + to_string(c.input));
        auto total = checked_mul(c.filter[1], groups);
        if (!total) return fail(ctx, "the number of output channels overflows");
        out_channels = *total;
    }

    if (!c.reverse) {
        if (!window_down(ctx, w, c.input, c.input_name, out)) return false;
    } else {
        if (!c.output_shape.empty()) {
            if (c.output_shape.size() != rank)
                return fail(ctx, "'output_shape' " + str(c.output_shape) + " has " +
                                     std::to_string(c.output_shape.size()) + " items; it must be empty or have one " +
                                     "item per dimension of " + c.input_name + " (" + std::to_string(rank) + ")");
            if (!check_positive(ctx, "output_shape", c.output_shape)) return false;
            if (c.output_shape[0] != c.input[0])
                return fail(ctx, "'output_shape' " + str(c.output_shape) + " has batch extent " +
                                     std::to_string(c.output_shape[0]) + "; it must equal the batch extent " +
                                     std::to_string(c.input[0]) + " of " + c.input_name + " " + to_string(c.input));
            if (c.output_shape[1] != out_channels)
                return fail(ctx, "'output_shape' " + str(c.output_shape) + " has channel extent " +
                                     std::to_string(c.output_shape[1]) + "; the output has " +
                                     std::to_string(out_channels) + " channels (channel extent of " + c.filter_name +
                                     " " + to_string(c.filter) + " times the groups)");
        }
        if (!window_up(ctx, w, c.input, c.input_name, c.output_shape, out)) return false;
    }
    out[1] = out_channels;

    if (c.bias) {
        const Shape& b = *c.bias;
        for (std::size_t k = 0; k < b.size(); ++k) {
            if (k == 1) {
                if (b[1] != 1 && b[1] != out_channels)
                    return fail(ctx, "the channel extent " + std::to_string(b[1]) + " of " + c.bias_name + " " +
                                         to_string(b) + " must be 1 or the number of output channels " +
                                         std::to_string(out_channels));
            } else if (b[k] != 1) {
                return fail(ctx, c.bias_name + " " + to_string(b) + " has extent " + std::to_string(b[k]) +
                                     " in dimension " + std::to_string(k) +
                                     "; a bias must be singular in every dimension but the channel dimension (1)");
            }
        }
    }
    return true;
}

// Reads the arguments common to conv and deconv (and the window attributes of the separable ones).
bool read_window_attrs(ShapeContext& ctx, Conv& c) {
    std::string border;
    if (!get_string(ctx, "border", border) || !check_one_of(ctx, "border", border, borders_no_ignore())) return false;
    return get_pairs(ctx, "padding", c.padding) && get_ints(ctx, "stride", c.stride) &&
           get_ints(ctx, "dilation", c.dilation);
}

bool read_bias(ShapeContext& ctx, Conv& c) {
    Shape b;
    if (!get_shape(ctx, "bias", b)) return false;
    c.bias = bias_shape(ctx, "bias", b);
    return true;
}

bool conv_or_deconv(ShapeContext& ctx, bool reverse) {
    Conv c;
    c.reverse = reverse;
    if (!get_shape(ctx, "input", c.input) || !get_shape(ctx, "filter", c.filter) || !read_bias(ctx, c) ||
        !read_window_attrs(ctx, c) || !get_int(ctx, "groups", c.groups))
        return false;
    if (reverse && !get_ints(ctx, "output_shape", c.output_shape)) return false;
    Shape out;
    if (!conv_shape(ctx, c, out)) return false;
    ctx.set_shape("output", out);
    return true;
}

bool conv(ShapeContext& ctx) { return conv_or_deconv(ctx, false); }
bool deconv(ShapeContext& ctx) { return conv_or_deconv(ctx, true); }

// separable_conv: conv(input, plane_filter, groups = 0, window...) then
// conv(filtered, point_filter, bias, groups = groups).
bool separable_conv(ShapeContext& ctx) {
    Conv plane;
    plane.filter_name = "'plane_filter'";
    plane.groups = 0;
    if (!get_shape(ctx, "input", plane.input) || !get_shape(ctx, "plane_filter", plane.filter) ||
        !read_window_attrs(ctx, plane))
        return false;
    Shape filtered;
    if (!conv_shape(ctx, plane, filtered)) return false;
    Conv point;
    point.input = filtered;
    point.input_name = "the plane-wise result";
    point.filter_name = "'point_filter'";
    if (!get_shape(ctx, "point_filter", point.filter) || !read_bias(ctx, point) ||
        !get_int(ctx, "groups", point.groups))
        return false;
    Shape out;
    if (!conv_shape(ctx, point, out)) return false;
    ctx.set_shape("output", out);
    return true;
}

// separable_deconv: deconv(input, point_filter, groups = groups) then
// deconv(filtered, plane_filter, bias, window..., output_shape, groups = 0).
bool separable_deconv(ShapeContext& ctx) {
    Conv point;
    point.reverse = true;
    point.filter_name = "'point_filter'";
    if (!get_shape(ctx, "input", point.input) || !get_shape(ctx, "point_filter", point.filter) ||
        !get_int(ctx, "groups", point.groups))
        return false;
    Shape filtered;
    if (!conv_shape(ctx, point, filtered)) return false;
    Conv plane;
    plane.reverse = true;
    plane.input = filtered;
    plane.input_name = "the point-wise result";
    plane.filter_name = "'plane_filter'";
    plane.groups = 0;
    if (!get_shape(ctx, "plane_filter", plane.filter) || !read_bias(ctx, plane) || !read_window_attrs(ctx, plane) ||
        !get_ints(ctx, "output_shape", plane.output_shape))
        return false;
    Shape out;
    if (!conv_shape(ctx, plane, out)) return false;
    ctx.set_shape("output", out);
    return true;
}

// ---- box-like operations (window over every dimension of the input) ----------------------------

// Reads `size`, `border` (checked against `borders`), `padding`, `stride`, `dilation` for a window
// over all dimensions of `input`.
bool read_box_window(ShapeContext& ctx, const Shape& input, const std::vector<std::string>& borders, Window& w) {
    w.dims = input.size();
    w.offset = 0;
    std::string border;
    if (!get_string(ctx, "border", border) || !check_one_of(ctx, "border", border, borders)) return false;
    return read_size(ctx, "size", w, "dimensions of 'input'") && read_window(ctx, w, "dimensions of 'input'");
}

// Basic operations with results `results` (all of the down-scaled shape).
ShapeFunction box_down(const std::vector<std::string>& borders, std::vector<std::string> results) {
    return [&borders, results = std::move(results)](ShapeContext& ctx) {
        Shape in, out;
        Window w;
        if (!get_shape(ctx, "input", in) || !read_box_window(ctx, in, borders, w) ||
            !window_down(ctx, w, in, "'input'", out))
            return false;
        for (const std::string& r : results) ctx.set_shape(r, out);
        return true;
    };
}

bool read_output_shape(ShapeContext& ctx, const Shape& in, Ints& output_shape) {
    if (!get_ints(ctx, "output_shape", output_shape)) return false;
    if (output_shape.empty()) return true;
    if (output_shape.size() != in.size())
        return fail(ctx, "'output_shape' " + str(output_shape) + " has " + std::to_string(output_shape.size()) +
                             " items; it must be empty or have one item per dimension of 'input' " + to_string(in));
    return check_positive(ctx, "output_shape", output_shape);
}

bool debox(ShapeContext& ctx) {
    Shape in, out;
    Window w;
    Ints output_shape;
    if (!get_shape(ctx, "input", in) || !read_box_window(ctx, in, borders_all(), w) ||
        !read_output_shape(ctx, in, output_shape) || !window_up(ctx, w, in, "'input'", output_shape, out))
        return false;
    ctx.set_shape("output", out);
    return true;
}

bool sample(ShapeContext& ctx) {
    Shape in, index, out;
    Window w;
    if (!get_shape(ctx, "input", in) || !get_shape(ctx, "index", index) ||
        !read_box_window(ctx, in, borders_no_ignore(), w) || !window_down(ctx, w, in, "'input'", out))
        return false;
    if (index != out)
        return fail(ctx, "the shape of 'index' " + to_string(index) + " must equal the output shape " +
                             to_string(out));
    ctx.set_shape("output", out);
    return true;
}

bool desample(ShapeContext& ctx) {
    Shape in, index, out;
    Window w;
    Ints output_shape;
    if (!get_shape(ctx, "input", in) || !get_shape(ctx, "index", index) ||
        !read_box_window(ctx, in, {"constant"}, w))
        return false;
    if (index != in)
        return fail(ctx, "the shape of 'index' " + to_string(index) + " must equal the shape of 'input' " +
                             to_string(in));
    if (!read_output_shape(ctx, in, output_shape) || !window_up(ctx, w, in, "'input'", output_shape, out))
        return false;
    ctx.set_shape("output", out);
    return true;
}

}  // namespace ops_sliding_window_cpp

void add_sliding_window_ops(OpRegistry& r) {
    using namespace ops_sliding_window_cpp;
    r.add({"conv", conv});
    r.add({"deconv", deconv});
    r.add({"separable_conv", separable_conv});
    r.add({"separable_deconv", separable_deconv});
    r.add({"box", box_down(borders_all(), {"output"})});
    r.add({"debox", debox});
    r.add({"argmax_pool", box_down(borders_all(), {"index"})});
    r.add({"sample", sample});
    r.add({"desample", desample});
    // Pooling compounds (4.9.3). max_pool and max_pool_with_index accept border 'ignore' like
    // argmax_pool (SPEC_NOTES 5); avg_pool and rms_pool are box filters.
    r.add({"max_pool_with_index", box_down(borders_all(), {"output", "index"})});
    r.add({"max_pool", box_down(borders_all(), {"output"})});
    r.add({"avg_pool", box_down(borders_all(), {"output"})});
    r.add({"rms_pool", box_down(borders_all(), {"output"})});
}

}  // namespace nnef::sema::ops
