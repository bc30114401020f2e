#!/usr/bin/env bash
# NNAPI export benchmark (docs/nnapi.md, "Export speed and memory"): whole process, median of NNEF_BENCH_REPEAT (default
# 7) runs of wall, user and system time, and the peak RSS of the last run, for
#   export     nnef-to-nnapi MODEL --random-weights 1 -o MODEL.json   (the model and its pool file)
#   run        nnef-run MODEL --random-weights 1 --input random:1 --via nnapi   (export + interpreter)
#   plain run  nnef-run MODEL --random-weights 1 --input random:1                (the CPU engine: the yardstick)
# With NNEF_BENCH_BEFORE=PATH/TO/older/build (a build folder with nnef-to-nnapi and nnef-run), each
# run of this build's binary is paired with one of the older binary (interleaved, so that both see
# the same load), and the exports (JSON and pool file) and the outputs run are compared byte for byte.
# With NNEF_BENCH_WEIGHTS=stored the model's own tensor files are read instead of --random-weights 1
# (an int8 model's weights stored as codes).
# Usage: bench/to_nnapi.sh [MODEL]   (default ../shared/corpus/real/vgg11: 133 M weights, the largest pool)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${NNEF_BUILD_DIR:-$root/build}
model=$(realpath "${1:-$root/../shared/corpus/real/vgg11}")  # (absolute: the exports run in folders of their own)
repeat=${NNEF_BENCH_REPEAT:-7}
weights=(--random-weights 1)
case ${NNEF_BENCH_WEIGHTS:-random} in
  random) ;;
  stored) weights=() ;;
  *) echo "bench/to_nnapi.sh: NNEF_BENCH_WEIGHTS is random or stored, not '$NNEF_BENCH_WEIGHTS'" >&2; exit 2 ;;
esac
before=${NNEF_BENCH_BEFORE:-}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for t in nnef-to-nnapi nnef-run; do
  [ -x "$build/$t" ] || cmake --build "$build" --target "$t"
  [ -z "$before" ] || [ -x "$before/$t" ] || { echo "bench/to_nnapi.sh: $before/$t is not an executable" >&2; exit 2; }
done

. "$root/bench/timing.sh"

builds=(after)
[ -n "$before" ] && builds=(before after)
dir_of() { if [ "$1" = before ]; then echo "$before"; else echo "$build"; fi; }
if [ -n "$before" ]; then
  # the same output names for both builds (the JSON names its pool file)
  for which in before after; do
    mkdir -p "$out/$which"
    (cd "$out/$which" && "$(dir_of "$which")/nnef-to-nnapi" "$model" "${weights[@]}" -o model.json >/dev/null &&
      "$(dir_of "$which")/nnef-run" "$model" "${weights[@]}" --input random:1 --via nnapi --output-dir values >/dev/null)
  done
  if diff -r "$out/before" "$out/after" >/dev/null; then echo "exports and outputs identical (diff -r)"
  else echo "exports or outputs DIFFER between $before and $build"; fi
  rm -rf "$out/before" "$out/after"
fi

echo "NNAPI export of $(basename "$model") (${NNEF_BENCH_WEIGHTS:-random} weights), median of $repeat runs, load average $(cut -d' ' -f1-3 /proc/loadavg), $(date -u '+%F %H:%M UTC')"
for ((i = 0; i < repeat; i++)); do
  for which in "${builds[@]}"; do
    dir=$(dir_of "$which")
    timed_run "export-$which" "$dir/nnef-to-nnapi" "$model" "${weights[@]}" -o "$out/model.json"
    rm -f "$out/model.json" "$out/model.bin"
    timed_run "run-$which" "$dir/nnef-run" "$model" "${weights[@]}" --input random:1 --via nnapi
  done
  timed_run "plain-run" "$build/nnef-run" "$model" "${weights[@]}" --input random:1
done
for kind in export run; do
  for which in "${builds[@]}"; do timed_report "$kind-$which"; done
done
timed_report plain-run
