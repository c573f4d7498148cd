// Note [Bulk staged rows]: fusion.stage_bulk_copy round-trips, and
// --fusion-lower-kernel-ops makes it one cp.async.bulk from the source's
// aligned pointer plus index * element bytes to the module's dynamic shared
// memory at the byte offset (as a shared::cluster address), completing on
// the barrier's slot with the op's byte count. A module whose only staged
// op is a bulk copy declares the dynamic shared memory too. Through the
// NVVM lowering the PTX has the sm_90 form, which ptxas takes.
// RUN: fusion-opt %s | fusion-opt | FileCheck %s --check-prefix=ROUND
// RUN: fusion-opt %s --fusion-lower-kernel-ops | FileCheck %s
// RUN: fusion-opt %s --pass-pipeline="builtin.module(fusion-lower-kernel-ops,gpu.module(convert-gpu-to-nvvm,convert-nvvm-to-llvm,reconcile-unrealized-casts),nvvm-attach-target{chip=sm_90a},gpu-module-to-binary{format=isa})" | python3 %fusion_src/utils/gpu-binary-ptx.py > %t.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// RUN: %if ptxas %{ ptxas -arch=sm_90a %t.ptx -o %t.cubin %}

// ROUND-LABEL: gpu.func @bulk
// ROUND: fusion.stage_bulk_copy %{{.*}}[%{{.*}}] to %{{.*}}, %{{.*}} bytes, %{{.*}}[%{{.*}}] : memref<?xbf16>, i32, memref<2xi64, #gpu.address_space<workgroup>>

// CHECK-LABEL: gpu.module @m
// CHECK-NEXT: llvm.mlir.global external @fusion_dynamic_smem() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<0 x i8>
// CHECK-LABEL: gpu.func @bulk
// CHECK-SAME: (%[[X:.*]]: memref<?xbf16>, %[[I:.*]]: index, %[[AT:.*]]: i32, %[[N:.*]]: i32, %[[B:.*]]: index)
// CHECK-SAME: workgroup(%[[BARS:.*]] : memref<2xi64, #gpu.address_space<workgroup>>)
// CHECK: %[[BASE:.*]] = memref.extract_aligned_pointer_as_index %[[X]]
// CHECK: %[[TWO:.*]] = arith.constant 2 : index
// CHECK: %[[OFF:.*]] = arith.muli %[[I]], %[[TWO]]
// CHECK: %[[ADDR:.*]] = arith.addi %[[BASE]], %[[OFF]]
// CHECK: %[[A64:.*]] = arith.index_cast %[[ADDR]] : index to i64
// CHECK: %[[SRC:.*]] = llvm.inttoptr %[[A64]] : i64 to !llvm.ptr<1>
// CHECK: %[[SMEM:.*]] = llvm.mlir.addressof @fusion_dynamic_smem : !llvm.ptr<3>
// CHECK: %[[AT_SMEM:.*]] = llvm.getelementptr %[[SMEM]][%[[AT]]]
// CHECK: %[[DST:.*]] = llvm.addrspacecast %[[AT_SMEM]] : !llvm.ptr<3> to !llvm.ptr<7>
// CHECK: %[[BAR:.*]] = llvm.getelementptr %{{.*}}[%{{.*}}] : (!llvm.ptr<3>, i64) -> !llvm.ptr<3>, i64
// CHECK: nvvm.cp.async.bulk.shared.cluster.global %[[DST]], %[[SRC]], %[[BAR]], %[[N]] : !llvm.ptr<7>, <1>
// CHECK-NOT: fusion.stage_bulk_copy

// PTX: .extern .shared .align 16 .b8 fusion_dynamic_smem[];
// PTX: cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes

module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @bulk(%x: memref<?xbf16>, %i: index, %at: i32, %n: i32, %b: index) workgroup(%bars : memref<2xi64, #gpu.address_space<workgroup>>) kernel {
      fusion.stage_bulk_copy %x[%i] to %at, %n bytes, %bars[%b] : memref<?xbf16>, i32, memref<2xi64, #gpu.address_space<workgroup>>
      gpu.return
    }
  }
}
