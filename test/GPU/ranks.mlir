// REQUIRES: cuda
// Ranks 1 to 5, sizes that are not multiples of the vector width.

// RUN: fusion-run %s --fusion=rank1 --input=100003 --input=100003 | FileCheck %s --check-prefix=R1
// R1: PASS rank1 100003xf32,100003xf32 max_abs_err=
// RUN: fusion-run %s --fusion=rank2 --input=1001x999 --input=1001x999 | FileCheck %s --check-prefix=R2
// R2: PASS rank2 1001x999xf32,1001x999xf32 max_abs_err=
// RUN: fusion-run %s --fusion=rank3 --input=17x33x65 --input=17x33x65 | FileCheck %s --check-prefix=R3
// R3: PASS rank3 17x33x65xf32,17x33x65xf32 max_abs_err=
// RUN: fusion-run %s --fusion=rank4 --input=5x7x9x11 --input=5x7x9x11 | FileCheck %s --check-prefix=R4
// R4: PASS rank4 5x7x9x11xf32,5x7x9x11xf32 max_abs_err=
// RUN: fusion-run %s --fusion=rank5 --input=3x5x7x9x11 --input=3x5x7x9x11 | FileCheck %s --check-prefix=R5
// R5: PASS rank5 3x5x7x9x11xf32,3x5x7x9x11xf32 max_abs_err=
// Rank 5 with the innermost dim a multiple of 8 (the vectorized variant).
// RUN: fusion-run %s --fusion=rank5 --input=3x5x7x9x64 --input=3x5x7x9x64 | FileCheck %s --check-prefix=R5V
// R5V: PASS rank5 3x5x7x9x64xf32,3x5x7x9x64xf32 {{.*}} variant={{.*}}_v{{[0-9]+}}_i32
// Rank 5 with strided and transposed inputs.
// RUN: fusion-run %s --fusion=rank5 --input=3x5x7x9x11 --input=3x5x7x9x11 --layout=0:strided --layout=1:transposed | FileCheck %s --check-prefix=R5L
// R5L: PASS rank5 3x5x7x9x11xf32,3x5x7x9x11xf32 max_abs_err=

fusion.fusion @rank1(%a: tensor<?xf32>, %b: tensor<?xf32>) -> tensor<?xf32> {
  %0 = fusion.mul %a, %b : tensor<?xf32>
  %1 = fusion.add %0, %a : tensor<?xf32>
  fusion.return %1 : tensor<?xf32>
}

fusion.fusion @rank2(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %0 = fusion.mul %a, %b : tensor<?x?xf32>
  %1 = fusion.add %0, %a : tensor<?x?xf32>
  fusion.return %1 : tensor<?x?xf32>
}

fusion.fusion @rank3(%a: tensor<?x?x?xf32>, %b: tensor<?x?x?xf32>) -> tensor<?x?x?xf32> {
  %0 = fusion.mul %a, %b : tensor<?x?x?xf32>
  %1 = fusion.add %0, %a : tensor<?x?x?xf32>
  fusion.return %1 : tensor<?x?x?xf32>
}

fusion.fusion @rank4(%a: tensor<?x?x?x?xf32>, %b: tensor<?x?x?x?xf32>) -> tensor<?x?x?x?xf32> {
  %0 = fusion.mul %a, %b : tensor<?x?x?x?xf32>
  %1 = fusion.add %0, %a : tensor<?x?x?x?xf32>
  fusion.return %1 : tensor<?x?x?x?xf32>
}

fusion.fusion @rank5(%a: tensor<?x?x?x?x?xf32>, %b: tensor<?x?x?x?x?xf32>) -> tensor<?x?x?x?x?xf32> {
  %0 = fusion.mul %a, %b : tensor<?x?x?x?x?xf32>
  %1 = fusion.add %0, %a : tensor<?x?x?x?x?xf32>
  fusion.return %1 : tensor<?x?x?x?x?xf32>
}
