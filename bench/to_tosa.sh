#!/usr/bin/env bash
# nnef-to-tosa benchmark (docs/tosa.md figures): whole process on ResNet-50 with random weights,
# median of NNEF_BENCH_REPEAT (default 7) runs, for each output form; peak RSS of the last run.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${NNEF_BUILD_DIR:-$root/build}
model=${1:-$root/../shared/corpus/real/resnet50}
repeat=${NNEF_BENCH_REPEAT:-7}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
[ -x "$build/nnef-to-tosa" ] || cmake --build "$build" --target nnef-to-tosa
run() {  # label, arguments...
  local label=$1
  shift
  local times=() rss=0
  for _ in $(seq "$repeat"); do
    /usr/bin/time -f "%e %M" -o "$out/time" "$build/nnef-to-tosa" "$model" "$@" >/dev/null
    read -r t rss <"$out/time"
    times+=("$t")
  done
  local median
  median=$(printf '%s\n' "${times[@]}" | sort -n | sed -n "$(((repeat + 1) / 2))p")
  printf '%-46s median %6.2f s  peak RSS %4d MB  output %s\n' "$label" "$median" $((rss / 1024)) \
    "$(du -h "$out/model.out" 2>/dev/null | cut -f1)"
  rm -f "$out/model.out"
}
echo "nnef-to-tosa $(basename "$model"), median of $repeat runs"
run "MLIR, weights inline (--random-weights 1)" --random-weights 1 -o "$out/model.out"
run "MLIR, resource blobs" --random-weights 1 --resource-blobs -o "$out/model.out"
run "MLIR, weights elided (--no-weights)" --no-weights -o "$out/model.out"
run "JSON, weights inline" --random-weights 1 --format json -o "$out/model.out"
run "text dump (lowering and validation only)" --random-weights 1 --format text -o "$out/model.out"
