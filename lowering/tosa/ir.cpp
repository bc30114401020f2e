#include "lowering/tosa/ir.hpp"

#include "nnef/detail/huge_pages.hpp"

#include <array>
#include <cmath>
#include <cstring>
#include <sstream>
#include <stdexcept>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <cpuid.h>
#include <immintrin.h>
#define NNEF_TOSA_F16C 1
#endif

#include <nnef/source.hpp>

namespace nnef::tosa {

// ---- element types ---------------------------------------------------------------------------

const char* to_string(DType t) {
    switch (t) {
        case DType::none: return "none";
        case DType::bool_: return "bool";
        case DType::i8: return "i8";
        case DType::i16: return "i16";
        case DType::i32: return "i32";
        case DType::i48: return "i48";
        case DType::fp16: return "fp16";
        case DType::bf16: return "bf16";
        case DType::fp32: return "fp32";
        case DType::shape: return "shape";
    }
    return "none";
}

std::optional<DType> dtype_from_string(std::string_view s) {
    for (DType t : {DType::bool_, DType::i8, DType::i16, DType::i32, DType::i48, DType::fp16, DType::bf16, DType::fp32,
                    DType::shape})
        if (s == to_string(t)) return t;
    return std::nullopt;
}

std::size_t storage_bytes(DType t) {
    switch (t) {
        case DType::bool_:
        case DType::i8: return 1;
        case DType::i16:
        case DType::fp16:
        case DType::bf16: return 2;
        case DType::i32:
        case DType::fp32: return 4;
        case DType::i48:
        case DType::shape: return 8;
        case DType::none: return 0;
    }
    return 0;
}

int integer_bits(DType t) {
    switch (t) {
        case DType::i8: return 8;
        case DType::i16: return 16;
        case DType::i32: return 32;
        case DType::i48: return 48;
        default: return 0;
    }
}

std::int64_t TensorType::volume() const {
    std::int64_t v = 1;
    for (std::int64_t e : shape) v *= e;
    return v;
}

std::string to_string(const TensorType& t) { return std::string(to_string(t.dtype)) + nnef::to_string(t.shape); }

// ---- constant data ---------------------------------------------------------------------------

std::size_t ConstData::byte_size() const {
    return static_cast<std::size_t>(type.volume()) * storage_bytes(type.dtype);
}

std::shared_ptr<ConstData> ConstData::allocate(TensorType type) {
    auto c = std::make_shared<ConstData>();
    c->type = std::move(type);
    const std::size_t n = c->byte_size();
    // 8-byte aligned, so that every item type is; large buffers with huge pages.
    std::shared_ptr<void> bytes = detail::allocate_zeroed(n);
    c->data = bytes.get();
    c->owner = std::move(bytes);
    return c;
}

ConstPtr ConstData::view(TensorType type, std::shared_ptr<const void> owner, const void* data) {
    auto c = std::make_shared<ConstData>();
    c->type = std::move(type);
    c->owner = std::move(owner);
    c->data = data;
    return c;
}

// ---- attributes ------------------------------------------------------------------------------

const char* to_string(AccType a) {
    switch (a) {
        case AccType::INT32: return "INT32";
        case AccType::FP16: return "FP16";
        case AccType::FP32: return "FP32";
        case AccType::INT48: return "INT48";
    }
    return "?";
}
const char* to_string(NanMode m) { return m == NanMode::PROPAGATE ? "PROPAGATE" : "IGNORE"; }
const char* to_string(RoundingMode m) {
    switch (m) {
        case RoundingMode::SINGLE_ROUND: return "SINGLE_ROUND";
        case RoundingMode::INEXACT_ROUND: return "INEXACT_ROUND";
        case RoundingMode::DOUBLE_ROUND: return "DOUBLE_ROUND";
    }
    return "?";
}
const char* to_string(ResizeMode m) { return m == ResizeMode::NEAREST_NEIGHBOR ? "NEAREST_NEIGHBOR" : "BILINEAR"; }

namespace tosa_ir_cpp {
constexpr std::array<const char*, 32> attr_names = {
    "axis", "nan_mode", "kernel", "stride", "pad", "dilation", "acc_type", "local_bound", "inverse", "out_pad",
    "min_val", "max_val", "round", "scale32", "rounding_mode", "per_channel", "input_unsigned", "output_unsigned",
    "values", "mode", "perms", "operator_name", "domain_name", "implementation_attrs", "then_graph", "else_graph",
    "cond_graph", "body_graph", "name", "var_shape", "type", "initial_value",
};
static_assert(attr_names.size() == static_cast<std::size_t>(AttrName::initial_value) + 1);

constexpr std::array<const char*, 13> attr_kind_names = {"i32",   "bool", "i32s", "shape", "num", "acc",  "nan",
                                                         "round", "resize", "str", "dtype", "tensor", "graph"};
}  // namespace tosa_ir_cpp

const char* to_string(AttrName n) { return tosa_ir_cpp::attr_names[static_cast<std::size_t>(n)]; }

std::optional<AttrName> attr_name_from_string(std::string_view s) {
    using namespace tosa_ir_cpp;
    for (std::size_t i = 0; i < attr_names.size(); ++i)
        if (s == attr_names[i]) return static_cast<AttrName>(i);
    return std::nullopt;
}

const char* to_string(AttrKind k) { return tosa_ir_cpp::attr_kind_names[static_cast<std::size_t>(k)]; }

// ---- operator table --------------------------------------------------------------------------

namespace tosa_ir_cpp {

std::vector<std::string> split_words(std::string_view s) {
    std::vector<std::string> out;
    std::size_t i = 0;
    while (i < s.size()) {
        while (i < s.size() && s[i] == ' ') ++i;
        std::size_t j = i;
        while (j < s.size() && s[j] != ' ') ++j;
        if (j > i) out.emplace_back(s.substr(i, j - i));
        i = j;
    }
    return out;
}

// Turns an argument list of ops.def into names, noting a trailing tensor list.
std::vector<std::string> argument_names(std::string_view s, bool& variadic) {
    std::vector<std::string> names = split_words(s);
    variadic = false;
    for (std::size_t i = 0; i < names.size(); ++i) {
        if (!names[i].empty() && names[i].back() == '*') {
            if (i + 1 != names.size()) throw std::logic_error("ops.def: a tensor list must be the last argument");
            names[i].pop_back();
            variadic = true;
        }
    }
    return names;
}

OpInfo make_info(OpKind kind, const char* name, const char* section, const char* mnemonic, const char* inputs,
                 const char* outputs, const char* attributes) {
    OpInfo info;
    info.kind = kind;
    info.name = name;
    info.section = section;
    info.mnemonic = mnemonic;
    info.inputs = argument_names(inputs, info.variadic_inputs);
    info.outputs = argument_names(outputs, info.variadic_outputs);
    for (const std::string& word : split_words(attributes)) {
        const std::size_t colon = word.find(':');
        if (colon == std::string::npos) throw std::logic_error("ops.def: attribute without a kind: " + word);
        AttrSpec spec{};
        const auto n = attr_name_from_string(std::string_view(word).substr(0, colon));
        if (!n) throw std::logic_error("ops.def: unknown attribute name: " + word);
        spec.name = *n;
        std::string kind_name = word.substr(colon + 1);
        if (!kind_name.empty() && kind_name.back() == '?') {
            spec.optional = true;
            kind_name.pop_back();
        }
        bool found = false;
        for (std::size_t k = 0; k < attr_kind_names.size(); ++k) {
            if (kind_name == attr_kind_names[k]) {
                spec.kind = static_cast<AttrKind>(k);
                found = true;
            }
        }
        if (!found) throw std::logic_error("ops.def: unknown attribute kind: " + word);
        info.attributes.push_back(spec);
    }
    return info;
}

const std::vector<OpInfo>& op_table() {
    static const std::vector<OpInfo> table = [] {
        std::vector<OpInfo> t;
#define TOSA_OP(id, section, mnemonic, inputs, outputs, attributes, family_file, check, kernel) \
    t.push_back(make_info(OpKind::id, #id, section, mnemonic, inputs, outputs, attributes));       \
    t.back().family = #family_file;
#include "lowering/tosa/ops.def"
#undef TOSA_OP
        return t;
    }();
    return table;
}

}  // namespace tosa_ir_cpp

const AttrSpec* OpInfo::attribute(AttrName n) const {
    using namespace tosa_ir_cpp;
    for (const AttrSpec& a : attributes)
        if (a.name == n) return &a;
    return nullptr;
}

const OpInfo& op_info(OpKind k) { return tosa_ir_cpp::op_table()[static_cast<std::size_t>(k)]; }
const char* to_string(OpKind k) { return op_info(k).name.c_str(); }

std::optional<OpKind> op_kind_from_string(std::string_view s) {
    using namespace tosa_ir_cpp;
    for (const OpInfo& info : op_table())
        if (info.name == s) return info.kind;
    return std::nullopt;
}

std::optional<OpKind> op_kind_from_mnemonic(std::string_view s) {
    using namespace tosa_ir_cpp;
    for (const OpInfo& info : op_table())
        if (info.mnemonic == s) return info.kind;
    return std::nullopt;
}

// ---- operators and graphs --------------------------------------------------------------------

const Attr* Op::attr(AttrName n) const {
    using namespace tosa_ir_cpp;
    for (const auto& [name, value] : attrs)
        if (name == n) return &value;
    return nullptr;
}

void Op::set(AttrName n, Attr value) {
    using namespace tosa_ir_cpp;
    for (auto& [name, v] : attrs) {
        if (name == n) {
            v = std::move(value);
            return;
        }
    }
    attrs.emplace_back(n, std::move(value));
}

void Op::bad_attr(AttrName n) const {
    using namespace tosa_ir_cpp;
    throw std::logic_error(std::string("TOSA ") + to_string(kind) + ": attribute '" + to_string(n) +
                           "' is missing or has the wrong type");
}

const char* to_string(Profile p) { return p == Profile::pro_fp ? "PRO-FP" : "PRO-INT"; }

Level Level::eight_k() { return Level{"8K", 6, 8192, 8192, 256, 31, 6, 64}; }
Level Level::none() { return Level{"none", 32, 2147483647, 2147483647, 2048, 63, 256, 256}; }

Graph::Graph() { blocks.push_back(Block{"main", {}, {}, {}}); }

ValueId Graph::add_value(TensorType type, std::string name) {
    using namespace tosa_ir_cpp;
    values.push_back(Value{std::move(type), std::move(name)});
    return static_cast<ValueId>(values.size() - 1);
}

std::uint32_t Graph::add_origin(Origin origin) {
    using namespace tosa_ir_cpp;
    origins.push_back(std::move(origin));
    return static_cast<std::uint32_t>(origins.size() - 1);
}

std::uint32_t Graph::add_block(std::string name) {
    using namespace tosa_ir_cpp;
    blocks.push_back(Block{std::move(name), {}, {}, {}});
    return static_cast<std::uint32_t>(blocks.size() - 1);
}

Op& Graph::add_op(std::uint32_t block, OpKind kind, std::vector<ValueId> inputs, std::vector<TensorType> output_types,
                  std::vector<std::pair<AttrName, Attr>> attrs, std::uint32_t origin) {
    using namespace tosa_ir_cpp;
    Op op;
    op.kind = kind;
    op.inputs = std::move(inputs);
    for (TensorType& t : output_types) op.outputs.push_back(add_value(std::move(t)));
    op.attrs = std::move(attrs);
    op.origin = origin;
    Block& b = blocks.at(block);
    b.ops.push_back(std::move(op));
    return b.ops.back();
}

ValueId Graph::add_const(std::uint32_t block, ConstPtr data, std::uint32_t origin, std::string name) {
    using namespace tosa_ir_cpp;
    TensorType type = data->type;
    Op& op = add_op(block, OpKind::CONST, {}, {std::move(type)}, {{AttrName::values, std::move(data)}}, origin);
    const ValueId v = op.outputs[0];
    values[v].name = std::move(name);
    return v;
}

ValueId Graph::add_const_shape(std::uint32_t block, std::vector<std::int64_t> shape, std::uint32_t origin) {
    using namespace tosa_ir_cpp;
    TensorType type{DType::shape, {static_cast<std::int64_t>(shape.size())}};
    Op& op = add_op(block, OpKind::CONST_SHAPE, {}, {std::move(type)}, {{AttrName::values, std::move(shape)}}, origin);
    return op.outputs[0];
}

std::vector<Graph::Producer> Graph::producers() const {
    using namespace tosa_ir_cpp;
    std::vector<Producer> p(values.size());
    for (std::uint32_t b = 0; b < blocks.size(); ++b) {
        const Block& block = blocks[b];
        for (std::uint32_t i = 0; i < block.ops.size(); ++i)
            for (ValueId v : block.ops[i].outputs)
                if (v < p.size()) p[v] = Producer{b, i};
    }
    return p;
}

const ConstData* Graph::constant(ValueId v) const {
    using namespace tosa_ir_cpp;
    for (const Block& block : blocks) {
        for (const Op& op : block.ops) {
            if (op.kind == OpKind::CONST && !op.outputs.empty() && op.outputs[0] == v) {
                const Attr* a = op.attr(AttrName::values);
                if (a && std::holds_alternative<ConstPtr>(*a)) return std::get<ConstPtr>(*a).get();
                return nullptr;
            }
        }
    }
    return nullptr;
}

std::size_t Graph::op_count() const {
    using namespace tosa_ir_cpp;
    std::size_t n = 0;
    for (const Block& b : blocks) n += b.ops.size();
    return n;
}

// ---- printing --------------------------------------------------------------------------------

namespace tosa_ir_cpp {

std::string format_double(double d) {
    if (std::isnan(d)) return "nan";
    if (std::isinf(d)) return d > 0 ? "inf" : "-inf";
    std::ostringstream s;
    s.precision(9);
    s << d;
    return s.str();
}

std::string const_items(const ConstData& c, std::size_t max_items) {
    const std::int64_t n = c.type.volume();
    if (static_cast<std::size_t>(n) > max_items) return "";
    std::string out = "[";
    for (std::int64_t i = 0; i < n; ++i) {
        if (i) out += ", ";
        if (c.type.dtype == DType::bool_) {
            out += c.items<std::uint8_t>()[i] ? "true" : "false";
        } else if (auto v = int_item(c, i)) {
            out += std::to_string(*v);
        } else if (auto f = float_item(c, i)) {
            out += format_double(*f);
        }
    }
    return out + "]";
}

std::string ints(const std::vector<std::int64_t>& v) {
    std::string out = "[";
    for (std::size_t i = 0; i < v.size(); ++i) out += (i ? "," : "") + std::to_string(v[i]);
    return out + "]";
}

std::string attr_text(const Attr& a, std::size_t max_items) {
    struct Visitor {
        std::size_t max_items;
        std::string operator()(std::monostate) const { return "none"; }
        std::string operator()(bool b) const { return b ? "true" : "false"; }
        std::string operator()(std::int64_t i) const { return std::to_string(i); }
        std::string operator()(double d) const { return format_double(d); }
        std::string operator()(const std::vector<std::int64_t>& v) const { return ints(v); }
        std::string operator()(const std::string& s) const { return "\"" + s + "\""; }
        std::string operator()(DType t) const { return to_string(t); }
        std::string operator()(AccType t) const { return to_string(t); }
        std::string operator()(NanMode t) const { return to_string(t); }
        std::string operator()(RoundingMode t) const { return to_string(t); }
        std::string operator()(ResizeMode t) const { return to_string(t); }
        std::string operator()(const ConstPtr& c) const {
            if (!c) return "null";
            std::string items = const_items(*c, max_items);
            return to_string(c->type) + (items.empty() ? "" : " " + items);
        }
        std::string operator()(BlockRef b) const { return "^" + std::to_string(b.block); }
    };
    return std::visit(Visitor{max_items}, a);
}

std::string value_list(const Graph& g, const std::vector<ValueId>& vs, bool with_types) {
    std::string out;
    for (std::size_t i = 0; i < vs.size(); ++i) {
        if (i) out += ", ";
        out += "%" + std::to_string(vs[i]);
        if (with_types && vs[i] < g.values.size()) out += ":" + to_string(g.values[vs[i]].type);
    }
    return out;
}

}  // namespace tosa_ir_cpp

std::string to_string(const Attr& a) { return tosa_ir_cpp::attr_text(a, 8); }

std::string to_text(const Graph& g, const SourceManager* sm, std::size_t max_const_items) {
    using namespace tosa_ir_cpp;
    std::string out = "tosa.graph \"" + g.name + "\" profile " + to_string(g.profile) + "\n";
    for (std::size_t b = 0; b < g.blocks.size(); ++b) {
        const Block& block = g.blocks[b];
        out += "block ^" + std::to_string(b) + " \"" + block.name + "\"(" + value_list(g, block.inputs, true) + ")";
        for (ValueId v : block.inputs)
            if (v < g.values.size() && !g.values[v].name.empty()) out += " %" + std::to_string(v) + "='" + g.values[v].name + "'";
        out += " {\n";
        for (const Op& op : block.ops) {
            out += "  ";
            if (!op.outputs.empty()) out += value_list(g, op.outputs, true) + " = ";
            out += to_string(op.kind);
            out += "(" + value_list(g, op.inputs, false) + ")";
            if (!op.attrs.empty()) {
                out += " {";
                for (std::size_t i = 0; i < op.attrs.size(); ++i) {
                    if (i) out += ", ";
                    out += std::string(to_string(op.attrs[i].first)) + "=" + attr_text(op.attrs[i].second, max_const_items);
                }
                out += "}";
            }
            if (op.origin != no_origin && op.origin < g.origins.size()) {
                const Origin& o = g.origins[op.origin];
                out += "  # " + o.operation;
                if (!o.tensor.empty()) out += " '" + o.tensor + "'";
                if (sm && o.provenance.range.valid()) {
                    const LineCol lc = sm->begin(o.provenance.range);
                    out += " " + sm->name(o.provenance.range.file) + ":" + std::to_string(lc.line);
                }
            }
            out += "\n";
        }
        out += "  return " + value_list(g, block.outputs, false) + "\n}\n";
    }
    return out;
}

// ---- 16-bit floats ---------------------------------------------------------------------------

namespace tosa_ir_cpp {
std::uint32_t bits_of(float f) {
    std::uint32_t u;
    std::memcpy(&u, &f, sizeof u);
    return u;
}
float float_of(std::uint32_t u) {
    float f;
    std::memcpy(&f, &u, sizeof f);
    return f;
}
}  // namespace tosa_ir_cpp

namespace tosa_ir_cpp {
std::uint16_t fp32_to_fp16_soft(float f);
#ifdef NNEF_TOSA_F16C
// The processor's conversion (F16C, round to nearest even, NaN payloads kept with the quiet bit
// set): the same bits as fp32_to_fp16_soft for every input, a few times faster. The VPU compiler
// converts every weight of a model this way.
__attribute__((target("f16c"))) std::uint16_t fp32_to_fp16_f16c(float f) {
    return static_cast<std::uint16_t>(_cvtss_sh(f, _MM_FROUND_TO_NEAREST_INT));
}
// CPUID leaf 1: F16C (ECX bit 29) and OSXSAVE (bit 27), and the OS saving the SSE and AVX state
// (XCR0 bits 1 and 2), which the VEX-encoded conversion needs. (Not __builtin_cpu_supports:
// clang 14, the fuzz build's compiler, does not know "f16c".)
bool has_f16c() {
    unsigned a = 0, b = 0, c = 0, d = 0;
    if (!__get_cpuid(1, &a, &b, &c, &d)) return false;
    if (!(c & (1u << 29)) || !(c & (1u << 27))) return false;
    std::uint32_t xcr0_lo = 0, xcr0_hi = 0;
    __asm__ volatile("xgetbv" : "=a"(xcr0_lo), "=d"(xcr0_hi) : "c"(0));
    return (xcr0_lo & 0x6u) == 0x6u;
}
#endif
}  // namespace tosa_ir_cpp

std::uint16_t fp32_to_fp16(float f) {
#ifdef NNEF_TOSA_F16C
    static const bool f16c = tosa_ir_cpp::has_f16c();
    if (f16c) return tosa_ir_cpp::fp32_to_fp16_f16c(f);
#endif
    return tosa_ir_cpp::fp32_to_fp16_soft(f);
}

#ifdef NNEF_TOSA_F16C
namespace tosa_ir_cpp {
__attribute__((target("avx,f16c"))) void fp32_to_fp16_f16c_bulk(const float* from, std::size_t n, std::uint8_t* to) {
    std::size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        const __m128i h = _mm256_cvtps_ph(_mm256_loadu_ps(from + i), _MM_FROUND_TO_NEAREST_INT);
        _mm_storeu_si128(reinterpret_cast<__m128i*>(to + 2 * i), h);
    }
    for (; i < n; ++i) {
        const std::uint16_t h = fp32_to_fp16_f16c(from[i]);
        std::memcpy(to + 2 * i, &h, 2);
    }
}
}  // namespace tosa_ir_cpp
#endif

void fp32_to_fp16_bytes(const float* from, std::size_t n, std::uint8_t* to) {
#ifdef NNEF_TOSA_F16C
    static const bool f16c = tosa_ir_cpp::has_f16c();
    if (f16c) return tosa_ir_cpp::fp32_to_fp16_f16c_bulk(from, n, to);
#endif
    for (std::size_t i = 0; i < n; ++i) {
        const std::uint16_t h = tosa_ir_cpp::fp32_to_fp16_soft(from[i]);
        std::memcpy(to + 2 * i, &h, 2);
    }
}

std::uint16_t tosa_ir_cpp::fp32_to_fp16_soft(float f) {
    using namespace tosa_ir_cpp;
    const std::uint32_t u = bits_of(f);
    const std::uint32_t sign = (u >> 16) & 0x8000u;
    const std::uint32_t exp = (u >> 23) & 0xffu;
    std::uint32_t mant = u & 0x7fffffu;
    if (exp == 0xff) return static_cast<std::uint16_t>(sign | 0x7c00u | (mant ? 0x200u | (mant >> 13) : 0u));
    const int e = static_cast<int>(exp) - 127 + 15;
    if (e >= 31) return static_cast<std::uint16_t>(sign | 0x7c00u);  // overflow: infinity
    if (e <= 0) {
        // Subnormal (or zero) in fp16: shift the mantissa with its implicit bit, round to nearest even.
        if (e < -10) return static_cast<std::uint16_t>(sign);
        mant |= 0x800000u;
        const int shift = 14 - e;  // 14..24
        std::uint32_t half = mant >> shift;
        const std::uint32_t rem = mant & ((1u << shift) - 1);
        const std::uint32_t mid = 1u << (shift - 1);
        if (rem > mid || (rem == mid && (half & 1u))) ++half;
        return static_cast<std::uint16_t>(sign | half);
    }
    std::uint32_t half = (static_cast<std::uint32_t>(e) << 10) | (mant >> 13);
    const std::uint32_t rem = mant & 0x1fffu;
    if (rem > 0x1000u || (rem == 0x1000u && (half & 1u))) ++half;  // may carry into the exponent: correct
    return static_cast<std::uint16_t>(sign | half);
}

float fp16_to_fp32(std::uint16_t h) {
    using namespace tosa_ir_cpp;
    const std::uint32_t sign = (std::uint32_t(h) & 0x8000u) << 16;
    const std::uint32_t exp = (h >> 10) & 0x1fu;
    std::uint32_t mant = h & 0x3ffu;
    if (exp == 0x1f) return float_of(sign | 0x7f800000u | (mant << 13));
    if (exp == 0) {
        if (mant == 0) return float_of(sign);
        int e = -1;
        do {
            ++e;
            mant <<= 1;
        } while (!(mant & 0x400u));
        mant &= 0x3ffu;
        return float_of(sign | (static_cast<std::uint32_t>(127 - 15 - e) << 23) | (mant << 13));
    }
    return float_of(sign | ((exp + 127 - 15) << 23) | (mant << 13));
}

std::uint16_t fp32_to_bf16(float f) {
    using namespace tosa_ir_cpp;
    const std::uint32_t u = bits_of(f);
    if ((u & 0x7fffffffu) > 0x7f800000u) return static_cast<std::uint16_t>((u >> 16) | 0x40u);  // quiet NaN
    const std::uint32_t rounding = 0x7fffu + ((u >> 16) & 1u);
    return static_cast<std::uint16_t>((u + rounding) >> 16);
}

float bf16_to_fp32(std::uint16_t b) { return tosa_ir_cpp::float_of(std::uint32_t(b) << 16); }

}  // namespace nnef::tosa
