// REQUIRES: cuda
// Normalizations and other reductions with epilogues on the GPU against the
// reference interpreter. Rows of 1, 31, 1000, 4097 and 100003 elements and
// row counts of 1, 3 and 65537; the persistent variants (`_pv8`, `_ps`:
// the row stays in registers) up to 16384 (8192 scalar) elements, the
// streaming ones past that (2^22 elements: each pass reads the row from
// memory), the ragged one (`_rv8`) for row lengths that are not a multiple
// of 8 (test/GPU/ragged-rows.mlir has more); f32, bf16, f16 and f64;
// strided, transposed and misaligned inputs. f32 per-row sums use
// --atol=1e-3 (f32 accumulation in another
// order than the interpreter's f64).

// RUN: fusion-run %s --fusion=softmax_bf16 --input=1x1 | FileCheck %s --check-prefix=SM1
// SM1: PASS softmax_bf16 1x1xbf16 {{.*}}variant=softmax_bf16_k0_ps_i32
// RUN: fusion-run %s --fusion=softmax_bf16 --input=3x31 | FileCheck %s --check-prefix=SM31
// SM31: PASS softmax_bf16 3x31xbf16 {{.*}}variant=softmax_bf16_k0_prv8_i32
// RUN: fusion-run %s --fusion=softmax_bf16 --input=65537x8 | FileCheck %s --check-prefix=SMMANY
// SMMANY: PASS softmax_bf16 65537x8xbf16 {{.*}}variant=softmax_bf16_k0_pv8_i32
// RUN: fusion-run %s --fusion=softmax_bf16 --input=1000x1000 | FileCheck %s --check-prefix=SM1000
// SM1000: PASS softmax_bf16 1000x1000xbf16 {{.*}}variant=softmax_bf16_k0_pv8_i32
// RUN: fusion-run %s --fusion=softmax_bf16 --input=7x4097 | FileCheck %s --check-prefix=SM4097
// SM4097: PASS softmax_bf16 7x4097xbf16 {{.*}}variant=softmax_bf16_k0_prv8_i32
// RUN: fusion-run %s --fusion=softmax_bf16 --input=333x4096 | FileCheck %s --check-prefix=SM4096
// SM4096: PASS softmax_bf16 333x4096xbf16 {{.*}}variant=softmax_bf16_k0_pv8_i32
// RUN: fusion-run %s --fusion=softmax_bf16 --input=65x16384 | FileCheck %s --check-prefix=SM16K
// SM16K: PASS softmax_bf16 65x16384xbf16 {{.*}}variant=softmax_bf16_k0_plv8_i32
// RUN: fusion-run %s --fusion=softmax_bf16 --input=3x100003 | FileCheck %s --check-prefix=SMSTREAM
// SMSTREAM: PASS softmax_bf16 3x100003xbf16 {{.*}}variant=softmax_bf16_k0_rv8_i32
// RUN: fusion-run %s --fusion=softmax_bf16 --inner-cluster=0 --input=3x4194304 | FileCheck %s --check-prefix=SMHUGE
// SMHUGE: PASS softmax_bf16 3x4194304xbf16 {{.*}}variant=softmax_bf16_k0_v8_i32
// RUN: fusion-run %s --fusion=softmax_bf16 --input=1000x1024 --layout=0:transposed | FileCheck %s --check-prefix=SMT
// SMT: PASS softmax_bf16 1000x1024xbf16 {{.*}}variant=softmax_bf16_k0_ps_i32
// RUN: fusion-run %s --fusion=softmax_bf16 --input=1000x1024 --misalign | FileCheck %s --check-prefix=SMMIS
// SMMIS: PASS softmax_bf16 1000x1024xbf16 {{.*}}variant=softmax_bf16_k0_ps_i32
// RUN: fusion-run %s --fusion=softmax_f32 --input=257x2048 | FileCheck %s --check-prefix=SMF32
// SMF32: PASS softmax_f32 257x2048xf32 {{.*}}variant=softmax_f32_k0_pv4_i32
// RUN: fusion-run %s --fusion=log_softmax_f16 --input=4x5x1000 | FileCheck %s --check-prefix=LSM
// LSM: PASS log_softmax_f16 4x5x1000xf16
// RUN: fusion-run %s --fusion=layernorm_bf16 --input=1000x4096 --input=4096 --input=4096 | FileCheck %s --check-prefix=LN
// LN: PASS layernorm_bf16 1000x4096xbf16,4096xbf16,4096xbf16 {{.*}}variant=layernorm_bf16_k0_pv8_i32
// RUN: fusion-run %s --fusion=layernorm_bf16 --input=31x1000 --input=1000 --input=1000 | FileCheck %s --check-prefix=LNODD
// LNODD: PASS layernorm_bf16 31x1000xbf16,1000xbf16,1000xbf16 {{.*}}variant=layernorm_bf16_k0_pv8_i32
// RUN: fusion-run %s --fusion=layernorm_bf16 --input=2x100003 --input=100003 --input=100003 | FileCheck %s --check-prefix=LNLONG
// LNLONG: PASS layernorm_bf16 2x100003xbf16,100003xbf16,100003xbf16 {{.*}}variant=layernorm_bf16_k0_rv8_i32
// RUN: fusion-run %s --fusion=layernorm_f64 --input=100x333 --input=333 --input=333 | FileCheck %s --check-prefix=LN64
// LN64: PASS layernorm_f64 100x333xf64
// RUN: fusion-run %s --fusion=rmsnorm_bf16 --input=1024x1024 --input=1024 | FileCheck %s --check-prefix=RMS
// RMS: PASS rmsnorm_bf16 1024x1024xbf16,1024xbf16 {{.*}}variant=rmsnorm_bf16_k0_pv8_i32
// RUN: fusion-run %s --fusion=rmsnorm_bf16 --inner-cluster=0 --input=3x4194304 --input=4194304 | FileCheck %s --check-prefix=RMSHUGE
// RMSHUGE: PASS rmsnorm_bf16 3x4194304xbf16,4194304xbf16 {{.*}}variant=rmsnorm_bf16_k0_v8_i32
// RUN: fusion-run %s --fusion=var_mean_f32 --atol=1e-3 --input=50x1000 | FileCheck %s --check-prefix=VM
// VM: PASS var_mean_f32 50x1000xf32
// RUN: fusion-run %s --fusion=var_mean_f32 --atol=1e-3 --input=3x8 --layout=0:strided | FileCheck %s --check-prefix=VMS
// VMS: PASS var_mean_f32 3x8xf32
// RUN: fusion-run %s --fusion=stats_f32 --atol=1e-3 --input=129x4097 | FileCheck %s --check-prefix=STATS
// STATS: PASS stats_f32 129x4097xf32
// RUN: fusion-run %s --fusion=stats_f32 --atol=1e-3 --input=129x4096 | FileCheck %s --check-prefix=STATSV
// STATSV: PASS stats_f32 129x4096xf32 {{.*}}variant=stats_f32_k0_pv4_i32
// Empty rows: a sum is 0, a max is -inf (PyTorch raises on the max of an
// empty dim; docs/dialect.md documents the result here), no elements
// to normalize; no rows: nothing to write.
// RUN: fusion-run %s --fusion=stats_f32 --input=5x0 | FileCheck %s --check-prefix=EMPTY
// EMPTY: PASS stats_f32 5x0xf32
// RUN: fusion-run %s --fusion=softmax_bf16 --input=0x7 | FileCheck %s --check-prefix=NOROWS
// NOROWS: PASS softmax_bf16 0x7xbf16
// RUN: fusion-run %s --fusion=nan_rows --input=64x8 | FileCheck %s --check-prefix=NAN
// NAN: PASS nan_rows 64x8xf32
// The online state's sum as a result (Note [One mask for online states]):
// rows with masked elements, empty rows (the sum is 0), persistent and
// streaming variants.
// RUN: fusion-run %s --fusion=sumexp_bf16 --input=5x0 | FileCheck %s --check-prefix=SUMEXP
// RUN: fusion-run %s --fusion=sumexp_bf16 --input=7x33 | FileCheck %s --check-prefix=SUMEXP
// RUN: fusion-run %s --fusion=sumexp_bf16 --input=1000x4096 | FileCheck %s --check-prefix=SUMEXP
// RUN: fusion-run %s --fusion=sumexp_bf16 --input=300x4100 | FileCheck %s --check-prefix=SUMEXP
// RUN: fusion-run %s --fusion=sumexp_bf16 --input=3x100003 --inner-cluster=0 | FileCheck %s --check-prefix=SUMEXP
// RUN: fusion-run %s --fusion=sumexp_bf16 --input=3x100000 --inner-cluster=0 --inner-long-cluster=0 | FileCheck %s --check-prefix=SUMEXP
// RUN: fusion-run %s --fusion=sumexp_bf16 --input=16x100000 | FileCheck %s --check-prefix=SUMEXP
// SUMEXP: PASS sumexp_bf16

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

