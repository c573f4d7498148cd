//===- Segment.cpp - wrap a fusion's tensor work into kernels -------------===//
// Splits each fusion.fusion into host work (size arithmetic) and
// fusion.kernel regions, one per GPU kernel: as few as the schedulers allow.
//===----------------------------------------------------------------------===//

#include "fusion/Dialect/Fusion/Transforms/Passes.h"
#include "fusion/Dialect/Fusion/Transforms/Schedulers.h"
#include "fusion/Dialect/Fusion/Transforms/ShapeReification.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SetVector.h"

#include <functional>

namespace mlir::fusion {
#define GEN_PASS_DEF_FUSIONSEGMENT
#include "fusion/Dialect/Fusion/Transforms/Passes.h.inc"
} // namespace mlir::fusion

using namespace mlir;
using namespace mlir::fusion;

namespace {

/// Host ops compute sizes and scalars; everything producing a tensor runs in
/// a kernel.
/// Whether a slice is among the view ops `v` is computed through.
bool slicedBelow(Value v) {
  for (Operation *def = v.getDefiningOp();
       def && isa<ReshapeOp, SqueezeOp, PermuteOp, SliceOp>(def);
       def = def->getOperand(0).getDefiningOp())
    if (isa<SliceOp>(def))
      return true;
  return false;
}

/// A view: a reshape, squeeze, permute or slice of a fusion input (or of
/// another view) whose result is only returned or viewed again. It needs no
/// kernel: the runtime hands out the input's memory with other sizes and
/// strides (and, for a slice, an offset). A reshape of a slice is not one:
/// a slice is rarely contiguous, and a reshape view needs a contiguous
/// source (the plan refuses one that is not), so that reshape and the
/// slice under it run in a kernel.
bool isViewOp(Operation *op) {
  if (isa<ReshapeOp>(op))
    return !slicedBelow(op->getOperand(0));
  return isa<SqueezeOp, PermuteOp, SliceOp>(op);
}

/// Every use of `op`'s result is returned or viewed again (by view ops
/// whose uses are, in turn).
bool onlyReturnedOrViewed(Operation *op) {
  return llvm::all_of(op->getUsers(), [](Operation *user) {
    return isa<ReturnOp>(user) ||
           (isViewOp(user) && onlyReturnedOrViewed(user));
  });
}

/// `op` is a view op over a chain of view ops from a fusion input, each of
/// which is only returned or viewed (a view of a view that a kernel also
/// reads would be a view of a kernel result).
bool viewsAnInput(Operation *op) {
  if (!isViewOp(op))
    return false;
  Value input = op->getOperand(0);
  if (isa<BlockArgument>(input))
    return true;
  Operation *def = input.getDefiningOp();
  return def && viewsAnInput(def) && onlyReturnedOrViewed(def);
}

/// A host view: a view chain from an input whose values are only returned
/// or viewed. The two directions are checked apart (up: viewsAnInput, down:
/// onlyReturnedOrViewed): one recursion over both went up and down a chain
/// of views forever (a reshape of a reshape of an input,
/// test/Reliability/view-chain.mlir).
bool isHostView(Operation *op) {
  return viewsAnInput(op) && onlyReturnedOrViewed(op);
}

bool isHostOp(Operation *op) {
  if (isa<ReturnOp, KernelOp, EmptyOp, LaunchOp>(op) || isHostView(op))
    return true;
  return llvm::none_of(op->getResultTypes(),
                       [](Type t) { return isa<RankedTensorType>(t); });
}

/// Note [Scalars computed from sizes]: a non-index scalar the host program
/// would compute from sizes (a mean's element count converted to f32:
/// `fusion.cast(arith.index_cast(dim))`) cannot be evaluated by the launch
/// plan, which computes integers. Such scalar ops are rematerialized in the
/// kernels that read them, as constants are; the index sizes they start
/// from become kernel inputs.
static bool isKernelScalarOp(Operation *op) {
  if (op->getNumResults() != 1 || op->getNumRegions() != 0 ||
      !isMemoryEffectFree(op))
    return false;
  Type type = op->getResult(0).getType();
  if (type.isIndex() || isa<ShapedType>(type) || !type.isIntOrFloat())
    return false;
  return isa<CastOp>(op) || op->getDialect()->getNamespace() == "arith" ||
         op->hasTrait<FusionElementwise>();
}

/// Clones `ops` (tensor ops of one fusion body, in block order) into a new
/// fusion.kernel at the builder's insertion point (a detached op when the
/// builder has none). Its inputs are the values the ops read from outside,
/// in the order they are first read; constants are rematerialized inside.
/// Its results are the values of the ops `isOwned` accepts that something
/// outside `ops` uses; ops not owned are copies (their originals serve other
/// users too).
KernelOp cloneIntoKernel(OpBuilder &builder, Location loc, StringRef name,
                         ArrayRef<Operation *> ops,
                         function_ref<bool(Operation *)> isOwned,
                         SmallVectorImpl<Value> &results) {
  Block *body = ops.front()->getBlock();
  llvm::SetVector<Operation *> inKernel(ops.begin(), ops.end());
  llvm::SetVector<Value> inputs;
  llvm::SetVector<Operation *> constants;
  // Scalar ops rematerialized inside (Note [Scalars computed from sizes]),
  // operands first.
  llvm::SetVector<Operation *> scalars;
  std::function<void(Value)> readOutside = [&](Value operand) {
    Operation *def = operand.getDefiningOp();
    if (def && def->hasTrait<OpTrait::ConstantLike>()) {
      constants.insert(def);
      return;
    }
    if (def && !inKernel.contains(def) && isKernelScalarOp(def)) {
      if (scalars.contains(def))
        return;
      for (Value v : def->getOperands())
        readOutside(v);
      scalars.insert(def);
      return;
    }
    inputs.insert(operand);
  };
  for (Operation *op : ops) {
    op->walk([&](Operation *nested) {
      for (Value operand : nested->getOperands()) {
        Operation *def = operand.getDefiningOp();
        if (def && (inKernel.contains(def) || op->isProperAncestor(def)))
          continue;
        readOutside(operand);
      }
    });
    if (!isOwned(op))
      continue;
    for (Value result : op->getResults())
      if (llvm::any_of(result.getUsers(), [&](Operation *user) {
            Operation *top = body->findAncestorOpInBlock(*user);
            return !top || !inKernel.contains(top);
          }))
        results.push_back(result);
  }

  SmallVector<Type> resultTypes;
  for (Value r : results)
    resultTypes.push_back(r.getType());
  auto kernel =
      KernelOp::create(builder, loc, name, inputs.getArrayRef(), resultTypes);
  Block &kernelBody = kernel.getBody().front();
  IRMapping mapping;
  for (auto [input, arg] : llvm::zip(inputs, kernelBody.getArguments()))
    mapping.map(input, arg);
  OpBuilder inner = OpBuilder::atBlockEnd(&kernelBody);
  for (Operation *constant : constants)
    inner.clone(*constant, mapping);
  for (Operation *scalar : scalars)
    inner.clone(*scalar, mapping);
  for (Operation *op : ops)
    inner.clone(*op, mapping);
  SmallVector<Value> yielded;
  for (Value r : results)
    yielded.push_back(mapping.lookup(r));
  YieldOp::create(inner, loc, yielded);
  return kernel;
}

/// Moves the host ops that `ops` read (and the host ops those read) before
/// the first of `ops`, keeping their order, so that the host program
/// computes sizes before the kernel that needs them.
void hoistHostInputs(ArrayRef<Operation *> ops) {
  Operation *first = ops.front();
  Block *body = first->getBlock();
  llvm::SetVector<Operation *> inOps(ops.begin(), ops.end());
  DenseSet<Operation *> toMove;
  SmallVector<Value> stack;
  for (Operation *op : ops)
    op->walk([&](Operation *nested) {
      llvm::append_range(stack, nested->getOperands());
    });
  while (!stack.empty()) {
    Operation *def = stack.pop_back_val().getDefiningOp();
    if (!def || def->getBlock() != body || inOps.contains(def) ||
        !first->isBeforeInBlock(def) || !isHostOp(def) ||
        !toMove.insert(def).second)
      continue;
    llvm::append_range(stack, def->getOperands());
  }
  // In block order, so that each moved op's operands are moved before it.
  // One that reads a value that stays after `first` stays too (the kernel
  // goes after the last of `ops`, so it still sees the value).
  for (Operation &op : llvm::make_early_inc_range(
           llvm::make_range(first->getIterator(), body->end())))
    if (toMove.contains(&op) && llvm::all_of(op.getOperands(), [&](Value v) {
          Operation *def = v.getDefiningOp();
          return !def || def->getBlock() != body || def->isBeforeInBlock(first);
        }))
      op.moveBefore(first);
}

// Note [Segmentation]: a fusion becomes as few kernels as the schedulers
// allow. When all its tensor ops form a kernel some scheduler accepts (the
// common case), that is the one kernel. Otherwise the ops are taken in block
// order and each joins the first kernel so far that comes no earlier than
// the kernels of its producers and that can still be scheduled with it
// (`canSchedule`, the test fusion-schedule applies); an op that fits none
// starts a new kernel. First fit rather than "close the current kernel":
// independent work interleaved in block order (a row softmax of x written
// between the ops of a column sum of y) does not cost extra kernels. A
// trial kernel's results are the values that anything outside it uses,
// later ops included, exactly what they will be when the kernel is built;
// ops joining it later only remove results. Values that cross kernels
// become intermediate buffers (the lowering allocates one per kernel result
// that the fusion does not return).
//
// Element-wise and broadcast work computed from fusion inputs alone
// (`isRecomputable`: e.g. a broadcast of a bias, exp(x), a splat of a
// constant) is not placed in any one kernel: every kernel that reads it
// computes it again. That costs reads of the (usually smaller or equal)
// inputs instead of a write and a read of an intermediate, and it keeps
// such work from closing a kernel early: an outer reduction of exp(x)
// cannot also write exp(x) for a later kernel, but it can recompute it.
//
// An op that no scheduler accepts even alone gets a kernel of its own, and
// fusion-schedule reports it ("has no scheduler yet") on that op.
class Segmenter {
public:
  Segmenter(FusionOp fusion, bool explain)
      : fusion(fusion), body(fusion.getBody().front()), explain(explain) {}

