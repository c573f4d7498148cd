// Index ops (slice, pad, cat, index_select, gather, reshape of computed
// values, iota, rand, randn) go into pointwise kernels with the element-wise
// work around them: each fusion of test/GPU/index-ops.mlir (run there
// against the interpreter on a GPU) is one kernel, vectorized unless its
// lanes would read irregularly (Note [Index contexts]), and compiles to a
// module file.
// RUN: fusion-opt %S/../GPU/index-ops.mlir --fusion-decompose --fusion-segment --fusion-schedule | FileCheck %s
// RUN: fusion-translate %S/../GPU/index-ops.mlir --fusion=rope --fusion-to-module --no-cubin -o %t.rope
// RUN: fusion-translate %S/../GPU/index-ops.mlir --fusion=dropout --fusion-to-module --no-cubin -o %t.dropout
// RUN: fusion-translate %S/../GPU/index-ops.mlir --fusion=embedding --fusion-to-module --no-cubin -o %t.embedding
// RUN: fusion-translate %S/../GPU/index-ops.mlir --fusion=slice_cat_mul --fusion-to-ptx | FileCheck %s --check-prefix=PTX
// RUN: fusion-translate %S/../GPU/index-ops.mlir --fusion=dropout --fusion-to-ptx | FileCheck %s --check-prefix=DROP
// RUN: fusion-opt %S/../GPU/index-ops.mlir --fusion-decompose --fusion-segment --fusion-schedule --fusion-lower-kernels | FileCheck %s --check-prefix=WHOLE

// CHECK-LABEL: fusion.fusion @rope
// CHECK: kernel @rope_k0 schedule = #fusion.pointwise<vector = 8,
// CHECK-NOT: kernel @
// CHECK-LABEL: fusion.fusion @slice_cat_mul
// CHECK: kernel @slice_cat_mul_k0 schedule = #fusion.pointwise<vector = 4,
// CHECK-NOT: kernel @
// CHECK-LABEL: fusion.fusion @halves_mul
// CHECK: kernel @halves_mul_k0 schedule = #fusion.pointwise<vector = 8, unroll = 1,
// CHECK-NOT: kernel @
// CHECK-LABEL: fusion.fusion @strided_slice
// CHECK: kernel @strided_slice_k0 schedule = #fusion.pointwise<vector = 8,
// CHECK-LABEL: fusion.fusion @pad
// CHECK: kernel @pad_k0 schedule = #fusion.pointwise<vector = 4,
// CHECK-LABEL: fusion.fusion @cat_rows
// CHECK: kernel @cat_rows_k0 schedule = #fusion.pointwise<vector = 8,
// The index tensor does not narrow the vector of the rows it picks.
// CHECK-LABEL: fusion.fusion @embedding
// CHECK: kernel @embedding_k0 schedule = #fusion.pointwise<vector = 8,
// Gathers are scalar.
// CHECK-LABEL: fusion.fusion @target_logit
// CHECK: kernel @target_logit_k0 schedule = #fusion.pointwise<vector = 1,
// CHECK-LABEL: fusion.fusion @reshape_add
// CHECK: kernel @reshape_add_k0 schedule = #fusion.pointwise<vector = 4,
// A reshape that changes the innermost extent is scalar.
// CHECK-LABEL: fusion.fusion @reshape_merge
// CHECK: kernel @reshape_merge_k0 schedule = #fusion.pointwise<vector = 1,
// CHECK-LABEL: fusion.fusion @iota_add
// CHECK: kernel @iota_add_k0 schedule = #fusion.pointwise<vector = 4,
// CHECK-LABEL: fusion.fusion @dropout
// CHECK: kernel @dropout_k0 schedule = #fusion.pointwise<vector = 8,
// CHECK-NOT: kernel @
// CHECK-LABEL: fusion.fusion @rand_f32

// The cat's pieces read through lane masks: masked loads become predicated
// scalar loads; the scalar variants guard each load.
// PTX: .entry slice_cat_mul_k0_v4_i32
// PTX: .entry slice_cat_mul_k0_s_i32
// PTX: .entry slice_cat_mul_k0_s_i64

// Note [Random thresholds] (include/fusion/Support/RandomThreshold.h): the
// mask u >= 0.25 is a test of the Philox word (word >= 2^30) in every
// variant; no word is converted to float.
// DROP-LABEL: .entry dropout_k0_v8_i32
// DROP-NOT: cvt.rn.f32.u32
// DROP: setp.gt.u32 {{.*}}, 1073741823;
// DROP-NOT: cvt.rn.f32.u32
// DROP-LABEL: .entry dropout_k0_s_i32
// DROP-NOT: cvt.rn.f32.u32
// DROP: setp.gt.u32 {{.*}}, 1073741823;
// DROP-NOT: cvt.rn.f32.u32

// Note [Whole vectors of shifted lanes]
// (lib/Conversion/FusionToGPU/Elementwise.cpp): each piece of the cut at
// n/2 loads whole aligned vectors where its lanes all lie in the piece and
// the element offset is a multiple of 8, nothing where none does, and lane
// by lane only across the cut. The compares use the first and last lanes,
// never a reduction of the mask.
// WHOLE-LABEL: gpu.func @halves_mul_k0_v8_i32
// WHOLE-NOT: vector.reduction
// WHOLE: scf.if
// WHOLE-NEXT: arith.index_cast
// WHOLE-NEXT: vector.load %arg0[{{.*}}] {alignment = 16 : i64} : memref<?xbf16>, vector<8xbf16>
// WHOLE: scf.if
// WHOLE: vector.maskedload %arg0
// WHOLE-NOT: vector.reduction
// WHOLE: vector.load %arg5[{{.*}}] {alignment = 16 : i64} : memref<?xbf16>, vector<8xbf16>
// WHOLE: vector.maskedload %arg5[{{.*}}], {{.*}} {alignment = 2 : i64}
// WHOLE-LABEL: gpu.func @halves_mul_k0_s_i32

// The pad's mask (lanes >= 0 and below the operand's extent) too.
// WHOLE-LABEL: gpu.func @pad_k0_v4_i32
// WHOLE-NOT: vector.reduction
// WHOLE: vector.load %arg0[{{.*}}] {alignment = 16 : i64} : memref<?xf32>, vector<4xf32>
// WHOLE-NOT: vector.reduction
// WHOLE: vector.maskedload %arg0[{{.*}}], {{.*}} {alignment = 4 : i64}
// WHOLE-NOT: vector.reduction
// WHOLE-LABEL: gpu.func @pad_k0_s_i32
