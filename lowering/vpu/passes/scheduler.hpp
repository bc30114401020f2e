// The schedule pass's Scheduler (schedule.cpp: the tasks of each tile in program order;
// schedule_held.cpp: which results stay in CMX and in which pieces). Private to those files.
#pragma once
#include <algorithm>
#include <array>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "lowering/vpu/ir.hpp"
#include "lowering/vpu/simulator.hpp"

namespace nnef::vpu::ir::schedule_impl {

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
    std::vector<double> cmx_written, cmx_read, ddr_written;  // by CMX buffer / DDR tensor index (0: never)
    double cost = 0.0;  // of the task being added
    std::vector<double> dma_work;  // per DMA queue: the cycles of its transfers alone
    std::vector<std::int64_t> shave_next;
    // A constant in CMX: its buffer and the byte offset of its first byte there (a buffer holds the
    // constants of several consecutive layers when one DMA loaded them: `pack_bytes`).
    struct Placed {
        int buffer = -1;
        std::int64_t offset = 0;
    };
    std::map<std::tuple<std::int64_t, std::int64_t, std::int64_t>, Placed> weights;  // (layer, cluster, chunk) -> its weights
    std::map<std::int64_t, std::vector<std::size_t>> tiles_of;
    // (layer, cluster, first channel) -> the table rows from that channel on (first channel 0: the
    // whole table, `whole_tables`)
    std::map<std::tuple<std::int64_t, std::int64_t, std::int64_t>, Placed> tables;
    bool whole_tables = true;
    // Load groups (docs/vpu-compiler.md, "Constants packed in DDR"): layout-and-types packs the
    // constants of consecutive NCE layers one after the other in DDR, so one DMA (one box) can load
    // the tables, or the whole weights, of several layers into one CMX buffer. When a layer's table
    // (weights) is first needed on a cluster, the tables (weights) of the NCE layers after it that
    // run on that cluster join the load while the group takes at most `pack_bytes`: one
    // transfer's latency worth of bytes (dma_latency_cycles x dma_bytes_per_cycle), so the group's
    // load takes at most twice a single one's time while each layer joining saves a transfer's
    // latency, and at most 1/32 of a cluster's CMX, since the group then stays there until its
    // last layer is done. No groups in the schedule's last resort (`whole_tables` off).
    std::int64_t pack_bytes = 0;
    std::vector<std::int64_t> nce_order;        // the NCE layers in program order
    std::vector<std::uint64_t> clusters_of;     // per layer: the clusters its tiles run on (bit k: cluster k; at most 64)
    std::vector<bool> one_chunk;                // per layer: every tile computes all output channels
    // Results waiting to go to DDR: a tile's store is issued after the next tile's loads, so that
    // an in-order DMA queue loads tile k+1 while tile k computes instead of waiting for its result.
    struct Store {
        Box from, to;
        std::string source;
    };
    std::vector<Store> pending;
    // Per cluster: the last box a tile loaded from DDR (its layer, the view, where it went). A
    // dense conv's channel chunks of the same rows (a fully connected layer's chunks of output
    // channels: VGG-11's FC input, 7.7 KB per chunk) read the same box one after the other.
    struct Loaded {
        std::int64_t layer = -1;
        View view;
        Box box;
    };
    std::map<std::int64_t, Loaded> last_load;
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
    // schedule_permuted.cpp: per copy layer, it writes a held permuted tensor (`plan_permuted`);
    // such a tensor's pieces' (cluster, row0, rows); the copy layers done
    std::vector<bool> permuted;
    std::map<int, std::set<std::array<std::int64_t, 3>>> permuted_rows;
    std::set<std::int64_t> copied;
    std::vector<int> inplace;                                // per held eltwise: the input it overwrites, or -1
    std::map<std::tuple<int, std::int64_t, std::array<std::int64_t, 4>, std::array<std::int64_t, 4>>, int> gathered;
    std::int64_t hold_budget = 0;
    std::set<int> banned;          // tensors not to hold (the allocator found no room beside them)
    std::map<int, int> held_tensor;  // held CMX buffer -> its tensor
    // After an allocation of this schedule found no room: the tensor of the largest held result
    // live at the first buffer without a place, not banned yet (the one to spill and schedule
    // again without), or -1.
    int spill_choice() const;

