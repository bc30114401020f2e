// schedule and allocate-cmx (lowering/vpu/ir.hpp).
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
//
// allocate-cmx: static offsets. Buffers in order of first use, each placed first-fit from a ring
// pointer among the buffers still alive (lifetimes in program order), so that freed space is
// reused as late as possible and a new tile's load does not wait for the previous tile's buffer;
// held results at the highest place that fits (they live long: away from the ring's churn).
#include <algorithm>
#include <array>
#include <map>
#include <set>
#include <tuple>

#include "lowering/vpu/ir.hpp"
#include "lowering/vpu/simulator.hpp"

namespace nnef::vpu::ir {

namespace vpu_schedule_cpp {

struct Scheduler {
    Module& m;
    Diagnostics& diags;
    const Target& t;
    // Estimated times (the cost model, each task alone), for the choice of a DMA queue: when each
    // queue is free, when each CMX buffer's and DDR tensor's last write ends and (CMX) when its
    // last read ends. A DMA goes to the queue where it would start first (its queue free and its
    // source written, its destination read and written before), not to the one with the least
    // work: a queue whose next transfer waits for a result should not take a load that is ready.
    // Weights and tables (ready at once, issued ahead) go to the queue with the least work
    // (`dma_work`): by estimated start they crowd one queue and the loads behind them wait.
    std::map<std::string, double> free_at;
    std::map<int, double> cmx_written, cmx_read, ddr_written;
    double cost = 0.0;  // of the task being added
    std::vector<double> dma_work;  // per DMA queue: the cycles of its transfers alone
    std::vector<std::int64_t> shave_next;
    std::map<std::tuple<std::int64_t, std::int64_t, std::int64_t>, std::pair<int, int>> weights;  // (layer, cluster, chunk) -> (weights, table) buffers
    std::map<std::int64_t, std::vector<std::size_t>> tiles_of;
    std::map<std::tuple<std::int64_t, std::int64_t, std::int64_t>, int> tables;  // (layer, cluster, first channel) -> table buffer
    std::map<int, std::int64_t> table_ch0;  // table buffer -> the channel of its first row
    bool whole_tables = true;
    // Results waiting to go to DDR: a tile's store is issued after the next tile's loads, so that
    // an in-order DMA queue loads tile k+1 while tile k computes instead of waiting for its result.
    struct Store {
        Box from, to;
        std::string source;
    };
    std::vector<Store> pending;
    // CMX-resident results: a layer whose only reader is the next layer, a 1x1 stride-1 conv or an
    // eltwise whose tiles take the same rows on the same clusters with all channels, keeps each
    // tile's result in CMX for the reading tile (no store, no load) while the layer's results take
    // at most a quarter of each cluster's CMX.
    std::vector<bool> resident;  // per layer: its results stay in CMX
    std::map<std::tuple<std::int64_t, std::int64_t, std::int64_t, std::int64_t>, int> kept;  // (layer, cluster, row0, rows) -> buffer
    // Held results: a layer whose readers all read its whole (dense) result keeps it in CMX until
    // its last reader (3x3 readers, residual branches). A piece per (cluster, rows) when all the
    // channel chunks of those rows run on one cluster (each chunk writes its channels), else per
    // tile; a piece has room for the halo rows its readers need around its own rows. A reading
    // tile whose input lies in a piece of its cluster with the same channels reads it there, the
    // missing halo rows first copied in from the neighbouring pieces by CMX-to-CMX DMA (also from
    // the other cluster); any other input is gathered from the pieces into a new buffer by DMA.
    // No DDR traffic either way. The held results live at once take at most `hold_budget` bytes of
    // each cluster's CMX.
    struct Piece {
        std::int64_t cluster;
        std::array<std::int64_t, 4> origin, shape;  // NHWC box of the tensor that the buffer holds
        std::int64_t row0, rows;                    // the rows its producer writes
        std::int64_t lo, hi;                        // the rows it holds so far (its own and halo rows copied in)
        int buffer;
        std::int64_t c0, cn;                        // the channels its producer writes
        bool full = false;                          // a shared buffer completed by the exchange (not a source)
    };
    std::vector<bool> held;                                  // per layer
    std::vector<std::array<std::int64_t, 2>> margin;          // per held layer: halo rows above and below
    std::vector<bool> grouped;                               // per held layer: a piece per (cluster, rows)
    // per held layer split only over channels, in equal chunks dealt round the clusters: each
    // cluster's chunks share one buffer of all channels, which one DMA per other cluster (a strided
    // box of its chunks) completes when a reader needs all channels there
    std::vector<std::int64_t> shared;                        // the chunk size, or 0
    std::map<int, std::vector<Piece>> pieces;                // tensor -> its pieces
    std::map<int, View> held_view;                           // tensor -> its producer's whole view
    std::map<int, std::pair<std::size_t, std::size_t>> held_span;  // tensor -> (producer, last reader)
    std::vector<bool> alias;             // per copy layer: it aliases (see `plan_aliases`)
    std::set<std::int64_t> aliased;      // alias layers whose pieces are in place
    std::vector<int> inplace;                                // per held eltwise: the input it overwrites, or -1
    std::map<std::tuple<int, std::int64_t, std::array<std::int64_t, 4>, std::array<std::int64_t, 4>>, int> gathered;
    std::int64_t hold_budget = 0;
    std::set<int> banned;          // tensors not to hold (the allocator found no room beside them)
    std::map<int, int> held_tensor;  // held CMX buffer -> its tensor

    void hold(int buffer, int tensor) {
        m.cmx[std::size_t(buffer)].held = true;
        held_tensor[buffer] = tensor;
    }

    Scheduler(Module& m_, Diagnostics& d) : m(m_), diags(d), t(m_.target) {
        dma_work.assign(std::size_t(t.dma_engines), 0.0);
        shave_next.assign(std::size_t(t.clusters), 0);
    }

