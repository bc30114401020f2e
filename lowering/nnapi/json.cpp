// The JSON form of an NNAPI 1.0 model (docs/nnapi.md): the HAL's field names, enums by HAL name,
// operandValues in base64, the pools in one binary file beside the JSON.
#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <map>
#include <sstream>
#include <utility>

#include <nlohmann/json.hpp>

#include <nnef/diagnostics.hpp>

#include "lowering/json_parse_error.hpp"
#include "lowering/nnapi/model.hpp"

namespace nnef::nnapi {

namespace {

constexpr char kBase64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

std::string base64_encode(const std::vector<std::uint8_t>& bytes) {
    std::string out;
    out.reserve((bytes.size() + 2) / 3 * 4);
    std::size_t i = 0;
    for (; i + 2 < bytes.size(); i += 3) {
        std::uint32_t v = (std::uint32_t{bytes[i]} << 16) | (std::uint32_t{bytes[i + 1]} << 8) | bytes[i + 2];
        for (int k = 3; k >= 0; --k) out += kBase64[(v >> (6 * k)) & 63];
    }
    std::size_t rest = bytes.size() - i;
    if (rest == 1) {
        std::uint32_t v = std::uint32_t{bytes[i]} << 16;
        out += kBase64[(v >> 18) & 63];
        out += kBase64[(v >> 12) & 63];
        out += "==";
    } else if (rest == 2) {
        std::uint32_t v = (std::uint32_t{bytes[i]} << 16) | (std::uint32_t{bytes[i + 1]} << 8);
        out += kBase64[(v >> 18) & 63];
        out += kBase64[(v >> 12) & 63];
        out += kBase64[(v >> 6) & 63];
        out += '=';
    }
    return out;
}

// A problem at a JSON path (thrown inside the reader, caught at its boundary).
struct Bad {
    std::string path;
    std::string message;
};

int base64_value(char c) {
    const char* p = std::strchr(kBase64, c);
    return (c != '\0' && p) ? static_cast<int>(p - kBase64) : -1;
}

std::vector<std::uint8_t> base64_decode(const std::string& text, const std::string& path) {
    if (text.size() % 4 != 0)
        throw Bad{path, "base64 text has " + std::to_string(text.size()) + " characters, not a multiple of 4"};
    std::vector<std::uint8_t> out;
    out.reserve(text.size() / 4 * 3);
    for (std::size_t i = 0; i < text.size(); i += 4) {
        int v[4];
        int pad = 0;
        for (int k = 0; k < 4; ++k) {
            char c = text[i + k];
            bool last_group = i + 4 == text.size();
            if (c == '=' && last_group && k >= 2 && (k == 3 || text[i + 3] == '=')) {
                v[k] = 0;
                ++pad;
                continue;
            }
            v[k] = pad ? -1 : base64_value(c);
            if (v[k] < 0)
                throw Bad{path, "invalid base64 character at character " + std::to_string(i + k)};
        }
        std::uint32_t w = (std::uint32_t(v[0]) << 18) | (std::uint32_t(v[1]) << 12) | (std::uint32_t(v[2]) << 6) |
                          std::uint32_t(v[3]);
        out.push_back(static_cast<std::uint8_t>(w >> 16));
        if (pad < 2) out.push_back(static_cast<std::uint8_t>((w >> 8) & 255));
        if (pad < 1) out.push_back(static_cast<std::uint8_t>(w & 255));
    }
    return out;
}

nlohmann::json location_json(const DataLocation& l) {
    return {{"poolIndex", l.poolIndex}, {"offset", l.offset}, {"length", l.length}};
}

// ---- reading ------------------------------------------------------------------------------------

using json = nlohmann::json;

std::string child(const std::string& path, const std::string& key) { return path + "/" + key; }
std::string child(const std::string& path, std::size_t index) { return path + "/" + std::to_string(index); }

const json& member(const json& object, const std::string& path, const char* key) {
    auto it = object.find(key);
    if (it == object.end()) throw Bad{path, std::string("missing field \"") + key + "\""};
    return *it;
}

void expect_object(const json& j, const std::string& path, std::initializer_list<const char*> known) {
    if (!j.is_object()) throw Bad{path, std::string("expected an object, found ") + j.type_name()};
    for (auto it = j.begin(); it != j.end(); ++it) {
        bool found = false;
        for (const char* k : known) found = found || it.key() == k;
        if (!found) throw Bad{child(path, it.key()), "unknown field \"" + it.key() + "\""};
    }
}

std::uint32_t read_uint32(const json& j, const std::string& path) {
    if (j.is_number_unsigned() && j.get<std::uint64_t>() <= std::numeric_limits<std::uint32_t>::max())
        return static_cast<std::uint32_t>(j.get<std::uint64_t>());
    if (j.is_number_integer() && j.get<std::int64_t>() >= 0 &&
        j.get<std::int64_t>() <= std::int64_t{std::numeric_limits<std::uint32_t>::max()})
        return static_cast<std::uint32_t>(j.get<std::int64_t>());
    throw Bad{path, "expected an unsigned 32-bit integer, found " + j.dump()};
}

std::int32_t read_int32(const json& j, const std::string& path) {
    if (j.is_number_integer()) {
        if (j.is_number_unsigned()) {
            if (j.get<std::uint64_t>() <= std::uint64_t{std::numeric_limits<std::int32_t>::max()})
                return static_cast<std::int32_t>(j.get<std::uint64_t>());
        } else {
            std::int64_t v = j.get<std::int64_t>();
            if (v >= std::numeric_limits<std::int32_t>::min() && v <= std::numeric_limits<std::int32_t>::max())
                return static_cast<std::int32_t>(v);
        }
    }
    throw Bad{path, "expected a signed 32-bit integer, found " + j.dump()};
}

float read_float(const json& j, const std::string& path) {
    if (!j.is_number()) throw Bad{path, std::string("expected a number, found ") + j.type_name()};
    double v = j.get<double>();
    if (!std::isfinite(v) || std::fabs(v) > std::numeric_limits<float>::max())
        throw Bad{path, "number " + j.dump() + " is not a finite 32-bit float"};
    return static_cast<float>(v);
}

std::vector<std::uint32_t> read_uint32_list(const json& j, const std::string& path) {
    if (!j.is_array()) throw Bad{path, std::string("expected an array, found ") + j.type_name()};
    std::vector<std::uint32_t> out;
    out.reserve(j.size());
    for (std::size_t i = 0; i < j.size(); ++i) out.push_back(read_uint32(j[i], child(path, i)));
    return out;
}

const std::string& read_string(const json& j, const std::string& path) {
    if (!j.is_string()) throw Bad{path, std::string("expected a string, found ") + j.type_name()};
    return j.get_ref<const std::string&>();
}

template <class E>
E read_enum(const json& j, const std::string& path, std::optional<E> (*from)(std::string_view), const char* what) {
    const std::string& name = read_string(j, path);
    auto v = from(name);
    if (!v) throw Bad{path, std::string("unknown ") + what + " \"" + name + "\""};
    return *v;
}

DataLocation read_location(const json& j, const std::string& path) {
    expect_object(j, path, {"poolIndex", "offset", "length"});
    DataLocation l;
    l.poolIndex = read_uint32(member(j, path, "poolIndex"), child(path, "poolIndex"));
    l.offset = read_uint32(member(j, path, "offset"), child(path, "offset"));
    l.length = read_uint32(member(j, path, "length"), child(path, "length"));
    return l;
}

Operand read_operand(const json& j, const std::string& path) {
    expect_object(j, path, {"type", "dimensions", "numberOfConsumers", "scale", "zeroPoint", "lifetime", "location"});
    Operand o;
    o.type = read_enum<OperandType>(member(j, path, "type"), child(path, "type"), operand_type_from_string,
                                    "OperandType");
    o.dimensions = read_uint32_list(member(j, path, "dimensions"), child(path, "dimensions"));
    o.numberOfConsumers = read_uint32(member(j, path, "numberOfConsumers"), child(path, "numberOfConsumers"));
    o.scale = read_float(member(j, path, "scale"), child(path, "scale"));
    o.zeroPoint = read_int32(member(j, path, "zeroPoint"), child(path, "zeroPoint"));
    o.lifetime = read_enum<OperandLifeTime>(member(j, path, "lifetime"), child(path, "lifetime"),
                                            lifetime_from_string, "OperandLifeTime");
    o.location = read_location(member(j, path, "location"), child(path, "location"));
    return o;
}

Operation read_operation(const json& j, const std::string& path) {
    expect_object(j, path, {"type", "inputs", "outputs"});
    Operation op;
    op.type = read_enum<OperationType>(member(j, path, "type"), child(path, "type"), operation_type_from_string,
                                       "OperationType");
    op.inputs = read_uint32_list(member(j, path, "inputs"), child(path, "inputs"));
    op.outputs = read_uint32_list(member(j, path, "outputs"), child(path, "outputs"));
    return op;
}

// A failure in a pool file: its name and the byte offset.
struct BadFile {
    std::string file;
    std::uint64_t offset;
    std::string message;
};

Model read_model_json(const json& j, const PoolFileReader& read_pool_file) {
    const std::string root;
    expect_object(j, "", {"operands", "operations", "inputIndexes", "outputIndexes", "operandValues", "pools"});
    Model m;
    const json& operands = member(j, root, "operands");
    if (!operands.is_array()) throw Bad{"/operands", std::string("expected an array, found ") + operands.type_name()};
    for (std::size_t i = 0; i < operands.size(); ++i) m.operands.push_back(read_operand(operands[i], child("/operands", i)));
    const json& operations = member(j, root, "operations");
    if (!operations.is_array())
        throw Bad{"/operations", std::string("expected an array, found ") + operations.type_name()};
    for (std::size_t i = 0; i < operations.size(); ++i)
        m.operations.push_back(read_operation(operations[i], child("/operations", i)));
    m.inputIndexes = read_uint32_list(member(j, root, "inputIndexes"), "/inputIndexes");
    m.outputIndexes = read_uint32_list(member(j, root, "outputIndexes"), "/outputIndexes");
    m.operandValues = base64_decode(read_string(member(j, root, "operandValues"), "/operandValues"), "/operandValues");
    const json& pools = member(j, root, "pools");
    if (!pools.is_array()) throw Bad{"/pools", std::string("expected an array, found ") + pools.type_name()};
    std::map<std::string, std::vector<std::uint8_t>> files;
    for (std::size_t i = 0; i < pools.size(); ++i) {
        std::string path = child("/pools", i);
        expect_object(pools[i], path, {"file", "offset", "length"});
        const std::string& file = read_string(member(pools[i], path, "file"), child(path, "file"));
        std::uint32_t offset = read_uint32(member(pools[i], path, "offset"), child(path, "offset"));
        std::uint32_t length = read_uint32(member(pools[i], path, "length"), child(path, "length"));
        auto it = files.find(file);
        if (it == files.end()) {
            std::optional<std::vector<std::uint8_t>> bytes;
            if (read_pool_file) bytes = read_pool_file(file);
            if (!bytes) throw Bad{child(path, "file"), "cannot read pool file \"" + file + "\""};
            it = files.emplace(file, std::move(*bytes)).first;
        }
        const auto& bytes = it->second;
        std::uint64_t end = std::uint64_t{offset} + length;
        if (end > bytes.size())
            throw BadFile{file, bytes.size(),
                          "pool " + std::to_string(i) + " (offset " + std::to_string(offset) + ", length " +
                              std::to_string(length) + ") ends at byte " + std::to_string(end) + ", past the end of the " +
                              std::to_string(bytes.size()) + "-byte file"};
        Memory pool;
        pool.data.assign(bytes.begin() + offset, bytes.begin() + static_cast<std::ptrdiff_t>(end));
        m.pools.push_back(std::move(pool));
    }
    return m;
}

std::optional<std::vector<std::uint8_t>> read_bytes(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return std::nullopt;
    std::vector<std::uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (in.bad()) return std::nullopt;
    return bytes;
}

std::string folder_of(const std::string& path) {
    auto slash = path.find_last_of('/');
    return slash == std::string::npos ? std::string() : path.substr(0, slash + 1);
}

std::string file_name_of(const std::string& path) {
    auto slash = path.find_last_of('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

}  // namespace

// ---- writing --------------------------------------------------------------------------------------

nlohmann::json to_json(const Model& m, const std::string& pool_file) {
    json j = json::object();
    json operands = json::array();
    for (const Operand& o : m.operands) {
        operands.push_back({{"type", to_string(o.type)},
                            {"dimensions", o.dimensions},
                            {"numberOfConsumers", o.numberOfConsumers},
                            {"scale", o.scale},
                            {"zeroPoint", o.zeroPoint},
                            {"lifetime", to_string(o.lifetime)},
                            {"location", location_json(o.location)}});
    }
    j["operands"] = std::move(operands);
    json operations = json::array();
    for (const Operation& op : m.operations)
        operations.push_back({{"type", to_string(op.type)}, {"inputs", op.inputs}, {"outputs", op.outputs}});
    j["operations"] = std::move(operations);
    j["inputIndexes"] = m.inputIndexes;
    j["outputIndexes"] = m.outputIndexes;
    j["operandValues"] = base64_encode(m.operandValues);
    json pools = json::array();
    std::uint64_t offset = 0;
    for (const Memory& pool : m.pools) {
        pools.push_back({{"file", pool_file}, {"offset", offset}, {"length", pool.data.size()}});
        offset += pool.data.size();
    }
    j["pools"] = std::move(pools);
    return j;
}

void write_pool_file(const Model& m, std::ostream& out) {
    for (const Memory& pool : m.pools) out.write(reinterpret_cast<const char*>(pool.data.data()), static_cast<std::streamsize>(pool.data.size()));
}

std::vector<std::uint8_t> pool_file_bytes(const Model& m) {
    std::ostringstream s;
    write_pool_file(m, s);
    const std::string bytes = s.str();
    return std::vector<std::uint8_t>(bytes.begin(), bytes.end());
}

bool write_model(const Model& m, const std::string& json_path, Diagnostics& diags) {
    std::string stem = json_path;
    if (stem.size() > 5 && stem.compare(stem.size() - 5, 5, ".json") == 0) stem.resize(stem.size() - 5);
    std::string pool_path = stem + ".bin";
    if (!m.pools.empty()) {
        std::ofstream bin(pool_path, std::ios::binary);
        write_pool_file(m, bin);
        if (!bin) {
            diags.error(Stage::io, "cannot-write", "cannot write the pool file " + pool_path);
            return false;
        }
    }
    std::ofstream out(json_path);
    out << to_json(m, file_name_of(pool_path)).dump(1) << '\n';
    if (!out) {
        diags.error(Stage::io, "cannot-write", "cannot write " + json_path);
        return false;
    }
    return true;
}

// ---- reading --------------------------------------------------------------------------------------

std::optional<Model> model_from_json(const nlohmann::json& j, const PoolFileReader& read_pool_file, Diagnostics& diags,
                                     const std::string& source) {
    try {
        return read_model_json(j, read_pool_file);
    } catch (const Bad& e) {
        diags.error(Stage::nnapi, "bad-nnapi-json",
                    source + ": at " + (e.path.empty() ? std::string("/") : e.path) + ": " + e.message);
    } catch (const BadFile& e) {
        Diagnostic& d = diags.error(Stage::nnapi, "bad-nnapi-pool", e.message + " (named in " + source + ")");
        d.path = e.file;
        d.byte_offset = e.offset;
    } catch (const nlohmann::json::exception& e) {
        diags.error(Stage::nnapi, "bad-nnapi-json", source + ": " + e.what());
    }
    return std::nullopt;
}

std::optional<Model> model_from_json_text(std::string_view text, const PoolFileReader& read_pool_file,
                                          Diagnostics& diags, const std::string& source) {
    json j;
    try {
        j = json::parse(text.begin(), text.end());
    } catch (const json::exception& e) {  // a syntax error, or a number that overflows (out_of_range 406)
        const JsonParseErrorPlace p = json_exception_place(e, text);
        diags.error(Stage::nnapi, "bad-nnapi-json",
                    source + ":" + std::to_string(p.line) + ":" + std::to_string(p.column) + ": malformed JSON: " + p.detail);
        return std::nullopt;
    }
    return model_from_json(j, read_pool_file, diags, source);
}

std::optional<Model> read_model(const std::string& json_path, Diagnostics& diags) {
    auto text = read_bytes(json_path);
    if (!text) {
        diags.error(Stage::io, "cannot-read", "cannot read " + json_path);
        return std::nullopt;
    }
    std::string folder = folder_of(json_path);
    PoolFileReader reader = [&folder](const std::string& file) -> std::optional<std::vector<std::uint8_t>> {
        if (file.empty() || file[0] == '/') return std::nullopt;
        return read_bytes(folder + file);
    };
    std::string_view view(reinterpret_cast<const char*>(text->data()), text->size());
    return model_from_json_text(view, reader, diags, json_path);
}

}  // namespace nnef::nnapi
