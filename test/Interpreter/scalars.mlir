// Scalar and index inputs, scalar outputs, reductions and static-shape
// inputs taken from the signature.
// RUN: fusion-interpret %s --fusion=axpy --input=2.5 --input='3=[1,2,3]' --input='3=[10,20,30]' --print | FileCheck %s --check-prefix=AXPY
// RUN: fusion-interpret %s --fusion=arange --input=5 --print | FileCheck %s --check-prefix=ARANGE
// RUN: fusion-interpret %s --fusion=stats --input==iota --print | FileCheck %s --check-prefix=STATS
// RUN: fusion-interpret %s --fusion=stats --print | FileCheck %s --check-prefix=RANDOM

// AXPY:      out0: tensor<3xf32>
// AXPY-NEXT: [12.5, 25, 37.5]
// AXPY-NEXT: out1: tensor<f32>
// AXPY-NEXT: 75

// ARANGE:      out0: tensor<5xi64>
// ARANGE-NEXT: [0, 3, 6, 9, 12]
// ARANGE-NEXT: out1: tensor<i64>
// ARANGE-NEXT: 5

// x = [[0, 1, 2], [3, 4, 5]]: sums per row, max per column, unbiased
// variance and mean per row, argmax per row.
// STATS:      out0: tensor<2xf64>
// STATS-NEXT: [3, 12]
// STATS-NEXT: out1: tensor<1x3xf64>
// STATS-NEXT: {{\[\[}}3, 4, 5]]
// STATS-NEXT: out2: tensor<2xf64>
// STATS-NEXT: [1, 1]
// STATS-NEXT: out3: tensor<2xf64>
// STATS-NEXT: [1, 4]
// STATS-NEXT: out4: tensor<2xi64>
// STATS-NEXT: [2, 2]

// RANDOM: out0: tensor<2xf64>

fusion.fusion @axpy(%a: f32, %x: tensor<?xf32>, %y: tensor<?xf32>) -> (tensor<?xf32>, tensor<f32>) {
  %n = fusion.dim %x, 0 : tensor<?xf32>
  %ab = fusion.broadcast_in_dim %a [] (%n) : f32 -> tensor<?xf32>
  %ax = fusion.mul %ab, %x : tensor<?xf32>
  %r = fusion.add %ax, %y : tensor<?xf32>
  %s = fusion.sum %r [0] : tensor<?xf32> -> tensor<f32>
  fusion.return %r, %s : tensor<?xf32>, tensor<f32>
}

fusion.fusion @arange(%n: index) -> (tensor<?xi64>, index) {
  %s = arith.constant 0 : i64
  %d = arith.constant 3 : i64
  %r = fusion.iota %s, %d (%n) : i64 -> tensor<?xi64>
  fusion.return %r, %n : tensor<?xi64>, index
}

fusion.fusion @stats(%x: tensor<2x3xf64>) -> (tensor<2xf64>, tensor<1x3xf64>, tensor<2xf64>, tensor<2xf64>, tensor<2xi64>) {
  %s = fusion.sum %x [1] : tensor<2x3xf64> -> tensor<2xf64>
  %m = fusion.max %x [0] keepdim : tensor<2x3xf64> -> tensor<1x3xf64>
  %v, %mean = fusion.var_mean %x [1] correction = 1 : tensor<2x3xf64> -> tensor<2xf64>
  %a = fusion.argmax %x dim = 1 : tensor<2x3xf64> -> tensor<2xi64>
  fusion.return %s, %m, %v, %mean, %a : tensor<2xf64>, tensor<1x3xf64>, tensor<2xf64>, tensor<2xf64>, tensor<2xi64>
}