    int cmx(std::int64_t cluster, std::int64_t bytes, DataType dt, Role role, const std::string& tensor) {
        CmxBuffer b;
        b.cluster = cluster;
        b.size = bytes;
        b.dtype = dt;
        b.role = role;
        b.tensor = tensor;
        m.cmx.push_back(b);
        return int(m.cmx.size()) - 1;
    }

    static Box dense_box(int buffer, std::vector<std::int64_t> shape, std::int64_t es) {
        Box b;
        b.ref = {true, buffer};
        b.strides = dense_strides(shape, es);
        b.shape = std::move(shape);
        return b;
    }
    static Box ddr_box(const View& v) {
        Box b;
        b.ref = {false, v.tensor};
        b.offset = v.offset;
        b.shape = v.shape;
        b.strides = v.strides;
        return b;
    }
    static View slice(View v, std::size_t dim, std::int64_t from, std::int64_t n) {
        v.offset += from * v.strides[dim];
        v.shape[dim] = n;
        return v;
    }

    // When a task could start, as far as its buffers go (see `free_at`).
    double ready(const Task& task) const {
        auto at = [](const std::map<int, double>& times, int k) {
            auto it = times.find(k);
            return it == times.end() ? 0.0 : it->second;
        };
        double r = 0.0;
        for (const Box& b : task.reads) r = std::max(r, at(b.ref.cmx ? cmx_written : ddr_written, b.ref.index));
        for (const Box& b : task.writes)
            if (b.ref.cmx) r = std::max({r, at(cmx_written, b.ref.index), at(cmx_read, b.ref.index)});
        return r;
    }

    // Adds `task` taking `cost` cycles (estimated) to the program.
    std::int64_t add(Task task) {
        const std::int64_t idx = std::int64_t(m.tasks.size());
        const double end = std::max(free_at[task.queue], ready(task)) + cost;
        free_at[task.queue] = end;
        for (const Box& b : task.reads)
            if (b.ref.cmx) cmx_read[b.ref.index] = std::max(cmx_read[b.ref.index], end);
        for (const Box& b : task.writes) (b.ref.cmx ? cmx_written : ddr_written)[b.ref.index] = end;
        for (const auto* list : {&task.reads, &task.writes})
            for (const Box& b : *list)
                if (b.ref.cmx) {
                    CmxBuffer& c = m.cmx[std::size_t(b.ref.index)];
                    if (c.first < 0) c.first = idx;
                    c.last = std::max(c.last, idx);
                }
        m.tasks.push_back(std::move(task));
        return idx;
    }

    // The element type and size of a view's DDR tensor.
    DataType dtype(const View& v) const { return m.tensors[std::size_t(v.tensor)].dtype; }
    std::int64_t es(const View& v) const { return element_size(dtype(v)); }

    // Issues the pending stores but the last `keep`, and all but those whose results take at
    // most a quarter of a cluster's CMX together (the results wait in CMX meanwhile).
    void flush(std::size_t keep = 0) {
        std::size_t n = pending.size() > keep ? pending.size() - keep : 0;
        std::int64_t bytes = 0;
        for (std::size_t i = n; i < pending.size(); ++i) bytes += m.cmx[std::size_t(pending[i].from.ref.index)].size;
        for (; n < pending.size() && bytes > t.cmx_bytes / 4; ++n) bytes -= m.cmx[std::size_t(pending[n].from.ref.index)].size;
        for (std::size_t i = 0; i < n; ++i) dma(std::move(pending[i].from), std::move(pending[i].to), pending[i].source);
        pending.erase(pending.begin(), pending.begin() + std::ptrdiff_t(n));
    }

    // The byte span [lo, hi) of a box of a DDR tensor.
    std::pair<std::int64_t, std::int64_t> span(const Box& b) const {
        std::int64_t lo = b.offset, hi = b.offset;
        for (std::size_t i = 0; i < b.shape.size(); ++i) (b.strides[i] < 0 ? lo : hi) += (b.shape[i] - 1) * b.strides[i];
        return {lo, hi + element_size(m.tensors[std::size_t(b.ref.index)].dtype)};
    }

    // Issues the pending stores that write bytes `load` reads (a load must follow them).
    void flush_for(const Box& load) {
        const auto [lo, hi] = span(load);
        std::vector<Store> keep;
        for (Store& st : pending) {
            const auto [slo, shi] = span(st.to);
            if (st.to.ref.index == load.ref.index && slo < hi && lo < shi) dma(std::move(st.from), std::move(st.to), st.source);
            else keep.push_back(std::move(st));
        }
        pending = std::move(keep);
    }

    // A DMA on the queue where it would start first, or (`least_work`) the one with the least work
    // (the lowest numbered of equals).
    std::int64_t dma(Box from, Box to, const std::string& source, bool least_work = false) {
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
            if (q == 0 || s < start) {
                start = s;
                task.queue = name;
            }
        }
        cost = double(dma_cycles(t, n * es, !task.reads[0].ref.cmx || !task.writes[0].ref.cmx));
        dma_work[std::size_t(std::stoi(task.queue.substr(3)))] += cost;
        return add(std::move(task));
    }

    // Weights and table of the (cluster, chunk) of each of the first `count` tiles of NCE layer
    // `li` (each once; a chunk is loaded when its first tile comes, so only the chunks in use
    // take CMX).
    void load_weights(std::int64_t li, std::size_t count) {
        const auto& tiles = tiles_of[li];
        for (std::size_t k = 0; k < std::min(count, tiles.size()); ++k) {
            const Tile& tl = m.tiles[tiles[k]];
            if (!weights.count(std::make_tuple(li, tl.cluster, tl.channel_tile))) load_one(tl);
        }
    }

