// libFuzzer target: bytes -> model container (tar, tgz or a bare graph file, by content) with small
// limits, then every member read as a tensor file (properties in fuzz/storage_checks.hpp: limits
// hold, member names are safe, nothing is written). A violated property aborts with its
// description; crashes, hangs and memory blow-ups are caught by libFuzzer and the sanitizers.
#include "fuzz/storage_checks.hpp"
#include "fuzz/target.hpp"

NNEF_FUZZ_TARGET("fuzz_archive", nnef_fuzz::check_container_bytes)
