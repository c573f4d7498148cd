// Cross-entropy forward is one inner-reduction kernel (Note [Index ops in
// row kernels]): each fusion of test/GPU/cross-entropy.mlir (run there
// against the interpreter on a GPU) is one kernel, vectorized by the
// logits' width (the i64 targets, read once per row, do not narrow it);
// the gathered logit is read once per row as a scalar, after the row's
// reductions.
// RUN: fusion-opt %S/../GPU/cross-entropy.mlir --fusion-decompose --fusion-segment --fusion-schedule | FileCheck %s
// RUN: fusion-translate %S/../GPU/cross-entropy.mlir --fusion=ce_bf16 --fusion-to-ptx --no-cubin -o %t.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// RUN: %if ptxas %{ ptxas -arch=sm_90a %t.ptx -o %t.cubin %}
// RUN: fusion-translate %S/../GPU/cross-entropy.mlir --fusion=ce_lse --fusion-to-module --no-cubin -o %t.fmod

// CHECK-LABEL: fusion.fusion @ce_bf16
// CHECK: kernel @ce_bf16_k0 schedule = #fusion.inner_reduction<vector = 8,
// CHECK: gather
// CHECK-NOT: kernel @
// CHECK-LABEL: fusion.fusion @ce_f32
// CHECK: kernel @ce_f32_k0 schedule = #fusion.inner_reduction<vector = 4,
// CHECK-NOT: kernel @
// CHECK-LABEL: fusion.fusion @ce_f16
// CHECK: kernel @ce_f16_k0 schedule = #fusion.inner_reduction<vector = 8,
// CHECK-NOT: kernel @
// CHECK-LABEL: fusion.fusion @ce_f64
// CHECK: kernel @ce_f64_k0 schedule = #fusion.inner_reduction<vector = 2,
// CHECK-NOT: kernel @
// CHECK-LABEL: fusion.fusion @ce_rank1_target
// CHECK: kernel @ce_rank1_target_k0 schedule = #fusion.inner_reduction<vector = 8,
// CHECK-NOT: kernel @
// CHECK-LABEL: fusion.fusion @ce_lse
// CHECK: kernel @ce_lse_k0 schedule = #fusion.inner_reduction<vector = 8,
// CHECK-NOT: kernel @
// CHECK-LABEL: fusion.fusion @max_and_value_at_argmax
// CHECK: kernel @max_and_value_at_argmax_k0 schedule = #fusion.inner_reduction<vector = 4,
// CHECK-NOT: kernel @

// The split, vectorized, ragged, column-major (Note [Column-major rows])
// and scalar variants; in the vectorized one
// the row is read 16 bytes at a time and the gathered logit with one 16-bit
// load per row; the ragged one (odd vocabulary sizes, Note [Ragged rows])
// reads its whole vectors so too and the head and tail vectors lane by
// lane.
// PTX-LABEL: .visible .entry ce_bf16_k0_gv8_i32(
// PTX-LABEL: .visible .entry ce_bf16_k0_gs_i32(
// PTX-LABEL: .visible .entry ce_bf16_k0_v8_i32(
// PTX-COUNT-4: ld.global.v4.b32
// PTX-NOT: .entry
// PTX: ld.global.b16
// PTX-NOT: ld.global
// PTX-LABEL: .visible .entry ce_bf16_k0_rv8_i32(
// PTX-COUNT-8: ld.global.v4.b32
// PTX-NOT: .entry
// PTX-COUNT-9: ld.global.b16
// PTX-NOT: ld.global
// PTX-LABEL: .visible .entry ce_bf16_k0_cs_i32(
// PTX-LABEL: .visible .entry ce_bf16_k0_s_i32(
// PTX-LABEL: .visible .entry ce_bf16_k0_s_i64(
