#!/usr/bin/env bash
# Builds the libFuzzer targets (fuzz/) with clang, -fsanitize=fuzzer,address,undefined, into a
# build folder (scripts/build.sh, with the compiler cache when there is one), and runs each, one
# after the other, for SECONDS (default 120):
#
#   scripts/fuzz.sh [--no-build | --no-run] [--runs N] [SECONDS] [TARGET...]
#
#   targets      fuzz_tensor_file fuzz_archive fuzz_document fuzz_quant fuzz_nnapi_json fuzz_mlir (default: all six)
#   --no-build   use the binaries already in the build folder (what `ctest -L fuzz-smoke` does)
#   --no-run     only configure and build (scripts/test.sh, before `ctest -L fuzz-smoke`)
#   --runs N     also stop a target after N executions (-runs=N)
#
# Seeds are made at run time in the build folder (never in the repository), per target:
#   fuzz_tensor_file  the corpus' tensor files and a few small generated ones
#   fuzz_archive      the corpus' container models packed as .tar and .tgz, and generated archives
#   fuzz_document     samples/*/graph.nnef, the corpus' conformance documents (**/graph.nnef and
#                     *.nnef) and real/*/graph.nnef
#   fuzz_quant        samples/*/graph.quant, the corpus' conformance graph.quant files and a few
#                     written for the target's fixed graph (fuzz/text_checks.hpp)
#   fuzz_nnapi_json   the NNAPI models of tests/unit/nnapi/models/ (their JSON form)
#   fuzz_mlir         tests/mlir-in/*.mlir (hand-written TOSA MLIR in MLIR's printed forms) and the
#                     MLIR of the samples (nnef-to-tosa of this build's tools, when built)
# The NNEF text targets use the dictionary fuzz/nnef.dict, fuzz_mlir fuzz/mlir.dict. Each target's corpus grows in
# $build/fuzz-corpus/TARGET and is reused by later runs. Inputs that crash are written to
# $build/fuzz-artifacts/; add each as a regression file (tests/unit/storage/regressions/ for the
# binary targets, tests/unit/frontend/regressions/ for the text targets).
#   NNEF_FUZZ_BUILD_DIR   build folder (default build-fuzz/)
#   NNEF_CORPUS_DIR       the third-party corpus (default ../shared/corpus); seeds from it are
#                         left out when it is absent
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${NNEF_FUZZ_BUILD_DIR:-$root/build-fuzz}
all_targets=(fuzz_tensor_file fuzz_archive fuzz_document fuzz_quant fuzz_nnapi_json fuzz_mlir)
do_build=1
do_run=1
runs=()
while [ $# -gt 0 ]; do
  case $1 in
    --no-build) do_build=0; shift ;;
    --no-run) do_run=0; shift ;;
    --runs) runs=(-runs="$2"); shift 2 ;;
    *) break ;;
  esac
done
seconds=${1:-120}
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=("${all_targets[@]}")
corpus=${NNEF_CORPUS_DIR:-$root/../shared/corpus}

if [ $do_build = 1 ]; then
  command -v clang++ >/dev/null || { echo "fuzz.sh: needs clang++ (apt-get install clang libclang-rt-14-dev)" >&2; exit 2; }
  # The configuration of scripts/test.sh's clang build (-fsanitize=address,undefined,
  # -fno-sanitize-recover=undefined, the layers with -fsanitize=fuzzer-no-link: CMakeLists.txt and
  # fuzz/CMakeLists.txt), so that a folder scripts/test.sh made serves here too. A new folder gets
  # neither the test suites nor the tools.
  only_fuzz=()
  [ -f "$build/CMakeCache.txt" ] || only_fuzz=(-DNNEF_BUILD_TESTS=OFF -DNNEF_BUILD_TOOLS=OFF)
  NNEF_BUILD_DIR=$build NNEF_BUILD_TARGETS="${targets[*]}" "$root/scripts/build.sh" \
    -DCMAKE_CXX_COMPILER=clang++ -DNNEF_SANITIZE=ON -DNNEF_BUILD_FUZZ=ON -DNNEF_BUILD_PYTHON=OFF \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g1 -DNDEBUG" \
    -DNNEF_CORPUS_DIR="$corpus" "${only_fuzz[@]}"
fi
[ $do_run = 1 ] || exit 0

