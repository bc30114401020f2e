// barriers and emit (lowering/vpu/ir.hpp).
//
// barriers: tasks in program order get phases. A task's phase is at least its queue's previous
// task's phase (queues run in phase order), at least the phase of its `not_before` task, and
// greater than the phase of every earlier task that touches overlapping bytes where either one
// writes (the bytes of an access are its span, as the simulator takes them; tracked per 64-byte
// block). A phase holds at most min(barrier_max_producers, barrier_max_consumers) tasks. Phase k's
// tasks update virtual barrier k and phase k+1's tasks wait on it, so every conflicting pair is
// ordered through the barrier chain: the transitive reduction of the dependencies is the chain
// itself. Physical id = k mod `barriers`: the consumers of barrier k (phase k+1) happen before the
// producers of barrier k + barriers (phase >= k + 2, which waits on barrier k+1 that they
// update), so reuse is ordered by the task list itself (spec section 5) for any count >= 2.
//
// emit: DDR tensors laid out in order (aligned), CMX buffers at their offsets, tasks sorted by
// (phase, program index), cycles from the cost model.
#include <algorithm>
#include <map>
#include <numeric>

#include "lowering/vpu/ir.hpp"
#include "lowering/vpu/simulator.hpp"

namespace nnef::vpu::ir {

namespace vpu_barriers_cpp {

constexpr std::int64_t block = 64;

struct Blocks {
    std::vector<std::int64_t> write, read;  // the highest phase that wrote / read each block
    void ensure(std::int64_t bytes) {
        const std::size_t n = std::size_t((bytes + block - 1) / block);
        if (write.size() < n) {
            write.resize(n, -1);
            read.resize(n, -1);
        }
    }
};

std::pair<std::int64_t, std::int64_t> span(const Box& b, std::int64_t es) {
    std::int64_t lo = b.offset, hi = b.offset;
    for (std::size_t i = 0; i < b.shape.size(); ++i) {
        if (b.shape[i] <= 0) return {b.offset, b.offset};
        const std::int64_t d = (b.shape[i] - 1) * b.strides[i];
        if (d < 0) lo += d;
        else hi += d;
    }
    return {lo, hi + es};
}

}  // namespace vpu_barriers_cpp

bool assign_barriers(Module& m, Diagnostics& diags) {
    using namespace vpu_barriers_cpp;
    const Target& t = m.target;
    if (t.barriers < 2) {
        diags.error(Stage::vpu, "too-few-barriers", "the target has " + std::to_string(t.barriers) +
                                                        " physical barrier(s); this compiler needs at least 2");
        return false;
    }
    const std::int64_t cap = std::min(t.barrier_max_producers, t.barrier_max_consumers);
    std::vector<Blocks> ddr(m.tensors.size()), cmx(std::size_t(t.clusters));
    for (auto& c : cmx) c.ensure(t.cmx_bytes);
    std::map<std::string, std::int64_t> queue_phase;
    std::vector<std::int64_t> count;
    auto where = [&](const Box& b, std::int64_t& base, Blocks*& blocks, std::int64_t& es) {
        if (b.ref.cmx) {
            const CmxBuffer& c = m.cmx[std::size_t(b.ref.index)];
            base = c.offset;
            blocks = &cmx[std::size_t(c.cluster)];
            es = element_size(c.dtype);
        } else {
            const Tensor& x = m.tensors[std::size_t(b.ref.index)];
            base = 0;
            blocks = &ddr[std::size_t(b.ref.index)];
            blocks->ensure(x.bytes);
            es = element_size(x.dtype);
        }
    };
    for (Task& task : m.tasks) {
        std::int64_t p = queue_phase.count(task.queue) ? queue_phase[task.queue] : 0;
        if (task.not_before >= 0) p = std::max(p, m.tasks[std::size_t(task.not_before)].phase);
        for (int w = 0; w < 2; ++w)
            for (const Box& b : w ? task.writes : task.reads) {
                std::int64_t base = 0, es = 1;
                Blocks* bl = nullptr;
                where(b, base, bl, es);
                const auto s = span(b, es);
                for (std::int64_t k = (base + s.first) / block; k < (base + s.second + block - 1) / block; ++k) {
                    p = std::max(p, bl->write[std::size_t(k)] + 1);
                    if (w) p = std::max(p, bl->read[std::size_t(k)] + 1);
                }
            }
        while (p < std::int64_t(count.size()) && count[std::size_t(p)] >= cap) ++p;
        if (p >= std::int64_t(count.size())) count.resize(std::size_t(p + 1), 0);
        ++count[std::size_t(p)];
        task.phase = p;
        queue_phase[task.queue] = p;
        for (int w = 0; w < 2; ++w)
            for (const Box& b : w ? task.writes : task.reads) {
                std::int64_t base = 0, es = 1;
                Blocks* bl = nullptr;
                where(b, base, bl, es);
                const auto s = span(b, es);
                for (std::int64_t k = (base + s.first) / block; k < (base + s.second + block - 1) / block; ++k) {
                    auto& slot = w ? bl->write[std::size_t(k)] : bl->read[std::size_t(k)];
                    slot = std::max(slot, p);
                }
            }
    }
    m.phases = std::int64_t(count.size());
    m.stage = 6;
    return true;
}

bool emit(Module& m, Diagnostics& diags) {
    const Target& t = m.target;
    TaskList& list = m.list;
    list = TaskList{};
    list.target = t;
    list.graph = m.name;
    std::vector<std::string> ddr_id(m.tensors.size()), cmx_id(m.cmx.size());
    std::int64_t at = 0;
    for (std::size_t i = 0; i < m.tensors.size(); ++i) {
        const Tensor& x = m.tensors[i];
        Buffer b;
        b.id = "d" + std::to_string(i);
        b.memory = Memory::DDR;
        b.offset = at;
        b.size = x.bytes;
        b.dtype = x.dtype;
        b.role = x.role;
        b.tensor = x.name;
        b.data = x.data;
        at += (x.bytes + 63) / 64 * 64;
        ddr_id[i] = b.id;
        list.buffers.push_back(std::move(b));
    }
    if (at > t.ddr_bytes) {
        diags.error(Stage::vpu, "ddr-exhausted", "the graph needs " + std::to_string(at) + " bytes of DDR, the target has " +
                                                     std::to_string(t.ddr_bytes));
        return false;
    }
    for (std::size_t i = 0; i < m.cmx.size(); ++i) {
        const CmxBuffer& c = m.cmx[i];
        Buffer b;
        b.id = "c" + std::to_string(i);
        b.memory = Memory::CMX;
        b.cluster = c.cluster;
        b.offset = c.offset;
        b.size = c.size;
        b.dtype = c.dtype;
        b.role = c.role;
        b.tensor = c.tensor;
        cmx_id[i] = b.id;
        list.buffers.push_back(std::move(b));
    }
    for (std::size_t k = 0; k < m.inputs.size(); ++k) {
        IoEntry e = m.inputs[k];
        e.buffer = ddr_id[std::size_t(m.input_tensors[k])];
        list.inputs.push_back(e);
    }
    for (std::size_t k = 0; k < m.outputs.size(); ++k) {
        IoEntry e = m.outputs[k];
        e.buffer = ddr_id[std::size_t(m.output_tensors[k])];
        list.outputs.push_back(e);
    }
    for (std::int64_t k = 0; k + 1 < m.phases; ++k) list.barriers.push_back({k, k % t.barriers});
    std::vector<std::size_t> order(m.tasks.size());
    std::iota(order.begin(), order.end(), std::size_t(0));
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return m.tasks[a].phase < m.tasks[b].phase; });
    auto access = [&](const Box& b) {
        Access a;
        a.buffer = b.ref.cmx ? cmx_id[std::size_t(b.ref.index)] : ddr_id[std::size_t(b.ref.index)];
        a.offset = b.offset;
        a.shape = b.shape;
        a.strides = b.strides;
        return a;
    };
    for (std::size_t i : order) {
        const ir::Task& s = m.tasks[i];
        vpu::Task task;
        task.id = std::int64_t(list.tasks.size());
        task.queue = s.queue;
        task.kind = s.kind;
        task.op = s.op;
        for (const Box& b : s.reads) task.reads.push_back(access(b));
        for (const Box& b : s.writes) task.writes.push_back(access(b));
        if (s.phase > 0) task.wait = {s.phase - 1};
        if (s.phase + 1 < m.phases) task.update = {s.phase};
        task.nce = s.nce;
        task.shave = s.shave;
        task.source = s.source;
        list.tasks.push_back(std::move(task));
    }
    for (vpu::Task& task : list.tasks) {
        std::string why;
        const auto c = task_cycles(list, task, t, &why);
        if (!c) {
            diags.error(Stage::vpu, "internal", "task " + std::to_string(task.id) + " (" + task.op + "): " + why);
            return false;
        }
        task.cycles = *c;
    }
    m.stage = 7;
    return true;
}

}  // namespace nnef::vpu::ir
