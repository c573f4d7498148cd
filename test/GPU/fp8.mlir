// REQUIRES: cuda
// fp8 conversions (Note [fp8 on the GPU] in
// lib/Conversion/FusionToGPU/Elementwise.cpp, and Note [Hardware fp8
// conversion] in Casts.cpp for sm_89 and later) against the reference interpreter: f32, bf16 -> f8E4M3FN and f8E5M2, fp8 -> f32 and
// bf16, round trips, and values beyond each format's range (a factor of 400
// takes e4m3fn's NaN past 464 but stays within e5m2; a factor of 40000 takes
// e5m2 to inf past 61440). The conversions are bit-exact, so every output
// must match with max_abs_err=0 (fusion-run's own tolerance for fp8 outputs
// is one fp8 ulp); every fusion also returns its fp8 values converted back
// to f32, exact too. 1000x37 and 1x1000003 take the scalar variants (odd
// rows); 512x1024 the vectorized one.

// RUN: fusion-run %s --fusion=f32_to_f8 --input=1000x37 | FileCheck %s --check-prefix=F32
// F32: PASS f32_to_f8 1000x37xf32 max_abs_err=0 rel_l2=0
// RUN: fusion-run %s --fusion=f32_to_f8 --input=1x1000003 | FileCheck %s --check-prefix=F32L
// F32L: PASS f32_to_f8 1x1000003xf32 max_abs_err=0 rel_l2=0 checked=4000012 variant=
// RUN: fusion-run %s --fusion=f32_to_f8 --input=512x1024 | FileCheck %s --check-prefix=F32V
// F32V: PASS f32_to_f8 512x1024xf32 max_abs_err=0 rel_l2=0 {{.*}} variant={{.*}}_v{{[0-9]+}}_i32

// RUN: fusion-run %s --fusion=bf16_to_e4m3 --input=1000x37 | FileCheck %s --check-prefix=BF16
// BF16: PASS bf16_to_e4m3 1000x37xbf16 max_abs_err=0 rel_l2=0
// RUN: fusion-run %s --fusion=bf16_to_e4m3 --input=1x1000003 | FileCheck %s --check-prefix=BF16L
// BF16L: PASS bf16_to_e4m3 1x1000003xbf16 max_abs_err=0 rel_l2=0
// RUN: fusion-run %s --fusion=bf16_to_e4m3 --input=512x1024 | FileCheck %s --check-prefix=BF16V
// BF16V: PASS bf16_to_e4m3 512x1024xbf16 max_abs_err=0 rel_l2=0 {{.*}} variant={{.*}}_v{{[0-9]+}}_i32

// RUN: fusion-run %s --fusion=e4m3_to --input=1000x37 | FileCheck %s --check-prefix=E4
// E4: PASS e4m3_to 1000x37xf8E4M3FN max_abs_err=0 rel_l2=0
// RUN: fusion-run %s --fusion=e4m3_to --input=1x1000003 | FileCheck %s --check-prefix=E4L
// E4L: PASS e4m3_to 1x1000003xf8E4M3FN max_abs_err=0 rel_l2=0
// RUN: fusion-run %s --fusion=e4m3_to --input=512x1024 | FileCheck %s --check-prefix=E4V
// E4V: PASS e4m3_to 512x1024xf8E4M3FN max_abs_err=0 rel_l2=0 {{.*}} variant={{.*}}_v{{[0-9]+}}_i32

// RUN: fusion-run %s --fusion=e5m2_to --input=1000x37 | FileCheck %s --check-prefix=E5
// E5: PASS e5m2_to 1000x37xf8E5M2 max_abs_err=0 rel_l2=0
// RUN: fusion-run %s --fusion=e5m2_to --input=1x1000003 | FileCheck %s --check-prefix=E5L
// E5L: PASS e5m2_to 1x1000003xf8E5M2 max_abs_err=0 rel_l2=0
// RUN: fusion-run %s --fusion=e5m2_to --input=512x1024 | FileCheck %s --check-prefix=E5V
// E5V: PASS e5m2_to 512x1024xf8E5M2 max_abs_err=0 rel_l2=0 {{.*}} variant={{.*}}_v{{[0-9]+}}_i32

