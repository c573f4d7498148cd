// Async staged rows (Note [Async staged rows]): --inner-stage=2 marks the
// inner reduction schedule `stage_row` and `async_stage`. On a chip with
// cp.async (sm_80 and later) the vectorized persistent variant copies this
// block's first row into buffer 0 of the dynamic shared memory before the
// row loop (fusion.stage_copy per vector, then fusion.stage_commit); each
// iteration copies the next row, if there is one (Note [Prefetch past the
// end]), into the other buffer, commits, waits for
// all but that group, and reads the current row from its buffer
// (fusion.stage_load) in every pass: no row travels in registers, so the
// loop carries only the buffer's parity. The launch asks for two buffers
// (128 bytes per thread for 4 vectors of 8 bf16); the last copy is waited
// for after the loop. Two buffers may take 192 KB on sm_90, 96 KB before:
// two staged inputs (2 x 128 bytes x 512 threads) copy on sm_90a and keep
// the register prefetch and one buffer on sm_80; the ragged variant (rows
// of any length) keeps it too, and a chip without cp.async (or none
// named) copies nothing. (async_stage
// without stage_row is refused: test/Reliability/schedule-ranges.mlir.)
// RUN: fusion-opt %s --fusion-decompose --fusion-segment --fusion-schedule="inner-stage=2" | FileCheck %s --check-prefix=SCHED
// RUN: fusion-opt %s --fusion-decompose --fusion-segment --fusion-schedule="inner-stage=2" --fusion-lower-kernels="chip=sm_90a" | FileCheck %s
// RUN: fusion-opt %s --fusion-decompose --fusion-segment --fusion-schedule="inner-stage=2" --fusion-lower-kernels="chip=sm_80" | FileCheck %s --check-prefix=SM80
// RUN: fusion-opt %s --fusion-decompose --fusion-segment --fusion-schedule="inner-stage=2" --fusion-lower-kernels="chip=sm_75" | FileCheck %s --check-prefix=OLD
// RUN: fusion-translate %s --fusion=softmax --inner-stage=2 --fusion-to-ptx --no-cubin -o %t.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// RUN: %if ptxas %{ ptxas -arch=sm_90a %t.ptx -o %t.cubin %}
// RUN: fusion-translate %s --fusion=softmax --inner-stage=2 --chip=sm_80 --fusion-to-ptx --no-cubin -o %t80.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t80.ptx
// RUN: %if ptxas %{ ptxas -arch=sm_80 %t80.ptx -o %t80.cubin %}

// SCHED: fusion.fusion @softmax
// SCHED: #fusion.inner_reduction<vector = 8, items = 4, block = 256, max_grid = 2112, index64 = false, fast_math = true, stage_row = true, cluster = 8, async_stage = true, long_cluster = 8, long_stage = true, row_grid = 16896, long_async = true>

