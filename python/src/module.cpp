// nnef._nnef: the thin binding under the `nnef` Python package (python/nnef/). It converts between
// library types and Python objects and releases the GIL around library calls; everything Pythonic
// (defaults, argument checking, printers, shape functions) is plain Python in python/nnef/.
//
// Errors: every failure of a library call raises _nnef.Error whose text is the rendered
// diagnostics (`path:line:col: error[stage]: message`, source line, caret, notes).
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cctype>
#include <system_error>
#include <thread>
#include <cstring>
#include <map>
#include <mutex>
#include <sstream>
#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include <nnef/nnef.hpp>
#include <nnef/tensor_data.hpp>
#include <nnef/draw/picture.hpp>
#include <nnef/draw/render.hpp>

#include "exec/executor.hpp"
#include "lowering/tosa/from_nnef.hpp"
#include "lowering/tosa/mlir.hpp"
#include "lowering/tosa/validator.hpp"
#include "lowering/vpu/compiler.hpp"
#include "lowering/vpu/simulator.hpp"
#include "lowering/vpu/target.hpp"
#include "lowering/vpu/task_list.hpp"
#include "storage/tensor_file.hpp"
#include "tools/nnef-run/via_nnapi.hpp"
#include "tools/nnef-run/via_tosa.hpp"

namespace py = pybind11;

namespace nnef::python {
namespace {

struct Failure {
    std::string text;
};

// The Python classes the package defines (python/nnef/_types.py), handed over once at import.
struct Types {
    py::object identifier, tensor, operation, graph, ordered_dict;
};
Types& types() {
    static Types* t = new Types();  // never destroyed: outlives the interpreter's module teardown
    return *t;
}

// numpy, imported once (never released: a static py::object would be destroyed after the interpreter).
const py::object& numpy() {
    static py::object* np = new py::object(py::module_::import("numpy"));
    return *np;
}

std::string render_all(const Diagnostics& diags, const SourceManager& sm, bool errors_only = false) {
    std::string out;
    for (const Diagnostic& d : diags) {
        if (errors_only && d.severity != Severity::error) continue;
        out += render(d, sm);
    }
    if (diags.limit_reached())
        out += "note: stopped after " + std::to_string(diags.max_errors()) + " errors (limit max_errors)\n";
    while (!out.empty() && out.back() == '\n') out.pop_back();
    return out;
}

[[noreturn]] void fail(const Diagnostics& diags, const SourceManager& sm) {
    std::string text = render_all(diags, sm);
    if (text.empty()) text = "error: the operation failed without a diagnostic";
    throw Failure{text};
}
[[noreturn]] void fail(const Diagnostics& diags) { fail(diags, SourceManager{}); }

// ---- options -------------------------------------------------------------------------------

// Resource limits and front-end options from a dict of keyword arguments (python/nnef/_options.py
// checks the names).
FlattenOptions flatten_options(const py::dict& o) {
    FlattenOptions f;
    Limits& l = f.options.limits;
    for (auto [k, v] : o) {
        const std::string key = py::str(k);
        if (v.is_none()) continue;
        auto u = [&] { return v.cast<std::uint64_t>(); };
        if (key == "max_errors") l.max_errors = u();
        else if (key == "max_nesting") l.max_nesting = u();
        else if (key == "max_recursion") l.max_recursion = u();
        else if (key == "max_operations") l.max_operations = u();
        else if (key == "max_expansions") l.max_expansions = u();
        else if (key == "max_value_items") l.max_value_items = u();
        else if (key == "max_work") l.max_work = u();
        else if (key == "max_string_length") l.max_string_length = u();
        else if (key == "max_rank") l.max_rank = u();
        else if (key == "max_volume") l.max_volume = u();
        else if (key == "max_archive_members") f.max_archive_members = u();
        else if (key == "max_archive_bytes") f.max_archive_bytes = u();
        else if (key == "strict") f.options.strict = v.cast<bool>();
        else if (key == "load_weights") f.load_weights = v.cast<bool>();
        else if (key == "expand_all") f.expand_all = v.cast<bool>();
        else if (key == "expand") f.expand = v.cast<std::vector<std::string>>();
        else if (key == "input_shapes") f.input_shapes = v.cast<std::map<std::string, Shape>>();
        else throw py::value_error("unknown option '" + key + "'");
    }
    return f;
}

// ---- values and graphs ---------------------------------------------------------------------

class Converter {
public:
    py::object value(const Value& v) {
        switch (v.kind()) {
            case Value::Kind::none: return py::none();
            case Value::Kind::integer: return py::int_(v.as_integer());
            case Value::Kind::scalar: return py::float_(v.as_scalar());
            case Value::Kind::logical: return py::bool_(v.as_logical());
            case Value::Kind::string: return py::str(v.as_string());
            case Value::Kind::identifier: return identifier(v.as_identifier());
            case Value::Kind::array: {
                py::list l(v.size());
                for (std::size_t i = 0; i < v.size(); ++i) l[i] = value(v[i]);
                return std::move(l);
            }
            case Value::Kind::tuple: {
                py::tuple t(v.size());
                for (std::size_t i = 0; i < v.size(); ++i) t[i] = value(v[i]);
                return std::move(t);
            }
        }
        return py::none();
    }

