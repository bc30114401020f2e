// An error of a lowering at an NNEF operation (null: no location), with the operation's fragment call
// chain as notes ("in expansion of 'conv_layer'"), and readers of an NNEF operation's attributes (defaults filled in by the front end) for the lowerings
// (TOSA: lowering/tosa/from_nnef/context.hpp, NNAPI: lowering/nnapi/from_nnef_context.hpp): the
// value when the attribute is there with the kind asked for, else a fallback or nothing.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nnef/diagnostics.hpp>
#include <nnef/graph.hpp>

namespace nnef::lowering {

Diagnostic& operation_error(Diagnostics& diags, Stage stage, const std::string& code, const std::string& message,
                            const Operation* op);

std::int64_t int_attr(const Operation& op, std::string_view name, std::int64_t fallback = 0);
std::string string_attr(const Operation& op, std::string_view name, const std::string& fallback = {});
// An array of integers (other items skipped).
std::vector<std::int64_t> ints_attr(const Operation& op, std::string_view name);
// An array of (integer, integer) tuples (other items skipped).
std::vector<std::pair<std::int64_t, std::int64_t>> pairs_attr(const Operation& op, std::string_view name);
// A number or an array of numbers (integers and logicals as 0/1 count as numbers).
std::vector<double> scalars_attr(const Operation& op, std::string_view name);

}  // namespace nnef::lowering
