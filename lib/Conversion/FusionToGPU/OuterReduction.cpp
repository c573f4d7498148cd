//===- OuterReduction.cpp - lowering of #fusion.outer_reduction -----------===//
// Reductions of leading dims: per-column accumulation, the split of the rows
// over blocks and the grid reduction, and the host program.
//===----------------------------------------------------------------------===//

#include "HostProgram.h"

#include "fusion/Transforms/ShapeReification.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::fusion;

namespace mlir::fusion::lowering {

LogicalResult KernelEmitter::emitOuterReduction(gpu::GPUFuncOp func,
                                                const OuterKernelInfo &info,
                                                int64_t unroll) {
  MLIRContext *ctx = func.getContext();
  Location loc = kernel.getLoc();
  OpBuilder b = OpBuilder::atBlockBegin(&func.getBody().front());
  builder = &b;
  this->loc = loc;
  Type idx = indexType(ctx);
  auto [outputs, sizes, cols] = bindParams(func);
  Value reducedRows = extraArgs[0], splits = extraArgs[1],
        rowsPerSplit = extraArgs[2];
  Value counters = extraBuffers.back();
  Block &body = kernel.getBody().front();
  auto yield = cast<YieldOp>(body.getTerminator());
  int64_t v = variant.vector;
  int64_t p = info.numReduced;
  const int64_t kCols = 32, kRows = 8;

  auto toIdx = [&](Value x) {
    return arith::IndexCastOp::create(b, loc, idx, x).getResult();
  };
  auto cmp = [&](arith::CmpIPredicate pred, Value x, Value y) {
    return arith::CmpIOp::create(b, loc, pred, x, y).getResult();
  };
  auto andI = [&](Value x, Value y) {
    return arith::AndIOp::create(b, loc, x, y).getResult();
  };
  auto workgroup = [&](int64_t n, Type element) {
    return func.addWorkgroupAttribution(
        MemRefType::get({n}, element, MemRefLayoutAttrInterface(),
                        gpu::AddressSpaceAttr::get(
                            ctx, gpu::GPUDialect::getWorkgroupAddressSpace())),
        loc);
  };
  struct Part {
    Operation *op;
    Type acc;
    bool isFloat;
    RedKind kind;
    Value shared, workspace;
  };
  SmallVector<Part> parts;
  for (auto [k, op] : llvm::enumerate(info.reductions)) {
    Type element =
        cast<RankedTensorType>(op->getOperand(0).getType()).getElementType();
    bool isFloat = isa<FloatType>(element);
    Type acc = accumulatorType(element);
    RedKind kind = kindOf(op);
    parts.push_back({op, acc, isFloat, kind, workgroup(kCols * kRows * v, acc),
                     extraBuffers[k]});
  }
  Value flag = workgroup(1, b.getI32Type());

  Value threadId = toIdx(gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x));
  Value blockX = toIdx(gpu::BlockIdOp::create(b, loc, gpu::Dimension::x));
  Value blockY = toIdx(gpu::BlockIdOp::create(b, loc, gpu::Dimension::y));
  Value tx = arith::RemUIOp::create(b, loc, threadId, constIdx(kCols));
  Value ty = arith::DivUIOp::create(b, loc, threadId, constIdx(kCols));
  Value col = arith::MulIOp::create(
      b, loc,
      arith::AddIOp::create(
          b, loc, arith::MulIOp::create(b, loc, blockX, constIdx(kCols)), tx),
      constIdx(v));
  Value colOk = cmp(arith::CmpIPredicate::ult, col, cols);
  Value rowBegin = arith::MulIOp::create(b, loc, blockY, rowsPerSplit);
  Value rowEnd = arith::MinUIOp::create(
      b, loc, arith::AddIOp::create(b, loc, rowBegin, rowsPerSplit),
      reducedRows);
  // Kept dims from the column; reduced dims from the row, per item.
  iterIndex.assign(rank, Value());
  Value rest = col;
  for (int64_t d = rank - 1; d >= p; --d) {
    if (d == p) {
      iterIndex[d] = rest;
    } else {
      iterIndex[d] = arith::RemUIOp::create(b, loc, rest, sizes[d]);
      rest = arith::DivUIOp::create(b, loc, rest, sizes[d]);
    }
  }
  auto setRow = [&](Value row) {
    Value r = row;
    for (int64_t d = p - 1; d >= 0; --d) {
      if (d == 0) {
        iterIndex[d] = r;
      } else {
        iterIndex[d] = arith::RemUIOp::create(b, loc, r, sizes[d]);
        r = arith::DivUIOp::create(b, loc, r, sizes[d]);
      }
    }
  };
  SmallVector<int64_t> identity;
  for (int64_t d = 0; d < rank; ++d)
    identity.push_back(d);
  auto accType = [&](Part &part) -> Type {
    return v > 1 ? Type(VectorType::get({v}, part.acc)) : part.acc;
  };