    void hold(int buffer, int tensor);

    Scheduler(Module& m_, Diagnostics& d) : m(m_), diags(d), t(m_.target) {
        dma_work.assign(std::size_t(t.dma_engines), 0.0);
        pack_bytes = std::min(std::int64_t(double(t.dma_latency_cycles) * t.dma_bytes_per_cycle), t.cmx_bytes / 32);
        shave_next.assign(std::size_t(t.clusters), 0);
    }

    int cmx(std::int64_t cluster, std::int64_t bytes, DataType dt, Role role, const std::string& tensor);

    static Box dense_box(int buffer, std::vector<std::int64_t> shape, std::int64_t es);
    static Box ddr_box(const View& v);
    // Whether box `b` (rank 4, one image) holds its pixels evenly spaced (rows of full width), and
    // `b` as the plane [1, h, w, C] of the same pixels in the same order (h w = its rows x columns).
    static bool even_pixels(const Box& b);
    static void on_plane(Box& b, std::int64_t h, std::int64_t w);
    static View slice(View v, std::size_t dim, std::int64_t from, std::int64_t n);

    // When a task could start, as far as its buffers go (see `free_at`).
    double ready(const Task& task) const;

    // Adds `task` taking `cost` cycles (estimated) to the program.
    std::int64_t add(Task task);
    // Task `idx` (estimated from `start` to `end`) touches its CMX buffers: their first and last
    // tasks and estimated times (`add`, `drop_dead_stores`).
    void note_use(const Task& task, std::int64_t idx, double start, double end);
    // A load's rate in bytes per cycle: a DMA queue's, at its share of DDR.
    double load_rate() const;
    std::vector<std::array<double, 2>> estimated;  // per task: its estimated start and end (`add`)
    // Drops the stores to DDR tensors that no task reads and the graph does not output (results
    // that every reader took from CMX: docs/schedule.md step 39), then sets each CMX buffer's first
    // and last tasks and estimated times again.
    void drop_dead_stores();
    // With `prefetch_beyond`, the prefetch after a layer's first tile also loads the first chunks
    // (one per cluster) of the NCE layers after the next one whose load takes longer than the NCE
    // work of the layers from the next one up to them, which the one-ahead prefetch would leave
    // exposed (DenseNet-121's 1x1 convs after its short batch norms and pools), up to a run, a
    // region or a chunk of more than 1/8 of CMX (docs/schedule.md step 40).
    bool prefetch_beyond = false;
    void prefetch_after_next(std::size_t next);

    // The element type and size of a view's DDR tensor.
    DataType dtype(const View& v) const { return m.tensors[std::size_t(v.tensor)].dtype; }
    std::int64_t es(const View& v) const { return element_size(dtype(v)); }

    // Issues the pending stores but the last `keep`, and all but those whose results take at
    // most a quarter of a cluster's CMX together (the results wait in CMX meanwhile).
    void flush(std::size_t keep = 0);

    // The byte span [lo, hi) of a box of a DDR tensor.
    std::pair<std::int64_t, std::int64_t> span(const Box& b) const;

    // Issues the pending stores that write bytes `load` reads (a load must follow them).
    void flush_for(const Box& load);

    // A DMA on the queue where it would start first, or (`least_work`) the one with the least work
    // (the lowest numbered of equals).
    std::int64_t dma(Box from, Box to, const std::string& source, bool least_work = false);

    // Weights and table of the (cluster, chunk) of each of the first `count` tiles of NCE layer
    // `li` (each once; a chunk is loaded when its first tile comes, so only the chunks in use
    // take CMX).
    // The box `v` of a tile's input in CMX of `cluster`: gathered from a held result's pieces, or
    // loaded from DDR into a new buffer.
    // A box loaded from DDR stays where it went for the next tiles of the same layer on that
    // cluster that read the same box (`last_load`), until the cluster loads another.
    Box load_input(const View& v, std::int64_t cluster, const std::string& source, std::int64_t layer);
    void load_weights(std::int64_t li, std::size_t count);
    // The NCE layers after `li` (in program order) whose table (`table`) or whole weights join the
    // load of li's on `cluster`: those that follow li's in the packed tensor, run on the cluster,
    // are not loaded there yet, within `pack_bytes` together (`bytes`: li's, then the group's).
    std::vector<std::int64_t> load_group(std::int64_t li, std::int64_t cluster, bool table, std::int64_t& bytes) const;

