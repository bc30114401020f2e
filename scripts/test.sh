#!/usr/bin/env bash
# Installs what is missing, builds, and runs every test; then runs the unit tests once more under
# AddressSanitizer + UndefinedBehaviorSanitizer (set NNEF_SKIP_SANITIZE=1 to skip that part); then
# builds the libFuzzer targets with clang and runs each for 10 s on its seeds, `ctest -L fuzz-smoke`
# (set NNEF_SKIP_FUZZ=1 to skip that part; clang and libFuzzer are installed only for it).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/install-deps.sh" mlir
"$root/scripts/build.sh"
build=${NNEF_BUILD_DIR:-$root/build}
(cd "$build" && ctest --output-on-failure -j"$(nproc)")
if [ "${NNEF_SKIP_SANITIZE:-0}" != 1 ]; then
  asan=${NNEF_ASAN_BUILD_DIR:-$root/build-asan}
  # -O1 -g1 (line tables): stack traces with lines, at about half the compile time of -O2 -g.
  NNEF_BUILD_DIR=$asan "$root/scripts/build.sh" -DNNEF_SANITIZE=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g1 -DNDEBUG"
  # alloc_dealloc_mismatch=0: Debian's Boost.Filesystem 1.74 allocates its directory iterators with
  # `new (std::nothrow)` and frees them with `free` inside the shared library (fixed in later Boost).
  # tests/lsan.supp: what Graphviz and fontconfig keep for the life of the process (nnef-draw's layout).
  (cd "$asan" && ASAN_OPTIONS=detect_leaks=1:alloc_dealloc_mismatch=0 UBSAN_OPTIONS=print_stacktrace=1 \
     LSAN_OPTIONS=suppressions="$root/tests/lsan.supp" \
     ctest --output-on-failure -j"$(nproc)")
fi
if [ "${NNEF_SKIP_FUZZ:-0}" != 1 ]; then
  "$root/scripts/install-deps.sh" fuzz
  fuzz=${NNEF_FUZZ_BUILD_DIR:-$root/build-fuzz}
  NNEF_FUZZ_BUILD_DIR=$fuzz "$root/scripts/fuzz.sh" --no-run
  (cd "$fuzz" && ctest -L fuzz-smoke --output-on-failure -j"$(nproc)")
fi
