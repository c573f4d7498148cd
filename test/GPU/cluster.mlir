// REQUIRES: cuda
// A reduction across the blocks of a thread block cluster on the GPU (Note
// [Cluster reductions]): a hand-written kernel sums each row over a cluster
// of 4 blocks (each block's leader sums a quarter of the row, found by its
// fusion.cluster_rank), combines the 4 partial sums through distributed
// shared memory with fusion.cluster_reduce, and rank 0 writes the row's sum.
// fusion-run checks it against the definition (Inputs/row-sum.mlir); the
// launch is a cluster launch of the module file (LaunchVariant.cluster).
// RUN: fusion-translate %s --lowered-to-module --definition=%S/Inputs/row-sum.mlir --no-cubin -o %t.fusionmod
// RUN: fusion-run %t.fusionmod --input=37x1000 --atol=1e-3 | FileCheck %s --check-prefix=CL
// RUN: fusion-run %t.fusionmod --input=4096x3 --atol=1e-3 | FileCheck %s --check-prefix=CL
// RUN: fusion-run %t.fusionmod --input=5x4096 --atol=1e-3 --layout=0:transposed | FileCheck %s --check-prefix=CL
// CL: PASS row_sum {{.*}}variant=row_sum_cluster

module attributes {gpu.container_module} {
  fusion.fusion @row_sum(%x: tensor<?x?xf32> {fusion.name = "x"}) -> tensor<?xf32> {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c128 = arith.constant 128 : index
    %m = fusion.dim %x, 0 : tensor<?x?xf32>
    %n = fusion.dim %x, 1 : tensor<?x?xf32>
    %s0 = fusion.stride %x, 0 : tensor<?x?xf32>
    %s1 = fusion.stride %x, 1 : tensor<?x?xf32>
    %out = fusion.empty(%m) : tensor<?xf32>
    fusion.launch @cl::@row_sum_cluster grid(%c4, %m, %c1) block(%c128, %c1, %c1) smem(%c0) cluster(%c4, %c1, %c1) args(%x, %out, %n, %s0, %s1) {param_types = [memref<?xf32>, memref<?xf32>, i64, i64, i64]} : tensor<?x?xf32>, tensor<?xf32>, index, index, index
    fusion.return %out : tensor<?xf32>
  }
  gpu.module @cl {
    gpu.func @row_sum_cluster(%x: memref<?xf32>, %out: memref<?xf32>, %n: i64, %s0: i64, %s1: i64) workgroup(%slot : memref<1xf32, #gpu.address_space<workgroup>>) kernel {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c4 = arith.constant 4 : index
      %zero = arith.constant 0.0 : f32
      %tid = gpu.thread_id x
      %row = gpu.block_id y
      %rank32 = fusion.cluster_rank : i32
      %rank = arith.index_cast %rank32 : i32 to index
      %ni = arith.index_cast %n : i64 to index
      %rs = arith.index_cast %s0 : i64 to index
      %cs = arith.index_cast %s1 : i64 to index
      %q = arith.ceildivsi %ni, %c4 : index
      %lo = arith.muli %rank, %q : index
      %end = arith.addi %lo, %q : index
      %hi = arith.minsi %end, %ni : index
      %leader = arith.cmpi eq, %tid, %c0 : index
      %part = scf.if %leader -> (f32) {
        %rowBase = arith.muli %row, %rs : index
        %acc = scf.for %j = %lo to %hi step %c1 iter_args(%a = %zero) -> (f32) {
          %col = arith.muli %j, %cs : index
          %i = arith.addi %rowBase, %col : index
          %v = memref.load %x[%i] : memref<?xf32>
          %s = arith.addf %a, %v : f32
          scf.yield %s : f32
        }
        scf.yield %acc : f32
      } else {
        scf.yield %zero : f32
      }
      %total = fusion.cluster_reduce %part : f32 leader %leader slots(%slot : memref<1xf32, #gpu.address_space<workgroup>>) identity {
        %z = arith.constant 0.0 : f32
        fusion.reduce_yield %z : f32
      } combiner {
      ^bb0(%a: f32, %b: f32):
        %s = arith.addf %a, %b : f32
        fusion.reduce_yield %s : f32
      }
      %first = arith.cmpi eq, %rank, %c0 : index
      %writes = arith.andi %first, %leader : i1
      scf.if %writes {
        memref.store %total, %out[%row] : memref<?xf32>
      }
      gpu.return
    }
  }
}
