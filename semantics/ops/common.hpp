// Helpers shared by the shape functions of the standard operations (semantics/ops/*.cpp):
// attribute and input readers, checked extent arithmetic, broadcasting (spec 4.2.2), axis checks
// and the sliding-window shape calculation (spec 4.3). Everything is written against parameter
// names; messages name the operation, the parameter and the offending values.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nnef/op_def.hpp>

namespace nnef::sema::ops {

using Ints = std::vector<std::int64_t>;
using Pair = std::pair<std::int64_t, std::int64_t>;
using Pairs = std::vector<Pair>;

// ---- reporting and formatting ----------------------------------------------------------------

// Reports "<operation>: <message>" and returns false.
bool fail(ShapeContext& ctx, const std::string& message);
// "[1,2,3]" (also for attribute arrays).
std::string str(const Ints& items);
// "'name'"
std::string q(std::string_view name);

// ---- checked arithmetic (extents and volumes are int64; overflow is an error, never UB) -------

std::optional<std::int64_t> checked_add(std::int64_t a, std::int64_t b);
std::optional<std::int64_t> checked_sub(std::int64_t a, std::int64_t b);
std::optional<std::int64_t> checked_mul(std::int64_t a, std::int64_t b);
// Product of the items, nullopt on overflow.
std::optional<std::int64_t> checked_volume(const Ints& items);
// As checked_volume, reporting "<what> overflows" on failure.
bool volume_of(ShapeContext& ctx, const Ints& items, std::string_view what, std::int64_t& out);

// ---- attributes (evaluated by the caller, defaults filled in, by parameter name) ---------------

bool get_int(ShapeContext& ctx, std::string_view name, std::int64_t& out);
bool get_ints(ShapeContext& ctx, std::string_view name, Ints& out);
bool get_pairs(ShapeContext& ctx, std::string_view name, Pairs& out);
bool get_string(ShapeContext& ctx, std::string_view name, std::string& out);
// Spec 4.1.3: a character a variable's label may contain ([a-z], [A-Z], [0-9], '_', '-', '.', '/', '\\').
bool label_char(char c);
// A label `variable` accepts: not empty, every character a label_char. A variable's shape function
// depends on its label through this alone (the fast path's memo, semantics/plain_flat.cpp, keys
// variables by it instead of by the label).
bool valid_label(std::string_view label);
bool get_logical(ShapeContext& ctx, std::string_view name, bool& out);
// Parameters added by later revisions: absent in the strict dialect, then the default applies.
bool get_int_or(ShapeContext& ctx, std::string_view name, std::int64_t fallback, std::int64_t& out);
bool get_ints_or(ShapeContext& ctx, std::string_view name, const Ints& fallback, Ints& out);

// ---- tensor inputs -------------------------------------------------------------------------------

// Shape of a single tensor argument ([] for a literal).
bool get_shape(ShapeContext& ctx, std::string_view name, Shape& out);
// Shapes of the items of a tensor-array argument.
bool get_shapes(ShapeContext& ctx, std::string_view name, std::vector<Shape>& out);

// ---- broadcasting (spec 4.2.2) -------------------------------------------------------------------

struct Operand {
    std::string name;  // the parameter name, for messages
    Shape shape;
};
// Dimensions are matched from dimension 0 (the leading ones); a tensor of lower rank has singleton
// extents in its missing trailing dimensions (so [3] is [3,1], not numpy's right alignment). In
// each dimension the extents must be equal or singular; the result has the maximum rank and the
// non-singular extents.
bool broadcast(ShapeContext& ctx, const std::vector<Operand>& operands, Shape& out);

// Shape functions: one tensor argument `in` and a result `out` of the same shape; tensor arguments
// `ins` broadcast together into the result `out`.
ShapeFunction same_shape_op(std::string in, std::string out);
ShapeFunction broadcasting_op(std::vector<std::string> ins, std::string out);

// ---- common validity checks ----------------------------------------------------------------------

// Every item of `items` (the attribute `name`) is > 0.
bool check_positive(ShapeContext& ctx, std::string_view name, const Ints& items);
// Items of `axes` (attribute `name`) are non-negative, less than `rank` and (if `unique`) distinct.
// `rank_of` names what the rank belongs to ("input", "output").
bool check_axes(ShapeContext& ctx, std::string_view name, const Ints& axes, std::size_t rank,
                std::string_view rank_of, bool unique = true);
// `value` (attribute `name`) is one of `allowed`.
bool check_one_of(ShapeContext& ctx, std::string_view name, const std::string& value,
                  const std::vector<std::string>& allowed);
// Checks the rank of an input is at least `min_rank`.
bool check_min_rank(ShapeContext& ctx, std::string_view name, const Shape& shape, std::size_t min_rank,
                    std::string_view why);

// Shape of a bias-like operand of conv/deconv/linear. In the default dialect a rank-1 bias [n]
// with n > 1 (the de facto form of exported models) is read as [1, n] with a warning; in the strict
// dialect it stays [n] (and usually fails the bias checks).
Shape bias_shape(ShapeContext& ctx, std::string_view name, const Shape& shape);

// Border modes (spec 4.3).
const std::vector<std::string>& borders_all();        // ignore constant replicate reflect reflect-even
const std::vector<std::string>& borders_no_ignore();  // constant replicate reflect reflect-even
// Interpolation methods of multilinear_upsample (and roi_resample, SPEC_NOTES 5).
const std::vector<std::string>& linear_methods();     // asymmetric symmetric aligned

// ---- sliding windows (spec 4.3) ------------------------------------------------------------------

// The window parameters for `dims` window dimensions, which start at tensor dimension `offset`
// (2 for conv/deconv, whose window covers the spatial dimensions; 0 for box and friends).
struct Window {
    std::size_t dims = 0;
    std::size_t offset = 0;
    Ints size;          // f per window dimension
    Pairs padding;      // (p, q) per window dimension, when !auto_padding
    bool auto_padding = true;
    Ints stride;        // s per window dimension
    Ints dilation;      // d per window dimension
};

// Reads `padding`, `stride` and `dilation` (the attributes of these names) for w.dims window
// dimensions: longer arrays are errors, shorter non-empty ones get trailing neutral items
// ((0,0), 1, 1; SPEC_NOTES 5), an empty padding means automatic padding; stride and dilation
// items must be positive. `unit` describes the window dimensions for messages, e.g.
// "spatial dimensions" or "dimensions of 'input'".
bool read_window(ShapeContext& ctx, Window& w, std::string_view unit);
// Reads the attribute `name` (e.g. `size`) as the window size: at most w.dims items, shorter
// arrays get trailing 1s, items must be positive.
bool read_size(ShapeContext& ctx, std::string_view name, Window& w, std::string_view unit);
// Validity checks and the neutral-item padding of read_window, for arrays given directly (the
// two convolutions of the separable compounds, the default window of the local normalizations).
bool set_window(ShapeContext& ctx, Window& w, std::string_view unit, const Pairs& padding, const Ints& stride,
                const Ints& dilation);

// The down-scaled extent x of window dimension i for the up-scaled extent X (spec 4.3 output shape
// calculation, or x = ceil(X / s) with automatic padding). nullopt: the padded extent is smaller than
// the dilated window, or overflow.
std::optional<std::int64_t> down_extent(const Window& w, std::size_t i, std::int64_t X);

// Basic (down-scaling) operation: out = in with each window dimension down-scaled. Reports
// "padded extent smaller than the dilated window" errors naming `input_name` (as displayed, e.g.
// "'input'").
bool window_down(ShapeContext& ctx, const Window& w, const Shape& in, std::string_view input_name, Shape& out);
// Reverse (up-scaling) operation: each window dimension of `in` is up-scaled, out[k] = in[k]
// elsewhere. With a non-empty reference (`output_shape`, full rank), the reference gives the
// up-scaled extents, and down-scaling each of them must give the extent of `in`. Without it:
// X = (x - 1) * s + fd - (p + q), or X = x * s with automatic padding (SPEC_NOTES 5).
// `input_name` as for window_down.
bool window_up(ShapeContext& ctx, const Window& w, const Shape& in, std::string_view input_name,
               const Ints& output_shape, Shape& out);

// ---- registration (one function per op family; registry.cpp calls them all) ---------------------

void add_tensor_intro_ops(OpRegistry& r);
void add_elementwise_ops(OpRegistry& r);
void add_sliding_window_ops(OpRegistry& r);
void add_sampling_ops(OpRegistry& r);
void add_reduce_ops(OpRegistry& r);
void add_shape_ops(OpRegistry& r);
void add_roi_ops(OpRegistry& r);
void add_matmul_ops(OpRegistry& r);
void add_variable_update_ops(OpRegistry& r);
void add_normalization_ops(OpRegistry& r);
void add_quantization_ops(OpRegistry& r);

}  // namespace nnef::sema::ops
