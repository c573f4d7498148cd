//===- OuterReduction.cpp - lowering of #fusion.outer_reduction -----------===//
// Reductions of leading dims: per-column accumulation, the split of the rows
// over blocks and the grid reduction, and the host program.
//===----------------------------------------------------------------------===//

#include "HostProgram.h"

#include "fusion/Dialect/Fusion/Transforms/ShapeReification.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::fusion;

namespace mlir::fusion::lowering {

/// Writes one outer-reduction variant (Note [Outer reduction lowering]):
/// the parts, the thread indexing, the row loop, the fold of each column's
/// row-threads, then either the results (one split) or the grid reduction
/// (Note [Grid reduction]). Ops are created in the order the IR has them.
class KernelEmitter::OuterReductionWriter : PhaseWriter {
public:
  OuterReductionWriter(KernelEmitter &e, gpu::GPUFuncOp func,
                       const OuterKernelInfo &info, int64_t unroll,
                       OpBuilder &b)
      : PhaseWriter(e, func, b), info(info), unroll(unroll),
        v(e.variant.vector), p(info.numReduced) {}

  LogicalResult write();

private:
  static constexpr int64_t kCols = 32, kRows = 8;

  struct Part {
    Operation *op;
    Type acc;
    bool isFloat;
    RedKind kind;
    Value shared, workspace;
  };

  void makeParts();
  void emitThreadIndexing();
  void setRow(Value row);
  Type accType(Part &part) {
    return v > 1 ? Type(VectorType::get({v}, part.acc)) : part.acc;
  }
  FailureOr<scf::ForOp> emitRowLoop();
  Value foldRows(Part &part, Value partial);
  LogicalResult writeResults(ArrayRef<Value> totals);
  LogicalResult emitGridReduction(ArrayRef<Value> totals);

  const OuterKernelInfo &info;
  int64_t unroll;
  int64_t v, p;

  SmallVector<Value> outputs, sizes;
  Value cols, reducedRows, splits, rowsPerSplit, counters;
  YieldOp yield;
  SmallVector<int64_t> identity;
  SmallVector<Part> parts;
  Value flag;
  Value threadId, blockX, blockY, tx, ty, col, colOk, rowBegin, rowEnd;
};

LogicalResult KernelEmitter::emitOuterReduction(gpu::GPUFuncOp func,
                                                const OuterKernelInfo &info,
                                                int64_t unroll) {
  OpBuilder b = OpBuilder::atBlockBegin(&func.getBody().front());
  builder = &b;
  loc = kernel.getLoc();
  return OuterReductionWriter(*this, func, info, unroll, b).write();
}

LogicalResult KernelEmitter::OuterReductionWriter::write() {
  std::tie(outputs, sizes, cols) = e.bindParams(func);
  reducedRows = e.extraArgs[0];
  splits = e.extraArgs[1];
  rowsPerSplit = e.extraArgs[2];
  counters = e.extraBuffers.back();
  yield = cast<YieldOp>(e.kernel.getBody().front().getTerminator());
  makeParts();
  emitThreadIndexing();
  for (int64_t d = 0; d < rank; ++d)
    identity.push_back(d);
  FailureOr<scf::ForOp> loop = emitRowLoop();
  if (failed(loop))
    return failure();

  SmallVector<Value> totals;
  for (auto [k, part] : llvm::enumerate(parts))
    totals.push_back(foldRows(part, loop->getResult(k)));
  Value isSplit = cmp(arith::CmpIPredicate::ugt, splits, constIdx(1));
  auto ifSplit = scf::IfOp::create(b, loc, isSplit, true);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(ifSplit.elseBlock()->getTerminator());
    if (failed(writeResults(totals)))
      return failure();
  }
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(ifSplit.thenBlock()->getTerminator());
    if (failed(emitGridReduction(totals)))
      return failure();
  }
  b.setInsertionPointToEnd(&func.getBody().front());
  gpu::ReturnOp::create(b, loc);
  return success();
}

/// One part per reduction: its accumulator, a shared tile for the fold of
/// the row-threads and its workspace for the grid reduction; then the flag
/// of the last block.
void KernelEmitter::OuterReductionWriter::makeParts() {
  for (auto [k, op] : llvm::enumerate(info.reductions)) {
    Type element =
        cast<RankedTensorType>(op->getOperand(0).getType()).getElementType();
    bool isFloat = isa<FloatType>(element);
    Type acc = accumulatorType(element);
    RedKind kind = kindOf(op);
    parts.push_back({op, acc, isFloat, kind,
                     addWorkgroupBuffer(func, kCols * kRows * v, acc, loc),
                     e.extraBuffers[k]});
  }
  flag = addWorkgroupBuffer(func, 1, b.getI32Type(), loc);
}

