#!/usr/bin/env bash
# nnef-to-vpu benchmark (docs/vpu-compiler.md, Speed; issue 15 asks compile < 0.5 s, simulate < 1 s
# on ResNet-50): whole process, median of NNEF_BENCH_REPEAT (default 7) runs of wall, user and
# system time, and the peak RSS of the last run, for
#   compile    MODEL --random-weights 1 -o TASKS.json     (no --simulate)
#   simulate   TASKS.json --simulate                      (timing and checks, no values)
#   both       MODEL --random-weights 1 --simulate
# With NNEF_BENCH_BEFORE=PATH/TO/older/nnef-to-vpu, each run of the build's binary is paired with
# one of the older binary (interleaved, so that both see the same load), and the two task lists
# are compared byte for byte.
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

median() { sort -g | awk '{a[NR] = $1} END {print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2}'; }

# run LABEL TOOL ARGS...: one timed run appended to $out/LABEL.times ("wall user sys rss_kb")
run() {
  local label=$1 tool=$2
  shift 2
  /usr/bin/time -f "%e %U %S %M" -o "$out/time" "$tool" "$@" >/dev/null
  cat "$out/time" >>"$out/$label.times"
}

report() {  # LABEL
  local f=$out/$1.times
  printf '%-22s wall %5.2f s  user %5.2f s  sys %5.2f s  CPU %5.2f s  peak RSS %4d MB\n' "$1" \
    "$(cut -d' ' -f1 "$f" | median)" "$(cut -d' ' -f2 "$f" | median)" "$(cut -d' ' -f3 "$f" | median)" \
    "$(awk '{print $2 + $3}' "$f" | median)" $(($(tail -1 "$f" | cut -d' ' -f4) / 1024))
}

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
fi

echo "nnef-to-vpu $(basename "$model"), median of $repeat runs, load average $(cut -d' ' -f1-3 /proc/loadavg), $(date -u '+%F %H:%M UTC')"
for ((i = 0; i < repeat; i++)); do
  for which in "${tools[@]}"; do
    tool=$tool_after
    [ "$which" = before ] && tool=$before
    run "compile-$which" "$tool" "$model" --random-weights 1 -o "$out/run.json"
    run "simulate-$which" "$tool" "$out/$which.json" --simulate
    run "both-$which" "$tool" "$model" --random-weights 1 --simulate
  done
done
for kind in compile simulate both; do
  for which in "${tools[@]}"; do report "$kind-$which"; done
done
