//===- RowKernel.h - kernels that reduce the innermost dim ------*- C++ -*-===//
// The shape of a kernel the inner-reduction scheduler handles: reductions
// over the innermost dim of one iteration domain, element-wise work before
// them, and element-wise work after them that reads the row again
// (normalization epilogues). Shared by the scheduler and the lowering.
//===----------------------------------------------------------------------===//
#ifndef FUSION_TRANSFORMS_ROWKERNEL_H
#define FUSION_TRANSFORMS_ROWKERNEL_H

#include "fusion/Dialect/Fusion/IR/FusionOps.h"

#include <string>

namespace mlir::fusion {

/// One reduction of a row kernel and the pass over the row that computes
/// it. A var_mean takes one pass (Welford: count, mean and centered sum of
/// squares, merged with Chan's formula). A sum of exp(x - max(x)) whose max
/// is another reduction of the kernel is computed online with that max, in
/// its pass (`onlineSum` on the max, `onlineMax` on the sum).
struct RowReduction {
  Operation *op;
  int64_t pass;
  Operation *onlineSum = nullptr;
  Operation *onlineMax = nullptr;
};

struct RowKernelInfo {
  /// The iteration domain: the type of the reduced tensors.
  RankedTensorType domain;
  /// A value of the domain type inside the kernel (a reduction's operand).
  Value domainValue;
  /// Reductions in the order they are computed.
  SmallVector<RowReduction> reductions;
  /// Per kernel result: true when it has the domain's shape (written per
  /// element), false when it has one value per row.
  SmallVector<bool> fullResult;
  /// Passes over the row before the epilogue.
  int64_t numPasses = 0;
  /// Whether any result is written per element (an epilogue exists).
  bool hasFullResult() const { return llvm::is_contained(fullResult, true); }
};

/// A kernel that reduces leading dims (an outer reduction): every reduction
/// is a sum/prod/max/min over dims 0 .. numReduced-1 of one domain, none
/// depends on another, and every result has one value per kept position.
struct OuterKernelInfo {
  RankedTensorType domain;
  Value domainValue;
  int64_t numReduced = 0;
  SmallVector<Operation *> reductions;
};

/// Analyzes `kernel` as an outer reduction; `why`/`culprit` as below.
FailureOr<OuterKernelInfo> analyzeOuterKernel(KernelOp kernel, std::string &why,
                                              Operation *&culprit);

/// Analyzes `kernel`; on failure `why` says what does not fit (the op at
/// fault is `culprit`, when there is one).
FailureOr<RowKernelInfo> analyzeRowKernel(KernelOp kernel, std::string &why,
                                          Operation *&culprit);

/// Whether `op` is element-wise or index-mapping work the kernel emitters
/// handle per element.
bool isPointwiseKernelOp(Operation *op);

/// Ops that read their operands at other indices than their result's
/// (slice, pad, cat, index_select, gather, reshape) or compute values from
/// the index (iota, rand, randn): the pointwise scheduler takes them (Note
/// [Index contexts] in lib/Conversion/FusionToGPU/Indexing.cpp), the
/// reduction schedulers do not yet.
bool isIndexKernelOp(Operation *op);

/// A value of `kernel`'s body seen from outside it: a block argument of the
/// body is the kernel's input; other values are themselves (for reifyDim).
Value kernelInputOutside(KernelOp kernel, Value value);

/// A value of `kernel`'s body as the host has it (the `mapValue` of reifyDim
/// for host expressions): a block argument of the body is the kernel's
/// input; a value computed inside the kernel has none (null, so reifyDim
/// walks through its producers); other values are themselves (they may
/// live in a block of no op: a caller's scratch block of host expressions).
Value kernelValueOnHost(KernelOp kernel, Value value);

} // namespace mlir::fusion

#endif