    void load_one(const Tile& tl) {
        const std::int64_t li = tl.layer;
        const Layer& l = m.layers[std::size_t(li)];
        const auto key = std::make_tuple(li, tl.cluster, tl.channel_tile);
        {
            int wb = -1;
            if (l.weights >= 0) {
                std::vector<std::int64_t> shape = {tl.chans, l.weights_shape[1], l.weights_shape[2], l.weights_shape[3]};
                const DataType wt = m.tensors[std::size_t(l.weights)].dtype;
                const std::int64_t per = element_size(wt) * shape[1] * shape[2] * shape[3];
                wb = cmx(tl.cluster, tl.chans * per, wt, Role::weights, m.tensors[std::size_t(l.weights)].name);
                Box from;
                from.ref = {false, l.weights};
                from.offset = tl.ch0 * per;
                from.shape = shape;
                from.strides = dense_strides(shape, element_size(wt));
                dma(from, dense_box(wb, shape, element_size(wt)), l.source, true);
            }
            // the layer's whole table, once per cluster (one DMA rather than one per chunk), or
            // (`whole_tables` off) the chunk's rows
            const std::int64_t t0 = whole_tables ? 0 : tl.ch0, tn = whole_tables ? l.output.shape[3] : tl.chans;
            auto tt = tables.find({li, tl.cluster, t0});
            if (tt == tables.end()) {
                const std::int64_t align = t.nce_channel_alignment;
                const int tb = cmx(tl.cluster, (tn + align - 1) / align * align * 16, DataType::int32, Role::table,
                                   m.tensors[std::size_t(l.table)].name);
                Box from;
                from.ref = {false, l.table};
                from.offset = t0 * 16;
                from.shape = {tn, 4};
                from.strides = {16, 4};
                dma(from, dense_box(tb, {tn, 4}, 4), l.source, true);
                tt = tables.emplace(std::make_tuple(li, tl.cluster, t0), tb).first;
                table_ch0[tb] = t0;
            }
            weights[key] = {wb, tt->second};
        }
    }

    void nce_tile(const Tile& tl) {
        const Layer& l = m.layers[std::size_t(tl.layer)];
        const View& x = l.inputs[0];
        const std::int64_t H = x.shape[1];
        const std::int64_t KH = l.nce.kernel[0], SH = l.nce.stride[0], DH = l.nce.dilation[0];
        const std::int64_t lo = tl.row0 * SH - l.nce.pad[0];
        const std::int64_t hi = (tl.row0 + tl.rows - 1) * SH - l.nce.pad[0] + (KH - 1) * DH + 1;
        const std::int64_t iy0 = std::max<std::int64_t>(0, lo), iy1 = std::min(H, hi);
        const bool dense = l.op == "conv";
        if (!weights.count(std::make_tuple(tl.layer, tl.cluster, tl.channel_tile))) load_one(tl);
        std::vector<Box> reads;
        for (const View& in : l.inputs) {
            View v = slice(in, 1, iy0, iy1 - iy0);
            if (!dense) v = slice(v, 3, tl.ch0, tl.chans);
            if (tl.layer > 0 && resident[std::size_t(tl.layer - 1)] && m.layers[std::size_t(tl.layer - 1)].output.tensor == in.tensor) {
                reads.push_back(dense_box(kept.at(std::make_tuple(tl.layer - 1, tl.cluster, iy0, iy1 - iy0)), v.shape, es(in)));
                continue;
            }
            if (pieces.count(in.tensor)) {
                reads.push_back(gather(v, tl.cluster, l.source));
                continue;
            }
            const int b = cmx(tl.cluster, v.elements() * es(in), dtype(in), Role::activation, m.tensors[std::size_t(in.tensor)].name);
            Box to = dense_box(b, v.shape, es(in));
            flush_for(ddr_box(v));
            dma(ddr_box(v), to, l.source);
            reads.push_back(to);
        }
        flush(2);
        const auto wt = weights.at(std::make_tuple(tl.layer, tl.cluster, tl.channel_tile));
        if (wt.first >= 0)
            reads.push_back(dense_box(wt.first, {tl.chans, l.weights_shape[1], l.weights_shape[2], l.weights_shape[3]},
                                      element_size(m.tensors[std::size_t(l.weights)].dtype)));
        Box table;
        table.ref = {true, wt.second};
        table.offset = (tl.ch0 - table_ch0.at(wt.second)) * 16;
        table.shape = {tl.chans, 4};
        table.strides = {16, 4};
        reads.push_back(table);
        const std::vector<std::int64_t> oshape = {1, tl.rows, l.output.shape[2], tl.chans};
        const std::int64_t oes = es(l.output);
        Box result;
        int ob = -1;
        if (resident[std::size_t(tl.layer)]) {
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
        } else if (held[std::size_t(tl.layer)]) {
            const Piece& p = piece_for(tl);
            result = dense_box(p.buffer, oshape, oes);
            result.strides = dense_strides({1, p.shape[1], p.shape[2], p.shape[3]}, oes);
            result.offset = (tl.row0 - p.origin[1]) * result.strides[1] + (tl.ch0 - p.origin[3]) * oes;
        } else {
            ob = cmx(tl.cluster, tl.rows * oshape[2] * tl.chans * oes, dtype(l.output), Role::activation,
                     m.tensors[std::size_t(l.output.tensor)].name);
            result = dense_box(ob, oshape, oes);
        }
        Task task;
        task.kind = TaskKind::NCE;
        task.queue = "NCE" + std::to_string(tl.cluster);
        const std::vector<std::int64_t> wshape =
            l.weights_shape.size() == 4 ? std::vector<std::int64_t>{tl.chans, l.weights_shape[1], l.weights_shape[2], l.weights_shape[3]}
                                        : std::vector<std::int64_t>{};
        cost = double(nce_cycles(t, l.op, dtype(x) == DataType::int8, oshape, wshape, l.nce.kernel));
        task.op = l.op;
        task.reads = reads;
        task.writes = {result};
        task.nce = l.nce;
        task.nce.pad[0] = iy0 - lo;
        task.nce.pad[1] = hi - iy1;
        if (l.op == "eltwise") task.nce.pad = {0, 0, 0, 0};
        task.source = l.source;
        add(std::move(task));
        if (resident[std::size_t(tl.layer)] || held[std::size_t(tl.layer)]) return;
        View out = slice(slice(l.output, 1, tl.row0, tl.rows), 3, tl.ch0, tl.chans);
        pending.push_back({dense_box(ob, oshape, oes), ddr_box(out), l.source});
    }

