// Issue 21, point 4: the constants of the NCE layers are packed in DDR (layout-and-types: one
// table tensor, one weights tensor per data type, each layer's part after the previous layer's),
// and the schedule loads the tables, or the whole weights, of consecutive small layers by one DMA
// into one CMX buffer (Scheduler::load_group). Fewer transfers, the same values.
#include <doctest/doctest.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "lowering/vpu/ir.hpp"
#include "unit/vpu/compile_support.hpp"

namespace constant_pack_test {

using namespace vpu_compile_support;
using Attrs = std::vector<std::pair<AttrName, Attr>>;
using I = std::vector<std::int64_t>;

// x [1,C,H,W] NCHW -> `layers` convs of C -> C channels (3x3 with padding 1, then 1x1, in turn),
// each with a bias: y [1,H,W,C] NHWC.
Graph chain_graph(int layers, std::int64_t H, std::int64_t C) {
    Graph g;
    g.name = "chain";
    const ValueId x = g.add_value(f32({1, C, H, H}), "x");
    g.main().inputs = {x};
    ValueId v = g.add_op(0, OpKind::TRANSPOSE, {x}, {f32({1, H, H, C})}, {{AttrName::perms, I{0, 2, 3, 1}}}).outputs[0];
    for (int k = 0; k < layers; ++k) {
        const std::int64_t K = k % 2 == 0 ? 3 : 1, p = K / 2;
        const Attrs attrs = {{AttrName::pad, I{p, p, p, p}}, {AttrName::stride, I{1, 1}}, {AttrName::dilation, I{1, 1}}, {AttrName::acc_type, AccType::FP32}};
        v = g.add_op(0, OpKind::CONV2D, {v, constant(g, {C, K, K, C}, 30 + 2 * unsigned(k), 0.2f), constant(g, {C}, 31 + 2 * unsigned(k)), zero(g), zero(g)},
                     {f32({1, H, H, C})}, attrs)
                .outputs[0];
    }
    g.values[v].name = "y";
    g.main().outputs = {v};
    return g;
}

// The DMAs that load constants: per DDR role (weights, table), the number of transfers, and per
// transfer the bytes; the NCE tasks and the CMX buffers their weights and tables lie in.
struct Loads {
    std::map<nnef::vpu::Role, int> dmas;
    std::map<nnef::vpu::Role, std::int64_t> bytes, ddr_size;
    int nce = 0;
    // CMX buffer -> the offsets NCE tasks read tables (weights) at there: one per layer
    std::map<std::string, std::set<std::int64_t>> tables_at, weights_at;
};

Loads loads_of(const vpu::TaskList& list) {
    std::map<std::string, const vpu::Buffer*> buffers;
    for (const auto& b : list.buffers) buffers[b.id] = &b;
    Loads s;
    for (const auto& b : list.buffers)
        if (b.memory == vpu::Memory::DDR && vpu::is_constant(b.role)) s.ddr_size[b.role] += b.size;
    for (const auto& task : list.tasks) {
        if (task.kind == vpu::TaskKind::NCE) {
            ++s.nce;
            s.tables_at[task.reads.back().buffer].insert(task.reads.back().offset);
            if (task.op == "conv") s.weights_at[task.reads[1].buffer].insert(task.reads[1].offset);
            continue;
        }
        if (task.kind != vpu::TaskKind::DMA) continue;
        const vpu::Buffer* r = buffers.at(task.reads[0].buffer);
        if (r->memory != vpu::Memory::DDR || !vpu::is_constant(r->role)) continue;
        ++s.dmas[r->role];
        s.bytes[r->role] += task.reads[0].elements() * vpu::element_bytes(r->dtype);
    }
    return s;
}


TEST_SUITE("vpu") {
    TEST_CASE("constants packed: the tables and small weights of consecutive layers load by one DMA, values unchanged") {
        // 8 convs of 16 -> 16 channels on 8x8: 4.6 KiB (3x3) and 512 bytes (1x1) of weights and
        // 256 bytes of table each, far below a transfer's latency worth of bytes (600 x 32)
        const int layers = 8;
        const Graph g = chain_graph(layers, 8, 16);
        vpu::TaskList list;
        compile_and_check(g, vpu::Target{}, nullptr, &list);  // values equal the interpreter's, simulator clean
        const Loads s = loads_of(list);
        REQUIRE(s.nce >= layers);
        // one packed tensor each in DDR
        int ddr_weights = 0, ddr_tables = 0;
        for (const auto& b : list.buffers)
            if (b.memory == vpu::Memory::DDR) {
                ddr_weights += b.role == vpu::Role::weights;
                ddr_tables += b.role == vpu::Role::table;
            }
        CHECK(ddr_weights == 1);
        CHECK(ddr_tables == 1);
        // fewer transfers than layers, and a CMX table buffer read by several layers
        CHECK(s.dmas.at(vpu::Role::table) < layers);
        CHECK(s.dmas.at(vpu::Role::weights) < layers);
        auto most = [](const std::map<std::string, std::set<std::int64_t>>& at) {
            std::size_t n = 0;
            for (const auto& [b, offsets] : at) n = std::max(n, offsets.size());
            return n;
        };
        CHECK(most(s.tables_at) > 1);
        CHECK(most(s.weights_at) > 1);
        // nothing loaded twice on a cluster: at most every byte once per cluster
        CHECK(s.bytes.at(vpu::Role::table) <= s.ddr_size.at(vpu::Role::table) * list.target.clusters);
        CHECK(s.bytes.at(vpu::Role::weights) <= s.ddr_size.at(vpu::Role::weights) * list.target.clusters);
    }

    TEST_CASE("constants packed: with a short DMA latency no group pays off, and each layer loads its own") {
        // dma_latency_cycles 1: a group may take 32 bytes, less than one table (256 bytes)
        vpu::Target t;
        t.dma_latency_cycles = 1;
        const int layers = 4;
        const Graph g = chain_graph(layers, 8, 16);
        vpu::TaskList list;
        compile_and_check(g, t, nullptr, &list);
        const Loads s = loads_of(list);
        // one layer's table per buffer (a chunk of its channels may read from its row)
        for (const auto& [b, offsets] : s.tables_at) CHECK(*offsets.rbegin() < 16 * 16);
        for (const auto& [b, offsets] : s.weights_at) CHECK(offsets == std::set<std::int64_t>{0});
        CHECK(s.dmas.at(vpu::Role::table) >= layers);
        CHECK(s.dmas.at(vpu::Role::weights) >= layers);
    }

    TEST_CASE("constants packed: the verifier checks that each layer's part lies in its packed tensor") {
        const Graph g = chain_graph(3, 8, 16);
        vpu::ir::Module m;
        m.graph = &g;
        m.target = vpu::Target{};
        run_passes_until(m, "build-tables");
        // the three convs' parts, one after the other
        std::vector<const vpu::ir::Layer*> convs;
        for (const auto& l : m.layers)
            if (l.exec == vpu::ir::Exec::nce) convs.push_back(&l);
        REQUIRE(convs.size() == 3);
        for (std::size_t k = 1; k < convs.size(); ++k) {
            CHECK(convs[k]->weights == convs[0]->weights);
            CHECK(convs[k]->table == convs[0]->table);
            CHECK(convs[k]->weights_offset == convs[k - 1]->weights_offset + convs[k - 1]->weights_bytes());
            CHECK(convs[k]->table_offset == convs[k - 1]->table_offset + convs[k - 1]->table_bytes(16));
        }
        const std::size_t last = std::size_t(convs.back() - m.layers.data());
        {
            vpu::ir::Module bad = m;
            bad.layers[last].table_offset += 16;  // its last row past the tensor
            Diagnostics d{0};
            CHECK_FALSE(vpu::ir::verify(bad, "build-tables", d));
            CHECK(text(d).find("does not lie in its table tensor") != std::string::npos);
        }
        {
            vpu::ir::Module bad = m;
            bad.layers[last].weights_offset += 2;
            Diagnostics d{0};
            CHECK_FALSE(vpu::ir::verify(bad, "build-tables", d));
            CHECK(text(d).find("do not lie in their weights tensor") != std::string::npos);
        }
        Diagnostics d{0};
        CHECK(vpu::ir::verify(m, "build-tables", d));  // the module itself is sound
    }
}

}  // namespace constant_pack_test
