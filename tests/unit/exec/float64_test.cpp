// The float64 executor (nnef::exec64, the exec/ sources compiled with NNEF_EXEC_FLOAT64): every
// kernel computes scalars in double. Each case is one where float32 rounding is visible; the
// results equal the same formula evaluated in double here.
#define NNEF_EXEC_FLOAT64 1
#include "exec_support.hpp"

#include <cmath>
#include <type_traits>

namespace float64_test {

using namespace exec64_test;

// The items of output y of an outcome, which must have succeeded.
std::vector<double> items(const Outcome& o) {
    INFO(o.messages);
    REQUIRE(o.ok);
    CHECK(o["y"].dtype() == nnef::PrimType::scalar);
    return o["y"].to_doubles();
}

TEST_SUITE("exec") {

TEST_CASE("float64 executor: scalar items are double") {
    static_assert(std::is_same_v<nnef::exec64::Real, double>);
    static_assert(std::is_same_v<nnef::exec64::ItemOf<nnef::PrimType::scalar>::type, double>);
    const nnef::exec64::TensorValue t(nnef::PrimType::scalar, {2});
    CHECK(nnef::exec64::item_size(t.dtype()) == sizeof(double));
}

TEST_CASE("float64 executor: arithmetic where float32 rounds visibly") {
    volatile double big = 1e8, huge = 1e16;  // volatile: evaluated at run time, as the kernels do
    SUBCASE("cancellation (x + 1) - x: float32 gives 0 for 1e8 (its spacing there is 8)") {
        const std::vector<double> y = items(run1(scalars({1, 3}, {1e8, 1e16, 3.0}), "y = (x + 1.0) - x;"));
        CHECK(y == std::vector<double>{(big + 1.0) - big, (huge + 1.0) - huge, 1.0});
        CHECK(y[0] == 1.0);
        CHECK(y[1] == 0.0);  // double has its limit too: 1e16 + 1 rounds to 1e16
    }
    SUBCASE("a long chain of additions") {
        // y = x + 1 + 1 + ... (64 times) with x = 1e8: float32 stays at 1e8
        std::string body = "t0 = x;\n";
        for (int i = 1; i <= 64; ++i) body += "    t" + std::to_string(i) + " = t" + std::to_string(i - 1) + " + 1.0;\n";
        body += "    y = t64 - x;";
        const std::vector<double> y = items(run1(scalars({1}, {1e8}), body));
        CHECK(y == std::vector<double>{64.0});
    }
    SUBCASE("matrix product: the accumulation is double") {
        const auto o = run({{"a", scalars({1, 3}, {1e8, 1.0, -1e8})}, {"b", scalars({3, 1}, {1.0, 1.0, 1.0})}},
                           "y = matmul(a, b);", {"y"});
        CHECK(items(o) == std::vector<double>{(big + 1.0) - big});
    }
    SUBCASE("convolution: the accumulation is double") {
        const auto o = run({{"a", scalars({1, 1, 3}, {1e8, 1.0, -1e8})}, {"f", scalars({1, 1, 3}, {1.0, 1.0, 1.0})}},
                           "y = conv(a, f, 0.0, padding = [(0, 0)]);", {"y"});
        CHECK(items(o) == std::vector<double>{1.0});
    }
    SUBCASE("reduction: the double sum is not rounded to float32") {
        const std::vector<double> y = items(run1(scalars({1, 2}, {1.0, 1e-9}), "y = sum_reduce(x, axes = [1]);"));
        CHECK(y == std::vector<double>{1.0 + 1e-9});
    }
    SUBCASE("transcendental functions keep every digit") {
        const std::vector<double> y = items(run1(scalars({1, 2}, {0.1, 2.0}), "y = exp(x) + sqrt(x);"));
        CHECK(y == std::vector<double>{std::exp(0.1) + std::sqrt(0.1), std::exp(2.0) + std::sqrt(2.0)});
    }
    SUBCASE("literals keep double precision") {
        const std::vector<double> y = items(run1(scalars({1}, {0.0}), "y = x + 0.1;"));
        CHECK(y == std::vector<double>{0.1});
    }
}

TEST_CASE("float64 executor: variables carry double state across cycles") {
    // the state grows by 1 per cycle from 1e8: float32 would stay at 1e8
    nnef::Session session;
    REQUIRE(session.load_text("graph.nnef", "version 1.0;\n\ngraph G( x ) -> ( y )\n{\n"
                                            "    x = external(shape = [1]);\n"
                                            "    s = variable(shape = [1], label = 's');\n"
                                            "    y = add(s, x);\n"
                                            "    t = update(s, y);\n}\n"));
    nnef::exec64::ExecOptions eo;
    eo.random_weights = 0;  // the state starts at a pseudo-random (float32) value s0
    auto created = nnef::exec64::Executor::create(*session.graph(), eo);
    REQUIRE(created);
    nnef::exec64::Executor& ex = **created;
    const double s0 = ex.variable("s")->as_double(0);
    nnef::Diagnostics d;
    REQUIRE(ex.set_input("x", scalars({1}, {1e8}), d));
    REQUIRE(ex.run(d));
    REQUIRE(ex.set_input("x", scalars({1}, {1.0}), d));
    for (int c = 0; c < 3; ++c) REQUIRE(ex.run(d));
    CHECK(ex.variable("s")->as_double(0) == ((((s0 + 1e8) + 1.0) + 1.0) + 1.0));
    CHECK(ex.cycles() == 4);
}

}  // TEST_SUITE

}  // namespace float64_test
