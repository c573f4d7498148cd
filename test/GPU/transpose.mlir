// REQUIRES: cuda
// fusion.set of a permute: the transposed tensor written by a kernel into
// new contiguous memory (a permute alone would be a view), odd sizes, rank 3.

// RUN: fusion-run %s --fusion=transpose_bf16 --input=33x1000 | FileCheck %s --check-prefix=T2
// T2: PASS transpose_bf16 33x1000xbf16 max_abs_err=0
// RUN: fusion-run %s --fusion=transpose_bf16 --input=4096x4096 | FileCheck %s --check-prefix=TSQ
// TSQ: PASS transpose_bf16 4096x4096xbf16 max_abs_err=0
// RUN: fusion-run %s --fusion=permute3_f32 --input=5x7x9 | FileCheck %s --check-prefix=T3
// T3: PASS permute3_f32 5x7x9xf32 max_abs_err=0

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
