//===- RowKernel.cpp - kernels that reduce the innermost dim --------------===//

#include "fusion/Dialect/Fusion/Transforms/RowKernel.h"

#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::fusion;

bool mlir::fusion::isPointwiseKernelOp(Operation *op) {
  return op->hasTrait<FusionElementwise>() ||
         isa<BroadcastInDimOp, ExpandOp, PermuteOp, SqueezeOp, FullOp, YieldOp>(
             op) ||
         op->getDialect()->getNamespace() == "arith";
}

bool mlir::fusion::isIndexKernelOp(Operation *op) {
  return isa<SliceOp, PadOp, CatOp, IndexSelectOp, GatherOp, ReshapeOp, IotaOp,
             RandOp, RandnOp>(op);
}

Value mlir::fusion::kernelInputOutside(KernelOp kernel, Value value) {
  auto arg = dyn_cast<BlockArgument>(value);
  if (arg && arg.getOwner() == &kernel.getBody().front())
    return kernel.getInputs()[arg.getArgNumber()];
  return value;
}

Value mlir::fusion::kernelValueOnHost(KernelOp kernel, Value value) {
  auto arg = dyn_cast<BlockArgument>(value);
  if (arg && arg.getOwner() == &kernel.getBody().front())
    return kernel.getInputs()[arg.getArgNumber()];
  Block *block = value.getParentBlock();
  Operation *owner = block ? block->getParentOp() : nullptr;
  if (owner && kernel->isAncestor(owner))
    return Value();
  return value;
}

static std::optional<SmallVector<int64_t>> reducedDims(Operation *op) {
  return TypeSwitch<Operation *, std::optional<SmallVector<int64_t>>>(op)
      .Case<SumOp, ProdOp, MaxOp, MinOp, VarMeanOp>(
          [](auto r) { return SmallVector<int64_t>(r.getDims()); })
      .Case<ArgmaxOp, ArgminOp>([](auto r) {
        return SmallVector<int64_t>{static_cast<int64_t>(r.getDim())};
      })
      .Default([](Operation *) { return std::nullopt; });
}

/// Two types agree when their static extents do (symbolic ones are checked
/// at run time by the lowering).
static bool compatible(RankedTensorType a, RankedTensorType b) {
  if (a.getRank() != b.getRank())
    return false;
  for (int64_t d = 0; d < a.getRank(); ++d)
    if (!a.isDynamicDim(d) && !b.isDynamicDim(d) &&
        a.getDimSize(d) != b.getDimSize(d))
      return false;
  return true;
}

/// Visits the ops `root` is computed from, each once; `visit` returns true
/// to stop at an op (its operands are not walked).
static void walkProducers(Value root, function_ref<bool(Operation *)> visit) {
  SmallVector<Value> stack{root};
  DenseSet<Operation *> seen;
  while (!stack.empty()) {
    Operation *def = stack.pop_back_val().getDefiningOp();
    if (!def || !seen.insert(def).second || visit(def))
      continue;
    for (Value operand : def->getOperands())
      stack.push_back(operand);
  }
}

/// The reductions of `body` in order (those `isReduction` accepts); null
/// and `bad` set to the first op that is neither one nor element-wise (nor
/// one that `alsoAllowed` accepts).
static SmallVector<Operation *>
collectReductions(Block &body, function_ref<bool(Operation *)> isReduction,
                  Operation *&bad,
                  function_ref<bool(Operation *)> alsoAllowed = nullptr) {
  SmallVector<Operation *> reductions;
  bad = nullptr;
  for (Operation &op : body) {
    if (isReduction(&op))
      reductions.push_back(&op);
    else if (!isPointwiseKernelOp(&op) && !(alsoAllowed && alsoAllowed(&op)) &&
             !bad)
      bad = &op;
  }
  return reductions;
}

/// The first permute (not the identity) of a value computed from one of
/// `reductions`, or null: neither scheduler maps a reduction's result
/// through a permute (the permute goes to a later kernel, where the result
/// is an input).
static Operation *permuteOfReduced(Block &body,
                                   ArrayRef<Operation *> reductions) {
  DenseSet<Operation *> reductionSet(reductions.begin(), reductions.end());
  for (Operation &op : body) {
    auto permute = dyn_cast<PermuteOp>(&op);
    if (!permute ||
        llvm::equal(permute.getPerm(),
                    llvm::seq<int64_t>(0, permute.getPerm().size())))
      continue;
    bool reduced = false;
    walkProducers(permute.getInput(), [&](Operation *def) {
      reduced |= reductionSet.contains(def);
      return reduced;
    });
    if (reduced)
      return permute;
  }
  return nullptr;
}

