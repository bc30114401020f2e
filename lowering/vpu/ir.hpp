// The VPU compiler's IR (lowering/vpu/pipeline.cpp runs the passes over it, in the order listed
// there; docs/vpu-compiler.md describes each). One Module goes through the passes, each filling in
// the next level of detail and declaring what it promises (Promise): the verifier
// (lowering/vpu/verify.cpp) checks every promise made so far after each pass.
//
//   assign-executors  TOSA operators -> Layers: an NCE operation (NceOp; matmul with constant
//                     weights as a 1x1 conv; the int8 eltwise with its RESCALEs), a SHAVE kernel
//                     (ShaveKernel), or a copy; reshapes, transposes and slices become Views of
//                     DDR tensors (no task).
//   fuse-post-ops     SHAVE bias / scale (add, sub, mul by a per-channel constant), clamp,
//                     minimum / maximum by a scalar and the int8 rescale of an int32 accumulator
//                     folded into the NCE layer producing their operand (its bias, weights,
//                     post-op or requantization), from their exact constants; a scale or bias
//                     with no NCE producer to take it becomes an NCE 1x1 maxpool with the
//                     constant in its table, and the rest of its chain folds into that.
//   layout-and-types  fp16 storage (int8 on the int8 path): weights OHWI, and the weights table
//                     tensor (16 bytes per aligned output channel) of every NCE layer, sized.
//   tile              each layer split into Tiles spread over the clusters.
//   build-tables      the table words (weights offset within the tile's channel chunk, scale and
//                     bias, or the int8 requantization).
//   schedule          program order of tasks and static CMX offsets (one pass: the schedule is
//                     made again with fewer held results when the allocator finds no room).
//   barriers          dependencies -> virtual barriers with physical ids.
//   emit              the TaskList of specs/vpu-target.md section 6 with the cost model's cycles.
#pragma once
#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include <nnef/diagnostics.hpp>

#include "lowering/tosa/ir.hpp"
#include "lowering/vpu/target.hpp"
#include "lowering/vpu/task_list.hpp"

namespace nnef::vpu::ir {

// A tensor in DDR: a graph input, output, constant (weights, table) or an intermediate activation.
struct Tensor {
    std::string name;
    DataType dtype = DataType::fp16;
    Role role = Role::activation;
    std::int64_t bytes = 0;
    std::shared_ptr<std::vector<std::uint8_t>> data;  // constants
};

// A strided box over a DDR tensor (byte offset and byte strides), the form every TOSA value takes.
struct View {
    int tensor = -1;
    std::int64_t offset = 0;
    std::vector<std::int64_t> shape, strides;

    std::int64_t elements() const;
    bool dense(std::int64_t element_size) const;  // row-major without gaps
};

enum class Exec : std::uint8_t { nce, shave, copy };
const char* to_string(Exec);

// The operations of the NCE (the task list's NCE `op`, docs/vpu.md).
enum class NceOp : std::uint8_t { conv, dwconv, maxpool, avgpool, eltwise };
const char* to_string(NceOp);  // "conv", "dwconv", "maxpool", "avgpool", "eltwise"
std::optional<NceOp> nce_op_from_string(const std::string&);
inline bool is_pool(NceOp o) { return o == NceOp::maxpool || o == NceOp::avgpool; }
inline bool has_weights(NceOp o) { return o == NceOp::conv || o == NceOp::dwconv; }

// A SHAVE kernel and its parameters, typed (docs/vpu.md, "SHAVE"); params_json() gives the task
// list's `params` (without "kernel").
struct ShaveKernel {
    std::string name;                  // the kernel: a TOSA mnemonic ("add", "reduce_sum", ...)
    std::optional<std::int64_t> axis;  // the TOSA operator's axis (reductions, ...)
    // clamp: bounds as float (the fp16 path: the TOSA attribute's, infinities included; the task
    // list's params saturate them to fp16's range) or as integer codes (the int8 path)
    std::optional<std::array<double, 2>> clamp_float;
    std::optional<std::array<std::int64_t, 2>> clamp_int;
    // rescale (int8 path): per tensor (one item) or per channel
    struct Rescale {
        std::vector<std::int64_t> multiplier, shift;
        std::int64_t input_zp = 0, output_zp = 0;
        bool double_round = false;
    };
    std::optional<Rescale> rescale;
    // the int8 path's TOSA kernels: the operator's attributes, and its shape operands as constants
    std::vector<std::pair<tosa::AttrName, tosa::Attr>> attributes;
    std::vector<std::pair<std::string, std::vector<std::int64_t>>> shape_constants;
    // add / sub / mul / minimum / maximum on the fp16 path with a per-tensor or per-channel
    // constant operand (every dimension 1 but the last): which input it is and its items exactly
    // as float32 (the input's tensor holds them rounded to fp16), what fuse-post-ops folds into an
    // NCE layer's bias and weights. Not part of the task list.
    struct Constant {
        std::int64_t input = 0;
        std::vector<float> items;
    };
    std::optional<Constant> constant;