    void load_one(const Tile& tl);
    // The first table row that tile `tl`'s table load starts at: 0 for a whole table or a table of
    // alike rows (Layer::table_rows), else the tile's first channel.
    std::int64_t table_row0(const Tile& tl) const;

    void nce_tile(const Tile& tl);
    // The input rows [lo, hi) that NCE tile `tl`'s window reads, before clipping to the input
    // (lo < 0 and hi past the last row where the padding is read).
    std::array<std::int64_t, 2> nce_input_rows(const Tile& tl) const;
    // The cost model's cycles of NCE tile `tl` on its rows, and on output plane `plane` (rows,
    // columns). nce_tile emits a pixelwise tile on the plane of its pixels that pads least to the
    // DPU's cuboids (docs/schedule.md step 30); the estimates (the prefetch's plan, the waves'
    // order) keep the tile's rows: with the smaller figure, the weights of ShuffleNet v2's last
    // 1x1 conv loaded later, and it ran 0.59% (fp16) and 0.73% (int8 at PRO-INT) slower.
    double nce_tile_cycles(const Tile& tl) const;
    double nce_plane_cycles(const Tile& tl, const std::array<std::int64_t, 2>& plane) const;

    void other_tile(const Tile& tl);

    // The piece that tile `tl` of a held layer writes (made by the first tile of its rows).
    const Piece& piece_for(const Tile& tl);

    // Tile `tl` with the rows and channels it writes named as an NCE tile names them (row0, rows,
    // ch0, chans of the NHWC result): a SHAVE kernel's part (whole, or split over rows or
    // channels), whose result is then held in pieces like an NCE layer's. False for a part of
    // another split or another rank.
    bool box_tile(const Tile& tl, Tile& out) const;

    // Copies the box [a, z) of the held tensor from the rows the pieces' producers wrote into
    // buffer `b`, whose box starts at `base` with strides `to_strides`.
    void copy_in(int tensor, const std::array<std::int64_t, 4>& a, const std::array<std::int64_t, 4>& z, int b,
                 const std::array<std::int64_t, 4>& base, const std::vector<std::int64_t>& to_strides, const std::string& source);

    // The box [lo, hi) of `full` (rank 4, dense) that view `v` is, if it is one (same strides).
    static bool box_of(const View& full, const View& v, std::array<std::int64_t, 4>& lo, std::array<std::int64_t, 4>& hi);

    // Completes `cluster`'s shared buffer of a held tensor (see `shared`): one DMA from each other
    // cluster's buffer of the chunks it computed (a strided box), then a piece of all channels.
    void exchange(int tensor, std::int64_t cluster, std::int64_t cc, const std::string& source);

    // The box `v` of a held tensor read on `cluster`: where a piece of that cluster holds it, read
    // there (its missing halo rows copied in first), else gathered from the pieces into a buffer
    // (one per cluster and box: the layer's other tiles reading the same box read it again).
    Box gather(const View& v, std::int64_t cluster, const std::string& source);

    // The whole dense NHWC view of the tensor that `v` (rank 4, its strides) is a box of.
    bool full_view(const View& v, View& full) const;

    // Copies that alias: a tensor Y written only by copies of whole held results into boxes of it
    // (a concat), read only as boxes, not a graph output, is not written at all: each copy's
    // pieces, moved to where the copy puts them, are Y's pieces.
    void plan_aliases();

