// Sliding windows (NNEF spec 4.3) as TOSA needs them: shared by the sliding-window, sampling and
// normalization families.
#pragma once
#include <optional>
#include <string>

#include "lowering/tosa/from_nnef/context.hpp"

namespace nnef::tosa::from_nnef {

struct Window {
    std::size_t offset = 0;  // the tensor dimension of the first window dimension
    Ints size, stride, dilation;
    Pairs padding;  // (before, after) per window dimension
};

// The window of the current operation from its `stride`, `dilation` and `padding` attributes
// (neutral items filled in; automatic padding when `padding` is empty, spec 4.3) for an input of
// shape `in` and a (down-scaled) output of shape `out`, with window dimensions from tensor
// dimension `offset` on.
Window make_window(Context& c, const Shape& in, const Shape& out, Ints size, std::size_t offset);

// Makes the padding of `w` what TOSA accepts for input x: non-negative (negative padding crops x)
// and ending exactly where the last window ends (padding it does not reach is dropped, input items
// it does not reach cropped). Returns the (possibly cropped) input.
ValueId fit_window(Context& c, ValueId x, Window& w, const Shape& out);

// Pads x explicitly under `border` (value for 'constant') and leaves w without padding (after
// fit_window). Returns the padded input.
ValueId pad_window(Context& c, ValueId x, Window& w, const Shape& out, const std::string& border, double value);

// The zero points of an integer convolution (i8 input and weights, i32 accumulator and result).
struct ConvZeroPoints {
    ValueId input = no_value, weight = no_value;
};

// The current operation's convolution (its stride, dilation and padding attributes) of x (NCHW) by
// filter (OIHW) with a TOSA bias ([O] or [1]) to the NCHW shape `out`: groups, depthwise, 1-D as
// 2-D. With `zp`, the integer form (i8 operands, i32 bias and result). nullopt after an error.
std::optional<ValueId> conv_nchw(Context& c, ValueId x, ValueId filter, ValueId bias, const Shape& out,
                                 const std::string& border, std::int64_t groups, const ConvZeroPoints* zp);
// The current operation's max or average pooling of x (NCHW) to `out` (integer inputs: i32
// accumulation, padding by the lowest code where it must be explicit). nullopt after an error.
std::optional<ValueId> pool_nchw(Context& c, ValueId x, bool max, const Shape& out, const std::string& border,
                                 const Ints& size);

}  // namespace nnef::tosa::from_nnef
