// REQUIRES: cuda
// Index ops in pointwise kernels (Note [Index contexts] in
// lib/Conversion/FusionToGPU/Indexing.cpp), run against the reference
// interpreter: slices (symbolic bounds, steps), pads, cats (along the
// vectorized dim and others, aligned and not), index_select and gather,
// reshapes of computed values, iota, rand (bit-identical: max_abs_err=0)
// and randn, at odd and vector-friendly sizes and with strided and
// transposed inputs.

// RUN: fusion-run %s --fusion=rope --input=37x5x128 --input=37x128 --input=37x128 | FileCheck %s --check-prefix=ROPE
// ROPE: PASS rope 37x5x128xbf16{{.*}} variant=rope_k0_v8_i32
// RUN: fusion-run %s --fusion=rope --input=1x1x128 --input=1x128 --input=1x128 --layout=0:strided | FileCheck %s --check-prefix=ROPE1
// ROPE1: PASS rope 1x1x128xbf16
// RUN: fusion-run %s --fusion=slice_cat_mul --input=7x1001 --input=3 | FileCheck %s --check-prefix=SCM
// SCM: PASS slice_cat_mul 7x1001xf32{{.*}} max_abs_err=0
// RUN: fusion-run %s --fusion=slice_cat_mul --input=64x4096 --input=1024 | FileCheck %s --check-prefix=SCMV
// SCMV: PASS slice_cat_mul 64x4096xf32{{.*}} max_abs_err=0 {{.*}} variant=slice_cat_mul_k0_v4_i32
// RUN: fusion-run %s --fusion=slice_cat_mul --input=64x4096 --input=1024 --layout=0:transposed | FileCheck %s --check-prefix=SCMT
// SCMT: PASS slice_cat_mul 64x4096xf32{{.*}} max_abs_err=0
// Note [Whole vectors of shifted lanes]: a rotation by 1022 or 1021
// columns shifts the pieces off the vector alignment and puts the cuts
// inside vectors (the lane-wise path); halves cut at 2052 of 4104 put one
// cut inside a vector while the other vectors load whole, aligned; a pad
// by 3 columns reads misaligned vectors and vectors partly outside.
// RUN: fusion-run %s --fusion=slice_cat_mul --input=64x4096 --input=1022 | FileCheck %s --check-prefix=SCMU
// SCMU: PASS slice_cat_mul 64x4096xf32{{.*}} max_abs_err=0 {{.*}} variant=slice_cat_mul_k0_v4_i32
// RUN: fusion-run %s --fusion=slice_cat_mul --input=33x1000 --input=1021 | FileCheck %s --check-prefix=SCMO
// SCMO: PASS slice_cat_mul 33x1000xf32{{.*}} max_abs_err=0 {{.*}} variant=slice_cat_mul_k0_v4_i32
// RUN: fusion-run %s --fusion=halves_mul --input=64x4104 --input=64x4104 --input=4104 | FileCheck %s --check-prefix=HALVES
// HALVES: PASS halves_mul 64x4104xbf16{{.*}} max_abs_err=0 {{.*}} variant=halves_mul_k0_v8_i32
// RUN: fusion-run %s --fusion=halves_mul --input=64x4096 --input=64x4096 --input=4096 | FileCheck %s --check-prefix=HALVESA
// HALVESA: PASS halves_mul 64x4096xbf16{{.*}} max_abs_err=0 {{.*}} variant=halves_mul_k0_v8_i32
// RUN: fusion-run %s --fusion=pad --input=64x1024 | FileCheck %s --check-prefix=PADA
// PADA: PASS pad 64x1024xf32{{.*}} max_abs_err=0 {{.*}} variant=pad_k0_v4_i32
// RUN: fusion-run %s --fusion=strided_slice --input=33x1000 | FileCheck %s --check-prefix=STEP
// STEP: PASS strided_slice 33x1000xf16{{.*}} max_abs_err=0
// RUN: fusion-run %s --fusion=pad --input=7x13 | FileCheck %s --check-prefix=PAD
// PAD: PASS pad 7x13xf32{{.*}} max_abs_err=0
// RUN: fusion-run %s --fusion=pad --input=64x1024 --layout=0:strided | FileCheck %s --check-prefix=PADV
// PADV: PASS pad 64x1024xf32{{.*}} max_abs_err=0
// RUN: fusion-run %s --fusion=cat_rows --input=5x1000003 --input=2x1000003 | FileCheck %s --check-prefix=CATR
// CATR: PASS cat_rows 5x1000003xbf16{{.*}} max_abs_err=0
// RUN: fusion-run %s --fusion=embedding --input=100x4096 --input=333 | FileCheck %s --check-prefix=EMB
// EMB: PASS embedding 100x4096xbf16{{.*}} max_abs_err=0 {{.*}} variant=embedding_k0_v8_i32
// RUN: fusion-run %s --fusion=embedding --input=51x7 --input=1 | FileCheck %s --check-prefix=EMB1
// EMB1: PASS embedding 51x7xbf16{{.*}} max_abs_err=0
// RUN: fusion-run %s --fusion=target_logit --input=1000x51 --input=1000x1 | FileCheck %s --check-prefix=GATHER
// GATHER: PASS target_logit 1000x51xf32{{.*}} max_abs_err=0
// RUN: fusion-run %s --fusion=reshape_add --input=6x7x8 --input=42x8 | FileCheck %s --check-prefix=RESHAPE
// RESHAPE: PASS reshape_add 6x7x8xf32{{.*}} max_abs_err=0
// RUN: fusion-run %s --fusion=reshape_merge --input=6x7x9 --input=6x63 | FileCheck %s --check-prefix=MERGE
// MERGE: PASS reshape_merge 6x7x9xf32{{.*}} max_abs_err=0
// RUN: fusion-run %s --fusion=iota_add --input=1000003 | FileCheck %s --check-prefix=IOTA
// IOTA: PASS iota_add 1000003xf32{{.*}} max_abs_err=0
// RUN: fusion-run %s --fusion=dropout --input=1000x4096 --input=1000x4096 --input=1234 --input=8 | FileCheck %s --check-prefix=DROP
// DROP: PASS dropout 1000x4096xbf16{{.*}} max_abs_err=0 {{.*}} variant=dropout_k0_v8_i32
// RUN: fusion-run %s --fusion=dropout --input=7x1001 --input=7x1001 --input=-5 --input=3 | FileCheck %s --check-prefix=DROPS
// DROPS: PASS dropout 7x1001xbf16{{.*}} max_abs_err=0
// RUN: fusion-run %s --fusion=rand_f32 --input=1000003 --input=42 --input=0 | FileCheck %s --check-prefix=RAND
// RAND: PASS rand_f32 1000003xf32{{.*}} max_abs_err=0
// RUN: fusion-run %s --fusion=rand_f32 --input=1000000 --input=42 --input=0 | FileCheck %s --check-prefix=RANDV
// RANDV: PASS rand_f32 1000000xf32{{.*}} max_abs_err=0 {{.*}} variant=rand_f32_k0_v4_i32
// RUN: fusion-run %s --fusion=dropout --input=8192x4096 --input=8192x4096 --input=99 --input=5 | FileCheck %s --check-prefix=DROPL
// DROPL: PASS dropout 8192x4096xbf16{{.*}} max_abs_err=0
// Comparisons of rand with constants as tests on the Philox words (Note
// [Random thresholds] in include/fusion/Support/RandomThreshold.h): every
// predicate, the constant on either side, f32, bf16 and f16 draws,
// thresholds on the value grid, between grid points, and outside [0, 1).
// RUN: fusion-run %s --fusion=rand_thresholds --input=1000x4096 --input=77 --input=3 | FileCheck %s --check-prefix=THR
// THR: PASS rand_thresholds 1000x4096xf32{{.*}} max_abs_err=0 {{.*}} variant=rand_thresholds_k0_v4_i32
// RUN: fusion-run %s --fusion=rand_thresholds --input=7x1001 --input=-9 --input=12 | FileCheck %s --check-prefix=THRS
// THRS: PASS rand_thresholds 7x1001xf32{{.*}} max_abs_err=0
// RUN: fusion-run %s --fusion=randn_f32 --input=333x1024 --input=7 --input=1 --rtol=1e-5 --atol=1e-5 | FileCheck %s --check-prefix=RANDN
// RANDN: PASS randn_f32 333x1024xf32

