// Issue 21, point 4: NCE layers whose weights traffic dominates split their output channels over
// the clusters (tile_split_channels.hpp, VPUX's SOK): each cluster computes its half of the
// channels of all rows and loads only their weights, instead of both clusters loading all of
// them for their rows. Values stay the interpreter's.
#include <doctest/doctest.h>

#include <algorithm>
#include <map>
#include <set>
#include <utility>
#include <string>
#include <vector>

#include "unit/vpu/compile_support.hpp"
#include "unit/vpu/dma_count.hpp"

namespace split_channels_test {

using namespace vpu_compile_support;
using Attrs = std::vector<std::pair<AttrName, Attr>>;
using I = std::vector<std::int64_t>;

// x [1,IC,H,W] NCHW -> 1x1 conv (C outputs) -> 1x1 conv (C outputs): y [1,H,W,C] NHWC.
Graph pointwise_graph(std::int64_t H, std::int64_t W, std::int64_t IC, std::int64_t C) {
    Graph g;
    g.name = "pointwise";
    const ValueId x = g.add_value(f32({1, IC, H, W}), "x");
    g.main().inputs = {x};
    ValueId v = g.add_op(0, OpKind::TRANSPOSE, {x}, {f32({1, H, W, IC})}, {{AttrName::perms, I{0, 2, 3, 1}}}).outputs[0];
    const Attrs attrs = conv_attrs({0, 0, 0, 0});
    std::int64_t in = IC;
    for (unsigned k = 0; k < 2; ++k) {
        v = g.add_op(0, OpKind::CONV2D, {v, constant(g, {C, 1, 1, in}, 20 + 2 * k, 0.1f), constant(g, {C}, 21 + 2 * k), zero(g), zero(g)},
                     {f32({1, H, W, C})}, attrs)
                .outputs[0];
        in = C;
    }
    g.values[v].name = "y";
    g.main().outputs = {v};
    return g;
}

struct Split {
    int nce_tasks = 0, whole_rows = 0, half_channels = 0;
    std::map<std::string, std::int64_t> weights_loaded;  // DDR weights buffer -> bytes moved from it
    std::map<std::string, std::int64_t> weights_size;
};

Split split_of(const vpu::TaskList& list, std::int64_t H, std::int64_t C) {
    std::map<std::string, const vpu::Buffer*> buffers;
    for (const auto& b : list.buffers) buffers[b.id] = &b;
    Split s;
    for (const auto& task : list.tasks) {
        if (task.kind == vpu::TaskKind::NCE) {
            ++s.nce_tasks;
            const auto& w = task.writes[0];
            if (w.shape[1] == H) ++s.whole_rows;
            if (w.shape[3] == C / 2) ++s.half_channels;
        }
        if (task.kind != vpu::TaskKind::DMA) continue;
        const vpu::Buffer* r = buffers.at(task.reads[0].buffer);
        if (r->memory != vpu::Memory::DDR || r->role != vpu::Role::weights) continue;
        std::int64_t n = 2;  // fp16
        for (std::int64_t e : task.reads[0].shape) n *= e;
        s.weights_loaded[r->id] += n;
        s.weights_size[r->id] = r->size;
    }
    return s;
}

// How many times each weights tensor was loaded (bytes moved / its size), lowest and highest.
std::pair<double, double> times_loaded(const Split& s) {
    std::pair<double, double> r{1e300, 0.0};
    for (const auto& [id, bytes] : s.weights_loaded) {
        const double n = double(bytes) / double(s.weights_size.at(id));
        r = {std::min(r.first, n), std::max(r.second, n)};
    }
    return r;
}

// The split of pointwise_graph(H, W, cin, C), compiled and checked against the interpreter
// (compile_and_check); `list` gets the task list.
Split compiled_split(std::int64_t H, std::int64_t W, std::int64_t cin, std::int64_t C, vpu::TaskList& list) {
    compile_and_check(pointwise_graph(H, W, cin, C), vpu::Target{}, nullptr, &list);
    return split_of(list, H, C);
}


TEST_SUITE("vpu") {
    TEST_CASE("split over channels: 1x1 convs of many weights on few rows take half the channels of all rows per cluster") {
        // 8x8 rows, 256 -> 384 -> 384 channels: the row split would load 192 KiB and 288 KiB of
        // weights on both clusters, the channel split copies 32-48 KiB of activations instead
        // (and the work the second cluster takes, 3072 and 4608 cycles, exceeds those copies:
        // not on one cluster, see below)
        vpu::TaskList list;
        const Split s = compiled_split(8, 8, 256, 384, list);
        CHECK(s.nce_tasks == 4);  // two layers, one task per cluster each
        CHECK(s.whole_rows == s.nce_tasks);
        CHECK(s.half_channels == s.nce_tasks);
        REQUIRE(s.weights_loaded.size() == 1);  // the two layers' weights, packed in one DDR tensor
        CHECK(times_loaded(s) == std::make_pair(1.0, 1.0));  // each weight loaded once (each layer's at least once)
        CHECK(vpu_test::count_dma(list).spills == 0);
        CHECK(vpu_test::count_dma(list).cross > 0);  // the other cluster's channels, copied in
    }

    TEST_CASE("split over channels: a layer whose work saved is less than the split's copies runs whole on one cluster") {
        // 8x8 rows, 128 -> 256 -> 256 channels: the channel split beats the row split (64 and 128
        // KiB of weights on both clusters), but the second cluster would take 1024 and 2048 cycles
        // of work off the first against copies of 1968 and 2224 (two DMA latencies and half the
        // input and output bytes): tile_split_channels.hpp, one_cluster_wins. Before: 4 tasks,
        // half the channels each, copies between the clusters.
        vpu::TaskList list;
        const Split s = compiled_split(8, 8, 128, 256, list);
        CHECK(s.nce_tasks == 2);  // two layers, one task each
        CHECK(s.whole_rows == 2);
        CHECK(s.half_channels == 0);
        int on_nce0 = 0;
        for (const auto& task : list.tasks) on_nce0 += task.kind == vpu::TaskKind::NCE && task.queue == "NCE0";
        CHECK(on_nce0 == 2);
        CHECK(times_loaded(s) == std::make_pair(1.0, 1.0));
        CHECK(vpu_test::count_dma(list).spills == 0);
        CHECK(vpu_test::count_dma(list).cross == 0);  // nothing between the clusters
    }

    TEST_CASE("split over channels: not where the rows' work hides the weights' load (a large plane of few channels)") {
        vpu::TaskList list;
        const Split s = compiled_split(64, 64, 16, 32, list);
        CHECK(s.whole_rows == 0);  // split over rows
        REQUIRE_FALSE(s.weights_loaded.empty());
        CHECK(times_loaded(s).first >= 2.0);  // on both clusters
    }

    TEST_CASE("channel chunks of the same rows on a cluster load their DDR input box once") {
        // 14x14, 384 -> 1536 -> 1536 (ConvNeXt's stage-3 MLP width): the weights come in channel
        // chunks, each a tile of the same rows; the first conv reads the graph input from DDR. Each
        // chunk loaded that box again (1536 / chunk loads of 14 x 14 x 384 per cluster); a tile now
        // reads the buffer the layer's previous tile on its cluster loaded when the box is the same
        // (docs/schedule.md step 10).
        vpu::TaskList list;
        compile_and_check(pointwise_graph(14, 14, 384, 1536), vpu::Target{}, nullptr, &list);
        std::map<std::string, const vpu::Buffer*> buffers;
        for (const auto& b : list.buffers) buffers[b.id] = &b;
        std::set<std::pair<std::string, std::vector<std::int64_t>>> boxes;  // (CMX buffer's cluster, box) loaded from the input
        int loads = 0, first_layer_tiles = 0;
        for (const auto& task : list.tasks) {
            if (task.kind == vpu::TaskKind::NCE && task.reads[0].shape[3] == 384) ++first_layer_tiles;
            if (task.kind != vpu::TaskKind::DMA || buffers.at(task.reads[0].buffer)->role != vpu::Role::input) continue;
            ++loads;
            std::vector<std::int64_t> box = task.reads[0].shape;
            box.push_back(task.reads[0].offset);
            boxes.insert({std::to_string(buffers.at(task.writes[0].buffer)->cluster), box});
        }
        MESSAGE(loads << " loads of the input for " << first_layer_tiles << " tiles of the first conv");
        CHECK(first_layer_tiles > 2 * std::int64_t(boxes.size()));  // chunks of the same rows (else this tests nothing)
        CHECK(loads == std::int64_t(boxes.size()));                 // each box once per cluster
    }
}

}  // namespace split_channels_test
