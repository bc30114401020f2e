// What the DMA tasks of a compiled task list move, for the tests of the schedule's CMX residency:
// stores to DDR other than the graph outputs' (spills), and CMX-to-CMX copies between clusters
// with the dtypes they carry.
#pragma once
#include <map>
#include <set>
#include <string>

#include "lowering/vpu/task_list.hpp"

namespace vpu_test {

struct DmaCount {
    int spills = 0, cross = 0;
    std::set<nnef::vpu::DataType> cross_types;
};

inline DmaCount count_dma(const nnef::vpu::TaskList& list) {
    using namespace nnef::vpu;
    std::map<std::string, const Buffer*> buffers;
    for (const auto& b : list.buffers) buffers[b.id] = &b;
    DmaCount n;
    for (const auto& task : list.tasks) {
        if (task.kind != TaskKind::DMA) continue;
        const Buffer* r = buffers.at(task.reads[0].buffer);
        const Buffer* w = buffers.at(task.writes[0].buffer);
        if (w->memory == Memory::DDR && w->role != Role::output) ++n.spills;
        if (r->memory == Memory::CMX && w->memory == Memory::CMX && r->cluster != w->cluster) {
            ++n.cross;
            n.cross_types.insert(w->dtype);
        }
    }
    return n;
}

}  // namespace vpu_test
