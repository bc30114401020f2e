#!/usr/bin/env bash
# Configures and builds into build/ (or $NNEF_BUILD_DIR); extra arguments go to cmake.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${NNEF_BUILD_DIR:-$root/build}
jobs=${NNEF_JOBS:-$(nproc)}
launcher=()
# A compiler cache, where the machine has one, makes rebuilds in other checkouts cheap.
if command -v ccache >/dev/null 2>&1; then launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache); fi
if [ ! -f "$build/CMakeCache.txt" ] || [ $# -gt 0 ]; then
  cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release "${launcher[@]}" "$@" >/dev/null
fi
cmake --build "$build" -j"$jobs"
