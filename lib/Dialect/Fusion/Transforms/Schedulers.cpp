//===- Schedulers.cpp - which scheduler takes a kernel --------------------===//

#include "fusion/Dialect/Fusion/Transforms/Schedulers.h"
#include "fusion/Dialect/Fusion/Transforms/ShapeReification.h"

#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "llvm/ADT/EquivalenceClasses.h"

#include <memory>

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

/// Host sizes of a kernel's values, built only to be compared: in a scratch
/// block, erased when this goes away. (Built before the kernel they leaked
/// when the kernel is the segmenter's detached trial: a builder with no
/// block inserts nothing, so the listener never saw them. Found by
/// fusion-fuzz-compile's leak check.)
class HostSizes {
public:
  HostSizes(const HostSizes &) = delete;
  HostSizes &operator=(const HostSizes &) = delete;
  explicit HostSizes(KernelOp kernel)
      : kernel(kernel), builder(kernel.getContext(), &collector) {
    builder.setInsertionPointToStart(&scratch);
  }
  ~HostSizes() {
    for (Operation *op : llvm::reverse(collector.created))
      op->erase();
  }
  /// The size of `tensor` (a value of the kernel's body) along `dim`, or
  /// null when the inputs do not express it.
  Value of(Value tensor, int64_t dim) {
    FailureOr<Value> size =
        reifyDim(builder, kernel.getLoc(), tensor, dim,
                 [&](Value v) { return kernelInputOutside(kernel, v); });
    return succeeded(size) ? *size : Value();
  }

private:
  struct Collector : OpBuilder::Listener {
    SmallVector<Operation *> created;
    void notifyOperationInserted(Operation *op,
                                 OpBuilder::InsertPoint) override {
      created.push_back(op);
    }
  } collector;
  KernelOp kernel;
  Block scratch;
  OpBuilder builder;
};

/// A key naming a host size: the dim of a value (`fusion.dim`), a constant,
/// or the value itself.
static std::pair<void *, int64_t> sizeKey(Value size) {
  if (auto dim = size.getDefiningOp<DimOp>())
    return {dim.getInput().getAsOpaquePointer(), dim.getDim()};
  if (std::optional<int64_t> c = getConstantIntValue(size))
    return {nullptr, *c};
  return {size.getAsOpaquePointer(), -1};
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
  HostSizes sizes(kernel);
  Value first = reductions.front()->getOperand(0);
  int64_t rank = cast<RankedTensorType>(first.getType()).getRank();
  for (int64_t d = 0; d < rank; ++d) {
    Value a = sizes.of(first, d);
    if (!a)
      continue;
    for (Operation *op : reductions.drop_front()) {
      Value operand = op->getOperand(0);
      if (cast<RankedTensorType>(operand.getType()).getRank() != rank)
        continue;
      Value b = sizes.of(operand, d);
      if (b && sameHostSize(a, b) == 0) {
        culprit = op;
        why = "reduces a tensor whose dim " + std::to_string(d) +
              " is another dim of the same input than the kernel's first "
              "reduction's";
        return failure();
      }
    }
  }
  return success();
}

/// Note [Results of one shape]: a pointwise kernel iterates over the shape of
/// its results, so they must share it. Static extents are compared here;
/// symbolic ones must be the same host size, or sizes that an element-wise
/// op of the kernel ties together (`x + y` for `x, y: ?x?` makes dim d of x
/// and of y one size: the lowering checks them equal at run time, as it
/// checks the operands of the op anyway). Results that could differ at run
/// time (a static 1 beside a symbolic extent, the dims of two unrelated
/// inputs) make the kernel unschedulable, so segmentation writes them from
/// separate kernels.
static LogicalResult checkPointwiseResults(KernelOp kernel, std::string &why,
                                           Operation *&culprit) {
  Block &body = kernel.getBody().front();
  ValueRange results = body.getTerminator()->getOperands();
  if (results.empty())
    return success();
  Value first = results[0];
  auto firstType = cast<RankedTensorType>(first.getType());
  int64_t rank = firstType.getRank();
  std::unique_ptr<HostSizes> sizes; // built on the first symbolic dim
  // Sizes tied by element-wise ops, built on the first symbolic mismatch.
  std::optional<llvm::EquivalenceClasses<std::pair<void *, int64_t>>> tied;
  auto buildTies = [&] {
    tied.emplace();
    for (Operation &op : body) {
      if (!op.hasTrait<FusionElementwise>())
        continue;
      SmallVector<Value> tensors;
      for (Value v : llvm::concat<Value>(op.getOperands(), op.getResults()))
        if (auto t = dyn_cast<RankedTensorType>(v.getType());
            t && t.getRank() == rank)
          tensors.push_back(v);
      for (int64_t d = 0; d < rank; ++d) {
        Value a = tensors.empty() ? Value() : sizes->of(tensors[0], d);
        if (!a)
          continue;
        for (Value t : ArrayRef(tensors).drop_front())
          if (Value b = sizes->of(t, d))
            tied->unionSets(sizeKey(a), sizeKey(b));
      }
    }
  };
  auto reject = [&](Value result) {
    culprit = result.getDefiningOp();
    why = "is a result of another shape than the kernel's first result "
          "(a pointwise kernel writes one shape)";
    return failure();
  };
  for (Value result : results.drop_front()) {
    auto type = cast<RankedTensorType>(result.getType());
    if (type.getRank() != rank)
      return reject(result);
    for (int64_t d = 0; d < rank; ++d) {
      bool aDyn = firstType.isDynamicDim(d), bDyn = type.isDynamicDim(d);
      if (!aDyn && !bDyn) {
        if (type.getDimSize(d) != firstType.getDimSize(d))
          return reject(result);
        continue;
      }
      if (aDyn != bDyn)
        return reject(result);
      if (!sizes)
        sizes = std::make_unique<HostSizes>(kernel);
      Value a = sizes->of(first, d), b = sizes->of(result, d);
      if (!a || !b || sameHostSize(a, b) == 1)
        continue;
      if (!tied)
        buildTies();
      if (!tied->isEquivalent(sizeKey(a), sizeKey(b)))
        return reject(result);
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
