// RUN: fusion-opt %s --fusion-segment --split-input-file | FileCheck %s

// Tensor ops move into one fusion.kernel; sizes stay on the host, computed
// from the inputs; constants are rematerialized inside the kernel.
// CHECK-LABEL: fusion.fusion @bias_gelu
// CHECK-SAME: (%[[X:.*]]: tensor<?x?xf32>, %[[B:.*]]: tensor<?xf32>)
// CHECK-DAG: %[[M:.*]] = dim %[[X]], 0
// CHECK-DAG: %[[N:.*]] = dim %[[X]], 1
// CHECK: %[[R:.*]] = kernel @bias_gelu_k0 (%[[B]], %[[M]], %[[N]], %[[X]])
// CHECK: ^bb0(%[[KB:.*]]: tensor<?xf32>, %[[KM:.*]]: index, %[[KN:.*]]: index, %[[KX:.*]]: tensor<?x?xf32>):
// CHECK: %[[C:.*]] = arith.constant 5.000000e-01 : f32
// CHECK: broadcast_in_dim %[[KB]] [1](%[[KM]], %[[KN]])
// CHECK: broadcast_in_dim %[[C]] [](%[[KM]], %[[KN]])
// CHECK: yield
// CHECK: return %[[R]]
fusion.fusion @bias_gelu(%x: tensor<?x?xf32>, %bias: tensor<?xf32>) -> tensor<?x?xf32> {
  %half = arith.constant 0.5 : f32
  %m = fusion.dim %x, 0 : tensor<?x?xf32>
  %n = fusion.dim %x, 1 : tensor<?x?xf32>
  %b = fusion.broadcast_in_dim %bias [1] (%m, %n) : tensor<?xf32> -> tensor<?x?xf32>
  %h = fusion.broadcast_in_dim %half [] (%m, %n) : f32 -> tensor<?x?xf32>
  %0 = fusion.add %x, %b : tensor<?x?xf32>
  %1 = fusion.mul %0, %h : tensor<?x?xf32>
  fusion.return %1 : tensor<?x?xf32>
}

// -----

// The size of a computed tensor is rewritten into the size of an input.
// CHECK-LABEL: fusion.fusion @dim_of_computed
// CHECK-SAME: (%[[A:.*]]: tensor<?xf32>)
// CHECK: %[[D:.*]] = dim %[[A]], 0
// CHECK: kernel @dim_of_computed_k0 (%[[A]], %[[D]])
// CHECK-NOT: f32,
// CHECK: arith.constant 1.0
fusion.fusion @dim_of_computed(%a: tensor<?xf32>) -> tensor<?xf32> {
  %e = fusion.exp %a : tensor<?xf32>
  %n = fusion.dim %e, 0 : tensor<?xf32>
  %one = arith.constant 1.0 : f32
  %o = fusion.broadcast_in_dim %one [] (%n) : f32 -> tensor<?xf32>
  %r = fusion.add %e, %o : tensor<?xf32>
  fusion.return %r : tensor<?xf32>
}

// -----

// Views of inputs that are only returned stay on the host (no kernel); the
// exp does need one.
// CHECK-LABEL: fusion.fusion @views
// CHECK: %[[FLAT:.*]] = reshape %arg0
// CHECK: %[[T:.*]] = permute %arg0 [1, 0]
// CHECK: %[[E:.*]] = kernel @views_k0 (%arg0)
// CHECK-NOT: reshape
// CHECK-NOT: permute
// CHECK: yield
// CHECK: return %[[FLAT]], %[[T]], %[[E]]
fusion.fusion @views(%x: tensor<?x?xf32>) -> (tensor<?xf32>, tensor<?x?xf32>, tensor<?x?xf32>) {
  %m = fusion.dim %x, 0 : tensor<?x?xf32>
  %n = fusion.dim %x, 1 : tensor<?x?xf32>
  %mn = arith.muli %m, %n : index
  %flat = fusion.reshape %x (%mn) : tensor<?x?xf32> -> tensor<?xf32>
  %t = fusion.permute %x [1, 0] : tensor<?x?xf32> -> tensor<?x?xf32>
  %e = fusion.exp %x : tensor<?x?xf32>
  fusion.return %flat, %t, %e : tensor<?xf32>, tensor<?x?xf32>, tensor<?x?xf32>
}
