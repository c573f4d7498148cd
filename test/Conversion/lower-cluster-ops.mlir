// The cluster ops lower to NVVM's (Note [Cluster reductions]): the rank is
// %cluster_ctarank; a cluster reduction stores the leader's state, crosses
// a cluster barrier, reads slot 0 of the ranks four at a time (each load
// under its own rank < nctarank branch, all issued before any is folded)
// through mapa and ld.shared::cluster, folds them in rank order, and
// crosses a second barrier. With a buffer operand it uses that slot and
// crosses one barrier only; fusion.cluster_sync is a barrier of its own. Through
// the rest of the pipeline the kernel is PTX that ptxas accepts for sm_90a;
// sm_80 is refused on the op.
// RUN: fusion-opt %s --fusion-lower-kernel-ops | FileCheck %s
// RUN: fusion-opt %s --fusion-lower-kernel-ops | FileCheck %s --check-prefix=GONE
// RUN: fusion-opt %s --pass-pipeline="builtin.module(fusion-lower-kernel-ops,gpu.module(convert-scf-to-cf,convert-gpu-to-nvvm,convert-nvvm-to-llvm,reconcile-unrealized-casts),nvvm-attach-target{chip=sm_90a},gpu-module-to-binary{format=isa})" | python3 %fusion_src/utils/gpu-binary-ptx.py > %t.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// RUN: %if ptxas %{ ptxas -arch=sm_90a %t.ptx -o %t.cubin %}
// RUN: not fusion-opt %s --pass-pipeline="builtin.module(fusion-lower-kernel-ops,gpu.module(convert-scf-to-cf,convert-gpu-to-nvvm,convert-nvvm-to-llvm,reconcile-unrealized-casts),nvvm-attach-target{chip=sm_80},gpu-module-to-binary{format=isa})" 2>&1 | FileCheck %s --check-prefix=SM80

// CHECK-LABEL: gpu.func @row_over_cluster
// CHECK: %[[RANK:.*]] = nvvm.read.ptx.sreg.cluster.ctarank : i32
// CHECK: %[[C0:.*]] = arith.constant 0 : index
// CHECK: scf.if %{{.*}} {
// CHECK: memref.store %{{.*}}, %{{.*}}[%[[C0]]] : memref<1xf32, #gpu.address_space<workgroup>>
// CHECK: memref.store %{{.*}}, %{{.*}}[%[[C0]]] : memref<1xf32, #gpu.address_space<workgroup>>
// CHECK: }
// CHECK: nvvm.cluster.arrive {aligned}
// CHECK-NEXT: nvvm.cluster.wait {aligned}
// CHECK: %[[N:.*]] = nvvm.read.ptx.sreg.cluster.nctarank : i32
// CHECK: %[[NINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK: %[[L0:.*]] = llvm.getelementptr %{{.*}} : (!llvm.ptr<3>, i64) -> !llvm.ptr<3>, f32
// CHECK: %[[L1:.*]] = llvm.getelementptr %{{.*}} : (!llvm.ptr<3>, i64) -> !llvm.ptr<3>, f32
// CHECK: %[[FOUR:.*]] = arith.constant 4 : i32
// CHECK: scf.for %[[R:.*]] = %{{.*}} to %[[N]] step %[[FOUR]] iter_args(%[[M:.*]] = %[[NINF]], %[[S:.*]] = %{{.*}}) -> (f32, f32)  : i32 {
// CHECK: %[[R0:.*]] = arith.addi %[[R]], %{{.*}} : i32
// CHECK: %[[IN0:.*]] = arith.cmpi ult, %[[R0]], %[[N]] : i32
// CHECK: %[[V0:.*]]:2 = scf.if %[[IN0]] -> (f32, f32) {
// CHECK: %[[P0:.*]] = nvvm.mapa %[[L0]], %[[R0]] : !llvm.ptr<3> -> !llvm.ptr<7>
// CHECK: llvm.load %[[P0]] {alignment = 4 : i64} : !llvm.ptr<7> -> f32
// CHECK: %[[P1:.*]] = nvvm.mapa %[[L1]], %[[R0]] : !llvm.ptr<3> -> !llvm.ptr<7>
// CHECK: llvm.load %[[P1]] {alignment = 4 : i64} : !llvm.ptr<7> -> f32
// CHECK: } else {
// CHECK: scf.yield %[[NINF]], %{{.*}} : f32, f32
// CHECK-COUNT-6: nvvm.mapa
// CHECK-NOT: nvvm.mapa
// CHECK: %[[MX:.*]] = arith.maximumf %[[M]], %[[V0]]#0 : f32
// CHECK: %[[SUM:.*]] = arith.addf %[[S]], %[[V0]]#1 : f32
// CHECK: arith.select %[[IN0]], %[[MX]], %[[M]] : f32
// CHECK: arith.select %[[IN0]], %[[SUM]], %[[S]] : f32
// CHECK: scf.yield
// CHECK: nvvm.cluster.arrive {aligned}
// CHECK-NEXT: nvvm.cluster.wait {aligned}
// CHECK-LABEL: gpu.func @alternating
// CHECK: %[[B:.*]] = arith.index_castui %{{.*}} : i32 to index
// CHECK: memref.store %{{.*}}, %{{.*}}[%[[B]]] : memref<2xf32, #gpu.address_space<workgroup>>
// CHECK: nvvm.cluster.arrive {aligned}
// CHECK-NEXT: nvvm.cluster.wait {aligned}
// CHECK: %[[B64:.*]] = arith.index_cast %[[B]] : index to i64
// CHECK: llvm.getelementptr %{{.*}}[%[[B64]]] : (!llvm.ptr<3>, i64) -> !llvm.ptr<3>, f32
// CHECK: scf.for
// CHECK: memref.store %{{.*}}, %{{.*}}[%{{.*}}] : memref<1xf32>
// CHECK-NEXT: nvvm.cluster.arrive {aligned}
// CHECK-NEXT: nvvm.cluster.wait {aligned}
// CHECK-NEXT: gpu.return
// GONE-NOT: fusion.