    py::object identifier(const std::string& name) {
        auto it = ids_.find(name);
        if (it != ids_.end()) return it->second;
        py::object id = types().identifier(name);
        ids_.emplace(name, id);
        return id;
    }

    // An OrderedDict of the list, filled item by item (no list of pairs in between); the keys are
    // made once per converter (a graph repeats a few parameter names; a key made before also
    // carries its hash).
    py::object named(const NamedValues& list) {
        py::object d = types().ordered_dict();
        for (const auto& [name, v] : list)
            if (PyObject_SetItem(d.ptr(), text(name).ptr(), value(v).ptr()) != 0) throw py::error_already_set();
        return d;
    }

    // A str for a name that recurs (parameter and operation names, dtypes), made once.
    const py::object& text(const std::string& s) {
        auto it = texts_.find(s);
        if (it == texts_.end()) it = texts_.emplace(s, py::str(s)).first;
        return it->second;
    }

private:
    std::unordered_map<std::string, py::object> ids_;
    std::unordered_map<std::string, py::object> texts_;
};

// An instance of namedtuple class `cls` with these items, made by tuple's own constructor (the
// class's __new__ is a Python function; a graph has hundreds of thousands of them).
template <class... Items>
py::object make_named(const py::object& cls, Items&&... items) {
    py::tuple args = py::make_tuple(py::make_tuple(std::forward<Items>(items)...));
    PyObject* r = PyTuple_Type.tp_new(reinterpret_cast<PyTypeObject*>(cls.ptr()), args.ptr(), nullptr);
    if (!r) throw py::error_already_set();
    return py::reinterpret_steal<py::object>(r);
}

// Cyclic garbage collection paused while a graph's objects are made: none of them forms a cycle,
// and the collector would otherwise walk the growing graph again and again (a third of the time
// of a large graph).
class GcPause {
public:
    GcPause() : was_(PyGC_Disable() != 0) {}
    ~GcPause() {
        if (was_) PyGC_Enable();
    }

private:
    bool was_;
};

const char* dtype_name(PrimType p) {
    switch (p) {
        case PrimType::integer: return "integer";
        case PrimType::scalar: return "scalar";
        case PrimType::logical: return "logical";
        default: return nullptr;
    }
}

// ---- tensor data as numpy ------------------------------------------------------------------

using DataPtr = std::shared_ptr<const TensorData>;

// A read-only numpy array over the stored bytes (kept alive by the array's base), or a decoded
// copy where the encoding has no numpy form (1-bit and 8-bit logicals, odd widths, quantized
// encodings); opaque vendor data: its bytes as uint8.
py::array tensor_array(const DataPtr& data) {
    const TensorData& t = *data;
    std::vector<py::ssize_t> shape(t.shape.begin(), t.shape.end());
    auto view = [&](const char* fmt) {
        py::dtype dt(fmt);
        auto* keep = new DataPtr(data);
        py::capsule base(keep, [](void* p) { delete static_cast<DataPtr*>(p); });
        py::array a(dt, shape, {}, t.bytes.data(), base);
        py::detail::array_proxy(a.ptr())->flags &= ~py::detail::npy_api::NPY_ARRAY_WRITEABLE_;
        return a;
    };
    const bool aligned = t.bits == 8 || t.bits == 16 || t.bits == 32 || t.bits == 64;
    switch (t.kind) {
        case ElementKind::float16: return view("<f2");
        case ElementKind::float32: return view("<f4");
        case ElementKind::float64: return view("<f8");
        case ElementKind::signed_int:
        case ElementKind::quantized_signed:
            if (aligned) return view(t.bits == 8 ? "i1" : t.bits == 16 ? "<i2" : t.bits == 32 ? "<i4" : "<i8");
            break;
        case ElementKind::unsigned_int:
        case ElementKind::quantized_unsigned:
            if (aligned) return view(t.bits == 8 ? "u1" : t.bits == 16 ? "<u2" : t.bits == 32 ? "<u4" : "<u8");
            break;
        case ElementKind::logical: {
            py::array_t<bool> a(shape);
            bool* d = a.mutable_data();
            for (std::uint64_t i = 0; i < t.count; ++i) d[i] = t.raw(i) != 0;
            return std::move(a);
        }
        case ElementKind::linear_quantized:
        case ElementKind::log_quantized: {
            py::array_t<float> a(shape);
            float* d = a.mutable_data();
            for (std::uint64_t i = 0; i < t.count; ++i) d[i] = static_cast<float>(t.as_double(i));
            return std::move(a);
        }
        case ElementKind::opaque: {
            auto* keep = new DataPtr(data);
            py::capsule base(keep, [](void* p) { delete static_cast<DataPtr*>(p); });
            py::array a(py::dtype("u1"), {static_cast<py::ssize_t>(t.bytes.size())}, {}, t.bytes.data(), base);
            py::detail::array_proxy(a.ptr())->flags &= ~py::detail::npy_api::NPY_ARRAY_WRITEABLE_;
            return a;
        }
    }
    // Integer codes of other widths: decoded.
    if (t.is_signed) {
        py::array_t<std::int64_t> a(shape);
        std::int64_t* d = a.mutable_data();
        for (std::uint64_t i = 0; i < t.count; ++i) d[i] = t.as_int64(i);
        return std::move(a);
    }
    py::array_t<std::uint64_t> a(shape);
    std::uint64_t* d = a.mutable_data();
    for (std::uint64_t i = 0; i < t.count; ++i) d[i] = t.raw(i);
    return std::move(a);
}

py::dict header_info(const TensorData& t) {
    py::dict h;
    h["version"] = py::make_tuple(t.header.version_major, t.header.version_minor);
    h["item_type"] = t.header.item_type();
    h["bits"] = t.header.bits;
    h["data_length"] = t.header.data_length;
    h["kind"] = to_string(t.kind);
    h["quantized"] = t.kind == ElementKind::quantized_signed || t.kind == ElementKind::quantized_unsigned;
    h["params"] = std::vector<std::uint32_t>(t.header.params.begin(), t.header.params.end());
    h["shape"] = t.shape;
    return h;
}

// The Python form of a graph.quant entry: {'op-name': algorithm, argument: value, ...}, the
// tensor parameters (min, max, scale, zero_point) as numpy arrays as NNEF-Tools gives them.
py::dict quantization_dict(const Quantization& q, Converter& c) {
    py::dict d;
    d["op-name"] = q.algorithm;
    const py::object& np = numpy();
    for (const auto& [name, v] : q.arguments) {
        py::object o = c.value(v);
        if (name == "min" || name == "max" || name == "scale")
            o = np.attr("asarray")(o, py::arg("dtype") = np.attr("float32"));
        else if (name == "zero_point")
            o = np.attr("asarray")(o, py::arg("dtype") = np.attr("int32"));
        d[py::str(name)] = o;
    }
    return d;
}

// graph.tensors: {name: Tensor} in the graph's order.
py::dict tensors_object(const Graph& g) {
    GcPause pause;
    Converter c;
    const Types& ty = types();
    py::dict tensors;
    for (const Tensor& t : g.tensors) {
        py::object shape = py::none();
        if (t.shape) shape = py::cast(*t.shape);
        py::object data = t.data ? py::object(tensor_array(t.data)) : py::object(py::none());
        py::dict quant = t.quantization ? quantization_dict(*t.quantization, c) : py::dict();
        const char* dt = dtype_name(t.dtype);
        py::str name(t.name);
        tensors[name] = make_named(ty.tensor, name, dt ? c.text(dt) : py::object(py::none()), shape, data, quant);
    }
    return tensors;
}

// graph.operations: [Operation] in topological order.
py::list operations_object(const Graph& g) {
    GcPause pause;
    Converter c;
    const Types& ty = types();
    py::list ops(g.operations.size());
    for (std::size_t i = 0; i < g.operations.size(); ++i) {
        const Operation& op = g.operations[i];
        const char* dt = dtype_name(op.dtype);
        ops[i] = make_named(ty.operation, c.text(op.name), c.named(op.attribs), c.named(op.inputs),
                            c.named(op.outputs), dt ? c.text(dt) : py::object(py::none()));
    }
    return ops;
}

// ---- loading -------------------------------------------------------------------------------

struct Loaded {
    std::unique_ptr<Session> session;
    bool ok = false;
};

// Loads a model path (text = false) or a document (text = true, with an optional graph.quant text).
Loaded load(const std::string& source, bool text, const std::string& name, const std::optional<std::string>& quant,
            const std::string& quant_name, const FlattenOptions& f) {
    Loaded l;
    l.session = std::make_unique<Session>(f);
    py::gil_scoped_release release;
    if (!text) l.ok = l.session->load_path(source);
    else if (quant) l.ok = l.session->load_text(name, source, quant_name, *quant);
    else l.ok = l.session->load_text(name, source);
    return l;
}

// Frees a session on a thread of its own when its graph is large: a large graph's C++ objects need
// not delay the caller (for a small one, starting a thread costs more than freeing it here). The
// thread touches no Python object.
void dispose(std::unique_ptr<Session> session) {
    if (!session) return;
    const Graph* g = session->graph();
    if (!g || g->tensors.size() + g->operations.size() < 10000) return;
    try {
        std::thread([s = std::move(session)]() mutable { s.reset(); }).detach();
    } catch (const std::system_error&) {
        // no thread available: freed here when `session` goes
    }
}

// A loaded graph whose Python objects are made when first asked for (python/nnef/_graph.py): the
// tensors and the operations each at once, from the C++ graph this keeps. A 100k-operation graph
// makes some 500k Python objects (about 170 MiB) that a caller who only infers its shapes, or
// reads its tensors, never needs all of. Once the package has both, it releases the C++ graph.
class LoadedGraph {
public:
    explicit LoadedGraph(std::unique_ptr<Session> s) : session_(std::move(s)) {}
    ~LoadedGraph() { dispose(std::move(session_)); }
    LoadedGraph(const LoadedGraph&) = delete;
    LoadedGraph& operator=(const LoadedGraph&) = delete;