// CHECK-LABEL: fusion.fusion @softmax
// CHECK: %[[SMEM:.*]] = arith.muli %[[BLOCK:.*]], %c128{{.*}} : index
// CHECK: launch @softmax_kernels::@softmax_k0_pv8_i32 if(%{{.*}}) grid(%{{.*}}) block(%[[BLOCK]], %{{.*}}) smem(%[[SMEM]])
// CHECK-LABEL: gpu.func @softmax_k0_pv8_i32
// CHECK-SAME: fusion.stage_bytes_per_thread = 128
// CHECK-COUNT-4: fusion.stage_copy %arg0[%{{.*}}] to %{{.*}} if %{{.*}} {bytes = 16 : i64} : memref<?xbf16>, i32
// CHECK-NEXT: fusion.stage_commit
// CHECK: %[[PARITY:.*]] = scf.for %{{.*}} iter_args(%[[P:.*]] = %{{.*}}) -> (i32)
// CHECK: %[[HASNEXT:.*]] = arith.cmpi ult, %{{.*}}, %[[ROWS:arg[0-9]+]] : i32
// CHECK-NEXT: scf.if %[[HASNEXT]] {
// CHECK-COUNT-4: fusion.stage_copy %arg0
// CHECK-NEXT: {{^ *[}]$}}
// CHECK-NEXT: fusion.stage_commit
// CHECK-NEXT: fusion.stage_wait {pending = 1 : i64}
// CHECK-NOT: fusion.stage_store
// CHECK-COUNT-4: fusion.stage_load %{{.*}} : i32 -> vector<8xbf16>
// CHECK: fusion.block_reduce
// CHECK-COUNT-4: fusion.stage_load %{{.*}} : i32 -> vector<8xbf16>
// CHECK: %[[NEXT:.*]] = arith.subi %{{.*}}, %[[P]] : i32
// CHECK-NEXT: scf.yield %[[NEXT]] : i32
// CHECK: fusion.stage_wait {pending = 0 : i64}
// CHECK-NEXT: gpu.return
// CHECK-LABEL: gpu.func @softmax_k0_prv8_i32
// CHECK-NOT: fusion.stage_copy
// CHECK: fusion.stage_store
// CHECK: gpu.return
// CHECK-LABEL: gpu.func @softmax_k0_ps_i32
// CHECK-NOT: fusion.stage_
// CHECK: gpu.return
// Two staged inputs: 2 x 128 bytes per thread, 128 KB at 512 threads.
// CHECK-LABEL: gpu.func @add_rmsnorm_k0_pv8_i32
// CHECK-SAME: fusion.stage_bytes_per_thread = 256
// CHECK-COUNT-8: fusion.stage_copy
// CHECK-NEXT: fusion.stage_commit
// CHECK: gpu.return

// On sm_80 that passes 96 KB: one buffer, the row loaded a row ahead in
// registers; softmax still copies.
// SM80-LABEL: gpu.func @softmax_k0_pv8_i32
// SM80-SAME: fusion.stage_bytes_per_thread = 128
// SM80: fusion.stage_copy
// SM80-LABEL: gpu.func @add_rmsnorm_k0_pv8_i32
// SM80-SAME: fusion.stage_bytes_per_thread = 128
// SM80-NOT: fusion.stage_copy
// SM80: scf.for {{.*}} -> (vector<8xbf16>, vector<8xbf16>, vector<8xbf16>, vector<8xbf16>, vector<8xbf16>, vector<8xbf16>, vector<8xbf16>, vector<8xbf16>)
// SM80-COUNT-8: fusion.stage_store
// SM80: gpu.return

// OLD-LABEL: gpu.func @softmax_k0_pv8_i32
// OLD-SAME: fusion.stage_bytes_per_thread = 64
// OLD-NOT: fusion.stage_copy
// OLD: fusion.stage_store
// OLD: gpu.return

// PTX: .extern .shared .align 16 .b8 fusion_dynamic_smem[];
// PTX-LABEL: .entry softmax_k0_pv8_i32
// PTX-COUNT-4: cp.async.cg.shared.global [%{{.*}}], [%{{.*}}], 16, %{{.*}};
// PTX-NEXT: cp.async.commit_group;
// PTX-COUNT-4: cp.async.cg.shared.global
// PTX: cp.async.commit_group;
// PTX-NEXT: cp.async.wait_group 1;
// PTX: cp.async.wait_group 0;
// PTX-LABEL: .entry softmax_k0_prv8_i32
// PTX-NOT: cp.async

fusion.fusion @softmax(%x: tensor<?x?xbf16>) -> tensor<?x?xbf16> {
  %0 = fusion.softmax %x dim = 1 : tensor<?x?xbf16>
  fusion.return %0 : tensor<?x?xbf16>
}

fusion.fusion @add_rmsnorm(%x: tensor<?x?xbf16>, %r: tensor<?x?xbf16>, %w: tensor<?xbf16>) -> tensor<?x?xbf16> {
  %s = fusion.add %x, %r : tensor<?x?xbf16>
  %0 = fusion.rms_norm %s weight(%w : tensor<?xbf16>) axis = 1 eps = 1.0e-6 : tensor<?x?xbf16>
  fusion.return %0 : tensor<?x?xbf16>
}

