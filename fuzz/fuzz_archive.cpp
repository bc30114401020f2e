// libFuzzer target: bytes -> model container (tar, tgz or a bare graph file, by content) with small
// limits, then every member read as a tensor file (properties in fuzz/storage_checks.hpp: limits
// hold, member names are safe, nothing is written). A violated property aborts with its
// description; crashes, hangs and memory blow-ups are caught by libFuzzer and the sanitizers.
#include <cstdio>
#include <cstdlib>

#include "fuzz/storage_checks.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string why = nnef_fuzz::check_container_bytes(data, size);
    if (!why.empty()) {
        std::fprintf(stderr, "fuzz_archive: %s\n", why.c_str());
        std::abort();
    }
    return 0;
}
