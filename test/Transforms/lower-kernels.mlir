// RUN: fusion-opt %s --fusion-lower-kernels | FileCheck %s

// A hand-written schedule pins the lowering: 2-wide vectors, 64-thread
// blocks, at most 10 blocks. The vectorized variant runs when its guard
// holds; else a 32-bit scalar variant; else the 64-bit one.
// CHECK-LABEL: fusion.fusion @bias
// CHECK-SAME: (%[[X:.*]]: tensor<?x?xf32>, %[[B:.*]]: tensor<?xf32>)
// CHECK: %[[M:.*]] = dim %[[X]], 0
// CHECK: %[[N:.*]] = dim %[[X]], 1
// CHECK: %[[OUT:.*]] = empty(%[[M]], %[[N]]) : tensor<?x?xf32>
// CHECK: stride %[[X]], 0
// CHECK: stride %[[X]], 1
// CHECK: stride %[[B]], 0
// CHECK: check %{{.*}}, "input 1 (arg1) dim 0 must equal result dim 1 or be 1"
// CHECK: ptr_aligned %[[X]], 16
// CHECK: ptr_aligned %[[B]], 16
// CHECK: ptr_aligned %[[OUT]], 16
// CHECK: launch @bias_kernels::@bias_k0_v2_i32 if(%{{.*}}) grid(%{{.*}}) block(%[[C64:.*]], %{{.*}}) smem(%{{.*}}) args(%[[X]], %{{.*}}, %{{.*}}, %[[B]], %{{.*}}, %[[OUT]], %[[M]], %[[N]], %{{.*}}) {param_types = [memref<?xf32>, i32, i32, memref<?xf32>, i32, memref<?xf32>, i32, i32, i32]}
// CHECK: launch @bias_kernels::@bias_k0_s_i32 if(%{{.*}})
// CHECK: launch @bias_kernels::@bias_k0_s_i64 grid
// CHECK-SAME: param_types = [memref<?xf32>, i64, i64, memref<?xf32>, i64, memref<?xf32>, i64, i64, i64]
// CHECK: return %[[OUT]]

// CHECK: gpu.module @bias_kernels
// CHECK: gpu.func @bias_k0_v2_i32(%{{.*}}) kernel attributes {known_block_size = array<i32: 64, 1, 1>}
// CHECK: scf.for %{{.*}} : i32
// CHECK: vector.load %arg0[%{{.*}}] {alignment = 8 : i64} : memref<?xf32>, vector<2xf32>
// CHECK: vector.load %arg3[%{{.*}}] {alignment = 8 : i64} : memref<?xf32>, vector<2xf32>
// CHECK: arith.addf %{{.*}}, %{{.*}} : vector<2xf32>
// CHECK: vector.store %{{.*}}, %arg5[%{{.*}}] {alignment = 8 : i64}
// CHECK: gpu.func @bias_k0_s_i32
// CHECK: memref.load
// CHECK: arith.addf %{{.*}}, %{{.*}} : f32
// CHECK: gpu.func @bias_k0_s_i64
// CHECK: scf.for %{{.*}} : i64
fusion.fusion @bias(%x: tensor<?x?xf32>, %b: tensor<?xf32>) -> tensor<?x?xf32> {
  %0 = fusion.kernel @bias_k0 schedule = #fusion.pointwise<vector = 2, unroll = 1, block = 64, max_grid = 10, index64 = false, fast_math = false> (%x, %b) : (tensor<?x?xf32>, tensor<?xf32>) -> tensor<?x?xf32> {
  ^bb0(%kx: tensor<?x?xf32>, %kb: tensor<?xf32>):
    %c0 = arith.constant 0 : index
    %m = arith.constant 1 : index
    %bb = fusion.broadcast_in_dim %kb [1] (%m, %m) : tensor<?xf32> -> tensor<?x?xf32>
    %1 = fusion.add %kx, %bb : tensor<?x?xf32>
    fusion.yield %1 : tensor<?x?xf32>
  }
  fusion.return %0 : tensor<?x?xf32>
}