fusion.fusion @var_mean_f32(%x: tensor<?x?xf32>) -> (tensor<?xf32>, tensor<?xf32>) {
  %v, %m = fusion.var_mean %x [1] correction = 1 : tensor<?x?xf32> -> tensor<?xf32>
  fusion.return %v, %m : tensor<?xf32>, tensor<?xf32>
}

// Several results: a per-row sum and max, and x / sum per element.
fusion.fusion @stats_f32(%x: tensor<?x?xf32>) -> (tensor<?xf32>, tensor<?x1xf32>, tensor<?x?xf32>) {
  %s = fusion.sum %x [1] keepdim : tensor<?x?xf32> -> tensor<?x1xf32>
  %m = fusion.max %x [1] : tensor<?x?xf32> -> tensor<?xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %d0 = fusion.dim %x, 0 : tensor<?x?xf32>
  %d1 = fusion.dim %x, 1 : tensor<?x?xf32>
  %e = fusion.expand %s(%d0, %d1) : tensor<?x1xf32> -> tensor<?x?xf32>
  %y = fusion.div %x, %e : tensor<?x?xf32>
  fusion.return %m, %s, %y : tensor<?xf32>, tensor<?x1xf32>, tensor<?x?xf32>
}

// The max and the sum of exp(x - max) (one online state), and softmax.
fusion.fusion @sumexp_bf16(%x: tensor<?x?xbf16>) -> (tensor<?x1xbf16>, tensor<?x?xbf16>) {
  %m = fusion.max %x [1] keepdim : tensor<?x?xbf16> -> tensor<?x1xbf16>
  %d0 = fusion.dim %x, 0 : tensor<?x?xbf16>
  %d1 = fusion.dim %x, 1 : tensor<?x?xbf16>
  %em = fusion.expand %m(%d0, %d1) : tensor<?x1xbf16> -> tensor<?x?xbf16>
  %d = fusion.sub %x, %em : tensor<?x?xbf16>
  %p = fusion.exp %d : tensor<?x?xbf16>
  %s = fusion.sum %p [1] keepdim : tensor<?x?xbf16> -> tensor<?x1xbf16>
  %es = fusion.expand %s(%d0, %d1) : tensor<?x1xbf16> -> tensor<?x?xbf16>
  %y = fusion.div %p, %es : tensor<?x?xbf16>
  fusion.return %s, %y : tensor<?x1xbf16>, tensor<?x?xbf16>
}

