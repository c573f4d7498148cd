// REQUIRES: cuda
// --misalign offsets every input pointer by one element: the vectorized
// variant's alignment guard fails and the scalar 32-bit variant runs (the
// PASS line names the kernel that ran). Aligned, the same sizes vectorize.

// RUN: fusion-run %s --fusion=add --input=1000000 --input=1000000 | FileCheck %s --check-prefix=ALIGNED
// ALIGNED: PASS add 1000000xf32,1000000xf32 {{.*}} variant={{.*}}_v{{[0-9]+}}_i32
// RUN: fusion-run %s --fusion=add --input=1000000 --input=1000000 --misalign | FileCheck %s --check-prefix=MISALIGNED
// MISALIGNED: PASS add 1000000xf32,1000000xf32 {{.*}} variant={{.*}}_s_i32
// RUN: fusion-run %s --fusion=gelu_bias --input=1024x1024 --input=1024 --misalign | FileCheck %s --check-prefix=GELU
// GELU: PASS gelu_bias 1024x1024xbf16,1024xbf16 {{.*}} variant={{.*}}_s_i32
// RUN: fusion-run %s --fusion=bytes --input=4096x256 --input=4096x256 --misalign | FileCheck %s --check-prefix=BYTES
// BYTES: PASS bytes 4096x256xi8,4096x256xi8 {{.*}} variant={{.*}}_s_i32
// RUN: fusion-run %s --fusion=add --input=1000000 --input=1000000 --misalign --layout=1:strided | FileCheck %s --check-prefix=STRIDED
// STRIDED: PASS add 1000000xf32,1000000xf32 {{.*}} variant={{.*}}_s_i32

fusion.fusion @add(%a: tensor<?xf32>, %b: tensor<?xf32>) -> tensor<?xf32> {
  %0 = fusion.add %a, %b : tensor<?xf32>
  fusion.return %0 : tensor<?xf32>
}

fusion.fusion @gelu_bias(%x: tensor<?x?xbf16>, %bias: tensor<?xbf16>) -> tensor<?x?xbf16> {
  %m = fusion.dim %x, 0 : tensor<?x?xbf16>
  %n = fusion.dim %x, 1 : tensor<?x?xbf16>
  %b = fusion.broadcast_in_dim %bias [1] (%m, %n) : tensor<?xbf16> -> tensor<?x?xbf16>
  %0 = fusion.add %x, %b : tensor<?x?xbf16>
  %1 = fusion.gelu %0 tanh : tensor<?x?xbf16>
  fusion.return %1 : tensor<?x?xbf16>
}

fusion.fusion @bytes(%a: tensor<?x?xi8>, %b: tensor<?x?xi8>) -> tensor<?x?xi8> {
  %0 = fusion.add %a, %b : tensor<?x?xi8>
  fusion.return %0 : tensor<?x?xi8>
}
