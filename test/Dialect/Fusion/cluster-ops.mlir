// The cluster ops round-trip through the custom syntax (Note [Cluster
// reductions]): the block's rank, a reduction of a two-component state
// (online softmax's max and sum) over the blocks of a cluster, reductions
// through mbarriers with their initialization (Note [Cluster reductions
// through mbarriers]).
// RUN: fusion-opt %s | FileCheck %s
// RUN: fusion-opt %s | fusion-opt | FileCheck %s

// CHECK-LABEL: gpu.func @row_over_cluster
// CHECK: %[[RANK:.*]] = fusion.cluster_rank : i32
// CHECK: fusion.cluster_reduce %{{.*}}, %{{.*}} : f32, f32 leader %{{.*}} slots(%{{.*}}, %{{.*}} : memref<1xf32, #gpu.address_space<workgroup>>, memref<1xf32, #gpu.address_space<workgroup>>) identity {
// CHECK: fusion.reduce_yield %{{.*}}, %{{.*}} : f32, f32
// CHECK: } combiner {
// CHECK: ^bb0(%{{.*}}: f32, %{{.*}}: f32, %{{.*}}: f32, %{{.*}}: f32):
// CHECK-LABEL: gpu.func @sum_i64
// CHECK: fusion.cluster_reduce %{{.*}} : i64 leader
// CHECK-LABEL: gpu.func @through_mbarriers
// CHECK: fusion.cluster_reduce_init %{{.*}}, %{{.*}} : memref<2xi64, #gpu.address_space<workgroup>>, memref<2xi64, #gpu.address_space<workgroup>>
// CHECK: fusion.cluster_reduce %{{.*}} : f32 leader %{{.*}} slots(%{{.*}} : memref<16xf32, #gpu.address_space<workgroup>>) barriers %{{.*}} round %{{.*}} : memref<2xi64, #gpu.address_space<workgroup>>, i32 identity {
// CHECK: fusion.cluster_reduce %{{.*}} : i64 leader %{{.*}} slots(%{{.*}} : memref<4xi64, #gpu.address_space<workgroup>>) barriers %{{.*}} round %{{.*}} : memref<2xi64, #gpu.address_space<workgroup>>, index identity {
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
      %d0 = arith.subf %m0, %mx : f32
      %d1 = arith.subf %m1, %mx : f32
      %e0 = math.exp %d0 : f32
      %e1 = math.exp %d1 : f32
      %t0 = arith.mulf %s0, %e0 : f32
      %t1 = arith.mulf %s1, %e1 : f32
      %sum = arith.addf %t0, %t1 : f32
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
  gpu.func @through_mbarriers(%x: f32, %y: i64, %n: i32, %m: index, %leader: i1) workgroup(%slot : memref<16xf32, #gpu.address_space<workgroup>>, %slot64 : memref<4xi64, #gpu.address_space<workgroup>>, %bars : memref<2xi64, #gpu.address_space<workgroup>>, %bars64 : memref<2xi64, #gpu.address_space<workgroup>>) kernel {
    fusion.cluster_reduce_init %bars, %bars64 : memref<2xi64, #gpu.address_space<workgroup>>, memref<2xi64, #gpu.address_space<workgroup>>
    %r = fusion.cluster_reduce %x : f32 leader %leader slots(%slot : memref<16xf32, #gpu.address_space<workgroup>>) barriers %bars round %n : memref<2xi64, #gpu.address_space<workgroup>>, i32 identity {
      %z = arith.constant 0.0 : f32
      fusion.reduce_yield %z : f32
    } combiner {
    ^bb0(%a: f32, %c: f32):
      %t = arith.addf %a, %c : f32
      fusion.reduce_yield %t : f32
    }
    %q = fusion.cluster_reduce %y : i64 leader %leader slots(%slot64 : memref<4xi64, #gpu.address_space<workgroup>>) barriers %bars64 round %m : memref<2xi64, #gpu.address_space<workgroup>>, index identity {
      %z = arith.constant 0 : i64
      fusion.reduce_yield %z : i64
    } combiner {
    ^bb0(%a: i64, %c: i64):
      %t = arith.addi %a, %c : i64
      fusion.reduce_yield %t : i64
    }
    gpu.return
  }
}
