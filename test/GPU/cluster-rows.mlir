// REQUIRES: cuda
// Few long rows with per-element results split over thread block clusters
// (Note [Cluster rows] in lib/Conversion/FusionToGPU/InnerReduction.cpp,
// --inner-cluster=8): each block of a row's cluster streams its span, the
// blocks' states meet through distributed shared memory after every pass
// (online max + sum of exp, Welford, sums), and each block writes its span.
// Against the reference interpreter: clusters of 8, 4 and 2, bf16, f16,
// f32 and f64, rank 3, results per row beside results per element; and the
// shapes that must keep the plain variants (many rows, odd rows,
// misaligned, a row of one chunk). Rows that the cluster persistent
// variant would take in one wave go to it (Note [Cluster rows or cluster
// persistent rows]): those runs set --inner-long-cluster=0 to test this
// variant. The definitions are those of normalization.mlir.

// RUN: fusion-run %S/normalization.mlir --fusion=softmax_bf16 --inner-cluster=8 --input=16x1000000 | FileCheck %s --check-prefix=SM16
// SM16: PASS softmax_bf16 16x1000000xbf16 {{.*}}variant=softmax_bf16_k0_cv8_i32
// RUN: fusion-run %S/normalization.mlir --fusion=softmax_f32 --inner-cluster=8 --input=3x200000 | FileCheck %s --check-prefix=SMF
// SMF: PASS softmax_f32 3x200000xf32 {{.*}}variant=softmax_f32_k0_cv4_i32
// RUN: fusion-run %S/normalization.mlir --fusion=log_softmax_f16 --inner-cluster=8 --inner-long-cluster=0 --input=2x3x100000 | FileCheck %s --check-prefix=LSM
// LSM: PASS log_softmax_f16 2x3x100000xf16 {{.*}}variant=log_softmax_f16_k0_cv8_i32
// RUN: fusion-run %S/normalization.mlir --fusion=layernorm_bf16 --inner-cluster=8 --input=40x200000 --input=200000 --input=200000 | FileCheck %s --check-prefix=LN
// LN: PASS layernorm_bf16 40x200000xbf16,200000xbf16,200000xbf16 {{.*}}variant=layernorm_bf16_k0_cv8_i32
// RUN: fusion-run %S/normalization.mlir --fusion=layernorm_f64 --inner-cluster=4 --inner-long-cluster=0 --input=2x100000 --input=100000 --input=100000 | FileCheck %s --check-prefix=LN64
// LN64: PASS layernorm_f64 2x100000xf64,100000xf64,100000xf64 {{.*}}variant=layernorm_f64_k0_cv2_i32
// RUN: fusion-run %S/normalization.mlir --fusion=rmsnorm_bf16 --inner-cluster=8 --inner-long-cluster=0 --input=7x65536 --input=65536 | FileCheck %s --check-prefix=RMS
// RMS: PASS rmsnorm_bf16 7x65536xbf16,65536xbf16 {{.*}}variant=rmsnorm_bf16_k0_cv8_i32
// RUN: fusion-run %S/normalization.mlir --fusion=stats_f32 --inner-cluster=2 --inner-long-cluster=0 --atol=1e-3 --input=5x50000 | FileCheck %s --check-prefix=STATS
// STATS: PASS stats_f32 5x50000xf32 {{.*}}variant=stats_f32_k0_cv4_i32
// NaN rows: a max per row beside the softmax (NaN propagates across the
// cluster's blocks as within a block).
// RUN: fusion-run %S/normalization.mlir --fusion=nan_rows --inner-cluster=8 --inner-long-cluster=0 --input=4x40000 | FileCheck %s --check-prefix=NAN
// NAN: PASS nan_rows 4x40000xf32 {{.*}}variant=nan_rows_k0_cv4_i32
// The other variants: many rows (kept by a cluster's blocks in registers,
// Note [Cluster persistent rows], or streamed without that variant), an
// odd row, a misaligned buffer, one chunk.
// RUN: fusion-run %S/normalization.mlir --fusion=softmax_bf16 --inner-cluster=8 --input=200x100000 | FileCheck %s --check-prefix=MANY
// MANY: PASS softmax_bf16 200x100000xbf16 {{.*}}variant=softmax_bf16_k0_cpv8_i32
// RUN: fusion-run %S/normalization.mlir --fusion=softmax_bf16 --inner-cluster=8 --inner-long-cluster=0 --input=200x100000 | FileCheck %s --check-prefix=MANYSTREAM
// MANYSTREAM: PASS softmax_bf16 200x100000xbf16 {{.*}}variant=softmax_bf16_k0_v8_i32
// RUN: fusion-run %S/normalization.mlir --fusion=softmax_bf16 --inner-cluster=8 --input=4x100003 | FileCheck %s --check-prefix=ODD
// ODD: PASS softmax_bf16 4x100003xbf16 {{.*}}variant=softmax_bf16_k0_rv8_i32
// RUN: fusion-run %S/normalization.mlir --fusion=softmax_bf16 --inner-cluster=8 --input=4x100000 --misalign | FileCheck %s --check-prefix=MIS
// MIS: PASS softmax_bf16 4x100000xbf16 {{.*}}variant=softmax_bf16_k0_s_i32
// RUN: fusion-run %S/normalization.mlir --fusion=softmax_bf16 --inner-cluster=8 --input=4x16384 | FileCheck %s --check-prefix=ONE
// ONE: PASS softmax_bf16 4x16384xbf16 {{.*}}variant=softmax_bf16_k0_plv8_i32
// By default (no --inner-cluster) the variant takes few long rows too,
// clusters of up to 8:
// RUN: fusion-run %S/normalization.mlir --fusion=softmax_bf16 --input=16x1000000 | FileCheck %s --check-prefix=DEF
// DEF: PASS softmax_bf16 16x1000000xbf16 {{.*}}variant=softmax_bf16_k0_cv8_i32
// RUN: fusion-run %S/normalization.mlir --fusion=layernorm_bf16 --input=64x131072 --input=131072 --input=131072 | FileCheck %s --check-prefix=DEFLN
// DEFLN: PASS layernorm_bf16 64x131072xbf16,131072xbf16,131072xbf16 {{.*}}variant=layernorm_bf16_k0_cv8_i32
// RUN: fusion-run %S/normalization.mlir --fusion=rmsnorm_bf16 --input=66x20000 --input=20000 | FileCheck %s --check-prefix=DEFRMS
// DEFRMS: PASS rmsnorm_bf16 66x20000xbf16,20000xbf16 {{.*}}variant=rmsnorm_bf16_k0_cv8_i32
