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
// CHECK: fusion.block_reduce %{{.*}} : f32 lane %{{.*}} warp %{{.*}} slots(%{{.*}} : memref<32xf32, #gpu.address_space<workgroup>>) at %{{.*}} warps %{{.*}} if %{{.*}} width %{{.*}} : i32 : i32 identity {
// CHECK-LABEL: gpu.func @arrive
// CHECK: fusion.grid_arrive thread %{{.*}} counters(%{{.*}} : memref<?xi32>) [%{{.*}}] of %{{.*}} flag(%{{.*}} : memref<1xi32, #gpu.address_space<workgroup>>) : i32
// CHECK: fusion.grid_arrive thread %{{.*}} if %{{.*}} counters(%{{.*}} : memref<?xi32>) [%{{.*}}] of %{{.*}} flag(%{{.*}} : memref<1xi32, #gpu.address_space<workgroup>>) : i64
// CHECK-LABEL: gpu.func @grid
// CHECK: fusion.grid_reduce %{{.*}} : f32 workspaces(%{{.*}} : memref<?xf32>) at %{{.*}} stride %{{.*}} split %{{.*}} of %{{.*}} if %{{.*}} thread %{{.*}} if %{{.*}} counters(%{{.*}} : memref<?xi32>) [%{{.*}}] flag(%{{.*}} : memref<1xi32, #gpu.address_space<workgroup>>) fold from %{{.*}} step %{{.*}} : i32 identity {
// CHECK: } combiner {
// CHECK: } last {
// CHECK-NEXT: ^bb0(%{{.*}}: f32):
// CHECK: fusion.grid_reduce %{{.*}} : vector<4xf32> {{.*}} fold from %{{.*}} step %{{.*}} if %{{.*}} : i32 identity {
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
      %w = fusion.block_reduce %x : f32 lane %lane warp %warp
          slots(%slots : memref<32xf32, #gpu.address_space<workgroup>>)
          at %at warps %n if %multi width %n : i32 : i32
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
    gpu.func @grid(%x: f32, %v: vector<4xf32>, %base: i32, %stride: i32,
                   %split: i32, %splits: i32, %writer: i1, %tid: i32,
                   %valid: i1, %group: i32, %step: i32, %in: i1,
                   %ws: memref<?xf32>, %counters: memref<?xi32>,
                   %out: memref<?xf32>)
        workgroup(%flag: memref<1xi32, #gpu.address_space<workgroup>>)
        kernel {
      fusion.grid_reduce %x : f32 workspaces(%ws : memref<?xf32>)
          at %base stride %stride split %split of %splits if %writer
          thread %tid if %valid counters(%counters : memref<?xi32>) [%group]
          flag(%flag : memref<1xi32, #gpu.address_space<workgroup>>)
          fold from %tid step %step : i32
          identity {
        %z = arith.constant 0.0 : f32
        fusion.reduce_yield %z : f32
      } combiner {
      ^bb0(%a: f32, %b: f32):
        %c = arith.addf %a, %b : f32
        fusion.reduce_yield %c : f32
      } last {
      ^bb0(%total: f32):
        %i = arith.index_cast %group : i32 to index
        memref.store %total, %out[%i] : memref<?xf32>
        fusion.reduce_yield
      }
      fusion.grid_reduce %v : vector<4xf32> workspaces(%ws : memref<?xf32>)
          at %base stride %stride split %split of %splits if %writer
          thread %tid counters(%counters : memref<?xi32>) [%group]
          flag(%flag : memref<1xi32, #gpu.address_space<workgroup>>)
          fold from %tid step %step if %in : i32
          identity {
        %z = arith.constant dense<0xFF800000> : vector<4xf32>
        fusion.reduce_yield %z : vector<4xf32>
      } combiner {
      ^bb0(%a: vector<4xf32>, %b: vector<4xf32>):
        %c = arith.maximumf %a, %b : vector<4xf32>
        fusion.reduce_yield %c : vector<4xf32>
      } last {
      ^bb0(%total: vector<4xf32>):
        %i = arith.index_cast %group : i32 to index
        vector.store %total, %out[%i] : memref<?xf32>, vector<4xf32>
        fusion.reduce_yield
      }
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
