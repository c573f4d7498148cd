// The consumer's tool runs Fusion's registered pipeline: one gpu.binary per
// kernel variant of the fusion, and the host program that launches them.
// RUN: consumer-opt %s --fusion-to-ptx | FileCheck %s

// CHECK: fusion.fusion @add_relu
// CHECK: launch @add_relu_k0_v4_i32::@add_relu_k0_v4_i32 if(
// CHECK: launch @add_relu_k0_s_i64::@add_relu_k0_s_i64 grid(
// CHECK: gpu.binary @add_relu_k0_v4_i32 {{.*}}chip = "sm_90a"
fusion.fusion @add_relu(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %0 = fusion.add %a, %b : tensor<?x?xf32>
  %1 = fusion.relu %0 : tensor<?x?xf32>
  fusion.return %1 : tensor<?x?xf32>
}
