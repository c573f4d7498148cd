//===- InnerReduction.cpp - lowering of #fusion.inner_reduction -----------===//
// Reductions of the innermost dim and normalization: persistent, streaming,
// staged and split-row variants and their host program.
//===----------------------------------------------------------------------===//

#include "HostProgram.h"

#include "fusion/Transforms/ShapeReification.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::fusion;

namespace mlir::fusion::lowering {

LogicalResult KernelEmitter::emitRowKernel(gpu::GPUFuncOp func,
                                           const RowKernelInfo &info) {
  MLIRContext *ctx = func.getContext();
  Location loc = kernel.getLoc();
  OpBuilder b = OpBuilder::atBlockBegin(&func.getBody().front());
  builder = &b;
  this->loc = loc;
  Type idx = indexType(ctx);
  auto [outputs, sizes, rows] = bindParams(func);
  Value threadsPerRow = extraArgs[0];
  Block &body = kernel.getBody().front();
  auto yield = cast<YieldOp>(body.getTerminator());
  int64_t v = variant.vector;
  bool persistent = variant.items > 0;
  bool split = variant.split;
  int64_t itemsPerChunk = persistent ? variant.items : kStreamItems;
  if (split && (persistent || info.numPasses != 1 || info.hasFullResult()))
    return kernel.emitOpError("a split row variant needs one streaming "
                              "pass and per-row results only");

  // One part per accumulated state: a sum/prod/max/min (one value), a
  // var_mean (Welford: count, mean, centered sum of squares) or an online
  // max with its sum of exp(x - max) (max, sum).
  SmallVector<RowPart> parts;
  for (const RowReduction &r : info.reductions) {
    if (r.onlineMax)
      continue; // computed with its max
    Type element =
        cast<RankedTensorType>(r.op->getOperand(0).getType()).getElementType();
    RowPart part;
    part.reduction = &r;
    part.isFloat = isa<FloatType>(element);
    part.acc = accumulatorType(element);
    part.kind = kindOf(r.op);
    part.state = isa<VarMeanOp>(r.op)            ? RowPart::Welford
                 : isa<ArgmaxOp, ArgminOp>(r.op) ? RowPart::Arg
                 : r.onlineSum                   ? RowPart::Online
                                                 : RowPart::Simple;
    for (size_t c = 0; c < part.width(); ++c)
      part.shared.push_back(func.addWorkgroupAttribution(
          MemRefType::get(
              {32}, part.componentType(c, ctx), MemRefLayoutAttrInterface(),
              gpu::AddressSpaceAttr::get(
                  ctx, gpu::GPUDialect::getWorkgroupAddressSpace())),
          loc));
    parts.push_back(part);
  }
  // Split rows: whether this block is its row's last (Note [Split rows]).
  Value lastFlag;
  if (split)
    lastFlag = func.addWorkgroupAttribution(
        MemRefType::get({1}, b.getI32Type(), MemRefLayoutAttrInterface(),
                        gpu::AddressSpaceAttr::get(
                            ctx, gpu::GPUDialect::getWorkgroupAddressSpace())),
        loc);

  auto toIdx = [&](Value x) {
    return arith::IndexCastOp::create(b, loc, idx, x).getResult();
  };
  auto cmp = [&](arith::CmpIPredicate p, Value x, Value y) {
    return arith::CmpIOp::create(b, loc, p, x, y).getResult();
  };
  auto andI = [&](Value x, Value y) {
    return arith::AndIOp::create(b, loc, x, y).getResult();
  };
  Value threadId = toIdx(gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x));
  Value blockId = toIdx(gpu::BlockIdOp::create(b, loc, gpu::Dimension::x));
  Value blockDim = toIdx(gpu::BlockDimOp::create(b, loc, gpu::Dimension::x));
  Value gridDim = toIdx(gpu::GridDimOp::create(b, loc, gpu::Dimension::x));
  Value tid = arith::RemUIOp::create(b, loc, threadId, threadsPerRow);
  Value ty = arith::DivUIOp::create(b, loc, threadId, threadsPerRow);
  Value rowsPerBlock = arith::DivUIOp::create(b, loc, blockDim, threadsPerRow);
  Value lane = arith::RemUIOp::create(b, loc, tid, constIdx(32));
  Value warp = arith::DivUIOp::create(b, loc, tid, constIdx(32));
  Value warpsPerRow =
      arith::DivUIOp::create(b, loc, threadsPerRow, constIdx(32));
  Value multiWarp = cmp(arith::CmpIPredicate::ugt, threadsPerRow, constIdx(32));
  Value slot0 = arith::MulIOp::create(b, loc, ty, warpsPerRow);
  Value rowLength = sizes[rank - 1];
  Value rowBlocks = arith::DivUIOp::create(
      b, loc,
      arith::AddIOp::create(
          b, loc, rows,
          arith::SubIOp::create(b, loc, rowsPerBlock, constIdx(1))),
      rowsPerBlock);

