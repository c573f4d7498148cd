// REQUIRES: cuda
// Short rows (Note [Short rows] in lib/Conversion/FusionToGPU/InnerReduction.cpp)
// against the reference interpreter: a row that needs at most 16 threads
// gets 2, 4, 8 or 16 of them, several rows share a warp, and each row's
// reduction takes only the butterfly distances below its width
// (fusion.block_reduce's `width`). Every row kernel kind: persistent and
// streaming, plain, ragged and scalar (misaligned, transposed, a row of one
// element), online softmax, Welford, sums, arg reductions, cross-entropy's
// gather; widths 2 to 16 and the first that takes a whole warp again (513
// bf16 elements: 17 threads of 32 elements). The definitions are those of
// the other GPU tests.

// Persistent ragged (77 = 3 threads of 32 elements: 4 threads per row).
// RUN: fusion-run %S/normalization.mlir --fusion=softmax_bf16 --input=262144x77 | FileCheck %s --check-prefix=SM77
// SM77: PASS softmax_bf16 262144x77xbf16 {{.*}}variant=softmax_bf16_k0_prv8_i32
// Persistent plain: 64 elements, 2 threads per row; 512, 16; 513, a warp.
// RUN: fusion-run %S/normalization.mlir --fusion=softmax_bf16 --input=4096x64 | FileCheck %s --check-prefix=SM64
// SM64: PASS softmax_bf16 4096x64xbf16 {{.*}}variant=softmax_bf16_k0_pv8_i32
// RUN: fusion-run %S/normalization.mlir --fusion=softmax_bf16 --input=1000x512 | FileCheck %s --check-prefix=SM512
// SM512: PASS softmax_bf16 1000x512xbf16 {{.*}}variant=softmax_bf16_k0_pv8_i32
// RUN: fusion-run %S/normalization.mlir --fusion=softmax_bf16 --input=1000x513 | FileCheck %s --check-prefix=SM513
// SM513: PASS softmax_bf16 1000x513xbf16 {{.*}}variant=softmax_bf16_k0_prv8_i32
// RUN: fusion-run %S/normalization.mlir --fusion=softmax_f32 --input=10000x100 | FileCheck %s --check-prefix=SMF
// SMF: PASS softmax_f32 10000x100xf32 {{.*}}variant=softmax_f32_k0_pv4_i32
// RUN: fusion-run %S/normalization.mlir --fusion=log_softmax_f16 --input=100x30x77 | FileCheck %s --check-prefix=LSM
// LSM: PASS log_softmax_f16 100x30x77xf16 {{.*}}variant=log_softmax_f16_k0_prv8_i32
// Misaligned and transposed rows: the scalar variants, narrow too.
// RUN: fusion-run %S/normalization.mlir --fusion=softmax_bf16 --input=1000x77 --misalign | FileCheck %s --check-prefix=SMMIS
// SMMIS: PASS softmax_bf16 1000x77xbf16 {{.*}}variant=softmax_bf16_k0_ps_i32
// RUN: fusion-run %S/normalization.mlir --fusion=softmax_bf16 --input=1000x77 --layout=0:transposed | FileCheck %s --check-prefix=SMT
// SMT: PASS softmax_bf16 1000x77xbf16 {{.*}}variant=softmax_bf16_k0_ps_i32
// Norms with weights, Welford and sums of squares.
// RUN: fusion-run %S/normalization.mlir --fusion=layernorm_bf16 --input=100000x77 --input=77 --input=77 | FileCheck %s --check-prefix=LN
// LN: PASS layernorm_bf16 100000x77xbf16,77xbf16,77xbf16 {{.*}}variant=layernorm_bf16_k0_prv8_i32
// RUN: fusion-run %S/normalization.mlir --fusion=layernorm_f64 --input=1000x40 --input=40 --input=40 | FileCheck %s --check-prefix=LN64
// LN64: PASS layernorm_f64 1000x40xf64,40xf64,40xf64 {{.*}}variant=layernorm_f64_k0_pv2_i32
// RUN: fusion-run %S/normalization.mlir --fusion=rmsnorm_bf16 --input=50000x128 --input=128 | FileCheck %s --check-prefix=RMS
// RMS: PASS rmsnorm_bf16 50000x128xbf16,128xbf16 {{.*}}variant=rmsnorm_bf16_k0_pv8_i32
// RUN: fusion-run %S/normalization.mlir --fusion=var_mean_f32 --atol=1e-3 --input=20000x33 | FileCheck %s --check-prefix=VM
// VM: PASS var_mean_f32 20000x33xf32 {{.*}}variant=var_mean_f32_k0_rv4_i32
// x / sum(x) over 3000 rows of 200: some rows' sums cancel to near zero
// (row 2334's to about 0.001, x / sum reaching 2000), where the GPU's and
// the interpreter's orders of summation give sums 1.5e-3 apart relatively
// (the sums themselves agree within 1e-3); hence the relative tolerance.
// RUN: fusion-run %S/normalization.mlir --fusion=stats_f32 --atol=1e-3 --rtol=1e-2 --input=3000x200 | FileCheck %s --check-prefix=STATS
// STATS: PASS stats_f32 3000x200xf32 {{.*}}variant=stats_f32_k0_pv4_i32
// Streaming row kernels: cross-entropy (the target's logit gathered), sums,
// arg reductions.
// RUN: fusion-run %S/cross-entropy.mlir --fusion=ce_bf16 --input=262144x77 --input=262144x1 | FileCheck %s --check-prefix=CE
// CE: PASS ce_bf16 262144x77xbf16{{.*}} variant=ce_bf16_k0_rv8_i32
// RUN: fusion-run %S/cross-entropy.mlir --fusion=ce_f32 --input=5000x64 --input=5000x1 | FileCheck %s --check-prefix=CEF
// CEF: PASS ce_f32 5000x64xf32{{.*}} variant=ce_f32_k0_v4_i32
// RUN: fusion-run %S/reductions.mlir --fusion=sum_f32 --atol=1e-3 --input=100000x31 | FileCheck %s --check-prefix=SUM
// SUM: PASS sum_f32 100000x31xf32 {{.*}}variant=sum_f32_k0_rv4_i32
// RUN: fusion-run %S/reductions.mlir --fusion=sum_i32 --input=1000x16 | FileCheck %s --check-prefix=SUMI
// SUMI: PASS sum_i32 1000x16xi32 {{.*}}variant=sum_i32_k0_v4_i32
// RUN: fusion-run %S/reductions.mlir --fusion=prod_f32 --input=1000x7 | FileCheck %s --check-prefix=PROD
// PROD: PASS prod_f32 1000x7xf32 {{.*}}variant=prod_f32_k0_rv4_i32
// RUN: fusion-run %S/arg-reductions.mlir --fusion=argmax_bf16 --input=10000x77 | FileCheck %s --check-prefix=ARG
// ARG: PASS argmax_bf16 10000x77xbf16 {{.*}}variant=argmax_bf16_k0_rv8_i32
// RUN: fusion-run %S/arg-reductions.mlir --fusion=argmin_i32 --input=1000x20 | FileCheck %s --check-prefix=ARGI
// ARGI: PASS argmin_i32 1000x20xi32 {{.*}}variant=argmin_i32_k0_v4_i32
// RUN: fusion-run %S/reductions.mlir --fusion=max_exp_bf16 --input=777x1 | FileCheck %s --check-prefix=MAX1
// MAX1: PASS max_exp_bf16 777x1xbf16 {{.*}}variant=max_exp_bf16_k0_cs_i32
