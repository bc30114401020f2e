// Element-wise operations (spec 4.2): unary, binary with broadcasting, select, the later unary
// primitives and cast (SPEC_NOTES 2), and the element-wise compounds of 4.2.4 and 4.9.1 (each
// computed as its body's formula, in one pass). Transcendental functions are evaluated in double
// precision and rounded to the scalar item type (Real) once.
#include <cmath>

#include "exec/common.hpp"

namespace nnef::NNEF_EXEC_NS {

namespace exec_elementwise_cpp {

// ---- unary -------------------------------------------------------------------------------------

template <Real (*F)(Real)>
bool unary(KernelContext& ctx) {
    const TensorValue& x = ctx.input("x", PrimType::scalar);
    TensorValue y = ctx.make_output("y");
    broadcast_unary<Real, Real>(y, x, [](Real v) { return F(v); });  // a lambda, so that F is inlined
    ctx.set_output("y", std::move(y));
    return true;
}

template <double (*F)(double)>
Real in_double(Real x) {
    return static_cast<Real>(F(static_cast<double>(x)));
}

Real neg(Real x) { return -x; }
Real rcp(Real x) { return 1.0f / x; }
Real abs_(Real x) { return x < 0.0f ? -x : x; }
Real sign(Real x) { return x > 0.0f ? 1.0f : x < 0.0f ? -1.0f : x == 0.0f ? 0.0f : x; }
// std:: functions wrapped (their addresses are not portable template arguments)
double exp_(double x) { return std::exp(x); }
double log_(double x) { return std::log(x); }
double floor_(double x) { return std::floor(x); }
double ceil_(double x) { return std::ceil(x); }
double tanh_(double x) { return std::tanh(x); }
double sin_(double x) { return std::sin(x); }
double cos_(double x) { return std::cos(x); }
double tan_(double x) { return std::tan(x); }
double sinh_(double x) { return std::sinh(x); }
double cosh_(double x) { return std::cosh(x); }
double asin_(double x) { return std::asin(x); }
double acos_(double x) { return std::acos(x); }
double atan_(double x) { return std::atan(x); }
double asinh_(double x) { return std::asinh(x); }
double acosh_(double x) { return std::acosh(x); }
double atanh_(double x) { return std::atanh(x); }
double sqrt_(double x) { return std::sqrt(x); }
double round_(double x) { return std::floor(x + 0.5); }  // spec 4.2.1: floor(x + 0.5)
double log2_(double x) { return std::log(x) / std::log(2.0); }
Real sqr(Real x) { return x * x; }
double rsqr(double x) { return 1.0 / (x * x); }
double rsqrt(double x) { return 1.0 / std::sqrt(x); }
double sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }
Real relu(Real x) { return x > 0.0f ? x : 0.0f; }  // max(x, 0.0) = select(x > 0.0, x, 0.0)
double softplus(double x) { return std::log(std::exp(x) + 1.0); }
double gelu(double x) { return x * sigmoid(1.702 * x); }
double silu(double x) { return x * sigmoid(x); }

// Element-wise kernels with scalar attributes.
template <class F>
bool unary_with(KernelContext& ctx, F f) {
    const TensorValue& x = ctx.input("x", PrimType::scalar);
    TensorValue y = ctx.make_output("y");
    broadcast_unary<Real, Real>(y, x, f);
    ctx.set_output("y", std::move(y));
    return true;
}

bool elu(KernelContext& ctx) {
    const double alpha = ctx.scalar_attr("alpha", 1.0);
    return unary_with(ctx, [alpha](Real x) {
        return x < 0.0f ? static_cast<Real>(alpha * (std::exp(double(x)) - 1.0)) : x;
    });
}

bool selu(KernelContext& ctx) {
    const double alpha = ctx.scalar_attr("alpha", 1.67326319), lambda = ctx.scalar_attr("lambda", 1.05070102);
    return unary_with(ctx, [alpha, lambda](Real x) {
        return static_cast<Real>(lambda * (x < 0.0f ? alpha * (std::exp(double(x)) - 1.0) : double(x)));
    });
}

bool leaky_relu(KernelContext& ctx) {
    const Real alpha = static_cast<Real>(ctx.scalar_attr("alpha"));
    return unary_with(ctx, [alpha](Real x) { return x < 0.0f ? alpha * x : x; });
}

bool softabs(KernelContext& ctx) {
    const double epsilon = ctx.scalar_attr("epsilon");
    return unary_with(ctx, [epsilon](Real x) { return static_cast<Real>(std::sqrt(double(x) * x + epsilon)); });
}

bool not_(KernelContext& ctx) {
    const TensorValue& x = ctx.input("x", PrimType::logical);
    TensorValue y = ctx.make_output("y");
    broadcast_unary<bool, bool>(y, x, [](bool v) { return !v; });
    ctx.set_output("y", std::move(y));
    return true;
}

// copy<?>: the same items (shared).
bool copy(KernelContext& ctx) {
    const TensorValue& x = ctx.input("x", ctx.output_dtype("y"));
    ctx.set_output("y", x.reshaped(ctx.output_shape("y")));
    return true;
}

// cast<?>: every item converted to the bound data type (see convert()).
bool cast(KernelContext& ctx) {
    const TensorValue& x = ctx.input("input");
    const PrimType to = ctx.output_dtype("output");
    ctx.set_output("output", (x.dtype() == to ? x : convert(x, to)).reshaped(ctx.output_shape("output")));
    return true;
}

// ---- binary ------------------------------------------------------------------------------------

template <class R, class T, class F>
bool binary_op(KernelContext& ctx, const char* x_name, const char* y_name, const char* z_name, F f) {
    const TensorValue& x = ctx.input(x_name, dtype_of<T>());
    const TensorValue& y = ctx.input(y_name, dtype_of<T>());
    TensorValue z = ctx.make_output(z_name);
    broadcast_binary<R, T, T>(z, x, y, f);
    ctx.set_output(z_name, std::move(z));
    return true;
}

// (lambdas, so that F is inlined)
template <Real (*F)(Real, Real)>
bool arithmetic(KernelContext& ctx) {
    return binary_op<Real, Real>(ctx, "x", "y", "z", [](Real a, Real b) { return F(a, b); });
}
template <bool (*F)(Real, Real)>
bool comparison(KernelContext& ctx) {
    return binary_op<bool, Real>(ctx, "x", "y", "z", [](Real a, Real b) { return F(a, b); });
}
template <bool (*F)(bool, bool)>
bool logical(KernelContext& ctx) {
    return binary_op<bool, bool>(ctx, "x", "y", "z", [](bool a, bool b) { return F(a, b); });
}

Real add(Real a, Real b) { return a + b; }
Real sub(Real a, Real b) { return a - b; }
Real mul(Real a, Real b) { return a * b; }
Real div(Real a, Real b) { return a / b; }
Real pow_(Real a, Real b) { return static_cast<Real>(std::pow(double(a), double(b))); }
Real min_(Real a, Real b) { return a < b ? a : b; }  // select(x < y, x, y)
Real max_(Real a, Real b) { return a > b ? a : b; }  // select(x > y, x, y)
bool lt(Real a, Real b) { return a < b; }
bool gt(Real a, Real b) { return a > b; }
bool le(Real a, Real b) { return a <= b; }
bool ge(Real a, Real b) { return a >= b; }
bool eq(Real a, Real b) { return a == b; }
bool ne(Real a, Real b) { return a != b; }
bool and_(bool a, bool b) { return a && b; }
bool or_(bool a, bool b) { return a || b; }

// prelu: select(x < 0.0, alpha * x, x).
bool prelu(KernelContext& ctx) {
    return binary_op<Real, Real>(ctx, "x", "alpha", "y", [](Real x, Real a) { return x < 0.0f ? a * x : x; });
}

// ---- ternary -----------------------------------------------------------------------------------

// out[i] = f(a[i'], b[i''], c[i''']) with broadcasting.
template <class R, class A, class B, class C, class F>
void broadcast_ternary(TensorValue& out, const TensorValue& a, const TensorValue& b, const TensorValue& c, F f) {
    R* o = out.data<R>();
    const A* x = a.data<A>();
    const B* y = b.data<B>();
    const C* z = c.data<C>();
    const auto plan = broadcast_plan<3>(out.shape(), {&a.shape(), &b.shape(), &c.shape()});
    for_each_run(plan, [&](const std::array<std::int64_t, 3>& off, std::int64_t oo, std::int64_t n,
                           const std::array<std::int64_t, 3>& st) {
        if (st[0] == 1 && st[1] == 0 && st[2] == 0) {  // e.g. clamp(x, 0.0, 6.0)
            const A* xa = x + off[0];
            const B yv = y[off[1]];
            const C zv = z[off[2]];
            for (std::int64_t i = 0; i < n; ++i) o[oo + i] = f(xa[i], yv, zv);
            return;
        }
        for (std::int64_t i = 0; i < n; ++i)
            o[oo + i] = f(x[off[0] + i * st[0]], y[off[1] + i * st[1]], z[off[2] + i * st[2]]);
    });
}

bool select(KernelContext& ctx) {
    const PrimType dtype = ctx.output_dtype("output");
    const TensorValue& c = ctx.input("condition", PrimType::logical);
    const TensorValue& t = ctx.input("true_value", dtype);
    const TensorValue& f = ctx.input("false_value", dtype);
    TensorValue out = ctx.make_output("output");
    dispatch(dtype, [&](auto tag) {
        using T = decltype(tag);
        broadcast_ternary<T, bool, T, T>(out, c, t, f, [](bool k, T a, T b) { return k ? a : b; });
    });
    ctx.set_output("output", std::move(out));
    return true;
}

// clamp: max(min(x, b), a).
bool clamp(KernelContext& ctx) {
    const TensorValue& x = ctx.input("x", PrimType::scalar);
    const TensorValue& a = ctx.input("a", PrimType::scalar);
    const TensorValue& b = ctx.input("b", PrimType::scalar);
    TensorValue y = ctx.make_output("y");
    broadcast_ternary<Real, Real, Real, Real>(y, x, a, b, [](Real v, Real lo, Real hi) {
        return max_(min_(v, hi), lo);
    });
    ctx.set_output("y", std::move(y));
    return true;
}

}  // namespace exec_elementwise_cpp