void KernelEmitter::OuterReductionWriter::emitThreadIndexing() {
  threadId = toIdx(gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x));
  blockX = toIdx(gpu::BlockIdOp::create(b, loc, gpu::Dimension::x));
  blockY = toIdx(gpu::BlockIdOp::create(b, loc, gpu::Dimension::y));
  tx = arith::RemUIOp::create(b, loc, threadId, constIdx(kCols));
  ty = arith::DivUIOp::create(b, loc, threadId, constIdx(kCols));
  col = arith::MulIOp::create(
      b, loc,
      arith::AddIOp::create(
          b, loc, arith::MulIOp::create(b, loc, blockX, constIdx(kCols)), tx),
      constIdx(v));
  colOk = cmp(arith::CmpIPredicate::ult, col, cols);
  rowBegin = arith::MulIOp::create(b, loc, blockY, rowsPerSplit);
  rowEnd = arith::MinUIOp::create(
      b, loc, arith::AddIOp::create(b, loc, rowBegin, rowsPerSplit),
      reducedRows);
  // Kept dims from the column; reduced dims from the row, per item.
  e.iterIndex.assign(rank, Value());
  Value rest = col;
  for (int64_t d = rank - 1; d >= p; --d) {
    if (d == p) {
      e.iterIndex[d] = rest;
    } else {
      e.iterIndex[d] = arith::RemUIOp::create(b, loc, rest, sizes[d]);
      rest = arith::DivUIOp::create(b, loc, rest, sizes[d]);
    }
  }
}

void KernelEmitter::OuterReductionWriter::setRow(Value row) {
  Value r = row;
  for (int64_t d = p - 1; d >= 0; --d) {
    if (d == 0) {
      e.iterIndex[d] = r;
    } else {
      e.iterIndex[d] = arith::RemUIOp::create(b, loc, r, sizes[d]);
      r = arith::DivUIOp::create(b, loc, r, sizes[d]);
    }
  }
}

/// The row loop: `unroll` rows per thread and step, 8 rows apart; it
/// carries each part's partial.
FailureOr<scf::ForOp> KernelEmitter::OuterReductionWriter::emitRowLoop() {
  SmallVector<Value> inits;
  for (Part &part : parts)
    inits.push_back(e.neutral(part.kind, part.isFloat, accType(part)));
  auto loop =
      scf::ForOp::create(b, loc, arith::AddIOp::create(b, loc, rowBegin, ty),
                         rowEnd, constIdx(kRows * unroll), inits);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(loop.getBody());
  SmallVector<Value> partials(loop.getRegionIterArgs());
  for (int64_t u = 0; u < unroll; ++u) {
    Value row = arith::AddIOp::create(b, loc, loop.getInductionVar(),
                                      constIdx(u * kRows));
    Value inBounds = andI(colOk, cmp(arith::CmpIPredicate::ult, row, rowEnd));
    setRow(row);
    e.memo.clear();
    e.loadGuard = inBounds;
    for (auto [k, part] : llvm::enumerate(parts)) {
      FailureOr<Gen> gen = e.generate(part.op->getOperand(0), identity);
      if (failed(gen))
        return failure();
      Value x = v > 1 ? e.splat(*gen) : gen->value;
      Type target = accType(part);
      if (x.getType() != target)
        x = e.widenToAccumulator(x, target, part.isFloat);
      x = arith::SelectOp::create(b, loc, inBounds, x,
                                  e.neutral(part.kind, part.isFloat, target));
      partials[k] = e.combine(part.kind, part.isFloat, partials[k], x);
    }
    e.loadGuard = Value();
  }
  scf::YieldOp::create(b, loc, partials);
  return loop;
}

/// Folds the 8 row-threads of each column through shared memory; every
/// thread gets its column's total.
Value KernelEmitter::OuterReductionWriter::foldRows(Part &part, Value partial) {
  Value slot = arith::MulIOp::create(
      b, loc,
      arith::AddIOp::create(
          b, loc, arith::MulIOp::create(b, loc, ty, constIdx(kCols)), tx),
      constIdx(v));
  auto storeShared = [&](Value x, Value at) {
    if (v > 1)
      vector::StoreOp::create(b, loc, x, part.shared, toIndex(at));
    else
      memref::StoreOp::create(b, loc, x, part.shared, toIndex(at));
  };
  auto loadShared = [&](Value at) -> Value {
    if (v > 1)
      return vector::LoadOp::create(b, loc, accType(part), part.shared,
                                    toIndex(at));
    return memref::LoadOp::create(b, loc, part.shared, toIndex(at));
  };
  storeShared(partial, slot);
  gpu::BarrierOp::create(b, loc);
  Value total = e.neutral(part.kind, part.isFloat, accType(part));
  for (int64_t t = 0; t < kRows; ++t)
    total = e.combine(
        part.kind, part.isFloat, total,
        loadShared(arith::MulIOp::create(
            b, loc, arith::AddIOp::create(b, loc, constIdx(t * kCols), tx),
            constIdx(v))));
  gpu::BarrierOp::create(b, loc);
  return total;
}

