//===- LowerKernelOps.cpp - the pass --fusion-lower-kernel-ops ------------===//
// One rewrite pattern per kernel-level op (docs/lowering.md): reductions of
// a state over the lanes of a warp and over the warps of a thread group,
// with the op's combiner and identity regions inlined where they are used,
// the arrival counter of a grid reduction and the whole grid reduction
// around it, and the staging of values in
// dynamic shared memory.
//===----------------------------------------------------------------------===//

#include "fusion/Conversion/KernelOpsToGPU.h"
#include "fusion/Conversion/Passes.h"
#include "fusion/Dialect/Fusion/IR/FusionOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/WalkPatternRewriteDriver.h"

namespace mlir::fusion {
#define GEN_PASS_DEF_FUSIONLOWERKERNELOPS
#define GEN_PASS_DEF_FUSIONTENSORMAPPARAMS
#include "fusion/Conversion/Passes.h.inc"
} // namespace mlir::fusion

using namespace mlir;
using namespace mlir::fusion;

namespace {

/// An integer as an index (memref subscripts).
Value toIndex(OpBuilder &b, Location loc, Value v) {
  return arith::IndexCastOp::create(b, loc, b.getIndexType(), v);
}

/// Clones the one block of a state region at the insertion point, its
/// arguments bound to `args`; returns the values it yields.
SmallVector<Value> inlineStateRegion(OpBuilder &b, Region &region,
                                     ValueRange args) {
  Block &block = region.front();
  IRMapping map;
  map.map(block.getArguments(), args);
  for (Operation &op : block.without_terminator())
    b.clone(op, map);
  SmallVector<Value> yielded;
  for (Value v : block.getTerminator()->getOperands())
    yielded.push_back(map.lookupOrDefault(v));
  return yielded;
}

/// The butterfly: at distances 16, 8, 4, 2, 1 every lane takes the state of
/// the lane whose id differs in that bit and combines it with its own. With
/// `width` (groups of that many lanes, a power of two), a step whose
/// distance is not below the width keeps the lane's state (a select: the
/// shuffle of that distance brings another group's state), so groups of 32
/// lanes or more take every step and narrower ones the distances below
/// their width (Note [Narrow butterfly]).
///
/// Note [Narrow butterfly]: the narrow groups took the distances 8 to 1 in
/// a branch of their own before, each step in a branch (five branches and
/// nine shuffles per reduction). One straight-line butterfly with a select
/// per step gives ptxas less to do (a first launch's compile, Note [Warps'
/// fold]); rows of a warp or more pay five selects, narrow rows one
/// shuffle more than their steps.
SmallVector<Value> emitWarpReduce(OpBuilder &b, Location loc, ValueRange state,
                                  Region &combiner, Value width = {}) {
  SmallVector<Value> x(state);
  for (int64_t offset = 16; offset >= 1; offset /= 2) {
    SmallVector<Value> args(x);
    for (Value c : x)
      args.push_back(gpu::ShuffleOp::create(b, loc, c,
                                            static_cast<int32_t>(offset), 32,
                                            gpu::ShuffleMode::XOR)
                         .getShuffleResult());
    SmallVector<Value> combined = inlineStateRegion(b, combiner, args);
    if (!width) {
      x = combined;
      continue;
    }
    Value taken = arith::CmpIOp::create(
        b, loc, arith::CmpIPredicate::ult,
        arith::ConstantOp::create(b, loc,
                                  IntegerAttr::get(width.getType(), offset)),
        width);
    for (auto [kept, next] : llvm::zip(x, combined))
      kept = arith::SelectOp::create(b, loc, taken, next, kept);
  }
  return x;
}

struct LowerWarpReduce : OpRewritePattern<WarpReduceOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(WarpReduceOp op,
                                PatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, emitWarpReduce(rewriter, op.getLoc(), op.getState(),
                                          op.getCombiner()));
    return success();
  }
};

/// After the warp's butterfly, with several warps: lane 0 of each writes the
/// warp's state to slot `at + warp`, and after a barrier every warp folds
/// the `warps` slots with a second butterfly (Note [Warps' fold]); a second
/// barrier frees the slots for the next use.
///
/// Note [Warps' fold]: every thread folded the slots in a loop before
/// (`warps` loads and combines in a chain, which LLVM unrolled by 8 with a
/// remainder loop). Lane l taking slot l and a butterfly is one load and
/// five shuffles, straight-line code: ptxas took 17-26% less time on the
/// persistent variants of softmax, layer_norm and rms_norm, the largest
/// part of a first launch's compile (23-32% with Note [Narrow butterfly];
/// docs/performance.md, 2026-12-07). Every warp of a
/// group folds the same 32 values in the same order, so the warps agree;
/// within a warp, lanes may differ in the last bit where the combiner is not
/// commutative bit for bit (a Welford state), as after the first butterfly.
struct LowerBlockReduce : OpRewritePattern<BlockReduceOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(BlockReduceOp op,
                                PatternRewriter &rewriter) const override {
    OpBuilder &b = rewriter;
    Location loc = op.getLoc();
    Type countType = op.getLane().getType();
    auto constant = [&](int64_t v) -> Value {
      return arith::ConstantOp::create(b, loc, IntegerAttr::get(countType, v));
    };
    SmallVector<Value> x =
        emitWarpReduce(b, loc, op.getState(), op.getCombiner(), op.getWidth());
    auto ifMulti =
        scf::IfOp::create(b, loc, op.getResultTypes(), op.getMultiWarp(),
                          /*withElseRegion=*/true);
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(ifMulti.thenBlock());
      Value isLane0 = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                            op.getLane(), constant(0));
      auto write = scf::IfOp::create(b, loc, isLane0, false);
      {
        OpBuilder::InsertionGuard inner(b);
        b.setInsertionPoint(write.thenBlock()->getTerminator());
        Value at = toIndex(
            b, loc, arith::AddIOp::create(b, loc, op.getAt(), op.getWarp()));
        for (auto [c, slots] : llvm::zip(x, op.getSlots()))
          memref::StoreOp::create(b, loc, c, slots, at);
      }
      gpu::BarrierOp::create(b, loc);
      // Lane l of every warp takes slot `at + l` (the identity past
      // `warps`), and the warp's butterfly folds them.
      Value inGroup = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                            op.getLane(), op.getWarps());
      Value offset =
          arith::SelectOp::create(b, loc, inGroup, op.getLane(), constant(0));
      Value at =
          toIndex(b, loc, arith::AddIOp::create(b, loc, op.getAt(), offset));
      SmallVector<Value> init = inlineStateRegion(b, op.getIdentity(), {});
      SmallVector<Value> taken;
      for (auto [slots, identity] : llvm::zip(op.getSlots(), init))
        taken.push_back(arith::SelectOp::create(
            b, loc, inGroup, memref::LoadOp::create(b, loc, slots, at),
            identity));
      SmallVector<Value> folded =
          emitWarpReduce(b, loc, taken, op.getCombiner());
      gpu::BarrierOp::create(b, loc);
      scf::YieldOp::create(b, loc, ValueRange(folded));
    }
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(ifMulti.elseBlock());
      scf::YieldOp::create(b, loc, ValueRange(x));
    }
    rewriter.replaceOp(op, ifMulti.getResults());
    return success();
  }
};

