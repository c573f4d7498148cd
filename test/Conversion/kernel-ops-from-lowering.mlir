// --fusion-lower-kernels writes the block reductions of an inner reduction
// as fusion.block_reduce: softmax's online (max, sum) state in two folds
// (Note [Online states in two folds]), the max from -inf with maximumf,
// then each thread's sum rescaled to the row's max once (one exp) and
// added from 0; the split-row
// variant and an outer reduction combine their blocks' partials with
// fusion.grid_reduce (the split rows one partial per row at row * S + y,
// counted only where the row is valid, each thread folding splits tid,
// tid + T, ...; the outer reduction one per column at col + y * cols, each
// row-thread folding splits ty, ty + 8, ... of its column where the column
// is in range), whose last region holds the last block's block reduction or
// fold across row-threads and the result's store; --fusion-lower-kernel-ops
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
// CHECK: %[[M:.*]] = fusion.block_reduce %[[MT:.*]] : f32 lane %{{.*}} warp %{{.*}} slots(%[[MSLOTS:.*]] : memref<32xf32, #gpu.address_space<workgroup>>) at %{{.*}} warps %{{.*}} if %{{.*}} width %{{.*}} : i32 : i32 identity {
// CHECK-NEXT: arith.constant 0xFF800000 : f32
// CHECK-NEXT: fusion.reduce_yield %{{.*}} : f32
// CHECK-NEXT: } combiner {
// CHECK-NEXT: ^bb0(%[[MA:.*]]: f32, %[[MB:.*]]: f32):
// CHECK-NEXT: %[[MX:.*]] = arith.maximumf %[[MA]], %[[MB]] : f32
// CHECK-NEXT: fusion.reduce_yield %[[MX]] : f32
// CHECK-NEXT: }
// CHECK: %[[D:.*]] = arith.subf %[[MT]], %[[M]] : f32
// CHECK: math.exp %[[D]]
// CHECK: %[[NONE:.*]] = arith.cmpf oeq, %[[MT]], %{{.*}} : f32
// CHECK: %[[ST:.*]] = arith.select %[[NONE]]
// CHECK-NOT: math.exp
// CHECK: %{{.*}} = fusion.block_reduce %[[ST]] : f32 lane %{{.*}} warp %{{.*}} slots(%{{.*}} : memref<32xf32, #gpu.address_space<workgroup>>) at %{{.*}} warps %{{.*}} if %{{.*}} width %{{.*}} : i32 : i32 identity {
// CHECK-NEXT: arith.constant 0.000000e+00 : f32
// CHECK-NEXT: fusion.reduce_yield %{{.*}} : f32
// CHECK-NEXT: } combiner {
// CHECK-NEXT: ^bb0(%[[SA:.*]]: f32, %[[SB:.*]]: f32):
// CHECK-NEXT: %[[SS:.*]] = arith.addf %[[SA]], %[[SB]] : f32
// CHECK-NEXT: fusion.reduce_yield %[[SS]] : f32
// CHECK-NEXT: }
// CHECK-LABEL: gpu.func @rowmax_k0_gv4_i32
// CHECK: %[[TID:.*]] = arith.index_cast %thread_id_x : index to i32
// CHECK: fusion.grid_reduce %{{.*}} : f32 workspaces(%{{.*}} : memref<?xf32>) at %{{.*}} stride %c1_i32{{.*}} split %{{.*}} of %{{.*}} if %{{.*}} thread %{{.*}} if %{{.*}} counters(%{{.*}} : memref<?xi32>) [%{{.*}}] flag(%{{.*}} : memref<1xi32, #gpu.address_space<workgroup>>) fold from %{{.*}} step %{{.*}} : i32 identity {
// CHECK: arith.constant 0xFF800000 : f32
// CHECK: } combiner {
// CHECK: arith.maximumf
// CHECK: } last {
// CHECK-NEXT: ^bb0(%[[FOLD:.*]]: f32):
// CHECK: fusion.block_reduce %[[FOLD]] : f32
// CHECK: memref.store
// CHECK: fusion.reduce_yield
// CHECK-NEXT: }
// CHECK-LABEL: gpu.func @colsum_k0_
// CHECK: fusion.grid_reduce %{{.*}} : vector<4xf32> workspaces(%{{.*}} : memref<?xf32>) at %{{.*}} stride %{{.*}} split %{{.*}} of %{{.*}} if %{{.*}} thread %{{.*}} counters(%{{.*}} : memref<?xi32>) [%{{.*}}] flag(%{{.*}} : memref<1xi32, #gpu.address_space<workgroup>>) fold from %{{.*}} step %c8_i32 if %{{.*}} : i32 identity {
// CHECK: } last {
// CHECK-NEXT: ^bb0(%[[COL:.*]]: vector<4xf32>):
// CHECK: vector.store %[[COL]]
// CHECK: gpu.barrier

// LOWERED-NOT: fusion.block_reduce
// LOWERED-NOT: fusion.warp_reduce
// LOWERED-NOT: fusion.grid_arrive
// LOWERED-NOT: fusion.grid_reduce
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
