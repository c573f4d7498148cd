// REQUIRES: cuda
// Fusions that one kernel cannot do, split into several kernels by
// fusion-segment (Note [Segmentation]), on the GPU against the reference
// interpreter: each launch's variant is named in order (k0, k1, ...), and
// values crossing kernels live in intermediate buffers of the per-call pool.
// Odd sizes (1x1, 3x31), many short rows (65537x8), wide rows, square
// shapes with vectorized variants, and strided or transposed inputs, which
// the kernels reading them take scalar, while the intermediates they write
// stay contiguous.

// x - mean(x, dim 0) (the count is a scalar input): outer reduction, then
// pointwise.
// RUN: fusion-run %s --fusion=outer_center_f32 --atol=1e-4 --input=1x1 --input=1 | FileCheck %s --check-prefix=OC1
// OC1: PASS outer_center_f32 1x1xf32,1:f32 {{.*}}variant=outer_center_f32_k0_s_i32,outer_center_f32_k1_s_i32
// RUN: fusion-run %s --fusion=outer_center_f32 --atol=1e-4 --input=3x31 --input=3 | FileCheck %s --check-prefix=OC2
// OC2: PASS outer_center_f32 3x31xf32,3:f32 {{.*}}variant=outer_center_f32_k0_s_i32,outer_center_f32_k1_s_i32
// RUN: fusion-run %s --fusion=outer_center_f32 --atol=1e-4 --input=1000x1000 --input=1000 | FileCheck %s --check-prefix=OC3
// OC3: PASS outer_center_f32 1000x1000xf32,1000:f32 {{.*}}variant=outer_center_f32_k0_v4_i32,outer_center_f32_k1_v4_i32
// RUN: fusion-run %s --fusion=outer_center_f32 --atol=1e-4 --input=65537x8 --input=65537 | FileCheck %s --check-prefix=OC4
// OC4: PASS outer_center_f32 65537x8xf32,65537:f32 {{.*}}variant=outer_center_f32_k0_v4_i32,outer_center_f32_k1_v4_i32
// RUN: fusion-run %s --fusion=outer_center_f32 --atol=1e-4 --input=4097x10003 --input=4097 | FileCheck %s --check-prefix=OC5
// OC5: PASS outer_center_f32 4097x10003xf32,4097:f32 {{.*}}variant=outer_center_f32_k0_s_i32,outer_center_f32_k1_s_i32
// RUN: fusion-run %s --fusion=outer_center_f32 --atol=1e-4 --input=1000x1000 --input=1000 --layout=0:transposed | FileCheck %s --check-prefix=OC6
// OC6: PASS outer_center_f32 1000x1000xf32,1000:f32 {{.*}}variant=outer_center_f32_k0_s_i32,outer_center_f32_k1_s_i32
// RUN: fusion-run %s --fusion=outer_center_f32 --atol=1e-4 --input=999x37 --input=999 --layout=0:strided | FileCheck %s --check-prefix=OC7
// OC7: PASS outer_center_f32 999x37xf32,999:f32 {{.*}}variant=outer_center_f32_k0_s_i32,outer_center_f32_k1_s_i32

// exp(x) / max(exp(x), dim 0) in bf16: exp(x) is recomputed by both kernels
// instead of crossing them (each rounds it to bf16 on its own: a tolerance
// of about two bf16 ulps).
// RUN: fusion-run %s --fusion=outer_max_scale_bf16 --atol=1e-2 --rtol=1e-2 --input=4099x520 | FileCheck %s --check-prefix=OM1
// OM1: PASS outer_max_scale_bf16 4099x520xbf16 {{.*}}variant=outer_max_scale_bf16_k0_v8_i32,outer_max_scale_bf16_k1_v8_i32
// RUN: fusion-run %s --fusion=outer_max_scale_bf16 --atol=1e-2 --rtol=1e-2 --input=3x31 | FileCheck %s --check-prefix=OM2
// OM2: PASS outer_max_scale_bf16 3x31xbf16 {{.*}}variant=outer_max_scale_bf16_k0_s_i32,outer_max_scale_bf16_k1_s_i32
// RUN: fusion-run %s --fusion=outer_max_scale_bf16 --atol=1e-2 --rtol=1e-2 --input=1000x1000 --layout=0:transposed | FileCheck %s --check-prefix=OM3
// OM3: PASS outer_max_scale_bf16 1000x1000xbf16 {{.*}}variant=outer_max_scale_bf16_k0_s_i32,outer_max_scale_bf16_k1_s_i32