// RoPE on [tokens, heads, 128]: x * cos + rotate_half(x) * sin, with
// rotate_half(x) = cat(-x[..., 64:], x[..., :64]).
fusion.fusion @rope(%x: tensor<?x?x128xbf16>, %cos: tensor<?x128xbf16>, %sin: tensor<?x128xbf16>) -> tensor<?x?x128xbf16> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %t = fusion.dim %x, 0 : tensor<?x?x128xbf16>
  %h = fusion.dim %x, 1 : tensor<?x?x128xbf16>
  %x1 = fusion.slice %x [%c0, %c0, %c0] [%t, %h, %c64] [%c1, %c1, %c1] : tensor<?x?x128xbf16> -> tensor<?x?x64xbf16>
  %x2 = fusion.slice %x [%c0, %c0, %c64] [%t, %h, %c128] [%c1, %c1, %c1] : tensor<?x?x128xbf16> -> tensor<?x?x64xbf16>
  %n2 = fusion.neg %x2 : tensor<?x?x64xbf16>
  %rot = fusion.cat %n2, %x1 dim = 2 : tensor<?x?x64xbf16>, tensor<?x?x64xbf16> -> tensor<?x?x128xbf16>
  %cb = fusion.broadcast_in_dim %cos [0, 2] (%t, %h) : tensor<?x128xbf16> -> tensor<?x?x128xbf16>
  %sb = fusion.broadcast_in_dim %sin [0, 2] (%t, %h) : tensor<?x128xbf16> -> tensor<?x?x128xbf16>
  %a = fusion.mul %x, %cb : tensor<?x?x128xbf16>
  %b = fusion.mul %rot, %sb : tensor<?x?x128xbf16>
  %y = fusion.add %a, %b : tensor<?x?x128xbf16>
  fusion.return %y : tensor<?x?x128xbf16>
}

