//===- InnerReductionKernel.cpp - one inner-reduction variant's body ------===//
// KernelEmitter::emitRowKernel: the gpu.func body of one variant of an
// inner reduction or normalization (Note [Inner reduction lowering] in
// InnerReduction.cpp, which makes the variants and the host program).
//===----------------------------------------------------------------------===//

#include "KernelEmitter.h"
#include "fusion/Dialect/Fusion/IR/ScheduleLimits.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

#include <limits>

using namespace mlir;
using namespace mlir::fusion;

namespace mlir::fusion::lowering {

/// Writes one row-kernel variant, in the order of its phases: the parts
/// (one per accumulated state), the thread indexing, the row loop with its
/// prefetch (Note [Row prefetch]) and staging (Note [Staged rows]), the
/// passes over the row (persistent or streaming, split or not), the
/// full-size results and the per-row results. The order the ops are created
/// in is the order the IR has, so phases must not be reordered.
class KernelEmitter::RowKernelWriter : PhaseWriter {
public:
  RowKernelWriter(KernelEmitter &e, gpu::GPUFuncOp func,
                  const RowKernelInfo &info, OpBuilder &b)
      : PhaseWriter(e, func, b), info(info),
        kernelBody(e.kernel.getBody().front()) {}

  LogicalResult write();

private:
  /// The vectors of one chunk of the row a thread takes.
  struct Item {
    Value col, inBounds;
    /// Ragged rows' edge vectors: the lanes inside the row (null: all).
    Value laneMask;
    Memo memo;
    int64_t index = -1; // persistent: the item's prefetched values
  };

  LogicalResult makeParts();
  void emitThreadIndexing();
  void mapRows(bool loading);
  void exchangeStates(ArrayRef<RowPart *> passParts,
                      SmallVector<RowState> &states);
  void loadingRowStates(ArrayRef<RowPart *> passParts,
                        ArrayRef<RowState> states);
  void setOuter(Value r);
  Value rowOf(Value rowBlock);
  Value itemCol(int64_t r);
  SmallVector<Value> loadRow(Value r);
  SmallVector<Value> loadItems(Value base, Value ok, Value end,
                               Value lo = Value(), Value frame = Value(),
                               Value copyBuffer = Value());
  bool wantsAsyncStage();
  void copyRow(Value r, Value buffer, bool skipPast = false);
  void bulkCopyRow(Value r, Value buffer);
  Value toI32(Value x);
  SmallVector<Value> loadChunk(Value chunkBase, Value end);
  scf::ForOp chunkLoop(Value begin, Value end, Value chunk,
                       SmallVector<Value> inits);
  void endChunkLoop(scf::ForOp loop, ArrayRef<Value> states = {});
  Type elementOf(unsigned k);
  int64_t stagedBytesPerThread();
  bool stageable(int64_t copies, int64_t limit = kMaxStageBytes);
  void planStaging();
  Value stageOffset(unsigned j, int64_t item, Value buffer = Value());
  std::vector<Item> makeItems(Value chunkBase);
  Value shiftOf(Value r);
  Value wholeEnd(Value stop);
  void planRagged(Value end);
  Item edgeItem();
  void activate(Item &item);
  void deactivate(Item &item);
  LogicalResult gather(RowPart &part, std::vector<Item> &items, Type target,
                       SmallVector<Value> &xs);
  Value masked(Item &item, Value x, Value fill);
  Value fold(RowPart &part, std::vector<Item> &items, Type target, RedKind kind,
             function_ref<Value(size_t)> value, bool mask = true);
  Value splatAcc(Type target, Value scalar);
  FailureOr<RowState> localState(RowPart &part, std::vector<Item> &items);
  FailureOr<RowState> welfordState(RowPart &part, std::vector<Item> &items,
                                   Type target, SmallVector<Value> &xs);
  RowState argState(RowPart &part, std::vector<Item> &items,
                    ArrayRef<Value> xs);
  void setResult(RowPart &part, Value result, Value acc);
  void finish(RowPart &part, const RowState &state);
  void reduceRow(RowPart &part, const RowState &state);
  FailureOr<SmallVector<Gen>> fullResultsAt(Item &item);
  LogicalResult storeFull(Item &item);
  LogicalResult storeColumnResults(Value chunk);
  LogicalResult emitPersistent();
  LogicalResult emitStreaming();
  LogicalResult emitStreamingPass(int64_t pass, Value begin, Value end,
                                  Value chunk);
  LogicalResult storeRowResults();

  const RowKernelInfo &info;
  Block &kernelBody;

  // The variant.
  int64_t v = 1;
  bool persistent = false, split = false;
  /// Cluster rows (Note [Cluster rows] in InnerReduction.cpp): a row per
  /// cluster, each block a span of it; persistent too (Note [Cluster
  /// persistent rows]), each block's span starting at column `spanBase`.
  bool cluster = false;
  Value spanBase;
  /// Cluster rows: the round of this row's cluster reductions, the row
  /// loop's iteration count (Note [Cluster reductions through mbarriers]).
  Value clusterRound;
  int64_t itemsPerChunk = 0;
  bool ragged = false;
  /// Rows of transposed inputs (Note [Column-major rows] in
  /// InnerReduction.cpp): the chunk loop runs with the loading mapping
  /// (`tyLoad`, `tidLoad`: lanes along the rows), then each thread's states
  /// move through `exchange` (per part, per state component) to the thread
  /// of the usual mapping for the row's reduction.
  bool columns = false;
  Value tyLoad, tidLoad;
  SmallVector<SmallVector<Value>> exchange;

  // Parameters and results.
  SmallVector<Value> outputs, sizes;
  Value rows, threadsPerRow, rowLength;
  SmallVector<Value> fullOutputs, rowOutputs, fullValues, rowValues;
  SmallVector<int64_t> identity;

  SmallVector<RowPart> parts;
  Value lastFlag; // split rows: whether this block is its row's last

  // Thread indexing. Cluster rows: blockId and gridDim are the cluster's id
  // and the number of clusters; clusterRank and clusterSize the block's place
  // in its cluster and the cluster's size.
  Value threadId, blockId, blockDim, gridDim, tid, ty, rowsPerBlock, lane, warp,
      warpsPerRow, multiWarp, slot0, rowBlocks, clusterRank, clusterSize;

  // The row loop and the prefetched values (Note [Row prefetch]).
  scf::ForOp rowLoop;
  SmallVector<Value> prefetched, current, next;
  Value row, valid;

  // Staged rows (Note [Staged rows]).
  bool stage = false;
  SmallVector<Value> stageBases; // byte offset of each prefetched input
  // Async staged rows (Note [Async staged rows]): two buffers of
  // `stageBufferBytes`, the current row in buffer `parity`.
  bool asyncStage = false;
  Value stageBufferBytes, parity;
  // Bulk staged rows (Note [Bulk staged rows]): the copies complete on
  // mbarrier `buffer` of these two.
  bool bulkStage = false;
  Value bulkBarriers;
  SmallVector<Type> stageTypes; // each prefetched input's vector

  SmallVector<RowState> splitStates; // split rows: each part's block state

  // Streaming loops: the next chunk's loads (Note [Chunk prefetch]).
  SmallVector<Value> chunkNext;

