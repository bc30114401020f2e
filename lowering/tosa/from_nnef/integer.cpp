// PRO-INT: a quantized graph (graph.quant entries, the quantize fragments) in integers. Every
// activation is a tensor of codes on the grid of its tensor's entry (i8; i16 for 9 to 16 bits; real =
// (code - zp - frac) * scale, frac the part of a min/max zero point between codes); weights are i8
// constants of their entry's codes, biases i32 at scale in_scale * w_scale; convolutions and matmuls
// accumulate in i32 and RESCALE to the result's grid; non-linear functions of one tensor are TABLEs;
// a result whose entry differs from the grid its operator gives is RESCALEd to it. This follows
// nnef-run's simulation (docs/exec.md): every tensor with an entry is rounded to its grid right after
// it is computed. Compile-time tensors (variables, constants and the layout operations on them) are
// computed in double with their entries applied, as nnef-run does, and only then become integer
// constants. docs/tosa-lowering.md describes each operation's form.
//
// The function takes and returns the codes (integer_codes() says how to make and read them).
// Operations without an integer form here are errors naming the operation and its line.
#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <set>
#include <optional>
#include <stdexcept>

#include <nnef/tensor_data.hpp>

#include "lowering/tosa/from_nnef/context.hpp"
#include "lowering/tosa/from_nnef/window.hpp"
#include "lowering/tosa/scale.hpp"
#include "storage/quantization.hpp"
#include "storage/random_data.hpp"

namespace nnef::tosa::from_nnef {

namespace tosa_from_nnef_integer_cpp {

// The grid of an i8 activation: real = (code - zp - frac) * scale, codes in [lo, hi]. frac (in [0, 1))
// is the part of a min/max grid's zero point between two codes (0.5 for min = -max).
// Grids of 9 to 16 bits are i16 with zero point 0 (TOSA's i16 zero points are 0): their whole zero
// point is then `frac`.
struct Grid {
    double scale = 1.0;
    std::int64_t zp = 0, lo = -128, hi = 127;
    double frac = 0.0;
    DType dtype = DType::i8;
    double real(std::int64_t code) const { return (double(code) - double(zp) - frac) * scale; }
    // The code of real value v (NNEF's round half up, saturated).
    std::int64_t code(double v) const {
        return std::clamp<std::int64_t>(std::int64_t(storage::round_half_up(v / scale + frac)) + zp, lo, hi);
    }
};

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

// A tensor known at compile time, in double (its entry applied).
struct Real {
    Shape shape;
    std::vector<double> items;
    std::optional<storage::QuantParams> params;  // its entry
};

// An i8 activation.
struct Act {
    ValueId v = no_value;
    Grid grid;
};

class Lowering {
public:
    Lowering(const nnef::Graph& model, Context& c, Diagnostics& diags) : model_(model), c_(c), diags_(diags) {}

    bool input(const std::string& name);
    bool operation(const Operation& op);
    ValueId output(const std::string& name);

private:
    const nnef::Graph& model_;
    Context& c_;
    Diagnostics& diags_;
    std::map<std::string, Real> reals_;
    std::map<std::string, Act> acts_;

    bool fail(const std::string& why) { return c_.refuse(why); }
    // The entry of a tensor, checked; nullopt without one (bad set after an error).
    std::optional<storage::QuantParams> params_of(const std::string& tensor, bool& bad);
    std::optional<Grid> entry_grid(const std::string& tensor, bool& bad);
    const Act* act(const std::string& tensor) const {
        auto it = acts_.find(tensor);
        return it == acts_.end() ? nullptr : &it->second;
    }
    const Real* real(const std::string& tensor) const {
        auto it = reals_.find(tensor);
        return it == reals_.end() ? nullptr : &it->second;
    }
    std::string arg_id(std::string_view name) const {
        const nnef::Value* v = c_.op().input(name);
        return v && v->is_identifier() ? v->as_identifier() : std::string();
    }
    // A real result: the entry of the result applied.
    bool bind_real(const std::string& name, Real r);
    // An activation result: RESCALEd to the result's entry if it has one.
    bool bind_act(const std::string& name, Act a);
    ValueId rescale(ValueId x, std::int64_t in_zp, double scale, std::int64_t out_zp, DType out);
    ValueId rescale(ValueId x, std::int64_t in_zp, const std::vector<double>& scales, std::int64_t out_zp, DType out);
    Act requantize(const Act& a, const Grid& to);
    ValueId clamp_to(ValueId v, const Grid& g);

