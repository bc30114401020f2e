// libFuzzer target: bytes -> graph.quant text applied to a fixed graph with
// storage::apply_quantization, with tight limits (properties in fuzz/text_checks.hpp). A violated
// property aborts with its description.
#include "fuzz/target.hpp"
#include "fuzz/text_checks.hpp"

NNEF_FUZZ_TARGET("fuzz_quant", nnef_fuzz::check_quant_text)