    // schedule_concat.cpp: concats written in place. The sources of a family of aliased concats
    // (tensors copied whole into boxes of the concats, each at one channel offset in all of them:
    // DenseNet's dense block, whose every layer concatenates all earlier results) are written by
    // their producers straight into one buffer per (cluster, rows) of the family's channels, each
    // at its offset; a reader of a concat's box finds it there (`read_in_place`), no gathering.
    struct Family {
        std::int64_t channels = 0;  // the family's channels (the largest concat's)
        std::string name;           // the largest concat's tensor
        int first = -1;             // the source produced first (held_tensor of the buffers)
        // the source produced first, when it is copied in rather than written in place (its
        // producer's working set leaves no room for the buffers yet: DenseNet's first block after
        // the stem's 112 x 112 result), or -1; the copy is made at the family's first concat
        int entry = -1;
        std::size_t entry_layer = 0;
        std::int64_t width = 0;
        bool chunks = false;  // the sources are split over channels across the clusters: a buffer of all rows per cluster
        std::set<std::array<std::int64_t, 3>> keys;          // the pieces' (cluster, row0, rows)
        std::map<std::array<std::int64_t, 3>, int> buffers;  // (cluster, row0, rows) -> its CMX buffer
    };
    std::vector<Family> families;
    std::map<int, std::pair<std::size_t, std::int64_t>> family_of;  // source tensor -> (family, channel offset)
    // Finds the families (after `plan_aliases`): every source held in pieces of all channels per
    // (cluster, rows), the same pieces for all, no halo rows, disjoint channels, and the family's
    // buffers within `hold_budget` beside the held results live (`live`, updated).
    void plan_concat_in_place(std::vector<std::vector<std::int64_t>>& live);
    // The piece of tile `tl` (a family source's producer) in its family's buffer, if it has one.
    bool family_piece(const Tile& tl, Piece& out);
    // The (cluster, row0, rows) of the pieces of held NCE layer `px` in a family's buffers: its
    // pieces', or all rows on each cluster when it is split over channels across them (`shared`).
    std::set<std::array<std::int64_t, 3>> family_keys(std::size_t px);
    // The buffer of family `f` for (cluster, row0, rows), made at its first use.
    int family_buffer(Family& f, const std::array<std::int64_t, 3>& key, DataType dt);
    // At copy layer `li` (an alias): a family's entry source copied into the family's buffers;
    // a source split over channels across the clusters (`shared`) has its chunks copied into the
    // other clusters' buffers at its first concat (one DMA per chunk and cluster, once).
    void copy_entry(std::size_t li);
    std::set<int> family_exchanged;
    // The box [lo, hi) of held tensor `v` on `cluster` where pieces of one buffer together hold
    // it (a concat's sources written in place): the box in that buffer.
    bool read_in_place(const View& v, const std::array<std::int64_t, 4>& lo, const std::array<std::int64_t, 4>& hi,
                       std::int64_t cluster, Box& out) const;

    // `v` (rank 4, one image) as a box of the whole dense NHWC view `full` of its tensor, but
    // with any channel stride (a multiple of the element size): the destination of a shuffle's copy.
    bool channel_box(const View& v, View& full) const;
    // Copy layer `li`, the first writer of a tensor Y: Y is held (its writers `permuted`) when
    // its writers are consecutive copies from boxes of held results (rows to the same rows, the
    // sources' pieces one per (cluster, rows), the same for all) into channel boxes of Y with a
    // channel stride above one element (a plain concat is `plan_aliases`'s), every
    // other reader reads a box of Y, it is not a graph output and it fits the budget beside the
    // held results live (`live`, updated).
    void plan_permuted(std::size_t li, std::vector<std::vector<std::int64_t>>& live);
    // A writer of a held permuted tensor: a CMX-to-CMX DMA per source piece into Y's piece of the
    // same rows on the same cluster (made by the first such DMA).
    void permuted_copy(const Tile& tl);
    // Y's piece of key (cluster, row0, rows) of `permuted_rows`, made (a CMX buffer of those rows
    // and the margins of Y's readers, all channels) when first needed.
    const Piece& permuted_piece(int y, const std::array<std::int64_t, 3>& k);

    // schedule_direct.cpp: an NCE layer whose result only a permuted copy reads, whole, writes
    // straight into the held permuted tensor's pieces (a box with the copy's channel stride): no
    // copy. `direct`: per NCE layer, the copy layer it writes through, or -1; `direct_copy`: per
    // copy layer, its source's producer writes its boxes.
    std::vector<std::int64_t> direct;
    std::vector<bool> direct_copy;
    // The other writers of such a tensor (copies) are emitted early: (the layer before which,
    // the copy layer), in order. They write other channels of the same pieces, so the layer's
    // tasks are ordered after them (boxes are checked by their spans): emitted one layer after
    // their sources are written, they run while the branch computes and stay off its chain.
    std::vector<std::pair<std::size_t, std::size_t>> early;
    std::size_t early_next = 0;
    void plan_direct();
    // Emits the early copies due before layer `li` (all of them when `li` is past the end).
    void emit_early(std::size_t li);
    // `result`: the box of a `direct` layer's tile in the permuted tensor's piece of its rows.
    void direct_result(const Tile& tl, Box& result);

