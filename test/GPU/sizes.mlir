// REQUIRES: cuda
// Sizes 1, 7, 1000003 and 2^28 elements. Outputs above 2^24 elements are
// checked on a sample of 2^20 positions (whole rows at the start, the end and
// two seeded places); every element is still checked for being written, by
// comparing two runs on outputs poisoned with different bytes.

// RUN: fusion-run %s --fusion=add --input=1 --input=1 | FileCheck %s --check-prefix=ONE
// ONE: PASS add 1xf32,1xf32 max_abs_err={{.*}} checked=1 variant=
// RUN: fusion-run %s --fusion=add --input=7 --input=7 | FileCheck %s --check-prefix=SEVEN
// SEVEN: PASS add 7xf32,7xf32 max_abs_err={{.*}} checked=7 variant=
// RUN: fusion-run %s --fusion=add --input=1000003 --input=1000003 | FileCheck %s --check-prefix=ODD
// ODD: PASS add 1000003xf32,1000003xf32 max_abs_err={{.*}} checked=1000003 variant=
// RUN: fusion-run %s --fusion=add2 --input=1x1 --input=1x1 | FileCheck %s --check-prefix=ONE2
// ONE2: PASS add2 1x1xbf16,1x1xbf16 max_abs_err=
// RUN: fusion-run %s --fusion=add2 --input=7x1 --input=7x1 | FileCheck %s --check-prefix=COLUMN
// COLUMN: PASS add2 7x1xbf16,7x1xbf16 max_abs_err=
// RUN: fusion-run %s --fusion=add --input=268435456 --input=268435456 | FileCheck %s --check-prefix=HUGE1
// HUGE1: PASS add 268435456xf32,268435456xf32 max_abs_err={{.*}} checked=1048576/268435456 variant=
// RUN: fusion-run %s --fusion=add2 --input=16384x16384 --input=16384x16384 | FileCheck %s --check-prefix=HUGE2
// HUGE2: PASS add2 16384x16384xbf16,16384x16384xbf16 max_abs_err={{.*}} checked=1048576/268435456 variant=
// The same, compared in full.
// RUN: fusion-run %s --fusion=add2 --input=16384x16384 --input=16384x16384 --full-check | FileCheck %s --check-prefix=FULL
// FULL: PASS add2 16384x16384xbf16,16384x16384xbf16 max_abs_err={{.*}} checked=268435456 variant=

fusion.fusion @add(%a: tensor<?xf32>, %b: tensor<?xf32>) -> tensor<?xf32> {
  %0 = fusion.add %a, %b : tensor<?xf32>
  %1 = fusion.mul %0, %b : tensor<?xf32>
  fusion.return %1 : tensor<?xf32>
}

fusion.fusion @add2(%a: tensor<?x?xbf16>, %b: tensor<?x?xbf16>) -> tensor<?x?xbf16> {
  %0 = fusion.add %a, %b : tensor<?x?xbf16>
  %1 = fusion.mul %0, %b : tensor<?x?xbf16>
  fusion.return %1 : tensor<?x?xbf16>
}
