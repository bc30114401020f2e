// Per-operation rules of HAL 1.0 (internal to lowering/nnapi): operand counts and types, scalar
// operands, ranks, quantization rules, and the output dimensions each operation implies. The
// validator runs them on the model's operands (known values: the constants); the interpreter runs
// them again on the values of an execution, so both read one statement of each rule.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "lowering/nnapi/model.hpp"

namespace nnef {
class Diagnostics;
}  // namespace nnef

namespace nnef::nnapi::detail {

// What the rules may know of operand values beyond the model: the value of an INT32 or FLOAT32
// scalar, or of a TENSOR_INT32 (RESHAPE's shape), when it is known.
struct KnownValues {
    std::function<std::optional<std::int32_t>(std::uint32_t operand)> int32;
    std::function<std::optional<float>(std::uint32_t operand)> float32;
    std::function<std::optional<std::vector<std::int32_t>>(std::uint32_t operand)> int32_tensor;
};

// The values the model's constants hold (locations not checked here: unreadable gives nothing).
KnownValues constant_values(const Model&);

// Reports an error about operation `op_index` (and one of its operands, when `operand_position`
// is "input K" or "output K") with the rule's code: "operation 3 (CONV_2D), input 2 (operand 7):
// message [rule]".
void report(Diagnostics&, const Model&, std::size_t op_index, const std::string& operand_position,
            const std::string& rule, const std::string& message);

// Checks operation `op_index` and infers the dimensions of its outputs. `dims` holds the best
// known dimensions of every operand (0 entries unknown); an output's entries are filled from the
// inference where the inference knows them, and a conflict with a specified entry is an error.
// Returns false when an error was reported.
bool check_operation(const Model&, std::size_t op_index, const KnownValues&, std::vector<std::vector<std::uint32_t>>& dims,
                     Diagnostics&);

// Padding and output size of one spatial axis of the sliding-window operations.
struct Window {
    std::int32_t pad_head = 0, pad_tail = 0;
    std::int32_t out = 0;
};
// Implicit scheme (PaddingCode): SAME gives ceil(in / stride) with the padding split head-first
// (the smaller half at the head); VALID and NONE give no padding. Explicit: as given.
std::optional<Window> implicit_window(std::int32_t in, std::int32_t filter, std::int32_t stride, std::int32_t scheme);
std::optional<Window> explicit_window(std::int32_t in, std::int32_t filter, std::int32_t stride, std::int32_t pad_head,
                                      std::int32_t pad_tail);

// The scalar inputs of the sliding-window operations, after the explicit or implicit form is read.
struct WindowParams {
    bool implicit = false;
    std::int32_t scheme = 0;  // implicit only
    std::int32_t pad_left = 0, pad_right = 0, pad_top = 0, pad_bottom = 0;
    std::int32_t stride_w = 1, stride_h = 1;
    std::int32_t filter_w = 1, filter_h = 1;  // pooling only
    std::int32_t multiplier = 1;              // depthwise only
    std::int32_t activation = 0;
};
// Reads them from a pooling (AVERAGE_POOL_2D, L2_POOL_2D, MAX_POOL_2D), CONV_2D or
// DEPTHWISE_CONV_2D operation whose operand count is right; nothing when a scalar is unknown.
std::optional<WindowParams> window_params(const Operation&, const KnownValues&);

}  // namespace nnef::nnapi::detail
