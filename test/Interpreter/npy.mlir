// Outputs written with --output-dir read back with --input=FILE.npy.
// RUN: rm -rf %t && mkdir -p %t
// RUN: fusion-interpret %s --fusion=scale --input='2x2xbf16=[1,2,3,4]' --input=0.5 --output-dir=%t/a
// RUN: fusion-interpret %s --fusion=scale --input=%t/a/out0.npy --input=4 --print | FileCheck %s
// RUN: fusion-interpret %s --fusion=scale --input=%t/a/out0.npy --input=4 --output-dir=%t/b
// RUN: fusion-interpret %s --fusion=scale --input=%t/b/out0.npy --input=f32=1 --print | FileCheck %s --check-prefix=AGAIN
// RUN: fusion-interpret %s --fusion=pair --input='3xi8=[-1,2,127]' --output-dir=%t/c
// RUN: fusion-interpret %s --fusion=pair --input=%t/c/out0.npy --print | FileCheck %s --check-prefix=PAIR
// RUN: fusion-interpret %s --fusion=bools --input=%t/c/out1.npy --print | FileCheck %s --check-prefix=BOOLS

// bf16 data goes through '<V2' files.
// CHECK:      out0: tensor<2x2xbf16>
// CHECK-NEXT: {{\[\[}}2, 4],
// CHECK-NEXT:  [6, 8]]
// AGAIN:      {{\[\[}}2, 4],
// AGAIN-NEXT:  [6, 8]]

// PAIR:      out0: tensor<3xi8>
// PAIR-NEXT: [-1, 2, 127]
// PAIR-NEXT: out1: tensor<3xi1>
// PAIR-NEXT: [false, true, true]
// BOOLS:     out0: tensor<3xi1>
// BOOLS-NEXT: [true, false, false]

fusion.fusion @scale(%x: tensor<?x?xbf16>, %s: f32) -> tensor<?x?xbf16> {
  %c = fusion.cast %s : f32 to bf16
  %m = fusion.dim %x, 0 : tensor<?x?xbf16>
  %n = fusion.dim %x, 1 : tensor<?x?xbf16>
  %b = fusion.broadcast_in_dim %c [] (%m, %n) : bf16 -> tensor<?x?xbf16>
  %r = fusion.mul %x, %b : tensor<?x?xbf16>
  fusion.return %r : tensor<?x?xbf16>
}

fusion.fusion @pair(%x: tensor<?xi8>) -> (tensor<?xi8>, tensor<?xi1>) {
  %z = arith.constant 0 : i8
  %n = fusion.dim %x, 0 : tensor<?xi8>
  %zb = fusion.broadcast_in_dim %z [] (%n) : i8 -> tensor<?xi8>
  %p = fusion.gt %x, %zb : tensor<?xi8>
  fusion.return %x, %p : tensor<?xi8>, tensor<?xi1>
}

fusion.fusion @bools(%x: tensor<?xi1>) -> tensor<?xi1> {
  %r = fusion.logical_not %x : tensor<?xi1>
  fusion.return %r : tensor<?xi1>
}
