// Note [Cluster persistent rows]: with inner-long-cluster=L (8 by
// default), a persistent vectorized inner reduction with per-element
// results gets a variant for rows longer than the persistent variants hold
// in one block, tried right after the long-row variant (`_plv8`): every
// block of a cluster takes the same rows (gpu.cluster_id), keeps the span
// of the row at its rank (gpu.cluster_block_id) in registers, and reduces
// each pass's state across the block, then across the cluster (through
// mbarriers: st.async into every block's slots, rounds counted by the row
// loop, the barriers prepared once before it; no cluster barrier in the
// loop). The host launches it with a
// cluster of 2, 4 or 8 blocks along x and the block size chosen at launch;
// PTX only, as the fallbacks. Chips before sm_90 do without it, and
// kernels without per-element results get none.
// RUN: fusion-opt %s --fusion-decompose --fusion-segment --fusion-schedule="inner-long-cluster=4" | FileCheck %s --check-prefix=SCHED
// RUN: fusion-opt %s --fusion-decompose --fusion-segment --fusion-schedule="inner-long-cluster=4" --fusion-lower-kernels="chip=sm_90a" | FileCheck %s
// RUN: fusion-opt %s --fusion-decompose --fusion-segment --fusion-schedule="inner-long-cluster=4" --fusion-lower-kernels="chip=sm_80" | FileCheck %s --check-prefix=SM80
// RUN: fusion-opt %s --fusion-decompose --fusion-segment --fusion-schedule="inner-long-cluster=0" | FileCheck %s --check-prefix=OFF
// RUN: fusion-opt %s --fusion-decompose --fusion-segment --fusion-schedule | FileCheck %s --check-prefix=DEFAULT
// The PTX passes ptxas for sm_90a:
// RUN: fusion-translate %s --fusion=layernorm --inner-long-cluster=8 --fusion-to-ptx --no-cubin -o %t.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// RUN: %if ptxas %{ ptxas -arch=sm_90a %t.ptx -o %t.cubin %}
// st.async needs PTX ISA 8.1; a module without it keeps LLVM's 8.0 (Note
// [PTX ISA of inline PTX]):
// RUN: fusion-translate %s --fusion=layernorm --inner-long-cluster=0 --inner-cluster=0 --fusion-to-ptx --no-cubin -o %t.off.ptx
// RUN: FileCheck %s --check-prefix=ISA80 < %t.off.ptx
// A chip whose own version is newer keeps it (sm_100a: 8.6):
// RUN: fusion-translate %s --fusion=layernorm --chip=sm_100a --fusion-to-ptx --no-cubin -o %t.100.ptx
// RUN: FileCheck %s --check-prefix=ISA86 < %t.100.ptx
// Other cluster sizes are refused before anything is scheduled (Note
// [Schedule options]); a schedule written with one fails its verifier
// (test/Reliability/schedule-ranges.mlir):
// RUN: not fusion-translate %s --fusion=softmax --inner-long-cluster=3 --fusion-to-ptx --no-cubin -o %t.bad 2>&1 | FileCheck %s --check-prefix=BAD

// SCHED-LABEL: @softmax
// SCHED: #fusion.inner_reduction<vector = 8, items = 4, block = 256, max_grid = 2112, index64 = false, fast_math = true, stage_row = true, cluster = 8, long_cluster = 4, long_stage = true, row_grid = 16896>
// SCHED-LABEL: @layernorm
// SCHED: #fusion.inner_reduction<vector = 8, items = 4, block = 256, max_grid = 2112, index64 = false, fast_math = true, stage_row = true, cluster = 8, async_stage = true, long_cluster = 4, long_stage = true, row_grid = 16896>
// SCHED-LABEL: @row_sum
// SCHED: #fusion.inner_reduction<vector = 4, items = 0, block = 256, max_grid = 2112, index64 = false, fast_math = false, row_grid = 16896> (%arg0)
// OFF-NOT: long_cluster
// DEFAULT-LABEL: @softmax
// DEFAULT: stage_row = true, cluster = 8, long_cluster = 8, long_stage = true, row_grid = 16896>
// DEFAULT-LABEL: @layernorm
// DEFAULT: fast_math = true, stage_row = true, cluster = 8, async_stage = true, long_cluster = 8, long_stage = true, row_grid = 16896>
// DEFAULT-LABEL: @row_sum
// DEFAULT-NOT: long_cluster