  // Ragged rows (Note [Ragged rows]): the row's start modulo the width,
  // the end of its whole vectors (in the shifted frame) and whether its
  // head and tail vectors hold elements.
  Value shift, bodyEnd, headOn, tailOn;
};

LogicalResult KernelEmitter::emitRowKernel(gpu::GPUFuncOp func,
                                           const RowKernelInfo &info) {
  OpBuilder b = OpBuilder::atBlockBegin(&func.getBody().front());
  builder = &b;
  loc = kernel.getLoc();
  return RowKernelWriter(*this, func, info, b).write();
}

LogicalResult KernelEmitter::RowKernelWriter::write() {
  std::tie(outputs, sizes, rows) = e.bindParams(func);
  threadsPerRow = e.extraArgs[0];
  v = e.variant.vector;
  persistent = e.variant.items > 0;
  split = e.variant.split;
  cluster = e.variant.cluster;
  itemsPerChunk = persistent ? e.variant.items : kStreamItems;
  ragged = e.variant.ragged && !split && !cluster && v > 1;
  if (split && (persistent || info.numPasses != 1 || info.hasFullResult()))
    return e.kernel.emitOpError("a split row variant needs one streaming "
                                "pass and per-row results only");
  if (cluster && split)
    return e.kernel.emitOpError("a row is split over a cluster or over the "
                                "grid, not both");
  columns = e.variant.columnRows;
  if (columns && (persistent || split || cluster || v != 1))
    return e.kernel.emitOpError("a column-major row variant is scalar and "
                                "streaming, with a block's own rows");
  if (failed(makeParts()))
    return failure();
  emitThreadIndexing();
  if (cluster) {
    SmallVector<Value> barriers;
    for (RowPart &part : parts)
      barriers.push_back(part.clusterBarriers);
    ClusterReduceInitOp::create(b, loc, barriers);
  }
  if (cluster && persistent)
    spanBase = arith::MulIOp::create(
        b, loc, clusterRank,
        arith::MulIOp::create(b, loc, threadsPerRow,
                              constIdx(v * e.variant.items)));
  for (int64_t d = 0; d < rank; ++d)
    identity.push_back(d);

  asyncStage = wantsAsyncStage();
  if (asyncStage) {
    // Note [Async staged rows]: this block's first row into buffer 0; each
    // iteration copies the next row into the other buffer and waits for
    // all but that copy.
    stage = true;
    planStaging();
    bulkStage = e.variant.bulkStage;
    if (bulkStage) {
      // Note [Bulk staged rows]: two mbarriers, one per buffer, each
      // expecting one arrival per row of the block.
      bulkBarriers = addWorkgroupBuffer(func, 2, b.getI64Type(), loc);
      auto init = scf::IfOp::create(
          b, loc, cmp(arith::CmpIPredicate::eq, threadId, constIdx(0)), false);
      {
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPoint(init.thenBlock()->getTerminator());
        Value count = toI32(rowsPerBlock);
        for (int64_t i = 0; i < 2; ++i)
          MBarrierInitOp::create(b, loc, bulkBarriers,
                                 arith::ConstantIndexOp::create(b, loc, i),
                                 count);
      }
      FenceAsyncSharedOp::create(b, loc);
      gpu::BarrierOp::create(b, loc);
      bulkCopyRow(rowOf(blockId), constIdx(0));
    } else {
      copyRow(rowOf(blockId), constIdx(0));
      StageCommitOp::create(b, loc);
    }
    rowLoop = scf::ForOp::create(b, loc, blockId, rowBlocks, gridDim,
                                 ValueRange{constIdx(0)});
    b.setInsertionPointToStart(rowLoop.getBody());
    parity = rowLoop.getRegionIterArgs()[0];
    Value nextRow = rowOf(
        arith::AddIOp::create(b, loc, rowLoop.getInductionVar(), gridDim));
    Value other = arith::SubIOp::create(b, loc, constIdx(1), parity);
    if (bulkStage) {
      // The other buffer was read in the previous iteration: every thread
      // is done with it before the copy engine writes it again.
      gpu::BarrierOp::create(b, loc);
      FenceAsyncSharedOp::create(b, loc);
      bulkCopyRow(nextRow, other);
      // This buffer's barrier completes once every second iteration: its
      // phase is the parity of this iteration's index halved.
      Value round = arith::DivUIOp::create(
          b, loc,
          arith::SubIOp::create(b, loc, rowLoop.getInductionVar(), blockId),
          gridDim);
      Value phase = arith::AndIOp::create(
          b, loc, arith::ShRUIOp::create(b, loc, round, constIdx(1)),
          constIdx(1));
      MBarrierWaitOp::create(b, loc, bulkBarriers, toIndex(parity),
                             toI32(phase));
    } else {
      // Note [Prefetch past the end]: a block's last row has no next row to
      // copy; its copies would all be masked, and their addresses and
      // masks cost 32 SASS instructions per thread (4% of layer_norm's row
      // of 16384 elements, where each block takes one row). The copy is
      // skipped instead; the empty group still commits, so the waits count
      // the same groups.
      copyRow(nextRow, other, /*skipPast=*/true);
      StageCommitOp::create(b, loc);
      StageWaitOp::create(b, loc, 1);
    }
  } else {
    prefetched = loadRow(rowOf(blockId));
    rowLoop =
        scf::ForOp::create(b, loc, blockId, rowBlocks, gridDim, prefetched);
    if (prefetched.empty())
      b.setInsertionPoint(rowLoop.getBody()->getTerminator());
    else
      b.setInsertionPointToStart(rowLoop.getBody());
    current.assign(rowLoop.getRegionIterArgs().begin(),
                   rowLoop.getRegionIterArgs().end());
    planStaging();
    if (!prefetched.empty())
      next = loadRow(rowOf(
          arith::AddIOp::create(b, loc, rowLoop.getInductionVar(), gridDim)));
  }
  if (columns)
    mapRows(/*loading=*/true);
  row = rowOf(rowLoop.getInductionVar());
  valid = cmp(arith::CmpIPredicate::ult, row, rows);
  if (cluster)
    clusterRound = arith::DivUIOp::create(
        b, loc,
        arith::SubIOp::create(b, loc, rowLoop.getInductionVar(), blockId),
        gridDim);
  setOuter(row);
  e.reduced.clear();
  if (stage && !asyncStage) {
    for (int64_t item = 0; item < e.variant.items; ++item)
      for (unsigned j = 0; j < e.prefetch.size(); ++j) {
        Value x = current[item * e.prefetch.size() + j];
        StageStoreOp::create(b, loc, x, stageOffset(j, item));
      }
  }

  auto yield = cast<YieldOp>(kernelBody.getTerminator());
  for (auto [i, value] : llvm::enumerate(yield.getOperands())) {
    (info.fullResult[i] ? fullOutputs : rowOutputs).push_back(outputs[i]);
    (info.fullResult[i] ? fullValues : rowValues).push_back(value);
  }
  if (failed(persistent ? emitPersistent() : emitStreaming()))
    return failure();
  if (failed(storeRowResults()))
    return failure();
  if (!prefetched.empty()) {
    b.setInsertionPointToEnd(rowLoop.getBody());
    scf::YieldOp::create(b, loc, next);
  }
  if (asyncStage) {
    b.setInsertionPointToEnd(rowLoop.getBody());
    scf::YieldOp::create(
        b, loc, ValueRange{arith::SubIOp::create(b, loc, constIdx(1), parity)});
    // The last iteration's copy (of a row past the end: zeros) lands
    // before the block exits (bulk copies: that row has no bytes).
    if (!bulkStage) {
      b.setInsertionPointAfter(rowLoop);
      StageWaitOp::create(b, loc, 0);
    }
  }
  b.setInsertionPointToEnd(&func.getBody().front());
  gpu::ReturnOp::create(b, loc);
  return success();
}

/// One part per accumulated state: a sum/prod/max/min (one value), a
/// var_mean (Welford: count, mean, centered sum of squares) or an online
/// max with its sum of exp(x - max) (max, sum); each state component gets a
/// shared array for the block reduction. Split rows get a flag too.
LogicalResult KernelEmitter::RowKernelWriter::makeParts() {
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
    part.components = rowStateComponents(r);
    for (size_t c = 0; c < part.width(); ++c)
      part.shared.push_back(
          addWorkgroupBuffer(func, 32, part.componentType(c), loc));
    parts.push_back(part);
  }
  // Cluster rows: each state component's slots for the cluster reduction,
  // two sets of one per block, alternating from row to row, and each
  // part's two mbarriers (Note [Cluster reductions through mbarriers]).
  if (cluster)
    for (RowPart &part : parts) {
      for (size_t c = 0; c < part.width(); ++c)
        part.clusterSlots.push_back(addWorkgroupBuffer(
            func, 2 * kMaxClusterBlocks, part.componentType(c), loc));
      part.clusterBarriers = addWorkgroupBuffer(func, 2, b.getI64Type(), loc);
    }
  // Column-major rows: a slot per thread for each state component.
  if (columns)
    for (RowPart &part : parts) {
      SmallVector<Value> &buffers = exchange.emplace_back();
      for (size_t c = 0; c < part.width(); ++c)
        buffers.push_back(addWorkgroupBuffer(func, kMaxRowBlockThreads,
                                             part.componentType(c), loc));
    }
  // Split rows: whether this block is its row's last (Note [Split rows]).
  if (split)
    lastFlag = addWorkgroupBuffer(func, 1, b.getI32Type(), loc);
  return success();
}

void KernelEmitter::RowKernelWriter::emitThreadIndexing() {
  threadId = toIdx(gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x));
  if (cluster) {
    // Every block of a cluster takes the same rows, so all reach the
    // cluster reductions equally often.
    blockDim = toIdx(gpu::BlockDimOp::create(b, loc, gpu::Dimension::x));
    blockId = toIdx(gpu::ClusterIdOp::create(b, loc, gpu::Dimension::x));
    gridDim = toIdx(gpu::ClusterDimOp::create(b, loc, gpu::Dimension::x));
    clusterRank =
        toIdx(gpu::ClusterBlockIdOp::create(b, loc, gpu::Dimension::x));
    clusterSize =
        toIdx(gpu::ClusterDimBlocksOp::create(b, loc, gpu::Dimension::x));
  } else {
    blockId = toIdx(gpu::BlockIdOp::create(b, loc, gpu::Dimension::x));
    blockDim = toIdx(gpu::BlockDimOp::create(b, loc, gpu::Dimension::x));
    gridDim = toIdx(gpu::GridDimOp::create(b, loc, gpu::Dimension::x));
  }
  tid = arith::RemUIOp::create(b, loc, threadId, threadsPerRow);
  ty = arith::DivUIOp::create(b, loc, threadId, threadsPerRow);
  rowsPerBlock = arith::DivUIOp::create(b, loc, blockDim, threadsPerRow);
  lane = arith::RemUIOp::create(b, loc, tid, constIdx(32));
  warp = arith::DivUIOp::create(b, loc, tid, constIdx(32));
  warpsPerRow = arith::DivUIOp::create(b, loc, threadsPerRow, constIdx(32));
  multiWarp = cmp(arith::CmpIPredicate::ugt, threadsPerRow, constIdx(32));
  slot0 = arith::MulIOp::create(b, loc, ty, warpsPerRow);
  if (columns) {
    // Consecutive threads take consecutive rows of the block's rows.
    tyLoad = arith::RemUIOp::create(b, loc, threadId, rowsPerBlock);
    tidLoad = arith::DivUIOp::create(b, loc, threadId, rowsPerBlock);
  }
  rowLength = sizes[rank - 1];
  rowBlocks = arith::DivUIOp::create(
      b, loc,
      arith::AddIOp::create(
          b, loc, rows,
          arith::SubIOp::create(b, loc, rowsPerBlock, constIdx(1))),
      rowsPerBlock);
}

