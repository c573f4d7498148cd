// Note [Static extents]: a dim the iteration type knows is a constant in the
// kernel; the dynamic dims still come from the size parameters. A work item
// of the vector variant is split by 128 / 4 = 32 vectors per row (a
// constant) and then by the dynamic heads (%arg11, a parameter).
// RUN: fusion-opt %s --fusion-decompose --fusion-segment --fusion-schedule --fusion-lower-kernels --canonicalize | FileCheck %s

// CHECK-LABEL: gpu.func @static_inner_k0_v4_i32(
// CHECK-SAME: %[[T:arg10]]: i32, %[[H:arg11]]: i32, %[[D:arg12]]: i32, %[[N:arg13]]: i32)
// CHECK: arith.remui %{{.*}}, %c32_i32 : i32
// CHECK: %[[ROW:.*]] = arith.divui %{{.*}}, %c32_i32 : i32
// CHECK: arith.remui %[[ROW]], %[[H]] : i32
// CHECK-NOT: arith.divui %{{.*}}, %[[D]]
// CHECK-NOT: arith.remui %{{.*}}, %[[D]]
// CHECK-LABEL: gpu.func @static_inner_k0_s_i32(
// CHECK-NOT: gpu.func
// CHECK: arith.remui %{{.*}}, %c128_i32 : i32
fusion.fusion @static_inner(%x: tensor<?x?x128xf32>, %b: tensor<?x128xf32>) -> tensor<?x?x128xf32> {
  %t = fusion.dim %x, 0 : tensor<?x?x128xf32>
  %h = fusion.dim %x, 1 : tensor<?x?x128xf32>
  %bb = fusion.broadcast_in_dim %b [0, 2] (%t, %h) : tensor<?x128xf32> -> tensor<?x?x128xf32>
  %y = fusion.add %x, %bb : tensor<?x?x128xf32>
  fusion.return %y : tensor<?x?x128xf32>
}