// sum(sum(x, dim 1)): row sums (an intermediate), then one row of them
// reduced to a rank-0 result. f32 accumulation: tolerance grows with size.
// RUN: fusion-run %s --fusion=sum_of_row_sums_f32 --atol=1e-4 --input=1x1 | FileCheck %s --check-prefix=SS1
// SS1: PASS sum_of_row_sums_f32 1x1xf32 {{.*}}variant=sum_of_row_sums_f32_k0_s_i32,sum_of_row_sums_f32_k1_s_i32
// RUN: fusion-run %s --fusion=sum_of_row_sums_f32 --atol=1e-3 --input=3x31 | FileCheck %s --check-prefix=SS2
// SS2: PASS sum_of_row_sums_f32 3x31xf32 {{.*}}variant=sum_of_row_sums_f32_k0_rv4_i32,sum_of_row_sums_f32_k1_rv4_i32
// RUN: fusion-run %s --fusion=sum_of_row_sums_f32 --atol=1e-1 --input=65537x8 | FileCheck %s --check-prefix=SS3
// SS3: PASS sum_of_row_sums_f32 65537x8xf32 {{.*}}variant=sum_of_row_sums_f32_k0_v4_i32,sum_of_row_sums_f32_k1_gs_i32
// RUN: fusion-run %s --fusion=sum_of_row_sums_f32 --atol=1 --input=4097x10003 | FileCheck %s --check-prefix=SS4
// SS4: PASS sum_of_row_sums_f32 4097x10003xf32 {{.*}}variant=sum_of_row_sums_f32_k0_rv4_i32,sum_of_row_sums_f32_k1_gs_i32
// RUN: fusion-run %s --fusion=sum_of_row_sums_f32 --atol=1e-1 --input=1000x1000 --layout=0:transposed | FileCheck %s --check-prefix=SS5
// SS5: PASS sum_of_row_sums_f32 1000x1000xf32 {{.*}}variant=sum_of_row_sums_f32_k0_cs_i32,sum_of_row_sums_f32_k1_v4_i32

// max(sum(x, dim 1), dim 0) keepdim, with the row sums returned too: an
// output of k0 that k1 reads.
// RUN: fusion-run %s --fusion=max_of_row_sums_f32 --atol=1e-3 --input=1000x1000 | FileCheck %s --check-prefix=MS1
// MS1: PASS max_of_row_sums_f32 1000x1000xf32 {{.*}}variant=max_of_row_sums_f32_k0_v4_i32,max_of_row_sums_f32_k1_v4_i32
// RUN: fusion-run %s --fusion=max_of_row_sums_f32 --atol=1e-4 --input=65537x8 --layout=0:strided | FileCheck %s --check-prefix=MS2
// MS2: PASS max_of_row_sums_f32 65537x8xf32 {{.*}}variant=max_of_row_sums_f32_k0_s_i32,max_of_row_sums_f32_k1_gs_i32
// RUN: fusion-run %s --fusion=max_of_row_sums_f32 --input=1x1 | FileCheck %s --check-prefix=MS3
// MS3: PASS max_of_row_sums_f32 1x1xf32 {{.*}}variant=max_of_row_sums_f32_k0_s_i32,max_of_row_sums_f32_k1_s_i32

// softmax(x / sum(|x|, dim 0), dim 1): an outer reduction, then a row
// softmax whose prologue reads the column sums.
// RUN: fusion-run %s --fusion=colscale_softmax_f32 --input=1x1 | FileCheck %s --check-prefix=CS1
// CS1: PASS colscale_softmax_f32 1x1xf32 {{.*}}variant=colscale_softmax_f32_k0_s_i32,colscale_softmax_f32_k1_ps_i32
// RUN: fusion-run %s --fusion=colscale_softmax_f32 --input=3x31 | FileCheck %s --check-prefix=CS2
// CS2: PASS colscale_softmax_f32 3x31xf32 {{.*}}variant=colscale_softmax_f32_k0_s_i32,colscale_softmax_f32_k1_prv4_i32
// RUN: fusion-run %s --fusion=colscale_softmax_f32 --input=1000x1000 | FileCheck %s --check-prefix=CS3
// CS3: PASS colscale_softmax_f32 1000x1000xf32 {{.*}}variant=colscale_softmax_f32_k0_v4_i32,colscale_softmax_f32_k1_pv4_i32
// RUN: fusion-run %s --fusion=colscale_softmax_f32 --input=65537x8 | FileCheck %s --check-prefix=CS4
// CS4: PASS colscale_softmax_f32 65537x8xf32 {{.*}}variant=colscale_softmax_f32_k0_v4_i32,colscale_softmax_f32_k1_pv4_i32
// RUN: fusion-run %s --fusion=colscale_softmax_f32 --input=129x100003 | FileCheck %s --check-prefix=CS5
// CS5: PASS colscale_softmax_f32 129x100003xf32 {{.*}}variant=colscale_softmax_f32_k0_s_i32,colscale_softmax_f32_k1_rv4_i32
// RUN: fusion-run %s --fusion=colscale_softmax_f32 --input=1000x1000 --layout=0:strided | FileCheck %s --check-prefix=CS6
// CS6: PASS colscale_softmax_f32 1000x1000xf32 {{.*}}variant=colscale_softmax_f32_k0_s_i32,colscale_softmax_f32_k1_ps_i32

