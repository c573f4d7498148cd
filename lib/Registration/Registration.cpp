//===- Registration.cpp - dialects and passes of the compiler -------------===//
// Registers the fusion dialect and passes plus the upstream pieces used by
// the pipeline down to PTX.
//===----------------------------------------------------------------------===//

#include "fusion/Registration.h"

#include "fusion/Dialect/Fusion/IR/FusionOps.h"
#include "fusion/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/Passes.h"

void mlir::fusion::registerAllDialects(DialectRegistry &registry) {
  registry.insert<FusionDialect, arith::ArithDialect, func::FuncDialect,
                  math::MathDialect, tensor::TensorDialect>();
}

void mlir::fusion::registerAllPasses() {
  registerFusionPasses();
  registerCanonicalizerPass();
  registerCSEPass();
}