    // The task list's params: TOSA attributes and constants in lowering/tosa/json.hpp's form.
    nlohmann::json params_json() const;
    // The spec of attribute `attribute` of the TOSA operator this kernel is named after; null when
    // the name is no TOSA mnemonic or the operator has no such attribute.
    const tosa::AttrSpec* attribute_spec(tosa::AttrName attribute) const;
};

struct Layer {
    Exec exec = Exec::nce;
    NceOp nce_op = NceOp::conv;     // NCE layers
    ShaveKernel shave;              // SHAVE layers
    std::vector<View> inputs;       // NCE: rank-4 NHWC views
    View output;                    // NCE: rank-4 NHWC
    int weights = -1;               // conv/dwconv: the OHWI tensor (after layout-and-types)
    int table = -1;                 // NCE: the weights table tensor (sized by layout-and-types, written by build-tables)
    // Where the layer's weights and table start in those tensors (bytes): layout-and-types packs
    // the constants of the NCE layers one after the other in program order (all tables in one
    // tensor, all weights of a data type in one), so that one DMA can load those of consecutive
    // layers (docs/vpu-compiler.md, "Constants packed in DDR").
    std::int64_t weights_offset = 0, table_offset = 0;
    // The rows of the layer's table in its tensor: 0, one per output channel; else that many rows,
    // all alike, which every task reads from the first row (build-tables makes such a table where
    // every channel's row is the same: a pool or eltwise whose scale and bias are one value; the
    // widest tile's channels are then all it needs)
    std::int64_t table_rows = 0;
    std::vector<float> weights_f32;  // conv: [O,KH,KW,I]; dwconv: [C,KH,KW,1] (until layout-and-types)
    std::vector<std::int64_t> weights_shape;
    std::vector<float> bias;        // per output channel (empty: zero)
    std::vector<float> scale;       // fp16 path: per output channel, the table's fp32 scale (empty: 1.0; scale_shift_to_nce)
    // int8 path (nce.quantized): per output channel the int32 bias and the requantization's
    // multiplier and shift (table words 3, 2, 1); empty: bias 0, multiplier 2^30, shift 30 (identity)
    std::vector<std::int64_t> q_bias, q_mult, q_shift;
    NceParams nce;
    std::string source;             // NNEF tensor / operation
    std::uint32_t origin = tosa::no_origin;

