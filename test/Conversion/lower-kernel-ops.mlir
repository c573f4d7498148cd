// --fusion-lower-kernel-ops alone: a warp reduction becomes five xor
// shuffles (distances 16 to 1, width 32), each followed by the combiner
// inlined on (own state, shuffled state); a block reduction adds, under its
// multi_warp condition, the store of lane 0 to slot at + warp, a barrier, the
// fold of the slots from the identity state and a second barrier; a grid
// arrival is a fence, a barrier, thread 0 (and `active`) adding 1 to its
// group's counter and recording in the shared flag whether it saw the last
// count, a barrier, and every thread reading the flag; a grid reduction
// is the writers' stores of the partial at base + split * stride (a
// vector as consecutive elements), the arrival, and in the last block (and
// where `active` holds) a fence, thread 0 resetting the counter, the fold
// of partials first, first + step, ... (where `in_range` is given, a load
// only where it holds, else the identity) and the last region on the fold;
// a staged store or
// load is a volatile access of the module's dynamic shared memory (an
// external shared array, declared once per module that stages, aligned to
// the value's size) at the byte offset. No kernel-level op is left.
// RUN: fusion-opt %s --fusion-lower-kernel-ops | FileCheck %s
// RUN: fusion-opt %s --fusion-lower-kernel-ops | FileCheck %s --check-prefix=GONE

// GONE-NOT: fusion.

// CHECK-LABEL: gpu.func @warp
// CHECK-SAME: (%[[X:.*]]: f32, %[[V:.*]]: f32, %[[I:.*]]: i64)
// CHECK: %[[D16:.*]] = arith.constant 16 : i32
// CHECK: %[[W:.*]] = arith.constant 32 : i32
// CHECK: %[[S0:.*]], %{{.*}} = gpu.shuffle  xor %[[X]], %[[D16]], %[[W]] : f32
// CHECK-NEXT: %[[A0:.*]] = arith.addf %[[X]], %[[S0]] : f32
// CHECK: arith.constant 8 : i32
// CHECK: %[[S1:.*]], %{{.*}} = gpu.shuffle  xor %[[A0]]
// CHECK-NEXT: %[[A1:.*]] = arith.addf %[[A0]], %[[S1]] : f32
// CHECK: arith.constant 4 : i32
// CHECK: gpu.shuffle  xor %[[A1]]
// CHECK: arith.constant 2 : i32
// CHECK: gpu.shuffle  xor
// CHECK: arith.constant 1 : i32
// CHECK: gpu.shuffle  xor
// CHECK-NEXT: arith.addf
// A two-component state: both components shuffled, then one combiner.
// CHECK: %[[SV:.*]], %{{.*}} = gpu.shuffle  xor %[[V]], %{{.*}} : f32
// CHECK: %[[SI:.*]], %{{.*}} = gpu.shuffle  xor %[[I]], %{{.*}} : i64
// CHECK-NEXT: %[[T:.*]] = arith.cmpf ogt, %[[SV]], %[[V]] : f32
// CHECK-NEXT: arith.select %[[T]], %[[SV]], %[[V]] : f32
// CHECK-NEXT: arith.select %[[T]], %[[SI]], %[[I]] : i64
// CHECK-COUNT-8: gpu.shuffle  xor
// CHECK-NOT: gpu.shuffle
// CHECK: gpu.return

