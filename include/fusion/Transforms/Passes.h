//===- Passes.h - fusion passes ---------------------------------*- C++ -*-===//
// Declarations and registration of the fusion pipeline's passes.
//===----------------------------------------------------------------------===//
#ifndef FUSION_TRANSFORMS_PASSES_H
#define FUSION_TRANSFORMS_PASSES_H

#include "fusion/Dialect/Fusion/IR/FusionOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::fusion {

#define GEN_PASS_DECL
#include "fusion/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "fusion/Transforms/Passes.h.inc"

} // namespace mlir::fusion

#endif
