// Kernel-level ops round-trip through the custom syntax: a warp reduction of
// a one- and a two-component state, a block reduction with its slots, a grid
// arrival, and staged values in dynamic shared memory.
// RUN: fusion-opt %s | FileCheck %s
// RUN: fusion-opt %s | fusion-opt | FileCheck %s

// CHECK-LABEL: gpu.func @warp
// CHECK: %[[S:.*]] = fusion.warp_reduce %{{.*}} : f32 combiner {
// CHECK-NEXT: ^bb0(%[[A:.*]]: f32, %[[B:.*]]: f32):
// CHECK-NEXT: %[[C:.*]] = arith.addf %[[A]], %[[B]] : f32
// CHECK-NEXT: fusion.reduce_yield %[[C]] : f32
// CHECK: %{{.*}}:2 = fusion.warp_reduce %{{.*}}, %{{.*}} : f32, i64 combiner {
// CHECK-NEXT: ^bb0(%{{.*}}: f32, %{{.*}}: i64, %{{.*}}: f32, %{{.*}}: i64):
// CHECK-LABEL: gpu.func @block
// CHECK: fusion.block_reduce %{{.*}} : f32 lane %{{.*}} warp %{{.*}} slots(%{{.*}} : memref<32xf32, #gpu.address_space<workgroup>>) at %{{.*}} warps %{{.*}} if %{{.*}} : i32 identity {
// CHECK: fusion.reduce_yield %{{.*}} : f32
// CHECK-NEXT: } combiner {
// CHECK: arith.maximumf
// CHECK-LABEL: gpu.func @arrive
// CHECK: fusion.grid_arrive thread %{{.*}} counters(%{{.*}} : memref<?xi32>) [%{{.*}}] of %{{.*}} flag(%{{.*}} : memref<1xi32, #gpu.address_space<workgroup>>) : i32
// CHECK: fusion.grid_arrive thread %{{.*}} if %{{.*}} counters(%{{.*}} : memref<?xi32>) [%{{.*}}] of %{{.*}} flag(%{{.*}} : memref<1xi32, #gpu.address_space<workgroup>>) : i64
// CHECK-LABEL: gpu.func @stage
// CHECK: fusion.stage_store %{{.*}}, %{{.*}} : vector<8xbf16>, i32
// CHECK: fusion.stage_store %{{.*}}, %{{.*}} : f32, i64
// CHECK: fusion.stage_load %{{.*}} : i32 -> vector<8xbf16>
// CHECK: fusion.stage_load %{{.*}} : i64 -> f32
module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @warp(%x: f32, %v: f32, %i: i64) kernel {
      %s = fusion.warp_reduce %x : f32 combiner {
      ^bb0(%a: f32, %b: f32):
        %c = arith.addf %a, %b : f32
        fusion.reduce_yield %c : f32
      }
      %r:2 = fusion.warp_reduce %v, %i : f32, i64 combiner {
      ^bb0(%a: f32, %ai: i64, %b: f32, %bi: i64):
        %take = arith.cmpf ogt, %b, %a : f32
        %m = arith.select %take, %b, %a : f32
        %mi = arith.select %take, %bi, %ai : i64
        fusion.reduce_yield %m, %mi : f32, i64
      }
      gpu.return
    }
    gpu.func @block(%x: f32, %lane: i32, %warp: i32, %at: i32, %n: i32,
                    %multi: i1)
        workgroup(%slots: memref<32xf32, #gpu.address_space<workgroup>>)
        kernel {
      %r = fusion.block_reduce %x : f32 lane %lane warp %warp
          slots(%slots : memref<32xf32, #gpu.address_space<workgroup>>)
          at %at warps %n if %multi : i32
          identity {
        %z = arith.constant 0xFF800000 : f32
        fusion.reduce_yield %z : f32
      } combiner {
      ^bb0(%a: f32, %b: f32):
        %c = arith.maximumf %a, %b : f32
        fusion.reduce_yield %c : f32
      }
      gpu.return
    }
    gpu.func @arrive(%tid: i32, %group: i32, %splits: i32, %tid64: i64,
                     %group64: i64, %splits64: i64, %valid: i1,
                     %counters: memref<?xi32>)
        workgroup(%flag: memref<1xi32, #gpu.address_space<workgroup>>)
        kernel {
      %last = fusion.grid_arrive thread %tid counters(%counters : memref<?xi32>)
          [%group] of %splits
          flag(%flag : memref<1xi32, #gpu.address_space<workgroup>>) : i32
      %last64 = fusion.grid_arrive thread %tid64 if %valid
          counters(%counters : memref<?xi32>)[%group64] of %splits64
          flag(%flag : memref<1xi32, #gpu.address_space<workgroup>>) : i64
      gpu.return
    }
    gpu.func @stage(%v: vector<8xbf16>, %x: f32, %at: i32, %at64: i64) kernel {
      fusion.stage_store %v, %at : vector<8xbf16>, i32
      fusion.stage_store %x, %at64 : f32, i64
      %w = fusion.stage_load %at : i32 -> vector<8xbf16>
      %y = fusion.stage_load %at64 : i64 -> f32
      gpu.return
    }
  }
}
