#!/usr/bin/env bash
# The schedule table of docs/schedule.md: per corpus model and sample (fp16, and PRO-INT where the
# model has a graph.quant), the simulated makespan, the lower bound with its four terms (engine,
# DDR, dataflow, cut: docs/vpu.md), makespan / bound, the list's own chain (information), DDR
# traffic and spills.
#   scripts/schedule-table.sh [BUILD] [ONLY...]   (a markdown table on stdout; ONLY: model names)
# Models without stored weights use --random-weights 1 (as scripts/lowering-snapshot.sh does).
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
shift || true
only=" $* "
corpus=${NNEF_CORPUS_DIR:-$root/../shared/corpus}
echo "| model | profile | makespan | bound (binds) | engine (queue) | DDR | dataflow | cut (before + after) | makespan / bound | list chain | DDR bytes | spills | barriers |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|"
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
    print(f"| {name} | {prof} | {why} (exit {rc}) | | | | | | | | | | |")
    sys.exit(0)
s = d['simulation']; lb = s['lower_bound']; ddr = s['ddr_bytes']
ms = s['makespan_cycles']
total = ddr["total"]
spill = ddr.get('spills', 0) if isinstance(ddr, dict) else 0
c = lb['cut']
cut = f"{lb['cut_cycles']:.0f}" + (f" ({c['before_cycles']:.0f} {c['before_term']} + {c['after_cycles']:.0f} {c['after_term']})" if c else "")
print(f"| {name} | {prof} | {ms:.0f} | {lb['cycles']:.0f} ({lb['binding']}) | {lb['engine_cycles']:.0f} ({lb['engine_queue']}) | {lb['ddr_cycles']:.0f} "
      f"| {lb['dataflow_cycles']:.0f} | {cut} | {ms / lb['cycles']:.3f} | {lb['list_chain_cycles']:.0f} | {total} | {spill} | {s['barriers']} |")
PY
  done
done
