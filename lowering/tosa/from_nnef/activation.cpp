// Activation functions (NNEF spec 4.9.1 and the later revisions' compounds), each computing its
// fragment's formula with TOSA operators.
#include <cmath>
#include <limits>

#include "lowering/tosa/from_nnef/context.hpp"
#include "lowering/tosa/from_nnef/integer.hpp"

namespace nnef::tosa::from_nnef {

namespace tosa_from_nnef_activation_cpp {

ValueId lit(Context& c, ValueId like, double v) { return c.scalar(c.type(like).dtype, v, c.rank(like)); }

// select(x < 0, alpha * x, x)
ValueId prelu(Context& c, ValueId x, ValueId alpha) {
    const ValueId negative = c.compare(OpKind::GREATER, lit(c, x, 0.0), x);
    return c.select(negative, c.mul(alpha, x), x);
}

// select(x < 0, alpha * (exp(x) - 1), x)
ValueId elu(Context& c, ValueId x, double alpha) {
    const ValueId negative = c.compare(OpKind::GREATER, lit(c, x, 0.0), x);
    ValueId e = c.binary(OpKind::SUB, c.unary(OpKind::EXP, x), lit(c, x, 1.0));
    if (alpha != 1.0) e = c.mul(e, lit(c, x, alpha));
    return c.select(negative, e, x);
}

bool relu(Context& c) {
    // max(x, 0.0) = select(x > 0, x, 0): CLAMP to [0, inf] ignoring NaN (which gives 0 both ways)
    const ValueId x = c.input("x");
    return c.bind("y", c.add(OpKind::CLAMP, {x}, c.type(x),
                             {{AttrName::min_val, 0.0},
                              {AttrName::max_val, double(std::numeric_limits<float>::infinity())},
                              {AttrName::nan_mode, NanMode::IGNORE}}));
}

bool sigmoid(Context& c) { return c.bind("y", c.unary(OpKind::SIGMOID, c.input("x"))); }

bool prelu_op(Context& c) {
    const std::size_t r = c.result_type("y").rank();
    return c.bind("y", prelu(c, c.input("x", r), c.input("alpha", r)));
}

bool leaky_relu(Context& c) {
    const ValueId x = c.input("x");
    return c.bind("y", prelu(c, x, lit(c, x, c.scalar_attr("alpha"))));
}

bool elu_op(Context& c) { return c.bind("y", elu(c, c.input("x"), c.scalar_attr("alpha", 1.0))); }

bool selu(Context& c) {
    const ValueId x = c.input("x");
    const ValueId e = elu(c, x, c.scalar_attr("alpha", 1.67326319));
    return c.bind("y", c.mul(e, lit(c, x, c.scalar_attr("lambda", 1.05070102))));
}

bool gelu(Context& c) {
    // x * sigmoid(1.702 * x)
    const ValueId x = c.input("x");
    return c.bind("y", c.mul(x, c.unary(OpKind::SIGMOID, c.mul(lit(c, x, 1.702), x))));
}

bool silu(Context& c) {
    const ValueId x = c.input("x");
    return c.bind("y", c.mul(x, c.unary(OpKind::SIGMOID, x)));
}

bool softplus(Context& c) {
    // log(exp(x) + 1)
    const ValueId x = c.input("x");
    return c.bind("y", c.unary(OpKind::LOG, c.binary(OpKind::ADD, c.unary(OpKind::EXP, x), lit(c, x, 1.0))));
}

bool softabs(Context& c) {
    // sqrt(sqr(x) + epsilon)
    const ValueId x = c.input("x");
    const ValueId s = c.binary(OpKind::ADD, c.mul(x, x), lit(c, x, c.scalar_attr("epsilon")));
    return c.bind("y", c.binary(OpKind::POW, s, lit(c, x, 0.5)));
}

using integer::Act;

// relu: with a result entry, RESCALE to its grid, then CLAMP at the code of 0 (RESCALE is monotone
// and maps the reals below 0 at or below it); else CLAMP at the input's zero point.
bool relu_integer(integer::Lowering& q) {
    const Act* x = q.input_act("x");
    if (!x) return false;
    const std::string name = q.c.result("y").name;
    bool bad = false;
    const auto og = q.entry_grid(name, bad);
    if (bad) return false;
    if (!og && x->grid.frac != 0.0) return q.fail("its input's grid has no code for 0 and its result '" + name + "' no graph.quant entry");
    Act y = og ? q.requantize(*x, *og) : *x;
    const std::int64_t zero = y.grid.code(0.0);
    if (zero > y.grid.lo) y.v = q.c.clamp(y.v, double(zero), double(y.grid.hi));
    return q.set(name, y);
}

// Activation functions at PRO-INT: TABLEs of the function in double (integer::Lowering::unary).
double sigmoid_of(double v) { return 1.0 / (1.0 + std::exp(-v)); }
double elu_of(double v, double alpha) { return v < 0.0 ? alpha * (std::exp(v) - 1.0) : v; }

bool sigmoid_integer(integer::Lowering& q) { return q.unary(sigmoid_of); }

bool leaky_relu_integer(integer::Lowering& q) {
    const double alpha = q.c.scalar_attr("alpha", 0.0);
    return q.unary([alpha](double v) { return v < 0.0 ? alpha * v : v; });
}

bool elu_integer(integer::Lowering& q) {
    const double alpha = q.c.scalar_attr("alpha", 1.0);
    return q.unary([alpha](double v) { return elu_of(v, alpha); });
}

bool selu_integer(integer::Lowering& q) {
    const double alpha = q.c.scalar_attr("alpha", 1.67326319), lambda = q.c.scalar_attr("lambda", 1.05070102);
    return q.unary([alpha, lambda](double v) { return elu_of(v, alpha) * lambda; });
}

bool gelu_integer(integer::Lowering& q) {
    return q.unary([](double v) { return v * sigmoid_of(1.702 * v); });
}

bool silu_integer(integer::Lowering& q) {
    return q.unary([](double v) { return v * sigmoid_of(v); });
}

bool softplus_integer(integer::Lowering& q) {
    return q.unary([](double v) { return std::log(std::exp(v) + 1.0); });
}

}  // namespace tosa_from_nnef_activation_cpp

void add_activation(Registry& r) {
    using namespace tosa_from_nnef_activation_cpp;
    r.push_back({"relu", "activation", relu, {}, relu_integer});
    r.push_back({"sigmoid", "activation", sigmoid, {}, sigmoid_integer});
    r.push_back({"prelu", "activation", prelu_op, {}});
    r.push_back({"leaky_relu", "activation", leaky_relu, {}, leaky_relu_integer});
    r.push_back({"elu", "activation", elu_op, {}, elu_integer});
    r.push_back({"selu", "activation", selu, {}, selu_integer});
    r.push_back({"gelu", "activation", gelu, {}, gelu_integer});
    r.push_back({"silu", "activation", silu, {}, silu_integer});
    r.push_back({"softplus", "activation", softplus, {}, softplus_integer});
    r.push_back({"softabs", "activation", softabs, {}});
}

}  // namespace nnef::tosa::from_nnef