    // Whether NCE layer `li`'s result can be held (see `held`): read whole by every reader, not a
    // graph output, and within `hold_budget` with the held results live beside it.
    bool can_hold(std::size_t li, std::vector<std::vector<std::int64_t>>& live);

    // The pieces a held layer's tiles write: (cluster, rows, and channels unless grouped).
    std::set<std::array<std::int64_t, 5>> piece_keys(std::size_t li);

    // Whether layer `li`'s results can stay in CMX for layer li + 1 (see `resident`).
    bool can_keep(std::size_t li, const std::vector<int>& readers);

    // schedule_stream.cpp: runs of consecutive SHAVE layers split over the same rows on the same
    // clusters, emitted part by part (see `plan_streams`)
    std::int64_t stream_budget = 0;            // CMX bytes per cluster the parts of a run may take
    std::vector<std::int64_t> stream_of;       // per layer: its run, or -1
    std::vector<std::pair<std::size_t, std::size_t>> streams;  // the runs' first and last layers
    std::set<int> stream_internal;             // results read only inside their run: never stored
    std::map<std::pair<int, std::int64_t>, Box> streamed;  // (tensor, part) -> the part's result in CMX (the run being emitted)
    std::int64_t stream_part = -1;             // the part of the tile being emitted in a run, or -1
    std::int64_t stream_run = -1;              // (in a region) the run of that tile: `streamed` holds several runs' parts
    // The parts of SHAVE layer `li` split over rows (or channels) on every cluster ((1, cluster,
    // row0, rows), or (3, cluster, ch0, chans) per tile), or empty. With `stream_pipeline` also a
    // 1x1 conv's chunks of output channels: the first layer of a run in channel parts, its stage 0
    // (docs/schedule.md step 29).
    std::vector<std::array<std::int64_t, 4>> stream_key(std::size_t li) const;
    // The tiles per part of layer `li` as the first layer of a run in channel parts: g when it is
    // a 1x1 conv (pipelined, `stream_key`) whose chunks of output channels outnumber the next
    // layer's channel parts g to 1, each part g consecutive chunks on the part's cluster
    // (ConvNeXt's stage 4: 32 chunks of 96 channels, each chunk's weights what a tile may load,
    // and 8 parts of 384: tile_stream_channels.cpp; docs/schedule.md step 37), else 1.
    std::size_t conv_group(std::size_t li) const;
    std::vector<std::size_t> part_group;  // per layer: its `conv_group`, computed once (plan_streams)
    // The parts of the run whose first layer is `a` (its tiles, or its chunks' groups).
    std::size_t run_parts(std::size_t a) const;
    // (the tile being emitted: the channels [c0, c0 + n) of the part it computes with the other
    // chunks of its group, whose results share one buffer, or n = 0)
    std::array<std::int64_t, 2> part_span{0, 0};
    std::map<std::pair<std::int64_t, std::int64_t>, int> part_buffer;  // (layer, part) -> its buffer
    // Whether run `id` is in row parts (else channel parts: tile_stream_channels.cpp).
    bool stream_rows(std::int64_t id) const;
    // Whether layers [a, b] in channel parts are a chain as tile_stream_channels.cpp makes one: of
    // one shape, with SHAVE kernels, its first layer reading the result of the dense conv before it
    // (other layers in channel chunks, as ResNet-18's last residual add and global pool, stay as
    // they are).
    bool conv_chunks_chain(std::size_t a, std::size_t b) const;
    // The runs: maximal sequences of consecutive layers with the same `stream_key`, each reading
    // the run's earlier results only as its own rows (sliced, the whole view), whose parts (two
    // per cluster at once) take at most `stream_budget`; their bytes are added to `live`.
    void plan_streams(std::vector<std::vector<std::int64_t>>& live);
    // Emits run `id` in waves of one part per SHAVE engine (`prefetch` after its first tile), and
    // after each wave the tiles of the NCE layers after the run that read only rows written by then
    // (`beside`).
    void emit_stream(std::int64_t id, bool& first, const std::function<void()>& prefetch);
    // schedule_wave_order.cpp: the order of run [a, b]'s layers within a wave: each SHAVE kernel ahead
    // of the NCE layers before it that it does not read, each NCE layer reading a SHAVE kernel's
    // result among the NCE layers after that kernel as far as their work still takes the kernel's
    // time; the leading layers (before `lead`) and `ahead_after` stay where they are.
    std::vector<std::size_t> wave_order(std::size_t a, std::size_t b, std::size_t lead, std::size_t ahead_after) const;
    // schedule_stream_pipeline.cpp (docs/schedule.md steps 25 and 28; a second schedule, schedule.cpp
    // `schedule`): run [a, b] software-pipelined over two waves. A layer's stage is 1 when it is a SHAVE
    // kernel or reads a stage-1 result of the run, else 0; the stage-0 layers of wave w go with the
    // stage-1 layers of wave w - 1 (its first SHAVE kernels before them, the rest after), so that
    // each SHAVE kernel finds its inputs made by the NCE during the wave before. Empty when every
    // layer of the run has the same stage.
    bool stream_pipeline = false;
    std::vector<int> stream_stages(std::size_t a, std::size_t b) const;
    // Whether a run planned has two stages.
    bool pipelines() const;
    // Emits run `id` so (the `emit` of one layer's parts of one wave, as emit_stream's).
    void emit_stream_pipelined(std::int64_t id, const std::vector<int>& stage, const std::function<void(std::size_t, std::size_t)>& emit);
    // The order of run [a, b]'s layers in an iteration of the pipelined emission (`stage`: stream_stages).
    std::vector<std::size_t> pipelined_order(std::size_t a, std::size_t b, const std::vector<int>& stage) const;
    // The NCE layers after a run whose tiles go beside it: the next layers, each NCE, not in a run,
    // reading a result of the run or of such a layer (ConvNeXt's second MLP conv after the GELU,
    // the residual add after it), and per layer how many of its first tiles were emitted there.
    std::vector<std::int64_t> writer;   // per tensor: the last layer writing it, or -1
    std::vector<std::size_t> beside_done;   // per layer: its first tiles emitted beside a run
    std::map<int, std::int64_t> rows_written;  // per result of the run (and of those layers): rows [0, n) written so far
    // per result of a run in channel parts: channels [0, n) written so far (its parts in channel
    // order, a wave's last part the highest); a layer beside it reads a channel slice of it
    // (docs/schedule.md step 34: the second MLP conv's partial sums)
    std::map<int, std::int64_t> chans_written;
    // Sets rows_written (a run in row parts) or chans_written (in channel parts) of layer li's
    // result, of which `done` parts are written (part k of each layer: the same rows or channels).
    void mark_written(std::int64_t id, std::size_t li, std::size_t done);
    std::vector<std::size_t> beside_layers(std::int64_t id) const;
    std::vector<std::int64_t> stream_bytes;            // per run: the CMX bytes per cluster its parts take
    // Per run: the end of its leading layers emitted a wave ahead (layers [first, lead) that read
    // no result of the run: ConvNeXt's `x / sqrt 2` before the erf polynomial, an NCE layer whose
    // input is loaded from DDR), or the run's first layer when none are. Emitted with the wave
    // before, the next wave's first SHAVE kernels do not wait for the current wave's NCE tail, its
    // stores and then the load of that layer's input, all in queue order (`lead_layers`).
    std::vector<std::size_t> stream_lead;
    // The end of run [a, b]'s leading layers that may go a wave ahead (see `stream_lead`) and the
    // CMX bytes per cluster counted for that beyond the run's parts (a part of each of their
    // results per SHAVE engine, counted three times).
    std::pair<std::size_t, std::int64_t> lead_layers(std::size_t a, std::size_t b) const;
    std::vector<std::vector<std::size_t>> beside;      // per run: the layers emitted beside it
    // The CMX bytes per cluster layer `c` takes beside a run: its constants and (twice) two tiles.
    std::int64_t beside_bytes(std::size_t c) const;
    // Layer c's constants' bytes: its weights and its table.
    std::int64_t constant_bytes(std::size_t c) const;
    // schedule_beside.cpp: the CMX bytes per cluster of the results run `id` and `layers` beside it
    // read that are held from their layer to their last reader where they fit (made before the
    // run, or the run's own, not internal to it). A layer is not put beside a run where these fit
    // the held budget beside the run's parts without it but not with it.
    std::int64_t beside_reads(std::size_t id, const std::vector<std::size_t>& layers) const;
    // Emits the tiles of `layers` (in order, each from its next tile on) whose input rows are written.
    void emit_beside(std::int64_t id, const std::vector<std::size_t>& layers);
    // Whether tile `tl` reads only rows that are written (`rows_written`), channel slices that are
    // written (`chans_written`) or results of layers before `a`.
    bool rows_ready(std::size_t a, const Tile& tl) const;
    // The part of a result of a run in channel parts that beside tile `tl` reads whole on its own
    // cluster (a 1x1 conv of one input: the second MLP conv's partial sums), or -1.
    std::int64_t part_read(const Tile& tl) const;
    // The CMX box of part `stream_part` of a result of the run being emitted that view `v` reads.
    bool stream_read(const View& v, Box& out) const;

