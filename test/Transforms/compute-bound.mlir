// Note [Compute-bound kernels]: a kernel whose estimated instructions per
// element (16 per sin, times the passes of a row kernel) exceed
// compute-bound-cost (512) takes one element per thread and step: vector 1,
// unroll 1, no persistent row. 0 turns it off.
// RUN: fusion-opt %s --split-input-file --pass-pipeline='builtin.module(fusion.fusion(fusion-decompose,fusion-segment,fusion-schedule))' | FileCheck %s
// RUN: fusion-opt %s --split-input-file --pass-pipeline='builtin.module(fusion.fusion(fusion-decompose,fusion-segment,fusion-schedule{explain=1}))' -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: fusion-opt %s --split-input-file --pass-pipeline='builtin.module(fusion.fusion(fusion-decompose,fusion-segment,fusion-schedule{compute-bound-cost=0}))' | FileCheck %s --check-prefix=OFF
// RUN: fusion-opt %s --split-input-file --pass-pipeline='builtin.module(fusion.fusion(fusion-decompose,fusion-segment,fusion-schedule{compute-bound-cost=2000}))' | FileCheck %s --check-prefix=HIGH
// RUN: fusion-translate %s --fusion=over_bound --fusion-to-ptx --no-cubin --explain -o /dev/null 2>&1 | FileCheck %s --check-prefix=TRANSLATE
// RUN: fusion-translate %s --fusion=over_bound --fusion-to-ptx --no-cubin --explain --compute-bound-cost=0 -o /dev/null 2>&1 | FileCheck %s --check-prefix=TRANSLATE-OFF

// 32 sins: 512, not over the bound: the memory-bound schedule.
// REMARK-NOT: at_bound_k0: {{.*}}compute-bound
// CHECK-LABEL: @at_bound
// CHECK: kernel @at_bound_k0 schedule = #fusion.pointwise<vector = 4, unroll = 2,
// OFF-LABEL: @at_bound
// OFF: #fusion.pointwise<vector = 4, unroll = 2,
fusion.fusion @at_bound(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %s0 = fusion.sin %x : tensor<?x?xf32>
  %s1 = fusion.sin %s0 : tensor<?x?xf32>
  %s2 = fusion.sin %s1 : tensor<?x?xf32>
  %s3 = fusion.sin %s2 : tensor<?x?xf32>
  %s4 = fusion.sin %s3 : tensor<?x?xf32>
  %s5 = fusion.sin %s4 : tensor<?x?xf32>
  %s6 = fusion.sin %s5 : tensor<?x?xf32>
  %s7 = fusion.sin %s6 : tensor<?x?xf32>
  %s8 = fusion.sin %s7 : tensor<?x?xf32>
  %s9 = fusion.sin %s8 : tensor<?x?xf32>
  %s10 = fusion.sin %s9 : tensor<?x?xf32>
  %s11 = fusion.sin %s10 : tensor<?x?xf32>
  %s12 = fusion.sin %s11 : tensor<?x?xf32>
  %s13 = fusion.sin %s12 : tensor<?x?xf32>
  %s14 = fusion.sin %s13 : tensor<?x?xf32>
  %s15 = fusion.sin %s14 : tensor<?x?xf32>
  %s16 = fusion.sin %s15 : tensor<?x?xf32>
  %s17 = fusion.sin %s16 : tensor<?x?xf32>
  %s18 = fusion.sin %s17 : tensor<?x?xf32>
  %s19 = fusion.sin %s18 : tensor<?x?xf32>
  %s20 = fusion.sin %s19 : tensor<?x?xf32>
  %s21 = fusion.sin %s20 : tensor<?x?xf32>
  %s22 = fusion.sin %s21 : tensor<?x?xf32>
  %s23 = fusion.sin %s22 : tensor<?x?xf32>
  %s24 = fusion.sin %s23 : tensor<?x?xf32>
  %s25 = fusion.sin %s24 : tensor<?x?xf32>
  %s26 = fusion.sin %s25 : tensor<?x?xf32>
  %s27 = fusion.sin %s26 : tensor<?x?xf32>
  %s28 = fusion.sin %s27 : tensor<?x?xf32>
  %s29 = fusion.sin %s28 : tensor<?x?xf32>
  %s30 = fusion.sin %s29 : tensor<?x?xf32>
  %s31 = fusion.sin %s30 : tensor<?x?xf32>
  fusion.return %s31 : tensor<?x?xf32>
}

