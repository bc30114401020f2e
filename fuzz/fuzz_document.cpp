// libFuzzer target: bytes -> NNEF document through nnef::Session::load_text (parse, check,
// expand, shape inference) with tight limits; an accepted document's flat text must load again
// and print the same flat text (properties in fuzz/text_checks.hpp). A violated property aborts
// with its description; crashes, hangs and memory blow-ups are caught by libFuzzer and the
// sanitizers.
#include "fuzz/target.hpp"
#include "fuzz/text_checks.hpp"

NNEF_FUZZ_TARGET("fuzz_document", nnef_fuzz::check_document_text)
