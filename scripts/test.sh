#!/usr/bin/env bash
# Installs what is missing, builds, and runs every test; then runs the unit tests once more under
# AddressSanitizer + UndefinedBehaviorSanitizer (set NNEF_SKIP_SANITIZE=1 to skip that part).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/install-deps.sh"
"$root/scripts/build.sh"
build=${NNEF_BUILD_DIR:-$root/build}
(cd "$build" && ctest --output-on-failure -j"$(nproc)")
if [ "${NNEF_SKIP_SANITIZE:-0}" != 1 ]; then
  asan=${NNEF_ASAN_BUILD_DIR:-$root/build-asan}
  NNEF_BUILD_DIR=$asan "$root/scripts/build.sh" -DNNEF_SANITIZE=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo
  (cd "$asan" && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 ctest --output-on-failure -j"$(nproc)")
fi
