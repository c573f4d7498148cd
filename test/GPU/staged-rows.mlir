// REQUIRES: cuda
// Staged rows (Note [Staged rows]): with --inner-stage=1 the vectorized
// persistent variants keep each thread's loaded vectors in dynamic shared
// memory and recompute from them in every pass. On the GPU against the
// reference interpreter: one and several rows per block, rows of 16384
// (softmax: the long variant, 256 threads x 128 bytes, 32 KB per block;
// layer_norm: 512 threads x 64 bytes), f32, f16 and f64, two inputs
// staged side by side, several results and passes, NaN rows, and the
// fallbacks (odd rows take the scalar variant, which is never staged; an i1
// input read per row keeps the row in registers).

// RUN: fusion-run %s --inner-stage=1 --fusion=softmax_bf16 --input=1000x1000 | FileCheck %s --check-prefix=SM1000
// SM1000: PASS softmax_bf16 1000x1000xbf16 {{.*}}variant=softmax_bf16_k0_pv8_i32
// RUN: fusion-run %s --inner-stage=1 --fusion=softmax_bf16 --input=65537x8 | FileCheck %s --check-prefix=SMMANY
// SMMANY: PASS softmax_bf16 65537x8xbf16 {{.*}}variant=softmax_bf16_k0_pv8_i32
// RUN: fusion-run %s --inner-stage=1 --fusion=softmax_bf16 --input=333x4096 | FileCheck %s --check-prefix=SM4096
// SM4096: PASS softmax_bf16 333x4096xbf16 {{.*}}variant=softmax_bf16_k0_pv8_i32
// RUN: fusion-run %s --inner-stage=1 --fusion=softmax_bf16 --input=65x16384 | FileCheck %s --check-prefix=SM16K
// SM16K: PASS softmax_bf16 65x16384xbf16 {{.*}}variant=softmax_bf16_k0_plv8_i32
// RUN: fusion-run %s --inner-stage=1 --fusion=softmax_bf16 --input=7x4097 | FileCheck %s --check-prefix=SMODD
// SMODD: PASS softmax_bf16 7x4097xbf16 {{.*}}variant=softmax_bf16_k0_prv8_i32
// RUN: fusion-run %s --inner-stage=1 --fusion=softmax_f32 --input=257x2048 | FileCheck %s --check-prefix=SMF32
// SMF32: PASS softmax_f32 257x2048xf32 {{.*}}variant=softmax_f32_k0_pv4_i32
// 16384 f32 per row: 512 x 128 bytes = 64 KB of dynamic shared memory, over
// the 48 KB default (the runtime raises the kernel's limit).
// RUN: fusion-run %s --inner-stage=1 --fusion=softmax_f32 --inner-cluster=0 --input=33x16384 | FileCheck %s --check-prefix=SMF32BIG
// SMF32BIG: PASS softmax_f32 33x16384xf32 {{.*}}variant=softmax_f32_k0_pv4_i32
// 12288 f32 per row: exactly 48 KB of dynamic shared memory, which with the
// kernel's static reduction buffers is over the default too (Note [Static
// and dynamic shared memory] in Executable.cpp; CUDA_ERROR_INVALID_VALUE
// on an H100 before).
// RUN: fusion-run %s --inner-stage=1 --fusion=softmax_f32 --inner-cluster=0 --input=33x12288 | FileCheck %s --check-prefix=SMF32EDGE
// SMF32EDGE: PASS softmax_f32 33x12288xf32 {{.*}}variant=softmax_f32_k0_pv4_i32
// RUN: fusion-run %s --inner-stage=1 --fusion=log_softmax_f16 --input=4x5x1000 | FileCheck %s --check-prefix=LSM
// LSM: PASS log_softmax_f16 4x5x1000xf16 {{.*}}variant=log_softmax_f16_k0_pv8_i32
// RUN: fusion-run %s --inner-stage=1 --fusion=layernorm_bf16 --input=1000x4096 --input=4096 --input=4096 | FileCheck %s --check-prefix=LN
// LN: PASS layernorm_bf16 1000x4096xbf16{{.*}}variant=layernorm_bf16_k0_pv8_i32
// RUN: fusion-run %s --inner-stage=1 --fusion=layernorm_bf16 --input=97x16384 --input=16384 --input=16384 | FileCheck %s --check-prefix=LN16K
// LN16K: PASS layernorm_bf16 97x16384xbf16{{.*}}variant=layernorm_bf16_k0_pv8_i32
// RUN: fusion-run %s --inner-stage=1 --fusion=layernorm_f64 --input=100x334 --input=334 --input=334 | FileCheck %s --check-prefix=LN64
// LN64: PASS layernorm_f64 100x334xf64{{.*}}variant=layernorm_f64_k0_pv2_i32
// RUN: fusion-run %s --inner-stage=1 --fusion=rmsnorm_bf16 --input=1024x1024 --input=1024 | FileCheck %s --check-prefix=RMS
// RMS: PASS rmsnorm_bf16 1024x1024xbf16{{.*}}variant=rmsnorm_bf16_k0_pv8_i32
// RUN: fusion-run %s --inner-stage=1 --fusion=add_rmsnorm_bf16 --input=300x8192 --input=300x8192 --input=8192 | FileCheck %s --check-prefix=ADDRMS
// ADDRMS: PASS add_rmsnorm_bf16 300x8192xbf16{{.*}}variant=add_rmsnorm_bf16_k0_pv8_i32
// RUN: fusion-run %s --inner-stage=1 --fusion=stats_f32 --atol=1e-3 --input=129x4096 | FileCheck %s --check-prefix=STATS
// STATS: PASS stats_f32 129x4096xf32 {{.*}}variant=stats_f32_k0_pv4_i32
// RUN: fusion-run %s --inner-stage=1 --fusion=nan_rows --input=64x8 | FileCheck %s --check-prefix=NAN
// NAN: PASS nan_rows 64x8xf32 {{.*}}variant=nan_rows_k0_pv4_i32
// RUN: fusion-run %s --inner-stage=1 --fusion=masked_softmax --input=200x2048 --input=200x2048 | FileCheck %s --check-prefix=MASK
// MASK: PASS masked_softmax 200x2048xf32{{.*}}variant=masked_softmax_k0_pv8_i32

