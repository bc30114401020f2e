// The VPU simulator: runs a task list (task_list.hpp) on a target (target.hpp).
//
// Checks: every rule of specs/vpu-target.md section 5 (happens-before acyclic, no race on
// overlapping bytes between tasks that happens-before does not order, barrier producer/consumer
// counts and limits, physical barrier reuse ordered by the task list itself), buffer placement
// (capacity, alignment, clusters), accesses within their buffers and on the memories their engine
// reaches, task parameters and the `cycles` figures, and every graph output fully written. Each
// violation is a Diagnostic (stage vpu) naming the tasks, buffers and bytes involved.
//
// Timing: the cost model of section 4, with DMA transfers sharing the DDR bandwidth while they run;
// makespan, busy share per queue, DDR traffic by kind, CMX occupancy per cluster over time, and a
// lower bound on the makespan of any schedule of the same tasks (LowerBound).
//
// Values: with inputs given, every task's results from its reads, writes and params in fp16 /
// int8 as section 3 says (docs/vpu.md states the arithmetic of each task kind).
#pragma once
#include <algorithm>
#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nnef/diagnostics.hpp>

#include "lowering/tosa/ir.hpp"
#include "lowering/vpu/target.hpp"
#include "lowering/vpu/task_list.hpp"

namespace nnef::vpu {

// ---- the cost model (section 4), shared with the compiler ----------------------------------

// A DMA of `bytes` running alone: latency + bytes / rate, rate = dma_bytes_per_cycle, or
// min(dma_bytes_per_cycle, ddr_bytes_per_cycle) when it touches DDR. Rounded up.
std::int64_t dma_cycles(const Target& t, std::int64_t bytes, bool touches_ddr);
// An NCE task: overhead + padded work / rate (rounded up). `output` is [N,OH,OW,C] (NHWC), `weights`
// [O,KH,KW,I] for conv (ignored otherwise), `kernel` {KH,KW} for dwconv and pools; int8 selects
// the int8 rate.
std::int64_t nce_cycles(const Target& t, const std::string& op, bool int8, const std::vector<std::int64_t>& output,
                        const std::vector<std::int64_t>& weights, std::array<std::int64_t, 2> kernel);
// A SHAVE task: overhead + output elements x shave_rate(kernel) (rounded up).
std::int64_t shave_cycles(const Target& t, const std::string& kernel, std::int64_t output_elements);
// The figure for a task of `list` alone (buffers looked up by id), or nullopt with `why` when the
// task is malformed (unknown buffer, wrong number of reads, ...).
std::optional<std::int64_t> task_cycles(const TaskList& list, const Task& task, const Target& t, std::string* why = nullptr);
// The same with buffers found by `find` (e.g. an index the caller keeps; null for an unknown id).
std::optional<std::int64_t> task_cycles(const Task& task, const std::function<const Buffer*(const std::string&)>& find,
                                        const Target& t, std::string* why = nullptr);

// ---- simulation ------------------------------------------------------------------------------

struct SimulateOptions {
    bool timing = true;
    // Compute values (needs the constant buffers' data and every input): inputs by graph input
    // name, in NNEF's layout (e.g. NCHW), as fp32 (or fp16) values, or integers (i8, i16, i32) for
    // int8/uint8 entries.
    bool values = false;
    std::map<std::string, tosa::ConstPtr> inputs;
    // Timing for the makespan and the queues' figures alone: no lower bound, no CMX profiles (the
    // schedule pass's choice between candidate lists: lowering/vpu/passes/schedule_choose.cpp).
    bool makespan_only = false;
    // Diagnostics stop after this many violations of one kind (0: no limit).
    std::size_t max_per_kind = 10;
    // The lower bound's cut tries segments between pairs of at most this many tasks of its chain,
    // spread along it (all of them on a shorter chain; at least 2).
    std::size_t cut_pair_tasks = 2048;
    // A queue's figure in the cut also leaves out up to this many of its tasks of least lead or
    // trail (those that can start first or must end last), one at a time (0: none).
    std::size_t cut_early_tasks = 16;
};

struct TaskTime {
    double start = 0.0, end = 0.0;  // cycles
};

struct QueueStats {
    std::string name;
    std::size_t tasks = 0;
    double busy = 0.0;   // cycles the queue runs a task
    double share = 0.0;  // busy / makespan
    std::int64_t work = 0;  // sum of the tasks' cycles alone
};

struct DdrTraffic {
    // Bytes DMA moves from or to DDR buffers by role: input; weights, table and constant; spill and
    // activation; output.
    std::int64_t inputs = 0, weights = 0, spills = 0, outputs = 0;
    std::int64_t total() const { return inputs + weights + spills + outputs; }
};

// A lower bound on the makespan of every schedule of the task list's tasks on the target
// (docs/vpu.md, Lower bound): any queue order and barriers, as long as each task stays on its
// queue and every byte a task reads comes from the same writer (or input or constant) as in this
// list. The largest of four terms, each a lower bound by itself; none follows this list's own
// orderings. Every term weighs a task by its shortest possible duration d(t): NCE and SHAVE tasks
// their cycles; a DMA its latency + bytes / min(dma_bytes_per_cycle, ddr_bytes_per_cycle) when it
// touches DDR (dma_bytes_per_cycle otherwise), unrounded, as if it never shared DDR.
struct LowerBound {
    double engine = 0.0;      // the busiest queue's total of shortest durations (a queue runs one task at a time)
    std::string engine_queue;
    double ddr = 0.0;         // DDR bytes / ddr_bytes_per_cycle (DDR never moves more per cycle)
    double dataflow = 0.0;    // the longest chain of data dependencies (writer -> reader of the same bytes)
    // The cut at a task X: (X's ancestors' work, up to X's end) + (X's descendants' work, after it),
    // the largest over the tasks tried; cut_task is X's index (-1: none tried).
    double cut = 0.0;
    long cut_task = -1;
    std::string cut_task_name;      // e.g. "task 12 (NCE0 conv 'conv1')"
    double cut_before = 0.0, cut_after = 0.0;  // the two parts
    std::string cut_before_term, cut_after_term;  // "chain", "DDR" or a queue name
    std::int64_t cut_cmx_excess = 0;  // bytes of DDR loads read after X that CMX cannot hold at X's end
    // The part up to X's end as segments between tasks X_1 .. X_k = X of the chain tried: the first
    // up to X_1's end, each next from X_{i-1}'s end to X_i's; cycles and term ("chain", "DDR", a
    // queue, or the first's as cut_before_term) of each; their cycles add up to cut_before.
    struct Segment {
        long task = -1;  // X_i (an index into the list's tasks)
        double cycles = 0.0;
        std::string term;
    };
    std::vector<Segment> cut_segments;
    // Information only, not part of the bound: the longest chain of this list's queue order and
    // barrier waits (a schedule with other orderings may be shorter).
    double list_chain = 0.0;
    double value() const { return std::max(std::max(engine, ddr), std::max(dataflow, cut)); }
    // The term that binds: "engine", "ddr", "dataflow" or "cut" (the first of them, in that order, on a tie).
    const char* binding() const {
        const double v = value();
        return engine >= v ? "engine" : ddr >= v ? "ddr" : dataflow >= v ? "dataflow" : "cut";
    }
};

// CMX bytes in use on one cluster: a step function (time in cycles, bytes from then on). A buffer
// is in use from the start of the first task that accesses it to the end of the last; buffers
// sharing addresses count once.
struct CmxProfile {
    std::vector<std::pair<double, std::int64_t>> steps;
    std::int64_t peak = 0;
    std::int64_t high_water = 0;  // the largest offset + size of the cluster's buffers
};

struct SimulationResult {
    bool valid = false;  // no violation
    std::size_t violations = 0;
    std::vector<std::int64_t> cycles;  // per task (index into list.tasks): the cost model alone
    std::vector<TaskTime> times;       // per task
    double makespan = 0.0;             // cycles
    double makespan_us = 0.0;
    std::vector<QueueStats> queues;  // the target's queues in order
    DdrTraffic ddr;
    std::vector<CmxProfile> cmx;  // per cluster
    LowerBound bound;
    // Values (SimulateOptions::values): each output in NNEF's layout as fp32 (fp16 entries) or
    // i32 (int8/uint8 entries), by name.
    std::map<std::string, tosa::ConstPtr> outputs;
};

// Runs `list` on `target` (usually list.target). Violations go to `diags` (stage vpu) and make
// `valid` false; timing and values are computed only for a valid list.
SimulationResult simulate(const TaskList& list, const Target& target, const SimulateOptions& options, Diagnostics& diags);

// The checks alone (no timing, no values): true when the list has no violation. For verifiers.
bool check_task_list(const TaskList& list, const Target& target, Diagnostics& diags);

// A report: makespan and lower bound, queues, DDR traffic, CMX.
std::string report_text(const TaskList& list, const Target& target, const SimulationResult& r);

}  // namespace nnef::vpu
