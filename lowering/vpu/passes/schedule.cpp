// schedule (lowering/vpu/ir.hpp): the program order and, through allocate_cmx
// (allocate_cmx.cpp), the static CMX offsets. One pass, honestly: when the allocator finds no room,
// the schedule is made again with fewer held results, so neither is complete without the other.
//
// schedule: the program order of the tasks. Per layer, per tile: DMA of the input rows (with the
// halo) into the tile's cluster, the NCE or SHAVE task, DMA of the result to DDR. The weights and
// table of each (cluster, channel chunk) are loaded once per layer, and those of the next NCE
// layer are issued right after the current layer's first tile, so that they arrive while it
// computes. A tile's store is issued after the loads of the tile two later (fewer when the
// waiting results would take more than a quarter of CMX), so that the DMA queues, which run in
// order, load the next tiles while a tile computes instead of waiting behind its store; a store
// is issued before any load that reads its bytes (not at the layer boundary). A layer
// whose only reader is the next layer, pointwise (1x1 stride-1 conv or pool, eltwise) with the same row
// tiles on the same clusters, keeps its results in CMX for it (see `resident`); other results
// read as boxes by later layers stay in CMX until their last reader, exchanged between clusters
// by CMX-to-CMX DMA (see `held`).
#include <algorithm>

#include "lowering/vpu/passes/scheduler.hpp"
#include "lowering/vpu/passes/shave_parts.hpp"
#include "lowering/vpu/passes/tile_cuboid_rows.hpp"

