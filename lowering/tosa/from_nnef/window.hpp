// Sliding windows (NNEF spec 4.3) as TOSA needs them: shared by the sliding-window, sampling and
// normalization families.
#pragma once
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

}  // namespace nnef::tosa::from_nnef
