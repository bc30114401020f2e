// The NNAPI JSON fuzz target's properties (fuzz/nnapi_checks.hpp) on the seed models
// (tests/unit/nnapi/models/, also the fuzzer's seeds) and on every prefix and a sweep of one-byte
// changes of them, in every build; and the seed models read from their files, validate and run.
#include <doctest/doctest.h>

#include <filesystem>

#include "fuzz/nnapi_checks.hpp"
#include "test_support.hpp"
#include "unit/nnapi/nnapi_fixtures.hpp"

using namespace nnapi_test;

namespace fuzz_check_test {

std::vector<std::filesystem::path> seed_models() {
    std::vector<std::filesystem::path> out;
    for (const auto& e : std::filesystem::directory_iterator(std::string(NNEF_SOURCE_DIR) + "/tests/unit/nnapi/models"))
        if (e.path().extension() == ".json") out.push_back(e.path());
    std::sort(out.begin(), out.end());
    return out;
}

std::string check(const std::string& text) {
    return nnef_fuzz::check_nnapi_json(reinterpret_cast<const std::uint8_t*>(text.data()), text.size());
}


TEST_SUITE("nnapi") {
TEST_CASE("fuzz check: seed models read, validate and run") {
    auto seeds = seed_models();
    CHECK(seeds.size() == 4);
    for (const auto& path : seeds) {
        CAPTURE(path.string());
        nnef::Diagnostics d;
        auto m = read_model(path.string(), d);
        REQUIRE(m.has_value());
        CHECK(validate(*m, d));
        std::vector<Tensor> inputs;
        for (std::uint32_t i : m->inputIndexes) {
            auto t = filled_tensor(m->operands[i], 1);
            REQUIRE(t.has_value());
            inputs.push_back(*t);
        }
        auto out = run(*m, inputs, d);
        CHECK(out.has_value());
        CHECK(check(nnef_test::read_text(path)) == "");
    }
}

TEST_CASE("fuzz check: prefixes and one-byte changes of the seeds") {
    std::size_t inputs = 0;
    for (const auto& path : seed_models()) {
        const std::string text = nnef_test::read_text(path);
        for (std::size_t cut = 0; cut < text.size(); cut += 13) {
            CAPTURE(cut);
            CHECK(check(text.substr(0, cut)) == "");
            ++inputs;
        }
        for (std::size_t at = 0; at < text.size(); at += 11) {
            for (char c : {'0', '-', '"', 'x'}) {
                std::string changed = text;
                changed[at] = c;
                CAPTURE(changed);
                CHECK(check(changed) == "");
                ++inputs;
            }
        }
    }
    CHECK(inputs > 1000);
}
}

}  // namespace fuzz_check_test
