//===- Schedulers.cpp - which scheduler takes a kernel --------------------===//

#include "fusion/Transforms/Schedulers.h"

using namespace mlir;
using namespace mlir::fusion;

/// A pointwise kernel iterates over the shape of its results, so they must
/// share it (symbolic extents are checked at run time by the lowering).
static LogicalResult checkPointwiseResults(KernelOp kernel, std::string &why,
                                           Operation *&culprit) {
  Block &body = kernel.getBody().front();
  ValueRange results = body.getTerminator()->getOperands();
  if (results.empty())
    return success();
  auto first = cast<RankedTensorType>(results[0].getType());
  for (Value result : results.drop_front()) {
    auto type = cast<RankedTensorType>(result.getType());
    bool same = type.getRank() == first.getRank();
    for (int64_t d = 0; same && d < type.getRank(); ++d)
      same = type.isDynamicDim(d) || first.isDynamicDim(d) ||
             type.getDimSize(d) == first.getDimSize(d);
    if (!same) {
      culprit = result.getDefiningOp();
      why = "is a result of another shape than the kernel's first result "
            "(a pointwise kernel writes one shape)";
      return failure();
    }
  }
  return success();
}

FailureOr<SchedulerChoice> mlir::fusion::chooseScheduler(KernelOp kernel,
                                                         std::string &why,
                                                         Operation *&culprit) {
  culprit = nullptr;
  bool hasReduction = false;
  kernel.getBody().walk([&](Operation *op) {
    hasReduction |=
        isa<SumOp, ProdOp, MaxOp, MinOp, VarMeanOp, ArgmaxOp, ArgminOp>(op);
  });
  if (!hasReduction) {
    Operation *unsupported = nullptr;
    kernel.getBody().walk([&](Operation *op) {
      if (!unsupported && !isPointwiseKernelOp(op))
        unsupported = op;
    });
    if (unsupported) {
      culprit = unsupported;
      why = "it is neither element-wise nor a reduction";
      return failure();
    }
    if (failed(checkPointwiseResults(kernel, why, culprit)))
      return failure();
    return SchedulerChoice{SchedulerKind::Pointwise, std::nullopt,
                           std::nullopt};
  }

  FailureOr<RowKernelInfo> row = analyzeRowKernel(kernel, why, culprit);
  if (succeeded(row))
    return SchedulerChoice{SchedulerKind::InnerReduction, std::move(*row),
                           std::nullopt};
  std::string outerWhy;
  Operation *outerCulprit = nullptr;
  FailureOr<OuterKernelInfo> outer =
      analyzeOuterKernel(kernel, outerWhy, outerCulprit);
  if (succeeded(outer)) {
    culprit = nullptr;
    why.clear();
    return SchedulerChoice{SchedulerKind::OuterReduction, std::nullopt,
                           std::move(*outer)};
  }
  // The inner analysis speaks for kernels that reduce the innermost dim,
  // the outer one for the others.
  if (why.find("other dims than the innermost") != std::string::npos) {
    why = outerWhy;
    culprit = outerCulprit;
  }
  return failure();
}
