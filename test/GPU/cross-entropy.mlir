// REQUIRES: cuda
// Cross-entropy forward in one inner-reduction kernel (Note [Index ops in
// row kernels] in lib/Dialect/Fusion/Transforms/RowKernel.cpp): the row's
// max and sum of exp in one pass and the target logit gathered per row,
// run against the interpreter. Targets are abs() of fusion-run's integers
// (0..50), so rows of at least 51 elements keep them in range. Rows of 51
// (a warp), 32000, 50257 (odd: scalar variants) and 128256, few long rows
// (1 x 1000003: split rows), strided and transposed logits, every float
// dtype.

// RUN: fusion-run %s --fusion=ce_bf16 --input=7x51 --input=7x1 --atol=2e-2 | FileCheck %s --check-prefix=B7
// B7: PASS ce_bf16 7x51xbf16{{.*}} variant=ce_bf16_k0_rv8_i32
// RUN: fusion-run %s --fusion=ce_bf16 --input=64x32000 --input=64x1 --atol=6e-2 | FileCheck %s --check-prefix=B32K
// B32K: PASS ce_bf16 64x32000xbf16{{.*}} variant=ce_bf16_k0_{{(g)?}}v8_i32
// RUN: fusion-run %s --fusion=ce_bf16 --input=33x50257 --input=33x1 --atol=6e-2 | FileCheck %s --check-prefix=BODD
// BODD: PASS ce_bf16 33x50257xbf16{{.*}} variant=ce_bf16_k0_{{(g)?}}s_i32
// RUN: fusion-run %s --fusion=ce_bf16 --input=1x1000003 --input=1x1 --atol=6e-2 | FileCheck %s --check-prefix=BSPLIT
// BSPLIT: PASS ce_bf16 1x1000003xbf16{{.*}} variant=ce_bf16_k0_g
// RUN: fusion-run %s --fusion=ce_bf16 --input=16x128256 --input=16x1 --atol=6e-2 --layout=0:strided | FileCheck %s --check-prefix=BSTR
// BSTR: PASS ce_bf16 16x128256xbf16
// RUN: fusion-run %s --fusion=ce_bf16 --input=300x77 --input=300x1 --atol=2e-2 --layout=0:transposed | FileCheck %s --check-prefix=BT
// BT: PASS ce_bf16 300x77xbf16
// RUN: fusion-run %s --fusion=ce_f32 --input=1x51 --input=1x1 --atol=1e-4 | FileCheck %s --check-prefix=F1
// F1: PASS ce_f32 1x51xf32
// RUN: fusion-run %s --fusion=ce_f32 --input=1000x4099 --input=1000x1 --atol=1e-4 | FileCheck %s --check-prefix=F
// F: PASS ce_f32 1000x4099xf32
// RUN: fusion-run %s --fusion=ce_f16 --input=257x1000 --input=257x1 --atol=2e-2 | FileCheck %s --check-prefix=H
// H: PASS ce_f16 257x1000xf16{{.*}} variant=ce_f16_k0_v8_i32
// RUN: fusion-run %s --fusion=ce_f64 --input=9x100 --input=9x1 --atol=1e-9 | FileCheck %s --check-prefix=D
// D: PASS ce_f64 9x100xf64
// RUN: fusion-run %s --fusion=ce_rank1_target --input=129x5000 --input=129 --atol=6e-2 | FileCheck %s --check-prefix=R1
// R1: PASS ce_rank1_target 129x5000xbf16{{.*}} variant=ce_rank1_target_k0_v8_i32
// RUN: fusion-run %s --fusion=ce_lse --input=255x32000 --input=255x1 --atol=1e-3 | FileCheck %s --check-prefix=LSE
// LSE: PASS ce_lse 255x32000xbf16{{.*}} variant=ce_lse_k0_{{(g)?}}v8_i32
// RUN: fusion-run %s --fusion=max_and_value_at_argmax --input=100x999 --atol=0 | FileCheck %s --check-prefix=ARG
// ARG: PASS max_and_value_at_argmax 100x999xf32{{.*}} max_abs_err=0

// The loss as PyTorch's F.cross_entropy(reduction="none") computes it:
// -log_softmax(x)[target].
fusion.fusion @ce_bf16(%x: tensor<?x?xbf16>, %t: tensor<?x1xi64>) -> tensor<?x1xbf16> {
  %i = fusion.abs %t : tensor<?x1xi64>
  %l = fusion.log_softmax %x dim = 1 : tensor<?x?xbf16>
  %g = fusion.gather %l, %i dim = 1 : tensor<?x?xbf16>, tensor<?x1xi64> -> tensor<?x1xbf16>
  %n = fusion.neg %g : tensor<?x1xbf16>
  fusion.return %n : tensor<?x1xbf16>
}

