//===- Schedulers.cpp - which scheduler takes a kernel --------------------===//

#include "fusion/Dialect/Fusion/Transforms/Schedulers.h"
#include "fusion/Dialect/Fusion/Transforms/ShapeReification.h"

using namespace mlir;
using namespace mlir::fusion;

/// Whether two host sizes are the same dim of the same value (or the same
/// value): 1 same, 0 different dims of one value, -1 unknown.
static int sameHostSize(Value a, Value b) {
  if (a == b)
    return 1;
  auto da = a.getDefiningOp<DimOp>(), db = b.getDefiningOp<DimOp>();
  if (da && db && da.getInput() == db.getInput())
    return da.getDim() == db.getDim() ? 1 : 0;
  return -1;
}

/// Note [Reduced domains agree]: a reduction kernel iterates over one domain;
/// symbolic extents of several reductions are checked equal at run time. A
/// reduction whose dim is another dim of the same tensor than the first
/// reduction's (a sum over a permuted view beside one over the tensor
/// itself) would fail that check on any non-square input: such kernels are
/// rejected, so segmentation puts the reductions in separate kernels.
static LogicalResult reducedDomainsAgree(KernelOp kernel,
                                         ArrayRef<Operation *> reductions,
                                         std::string &why,
                                         Operation *&culprit) {
  if (reductions.size() < 2)
    return success();
  auto toOutside = [&](Value v) { return kernelInputOutside(kernel, v); };
  // Host expressions, built only to be compared, in a scratch block and
  // erased below. (Built before the kernel they leaked when the kernel is
  // the segmenter's detached trial: a builder with no block inserts nothing,
  // so the listener never saw them. Found by fusion-fuzz-compile's leak
  // check.)
  struct Collector : OpBuilder::Listener {
    SmallVector<Operation *> created;
    void notifyOperationInserted(Operation *op,
                                 OpBuilder::InsertPoint) override {
      created.push_back(op);
    }
  } collector;
  Block scratch;
  OpBuilder builder(kernel.getContext(), &collector);
  builder.setInsertionPointToStart(&scratch);
  Location loc = kernel.getLoc();
  Value first = reductions.front()->getOperand(0);
  int64_t rank = cast<RankedTensorType>(first.getType()).getRank();
  LogicalResult result = success();
  for (int64_t d = 0; d < rank && succeeded(result); ++d) {
    FailureOr<Value> a = reifyDim(builder, loc, first, d, toOutside);
    if (failed(a))
      continue;
    for (Operation *op : reductions.drop_front()) {
      Value operand = op->getOperand(0);
      if (cast<RankedTensorType>(operand.getType()).getRank() != rank)
        continue;
      FailureOr<Value> b = reifyDim(builder, loc, operand, d, toOutside);
      if (succeeded(b) && sameHostSize(*a, *b) == 0) {
        culprit = op;
        why = "reduces a tensor whose dim " + std::to_string(d) +
              " is another dim of the same input than the kernel's first "
              "reduction's";
        result = failure();
        break;
      }
    }
  }
  for (Operation *op : llvm::reverse(collector.created))
    op->erase();
  return result;
}

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
      if (!unsupported && !isPointwiseKernelOp(op) && !isIndexKernelOp(op))
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
  if (succeeded(row)) {
    SmallVector<Operation *> ops;
    for (const RowReduction &r : row->reductions)
      ops.push_back(r.op);
    if (failed(reducedDomainsAgree(kernel, ops, why, culprit)))
      return failure();
    return SchedulerChoice{SchedulerKind::InnerReduction, std::move(*row),
                           std::nullopt};
  }
  std::string outerWhy;
  Operation *outerCulprit = nullptr;
  FailureOr<OuterKernelInfo> outer =
      analyzeOuterKernel(kernel, outerWhy, outerCulprit);
  if (succeeded(outer)) {
    culprit = nullptr;
    why.clear();
    if (failed(reducedDomainsAgree(kernel, outer->reductions, why, culprit)))
      return failure();
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
