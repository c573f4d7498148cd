// REQUIRES: cuda
// A module file written by fusion-translate runs as the in-process compile
// does; the reference comes from the definition stored in the file.

// RUN: fusion-translate %s --fusion-to-module -o %t.fusionmod
// RUN: fusion-run %t.fusionmod --input=1000x37 --input=37 | FileCheck %s
// CHECK: PASS rows 1000x37xf32,37xf32 max_abs_err=
// RUN: fusion-run %t.fusionmod --input=4096x256 --input=256 --misalign | FileCheck %s --check-prefix=MISALIGNED
// MISALIGNED: PASS rows 4096x256xf32,256xf32 {{.*}} variant=rows_k0_s_i32
// PTX only: the driver compiles it.
// RUN: fusion-translate %s --fusion-to-module --no-cubin -o %t.ptx.fusionmod
// RUN: fusion-run %t.ptx.fusionmod --input=1000x37 --input=37 | FileCheck %s

fusion.fusion @rows(%x: tensor<?x?xf32>, %bias: tensor<?xf32>) -> tensor<?x?xf32> {
  %m = fusion.dim %x, 0 : tensor<?x?xf32>
  %n = fusion.dim %x, 1 : tensor<?x?xf32>
  %b = fusion.broadcast_in_dim %bias [1] (%m, %n) : tensor<?xf32> -> tensor<?x?xf32>
  %0 = fusion.add %x, %b : tensor<?x?xf32>
  %1 = fusion.sigmoid %0 : tensor<?x?xf32>
  fusion.return %1 : tensor<?x?xf32>
}
