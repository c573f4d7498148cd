// REQUIRES: cuda
// Several outputs, one of them the input itself (a view: fusion-run passes
// the input's pointer for it and never poisons it).

// RUN: fusion-run %s --fusion=alias --input=1000x37 --input=1000x37 | FileCheck %s --check-prefix=ALIAS
// ALIAS: PASS alias 1000x37xf32,1000x37xf32 max_abs_err=0 rel_l2=0 checked=74000 variant=
// RUN: fusion-run %s --fusion=alias --input=1000x37 --input=1000x37 --layout=0:transposed | FileCheck %s --check-prefix=ALIAST
// ALIAST: PASS alias 1000x37xf32,1000x37xf32 max_abs_err=0 rel_l2=0 checked=74000 variant=
// RUN: fusion-run %s --fusion=three --input=333x65 --input=333x65 | FileCheck %s --check-prefix=THREE
// THREE: PASS three 333x65xbf16,333x65xbf16 max_abs_err={{.*}} checked=64935 variant=

// Results of two shapes (Note [Results of one shape]): two kernels.
// RUN: fusion-run %s --fusion=two_shapes --input=64x1000 --input=1x1000 | FileCheck %s --check-prefix=TWO
// TWO: PASS two_shapes 64x1000xf32,1x1000xf32 max_abs_err=0 rel_l2=0 checked=65000 variant=
// RUN: fusion-run %s --fusion=two_shapes --input=1x7 --input=1x7 | FileCheck %s --check-prefix=TWO1
// TWO1: PASS two_shapes 1x7xf32,1x7xf32 max_abs_err=0 rel_l2=0 checked=14 variant=
// RUN: fusion-run %s --fusion=unrelated --input=3x5 --input=77x1001 | FileCheck %s --check-prefix=UNREL
// UNREL: PASS unrelated 3x5xf32,77x1001xf32 max_abs_err={{.*}} checked=77092 variant=

fusion.fusion @alias(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>) -> (tensor<?x?xf32>, tensor<?x?xf32>) {
  %0 = fusion.add %a, %b : tensor<?x?xf32>
  fusion.return %0, %a : tensor<?x?xf32>, tensor<?x?xf32>
}

fusion.fusion @three(%a: tensor<?x?xbf16>, %b: tensor<?x?xbf16>) -> (tensor<?x?xbf16>, tensor<?x?xf32>, tensor<?x?xi1>) {
  %0 = fusion.mul %a, %b : tensor<?x?xbf16>
  %1 = fusion.cast %0 : tensor<?x?xbf16> to tensor<?x?xf32>
  %2 = fusion.exp %1 : tensor<?x?xf32>
  %3 = fusion.lt %a, %b : tensor<?x?xbf16>
  fusion.return %0, %2, %3 : tensor<?x?xbf16>, tensor<?x?xf32>, tensor<?x?xi1>
}

fusion.fusion @two_shapes(%x: tensor<?x?xf32>, %b: tensor<1x?xf32>) -> (tensor<?x?xf32>, tensor<1x?xf32>) {
  %m = fusion.dim %x, 0 : tensor<?x?xf32>
  %n = fusion.dim %x, 1 : tensor<?x?xf32>
  %e = fusion.expand %b (%m, %n) : tensor<1x?xf32> -> tensor<?x?xf32>
  %s = fusion.add %x, %e : tensor<?x?xf32>
  %q = fusion.mul %b, %b : tensor<1x?xf32>
  fusion.return %s, %q : tensor<?x?xf32>, tensor<1x?xf32>
}

fusion.fusion @unrelated(%x: tensor<?x?xf32>, %y: tensor<?x?xf32>) -> (tensor<?x?xf32>, tensor<?x?xf32>) {
  %a = fusion.exp %x : tensor<?x?xf32>
  %b = fusion.neg %y : tensor<?x?xf32>
  fusion.return %a, %b : tensor<?x?xf32>, tensor<?x?xf32>
}
