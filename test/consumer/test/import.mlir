// A program of upstream ops, as a front end hands it over, imported into
// Fusion and compiled by the consumer's tool in one pipeline.
// RUN: consumer-opt %s --fusion-import-linalg | FileCheck %s --check-prefix=IMPORT
// RUN: consumer-opt %s --fusion-import-linalg --fusion-to-ptx | FileCheck %s

// IMPORT: fusion.fusion @scale(%{{.*}}: tensor<?xf32>) -> tensor<?xf32>
// IMPORT: exp
// CHECK: fusion.fusion @scale
// CHECK: gpu.binary @
func.func @scale(%x: tensor<?xf32>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?xf32>
  %e = tensor.empty(%n) : tensor<?xf32>
  %y = linalg.exp ins(%x : tensor<?xf32>) outs(%e : tensor<?xf32>) -> tensor<?xf32>
  return %y : tensor<?xf32>
}