// Symbolic bounds: y = cat(x[:, k:], x[:, :k]) * x (a rotation by k
// columns), so the cat's boundary is n - k.
fusion.fusion @slice_cat_mul(%x: tensor<?x?xf32>, %k: index) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = fusion.dim %x, 0 : tensor<?x?xf32>
  %n = fusion.dim %x, 1 : tensor<?x?xf32>
  %hi = fusion.slice %x [%c0, %k] [%m, %n] [%c1, %c1] : tensor<?x?xf32> -> tensor<?x?xf32>
  %lo = fusion.slice %x [%c0, %c0] [%m, %k] [%c1, %c1] : tensor<?x?xf32> -> tensor<?x?xf32>
  %r = fusion.cat %hi, %lo dim = 1 : tensor<?x?xf32>, tensor<?x?xf32> -> tensor<?x?xf32>
  %y = fusion.mul %r, %x : tensor<?x?xf32>
  fusion.return %y : tensor<?x?xf32>
}

// The suite's slice + cat + mul: cat(x[:, :n/2], y[:, n/2:]) * w.
fusion.fusion @halves_mul(%x: tensor<?x?xbf16>, %y: tensor<?x?xbf16>, %w: tensor<?xbf16>) -> tensor<?x?xbf16> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %m = fusion.dim %x, 0 : tensor<?x?xbf16>
  %n = fusion.dim %x, 1 : tensor<?x?xbf16>
  %h = arith.divui %n, %c2 : index
  %a = fusion.slice %x [%c0, %c0] [%m, %h] [%c1, %c1] : tensor<?x?xbf16> -> tensor<?x?xbf16>
  %b = fusion.slice %y [%c0, %h] [%m, %n] [%c1, %c1] : tensor<?x?xbf16> -> tensor<?x?xbf16>
  %c = fusion.cat %a, %b dim = 1 : tensor<?x?xbf16>, tensor<?x?xbf16> -> tensor<?x?xbf16>
  %wb = fusion.broadcast_in_dim %w [1] (%m, %n) : tensor<?xbf16> -> tensor<?x?xbf16>
  %o = fusion.mul %c, %wb : tensor<?x?xbf16>
  fusion.return %o : tensor<?x?xbf16>
}

// Steps of 2 (rows) and 3 (columns) from offsets 1 and 2.
fusion.fusion @strided_slice(%x: tensor<?x?xf16>) -> tensor<?x?xf16> {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %m = fusion.dim %x, 0 : tensor<?x?xf16>
  %n = fusion.dim %x, 1 : tensor<?x?xf16>
  %s = fusion.slice %x [%c1, %c2] [%m, %n] [%c2, %c3] : tensor<?x?xf16> -> tensor<?x?xf16>
  %y = fusion.abs %s : tensor<?x?xf16>
  fusion.return %y : tensor<?x?xf16>
}

fusion.fusion @pad(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %v = arith.constant 0.5 : f32
  %e = fusion.abs %x : tensor<?x?xf32>
  %p = fusion.pad %e, %v low [1, 3] high [2, 5] : tensor<?x?xf32>, f32 -> tensor<?x?xf32>
  %y = fusion.neg %p : tensor<?x?xf32>
  fusion.return %y : tensor<?x?xf32>
}

