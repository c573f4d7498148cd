// REQUIRES: cuda
// Per-row results over transposed inputs (Note [Column-major rows]): the
// column-major variant (`cs_i32`) reads with a block's lanes along the
// rows, then moves each thread's states through shared memory to the usual
// threads of each row. Against the reference interpreter: every state
// kind (sum, max, Welford var_mean, online logsumexp, argmax, cross-entropy
// with its gathered target logit), f64/f32/f16/bf16/i32, rank 3, 2 to 32
// threads per row, and row counts that leave the last block part empty.
// RUN: fusion-run %S/reductions.mlir --fusion=sum_f32 --atol=1e-3 --input=8193x333 --layout=0:transposed | FileCheck %s --check-prefix=SUM32
// SUM32: PASS sum_f32 8193x333xf32 {{.*}}variant=sum_f32_k0_cs_i32
// RUN: fusion-run %S/reductions.mlir --fusion=sum_f32 --atol=1e-3 --input=262145x3 --layout=0:transposed | FileCheck %s --check-prefix=SUM2
// With --inner-columns=0 the rows take the scalar variant, 2 to 16 threads
// per row.
// RUN: fusion-run %S/reductions.mlir --fusion=sum_f32 --atol=1e-3 --input=8193x333 --layout=0:transposed --inner-columns=0 | FileCheck %s --check-prefix=OFF
// OFF: PASS sum_f32 8193x333xf32 {{.*}}variant=sum_f32_k0_s_i32
// SUM2: PASS sum_f32 262145x3xf32 {{.*}}variant=sum_f32_k0_cs_i32
// RUN: fusion-run %S/reductions.mlir --fusion=max_exp_bf16 --input=8192x300 --layout=0:transposed | FileCheck %s --check-prefix=MAX
// MAX: PASS max_exp_bf16 8192x300xbf16 {{.*}}variant=max_exp_bf16_k0_cs_i32
// RUN: fusion-run %S/split-rows.mlir --fusion=var_mean_bf16 --atol=1e-3 --input=5000x129 --layout=0:transposed | FileCheck %s --check-prefix=VM
// VM: PASS var_mean_bf16 5000x129xbf16 {{.*}}variant=var_mean_bf16_k0_cs_i32
// RUN: fusion-run %S/split-rows.mlir --fusion=logsumexp_f32 --atol=1e-3 --input=3000x1000 --layout=0:transposed | FileCheck %s --check-prefix=LSE
// LSE: PASS logsumexp_f32 3000x1000xf32 {{.*}}variant=logsumexp_f32_k0_cs_i32
// RUN: fusion-run %S/arg-reductions.mlir --fusion=argmax_bf16 --input=40000x50 --layout=0:transposed | FileCheck %s --check-prefix=ARG
// ARG: PASS argmax_bf16 40000x50xbf16 {{.*}}variant=argmax_bf16_k0_cs_i32
// RUN: fusion-run %S/split-rows.mlir --fusion=max_keepdim_f16 --input=7x300x129 --layout=0:transposed | FileCheck %s --check-prefix=RANK3
// RANK3: PASS max_keepdim_f16 7x300x129xf16 {{.*}}variant=max_keepdim_f16_k0_cs_i32
// RUN: fusion-run %S/split-rows.mlir --fusion=min_f64 --input=8193x77 --layout=0:transposed | FileCheck %s --check-prefix=F64
// F64: PASS min_f64 8193x77xf64 {{.*}}variant=min_f64_k0_cs_i32
// RUN: fusion-run %S/split-rows.mlir --fusion=sum_i32 --input=20000x100 --layout=0:transposed | FileCheck %s --check-prefix=INT
// INT: PASS sum_i32 20000x100xi32 {{.*}}variant=sum_i32_k0_cs_i32
// RUN: fusion-run %S/cross-entropy.mlir --fusion=ce_bf16 --input=8192x1000 --input=8192x1 --atol=2e-2 --layout=0:transposed | FileCheck %s --check-prefix=CE
// CE: PASS ce_bf16 8192x1000xbf16{{.*}}variant=ce_bf16_k0_cs_i32
// RUN: fusion-run %S/cross-entropy.mlir --fusion=ce_f32 --input=4097x333 --input=4097x1 --atol=1e-3 --layout=0:transposed | FileCheck %s --check-prefix=CEF
// CEF: PASS ce_f32 4097x333xf32{{.*}}variant=ce_f32_k0_cs_i32
// Per-element results and several passes (Note [Column-major rows with
// per-element results]): softmax, log_softmax (rank 3), rms_norm,
// layer_norm (two passes; f64), per-row and per-element results together,
// an online state's sum as a result and NaN rows; row counts that leave
// the last block part empty, row lengths that leave the last chunk part
// empty. stats_f32 divides by the row's sum: where 8193 random rows put
// a sum near 0, its f32 rounding (another order than the interpreter's
// f64) is 1e-4 of the quotient, hence --rtol.
// RUN: fusion-run %S/normalization.mlir --fusion=softmax_bf16 --input=4097x1000 --layout=0:transposed | FileCheck %s --check-prefix=SMX
// SMX: PASS softmax_bf16 4097x1000xbf16 {{.*}}variant=softmax_bf16_k0_cs_i32
// RUN: fusion-run %S/normalization.mlir --fusion=softmax_f32 --input=20000x300 --layout=0:transposed | FileCheck %s --check-prefix=SMXF
// SMXF: PASS softmax_f32 20000x300xf32 {{.*}}variant=softmax_f32_k0_cs_i32
// RUN: fusion-run %S/normalization.mlir --fusion=log_softmax_f16 --input=300x7x333 --layout=0:transposed | FileCheck %s --check-prefix=LSMX
// LSMX: PASS log_softmax_f16 300x7x333xf16 {{.*}}variant=log_softmax_f16_k0_cs_i32
// RUN: fusion-run %S/normalization.mlir --fusion=rmsnorm_bf16 --input=5000x777 --input=777 --layout=0:transposed | FileCheck %s --check-prefix=RMSX
// RMSX: PASS rmsnorm_bf16 5000x777xbf16,777xbf16 {{.*}}variant=rmsnorm_bf16_k0_cs_i32
// RUN: fusion-run %S/normalization.mlir --fusion=layernorm_bf16 --input=9000x1000 --input=1000 --input=1000 --layout=0:transposed | FileCheck %s --check-prefix=LNX
// LNX: PASS layernorm_bf16 9000x1000xbf16,1000xbf16,1000xbf16 {{.*}}variant=layernorm_bf16_k0_cs_i32
// RUN: fusion-run %S/normalization.mlir --fusion=layernorm_f64 --input=3000x333 --input=333 --input=333 --layout=0:transposed | FileCheck %s --check-prefix=LNX64
// LNX64: PASS layernorm_f64 3000x333xf64,333xf64,333xf64 {{.*}}variant=layernorm_f64_k0_cs_i32
// RUN: fusion-run %S/normalization.mlir --fusion=stats_f32 --atol=1e-3 --rtol=1e-3 --input=8193x129 --layout=0:transposed | FileCheck %s --check-prefix=STATSX
// STATSX: PASS stats_f32 8193x129xf32 {{.*}}variant=stats_f32_k0_cs_i32
// RUN: fusion-run %S/normalization.mlir --fusion=sumexp_bf16 --input=10000x4096 --layout=0:transposed | FileCheck %s --check-prefix=SEX
// SEX: PASS sumexp_bf16 10000x4096xbf16 {{.*}}variant=sumexp_bf16_k0_cs_i32
// RUN: fusion-run %S/normalization.mlir --fusion=nan_rows --input=8192x8 --layout=0:transposed | FileCheck %s --check-prefix=NANX
// NANX: PASS nan_rows 8192x8xf32 {{.*}}variant=nan_rows_k0_cs_i32
// Results of 1, 2 and 8 bytes, each through a tile of its own pitch (Note
// [Column tile pitch]); 8, 16 and 32 threads per row.
// RUN: fusion-run %S/normalization.mlir --fusion=mixed_tiles --input=20001x77 --layout=0:transposed | FileCheck %s --check-prefix=TILES8
// TILES8: PASS mixed_tiles 20001x77xf32{{.*}}variant=mixed_tiles_k0_cs_i32
// RUN: fusion-run %S/normalization.mlir --fusion=mixed_tiles --input=12289x130 --layout=0:transposed | FileCheck %s --check-prefix=TILES16
// TILES16: PASS mixed_tiles 12289x130xf32{{.*}}variant=mixed_tiles_k0_cs_i32
// RUN: fusion-run %S/normalization.mlir --fusion=mixed_tiles --input=8193x1000 --layout=0:transposed | FileCheck %s --check-prefix=TILES32
// TILES32: PASS mixed_tiles 8193x1000xf32{{.*}}variant=mixed_tiles_k0_cs_i32
// With --inner-columns=0 softmax's rows take the persistent scalar variant.
// RUN: fusion-run %S/normalization.mlir --fusion=softmax_bf16 --input=4097x1000 --layout=0:transposed --inner-columns=0 | FileCheck %s --check-prefix=SMXOFF
// SMXOFF: PASS softmax_bf16 4097x1000xbf16 {{.*}}variant=softmax_bf16_k0_ps_i32
