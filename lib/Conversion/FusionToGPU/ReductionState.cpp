//===- ReductionState.cpp - reduction states and their folds --------------===//
// Neutral values and combining of reduction states (sum/prod/max/min,
// Welford, online softmax, arg), their warp and block folds, and the grid
// reduction's fold of split rows.
//===----------------------------------------------------------------------===//

#include "KernelEmitter.h"

#include "fusion/Conversion/KernelOpsToGPU.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::fusion;

namespace mlir::fusion::lowering {

KernelEmitter::RedKind KernelEmitter::kindOf(Operation *op) {
  return isa<SumOp, VarMeanOp>(op)  ? RedKind::Sum
         : isa<ProdOp>(op)          ? RedKind::Prod
         : isa<MaxOp, ArgmaxOp>(op) ? RedKind::Max
                                    : RedKind::Min;
}

Value KernelEmitter::neutral(RedKind kind, bool isFloat, Type type) {
  double inf = std::numeric_limits<double>::infinity();
  switch (kind) {
  case RedKind::Sum:
    return isFloat ? floatConst(type, 0) : intConst(type, 0);
  case RedKind::Prod:
    return isFloat ? floatConst(type, 1) : intConst(type, 1);
  case RedKind::Max:
    return isFloat ? floatConst(type, -inf)
                   : intConst(type, std::numeric_limits<int64_t>::min());
  case RedKind::Min:
    return isFloat ? floatConst(type, inf)
                   : intConst(type, std::numeric_limits<int64_t>::max());
  }
  return Value();
}

Value KernelEmitter::combine(RedKind kind, bool isFloat, Value x, Value y) {
  OpBuilder &b = *builder;
  switch (kind) {
  case RedKind::Sum:
    return isFloat ? arith::AddFOp::create(b, loc, x, y).getResult()
                   : arith::AddIOp::create(b, loc, x, y).getResult();
  case RedKind::Prod:
    return isFloat ? arith::MulFOp::create(b, loc, x, y).getResult()
                   : arith::MulIOp::create(b, loc, x, y).getResult();
  case RedKind::Max:
    return isFloat ? arith::MaximumFOp::create(b, loc, x, y).getResult()
                   : arith::MaxSIOp::create(b, loc, x, y).getResult();
  case RedKind::Min:
    return isFloat ? arith::MinimumFOp::create(b, loc, x, y).getResult()
                   : arith::MinSIOp::create(b, loc, x, y).getResult();
  }
  return Value();
}

vector::CombiningKind KernelEmitter::combiningKind(RedKind kind, bool isFloat) {
  switch (kind) {
  case RedKind::Sum:
    return vector::CombiningKind::ADD;
  case RedKind::Prod:
    return vector::CombiningKind::MUL;
  case RedKind::Max:
    return isFloat ? vector::CombiningKind::MAXIMUMF
                   : vector::CombiningKind::MAXSI;
  case RedKind::Min:
    return isFloat ? vector::CombiningKind::MINIMUMF
                   : vector::CombiningKind::MINSI;
  }
  return vector::CombiningKind::ADD;
}

KernelEmitter::RowState KernelEmitter::neutralState(RowPart &part) {
  switch (part.state) {
  case RowPart::Simple:
    return {neutral(part.kind, part.isFloat, part.acc)};
  case RowPart::Welford:
    return {floatConst(part.acc, 0), floatConst(part.acc, 0),
            floatConst(part.acc, 0)};
  case RowPart::Online:
    return {floatConst(part.acc, -std::numeric_limits<double>::infinity()),
            floatConst(part.acc, 0)};
  case RowPart::Arg:
    return {
        neutral(part.kind, part.isFloat, part.acc),
        intConst(builder->getI64Type(), std::numeric_limits<int64_t>::max())};
  }
  return {};
}

// Note [Arg reductions]: an argmax/argmin state is (value, index), the
// neutral one (-inf or +inf, INT64_MAX). `x` replaces `a` when it is the
// better extreme, or equal with a smaller index (the first occurrence
// wins, so the merge order does not matter); a NaN beats any number and
// the first NaN wins, as in PyTorch.
KernelEmitter::RowState
KernelEmitter::combineArg(RowPart &part, const RowState &a, const RowState &x) {
  OpBuilder &b = *builder;
  auto andI = [&](Value p, Value q) -> Value {
    return arith::AndIOp::create(b, loc, p, q);
  };
  auto orI = [&](Value p, Value q) -> Value {
    return arith::OrIOp::create(b, loc, p, q);
  };
  Value earlier =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, x[1], a[1]);
  Value take;
  if (part.isFloat) {
    bool isMax = part.kind == RedKind::Max;
    Value better = arith::CmpFOp::create(
        b, loc, isMax ? arith::CmpFPredicate::OGT : arith::CmpFPredicate::OLT,
        x[0], a[0]);
    Value equal =
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, x[0], a[0]);
    Value xNaN =
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, x[0], x[0]);
    Value aNaN =
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, a[0], a[0]);
    Value aNumber = arith::XOrIOp::create(
        b, loc, aNaN, arith::ConstantIntOp::create(b, loc, 1, 1));
    // x NaN: take it unless a is a NaN seen earlier; x a number: take it
    // when a is a number and x is better, or equal and earlier.
    Value takeNaN = andI(xNaN, orI(aNumber, earlier));
    Value takeNumber = andI(aNumber, orI(better, andI(equal, earlier)));
    take = orI(takeNaN, takeNumber);
  } else {
    bool isMax = part.kind == RedKind::Max;
    Value better = arith::CmpIOp::create(
        b, loc, isMax ? arith::CmpIPredicate::sgt : arith::CmpIPredicate::slt,
        x[0], a[0]);
    Value equal =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, x[0], a[0]);
    take = orI(better, andI(equal, earlier));
  }
  return {arith::SelectOp::create(b, loc, take, x[0], a[0]),
          arith::SelectOp::create(b, loc, take, x[1], a[1])};
}

