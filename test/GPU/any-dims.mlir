// REQUIRES: cuda
// Sum/prod/max/min over any set of dims (Note [Reductions over any dims]):
// a middle dim reduces a permuted view as an outer reduction; a set with
// the innermost dim and others reduces the innermost first, then the rest
// (two kernels); keepdim of a middle dim adds a broadcast kernel. Against
// the reference interpreter, with odd sizes, a fused prologue, transposed
// and strided inputs, f32/bf16/f64/i32. f32 sums accumulate in f32 in
// another order than the interpreter's f64: absolute tolerances grow with
// the count.

// RUN: fusion-run %s --fusion=mid_sum --atol=1e-3 --input=5x6x7 | FileCheck %s --check-prefix=MID
// MID: PASS mid_sum 5x6x7xf32 {{.*}}variant=mid_sum_k0_s_i32
// RUN: fusion-run %s --fusion=mid_sum --atol=1e-2 --input=3x1000x64 | FileCheck %s --check-prefix=MIDV
// MIDV: PASS mid_sum 3x1000x64xf32 {{.*}}variant=mid_sum_k0_v4_i32
// RUN: fusion-run %s --fusion=mid_sum --atol=1e-2 --input=64x33x4097 | FileCheck %s --check-prefix=MIDODD
// MIDODD: PASS mid_sum 64x33x4097xf32
// RUN: fusion-run %s --fusion=mid_sum --atol=1e-2 --input=7x300x40 --layout=0:transposed | FileCheck %s --check-prefix=MIDT
// MIDT: PASS mid_sum 7x300x40xf32
// RUN: fusion-run %s --fusion=mid_sum --atol=1e-2 --input=7x300x40 --layout=0:strided | FileCheck %s --check-prefix=MIDS
// MIDS: PASS mid_sum 7x300x40xf32
// RUN: fusion-run %s --fusion=mid_exp_sum_keepdim --atol=1e-2 --input=9x500x24 | FileCheck %s --check-prefix=MIDK
// MIDK: PASS mid_exp_sum_keepdim 9x500x24xf32 {{.*}}variant=mid_exp_sum_keepdim_k0_v4_i32,mid_exp_sum_keepdim_k1_v4_i32
// RUN: fusion-run %s --fusion=full_sum --atol=1e-1 --input=1000x1000 | FileCheck %s --check-prefix=FULL
// FULL: PASS full_sum 1000x1000xf32 {{.*}}variant=full_sum_k0_v4_i32,full_sum_k1_v4_i32
// RUN: fusion-run %s --fusion=full_sum --atol=1e-1 --input=1x4194304 | FileCheck %s --check-prefix=FULLROW
// FULLROW: PASS full_sum 1x4194304xf32 {{.*}}variant=full_sum_k0_gv4_i32,full_sum_k1_s_i32
// RUN: fusion-run %s --fusion=full_sum --atol=1e-1 --input=65537x3 | FileCheck %s --check-prefix=FULLTALL
// FULLTALL: PASS full_sum 65537x3xf32 {{.*}}variant=full_sum_k0_rv4_i32,full_sum_k1_gs_i32
// RUN: fusion-run %s --fusion=full_sum --input=1x1 | FileCheck %s --check-prefix=FULLONE
// FULLONE: PASS full_sum 1x1xf32
// RUN: fusion-run %s --fusion=max_02_keepdim --input=10x20x30 | FileCheck %s --check-prefix=MAX02
// MAX02: PASS max_02_keepdim 10x20x30xbf16 {{.*}}variant=max_02_keepdim_k0_rv8_i32,max_02_keepdim_k1_s_i32
// RUN: fusion-run %s --fusion=max_02_keepdim --input=31x64x1000 --layout=0:transposed | FileCheck %s --check-prefix=MAX02T
// MAX02T: PASS max_02_keepdim 31x64x1000xbf16
// RUN: fusion-run %s --fusion=min_13 --input=3x4x5x6 | FileCheck %s --check-prefix=MIN13
// MIN13: PASS min_13 3x4x5x6xf64 {{.*}}variant=min_13_k0_v2_i32,min_13_k1_s_i32
// RUN: fusion-run %s --fusion=min_13 --input=2x333x7x129 | FileCheck %s --check-prefix=MIN13B
// MIN13B: PASS min_13 2x333x7x129xf64
// RUN: fusion-run %s --fusion=sum_02_i32 --input=17x19x23 | FileCheck %s --check-prefix=INT
// INT: PASS sum_02_i32 17x19x23xi32 max_abs_err=0

