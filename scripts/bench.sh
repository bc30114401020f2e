#!/usr/bin/env bash
# Front-end benchmark (README figures): generates 10k/100k/500k-operation flat graphs and a deep
# compositional network, then times nnef-validate on each (whole process, median of NNEF_BENCH_REPEAT
# runs, default 5): wall, user and system CPU, peak RSS, and the ratios to `cat FILE` and to
# `nnef-validate --no-fast-path`, each taken pair by pair in the same run (interleaved).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/install-deps.sh"
build=${NNEF_BUILD_DIR:-$root/build}
NNEF_BUILD_DIR=$build "$root/scripts/build.sh" -DNNEF_BUILD_BENCH=ON
data=${NNEF_BENCH_DIR:-$build/bench-data}
mkdir -p "$data"
for n in 10000 100000 500000; do
  [ -f "$data/flat_$n.nnef" ] || "$build/bench/nnef-bench" generate flat $n "$data/flat_$n.nnef"
done
[ -f "$data/deep_200.nnef" ] || "$build/bench/nnef-bench" generate deep 200 "$data/deep_200.nnef"
"$build/bench/nnef-bench" run "$build/nnef-validate" "$data"/flat_10000.nnef "$data"/flat_100000.nnef \
  "$data"/flat_500000.nnef "$data"/deep_200.nnef --repeat "${NNEF_BENCH_REPEAT:-5}"
# NNEF_BENCH_BEFORE=PATH/TO/an-older/nnef-validate: also the two builds interleaved on the flat
# graphs (A B, B A, ...), with the per-pair ratios after / before of wall, CPU, user and system time.
if [ -n "${NNEF_BENCH_BEFORE:-}" ]; then
  "$build/bench/nnef-bench" compare "$NNEF_BENCH_BEFORE" "$build/nnef-validate" "$data"/flat_100000.nnef \
    "$data"/flat_500000.nnef --repeat "${NNEF_BENCH_PAIRS:-11}"
fi