  // The row loop: `unroll` rows per thread and step, 8 rows apart.
  SmallVector<Value> inits;
  for (Part &part : parts)
    inits.push_back(neutral(part.kind, part.isFloat, accType(part)));
  auto loop =
      scf::ForOp::create(b, loc, arith::AddIOp::create(b, loc, rowBegin, ty),
                         rowEnd, constIdx(kRows * unroll), inits);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(loop.getBody());
    SmallVector<Value> partials(loop.getRegionIterArgs());
    for (int64_t u = 0; u < unroll; ++u) {
      Value row = arith::AddIOp::create(b, loc, loop.getInductionVar(),
                                        constIdx(u * kRows));
      Value inBounds = andI(colOk, cmp(arith::CmpIPredicate::ult, row, rowEnd));
      setRow(row);
      memo.clear();
      loadGuard = inBounds;
      for (auto [k, part] : llvm::enumerate(parts)) {
        FailureOr<Gen> gen = generate(part.op->getOperand(0), identity);
        if (failed(gen))
          return failure();
        Value x = v > 1 ? splat(*gen) : gen->value;
        Type target = accType(part);
        if (x.getType() != target)
          x = widenToAccumulator(x, target, part.isFloat);
        x = arith::SelectOp::create(b, loc, inBounds, x,
                                    neutral(part.kind, part.isFloat, target));
        partials[k] = combine(part.kind, part.isFloat, partials[k], x);
      }
      loadGuard = Value();
    }
    scf::YieldOp::create(b, loc, partials);
  }

  // Folds the 8 row-threads of each column through shared memory; every
  // thread gets its column's total.
  auto foldRows = [&](Part &part, Value partial) -> Value {
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
    Value total = neutral(part.kind, part.isFloat, accType(part));
    for (int64_t t = 0; t < kRows; ++t)
      total = combine(
          part.kind, part.isFloat, total,
          loadShared(arith::MulIOp::create(
              b, loc, arith::AddIOp::create(b, loc, constIdx(t * kCols), tx),
              constIdx(v))));
    gpu::BarrierOp::create(b, loc);
    return total;
  };
  // Writes the results of one column group from the totals.
  auto writeResults = [&](ArrayRef<Value> totals) -> LogicalResult {
    Value writer = andI(colOk, cmp(arith::CmpIPredicate::eq, ty, constIdx(0)));
    auto ifWriter = scf::IfOp::create(b, loc, writer, false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(ifWriter.thenBlock()->getTerminator());
    reduced.clear();
    memo.clear();
    for (auto [part, total] : llvm::zip(parts, totals)) {
      Type element = cast<RankedTensorType>(part.op->getResult(0).getType())
                         .getElementType();
      Type target = v > 1 ? Type(VectorType::get({v}, element)) : element;
      Value r = total;
      if (target != total.getType())
        r = narrowFromAccumulator(total, target, part.isFloat);
      reduced[part.op->getResult(0)] = Gen{r, v > 1};
    }
    for (int64_t d = 0; d < p; ++d)
      iterIndex[d] = constIdx(0);
    for (auto [value, out] : llvm::zip(yield.getOperands(), outputs)) {
      auto type = cast<RankedTensorType>(value.getType());
      SmallVector<int64_t> map =
          type.getRank() == rank
              ? identity
              : SmallVector<int64_t>(ArrayRef<int64_t>(identity).drop_front(p));
      FailureOr<Gen> gen = generate(value, map);
      if (failed(gen))
        return failure();
      store(*gen, type.getElementType(), out, col);
    }
    return success();
  };

  SmallVector<Value> totals;
  for (auto [k, part] : llvm::enumerate(parts))
    totals.push_back(foldRows(part, loop.getResult(k)));
  Value isSplit = cmp(arith::CmpIPredicate::ugt, splits, constIdx(1));
  auto ifSplit = scf::IfOp::create(b, loc, isSplit, true);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(ifSplit.elseBlock()->getTerminator());
    if (failed(writeResults(totals)))
      return failure();
  }
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(ifSplit.thenBlock()->getTerminator());
  // Note [Grid reduction]: each block writes its partials, makes them
  // visible (fence), and one thread counts the block in (fusion.grid_arrive,
  // its description has the protocol); the block that
  // brings the count to S folds all S partials and resets the counter.
  Value writer = andI(colOk, cmp(arith::CmpIPredicate::eq, ty, constIdx(0)));
  Value partialAt = arith::AddIOp::create(
      b, loc, arith::MulIOp::create(b, loc, blockY, cols), col);
  {
    auto ifWriter = scf::IfOp::create(b, loc, writer, false);
    OpBuilder::InsertionGuard g2(b);
    b.setInsertionPoint(ifWriter.thenBlock()->getTerminator());
    for (auto [part, total] : llvm::zip(parts, totals)) {
      if (v > 1)
        vector::StoreOp::create(b, loc, total, part.workspace,
                                toIndex(partialAt));
      else
        memref::StoreOp::create(b, loc, total, part.workspace,
                                toIndex(partialAt));
    }
  }
  Value lastBlock = GridArriveOp::create(b, loc, threadId, Value(), counters,
                                         blockX, splits, flag);
  auto ifLast = scf::IfOp::create(b, loc, lastBlock, false);
  b.setInsertionPoint(ifLast.thenBlock()->getTerminator());
  fence();
  SmallVector<Value> finals;
  for (Part &part : parts) {
    auto fold = scf::ForOp::create(
        b, loc, ty, splits, constIdx(kRows),
        ValueRange{neutral(part.kind, part.isFloat, accType(part))});
    {
      OpBuilder::InsertionGuard g2(b);
      b.setInsertionPointToStart(fold.getBody());
      Value at = arith::AddIOp::create(
          b, loc, arith::MulIOp::create(b, loc, fold.getInductionVar(), cols),
          col);
      auto ifCol =
          scf::IfOp::create(b, loc, TypeRange{accType(part)}, colOk, true);
      {
        OpBuilder::InsertionGuard g3(b);
        b.setInsertionPointToStart(ifCol.thenBlock());
        Value x =
            v > 1 ? vector::LoadOp::create(b, loc, accType(part),
                                           part.workspace, toIndex(at))
                        .getResult()
                  : memref::LoadOp::create(b, loc, part.workspace, toIndex(at))
                        .getResult();
        scf::YieldOp::create(b, loc, x);
        b.setInsertionPointToStart(ifCol.elseBlock());
        scf::YieldOp::create(b, loc,
                             neutral(part.kind, part.isFloat, accType(part)));
      }
      scf::YieldOp::create(b, loc,
                           combine(part.kind, part.isFloat,
                                   fold.getRegionIterArgs()[0],
                                   ifCol.getResult(0)));
    }
    finals.push_back(foldRows(part, fold.getResult(0)));
  }
  if (failed(writeResults(finals)))
    return failure();
  {
    Value isThread0 = cmp(arith::CmpIPredicate::eq, threadId, constIdx(0));
    auto ifFirst = scf::IfOp::create(b, loc, isThread0, false);
    OpBuilder::InsertionGuard g2(b);
    b.setInsertionPoint(ifFirst.thenBlock()->getTerminator());
    memref::StoreOp::create(
        b, loc, arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(0)),
        counters, toIndex(blockX));
  }
  b.setInsertionPointToEnd(&func.getBody().front());
  gpu::ReturnOp::create(b, loc);
  return success();
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
