// The TOSA profiles' extensions and the Supported Data Types tables: parsing the tables that the
// family files (lowering/tosa/ops/<family>.cpp) write as the spec does, and matching an operator's
// operand and result types against them (check_types, infer_dtype). Part of the validator.
#include <algorithm>
#include <array>
#include <cctype>
#include <stdexcept>
#include <unordered_map>

#include "lowering/tosa/ops/check.hpp"
#include "lowering/tosa/ops/registry.hpp"
#include "lowering/tosa/validator.hpp"

namespace nnef::tosa {

// ---- extensions ------------------------------------------------------------------------------

namespace checks {

constexpr std::array<const char*, extension_count> extension_names = {
    "EXT-INT16", "EXT-INT4",        "EXT-BF16",    "EXT-FP8E4M3",     "EXT-FP8E5M2",     "EXT-FFT",
    "EXT-VARIABLE", "EXT-CONTROLFLOW", "EXT-DYNAMIC", "EXT-DOUBLEROUND", "EXT-INEXACTROUND",
};



std::string upper(std::string_view s) {
    std::string out(s);
    for (char& ch : out) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
    return out;
}

}  // namespace checks

const char* to_string(Extension e) { return checks::extension_names[static_cast<std::size_t>(e)]; }

std::optional<Extension> extension_from_string(std::string_view s) {
    using namespace checks;
    std::string u = upper(s);
    if (u.rfind("EXT-", 0) != 0) u = "EXT-" + u;
    for (std::size_t i = 0; i < extension_names.size(); ++i)
        if (u == extension_names[i]) return static_cast<Extension>(i);
    return std::nullopt;
}

bool extension_allowed(Extension e, Profile p) {
    using namespace checks;
    return (extension_profiles[static_cast<std::size_t>(e)] & (p == Profile::pro_int ? atom_pro_int : atom_pro_fp)) != 0;
}

// ---- the Supported Data Types tables ---------------------------------------------------------

namespace checks {

// The element types of the tables: the IR's, the ones the IR cannot hold (rows with them never
// match), and RESIZE's mode column.
enum class Cell : std::uint8_t { bool_, i4, i8, i16, i32, i48, fp8e4m3, fp8e5m2, fp16, bf16, fp32, shape, bilinear, nearest };

std::optional<Cell> cell_from_string(std::string_view s) {
    static const std::unordered_map<std::string_view, Cell> cells = {
        {"bool", Cell::bool_}, {"i4", Cell::i4},       {"i8", Cell::i8},           {"i16", Cell::i16},
        {"i32", Cell::i32},    {"i48", Cell::i48},     {"fp8e4m3", Cell::fp8e4m3}, {"fp8e5m2", Cell::fp8e5m2},
        {"fp16", Cell::fp16},  {"bf16", Cell::bf16},   {"fp32", Cell::fp32},       {"shape", Cell::shape},
        {"BILINEAR", Cell::bilinear}, {"NEAREST", Cell::nearest},
    };
    if (s.size() > 2 && s.substr(s.size() - 2) == "_t") s.remove_suffix(2);
    auto it = cells.find(s);
    if (it == cells.end()) return std::nullopt;
    return it->second;
}

const char* to_string(Cell c) {
    switch (c) {
        case Cell::bool_: return "bool_t";
        case Cell::i4: return "i4_t";
        case Cell::i8: return "i8_t";
        case Cell::i16: return "i16_t";
        case Cell::i32: return "i32_t";
        case Cell::i48: return "i48_t";
        case Cell::fp8e4m3: return "fp8e4m3_t";
        case Cell::fp8e5m2: return "fp8e5m2_t";
        case Cell::fp16: return "fp16_t";
        case Cell::bf16: return "bf16_t";
        case Cell::fp32: return "fp32_t";
        case Cell::shape: return "shape_t";
        case Cell::bilinear: return "BILINEAR";
        case Cell::nearest: return "NEAREST_NEIGHBOR";
    }
    return "?";
}

std::optional<Cell> cell_of(DType t) {
    switch (t) {
        case DType::bool_: return Cell::bool_;
        case DType::i8: return Cell::i8;
        case DType::i16: return Cell::i16;
        case DType::i32: return Cell::i32;
        case DType::i48: return Cell::i48;
        case DType::fp16: return Cell::fp16;
        case DType::bf16: return Cell::bf16;
        case DType::fp32: return Cell::fp32;
        case DType::shape: return Cell::shape;
        case DType::none: return std::nullopt;
    }
    return std::nullopt;
}

DType dtype_of(Cell c) {
    switch (c) {
        case Cell::bool_: return DType::bool_;
        case Cell::i8: return DType::i8;
        case Cell::i16: return DType::i16;
        case Cell::i32: return DType::i32;
        case Cell::i48: return DType::i48;
        case Cell::fp16: return DType::fp16;
        case Cell::bf16: return DType::bf16;
        case Cell::fp32: return DType::fp32;
        case Cell::shape: return DType::shape;
        default: return DType::none;
    }
}

DType dtype_of(AccType a) {
    switch (a) {
        case AccType::INT32: return DType::i32;
        case AccType::FP16: return DType::fp16;
        case AccType::FP32: return DType::fp32;
        case AccType::INT48: return DType::i48;
    }
    return DType::none;
}

// The tables of the operators are in their family files (lowering/tosa/ops/*.cpp).

struct Arg {
    enum Kind : std::uint8_t { input, output, attribute } kind;
    std::size_t index = 0;  // operand / result position (a tensor list: its first position)
    AttrName attr{};
    std::string name;
};

struct Column {
    std::string name;  // the type variable, e.g. "in_t"
    std::vector<Arg> args;
    std::optional<Cell> fixed;  // "i8_t=shift": not a column of the rows
};

struct Row {
    std::vector<std::uint32_t> any_of;  // conjunctions of requirement atoms
    std::string requirement;            // as the spec writes it
    std::vector<std::optional<Cell>> cells;  // per non-fixed column; nullopt: any (RESIZE mode "-")
};

struct Table {
    std::vector<Column> columns;
    std::vector<std::size_t> row_columns;  // the columns the row cells are for (non-fixed ones)
    std::vector<Row> rows;
};

std::vector<std::string> words(std::string_view s, char sep) {
    std::vector<std::string> out;
    std::size_t i = 0;
    while (i <= s.size()) {
        std::size_t j = s.find(sep, i);
        if (j == std::string_view::npos) j = s.size();
        if (j > i) out.emplace_back(s.substr(i, j - i));
        i = j + 1;
    }
    return out;
}

std::uint32_t atom_from_string(const std::string& s) {
    if (s == "PRO-INT") return atom_pro_int;
    if (s == "PRO-FP") return atom_pro_fp;
    if (auto e = extension_from_string(s)) return atom(*e);
    throw std::logic_error("validator type table: unknown profile or extension " + s);
}

Arg find_arg(const OpInfo& info, const std::string& name) {
    for (std::size_t i = 0; i < info.inputs.size(); ++i)
        if (info.inputs[i] == name) return Arg{Arg::input, i, {}, name};
    for (std::size_t i = 0; i < info.outputs.size(); ++i)
        if (info.outputs[i] == name) return Arg{Arg::output, i, {}, name};
    if (auto a = attr_name_from_string(name); a && info.attribute(*a)) return Arg{Arg::attribute, 0, *a, name};
    throw std::logic_error("validator type table: " + info.name + " has no argument " + name);
}

Table parse_table(const TableText& text) {
    const OpInfo& info = op_info(text.op);
    Table t;
    for (const std::string& col : words(text.columns, ' ')) {
        std::vector<std::string> parts = words(col, '=');
        Column c;
        c.name = parts[0];
        for (std::size_t i = 1; i < parts.size(); ++i) c.args.push_back(find_arg(info, parts[i]));
        if (c.name != "mode") c.fixed = cell_from_string(c.name);
        if (!c.fixed) t.row_columns.push_back(t.columns.size());
        t.columns.push_back(std::move(c));
    }
    for (const auto& [req, cells] : text.rows) {
        Row r;
        r.requirement = req;
        std::string rq = req;
        for (std::size_t p = rq.find(" or "); p != std::string::npos; p = rq.find(" or ")) rq.replace(p, 4, "|");
        for (std::size_t p = rq.find(" and "); p != std::string::npos; p = rq.find(" and ")) rq.replace(p, 5, "&");
        for (const std::string& conj : words(rq, '|')) {
            std::uint32_t mask = 0;
            for (const std::string& a : words(conj, '&')) mask |= atom_from_string(a);
            r.any_of.push_back(mask);
        }
        for (const std::string& cell : words(cells, ' ')) {
            if (cell == "-") {
                r.cells.push_back(std::nullopt);
                continue;
            }
            auto c = cell_from_string(cell);
            if (!c) throw std::logic_error("validator type table: unknown type " + cell);
            r.cells.push_back(*c);
        }
        if (r.cells.size() != t.row_columns.size())
            throw std::logic_error("validator type table: " + info.name + " row of the wrong width");
        t.rows.push_back(std::move(r));
    }
    return t;
}

const Table& type_table(OpKind k) {
    static const std::vector<Table> tables = [] {
        std::vector<Table> out(op_kind_count);
        std::vector<bool> seen(op_kind_count);
        for (const TableText& text : ops::tables().types) {
            out[static_cast<std::size_t>(text.op)] = parse_table(text);
            seen[static_cast<std::size_t>(text.op)] = true;
        }
        for (std::size_t k = 0; k < op_kind_count; ++k)
            if (!seen[k]) throw std::logic_error(std::string("validator: no type table for ") + op_info(static_cast<OpKind>(k)).name);
        return out;
    }();
    return tables[static_cast<std::size_t>(k)];
}
const CtcInputs& ctc_inputs(OpKind k) {
    static const std::vector<CtcInputs> table = [] {
        std::vector<CtcInputs> out(op_kind_count);
        for (const CtcText& c : ops::tables().ctc) {
            const OpInfo& info = op_info(c.op);
            CtcInputs& ci = out[static_cast<std::size_t>(c.op)];
            ci.profiles = c.profiles;
            for (const std::string& name : words(c.args, ' ')) {
                Arg a = find_arg(info, name);
                if (a.kind != Arg::input) throw std::logic_error("validator CTC table: not an input: " + name);
                ci.inputs.push_back(a.index);
            }
        }
        return out;
    }();
    return table[static_cast<std::size_t>(k)];
}

// ---- the type tables -------------------------------------------------------------------------

// The element type of one column argument; nullopt when absent (an optional attribute).
std::optional<Cell> arg_cell(const OpCheck& c, const Arg& a, std::size_t list_item, DType* dt) {
    const Op& op = c.op_;
    switch (a.kind) {
        case Arg::input:
        case Arg::output: {
            const auto& ids = a.kind == Arg::input ? op.inputs : op.outputs;
            const std::size_t k = a.index + list_item;
            if (k >= ids.size() || ids[k] >= c.g_.values.size()) return std::nullopt;
            *dt = c.g_.values[ids[k]].type.dtype;
            return cell_of(*dt);
        }
        case Arg::attribute: {
            const Attr* v = op.attr(a.attr);
            if (!v) return std::nullopt;
            if (auto acc = std::get_if<AccType>(v)) return cell_of(*dt = dtype_of(*acc));
            if (auto mode = std::get_if<ResizeMode>(v)) return *mode == ResizeMode::BILINEAR ? Cell::bilinear : Cell::nearest;
            if (auto t = std::get_if<DType>(v)) return cell_of(*dt = *t);
            if (auto k = std::get_if<ConstPtr>(v)) return *k ? cell_of(*dt = (*k)->type.dtype) : std::nullopt;
            return std::nullopt;
        }
    }
    return std::nullopt;
}

// How many items a column argument stands for: the rest of a tensor list, or one.
std::size_t arg_items(const OpCheck& c, const Arg& a) {
    const bool list = a.kind == Arg::input ? c.info_.variadic_inputs && a.index + 1 == c.info_.inputs.size()
                      : a.kind == Arg::output ? c.info_.variadic_outputs && a.index + 1 == c.info_.outputs.size()
                                              : false;
    if (!list) return 1;
    const std::size_t n = a.kind == Arg::input ? c.op_.inputs.size() : c.op_.outputs.size();
    return n > a.index ? n - a.index : 0;
}

struct ColumnValue {
    std::optional<Cell> cell;
    bool from_operands = false;  // an input or attribute decides it (not only results)
};

// Reads the op's value of each column, checking that the arguments of a column agree and that
// fixed-type arguments have their type. `with_outputs`: results take part (validation).
bool column_values(OpCheck& c, const Table& t, bool with_outputs, std::vector<ColumnValue>& values) {
    values.assign(t.columns.size(), {});
    for (std::size_t ci = 0; ci < t.columns.size(); ++ci) {
        const Column& col = t.columns[ci];
        std::string first_name;
        for (const Arg& a : col.args) {
            if (a.kind == Arg::output && !with_outputs) continue;
            for (std::size_t item = 0, n = arg_items(c, a); item < n; ++item) {
                DType dt = DType::none;
                std::optional<Cell> cell = arg_cell(c, a, item, &dt);
                if (!cell) continue;  // absent (an optional attribute), or no element type (a value rule)
                const std::string name = n > 1 ? a.name + "[" + std::to_string(item) + "]" : a.name;
                if (col.fixed) {
                    if (*cell != *col.fixed) {
                        c.fail("tosa-type-table", a.name + " is " + to_string(*col.fixed) + " (argument table)",
                               name + " is " + to_string(*cell));
                        return false;
                    }
                    continue;
                }
                if (!values[ci].cell) {
                    values[ci].cell = cell;
                    values[ci].from_operands = a.kind != Arg::output;
                    first_name = name;
                } else if (*values[ci].cell != *cell) {
                    c.fail("tosa-type-table", col.name + " of " + first_name + " and " + name + " (Supported Data Types)",
                           first_name + " is " + to_string(*values[ci].cell) + " but " + name + " is " + to_string(*cell));
                    return false;
                }
            }
        }
    }
    return true;
}

std::string columns_text(const Table& t, const std::vector<ColumnValue>& values) {
    std::string s;
    for (std::size_t ci : t.row_columns) {
        if (!values[ci].cell) continue;
        if (!s.empty()) s += ", ";
        s += t.columns[ci].name + "=" + to_string(*values[ci].cell);
    }
    return s;
}

bool row_matches(const Table& t, const Row& r, const std::vector<ColumnValue>& values) {
    for (std::size_t k = 0; k < t.row_columns.size(); ++k) {
        const auto& v = values[t.row_columns[k]].cell;
        if (r.cells[k] && v && *r.cells[k] != *v) return false;
    }
    return true;
}

// The Supported Data Types check against the enabled profile and extensions.
void check_types(OpCheck& c, std::uint32_t enabled) {
    const Table& t = type_table(c.op_.kind);
    std::vector<ColumnValue> values;
    if (!column_values(c, t, true, values)) return;
    std::vector<const Row*> matching;
    for (const Row& r : t.rows)
        if (row_matches(t, r, values)) matching.push_back(&r);
    if (matching.empty()) {
        c.fail("tosa-type-table", "Supported Data Types of " + c.info_.name + " (" + c.info_.section + ")",
               "no row has " + columns_text(t, values));
        return;
    }
    std::string needs;
    for (const Row* r : matching) {
        for (std::uint32_t conj : r->any_of)
            if ((conj & ~enabled) == 0) return;
        if (!needs.empty()) needs += " or ";
        needs += r->requirement;
    }
    c.fail("tosa-type-table", "Supported Data Types of " + c.info_.name + " (" + c.info_.section + ")",
           (values.empty() || columns_text(t, values).empty() ? std::string("the operator") : columns_text(t, values)) +
               " needs " + needs);
}

// The element type of result o that the table implies (inference).
DType infer_dtype(OpCheck& c, std::size_t o, std::string* why) {
    const Table& t = type_table(c.op_.kind);
    std::vector<ColumnValue> values;
    if (!column_values(c, t, false, values)) {
        if (why) *why = c.info_.name + ": " + c.failure->rule + ": " + c.failure->detail;
        return DType::none;
    }
    for (std::size_t ci = 0; ci < t.columns.size(); ++ci) {
        const Column& col = t.columns[ci];
        bool has = false;
        for (const Arg& a : col.args)
            if (a.kind == Arg::output && (a.index == o || (c.info_.variadic_outputs && a.index + 1 == c.info_.outputs.size() &&
                                                           o >= a.index)))
                has = true;
        if (!has) continue;
        if (col.fixed) return dtype_of(*col.fixed);
        if (values[ci].cell) return dtype_of(*values[ci].cell);
        // Open: the rows that match the operands decide, or the existing result among them.
        std::vector<Cell> candidates;
        std::size_t k = 0;
        while (k < t.row_columns.size() && t.row_columns[k] != ci) ++k;
        for (const Row& r : t.rows)
            if (row_matches(t, r, values) && r.cells[k] && dtype_of(*r.cells[k]) != DType::none &&
                std::find(candidates.begin(), candidates.end(), *r.cells[k]) == candidates.end())
                candidates.push_back(*r.cells[k]);
        if (candidates.size() == 1) return dtype_of(candidates[0]);
        if (const TensorType* a = c.actual_out(o)) {
            auto cell = cell_of(a->dtype);
            if (cell && std::find(candidates.begin(), candidates.end(), *cell) != candidates.end()) return a->dtype;
        }
        if (why) {
            *why = c.info_.name + ": the element type of " + c.info_.outputs[std::min(o, c.info_.outputs.size() - 1)] +
                   " (" + col.name + ") is not implied by the operands";
            if (candidates.empty()) {
                *why += "; no row of the Supported Data Types table has " + columns_text(t, values);
            } else {
                *why += " (one of";
                for (Cell cc : candidates) *why += std::string(" ") + to_string(cc);
                *why += ")";
            }
        }
        return DType::none;
    }
    if (why) *why = c.info_.name + ": result " + std::to_string(o) + " has no type in the Supported Data Types table";
    return DType::none;
}

}  // namespace checks

}  // namespace nnef::tosa
