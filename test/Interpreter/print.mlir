// fusion-interpret on explicit, filled and iota inputs, printing the outputs.
// RUN: fusion-interpret %s --input=2x3=iota --input='2x3=[-1,-2,-3,4,5,-6.5]' --print | FileCheck %s
// RUN: fusion-interpret %s --input=2x3xf32=0.25 --input=2x3=-1 --print | FileCheck %s --check-prefix=FILL
// RUN: fusion-interpret %s --input=1x4 --input=1x4 | FileCheck %s --check-prefix=TYPES
// RUN: fusion-interpret %s --input=2x3=iota --input='2x3=[-1,-2,-3,4,5,-6.5]' --print-inputs | FileCheck %s --check-prefix=INPUTS

// CHECK:      out0: tensor<2x3xf32>
// CHECK-NEXT: {{^}}{{\[\[}}-1, -1, -1],
// CHECK-NEXT: {{^}} [7, 9, -1.5]]
// CHECK-NEXT: out1: tensor<2x3xf32>
// CHECK-NEXT: {{^}}{{\[\[}}0, 0, 0],
// CHECK-NEXT: {{^}} [7, 9, 0]]

// FILL:      out0: tensor<2x3xf32>
// FILL-NEXT: {{\[\[}}-0.75, -0.75, -0.75],
// FILL-NEXT:  [-0.75, -0.75, -0.75]]

// Without --print only the types are printed.
// TYPES:      out0: tensor<1x4xf32>
// TYPES-NEXT: out1: tensor<1x4xf32>
// TYPES-NOT:  [

// INPUTS:      a: tensor<2x3xf32>
// INPUTS-NEXT: {{\[\[}}0, 1, 2],
// INPUTS-NEXT:  [3, 4, 5]]
// INPUTS-NEXT: b: tensor<2x3xf32>
// INPUTS-NEXT: {{\[\[}}-1, -2, -3],
// INPUTS-NEXT:  [4, 5, -6.5]]

fusion.fusion @add_relu(%a: tensor<?x?xf32> {fusion.name = "a"}, %b: tensor<?x?xf32> {fusion.name = "b"}) -> (tensor<?x?xf32>, tensor<?x?xf32>) {
  %0 = fusion.add %a, %b : tensor<?x?xf32>
  %1 = fusion.relu %0 : tensor<?x?xf32>
  fusion.return %0, %1 : tensor<?x?xf32>, tensor<?x?xf32>
}
