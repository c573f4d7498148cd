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
