// Replays inputs saved from the fuzz targets (tests/unit/*/regressions/) through the targets'
// checks (fuzz/*_checks.hpp), in every build.
#pragma once
#include <doctest/doctest.h>

#include <cstdint>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "test_support.hpp"

namespace nnef_test {

// A check of fuzz/*_checks.hpp: empty when the properties hold, otherwise what was violated.
using FuzzCheck = std::string (*)(const std::uint8_t*, std::size_t);

// Every file of `dir` whose name starts with one of the prefixes goes through that prefix's check,
// which must hold. Returns how many files were replayed.
inline std::size_t replay_fuzz_inputs(const std::filesystem::path& dir,
                                      const std::vector<std::pair<std::string, FuzzCheck>>& checks) {
    REQUIRE(std::filesystem::is_directory(dir));
    std::size_t replayed = 0;
    for (const auto& entry : std::filesystem::directory_iterator(dir)) {
        const std::string name = entry.path().filename().string();
        for (const auto& [prefix, check] : checks) {
            if (name.rfind(prefix, 0) != 0) continue;
            CAPTURE(name);
            const std::string bytes = read_text(entry.path());
            CHECK(check(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size()) == "");
            ++replayed;
        }
    }
    return replayed;
}

}  // namespace nnef_test
