// REQUIRES: cuda
// Every element type of the pointwise lowering, checked against the
// reference interpreter on odd shapes (tails on every row).

// RUN: fusion-run %s --fusion=f64_ops --input=1000x37 --input=1000x37 | FileCheck %s --check-prefix=F64
// F64: PASS f64_ops 1000x37xf64,1000x37xf64 max_abs_err=
// RUN: fusion-run %s --fusion=f32_ops --input=1000x37 --input=1000x37 | FileCheck %s --check-prefix=F32
// F32: PASS f32_ops 1000x37xf32,1000x37xf32 max_abs_err=
// RUN: fusion-run %s --fusion=f16_ops --input=1000x37 --input=1000x37 | FileCheck %s --check-prefix=F16
// F16: PASS f16_ops 1000x37xf16,1000x37xf16 max_abs_err=
// RUN: fusion-run %s --fusion=bf16_ops --input=1000x37 --input=1000x37 | FileCheck %s --check-prefix=BF16
// BF16: PASS bf16_ops 1000x37xbf16,1000x37xbf16 max_abs_err=
// RUN: fusion-run %s --fusion=i64_ops --input=1000x37 --input=1000x37 | FileCheck %s --check-prefix=I64
// I64: PASS i64_ops 1000x37xi64,1000x37xi64 max_abs_err=0 rel_l2=0
// RUN: fusion-run %s --fusion=i32_ops --input=1000x37 --input=1000x37 | FileCheck %s --check-prefix=I32
// I32: PASS i32_ops 1000x37xi32,1000x37xi32 max_abs_err=0 rel_l2=0
// RUN: fusion-run %s --fusion=i16_ops --input=1000x37 --input=1000x37 | FileCheck %s --check-prefix=I16
// I16: PASS i16_ops 1000x37xi16,1000x37xi16 max_abs_err=0 rel_l2=0
// RUN: fusion-run %s --fusion=i8_ops --input=1000x37 --input=1000x37 | FileCheck %s --check-prefix=I8
// I8: PASS i8_ops 1000x37xi8,1000x37xi8 max_abs_err=0 rel_l2=0
// RUN: fusion-run %s --fusion=i1_ops --input=1000x37 --input=1000x37 --input=1000x37 | FileCheck %s --check-prefix=I1
// I1: PASS i1_ops 1000x37xf32,1000x37xf32,1000x37xi1 max_abs_err=0 rel_l2=0
// RUN: fusion-run %s --fusion=casts --input=1000x37 --input=1000x37 --input=1000x37 --input=1000x37 --input=1000x37 --input=1000x37 | FileCheck %s --check-prefix=CASTS
// CASTS: PASS casts 1000x37xf32,1000x37xf16,1000x37xbf16,1000x37xi32,1000x37xi8,1000x37xi64 max_abs_err=

fusion.fusion @f64_ops(%a: tensor<?x?xf64>, %b: tensor<?x?xf64>) -> tensor<?x?xf64> {
  %0 = fusion.mul %a, %b : tensor<?x?xf64>
  %1 = fusion.sub %0, %a : tensor<?x?xf64>
  %2 = fusion.div %1, %b : tensor<?x?xf64>
  fusion.return %2 : tensor<?x?xf64>
}

fusion.fusion @f32_ops(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %0 = fusion.mul %a, %b : tensor<?x?xf32>
  %1 = fusion.add %0, %a : tensor<?x?xf32>
  %2 = fusion.exp %1 : tensor<?x?xf32>
  %3 = fusion.maximum %2, %b : tensor<?x?xf32>
  fusion.return %3 : tensor<?x?xf32>
}

fusion.fusion @f16_ops(%a: tensor<?x?xf16>, %b: tensor<?x?xf16>) -> tensor<?x?xf16> {
  %0 = fusion.mul %a, %b : tensor<?x?xf16>
  %1 = fusion.add %0, %a : tensor<?x?xf16>
  %2 = fusion.relu %1 : tensor<?x?xf16>
  fusion.return %2 : tensor<?x?xf16>
}

fusion.fusion @bf16_ops(%a: tensor<?x?xbf16>, %b: tensor<?x?xbf16>) -> tensor<?x?xbf16> {
  %0 = fusion.add %a, %b : tensor<?x?xbf16>
  %1 = fusion.tanh %0 : tensor<?x?xbf16>
  %2 = fusion.minimum %1, %a : tensor<?x?xbf16>
  fusion.return %2 : tensor<?x?xbf16>
}