    void other_tile(const Tile& tl) {
        const Layer& l = m.layers[std::size_t(tl.layer)];
        if (alias[std::size_t(tl.layer)]) {
            if (!aliased.insert(tl.layer).second) return;
            std::array<std::int64_t, 4> lo{}, hi{};
            box_of(held_view.at(l.output.tensor), l.output, lo, hi);
            for (Piece p : pieces.at(l.inputs[0].tensor)) {
                if (p.full) continue;
                for (std::size_t d = 0; d < 4; ++d) p.origin[d] += lo[d];
                p.row0 += lo[1];
                p.lo += lo[1];
                p.hi += lo[1];
                p.c0 += lo[3];
                pieces[l.output.tensor].push_back(p);
            }
            return;
        }
        auto part = [&](const View& v) {
            if (tl.split_dim < 0 || v.shape[std::size_t(tl.split_dim)] == 1) return v;
            return slice(v, std::size_t(tl.split_dim), tl.row0, tl.rows);
        };
        std::vector<Box> reads;
        for (const View& in : l.inputs) {
            const View v = part(in);
            if (pieces.count(in.tensor)) {
                reads.push_back(gather(v, tl.cluster, l.source));
                continue;
            }
            const int b = cmx(tl.cluster, v.elements() * es(in), dtype(in), Role::activation, m.tensors[std::size_t(in.tensor)].name);
            Box to = dense_box(b, v.shape, es(in));
            flush_for(ddr_box(v));
            dma(ddr_box(v), to, l.source);
            reads.push_back(to);
        }
        flush(2);
        const View out = part(l.output);
        if (l.exec == Exec::copy) {
            dma(reads[0], ddr_box(out), l.source);
            return;
        }
        const int ob = cmx(tl.cluster, out.elements() * es(out), dtype(out), Role::activation, m.tensors[std::size_t(out.tensor)].name);
        Task task;
        task.kind = TaskKind::SHAVE;
        const std::int64_t i = shave_next[std::size_t(tl.cluster)]++ % t.shave_per_cluster;
        task.queue = "SHAVE" + std::to_string(tl.cluster) + "." + std::to_string(i);
        task.op = l.op;
        task.shave.kernel = l.op;
        cost = double(shave_cycles(t, l.op, out.elements()));
        task.shave.attrs = l.attrs;
        task.reads = reads;
        task.writes = {dense_box(ob, out.shape, es(out))};
        task.source = l.source;
        add(std::move(task));
        pending.push_back({dense_box(ob, out.shape, es(out)), ddr_box(out), l.source});
    }

    // The piece that tile `tl` of a held layer writes (made by the first tile of its rows).
    const Piece& piece_for(const Tile& tl) {
        const Layer& l = m.layers[std::size_t(tl.layer)];
        const bool g = grouped[std::size_t(tl.layer)];
        auto& list = pieces[l.output.tensor];
        if (list.empty() && inplace[std::size_t(tl.layer)] >= 0)
            for (Piece p : pieces.at(inplace[std::size_t(tl.layer)])) {
                if (p.full) continue;
                p.lo = p.row0;
                p.hi = p.row0 + p.rows;
                list.push_back(p);
            }
        for (const Piece& p : list)
            if (!p.full && p.cluster == tl.cluster && p.row0 == tl.row0 && p.rows == tl.rows && (g || p.c0 == tl.ch0)) return p;
        const std::int64_t H = l.output.shape[1], W = l.output.shape[2];
        if (shared[std::size_t(tl.layer)] > 0) {
            const std::int64_t C = l.output.shape[3];
            int b = -1;
            for (const Piece& p : list)
                if (p.cluster == tl.cluster) b = p.buffer;
            if (b < 0) {
                b = cmx(tl.cluster, H * W * C * es(l.output), dtype(l.output), Role::activation, m.tensors[std::size_t(l.output.tensor)].name);
                hold(b, l.output.tensor);
            }
            list.push_back({tl.cluster, {0, 0, 0, 0}, {1, H, W, C}, 0, H, 0, H, b, tl.ch0, tl.chans});
            return list.back();
        }
        const std::int64_t r0 = std::max<std::int64_t>(0, tl.row0 - margin[std::size_t(tl.layer)][0]);
        const std::int64_t r1 = std::min(H, tl.row0 + tl.rows + margin[std::size_t(tl.layer)][1]);
        const std::int64_t c0 = g ? 0 : tl.ch0, cn = g ? l.output.shape[3] : tl.chans;
        const int b = cmx(tl.cluster, (r1 - r0) * W * cn * es(l.output), dtype(l.output), Role::activation,
                          m.tensors[std::size_t(l.output.tensor)].name);
        hold(b, l.output.tensor);
        list.push_back({tl.cluster, {0, r0, 0, c0}, {1, r1 - r0, W, cn}, tl.row0, tl.rows, tl.row0, tl.row0 + tl.rows, b, c0, cn});
        return list.back();
    }