// -----

// 33 sins: 528, one element per thread and step.
// REMARK: remark: over_bound_k0: pointwise scheduler: {{.*}}; compute-bound (about 528 instructions per element, over 512): one element per thread and step; schedule #fusion.pointwise<vector = 1, unroll = 1,
// CHECK-LABEL: @over_bound
// CHECK: kernel @over_bound_k0 schedule = #fusion.pointwise<vector = 1, unroll = 1,
// OFF-LABEL: @over_bound
// OFF: #fusion.pointwise<vector = 4, unroll = 2,
// HIGH-LABEL: @over_bound
// HIGH: #fusion.pointwise<vector = 4, unroll = 2,
// TRANSLATE: remark: over_bound_k0: {{.*}}compute-bound (about 528 instructions per element
// TRANSLATE-OFF: remark: over_bound_k0: pointwise scheduler
// TRANSLATE-OFF-NOT: compute-bound
fusion.fusion @over_bound(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %s0 = fusion.sin %x : tensor<?x?xf32>
  %s1 = fusion.sin %s0 : tensor<?x?xf32>
  %s2 = fusion.sin %s1 : tensor<?x?xf32>
  %s3 = fusion.sin %s2 : tensor<?x?xf32>
  %s4 = fusion.sin %s3 : tensor<?x?xf32>
  %s5 = fusion.sin %s4 : tensor<?x?xf32>
  %s6 = fusion.sin %s5 : tensor<?x?xf32>
  %s7 = fusion.sin %s6 : tensor<?x?xf32>
  %s8 = fusion.sin %s7 : tensor<?x?xf32>
  %s9 = fusion.sin %s8 : tensor<?x?xf32>
  %s10 = fusion.sin %s9 : tensor<?x?xf32>
  %s11 = fusion.sin %s10 : tensor<?x?xf32>
  %s12 = fusion.sin %s11 : tensor<?x?xf32>
  %s13 = fusion.sin %s12 : tensor<?x?xf32>
  %s14 = fusion.sin %s13 : tensor<?x?xf32>
  %s15 = fusion.sin %s14 : tensor<?x?xf32>
  %s16 = fusion.sin %s15 : tensor<?x?xf32>
  %s17 = fusion.sin %s16 : tensor<?x?xf32>
  %s18 = fusion.sin %s17 : tensor<?x?xf32>
  %s19 = fusion.sin %s18 : tensor<?x?xf32>
  %s20 = fusion.sin %s19 : tensor<?x?xf32>
  %s21 = fusion.sin %s20 : tensor<?x?xf32>
  %s22 = fusion.sin %s21 : tensor<?x?xf32>
  %s23 = fusion.sin %s22 : tensor<?x?xf32>
  %s24 = fusion.sin %s23 : tensor<?x?xf32>
  %s25 = fusion.sin %s24 : tensor<?x?xf32>
  %s26 = fusion.sin %s25 : tensor<?x?xf32>
  %s27 = fusion.sin %s26 : tensor<?x?xf32>
  %s28 = fusion.sin %s27 : tensor<?x?xf32>
  %s29 = fusion.sin %s28 : tensor<?x?xf32>
  %s30 = fusion.sin %s29 : tensor<?x?xf32>
  %s31 = fusion.sin %s30 : tensor<?x?xf32>
  %s32 = fusion.sin %s31 : tensor<?x?xf32>
  fusion.return %s32 : tensor<?x?xf32>
}

// -----