    // schedule_prefetch.cpp (docs/schedule.md step 10): the weights of weights-bound layers
    // loaded early
    std::int64_t early_budget = 0;     // CMX bytes per cluster that chunks loaded early and not used yet may take (0: none)
    bool early_serial = false;         // `plan_prefetch` times the other layers' loads at one DMA queue's rate (else DDR's)
    bool early_exposed = false;        // `plan_prefetch` also counts layers weights-bound whose loads the prefetch one layer ahead leaves exposed
    // the chunks that waited for CMX at an earlier layer, at most this many loaded after a layer's
    // first tile (0: no limit; docs/schedule.md step 19)
    std::int64_t late_per_layer = t.dma_engines;
    double early_spread = 0.0;         // `plan_prefetch`, > 0: the moved chunks back to back at one DMA queue's rate from a tenth of the estimated
                                       // end, of the layers whose chunks take more than this times their work to load
    // (docs/schedule.md step 22, tried by `early_loads` on the plan it keeps) the next NCE layer's
    // constants prefetched only after a tile of the layer on each of its clusters, where its first
    // tiles read all rows split over channels (each cluster's input gathered before the prefetch);
    // and a DMA that two queues could start at once on the one free the longest (not DMA0)
    bool prefetch_per_cluster = false;
    bool dma_ties_spread = false;
    // The index in layer `li`'s tiles after which each of its clusters has had a tile, where those
    // tiles all read every row (split over channels), else 0.
    std::size_t first_tile_per_cluster(std::size_t li) const;
    double early_share = 0.0;          // `plan_prefetch`: the DDR time of the chunks it moves early over the estimated end
    std::vector<bool> weights_bound;   // per layer (`plan_prefetch`)
    std::vector<std::vector<std::size_t>> early_tiles;  // per layer: tiles whose weights load after its first tile
    std::vector<std::size_t> waiting;             // tiles due whose loads did not fit yet
    std::map<std::pair<std::int64_t, std::int64_t>, std::int64_t> early_bytes;  // (layer, cluster) -> bytes loaded early
    std::vector<std::vector<std::int64_t>> held_live;  // per layer and cluster: bytes of held results live
    // schedule_wavefront.cpp (docs/schedule.md step 35): regions of layers emitted as a wavefront.
    // A region is a maximal sequence of layers of one plane (H x W, one image), each split over rows
    // only (an NCE layer's bands of rows may each be in chunks of channels: `row_tiles`), with a
    // pipelined run (`heavy_run`) and layers after it: ConvNeXt's stages 1-2, where in
    // layer order the next block's 7x7 dwconv, layer norms and first MLP conv wait for the whole of
    // the block before, the SHAVE engines idle meanwhile. In a region the list is made in sweeps
    // over its layers, a tile going in when the rows it reads are written and (estimated) its engine
    // is free; a pipelined run one iteration per sweep, around the other layers' tiles
    // (`emit_region`). `wavefront` on: a schedule of its own, kept where it simulates faster
    // (schedule.cpp `schedule`).
    bool wavefront = false;
    // a pipelined run in row parts may start with the dense 1x1 conv before it whose tiles are its
    // parts (`split_run_rows` with lead convs; docs/schedule.md step 42): the conv's rows are made in
    // stage 0 of the wave that reads them and stay in CMX, never stored
    bool lead_convs = false;
    // the most tiles a layer outside the runs puts into one cluster's NCE queue in a sweep (0: all
    // whose rows are written), so that a pipelined run's next iteration goes between them
    // (docs/schedule.md step 46)
    int region_tiles_per_sweep = 3;
    // a band's later chunks (`conv_bands`) emitted with its first, not held back for their engines'
    // estimated free time: the band's rows are written only with its last chunk (docs/schedule.md
    // step 47; a schedule of its own, kept where it simulates faster)
    bool band_chunks_together = false;
    std::vector<std::pair<std::size_t, std::size_t>> regions;  // first and last layers (planned with `wavefront` off too)
    std::vector<std::int64_t> region_at;                        // per layer: the region it starts, or -1
    std::map<int, std::int64_t> region_rows;                    // per result in the region being emitted: rows [0, n) written
    std::map<int, std::vector<double>> region_time;             // per such result: the estimated end of each row's task
    void plan_regions();
    // Whether layer `li`'s tiles are row tiles in row order covering its rows, each of all channels
    // or (an NCE layer) bands of rows whose tiles are consecutive chunks of all channels.
    bool row_tiles(std::size_t li) const;
    // Whether run `id` is pipelined in a region: its parts' SHAVE kernels take at least ten times a
    // task's fixed cost, it has more than a wave of parts and two stages.
    bool heavy_run(std::int64_t id) const;
    // The pipelined runs in regions: first and last layers.
    std::vector<std::pair<std::size_t, std::size_t>> region_runs() const;
    // Whether layer `li` lies in a region.
    bool region_layer(std::int64_t li) const;
    // Whether tile `tl` of a layer of the region from layer `a` reads only rows written (results
    // of layers [skip0, skip1], its run's own read as its part, are not checked); `at` (if given)
    // raised to the estimated end of the tasks that wrote those rows.
    bool region_ready(const Tile& tl, std::size_t a, std::size_t skip0, std::size_t skip1, double* at = nullptr) const;
    // When the engine that would run tile `tl` (part `part` of a run, or -1) is free, as estimated.
    double queue_free(const Tile& tl, std::int64_t part);
    // Emits region `id`; false if no tile is ever ready (not expected: the layers are in program order).
    bool emit_region(std::size_t id);

