// libFuzzer target: bytes -> TOSA MLIR text read by tosa::read_mlir with tight limits, and an
// accepted graph written and read again (properties in fuzz/mlir_checks.hpp). A violated property
// aborts with its description.
#include "fuzz/mlir_checks.hpp"
#include "fuzz/target.hpp"

NNEF_FUZZ_TARGET("fuzz_mlir", nnef_fuzz::check_mlir_text)
