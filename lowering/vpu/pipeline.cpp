// The VPU compiler's pipeline (lowering/vpu/compiler.hpp): its passes in order, what each promises
// (ir::Promise, checked by ir::verify after every pass with verify_each), and compile().
#include <initializer_list>
#include <utility>

#include "lowering/vpu/compiler.hpp"

namespace nnef::vpu {

namespace vpu_pipeline_cpp {

using PassFn = bool (*)(ir::Module&, Diagnostics&);

// A pass that, when it succeeds, makes `promises` about the module.
lowering::Pass<ir::Module> pass(const char* name, const char* summary, PassFn run, std::initializer_list<ir::Promise> promises) {
    std::vector<ir::Promise> p(promises);
    return {name, summary, [run, p](ir::Module& m, Diagnostics& diags) {
                if (!run(m, diags)) return false;
                for (ir::Promise x : p) m.promise(x);
                return true;
            }};
}

}  // namespace vpu_pipeline_cpp

lowering::Pipeline<ir::Module> compile_pipeline() {
    using vpu_pipeline_cpp::pass;
    using ir::Promise;
    lowering::Pipeline<ir::Module> p;
    p.passes = {
        pass("assign-executors", "TOSA operators to NCE layers (bias, scale, clamp and int8 requantization fused), SHAVE kernels, copies and views",
             ir::assign_executors, {Promise::layers}),
        pass("layout-and-types", "fp16 (or int8) OHWI weights, a weights table tensor per NCE layer", ir::layout_and_types,
             {Promise::weights_laid_out}),
        pass("tile", "split layers over output rows / channels and clusters to fit CMX", ir::tile, {Promise::tiled}),
        pass("build-tables", "the weights tables' words (weights offsets per channel chunk, bias and scale or requantization)",
             ir::build_tables, {Promise::tables_built}),
        pass("schedule", "program order of DMA / NCE / SHAVE tasks with prefetch, and static CMX offsets (one pass: rescheduled when "
                         "the allocator finds no room)",
             ir::schedule, {Promise::scheduled, Promise::cmx_allocated}),
        pass("barriers", "dependencies, transitive reduction, virtual barriers, physical ids", ir::assign_barriers, {Promise::barriers}),
        pass("emit", "the task list with the cost model's cycles", ir::emit, {Promise::emitted}),
    };
    p.verify = ir::verify;
    p.printer = [](const ir::Module& m) { return m.has(Promise::emitted) ? vpu::to_text(m.list) : ir::to_text(m); };
    return p;
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
    if (!compile_pipeline().run(m, po, diags)) return std::nullopt;
    return std::move(m.list);
}

}  // namespace nnef::vpu
