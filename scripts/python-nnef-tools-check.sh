#!/usr/bin/env bash
# Issue 19's acceptance checks of the Python module against NNEF-Tools (docs/python.md), by hand:
#  1. NNEF-Tools' own unit tests (nnef-pyproject/tests/test.py), unchanged, against our module;
#  2. NNEF-Tools' converter (python -m nnef_tools.convert --input-format nnef --output-format onnx)
#     on every corpus model, once with our module and once with NNEF-Tools' own module (built as
#     docs/python.md says), and the two ONNX files compared byte for byte.
# usage: scripts/python-nnef-tools-check.sh NNEF_TOOLS_CHECKOUT NNEF_TOOLS_MODULE_DIR [BUILD_DIR]
# Needs python3-onnx and python3-six. Writes to a temporary folder only.
set -uo pipefail
src=${1:?NNEF-Tools checkout}
theirs=${2:?folder with NNEF-Tools nnef/ and _nnef*.so}
root=$(cd "$(dirname "$0")/.." && pwd)
ours=${3:-$root/build}/python
corpus=${NNEF_CORPUS_DIR:-$root/../shared/corpus}
py=/usr/bin/python3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

cp "$src/nnef-pyproject/tests/test.py" "$tmp/"
echo "== NNEF-Tools unit tests against our module"
(cd "$tmp" && PYTHONPATH=$ours $py test.py 2>&1 | tail -n 3)

echo "== nnef_tools.convert nnef -> onnx: ours vs theirs"
tools=$src/nnef_tools-pyproject
same=0; differ=0; both_fail=0; one_fail=0
for model in "$corpus"/real/* "$corpus"/quantized/*; do
  n=$(basename "$model")
  m=$model
  # Models stored without weights (the larger ones): a copy with random float32 weights (the same
  # files for both runs), so that the converter, which needs tensor files, can take them.
  if ! ls "$model"/*.dat >/dev/null 2>&1; then
    m=$tmp/models/$n
    mkdir -p "$m" && cp "$model/graph.nnef" "$m/"
    PYTHONPATH=$ours $py - "$m" <<'PY' || { echo "$n: cannot make weights"; continue; }
import os, sys, numpy as np, nnef
path = sys.argv[1]
g = nnef.load_graph(os.path.join(path, 'graph.nnef'))
rng = np.random.default_rng(0)
for op in g.operations:
    if op.name == 'variable':
        with open(os.path.join(path, op.attribs['label'] + '.dat'), 'wb') as f:
            nnef.write_tensor(f, rng.standard_normal(op.attribs['shape']).astype(np.float32))
PY
  fi
  PYTHONPATH=$ours:$tools timeout 900 $py -m nnef_tools.convert --input-format nnef --output-format onnx \
    --input-model "$m" --output-model "$tmp/$n.ours.onnx" >"$tmp/$n.ours.log" 2>&1; a=$?
  PYTHONPATH=$theirs:$tools timeout 900 $py -m nnef_tools.convert --input-format nnef --output-format onnx \
    --input-model "$m" --output-model "$tmp/$n.theirs.onnx" >"$tmp/$n.theirs.log" 2>&1; b=$?
  if [ $a -ne 0 ] && [ $b -ne 0 ]; then
    both_fail=$((both_fail + 1)); echo "$n: not converted by either ($(tail -n 1 "$tmp/$n.theirs.log" | cut -c1-100))"
  elif [ $a -ne 0 ] || [ $b -ne 0 ]; then
    one_fail=$((one_fail + 1)); echo "$n: ours exit $a, theirs exit $b"; tail -n 3 "$tmp/$n.ours.log"
  elif cmp -s "$tmp/$n.ours.onnx" "$tmp/$n.theirs.onnx"; then
    same=$((same + 1)); echo "$n: identical ONNX ($(stat -c %s "$tmp/$n.ours.onnx") bytes)"
  else
    differ=$((differ + 1)); echo "$n: ONNX differs"
    $py - "$tmp/$n.ours.onnx" "$tmp/$n.theirs.onnx" <<'PY'
import collections, sys, onnx
a, b = (onnx.load(p) for p in sys.argv[1:3])
count = lambda m: collections.Counter(n.op_type for n in m.graph.node)
print('  nodes: ours {}, theirs {}; op types only ours {}, only theirs {}'.format(
    len(a.graph.node), len(b.graph.node), dict(count(a) - count(b)), dict(count(b) - count(a))))
same_init = [x.SerializeToString() for x in a.graph.initializer] == [x.SerializeToString() for x in b.graph.initializer]
print('  initializers identical: {}'.format(same_init))
PY
  fi
done
echo "identical $same, different $differ, failed with both $both_fail, failed with one $one_fail"