    // Finds the weights-bound NCE layers (`weights_bound`) and the chunks of their weights to load
    // early, each assigned to the first tile of a layer (`early_tiles`; loaded only with an `early_budget`).
    void plan_prefetch();
    // After the first tile of layer `li`: the early loads due, within the CMX they may take.
    void load_early(std::size_t li);

    bool run();
};

// schedule_wavefront.cpp: the tiles of the layers of `runs` (first and last layers: runs in row
// parts) split into parts of one row each, dealt round the clusters; with `lead_convs`, also those
// of the dense 1x1 conv before a run that can lead it (shave_parts.hpp `lead_conv_rows`: then
// schedule with Scheduler::lead_convs). With `bands`, a dense conv before a run that does not lead
// it, in as many chunks of output channels as there are clusters over bands of rows, has its tiles
// band by band, chunk c on cluster c (`conv_bands`, docs/schedule.md step 46). Returns the number
// of leading convs.
std::size_t split_run_rows(Module& m, const std::vector<std::pair<std::size_t, std::size_t>>& runs, bool lead_convs = false,
                           bool bands = true);
// Whether layer `li` is a dense conv in as many chunks of output channels as there are clusters
// (equal, in channel order), each over the same bands of rows, more bands than clusters.
bool conv_bands(const Module& m, std::size_t li);

// schedule_choose.cpp (docs/schedule.md step 15): the makespan the simulator gives a copy of the
// scheduled and allocated module `m` once barriers and emission are done (infinity when a pass or
// the simulator's checks fail on it).
double simulated_makespan(const Module& m);

}  // namespace nnef::vpu::ir::schedule_impl