/// Fence, barrier, one atomic increment of the group's counter by thread 0
/// (the old value tells whether this block is the last), the answer through
/// the shared flag, barrier, and every thread reads the flag.
Value emitGridArrive(OpBuilder &b, Location loc, Value thread, Value active,
                     Value counters, Value group, Value splits, Value flag) {
  createGpuFence(b, loc);
  gpu::BarrierOp::create(b, loc);
  Type countType = thread.getType();
  Value counting = arith::CmpIOp::create(
      b, loc, arith::CmpIPredicate::eq, thread,
      arith::ConstantOp::create(b, loc, IntegerAttr::get(countType, 0)));
  if (active)
    counting = arith::AndIOp::create(b, loc, active, counting);
  {
    auto ifCounting = scf::IfOp::create(b, loc, counting, false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(ifCounting.thenBlock()->getTerminator());
    Value one = arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(1));
    Value old =
        memref::AtomicRMWOp::create(b, loc, arith::AtomicRMWKind::addi, one,
                                    counters, toIndex(b, loc, group));
    Value splits32 =
        splits.getType().isInteger(32)
            ? splits
            : arith::TruncIOp::create(b, loc, b.getI32Type(), splits)
                  .getResult();
    Value last = arith::SubIOp::create(b, loc, splits32, one);
    Value isLast = arith::ExtUIOp::create(
        b, loc, b.getI32Type(),
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, old, last));
    Value zero =
        arith::ConstantOp::create(b, loc, IntegerAttr::get(group.getType(), 0));
    memref::StoreOp::create(b, loc, isLast, flag, toIndex(b, loc, zero));
  }
  gpu::BarrierOp::create(b, loc);
  Value zero =
      arith::ConstantOp::create(b, loc, IntegerAttr::get(group.getType(), 0));
  Value read = memref::LoadOp::create(b, loc, flag, toIndex(b, loc, zero));
  return arith::CmpIOp::create(
      b, loc, arith::CmpIPredicate::ne, read,
      arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(0)));
}

struct LowerGridArrive : OpRewritePattern<GridArriveOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(GridArriveOp op,
                                PatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, emitGridArrive(rewriter, op.getLoc(), op.getThread(),
                                          op.getActive(), op.getCounters(),
                                          op.getGroup(), op.getSplits(),
                                          op.getFlag()));
    return success();
  }
};

/// A component of a state in a workspace: a vector as consecutive elements.
void storeComponent(OpBuilder &b, Location loc, Value x, Value workspace,
                    Value at) {
  if (isa<VectorType>(x.getType()))
    vector::StoreOp::create(b, loc, x, workspace, at);
  else
    memref::StoreOp::create(b, loc, x, workspace, at);
}

Value loadComponent(OpBuilder &b, Location loc, Type type, Value workspace,
                    Value at) {
  if (isa<VectorType>(type))
    return vector::LoadOp::create(b, loc, type, workspace, at);
  return memref::LoadOp::create(b, loc, workspace, at);
}