  LogicalResult run() {
    // Sizes of computed tensors become sizes of inputs, so that every host
    // value is computable before any kernel runs.
    SmallVector<DimOp> dims;
    body.walk([&](DimOp dim) { dims.push_back(dim); });
    OpBuilder builder(fusion.getContext());
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
      if (!isHostOp(&op)) {
        position[&op] = kernelOps.size();
        kernelOps.push_back(&op);
      }
    if (kernelOps.empty())
      return success();

    auto all = [](Operation *) { return true; };
    if (fits(kernelOps, all)) {
      if (explain)
        mlir::emitRemark(fusion.getLoc(), "one kernel: a scheduler takes all ")
            << kernelOps.size() << " tensor ops together";
      build(kernelOps, all);
      for (Operation *op : llvm::reverse(kernelOps))
        op->erase();
      return success();
    }
    if (explain)
      mlir::emitRemark(fusion.getLoc(), "not one kernel: ") << lastReason();

    // Dead tensor work would make kernels without results.
    for (Operation *op : llvm::reverse(kernelOps))
      if (isOpTriviallyDead(op)) {
        position.erase(op);
        op->erase();
      }
    llvm::erase_if(kernelOps,
                   [&](Operation *op) { return !position.contains(op); });
    for (Operation *op : kernelOps)
      if (isRecomputable(op))
        recomputable.insert(op);
    // First fit: the earliest kernel, at or after those of the op's
    // producers, that stays schedulable with it; else a new kernel.
    SmallVector<SmallVector<Operation *>> segments;
    DenseMap<Operation *, size_t> segmentOf;
    for (Operation *op : kernelOps) {
      if (recomputable.contains(op))
        continue;
      size_t earliest = 0;
      op->walk([&](Operation *nested) {
        for (Value operand : nested->getOperands())
          if (Operation *def = operand.getDefiningOp())
            if (auto it = segmentOf.find(def); it != segmentOf.end())
              earliest = std::max(earliest, it->second);
      });
      size_t chosen = segments.size();
      for (size_t k = earliest; k < segments.size(); ++k) {
        segments[k].push_back(op);
        if (fitsWithProducers(segments[k])) {
          chosen = k;
          break;
        }
        segments[k].pop_back();
      }
      if (chosen == segments.size()) {
        if (explain) {
          InFlightDiagnostic remark = mlir::emitRemark(op->getLoc(), "'")
                                      << op->getName() << "' starts kernel "
                                      << segments.size();
          // Every kernel from `earliest` on was tried; the last trial was
          // with the newest kernel.
          if (!segments.empty())
            remark << ": it fits no kernel from " << earliest
                   << " on (with kernel " << segments.size() - 1 << ": "
                   << lastReason() << ")";
        }
        segments.push_back({op});
      }
      segmentOf[op] = chosen;
    }

    KernelOp previous;
    for (ArrayRef<Operation *> segment : segments) {
      DenseSet<Operation *> owned(segment.begin(), segment.end());
      previous = build(
          withProducers(segment),
          [&](Operation *op) { return owned.contains(op); }, previous);
      for (Operation *op : llvm::reverse(segment))
        op->erase();
    }
    // Every reader of a recomputed op has its own copy now.
    for (Operation *op : llvm::reverse(kernelOps))
      if (recomputable.contains(op) && op->use_empty())
        op->erase();
    return success();
  }

private:
  /// Whether `op` is element-wise or broadcast work on fusion inputs,
  /// constants and sizes only (through other such ops), that only kernels
  /// read.
  bool isRecomputable(Operation *op) {
    if (!isPointwiseKernelOp(op) || op->getNumRegions() != 0)
      return false;
    for (Value operand : op->getOperands()) {
      if (auto arg = dyn_cast<BlockArgument>(operand)) {
        if (arg.getOwner() != &body)
          return false;
        continue;
      }
      Operation *def = operand.getDefiningOp();
      if (!isHostOp(def) && !recomputable.contains(def))
        return false;
    }
    return llvm::all_of(op->getUsers(), [&](Operation *user) {
      Operation *top = body.findAncestorOpInBlock(*user);
      return top && !isHostOp(top);
    });
  }