    bool variable(const Operation& op);
    bool constant();
    bool layout(const Operation& op);
    bool quantize(const Operation& op);
    ValueId table(const Act& a, const std::function<double(double)>& code_of);
    bool unary(const std::function<double(double)>& f);
    std::set<std::string> logarithmic_;  // results of logarithmic_quantize (codes offset by -128)
    bool conv(bool linear);
    bool relu();
    bool pool(bool max);
    std::optional<bool> window_mean(const Act& x, const std::string& border);
    bool mean_reduce(bool mean);
    bool concat();
    bool add_sub(bool sub);
    bool mul();
    bool clamp();
    bool split();
    bool matmul();
    // A compile-time tensor as i8 codes: on its entry's grid when that is per tensor with an integer
    // zero point, else on a symmetric grid over its range.
    Act codes_of(const Real& r);
    bool pad();
    // An operand of a binary operation: its real items (a compile-time tensor) or activation.
    ValueId wide_operand(const std::string& id, double unit, double& offset);
};

std::optional<storage::QuantParams> Lowering::params_of(const std::string& tensor, bool& bad) {
    const Tensor* t = model_.tensor(tensor);
    if (!t || !t->quantization) return std::nullopt;
    Result<storage::QuantParams> p = storage::quant_params(*t->quantization, tensor);
    if (!p) {
        diags_.append(p.diagnostics);
        bad = true;
        return std::nullopt;
    }
    return *p;
}

std::optional<Grid> Lowering::entry_grid(const std::string& tensor, bool& bad) {
    const auto p = params_of(tensor, bad);
    if (!p) return std::nullopt;
    std::string why;
    std::int64_t offset = 0;
    auto g = grid_of(*p, offset, why);
    if (!g) {
        c_.refuse("the quantization of '" + tensor + "' (" + storage::to_string(p->algorithm) + ") has no i8 form: " + why);
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
    reals_[name] = std::move(r);
    return true;
}

ValueId Lowering::clamp_to(ValueId v, const Grid& g) {
    const std::int64_t full = g.dtype == DType::i16 ? 32768 : 128;
    if (g.lo <= -full && g.hi >= full - 1) return v;
    return c_.clamp(v, double(g.lo), double(g.hi));
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
    for (std::int64_t c = 0; c < n; ++c) {
        const double scale = scales[std::size_t(c)];
        const auto ms = scale32_multiplier(scale);
        if (!ms) throw std::runtime_error("the rescaling factor " + std::to_string(scale) + " is outside RESCALE's range");
        multipliers->mutable_items<std::int32_t>()[c] = ms->first;
        shifts->mutable_items<std::int8_t>()[c] = static_cast<std::int8_t>(ms->second);
    }
    const DType in_t = c_.type(x).dtype;
    const ValueId izp = c_.splat(in_t, {1}, in_t == DType::i8 ? double(in_zp) : 0.0);  // others: 0 (grid_of)
    const ValueId ozp = c_.splat(out, {1}, out == DType::i8 ? double(out_zp) : 0.0);
    return c_.add(OpKind::RESCALE, {x, c_.constant(std::move(multipliers)), c_.constant(std::move(shifts)), izp, ozp},
                  TensorType{out, c_.shape(x)},
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
    const ValueId moved = c_.binary(OpKind::ADD, wide, c_.scalar(DType::i32, storage::round_half_up(shift * k), c_.rank(wide)));
    r.v = clamp_to(rescale(moved, 0, m / k, to.zp, to.dtype), to);
    return r;
}

bool Lowering::bind_act(const std::string& name, Act a) {
    bool bad = false;
    const auto g = entry_grid(name, bad);
    if (bad) return false;
    if (g) a = requantize(a, *g);
    acts_[name] = a;
    c_.bind_tensor(name, a.v);
    return true;
}

bool Lowering::input(const std::string& name) {
    const Tensor* t = model_.tensor(name);
    bool bad = false;
    auto g = entry_grid(name, bad);
    if (bad) return false;
    if (!g)  // the grid of the quantize fragment that reads it, if one does
        if (const auto p = fragment_params(model_, name, true)) {
            std::string why;
            std::int64_t offset = 0;
            g = grid_of(*p, offset, why);
        }
    if (!t || !t->shape || !g) {
        diags_.error(Stage::tosa, "unsupported-operation",
                     "graph input '" + name +
                         "' has no graph.quant entry with an integer form, nor is it read by exactly one linear quantize "
                         "fragment (with literal parameters) and nothing else: at PRO-INT the function takes the integer "
                         "codes of each input's quantization");
        return false;
    }
    const ValueId v = c_.graph().add_value(TensorType{g->dtype, *t->shape}, name);
    c_.graph().main().inputs.push_back(v);
    acts_[name] = Act{v, *g};
    c_.bind_tensor(name, v);
    return true;
}

ValueId Lowering::output(const std::string& name) {
    const Act* a = act(name);
    bool bad = false;
    const auto g = entry_grid(name, bad);
    if (a && (logarithmic_.count(name) || fragment_params(model_, name, false))) return a->v;
    if (!a || !g) {
        diags_.error(Stage::tosa, "unsupported-operation",
                     "graph output '" + name +
                         (a ? "' has no graph.quant entry: at PRO-INT the function returns the int8 codes of each "
                              "output's quantization"
                            : "' is not an integer activation (a compile-time value or a result without an integer form)"));
        return no_value;
    }
    return a->v;
}

bool Lowering::variable(const Operation& op) {
    const Tensor& t = c_.result("output");
    if (c_.updated_variables().count(t.name)) return fail("variables that an update writes have no integer form here");
    Real r;
    r.shape = *t.shape;
    const std::uint64_t n = std::uint64_t(items_of(r.shape));
    r.items.resize(n);
    if (c_.options().random_weights) {
        std::vector<float> f(n);
        const std::string label = c_.string_attr("label");
        std::string key = label;
        for (char& ch : key) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
        storage::random_weights(f.data(), r.shape, storage::variable_seed(key, *c_.options().random_weights),
                                c_.positive_variables().count(t.name) > 0);
        std::copy(f.begin(), f.end(), r.items.begin());
    } else if (!t.data || !t.data->has_values()) {
        return c_.error("missing-weights", "variable '" + t.name + "' has no usable tensor data");
    } else if (storage::holds_codes(*t.data) && t.quantization) {
        // stored codes: their entry dequantizes them (no second rounding)
        bool bad = false;
        const auto p = params_of(t.name, bad);
        if (!p) return false;
        std::vector<std::int64_t> codes(n);
        for (std::uint64_t i = 0; i < n; ++i) codes[i] = t.data->as_int64(i);
        r.items = storage::dequantize(*p, r.shape, codes);
        r.params = p;
        reals_[t.name] = std::move(r);
        return true;
    } else {
        for (std::uint64_t i = 0; i < n; ++i) r.items[i] = t.data->as_double(i);
    }
    (void)op;
    return bind_real(t.name, std::move(r));
}

bool Lowering::constant() {
    const Tensor& t = c_.result("output");
    Real r;
    r.shape = *t.shape;
    const std::vector<double> items = c_.scalars_attr("value");
    const std::size_t n = std::size_t(items_of(r.shape));
    if (items.size() != 1 && items.size() != n) return fail("its value does not match its shape");
    r.items.resize(n);
    for (std::size_t i = 0; i < n; ++i) r.items[i] = items.size() == 1 ? items[0] : items[i];
    return bind_real(t.name, std::move(r));
}

// copy, reshape, squeeze, unsqueeze, transpose, slice: the same codes (compile-time items moved).
bool Lowering::layout(const Operation& op) {
    // the first argument and result (copy's are x and y)
    const std::string x = op.inputs.empty() || !op.inputs[0].second.is_identifier() ? std::string()
                                                                                    : op.inputs[0].second.as_identifier();
    const Tensor& out = c_.result(op.outputs.at(0).first);
    const Shape& os = *out.shape;
    Ints perm;
    if (op.name == "transpose") {
        perm = c_.ints_attr("axes");
        const Tensor* in = model_.tensor(x);
        for (std::size_t i = perm.size(); in && in->shape && i < in->shape->size(); ++i) perm.push_back(std::int64_t(i));
    }
    Ints start;
    if (op.name == "slice") {
        const Tensor* in = model_.tensor(x);
        if (!in || !in->shape) return fail("its input has no known shape");
        const Ints axes = c_.ints_attr("axes"), begin = c_.ints_attr("begin");
        const Ints stride = c_.ints_attr("stride");
        for (std::int64_t s : stride)
            if (s != 1) return fail("strided slices have no integer form here");
        start.assign(in->shape->size(), 0);
        for (std::size_t i = 0; i < axes.size() && i < begin.size(); ++i) {
            const std::size_t a = std::size_t(axes[i] < 0 ? axes[i] + std::int64_t(in->shape->size()) : axes[i]);
            const std::int64_t e = (*in->shape)[a];
            start[a] = std::clamp<std::int64_t>(begin[i] < 0 ? begin[i] + e : begin[i], 0, e);
        }
    }
    if (const Real* r = real(x)) {
        Real y;
        y.shape = os;
        if (op.name == "transpose" || op.name == "slice") {
            const Shape& is = r->shape;
            const std::size_t rank = is.size();
            std::vector<std::int64_t> istride(rank, 1);
            for (std::size_t i = rank; i-- > 1;) istride[i - 1] = istride[i] * is[i];
            y.items.resize(std::size_t(items_of(os)));
            std::vector<std::int64_t> idx(rank, 0);
            for (std::size_t k = 0; k < y.items.size(); ++k) {
                std::int64_t src = 0;
                for (std::size_t d = 0; d < rank; ++d)
                    src += op.name == "transpose" ? idx[d] * istride[std::size_t(perm[d])] : (idx[d] + start[d]) * istride[d];
                y.items[k] = r->items[std::size_t(src)];
                for (std::size_t d = rank; d-- > 0;)
                    if (++idx[d] < os[d]) break;
                    else idx[d] = 0;
            }
        } else {
            y.items = r->items;
        }
        return bind_real(out.name, std::move(y));
    }
    const Act* a = act(x);
    if (!a) return fail("its input is neither an integer activation nor known at compile time");
    Act y = *a;
    if (op.name == "transpose") y.v = c_.transpose(a->v, perm);
    else if (op.name == "slice") y.v = c_.slice(a->v, start, os);
    else y.v = c_.reshape(a->v, os);
    return bind_act(out.name, y);
}

// The quantize fragments on an activation: the linear ones RESCALE to the fragment's grid, the
// logarithmic one is a TABLE from the input's codes to the logarithmic codes (offset by -128; spec
// 5.2: the code holds the magnitude, so the input's reals must not be negative); on a compile-time
// tensor: computed.
bool Lowering::quantize(const Operation& op) {
    const std::string x = arg_id("x");
    const Tensor& out = c_.result("y");
    const auto p = fragment_params_of(op);
    if (!p) return fail("its parameters must be compile-time numbers (" + std::string(op.name) + " of '" + x + "')");
    if (const Real* r = real(x)) {
        Real y = *r;
        storage::fake_quantize(*p, y.shape, y.items.data(), y.items.data());
        return bind_real(out.name, std::move(y));
    }
    const Act* a = act(x);
    if (!a) return fail("its input is neither an integer activation nor known at compile time");
    if (p->algorithm == storage::QuantAlgorithm::logarithmic) {
        if (p->channels() != 1 || p->bits > 8 || a->grid.dtype != DType::i8)
            return fail("only per-tensor logarithmic codes of at most 8 bits of an i8 input are lowered");
        if (a->grid.real(a->grid.lo) < 0.0)
            return fail("logarithmic codes hold magnitudes only (spec 5.2), and the input '" + x + "' has negative values");
        const Act y{table(*a, [&](double v) { return double(p->quantize(v) - 128); }), Grid{}};
        acts_[out.name] = y;
        logarithmic_.insert(out.name);
        c_.bind_tensor(out.name, y.v);
        return true;
    }
    std::string why;
    std::int64_t offset = 0;
    const auto g = grid_of(*p, offset, why);
    if (!g) return fail(why);
    return bind_act(out.name, requantize(*a, *g));
}

// TABLE: code -> f(real(code)) as an i8 code.
ValueId Lowering::table(const Act& a, const std::function<double(double)>& code_of) {
    auto t = ConstData::allocate(TensorType{DType::i8, {256}});
    for (std::int64_t i = 0; i < 256; ++i) {
        const std::int64_t code = std::clamp<std::int64_t>(i - 128, a.grid.lo, a.grid.hi);
        t->mutable_items<std::int8_t>()[i] = static_cast<std::int8_t>(std::clamp(code_of(a.grid.real(code)), -128.0, 127.0));
    }
    return c_.add(OpKind::TABLE, {a.v, c_.constant(std::move(t))}, c_.type(a.v));
}

// An element-wise function of one activation: a TABLE to the result's grid (its entry needed).
bool Lowering::unary(const std::function<double(double)>& f) {
    const Act* x = act(arg_id("x"));
    if (!x) return fail("its input is not an integer activation");
    if (x->grid.dtype != DType::i8) return fail("TABLEs of i16 inputs are not lowered here (i8 only)");
    const Tensor& out = c_.result("y");
    bool bad = false;
    const auto og = entry_grid(out.name, bad);
    if (bad) return false;
    if (!og) return fail("its result '" + out.name + "' has no graph.quant entry, so no grid for its TABLE");
    if (og->dtype != DType::i8) return fail("TABLEs to i16 results are not lowered here (i8 only)");
    const Grid g = *og;
    Act y{table(*x, [&](double v) { return double(g.code(f(v))); }), g};
    acts_[out.name] = y;
    c_.bind_tensor(out.name, y.v);
    return true;
}

// conv / linear: i8 input and weights, i32 bias and accumulator, RESCALE to the result's grid.
bool Lowering::conv(bool linear) {
    const Act* x = act(arg_id("input"));
    if (!x) return fail("its input is not an integer activation");
    if (x->grid.dtype != DType::i8) return fail("convolutions of i16 inputs need EXT-INT16 (not lowered)");
    const Real* w = real(arg_id("filter"));
    if (!w) return fail("its filter is not known at compile time (weights must be constants for PRO-INT)");
    const Tensor& out = c_.result("output");
    bool bad = false;
    const auto og = entry_grid(out.name, bad);
    if (bad) return false;
    if (!og) return fail("its result '" + out.name + "' has no graph.quant entry, so no grid for the accumulator's RESCALE");
    const std::string border = linear ? "constant" : c_.string_attr("border", "constant");
    if (border != "constant") return fail("border '" + border + "' has no integer form here (TOSA pads with the zero point)");
    // the filter's codes: its entry's (per tensor, or per output channel with one zero point); for an
    // entry whose zero point falls between codes, half its scale when the codes fit i8, else (and
    // without an entry) a symmetric grid over each output channel's range (an approximation)
    const std::int64_t O = w->shape[0];
    const std::size_t per_o = w->items.size() / std::size_t(O);
    std::vector<double> ws(std::size_t(O), 0.0);
    std::int64_t wzp = 0;
    bool coded = false;
    if (w->params && w->params->channels() > 1) {
        const storage::QuantParams& p = *w->params;
        if (p.algorithm == storage::QuantAlgorithm::logarithmic || p.channel_axis() != 0 || std::int64_t(p.channels()) != O ||
            p.bits > 8)
            return fail("its filter's per-channel quantization is not along the output channels with linear 8-bit codes");
        coded = true;
        for (std::size_t o = 0; o < ws.size(); ++o) {
            const storage::Affine a = p.affine(o);
            const double zp = a.zero_point + (p.code_max() > 127 ? -128.0 : 0.0);
            coded = coded && zp == std::nearbyint(zp) && (o == 0 || std::int64_t(zp) == wzp);
            wzp = std::int64_t(std::nearbyint(zp));
            ws[o] = a.scale;
        }
        if (!coded) wzp = 0;
    } else if (w->params) {
        std::string why;
        std::int64_t offset = 0;
        const auto wg = grid_of(*w->params, offset, why);
        if (!wg) return fail("its filter's quantization has no i8 form: " + why);
        auto fits = [&](double scale) {
            for (double v : w->items) {
                const double q = v / scale;
                if (std::fabs(q - std::nearbyint(q)) > 1e-6 || std::fabs(q) > 127.0) return false;
            }
            return true;
        };
        if (wg->frac == 0.0) {
            std::fill(ws.begin(), ws.end(), wg->scale);
            wzp = wg->zp;
            coded = true;
        } else if (wg->frac == 0.5 && fits(wg->scale / 2)) {
            std::fill(ws.begin(), ws.end(), wg->scale / 2);
            coded = true;
        }
    }
    if (!coded)
        for (std::size_t i = 0; i < w->items.size(); ++i) ws[i / per_o] = std::max(ws[i / per_o], std::fabs(w->items[i]) / 127.0);
    for (double& v : ws)
        if (v == 0.0) v = 1.0;
    const bool per_channel = std::any_of(ws.begin(), ws.end(), [&](double v) { return v != ws[0]; });
    auto wc = ConstData::allocate(TensorType{DType::i8, w->shape});
    std::vector<double> wsum(std::size_t(O), 0.0);  // per output channel, of the weights as coded
    for (std::size_t i = 0; i < w->items.size(); ++i) {
        const double s = ws[i / per_o];
        const double code = std::clamp<double>(storage::round_half_up(w->items[i] / s) + double(wzp), -128.0, 127.0);
        wc->mutable_items<std::int8_t>()[i] = static_cast<std::int8_t>(code);
        wsum[i / per_o] += (code - double(wzp)) * s;
    }
    // bias: i32 at scale in_scale * w_scale (per output channel), with the input's and the result's
    // zero point fractions: real = bs * (acc - frac_x * sum(w codes)) + b; code = round(real / out_scale + frac_out) + zp
    std::vector<double> bs(static_cast<std::size_t>(O));
    for (std::size_t o = 0; o < bs.size(); ++o) bs[o] = x->grid.scale * ws[o];
    std::vector<double> b{0.0};
    if (c_.has_input("bias")) {
        const nnef::Value& bv = c_.argument("bias");
        if (bv.is_identifier()) {
            const Real* br = real(bv.as_identifier());
            if (!br) return fail("its bias is not known at compile time");
            b = br->items;
        } else if (bv.is_scalar()) {
            b = {bv.as_scalar()};
        }
    }
    if (b.size() != 1 && std::int64_t(b.size()) != O) return fail("its bias has neither 1 nor " + std::to_string(O) + " items");
    if ((x->grid.frac != 0.0 || per_channel) && b.size() == 1) b.assign(std::size_t(O), b[0]);
    // The input's fraction over the items a window reads: a per-channel constant in the bias, or, where
    // padding leaves some windows partly outside the input, a constant per output position.
    std::optional<ValueId> border_correction;
    if (x->grid.frac != 0.0 && !linear) {
        const Shape xs = c_.shape(x->v), os4 = *out.shape;
        const Window win = make_window(c_, xs, os4, Ints(w->shape.begin() + 2, w->shape.end()), 2);
        bool padded = false;
        for (const auto& [p, q] : win.padding) padded = padded || p != 0 || q != 0;
        if (padded) {
            if (xs.size() != 4) return fail("the zero point fraction of a padded 1-D convolution's input is not lowered");
            const std::int64_t OH = os4[2], OW = os4[3], IH = xs[2], IW = xs[3], KH = w->shape[2], KW = w->shape[3];
            const std::int64_t CI = w->shape[1];
            auto corr = ConstData::allocate(TensorType{DType::i32, {1, O, OH, OW}});
            for (std::int64_t o = 0; o < O; ++o)
                for (std::int64_t oy = 0; oy < OH; ++oy)
                    for (std::int64_t ox = 0; ox < OW; ++ox) {
                        double sum = 0.0;  // of the weights as coded over the window's items inside the input
                        for (std::int64_t ky = 0; ky < KH; ++ky) {
                            const std::int64_t iy = oy * win.stride[0] - win.padding[0].first + ky * win.dilation[0];
                            if (iy < 0 || iy >= IH) continue;
                            for (std::int64_t kx = 0; kx < KW; ++kx) {
                                const std::int64_t ix = ox * win.stride[1] - win.padding[1].first + kx * win.dilation[1];
                                if (ix < 0 || ix >= IW) continue;
                                for (std::int64_t ci = 0; ci < CI; ++ci) {
                                    const std::int64_t at = ((o * CI + ci) * KH + ky) * KW + kx;
                                    sum += double(wc->items<std::int8_t>()[at]) - double(wzp);
                                }
                            }
                        }
                        corr->mutable_items<std::int32_t>()[(o * OH + oy) * OW + ox] =
                            static_cast<std::int32_t>(storage::round_half_up(-x->grid.frac * sum));
                    }
            border_correction = c_.constant(std::move(corr));
            std::fill(wsum.begin(), wsum.end(), 0.0);  // not in the bias
        }
    }
    auto bc = ConstData::allocate(TensorType{DType::i32, {std::int64_t(b.size())}});
    for (std::size_t i = 0; i < b.size(); ++i) {
        const double real_bias = b[i] - (b.size() > 1 ? x->grid.frac * x->grid.scale * wsum[i] : 0.0);
        const double q = storage::round_half_up(real_bias / bs[i] + og->frac * og->scale / bs[i]);
        if (std::fabs(q) > 2147483647.0) return fail("its bias does not fit i32 at scale " + std::to_string(bs[i]));
        bc->mutable_items<std::int32_t>()[i] = static_cast<std::int32_t>(q);
    }
    ConvZeroPoints zp;
    zp.input = c_.splat(DType::i8, {1}, double(x->grid.zp));
    zp.weight = c_.splat(DType::i8, {1}, double(wzp));
    ValueId xv = x->v;
    ValueId filter = c_.constant(std::move(wc));
    Shape os = *out.shape;
    if (linear) {
        const Shape xs = c_.shape(xv);
        if (xs.size() != 2 || w->shape.size() != 2) return fail("linear needs a rank-2 input and filter");
        xv = c_.reshape(xv, {xs[0], xs[1], 1, 1});
        filter = c_.reshape(filter, {w->shape[0], w->shape[1], 1, 1});
        os = {os[0], os[1], 1, 1};
    }
    const auto acc = conv_nchw(c_, xv, filter, c_.constant(std::move(bc)), os, border,
                               linear ? 1 : c_.int_attr("groups", 1), &zp);
    if (!acc) return false;
    Act y;
    y.grid = *og;
    std::vector<double> scales;
    for (double v : bs) scales.push_back(v / og->scale);
    if (!per_channel) scales.resize(1);
    ValueId a = c_.reshape(*acc, *out.shape);
    if (border_correction) a = c_.binary(OpKind::ADD, a, *border_correction);
    if (per_channel) {  // the channels last for a per-channel RESCALE (the transposes cancel with the conv's)
        const ValueId last = c_.to_channels_last(a);
        y.v = c_.to_channels_first(rescale(last, 0, scales, og->zp, og->dtype));
    } else {
        y.v = rescale(a, 0, scales, og->zp, og->dtype);  // frac in the bias
    }
    y.v = clamp_to(y.v, *og);
    acts_[out.name] = y;
    c_.bind_tensor(out.name, y.v);
    return true;
}

// relu: with a result entry, RESCALE to its grid, then CLAMP at the code of 0 (RESCALE is monotone
// and maps the reals below 0 at or below it); else CLAMP at the input's zero point.
bool Lowering::relu() {
    const Act* x = act(arg_id("x"));
    if (!x) return fail("its input is not an integer activation");
    const std::string name = c_.result("y").name;
    bool bad = false;
    const auto og = entry_grid(name, bad);
    if (bad) return false;
    if (!og && x->grid.frac != 0.0) return fail("its input's grid has no code for 0 and its result '" + name + "' no graph.quant entry");
    Act y = og ? requantize(*x, *og) : *x;
    const std::int64_t zero = y.grid.code(0.0);
    if (zero > y.grid.lo) y.v = c_.clamp(y.v, double(zero), double(y.grid.hi));
    acts_[name] = y;
    c_.bind_tensor(name, y.v);
    return true;
}

// max_pool on the codes; avg_pool as window_mean, or else ('ignore' border: the mean of the input
// items) with AVG_POOL2D, whose zero points may stay 0 (the integer zero point commutes with the
// rounded mean), then a RESCALE to the result's grid (two roundings).
bool Lowering::pool(bool max) {
    const Act* x = act(arg_id("input"));
    if (!x) return fail("its input is not an integer activation");
    const std::string border = c_.string_attr("border", "constant");
    if (!max)
        if (const auto y = window_mean(*x, border)) return *y;
    bool padded = false;
    for (const auto& [p, q] : c_.pairs_attr("padding")) padded = padded || p != 0 || q != 0;
    if (c_.pairs_attr("padding").empty()) padded = true;  // automatic padding may pad
    if (padded && border != "ignore" && !(max && border == "constant" && x->grid.zp <= x->grid.lo))
        return fail("border '" + border + "' has no integer form here (use 'ignore')");
    const Tensor& out = c_.result("output");
    const auto y = pool_nchw(c_, x->v, max, *out.shape, max ? "ignore" : border, c_.ints_attr("size"));
    if (!y) return false;
    return bind_act(out.name, Act{*y, x->grid});
}

// avg_pool of rank 4 whose padding TOSA can take as it is: the window sums (code - zp) in i32 by a
// DEPTHWISE_CONV2D with a filter of ones (padding contributes 0), then one RESCALE to the result's
// grid: by 1 / (window volume) for 'constant' (padding counted) or without padding; for 'ignore'
// with padding, a MUL by round(2^22 / items inside) per output position first. Zero point
// fractions are added at that resolution. nullopt: not this form (the caller's AVG_POOL2D then).
std::optional<bool> Lowering::window_mean(const Act& x, const std::string& border) {
    const Tensor& out = c_.result("output");
    const Shape xs = c_.shape(x.v), os = *out.shape;
    if (xs.size() != 4 || x.grid.dtype != DType::i8 || (border != "constant" && border != "ignore")) return std::nullopt;
    const Window w = make_window(c_, xs, os, c_.ints_attr("size"), 0);
    for (std::size_t k = 0; k < 4; ++k) {
        if (w.dilation[k] != 1) return std::nullopt;
        if (k < 2 && (w.size[k] != 1 || w.stride[k] != 1 || w.padding[k] != std::pair<std::int64_t, std::int64_t>(0, 0)))
            return std::nullopt;
        if (k >= 2 && (w.padding[k].first < 0 || w.padding[k].second < 0 ||
                       (xs[k] + w.padding[k].first + w.padding[k].second - w.size[k]) != (os[k] - 1) * w.stride[k]))
            return std::nullopt;
    }
    bool bad = false;
    const auto og = entry_grid(out.name, bad);
    if (bad) return false;
    const Grid g = og ? *og : x.grid;
    const std::int64_t C = xs[1], KH = w.size[2], KW = w.size[3], OH = os[2], OW = os[3];
    const bool padded = w.padding[2] != std::pair<std::int64_t, std::int64_t>(0, 0) ||
                        w.padding[3] != std::pair<std::int64_t, std::int64_t>(0, 0);
    const bool uniform = !padded || border == "constant";
    const double volume = double(KH * KW);
    // sums of (code - zp) over each window, NHWC
    auto ones = ConstData::allocate(TensorType{DType::i8, {KH, KW, C, 1}});
    std::fill(ones->mutable_items<std::int8_t>(), ones->mutable_items<std::int8_t>() + KH * KW * C, std::int8_t(1));
    const Ints pad{w.padding[2].first, w.padding[2].second, w.padding[3].first, w.padding[3].second};
    ValueId sum = c_.add(OpKind::DEPTHWISE_CONV2D,
                         {c_.to_channels_last(x.v), c_.constant(std::move(ones)), c_.splat(DType::i32, {1}, 0.0),
                          c_.splat(DType::i8, {1}, double(x.grid.zp)), c_.splat(DType::i8, {1}, 0.0)},
                         TensorType{DType::i32, {os[0], OH, OW, C}},
                         {{AttrName::pad, pad},
                          {AttrName::stride, Ints{w.stride[2], w.stride[3]}},
                          {AttrName::dilation, Ints{1, 1}},
                          {AttrName::acc_type, AccType::INT32}});
    // code = round((sum - frac_in * inside) / divisor * m + frac_out) + zp with m = scale_in / scale_out,
    // inside: the window's items within the input, divisor: the window volume ('constant') or inside
    const double m = x.grid.scale / g.scale;
    double unit;  // of the value RESCALEd, in input codes
    if (uniform && x.grid.frac == 0.0 && g.frac == 0.0) {
        unit = 1.0 / volume;
    } else {
        const double k = std::ldexp(1.0, 22);
        if ((255.0 + std::fabs(g.frac / m) + 1.0) * k >= std::ldexp(1.0, 31)) return std::nullopt;
        auto factor = ConstData::allocate(TensorType{DType::i32, {1, OH, OW, 1}});
        auto offset = ConstData::allocate(TensorType{DType::i32, {1, OH, OW, 1}});
        for (std::int64_t oy = 0; oy < OH; ++oy)
            for (std::int64_t ox = 0; ox < OW; ++ox) {
                const std::int64_t y0 = oy * w.stride[2] - w.padding[2].first, x0 = ox * w.stride[3] - w.padding[3].first;
                const double inside = double((std::min(y0 + KH, xs[2]) - std::max<std::int64_t>(y0, 0)) *
                                             (std::min(x0 + KW, xs[3]) - std::max<std::int64_t>(x0, 0)));
                const double divisor = uniform ? volume : inside;
                factor->mutable_items<std::int32_t>()[oy * OW + ox] = static_cast<std::int32_t>(storage::round_half_up(k / divisor));
                offset->mutable_items<std::int32_t>()[oy * OW + ox] = static_cast<std::int32_t>(
                    storage::round_half_up(k * (-x.grid.frac * inside / divisor + g.frac / m)));
            }
        sum = c_.binary(OpKind::ADD, c_.mul(sum, c_.constant(std::move(factor))), c_.constant(std::move(offset)));
        unit = 1.0 / k;
    }
    Act y;
    y.grid = g;
    y.v = c_.reshape(c_.to_channels_first(clamp_to(rescale(sum, 0, unit * m, g.zp, g.dtype), g)), os);
    acts_[out.name] = y;
    c_.bind_tensor(out.name, y.v);
    return true;
}

// mean_reduce / sum_reduce: the codes minus the zero point summed in i32, one RESCALE to the
// result's grid (a single rounding, as the simulation's).
bool Lowering::mean_reduce(bool mean) {
    const Act* x = act(arg_id("input"));
    if (!x) return fail("its input is not an integer activation");
    const Tensor& out = c_.result("output");
    Ints axes = c_.ints_attr("axes");
    const Shape& is = c_.shape(x->v);
    std::int64_t count = 1;
    for (std::int64_t& a : axes) {
        if (a < 0) a += std::int64_t(is.size());
        count *= is[std::size_t(a)];
    }
    if (count >= (std::int64_t(1) << 23)) return fail("it reduces too many items for an i32 sum");
    bool bad = false;
    const auto og = entry_grid(out.name, bad);
    if (bad) return false;
    const Grid g = og ? *og : x->grid;
    if (!og && mean && count > 1) return fail("its result '" + out.name + "' has no graph.quant entry");
    if (x->grid.dtype != DType::i8) return fail("reductions of i16 inputs are not lowered here");
    // code = round(m * (sum - frac_in * count) + frac_out) + zp = round(m * (sum + shift)) + zp, with the
    // sum at k times the resolution when there is a fraction to add
    const double scale = x->grid.scale / g.scale / (mean ? double(count) : 1.0);
    const double shift = -x->grid.frac * double(count) + g.frac / scale;
    const double k = shift == 0.0 ? 1.0 : std::ldexp(1.0, std::min(16, int(std::floor(std::log2(std::ldexp(1.0, 29) / (double(count) * 256.0 + std::fabs(shift)))))));
    if (k < 1.0) return fail("it reduces too many items for an i32 sum");
    const ValueId wide = rescale(x->v, x->grid.zp, k, 0, DType::i32);
    ValueId sum = c_.reduce(OpKind::REDUCE_SUM, wide, axes);
    if (shift != 0.0) sum = c_.binary(OpKind::ADD, sum, c_.scalar(DType::i32, storage::round_half_up(shift * k), c_.rank(sum)));
    Act y;
    y.grid = g;
    y.v = clamp_to(rescale(c_.reshape(sum, *out.shape), 0, scale / k, g.zp, g.dtype), g);
    acts_[out.name] = y;
    c_.bind_tensor(out.name, y.v);
    return true;
}

// An operand of add/sub as i32 in units `unit` (finer than its grid): RESCALE of (code - zp) by
// scale / unit, its zero point fraction into `offset` (in units); a compile-time tensor as an i32
// constant of its items in units. no_value when it is neither.
ValueId Lowering::wide_operand(const std::string& id, double unit, double& offset) {
    if (const Act* a = act(id)) {
        if (a->grid.dtype != DType::i8) return no_value;
        offset -= a->grid.frac * a->grid.scale / unit;
        return rescale(a->v, a->grid.zp, a->grid.scale / unit, 0, DType::i32);
    }
    if (const Real* r = real(id)) {
        auto c = ConstData::allocate(TensorType{DType::i32, r->shape});
        for (std::size_t i = 0; i < r->items.size(); ++i) {
            const double q = storage::round_half_up(r->items[i] / unit);
            if (std::fabs(q) > double(1 << 30)) return no_value;
            c->mutable_items<std::int32_t>()[i] = static_cast<std::int32_t>(q);
        }
        return c_.constant(std::move(c));
    }
    return no_value;
}

// add / sub: both operands RESCALEd to i32 on a common grid 2^19 times finer than the coarser one
// (the specification's pattern, 1.12.1 and 1.12.4), ADD/SUB in i32, one RESCALE to
// the result's grid (its entry needed).
bool Lowering::add_sub(bool sub) {
    const std::string x = arg_id("x"), y = arg_id("y");
    const Tensor& out = c_.result("z");
    bool bad = false;
    const auto og = entry_grid(out.name, bad);
    if (bad) return false;
    if (!og) return fail("its result '" + out.name + "' has no graph.quant entry");
    double coarse = 0.0;
    for (const std::string& id : {x, y})
        if (const Act* a = act(id)) coarse = std::max(coarse, a->grid.scale);
    if (coarse == 0.0) return fail("neither operand is an integer activation");
    const double unit = coarse / double(1 << 19);
    double offset = og->frac * og->scale / unit;
    const ValueId a = wide_operand(x, unit, offset);
    double offset_b = 0.0;
    const ValueId b = wide_operand(y, unit, offset_b);
    if (a == no_value || b == no_value) return fail("its operands must be i8 activations or compile-time tensors (literals are not lowered)");
    offset += sub ? -offset_b : offset_b;
    ValueId sum = c_.binary(sub ? OpKind::SUB : OpKind::ADD, a, b);
    if (storage::round_half_up(offset) != 0.0)
        sum = c_.binary(OpKind::ADD, sum, c_.scalar(DType::i32, storage::round_half_up(offset), c_.rank(sum)));
    Act r;
    r.grid = *og;
    r.v = clamp_to(rescale(c_.reshape(sum, *out.shape), 0, unit / og->scale, og->zp, og->dtype), *og);
    acts_[out.name] = r;
    c_.bind_tensor(out.name, r.v);
    return true;
}

// mul of two activations: (code - zp) products in i32, one RESCALE by scale_x * scale_y / scale_z.
bool Lowering::mul() {
    const Act* a = act(arg_id("x"));
    const Act* b = act(arg_id("y"));
    const Tensor& out = c_.result("z");
    if (!a || !b || a->grid.dtype != DType::i8 || b->grid.dtype != DType::i8)
        return fail("only the product of two i8 activations is lowered");
    if (a->grid.frac != 0.0 || b->grid.frac != 0.0) return fail("grids whose zero point falls between codes are not lowered here");
    bool bad = false;
    const auto og = entry_grid(out.name, bad);
    if (bad) return false;
    if (!og) return fail("its result '" + out.name + "' has no graph.quant entry");
    const ValueId p = c_.mul(rescale(a->v, a->grid.zp, 1.0, 0, DType::i32), rescale(b->v, b->grid.zp, 1.0, 0, DType::i32));
    const double unit = a->grid.scale * b->grid.scale;
    ValueId q = c_.reshape(p, *out.shape);
    const double offset = storage::round_half_up(og->frac * og->scale / unit);
    if (offset != 0.0) q = c_.binary(OpKind::ADD, q, c_.scalar(DType::i32, offset, c_.rank(q)));
    Act r;
    r.grid = *og;
    r.v = clamp_to(rescale(q, 0, unit / og->scale, og->zp, og->dtype), *og);
    acts_[out.name] = r;
    c_.bind_tensor(out.name, r.v);
    return true;
}

// clamp with literal bounds: RESCALE to the result's grid (if any), CLAMP at the codes of the bounds.
bool Lowering::clamp() {
    const Act* x = act(arg_id("x"));
    if (!x) return fail("its input is not an integer activation");
    const nnef::Value& lo = c_.argument("a");
    const nnef::Value& hi = c_.argument("b");
    auto number = [](const nnef::Value& v) -> std::optional<double> {
        if (v.is_scalar()) return v.as_scalar();
        if (v.is_integer()) return double(v.as_integer());
        return std::nullopt;
    };
    const auto a = number(lo), b = number(hi);
    if (!a || !b) return fail("only clamp with literal bounds is lowered");
    const std::string name = c_.result("y").name;
    bool bad = false;
    const auto og = entry_grid(name, bad);
    if (bad) return false;
    Act y = og ? requantize(*x, *og) : *x;
    // monotone: the codes of the bounds on the result's grid bound the codes
    const std::int64_t l = std::isinf(*a) ? y.grid.lo : y.grid.code(*a), h = std::isinf(*b) ? y.grid.hi : y.grid.code(*b);
    if (l > y.grid.lo || h < y.grid.hi) y.v = c_.clamp(y.v, double(std::max(l, y.grid.lo)), double(std::min(h, y.grid.hi)));
    acts_[name] = y;
    c_.bind_tensor(name, y.v);
    return true;
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
    auto c = ConstData::allocate(TensorType{DType::i8, r.shape});
    for (std::size_t i = 0; i < r.items.size(); ++i) c->mutable_items<std::int8_t>()[i] = static_cast<std::int8_t>(g.code(r.items[i]));
    return Act{c_.constant(std::move(c)), g};
}

// matmul: MATMUL of i8 codes with their zero points (a compile-time operand as codes), i32, one
// RESCALE by scale_a * scale_b / scale_c.
bool Lowering::matmul() {
    const std::string ids[2] = {arg_id("A"), arg_id("B")};
    Act ops[2];
    for (int k = 0; k < 2; ++k) {
        if (const Act* a = act(ids[k])) ops[k] = *a;
        else if (const Real* r = real(ids[k])) ops[k] = codes_of(*r);
        else return fail("its operands must be activations or compile-time tensors");
        if (ops[k].grid.dtype != DType::i8 || ops[k].grid.frac != 0.0)
            return fail("its operand '" + ids[k] + "' is not on an i8 grid with an integer zero point");
    }
    const Tensor& out = c_.result("C");
    bool bad = false;
    const auto og = entry_grid(out.name, bad);
    if (bad) return false;
    if (!og) return fail("its result '" + out.name + "' has no graph.quant entry");
    const double unit = ops[0].grid.scale * ops[1].grid.scale;
    ValueId acc = matmul_value(c_, ops[0].v, ops[1].v, c_.logical_attr("transposeA"), c_.logical_attr("transposeB"),
                               *out.shape, c_.splat(DType::i8, {1}, double(ops[0].grid.zp)),
                               c_.splat(DType::i8, {1}, double(ops[1].grid.zp)));
    const double offset = storage::round_half_up(og->frac * og->scale / unit);
    if (offset != 0.0) acc = c_.binary(OpKind::ADD, acc, c_.scalar(DType::i32, offset, c_.rank(acc)));
    Act y{clamp_to(rescale(acc, 0, unit / og->scale, og->zp, og->dtype), *og), *og};
    acts_[out.name] = y;
    c_.bind_tensor(out.name, y.v);
    return true;
}

// split: slices of the codes (each result RESCALEd to its entry if it has another grid).
bool Lowering::split() {
    const Act* x = act(arg_id("value"));
    if (!x) return fail("its input is not an integer activation");
    std::int64_t axis = c_.int_attr("axis");
    if (axis < 0) axis += std::int64_t(c_.rank(x->v));
    std::int64_t begin = 0;
    for (std::size_t i = 0; i < c_.result_count("values"); ++i) {
        const Tensor& t = c_.result("values", i);
        const std::int64_t end = begin + (*t.shape)[std::size_t(axis)];
        if (!bind_act(t.name, Act{c_.slice_axis(x->v, std::size_t(axis), begin, end), x->grid})) return false;
        begin = end;
    }
    return true;
}

// pad: every border mode on the codes ('constant': the code of the value on the input's grid).
bool Lowering::pad() {
    const Act* x = act(arg_id("input"));
    if (!x) return fail("its input is not an integer activation");
    const std::string border = c_.string_attr("border", "constant");
    if (border == "ignore") return fail("border 'ignore' is not defined for pad");
    const double value = c_.scalar_attr("value", 0.0);
    const std::int64_t code = x->grid.code(value);
    if (border == "constant" && std::fabs(x->grid.real(code) - value) > 1e-9 * x->grid.scale)
        return fail("its value " + std::to_string(value) + " is not on its input's grid");
    const Pairs padding = c_.pairs_attr("padding");
    ValueId v = x->v;
    for (std::size_t i = 0; i < padding.size(); ++i)
        v = c_.pad_border(v, i, padding[i].first, padding[i].second, border, double(code));
    return bind_act(c_.result("output").name, Act{v, x->grid});
}

// concat: every input RESCALEd to the result's grid (or their common grid).
bool Lowering::concat() {
    const nnef::Value& vs = c_.argument("values");
    std::vector<const Act*> in;
    for (const nnef::Value& v : vs.items()) {
        const Act* a = v.is_identifier() ? act(v.as_identifier()) : nullptr;
        if (!a) return fail("an input is not an integer activation");
        in.push_back(a);
    }
    const Tensor& out = c_.result("value");
    bool bad = false;
    auto og = entry_grid(out.name, bad);
    if (bad) return false;
    if (!og) {
        for (const Act* a : in)
            if (!same_grid(a->grid, in[0]->grid))
                return fail("its inputs have different grids and its result '" + out.name + "' has no graph.quant entry");
        og = in[0]->grid;
    }
    std::vector<ValueId> parts;
    for (const Act* a : in) parts.push_back(requantize(*a, *og).v);
    std::int64_t axis = c_.int_attr("axis");
    if (axis < 0) axis += std::int64_t(out.shape->size());
    Act y{c_.concat(parts, axis), *og};
    acts_[out.name] = y;
    c_.bind_tensor(out.name, y.v);
    return true;
}

bool Lowering::operation(const Operation& op) {
    const std::string& n = op.name;
    if (n == "external") return true;  // made with the inputs
    if (n == "variable") return variable(op);
    if (n == "constant") return constant();
    if (n == "copy" || n == "reshape" || n == "squeeze" || n == "unsqueeze" || n == "transpose" || n == "slice")
        return layout(op);
    if (n == "linear_quantize" || n == "min_max_linear_quantize" || n == "zero_point_linear_quantize" ||
        n == "logarithmic_quantize")
        return quantize(op);
    if (n == "conv") return conv(false);
    if (n == "linear") return conv(true);
    if (n == "relu") return relu();
    if (n == "max_pool") return pool(true);
    if (n == "avg_pool") return pool(false);
    if (n == "mean_reduce") return mean_reduce(true);
    if (n == "sum_reduce") return mean_reduce(false);
    if (n == "concat") return concat();
    if (n == "add" || n == "sub") return add_sub(n == "sub");
    if (n == "mul") return mul();
    if (n == "clamp") return clamp();
    if (n == "split") return split();
    if (n == "matmul") return matmul();
    if (n == "pad") return pad();
    // element-wise functions of one activation: TABLEs
    auto sigmoid = [](double v) { return 1.0 / (1.0 + std::exp(-v)); };
    const double alpha = c_.scalar_attr("alpha", n == "selu" ? 1.67326319 : n == "leaky_relu" ? 0.0 : 1.0);
    auto elu = [alpha](double v) { return v < 0.0 ? alpha * (std::exp(v) - 1.0) : v; };
    const std::map<std::string, std::function<double(double)>> functions{
        {"sigmoid", sigmoid},
        {"tanh", [](double v) { return std::tanh(v); }},
        {"exp", [](double v) { return std::exp(v); }},
        {"log", [](double v) { return std::log(v); }},
        {"sqrt", [](double v) { return std::sqrt(v); }},
        {"rsqrt", [](double v) { return 1.0 / std::sqrt(v); }},
        {"abs", [](double v) { return std::fabs(v); }},
        {"neg", [](double v) { return -v; }},
        {"sin", [](double v) { return std::sin(v); }},
        {"cos", [](double v) { return std::cos(v); }},
        {"leaky_relu", [alpha](double v) { return v < 0.0 ? alpha * v : v; }},
        {"elu", elu},
        {"selu", [elu, this](double v) { return elu(v) * c_.scalar_attr("lambda", 1.05070102); }},
        {"gelu", [sigmoid](double v) { return v * sigmoid(1.702 * v); }},
        {"silu", [sigmoid](double v) { return v * sigmoid(v); }},
        {"softplus", [](double v) { return std::log(std::exp(v) + 1.0); }},
    };
    if (auto f = functions.find(n); f != functions.end()) return unary(f->second);
    return fail("it has no integer (PRO-INT) form in this lowering; the integer lowering covers conv, linear, relu, "
                "matmul, clamp, add, sub, mul, max_pool, avg_pool, mean_reduce, sum_reduce, concat, split, pad, the layout operations, the "
                "quantize fragments "
                "and element-wise functions of one tensor as TABLEs (lower the graph at PRO-FP for its floating-point "
                "form)");
}

}  // namespace tosa_from_nnef_integer_cpp

bool is_quantized(const nnef::Graph& model) {
    for (const Tensor& t : model.tensors)
        if (t.quantization) return true;
    for (const Operation& op : model.operations)
        if (storage::quant_algorithm(op.name)) return true;
    return false;
}

std::optional<Graph> legalize_integer(const nnef::Graph& model, const LowerOptions& options, Diagnostics& diags) {
    using namespace tosa_from_nnef_integer_cpp;
    const std::size_t errors = diags.error_count();
    Graph g;
    g.name = model.name;
    g.profile = options.profile;
    Context c(model, g, options, diags);
    Lowering l(model, c, diags);
    for (const std::string& name : model.inputs) l.input(name);
    if (diags.error_count() > errors) return std::nullopt;
    for (const Operation& op : model.operations) {
        if (diags.limit_reached() || diags.error_count() > errors) break;
        c.begin(op);
        try {
            l.operation(op);
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
    using namespace from_nnef::tosa_from_nnef_integer_cpp;
    const Tensor* t = model.tensor(tensor);
    if (!t) return std::nullopt;
    std::optional<storage::QuantParams> p;
    if (t->quantization) {
        Result<storage::QuantParams> r = storage::quant_params(*t->quantization, tensor);
        if (!r) return std::nullopt;
        p = *r;
    }
    if (!p) p = fragment_params(model, tensor, false);  // an output a quantize fragment computes
    if (!p) p = fragment_params(model, tensor, true);   // an input a quantize fragment reads
    if (!p) return std::nullopt;
    if (p->algorithm == storage::QuantAlgorithm::logarithmic)
        return p->bits <= 8 && p->channels() == 1 ? std::optional<IntegerCodes>(IntegerCodes{*p, -128}) : std::nullopt;
    std::string why;
    std::int64_t offset = 0;
    if (!grid_of(*p, offset, why)) return std::nullopt;
    return IntegerCodes{*p, offset};
}

}  // namespace nnef::tosa