// softmax(x, dim 1) - max(softmax(x, dim 1), dim 0): three kernels (row
// softmax, outer max of it, pointwise); the softmax crosses to both.
// RUN: fusion-run %s --fusion=softmax_minus_colmax_f32 --input=1x1 | FileCheck %s --check-prefix=SM1
// SM1: PASS softmax_minus_colmax_f32 1x1xf32 {{.*}}variant=softmax_minus_colmax_f32_k0_ps_i32,softmax_minus_colmax_f32_k1_s_i32,softmax_minus_colmax_f32_k2_s_i32
// RUN: fusion-run %s --fusion=softmax_minus_colmax_f32 --input=3x31 | FileCheck %s --check-prefix=SM2
// SM2: PASS softmax_minus_colmax_f32 3x31xf32 {{.*}}variant=softmax_minus_colmax_f32_k0_prv4_i32,softmax_minus_colmax_f32_k1_s_i32,softmax_minus_colmax_f32_k2_s_i32
// RUN: fusion-run %s --fusion=softmax_minus_colmax_f32 --input=1000x1000 | FileCheck %s --check-prefix=SM3
// SM3: PASS softmax_minus_colmax_f32 1000x1000xf32 {{.*}}variant=softmax_minus_colmax_f32_k0_pv4_i32,softmax_minus_colmax_f32_k1_v4_i32,softmax_minus_colmax_f32_k2_v4_i32
// RUN: fusion-run %s --fusion=softmax_minus_colmax_f32 --input=65537x8 | FileCheck %s --check-prefix=SM4
// SM4: PASS softmax_minus_colmax_f32 65537x8xf32 {{.*}}variant=softmax_minus_colmax_f32_k0_pv4_i32,softmax_minus_colmax_f32_k1_v4_i32,softmax_minus_colmax_f32_k2_v4_i32
// RUN: fusion-run %s --fusion=softmax_minus_colmax_f32 --input=1000x1000 --layout=0:transposed | FileCheck %s --check-prefix=SM5
// SM5: PASS softmax_minus_colmax_f32 1000x1000xf32 {{.*}}variant=softmax_minus_colmax_f32_k0_ps_i32,softmax_minus_colmax_f32_k1_v4_i32,softmax_minus_colmax_f32_k2_v4_i32
// RUN: fusion-run %s --fusion=softmax_minus_colmax_f32 --input=20000x257 | FileCheck %s --check-prefix=SM6
// SM6: PASS softmax_minus_colmax_f32 20000x257xf32 {{.*}}variant=softmax_minus_colmax_f32_k0_prv4_i32,softmax_minus_colmax_f32_k1_s_i32,softmax_minus_colmax_f32_k2_s_i32

// A row normalization of x with a column sum of y written between its ops:
// first fit keeps the normalization in k0 and the sum in k1 (two kernels).
// RUN: fusion-run %s --fusion=interleaved_f32 --atol=1e-3 --input=1x1 --input=1x1 | FileCheck %s --check-prefix=IL1
// IL1: PASS interleaved_f32 1x1xf32,1x1xf32 {{.*}}variant=interleaved_f32_k0_ps_i32,interleaved_f32_k1_s_i32
// RUN: fusion-run %s --fusion=interleaved_f32 --atol=1e-3 --input=3x31 --input=65537x8 | FileCheck %s --check-prefix=IL2
// IL2: PASS interleaved_f32 3x31xf32,65537x8xf32 {{.*}}variant=interleaved_f32_k0_prv4_i32,interleaved_f32_k1_v4_i32
// RUN: fusion-run %s --fusion=interleaved_f32 --atol=1e-3 --input=1000x1000 --input=1000x1000 --layout=1:transposed | FileCheck %s --check-prefix=IL3
// IL3: PASS interleaved_f32 1000x1000xf32,1000x1000xf32 {{.*}}variant=interleaved_f32_k0_pv4_i32,interleaved_f32_k1_s_i32

