// Every op rounds to its element type: bf16 and f16 results are what a
// kernel computing in that type gives; casts to fp8 round to nearest even and
// overflow to NaN in f8E4M3FN.
// RUN: fusion-interpret %s --fusion=bf16_add --input='4xbf16=[1,1,100,0.1]' --input='4xbf16=[0.00390625,0.01171875,0.25,0.2]' --print | FileCheck %s --check-prefix=BF16
// RUN: fusion-interpret %s --fusion=bf16_add --input='4xbf16=[1,1,100,0.1]' --input='4xbf16=[0.00390625,0.01171875,0.25,0.2]' --print --print-exact | FileCheck %s --check-prefix=EXACT
// RUN: fusion-interpret %s --fusion=to_fp8 --input='5=[1.0625,1.1875,464,500,-0.001]' --print --print-exact | FileCheck %s --check-prefix=FP8
// RUN: fusion-interpret %s --fusion=to_int --input='5=[2.9,-2.9,nan,1e10,-0.5]' --print | FileCheck %s --check-prefix=INT

// Ties go to even: 1 + 2^-8 -> 1, 1 + 3 * 2^-8 -> 1 + 2^-6, 100.25 -> 100.
// Values print as the shortest decimal that reads back as the same bf16,
// or exactly with --print-exact.
// BF16:      out0: tensor<4xbf16>
// BF16-NEXT: [1, 1.016, 100, 0.3]
// EXACT:      out0: tensor<4xbf16>
// EXACT-NEXT: [1, 1.015625, 100, 0.30078125]

// FP8:      out0: tensor<5xf8E4M3FN>
// FP8-NEXT: [1, 1.25, 448, nan, -0.001953125]
// FP8-NEXT: out1: tensor<5xf8E5M2>
// FP8-NEXT: [1, 1.25, 448, 512, -0.0009765625]

// INT:      out0: tensor<5xi32>
// INT-NEXT: [2, -2, 0, 2147483647, 0]
// INT-NEXT: out1: tensor<5xi1>
// INT-NEXT: [true, true, true, true, true]

fusion.fusion @bf16_add(%a: tensor<?xbf16>, %b: tensor<?xbf16>) -> tensor<?xbf16> {
  %0 = fusion.add %a, %b : tensor<?xbf16>
  fusion.return %0 : tensor<?xbf16>
}

fusion.fusion @to_fp8(%x: tensor<?xf32>) -> (tensor<?xf8E4M3FN>, tensor<?xf8E5M2>) {
  %0 = fusion.cast %x : tensor<?xf32> to tensor<?xf8E4M3FN>
  %1 = fusion.cast %x : tensor<?xf32> to tensor<?xf8E5M2>
  fusion.return %0, %1 : tensor<?xf8E4M3FN>, tensor<?xf8E5M2>
}

fusion.fusion @to_int(%x: tensor<?xf32>) -> (tensor<?xi32>, tensor<?xi1>) {
  %0 = fusion.cast %x : tensor<?xf32> to tensor<?xi32>
  %1 = fusion.cast %x : tensor<?xf32> to tensor<?xi1>
  fusion.return %0, %1 : tensor<?xi32>, tensor<?xi1>
}
