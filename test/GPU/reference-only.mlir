// fusion-run --reference-only runs the reference interpreter alone, so it
// works without a GPU (CI runs it). Inputs are seeded random values that
// depend on the logical index only: a strided or transposed layout, or
// --misalign, gives the same outputs as the contiguous one.

// RUN: fusion-run %s --fusion=add_relu --input=2x3 --input=2x3 --reference-only --print | FileCheck %s --check-prefix=PRINT
// PRINT: REFERENCE add_relu 2x3xf32,2x3xf32
// PRINT-NEXT: out0: tensor<2x3xf32> min={{[0-9.e+-]+}} max={{[0-9.e+-]+}} mean={{[0-9.e+-]+}} l2={{[0-9.e+-]+}} nan=0 inf=0
// PRINT-NEXT: {{\[\[}}

// RUN: fusion-run %s --fusion=add_relu --input=64x48 --input=64x48 --reference-only > %t.layouts
// RUN: fusion-run %s --fusion=add_relu --input=64x48 --input=64x48 --reference-only --layout=0:strided --layout=1:transposed --misalign >> %t.layouts
// RUN: FileCheck %s --check-prefix=LAYOUT < %t.layouts
// LAYOUT: out0: tensor<64x48xf32> [[SUMMARY:.*]]
// LAYOUT: out0: tensor<64x48xf32> [[SUMMARY]]

// A different seed gives different inputs.
// RUN: fusion-run %s --fusion=add_relu --input=64x48 --input=64x48 --reference-only --seed=7 >> %t.layouts
// RUN: FileCheck %s --check-prefix=SEED < %t.layouts
// SEED: out0: tensor<64x48xf32> [[SUMMARY:.*]]
// SEED: out0: tensor<64x48xf32> [[SUMMARY]]
// SEED: out0: tensor<64x48xf32>
// SEED-NOT: [[SUMMARY]]

// Scalars, bf16 with a broadcast bias, integers and bools.
// RUN: fusion-run %s --fusion=scale --input=5x7 --input=0.5 --reference-only | FileCheck %s --check-prefix=SCALE
// SCALE: REFERENCE scale 5x7xf32,0.5:f32
// SCALE-NEXT: out0: tensor<5x7xf32>
// RUN: fusion-run %s --fusion=gelu_bias --input=33x17 --input=17 --reference-only | FileCheck %s --check-prefix=GELU
// GELU: REFERENCE gelu_bias 33x17xbf16,17xbf16
// GELU-NEXT: out0: tensor<33x17xbf16>
// RUN: fusion-run %s --fusion=select --input=100 --input=100 --reference-only | FileCheck %s --check-prefix=SELECT
// SELECT: REFERENCE select 100xi32,100xi32
// SELECT-NEXT: out0: tensor<100xi1> min=0 max=1
// SELECT-NEXT: out1: tensor<100xi32> min={{-?[0-9]+}} max={{-?[0-9]+}}

// Bad inputs are the interpreter's errors here (no module is compiled).
// RUN: not fusion-run %s --fusion=add_relu --input=2x3:bf16 --input=2x3 --reference-only 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: fusion-run: input 0 (a): expected dtype f32, got bf16

fusion.fusion @add_relu(%a: tensor<?x?xf32> {fusion.name = "a"}, %b: tensor<?x?xf32> {fusion.name = "b"}) -> tensor<?x?xf32> {
  %0 = fusion.add %a, %b : tensor<?x?xf32>
  %1 = fusion.relu %0 : tensor<?x?xf32>
  fusion.return %1 : tensor<?x?xf32>
}

fusion.fusion @scale(%x: tensor<?x?xf32>, %s: f32) -> tensor<?x?xf32> {
  %m = fusion.dim %x, 0 : tensor<?x?xf32>
  %n = fusion.dim %x, 1 : tensor<?x?xf32>
  %b = fusion.broadcast_in_dim %s [] (%m, %n) : f32 -> tensor<?x?xf32>
  %0 = fusion.mul %x, %b : tensor<?x?xf32>
  fusion.return %0 : tensor<?x?xf32>
}

fusion.fusion @gelu_bias(%x: tensor<?x?xbf16>, %bias: tensor<?xbf16>) -> tensor<?x?xbf16> {
  %m = fusion.dim %x, 0 : tensor<?x?xbf16>
  %n = fusion.dim %x, 1 : tensor<?x?xbf16>
  %b = fusion.broadcast_in_dim %bias [1] (%m, %n) : tensor<?xbf16> -> tensor<?x?xbf16>
  %0 = fusion.add %x, %b : tensor<?x?xbf16>
  %1 = fusion.gelu %0 tanh : tensor<?x?xbf16>
  fusion.return %1 : tensor<?x?xbf16>
}

fusion.fusion @select(%a: tensor<?xi32>, %b: tensor<?xi32>) -> (tensor<?xi1>, tensor<?xi32>) {
  %lt = fusion.lt %a, %b : tensor<?xi32>
  %w = fusion.where %lt, %a, %b : tensor<?xi1>, tensor<?xi32>
  fusion.return %lt, %w : tensor<?xi1>, tensor<?xi32>
}
