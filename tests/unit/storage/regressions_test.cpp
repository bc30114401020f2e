// Replays every saved fuzzer input under tests/unit/storage/regressions/ with the fuzz targets'
// checks (fuzz/storage_checks.hpp), in every build: `tensor-*` files as tensor file bytes,
// `archive-*` files as container bytes.
#include <doctest/doctest.h>

#include "fuzz/storage_checks.hpp"
#include "fuzz_replay.hpp"

TEST_SUITE("storage") {
    TEST_CASE("fuzzer regressions replay cleanly") {
        const std::size_t replayed = nnef_test::replay_fuzz_inputs(
            nnef_test::source_dir() / "tests/unit/storage/regressions",
            {{"tensor-", nnef_fuzz::check_tensor_bytes}, {"archive-", nnef_fuzz::check_container_bytes}});
        MESSAGE("replayed " << replayed << " fuzzer inputs");
    }
}
