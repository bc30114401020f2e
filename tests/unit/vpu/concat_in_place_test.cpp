// Issue 21, point 4: concats written in place (lowering/vpu/passes/schedule_concat.cpp). In a
// dense block every layer concatenates all earlier results; the sources of those concats are
// written by their producers into one buffer per (cluster, rows) of all the block's channels, so
// each batch norm (an NCE 1x1 maxpool) reads its concat where it lies instead of gathering it
// from one buffer per source by CMX-to-CMX DMA. The model: tests/data/vpu_dense_block.
#include <doctest/doctest.h>

#include <filesystem>
#include <map>
#include <memory>
#include <set>
#include <string>

#include "common/build_paths.hpp"
#include "unit/mlir/lowered_model.hpp"
#include "unit/vpu/compile_support.hpp"

namespace concat_in_place_test {

namespace fs = std::filesystem;
using namespace vpu_compile_support;

struct Writers {
    std::set<std::string> nce_sources;  // the sources of the NCE tasks that write the buffer
    int dma = 0;                        // DMA tasks that write it
};

std::map<std::string, Writers> writers_of(const vpu::TaskList& list) {
    std::map<std::string, Writers> w;
    for (const vpu::Task& task : list.tasks)
        for (const vpu::Access& a : task.writes) {
            if (task.kind == vpu::TaskKind::NCE) w[a.buffer].nce_sources.insert(task.source);
            if (task.kind == vpu::TaskKind::DMA) ++w[a.buffer].dma;
        }
    return w;
}


TEST_SUITE("vpu") {
    TEST_CASE("concat in place: a dense block's batch norms read their concats where the sources wrote them, no gathers") {
        const auto lowered = nnef_test::lower_model(fs::path(NNEF_SOURCE_DIR) / "tests" / "data" / "vpu_dense_block", 1);
        REQUIRE(lowered->graph);
        vpu::TaskList list;
        // values the interpreter's, the simulator clean, the bound at most the makespan
        compile_and_check(*lowered->graph, vpu::Target{}, nullptr, &list);
        const std::map<std::string, Writers> writers = writers_of(list);
        std::map<std::string, vpu::Memory> memory;
        for (const vpu::Buffer& b : list.buffers) memory[b.id] = b.memory;
        std::map<std::string, int> bn_tasks;
        int gathers = 0;
        for (const vpu::Task& task : list.tasks) {
            // a gather is a CMX-to-CMX DMA issued for the reading layer: none for the batch norms
            // (g1..g4; their DMAs load their tables)
            if (task.kind == vpu::TaskKind::DMA && task.source.size() == 2 && task.source[0] == 'g' &&
                memory.at(task.reads.at(0).buffer) == vpu::Memory::CMX)
                ++gathers;
            if (task.kind != vpu::TaskKind::NCE || task.op != "maxpool") continue;
            const std::string& bn = task.source;
            CAPTURE(bn);
            ++bn_tasks[bn];
            const vpu::Access& in = task.reads.at(0);
            const Writers& w = writers.at(in.buffer);
            // read in place: the buffer is the producers' (NCE tasks), no copy writes it, and it
            // has room for all 80 channels of the block (row of 80 fp16 items)
            CHECK(w.dma == 0);
            REQUIRE(in.strides.size() == 4);
            CHECK(in.strides[2] == 80 * 2);
            // g1's concat is f0 alone; g2's is f0 and f1; ...: the buffer holds every source
            CHECK(w.nce_sources == std::set<std::string>{"f0", "f1", "f2", "f3"});
        }
        CHECK(gathers == 0);
        CHECK(bn_tasks.size() == 4);
        for (const auto& entry : bn_tasks) {
            const std::string& bn = entry.first;
            CAPTURE(bn);
            CHECK(entry.second >= 2);  // row tiles on both clusters
        }
    }

    TEST_CASE("concat in place: on a CMX too small for the block's buffers the concats are gathered, values unchanged") {
        const auto lowered = nnef_test::lower_model(fs::path(NNEF_SOURCE_DIR) / "tests" / "data" / "vpu_dense_block", 1);
        REQUIRE(lowered->graph);
        vpu::Target small;
        small.cmx_bytes = 98304;
        vpu::TaskList list;
        compile_and_check(*lowered->graph, small, nullptr, &list);
        const std::map<std::string, Writers> writers = writers_of(list);
        bool all_in_place = true;
        for (const vpu::Task& task : list.tasks)
            if (task.kind == vpu::TaskKind::NCE && task.op == "maxpool" && task.source != "g1")
                all_in_place = all_in_place && writers.at(task.reads.at(0).buffer).dma == 0;
        CHECK_FALSE(all_in_place);
    }
    TEST_CASE("concat in place: a concat of boxes of one result keeps its reader's own row split") {
        // tests/data/vpu_concat_of_boxes: a conv's 56 rows, split over the clusters, cut into its top
        // and bottom 28 rows and concatenated over channels, read by a 1x1 conv. Only whole results
        // give a concat their row split; with this one's, the reader took tiles of rows 28..56 of
        // its 28 and the schedule read past a buffer (the zoo's swin_t_int8, its patch merging).
        const auto lowered = nnef_test::lower_model(fs::path(NNEF_SOURCE_DIR) / "tests" / "data" / "vpu_concat_of_boxes", 1);
        REQUIRE(lowered->graph);
        vpu::TaskList list;
        compile_and_check(*lowered->graph, vpu::Target{}, nullptr, &list);  // values, simulator clean
        int reader_tasks = 0;
        for (const vpu::Task& task : list.tasks) {
            if (task.kind != vpu::TaskKind::NCE || task.source != "y") continue;
            ++reader_tasks;
            REQUIRE(task.writes.size() == 1);
            const vpu::Access& out = task.writes[0];
            REQUIRE(out.shape.size() == 4);
            CHECK(out.shape[1] >= 1);
            CHECK(out.shape[1] <= 28);
        }
        CHECK(reader_tasks >= 1);
    }
}

}  // namespace concat_in_place_test
