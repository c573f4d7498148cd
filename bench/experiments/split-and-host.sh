#!/usr/bin/env bash
# On the GPU machine, from the unpacked bundle (utils/build-gpu-bundle.sh):
# kernel time of few long rows with and without the split-row variants
# (Note [Split rows]; "without" compiles with --sm-count=2 --blocks-per-sm=1,
# which leaves max_grid / 4 = 0 split blocks: one block per row, as before),
# and host time per call (fusion-run --bench host_us beside raw_launch_us) of
# modules with grid-reduction counters and of segmented (multi-kernel)
# fusions.
set -uo pipefail
cd "$(dirname "$0")/../.."
run() { bin/fusion-run "$@" --bench --iters=30 | grep -E "^(PASS|FAIL|BENCH)"; }
echo "== few long rows: split"
for s in 1x4194304 2x1048576 8x262144 64x65536; do
  run test/GPU/split-rows.mlir --fusion=sum_f32 --atol=5e-2 --input=$s
done
echo "== few long rows: one block per row"
bin/fusion-translate test/GPU/split-rows.mlir --fusion=sum_f32 --fusion-to-module \
  --sm-count=2 --blocks-per-sm=1 -o /tmp/sum_nosplit.fusionmod
for s in 1x4194304 2x1048576; do
  run /tmp/sum_nosplit.fusionmod --atol=5e-2 --input=$s
done
echo "== host time: grid-reduction counters (kept_zero) and segmented fusions"
run test/GPU/outer-reductions.mlir --fusion=colsum_f32 --atol=1e-1 --input=32768x1024
run test/GPU/split-rows.mlir --fusion=sum_f32 --atol=5e-2 --input=2x1048576
run test/GPU/segmentation.mlir --fusion=outer_center_f32 --atol=1e-3 --input=32768x1024 --input=32768
run test/GPU/segmentation.mlir --fusion=softmax_minus_colmax_f32 --atol=1e-3 --input=8192x4096