/// Note [Grid reduction]: the writers store the partial at base + split *
/// stride, the blocks arrive, and the last block (after a fence of its own)
/// resets the counter, folds the partials each thread takes, and runs the
/// `last` region on its fold.
struct LowerGridReduce : OpRewritePattern<GridReduceOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(GridReduceOp op,
                                PatternRewriter &rewriter) const override {
    OpBuilder &b = rewriter;
    Location loc = op.getLoc();
    auto slotOf = [&](Value i) -> Value {
      Value offset =
          matchPattern(op.getStride(), m_One())
              ? i
              : arith::MulIOp::create(b, loc, i, op.getStride()).getResult();
      return toIndex(b, loc,
                     arith::AddIOp::create(b, loc, op.getBase(), offset));
    };
    {
      auto ifWriter = scf::IfOp::create(b, loc, op.getWriter(), false);
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPoint(ifWriter.thenBlock()->getTerminator());
      Value at = slotOf(op.getSplit());
      for (auto [x, workspace] : llvm::zip(op.getState(), op.getWorkspaces()))
        storeComponent(b, loc, x, workspace, at);
    }
    Value last =
        emitGridArrive(b, loc, op.getThread(), op.getActive(), op.getCounters(),
                       op.getGroup(), op.getSplits(), op.getFlag());
    if (op.getActive())
      last = arith::AndIOp::create(b, loc, op.getActive(), last);
    auto ifLast = scf::IfOp::create(b, loc, last, false);
    b.setInsertionPoint(ifLast.thenBlock()->getTerminator());
    createGpuFence(b, loc);
    {
      Type countType = op.getThread().getType();
      auto ifFirst = scf::IfOp::create(
          b, loc,
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                op.getThread(),
                                arith::ConstantOp::create(
                                    b, loc, IntegerAttr::get(countType, 0))),
          false);
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPoint(ifFirst.thenBlock()->getTerminator());
      memref::StoreOp::create(
          b, loc, arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(0)),
          op.getCounters(), toIndex(b, loc, op.getGroup()));
    }
    SmallVector<Value> init = inlineStateRegion(b, op.getIdentity(), {});
    auto fold = scf::ForOp::create(b, loc, op.getFirst(), op.getSplits(),
                                   op.getStep(), ValueRange(init));
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(fold.getBody());
      Value at = slotOf(fold.getInductionVar());
      auto loadAll = [&]() {
        SmallVector<Value> loaded;
        for (auto [x, workspace] : llvm::zip(op.getState(), op.getWorkspaces()))
          loaded.push_back(loadComponent(b, loc, x.getType(), workspace, at));
        return loaded;
      };
      SmallVector<Value> partial;
      if (Value inRange = op.getInRange()) {
        auto ifIn = scf::IfOp::create(b, loc, op.getState().getTypes(), inRange,
                                      /*withElseRegion=*/true);
        OpBuilder::InsertionGuard inner(b);
        b.setInsertionPointToStart(ifIn.thenBlock());
        scf::YieldOp::create(b, loc, ValueRange(loadAll()));
        b.setInsertionPointToStart(ifIn.elseBlock());
        scf::YieldOp::create(
            b, loc, ValueRange(inlineStateRegion(b, op.getIdentity(), {})));
        partial.assign(ifIn.getResults().begin(), ifIn.getResults().end());
      } else {
        partial = loadAll();
      }
      SmallVector<Value> args(fold.getRegionIterArgs());
      args.append(partial);
      scf::YieldOp::create(
          b, loc, ValueRange(inlineStateRegion(b, op.getCombiner(), args)));
    }
    inlineStateRegion(b, op.getLast(), fold.getResults());
    rewriter.eraseOp(op);
    return success();
  }
};

/// Byte `offset` of the block's dynamic shared memory, as a shared pointer.
Value dynamicSmemAt(OpBuilder &b, Location loc, Value offset) {
  auto sharedPtr = LLVM::LLVMPointerType::get(
      b.getContext(), static_cast<unsigned>(NVVM::NVVMMemorySpace::Shared));
  Value base = LLVM::AddressOfOp::create(b, loc, sharedPtr, kDynamicSmemSymbol);
  return LLVM::GEPOp::create(b, loc, sharedPtr, b.getI8Type(), base,
                             ValueRange{offset});
}

/// A staged access's alignment: the size of the value in bytes.
unsigned stagedBytes(Type type) {
  int64_t count = 1;
  if (auto vector = dyn_cast<VectorType>(type)) {
    count = vector.getNumElements();
    type = vector.getElementType();
  }
  return static_cast<unsigned>(count * type.getIntOrFloatBitWidth() / 8);
}

// Note [Staged rows]: the accesses are volatile through the address of the
// dynamic shared memory: it is an external global that nothing else in the
// kernel reaches, so LLVM would otherwise forward the stored registers to
// every load (and drop the stores).
struct LowerStageStore : OpRewritePattern<StageStoreOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(StageStoreOp op,
                                PatternRewriter &rewriter) const override {
    Value at = dynamicSmemAt(rewriter, op.getLoc(), op.getOffset());
    rewriter.replaceOpWithNewOp<LLVM::StoreOp>(
        op, op.getValue(), at, stagedBytes(op.getValue().getType()),
        /*isVolatile=*/true);
    return success();
  }
};

struct LowerStageLoad : OpRewritePattern<StageLoadOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(StageLoadOp op,
                                PatternRewriter &rewriter) const override {
    Value at = dynamicSmemAt(rewriter, op.getLoc(), op.getOffset());
    Type type = op.getResult().getType();
    rewriter.replaceOpWithNewOp<LLVM::LoadOp>(op, type, at, stagedBytes(type),
                                              /*isVolatile=*/true);
    return success();
  }
};

/// The global-memory pointer (address space 1) to element `index` of the
/// memref `source`: what cp.async and cp.async.bulk read from.
Value globalElementPointer(OpBuilder &b, Location loc, Value source,
                           Value index) {
  int64_t elementBytes =
      cast<MemRefType>(source.getType()).getElementTypeBitWidth() / 8;
  Value base = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, source);
  Value address = arith::AddIOp::create(
      b, loc, base,
      arith::MulIOp::create(
          b, loc, index, arith::ConstantIndexOp::create(b, loc, elementBytes)));
  Value address64 = arith::IndexCastOp::create(b, loc, b.getI64Type(), address);
  auto global = LLVM::LLVMPointerType::get(
      b.getContext(), static_cast<unsigned>(NVVM::NVVMMemorySpace::Global));
  return LLVM::IntToPtrOp::create(b, loc, global, address64);
}

