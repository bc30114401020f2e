// emit (lowering/vpu/ir.hpp): the task list of specs/vpu-target.md section 6. DDR tensors laid out
// in order (aligned to 64 bytes), CMX buffers at their offsets, tasks in program order with their
// barriers, cycles from the simulator's cost model.
#include <string>
#include <unordered_map>
#include <vector>

#include "lowering/vpu/ir.hpp"
#include "lowering/vpu/simulator.hpp"

namespace nnef::vpu::ir {

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
    for (std::size_t k = 0; k < m.barrier_physical.size(); ++k) list.barriers.push_back({std::int64_t(k), m.barrier_physical[k]});
    auto access = [&](const Box& b) {
        Access a;
        a.buffer = b.ref.cmx ? cmx_id[std::size_t(b.ref.index)] : ddr_id[std::size_t(b.ref.index)];
        a.offset = b.offset;
        a.shape = b.shape;
        a.strides = b.strides;
        return a;
    };
    for (const ir::Task& s : m.tasks) {
        vpu::Task task;
        task.id = std::int64_t(list.tasks.size());
        task.queue = s.queue;
        task.kind = s.kind;
        task.op = s.op;
        for (const Box& b : s.reads) task.reads.push_back(access(b));
        for (const Box& b : s.writes) task.writes.push_back(access(b));
        task.wait = s.wait;
        task.update = s.update;
        task.nce = s.nce;
        task.shave = s.shave;
        task.source = s.source;
        list.tasks.push_back(std::move(task));
    }
    std::unordered_map<std::string, const Buffer*> by_id;
    for (const Buffer& b : list.buffers) by_id[b.id] = &b;
    const auto find = [&](const std::string& id) -> const Buffer* {
        const auto it = by_id.find(id);
        return it == by_id.end() ? nullptr : it->second;
    };
    for (vpu::Task& task : list.tasks) {
        std::string why;
        const auto c = task_cycles(task, find, t, &why);
        if (!c) {
            diags.error(Stage::vpu, "internal", "task " + std::to_string(task.id) + " (" + task.op + "): " + why);
            return false;
        }
        task.cycles = *c;
    }
    return true;
}

}  // namespace nnef::vpu::ir
