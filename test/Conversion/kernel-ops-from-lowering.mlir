// --fusion-lower-kernels writes the block reductions of an inner reduction
// as fusion.block_reduce: softmax's online (max, sum) state with its identity
// (-inf, 0) and the combiner of Note [Merging row states];
// --fusion-lower-kernel-ops then leaves none. The PTX passes ptxas.
// RUN: fusion-opt %s --fusion-decompose --fusion-segment --fusion-schedule --fusion-lower-kernels | FileCheck %s
// RUN: fusion-opt %s --fusion-decompose --fusion-segment --fusion-schedule --fusion-lower-kernels --fusion-lower-kernel-ops | FileCheck %s --check-prefix=LOWERED
// RUN: fusion-translate %s --fusion-to-ptx --no-cubin -o %t.ptx
// RUN: %if ptxas %{ ptxas -arch=sm_90a %t.ptx -o %t.cubin %}

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

// LOWERED-NOT: fusion.block_reduce
// LOWERED-NOT: fusion.warp_reduce
// LOWERED: gpu.shuffle  xor

fusion.fusion @softmax(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %y = fusion.softmax %x dim = 1 : tensor<?x?xf32>
  fusion.return %y : tensor<?x?xf32>
}