// RUN: fusion-run %s --fusion=overflow_e4m3 --input=1000x37 | FileCheck %s --check-prefix=O4
// O4: PASS overflow_e4m3 1000x37xf32 max_abs_err=0 rel_l2=0
// RUN: fusion-run %s --fusion=overflow_e4m3 --input=1x1000003 | FileCheck %s --check-prefix=O4L
// O4L: PASS overflow_e4m3 1x1000003xf32 max_abs_err=0 rel_l2=0
// RUN: fusion-run %s --fusion=overflow_e4m3 --input=512x1024 | FileCheck %s --check-prefix=O4V
// O4V: PASS overflow_e4m3 512x1024xf32 max_abs_err=0 rel_l2=0 {{.*}} variant={{.*}}_v{{[0-9]+}}_i32

// RUN: fusion-run %s --fusion=overflow_e5m2 --input=1000x37 | FileCheck %s --check-prefix=O5
// O5: PASS overflow_e5m2 1000x37xf32 max_abs_err=0 rel_l2=0
// RUN: fusion-run %s --fusion=overflow_e5m2 --input=1x1000003 | FileCheck %s --check-prefix=O5L
// O5L: PASS overflow_e5m2 1x1000003xf32 max_abs_err=0 rel_l2=0
// RUN: fusion-run %s --fusion=overflow_e5m2 --input=512x1024 | FileCheck %s --check-prefix=O5V
// O5V: PASS overflow_e5m2 512x1024xf32 max_abs_err=0 rel_l2=0 {{.*}} variant={{.*}}_v{{[0-9]+}}_i32

// Every tie and boundary, against the interpreter's encoder (@fp8_edges
// below); the reference has the NaN, inf and -0 it is meant to have.
// RUN: fusion-run %s --fusion=fp8_edges --input=1048576 | FileCheck %s --check-prefix=EDGE
// EDGE: PASS fp8_edges 1048576xf32 max_abs_err=0 rel_l2=0 {{.*}} variant={{.*}}_v{{[0-9]+}}_i32
// RUN: fusion-run %s --fusion=fp8_edges --input=1000003 | FileCheck %s --check-prefix=EDGEODD
// EDGEODD: PASS fp8_edges 1000003xf32 max_abs_err=0 rel_l2=0
// RUN: fusion-run %s --fusion=fp8_edges --input=1048576 --reference-only | FileCheck %s --check-prefix=EDGER
// EDGER: out2: tensor<1048576xf8E4M3FN> min=-448 max=448 {{.*}} nan={{[1-9][0-9]*}} inf=0
// EDGER: out3: tensor<1048576xf8E5M2> min=-inf max=inf {{.*}} inf={{[1-9][0-9]*}}
// EDGER: out4: tensor<1048576xf32> min=-inf max=inf {{.*}} inf={{[1-9][0-9]*}}
// EDGER: out7: tensor<1048576xf8E4M3FN> {{.*}} nan={{[1-9][0-9]*}} inf=0
// EDGER: out8: tensor<1048576xf8E5M2> {{.*}} nan={{[1-9][0-9]*}} inf=0

// The overflows happen: e4m3fn NaN where the e5m2 values stay finite, then
// e5m2 inf (and e4m3fn NaN from it).
// RUN: fusion-run %s --fusion=overflow_e4m3 --input=1000x37 --reference-only | FileCheck %s --check-prefix=R4
// R4: out0: tensor<1000x37xf8E4M3FN> {{.*}} nan={{[1-9][0-9]*}} inf=0
// R4: out1: tensor<1000x37xf8E5M2> {{.*}} nan=0 inf=0
// RUN: fusion-run %s --fusion=overflow_e5m2 --input=1000x37 --reference-only | FileCheck %s --check-prefix=R5
// R5: out0: tensor<1000x37xf8E5M2> {{.*}} nan=0 inf={{[1-9][0-9]*}}
// R5: out2: tensor<1000x37xf8E4M3FN> {{.*}} nan={{[1-9][0-9]*}} inf=0

// f32 -> e4m3fn and e5m2, and back to f32.
fusion.fusion @f32_to_f8(%a: tensor<?x?xf32>) -> (tensor<?x?xf8E4M3FN>, tensor<?x?xf8E5M2>, tensor<?x?xf32>, tensor<?x?xf32>) {
  %0 = fusion.cast %a : tensor<?x?xf32> to tensor<?x?xf8E4M3FN>
  %1 = fusion.cast %a : tensor<?x?xf32> to tensor<?x?xf8E5M2>
  %2 = fusion.cast %0 : tensor<?x?xf8E4M3FN> to tensor<?x?xf32>
  %3 = fusion.cast %1 : tensor<?x?xf8E5M2> to tensor<?x?xf32>
  fusion.return %0, %1, %2, %3 : tensor<?x?xf8E4M3FN>, tensor<?x?xf8E5M2>, tensor<?x?xf32>, tensor<?x?xf32>
}

