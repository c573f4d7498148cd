// REQUIRES: cuda
// argmax/argmin on the GPU against the reference interpreter (Note [Arg
// reductions]): the inner-reduction kernels keep a (value, index) state per
// row; ties go to the first index, NaN beats any number (the first NaN
// wins). Few long rows split over blocks (`_g*` variants, Note [Split
// rows]) fold the blocks' (value, index) states. Rows of 1, 31, 1000, 4097 and 100003 elements, row counts of 1, 3
// and 65537, bf16 (many ties), f32, f64 and i32, a middle dim (a permuted,
// strided read), transposed and misaligned inputs, an argmax beside a
// softmax in one persistent kernel, NaN rows, and an empty dim (an error,
// as in the interpreter and PyTorch).

// RUN: fusion-run %s --fusion=argmax_bf16 --input=1x1 | FileCheck %s --check-prefix=ONE
// ONE: PASS argmax_bf16 1x1xbf16 {{.*}}variant=argmax_bf16_k0_s_i32
// RUN: fusion-run %s --fusion=argmax_bf16 --input=3x31 | FileCheck %s --check-prefix=ODD
// ODD: PASS argmax_bf16 3x31xbf16 {{.*}}variant=argmax_bf16_k0_rv8_i32
// RUN: fusion-run %s --fusion=argmax_bf16 --input=65537x8 | FileCheck %s --check-prefix=MANY
// MANY: PASS argmax_bf16 65537x8xbf16 {{.*}}variant=argmax_bf16_k0_v8_i32
// RUN: fusion-run %s --fusion=argmax_bf16 --input=1000x1000 | FileCheck %s --check-prefix=K1000
// K1000: PASS argmax_bf16 1000x1000xbf16 {{.*}}variant=argmax_bf16_k0_v8_i32
// RUN: fusion-run %s --fusion=argmax_bf16 --input=7x4097 | FileCheck %s --check-prefix=K4097
// K4097: PASS argmax_bf16 7x4097xbf16 {{.*}}variant=argmax_bf16_k0_gs_i32
// RUN: fusion-run %s --fusion=argmax_bf16 --input=3x100003 | FileCheck %s --check-prefix=LONG
// LONG: PASS argmax_bf16 3x100003xbf16 {{.*}}variant=argmax_bf16_k0_gs_i32
// RUN: fusion-run %s --fusion=argmax_bf16 --input=2x4194304 | FileCheck %s --check-prefix=HUGE
// HUGE: PASS argmax_bf16 2x4194304xbf16 {{.*}}variant=argmax_bf16_k0_gv8_i32
// RUN: fusion-run %s --fusion=argmax_bf16 --input=600x20000 | FileCheck %s --check-prefix=STREAM
// STREAM: PASS argmax_bf16 600x20000xbf16 {{.*}}variant=argmax_bf16_k0_v8_i32
// RUN: fusion-run %s --fusion=argmax_bf16 --input=1000x1024 --layout=0:transposed | FileCheck %s --check-prefix=T
// T: PASS argmax_bf16 1000x1024xbf16 {{.*}}variant=argmax_bf16_k0_cs_i32
// RUN: fusion-run %s --fusion=argmax_bf16 --input=1000x1024 --misalign | FileCheck %s --check-prefix=MIS
// MIS: PASS argmax_bf16 1000x1024xbf16 {{.*}}variant=argmax_bf16_k0_s_i32
// RUN: fusion-run %s --fusion=argmin_f32_keep --input=257x2048 | FileCheck %s --check-prefix=MINK
// MINK: PASS argmin_f32_keep 257x2048xf32 {{.*}}variant=argmin_f32_keep_k0_v4_i32
// RUN: fusion-run %s --fusion=argmax_f64 --input=100x333 | FileCheck %s --check-prefix=F64
// F64: PASS argmax_f64 100x333xf64 {{.*}}variant=argmax_f64_k0_rv2_i32
// RUN: fusion-run %s --fusion=argmin_i32 --input=300x1000 | FileCheck %s --check-prefix=I32
// I32: PASS argmin_i32 300x1000xi32 {{.*}}variant=argmin_i32_k0_v4_i32
// RUN: fusion-run %s --fusion=argmin_dim0 --input=1000x999 | FileCheck %s --check-prefix=DIM0
// DIM0: PASS argmin_dim0 1000x999xf32 {{.*}}variant=argmin_dim0_k0_v4_i32
// RUN: fusion-run %s --fusion=softmax_argmax --input=333x4096 | FileCheck %s --check-prefix=SMA
// SMA: PASS softmax_argmax 333x4096xbf16 {{.*}}variant=softmax_argmax_k0_pv8_i32
// RUN: fusion-run %s --fusion=nan_argmax --input=64x100 | FileCheck %s --check-prefix=NAN
// NAN: PASS nan_argmax 64x100xf32 {{.*}}variant=nan_argmax_k0_v4_i32
// RUN: fusion-run %s --fusion=argmax_1d --input=100003 | FileCheck %s --check-prefix=ONED
// ONED: PASS argmax_1d 100003xf32 {{.*}}variant=argmax_1d_k0_gs_i32
// keepdim over a leading and a middle dim: the permuted argmax, then a
// kernel that puts the size-1 dim back.
// RUN: fusion-run %s --fusion=argmin_lead_keep --input=1000x999 | FileCheck %s --check-prefix=LEADK
// LEADK: PASS argmin_lead_keep 1000x999xbf16 {{.*}}variant=argmin_lead_keep_k0_v8_i32,argmin_lead_keep_k1_s_i32
// RUN: fusion-run %s --fusion=argmax_middle_keep --input=9x500x24 | FileCheck %s --check-prefix=MIDK
// MIDK: PASS argmax_middle_keep 9x500x24xf32 {{.*}}variant=argmax_middle_keep_k0_v4_i32,argmax_middle_keep_k1_v2_i32
// RUN: not fusion-run %s --fusion=argmax_bf16 --input=5x0 2>&1 | FileCheck %s --check-prefix=EMPTY
// EMPTY: argmax over an empty dim: there is no extreme element