FailureOr<RowKernelInfo> mlir::fusion::analyzeRowKernel(KernelOp kernel,
                                                        std::string &why,
                                                        Operation *&culprit) {
  RowKernelInfo info;
  culprit = nullptr;
  auto reject = [&](Operation *op, StringRef text) {
    culprit = op;
    why = text.str();
    return failure();
  };
  Block &body = kernel.getBody().front();
  Operation *bad = nullptr;
  SmallVector<Operation *> reductions = collectReductions(
      body, [](Operation *op) { return reducedDims(op).has_value(); }, bad,
      [](Operation *op) { return isa<GatherOp, IndexSelectOp>(op); });
  if (bad)
    return reject(bad, "is neither element-wise nor a "
                       "sum/prod/max/min/var_mean/argmax/argmin (nor a "
                       "gather or index_select)");
  if (reductions.empty()) {
    why = "has no reduction";
    return failure();
  }
  if (Operation *permute = permuteOfReduced(body, reductions))
    return reject(permute, "permutes the result of a reduction");
  for (Operation *op : reductions) {
    auto input = cast<RankedTensorType>(op->getOperand(0).getType());
    SmallVector<int64_t> dims = *reducedDims(op);
    if (input.getRank() == 0 || dims.size() != 1 ||
        dims[0] != input.getRank() - 1) {
      return reject(
          op, "reduces other dims than the innermost one alone (only inner "
              "reductions are scheduled yet)");
    }
    if (input.getElementType().isInteger(1)) {
      return reject(op, "reduces booleans");
    }
    if (!info.domain) {
      info.domain = input;
      info.domainValue = op->getOperand(0);
    } else if (!compatible(info.domain, input)) {
      return reject(op,
                    "reduces a tensor of another shape than the kernel's first "
                    "reduction");
    }
  }

  // Online softmax pairs: sum(exp(x - expand(max(x)))) over one dim.
  DenseMap<Operation *, Operation *> onlineMaxOf;
  for (Operation *op : reductions) {
    auto sum = dyn_cast<SumOp>(op);
    auto exp = sum ? sum.getInput().getDefiningOp<ExpOp>() : ExpOp();
    auto diff = exp ? exp.getInput().getDefiningOp<SubOp>() : SubOp();
    if (!diff)
      continue;
    Value shifted = diff.getRhs();
    if (auto e = shifted.getDefiningOp<ExpandOp>())
      shifted = e.getInput();
    else if (auto bc = shifted.getDefiningOp<BroadcastInDimOp>())
      shifted = bc.getInput();
    auto max = shifted.getDefiningOp<MaxOp>();
    if (!max || max.getInput() != diff.getLhs() ||
        !isa<FloatType>(max.getInput().getType().getElementType()) ||
        !llvm::is_contained(reductions, max.getOperation()))
      continue;
    onlineMaxOf[op] = max;
  }

  // The pass of each reduction: one after the pass of every reduction its
  // operand depends on (the online sum: its max's pass).
  DenseMap<Operation *, int64_t> lastPass;
  for (Operation *op : reductions) {
    int64_t pass = 0;
    Operation *onlineMax = onlineMaxOf.lookup(op);
    walkProducers(op->getOperand(0), [&](Operation *def) {
      auto it = lastPass.find(def);
      if (it == lastPass.end())
        return false;
      pass = std::max(pass, it->second + (def == onlineMax ? 0 : 1));
      return true;
    });
    RowReduction reduction{op, pass};
    if (onlineMax && lastPass.lookup(onlineMax) == pass) {
      reduction.onlineMax = onlineMax;
      for (RowReduction &r : info.reductions)
        if (r.op == onlineMax)
          r.onlineSum = op;
    }
    lastPass[op] = pass;
    info.reductions.push_back(reduction);
    info.numPasses = std::max(info.numPasses, pass + 1);
  }

  int64_t rank = info.domain.getRank();
  // A static 1 where the domain's dim may be larger is a broadcast dim
  // (tensor<1x?> of a ?x? domain), not the domain's own shape.
  auto sizeOneWhereDomainIsNot = [&](RankedTensorType type) {
    for (int64_t d = 0; d < rank; ++d)
      if (type.getDimSize(d) == 1 && info.domain.getDimSize(d) != 1)
        return true;
    return false;
  };
  for (Value result : body.getTerminator()->getOperands()) {
    auto type = cast<RankedTensorType>(result.getType());
    if (type.getRank() == rank && compatible(type, info.domain) &&
        !sizeOneWhereDomainIsNot(type)) {
      info.fullResult.push_back(true);
      continue;
    }
    // One value per row: the outer dims, and a kept dim of 1 or none.
    bool perRow = (type.getRank() == rank && type.getDimSize(rank - 1) == 1) ||
                  type.getRank() == rank - 1;
    for (int64_t d = 0; perRow && d + 1 < rank; ++d)
      perRow = type.isDynamicDim(d) || info.domain.isDynamicDim(d) ||
               type.getDimSize(d) == info.domain.getDimSize(d);
    if (!perRow) {
      return reject(
          result.getDefiningOp(),
          "is a result of neither the reduced shape nor one value per row");
    }
    info.fullResult.push_back(false);
  }
  // Note [Index ops in row kernels]: a gather or index_select reads its
  // input where an index says, one element per row (the target logit of
  // cross-entropy: `gather(x, target)` beside the row's max and sum of
  // exp). The row kernel computes such a value with the per-row results,
  // after the reductions, through the generator's index contexts; values
  // that feed a reduction or a full-size result are computed at the
  // columns of the row instead, where data-dependent indices cannot be
  // vectorized, so those kernels are refused (segmentation gives the index
  // op a kernel of its own).
  DenseSet<Operation *> alongRows;
  auto markAlongRows = [&](Value root) {
    walkProducers(
        root, [&](Operation *def) { return !alongRows.insert(def).second; });
  };
  for (Operation *op : reductions)
    markAlongRows(op->getOperand(0));
  for (auto [full, result] :
       llvm::zip(info.fullResult, body.getTerminator()->getOperands()))
    if (full)
      markAlongRows(result);
  for (Operation &op : body)
    if (isa<GatherOp, IndexSelectOp>(&op) && alongRows.contains(&op))
      return reject(&op, "is an index op that a reduction or a full-size "
                         "result reads (index ops in inner-reduction kernels "
                         "give per-row values only)");
  return info;
}

