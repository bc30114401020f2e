// The VPU compiler: a TOSA graph (lowering/tosa/ir.hpp) to a task list (lowering/vpu/task_list.hpp)
// for a target (lowering/vpu/target.hpp), through the passes of lowering/vpu/pipeline.cpp, each
// followed by a verifier of what the passes so far promise (lowering/vpu/verify.cpp).
#pragma once
#include <functional>
#include <optional>
#include <set>
#include <string>

#include <nnef/diagnostics.hpp>

#include "lowering/pass_manager.hpp"
#include "lowering/tosa/ir.hpp"
#include "lowering/vpu/ir.hpp"
#include "lowering/vpu/target.hpp"
#include "lowering/vpu/task_list.hpp"

namespace nnef::vpu {

// The name of the module as compile() builds it from the TOSA graph, before the first pass
// (print_after: the input of assign-executors as IR text).
inline constexpr const char* import_name = "import";

struct CompileOptions {
    bool verify_each = true;
    std::set<std::string> print_after;  // pass names, import_name, or "all"
    std::function<void(const std::string& pass, const std::string& text)> print;
};

// The passes in order (lowering/vpu/pipeline.cpp): assign-executors, layout-and-types, tile,
// build-tables, schedule (with the CMX allocation), barriers, emit.
lowering::Pipeline<ir::Module> compile_pipeline();

// Runs the one pass `name` (nnef-to-vpu --pass): the module must carry exactly the promises of the
// passes before it (code "wrong-stage" otherwise; assign-executors also needs the TOSA graph);
// verifies those promises, runs the pass, and verifies again with the pass's own. False after
// reporting an error (code "unknown-pass" for a name that is none).
bool run_pass(ir::Module& m, const std::string& name, Diagnostics& diags);

// Compiles the main block of `graph`. Errors are stage vpu diagnostics; an operator that neither
// the NCE nor a SHAVE kernel can run is named with its NNEF source range.
std::optional<TaskList> compile(const tosa::Graph& graph, const Target& target, const CompileOptions& options,
                                Diagnostics& diags);

}  // namespace nnef::vpu
