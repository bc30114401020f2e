// What the validator (validator.cpp) gives the per-operator checks of lowering/tosa/ops/*.cpp: the
// checking context of one operator (OpCheck: its operands, attributes, constant operands, expected
// results, and the ERROR_IF / REQUIRE / LEVEL_CHECK rules with their one wording and error code),
// and the table types in which each family file writes its Supported Data Types and Compile Time
// Constant tables. Internal to lowering/tosa.
#pragma once
#include <algorithm>
#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "lowering/tosa/ir.hpp"
#include "lowering/tosa/validator.hpp"

namespace nnef::tosa::checks {

// Requirement atoms: bit 0 PRO-INT, bit 1 PRO-FP, bit 2 + e extension e.
constexpr std::uint32_t atom_pro_int = 1u << 0;
constexpr std::uint32_t atom_pro_fp = 1u << 1;
constexpr std::uint32_t atom(Extension e) { return 1u << (2 + static_cast<unsigned>(e)); }

// One operator's table, as the spec writes it. `columns` names the type variables in the spec's
// column order, each followed by the arguments that have that type ("in_t=input=input_zp": the
// input and its zero point are both in_t); a variable without arguments (acc_t of REDUCE_SUM) is
// internal and not checked; a concrete type ("i8_t=shift") is a fixed type of those arguments, not
// a column. Arguments are operand, result or attribute names of ops.def (acc_type, mode and
// VARIABLE's type stand for their value). Rows: {"profile/extension", "cells of the columns"},
// where the requirement is a disjunction ("PRO-INT or PRO-FP") of conjunctions ("EXT-BF16 and
// EXT-FP8E4M3"), and "-" in the mode column of RESIZE means any mode.
struct TableText {
    OpKind op;
    const char* columns;
    std::vector<std::pair<const char*, const char*>> rows;
};

// Row lists that several operators share.
using Rows = std::vector<std::pair<const char*, const char*>>;
inline const Rows fp_rows = {{"PRO-FP", "fp16"}, {"PRO-FP", "fp32"}, {"EXT-BF16", "bf16"}};
inline const Rows int_bitwise_rows = {{"PRO-INT", "i16"}, {"PRO-INT", "i32"}, {"PRO-INT", "i8"}};
inline const Rows shift_rows = {{"PRO-INT or PRO-FP", "i16"}, {"PRO-INT or PRO-FP", "i32"}, {"PRO-INT or PRO-FP", "i8"}};
inline const Rows bool_rows = {{"PRO-INT or PRO-FP", "bool"}};
inline const Rows add_rows = {{"PRO-FP", "fp16"}, {"PRO-FP", "fp32"}, {"PRO-INT or PRO-FP", "i32"}, {"EXT-BF16", "bf16"}};
inline const Rows minmax_rows = {{"PRO-FP", "fp16"}, {"PRO-FP", "fp32"}, {"PRO-INT", "i32"}, {"EXT-BF16", "bf16"}};
inline const Rows compare_rows = {{"PRO-FP", "fp16 bool"}, {"PRO-FP", "fp32 bool"}, {"PRO-INT", "i32 bool"}, {"EXT-BF16", "bf16 bool"}};
inline const Rows reduce_minmax_rows = {{"PRO-FP", "fp16"}, {"PRO-FP", "fp32"}, {"PRO-INT", "i16"},
                                 {"PRO-INT", "i32"}, {"PRO-INT", "i8"},  {"EXT-BF16", "bf16"}};
// PAD, RESHAPE, REVERSE, SLICE, TILE, TRANSPOSE.
inline const Rows layout_rows = {{"PRO-FP", "fp16"},   {"PRO-FP", "fp32"},          {"PRO-INT or PRO-FP", "bool"},
                          {"PRO-INT", "i16"},   {"PRO-INT", "i32"},          {"PRO-INT", "i8"},
                          {"EXT-BF16", "bf16"}, {"EXT-FP8E4M3", "fp8e4m3"}, {"EXT-FP8E5M2", "fp8e5m2"}};
inline const Rows conv_rows = {{"PRO-FP", "fp16 fp16 fp16 fp16"},
                        {"PRO-FP", "fp16 fp16 fp16 fp32"},
                        {"PRO-FP", "fp32 fp32 fp32 fp32"},
                        {"PRO-INT", "i8 i8 i32 i32"},
                        {"EXT-BF16", "bf16 bf16 bf16 fp32"},
                        {"EXT-FP8E4M3", "fp8e4m3 fp8e4m3 fp16 fp16"},
                        {"EXT-FP8E5M2", "fp8e5m2 fp8e5m2 fp16 fp16"},
                        {"EXT-INT16", "i16 i8 i48 i48"},
                        {"EXT-INT4", "i8 i4 i32 i32"}};
inline const char* const conv_columns = "in_t=input=input_zp weight_t=weight=weight_zp out_t=bias=output acc_t=acc_type";
inline const Rows gather_rows = {{"PRO-FP", "i32 fp16"},   {"PRO-FP", "i32 fp32"},   {"PRO-INT", "i32 i16"},
                          {"PRO-INT", "i32 i32"},   {"PRO-INT", "i32 i8"},    {"EXT-BF16", "i32 bf16"},
                          {"EXT-FP8E4M3", "i32 fp8e4m3"}, {"EXT-FP8E5M2", "i32 fp8e5m2"}};
inline const Rows data_node_rows = {{"PRO-FP", "fp16"},
                             {"PRO-FP", "fp32"},
                             {"PRO-INT or PRO-FP", "i16"},
                             {"PRO-INT or PRO-FP", "i32"},
                             {"PRO-INT or PRO-FP", "i8"},
                             {"PRO-INT or PRO-FP", "bool"},
                             {"EXT-BF16", "bf16"},
                             {"EXT-FP8E4M3", "fp8e4m3"},
                             {"EXT-FP8E5M2", "fp8e5m2"},
                             {"EXT-INT16", "i48"},
                             {"EXT-INT4", "i4"}};
inline const Rows variable_rows = {{"EXT-VARIABLE and PRO-FP", "fp16"}, {"EXT-VARIABLE and PRO-FP", "fp32"},
                            {"EXT-VARIABLE and PRO-INT", "i8"}};


// Compile Time Constant inputs (the spec's "Compile Time Constant Status" tables): the operands
// that must come from CONST / CONST_SHAPE in the given profiles unless EXT-DYNAMIC is enabled.
struct CtcText {
    OpKind op;
    const char* args;
    std::uint32_t profiles;
};

// The tables of every operator, filled by the family files (ops/registry.cpp collects them).
struct Tables {
    std::vector<TableText> types;
    std::vector<CtcText> ctc;
};

using I64 = std::int64_t;

struct Failure {
    std::string code;    // "tosa-error-if", ...
    std::string rule;    // as the spec writes it
    std::string detail;  // what was found
};

inline std::string ints_text(const std::vector<I64>& v) {
    std::string s = "[";
    for (std::size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + std::to_string(v[i]);
    return s + "]";
}

inline std::string shape_text(const Shape& s) { return ints_text(s); }

// Bytes of an element for the tensor size limit (1.11.1; bool as one byte, i48 as six, unlike its
// eight bytes of storage).
inline int element_bytes(DType t) { return t == DType::i48 ? 6 : static_cast<int>(storage_bytes(t)); }

inline bool is_pow2(I64 v) { return v > 0 && (v & (v - 1)) == 0; }

// The spec's shape of a value whose rank and extents are not yet known: -1 extents.
constexpr I64 unknown = -1;

// Looks up the producer of values: a table built once (validate) or a scan (infer_output_types).
struct ProducerLookup {
    const Graph& g;
    const std::vector<const Op*>* table = nullptr;
    const Op* operator()(ValueId v) const {
        if (table) return v < table->size() ? (*table)[v] : nullptr;
        // Backwards: a builder usually creates the constants of an operator just before it.
        for (const Block& b : g.blocks)
            for (auto op = b.ops.rbegin(); op != b.ops.rend(); ++op)
                for (ValueId o : op->outputs)
                    if (o == v) return &*op;
        return nullptr;
    }
};

// The checking of one operator: the operand and attribute rules, the ERROR_IFs, the levels (when
// validating) and the expected result types (`out`, with unknown extents where the spec gives no
// value, e.g. a shape operand that is not constant under EXT-DYNAMIC).
class OpCheck {
public:
    OpCheck(const Graph& g, const Op& op, const ValidateOptions* opts, ProducerLookup producers)
        : g_(g), op_(op), info_(op_info(op.kind)), opts_(opts), producers_(producers), results_checked(opts != nullptr) {}

    const Graph& g_;
    const Op& op_;
    const OpInfo& info_;
    const ValidateOptions* opts_;  // null: inferring only (no level checks, no comparison)
    ProducerLookup producers_;
    // VARIABLE declarations by name (validate collects them once); null: look them up.
    const std::map<std::string, std::pair<std::uint32_t, std::uint32_t>>* variables = nullptr;
    std::vector<TensorType> out;  // expected result types
    bool outputs_free = false;    // CUSTOM: no expectation
    // The operator's declared result types are compared with the expected ones (the result count,
    // ranks and extents): when validating, and in operator_rules (the interpreter's one source of
    // these rules); not when only inferring them.
    bool results_checked;
    std::optional<Failure> failure;

    bool validating() const { return opts_ != nullptr; }
    bool failed() const { return failure.has_value(); }

    // Where the first failure was decided: the source file and line of the rule's call (the
    // compiler's __builtin_FILE / __builtin_LINE of the caller). operator_rules reports it, so the
    // tests can check that a hand-broken graph reaches every ERROR_IF and REQUIRE of the checks
    // (tests/unit/tosa/error_if_sites_test.cpp).
    const char* failure_file = "";
    int failure_line = 0;

    bool fail(std::string code, std::string rule, std::string detail = {}, const char* file = __builtin_FILE(),
              int line = __builtin_LINE()) {
        if (!failure) {
            failure = Failure{std::move(code), std::move(rule), std::move(detail)};
            failure_file = file;
            failure_line = line;
        }
        return true;
    }
    // True (and the failure recorded) when the ERROR_IF condition holds.
    bool error_if(bool cond, const std::string& rule, const std::string& detail = {}, const char* file = __builtin_FILE(),
                  int line = __builtin_LINE()) {
        return cond && fail("tosa-error-if", "ERROR_IF(" + rule + ")", detail, file, line);
    }
    bool require(bool ok, const std::string& rule, const std::string& detail = {}, const char* file = __builtin_FILE(),
                 int line = __builtin_LINE()) {
        return !ok && fail("tosa-require", "REQUIRE(" + rule + ")", detail, file, line);
    }
    bool argument(bool ok, const std::string& rule, const std::string& detail = {}) {
        return !ok && fail("tosa-argument", rule, detail);
    }
    // LEVEL_CHECK(value <= limit): only when validating.
    bool level(I64 value, I64 limit, const std::string& rule) {
        if (!validating() || value <= limit) return false;
        return fail("tosa-level", "LEVEL_CHECK(" + rule + ")",
                    std::to_string(value) + " exceeds " + std::to_string(limit) + " at level " + opts_->level.name);
    }
    const Level& lv() const { return opts_->level; }

    // ---- operands
    std::size_t n_in() const { return op_.inputs.size(); }
    const TensorType& in(std::size_t i) const { return g_.values[op_.inputs[i]].type; }
    const Shape& ish(std::size_t i) const { return in(i).shape; }
    DType idt(std::size_t i) const { return in(i).dtype; }
    std::string iname(std::size_t i) const {
        if (info_.inputs.empty()) return "operand " + std::to_string(i);
        return info_.inputs[std::min(i, info_.inputs.size() - 1)];
    }
    const TensorType* actual_out(std::size_t o) const {
        if (o >= op_.outputs.size() || op_.outputs[o] >= g_.values.size()) return nullptr;
        return &g_.values[op_.outputs[o]].type;
    }

    // rank(input i) == r, as the argument table gives it.
    bool input_rank(std::size_t i, std::size_t r) {
        return argument(ish(i).size() == r,
                        "rank(" + iname(i) + ") == " + std::to_string(r) + " (argument table)",
                        iname(i) + " is " + to_string(in(i)));
    }
    bool input_rank_min(std::size_t i, std::size_t r) {
        return argument(ish(i).size() >= r,
                        "rank(" + iname(i) + ") >= " + std::to_string(r) + " (argument table: " + std::to_string(r) +
                            " to MAX_RANK)",
                        iname(i) + " is " + to_string(in(i)));
    }
    bool input_shape(std::size_t i, const Shape& s, const std::string& spec_shape) {
        return argument(ish(i) == s, "shape(" + iname(i) + ") == " + spec_shape + " (argument table)",
                        iname(i) + " is " + to_string(in(i)));
    }

    // The items of a CONST operand (null when it is not a CONST result).
    const ConstData* constant(std::size_t i) const {
        const Op* p = producers_(op_.inputs[i]);
        if (!p || p->kind != OpKind::CONST) return nullptr;
        const Attr* a = p->attr(AttrName::values);
        if (!a || !std::holds_alternative<ConstPtr>(*a)) return nullptr;
        const ConstData* c = std::get<ConstPtr>(*a).get();
        return c && c->data ? c : nullptr;
    }
    // The values of a CONST_SHAPE operand (null when it is not one).
    const std::vector<I64>* shape_values(std::size_t i) const {
        const Op* p = producers_(op_.inputs[i]);
        if (!p || p->kind != OpKind::CONST_SHAPE) return nullptr;
        const Attr* a = p->attr(AttrName::values);
        if (!a || !std::holds_alternative<std::vector<I64>>(*a)) return nullptr;
        return &std::get<std::vector<I64>>(*a);
    }
    // Item k of a constant integer (or bool) operand.
    static std::optional<I64> item(const ConstData& c, std::size_t k) {
        if (static_cast<I64>(k) >= c.type.volume()) return std::nullopt;
        return int_item(c, static_cast<I64>(k));
    }
    // The value of a [1] integer zero-point operand, or a [1] float operand as a number.
    std::optional<double> scalar(std::size_t i) const {
        const ConstData* c = constant(i);
        if (!c || c->type.volume() < 1 || c->type.dtype == DType::none) return std::nullopt;
        return number_item(*c, 0);
    }

    // ---- attributes (their presence and kinds are checked before the operator's own rules)
    const std::vector<I64>& ints(AttrName n) const { return op_.get<std::vector<I64>>(n); }
    I64 i32(AttrName n) const { return op_.get<I64>(n); }
    bool flag(AttrName n) const {
        const Attr* a = op_.attr(n);
        return a && std::holds_alternative<bool>(*a) && std::get<bool>(*a);
    }
    bool attr_len(AttrName n, std::size_t len) {
        const auto& v = ints(n);
        return argument(v.size() == len,
                        std::string("length(") + to_string(n) + ") == " + std::to_string(len) + " (argument table)",
                        std::string(to_string(n)) + " is " + ints_text(v));
    }

    // ---- expected results
    void result(std::size_t o, DType t, Shape s) {
        if (out.size() <= o) out.resize(o + 1);
        out[o] = TensorType{t, std::move(s)};
    }
    // Sets result o's extent d, comparing with the actual result when validating.
    bool expect_dim(std::size_t o, std::size_t d, I64 value, const std::string& rule) {
        out[o].shape[d] = value;
        if (!results_checked) return false;
        const TensorType* a = actual_out(o);
        if (!a || a->shape.size() != out[o].shape.size() || value == unknown || a->shape[d] == value) return false;
        return fail("tosa-error-if", "ERROR_IF(" + rule + ")",
                    info_.outputs[std::min(o, info_.outputs.size() - 1)] + " is " + to_string(*a) + ", the rule gives " +
                        std::to_string(value) + " for dimension " + std::to_string(d));
    }
    // Result o has the given rank (extents still unknown).
    bool expect_rank(std::size_t o, DType t, std::size_t rank, const std::string& rule) {
        result(o, t, Shape(rank, unknown));
        if (!results_checked) return false;
        const TensorType* a = actual_out(o);
        if (!a || a->shape.size() == rank) return false;
        return fail("tosa-error-if", "ERROR_IF(" + rule + ")",
                    info_.outputs[std::min(o, info_.outputs.size() - 1)] + " is " + to_string(*a) + ", expected rank " +
                        std::to_string(rank));
    }
    bool expect_shape(std::size_t o, DType t, const Shape& s, const std::string& rule) {
        if (expect_rank(o, t, s.size(), rule)) return true;
        for (std::size_t d = 0; d < s.size(); ++d)
            if (expect_dim(o, d, s[d], rule)) return true;
        return false;
    }

    // ---- shared rules
    // Zero point only for int8: ERROR_IF(!is_same<T,i8_t>() && zp != 0).
    bool zero_point(std::size_t i, DType t, const char* type_name) {
        if (t == DType::i8) return false;
        auto zp = scalar(i);
        return error_if(zp && *zp != 0,
                        std::string("!is_same<") + type_name + ",i8_t>() && " + iname(i) + " != 0",
                        iname(i) + " is " + std::to_string(*zp) + " for " + to_string(t));
    }
    // broadcast_shape(a, b) (4.4.6).
    bool broadcast(Shape& shape, const Shape& other, const std::string& other_name) {
        if (error_if(shape.size() != other.size(), "rank(shape1) != rank(shape2)",
                     "ranks " + std::to_string(shape.size()) + " and " + std::to_string(other.size()) + " of " +
                         other_name))
            return true;
        for (std::size_t d = 0; d < shape.size(); ++d) {
            if (shape[d] == 1) {
                shape[d] = other[d];
            } else if (error_if(other[d] != 1 && other[d] != shape[d], "shape2[i] != 1 && shape2[i] != shape[i]",
                                "shapes " + shape_text(shape) + " and " + shape_text(other) + " of " + other_name +
                                    " do not broadcast in dimension " + std::to_string(d))) {
                return true;
            }
        }
        return false;
    }
    bool axis_in_range(I64 axis, std::size_t rank, const char* rule) {
        return error_if(axis < 0 || axis >= static_cast<I64>(rank), rule,
                        "axis " + std::to_string(axis) + " for rank " + std::to_string(rank));
    }
    // idiv_check(num, den) + 1 for an output extent: ERROR_IF(num % den != 0), extent >= 1.
    bool sliding_extent(std::size_t o, std::size_t d, I64 num, I64 den, const std::string& rule, const char* what) {
        if (error_if(den > 0 && num % den != 0, rule,
                     std::string(what) + ": " + std::to_string(num) + " is not a multiple of " + std::to_string(den) +
                         " (idiv_check)"))
            return true;
        const I64 extent = den > 0 ? num / den + 1 : unknown;
        if (error_if(den > 0 && extent < 1, rule,
                     std::string(what) + " would be " + std::to_string(extent) + " (tensor_size needs >= 1)"))
            return true;
        return expect_dim(o, d, extent, rule);
    }
};

// shape(output) == shape(input), the rule of the one-input elementwise operators.
inline void check_same_shape_result(OpCheck& c) { c.expect_shape(0, DType::none, c.ish(0), "shape(output) != shape(input)"); }

// A shape_t operand of `length` values (the type's extent); its values when constant.
inline const std::vector<I64>* shape_operand(OpCheck& c, std::size_t i, std::size_t length,
                                             const std::string& spec_len, bool& failed) {
    failed = c.argument(c.ish(i).size() == 1 && c.ish(i)[0] == static_cast<I64>(length),
                        "length(" + c.iname(i) + ") == " + spec_len + " (argument table)",
                        c.iname(i) + " is " + to_string(c.in(i)));
    if (failed) return nullptr;
    const std::vector<I64>* v = c.shape_values(i);
    if (v && v->size() != length) {
        failed = c.argument(false, "CONST_SHAPE values match the shape_t type", c.iname(i) + " holds " + ints_text(*v));
        return nullptr;
    }
    return v;
}

// ADD and the other elementwise binary operators, and the comparisons (ops/elementwise_binary.cpp).
void check_binary(OpCheck& c);

// ---- the type tables (type_tables.cpp) -----------------------------------------------------------

// Table 3, "Allowed profiles".
inline constexpr std::array<std::uint32_t, extension_count> extension_profiles = {
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

// The Compile Time Constant inputs of an operator, from the family files' tables.
struct CtcInputs {
    std::vector<std::size_t> inputs;
    std::uint32_t profiles = 0;
};
const CtcInputs& ctc_inputs(OpKind k);

// The Supported Data Types table of the operator against its operands and results (a failure
// `tosa-type-table` when no row allows them with the enabled profiles and extensions).
void check_types(OpCheck& c, std::uint32_t enabled);
// The element type of result o that the table implies (DType::none, and why, when it does not).
DType infer_dtype(OpCheck& c, std::size_t o, std::string* why);

}  // namespace nnef::tosa::checks
