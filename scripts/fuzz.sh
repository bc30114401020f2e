#!/usr/bin/env bash
# Builds the libFuzzer targets (fuzz/) with clang, -fsanitize=fuzzer,address,undefined, into a
# build folder of their own, and runs each for SECONDS (default 120):
#
#   scripts/fuzz.sh [SECONDS] [TARGET...]      targets: fuzz_tensor_file fuzz_archive
#
# Seeds are made at run time in the build folder (never in the repository): the corpus' tensor
# files and container models (../shared/corpus, or $NNEF_CORPUS_DIR) when present, and a few small
# generated tensor files and archives. Inputs that crash are written to $build/fuzz-artifacts/;
# add each as a regression file under tests/unit/storage/regressions/.
#   NNEF_FUZZ_BUILD_DIR   build folder (default build-fuzz/)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${NNEF_FUZZ_BUILD_DIR:-$root/build-fuzz}
seconds=${1:-120}
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(fuzz_tensor_file fuzz_archive)
corpus=${NNEF_CORPUS_DIR:-$root/../shared/corpus}

command -v clang++ >/dev/null || { echo "fuzz.sh: needs clang++ (apt-get install clang libclang-rt-14-dev)" >&2; exit 2; }
sanitizers="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer"
cmake -S "$root" -B "$build" -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DNNEF_BUILD_FUZZ=ON -DNNEF_BUILD_TESTS=OFF -DNNEF_BUILD_TOOLS=OFF \
  -DCMAKE_CXX_FLAGS="-fsanitize=fuzzer-no-link $sanitizers" \
  -DCMAKE_EXE_LINKER_FLAGS="$sanitizers" >/dev/null
cmake --build "$build" --target "${targets[@]}" -j"${NNEF_JOBS:-$(nproc)}"

# ---- seeds -------------------------------------------------------------------------------------
seeds=$build/fuzz-seeds
rm -rf "$seeds"
mkdir -p "$seeds/tensor" "$seeds/archive" "$build/fuzz-artifacts"

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
tensor "$seeds/tensor/f32.dat" 8 0x00 32 0 0 2
tensor "$seeds/tensor/f16.dat" 6 0x00 16 0 0 3 1
tensor "$seeds/tensor/f64.dat" 8 0x00 64 0 0 1
tensor "$seeds/tensor/i8.dat" 6 0x04 8 0 0 2 3
tensor "$seeds/tensor/u5.dat" 4 0x01 5 0 0 6
tensor "$seeds/tensor/bool1.dat" 1 0x05 1 0 0 5
tensor "$seeds/tensor/q3.dat" 2 0x03 3 0 0 5
tensor "$seeds/tensor/lin4.dat" 2 0x10 4 0 0x3f800000 3
tensor "$seeds/tensor/log6.dat" 3 0x11 6 0xbf800000 0x3f800000 4
tensor "$seeds/tensor/vendor.dat" 3 0x12340001 12 7 9 2
tensor "$seeds/tensor/scalar.dat" 4 0x00 32 0 0
if [ -d "$corpus/tensors" ]; then cp "$corpus"/tensors/*.dat "$seeds/tensor/"; fi

model=$(mktemp -d)
trap 'rm -rf "$model"' EXIT
printf 'version 1.0;\n\ngraph G( x ) -> ( y )\n{\n    x = external(shape = [1, 2]);\n    w = variable(shape = [1, 2], label = "w");\n    y = add(x, w);\n}\n' > "$model/graph.nnef"
printf '"y": linear_quantize(min = 0.0, max = 1.0, bits = 8);\n' > "$model/graph.quant"
mkdir -p "$model/sub"
tensor "$model/w.dat" 8 0x00 32 0 0 1 2
tensor "$model/sub/b.dat" 1 0x05 1 0 0 3
tar -C "$model" -cf "$seeds/archive/model.tar" graph.nnef graph.quant w.dat sub
tar -C "$model" -czf "$seeds/archive/model.tgz" graph.nnef graph.quant w.dat sub
tar -C "$model" --format=ustar -cf "$seeds/archive/ustar.tar" graph.nnef w.dat
tar -C "$(dirname "$model")" -czf "$seeds/archive/wrapped.tgz" "$(basename "$model")/graph.nnef" "$(basename "$model")/w.dat"
cp "$model/graph.nnef" "$seeds/archive/graph.nnef"
if [ -d "$corpus/conformance/container" ]; then
  for d in "$corpus"/conformance/container/*/; do
    name=$(basename "$d")
    tar -C "$d" -cf "$seeds/archive/$name.tar" .
    tar -C "$d" -czf "$seeds/archive/$name.tgz" .
  done
fi

# ---- runs --------------------------------------------------------------------------------------
status=0
for t in "${targets[@]}"; do
  case $t in
    fuzz_tensor_file) seed=$seeds/tensor ;;
    fuzz_archive) seed=$seeds/archive ;;
    *) echo "fuzz.sh: unknown target $t" >&2; exit 2 ;;
  esac
  work=$build/fuzz-corpus/$t
  mkdir -p "$work"
  log=$build/fuzz-artifacts/$t.log
  echo "== $t: ${seconds}s, $(ls "$seed" | wc -l) seeds, log $log"
  # Runs in the artifacts folder so that nothing a target might write lands elsewhere.
  if ! (cd "$build/fuzz-artifacts" && "$build/fuzz/$t" "$work" "$seed" -max_total_time="$seconds" -timeout=10 \
        -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$build/fuzz-artifacts/$t-") > "$log" 2>&1; then
    status=1
    echo "$t: FAILED, see $log and $build/fuzz-artifacts/"
  fi
  grep -E "^Done|stat::number_of_executed_units|stat::average_exec_per_sec|stat::new_units_added|cov: .*ft:" "$log" | tail -5
done
exit $status
