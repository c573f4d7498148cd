//===- Passes.td - fusion passes ---------------------------*- tablegen -*-===//
// The passes of the fusion pipeline, in pipeline order.
//===----------------------------------------------------------------------===//
#ifndef FUSION_TRANSFORMS_PASSES_TD
#define FUSION_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def FusionDecompose : Pass<"fusion-decompose", "ModuleOp"> {
  let summary = "Decompose composite ops into primitives";
  let description = [{
    Rewrites softmax, log_softmax, layer_norm, rms_norm, gelu and silu into
    reductions, broadcasts and element-wise ops, so schedulers see one
    vocabulary. 16-bit float inputs are computed in f32 and cast back.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

#endif // FUSION_TRANSFORMS_PASSES_TD
