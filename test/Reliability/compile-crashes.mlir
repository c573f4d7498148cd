// Inputs that crashed the compiler (segfaults in the verifier after
// lowering, MLIR's internal errors): each compiles now, or gets a diagnostic
// on the op at fault.
// RUN: fusion-opt %s -split-input-file -verify-diagnostics --fusion-to-ptx -o /dev/null
// RUN: fusion-translate %s --fusion=size_constant --fusion-to-ptx --no-cubin -o %t.size_constant.ptx
// RUN: FileCheck %s --check-prefix=SIZE < %t.size_constant.ptx
// RUN: fusion-translate %s --fusion=fp8_sum --fusion-to-ptx --no-cubin -o %t.fp8_sum.ptx
// RUN: FileCheck %s --check-prefix=FP8 < %t.fp8_sum.ptx
// RUN: %if ptxas %{ ptxas -arch=sm_90a %t.size_constant.ptx -o %t.1.cubin %}
// RUN: %if ptxas %{ ptxas -arch=sm_90a %t.fp8_sum.ptx -o %t.2.cubin %}

// A constant size operand (item 1): the size is rebuilt on the host, not
// read from inside the kernel body.
// SIZE: .entry size_constant_k0_v4_i32
fusion.fusion @size_constant(%a: tensor<4xf32>) -> tensor<?x4xf32> {
  %n = arith.constant 3 : index
  %1 = fusion.broadcast_in_dim %a [1](%n) : tensor<4xf32> -> tensor<?x4xf32>
  fusion.return %1 : tensor<?x4xf32>
}

// -----

// The same with the static dim of a reduction's result as the size.
fusion.fusion @size_static_dim(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %s = fusion.sum %x [0] : tensor<?x4xf32> -> tensor<4xf32>
  %n = fusion.dim %s, 0 : tensor<4xf32>
  %m = fusion.dim %x, 0 : tensor<?x4xf32>
  %b = fusion.broadcast_in_dim %s [1](%m) : tensor<4xf32> -> tensor<?x4xf32>
  %c = fusion.broadcast_in_dim %s [1](%n) : tensor<4xf32> -> tensor<?x4xf32>
  fusion.return %c : tensor<?x4xf32>
}

// -----

// A splat tensor constant is one scalar in the kernel.
fusion.fusion @splat_constant(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %c = arith.constant dense<2.0> : tensor<4xf32>
  %n = fusion.dim %x, 0 : tensor<?x4xf32>
  %b = fusion.broadcast_in_dim %c [1](%n) : tensor<4xf32> -> tensor<?x4xf32>
  %r = fusion.add %x, %b : tensor<?x4xf32>
  fusion.return %r : tensor<?x4xf32>
}

// -----

// A constant tensor<2xi1> condition (item 2, @where_mixed_cond of
// canonicalize.mlir): several values, refused on the constant.
fusion.fusion @where_mixed_cond(%x: tensor<2xf32>, %y: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{'arith.constant' op is a tensor constant of several values, which has no GPU lowering yet: pass the values as an input tensor}}
  %cond = arith.constant dense<[true, false]> : tensor<2xi1>
  %0 = fusion.where %cond, %x, %y : tensor<2xi1>, tensor<2xf32>
  fusion.return %0 : tensor<2xf32>
}

// -----

// A tensor constant through broadcast_in_dim then add (item 3).
fusion.fusion @table_constant(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  // expected-error @+1 {{is a tensor constant of several values}}
  %c = arith.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %n = fusion.dim %x, 0 : tensor<?x4xf32>
  %b = fusion.broadcast_in_dim %c [1](%n) : tensor<4xf32> -> tensor<?x4xf32>
  %r = fusion.add %x, %b : tensor<?x4xf32>
  fusion.return %r : tensor<?x4xf32>
}

// -----

// fp8 reductions (item 6): the accumulator is f32, decoded from and encoded
// to the fp8 bits (no arith.truncf/extf on fp8 reaches LLVM).
// FP8: .entry fp8_sum_k0
fusion.fusion @fp8_sum(%x: tensor<?x?xf8E4M3FN>) -> tensor<?xf8E4M3FN> {
  %r = fusion.sum %x [1] : tensor<?x?xf8E4M3FN> -> tensor<?xf8E4M3FN>
  fusion.return %r : tensor<?xf8E4M3FN>
}

// -----

fusion.fusion @fp8_max(%x: tensor<?x?xf8E5M2>) -> tensor<?xf8E5M2> {
  %r = fusion.max %x [1] : tensor<?x?xf8E5M2> -> tensor<?xf8E5M2>
  fusion.return %r : tensor<?xf8E5M2>
}

// -----

fusion.fusion @fp8_outer_sum(%x: tensor<?x?xf8E4M3FN>) -> tensor<?xf8E4M3FN> {
  %r = fusion.sum %x [0] : tensor<?x?xf8E4M3FN> -> tensor<?xf8E4M3FN>
  fusion.return %r : tensor<?xf8E4M3FN>
}
