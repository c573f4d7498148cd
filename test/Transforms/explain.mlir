// explain=1 on fusion-segment and fusion-schedule (and the pipeline option
// explain, which FUSION_DUMP=decisions sets from Python): every decision is a
// remark at the op it is about, with its reason. fusion-translate compiles
// the two fusions in parallel, so their remarks may interleave (DAG).
// RUN: fusion-opt %s --split-input-file --pass-pipeline='builtin.module(fusion.fusion(fusion-segment{explain=1},fusion-schedule{explain=1}))' -o /dev/null 2>&1 | FileCheck %s
// RUN: fusion-opt %s --split-input-file --pass-pipeline='builtin.module(fusion.fusion(fusion-segment,fusion-schedule))' -o /dev/null 2>&1 | FileCheck %s --check-prefix=QUIET --allow-empty
// RUN: fusion-translate %s --fusion-to-lowered-ir --no-cubin --explain -o /dev/null 2>&1 | FileCheck %s --check-prefix=PIPELINE

// QUIET-NOT: remark

// x - sum(x, dim 0): the outer reduction cannot also write the difference.
// CHECK: explain.mlir:[[@LINE+1]]:1: remark: not one kernel: 'fusion.sub' is a result without one value per kept position of the outer reduction
fusion.fusion @center(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  // CHECK: explain.mlir:[[@LINE+1]]:8: remark: 'fusion.sum' starts kernel 0
  %m = fusion.sum %x [0] keepdim : tensor<?x?xf32> -> tensor<1x?xf32>
  %d0 = fusion.dim %x, 0 : tensor<?x?xf32>
  %d1 = fusion.dim %x, 1 : tensor<?x?xf32>
  // CHECK: explain.mlir:[[@LINE+1]]:8: remark: 'fusion.expand' starts kernel 1: it fits no kernel from 0 on (with kernel 0: 'fusion.expand' is a result without one value per kept position
  %e = fusion.expand %m(%d0, %d1) : tensor<1x?xf32> -> tensor<?x?xf32>
  %y = fusion.sub %x, %e : tensor<?x?xf32>
  fusion.return %y : tensor<?x?xf32>
}
// CHECK: remark: center_k0: outer-reduction scheduler: it reduces outer dims {{.*}}; schedule #fusion.outer_reduction<vector = 4,
// CHECK: remark: center_k1: pointwise scheduler: no reduction{{.*}}; schedule #fusion.pointwise<
// PIPELINE-DAG: remark: not one kernel
// PIPELINE-DAG: remark: center_k0: outer-reduction scheduler
// PIPELINE-DAG: remark: center_k1: pointwise scheduler

// -----

// CHECK: explain.mlir:[[@LINE+1]]:1: remark: one kernel: a scheduler takes all 2 tensor ops together
fusion.fusion @add_relu(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %0 = fusion.add %a, %b : tensor<?x?xf32>
  %1 = fusion.relu %0 : tensor<?x?xf32>
  fusion.return %1 : tensor<?x?xf32>
}
// CHECK: remark: add_relu_k0: pointwise scheduler
// PIPELINE-DAG: remark: one kernel