// A row's sums as a tensor<1x?> (a broadcast of the per-row result, not the
// row kernel's domain shape): two kernels.
// RUN: fusion-run %s --fusion=row_sums_as_a_row --atol=1e-3 --input=300x1000 | FileCheck %s --check-prefix=ROWROW
// ROWROW: PASS row_sums_as_a_row 300x1000xf32 {{.*}}variant=row_sums_as_a_row_k0_v4_i32,row_sums_as_a_row_k1_v4_i32

fusion.fusion @mid_sum(%x: tensor<?x?x?xf32>) -> tensor<?x?xf32> {
  %0 = fusion.sum %x [1] : tensor<?x?x?xf32> -> tensor<?x?xf32>
  fusion.return %0 : tensor<?x?xf32>
}

fusion.fusion @mid_exp_sum_keepdim(%x: tensor<?x?x?xf32>) -> tensor<?x1x?xf32> {
  %e = fusion.exp %x : tensor<?x?x?xf32>
  %0 = fusion.sum %e [1] keepdim : tensor<?x?x?xf32> -> tensor<?x1x?xf32>
  fusion.return %0 : tensor<?x1x?xf32>
}

fusion.fusion @full_sum(%x: tensor<?x?xf32>) -> tensor<f32> {
  %0 = fusion.sum %x [0, 1] : tensor<?x?xf32> -> tensor<f32>
  fusion.return %0 : tensor<f32>
}

fusion.fusion @max_02_keepdim(%x: tensor<?x?x?xbf16>) -> tensor<1x?x1xbf16> {
  %0 = fusion.max %x [0, 2] keepdim : tensor<?x?x?xbf16> -> tensor<1x?x1xbf16>
  fusion.return %0 : tensor<1x?x1xbf16>
}

fusion.fusion @min_13(%x: tensor<?x?x?x?xf64>) -> tensor<?x?xf64> {
  %0 = fusion.min %x [1, 3] : tensor<?x?x?x?xf64> -> tensor<?x?xf64>
  fusion.return %0 : tensor<?x?xf64>
}

fusion.fusion @sum_02_i32(%x: tensor<?x?x?xi32>) -> tensor<?xi32> {
  %0 = fusion.sum %x [0, 2] : tensor<?x?x?xi32> -> tensor<?xi32>
  fusion.return %0 : tensor<?xi32>
}

// Means as the Python frontend writes them: the count is a size converted
// to f32, computed in the kernel (Note [Scalars computed from sizes]).
// RUN: fusion-run %s --fusion=means_bf16 --atol=1e-2 --rtol=1e-2 --input=37x129 | FileCheck %s --check-prefix=MEANS
// MEANS: PASS means_bf16 37x129xbf16 {{.*}}variant=means_bf16_k0_rv8_i32,means_bf16_k1_s_i32,means_bf16_k2_rv8_i32,means_bf16_k3_s_i32
// RUN: fusion-run %s --fusion=means_bf16 --atol=1e-2 --rtol=1e-2 --input=4096x1024 | FileCheck %s --check-prefix=MEANSV
// MEANSV: PASS means_bf16 4096x1024xbf16
fusion.fusion @means_bf16(%x: tensor<?x?xbf16>) -> (tensor<?xbf16>, tensor<?xbf16>, tensor<bf16>, tensor<?x?xbf16>) {
  %r = fusion.sum %x [1] : tensor<?x?xbf16> -> tensor<?xbf16>
  %n1 = fusion.dim %x, 1 : tensor<?x?xbf16>
  %n1i = arith.index_cast %n1 : index to i64
  %n1f = fusion.cast %n1i : i64 to bf16
  %n0 = fusion.dim %x, 0 : tensor<?x?xbf16>
  %c1 = fusion.broadcast_in_dim %n1f [] (%n0) : bf16 -> tensor<?xbf16>
  %rowmean = fusion.div %r, %c1 : tensor<?xbf16>
  %c = fusion.sum %x [0] : tensor<?x?xbf16> -> tensor<?xbf16>
  %n0i = arith.index_cast %n0 : index to i64
  %n0f = fusion.cast %n0i : i64 to bf16
  %c0 = fusion.broadcast_in_dim %n0f [] (%n1) : bf16 -> tensor<?xbf16>
  %colmean = fusion.div %c, %c0 : tensor<?xbf16>
  %t = fusion.sum %x [0, 1] : tensor<?x?xbf16> -> tensor<bf16>
  %nn = arith.muli %n0i, %n1i : i64
  %nnf = fusion.cast %nn : i64 to bf16
  %nnt = fusion.broadcast_in_dim %nnf [] : bf16 -> tensor<bf16>
  %all = fusion.div %t, %nnt : tensor<bf16>
  %cm = fusion.broadcast_in_dim %colmean [1] (%n0, %n1) : tensor<?xbf16> -> tensor<?x?xbf16>
  %centered = fusion.sub %x, %cm : tensor<?x?xbf16>
  fusion.return %rowmean, %colmean, %all, %centered : tensor<?xbf16>, tensor<?xbf16>, tensor<bf16>, tensor<?x?xbf16>
}