fusion.fusion @softmax_bf16(%x: tensor<?x?xbf16>) -> tensor<?x?xbf16> {
  %0 = fusion.softmax %x dim = 1 : tensor<?x?xbf16>
  fusion.return %0 : tensor<?x?xbf16>
}

fusion.fusion @softmax_f32(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %0 = fusion.softmax %x dim = 1 : tensor<?x?xf32>
  fusion.return %0 : tensor<?x?xf32>
}

fusion.fusion @log_softmax_f16(%x: tensor<?x?x?xf16>) -> tensor<?x?x?xf16> {
  %0 = fusion.log_softmax %x dim = 2 : tensor<?x?x?xf16>
  fusion.return %0 : tensor<?x?x?xf16>
}

fusion.fusion @layernorm_bf16(%x: tensor<?x?xbf16>, %w: tensor<?xbf16>, %b: tensor<?xbf16>) -> tensor<?x?xbf16> {
  %0 = fusion.layer_norm %x weight(%w : tensor<?xbf16>) bias(%b : tensor<?xbf16>) axis = 1 eps = 1.0e-05 : tensor<?x?xbf16>
  fusion.return %0 : tensor<?x?xbf16>
}

fusion.fusion @layernorm_f64(%x: tensor<?x?xf64>, %w: tensor<?xf64>, %b: tensor<?xf64>) -> tensor<?x?xf64> {
  %0 = fusion.layer_norm %x weight(%w : tensor<?xf64>) bias(%b : tensor<?xf64>) axis = 1 eps = 1.0e-05 : tensor<?x?xf64>
  fusion.return %0 : tensor<?x?xf64>
}