// CHECK-LABEL: gpu.func @block
// CHECK-SAME: (%[[BX:.*]]: f32, %[[LANE:.*]]: i32, %[[WARP:.*]]: i32, %[[AT:.*]]: i32, %[[N:.*]]: i32, %[[MULTI:.*]]: i1)
// CHECK-SAME: workgroup(%[[SLOTS:.*]] : memref<32xf32, #gpu.address_space<workgroup>>)
// CHECK-COUNT-4: gpu.shuffle  xor
// CHECK: gpu.shuffle  xor
// CHECK-NEXT: %[[WS:.*]] = arith.maximumf
// CHECK: %[[R:.*]] = scf.if %[[MULTI]] -> (f32) {
// CHECK: %[[Z:.*]] = arith.constant 0 : i32
// CHECK: %[[L0:.*]] = arith.cmpi eq, %[[LANE]], %[[Z]] : i32
// CHECK: scf.if %[[L0]] {
// CHECK: %[[SLOT:.*]] = arith.addi %[[AT]], %[[WARP]] : i32
// CHECK: %[[SLOTI:.*]] = arith.index_cast %[[SLOT]] : i32 to index
// CHECK: memref.store %[[WS]], %[[SLOTS]][%[[SLOTI]]]
// CHECK: gpu.barrier
// Lane l takes slot at + l, the identity from lane `warps` on (its load
// stays in the group's slots), and the butterfly folds the 32 lanes.
// CHECK: %[[IN:.*]] = arith.cmpi ult, %[[LANE]], %[[N]] : i32
// CHECK: %[[OFF:.*]] = arith.select %[[IN]], %[[LANE]], %{{.*}} : i32
// CHECK: %[[SLOT2:.*]] = arith.addi %[[AT]], %[[OFF]] : i32
// CHECK: %[[SLOT2I:.*]] = arith.index_cast %[[SLOT2]] : i32 to index
// CHECK: %[[NEG:.*]] = arith.constant 0xFF800000 : f32
// CHECK: %[[LD:.*]] = memref.load %[[SLOTS]][%[[SLOT2I]]]
// CHECK: %[[TAKEN:.*]] = arith.select %[[IN]], %[[LD]], %[[NEG]] : f32
// CHECK: %[[S16:.*]], %{{.*}} = gpu.shuffle  xor %[[TAKEN]], %{{.*}} : f32
// CHECK-NEXT: %[[M16:.*]] = arith.maximumf %[[TAKEN]], %[[S16]] : f32
// CHECK-COUNT-3: gpu.shuffle  xor
// CHECK: gpu.shuffle  xor
// CHECK-NEXT: %[[F:.*]] = arith.maximumf
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: scf.yield %[[F]] : f32
// CHECK: } else {
// CHECK: scf.yield %[[WS]] : f32
// CHECK: gpu.return
// With a width (Note [Short rows], Note [Narrow butterfly]): one
// straight-line butterfly, each step's result taken only where its distance
// is below the width (a select, no branch); groups of 32 lanes or more take
// every step.
// CHECK-LABEL: gpu.func @narrow
// CHECK-SAME: (%[[NX:.*]]: f32, %{{.*}}: i32, %{{.*}}: i32, %{{.*}}: i32, %{{.*}}: i32, %{{.*}}: i1, %[[W:.*]]: i32)
// CHECK-NOT: scf.if
// CHECK: %[[S16:.*]], %{{.*}} = gpu.shuffle  xor %[[NX]], %{{.*}}, %{{.*}} : f32
// CHECK-NEXT: %[[C16:.*]] = arith.maximumf %[[NX]], %[[S16]] : f32
// CHECK-NEXT: %[[D16:.*]] = arith.constant 16 : i32
// CHECK-NEXT: %[[T16:.*]] = arith.cmpi ult, %[[D16]], %[[W]] : i32
// CHECK-NEXT: %[[X16:.*]] = arith.select %[[T16]], %[[C16]], %[[NX]] : f32
// CHECK: gpu.shuffle  xor %[[X16]]
// CHECK: arith.constant 8 : i32
// CHECK-NEXT: arith.cmpi ult, %{{.*}}, %[[W]] : i32
// CHECK-NEXT: arith.select
// CHECK-COUNT-3: arith.cmpi ult, %{{.*}}, %[[W]] : i32
// CHECK-NOT: scf.if
// CHECK: scf.if %{{.*}} -> (f32) {
// CHECK: gpu.barrier
// CHECK: arith.cmpi ult, %{{.*}}, %{{.*}} : i32
// CHECK-NOT: arith.cmpi ult
// CHECK: gpu.return

