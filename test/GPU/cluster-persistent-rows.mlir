// REQUIRES: cuda
// Rows longer than one block holds in registers, split over a thread block
// cluster whose blocks each keep their span in registers (Note [Cluster
// persistent rows] in lib/Conversion/FusionToGPU/InnerReduction.cpp,
// --inner-long-cluster=8): the blocks' states meet through distributed
// shared memory after every pass (online max + sum of exp, Welford, sums,
// a max beside them), clusters loop over rows with the next row
// prefetched. Against the reference interpreter: clusters of 2, 4 and 8,
// blocks of fewer than 512 threads, rows staged in shared memory and in
// registers, bf16, f16, f32 and f64, rank 3, results per row beside results
// per element, more rows than clusters; and the shapes that keep the other
// variants (rows the first persistent variant holds, odd and misaligned
// rows, rows longer than 8 blocks hold). The definitions are those of
// normalization.mlir and staged-rows.mlir.

// RUN: fusion-run %S/normalization.mlir --fusion=softmax_bf16 --inner-long-cluster=8 --input=300x16384 | FileCheck %s --check-prefix=SM16K
// SM16K: PASS softmax_bf16 300x16384xbf16 {{.*}}variant=softmax_bf16_k0_cpv8_i32
// RUN: fusion-run %S/normalization.mlir --fusion=softmax_bf16 --inner-long-cluster=8 --inner-stage=0 --input=65x32768 | FileCheck %s --check-prefix=SMREG
// SMREG: PASS softmax_bf16 65x32768xbf16 {{.*}}variant=softmax_bf16_k0_cpv8_i32
// RUN: fusion-run %S/normalization.mlir --fusion=softmax_bf16 --inner-long-cluster=8 --input=9x131072 | FileCheck %s --check-prefix=SM8
// SM8: PASS softmax_bf16 9x131072xbf16 {{.*}}variant=softmax_bf16_k0_cpv8_i32
// RUN: fusion-run %S/normalization.mlir --fusion=softmax_bf16 --inner-long-cluster=2 --blocks-per-sm=1 --input=500x32768 | FileCheck %s --check-prefix=SMMANY
// SMMANY: PASS softmax_bf16 500x32768xbf16 {{.*}}variant=softmax_bf16_k0_cpv8_i32
// RUN: fusion-run %S/normalization.mlir --fusion=softmax_f32 --inner-long-cluster=8 --input=33x20000 | FileCheck %s --check-prefix=SMF
// SMF: PASS softmax_f32 33x20000xf32 {{.*}}variant=softmax_f32_k0_cpv4_i32
// RUN: fusion-run %S/normalization.mlir --fusion=log_softmax_f16 --inner-long-cluster=8 --input=2x3x40000 | FileCheck %s --check-prefix=LSM
// LSM: PASS log_softmax_f16 2x3x40000xf16 {{.*}}variant=log_softmax_f16_k0_cpv8_i32
// RUN: fusion-run %S/normalization.mlir --fusion=layernorm_bf16 --inner-long-cluster=8 --input=100x32768 --input=32768 --input=32768 | FileCheck %s --check-prefix=LN
// LN: PASS layernorm_bf16 100x32768xbf16,32768xbf16,32768xbf16 {{.*}}variant=layernorm_bf16_k0_cpv8_i32
// RUN: fusion-run %S/normalization.mlir --fusion=layernorm_bf16 --inner-long-cluster=8 --input=7x16392 --input=16392 --input=16392 | FileCheck %s --check-prefix=LN288
// LN288: PASS layernorm_bf16 7x16392xbf16,16392xbf16,16392xbf16 {{.*}}variant=layernorm_bf16_k0_cpv8_i32
// RUN: fusion-run %S/normalization.mlir --fusion=layernorm_bf16 --inner-long-cluster=8 --input=64x65536 --input=65536 --input=65536 | FileCheck %s --check-prefix=LN4
// LN4: PASS layernorm_bf16 64x65536xbf16,65536xbf16,65536xbf16 {{.*}}variant=layernorm_bf16_k0_cpv8_i32
// RUN: fusion-run %S/normalization.mlir --fusion=layernorm_f64 --inner-long-cluster=8 --input=5x20000 --input=20000 --input=20000 | FileCheck %s --check-prefix=LN64
// LN64: PASS layernorm_f64 5x20000xf64,20000xf64,20000xf64 {{.*}}variant=layernorm_f64_k0_cpv2_i32
// RUN: fusion-run %S/normalization.mlir --fusion=rmsnorm_bf16 --inner-long-cluster=8 --input=33x65536 --input=65536 | FileCheck %s --check-prefix=RMS
// RMS: PASS rmsnorm_bf16 33x65536xbf16,65536xbf16 {{.*}}variant=rmsnorm_bf16_k0_cpv8_i32
// RUN: fusion-run %S/staged-rows.mlir --fusion=add_rmsnorm_bf16 --inner-long-cluster=8 --input=20x24576 --input=20x24576 --input=24576 | FileCheck %s --check-prefix=ADDRMS
// ADDRMS: PASS add_rmsnorm_bf16 20x24576xbf16,20x24576xbf16,24576xbf16 {{.*}}variant=add_rmsnorm_bf16_k0_cpv8_i32
// RUN: fusion-run %S/normalization.mlir --fusion=stats_f32 --inner-long-cluster=8 --atol=1e-3 --input=5x50000 | FileCheck %s --check-prefix=STATS
// STATS: PASS stats_f32 5x50000xf32 {{.*}}variant=stats_f32_k0_cpv4_i32
// NaN rows: a max per row beside the softmax (NaN propagates across the
// cluster's blocks as within a block).
// RUN: fusion-run %S/normalization.mlir --fusion=nan_rows --inner-long-cluster=8 --input=4x40000 | FileCheck %s --check-prefix=NAN
// NAN: PASS nan_rows 4x40000xf32 {{.*}}variant=nan_rows_k0_cpv4_i32
// RUN: fusion-run %S/staged-rows.mlir --fusion=masked_softmax --inner-long-cluster=8 --input=50x20000 --input=50x20000 | FileCheck %s --check-prefix=MASKED
// MASKED: PASS masked_softmax 50x20000xf32,50x20000xi1 {{.*}}variant=masked_softmax_k0_cpv8_i32
// The other variants: rows the first persistent variant holds, an odd row,
// a misaligned buffer, a row longer than 8 blocks hold.
// RUN: fusion-run %S/normalization.mlir --fusion=softmax_bf16 --inner-long-cluster=8 --input=200x8192 | FileCheck %s --check-prefix=FIRST
// FIRST: PASS softmax_bf16 200x8192xbf16 {{.*}}variant=softmax_bf16_k0_pv8_i32
// RUN: fusion-run %S/normalization.mlir --fusion=softmax_bf16 --inner-long-cluster=8 --input=4x16385 | FileCheck %s --check-prefix=ODD
// ODD: PASS softmax_bf16 4x16385xbf16 {{.*}}variant=softmax_bf16_k0_rv8_i32
// RUN: fusion-run %S/normalization.mlir --fusion=softmax_bf16 --inner-long-cluster=8 --input=4x16392 --misalign | FileCheck %s --check-prefix=MIS
// MIS: PASS softmax_bf16 4x16392xbf16 {{.*}}variant=softmax_bf16_k0_s_i32
// RUN: fusion-run %S/normalization.mlir --fusion=softmax_bf16 --inner-long-cluster=8 --input=3x200000 | FileCheck %s --check-prefix=LONG
// LONG: PASS softmax_bf16 3x200000xbf16 {{.*}}variant=softmax_bf16_k0_v8_i32
