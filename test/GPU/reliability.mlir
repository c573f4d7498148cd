// REQUIRES: cuda
// Kernels of fusions that crashed the compiler before (the reliability
// issue; test/Reliability/compile-crashes.mlir checks they compile), run
// against the reference interpreter: fp8 reductions (the accumulator is f32,
// decoded from and encoded to the fp8 bits; fusion-run's tolerance for fp8
// outputs is one fp8 ulp, since the sums are added in another order), a
// splat tensor constant, and sizes given as a constant or as a static dim.

// RUN: fusion-run %s --fusion=fp8_sum --input=1000x37 | FileCheck %s --check-prefix=SUM
// SUM: PASS fp8_sum 1000x37xf8E4M3FN
// RUN: fusion-run %s --fusion=fp8_sum --input=64x4096 | FileCheck %s --check-prefix=SUMV
// SUMV: PASS fp8_sum 64x4096xf8E4M3FN
// RUN: fusion-run %s --fusion=fp8_max --input=333x1001 | FileCheck %s --check-prefix=MAX
// MAX: PASS fp8_max 333x1001xf8E5M2 max_abs_err=0
// RUN: fusion-run %s --fusion=fp8_max --input=128x1024 | FileCheck %s --check-prefix=MAXV
// MAXV: PASS fp8_max 128x1024xf8E5M2 max_abs_err=0
// RUN: fusion-run %s --fusion=fp8_outer_sum --input=5000x24 | FileCheck %s --check-prefix=OUTER
// OUTER: PASS fp8_outer_sum 5000x24xf8E4M3FN
// RUN: fusion-run %s --fusion=fp8_outer_sum --input=777x513 | FileCheck %s --check-prefix=OUTERS
// OUTERS: PASS fp8_outer_sum 777x513xf8E4M3FN
// RUN: fusion-run %s --fusion=splat_constant --input=1000x4 | FileCheck %s --check-prefix=SPLAT
// SPLAT: PASS splat_constant 1000x4xf32 max_abs_err=0
// RUN: fusion-run %s --fusion=size_constant --input=4 | FileCheck %s --check-prefix=SIZE
// SIZE: PASS size_constant 4xf32 max_abs_err=0
// RUN: fusion-run %s --fusion=size_static_dim --input=300x4 | FileCheck %s --check-prefix=DIM
// DIM: PASS size_static_dim 300x4xf32

fusion.fusion @fp8_sum(%x: tensor<?x?xf8E4M3FN>) -> tensor<?xf8E4M3FN> {
  %r = fusion.sum %x [1] : tensor<?x?xf8E4M3FN> -> tensor<?xf8E4M3FN>
  fusion.return %r : tensor<?xf8E4M3FN>
}

fusion.fusion @fp8_max(%x: tensor<?x?xf8E5M2>) -> tensor<?xf8E5M2> {
  %r = fusion.max %x [1] : tensor<?x?xf8E5M2> -> tensor<?xf8E5M2>
  fusion.return %r : tensor<?xf8E5M2>
}

fusion.fusion @fp8_outer_sum(%x: tensor<?x?xf8E4M3FN>) -> tensor<?xf8E4M3FN> {
  %r = fusion.sum %x [0] : tensor<?x?xf8E4M3FN> -> tensor<?xf8E4M3FN>
  fusion.return %r : tensor<?xf8E4M3FN>
}

fusion.fusion @splat_constant(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %c = arith.constant dense<2.5> : tensor<4xf32>
  %n = fusion.dim %x, 0 : tensor<?x4xf32>
  %b = fusion.broadcast_in_dim %c [1](%n) : tensor<4xf32> -> tensor<?x4xf32>
  %r = fusion.add %x, %b : tensor<?x4xf32>
  fusion.return %r : tensor<?x4xf32>
}

fusion.fusion @size_constant(%a: tensor<4xf32>) -> tensor<?x4xf32> {
  %n = arith.constant 3 : index
  %1 = fusion.broadcast_in_dim %a [1](%n) : tensor<4xf32> -> tensor<?x4xf32>
  fusion.return %1 : tensor<?x4xf32>
}

fusion.fusion @size_static_dim(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %s = fusion.sum %x [0] : tensor<?x4xf32> -> tensor<4xf32>
  %n = fusion.dim %s, 0 : tensor<4xf32>
  %c = fusion.broadcast_in_dim %s [1](%n) : tensor<4xf32> -> tensor<?x4xf32>
  fusion.return %c : tensor<?x4xf32>
}
