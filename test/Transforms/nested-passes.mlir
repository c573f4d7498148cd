// The passes before the lowering run on one fusion.fusion each: nested under
// fusion.fusion they give what the same passes given as flags give (where
// fusion-opt nests them itself), for every fusion of the module; anchored on
// the module they are refused.
// RUN: fusion-opt %s --pass-pipeline="builtin.module(fusion.fusion(fusion-decompose,canonicalize,cse,fusion-segment,fusion-schedule))" -o %t.nested
// RUN: fusion-opt %s --fusion-decompose --canonicalize --cse --fusion-segment --fusion-schedule -o %t.flags
// RUN: diff %t.nested %t.flags
// RUN: FileCheck %s < %t.nested
// RUN: not fusion-opt %s --pass-pipeline="builtin.module(fusion-decompose)" 2>&1 | FileCheck %s --check-prefix=ANCHOR

// CHECK-LABEL: fusion.fusion @rms
// CHECK: kernel @rms_k0 schedule = #fusion.inner_reduction
// CHECK-LABEL: fusion.fusion @add
// CHECK: kernel @add_k0 schedule = #fusion.pointwise
// ANCHOR: Can't add pass 'FusionDecompose' restricted to 'fusion.fusion' on a PassManager intended to run on 'builtin.module'

fusion.fusion @rms(%x: tensor<?x?xf32>, %w: tensor<?xf32>) -> tensor<?x?xf32> {
  %y = fusion.rms_norm %x weight(%w : tensor<?xf32>) axis = 1 eps = 1.0e-06 : tensor<?x?xf32>
  fusion.return %y : tensor<?x?xf32>
}

fusion.fusion @add(%a: tensor<?xf32>, %b: tensor<?xf32>) -> tensor<?xf32> {
  %c = fusion.add %a, %b : tensor<?xf32>
  fusion.return %c : tensor<?xf32>
}
