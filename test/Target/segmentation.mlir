// A fusion that one kernel cannot do becomes several kernels, launched in
// order; a kernel result that the fusion does not return is a buffer of the
// host program (an intermediate in the module file) that the next kernel
// reads.
// RUN: fusion-translate %s --fusion=outer_center --fusion-to-lowered-ir --no-cubin | FileCheck %s
// RUN: fusion-translate %s --fusion=row_sums_total --fusion-to-lowered-ir --no-cubin | FileCheck %s --check-prefix=CHAIN
// RUN: fusion-translate %s --fusion=outer_center --fusion-to-ptx --no-cubin -o %t.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// RUN: %if ptxas %{ ptxas -arch=sm_90a %t.ptx -o %t.cubin %}
// RUN: fusion-translate %s --fusion=outer_center --fusion-to-module --no-cubin -o %t.fmod

// x - mean(x, dim 0): an outer reduction writes the means (1 x n), then a
// pointwise kernel subtracts them.
// CHECK-LABEL: fusion.fusion @outer_center
// CHECK: %[[MEAN:.*]] = empty(%{{.*}}) : tensor<1x?xf32>
// CHECK: launch @outer_center_k0_v4_i32::@outer_center_k0_v4_i32 if({{.*}} args(%arg0, %{{.*}}, %{{.*}}, %arg1, %{{.*}}, %[[MEAN]],
// CHECK: launch @outer_center_k0_s_i32::
// CHECK: launch @outer_center_k0_s_i64::
// CHECK: %[[Y:.*]] = empty(%{{.*}}, %{{.*}}) : tensor<?x?xf32>
// CHECK: launch @outer_center_k1_v4_i32::@outer_center_k1_v4_i32 if({{.*}} args(%[[MEAN]], {{.*}}, %[[Y]],
// CHECK: launch @outer_center_k1_s_i32::
// CHECK: launch @outer_center_k1_s_i64::
// CHECK: return %[[Y]] : tensor<?x?xf32>

// PTX-DAG: .visible .entry outer_center_k0_v4_i32(
// PTX-DAG: .visible .entry outer_center_k0_s_i32(
// PTX-DAG: .visible .entry outer_center_k0_s_i64(
// PTX-DAG: .visible .entry outer_center_k1_v4_i32(
// PTX-DAG: .visible .entry outer_center_k1_s_i32(
// PTX-DAG: .visible .entry outer_center_k1_s_i64(
fusion.fusion @outer_center(%x: tensor<?x?xf32>, %count: f32) -> tensor<?x?xf32> {
  %m = fusion.dim %x, 0 : tensor<?x?xf32>
  %n = fusion.dim %x, 1 : tensor<?x?xf32>
  %s = fusion.sum %x [0] keepdim : tensor<?x?xf32> -> tensor<1x?xf32>
  %c = fusion.broadcast_in_dim %count [] (%n) : f32 -> tensor<1x?xf32>
  %mean = fusion.div %s, %c : tensor<1x?xf32>
  %e = fusion.expand %mean (%m, %n) : tensor<1x?xf32> -> tensor<?x?xf32>
  %y = fusion.sub %x, %e : tensor<?x?xf32>
  fusion.return %y : tensor<?x?xf32>
}

// sum(sum(x, dim 1)): the row sums (an intermediate of m elements) are
// reduced again by a one-row inner reduction.
// CHAIN-LABEL: fusion.fusion @row_sums_total
// CHAIN: %[[ROWS:.*]] = empty(%{{.*}}) : tensor<?xf32>
// CHAIN: launch @row_sums_total_k0_v4_i32::{{.*}} args(%arg0, %{{.*}}, %{{.*}}, %[[ROWS]],
// CHAIN: %[[T:.*]] = empty : tensor<f32>
// CHAIN: launch @row_sums_total_k1_v4_i32::{{.*}} args(%[[ROWS]], %{{.*}}, %[[T]],
// CHAIN: return %[[T]] : tensor<f32>
fusion.fusion @row_sums_total(%x: tensor<?x?xf32>) -> tensor<f32> {
  %r = fusion.sum %x [1] : tensor<?x?xf32> -> tensor<?xf32>
  %t = fusion.sum %r [0] : tensor<?xf32> -> tensor<f32>
  fusion.return %t : tensor<f32>
}