// CHECK-LABEL: fusion.fusion @softmax
// CHECK: launch @softmax_kernels::@softmax_k0_pv8_i32
// CHECK-NOT: cluster(
// CHECK: launch @softmax_kernels::@softmax_k0_plv8_i32
// CHECK-NOT: cluster(
// CHECK: launch @softmax_kernels::@softmax_k0_cpv8_i32 if(%{{.*}}) grid(%{{.*}}, %c1{{.*}}, %c1{{.*}}) block(%{{.*}}, %c1{{.*}}, %c1{{.*}}) smem(%{{.*}}) cluster(%{{.*}}, %c1{{.*}}, %c1{{.*}}) args({{.*}}) {fallback
// CHECK-NOT: _plv8
// CHECK: launch @softmax_kernels::@softmax_k0_prv8_i32
// CHECK-LABEL: fusion.fusion @layernorm
// CHECK: launch @layernorm_kernels::@layernorm_k0_pv8_i32
// CHECK: launch @layernorm_kernels::@layernorm_k0_plv8_i32
// CHECK: launch @layernorm_kernels::@layernorm_k0_cpv8_i32 {{.*}} cluster(
// CHECK-LABEL: fusion.fusion @row_sum
// CHECK-NOT: _cp
// CHECK: gpu.module @softmax_kernels
// CHECK-LABEL: gpu.func @softmax_k0_pv8_i32
// CHECK-NOT: gpu.cluster_id
// CHECK-LABEL: gpu.func @softmax_k0_cpv8_i32
// CHECK-SAME: workgroup(
// CHECK-SAME: memref<16xf32, #gpu.address_space<workgroup>>, %{{.*}}: memref<16xf32, #gpu.address_space<workgroup>>, %[[BARS:[a-z0-9]+]] : memref<2xi64, #gpu.address_space<workgroup>>)
// CHECK-DAG: gpu.cluster_id x
// CHECK-DAG: gpu.cluster_dim x
// CHECK-DAG: gpu.cluster_block_id x
// CHECK: fusion.cluster_reduce_init %[[BARS]] : memref<2xi64, #gpu.address_space<workgroup>>
// CHECK: scf.for
// CHECK: fusion.block_reduce
// CHECK: fusion.cluster_reduce {{.*}} barriers %[[BARS]] round %{{.*}} : memref<2xi64, #gpu.address_space<workgroup>>, i32
// CHECK: gpu.return
// CHECK: gpu.module @layernorm_kernels
// CHECK-LABEL: gpu.func @layernorm_k0_cpv8_i32
// CHECK: fusion.cluster_reduce_init %[[B0:[a-z0-9]+]], %[[B1:[a-z0-9]+]] : memref<2xi64
// CHECK: fusion.cluster_reduce {{.*}} barriers %[[B0]] round
// CHECK: fusion.cluster_reduce {{.*}} barriers %[[B1]] round
// CHECK: gpu.return

// SM80-NOT: _cpv8_
// SM80: _plv8_i32
// SM80-NOT: _cpv8_

// PTX: .version 8.1
// PTX-LABEL: .entry layernorm_k0_pv8_i32(
// PTX-NOT: barrier.cluster
// PTX: ret;
// PTX-LABEL: .entry layernorm_k0_plv8_i32(
// PTX-NOT: barrier.cluster
// PTX-LABEL: .entry layernorm_k0_cpv8_i32(
// PTX: %clusterid.x
// PTX: %cluster_ctaid.x
// PTX: mbarrier.init.shared.b64
// PTX: fence.mbarrier_init.release.cluster;
// PTX-NEXT: barrier.cluster.arrive.relaxed.aligned;
// PTX-NEXT: barrier.cluster.wait.aligned;
// PTX-NOT: barrier.cluster
// PTX-NOT: ld.shared::cluster
// PTX: mbarrier.arrive.expect_tx.shared.b64
// PTX: mapa.shared::cluster
// PTX: st.async.shared::cluster.mbarrier::complete_tx::bytes.b32
// PTX: mbarrier.try_wait.parity
// PTX-NOT: barrier.cluster
// PTX-NOT: ld.shared::cluster
// PTX-LABEL: .entry layernorm_k0_prv8_i32(

// ISA80: .version 8.0
// ISA80-NOT: st.async
// ISA86: .version 8.6
// ISA86: st.async.shared::cluster.mbarrier::complete_tx::bytes

// BAD: error: the option inner-long-cluster must be -1 (heuristic), 0 (none), 2, 4 or 8, got 3

fusion.fusion @softmax(%x: tensor<?x?xbf16>) -> tensor<?x?xbf16> {
  %0 = fusion.softmax %x dim = 1 : tensor<?x?xbf16>
  fusion.return %0 : tensor<?x?xbf16>
}

// Two sum passes (mean, then the centered squares) and the epilogue.
fusion.fusion @layernorm(%x: tensor<?x?xbf16>, %w: tensor<?xbf16>, %b: tensor<?xbf16>) -> tensor<?x?xbf16> {
  %0 = fusion.layer_norm %x weight(%w : tensor<?xbf16>) bias(%b : tensor<?xbf16>) axis = 1 eps = 1.0e-05 : tensor<?x?xbf16>
  fusion.return %0 : tensor<?x?xbf16>
}

// A per-row result only: split rows serve it (Note [Split rows]).
fusion.fusion @row_sum(%x: tensor<?x?xf32>) -> tensor<?x1xf32> {
  %0 = fusion.sum %x [1] keepdim : tensor<?x?xf32> -> tensor<?x1xf32>
  fusion.return %0 : tensor<?x1xf32>
}
