// The cluster ops lower to NVVM's (Note [Cluster reductions]): the rank is
// %cluster_ctarank; a cluster reduction stores the leader's state, crosses
// a cluster barrier, reads slot 0 of the ranks four at a time (each load
// under its own rank < nctarank branch, all issued before any is folded)
// through mapa and ld.shared::cluster, folds them in rank order, and
// crosses a second barrier. Through mbarriers (Note [Cluster reductions
// through mbarriers]) there is no cluster barrier in the reduction:
// fusion.cluster_reduce_init initializes the two mbarriers in thread 0, then
// fence.mbarrier_init and a relaxed cluster barrier; a round's leader
// expects the cluster's bytes on its mbarrier of the round's set and sends
// its state to every rank's slot with st.async (inline PTX, PTX ISA 8.1),
// every thread waits for the round's phase and folds its own slots (no
// mapa). Through the rest of
// the pipeline the kernel is PTX that ptxas accepts for sm_90a; sm_80 is
// refused on the op.
// RUN: fusion-opt %s --fusion-lower-kernel-ops | FileCheck %s
// RUN: fusion-opt %s --fusion-lower-kernel-ops | FileCheck %s --check-prefix=GONE
// RUN: fusion-opt %s --pass-pipeline="builtin.module(fusion-lower-kernel-ops,gpu.module(convert-scf-to-cf,convert-gpu-to-nvvm,convert-nvvm-to-llvm,reconcile-unrealized-casts),nvvm-attach-target{chip=sm_90a features=+ptx81},gpu-module-to-binary{format=isa})" | python3 %fusion_src/utils/gpu-binary-ptx.py > %t.ptx
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
// CHECK: %[[L0:.*]] = llvm.inttoptr %{{.*}} : i64 to !llvm.ptr<3>
// CHECK: %[[L1:.*]] = llvm.inttoptr %{{.*}} : i64 to !llvm.ptr<3>
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
// CHECK-LABEL: gpu.func @through_mbarriers
// CHECK: %[[TX:.*]] = nvvm.read.ptx.sreg.tid.x : i32
// CHECK: scf.if
// CHECK-COUNT-2: nvvm.mbarrier.init %{{.*}}, %{{.*}} : !llvm.ptr<3>, i32
// CHECK: }
// CHECK-NEXT: nvvm.fence.mbarrier.init
// CHECK-NEXT: nvvm.cluster.arrive.relaxed {aligned}
// CHECK-NEXT: nvvm.cluster.wait {aligned}
// CHECK: %[[ROUND:.*]] = arith.index_castui %{{.*}} : i32 to index
// CHECK: %[[SET:.*]] = arith.remui %[[ROUND]], %{{.*}} : index
// CHECK: %[[HALF:.*]] = arith.divui %[[ROUND]], %{{.*}} : index
// CHECK: %[[PARITY:.*]] = arith.remui %[[HALF]], %{{.*}} : index
// CHECK: %[[PHASE:.*]] = arith.index_castui %[[PARITY]] : index to i32
// CHECK: %[[N:.*]] = nvvm.read.ptx.sreg.cluster.nctarank : i32
// CHECK: %[[RANK:.*]] = nvvm.read.ptx.sreg.cluster.ctarank : i32
// CHECK: %[[BAR:.*]] = llvm.getelementptr %{{.*}} : (!llvm.ptr<3>, i64) -> !llvm.ptr<3>, i64
// CHECK: %[[SETBASE:.*]] = llvm.getelementptr %{{.*}} : (!llvm.ptr<3>, i64) -> !llvm.ptr<3>, f32
// CHECK: scf.if %{{.*}} {
// CHECK: %[[BYTES:.*]] = arith.muli %[[N]], %{{.*}} : i32
// CHECK: nvvm.mbarrier.arrive.expect_tx %[[BAR]], %[[BYTES]] : !llvm.ptr<3>, i32
// CHECK: scf.for %[[PEER:.*]] = %{{.*}} to %[[N]] step
// CHECK: %[[RBAR:.*]] = nvvm.mapa %[[BAR]], %[[PEER]] : !llvm.ptr<3> -> !llvm.ptr<7>
// CHECK: %[[R64:.*]] = arith.extui %[[RANK]] : i32 to i64
// CHECK: %[[MINE:.*]] = llvm.getelementptr %[[SETBASE]][%[[R64]]]
// CHECK: %[[RSLOT:.*]] = nvvm.mapa %[[MINE]], %[[PEER]] : !llvm.ptr<3> -> !llvm.ptr<7>
// CHECK: %[[RSLOTI:.*]] = llvm.ptrtoint %[[RSLOT]] : !llvm.ptr<7> to i64
// CHECK: %[[RBARI:.*]] = llvm.ptrtoint %[[RBAR]] : !llvm.ptr<7> to i64
// CHECK: llvm.inline_asm has_side_effects "st.async.shared::cluster.mbarrier::complete_tx::bytes.b32 [$0], $1, [$2];", "l,r,l,~{memory}" %[[RSLOTI]], %{{.*}}, %[[RBARI]]
// CHECK: nvvm.mbarrier.try_wait.parity %[[BAR]], %[[PHASE]]
// CHECK: scf.for %{{.*}} = %{{.*}} to %[[N]] step %{{.*}} iter_args
// CHECK-NOT: nvvm.mapa
// CHECK-COUNT-4: llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr<3> -> f32
// CHECK-NOT: nvvm.mapa
// CHECK: scf.yield
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
// PTX-LABEL: .entry through_mbarriers(
// PTX: mbarrier.init.shared.b64
// PTX: fence.mbarrier_init.release.cluster;
// PTX-NEXT: barrier.cluster.arrive.relaxed.aligned;
// PTX-NEXT: barrier.cluster.wait.aligned;
// PTX-NOT: barrier.cluster
// PTX: mbarrier.arrive.expect_tx.shared.b64
// PTX: st.async.shared::cluster.mbarrier::complete_tx::bytes.b32
// PTX: mbarrier.try_wait.parity
// PTX-NOT: barrier.cluster
// PTX: ret;
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
  // Rounds through mbarriers (Note [Cluster reductions through
  // mbarriers]): the barriers prepared once, round %n uses set %n % 2.
  gpu.func @through_mbarriers(%x: f32, %n: i32, %leader: i1, %out: memref<1xf32>) workgroup(%slot : memref<16xf32, #gpu.address_space<workgroup>>, %bars : memref<2xi64, #gpu.address_space<workgroup>>) kernel {
    fusion.cluster_reduce_init %bars : memref<2xi64, #gpu.address_space<workgroup>>
    %r = fusion.cluster_reduce %x : f32 leader %leader slots(%slot : memref<16xf32, #gpu.address_space<workgroup>>) barriers %bars round %n : memref<2xi64, #gpu.address_space<workgroup>>, i32 identity {
      %z = arith.constant 0.0 : f32
      fusion.reduce_yield %z : f32
    } combiner {
    ^bb0(%a: f32, %c: f32):
      %t = arith.addf %a, %c : f32
      fusion.reduce_yield %t : f32
    }
    %c0 = arith.constant 0 : index
    memref.store %r, %out[%c0] : memref<1xf32>
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