    // The task list's op: the NCE operation, the SHAVE kernel, or "copy".
    std::string op_name() const;
    // An NCE layer's weights (OHWI in its data type; 0 without weights) and table bytes ([align(C), 4]
    // 32-bit words for channel alignment `align`, C its table's rows: `table_rows`, or its output
    // channels).
    std::int64_t weights_bytes() const;
    std::int64_t table_bytes(std::int64_t align) const;
};

// A CMX buffer before allocation: its cluster, size, and lifetime in program order.
struct CmxBuffer {
    std::int64_t cluster = 0;
    std::int64_t size = 0;
    std::int64_t offset = -1;  // set by the schedule pass (allocate_cmx)
    DataType dtype = DataType::fp16;
    Role role = Role::activation;
    std::string tensor;
    std::int64_t first = -1, last = -1;  // program indices of the first and last task touching it
    // the scheduler's estimates (each task at its cost): the start of its first task, the latest end
    // of its tasks (allocate_cmx's `timed` placement)
    double start_est = 0.0, end_est = 0.0;
    bool held = false;                   // a result held for later layers (placed from the top of CMX)
};

// Where an access points: a DDR tensor or a CMX buffer.
struct Ref {
    bool cmx = false;
    int index = -1;
};
struct Box {
    Ref ref;
    std::int64_t offset = 0;
    std::vector<std::int64_t> shape, strides;
};

// One tile of a layer: the part of the output it computes and the cluster it runs on.
struct Tile {
    std::int64_t layer = 0;
    std::int64_t cluster = 0;
    std::int64_t row0 = 0, rows = 0;   // output rows (NCE: H of NHWC; others: dimension `split_dim`)
    std::int64_t ch0 = 0, chans = 0;   // output channels (NCE)
    std::int64_t channel_tile = 0;     // index of the channel chunk (weights sharing)
    int split_dim = -1;                // SHAVE / copy: the dimension split (-1: whole)
};

struct Task {
    TaskKind kind = TaskKind::DMA;
    std::string queue;
    std::string op;
    std::vector<Box> reads, writes;
    NceParams nce;
    ShaveParams shave;
    std::string source;
    std::vector<std::int64_t> wait, update;  // virtual barrier ids (set by barriers)
};

// What a pass promises about the module after it (each pass declares its promises in
// pipeline.cpp; the verifier checks every promise made so far, docs/vpu-compiler.md lists them).
enum class Promise : std::uint8_t {
    layers,          // assign-executors: views inside their tensors, NCE layers rank 4 within limits, no writes to inputs or constants
    post_ops_fused,  // fuse-post-ops: no SHAVE layer left that fusible_post_op would fold into its NCE producer
    weights_laid_out,  // layout-and-types: NCE weights in the layer's data type, a table tensor per NCE layer, 16 bytes per aligned channel
    tiled,           // tile: the tiles of each layer cover its output once, on clusters the target has
    tables_built,    // build-tables: every table written, its weights offsets inside the weights tensor
    scheduled,       // schedule: boxes inside their buffers, NCE / SHAVE only on CMX, every CMX buffer used
    cmx_allocated,   // schedule: CMX offsets aligned, within capacity, live buffers disjoint
    barriers,        // barriers: producers before consumers, counts within limits, physical ids within the target's
    emitted,         // emit: the task list passes the simulator's checks
};
inline constexpr int promise_count = 9;
const char* to_string(Promise);

struct Module {
    const tosa::Graph* graph = nullptr;
    Target target;
    std::string name;
    bool int8 = false;
    std::vector<Tensor> tensors;
    std::vector<Layer> layers;
    std::vector<IoEntry> inputs, outputs;  // buffer = the tensor's name until emission ("t<index>")
    std::vector<int> input_tensors, output_tensors;
    std::uint32_t promised = 0;  // bit per Promise made by the passes run so far
    bool has(Promise p) const { return promised >> unsigned(p) & 1u; }
    void promise(Promise p) { promised |= 1u << unsigned(p); }
    std::vector<Tile> tiles;
    std::vector<CmxBuffer> cmx;
    std::vector<Task> tasks;  // program order
    std::vector<std::int64_t> barrier_physical;  // per virtual barrier (set by barriers)
    int barrier_segments = 0;       // segments of the physical assignment (1: every dependency its own barrier)
    bool barrier_fallback = false;  // physical ids could not be made safe: phase barriers
    TaskList list;
};

std::int64_t element_size(DataType t);
// The CMX bytes one tile's working set may take: a quarter of a cluster's CMX (the rest holds the
// next tile being loaded, the current and the next layer's weights).
inline std::int64_t tile_budget(const Target& t) { return t.cmx_bytes / 4; }
std::vector<std::int64_t> dense_strides(const std::vector<std::int64_t>& shape, std::int64_t element_size);
// fp16 bytes (little-endian) of the values, rounded to nearest even.
std::vector<std::uint8_t> fp16_bytes(const std::vector<float>& v);
// The same, written at `to` (2 * v.size() bytes).
void write_fp16(const std::vector<float>& v, std::uint8_t* to);
// The IR as text: lowering/vpu/ir_text.hpp (write_text, read_text).

// The passes (lowering/vpu/passes/<pass>.cpp, in pipeline order); each returns false after
// reporting an error.
bool assign_executors(Module& m, Diagnostics& diags);
bool fuse_post_ops(Module& m, Diagnostics& diags);
bool layout_and_types(Module& m, Diagnostics& diags);
bool tile(Module& m, Diagnostics& diags);
bool build_tables(Module& m, Diagnostics& diags);
bool schedule(Module& m, Diagnostics& diags);
bool assign_barriers(Module& m, Diagnostics& diags);
bool emit(Module& m, Diagnostics& diags);
// Static CMX offsets for the schedule's buffers (passes/allocate_cmx.cpp; schedule calls it, and
// schedules again with fewer held results when it finds no room); false after reporting
// `cmx-exhausted` into `diags`. `timed`: freed bytes judged by the buffers' estimated times
// (`start_est`, `end_est`) instead of a count of tasks, a buffer whose last reader is a transfer
// counted `transfer_margin` cycles later than estimated; false, with no report, where that rule
// finds no room.
bool allocate_cmx(Module& m, Diagnostics& diags, bool timed = false, double transfer_margin = 0.0);
// Who reads and writes each DDR tensor (layers' inputs and outputs; graph outputs count as readers).
struct TensorUses {
    std::vector<int> readers, writers;
    std::vector<int> writer;  // the (last) layer writing it, -1: none
};
TensorUses tensor_uses(const Module& m);
// The NCE layer that SHAVE layer `i` can be folded into as its bias, scale or post-op
// (passes/fuse_post_ops.cpp: the rules), or -1. What fuse-post-ops does and the verifier checks.
int fusible_post_op(const Module& m, std::size_t i, const TensorUses& uses);
// Whether SHAVE layer `i` (fp16 mul / add / sub by a per-tensor or per-channel constant, NHWC of
// one image) that no NCE producer can take becomes an NCE layer of its own, a 1x1 maxpool with the
// constant in its table's scale or bias (passes/scale_shift_nce.cpp; fuse-post-ops does it and
// then folds the rest of the chain into it, the verifier checks none is left); and the rewrite.
bool scale_shift_to_nce(const Module& m, std::size_t i, const TensorUses& uses);
void make_scale_shift_nce(Module& m, std::size_t i);
// Whether SHAVE layer `s`'s exact constant is per tensor (one item) or per channel (C items, every
// dimension 1 but the last).
bool per_channel_constant(const Layer& s, std::int64_t C);
// Checks every promise the module carries (lowering/vpu/verify.cpp).
bool verify(const Module& m, const std::string& after_pass, Diagnostics& diags);

}  // namespace nnef::vpu::ir
