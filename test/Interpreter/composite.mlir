// Composites run directly, and after --decompose as primitives; both give
// the same values (to the f32 ulp).
// RUN: fusion-interpret %s --fusion=softmax --input='2x3=[1,2,3,0,0,0]' --print | FileCheck %s --check-prefix=SOFTMAX
// RUN: fusion-interpret %s --fusion=softmax --input='2x3=[1,2,3,0,0,0]' --print --decompose | FileCheck %s --check-prefix=SOFTMAX
// RUN: fusion-interpret %s --fusion=layernorm --input='2x2=[1,3,-5,5]' --input='2=[2,1]' --input='2=[0,10]' --print | FileCheck %s --check-prefix=LAYERNORM
// RUN: fusion-interpret %s --fusion=layernorm --input='2x2=[1,3,-5,5]' --input='2=[2,1]' --input='2=[0,10]' --print --decompose | FileCheck %s --check-prefix=LAYERNORM
// RUN: fusion-interpret %s --fusion=gelu --input='3xf64=[-1,0,1]' --print | FileCheck %s --check-prefix=GELU

// SOFTMAX:      out0: tensor<2x3xf32>
// SOFTMAX-NEXT: {{\[\[}}0.090030{{[0-9]*}}, 0.244728{{[0-9]*}}, 0.665240{{[0-9]*}}],
// SOFTMAX-NEXT:  [0.33333{{[0-9]*}}, 0.33333{{[0-9]*}}, 0.33333{{[0-9]*}}]]

// (x - mean) / sqrt(var + 1e-5) * weight + bias with var 1 and 25.
// LAYERNORM:      out0: tensor<2x2xbf16>
// LAYERNORM-NEXT: {{\[\[}}-2, 11],
// LAYERNORM-NEXT:  [-2, 11]]

// GELU:      out0: tensor<3xf64>
// GELU-NEXT: [-0.15865525393145707, 0, 0.8413447460685429]

fusion.fusion @softmax(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %0 = fusion.softmax %x dim = 1 : tensor<?x?xf32>
  fusion.return %0 : tensor<?x?xf32>
}

fusion.fusion @layernorm(%x: tensor<?x?xbf16>, %w: tensor<?xbf16>, %b: tensor<?xbf16>) -> tensor<?x?xbf16> {
  %0 = fusion.layer_norm %x weight(%w : tensor<?xbf16>) bias(%b : tensor<?xbf16>) axis = 1 eps = 1.0e-05 : tensor<?x?xbf16>
  fusion.return %0 : tensor<?x?xbf16>
}

fusion.fusion @gelu(%x: tensor<?xf64>) -> tensor<?xf64> {
  %0 = fusion.gelu %x : tensor<?xf64>
  fusion.return %0 : tensor<?xf64>
}