// Note [Async staged rows] (FusionDeviceOps.td): each piece of at most 16
// bytes is one cp.async; a source size of 0 where `valid` is false fills
// the slot with zeros and reads nothing.
struct LowerStageCopy : OpRewritePattern<StageCopyOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(StageCopyOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    OpBuilder &b = rewriter;
    Value src = globalElementPointer(b, loc, op.getSource(), op.getIndex());
    Value dst = dynamicSmemAt(b, loc, op.getOffset());
    int64_t bytes = op.getBytes();
    int64_t piece = std::min<int64_t>(bytes, 16);
    Value full = LLVM::ConstantOp::create(b, loc, b.getI32Type(), piece);
    Value none = LLVM::ConstantOp::create(b, loc, b.getI32Type(), 0);
    Value size = arith::SelectOp::create(b, loc, op.getValid(), full, none);
    auto modifier = piece == 16 ? NVVM::LoadCacheModifierKind::CG
                                : NVVM::LoadCacheModifierKind::CA;
    for (int64_t at = 0; at < bytes; at += piece) {
      Value to = dst, from = src;
      if (at) {
        to = LLVM::GEPOp::create(b, loc, dst.getType(), b.getI8Type(), dst,
                                 ArrayRef<LLVM::GEPArg>{at});
        from = LLVM::GEPOp::create(b, loc, src.getType(), b.getI8Type(), src,
                                   ArrayRef<LLVM::GEPArg>{at});
      }
      NVVM::CpAsyncOp::create(
          b, loc, to, from, b.getI32IntegerAttr(piece),
          NVVM::LoadCacheModifierKindAttr::get(b.getContext(), modifier), size);
    }
    rewriter.eraseOp(op);
    return success();
  }
};

/// An op without operands that is one NVVM op without operands (the
/// commits of copy groups).
template <typename From, typename To>
struct LowerToNvvm : OpRewritePattern<From> {
  using OpRewritePattern<From>::OpRewritePattern;
  LogicalResult matchAndRewrite(From op,
                                PatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<To>(op);
    return success();
  }
};

struct LowerStageWait : OpRewritePattern<StageWaitOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(StageWaitOp op,
                                PatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<NVVM::CpAsyncWaitGroupOp>(
        op, static_cast<int32_t>(op.getPending()));
    return success();
  }
};

// Note [Bulk copies] (FusionDeviceOps.td): the tiles and barriers are
// workgroup memrefs; NVVM's bulk-copy and mbarrier ops take shared-window
// pointers (address space 3), made from the memref's aligned pointer.
Value sharedPointer(OpBuilder &b, Location loc, Value memref) {
  Value address =
      memref::ExtractAlignedPointerAsIndexOp::create(b, loc, memref);
  Value i64 = arith::IndexCastOp::create(b, loc, b.getI64Type(), address);
  auto shared = LLVM::LLVMPointerType::get(
      b.getContext(), static_cast<unsigned>(NVVM::NVVMMemorySpace::Shared));
  return LLVM::IntToPtrOp::create(b, loc, shared, i64);
}

/// The shared-window address of barrier `index` of `barriers`.
Value barrierPointer(OpBuilder &b, Location loc, Value barriers, Value index) {
  Value base = sharedPointer(b, loc, barriers);
  Value i = arith::IndexCastOp::create(b, loc, b.getI64Type(), index);
  return LLVM::GEPOp::create(b, loc, base.getType(), b.getI64Type(), base,
                             ValueRange{i});
}

struct LowerMBarrierInit : OpRewritePattern<MBarrierInitOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(MBarrierInitOp op,
                                PatternRewriter &rewriter) const override {
    Value bar =
        barrierPointer(rewriter, op.getLoc(), op.getBarriers(), op.getIndex());
    rewriter.replaceOpWithNewOp<NVVM::MBarrierInitOp>(op, bar, op.getCount(),
                                                      Value());
    return success();
  }
};

struct LowerMBarrierArriveExpectTx
    : OpRewritePattern<MBarrierArriveExpectTxOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(MBarrierArriveExpectTxOp op,
                                PatternRewriter &rewriter) const override {
    Value bar =
        barrierPointer(rewriter, op.getLoc(), op.getBarriers(), op.getIndex());
    rewriter.replaceOpWithNewOp<NVVM::MBarrierArriveExpectTxOp>(
        op, Type(), bar, op.getBytes(), NVVM::MemScopeKind::CTA,
        /*relaxed=*/false, Value());
    return success();
  }
};

/// The suspend-time hint of each try_wait round, in ns (a wait loops until
/// the phase completes).
constexpr int32_t kTryWaitTicks = 0x989680;

struct LowerMBarrierWait : OpRewritePattern<MBarrierWaitOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(MBarrierWaitOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value bar = barrierPointer(rewriter, loc, op.getBarriers(), op.getIndex());
    Value ticks = arith::ConstantIntOp::create(
        rewriter, loc, rewriter.getI32Type(), kTryWaitTicks);
    rewriter.replaceOpWithNewOp<NVVM::MBarrierTryWaitParityOp>(
        op, bar, op.getPhase(), ticks);
    return success();
  }
};

struct LowerBulkTensorLoad : OpRewritePattern<BulkTensorLoadOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(BulkTensorLoadOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value tile = sharedPointer(rewriter, loc, op.getTile());
    Value bar = barrierPointer(rewriter, loc, op.getBarriers(), op.getIndex());
    // The destination as a shared::cluster address (a CTA's own shared
    // address is one), the form sm_90 has: cp.async.bulk.tensor into
    // shared::cta needs a newer PTX ISA.
    tile = LLVM::AddrSpaceCastOp::create(
        rewriter, loc,
        LLVM::LLVMPointerType::get(
            getContext(),
            static_cast<unsigned>(NVVM::NVVMMemorySpace::SharedCluster)),
        tile);
    // NVVM takes the coordinates innermost first; the op, outermost first.
    SmallVector<Value> coordinates(llvm::reverse(op.getCoordinates()));
    rewriter.replaceOpWithNewOp<NVVM::CpAsyncBulkTensorGlobalToSharedClusterOp>(
        op, tile, op.getTensorMap(), coordinates, bar, ValueRange{},
        /*multicastMask=*/Value(), /*l2CacheHint=*/Value(),
        NVVM::TMALoadMode::TILE, /*isCTAOnly=*/false, NVVM::CTAGroupKindAttr(),
        /*predicate=*/Value());
    return success();
  }
};