    // Copies the box [a, z) of the held tensor from the rows the pieces' producers wrote into
    // buffer `b`, whose box starts at `base` with strides `to_strides`.
    void copy_in(int tensor, const std::array<std::int64_t, 4>& a, const std::array<std::int64_t, 4>& z, int b,
                 const std::array<std::int64_t, 4>& base, const std::vector<std::int64_t>& to_strides, const std::string& source) {
        const std::int64_t e = element_size(m.tensors[std::size_t(tensor)].dtype);
        for (const Piece& p : pieces.at(tensor)) {
            if (p.full) continue;
            std::array<std::int64_t, 4> x{}, y{};
            bool meets = true;
            for (std::size_t d = 0; d < 4; ++d) {
                const std::int64_t plo = d == 1 ? p.row0 : d == 3 ? p.c0 : p.origin[d];
                const std::int64_t phi = d == 1 ? p.row0 + p.rows : d == 3 ? p.c0 + p.cn : p.origin[d] + p.shape[d];
                x[d] = std::max(a[d], plo);
                y[d] = std::min(z[d], phi);
                meets = meets && x[d] < y[d];
            }
            if (!meets) continue;
            const std::vector<std::int64_t> shape = {y[0] - x[0], y[1] - x[1], y[2] - x[2], y[3] - x[3]};
            Box from = dense_box(p.buffer, shape, e);
            from.strides = dense_strides({p.shape[0], p.shape[1], p.shape[2], p.shape[3]}, e);
            Box to = dense_box(b, shape, e);
            to.strides = to_strides;
            for (std::size_t d = 0; d < 4; ++d) {
                from.offset += (x[d] - p.origin[d]) * from.strides[d];
                to.offset += (x[d] - base[d]) * to.strides[d];
            }
            dma(std::move(from), std::move(to), source);
        }
    }

    // The box [lo, hi) of `full` (rank 4, dense) that view `v` is, if it is one (same strides).
    static bool box_of(const View& full, const View& v, std::array<std::int64_t, 4>& lo, std::array<std::int64_t, 4>& hi) {
        if (v.tensor != full.tensor || v.shape.size() != 4 || v.strides != full.strides) return false;
        std::int64_t rel = v.offset - full.offset;
        if (rel < 0) return false;
        for (std::size_t d = 0; d < 4; ++d) {
            lo[d] = rel / full.strides[d];
            rel %= full.strides[d];
            hi[d] = lo[d] + v.shape[d];
            if (hi[d] > full.shape[d]) return false;
        }
        return rel == 0;
    }

    // Completes `cluster`'s shared buffer of a held tensor (see `shared`): one DMA from each other
    // cluster's buffer of the chunks it computed (a strided box), then a piece of all channels.
    void exchange(int tensor, std::int64_t cluster, std::int64_t cc, const std::string& source) {
        auto& list = pieces.at(tensor);
        std::vector<int> buffer(std::size_t(t.clusters), -1);
        for (const Piece& p : list) {
            if (p.full && p.cluster == cluster) return;
            buffer[std::size_t(p.cluster)] = p.buffer;
        }
        const Piece any = list.front();
        const std::int64_t H = any.shape[1], W = any.shape[2], C = any.shape[3], K = t.clusters;
        const std::int64_t e = element_size(m.tensors[std::size_t(tensor)].dtype);
        if (buffer[std::size_t(cluster)] < 0) return;
        for (std::int64_t j = 0; j < K; ++j) {
            if (j == cluster || buffer[std::size_t(j)] < 0) continue;
            const std::int64_t n = (C / cc - j + K - 1) / K;  // chunks j, j + K, ...
            Box from;
            from.ref = {true, buffer[std::size_t(j)]};
            from.offset = j * cc * e;
            from.shape = {H, W, n, cc};
            from.strides = {W * C * e, C * e, K * cc * e, e};
            Box to = from;
            to.ref = {true, buffer[std::size_t(cluster)]};
            dma(std::move(from), std::move(to), source);
        }
        list.push_back({cluster, {0, 0, 0, 0}, {1, H, W, C}, 0, H, 0, H, buffer[std::size_t(cluster)], 0, C, true});
    }

    // The box `v` of a held tensor read on `cluster`: where a piece of that cluster holds it, read
    // there (its missing halo rows copied in first), else gathered from the pieces into a buffer
    // (one per cluster and box: the layer's other tiles reading the same box read it again).
    Box gather(const View& v, std::int64_t cluster, const std::string& source) {
        std::array<std::int64_t, 4> lo{}, hi{};
        box_of(held_view.at(v.tensor), v, lo, hi);
        const std::int64_t cc = shared[held_span.at(v.tensor).first];
        if (cc > 0 && (lo[3] / cc != (hi[3] - 1) / cc)) exchange(v.tensor, cluster, cc, source);
        const std::int64_t e = es(v);
        for (Piece& p : pieces.at(v.tensor)) {
            bool in = p.cluster == cluster && p.c0 <= lo[3] && hi[3] <= p.c0 + p.cn;
            for (std::size_t d = 0; d < 3; ++d) in = in && p.origin[d] <= lo[d] && hi[d] <= p.origin[d] + p.shape[d];
            if (!in) continue;
            // the halo rows it lacks (all its channels), from the neighbouring pieces
            const std::vector<std::int64_t> strides = dense_strides({p.shape[0], p.shape[1], p.shape[2], p.shape[3]}, e);
            std::array<std::int64_t, 4> end{};
            for (std::size_t d = 0; d < 4; ++d) end[d] = p.origin[d] + p.shape[d];
            const std::int64_t oc = p.origin[3];
            p.origin[3] = p.c0;  // the halo rows of its own channels
            end[3] = p.c0 + p.cn;
            if (lo[1] < p.lo) {
                std::array<std::int64_t, 4> a = p.origin, z = end;
                a[1] = lo[1];
                z[1] = p.lo;
                copy_in(v.tensor, a, z, p.buffer, p.origin, strides, source);
                p.lo = lo[1];
            }
            if (hi[1] > p.hi) {
                std::array<std::int64_t, 4> a = p.origin, z = end;
                a[1] = p.hi;
                z[1] = hi[1];
                copy_in(v.tensor, a, z, p.buffer, p.origin, strides, source);
                p.hi = hi[1];
            }
            p.origin[3] = oc;
            Box box = dense_box(p.buffer, v.shape, e);
            box.strides = strides;
            box.offset = 0;
            for (std::size_t d = 0; d < 4; ++d) box.offset += (lo[d] - p.origin[d]) * strides[d];
            return box;
        }
        const auto key = std::make_tuple(v.tensor, cluster, lo, hi);
        auto it = gathered.find(key);
        if (it == gathered.end()) {
            const int b = cmx(cluster, v.elements() * e, dtype(v), Role::activation, m.tensors[std::size_t(v.tensor)].name);
            hold(b, v.tensor);
            copy_in(v.tensor, lo, hi, b, lo, dense_strides(v.shape, e), source);
            it = gathered.emplace(key, b).first;
        }
        return dense_box(it->second, v.shape, e);
    }

