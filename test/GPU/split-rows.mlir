// REQUIRES: cuda
// Few long rows with per-row results (Note [Split rows]): each row is split
// over several 512-thread blocks (grid y); every block folds its span, the
// last block of a row folds the spans' states (sum, Welford var_mean,
// online max + sum of exp for logsumexp) and writes the row's result.
// Against the reference interpreter: 1, 2, 3 and 7 rows, rows of 4097 to
// 2^22 elements, bf16/f16/f32/f64/i32, a fused prologue, keepdim and rank
// 3, strided, transposed and misaligned inputs (the scalar split variant),
// and shapes that must not split (many rows, short rows). f32 sums
// accumulate in f32 in another order than the interpreter's f64: checked
// with an absolute tolerance that grows with the row.

// RUN: fusion-run %s --fusion=sum_f32 --atol=2e-2 --input=1x4194304 | FileCheck %s --check-prefix=HUGE
// HUGE: PASS sum_f32 1x4194304xf32 {{.*}}variant=sum_f32_k0_gv4_i32
// RUN: fusion-run %s --fusion=sum_f32 --atol=1e-3 --input=3x100003 | FileCheck %s --check-prefix=ODD
// ODD: PASS sum_f32 3x100003xf32 {{.*}}variant=sum_f32_k0_gs_i32
// RUN: fusion-run %s --fusion=sum_f32 --atol=1e-3 --input=2x65536 | FileCheck %s --check-prefix=VEC
// VEC: PASS sum_f32 2x65536xf32 {{.*}}variant=sum_f32_k0_gv4_i32
// RUN: fusion-run %s --fusion=sum_f32 --atol=1e-3 --input=200x20000 | FileCheck %s --check-prefix=SOME
// SOME: PASS sum_f32 200x20000xf32 {{.*}}variant=sum_f32_k0_gv4_i32
// RUN: fusion-run %s --fusion=sum_f32 --atol=1e-3 --input=3x100003 --layout=0:strided | FileCheck %s --check-prefix=STRIDED
// STRIDED: PASS sum_f32 3x100003xf32 {{.*}}variant=sum_f32_k0_gs_i32
// RUN: fusion-run %s --fusion=sum_f32 --atol=1e-3 --input=7x4096 --layout=0:transposed | FileCheck %s --check-prefix=TRANSPOSED
// TRANSPOSED: PASS sum_f32 7x4096xf32 {{.*}}variant=sum_f32_k0_gs_i32
// RUN: fusion-run %s --fusion=sum_f32 --atol=1e-3 --input=2x65536 --misalign | FileCheck %s --check-prefix=MISALIGNED
// MISALIGNED: PASS sum_f32 2x65536xf32 {{.*}}variant=sum_f32_k0_gs_i32
// Not split: many rows, or rows within one chunk.
// RUN: fusion-run %s --fusion=sum_f32 --atol=1e-3 --input=1000x20000 | FileCheck %s --check-prefix=MANY
// MANY: PASS sum_f32 1000x20000xf32 {{.*}}variant=sum_f32_k0_v4_i32
// RUN: fusion-run %s --fusion=sum_f32 --atol=1e-3 --input=3x2000 | FileCheck %s --check-prefix=SHORT
// SHORT: PASS sum_f32 3x2000xf32 {{.*}}variant=sum_f32_k0_v4_i32
// RUN: fusion-run %s --fusion=var_mean_bf16 --atol=1e-3 --input=1x4194304 | FileCheck %s --check-prefix=VM
// VM: PASS var_mean_bf16 1x4194304xbf16 {{.*}}variant=var_mean_bf16_k0_gv8_i32
// RUN: fusion-run %s --fusion=var_mean_bf16 --atol=1e-3 --input=3x100003 | FileCheck %s --check-prefix=VMODD
// VMODD: PASS var_mean_bf16 3x100003xbf16 {{.*}}variant=var_mean_bf16_k0_gs_i32
// RUN: fusion-run %s --fusion=logsumexp_f32 --atol=1e-3 --input=2x1000003 | FileCheck %s --check-prefix=LSE
// LSE: PASS logsumexp_f32 2x1000003xf32 {{.*}}variant=logsumexp_f32_k0_gs_i32
// RUN: fusion-run %s --fusion=logsumexp_f32 --atol=1e-3 --input=1x262144 | FileCheck %s --check-prefix=LSEV
// LSEV: PASS logsumexp_f32 1x262144xf32 {{.*}}variant=logsumexp_f32_k0_gv4_i32
// RUN: fusion-run %s --fusion=max_keepdim_f16 --input=2x3x50000 | FileCheck %s --check-prefix=MAX3
// MAX3: PASS max_keepdim_f16 2x3x50000xf16 {{.*}}variant=max_keepdim_f16_k0_gv8_i32
// RUN: fusion-run %s --fusion=min_f64 --input=1x100001 | FileCheck %s --check-prefix=MIN
// MIN: PASS min_f64 1x100001xf64 {{.*}}variant=min_f64_k0_gs_i32
// RUN: fusion-run %s --fusion=sum_i32 --input=3x300007 | FileCheck %s --check-prefix=INT
// INT: PASS sum_i32 3x300007xi32 max_abs_err=0 {{.*}}variant=sum_i32_k0_gs_i32

