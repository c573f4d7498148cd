// REQUIRES: cuda
// Several outputs, one of them the input itself (a view: fusion-run passes
// the input's pointer for it and never poisons it).

// RUN: fusion-run %s --fusion=alias --input=1000x37 --input=1000x37 | FileCheck %s --check-prefix=ALIAS
// ALIAS: PASS alias 1000x37xf32,1000x37xf32 max_abs_err=0 rel_l2=0 checked=74000 variant=
// RUN: fusion-run %s --fusion=alias --input=1000x37 --input=1000x37 --layout=0:transposed | FileCheck %s --check-prefix=ALIAST
// ALIAST: PASS alias 1000x37xf32,1000x37xf32 max_abs_err=0 rel_l2=0 checked=74000 variant=
// RUN: fusion-run %s --fusion=three --input=333x65 --input=333x65 | FileCheck %s --check-prefix=THREE
// THREE: PASS three 333x65xbf16,333x65xbf16 max_abs_err={{.*}} checked=64935 variant=

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
