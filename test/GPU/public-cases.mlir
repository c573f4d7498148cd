// REQUIRES: cuda
// The public pointwise cases of BENCHMARKS.md (add_relu in f32, gelu_bias in
// bf16, as examples/ defines them) at the three public shapes, checked on a
// sample against the reference interpreter.

// RUN: fusion-run %s --fusion=add_relu --input=32768x4096 --input=32768x4096 | FileCheck %s --check-prefix=AR1
// AR1: PASS add_relu 32768x4096xf32,32768x4096xf32 max_abs_err={{.*}} variant={{.*}}_v{{[0-9]+}}_i32
// RUN: fusion-run %s --fusion=add_relu --input=8192x16384 --input=8192x16384 | FileCheck %s --check-prefix=AR2
// AR2: PASS add_relu 8192x16384xf32,8192x16384xf32 max_abs_err={{.*}} variant={{.*}}_v{{[0-9]+}}_i32
// RUN: fusion-run %s --fusion=add_relu --input=262144x1024 --input=262144x1024 | FileCheck %s --check-prefix=AR3
// AR3: PASS add_relu 262144x1024xf32,262144x1024xf32 max_abs_err={{.*}} variant={{.*}}_v{{[0-9]+}}_i32
// RUN: fusion-run %s --fusion=gelu_bias --input=32768x4096 --input=4096 | FileCheck %s --check-prefix=GB1
// GB1: PASS gelu_bias 32768x4096xbf16,4096xbf16 max_abs_err={{.*}} variant={{.*}}_v{{[0-9]+}}_i32
// RUN: fusion-run %s --fusion=gelu_bias --input=8192x16384 --input=16384 | FileCheck %s --check-prefix=GB2
// GB2: PASS gelu_bias 8192x16384xbf16,16384xbf16 max_abs_err={{.*}} variant={{.*}}_v{{[0-9]+}}_i32
// RUN: fusion-run %s --fusion=gelu_bias --input=262144x1024 --input=1024 | FileCheck %s --check-prefix=GB3
// GB3: PASS gelu_bias 262144x1024xbf16,1024xbf16 max_abs_err={{.*}} variant={{.*}}_v{{[0-9]+}}_i32

// relu(a + b) on f32 matrices of any size (BENCHMARKS.md: add_relu).
fusion.fusion @add_relu(%a: tensor<?x?xf32> {fusion.name = "a"}, %b: tensor<?x?xf32> {fusion.name = "b"}) -> tensor<?x?xf32> {
  %0 = fusion.add %a, %b : tensor<?x?xf32>
  %1 = fusion.relu %0 : tensor<?x?xf32>
  fusion.return %1 : tensor<?x?xf32>
}

// gelu_tanh(x + bias[N]) on bf16, computed in f32 (BENCHMARKS.md: gelu_bias).
fusion.fusion @gelu_bias(%x: tensor<?x?xbf16> {fusion.name = "x"}, %bias: tensor<?xbf16> {fusion.name = "bias"}) -> tensor<?x?xbf16> {
  %m = fusion.dim %x, 0 : tensor<?x?xbf16>
  %n = fusion.dim %x, 1 : tensor<?x?xbf16>
  %b = fusion.broadcast_in_dim %bias [1] (%m, %n) : tensor<?xbf16> -> tensor<?x?xbf16>
  %0 = fusion.add %x, %b : tensor<?x?xbf16>
  %1 = fusion.gelu %0 tanh : tensor<?x?xbf16>
  fusion.return %1 : tensor<?x?xbf16>
}
