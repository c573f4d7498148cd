// fusion-run takes the compile options of fusion-translate (one list of
// flags, tools/common/CompileFlags.h) for its in-process compile: the launch
// plan it prints (--verbose, before the device is needed) follows them.
// FUSION_RUN_LIBCUDA points at a driver that does not exist, so this runs
// without a GPU.

// Rows of 8192 bf16: 4 vectors of 8 per thread (the heuristic) hold them in
// the first persistent variant; with 2 they take the long one.
// RUN: env FUSION_RUN_LIBCUDA=%t.missing/libcuda.so.1 not fusion-run %s --no-cubin --verbose --input=64x8192 2>&1 | FileCheck %s --check-prefix=DEFAULT
// DEFAULT: launch 0: softmax_k0_pv8_i32
// RUN: env FUSION_RUN_LIBCUDA=%t.missing/libcuda.so.1 not fusion-run %s --no-cubin --verbose --inner-items=2 --input=64x8192 2>&1 | FileCheck %s --check-prefix=ITEMS2
// ITEMS2: launch 0: softmax_k0_plv8_i32
// No persistent variant at all: the rows stream.
// RUN: env FUSION_RUN_LIBCUDA=%t.missing/libcuda.so.1 not fusion-run %s --no-cubin --verbose --inner-items=0 --input=64x8192 2>&1 | FileCheck %s --check-prefix=ITEMS0
// ITEMS0: launch 0: softmax_k0_v8_i32
// A value the scheduler cannot take is a compile error, not a launch.
// RUN: env FUSION_RUN_LIBCUDA=%t.missing/libcuda.so.1 not fusion-run %s --no-cubin --transpose-tile=48 --input=64x8192 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: transpose-tile
// A module file brings its kernels: compile options are ignored, with a
// warning that names them.
// RUN: fusion-translate %s --fusion-to-module --no-cubin -o %t.fusionmod
// RUN: env FUSION_RUN_LIBCUDA=%t.missing/libcuda.so.1 not fusion-run %t.fusionmod --inner-items=2 --no-cubin --input=64x8192 2>&1 | FileCheck %s --check-prefix=MODULE
// MODULE: fusion-run: warning: --inner-items, --no-cubin ignored: {{.*}}.fusionmod is a module file (compile options apply to a definition)

// fusion-run's own numbers are checked before anything runs (a median of
// zero timed runs, a negative copy size).
// RUN: env FUSION_RUN_LIBCUDA=%t.missing/libcuda.so.1 not fusion-run %s --no-cubin --bench --iters=0 --input=64x8192 2>&1 | FileCheck %s --check-prefix=ITERS
// ITERS: fusion-run: --iters must be at least 1, got 0
// RUN: env FUSION_RUN_LIBCUDA=%t.missing/libcuda.so.1 not fusion-run %s --no-cubin --bench --copy-mib=-3 --input=64x8192 2>&1 | FileCheck %s --check-prefix=COPY
// COPY: fusion-run: --copy-mib must be at least 1, got -3
// RUN: env FUSION_RUN_LIBCUDA=%t.missing/libcuda.so.1 not fusion-run %s --no-cubin --atol=-2 --input=64x8192 2>&1 | FileCheck %s --check-prefix=ATOL
// ATOL: fusion-run: --atol must be a tolerance of 0 or more (or -1: by dtype), got -2

fusion.fusion @softmax(%x: tensor<?x?xbf16>) -> tensor<?x?xbf16> {
  %0 = fusion.softmax %x dim = 1 : tensor<?x?xbf16>
  fusion.return %0 : tensor<?x?xbf16>
}