// Note [Bulk staged rows] (FusionDeviceOps.td): one cp.async.bulk into the
// dynamic shared memory, addressed as shared::cluster (a CTA's own shared
// address is one, and sm_90's PTX has that form only).
struct LowerStageBulkCopy : OpRewritePattern<StageBulkCopyOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(StageBulkCopyOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    OpBuilder &b = rewriter;
    Value src = globalElementPointer(b, loc, op.getSource(), op.getIndex());
    Value dst = LLVM::AddrSpaceCastOp::create(
        b, loc,
        LLVM::LLVMPointerType::get(
            b.getContext(),
            static_cast<unsigned>(NVVM::NVVMMemorySpace::SharedCluster)),
        dynamicSmemAt(b, loc, op.getOffset()));
    Value bar = barrierPointer(b, loc, op.getBarriers(), op.getBarrier());
    rewriter.replaceOpWithNewOp<NVVM::CpAsyncBulkGlobalToSharedClusterOp>(
        op, dst, src, bar, op.getBytes(), /*multicastMask=*/Value(),
        /*l2CacheHint=*/Value());
    return success();
  }
};

struct LowerBulkTensorStore : OpRewritePattern<BulkTensorStoreOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(BulkTensorStoreOp op,
                                PatternRewriter &rewriter) const override {
    Value tile = sharedPointer(rewriter, op.getLoc(), op.getTile());
    SmallVector<Value> coordinates(llvm::reverse(op.getCoordinates()));
    rewriter.replaceOpWithNewOp<NVVM::CpAsyncBulkTensorSharedCTAToGlobalOp>(
        op, op.getTensorMap(), tile, coordinates, /*l2CacheHint=*/Value(),
        NVVM::TMAStoreMode::TILE, /*predicate=*/Value());
    return success();
  }
};

struct LowerBulkWaitGroup : OpRewritePattern<BulkWaitGroupOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(BulkWaitGroupOp op,
                                PatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<NVVM::CpAsyncBulkWaitGroupOp>(
        op, static_cast<uint32_t>(op.getPending()),
        op.getRead() ? rewriter.getUnitAttr() : UnitAttr());
    return success();
  }
};

struct LowerFenceAsyncShared : OpRewritePattern<FenceAsyncSharedOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(FenceAsyncSharedOp op,
                                PatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<NVVM::FenceProxyOp>(
        op, NVVM::ProxyKind::async_shared,
        NVVM::SharedSpaceAttr::get(getContext(),
                                   NVVM::SharedSpace::shared_cta));
    return success();
  }
};

struct LowerPrefetchTensorMap : OpRewritePattern<PrefetchTensorMapOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(PrefetchTensorMapOp op,
                                PatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<NVVM::PrefetchOp>(
        op, NVVM::PrefetchCacheLevelAttr(), NVVM::CacheEvictionPriorityAttr(),
        op.getTensorMap(), /*predicate=*/Value(), /*tensormap=*/true);
    return success();
  }
};

/// Note [Cluster reductions] (FusionDeviceOps.td): the block's rank is
/// %cluster_ctarank.
struct LowerClusterRank : OpRewritePattern<ClusterRankOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ClusterRankOp op,
                                PatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<NVVM::ClusterId>(op, rewriter.getI32Type());
    return success();
  }
};

/// Note [Cluster reductions]: folds the ranks' states `read[k]` into `acc`
/// in order, each only where `present[k]` holds (a rank of the cluster).
static SmallVector<Value> foldInRankOrder(OpBuilder &b, Location loc,
                                          Region &combiner, ValueRange init,
                                          ArrayRef<SmallVector<Value>> read,
                                          ArrayRef<Value> present) {
  SmallVector<Value> acc(init);
  for (auto [states, inCluster] : llvm::zip(read, present)) {
    SmallVector<Value> args(acc);
    args.append(states);
    SmallVector<Value> combined = inlineStateRegion(b, combiner, args);
    for (auto [a, c] : llvm::zip(acc, combined))
      a = arith::SelectOp::create(b, loc, inCluster, c, a);
  }
  return acc;
}