// CHECK-LABEL: gpu.func @arrive
// CHECK-SAME: (%[[T:.*]]: i32, %[[G:.*]]: i32, %[[S:.*]]: i32, %[[T64:.*]]: i64, %[[G64:.*]]: i64, %[[S64:.*]]: i64, %[[ACT:.*]]: i1, %[[CNT:.*]]: memref<?xi32>)
// CHECK-SAME: workgroup(%[[FLAG:.*]] : memref<1xi32, #gpu.address_space<workgroup>>)
// CHECK: llvm.inline_asm has_side_effects "fence.acq_rel.gpu;"
// CHECK-NEXT: gpu.barrier
// CHECK: %[[T0:.*]] = arith.cmpi eq, %[[T]], %{{.*}} : i32
// CHECK: scf.if %[[T0]] {
// CHECK: %[[ONE:.*]] = arith.constant 1 : i32
// CHECK: %[[GI:.*]] = arith.index_cast %[[G]] : i32 to index
// CHECK: %[[OLD:.*]] = memref.atomic_rmw addi %[[ONE]], %[[CNT]][%[[GI]]]
// CHECK: %[[LASTN:.*]] = arith.subi %[[S]], %[[ONE]] : i32
// CHECK: %[[ISLAST:.*]] = arith.cmpi eq, %[[OLD]], %[[LASTN]] : i32
// CHECK: %[[W:.*]] = arith.extui %[[ISLAST]] : i1 to i32
// CHECK: memref.store %[[W]], %[[FLAG]]
// CHECK: gpu.barrier
// CHECK: %[[F:.*]] = memref.load %[[FLAG]]
// CHECK: arith.cmpi ne, %[[F]], %{{.*}} : i32
// CHECK: gpu.barrier
// CHECK: %[[T064:.*]] = arith.cmpi eq, %[[T64]], %{{.*}} : i64
// CHECK: %[[C:.*]] = arith.andi %[[ACT]], %[[T064]] : i1
// CHECK: scf.if %[[C]] {
// CHECK: arith.trunci %[[S64]] : i64 to i32

