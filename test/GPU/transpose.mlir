// REQUIRES: cuda
// fusion.set of a permute: the transposed tensor written by a kernel into
// new contiguous memory (a permute alone would be a view), odd sizes, rank 3;
// the tiled variant (64 x 64 tiles by default).

// RUN: fusion-run %s --fusion=transpose_bf16 --input=33x1000 | FileCheck %s --check-prefix=T2
// T2: PASS transpose_bf16 33x1000xbf16 max_abs_err=0 {{.*}}variant=transpose_bf16_k0_t64_i32
// RUN: fusion-run %s --fusion=transpose_bf16 --input=4096x4096 | FileCheck %s --check-prefix=TSQ
// TSQ: PASS transpose_bf16 4096x4096xbf16 max_abs_err=0 {{.*}}variant=transpose_bf16_k0_t64x2_i32
// Pairs (Note [Transpose pairs]) with partial tiles; not for a misaligned
// input, rows of odd stride or an odd size.
// RUN: fusion-run %s --fusion=transpose_bf16 --input=130x1002 | FileCheck %s --check-prefix=TP
// TP: PASS transpose_bf16 130x1002xbf16 max_abs_err=0 {{.*}}variant=transpose_bf16_k0_t64x2_i32
// RUN: fusion-run %s --fusion=transpose_bf16 --input=130x1002 --misalign | FileCheck %s --check-prefix=TMIS
// TMIS: PASS transpose_bf16 130x1002xbf16 max_abs_err=0 {{.*}}variant=transpose_bf16_k0_t64_i32
// RUN: fusion-run %s --fusion=transpose_bf16 --input=130x1002 --layout=0:strided | FileCheck %s --check-prefix=TSTR
// TSTR: PASS transpose_bf16 130x1002xbf16 max_abs_err=0 {{.*}}variant=transpose_bf16_k0_t64_i32
// RUN: fusion-run %s --fusion=transpose_bf16 --input=130x1001 | FileCheck %s --check-prefix=TODD
// TODD: PASS transpose_bf16 130x1001xbf16 max_abs_err=0 {{.*}}variant=transpose_bf16_k0_t64_i32
// x^T + y + b: y and the row vector b are read along the output's rows in
// pairs too.
// RUN: fusion-run %s --fusion=transpose_add_bf16 --input=66x130 --input=130x66 --input=66 | FileCheck %s --check-prefix=TADD
// TADD: PASS transpose_add_bf16 66x130xbf16,130x66xbf16,66xbf16 {{.*}}variant=transpose_add_bf16_k0_t64x2_i32
// RUN: fusion-run %s --fusion=transpose_add_bf16 --input=66x130 --input=130x66 --input=66 --layout=1:strided | FileCheck %s --check-prefix=TADDS
// TADDS: PASS transpose_add_bf16 66x130xbf16,130x66xbf16,66xbf16 {{.*}}variant=transpose_add_bf16_k0_t64_i32
// RUN: fusion-run %s --fusion=permute3_f16 --input=3x100x66 | FileCheck %s --check-prefix=T3H
// T3H: PASS permute3_f16 3x100x66xf16 max_abs_err=0 {{.*}}variant=permute3_f16_k0_t64x2_i32
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

fusion.fusion @transpose_add_bf16(%x: tensor<?x?xbf16>, %y: tensor<?x?xbf16>, %b: tensor<?xbf16>) -> tensor<?x?xbf16> {
  %0 = fusion.permute %x [1, 0] : tensor<?x?xbf16> -> tensor<?x?xbf16>
  %1 = fusion.add %0, %y : tensor<?x?xbf16>
  %d0 = fusion.dim %y, 0 : tensor<?x?xbf16>
  %d1 = fusion.dim %y, 1 : tensor<?x?xbf16>
  %2 = fusion.broadcast_in_dim %b [1](%d0, %d1) : tensor<?xbf16> -> tensor<?x?xbf16>
  %3 = fusion.add %1, %2 : tensor<?x?xbf16>
  fusion.return %3 : tensor<?x?xbf16>
}

fusion.fusion @permute3_f16(%x: tensor<?x?x?xf16>) -> tensor<?x?x?xf16> {
  %0 = fusion.permute %x [0, 2, 1] : tensor<?x?x?xf16> -> tensor<?x?x?xf16>
  %1 = fusion.set %0 : tensor<?x?x?xf16>
  fusion.return %1 : tensor<?x?x?xf16>
}
