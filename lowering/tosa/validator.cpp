#include "lowering/tosa/validator.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <set>
#include <stdexcept>
#include <unordered_map>
#include <utility>

#include "lowering/tosa/ops/check.hpp"
#include "lowering/tosa/ops/registry.hpp"

namespace nnef::tosa {

// ---- extensions ------------------------------------------------------------------------------

namespace checks {

constexpr std::array<const char*, extension_count> extension_names = {
    "EXT-INT16", "EXT-INT4",        "EXT-BF16",    "EXT-FP8E4M3",     "EXT-FP8E5M2",     "EXT-FFT",
    "EXT-VARIABLE", "EXT-CONTROLFLOW", "EXT-DYNAMIC", "EXT-DOUBLEROUND", "EXT-INEXACTROUND",
};


// Table 3, "Allowed profiles".
constexpr std::array<std::uint32_t, extension_count> extension_profiles = {
    atom_pro_int,                // EXT-INT16
    atom_pro_int,                // EXT-INT4
    atom_pro_fp,                 // EXT-BF16
    atom_pro_fp,                 // EXT-FP8E4M3
    atom_pro_fp,                 // EXT-FP8E5M2
    atom_pro_fp,                 // EXT-FFT
    atom_pro_int | atom_pro_fp,  // EXT-VARIABLE
    atom_pro_int | atom_pro_fp,  // EXT-CONTROLFLOW
    atom_pro_int | atom_pro_fp,  // EXT-DYNAMIC
    atom_pro_int,                // EXT-DOUBLEROUND
    atom_pro_int,                // EXT-INEXACTROUND
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
struct CtcInputs {
    std::vector<std::size_t> inputs;
    std::uint32_t profiles = 0;
};
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

// ---- per-operator checks (lowering/tosa/ops/*.cpp, by the registry) -----------------------------

// The operator's own rules (after operand counts and attribute kinds are known to be right).
void check_operator(OpCheck& c) { ops::functions(c.op_.kind).check(c); }

// ---- structure: operand counts and attributes ------------------------------------------------

bool kind_matches(AttrKind k, const Attr& a) {
    switch (k) {
        case AttrKind::i32: return std::holds_alternative<I64>(a);
        case AttrKind::boolean: return std::holds_alternative<bool>(a);
        case AttrKind::i32s:
        case AttrKind::shape: return std::holds_alternative<std::vector<I64>>(a);
        case AttrKind::num: return std::holds_alternative<double>(a) || std::holds_alternative<I64>(a);
        case AttrKind::acc: return std::holds_alternative<AccType>(a);
        case AttrKind::nan: return std::holds_alternative<NanMode>(a);
        case AttrKind::round: return std::holds_alternative<RoundingMode>(a);
        case AttrKind::resize: return std::holds_alternative<ResizeMode>(a);
        case AttrKind::str: return std::holds_alternative<std::string>(a);
        case AttrKind::dtype: return std::holds_alternative<DType>(a);
        case AttrKind::tensor: return std::holds_alternative<ConstPtr>(a) && std::get<ConstPtr>(a) != nullptr;
        case AttrKind::graph: return std::holds_alternative<BlockRef>(a);
    }
    return false;
}

bool fits_i32(I64 v) { return v >= std::numeric_limits<std::int32_t>::min() && v <= std::numeric_limits<std::int32_t>::max(); }

// Operand / result counts, value ids, attributes. Returns false (failure recorded) when the
// operator's own rules cannot be evaluated.
bool check_structure(OpCheck& c) {
    const Op& op = c.op_;
    const OpInfo& info = c.info_;
    const Graph& g = c.g_;
    auto count_ok = [](std::size_t n, std::size_t spec, bool variadic) { return variadic ? n + 1 >= spec : n == spec; };
    auto count_text = [](std::size_t spec, bool variadic) {
        return variadic ? "at least " + std::to_string(spec - 1) : std::to_string(spec);
    };
    if (!count_ok(op.inputs.size(), info.inputs.size(), info.variadic_inputs)) {
        c.fail("tosa-operands", "operand count (argument table)",
               std::to_string(op.inputs.size()) + " operands, the spec has " +
                   count_text(info.inputs.size(), info.variadic_inputs));
        return false;
    }
    if (c.validating() && !count_ok(op.outputs.size(), info.outputs.size(), info.variadic_outputs)) {
        c.fail("tosa-operands", "result count (argument table)",
               std::to_string(op.outputs.size()) + " results, the spec has " +
                   count_text(info.outputs.size(), info.variadic_outputs));
        return false;
    }
    for (ValueId v : op.inputs)
        if (v >= g.values.size()) {
            c.fail("tosa-ssa", "operands are values of the graph", "%" + std::to_string(v) + " does not exist");
            return false;
        }
    for (ValueId v : op.outputs)
        if (v >= g.values.size()) {
            c.fail("tosa-ssa", "results are values of the graph", "%" + std::to_string(v) + " does not exist");
            return false;
        }
    for (std::size_t i = 0; i < op.attrs.size(); ++i) {
        const AttrName n = op.attrs[i].first;
        if (!info.attribute(n)) {
            c.fail("tosa-attribute", "the operator's attributes (argument table)",
                   std::string("unknown attribute '") + to_string(n) + "'");
            return false;
        }
        for (std::size_t j = 0; j < i; ++j)
            if (op.attrs[j].first == n) {
                c.fail("tosa-attribute", "the operator's attributes (argument table)",
                       std::string("attribute '") + to_string(n) + "' given twice");
                return false;
            }
    }
    for (const AttrSpec& spec : info.attributes) {
        const Attr* a = op.attr(spec.name);
        if (!a) {
            if (spec.optional) continue;
            c.fail("tosa-attribute", "required attribute (argument table)",
                   std::string("missing attribute '") + to_string(spec.name) + "' (" + to_string(spec.kind) + ")");
            return false;
        }
        if (!kind_matches(spec.kind, *a)) {
            c.fail("tosa-attribute", "attribute kind (argument table)",
                   std::string("attribute '") + to_string(spec.name) + "' must be " + to_string(spec.kind) + ", it is " +
                       to_string(*a));
            return false;
        }
        // i32_t attributes and T<i32_t> arrays hold 32-bit values.
        if (spec.kind == AttrKind::i32 && !fits_i32(std::get<I64>(*a))) {
            c.fail("tosa-attribute", "attribute type i32_t (argument table)",
                   std::string("attribute '") + to_string(spec.name) + "' is " + to_string(*a));
            return false;
        }
        if (spec.kind == AttrKind::i32s)
            for (I64 v : std::get<std::vector<I64>>(*a))
                if (!fits_i32(v)) {
                    c.fail("tosa-attribute", "attribute type T<i32_t> (argument table)",
                           std::string("attribute '") + to_string(spec.name) + "' is " + to_string(*a));
                    return false;
                }
        if (spec.kind == AttrKind::graph) {
            const std::uint32_t b = std::get<BlockRef>(*a).block;
            if (b == 0 || b >= g.blocks.size()) {
                c.fail("tosa-attribute", "tosa_graph_t attribute (argument table)",
                       std::string("attribute '") + to_string(spec.name) + "' names block " + std::to_string(b) +
                           ", which is not a control-flow graph of this graph");
                return false;
            }
        }
    }
    return true;
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

// ---- infer_output_types ----------------------------------------------------------------------

std::optional<std::vector<TensorType>> infer_output_types(const Graph& g, const Op& op, std::string* why) {
    using namespace checks;
    OpCheck c(g, op, nullptr, ProducerLookup{g, nullptr});
    auto fail_with = [&](const std::string& text) -> std::optional<std::vector<TensorType>> {
        if (why) *why = text;
        return std::nullopt;
    };
    if (!check_structure(c)) return fail_with(op_info(op.kind).name + ": " + c.failure->rule + ": " + c.failure->detail);
    check_operator(c);
    if (c.failed()) {
        std::string text = op_info(op.kind).name + ": " + c.failure->rule;
        if (!c.failure->detail.empty()) text += ": " + c.failure->detail;
        return fail_with(text);
    }
    if (c.outputs_free) return fail_with("CUSTOM: the result types are implementation defined");
    for (std::size_t o = 0; o < c.out.size(); ++o) {
        for (I64 e : c.out[o].shape)
            if (e == unknown)
                return fail_with(op_info(op.kind).name + ": the result shape depends on a shape operand that is not a CONST_SHAPE");
        if (c.out[o].dtype == DType::none) {
            std::string reason;
            c.out[o].dtype = infer_dtype(c, o, &reason);
            if (c.out[o].dtype == DType::none) return fail_with(reason);
        }
    }
    return c.out;
}

// ---- validate --------------------------------------------------------------------------------

namespace checks {

class Validator {
public:
    Validator(const Graph& g, const ValidateOptions& o, Diagnostics& d) : g_(g), opts_(o), diags_(d) {}

    bool run() {
        const std::size_t errors_before = diags_.error_count();
        if (!check_options()) return false;
        if (g_.blocks.empty()) {
            diags_.error(Stage::tosa, "tosa-ssa", "the TOSA graph has no main block");
            return false;
        }
        producers_.assign(g_.values.size(), nullptr);
        def_block_.assign(g_.values.size(), unset);
        defined_.assign(g_.values.size(), false);
        block_users_.assign(g_.blocks.size(), 0);
        for (const Block& b : g_.blocks)
            for (const Op& op : b.ops)
                for (ValueId v : op.outputs)
                    if (v < producers_.size() && !producers_[v]) producers_[v] = &op;
        declare_variables();
        walk(0, 0);
        for (std::uint32_t b = 1; b < g_.blocks.size(); ++b)
            if (block_users_[b] == 0 && !diags_.limit_reached())
                diags_.error(Stage::tosa, "tosa-ssa",
                             "block ^" + std::to_string(b) + " '" + g_.blocks[b].name +
                                 "' is not the graph of any COND_IF / WHILE_LOOP reachable from the main graph");
        return diags_.error_count() == errors_before;
    }

private:
    static constexpr std::uint32_t unset = std::numeric_limits<std::uint32_t>::max();

    bool check_options() {
        enabled_ = opts_.profile == Profile::pro_int ? atom_pro_int : atom_pro_fp;
        for (Profile p : opts_.also_profiles) enabled_ |= p == Profile::pro_int ? atom_pro_int : atom_pro_fp;
        std::string profiles = to_string(opts_.profile);
        if ((enabled_ & (atom_pro_int | atom_pro_fp)) == (atom_pro_int | atom_pro_fp)) profiles = "PRO-INT and PRO-FP";
        bool ok = true;
        for (const std::string& name : opts_.extensions) {
            auto e = extension_from_string(name);
            if (!e) {
                diags_.error(Stage::tosa, "tosa-options", "unknown TOSA extension '" + name + "' (spec 1.6, table 3)");
                ok = false;
                continue;
            }
            if (!(extension_profiles[static_cast<std::size_t>(*e)] & enabled_)) {
                diags_.error(Stage::tosa, "tosa-options",
                             std::string(to_string(*e)) + " is not allowed with " + profiles + " (spec 1.6, table 3)");
                ok = false;
                continue;
            }
            enabled_ |= atom(*e);
        }
        return ok;
    }

    void declare_variables() {
        for (std::uint32_t b = 0; b < g_.blocks.size(); ++b) {
            const Block& block = g_.blocks[b];
            for (std::uint32_t i = 0; i < block.ops.size(); ++i) {
                const Op& op = block.ops[i];
                if (op.kind != OpKind::VARIABLE) continue;
                const auto* name = std::get_if<std::string>(op.attr(AttrName::name));
                if (!name) continue;
                auto [it, fresh] = variables_.emplace(*name, std::make_pair(b, i));
                if (!fresh)
                    report(b, i, op,
                           Failure{"tosa-require", "REQUIRE(!var_tensor.seen)",
                                   "variable '" + *name + "' is declared twice (first: operator " +
                                       std::to_string(it->second.second) + " of block " + g_.blocks[it->second.first].name +
                                       ")"});
            }
        }
    }

    std::string label(std::uint32_t b, std::uint32_t i, const Op& op) const {
        std::string s = std::string(to_string(op.kind)) + " (operator " + std::to_string(i);
        s += b == 0 ? std::string(" of the main graph") : " of block ^" + std::to_string(b) + " '" + g_.blocks[b].name + "'";
        if (op.origin != no_origin && op.origin < g_.origins.size()) {
            const Origin& o = g_.origins[op.origin];
            s += ", from NNEF " + o.operation;
            if (!o.tensor.empty()) s += " '" + o.tensor + "'";
        }
        return s + ")";
    }

    void report(std::uint32_t b, std::uint32_t i, const Op& op, const Failure& f) {
        std::string message = label(b, i, op) + ": " + f.rule;
        if (!f.detail.empty()) message += ": " + f.detail;
        SourceRange range;
        const Origin* origin = op.origin != no_origin && op.origin < g_.origins.size() ? &g_.origins[op.origin] : nullptr;
        if (origin) range = origin->provenance.range;
        Diagnostic& d = diags_.error(Stage::tosa, f.code, std::move(message), range);
        if (origin)
            for (const CallSite& cs : origin->provenance.chain)
                d.notes.push_back(Note{"in expansion of '" + cs.fragment + "'", cs.range});
    }

    // Value-level rules at the definition of v: an element type, extents >= 1 (tensor_size), the
    // size limit of MAX_LOG2_SIZE; shape_t values are one-dimensional.
    std::optional<Failure> value_rules(ValueId v) const {
        const TensorType& t = g_.values[v].type;
        const std::string name = "%" + std::to_string(v) + (g_.values[v].name.empty() ? "" : " '" + g_.values[v].name + "'");
        if (t.dtype == DType::none) return Failure{"tosa-type-table", "tensors have an element type", name + " has none"};
        if (t.dtype == DType::shape) {
            if (t.shape.size() != 1 || t.shape[0] < 0)
                return Failure{"tosa-argument", "shape_t values are shape_t<[rank]>", name + " is " + to_string(t)};
            return std::nullopt;
        }
        for (I64 e : t.shape)
            if (e < 1) return Failure{"tosa-require", "REQUIRE(1 <= shape[i]) (tensor_size, 4.4.1)", name + " is " + to_string(t)};
        // Size in bytes < 2^MAX_LOG2_SIZE, computed without overflow.
        const int log2 = static_cast<int>(std::min<I64>(opts_.level.max_log2_size, 63));
        const std::uint64_t limit = std::uint64_t(1) << log2;
        std::uint64_t bytes = static_cast<std::uint64_t>(element_bytes(t.dtype));
        for (I64 e : t.shape) {
            const std::uint64_t ue = static_cast<std::uint64_t>(e);
            if (bytes > (limit - 1) / ue) {
                return Failure{"tosa-level",
                               "tensor size in bytes is a tensor_size_t: below 2^MAX_LOG2_SIZE = 2^" + std::to_string(log2) +
                                   " at level " + opts_.level.name + " (1.11.1)",
                               name + " is " + to_string(t)};
            }
            bytes *= ue;
        }
        return std::nullopt;
    }

    template <class Fail>
    void define(ValueId v, std::uint32_t block, const Fail& fail) {
        if (defined_[v] || def_block_[v] != unset) {
            fail(Failure{"tosa-ssa", "every value is defined once",
                         "%" + std::to_string(v) + " is already defined in block " +
                             (def_block_[v] == unset ? std::string("?") : g_.blocks[def_block_[v]].name)});
            return;
        }
        defined_[v] = true;
        def_block_[v] = block;
        if (auto f = value_rules(v)) fail(*f);
    }

    void walk(std::uint32_t b, int depth) {
        const Block& block = g_.blocks[b];
        const std::string where = b == 0 ? std::string("the main graph") : "block ^" + std::to_string(b) + " '" + block.name + "'";
        for (ValueId v : block.inputs) {
            auto fail = [&](const Failure& f) {
                diags_.error(Stage::tosa, f.code, "input of " + where + ": " + f.rule + (f.detail.empty() ? "" : ": " + f.detail));
            };
            if (v >= g_.values.size()) {
                fail(Failure{"tosa-ssa", "block inputs are values of the graph", "%" + std::to_string(v) + " does not exist"});
                continue;
            }
            define(v, b, fail);
            if (g_.values[v].type.dtype == DType::shape)
                fail(Failure{"tosa-argument", "the inputs of a graph may not be shape_t (2.2)", "%" + std::to_string(v)});
            else if (g_.values[v].type.rank() > static_cast<std::size_t>(opts_.level.max_rank))
                fail(Failure{"tosa-level", "LEVEL_CHECK(rank(shape) <= MAX_RANK)",
                             "%" + std::to_string(v) + " is " + to_string(g_.values[v].type) + ", MAX_RANK is " +
                                 std::to_string(opts_.level.max_rank) + " at level " + opts_.level.name});
        }
        for (std::uint32_t i = 0; i < block.ops.size() && !diags_.limit_reached(); ++i) check_op(b, i, depth);
        for (ValueId v : block.outputs) {
            std::string problem;
            if (v >= g_.values.size())
                problem = "%" + std::to_string(v) + " does not exist";
            else if (def_block_[v] != b || !defined_[v])
                problem = "%" + std::to_string(v) + " is not defined in " + where;
            else if (g_.values[v].type.dtype == DType::shape)
                problem = "%" + std::to_string(v) + " is shape_t, which a graph may not return (2.2)";
            if (!problem.empty())
                diags_.error(Stage::tosa, "tosa-ssa", "output of " + where + ": " + problem);
        }
    }

    void check_op(std::uint32_t b, std::uint32_t i, int depth) {
        const Op& op = g_.blocks[b].ops[i];
        auto fail = [&](const Failure& f) { report(b, i, op, f); };
        OpCheck c(g_, op, &opts_, ProducerLookup{g_, &producers_});
        c.variables = &variables_;
        bool structure_ok = check_structure(c);
        // SSA: operands defined before, in this block.
        if (structure_ok) {
            for (std::size_t k = 0; k < op.inputs.size(); ++k) {
                const ValueId v = op.inputs[k];
                if (!defined_[v] || def_block_[v] != b) {
                    c.fail("tosa-ssa", "operands are defined before use, in the same graph",
                           "operand " + std::to_string(k) + " %" + std::to_string(v) +
                               (def_block_[v] == unset ? std::string(" is not defined before this operator")
                                                       : " is defined in block '" + g_.blocks[def_block_[v]].name + "'"));
                    break;
                }
            }
        }
        // Control flow: nesting and the graphs (checked before the operator's own rules, which
        // read the graphs' interfaces).
        const bool control = op.kind == OpKind::COND_IF || op.kind == OpKind::WHILE_LOOP;
        std::vector<std::uint32_t> sub_blocks;
        bool nesting_ok = true;
        if (structure_ok && control) {
            for (const auto& [name, value] : op.attrs)
                if (auto ref = std::get_if<BlockRef>(&value)) sub_blocks.push_back(ref->block);
            for (std::uint32_t sb : sub_blocks) {
                if (++block_users_[sb] > 1)
                    c.fail("tosa-ssa", "each control-flow graph belongs to one operator",
                           "block ^" + std::to_string(sb) + " '" + g_.blocks[sb].name + "' is used more than once");
            }
            nesting_ok = !c.error_if(depth >= opts_.level.max_nesting, "tosa_nesting_depth >= MAX_NESTING",
                                     "nesting depth " + std::to_string(depth) + ", MAX_NESTING is " +
                                         std::to_string(opts_.level.max_nesting) + " at level " + opts_.level.name);
            if (!c.failed()) {
                const std::size_t in_list = op.kind == OpKind::COND_IF ? op.inputs.size() - 1 : op.inputs.size();
                if (!c.level(static_cast<I64>(in_list), opts_.level.max_tensor_list_size,
                             "tensor_list_shape(input_list) <= MAX_TENSOR_LIST_SIZE"))
                    c.level(static_cast<I64>(op.outputs.size()), opts_.level.max_tensor_list_size,
                            "tensor_list_shape(output_list) <= MAX_TENSOR_LIST_SIZE");
            }
        }
        if (structure_ok && !c.failed()) {
            // LEVEL_CHECK(rank(shape) <= MAX_RANK) on the tensors of the operator.
            auto rank_ok = [&](const std::vector<ValueId>& vs, const char* what) {
                for (ValueId v : vs) {
                    const TensorType& t = g_.values[v].type;
                    if (t.dtype != DType::shape && c.level(static_cast<I64>(t.rank()), opts_.level.max_rank, "rank(shape) <= MAX_RANK")) {
                        c.failure->detail = std::string(what) + " %" + std::to_string(v) + " is " + to_string(t) + ": " +
                                            c.failure->detail;
                        return false;
                    }
                }
                return true;
            };
            if (rank_ok(op.inputs, "operand")) rank_ok(op.outputs, "result");
        }
        if (structure_ok && !c.failed()) check_types(c, enabled_);
        if (structure_ok && !c.failed()) ctc_rules(c);
        // The sub-graphs are walked before the operator's results are defined.
        if (structure_ok && control && nesting_ok && block_ok(sub_blocks))
            for (std::uint32_t sb : sub_blocks) walk(sb, depth + 1);
        if (structure_ok && !c.failed()) check_operator(c);
        if (structure_ok && !c.failed() && !c.outputs_free) compare_results(c);
        if (c.failed()) fail(*c.failure);
        // Results are defined even after a failure, so that later operators do not cascade.
        if (structure_ok)
            for (ValueId v : op.outputs) define(v, b, fail);
    }

    bool block_ok(const std::vector<std::uint32_t>& blocks) const {
        for (std::uint32_t sb : blocks)
            if (sb == 0 || sb >= g_.blocks.size() || block_users_[sb] != 1) return false;
        return true;
    }

    // Compile Time Constant inputs come from CONST / CONST_SHAPE (2.1), unless EXT-DYNAMIC.
    void ctc_rules(OpCheck& c) const {
        if (enabled_ & atom(Extension::dynamic)) return;
        const CtcInputs& ctc = ctc_inputs(c.op_.kind);
        if (!(ctc.profiles & enabled_)) return;
        for (std::size_t i : ctc.inputs) {
            const Op* p = producers_[c.op_.inputs[i]];
            // shape_t operands come from CONST_SHAPE, tensors from CONST.
            const OpKind want = c.idt(i) == DType::shape ? OpKind::CONST_SHAPE : OpKind::CONST;
            if (!p || p->kind != want) {
                c.fail("tosa-ctc", "Compile Time Constant Status: " + c.iname(i) + " is a CTC input (2.1)",
                       c.iname(i) + " is " + (p ? std::string("the result of ") + to_string(p->kind) : std::string("a graph input")) +
                           ", not of " + to_string(want) + " (EXT-DYNAMIC is not enabled)");
                return;
            }
        }
    }

    // The result types against the spec's: the extents were compared by the operator's rules;
    // here the counts (tensor lists) and the element types that the operands decide.
    void compare_results(OpCheck& c) const {
        const Op& op = c.op_;
        if (c.out.size() != op.outputs.size()) {
            c.fail("tosa-operands", "result count", std::to_string(op.outputs.size()) + " results, the spec implies " +
                                                        std::to_string(c.out.size()));
            return;
        }
        for (std::size_t o = 0; o < c.out.size(); ++o) {
            const TensorType& a = g_.values[op.outputs[o]].type;
            const TensorType& e = c.out[o];
            if (e.dtype != DType::none && a.dtype != e.dtype) {
                c.fail("tosa-type-table", "element type of " + c.info_.outputs[std::min(o, c.info_.outputs.size() - 1)],
                       "result " + std::to_string(o) + " is " + to_string(a) + ", the spec implies " + to_string(e.dtype));
                return;
            }
            if (a.shape.size() != e.shape.size()) {
                c.fail("tosa-error-if", "shape of " + c.info_.outputs[std::min(o, c.info_.outputs.size() - 1)],
                       "result " + std::to_string(o) + " is " + to_string(a) + ", the spec implies rank " +
                           std::to_string(e.shape.size()));
                return;
            }
            for (std::size_t d = 0; d < e.shape.size(); ++d)
                if (e.shape[d] != unknown && e.shape[d] != a.shape[d]) {
                    c.fail("tosa-error-if", "shape of " + c.info_.outputs[std::min(o, c.info_.outputs.size() - 1)],
                           "result " + std::to_string(o) + " is " + to_string(a) + ", the spec implies " + shape_text(e.shape));
                    return;
                }
        }
    }

    const Graph& g_;
    const ValidateOptions& opts_;
    Diagnostics& diags_;
    std::uint32_t enabled_ = 0;
    std::vector<const Op*> producers_;
    std::vector<std::uint32_t> def_block_;
    std::vector<bool> defined_;
    std::vector<int> block_users_;
    std::map<std::string, std::pair<std::uint32_t, std::uint32_t>> variables_;
};

}  // namespace checks

bool validate(const Graph& g, const ValidateOptions& options, Diagnostics& diags) {
    return checks::Validator(g, options, diags).run();
}

bool validate_after_pass(const Graph& g, const ValidateOptions& options, const std::string& after_pass,
                         Diagnostics& diags) {
    // The errors still allowed (at least one, as 0 would mean no cap); diags drops the rest.
    const std::size_t cap = diags.max_errors();
    Diagnostics local(cap == 0 ? 0 : std::max<std::size_t>(1, cap - std::min(cap, diags.error_count())));
    const bool ok = validate(g, options, local);
    const std::string note = after_pass.empty() ? std::string("in the input of the lowering pipeline")
                                                : "after the lowering pass '" + after_pass + "'";
    for (Diagnostic d : local) {
        d.notes.push_back(Note{note, {}});
        diags.add(std::move(d));
    }
    return ok;
}

}  // namespace nnef::tosa