// NaN propagates through max and sum (as in PyTorch): log of the negative
// inputs gives NaN in most rows.
fusion.fusion @nan_rows(%x: tensor<?x?xf32>) -> (tensor<?xf32>, tensor<?x?xf32>) {
  %l = fusion.log %x : tensor<?x?xf32>
  %m = fusion.max %l [1] : tensor<?x?xf32> -> tensor<?xf32>
  %s = fusion.softmax %l dim = 1 : tensor<?x?xf32>
  fusion.return %m, %s : tensor<?xf32>, tensor<?x?xf32>
}

// Per-element results of 1, 2 and 8 bytes beside each other: whether x / max
// is above x (i1, stored as i8), x - max in f16 and x / max in f64 (Note
// [Column tile pitch]: each tile pads its rows by its own element size).
fusion.fusion @mixed_tiles(%x: tensor<?x?xf32>) -> (tensor<?x?xi1>, tensor<?x?xf16>, tensor<?x?xf64>) {
  %m = fusion.max %x [1] keepdim : tensor<?x?xf32> -> tensor<?x1xf32>
  %d0 = fusion.dim %x, 0 : tensor<?x?xf32>
  %d1 = fusion.dim %x, 1 : tensor<?x?xf32>
  %e = fusion.expand %m(%d0, %d1) : tensor<?x1xf32> -> tensor<?x?xf32>
  %c = fusion.sub %x, %e : tensor<?x?xf32>
  %c16 = fusion.cast %c : tensor<?x?xf32> to tensor<?x?xf16>
  %q = fusion.div %x, %e : tensor<?x?xf32>
  %above = fusion.gt %q, %x : tensor<?x?xf32>
  %q64 = fusion.cast %q : tensor<?x?xf32> to tensor<?x?xf64>
  fusion.return %above, %c16, %q64 : tensor<?x?xi1>, tensor<?x?xf16>, tensor<?x?xf64>
}
