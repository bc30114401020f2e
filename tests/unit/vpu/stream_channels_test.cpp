// Issue 21 point 4 (docs/schedule.md step 17): an element-wise chain after a dense conv split over
// output channels (ConvNeXt's GELU after the first MLP conv of stages 3-4) is streamed in the conv's
// channel chunks rather than in row parts (tile_stream_channels.cpp, schedule_stream.cpp): 14 rows
// made 7 row parts, dealt 2, 2, 2, 1 round the four SHAVE engines; 8 channel parts fall 2 on each.
#include <doctest/doctest.h>

#include <algorithm>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "lowering/vpu/passes/shave_parts.hpp"
#include "unit/vpu/compile_support.hpp"
#include "unit/vpu/elementwise_ops.hpp"

namespace stream_channels_test {

using namespace vpu_compile_support;

TEST_SUITE("vpu") {
    TEST_CASE("the busiest SHAVE engine's cost of a chain's parts") {
        // 7 parts of 2 of 14 rows on 4 engines: two waves of 2/14 of the work each
        CHECK(nnef::vpu::ir::stream_part_cost(7, 4, 2.0 / 14.0, 14000, 3, 100) == 2 * (2000 + 300));
        // 8 parts of 1/8: two waves of 1/8
        CHECK(nnef::vpu::ir::stream_part_cost(8, 4, 1.0 / 8.0, 14000, 3, 100) == 2 * (1750 + 300));
        CHECK(nnef::vpu::ir::stream_part_cost(4, 4, 0.25, 14000, 3, 100) == 3500 + 300);
    }

    TEST_CASE("an element-wise chain after a conv split over output channels runs in the conv's chunks") {
        const vpu::Target t;
        vpu::TaskList list;
        // ConvNeXt's stage 3: 14 x 14 x 384 -> 1536 (1.2 MB of weights: split over output channels)
        const auto r = compile_check_and_time(conv_erf_chain(14, 14, 384, 1536), t, list);  // values: the interpreter's
        // the conv's tiles: all rows, chunks of output channels
        std::map<std::string, std::int64_t> conv_chans;  // queue -> channels
        std::int64_t conv_tiles = 0;
        for (const auto& task : list.tasks)
            if (task.kind == vpu::TaskKind::NCE && task.op == "conv") {
                REQUIRE(task.writes[0].shape.size() == 4);
                CHECK(task.writes[0].shape[1] * task.writes[0].shape[2] == 14 * 14);  // (as 4 x 49: step 30)
                ++conv_tiles;
            }
        REQUIRE(conv_tiles >= 4);
        // the chain's SHAVE kernels: every part all 14 rows and a chunk of the channels, as many
        // parts on each SHAVE engine
        std::map<std::string, int> exp_parts;  // queue -> parts
        std::int64_t channels = 0;
        for (const auto& task : list.tasks)
            if (task.op == "exp") {
                const auto& shape = task.writes[0].shape;
                REQUIRE(shape.size() == 4);
                CHECK(shape[1] == 14);
                CHECK(shape[2] == 14);
                CHECK(shape[3] < 1536);
                channels += shape[3];
                ++exp_parts[task.queue];
            }
        CHECK(channels == 1536);
        const std::size_t engines = std::size_t(t.clusters * t.shave_per_cluster);
        REQUIRE(exp_parts.size() == engines);
        int least = 1 << 30, most = 0;
        for (const auto& qp : exp_parts) {
            least = std::min(least, qp.second);
            most = std::max(most, qp.second);
        }
        CHECK(least == most);
        // the SHAVE engines' work is even: the busiest within 2% of the least busy (7 row parts:
        // one engine had 3/4 of the others' work)
        std::map<std::string, double> busy;
        for (std::size_t i = 0; i < list.tasks.size(); ++i)
            if (list.tasks[i].kind == vpu::TaskKind::SHAVE) busy[list.tasks[i].queue] += double(r.cycles[i]);
        double lo = 1e300, hi = 0.0;
        for (const auto& qb : busy) {
            lo = std::min(lo, qb.second);
            hi = std::max(hi, qb.second);
        }
        MESSAGE("SHAVE busy " << lo << " .. " << hi << " cycles; makespan " << r.makespan << ", bound " << r.bound.value());
        CHECK(hi > 0.0);
        CHECK(hi <= 1.02 * lo);
    }

    // docs/schedule.md step 37: a 1x1 conv whose chunks of output channels outnumber the chain's
    // parts by a whole factor (ConvNeXt's stage 4: 32 chunks of 96 channels, each chunk's weights
    // what a tile may load, against 8 parts of 384 for the SHAVE engines' two waves) joins the
    // chain's streamed run with that many chunks per part (schedule_stream.cpp `conv_group`), as
    // stage 3's conv (a chunk per part) does: part k's chain waits for its own chunks only. Before,
    // the run began after the conv: its first part waited for the conv's last chunk, the SHAVE
    // engines idle while the DMA queues loaded all its weights, the DMA queues idle during the run.
    TEST_CASE("a conv in more chunks than the chain's parts runs in the chain's run, its chunks part by part") {
        const vpu::Target t;
        vpu::TaskList list;
        // ConvNeXt's stage 4: 7 x 7 x 768 -> 3072 (4.7 MB of weights)
        compile_check_and_time(conv_erf_chain(7, 7, 768, 3072), t, list);  // values: the interpreter's
        // the conv's tiles: chunks of output channels, more of them than the chain's parts
        std::vector<std::size_t> conv, exp;  // task indices in list order
        std::int64_t exp_channels = 0;
        for (std::size_t i = 0; i < list.tasks.size(); ++i) {
            const auto& task = list.tasks[i];
            if (task.kind == vpu::TaskKind::NCE && task.op == "conv") conv.push_back(i);
            if (task.op == "exp") {
                exp.push_back(i);
                REQUIRE(task.writes[0].shape.size() == 4);
                exp_channels = std::max(exp_channels, task.writes[0].shape[3]);
            }
        }
        REQUIRE(exp.size() >= 8);
        REQUIRE(!conv.empty());
        MESSAGE(conv.size() << " conv chunks, " << exp.size() << " exp parts of up to " << exp_channels << " channels");
        CHECK(conv.size() > exp.size());
        CHECK(conv.size() % exp.size() == 0);
        // in the run: the first exp part is in the list before the conv's last chunk (the conv
        // before the run: after all of them), and the chunks go part by part: before the k-th exp
        // part in the list, at most the chunks of the parts up to the next wave's
        CHECK(exp.front() < conv.back());
        const std::size_t per_part = conv.size() / exp.size(), wave = std::size_t(t.clusters * t.shave_per_cluster);
        for (std::size_t k = 0; k < exp.size(); ++k) {
            std::size_t before = 0;
            for (std::size_t c : conv) before += c < exp[k] ? 1 : 0;
            CAPTURE(k);
            CHECK(before >= (k + 1) * per_part);                 // its own chunks first
            CHECK(before <= (k / wave + 2) * wave * per_part);  // not the whole conv
        }
    }
}

}  // namespace stream_channels_test
