// The simulated makespan of a scheduled module (docs/schedule.md step 15): where the schedule
// pass has two allocated candidates and its own estimate cannot tell them apart soundly (the
// weights of weights-bound layers loaded early or not: the estimate sees each task at its cost,
// not DDR shared by the DMA queues, the buffers' placement or the barriers of reused bytes), it
// finishes a copy of each as the rest of the pipeline would (barriers, emit) and runs the
// simulator's timing on it. The copies share the constants' bytes (shared pointers).
#include <limits>

#include "lowering/vpu/passes/scheduler.hpp"

namespace nnef::vpu::ir::schedule_impl {

double simulated_makespan(const Module& scheduled) {
    Module m = scheduled;
    Diagnostics quiet;  // a candidate's notes and errors: the pipeline reports those of the one kept
    if (!assign_barriers(m, quiet) || !emit(m, quiet) || quiet.has_errors()) return std::numeric_limits<double>::infinity();
    SimulateOptions options;
    options.timing = true;
    options.values = false;
    options.makespan_only = true;
    const SimulationResult r = simulate(m.list, m.target, options, quiet);
    return r.valid ? r.makespan : std::numeric_limits<double>::infinity();
}

}  // namespace nnef::vpu::ir::schedule_impl
