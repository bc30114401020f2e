#!/usr/bin/env bash
# A newcomer's first command: installs what is missing, builds the library and the tools (not the
# test suites: scripts/test.sh builds those), then validates, flattens and summarizes a bundled
# sample. The tools are then in build/ (or $NNEF_BUILD_DIR).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/install-deps.sh"
NNEF_BUILD_TARGETS=tools "$root/scripts/build.sh"
build=${NNEF_BUILD_DIR:-$root/build}
sample=${1:-$root/samples/composite/graph.nnef}
echo "== nnef-validate $sample"
"$build/nnef-validate" "$sample"
echo "== nnef-flatten --shapes $sample"
"$build/nnef-flatten" --shapes "$sample"
echo "== nnef-info $sample"
"$build/nnef-info" "$sample"
echo "== the tools are in $build: nnef-validate nnef-flatten nnef-info nnef-run nnef-to-tosa nnef-to-vpu (README.md: a tour)"
