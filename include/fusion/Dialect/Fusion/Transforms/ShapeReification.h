//===- ShapeReification.h - result sizes as host values ---------*- C++ -*-===//
// Expresses the extent of a tensor dim as an index value computed from the
// fusion's inputs, so kernels' output sizes can be evaluated on the host.
//===----------------------------------------------------------------------===//
#ifndef FUSION_TRANSFORMS_SHAPEREIFICATION_H
#define FUSION_TRANSFORMS_SHAPEREIFICATION_H

#include "mlir/IR/Builders.h"

namespace mlir::fusion {

/// Returns an index value equal to the size of `tensor` along `dim`, built
/// at the builder's insertion point from constants, `fusion.dim` of values
/// that are block arguments, and existing size operands. `mapValue` maps a
/// value found while walking up (e.g. a kernel's block argument) to the value
/// usable at the insertion point; it returns null when there is none.
FailureOr<Value> reifyDim(OpBuilder &builder, Location loc, Value tensor,
                          int64_t dim,
                          function_ref<Value(Value)> mapValue = nullptr);

} // namespace mlir::fusion

#endif