// A row kernel pays per pass: 20 sins (320) read by two passes (a sum,
// then a sum of the centered values) is over the bound; no persistent
// variant (items 0) and scalar accesses.
// REMARK: remark: two_passes_k0: {{.*}}compute-bound (about {{[0-9]+}} instructions per element, over 512)
// CHECK-LABEL: @two_passes
// CHECK: kernel @two_passes_k0 schedule = #fusion.inner_reduction<vector = 1, items = 0,
// OFF-LABEL: @two_passes
// OFF: #fusion.inner_reduction<vector = 4, items = 8,
fusion.fusion @two_passes(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %s0 = fusion.sin %x : tensor<?x?xf32>
  %s1 = fusion.sin %s0 : tensor<?x?xf32>
  %s2 = fusion.sin %s1 : tensor<?x?xf32>
  %s3 = fusion.sin %s2 : tensor<?x?xf32>
  %s4 = fusion.sin %s3 : tensor<?x?xf32>
  %s5 = fusion.sin %s4 : tensor<?x?xf32>
  %s6 = fusion.sin %s5 : tensor<?x?xf32>
  %s7 = fusion.sin %s6 : tensor<?x?xf32>
  %s8 = fusion.sin %s7 : tensor<?x?xf32>
  %s9 = fusion.sin %s8 : tensor<?x?xf32>
  %s10 = fusion.sin %s9 : tensor<?x?xf32>
  %s11 = fusion.sin %s10 : tensor<?x?xf32>
  %s12 = fusion.sin %s11 : tensor<?x?xf32>
  %s13 = fusion.sin %s12 : tensor<?x?xf32>
  %s14 = fusion.sin %s13 : tensor<?x?xf32>
  %s15 = fusion.sin %s14 : tensor<?x?xf32>
  %s16 = fusion.sin %s15 : tensor<?x?xf32>
  %s17 = fusion.sin %s16 : tensor<?x?xf32>
  %s18 = fusion.sin %s17 : tensor<?x?xf32>
  %s19 = fusion.sin %s18 : tensor<?x?xf32>
  %m = fusion.dim %x, 0 : tensor<?x?xf32>
  %n = fusion.dim %x, 1 : tensor<?x?xf32>
  %a = fusion.sum %s19 [1] keepdim : tensor<?x?xf32> -> tensor<?x1xf32>
  %b = fusion.expand %a (%m, %n) : tensor<?x1xf32> -> tensor<?x?xf32>
  %c = fusion.sub %s19, %b : tensor<?x?xf32>
  %d = fusion.sum %c [1] keepdim : tensor<?x?xf32> -> tensor<?x1xf32>
  %e = fusion.expand %d (%m, %n) : tensor<?x1xf32> -> tensor<?x?xf32>
  %f = fusion.add %c, %e : tensor<?x?xf32>
  fusion.return %f : tensor<?x?xf32>
}

// -----

// The same 20 sins with one pass stay under the bound.
// REMARK-NOT: one_pass_k0: {{.*}}compute-bound
// CHECK-LABEL: @one_pass
// CHECK: kernel @one_pass_k0 schedule = #fusion.inner_reduction<vector = 4, items = 8,
fusion.fusion @one_pass(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %s0 = fusion.sin %x : tensor<?x?xf32>
  %s1 = fusion.sin %s0 : tensor<?x?xf32>
  %s2 = fusion.sin %s1 : tensor<?x?xf32>
  %s3 = fusion.sin %s2 : tensor<?x?xf32>
  %s4 = fusion.sin %s3 : tensor<?x?xf32>
  %s5 = fusion.sin %s4 : tensor<?x?xf32>
  %s6 = fusion.sin %s5 : tensor<?x?xf32>
  %s7 = fusion.sin %s6 : tensor<?x?xf32>
  %s8 = fusion.sin %s7 : tensor<?x?xf32>
  %s9 = fusion.sin %s8 : tensor<?x?xf32>
  %s10 = fusion.sin %s9 : tensor<?x?xf32>
  %s11 = fusion.sin %s10 : tensor<?x?xf32>
  %s12 = fusion.sin %s11 : tensor<?x?xf32>
  %s13 = fusion.sin %s12 : tensor<?x?xf32>
  %s14 = fusion.sin %s13 : tensor<?x?xf32>
  %s15 = fusion.sin %s14 : tensor<?x?xf32>
  %s16 = fusion.sin %s15 : tensor<?x?xf32>
  %s17 = fusion.sin %s16 : tensor<?x?xf32>
  %s18 = fusion.sin %s17 : tensor<?x?xf32>
  %s19 = fusion.sin %s18 : tensor<?x?xf32>
  %m = fusion.dim %x, 0 : tensor<?x?xf32>
  %n = fusion.dim %x, 1 : tensor<?x?xf32>
  %a = fusion.sum %s19 [1] keepdim : tensor<?x?xf32> -> tensor<?x1xf32>
  %b = fusion.expand %a (%m, %n) : tensor<?x1xf32> -> tensor<?x?xf32>
  %c = fusion.sub %s19, %b : tensor<?x?xf32>
  fusion.return %c : tensor<?x?xf32>
}