  /// `segment` and the recomputed ops it reads, in block order.
  SmallVector<Operation *> withProducers(ArrayRef<Operation *> segment) {
    llvm::SetVector<Operation *> ops(segment.begin(), segment.end());
    for (size_t i = 0; i < ops.size(); ++i)
      ops[i]->walk([&](Operation *nested) {
        for (Value operand : nested->getOperands())
          if (Operation *def = operand.getDefiningOp();
              def && recomputable.contains(def))
            ops.insert(def);
      });
    SmallVector<Operation *> sorted = ops.takeVector();
    llvm::sort(sorted, [&](Operation *a, Operation *b) {
      return position.lookup(a) < position.lookup(b);
    });
    return sorted;
  }

  bool fitsWithProducers(ArrayRef<Operation *> segment) {
    DenseSet<Operation *> owned(segment.begin(), segment.end());
    return fits(withProducers(segment),
                [&](Operation *op) { return owned.contains(op); });
  }

  /// Whether the kernel `ops` would make can be scheduled; the trial kernel
  /// is built detached and erased.
  bool fits(ArrayRef<Operation *> ops,
            function_ref<bool(Operation *)> isOwned) {
    OpBuilder detached(fusion.getContext());
    SmallVector<Value> results;
    KernelOp trial = cloneIntoKernel(detached, fusion.getLoc(), "trial", ops,
                                     isOwned, results);
    lastWhy.clear();
    lastCulpritName.clear();
    lastCulprit = nullptr;
    bool ok = canSchedule(trial, lastWhy, lastCulprit);
    // The culprit is an op of the trial kernel: name it while it exists.
    if (lastCulprit)
      lastCulpritName = lastCulprit->getName().getStringRef().str();
    lastCulprit = nullptr;
    trial.erase();
    return ok;
  }