    std::string name() const { return graph().name; }
    std::vector<std::string> inputs() const { return graph().inputs; }
    std::vector<std::string> outputs() const { return graph().outputs; }
    py::dict tensors() const { return tensors_object(graph()); }
    py::list operations() const { return operations_object(graph()); }
    std::size_t operation_count() const { return graph().operations.size(); }

    // The operations' names, each once, in order of first use.
    std::vector<std::string> operation_names() const {
        std::vector<std::string> names;
        std::unordered_map<std::string_view, bool> seen;
        for (const Operation& op : graph().operations)
            if (seen.emplace(op.name, true).second) names.push_back(op.name);
        return names;
    }

    // A tensor's shape (None: unknown); KeyError for a name the graph does not have.
    py::object shape(const std::string& name) const {
        const Tensor* t = graph().tensor(name);
        if (!t) throw py::key_error(name);
        return t->shape ? py::object(py::cast(*t->shape)) : py::object(py::none());
    }

    bool released() const { return !session_; }
    void release() { dispose(std::move(session_)); }

private:
    const Graph& graph() const {
        if (!session_) throw std::logic_error("the loaded graph was released");
        return *session_->graph();
    }
    std::unique_ptr<Session> session_;
};

py::tuple load_graph(const std::string& source, bool text, const std::string& name,
                     const std::optional<std::string>& quant, const std::string& quant_name, const py::dict& options) {
    const FlattenOptions f = flatten_options(options);
    Loaded l = load(source, text, name, quant, quant_name, f);
    if (!l.ok || !l.session->graph()) fail(l.session->diagnostics(), l.session->sources());
    std::string warnings = render_all(l.session->diagnostics(), l.session->sources());
    py::object custom = py::cast(l.session->custom_operations());
    return py::make_tuple(py::cast(std::make_unique<LoadedGraph>(std::move(l.session))), warnings, custom);
}

// validate(): every diagnostic as JSON text (the package parses it), plus counts.
py::tuple validate(const std::string& source, bool text, const std::string& name, const py::dict& options) {
    FlattenOptions f = flatten_options(options);
    f.keep_operations = false;
    f.weights_optional = true;  // as nnef-validate: a model stored graph-only is checked without values
    Loaded l = load(source, text, name, std::nullopt, "", f);
    std::vector<std::string> json, rendered;
    for (const Diagnostic& d : l.session->diagnostics()) {
        json.push_back(render_json(d, l.session->sources()));
        rendered.push_back(render(d, l.session->sources()));
    }
    const Graph* g = l.session->graph();
    py::dict summary;
    if (g && l.ok) {
        summary["name"] = g->name;
        summary["operations"] = l.session->operation_count();
        summary["tensors"] = g->tensors.size();
        summary["inputs"] = g->inputs;
        summary["outputs"] = g->outputs;
        summary["weights"] = l.session->weights().summary();
    }
    return py::make_tuple(l.ok, json, rendered, summary, l.session->diagnostics().limit_reached());
}

// ---- tensor files --------------------------------------------------------------------------

Limits tensor_limits(const py::dict& options) { return flatten_options(options).options.limits; }

py::tuple read_tensor_path(const std::string& path, bool mmap, const py::dict& options) {
    const Limits limits = tensor_limits(options);
    Result<storage::TensorDataPtr> r;
    {
        py::gil_scoped_release release;
        storage::ReadOptions ro;
        ro.allow_mmap = mmap;
        r = storage::read_tensor_file(path, limits, ro);
    }
    if (!r) fail(r.diagnostics);
    return py::make_tuple(tensor_array(*r.value), header_info(**r.value), py::capsule(new DataPtr(*r.value), [](void* p) {
                              delete static_cast<DataPtr*>(p);
                          }));
}

py::tuple read_tensor_bytes(const py::bytes& bytes, const std::string& name, const py::dict& options) {
    const Limits limits = tensor_limits(options);
    std::string_view sv = bytes;
    auto owned = std::make_shared<const std::string>(sv);
    Result<storage::TensorDataPtr> r;
    {
        py::gil_scoped_release release;
        r = storage::read_tensor_bytes(owned, name, limits);
    }
    if (!r) fail(r.diagnostics);
    return py::make_tuple(tensor_array(*r.value), header_info(**r.value), py::capsule(new DataPtr(*r.value), [](void* p) {
                              delete static_cast<DataPtr*>(p);
                          }));
}

// The file image of a tensor read before (the capsule of read_tensor_*): byte for byte.
py::bytes encode_read(const py::capsule& c) {
    const DataPtr& d = *static_cast<DataPtr*>(c.get_pointer());
    Result<std::vector<std::uint8_t>> r = storage::encode_tensor(*d);
    if (!r) fail(r.diagnostics);
    return py::bytes(reinterpret_cast<const char*>(r.value->data()), r.value->size());
}

TensorHeader make_header(std::pair<int, int> version, const std::vector<std::int64_t>& shape, std::uint32_t item_type,
                         unsigned bits, const std::vector<std::uint32_t>& params, std::size_t data_length) {
    TensorHeader h;
    if (version.first < 0 || version.first > 255 || version.second < 0 || version.second > 255)
        throw py::value_error("version numbers must be in 0..255");
    if (shape.size() > TensorHeader::max_rank)
        throw py::value_error("tensor rank exceeds maximum possible value of 8");
    if (params.size() > 8) throw py::value_error("at most 8 parameter words");
    h.version_major = static_cast<std::uint8_t>(version.first);
    h.version_minor = static_cast<std::uint8_t>(version.second);
    h.rank = static_cast<std::uint32_t>(shape.size());
    for (std::size_t i = 0; i < shape.size(); ++i) {
        if (shape[i] < 0 || shape[i] > 0xFFFFFFFFll) throw py::value_error("extent out of range of a tensor file");
        h.extents[i] = static_cast<std::uint32_t>(shape[i]);
    }
    h.bits = bits;
    h.algorithm = static_cast<std::uint16_t>(item_type & 0xFFFF);
    h.vendor = static_cast<std::uint16_t>(item_type >> 16);
    for (std::size_t i = 0; i < params.size(); ++i) h.params[i] = params[i];
    if (data_length > 0xFFFFFFFFull) throw py::value_error("tensor data longer than a tensor file can hold (4 GiB)");
    h.data_length = static_cast<std::uint32_t>(data_length);
    return h;
}

// Header + the given data bytes, validated as a reader would.
py::bytes encode_tensor(std::pair<int, int> version, const std::vector<std::int64_t>& shape, std::uint32_t item_type,
                        unsigned bits, const std::vector<std::uint32_t>& params, const py::bytes& data) {
    std::string_view sv = data;
    TensorData t;
    t.header = make_header(version, shape, item_type, bits, params, sv.size());
    t.bytes = ByteView(std::vector<std::uint8_t>(sv.begin(), sv.end()));
    t.derive();
    Result<std::vector<std::uint8_t>> r = storage::encode_tensor(t);
    if (!r) fail(r.diagnostics);
    return py::bytes(reinterpret_cast<const char*>(r.value->data()), r.value->size());
}

// Header + items given as raw codes (any width; packed as the file stores them).
py::bytes encode_codes(std::pair<int, int> version, const std::vector<std::int64_t>& shape, std::uint32_t item_type,
                       unsigned bits, const std::vector<std::uint32_t>& params,
                       py::array_t<std::uint64_t, py::array::c_style | py::array::forcecast> codes) {
    std::array<std::uint32_t, 8> p{};
    for (std::size_t i = 0; i < params.size() && i < 8; ++i) p[i] = params[i];
    std::vector<std::uint64_t> c(codes.data(), codes.data() + codes.size());
    Result<storage::TensorDataPtr> t = storage::make_tensor(shape, item_type, bits, p, c);
    if (!t) fail(t.diagnostics);
    TensorData copy = **t.value;
    copy.header.version_major = static_cast<std::uint8_t>(version.first);
    copy.header.version_minor = static_cast<std::uint8_t>(version.second);
    Result<std::vector<std::uint8_t>> r = storage::encode_tensor(copy);
    if (!r) fail(r.diagnostics);
    return py::bytes(reinterpret_cast<const char*>(r.value->data()), r.value->size());
}

// ---- running -------------------------------------------------------------------------------

py::array to_numpy(const exec::TensorValue& v) {
    std::vector<py::ssize_t> shape(v.shape().begin(), v.shape().end());
    auto* keep = new exec::TensorValue(v);
    py::capsule base(keep, [](void* p) { delete static_cast<exec::TensorValue*>(p); });
    const char* fmt = v.dtype() == PrimType::integer ? "<i8" : v.dtype() == PrimType::logical ? "?" : "<f4";
    if (v.shape().empty() || exec::volume_of(v.shape()) == 0 || v.empty()) {
        py::array a(py::dtype(fmt), shape);
        if (!v.empty() && exec::volume_of(v.shape()) > 0) std::memcpy(a.mutable_data(), v.raw(), exec::item_size(v.dtype()));
        return a;
    }
    py::array a(py::dtype(fmt), shape, {}, v.raw(), base);
    py::detail::array_proxy(a.ptr())->flags &= ~py::detail::npy_api::NPY_ARRAY_WRITEABLE_;
    return a;
}

exec::TensorValue from_numpy(const py::array& a, const Tensor& t) {
    const py::object& np = numpy();
    const char* want = t.dtype == PrimType::integer ? "int64" : t.dtype == PrimType::logical ? "bool" : "float32";
    py::array c = np.attr("ascontiguousarray")(a, py::arg("dtype") = np.attr(want));
    Shape shape(c.shape(), c.shape() + c.ndim());
    exec::TensorValue v(t.dtype == PrimType::none ? PrimType::scalar : t.dtype, shape);
    if (exec::volume_of(shape) > 0) std::memcpy(v.raw(), c.data(), c.nbytes());
    return v;
}

// profile= and bias_grid= of to_tosa, to_vpu and run(via='tosa'), as the tools' --profile and
// --bias-grid (tools/common/cli.hpp): None is the rule (tosa::default_profile; `quantization` false:
// run without graph.quant) and the fine bias grid.
void choose_lowering(tosa::LowerOptions& lo, const Graph& g, bool quantization, const std::optional<std::string>& profile,
                     const std::optional<std::string>& bias_grid) {
    if (profile) {
        const std::optional<tosa::Profile> p = tosa::profile_named(*profile);
        if (!p) throw py::value_error("profile must be 'pro-fp' or 'pro-int' (or None: pro-int for a quantized model), not '" + *profile + "'");
        lo.profile = *p;
    } else {
        lo.profile = tosa::default_profile(g, quantization);
    }
    if (bias_grid) {
        const std::optional<bool> b = tosa::bias_on_accumulator_grid_named(*bias_grid);
        if (!b) throw py::value_error("bias_grid must be 'fine' or 'accumulator' (or None: fine), not '" + *bias_grid + "'");
        if (profile && lo.profile == tosa::Profile::pro_fp)
            throw py::value_error("bias_grid says how PRO-INT adds a convolution's bias; it does not combine with profile='pro-fp'");
        lo.bias_on_accumulator_grid = *b;
    }
}

// A loaded model ready to run, cycle after cycle (the package's Session and run()).
class Runner {
public:
    Runner(const std::string& path, const std::string& via, const py::dict& options, const py::dict& exec_options) {
        std::optional<std::string> profile, bias_grid;
        FlattenOptions f = flatten_options(options);
        for (const std::string& n : exec::compounds_without_kernel()) f.expand.push_back(n);
        exec::ExecOptions eo;
        for (auto [k, v] : exec_options) {
            const std::string key = py::str(k);
            if (v.is_none()) continue;
            if (key == "threads") eo.threads = v.cast<unsigned>();
            else if (key == "random_weights") eo.random_weights = v.cast<std::uint64_t>();
            else if (key == "simulate_quantization") eo.simulate_quantization = v.cast<bool>();
            else if (key == "quant_like") {
                if (v.cast<std::string>() == "nnef-tools") {
                    eo.quant_mode = exec::ExecOptions::QuantMode::nnef_tools;
                    eo.exact_sums = true;
                } else if (v.cast<std::string>() != "spec") {
                    throw py::value_error("quant_like must be 'spec' or 'nnef-tools'");
                }
            } else if (key == "keep") {
                for (auto n : v) eo.keep.insert(py::str(n));
            } else if (key == "keep_all") eo.keep_all = v.cast<bool>();
            else if (key == "profile") profile = v.cast<std::string>();
            else if (key == "bias_grid") bias_grid = v.cast<std::string>();
            else throw py::value_error("unknown run option '" + key + "'");
        }
        if ((profile || bias_grid) && via != "tosa") throw py::value_error("profile and bias_grid say how via='tosa' lowers the model");
        if (profile == std::string("pro-int") && !eo.simulate_quantization)
            throw py::value_error("profile='pro-int' computes on the graph.quant grids; it does not combine with quantization=False");
        if (eo.random_weights) f.load_weights = false;
        Loaded l = load(path, false, path, std::nullopt, "", f);
        session_ = std::move(l.session);
        if (!l.ok || !session_->graph()) fail(session_->diagnostics(), session_->sources());
        const Graph& g = *session_->graph();
        Diagnostics d;
        tosa::LowerOptions lo;
        if (via == "tosa") choose_lowering(lo, g, eo.simulate_quantization, profile, bias_grid);
        {
            py::gil_scoped_release release;
            if (via == "tosa") {
                engine_ = run_engine::make_tosa_engine(g, eo, d, lo);
            } else if (via == "nnapi") {
                engine_ = run_engine::make_nnapi_engine(g, eo, d);
            } else if (via == "nnef") {
                auto created = exec::Executor::create(g, eo);
                d = created.diagnostics;
                if (created.value)
                    engine_ = std::make_unique<run_engine::ExecutorEngine<exec::Executor, exec::TensorValue>>(
                        std::move(*created.value));
            }
        }
        if (via != "tosa" && via != "nnef" && via != "nnapi")
            throw py::value_error("via must be 'nnef', 'tosa' or 'nnapi', not '" + via + "'");
        if (!engine_ || d.has_errors()) fail(d, session_->sources());
    }