/// The iteration index of row `r`'s outer dims.
void KernelEmitter::RowKernelWriter::setOuter(Value r) {
  e.iterIndex.assign(rank, Value());
  Value rest = r;
  for (int64_t d = rank - 2; d >= 0; --d) {
    if (d == 0) {
      e.iterIndex[d] = rest;
    } else {
      e.iterIndex[d] = arith::RemUIOp::create(b, loc, rest, sizes[d]);
      rest = arith::DivUIOp::create(b, loc, rest, sizes[d]);
    }
  }
}

Value KernelEmitter::RowKernelWriter::rowOf(Value rowBlock) {
  return arith::AddIOp::create(
      b, loc, arith::MulIOp::create(b, loc, rowBlock, rowsPerBlock), ty);
}

/// Column-major rows: switches `ty` and `tid` (and the row, its guard and
/// its outer index) between the usual mapping and the loading one. The
/// first switch to the loading mapping comes before the row is known.
void KernelEmitter::RowKernelWriter::mapRows(bool loading) {
  std::swap(ty, tyLoad);
  std::swap(tid, tidLoad);
  if (loading && !row)
    return;
  row = rowOf(rowLoop.getInductionVar());
  valid = cmp(arith::CmpIPredicate::ult, row, rows);
  setOuter(row);
  e.memo.clear();
}

/// Column-major rows: each thread's states, folded under the loading
/// mapping, to the thread that holds the same (row, thread of the row) in
/// the usual one. The second barrier keeps the next row's states from
/// overwriting slots not yet read.
void KernelEmitter::RowKernelWriter::exchangeStates(
    ArrayRef<RowPart *> passParts, SmallVector<RowState> &states) {
  Value from = arith::AddIOp::create(
      b, loc, arith::MulIOp::create(b, loc, tyLoad, threadsPerRow), tidLoad);
  for (auto [part, state] : llvm::zip(passParts, states)) {
    ArrayRef<Value> buffers = exchange[part - parts.data()];
    for (auto [buffer, x] : llvm::zip(buffers, state))
      memref::StoreOp::create(b, loc, x, buffer, e.toIndex(from));
  }
  gpu::BarrierOp::create(b, loc);
  for (auto [part, state] : llvm::zip(passParts, states)) {
    ArrayRef<Value> buffers = exchange[part - parts.data()];
    for (auto [buffer, x] : llvm::zip(buffers, state))
      x = memref::LoadOp::create(b, loc, buffer, e.toIndex(threadId));
  }
  gpu::BarrierOp::create(b, loc);
}

/// Column-major rows: each row's reduced states, which every thread of the
/// row holds in the usual mapping, to the threads that load the row, where
/// a later pass or the per-element results use them (Note [Column-major
/// rows with per-element results]). The row's first thread writes slot
/// `ty` of the exchange slots; after a barrier each thread reads its
/// loading row's slot and records the results again. The second barrier
/// keeps the next exchange from overwriting slots not yet read.
void KernelEmitter::RowKernelWriter::loadingRowStates(
    ArrayRef<RowPart *> passParts, ArrayRef<RowState> states) {
  auto first = scf::IfOp::create(
      b, loc, cmp(arith::CmpIPredicate::eq, tid, constIdx(0)), false);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(first.thenBlock()->getTerminator());
    for (auto [part, state] : llvm::zip(passParts, states)) {
      ArrayRef<Value> buffers = exchange[part - parts.data()];
      for (auto [buffer, x] : llvm::zip(buffers, state))
        memref::StoreOp::create(b, loc, x, buffer, e.toIndex(ty));
    }
  }
  gpu::BarrierOp::create(b, loc);
  mapRows(/*loading=*/true);
  for (RowPart *part : passParts) {
    ArrayRef<Value> buffers = exchange[part - parts.data()];
    RowState state;
    for (Value buffer : buffers)
      state.push_back(
          memref::LoadOp::create(b, loc, buffer, e.toIndex(ty)).getResult());
    finish(*part, state);
  }
  gpu::BarrierOp::create(b, loc);
}

Value KernelEmitter::RowKernelWriter::itemCol(int64_t r) {
  Value col = arith::MulIOp::create(
      b, loc,
      arith::AddIOp::create(
          b, loc, arith::MulIOp::create(b, loc, constIdx(r), threadsPerRow),
          tid),
      constIdx(v));
  return spanBase ? arith::AddIOp::create(b, loc, spanBase, col).getResult()
                  : col;
}

// Note [Row prefetch]: the persistent variant loads the row data of
// its next row (the loads that depend on the row and the column) before
// it reduces the current one, so a block keeps loads in flight across
// its reductions; the values travel in the row loop's iter_args.
SmallVector<Value> KernelEmitter::RowKernelWriter::loadRow(Value r) {
  setOuter(r);
  Value rowOk = cmp(arith::CmpIPredicate::ult, r, rows);
  SmallVector<Value> values;
  if (persistent && ragged) {
    // That row's whole vectors in its own frame (Note [Ragged rows]).
    Value rowShift = shiftOf(r);
    Value lo = arith::SelectOp::create(
        b, loc, cmp(arith::CmpIPredicate::ne, rowShift, constIdx(0)),
        constIdx(v), constIdx(0));
    Value end = wholeEnd(add(rowLength, rowShift));
    values = loadItems(Value(), rowOk, end, lo, rowShift);
  } else if (persistent) {
    values = loadItems(Value(), rowOk, rowLength);
  }
  e.memo.clear();
  return values;
}

/// The prefetched loads (`e.prefetch`) of each item of a chunk whose
/// columns start at `base` (none: 0), each guarded by `ok` and its column
/// being below `end` (and from `lo`, when set); ragged rows (Note [Ragged
/// rows]) count positions in the frame shifted by `frame` (none: the
/// current row's); the memo is left as it was.
SmallVector<Value> KernelEmitter::RowKernelWriter::loadItems(
    Value base, Value ok, Value end, Value lo, Value frame, Value copyBuffer) {
  SmallVector<Value> values;
  Memo saved;
  std::swap(saved, e.memo);
  for (int64_t item = 0; item < itemsPerChunk; ++item) {
    Value col = itemCol(item);
    if (base)
      col = arith::AddIOp::create(b, loc, base, col);
    e.iterIndex[rank - 1] =
        ragged ? arith::SubIOp::create(b, loc, col, frame ? frame : shift)
                     .getResult()
               : col;
    e.loadGuard = andI(ok, cmp(arith::CmpIPredicate::ult, col, end));
    if (lo)
      e.loadGuard = andI(e.loadGuard, cmp(arith::CmpIPredicate::uge, col, lo));
    for (auto [j, entry] : llvm::enumerate(e.prefetch)) {
      e.memo.clear();
      BlockArgument arg = kernelBody.getArgument(entry.first);
      if (copyBuffer)
        e.stageCopy(arg, entry.second, stageOffset(j, item, copyBuffer));
      else
        values.push_back(e.load(arg, entry.second).value);
    }
  }
  e.loadGuard = Value();
  std::swap(saved, e.memo);
  return values;
}

// Note [Chunk prefetch]: a streaming loop loads the next chunk's row
// data (the loads that depend on the row and the column, as Note [Row
// prefetch] finds them) before it reduces the current chunk, so each thread
// keeps a chunk of loads in flight while it computes; the values travel in
// the loop's iter_args after its states. Only the vectorized variants and
// the column variant with per-element results do (Note [Column-major rows
// with per-element results]; the other scalar ones, with 4 elements per
// chunk, were slower with it). On the
// H200, cross-entropy forward (bf16, 512 threads per row) read 0.50 of copy
// without it and 0.60 with it at 8192 x 32000, 0.69 and 0.92 at 16384 x
// 128256: Nsight Compute had shown each warp waiting on its loads at every
// chunk, with half the SM's issue slots idle.
SmallVector<Value> KernelEmitter::RowKernelWriter::loadChunk(Value chunkBase,
                                                             Value end) {
  return loadItems(chunkBase, valid, end);
}

