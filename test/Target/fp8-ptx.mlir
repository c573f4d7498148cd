// RUN: fusion-translate %s --fusion-to-ptx --no-cubin -o %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: FileCheck %s --check-prefix=NONE < %t.ptx
// RUN: %if ptxas %{ ptxas -arch=sm_90a %t.ptx -o %t.cubin %}
// RUN: fusion-translate %s --fusion-to-ptx --no-cubin --chip=sm_80 -o %t80.ptx
// RUN: FileCheck %s --check-prefix=SM80 < %t80.ptx
// RUN: %if ptxas %{ ptxas -arch=sm_80 %t80.ptx -o %t80.cubin %}

// fp8 conversions both ways (Note [fp8 on the GPU] in
// lib/Conversion/FusionToGPU/Elementwise.cpp): f32 and f64 to fp8, fp8 to f32, bf16, i32 and the other fp8 format, in
// every variant. fp8 tensors move as bytes, 8 per 8-byte access in the
// vectorized variant; the conversions are integer operations, plus an exact
// int -> f32 conversion and multiply for subnormals, and a truncation to i32
// after the out-of-range and NaN lanes were replaced.
// CHECK: .target sm_90a
// CHECK-DAG: .visible .entry fp8_casts_k0_v8_i32(
// CHECK-DAG: .visible .entry fp8_casts_k0_s_i32(
// CHECK-DAG: .visible .entry fp8_casts_k0_s_i64(
// CHECK-DAG: ld.global.v2.b32
// CHECK-DAG: st.global.v2.b32
// CHECK-DAG: ld.global.b8
// CHECK-DAG: st.global.b8
// CHECK-DAG: cvt.rn.f32.u32
// CHECK-DAG: mul.rn.f32
// CHECK-DAG: cvt.rzi.s32.f32
// f32 -> e4m3fn takes the hardware's conversion on sm_89 and later, two
// lanes per instruction (Note [Hardware fp8 conversion] in
// lib/Conversion/FusionToGPU/Casts.cpp), and so does e5m2 -> e4m3fn
// (decoded to an exact f32 first); f64 -> e5m2 keeps the integer encoder
// (going through f32 would round twice), so e5m2x2 never appears.
// NONE-NOT: e5m2x2
// CHECK-DAG: cvt.rn.satfinite.e4m3x2.f32
// A vector's lanes take the interpreter's replacements only where the
// largest magnitude (a max that keeps NaN) is beyond 464 or NaN.
// CHECK-DAG: max.NaN.f32
// CHECK-DAG: setp.le.f32 %p{{[0-9]+}}, %r{{[0-9]+}}, 0f43E80000;
// sm_80 has no fp8 conversion: integer code only.
// SM80: .target sm_80
// SM80-NOT: cvt.rn.satfinite
// No flush to zero, no calls (libdevice or soft-float helpers).
// NONE-NOT: .ftz
// NONE-NOT: call
fusion.fusion @fp8_casts(%a: tensor<?x?xf32>, %d: tensor<?x?xf64>, %e: tensor<?x?xf8E4M3FN>, %g: tensor<?x?xf8E5M2>) -> (tensor<?x?xf8E4M3FN>, tensor<?x?xf8E5M2>, tensor<?x?xf32>, tensor<?x?xbf16>, tensor<?x?xi32>, tensor<?x?xf8E4M3FN>) {
  %0 = fusion.cast %a : tensor<?x?xf32> to tensor<?x?xf8E4M3FN>
  %1 = fusion.cast %d : tensor<?x?xf64> to tensor<?x?xf8E5M2>
  %2 = fusion.cast %e : tensor<?x?xf8E4M3FN> to tensor<?x?xf32>
  %3 = fusion.cast %g : tensor<?x?xf8E5M2> to tensor<?x?xbf16>
  %4 = fusion.cast %e : tensor<?x?xf8E4M3FN> to tensor<?x?xi32>
  %5 = fusion.cast %g : tensor<?x?xf8E5M2> to tensor<?x?xf8E4M3FN>
  fusion.return %0, %1, %2, %3, %4, %5 : tensor<?x?xf8E4M3FN>, tensor<?x?xf8E5M2>, tensor<?x?xf32>, tensor<?x?xbf16>, tensor<?x?xi32>, tensor<?x?xf8E4M3FN>
}