Value KernelEmitter::expOf(Value x) {
  if (variant.fastMath && getElementTypeOrSelf(x.getType()).isF32())
    return approxExp(x);
  return math::ExpOp::create(*builder, loc, x);
}

// Note [Merging row states]: Welford states merge with Chan et al.'s
// formula (n = na + nb, mean = ma + d * nb / n, m2 = m2a + m2b +
// d^2 * na * nb / n with d = mb - ma; empty states stay zero); online
// softmax states (m, s) merge as m = max(ma, mb), s = sa * exp(ma - m) +
// sb * exp(mb - m), where a side whose max is -inf (no elements)
// contributes 0. NaN propagates through max and the products.
KernelEmitter::RowState KernelEmitter::combineState(RowPart &part,
                                                    const RowState &a,
                                                    const RowState &x) {
  OpBuilder &b = *builder;
  switch (part.state) {
  case RowPart::Arg:
    return combineArg(part, a, x);
  case RowPart::Simple:
    return {combine(part.kind, part.isFloat, a[0], x[0])};
  case RowPart::Welford: {
    Value n = arith::AddFOp::create(b, loc, a[0], x[0]);
    Value w = arith::DivFOp::create(
        b, loc, x[0],
        arith::MaximumFOp::create(b, loc, n, floatConst(part.acc, 1)));
    Value d = arith::SubFOp::create(b, loc, x[1], a[1]);
    Value mean = arith::AddFOp::create(b, loc, a[1],
                                       arith::MulFOp::create(b, loc, d, w));
    Value m2 = arith::AddFOp::create(
        b, loc, arith::AddFOp::create(b, loc, a[2], x[2]),
        arith::MulFOp::create(b, loc, arith::MulFOp::create(b, loc, d, d),
                              arith::MulFOp::create(b, loc, a[0], w)));
    return {n, mean, m2};
  }
  case RowPart::Online: {
    Value m = arith::MaximumFOp::create(b, loc, a[0], x[0]);
    return {m, arith::AddFOp::create(b, loc, rescaleOnline(part, a[0], a[1], m),
                                     rescaleOnline(part, x[0], x[1], m))};
  }
  }
  return {};
}

