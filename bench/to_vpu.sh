#!/usr/bin/env bash
# nnef-to-vpu benchmark (docs/vpu-compiler.md, Speed; issue 15 asks compile < 0.5 s, simulate < 1 s
# on ResNet-50): whole process, median of NNEF_BENCH_REPEAT (default 7) runs of wall, user and
# system time, and the peak RSS of the last run, for
#   compile    MODEL --random-weights 1 -o TASKS.json     (no --simulate)
#   simulate   TASKS.json --simulate                      (timing and checks, no values)
#   values     TASKS.json --simulate --input random:1     (and every task's values)
#   both       MODEL --random-weights 1 --simulate
# With NNEF_BENCH_BEFORE=PATH/TO/older/nnef-to-vpu, each run of the build's binary is paired with
# one of the older binary (interleaved, so that both see the same load), and the two task lists
# are compared byte for byte, and so are the simulated outputs.
# Usage: bench/to_vpu.sh [MODEL]   (default ../shared/corpus/real/resnet50)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${NNEF_BUILD_DIR:-$root/build}
model=${1:-$root/../shared/corpus/real/resnet50}
repeat=${NNEF_BENCH_REPEAT:-7}
before=${NNEF_BENCH_BEFORE:-}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
[ -x "$build/nnef-to-vpu" ] || cmake --build "$build" --target nnef-to-vpu
tool_after=$build/nnef-to-vpu

. "$root/bench/timing.sh"

tools=(after)
[ -n "$before" ] && tools=(before after)
for which in "${tools[@]}"; do
  tool=$tool_after
  [ "$which" = before ] && tool=$before
  # the task list each build emits (also the input of the simulate runs)
  "$tool" "$model" --random-weights 1 -o "$out/$which.json"
done
if [ -n "$before" ]; then
  if cmp -s "$out/before.json" "$out/after.json"; then echo "task lists identical (cmp)"
  else echo "task lists DIFFER between $before and $tool_after"; fi
  "$before" "$out/before.json" --simulate --input random:1 --output-dir "$out/values-before" >/dev/null
  "$tool_after" "$out/after.json" --simulate --input random:1 --output-dir "$out/values-after" >/dev/null
  if diff -r "$out/values-before" "$out/values-after" >/dev/null; then echo "simulated outputs identical (diff -r)"
  else echo "simulated outputs DIFFER between $before and $tool_after"; fi
fi

echo "nnef-to-vpu $(basename "$model"), median of $repeat runs, load average $(cut -d' ' -f1-3 /proc/loadavg), $(date -u '+%F %H:%M UTC')"
for ((i = 0; i < repeat; i++)); do
  for which in "${tools[@]}"; do
    tool=$tool_after
    [ "$which" = before ] && tool=$before
    timed_run "compile-$which" "$tool" "$model" --random-weights 1 -o "$out/run.json"
    timed_run "simulate-$which" "$tool" "$out/$which.json" --simulate
    timed_run "values-$which" "$tool" "$out/$which.json" --simulate --input random:1
    timed_run "both-$which" "$tool" "$model" --random-weights 1 --simulate
  done
done
for kind in compile simulate values both; do
  for which in "${tools[@]}"; do timed_report "$kind-$which"; done
done