// var_mean over dims other than the innermost alone: the two-pass
// algorithm (Note [var_mean over other dims]); layer_norm over two
// trailing dims goes through it.
// RUN: fusion-run %s --fusion=var_mean_outer_f32 --atol=1e-3 --input=1000x37 | FileCheck %s --check-prefix=VMO
// VMO: PASS var_mean_outer_f32 1000x37xf32 {{.*}}variant=var_mean_outer_f32_k0_s_i32,var_mean_outer_f32_k1_s_i32
// RUN: fusion-run %s --fusion=var_mean_outer_f32 --atol=1e-3 --input=65537x8 --layout=0:transposed | FileCheck %s --check-prefix=VMOT
// VMOT: PASS var_mean_outer_f32 65537x8xf32
// RUN: fusion-run %s --fusion=var_mean_outer_f32 --input=1x5 | FileCheck %s --check-prefix=VMONE
// VMONE: PASS var_mean_outer_f32 1x5xf32
// RUN: fusion-run %s --fusion=var_mean_all_bf16 --atol=1e-2 --rtol=1e-2 --input=7x300x129 | FileCheck %s --check-prefix=VMALL
// VMALL: PASS var_mean_all_bf16 7x300x129xbf16
// RUN: fusion-run %s --fusion=layer_norm_2d_f32 --atol=1e-4 --input=8x33x4097 --input=33x4097 | FileCheck %s --check-prefix=LN2
// LN2: PASS layer_norm_2d_f32 8x33x4097xf32,33x4097xf32
fusion.fusion @var_mean_outer_f32(%x: tensor<?x?xf32>) -> (tensor<?xf32>, tensor<?xf32>) {
  %v, %m = fusion.var_mean %x [0] correction = 1 : tensor<?x?xf32> -> tensor<?xf32>
  fusion.return %v, %m : tensor<?xf32>, tensor<?xf32>
}

fusion.fusion @var_mean_all_bf16(%x: tensor<?x?x?xbf16>) -> (tensor<1x1x1xbf16>, tensor<1x1x1xbf16>) {
  %v, %m = fusion.var_mean %x [0, 1, 2] correction = 0 keepdim : tensor<?x?x?xbf16> -> tensor<1x1x1xbf16>
  fusion.return %v, %m : tensor<1x1x1xbf16>, tensor<1x1x1xbf16>
}

fusion.fusion @layer_norm_2d_f32(%x: tensor<?x?x?xf32>, %w: tensor<?x?xf32>) -> tensor<?x?x?xf32> {
  %0 = fusion.layer_norm %x weight(%w : tensor<?x?xf32>) axis = 1 eps = 1.0e-5 : tensor<?x?x?xf32>
  fusion.return %0 : tensor<?x?x?xf32>
}

fusion.fusion @row_sums_as_a_row(%a: tensor<?x?xf32>) -> tensor<1x?xf32> {
  %0 = fusion.sum %a [1] : tensor<?x?xf32> -> tensor<?xf32>
  %n = fusion.dim %a, 0 : tensor<?x?xf32>
  %1 = fusion.broadcast_in_dim %0 [1](%n) : tensor<?xf32> -> tensor<1x?xf32>
  fusion.return %1 : tensor<1x?xf32>
}