namespace nnef::vpu::ir {

namespace schedule_impl {

void Scheduler::hold(int buffer, int tensor) {
    m.cmx[std::size_t(buffer)].held = true;
    held_tensor[buffer] = tensor;
}

int Scheduler::cmx(std::int64_t cluster, std::int64_t bytes, DataType dt, Role role, const std::string& tensor) {
    CmxBuffer b;
    b.cluster = cluster;
    b.size = bytes;
    b.dtype = dt;
    b.role = role;
    b.tensor = tensor;
    m.cmx.push_back(b);
    return int(m.cmx.size()) - 1;
}

Box Scheduler::dense_box(int buffer, std::vector<std::int64_t> shape, std::int64_t es) {
    Box b;
    b.ref = {true, buffer};
    b.strides = dense_strides(shape, es);
    b.shape = std::move(shape);
    return b;
}

bool Scheduler::even_pixels(const Box& b) {
    return b.shape.size() == 4 && b.shape[0] == 1 && b.strides[1] == b.shape[2] * b.strides[2];
}

void Scheduler::on_plane(Box& b, std::int64_t h, std::int64_t w) {
    b.shape[1] = h;
    b.shape[2] = w;
    b.strides[1] = w * b.strides[2];
}

Box Scheduler::ddr_box(const View& v) {
    Box b;
    b.ref = {false, v.tensor};
    b.offset = v.offset;
    b.shape = v.shape;
    b.strides = v.strides;
    return b;
}

View Scheduler::slice(View v, std::size_t dim, std::int64_t from, std::int64_t n) {
    v.offset += from * v.strides[dim];
    v.shape[dim] = n;
    return v;
}

double Scheduler::ready(const Task& task) const {
    auto at = [](const std::vector<double>& times, int k) { return std::size_t(k) < times.size() ? times[std::size_t(k)] : 0.0; };
    double r = 0.0;
    for (const Box& b : task.reads) r = std::max(r, at(b.ref.cmx ? cmx_written : ddr_written, b.ref.index));
    for (const Box& b : task.writes)
        if (b.ref.cmx) r = std::max({r, at(cmx_written, b.ref.index), at(cmx_read, b.ref.index)});
    return r;
}

std::int64_t Scheduler::add(Task task) {
    const std::int64_t idx = std::int64_t(m.tasks.size());
    const double start = std::max(free_at[task.queue], ready(task));
    const double end = start + cost;
    free_at[task.queue] = end;
    estimated.push_back({start, end});
    auto slot = [](std::vector<double>& times, int k) -> double& {
        if (times.size() <= std::size_t(k)) times.resize(std::size_t(k) + 1, 0.0);
        return times[std::size_t(k)];
    };
    for (const Box& b : task.reads)
        if (b.ref.cmx) slot(cmx_read, b.ref.index) = std::max(slot(cmx_read, b.ref.index), end);
    for (const Box& b : task.writes) slot(b.ref.cmx ? cmx_written : ddr_written, b.ref.index) = end;
    note_use(task, idx, start, end);
    m.tasks.push_back(std::move(task));
    return idx;
}

void Scheduler::note_use(const Task& task, std::int64_t idx, double start, double end) {
    for (const auto* list : {&task.reads, &task.writes})
        for (const Box& b : *list)
            if (b.ref.cmx) {
                CmxBuffer& c = m.cmx[std::size_t(b.ref.index)];
                if (c.first < 0) c.first = idx, c.start_est = start;
                c.last = std::max(c.last, idx);
                c.end_est = std::max(c.end_est, end);
            }
}

double Scheduler::load_rate() const {
    return std::min(double(t.dma_bytes_per_cycle), double(t.ddr_bytes_per_cycle) / double(std::max<std::int64_t>(1, t.dma_engines)));
}

void Scheduler::drop_dead_stores() {
    std::vector<bool> read(m.tensors.size(), false);
    for (int o : m.output_tensors) read[std::size_t(o)] = true;
    for (const Task& task : m.tasks)
        for (const Box& b : task.reads)
            if (!b.ref.cmx) read[std::size_t(b.ref.index)] = true;
    auto dead = [&](const Task& task) {
        return task.kind == TaskKind::DMA && task.writes.size() == 1 && !task.writes[0].ref.cmx && !read[std::size_t(task.writes[0].ref.index)];
    };
    // (every task came through `add`, so `estimated` follows m.tasks; a module scheduled on top of
    // tasks made otherwise keeps its stores)
    if (estimated.size() != m.tasks.size() || std::none_of(m.tasks.begin(), m.tasks.end(), dead)) return;
    std::vector<Task> tasks;
    std::vector<std::array<double, 2>> times;
    for (std::size_t i = 0; i < m.tasks.size(); ++i)
        if (!dead(m.tasks[i])) {
            tasks.push_back(std::move(m.tasks[i]));
            times.push_back(estimated[i]);
        }
    m.tasks = std::move(tasks);
    estimated = std::move(times);
    for (CmxBuffer& c : m.cmx) c.first = c.last = -1, c.start_est = c.end_est = 0.0;
    for (std::size_t i = 0; i < m.tasks.size(); ++i) note_use(m.tasks[i], std::int64_t(i), estimated[i][0], estimated[i][1]);
}

void Scheduler::prefetch_after_next(std::size_t next) {
    const double rate = load_rate();
    auto work = [&](std::int64_t li) {  // the NCE work of layer li's busiest cluster
        std::vector<double> w(std::size_t(t.clusters), 0.0);
        for (std::size_t ti : tiles_of[li]) w[std::size_t(m.tiles[ti].cluster)] += nce_tile_cycles(m.tiles[ti]);
        return *std::max_element(w.begin(), w.end());
    };
    // (a chunk of at most 1/8 of CMX: no later one takes longer than `longest` to load)
    const double longest = double(t.dma_latency_cycles) + double(t.cmx_bytes / 8) / rate;
    double between = work(nce_order[next]);
    for (std::size_t d = next + 1; d < nce_order.size() && between < longest; ++d) {
        const std::int64_t li = nce_order[d];
        const auto& ts = tiles_of[li];
        if (stream_of[std::size_t(li)] >= 0 || (wavefront && region_layer(li)) || ts.empty()) break;
        const Layer& l = m.layers[std::size_t(li)];
        if (l.weights >= 0) {
            const Tile& tl = m.tiles[ts.front()];
            const std::int64_t bytes =
                tl.chans * element_size(m.tensors[std::size_t(l.weights)].dtype) * l.weights_shape[1] * l.weights_shape[2] * l.weights_shape[3];
            if (bytes > t.cmx_bytes / 8) break;
            // (a chunk the work before it hides is left to the one-ahead prefetch)
            if (double(t.dma_latency_cycles) + double(bytes) / rate > between) load_weights(li, std::size_t(t.clusters));
        }
        between += work(li);
    }
}

void Scheduler::flush(std::size_t keep) {
    std::size_t n = pending.size() > keep ? pending.size() - keep : 0;
    std::int64_t bytes = 0;
    for (std::size_t i = n; i < pending.size(); ++i) bytes += m.cmx[std::size_t(pending[i].from.ref.index)].size;
    for (; n < pending.size() && bytes > t.cmx_bytes / 4; ++n) bytes -= m.cmx[std::size_t(pending[n].from.ref.index)].size;
    for (std::size_t i = 0; i < n; ++i) dma(std::move(pending[i].from), std::move(pending[i].to), pending[i].source);
    pending.erase(pending.begin(), pending.begin() + std::ptrdiff_t(n));
}

std::pair<std::int64_t, std::int64_t> Scheduler::span(const Box& b) const {
    std::int64_t lo = b.offset, hi = b.offset;
    for (std::size_t i = 0; i < b.shape.size(); ++i) (b.strides[i] < 0 ? lo : hi) += (b.shape[i] - 1) * b.strides[i];
    return {lo, hi + element_size(m.tensors[std::size_t(b.ref.index)].dtype)};
}

void Scheduler::flush_for(const Box& load) {
    const auto [lo, hi] = span(load);
    std::vector<Store> keep;
    for (Store& st : pending) {
        const auto [slo, shi] = span(st.to);
        if (st.to.ref.index == load.ref.index && slo < hi && lo < shi) dma(std::move(st.from), std::move(st.to), st.source);
        else keep.push_back(std::move(st));
    }
    pending = std::move(keep);
}

std::int64_t Scheduler::dma(Box from, Box to, const std::string& source, bool least_work) {
    std::int64_t n = 1;
    for (auto d : from.shape) n *= d;
    const std::int64_t es = from.ref.cmx ? element_size(m.cmx[std::size_t(from.ref.index)].dtype)
                                         : element_size(m.tensors[std::size_t(from.ref.index)].dtype);
    Task task;
    task.kind = TaskKind::DMA;
    task.op = "copy";
    task.reads = {std::move(from)};
    task.writes = {std::move(to)};
    task.source = source;
    const double r = ready(task);
    double start = 0.0;
    for (std::int64_t q = 0; q < t.dma_engines; ++q) {
        const std::string name = "DMA" + std::to_string(q);
        const double s = least_work ? dma_work[std::size_t(q)] : std::max(free_at[name], r);
        // (`dma_ties_spread`: of queues that could start it at once, the one free the longest)
        if (q == 0 || s < start || (dma_ties_spread && !least_work && s == start && free_at[name] < free_at[task.queue])) {
            start = s;
            task.queue = name;
        }
    }
    cost = double(dma_cycles(t, n * es, !task.reads[0].ref.cmx || !task.writes[0].ref.cmx));
    dma_work[std::size_t(std::stoi(task.queue.substr(3)))] += cost;
    return add(std::move(task));
}

Box Scheduler::load_input(const View& v, std::int64_t cluster, const std::string& source, std::int64_t layer) {
    if (pieces.count(v.tensor)) return gather(v, cluster, source);
    const std::size_t stores = pending.size();
    flush_for(ddr_box(v));
    Loaded& last = last_load[cluster];
    // the same box, and no store to its bytes since it was loaded (`flush_for` issued none now;
    // the layer's own results go to another tensor)
    if (last.layer == layer && stores == pending.size() && last.view.tensor == v.tensor && last.view.offset == v.offset &&
        last.view.shape == v.shape && last.view.strides == v.strides)
        return last.box;
    const int b = cmx(cluster, v.elements() * es(v), dtype(v), Role::activation, m.tensors[std::size_t(v.tensor)].name);
    Box to = dense_box(b, v.shape, es(v));
    dma(ddr_box(v), to, source);
    last = {layer, v, to};
    return to;
}

void Scheduler::load_weights(std::int64_t li, std::size_t count) {
    const auto& tiles = tiles_of[li];
    for (std::size_t k = 0; k < std::min(count, tiles.size()); ++k) {
        const Tile& tl = m.tiles[tiles[k]];
        load_one(tl);
    }
}

std::vector<std::int64_t> Scheduler::load_group(std::int64_t li, std::int64_t cluster, bool table, std::int64_t& bytes) const {
    const Layer& l = m.layers[std::size_t(li)];
    const std::int64_t align = t.nce_channel_alignment;
    std::vector<std::int64_t> group = {li};
    if (!whole_tables || (!table && !one_chunk[std::size_t(li)])) return group;
    std::int64_t end = table ? l.table_offset + bytes : l.weights_offset + bytes;
    auto at = std::upper_bound(nce_order.begin(), nce_order.end(), li);
    for (; at != nce_order.end(); ++at) {
        const std::int64_t lj = *at;
        const Layer& n = m.layers[std::size_t(lj)];
        if (!table && n.weights < 0) continue;  // a pool or eltwise: no weights between
        const std::int64_t b = table ? n.table_bytes(align) : n.weights_bytes();
        const bool follows = table ? n.table == l.table && n.table_offset == end : n.weights == l.weights && n.weights_offset == end;
        const bool loaded = table ? tables.count(std::make_tuple(lj, cluster, std::int64_t(0))) > 0
                                  : weights.count(std::make_tuple(lj, cluster, std::int64_t(0))) > 0;
        if (!follows || loaded || !(clusters_of[std::size_t(lj)] >> cluster & 1u) || (!table && !one_chunk[std::size_t(lj)]) ||
            bytes + b > pack_bytes)
            break;
        group.push_back(lj);
        bytes += b;
        end += b;
    }
    return group;
}

std::int64_t Scheduler::table_row0(const Tile& tl) const {
    return whole_tables || m.layers[std::size_t(tl.layer)].table_rows > 0 ? 0 : tl.ch0;
}

void Scheduler::load_one(const Tile& tl) {
    const std::int64_t li = tl.layer;
    const Layer& l = m.layers[std::size_t(li)];
    const std::int64_t align = t.nce_channel_alignment;
    // the name of a CMX buffer of constants: the layer's, or the first and last layers' of a group
    auto name = [&](const std::vector<std::int64_t>& group, const char* what) {
        std::string s = m.layers[std::size_t(group.front())].source + what;
        if (group.size() > 1) s += ".." + m.layers[std::size_t(group.back())].source + what;
        return s;
    };
    const auto key = std::make_tuple(li, tl.cluster, tl.channel_tile);
    if (l.weights >= 0 && !weights.count(key)) {
        std::vector<std::int64_t> shape = {tl.chans, l.weights_shape[1], l.weights_shape[2], l.weights_shape[3]};
        const DataType wt = m.tensors[std::size_t(l.weights)].dtype;
        const std::int64_t es = element_size(wt), per = es * shape[1] * shape[2] * shape[3];
        std::int64_t bytes = tl.chans * per;
        const std::vector<std::int64_t> group = load_group(li, tl.cluster, false, bytes);
        const int wb = cmx(tl.cluster, bytes, wt, Role::weights, name(group, ".weights"));
        // (in a wavefront a layer's tiles spread over its region: its constants, long-lived, are
        // placed with the held results, off the ring, which they would fragment)
        m.cmx[std::size_t(wb)].held = wavefront && region_layer(li);
        Box from;
        from.ref = {false, l.weights};
        from.offset = l.weights_offset + tl.ch0 * per;
        if (group.size() > 1) shape = {bytes / es};  // the group's weights: one run of bytes
        from.shape = shape;
        from.strides = dense_strides(shape, es);
        dma(from, dense_box(wb, shape, es), l.source, true);
        for (std::int64_t lj : group)
            weights[std::make_tuple(lj, tl.cluster, lj == li ? tl.channel_tile : 0)] = {wb, m.layers[std::size_t(lj)].weights_offset - l.weights_offset};
    }
    // the layer's whole table, once per cluster (one DMA rather than one per chunk; with the
    // tables of a group), or (`whole_tables` off) the chunk's rows; a table of alike rows
    // (build_tables.cpp) whole, every task reading from its first row
    const std::int64_t t0 = table_row0(tl), tn = l.table_rows > 0 ? l.table_rows : whole_tables ? l.output.shape[3] : tl.chans;
    if (!tables.count(std::make_tuple(li, tl.cluster, t0))) {
        std::int64_t bytes = (tn + align - 1) / align * align * 16;
        const std::vector<std::int64_t> group = load_group(li, tl.cluster, true, bytes);
        const int tb = cmx(tl.cluster, bytes, DataType::int32, Role::table, name(group, ".table"));
        m.cmx[std::size_t(tb)].held = wavefront && region_layer(li);
        // the rows the tasks read: the last layer's channels, not its padding
        const Layer& last = m.layers[std::size_t(group.back())];
        const std::int64_t rows =
            group.size() > 1 ? (last.table_offset - l.table_offset) / 16 + (last.table_rows > 0 ? last.table_rows : last.output.shape[3]) : tn;
        Box from;
        from.ref = {false, l.table};
        from.offset = l.table_offset + t0 * 16;
        from.shape = {rows, 4};
        from.strides = {16, 4};
        dma(from, dense_box(tb, {rows, 4}, 4), l.source, true);
        for (std::int64_t lj : group)
            tables[std::make_tuple(lj, tl.cluster, lj == li ? t0 : 0)] = {tb, m.layers[std::size_t(lj)].table_offset - l.table_offset};
    }
}

namespace {

// The DPU's cuboid height and width (specs/vpu-target.md section 4).
constexpr std::int64_t cuboid = 4;

// Whether each output pixel of NCE layer `l` is computed from the same input pixel alone: an
// eltwise, or a conv, depthwise conv or pool with a 1x1 window of stride 1 and no padding. Its
// tiles may then run on any plane of their pixels (tile_cuboid_rows.hpp `cuboid_plane`).
bool pixelwise(const Layer& l) {
    return l.nce_op == NceOp::eltwise || ((l.nce_op == NceOp::conv || l.nce_op == NceOp::dwconv || is_pool(l.nce_op)) && one_by_one(l.nce));
}

// The boxes of a pixelwise NCE task (its `inputs` activation reads and its result) on the plane
// that pads least to the cuboids, where each of them covers the result's rows and columns with
// its pixels evenly spaced (rows of full width, channels innermost). The plane of the task's cost.
std::array<std::int64_t, 2> cuboid_replane(std::vector<Box>& reads, std::size_t inputs, Box& result) {
    using S = Scheduler;
    std::array<std::int64_t, 2> plane = {result.shape.size() == 4 ? result.shape[1] : 1, result.shape.size() == 4 ? result.shape[2] : 1};
    auto even = [&](const Box& b) { return S::even_pixels(b) && b.shape[1] == plane[0] && b.shape[2] == plane[1]; };
    if (!even(result)) return plane;
    for (std::size_t i = 0; i < inputs && i < reads.size(); ++i)
        if (!even(reads[i])) return plane;
    const std::array<std::int64_t, 2> to = cuboid_plane(plane[0], plane[1], cuboid);
    if (to == plane) return plane;
    for (std::size_t i = 0; i < inputs && i < reads.size(); ++i) S::on_plane(reads[i], to[0], to[1]);
    S::on_plane(result, to[0], to[1]);
    return to;
}

}  // namespace

double Scheduler::nce_tile_cycles(const Tile& tl) const {
    return nce_plane_cycles(tl, {tl.rows, m.layers[std::size_t(tl.layer)].output.shape[2]});
}

double Scheduler::nce_plane_cycles(const Tile& tl, const std::array<std::int64_t, 2>& plane) const {
    const Layer& l = m.layers[std::size_t(tl.layer)];
    const std::vector<std::int64_t> oshape = {1, plane[0], plane[1], tl.chans};
    const std::vector<std::int64_t> wshape =
        l.weights_shape.size() == 4 ? std::vector<std::int64_t>{tl.chans, l.weights_shape[1], l.weights_shape[2], l.weights_shape[3]}
                                    : std::vector<std::int64_t>{};
    return double(nce_cycles(t, to_string(l.nce_op), dtype(l.inputs[0]) == DataType::int8, oshape, wshape, l.nce.kernel));
}

std::array<std::int64_t, 2> Scheduler::nce_input_rows(const Tile& tl) const {
    const NceParams& n = m.layers[std::size_t(tl.layer)].nce;
    return {tl.row0 * n.stride[0] - n.pad[0], (tl.row0 + tl.rows - 1) * n.stride[0] - n.pad[0] + (n.kernel[0] - 1) * n.dilation[0] + 1};
}

void Scheduler::nce_tile(const Tile& tl) {
    const Layer& l = m.layers[std::size_t(tl.layer)];
    const View& x = l.inputs[0];
    const std::int64_t H = x.shape[1];
    const auto [lo, hi] = nce_input_rows(tl);
    const std::int64_t iy0 = std::max<std::int64_t>(0, lo), iy1 = std::min(H, hi);
    const bool dense = l.nce_op == NceOp::conv;
    load_one(tl);  // its constants, unless loaded already
    std::vector<Box> reads;
    for (const View& in : l.inputs) {
        View v = slice(in, 1, iy0, iy1 - iy0);
        if (!dense) v = slice(v, 3, tl.ch0, tl.chans);
        Box streamed_in;
        if (stream_read(v, streamed_in)) {
            reads.push_back(streamed_in);
            continue;
        }
        if (tl.layer > 0 && resident[std::size_t(tl.layer - 1)] && m.layers[std::size_t(tl.layer - 1)].output.tensor == in.tensor) {
            reads.push_back(dense_box(kept.at(std::make_tuple(tl.layer - 1, tl.cluster, iy0, iy1 - iy0)), v.shape, es(in)));
            continue;
        }
        reads.push_back(load_input(v, tl.cluster, l.source, tl.layer));
    }
    flush(2);
    if (l.weights >= 0) {
        const Placed& w = weights.at(std::make_tuple(tl.layer, tl.cluster, tl.channel_tile));
        reads.push_back(dense_box(w.buffer, {tl.chans, l.weights_shape[1], l.weights_shape[2], l.weights_shape[3]},
                                  element_size(m.tensors[std::size_t(l.weights)].dtype)));
        reads.back().offset = w.offset;
    }
    const std::int64_t t0 = table_row0(tl);
    const Placed& tp = tables.at(std::make_tuple(tl.layer, tl.cluster, t0));
    Box table;
    table.ref = {true, tp.buffer};
    table.offset = tp.offset + (m.layers[std::size_t(tl.layer)].table_rows > 0 ? 0 : tl.ch0 - t0) * 16;
    table.shape = {tl.chans, 4};
    table.strides = {16, 4};
    reads.push_back(table);
    const std::vector<std::int64_t> oshape = {1, tl.rows, l.output.shape[2], tl.chans};
    const std::int64_t oes = es(l.output);
    const bool internal = stream_part >= 0 && stream_internal.count(l.output.tensor);
    Box result;
    if (part_span[1] > 0) {
        // a chunk of a grouped conv's part (`conv_group`): at its channels in the part's buffer
        const auto key = std::make_pair(tl.layer, stream_part);
        auto it = part_buffer.find(key);
        if (it == part_buffer.end())
            it = part_buffer.emplace(key, cmx(tl.cluster, tl.rows * oshape[2] * part_span[1] * oes, dtype(l.output), Role::activation,
                                              m.tensors[std::size_t(l.output.tensor)].name))
                     .first;
        result = dense_box(it->second, oshape, oes);
        result.strides = dense_strides({1, tl.rows, oshape[2], part_span[1]}, oes);
        result.offset = (tl.ch0 - part_span[0]) * oes;
    } else if (resident[std::size_t(tl.layer)]) {
        // the rows' channel chunks share one buffer of all channels, each chunk at its offset
        const std::int64_t C = l.output.shape[3];
        const auto key = std::make_tuple(tl.layer, tl.cluster, tl.row0, tl.rows);
        auto it = kept.find(key);
        if (it == kept.end())
            it = kept.emplace(key, cmx(tl.cluster, tl.rows * oshape[2] * C * oes, dtype(l.output), Role::activation,
                                       m.tensors[std::size_t(l.output.tensor)].name))
                     .first;
        result = dense_box(it->second, oshape, oes);
        result.offset = tl.ch0 * oes;
        result.strides = dense_strides({1, tl.rows, oshape[2], C}, oes);
    } else if (direct[std::size_t(tl.layer)] >= 0) {
        direct_result(tl, result);  // into a held permuted tensor (schedule_direct.cpp)
    } else if (held[std::size_t(tl.layer)] && !internal) {
        const Piece& p = piece_for(tl);
        result = dense_box(p.buffer, oshape, oes);
        result.strides = dense_strides({1, p.shape[1], p.shape[2], p.shape[3]}, oes);
        result.offset = (tl.row0 - p.origin[1]) * result.strides[1] + (tl.ch0 - p.origin[3]) * oes;
    } else {
        const int ob = cmx(tl.cluster, tl.rows * oshape[2] * tl.chans * oes, dtype(l.output), Role::activation,
                           m.tensors[std::size_t(l.output.tensor)].name);
        result = dense_box(ob, oshape, oes);
    }
    const Box own = result;  // (its store's source, on the result's own plane)
    // (a pixelwise task on the plane of its pixels that pads least to the DPU's cuboids; its result
    // read in the run as its readers' plane: stream_read)
    const std::array<std::int64_t, 2> plane =
        pixelwise(l) ? cuboid_replane(reads, l.inputs.size(), result) : std::array<std::int64_t, 2>{tl.rows, oshape[2]};
    Task task;
    task.kind = TaskKind::NCE;
    task.queue = "NCE" + std::to_string(tl.cluster);
    cost = nce_plane_cycles(tl, plane);
    task.op = l.op_name();
    task.reads = reads;
    task.writes = {result};
    task.nce = l.nce;
    task.nce.pad[0] = iy0 - lo;
    task.nce.pad[1] = hi - iy1;
    if (l.nce_op == NceOp::eltwise) task.nce.pad = {0, 0, 0, 0};
    task.source = l.source;
    add(std::move(task));
    if (stream_part >= 0) {
        Box part = result;
        if (part_span[1] > 0) {  // (the whole part)
            part.shape[3] = part_span[1];
            part.offset -= (tl.ch0 - part_span[0]) * oes;
        }
        streamed[{l.output.tensor, stream_part}] = part;
    }
    if (internal || resident[std::size_t(tl.layer)] || held[std::size_t(tl.layer)]) return;
    View out = slice(slice(l.output, 1, tl.row0, tl.rows), 3, tl.ch0, tl.chans);
    pending.push_back({own, ddr_box(out), l.source});
}

void Scheduler::other_tile(const Tile& tl) {
    const Layer& l = m.layers[std::size_t(tl.layer)];
    if (direct_copy[std::size_t(tl.layer)]) return;  // its source's producer wrote its boxes
    if (permuted[std::size_t(tl.layer)]) return permuted_copy(tl);
    if (alias[std::size_t(tl.layer)]) {
        if (!aliased.insert(tl.layer).second) return;
        copy_entry(std::size_t(tl.layer));
        std::array<std::int64_t, 4> lo{}, hi{};
        box_of(held_view.at(l.output.tensor), l.output, lo, hi);
        for (Piece p : pieces.at(l.inputs[0].tensor)) {
            // (a family source's copies in other clusters' buffers hold its chunks there too)
            if (p.full && !family_of.count(l.inputs[0].tensor)) continue;
            for (std::size_t d = 0; d < 4; ++d) p.origin[d] += lo[d];
            p.row0 += lo[1];
            p.lo += lo[1];
            p.hi += lo[1];
            p.c0 += lo[3];
            pieces[l.output.tensor].push_back(p);
        }
        return;
    }
    // what the tile reads and writes, and its kernel's parameters (a window split: its own padding)
    const ShavePart part = shave_part(m, l, tl);
    std::vector<Box> reads;
    for (const View& v : part.inputs) {
        Box in;
        reads.push_back(stream_read(v, in) ? in : load_input(v, tl.cluster, l.source, tl.layer));
    }
    flush(2);
    const View& out = part.output;
    if (l.exec == Exec::copy) {
        dma(reads[0], ddr_box(out), l.source);
        return;
    }
    // a held result (schedule_held.cpp) is written into its piece, else into a buffer of its own
    // that is stored to DDR
    Box result;
    Tile bt;
    const bool internal = stream_part >= 0 && stream_internal.count(out.tensor);
    if (!internal && held[std::size_t(tl.layer)] && box_tile(tl, bt)) {
        const Piece& p = piece_for(bt);
        result = dense_box(p.buffer, out.shape, es(out));
        result.strides = dense_strides({1, p.shape[1], p.shape[2], p.shape[3]}, es(out));
        result.offset = (bt.row0 - p.origin[1]) * result.strides[1] + (bt.ch0 - p.origin[3]) * es(out);
    } else {
        result = dense_box(cmx(tl.cluster, out.elements() * es(out), dtype(out), Role::activation, m.tensors[std::size_t(out.tensor)].name),
                           out.shape, es(out));
    }
    Task task;
    task.kind = TaskKind::SHAVE;
    // a part of a run stays on one engine (its chain needs no barrier between engines)
    const std::int64_t i = stream_part >= 0 ? (stream_part / t.clusters) % t.shave_per_cluster
                                            : shave_next[std::size_t(tl.cluster)]++ % t.shave_per_cluster;
    task.queue = "SHAVE" + std::to_string(tl.cluster) + "." + std::to_string(i);
    task.op = l.op_name();
    task.shave.kernel = l.shave.name;
    cost = double(shave_cycles(t, l.shave.name, out.elements()));
    task.shave.attrs = part.kernel.params_json();
    task.reads = reads;
    task.writes = {result};
    task.source = l.source;
    add(std::move(task));
    if (stream_part >= 0) streamed[{out.tensor, stream_part}] = result;
    if (internal || held[std::size_t(tl.layer)]) return;
    pending.push_back({result, ddr_box(out), l.source});
}

bool Scheduler::run() {
    for (std::size_t i = 0; i < m.tiles.size(); ++i) tiles_of[m.tiles[i].layer].push_back(i);
    std::vector<int> readers(m.tensors.size(), 0);
    for (const Layer& l : m.layers) {
        std::set<int> seen;
        for (const View& in : l.inputs)
            if (seen.insert(in.tensor).second) ++readers[std::size_t(in.tensor)];
    }
    resident.assign(m.layers.size(), false);
    for (std::size_t li = 0; li < m.layers.size(); ++li) resident[li] = can_keep(li, readers);
    held.assign(m.layers.size(), false);
    margin.assign(m.layers.size(), {0, 0});
    inplace.assign(m.layers.size(), -1);
    shared.assign(m.layers.size(), 0);
    grouped.assign(m.layers.size(), false);
    std::vector<std::vector<std::int64_t>> live(m.layers.size(), std::vector<std::int64_t>(std::size_t(t.clusters), 0));
    permuted.assign(m.layers.size(), false);
    plan_streams(live);
    for (std::size_t li = 0; li < m.layers.size(); ++li) {
        held[li] = hold_budget > 0 && !stream_internal.count(m.layers[li].output.tensor) && can_hold(li, live);
        if (hold_budget > 0 && m.layers[li].exec == Exec::copy && !permuted[li]) plan_permuted(li, live);
    }
    held_live = live;
    alias.assign(m.layers.size(), false);
    plan_aliases();
    plan_direct();
    plan_concat_in_place(live);
    plan_regions();  // schedule_wavefront.cpp
    std::vector<std::int64_t>& nce_layers = nce_order;
    for (std::size_t li = 0; li < m.layers.size(); ++li)
        if (m.layers[li].exec == Exec::nce) nce_layers.push_back(std::int64_t(li));
    clusters_of.assign(m.layers.size(), 0);
    one_chunk.assign(m.layers.size(), true);
    for (const Tile& tl : m.tiles) {
        clusters_of[std::size_t(tl.layer)] |= std::uint64_t(1) << unsigned(tl.cluster);
        // channel chunks are NCE layers' (rank 4); other layers' outputs may have another rank
        const Layer& tiled = m.layers[std::size_t(tl.layer)];
        if (tiled.exec == Exec::nce && (tl.ch0 != 0 || tl.chans != tiled.output.shape[3])) one_chunk[std::size_t(tl.layer)] = false;
    }
    plan_prefetch();
    std::size_t next_nce = 0;
    beside_done.assign(m.layers.size(), 0);
    writer.assign(m.tensors.size(), -1);
    for (std::size_t li = 0; li < m.layers.size(); ++li) writer[std::size_t(m.layers[li].output.tensor)] = std::int64_t(li);
    for (std::size_t li = 0; li < m.layers.size(); ++li) {
        const Layer& l = m.layers[li];
        bool first = true;
        emit_early(li);  // schedule_direct.cpp
        if (wavefront && region_at[li] >= 0) {
            const std::size_t id = std::size_t(region_at[li]);
            if (!emit_region(id)) return false;
            li = regions[id].second;
            while (next_nce < nce_layers.size() && nce_layers[next_nce] <= std::int64_t(li)) ++next_nce;
            continue;
        }
        if (l.exec == Exec::nce) {
            while (next_nce < nce_layers.size() && nce_layers[next_nce] <= std::int64_t(li)) ++next_nce;
        }
        if (stream_of[li] >= 0) {
            streamed.clear();
            emit_stream(stream_of[li], first, [&] {
                if (next_nce < nce_layers.size()) load_weights(nce_layers[next_nce], std::size_t(t.clusters));  // prefetch
                for (std::size_t lj = li; lj <= streams[std::size_t(stream_of[li])].second; ++lj) load_early(lj);
            });
            streamed.clear();
            li = streams[std::size_t(stream_of[li])].second;
            continue;
        }
        // the next NCE layer's constants are prefetched after the layer's first tile, so that they
        // arrive while it computes; before the second NCE layer (nothing computes yet), a layer of
        // at most one tile per cluster waits for all its tiles' loads, so the prefetch follows them
        const auto& lt = tiles_of[std::int64_t(li)];
        std::size_t prefetch_after = next_nce <= 1 && lt.size() <= std::size_t(t.clusters) ? lt.size() - 1 : 0;
        if (prefetch_per_cluster) prefetch_after = std::max(prefetch_after, first_tile_per_cluster(li));
        for (std::size_t k = 0; k < lt.size(); ++k) {
            if (beside_done[li] > 0) --beside_done[li];  // (emitted beside the run before it: schedule_stream.cpp)
            else if (l.exec == Exec::nce) nce_tile(m.tiles[lt[k]]);
            else other_tile(m.tiles[lt[k]]);
            if (first && k >= prefetch_after && next_nce < nce_layers.size()) {
                load_weights(nce_layers[next_nce], std::size_t(t.clusters));  // prefetch
                if (prefetch_beyond) prefetch_after_next(next_nce);
                first = false;
            }
            if (k == 0) load_early(li);  // (weights of weights-bound layers loaded early, after the prefetch: schedule_prefetch.cpp)
        }
    }
    flush();
    drop_dead_stores();
    return true;
}

}  // namespace schedule_impl

int schedule_impl::Scheduler::spill_choice() const {
    std::int64_t at = -1;  // the first task of the first buffer without a place
    for (const CmxBuffer& b : m.cmx)
        if (b.offset < 0 && (at < 0 || b.first < at)) at = b.first;
    int big = -1;
    for (const auto& [i, tensor] : held_tensor) {
        const CmxBuffer& b = m.cmx[std::size_t(i)];
        if (b.first <= at && at <= b.last && !banned.count(tensor) && (big < 0 || b.size > m.cmx[std::size_t(big)].size)) big = i;
    }
    return big < 0 ? -1 : held_tensor.at(big);
}

namespace {

// The bytes the tasks store to DDR (results that did not stay in CMX, and the graph's outputs).
std::int64_t ddr_stores(const Module& m) {
    std::int64_t bytes = 0;
    for (const Task& task : m.tasks)
        if (task.kind == TaskKind::DMA && !task.writes[0].ref.cmx) {
            std::int64_t n = element_size(m.tensors[std::size_t(task.writes[0].ref.index)].dtype);
            for (std::int64_t d : task.writes[0].shape) n *= d;
            bytes += n;
        }
    return bytes;
}

// The budgets of a schedule that allocated, and what `early_loads` needs of it.
struct Attempt {
    std::int64_t hold_budget = 0, stream_budget = 0, pack_bytes = 0;
    bool whole_tables = true;
    std::set<int> banned;
    // its weights chunks to load early (schedule_prefetch.cpp) take at least 5% of its estimated
    // end on DDR (below that the early schedules gained at most 0.2% in simulation: DenseNet-121,
    // ResNet-18; not worth three more schedules and four simulations of compile time)
    bool early = false;
    // its runs software-pipelined (schedule_stream_pipeline.cpp); whether a run has two stages
    bool pipeline = false, pipelines = false;
    // its regions emitted as a wavefront (schedule_wavefront.cpp): 0 no, 1 yes, 2 yes with runs led by
    // their 1x1 convs (Scheduler::lead_convs), 3 so and a band's chunks emitted together
    // (Scheduler::band_chunks_together); the pipelined runs of its regions (first and last layers)
    int wavefront = 0;
    std::vector<std::pair<std::size_t, std::size_t>> region_runs;
};

// The buffers of the scheduled module `m` (allocated, simulated at `current` cycles) placed again
// with the scheduler's estimated times (allocate_cmx's `timed`), kept where the list simulates
// faster; returns the makespan of the placement kept. The placement that decided the schedule
// (budgets, held results, spills) stays the feasible one; this only moves buffers where they make
// fewer writers wait (docs/schedule.md step 38). Placed four times, with buffers last read by a
// transfer counted freed 0, 10, 20 and 30 K cycles later than estimated (`transfer_margin`: the
// estimates miss DDR shared by the DMA queues and the waits in them, by how much the list decides;
// docs/schedule.md step 47), the fastest of them kept.
double place_timed(Module& m, double current) {
    std::vector<std::int64_t> offsets, best;
    for (const CmxBuffer& b : m.cmx) offsets.push_back(b.offset);
    for (const double margin : {0.0, 10000.0, 20000.0, 30000.0}) {
        Diagnostics trial;
        if (!allocate_cmx(m, trial, true, margin)) continue;
        const double makespan = schedule_impl::simulated_makespan(m);
        if (makespan < current) {
            current = makespan;
            best.clear();
            for (const CmxBuffer& b : m.cmx) best.push_back(b.offset);
        }
    }
    const std::vector<std::int64_t>& kept = best.empty() ? offsets : best;
    for (std::size_t i = 0; i < m.cmx.size(); ++i) m.cmx[i].offset = kept[i];
    return current;
}

// The schedule of attempt `a` (in `m`, allocated) made again with the weights of weights-bound
// layers loaded early (schedule_prefetch.cpp), five times: the other layers' loads timed at DDR's
// rate and at one DMA queue's (`early_serial`), at one queue's with the layers whose loads the
// prefetch one layer ahead leaves exposed counted weights-bound too (`early_exposed`: ShuffleNet
// v2's last conv, docs/schedule.md step 19), and the chunks back to back on one DMA queue from
// a tenth of the estimated end (`early_spread`, docs/schedule.md step 20), of the layers whose
// chunks take more than twice their work to load and, once more, more than their work (ShuffleNet
// v2 int8's last 1x1 conv, 475 KB). Of a and those that allocate and store no more to DDR,
// the one the simulator runs in the fewest cycles is kept (schedule_choose.cpp: each finished as
// the pipeline would; a on a tie). The scheduler's own estimate (each task at its cost) cannot
// decide it: it misses DDR shared by the DMA queues and how the early loads' buffers move the
// others (their placement, the barriers of reused bytes). Estimated 2.9% earlier, ShuffleNet v2
// was 2.1% earlier simulated but MnasNet-1.0 1.5% and MobileNet-v3-large 2.1% later; GoogLeNet
// 1.5% earlier estimated, 2.6% later simulated (docs/schedule.md step 15). The plan kept is then
// made once more with `prefetch_per_cluster` and `dma_ties_spread` (scheduler.hpp) and kept where
// it simulates faster (ShuffleNet v2 int8: `conv56`'s input gathered for both clusters before the
// next layer's tables, the classifier's exchanges and gathers on both queues; step 22). Not the
// default: on every model, DMA ties spread cost up to 18% (lstm_small; GoogLeNet 8.3%), the
// prefetch per cluster up to 0.8% (ShuffleNet v2 fp16), while DenseNet-121 gained 1.2% by the latter.
void early_loads(Module& m, Diagnostics& diags, const Attempt& a) {
    double best = schedule_impl::simulated_makespan(m);
    if (a.hold_budget < 0) {
        place_timed(m, best);
        return;
    }
    const std::int64_t stores = ddr_stores(m);
    std::vector<Task> tasks = std::move(m.tasks);
    std::vector<CmxBuffer> cmx = std::move(m.cmx);
    Diagnostics kept;  // the notes of the schedule kept
    int kept_variant = -1;
    // variant -1: attempt a's plan (no early loads); `spread`: prefetch_per_cluster and dma_ties_spread
    bool kept_spread = false;
    auto attempt = [&](int variant, bool spread, bool beyond) {
        m.tasks.clear();
        m.cmx.clear();
        Diagnostics notes;
        schedule_impl::Scheduler e(m, notes);
        e.hold_budget = a.hold_budget;
        e.stream_budget = a.stream_budget;
        e.pack_bytes = a.pack_bytes;
        e.whole_tables = a.whole_tables;
        e.banned = a.banned;
        e.early_budget = variant >= 0 ? m.target.cmx_bytes : 0;
        e.early_serial = variant == 1 || variant == 2;
        e.early_exposed = variant == 2;
        e.early_spread = variant == 3 ? 2.0 : variant == 4 ? 1.0 : 0.0;
        e.prefetch_per_cluster = spread;
        e.dma_ties_spread = spread;
        e.prefetch_beyond = beyond;
        e.stream_pipeline = a.pipeline;
        e.wavefront = a.wavefront > 0;
        e.lead_convs = a.wavefront > 1;
        e.band_chunks_together = a.wavefront > 2;
        Diagnostics trial;
        if (!e.run() || !allocate_cmx(m, trial) || ddr_stores(m) > stores) return;
        double makespan = schedule_impl::simulated_makespan(m);
        if (beyond) makespan = place_timed(m, makespan);
        if (makespan < best) {
            best = makespan;
            tasks = std::move(m.tasks);
            cmx = std::move(m.cmx);
            kept = std::move(notes);
            kept_variant = variant;
            kept_spread = spread;
        }
    };
    if (a.early) {
        for (int variant : {0, 1, 2, 3, 4}) attempt(variant, false, false);
        // the plan kept, once more with each cluster's gathered input ahead of the next layer's
        // prefetch and DMA ties spread over the queues (docs/schedule.md step 22)
        attempt(kept_variant, true, false);
    }
    // the plan kept placed by time where that runs faster (`place_timed`), then once more with the
    // prefetch beyond the next NCE layer, placed so too (docs/schedule.md step 40)
    m.tasks = std::move(tasks);
    m.cmx = std::move(cmx);
    best = place_timed(m, best);
    tasks = std::move(m.tasks);
    cmx = std::move(m.cmx);
    attempt(kept_variant, kept_spread, true);
    m.tasks = std::move(tasks);
    m.cmx = std::move(cmx);
    diags.append(kept);
}

// One schedule and allocation as `schedule` describes, with constants loaded in groups (`pack`) or
// one layer's per transfer. True when the buffers have their offsets; `ok` then has the budgets
// of the attempt that allocated (the last resort's: a hold budget of -1).
bool schedule_once(Module& m, Diagnostics& diags, bool pack, bool pipeline, int wavefront, Attempt* ok) {
    const std::int64_t stream_sixteenths[] = {12, 8, 4};
    std::size_t level = 0;
    std::set<int> banned;
    int bans = 5;  // spill-and-retry rounds, at the first budget only (each a schedule and an allocation)
    // the last resort (budget -1): nothing held, a table per channel chunk (the fewest long-lived
    // buffers: a whole table lives as long as its layer)
    for (std::int64_t eighths : {7, 4, 2, 1, 0, -1})
        for (;;) {
            m.tasks.clear();
            m.cmx.clear();
            schedule_impl::Scheduler s(m, diags);
            s.hold_budget = m.target.cmx_bytes / 8 * std::max<std::int64_t>(eighths, 0);
            s.stream_budget = eighths == 7 ? m.target.cmx_bytes / 16 * stream_sixteenths[level] : 0;
            s.whole_tables = eighths >= 0;
            if (!pack) s.pack_bytes = 0;
            s.banned = banned;
            s.stream_pipeline = pipeline;
            s.wavefront = wavefront > 0;
            s.lead_convs = wavefront > 1;
            s.band_chunks_together = wavefront > 2;
            if (!s.run()) return false;
            // the last resort reports the allocator's error; the others try again
            if (eighths < 0) {
                ok->hold_budget = -1;
                ok->pipelines = s.pipelines();
                ok->region_runs = s.region_runs();
                return allocate_cmx(m, diags);
            }
            Diagnostics trial;
            if (allocate_cmx(m, trial)) {
                *ok = {s.hold_budget, s.stream_budget, s.pack_bytes, s.whole_tables, s.banned,
                       s.early_share >= 0.05, pipeline, s.pipelines(), wavefront, s.region_runs()};
                return true;
            }
            if (eighths == 0) break;
            const int spill = s.spill_choice();
            if (spill >= 0 && bans > 0 && eighths == 7) {
                --bans;
                banned.insert(spill);
                continue;
            }
            if (eighths == 7 && !s.streams.empty() && level + 1 < std::size(stream_sixteenths)) {
                ++level;  // a smaller stream budget, every result held again
                banned.clear();
                bans = 5;
                continue;
            }
            break;  // a smaller budget
        }
    return true;
}

// Held results take up to seven eighths of each cluster's CMX, and the parts of streamed runs of
// SHAVE kernels (schedule_stream.cpp) up to three quarters of it, then a half, then a quarter (the
// held results' budget counts them). When the allocator then finds no room for a buffer, the
// largest held result live beside it is not held and the schedule is made again (up to five times
// per stream budget); then the held budget shrinks (a half, a quarter, an eighth, none) with no
// streamed runs. The buffers then have their CMX offsets. The schedule is made with the constants of consecutive
// layers loaded in groups (Scheduler::load_group); a group's buffer lives across its layers and
// may leave no room for a held result beside it, which is then stored to DDR and loaded again.
// When it does (more bytes stored to DDR), the schedule with one layer's constants per transfer
// is kept instead. The schedule kept is then made once more with the weights of weights-bound
// layers loaded early (schedule_prefetch.cpp), and that one is kept where `early_loads` finds it
// better. All of it with the runs software-pipelined or not (`pipeline`); `pipelines`: a run
// planned has two stages.
bool schedule_with(Module& m, Diagnostics& diags, bool pipeline, int wavefront, Attempt& kept) {
    Diagnostics trial;
    Attempt a, b;
    if (!schedule_once(m, trial, true, pipeline, wavefront, &a)) {
        if (!schedule_once(m, diags, false, pipeline, wavefront, &b)) return false;
        kept = b;
        early_loads(m, diags, b);
        return true;
    }
    const std::int64_t grouped = ddr_stores(m);
    std::vector<Task> tasks = std::move(m.tasks);
    std::vector<CmxBuffer> cmx = std::move(m.cmx);
    Diagnostics trial2;
    if (schedule_once(m, trial2, false, pipeline, wavefront, &b) && ddr_stores(m) < grouped) {
        diags.append(trial2);
        kept = b;
        early_loads(m, diags, b);
        return true;
    }
    m.tasks = std::move(tasks);
    m.cmx = std::move(cmx);
    diags.append(trial);
    kept = a;
    early_loads(m, diags, a);
    return true;
}

// The schedule of `schedule_with` (pipeline, wavefront) replaces the one in `m` (with its notes
// `diags`, simulated at `best` cycles) where it simulates faster without errors; `best` is then
// its makespan.
bool keep_faster(Module& m, Diagnostics& diags, double& best, bool pipeline, int wavefront) {
    std::vector<Task> tasks = std::move(m.tasks);
    std::vector<CmxBuffer> cmx = std::move(m.cmx);
    Diagnostics other;
    Attempt again;
    m.tasks.clear();
    m.cmx.clear();
    if (schedule_with(m, other, pipeline, wavefront, again) && !other.has_errors()) {
        const double makespan = schedule_impl::simulated_makespan(m);
        if (makespan < best) {
            best = makespan;
            diags = std::move(other);
            return true;
        }
    }
    m.tasks = std::move(tasks);
    m.cmx = std::move(cmx);
    return false;
}

}  // namespace

// The schedule of `schedule_with`, and where a run has two stages (schedule_stream_pipeline.cpp)
// the same with the runs software-pipelined, kept where it simulates faster (docs/schedule.md step
// 25: it may store more to DDR, two waves' parts taking CMX where one did; the simulation counts
// that traffic). Where the first schedule has wavefront regions (schedule_wavefront.cpp), the
// schedule is made once more with them emitted as a wavefront, their pipelined runs in parts of one
// row, and kept where it simulates faster (docs/schedule.md step 35: with the runs' parts of two
// rows, their CMX left the other layers' tiles no room at any budget with runs, in ConvNeXt).
bool schedule(Module& m, Diagnostics& diags) {
    Diagnostics plain;
    Attempt first;
    if (!schedule_with(m, plain, false, false, first)) {
        diags.append(plain);
        return false;
    }
    if (!first.pipelines && first.region_runs.empty()) {
        diags.append(plain);
        return true;
    }
    double best = schedule_impl::simulated_makespan(m);
    if (first.pipelines) keep_faster(m, plain, best, true, false);
    if (!first.region_runs.empty()) {
        const std::vector<Tile> tiles = m.tiles;
        schedule_impl::split_run_rows(m, first.region_runs);
        std::vector<Tile> kept = keep_faster(m, plain, best, true, 1) ? m.tiles : tiles;
        // once more with each run's 1x1 conv before it in its rows, leading it (step 42), and where
        // a run's conv goes band by band in chunks of channels (step 46), once more with a band's
        // chunks emitted together (step 47)
        m.tiles = tiles;
        const bool bands = std::any_of(first.region_runs.begin(), first.region_runs.end(),
                                       [&](const auto& run) { return run.first > 0 && schedule_impl::conv_bands(m, run.first - 1); });
        if (schedule_impl::split_run_rows(m, first.region_runs, true) > 0) {
            const std::vector<Tile> led = m.tiles;
            if (keep_faster(m, plain, best, true, 2)) kept = m.tiles;
            m.tiles = led;
            if (bands && keep_faster(m, plain, best, true, 3)) kept = m.tiles;
        }
        m.tiles = std::move(kept);
    }
    diags.append(plain);
    return true;
}

}  // namespace nnef::vpu::ir
