// Staged rows for a kernel of several passes (Note [Staged rows
// heuristic]; layer_norm: the mean, then the centered sum of squares): the
// scheduler sets `stage_row` and `async_stage`, so the first persistent
// variant `_pv8` keeps its row in dynamic shared memory and copies the next
// row into a second buffer with cp.async (2 x 64 bytes per thread), at 64
// registers. The long-row variant `_plv8` stages its row too (`long_stage`:
// 8 vectors of 8 bf16 of x per thread, 128 bytes), but synchronously:
// `long_async` stays off. The cluster variant `_cpv8` (Note [Cluster
// persistent rows]) and the ragged one `_prv8` (Note [Ragged rows]) take
// no async copy: under an async schedule they keep their rows in
// registers (several passes), under --inner-stage=1 they stage them.
// --inner-stage=0 turns both off, --inner-stage=1
// stages both synchronously, --inner-stage=2 copies both with cp.async.
// RUN: fusion-opt %s --fusion-decompose --fusion-segment --fusion-schedule | FileCheck %s --check-prefix=SCHED
// RUN: fusion-opt %s --fusion-decompose --fusion-segment --fusion-schedule="inner-stage=0" | FileCheck %s --check-prefix=SCHED0
// RUN: fusion-opt %s --fusion-decompose --fusion-segment --fusion-schedule --fusion-lower-kernels="chip=sm_90a" | FileCheck %s
// RUN: fusion-opt %s --fusion-decompose --fusion-segment --fusion-schedule="inner-stage=0" --fusion-lower-kernels="chip=sm_90a" | FileCheck %s --check-prefix=OFF
// RUN: fusion-opt %s --fusion-decompose --fusion-segment --fusion-schedule="inner-stage=1" --fusion-lower-kernels="chip=sm_90a" | FileCheck %s --check-prefix=ON
// RUN: fusion-opt %s --fusion-decompose --fusion-segment --fusion-schedule="inner-stage=2" --fusion-lower-kernels="chip=sm_90a" | FileCheck %s --check-prefix=ASYNC

// SCHED: #fusion.inner_reduction<vector = 8, items = 4, block = 256, max_grid = 2112, index64 = false, fast_math = true, stage_row = true, cluster = 8, async_stage = true, long_cluster = 8, long_stage = true, row_grid = 16896>
// SCHED0: #fusion.inner_reduction<vector = 8, items = 4, block = 256, max_grid = 2112, index64 = false, fast_math = true, cluster = 8, long_cluster = 8, row_grid = 16896>

// CHECK-LABEL: gpu.func @layernorm_k0_pv8_i32
// CHECK-SAME: fusion.stage_bytes_per_thread = 128
// CHECK-SAME: nvvm.maxnreg = 64
// CHECK: fusion.stage_copy
// CHECK: fusion.stage_wait
// CHECK: gpu.return
// CHECK-LABEL: gpu.func @layernorm_k0_plv8_i32
// CHECK-SAME: fusion.stage_bytes_per_thread = 128
// CHECK-NOT: fusion.stage_copy
// CHECK: scf.for
// CHECK-COUNT-8: fusion.stage_store %{{.*}}, %{{.*}} : vector<8xbf16>, i32
// CHECK-NOT: fusion.stage_copy
// CHECK: gpu.return
// CHECK-LABEL: gpu.func @layernorm_k0_cpv8_i32
// CHECK-NOT: fusion.stage_
// CHECK: gpu.return
// CHECK-LABEL: gpu.func @layernorm_k0_prv8_i32
// CHECK-NOT: fusion.stage_
// CHECK: gpu.return

// OFF-NOT: fusion.stage_

// ON-LABEL: gpu.func @layernorm_k0_pv8_i32
// ON-SAME: fusion.stage_bytes_per_thread = 64
// ON-NOT: fusion.stage_copy
// ON-LABEL: gpu.func @layernorm_k0_plv8_i32
// ON-SAME: fusion.stage_bytes_per_thread = 128
// ON-NOT: fusion.stage_copy
// ON-LABEL: gpu.func @layernorm_k0_cpv8_i32
// ON-SAME: fusion.stage_bytes_per_thread = 64
// ON-LABEL: gpu.func @layernorm_k0_prv8_i32
// ON-SAME: fusion.stage_bytes_per_thread = 64

// ASYNC-LABEL: gpu.func @layernorm_k0_pv8_i32
// ASYNC-SAME: fusion.stage_bytes_per_thread = 128
// ASYNC: fusion.stage_copy
// ASYNC-LABEL: gpu.func @layernorm_k0_plv8_i32
// ASYNC-SAME: fusion.stage_bytes_per_thread = 256
// ASYNC: fusion.stage_copy
// ASYNC-LABEL: gpu.func @layernorm_k0_cpv8_i32
// ASYNC-NOT: fusion.stage_
// ASYNC: gpu.return
// ASYNC-LABEL: gpu.func @layernorm_k0_prv8_i32
// ASYNC-NOT: fusion.stage_
// ASYNC: gpu.return
fusion.fusion @layernorm(%x: tensor<?x?xbf16>, %w: tensor<?xbf16>, %b: tensor<?xbf16>) -> tensor<?x?xbf16> {
  %0 = fusion.layer_norm %x weight(%w : tensor<?xbf16>) bias(%b : tensor<?xbf16>) axis = 1 eps = 1.0e-05 : tensor<?x?xbf16>
  fusion.return %0 : tensor<?x?xbf16>
}