fusion.fusion @ce_f32(%x: tensor<?x?xf32>, %t: tensor<?x1xi64>) -> tensor<?x1xf32> {
  %i = fusion.abs %t : tensor<?x1xi64>
  %l = fusion.log_softmax %x dim = 1 : tensor<?x?xf32>
  %g = fusion.gather %l, %i dim = 1 : tensor<?x?xf32>, tensor<?x1xi64> -> tensor<?x1xf32>
  %n = fusion.neg %g : tensor<?x1xf32>
  fusion.return %n : tensor<?x1xf32>
}

fusion.fusion @ce_f16(%x: tensor<?x?xf16>, %t: tensor<?x1xi64>) -> tensor<?x1xf16> {
  %i = fusion.abs %t : tensor<?x1xi64>
  %l = fusion.log_softmax %x dim = 1 : tensor<?x?xf16>
  %g = fusion.gather %l, %i dim = 1 : tensor<?x?xf16>, tensor<?x1xi64> -> tensor<?x1xf16>
  %n = fusion.neg %g : tensor<?x1xf16>
  fusion.return %n : tensor<?x1xf16>
}

fusion.fusion @ce_f64(%x: tensor<?x?xf64>, %t: tensor<?x1xi64>) -> tensor<?x1xf64> {
  %i = fusion.abs %t : tensor<?x1xi64>
  %l = fusion.log_softmax %x dim = 1 : tensor<?x?xf64>
  %g = fusion.gather %l, %i dim = 1 : tensor<?x?xf64>, tensor<?x1xi64> -> tensor<?x1xf64>
  %n = fusion.neg %g : tensor<?x1xf64>
  fusion.return %n : tensor<?x1xf64>
}

// Targets of shape [M], as PyTorch takes them, broadcast to [M, 1].
fusion.fusion @ce_rank1_target(%x: tensor<?x?xbf16>, %t: tensor<?xi64>) -> tensor<?x1xbf16> {
  %m = fusion.dim %x, 0 : tensor<?x?xbf16>
  %a = fusion.abs %t : tensor<?xi64>
  %i = fusion.broadcast_in_dim %a [0] (%m) : tensor<?xi64> -> tensor<?x1xi64>
  %l = fusion.log_softmax %x dim = 1 : tensor<?x?xbf16>
  %g = fusion.gather %l, %i dim = 1 : tensor<?x?xbf16>, tensor<?x1xi64> -> tensor<?x1xbf16>
  %n = fusion.neg %g : tensor<?x1xbf16>
  fusion.return %n : tensor<?x1xbf16>
}

// The same loss written with logsumexp, in f32, and the row's logsumexp as
// a second result.
fusion.fusion @ce_lse(%x: tensor<?x?xbf16>, %t: tensor<?x1xi64>) -> (tensor<?x1xf32>, tensor<?x1xf32>) {
  %m = fusion.dim %x, 0 : tensor<?x?xbf16>
  %n = fusion.dim %x, 1 : tensor<?x?xbf16>
  %i = fusion.abs %t : tensor<?x1xi64>
  %xf = fusion.cast %x : tensor<?x?xbf16> to tensor<?x?xf32>
  %mx = fusion.max %xf [1] keepdim : tensor<?x?xf32> -> tensor<?x1xf32>
  %e = fusion.expand %mx (%m, %n) : tensor<?x1xf32> -> tensor<?x?xf32>
  %d = fusion.sub %xf, %e : tensor<?x?xf32>
  %ex = fusion.exp %d : tensor<?x?xf32>
  %s = fusion.sum %ex [1] keepdim : tensor<?x?xf32> -> tensor<?x1xf32>
  %ls = fusion.log %s : tensor<?x1xf32>
  %lse = fusion.add %ls, %mx : tensor<?x1xf32>
  %xt = fusion.gather %xf, %i dim = 1 : tensor<?x?xf32>, tensor<?x1xi64> -> tensor<?x1xf32>
  %loss = fusion.sub %lse, %xt : tensor<?x1xf32>
  fusion.return %loss, %lse : tensor<?x1xf32>, tensor<?x1xf32>
}

// An index computed in the kernel: the value at the row's argmax (equal to
// the row's max).
fusion.fusion @max_and_value_at_argmax(%x: tensor<?x?xf32>) -> (tensor<?x1xf32>, tensor<?x1xf32>) {
  %a = fusion.argmax %x dim = 1 keepdim : tensor<?x?xf32> -> tensor<?x1xi64>
  %v = fusion.gather %x, %a dim = 1 : tensor<?x?xf32>, tensor<?x1xi64> -> tensor<?x1xf32>
  %mx = fusion.max %x [1] keepdim : tensor<?x?xf32> -> tensor<?x1xf32>
  fusion.return %v, %mx : tensor<?x1xf32>, tensor<?x1xf32>
}
