//===- FusionDialect.cpp - the fusion dialect -----------------------------===//
// Registers the ops and attributes of the fusion dialect.
//===----------------------------------------------------------------------===//

#include "fusion/Dialect/Fusion/IR/FusionOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::fusion;

#include "fusion/Dialect/Fusion/IR/FusionDialect.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "fusion/Dialect/Fusion/IR/FusionAttrs.cpp.inc"

void FusionDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "fusion/Dialect/Fusion/IR/FusionOps.cpp.inc"
      >();
  registerAttributes();
}

void FusionDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "fusion/Dialect/Fusion/IR/FusionAttrs.cpp.inc"
      >();
}