  SmallVector<int64_t> identity;
  for (int64_t d = 0; d < rank; ++d)
    identity.push_back(d);
  auto rowOf = [&](Value rowBlock) -> Value {
    return arith::AddIOp::create(
        b, loc, arith::MulIOp::create(b, loc, rowBlock, rowsPerBlock), ty);
  };
  auto setOuter = [&](Value r) {
    iterIndex.assign(rank, Value());
    Value rest = r;
    for (int64_t d = rank - 2; d >= 0; --d) {
      if (d == 0) {
        iterIndex[d] = rest;
      } else {
        iterIndex[d] = arith::RemUIOp::create(b, loc, rest, sizes[d]);
        rest = arith::DivUIOp::create(b, loc, rest, sizes[d]);
      }
    }
  };
  auto itemCol = [&](int64_t r) -> Value {
    return arith::MulIOp::create(
        b, loc,
        arith::AddIOp::create(
            b, loc, arith::MulIOp::create(b, loc, constIdx(r), threadsPerRow),
            tid),
        constIdx(v));
  };
  // Note [Row prefetch]: the persistent variant loads the row data of
  // its next row (the loads that depend on the row and the column) before
  // it reduces the current one, so a block keeps loads in flight across
  // its reductions; the values travel in the row loop's iter_args.
  Block &kernelBody = kernel.getBody().front();
  auto loadRow = [&](Value r) {
    SmallVector<Value> values;
    setOuter(r);
    Value rowOk = cmp(arith::CmpIPredicate::ult, r, rows);
    for (int64_t item = 0; item < (persistent ? itemsPerChunk : 0); ++item) {
      Value col = itemCol(item);
      iterIndex[rank - 1] = col;
      loadGuard = andI(rowOk, cmp(arith::CmpIPredicate::ult, col, rowLength));
      for (auto &[k, map] : prefetch) {
        memo.clear();
        values.push_back(load(kernelBody.getArgument(k), map).value);
      }
    }
    loadGuard = Value();
    memo.clear();
    return values;
  };
  SmallVector<Value> prefetched = loadRow(rowOf(blockId));
  auto rowLoop =
      scf::ForOp::create(b, loc, blockId, rowBlocks, gridDim, prefetched);
  if (prefetched.empty())
    b.setInsertionPoint(rowLoop.getBody()->getTerminator());
  else
    b.setInsertionPointToStart(rowLoop.getBody());
  SmallVector<Value> current(rowLoop.getRegionIterArgs().begin(),
                             rowLoop.getRegionIterArgs().end());
  // Note [Staged rows]: each thread stores its vectors of the current row
  // into its own slots of dynamic shared memory and reads them back in
  // every pass, so values derived from them are recomputed per pass
  // instead of held in registers across the row's reductions.
  // Note [Staged rows]: the accesses are volatile through a pointer cast
  // from an integer: the dynamic shared memory is an internal global that
  // nothing else can reach, so LLVM would otherwise forward the stored
  // registers to every load (and drop the stores).
  SmallVector<Value> stageBases; // byte offset of each prefetched input
  Value stagePtr;
  auto elementOf = [&](unsigned k) {
    return cast<RankedTensorType>(kernelBody.getArgument(k).getType())
        .getElementType();
  };
  int64_t bytesPerThread = 0;
  for (auto &entry : prefetch)
    bytesPerThread += variant.items * v * storageBytes(elementOf(entry.first));
  bool stage = variant.stage && persistent && !current.empty() &&
               bytesPerThread * variant.maxBlock <= kMaxStageBytes &&
               llvm::none_of(prefetch, [&](auto &entry) {
                 return elementOf(entry.first).isInteger(1);
               });
  auto stageAddress = [&](unsigned j, int64_t item) -> Value {
    // Byte offset: base_j + ((item * blockDim + threadId) * v) * bytes.
    Value slot = arith::MulIOp::create(
        b, loc,
        arith::AddIOp::create(
            b, loc, arith::MulIOp::create(b, loc, constIdx(item), blockDim),
            threadId),
        constIdx(v * storageBytes(elementOf(prefetch[j].first))));
    Value offset = arith::AddIOp::create(b, loc, stageBases[j], slot);
    return LLVM::GEPOp::create(b, loc, stagePtr.getType(), b.getI8Type(),
                               stagePtr, ValueRange{offset});
  };
  auto stageAlign = [&](unsigned j) {
    return unsigned(v * storageBytes(elementOf(prefetch[j].first)));
  };
  if (stage) {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(rowLoop);
    // The block's dynamic shared memory: an external zero-sized array
    // (PTX `.extern .shared`), declared once per gpu.module. An internal
    // one (what gpu.dynamic_shared_memory lowers to) is demoted by the
    // NVPTX backend to a one-byte static array in the function, which the
    // staged slots would then overrun.
    auto gpuModule = func->getParentOfType<gpu::GPUModuleOp>();
    auto sharedPtr = LLVM::LLVMPointerType::get(
        ctx, static_cast<unsigned>(NVVM::NVVMMemorySpace::Shared));
    if (!SymbolTable::lookupSymbolIn(gpuModule, kDynamicSmemSymbol)) {
      OpBuilder mb = OpBuilder::atBlockBegin(gpuModule.getBody());
      LLVM::GlobalOp::create(
          mb, loc, LLVM::LLVMArrayType::get(b.getI8Type(), 0),
          /*isConstant=*/false, LLVM::Linkage::External, kDynamicSmemSymbol,
          Attribute(), /*alignment=*/16,
          static_cast<unsigned>(NVVM::NVVMMemorySpace::Shared));
    }
    stagePtr = LLVM::AddressOfOp::create(b, loc, sharedPtr, kDynamicSmemSymbol);
    Value count =
        arith::MulIOp::create(b, loc, blockDim, constIdx(variant.items * v));
    Value offset = constIdx(0);
    for (auto &entry : prefetch) {
      int64_t bytes = storageBytes(elementOf(entry.first));
      stageBases.push_back(offset);
      offset = arith::AddIOp::create(
          b, loc, offset,
          arith::MulIOp::create(b, loc, count, constIdx(bytes)));
    }
    func->setAttr("fusion.stage_bytes_per_thread",
                  b.getI64IntegerAttr(bytesPerThread));
  }
  SmallVector<Value> next;
  if (!prefetched.empty())
    next = loadRow(rowOf(
        arith::AddIOp::create(b, loc, rowLoop.getInductionVar(), gridDim)));
  Value row = rowOf(rowLoop.getInductionVar());
  Value valid = cmp(arith::CmpIPredicate::ult, row, rows);
  setOuter(row);
  reduced.clear();
  if (stage) {
    for (int64_t item = 0; item < variant.items; ++item)
      for (unsigned j = 0; j < prefetch.size(); ++j) {
        Value x = current[item * prefetch.size() + j];
        LLVM::StoreOp::create(b, loc, x, stageAddress(j, item), stageAlign(j),
                              /*isVolatile=*/true);
      }
  }