fusion.fusion @i64_ops(%a: tensor<?x?xi64>, %b: tensor<?x?xi64>) -> tensor<?x?xi64> {
  %0 = fusion.mul %a, %b : tensor<?x?xi64>
  %1 = fusion.sub %0, %a : tensor<?x?xi64>
  %2 = fusion.maximum %1, %b : tensor<?x?xi64>
  fusion.return %2 : tensor<?x?xi64>
}

fusion.fusion @i32_ops(%a: tensor<?x?xi32>, %b: tensor<?x?xi32>) -> tensor<?x?xi32> {
  %0 = fusion.mul %a, %b : tensor<?x?xi32>
  %1 = fusion.sub %0, %a : tensor<?x?xi32>
  %2 = fusion.maximum %1, %b : tensor<?x?xi32>
  fusion.return %2 : tensor<?x?xi32>
}

// i16 and i8 products of values in [-50, 50] wrap around.
fusion.fusion @i16_ops(%a: tensor<?x?xi16>, %b: tensor<?x?xi16>) -> tensor<?x?xi16> {
  %0 = fusion.mul %a, %b : tensor<?x?xi16>
  %1 = fusion.mul %0, %a : tensor<?x?xi16>
  %2 = fusion.minimum %1, %b : tensor<?x?xi16>
  fusion.return %2 : tensor<?x?xi16>
}

fusion.fusion @i8_ops(%a: tensor<?x?xi8>, %b: tensor<?x?xi8>) -> tensor<?x?xi8> {
  %0 = fusion.mul %a, %b : tensor<?x?xi8>
  %1 = fusion.sub %0, %a : tensor<?x?xi8>
  %2 = fusion.maximum %1, %b : tensor<?x?xi8>
  fusion.return %2 : tensor<?x?xi8>
}

// i1 in and out: a comparison, a logical op and a select.
fusion.fusion @i1_ops(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>, %m: tensor<?x?xi1>) -> (tensor<?x?xi1>, tensor<?x?xi1>, tensor<?x?xf32>) {
  %gt = fusion.gt %a, %b : tensor<?x?xf32>
  %and = fusion.logical_xor %gt, %m : tensor<?x?xi1>
  %w = fusion.where %m, %a, %b : tensor<?x?xi1>, tensor<?x?xf32>
  fusion.return %gt, %and, %w : tensor<?x?xi1>, tensor<?x?xi1>, tensor<?x?xf32>
}

// Conversions between the types.
fusion.fusion @casts(%a: tensor<?x?xf32>, %h: tensor<?x?xf16>, %bf: tensor<?x?xbf16>, %i: tensor<?x?xi32>, %c: tensor<?x?xi8>, %l: tensor<?x?xi64>) -> (tensor<?x?xbf16>, tensor<?x?xf32>, tensor<?x?xf16>, tensor<?x?xf32>, tensor<?x?xi32>, tensor<?x?xf64>, tensor<?x?xi8>, tensor<?x?xi1>) {
  %0 = fusion.cast %a : tensor<?x?xf32> to tensor<?x?xbf16>
  %1 = fusion.cast %h : tensor<?x?xf16> to tensor<?x?xf32>
  %2 = fusion.cast %bf : tensor<?x?xbf16> to tensor<?x?xf16>
  %3 = fusion.cast %i : tensor<?x?xi32> to tensor<?x?xf32>
  %s = fusion.mul %a, %1 : tensor<?x?xf32>
  %4 = fusion.cast %s : tensor<?x?xf32> to tensor<?x?xi32>
  %5 = fusion.cast %l : tensor<?x?xi64> to tensor<?x?xf64>
  %6 = fusion.cast %i : tensor<?x?xi32> to tensor<?x?xi8>
  %7 = fusion.cast %c : tensor<?x?xi8> to tensor<?x?xi1>
  fusion.return %0, %1, %2, %3, %4, %5, %6, %7 : tensor<?x?xbf16>, tensor<?x?xf32>, tensor<?x?xf16>, tensor<?x?xf32>, tensor<?x?xi32>, tensor<?x?xf64>, tensor<?x?xi8>, tensor<?x?xi1>
}
