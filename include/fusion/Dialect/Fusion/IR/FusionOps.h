//===- FusionOps.h - fusion dialect ops -------------------------*- C++ -*-===//
// Op and attribute classes of the fusion dialect, and the element-wise trait.
//===----------------------------------------------------------------------===//
#ifndef FUSION_DIALECT_FUSION_IR_FUSIONOPS_H
#define FUSION_DIALECT_FUSION_IR_FUSIONOPS_H

#include "fusion/Dialect/Fusion/IR/FusionDialect.h"
#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/RegionKindInterface.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir::fusion {

/// The type with `type`'s shape (if a tensor) and element type i1.
Type getI1Like(Type type);

/// Verifies that all operands and results of an element-wise op are tensors
/// of one shape, or all scalars. Static dims must agree; a dynamic dim agrees
/// with anything (the runtime checks it).
LogicalResult verifyElementwiseShapes(Operation *op);

template <typename ConcreteType>
class FusionElementwise
    : public OpTrait::TraitBase<ConcreteType, FusionElementwise> {
public:
  static LogicalResult verifyTrait(Operation *op) {
    return verifyElementwiseShapes(op);
  }
};

} // namespace mlir::fusion

#define GET_ATTRDEF_CLASSES
#include "fusion/Dialect/Fusion/IR/FusionAttrs.h.inc"

#define GET_OP_CLASSES
#include "fusion/Dialect/Fusion/IR/FusionOps.h.inc"

#endif
