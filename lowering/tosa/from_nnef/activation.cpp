// Activation functions (NNEF spec 4.9.1 and the later revisions' compounds), each computing its
// fragment's formula with TOSA operators.
#include <limits>

#include "lowering/tosa/from_nnef/context.hpp"

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

}  // namespace tosa_from_nnef_activation_cpp

void add_activation(Registry& r) {
    using namespace tosa_from_nnef_activation_cpp;
    r.push_back({"relu", "activation", relu, {}});
    r.push_back({"sigmoid", "activation", sigmoid, {}});
    r.push_back({"prelu", "activation", prelu_op, {}});
    r.push_back({"leaky_relu", "activation", leaky_relu, {}});
    r.push_back({"elu", "activation", elu_op, {}});
    r.push_back({"selu", "activation", selu, {}});
    r.push_back({"gelu", "activation", gelu, {}});
    r.push_back({"silu", "activation", silu, {}});
    r.push_back({"softplus", "activation", softplus, {}});
    r.push_back({"softabs", "activation", softabs, {}});
}

}  // namespace nnef::tosa::from_nnef
