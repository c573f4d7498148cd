// REQUIRES: cuda
// Outer reductions (leading dims) on the GPU against the reference
// interpreter: one block per column group or a split over several blocks
// with the grid reduction (workspace + counter), odd sizes, vectorized and
// scalar variants, strided/transposed/misaligned inputs, several results,
// an epilogue, integers, empty dims. f32 sums accumulate in f32 in another
// order than the interpreter's f64: checked with an absolute tolerance that
// grows with the number of rows.

// RUN: fusion-run %s --fusion=colsum_f32 --atol=1e-3 --input=1x1 | FileCheck %s --check-prefix=ONE
// ONE: PASS colsum_f32 1x1xf32 {{.*}}variant=colsum_f32_k0_s_i32
// RUN: fusion-run %s --fusion=colsum_f32 --atol=1e-3 --input=3x31 | FileCheck %s --check-prefix=ODD
// ODD: PASS colsum_f32 3x31xf32
// RUN: fusion-run %s --fusion=colsum_f32 --atol=1e-2 --input=65537x8 | FileCheck %s --check-prefix=MANYROWS
// MANYROWS: PASS colsum_f32 65537x8xf32 {{.*}}variant=colsum_f32_k0_v4_i32
// RUN: fusion-run %s --fusion=colsum_f32 --atol=1e-3 --input=1000x1000 | FileCheck %s --check-prefix=SQUARE
// SQUARE: PASS colsum_f32 1000x1000xf32 {{.*}}variant=colsum_f32_k0_v4_i32
// RUN: fusion-run %s --fusion=colsum_f32 --atol=1e-3 --input=7x4097 | FileCheck %s --check-prefix=WIDE
// WIDE: PASS colsum_f32 7x4097xf32 {{.*}}variant=colsum_f32_k0_s_i32
// RUN: fusion-run %s --fusion=colsum_f32 --atol=1e-2 --input=100003x3 | FileCheck %s --check-prefix=TALL
// TALL: PASS colsum_f32 100003x3xf32 {{.*}}variant=colsum_f32_k0_s_i32
// RUN: fusion-run %s --fusion=colsum_f32 --atol=1e-2 --input=32768x1024 | FileCheck %s --check-prefix=SPLIT
// SPLIT: PASS colsum_f32 32768x1024xf32 {{.*}}variant=colsum_f32_k0_v4_i32
// RUN: fusion-run %s --fusion=colsum_f32 --atol=1e-3 --input=1000x1000 --layout=0:strided | FileCheck %s --check-prefix=STRIDED
// STRIDED: PASS colsum_f32 1000x1000xf32
// RUN: fusion-run %s --fusion=colsum_f32 --atol=1e-3 --input=1000x1000 --layout=0:transposed | FileCheck %s --check-prefix=TRANSPOSED
// TRANSPOSED: PASS colsum_f32 1000x1000xf32 {{.*}}variant=colsum_f32_k0_s_i32
// RUN: fusion-run %s --fusion=colsum_f32 --atol=1e-3 --input=1000x1000 --misalign | FileCheck %s --check-prefix=MISALIGNED
// MISALIGNED: PASS colsum_f32 1000x1000xf32 {{.*}}variant=colsum_f32_k0_s_i32
// RUN: fusion-run %s --fusion=colsum_f32 --input=0x5 | FileCheck %s --check-prefix=EMPTY
// EMPTY: PASS colsum_f32 0x5xf32
// RUN: fusion-run %s --fusion=sum01_keepdim_f64 --input=5x6x7 | FileCheck %s --check-prefix=RANK3
// RANK3: PASS sum01_keepdim_f64 5x6x7xf64
// RUN: fusion-run %s --fusion=max_exp_bf16 --input=4099x520 | FileCheck %s --check-prefix=MAXEXP
// MAXEXP: PASS max_exp_bf16 4099x520xbf16 {{.*}}variant=max_exp_bf16_k0_v8_i32
// RUN: fusion-run %s --fusion=sum_max_f32 --atol=1e-2 --input=20000x257 | FileCheck %s --check-prefix=TWO
// TWO: PASS sum_max_f32 20000x257xf32
// RUN: fusion-run %s --fusion=colsum_i32 --input=3001x77 | FileCheck %s --check-prefix=INT
// INT: PASS colsum_i32 3001x77xi32 max_abs_err=0

fusion.fusion @colsum_f32(%x: tensor<?x?xf32>) -> tensor<?xf32> {
  %0 = fusion.sum %x [0] : tensor<?x?xf32> -> tensor<?xf32>
  fusion.return %0 : tensor<?xf32>
}

fusion.fusion @sum01_keepdim_f64(%x: tensor<?x?x?xf64>) -> tensor<1x1x?xf64> {
  %0 = fusion.sum %x [0, 1] keepdim : tensor<?x?x?xf64> -> tensor<1x1x?xf64>
  fusion.return %0 : tensor<1x1x?xf64>
}

fusion.fusion @max_exp_bf16(%x: tensor<?x?xbf16>) -> tensor<?xbf16> {
  %0 = fusion.max %x [0] : tensor<?x?xbf16> -> tensor<?xbf16>
  %1 = fusion.exp %0 : tensor<?xbf16>
  fusion.return %1 : tensor<?xbf16>
}

fusion.fusion @sum_max_f32(%x: tensor<?x?xf32>) -> (tensor<?xf32>, tensor<1x?xf32>) {
  %0 = fusion.sum %x [0] : tensor<?x?xf32> -> tensor<?xf32>
  %1 = fusion.max %x [0] keepdim : tensor<?x?xf32> -> tensor<1x?xf32>
  fusion.return %0, %1 : tensor<?xf32>, tensor<1x?xf32>
}

fusion.fusion @colsum_i32(%x: tensor<?x?xi32>) -> tensor<?xi32> {
  %0 = fusion.sum %x [0] : tensor<?x?xi32> -> tensor<?xi32>
  fusion.return %0 : tensor<?xi32>
}
