// The VPU compiler's pipeline (lowering/vpu/compiler.hpp): its passes in order, what each promises
// (ir::Promise, checked by ir::verify after every pass with verify_each), and compile().
#include <string>
#include <vector>
#include <utility>

#include "lowering/vpu/compiler.hpp"
#include "lowering/vpu/ir_text.hpp"

namespace nnef::vpu {

namespace vpu_pipeline_cpp {

using PassFn = bool (*)(ir::Module&, Diagnostics&);
using ir::Promise;

struct PassSpec {
    const char* name;
    const char* summary;
    PassFn run;
    std::vector<Promise> promises;  // what the pass promises about the module when it succeeds
};

const std::vector<PassSpec>& passes() {
    static const std::vector<PassSpec> list = {
        {"assign-executors", "TOSA operators to NCE layers (the int8 eltwise with its RESCALEs), SHAVE kernels, copies and views",
         ir::assign_executors, {Promise::layers}},
        {"fuse-post-ops", "SHAVE bias, scale, clamp, minimum / maximum by a scalar and int8 requantization folded into the NCE layer producing their operand",
         ir::fuse_post_ops, {Promise::post_ops_fused}},
        {"layout-and-types", "fp16 (or int8) OHWI weights, a weights table tensor per NCE layer", ir::layout_and_types,
         {Promise::weights_laid_out}},
        {"tile", "split layers over output rows / channels and clusters to fit CMX", ir::tile, {Promise::tiled}},
        {"build-tables", "the weights tables' words (weights offsets per channel chunk, bias and scale or requantization)", ir::build_tables,
         {Promise::tables_built}},
        {"schedule", "program order of DMA / NCE / SHAVE tasks with prefetch, and static CMX offsets (one pass: rescheduled when "
                     "the allocator finds no room)",
         ir::schedule, {Promise::scheduled, Promise::cmx_allocated}},
        {"barriers", "dependencies, transitive reduction, virtual barriers, physical ids", ir::assign_barriers, {Promise::barriers}},
        {"emit", "the task list with the cost model's cycles", ir::emit, {Promise::emitted}},
    };
    return list;
}

}  // namespace vpu_pipeline_cpp

lowering::Pipeline<ir::Module> compile_pipeline() {
    lowering::Pipeline<ir::Module> p;
    for (const vpu_pipeline_cpp::PassSpec& spec : vpu_pipeline_cpp::passes()) {
        const vpu_pipeline_cpp::PassFn run = spec.run;
        const std::vector<ir::Promise> promises = spec.promises;
        p.passes.push_back({spec.name, spec.summary, [run, promises](ir::Module& m, Diagnostics& diags) {
                                if (!run(m, diags)) return false;
                                for (ir::Promise x : promises) m.promise(x);
                                return true;
                            }});
    }
    p.verify = ir::verify;
    p.printer = ir::write_text;  // lossless: what --pass reads back
    return p;
}

bool run_pass(ir::Module& m, const std::string& name, Diagnostics& diags) {
    const lowering::Pipeline<ir::Module> p = compile_pipeline();
    // the promises of the passes before `name`
    std::uint32_t want = 0;
    std::string before;
    for (const auto& pass : p.passes) {
        if (pass.name == name) {
            if (m.promised != want) {
                std::string carried;
                for (int i = 0; i < ir::promise_count; ++i)
                    if (m.has(ir::Promise(i))) carried += std::string(carried.empty() ? "" : " ") + ir::to_string(ir::Promise(i));
                diags.error(Stage::vpu, "wrong-stage",
                            "pass '" + name + "' runs on a module " + (before.empty() ? "before any pass" : "after pass '" + before + "'") +
                                "; this one carries the promises: " + (carried.empty() ? "none" : carried));
                return false;
            }
            if (!m.graph && name == p.passes.front().name) {
                diags.error(Stage::vpu, "wrong-stage", "pass '" + name + "' needs the module's TOSA graph (field \"graph\")");
                return false;
            }
            if (!p.verify(m, before, diags)) return false;
            if (!pass.run(m, diags) || diags.has_errors()) return false;
            return p.verify(m, name, diags);
        }
        for (const auto& spec : vpu_pipeline_cpp::passes())
            if (pass.name == spec.name)
                for (ir::Promise x : spec.promises) want |= 1u << unsigned(x);
        before = pass.name;
    }
    diags.error(Stage::vpu, "unknown-pass", "no VPU pass named '" + name + "'");
    return false;
}

std::optional<TaskList> compile(const tosa::Graph& graph, const Target& target, const CompileOptions& options, Diagnostics& diags) {
    ir::Module m;
    m.graph = &graph;
    m.target = target;
    m.name = graph.name;
    lowering::PassOptions po;
    po.verify_each = options.verify_each;
    po.print_after = options.print_after;
    po.print = options.print;
    // "import": the module before the first pass (the TOSA graph, the target, no promise), what
    // `nnef-to-vpu --pass assign-executors` reads
    if (po.print && (po.print_after.count(import_name) || po.print_after.count("all"))) po.print(import_name, ir::write_text(m));
    if (!compile_pipeline().run(m, po, diags)) return std::nullopt;
    return std::move(m.list);
}

}  // namespace nnef::vpu
