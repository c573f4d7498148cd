//===- Pipeline.cpp - the registered pipeline from definition to PTX ------===//
// --fusion-to-ptx: the fusion passes followed by upstream NVVM lowering and
// gpu-module-to-binary. Every step is also a pass a test can run alone.
//===----------------------------------------------------------------------===//

#include "fusion/Transforms/Passes.h"

#include "mlir/Conversion/GPUToNVVM/GPUToNVVMPass.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

void mlir::fusion::buildFusionToPTXPipeline(OpPassManager &pm,
                                            const FusionToPTXOptions &options) {
  pm.addPass(createFusionDecompose());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addPass(createFusionSegment());
  FusionScheduleOptions schedule;
  schedule.smCount = options.smCount;
  schedule.unroll = options.unroll;
  schedule.blocksPerSM = options.blocksPerSM;
  pm.addPass(createFusionSchedule(schedule));
  pm.addPass(createFusionLowerKernels());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addNestedPass<gpu::GPUModuleOp>(createSCFToControlFlowPass());
  pm.addNestedPass<gpu::GPUModuleOp>(createConvertGpuOpsToNVVMOps());
  pm.addNestedPass<gpu::GPUModuleOp>(createReconcileUnrealizedCastsPass());
  GpuNVVMAttachTargetOptions target;
  target.chip = options.chip;
  target.optLevel = options.optLevel;
  pm.addPass(createGpuNVVMAttachTarget(target));
  GpuModuleToBinaryPassOptions binary;
  binary.compilationTarget = "isa";
  pm.addPass(createGpuModuleToBinaryPass(binary));
}

void mlir::fusion::registerFusionPipelines() {
  PassPipelineRegistration<FusionToPTXOptions>(
      "fusion-to-ptx",
      "Decompose, segment, schedule and lower fusions to gpu.func, then to "
      "NVVM and PTX (gpu.binary)",
      buildFusionToPTXPipeline);
}