    // The whole dense NHWC view of the tensor that `v` (rank 4, its strides) is a box of.
    bool full_view(const View& v, View& full) const {
        const std::int64_t e = es(v);
        if (v.shape.size() != 4 || v.strides.size() != 4 || v.strides[3] != e) return false;
        const std::int64_t bytes = m.tensors[std::size_t(v.tensor)].bytes;
        full.tensor = v.tensor;
        full.offset = 0;
        full.strides = v.strides;
        full.shape = {bytes / v.strides[0], v.strides[0] / v.strides[1], v.strides[1] / v.strides[2], v.strides[2] / e};
        return full.shape[0] * v.strides[0] == bytes && full.shape[1] * v.strides[1] == v.strides[0] &&
               full.shape[2] * v.strides[2] == v.strides[1] && full.shape[3] * e == v.strides[2] && full.shape[0] == 1;
    }

    // Copies that alias: a tensor Y written only by copies of whole held results into boxes of it
    // (a concat), read only as boxes, not a graph output, is not written at all: each copy's
    // pieces, moved to where the copy puts them, are Y's pieces.
    void plan_aliases() {
        std::map<int, std::vector<std::size_t>> writers;
        for (std::size_t li = 0; li < m.layers.size(); ++li) writers[m.layers[li].output.tensor].push_back(li);
        for (const auto& [y, ws] : writers) {
            View fy;
            bool ok = std::find(m.output_tensors.begin(), m.output_tensors.end(), y) == m.output_tensors.end() &&
                      full_view(m.layers[ws.front()].output, fy);
            for (std::size_t w : ws) {
                const Layer& l = m.layers[w];
                std::array<std::int64_t, 4> lo{}, hi{};
                ok = ok && l.exec == Exec::copy && l.inputs.size() == 1 && held_span.count(l.inputs[0].tensor) &&
                     l.inputs[0].shape == l.output.shape && l.inputs[0].offset == held_view.at(l.inputs[0].tensor).offset &&
                     l.inputs[0].shape == held_view.at(l.inputs[0].tensor).shape && box_of(fy, l.output, lo, hi);
            }
            std::size_t last = 0;
            for (std::size_t r = ws.front() + 1; ok && r < m.layers.size(); ++r)
                for (const View& in : m.layers[r].inputs) {
                    if (in.tensor != y) continue;
                    std::array<std::int64_t, 4> lo{}, hi{};
                    ok = ok && box_of(fy, in, lo, hi);
                    last = r;
                }
            // the pieces live until Y's last reader only if every source was held that long
            for (std::size_t w : ws) ok = ok && last > 0 && held_span.at(m.layers[w].inputs[0].tensor).second >= last;
            if (!ok) continue;
            for (std::size_t w : ws) alias[w] = true;
            held_view[y] = fy;
            held_span[y] = {ws.front(), last};
        }
    }

    // Whether NCE layer `li`'s result can be held (see `held`): read whole by every reader, not a
    // graph output, and within `hold_budget` with the held results live beside it.
    bool can_hold(std::size_t li, std::vector<std::vector<std::int64_t>>& live) {
        const Layer& p = m.layers[li];
        const int x = p.output.tensor;
        if (p.exec != Exec::nce || resident[li] || p.output.shape.size() != 4 || p.output.shape[0] != 1) return false;
        if (banned.count(x)) return false;
        if (std::find(m.output_tensors.begin(), m.output_tensors.end(), x) != m.output_tensors.end()) return false;
        const std::int64_t e = es(p.output);
        if (p.output.elements() * e != m.tensors[std::size_t(x)].bytes || !p.output.dense(e)) return false;
        std::size_t last = li;
        std::array<std::int64_t, 2> mg{0, 0};
        for (std::size_t r = li + 1; r < m.layers.size(); ++r)
            for (const View& in : m.layers[r].inputs) {
                if (in.tensor != x) continue;
                std::array<std::int64_t, 4> lo{}, hi{};
                if (!box_of(p.output, in, lo, hi)) return false;
                last = r;
                const Layer& c = m.layers[r];
                if (c.exec == Exec::nce && c.op != "eltwise") {
                    mg[0] = std::max(mg[0], c.nce.pad[0]);
                    mg[1] = std::max(mg[1], (c.nce.kernel[0] - 1) * c.nce.dilation[0] - c.nce.pad[0]);
                }
                // a copy of the whole result into a box of another tensor (a concat) may alias it
                // (see `alias`): that tensor's readers read these pieces too
                View fy;
                if (c.exec == Exec::copy && c.inputs.size() == 1 && in.shape == p.output.shape && full_view(c.output, fy))
                    for (std::size_t r2 = r + 1; r2 < m.layers.size(); ++r2)
                        for (const View& in2 : m.layers[r2].inputs) {
                            if (in2.tensor != fy.tensor) continue;
                            last = std::max(last, r2);
                            const Layer& c2 = m.layers[r2];
                            if (c2.exec == Exec::nce && c2.op != "eltwise") {
                                mg[0] = std::max(mg[0], c2.nce.pad[0]);
                                mg[1] = std::max(mg[1], (c2.nce.kernel[0] - 1) * c2.nce.dilation[0] - c2.nce.pad[0]);
                            }
                        }
            }
        if (last == li) return false;
        // grouped when every (rows) takes one cluster
        std::map<std::pair<std::int64_t, std::int64_t>, std::int64_t> cluster_of;
        bool g = true;
        for (std::size_t ti : tiles_of[std::int64_t(li)]) {
            const Tile& tl = m.tiles[ti];
            auto it = cluster_of.emplace(std::make_pair(tl.row0, tl.rows), tl.cluster).first;
            g = g && it->second == tl.cluster;
        }
        // shared: split only over channels, in equal chunks, chunk c on cluster c mod clusters
        const std::int64_t H = p.output.shape[1], C = p.output.shape[3];
        std::int64_t cc = g || t.clusters < 2 ? 0 : m.tiles[tiles_of[std::int64_t(li)].front()].chans;
        for (std::size_t ti : tiles_of[std::int64_t(li)]) {
            const Tile& tl = m.tiles[ti];
            if (cc > 0 && (tl.row0 != 0 || tl.rows != H || tl.chans != cc || tl.ch0 != tl.channel_tile * cc || tl.cluster != tl.channel_tile % t.clusters)) cc = 0;
        }
        if (cc > 0 && C % cc != 0) cc = 0;
        shared[li] = cc;
        std::vector<std::int64_t> bytes(std::size_t(t.clusters), 0);
        const std::int64_t a = t.cmx_alignment;
        std::set<std::pair<std::int64_t, std::int64_t>> seen;
        for (std::size_t ti : tiles_of[std::int64_t(li)]) {
            const Tile& tl = m.tiles[ti];
            if (g && !seen.insert({tl.row0, tl.rows}).second) continue;
            const std::int64_t rows = std::min(H, tl.row0 + tl.rows + mg[1]) - std::max<std::int64_t>(0, tl.row0 - mg[0]);
            bytes[std::size_t(tl.cluster)] += (rows * p.output.shape[2] * (g ? p.output.shape[3] : tl.chans) * e + a - 1) / a * a;
        }
        if (cc > 0) bytes.assign(bytes.size(), (H * p.output.shape[2] * C * e + a - 1) / a * a);
        margin[li] = mg;
        grouped[li] = g;
        // an eltwise whose pieces would be those of a held input it is the last reader of writes
        // its result over that input (each tile over the box it reads): no new bytes
        std::size_t from = li;
        for (const View& in : p.op == "eltwise" ? p.inputs : std::vector<View>{}) {
            auto it = held_span.find(in.tensor);
            if (it == held_span.end() || it->second.second != li || in.shape != p.output.shape || in.offset != held_view.at(in.tensor).offset) continue;
            const std::size_t px = it->second.first;
            if (m.layers[px].exec != Exec::nce) continue;
            if (grouped[px] != g || shared[px] != cc || margin[px] != mg || piece_keys(px) != piece_keys(li)) continue;
            inplace[li] = in.tensor;
            from = li + 1;
            break;
        }
        for (std::size_t k = from; k <= last; ++k)
            for (std::size_t c = 0; c < bytes.size(); ++c)
                if (live[k][c] + bytes[c] > hold_budget) {
                    inplace[li] = -1;
                    return false;
                }
        for (std::size_t k = from; k <= last; ++k)
            for (std::size_t c = 0; c < bytes.size(); ++c) live[k][c] += bytes[c];
        held_view[x] = p.output;
        held_span[x] = {li, last};
        return true;
    }