    std::vector<std::string> inputs() const { return session_->graph()->inputs; }
    std::vector<std::string> outputs() const { return session_->graph()->outputs; }

    // Feeds the inputs, runs one cycle, and returns the outputs (and kept tensors) by name.
    py::dict run(const py::dict& values, const std::vector<std::string>& wanted) {
        // One run at a time (the engine keeps state between cycles); the lock is taken without the
        // GIL, so that a thread waiting for it does not block the one that holds it.
        std::unique_lock<std::mutex> lock(mutex_, std::defer_lock);
        {
            py::gil_scoped_release release;
            lock.lock();
        }
        const Graph& g = *session_->graph();
        Diagnostics d;
        for (auto [k, v] : values) {
            const std::string name = py::str(k);
            const Tensor* t = g.tensor(name);
            if (!t || std::find(g.inputs.begin(), g.inputs.end(), name) == g.inputs.end())
                throw Failure{"error: graph '" + g.name + "' has no input '" + name + "'"};
            exec::TensorValue tv = from_numpy(py::array::ensure(v), *t);
            if (!engine_->set_input(name, tv, d)) fail(d, session_->sources());
        }
        bool ok;
        {
            py::gil_scoped_release release;
            ok = engine_->run(d);
        }
        if (!ok) fail(d, session_->sources());
        py::dict out;
        for (const std::string& n : wanted) {
            const exec::TensorValue* v = engine_->tensor(n);
            if (!v) v = engine_->variable(n);
            if (!v) throw Failure{"error: tensor '" + n + "' was not kept by the run (pass it in keep=)"};
            out[py::str(n)] = to_numpy(*v);
        }
        return out;
    }

private:
    std::unique_ptr<Session> session_;
    std::unique_ptr<run_engine::Engine<exec::TensorValue>> engine_;
    std::mutex mutex_;
};

// ---- lowering ------------------------------------------------------------------------------

std::optional<tosa::Graph> lower(const Session& session, const std::optional<std::string>& profile, const std::optional<std::string>& bias_grid,
                                 const std::string& level, std::optional<std::uint64_t> random_weights, Diagnostics& diags,
                                 tosa::LowerOptions& lo) {
    choose_lowering(lo, *session.graph(), true, profile, bias_grid);
    if (level == "8k") lo.level = tosa::Level::eight_k();
    else if (level == "none") lo.level = tosa::Level::none();
    else throw py::value_error("level must be '8k' or 'none', not '" + level + "'");
    lo.random_weights = random_weights;
    py::gil_scoped_release release;
    return tosa::lower_to_tosa(*session.graph(), lo, diags);
}

std::unique_ptr<Session> load_model(const std::string& path, const py::dict& options, bool random) {
    FlattenOptions f = flatten_options(options);
    if (random) f.load_weights = false;
    Loaded l = load(path, false, path, std::nullopt, "", f);
    if (!l.ok || !l.session->graph()) fail(l.session->diagnostics(), l.session->sources());
    return std::move(l.session);
}

std::string to_tosa(const std::string& path, const std::optional<std::string>& profile, const std::optional<std::string>& bias_grid,
                    const std::string& level, std::optional<std::uint64_t> random_weights, bool no_weights, const py::dict& options) {
    if (no_weights && !random_weights) random_weights = 0;
    std::unique_ptr<Session> s = load_model(path, options, random_weights.has_value());
    Diagnostics diags;
    tosa::LowerOptions lo;
    std::optional<tosa::Graph> g = lower(*s, profile, bias_grid, level, random_weights, diags, lo);
    if (g && !diags.has_errors()) {
        tosa::ValidateOptions vo;
        vo.profile = lo.profile;
        vo.level = lo.level;
        vo.extensions = tosa::validation_extensions(*g);  // as nnef-to-tosa validates
        tosa::validate(*g, vo, diags);
    }
    if (!g || diags.has_errors()) fail(diags, s->sources());
    tosa::MlirOptions mo;
    mo.level = lo.level;
    mo.elide_weights = no_weights;
    mo.sources = &s->sources();
    py::gil_scoped_release release;
    std::ostringstream os;
    tosa::write_mlir(os, *g, mo);
    return os.str();
}

py::tuple to_vpu(const std::string& path, const std::optional<std::string>& profile, const std::optional<std::string>& bias_grid,
                 const std::optional<std::string>& target_file,
                 std::optional<std::uint64_t> random_weights, bool simulate, const py::dict& options) {
    std::unique_ptr<Session> s = load_model(path, options, random_weights.has_value());
    vpu::Target target;
    if (target_file) {
        Result<vpu::Target> t = vpu::read_target_file(*target_file);
        if (!t) fail(t.diagnostics);
        target = *t.value;
    }
    Diagnostics diags(0);
    tosa::LowerOptions lo;
    std::optional<tosa::Graph> g = lower(*s, profile, bias_grid, "8k", random_weights, diags, lo);
    if (!g) fail(diags, s->sources());
    std::optional<vpu::TaskList> list;
    {
        py::gil_scoped_release release;
        list = vpu::compile(*g, target, vpu::CompileOptions{}, diags);
    }
    if (!list) fail(diags, s->sources());
    std::string json = vpu::to_json_text(*list);
    if (!simulate) return py::make_tuple(json, py::none());
    vpu::SimulateOptions so;
    Diagnostics sd(0);
    vpu::SimulationResult r;
    {
        py::gil_scoped_release release;
        r = vpu::simulate(*list, list->target, so, sd);
    }
    py::dict report;
    report["valid"] = r.valid;
    report["violations"] = r.violations;
    report["diagnostics"] = render_all(sd, s->sources());
    report["makespan_cycles"] = r.makespan;
    report["makespan_us"] = r.makespan_us;
    report["lower_bound_cycles"] = r.bound.value();
    py::dict queues;
    for (const vpu::QueueStats& q : r.queues) queues[py::str(q.name)] = py::make_tuple(q.tasks, q.busy, q.share);
    report["queues"] = queues;
    report["ddr_bytes"] = r.ddr.total();
    report["text"] = r.valid ? vpu::report_text(*list, list->target, r) : std::string();
    return py::make_tuple(json, report);
}

// draw(): the picture of a model as nnef-draw draws it (tools/draw), also of an invalid model (as
// far as it got, the first error marked): (the picture's bytes, ok, the diagnostics' text). A model
// that cannot be read, or a picture that cannot be drawn, raises.
py::tuple draw(const std::string& path, const std::string& format, std::size_t depth, const std::vector<std::string>& expand,
               bool expand_all, bool shapes, const py::dict& options) {
    FlattenOptions f = flatten_options(options);
    f.weights_optional = true;
    f.keep_partial = true;
    f.expand_all = expand_all;
    f.expand = expand;
    Loaded l = load(path, false, path, std::nullopt, "", f);
    for (const Diagnostic& d : l.session->diagnostics())
        if (d.severity == Severity::error && d.stage == Stage::io) fail(l.session->diagnostics(), l.session->sources());
    draw::PictureOptions po;
    po.depth = depth;
    po.expand.insert(expand.begin(), expand.end());
    po.expand_all = expand_all;
    draw::DotOptions dot;
    dot.shapes = shapes;
    std::string out, error;
    bool drawn = false;
    {
        py::gil_scoped_release release;
        drawn = draw::draw(draw::build_picture(*l.session, path, po), format, dot, out, error);
    }
    if (!drawn) throw Failure{"nnef-draw: error: " + error};
    return py::make_tuple(py::bytes(out), l.ok, render_all(l.session->diagnostics(), l.session->sources()));
}

}  // namespace
}  // namespace nnef::python

