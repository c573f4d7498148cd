#!/usr/bin/env bash
# A/B of module files from two compilers (a change against the commit
# before it), run from the GPU bundle's root: for each NAME.args in DIR_A
# (one line of fusion-run inputs per shape, e.g. `--input=8192x4096
# --input=4096`), NAME.fusionmod of DIR_A and of DIR_B are checked once per
# shape against the interpreter (which computes the whole output on the
# CPU: tens of seconds at the public shapes), then timed with --no-check,
# the two modules interleaved, ROUNDS times (fresh random inputs and the
# copy ceiling in every fusion-run). Prints a CHECK line per module and
# shape, then a BENCH line per run. CHECK=0 skips the checks (for outputs
# the interpreter takes minutes over, where GPU lit checks smaller shapes).
#
#   A=/tmp/ab/a B=/tmp/ab/b; mkdir -p $A $B
#   old/bin/fusion-translate case.mlir --fusion-to-module -o $A/case.fusionmod
#   bin/fusion-translate case.mlir --fusion-to-module -o $B/case.fusionmod
#   echo "--input=32768x4096 --input=4096" > $A/case.args
#   ROUNDS=2 bash bench/experiments/module-ab.sh $A $B
set -uo pipefail
a=${1:?usage: module-ab.sh DIR_A DIR_B}
b=${2:?usage: module-ab.sh DIR_A DIR_B}
rounds=${ROUNDS:-2}
run=${FUSION_RUN:-bin/fusion-run}
short() { sed -E 's/ (host_us|raw_launch_us|rel_l2|copy_GBps|GBps)=[^ ]*//g'; }
# Calls `$1 NAME SIDE MODULE INPUTS...` for every case, shape and side.
each_run() {
  local args name inputs side dir
  for args in "$a"/*.args; do
    name=$(basename "$args" .args)
    while read -r inputs; do
      [ -n "$inputs" ] || continue
      for side in a b; do
        dir=$a; [ $side = b ] && dir=$b
        # shellcheck disable=SC2086
        "$1" "$name" $side "$dir/$name.fusionmod" $inputs
      done
    done <"$args"
  done
}
check() {
  local name=$1 side=$2; shift 2
  echo "CHECK $name $side $(timeout 300 "$run" "$@" 2>&1 |
    grep -E "^(PASS|FAIL)|error" | head -1)" | short
}
bench() {
  local name=$1 side=$2; shift 2
  echo "round $round $name $side $(timeout 120 "$run" "$@" --bench --no-check \
    --iters="${ITERS:-100}" --host-iters=10 2>&1 | grep -E "^BENCH|error" |
    head -1)" | short
}
[ "${CHECK:-1}" = 0 ] || each_run check
for round in $(seq "$rounds"); do
  each_run bench
done