/// Writes the results of one column group from the totals.
LogicalResult
KernelEmitter::OuterReductionWriter::writeResults(ArrayRef<Value> totals) {
  Value writer = andI(colOk, cmp(arith::CmpIPredicate::eq, ty, constIdx(0)));
  auto ifWriter = scf::IfOp::create(b, loc, writer, false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(ifWriter.thenBlock()->getTerminator());
  e.reduced.clear();
  e.memo.clear();
  for (auto [part, total] : llvm::zip(parts, totals)) {
    Type element = cast<RankedTensorType>(part.op->getResult(0).getType())
                       .getElementType();
    Type target = v > 1 ? Type(VectorType::get({v}, element)) : element;
    Value r = total;
    if (target != total.getType())
      r = e.narrowFromAccumulator(total, target, part.isFloat);
    e.reduced[part.op->getResult(0)] = Gen{r, v > 1};
  }
  for (int64_t d = 0; d < p; ++d)
    e.iterIndex[d] = constIdx(0);
  for (auto [value, out] : llvm::zip(yield.getOperands(), outputs)) {
    auto type = cast<RankedTensorType>(value.getType());
    SmallVector<int64_t> map =
        type.getRank() == rank
            ? identity
            : SmallVector<int64_t>(ArrayRef<int64_t>(identity).drop_front(p));
    FailureOr<Gen> gen = e.generate(value, map);
    if (failed(gen))
      return failure();
    e.store(*gen, type.getElementType(), out, col);
  }
  return success();
}

// Note [Grid reduction]: each block writes its partials, makes them
// visible (fence), and one thread counts the block in; the block that
// brings the count to S resets the counter, folds all S partials and
// writes the results (fusion.grid_reduce, its description has the
// protocol). A thread folds its column's partials 8 splits apart; the
// row-threads then fold theirs with foldRows.
LogicalResult
KernelEmitter::OuterReductionWriter::emitGridReduction(ArrayRef<Value> totals) {
  Value writer = andI(colOk, cmp(arith::CmpIPredicate::eq, ty, constIdx(0)));
  SmallVector<Value> workspaces;
  for (Part &part : parts)
    workspaces.push_back(part.workspace);
  auto op = GridReduceOp::create(b, loc, totals, workspaces, col, cols, blockY,
                                 splits, writer, threadId, Value(), counters,
                                 blockX, flag, ty, constIdx(kRows), colOk);
  e.buildReductionRegions(
      op.getIdentity(), op.getCombiner(), ValueRange(totals).getTypes(),
      [&] {
        SmallVector<Value> neutral;
        for (Part &part : parts)
          neutral.push_back(e.neutral(part.kind, part.isFloat, accType(part)));
        return neutral;
      },
      [&](ValueRange a, ValueRange x) {
        SmallVector<Value> combined;
        for (auto [k, part] : llvm::enumerate(parts))
          combined.push_back(e.combine(part.kind, part.isFloat, a[k], x[k]));
        return combined;
      });
  OpBuilder::InsertionGuard guard(b);
  Block *last = e.beginLastRegion(op);
  SmallVector<Value> finals;
  for (auto [k, part] : llvm::enumerate(parts))
    finals.push_back(foldRows(part, last->getArgument(k)));
  return writeResults(finals);
}

// Note [Outer reduction lowering]: columns are the kept (trailing) dims,
// rows the reduced (leading) ones; see #fusion.outer_reduction. The host
// program picks the split S of the rows per column group from the grid
// target, and allocates the workspaces (S x columns, accumulation type)
// and the counters (zeroed by the runtime; the last block of a group
// resets its counter). Variants and guards are the pointwise ones.
LogicalResult
KernelLowering::lowerOuterReduction(KernelOp kernel,
                                    OuterReductionScheduleAttr schedule) {
  std::string why;
  Operation *culprit = nullptr;
  FailureOr<OuterKernelInfo> info = analyzeOuterKernel(kernel, why, culprit);
  if (failed(info))
    return (culprit ? culprit->emitOpError() : kernel.emitOpError())
           << "cannot be lowered with an outer_reduction schedule: " << why;
  if (failed(checkReadsFusionInputs(kernel)))
    return failure();
  auto fusion = kernel->getParentOfType<FusionOp>();
  RankedTensorType iterType = info->domain;
  int64_t rank = iterType.getRank(), p = info->numReduced;
  int64_t vector = schedule.getVector();
  SmallVector<Variant> variants =
      plainVariants(kernel.getSymName(), vector, schedule.getIndex64(),
                    schedule.getFastMath());

  SmallVector<Type> accTypes;
  for (Operation *op : info->reductions)
    accTypes.push_back(accumulatorType(
        cast<RankedTensorType>(op->getOperand(0).getType()).getElementType()));
  SmallVector<Type> bufferElements(accTypes);
  bufferElements.push_back(IntegerType::get(&getContext(), 32));

  gpu::GPUModuleOp gpuModule = gpuModuleFor(fusion);
  FailureOr<EmittedVariants> emittedOr = emitVariants(
      kernel, gpuModule, variants, iterType, /*block=*/256,
      [&](KernelEmitter &emitter, gpu::GPUFuncOp func) {
        return emitter.emitOuterReduction(func, *info, schedule.getUnroll());
      },
      /*numExtraParams=*/3, bufferElements);
  if (failed(emittedOr))
    return failure();
  EmittedVariants &emitted = *emittedOr;

  OpBuilder b(kernel);
  Location loc = kernel.getLoc();
  HostBuilder h(b, loc);
  FailureOr<SmallVector<Value>> domainSizes =
      reifyReducedDomain(kernel, info->domainValue, info->reductions, h);
  if (failed(domainSizes))
    return failure();
  SmallVector<Value> &sizes = *domainSizes;
  Value rows = h.c(1), cols = h.c(1);
  for (int64_t d = 0; d < rank; ++d)
    (d < p ? rows : cols) = h.mul(d < p ? rows : cols, sizes[d]);
  SmallVector<Value> outputs;
  for (auto [r, type] : llvm::enumerate(kernel.getResultTypes())) {
    auto rt = cast<RankedTensorType>(type);
    SmallVector<Value> dyn;
    for (int64_t d = 0; d < rt.getRank(); ++d) {
      if (!rt.isDynamicDim(d))
        continue;
      FailureOr<Value> size = reifyDim(b, loc, kernel.getResult(r), d);
      if (failed(size))
        return kernel.emitOpError("cannot express result ")
               << r << " dim " << d << " from the inputs";
      dyn.push_back(*size);
    }
    outputs.push_back(EmptyOp::create(b, loc, rt, dyn, nullptr));
  }
  // The split: about `target_blocks` blocks, at least 64 rows per split.
  Value groups = h.ceilDiv(h.ceilDiv(cols, h.c(vector)), h.c(32));
  Value maxSplits = h.max(h.ceilDiv(rows, h.c(64)), h.c(1));
  Value splits = h.max(h.min(h.min(h.ceilDiv(h.c(schedule.getTargetBlocks()),
                                             h.max(groups, h.c(1))),
                                   maxSplits),
                             h.c(65535)),
                       h.c(1));
  Value rowsPerSplit = h.max(h.ceilDiv(rows, splits), h.c(1));
  SmallVector<Value> buffers(outputs);
  for (Type acc : accTypes) {
    Value size = h.mul(h.select(h.lt(h.c(1), splits), splits, h.c(0)), cols);
    buffers.push_back(EmptyOp::create(
        b, loc, RankedTensorType::get({ShapedType::kDynamic}, acc),
        ValueRange{size}, nullptr));
  }
  // Counters for the scalar variants' column groups (the most).
  Value counterSize = h.ceilDiv(cols, h.c(32));
  buffers.push_back(EmptyOp::create(
      b, loc,
      RankedTensorType::get({ShapedType::kDynamic},
                            IntegerType::get(&getContext(), 32)),
      ValueRange{counterSize}, b.getUnitAttr(), b.getUnitAttr()));
  FailureOr<LaunchArgs> launch =
      hostArgs(kernel, fusion, h, sizes, emitted.accesses, emitted.vectorLoaded,
               vector, buffers);
  if (failed(launch))
    return failure();
  for (auto [i, variant] : llvm::enumerate(variants)) {
    Value guard = plainGuard(h, variant, *launch);
    Value grid =
        h.max(h.ceilDiv(h.ceilDiv(cols, h.c(variant.vector)), h.c(32)), h.c(1));
    SmallVector<Value> launchArgs(launch->args);
    launchArgs.push_back(cols);
    launchArgs.append({rows, splits, rowsPerSplit});
    createLaunch(b, loc, h, gpuModule, emitted.funcs[i], guard, grid, splits,
                 h.c(256), launchArgs);
  }
  kernel.replaceAllUsesWith(outputs);
  kernel.erase();
  return success();
}

} // namespace mlir::fusion::lowering