// CHECK-LABEL: gpu.func @grid
// CHECK-SAME: (%[[X:[^:]*]]: f32, %[[V:[^:]*]]: vector<4xf32>, %[[BASE:[^:]*]]: i32, %[[STRIDE:[^:]*]]: i32, %[[SPLIT:[^:]*]]: i32, %[[SPLITS:[^:]*]]: i32, %[[WRITER:[^:]*]]: i1, %[[TID:[^:]*]]: i32, %[[VALID:[^:]*]]: i1, %[[GROUP:[^:]*]]: i32, %[[STEP:[^:]*]]: i32, %[[IN:[^:]*]]: i1, %[[WS:[^:]*]]: memref<?xf32>, %[[CNT:[^:]*]]: memref<?xi32>, %[[OUT:[^:]*]]: memref<?xf32>)
// CHECK: scf.if %[[WRITER]] {
// CHECK-NEXT: %[[M:.*]] = arith.muli %[[SPLIT]], %[[STRIDE]] : i32
// CHECK-NEXT: %[[A:.*]] = arith.addi %[[BASE]], %[[M]] : i32
// CHECK-NEXT: %[[AI:.*]] = arith.index_cast %[[A]] : i32 to index
// CHECK-NEXT: memref.store %[[X]], %[[WS]][%[[AI]]] : memref<?xf32>
// CHECK: llvm.inline_asm has_side_effects "fence.acq_rel.gpu;"
// CHECK: memref.atomic_rmw addi
// CHECK: %[[ARR:.*]] = arith.cmpi ne
// CHECK-NEXT: %[[LAST:.*]] = arith.andi %[[VALID]], %[[ARR]] : i1
// CHECK-NEXT: scf.if %[[LAST]] {
// CHECK-NEXT: llvm.inline_asm has_side_effects "fence.acq_rel.gpu;"
// CHECK: %[[T0:.*]] = arith.cmpi eq, %[[TID]], %{{.*}} : i32
// CHECK-NEXT: scf.if %[[T0]] {
// CHECK: memref.store %{{.*}}, %[[CNT]][%{{.*}}] : memref<?xi32>
// CHECK: %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: %[[FOLD:.*]] = scf.for %[[I:.*]] = %[[TID]] to %[[SPLITS]] step %[[STEP]] iter_args(%[[ACC:.*]] = %[[Z]]) -> (f32)  : i32 {
// CHECK-NEXT: arith.muli %[[I]], %[[STRIDE]] : i32
// CHECK: %[[P:.*]] = memref.load %[[WS]]
// CHECK-NEXT: %[[S:.*]] = arith.addf %[[ACC]], %[[P]] : f32
// CHECK-NEXT: scf.yield %[[S]] : f32
// CHECK: memref.store %[[FOLD]], %[[OUT]]
// The vector state, with in_range and without active.
// CHECK: scf.if %[[WRITER]] {
// CHECK: vector.store %[[V]], %[[WS]][%{{.*}}] : memref<?xf32>, vector<4xf32>
// CHECK: %[[ARR2:.*]] = arith.cmpi ne
// CHECK-NEXT: scf.if %[[ARR2]] {
// CHECK: scf.for
// CHECK: %[[PV:.*]] = scf.if %[[IN]] -> (vector<4xf32>) {
// CHECK-NEXT: %[[LV:.*]] = vector.load %[[WS]][%{{.*}}] : memref<?xf32>, vector<4xf32>
// CHECK-NEXT: scf.yield %[[LV]] : vector<4xf32>
// CHECK-NEXT: } else {
// CHECK-NEXT: %[[NV:.*]] = arith.constant dense<0xFF800000> : vector<4xf32>
// CHECK-NEXT: scf.yield %[[NV]] : vector<4xf32>
// CHECK: arith.maximumf %{{.*}}, %[[PV]] : vector<4xf32>
// CHECK: vector.store
// CHECK: gpu.return
// CHECK-LABEL: gpu.module @staging
// CHECK-NEXT: llvm.mlir.global external @fusion_dynamic_smem() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<0 x i8>
// CHECK-NOT: llvm.mlir.global
// CHECK-LABEL: gpu.func @stage
// CHECK-SAME: (%[[V:.*]]: vector<8xbf16>, %[[X:.*]]: f32, %[[AT:.*]]: i32, %[[AT64:.*]]: i64)
// CHECK: %[[B0:.*]] = llvm.mlir.addressof @fusion_dynamic_smem : !llvm.ptr<3>
// CHECK-NEXT: %[[P0:.*]] = llvm.getelementptr %[[B0]][%[[AT]]] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
// CHECK-NEXT: llvm.store volatile %[[V]], %[[P0]] {alignment = 16 : i64} : vector<8xbf16>, !llvm.ptr<3>
// CHECK: llvm.getelementptr %{{.*}}[%[[AT64]]] : (!llvm.ptr<3>, i64) -> !llvm.ptr<3>, i8
// CHECK-NEXT: llvm.store volatile %[[X]], %{{.*}} {alignment = 4 : i64} : f32, !llvm.ptr<3>
// CHECK: llvm.getelementptr %{{.*}}[%[[AT]]]
// CHECK-NEXT: llvm.load volatile %{{.*}} {alignment = 16 : i64} : !llvm.ptr<3> -> vector<8xbf16>
// CHECK: llvm.getelementptr %{{.*}}[%[[AT64]]]
// CHECK-NEXT: llvm.load volatile %{{.*}} {alignment = 2 : i64} : !llvm.ptr<3> -> f16
// CHECK-LABEL: gpu.module @no_staging
// CHECK-NOT: fusion_dynamic_smem
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
    gpu.func @narrow(%x: f32, %lane: i32, %warp: i32, %at: i32, %n: i32,
                     %multi: i1, %width: i32)
        workgroup(%slots: memref<32xf32, #gpu.address_space<workgroup>>)
        kernel {
      %r = fusion.block_reduce %x : f32 lane %lane warp %warp
          slots(%slots : memref<32xf32, #gpu.address_space<workgroup>>)
          at %at warps %n if %multi width %width : i32 : i32
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
  }
}
module attributes {gpu.container_module} {
  gpu.module @grid_reduction {
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
  }
}
module attributes {gpu.container_module} {
  gpu.module @staging {
    gpu.func @stage(%v: vector<8xbf16>, %x: f32, %at: i32, %at64: i64) kernel {
      fusion.stage_store %v, %at : vector<8xbf16>, i32
      fusion.stage_store %x, %at64 : f32, i64
      %w = fusion.stage_load %at : i32 -> vector<8xbf16>
      %y = fusion.stage_load %at64 : i64 -> f16
      gpu.return
    }
    gpu.func @stage_again(%x: f32, %at: i32) kernel {
      fusion.stage_store %x, %at : f32, i32
      gpu.return
    }
  }
  gpu.module @no_staging {
    gpu.func @plain() kernel {
      gpu.return
    }
  }
}
