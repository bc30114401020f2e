// The VPU task list (specs/vpu-target.md section 6): buffers in DDR and CMX, the graph's inputs
// and outputs, virtual barriers with their physical ids, and DMA / NCE / SHAVE tasks with their
// byte-exact reads and writes, barriers and parameters. A JSON reader (strict: unknown fields,
// wrong types and bad values are errors naming the file and the field) and writer, a readable
// text dump, and the constant data file that carries the contents of constant buffers.
// docs/vpu.md states what each task kind computes from its reads, writes and params.
#pragma once
#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include <nnef/diagnostics.hpp>

#include "lowering/vpu/target.hpp"

namespace nnef::vpu {

enum class Memory : std::uint8_t { DDR, CMX };
const char* to_string(Memory);  // "DDR", "CMX"

// Element types of buffers. fp16 and int8/uint8 are the data paths (spec section 3); int32 holds
// weights tables and int8 biases, fp32 is accepted for host-side data.
enum class DataType : std::uint8_t { fp16, fp32, int8, uint8, int32 };
const char* to_string(DataType);  // "fp16", "fp32", "int8", "uint8", "int32"
std::optional<DataType> data_type_from_string(std::string_view);
std::int64_t element_bytes(DataType);

enum class Role : std::uint8_t { activation, weights, table, input, output, constant, spill };
const char* to_string(Role);
std::optional<Role> role_from_string(std::string_view);
// weights, table and constant: contents come with the task list (the constant data file).
inline bool is_constant(Role r) { return r == Role::weights || r == Role::table || r == Role::constant; }

enum class TaskKind : std::uint8_t { DMA, NCE, SHAVE };
const char* to_string(TaskKind);  // "DMA", "NCE", "SHAVE"

// A queue name parsed: "DMA<i>", "NCE<k>" or "SHAVE<k>.<i>".
struct QueueRef {
    TaskKind kind = TaskKind::DMA;
    std::int64_t index = 0;    // DMA engine, or SHAVE index within its cluster
    std::int64_t cluster = 0;  // NCE and SHAVE
};
std::optional<QueueRef> parse_queue(std::string_view name);
std::string queue_name(const QueueRef& q);

struct Buffer {
    std::string id;  // unique, e.g. "b12"
    Memory memory = Memory::DDR;
    std::int64_t cluster = 0;  // CMX only (written as null for DDR)
    std::int64_t offset = 0;   // bytes from the start of the memory
    std::int64_t size = 0;     // bytes
    DataType dtype = DataType::fp16;
    Role role = Role::activation;
    std::string tensor;  // the NNEF tensor it holds (part of), or empty (null)
    // Contents of a constant DDR buffer (role weights, table or constant): exactly `size` bytes, or
    // null when not loaded. Not part of the JSON: see write_constants_file.
    std::shared_ptr<const std::vector<std::uint8_t>> data;
};

// A strided box of a buffer: `shape` elements of the buffer's dtype, element i at byte
// offset + sum(i[d] * strides[d]) from the start of the buffer.
struct Access {
    std::string buffer;
    std::int64_t offset = 0;
    std::vector<std::int64_t> shape;
    std::vector<std::int64_t> strides;  // bytes, one per dimension of shape