  // Items: the vectors of one chunk of the row a thread takes.
  struct Item {
    Value col, inBounds;
    Memo memo;
    int64_t index = -1; // persistent: the item's prefetched values
  };
  auto makeItems = [&](Value chunkBase) {
    std::vector<Item> items(itemsPerChunk);
    for (int64_t r = 0; r < itemsPerChunk; ++r) {
      Value col = arith::MulIOp::create(
          b, loc,
          arith::AddIOp::create(
              b, loc, arith::MulIOp::create(b, loc, constIdx(r), threadsPerRow),
              tid),
          constIdx(v));
      if (chunkBase)
        col = arith::AddIOp::create(b, loc, chunkBase, col);
      items[r].col = col;
      items[r].index = chunkBase ? -1 : r;
      items[r].inBounds =
          andI(valid, cmp(arith::CmpIPredicate::ult, col, rowLength));
    }
    return items;
  };
  auto activate = [&](Item &item) {
    iterIndex[rank - 1] = item.col;
    loadGuard = item.inBounds;
    std::swap(memo, item.memo);
    if (item.index >= 0 && !current.empty())
      for (auto [j, entry] : llvm::enumerate(prefetch)) {
        Value x = current[item.index * prefetch.size() + j];
        if (stage)
          x = LLVM::LoadOp::create(b, loc, x.getType(),
                                   stageAddress(j, item.index), stageAlign(j),
                                   /*isVolatile=*/true);
        stagedSlots[kernelBody.getArgument(entry.first)] = {
            Gen{x, isa<VectorType>(x.getType())}, entry.second};
      }
  };
  auto deactivate = [&](Item &item) {
    std::swap(memo, item.memo);
    loadGuard = Value();
    stagedSlots.clear();
  };

