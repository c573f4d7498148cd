// REQUIRES: cuda
// The bulk tensor copy on the GPU (Note [Tensor maps]): a hand-written
// kernel loads 8 x 64 tiles of x through a tensor map (TMA, an mbarrier)
// and writes 2 x to the output; its fallback reads x directly. fusion-run
// checks both against the definition (Inputs/tma-double.mlir) with the
// interpreter. Rows whose stride is not a multiple of 16 bytes (7 x 1001,
// rows padded by 3 floats), a misaligned or a transposed x take the
// fallback, never an error; FUSION_RUNTIME_DEBUG says why.
// RUN: fusion-translate %s --lowered-to-module --definition=%S/Inputs/tma-double.mlir --no-cubin -o %t.fusionmod
// RUN: fusion-run %t.fusionmod --input=100x64 | FileCheck %s --check-prefix=TMA
// RUN: fusion-run %t.fusionmod --input=1000x4096 | FileCheck %s --check-prefix=TMA
// RUN: fusion-run %t.fusionmod --input=9x68 | FileCheck %s --check-prefix=TMA
// TMA: PASS tma_double {{.*}}variant=tma_double_tma
// RUN: env FUSION_RUNTIME_DEBUG=1 fusion-run %t.fusionmod --input=7x1001 2>&1 | FileCheck %s --check-prefix=ODD
// ODD: fusion runtime: launch 0: variant 0 (kernel tma_double_tma) not taken: tensor map 0: dim 0 has a stride of 4004 bytes
// ODD: PASS tma_double {{.*}}variant=tma_double_plain
// RUN: fusion-run %t.fusionmod --input=64x64 --misalign | FileCheck %s --check-prefix=PLAIN
// RUN: fusion-run %t.fusionmod --input=64x64 --layout=0:strided | FileCheck %s --check-prefix=PLAIN
// RUN: fusion-run %t.fusionmod --input=33x64 --layout=0:transposed | FileCheck %s --check-prefix=PLAIN
// PLAIN: PASS tma_double {{.*}}variant=tma_double_plain