fusion.fusion @sum_f32(%x: tensor<?x?xf32>) -> tensor<?xf32> {
  %0 = fusion.sum %x [1] : tensor<?x?xf32> -> tensor<?xf32>
  fusion.return %0 : tensor<?xf32>
}

fusion.fusion @var_mean_bf16(%x: tensor<?x?xbf16>) -> (tensor<?xf32>, tensor<?xf32>) {
  %xf = fusion.cast %x : tensor<?x?xbf16> to tensor<?x?xf32>
  %v, %m = fusion.var_mean %xf [1] correction = 1 : tensor<?x?xf32> -> tensor<?xf32>
  fusion.return %v, %m : tensor<?xf32>, tensor<?xf32>
}

// log(sum(exp(x - max))) + max: one online state per row.
fusion.fusion @logsumexp_f32(%x: tensor<?x?xf32>) -> tensor<?xf32> {
  %d0 = fusion.dim %x, 0 : tensor<?x?xf32>
  %d1 = fusion.dim %x, 1 : tensor<?x?xf32>
  %m = fusion.max %x [1] : tensor<?x?xf32> -> tensor<?xf32>
  %mb = fusion.broadcast_in_dim %m [0] (%d0, %d1) : tensor<?xf32> -> tensor<?x?xf32>
  %c = fusion.sub %x, %mb : tensor<?x?xf32>
  %e = fusion.exp %c : tensor<?x?xf32>
  %s = fusion.sum %e [1] : tensor<?x?xf32> -> tensor<?xf32>
  %l = fusion.log %s : tensor<?xf32>
  %r = fusion.add %l, %m : tensor<?xf32>
  fusion.return %r : tensor<?xf32>
}

fusion.fusion @max_keepdim_f16(%x: tensor<?x?x?xf16>) -> tensor<?x?x1xf16> {
  %0 = fusion.max %x [2] keepdim : tensor<?x?x?xf16> -> tensor<?x?x1xf16>
  fusion.return %0 : tensor<?x?x1xf16>
}

fusion.fusion @min_f64(%x: tensor<?x?xf64>) -> tensor<?xf64> {
  %0 = fusion.min %x [1] : tensor<?x?xf64> -> tensor<?xf64>
  fusion.return %0 : tensor<?xf64>
}

fusion.fusion @sum_i32(%x: tensor<?x?xi32>) -> tensor<?xi32> {
  %0 = fusion.sum %x [1] : tensor<?x?xi32> -> tensor<?xi32>
  fusion.return %0 : tensor<?xi32>
}
