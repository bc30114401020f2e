#!/usr/bin/env bash
# Storage loading benchmark (README "Storage benchmark"): loads a model's float32 weights from a
# folder, a .tar and a .tgz with nnef-storage-bench (every value summed) and compares each with a
# process that only reads the same bytes in the same run: `cat FILES > /dev/null`,
# `tar xf model.tar -O > /dev/null`, `tar xzf model.tgz -O > /dev/null`. Page cache warm; whole
# processes, alternated, median of $NNEF_BENCH_REPEAT (default 7) runs each. `folder-r` is the
# folder read into memory instead of mapping float32 data (ReadOptions::allow_mmap = false).
#
#   NNEF_BENCH_MB       size of the synthetic ResNet-50-like model (default 100)
#   NNEF_BUILD_DIR      build directory (default build/); NNEF_SKIP_BUILD=1 uses it as it is
#   NNEF_BENCH_DIR      where data is generated (default $NNEF_BUILD_DIR/bench-data/storage)
#   NNEF_CORPUS_DIR     third-party corpus; its real models with weights are measured too
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${NNEF_BUILD_DIR:-$root/build}
if [ "${NNEF_SKIP_BUILD:-0}" != 1 ]; then
  "$root/scripts/install-deps.sh"
  NNEF_BUILD_DIR=$build "$root/scripts/build.sh" -DNNEF_BUILD_BENCH=ON
fi
bench=$build/bench/nnef-storage-bench
data=${NNEF_BENCH_DIR:-$build/bench-data/storage}
mb=${NNEF_BENCH_MB:-100}
repeat=${NNEF_BENCH_REPEAT:-7}
corpus=${NNEF_CORPUS_DIR:-$root/../shared/corpus}

synthetic=$data/synthetic-${mb}MB
if [ ! -f "$synthetic/model.tgz" ]; then
  mkdir -p "$synthetic"
  "$bench" generate "$synthetic" "$mb"
fi

# name folder: the models to measure (the synthetic one, then corpus models with weights)
models=("synthetic-${mb}MB" "$synthetic/model")
for m in mobilenet_v2 shufflenet_v2_x1_0 squeezenet1_0; do
  src=$corpus/real/$m
  if [ -d "$src" ] && compgen -G "$src/*.dat" >/dev/null; then
    out=$data/corpus/$m
    mkdir -p "$out"
    [ -f "$out/model.tar" ] || "$bench" pack "$src" "$out/model.tar"
    [ -f "$out/model.tgz" ] || "$bench" pack "$src" "$out/model.tgz" --gzip
    models+=("$m" "$src")
  fi
done

echo "machine: $(nproc) cores; $(uname -sr); $repeat runs each, medians; baseline/ours >= 0.80 is the target"
for ((i = 0; i < ${#models[@]}; i += 2)); do
  name=${models[i]}
  folder=${models[i + 1]}
  archives=$(dirname "$folder")
  [ "$name" = "synthetic-${mb}MB" ] || archives=$data/corpus/$name
  mapfile -t files < <(find "$folder" -type f | sort)
  # Warm the page cache (data and binaries).
  cat "${files[@]}" "$archives/model.tar" "$archives/model.tgz" > /dev/null
  bytes=$(du -cb "${files[@]}" | tail -1 | cut -f1)
  echo "== $name: ${#files[@]} files, $((bytes / 1000000)) MB; tgz $(($(stat -c %s "$archives/model.tgz") / 1000000)) MB"
  for p in "$folder" "$archives/model.tar" "$archives/model.tgz"; do "$bench" load "$p"; done
  "$bench" compare "$repeat" folder -- "$bench" load "$folder" --vs cat "${files[@]}"
  "$bench" compare "$repeat" folder-r -- "$bench" load "$folder" --no-mmap --vs cat "${files[@]}"
  "$bench" compare "$repeat" tar -- "$bench" load "$archives/model.tar" --vs tar xf "$archives/model.tar" -O
  "$bench" compare "$repeat" tgz -- "$bench" load "$archives/model.tgz" --vs tar xzf "$archives/model.tgz" -O
done