    // The pieces a held layer's tiles write: (cluster, rows, and channels unless grouped).
    std::set<std::array<std::int64_t, 5>> piece_keys(std::size_t li) {
        std::set<std::array<std::int64_t, 5>> keys;
        for (std::size_t ti : tiles_of[std::int64_t(li)]) {
            const Tile& tl = m.tiles[ti];
            keys.insert({tl.cluster, tl.row0, tl.rows, grouped[li] ? 0 : tl.ch0, grouped[li] ? 0 : tl.chans});
        }
        return keys;
    }

    // Whether layer `li`'s results can stay in CMX for layer li + 1 (see `resident`).
    bool can_keep(std::size_t li, const std::vector<int>& readers) {
        if (li + 1 >= m.layers.size()) return false;
        const Layer& p = m.layers[li];
        const Layer& c = m.layers[li + 1];
        const int x = p.output.tensor;
        if (p.exec != Exec::nce || c.exec != Exec::nce || readers[std::size_t(x)] != 1) return false;
        if (std::find(m.output_tensors.begin(), m.output_tensors.end(), x) != m.output_tensors.end()) return false;
        if (p.output.elements() * es(p.output) != m.tensors[std::size_t(x)].bytes || !p.output.dense(es(p.output))) return false;
        // a 1x1 stride-1 pool is pointwise too (the int8 path's requantizations: NCE 1x1 maxpools)
        const bool pool = c.op == "maxpool" || c.op == "avgpool";
        const bool pointwise = c.op == "eltwise" || ((c.op == "conv" || pool) && c.nce.kernel == std::array<std::int64_t, 2>{1, 1} &&
                                                     c.nce.stride == std::array<std::int64_t, 2>{1, 1} &&
                                                     c.nce.pad == std::array<std::int64_t, 4>{0, 0, 0, 0});
        if (!pointwise) return false;
        bool read = false;
        for (const View& in : c.inputs) {
            if (in.tensor != x) continue;
            if (in.offset != p.output.offset || in.shape != p.output.shape || in.strides != p.output.strides) return false;
            read = true;
        }
        if (!read) return false;
        const std::int64_t C = p.output.shape[3];
        std::map<std::tuple<std::int64_t, std::int64_t, std::int64_t>, std::int64_t> rows;  // (cluster, row0, rows) -> channels
        std::vector<std::int64_t> bytes(std::size_t(t.clusters), 0);
        for (std::size_t ti : tiles_of[std::int64_t(li)]) {
            const Tile& tl = m.tiles[ti];
            if ((rows[{tl.cluster, tl.row0, tl.rows}] += tl.chans) == tl.chans) bytes[std::size_t(tl.cluster)] += tl.rows * p.output.shape[2] * C * es(p.output);
        }
        for (const auto& [key, chans] : rows)
            if (chans != C) return false;
        for (std::int64_t b : bytes)
            if (b > t.cmx_bytes / 4) return false;
        for (std::size_t ti : tiles_of[std::int64_t(li + 1)]) {
            const Tile& tl = m.tiles[ti];
            if (!rows.count({tl.cluster, tl.row0, tl.rows})) return false;
            if ((c.op == "eltwise" || pool) && (tl.ch0 != 0 || tl.chans != c.output.shape[3])) return false;
        }
        return true;
    }