Value KernelEmitter::rescaleOnline(RowPart &part, Value mi, Value si, Value m) {
  OpBuilder &b = *builder;
  Value e = expOf(arith::SubFOp::create(b, loc, mi, m));
  Value none = arith::CmpFOp::create(
      b, loc, arith::CmpFPredicate::OEQ, mi,
      floatConst(part.acc, -std::numeric_limits<double>::infinity()));
  return arith::SelectOp::create(b, loc, none, floatConst(part.acc, 0),
                                 arith::MulFOp::create(b, loc, si, e));
}

// Note [Online states in two folds]: folding online softmax states (m, s)
// pairwise costs two exps, two compares and two selects per butterfly step
// and per slot of the block's fold: 2 * 5 exps in the warp and 2 * warps
// more in the block, on kernels (softmax, cross-entropy) whose time is
// mostly issue slots. Across a row's threads the fold is split instead:
// first the max alone (a plain fusion.block_reduce through the m slots),
// then every thread rescales its own sum to the row's max once
// (s * exp(m_t - m), 0 for a thread with no elements) and the sums are
// added (through the s slots). One exp per thread, and half the butterfly
// code. The results are the merge rule's (Note [Merging row states]): NaN
// propagates through the max and the product, and a row with no elements
// gets (-inf, 0). With several warps the row pays two more barriers.
KernelEmitter::RowState
KernelEmitter::blockReduceState(RowPart &part, RowState x, Value lane,
                                Value warp, Value slot0, Value warpsPerRow,
                                Value multiWarp, Value width) {
  if (part.state == RowPart::Online) {
    auto fold = [&](Value v, Value slots, RedKind kind) -> Value {
      auto op = BlockReduceOp::create(*builder, loc, ValueRange{v}, lane, warp,
                                      ValueRange{slots}, slot0, warpsPerRow,
                                      multiWarp, width);
      buildReductionRegions(
          op.getIdentity(), op.getCombiner(), TypeRange{part.acc},
          [&] { return SmallVector<Value>{neutral(kind, true, part.acc)}; },
          [&](ValueRange a, ValueRange y) {
            return SmallVector<Value>{combine(kind, true, a[0], y[0])};
          });
      return op.getResult(0);
    };
    Value m = fold(x[0], part.shared[0], RedKind::Max);
    Value s =
        fold(rescaleOnline(part, x[0], x[1], m), part.shared[1], RedKind::Sum);
    return {m, s};
  }
  auto op =
      BlockReduceOp::create(*builder, loc, ValueRange(x), lane, warp,
                            part.shared, slot0, warpsPerRow, multiWarp, width);
  buildStateRegions(part, op.getIdentity(), op.getCombiner());
  return RowState(op.getResults().begin(), op.getResults().end());
}

KernelEmitter::RowState KernelEmitter::clusterReduceState(RowPart &part,
                                                          RowState x,
                                                          Value leader,
                                                          Value round) {
  auto op =
      ClusterReduceOp::create(*builder, loc, ValueRange(x), leader,
                              part.clusterSlots, part.clusterBarriers, round);
  buildStateRegions(part, op.getIdentity(), op.getCombiner());
  return RowState(op.getResults().begin(), op.getResults().end());
}

void KernelEmitter::buildStateRegions(RowPart &part, Region &identity,
                                      Region &combiner) {
  RowPart *one[] = {&part};
  buildStateRegions(one, identity, combiner);
}

void KernelEmitter::buildStateRegions(ArrayRef<RowPart *> parts,
                                      Region &identity, Region &combiner) {
  SmallVector<Type> types;
  for (RowPart *part : parts)
    for (size_t c = 0; c < part->width(); ++c)
      types.push_back(part->componentType(c));
  buildReductionRegions(
      identity, combiner, types,
      [&] {
        SmallVector<Value> neutral;
        for (RowPart *part : parts)
          llvm::append_range(neutral, neutralState(*part));
        return neutral;
      },
      [&](ValueRange a, ValueRange x) {
        SmallVector<Value> combined;
        size_t at = 0;
        for (RowPart *part : parts) {
          RowState ap(a.begin() + at, a.begin() + at + part->width());
          RowState xp(x.begin() + at, x.begin() + at + part->width());
          at += part->width();
          llvm::append_range(combined, combineState(*part, ap, xp));
        }
        return combined;
      });
}

