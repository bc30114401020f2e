// The simulator's SHAVE kernels (docs/vpu.md, "SHAVE kernels"): each is the TOSA operator it is
// named after, or a few of them (gelu, softmax, sqrt), run by the TOSA interpreter through a
// KernelGraph (sim_tosa_kernel.cpp). The simulator has no arithmetic of its own for SHAVE
// kernels; what is here is the mapping of the device's storage to TOSA types:
// - a float buffer (fp16, fp32) is computed in fp32 (specs/vpu-target.md section 3: "SHAVE kernels
//   compute in fp32 and store fp16"), an integer one in i32 (exact: int8 widens), and the result
//   is stored to the write's dtype (fp16 rounds to nearest even, integers saturate);
// - the float path has no bool buffers: a bool result is stored as 1 / 0, a bool operand (of the
//   logical operators, SELECT's condition) is true when nonzero;
// - parameters the device's kernels do not carry take TOSA's defaults: nan_mode PROPAGATE, zero
//   points 0 (NEGATE, MATMUL), MUL's shift 0;
// - `matmul` with integer operands runs as TOSA's i8 MATMUL (i32 result) when both buffers are int8,
//   else as the i16 one (i48 result): TOSA has no i32 MATMUL; the compiler's operands are int8
//   values minus a zero point, which fit i16, and other items are refused;
// - `rescale` reads and writes int8 as i8 and int32 as i32 (an i16 value held in int32 is rescaled
//   as i32: the same arithmetic; its saturation to i16 is the compiler's next `clamp`).
#include <cmath>

#include "lowering/vpu/sim_memory.hpp"

