// --fusion-import-linalg leaves a function it cannot express as it is and
// warns on the op at fault, saying why; the other functions of the module
// are still imported.
// RUN: fusion-opt %s --fusion-import-linalg -split-input-file -verify-diagnostics | FileCheck %s

#id = affine_map<(d0, d1) -> (d0, d1)>

// CHECK-LABEL: func.func @matmul
// CHECK: linalg.matmul
func.func @matmul(%a: tensor<4x8xf32>, %b: tensor<8x2xf32>) -> tensor<4x2xf32> {
  %e = tensor.empty() : tensor<4x2xf32>
  // expected-warning @+1 {{not imported into fusion (function @matmul stays as it is): 'linalg.matmul' is a contraction or convolution, which has no fusion counterpart}}
  %c = linalg.matmul ins(%a, %b : tensor<4x8xf32>, tensor<8x2xf32>) outs(%e : tensor<4x2xf32>) -> tensor<4x2xf32>
  return %c : tensor<4x2xf32>
}

// CHECK-LABEL: fusion.fusion @still_imported
func.func @still_imported(%a: tensor<4xf32>) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  %s = linalg.softmax dimension(0) ins(%a : tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  return %s : tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @init_not_neutral
func.func @init_not_neutral(%x: tensor<4x8xf32>) -> tensor<4xf32> {
  %one = arith.constant 1.0 : f32
  %e = tensor.empty() : tensor<4xf32>
  %f = linalg.fill ins(%one : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  // expected-warning @+1 {{a reduction whose init is not a linalg.fill of its neutral value}}
  %s = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<4x8xf32>) outs(%f : tensor<4xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %r = arith.addf %a, %acc : f32
    linalg.yield %r : f32
  } -> tensor<4xf32>
  return %s : tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @permuted_read
func.func @permuted_read(%x: tensor<4x4xf32>, %y: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %e = tensor.empty() : tensor<4x4xf32>
  // expected-warning @+1 {{a permuted indexing map (write it as linalg.transpose)}}
  %s = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%x, %y : tensor<4x4xf32>, tensor<4x4xf32>) outs(%e : tensor<4x4xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %r = arith.addf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<4x4xf32>
  return %s : tensor<4x4xf32>
}

// -----

// CHECK-LABEL: func.func @body_op
func.func @body_op(%x: tensor<4xf32>) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  // expected-warning @+1 {{'math.cbrt' in its body has no fusion counterpart here}}
  %s = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = math.cbrt %a : f32
    linalg.yield %r : f32
  } -> tensor<4xf32>
  return %s : tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @scalar_result
func.func @scalar_result(%x: f32) -> f32 {
  // expected-warning @-1 {{a function whose arguments and results are not all ranked tensors}}
  return %x : f32
}

// -----

// tensor.insert_slice writes into a tensor: no fusion counterpart.
// CHECK-LABEL: func.func @insert_slice
func.func @insert_slice(%x: tensor<8xf32>, %y: tensor<2xf32>) -> tensor<8xf32> {
  // expected-warning @+1 {{'tensor.insert_slice' has no fusion counterpart here}}
  %r = tensor.insert_slice %y into %x[2] [2] [1] : tensor<2xf32> into tensor<8xf32>
  return %r : tensor<8xf32>
}

// -----

// A slice size read from a tensor's data: the fusion's sizes come from
// input shapes and constants only.
// CHECK-LABEL: func.func @slice_of_a_scalar_size
func.func @slice_of_a_scalar_size(%x: tensor<8xf32>, %s: tensor<index>) -> tensor<?xf32> {
  // expected-warning @+1 {{'tensor.extract' has no fusion counterpart here}}
  %n = tensor.extract %s[] : tensor<index>
  %r = tensor.extract_slice %x[0] [%n] [1] : tensor<8xf32> to tensor<?xf32>
  return %r : tensor<?xf32>
}
