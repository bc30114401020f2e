// The MLIR reader's operators: parsed operators checked against ops.def and added to the graph,
// values numbered as the file numbers them, the profile guessed (mlir_read_graph.hpp).
#include "lowering/tosa/mlir_read_graph.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <map>

namespace nnef::tosa::mlir_read {

namespace {

[[noreturn]] void fail_at(std::size_t at, std::string message) { Cursor::fail_at(at, std::move(message)); }

const char* kind_text(AttrKind k) {
    switch (k) {
        case AttrKind::i32: return "an integer (N : i32)";
        case AttrKind::boolean: return "true or false";
        case AttrKind::i32s: return "an array<i64: ...>";
        case AttrKind::shape: return "a dense<...> : tensor<Nxindex>";
        case AttrKind::num: return "a number of the input's element type";
        case AttrKind::acc: return "an element type (i32, i48, f16, f32)";
        case AttrKind::nan: return "#tosa.nan_mode<PROPAGATE|IGNORE>";
        case AttrKind::round: return "#tosa.rounding_mode<SINGLE_ROUND|INEXACT_ROUND|DOUBLE_ROUND>";
        case AttrKind::resize: return "#tosa.resize_mode<NEAREST_NEIGHBOR|BILINEAR>";
        case AttrKind::str: return "a string";
        case AttrKind::dtype: return "an element type";
        case AttrKind::tensor: return "a dense<...> or dense_resource<...> constant";
        case AttrKind::graph: return "a region";
    }
    return "";
}

template <class E, std::size_t N>
std::optional<E> enum_named(const std::string& inner, const E (&all)[N]) {
    std::string s;
    for (char ch : inner)
        if (ch != ' ' && ch != '\n' && ch != '\t') s += ch;
    for (E e : all)
        if (s == to_string(e)) return e;
    return std::nullopt;
}

// A number attribute as the IR keeps it for element type t: double for floats, int64 otherwise.
Attr number(const AttrNode& a, DType t, const std::string& what) {
    if (a.kind != AttrNode::integer && a.kind != AttrNode::floating && a.kind != AttrNode::hex)
        fail_at(a.at, what + " must be " + kind_text(AttrKind::num));
    if (a.number_type && *a.number_type != t)
        fail_at(a.at, what + " is written as " + to_string(*a.number_type) + ", the input is " + to_string(t));
    if (is_float(t)) {
        if (a.kind == AttrNode::hex) {
            const std::uint64_t bits = static_cast<std::uint64_t>(Cursor::to_int(a.number));
            if (t == DType::fp32) {
                if (bits >> 32) fail_at(a.at, what + ": " + std::string(a.number.text) + " has more than 32 bits");
                const std::uint32_t b = static_cast<std::uint32_t>(bits);
                float f;
                std::memcpy(&f, &b, 4);
                return static_cast<double>(f);
            }
            if (bits >> 16) fail_at(a.at, what + ": " + std::string(a.number.text) + " has more than 16 bits");
            const auto h = static_cast<std::uint16_t>(bits);
            return static_cast<double>(t == DType::fp16 ? fp16_to_fp32(h) : bf16_to_fp32(h));
        }
        return std::strtod(std::string(a.number.text).c_str(), nullptr);
    }
    if (a.kind == AttrNode::floating) fail_at(a.at, what + " must be an integer for " + to_string(t) + " input");
    return Cursor::to_int(a.number);
}

Attr convert(Graph& g, const ParsedOp& p, const AttrSpec& spec, const AttrNode& a, const std::string& what) {
    auto bad = [&]() -> Attr { fail_at(a.at, what + " must be " + kind_text(spec.kind)); };
    switch (spec.kind) {
        case AttrKind::i32: {
            if (a.kind != AttrNode::integer) return bad();
            const std::int64_t v = Cursor::to_int(a.number);
            if (v < INT32_MIN || v > INT32_MAX) fail_at(a.at, what + " does not fit i32");
            return v;
        }
        case AttrKind::boolean:
            if (a.kind != AttrNode::boolean) return bad();
            return a.value;
        case AttrKind::i32s:
            if (a.kind != AttrNode::array) return bad();
            return a.ints;
        case AttrKind::shape: {
            if (a.kind != AttrNode::dense || a.type.dtype != DType::shape || a.type.rank() != 1) return bad();
            std::vector<std::int64_t> v(static_cast<std::size_t>(a.type.volume()));
            for (std::size_t i = 0; i < v.size(); ++i) v[i] = a.data->items<std::int64_t>()[i];
            return v;
        }
        case AttrKind::num:
            if (p.operands.empty()) fail_at(a.at, what + ": the operator has no input to give its type");
            return number(a, g.type(p.operands[0]).dtype, what);
        case AttrKind::acc: {
            if (a.kind != AttrNode::type_value || a.type.rank() != 0) return bad();
            switch (a.type.dtype) {
                case DType::i32: return AccType::INT32;
                case DType::i48: return AccType::INT48;
                case DType::fp16: return AccType::FP16;
                case DType::fp32: return AccType::FP32;
                default: return bad();
            }
        }
        case AttrKind::nan: {
            static const NanMode all[] = {NanMode::PROPAGATE, NanMode::IGNORE};
            auto e = a.kind == AttrNode::dialect && (a.str == "tosa.nan_mode" || a.str.empty()) ? enum_named(a.inner, all) : std::nullopt;
            if (!e) return bad();
            return *e;
        }
        case AttrKind::round: {
            static const RoundingMode all[] = {RoundingMode::SINGLE_ROUND, RoundingMode::INEXACT_ROUND, RoundingMode::DOUBLE_ROUND};
            auto e = a.kind == AttrNode::dialect && (a.str == "tosa.rounding_mode" || a.str.empty()) ? enum_named(a.inner, all) : std::nullopt;
            if (!e) return bad();
            return *e;
        }
        case AttrKind::resize: {
            static const ResizeMode all[] = {ResizeMode::NEAREST_NEIGHBOR, ResizeMode::BILINEAR};
            auto e = a.kind == AttrNode::dialect && (a.str == "tosa.resize_mode" || a.str.empty()) ? enum_named(a.inner, all) : std::nullopt;
            if (!e) return bad();
            return *e;
        }
        case AttrKind::str:
            if (a.kind != AttrNode::string && a.kind != AttrNode::symbol) return bad();
            return a.str;
        case AttrKind::dtype:
            if (a.kind != AttrNode::type_value || a.type.rank() != 0 || a.type.dtype == DType::shape) return bad();
            return a.type.dtype;
        case AttrKind::tensor:
            if (a.kind == AttrNode::dense && a.type.dtype != DType::shape) return a.data;
            if (a.kind == AttrNode::resource) {
                if (a.str == "__elided__")
                    fail_at(a.at, what + " is dense_resource<__elided__>: the file was written without its constants' data, "
                                         "so there are no values to read");
                return std::monostate{};  // filled from the dialect_resources section
            }
            return bad();
        case AttrKind::graph: break;
    }
    return bad();
}

}  // namespace

std::optional<OpKind> op_kind_of(const std::string& name) {
    static const std::map<std::string, OpKind> kinds = [] {
        std::map<std::string, OpKind> m;
        for (std::size_t k = 0; k < op_kind_count; ++k) {
            const OpInfo& info = op_info(static_cast<OpKind>(k));
            m["tosa." + info.mnemonic] = info.kind;
        }
        return m;
    }();
    auto it = kinds.find(name);
    if (it == kinds.end()) return std::nullopt;
    return it->second;
}

std::vector<ValueId> add_operator(Graph& g, std::uint32_t block, OpKind kind, const ParsedOp& p, std::uint32_t file,
                                  std::vector<PendingResource>& pending) {
    const OpInfo& info = op_info(kind);
    auto count_ok = [](std::size_t have, std::size_t spec, bool variadic) { return variadic ? have + 1 >= spec : have == spec; };
    auto plural = [](std::size_t n, const char* what) { return std::to_string(n) + " " + what + (n == 1 ? "" : "s"); };
    if (!count_ok(p.operands.size(), info.inputs.size(), info.variadic_inputs))
        fail_at(p.at, p.name + " takes " + (info.variadic_inputs ? "at least " + plural(info.inputs.size() - 1, "operand")
                                                                  : plural(info.inputs.size(), "operand")) +
                          ", not " + std::to_string(p.operands.size()));
    if (!count_ok(p.result_types.size(), info.outputs.size(), info.variadic_outputs))
        fail_at(p.at, p.name + " has " + (info.variadic_outputs ? "at least " + plural(info.outputs.size() - 1, "result")
                                                                 : plural(info.outputs.size(), "result")) +
                          ", not " + std::to_string(p.result_types.size()));
    if (p.operand_types.size() != p.operands.size())
        fail_at(p.at, "the signature of " + p.name + " lists " + plural(p.operand_types.size(), "operand type") + " for " +
                          plural(p.operands.size(), "operand"));
    for (std::size_t i = 0; i < p.operands.size(); ++i)
        if (g.type(p.operands[i]) != p.operand_types[i])
            fail_at(p.operand_at[i], "operand " + std::to_string(i + 1) + " of " + p.name + " is " + type_text(g.type(p.operands[i])) +
                                         ", the signature says " + type_text(p.operand_types[i]));
    const bool control = kind == OpKind::COND_IF || kind == OpKind::WHILE_LOOP;
    if (control ? p.regions.size() != 2 : !p.regions.empty())
        fail_at(p.at, p.name + (control ? " needs two regions" : " takes no region"));

    std::vector<std::pair<AttrName, Attr>> attrs;
    std::vector<PendingResource> waiting;
    for (const AttrSpec& spec : info.attributes) {
        if (spec.kind == AttrKind::graph) continue;
        const std::string key = kind == OpKind::VARIABLE && spec.name == AttrName::name ? "sym_name" : to_string(spec.name);
        const AttrNode* a = nullptr;
        for (const auto& [k, v] : p.attrs)
            if (k == key) a = &v;
        if (!a) {
            if (spec.kind == AttrKind::nan) attrs.emplace_back(spec.name, NanMode::PROPAGATE);  // MLIR's default, elided
            else if (!spec.optional) fail_at(p.at, p.name + " lacks attribute '" + key + "'");
            continue;
        }
        Attr v = convert(g, p, spec, *a, "attribute '" + key + "' of " + p.name);
        if (std::holds_alternative<std::monostate>(v))
            waiting.push_back({block, g.blocks[block].ops.size(), spec.name, a->str, a->type, a->at});
        attrs.emplace_back(spec.name, std::move(v));
    }
    for (const auto& [k, v] : p.attrs) {
        bool known = k.find('.') != std::string::npos;  // a discardable attribute of some dialect
        for (const AttrSpec& spec : info.attributes)
            known = known || k == (kind == OpKind::VARIABLE && spec.name == AttrName::name ? "sym_name" : to_string(spec.name));
        if (!known) fail_at(v.at, p.name + " has no attribute '" + k + "'");
    }
    if (control) {
        attrs.emplace_back(kind == OpKind::COND_IF ? AttrName::then_graph : AttrName::cond_graph, BlockRef{p.regions[0]});
        attrs.emplace_back(kind == OpKind::COND_IF ? AttrName::else_graph : AttrName::body_graph, BlockRef{p.regions[1]});
    }
    // The type a constant's data has must be its result's.
    if (kind == OpKind::CONST && !p.result_types.empty()) {
        const AttrNode* a = nullptr;
        for (const auto& [k, v] : p.attrs)
            if (k == "values") a = &v;
        if (a && a->type != p.result_types[0])
            fail_at(a->at, "tosa.const of type " + type_text(p.result_types[0]) + " holds values of type " + type_text(a->type));
    }
    if (kind == OpKind::CONST_SHAPE && !p.result_types.empty()) {
        const auto& v = std::get<std::vector<std::int64_t>>(attrs.front().second);
        const TensorType want{DType::shape, {static_cast<std::int64_t>(v.size())}};
        if (p.result_types[0] != want)
            fail_at(p.at, "tosa.const_shape of type " + type_text(p.result_types[0]) + " holds " + std::to_string(v.size()) + " values");
    }
    for (const TensorType& t : p.result_types)
        if (t.dtype == DType::shape && kind != OpKind::CONST_SHAPE)
            fail_at(p.at, p.name + " cannot have a result of type " + type_text(t));
    Origin origin;
    // No NNEF operation: the range in the MLIR file is where the operator comes from, and its
    // result's SSA name what it computes (the VPU compiler names buffers after it).
    origin.tensor = p.result;
    origin.provenance.range = SourceRange{file, static_cast<std::uint32_t>(p.at), static_cast<std::uint32_t>(p.end)};
    const std::uint32_t o = g.add_origin(std::move(origin));
    Op& op = g.add_op(block, kind, p.operands, p.result_types, std::move(attrs), o);
    pending.insert(pending.end(), waiting.begin(), waiting.end());
    return op.outputs;
}

void number_values(Graph& g, const std::vector<std::optional<std::uint64_t>>& numbers) {
    const std::size_t n = g.values.size();
    std::uint64_t top = 0;
    for (const auto& k : numbers)
        if (k) top = std::max(top, *k + 1);
    // Ids up to a few times the values the file defines; beyond that the numbers are not ours.
    const std::size_t total = std::max<std::size_t>(n, top <= 4 * std::uint64_t(n) + 1024 ? top : 0);
    std::vector<ValueId> to(n, no_value);
    std::vector<bool> taken(total, false);
    for (std::size_t v = 0; v < n && v < numbers.size(); ++v)
        if (numbers[v] && *numbers[v] < total && !taken[*numbers[v]]) {
            to[v] = static_cast<ValueId>(*numbers[v]);
            taken[*numbers[v]] = true;
        }
    std::size_t next = 0;
    for (std::size_t v = 0; v < n; ++v) {
        if (to[v] != no_value) continue;
        while (taken[next]) ++next;
        to[v] = static_cast<ValueId>(next);
        taken[next] = true;
    }
    // Unused ids: dead values, of a type that changes no profile or extension the graph needs.
    std::vector<Value> values(total, Value{TensorType{DType::bool_, {}}, {}});
    for (std::size_t v = 0; v < n; ++v) values[to[v]] = std::move(g.values[v]);
    g.values = std::move(values);
    auto rename = [&](std::vector<ValueId>& ids) {
        for (ValueId& id : ids) id = to[id];
    };
    for (Block& b : g.blocks) {
        rename(b.inputs);
        rename(b.outputs);
        for (Op& op : b.ops) {
            rename(op.inputs);
            rename(op.outputs);
        }
    }
}

Profile guess_profile(const Graph& g) {
    auto narrow = [](DType t) { return t == DType::i8 || t == DType::i16 || t == DType::i48; };
    for (const Block& b : g.blocks)
        for (const Op& op : b.ops) {
            if (op.kind == OpKind::RESCALE) return Profile::pro_int;
            if (op.kind == OpKind::CONST || op.kind == OpKind::CONST_SHAPE) continue;
            for (std::size_t i = 0; i < op.inputs.size(); ++i)
                if (narrow(g.type(op.inputs[i]).dtype) && !(op.kind == OpKind::MUL && i == 2)) return Profile::pro_int;
            for (ValueId v : op.outputs)
                if (narrow(g.type(v).dtype)) return Profile::pro_int;
        }
    return Profile::pro_fp;
}

}  // namespace nnef::tosa::mlir_read