/// Leaders store, cluster barrier, every thread folds slot 0 of ranks 0 ..
/// %cluster_nctarank - 1 through mapa (the rank's shared::cluster address
/// of the same slot) from the identity, then a second cluster barrier.
/// barrier.cluster's arrive releases and its wait acquires by default, so
/// the stores are visible to the loads; both are .aligned (every thread
/// reaches the op). The ranks are read kClusterReadsInFlight at a time:
/// each rank's load under its own branch (a rank past the cluster's last
/// reads nothing), all issued before any is folded, then folded in rank
/// order, so every block combines the same states in the same order.
struct LowerClusterReduce : OpRewritePattern<ClusterReduceOp> {
  using OpRewritePattern::OpRewritePattern;
  static constexpr int64_t kClusterReadsInFlight = 4;
  LogicalResult matchAndRewrite(ClusterReduceOp op,
                                PatternRewriter &rewriter) const override {
    if (op.getBarriers())
      return throughBarriers(op, rewriter);
    OpBuilder &b = rewriter;
    Location loc = op.getLoc();
    Value first = arith::ConstantIndexOp::create(b, loc, 0);
    {
      auto write = scf::IfOp::create(b, loc, op.getLeader(), false);
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPoint(write.thenBlock()->getTerminator());
      for (auto [c, slots] : llvm::zip(op.getState(), op.getSlots()))
        memref::StoreOp::create(b, loc, c, slots, ValueRange{first});
    }
    auto clusterBarrier = [&] {
      NVVM::ClusterArriveOp::create(b, loc, b.getUnitAttr());
      NVVM::ClusterWaitOp::create(b, loc, b.getUnitAttr());
    };
    clusterBarrier();
    Type i32 = b.getI32Type();
    Value blocks = NVVM::ClusterDim::create(b, loc, i32);
    SmallVector<Value> init = inlineStateRegion(b, op.getIdentity(), {});
    SmallVector<Value> local;
    for (Value slots : op.getSlots())
      local.push_back(sharedPointer(b, loc, slots));
    auto fold = scf::ForOp::create(
        b, loc, arith::ConstantIntOp::create(b, loc, i32, 0), blocks,
        arith::ConstantIntOp::create(b, loc, i32, kClusterReadsInFlight),
        ValueRange(init));
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(fold.getBody());
      auto remoteType = LLVM::LLVMPointerType::get(
          b.getContext(),
          static_cast<unsigned>(NVVM::NVVMMemorySpace::SharedCluster));
      SmallVector<Value> present;
      SmallVector<SmallVector<Value>> read;
      for (int64_t k = 0; k < kClusterReadsInFlight; ++k) {
        Value rank =
            arith::AddIOp::create(b, loc, fold.getInductionVar(),
                                  arith::ConstantIntOp::create(b, loc, i32, k));
        Value inCluster = arith::CmpIOp::create(
            b, loc, arith::CmpIPredicate::ult, rank, blocks);
        auto ifRead = scf::IfOp::create(b, loc, TypeRange(ValueRange(init)),
                                        inCluster, /*withElse=*/true);
        {
          OpBuilder::InsertionGuard inner(b);
          b.setInsertionPointToStart(ifRead.thenBlock());
          SmallVector<Value> values;
          for (auto [slots, pointer] : llvm::zip(op.getSlots(), local)) {
            Value remote =
                NVVM::MapaOp::create(b, loc, remoteType, pointer, rank);
            // The slot's natural alignment (a workgroup buffer of its
            // element type), so 64-bit states load whole.
            Type element = cast<MemRefType>(slots.getType()).getElementType();
            values.push_back(LLVM::LoadOp::create(
                b, loc, element, remote, element.getIntOrFloatBitWidth() / 8));
          }
          scf::YieldOp::create(b, loc, values);
          b.setInsertionPointToStart(ifRead.elseBlock());
          scf::YieldOp::create(b, loc, init);
        }
        present.push_back(inCluster);
        read.push_back(SmallVector<Value>(ifRead.getResults()));
      }
      scf::YieldOp::create(b, loc,
                           foldInRankOrder(b, loc, op.getCombiner(),
                                           fold.getRegionIterArgs(), read,
                                           present));
    }
    clusterBarrier();
    rewriter.replaceOp(op, fold.getResults());
    return success();
  }

  /// Note [Cluster reductions through mbarriers] (FusionDeviceOps.td).
  LogicalResult throughBarriers(ClusterReduceOp op,
                                PatternRewriter &rewriter) const;
};

/// st.async of a 32- or 64-bit value to `remote` (a shared::cluster
/// address), completing its bytes on the mbarrier at `remoteBarrier`. NVVM
/// has no op for it: inline PTX, which needs PTX ISA 8.1 (Note [PTX ISA of
/// inline PTX] in KernelModules.cpp).
static void createStAsync(OpBuilder &b, Location loc, Value value, Value remote,
                          Value remoteBarrier) {
  unsigned bits = value.getType().getIntOrFloatBitWidth();
  Type integer = b.getIntegerType(bits);
  if (isa<FloatType>(value.getType()))
    value = arith::BitcastOp::create(b, loc, integer, value);
  Value address = LLVM::PtrToIntOp::create(b, loc, b.getI64Type(), remote);
  Value barrier =
      LLVM::PtrToIntOp::create(b, loc, b.getI64Type(), remoteBarrier);
  std::string text = "st.async.shared::cluster.mbarrier::complete_tx::bytes.b" +
                     std::to_string(bits) + " [$0], $1, [$2];";
  LLVM::InlineAsmOp::create(
      b, loc, TypeRange{}, ValueRange{address, value, barrier},
      b.getStringAttr(text),
      b.getStringAttr(bits == 64 ? "l,l,l,~{memory}" : "l,r,l,~{memory}"),
      b.getUnitAttr(), UnitAttr(), LLVM::TailCallKindAttr(),
      LLVM::AsmDialectAttr(), ArrayAttr());
}

