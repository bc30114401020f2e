// Element-wise operations (NNEF spec 4.2 and the later revisions' unary functions): one TOSA
// operator where TOSA has it, otherwise a short composition of TOSA operators that computes the
// NNEF formula. Broadcasting follows NNEF (leading dimensions aligned; Context::binary).
#include <cmath>
#include <functional>
#include <limits>

#include "lowering/tosa/from_nnef/context.hpp"

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

}  // namespace tosa_from_nnef_elementwise_cpp

void add_elementwise(Registry& r) {
    using namespace tosa_from_nnef_elementwise_cpp;
    auto u = [&](const char* name, OpKind k) {
        r.push_back({name, "elementwise", unary([k](Context& c, ValueId x) { return op1(c, k, x); }), {}});
    };
    auto uf = [&](const char* name, Unary f) { r.push_back({name, "elementwise", unary(std::move(f)), {}}); };
    auto b = [&](const char* name, OpKind k) {
        r.push_back({name, "elementwise", binary([k](Context& c, ValueId x, ValueId y) { return c.binary(k, x, y); }), {}});
    };
    auto bf = [&](const char* name, Binary f) { r.push_back({name, "elementwise", binary(std::move(f)), {}}); };

    r.push_back({"copy", "elementwise", copy, {}});
    uf("neg", [](Context& c, ValueId x) { return c.negate(x); });
    u("rcp", OpKind::RECIPROCAL);
    u("exp", OpKind::EXP);
    u("log", OpKind::LOG);
    u("abs", OpKind::ABS);
    uf("sign", sign);
    u("not", OpKind::LOGICAL_NOT);
    u("floor", OpKind::FLOOR);
    u("ceil", OpKind::CEIL);
    uf("round", round_half_up);
    u("tanh", OpKind::TANH);
    u("sin", OpKind::SIN);
    u("cos", OpKind::COS);
    uf("tan", tan);
    uf("sinh", sinh);
    uf("cosh", cosh);
    uf("asinh", asinh);
    uf("acosh", acosh);
    uf("atanh", atanh);
    uf("sqr", [](Context& c, ValueId x) { return c.mul(x, x); });
    uf("sqrt", [](Context& c, ValueId x) { return pow_const(c, x, 0.5); });
    uf("rsqr", [](Context& c, ValueId x) { return c.unary(OpKind::RECIPROCAL, c.mul(x, x)); });
    u("rsqrt", OpKind::RSQRT);
    uf("log2", [](Context& c, ValueId x) { return c.mul(c.unary(OpKind::LOG, x), one(c, x, 1.0 / std::log(2.0))); });

    b("add", OpKind::ADD);
    b("sub", OpKind::SUB);
    bf("mul", [](Context& c, ValueId x, ValueId y) { return c.mul(x, y); });
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
    r.push_back({"clamp", "elementwise", clamp, {}});
    r.push_back({"cast", "elementwise", cast, {}});
    r.push_back({"add_n", "elementwise", add_n, {}});
    r.push_back({"copy_n", "elementwise", copy_n, {}});
}

}  // namespace nnef::tosa::from_nnef
