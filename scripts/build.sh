#!/usr/bin/env bash
# Configures and builds into build/ (or $NNEF_BUILD_DIR); extra arguments go to cmake.
#   NNEF_BUILD_TARGETS  what to build (default: everything; scripts/sample.sh: `tools`)
#   NNEF_WERROR         warnings are errors (default 1, the project's builds; 0: warnings only)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${NNEF_BUILD_DIR:-$root/build}
jobs=${NNEF_JOBS:-$(nproc)}
werror=ON
[ "${NNEF_WERROR:-1}" = 0 ] && werror=OFF
launcher=()
# A compiler cache, where the machine has one, makes rebuilds in other checkouts cheap.
if command -v ccache >/dev/null 2>&1; then launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache); fi
if [ ! -f "$build/CMakeCache.txt" ] || [ $# -gt 0 ] || ! grep -q "^NNEF_WERROR:BOOL=$werror\$" "$build/CMakeCache.txt"; then
  cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DNNEF_WERROR=$werror "${launcher[@]}" "$@" >/dev/null
fi
targets=()
for t in ${NNEF_BUILD_TARGETS:-}; do targets+=(--target "$t"); done
cmake --build "$build" -j"$jobs" "${targets[@]}"
