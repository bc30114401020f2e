// Issue 21 point 4 (docs/schedule.md step 18): where a ring buffer finds no CMX bytes off those of
// buffers that died within the last 32 tasks (their last readers may still run), the allocator
// (allocate_cmx.cpp) places it on the bytes of the ones that died earliest, not on the first that
// fit: its writer then waits (a write-after-read barrier) for readers most likely done. ConvNeXt's
// erf polynomial: `neg` took the bytes of `t`, read until the Horner chain's last NCE product, and
// its SHAVE engine waited for the whole chain.
//
// Step 38: the `timed` placement judges freed bytes by the scheduler's estimated times
// (`CmxBuffer::start_est`, `end_est`) instead of a count of tasks. Counted in tasks, a long SHAVE
// kernel (ConvNeXt's `exp` over a channel part, 76 K cycles) is "long done" once 32 tasks follow it
// in the list, and the next wave's first NCE layer, placed on its input's bytes, waited for it to
// end (a write-after-read barrier).
#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "lowering/vpu/ir.hpp"

namespace allocate_recent_test {

using nnef::vpu::ir::CmxBuffer;
using nnef::vpu::ir::Module;

// A ring buffer (not held) on cluster 0, `units` KB, touched from task `first` to task `last`.
CmxBuffer ring(const std::string& tensor, std::int64_t first, std::int64_t last, std::int64_t units = 1) {
    CmxBuffer b;
    b.cluster = 0;
    b.size = units * 1024;
    b.tensor = tensor;
    b.first = first;
    b.last = last;
    return b;
}

Module module_of(std::int64_t cmx_units) {
    Module m;
    m.target.clusters = 1;
    m.target.cmx_bytes = cmx_units * 1024;
    m.target.cmx_alignment = 64;
    return m;
}

// ring() estimated to be first written at cycle `start` and last touched until `end`, held or not.
CmxBuffer timed(const std::string& tensor, std::int64_t first, std::int64_t last, double start, double end, std::int64_t units = 1,
                bool held = false) {
    CmxBuffer b = ring(tensor, first, last, units);
    b.start_est = start;
    b.end_est = end;
    b.held = held;
    return b;
}

// The offsets (in KB) allocate_cmx gives `buffers` in a CMX of `cmx_units` KB (`by_time`: its
// timed placement, buffers last read by a transfer counted `margin` cycles later); empty when it
// fails (and then, timed, it reports nothing). `transfers`: the tasks that are DMA transfers (the
// list's others, up to task 99, NCE tasks).
std::vector<std::int64_t> placed(std::int64_t cmx_units, std::vector<CmxBuffer> buffers, bool by_time = false, double margin = 0.0,
                                 const std::vector<std::size_t>& transfers = {}) {
    Module m = module_of(cmx_units);
    m.cmx = std::move(buffers);
    m.tasks.resize(100);
    for (nnef::vpu::ir::Task& t : m.tasks) t.kind = nnef::vpu::TaskKind::NCE;
    for (std::size_t i : transfers) m.tasks[i].kind = nnef::vpu::TaskKind::DMA;
    nnef::Diagnostics d{0};
    const bool ok = nnef::vpu::ir::allocate_cmx(m, d, by_time, margin);
    if (by_time) CHECK(d.empty());
    if (!ok) return {};
    CHECK(d.empty());
    std::vector<std::int64_t> kb;
    for (const CmxBuffer& b : m.cmx) kb.push_back(b.offset / 1024);
    return kb;
}

using KB = std::vector<std::int64_t>;


TEST_SUITE("vpu") {
    TEST_CASE("allocate_cmx: a ring buffer with no room off recently freed bytes takes those freed earliest") {
        // CMX of 3 KB: `late` at 0 (read until task 8), `early` at 1 KB (read until task 5), `long`
        // at 2 KB (live throughout). `next` (first task 10) must reuse the bytes of one of the two
        // dead ones, both within the last 32 tasks: the first fitting place is 0 (late's bytes:
        // its writer would wait for task 8); those freed earliest are early's (task 5).
        CHECK(placed(3, {ring("late", 0, 8), ring("early", 0, 5), ring("long", 0, 30), ring("next", 10, 12)}) == KB{0, 1, 2, 1});
        // the two dead buffers' places swapped: the choice follows the readers' last tasks
        CHECK(placed(3, {ring("early", 0, 5), ring("late", 0, 8), ring("long", 0, 30), ring("next", 10, 12)}) == KB{0, 1, 2, 0});
    }

    TEST_CASE("allocate_cmx: bytes off every recently freed buffer are still taken first") {
        // CMX of 4 KB: the never used KB at 3 KB, not the bytes of the dead ones
        CHECK(placed(4, {ring("late", 0, 8), ring("early", 0, 5), ring("long", 0, 30), ring("next", 10, 12)}) == KB{0, 1, 2, 3});
        // a buffer that died more than 32 tasks ago is free like never used bytes: `next` on old's
        // bytes (died at task 2, 48 tasks before), not on early's (died at task 40)
        CHECK(placed(3, {ring("old", 0, 2), ring("early", 0, 40), ring("long", 0, 80), ring("next", 50, 52)}) == KB{0, 1, 2, 0});
    }

    TEST_CASE("allocate_cmx: where the rule leaves no room for a later buffer, it is dropped only just before it") {
        // CMX of 4 KB. Tasks 0-2: four buffers, `v` read last at task 1, the others at task 2;
        // `s` (tasks 4-200) then takes v's bytes (3 KB), those freed earliest. At task 100 three
        // short buffers, then `d` (103-150) on w2's bytes (1 KB, freed at 101) and `e` of 2 KB at
        // task 105: with s at 3 KB and d at 1 KB no 2 KB are free. Without the rule (s at 0, d at
        // 1 KB) there are; dropping it for the buffers from task 41 on (the 64 tasks before e)
        // puts d at 0 and e at 1 KB, and s keeps its place (3 KB: the rule held there).
        const KB kb = placed(4, {ring("p", 0, 2), ring("q", 0, 2), ring("u", 0, 2), ring("v", 0, 1), ring("s", 4, 200),
                                 ring("w1", 100, 102), ring("w2", 100, 101), ring("w3", 100, 102), ring("d", 103, 150),
                                 ring("e", 105, 106, 2)});
        CHECK(kb == KB{0, 1, 2, 3, 3, 0, 1, 2, 0, 1});
    }

    TEST_CASE("allocate_cmx: no room at all is an error, as before") {
        Module m = module_of(2);
        m.cmx = {ring("a", 0, 10), ring("b", 0, 10), ring("c", 5, 12)};
        nnef::Diagnostics d{0};
        CHECK_FALSE(nnef::vpu::ir::allocate_cmx(m, d));
        REQUIRE(d.has_errors());
        CHECK(d.list().front().code == "cmx-exhausted");
    }

    TEST_CASE("allocate_cmx timed: a buffer keeps off the bytes of a long kernel's input while the kernel runs") {
        // CMX of 3 KB: `exp_in` at 0 read by a kernel that ends at cycle 100000, `chain` at 1 KB
        // read until cycle 1000, `long` at 2 KB live throughout. `next` (task 50, written from cycle
        // 2000) must take freed bytes. Both freed buffers died more than 32 tasks before it, so by
        // tasks both are done and it takes the first fitting place, exp_in's (its writer would
        // wait 98000 cycles); timed, it takes chain's.
        const std::vector<CmxBuffer> bs = {timed("exp_in", 0, 5, 0, 100000), timed("chain", 0, 8, 0, 1000),
                                           timed("long", 0, 90, 0, 200000), timed("next", 50, 52, 2000, 3000)};
        CHECK(placed(3, bs, false) == KB{0, 1, 2, 0});
        CHECK(placed(3, bs, true) == KB{0, 1, 2, 1});
    }

    TEST_CASE("allocate_cmx timed: bytes freed one task ago are free when their readers end before the writer starts") {
        // CMX of 3 KB: `a` at 0 (last task 9, estimated done at cycle 500), `b` at 1 KB (last task
        // 8, a kernel until cycle 50000), `long` at 2 KB. By tasks both died within 32 tasks of
        // `next` (task 10): no place is off both, and it takes b's bytes, freed a task earlier.
        // Timed, a's readers are done before next's writer starts (cycle 600): a's bytes are free.
        const std::vector<CmxBuffer> bs = {timed("a", 0, 9, 0, 500), timed("b", 0, 8, 0, 50000), timed("long", 0, 30, 0, 90000),
                                           timed("next", 10, 20, 600, 900)};
        CHECK(placed(3, bs, false) == KB{0, 1, 2, 1});
        CHECK(placed(3, bs, true) == KB{0, 1, 2, 0});
    }

    TEST_CASE("allocate_cmx timed: with no place off busy bytes, those whose readers end first by estimate") {
        // CMX of 3 KB: `slow` at 0 (a SHAVE kernel until cycle 90000, its last task 40) and `fast`
        // at 1 KB (NCE tasks until cycle 5000, its last task 45) both still running when `next`
        // starts (cycle 4000, task 50). By tasks, slow died earlier (task 40 < 45): next takes its
        // bytes; timed, fast's readers end first: next takes those.
        const std::vector<CmxBuffer> bs = {timed("slow", 0, 40, 0, 90000), timed("fast", 0, 45, 0, 5000),
                                           timed("long", 0, 90, 0, 200000), timed("next", 50, 52, 4000, 6000)};
        CHECK(placed(3, bs, false) == KB{0, 1, 2, 0});
        CHECK(placed(3, bs, true) == KB{0, 1, 2, 1});
    }

    TEST_CASE("allocate_cmx timed: a held result keeps off busy bytes too, at the highest place that does") {
        // CMX of 4 KB: `top` at 3 KB (held, read until cycle 80000), `ring` at 0; after both die,
        // the held `h` (from cycle 1000) goes to the top by the rule by tasks (top's bytes: its
        // writer waits for top's readers), timed to the highest place off them, 2 KB.
        const std::vector<CmxBuffer> bs = {timed("top", 0, 5, 0, 80000, 1, true), timed("ring", 0, 6, 0, 500),
                                           timed("h", 10, 60, 1000, 9000, 1, true)};
        CHECK(placed(4, bs, false) == KB{3, 0, 3});
        CHECK(placed(4, bs, true) == KB{3, 0, 2});
    }

    // Step 47: a transfer's estimated end misses the DDR it shares and the in-order queue it waits
    // in (ConvNeXt's stage-1 runs: the first `reciprocal` on a cluster waited 40-53 K cycles for the
    // store of a layer-norm part whose bytes it took); with a margin, the bytes a store reads last
    // count as busy that much longer.
    TEST_CASE("allocate_cmx timed: bytes last read by a transfer count as busy `transfer_margin` cycles longer") {
        // CMX of 3 KB: `stored` at 0, its last reader task 9 a store estimated to end at cycle 500;
        // `read` at 1 KB, its last reader task 8 an NCE task until cycle 700; `long` at 2 KB. `next`
        // (task 10, written from cycle 1000): both freed buffers are done by estimate, and it takes
        // the first place, stored's bytes; with a margin of 1000 cycles the store counts until 1500,
        // and next keeps off its bytes.
        const std::vector<CmxBuffer> bs = {timed("stored", 0, 9, 0, 500), timed("read", 0, 8, 0, 700), timed("long", 0, 30, 0, 90000),
                                           timed("next", 10, 20, 1000, 1500)};
        CHECK(placed(3, bs, true, 0.0, {9}) == KB{0, 1, 2, 0});
        CHECK(placed(3, bs, true, 1000.0, {9}) == KB{0, 1, 2, 1});
        // an NCE reader's bytes get no margin; the placement by tasks takes none
        CHECK(placed(3, bs, true, 1000.0, {}) == KB{0, 1, 2, 0});
        CHECK(placed(3, bs, false, 1000.0, {9}) == placed(3, bs, false));
    }

    TEST_CASE("allocate_cmx timed: no placement is no report (the caller keeps the one it has)") {
        const std::vector<CmxBuffer> bs = {timed("a", 0, 10, 0, 10), timed("b", 0, 10, 0, 10), timed("c", 5, 12, 5, 12)};
        CHECK(placed(2, bs, true).empty());
        CHECK(placed(2, bs, false).empty());
    }
}

}  // namespace allocate_recent_test