  /// Why the last trial kernel did not schedule, naming the op at fault.
  std::string lastReason() const {
    return lastCulpritName.empty() ? lastWhy
                                   : "'" + lastCulpritName + "' " + lastWhy;
  }

  /// Makes the next kernel of the fusion from `ops`, placed after the last
  /// of them and after `previous`, and lets the users of its results read
  /// the kernel's results; the originals stay for the caller to erase.
  KernelOp build(ArrayRef<Operation *> ops,
                 function_ref<bool(Operation *)> isOwned,
                 KernelOp previous = {}) {
    hoistHostInputs(ops);
    OpBuilder builder(fusion.getContext());
    // After its ops and after the kernel launched before it (first fit can
    // leave an earlier kernel's last op after this one's).
    Operation *after = ops.back();
    if (previous && after->isBeforeInBlock(previous))
      after = previous;
    builder.setInsertionPointAfter(after);
    std::string name =
        (fusion.getSymName() + "_k" + std::to_string(counter++)).str();
    SmallVector<Value> results;
    KernelOp kernel =
        cloneIntoKernel(builder, fusion.getLoc(), name, ops, isOwned, results);
    for (auto [r, k] : llvm::zip(results, kernel.getResults()))
      r.replaceAllUsesWith(k);
    return kernel;
  }

  FusionOp fusion;
  Block &body;
  bool explain;
  /// Why the last trial kernel did not schedule (`explain`).
  std::string lastWhy, lastCulpritName;
  Operation *lastCulprit = nullptr;
  int counter = 0;
  /// Index of each tensor op in block order.
  DenseMap<Operation *, size_t> position;
  DenseSet<Operation *> recomputable;
};

struct FusionSegmentPass
    : mlir::fusion::impl::FusionSegmentBase<FusionSegmentPass> {
  using FusionSegmentBase::FusionSegmentBase;
  void runOnOperation() override {
    FusionOp fusion = getOperation();
    if (failed(Segmenter(fusion, explain).run()))
      return signalPassFailure();
    // Host scalars that every kernel now computes itself (Note [Scalars
    // computed from sizes]) are dead on the host.
    Block &body = fusion.getBody().front();
    for (Operation &op : llvm::make_early_inc_range(llvm::reverse(body)))
      if (isKernelScalarOp(&op) && op.use_empty())
        op.erase();
  }
};

} // namespace
