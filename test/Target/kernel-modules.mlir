// Every variant of a kernel is a gpu.module of its own, so a gpu.binary with
// only its own entry (its own PTX and cubin in the module file); launches
// refer to module::func.
// RUN: fusion-translate %s --fusion-to-lowered-ir --no-cubin | FileCheck %s
// CHECK-DAG: launch @norm_k0_pv4_i32::@norm_k0_pv4_i32 if(
// CHECK-DAG: launch @norm_k0_s_i64::@norm_k0_s_i64 grid(
// CHECK-DAG: gpu.binary @norm_k0_pv4_i32 {{.*}}.entry norm_k0_pv4_i32(
// CHECK-DAG: gpu.binary @norm_k0_ps_i32 {{.*}}.entry norm_k0_ps_i32(
// CHECK-DAG: gpu.binary @norm_k0_v4_i32 {{.*}}.entry norm_k0_v4_i32(
// CHECK-DAG: gpu.binary @norm_k0_s_i32 {{.*}}.entry norm_k0_s_i32(
// CHECK-DAG: gpu.binary @norm_k0_s_i64 {{.*}}.entry norm_k0_s_i64(
// CHECK-NOT: gpu.module

// With split-kernels=false all variants share one module (one PTX).
// RUN: fusion-opt %s --fusion-to-ptx=split-kernels=false | FileCheck %s --check-prefix=ONE
// ONE: launch @norm_kernels::@norm_k0_pv4_i32 if(
// ONE-COUNT-1: gpu.binary
// ONE-NOT: gpu.binary

// --fusion-to-ptx still writes one PTX file with every entry.
// RUN: fusion-translate %s --fusion-to-ptx --no-cubin -o %t.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// PTX-COUNT-1: .version
// PTX-COUNT-5: .entry norm_k0_

// The kernel modules compile in parallel (and ptxas runs concurrently); the
// module file is the same byte for byte, run to run and single-threaded.
// RUN: fusion-translate %s --fusion-to-module -o %t.a
// RUN: fusion-translate %s --fusion-to-module -o %t.b
// RUN: fusion-translate %s --fusion-to-module --mlir-disable-threading -o %t.c
// RUN: cmp %t.a %t.b
// RUN: cmp %t.a %t.c
// RUN: fusion-translate %s --fusion-to-lowered-ir --no-cubin -o %t.ir1
// RUN: fusion-translate %s --fusion-to-lowered-ir --no-cubin -o %t.ir2
// RUN: cmp %t.ir1 %t.ir2

// --mlir-timing breaks the compile time down (passes, ptxas).
// RUN: fusion-translate %s --fusion-to-module --mlir-timing -o /dev/null 2>&1 | FileCheck %s --check-prefix=TIME
// TIME: Execution time report
// TIME-DAG: FusionLowerKernels
// TIME-DAG: SerializeKernelModulePass
// TIME-DAG: launch plan

fusion.fusion @norm(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %0 = fusion.softmax %x dim = 1 : tensor<?x?xf32>
  fusion.return %0 : tensor<?x?xf32>
}
