//===- Segment.cpp - wrap a fusion's tensor work into kernels -------------===//
// Splits each fusion.fusion into host work (size arithmetic) and
// fusion.kernel regions, one per GPU kernel.
//===----------------------------------------------------------------------===//

#include "fusion/Transforms/Passes.h"
#include "fusion/Transforms/ShapeReification.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::fusion {
#define GEN_PASS_DEF_FUSIONSEGMENT
#include "fusion/Transforms/Passes.h.inc"
} // namespace mlir::fusion

using namespace mlir;
using namespace mlir::fusion;

namespace {

/// Host ops compute sizes and scalars; everything producing a tensor runs in
/// a kernel.
/// A view: a reshape, squeeze or permute of a fusion input (or of another
/// view) whose result is only returned or viewed again. It needs no kernel:
/// the runtime hands out the input's memory with other sizes and strides.
bool isHostView(Operation *op) {
  if (!isa<ReshapeOp, SqueezeOp, PermuteOp>(op))
    return false;
  Value input = op->getOperand(0);
  if (!isa<BlockArgument>(input) &&
      !(input.getDefiningOp() && isHostView(input.getDefiningOp())))
    return false;
  return llvm::all_of(op->getUsers(), [](Operation *user) {
    return isa<ReturnOp>(user) || isHostView(user);
  });
}

bool isHostOp(Operation *op) {
  if (isa<ReturnOp, KernelOp, EmptyOp, LaunchOp>(op) || isHostView(op))
    return true;
  return llvm::none_of(op->getResultTypes(),
                       [](Type t) { return isa<RankedTensorType>(t); });
}

// Note [One kernel per fusion]: the schedulers of this stage handle fusions
// whose tensor ops fit one kernel, so all tensor ops form one segment. The
// data structures (kernel regions with explicit inputs and results, host
// buffers between them) already allow several.
LogicalResult segment(FusionOp fusion, int &counter) {
  Block &body = fusion.getBody().front();
  OpBuilder builder(fusion.getContext());

  // Sizes of computed tensors become sizes of inputs, so that every host
  // value is computable before any kernel runs.
  SmallVector<DimOp> dims;
  body.walk([&](DimOp dim) { dims.push_back(dim); });
  for (DimOp dim : dims) {
    if (isa<BlockArgument>(dim.getInput()))
      continue;
    builder.setInsertionPoint(dim);
    FailureOr<Value> size =
        reifyDim(builder, dim.getLoc(), dim.getInput(), dim.getDim());
    if (failed(size))
      return dim.emitOpError("cannot express this size from the inputs");
    dim.replaceAllUsesWith(*size);
    dim.erase();
  }

  SmallVector<Operation *> kernelOps;
  for (Operation &op : body.without_terminator())
    if (!isHostOp(&op))
      kernelOps.push_back(&op);
  if (kernelOps.empty())
    return success();

  llvm::SetVector<Operation *> inKernel(kernelOps.begin(), kernelOps.end());
  llvm::SetVector<Value> inputs;
  // Constants are rematerialized in the kernel rather than passed to it.
  llvm::SetVector<Operation *> constants;
  SmallVector<Value> results;
  for (Operation *op : kernelOps) {
    op->walk([&](Operation *nested) {
      for (Value operand : nested->getOperands()) {
        Operation *def = operand.getDefiningOp();
        if (def && (inKernel.contains(def) || op->isProperAncestor(def)))
          continue;
        if (def && def->hasTrait<OpTrait::ConstantLike>()) {
          constants.insert(def);
          continue;
        }
        inputs.insert(operand);
      }
    });
    for (Value result : op->getResults())
      if (llvm::any_of(result.getUsers(), [&](Operation *user) {
            return !inKernel.contains(user);
          }))
        results.push_back(result);
  }
  // Host values that kernel ops use must be defined before the kernel.
  Operation *firstKernelOp = kernelOps.front();
  for (Value input : inputs) {
    Operation *def = input.getDefiningOp();
    if (def && firstKernelOp->isBeforeInBlock(def))
      def->moveBefore(firstKernelOp);
  }

  builder.setInsertionPoint(kernelOps.back()->getNextNode());
  SmallVector<Type> resultTypes;
  for (Value r : results)
    resultTypes.push_back(r.getType());
  std::string name =
      (fusion.getSymName() + "_k" + std::to_string(counter++)).str();
  auto kernel = KernelOp::create(builder, fusion.getLoc(), name,
                                 inputs.getArrayRef(), resultTypes);
  Block &kernelBody = kernel.getBody().front();
  IRMapping mapping;
  for (auto [input, arg] : llvm::zip(inputs, kernelBody.getArguments()))
    mapping.map(input, arg);
  OpBuilder inner = OpBuilder::atBlockEnd(&kernelBody);
  for (Operation *constant : constants)
    inner.clone(*constant, mapping);
  for (Operation *op : kernelOps)
    inner.clone(*op, mapping);
  SmallVector<Value> yielded;
  for (Value r : results)
    yielded.push_back(mapping.lookup(r));
  YieldOp::create(inner, fusion.getLoc(), yielded);
  for (auto [r, k] : llvm::zip(results, kernel.getResults()))
    r.replaceAllUsesWith(k);
  for (Operation *op : llvm::reverse(kernelOps))
    op->erase();
  return success();
}

struct FusionSegmentPass
    : mlir::fusion::impl::FusionSegmentBase<FusionSegmentPass> {
  void runOnOperation() override {
    int counter = 0;
    for (auto fusion : getOperation().getOps<FusionOp>()) {
      counter = 0;
      if (failed(segment(fusion, counter)))
        return signalPassFailure();
    }
  }
};

} // namespace
