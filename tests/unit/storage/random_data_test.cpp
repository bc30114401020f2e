// storage/random_data: splitmix64 against its published first output, and random_weights (which
// takes 8 items a step where the processor has AVX-512) item for item against the documented
// formula computed one item at a time, at lengths around the 8-item steps.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "storage/random_data.hpp"

TEST_SUITE("storage") {
    TEST_CASE("random data: splitmix64's sequence") {
        nnef::storage::SplitMix64 rng{0};
        CHECK(rng.next() == 0xe220a8397b1dcdafull);  // splitmix64 from state 0 (Vigna's reference code)
        nnef::storage::SplitMix64 again{0};
        CHECK(again.uniform() == double(0xe220a8397b1dcdafull >> 11) / 9007199254740992.0);
    }

    TEST_CASE("random data: random_weights is the formula of its documentation, item for item") {
        for (const std::int64_t rows : {1, 7, 8, 9, 33, 1001}) {
            for (const bool positive : {false, true}) {
                CAPTURE(rows);
                CAPTURE(positive);
                const nnef::Shape shape{rows, 5};  // fan_in 5
                const std::uint64_t seed = nnef::storage::variable_seed("conv1/weight", 7);
                std::vector<float> got(static_cast<std::size_t>(5 * rows));
                nnef::storage::random_weights(got.data(), shape, seed, positive);
                nnef::storage::SplitMix64 rng{seed};
                std::size_t differ = 0;
                for (std::size_t i = 0; i < got.size(); ++i) {
                    const double u = rng.uniform();
                    const float want = static_cast<float>(positive ? 0.5 + u : (2.0 * u - 1.0) * std::sqrt(3.0 / 5.0));
                    if (got[i] != want) ++differ;
                }
                CHECK(differ == 0);
            }
        }
        // fan_in 1000: items within sqrt(3 / 1000), not all equal.
        std::vector<float> w(8000);
        nnef::storage::random_weights(w.data(), {8, 10, 10, 10}, 1, false);
        const double bound = std::sqrt(3.0 / 1000.0);
        bool within = true, varied = false;
        for (float x : w) within = within && std::abs(x) <= bound, varied = varied || x != w[0];
        CHECK(within);
        CHECK(varied);
    }
}
