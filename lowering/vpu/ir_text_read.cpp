// The VPU IR's text form, the reader (lowering/vpu/ir_text.hpp; the writer is ir_text_write.cpp).
// Strict: every field by name (json_reader.hpp), indices checked against what they index, and an
// error located by line and column (positions of the values found by a scan of the text).
#include <cmath>
#include <cstring>
#include <limits>
#include <map>

#include "lowering/tosa/json.hpp"
#include "lowering/vpu/ir_text.hpp"
#include "lowering/vpu/json_reader.hpp"

namespace nnef::vpu::ir {

namespace vpu_ir_text_read_cpp {

using json_read::JsonReadError;
using json_read::Node;
constexpr std::int64_t big = std::int64_t(1) << 50;

// Line and column (1-based) of each value of syntactically valid JSON, by JSON pointer, down to
// `max_depth` levels.
std::map<std::string, std::pair<int, int>> positions(const std::string& text, std::size_t max_depth) {
    struct Level {
        bool array;
        std::size_t index;
        std::string key;
        std::string pointer;
    };
    std::map<std::string, std::pair<int, int>> out;
    std::vector<Level> stack;
    int line = 1, col = 1;
    std::string last_string;
    bool expect_value = true;  // the next token starts a value
    const auto value_starts = [&] {
        if (!expect_value) return;
        expect_value = false;
        if (stack.size() > max_depth) return;
        std::string p;
        if (!stack.empty()) p = stack.back().pointer + "/" + (stack.back().array ? std::to_string(stack.back().index) : stack.back().key);
        out.emplace(p, std::make_pair(line, col));
    };
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (c == '"') {
            const int l0 = line, c0 = col;
            std::string s;
            std::size_t k = i + 1;
            for (; k < text.size() && text[k] != '"'; ++k) {
                if (text[k] == '\\') ++k;
                else if (stack.size() <= max_depth) s += text[k];
            }
            const bool is_key = !stack.empty() && !stack.back().array && !expect_value;
            if (is_key) {
                stack.back().key = s;
            } else {
                const int lc = line, cc = col;
                line = l0;
                col = c0;
                value_starts();
                line = lc;
                col = cc;
            }
            col += int(k - i) + 1;
            i = k;
            continue;
        }
        if (c == '{' || c == '[') {
            value_starts();
            std::string p;
            if (!stack.empty()) p = stack.back().pointer + "/" + (stack.back().array ? std::to_string(stack.back().index) : stack.back().key);
            stack.push_back({c == '[', 0, {}, p});
            expect_value = c == '[';
        } else if (c == '}' || c == ']') {
            if (!stack.empty()) stack.pop_back();
            expect_value = false;
        } else if (c == ':') {
            expect_value = true;
        } else if (c == ',') {
            if (!stack.empty() && stack.back().array) {
                ++stack.back().index;
                expect_value = true;
            }
        } else if (c != ' ' && c != '\n' && c != '\t' && c != '\r') {
            value_starts();
        }
        if (c == '\n') {
            ++line;
            col = 1;
        } else {
            ++col;
        }
    }
    return out;
}

int hex_digit(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

std::vector<std::uint8_t> bytes(const Node& n) {
    const std::string s = n.string();
    if (s.size() % 2) n.fail("hex digits in pairs (bytes)");
    std::vector<std::uint8_t> out(s.size() / 2);
    for (std::size_t i = 0; i < out.size(); ++i) {
        const int a = hex_digit(s[2 * i]), b = hex_digit(s[2 * i + 1]);
        if (a < 0 || b < 0) n.fail_message("not a hex digit at character " + std::to_string(2 * i + (a < 0 ? 0 : 1)));
        out[i] = std::uint8_t(a * 16 + b);
    }
    return out;
}

std::vector<float> floats(const Node& n) {
    const std::vector<std::uint8_t> b = bytes(n);
    if (b.size() % 4) n.fail_message("float bytes must come in fours, got " + std::to_string(b.size()) + " bytes");
    std::vector<float> out(b.size() / 4);
    for (std::size_t i = 0; i < out.size(); ++i) {
        std::uint32_t u = 0;
        for (int k = 0; k < 4; ++k) u |= std::uint32_t(b[4 * i + std::size_t(k)]) << (8 * k);
        std::memcpy(&out[i], &u, 4);
    }
    return out;
}

double number(const Node& n) {
    if (n.json().is_string()) {
        const std::string s = n.string();
        if (s == "inf") return std::numeric_limits<double>::infinity();
        if (s == "-inf") return -std::numeric_limits<double>::infinity();
        if (s == "nan") return std::numeric_limits<double>::quiet_NaN();
        n.fail("a number, \"inf\", \"-inf\" or \"nan\"");
    }
    return n.number();
}

std::int64_t integer(const Node& n) { return n.integer(-big, big); }
int index(const Node& n, std::size_t count, bool optional) {
    return int(n.integer(optional ? -1 : 0, std::int64_t(count) - 1));
}

std::vector<std::int64_t> integers(const Node& n) {
    std::vector<std::int64_t> v(n.size());
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = integer(n.at(i));
    return v;
}

template <std::size_t N>
std::array<std::int64_t, N> fixed(const Node& n) {
    if (n.size() != N) n.fail("an array of " + std::to_string(N) + " integers");
    std::array<std::int64_t, N> a{};
    for (std::size_t i = 0; i < N; ++i) a[i] = integer(n.at(i));
    return a;
}

// An enumeration by its to_string name, over the values [0, count).
template <class E>
E enumeration(const Node& n, int count) {
    const std::string s = n.string();
    std::string names;
    for (int i = 0; i < count; ++i) {
        if (s == to_string(E(i))) return E(i);
        names += std::string(i ? ", " : "") + to_string(E(i));
    }
    n.fail("one of " + names);
}

DataType dtype(const Node& n) {
    const auto d = data_type_from_string(n.string());
    if (!d) n.fail("a data type (fp16, fp32, int8, uint8, int32)");
    return *d;
}
Role role(const Node& n) {
    const auto r = role_from_string(n.string());
    if (!r) n.fail("a role (activation, weights, table, input, output, constant, spill)");
    return *r;
}

// The byte offset, shape and strides of a View or a Box.
template <class Strided>
void strided(const Node& n, Strided& b) {
    b.offset = integer(n.field("offset"));
    b.shape = integers(n.field("shape"));
    b.strides = integers(n.field("strides"));
    if (b.strides.size() != b.shape.size()) n.field("strides").fail("one stride per dimension of the shape");
}

View view(const Node& n, std::size_t tensors) {
    n.expect_object({"tensor", "offset", "shape", "strides"});
    View v;
    v.tensor = index(n.field("tensor"), tensors, true);
    strided(n, v);
    return v;
}

NceParams nce(const Node& n) {
    n.expect_object({"kernel", "stride", "dilation", "pad", "eltwise", "post_op", "clamp_min", "clamp_max", "leaky_alpha", "quantized",
                     "input_zp", "weights_zp", "output_zp", "double_round", "eltwise_inputs"});
    NceParams p;
    p.kernel = fixed<2>(n.field("kernel"));
    p.stride = fixed<2>(n.field("stride"));
    p.dilation = fixed<2>(n.field("dilation"));
    p.pad = fixed<4>(n.field("pad"));
    p.eltwise = n.field("eltwise").string();
    p.post_op = enumeration<PostOp>(n.field("post_op"), 4);
    p.clamp_min = number(n.field("clamp_min"));
    p.clamp_max = number(n.field("clamp_max"));
    p.leaky_alpha = number(n.field("leaky_alpha"));
    p.quantized = n.field("quantized").boolean();
    p.input_zp = integer(n.field("input_zp"));
    p.weights_zp = integer(n.field("weights_zp"));
    p.output_zp = integer(n.field("output_zp"));
    p.double_round = n.field("double_round").boolean();
    const Node in = n.field("eltwise_inputs");
    if (in.size() != 2) in.fail("an array of 2 rescales");
    for (std::size_t i = 0; i < 2; ++i) {
        const auto r = fixed<3>(in.at(i));
        p.eltwise_inputs[i] = {r[0], r[1], r[2]};
    }
    return p;
}

ShaveKernel shave(const Node& n) {
    n.expect_object({"name", "axis", "clamp_float", "clamp_int", "rescale", "attributes", "shape_constants", "constant"});
    ShaveKernel k;
    k.name = n.field("name").string();
    if (!n.field("axis").json().is_null()) k.axis = integer(n.field("axis"));
    if (const Node c = n.field("clamp_float"); !c.json().is_null()) {
        if (c.size() != 2) c.fail("[min, max]");
        k.clamp_float = std::array<double, 2>{number(c.at(0)), number(c.at(1))};
    }
    if (!n.field("clamp_int").json().is_null()) k.clamp_int = fixed<2>(n.field("clamp_int"));
    if (const Node r = n.field("rescale"); !r.json().is_null()) {
        r.expect_object({"multiplier", "shift", "input_zp", "output_zp", "double_round"});
        ShaveKernel::Rescale x;
        x.multiplier = integers(r.field("multiplier"));
        x.shift = integers(r.field("shift"));
        x.input_zp = integer(r.field("input_zp"));
        x.output_zp = integer(r.field("output_zp"));
        x.double_round = r.field("double_round").boolean();
        k.rescale = std::move(x);
    }
    // the TOSA attributes of the operator the kernel is named after, decoded by lowering/tosa/json.hpp
    const Node a = n.field("attributes");
    if (!a.json().is_object()) a.fail("an object");
    for (auto it = a.json().begin(); it != a.json().end(); ++it) {
        const Node v = a.field(it.key());
        const auto name = tosa::attr_name_from_string(it.key());
        const tosa::AttrSpec* spec = name ? k.attribute_spec(*name) : nullptr;
        if (!spec) v.fail_message("'" + it.key() + "' is no attribute of a TOSA operator named '" + k.name + "'");
        try {
            k.attributes.emplace_back(*name, tosa::attribute_from_json(v.json(), *spec, v.pointer()));
        } catch (const tosa::JsonError& e) {
            // "POINTER: what": the pointer is v's (or one inside it)
            const std::string m = e.what(), at = v.pointer() + ": ";
            v.fail_message(m.compare(0, at.size(), at) == 0 ? m.substr(at.size()) : m);
        }
    }
    const Node s = n.field("shape_constants");
    for (std::size_t i = 0; i < s.size(); ++i) {
        const Node p = s.at(i);
        if (p.size() != 2) p.fail("[argument, values]");
        k.shape_constants.emplace_back(p.at(0).string(), integers(p.at(1)));
    }
    if (const Node c = n.field("constant"); !c.json().is_null()) {
        c.expect_object({"input", "items"});
        ShaveKernel::Constant x;
        x.input = c.field("input").integer(0, 1);
        x.items = floats(c.field("items"));
        if (x.items.empty()) c.field("items").fail("the constant's items (float32 hex)");
        k.constant = std::move(x);
    }
    return k;
}

Layer layer(const Node& n, std::size_t i, std::size_t tensors) {
    n.expect_object({"layer", "exec", "nce_op", "source", "origin", "inputs", "output", "weights", "table", "weights_offset", "table_offset",
                     "table_rows", "nce", "shave", "weights_shape",
                     "weights_f32", "bias", "scale", "q_bias", "q_mult", "q_shift"});
    if (integer(n.field("layer")) != std::int64_t(i)) n.field("layer").fail("the layer's index " + std::to_string(i));
    Layer l;
    l.exec = enumeration<Exec>(n.field("exec"), 3);
    const auto op = nce_op_from_string(n.field("nce_op").string());
    if (!op) n.field("nce_op").fail("an NCE operation (conv, dwconv, maxpool, avgpool, eltwise)");
    l.nce_op = *op;
    l.source = n.field("source").string();
    l.origin = std::uint32_t(n.field("origin").integer(0, std::numeric_limits<std::uint32_t>::max()));
    const Node in = n.field("inputs");
    for (std::size_t k = 0; k < in.size(); ++k) l.inputs.push_back(view(in.at(k), tensors));
    l.output = view(n.field("output"), tensors);
    l.weights = index(n.field("weights"), tensors, true);
    l.table = index(n.field("table"), tensors, true);
    // byte offsets into the packed constants (absent in modules written before they were packed: 0)
    if (n.has("weights_offset")) l.weights_offset = n.field("weights_offset").integer(0, std::numeric_limits<std::int64_t>::max());
    if (n.has("table_offset")) l.table_offset = n.field("table_offset").integer(0, std::numeric_limits<std::int64_t>::max());
    if (n.has("table_rows")) l.table_rows = n.field("table_rows").integer(1, std::numeric_limits<std::int64_t>::max());
    l.nce = nce(n.field("nce"));
    l.shave = shave(n.field("shave"));
    l.weights_shape = integers(n.field("weights_shape"));
    l.weights_f32 = floats(n.field("weights_f32"));
    l.bias = floats(n.field("bias"));
    l.scale = floats(n.field("scale"));
    l.q_bias = integers(n.field("q_bias"));
    l.q_mult = integers(n.field("q_mult"));
    l.q_shift = integers(n.field("q_shift"));
    return l;
}

Box box(const Node& n, std::size_t tensors, std::size_t cmx) {
    n.expect_object({"ref", "offset", "shape", "strides"});
    Box b;
    const Node r = n.field("ref");
    const std::string s = r.string();
    std::size_t used = 0;
    long long k = -1;
    if (s.size() >= 2 && (s[0] == 't' || s[0] == 'c') && s[1] >= '0' && s[1] <= '9') {
        try {
            k = std::stoll(s.substr(1), &used);
        } catch (const std::exception&) {
            k = -1;
        }
    }
    b.ref.cmx = !s.empty() && s[0] == 'c';
    const std::size_t count = b.ref.cmx ? cmx : tensors;
    if (k < 0 || used + 1 != s.size() || std::size_t(k) >= count)
        r.fail("t<DDR tensor index below " + std::to_string(tensors) + "> or c<CMX buffer index below " + std::to_string(cmx) + ">");
    b.ref.index = int(k);
    strided(n, b);
    return b;
}

IoEntry io(const Node& n) {
    n.expect_object({"name", "buffer", "shape", "layout", "dtype"});
    IoEntry e;
    e.name = n.field("name").string();
    e.buffer = n.field("buffer").string();
    e.shape = integers(n.field("shape"));
    e.layout = n.field("layout").string();
    e.dtype = dtype(n.field("dtype"));
    return e;
}

Task task(const Node& n, std::size_t i, std::size_t tensors, std::size_t cmx) {
    n.expect_object({"task", "kind", "queue", "op", "wait", "update", "reads", "writes", "source", "nce", "shave"});
    if (integer(n.field("task")) != std::int64_t(i)) n.field("task").fail("the task's index " + std::to_string(i));
    Task t;
    t.kind = enumeration<TaskKind>(n.field("kind"), 3);
    t.queue = n.field("queue").string();
    t.op = n.field("op").string();
    t.wait = integers(n.field("wait"));
    t.update = integers(n.field("update"));
    const Node r = n.field("reads"), w = n.field("writes");
    for (std::size_t k = 0; k < r.size(); ++k) t.reads.push_back(box(r.at(k), tensors, cmx));
    for (std::size_t k = 0; k < w.size(); ++k) t.writes.push_back(box(w.at(k), tensors, cmx));
    t.source = n.field("source").string();
    t.nce = nce(n.field("nce"));
    const Node s = n.field("shave");
    s.expect_object({"kernel", "attrs"});
    t.shave.kernel = s.field("kernel").string();
    if (!s.field("attrs").json().is_object()) s.field("attrs").fail("an object");
    t.shave.attrs = s.field("attrs").json();
    return t;
}

void read_module(const Node& n, ReadModule& out, const std::string& name) {
    n.expect_object({"format", "version", "name", "promises", "int8", "target", "graph", "tensors", "inputs", "outputs", "input_tensors",
                     "output_tensors", "layers", "tiles", "cmx", "tasks", "barrier_physical", "barrier_segments", "barrier_fallback",
                     "task_list", "task_list_data"});
    if (n.field("format").string() != ir_text_format) n.field("format").fail(std::string("\"") + ir_text_format + "\"");
    if (integer(n.field("version")) != ir_text_version) n.field("version").fail("version " + std::to_string(ir_text_version));
    Module& m = out.module;
    m.name = n.field("name").string();
    const Node p = n.field("promises");
    for (std::size_t i = 0; i < p.size(); ++i) m.promise(enumeration<Promise>(p.at(i), promise_count));
    m.int8 = n.field("int8").boolean();
    {
        Result<Target> t = target_from_json(n.field("target").json(), name, "/target");
        if (!t) throw JsonReadError("/target", t.diagnostics.empty() ? "bad target" : t.diagnostics.list().front().message);
        m.target = *t;
    }
    if (const Node g = n.field("graph"); !g.json().is_null()) {
        Diagnostics d;
        auto graph = tosa::graph_from_json(g.json(), d, name);
        if (!graph || d.has_errors()) throw JsonReadError("/graph", d.empty() ? "bad TOSA graph" : d.list().front().message);
        out.graph = std::make_unique<tosa::Graph>(std::move(*graph));
        m.graph = out.graph.get();
    }
    const Node ts = n.field("tensors");
    for (std::size_t i = 0; i < ts.size(); ++i) {
        const Node x = ts.at(i);
        x.expect_object({"name", "dtype", "role", "bytes", "data"});
        Tensor t;
        t.name = x.field("name").string();
        t.dtype = dtype(x.field("dtype"));
        t.role = role(x.field("role"));
        t.bytes = x.field("bytes").integer(0, big);
        if (!x.field("data").json().is_null()) {
            t.data = std::make_shared<std::vector<std::uint8_t>>(bytes(x.field("data")));
            if (std::int64_t(t.data->size()) != t.bytes)
                x.field("data").fail_message("holds " + std::to_string(t.data->size()) + " bytes, the tensor " + std::to_string(t.bytes));
        }
        m.tensors.push_back(std::move(t));
    }
    const std::size_t tensors = m.tensors.size();
    for (const char* key : {"inputs", "outputs"}) {
        const Node e = n.field(key);
        for (std::size_t i = 0; i < e.size(); ++i) (key[0] == 'i' ? m.inputs : m.outputs).push_back(io(e.at(i)));
    }
    for (const char* key : {"input_tensors", "output_tensors"}) {
        const Node e = n.field(key);
        auto& v = key[0] == 'i' ? m.input_tensors : m.output_tensors;
        for (std::size_t i = 0; i < e.size(); ++i) v.push_back(index(e.at(i), tensors, false));
        if (v.size() != (key[0] == 'i' ? m.inputs : m.outputs).size()) e.fail_message("one tensor per entry of the inputs / outputs");
    }
    const Node ls = n.field("layers");
    for (std::size_t i = 0; i < ls.size(); ++i) m.layers.push_back(layer(ls.at(i), i, tensors));
    const Node tl = n.field("tiles");
    for (std::size_t i = 0; i < tl.size(); ++i) {
        const Node x = tl.at(i);
        x.expect_object({"layer", "cluster", "row0", "rows", "ch0", "chans", "channel_tile", "split_dim"});
        Tile t;
        t.layer = index(x.field("layer"), m.layers.size(), false);
        t.cluster = integer(x.field("cluster"));
        t.row0 = integer(x.field("row0"));
        t.rows = integer(x.field("rows"));
        t.ch0 = integer(x.field("ch0"));
        t.chans = integer(x.field("chans"));
        t.channel_tile = integer(x.field("channel_tile"));
        t.split_dim = int(x.field("split_dim").integer(-1, 16));
        m.tiles.push_back(t);
    }
    const Node cs = n.field("cmx");
    for (std::size_t i = 0; i < cs.size(); ++i) {
        const Node x = cs.at(i);
        x.expect_object({"buffer", "cluster", "offset", "size", "dtype", "role", "tensor", "first", "last", "held"});
        if (x.field("buffer").string() != "c" + std::to_string(i)) x.field("buffer").fail("\"c" + std::to_string(i) + "\"");
        CmxBuffer c;
        c.cluster = integer(x.field("cluster"));
        c.offset = integer(x.field("offset"));
        c.size = x.field("size").integer(0, big);
        c.dtype = dtype(x.field("dtype"));
        c.role = role(x.field("role"));
        c.tensor = x.field("tensor").string();
        c.first = integer(x.field("first"));
        c.last = integer(x.field("last"));
        c.held = x.field("held").boolean();
        m.cmx.push_back(std::move(c));
    }
    const Node tk = n.field("tasks");
    for (std::size_t i = 0; i < tk.size(); ++i) m.tasks.push_back(task(tk.at(i), i, tensors, m.cmx.size()));
    m.barrier_physical = integers(n.field("barrier_physical"));
    m.barrier_segments = int(n.field("barrier_segments").integer(0, 1 << 30));
    m.barrier_fallback = n.field("barrier_fallback").boolean();
    const Node list = n.field("task_list");
    if (list.json().is_null()) {
        if (m.has(Promise::emitted)) list.fail("the task list (the module carries the promise emitted)");
        if (n.has("task_list_data")) n.field("task_list_data").fail_message("a task list's data without a task list");
        return;
    }
    if (!m.has(Promise::emitted)) list.fail("null (the module does not carry the promise emitted)");
    Result<TaskList> r = parse_task_list(list.json().dump(), name);
    if (!r) throw JsonReadError("/task_list", r.diagnostics.empty() ? "bad task list" : r.diagnostics.list().front().message);
    m.list = std::move(*r);
    const Node data = n.field("task_list_data");
    for (std::size_t i = 0; i < data.size(); ++i) {
        const Node x = data.at(i);
        Buffer* b = nullptr;
        const std::string id = x.field("buffer").string();
        for (Buffer& c : m.list.buffers)
            if (c.id == id) b = &c;
        if (!b) x.field("buffer").fail("a buffer of the task list");
        if (x.has("tensor")) {
            x.expect_object({"buffer", "tensor"});
            const int t = index(x.field("tensor"), tensors, false);
            b->data = m.tensors[std::size_t(t)].data;
        } else {
            x.expect_object({"buffer", "hex"});
            b->data = std::make_shared<const std::vector<std::uint8_t>>(bytes(x.field("hex")));
        }
        if (!b->data || std::int64_t(b->data->size()) != b->size) x.fail_message("data of another size than the buffer " + id);
    }
}

}  // namespace vpu_ir_text_read_cpp

std::optional<ReadModule> read_text(const std::string& text, const std::string& name, Diagnostics& diags) {
    using namespace vpu_ir_text_read_cpp;
    try {
        // comments skipped: --print-after writes "// after PASS" before the module
        const nlohmann::json j = json_read::parse_text(text, true);
        ReadModule out;
        read_module(Node(j, ""), out, name);
        return out;
    } catch (const JsonReadError& e) {
        std::string where;
        if (!e.pointer.empty()) {
            // the innermost value whose position is known
            const auto pos = positions(text, 4);
            std::string p = e.pointer;
            for (;;) {
                const auto it = pos.find(p);
                if (it != pos.end()) {
                    where = "line " + std::to_string(it->second.first) + ", column " + std::to_string(it->second.second) + ": ";
                    break;
                }
                if (p.empty()) break;
                p = p.substr(0, p.rfind('/'));
            }
            where += "field " + e.pointer + ": ";
        }
        Diagnostic& d = diags.error(Stage::vpu, "bad-vpu-ir", where + e.what());
        d.path = name;
        return std::nullopt;
    }
}

}  // namespace nnef::vpu::ir