fusion.fusion @outer_center_f32(%x: tensor<?x?xf32>, %count: f32) -> tensor<?x?xf32> {
  %m = fusion.dim %x, 0 : tensor<?x?xf32>
  %n = fusion.dim %x, 1 : tensor<?x?xf32>
  %s = fusion.sum %x [0] keepdim : tensor<?x?xf32> -> tensor<1x?xf32>
  %c = fusion.broadcast_in_dim %count [] (%n) : f32 -> tensor<1x?xf32>
  %mean = fusion.div %s, %c : tensor<1x?xf32>
  %e = fusion.expand %mean (%m, %n) : tensor<1x?xf32> -> tensor<?x?xf32>
  %y = fusion.sub %x, %e : tensor<?x?xf32>
  fusion.return %y : tensor<?x?xf32>
}

fusion.fusion @outer_max_scale_bf16(%x: tensor<?x?xbf16>) -> tensor<?x?xbf16> {
  %m = fusion.dim %x, 0 : tensor<?x?xbf16>
  %n = fusion.dim %x, 1 : tensor<?x?xbf16>
  %e = fusion.exp %x : tensor<?x?xbf16>
  %mx = fusion.max %e [0] : tensor<?x?xbf16> -> tensor<?xbf16>
  %b = fusion.broadcast_in_dim %mx [1] (%m, %n) : tensor<?xbf16> -> tensor<?x?xbf16>
  %y = fusion.div %e, %b : tensor<?x?xbf16>
  fusion.return %y : tensor<?x?xbf16>
}

fusion.fusion @sum_of_row_sums_f32(%x: tensor<?x?xf32>) -> tensor<f32> {
  %r = fusion.sum %x [1] : tensor<?x?xf32> -> tensor<?xf32>
  %t = fusion.sum %r [0] : tensor<?xf32> -> tensor<f32>
  fusion.return %t : tensor<f32>
}

fusion.fusion @max_of_row_sums_f32(%x: tensor<?x?xf32>) -> (tensor<?xf32>, tensor<1xf32>) {
  %r = fusion.sum %x [1] : tensor<?x?xf32> -> tensor<?xf32>
  %t = fusion.max %r [0] keepdim : tensor<?xf32> -> tensor<1xf32>
  fusion.return %r, %t : tensor<?xf32>, tensor<1xf32>
}

fusion.fusion @colscale_softmax_f32(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %m = fusion.dim %x, 0 : tensor<?x?xf32>
  %n = fusion.dim %x, 1 : tensor<?x?xf32>
  %a = fusion.abs %x : tensor<?x?xf32>
  %s = fusion.sum %a [0] : tensor<?x?xf32> -> tensor<?xf32>
  %b = fusion.broadcast_in_dim %s [1] (%m, %n) : tensor<?xf32> -> tensor<?x?xf32>
  %q = fusion.div %x, %b : tensor<?x?xf32>
  %y = fusion.softmax %q dim = 1 : tensor<?x?xf32>
  fusion.return %y : tensor<?x?xf32>
}

fusion.fusion @softmax_minus_colmax_f32(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %m = fusion.dim %x, 0 : tensor<?x?xf32>
  %n = fusion.dim %x, 1 : tensor<?x?xf32>
  %r = fusion.softmax %x dim = 1 : tensor<?x?xf32>
  %c = fusion.max %r [0] : tensor<?x?xf32> -> tensor<?xf32>
  %b = fusion.broadcast_in_dim %c [1] (%m, %n) : tensor<?xf32> -> tensor<?x?xf32>
  %y = fusion.sub %r, %b : tensor<?x?xf32>
  fusion.return %y : tensor<?x?xf32>
}

fusion.fusion @interleaved_f32(%x: tensor<?x?xf32>, %y: tensor<?x?xf32>) -> (tensor<?x?xf32>, tensor<?xf32>) {
  %m = fusion.dim %x, 0 : tensor<?x?xf32>
  %n = fusion.dim %x, 1 : tensor<?x?xf32>
  %mx = fusion.max %x [1] keepdim : tensor<?x?xf32> -> tensor<?x1xf32>
  %s = fusion.sum %y [0] : tensor<?x?xf32> -> tensor<?xf32>
  %e = fusion.expand %mx (%m, %n) : tensor<?x1xf32> -> tensor<?x?xf32>
  %d = fusion.sub %x, %e : tensor<?x?xf32>
  fusion.return %d, %s : tensor<?x?xf32>, tensor<?xf32>
}
