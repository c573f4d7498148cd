// Note [Deferred kernels] (lib/Target/Compile.cpp): with defer-kernels the
// deferred kernels' gpu.funcs are dropped before the lowering of the
// kernel-level ops and the NVVM conversion (no
// gpu.binary, no PTX) and their launches are marked fusion.deferred; the
// launch plan keeps every variant (a deferred kernel keeps the name of the
// module it was lowered into).
// RUN: fusion-opt %s --fusion-to-ptx="defer-kernels=fallbacks" | FileCheck %s --check-prefix=FALLBACKS
// FALLBACKS: launch @norm_k0_pv4_i32::@norm_k0_pv4_i32 if({{.*}}) {param_types
// FALLBACKS: launch @norm_kernels::@norm_k0_ps_i32 if({{.*}}) {fallback, fusion.deferred,
// FALLBACKS: launch @norm_k0_v4_i32::@norm_k0_v4_i32 if({{.*}}) {param_types
// FALLBACKS: launch @norm_kernels::@norm_k0_s_i32 if({{.*}}) {fallback, fusion.deferred,
// FALLBACKS: launch @norm_kernels::@norm_k0_s_i64 grid({{.*}}) {fallback, fusion.deferred,
// FALLBACKS-DAG: gpu.binary @norm_k0_pv4_i32
// FALLBACKS-DAG: gpu.binary @norm_k0_v4_i32
// FALLBACKS-NOT: gpu.binary @norm_k0_s_i
// FALLBACKS-NOT: gpu.binary @norm_k0_ps_i32

// RUN: fusion-opt %s --fusion-to-ptx="defer-kernels=all" | FileCheck %s --check-prefix=ALL
// ALL-COUNT-5: {{fallback, fusion.deferred|{fusion.deferred}}
// ALL-NOT: gpu.binary

// The builder's request: every kernel deferred but the one it builds.
// RUN: fusion-opt %s --fusion-to-ptx="defer-kernels=all build-kernels=norm_k0_s_i64" | FileCheck %s --check-prefix=BUILD
// BUILD-NOT: gpu.binary @norm_k0_{{[pv]}}
// BUILD: gpu.binary @norm_kernels {{.*}}.entry norm_k0_s_i64(
// BUILD-NOT: gpu.binary

// The other kernels are dropped before anything is spent on them, the
// lowering of their kernel-level ops included: right after the deferral
// the built kernel is the only gpu.func and still holds its
// fusion.block_reduce.
// RUN: fusion-opt %s --fusion-to-ptx="defer-kernels=all build-kernels=norm_k0_s_i64" --mlir-print-ir-after=fusion-defer-kernels -o /dev/null 2>&1 | FileCheck %s --check-prefix=ORDER
// ORDER: IR Dump After {{.*}}(fusion-defer-kernels)
// ORDER-NOT: gpu.func
// ORDER: gpu.func @norm_k0_s_i64(
// ORDER-NOT: gpu.func
// ORDER: fusion.block_reduce
// ORDER-NOT: gpu.func

// A bad mode is refused by the option's parser; deferral needs split
// kernels.
// RUN: not fusion-opt %s --fusion-to-ptx="defer-kernels=some" 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: Cannot find option named 'some'
// RUN: not fusion-opt %s --fusion-to-ptx="defer-kernels=all split-kernels=false" 2>&1 | FileCheck %s --check-prefix=SPLIT
// SPLIT: error: deferred kernels need one kernel per gpu.module (split-kernels=true)

// fusion-translate: module files only.
// RUN: not fusion-translate %s --fusion-to-ptx --defer-kernels=all 2>&1 | FileCheck %s --check-prefix=TRANSLATE
// TRANSLATE: fusion-translate: --defer-kernels needs --fusion-to-module

fusion.fusion @norm(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %0 = fusion.softmax %x dim = 1 : tensor<?x?xf32>
  fusion.return %0 : tensor<?x?xf32>
}
