#!/usr/bin/env bash
# The TOSA interpreter against the reference executor (README figures): `nnef-run MODEL` and
# `nnef-run MODEL --via tosa` (lowering + interpreter) on ResNet-18, ResNet-50 and MobileNet-v2,
# whole process, median of N runs (NNEF_BENCH_REPEAT, default 7) of wall and CPU time, plus the
# median time of the run itself (`--time`: one cycle, without loading and lowering).
# Usage: bench/run_via_tosa.sh [BUILD_DIR]   (the models come from ../shared/corpus/real)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-${NNEF_BUILD_DIR:-$root/build}}
corpus=${NNEF_CORPUS_DIR:-$root/../shared/corpus}/real
repeat=${NNEF_BENCH_REPEAT:-7}
run=$build/nnef-run
[ -x "$run" ] || { echo "no $run: build nnef-run first" >&2; exit 2; }

median() { sort -g | awk '{a[NR] = $1} END {print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2}'; }

printf "| model | engine | wall | CPU | run (one cycle) |\n| --- | --- | --- | --- | --- |\n"
for model in resnet18 resnet50 mobilenet_v2; do
  weights=()
  ls "$corpus/$model"/*.dat >/dev/null 2>&1 || weights=(--random-weights 1)
  for via in "" "--via tosa"; do
    walls=() cpus=() cycles=()
    for ((i = 0; i < repeat; i++)); do
      # shellcheck disable=SC2086
      out=$( { /usr/bin/time -f "TIME %e %U %S" "$run" "$corpus/$model" "${weights[@]}" $via --input random:1 --time >/dev/null; } 2>&1 )
      walls+=("$(awk '/^TIME/ {print $2}' <<<"$out")")
      cpus+=("$(awk '/^TIME/ {print $3 + $4}' <<<"$out")")
      cycles+=("$(awk '/^cycle 1:/ {print $3}' <<<"$out")")
    done
    printf "| %s | %s | %.2f s | %.2f s | %.0f ms |\n" "$model" "${via:-executor}" \
      "$(printf "%s\n" "${walls[@]}" | median)" "$(printf "%s\n" "${cpus[@]}" | median)" \
      "$(printf "%s\n" "${cycles[@]}" | median)"
  done
done