module attributes {gpu.container_module} {
  fusion.fusion @tma_double(%x: tensor<?x?xf32> {fusion.name = "x"}) -> tensor<?x?xf32> {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %c64 = arith.constant 64 : index
    %c128 = arith.constant 128 : index
    %m = fusion.dim %x, 0 : tensor<?x?xf32>
    %n = fusion.dim %x, 1 : tensor<?x?xf32>
    %s0 = fusion.stride %x, 0 : tensor<?x?xf32>
    %s1 = fusion.stride %x, 1 : tensor<?x?xf32>
    %out = fusion.empty(%m, %n) : tensor<?x?xf32>
    %gx = arith.ceildivsi %n, %c64 : index
    %gy = arith.ceildivsi %m, %c8 : index
    %map = fusion.tensor_map %x box [8, 64] : tensor<?x?xf32> -> !llvm.ptr
    fusion.launch @tma::@tma_double_tma if(%c1) grid(%gx, %gy, %c1) block(%c128, %c1, %c1) smem(%c0) args(%map, %out, %m, %n) {param_types = [!llvm.ptr, memref<?xf32>, i64, i64]} : !llvm.ptr, tensor<?x?xf32>, index, index
    fusion.launch @plain::@tma_double_plain grid(%gx, %gy, %c1) block(%c128, %c1, %c1) smem(%c0) args(%x, %out, %m, %n, %s0, %s1) {param_types = [memref<?xf32>, memref<?xf32>, i64, i64, i64, i64]} : tensor<?x?xf32>, tensor<?x?xf32>, index, index, index, index
    fusion.return %out : tensor<?x?xf32>
  }
  gpu.module @tma {
    gpu.func @tma_double_tma(%map: !llvm.ptr, %out: memref<?xf32>, %m: i64, %n: i64) workgroup(%tile : memref<8x64xf32, #gpu.address_space<workgroup>> {llvm.align = 128 : i64}, %bars : memref<1xi64, #gpu.address_space<workgroup>>) kernel attributes {fusion.tensor_maps = 1 : i64} {
      %c0 = arith.constant 0 : index
      %c8 = arith.constant 8 : index
      %c64 = arith.constant 64 : index
      %c128 = arith.constant 128 : index
      %c512 = arith.constant 512 : index
      %one = arith.constant 1 : i32
      %zero = arith.constant 0 : i32
      %bytes = arith.constant 2048 : i32
      %tid = gpu.thread_id x
      %bx = gpu.block_id x
      %by = gpu.block_id y
      %leader = arith.cmpi eq, %tid, %c0 : index
      scf.if %leader {
        fusion.mbarrier_init %bars[%c0], %one : memref<1xi64, #gpu.address_space<workgroup>>
      }
      fusion.fence_async_shared
      gpu.barrier
      %row0 = arith.muli %by, %c8 : index
      %col0 = arith.muli %bx, %c64 : index
      %row32 = arith.index_cast %row0 : index to i32
      %col32 = arith.index_cast %col0 : index to i32
      scf.if %leader {
        fusion.mbarrier_arrive_expect_tx %bars[%c0], %bytes : memref<1xi64, #gpu.address_space<workgroup>>
        fusion.bulk_tensor_load %map [%row32, %col32] to %tile, %bars[%c0] : !llvm.ptr, memref<8x64xf32, #gpu.address_space<workgroup>>, memref<1xi64, #gpu.address_space<workgroup>>
      }
      fusion.mbarrier_wait %bars[%c0], %zero : memref<1xi64, #gpu.address_space<workgroup>>
      %mi = arith.index_cast %m : i64 to index
      %ni = arith.index_cast %n : i64 to index
      scf.for %e = %tid to %c512 step %c128 {
        %r = arith.divui %e, %c64 : index
        %c = arith.remui %e, %c64 : index
        %gr = arith.addi %row0, %r : index
        %gc = arith.addi %col0, %c : index
        %inr = arith.cmpi ult, %gr, %mi : index
        %inc = arith.cmpi ult, %gc, %ni : index
        %in = arith.andi %inr, %inc : i1
        scf.if %in {
          %v = memref.load %tile[%r, %c] : memref<8x64xf32, #gpu.address_space<workgroup>>
          %d = arith.addf %v, %v : f32
          %base = arith.muli %gr, %ni : index
          %idx = arith.addi %base, %gc : index
          memref.store %d, %out[%idx] : memref<?xf32>
        }
      }
      gpu.return
    }
  }
  gpu.module @plain {
    gpu.func @tma_double_plain(%x: memref<?xf32>, %out: memref<?xf32>, %m: i64, %n: i64, %s0: i64, %s1: i64) kernel {
      %c0 = arith.constant 0 : index
      %c8 = arith.constant 8 : index
      %c64 = arith.constant 64 : index
      %c128 = arith.constant 128 : index
      %c512 = arith.constant 512 : index
      %tid = gpu.thread_id x
      %bx = gpu.block_id x
      %by = gpu.block_id y
      %row0 = arith.muli %by, %c8 : index
      %col0 = arith.muli %bx, %c64 : index
      %mi = arith.index_cast %m : i64 to index
      %ni = arith.index_cast %n : i64 to index
      %rs = arith.index_cast %s0 : i64 to index
      %cs = arith.index_cast %s1 : i64 to index
      scf.for %e = %tid to %c512 step %c128 {
        %r = arith.divui %e, %c64 : index
        %c = arith.remui %e, %c64 : index
        %gr = arith.addi %row0, %r : index
        %gc = arith.addi %col0, %c : index
        %inr = arith.cmpi ult, %gr, %mi : index
        %inc = arith.cmpi ult, %gc, %ni : index
        %in = arith.andi %inr, %inc : i1
        scf.if %in {
          %xr = arith.muli %gr, %rs : index
          %xc = arith.muli %gc, %cs : index
          %xi = arith.addi %xr, %xc : index
          %v = memref.load %x[%xi] : memref<?xf32>
          %d = arith.addf %v, %v : f32
          %base = arith.muli %gr, %ni : index
          %idx = arith.addi %base, %gc : index
          memref.store %d, %out[%idx] : memref<?xf32>
        }
      }
      gpu.return
    }
  }
}