/// A loop over the chunks of [begin, end) carrying `inits` and, when the
/// variant prefetches (Note [Chunk prefetch]), the next chunk's loads; the
/// body starts with those loads issued and `current` holding this chunk's.
/// The loop's first results are the states.
scf::ForOp KernelEmitter::RowKernelWriter::chunkLoop(Value begin, Value end,
                                                     Value chunk,
                                                     SmallVector<Value> inits) {
  size_t numState = inits.size();
  bool pipelined = !e.prefetch.empty();
  if (pipelined)
    inits.append(loadChunk(begin, end));
  auto loop = scf::ForOp::create(b, loc, begin, end, chunk, inits);
  b.setInsertionPointToStart(loop.getBody());
  if (pipelined) {
    current.assign(loop.getRegionIterArgs().begin() + numState,
                   loop.getRegionIterArgs().end());
    chunkNext = loadChunk(
        arith::AddIOp::create(b, loc, loop.getInductionVar(), chunk), end);
  }
  return loop;
}

/// Yields `states` and the next chunk's loads at the end of `loop`.
void KernelEmitter::RowKernelWriter::endChunkLoop(scf::ForOp loop,
                                                  ArrayRef<Value> states) {
  SmallVector<Value> yielded(states.begin(), states.end());
  yielded.append(chunkNext);
  b.setInsertionPointToEnd(loop.getBody());
  if (!loop.getBody()->empty() &&
      loop.getBody()->back().hasTrait<OpTrait::IsTerminator>())
    loop.getBody()->back().erase();
  scf::YieldOp::create(b, loc, yielded);
  current.clear();
  chunkNext.clear();
}

Type KernelEmitter::RowKernelWriter::elementOf(unsigned k) {
  return cast<RankedTensorType>(kernelBody.getArgument(k).getType())
      .getElementType();
}

/// The bytes a thread stages: every prefetched input's vectors.
int64_t KernelEmitter::RowKernelWriter::stagedBytesPerThread() {
  int64_t bytesPerThread = 0;
  for (auto &entry : e.prefetch)
    bytesPerThread +=
        e.variant.items * v * storageBytes(elementOf(entry.first));
  return bytesPerThread;
}

/// Whether the row can be staged in `copies` buffers of dynamic shared
/// memory of at most `limit` bytes.
bool KernelEmitter::RowKernelWriter::stageable(int64_t copies, int64_t limit) {
  return e.variant.stage && persistent &&
         copies * stagedBytesPerThread() * e.variant.maxBlock <= limit &&
         llvm::none_of(e.prefetch, [&](auto &entry) {
           return elementOf(entry.first).isInteger(1);
         });
}

// Note [Staged rows]: each thread stores its vectors of the current row
// into its own slots of dynamic shared memory and reads them back in
// every pass, so values derived from them are recomputed per pass
// instead of held in registers across the row's reductions.
// The slots are written and read with fusion.stage_store and
// fusion.stage_load, volatile accesses of the dynamic shared memory.
void KernelEmitter::RowKernelWriter::planStaging() {
  if (!asyncStage)
    stage = stageable(1) && !current.empty();
  if (!stage)
    return;
  OpBuilder::InsertionGuard guard(b);
  if (!asyncStage)
    b.setInsertionPoint(rowLoop);
  Value count =
      arith::MulIOp::create(b, loc, blockDim, constIdx(e.variant.items * v));
  Value offset = constIdx(0);
  for (auto &entry : e.prefetch) {
    int64_t bytes = storageBytes(elementOf(entry.first));
    stageBases.push_back(offset);
    offset = arith::AddIOp::create(
        b, loc, offset, arith::MulIOp::create(b, loc, count, constIdx(bytes)));
    stageTypes.push_back(
        VectorType::get({v}, storageType(elementOf(entry.first))));
  }
  stageBufferBytes = offset;
  func->setAttr(
      "fusion.stage_bytes_per_thread",
      b.getI64IntegerAttr((asyncStage ? 2 : 1) * stagedBytesPerThread()));
}

// Note [Async staged rows]: a staged persistent variant (Note [Staged
// rows]) still loads the next row into registers a row ahead (Note [Row
// prefetch]), and those registers limit the blocks per SM. With
// `async_stage`, each thread instead copies its own vectors of the next
// row straight into its slots of a second buffer (fusion.stage_copy:
// cp.async, no registers), and waits for the current row's copies at the
// top of each iteration. Only the copying thread reads a slot, so its own
// wait is all the synchronization there is: no barrier, no mbarrier. It
// needs every prefetched load to be whole aligned vectors (no ragged rows,
// no gathers) and twice the staged bytes: up to 192 KB per block on sm_90
// (one block per SM), 96 KB before.
bool KernelEmitter::RowKernelWriter::wantsAsyncStage() {
  if (!e.variant.asyncStage || !persistent || ragged || split || cluster ||
      e.prefetch.empty() || !stageable(2, e.variant.maxAsyncStageBytes))
    return false;
  return llvm::all_of(e.prefetch, [&](auto &entry) {
    return e.loadsAlignedVectors(kernelBody.getArgument(entry.first),
                                 entry.second);
  });
}

/// Issues the copies of row `r` into buffer `buffer` (0 or 1). With
/// `skipPast`, a row past the end issues none (Note [Prefetch past the end]).
void KernelEmitter::RowKernelWriter::copyRow(Value r, Value buffer,
                                             bool skipPast) {
  Value rowOk = cmp(arith::CmpIPredicate::ult, r, rows);
  OpBuilder::InsertionGuard guard(b);
  if (skipPast) {
    auto inRange = scf::IfOp::create(b, loc, rowOk, false);
    b.setInsertionPoint(inRange.thenBlock()->getTerminator());
    rowOk = arith::ConstantIntOp::create(b, loc, 1, 1);
  }
  setOuter(r);
  loadItems(Value(), rowOk, rowLength, Value(), Value(), buffer);
  e.memo.clear();
}