// -----

// An outer reduction of 40 sins: vector 1, unroll 1.
// CHECK-LABEL: @outer
// CHECK: kernel @outer_k0 schedule = #fusion.outer_reduction<vector = 1, unroll = 1,
// OFF-LABEL: @outer
// OFF: #fusion.outer_reduction<vector = 4, unroll = 4,
fusion.fusion @outer(%x: tensor<?x?xf32>) -> tensor<1x?xf32> {
  %s0 = fusion.sin %x : tensor<?x?xf32>
  %s1 = fusion.sin %s0 : tensor<?x?xf32>
  %s2 = fusion.sin %s1 : tensor<?x?xf32>
  %s3 = fusion.sin %s2 : tensor<?x?xf32>
  %s4 = fusion.sin %s3 : tensor<?x?xf32>
  %s5 = fusion.sin %s4 : tensor<?x?xf32>
  %s6 = fusion.sin %s5 : tensor<?x?xf32>
  %s7 = fusion.sin %s6 : tensor<?x?xf32>
  %s8 = fusion.sin %s7 : tensor<?x?xf32>
  %s9 = fusion.sin %s8 : tensor<?x?xf32>
  %s10 = fusion.sin %s9 : tensor<?x?xf32>
  %s11 = fusion.sin %s10 : tensor<?x?xf32>
  %s12 = fusion.sin %s11 : tensor<?x?xf32>
  %s13 = fusion.sin %s12 : tensor<?x?xf32>
  %s14 = fusion.sin %s13 : tensor<?x?xf32>
  %s15 = fusion.sin %s14 : tensor<?x?xf32>
  %s16 = fusion.sin %s15 : tensor<?x?xf32>
  %s17 = fusion.sin %s16 : tensor<?x?xf32>
  %s18 = fusion.sin %s17 : tensor<?x?xf32>
  %s19 = fusion.sin %s18 : tensor<?x?xf32>
  %s20 = fusion.sin %s19 : tensor<?x?xf32>
  %s21 = fusion.sin %s20 : tensor<?x?xf32>
  %s22 = fusion.sin %s21 : tensor<?x?xf32>
  %s23 = fusion.sin %s22 : tensor<?x?xf32>
  %s24 = fusion.sin %s23 : tensor<?x?xf32>
  %s25 = fusion.sin %s24 : tensor<?x?xf32>
  %s26 = fusion.sin %s25 : tensor<?x?xf32>
  %s27 = fusion.sin %s26 : tensor<?x?xf32>
  %s28 = fusion.sin %s27 : tensor<?x?xf32>
  %s29 = fusion.sin %s28 : tensor<?x?xf32>
  %s30 = fusion.sin %s29 : tensor<?x?xf32>
  %s31 = fusion.sin %s30 : tensor<?x?xf32>
  %s32 = fusion.sin %s31 : tensor<?x?xf32>
  %s33 = fusion.sin %s32 : tensor<?x?xf32>
  %s34 = fusion.sin %s33 : tensor<?x?xf32>
  %s35 = fusion.sin %s34 : tensor<?x?xf32>
  %s36 = fusion.sin %s35 : tensor<?x?xf32>
  %s37 = fusion.sin %s36 : tensor<?x?xf32>
  %s38 = fusion.sin %s37 : tensor<?x?xf32>
  %s39 = fusion.sin %s38 : tensor<?x?xf32>
  %a = fusion.sum %s39 [0] keepdim : tensor<?x?xf32> -> tensor<1x?xf32>
  fusion.return %a : tensor<1x?xf32>
}
