#include "lowering/vpu/task_list.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <sstream>

#include "lowering/vpu/json_reader.hpp"

namespace nnef::vpu {

std::string dims(const std::vector<std::int64_t>& v) {
    std::string s = "[";
    for (std::size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + std::to_string(v[i]);
    return s + "]";
}

namespace task_list_cpp {

using json_read::JsonReadError;
using json_read::Node;
using ojson = nlohmann::ordered_json;

ojson num(double v) {
    if (std::floor(v) == v && std::fabs(v) < 9.0e15) return static_cast<std::int64_t>(v);
    return v;
}

ojson ints(const std::vector<std::int64_t>& v) {
    ojson a = ojson::array();
    for (std::int64_t x : v) a.push_back(x);
    return a;
}
template <std::size_t N>
ojson ints(const std::array<std::int64_t, N>& v) {
    return ints(std::vector<std::int64_t>(v.begin(), v.end()));
}

ojson access_json(const Access& a) {
    ojson j = ojson::object();
    j["buffer"] = a.buffer;
    j["offset"] = a.offset;
    j["shape"] = ints(a.shape);
    j["strides"] = ints(a.strides);
    return j;
}

std::vector<std::int64_t> read_ints(const Node& n, std::int64_t lo = std::numeric_limits<std::int64_t>::min()) {
    std::vector<std::int64_t> out;
    const std::size_t count = n.size();
    for (std::size_t i = 0; i < count; ++i) out.push_back(n.at(i).integer(lo));
    return out;
}

template <std::size_t N>
std::array<std::int64_t, N> read_fixed(const Node& n, std::int64_t lo) {
    if (!n.json().is_array() || n.json().size() != N) n.fail("an array of " + std::to_string(N) + " integers");
    std::array<std::int64_t, N> out{};
    for (std::size_t i = 0; i < N; ++i) out[i] = n.at(i).integer(lo);
    return out;
}

Access read_access(const Node& n) {
    n.expect_object({"buffer", "offset", "shape", "strides"});
    Access a;
    a.buffer = n.field("buffer").string();
    a.offset = n.field("offset").integer(0, std::int64_t(1) << 50);
    a.shape = read_ints(n.field("shape"), 1);
    a.strides = read_ints(n.field("strides"), -(std::int64_t(1) << 50));
    if (a.shape.size() != a.strides.size())
        n.field("strides").fail_message("expected one stride per dimension of shape (" + std::to_string(a.shape.size()) +
                                        "), got " + std::to_string(a.strides.size()));
    if (a.shape.empty()) n.field("shape").fail("a non-empty array of extents");
    // Bounds that keep every byte offset and element count far from overflow.
    double elements = 1, reach = double(a.offset);
    for (std::size_t d = 0; d < a.shape.size(); ++d) {
        elements *= double(a.shape[d]);
        reach += std::fabs(double(a.shape[d] - 1) * double(a.strides[d]));
    }
    if (elements > double(std::int64_t(1) << 32)) n.field("shape").fail("a box of at most 2^32 elements");
    if (reach > double(std::int64_t(1) << 50)) n.field("strides").fail("offsets and strides that stay within 2^50 bytes");
    return a;
}

std::vector<Access> read_accesses(const Node& n) {
    std::vector<Access> out;
    const std::size_t count = n.size();
    for (std::size_t i = 0; i < count; ++i) out.push_back(read_access(n.at(i)));
    return out;
}

template <class E>
E read_enum(const Node& n, std::initializer_list<std::pair<const char*, E>> items) {
    const std::string s = n.string();
    std::string list;
    for (const auto& [name, value] : items) {
        if (s == name) return value;
        list += std::string(list.empty() ? "" : ", ") + name;
    }
    n.fail("one of " + list);
}

PostOp read_post_op(const Node& n) {
    return read_enum<PostOp>(n, {{"none", PostOp::none},
                                 {"relu", PostOp::relu},
                                 {"clamp", PostOp::clamp},
                                 {"leaky_relu", PostOp::leaky_relu}});
}

DataType read_dtype(const Node& n) {
    return read_enum<DataType>(n, {{"fp16", DataType::fp16},
                                   {"fp32", DataType::fp32},
                                   {"int8", DataType::int8},
                                   {"uint8", DataType::uint8},
                                   {"int32", DataType::int32}});
}

bool is_pool_or_conv(const std::string& op) {
    return op == "conv" || op == "dwconv" || op == "maxpool" || op == "avgpool";
}

NceParams read_nce_params(const Node& n, const std::string& op) {
    NceParams p;
    if (is_pool_or_conv(op))
        n.expect_object({"kernel", "stride", "dilation", "pad", "post_op", "clamp_min", "clamp_max", "leaky_alpha",
                         "quantization"});
    else
        n.expect_object({"eltwise", "post_op", "clamp_min", "clamp_max", "leaky_alpha", "quantization"});
    if (n.has("kernel")) p.kernel = read_fixed<2>(n.field("kernel"), 1);
    if (n.has("stride")) p.stride = read_fixed<2>(n.field("stride"), 1);
    if (n.has("dilation")) p.dilation = read_fixed<2>(n.field("dilation"), 1);
    if (n.has("pad")) p.pad = read_fixed<4>(n.field("pad"), 0);
    if (op == "eltwise") {
        Node e = n.field("eltwise");
        const std::string s = e.string();
        if (s != "add" && s != "sub" && s != "mul") e.fail("one of add, sub, mul");
        p.eltwise = s;
    }
    if (n.has("post_op")) p.post_op = read_post_op(n.field("post_op"));
    if (p.post_op == PostOp::clamp) {
        p.clamp_min = n.field("clamp_min").number();
        p.clamp_max = n.field("clamp_max").number();
        if (p.clamp_min > p.clamp_max)
            n.field("clamp_max").fail_message("expected clamp_max >= clamp_min");
    } else {
        for (const char* k : {"clamp_min", "clamp_max"})
            if (n.has(k)) n.field(k).fail_message("only with post_op clamp");
    }
    if (p.post_op == PostOp::leaky_relu) p.leaky_alpha = n.field("leaky_alpha").number();
    else if (n.has("leaky_alpha")) n.field("leaky_alpha").fail_message("only with post_op leaky_relu");
    if (n.has("quantization")) {
        Node q = n.field("quantization");
        if (op == "eltwise") q.expect_object({"input_zp", "output_zp", "rounding", "inputs"});
        else q.expect_object({"input_zp", "weights_zp", "output_zp", "rounding"});
        p.quantized = true;
        if (q.has("input_zp")) p.input_zp = q.field("input_zp").integer(-128, 255);
        if (q.has("weights_zp")) p.weights_zp = q.field("weights_zp").integer(-128, 255);
        if (q.has("output_zp")) p.output_zp = q.field("output_zp").integer(-128, 255);
        if (q.has("rounding")) {
            Node r = q.field("rounding");
            const std::string s = r.string();
            if (s != "single" && s != "double") r.fail("single or double");
            p.double_round = s == "double";
        }
        if (op == "eltwise") {
            Node in = q.field("inputs");
            if (!in.json().is_array() || in.json().size() != 2) in.fail("an array of 2 rescales");
            for (std::size_t i = 0; i < 2; ++i) {
                Node r = in.at(i);
                r.expect_object({"multiplier", "shift", "zp"});
                p.eltwise_inputs[i].multiplier = r.field("multiplier").integer(0, 0x7fffffff);
                p.eltwise_inputs[i].shift = r.field("shift").integer(2, 62);
                if (r.has("zp")) p.eltwise_inputs[i].zp = r.field("zp").integer(-128, 255);
            }
        }
    }
    return p;
}

Buffer read_buffer(const Node& n) {
    n.expect_object({"id", "memory", "cluster", "offset", "size", "dtype", "role", "tensor"});
    Buffer b;
    b.id = n.field("id").string();
    b.memory = read_enum<Memory>(n.field("memory"), {{"DDR", Memory::DDR}, {"CMX", Memory::CMX}});
    if (b.memory == Memory::CMX) {
        b.cluster = n.field("cluster").integer(0);
    } else if (n.has("cluster") && !n.field("cluster").json().is_null()) {
        n.field("cluster").fail("null (a DDR buffer has no cluster)");
    }
    b.offset = n.field("offset").integer(0, std::int64_t(1) << 50);
    b.size = n.field("size").integer(1, std::int64_t(1) << 50);
    b.dtype = read_dtype(n.field("dtype"));
    b.role = read_enum<Role>(n.field("role"), {{"activation", Role::activation},
                                               {"weights", Role::weights},
                                               {"table", Role::table},
                                               {"input", Role::input},
                                               {"output", Role::output},
                                               {"constant", Role::constant},
                                               {"spill", Role::spill}});
    if (n.has("tensor") && !n.field("tensor").json().is_null()) b.tensor = n.field("tensor").string();
    return b;
}

IoEntry read_entry(const Node& n) {
    n.expect_object({"name", "buffer", "shape", "layout", "dtype"});
    IoEntry e;
    e.name = n.field("name").string();
    e.buffer = n.field("buffer").string();
    e.shape = read_ints(n.field("shape"), 1);
    double volume = 1;
    for (std::int64_t d : e.shape) volume *= double(d);
    if (volume > double(std::int64_t(1) << 40)) n.field("shape").fail("a tensor of at most 2^40 elements");
    e.layout = n.field("layout").string();
    e.dtype = read_dtype(n.field("dtype"));
    if (e.layout.size() != e.shape.size())
        n.field("layout").fail("one letter per dimension of shape (" + std::to_string(e.shape.size()) + ")");
    for (std::size_t i = 0; i < e.layout.size(); ++i)
        if (!std::isupper(static_cast<unsigned char>(e.layout[i])) || e.layout.find(e.layout[i]) != i)
            n.field("layout").fail("distinct upper-case letters, one per dimension (e.g. \"NHWC\")");
    return e;
}

Task read_task(const Node& n) {
    n.expect_object({"id", "queue", "kind", "op", "reads", "writes", "wait", "update", "cycles", "params", "source"});
    Task t;
    t.id = n.field("id").integer(0);
    Node qn = n.field("queue");
    t.queue = qn.string();
    auto q = parse_queue(t.queue);
    if (!q) qn.fail("a queue name DMA<i>, NCE<k> or SHAVE<k>.<i>");
    t.kind = read_enum<TaskKind>(n.field("kind"), {{"DMA", TaskKind::DMA}, {"NCE", TaskKind::NCE}, {"SHAVE", TaskKind::SHAVE}});
    if (t.kind != q->kind)
        n.field("kind").fail_message(std::string("expected ") + to_string(q->kind) + " (the kind of queue " + t.queue +
                                     "), got " + to_string(t.kind));
    Node on = n.field("op");
    t.op = on.string();
    if (t.kind == TaskKind::DMA && t.op != "copy") on.fail("\"copy\" (the one DMA operation)");
    if (t.kind == TaskKind::NCE && !is_pool_or_conv(t.op) && t.op != "eltwise")
        on.fail("one of conv, dwconv, maxpool, avgpool, eltwise");
    if (t.kind == TaskKind::SHAVE && t.op.empty()) on.fail("a kernel name");
    t.reads = read_accesses(n.field("reads"));
    t.writes = read_accesses(n.field("writes"));
    t.wait = read_ints(n.field("wait"), 0);
    t.update = read_ints(n.field("update"), 0);
    t.cycles = n.field("cycles").integer(0);
    Node p = n.has("params") ? n.field("params") : Node(nlohmann::json::object(), n.pointer() + "/params");
    if (t.kind == TaskKind::DMA) {
        p.expect_object({});
    } else if (t.kind == TaskKind::NCE) {
        t.nce = read_nce_params(p, t.op);
    } else {
        if (!p.json().is_object()) p.fail("an object");
        Node k = p.field("kernel");
        t.shave.kernel = k.string();
        if (t.shave.kernel != t.op) k.fail("the task's op \"" + t.op + "\"");
        t.shave.attrs = p.json();
        t.shave.attrs.erase("kernel");
    }
    if (n.has("source") && !n.field("source").json().is_null()) t.source = n.field("source").string();
    return t;
}

TaskList read_list(const Node& n, const std::string& name) {
    n.expect_object({"format", "version", "target", "graph", "buffers", "inputs", "outputs", "barriers", "tasks"});
    Node f = n.field("format");
    if (f.string() != task_list_format) f.fail(std::string("\"") + task_list_format + "\"");
    n.field("version").integer(task_list_version, task_list_version);
    TaskList list;
    auto target = target_from_json(n.field("target").json(), name, "/target");
    if (!target) {
        const Diagnostic& d = *target.diagnostics.begin();
        throw JsonReadError("", d.message);
    }
    list.target = *target.value;
    if (n.has("graph") && !n.field("graph").json().is_null()) list.graph = n.field("graph").string();
    Node bs = n.field("buffers");
    for (std::size_t i = 0, c = bs.size(); i < c; ++i) list.buffers.push_back(read_buffer(bs.at(i)));
    Node ins = n.field("inputs");
    for (std::size_t i = 0, c = ins.size(); i < c; ++i) list.inputs.push_back(read_entry(ins.at(i)));
    Node outs = n.field("outputs");
    for (std::size_t i = 0, c = outs.size(); i < c; ++i) list.outputs.push_back(read_entry(outs.at(i)));
    Node bars = n.field("barriers");
    for (std::size_t i = 0, c = bars.size(); i < c; ++i) {
        Node b = bars.at(i);
        b.expect_object({"id", "physical"});
        list.barriers.push_back({b.field("id").integer(0), b.field("physical").integer(0)});
    }
    Node ts = n.field("tasks");
    for (std::size_t i = 0, c = ts.size(); i < c; ++i) list.tasks.push_back(read_task(ts.at(i)));
    return list;
}

Result<TaskList> failure(const std::string& name, const std::string& message, Stage stage = Stage::vpu,
                         const char* code = "bad-task-list") {
    Result<TaskList> r;
    Diagnostic& d = r.diagnostics.error(stage, code, message);
    d.path = name;
    return r;
}

std::string access_text(const Access& a) {
    return a.buffer + "+" + std::to_string(a.offset) + dims(a.shape) + "/" + dims(a.strides);
}

}  // namespace task_list_cpp

const char* to_string(Memory m) { return m == Memory::DDR ? "DDR" : "CMX"; }

const char* to_string(DataType t) {
    switch (t) {
        case DataType::fp16: return "fp16";
        case DataType::fp32: return "fp32";
        case DataType::int8: return "int8";
        case DataType::uint8: return "uint8";
        case DataType::int32: return "int32";
    }
    return "?";
}

std::optional<DataType> data_type_from_string(std::string_view s) {
    for (DataType t : {DataType::fp16, DataType::fp32, DataType::int8, DataType::uint8, DataType::int32})
        if (s == to_string(t)) return t;
    return std::nullopt;
}

std::int64_t element_bytes(DataType t) {
    switch (t) {
        case DataType::fp16: return 2;
        case DataType::int8:
        case DataType::uint8: return 1;
        case DataType::fp32:
        case DataType::int32: return 4;
    }
    return 1;
}

const char* to_string(Role r) {
    switch (r) {
        case Role::activation: return "activation";
        case Role::weights: return "weights";
        case Role::table: return "table";
        case Role::input: return "input";
        case Role::output: return "output";
        case Role::constant: return "constant";
        case Role::spill: return "spill";
    }
    return "?";
}

std::optional<Role> role_from_string(std::string_view s) {
    for (Role r : {Role::activation, Role::weights, Role::table, Role::input, Role::output, Role::constant, Role::spill})
        if (s == to_string(r)) return r;
    return std::nullopt;
}

const char* to_string(TaskKind k) {
    switch (k) {
        case TaskKind::DMA: return "DMA";
        case TaskKind::NCE: return "NCE";
        case TaskKind::SHAVE: return "SHAVE";
    }
    return "?";
}

const char* to_string(PostOp p) {
    switch (p) {
        case PostOp::none: return "none";
        case PostOp::relu: return "relu";
        case PostOp::clamp: return "clamp";
        case PostOp::leaky_relu: return "leaky_relu";
    }
    return "?";
}

std::optional<QueueRef> parse_queue(std::string_view name) {
    auto number = [](std::string_view s, std::int64_t& out) {
        if (s.empty() || s.size() > 6 || (s.size() > 1 && s[0] == '0')) return false;
        out = 0;
        for (char c : s) {
            if (c < '0' || c > '9') return false;
            out = out * 10 + (c - '0');
        }
        return true;
    };
    QueueRef q;
    if (name.rfind("DMA", 0) == 0) {
        q.kind = TaskKind::DMA;
        if (!number(name.substr(3), q.index)) return std::nullopt;
        return q;
    }
    if (name.rfind("NCE", 0) == 0) {
        q.kind = TaskKind::NCE;
        if (!number(name.substr(3), q.cluster)) return std::nullopt;
        return q;
    }
    if (name.rfind("SHAVE", 0) == 0) {
        q.kind = TaskKind::SHAVE;
        const std::string_view rest = name.substr(5);
        const auto dot = rest.find('.');
        if (dot == std::string_view::npos || !number(rest.substr(0, dot), q.cluster) ||
            !number(rest.substr(dot + 1), q.index))
            return std::nullopt;
        return q;
    }
    return std::nullopt;
}

std::string queue_name(const QueueRef& q) {
    switch (q.kind) {
        case TaskKind::DMA: return "DMA" + std::to_string(q.index);
        case TaskKind::NCE: return "NCE" + std::to_string(q.cluster);
        case TaskKind::SHAVE: return "SHAVE" + std::to_string(q.cluster) + "." + std::to_string(q.index);
    }
    return "?";
}

Access Access::dense(std::string buffer, std::int64_t offset, std::vector<std::int64_t> shape, std::int64_t element_size) {
    Access a;
    a.buffer = std::move(buffer);
    a.offset = offset;
    a.strides.assign(shape.size(), element_size);
    for (std::size_t d = shape.size(); d-- > 1;) a.strides[d - 1] = a.strides[d] * shape[d];
    a.shape = std::move(shape);
    return a;
}

std::int64_t Access::elements() const {
    std::int64_t n = 1;
    for (std::int64_t e : shape) n *= e;
    return n;
}

std::pair<std::int64_t, std::int64_t> Access::span(std::int64_t element_size) const {
    std::int64_t lo = offset, hi = offset;
    for (std::size_t d = 0; d < shape.size(); ++d) {
        const std::int64_t reach = (shape[d] - 1) * strides[d];
        if (reach < 0) lo += reach;
        else hi += reach;
    }
    return {lo, hi + element_size};
}

const Buffer* TaskList::buffer(const std::string& id) const {
    for (const Buffer& b : buffers)
        if (b.id == id) return &b;
    return nullptr;
}

nlohmann::ordered_json params_json(const Task& t) {
    using task_list_cpp::ints;
    using task_list_cpp::num;
    using ojson = nlohmann::ordered_json;
    ojson p = ojson::object();
    if (t.kind == TaskKind::NCE) {
        const NceParams& n = t.nce;
        if (t.op == "eltwise") {
            p["eltwise"] = n.eltwise;
        } else {
            p["kernel"] = ints(n.kernel);
            p["stride"] = ints(n.stride);
            p["dilation"] = ints(n.dilation);
            p["pad"] = ints(n.pad);
        }
        p["post_op"] = to_string(n.post_op);
        if (n.post_op == PostOp::clamp) {
            p["clamp_min"] = num(n.clamp_min);
            p["clamp_max"] = num(n.clamp_max);
        }
        if (n.post_op == PostOp::leaky_relu) p["leaky_alpha"] = num(n.leaky_alpha);
        if (n.quantized) {
            ojson q = ojson::object();
            q["input_zp"] = n.input_zp;
            if (t.op != "eltwise") q["weights_zp"] = n.weights_zp;
            q["output_zp"] = n.output_zp;
            q["rounding"] = n.double_round ? "double" : "single";
            if (t.op == "eltwise") {
                ojson in = ojson::array();
                for (const InputRescale& r : n.eltwise_inputs)
                    in.push_back(ojson{{"multiplier", r.multiplier}, {"shift", r.shift}, {"zp", r.zp}});
                q["inputs"] = in;
            }
            p["quantization"] = q;
        }
    } else if (t.kind == TaskKind::SHAVE) {
        p["kernel"] = t.shave.kernel;
        for (auto it = t.shave.attrs.begin(); it != t.shave.attrs.end(); ++it) p[it.key()] = it.value();
    }
    return p;
}

namespace task_list_cpp {

ojson buffer_json(const Buffer& b) {
    ojson j = ojson::object();
    j["id"] = b.id;
    j["memory"] = to_string(b.memory);
    j["cluster"] = b.memory == Memory::CMX ? ojson(b.cluster) : ojson(nullptr);
    j["offset"] = b.offset;
    j["size"] = b.size;
    j["dtype"] = to_string(b.dtype);
    j["role"] = to_string(b.role);
    j["tensor"] = b.tensor.empty() ? ojson(nullptr) : ojson(b.tensor);
    return j;
}

ojson entry_json(const IoEntry& e) {
    ojson j = ojson::object();
    j["name"] = e.name;
    j["buffer"] = e.buffer;
    j["shape"] = ints(e.shape);
    j["layout"] = e.layout;
    j["dtype"] = to_string(e.dtype);
    return j;
}

ojson barrier_json(const Barrier& b) {
    ojson j = ojson::object();
    j["id"] = b.id;
    j["physical"] = b.physical;
    return j;
}

ojson task_json(const Task& t) {
    ojson j = ojson::object();
    j["id"] = t.id;
    j["queue"] = t.queue;
    j["kind"] = to_string(t.kind);
    j["op"] = t.op;
    ojson r = ojson::array(), w = ojson::array();
    for (const Access& a : t.reads) r.push_back(access_json(a));
    for (const Access& a : t.writes) w.push_back(access_json(a));
    j["reads"] = r;
    j["writes"] = w;
    j["wait"] = ints(t.wait);
    j["update"] = ints(t.update);
    j["cycles"] = t.cycles;
    j["params"] = params_json(t);
    j["source"] = t.source.empty() ? ojson(nullptr) : ojson(t.source);
    return j;
}

}  // namespace task_list_cpp

namespace task_list_cpp {

// The top-level fields of section 6 in their order, the arrays item by item: `out.field(key,
// value)` and `out.array(key, items, item_json)`. Both the document and its text go through it.
template <class Out>
void visit_fields(const TaskList& list, Out& out) {
    out.field("format", ojson(task_list_format));
    out.field("version", ojson(task_list_version));
    out.field("target", to_json(list.target));
    out.field("graph", ojson(list.graph));
    out.array("buffers", list.buffers, buffer_json);
    out.array("inputs", list.inputs, entry_json);
    out.array("outputs", list.outputs, entry_json);
    out.array("barriers", list.barriers, barrier_json);
    out.array("tasks", list.tasks, task_json);
}

struct DocumentOut {
    ojson j = ojson::object();
    void field(const char* key, ojson value) { j[key] = std::move(value); }
    template <class T, class F>
    void array(const char* key, const std::vector<T>& items, F item_json) {
        ojson a = ojson::array();
        for (const T& x : items) a.push_back(item_json(x));
        j[key] = std::move(a);
    }
};

// Each item of the top-level arrays on a line of its own, dumped by nlohmann as soon as it is
// built (no document of tens of thousands of tasks in memory).
struct TextOut {
    std::string text = "{\n";
    bool first = true;
    void key(const char* k) {
        text += first ? "  " : ",\n  ";
        first = false;
        text += ojson(k).dump();
        text += ": ";
    }
    void field(const char* k, const ojson& value) {
        key(k);
        text += value.dump();
    }
    template <class T, class F>
    void array(const char* k, const std::vector<T>& items, F item_json) {
        key(k);
        if (items.empty()) {
            text += ojson::array().dump();
            return;
        }
        text += "[\n";
        for (std::size_t i = 0; i < items.size(); ++i) {
            text += "    ";
            text += item_json(items[i]).dump();
            text += i + 1 < items.size() ? ",\n" : "\n";
        }
        text += "  ]";
    }
};

}  // namespace task_list_cpp

nlohmann::ordered_json to_json(const TaskList& list) {
    task_list_cpp::DocumentOut out;
    task_list_cpp::visit_fields(list, out);
    return std::move(out.j);
}

std::string to_json_text(const TaskList& list) {
    task_list_cpp::TextOut out;
    task_list_cpp::visit_fields(list, out);
    return std::move(out.text) + "\n}\n";
}

Result<TaskList> parse_task_list(const std::string& text, const std::string& name) {
    try {
        const nlohmann::json j = json_read::parse_text(text);
        Result<TaskList> r;
        r.value = task_list_cpp::read_list(json_read::Node(j, ""), name);
        return r;
    } catch (const json_read::JsonReadError& e) {
        return task_list_cpp::failure(name, e.pointer.empty() ? e.what() : std::string("field ") + e.pointer + ": " + e.what());
    }
}

Result<TaskList> read_task_list_file(const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    if (!f) return task_list_cpp::failure(path, "cannot open the task list", Stage::io, "cannot-read");
    std::ostringstream ss;
    ss << f.rdbuf();
    return parse_task_list(ss.str(), path);
}

std::string to_text(const TaskList& list) {
    using task_list_cpp::access_text;
    std::ostringstream os;
    const Target& t = list.target;
    os << "task list for graph '" << list.graph << "' on target '" << t.name << "' (" << t.clusters << " clusters, "
       << t.cmx_bytes << " bytes CMX each, " << t.dma_engines << " DMA engines, " << t.barriers << " barriers)\n";
    os << "buffers (" << list.buffers.size() << "):\n";
    for (const Buffer& b : list.buffers) {
        os << "  " << b.id << ": " << to_string(b.memory);
        if (b.memory == Memory::CMX) os << b.cluster;
        os << " [" << b.offset << ", " << b.offset + b.size << ") " << b.size << " bytes " << to_string(b.dtype) << ' '
           << to_string(b.role);
        if (!b.tensor.empty()) os << " '" << b.tensor << "'";
        os << '\n';
    }
    for (const auto* group : {&list.inputs, &list.outputs}) {
        os << (group == &list.inputs ? "inputs:\n" : "outputs:\n");
        for (const IoEntry& e : *group)
            os << "  " << e.name << ": " << e.buffer << ' ' << to_string(e.dtype) << dims(e.shape) << ' ' << e.layout << '\n';
    }
    os << "barriers (" << list.barriers.size() << "):";
    for (std::size_t i = 0; i < list.barriers.size(); ++i)
        os << (i % 16 == 0 ? "\n  " : " ") << list.barriers[i].id << "->p" << list.barriers[i].physical;
    os << '\n';
    std::map<std::string, std::vector<const Task*>> queues;
    for (const Task& task : list.tasks) queues[task.queue].push_back(&task);
    for (const auto& [q, tasks] : queues) {
        os << q << " (" << tasks.size() << (tasks.size() == 1 ? " task" : " tasks") << "):\n";
        for (const Task* task : tasks) {
            os << "  #" << task->id << ' ' << task->op;
            const nlohmann::ordered_json p = params_json(*task);
            if (!p.empty()) os << ' ' << p.dump();
            os << "  " << task->cycles << " cycles";
            if (!task->wait.empty()) os << "  wait " << dims(task->wait);
            if (!task->update.empty()) os << "  update " << dims(task->update);
            if (!task->source.empty()) os << "  # " << task->source;
            os << "\n      reads";
            for (const Access& a : task->reads) os << ' ' << access_text(a);
            os << "\n      writes";
            for (const Access& a : task->writes) os << ' ' << access_text(a);
            os << '\n';
        }
    }
    return os.str();
}

}  // namespace nnef::vpu
