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

// An operand of add/sub as i32 in units `unit` (finer than its grid): RESCALE of (code - zp) by
// scale / unit, its zero point fraction into `offset` (in units); a compile-time tensor as an i32
// constant of its items in units. no_value when it is neither.
ValueId wide_operand(integer::Lowering& q, const std::string& id, double unit, double& offset) {
    if (const Act* a = q.act(id)) {
        if (a->grid.dtype != DType::i8) return no_value;
        offset -= a->grid.frac * a->grid.scale / unit;
        return q.rescale(a->v, a->grid.zp, a->grid.scale / unit, 0, DType::i32);
    }
    if (const Real* r = q.real(id)) {
        auto c = ConstData::allocate(TensorType{DType::i32, r->shape});
        for (std::size_t i = 0; i < r->items.size(); ++i) {
            const double code = storage::round_half_up(r->items[i] / unit);
            if (std::fabs(code) > double(1 << 30)) return no_value;
            c->mutable_items<std::int32_t>()[i] = static_cast<std::int32_t>(code);
        }
        return q.c.constant(std::move(c));
    }
    return no_value;
}

// add / sub: both operands RESCALEd to i32 on a common grid 2^19 times finer than the coarser one
// (the specification's pattern, 1.12.1 and 1.12.4), ADD/SUB in i32, one RESCALE to
// the result's grid (its entry needed).
bool add_sub_integer(integer::Lowering& q, bool sub) {
    const std::string x = q.arg_id("x"), y = q.arg_id("y");
    const Tensor& out = q.c.result("z");
    bool bad = false;
    const auto og = q.entry_grid(out.name, bad);
    if (bad) return false;
    if (!og) return q.fail("its result '" + out.name + "' has no graph.quant entry");
    double coarse = 0.0;
    for (const std::string& id : {x, y})
        if (const Act* a = q.act(id)) coarse = std::max(coarse, a->grid.scale);
    if (coarse == 0.0) return q.fail("neither operand is an integer activation");
    const double unit = coarse / double(1 << 19);
    double offset = og->frac * og->scale / unit;
    const ValueId a = wide_operand(q, x, unit, offset);
    double offset_b = 0.0;
    const ValueId b = wide_operand(q, y, unit, offset_b);
    if (a == no_value || b == no_value) return q.fail("its operands must be i8 activations or compile-time tensors (literals are not lowered)");
    offset += sub ? -offset_b : offset_b;
    ValueId sum = q.c.binary(sub ? OpKind::SUB : OpKind::ADD, a, b);
    if (storage::round_half_up(offset) != 0.0)
        sum = q.c.binary(OpKind::ADD, sum, q.c.scalar(DType::i32, storage::round_half_up(offset), q.c.rank(sum)));
    Act r;
    r.grid = *og;
    r.v = q.clamp_to(q.rescale(q.c.reshape(sum, *out.shape), 0, unit / og->scale, og->zp, og->dtype), *og);
    return q.set(out.name, r);
}

// mul of two activations: (code - zp) products in i32, one RESCALE by scale_x * scale_y / scale_z.
bool mul_integer(integer::Lowering& q) {
    const Act* a = q.act(q.arg_id("x"));
    const Act* b = q.act(q.arg_id("y"));
    const Tensor& out = q.c.result("z");
    if (!a || !b || a->grid.dtype != DType::i8 || b->grid.dtype != DType::i8)
        return q.fail("only the product of two i8 activations is lowered");
    if (a->grid.frac != 0.0 || b->grid.frac != 0.0) return q.fail("grids whose zero point falls between codes are not lowered here");
    bool bad = false;
    const auto og = q.entry_grid(out.name, bad);
    if (bad) return false;
    if (!og) return q.fail("its result '" + out.name + "' has no graph.quant entry");
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

// clamp with literal bounds: RESCALE to the result's grid (if any), CLAMP at the codes of the bounds.
bool clamp_integer(integer::Lowering& q) {
    const Act* x = q.act(q.arg_id("x"));
    if (!x) return q.fail("its input is not an integer activation");
    const nnef::Value& lo = q.c.argument("a");
    const nnef::Value& hi = q.c.argument("b");
    auto number = [](const nnef::Value& v) -> std::optional<double> {
        if (v.is_scalar()) return v.as_scalar();
        if (v.is_integer()) return double(v.as_integer());
        return std::nullopt;
    };
    const auto a = number(lo), b = number(hi);
    if (!a || !b) return q.fail("only clamp with literal bounds is lowered");
    const std::string name = q.c.result("y").name;
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
    bf("div", [](Context& c, ValueId x, ValueId y) { return c.div(x, y); });
    b("pow", OpKind::POW);
    bf("lt", [](Context& c, ValueId x, ValueId y) { return c.compare(OpKind::GREATER, y, x); });
    b("gt", OpKind::GREATER);
    bf("le", [](Context& c, ValueId x, ValueId y) { return c.compare(OpKind::GREATER_EQUAL, y, x); });
    b("ge", OpKind::GREATER_EQUAL);
    b("eq", OpKind::EQUAL);
    bf("ne", [](Context& c, ValueId x, ValueId y) { return c.unary(OpKind::LOGICAL_NOT, c.compare(OpKind::EQUAL, x, y)); });
    b("and", OpKind::LOGICAL_AND);
    b("or", OpKind::LOGICAL_OR);
    bf("min", [](Context& c, ValueId x, ValueId y) { return c.nnef_min(x, y); });
    bf("max", [](Context& c, ValueId x, ValueId y) { return c.nnef_max(x, y); });

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