// PTX-LABEL: .entry row_over_cluster(
// PTX: st.shared.{{[bf]}}32
// PTX: mov.u32 {{.*}}%cluster_ctarank;
// PTX-NEXT: barrier.cluster.arrive.aligned;
// PTX-NEXT: barrier.cluster.wait.aligned;
// PTX: mov.u32 {{.*}}%cluster_nctarank;
// PTX: mapa.shared::cluster.u64
// PTX: ld.shared::cluster.{{[bf]}}32
// PTX: mapa.shared::cluster.u64
// PTX: ld.shared::cluster.{{[bf]}}32
// PTX: barrier.cluster.arrive.aligned;
// PTX-NEXT: barrier.cluster.wait.aligned;
// PTX-LABEL: .entry alternating(
// PTX: barrier.cluster.arrive.aligned;
// PTX: ld.shared::cluster.{{[bf]}}32
// PTX: barrier.cluster.arrive.aligned;
// PTX-NEXT: barrier.cluster.wait.aligned;
// PTX-NEXT: ret;
// PTX-LABEL: .entry sum_i64(
// PTX: mapa.shared::cluster.u64 [[ADDR:%rd[0-9]+]],
// PTX-NEXT: ld.shared::cluster.{{[bu]}}64 {{%rd[0-9]+}}, {{\[}}[[ADDR]]{{\]}};

// SM80: error: 'nvvm.read.ptx.sreg.cluster.ctarank' op is not supported on sm_80
gpu.module @cluster_kernels {
  gpu.func @row_over_cluster(%m: f32, %s: f32, %tid: i32, %out: memref<2xf32>) workgroup(%sm : memref<1xf32, #gpu.address_space<workgroup>>, %ss : memref<1xf32, #gpu.address_space<workgroup>>) kernel {
    %rank = fusion.cluster_rank : i32
    %c0i = arith.constant 0 : i32
    %leader = arith.cmpi eq, %tid, %c0i : i32
    %r:2 = fusion.cluster_reduce %m, %s : f32, f32 leader %leader slots(%sm, %ss : memref<1xf32, #gpu.address_space<workgroup>>, memref<1xf32, #gpu.address_space<workgroup>>) identity {
      %ninf = arith.constant 0xFF800000 : f32
      %z = arith.constant 0.0 : f32
      fusion.reduce_yield %ninf, %z : f32, f32
    } combiner {
    ^bb0(%m0: f32, %s0: f32, %m1: f32, %s1: f32):
      %mx = arith.maximumf %m0, %m1 : f32
      %sum = arith.addf %s0, %s1 : f32
      fusion.reduce_yield %mx, %sum : f32, f32
    }
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %is0 = arith.cmpi eq, %rank, %c0i : i32
    %both = arith.andi %is0, %leader : i1
    scf.if %both {
      memref.store %r#0, %out[%c0] : memref<2xf32>
      memref.store %r#1, %out[%c1] : memref<2xf32>
    }
    gpu.return
  }
  // Alternating buffers: slot %b of two, one barrier; the kernel's own
  // cluster_sync before it returns.
  gpu.func @alternating(%x: f32, %b: i32, %leader: i1, %out: memref<1xf32>) workgroup(%slot : memref<2xf32, #gpu.address_space<workgroup>>) kernel {
    %r = fusion.cluster_reduce %x : f32 leader %leader slots(%slot : memref<2xf32, #gpu.address_space<workgroup>>) buffer %b : i32 identity {
      %z = arith.constant 0.0 : f32
      fusion.reduce_yield %z : f32
    } combiner {
    ^bb0(%a: f32, %c: f32):
      %t = arith.addf %a, %c : f32
      fusion.reduce_yield %t : f32
    }
    %c0 = arith.constant 0 : index
    memref.store %r, %out[%c0] : memref<1xf32>
    fusion.cluster_sync
    gpu.return
  }
  gpu.func @sum_i64(%x: i64, %leader: i1, %out: memref<1xi64>) workgroup(%slot : memref<4xi64, #gpu.address_space<workgroup>>) kernel {
    %r = fusion.cluster_reduce %x : i64 leader %leader slots(%slot : memref<4xi64, #gpu.address_space<workgroup>>) identity {
      %z = arith.constant 0 : i64
      fusion.reduce_yield %z : i64
    } combiner {
    ^bb0(%a: i64, %b: i64):
      %t = arith.addi %a, %b : i64
      fusion.reduce_yield %t : i64
    }
    %c0 = arith.constant 0 : index
    memref.store %r, %out[%c0] : memref<1xi64>
    gpu.return
  }
}
