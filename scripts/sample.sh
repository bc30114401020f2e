#!/usr/bin/env bash
# The main job on a bundled sample: install what is missing, build, validate, flatten and summarize.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/install-deps.sh"
"$root/scripts/build.sh"
build=${NNEF_BUILD_DIR:-$root/build}
sample=${1:-$root/samples/composite/graph.nnef}
echo "== nnef-validate $sample"
"$build/nnef-validate" "$sample"
echo "== nnef-flatten --shapes $sample"
"$build/nnef-flatten" --shapes "$sample"
echo "== nnef-info $sample"
"$build/nnef-info" "$sample"