// Note [Bulk staged rows]: with `bulk_stage` the next row's copies into the
// second buffer (Note [Async staged rows]) are bulk copies (cp.async.bulk,
// sm_90): the first thread of each row issues one per prefetched input and
// item, each the item's whole span of the row (threadsPerRow vectors, which
// lie together in the buffer as in the row), after arriving on the
// buffer's mbarrier with the bytes they bring; every thread of the block
// waits on that mbarrier before it reads the buffer. Threads issue no
// per-vector copies and hold no registers for the next row. A buffer is
// written again two rows later, after a block barrier and a proxy fence at
// the top of the iteration, when every thread has read it. Rows are whole
// vectors and aligned here (the variant's guard), so each span is a
// multiple of 16 bytes; past the row's end a span is shorter or empty, and
// a row past the last one brings no bytes (an arrival only), so no copy is
// in flight when the block exits.
void KernelEmitter::RowKernelWriter::bulkCopyRow(Value r, Value buffer) {
  setOuter(r);
  Value rowOk = cmp(arith::CmpIPredicate::ult, r, rows);
  auto leader = scf::IfOp::create(
      b, loc, cmp(arith::CmpIPredicate::eq, tid, constIdx(0)), false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(leader.thenBlock()->getTerminator());
  Value span = arith::MulIOp::create(b, loc, threadsPerRow, constIdx(v));
  Value zero = constIdx(0);
  SmallVector<std::tuple<unsigned, int64_t, Value, Value>> pieces;
  Value total = zero;
  for (int64_t item = 0; item < e.variant.items; ++item) {
    Value col = itemCol(item);
    Value left = arith::SelectOp::create(
        b, loc, cmp(arith::CmpIPredicate::ult, col, rowLength),
        arith::SubIOp::create(b, loc, rowLength, col), zero);
    Value count = arith::SelectOp::create(
        b, loc, rowOk, arith::MinUIOp::create(b, loc, left, span), zero);
    for (unsigned j = 0; j < e.prefetch.size(); ++j) {
      Value bytes = arith::MulIOp::create(
          b, loc, count,
          constIdx(storageBytes(elementOf(e.prefetch[j].first))));
      total = arith::AddIOp::create(b, loc, total, bytes);
      pieces.push_back({j, item, col, bytes});
    }
  }
  Value index = toIndex(buffer);
  MBarrierArriveExpectTxOp::create(b, loc, bulkBarriers, index, toI32(total));
  for (auto [j, item, col, bytes] : pieces) {
    auto any = scf::IfOp::create(
        b, loc, cmp(arith::CmpIPredicate::ugt, bytes, zero), false);
    OpBuilder::InsertionGuard inner(b);
    b.setInsertionPoint(any.thenBlock()->getTerminator());
    e.iterIndex[rank - 1] = col;
    auto &entry = e.prefetch[j];
    e.stageBulkCopy(kernelBody.getArgument(entry.first), entry.second,
                    stageOffset(j, item, buffer), toI32(bytes), bulkBarriers,
                    index);
  }
  e.memo.clear();
}

Value KernelEmitter::RowKernelWriter::toI32(Value x) {
  if (x.getType().isInteger(32))
    return x;
  return arith::TruncIOp::create(b, loc, b.getI32Type(), x);
}

Value KernelEmitter::RowKernelWriter::stageOffset(unsigned j, int64_t item,
                                                  Value buffer) {
  // Byte offset: base_j + ((item * blockDim + threadId) * v) * bytes, in
  // buffer `buffer` (async staged rows), else the current one.
  Value slot = arith::MulIOp::create(
      b, loc,
      arith::AddIOp::create(
          b, loc, arith::MulIOp::create(b, loc, constIdx(item), blockDim),
          threadId),
      constIdx(v * storageBytes(elementOf(e.prefetch[j].first))));
  Value offset = arith::AddIOp::create(b, loc, stageBases[j], slot);
  if (!asyncStage)
    return offset;
  return arith::AddIOp::create(b, loc, offset,
                               arith::MulIOp::create(b, loc,
                                                     buffer ? buffer : parity,
                                                     stageBufferBytes));
}

auto KernelEmitter::RowKernelWriter::makeItems(Value chunkBase)
    -> std::vector<Item> {
  std::vector<Item> items(itemsPerChunk);
  for (int64_t r = 0; r < itemsPerChunk; ++r) {
    Value col = itemCol(r);
    if (chunkBase)
      col = arith::AddIOp::create(b, loc, chunkBase, col);
    items[r].col =
        ragged ? arith::SubIOp::create(b, loc, col, shift).getResult() : col;
    items[r].index = chunkBase && current.empty() ? -1 : r;
    items[r].inBounds = andI(valid, cmp(arith::CmpIPredicate::ult, col,
                                        ragged ? bodyEnd : rowLength));
    // Persistent ragged rows: the head vector is the edge item's.
    if (ragged && !chunkBase)
      items[r].inBounds =
          andI(items[r].inBounds,
               cmp(arith::CmpIPredicate::uge, col,
                   arith::SelectOp::create(b, loc, headOn, constIdx(v),
                                           constIdx(0))));
  }
  return items;
}

// Note [Ragged rows]: vectorized variants that run on any row length,
// streaming (`_rv8`) and persistent (`_prv8`). Row r starts at element r * N of
// the output and of every input that walks all iteration dims (the host checks
// that their row offsets agree with the output's modulo the width), so modulo
// the width v it starts at `shift = r * N mod v`. The variant walks the row in
// a frame shifted back by `shift`: position p is column p - shift, and the
// vectors at p = 0, v, 2v, ... are aligned in memory. The chunk loops take the
// whole vectors inside the row (from v when shift > 0, to the last
// multiple of v in N + shift) with the plain variant's code: whole vector
// loads and stores, no lane checks. The at most two vectors left, the head
// (p = 0, when shift > 0) and the tail (p = the end of the whole vectors,
// when N + shift is not a multiple of v), are the edge item of threads 0
// and 1: masked loads and stores of the lanes inside the row, folded with
// the neutral element elsewhere. Inputs that do not walk every iteration
// dim (a weight over the row, a row picked by index_select) have lanes
// that start anywhere: their vector loads claim the element's alignment
// only. The persistent variant keeps each thread's whole vectors in
// registers and prefetches the next row's in that row's own frame (Note
// [Row prefetch]); its edge item is loaded where it is used. The variants
// (`_prv8_i32`, `_rv8_i32` beside `_pv8_i32`, `_v8_i32`) run where the
// plain vectorized ones do not, before the scalar ones, the persistent
// scalar one included; they are fallback variants (PTX in the module,
// compiled by the driver when a launch first takes one). The plain streaming
// variant stays the one for rows whose length is a multiple of v: made ragged
// itself (shift 0, no edges taken), it read 0.856 of copy against 0.891
// for cross-entropy forward at 8192 x 32000 on the H200 (why is not
// isolated), and a weight over the row would lose its whole vector loads.
// A kernel whose row length is a static multiple of v has no ragged
// variant. Before it, a row whose length is not a multiple of v took a
// scalar variant. On the H200 (bf16, fraction of a copy):
// cross-entropy forward 4096 x 50257 0.51 -> 0.84, 2048 x 151937 0.47 ->
// 0.89; softmax 4096 x 50257 0.31 -> 0.57; softmax / layernorm / rmsnorm
// 8192 x 4097 (against the persistent scalar variant) 0.33 / 0.20 / 0.28
// -> 0.42 / 0.35 / 0.50, 32768 x 1023 0.50 / 0.37 / 0.47 -> 0.48 / 0.37 /
// 0.63.
/// Row `r`'s start modulo the width (Note [Ragged rows]).
Value KernelEmitter::RowKernelWriter::shiftOf(Value r) {
  return arith::RemUIOp::create(b, loc, mul(r, rowLength), constIdx(v));
}

/// The end of the whole vectors below position `stop` of a row's frame.
Value KernelEmitter::RowKernelWriter::wholeEnd(Value stop) {
  Value width = constIdx(v);
  return mul(arith::DivUIOp::create(b, loc, stop, width), width);
}

void KernelEmitter::RowKernelWriter::planRagged(Value end) {
  shift = shiftOf(row);
  Value stop = add(end, shift);
  bodyEnd = wholeEnd(stop);
  headOn = andI(valid, cmp(arith::CmpIPredicate::ne, shift, constIdx(0)));
  // A row inside one vector is the head alone.
  Value tailVector = cmp(arith::CmpIPredicate::ne, stop, bodyEnd);
  Value sameAsHead =
      andI(headOn, cmp(arith::CmpIPredicate::eq, bodyEnd, constIdx(0)));
  tailOn =
      andI(andI(valid, tailVector),
           arith::XOrIOp::create(b, loc, sameAsHead,
                                 arith::ConstantIntOp::create(b, loc, 1, 1)));
}

/// The head vector for thread 0, the tail vector for thread 1 (Note
/// [Ragged rows]).
auto KernelEmitter::RowKernelWriter::edgeItem() -> Item {
  Item item;
  Value first = cmp(arith::CmpIPredicate::eq, tid, constIdx(0));
  Value second = cmp(arith::CmpIPredicate::eq, tid, constIdx(1));
  Value pos = arith::SelectOp::create(b, loc, first, constIdx(0), bodyEnd);
  item.col = arith::SubIOp::create(b, loc, pos, shift);
  item.inBounds = andI(valid, arith::OrIOp::create(b, loc, andI(first, headOn),
                                                   andI(second, tailOn)));
  auto lanesType = VectorType::get({v}, idx);
  SmallVector<Attribute> steps;
  for (int64_t j = 0; j < v; ++j)
    steps.push_back(IntegerAttr::get(idx, j));
  Value laneCols = arith::AddIOp::create(
      b, loc, vector::BroadcastOp::create(b, loc, lanesType, item.col),
      arith::ConstantOp::create(b, loc,
                                DenseElementsAttr::get(lanesType, steps)));
  auto splatIdx = [&](Value x) {
    return vector::BroadcastOp::create(b, loc, lanesType, x).getResult();
  };
  item.laneMask =
      andI(cmp(arith::CmpIPredicate::sge, laneCols, splatIdx(constIdx(0))),
           cmp(arith::CmpIPredicate::slt, laneCols, splatIdx(rowLength)));
  return item;
}

void KernelEmitter::RowKernelWriter::activate(Item &item) {
  e.iterIndex[rank - 1] = item.col;
  e.loadGuard = item.inBounds;
  e.laneMask = item.laneMask;
  std::swap(e.memo, item.memo);
  if (item.index >= 0 && (!current.empty() || asyncStage))
    for (auto [j, entry] : llvm::enumerate(e.prefetch)) {
      Value x;
      if (asyncStage)
        x = StageLoadOp::create(b, loc, stageTypes[j],
                                stageOffset(j, item.index));
      else
        x = current[item.index * e.prefetch.size() + j];
      if (stage && !asyncStage)
        x = StageLoadOp::create(b, loc, x.getType(),
                                stageOffset(j, item.index));
      e.stagedSlots[kernelBody.getArgument(entry.first)] = {
          Gen{x, isa<VectorType>(x.getType())}, entry.second};
    }
}

void KernelEmitter::RowKernelWriter::deactivate(Item &item) {
  std::swap(e.memo, item.memo);
  e.loadGuard = Value();
  e.laneMask = Value();
  e.stagedSlots.clear();
}

/// The part's reduced operand at each item, widened to `target`.
LogicalResult KernelEmitter::RowKernelWriter::gather(RowPart &part,
                                                     std::vector<Item> &items,
                                                     Type target,
                                                     SmallVector<Value> &xs) {
  for (Item &item : items) {
    activate(item);
    FailureOr<Gen> gen =
        e.generate(part.reduction->op->getOperand(0), identity);
    deactivate(item);
    if (failed(gen))
      return failure();
    Value x = v > 1 ? e.splat(*gen) : gen->value;
    if (x.getType() != target)
      x = e.widenToAccumulator(x, target, part.isFloat);
    xs.push_back(x);
  }
  return success();
}

/// `x` where the item's lanes are inside the row, else `fill`.
Value KernelEmitter::RowKernelWriter::masked(Item &item, Value x, Value fill) {
  if (item.laneMask)
    x = arith::SelectOp::create(b, loc, item.laneMask, x, fill);
  return arith::SelectOp::create(b, loc, item.inBounds, x, fill).getResult();
}

// Note [Float sums from -0]: a float sum's neutral element is 0, but x + 0
// is not x for x = -0, so LLVM kept each `acc + 0` of a thread's first item
// and of the fold over a vector's lanes. -0 is the exact neutral element (x
// + -0 = x for every x), so a vectorized thread's float sum starts from -0
// and fills masked elements with -0, and those adds fold away. The two sums
// differ only where every element summed is -0 or masked (-0 against +0:
// in round-to-nearest a sum is -0 only when both terms are), so one `+ 0`
// on the thread's sum gives back the bits of the sum from +0. Items after
// the first add under their bound (scf.if) instead of adding a masked
// element: ptxas predicates the adds, where a mask took a select per
// element. Scalar variants (one element per item) keep the masked form.
//
// Note [Sums of products]: in such a sum, an item that is a product (x * x
// of rms_norm, (x - mean)^2 of layer_norm, a dot product's terms) adds as
// one fma onto the accumulator: one instruction instead of a multiply and
// an add, and one rounding instead of two, so the sum is at least as
// accurate. The first item keeps its product: the sum starts from it.
/// `kind` over the items' `value(i)` (with `mask`, out-of-bounds ones
/// masked to the neutral element), then over the vector's lanes.
Value KernelEmitter::RowKernelWriter::fold(RowPart &part,
                                           std::vector<Item> &items,
                                           Type target, RedKind kind,
                                           function_ref<Value(size_t)> value,
                                           bool mask) {
  bool floatSum = kind == RedKind::Sum && part.isFloat && v > 1;
  Value fill = floatSum ? e.floatConst(target, -0.0)
                        : e.neutral(kind, part.isFloat, target);
  Value acc = fill;
  // acc + x, as an fma where x is a product (Note [Sums of products]).
  auto add = [&](Value sum, Value x) -> Value {
    if (auto mul = x.getDefiningOp<arith::MulFOp>())
      if (floatSum && mul.getType() == sum.getType())
        return math::FmaOp::create(b, loc, mul.getLhs(), mul.getRhs(), sum);
    return e.combine(kind, part.isFloat, sum, x);
  };
  for (size_t i = 0; i < items.size(); ++i) {
    Value x = value(i);
    if (mask && floatSum && !items[i].laneMask && i > 0) {
      auto added = scf::IfOp::create(b, loc, TypeRange{acc.getType()},
                                     items[i].inBounds, true, true);
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(added.thenBlock());
      scf::YieldOp::create(b, loc, add(acc, x));
      b.setInsertionPointToStart(added.elseBlock());
      scf::YieldOp::create(b, loc, acc);
      b.setInsertionPointAfter(added);
      acc = added.getResult(0);
      continue;
    }
    if (mask)
      x = masked(items[i], x, fill);
    acc = i > 0 ? add(acc, x) : e.combine(kind, part.isFloat, acc, x);
  }
  vector::CombiningKind combining = combiningKind(kind, part.isFloat);
  if (v > 1)
    acc = floatSum ? vector::ReductionOp::create(
                         b, loc, combining, acc,
                         e.floatConst(getElementTypeOrSelf(target), -0.0))
                   : vector::ReductionOp::create(b, loc, combining, acc);
  if (floatSum)
    acc = arith::AddFOp::create(b, loc, acc, e.floatConst(acc.getType(), 0.0));
  return acc;
}

Value KernelEmitter::RowKernelWriter::splatAcc(Type target, Value scalar) {
  return v > 1 ? vector::BroadcastOp::create(b, loc, target, scalar).getResult()
               : scalar;
}

/// A thread's state of a part over some items (a chunk or all of them).
auto KernelEmitter::RowKernelWriter::localState(RowPart &part,
                                                std::vector<Item> &items)
    -> FailureOr<RowState> {
  Type target = v > 1 ? Type(VectorType::get({v}, part.acc)) : part.acc;
  SmallVector<Value> xs;
  if (failed(gather(part, items, target, xs)))
    return failure();
  switch (part.state) {
  case RowPart::Simple:
    return RowState{
        fold(part, items, target, part.kind, [&](size_t i) { return xs[i]; })};
  case RowPart::Welford:
    return welfordState(part, items, target, xs);
  case RowPart::Arg:
    return argState(part, items, xs);
  case RowPart::Online: {
    // Note [One mask for online states]: elements outside the row become
    // -inf once, which the max ignores and exp(x - m) maps to 0 for a finite
    // m, so the sum needs no second mask. Where every element is outside
    // (m = -inf), the sum's NaN (-inf - -inf) is replaced by 0 once per
    // state rather than per element. exp is never -0, so the sum starts
    // from the first term rather than from 0 + it.
    Value minusInf = e.neutral(RedKind::Max, true, target);
    SmallVector<Value> in;
    for (auto [item, x] : llvm::zip(items, xs))
      in.push_back(masked(item, x, minusInf));
    Value m = fold(
        part, items, target, RedKind::Max, [&](size_t i) { return in[i]; },
        /*mask=*/false);
    Value mV = splatAcc(target, m);
    Value sum;
    for (Value x : in) {
      Value t = e.expOf(arith::SubFOp::create(b, loc, x, mV));
      sum = sum ? arith::AddFOp::create(b, loc, sum, t).getResult() : t;
    }
    if (v > 1)
      sum =
          vector::ReductionOp::create(b, loc, vector::CombiningKind::ADD, sum);
    Value empty =
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, m,
                              e.neutral(RedKind::Max, true, part.acc));
    sum =
        arith::SelectOp::create(b, loc, empty, e.floatConst(part.acc, 0), sum);
    return RowState{m, sum};
  }
  }
  return failure();
}

