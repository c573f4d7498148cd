// REQUIRES: cuda
// Non-contiguous inputs: rows padded by 3 elements (strided), the last two
// dims swapped in memory (transposed), and a rank-1 input with stride 3.
// The padding holds 0x7F bytes, so a kernel that reads it fails the check.

// RUN: fusion-run %s --fusion=add_relu --input=1000x37 --input=1000x37 --layout=0:strided | FileCheck %s --check-prefix=STRIDED
// STRIDED: PASS add_relu 1000x37xf32,1000x37xf32 max_abs_err=
// RUN: fusion-run %s --fusion=add_relu --input=1000x37 --input=1000x37 --layout=1:transposed | FileCheck %s --check-prefix=TRANSPOSED
// TRANSPOSED: PASS add_relu 1000x37xf32,1000x37xf32 max_abs_err=
// RUN: fusion-run %s --fusion=add_relu --input=512x512 --input=512x512 --layout=0:transposed --layout=1:strided | FileCheck %s --check-prefix=BOTH
// BOTH: PASS add_relu 512x512xf32,512x512xf32 max_abs_err=
// RUN: fusion-run %s --fusion=add_relu --input=4096x4096 --input=4096x4096 --layout=0:transposed | FileCheck %s --check-prefix=LARGE
// LARGE: PASS add_relu 4096x4096xf32,4096x4096xf32 max_abs_err=
// RUN: fusion-run %s --fusion=vec --input=100003 --input=100003 --layout=0:strided | FileCheck %s --check-prefix=RANK1
// RUN: fusion-run %s --fusion=vec --input=100003 --input=100003 --layout=0:strided --layout=1:strided | FileCheck %s --check-prefix=RANK1
// RANK1: PASS vec 100003xbf16,100003xbf16 max_abs_err=
// RUN: fusion-run %s --fusion=rank3 --input=7x129x65 --input=7x129x65 --layout=0:strided --layout=1:transposed | FileCheck %s --check-prefix=RANK3
// RANK3: PASS rank3 7x129x65xf16,7x129x65xf16 max_abs_err=
// RUN: fusion-run %s --fusion=gelu_bias --input=1000x1024 --input=1024 --layout=0:transposed | FileCheck %s --check-prefix=GELU
// GELU: PASS gelu_bias 1000x1024xbf16,1024xbf16 max_abs_err=

fusion.fusion @add_relu(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %0 = fusion.add %a, %b : tensor<?x?xf32>
  %1 = fusion.relu %0 : tensor<?x?xf32>
  fusion.return %1 : tensor<?x?xf32>
}

fusion.fusion @vec(%a: tensor<?xbf16>, %b: tensor<?xbf16>) -> tensor<?xbf16> {
  %0 = fusion.mul %a, %b : tensor<?xbf16>
  fusion.return %0 : tensor<?xbf16>
}

fusion.fusion @rank3(%a: tensor<?x?x?xf16>, %b: tensor<?x?x?xf16>) -> tensor<?x?x?xf16> {
  %0 = fusion.sub %a, %b : tensor<?x?x?xf16>
  %1 = fusion.abs %0 : tensor<?x?x?xf16>
  fusion.return %1 : tensor<?x?x?xf16>
}

fusion.fusion @gelu_bias(%x: tensor<?x?xbf16>, %bias: tensor<?xbf16>) -> tensor<?x?xbf16> {
  %m = fusion.dim %x, 0 : tensor<?x?xbf16>
  %n = fusion.dim %x, 1 : tensor<?x?xbf16>
  %b = fusion.broadcast_in_dim %bias [1] (%m, %n) : tensor<?xbf16> -> tensor<?x?xbf16>
  %0 = fusion.add %x, %b : tensor<?x?xbf16>
  %1 = fusion.gelu %0 tanh : tensor<?x?xbf16>
  fusion.return %1 : tensor<?x?xbf16>
}