    bool run() {
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
        for (std::size_t li = 0; li < m.layers.size(); ++li) held[li] = hold_budget > 0 && can_hold(li, live);
        alias.assign(m.layers.size(), false);
        plan_aliases();
        std::vector<std::int64_t> nce_layers;
        for (std::size_t li = 0; li < m.layers.size(); ++li)
            if (m.layers[li].exec == Exec::nce) nce_layers.push_back(std::int64_t(li));
        std::size_t next_nce = 0;
        for (std::size_t li = 0; li < m.layers.size(); ++li) {
            const Layer& l = m.layers[li];
            bool first = true;
            if (l.exec == Exec::nce) {
                while (next_nce < nce_layers.size() && nce_layers[next_nce] <= std::int64_t(li)) ++next_nce;
            }
            for (std::size_t ti : tiles_of[std::int64_t(li)]) {
                if (l.exec == Exec::nce) nce_tile(m.tiles[ti]);
                else other_tile(m.tiles[ti]);
                if (first && next_nce < nce_layers.size()) load_weights(nce_layers[next_nce], std::size_t(t.clusters));  // prefetch
                first = false;
            }
        }
        flush();
        m.stage = 4;
        return true;
    }
};

}  // namespace vpu_schedule_cpp

// Held results take up to seven eighths of each cluster's CMX. When the allocator then finds no
// room for a buffer, the largest held result live beside it is not held and the schedule is made
// again (up to five times); then the budget shrinks (a half, a quarter, an eighth, none).
bool schedule(Module& m, Diagnostics& diags) {
    std::set<int> banned;
    int bans = 5;  // spill-and-retry rounds, at the first budget only (each a schedule and an allocation)
    // the last resort (budget -1): nothing held, a table per channel chunk (the fewest long-lived
    // buffers: a whole table lives as long as its layer)
    for (std::int64_t eighths : {7, 4, 2, 1, 0, -1})
        for (;;) {
            m.tasks.clear();
            m.cmx.clear();
            vpu_schedule_cpp::Scheduler s(m, diags);
            s.hold_budget = m.target.cmx_bytes / 8 * std::max<std::int64_t>(eighths, 0);
            s.whole_tables = eighths >= 0;
            s.banned = banned;
            if (!s.run()) return false;
            Diagnostics trial;
            if (eighths < 0 || allocate_cmx(m, trial)) {
                m.stage = 4;
                return true;
            }
            if (eighths == 0) break;
            // the first buffer without a place, and the largest held result live then
            std::int64_t at = -1;
            for (const CmxBuffer& b : m.cmx)
                if (b.offset < 0 && (at < 0 || b.first < at)) at = b.first;
            int big = -1;
            for (const auto& [i, tensor] : s.held_tensor) {
                const CmxBuffer& b = m.cmx[std::size_t(i)];
                if (b.first <= at && at <= b.last && !banned.count(tensor) && (big < 0 || b.size > m.cmx[std::size_t(big)].size)) big = i;
            }
            if (big < 0 || bans <= 0 || eighths != 7) break;  // a smaller budget
            --bans;
            banned.insert(s.held_tensor.at(big));
        }
    return true;
}

bool allocate_cmx(Module& m, Diagnostics& diags) {
    const Target& t = m.target;
    const std::int64_t a = t.cmx_alignment;
    std::vector<std::size_t> order(m.cmx.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) { return m.cmx[x].first < m.cmx[y].first; });
    struct Live {
        std::int64_t offset, end, last;
    };
    std::vector<std::vector<Live>> live(std::size_t(t.clusters));
    std::vector<std::int64_t> ring(std::size_t(t.clusters), 0);
    for (std::size_t i : order) {
        CmxBuffer& b = m.cmx[i];
        auto& L = live[std::size_t(b.cluster)];
        L.erase(std::remove_if(L.begin(), L.end(), [&](const Live& x) { return x.last < b.first; }), L.end());
        std::sort(L.begin(), L.end(), [](const Live& x, const Live& y) { return x.offset < y.offset; });
        const std::int64_t size = (b.size + a - 1) / a * a;
        auto fits = [&](std::int64_t at) {
            if (at + size > t.cmx_bytes) return false;
            for (const Live& x : L)
                if (x.offset < at + size && at < x.end) return false;
            return true;
        };
        std::int64_t at = -1;
        if (b.held) {
            // the highest place (held results gather at the top, away from the ring's churn)
            std::vector<std::int64_t> cands = {t.cmx_bytes / a * a - size};
            for (const Live& x : L) cands.push_back(x.offset - size);
            for (std::int64_t c : cands)
                if (c >= 0 && c > at && fits(c)) at = c;
        } else {
            // candidates: the ring pointer, then the end of each live buffer, then 0
            std::vector<std::int64_t> cands = {ring[std::size_t(b.cluster)]};
            for (const Live& x : L)
                if (x.end >= ring[std::size_t(b.cluster)]) cands.push_back(x.end);
            cands.push_back(0);
            for (const Live& x : L) cands.push_back(x.end);
            for (std::int64_t c : cands)
                if (fits(c)) {
                    at = c;
                    break;
                }
        }
        if (at < 0) {
            std::int64_t used = 0;
            for (const Live& x : L) used += x.end - x.offset;
            diags.error(Stage::vpu, "cmx-exhausted",
                        "no room in CMX of cluster " + std::to_string(b.cluster) + " for " + std::to_string(size) + " bytes of '" +
                            b.tensor + "' (" + std::to_string(used) + " of " + std::to_string(t.cmx_bytes) + " bytes in use by " +
                            std::to_string(L.size()) + " live buffers)");
            return false;
        }
        b.offset = at;
        if (!b.held) ring[std::size_t(b.cluster)] = at + size;
        L.push_back({at, at + size, b.last});
    }
    m.stage = 5;
    return true;
}

}  // namespace nnef::vpu::ir
