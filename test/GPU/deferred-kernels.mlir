// REQUIRES: cuda
// Deferred kernels (Note [Deferred kernels] in lib/Target/Compile.cpp) on
// the GPU, against the reference interpreter: fusion-run compiles with the
// kernels deferred and is the process's kernel builder, so a launch builds
// the kernel it takes (a note on stderr says which) and runs it; aligned
// rows, ragged rows, misaligned inputs (the scalar variant), several
// kernels with an intermediate, a module file with deferred kernels, and
// the compile cache keeping what was built.

// RUN: rm -rf %t.cache
// RUN: env FUSION_CACHE=1 FUSION_CACHE_DIR=%t.cache fusion-run %S/normalization.mlir --fusion=softmax_bf16 --verbose --defer-kernels=all --input=1000x512 2>&1 | FileCheck %s --check-prefix=ALIGNED
// ALIGNED: built deferred kernel softmax_bf16_k0_pv8_i32
// ALIGNED-NOT: built deferred kernel
// ALIGNED: PASS softmax_bf16 1000x512xbf16 {{.*}}variant=softmax_bf16_k0_pv8_i32
// The cache has that kernel now: another process builds nothing for it.
// (lit turns the cache off, test/lit.cfg.py; these two runs turn it on.)
// RUN: env FUSION_CACHE=1 FUSION_CACHE_DIR=%t.cache fusion-run %S/normalization.mlir --fusion=softmax_bf16 --verbose --defer-kernels=all --input=1000x512 2>&1 | FileCheck %s --check-prefix=CACHED
// CACHED: compiled @softmax_bf16 in {{.*}} (a compile cache hit)
// CACHED-NOT: built deferred kernel
// CACHED: PASS softmax_bf16 1000x512xbf16 {{.*}}variant=softmax_bf16_k0_pv8_i32

// RUN: fusion-run %S/normalization.mlir --fusion=softmax_bf16 --verbose --defer-kernels=fallbacks --no-cache --input=64x50257 2>&1 | FileCheck %s --check-prefix=RAGGED
// RAGGED: built deferred kernel softmax_bf16_k0_rv8_i32
// RAGGED: PASS softmax_bf16 64x50257xbf16 {{.*}}variant=softmax_bf16_k0_rv8_i32
// RUN: fusion-run %S/normalization.mlir --fusion=layernorm_bf16 --verbose --defer-kernels=all --no-cache --input=1000x1000 --input=1000 --input=1000 --misalign 2>&1 | FileCheck %s --check-prefix=MISALIGNED
// MISALIGNED: built deferred kernel layernorm_bf16_k0_
// MISALIGNED: PASS layernorm_bf16

// Two kernels through an intermediate: each built at the first launch.
// RUN: fusion-run %S/segmentation.mlir --fusion=outer_center_f32 --verbose --defer-kernels=all --no-cache --atol=1e-4 --input=1000x1000 --input=1000 2>&1 | FileCheck %s --check-prefix=TWO
// TWO-COUNT-2: built deferred kernel outer_center_f32_k
// TWO: PASS outer_center_f32

// A module file with every kernel deferred, run by fusion-run.
// RUN: fusion-translate %S/normalization.mlir --fusion=rmsnorm_bf16 --fusion-to-module --defer-kernels=all --no-cache -o %t.fusionmod
// RUN: fusion-run %t.fusionmod --verbose --no-cache --input=4096x4096 --input=4096 2>&1 | FileCheck %s --check-prefix=FILE
// FILE: built deferred kernel rmsnorm_bf16_k0_
// FILE: PASS rmsnorm_bf16 4096x4096xbf16