FailureOr<OuterKernelInfo>
mlir::fusion::analyzeOuterKernel(KernelOp kernel, std::string &why,
                                 Operation *&culprit) {
  OuterKernelInfo info;
  culprit = nullptr;
  auto reject = [&](Operation *op, StringRef text) {
    culprit = op;
    why = text.str();
    return failure();
  };
  Block &body = kernel.getBody().front();
  Operation *bad = nullptr;
  info.reductions = collectReductions(
      body, [](Operation *op) { return isa<SumOp, ProdOp, MaxOp, MinOp>(op); },
      bad);
  if (bad)
    return reject(bad, "is neither element-wise nor a sum/prod/max/min");
  if (info.reductions.empty()) {
    why = "has no reduction";
    return failure();
  }
  if (Operation *permute = permuteOfReduced(body, info.reductions))
    return reject(permute, "permutes the result of a reduction");
  DenseSet<Operation *> reductionSet(info.reductions.begin(),
                                     info.reductions.end());
  for (Operation *op : info.reductions) {
    auto input = cast<RankedTensorType>(op->getOperand(0).getType());
    SmallVector<int64_t> dims = *reducedDims(op);
    bool prefix = !dims.empty() && (int64_t)dims.size() < input.getRank();
    for (auto [i, d] : llvm::enumerate(dims))
      prefix &= d == static_cast<int64_t>(i);
    if (!prefix) {
      return reject(
          op, "reduces dims that are neither the innermost one nor leading "
              "dims that keep the innermost");
    }
    if (input.getElementType().isInteger(1)) {
      return reject(op, "reduces booleans");
    }
    if (!info.domain) {
      info.domain = input;
      info.domainValue = op->getOperand(0);
      info.numReduced = dims.size();
    } else if (!compatible(info.domain, input) ||
               info.numReduced != static_cast<int64_t>(dims.size())) {
      return reject(
          op, "reduces another shape or other dims than the kernel's first "
              "reduction");
    }
    // Outer reductions take one pass: no reduction feeds another.
    bool chained = false;
    walkProducers(op->getOperand(0), [&](Operation *def) {
      chained |= reductionSet.contains(def);
      return reductionSet.contains(def);
    });
    if (chained)
      return reject(op, "reduces the result of another outer reduction");
  }
  int64_t rank = info.domain.getRank(), p = info.numReduced;
  for (Value result : body.getTerminator()->getOperands()) {
    auto type = cast<RankedTensorType>(result.getType());
    bool ok = false;
    int64_t offset = 0;
    if (type.getRank() == rank - p) {
      ok = true;
      offset = p;
    } else if (type.getRank() == rank) {
      ok = true;
      for (int64_t d = 0; d < p; ++d)
        ok &= type.getDimSize(d) == 1;
    }
    for (int64_t d = std::max<int64_t>(p, offset); ok && d < rank; ++d) {
      int64_t size = type.getDimSize(d - offset);
      ok = ShapedType::isDynamic(size) || info.domain.isDynamicDim(d) ||
           size == info.domain.getDimSize(d);
    }
    if (!ok) {
      return reject(
          result.getDefiningOp(),
          "is a result without one value per kept position of the outer "
          "reduction");
    }
  }
  return info;
}
