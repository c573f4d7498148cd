// REQUIRES: cuda
// Bulk staged rows (Note [Bulk staged rows]): with --inner-stage=3 the
// vectorized persistent variants take the next row into the second buffer
// of dynamic shared memory in bulk copies (one per item and staged input,
// issued by the first thread of each row, completing on the buffer's
// mbarrier) while the current row is reduced. The definitions of
// staged-rows.mlir, against the reference interpreter: one and several
// rows per block and many rows per block in turn (the two buffers and
// their barriers' phases alternate), a last block with rows past the end,
// rows whose last span is partial (1000 elements of 8 = 125 vectors), rows
// of 16384 (the long-row variant), f32, f16 and f64, rank 3, two passes
// with weights, two staged inputs, several results, NaN rows; odd rows
// take the ragged variant (register prefetch). Bounded by a timeout: a
// wrong expected byte count would hang the kernel rather than fail it.
// RUN: fusion-translate %S/staged-rows.mlir --fusion=softmax_bf16 --inner-stage=3 --fusion-to-ptx --no-cubin -o %t.ptx
// RUN: FileCheck %s --check-prefix=COPIES < %t.ptx
// COPIES-LABEL: .entry softmax_bf16_k0_pv8_i32
// COPIES: cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes
// COPIES: mbarrier.try_wait.parity

// RUN: timeout 60 fusion-run %S/staged-rows.mlir --inner-stage=3 --fusion=softmax_bf16 --input=1000x1000 | FileCheck %s --check-prefix=SM1000
// SM1000: PASS softmax_bf16 1000x1000xbf16 {{.*}}variant=softmax_bf16_k0_pv8_i32
// RUN: timeout 60 fusion-run %S/staged-rows.mlir --inner-stage=3 --fusion=softmax_bf16 --input=65537x8 | FileCheck %s --check-prefix=SMMANY
// SMMANY: PASS softmax_bf16 65537x8xbf16 {{.*}}variant=softmax_bf16_k0_pv8_i32
// RUN: timeout 60 fusion-run %S/staged-rows.mlir --inner-stage=3 --fusion=softmax_bf16 --input=333x4096 | FileCheck %s --check-prefix=SM4096
// SM4096: PASS softmax_bf16 333x4096xbf16 {{.*}}variant=softmax_bf16_k0_pv8_i32
// RUN: timeout 60 fusion-run %S/staged-rows.mlir --inner-stage=3 --fusion=softmax_bf16 --input=1000x16384 | FileCheck %s --check-prefix=SM16K
// SM16K: PASS softmax_bf16 1000x16384xbf16 {{.*}}variant=softmax_bf16_k0_plv8_i32
// RUN: timeout 60 fusion-run %S/staged-rows.mlir --inner-stage=3 --fusion=softmax_bf16 --input=7x4097 | FileCheck %s --check-prefix=SMODD
// SMODD: PASS softmax_bf16 7x4097xbf16 {{.*}}variant=softmax_bf16_k0_prv8_i32
// RUN: timeout 60 fusion-run %S/staged-rows.mlir --inner-stage=3 --fusion=softmax_f32 --input=257x2048 | FileCheck %s --check-prefix=SMF32
// SMF32: PASS softmax_f32 257x2048xf32 {{.*}}variant=softmax_f32_k0_pv4_i32
// RUN: timeout 60 fusion-run %S/staged-rows.mlir --inner-stage=3 --fusion=log_softmax_f16 --input=4x5x1000 | FileCheck %s --check-prefix=LSM
// LSM: PASS log_softmax_f16 4x5x1000xf16 {{.*}}variant=log_softmax_f16_k0_pv8_i32
// RUN: timeout 60 fusion-run %S/staged-rows.mlir --inner-stage=3 --fusion=layernorm_bf16 --input=1000x4096 --input=4096 --input=4096 | FileCheck %s --check-prefix=LN
// LN: PASS layernorm_bf16 1000x4096xbf16{{.*}}variant=layernorm_bf16_k0_pv8_i32
// RUN: timeout 60 fusion-run %S/staged-rows.mlir --inner-stage=3 --fusion=layernorm_bf16 --input=97x16384 --input=16384 --input=16384 | FileCheck %s --check-prefix=LN16K
// LN16K: PASS layernorm_bf16 97x16384xbf16{{.*}}variant=layernorm_bf16_k0_pv8_i32
// RUN: timeout 60 fusion-run %S/staged-rows.mlir --inner-stage=3 --fusion=layernorm_f64 --input=100x334 --input=334 --input=334 | FileCheck %s --check-prefix=LN64
// LN64: PASS layernorm_f64 100x334xf64{{.*}}variant=layernorm_f64_k0_pv2_i32
// RUN: timeout 60 fusion-run %S/staged-rows.mlir --inner-stage=3 --fusion=rmsnorm_bf16 --input=1024x1024 --input=1024 | FileCheck %s --check-prefix=RMS
// RMS: PASS rmsnorm_bf16 1024x1024xbf16{{.*}}variant=rmsnorm_bf16_k0_pv8_i32
// RUN: timeout 60 fusion-run %S/staged-rows.mlir --inner-stage=3 --fusion=add_rmsnorm_bf16 --input=300x8192 --input=300x8192 --input=8192 | FileCheck %s --check-prefix=ADDRMS
// ADDRMS: PASS add_rmsnorm_bf16 300x8192xbf16{{.*}}variant=add_rmsnorm_bf16_k0_pv8_i32
// RUN: timeout 60 fusion-run %S/staged-rows.mlir --inner-stage=3 --fusion=stats_f32 --atol=1e-3 --input=129x4096 | FileCheck %s --check-prefix=STATS
// STATS: PASS stats_f32 129x4096xf32 {{.*}}variant=stats_f32_k0_pv4_i32
// RUN: timeout 60 fusion-run %S/staged-rows.mlir --inner-stage=3 --fusion=nan_rows --input=64x8 | FileCheck %s --check-prefix=NAN
// NAN: PASS nan_rows 64x8xf32 {{.*}}variant=nan_rows_k0_pv4_i32
