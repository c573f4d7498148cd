// RUN: fusion-translate %s --fusion-to-ptx --no-cubin -o %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: %if ptxas %{ ptxas -arch=sm_90a %t.ptx -o %t.cubin %}

// The vectorized variant uses 16-byte global loads and stores; the scalar
// variants 4-byte ones; all three entries exist; relu keeps NaN.
// CHECK: .target sm_90a
// CHECK-DAG: .visible .entry add_relu_k0_v4_i32(
// CHECK-DAG: .visible .entry add_relu_k0_s_i32(
// CHECK-DAG: .visible .entry add_relu_k0_s_i64(
// CHECK-DAG: ld.global.v4.b32
// CHECK-DAG: st.global.v4.b32
// CHECK-DAG: max.NaN.f32
fusion.fusion @add_relu(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %0 = fusion.add %a, %b : tensor<?x?xf32>
  %1 = fusion.relu %0 : tensor<?x?xf32>
  fusion.return %1 : tensor<?x?xf32>
}
