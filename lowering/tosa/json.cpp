#include "lowering/tosa/json.hpp"

#include <cmath>
#include <cstring>
#include <stdexcept>

#include <nnef/diagnostics.hpp>
#include <nnef/source.hpp>

namespace nnef::tosa {

namespace tosa_json_cpp {

using nlohmann::json;

const char* const format_name = "nnef-tosa-graph";
const int format_version = 1;

// An item of w bytes in host order, as an integer.
std::uint64_t load_item(const unsigned char* p, std::size_t w) {
    std::uint16_t u16;
    std::uint32_t u32;
    std::uint64_t u64;
    switch (w) {
        case 2: std::memcpy(&u16, p, 2); return u16;
        case 4: std::memcpy(&u32, p, 4); return u32;
        case 8: std::memcpy(&u64, p, 8); return u64;
        default: return *p;
    }
}

void store_item(unsigned char* p, std::size_t w, std::uint64_t bits) {
    const auto u16 = static_cast<std::uint16_t>(bits);
    const auto u32 = static_cast<std::uint32_t>(bits);
    switch (w) {
        case 2: std::memcpy(p, &u16, 2); break;
        case 4: std::memcpy(p, &u32, 4); break;
        case 8: std::memcpy(p, &bits, 8); break;
        default: *p = static_cast<unsigned char>(bits);
    }
}

// Little-endian bytes of the items as stored (storage_bytes each), as hexadecimal.
std::string hex_data(const ConstData& c) {
    static const char digits[] = "0123456789abcdef";
    const std::size_t n = static_cast<std::size_t>(c.type.volume()), w = storage_bytes(c.type.dtype);
    const auto* p = static_cast<const unsigned char*>(c.data);
    std::string s;
    s.reserve(2 * n * w);
    for (std::size_t i = 0; i < n; ++i) {
        const std::uint64_t bits = load_item(p + i * w, w);
        for (std::size_t b = 0; b < w; ++b) {
            const unsigned v = static_cast<unsigned>((bits >> (8 * b)) & 0xFF);
            s += digits[v >> 4];
            s += digits[v & 15];
        }
    }
    return s;
}

json tensor_type(const TensorType& t) { return json{{"type", to_string(t.dtype)}, {"shape", t.shape}}; }

json number(double v) {
    if (std::isnan(v)) return "nan";
    if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
    return v;
}

json constant(const ConstPtr& c, const JsonOptions& opt) {
    if (!c) throw std::logic_error("TOSA to JSON: a constant without data");
    json j = tensor_type(c->type);
    if (opt.elide_weights && static_cast<std::size_t>(c->type.volume()) > opt.elide_above) j["elided"] = true;
    else j["data"] = hex_data(*c);
    return j;
}

json attr_json(const Attr& a, const AttrSpec& spec, const JsonOptions& opt) {
    // an integer CLAMP's bounds are integers (ops.def: num is int64 for integer element types)
    switch (spec.kind) {
        case AttrKind::i32: return std::get<std::int64_t>(a);
        case AttrKind::boolean: return std::get<bool>(a);
        case AttrKind::i32s:
        case AttrKind::shape: return std::get<std::vector<std::int64_t>>(a);
        case AttrKind::num:
            if (const auto* d = std::get_if<double>(&a)) return number(*d);
            return std::get<std::int64_t>(a);
        case AttrKind::acc: return to_string(std::get<AccType>(a));
        case AttrKind::nan: return to_string(std::get<NanMode>(a));
        case AttrKind::round: return to_string(std::get<RoundingMode>(a));
        case AttrKind::resize: return to_string(std::get<ResizeMode>(a));
        case AttrKind::str: return std::get<std::string>(a);
        case AttrKind::dtype: return to_string(std::get<DType>(a));
        case AttrKind::tensor: return constant(std::get<ConstPtr>(a), opt);
        case AttrKind::graph: return json{{"block", std::get<BlockRef>(a).block}};
    }
    return nullptr;
}

// ---- reading ---------------------------------------------------------------------------------

using Bad = JsonError;

[[noreturn]] void bad(const std::string& where, const std::string& what) {
    throw Bad((where.empty() ? std::string("/") : where) + ": " + what);
}

const json& member(const json& j, const char* key, const std::string& where) {
    if (!j.is_object()) bad(where, "expected an object");
    auto it = j.find(key);
    if (it == j.end()) bad(where, std::string("missing \"") + key + "\"");
    return *it;
}

std::int64_t integer(const json& j, const std::string& where) {
    if (!j.is_number_integer()) bad(where, "expected an integer");
    return j.get<std::int64_t>();
}

std::vector<std::int64_t> integers(const json& j, const std::string& where) {
    if (!j.is_array()) bad(where, "expected an array of integers");
    std::vector<std::int64_t> v;
    for (std::size_t i = 0; i < j.size(); ++i) v.push_back(integer(j[i], where + "/" + std::to_string(i)));
    return v;
}

std::string text(const json& j, const std::string& where) {
    if (!j.is_string()) bad(where, "expected a string");
    return j.get<std::string>();
}

template <class E>
E enum_value(const json& j, const std::string& where, std::initializer_list<E> all) {
    const std::string s = text(j, where);
    for (E e : all)
        if (s == to_string(e)) return e;
    bad(where, "unknown value \"" + s + "\"");
}

DType dtype(const json& j, const std::string& where) {
    auto t = dtype_from_string(text(j, where));
    if (!t || *t == DType::none) bad(where, "unknown element type");
    return *t;
}

TensorType read_type(const json& j, const std::string& where) {
    TensorType t;
    t.dtype = dtype(member(j, "type", where), where + "/type");
    t.shape = integers(member(j, "shape", where), where + "/shape");
    for (std::int64_t e : t.shape)
        if (e < 0) bad(where + "/shape", "negative extent");
    if (t.dtype == DType::shape && t.shape.size() != 1) bad(where + "/shape", "a shape value has rank 1");
    return t;
}

int hex_digit(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

ConstPtr read_constant(const json& j, const std::string& where) {
    TensorType t = read_type(j, where);
    if (j.contains("elided")) bad(where, "the constant's data was elided (written with --no-weights): it cannot be read back");
    const std::string hex = text(member(j, "data", where), where + "/data");
    const std::size_t w = storage_bytes(t.dtype);
    const double volume = [&] {
        double v = 1;
        for (std::int64_t e : t.shape) v *= static_cast<double>(e);
        return v;
    }();
    if (volume * static_cast<double>(w) * 2 != static_cast<double>(hex.size()))
        bad(where + "/data", std::to_string(hex.size()) + " hexadecimal digits for " + to_string(t) + " (expected " +
                                 std::to_string(static_cast<std::uint64_t>(volume * static_cast<double>(w) * 2)) + ")");
    auto c = ConstData::allocate(t);
    auto* p = c->mutable_items<unsigned char>();
    const std::size_t n = static_cast<std::size_t>(volume);
    for (std::size_t i = 0; i < n; ++i) {
        std::uint64_t bits = 0;
        for (std::size_t b = 0; b < w; ++b) {
            const int hi = hex_digit(hex[2 * (i * w + b)]), lo = hex_digit(hex[2 * (i * w + b) + 1]);
            if (hi < 0 || lo < 0) bad(where + "/data", "not hexadecimal");
            bits |= static_cast<std::uint64_t>(hi * 16 + lo) << (8 * b);
        }
        store_item(p + i * w, w, bits);
    }
    if (t.dtype == DType::bool_)
        for (std::size_t i = 0; i < n; ++i)
            if (p[i] > 1) bad(where + "/data", "a bool item is neither 0 nor 1");
    return c;
}

double read_number(const json& j, const std::string& where) {
    if (j.is_number()) return j.get<double>();
    const std::string s = text(j, where);
    if (s == "nan") return std::nan("");
    if (s == "inf") return HUGE_VAL;
    if (s == "-inf") return -HUGE_VAL;
    bad(where, "expected a number, \"inf\", \"-inf\" or \"nan\"");
}

Attr read_attr(const json& j, const AttrSpec& spec, std::size_t block_count, const std::string& where) {
    switch (spec.kind) {
        case AttrKind::i32: return integer(j, where);
        case AttrKind::boolean:
            if (!j.is_boolean()) bad(where, "expected true or false");
            return j.get<bool>();
        case AttrKind::i32s:
        case AttrKind::shape: return integers(j, where);
        case AttrKind::num:
            if (j.is_number_integer()) return j.get<std::int64_t>();
            return read_number(j, where);
        case AttrKind::acc: return enum_value(j, where, {AccType::INT32, AccType::FP16, AccType::FP32, AccType::INT48});
        case AttrKind::nan: return enum_value(j, where, {NanMode::PROPAGATE, NanMode::IGNORE});
        case AttrKind::round:
            return enum_value(j, where, {RoundingMode::SINGLE_ROUND, RoundingMode::INEXACT_ROUND, RoundingMode::DOUBLE_ROUND});
        case AttrKind::resize: return enum_value(j, where, {ResizeMode::NEAREST_NEIGHBOR, ResizeMode::BILINEAR});
        case AttrKind::str: return text(j, where);
        case AttrKind::dtype: return dtype(j, where);
        case AttrKind::tensor: return read_constant(j, where);
        case AttrKind::graph: {
            const std::int64_t b = integer(member(j, "block", where), where + "/block");
            if (b <= 0 || static_cast<std::size_t>(b) >= block_count) bad(where + "/block", "no such block (the main block cannot be one)");
            return BlockRef{static_cast<std::uint32_t>(b)};
        }
    }
    bad(where, "unknown attribute kind");
}

std::vector<ValueId> value_list(const json& j, std::size_t value_count, const std::string& where) {
    std::vector<ValueId> v;
    for (std::int64_t id : integers(j, where)) {
        if (id < 0 || static_cast<std::size_t>(id) >= value_count) bad(where, "value " + std::to_string(id) + " does not exist");
        v.push_back(static_cast<ValueId>(id));
    }
    return v;
}

Graph read_graph(const json& j) {
    if (!j.is_object()) bad("", "expected an object");
    if (text(member(j, "format", ""), "/format") != format_name) bad("/format", std::string("expected \"") + format_name + "\"");
    if (integer(member(j, "version", ""), "/version") != format_version)
        bad("/version", "unsupported version (this reader reads version " + std::to_string(format_version) + ")");
    Graph g;
    g.blocks.clear();
    g.name = text(member(j, "name", ""), "/name");
    const std::string profile = text(member(j, "profile", ""), "/profile");
    if (profile == to_string(Profile::pro_fp)) g.profile = Profile::pro_fp;
    else if (profile == to_string(Profile::pro_int)) g.profile = Profile::pro_int;
    else bad("/profile", "expected \"PRO-FP\" or \"PRO-INT\"");

    const json& values = member(j, "values", "");
    if (!values.is_array()) bad("/values", "expected an array");
    for (std::size_t i = 0; i < values.size(); ++i) {
        const std::string where = "/values/" + std::to_string(i);
        Value v;
        v.type = read_type(values[i], where);
        if (values[i].contains("name")) v.name = text(values[i]["name"], where + "/name");
        g.values.push_back(std::move(v));
    }
    if (j.contains("origins")) {
        const json& origins = j["origins"];
        if (!origins.is_array()) bad("/origins", "expected an array");
        for (std::size_t i = 0; i < origins.size(); ++i) {
            const std::string where = "/origins/" + std::to_string(i);
            Origin o;
            o.operation = text(member(origins[i], "operation", where), where + "/operation");
            if (origins[i].contains("tensor")) o.tensor = text(origins[i]["tensor"], where + "/tensor");
            g.origins.push_back(std::move(o));
        }
    }
    const json& blocks = member(j, "blocks", "");
    if (!blocks.is_array() || blocks.empty()) bad("/blocks", "expected an array with the main block first");
    g.blocks.resize(blocks.size());
    std::vector<bool> defined(g.values.size(), false);
    auto define = [&](ValueId v, const std::string& where) {
        if (defined[v]) bad(where, "value " + std::to_string(v) + " is defined twice");
        defined[v] = true;
    };
    for (std::size_t bi = 0; bi < blocks.size(); ++bi) {
        const std::string where = "/blocks/" + std::to_string(bi);
        Block& b = g.blocks[bi];
        b.name = text(member(blocks[bi], "name", where), where + "/name");
        b.inputs = value_list(member(blocks[bi], "inputs", where), g.values.size(), where + "/inputs");
        for (ValueId v : b.inputs) define(v, where + "/inputs");
        b.outputs = value_list(member(blocks[bi], "outputs", where), g.values.size(), where + "/outputs");
        const json& ops = member(blocks[bi], "ops", where);
        if (!ops.is_array()) bad(where + "/ops", "expected an array");
        for (std::size_t oi = 0; oi < ops.size(); ++oi) {
            const std::string ow = where + "/ops/" + std::to_string(oi);
            const json& jo = ops[oi];
            Op op;
            const std::string kind = text(member(jo, "op", ow), ow + "/op");
            auto k = op_kind_from_string(kind);
            if (!k) bad(ow + "/op", "unknown TOSA operator \"" + kind + "\"");
            op.kind = *k;
            const OpInfo& info = op_info(op.kind);
            op.inputs = value_list(member(jo, "inputs", ow), g.values.size(), ow + "/inputs");
            op.outputs = value_list(member(jo, "outputs", ow), g.values.size(), ow + "/outputs");
            const bool in_ok = info.variadic_inputs ? op.inputs.size() + 1 >= info.inputs.size() : op.inputs.size() == info.inputs.size();
            const bool out_ok =
                info.variadic_outputs ? op.outputs.size() + 1 >= info.outputs.size() : op.outputs.size() == info.outputs.size();
            if (!in_ok) bad(ow + "/inputs", std::to_string(op.inputs.size()) + " operands for " + info.name);
            if (!out_ok) bad(ow + "/outputs", std::to_string(op.outputs.size()) + " results for " + info.name);
            for (ValueId v : op.outputs) define(v, ow + "/outputs");
            json attrs = jo.contains("attributes") ? jo["attributes"] : json::object();
            if (!attrs.is_object()) bad(ow + "/attributes", "expected an object");
            for (auto it = attrs.begin(); it != attrs.end(); ++it) {
                auto name = attr_name_from_string(it.key());
                if (!name || !info.attribute(*name)) bad(ow + "/attributes", info.name + " has no attribute \"" + it.key() + "\"");
            }
            for (const AttrSpec& spec : info.attributes) {
                const std::string aw = ow + "/attributes/" + to_string(spec.name);
                auto it = attrs.find(to_string(spec.name));
                if (it == attrs.end()) {
                    if (!spec.optional) bad(ow + "/attributes", info.name + " needs attribute \"" + to_string(spec.name) + "\"");
                    continue;
                }
                op.attrs.emplace_back(spec.name, read_attr(*it, spec, blocks.size(), aw));
            }
            if (op.kind == OpKind::CONST && !op.outputs.empty()) {
                const ConstPtr& c = op.get<ConstPtr>(AttrName::values);
                if (c->type != g.type(op.outputs[0])) bad(ow, "the constant's type differs from its result's");
            }
            if (jo.contains("origin")) {
                const std::int64_t o = integer(jo["origin"], ow + "/origin");
                if (o < 0 || static_cast<std::size_t>(o) >= g.origins.size()) bad(ow + "/origin", "no such origin");
                op.origin = static_cast<std::uint32_t>(o);
            }
            b.ops.push_back(std::move(op));
        }
    }
    return g;
}

}  // namespace tosa_json_cpp

nlohmann::json attribute_to_json(const Attr& a, const AttrSpec& spec, const JsonOptions& options) {
    return tosa_json_cpp::attr_json(a, spec, options);
}

Attr attribute_from_json(const nlohmann::json& j, const AttrSpec& spec, const std::string& where, std::size_t block_count) {
    return tosa_json_cpp::read_attr(j, spec, block_count, where);
}

nlohmann::json constant_to_values_json(const ConstData& c) {
    using namespace tosa_json_cpp;
    json values = json::array();
    const std::int64_t n = c.type.volume();
    for (std::int64_t i = 0; i < n; ++i) {
        if (auto v = int_item(c, i)) values.push_back(*v);
        else values.push_back(number(number_item(c, i)));
    }
    return json{{"dtype", to_string(c.type.dtype)}, {"shape", c.type.shape}, {"values", std::move(values)}};
}

ConstPtr constant_from_values_json(const nlohmann::json& j, const std::string& where) {
    using namespace tosa_json_cpp;
    if (!j.is_object()) bad(where, "expected {\"dtype\", \"shape\", \"values\"}");
    for (auto it = j.begin(); it != j.end(); ++it)
        if (it.key() != "dtype" && it.key() != "shape" && it.key() != "values") bad(where, "unknown field \"" + it.key() + "\"");
    TensorType t;
    t.dtype = dtype(member(j, "dtype", where), where + "/dtype");
    if (t.dtype == DType::bf16) bad(where + "/dtype", "not a type of a task's constant");
    t.shape = integers(member(j, "shape", where), where + "/shape");
    double volume = 1;
    for (std::int64_t e : t.shape) {
        if (e < 0) bad(where + "/shape", "negative extent");
        volume *= static_cast<double>(e);
    }
    const json& values = member(j, "values", where);
    if (!values.is_array() || static_cast<double>(values.size()) != volume)
        bad(where + "/values", "expected an array of " + std::to_string(static_cast<std::uint64_t>(volume)) + " items (the shape's)");
    auto c = ConstData::allocate(t);
    for (std::size_t i = 0; i < values.size(); ++i) {
        const std::string w = where + "/values/" + std::to_string(i);
        const json& x = values[i];
        double v;
        if (x.is_boolean() && t.dtype == DType::bool_) v = x.get<bool>() ? 1 : 0;
        else if (is_float(t.dtype)) v = read_number(x, w);
        else if (x.is_number_integer()) v = static_cast<double>(x.get<std::int64_t>());
        else bad(w, std::string("expected an integer (") + to_string(t.dtype) + ")");
        if (!set_number_item(*c, static_cast<std::int64_t>(i), v)) bad(w, std::string("not a value of ") + to_string(t.dtype));
    }
    return c;
}

nlohmann::json to_json(const Graph& g, const JsonOptions& opt) {
    using namespace tosa_json_cpp;
    json j;
    j["format"] = format_name;
    j["version"] = format_version;
    j["name"] = g.name;
    j["profile"] = to_string(g.profile);
    json values = json::array();
    for (const Value& v : g.values) {
        json jv = tensor_type(v.type);
        if (!v.name.empty()) jv["name"] = v.name;
        values.push_back(std::move(jv));
    }
    j["values"] = std::move(values);
    json origins = json::array();
    for (const Origin& o : g.origins) {
        json jo{{"operation", o.operation}};
        if (!o.tensor.empty()) jo["tensor"] = o.tensor;
        const SourceRange& r = o.provenance.range;
        if (opt.sources && r.valid() && r.file <= opt.sources->size()) {
            const LineCol lc = opt.sources->begin(r);
            jo["file"] = opt.sources->name(r.file);
            jo["line"] = lc.line;
            jo["column"] = lc.col;
        }
        origins.push_back(std::move(jo));
    }
    j["origins"] = std::move(origins);
    json blocks = json::array();
    for (const Block& b : g.blocks) {
        json jb{{"name", b.name}, {"inputs", b.inputs}, {"outputs", b.outputs}};
        json ops = json::array();
        for (const Op& op : b.ops) {
            json jo{{"op", op.info().name}, {"inputs", op.inputs}, {"outputs", op.outputs}};
            json attrs = json::object();
            for (const AttrSpec& spec : op.info().attributes) {
                const Attr* a = op.attr(spec.name);
                if (!a || std::holds_alternative<std::monostate>(*a)) continue;
                attrs[to_string(spec.name)] = attr_json(*a, spec, opt);
            }
            if (!attrs.empty()) jo["attributes"] = std::move(attrs);
            if (op.origin != no_origin) jo["origin"] = op.origin;
            ops.push_back(std::move(jo));
        }
        jb["ops"] = std::move(ops);
        blocks.push_back(std::move(jb));
    }
    j["blocks"] = std::move(blocks);
    return j;
}

std::optional<Graph> graph_from_json(const nlohmann::json& j, Diagnostics& diags, const std::string& source) {
    using namespace tosa_json_cpp;
    try {
        return read_graph(j);
    } catch (const Bad& e) {
        diags.error(Stage::tosa, "bad-tosa-json", source + ": at " + std::string(e.what()));
    } catch (const nlohmann::json::exception& e) {
        diags.error(Stage::tosa, "bad-tosa-json", source + ": " + e.what());
    }
    return std::nullopt;
}

}  // namespace nnef::tosa
