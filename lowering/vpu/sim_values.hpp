// Internal to the simulator: computing the values of a checked task list (docs/vpu.md states the
// arithmetic of each task kind). std-only apart from the IR types.
#pragma once
#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include <nnef/diagnostics.hpp>

#include "lowering/tosa/ir.hpp"
#include "lowering/vpu/task_list.hpp"

namespace nnef::vpu {

// Runs the tasks in `order` (a topological order of happens-before) on memory images: DDR holds the
// constant buffers' data and the inputs (converted from NNEF's layout to each entry's layout and
// dtype) before the first task; afterwards each output is read back into NNEF's layout. Returns
// false after reporting a problem (missing input or constant data, a kernel without arithmetic,
// a weights table that points elsewhere, ...).
bool compute_values(const TaskList& list, const Target& target, const std::vector<std::size_t>& order,
                    const std::map<std::string, tosa::ConstPtr>& inputs, std::map<std::string, tosa::ConstPtr>& outputs,
                    Diagnostics& diags);

// The permutation from an entry's layout to NNEF's dimension order: NNEF dimension i is layout
// dimension perm[i]. A layout with both N and C and rank >= 3 has NNEF order N, C, then the other
// letters as they appear ("NHWC" -> N C H W); any other layout is NNEF's order already.
std::vector<std::size_t> nnef_order(const std::string& layout);

}  // namespace nnef::vpu
