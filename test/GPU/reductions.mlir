// REQUIRES: cuda
// Inner reductions on the GPU against the reference interpreter: odd row
// lengths and counts, the vectorized and scalar variants, bf16 inputs with
// a fused prologue, keepdim, rank 3, integers, non-contiguous inputs. f32
// sums accumulate in f32 in another order than the interpreter's f64, so
// their absolute error grows with the row (1.1e-5 at 1000 and 6.1e-5 at
// 16384 on the H200): they are checked with --atol=1e-3.

// RUN: fusion-run %s --fusion=sum_f32 --atol=1e-3 --input=1x1 | FileCheck %s --check-prefix=ONE
// ONE: PASS sum_f32 1x1xf32 {{.*}}variant=sum_f32_k0_s_i32
// RUN: fusion-run %s --fusion=sum_f32 --atol=1e-3 --input=3x31 | FileCheck %s --check-prefix=ODD
// ODD: PASS sum_f32 3x31xf32
// RUN: fusion-run %s --fusion=sum_f32 --atol=1e-3 --input=65537x8 | FileCheck %s --check-prefix=MANY
// MANY: PASS sum_f32 65537x8xf32 {{.*}}variant=sum_f32_k0_v4_i32
// RUN: fusion-run %s --fusion=sum_f32 --atol=1e-3 --input=7x4097 | FileCheck %s --check-prefix=LONG
// LONG: PASS sum_f32 7x4097xf32 {{.*}}variant=sum_f32_k0_gs_i32
// RUN: fusion-run %s --fusion=sum_f32 --atol=1e-3 --input=3x100004 | FileCheck %s --check-prefix=VERYLONG
// VERYLONG: PASS sum_f32 3x100004xf32 {{.*}}variant=sum_f32_k0_gv4_i32
// RUN: fusion-run %s --fusion=sum_f32 --atol=1e-3 --input=1000x1000 --layout=0:strided | FileCheck %s --check-prefix=STRIDED
// STRIDED: PASS sum_f32 1000x1000xf32 {{.*}}variant=sum_f32_k0_s_i32
// RUN: fusion-run %s --fusion=sum_f32 --atol=1e-3 --input=1000x1000 --layout=0:transposed | FileCheck %s --check-prefix=TRANSPOSED
// TRANSPOSED: PASS sum_f32 1000x1000xf32
// Transposed rows with 8 and 16 threads per row (Note [Column-major rows]:
// a warp reads neighbouring rows), an odd row count and column count.
// RUN: fusion-run %s --fusion=sum_f32 --atol=1e-3 --input=65536x64 --layout=0:transposed | FileCheck %s --check-prefix=TRANSPOSED8
// TRANSPOSED8: PASS sum_f32 65536x64xf32 {{.*}}variant=sum_f32_k0_cs_i32
// RUN: fusion-run %s --fusion=sum_f32 --atol=1e-3 --input=4097x1000 --layout=0:transposed | FileCheck %s --check-prefix=TRANSPOSED16
// TRANSPOSED16: PASS sum_f32 4097x1000xf32 {{.*}}variant=sum_f32_k0_cs_i32
// RUN: fusion-run %s --fusion=sum_f32 --atol=1e-3 --input=1000x1000 --misalign | FileCheck %s --check-prefix=MISALIGNED
// MISALIGNED: PASS sum_f32 1000x1000xf32 {{.*}}variant=sum_f32_k0_s_i32
// RUN: fusion-run %s --fusion=max_exp_bf16 --input=333x4096 | FileCheck %s --check-prefix=MAX
// MAX: PASS max_exp_bf16 333x4096xbf16 {{.*}}variant=max_exp_bf16_k0_v8_i32
// RUN: fusion-run %s --fusion=min_keepdim_f64 --input=5x6x7 | FileCheck %s --check-prefix=MIN
// MIN: PASS min_keepdim_f64 5x6x7xf64
// RUN: fusion-run %s --fusion=prod_f32 --input=100x9 | FileCheck %s --check-prefix=PROD
// PROD: PASS prod_f32 100x9xf32
// RUN: fusion-run %s --fusion=sum_i32 --input=77x1001 | FileCheck %s --check-prefix=INT
// INT: PASS sum_i32 77x1001xi32 max_abs_err=0

fusion.fusion @sum_f32(%x: tensor<?x?xf32>) -> tensor<?xf32> {
  %0 = fusion.sum %x [1] : tensor<?x?xf32> -> tensor<?xf32>
  fusion.return %0 : tensor<?xf32>
}

fusion.fusion @max_exp_bf16(%x: tensor<?x?xbf16>) -> tensor<?xbf16> {
  %e = fusion.exp %x : tensor<?x?xbf16>
  %0 = fusion.max %e [1] : tensor<?x?xbf16> -> tensor<?xbf16>
  fusion.return %0 : tensor<?xbf16>
}

fusion.fusion @min_keepdim_f64(%x: tensor<?x?x?xf64>) -> tensor<?x?x1xf64> {
  %0 = fusion.min %x [2] keepdim : tensor<?x?x?xf64> -> tensor<?x?x1xf64>
  fusion.return %0 : tensor<?x?x1xf64>
}

fusion.fusion @prod_f32(%x: tensor<?x?xf32>) -> tensor<?xf32> {
  %0 = fusion.prod %x [1] : tensor<?x?xf32> -> tensor<?xf32>
  fusion.return %0 : tensor<?xf32>
}

fusion.fusion @sum_i32(%x: tensor<?x?xi32>) -> tensor<?xi32> {
  %0 = fusion.sum %x [1] : tensor<?x?xi32> -> tensor<?xi32>
  fusion.return %0 : tensor<?xi32>
}
