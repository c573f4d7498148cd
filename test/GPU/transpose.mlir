// REQUIRES: cuda
// fusion.set of a permute: the transposed tensor written by a kernel into
// new contiguous memory (a permute alone would be a view), odd sizes, rank 3;
// the tiled variant (64 x 64 tiles by default).

// RUN: fusion-run %s --fusion=transpose_bf16 --input=33x1000 | FileCheck %s --check-prefix=T2
// T2: PASS transpose_bf16 33x1000xbf16 max_abs_err=0 {{.*}}variant=transpose_bf16_k0_t64_i32
// RUN: fusion-run %s --fusion=transpose_bf16 --input=4096x4096 | FileCheck %s --check-prefix=TSQ
// TSQ: PASS transpose_bf16 4096x4096xbf16 max_abs_err=0 {{.*}}variant=transpose_bf16_k0_t64_i32
// RUN: fusion-run %s --fusion=permute3_f32 --input=5x7x9 | FileCheck %s --check-prefix=T3
// T3: PASS permute3_f32 5x7x9xf32 max_abs_err=0 {{.*}}variant=permute3_f32_k0_t64_i32
// RUN: fusion-run %s --fusion=batched_add_f32 --input=3x100x67 --input=3x67x100 | FileCheck %s --check-prefix=BATCH
// BATCH: PASS batched_add_f32 3x100x67xf32,3x67x100xf32 max_abs_err=0 {{.*}}variant=batched_add_f32_k0_t64_i32
// RUN: fusion-run %s --fusion=batched_add_f32 --input=3x100x67 --input=3x67x100 --layout=1:transposed | FileCheck %s --check-prefix=BATCHT
// BATCHT: PASS batched_add_f32 3x100x67xf32,3x67x100xf32 max_abs_err=0

fusion.fusion @transpose_bf16(%x: tensor<?x?xbf16>) -> tensor<?x?xbf16> {
  %0 = fusion.permute %x [1, 0] : tensor<?x?xbf16> -> tensor<?x?xbf16>
  %1 = fusion.set %0 : tensor<?x?xbf16>
  fusion.return %1 : tensor<?x?xbf16>
}

fusion.fusion @permute3_f32(%x: tensor<?x?x?xf32>) -> tensor<?x?x?xf32> {
  %0 = fusion.permute %x [2, 0, 1] : tensor<?x?x?xf32> -> tensor<?x?x?xf32>
  %1 = fusion.set %0 : tensor<?x?x?xf32>
  fusion.return %1 : tensor<?x?x?xf32>
}

// x + y^T per batch: y is staged, x is read directly.
fusion.fusion @batched_add_f32(%x: tensor<?x?x?xf32>, %y: tensor<?x?x?xf32>) -> tensor<?x?x?xf32> {
  %0 = fusion.permute %y [0, 2, 1] : tensor<?x?x?xf32> -> tensor<?x?x?xf32>
  %1 = fusion.add %x, %0 : tensor<?x?x?xf32>
  fusion.return %1 : tensor<?x?x?xf32>
}