/// Count, mean and centered sum of squares of the thread's elements (two
/// passes over its registers), merged across threads later.
auto KernelEmitter::RowKernelWriter::welfordState(RowPart &part,
                                                  std::vector<Item> &items,
                                                  Type target,
                                                  SmallVector<Value> &xs)
    -> FailureOr<RowState> {
  Value n = e.floatConst(part.acc, 0);
  for (Item &item : items) {
    Value count = e.floatConst(part.acc, v);
    if (item.laneMask) {
      // The lanes inside the row (Note [Ragged rows]).
      auto lanes = VectorType::get({v}, part.acc);
      Value ones = arith::SelectOp::create(
          b, loc, item.laneMask,
          vector::BroadcastOp::create(b, loc, lanes, e.floatConst(part.acc, 1)),
          vector::BroadcastOp::create(b, loc, lanes,
                                      e.floatConst(part.acc, 0)));
      count =
          vector::ReductionOp::create(b, loc, vector::CombiningKind::ADD, ones);
    }
    n = arith::AddFOp::create(
        b, loc, n,
        arith::SelectOp::create(b, loc, item.inBounds, count,
                                e.floatConst(part.acc, 0)));
  }
  Value sum =
      fold(part, items, target, RedKind::Sum, [&](size_t i) { return xs[i]; });
  Value mean = arith::DivFOp::create(
      b, loc, sum,
      arith::MaximumFOp::create(b, loc, n, e.floatConst(part.acc, 1)));
  Value meanV = splatAcc(target, mean);
  // Staged rows read the elements again for the second sweep rather
  // than keep them in registers across it (Note [Staged rows]).
  if (stage && items.front().index >= 0) {
    for (Item &item : items)
      item.memo.clear();
    xs.clear();
    if (failed(gather(part, items, target, xs)))
      return failure();
  }
  Value m2 = fold(part, items, target, RedKind::Sum, [&](size_t i) -> Value {
    Value d = arith::SubFOp::create(b, loc, xs[i], meanV);
    return arith::MulFOp::create(b, loc, d, d);
  });
  return RowState{n, mean, m2};
}

/// Each element with its column (Note [Arg reductions]).
auto KernelEmitter::RowKernelWriter::argState(RowPart &part,
                                              std::vector<Item> &items,
                                              ArrayRef<Value> xs) -> RowState {
  RowState best = e.neutralState(part);
  Type i64 = b.getI64Type();
  for (auto [i, item] : llvm::enumerate(items)) {
    for (int64_t j = 0; j < v; ++j) {
      Value x = v > 1 ? vector::ExtractOp::create(b, loc, xs[i], j).getResult()
                      : xs[i];
      Value col = arith::AddIOp::create(b, loc, item.col, constIdx(j));
      Value index = col.getType() == i64
                        ? col
                        : arith::ExtUIOp::create(b, loc, i64, col).getResult();
      RowState merged = e.combineArg(part, best, {x, index});
      Value in = item.inBounds;
      if (item.laneMask)
        in = andI(in, vector::ExtractOp::create(b, loc, item.laneMask,
                                                ArrayRef<int64_t>{j}));
      best = {arith::SelectOp::create(b, loc, in, merged[0], best[0]),
              arith::SelectOp::create(b, loc, in, merged[1], best[1])};
    }
  }
  return best;
}

