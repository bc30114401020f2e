#!/usr/bin/env bash
# Writes what the lowering tools produce for every corpus model and sample into OUT/, so a refactor of
# lowering/ can be checked byte for byte:  scripts/lowering-snapshot.sh OUT [BUILD]  then  diff -r A B.
#   OUT/<name>.mlir, <name>.tosa.json      nnef-to-tosa (--format mlir / json)
#   OUT/<name>.vpu.json, <name>.vpu.bin    nnef-to-vpu -o (the task list and its constants)
#   OUT/<name>.*.err                       stderr and the exit status of each command
# Models without stored weights use --random-weights 1; int8 models and samples/quantized also at
# --profile pro-int (<name>.int.*).
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:?usage: lowering-snapshot.sh OUT [BUILD]}
build=${2:-$root/build}
corpus=${NNEF_CORPUS_DIR:-$root/../shared/corpus}
mkdir -p "$out"
models=()
for d in "$corpus"/real/* "$corpus"/quantized/* "$root"/samples/*; do [ -f "$d/graph.nnef" ] && models+=("$d"); done
run() { # name ext tool args...
  local name=$1 ext=$2; shift 2
  "$@" >"$out/$name.$ext" 2>"$out/$name.$ext.err"
  echo "exit $?" >>"$out/$name.$ext.err"
}
for d in "${models[@]}"; do
  name=$(basename "$d")
  weights=()
  if grep -q 'variable' "$d/graph.nnef" && ! ls "$d"/*.dat >/dev/null 2>&1; then weights=(--random-weights 1); fi
  profiles=(pro-fp)
  if [ -f "$d/graph.quant" ]; then profiles+=(pro-int); fi
  for p in "${profiles[@]}"; do
    tag=$name; [ "$p" = pro-int ] && tag=$name.int
    run "$tag" mlir "$build/nnef-to-tosa" "${weights[@]}" --profile "$p" --format mlir "$d"
    run "$tag" tosa.json "$build/nnef-to-tosa" "${weights[@]}" --profile "$p" --format json "$d"
    run "$tag" vpu.log "$build/nnef-to-vpu" "${weights[@]}" --profile "$p" -o "$out/$tag.vpu.json" "$d"
  done
done
echo "wrote $(ls "$out" | wc -l) files for ${#models[@]} models to $out"
