// Issue 21 point 4 (docs/schedule.md step 41): the weights table of an NCE layer whose rows are all
// alike (a pool or eltwise without weights whose scale and bias are one value: the element-wise
// layers of ConvNeXt's erf polynomial) keeps only as many rows as its widest tile has channels
// (`Layer::table_rows`, build_tables.cpp), and every task reads its rows from the first. A GELU
// over 1536 channels in parts of 192 then loads 3 KB of table per layer and cluster, not 24 KB,
// and a run's dozen tables take that much less CMX while it is under way.
#include <doctest/doctest.h>

#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "lowering/vpu/ir_text.hpp"
#include "unit/vpu/compile_support.hpp"
#include "unit/vpu/elementwise_ops.hpp"

namespace table_rows_test {

using namespace vpu_compile_support;

TEST_SUITE("vpu") {
    TEST_CASE("a table of alike rows keeps the widest tile's rows, and the tables tensor is laid out again") {
        // ConvNeXt's stage 3: 14 x 14 x 384 -> 1536, the chain in channel parts
        const Graph g = conv_erf_chain(14, 14, 384, 1536);
        vpu::ir::Module m;
        graph_until(m, g, "build-tables");
        std::map<std::size_t, std::int64_t> widest;
        for (const auto& tl : m.tiles) widest[std::size_t(tl.layer)] = std::max(widest[std::size_t(tl.layer)], tl.chans);
        const std::int64_t align = m.target.nce_channel_alignment;
        int cut = 0, tables = -1;
        std::int64_t end = 0;  // the packed tables, layer after layer
        for (std::size_t li = 0; li < m.layers.size(); ++li) {
            const auto& l = m.layers[li];
            if (l.exec != vpu::ir::Exec::nce) continue;
            CAPTURE(l.source);
            REQUIRE(l.table >= 0);
            tables = l.table;
            CHECK(l.table_offset == end);
            end += l.table_bytes(align);
            const auto& data = *m.tensors[std::size_t(l.table)].data;
            if (l.weights >= 0) {
                CHECK(l.table_rows == 0);  // word 0: each channel's weights offset
                continue;
            }
            if (widest[li] == l.output.shape[3]) continue;  // one tile of all channels: nothing to cut
            ++cut;
            CHECK(l.table_rows == widest[li]);
            CHECK(l.table_rows < l.output.shape[3]);
            // every row as the first
            for (std::int64_t r = 1; r < l.table_rows; ++r)
                CHECK(std::memcmp(data.data() + l.table_offset + r * 16, data.data() + l.table_offset, 16) == 0);
        }
        CHECK(cut >= 4);  // |u| and its scale, -u, -u u, the products of the chain
        REQUIRE(tables >= 0);
        CHECK(m.tensors[std::size_t(tables)].bytes == end);
        // the IR text keeps the rows
        Diagnostics d{0};
        const auto read = vpu::ir::read_text(vpu::ir::write_text(m), "m.txt", d);
        INFO(text(d));
        REQUIRE(read);
        for (std::size_t li = 0; li < m.layers.size(); ++li) CHECK(read->module.layers[li].table_rows == m.layers[li].table_rows);
    }

    TEST_CASE("the chain's element-wise layers load a part's rows of table: the interpreter's values, an eighth of the bytes") {
        const vpu::Target t;
        vpu::TaskList list;
        compile_check_and_time(conv_erf_chain(14, 14, 384, 1536), t, list);  // values: the interpreter's
        std::map<std::string, const vpu::Buffer*> buffer;
        for (const auto& b : list.buffers) buffer[b.id] = &b;
        // the bytes loaded into table buffers, and each NCE task's table read (its last read) within
        // its buffer: a pool or eltwise task over 192 of 1536 channels reads 192 rows
        std::int64_t loaded = 0, elementwise = 0;
        for (const auto& task : list.tasks) {
            if (task.kind == vpu::TaskKind::DMA && buffer.at(task.writes[0].buffer)->role == vpu::Role::table) {
                std::int64_t n = 4;
                for (std::int64_t d : task.writes[0].shape) n *= d;
                loaded += n;
            }
            if (task.kind == vpu::TaskKind::NCE && task.op != "conv") {
                ++elementwise;
                const auto& table = task.reads.back();
                CHECK(table.shape[0] == task.writes[0].shape[3]);
                CHECK(table.offset + table.shape[0] * 16 <= buffer.at(table.buffer)->size);
            }
        }
        REQUIRE(elementwise > 0);
        // whole tables: at least 1536 rows per element-wise layer and cluster (six such layers in
        // the chain: 6 x 2 x 24576 bytes); cut to the parts' 192 rows, an eighth of that
        MESSAGE("table bytes loaded: " << loaded);
        CHECK(loaded < 6 * 2 * 1536 * 16 / 2);
    }
}

}  // namespace table_rows_test