fusion.fusion @rmsnorm_bf16(%x: tensor<?x?xbf16>, %w: tensor<?xbf16>) -> tensor<?x?xbf16> {
  %0 = fusion.rms_norm %x weight(%w : tensor<?xbf16>) axis = 1 eps = 1.0e-6 : tensor<?x?xbf16>
  fusion.return %0 : tensor<?x?xbf16>
}

// Two inputs read per row: both are staged (one region each).
fusion.fusion @add_rmsnorm_bf16(%x: tensor<?x?xbf16>, %r: tensor<?x?xbf16>, %w: tensor<?xbf16>) -> tensor<?x?xbf16> {
  %s = fusion.add %x, %r : tensor<?x?xbf16>
  %0 = fusion.rms_norm %s weight(%w : tensor<?xbf16>) axis = 1 eps = 1.0e-6 : tensor<?x?xbf16>
  fusion.return %0 : tensor<?x?xbf16>
}

// var_mean (one Welford state) with per-element results: x centered on the
// row's mean, scaled by its variance.
fusion.fusion @center_scale_bf16(%x: tensor<?x?xbf16>) -> tensor<?x?xbf16> {
  %v, %m = fusion.var_mean %x [1] correction = 0 : tensor<?x?xbf16> -> tensor<?xbf16>
  %d0 = fusion.dim %x, 0 : tensor<?x?xbf16>
  %d1 = fusion.dim %x, 1 : tensor<?x?xbf16>
  %mb = fusion.broadcast_in_dim %m [0] (%d0, %d1) : tensor<?xbf16> -> tensor<?x?xbf16>
  %vb = fusion.broadcast_in_dim %v [0] (%d0, %d1) : tensor<?xbf16> -> tensor<?x?xbf16>
  %c = fusion.sub %x, %mb : tensor<?x?xbf16>
  %y = fusion.mul %c, %vb : tensor<?x?xbf16>
  fusion.return %y : tensor<?x?xbf16>
}

// Several results: a per-row sum and max, and x / sum per element.
fusion.fusion @stats_f32(%x: tensor<?x?xf32>) -> (tensor<?xf32>, tensor<?x1xf32>, tensor<?x?xf32>) {
  %s = fusion.sum %x [1] keepdim : tensor<?x?xf32> -> tensor<?x1xf32>
  %m = fusion.max %x [1] : tensor<?x?xf32> -> tensor<?xf32>
  %d0 = fusion.dim %x, 0 : tensor<?x?xf32>
  %d1 = fusion.dim %x, 1 : tensor<?x?xf32>
  %e = fusion.expand %s(%d0, %d1) : tensor<?x1xf32> -> tensor<?x?xf32>
  %y = fusion.div %x, %e : tensor<?x?xf32>
  fusion.return %m, %s, %y : tensor<?xf32>, tensor<?x1xf32>, tensor<?x?xf32>
}

// NaN propagates through max and softmax in the staged variant too.
fusion.fusion @nan_rows(%x: tensor<?x?xf32>) -> (tensor<?xf32>, tensor<?x?xf32>) {
  %l = fusion.log %x : tensor<?x?xf32>
  %m = fusion.max %l [1] : tensor<?x?xf32> -> tensor<?xf32>
  %s = fusion.softmax %l dim = 1 : tensor<?x?xf32>
  fusion.return %m, %s : tensor<?xf32>, tensor<?x?xf32>
}

// An i1 input read per row: that variant keeps the row in registers.
fusion.fusion @masked_softmax(%x: tensor<?x?xf32>, %m: tensor<?x?xi1>) -> tensor<?x?xf32> {
  %y = fusion.neg %x : tensor<?x?xf32>
  %w = fusion.where %m, %x, %y : tensor<?x?xi1>, tensor<?x?xf32>
  %0 = fusion.softmax %w dim = 1 : tensor<?x?xf32>
  fusion.return %0 : tensor<?x?xf32>
}