  // A thread's state of a part over some items (a chunk or all of them).
  auto localState = [&](RowPart &part,
                        std::vector<Item> &items) -> FailureOr<RowState> {
    Type target = v > 1 ? Type(VectorType::get({v}, part.acc)) : part.acc;
    auto gather = [&](SmallVector<Value> &xs) -> LogicalResult {
      for (Item &item : items) {
        activate(item);
        FailureOr<Gen> gen =
            generate(part.reduction->op->getOperand(0), identity);
        deactivate(item);
        if (failed(gen))
          return failure();
        Value x = v > 1 ? splat(*gen) : gen->value;
        if (x.getType() != target)
          x = widenToAccumulator(x, target, part.isFloat);
        xs.push_back(x);
      }
      return success();
    };
    SmallVector<Value> xs;
    if (failed(gather(xs)))
      return failure();
    auto masked = [&](Item &item, Value x, Value fill) {
      return arith::SelectOp::create(b, loc, item.inBounds, x, fill)
          .getResult();
    };
    auto fold = [&](RedKind kind, function_ref<Value(size_t)> value) {
      Value acc = neutral(kind, part.isFloat, target);
      for (size_t i = 0; i < items.size(); ++i)
        acc = combine(
            kind, part.isFloat, acc,
            masked(items[i], value(i), neutral(kind, part.isFloat, target)));
      if (v > 1)
        acc = vector::ReductionOp::create(
            b, loc, combiningKind(kind, part.isFloat), acc);
      return acc;
    };
    auto splatAcc = [&](Value scalar) -> Value {
      return v > 1 ? vector::BroadcastOp::create(b, loc, target, scalar)
                         .getResult()
                   : scalar;
    };
    switch (part.state) {
    case RowPart::Simple:
      return RowState{fold(part.kind, [&](size_t i) { return xs[i]; })};
    case RowPart::Welford: {
      // Count, mean and centered sum of squares of the thread's elements
      // (two passes over its registers), merged across threads later.
      Value n = floatConst(part.acc, 0);
      for (Item &item : items)
        n = arith::AddFOp::create(
            b, loc, n,
            arith::SelectOp::create(b, loc, item.inBounds,
                                    floatConst(part.acc, v),
                                    floatConst(part.acc, 0)));
      Value sum = fold(RedKind::Sum, [&](size_t i) { return xs[i]; });
      Value mean = arith::DivFOp::create(
          b, loc, sum,
          arith::MaximumFOp::create(b, loc, n, floatConst(part.acc, 1)));
      Value meanV = splatAcc(mean);
      // Staged rows read the elements again for the second sweep rather
      // than keep them in registers across it (Note [Staged rows]).
      if (stage && items.front().index >= 0) {
        for (Item &item : items)
          item.memo.clear();
        xs.clear();
        if (failed(gather(xs)))
          return failure();
      }
      Value m2 = fold(RedKind::Sum, [&](size_t i) -> Value {
        Value d = arith::SubFOp::create(b, loc, xs[i], meanV);
        return arith::MulFOp::create(b, loc, d, d);
      });
      return RowState{n, mean, m2};
    }
    case RowPart::Arg: {
      // Each element with its column (Note [Arg reductions]).
      RowState best = neutralState(part);
      Type i64 = b.getI64Type();
      for (auto [i, item] : llvm::enumerate(items)) {
        for (int64_t j = 0; j < v; ++j) {
          Value x =
              v > 1 ? vector::ExtractOp::create(b, loc, xs[i], j).getResult()
                    : xs[i];
          Value col = arith::AddIOp::create(b, loc, item.col, constIdx(j));
          Value index =
              col.getType() == i64
                  ? col
                  : arith::ExtUIOp::create(b, loc, i64, col).getResult();
          RowState merged = combineArg(part, best, {x, index});
          best = {arith::SelectOp::create(b, loc, item.inBounds, merged[0],
                                          best[0]),
                  arith::SelectOp::create(b, loc, item.inBounds, merged[1],
                                          best[1])};
        }
      }
      return best;
    }
    case RowPart::Online: {
      Value m = fold(RedKind::Max, [&](size_t i) { return xs[i]; });
      Value mV = splatAcc(m);
      Value sum = fold(RedKind::Sum, [&](size_t i) -> Value {
        return expOf(arith::SubFOp::create(b, loc, xs[i], mV));
      });
      return RowState{m, sum};
    }
    }
    return failure();
  };
  // Records a part's results from its state folded over the row.
  auto finish = [&](RowPart &part, const RowState &state) {
    auto setResult = [&](Value result, Value acc) {
      Type element = cast<RankedTensorType>(result.getType()).getElementType();
      Value r = acc;
      if (element != acc.getType())
        r = narrowFromAccumulator(acc, element, part.isFloat);
      reduced[result] = Gen{r, false};
    };
    Operation *op = part.reduction->op;
    switch (part.state) {
    case RowPart::Simple:
      setResult(op->getResult(0), state[0]);
      return;
    case RowPart::Welford: {
      auto varMean = cast<VarMeanOp>(op);
      Value dof = arith::MaxSIOp::create(
          b, loc,
          arith::SubIOp::create(b, loc, rowLength,
                                constIdx(varMean.getCorrection())),
          constIdx(0));
      Value var = arith::DivFOp::create(
          b, loc, state[2], arith::SIToFPOp::create(b, loc, part.acc, dof));
      // An empty row's mean is NaN, as 0 / 0 (the state keeps 0).
      Value empty = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                          rowLength, constIdx(0));
      Value mean = arith::SelectOp::create(
          b, loc, empty,
          floatConst(part.acc, std::numeric_limits<double>::quiet_NaN()),
          state[1]);
      setResult(varMean.getMean(), mean);
      setResult(varMean.getVariance(), var);
      return;
    }
    case RowPart::Online:
      setResult(op->getResult(0), state[0]);
      setResult(part.reduction->onlineSum->getResult(0), state[1]);
      return;
    case RowPart::Arg:
      setResult(op->getResult(0), state[1]);
      return;
    }
  };
  SmallVector<RowState> splitStates; // split rows: each part's block state
  auto reduceRow = [&](RowPart &part, const RowState &state) {
    finish(part, blockReduceState(part, state, lane, warp, slot0, warpsPerRow,
                                  multiWarp));
  };

  SmallVector<Value> fullOutputs, rowOutputs;
  SmallVector<Value> fullValues, rowValues;
  for (auto [i, value] : llvm::enumerate(yield.getOperands())) {
    (info.fullResult[i] ? fullOutputs : rowOutputs).push_back(outputs[i]);
    (info.fullResult[i] ? fullValues : rowValues).push_back(value);
  }
  auto storeFull = [&](Item &item) -> LogicalResult {
    activate(item);
    SmallVector<Gen> gens;
    for (Value value : fullValues) {
      FailureOr<Gen> gen = generate(value, identity);
      if (failed(gen)) {
        deactivate(item);
        return failure();
      }
      gens.push_back(*gen);
    }
    deactivate(item);
    auto ifIn = scf::IfOp::create(b, loc, item.inBounds, false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(ifIn.thenBlock()->getTerminator());
    Value offset = arith::AddIOp::create(
        b, loc, arith::MulIOp::create(b, loc, row, rowLength), item.col);
    for (auto [gen, value, out] : llvm::zip(gens, fullValues, fullOutputs))
      store(gen, cast<RankedTensorType>(value.getType()).getElementType(), out,
            offset);
    return success();
  };

  if (persistent) {
    // Note [Persistent rows]: each item keeps its memo across passes, so
    // loads and the work before the reductions are emitted once and the
    // values stay in registers until the epilogue.
    std::vector<Item> items = makeItems(Value());
    // Staged rows recompute from shared memory in every pass (Note
    // [Staged rows]).
    auto prune = [&]() {
      if (stage)
        for (Item &item : items)
          item.memo.clear();
    };
    for (int64_t pass = 0; pass < info.numPasses; ++pass) {
      if (pass > 0)
        prune();
      for (RowPart &part : parts) {
        if (part.reduction->pass != pass)
          continue;
        FailureOr<RowState> state = localState(part, items);
        if (failed(state))
          return failure();
        reduceRow(part, *state);
      }
    }
    prune();
    for (Item &item : items)
      if (failed(storeFull(item)))
        return failure();
  } else {
    // Streaming: one loop over the row per pass, chunks of
    // `itemsPerChunk` vectors per thread, each chunk's state merged into
    // the running one.
    Value chunk = arith::MulIOp::create(b, loc, threadsPerRow,
                                        constIdx(v * itemsPerChunk));
    Value begin = constIdx(0);
    Value end = arith::SelectOp::create(b, loc, valid, rowLength, constIdx(0));
    if (split) {
      // Block y of gridDim.y takes a span of whole chunks of the row.
      Value splitId = toIdx(gpu::BlockIdOp::create(b, loc, gpu::Dimension::y));
      Value splits = toIdx(gpu::GridDimOp::create(b, loc, gpu::Dimension::y));
      auto ceilDiv = [&](Value x, Value y) -> Value {
        return arith::DivUIOp::create(
            b, loc,
            arith::AddIOp::create(
                b, loc, x, arith::SubIOp::create(b, loc, y, constIdx(1))),
            y);
      };
      Value span = arith::MulIOp::create(
          b, loc, ceilDiv(ceilDiv(rowLength, splits), chunk), chunk);
      begin = arith::MulIOp::create(b, loc, splitId, span);
      end = arith::MinUIOp::create(b, loc, end,
                                   arith::AddIOp::create(b, loc, begin, span));
    }
    for (int64_t pass = 0; pass < info.numPasses; ++pass) {
      SmallVector<RowPart *> passParts;
      SmallVector<Value> inits;
      for (RowPart &part : parts) {
        if (part.reduction->pass != pass)
          continue;
        passParts.push_back(&part);
        RowState init = neutralState(part);
        inits.append(init.begin(), init.end());
      }
      auto loop = scf::ForOp::create(b, loc, begin, end, chunk, inits);
      {
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPointToStart(loop.getBody());
        std::vector<Item> items = makeItems(loop.getInductionVar());
        SmallVector<Value> next;
        unsigned at = 0;
        for (RowPart *part : passParts) {
          RowState old(loop.getRegionIterArgs().begin() + at,
                       loop.getRegionIterArgs().begin() + at + part->width());
          at += part->width();
          FailureOr<RowState> local = localState(*part, items);
          if (failed(local))
            return failure();
          RowState merged = combineState(*part, old, *local);
          next.append(merged.begin(), merged.end());
        }
        scf::YieldOp::create(b, loc, next);
      }
      unsigned at = 0;
      for (RowPart *part : passParts) {
        RowState state(loop.getResults().begin() + at,
                       loop.getResults().begin() + at + part->width());
        at += part->width();
        if (split)
          splitStates.push_back(blockReduceState(
              *part, state, lane, warp, slot0, warpsPerRow, multiWarp));
        else
          reduceRow(*part, state);
      }
    }
    if (split)
      foldSplits(parts, splitStates, row, valid, tid, threadId, threadsPerRow,
                 lastFlag, lane, warp, slot0, warpsPerRow, multiWarp, finish);
    if (!fullValues.empty()) {
      auto loop = scf::ForOp::create(b, loc, constIdx(0), end, chunk);
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPoint(loop.getBody()->getTerminator());
      std::vector<Item> items = makeItems(loop.getInductionVar());
      for (Item &item : items)
        if (failed(storeFull(item)))
          return failure();
    }
  }

  // Per-row results: computed by every thread, written by the row's first.
  if (!rowValues.empty()) {
    memo.clear();
    iterIndex[rank - 1] = constIdx(0);
    loadGuard = valid;
    SmallVector<Gen> gens;
    for (Value value : rowValues) {
      auto type = cast<RankedTensorType>(value.getType());
      FailureOr<Gen> gen = generate(
          value, ArrayRef<int64_t>(identity).take_front(type.getRank()));
      if (failed(gen))
        return failure();
      gens.push_back(*gen);
    }
    loadGuard = Value();
    Value first = andI(valid, cmp(arith::CmpIPredicate::eq, tid, constIdx(0)));
    auto ifFirst = scf::IfOp::create(b, loc, first, false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(ifFirst.thenBlock()->getTerminator());
    for (auto [gen, value, out] : llvm::zip(gens, rowValues, rowOutputs)) {
      Type element = cast<RankedTensorType>(value.getType()).getElementType();
      Value x = gen.value;
      if (element.isInteger(1))
        x = arith::ExtUIOp::create(b, loc, b.getI8Type(), x);
      memref::StoreOp::create(b, loc, x, out, toIndex(row));
    }
  }
  if (!prefetched.empty()) {
    b.setInsertionPointToEnd(rowLoop.getBody());
    scf::YieldOp::create(b, loc, next);
  }
  b.setInsertionPointToEnd(&func.getBody().front());
  gpu::ReturnOp::create(b, loc);
  return success();
}

// Note [Inner reduction lowering]: rows are the outer dims; `T` threads
// reduce a row (a parameter computed at launch from the row length, see
// Note [Inner reduction heuristic]) and a block of `max(block, T)` threads
// takes `block / T` rows at a time. Variants, tried in order: persistent
// (the row stays in registers) vectorized and scalar when the row fits,
// then streaming (one read of the row per pass) vectorized, scalar 32-bit
// and scalar 64-bit. The guards are the pointwise ones plus the row-length
// bound of the persistent variants.
LogicalResult
KernelLowering::lowerRowKernel(KernelOp kernel,
                               InnerReductionScheduleAttr schedule) {
  std::string why;
  Operation *culprit = nullptr;
  FailureOr<RowKernelInfo> info = analyzeRowKernel(kernel, why, culprit);
  if (failed(info))
    return (culprit ? culprit->emitOpError() : kernel.emitOpError())
           << "cannot be lowered with an inner_reduction schedule: " << why;
  if (failed(checkReadsFusionInputs(kernel)))
    return failure();
  auto fusion = kernel->getParentOfType<FusionOp>();
  RankedTensorType iterType = info->domain;
  int64_t rank = iterType.getRank();
  int64_t vector = schedule.getVector();
  int64_t items = info->hasFullResult() ? schedule.getItems() : 0;
  bool index64 = schedule.getIndex64();
  std::string base = kernel.getSymName().str();
  std::string ix = index64 ? "_i64" : "_i32";
  std::string vname = "v" + std::to_string(vector);
  SmallVector<Variant> variants;
  if (items > 0) {
    if (vector > 1) {
      variants.push_back({vector, index64, base + "_p" + vname + ix});
      variants.back().items = items;
    }
    variants.push_back({1, index64, base + "_ps" + ix});
    variants.back().items = std::max<int64_t>(1, vector * items / 2);
  }
  variants.append(plainVariants(base, vector, index64, schedule.getFastMath()));
  for (Variant &variant : variants) {
    variant.fastMath = schedule.getFastMath();
    variant.stage =
        variant.items > 0 && variant.vector > 1 && schedule.getStageRow();
    variant.maxBlock = std::max(schedule.getBlock(), kMaxRowThreads);
  }
  // Split-row variants, tried first (Note [Split rows]): per-row results
  // of one pass, 32-bit offsets.
  SmallVector<Variant> splitVariants;
  SmallVector<Type> stateElements;
  if (!info->hasFullResult() && info->numPasses == 1 && !index64) {
    if (vector > 1)
      splitVariants.push_back({vector, false, base + "_g" + vname + "_i32"});
    splitVariants.push_back({1, false, base + "_gs_i32"});
    for (Variant &variant : splitVariants) {
      variant.split = true;
      variant.fastMath = schedule.getFastMath();
    }
    for (const RowReduction &r : info->reductions) {
      if (r.onlineMax)
        continue;
      Type acc =
          accumulatorType(cast<RankedTensorType>(r.op->getOperand(0).getType())
                              .getElementType());
      if (isa<ArgmaxOp, ArgminOp>(r.op)) {
        // (value, index): Note [Arg reductions].
        stateElements.push_back(acc);
        stateElements.push_back(IntegerType::get(&getContext(), 64));
        continue;
      }
      int64_t width = isa<VarMeanOp>(r.op) ? 3 : r.onlineSum ? 2 : 1;
      stateElements.append(width, acc);
    }
    stateElements.push_back(IntegerType::get(&getContext(), 32));
  }

  gpu::GPUModuleOp gpuModule = gpuModuleFor(fusion);
  SmallVector<gpu::GPUFuncOp> splitFuncs;
  if (!splitVariants.empty()) {
    FailureOr<EmittedVariants> emittedSplit = emitVariants(
        kernel, gpuModule, splitVariants, iterType, /*block=*/std::nullopt,
        [&](KernelEmitter &emitter, gpu::GPUFuncOp func) {
          return emitter.emitRowKernel(func, *info);
        },
        /*numExtraParams=*/1, stateElements);
    if (failed(emittedSplit))
      return failure();
    splitFuncs = emittedSplit->funcs;
  }
  FailureOr<EmittedVariants> emitted = emitVariants(
      kernel, gpuModule, variants, iterType, /*block=*/std::nullopt,
      [&](KernelEmitter &emitter, gpu::GPUFuncOp func) {
        if (emitter.getVariant().items > 0) {
          // A probe emission finds the loads that depend on the row and
          // the column: those are prefetched (Note [Row prefetch]).
          KernelEmitter probe(kernel, emitter.getVariant(), iterType);
          probe.numExtraParams = 1;
          OpBuilder pb(func);
          auto probeFunc = gpu::GPUFuncOp::create(
              pb, kernel.getLoc(), "probe", probe.signature(&getContext()));
          probe.recordLoads = true;
          LogicalResult ok = probe.emitRowKernel(probeFunc, *info);
          probeFunc.erase();
          if (failed(ok))
            return failure();
          for (auto &entry : probe.loadLog) {
            ArrayRef<int64_t> map = entry.second;
            bool inner = !map.empty() && map.back() == rank - 1;
            bool outer = llvm::any_of(map.drop_back(), [&](int64_t it) {
              return it >= 0 && it < rank - 1;
            });
            if (inner && outer)
              emitter.prefetch.push_back(entry);
          }
        }
        if (emitter.getVariant().items > 0 && innerMinBlocks > 0)
          func->setAttr("nvvm.minctasm",
                        IntegerAttr::get(IntegerType::get(&getContext(), 32),
                                         innerMinBlocks));
        return emitter.emitRowKernel(func, *info);
      },
      /*numExtraParams=*/1);
  if (failed(emitted))
    return failure();
  auto &[funcs, vectorLoaded, accesses] = *emitted;

  OpBuilder b(kernel);
  Location loc = kernel.getLoc();
  HostBuilder h(b, loc);
  SmallVector<Operation *> reductionOps;
  for (const RowReduction &r : info->reductions)
    reductionOps.push_back(r.op);
  FailureOr<SmallVector<Value>> domainSizes =
      reifyReducedDomain(kernel, info->domainValue, reductionOps, h);
  if (failed(domainSizes))
    return failure();
  SmallVector<Value> &sizes = *domainSizes;
  Value rows = h.c(1);
  for (int64_t d = 0; d + 1 < rank; ++d)
    rows = h.mul(rows, sizes[d]);
  SmallVector<Value> outputs;
  for (auto [r, type] : llvm::enumerate(kernel.getResultTypes())) {
    auto rt = cast<RankedTensorType>(type);
    SmallVector<Value> dyn;
    for (int64_t d = 0; d < rt.getRank(); ++d) {
      if (!rt.isDynamicDim(d) && !(info->fullResult[r] || d + 1 < rank))
        continue;
      FailureOr<Value> size = reifyDim(b, loc, kernel.getResult(r), d);
      if (failed(size))
        return kernel.emitOpError("cannot express result ")
               << r << " dim " << d << " from the inputs";
      if (d < rank && (info->fullResult[r] || d + 1 < rank))
        checkSameSize(h, *size, sizes[d],
                      "result " + Twine(r) + " dim " + Twine(d) +
                          " must equal dim " + Twine(d) +
                          " of the reduced "
                          "tensor");
      if (rt.isDynamicDim(d))
        dyn.push_back(*size);
    }
    outputs.push_back(EmptyOp::create(b, loc, rt, dyn, nullptr));
  }
  FailureOr<LaunchArgs> launch = hostArgs(kernel, fusion, h, sizes, accesses,
                                          vectorLoaded, vector, outputs);
  if (failed(launch))
    return failure();
  Value rowLength = sizes[rank - 1];
  // An arg reduction over an empty dim has no answer (as in PyTorch and
  // the interpreter): rows > 0 need a row length > 0.
  for (const RowReduction &r : info->reductions)
    if (isa<ArgmaxOp, ArgminOp>(r.op)) {
      Value answerable =
          h.select(h.lt(h.c(0), rows), h.lt(h.c(0), rowLength), h.c(1));
      CheckOp::create(b, loc, h.eq(answerable, h.c(1)),
                      (r.op->getName().stripDialect() +
                       " over an empty dim: there is no extreme element "
                       "(rows with elements)")
                          .str(),
                      answerable, h.c(1));
    }
  if (!splitFuncs.empty()) {
    // About max_grid / 4 blocks of 512 threads (4 per SM by default), at
    // least one chunk of the streaming loop per block.
    Value targetBlocks = h.c(std::max<int64_t>(schedule.getMaxGrid() / 4, 1));
    auto splitsFor = [&](int64_t vec) {
      Value chunk = h.c(kMaxRowThreads * vec * KernelEmitter::kStreamItems);
      Value splits = h.min(h.ceilDiv(targetBlocks, h.max(rows, h.c(1))),
                           h.ceilDiv(rowLength, chunk));
      return h.max(h.min(splits, h.c(65535)), h.c(1));
    };
    // The scalar variant splits the most: the buffers fit it.
    Value most = splitsFor(1);
    Value used = h.lt(h.c(1), most);
    Value slots = h.select(used, h.mul(rows, most), h.c(0));
    SmallVector<Value> extra;
    for (Type element : ArrayRef<Type>(stateElements).drop_back())
      extra.push_back(EmptyOp::create(
          b, loc, RankedTensorType::get({ShapedType::kDynamic}, element),
          ValueRange{slots}, nullptr));
    extra.push_back(EmptyOp::create(
        b, loc,
        RankedTensorType::get({ShapedType::kDynamic},
                              IntegerType::get(&getContext(), 32)),
        ValueRange{h.select(used, rows, h.c(0))}, b.getUnitAttr(),
        b.getUnitAttr()));
    SmallVector<Value> splitArgs(launch->args);
    splitArgs.insert(splitArgs.end() - rank, extra.begin(), extra.end());
    splitArgs.push_back(rows);
    splitArgs.push_back(h.c(kMaxRowThreads));
    for (auto [variant, func] : llvm::zip(splitVariants, splitFuncs)) {
      Value splits = splitsFor(variant.vector);
      Value guard = h.mul(h.lt(h.c(1), splits), launch->fits32);
      guard = h.mul(guard, h.lt(h.c(0), rows));
      // The scalar split only where the vectorized variants cannot run:
      // a row a vectorized block streams alone beats scalar loads.
      if (variant.vector > 1)
        guard = h.mul(guard, launch->vecOk);
      else if (vector > 1)
        guard = h.mul(guard, h.sub(h.c(1), launch->vecOk));
      createLaunch(b, loc, h, gpuModule, func, guard, rows, splits,
                   h.c(kMaxRowThreads), splitArgs);
    }
  }
  Value blockTarget = h.c(schedule.getBlock());
  for (auto [i, variant] : llvm::enumerate(variants)) {
    Value guard = plainGuard(h, variant, *launch);
    int64_t perThread =
        variant.vector *
        (variant.items > 0 ? variant.items : KernelEmitter::kStreamItems);
    if (variant.items > 0) {
      Value fits = h.lt(rowLength, h.c(kMaxRowThreads * perThread + 1));
      guard = guard ? h.mul(guard, fits) : fits;
    }
    // T: a multiple of 32 with `perThread` elements each, 32 to 512.
    Value threads = h.mul(
        h.ceilDiv(h.ceilDiv(rowLength, h.c(perThread)), h.c(32)), h.c(32));
    threads = h.min(h.max(threads, h.c(32)), h.c(kMaxRowThreads));
    Value rowsPerBlock = h.max(h.floorDiv(blockTarget, threads), h.c(1));
    Value blockSize = h.mul(threads, rowsPerBlock);
    Value grid =
        h.max(h.min(h.ceilDiv(rows, rowsPerBlock), h.c(schedule.getMaxGrid())),
              h.c(1));
    SmallVector<Value> launchArgs(launch->args);
    launchArgs.push_back(rows);
    launchArgs.push_back(threads);
    Value smem = h.c(0);
    if (auto bytes = funcs[i]->getAttrOfType<IntegerAttr>(
            "fusion.stage_bytes_per_thread"))
      smem = h.mul(blockSize, h.c(bytes.getInt()));
    createLaunch(b, loc, h, gpuModule, funcs[i], guard, grid, h.c(1), blockSize,
                 launchArgs, smem);
  }
  kernel.replaceAllUsesWith(outputs);
  kernel.erase();
  return success();
}

} // namespace mlir::fusion::lowering
