// Issue 21 point 4 (docs/schedule.md step 18): where a ring buffer finds no CMX bytes off those of
// buffers that died within the last 32 tasks (their last readers may still run), the allocator
// (allocate_cmx.cpp) places it on the bytes of the ones that died earliest, not on the first that
// fit: its writer then waits (a write-after-read barrier) for readers most likely done. ConvNeXt's
// erf polynomial: `neg` took the bytes of `t`, read until the Horner chain's last NCE product, and
// its SHAVE engine waited for the whole chain.
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

// The offsets (in KB) allocate_cmx gives `buffers` in a CMX of `cmx_units` KB; empty when it fails.
std::vector<std::int64_t> placed(std::int64_t cmx_units, std::vector<CmxBuffer> buffers) {
    Module m = module_of(cmx_units);
    m.cmx = std::move(buffers);
    nnef::Diagnostics d{0};
    if (!nnef::vpu::ir::allocate_cmx(m, d)) return {};
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
}

}  // namespace allocate_recent_test