    // Row-major dense strides for `shape` with elements of `element_size` bytes.
    static Access dense(std::string buffer, std::int64_t offset, std::vector<std::int64_t> shape,
                        std::int64_t element_size);
    std::int64_t elements() const;
    // [first byte, last byte + element_size) of the box, relative to the buffer start.
    std::pair<std::int64_t, std::int64_t> span(std::int64_t element_size) const;
};

// A graph input or output: the NNEF tensor `name` lives in `buffer` (from its offset 0), dense
// row-major with `shape` in `layout` (one letter per dimension, e.g. "NHWC"; see docs/vpu.md for
// how the host converts from NNEF's order) and `dtype`.
struct IoEntry {
    std::string name;
    std::string buffer;
    std::vector<std::int64_t> shape;
    std::string layout;
    DataType dtype = DataType::fp16;
};

struct Barrier {
    std::int64_t id = 0;        // virtual id, unique; tasks name it in wait/update
    std::int64_t physical = 0;  // < target.barriers
};

enum class PostOp : std::uint8_t { none, relu, clamp, leaky_relu };
const char* to_string(PostOp);

// TOSA-style 32-bit rescale of an int8 eltwise input: (v - zp) * multiplier >> shift (rounded).
struct InputRescale {
    std::int64_t multiplier = 1 << 30;
    std::int64_t shift = 30;
    std::int64_t zp = 0;
};

// Parameters of an NCE task (op conv, dwconv, maxpool, avgpool, eltwise). docs/vpu.md.
struct NceParams {
    std::array<std::int64_t, 2> kernel{1, 1};    // height, width (1x1 for eltwise)
    std::array<std::int64_t, 2> stride{1, 1};    // height, width
    std::array<std::int64_t, 2> dilation{1, 1};  // height, width
    std::array<std::int64_t, 4> pad{0, 0, 0, 0};  // top, bottom, left, right (zero padding)
    std::string eltwise;                          // eltwise: "add", "sub" or "mul"
    PostOp post_op = PostOp::none;
    double clamp_min = 0.0, clamp_max = 0.0;  // post_op clamp (output domain: float, or int8 codes)
    double leaky_alpha = 0.0;                 // post_op leaky_relu (fp16 only)
    // int8/uint8 (present when the output is quantized): zero points, rounding of the per-channel
    // requantization (table), and for eltwise the rescale of each input to the int32 domain.
    bool quantized = false;
    std::int64_t input_zp = 0, weights_zp = 0, output_zp = 0;
    bool double_round = false;
    std::array<InputRescale, 2> eltwise_inputs{};
};

// Parameters of a SHAVE task: the kernel (the TOSA operator it computes, lower case as the MLIR
// mnemonic, e.g. "sigmoid", "reduce_sum", or "softmax") and its attributes (docs/vpu.md).
struct ShaveParams {
    std::string kernel;
    nlohmann::json attrs = nlohmann::json::object();  // every params field but "kernel"
};

struct Task {
    std::int64_t id = 0;  // unique
    std::string queue;    // "DMA0", "NCE1", "SHAVE0.1"
    TaskKind kind = TaskKind::DMA;
    std::string op;  // DMA: "copy"; NCE: conv|dwconv|maxpool|avgpool|eltwise; SHAVE: the kernel name
    std::vector<Access> reads, writes;
    std::vector<std::int64_t> wait, update;  // virtual barrier ids
    std::int64_t cycles = 0;                 // the cost model's figure for the task alone
    NceParams nce;                           // NCE tasks
    ShaveParams shave;                       // SHAVE tasks
    std::string source;                      // NNEF tensor or operation this task computes part of
};

// Calls f(byte offset from the buffer start) for each element of the box, in row-major order.
template <class F>
void for_each_element(const Access& a, F&& f) {
    const std::size_t r = a.shape.size();
    std::vector<std::int64_t> idx(r, 0);
    std::int64_t off = a.offset;
    const std::int64_t n = a.elements();
    for (std::int64_t i = 0; i < n; ++i) {
        f(off);
        for (std::size_t d = r; d-- > 0;) {
            if (++idx[d] < a.shape[d]) {
                off += a.strides[d];
                break;
            }
            off -= (a.shape[d] - 1) * a.strides[d];
            idx[d] = 0;
        }
    }
}

struct TaskList {
    Target target;
    std::string graph;
    std::vector<Buffer> buffers;
    std::vector<IoEntry> inputs, outputs;
    std::vector<Barrier> barriers;
    std::vector<Task> tasks;  // in queue order per queue

    const Buffer* buffer(const std::string& id) const;  // linear search; null when absent
};

inline constexpr const char* task_list_format = "nnef-vpu-tasks";
inline constexpr int task_list_version = 1;

// JSON of section 6. `params` per kind as docs/vpu.md says.
nlohmann::ordered_json to_json(const TaskList& list);
// The same as text: one buffer, entry, barrier or task per line.
std::string to_json_text(const TaskList& list);
nlohmann::ordered_json params_json(const Task& task);

// Strict reading; errors have stage vpu, code "bad-task-list", path = `name`, and a message that
// names the field as a JSON pointer (e.g. "/tasks/3/reads/0/strides") and what was expected.
Result<TaskList> parse_task_list(const std::string& text, const std::string& name);
Result<TaskList> read_task_list_file(const std::string& path);

// "[1,2,3]": a shape or index list in dumps and messages.
std::string dims(const std::vector<std::int64_t>& v);

// A readable dump: target summary, buffers, barriers, then each queue's tasks.
std::string to_text(const TaskList& list);

// The constant data file: for each DDR buffer with a constant role (weights, table, constant), in
// the order of `buffers`, its `size` bytes (the host puts them in DDR before the first task). Next to TASKS.json it is TASKS.bin (constants_path).
std::string constants_path(const std::string& task_list_path);
bool write_constants_file(const TaskList& list, const std::string& path, Diagnostics& diags);
// Fills Buffer::data of the constant buffers; the file's size must match exactly.
bool read_constants_file(TaskList& list, const std::string& path, Diagnostics& diags);

}  // namespace nnef::vpu