void KernelEmitter::RowKernelWriter::setResult(RowPart &part, Value result,
                                               Value acc) {
  Type element = cast<RankedTensorType>(result.getType()).getElementType();
  Value r = acc;
  if (element != acc.getType())
    r = e.narrowFromAccumulator(acc, element, part.isFloat);
  e.reduced[result] = Gen{r, false};
}

/// Records a part's results from its state folded over the row.
void KernelEmitter::RowKernelWriter::finish(RowPart &part,
                                            const RowState &state) {
  Operation *op = part.reduction->op;
  switch (part.state) {
  case RowPart::Simple:
    setResult(part, op->getResult(0), state[0]);
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
        e.floatConst(part.acc, std::numeric_limits<double>::quiet_NaN()),
        state[1]);
    setResult(part, varMean.getMean(), mean);
    setResult(part, varMean.getVariance(), var);
    return;
  }
  case RowPart::Online:
    setResult(part, op->getResult(0), state[0]);
    setResult(part, part.reduction->onlineSum->getResult(0), state[1]);
    return;
  case RowPart::Arg:
    setResult(part, op->getResult(0), state[1]);
    return;
  }
}

void KernelEmitter::RowKernelWriter::reduceRow(RowPart &part,
                                               const RowState &state) {
  if (cluster) {
    // The block's state, then the cluster's: a block has one row.
    RowState block = e.blockReduceState(part, state, lane, warp, slot0,
                                        warpsPerRow, multiWarp);
    finish(part, e.clusterReduceState(
                     part, block,
                     cmp(arith::CmpIPredicate::eq, threadId, constIdx(0)),
                     clusterRound));
    return;
  }
  // Rows narrower than a warp reduce among their own lanes (Note [Short
  // rows] in InnerReduction.cpp).
  finish(part, e.blockReduceState(part, state, lane, warp, slot0, warpsPerRow,
                                  multiWarp, threadsPerRow));
}

/// The full-size results at one item.
auto KernelEmitter::RowKernelWriter::fullResultsAt(Item &item)
    -> FailureOr<SmallVector<Gen>> {
  activate(item);
  SmallVector<Gen> gens;
  for (Value value : fullValues) {
    FailureOr<Gen> gen = e.generate(value, identity);
    if (failed(gen)) {
      deactivate(item);
      return failure();
    }
    gens.push_back(*gen);
  }
  deactivate(item);
  return gens;
}