void KernelEmitter::buildReductionRegions(
    Region &identity, Region &combiner, TypeRange types,
    function_ref<SmallVector<Value>()> neutral,
    function_ref<SmallVector<Value>(ValueRange, ValueRange)> combine) {
  OpBuilder &b = *builder;
  OpBuilder::InsertionGuard guard(b);
  b.createBlock(&identity);
  ReduceYieldOp::create(b, loc, ValueRange(neutral()));
  SmallVector<Type> pairs(types);
  pairs.append(types.begin(), types.end());
  Block *block = b.createBlock(&combiner, {}, pairs,
                               SmallVector<Location>(pairs.size(), loc));
  ValueRange args = block->getArguments();
  ReduceYieldOp::create(b, loc,
                        ValueRange(combine(args.take_front(types.size()),
                                           args.drop_front(types.size()))));
}

Block *KernelEmitter::beginLastRegion(GridReduceOp op) {
  OpBuilder &b = *builder;
  TypeRange types = op.getState().getTypes();
  Block *last = b.createBlock(&op.getLast(), {}, types,
                              SmallVector<Location>(types.size(), loc));
  ReduceYieldOp::create(b, loc, ValueRange());
  b.setInsertionPoint(last->getTerminator());
  return last;
}

// Note [Split rows]: with few long rows and per-row results only (one
// pass), a row is split over gridDim.y blocks of T = blockDim threads:
// block y streams a span of whole chunks, reduces it across the block,
// and thread 0 writes the state to the workspaces (one buffer per state
// component, slot row * S + y). Then, as in Note [Grid reduction]
// (fusion.grid_reduce), a fence and a per-row counter: the block that
// completes the count resets the counter for the next launch, folds the S
// states (each thread a strided share, then across the block), and
// computes and writes the row's results. Extra buffers: the workspaces of every
// part's components in order, then the counters (zeroed by the runtime).
void KernelEmitter::foldSplits(
    SmallVector<RowPart> &parts, ArrayRef<RowState> states, Value row,
    Value valid, Value tid, Value threadId, Value threadsPerRow, Value lastFlag,
    Value lane, Value warp, Value slot0, Value warpsPerRow, Value multiWarp,
    function_ref<void(RowPart &, const RowState &)> finish) {
  OpBuilder &b = *builder;
  Type idx = indexType(b.getContext());
  auto toIdx = [&](Value x) {
    return arith::IndexCastOp::create(b, loc, idx, x).getResult();
  };
  auto cmp = [&](arith::CmpIPredicate p, Value x, Value y) {
    return arith::CmpIOp::create(b, loc, p, x, y).getResult();
  };
  Value splitId = toIdx(gpu::BlockIdOp::create(b, loc, gpu::Dimension::y));
  Value splits = toIdx(gpu::GridDimOp::create(b, loc, gpu::Dimension::y));
  Value counters = extraBuffers.back();
  Value rowBase = arith::MulIOp::create(b, loc, row, splits);
  Value writer = arith::AndIOp::create(
      b, loc, valid, cmp(arith::CmpIPredicate::eq, tid, constIdx(0)));
  SmallVector<Value> flat;
  for (const RowState &state : states)
    flat.append(state.begin(), state.end());
  SmallVector<Value> workspaces(extraBuffers.begin(),
                                extraBuffers.begin() + flat.size());
  auto op = GridReduceOp::create(
      b, loc, flat, workspaces, rowBase, constIdx(1), splitId, splits, writer,
      threadId, valid, counters, row, lastFlag, tid, threadsPerRow, Value());
  SmallVector<RowPart *> partList;
  for (RowPart &part : parts)
    partList.push_back(&part);
  buildStateRegions(partList, op.getIdentity(), op.getCombiner());
  // The caller's per-row results follow inside the last block's region.
  Block *last = beginLastRegion(op);
  unsigned k = 0;
  for (RowPart &part : parts) {
    RowState folded(last->args_begin() + k,
                    last->args_begin() + k + part.width());
    k += part.width();
    finish(part, blockReduceState(part, folded, lane, warp, slot0, warpsPerRow,
                                  multiWarp));
  }
}

} // namespace mlir::fusion::lowering
