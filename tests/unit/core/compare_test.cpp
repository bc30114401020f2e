// The test tree's one comparison of numbers (tests/common/compare.hpp): a NaN or an infinity fails
// every criterion wherever it is (first, middle, last; on either side), and is named in the summary;
// the figures are the formulas they claim.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "common/compare.hpp"

namespace compare_test {

using nnef_test::Comparison;
using nnef_test::compare;
using nnef_test::CompareOptions;

const double nan_ = std::numeric_limits<double>::quiet_NaN();
const double inf_ = std::numeric_limits<double>::infinity();

bool has(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

// Every criterion, at tolerances any finite difference here meets.
bool any_criterion_passes(const Comparison& c) {
    return c.max_abs_within(1e9) || c.max_rel_within(1e9) || c.rel_l2_within(1e9) || c.scaled_within(1e9) ||
           c.within(1e9, 1e9) || c.exact() || c.comparable();
}

TEST_SUITE("core") {

TEST_CASE("compare: a NaN or an infinity first, in the middle or last fails every criterion and is named") {
    const std::vector<double> want{1.0, -2.0, 3.0, 0.5, -4.0};
    for (double bad : {nan_, inf_, -inf_}) {
        for (std::size_t at : {std::size_t(0), std::size_t(2), std::size_t(4)}) {
            CAPTURE(bad);
            CAPTURE(at);
            std::vector<double> got = want;
            // the other items differ by more, and by less, than anything before or after the bad one:
            // a running maximum that a NaN resets or skips would pass them
            got[(at + 1) % got.size()] += 0.25;
            got[at] = bad;
            const Comparison c = compare(got, want);
            CHECK_FALSE(any_criterion_passes(c));
            CHECK(c.nonfinite() == 1);
            CHECK(has(c.summary(), "the first at item " + std::to_string(at) + " "));
            // the same on the wanted side
            const Comparison r = compare(want, got);
            CHECK_FALSE(any_criterion_passes(r));
            CHECK(has(r.summary(), "the first at item " + std::to_string(at) + " "));
        }
    }
    // every item NaN
    CHECK_FALSE(any_criterion_passes(compare(std::vector<double>(3, nan_), want)));
    // float items
    const std::vector<float> f{1.0f, std::numeric_limits<float>::quiet_NaN(), 3.0f};
    CHECK_FALSE(compare(f, std::vector<float>{1.0f, 2.0f, 3.0f}).max_abs_within(1e9));
}

TEST_CASE("compare: NaN against NaN fails unless equal non-finite items are allowed, and then only the same one passes") {
    const std::vector<double> a{nan_, 1.0, inf_, -inf_}, b{nan_, 1.0, inf_, -inf_};
    CHECK_FALSE(compare(a, b).exact());
    CHECK(compare(a, b).nonfinite() == 3);
    const Comparison allowed = compare(a, b, CompareOptions{true});
    CHECK(allowed.exact());
    CHECK(allowed.max_abs_within(0.0));
    CHECK(allowed.items() == 4);
    // allowed, but not the same: NaN vs a number, +inf vs -inf, inf vs a number
    for (const auto& pair : {std::pair<double, double>{nan_, 1.0}, {1.0, nan_}, {inf_, -inf_}, {inf_, 1e308}, {-inf_, nan_}}) {
        const double x = pair.first, y = pair.second;  // (not a structured binding: CAPTURE's lambda captures it, which clang 14 refuses in C++17)
        CAPTURE(x);
        CAPTURE(y);
        const Comparison c = compare(std::vector<double>{0.0, x, 0.0}, std::vector<double>{0.0, y, 0.0}, CompareOptions{true});
        CHECK_FALSE(any_criterion_passes(c));
        CHECK(has(c.summary(), "the first at item 1 "));
    }
}

TEST_CASE("compare: the figures and criteria are the formulas they claim") {
    // got - want = {0.5, -1, 0, 2}; |want| = {1, 4, 0, 10}
    const std::vector<double> got{1.5, 3.0, 0.0, 12.0}, want{1.0, 4.0, 0.0, 10.0};
    const Comparison c = compare(got, want);
    CHECK(c.comparable());
    CHECK(c.items() == 4);
    CHECK(c.max_abs() == 2.0);
    CHECK(c.max_ref() == 10.0);
    CHECK(c.max_rel() == doctest::Approx(0.2));
    CHECK(c.rel_l2() == doctest::Approx(std::sqrt((0.25 + 1.0 + 4.0) / (1.0 + 16.0 + 100.0))));
    CHECK(c.max_scaled() == doctest::Approx(0.5));  // 0.5 / max(1, 1), 1 / 4, 2 / 10
    CHECK(c.max_abs_within(2.0));
    CHECK_FALSE(c.max_abs_within(1.99));
    CHECK(c.max_rel_within(0.2));
    CHECK_FALSE(c.max_rel_within(0.19));
    CHECK(c.scaled_within(0.5));
    CHECK_FALSE(c.scaled_within(0.49));
    CHECK(c.within(1.0, 0.1));   // 2 <= 1 + 0.1 * 10
    CHECK_FALSE(c.within(0.5, 0.1));
    CHECK_FALSE(c.exact());
    CHECK(has(c.summary(), "max abs error 2 at item 3 (got 12, want 10)"));
    // a reference of zeros: the relative figures are absolute
    const Comparison z = compare(std::vector<double>{3.0, 4.0}, std::vector<double>{0.0, 0.0});
    CHECK(z.max_rel() == 4.0);
    CHECK(z.rel_l2() == 5.0);
    // integers
    CHECK(compare(std::vector<std::int64_t>{-3, 7}, std::vector<std::int64_t>{-3, 7}).exact());
    CHECK(compare(std::vector<std::int64_t>{-3, 7}, std::vector<std::int64_t>{-2, 7}).max_abs() == 1.0);
}

TEST_CASE("compare: sizes that differ, or nothing compared, fail every criterion") {
    const Comparison c = compare(std::vector<double>{1.0, 2.0}, std::vector<double>{1.0, 2.0, 3.0});
    CHECK_FALSE(c.sizes_match());
    CHECK_FALSE(any_criterion_passes(c));
    CHECK(has(c.summary(), "sizes differ: got 2 items, want 3"));
    const Comparison e = compare(std::vector<double>{}, std::vector<double>{});
    CHECK_FALSE(any_criterion_passes(e));
    CHECK(has(e.summary(), "nothing compared"));
}

TEST_CASE("compare: parts are one comparison, and a bad item is named with its part") {
    Comparison c;
    c.add(std::vector<double>{1.0, 2.0}, std::vector<double>{1.0, 2.5});
    c.add(std::vector<double>{10.0, nan_, 0.0}, std::vector<double>{10.0, 1.0, 0.0});
    CHECK(c.parts() == 2);
    CHECK(c.items() == 5);
    CHECK_FALSE(c.max_abs_within(1e9));
    CHECK(has(c.summary(), "the first at item 1 of part 1 "));
    Comparison d;
    d.add(std::vector<double>{1.0}, std::vector<double>{2.0});
    d.add(std::vector<double>{4.0}, std::vector<double>{10.0});
    CHECK(d.max_abs() == 6.0);
    CHECK(d.max_ref() == 10.0);
    CHECK(d.max_rel() == doctest::Approx(0.6));
    CHECK(has(d.summary(), "at item 0 of part 1 (got 4, want 10)"));
}

}  // TEST_SUITE

}  // namespace compare_test