namespace nnef::vpu::sim_values_cpp {

namespace sim_shave_cpp {

using tosa::AttrName;
using tosa::DType;
using tosa::OpKind;
using tosa::ValueId;
using Attrs = std::vector<std::pair<AttrName, tosa::Attr>>;

// The TOSA type a native kernel computes in for a buffer of type t.
DType compute_type(DataType t) { return is_int(t) ? DType::i32 : DType::fp32; }

double attr_number(const ShaveParams& p, const char* key) {
    auto it = p.attrs.find(key);
    if (it == p.attrs.end() || !it->is_number()) throw ValueError{"SHAVE kernel '" + p.kernel + "' needs the number params." + key};
    return it->get<double>();
}

std::int64_t axis_attr(const ShaveParams& p, std::size_t rank) {
    const double a = attr_number(p, "axis");
    if (a < 0 || a >= double(rank) || std::floor(a) != a)
        throw ValueError{"SHAVE kernel '" + p.kernel + "': axis " + std::to_string(a) + " is not a dimension of its rank-" +
                         std::to_string(rank) + " input"};
    return std::int64_t(a);
}

// The attributes TOSA requires that the device's kernels do not carry.
Attrs defaults(OpKind kind) {
    if (tosa::op_info(kind).attribute(AttrName::nan_mode)) return {{AttrName::nan_mode, tosa::NanMode::PROPAGATE}};
    return {};
}

// The element-by-element kernels of one operand that are one TOSA operator.
std::optional<OpKind> unary_kind(const std::string& k) {
    static const std::pair<const char*, OpKind> table[] = {
        {"abs", OpKind::ABS},       {"negate", OpKind::NEGATE},         {"exp", OpKind::EXP},     {"log", OpKind::LOG},
        {"sigmoid", OpKind::SIGMOID}, {"tanh", OpKind::TANH},           {"erf", OpKind::ERF},     {"reciprocal", OpKind::RECIPROCAL},
        {"rsqrt", OpKind::RSQRT},   {"floor", OpKind::FLOOR},           {"ceil", OpKind::CEIL},   {"sin", OpKind::SIN},
        {"cos", OpKind::COS},       {"identity", OpKind::IDENTITY},
    };
    for (const auto& [name, kind] : table)
        if (k == name) return kind;
    return std::nullopt;
}

std::optional<OpKind> binary_kind(const std::string& k) {
    static const std::pair<const char*, OpKind> table[] = {
        {"add", OpKind::ADD},         {"sub", OpKind::SUB},         {"mul", OpKind::MUL},
        {"maximum", OpKind::MAXIMUM}, {"minimum", OpKind::MINIMUM}, {"pow", OpKind::POW},
        {"greater", OpKind::GREATER}, {"greater_equal", OpKind::GREATER_EQUAL}, {"equal", OpKind::EQUAL},
        {"logical_and", OpKind::LOGICAL_AND}, {"logical_or", OpKind::LOGICAL_OR}, {"logical_xor", OpKind::LOGICAL_XOR},
    };
    for (const auto& [name, kind] : table)
        if (k == name) return kind;
    return std::nullopt;
}

bool is_comparison(OpKind k) { return k == OpKind::GREATER || k == OpKind::GREATER_EQUAL || k == OpKind::EQUAL; }
bool is_logical(OpKind k) { return k == OpKind::LOGICAL_AND || k == OpKind::LOGICAL_OR || k == OpKind::LOGICAL_XOR; }

// a op b, with MUL's shift operand (0).
ValueId binary(KernelGraph& kg, OpKind kind, ValueId a, ValueId b, const tosa::TensorType& out) {
    if (kind == OpKind::MUL) return kg.op(kind, {a, b, kg.scalar(DType::i8, 0, 1)}, out);
    return kg.op(kind, {a, b}, out, defaults(kind));
}

tosa::ConstPtr integer_vector(DType dt, const std::vector<std::int64_t>& v, const std::string& where) {
    auto c = tosa::ConstData::allocate({dt, {std::int64_t(v.size())}});
    for (std::size_t i = 0; i < v.size(); ++i)
        if (!tosa::set_number_item(*c, std::int64_t(i), double(v[i])))
            throw ValueError{where + ": " + std::to_string(v[i]) + " is no " + tosa::to_string(dt) + " value"};
    return c;
}

// rescale's multiplier / shift: one integer, or an array with one per index of the last dimension.
std::vector<std::int64_t> per_channel(const ShaveParams& p, const char* key, std::int64_t channels) {
    auto it = p.attrs.find(key);
    std::vector<std::int64_t> v;
    if (it != p.attrs.end() && it->is_number_integer()) v.push_back(it->get<std::int64_t>());
    else if (it != p.attrs.end() && it->is_array())
        for (const auto& x : *it) {
            if (!x.is_number_integer()) {
                v.clear();
                break;
            }
            v.push_back(x.get<std::int64_t>());
        }
    if (v.empty() || (v.size() != 1 && std::int64_t(v.size()) != channels))
        throw ValueError{std::string("SHAVE kernel 'rescale' needs params.") + key + ": an integer or one per index of the last dimension (" +
                         std::to_string(channels) + ")"};
    return v;
}

}  // namespace sim_shave_cpp

void run_shave(Memories& mem, const Task& t) {
    using namespace sim_shave_cpp;
    const ShaveParams& p = t.shave;
    const std::string& k = p.kernel;
    const std::string where = "SHAVE kernel '" + k + "'";
    auto need = [&](std::size_t reads, std::size_t writes) {
        if (t.reads.size() != reads || t.writes.size() != writes)
            throw ValueError{where + " reads " + std::to_string(reads) + " boxes and writes " + std::to_string(writes) + ", not " +
                             std::to_string(t.reads.size()) + " and " + std::to_string(t.writes.size())};
    };
    const std::optional<OpKind> unary = unary_kind(k), bin = binary_kind(k);
    const bool elementwise = unary || k == "cast" || k == "clamp" || k == "logical_not" || k == "sqrt" || k == "gelu";
    const bool native = elementwise || bin || k == "select" || k == "matmul" || k == "reduce_sum" || k == "reduce_max" ||
                        k == "reduce_min" || k == "reduce_product" || k == "softmax" || k == "rescale";
    if (!native) {
        if (const auto kind = tosa::op_kind_from_mnemonic(k)) return run_tosa_kernel(mem, t, *kind);
        throw ValueError{"the simulator has no arithmetic for SHAVE kernel '" + k + "' (docs/vpu.md lists the kernels)"};
    }
    if (t.writes.empty()) throw ValueError{where + " writes no box"};
    const Access& out_a = t.writes[0];
    const DType ct = compute_type(mem.buffer(out_a.buffer).dtype);
    KernelGraph kg(where);
    ValueId y;
    if (elementwise) {
        // one operand, element by element: both boxes as [count]
        expect_attrs(p, k == "clamp" ? std::initializer_list<const char*>{"min", "max"} : std::initializer_list<const char*>{});
        need(1, 1);
        const Dense x = gather(mem, t.reads[0]);
        if (std::int64_t(x.v.size()) != out_a.elements()) throw ValueError{where + " reads and writes different element counts"};
        const std::vector<std::int64_t> flat{out_a.elements()};
        const tosa::TensorType out{ct, flat};
        if (k == "cast") {
            const DType in_t = compute_type(x.dtype);
            const ValueId a = kg.input(x, in_t, flat);
            y = in_t == ct ? kg.op(OpKind::IDENTITY, {a}, out) : kg.op(OpKind::CAST, {a}, out);
        } else if (k == "logical_not") {
            y = kg.op(OpKind::LOGICAL_NOT, {kg.input(x, DType::bool_, flat)}, {DType::bool_, flat});
        } else if (k == "clamp") {
            const double lo = attr_number(p, "min"), hi = attr_number(p, "max");
            auto bound = [&](double v) -> tosa::Attr {
                if (ct == DType::fp32) return v;
                if (std::floor(v) != v) throw ValueError{where + ": an integer clamp's bounds are integers"};
                return std::int64_t(v);
            };
            y = kg.op(OpKind::CLAMP, {kg.input(x, ct, flat)}, out,
                      {{AttrName::min_val, bound(lo)}, {AttrName::max_val, bound(hi)}, {AttrName::nan_mode, tosa::NanMode::PROPAGATE}});
        } else if (k == "sqrt") {
            y = kg.op(OpKind::POW, {kg.input(x, ct, flat), kg.scalar(ct, 0.5, 1)}, out);
        } else if (k == "gelu") {
            // 0.5 x (1 + erf(x / sqrt(2)))
            const ValueId a = kg.input(x, ct, flat);
            const ValueId e = kg.op(OpKind::ERF, {binary(kg, OpKind::MUL, a, kg.scalar(ct, 1.0 / std::sqrt(2.0), 1), out)}, out);
            const ValueId s = binary(kg, OpKind::ADD, e, kg.scalar(ct, 1.0, 1), out);
            y = binary(kg, OpKind::MUL, binary(kg, OpKind::MUL, a, s, out), kg.scalar(ct, 0.5, 1), out);
        } else if (*unary == OpKind::NEGATE) {
            y = kg.op(OpKind::NEGATE, {kg.input(x, ct, flat), kg.scalar(ct, 0, 1), kg.scalar(ct, 0, 1)}, out);
        } else {
            y = kg.op(*unary, {kg.input(x, ct, flat)}, out);
        }
    } else if (bin) {
        // two operands of the output's rank, broadcast (TOSA's rules)
        expect_attrs(p, {});
        need(2, 1);
        const Dense a = gather(mem, t.reads[0]), b = gather(mem, t.reads[1]);
        if (is_logical(*bin)) {
            y = kg.op(*bin, {kg.input(a, DType::bool_), kg.input(b, DType::bool_)}, {DType::bool_, out_a.shape});
        } else if (is_comparison(*bin)) {
            const DType in_t = is_int(a.dtype) && is_int(b.dtype) ? DType::i32 : DType::fp32;
            y = kg.op(*bin, {kg.input(a, in_t), kg.input(b, in_t)}, {DType::bool_, out_a.shape});
        } else {
            y = binary(kg, *bin, kg.input(a, ct), kg.input(b, ct), {ct, out_a.shape});
        }
    } else if (k == "select") {
        expect_attrs(p, {});
        need(3, 1);
        const Dense c = gather(mem, t.reads[0]), a = gather(mem, t.reads[1]), b = gather(mem, t.reads[2]);
        y = kg.op(OpKind::SELECT, {kg.input(c, DType::bool_), kg.input(a, ct), kg.input(b, ct)}, {ct, out_a.shape});
    } else if (k == "matmul") {
        expect_attrs(p, {});
        need(2, 1);
        const Dense a = gather(mem, t.reads[0]), b = gather(mem, t.reads[1]);
        DType in_t = DType::fp32, acc = DType::fp32;
        if (ct != DType::fp32) {
            const bool i8 = a.dtype == DataType::int8 && b.dtype == DataType::int8;
            in_t = i8 ? DType::i8 : DType::i16;
            acc = i8 ? DType::i32 : DType::i48;
        }
        y = kg.op(OpKind::MATMUL, {kg.input(a, in_t), kg.input(b, in_t), kg.scalar(in_t, 0, 1), kg.scalar(in_t, 0, 1)}, {acc, out_a.shape});
    } else if (k == "rescale") {
        expect_attrs(p, {"multiplier", "shift", "input_zp", "output_zp", "double_round"});
        need(1, 1);
        const Dense x = gather(mem, t.reads[0]);
        const DataType out_dt = mem.buffer(out_a.buffer).dtype;
        if ((x.dtype != DataType::int8 && x.dtype != DataType::int32) || (out_dt != DataType::int8 && out_dt != DataType::int32))
            throw ValueError{where + " reads and writes int8 or int32 (TOSA's i8 and i32), not " + to_string(x.dtype) + " -> " + to_string(out_dt)};
        if (std::int64_t(x.v.size()) != out_a.elements()) throw ValueError{where + " reads and writes different element counts"};
        const std::int64_t channels = x.shape.empty() ? 1 : x.shape.back();
        const auto mult = per_channel(p, "multiplier", channels), shift = per_channel(p, "shift", channels);
        if (mult.size() != shift.size()) throw ValueError{where + ": params.multiplier and params.shift have different lengths"};
        const DType in_t = *tosa_dtype(x.dtype), out_t = *tosa_dtype(out_dt);
        const auto dr = p.attrs.find("double_round");
        const bool double_round = dr != p.attrs.end() && dr->is_boolean() && dr->get<bool>();
        const double izp = attr_number(p, "input_zp"), ozp = attr_number(p, "output_zp");
        y = kg.op(OpKind::RESCALE,
                  {kg.input(x, in_t), kg.constant(integer_vector(DType::i32, mult, where + " multiplier")),
                   kg.constant(integer_vector(DType::i8, shift, where + " shift")), kg.scalar(in_t, izp, 1), kg.scalar(out_t, ozp, 1)},
                  {out_t, x.shape},
                  {{AttrName::scale32, true},
                   {AttrName::rounding_mode, double_round ? tosa::RoundingMode::DOUBLE_ROUND : tosa::RoundingMode::SINGLE_ROUND},
                   {AttrName::per_channel, mult.size() > 1},
                   {AttrName::input_unsigned, false},
                   {AttrName::output_unsigned, false}});
    } else {
        // reductions and softmax along `axis`
        expect_attrs(p, {"axis"});
        need(1, 1);
        const Dense x = gather(mem, t.reads[0]);
        const std::int64_t axis = axis_attr(p, x.shape.size());
        const ValueId a = kg.input(x, ct);
        std::vector<std::int64_t> reduced = x.shape;
        reduced[std::size_t(axis)] = 1;
        const tosa::TensorType full{ct, x.shape}, part{ct, reduced};
        auto reduce = [&](OpKind kind, ValueId v) {
            Attrs attrs = defaults(kind);
            attrs.push_back({AttrName::axis, axis});
            return kg.op(kind, {v}, part, std::move(attrs));
        };
        if (k == "softmax") {
            // exp(x - max) / sum, as the TOSA lowering decomposes it
            const ValueId e = kg.op(OpKind::EXP, {binary(kg, OpKind::SUB, a, reduce(OpKind::REDUCE_MAX, a), full)}, full);
            y = binary(kg, OpKind::MUL, e, kg.op(OpKind::RECIPROCAL, {reduce(OpKind::REDUCE_SUM, e)}, part), full);
        } else {
            y = reduce(*tosa::op_kind_from_mnemonic(k), a);
        }
    }
    kg.write(mem, out_a, *kg.run({y})[0]);
}

}  // namespace nnef::vpu::sim_values_cpp