/// Rounds through mbarriers: the leader arrives on its mbarrier of the
/// round's set expecting every block's bytes, then sends its state to
/// element `set * half + rank` of every block's slots (st.async, completing
/// on that block's mbarrier); every thread waits for the round's phase and
/// folds elements `set * half + 0 .. blocks - 1` of its own slots, issued
/// kClusterReadsInFlight at a time, in rank order, so every block combines
/// the same states in the same order.
LogicalResult
LowerClusterReduce::throughBarriers(ClusterReduceOp op,
                                    PatternRewriter &rewriter) const {
  OpBuilder &b = rewriter;
  Location loc = op.getLoc();
  Type i32 = b.getI32Type();
  auto constI32 = [&](int64_t v) {
    return arith::ConstantIntOp::create(b, loc, i32, v);
  };
  Value two = arith::ConstantIndexOp::create(b, loc, 2);
  Value round = op.getRound();
  if (!round.getType().isIndex())
    round = arith::IndexCastUIOp::create(b, loc, b.getIndexType(), round);
  Value set = arith::RemUIOp::create(b, loc, round, two);
  Value phase = arith::IndexCastUIOp::create(
      b, loc, i32,
      arith::RemUIOp::create(b, loc, arith::DivUIOp::create(b, loc, round, two),
                             two));
  Value blocks = NVVM::ClusterDim::create(b, loc, i32);
  Value rank = NVVM::ClusterId::create(b, loc, i32);
  Value barrier = barrierPointer(b, loc, op.getBarriers(), set);
  int64_t bytes = 0;
  SmallVector<Value> setBase;
  SmallVector<int64_t> halves;
  for (Value slots : op.getSlots()) {
    auto type = cast<MemRefType>(slots.getType());
    bytes += type.getElementTypeBitWidth() / 8;
    int64_t half = type.getNumElements() / 2;
    halves.push_back(half);
    Value first = arith::IndexCastOp::create(
        b, loc, b.getI64Type(),
        arith::MulIOp::create(b, loc, set,
                              arith::ConstantIndexOp::create(b, loc, half)));
    Value base = sharedPointer(b, loc, slots);
    setBase.push_back(LLVM::GEPOp::create(b, loc, base.getType(),
                                          type.getElementType(), base,
                                          ValueRange{first}));
  }
  auto remoteType = LLVM::LLVMPointerType::get(
      b.getContext(),
      static_cast<unsigned>(NVVM::NVVMMemorySpace::SharedCluster));
  {
    auto send = scf::IfOp::create(b, loc, op.getLeader(), false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(send.thenBlock()->getTerminator());
    NVVM::MBarrierArriveExpectTxOp::create(
        b, loc, Type(), barrier,
        arith::MulIOp::create(b, loc, blocks, constI32(bytes)),
        NVVM::MemScopeKind::CTA, /*relaxed=*/false, Value());
    auto to = scf::ForOp::create(b, loc, constI32(0), blocks, constI32(1));
    b.setInsertionPointToStart(to.getBody());
    Value peer = to.getInductionVar();
    Value remoteBarrier =
        NVVM::MapaOp::create(b, loc, remoteType, barrier, peer);
    Value rank64 = arith::ExtUIOp::create(b, loc, b.getI64Type(), rank);
    for (auto [c, slots, base] :
         llvm::zip(op.getState(), op.getSlots(), setBase)) {
      Type element = cast<MemRefType>(slots.getType()).getElementType();
      Value mine = LLVM::GEPOp::create(b, loc, base.getType(), element, base,
                                       ValueRange{rank64});
      createStAsync(b, loc, c,
                    NVVM::MapaOp::create(b, loc, remoteType, mine, peer),
                    remoteBarrier);
    }
  }
  NVVM::MBarrierTryWaitParityOp::create(b, loc, barrier, phase,
                                        constI32(kTryWaitTicks));
  SmallVector<Value> init = inlineStateRegion(b, op.getIdentity(), {});
  auto fold =
      scf::ForOp::create(b, loc, constI32(0), blocks,
                         constI32(kClusterReadsInFlight), ValueRange(init));
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(fold.getBody());
    SmallVector<Value> present;
    SmallVector<SmallVector<Value>> read;
    for (int64_t k = 0; k < kClusterReadsInFlight; ++k) {
      Value from =
          arith::AddIOp::create(b, loc, fold.getInductionVar(), constI32(k));
      present.push_back(arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                              from, blocks));
      SmallVector<Value> values;
      for (auto [slots, base, half] :
           llvm::zip(op.getSlots(), setBase, halves)) {
        // Past the cluster's last rank: an element of the set all the same
        // (never folded), so the loads need no branch.
        Value at = arith::ExtUIOp::create(
            b, loc, b.getI64Type(),
            arith::MinUIOp::create(b, loc, from, constI32(half - 1)));
        Type element = cast<MemRefType>(slots.getType()).getElementType();
        Value pointer = LLVM::GEPOp::create(b, loc, base.getType(), element,
                                            base, ValueRange{at});
        values.push_back(LLVM::LoadOp::create(
            b, loc, element, pointer, element.getIntOrFloatBitWidth() / 8));
      }
      read.push_back(values);
    }
    scf::YieldOp::create(b, loc,
                         foldInRankOrder(b, loc, op.getCombiner(),
                                         fold.getRegionIterArgs(), read,
                                         present));
  }
  rewriter.replaceOp(op, fold.getResults());
  return success();
}

/// Note [Cluster reductions through mbarriers]: thread 0 initializes both
/// mbarriers of every operand for one arrival, fence.mbarrier_init makes the
/// initialization visible to the cluster, then an aligned cluster barrier
/// (arrive relaxed: the fence has ordered what needs ordering).
struct LowerClusterReduceInit : OpRewritePattern<ClusterReduceInitOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ClusterReduceInitOp op,
                                PatternRewriter &rewriter) const override {
    OpBuilder &b = rewriter;
    Location loc = op.getLoc();
    Type i32 = b.getI32Type();
    Value zero = arith::ConstantIntOp::create(b, loc, i32, 0);
    Value linear = NVVM::ThreadIdXOp::create(b, loc, i32);
    Value y = NVVM::ThreadIdYOp::create(b, loc, i32);
    Value z = NVVM::ThreadIdZOp::create(b, loc, i32);
    Value first = arith::AndIOp::create(
        b, loc,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, linear, zero),
        arith::AndIOp::create(
            b, loc,
            arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, y, zero),
            arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, z, zero)));
    {
      auto init = scf::IfOp::create(b, loc, first, false);
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPoint(init.thenBlock()->getTerminator());
      Value one = arith::ConstantIntOp::create(b, loc, i32, 1);
      for (Value barriers : op.getBarriers())
        for (int64_t i = 0; i < 2; ++i)
          NVVM::MBarrierInitOp::create(
              b, loc,
              barrierPointer(b, loc, barriers,
                             arith::ConstantIndexOp::create(b, loc, i)),
              one, Value());
    }
    NVVM::FenceMbarrierInitOp::create(b, loc);
    NVVM::ClusterArriveRelaxedOp::create(b, loc, b.getUnitAttr());
    NVVM::ClusterWaitOp::create(b, loc, b.getUnitAttr());
    rewriter.eraseOp(op);
    return success();
  }
};

