// Note [Cluster rows]: with inner-cluster=C, an inner reduction with
// per-element results gets a cluster variant for few long rows (tried
// first, vectorized streaming, 32-bit offsets): every block of a cluster
// takes the same rows (gpu.cluster_id), streams its span of the row
// (gpu.cluster_block_id of gpu.cluster_dim_blocks), and reduces each pass's
// state across the block, then across the cluster. The host launches it
// with a cluster of 2, 4 or 8 blocks along x (chosen at launch) and 512
// threads per row, before the plain variants; PTX only, as the fallbacks.
// On by default (clusters of up to 8).
// (inner-long-cluster=0 leaves out the other cluster variant, Note [Cluster
// persistent rows]: test/Transforms/lower-kernels-cluster-persistent.mlir.)
// RUN: fusion-opt %s --fusion-decompose --fusion-segment --fusion-schedule="inner-cluster=8 inner-long-cluster=0" | FileCheck %s --check-prefix=SCHED
// RUN: fusion-opt %s --fusion-decompose --fusion-segment --fusion-schedule="inner-cluster=8 inner-long-cluster=0" --fusion-lower-kernels="chip=sm_90a" | FileCheck %s
// RUN: fusion-opt %s --fusion-decompose --fusion-segment --fusion-schedule="inner-cluster=8 inner-long-cluster=0" --fusion-lower-kernels="chip=sm_80" | FileCheck %s --check-prefix=SM80
// By default the schedule asks for clusters of up to 8 (the launch takes
// the variant only for few long rows); inner-cluster=0 leaves it out:
// RUN: fusion-opt %s --fusion-decompose --fusion-segment --fusion-schedule | FileCheck %s --check-prefix=DEFAULT
// RUN: fusion-opt %s --fusion-decompose --fusion-segment --fusion-schedule="inner-cluster=0" | FileCheck %s --check-prefix=OFF
// The PTX passes ptxas for sm_90a:
// RUN: fusion-translate %s --fusion=softmax --inner-cluster=8 --fusion-to-ptx --no-cubin -o %t.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// RUN: %if ptxas %{ ptxas -arch=sm_90a %t.ptx -o %t.cubin %}
// Other cluster sizes are refused before anything is scheduled (Note
// [Schedule options]); a schedule written with one fails its verifier
// (test/Reliability/schedule-ranges.mlir):
// RUN: not fusion-translate %s --fusion=softmax --inner-cluster=3 --fusion-to-ptx --no-cubin -o %t.bad 2>&1 | FileCheck %s --check-prefix=BAD

// SCHED-LABEL: @softmax
// SCHED: #fusion.inner_reduction<vector = 8, items = 4, block = 256, max_grid = 2112, index64 = false, fast_math = true, stage_row = true, cluster = 8, long_stage = true, row_grid = 16896>
// SCHED-LABEL: @row_sum
// SCHED: #fusion.inner_reduction<vector = 4, items = 0, block = 256, max_grid = 2112, index64 = false, fast_math = false, row_grid = 16896> (%arg0)
// DEFAULT-LABEL: @softmax
// DEFAULT: fast_math = true, stage_row = true, cluster = 8, long_cluster = 8, long_stage = true, row_grid = 16896>
// DEFAULT-LABEL: @row_sum
// DEFAULT-NOT: cluster =
// OFF-NOT: , cluster =

// CHECK-LABEL: fusion.fusion @softmax
// CHECK: launch @softmax_kernels::@softmax_k0_cv8_i32 if(%{{.*}}) grid(%{{.*}}, %c1{{.*}}, %c1{{.*}}) block(%c512{{.*}}, %c1{{.*}}, %c1{{.*}}) smem(%c0{{.*}}) cluster(%{{.*}}, %c1{{.*}}, %c1{{.*}}) args({{.*}}) {fallback
// CHECK: launch @softmax_kernels::@softmax_k0_pv8_i32
// CHECK-NOT: cluster(
// CHECK-LABEL: fusion.fusion @row_sum
// CHECK-NOT: _cv
// CHECK: gpu.module @softmax_kernels
// CHECK-LABEL: gpu.func @softmax_k0_cv8_i32
// CHECK-SAME: workgroup(
// CHECK-SAME: memref<16xf32, #gpu.address_space<workgroup>>, %{{.*}}: memref<16xf32, #gpu.address_space<workgroup>>, %[[BARS:[a-z0-9]+]] : memref<2xi64, #gpu.address_space<workgroup>>)
// CHECK-DAG: gpu.cluster_id x
// CHECK-DAG: gpu.cluster_dim x
// CHECK-DAG: gpu.cluster_block_id x
// CHECK-DAG: gpu.cluster_dim_blocks x
// CHECK: fusion.cluster_reduce_init %[[BARS]]
// CHECK: fusion.block_reduce
// CHECK: fusion.cluster_reduce {{.*}} barriers %[[BARS]] round %{{.*}} : memref<2xi64, #gpu.address_space<workgroup>>, i32
// CHECK: gpu.return
// CHECK-LABEL: gpu.func @softmax_k0_pv8_i32
// CHECK-NOT: gpu.cluster_id
// CHECK: gpu.module @row_sum_kernels

// SM80-NOT: _cv8_

// PTX-LABEL: .entry softmax_k0_cv8_i32(
// PTX: %clusterid.x
// PTX: barrier.cluster.arrive.relaxed.aligned
// PTX-NEXT: barrier.cluster.wait.aligned
// PTX-NOT: barrier.cluster
// PTX: mapa.shared::cluster
// PTX: st.async.shared::cluster
// PTX-LABEL: .entry softmax_k0_pv8_i32(
// PTX-NOT: barrier.cluster
// PTX: ret;

// BAD: error: the option inner-cluster must be -1 (heuristic), 0 (none), 2, 4 or 8, got 3

fusion.fusion @softmax(%x: tensor<?x?xbf16>) -> tensor<?x?xbf16> {
  %0 = fusion.softmax %x dim = 1 : tensor<?x?xbf16>
  fusion.return %0 : tensor<?x?xbf16>
}

// A per-row result only: split rows serve it (Note [Split rows]).
fusion.fusion @row_sum(%x: tensor<?x?xf32>) -> tensor<?x1xf32> {
  %0 = fusion.sum %x [1] keepdim : tensor<?x?xf32> -> tensor<?x1xf32>
  fusion.return %0 : tensor<?x1xf32>
}
