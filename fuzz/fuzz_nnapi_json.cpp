// libFuzzer target: bytes -> the JSON form of an NNAPI 1.0 model (docs/nnapi.md), read, written back,
// validated and, when small and valid, run by the interpreter (properties in fuzz/nnapi_checks.hpp).
// A violated property aborts with its description.
#include "fuzz/nnapi_checks.hpp"
#include "fuzz/target.hpp"

NNEF_FUZZ_TARGET("fuzz_nnapi_json", nnef_fuzz::check_nnapi_json)
