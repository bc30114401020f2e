// storage/random_data: splitmix64 against its published first output, and random_weights (which
// takes 8 items a step where the processor has AVX-512) item for item against the documented
// formula computed one item at a time, at lengths around the 8-item steps.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "nnef/nnef.hpp"
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

    TEST_CASE("random data: a batch norm's variance and scale are positive also through copy and unsqueeze") {
        // Exported models (the corpus's DenseNet-121 and ResNet-18-BN) pass a batch norm's 1-D
        // variables through copy and unsqueeze; their random weights must be positive there too,
        // or sqrt(variance + epsilon) is NaN (the fp16 VPU then returned NaN where nnef-run's relu
        // hid it). The executor's run of this graph: tests/unit/exec/executor_test.cpp.
        nnef::Session s;
        REQUIRE(s.load_text("graph.nnef", "version 1.0;\ngraph G( x ) -> ( y ) {\n"
                                           "    x = external(shape = [1, 64, 2, 2]);\n"
                                           "    m = variable(shape = [64], label = 'm');\n"
                                           "    v = variable(shape = [64], label = 'v');\n"
                                           "    o = variable(shape = [64], label = 'o');\n"
                                           "    g = variable(shape = [64], label = 'g');\n"
                                           "    vc = copy(v);\n"
                                           "    vu = unsqueeze(vc, axes = [0]);\n"
                                           "    gu = unsqueeze(g, axes = [0]);\n"
                                           "    mu = unsqueeze(m, axes = [0]);\n"
                                           "    ou = unsqueeze(o, axes = [0]);\n"
                                           "    y = batch_normalization(x, mu, vu, ou, gu, epsilon = 1e-5);\n}\n"));
        const std::set<std::string> positive = nnef::storage::positive_variables(*s.graph());
        CHECK(positive.count("v") == 1);
        CHECK(positive.count("g") == 1);
        CHECK(positive.count("m") == 0);
        CHECK(positive.count("o") == 0);
    }
}
