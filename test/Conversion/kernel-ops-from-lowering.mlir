// --fusion-lower-kernels writes the block reductions of an inner reduction
// as fusion.block_reduce: softmax's online (max, sum) state with its identity
// (-inf, 0) and the combiner of Note [Merging row states]; the split-row
// variant and an outer reduction count their blocks with fusion.grid_arrive
// (the split rows only where the row is valid); --fusion-lower-kernel-ops
// then leaves none. The PTX passes ptxas.
// RUN: fusion-opt %s --fusion-decompose --fusion-segment --fusion-schedule --fusion-lower-kernels | FileCheck %s
// RUN: fusion-opt %s --fusion-decompose --fusion-segment --fusion-schedule --fusion-lower-kernels --fusion-lower-kernel-ops | FileCheck %s --check-prefix=LOWERED
// RUN: fusion-translate %s --fusion=softmax --fusion-to-ptx --no-cubin -o %t.softmax.ptx
// RUN: fusion-translate %s --fusion=rowmax --fusion-to-ptx --no-cubin -o %t.rowmax.ptx
// RUN: fusion-translate %s --fusion=colsum --fusion-to-ptx --no-cubin -o %t.colsum.ptx
// RUN: %if ptxas %{ ptxas -arch=sm_90a %t.softmax.ptx -o %t.softmax.cubin %}
// RUN: %if ptxas %{ ptxas -arch=sm_90a %t.rowmax.ptx -o %t.rowmax.cubin %}
// RUN: %if ptxas %{ ptxas -arch=sm_90a %t.colsum.ptx -o %t.colsum.cubin %}

// CHECK-LABEL: gpu.func @softmax_k0_
// CHECK: %{{.*}}:2 = fusion.block_reduce %{{.*}}, %{{.*}} : f32, f32 lane %{{.*}} warp %{{.*}} slots(%{{.*}}, %{{.*}} : memref<32xf32, #gpu.address_space<workgroup>>, memref<32xf32, #gpu.address_space<workgroup>>) at %{{.*}} warps %{{.*}} if %{{.*}} : i32 identity {
// CHECK-DAG: arith.constant 0xFF800000 : f32
// CHECK-DAG: arith.constant 0.000000e+00 : f32
// CHECK: fusion.reduce_yield %{{.*}}, %{{.*}} : f32, f32
// CHECK-NEXT: } combiner {
// CHECK-NEXT: ^bb0(%[[MA:.*]]: f32, %[[SA:.*]]: f32, %[[MB:.*]]: f32, %[[SB:.*]]: f32):
// CHECK-NEXT: arith.maximumf %[[MA]], %[[MB]] : f32
// CHECK: math.exp
// CHECK: fusion.reduce_yield
// CHECK-LABEL: gpu.func @rowmax_k0_gv4_i32
// CHECK: fusion.grid_arrive thread %{{.*}} if %{{.*}} counters(%{{.*}} : memref<?xi32>) [%{{.*}}] of %{{.*}} flag(%{{.*}} : memref<1xi32, #gpu.address_space<workgroup>>) : i32
// CHECK-LABEL: gpu.func @colsum_k0_
// CHECK: %[[LAST:.*]] = fusion.grid_arrive thread %{{.*}} counters(%{{.*}} : memref<?xi32>) [%{{.*}}] of %{{.*}} flag(%{{.*}} : memref<1xi32, #gpu.address_space<workgroup>>) : i32
// CHECK-NEXT: scf.if %[[LAST]] {

// LOWERED-NOT: fusion.block_reduce
// LOWERED-NOT: fusion.warp_reduce
// LOWERED-NOT: fusion.grid_arrive
// LOWERED: gpu.shuffle  xor

fusion.fusion @softmax(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %y = fusion.softmax %x dim = 1 : tensor<?x?xf32>
  fusion.return %y : tensor<?x?xf32>
}

fusion.fusion @rowmax(%x: tensor<?x?xf32>) -> tensor<?xf32> {
  %y = fusion.max %x [1] : tensor<?x?xf32> -> tensor<?xf32>
  fusion.return %y : tensor<?xf32>
}

fusion.fusion @colsum(%x: tensor<?x?xf32>) -> tensor<?xf32> {
  %y = fusion.sum %x [0] : tensor<?x?xf32> -> tensor<?xf32>
  fusion.return %y : tensor<?xf32>
}
