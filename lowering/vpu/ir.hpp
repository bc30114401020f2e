// The VPU compiler's IR (lowering/vpu/compiler.hpp runs the passes over it). One Module goes through
// the stages of the pipeline, each pass filling in the next level of detail:
//
//   assign-executors  TOSA operators -> Layers: an NCE operation (conv, dwconv, pools, eltwise;
//                     matmul with constant weights as a 1x1 conv; CLAMP and bias ADDs fused into
//                     the producer), a SHAVE kernel, or a copy; reshapes, transposes and slices
//                     become Views of DDR tensors (no task).
//   layout-and-types  fp16 storage (int8 on the int8 path): constants converted once, weights
//                     OHWI, the weights table (16 bytes per aligned output channel) of every NCE
//                     layer (scale and bias, or the int8 requantization).
//   tile              each layer split into Tiles (output rows with the input's halo rows, output
//                     channels) spread over the clusters, each tile's working set within its share
//                     of CMX.
//   schedule          program order of tasks: DMA of weights, tables and input tiles into CMX, the
//                     NCE / SHAVE task, DMA of the result to DDR (issued two tiles later, or before
//                     the first load reading it), or the result kept in CMX for a pointwise next
//                     layer; weights of the next layer issued while the current one computes; CMX
//                     buffers symbolic (cluster, size, lifetime).
//   allocate-cmx      static CMX offsets (aligned), buffers with overlapping lifetimes disjoint.
//   barriers          dependencies from overlapping byte accesses (RAW, WAR, WAW), transitively
//                     reduced against queue order and each other, become virtual barriers (one
//                     per producer set); physical ids reused only when provably free, with added
//                     orderings where needed (passes/barriers.cpp).
//   emit              the TaskList of specs/vpu-target.md section 6 with the cost model's cycles.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
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

struct Layer {
    Exec exec = Exec::nce;
    std::string op;                 // NCE: conv|dwconv|maxpool|avgpool|eltwise; SHAVE: the kernel; copy: "copy"
    std::vector<View> inputs;       // NCE: rank-4 NHWC views
    View output;                    // NCE: rank-4 NHWC
    int weights = -1;               // conv/dwconv: the OHWI tensor (after layout-and-types)
    int table = -1;                 // NCE: the weights table tensor (after layout-and-types)
    std::vector<float> weights_f32;  // conv: [O,KH,KW,I]; dwconv: [C,KH,KW,1] (until layout-and-types)
    std::vector<std::int64_t> weights_shape;
    std::vector<float> bias;        // per output channel (empty: zero)
    // int8 path (nce.quantized): per output channel the int32 bias and the requantization's
    // multiplier and shift (table words 3, 2, 1); empty: bias 0, multiplier 2^30, shift 30 (identity)
    std::vector<std::int64_t> q_bias, q_mult, q_shift;
    NceParams nce;
    nlohmann::json attrs = nlohmann::json::object();  // SHAVE kernel attributes
    std::string source;             // NNEF tensor / operation
    std::uint32_t origin = tosa::no_origin;
};

// A CMX buffer before allocation: its cluster, size, and lifetime in program order.
struct CmxBuffer {
    std::int64_t cluster = 0;
    std::int64_t size = 0;
    std::int64_t offset = -1;  // set by allocate-cmx
    DataType dtype = DataType::fp16;
    Role role = Role::activation;
    std::string tensor;
    std::int64_t first = -1, last = -1;  // program indices of the first and last task touching it
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

struct Module {
    const tosa::Graph* graph = nullptr;
    Target target;
    std::string name;
    bool int8 = false;
    std::vector<Tensor> tensors;
    std::vector<Layer> layers;
    std::vector<IoEntry> inputs, outputs;  // buffer = the tensor's name until emission ("t<index>")
    std::vector<int> input_tensors, output_tensors;
    // Stage reached: 0 none, 1 executors, 2 layout, 3 tiles, 4 scheduled, 5 allocated, 6 barriers,
    // 7 emitted.
    int stage = 0;
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
std::string to_text(const Module& m);

// The passes (lowering/vpu/passes/*.cpp); each returns false after reporting an error.
bool assign_executors(Module& m, Diagnostics& diags);
bool layout_and_types(Module& m, Diagnostics& diags);
bool tile(Module& m, Diagnostics& diags);
bool schedule(Module& m, Diagnostics& diags);
bool allocate_cmx(Module& m, Diagnostics& diags);
bool assign_barriers(Module& m, Diagnostics& diags);
bool emit(Module& m, Diagnostics& diags);
// The invariants that hold after the stage the module reached.
bool verify(const Module& m, const std::string& after_pass, Diagnostics& diags);

}  // namespace nnef::vpu::ir
