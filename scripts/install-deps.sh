#!/usr/bin/env bash
# Installs the Debian 12 packages the build needs, only when something is missing.
#   scripts/install-deps.sh          the build and the tests
#   scripts/install-deps.sh fuzz     also clang and libFuzzer (scripts/test.sh's sanitizer build and the fuzz targets, scripts/fuzz.sh)
#   scripts/install-deps.sh mlir     also MLIR's tools (the tests that validate and run emitted TOSA) and
#                                    LLVM's FileCheck (llvm-22-tools: the VPU passes' golden tests)
set -euo pipefail
packages=(g++ cmake make libboost-dev libboost-filesystem-dev libarchive-dev doctest-dev nlohmann-json3-dev)
# nnef-draw and nnef.draw lay pictures out with Graphviz's libraries, in-process (docs/draw.md).
packages+=(libgraphviz-dev pkg-config)
# The Python module (python/, docs/python.md): pybind11, Python headers, numpy; its tests (pytest) and
# its pip install (setuptools, venv).
packages+=(pybind11-dev python3-dev python3-numpy python3-pytest python3-setuptools python3-venv python3-pip)
# nnef-draw's HTML page (docs/draw.md): npm fetches its JavaScript libraries at configure time
# (without npm the html format is not built); Chromium runs the page's browser test headless.
packages+=(npm chromium)
if [ "${1:-}" = fuzz ]; then packages+=(clang libclang-rt-14-dev); fi
if [ "${1:-}" = mlir ]; then packages+=(mlir-22-tools llvm-22-tools); fi
missing=()
for p in "${packages[@]}"; do
  # an npm already on PATH will do (NodeSource's nodejs bundles one, and conflicts with Debian's npm)
  if [ "$p" = npm ] && command -v npm >/dev/null 2>&1; then continue; fi
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing: ${missing[*]}"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}"
fi
