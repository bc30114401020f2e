#!/usr/bin/env bash
# The schedule table of docs/schedule.md: per corpus model and sample (fp16, and PRO-INT where the
# model has a graph.quant), the simulated makespan, the lower bound with its three terms, the
# ratios makespan / bound and makespan / max(engine, DDR), DDR traffic and spills.
#   scripts/schedule-table.sh [BUILD] [ONLY...]   (a markdown table on stdout; ONLY: model names)
# Models without stored weights use --random-weights 1 (as scripts/lowering-snapshot.sh does).
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
shift || true
only=" $* "
corpus=${NNEF_CORPUS_DIR:-$root/../shared/corpus}
echo "| model | profile | makespan | bound (binds) | engine (queue) | DDR | chain | makespan / bound | makespan / max(engine, DDR) | DDR bytes | spills | barriers |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
for d in "$corpus"/real/* "$corpus"/quantized/* "$root"/samples/*; do
  [ -f "$d/graph.nnef" ] || continue
  name=$(basename "$d")
  [ "$only" = "  " ] || [[ "$only" == *" $name "* ]] || continue
  weights=()
  if grep -q 'variable' "$d/graph.nnef" && ! ls "$d"/*.dat >/dev/null 2>&1; then weights=(--random-weights 1); fi
  profiles=(pro-fp)
  if [ -f "$d/graph.quant" ]; then profiles+=(pro-int); fi
  for p in "${profiles[@]}"; do
    out=$("$build/nnef-to-vpu" "${weights[@]}" --profile "$p" --simulate --format json "$d" 2>/dev/null)
    rc=$?
    /usr/bin/python3 - "$name" "$p" "$rc" "$out" <<'PY'
import json, sys
name, prof, rc, text = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
try:
    d = json.loads(text)
except Exception:
    d = None
if not d or 'simulation' not in d or not d['simulation']:
    why = 'refused'
    if d:
        msgs = [x.get('message', '') for x in d.get('diagnostics', []) if x.get('severity') == 'error']
        if msgs: why = 'refused: ' + msgs[0][:80]
    print(f"| {name} | {prof} | {why} (exit {rc}) | | | | | | | | | |")
    sys.exit(0)
s = d['simulation']; lb = s['lower_bound']; ddr = s['ddr_bytes']
ms = s['makespan_cycles']; eng = lb['engine_cycles']; dc = lb['ddr_cycles']
total = ddr["total"]
spill = ddr.get('spills', 0) if isinstance(ddr, dict) else 0
print(f"| {name} | {prof} | {ms:.0f} | {lb['cycles']:.0f} ({lb['binding']}) | {eng:.0f} ({lb['engine_queue']}) | {dc:.0f} | {lb['chain_cycles']:.0f} "
      f"| {ms / lb['cycles']:.3f} | {ms / max(eng, dc):.3f} | {total} | {spill} | {s['barriers']} |")
PY
  done
done
