// --fusion-import-linalg with tensor reshapes, slices and concats:
// tensor.collapse_shape / tensor.expand_shape become fusion.reshape (a
// collapsed dynamic dim is the product of its group, an expanded one the
// output_shape operand), tensor.extract_slice a fusion.slice whose stop is
// one past the last element taken (and a fusion.squeeze of the dims a
// rank-reducing slice drops), tensor.concat a fusion.cat; index arithmetic
// of the function comes along. The imported rotate-half of RoPE compiles to
// PTX, and the interpreter gives the values the tensor ops mean.
// RUN: fusion-opt %s --fusion-import-linalg | FileCheck %s
// RUN: fusion-opt %s --fusion-import-linalg > %t.mlir
// RUN: fusion-translate %t.mlir --fusion=rotate_half --fusion-to-ptx --no-cubin -o %t.ptx
// RUN: fusion-translate %t.mlir --fusion=reshapes --fusion-to-ptx --no-cubin -o %t.reshapes.ptx
// RUN: %if ptxas %{ ptxas -arch=sm_90a %t.ptx -o %t.cubin %}
// RUN: fusion-interpret %t.mlir --fusion=rotate_half --input=2x4xf32=[1,2,3,4,5,6,7,8] --print | FileCheck %s --check-prefix=ROT
// RUN: fusion-interpret %t.mlir --fusion=reshapes --input=2x6xf32=iota --print | FileCheck %s --check-prefix=RESHAPE
// RUN: fusion-interpret %t.mlir --fusion=strided --input=5x3xf32=iota --print | FileCheck %s --check-prefix=STRIDED

// CHECK-NOT: func.func
// CHECK-LABEL: fusion.fusion @rotate_half
// CHECK-DAG: %[[LO:.*]] = slice %arg0[{{.*}}] [{{.*}}] [{{.*}}] : tensor<?x4xf32> -> tensor<?x2xf32>
// CHECK-DAG: %[[HI:.*]] = slice %arg0[{{.*}}] [{{.*}}] [{{.*}}] : tensor<?x4xf32> -> tensor<?x2xf32>
// CHECK: %[[NEG:.*]] = neg %[[HI]] : tensor<?x2xf32>
// CHECK: %[[CAT:.*]] = cat %[[NEG]], %[[LO]] dim = 1 : tensor<?x2xf32>, tensor<?x2xf32> -> tensor<?x4xf32>
// CHECK: return %[[CAT]]
// rotate_half([1 2 3 4; 5 6 7 8]) = [-3 -4 1 2; -7 -8 5 6]
// ROT: [-3, -4, 1, 2]
// ROT: [-7, -8, 5, 6]
func.func @rotate_half(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %c0 = arith.constant 0 : index
  %d0 = tensor.dim %x, %c0 : tensor<?x4xf32>
  %lo = tensor.extract_slice %x[0, 0] [%d0, 2] [1, 1] : tensor<?x4xf32> to tensor<?x2xf32>
  %hi = tensor.extract_slice %x[0, 2] [%d0, 2] [1, 1] : tensor<?x4xf32> to tensor<?x2xf32>
  %e = tensor.empty(%d0) : tensor<?x2xf32>
  %n = linalg.negf ins(%hi : tensor<?x2xf32>) outs(%e : tensor<?x2xf32>) -> tensor<?x2xf32>
  %c = tensor.concat dim(1) %n, %lo : (tensor<?x2xf32>, tensor<?x2xf32>) -> tensor<?x4xf32>
  return %c : tensor<?x4xf32>
}

// CHECK-LABEL: fusion.fusion @reshapes
// CHECK: %[[N:.*]] = arith.muli
// CHECK: %[[FLAT:.*]] = reshape %arg0(%[[N]]) : tensor<?x6xf32> -> tensor<?xf32>
// CHECK: %[[ROWS:.*]] = arith.muli
// CHECK: reshape %[[FLAT]](%[[ROWS]]) : tensor<?xf32> -> tensor<?x3xf32>
// 2x6 iota collapsed and expanded to 4x3 (rows = 2 * d0), then + 1.
// RESHAPE: [1, 2, 3]
// RESHAPE: [4, 5, 6]
// RESHAPE: [7, 8, 9]
// RESHAPE: [10, 11, 12]
func.func @reshapes(%x: tensor<?x6xf32>) -> tensor<?x3xf32> {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %d0 = tensor.dim %x, %c0 : tensor<?x6xf32>
  %flat = tensor.collapse_shape %x [[0, 1]] : tensor<?x6xf32> into tensor<?xf32>
  %rows = arith.muli %d0, %c2 : index
  %y = tensor.expand_shape %flat [[0, 1]] output_shape [%rows, 3] : tensor<?xf32> into tensor<?x3xf32>
  %e = tensor.empty(%rows) : tensor<?x3xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%y : tensor<?x3xf32>) outs(%e : tensor<?x3xf32>) {
  ^bb0(%a: f32, %o: f32):
    %one = arith.constant 1.0 : f32
    %p = arith.addf %a, %one : f32
    linalg.yield %p : f32
  } -> tensor<?x3xf32>
  return %r : tensor<?x3xf32>
}

// A strided, rank-reducing slice: rows 1 and 3 of column 2.
// CHECK-LABEL: fusion.fusion @strided
// CHECK: %[[S:.*]] = slice %arg0[{{.*}}] : tensor<5x3xf32> -> tensor<2x1xf32>
// CHECK: squeeze %[[S]] [1] : tensor<2x1xf32> -> tensor<2xf32>
// iota 5x3: element (r, c) = 3r + c; rows 1, 3 of column 2 are 5 and 11.
// STRIDED: [5, 11]
func.func @strided(%x: tensor<5x3xf32>) -> tensor<2xf32> {
  %s = tensor.extract_slice %x[1, 2] [2, 1] [2, 1] : tensor<5x3xf32> to tensor<2xf32>
  return %s : tensor<2xf32>
}