fusion.fusion @argmax_bf16(%x: tensor<?x?xbf16>) -> tensor<?xi64> {
  %0 = fusion.argmax %x dim = 1 : tensor<?x?xbf16> -> tensor<?xi64>
  fusion.return %0 : tensor<?xi64>
}

fusion.fusion @argmin_f32_keep(%x: tensor<?x?xf32>) -> tensor<?x1xi64> {
  %0 = fusion.argmin %x dim = 1 keepdim : tensor<?x?xf32> -> tensor<?x1xi64>
  fusion.return %0 : tensor<?x1xi64>
}

fusion.fusion @argmax_f64(%x: tensor<?x?xf64>) -> tensor<?xi64> {
  %0 = fusion.argmax %x dim = 1 : tensor<?x?xf64> -> tensor<?xi64>
  fusion.return %0 : tensor<?xi64>
}

fusion.fusion @argmin_i32(%x: tensor<?x?xi32>) -> tensor<?xi64> {
  %0 = fusion.argmin %x dim = 1 : tensor<?x?xi32> -> tensor<?xi64>
  fusion.return %0 : tensor<?xi64>
}

// Along the leading dim: a permuted view with that dim last.
fusion.fusion @argmin_dim0(%x: tensor<?x?xf32>) -> tensor<?xi64> {
  %0 = fusion.argmin %x dim = 0 : tensor<?x?xf32> -> tensor<?xi64>
  fusion.return %0 : tensor<?xi64>
}

// A per-element result and a per-row index from one kernel.
fusion.fusion @softmax_argmax(%x: tensor<?x?xbf16>) -> (tensor<?x?xbf16>, tensor<?xi64>) {
  %0 = fusion.softmax %x dim = 1 : tensor<?x?xbf16>
  %1 = fusion.argmax %x dim = 1 : tensor<?x?xbf16> -> tensor<?xi64>
  fusion.return %0, %1 : tensor<?x?xbf16>, tensor<?xi64>
}

// log of the negative inputs is NaN: most rows have several NaNs.
fusion.fusion @nan_argmax(%x: tensor<?x?xf32>) -> tensor<?xi64> {
  %l = fusion.log %x : tensor<?x?xf32>
  %0 = fusion.argmax %l dim = 1 : tensor<?x?xf32> -> tensor<?xi64>
  fusion.return %0 : tensor<?xi64>
}

// A whole 1-D tensor: one row, a 0-d result.
fusion.fusion @argmax_1d(%x: tensor<?xf32>) -> tensor<i64> {
  %0 = fusion.argmax %x dim = 0 : tensor<?xf32> -> tensor<i64>
  fusion.return %0 : tensor<i64>
}

fusion.fusion @argmin_lead_keep(%x: tensor<?x?xbf16>) -> tensor<1x?xi64> {
  %0 = fusion.argmin %x dim = 0 keepdim : tensor<?x?xbf16> -> tensor<1x?xi64>
  fusion.return %0 : tensor<1x?xi64>
}

fusion.fusion @argmax_middle_keep(%x: tensor<?x?x?xf32>) -> tensor<?x1x?xi64> {
  %0 = fusion.argmax %x dim = 1 keepdim : tensor<?x?x?xf32> -> tensor<?x1x?xi64>
  fusion.return %0 : tensor<?x1x?xi64>
}
