#!/usr/bin/env bash
# Installs what is missing, builds with GCC (Release), and runs every test; then builds once more
# with clang, AddressSanitizer + UndefinedBehaviorSanitizer and the libFuzzer targets, and in that
# build runs the tests again under the sanitizers (set NNEF_SKIP_SANITIZE=1 to skip them) and each
# fuzz target for 10 s on its seeds, `ctest -L fuzz-smoke` (set NNEF_SKIP_FUZZ=1 to skip them).
# One clang build serves both (docs/building.md): the library is compiled with
# -fsanitize=address,undefined plus libFuzzer's coverage instrumentation (fuzzer-no-link), which the
# test executables, ordinary programs, link without libFuzzer. clang and libclang-rt-14-dev are
# installed only for it.
#   NNEF_BUILD_DIR        the Release build (default build/)
#   NNEF_ASAN_BUILD_DIR   the clang build (default build-asan/); with NNEF_SKIP_SANITIZE=1 it is
#                         NNEF_FUZZ_BUILD_DIR (default build-fuzz/) and builds only the fuzz targets
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/install-deps.sh" mlir
# Both builds batch source files (NNEF_UNITY_BUILD, docs/building.md): a cold build in about half the CPU.
"$root/scripts/build.sh" -DNNEF_UNITY_BUILD=ON
build=${NNEF_BUILD_DIR:-$root/build}
(cd "$build" && ctest --output-on-failure -j"$(nproc)")
sanitize=1
fuzz=1
[ "${NNEF_SKIP_SANITIZE:-0}" = 1 ] && sanitize=0
[ "${NNEF_SKIP_FUZZ:-0}" = 1 ] && fuzz=0
[ $sanitize = 1 ] || [ $fuzz = 1 ] || exit 0
"$root/scripts/install-deps.sh" fuzz
if [ $sanitize = 1 ]; then
  asan=${NNEF_ASAN_BUILD_DIR:-$root/build-asan}
  # The library at -O1 -g1 (line tables): stack traces with lines, at about half the compile time of
  # -O2 -g; the test files at -O0 (tests/CMakeLists.txt). -fno-sanitize-recover=undefined: a UBSan
  # report ends the process, so it fails its test (CMakeLists.txt, NNEF_SANITIZE).
  fuzz_option=ON
  [ $fuzz = 1 ] || fuzz_option=OFF
  NNEF_BUILD_DIR=$asan "$root/scripts/build.sh" -DCMAKE_CXX_COMPILER=clang++ -DNNEF_SANITIZE=ON -DNNEF_UNITY_BUILD=ON \
    -DNNEF_BUILD_FUZZ=$fuzz_option -DNNEF_BUILD_PYTHON=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g1 -DNDEBUG" \
    "-DNNEF_CORPUS_DIR=${NNEF_CORPUS_DIR:-$root/../shared/corpus}"
  # alloc_dealloc_mismatch=0: Debian's Boost.Filesystem 1.74 allocates its directory iterators with
  # `new (std::nothrow)` and frees them with `free` inside the shared library (fixed in later Boost).
  # tests/lsan.supp: what Graphviz and fontconfig keep for the life of the process (nnef-draw's layout).
  (cd "$asan" && ASAN_OPTIONS=detect_leaks=1:alloc_dealloc_mismatch=0 UBSAN_OPTIONS=print_stacktrace=1 \
     LSAN_OPTIONS=suppressions="$root/tests/lsan.supp" \
     ctest -LE fuzz-smoke --output-on-failure -j"$(nproc)")
else
  asan=${NNEF_FUZZ_BUILD_DIR:-$root/build-fuzz}
  NNEF_FUZZ_BUILD_DIR=$asan "$root/scripts/fuzz.sh" --no-run
fi
if [ $fuzz = 1 ]; then
  (cd "$asan" && ctest -L fuzz-smoke --output-on-failure -j"$(nproc)")
fi
