#include "lowering/tosa/mlir.hpp"

#include "nnef/detail/huge_pages.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <ostream>
#include <memory>
#include <set>
#include <stdexcept>

#include <nnef/source.hpp>

#include "lowering/tosa/mlir_hex.hpp"

namespace nnef::tosa {

namespace tosa_mlir_cpp {

std::string escape(const std::string& s) {
    std::string out = "\"";
    static const char digits[] = "0123456789ABCDEF";
    for (unsigned char ch : s) {
        if (ch >= 0x20 && ch < 0x7F && ch != '"' && ch != '\\') {
            out += static_cast<char>(ch);
        } else {
            out += '\\';
            out += digits[ch >> 4];
            out += digits[ch & 15];
        }
    }
    return out + "\"";
}

// A symbol name: bare when it is an MLIR bare identifier, else quoted.
std::string symbol(const std::string& s) {
    bool bare = !s.empty() && (std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_');
    for (char ch : s)
        if (!(std::isalnum(static_cast<unsigned char>(ch)) || ch == '_' || ch == '$' || ch == '.')) bare = false;
    return "@" + (bare ? s : escape(s));
}

std::string index_dense(const std::vector<std::int64_t>& v) {
    std::string out = "dense<";
    if (!v.empty()) {
        out += '[';
        for (std::size_t i = 0; i < v.size(); ++i) out += (i ? ", " : "") + std::to_string(v[i]);
        out += ']';
    }
    return out + "> : tensor<" + std::to_string(v.size()) + "xindex>";
}

std::string float_literal(double v, DType t) {
    if (!std::isfinite(v)) {
        // MLIR reads a hexadecimal integer as the bit pattern of a float attribute.
        const bool neg = std::signbit(v);
        const char* bits = nullptr;
        if (std::isnan(v)) bits = t == DType::fp32 ? "0x7FC00000" : t == DType::fp16 ? "0x7E00" : "0x7FC0";
        else if (t == DType::fp32) bits = neg ? "0xFF800000" : "0x7F800000";
        else if (t == DType::fp16) bits = neg ? "0xFC00" : "0x7C00";
        else bits = neg ? "0xFF80" : "0x7F80";
        return std::string(bits) + " : " + mlir_element_type(t);
    }
    char buf[40];
    std::snprintf(buf, sizeof buf, "%.9e", t == DType::fp32 ? static_cast<double>(static_cast<float>(v)) : v);
    return std::string(buf) + " : " + mlir_element_type(t);
}

const char* acc_type(AccType a) {
    switch (a) {
        case AccType::INT32: return "i32";
        case AccType::FP16: return "f16";
        case AccType::FP32: return "f32";
        case AccType::INT48: return "i48";
    }
    return "f32";
}

struct Emitter {
    const Graph& g;
    const MlirOptions& opt;
    std::string out;
    std::string resources;  // the blobs of the dialect_resources section
    // write_mlir: a large blob's digits are left out of `resources` and streamed at the end: where
    // in `resources` they go, and the bytes they encode.
    struct StreamedBlob {
        std::size_t at;
        const unsigned char* bytes;
        std::size_t count;
    };
    std::vector<StreamedBlob> streamed_blobs;
    std::ostream* sink = nullptr;  // write_mlir: `out` goes there whenever it grows large
    std::vector<std::string> ref;  // value -> its SSA reference
    std::set<std::string> used_names;
    std::vector<Graph::Producer> producers;
    std::vector<std::uint32_t> uses;      // how many operands use each value
    std::vector<bool> split_pad_shapes;   // CONST_SHAPE values only split PADs use (not written)
    std::size_t fresh = 0;                // counter for the helper values of split PADs
    std::set<std::string> reserved_names;  // "%name" of every named value

    Emitter(const Graph& graph, const MlirOptions& o) : g(graph), opt(o) {}

    bool splits(const Op& op) const {
        if (op.kind != OpKind::PAD || !opt.split_wide_pads || op.inputs.size() != 3) return false;
        if (static_cast<std::int64_t>(2 * g.type(op.inputs[0]).rank()) <= opt.level.max_rank) return false;
        return padding_of(op) != nullptr;
    }

    // The padding values of a PAD when a CONST_SHAPE produces them.
    const std::vector<std::int64_t>* padding_of(const Op& op) const {
        const ValueId p = op.inputs[1];
        if (p >= producers.size() || producers[p].block == no_origin) return nullptr;
        const Op& def = g.blocks[producers[p].block].ops[producers[p].index];
        if (def.kind != OpKind::CONST_SHAPE) return nullptr;
        const auto* v = std::get_if<std::vector<std::int64_t>>(def.attr(AttrName::values));
        return v && v->size() == 2 * g.type(op.inputs[0]).rank() ? v : nullptr;
    }

    void prepare() {
        producers = g.producers();
        ref.assign(g.values.size(), std::string());
        uses.assign(g.values.size(), 0);
        split_pad_shapes.assign(g.values.size(), false);
        for (const Value& v : g.values)
            if (!v.name.empty()) reserved_names.insert("%" + v.name);
        std::vector<std::uint32_t> split_uses(g.values.size(), 0);
        for (const Block& b : g.blocks) {
            for (const Op& op : b.ops) {
                for (ValueId v : op.inputs) ++uses.at(v);
                if (splits(op)) ++split_uses[op.inputs[1]];
            }
            for (ValueId v : b.outputs) ++uses.at(v);
        }
        for (std::size_t v = 0; v < g.values.size(); ++v)
            split_pad_shapes[v] = split_uses[v] > 0 && split_uses[v] == uses[v];
    }

    std::string name_value(ValueId v) {
        const std::string& n = g.value(v).name;
        bool ok = !n.empty() && !std::isdigit(static_cast<unsigned char>(n[0]));
        for (char ch : n)
            if (!(std::isalnum(static_cast<unsigned char>(ch)) || ch == '_' || ch == '$' || ch == '.' || ch == '-')) ok = false;
        std::string r = ok ? "%" + n : std::string();
        if (r.empty() || !used_names.insert(r).second) r = "%" + std::to_string(v);
        ref.at(v) = r;
        return r;
    }

    const std::string& use(ValueId v) const {
        const std::string& r = ref.at(v);
        if (r.empty()) throw std::logic_error("TOSA to MLIR: value %" + std::to_string(v) + " is used before its definition");
        return r;
    }

    std::string type(ValueId v) const { return mlir_type(g.type(v)); }

    std::string location(const Op& op) const {
        if (!opt.sources || op.origin == no_origin || op.origin >= g.origins.size()) return {};
        const Origin& o = g.origins[op.origin];
        const SourceRange& r = o.provenance.range;
        if (!r.valid() || r.file > opt.sources->size()) return {};
        LineCol lc = opt.sources->begin(r);
        std::string file = escape(opt.sources->name(r.file)) + ":" + std::to_string(lc.line) + ":" + std::to_string(lc.col);
        if (!o.tensor.empty()) return " loc(" + escape(o.tensor) + "(" + file + "))";
        return " loc(" + file + ")";
    }

    void indent(int depth) { out.append(static_cast<std::size_t>(2 * depth), ' '); }

    // Appends `dense<...> : tensor<...>` (or dense_resource) for a constant to `o`.
    void append_dense(std::string& o, const ConstData& c, const std::string& resource_name) {
        const std::size_t n = static_cast<std::size_t>(c.type.volume());
        const std::string t = mlir_type(c.type);
        if (opt.elide_weights && n > opt.elide_above) {
            o += "dense_resource<__elided__> : " + t;
            return;
        }
        const std::size_t w = hex_item_bytes(c.type.dtype);
        if (n == 0) {
            o += "dense<> : " + t;
            return;
        }
        if (w == 0) {  // bool
            o += "dense<";
            if (all_items_equal(c)) {
                o += c.items<std::uint8_t>()[0] ? "true" : "false";
            } else {
                std::size_t index = 0;
                append_bool_list(o, c, 0, index);
            }
            o += "> : " + t;
            return;
        }
        if (opt.resource_blobs && n > opt.resource_above && w != 6) {
            // Blob: a 32-bit little-endian alignment, then the items.
            resources += "      " + resource_name + ": \"0x";
            append_hex_item(resources, std::max<std::size_t>(w, 4), 4);
            if (sink && hex_of_storage(c, w) && n * w > stream_above)
                streamed_blobs.push_back({resources.size(), static_cast<const unsigned char*>(c.data), n * w});
            else
                append_hex_items(resources, c, n, w);
            resources += "\",\n";
            o += "dense_resource<" + resource_name + "> : " + t;
            return;
        }
        o += "dense<\"0x";
        const std::size_t items = all_items_equal(c) ? 1 : n;  // one item: a splat
        if (sink && &o == &out && hex_of_storage(c, w) && items * w > stream_above)
            stream_hex(static_cast<const unsigned char*>(c.data), items * w);
        else
            append_hex_items(o, c, items, w);
        o += "\"> : " + t;
    }

    std::string attr_text(const Op& op, const AttrSpec& spec, const Attr& a) {
        switch (spec.kind) {
            case AttrKind::i32: return std::to_string(std::get<std::int64_t>(a)) + " : i32";
            case AttrKind::boolean: return std::get<bool>(a) ? "true" : "false";
            case AttrKind::i32s: {
                const auto& v = std::get<std::vector<std::int64_t>>(a);
                std::string s = op.kind == OpKind::TRANSPOSE ? "array<i32" : "array<i64";
                for (std::size_t i = 0; i < v.size(); ++i) s += (i ? ", " : ": ") + std::to_string(v[i]);
                return s + ">";
            }
            case AttrKind::shape: return index_dense(std::get<std::vector<std::int64_t>>(a));
            case AttrKind::num: {
                const DType t = g.type(op.inputs.at(0)).dtype;
                if (const auto* d = std::get_if<double>(&a)) {
                    if (is_float(t)) return float_literal(*d, t);
                    return std::to_string(static_cast<std::int64_t>(*d)) + " : " + mlir_element_type(t);
                }
                const std::int64_t i = std::get<std::int64_t>(a);
                if (is_float(t)) return float_literal(static_cast<double>(i), t);
                return std::to_string(i) + " : " + mlir_element_type(t);
            }
            case AttrKind::acc: return acc_type(std::get<AccType>(a));
            case AttrKind::nan: return std::string("#tosa.nan_mode<") + to_string(std::get<NanMode>(a)) + ">";
            case AttrKind::round: return std::string("#tosa.rounding_mode<") + to_string(std::get<RoundingMode>(a)) + ">";
            case AttrKind::resize: return std::string("#tosa.resize_mode<") + to_string(std::get<ResizeMode>(a)) + ">";
            case AttrKind::str: return escape(std::get<std::string>(a));
            case AttrKind::dtype: return mlir_element_type(std::get<DType>(a));
            case AttrKind::tensor: break;  // append_properties writes it
            case AttrKind::graph: break;
        }
        return {};
    }

    // The properties dictionary `<{...}>` of an operator (graph attributes excluded), or "".
    // Appends the properties dictionary ` <{...}>` of an operator (graph attributes excluded), if
    // any, to `o` (constants go straight into it: they may be large).
    // `resource` names the constant's blob (with resource_blobs): "c" + its result's value id, or
    // "v" + the index of a VARIABLE (whose initial value has no result to name it by).
    void append_properties(std::string& o, const Op& op, const std::string& resource) {
        bool first = true;
        for (const AttrSpec& spec : op.info().attributes) {
            if (spec.kind == AttrKind::graph) continue;
            const Attr* a = op.attr(spec.name);
            if (!a || std::holds_alternative<std::monostate>(*a)) {
                if (spec.optional) continue;
                throw std::logic_error(std::string("TOSA to MLIR: ") + to_string(op.kind) + " lacks attribute '" +
                                       to_string(spec.name) + "'");
            }
            o += first ? " <{" : ", ";
            first = false;
            o += op.kind == OpKind::VARIABLE && spec.name == AttrName::name ? "sym_name" : to_string(spec.name);
            o += " = ";
            if (spec.kind == AttrKind::tensor) {
                const ConstPtr& c = std::get<ConstPtr>(*a);
                if (!c) throw std::logic_error(std::string("TOSA to MLIR: ") + to_string(op.kind) + " without data");
                append_dense(o, *c, resource);
            } else {
                o += attr_text(op, spec, *a);
            }
        }
        if (!first) o += "}>";
    }

    std::string signature(const std::vector<ValueId>& ins, const std::vector<ValueId>& outs) const {
        std::string s = " : (";
        for (std::size_t i = 0; i < ins.size(); ++i) s += (i ? ", " : "") + type(ins[i]);
        s += ") -> ";
        if (outs.size() == 1) return s + type(outs[0]);
        s += '(';
        for (std::size_t i = 0; i < outs.size(); ++i) s += (i ? ", " : "") + type(outs[i]);
        return s + ')';
    }

    std::string operands(const std::vector<ValueId>& ins) const {
        std::string s = "(";
        for (std::size_t i = 0; i < ins.size(); ++i) s += (i ? ", " : "") + use(ins[i]);
        return s + ")";
    }

    // Names the results of an operator; returns the `%r = ` / `%r:2 = ` prefix.
    std::string define(const std::vector<ValueId>& outs) {
        if (outs.empty()) return {};
        if (outs.size() == 1) return name_value(outs[0]) + " = ";
        std::string base = "%" + std::to_string(outs[0]);
        used_names.insert(base);
        for (std::size_t i = 0; i < outs.size(); ++i) ref.at(outs[i]) = base + "#" + std::to_string(i);
        return base + ":" + std::to_string(outs.size()) + " = ";
    }

    // A name for a helper value of a split PAD, unlike any value's.
    std::string fresh_name() {
        std::string n;
        do n = "%pad_view" + std::to_string(fresh++);
        while (used_names.count(n) || names_taken(n));
        used_names.insert(n);
        return n;
    }
    // Whether a value not yet named would take `n` (its NNEF tensor name).
    bool names_taken(const std::string& n) const { return reserved_names.count(n) > 0; }

    void emit_const_shape(int depth, const std::string& name, const std::vector<std::int64_t>& v) {
        indent(depth);
        out += name + " = \"tosa.const_shape\"() <{values = " + index_dense(v) + "}> : () -> !tosa.shape<" +
               std::to_string(v.size()) + ">\n";
    }

    // A PAD of rank >= 4 as PADs of rank-3 views [before, axis, after], one per padded axis.
    void emit_split_pad(int depth, const Op& op) {
        const std::vector<std::int64_t>& padding = *padding_of(op);
        const DType dt = g.type(op.inputs[0]).dtype;
        Shape shape = g.type(op.inputs[0]).shape;
        const std::string loc = location(op);
        std::string current = use(op.inputs[0]);
        std::vector<std::size_t> axes;
        for (std::size_t a = 0; a < shape.size(); ++a)
            if (padding[2 * a] != 0 || padding[2 * a + 1] != 0) axes.push_back(a);
        if (axes.empty()) {  // no padding: the PAD is the identity
            const std::string r = define(op.outputs);
            indent(depth);
            out += r + "\"tosa.identity\"(" + current + ")" + signature({op.inputs[0]}, op.outputs) + loc + "\n";
            return;
        }
        TensorType current_type{dt, shape};  // the type of `current` (the input, then a padded view)
        for (std::size_t k = 0; k < axes.size(); ++k) {
            const std::size_t a = axes[k];
            std::int64_t before = 1, after = 1;
            for (std::size_t i = 0; i < a; ++i) before *= shape[i];
            for (std::size_t i = a + 1; i < shape.size(); ++i) after *= shape[i];
            const TensorType view{dt, {before, shape[a], after}};
            Shape padded_shape = shape;
            padded_shape[a] += padding[2 * a] + padding[2 * a + 1];
            const TensorType padded_view{dt, {before, padded_shape[a], after}};
            std::string v3 = current;
            if (current_type != view) {  // reshape the previous padded view straight into this one
                const std::string s3 = fresh_name();
                v3 = fresh_name();
                emit_const_shape(depth, s3, view.shape);
                indent(depth);
                out += v3 + " = \"tosa.reshape\"(" + current + ", " + s3 + ") : (" + mlir_type(current_type) +
                       ", !tosa.shape<3>) -> " + mlir_type(view) + loc + "\n";
            }
            const std::string p6 = fresh_name(), q3 = fresh_name();
            emit_const_shape(depth, p6, {0, 0, padding[2 * a], padding[2 * a + 1], 0, 0});
            indent(depth);
            out += q3 + " = \"tosa.pad\"(" + v3 + ", " + p6 + ", " + use(op.inputs[2]) + ") : (" + mlir_type(view) +
                   ", !tosa.shape<6>, " + type(op.inputs[2]) + ") -> " + mlir_type(padded_view) + loc + "\n";
            current = q3;
            current_type = padded_view;
            shape = padded_shape;
        }
        const std::string s_out = fresh_name();
        emit_const_shape(depth, s_out, shape);
        const std::string r = define(op.outputs);
        indent(depth);
        out += r + "\"tosa.reshape\"(" + current + ", " + s_out + ") : (" + mlir_type(current_type) + ", !tosa.shape<" +
               std::to_string(shape.size()) + ">) -> " + mlir_type({dt, shape}) + loc + "\n";
    }

    void emit_region(int depth, const Block& b) {
        if (!b.inputs.empty()) {
            indent(depth);
            out += "^bb0(";
            for (std::size_t i = 0; i < b.inputs.size(); ++i)
                out += (i ? ", " : "") + name_value(b.inputs[i]) + ": " + type(b.inputs[i]);
            out += "):\n";
        }
        emit_ops(depth + 1, b);
        indent(depth + 1);
        out += "\"tosa.yield\"" + operands(b.outputs) + " : (";
        for (std::size_t i = 0; i < b.outputs.size(); ++i) out += (i ? ", " : "") + type(b.outputs[i]);
        out += ") -> ()\n";
    }

    void emit_op(int depth, const Op& op) {
        if (op.kind == OpKind::VARIABLE) return;  // a module-level symbol (emit_variables)
        if (op.kind == OpKind::CONST_SHAPE && op.outputs.size() == 1 && split_pad_shapes[op.outputs[0]]) return;
        if (splits(op)) return emit_split_pad(depth, op);
        const std::string args = operands(op.inputs);
        const std::string sig = signature(op.inputs, op.outputs);
        const std::string loc = location(op);
        indent(depth);
        out += define(op.outputs);
        out += "\"tosa.";
        out += op.info().mnemonic;
        out += "\"";
        out += args;
        append_properties(out, op, "c" + std::to_string(op.outputs.empty() ? 0 : op.outputs[0]));
        if (op.kind == OpKind::COND_IF || op.kind == OpKind::WHILE_LOOP) {
            const bool cond = op.kind == OpKind::COND_IF;
            const BlockRef first = op.get<BlockRef>(cond ? AttrName::then_graph : AttrName::cond_graph);
            const BlockRef second = op.get<BlockRef>(cond ? AttrName::else_graph : AttrName::body_graph);
            out += " ({\n";
            emit_region(depth, g.blocks.at(first.block));
            indent(depth);
            out += "}, {\n";
            emit_region(depth, g.blocks.at(second.block));
            indent(depth);
            out += "})";
        }
        out += sig + loc + "\n";
    }

    void emit_ops(int depth, const Block& b) {
        for (const Op& op : b.ops) {
            emit_op(depth, op);
            if (sink && out.size() >= flush_bytes) flush();
        }
    }

    // write_mlir: a large constant's digits go to the sink in chunks of a reused buffer that stays in
    // the processor's cache, instead of through `out` (no zero-filling, no hundreds of megabytes).
    static constexpr std::size_t stream_above = std::size_t(64) << 10, chunk_bytes = std::size_t(128) << 10;
    std::unique_ptr<char[]> chunk;  // 2 chunk_bytes chars
    void stream_hex(const unsigned char* p, std::size_t n) {
        flush();
        if (!chunk) chunk.reset(new char[2 * chunk_bytes]);
        for (std::size_t i = 0; i < n; i += chunk_bytes) {
            const std::size_t m = std::min(chunk_bytes, n - i);
            encode_hex_fast(chunk.get(), p + i, m);
            sink->write(chunk.get(), static_cast<std::streamsize>(2 * m));
        }
    }

    static constexpr std::size_t flush_bytes = std::size_t(4) << 20;
    void flush() {
        sink->write(out.data(), static_cast<std::streamsize>(out.size()));
        out.clear();
    }

    void emit_variables(int depth) {
        std::size_t variables = 0;
        for (const Block& b : g.blocks) {
            for (const Op& op : b.ops) {
                if (op.kind != OpKind::VARIABLE) continue;
                indent(depth);
                out += "\"tosa.variable\"()";
                append_properties(out, op, "v" + std::to_string(variables++));
                out += " : () -> ()" + location(op) + "\n";
            }
        }
    }

    std::string target_env() const {
        std::string profiles, extensions;
        for (const std::string& p : mlir_profiles(g)) profiles += (profiles.empty() ? "" : ", ") + p;
        for (const std::string& e : mlir_extensions(g)) extensions += (extensions.empty() ? "" : ", ") + e;
        const std::string level = opt.level.name == "none" ? "none" : "8k";
        if (extensions.empty() || !opt.target_env) {
            std::string p = profiles;
            p.erase(std::remove(p.begin(), p.end(), ' '), p.end());
            return "// TOSA 1.0, profiles [" + profiles + "], level " + level +
                   ", no extension (validate with: mlir-opt --tosa-attach-target=\"profiles=" + p + " level=" + level +
                   "\" --tosa-validate=\"strict-op-spec-alignment\")\n";
        }
        return "#tosa.target_env<specification_version = \"1.0\", level = \"" + level + "\", profiles = [" + profiles +
               "], extensions = [" + extensions + "]>";
    }

    std::string run() {
        prepare();
        // Room for the constants' hexadecimal data (twice their bytes) and the operators' text.
        std::size_t bytes = 0, ops = 0;
        for (const Block& b : g.blocks) {
            for (const Op& op : b.ops) {
                ++ops;
                for (const auto& [name, a] : op.attrs)
                    if (const auto* c = std::get_if<ConstPtr>(&a);
                        c && *c && !(opt.elide_weights && static_cast<std::size_t>((*c)->type.volume()) > opt.elide_above))
                        bytes += (*c)->byte_size();
            }
        }
        if (opt.resource_blobs) resources.reserve(sink ? 128 * ops + 4096 : 2 * bytes + 4096);  // sink: large blobs streamed
        if (opt.resource_blobs) out.reserve(256 * ops + 4096);
        else if (sink) out.reserve(2 * flush_bytes);  // flushed at flush_bytes, one constant over at most
        else out.reserve(2 * bytes + 256 * ops + 4096);
        // Not written yet: hundreds of megabytes of text for a large model take huge pages.
        detail::advise_huge_pages(out.data(), out.capacity());
        detail::advise_huge_pages(resources.data(), resources.capacity());
        std::string env = target_env();
        const bool attach = opt.target_env && env.rfind("//", 0) != 0;
        if (!attach && opt.target_env) out += env;
        out += attach ? "module attributes {tosa.target_env = " + env + "} {\n" : "module {\n";
        emit_variables(1);
        const Block& main = g.main();
        indent(1);
        out += "func.func " + symbol(g.name.empty() ? std::string("main") : g.name) + "(";
        for (std::size_t i = 0; i < main.inputs.size(); ++i)
            out += (i ? ", " : "") + name_value(main.inputs[i]) + ": " + type(main.inputs[i]);
        out += ") -> (";
        for (std::size_t i = 0; i < main.outputs.size(); ++i) out += (i ? ", " : "") + type(main.outputs[i]);
        out += ") {\n";
        emit_ops(2, main);
        indent(2);
        out += "return";
        for (std::size_t i = 0; i < main.outputs.size(); ++i) out += (i ? ", " : " ") + use(main.outputs[i]);
        if (!main.outputs.empty()) {
            out += " : ";
            for (std::size_t i = 0; i < main.outputs.size(); ++i) out += (i ? ", " : "") + type(main.outputs[i]);
        }
        out += "\n  }\n";
        for (const std::string& extra : opt.extra_ops) {
            out += extra;
            if (!extra.empty() && extra.back() != '\n') out += '\n';
        }
        out += "}\n";
        if (!resources.empty()) {
            resources.erase(resources.size() - 2, 1);  // the last comma
            out += "\n{-#\n  dialect_resources: {\n    builtin: {\n";
            if (sink) {
                flush();
                std::size_t at = 0;
                for (const StreamedBlob& b : streamed_blobs) {
                    sink->write(resources.data() + at, static_cast<std::streamsize>(b.at - at));
                    stream_hex(b.bytes, b.count);
                    at = b.at;
                }
                sink->write(resources.data() + at, static_cast<std::streamsize>(resources.size() - at));
            } else {
                out.reserve(out.size() + resources.size() + 64);
                out += resources;
            }
            out += "    }\n  }\n#-}\n";
        }
        if (sink) flush();
        return std::move(out);
    }
};

}  // namespace tosa_mlir_cpp

std::string mlir_element_type(DType t) {
    using namespace tosa_mlir_cpp;
    switch (t) {
        case DType::bool_: return "i1";
        case DType::i8: return "i8";
        case DType::i16: return "i16";
        case DType::i32: return "i32";
        case DType::i48: return "i48";
        case DType::fp16: return "f16";
        case DType::bf16: return "bf16";
        case DType::fp32: return "f32";
        case DType::shape: return "index";
        case DType::none: break;
    }
    throw std::logic_error("TOSA to MLIR: a value without an element type");
}

std::string mlir_type(const TensorType& t) {
    using namespace tosa_mlir_cpp;
    if (t.dtype == DType::shape) return "!tosa.shape<" + std::to_string(t.shape.empty() ? 0 : t.shape[0]) + ">";
    std::string s = "tensor<";
    for (std::int64_t e : t.shape) s += std::to_string(e) + "x";
    return s + mlir_element_type(t.dtype) + ">";
}

std::vector<std::string> mlir_extensions(const Graph& g) {
    using namespace tosa_mlir_cpp;
    std::set<std::string> ext;
    for (const Value& v : g.values) {
        if (v.type.dtype == DType::bf16) ext.insert("bf16");
        if (g.profile == Profile::pro_int && (v.type.dtype == DType::i16 || v.type.dtype == DType::i48)) ext.insert("int16");
    }
    for (const Block& b : g.blocks) {
        for (const Op& op : b.ops) {
            switch (op.kind) {
                case OpKind::COND_IF:
                case OpKind::WHILE_LOOP: ext.insert("controlflow"); break;
                case OpKind::VARIABLE:
                case OpKind::VARIABLE_READ:
                case OpKind::VARIABLE_WRITE: ext.insert("variable"); break;
                case OpKind::FFT2D:
                case OpKind::RFFT2D: ext.insert("fft"); break;
                case OpKind::RESCALE: {
                    const Attr* r = op.attr(AttrName::rounding_mode);
                    if (r && std::holds_alternative<RoundingMode>(*r)) {
                        if (std::get<RoundingMode>(*r) == RoundingMode::DOUBLE_ROUND) ext.insert("doubleround");
                        if (std::get<RoundingMode>(*r) == RoundingMode::INEXACT_ROUND) ext.insert("inexactround");
                    }
                    break;
                }
                default: break;
            }
        }
    }
    return {ext.begin(), ext.end()};
}

std::vector<std::string> mlir_profiles(const Graph& g) {
    using namespace tosa_mlir_cpp;
    if (g.profile == Profile::pro_fp) return {"pro_fp"};
    for (const Value& v : g.values)
        if (is_float(v.type.dtype)) return {"pro_int", "pro_fp"};
    return {"pro_int"};
}

std::string mlir_dense_attr(const ConstData& c) {
    using namespace tosa_mlir_cpp;
    Graph empty;
    MlirOptions inline_only;
    Emitter e(empty, inline_only);
    std::string s;
    e.append_dense(s, c, {});
    return s;
}

std::string to_mlir(const Graph& g, const MlirOptions& options) {
    using namespace tosa_mlir_cpp;
    Emitter e(g, options);
    return e.run();
}

bool write_mlir(std::ostream& os, const Graph& g, const MlirOptions& options) {
    using namespace tosa_mlir_cpp;
    Emitter e(g, options);
    e.sink = &os;
    e.run();
    return static_cast<bool>(os);
}

std::vector<std::string> validation_extensions(const Graph& g) {
    std::vector<std::string> out;
    for (std::string e : mlir_extensions(g)) {
        for (char& c : e) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
        out.push_back("EXT-" + e);
    }
    return out;
}

}  // namespace nnef::tosa
