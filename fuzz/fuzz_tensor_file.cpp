// libFuzzer target: bytes -> tensor file codec (properties in fuzz/storage_checks.hpp: the three
// readers agree, a refusal carries an error, an accepted tensor decodes item by item and encodes
// back to exactly the input bytes). A violated property aborts with its description.
#include "fuzz/storage_checks.hpp"
#include "fuzz/target.hpp"

NNEF_FUZZ_TARGET("fuzz_tensor_file", nnef_fuzz::check_tensor_bytes)
