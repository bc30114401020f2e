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

namespace nnef::tosa {

// ---- extensions ------------------------------------------------------------------------------

namespace tosa_validator_cpp {

constexpr std::array<const char*, extension_count> extension_names = {
    "EXT-INT16", "EXT-INT4",        "EXT-BF16",    "EXT-FP8E4M3",     "EXT-FP8E5M2",     "EXT-FFT",
    "EXT-VARIABLE", "EXT-CONTROLFLOW", "EXT-DYNAMIC", "EXT-DOUBLEROUND", "EXT-INEXACTROUND",
};

// Requirement atoms: bit 0 PRO-INT, bit 1 PRO-FP, bit 2 + e extension e.
constexpr std::uint32_t atom_pro_int = 1u << 0;
constexpr std::uint32_t atom_pro_fp = 1u << 1;
constexpr std::uint32_t atom(Extension e) { return 1u << (2 + static_cast<unsigned>(e)); }

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

}  // namespace tosa_validator_cpp

const char* to_string(Extension e) { return tosa_validator_cpp::extension_names[static_cast<std::size_t>(e)]; }

std::optional<Extension> extension_from_string(std::string_view s) {
    using namespace tosa_validator_cpp;
    std::string u = upper(s);
    if (u.rfind("EXT-", 0) != 0) u = "EXT-" + u;
    for (std::size_t i = 0; i < extension_names.size(); ++i)
        if (u == extension_names[i]) return static_cast<Extension>(i);
    return std::nullopt;
}

bool extension_allowed(Extension e, Profile p) {
    using namespace tosa_validator_cpp;
    return (extension_profiles[static_cast<std::size_t>(e)] & (p == Profile::pro_int ? atom_pro_int : atom_pro_fp)) != 0;
}

// ---- the Supported Data Types tables ---------------------------------------------------------

namespace tosa_validator_cpp {

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
const Rows fp_rows = {{"PRO-FP", "fp16"}, {"PRO-FP", "fp32"}, {"EXT-BF16", "bf16"}};
const Rows int_bitwise_rows = {{"PRO-INT", "i16"}, {"PRO-INT", "i32"}, {"PRO-INT", "i8"}};
const Rows shift_rows = {{"PRO-INT or PRO-FP", "i16"}, {"PRO-INT or PRO-FP", "i32"}, {"PRO-INT or PRO-FP", "i8"}};
const Rows bool_rows = {{"PRO-INT or PRO-FP", "bool"}};
const Rows add_rows = {{"PRO-FP", "fp16"}, {"PRO-FP", "fp32"}, {"PRO-INT or PRO-FP", "i32"}, {"EXT-BF16", "bf16"}};
const Rows minmax_rows = {{"PRO-FP", "fp16"}, {"PRO-FP", "fp32"}, {"PRO-INT", "i32"}, {"EXT-BF16", "bf16"}};
const Rows compare_rows = {{"PRO-FP", "fp16 bool"}, {"PRO-FP", "fp32 bool"}, {"PRO-INT", "i32 bool"}, {"EXT-BF16", "bf16 bool"}};
const Rows reduce_minmax_rows = {{"PRO-FP", "fp16"}, {"PRO-FP", "fp32"}, {"PRO-INT", "i16"},
                                 {"PRO-INT", "i32"}, {"PRO-INT", "i8"},  {"EXT-BF16", "bf16"}};
// PAD, RESHAPE, REVERSE, SLICE, TILE, TRANSPOSE.
const Rows layout_rows = {{"PRO-FP", "fp16"},   {"PRO-FP", "fp32"},          {"PRO-INT or PRO-FP", "bool"},
                          {"PRO-INT", "i16"},   {"PRO-INT", "i32"},          {"PRO-INT", "i8"},
                          {"EXT-BF16", "bf16"}, {"EXT-FP8E4M3", "fp8e4m3"}, {"EXT-FP8E5M2", "fp8e5m2"}};
const Rows conv_rows = {{"PRO-FP", "fp16 fp16 fp16 fp16"},
                        {"PRO-FP", "fp16 fp16 fp16 fp32"},
                        {"PRO-FP", "fp32 fp32 fp32 fp32"},
                        {"PRO-INT", "i8 i8 i32 i32"},
                        {"EXT-BF16", "bf16 bf16 bf16 fp32"},
                        {"EXT-FP8E4M3", "fp8e4m3 fp8e4m3 fp16 fp16"},
                        {"EXT-FP8E5M2", "fp8e5m2 fp8e5m2 fp16 fp16"},
                        {"EXT-INT16", "i16 i8 i48 i48"},
                        {"EXT-INT4", "i8 i4 i32 i32"}};
const char* const conv_columns = "in_t=input=input_zp weight_t=weight=weight_zp out_t=bias=output acc_t=acc_type";
const Rows gather_rows = {{"PRO-FP", "i32 fp16"},   {"PRO-FP", "i32 fp32"},   {"PRO-INT", "i32 i16"},
                          {"PRO-INT", "i32 i32"},   {"PRO-INT", "i32 i8"},    {"EXT-BF16", "i32 bf16"},
                          {"EXT-FP8E4M3", "i32 fp8e4m3"}, {"EXT-FP8E5M2", "i32 fp8e5m2"}};
const Rows data_node_rows = {{"PRO-FP", "fp16"},
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
const Rows variable_rows = {{"EXT-VARIABLE and PRO-FP", "fp16"}, {"EXT-VARIABLE and PRO-FP", "fp32"},
                            {"EXT-VARIABLE and PRO-INT", "i8"}};

const std::vector<TableText>& table_texts() {
    static const std::vector<TableText> t = {
        {OpKind::ARGMAX, "in_t=input out_t=output",
         {{"PRO-FP", "fp16 i32"}, {"PRO-FP", "fp32 i32"}, {"PRO-INT", "i8 i32"}, {"EXT-BF16", "bf16 i32"},
          {"EXT-FP8E4M3", "fp8e4m3 i32"}, {"EXT-FP8E5M2", "fp8e5m2 i32"}, {"EXT-INT16", "i16 i32"}}},
        {OpKind::AVG_POOL2D, "in_out_t=input=input_zp=output_zp=output acc_t=acc_type",
         {{"PRO-FP", "fp16 fp16"}, {"PRO-FP", "fp16 fp32"}, {"PRO-FP", "fp32 fp32"}, {"PRO-INT", "i8 i32"},
          {"EXT-BF16", "bf16 fp32"}, {"EXT-FP8E4M3", "fp8e4m3 fp16"}, {"EXT-FP8E5M2", "fp8e5m2 fp16"},
          {"EXT-INT16", "i16 i32"}}},
        {OpKind::CONV2D, conv_columns, conv_rows},
        {OpKind::CONV3D, conv_columns, conv_rows},
        {OpKind::DEPTHWISE_CONV2D, conv_columns, conv_rows},
        {OpKind::FFT2D, "in_out_t=input_real=input_imag=output_real=output_imag", {{"EXT-FFT", "fp32"}}},
        {OpKind::MATMUL, "in_t=A=B=A_zp=B_zp out_t=output",
         {{"PRO-FP", "fp16 fp16"}, {"PRO-FP", "fp16 fp32"}, {"PRO-FP", "fp32 fp32"}, {"PRO-INT", "i8 i32"},
          {"EXT-BF16", "bf16 fp32"}, {"EXT-FP8E4M3", "fp8e4m3 fp16"}, {"EXT-FP8E5M2", "fp8e5m2 fp16"},
          {"EXT-INT16", "i16 i48"}}},
        {OpKind::MAX_POOL2D, "in_out_t=input=output",
         {{"PRO-FP", "fp16"}, {"PRO-FP", "fp32"}, {"PRO-INT", "i8"}, {"EXT-BF16", "bf16"},
          {"EXT-FP8E4M3", "fp8e4m3"}, {"EXT-FP8E5M2", "fp8e5m2"}, {"EXT-INT16", "i16"}}},
        {OpKind::RFFT2D, "in_out_t=input_real=output_real=output_imag", {{"EXT-FFT", "fp32"}}},
        {OpKind::TRANSPOSE_CONV2D, conv_columns, conv_rows},
        {OpKind::CLAMP, "in_out_t=input=output",
         {{"PRO-FP", "fp16"}, {"PRO-FP", "fp32"}, {"PRO-INT", "i8"}, {"EXT-BF16", "bf16"}, {"EXT-INT16", "i16"}}},
        {OpKind::ERF, "in_out_t=input=output", fp_rows},
        {OpKind::SIGMOID, "in_out_t=input=output", fp_rows},
        {OpKind::TANH, "in_out_t=input=output", fp_rows},
        {OpKind::ADD, "in_out_t=input1=input2=output", add_rows},
        {OpKind::ARITHMETIC_RIGHT_SHIFT, "in_out_t=input1=input2=output", int_bitwise_rows},
        {OpKind::BITWISE_AND, "in_out_t=input1=input2=output", int_bitwise_rows},
        {OpKind::BITWISE_OR, "in_out_t=input1=input2=output", int_bitwise_rows},
        {OpKind::BITWISE_XOR, "in_out_t=input1=input2=output", int_bitwise_rows},
        {OpKind::INTDIV, "in_out_t=input1=input2=output", {{"PRO-INT or PRO-FP", "i32"}}},
        {OpKind::LOGICAL_AND, "in_out_t=input1=input2=output", bool_rows},
        {OpKind::LOGICAL_LEFT_SHIFT, "in_out_t=input1=input2=output", shift_rows},
        {OpKind::LOGICAL_RIGHT_SHIFT, "in_out_t=input1=input2=output", shift_rows},
        {OpKind::LOGICAL_OR, "in_out_t=input1=input2=output", bool_rows},
        {OpKind::LOGICAL_XOR, "in_out_t=input1=input2=output", bool_rows},
        {OpKind::MAXIMUM, "in_out_t=input1=input2=output", minmax_rows},
        {OpKind::MINIMUM, "in_out_t=input1=input2=output", minmax_rows},
        {OpKind::MUL, "in_t=input1=input2 out_t=output i8_t=shift",
         {{"PRO-FP", "fp16 fp16"}, {"PRO-FP", "fp32 fp32"}, {"PRO-INT", "i16 i32"}, {"PRO-INT or PRO-FP", "i32 i32"},
          {"PRO-INT", "i8 i32"}, {"EXT-BF16", "bf16 bf16"}}},
        {OpKind::POW, "in_out_t=input1=input2=output", fp_rows},
        {OpKind::SUB, "in_out_t=input1=input2=output", add_rows},
        {OpKind::TABLE, "in_t=input1 table_t=table out_t=output",
         {{"PRO-INT", "i8 i8 i8"}, {"EXT-INT16", "i16 i16 i32"}}},
        {OpKind::ABS, "in_out_t=input1=output", minmax_rows},
        {OpKind::BITWISE_NOT, "in_out_t=input1=output", int_bitwise_rows},
        {OpKind::CEIL, "in_out_t=input1=output", fp_rows},
        {OpKind::CLZ, "in_out_t=input1=output", {{"PRO-INT", "i32"}}},
        {OpKind::COS, "in_out_t=input1=output", fp_rows},
        {OpKind::EXP, "in_out_t=input1=output", fp_rows},
        {OpKind::FLOOR, "in_out_t=input1=output", fp_rows},
        {OpKind::LOG, "in_out_t=input1=output", fp_rows},
        {OpKind::LOGICAL_NOT, "in_out_t=input1=output", bool_rows},
        {OpKind::NEGATE, "in_out_t=input1=input1_zp=output_zp=output acc_t",
         {{"PRO-FP", "fp16 fp16"}, {"PRO-FP", "fp32 fp32"}, {"PRO-INT", "i16 i32"}, {"PRO-INT", "i32 i32"},
          {"PRO-INT", "i8 i32"}, {"EXT-BF16", "bf16 bf16"}}},
        {OpKind::RECIPROCAL, "in_out_t=input1=output", fp_rows},
        {OpKind::RSQRT, "in_out_t=input1=output", fp_rows},
        {OpKind::SIN, "in_out_t=input1=output", fp_rows},
        {OpKind::SELECT, "bool_t=input1 in_out_t=input2=input3=output",
         {{"PRO-FP", "fp16"}, {"PRO-FP", "fp32"}, {"PRO-INT or PRO-FP", "bool"}, {"PRO-INT", "i16"},
          {"PRO-INT", "i32"}, {"PRO-INT", "i8"}, {"EXT-BF16", "bf16"}}},
        {OpKind::EQUAL, "in_t=input1=input2 out_t=output", compare_rows},
        {OpKind::GREATER, "in_t=input1=input2 out_t=output", compare_rows},
        {OpKind::GREATER_EQUAL, "in_t=input1=input2 out_t=output", compare_rows},
        {OpKind::REDUCE_ALL, "in_out_t=input=output", bool_rows},
        {OpKind::REDUCE_ANY, "in_out_t=input=output", bool_rows},
        {OpKind::REDUCE_MAX, "in_out_t=input=output", reduce_minmax_rows},
        {OpKind::REDUCE_MIN, "in_out_t=input=output", reduce_minmax_rows},
        {OpKind::REDUCE_PRODUCT, "in_out_t=input=output", fp_rows},
        {OpKind::REDUCE_SUM, "in_out_t=input=output acc_t",
         {{"PRO-FP", "fp16 fp16"}, {"PRO-FP", "fp32 fp32"}, {"PRO-INT", "i32 i32"}, {"EXT-BF16", "bf16 fp32"}}},
        {OpKind::CONCAT, "in_out_t=input1=output",
         {{"PRO-FP", "fp16"}, {"PRO-FP", "fp32"}, {"PRO-INT or PRO-FP", "bool"}, {"PRO-INT", "i32"},
          {"PRO-INT", "i8"}, {"EXT-BF16", "bf16"}, {"EXT-FP8E4M3", "fp8e4m3"}, {"EXT-FP8E5M2", "fp8e5m2"},
          {"EXT-INT16", "i16"}}},
        {OpKind::PAD, "in_out_t=input1=pad_const=output shape_t=padding", layout_rows},
        {OpKind::RESHAPE, "in_out_t=input1=output shape_t=shape", layout_rows},
        {OpKind::REVERSE, "in_out_t=input1=output", layout_rows},
        {OpKind::SLICE, "in_out_t=input1=output shape_t=start=size", layout_rows},
        {OpKind::TILE, "in_out_t=input1=output shape_t=multiples", layout_rows},
        {OpKind::TRANSPOSE, "in_out_t=input1=output", layout_rows},
        {OpKind::GATHER, "index_t=indices in_out_t=values=output", gather_rows},
        {OpKind::SCATTER, "index_t=indices in_out_t=values_in=input=values_out", gather_rows},
        {OpKind::RESIZE, "mode=mode resize_t in_t=input out_t=output shape_t=scale=offset=border",
         {{"PRO-FP", "- fp16 fp16 fp16"}, {"PRO-FP", "- fp32 fp32 fp32"}, {"PRO-INT", "BILINEAR i16 i8 i32"},
          {"PRO-INT", "NEAREST i16 i8 i8"}, {"EXT-BF16", "- bf16 bf16 bf16"}, {"EXT-INT16", "BILINEAR i16 i16 i48"},
          {"EXT-INT16", "NEAREST i16 i16 i16"}}},
        {OpKind::CAST, "in_t=input out_t=output",
         {{"PRO-FP", "fp16 fp32"},  {"PRO-FP", "fp16 i16"},   {"PRO-FP", "fp16 i32"},   {"PRO-FP", "fp16 i8"},
          {"PRO-FP", "fp32 fp16"},  {"PRO-FP", "fp32 i16"},   {"PRO-FP", "fp32 i32"},   {"PRO-FP", "fp32 i8"},
          {"PRO-FP", "i16 fp16"},   {"PRO-FP", "i16 fp32"},   {"PRO-FP", "i32 fp16"},   {"PRO-FP", "i32 fp32"},
          {"PRO-FP", "i8 fp16"},    {"PRO-FP", "i8 fp32"},    {"PRO-INT", "bool i16"},  {"PRO-INT", "bool i32"},
          {"PRO-INT", "bool i8"},   {"PRO-INT", "i16 bool"},  {"PRO-INT", "i16 i32"},   {"PRO-INT", "i16 i8"},
          {"PRO-INT", "i32 bool"},  {"PRO-INT", "i32 i16"},   {"PRO-INT", "i32 i8"},    {"PRO-INT", "i8 bool"},
          {"PRO-INT", "i8 i16"},    {"PRO-INT", "i8 i32"},    {"EXT-BF16", "bf16 fp32"}, {"EXT-BF16", "bf16 i16"},
          {"EXT-BF16", "bf16 i32"}, {"EXT-BF16", "bf16 i8"},  {"EXT-BF16", "fp32 bf16"}, {"EXT-BF16", "i16 bf16"},
          {"EXT-BF16", "i32 bf16"}, {"EXT-BF16", "i8 bf16"},
          {"EXT-BF16 and EXT-FP8E4M3", "bf16 fp8e4m3"}, {"EXT-BF16 and EXT-FP8E4M3", "fp8e4m3 bf16"},
          {"EXT-BF16 and EXT-FP8E5M2", "bf16 fp8e5m2"}, {"EXT-BF16 and EXT-FP8E5M2", "fp8e5m2 bf16"},
          {"EXT-FP8E4M3", "fp16 fp8e4m3"}, {"EXT-FP8E4M3", "fp32 fp8e4m3"}, {"EXT-FP8E4M3", "fp8e4m3 fp16"},
          {"EXT-FP8E4M3", "fp8e4m3 fp32"}, {"EXT-FP8E5M2", "fp16 fp8e5m2"}, {"EXT-FP8E5M2", "fp32 fp8e5m2"},
          {"EXT-FP8E5M2", "fp8e5m2 fp16"}, {"EXT-FP8E5M2", "fp8e5m2 fp32"}}},
        {OpKind::RESCALE, "in_t=input=input_zp out_t=output=output_zp i8_t=shift",
         {{"PRO-INT", "i16 i16"}, {"PRO-INT", "i16 i32"}, {"PRO-INT", "i16 i8"}, {"PRO-INT", "i32 i16"},
          {"PRO-INT", "i32 i32"}, {"PRO-INT", "i32 i8"}, {"PRO-INT", "i8 i16"}, {"PRO-INT", "i8 i32"},
          {"PRO-INT", "i8 i8"}, {"EXT-INT16", "i48 i16"}, {"EXT-INT16", "i48 i32"}, {"EXT-INT16", "i48 i8"}}},
        {OpKind::CONST, "out_t=values=output", data_node_rows},
        {OpKind::IDENTITY, "in_out_t=input1=output", data_node_rows},
        {OpKind::CUSTOM, "", {{"PRO-INT or PRO-FP", ""}}},
        {OpKind::COND_IF, "bool_t=condition", {{"EXT-CONTROLFLOW", ""}}},
        {OpKind::WHILE_LOOP, "", {{"EXT-CONTROLFLOW", ""}}},
        {OpKind::VARIABLE, "in_t=type=initial_value", variable_rows},
        {OpKind::VARIABLE_WRITE, "in_t=input1", variable_rows},
        {OpKind::VARIABLE_READ, "out_t=output1", variable_rows},
        {OpKind::CONST_SHAPE, "shape_t=output", {{"PRO-INT or PRO-FP", ""}}},
    };
    return t;
}

// An argument of a column: an operand, a result or an attribute of the operator.
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
        for (const TableText& text : table_texts()) {
            out[static_cast<std::size_t>(text.op)] = parse_table(text);
            seen[static_cast<std::size_t>(text.op)] = true;
        }
        for (std::size_t k = 0; k < op_kind_count; ++k)
            if (!seen[k]) throw std::logic_error(std::string("validator: no type table for ") + op_info(static_cast<OpKind>(k)).name);
        return out;
    }();
    return tables[static_cast<std::size_t>(k)];
}

// Compile Time Constant inputs (the spec's "Compile Time Constant Status" tables): the operands
// that must come from CONST / CONST_SHAPE in the given profiles unless EXT-DYNAMIC is enabled.
struct CtcText {
    OpKind op;
    const char* args;
    std::uint32_t profiles;
};
const std::vector<CtcText>& ctc_texts() {
    constexpr std::uint32_t both = atom_pro_int | atom_pro_fp;
    static const std::vector<CtcText> t = {
        {OpKind::AVG_POOL2D, "input_zp output_zp", both},
        {OpKind::CONV2D, "input_zp weight_zp", both},
        {OpKind::CONV3D, "input_zp weight_zp", both},
        {OpKind::DEPTHWISE_CONV2D, "input_zp weight_zp", both},
        {OpKind::MATMUL, "A_zp B_zp", both},
        {OpKind::TRANSPOSE_CONV2D, "input_zp weight_zp", both},
        {OpKind::MUL, "shift", both},
        {OpKind::TABLE, "table", atom_pro_int},
        {OpKind::NEGATE, "input1_zp output_zp", both},
        {OpKind::PAD, "padding pad_const", both},
        {OpKind::RESHAPE, "shape", both},
        {OpKind::SLICE, "start size", both},
        {OpKind::TILE, "multiples", both},
        {OpKind::RESIZE, "scale offset border", both},
        {OpKind::RESCALE, "multiplier shift input_zp output_zp", atom_pro_int},
    };
    return t;
}

struct CtcInputs {
    std::vector<std::size_t> inputs;
    std::uint32_t profiles = 0;
};
const CtcInputs& ctc_inputs(OpKind k) {
    static const std::vector<CtcInputs> table = [] {
        std::vector<CtcInputs> out(op_kind_count);
        for (const CtcText& c : ctc_texts()) {
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

}  // namespace tosa_validator_cpp

// ---- per-operator checks ---------------------------------------------------------------------

namespace tosa_validator_cpp {

using I64 = std::int64_t;

struct Failure {
    std::string code;    // "tosa-error-if", ...
    std::string rule;    // as the spec writes it
    std::string detail;  // what was found
};

std::string ints_text(const std::vector<I64>& v) {
    std::string s = "[";
    for (std::size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + std::to_string(v[i]);
    return s + "]";
}

std::string shape_text(const Shape& s) { return ints_text(s); }

// Bytes of an element for the tensor size limit (1.11.1; bool as one byte).
int element_bytes(DType t) {
    switch (t) {
        case DType::bool_:
        case DType::i8: return 1;
        case DType::i16:
        case DType::fp16:
        case DType::bf16: return 2;
        case DType::i32:
        case DType::fp32: return 4;
        case DType::i48: return 6;
        case DType::shape: return 8;
        case DType::none: return 0;
    }
    return 0;
}

bool is_pow2(I64 v) { return v > 0 && (v & (v - 1)) == 0; }

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
        : g_(g), op_(op), info_(op_info(op.kind)), opts_(opts), producers_(producers) {}

    const Graph& g_;
    const Op& op_;
    const OpInfo& info_;
    const ValidateOptions* opts_;  // null: inferring only (no level checks, no comparison)
    ProducerLookup producers_;
    // VARIABLE declarations by name (validate collects them once); null: look them up.
    const std::map<std::string, std::pair<std::uint32_t, std::uint32_t>>* variables = nullptr;
    std::vector<TensorType> out;  // expected result types
    bool outputs_free = false;    // CUSTOM: no expectation
    std::optional<Failure> failure;

    bool validating() const { return opts_ != nullptr; }
    bool failed() const { return failure.has_value(); }

    bool fail(std::string code, std::string rule, std::string detail = {}) {
        if (!failure) failure = Failure{std::move(code), std::move(rule), std::move(detail)};
        return true;
    }
    // True (and the failure recorded) when the ERROR_IF condition holds.
    bool error_if(bool cond, const std::string& rule, const std::string& detail = {}) {
        return cond && fail("tosa-error-if", "ERROR_IF(" + rule + ")", detail);
    }
    bool require(bool ok, const std::string& rule, const std::string& detail = {}) {
        return !ok && fail("tosa-require", "REQUIRE(" + rule + ")", detail);
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
        switch (c.type.dtype) {
            case DType::bool_: return c.items<std::uint8_t>()[k] ? 1 : 0;
            case DType::i8: return c.items<std::int8_t>()[k];
            case DType::i16: return c.items<std::int16_t>()[k];
            case DType::i32: return c.items<std::int32_t>()[k];
            case DType::i48:
            case DType::shape: return c.items<std::int64_t>()[k];
            default: return std::nullopt;
        }
    }
    // The value of a [1] integer zero-point operand, or a [1] float operand as a number.
    std::optional<double> scalar(std::size_t i) const {
        const ConstData* c = constant(i);
        if (!c || c->type.volume() < 1) return std::nullopt;
        switch (c->type.dtype) {
            case DType::fp32: return static_cast<double>(c->items<float>()[0]);
            case DType::fp16: return static_cast<double>(fp16_to_fp32(c->items<std::uint16_t>()[0]));
            case DType::bf16: return static_cast<double>(bf16_to_fp32(c->items<std::uint16_t>()[0]));
            default: {
                auto v = item(*c, 0);
                if (!v) return std::nullopt;
                return static_cast<double>(*v);
            }
        }
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
        if (!validating()) return false;
        const TensorType* a = actual_out(o);
        if (!a || a->shape.size() != out[o].shape.size() || value == unknown || a->shape[d] == value) return false;
        return fail("tosa-error-if", "ERROR_IF(" + rule + ")",
                    info_.outputs[std::min(o, info_.outputs.size() - 1)] + " is " + to_string(*a) + ", the rule gives " +
                        std::to_string(value) + " for dimension " + std::to_string(d));
    }
    // Result o has the given rank (extents still unknown).
    bool expect_rank(std::size_t o, DType t, std::size_t rank, const std::string& rule) {
        result(o, t, Shape(rank, unknown));
        if (!validating()) return false;
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

// Pads, strides, dilations and kernels of the sliding-window operators.
void check_pool(OpCheck& c, bool avg) {
    if (c.input_rank(0, 4)) return;
    if (avg && (c.input_shape(1, {1}, "[1]") || c.input_shape(2, {1}, "[1]"))) return;
    if (c.attr_len(AttrName::kernel, 2) || c.attr_len(AttrName::stride, 2) || c.attr_len(AttrName::pad, 4)) return;
    const auto& k = c.ints(AttrName::kernel);
    const auto& s = c.ints(AttrName::stride);
    const auto& p = c.ints(AttrName::pad);
    const Level* l = c.validating() ? &c.lv() : nullptr;
    if (l) {
        if (c.level(k[0], l->max_kernel, "kernel_y <= MAX_KERNEL") || c.level(k[1], l->max_kernel, "kernel_x <= MAX_KERNEL") ||
            c.level(s[0], l->max_stride, "stride_y <= MAX_STRIDE") || c.level(s[1], l->max_stride, "stride_x <= MAX_STRIDE") ||
            c.level(p[0], l->max_kernel, "pad_top <= MAX_KERNEL") || c.level(p[1], l->max_kernel, "pad_bottom <= MAX_KERNEL") ||
            c.level(p[2], l->max_kernel, "pad_left <= MAX_KERNEL") || c.level(p[3], l->max_kernel, "pad_right <= MAX_KERNEL"))
            return;
    }
    const DType t = c.idt(0);
    if (avg && (c.zero_point(1, t, "in_out_t") || c.zero_point(2, t, "in_out_t"))) return;
    if (c.error_if(k[0] < 1 || k[1] < 1, "kernel_y < 1 || kernel_x < 1", "kernel " + ints_text(k)) ||
        c.error_if(s[0] < 1 || s[1] < 1, "stride_y < 1 || stride_x < 1", "stride " + ints_text(s)) ||
        c.error_if(p[0] < 0 || p[1] < 0 || p[2] < 0 || p[3] < 0,
                   "pad_top < 0 || pad_bottom < 0 || pad_left < 0 || pad_right < 0", "pad " + ints_text(p)) ||
        c.error_if(p[3] >= k[1] || p[2] >= k[1], "pad_right >= kernel_x || pad_left >= kernel_x",
                   "pad " + ints_text(p) + ", kernel " + ints_text(k)) ||
        c.error_if(p[0] >= k[0] || p[1] >= k[0], "pad_top >= kernel_y || pad_bottom >= kernel_y",
                   "pad " + ints_text(p) + ", kernel " + ints_text(k)))
        return;
    const Shape& x = c.ish(0);
    if (c.expect_rank(0, t, 4, "rank(output) != 4") || c.expect_dim(0, 0, x[0], "output N != input N") ||
        c.sliding_extent(0, 1, x[1] + p[0] + p[1] - k[0], s[0],
                         "OH != idiv_check(IH + pad_top + pad_bottom - kernel_y, stride_y) + 1", "OH") ||
        c.sliding_extent(0, 2, x[2] + p[2] + p[3] - k[1], s[1],
                         "OW != idiv_check(IW + pad_left + pad_right - kernel_x, stride_x) + 1", "OW"))
        return;
    c.expect_dim(0, 3, x[3], "output C != input C");
}

// CONV2D, CONV3D, DEPTHWISE_CONV2D.
void check_conv(OpCheck& c, std::size_t spatial, bool depthwise) {
    const std::size_t rank = spatial + 2;
    if (c.input_rank(0, rank) || c.input_rank(1, rank) || c.input_rank(2, 1) || c.input_shape(3, {1}, "[1]") ||
        c.input_shape(4, {1}, "[1]"))
        return;
    if (c.attr_len(AttrName::pad, 2 * spatial) || c.attr_len(AttrName::stride, spatial) ||
        c.attr_len(AttrName::dilation, spatial))
        return;
    const auto& p = c.ints(AttrName::pad);
    const auto& s = c.ints(AttrName::stride);
    const auto& d = c.ints(AttrName::dilation);
    const Shape& x = c.ish(0);
    const Shape& w = c.ish(1);
    // Kernel extents and channels: CONV [OC,K...,IC], DEPTHWISE [KH,KW,C,M].
    Shape kernel(spatial);
    for (std::size_t i = 0; i < spatial; ++i) kernel[i] = depthwise ? w[i] : w[1 + i];
    const I64 ic = x[rank - 1];
    if (depthwise) {
        if (c.argument(w[2] == ic, "weight [KH,KW,C,M] and input [N,IH,IW,C] share C (argument table)",
                       "weight is " + to_string(c.in(1)) + ", input " + to_string(c.in(0))))
            return;
    } else if (c.argument(w[rank - 1] == ic, "weight [OC,...,IC] and input [N,...,IC] share IC (argument table)",
                          "weight is " + to_string(c.in(1)) + ", input " + to_string(c.in(0)))) {
        return;
    }
    const I64 oc = depthwise ? w[2] * w[3] : w[0];
    static const char* const dims3[] = {"d", "y", "x"};
    static const char* const dims2[] = {"y", "x"};
    const char* const* dn = spatial == 3 ? dims3 : dims2;
    static const char* const pads3[] = {"pad_d0", "pad_d1", "pad_top", "pad_bottom", "pad_left", "pad_right"};
    static const char* const pads2[] = {"pad_top", "pad_bottom", "pad_left", "pad_right"};
    const char* const* pn = spatial == 3 ? pads3 : pads2;
    static const char* const kn3[] = {"KD", "KH", "KW"};
    static const char* const kn2[] = {"KH", "KW"};
    const char* const* kn = spatial == 3 ? kn3 : kn2;
    if (c.validating()) {
        for (std::size_t i = 0; i < spatial; ++i)
            if (c.level(d[i] * kernel[i], c.lv().max_kernel,
                        std::string("dilation_") + dn[i] + " * " + kn[i] + " <= MAX_KERNEL"))
                return;
        for (std::size_t i = 0; i < 2 * spatial; ++i)
            if (c.level(p[i], c.lv().max_kernel, std::string(pn[i]) + " <= MAX_KERNEL")) return;
        for (std::size_t i = 0; i < spatial; ++i)
            if (c.level(s[i], c.lv().max_stride, std::string("stride_") + dn[i] + " <= MAX_STRIDE")) return;
    }
    if (c.zero_point(3, c.idt(0), "in_t") || c.zero_point(4, c.idt(1), "weight_t")) return;
    for (std::size_t i = 0; i < 2 * spatial; ++i)
        if (c.error_if(p[i] < 0, spatial == 3 ? "pad_d0 < 0 || pad_d1 < 0 || pad_top < 0 || pad_bottom < 0 || pad_left < 0 || pad_right < 0"
                                              : "pad_top < 0 || pad_bottom < 0 || pad_left < 0 || pad_right < 0",
                       "pad " + ints_text(p)))
            return;
    for (std::size_t i = 0; i < spatial; ++i)
        if (c.error_if(s[i] < 1, spatial == 3 ? "stride_d < 1 || stride_y < 1 || stride_x < 1" : "stride_y < 1 || stride_x < 1",
                       "stride " + ints_text(s)))
            return;
    for (std::size_t i = 0; i < spatial; ++i)
        if (c.error_if(d[i] < 1,
                       spatial == 3 ? "dilation_d < 1 || dilation_y < 1 || dilation_x < 1" : "dilation_y < 1 || dilation_x < 1",
                       "dilation " + ints_text(d)))
            return;
    const DType out_t = c.idt(2);
    if (c.expect_rank(0, out_t, rank, "rank(output) != " + std::to_string(rank)) ||
        c.expect_dim(0, 0, x[0], "output N != input N"))
        return;
    static const char* const in3[] = {"ID", "IH", "IW"};
    static const char* const in2[] = {"IH", "IW"};
    static const char* const on3[] = {"OD", "OH", "OW"};
    static const char* const on2[] = {"OH", "OW"};
    const char* const* inn = spatial == 3 ? in3 : in2;
    const char* const* onn = spatial == 3 ? on3 : on2;
    for (std::size_t i = 0; i < spatial; ++i) {
        const std::string rule = std::string(onn[i]) + " != idiv_check(" + inn[i] + " - 1 + " + pn[2 * i] + " + " +
                                 pn[2 * i + 1] + " - (" + kn[i] + " - 1) * dilation_" + dn[i] + ", stride_" + dn[i] +
                                 ") + 1";
        if (c.sliding_extent(0, 1 + i, x[1 + i] - 1 + p[2 * i] + p[2 * i + 1] - (kernel[i] - 1) * d[i], s[i], rule, onn[i]))
            return;
    }
    if (c.expect_dim(0, rank - 1, oc, depthwise ? "output channels != C * M" : "output channels != OC")) return;
    const I64 bc = c.ish(2)[0];
    c.error_if(bc != oc && bc != 1, depthwise ? "BC != C*M && BC != 1" : "BC != OC && BC != 1",
               "bias is " + to_string(c.in(2)) + ", " + std::to_string(oc) + " output channels");
}

void check_transpose_conv(OpCheck& c) {
    if (c.input_rank(0, 4) || c.input_rank(1, 4) || c.input_rank(2, 1) || c.input_shape(3, {1}, "[1]") ||
        c.input_shape(4, {1}, "[1]"))
        return;
    if (c.attr_len(AttrName::out_pad, 4) || c.attr_len(AttrName::stride, 2)) return;
    const auto& p = c.ints(AttrName::out_pad);
    const auto& s = c.ints(AttrName::stride);
    const Shape& x = c.ish(0);
    const Shape& w = c.ish(1);
    if (c.argument(w[3] == x[3], "weight [OC,KH,KW,IC] and input [N,IH,IW,IC] share IC (argument table)",
                   "weight is " + to_string(c.in(1)) + ", input " + to_string(c.in(0))))
        return;
    const I64 kh = w[1], kw = w[2];
    if (c.validating()) {
        const Level& l = c.lv();
        if (c.level(kh, l.max_kernel, "KH <= MAX_KERNEL") || c.level(kw, l.max_kernel, "KW <= MAX_KERNEL") ||
            c.level(p[0], l.max_kernel, "out_pad_top <= MAX_KERNEL") ||
            c.level(p[1], l.max_kernel, "out_pad_bottom <= MAX_KERNEL") ||
            c.level(p[2], l.max_kernel, "out_pad_left <= MAX_KERNEL") ||
            c.level(p[3], l.max_kernel, "out_pad_right <= MAX_KERNEL") ||
            c.level(s[0], l.max_stride, "stride_y <= MAX_STRIDE") || c.level(s[1], l.max_stride, "stride_x <= MAX_STRIDE"))
            return;
    }
    if (c.zero_point(3, c.idt(0), "in_t") || c.zero_point(4, c.idt(1), "weight_t")) return;
    if (c.error_if(p[0] <= -kh || p[1] <= -kh, "out_pad_top <= -KH || out_pad_bottom <= -KH",
                   "out_pad " + ints_text(p) + ", KH " + std::to_string(kh)) ||
        c.error_if(p[2] <= -kw || p[3] <= -kw, "out_pad_left <= -KW || out_pad_right <= -KW",
                   "out_pad " + ints_text(p) + ", KW " + std::to_string(kw)) ||
        c.error_if(s[0] < 1 || s[1] < 1, "stride_y < 1 || stride_x < 1", "stride " + ints_text(s)))
        return;
    const I64 oh = (x[1] - 1) * s[0] + p[0] + p[1] + kh;
    const I64 ow = (x[2] - 1) * s[1] + p[2] + p[3] + kw;
    if (c.error_if(oh < 1 || ow < 1, "OH != (IH - 1) * stride_y + out_pad_top + out_pad_bottom + KH",
                   "the output would be " + std::to_string(oh) + "x" + std::to_string(ow)))
        return;
    if (c.expect_rank(0, c.idt(2), 4, "rank(output) != 4") || c.expect_dim(0, 0, x[0], "output N != input N") ||
        c.expect_dim(0, 1, oh, "OH != (IH - 1) * stride_y + out_pad_top + out_pad_bottom + KH") ||
        c.expect_dim(0, 2, ow, "OW != (IW - 1) * stride_x + out_pad_left + out_pad_right + KW") ||
        c.expect_dim(0, 3, w[0], "output channels != OC"))
        return;
    const I64 bc = c.ish(2)[0];
    c.error_if(bc != w[0] && bc != 1, "BC != OC && BC != 1",
               "bias is " + to_string(c.in(2)) + ", " + std::to_string(w[0]) + " output channels");
}

void check_fft(OpCheck& c, bool real) {
    if (c.input_rank(0, 3)) return;
    if (!real && c.argument(c.ish(1) == c.ish(0), "shape(input_imag) == shape(input_real) == [N,H,W] (argument table)",
                            "input_imag is " + to_string(c.in(1)) + ", input_real " + to_string(c.in(0))))
        return;
    const Shape& x = c.ish(0);
    if (c.validating() && (c.level(x[1], c.lv().max_kernel, "H <= MAX_KERNEL") ||
                           c.level(x[2], c.lv().max_kernel, "W <= MAX_KERNEL")))
        return;
    if (c.error_if(!is_pow2(x[1]), "!power_of_two(H)", "H is " + std::to_string(x[1])) ||
        c.error_if(!is_pow2(x[2]), "!power_of_two(W)", "W is " + std::to_string(x[2])))
        return;
    const Shape o = real ? Shape{x[0], x[1], x[2] / 2 + 1} : x;
    const std::string rule = real ? "shape(output) != [N,H,W/2 + 1]" : "shape(output) != [N,H,W]";
    if (c.expect_shape(0, c.idt(0), o, rule)) return;
    c.expect_shape(1, c.idt(0), o, rule);
}

void check_matmul(OpCheck& c) {
    if (c.input_rank(0, 3) || c.input_rank(1, 3) || c.input_shape(2, {1}, "[1]") || c.input_shape(3, {1}, "[1]")) return;
    const Shape& a = c.ish(0);
    const Shape& b = c.ish(1);
    if (c.argument(a[0] == b[0] && a[2] == b[1], "A is [N,H,C] and B is [N,C,W] (argument table)",
                   "A is " + to_string(c.in(0)) + ", B " + to_string(c.in(1))))
        return;
    // The spec's line reads ERROR_IF(is_same<in_t,i8_t> && (A_zp != 0 || B_zp != 0)) under the
    // comment "Zero point only for i8_t" and the argument table's "Must be zero for non-int8
    // types": the negation is meant, as for every other operator with zero points.
    const DType t = c.idt(0);
    if (t != DType::i8) {
        auto za = c.scalar(2);
        auto zb = c.scalar(3);
        if (c.error_if((za && *za != 0) || (zb && *zb != 0), "!is_same<in_t,i8_t> && (A_zp != 0 || B_zp != 0)",
                       "zero points for " + std::string(to_string(t))))
            return;
    }
    c.expect_shape(0, DType::none, {a[0], a[1], b[2]}, "shape(output) != [N,H,W]");
}

void check_argmax(OpCheck& c) {
    if (c.input_rank_min(0, 1)) return;
    const I64 axis = c.i32(AttrName::axis);
    const Shape& x = c.ish(0);
    if (c.axis_in_range(axis, x.size(), "axis < 0 || axis >= rank(shape1)")) return;
    Shape o;
    for (std::size_t d = 0; d < x.size(); ++d)
        if (static_cast<I64>(d) != axis) o.push_back(x[d]);
    c.expect_shape(0, DType::i32, o, "flatten(left_shape, right_shape) != shape");
}

void check_clamp(OpCheck& c) {
    const DType t = c.idt(0);
    const Attr* lo = c.op_.attr(AttrName::min_val);
    const Attr* hi = c.op_.attr(AttrName::max_val);
    if (is_float(t)) {
        if (c.argument(std::holds_alternative<double>(*lo) && std::holds_alternative<double>(*hi),
                       "min_val and max_val are in_out_t (argument table)", "a floating-point CLAMP needs number attributes"))
            return;
        const double a = std::get<double>(*lo), b = std::get<double>(*hi);
        if (c.error_if(b < a, "max_val < min_val", "min_val " + std::to_string(a) + ", max_val " + std::to_string(b)) ||
            c.error_if(std::isnan(a) || std::isnan(b), "isNaN(min_val) || isNaN(max_val)"))
            return;
    } else {
        if (c.argument(std::holds_alternative<I64>(*lo) && std::holds_alternative<I64>(*hi),
                       "min_val and max_val are in_out_t (argument table)", "an integer CLAMP needs integer attributes"))
            return;
        const I64 a = std::get<I64>(*lo), b = std::get<I64>(*hi);
        const int bits = integer_bits(t);
        if (bits > 0 && bits < 64) {
            const I64 mn = -(I64(1) << (bits - 1)), mx = (I64(1) << (bits - 1)) - 1;
            if (c.argument(a >= mn && a <= mx && b >= mn && b <= mx, "min_val and max_val are in_out_t (argument table)",
                           "[" + std::to_string(a) + ", " + std::to_string(b) + "] is outside " + to_string(t)))
                return;
        }
        if (c.error_if(b < a, "max_val < min_val", "min_val " + std::to_string(a) + ", max_val " + std::to_string(b))) return;
    }
    c.expect_shape(0, t, c.ish(0), "shape(output) != shape(input)");
}

// Integer shift amounts that a constant operand gives: REQUIRE(0 <= value2 <= bits - 1).
bool check_shift_amounts(OpCheck& c, std::size_t i) {
    const ConstData* k = c.constant(i);
    const int bits = integer_bits(c.idt(0));
    if (!k || bits == 0 || k->type.dtype != c.idt(0)) return false;
    for (I64 j = 0, n = k->type.volume(); j < n; ++j) {
        const I64 v = *OpCheck::item(*k, static_cast<std::size_t>(j));
        if (c.require(v >= 0 && v <= bits - 1,
                      std::string("is_same<in_out_t,") + to_string(c.idt(0)) + "_t>() && 0 <= value2 && value2 <= " +
                          std::to_string(bits - 1),
                      "input2 holds " + std::to_string(v)))
            return true;
    }
    return false;
}

void check_binary(OpCheck& c) {
    Shape s = c.ish(0);
    if (c.broadcast(s, c.ish(1), "input2")) return;
    switch (c.op_.kind) {
        case OpKind::ARITHMETIC_RIGHT_SHIFT:
        case OpKind::LOGICAL_LEFT_SHIFT:
        case OpKind::LOGICAL_RIGHT_SHIFT:
            if (check_shift_amounts(c, 1)) return;
            break;
        case OpKind::INTDIV:
            if (const ConstData* k = c.constant(1); k && k->type.dtype == DType::i32) {
                for (I64 j = 0, n = k->type.volume(); j < n; ++j)
                    if (c.require(k->items<std::int32_t>()[j] != 0, "value2 != 0", "input2 holds a zero")) return;
            }
            break;
        case OpKind::MUL: {
            if (c.input_shape(2, {1}, "[1]")) return;
            if (auto sh = c.scalar(2)) {
                if (c.require(*sh >= 0 && *sh <= 63, "0 <= shift && shift <= 63", "shift is " + std::to_string(I64(*sh))) ||
                    c.require(c.idt(0) == DType::i32 || *sh == 0, "is_same<in_t,int32_t>() || shift == 0",
                              "shift is " + std::to_string(I64(*sh)) + " for " + to_string(c.idt(0))))
                    return;
            }
            break;
        }
        default: break;
    }
    c.expect_shape(0, DType::none, s, "shape != broadcast_shape(shape1, shape2)");
}

void check_table(OpCheck& c) {
    if (c.input_rank(1, 1)) return;
    const DType t = c.idt(0);
    const I64 size = t == DType::i8 ? 256 : t == DType::i16 ? 513 : unknown;
    if (size != unknown && c.require(c.ish(1)[0] == size, "length(table) == TABLE_SIZE",
                                     "table is " + to_string(c.in(1)) + ", TABLE_SIZE is " + std::to_string(size) +
                                         " for " + to_string(t)))
        return;
    c.expect_shape(0, DType::none, c.ish(0), "shape(output) != shape(input1)");
}

void check_negate(OpCheck& c) {
    if (c.input_shape(1, {1}, "[1]") || c.input_shape(2, {1}, "[1]")) return;
    const DType t = c.idt(0);
    if (c.zero_point(1, t, "in_out_t") || c.zero_point(2, t, "in_out_t")) return;
    c.expect_shape(0, t, c.ish(0), "shape(output) != shape(input1)");
}

void check_select(OpCheck& c) {
    Shape s = c.ish(0);
    if (c.broadcast(s, c.ish(1), "input2") || c.broadcast(s, c.ish(2), "input3")) return;
    c.expect_shape(0, c.idt(1), s, "shape != broadcast_shape(broadcast_shape(shape1, shape2), shape3)");
}

void check_reduce(OpCheck& c) {
    if (c.input_rank_min(0, 1)) return;
    const I64 axis = c.i32(AttrName::axis);
    Shape s = c.ish(0);
    if (c.axis_in_range(axis, s.size(), "axis < 0 || axis >= rank(shape1)")) return;
    s[axis] = 1;
    if (c.expect_rank(0, c.idt(0), s.size(), "rank(output) != rank(input)")) return;
    for (std::size_t d = 0; d < s.size(); ++d)
        if (c.expect_dim(0, d, s[d], static_cast<I64>(d) == axis ? "shape[axis] != 1" : "shape[i] != shape1[i]")) return;
}

void check_concat(OpCheck& c) {
    if (c.error_if(c.n_in() == 0, "input1 == []", "no inputs")) return;
    if (c.validating() && c.level(static_cast<I64>(c.n_in()), c.lv().max_tensor_list_size,
                                  "tensor_list_shape(input1) <= MAX_TENSOR_LIST_SIZE"))
        return;
    const Shape& first = c.ish(0);
    if (c.input_rank_min(0, 1)) return;
    const I64 axis = c.i32(AttrName::axis);
    if (c.axis_in_range(axis, std::max<std::size_t>(1, first.size()), "axis < 0 || axis >= max(1,rank(shapes1[0]))")) return;
    I64 sum = 0;
    for (std::size_t i = 0; i < c.n_in(); ++i) {
        const Shape& s = c.ish(i);
        if (c.error_if(s.size() != first.size(), "rank(shapes1[shape_index]) != rank(shapes1[0])",
                       "input " + std::to_string(i) + " is " + to_string(c.in(i)) + ", input 0 " + to_string(c.in(0))))
            return;
        for (std::size_t d = 0; d < s.size(); ++d) {
            if (static_cast<I64>(d) == axis) {
                sum += s[d];
            } else if (c.error_if(s[d] != first[d], "shapes1[shape_index][axis_index] != shapes1[0][axis_index]",
                                  "input " + std::to_string(i) + " is " + to_string(c.in(i)) + ", input 0 " +
                                      to_string(c.in(0)))) {
                return;
            }
        }
    }
    Shape o = first;
    o[axis] = sum;
    if (c.expect_rank(0, c.idt(0), o.size(), "rank(output) != rank(input1)")) return;
    for (std::size_t d = 0; d < o.size(); ++d)
        if (c.expect_dim(0, d, o[d], static_cast<I64>(d) == axis ? "axis_sum != shape[axis]" : "shape[i] != shapes1[0][i]"))
            return;
}

// A shape_t operand of `length` values (the type's extent); its values when constant.
const std::vector<I64>* shape_operand(OpCheck& c, std::size_t i, std::size_t length, const std::string& spec_len,
                                      bool& failed) {
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

void check_pad(OpCheck& c) {
    if (c.input_rank_min(0, 1) || c.input_shape(2, {1}, "[1]")) return;
    const Shape& x = c.ish(0);
    bool bad = false;
    const auto* pad = shape_operand(c, 1, 2 * x.size(), "2*rank(shape1)", bad);
    if (bad) return;
    if (c.expect_rank(0, c.idt(0), x.size(), "rank(shape) != rank(shape1)") || !pad) return;
    for (std::size_t i = 0; i < x.size(); ++i) {
        if (c.error_if((*pad)[2 * i] < 0 || (*pad)[2 * i + 1] < 0, "padding[i * 2] < 0 || padding[(i * 2) + 1] < 0",
                       "padding " + ints_text(*pad)) ||
            c.expect_dim(0, i, (*pad)[2 * i] + x[i] + (*pad)[2 * i + 1],
                         "shape[i] != padding[i * 2] + shape1[i] + padding[(i * 2) + 1]"))
            return;
    }
}

void check_reshape(OpCheck& c) {
    const TensorType& st = c.in(1);
    if (c.argument(st.shape.size() == 1, "shape is shape_t<[rank(shape)]> (argument table)", "shape is " + to_string(st)))
        return;
    const std::size_t rank = static_cast<std::size_t>(std::max<I64>(0, st.shape[0]));
    bool bad = false;
    const auto* s = shape_operand(c, 1, rank, "rank(shape)", bad);
    if (bad) return;
    if (c.validating() && c.level(static_cast<I64>(rank), c.lv().max_rank, "rank(shape) <= MAX_RANK")) return;
    if (c.expect_rank(0, c.idt(0), rank, "rank(output) != length(shape)") || !s) return;
    I64 size = 1;
    for (I64 e : *s) {
        if (c.require(e >= 1, "1 <= shape[i] (tensor_size)", "shape " + ints_text(*s))) return;
        size *= e;
    }
    if (c.error_if(size != c.in(0).volume(), "tensor_size(shape1) != tensor_size(shape)",
                   to_string(c.in(0)) + " to " + ints_text(*s)))
        return;
    for (std::size_t d = 0; d < rank; ++d)
        if (c.expect_dim(0, d, (*s)[d], "shape(output) != shape")) return;
}

void check_reverse(OpCheck& c) {
    if (c.input_rank_min(0, 1)) return;
    if (c.axis_in_range(c.i32(AttrName::axis), c.ish(0).size(), "axis < 0 || axis >= rank(shape)")) return;
    c.expect_shape(0, c.idt(0), c.ish(0), "shape(output) != shape(input1)");
}

void check_slice(OpCheck& c) {
    if (c.input_rank_min(0, 1)) return;
    const Shape& x = c.ish(0);
    bool bad = false;
    const auto* start = shape_operand(c, 1, x.size(), "rank(shape1)", bad);
    if (bad) return;
    const auto* size = shape_operand(c, 2, x.size(), "rank(shape1)", bad);
    if (bad) return;
    if (c.expect_rank(0, c.idt(0), x.size(), "rank(shape1) != rank(shape)")) return;
    for (std::size_t i = 0; i < x.size(); ++i) {
        if (start && c.error_if((*start)[i] < 0, "start[index] < 0", "start " + ints_text(*start))) return;
        if (size && c.error_if((*size)[i] <= 0, "size[index] <= 0", "size " + ints_text(*size))) return;
    }
    for (std::size_t i = 0; i < x.size(); ++i) {
        if (start && size &&
            c.error_if((*start)[i] + (*size)[i] > x[i], "start[index] + size[index] > shape1[index]",
                       "start " + ints_text(*start) + ", size " + ints_text(*size) + ", input " + to_string(c.in(0))))
            return;
        if (size && c.expect_dim(0, i, (*size)[i], "shape[index] != size[index]")) return;
    }
}

void check_tile(OpCheck& c) {
    if (c.input_rank_min(0, 1)) return;
    const Shape& x = c.ish(0);
    bool bad = false;
    const auto* m = shape_operand(c, 1, x.size(), "rank(shape1)", bad);
    if (bad) return;
    if (c.expect_rank(0, c.idt(0), x.size(), "rank(shape1) != rank(shape)") || !m) return;
    for (std::size_t i = 0; i < x.size(); ++i) {
        if (c.require((*m)[i] >= 1, "1 <= shape[i] (tensor_size of shape1[i] * multiples[i])",
                      "multiples " + ints_text(*m)) ||
            c.expect_dim(0, i, x[i] * (*m)[i], "shape1[i] * multiples[i] != shape[i]"))
            return;
    }
}

void check_transpose(OpCheck& c) {
    if (c.input_rank_min(0, 1)) return;
    const Shape& x = c.ish(0);
    const auto& perms = c.ints(AttrName::perms);
    if (c.argument(perms.size() == x.size(), "length(perms) == rank(shape1) (argument table)",
                   "perms " + ints_text(perms) + " for " + to_string(c.in(0))))
        return;
    std::vector<bool> used(x.size());
    for (I64 p : perms) {
        if (c.error_if(p >= static_cast<I64>(x.size()), "index >= rank(shape1)", "perms " + ints_text(perms)) ||
            c.error_if(p < 0, "index < 0", "perms " + ints_text(perms)) ||
            c.error_if(used[p], "indexes_used[index] == true", "perms " + ints_text(perms)))
            return;
        used[p] = true;
    }
    if (c.expect_rank(0, c.idt(0), x.size(), "rank(shape1) != rank(shape)")) return;
    for (std::size_t i = 0; i < x.size(); ++i)
        if (c.expect_dim(0, i, x[perms[i]], "shape1[perms[i]] != shape[i]")) return;
}

// Constant indices: REQUIRE(0 <= k && k < K) (and for SCATTER each position written once).
bool check_indices(OpCheck& c, std::size_t i, I64 k_extent, bool unique) {
    const ConstData* k = c.constant(i);
    if (!k || k->type.dtype != DType::i32 || k->type.rank() != 2) return false;
    const I64 n = k->type.shape[0], w = k->type.shape[1];
    const std::int32_t* items = k->items<std::int32_t>();
    std::vector<bool> seen;
    for (I64 a = 0; a < n; ++a) {
        if (unique) seen.assign(static_cast<std::size_t>(std::max<I64>(k_extent, 0)), false);
        for (I64 b = 0; b < w; ++b) {
            const I64 v = items[a * w + b];
            if (c.require(v >= 0 && v < k_extent, "0 <= k && k < K",
                          "indices hold " + std::to_string(v) + ", K is " + std::to_string(k_extent)))
                return true;
            if (unique) {
                if (c.require(!seen[v], "output_modified[n,k,c] == false",
                              "index " + std::to_string(v) + " is written twice in batch " + std::to_string(a)))
                    return true;
                seen[v] = true;
            }
        }
    }
    return false;
}

void check_gather(OpCheck& c) {
    if (c.input_rank(0, 3) || c.input_rank(1, 2)) return;
    const Shape& v = c.ish(0);
    const Shape& idx = c.ish(1);
    if (c.argument(v[0] == idx[0], "values [N,K,C] and indices [N,W] share N (argument table)",
                   "values " + to_string(c.in(0)) + ", indices " + to_string(c.in(1))))
        return;
    if (check_indices(c, 1, v[1], false)) return;
    c.expect_shape(0, c.idt(0), {v[0], idx[1], v[2]}, "shape(output) != [N,W,C]");
}

void check_scatter(OpCheck& c) {
    if (c.input_rank(0, 3) || c.input_rank(1, 2) || c.input_rank(2, 3)) return;
    const Shape& v = c.ish(0);
    const Shape& idx = c.ish(1);
    const Shape& x = c.ish(2);
    if (c.argument(v[0] == idx[0] && x[0] == v[0] && x[1] == idx[1] && x[2] == v[2],
                   "values_in [N,K,C], indices [N,W], input [N,W,C] (argument table)",
                   "values_in " + to_string(c.in(0)) + ", indices " + to_string(c.in(1)) + ", input " + to_string(c.in(2))))
        return;
    if (check_indices(c, 1, v[1], true)) return;
    c.expect_shape(0, c.idt(0), v, "shape(values_out) != [N,K,C]");
}

void check_resize(OpCheck& c) {
    if (c.input_rank(0, 4)) return;
    bool bad = false;
    const auto* scale = shape_operand(c, 1, 4, "4", bad);
    if (bad) return;
    const auto* offset = shape_operand(c, 2, 2, "2", bad);
    if (bad) return;
    const auto* border = shape_operand(c, 3, 2, "2", bad);
    if (bad) return;
    const Shape& x = c.ish(0);
    if (c.expect_rank(0, DType::none, 4, "rank(output) != 4") || c.expect_dim(0, 0, x[0], "output N != input N") ||
        c.expect_dim(0, 3, x[3], "output C != input C"))
        return;
    if (c.error_if(std::max(x[1], x[2]) >= 16384, "max(OH,OW,IH,IW) >= 16384", "input is " + to_string(c.in(0))))
        return;
    if (!scale || !offset || !border) return;
    const I64 yn = (*scale)[0], yd = (*scale)[1], xn = (*scale)[2], xd = (*scale)[3];
    const I64 oy = (*offset)[0], ox = (*offset)[1], by = (*border)[0], bx = (*border)[1];
    if (c.error_if(yn <= 0 || yd <= 0 || xn <= 0 || xd <= 0, "scale_y_n <= 0 || scale_y_d <= 0 || scale_x_n <= 0 || scale_x_d <= 0",
                   "scale " + ints_text(*scale)))
        return;
    if (c.validating() && (c.level(yn / yd, c.lv().max_scale, "scale_y_n/scale_y_d <= MAX_SCALE") ||
                           c.level(xn / xd, c.lv().max_scale, "scale_x_n/scale_x_d <= MAX_SCALE")))
        return;
    if (c.error_if(yn > (1 << 11) || xn > (1 << 11), "scale_y_n > (1 << 11) || scale_x_n > (1 << 11)",
                   "scale " + ints_text(*scale)) ||
        c.error_if(yd >= 16 * yn || xd >= 16 * xn, "scale_y_d >= 16 * scale_y_n || scale_x_d >= 16 * scale_x_n",
                   "scale " + ints_text(*scale)) ||
        c.error_if(oy < -yn || oy >= 16 * yn, "offset_y < -scale_y_n || offset_y >= 16 * scale_y_n",
                   "offset " + ints_text(*offset) + ", scale " + ints_text(*scale)) ||
        c.error_if(ox < -xn || ox >= 16 * xn, "offset_x < -scale_x_n || offset_x >= 16 * scale_x_n",
                   "offset " + ints_text(*offset) + ", scale " + ints_text(*scale)) ||
        c.error_if(by < -16 * yn || by >= yn, "border_y < -16 * scale_y_n || border_y >= scale_y_n",
                   "border " + ints_text(*border) + ", scale " + ints_text(*scale)) ||
        c.error_if(bx < -16 * xn || bx >= xn, "border_x < -16 * scale_x_n || border_x >= scale_x_n",
                   "border " + ints_text(*border) + ", scale " + ints_text(*scale)))
        return;
    if (c.sliding_extent(0, 1, (x[1] - 1) * yn - oy + by, yd,
                         "OH != idiv_check((IH - 1) * scale_y_n - offset_y + border_y, scale_y_d) + 1", "OH") ||
        c.sliding_extent(0, 2, (x[2] - 1) * xn - ox + bx, xd,
                         "OW != idiv_check((IW - 1) * scale_x_n - offset_x + border_x, scale_x_d) + 1", "OW"))
        return;
    const I64 oh = c.out[0].shape[1], ow = c.out[0].shape[2];
    c.error_if(std::max({oh, ow, x[1], x[2]}) >= 16384, "max(OH,OW,IH,IW) >= 16384",
               "input " + to_string(c.in(0)) + ", output " + std::to_string(oh) + "x" + std::to_string(ow));
}

void check_rescale(OpCheck& c) {
    const bool scale32 = c.flag(AttrName::scale32);
    const bool per_channel = c.flag(AttrName::per_channel);
    const bool in_u = c.flag(AttrName::input_unsigned);
    const bool out_u = c.flag(AttrName::output_unsigned);
    const RoundingMode rounding = c.op_.get<RoundingMode>(AttrName::rounding_mode);
    const DType in_t = c.idt(0);
    const DType out_t = c.idt(4);
    const Shape& x = c.ish(0);
    if (c.error_if(per_channel && x.empty(), "per_channel && rank(input) < 1", "input is " + to_string(c.in(0)))) return;
    const I64 nc = per_channel ? x.back() : 1;
    const DType mul_t = scale32 ? DType::i32 : DType::i16;
    if (c.argument(c.idt(1) == mul_t, "multiplier is T<mul_t>, mul_t = scale32 ? i32_t : i16_t (argument table)",
                   "multiplier is " + to_string(c.in(1)) + " with scale32 " + (scale32 ? "true" : "false")) ||
        c.input_shape(1, {nc}, "[NC], NC = per_channel ? shape[rank(shape)-1] : 1") ||
        c.input_shape(2, {nc}, "[NC], NC = per_channel ? shape[rank(shape)-1] : 1") || c.input_shape(3, {1}, "[1]") ||
        c.input_shape(4, {1}, "[1]"))
        return;
    if (c.validating()) {
        const auto& ext = c.opts_->extensions;
        auto enabled = [&](Extension e) {
            for (const std::string& s : ext)
                if (extension_from_string(s) == e) return true;
            return false;
        };
        if (rounding == RoundingMode::DOUBLE_ROUND && !enabled(Extension::doubleround))
            if (c.fail("tosa-type-table", "rounding_mode_t DOUBLE_ROUND requires EXT-DOUBLEROUND (3.5)",
                       "EXT-DOUBLEROUND is not enabled"))
                return;
        if (rounding == RoundingMode::INEXACT_ROUND && !enabled(Extension::inexactround))
            if (c.fail("tosa-type-table", "rounding_mode_t INEXACT_ROUND requires EXT-INEXACTROUND (3.5)",
                       "EXT-INEXACTROUND is not enabled"))
                return;
    }
    const auto in_zp = c.scalar(3);
    const auto out_zp = c.scalar(4);
    auto zp_text = [](const std::optional<double>& z) { return z ? std::to_string(I64(*z)) : std::string("?"); };
    if (c.error_if(in_t != DType::i8 && (in_t != DType::i16 || !in_u) && in_zp && *in_zp != 0,
                   "!is_same<in_t,i8_t>() && (!is_same<in_t,i16_t>() || input_unsigned == false) && input_zp != 0",
                   "input_zp " + zp_text(in_zp) + " for " + to_string(in_t)) ||
        c.error_if(out_t != DType::i8 && (out_t != DType::i16 || !out_u) && out_zp && *out_zp != 0,
                   "!is_same<out_t,i8_t>() && (!is_same<out_t,i16_t>() || output_unsigned == false) && output_zp != 0",
                   "output_zp " + zp_text(out_zp) + " for " + to_string(out_t)))
        return;
    // An unsigned i16 zero point is stored in an i16: 32768 reads as -32768.
    auto is_u16_zp = [](double z) { return z == 0 || z == 32768 || z == -32768; };
    if (c.error_if(in_t == DType::i16 && in_u && in_zp && !is_u16_zp(*in_zp),
                   "is_same<in_t,i16_t>() && input_unsigned == true && input_zp != 0 && input_zp != 32768",
                   "input_zp " + zp_text(in_zp)) ||
        c.error_if(out_t == DType::i16 && out_u && out_zp && !is_u16_zp(*out_zp),
                   "is_same<out_t,i16_t>() && output_unsigned == true && output_zp != 0 && output_zp != 32768",
                   "output_zp " + zp_text(out_zp)) ||
        c.error_if(scale32 && in_t == DType::i48, "scale32 && is_same<in_t,i48_t>()") ||
        c.error_if(!scale32 && rounding == RoundingMode::DOUBLE_ROUND, "!scale32 && (rounding_mode == DOUBLE_ROUND)") ||
        c.error_if(in_u && out_u, "input_unsigned && output_unsigned") ||
        c.error_if(out_t == DType::i32 && in_u, "is_same<out_t,i32_t>() && input_unsigned") ||
        c.error_if(in_t == DType::i32 && out_u, "is_same<in_t,i32_t>() && output_unsigned") ||
        c.error_if(in_t == DType::i48 && out_u, "is_same<in_t,i48_t>() && output_unsigned") ||
        c.error_if(in_t == DType::i48 && in_u, "is_same<in_t, i48_t> && input_unsigned") ||
        c.error_if(in_t == DType::i32 && in_u, "is_same<in_t, i32_t> && input_unsigned") ||
        c.error_if(out_t == DType::i32 && out_u, "is_same<out_t, i32_t> && output_unsigned"))
        return;
    // The scale arrays (NC items): apply_scale_32 / apply_scale_16 REQUIRE multiplier >= 0 and
    // 2 <= shift <= 62.
    if (const ConstData* m = c.constant(1); m && m->type.dtype == mul_t) {
        for (I64 j = 0; j < m->type.volume(); ++j)
            if (c.require(*OpCheck::item(*m, static_cast<std::size_t>(j)) >= 0, "multiplier >= 0",
                          "multiplier[" + std::to_string(j) + "] is " +
                              std::to_string(*OpCheck::item(*m, static_cast<std::size_t>(j)))))
                return;
    }
    if (const ConstData* s = c.constant(2); s && s->type.dtype == DType::i8) {
        for (I64 j = 0; j < s->type.volume(); ++j) {
            const I64 v = s->items<std::int8_t>()[j];
            if (c.require(v >= 2 && v <= 62, "2 <= shift && shift <= 62",
                          "shift[" + std::to_string(j) + "] is " + std::to_string(v)))
                return;
        }
    }
    c.expect_shape(0, out_t, x, "shape(output) != shape(input)");
}

void check_const(OpCheck& c) {
    const ConstPtr& v = c.op_.get<ConstPtr>(AttrName::values);
    if (c.argument(v->data != nullptr || v->type.volume() == 0, "values holds the constant's items", "values has no data"))
        return;
    c.expect_shape(0, v->type.dtype, v->type.shape, "shape(output) != shape(values)");
}

void check_const_shape(OpCheck& c) {
    const auto& v = c.ints(AttrName::values);
    if (c.validating() && c.lv().max_log2_size < 63) {
        const I64 lim = I64(1) << c.lv().max_log2_size;
        for (I64 e : v)
            if (c.argument(e >= -lim && e < lim,
                           "tensor_size_t values are in [-(1 << MAX_LOG2_SIZE), (1 << MAX_LOG2_SIZE) - 1] (1.11.1)",
                           std::to_string(e) + " at level " + c.lv().name))
                return;
    }
    c.expect_shape(0, DType::shape, {static_cast<I64>(v.size())}, "output is shape_t<[length(values)]>");
}

std::string types_text(const Graph& g, const std::vector<ValueId>& vs) {
    std::string s = "(";
    for (std::size_t i = 0; i < vs.size(); ++i) s += (i ? ", " : "") + to_string(g.values[vs[i]].type);
    return s + ")";
}
bool same_types(const Graph& g, const std::vector<ValueId>& a, std::size_t a_from, const std::vector<ValueId>& b) {
    if (a.size() - a_from != b.size()) return false;
    for (std::size_t i = 0; i < b.size(); ++i)
        if (g.values[a[a_from + i]].type != g.values[b[i]].type) return false;
    return true;
}
std::vector<ValueId> tail(const std::vector<ValueId>& v, std::size_t from) {
    return std::vector<ValueId>(v.begin() + static_cast<std::ptrdiff_t>(std::min(from, v.size())), v.end());
}

// A control-flow graph's interface names values of the graph.
bool block_ids(OpCheck& c, const Block& b) {
    for (const auto* list : {&b.inputs, &b.outputs})
        for (ValueId v : *list)
            if (v >= c.g_.values.size())
                return c.fail("tosa-ssa", "graph inputs and outputs are values of the graph",
                              "block '" + b.name + "' names %" + std::to_string(v) + ", which does not exist");
    return false;
}

void check_cond_if(OpCheck& c) {
    const TensorType& cond = c.in(0);
    if (c.error_if(cond.volume() != 1, "tensor_size(shape) != 1", "condition is " + to_string(cond))) return;
    const Block& then_b = c.g_.blocks[c.op_.get<BlockRef>(AttrName::then_graph).block];
    const Block& else_b = c.g_.blocks[c.op_.get<BlockRef>(AttrName::else_graph).block];
    if (block_ids(c, then_b) || block_ids(c, else_b)) return;
    const auto inputs = tail(c.op_.inputs, 1);
    if (c.error_if(!same_types(c.g_, c.op_.inputs, 1, then_b.inputs), "tensor_list_shape(input_list) != tosa_input_shape(then_graph)",
                   "input_list " + types_text(c.g_, inputs) + ", then_graph " + types_text(c.g_, then_b.inputs)) ||
        c.error_if(!same_types(c.g_, c.op_.inputs, 1, else_b.inputs), "tensor_list_shape(input_list) != tosa_input_shape(else_graph)",
                   "input_list " + types_text(c.g_, inputs) + ", else_graph " + types_text(c.g_, else_b.inputs)))
        return;
    if (c.validating()) {
        if (c.error_if(!same_types(c.g_, c.op_.outputs, 0, then_b.outputs),
                       "tensor_list_shape(output_list) != tosa_output_shape(then_graph)",
                       "output_list " + types_text(c.g_, c.op_.outputs) + ", then_graph " + types_text(c.g_, then_b.outputs)) ||
            c.error_if(!same_types(c.g_, c.op_.outputs, 0, else_b.outputs),
                       "tensor_list_shape(output_list) != tosa_output_shape(else_graph)",
                       "output_list " + types_text(c.g_, c.op_.outputs) + ", else_graph " + types_text(c.g_, else_b.outputs)))
            return;
    } else if (c.error_if(!same_types(c.g_, then_b.outputs, 0, else_b.outputs),
                          "tosa_output_shape(then_graph) != tosa_output_shape(else_graph)",
                          "then_graph " + types_text(c.g_, then_b.outputs) + ", else_graph " +
                              types_text(c.g_, else_b.outputs))) {
        return;
    }
    for (std::size_t i = 0; i < then_b.outputs.size(); ++i) c.result(i, c.g_.type(then_b.outputs[i]).dtype, c.g_.type(then_b.outputs[i]).shape);
    c.out.resize(then_b.outputs.size());
}

void check_while(OpCheck& c) {
    const Block& cond_b = c.g_.blocks[c.op_.get<BlockRef>(AttrName::cond_graph).block];
    const Block& body_b = c.g_.blocks[c.op_.get<BlockRef>(AttrName::body_graph).block];
    if (block_ids(c, cond_b) || block_ids(c, body_b)) return;
    const auto& in = c.op_.inputs;
    if ((c.validating() && c.error_if(!same_types(c.g_, in, 0, c.op_.outputs),
                                      "tensor_list_shape(input_list) != tensor_list_shape(output_list)",
                                      "input_list " + types_text(c.g_, in) + ", output_list " +
                                          types_text(c.g_, c.op_.outputs))) ||
        c.error_if(!same_types(c.g_, in, 0, cond_b.inputs), "tensor_list_shape(input_list) != tosa_input_shape(cond_graph)",
                   "input_list " + types_text(c.g_, in) + ", cond_graph " + types_text(c.g_, cond_b.inputs)) ||
        c.error_if(!same_types(c.g_, in, 0, body_b.inputs), "tensor_list_shape(input_list) != tosa_input_shape(body_graph)",
                   "input_list " + types_text(c.g_, in) + ", body_graph " + types_text(c.g_, body_b.inputs)) ||
        c.error_if(!same_types(c.g_, in, 0, body_b.outputs), "tensor_list_shape(input_list) != tosa_output_shape(body_graph)",
                   "input_list " + types_text(c.g_, in) + ", body_graph returns " + types_text(c.g_, body_b.outputs)) ||
        c.error_if(cond_b.outputs.size() != 1 || c.g_.type(cond_b.outputs[0]).volume() != 1,
                   "tensor_size(tosa_output_shape(cond_graph)) != 1", "cond_graph returns " + types_text(c.g_, cond_b.outputs)) ||
        c.error_if(c.g_.type(cond_b.outputs[0]).dtype != DType::bool_, "tosa_output_type(cond_graph) != bool_t",
                   "cond_graph returns " + types_text(c.g_, cond_b.outputs)))
        return;
    for (std::size_t i = 0; i < in.size(); ++i) c.result(i, c.in(i).dtype, c.in(i).shape);
    c.out.resize(in.size());
}

// The VARIABLE declaring `name` (first in block order), or null.
const Op* find_variable(const Graph& g, const std::string& name,
                        const std::map<std::string, std::pair<std::uint32_t, std::uint32_t>>* declared) {
    if (declared) {
        auto it = declared->find(name);
        return it == declared->end() ? nullptr : &g.blocks[it->second.first].ops[it->second.second];
    }
    for (const Block& b : g.blocks)
        for (const Op& op : b.ops)
            if (op.kind == OpKind::VARIABLE) {
                const Attr* a = op.attr(AttrName::name);
                if (a && std::holds_alternative<std::string>(*a) && std::get<std::string>(*a) == name) return &op;
            }
    return nullptr;
}

void check_variable(OpCheck& c) {
    const auto& shape = c.ints(AttrName::var_shape);
    const DType type = c.op_.get<DType>(AttrName::type);
    if (c.validating() && c.level(static_cast<I64>(shape.size()), c.lv().max_rank, "rank(shape) <= MAX_RANK")) return;
    for (I64 e : shape)
        if (c.require(e >= 1, "1 <= shape[i] (tensor_size of var_shape)", "var_shape " + ints_text(shape))) return;
    if (const Attr* iv = c.op_.attr(AttrName::initial_value)) {
        const ConstData& init = *std::get<ConstPtr>(*iv);
        if (c.require(init.type.dtype == type, "var_t == in_t",
                      std::string("type is ") + to_string(type) + ", initial_value " + to_string(init.type)) ||
            c.require(init.type.shape == shape, "var_shape == shape",
                      "var_shape " + ints_text(shape) + ", initial_value " + to_string(init.type)))
            return;
    }
}

// VARIABLE_WRITE / VARIABLE_READ: the declaration and its shape and type.
void check_variable_access(OpCheck& c, bool write) {
    const std::string& name = c.op_.get<std::string>(AttrName::name);
    const Op* decl = find_variable(c.g_, name, c.variables);
    if (c.require(decl != nullptr, write ? "variable_tensor" : "variable_tensor != NULL",
                  "no VARIABLE declares '" + name + "'"))
        return;
    const auto* shape = std::get_if<std::vector<I64>>(decl->attr(AttrName::var_shape));
    const auto* type = std::get_if<DType>(decl->attr(AttrName::type));
    if (!shape || !type) return;  // the declaration's own check reports it
    if (write) {
        if (c.require(c.in(0).shape == *shape, "variable_tensor.shape == shape",
                      "input1 is " + to_string(c.in(0)) + ", variable '" + name + "' " + ints_text(*shape)))
            return;
        c.require(c.idt(0) == *type, "is_same<variable_tensor.type,in_t>()",
                  "input1 is " + to_string(c.in(0)) + ", variable '" + name + "' " + to_string(*type));
        return;
    }
    c.result(0, *type, *shape);
    if (!c.validating()) return;
    const TensorType* a = c.actual_out(0);
    if (a && a->shape != *shape)
        c.require(false, "variable_tensor.shape == shape",
                  "output1 is " + to_string(*a) + ", variable '" + name + "' " + ints_text(*shape));
    else if (a && a->dtype != *type)
        c.require(false, "is_same<variable_tensor.type,out_t>()",
                  "output1 is " + to_string(*a) + ", variable '" + name + "' " + to_string(*type));
}

void check_custom(OpCheck& c) {
    if (c.validating() &&
        (c.level(static_cast<I64>(c.n_in()), c.lv().max_tensor_list_size, "tensor_list_shape(input_list) <= MAX_TENSOR_LIST_SIZE") ||
         c.level(static_cast<I64>(c.op_.outputs.size()), c.lv().max_tensor_list_size,
                 "tensor_list_shape(output_list) <= MAX_TENSOR_LIST_SIZE")))
        return;
    c.outputs_free = true;
}

// The operator's own rules (after operand counts and attribute kinds are known to be right).
void check_operator(OpCheck& c) {
    switch (c.op_.kind) {
        case OpKind::ARGMAX: return check_argmax(c);
        case OpKind::AVG_POOL2D: return check_pool(c, true);
        case OpKind::MAX_POOL2D: return check_pool(c, false);
        case OpKind::CONV2D: return check_conv(c, 2, false);
        case OpKind::CONV3D: return check_conv(c, 3, false);
        case OpKind::DEPTHWISE_CONV2D: return check_conv(c, 2, true);
        case OpKind::TRANSPOSE_CONV2D: return check_transpose_conv(c);
        case OpKind::FFT2D: return check_fft(c, false);
        case OpKind::RFFT2D: return check_fft(c, true);
        case OpKind::MATMUL: return check_matmul(c);
        case OpKind::CLAMP: return check_clamp(c);
        case OpKind::ERF:
        case OpKind::SIGMOID:
        case OpKind::TANH:
        case OpKind::ABS:
        case OpKind::BITWISE_NOT:
        case OpKind::CEIL:
        case OpKind::CLZ:
        case OpKind::COS:
        case OpKind::EXP:
        case OpKind::FLOOR:
        case OpKind::LOG:
        case OpKind::LOGICAL_NOT:
        case OpKind::RECIPROCAL:
        case OpKind::RSQRT:
        case OpKind::SIN:
        case OpKind::CAST:
        case OpKind::IDENTITY:
            c.expect_shape(0, DType::none, c.ish(0), "shape(output) != shape(input)");
            return;
        case OpKind::ADD:
        case OpKind::ARITHMETIC_RIGHT_SHIFT:
        case OpKind::BITWISE_AND:
        case OpKind::BITWISE_OR:
        case OpKind::BITWISE_XOR:
        case OpKind::INTDIV:
        case OpKind::LOGICAL_AND:
        case OpKind::LOGICAL_LEFT_SHIFT:
        case OpKind::LOGICAL_RIGHT_SHIFT:
        case OpKind::LOGICAL_OR:
        case OpKind::LOGICAL_XOR:
        case OpKind::MAXIMUM:
        case OpKind::MINIMUM:
        case OpKind::MUL:
        case OpKind::POW:
        case OpKind::SUB:
        case OpKind::EQUAL:
        case OpKind::GREATER:
        case OpKind::GREATER_EQUAL: return check_binary(c);
        case OpKind::TABLE: return check_table(c);
        case OpKind::NEGATE: return check_negate(c);
        case OpKind::SELECT: return check_select(c);
        case OpKind::REDUCE_ALL:
        case OpKind::REDUCE_ANY:
        case OpKind::REDUCE_MAX:
        case OpKind::REDUCE_MIN:
        case OpKind::REDUCE_PRODUCT:
        case OpKind::REDUCE_SUM: return check_reduce(c);
        case OpKind::CONCAT: return check_concat(c);
        case OpKind::PAD: return check_pad(c);
        case OpKind::RESHAPE: return check_reshape(c);
        case OpKind::REVERSE: return check_reverse(c);
        case OpKind::SLICE: return check_slice(c);
        case OpKind::TILE: return check_tile(c);
        case OpKind::TRANSPOSE: return check_transpose(c);
        case OpKind::GATHER: return check_gather(c);
        case OpKind::SCATTER: return check_scatter(c);
        case OpKind::RESIZE: return check_resize(c);
        case OpKind::RESCALE: return check_rescale(c);
        case OpKind::CONST: return check_const(c);
        case OpKind::CUSTOM: return check_custom(c);
        case OpKind::COND_IF: return check_cond_if(c);
        case OpKind::WHILE_LOOP: return check_while(c);
        case OpKind::VARIABLE: return check_variable(c);
        case OpKind::VARIABLE_WRITE: return check_variable_access(c, true);
        case OpKind::VARIABLE_READ: return check_variable_access(c, false);
        case OpKind::CONST_SHAPE: return check_const_shape(c);
    }
}

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

}  // namespace tosa_validator_cpp

// ---- infer_output_types ----------------------------------------------------------------------

std::optional<std::vector<TensorType>> infer_output_types(const Graph& g, const Op& op, std::string* why) {
    using namespace tosa_validator_cpp;
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

namespace tosa_validator_cpp {

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

}  // namespace tosa_validator_cpp

bool validate(const Graph& g, const ValidateOptions& options, Diagnostics& diags) {
    return tosa_validator_cpp::Validator(g, options, diags).run();
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
