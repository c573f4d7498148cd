// REQUIRES: cuda
// Rows longer than the persistent variants hold in one block, split over a
// thread block cluster whose blocks each keep their span in registers
// (Note [Cluster persistent rows] in
// lib/Conversion/FusionToGPU/InnerReduction.cpp; on by default, clusters of
// up to 8 blocks): the blocks' states meet through distributed shared
// memory after every pass (online max + sum of exp, Welford, sums, a max
// beside them), through mbarriers (Note [Cluster reductions through
// mbarriers]); runs of 66 rows or fewer set --inner-cluster=0, as such few
// long rows take the cluster rows variant by default (Note [Cluster rows]);
// clusters loop over rows with the next row prefetched. Against the
// reference interpreter: clusters of 2, 4 and 8, blocks of fewer than 512
// threads, rows staged in shared memory and in registers, bf16, f16, f32
// and f64, rank 3, results per row beside results per element, more rows
// than clusters, a smaller cluster limit; and the shapes that keep the other
// variants (rows the persistent variants hold, odd and misaligned rows,
// rows longer than 8 blocks hold). The definitions are those of
// normalization.mlir and staged-rows.mlir.

// RUN: fusion-run %S/normalization.mlir --fusion=softmax_bf16 --input=300x40000 | FileCheck %s --check-prefix=SM40K
// SM40K: PASS softmax_bf16 300x40000xbf16 {{.*}}variant=softmax_bf16_k0_cpv8_i32
// RUN: fusion-run %S/normalization.mlir --fusion=softmax_bf16 --inner-cluster=0 --inner-stage=0 --input=65x65536 | FileCheck %s --check-prefix=SMREG
// SMREG: PASS softmax_bf16 65x65536xbf16 {{.*}}variant=softmax_bf16_k0_cpv8_i32
// RUN: fusion-run %S/normalization.mlir --fusion=softmax_bf16 --inner-cluster=0 --input=9x131072 | FileCheck %s --check-prefix=SM8
// SM8: PASS softmax_bf16 9x131072xbf16 {{.*}}variant=softmax_bf16_k0_cpv8_i32
// RUN: fusion-run %S/normalization.mlir --fusion=softmax_bf16 --blocks-per-sm=1 --input=500x65536 | FileCheck %s --check-prefix=SMMANY
// SMMANY: PASS softmax_bf16 500x65536xbf16 {{.*}}variant=softmax_bf16_k0_cpv8_i32
// RUN: fusion-run %S/normalization.mlir --fusion=softmax_f32 --inner-cluster=0 --input=33x20000 | FileCheck %s --check-prefix=SMF
// SMF: PASS softmax_f32 33x20000xf32 {{.*}}variant=softmax_f32_k0_cpv4_i32
// RUN: fusion-run %S/normalization.mlir --fusion=softmax_f32 --inner-cluster=0 --inner-long-cluster=2 --input=5x40000 | FileCheck %s --check-prefix=SMF2
// SMF2: PASS softmax_f32 5x40000xf32 {{.*}}variant=softmax_f32_k0_v4_i32
// RUN: fusion-run %S/normalization.mlir --fusion=log_softmax_f16 --inner-cluster=0 --input=2x3x40000 | FileCheck %s --check-prefix=LSM
// LSM: PASS log_softmax_f16 2x3x40000xf16 {{.*}}variant=log_softmax_f16_k0_cpv8_i32
// RUN: fusion-run %S/normalization.mlir --fusion=layernorm_bf16 --input=100x40000 --input=40000 --input=40000 | FileCheck %s --check-prefix=LN
// LN: PASS layernorm_bf16 100x40000xbf16,40000xbf16,40000xbf16 {{.*}}variant=layernorm_bf16_k0_cpv8_i32
// RUN: fusion-run %S/normalization.mlir --fusion=layernorm_bf16 --inner-cluster=0 --input=7x32776 --input=32776 --input=32776 | FileCheck %s --check-prefix=LN288
// LN288: PASS layernorm_bf16 7x32776xbf16,32776xbf16,32776xbf16 {{.*}}variant=layernorm_bf16_k0_cpv8_i32
// RUN: fusion-run %S/normalization.mlir --fusion=layernorm_bf16 --inner-cluster=0 --input=64x65536 --input=65536 --input=65536 | FileCheck %s --check-prefix=LN4
// LN4: PASS layernorm_bf16 64x65536xbf16,65536xbf16,65536xbf16 {{.*}}variant=layernorm_bf16_k0_cpv8_i32
// RUN: fusion-run %S/normalization.mlir --fusion=layernorm_f64 --inner-cluster=0 --input=5x20000 --input=20000 --input=20000 | FileCheck %s --check-prefix=LN64
// LN64: PASS layernorm_f64 5x20000xf64,20000xf64,20000xf64 {{.*}}variant=layernorm_f64_k0_cpv2_i32
// RUN: fusion-run %S/normalization.mlir --fusion=rmsnorm_bf16 --inner-cluster=0 --input=33x65536 --input=65536 | FileCheck %s --check-prefix=RMS
// RMS: PASS rmsnorm_bf16 33x65536xbf16,65536xbf16 {{.*}}variant=rmsnorm_bf16_k0_cpv8_i32
// RUN: fusion-run %S/staged-rows.mlir --fusion=add_rmsnorm_bf16 --inner-cluster=0 --input=20x49152 --input=20x49152 --input=49152 | FileCheck %s --check-prefix=ADDRMS
// ADDRMS: PASS add_rmsnorm_bf16 20x49152xbf16,20x49152xbf16,49152xbf16 {{.*}}variant=add_rmsnorm_bf16_k0_cpv8_i32
// RUN: fusion-run %S/normalization.mlir --fusion=stats_f32 --inner-cluster=0 --atol=1e-3 --input=5x50000 | FileCheck %s --check-prefix=STATS
// STATS: PASS stats_f32 5x50000xf32 {{.*}}variant=stats_f32_k0_cpv4_i32
// RUN: fusion-run %S/normalization.mlir --fusion=nan_rows --inner-cluster=0 --input=4x40000 | FileCheck %s --check-prefix=NAN
// NAN: PASS nan_rows 4x40000xf32 {{.*}}variant=nan_rows_k0_cpv4_i32
// RUN: fusion-run %S/staged-rows.mlir --fusion=masked_softmax --inner-cluster=0 --input=30x40000 --input=30x40000 | FileCheck %s --check-prefix=MASKED
// MASKED: PASS masked_softmax 30x40000xf32,30x40000xi1 {{.*}}variant=masked_softmax_k0_cpv8_i32
// The other variants: rows the persistent variants hold in one block, an
// odd row, a misaligned buffer, a row longer than 8 blocks hold, and the
// variant turned off (--inner-long-cluster=0: the row streams).
// RUN: fusion-run %S/normalization.mlir --fusion=softmax_bf16 --input=200x8192 | FileCheck %s --check-prefix=FIRST
// FIRST: PASS softmax_bf16 200x8192xbf16 {{.*}}variant=softmax_bf16_k0_pv8_i32
// RUN: fusion-run %S/normalization.mlir --fusion=layernorm_bf16 --inner-cluster=0 --input=40x32768 --input=32768 --input=32768 | FileCheck %s --check-prefix=LONGROW
// LONGROW: PASS layernorm_bf16 40x32768xbf16,32768xbf16,32768xbf16 {{.*}}variant=layernorm_bf16_k0_plv8_i32
// RUN: fusion-run %S/normalization.mlir --fusion=softmax_bf16 --input=4x40001 | FileCheck %s --check-prefix=ODD
// ODD: PASS softmax_bf16 4x40001xbf16 {{.*}}variant=softmax_bf16_k0_rv8_i32
// RUN: fusion-run %S/normalization.mlir --fusion=softmax_bf16 --input=4x40000 --misalign | FileCheck %s --check-prefix=MIS
// MIS: PASS softmax_bf16 4x40000xbf16 {{.*}}variant=softmax_bf16_k0_s_i32
// RUN: fusion-run %S/normalization.mlir --fusion=softmax_bf16 --inner-cluster=0 --input=3x200000 | FileCheck %s --check-prefix=LONG
// LONG: PASS softmax_bf16 3x200000xbf16 {{.*}}variant=softmax_bf16_k0_v8_i32
// RUN: fusion-run %S/normalization.mlir --fusion=rmsnorm_bf16 --inner-cluster=0 --inner-long-cluster=0 --input=33x65536 --input=65536 | FileCheck %s --check-prefix=OFF
// OFF: PASS rmsnorm_bf16 33x65536xbf16,65536xbf16 {{.*}}variant=rmsnorm_bf16_k0_v8_i32
