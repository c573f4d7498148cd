#!/usr/bin/env bash
# Tile-size sweep of the tiled transpose variant, run from the GPU bundle's
# root: compiles bench/cases/transpose.mlir with fusion-translate
# --transpose-tile=T and times it with fusion-run --bench at the public
# shapes (copy fraction in the same process).
# usage: bash bench/experiments/transpose-tiles.sh [TILES...]
set -uo pipefail
tiles=${*:-"16 32 64"}
work=${WORK:-/tmp/transpose-tiles}
mkdir -p "$work"
for t in $tiles; do
  mod=$work/transpose-$t.fusionmod
  bin/fusion-translate bench/cases/transpose.mlir --fusion-to-module \
    --transpose-tile="$t" -o "$mod" || { echo "compile failed: tile $t"; continue; }
  for s in 32768x4096 8192x16384 262144x1024; do
    out=$(bin/fusion-run "$mod" --input="$s" --bench --iters=20 --warmup=5 \
      --host-iters=100 --copy-mib=512 2>&1 | grep -E "^BENCH|^FAIL|error")
    echo "tile=$t $out" | sed 's/ host_us=.*variant=/ variant=/'
  done
done