// A cat along the rows (uniform along the vectorized dim).
fusion.fusion @cat_rows(%a: tensor<?x?xbf16>, %b: tensor<?x?xbf16>) -> tensor<?x?xbf16> {
  %r = fusion.cat %a, %b dim = 0 : tensor<?x?xbf16>, tensor<?x?xbf16> -> tensor<?x?xbf16>
  %y = fusion.relu %r : tensor<?x?xbf16>
  fusion.return %y : tensor<?x?xbf16>
}

// An embedding lookup: rows of the table picked by |ids| (fusion-run's
// integers are in [-50, 50], the table has at least 51 rows).
fusion.fusion @embedding(%table: tensor<?x?xbf16>, %ids: tensor<?xi64>) -> tensor<?x?xbf16> {
  %i = fusion.abs %ids : tensor<?xi64>
  %e = fusion.index_select %table, %i dim = 0 : tensor<?x?xbf16>, tensor<?xi64> -> tensor<?x?xbf16>
  fusion.return %e : tensor<?x?xbf16>
}

// The target logit of each row (cross-entropy's gather).
fusion.fusion @target_logit(%logits: tensor<?x?xf32>, %target: tensor<?x1xi64>) -> tensor<?x1xf32> {
  %i = fusion.abs %target : tensor<?x1xi64>
  %g = fusion.gather %logits, %i dim = 1 : tensor<?x?xf32>, tensor<?x1xi64> -> tensor<?x1xf32>
  fusion.return %g : tensor<?x1xf32>
}

// A reshape of a computed value (merge of the leading dims), then compute.
fusion.fusion @reshape_add(%x: tensor<?x?x8xf32>, %y: tensor<?x8xf32>) -> tensor<?x8xf32> {
  %a = fusion.dim %x, 0 : tensor<?x?x8xf32>
  %b = fusion.dim %x, 1 : tensor<?x?x8xf32>
  %ab = arith.muli %a, %b : index
  %e = fusion.abs %x : tensor<?x?x8xf32>
  %r = fusion.reshape %e (%ab) : tensor<?x?x8xf32> -> tensor<?x8xf32>
  %s = fusion.add %r, %y : tensor<?x8xf32>
  fusion.return %s : tensor<?x8xf32>
}

// A reshape that merges the innermost dims (scalar variants).
fusion.fusion @reshape_merge(%x: tensor<?x?x?xf32>, %y: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %a = fusion.dim %x, 0 : tensor<?x?x?xf32>
  %b = fusion.dim %x, 1 : tensor<?x?x?xf32>
  %c = fusion.dim %x, 2 : tensor<?x?x?xf32>
  %bc = arith.muli %b, %c : index
  %e = fusion.neg %x : tensor<?x?x?xf32>
  %r = fusion.reshape %e (%a, %bc) : tensor<?x?x?xf32> -> tensor<?x?xf32>
  %s = fusion.mul %r, %y : tensor<?x?xf32>
  fusion.return %s : tensor<?x?xf32>
}

fusion.fusion @iota_add(%x: tensor<?xf32>) -> tensor<?xf32> {
  %start = arith.constant 0.5 : f32
  %step = arith.constant 2.0 : f32
  %n = fusion.dim %x, 0 : tensor<?xf32>
  %i = fusion.iota %start, %step (%n) : f32 -> tensor<?xf32>
  %y = fusion.add %x, %i : tensor<?xf32>
  fusion.return %y : tensor<?xf32>
}

// Dropout (p = 0.25) and a residual add: y = where(u >= p, x / (1 - p), 0) + r.
fusion.fusion @dropout(%x: tensor<?x?xbf16>, %res: tensor<?x?xbf16>, %seed: i64, %offset: i64) -> tensor<?x?xbf16> {
  %m = fusion.dim %x, 0 : tensor<?x?xbf16>
  %n = fusion.dim %x, 1 : tensor<?x?xbf16>
  %u = fusion.rand %seed, %offset (%m, %n) : tensor<?x?xf32>
  %p = arith.constant 0.25 : f32
  %pb = fusion.broadcast_in_dim %p [] (%m, %n) : f32 -> tensor<?x?xf32>
  %keep = fusion.ge %u, %pb : tensor<?x?xf32>
  %scale = arith.constant 1.3330078125 : bf16
  %zero = arith.constant 0.0 : bf16
  %sb = fusion.broadcast_in_dim %scale [] (%m, %n) : bf16 -> tensor<?x?xbf16>
  %zb = fusion.broadcast_in_dim %zero [] (%m, %n) : bf16 -> tensor<?x?xbf16>
  %xs = fusion.mul %x, %sb : tensor<?x?xbf16>
  %d = fusion.where %keep, %xs, %zb : tensor<?x?xi1>, tensor<?x?xbf16>
  %y = fusion.add %d, %res : tensor<?x?xbf16>
  fusion.return %y : tensor<?x?xbf16>
}