/// Computes and stores the full-size results at one item.
LogicalResult KernelEmitter::RowKernelWriter::storeFull(Item &item) {
  FailureOr<SmallVector<Gen>> gens = fullResultsAt(item);
  if (failed(gens))
    return failure();
  auto ifIn = scf::IfOp::create(b, loc, item.inBounds, false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(ifIn.thenBlock()->getTerminator());
  Value offset = arith::AddIOp::create(
      b, loc, arith::MulIOp::create(b, loc, row, rowLength), item.col);
  e.laneMask = item.laneMask;
  for (auto [gen, value, out] : llvm::zip(*gens, fullValues, fullOutputs))
    e.store(gen, cast<RankedTensorType>(value.getType()).getElementType(), out,
            offset);
  e.laneMask = Value();
  return success();
}

// Note [Column-major rows with per-element results]: the column variant
// (Note [Column-major rows] in InnerReduction.cpp) loads with consecutive
// threads on consecutive rows; per-element results stored that way would
// write a column at a time into row-major outputs (a warp's stores across
// 16 or 32 rows). So each chunk's results go through shared memory: every
// thread computes its elements of the chunk in the loading mapping into a
// tile per result (the block's rows x the chunk's T x 4 columns, row by
// row: at most 512 x 4 elements), and after a barrier the block writes the
// tile out with consecutive threads on consecutive elements of the tile, so
// a warp stores runs of a row. The loop runs over the whole row length in
// every thread of the block, its elements guarded, as its barriers are the
// block's. A later pass, and these results, need the row's reduced states
// in the loading mapping (loadingRowStates); so the input is read once per
// pass and once more for the results, as in the streaming variants. The
// chunk loops prefetch the next chunk's loads (Note [Chunk prefetch]), so
// they are in flight across the tile's barriers. Such kernels take the
// variant only where its blocks fill the SMs (max_grid / 16 blocks or
// more) and rows get 8 threads or more (launchRowVariants): with fewer rows
// a block per row (the persistent or streaming scalar variant) keeps more
// threads busy, and with more rows (2 or 4 threads each) the chunk loops
// are too long. On an H100 (fusion-run --bench --layout=0:transposed, bf16,
// fraction of copy; the persistent or streaming scalar variant / this one
// without prefetch / with it; one run): softmax 32768 x 4096 0.151 / 0.283
// / 0.303, 8192 x 16384 0.158 / 0.275 / 0.290, 4096 x 50257 0.146 / 0.183
// / 0.216, 4096 x 4096 0.164 / 0.175 / 0.202; layer_norm 0.169 / 0.149 /
// 0.206, 0.105 / 0.145 / 0.200, 0.097 / 0.081 / 0.142, 0.140 / 0.096 /
// 0.146; rms_norm 0.182 / 0.196 / 0.256, 0.156 / 0.192 / 0.250, 0.142 /
// 0.114 / 0.167, 0.153 / 0.111 / 0.162. At 262144 x 1024 (2 threads per
// row) it lost: softmax 0.292 / 0.212 / 0.220, layer_norm 0.207 / 0.130 /
// 0.178, rms_norm 0.236 / 0.172 / 0.213; and below the SMs' fill (1024 x
// 4096, the variant forced, no prefetch) softmax read 0.067 against 0.151.
// 8 elements
// per chunk read more at 262144 x 1024 (0.254 / 0.251 / 0.259 without
// prefetch) and less elsewhere; 16 less everywhere. torch.compile reads
// 0.40 / 0.42 / 0.41 at 32768 x 4096 (softmax / layer_norm / rms_norm) in
// the same session: still ahead.
//
// Note [Column tile pitch]: the tile's writes come from the loading mapping,
// where consecutive threads hold consecutive rows, so a warp's store hits 32
// rows of the tile at one column. With rows `chunk` (T x 4) elements apart
// those land in two banks of shared memory (bf16, T = 8: 64 bytes apart) or
// one (T = 16), a 16- or 32-way conflict on every store. Each row therefore
// takes a pad (columnTilePad) that makes its pitch an odd number of 4-byte
// words (8-byte elements: an odd number of elements), so 32 consecutive rows
// fall in 32 banks; the write-out reads runs of a row, unchanged. On an H100
// (fusion-run --bench --layout=0:transposed, bf16, fraction of copy, the
// module without and with the pad in one run, two rounds within 0.001):
// softmax 32768 x 4096 0.303 -> 0.355, 8192 x 16384 0.290 -> 0.349, 4096 x
// 50257 0.216 -> 0.217; layer_norm 0.206 -> 0.243, 0.200 -> 0.240, 0.142 ->
// 0.144; rms_norm 0.257 -> 0.323, 0.250 -> 0.298, 0.167 -> 0.173.
LogicalResult KernelEmitter::RowKernelWriter::storeColumnResults(Value chunk) {
  // Each tile's rows are `chunk` elements plus its pad apart (Note [Column
  // tile pitch]).
  SmallVector<Value> tiles, pitches;
  for (Value out : fullOutputs) {
    Type element = cast<MemRefType>(out.getType()).getElementType();
    int64_t bytes = storageBytes(element);
    tiles.push_back(
        addWorkgroupBuffer(func, columnTileElements(bytes), element, loc));
    pitches.push_back(add(chunk, constIdx(columnTilePad(bytes))));
  }
  OpBuilder::InsertionGuard guard(b);
  scf::ForOp loop = chunkLoop(constIdx(0), rowLength, chunk, {});
  Value chunkBase = loop.getInductionVar();
  std::vector<Item> items = makeItems(chunkBase);
  for (Item &item : items) {
    FailureOr<SmallVector<Gen>> gens = fullResultsAt(item);
    if (failed(gens))
      return failure();
    Value column = arith::SubIOp::create(b, loc, item.col, chunkBase);
    for (auto [gen, value, tile, pitch] :
         llvm::zip(*gens, fullValues, tiles, pitches))
      e.store(gen, cast<RankedTensorType>(value.getType()).getElementType(),
              tile, add(mul(ty, pitch), column));
  }
  gpu::BarrierOp::create(b, loc);
  Value firstRow =
      arith::MulIOp::create(b, loc, rowLoop.getInductionVar(), rowsPerBlock);
  for (int64_t k = 0; k < kStreamItems; ++k) {
    Value at = add(threadId, mul(constIdx(k), blockDim));
    Value tileRow = arith::DivUIOp::create(b, loc, at, chunk);
    Value column = arith::RemUIOp::create(b, loc, at, chunk);
    Value r = add(firstRow, tileRow);
    Value col = add(chunkBase, column);
    auto ifIn =
        scf::IfOp::create(b, loc,
                          andI(cmp(arith::CmpIPredicate::ult, r, rows),
                               cmp(arith::CmpIPredicate::ult, col, rowLength)),
                          false);
    OpBuilder::InsertionGuard inner(b);
    b.setInsertionPoint(ifIn.thenBlock()->getTerminator());
    Value offset = add(mul(r, rowLength), col);
    for (auto [tile, pitch, out] : llvm::zip(tiles, pitches, fullOutputs)) {
      Value x = memref::LoadOp::create(
          b, loc, tile, e.toIndex(add(mul(tileRow, pitch), column)));
      memref::StoreOp::create(b, loc, x, out, e.toIndex(offset));
    }
  }
  gpu::BarrierOp::create(b, loc);
  endChunkLoop(loop);
  return success();
}

// Note [Persistent rows]: each item keeps its memo across passes, so
// loads and the work before the reductions are emitted once and the
// values stay in registers until the epilogue.
LogicalResult KernelEmitter::RowKernelWriter::emitPersistent() {
  if (ragged)
    planRagged(arith::SelectOp::create(b, loc, valid, rowLength, constIdx(0)));
  std::vector<Item> items = makeItems(Value());
  // Ragged rows: the head and tail vectors, loaded where they are used
  // (Note [Ragged rows]).
  if (ragged)
    items.push_back(edgeItem());
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
  return success();
}

// Streaming: one loop over the row per pass, chunks of `itemsPerChunk`
// vectors per thread, each chunk's state merged into the running one.
LogicalResult KernelEmitter::RowKernelWriter::emitStreaming() {
  Value chunk =
      arith::MulIOp::create(b, loc, threadsPerRow, constIdx(v * itemsPerChunk));
  Value begin = constIdx(0);
  Value end = arith::SelectOp::create(b, loc, valid, rowLength, constIdx(0));
  if (split || cluster) {
    // Block y of gridDim.y (cluster rows: the block of rank r of the
    // cluster's) takes a span of whole chunks of the row.
    Value splitId =
        cluster ? clusterRank
                : toIdx(gpu::BlockIdOp::create(b, loc, gpu::Dimension::y));
    Value splits =
        cluster ? clusterSize
                : toIdx(gpu::GridDimOp::create(b, loc, gpu::Dimension::y));
    auto ceilDiv = [&](Value x, Value y) -> Value {
      return arith::DivUIOp::create(
          b, loc,
          arith::AddIOp::create(b, loc, x,
                                arith::SubIOp::create(b, loc, y, constIdx(1))),
          y);
    };
    Value span = arith::MulIOp::create(
        b, loc, ceilDiv(ceilDiv(rowLength, splits), chunk), chunk);
    begin = arith::MulIOp::create(b, loc, splitId, span);
    end = arith::MinUIOp::create(b, loc, end,
                                 arith::AddIOp::create(b, loc, begin, span));
  }
  if (ragged) {
    planRagged(end);
    begin = arith::SelectOp::create(b, loc, headOn, constIdx(v), constIdx(0));
    end = bodyEnd;
  }
  for (int64_t pass = 0; pass < info.numPasses; ++pass)
    if (failed(emitStreamingPass(pass, begin, end, chunk)))
      return failure();
  if (split)
    e.foldSplits(
        parts, splitStates, row, valid, tid, threadId, threadsPerRow, lastFlag,
        lane, warp, slot0, warpsPerRow, multiWarp,
        [&](RowPart &part, const RowState &state) { finish(part, state); });
  if (columns && !fullValues.empty())
    return storeColumnResults(chunk);
  if (!fullValues.empty()) {
    {
      OpBuilder::InsertionGuard guard(b);
      scf::ForOp loop = chunkLoop(begin, end, chunk, {});
      std::vector<Item> items = makeItems(loop.getInductionVar());
      for (Item &item : items)
        if (failed(storeFull(item)))
          return failure();
      endChunkLoop(loop);
    }
    if (ragged) {
      Item edge = edgeItem();
      if (failed(storeFull(edge)))
        return failure();
    }
  }
  return success();
}

/// One streaming pass: a loop over the chunks of [begin, end) that carries
/// the pass's states, then their block reduction.
LogicalResult KernelEmitter::RowKernelWriter::emitStreamingPass(int64_t pass,
                                                                Value begin,
                                                                Value end,
                                                                Value chunk) {
  SmallVector<RowPart *> passParts;
  SmallVector<Value> inits;
  for (RowPart &part : parts) {
    if (part.reduction->pass != pass)
      continue;
    passParts.push_back(&part);
    RowState init = e.neutralState(part);
    inits.append(init.begin(), init.end());
  }
  scf::ForOp loop;
  {
    OpBuilder::InsertionGuard guard(b);
    loop = chunkLoop(begin, end, chunk, inits);
    std::vector<Item> items = makeItems(loop.getInductionVar());
    SmallVector<Value> merged;
    unsigned at = 0;
    for (RowPart *part : passParts) {
      RowState old(loop.getRegionIterArgs().begin() + at,
                   loop.getRegionIterArgs().begin() + at + part->width());
      at += part->width();
      FailureOr<RowState> local = localState(*part, items);
      if (failed(local))
        return failure();
      RowState state = e.combineState(*part, old, *local);
      merged.append(state.begin(), state.end());
    }
    endChunkLoop(loop, merged);
  }
  // Ragged rows: the head and tail vectors (Note [Ragged rows]).
  std::vector<Item> edges;
  if (ragged)
    edges.push_back(edgeItem());
  SmallVector<RowState> states;
  unsigned at = 0;
  for (RowPart *part : passParts) {
    RowState state(loop.getResults().begin() + at,
                   loop.getResults().begin() + at + part->width());
    at += part->width();
    if (ragged) {
      FailureOr<RowState> local = localState(*part, edges);
      if (failed(local))
        return failure();
      state = e.combineState(*part, state, *local);
    }
    // Column-major rows reduce once every part's state has moved to the
    // usual threads.
    if (columns) {
      states.push_back(state);
    } else if (split) {
      splitStates.push_back(e.blockReduceState(*part, state, lane, warp, slot0,
                                               warpsPerRow, multiWarp));
    } else {
      reduceRow(*part, state);
    }
  }
  if (columns) {
    mapRows(/*loading=*/false);
    exchangeStates(passParts, states);
    SmallVector<RowState> reduced;
    for (auto [part, state] : llvm::zip(passParts, states)) {
      reduced.push_back(e.blockReduceState(*part, state, lane, warp, slot0,
                                           warpsPerRow, multiWarp,
                                           threadsPerRow));
      finish(*part, reduced.back());
    }
    // A later pass and the per-element results run in the loading mapping.
    if (pass + 1 < info.numPasses || !fullValues.empty())
      loadingRowStates(passParts, reduced);
  }
  return success();
}

/// Per-row results: computed by every thread, written by the row's first.
LogicalResult KernelEmitter::RowKernelWriter::storeRowResults() {
  if (rowValues.empty())
    return success();
  e.memo.clear();
  e.iterIndex[rank - 1] = constIdx(0);
  e.loadGuard = valid;
  SmallVector<Gen> gens;
  for (Value value : rowValues) {
    auto type = cast<RankedTensorType>(value.getType());
    // A kept innermost dim of 1 is a broadcast of the row's one value: its
    // reads are scalars, also in vector variants (a per-row gather's index
    // and the element it picks: Note [Index ops in row kernels]).
    SmallVector<int64_t> map(identity.begin(),
                             identity.begin() + type.getRank());
    if (type.getRank() == rank)
      map.back() = -1;
    FailureOr<Gen> gen = e.generate(value, map);
    if (failed(gen))
      return failure();
    gens.push_back(*gen);
  }
  e.loadGuard = Value();
  Value first = andI(valid, cmp(arith::CmpIPredicate::eq, tid, constIdx(0)));
  // Cluster rows: every block has the row's results; the first writes them.
  if (cluster)
    first =
        andI(first, cmp(arith::CmpIPredicate::eq, clusterRank, constIdx(0)));
  auto ifFirst = scf::IfOp::create(b, loc, first, false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(ifFirst.thenBlock()->getTerminator());
  for (auto [gen, value, out] : llvm::zip(gens, rowValues, rowOutputs)) {
    Type element = cast<RankedTensorType>(value.getType()).getElementType();
    Value x = gen.value;
    if (element.isInteger(1))
      x = arith::ExtUIOp::create(b, loc, b.getI8Type(), x);
    memref::StoreOp::create(b, loc, x, out, e.toIndex(row));
  }
  return success();
}

} // namespace mlir::fusion::lowering