// bf16 -> e4m3fn, and back to f32.
fusion.fusion @bf16_to_e4m3(%a: tensor<?x?xbf16>) -> (tensor<?x?xf8E4M3FN>, tensor<?x?xf32>) {
  %0 = fusion.cast %a : tensor<?x?xbf16> to tensor<?x?xf8E4M3FN>
  %1 = fusion.cast %0 : tensor<?x?xf8E4M3FN> to tensor<?x?xf32>
  fusion.return %0, %1 : tensor<?x?xf8E4M3FN>, tensor<?x?xf32>
}

// fp8 inputs (random values rounded to the format) to f32 and bf16: exact.
fusion.fusion @e4m3_to(%a: tensor<?x?xf8E4M3FN>) -> (tensor<?x?xf32>, tensor<?x?xbf16>) {
  %0 = fusion.cast %a : tensor<?x?xf8E4M3FN> to tensor<?x?xf32>
  %1 = fusion.cast %a : tensor<?x?xf8E4M3FN> to tensor<?x?xbf16>
  fusion.return %0, %1 : tensor<?x?xf32>, tensor<?x?xbf16>
}

fusion.fusion @e5m2_to(%a: tensor<?x?xf8E5M2>) -> (tensor<?x?xf32>, tensor<?x?xbf16>) {
  %0 = fusion.cast %a : tensor<?x?xf8E5M2> to tensor<?x?xf32>
  %1 = fusion.cast %a : tensor<?x?xf8E5M2> to tensor<?x?xbf16>
  fusion.return %0, %1 : tensor<?x?xf32>, tensor<?x?xbf16>
}

// |x| < 800: beyond e4m3fn's 448 (NaN from 464 on), within e5m2's 57344.
fusion.fusion @overflow_e4m3(%a: tensor<?x?xf32>) -> (tensor<?x?xf8E4M3FN>, tensor<?x?xf8E5M2>, tensor<?x?xf32>, tensor<?x?xf32>) {
  %c = arith.constant 400.0 : f32
  %m = fusion.dim %a, 0 : tensor<?x?xf32>
  %n = fusion.dim %a, 1 : tensor<?x?xf32>
  %k = fusion.broadcast_in_dim %c [] (%m, %n) : f32 -> tensor<?x?xf32>
  %x = fusion.mul %a, %k : tensor<?x?xf32>
  %0 = fusion.cast %x : tensor<?x?xf32> to tensor<?x?xf8E4M3FN>
  %1 = fusion.cast %x : tensor<?x?xf32> to tensor<?x?xf8E5M2>
  %2 = fusion.cast %0 : tensor<?x?xf8E4M3FN> to tensor<?x?xf32>
  %3 = fusion.cast %1 : tensor<?x?xf8E5M2> to tensor<?x?xf32>
  fusion.return %0, %1, %2, %3 : tensor<?x?xf8E4M3FN>, tensor<?x?xf8E5M2>, tensor<?x?xf32>, tensor<?x?xf32>
}

// |x| < 80000: beyond e5m2's 57344 (inf from 61440 on); e5m2 inf to e4m3fn
// is NaN.
fusion.fusion @overflow_e5m2(%a: tensor<?x?xf32>) -> (tensor<?x?xf8E5M2>, tensor<?x?xf32>, tensor<?x?xf8E4M3FN>, tensor<?x?xf32>) {
  %c = arith.constant 40000.0 : f32
  %m = fusion.dim %a, 0 : tensor<?x?xf32>
  %n = fusion.dim %a, 1 : tensor<?x?xf32>
  %k = fusion.broadcast_in_dim %c [] (%m, %n) : f32 -> tensor<?x?xf32>
  %x = fusion.mul %a, %k : tensor<?x?xf32>
  %0 = fusion.cast %x : tensor<?x?xf32> to tensor<?x?xf8E5M2>
  %1 = fusion.cast %0 : tensor<?x?xf8E5M2> to tensor<?x?xf32>
  %2 = fusion.cast %0 : tensor<?x?xf8E5M2> to tensor<?x?xf8E4M3FN>
  %3 = fusion.cast %2 : tensor<?x?xf8E4M3FN> to tensor<?x?xf32>
  fusion.return %0, %1, %2, %3 : tensor<?x?xf8E5M2>, tensor<?x?xf32>, tensor<?x?xf8E4M3FN>, tensor<?x?xf32>
}