void add_elementwise_kernels(KernelRegistry& r) {
    using namespace exec_elementwise_cpp;
    // 4.2.1 unary primitives
    r.add("copy", copy);
    r.add("neg", unary<neg>);
    r.add("rcp", unary<rcp>);
    r.add("exp", unary<in_double<exp_>>);
    r.add("log", unary<in_double<log_>>);
    r.add("abs", unary<abs_>);
    r.add("sign", unary<sign>);
    r.add("not", not_);
    r.add("floor", unary<in_double<floor_>>);
    r.add("ceil", unary<in_double<ceil_>>);
    r.add("round", unary<in_double<round_>>);
    r.add("tanh", unary<in_double<tanh_>>);
    // later unary primitives
    r.add("sin", unary<in_double<sin_>>);
    r.add("cos", unary<in_double<cos_>>);
    r.add("tan", unary<in_double<tan_>>);
    r.add("sinh", unary<in_double<sinh_>>);
    r.add("cosh", unary<in_double<cosh_>>);
    r.add("asin", unary<in_double<asin_>>);
    r.add("acos", unary<in_double<acos_>>);
    r.add("atan", unary<in_double<atan_>>);
    r.add("asinh", unary<in_double<asinh_>>);
    r.add("acosh", unary<in_double<acosh_>>);
    r.add("atanh", unary<in_double<atanh_>>);
    r.add("cast", cast);
    // 4.2.2 binary primitives
    r.add("add", arithmetic<add>);
    r.add("sub", arithmetic<sub>);
    r.add("mul", arithmetic<mul>);
    r.add("div", arithmetic<div>);
    r.add("pow", arithmetic<pow_>);
    r.add("lt", comparison<lt>);
    r.add("gt", comparison<gt>);
    r.add("le", comparison<le>);
    r.add("ge", comparison<ge>);
    r.add("eq", comparison<eq>);
    r.add("ne", comparison<ne>);
    r.add("and", logical<and_>);
    r.add("or", logical<or_>);
    // 4.2.3
    r.add("select", select);
    // compounds: 4.2.4 simplifiers
    r.add("sqr", unary<sqr>);
    r.add("sqrt", unary<in_double<sqrt_>>);
    r.add("rsqr", unary<in_double<rsqr>>);
    r.add("rsqrt", unary<in_double<rsqrt>>);
    r.add("log2", unary<in_double<log2_>>);
    r.add("min", arithmetic<min_>);
    r.add("max", arithmetic<max_>);
    r.add("clamp", clamp);
    // compounds: 4.9.1 activations and the later ones
    r.add("sigmoid", unary<in_double<sigmoid>>);
    r.add("relu", unary<relu>);
    r.add("prelu", prelu);
    r.add("leaky_relu", leaky_relu);
    r.add("elu", elu);
    r.add("softplus", unary<in_double<softplus>>);
    r.add("selu", selu);
    r.add("gelu", unary<in_double<gelu>>);
    r.add("silu", unary<in_double<silu>>);
    r.add("softabs", softabs);
}

}  // namespace nnef::NNEF_EXEC_NS
