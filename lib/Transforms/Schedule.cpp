//===- Schedule.cpp - choose a schedule for every kernel ------------------===//
// Heuristics that turn a kernel's shapes, dtypes and the target into a
// schedule attribute. Decisions are data: a hand-written schedule is kept.
//===----------------------------------------------------------------------===//

#include "fusion/Transforms/Passes.h"

#include "llvm/Support/raw_ostream.h"

namespace mlir::fusion {
#define GEN_PASS_DEF_FUSIONSCHEDULE
#include "fusion/Transforms/Passes.h.inc"
} // namespace mlir::fusion

using namespace mlir;
using namespace mlir::fusion;

namespace {

/// Bytes of one element in memory (i1 is stored as a byte).
int64_t storageBytes(Type element) {
  return std::max<int64_t>(1, element.getIntOrFloatBitWidth() / 8);
}

bool isPointwiseOp(Operation *op) {
  return op->hasTrait<FusionElementwise>() ||
         isa<BroadcastInDimOp, ExpandOp, PermuteOp, SqueezeOp, FullOp, YieldOp>(
             op) ||
         op->getDialect()->getNamespace() == "arith";
}

struct FusionSchedulePass
    : mlir::fusion::impl::FusionScheduleBase<FusionSchedulePass> {
  using FusionScheduleBase::FusionScheduleBase;

  void runOnOperation() override {
    WalkResult result = getOperation().walk([&](KernelOp kernel) {
      if (kernel.getScheduleAttr())
        return WalkResult::advance();
      Operation *unsupported = nullptr;
      kernel.getBody().walk([&](Operation *op) {
        if (!unsupported && !isPointwiseOp(op))
          unsupported = op;
      });
      if (unsupported) {
        unsupported->emitOpError()
            << "has no scheduler yet: this stage schedules pointwise "
               "kernels only (reductions come with the reduction scheduler)";
        return WalkResult::interrupt();
      }
      kernel.setScheduleAttr(pointwise(kernel));
      if (printSchedules)
        llvm::errs() << "fusion-schedule: " << kernel.getSymName() << ": "
                     << kernel.getScheduleAttr() << "\n";
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }

  // Note [Pointwise heuristic]: the kernel streams memory, so what matters is
  // 16-byte accesses and enough bytes in flight. The vector width fills 16
  // bytes of the narrowest tensor element; wider tensors move 16 bytes per
  // access several times. Blocks of 256 threads, and at most as many blocks
  // as fit on the device at once: the rest is a grid-stride loop, which
  // keeps launch size bounded without losing occupancy.
  PointwiseScheduleAttr pointwise(KernelOp kernel) {
    int64_t minBytes = 8;
    bool allStatic = true;
    int64_t numel = 1;
    auto visit = [&](Type type) {
      auto tensor = dyn_cast<RankedTensorType>(type);
      if (!tensor)
        return;
      minBytes = std::min(minBytes, storageBytes(tensor.getElementType()));
      allStatic &= tensor.hasStaticShape();
      if (tensor.hasStaticShape())
        numel = std::max(numel, tensor.getNumElements());
    };
    for (Type t : kernel.getInputs().getTypes())
      visit(t);
    for (Type t : kernel.getResultTypes())
      visit(t);
    int64_t vector = std::min<int64_t>(16 / minBytes, 8);
    int64_t block = 256;
    if (allStatic && numel < block * vector)
      block = std::max<int64_t>(32, (numel + vector - 1) / vector);
    int64_t maxGrid = smCount * (threadsPerSM / block);
    // Offsets past 2^31 need 64-bit index arithmetic; with symbolic sizes
    // the lowering adds a 64-bit fallback chosen at run time.
    bool index64 = allStatic && numel >= (int64_t(1) << 31);
    return PointwiseScheduleAttr::get(&getContext(), vector, /*unroll=*/1,
                                      block, maxGrid, index64,
                                      /*fast_math=*/false);
  }
};

} // namespace
