// Replays every saved fuzzer input under tests/unit/storage/regressions/ with the fuzz targets'
// checks (fuzz/storage_checks.hpp), in every build: `tensor-*` files as tensor file bytes,
// `archive-*` files as container bytes.
#include <doctest/doctest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "fuzz/storage_checks.hpp"
#include "test_support.hpp"

TEST_SUITE("storage") {
    TEST_CASE("fuzzer regressions replay cleanly") {
        const std::filesystem::path dir = nnef_test::source_dir() / "tests/unit/storage/regressions";
        REQUIRE(std::filesystem::is_directory(dir));
        std::size_t replayed = 0;
        for (const auto& entry : std::filesystem::directory_iterator(dir)) {
            const std::string name = entry.path().filename().string();
            const bool tensor = name.rfind("tensor-", 0) == 0, container = name.rfind("archive-", 0) == 0;
            if (!tensor && !container) continue;
            CAPTURE(name);
            const std::string bytes = nnef_test::read_text(entry.path());
            const auto* data = reinterpret_cast<const std::uint8_t*>(bytes.data());
            const std::string why = tensor ? nnef_fuzz::check_tensor_bytes(data, bytes.size())
                                           : nnef_fuzz::check_container_bytes(data, bytes.size());
            CHECK(why == "");
            ++replayed;
        }
        MESSAGE("replayed " << replayed << " fuzzer inputs");
    }
}