/// Declares the dynamic shared memory in each gpu.module that stages
/// values: an external zero-sized array (PTX `.extern .shared`). An internal
/// one (what gpu.dynamic_shared_memory lowers to) is demoted by the NVPTX
/// backend to a one-byte static array in the function, which the staged
/// slots would then overrun.
void declareDynamicSmem(Operation *root) {
  root->walk([](gpu::GPUModuleOp module) {
    bool stages = false;
    module.walk([&](Operation *op) {
      if (isa<StageStoreOp, StageLoadOp, StageCopyOp, StageBulkCopyOp>(op)) {
        stages = true;
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    if (!stages || SymbolTable::lookupSymbolIn(module, kDynamicSmemSymbol))
      return;
    OpBuilder b = OpBuilder::atBlockBegin(module.getBody());
    LLVM::GlobalOp::create(
        b, module.getLoc(), LLVM::LLVMArrayType::get(b.getI8Type(), 0),
        /*isConstant=*/false, LLVM::Linkage::External, kDynamicSmemSymbol,
        Attribute(), /*alignment=*/16,
        static_cast<unsigned>(NVVM::NVVMMemorySpace::Shared));
  });
}

struct FusionLowerKernelOpsPass
    : mlir::fusion::impl::FusionLowerKernelOpsBase<FusionLowerKernelOpsPass> {
  void runOnOperation() override {
    declareDynamicSmem(getOperation());
    RewritePatternSet patterns(&getContext());
    patterns.add<
        LowerWarpReduce, LowerBlockReduce, LowerGridArrive, LowerGridReduce,
        LowerStageStore, LowerStageLoad, LowerStageCopy,
        LowerToNvvm<StageCommitOp, NVVM::CpAsyncCommitGroupOp>, LowerStageWait,
        LowerMBarrierInit, LowerMBarrierArriveExpectTx, LowerMBarrierWait,
        LowerBulkTensorLoad, LowerStageBulkCopy, LowerBulkTensorStore,
        LowerToNvvm<BulkCommitGroupOp, NVVM::CpAsyncBulkCommitGroupOp>,
        LowerBulkWaitGroup, LowerFenceAsyncShared, LowerPrefetchTensorMap,
        LowerClusterRank, LowerClusterReduce, LowerClusterReduceInit>(
        &getContext());
    // A walk, not the greedy driver: the ops are rewritten in place, in
    // order, and nothing else is folded, so the rewritten kernels are the
    // ones the lowering would have written directly.
    walkAndApplyPatterns(getOperation(), std::move(patterns));
  }
};

/// Note [Tensor map parameters] (Passes.td).
struct FusionTensorMapParamsPass
    : mlir::fusion::impl::FusionTensorMapParamsBase<FusionTensorMapParamsPass> {
  void runOnOperation() override {
    MLIRContext *context = &getContext();
    auto result = getOperation()->walk([&](LLVM::LLVMFuncOp func) {
      auto count = func->getAttrOfType<IntegerAttr>(kTensorMapsAttr);
      if (!count)
        return WalkResult::advance();
      int64_t n = count.getInt();
      if (n < 0 || n > static_cast<int64_t>(func.getNumArguments())) {
        func.emitOpError() << "has " << kTensorMapsAttr << " = " << n << " but "
                           << func.getNumArguments() << " arguments";
        return WalkResult::interrupt();
      }
      auto generic = LLVM::LLVMPointerType::get(context);
      for (int64_t i = 0; i < n; ++i) {
        if (func.getArgument(i).getType() != generic) {
          func.emitOpError()
              << "passes tensor map " << i << " as an argument of type "
              << func.getArgument(i).getType()
              << "; expected a generic !llvm.ptr";
          return WalkResult::interrupt();
        }
        func.setArgAttr(i, LLVM::LLVMDialect::getByValAttrName(),
                        TypeAttr::get(LLVM::LLVMArrayType::get(
                            IntegerType::get(context, 8), 128)));
        func.setArgAttr(i, LLVM::LLVMDialect::getAlignAttrName(),
                        IntegerAttr::get(IntegerType::get(context, 64), 64));
        func.setArgAttr(i, NVVM::NVVMDialect::getGridConstantAttrName(),
                        UnitAttr::get(context));
      }
      func->removeAttr(kTensorMapsAttr);
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }
};

} // namespace

void mlir::fusion::createGpuFence(OpBuilder &b, Location loc) {
  LLVM::InlineAsmOp::create(
      b, loc, TypeRange{}, ValueRange{}, b.getStringAttr("fence.acq_rel.gpu;"),
      b.getStringAttr("~{memory}"), b.getUnitAttr(), UnitAttr(),
      LLVM::TailCallKindAttr(), LLVM::AsmDialectAttr(), ArrayAttr());
}
