#!/bin/sh
# A golden test of one VPU pass (CTest, tests/CMakeLists.txt): IN is tests/vpu-passes/PASS.txt, the IR
# text before PASS with FileCheck's CHECK lines as comments; runs
#   nnef-to-vpu --pass PASS IN | FileCheck IN
# and skips (exit 77, saying why) when FileCheck (Debian's llvm-22-tools) is not installed.
tool=$1
in=$2
pass=$(basename "$in" .txt)
fc=${NNEF_FILECHECK:-/usr/lib/llvm-22/bin/FileCheck}
if [ ! -x "$fc" ]; then
  echo "skipped: FileCheck not found at $fc (install llvm-22-tools: scripts/install-deps.sh mlir)"
  [ -n "${NNEF_SKIP_LOG:-}" ] && echo "vpu-passes: $pass: skipped: FileCheck not found at $fc" >>"$NNEF_SKIP_LOG"
  exit 77
fi
out=$(mktemp) || exit 1
trap 'rm -f "$out"' EXIT
"$tool" --pass "$pass" "$in" >"$out" || { echo "nnef-to-vpu --pass $pass $in failed"; exit 1; }
"$fc" --dump-input=fail "$in" --input-file "$out"
