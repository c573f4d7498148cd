//===- Schedule.cpp - choose a schedule for every kernel ------------------===//
// Heuristics that turn a kernel's shapes, dtypes and the target into a
// schedule attribute. Decisions are data: a hand-written schedule is kept.
//===----------------------------------------------------------------------===//

#include "fusion/Transforms/Passes.h"

#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <limits>

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
      if (Operation *reduction = innerReduction(kernel)) {
        kernel.setScheduleAttr(innerReductionSchedule(kernel, reduction));
        if (printSchedules)
          llvm::errs() << "fusion-schedule: " << kernel.getSymName() << ": "
                       << kernel.getScheduleAttr() << "\n";
        return WalkResult::advance();
      }
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

  /// The one reduction of an inner-reduction kernel: a sum, prod, max or
  /// min over the innermost dim whose result is the kernel's only result,
  /// fed by element-wise work. Null when the kernel is not of that shape.
  Operation *innerReduction(KernelOp kernel) {
    Operation *reduction = nullptr;
    bool other = false;
    kernel.getBody().walk([&](Operation *op) {
      if (isa<SumOp, ProdOp, MaxOp, MinOp>(op)) {
        other |= reduction != nullptr;
        reduction = op;
      } else if (!isPointwiseOp(op)) {
        other = true;
      }
    });
    if (!reduction || other || kernel.getNumResults() != 1)
      return nullptr;
    auto input = cast<RankedTensorType>(reduction->getOperand(0).getType());
    ArrayRef<int64_t> dims =
        TypeSwitch<Operation *, ArrayRef<int64_t>>(reduction)
            .Case<SumOp, ProdOp, MaxOp, MinOp>(
                [](auto r) { return r.getDims(); });
    if (input.getRank() == 0 || dims.size() != 1 ||
        dims[0] != input.getRank() - 1 || input.getElementType().isInteger(1))
      return nullptr;
    Operation *yield = kernel.getBody().front().getTerminator();
    if (!reduction->getResult(0).hasOneUse() ||
        *reduction->getResult(0).getUsers().begin() != yield)
      return nullptr;
    return reduction;
  }

  // Note [Inner reduction heuristic]: one block per row; 16-byte loads of
  // the narrowest input; as many threads as there are vectors in a row, a
  // power of two between 32 and 512 (256 when the row length is symbolic),
  // so short rows do not leave most of a block idle.
  InnerReductionScheduleAttr innerReductionSchedule(KernelOp kernel,
                                                    Operation *reduction) {
    int64_t minBytes = 8;
    for (Type t : kernel.getInputs().getTypes())
      if (auto tensor = dyn_cast<RankedTensorType>(t))
        minBytes = std::min(minBytes, storageBytes(tensor.getElementType()));
    int64_t vector = std::min<int64_t>(16 / minBytes, 8);
    auto input = cast<RankedTensorType>(reduction->getOperand(0).getType());
    int64_t rowLength = input.getDimSize(input.getRank() - 1);
    int64_t block = 256;
    if (!ShapedType::isDynamic(rowLength)) {
      int64_t vectors = std::max<int64_t>(1, (rowLength + vector - 1) / vector);
      block = std::clamp<int64_t>(llvm::PowerOf2Ceil(vectors), 32, 512);
    }
    int64_t maxGrid = blocksPerSM > 0 ? smCount * blocksPerSM
                                      : std::numeric_limits<int32_t>::max();
    bool index64 =
        input.hasStaticShape() && input.getNumElements() >= (int64_t(1) << 31);
    return InnerReductionScheduleAttr::get(&getContext(), vector, block,
                                           maxGrid, index64);
  }

  // Note [Pointwise heuristic]: the kernel streams memory, so what matters is
  // 16-byte accesses and enough bytes in flight. The vector width fills 16
  // bytes of the narrowest tensor element; wider tensors move 16 bytes per
  // access several times. Each thread takes two vectors (unroll 2, all loads
  // before the stores) and the grid has one block per 512 vectors: measured
  // on the H200 (2026-11-29, add_relu f32 and gelu_bias bf16 at the public
  // shapes), this reached 1.03 and 0.97-0.99 of copy bandwidth, where a grid
  // capped at the resident blocks with a grid-stride loop reached 0.86-0.97
  // and 0.84-0.89, and four vectors per thread 0.91-0.94 on gelu_bias.
  // `blocks-per-sm` caps the grid (the grid-stride loop takes the rest).
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
    int64_t maxGrid = blocksPerSM > 0 ? smCount * blocksPerSM
                                      : std::numeric_limits<int32_t>::max();
    // Two vectors per thread and iteration keep twice the bytes in flight.
    int64_t unrollFactor = unroll > 0 ? unroll : 2;
    // Approximate transcendentals are safe when every result is a 16-bit
    // float: their error is below the results' own rounding.
    bool fastMath = llvm::all_of(kernel.getResultTypes(), [](Type t) {
      Type e = getElementTypeOrSelf(t);
      return e.isBF16() || e.isF16();
    });
    // Offsets past 2^31 need 64-bit index arithmetic; with symbolic sizes
    // the lowering adds a 64-bit fallback chosen at run time.
    bool index64 = allStatic && numel >= (int64_t(1) << 31);
    return PointwiseScheduleAttr::get(&getContext(), vector, unrollFactor,
                                      block, maxGrid, index64, fastMath);
  }
};

} // namespace
