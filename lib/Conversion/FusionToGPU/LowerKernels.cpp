//===- LowerKernels.cpp - the pass --fusion-lower-kernels -----------------===//
// Lowers every scheduled fusion.kernel to gpu.func variants and replaces it
// with the host program that allocates outputs, computes launch parameters
// and picks a variant at run time. Each schedule has its lowering in a file
// of its own (docs/lowering.md); this pass hands each kernel to it.
//===----------------------------------------------------------------------===//

#include "HostProgram.h"

#include "fusion/Conversion/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

namespace mlir::fusion {
#define GEN_PASS_DEF_FUSIONLOWERKERNELS
#include "fusion/Conversion/Passes.h.inc"
} // namespace mlir::fusion

using namespace mlir;
using namespace mlir::fusion;
using namespace mlir::fusion::lowering;

LogicalResult KernelLowering::lower(KernelOp kernel) {
  Attribute schedule = kernel.getScheduleAttr();
  if (auto inner = dyn_cast_if_present<InnerReductionScheduleAttr>(schedule))
    return lowerRowKernel(kernel, inner);
  if (auto outer = dyn_cast_if_present<OuterReductionScheduleAttr>(schedule))
    return lowerOuterReduction(kernel, outer);
  if (auto pointwise = dyn_cast_if_present<PointwiseScheduleAttr>(schedule))
    return lowerPointwise(kernel, pointwise);
  return kernel.emitOpError(
      "needs a #fusion.pointwise or #fusion.inner_reduction schedule (run "
      "--fusion-schedule)");
}

namespace {

/// The chip's SM version ("sm_90a": 90); 0 for an empty or unknown chip.
unsigned chipVersion(StringRef chip) {
  unsigned sm = 0;
  if (!chip.consume_front("sm_"))
    return 0;
  chip.consumeInteger(10, sm);
  return sm;
}

struct FusionLowerKernelsPass
    : mlir::fusion::impl::FusionLowerKernelsBase<FusionLowerKernelsPass> {
  using FusionLowerKernelsBase::FusionLowerKernelsBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<KernelOp> kernels;
    module.walk([&](KernelOp k) { kernels.push_back(k); });
    if (kernels.empty())
      return;
    // Note [Schedule options] (Schedule.cpp): the option named, the module
    // not printed after it.
    if (transposeTile != 16 && transposeTile != 32 && transposeTile != 64) {
      mlir::emitError(module.getLoc())
          << "the option transpose-tile must be 16, 32 or 64, got "
          << static_cast<int64_t>(transposeTile);
      return signalPassFailure();
    }
    if (innerMinBlocks < 0 || innerMinBlocks > 32) {
      mlir::emitError(module.getLoc())
          << "the option inner-min-blocks must be 0 (none) or 1 to 32, got "
          << static_cast<int64_t>(innerMinBlocks);
      return signalPassFailure();
    }
    module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                    UnitAttr::get(&getContext()));
    // sm_89 (Ada) and later have cvt.rn.satfinite.{e4m3x2,e5m2x2}.f32;
    // sm_90 and later have thread block clusters; sm_80 and later cp.async.
    unsigned sm = chipVersion(chip);
    KernelLowering lowering(module, innerMinBlocks, transposeTile,
                            /*hardwareFp8=*/sm >= 89, /*clusters=*/sm >= 90,
                            /*asyncCopies=*/sm >= 80);
    for (KernelOp kernel : kernels)
      if (failed(lowering.lower(kernel)))
        return signalPassFailure();
  }
};

} // namespace