// Every tie and every boundary (Note [Hardware fp8 conversion] in
// lib/Conversion/FusionToGPU/Casts.cpp: on sm_89 and later the hardware's
// saturating conversion, with the interpreter's results put back where it
// saturates). `fine` walks [-256, 256) in steps of 2^-11, so it holds every
// tie of both formats there (e4m3fn's smallest quantum is 2^-9, e5m2's
// 2^-16 rounds to zero or to the subnormals), and negative values that
// round to -0; `coarse` walks [-65536, 65536) in steps of 1/8, across 448,
// 464 and 480 (e4m3fn's largest value, the tie that stays finite, NaN) and
// 57344 and 61440 (e5m2's largest value and the tie that rounds to inf).
// The reciprocal of the decoded fine values tells -0 from +0 (-inf, +inf).
// a * 1e39 is +-inf in f32 for |a| > 0.034, and inf - inf is NaN.
fusion.fusion @fp8_edges(%a: tensor<?xf32>) -> (tensor<?xf8E4M3FN>, tensor<?xf8E5M2>, tensor<?xf8E4M3FN>, tensor<?xf8E5M2>, tensor<?xf32>, tensor<?xf8E4M3FN>, tensor<?xf8E5M2>, tensor<?xf8E4M3FN>, tensor<?xf8E5M2>) {
  %n = fusion.dim %a, 0 : tensor<?xf32>
  %fs = arith.constant -256.0 : f32
  %fd = arith.constant 0.00048828125 : f32
  %cs = arith.constant -65536.0 : f32
  %cd = arith.constant 0.125 : f32
  %fine = fusion.iota %fs, %fd (%n) : f32 -> tensor<?xf32>
  %coarse = fusion.iota %cs, %cd (%n) : f32 -> tensor<?xf32>
  %0 = fusion.cast %fine : tensor<?xf32> to tensor<?xf8E4M3FN>
  %1 = fusion.cast %fine : tensor<?xf32> to tensor<?xf8E5M2>
  %2 = fusion.cast %coarse : tensor<?xf32> to tensor<?xf8E4M3FN>
  %3 = fusion.cast %coarse : tensor<?xf32> to tensor<?xf8E5M2>
  %one = arith.constant 1.0 : f32
  %ones = fusion.broadcast_in_dim %one [] (%n) : f32 -> tensor<?xf32>
  %d = fusion.cast %0 : tensor<?xf8E4M3FN> to tensor<?xf32>
  %4 = fusion.div %ones, %d : tensor<?xf32>
  %e = arith.constant 1.0e+38 : f32
  %ten = arith.constant 10.0 : f32
  %es = fusion.broadcast_in_dim %e [] (%n) : f32 -> tensor<?xf32>
  %tens = fusion.broadcast_in_dim %ten [] (%n) : f32 -> tensor<?xf32>
  %big0 = fusion.mul %a, %es : tensor<?xf32>
  %big = fusion.mul %big0, %tens : tensor<?xf32>
  %nan = fusion.sub %big, %big : tensor<?xf32>
  %5 = fusion.cast %big : tensor<?xf32> to tensor<?xf8E4M3FN>
  %6 = fusion.cast %big : tensor<?xf32> to tensor<?xf8E5M2>
  %7 = fusion.cast %nan : tensor<?xf32> to tensor<?xf8E4M3FN>
  %8 = fusion.cast %nan : tensor<?xf32> to tensor<?xf8E5M2>
  fusion.return %0, %1, %2, %3, %4, %5, %6, %7, %8 : tensor<?xf8E4M3FN>, tensor<?xf8E5M2>, tensor<?xf8E4M3FN>, tensor<?xf8E5M2>, tensor<?xf32>, tensor<?xf8E4M3FN>, tensor<?xf8E5M2>, tensor<?xf8E4M3FN>, tensor<?xf8E5M2>
}
