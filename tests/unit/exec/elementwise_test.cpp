// Element-wise kernels (spec 4.2, 4.9.1, SPEC_NOTES 2) on small cases computed by hand from the
// formulas.
#include "exec_support.hpp"

namespace elementwise_test {

using namespace exec_test;

TEST_SUITE("exec") {

TEST_CASE("unary operations") {
    const TensorValue x = scalars({1, 5}, {-1.5f, -0.5f, 0.0f, 0.5f, 2.0f});
    CHECK_TENSOR(run1(x, "y = neg(x);"), "y", ({1, 5}), {1.5, 0.5, 0.0, -0.5, -2.0});
    CHECK_TENSOR(run1(x, "y = abs(x);"), "y", ({1, 5}), {1.5, 0.5, 0.0, 0.5, 2.0});
    CHECK_TENSOR(run1(x, "y = sign(x);"), "y", ({1, 5}), {-1, -1, 0, 1, 1});
    // round is floor(x + 0.5) (4.2.1): halves go up
    CHECK_TENSOR(run1(x, "y = round(x);"), "y", ({1, 5}), {-1, 0, 0, 1, 2});
    CHECK_TENSOR(run1(x, "y = floor(x);"), "y", ({1, 5}), {-2, -1, 0, 0, 2});
    CHECK_TENSOR(run1(x, "y = ceil(x);"), "y", ({1, 5}), {-1, 0, 0, 1, 2});
    CHECK_TENSOR(run1(x, "y = exp(x);"), "y", ({1, 5}),
                 {std::exp(-1.5), std::exp(-0.5), 1.0, std::exp(0.5), std::exp(2.0)});
    CHECK_TENSOR(run1(x, "y = tanh(x);"), "y", ({1, 5}),
                 {std::tanh(-1.5), std::tanh(-0.5), 0.0, std::tanh(0.5), std::tanh(2.0)});
    const TensorValue p = scalars({4}, {0.25f, 1.0f, 2.0f, 4.0f});
    CHECK_TENSOR(run1(p, "y = log(x);"), "y", ({4}), {std::log(0.25), 0.0, std::log(2.0), std::log(4.0)});
    CHECK_TENSOR(run1(p, "y = rcp(x);"), "y", ({4}), {4.0, 1.0, 0.5, 0.25});
    CHECK_TENSOR(run1(p, "y = sqrt(x);"), "y", ({4}), {0.5, 1.0, std::sqrt(2.0), 2.0});
    CHECK_TENSOR(run1(p, "y = rsqrt(x);"), "y", ({4}), {2.0, 1.0, 1.0 / std::sqrt(2.0), 0.5});
    CHECK_TENSOR(run1(p, "y = sqr(x);"), "y", ({4}), {0.0625, 1.0, 4.0, 16.0});
    CHECK_TENSOR(run1(p, "y = rsqr(x);"), "y", ({4}), {16.0, 1.0, 0.25, 0.0625});
    CHECK_TENSOR(run1(p, "y = log2(x);"), "y", ({4}), {-2.0, 0.0, 1.0, 2.0});
    const TensorValue t = scalars({3}, {-0.5f, 0.0f, 0.5f});
    for (const char* f : {"sin", "cos", "tan", "sinh", "cosh", "asin", "acos", "atan", "asinh", "atanh"}) {
        CAPTURE(f);
        double (*ref)(double) = nullptr;
        const std::string n = f;
        if (n == "sin") ref = [](double v) { return std::sin(v); };
        if (n == "cos") ref = [](double v) { return std::cos(v); };
        if (n == "tan") ref = [](double v) { return std::tan(v); };
        if (n == "sinh") ref = [](double v) { return std::sinh(v); };
        if (n == "cosh") ref = [](double v) { return std::cosh(v); };
        if (n == "asin") ref = [](double v) { return std::asin(v); };
        if (n == "acos") ref = [](double v) { return std::acos(v); };
        if (n == "atan") ref = [](double v) { return std::atan(v); };
        if (n == "asinh") ref = [](double v) { return std::asinh(v); };
        if (n == "atanh") ref = [](double v) { return std::atanh(v); };
        CHECK_TENSOR(run1(t, "y = " + n + "(x);"), "y", ({3}), {ref(-0.5), ref(0.0), ref(0.5)});
    }
    CHECK_TENSOR(run1(scalars({2}, {1.0f, 2.0f}), "y = acosh(x);"), "y", ({2}), {0.0, std::acosh(2.0)});
    CHECK_TENSOR(run({{"x", logicals({3}, {true, false, true})}}, "y = not(x);", {"y"}), "y", ({3}), {0, 1, 0});
}

TEST_CASE("activation compounds") {
    const TensorValue x = scalars({1, 5}, {-1.5f, -0.5f, 0.0f, 0.5f, 2.0f});
    CHECK_TENSOR(run1(x, "y = relu(x);"), "y", ({1, 5}), {0, 0, 0, 0.5, 2});
    CHECK_TENSOR(run1(x, "y = leaky_relu(x, alpha = 0.1);"), "y", ({1, 5}), {-0.15, -0.05, 0, 0.5, 2});
    CHECK_TENSOR(run1(x, "y = clamp(x, -1.0, 1.0);"), "y", ({1, 5}), {-1, -0.5, 0, 0.5, 1});
    auto sig = [](double v) { return 1.0 / (1.0 + std::exp(-v)); };
    CHECK_TENSOR(run1(x, "y = sigmoid(x);"), "y", ({1, 5}), {sig(-1.5), sig(-0.5), 0.5, sig(0.5), sig(2.0)});
    CHECK_TENSOR(run1(x, "y = elu(x);"), "y", ({1, 5}), {std::exp(-1.5) - 1, std::exp(-0.5) - 1, 0, 0.5, 2});
    CHECK_TENSOR(run1(x, "y = elu(x, alpha = 2.0);"), "y", ({1, 5}),
                 {2 * (std::exp(-1.5) - 1), 2 * (std::exp(-0.5) - 1), 0, 0.5, 2});
    CHECK_TENSOR(run1(x, "y = softplus(x);"), "y", ({1, 5}),
                 {std::log1p(std::exp(-1.5)), std::log1p(std::exp(-0.5)), std::log(2.0), std::log1p(std::exp(0.5)),
                  std::log1p(std::exp(2.0))});
    CHECK_TENSOR(run1(x, "y = silu(x);"), "y", ({1, 5}), {-1.5 * sig(-1.5), -0.5 * sig(-0.5), 0, 0.5 * sig(0.5), 2 * sig(2.0)});
    CHECK_TENSOR(run1(x, "y = gelu(x);"), "y", ({1, 5}),
                 {-1.5 * sig(-1.5 * 1.702), -0.5 * sig(-0.5 * 1.702), 0, 0.5 * sig(0.5 * 1.702), 2 * sig(2 * 1.702)});
    const double a = 1.67326319, l = 1.05070102;
    CHECK_TENSOR(run1(x, "y = selu(x);"), "y", ({1, 5}),
                 {l * a * (std::exp(-1.5) - 1), l * a * (std::exp(-0.5) - 1), 0, l * 0.5, l * 2});
    CHECK_TENSOR(run1(x, "y = softabs(x, epsilon = 0.25);"), "y", ({1, 5}),
                 {std::sqrt(2.5), std::sqrt(0.5), 0.5, std::sqrt(0.5), std::sqrt(4.25)});
    // prelu: alpha per channel ([1, 2] broadcasts over the trailing dimension)
    const TensorValue c = scalars({1, 2, 2}, {-1.0f, 2.0f, -3.0f, 4.0f});
    CHECK_TENSOR(run({{"x", c}, {"a", scalars({1, 2}, {0.5f, 0.25f})}}, "y = prelu(x, a);", {"y"}), "y", ({1, 2, 2}),
                 {-0.5, 2.0, -0.75, 4.0});
}

TEST_CASE("binary operations broadcast from dimension 0") {
    const TensorValue x = scalars({2, 3}, {1, 2, 3, 4, 5, 6});
    SUBCASE("same shape") {
        CHECK_TENSOR(run({{"x", x}, {"z", x}}, "y = add(x, z);", {"y"}), "y", ({2, 3}), {2, 4, 6, 8, 10, 12});
    }
    SUBCASE("column [2,1]") {
        const TensorValue c = scalars({2, 1}, {10, 20});
        CHECK_TENSOR(run({{"x", x}, {"c", c}}, "y = add(x, c);", {"y"}), "y", ({2, 3}), {11, 12, 13, 24, 25, 26});
        CHECK_TENSOR(run({{"x", x}, {"c", c}}, "y = sub(c, x);", {"y"}), "y", ({2, 3}), {9, 8, 7, 16, 15, 14});
    }
    SUBCASE("row [1,3]") {
        const TensorValue r = scalars({1, 3}, {1, 2, 4});
        CHECK_TENSOR(run({{"x", x}, {"r", r}}, "y = mul(x, r);", {"y"}), "y", ({2, 3}), {1, 4, 12, 4, 10, 24});
        CHECK_TENSOR(run({{"x", x}, {"r", r}}, "y = div(x, r);", {"y"}), "y", ({2, 3}), {1, 1, 0.75, 4, 2.5, 1.5});
    }
    SUBCASE("lower rank: [2] is [2,1] (missing trailing extents are 1)") {
        CHECK_TENSOR(run({{"x", x}, {"c", scalars({2}, {10, 20})}}, "y = add(x, c);", {"y"}), "y", ({2, 3}),
                     {11, 12, 13, 24, 25, 26});
    }
    SUBCASE("both sides broadcast: [2,1] and [1,3]") {
        CHECK_TENSOR(run({{"c", scalars({2, 1}, {1, 2})}, {"r", scalars({1, 3}, {10, 20, 30})}}, "y = add(c, r);", {"y"}),
                     "y", ({2, 3}), {11, 21, 31, 12, 22, 32});
    }
    SUBCASE("literals") {
        CHECK_TENSOR(run1(x, "y = add(x, 0.5);"), "y", ({2, 3}), {1.5, 2.5, 3.5, 4.5, 5.5, 6.5});
        CHECK_TENSOR(run1(x, "y = pow(x, 2.0);"), "y", ({2, 3}), {1, 4, 9, 16, 25, 36});
        CHECK_TENSOR(run1(x, "y = pow(2.0, x);"), "y", ({2, 3}), {2, 4, 8, 16, 32, 64});
        CHECK_TENSOR(run1(x, "y = min(x, 3.5);"), "y", ({2, 3}), {1, 2, 3, 3.5, 3.5, 3.5});
        CHECK_TENSOR(run1(x, "y = max(x, 3.5);"), "y", ({2, 3}), {3.5, 3.5, 3.5, 4, 5, 6});
    }
    SUBCASE("comparisons and logical operations") {
        CHECK_TENSOR(run1(x, "y = lt(x, 3.0);"), "y", ({2, 3}), {1, 1, 0, 0, 0, 0});
        CHECK_TENSOR(run1(x, "y = le(x, 3.0);"), "y", ({2, 3}), {1, 1, 1, 0, 0, 0});
        CHECK_TENSOR(run1(x, "y = gt(x, 3.0);"), "y", ({2, 3}), {0, 0, 0, 1, 1, 1});
        CHECK_TENSOR(run1(x, "y = ge(x, 3.0);"), "y", ({2, 3}), {0, 0, 1, 1, 1, 1});
        CHECK_TENSOR(run1(x, "y = eq(x, 3.0);"), "y", ({2, 3}), {0, 0, 1, 0, 0, 0});
        CHECK_TENSOR(run1(x, "y = ne(x, 3.0);"), "y", ({2, 3}), {1, 1, 0, 1, 1, 1});
        const TensorValue a = logicals({4}, {false, false, true, true}), b = logicals({4}, {false, true, false, true});
        CHECK_TENSOR(run({{"a", a}, {"b", b}}, "y = and(a, b);", {"y"}), "y", ({4}), {0, 0, 0, 1});
        CHECK_TENSOR(run({{"a", a}, {"b", b}}, "y = or(a, b);", {"y"}), "y", ({4}), {0, 1, 1, 1});
    }
}

TEST_CASE("select and cast") {
    const TensorValue c = logicals({2, 1}, {true, false});
    const TensorValue x = scalars({2, 3}, {1, 2, 3, 4, 5, 6});
    CHECK_TENSOR(run({{"c", c}, {"x", x}}, "y = select(c, x, -1.0);", {"y"}), "y", ({2, 3}), {1, 2, 3, -1, -1, -1});
    const TensorValue i = integers({3}, {7, 8, 9});
    CHECK_TENSOR(run({{"c", logicals({3}, {true, false, true})}, {"i", i}}, "y = select<integer>(c, i, 0);", {"y"}), "y",
                 ({3}), {7, 0, 9});
    // scalar -> integer is floor (as the compile-time integer(x)); to logical is != 0
    const TensorValue s = scalars({4}, {-1.5f, -0.5f, 0.0f, 2.7f});
    CHECK_TENSOR(run1(s, "y = cast<integer>(x);"), "y", ({4}), {-2, -1, 0, 2});
    CHECK_TENSOR(run1(s, "y = cast<logical>(x);"), "y", ({4}), {1, 1, 0, 1});
    CHECK_TENSOR(run({{"x", integers({2}, {3, -4})}}, "y = cast<scalar>(x);", {"y"}), "y", ({2}), {3, -4});
    CHECK_TENSOR(run({{"x", logicals({2}, {true, false})}}, "y = cast<scalar>(x);", {"y"}), "y", ({2}), {1, 0});
    CHECK_TENSOR(run({{"x", integers({2}, {3, -4})}}, "y = copy(x);", {"y"}), "y", ({2}), {3, -4});
}

}  // TEST_SUITE

}  // namespace elementwise_test
