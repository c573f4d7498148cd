#!/usr/bin/env bash
# Tuning sweep for the inner-reduction (normalization) schedules, run from
# the GPU bundle's root: compiles softmax, layernorm and rmsnorm with
# schedule overrides (fusion-translate --inner-items / --inner-block) and
# times each at the public shapes with fusion-run --bench (copy fraction in
# the same process). Prints one BENCH line per configuration.
# usage: [CASES="softmax layernorm layernorm2 rmsnorm rmsnorm_fp8"] \
#        [SHAPES="32768x4096 8192x16384 262144x1024"] \
#        bash bench/experiments/inner-variants.sh [CONFIGS...]
#   a config is ITEMS:BLOCK[:MINBLOCKS[:STAGE[:SMS]]], e.g. -1:0 (the heuristic),
#   0:0 (streaming only), -1:0:2 (persistent variants kept to 2 blocks per
#   SM), -1:0:0:1 (the row staged in shared memory, Note [Staged rows]),
#   -1:0:0:0 (the row in registers), -1:0:0:2 / -1:0:0:3 (the next row
#   copied with cp.async / with bulk copies), -1:0:0:-1:33 (the grids of
#   33 SMs: a quarter of the wide row grid's blocks, each looping over rows)
set -uo pipefail
configs=${*:-"-1:0 0:0 2:0 -1:512 2:512"}
work=${WORK:-/tmp/inner-variants}
mkdir -p "$work"
for case in ${CASES:-softmax layernorm rmsnorm}; do
  src=examples/normalization/$case.mlir
  [ -f "$src" ] || src=bench/cases/$case.mlir
  # layernorm2: var_mean as two sum passes (bench/experiments).
  [ "$case" = layernorm2 ] && src=bench/experiments/layernorm-two-pass.mlir
  for cfg in $configs; do
    IFS=: read -r items block minblocks stage sms <<< "$cfg"
    minblocks=${minblocks:-0}
    stage=${stage:--1}
    sms=${sms:-132}
    mod=$work/$case-$items-$block-$minblocks-$stage-$sms.fusionmod
    bin/fusion-translate "$src" --fusion-to-module --inner-items="$items" \
      --inner-block="$block" --inner-min-blocks="$minblocks" \
      --inner-stage="$stage" --sm-count="$sms" -o "$mod" \
      || { echo "compile failed: $case $cfg"; continue; }
    for s in ${SHAPES:-32768x4096 8192x16384 262144x1024}; do
      n=${s#*x}
      case $case in
        softmax) ins="--input=$s";;
        layernorm|layernorm2) ins="--input=$s --input=$n --input=$n";;
        rmsnorm|rmsnorm_fp8) ins="--input=$s --input=$n";;
      esac
      out=$(bin/fusion-run "$mod" $ins --bench --no-check --iters=20 --warmup=5 \
        --host-iters=100 --copy-mib=512 2>&1 | grep -E "^BENCH|error")
      echo "$case items=$items block=$block minblocks=$minblocks stage=$stage sms=$sms $out" | sed 's/ host_us=.*variant=/ variant=/'
    done
  done
done