fusion.fusion @rand_f32(%x: tensor<?xf32>, %seed: i64, %offset: i64) -> tensor<?xf32> {
  %n = fusion.dim %x, 0 : tensor<?xf32>
  %u = fusion.rand %seed, %offset (%n) : tensor<?xf32>
  fusion.return %u : tensor<?xf32>
}

fusion.fusion @randn_f32(%x: tensor<?x?xf32>, %seed: i64, %offset: i64) -> tensor<?x?xf32> {
  %m = fusion.dim %x, 0 : tensor<?x?xf32>
  %n = fusion.dim %x, 1 : tensor<?x?xf32>
  %u = fusion.randn %seed, %offset (%m, %n) : tensor<?x?xf32>
  %y = fusion.add %u, %x : tensor<?x?xf32>
  fusion.return %y : tensor<?x?xf32>
}

// Each mask adds its own power of two. The first rand's every use is a
// comparison (word tests); the last one's value is also used (floats).
fusion.fusion @rand_thresholds(%x: tensor<?x?xf32>, %seed: i64, %offset: i64) -> tensor<?x?xf32> {
  %m = fusion.dim %x, 0 : tensor<?x?xf32>
  %n = fusion.dim %x, 1 : tensor<?x?xf32>
  %u = fusion.rand %seed, %offset (%m, %n) : tensor<?x?xf32>
  %ub = fusion.rand %seed, %offset (%m, %n) : tensor<?x?xbf16>
  %uh = fusion.rand %seed, %offset (%m, %n) : tensor<?x?xf16>
  %uv = fusion.rand %offset, %seed (%m, %n) : tensor<?x?xf32>
  %f01 = arith.constant 0.1 : f32
  %fhalf = arith.constant 0.5 : f32
  %fq = arith.constant 0.25 : f32
  %fzero = arith.constant 0.0 : f32
  %fone = arith.constant 1.0 : f32
  %fneg = arith.constant -1.0 : f32
  %btop = arith.constant 0.99609375 : bf16
  %bhalf = arith.constant 0.5 : bf16
  %h03 = arith.constant 0.3 : f16
  %c01 = fusion.broadcast_in_dim %f01 [] (%m, %n) : f32 -> tensor<?x?xf32>
  %chalf = fusion.broadcast_in_dim %fhalf [] (%m, %n) : f32 -> tensor<?x?xf32>
  %cq = fusion.broadcast_in_dim %fq [] (%m, %n) : f32 -> tensor<?x?xf32>
  %czero = fusion.broadcast_in_dim %fzero [] (%m, %n) : f32 -> tensor<?x?xf32>
  %cone = fusion.broadcast_in_dim %fone [] (%m, %n) : f32 -> tensor<?x?xf32>
  %cneg = fusion.broadcast_in_dim %fneg [] (%m, %n) : f32 -> tensor<?x?xf32>
  %cbtop = fusion.broadcast_in_dim %btop [] (%m, %n) : bf16 -> tensor<?x?xbf16>
  %cbhalf = fusion.broadcast_in_dim %bhalf [] (%m, %n) : bf16 -> tensor<?x?xbf16>
  %ch03 = fusion.broadcast_in_dim %h03 [] (%m, %n) : f16 -> tensor<?x?xf16>
  %k0 = fusion.ge %u, %c01 : tensor<?x?xf32>
  %k1 = fusion.gt %u, %chalf : tensor<?x?xf32>
  %k2 = fusion.lt %cq, %u : tensor<?x?xf32>
  %k3 = fusion.le %u, %cq : tensor<?x?xf32>
  %k4 = fusion.lt %u, %czero : tensor<?x?xf32>
  %k5 = fusion.ge %u, %cneg : tensor<?x?xf32>
  %k6 = fusion.ge %u, %cone : tensor<?x?xf32>
  %k7 = fusion.le %ub, %cbtop : tensor<?x?xbf16>
  %k8 = fusion.ge %ub, %cbhalf : tensor<?x?xbf16>
  %k9 = fusion.gt %uh, %ch03 : tensor<?x?xf16>
  %k10 = fusion.ge %uv, %chalf : tensor<?x?xf32>
  %vk = fusion.where %k10, %uv, %czero : tensor<?x?xi1>, tensor<?x?xf32>
  %acc0 = fusion.add %x, %vk : tensor<?x?xf32>
  %w0 = arith.constant 1.0 : f32
  %wb0 = fusion.broadcast_in_dim %w0 [] (%m, %n) : f32 -> tensor<?x?xf32>
  %t0 = fusion.where %k0, %wb0, %czero : tensor<?x?xi1>, tensor<?x?xf32>
  %acc1 = fusion.add %acc0, %t0 : tensor<?x?xf32>
  %w1 = arith.constant 2.0 : f32
  %wb1 = fusion.broadcast_in_dim %w1 [] (%m, %n) : f32 -> tensor<?x?xf32>
  %t1 = fusion.where %k1, %wb1, %czero : tensor<?x?xi1>, tensor<?x?xf32>
  %acc2 = fusion.add %acc1, %t1 : tensor<?x?xf32>
  %w2 = arith.constant 4.0 : f32
  %wb2 = fusion.broadcast_in_dim %w2 [] (%m, %n) : f32 -> tensor<?x?xf32>
  %t2 = fusion.where %k2, %wb2, %czero : tensor<?x?xi1>, tensor<?x?xf32>
  %acc3 = fusion.add %acc2, %t2 : tensor<?x?xf32>
  %w3 = arith.constant 8.0 : f32
  %wb3 = fusion.broadcast_in_dim %w3 [] (%m, %n) : f32 -> tensor<?x?xf32>
  %t3 = fusion.where %k3, %wb3, %czero : tensor<?x?xi1>, tensor<?x?xf32>
  %acc4 = fusion.add %acc3, %t3 : tensor<?x?xf32>
  %w4 = arith.constant 16.0 : f32
  %wb4 = fusion.broadcast_in_dim %w4 [] (%m, %n) : f32 -> tensor<?x?xf32>
  %t4 = fusion.where %k4, %wb4, %czero : tensor<?x?xi1>, tensor<?x?xf32>
  %acc5 = fusion.add %acc4, %t4 : tensor<?x?xf32>
  %w5 = arith.constant 32.0 : f32
  %wb5 = fusion.broadcast_in_dim %w5 [] (%m, %n) : f32 -> tensor<?x?xf32>
  %t5 = fusion.where %k5, %wb5, %czero : tensor<?x?xi1>, tensor<?x?xf32>
  %acc6 = fusion.add %acc5, %t5 : tensor<?x?xf32>
  %w6 = arith.constant 64.0 : f32
  %wb6 = fusion.broadcast_in_dim %w6 [] (%m, %n) : f32 -> tensor<?x?xf32>
  %t6 = fusion.where %k6, %wb6, %czero : tensor<?x?xi1>, tensor<?x?xf32>
  %acc7 = fusion.add %acc6, %t6 : tensor<?x?xf32>
  %w7 = arith.constant 128.0 : f32
  %wb7 = fusion.broadcast_in_dim %w7 [] (%m, %n) : f32 -> tensor<?x?xf32>
  %t7 = fusion.where %k7, %wb7, %czero : tensor<?x?xi1>, tensor<?x?xf32>
  %acc8 = fusion.add %acc7, %t7 : tensor<?x?xf32>
  %w8 = arith.constant 256.0 : f32
  %wb8 = fusion.broadcast_in_dim %w8 [] (%m, %n) : f32 -> tensor<?x?xf32>
  %t8 = fusion.where %k8, %wb8, %czero : tensor<?x?xi1>, tensor<?x?xf32>
  %acc9 = fusion.add %acc8, %t8 : tensor<?x?xf32>
  %w9 = arith.constant 512.0 : f32
  %wb9 = fusion.broadcast_in_dim %w9 [] (%m, %n) : f32 -> tensor<?x?xf32>
  %t9 = fusion.where %k9, %wb9, %czero : tensor<?x?xi1>, tensor<?x?xf32>
  %acc10 = fusion.add %acc9, %t9 : tensor<?x?xf32>
  fusion.return %acc10 : tensor<?x?xf32>
}
