// fusion.tensor_map (Note [Tensor maps]): round trip of a host program that
// maps an input and a buffer, and the copy engine's static rules.
// RUN: fusion-opt %s -split-input-file -verify-diagnostics | FileCheck %s

// CHECK-LABEL: fusion.fusion @maps
// CHECK: %[[A:.*]] = tensor_map %arg0 box [8, 64] : tensor<?x?xf32> -> !llvm.ptr
// CHECK: %[[B:.*]] = tensor_map %{{.*}} box [2, 4, 64] {oob_nan, swizzle = 3 : i32} : tensor<?x?x?xbf16> -> !llvm.ptr
fusion.fusion @maps(%x: tensor<?x?xf32>, %y: tensor<?x?x?xbf16>) -> tensor<?x?xf32> {
  %a = fusion.tensor_map %x box [8, 64] : tensor<?x?xf32> -> !llvm.ptr
  %b = fusion.tensor_map %y box [2, 4, 64] {swizzle = 3 : i32, oob_nan} : tensor<?x?x?xbf16> -> !llvm.ptr
  fusion.return %x : tensor<?x?xf32>
}

// -----

fusion.fusion @box_rank(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  // expected-error @+1 {{has 1 box dims for a tensor of 2 dims}}
  %a = fusion.tensor_map %x box [64] : tensor<?x?xf32> -> !llvm.ptr
  fusion.return %x : tensor<?x?xf32>
}

// -----

fusion.fusion @big_box(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  // expected-error @+1 {{box dim 0 is 512; box dims are 1 to 256 elements}}
  %a = fusion.tensor_map %x box [512, 64] : tensor<?x?xf32> -> !llvm.ptr
  fusion.return %x : tensor<?x?xf32>
}

// -----

fusion.fusion @inner_bytes(%x: tensor<?x?xbf16>) -> tensor<?x?xbf16> {
  // expected-error @+1 {{has an innermost box of 20 bytes; it must be a multiple of 16}}
  %a = fusion.tensor_map %x box [8, 10] : tensor<?x?xbf16> -> !llvm.ptr
  fusion.return %x : tensor<?x?xbf16>
}

// -----

fusion.fusion @swizzle_span(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  // expected-error @+1 {{has an innermost box of 256 bytes, more than the 64-byte swizzle span}}
  %a = fusion.tensor_map %x box [8, 64] {swizzle = 2 : i32} : tensor<?x?xf32> -> !llvm.ptr
  fusion.return %x : tensor<?x?xf32>
}

// -----

fusion.fusion @six_dims(%x: tensor<?x?x?x?x?x?xf32>) -> tensor<?x?x?x?x?x?xf32> {
  // expected-error @+1 {{maps tensors of 1 to 5 dims, got 6}}
  %a = fusion.tensor_map %x box [1, 1, 1, 1, 1, 4] : tensor<?x?x?x?x?x?xf32> -> !llvm.ptr
  fusion.return %x : tensor<?x?x?x?x?x?xf32>
}

// -----

fusion.fusion @nan_ints(%x: tensor<?x?xi32>) -> tensor<?x?xi32> {
  // expected-error @+1 {{fills with NaN, but its elements are 'i32'}}
  %a = fusion.tensor_map %x box [8, 64] {oob_nan} : tensor<?x?xi32> -> !llvm.ptr
  fusion.return %x : tensor<?x?xi32>
}

// -----

fusion.fusion @shared_ptr(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  // expected-error @+1 {{gives a generic !llvm.ptr, not '!llvm.ptr<3>'}}
  %a = fusion.tensor_map %x box [8, 64] : tensor<?x?xf32> -> !llvm.ptr<3>
  fusion.return %x : tensor<?x?xf32>
}
