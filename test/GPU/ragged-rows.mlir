// REQUIRES: cuda
// Ragged row variants (streaming `_rv8`, `_rv4`, `_rv2`, persistent
// `_prv8`, `_prv4`: Note [Ragged rows] in
// lib/Conversion/FusionToGPU/InnerReductionKernel.cpp) against the
// reference interpreter: row kernels whose row length is not a multiple of
// the vector width read each row from its first aligned vector, the head
// and tail lanes masked. Rows shorter than a vector (3
// and 5 elements: head and tail are one vector), odd lengths below and past
// the persistent limit, vocabulary sizes, rank 3, every float dtype, sums,
// Welford, online softmax, arg reductions, weights read unaligned;
// misaligned and transposed buffers and rows of one element still take the
// scalar variants. The definitions are those of the other GPU tests.

// RUN: fusion-run %S/normalization.mlir --fusion=softmax_bf16 --input=3x100003 | FileCheck %s --check-prefix=SM
// SM: PASS softmax_bf16 3x100003xbf16 {{.*}}variant=softmax_bf16_k0_rv8_i32
// RUN: fusion-run %S/normalization.mlir --fusion=softmax_bf16 --input=64x50257 | FileCheck %s --check-prefix=SMV
// SMV: PASS softmax_bf16 64x50257xbf16 {{.*}}variant=softmax_bf16_k0_rv8_i32
// RUN: fusion-run %S/normalization.mlir --fusion=softmax_bf16 --input=3x100003 --misalign | FileCheck %s --check-prefix=SMMIS
// SMMIS: PASS softmax_bf16 3x100003xbf16 {{.*}}variant=softmax_bf16_k0_s_i32
// RUN: fusion-run %S/normalization.mlir --fusion=softmax_bf16 --input=3x100003 --layout=0:transposed | FileCheck %s --check-prefix=SMT
// SMT: PASS softmax_bf16 3x100003xbf16 {{.*}}variant=softmax_bf16_k0_s_i32
// RUN: fusion-run %S/normalization.mlir --fusion=softmax_f32 --input=5x65541 | FileCheck %s --check-prefix=SMF32
// SMF32: PASS softmax_f32 5x65541xf32 {{.*}}variant=softmax_f32_k0_rv4_i32
// RUN: fusion-run %S/normalization.mlir --fusion=log_softmax_f16 --input=2x3x40001 | FileCheck %s --check-prefix=LSM
// LSM: PASS log_softmax_f16 2x3x40001xf16 {{.*}}variant=log_softmax_f16_k0_rv8_i32
// RUN: fusion-run %S/normalization.mlir --fusion=layernorm_bf16 --input=3x65541 --input=65541 --input=65541 | FileCheck %s --check-prefix=LN
// LN: PASS layernorm_bf16 3x65541xbf16,65541xbf16,65541xbf16 {{.*}}variant=layernorm_bf16_k0_rv8_i32
// RUN: fusion-run %S/normalization.mlir --fusion=layernorm_f64 --input=3x20001 --input=20001 --input=20001 | FileCheck %s --check-prefix=LN64
// LN64: PASS layernorm_f64 3x20001xf64,20001xf64,20001xf64 {{.*}}variant=layernorm_f64_k0_rv2_i32
// RUN: fusion-run %S/normalization.mlir --fusion=rmsnorm_bf16 --input=5x32771 --input=32771 | FileCheck %s --check-prefix=RMS
// RMS: PASS rmsnorm_bf16 5x32771xbf16,32771xbf16 {{.*}}variant=rmsnorm_bf16_k0_rv8_i32
// RUN: fusion-run %S/normalization.mlir --fusion=var_mean_f32 --atol=1e-3 --input=50x1001 | FileCheck %s --check-prefix=VM
// VM: PASS var_mean_f32 50x1001xf32 {{.*}}variant=var_mean_f32_k0_rv4_i32
// RUN: fusion-run %S/normalization.mlir --fusion=var_mean_f32 --atol=1e-3 --input=1000x3 | FileCheck %s --check-prefix=VM3
// VM3: PASS var_mean_f32 1000x3xf32 {{.*}}variant=var_mean_f32_k0_rv4_i32
// RUN: fusion-run %S/cross-entropy.mlir --fusion=ce_bf16 --input=600x50257 --input=600x1 | FileCheck %s --check-prefix=CE
// CE: PASS ce_bf16 600x50257xbf16{{.*}} variant=ce_bf16_k0_rv8_i32
// Few rows split across blocks, with the scalar split variant (Note [Split
// rows]).
// RUN: fusion-run %S/cross-entropy.mlir --fusion=ce_bf16 --input=64x50257 --input=64x1 | FileCheck %s --check-prefix=CESPLIT
// CESPLIT: PASS ce_bf16 64x50257xbf16{{.*}} variant=ce_bf16_k0_gs_i32
// RUN: fusion-run %S/cross-entropy.mlir --fusion=ce_bf16 --input=1000x32001 --input=1000x1 | FileCheck %s --check-prefix=CE32K
// CE32K: PASS ce_bf16 1000x32001xbf16{{.*}} variant=ce_bf16_k0_rv8_i32
// RUN: fusion-run %S/cross-entropy.mlir --fusion=ce_bf16 --input=7x57 --input=7x1 | FileCheck %s --check-prefix=CE57
// CE57: PASS ce_bf16 7x57xbf16{{.*}} variant=ce_bf16_k0_rv8_i32
// RUN: fusion-run %S/cross-entropy.mlir --fusion=ce_f16 --input=9x59 --input=9x1 | FileCheck %s --check-prefix=CE59
// CE59: PASS ce_f16 9x59xf16{{.*}} variant=ce_f16_k0_rv8_i32
// RUN: fusion-run %S/cross-entropy.mlir --fusion=ce_f32 --input=100x1001 --input=100x1 | FileCheck %s --check-prefix=CEF32
// CEF32: PASS ce_f32 100x1001xf32{{.*}} variant=ce_f32_k0_rv4_i32
// RUN: fusion-run %S/cross-entropy.mlir --fusion=ce_f64 --input=33x333 --input=33x1 | FileCheck %s --check-prefix=CEF64
// CEF64: PASS ce_f64 33x333xf64{{.*}} variant=ce_f64_k0_rv2_i32
// RUN: fusion-run %S/arg-reductions.mlir --fusion=argmax_bf16 --input=1000x1001 | FileCheck %s --check-prefix=ARG
// ARG: PASS argmax_bf16 1000x1001xbf16 {{.*}}variant=argmax_bf16_k0_rv8_i32
// RUN: fusion-run %S/arg-reductions.mlir --fusion=argmin_f32_keep --input=3x5 | FileCheck %s --check-prefix=ARG5
// ARG5: PASS argmin_f32_keep 3x5xf32 {{.*}}variant=argmin_f32_keep_k0_rv4_i32
// RUN: fusion-run %S/arg-reductions.mlir --fusion=argmax_f64 --input=100x333 | FileCheck %s --check-prefix=ARG64
// ARG64: PASS argmax_f64 100x333xf64 {{.*}}variant=argmax_f64_k0_rv2_i32
// RUN: fusion-run %S/reductions.mlir --fusion=sum_f32 --atol=1e-3 --input=4099x4099 | FileCheck %s --check-prefix=SUM
// SUM: PASS sum_f32 4099x4099xf32 {{.*}}variant=sum_f32_k0_rv4_i32
// A row of one element has no unit stride to read vectors along (a dim of
// 1 broadcasts): scalar.
// RUN: fusion-run %S/reductions.mlir --fusion=max_exp_bf16 --input=777x1 | FileCheck %s --check-prefix=MAX1
// MAX1: PASS max_exp_bf16 777x1xbf16 {{.*}}variant=max_exp_bf16_k0_cs_i32
// RUN: fusion-run %S/reductions.mlir --fusion=max_exp_bf16 --input=777x9 | FileCheck %s --check-prefix=MAX9
// MAX9: PASS max_exp_bf16 777x9xbf16 {{.*}}variant=max_exp_bf16_k0_rv8_i32
// Odd rows that fit in registers: the persistent ragged variant (the row
// loaded once, a row ahead; the edges loaded where they are used), before
// the persistent scalar one, which misaligned rows still take.
// RUN: fusion-run %S/normalization.mlir --fusion=softmax_f32 --input=33x1001 | FileCheck %s --check-prefix=SMP32
// SMP32: PASS softmax_f32 33x1001xf32 {{.*}}variant=softmax_f32_k0_prv4_i32
// RUN: fusion-run %S/normalization.mlir --fusion=log_softmax_f16 --input=4x5x1001 | FileCheck %s --check-prefix=LSMP
// LSMP: PASS log_softmax_f16 4x5x1001xf16 {{.*}}variant=log_softmax_f16_k0_prv8_i32
// RUN: fusion-run %S/normalization.mlir --fusion=rmsnorm_bf16 --input=3000x1023 --input=1023 | FileCheck %s --check-prefix=RMSP
// RMSP: PASS rmsnorm_bf16 3000x1023xbf16,1023xbf16 {{.*}}variant=rmsnorm_bf16_k0_prv8_i32
// RUN: fusion-run %S/normalization.mlir --fusion=layernorm_f64 --input=100x333 --input=333 --input=333 | FileCheck %s --check-prefix=LNP64
// LNP64: PASS layernorm_f64 100x333xf64,333xf64,333xf64 {{.*}}variant=layernorm_f64_k0_prv2_i32
// RUN: fusion-run %S/normalization.mlir --fusion=stats_f32 --atol=1e-3 --input=129x4097 | FileCheck %s --check-prefix=STATSP
// STATSP: PASS stats_f32 129x4097xf32 {{.*}}variant=stats_f32_k0_prv4_i32
// RUN: fusion-run %S/normalization.mlir --fusion=layernorm_bf16 --input=1000x4097 --input=4097 --input=4097 | FileCheck %s --check-prefix=LNP
// LNP: PASS layernorm_bf16 1000x4097xbf16,4097xbf16,4097xbf16 {{.*}}variant=layernorm_bf16_k0_prv8_i32
// RUN: fusion-run %S/normalization.mlir --fusion=softmax_bf16 --input=1000x4097 --misalign | FileCheck %s --check-prefix=SMPMIS
// SMPMIS: PASS softmax_bf16 1000x4097xbf16 {{.*}}variant=softmax_bf16_k0_ps_i32
