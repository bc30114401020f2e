// Element-wise operations (NNEF spec 4.2 and the later revisions' unary functions): one TOSA
// operator where TOSA has it, otherwise a short composition of TOSA operators that computes the
// NNEF formula. Broadcasting follows NNEF (leading dimensions aligned; Context::binary).
#include <cmath>
#include <functional>
#include <limits>

#include "lowering/tosa/from_nnef/context.hpp"
#include "lowering/tosa/from_nnef/integer.hpp"

namespace nnef::tosa::from_nnef {

ValueId one_like(Context& c, ValueId like, double v) { return c.scalar(c.type(like).dtype, v, c.rank(like)); }

ValueId sign(Context& c, ValueId x) {
    // 1 where x > 0, -1 where x < 0, x itself elsewhere (0, -0 and NaN)
    const ValueId pos = c.compare(OpKind::GREATER, x, one_like(c, x, 0.0));
    const ValueId neg = c.compare(OpKind::GREATER, one_like(c, x, 0.0), x);
    return c.select(pos, one_like(c, x, 1.0), c.select(neg, one_like(c, x, -1.0), x));
}

ValueId round_half_up(Context& c, ValueId x) {
    // spec 4.2.1: floor(x + 0.5)
    return c.unary(OpKind::FLOOR, c.binary(OpKind::ADD, x, one_like(c, x, 0.5)));
}

namespace tosa_from_nnef_elementwise_cpp {

using Unary = std::function<ValueId(Context&, ValueId)>;
using Binary = std::function<ValueId(Context&, ValueId, ValueId)>;

// y = f(x)
std::function<bool(Context&)> unary(Unary f) {
    return [f](Context& c) { return c.bind("y", f(c, c.input("x"))); };
}
// z = f(x, y)
std::function<bool(Context&)> binary(Binary f) {
    return [f](Context& c) {
        const std::size_t r = c.result_type("z").rank();
        return c.bind("z", f(c, c.input("x", r), c.input("y", r)));
    };
}

ValueId one(Context& c, ValueId like, double v) { return c.scalar(c.type(like).dtype, v, c.rank(like)); }

ValueId pow_const(Context& c, ValueId x, double e) { return c.binary(OpKind::POW, x, one(c, x, e)); }

// Functions without a TOSA operator, from exp and log (NNEF's formulas of the later revisions).
ValueId tan(Context& c, ValueId x) { return c.div(c.unary(OpKind::SIN, x), c.unary(OpKind::COS, x)); }
ValueId sinh(Context& c, ValueId x) {
    const ValueId e = c.unary(OpKind::EXP, x), f = c.unary(OpKind::EXP, c.negate(x));
    return c.mul(c.binary(OpKind::SUB, e, f), one(c, x, 0.5));
}
ValueId cosh(Context& c, ValueId x) {
    const ValueId e = c.unary(OpKind::EXP, x), f = c.unary(OpKind::EXP, c.negate(x));
    return c.mul(c.binary(OpKind::ADD, e, f), one(c, x, 0.5));
}
ValueId asinh(Context& c, ValueId x) {
    // sign(x) * log(|x| + sqrt(x^2 + 1)), exact in sign for large negative x
    const ValueId a = c.unary(OpKind::ABS, x);
    const ValueId r = pow_const(c, c.binary(OpKind::ADD, c.mul(a, a), one(c, x, 1.0)), 0.5);
    return c.mul(sign(c, x), c.unary(OpKind::LOG, c.binary(OpKind::ADD, a, r)));
}
ValueId acosh(Context& c, ValueId x) {
    // log(x + sqrt(x^2 - 1))
    const ValueId r = pow_const(c, c.binary(OpKind::SUB, c.mul(x, x), one(c, x, 1.0)), 0.5);
    return c.unary(OpKind::LOG, c.binary(OpKind::ADD, x, r));
}
ValueId atanh(Context& c, ValueId x) {
    // 0.5 * log((1 + x) / (1 - x))
    const ValueId p = c.binary(OpKind::ADD, one(c, x, 1.0), x), m = c.binary(OpKind::SUB, one(c, x, 1.0), x);
    return c.mul(c.unary(OpKind::LOG, c.div(p, m)), one(c, x, 0.5));
}

bool copy(Context& c) { return c.bind("y", c.input("x")); }

bool select_op(Context& c) {
    const std::size_t r = c.result_type("output").rank();
    return c.bind("output", c.select(c.input("condition", r), c.input("true_value", r), c.input("false_value", r)));
}

bool clamp(Context& c) {
    const std::size_t r = c.result_type("y").rank();
    const ValueId x = c.input("x", r);
    // y = max(min(x, b), a), with NNEF's NaN rule (a NaN x gives b: CLAMP would give a)
    return c.bind("y", c.nnef_max(c.nnef_min(x, c.input("b", r)), c.input("a", r)));
}

bool cast(Context& c) {
    const ValueId x = c.input("input");
    const TensorType out = c.result_type("output");
    const DType from = c.type(x).dtype;
    ValueId y = x;
    if (from == out.dtype) {
        y = x;
    } else if (out.dtype == DType::bool_) {
        y = c.unary(OpKind::LOGICAL_NOT, c.compare(OpKind::EQUAL, x, one(c, x, 0.0)));
    } else if (from == DType::bool_) {
        y = c.select(x, c.scalar(out.dtype, 1.0, c.rank(x)), c.scalar(out.dtype, 0.0, c.rank(x)));
    } else if (is_float(from) && is_integer(out.dtype)) {
        y = c.cast(c.unary(OpKind::FLOOR, x), out.dtype);  // NNEF converts by floor
    } else {
        y = c.cast(x, out.dtype);
    }
    return c.bind("output", c.reshape(y, out.shape));
}

bool add_n(Context& c) {
    const std::vector<ValueId> xs = c.inputs("x");
    ValueId sum = xs[0];
    for (std::size_t i = 1; i < xs.size(); ++i) sum = c.binary(OpKind::ADD, sum, xs[i]);
    return c.bind("y", sum);
}

bool copy_n(Context& c) {
    const ValueId x = c.input("x");
    for (std::size_t i = 0; i < c.result_count("y"); ++i) c.bind("y", x, i);
    return true;
}

ValueId op1(Context& c, OpKind k, ValueId x) { return c.unary(k, x); }

using integer::Act;
using integer::Real;

// The number a literal argument holds; nullopt for a tensor.
std::optional<double> literal(const nnef::Value& v) {
    if (v.is_scalar()) return v.as_scalar();
    if (v.is_integer()) return double(v.as_integer());
    return std::nullopt;
}

// The items of argument `name` known at compile time: a literal as one item of shape [1, ...] (rank
// `rank`), a compile-time tensor as it is; nullopt for an activation.
std::optional<Real> constant_operand(integer::Lowering& q, std::string_view name, std::size_t rank) {
    if (const auto n = literal(q.c.argument(name))) return Real{Shape(rank, 1), {*n}, std::nullopt};
    if (const Real* r = q.real(q.arg_id(name))) return *r;
    return std::nullopt;
}

// A number of argument `name` of the current operation known at compile time and the same for every
// item: a literal, or a compile-time tensor of equal items that broadcasts within `like` (the other
// operand's shape). nullopt otherwise.
std::optional<double> uniform_number(integer::Lowering& q, std::string_view name, const Shape& like) {
    const nnef::Value& v = q.c.argument(name);
    if (const auto n = literal(v)) return n;
    const Real* r = v.is_identifier() ? q.real(v.as_identifier()) : nullptr;
    if (!r || r->items.empty() || Context::broadcast_shape(like, r->shape) != like) return std::nullopt;
    for (double item : r->items)
        if (item != r->items[0]) return std::nullopt;
    return r->items[0];
}

// An operand of add/sub as i32 in units `unit` (finer than its grid): RESCALE of (code - zp) by
// scale / unit, its zero point fraction into `offset` (in units); a literal or a compile-time tensor
// as an i32 constant of its items in units (of rank `rank` for a literal). no_value when it is
// neither, or a constant does not fit.
ValueId wide_operand(integer::Lowering& q, std::string_view name, double unit, double& offset, std::size_t rank) {
    const std::string id = q.arg_id(name);
    if (const Act* a = q.act(id)) {
        if (a->grid.dtype != DType::i8) return no_value;
        offset -= a->grid.frac * a->grid.scale / unit;
        return q.rescale(a->v, a->grid.zp, a->grid.scale / unit, 0, DType::i32);
    }
    const auto r = constant_operand(q, name, rank);
    if (!r) return no_value;
    auto c = ConstData::allocate(TensorType{DType::i32, r->shape});
    for (std::size_t i = 0; i < r->items.size(); ++i) {
        const double code = storage::round_half_up(r->items[i] / unit);
        if (!(std::fabs(code) <= double(1 << 30))) return no_value;
        c->mutable_items<std::int32_t>()[i] = static_cast<std::int32_t>(code);
    }
    return q.c.constant(std::move(c));
}

// add / sub: both operands RESCALEd to i32 on a common grid 2^19 times finer than the coarser one
// (the specification's pattern, 1.12.1 and 1.12.4; a literal or compile-time operand an i32
// constant on it), ADD/SUB in i32, one RESCALE to the result's grid (its entry needed). A constant
// too large for 2^30 steps of that grid (MobileNet-v3's `x + 3` where x's grid is 5e-5: random
// weights make the activations tiny) coarsens it to its largest item / 2^30, while that stays 2^12
// times finer than the result's grid (the sum is then within 2^-12 of a step of the exact one).
bool add_sub_integer(integer::Lowering& q, bool sub) {
    const std::string x = q.arg_id("x"), y = q.arg_id("y");
    const Tensor& out = q.c.result("z");
    const auto og = q.result_grid(out.name);
    if (!og) return false;
    double coarse = 0.0;
    for (const std::string& id : {x, y})
        if (const Act* a = q.act(id)) coarse = std::max(coarse, a->grid.scale);
    if (coarse == 0.0) return q.fail("neither operand is an integer activation");
    double unit = coarse / double(1 << 19);
    double largest = 0.0;  // of the constant operands' items
    for (const char* name : {"x", "y"})
        if (const auto r = constant_operand(q, name, out.shape->size()))
            for (double v : r->items) largest = std::max(largest, std::fabs(v));
    if (largest / unit > double(1 << 30) && largest / double(1 << 30) <= og->scale / double(1 << 12)) unit = largest / double(1 << 30);
    double offset = og->frac * og->scale / unit;
    const ValueId a = wide_operand(q, "x", unit, offset, out.shape->size());
    double offset_b = 0.0;
    const ValueId b = wide_operand(q, "y", unit, offset_b, out.shape->size());
    if (a == no_value || b == no_value)
        return q.fail("its operands must be i8 activations, literals or compile-time tensors (within 2^30 steps of "
                      "2^-19 of the coarser operand's scale)");
    offset += sub ? -offset_b : offset_b;
    ValueId sum = q.c.binary(sub ? OpKind::SUB : OpKind::ADD, a, b);
    if (storage::round_half_up(offset) != 0.0)
        sum = q.c.binary(OpKind::ADD, sum, q.c.scalar(DType::i32, storage::round_half_up(offset), q.c.rank(sum)));
    Act r;
    r.grid = *og;
    r.v = q.clamp_to(q.rescale(q.c.reshape(sum, *out.shape), 0, unit / og->scale, og->zp, og->dtype), *og);
    return q.set(out.name, r);
}

// x * k for a number k: the codes of x read on a grid |k| times as coarse (negated in i32 first for
// k < 0), requantized to `to`: one RESCALE by scale_x * |k| / scale_to, as exact as RESCALE's
// multiplier. k = 0: the code of 0 everywhere.
Act scaled(integer::Lowering& q, const Act& x, double k, const integer::Grid& to, const Shape& out) {
    if (k == 0.0) return Act{q.c.splat(to.dtype, out, double(to.code(0.0))), to};
    Act a = x;
    if (k < 0.0) {  // (zp - code) in i32 as 0 - (code - zp) (the VPU's int8 path has SUB, not NEGATE)
        const ValueId wide = q.rescale(x.v, x.grid.zp, 1.0, 0, DType::i32);
        a.v = q.c.binary(OpKind::SUB, q.c.scalar(DType::i32, 0.0, q.c.rank(wide)), wide);
        a.grid.lo = x.grid.zp - x.grid.hi;
        a.grid.hi = x.grid.zp - x.grid.lo;
        a.grid.zp = 0;
        a.grid.frac = -x.grid.frac;
        a.grid.dtype = DType::i32;
    }
    a.grid.scale = x.grid.scale * std::fabs(k);
    return q.requantize(a, to);
}

// x * C for a compile-time tensor C of unequal items: (code - zp - frac) in i32 (at 64 times the
// resolution with a zero point fraction) times the i32 codes of C on a grid of max|C| / 2^15, so
// the product stays within 2^30; one RESCALE to `to`. C's rounding is at most 2^-16 of its largest
// item: the result is within one step, and exact but for rare ties.
std::optional<Act> times_tensor(integer::Lowering& q, const Act& x, const Shape& shape, const std::vector<double>& items,
                                const integer::Grid& to, const Shape& out) {
    if (x.grid.dtype != DType::i8) return std::nullopt;
    double largest = 0.0;
    for (double v : items) largest = std::max(largest, std::fabs(v));
    if (!(largest > 0.0) || !std::isfinite(largest)) return std::nullopt;
    const double u = largest / 32768.0;
    auto codes = ConstData::allocate(TensorType{DType::i32, shape});
    for (std::size_t i = 0; i < items.size(); ++i)
        codes->mutable_items<std::int32_t>()[i] = static_cast<std::int32_t>(storage::round_half_up(items[i] / u));
    const double k = x.grid.frac == 0.0 ? 1.0 : 64.0;
    ValueId w = q.rescale(x.v, x.grid.zp, k, 0, DType::i32);
    if (x.grid.frac != 0.0)
        w = q.c.binary(OpKind::ADD, w, q.c.scalar(DType::i32, storage::round_half_up(-x.grid.frac * k), q.c.rank(w)));
    ValueId p = q.c.reshape(q.c.mul(w, q.c.constant(std::move(codes))), out);
    const double m = x.grid.scale * u / k / to.scale;
    const double offset = storage::round_half_up(to.frac / m);
    if (std::fabs(offset) > double(1 << 30)) return std::nullopt;
    if (offset != 0.0) p = q.c.binary(OpKind::ADD, p, q.c.scalar(DType::i32, offset, q.c.rank(p)));
    return Act{q.clamp_to(q.rescale(p, 0, m, to.zp, to.dtype), to), to};
}

// x * C or x / C for the current operation's compile-time operand `name` (a literal or a tensor):
// scaled() for one number, times_tensor() for a tensor of several.
bool by_constant(integer::Lowering& q, const Act& x, std::string_view name, bool divide, const Tensor& out) {
    const auto og = q.result_grid(out.name);
    if (!og) return false;
    if (const auto k = uniform_number(q, name, q.c.shape(x.v))) {
        if (!std::isfinite(*k) || (divide && *k == 0.0)) return q.fail("its constant operand is " + std::to_string(*k));
        return q.set(out.name, scaled(q, x, divide ? 1.0 / *k : *k, *og, *out.shape));
    }
    const Real* r = q.real(q.arg_id(name));
    if (!r)
        return q.fail(divide ? "its divisor is an activation (only division by a literal or a compile-time tensor is lowered)"
                             : "its operands must be i8 activations, literals or compile-time tensors");
    std::vector<double> items = r->items;
    if (divide)
        for (double& v : items) {
            if (v == 0.0) return q.fail("its divisor '" + q.arg_id(name) + "' has an item 0");
            v = 1.0 / v;
        }
    const auto y = times_tensor(q, x, r->shape, items, *og, *out.shape);
    if (!y) return q.fail("its constant operand '" + q.arg_id(name) + "' has no integer form with an i8 activation here");
    return q.set(out.name, *y);
}

// mul of two activations: (code - zp) products in i32, one RESCALE by scale_x * scale_y / scale_z;
// of an activation and a constant: by_constant().
bool mul_integer(integer::Lowering& q) {
    const Act* a = q.act(q.arg_id("x"));
    const Act* b = q.act(q.arg_id("y"));
    const Tensor& out = q.c.result("z");
    if (a && !b) return by_constant(q, *a, "y", false, out);
    if (b && !a) return by_constant(q, *b, "x", false, out);
    if (!a || !b || a->grid.dtype != DType::i8 || b->grid.dtype != DType::i8)
        return q.fail("only the product of two i8 activations, or of an activation and a constant, is lowered");
    if (a->grid.frac != 0.0 || b->grid.frac != 0.0) return q.fail("grids whose zero point falls between codes are not lowered here");
    const auto og = q.result_grid(out.name);
    if (!og) return false;
    const ValueId p = q.c.mul(q.rescale(a->v, a->grid.zp, 1.0, 0, DType::i32), q.rescale(b->v, b->grid.zp, 1.0, 0, DType::i32));
    const double unit = a->grid.scale * b->grid.scale;
    ValueId prod = q.c.reshape(p, *out.shape);
    const double offset = storage::round_half_up(og->frac * og->scale / unit);
    if (offset != 0.0) prod = q.c.binary(OpKind::ADD, prod, q.c.scalar(DType::i32, offset, q.c.rank(prod)));
    Act r;
    r.grid = *og;
    r.v = q.clamp_to(q.rescale(prod, 0, unit / og->scale, og->zp, og->dtype), *og);
    return q.set(out.name, r);
}

// div of an activation by a constant: by_constant() with the reciprocal; by an activation:
// integer::divide_activations (division.cpp).
bool div_integer(integer::Lowering& q) {
    const Act* x = q.act(q.arg_id("x"));
    if (!x) return q.fail("its dividend is not an integer activation");
    if (const Act* y = q.act(q.arg_id("y"))) return integer::divide_activations(q, *x, *y, q.c.result("z"));
    return by_constant(q, *x, "y", true, q.c.result("z"));
}

// An operand of min / max / clamp as (code - zp) in i32 on the grid g: an activation requantized to
// g, a literal or compile-time tensor as the codes of its items on g. Rounding to a grid is
// monotone, so the codes of a min or max are the min or max of the codes: exact. no_value when it
// is none of these.
ValueId minmax_operand(integer::Lowering& q, std::string_view name, const integer::Grid& g, std::size_t rank) {
    const std::string id = q.arg_id(name);
    if (const Act* a = q.act(id)) return q.rescale(q.requantize(*a, g).v, g.zp, 1.0, 0, DType::i32);
    const auto r = constant_operand(q, name, rank);
    if (!r) return no_value;
    auto c = ConstData::allocate(TensorType{DType::i32, r->shape});
    for (std::size_t i = 0; i < r->items.size(); ++i) {
        if (std::isnan(r->items[i])) return no_value;
        c->mutable_items<std::int32_t>()[i] = static_cast<std::int32_t>(g.code(r->items[i]) - g.zp);
    }
    return q.c.constant(std::move(c));
}

// The grid of a min / max / clamp result: its entry, else that of its activation operands (which
// must agree). nullopt after reporting why not.
std::optional<integer::Grid> minmax_grid(integer::Lowering& q, const std::string& result, std::initializer_list<const char*> args) {
    bool bad = false;
    const auto og = q.entry_grid(result, bad);
    if (bad) return std::nullopt;
    if (og) return og;
    std::optional<integer::Grid> g;
    for (const char* arg : args)
        if (const Act* a = q.act(q.arg_id(arg))) {
            if (g && !integer::same_grid(*g, a->grid)) {
                q.fail("its operands have different grids and its result '" + result + "' has no graph.quant entry");
                return std::nullopt;
            }
            g = a->grid;
        }
    if (!g) q.fail("none of its operands is an integer activation");
    return g;
}

// The value v (i32, code - zp on g) back as codes on g.
ValueId from_wide(integer::Lowering& q, ValueId v, const integer::Grid& g, const Shape& out) {
    return q.rescale(q.c.reshape(v, out), 0, 1.0, g.zp, g.dtype);
}

// min / max: both operands on the result's grid (minmax_operand), MINIMUM / MAXIMUM in i32 (TOSA's
// integer MINIMUM and MAXIMUM are i32 only), back to the codes.
bool min_max_integer(integer::Lowering& q, bool max) {
    const Tensor& out = q.c.result("z");
    const auto g = minmax_grid(q, out.name, {"x", "y"});
    if (!g) return false;
    const ValueId a = minmax_operand(q, "x", *g, out.shape->size()), b = minmax_operand(q, "y", *g, out.shape->size());
    if (a == no_value || b == no_value) return q.fail("its operands must be integer activations, literals or compile-time tensors");
    return q.set(out.name, Act{from_wide(q, max ? q.c.maximum(a, b) : q.c.minimum(a, b), *g, *out.shape), *g});
}

// clamp with literal bounds: RESCALE to the result's grid (if any), CLAMP at the codes of the bounds
// (quantizing is monotone, so this is exact); with tensor bounds: max(min(x, b), a) as min_max_integer.
bool clamp_integer(integer::Lowering& q) {
    const Act* x = q.input_act("x");
    if (!x) return false;
    const std::string name = q.c.result("y").name;
    const auto a = literal(q.c.argument("a")), b = literal(q.c.argument("b"));
    if (!a || !b) {
        const auto g = minmax_grid(q, name, {"x", "a", "b"});
        if (!g) return false;
        const std::size_t rank = q.c.result("y").shape->size();
        const ValueId xv = minmax_operand(q, "x", *g, rank), lo = minmax_operand(q, "a", *g, rank), hi = minmax_operand(q, "b", *g, rank);
        if (xv == no_value || lo == no_value || hi == no_value)
            return q.fail("its bounds must be integer activations, literals or compile-time tensors");
        return q.set(name, Act{from_wide(q, q.c.maximum(q.c.minimum(xv, hi), lo), *g, *q.c.result("y").shape), *g});
    }
    if (std::isnan(*a) || std::isnan(*b)) return q.fail("a bound is NaN");
    bool bad = false;
    const auto og = q.entry_grid(name, bad);
    if (bad) return false;
    Act y = og ? q.requantize(*x, *og) : *x;
    // monotone: the codes of the bounds on the result's grid bound the codes
    const std::int64_t l = std::isinf(*a) ? y.grid.lo : y.grid.code(*a), h = std::isinf(*b) ? y.grid.hi : y.grid.code(*b);
    if (l > y.grid.lo || h < y.grid.hi) y.v = q.c.clamp(y.v, double(std::max(l, y.grid.lo)), double(std::min(h, y.grid.hi)));
    return q.set(name, y);
}

// Element-wise functions of one activation at PRO-INT: TABLEs (integer::Lowering::unary).
using Function = double (*)(double);
IntegerForm table_form(Function f) {
    return [f](integer::Lowering& q) { return q.unary(f); };
}

}  // namespace tosa_from_nnef_elementwise_cpp

void add_elementwise(Registry& r) {
    using namespace tosa_from_nnef_elementwise_cpp;
    auto u = [&](const char* name, OpKind k, IntegerForm integer = {}) {
        r.push_back({name, "elementwise", unary([k](Context& c, ValueId x) { return op1(c, k, x); }), {},
                     std::move(integer)});
    };
    auto uf = [&](const char* name, Unary f, IntegerForm integer = {}) {
        r.push_back({name, "elementwise", unary(std::move(f)), {}, std::move(integer)});
    };
    auto b = [&](const char* name, OpKind k, IntegerForm integer = {}) {
        r.push_back({name, "elementwise", binary([k](Context& c, ValueId x, ValueId y) { return c.binary(k, x, y); }), {},
                     std::move(integer)});
    };
    auto bf = [&](const char* name, Binary f, IntegerForm integer = {}) {
        r.push_back({name, "elementwise", binary(std::move(f)), {}, std::move(integer)});
    };

    r.push_back({"copy", "elementwise", copy, {}, integer::layout_integer});
    uf("neg", [](Context& c, ValueId x) { return c.negate(x); }, table_form([](double v) { return -v; }));
    u("rcp", OpKind::RECIPROCAL);
    u("exp", OpKind::EXP, table_form([](double v) { return std::exp(v); }));
    u("log", OpKind::LOG, table_form([](double v) { return std::log(v); }));
    u("abs", OpKind::ABS, table_form([](double v) { return std::fabs(v); }));
    uf("sign", sign);
    u("not", OpKind::LOGICAL_NOT);
    u("floor", OpKind::FLOOR);
    u("ceil", OpKind::CEIL);
    uf("round", round_half_up);
    u("tanh", OpKind::TANH, table_form([](double v) { return std::tanh(v); }));
    u("sin", OpKind::SIN, table_form([](double v) { return std::sin(v); }));
    u("cos", OpKind::COS, table_form([](double v) { return std::cos(v); }));
    uf("tan", tan);
    uf("sinh", sinh);
    uf("cosh", cosh);
    uf("asinh", asinh);
    uf("acosh", acosh);
    uf("atanh", atanh);
    uf("sqr", [](Context& c, ValueId x) { return c.mul(x, x); });
    uf("sqrt", [](Context& c, ValueId x) { return pow_const(c, x, 0.5); }, table_form([](double v) { return std::sqrt(v); }));
    uf("rsqr", [](Context& c, ValueId x) { return c.unary(OpKind::RECIPROCAL, c.mul(x, x)); });
    u("rsqrt", OpKind::RSQRT, table_form([](double v) { return 1.0 / std::sqrt(v); }));
    uf("log2", [](Context& c, ValueId x) { return c.mul(c.unary(OpKind::LOG, x), one(c, x, 1.0 / std::log(2.0))); });

    b("add", OpKind::ADD, [](integer::Lowering& q) { return add_sub_integer(q, false); });
    b("sub", OpKind::SUB, [](integer::Lowering& q) { return add_sub_integer(q, true); });
    bf("mul", [](Context& c, ValueId x, ValueId y) { return c.mul(x, y); }, mul_integer);
    bf("div", [](Context& c, ValueId x, ValueId y) { return c.div(x, y); }, div_integer);
    // x^c for a number c (the layer norms of ConvNeXt and Swin: pow(x, 2.0)): a TABLE, exact
    b("pow", OpKind::POW, [](integer::Lowering& q) {
        const auto c = uniform_number(q, "y", q.c.result("z").shape.value_or(Shape{}));
        if (!c) return q.fail("only a power with a number exponent (a literal, or a constant of equal items) is lowered");
        const double e = *c;
        return q.unary([e](double v) { return std::pow(v, e); }, "z");
    });
    bf("lt", [](Context& c, ValueId x, ValueId y) { return c.compare(OpKind::GREATER, y, x); });
    b("gt", OpKind::GREATER);
    bf("le", [](Context& c, ValueId x, ValueId y) { return c.compare(OpKind::GREATER_EQUAL, y, x); });
    b("ge", OpKind::GREATER_EQUAL);
    b("eq", OpKind::EQUAL);
    bf("ne", [](Context& c, ValueId x, ValueId y) { return c.unary(OpKind::LOGICAL_NOT, c.compare(OpKind::EQUAL, x, y)); });
    b("and", OpKind::LOGICAL_AND);
    b("or", OpKind::LOGICAL_OR);
    bf("min", [](Context& c, ValueId x, ValueId y) { return c.nnef_min(x, y); },
       [](integer::Lowering& q) { return min_max_integer(q, false); });
    bf("max", [](Context& c, ValueId x, ValueId y) { return c.nnef_max(x, y); },
       [](integer::Lowering& q) { return min_max_integer(q, true); });

    const std::string inverse_trig =
        "TOSA 1.0.1 has no inverse trigonometric operator, and no composition of its operators computes it to "
        "fp32 accuracy";
    for (const char* name : {"asin", "acos", "atan"}) r.push_back({name, "elementwise", nullptr, inverse_trig});
    r.push_back({"select", "elementwise", select_op, {}});
    r.push_back({"clamp", "elementwise", clamp, {}, clamp_integer});
    r.push_back({"cast", "elementwise", cast, {}});
    r.push_back({"add_n", "elementwise", add_n, {}});
    r.push_back({"copy_n", "elementwise", copy_n, {}});
}

}  // namespace nnef::tosa::from_nnef
