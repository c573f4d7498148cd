//===- Pipeline.cpp - the registered pipeline from definition to PTX ------===//
// --fusion-to-ptx: the fusion passes followed by upstream NVVM lowering and
// gpu-module-to-binary. Every step is also a pass a test can run alone.
//===----------------------------------------------------------------------===//

#include "fusion/Dialect/Fusion/IR/FusionOps.h"
#include "fusion/Transforms/Passes.h"

#include "fusion/Transforms/KernelModules.h"

#include "mlir/Conversion/GPUToNVVM/GPUToNVVMPass.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"

#include <cstdlib>

using namespace mlir;

/// The CUDA toolkit whose libdevice math calls (__nv_expf, ...) link
/// against: $CUDA_HOME, $CUDA_ROOT or $CUDA_PATH, else /usr/local/cuda, else
/// the folder above the ptxas on PATH. MLIR's own default is empty in
/// Debian's build, so without this a machine without CUDA_HOME leaves the
/// math calls unresolved and ptxas fails.
static std::string findCudaToolkit() {
  auto hasLibdevice = [](StringRef root) {
    return !root.empty() &&
           llvm::sys::fs::exists(root + "/nvvm/libdevice/libdevice.10.bc");
  };
  for (const char *var : {"CUDA_HOME", "CUDA_ROOT", "CUDA_PATH"})
    if (const char *value = std::getenv(var); value && hasLibdevice(value))
      return value;
  if (hasLibdevice("/usr/local/cuda"))
    return "/usr/local/cuda";
  if (auto ptxas = llvm::sys::findProgramByName("ptxas")) {
    StringRef root =
        llvm::sys::path::parent_path(llvm::sys::path::parent_path(*ptxas));
    if (hasLibdevice(root))
      return root.str();
  }
  return "";
}

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
  schedule.innerItems = options.innerItems;
  schedule.innerBlock = options.innerBlock;
  schedule.innerStage = options.innerStage;
  pm.addPass(createFusionSchedule(schedule));
  FusionLowerKernelsOptions lower;
  lower.innerMinBlocks = options.innerMinBlocks;
  lower.transposeTile = options.transposeTile;
  pm.addPass(createFusionLowerKernels(lower));
  // One gpu.module per kernel variant: each gets its own PTX and cubin, and
  // the nested passes below (LLVM to PTX included) run over the modules
  // in parallel.
  if (options.splitKernels)
    pm.addPass(createFusionSplitKernelModules());
  // Per host program and per kernel module, so that the kernel modules are
  // cleaned up in parallel too.
  pm.addNestedPass<FusionOp>(createCanonicalizerPass());
  pm.addNestedPass<FusionOp>(createCSEPass());
  pm.addNestedPass<gpu::GPUModuleOp>(createCanonicalizerPass());
  pm.addNestedPass<gpu::GPUModuleOp>(createCSEPass());
  pm.addNestedPass<gpu::GPUModuleOp>(createSCFToControlFlowPass());
  pm.addNestedPass<gpu::GPUModuleOp>(createConvertGpuOpsToNVVMOps());
  pm.addNestedPass<gpu::GPUModuleOp>(createReconcileUnrealizedCastsPass());
  GpuNVVMAttachTargetOptions target;
  target.chip = options.chip;
  target.optLevel = options.optLevel;
  pm.addPass(createGpuNVVMAttachTarget(target));
  // gpu-module-to-binary (format isa), split in two: serialization is a
  // pass on gpu.module, which the pass manager runs in parallel.
  pm.addNestedPass<gpu::GPUModuleOp>(
      createFusionSerializeKernelModule(findCudaToolkit()));
  pm.addPass(createFusionKernelModulesToBinaries());
}

void mlir::fusion::registerFusionPipelines() {
  registerFusionKernelModulePasses();
  PassPipelineRegistration<FusionToPTXOptions>(
      "fusion-to-ptx",
      "Decompose, segment, schedule and lower fusions to gpu.func, then to "
      "NVVM and PTX (gpu.binary)",
      buildFusionToPTXPipeline);
}