# ---- seeds (per target, in $build/fuzz-seeds/TARGET) --------------------------------------------
byte() { printf "$(printf '\\x%02x' "$(($1 & 255))")"; }
le32() { byte "$1"; byte $(($1 >> 8)); byte $(($1 >> 16)); byte $(($1 >> 24)); }
# tensor FILE DATA_LENGTH ITEM_TYPE BITS PARAM0 PARAM1 EXTENT... (data: DATA_LENGTH bytes 0x01 0x02 ...)
tensor() {
  local file=$1 length=$2 item=$3 bits=$4 p0=$5 p1=$6
  shift 6
  {
    printf '\x4e\xef\x01\x00'
    le32 "$length"
    le32 $#
    local i
    for i in 0 1 2 3 4 5 6 7; do
      if [ $i -lt $# ]; then le32 "${@:$((i + 1)):1}"; else le32 0; fi
    done
    le32 "$bits"
    le32 "$item"
    le32 "$p0"
    le32 "$p1"
    for i in 1 2 3 4 5 6; do le32 0; done
    head -c 44 /dev/zero
    for ((i = 0; i < length; i++)); do byte $((i * 37 + 1)); done
  } > "$file"
}
seeds_fuzz_tensor_file() {
  local dir=$1
  tensor "$dir/f32.dat" 8 0x00 32 0 0 2
  tensor "$dir/f16.dat" 6 0x00 16 0 0 3 1
  tensor "$dir/f64.dat" 8 0x00 64 0 0 1
  tensor "$dir/i8.dat" 6 0x04 8 0 0 2 3
  tensor "$dir/u5.dat" 4 0x01 5 0 0 6
  tensor "$dir/bool1.dat" 1 0x05 1 0 0 5
  tensor "$dir/q3.dat" 2 0x03 3 0 0 5
  tensor "$dir/lin4.dat" 2 0x10 4 0 0x3f800000 3
  tensor "$dir/log6.dat" 3 0x11 6 0xbf800000 0x3f800000 4
  tensor "$dir/vendor.dat" 3 0x12340001 12 7 9 2
  tensor "$dir/scalar.dat" 4 0x00 32 0 0
  if [ -d "$corpus/tensors" ]; then cp "$corpus"/tensors/*.dat "$dir/"; fi
}

seeds_fuzz_archive() {
  local dir=$1 model
  model=$(mktemp -d)
  printf 'version 1.0;\n\ngraph G( x ) -> ( y )\n{\n    x = external(shape = [1, 2]);\n    w = variable(shape = [1, 2], label = "w");\n    y = add(x, w);\n}\n' > "$model/graph.nnef"
  printf '"y": linear_quantize(min = 0.0, max = 1.0, bits = 8);\n' > "$model/graph.quant"
  mkdir -p "$model/sub"
  tensor "$model/w.dat" 8 0x00 32 0 0 1 2
  tensor "$model/sub/b.dat" 1 0x05 1 0 0 3
  tar -C "$model" -cf "$dir/model.tar" graph.nnef graph.quant w.dat sub
  tar -C "$model" -czf "$dir/model.tgz" graph.nnef graph.quant w.dat sub
  tar -C "$model" --format=ustar -cf "$dir/ustar.tar" graph.nnef w.dat
  tar -C "$(dirname "$model")" -czf "$dir/wrapped.tgz" "$(basename "$model")/graph.nnef" "$(basename "$model")/w.dat"
  cp "$model/graph.nnef" "$dir/graph.nnef"
  rm -rf "$model"
  if [ -d "$corpus/conformance/container" ]; then
    local d name
    for d in "$corpus"/conformance/container/*/; do
      name=$(basename "$d")
      tar -C "$d" -cf "$dir/$name.tar" .
      tar -C "$d" -czf "$dir/$name.tgz" .
    done
  fi
}

# copy_tree DIR ROOT FIND-ARGS...: copies the files find selects below ROOT into DIR, named after
# their path below ROOT (a/b/graph.nnef -> a_b_graph.nnef).
copy_tree() {
  local dir=$1 top=$2 f rel
  shift 2
  [ -d "$top" ] || return 0
  while IFS= read -r -d '' f; do
    rel=${f#"$top"/}
    cp "$f" "$dir/${rel//\//_}"
  done < <(find "$top" "$@" -print0)
}

seeds_fuzz_document() {
  local dir=$1
  copy_tree "$dir" "$root/samples" -mindepth 2 -maxdepth 2 -name graph.nnef
  copy_tree "$dir" "$corpus/conformance" -type f -name '*.nnef'
  copy_tree "$dir" "$corpus/real" -mindepth 2 -maxdepth 2 -name graph.nnef
}

seeds_fuzz_quant() {
  local dir=$1
  copy_tree "$dir" "$root/samples" -mindepth 2 -maxdepth 2 -name graph.quant
  copy_tree "$dir" "$corpus/conformance" -type f -name graph.quant
  # For the fixed graph's own quantization fragment and parameter types (fuzz/text_checks.hpp).
  printf '"act": my_quantize(hi = 4.0);\n' > "$dir/own.quant"
  printf "# every parameter\n'output': my_quantize(lo = -1.0, hi = 2.0 * 3.0, bits = 4, levels = [1, 2, 3], tag = 'x', on = false, pair = (0.5, 3));\n" > "$dir/own-all.quant"
  printf '"w": min_max_linear_quantize(min = -1.0, max = 1.0, bits = 8, signed = true, symmetric = false);\n"b": zero_point_linear_quantize(zero_point = 0, scale = 0.5, bits = 8, signed = true, symmetric = false);\n' > "$dir/later.quant"
  printf '"c": logarithmic_quantize(max = 4.0, bits = 5);\n\n# comment\n"input": linear_quantize(min = 0.0 - 1.0, max = [1.0, 2.0][1], bits = 2 ^ 3);\n' > "$dir/expressions.quant"
}

seeds_fuzz_nnapi_json() {
  cp "$root"/tests/unit/nnapi/models/*.json "$1/"
}

seeds_fuzz_mlir() {
  local dir=$1 s tool
  cp "$root"/tests/mlir-in/*.mlir "$dir/"
  # The samples' MLIR (pseudo-random weights: elided ones the reader refuses), when a build of the
  # tools is at hand.
  for tool in "$root/build/nnef-to-tosa" "$build/nnef-to-tosa"; do
    [ -x "$tool" ] || continue
    for s in classifier composite recurrent; do
      "$tool" "$root/samples/$s" --random-weights 1 --quiet -o "$dir/$s.mlir" 2>/dev/null || rm -f "$dir/$s.mlir"
    done
    "$tool" "$root/samples/quantized" --profile pro-int --random-weights 1 --quiet -o "$dir/quantized.mlir" 2>/dev/null ||
      rm -f "$dir/quantized.mlir"
    break
  done
}

# ---- runs --------------------------------------------------------------------------------------
status=0
mkdir -p "$build/fuzz-artifacts"
for t in "${targets[@]}"; do
  case $t in
    fuzz_tensor_file | fuzz_archive) options=(-timeout=10) ;;
    # Text: the dictionary. With the targets' limits an input takes milliseconds (the largest
    # real graphs 0.2 to 0.3 s under the sanitizers), so 2 s is a finding. Inputs up to 64 KiB.
    fuzz_document | fuzz_quant) options=(-dict="$root/fuzz/nnef.dict" -timeout=2 -max_len=65536) ;;
    fuzz_nnapi_json) options=(-dict="$root/fuzz/nnapi.dict" -timeout=2 -max_len=65536) ;;
    fuzz_mlir) options=(-dict="$root/fuzz/mlir.dict" -timeout=2 -max_len=65536) ;;
    *) echo "fuzz.sh: unknown target $t" >&2; exit 2 ;;
  esac
  [ -x "$build/fuzz/$t" ] || { echo "fuzz.sh: $build/fuzz/$t is not built" >&2; exit 2; }
  seed=$build/fuzz-seeds/$t
  rm -rf "$seed"
  mkdir -p "$seed"
  "seeds_$t" "$seed"
  work=$build/fuzz-corpus/$t
  mkdir -p "$work"
  log=$build/fuzz-artifacts/$t.log
  echo "== $t: ${seconds}s${runs:+ or ${runs[0]#-runs=} runs}, $(ls "$seed" | wc -l) seeds, $(ls "$work" | wc -l) in its corpus, log $log"
  # Runs in a folder of its own (fuzz_archive checks that nothing appears in its working folder,
  # and `ctest -L fuzz-smoke -j` runs targets side by side).
  rundir=$build/fuzz-run/$t
  rm -rf "$rundir"
  mkdir -p "$rundir"
  if ! (cd "$rundir" && "$build/fuzz/$t" "$work" "$seed" -max_total_time="$seconds" "${runs[@]}" \
        "${options[@]}" -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$build/fuzz-artifacts/$t-") > "$log" 2>&1; then
    status=1
    echo "$t: FAILED, see $log and $build/fuzz-artifacts/"
    grep -E "^==[0-9]+==ERROR|^SUMMARY|^fuzz_|ALARM|Test unit written" "$log" | head -10
  fi
  grep -E "^Done|stat::number_of_executed_units|stat::average_exec_per_sec|stat::new_units_added|cov: .*ft:" "$log" | tail -5
done
exit $status
