// libFuzzer target: bytes -> tensor file codec (properties in fuzz/storage_checks.hpp: the three
// readers agree, a refusal carries an error, an accepted tensor decodes item by item and encodes
// back to exactly the input bytes). A violated property aborts with its description.
#include <cstdio>
#include <cstdlib>

#include "fuzz/storage_checks.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string why = nnef_fuzz::check_tensor_bytes(data, size);
    if (!why.empty()) {
        std::fprintf(stderr, "fuzz_tensor_file: %s\n", why.c_str());
        std::abort();
    }
    return 0;
}
