// Bulk staged rows (Note [Bulk staged rows]): --inner-stage=3 marks the
// inner reduction schedule `stage_row`, `async_stage` and `bulk_stage`. On
// sm_90 and later the vectorized persistent variants take the next row into
// the second buffer in bulk copies: thread 0 initializes two mbarriers (one
// per buffer) for one arrival per row of the block, fences and syncs the
// block; the first thread of each row arrives on the buffer's barrier with
// the bytes to come and issues one fusion.stage_bulk_copy per item (each
// guarded by its byte count being above 0), before the loop into buffer 0
// and in each iteration, after a block barrier and a proxy fence, into the
// other buffer. Every thread then waits on the current buffer's barrier and
// reads the row from it (fusion.stage_load): no cp.async, no per-thread
// copies, no wait for copies after the loop. Two staged inputs take two
// copies per item. The ragged variant keeps its register prefetch; on sm_80
// (no bulk copies) the schedule lowers as --inner-stage=2 does. The PTX
// passes ptxas for sm_90a. (bulk_stage without async_stage is refused:
// test/Reliability/schedule-ranges.mlir.)
// RUN: fusion-opt %s --fusion-decompose --fusion-segment --fusion-schedule="inner-stage=3" | FileCheck %s --check-prefix=SCHED
// RUN: fusion-opt %s --fusion-decompose --fusion-segment --fusion-schedule="inner-stage=3" --fusion-lower-kernels="chip=sm_90a" | FileCheck %s
// RUN: fusion-opt %s --fusion-decompose --fusion-segment --fusion-schedule="inner-stage=3" --fusion-lower-kernels="chip=sm_80" | FileCheck %s --check-prefix=SM80
// RUN: fusion-translate %s --fusion=softmax --inner-stage=3 --fusion-to-ptx --no-cubin -o %t.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// RUN: %if ptxas %{ ptxas -arch=sm_90a %t.ptx -o %t.cubin %}
// RUN: fusion-translate %s --fusion=add_rmsnorm --inner-stage=3 --fusion-to-ptx --no-cubin -o %t2.ptx
// RUN: %if ptxas %{ ptxas -arch=sm_90a %t2.ptx -o %t2.cubin %}
// RUN: not fusion-opt %s --fusion-decompose --fusion-segment --fusion-schedule="inner-stage=4" 2>&1 | FileCheck %s --check-prefix=RANGE

// SCHED: fusion.fusion @softmax
// SCHED: #fusion.inner_reduction<vector = 8, items = 4, block = 256, max_grid = 2112, index64 = false, fast_math = true, stage_row = true, cluster = 8, async_stage = true, long_cluster = 8, long_stage = true, bulk_stage = true, row_grid = 16896, long_async = true>