PYBIND11_MODULE(_nnef, m) {
    using namespace nnef::python;
    m.doc() = "Thin binding of the NNEF toolkit's library; use the `nnef` package.";
    // A ValueError too: NNEF-Tools raises ValueError for some of what it refuses.
    static py::exception<Failure> error(m, "Error", PyExc_ValueError);
    py::register_exception_translator([](std::exception_ptr p) {
        try {
            if (p) std::rethrow_exception(p);
        } catch (const Failure& f) {
            error(f.text.c_str());
        }
    });
    m.def("version", [] { return std::string(nnef::version()); });
    m.def("_set_types", [](py::object identifier, py::object tensor, py::object operation, py::object graph,
                           py::object ordered_dict) {
        types() = Types{identifier, tensor, operation, graph, ordered_dict};
    });
    py::class_<LoadedGraph>(m, "LoadedGraph")
        .def_property_readonly("name", &LoadedGraph::name)
        .def_property_readonly("inputs", &LoadedGraph::inputs)
        .def_property_readonly("outputs", &LoadedGraph::outputs)
        .def_property_readonly("operation_count", &LoadedGraph::operation_count)
        .def_property_readonly("released", &LoadedGraph::released)
        .def("tensors", &LoadedGraph::tensors)
        .def("operations", &LoadedGraph::operations)
        .def("operation_names", &LoadedGraph::operation_names)
        .def("shape", &LoadedGraph::shape)
        .def("release", &LoadedGraph::release);
    m.def("load_graph", &load_graph, py::arg("source"), py::arg("text"), py::arg("name"), py::arg("quant"),
          py::arg("quant_name"), py::arg("options"));
    m.def("validate", &validate, py::arg("source"), py::arg("text"), py::arg("name"), py::arg("options"));
    m.def("read_tensor_path", &read_tensor_path, py::arg("path"), py::arg("mmap"), py::arg("options"));
    m.def("read_tensor_bytes", &read_tensor_bytes, py::arg("data"), py::arg("name"), py::arg("options"));
    m.def("encode_read", &encode_read);
    m.def("encode_tensor", &encode_tensor);
    m.def("encode_codes", &encode_codes);
    py::class_<Runner>(m, "Runner")
        .def(py::init<const std::string&, const std::string&, const py::dict&, const py::dict&>())
        .def_property_readonly("inputs", &Runner::inputs)
        .def_property_readonly("outputs", &Runner::outputs)
        .def("run", &Runner::run);
    m.def("to_tosa", &to_tosa);
    m.def("to_vpu", &to_vpu);
    m.def("draw", &draw);
}
