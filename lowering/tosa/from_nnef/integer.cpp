// The integer (PRO-INT) legalization of a quantized graph (integer.hpp): the grids of graph.quant
// entries, the state and builders its operations share (RESCALE, TABLE, requantization), and the
// driver, which lowers each operation by the `lower_integer` of its registry entry.
#include "lowering/tosa/from_nnef/integer.hpp"

#include <algorithm>
#include <cmath>
#include <exception>
#include <stdexcept>

#include "lowering/tosa/scale.hpp"

namespace nnef::tosa::from_nnef {

namespace integer {

std::int64_t items_of(const Shape& s) {
    std::int64_t n = 1;
    for (std::int64_t e : s) n *= e;
    return n;
}

bool same_grid(const Grid& a, const Grid& b) {
    return a.dtype == b.dtype && a.zp == b.zp && a.lo == b.lo && a.hi == b.hi && a.frac == b.frac && std::fabs(a.scale - b.scale) <= 1e-12 * b.scale;
}

// An i8 grid for linear per-tensor parameters of at most 8 bits (unsigned codes move down by 128);
// nullopt with why otherwise.
std::optional<Grid> grid_of(const storage::QuantParams& p, std::int64_t& offset, std::string& why) {
    if (p.algorithm == storage::QuantAlgorithm::logarithmic) {
        why = "logarithmic quantization has no linear integer grid (no RESCALE can reach it)";
        return std::nullopt;
    }
    if (p.channels() != 1) {
        why = "per-channel quantization of activations is not lowered (per-tensor only)";
        return std::nullopt;
    }
    if (p.bits > 16) {
        why = std::to_string(p.bits) + "-bit codes fit neither i8 nor i16";
        return std::nullopt;
    }
    const storage::Affine a = p.affine(0);
    const bool wide = p.bits > 8;
    offset = p.code_max() > (wide ? 32767 : 127) ? (wide ? -32768 : -128) : 0;
    Grid g;
    g.scale = a.scale;
    g.dtype = wide ? DType::i16 : DType::i8;
    double zp = a.zero_point + double(offset);
    if (std::fabs(zp - std::nearbyint(zp)) < 1e-9) zp = std::nearbyint(zp);
    g.zp = wide ? 0 : std::int64_t(std::floor(zp));
    g.frac = zp - double(g.zp);
    g.lo = p.code_min() + offset;
    g.hi = p.code_max() + offset;
    return g;
}

// The parameters of a quantize fragment (literal arguments) as a graph.quant entry would give them.
std::optional<storage::QuantParams> fragment_params_of(const Operation& op) {
    if (!storage::quant_algorithm(op.name)) return std::nullopt;
    Quantization q;
    q.algorithm = op.name;
    for (const auto& [name, v] : op.inputs)
        if (name != "x") q.arguments.emplace_back(name, v);
    for (const auto& [name, v] : op.attribs) q.arguments.emplace_back(name, v);
    const nnef::Value* y = op.output("y");
    Result<storage::QuantParams> p = storage::quant_params(q, y && y->is_identifier() ? y->as_identifier() : op.name);
    if (!p) return std::nullopt;
    return *p;
}

namespace tosa_from_nnef_integer_cpp {

// Whether an operation reads `tensor` (an argument or an item of one).
bool reads(const Operation& op, const std::string& tensor) {
    for (const auto& [name, v] : op.inputs) {
        if (v.is_identifier() && v.as_identifier() == tensor) return true;
        if (v.is_list())
            for (const nnef::Value& item : v.items())
                if (item.is_identifier() && item.as_identifier() == tensor) return true;
    }
    return false;
}

// The parameters of the quantize fragment that computes `tensor` (reader false), or that is the only
// operation reading it (reader true: the codes of a float input are then that fragment's, and no
// other operation needs its float values).
std::optional<storage::QuantParams> fragment_params(const nnef::Graph& model, const std::string& tensor, bool reader) {
    const Operation* found = nullptr;
    for (const Operation& op : model.operations) {
        if (!reader) {
            const nnef::Value* v = op.output("y");
            if (v && v->is_identifier() && v->as_identifier() == tensor && storage::quant_algorithm(op.name))
                return fragment_params_of(op);
            continue;
        }
        if (!reads(op, tensor)) continue;
        const nnef::Value* x = op.input("x");
        if (found || !storage::quant_algorithm(op.name) || !x || !x->is_identifier() || x->as_identifier() != tensor)
            return std::nullopt;
        found = &op;
    }
    return found ? fragment_params_of(*found) : std::nullopt;
}

}  // namespace tosa_from_nnef_integer_cpp

std::optional<storage::QuantParams> Lowering::params_of(const std::string& tensor, bool& bad) {
    const Tensor* t = model.tensor(tensor);
    if (!t || !t->quantization) return std::nullopt;
    Result<storage::QuantParams> p = storage::quant_params(*t->quantization, tensor);
    if (!p) {
        diags.append(p.diagnostics);
        bad = true;
        return std::nullopt;
    }
    return *p;
}

std::optional<Grid> Lowering::result_grid(const std::string& tensor) {
    bool bad = false;
    auto g = entry_grid(tensor, bad);
    if (!g && !bad) fail("its result '" + tensor + "' has no graph.quant entry");
    return bad ? std::nullopt : g;
}

const Act* Lowering::input_act(std::string_view arg) {
    const Act* x = act(arg_id(arg));
    if (!x) fail("its input is not an integer activation");
    return x;
}

std::optional<Grid> Lowering::entry_grid(const std::string& tensor, bool& bad) {
    const auto p = params_of(tensor, bad);
    if (!p) return std::nullopt;
    std::string why;
    std::int64_t offset = 0;
    auto g = grid_of(*p, offset, why);
    if (!g) {
        c.refuse("the quantization of '" + tensor + "' (" + storage::to_string(p->algorithm) + ") has no i8 form: " + why);
        bad = true;
    }
    return g;
}

bool Lowering::bind_real(const std::string& name, Real r) {
    bool bad = false;
    r.params = params_of(name, bad);
    if (bad) return false;
    if (r.params) {
        if (!storage::ChannelMap::make(r.params->shape, r.shape))
            return fail("the parameters of the quantization of '" + name + "' do not broadcast to its shape");
        storage::fake_quantize(*r.params, r.shape, r.items.data(), r.items.data());
    }
    reals[name] = std::move(r);
    return true;
}

ValueId Lowering::clamp_to(ValueId v, const Grid& g) {
    const std::int64_t full = g.dtype == DType::i16 ? 32768 : 128;
    if (g.lo <= -full && g.hi >= full - 1) return v;
    return c.clamp(v, double(g.lo), double(g.hi));
}

// RESCALE with scale32, SINGLE_ROUND: multiplier = round(m * 2^30), shift = 30 + n for scale = m * 2^-n,
// 1 <= m < 2 (the specification's normalized form); apply_scale_32 rounds half up, as NNEF's round.
ValueId Lowering::rescale(ValueId x, std::int64_t in_zp, double scale, std::int64_t out_zp, DType out) {
    return rescale(x, in_zp, std::vector<double>{scale}, out_zp, out);
}

// Per channel (the last dimension) with several scales.
ValueId Lowering::rescale(ValueId x, std::int64_t in_zp, const std::vector<double>& scales, std::int64_t out_zp, DType out) {
    const std::int64_t n = std::int64_t(scales.size());
    auto multipliers = ConstData::allocate(TensorType{DType::i32, {n}});
    auto shifts = ConstData::allocate(TensorType{DType::i8, {n}});
    for (std::int64_t k = 0; k < n; ++k) {
        const double scale = scales[std::size_t(k)];
        const auto ms = scale32_multiplier(scale);
        if (!ms) throw std::runtime_error("the rescaling factor " + std::to_string(scale) + " is outside RESCALE's range");
        multipliers->mutable_items<std::int32_t>()[k] = ms->first;
        shifts->mutable_items<std::int8_t>()[k] = static_cast<std::int8_t>(ms->second);
    }
    const DType in_t = c.type(x).dtype;
    const ValueId izp = c.splat(in_t, {1}, in_t == DType::i8 ? double(in_zp) : 0.0);  // others: 0 (grid_of)
    const ValueId ozp = c.splat(out, {1}, out == DType::i8 ? double(out_zp) : 0.0);
    return c.add(OpKind::RESCALE, {x, c.constant(std::move(multipliers)), c.constant(std::move(shifts)), izp, ozp},
                  TensorType{out, c.shape(x)},
                  {{AttrName::scale32, true},
                   {AttrName::rounding_mode, RoundingMode::SINGLE_ROUND},
                   {AttrName::per_channel, n > 1},
                   {AttrName::input_unsigned, false},
                   {AttrName::output_unsigned, false}});
}

// code' = round(real / to.scale + to.frac) + to.zp = round((code - zp) * M + (to.frac - frac * M)) + to.zp with
// M = scale / to.scale. With fractions the constant is added in i32 at 2^16 times the resolution.
Act Lowering::requantize(const Act& a, const Grid& to) {
    if (same_grid(a.grid, to)) return a;
    Act r;
    r.grid = to;
    const double m = a.grid.scale / to.scale;
    const double shift = to.frac / m - a.grid.frac;  // in input code units
    if (shift == 0.0) {
        r.v = clamp_to(rescale(a.v, a.grid.zp, m, to.zp, to.dtype), to);
        return r;
    }
    // k * (|code - zp| + |shift|) within 2^29
    const double span = double(std::max(std::abs(a.grid.hi - a.grid.zp), std::abs(a.grid.lo - a.grid.zp))) + std::fabs(shift);
    const double k = std::ldexp(1.0, std::min(16, int(std::floor(std::log2(std::ldexp(1.0, 29) / (span + 1.0))))));
    const ValueId wide = rescale(a.v, a.grid.zp, k, 0, DType::i32);
    const ValueId moved = c.binary(OpKind::ADD, wide, c.scalar(DType::i32, storage::round_half_up(shift * k), c.rank(wide)));
    r.v = clamp_to(rescale(moved, 0, m / k, to.zp, to.dtype), to);
    return r;
}

ValueId Lowering::affine(ValueId v, std::int64_t in_zp, double v_max, const std::vector<double>& factor, const std::vector<double>& offset,
                         const Grid& to, std::string& why) {
    const std::size_t n = std::max(factor.size(), offset.size());
    auto at = [](const std::vector<double>& x, std::size_t c) { return x.size() == 1 ? x[0] : x[c]; };
    double largest = 0.0;  // of |real| before the final rounding, in to's units times to.scale
    for (std::size_t c = 0; c < n; ++c)
        largest = std::max(largest, v_max * std::fabs(at(factor, c)) + std::fabs(at(offset, c)) + std::fabs(to.frac * to.scale));
    // unit = to.scale / 2^k with largest / unit <= 2^28: the sums fit i32, and each RESCALE's scale
    // (at most 2^28 / v_max) keeps |v - in_zp| below 2^(shift - 1), as apply_scale_32 requires
    const int k = std::min(24, int(std::floor(std::log2(std::ldexp(to.scale, 28) / std::max(largest, 1e-300)))));
    if (k < 12) {
        why = "its values reach " + format_scalar(largest) + ", more than 2^16 steps of its result's grid (scale " + format_scalar(to.scale) +
              "): no i32 grid holds them 2^12 times finer than that";
        return no_value;
    }
    const double unit = std::ldexp(to.scale, -k);
    const std::size_t rank = c.rank(v);
    const Shape per_c = [&] {
        Shape s(rank, 1);
        s.back() = std::int64_t(n);
        return s;
    }();
    std::vector<double> scales(n);
    auto signs = ConstData::allocate(TensorType{DType::i32, per_c});
    auto offsets = ConstData::allocate(TensorType{DType::i32, per_c});
    bool signed_ = false;
    for (std::size_t ch = 0; ch < n; ++ch) {
        const double f = at(factor, ch);
        scales[ch] = f == 0.0 ? 1.0 : std::fabs(f) / unit;
        signs->mutable_items<std::int32_t>()[ch] = f > 0.0 ? 1 : f < 0.0 ? -1 : 0;
        signed_ = signed_ || !(f > 0.0);
        offsets->mutable_items<std::int32_t>()[ch] =
            static_cast<std::int32_t>(storage::round_half_up((at(offset, ch) + to.frac * to.scale) / unit));
    }
    ValueId w = rescale(v, in_zp, scales, 0, DType::i32);
    if (signed_) w = c.mul(w, c.constant(std::move(signs)));
    w = c.binary(OpKind::ADD, w, c.constant(std::move(offsets)));
    return clamp_to(rescale(w, 0, std::ldexp(1.0, -k), to.zp, to.dtype), to);
}

bool Lowering::bind_act(const std::string& name, Act a) {
    bool bad = false;
    const auto g = entry_grid(name, bad);
    if (bad) return false;
    if (g) a = requantize(a, *g);
    return set(name, a);
}

bool Lowering::input(const std::string& name) {
    const Tensor* t = model.tensor(name);
    bool bad = false;
    auto g = entry_grid(name, bad);
    if (bad) return false;
    if (!g)  // the grid of the quantize fragment that reads it, if one does
        if (const auto p = tosa_from_nnef_integer_cpp::fragment_params(model, name, true)) {
            std::string why;
            std::int64_t offset = 0;
            g = grid_of(*p, offset, why);
        }
    if (!t || !t->shape || !g) {
        diags.error(Stage::tosa, "unsupported-operation",
                     "graph input '" + name +
                         "' has no graph.quant entry with an integer form, nor is it read by exactly one linear quantize "
                         "fragment (with literal parameters) and nothing else: at PRO-INT the function takes the integer "
                         "codes of each input's quantization");
        return false;
    }
    const ValueId v = c.graph().add_value(TensorType{g->dtype, *t->shape}, name);
    c.graph().main().inputs.push_back(v);
    return set(name, Act{v, *g});
}

ValueId Lowering::output(const std::string& name) {
    const Act* a = act(name);
    bool bad = false;
    const auto g = entry_grid(name, bad);
    if (a && (logarithmic.count(name) || tosa_from_nnef_integer_cpp::fragment_params(model, name, false))) return a->v;
    if (!a || !g) {
        diags.error(Stage::tosa, "unsupported-operation",
                     "graph output '" + name +
                         (a ? "' has no graph.quant entry: at PRO-INT the function returns the int8 codes of each "
                              "output's quantization"
                            : "' is not an integer activation (a compile-time value or a result without an integer form)"));
        return no_value;
    }
    return a->v;
}

// TABLE: code -> f(real(code)) as an i8 code.
ValueId Lowering::table(const Act& a, const std::function<double(double)>& code_of) {
    auto t = ConstData::allocate(TensorType{DType::i8, {256}});
    for (std::int64_t i = 0; i < 256; ++i) {
        const std::int64_t code = std::clamp<std::int64_t>(i - 128, a.grid.lo, a.grid.hi);
        t->mutable_items<std::int8_t>()[i] = static_cast<std::int8_t>(std::clamp(code_of(a.grid.real(code)), -128.0, 127.0));
    }
    return c.add(OpKind::TABLE, {a.v, c.constant(std::move(t))}, c.type(a.v));
}

// An element-wise function of one activation: a TABLE to the result's grid (its entry needed).
bool Lowering::unary(const std::function<double(double)>& f, const char* result) {
    const Act* x = input_act("x");
    if (!x) return false;
    if (x->grid.dtype != DType::i8) return fail("TABLEs of i16 inputs are not lowered here (i8 only)");
    const Tensor& out = c.result(result);
    bool bad = false;
    const auto og = entry_grid(out.name, bad);
    if (bad) return false;
    if (!og) return fail("its result '" + out.name + "' has no graph.quant entry, so no grid for its TABLE");
    if (og->dtype != DType::i8) return fail("TABLEs to i16 results are not lowered here (i8 only)");
    const Grid g = *og;
    return set(out.name, Act{table(*x, [&](double v) { return double(g.code(f(v))); }), g});
}

Act Lowering::codes_of(const Real& r) {
    Grid g;
    bool exact = false;
    if (r.params && r.params->channels() == 1) {
        std::string why;
        std::int64_t offset = 0;
        if (const auto e = grid_of(*r.params, offset, why); e && e->frac == 0.0 && e->dtype == DType::i8) {
            g = *e;
            exact = true;
        }
    }
    if (!exact) {
        double m = 0.0;
        for (double v : r.items) m = std::max(m, std::fabs(v));
        g.scale = m > 0.0 ? m / 127.0 : 1.0;
    }
    auto codes = ConstData::allocate(TensorType{DType::i8, r.shape});
    for (std::size_t i = 0; i < r.items.size(); ++i) codes->mutable_items<std::int8_t>()[i] = static_cast<std::int8_t>(g.code(r.items[i]));
    return Act{c.constant(std::move(codes)), g};
}

}  // namespace integer
bool is_quantized(const nnef::Graph& model) {
    for (const Tensor& t : model.tensors)
        if (t.quantization) return true;
    for (const Operation& op : model.operations)
        if (storage::quant_algorithm(op.name)) return true;
    return false;
}

std::optional<Graph> legalize_integer(const nnef::Graph& model, const LowerOptions& options, Diagnostics& diags) {
    const std::size_t errors = diags.error_count();
    Graph g;
    g.name = model.name;
    g.profile = options.profile;
    Context c(model, g, options, diags);
    integer::Lowering l(model, c, diags);
    for (const std::string& name : model.inputs) l.input(name);
    if (diags.error_count() > errors) return std::nullopt;
    for (const Operation& op : model.operations) {
        if (diags.limit_reached() || diags.error_count() > errors) break;
        c.begin(op);
        try {
            const Legalization* f = find_legalization(op.name);
            if (integer::chain_step(l).has_value()) continue;  // a chain of element-wise operations (or it failed)
            if (f && f->lower_integer) f->lower_integer(l);
            else
                l.fail("it has no integer (PRO-INT) form in this lowering; the integer lowering covers conv, linear, "
                       "relu, matmul, clamp, add, sub, mul, div, pow by a number, min, max, "
                       "batch_normalization, max_pool, avg_pool, mean_reduce, sum_reduce, softmax, concat, split, pad, gather "
                       "at constant indices, the layout operations, the quantize fragments and element-wise "
                       "functions of one tensor (and chains of them without graph.quant entries) as TABLEs (lower the graph at PRO-FP for its floating-point form)");
        } catch (const std::exception& e) {
            c.error("unsupported-operation", "operation '" + op.name + "' cannot be lowered to TOSA at PRO-INT: " + e.what());
        }
    }
    if (diags.error_count() > errors) return std::nullopt;
    for (const std::string& name : model.outputs) {
        const ValueId v = l.output(name);
        if (v == no_value) return std::nullopt;
        add_graph_output(g, v, name);
    }
    return g;
}

}  // namespace nnef::tosa::from_nnef

namespace nnef::tosa {

std::optional<IntegerCodes> integer_codes(const nnef::Graph& model, const std::string& tensor) {
    using namespace from_nnef::integer;
    const Tensor* t = model.tensor(tensor);
    if (!t) return std::nullopt;
    std::optional<storage::QuantParams> p;
    if (t->quantization) {
        Result<storage::QuantParams> r = storage::quant_params(*t->quantization, tensor);
        if (!r) return std::nullopt;
        p = *r;
    }
    if (!p) p = tosa_from_nnef_integer_cpp::fragment_params(model, tensor, false);  // an output a quantize fragment computes
    if (!p) p = tosa_from_nnef_integer_cpp::fragment_params(model, tensor, true);   // an input a quantize fragment reads
    if (!p) return std::nullopt;
    if (p->algorithm == storage::QuantAlgorithm::logarithmic)
        return p->bits <= 8 && p->channels() == 1 ? std::optional<IntegerCodes>(IntegerCodes{*p, -128}) : std::nullopt;
    std::string why;
    std::int64_t offset = 0;
    if (!grid_of(*p, offset, why)) return std::nullopt;
    return IntegerCodes{*p, offset};
}

}  // namespace nnef::tosa
