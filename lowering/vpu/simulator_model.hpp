// The simulator's (lowering/vpu/simulator.hpp) view of a task list, the checks of
// simulator_checks.cpp and the lower bound of sim_bound.cpp. Private to the simulator's files.
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include <nnef/diagnostics.hpp>

#include "lowering/vpu/simulator.hpp"
#include "lowering/vpu/task_list.hpp"

namespace nnef::vpu::simulator_cpp {

inline std::int64_t align_up(std::int64_t v, std::int64_t a) { return (v + a - 1) / a * a; }
inline bool is_int8(DataType t) { return t == DataType::int8 || t == DataType::uint8; }

// Indices of a task list: buffers by id, tasks by queue, barriers by id.
struct Model {
    const TaskList& list;
    const Target& target;
    std::unordered_map<std::string, std::size_t> buffer_index;
    std::vector<std::vector<long>> read_buffer, write_buffer;  // per task, per access: buffer index or -1
    std::vector<std::string> queues;                           // the target's queues
    std::vector<long> queue_of;                                // per task: index into queues, or -1
    std::vector<std::int64_t> pos;                             // per task: position in its queue
    std::vector<std::vector<std::size_t>> queue_tasks;
    std::unordered_map<std::int64_t, std::size_t> barrier_index;
    std::vector<std::vector<std::size_t>> producers, consumers;  // per barrier: task indices
    std::vector<std::vector<std::size_t>> waits, updates;        // per task: barrier indices

    Model(const TaskList& l, const Target& t) : list(l), target(t) {}

    const Buffer* buf(long i) const { return i < 0 ? nullptr : &list.buffers[std::size_t(i)]; }
    std::string task_name(std::size_t i) const {
        const Task& t = list.tasks[i];
        return "task " + std::to_string(t.id) + " (" + t.queue + " " + t.op + (t.source.empty() ? "" : " '" + t.source + "'") + ")";
    }
    // Memory key: 0 for DDR, 1 + k for CMX of cluster k.
    static std::int64_t memory_key(const Buffer& b) { return b.memory == Memory::DDR ? 0 : 1 + b.cluster; }
    static std::string memory_name(std::int64_t key) { return key == 0 ? "DDR" : "CMX" + std::to_string(key - 1); }
};

inline std::string range_text(std::int64_t lo, std::int64_t hi) { return "[" + std::to_string(lo) + ", " + std::to_string(hi) + ")"; }

// Counts violations per kind and reports the first few.
struct Reporter {
    Diagnostics& diags;
    std::size_t limit;
    std::map<std::string, std::size_t> counts;
    std::size_t total = 0;

    void operator()(const std::string& code, const std::string& message) {
        ++total;
        if (limit && counts[code]++ >= limit) {
            if (counts[code] == limit + 1)
                diags.error(Stage::vpu, code, "further '" + code + "' violations are not listed");
            return;
        }
        diags.error(Stage::vpu, code, message);
    }
};

// Vector clocks: for each task, per queue, the position of the last task of that queue that
// happens before it or is it (-1: none). A happens before B iff A != B and pos(A) <= vc[B][queue(A)].
struct Clocks {
    std::size_t queues = 0;
    std::vector<std::int64_t> vc;  // task-major
    const std::int64_t* of(std::size_t task) const { return vc.data() + task * queues; }
};

// What is wrong with an NCE task's reads/writes/params, or empty. Also used for its cost.
std::string nce_problem(const Model& m, std::size_t ti);
// Buffers, entries, barriers, tasks: references, placement, shapes, cycles. Fills the model.
void check_structure(Model& m, Reporter& report, std::vector<std::int64_t>& cycles);
// A topological order of the tasks (queue order and barriers), or a reported cycle and nothing.
std::optional<std::vector<std::size_t>> topological_order(const Model& m, Reporter& report);
Clocks vector_clocks(const Model& m, const std::vector<std::size_t>& order);
bool happens_before(const Model& m, const Clocks& c, std::size_t a, std::size_t b);
void check_physical_reuse(const Model& m, const Clocks& c, const std::vector<std::size_t>& order, Reporter& report);
void check_races(const Model& m, const Clocks& c, const std::vector<std::size_t>& order, Reporter& report);
void check_outputs(const Model& m, Reporter& report);

// ---- the lower bound (sim_bound.cpp) ----

// Per task: its shortest duration d(t), and the bytes it moves from or to DDR (0 unless a DMA
// touching DDR).
struct TaskCosts {
    std::vector<double> shortest;
    std::vector<std::int64_t> ddr_bytes;
};
TaskCosts task_costs(const Model& m, const std::vector<std::int64_t>& cycles);

// The data dependencies of a valid (race-free) list: w -> r when r reads a byte whose value comes
// from w (w is the last writer of that byte before r in `order`, a topological order), found for
// certain: a pair the simulator cannot prove from the boxes is left out, so the edges are a subset
// of the true ones. `delivered[w]`, for a DMA w from DDR into CMX: per reader r, the CMX bytes
// (absolute address intervals) r reads from w, as far as proven (dense boxes).
struct DataFlow {
    std::vector<std::vector<std::size_t>> preds, succs;
    std::vector<std::vector<std::pair<std::size_t, std::vector<std::pair<std::int64_t, std::int64_t>>>>> delivered;
};
DataFlow data_flow(const Model& m, const std::vector<std::size_t>& order);

// The four terms and the list's chain (LowerBound) of a valid list; `order` is topological; the
// cut's segments join pairs of at most `pair_tasks` (>= 2) tasks of its chain; a queue's figure
// leaves out up to `early_tasks` of its tasks of least lead or trail (0: none).
LowerBound lower_bound(const Model& m, const TaskCosts& c, const std::vector<std::size_t>& order, std::size_t pair_tasks, std::size_t early_tasks);

}  // namespace nnef::vpu::simulator_cpp
