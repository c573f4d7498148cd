// Note [Async staged rows]: fusion.stage_copy / stage_commit / stage_wait
// round-trip, and --fusion-lower-kernel-ops makes each copy one cp.async
// per piece of at most 16 bytes (16-byte pieces bypass L1: cache = cg;
// smaller ones cache = ca) from the source's aligned pointer plus
// index * element bytes to the module's dynamic shared memory at the byte
// offset, with a source size of 0 (zero fill, no read) where `valid` is
// false; a commit is cp.async.commit.group and a wait cp.async.wait.group.
// A module whose only staged op is a copy declares the dynamic shared
// memory too.
// RUN: fusion-opt %s | fusion-opt | FileCheck %s --check-prefix=ROUND
// RUN: fusion-opt %s --fusion-lower-kernel-ops | FileCheck %s

// ROUND-LABEL: gpu.func @copies
// ROUND: fusion.stage_copy %{{.*}}[%{{.*}}] to %{{.*}} if %{{.*}} {bytes = 16 : i64} : memref<?xbf16>, i32
// ROUND: fusion.stage_copy %{{.*}}[%{{.*}}] to %{{.*}} if %{{.*}} {bytes = 32 : i64} : memref<?xf32>, i32
// ROUND: fusion.stage_copy %{{.*}}[%{{.*}}] to %{{.*}} if %{{.*}} {bytes = 8 : i64} : memref<?xf16>, i64
// ROUND: fusion.stage_commit
// ROUND: fusion.stage_wait {pending = 1 : i64}

// CHECK-LABEL: gpu.module @m
// CHECK-NEXT: llvm.mlir.global external @fusion_dynamic_smem() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<0 x i8>
// CHECK-LABEL: gpu.func @copies
// CHECK-SAME: (%[[X:.*]]: memref<?xbf16>, %[[Y:.*]]: memref<?xf32>, %[[Z:.*]]: memref<?xf16>, %[[I:.*]]: index, %[[AT:.*]]: i32, %[[AT64:.*]]: i64, %[[OK:.*]]: i1)
// CHECK: %[[BASE:.*]] = memref.extract_aligned_pointer_as_index %[[X]]
// CHECK: %[[TWO:.*]] = arith.constant 2 : index
// CHECK: %[[OFF:.*]] = arith.muli %[[I]], %[[TWO]]
// CHECK: %[[ADDR:.*]] = arith.addi %[[BASE]], %[[OFF]]
// CHECK: %[[A64:.*]] = arith.index_cast %[[ADDR]] : index to i64
// CHECK: %[[SRC:.*]] = llvm.inttoptr %[[A64]] : i64 to !llvm.ptr<1>
// CHECK: %[[SMEM:.*]] = llvm.mlir.addressof @fusion_dynamic_smem : !llvm.ptr<3>
// CHECK: %[[DST:.*]] = llvm.getelementptr %[[SMEM]][%[[AT]]]
// CHECK: %[[FULL:.*]] = llvm.mlir.constant(16 : i32) : i32
// CHECK: %[[NONE:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK: %[[SIZE:.*]] = arith.select %[[OK]], %[[FULL]], %[[NONE]] : i32
// CHECK: nvvm.cp.async.shared.global %[[DST]], %[[SRC]], 16, cache = cg, %[[SIZE]]
// CHECK-NOT: nvvm.cp.async.shared.global
// CHECK: arith.constant 4 : index
// Two 16-byte pieces, the second 16 bytes further on both sides.
// CHECK: nvvm.cp.async.shared.global %[[D0:[^,]*]], %[[S0:[^,]*]], 16, cache = cg
// CHECK: %[[D1:.*]] = llvm.getelementptr %[[D0]][16]
// CHECK: %[[S1:.*]] = llvm.getelementptr %[[S0]][16]
// CHECK: nvvm.cp.async.shared.global %[[D1]], %[[S1]], 16, cache = cg
// CHECK: llvm.getelementptr %{{.*}}[%[[AT64]]]
// CHECK: llvm.mlir.constant(8 : i32) : i32
// CHECK: nvvm.cp.async.shared.global %{{.*}}, %{{.*}}, 8, cache = ca
// CHECK: nvvm.cp.async.commit.group
// CHECK: nvvm.cp.async.wait.group 1
// CHECK-NOT: fusion.

module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @copies(%x: memref<?xbf16>, %y: memref<?xf32>, %z: memref<?xf16>, %i: index, %at: i32, %at64: i64, %ok: i1) kernel {
      fusion.stage_copy %x[%i] to %at if %ok {bytes = 16} : memref<?xbf16>, i32
      fusion.stage_copy %y[%i] to %at if %ok {bytes = 32} : memref<?xf32>, i32
      fusion.stage_copy %z[%i] to %at64 if %ok {bytes = 8} : memref<?xf16>, i64
      fusion.stage_commit
      fusion.stage_wait {pending = 1}
      gpu.return
    }
  }
}