// CHECK-LABEL: fusion.fusion @softmax
// CHECK: %[[SMEM:.*]] = arith.muli %[[BLOCK:.*]], %c128{{.*}} : index
// CHECK: launch @softmax_kernels::@softmax_k0_pv8_i32 if(%{{.*}}) grid(%{{.*}}) block(%[[BLOCK]], %{{.*}}) smem(%[[SMEM]])
// CHECK-LABEL: gpu.func @softmax_k0_pv8_i32
// CHECK-SAME: workgroup({{.*}}%[[BARS:.*]] : memref<2xi64, #gpu.address_space<workgroup>>)
// CHECK-SAME: fusion.stage_bytes_per_thread = 128
// CHECK: scf.if
// CHECK-NEXT: %[[B0:.*]] = arith.constant 0 : index
// CHECK-NEXT: fusion.mbarrier_init %[[BARS]][%[[B0]]], %[[COUNT:.*]] : memref<2xi64
// CHECK-NEXT: %[[B1:.*]] = arith.constant 1 : index
// CHECK-NEXT: fusion.mbarrier_init %[[BARS]][%[[B1]]], %[[COUNT]] : memref<2xi64
// CHECK: fusion.fence_async_shared
// CHECK-NEXT: gpu.barrier
// CHECK: scf.if
// CHECK: fusion.mbarrier_arrive_expect_tx %[[BARS]]
// CHECK-COUNT-4: fusion.stage_bulk_copy %arg0[%{{.*}}] to %{{.*}}, %{{.*}} bytes, %[[BARS]][%{{.*}}] : memref<?xbf16>, i32, memref<2xi64, #gpu.address_space<workgroup>>
// CHECK: %[[PARITY:.*]] = scf.for %{{.*}} iter_args(%[[P:.*]] = %{{.*}}) -> (i32)
// CHECK: gpu.barrier
// CHECK-NEXT: fusion.fence_async_shared
// CHECK: fusion.mbarrier_arrive_expect_tx %[[BARS]]
// CHECK-COUNT-4: fusion.stage_bulk_copy %arg0
// CHECK: fusion.mbarrier_wait %[[BARS]][%{{.*}}], %{{.*}} : memref<2xi64
// CHECK-NOT: fusion.stage_copy
// CHECK-NOT: fusion.stage_store
// CHECK-COUNT-4: fusion.stage_load %{{.*}} : i32 -> vector<8xbf16>
// CHECK: fusion.block_reduce
// CHECK-COUNT-4: fusion.stage_load %{{.*}} : i32 -> vector<8xbf16>
// CHECK: %[[NEXT:.*]] = arith.subi %{{.*}}, %[[P]] : i32
// CHECK-NEXT: scf.yield %[[NEXT]] : i32
// CHECK-NEXT: }
// CHECK-NEXT: gpu.return
// CHECK-LABEL: gpu.func @softmax_k0_plv8_i32
// CHECK-COUNT-8: fusion.stage_bulk_copy
// CHECK: scf.for
// CHECK-COUNT-8: fusion.stage_bulk_copy
// CHECK: gpu.return
// CHECK-LABEL: gpu.func @softmax_k0_prv8_i32
// CHECK-NOT: fusion.stage_bulk_copy
// CHECK-NOT: fusion.mbarrier
// CHECK: fusion.stage_store
// CHECK: gpu.return
// Two staged inputs: a copy of each per item.
// CHECK-LABEL: gpu.func @add_rmsnorm_k0_pv8_i32
// CHECK-SAME: fusion.stage_bytes_per_thread = 256
// CHECK-COUNT-8: fusion.stage_bulk_copy
// CHECK: scf.for
// CHECK-COUNT-8: fusion.stage_bulk_copy
// CHECK: gpu.return

// SM80-LABEL: gpu.func @softmax_k0_pv8_i32
// SM80-NOT: fusion.mbarrier
// SM80-NOT: fusion.stage_bulk_copy
// SM80: fusion.stage_copy
// SM80: fusion.stage_wait {pending = 1 : i64}
// SM80: gpu.return

// PTX: .extern .shared .align 16 .b8 fusion_dynamic_smem[];
// PTX-LABEL: .entry softmax_k0_pv8_i32
// PTX: mbarrier.init.shared.b64
// PTX: fence.proxy.async.shared::cta;
// PTX: mbarrier.arrive.expect_tx.shared.b64
// PTX: cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes
// PTX: mbarrier.try_wait.parity.shared.b64
// PTX-NOT: cp.async.cg
// PTX-LABEL: .entry softmax_k0_prv8_i32
// PTX-NOT: cp.async.bulk

// RANGE: error: the option inner-stage must be -1 (heuristic), 0 (registers), 1 (shared memory), 2 (shared memory, next row by cp.async) or 3 (shared memory, next row by bulk copies), got 4

fusion.fusion @softmax(%x: tensor<?x?xbf16>) -> tensor<?x?xbf16> {
  %0 = fusion.softmax %x dim = 1 : tensor<?x?xbf16>
  fusion.return %0 : tensor<?x?xbf16>
}

fusion.fusion @add_rmsnorm(%x: tensor<?x?xbf16>, %r: tensor<?x?xbf16>, %w: tensor<?xbf16>) -> tensor<?x?xbf16> {
  %s = fusion.add %x, %r : tensor<?x?xbf16>
  %0 = fusion.rms_norm %s weight(%w : tensor<?xbf16>) axis = 1 eps = 1.0e-6 : tensor<?x?xbf16>
  fusion.return %0 : tensor<?x?xbf16>
}
