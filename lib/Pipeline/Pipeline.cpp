//===- Pipeline.cpp - the registered pipeline from definition to PTX ------===//
// --fusion-to-ptx: the fusion passes followed by upstream NVVM lowering and
// gpu-module-to-binary. Every step is also a pass a test can run alone.
//===----------------------------------------------------------------------===//

#include "fusion/Pipeline/Pipeline.h"
#include "fusion/Dialect/Fusion/IR/FusionOps.h"

#include "fusion/Dialect/Fusion/Transforms/KernelModules.h"
#include "fusion/Runtime/ModuleFormat.h"

#include "mlir/Conversion/GPUToNVVM/GPUToNVVMPass.h"
#include "mlir/Conversion/NVVMToLLVM/NVVMToLLVM.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"

#include <cstdlib>

using namespace mlir;

/// The CUDA toolkit whose libdevice math calls (__nv_expf, ...) link
/// against: $CUDA_HOME, $CUDA_ROOT or $CUDA_PATH, else /usr/local/cuda, else
/// the folder above the ptxas on PATH. MLIR's own default is empty in
/// Debian's build, so without this a machine without CUDA_HOME leaves the
/// math calls unresolved and ptxas fails.
std::string mlir::fusion::findCudaToolkit() {
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

// The NVPTX back end's target registration (the NVVM target links it).
extern "C" void LLVMInitializeNVPTXTargetInfo();
extern "C" void LLVMInitializeNVPTXTargetMC();

namespace {
/// Note [The target chip]: LLVM's NVPTX back end takes a processor it does
/// not know with a warning ("'foo' is not a recognized processor for this
/// target (ignoring processor)") and then aborts the process when it cannot
/// select a warp shuffle for it; an empty name aborts it too. So the chip
/// must be a processor of its table (`llc -march=nvptx64 -mcpu=help`) and
/// sm_70 or later (warp-synchronous shuffles and the PTX the lowering
/// writes); anything else is an error before anything is compiled.
LogicalResult checkChip(StringRef chip, std::string &why) {
  StringRef digits = chip;
  unsigned version = 0;
  if (!digits.consume_front("sm_") || digits.consumeInteger(10, version) ||
      !(digits.empty() || digits == "a" || digits == "f")) {
    why = "is not an NVIDIA GPU architecture (sm_<version>, e.g. sm_80, "
          "sm_90a)";
    return failure();
  }
  if (version < 70) {
    why = "is older than sm_70, the oldest the kernels are written for";
    return failure();
  }
  static const llvm::MCSubtargetInfo *nvptx = [] {
    LLVMInitializeNVPTXTargetInfo();
    LLVMInitializeNVPTXTargetMC();
    std::string error;
    llvm::Triple triple("nvptx64-nvidia-cuda");
    const llvm::Target *target =
        llvm::TargetRegistry::lookupTarget(triple, error);
    return target ? target->createMCSubtargetInfo(triple, "sm_90", "")
                  : nullptr;
  }();
  if (nvptx && !nvptx->isCPUStringValid(chip)) {
    why = "is not a processor LLVM's NVPTX back end knows";
    return failure();
  }
  return success();
}

/// The pipeline's first step (Note [What the runtime takes], Note [The
/// target chip]).
struct CheckInputPass : PassWrapper<CheckInputPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(CheckInputPass)
  CheckInputPass() = default;
  CheckInputPass(const CheckInputPass &) = default;
  explicit CheckInputPass(std::string chip) : chip(std::move(chip)) {}
  std::optional<std::string> chip; // the pipeline's target
  StringRef getArgument() const override { return "fusion-check-input"; }
  StringRef getDescription() const override {
    return "Reject input the GPU pipeline or the runtime cannot take";
  }
  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (std::string why; chip && failed(checkChip(*chip, why))) {
      mlir::emitError(module.getLoc())
          << "the option chip '" << *chip << "' " << why;
      return signalPassFailure();
    }
    if (module.getOps<mlir::fusion::FusionOp>().empty()) {
      module.emitError("no fusion.fusion in the input: nothing to compile "
                       "(fusion ops go in the body of a fusion.fusion)");
      return signalPassFailure();
    }
    WalkResult result = module.walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (auto fusionOp = dyn_cast<mlir::fusion::FusionOp>(op)) {
        for (auto [i, type] : llvm::enumerate(fusionOp.getArgumentTypes()))
          if (failed(checkType(type, [&] {
                return fusionOp.emitOpError()
                       << "input " << i << " (" << fusionOp.getInputName(i)
                       << "): ";
              })))
            return WalkResult::interrupt();
        return WalkResult::advance();
      }
      for (Value result : op->getResults())
        if (failed(checkType(result.getType(), [&] {
              return op->emitOpError()
                     << "result of type " << result.getType() << ": ";
            })))
          return WalkResult::interrupt();
      if (isa<mlir::fusion::ArgmaxOp, mlir::fusion::ArgminOp>(op)) {
        auto input = cast<RankedTensorType>(op->getOperand(0).getType());
        int64_t dim = cast<IntegerAttr>(op->getAttr("dim")).getInt();
        if (dim >= 0 && dim < input.getRank() && input.getDimSize(dim) == 0) {
          op->emitOpError() << "reduces dim " << dim << " of " << input
                            << ", which is empty: there is no index to return";
          return WalkResult::interrupt();
        }
      }
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }

  // Note [What the runtime takes]: the runtime refuses a module whose
  // tensors have more than kMaxRank dims or whose static sizes overflow
  // int64 (ModuleVerifier.cpp), so the compiler refuses them first, with a
  // diagnostic on the op, instead of writing a module nothing can load.
  // Kernel parameter bytes are checked as each kernel is lowered
  // (checkParamBytes in lib/Conversion/FusionToGPU/HostProgram.cpp),
  // argmax/argmin over a static empty dim here.
  static LogicalResult checkType(Type type,
                                 function_ref<InFlightDiagnostic()> emit) {
    auto tensor = dyn_cast<RankedTensorType>(type);
    if (!tensor)
      return success();
    if (tensor.getRank() > ::fusion::runtime::kMaxRank)
      return emit() << "rank " << tensor.getRank()
                    << " is over the runtime's maximum rank "
                    << ::fusion::runtime::kMaxRank;
    int64_t bytes = std::max<int64_t>(
        1, llvm::divideCeil(tensor.getElementTypeBitWidth(), 8));
    int64_t total = bytes;
    for (int64_t size : tensor.getShape()) {
      if (ShapedType::isDynamic(size))
        continue;
      if (llvm::MulOverflow(total, size, total))
        return emit() << "the static sizes of " << tensor
                      << " overflow 64-bit byte offsets";
    }
    return success();
  }
};
/// Note [Verification in the pipeline]: the compile entry points
/// (lowerToPTX, the module compiles, the C API) run the pipeline with the
/// pass manager's automatic verifier off, which verified the whole IR after
/// every pass and cost about a tenth of a compile's CPU time. The IR is
/// verified at three checkpoints instead, by this pass: after the
/// fusion-level passes (decompose, segment, schedule); after the kernels are
/// lowered and split (what this project's passes made); and each kernel
/// module after the upstream conversions to NVVM and LLVM, once its target
/// is attached, where the NVVM ops check that the chip has them. The passes
/// between the checkpoints are not verified one by one.
/// fusion-opt and `--verify-each` (FUSION_VERIFY_EACH=1, which the tests
/// set) keep the verifier after every pass.
struct VerifyPass : PassWrapper<VerifyPass, OperationPass<>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(VerifyPass)
  StringRef getArgument() const override { return "fusion-verify"; }
  StringRef getDescription() const override {
    return "Verify the IR (the pipeline's checkpoint when the pass manager's "
           "verifier is off)";
  }
  void runOnOperation() override {
    if (failed(verify(getOperation())))
      signalPassFailure();
  }
};
} // namespace

void mlir::fusion::buildFusionToPTXPipeline(OpPassManager &pm,
                                            const FusionToPTXOptions &options) {
  pm.addPass(std::make_unique<CheckInputPass>(options.chip));
  // Each fusion on its own (in parallel when the context is threaded), up to
  // the lowering, which adds gpu.modules to the module.
  OpPassManager &perFusion = pm.nest<FusionOp>();
  perFusion.addPass(createFusionDecompose());
  perFusion.addPass(createCanonicalizerPass());
  perFusion.addPass(createCSEPass());
  FusionSegmentOptions segment;
  segment.explain = options.explain;
  perFusion.addPass(createFusionSegment(segment));
  FusionScheduleOptions schedule;
  schedule.explain = options.explain;
  schedule.smCount = options.smCount;
  schedule.unroll = options.unroll;
  schedule.blocksPerSM = options.blocksPerSM;
  schedule.innerItems = options.innerItems;
  schedule.innerBlock = options.innerBlock;
  schedule.innerStage = options.innerStage;
  schedule.innerCluster = options.innerCluster;
  schedule.innerLongCluster = options.innerLongCluster;
  schedule.innerColumns = options.innerColumns;
  schedule.computeBoundCost = options.computeBoundCost;
  perFusion.addPass(createFusionSchedule(schedule));
  perFusion.addPass(std::make_unique<VerifyPass>());
  FusionLowerKernelsOptions lower;
  lower.innerMinBlocks = options.innerMinBlocks;
  lower.transposeTile = options.transposeTile;
  lower.chip = options.chip;
  pm.addPass(createFusionLowerKernels(lower));
  buildKernelsToPTXPipeline(pm, options);
}

void mlir::fusion::buildKernelsToPTXPipeline(
    OpPassManager &pm, const FusionToPTXOptions &options) {
  // Note [Deferred kernels]: before anything is spent on them, the kernel
  // ops' lowering included (it rewrites each gpu.func on its own, so the
  // kernels left are the ones it would have written either way).
  if (options.deferKernels != DeferKernels::None ||
      !options.buildKernels.empty())
    pm.addPass(createFusionDeferKernels(
        options.deferKernels, options.buildKernels, options.splitKernels));
  pm.addPass(createFusionLowerKernelOps());
  // One gpu.module per kernel variant: each gets its own PTX and cubin, and
  // the nested passes below (LLVM to PTX included) run over the modules
  // in parallel; the split copies each kernel into a module of its own.
  if (options.splitKernels)
    pm.addPass(createFusionSplitKernelModules());
  // Note [Verification in the pipeline].
  pm.addPass(std::make_unique<VerifyPass>());
  // Per host program and per kernel module, so that the kernel modules are
  // cleaned up in parallel too.
  pm.addNestedPass<FusionOp>(createCanonicalizerPass());
  pm.addNestedPass<FusionOp>(createCSEPass());
  pm.addNestedPass<gpu::GPUModuleOp>(createCanonicalizerPass());
  pm.addNestedPass<gpu::GPUModuleOp>(createCSEPass());
  pm.addNestedPass<gpu::GPUModuleOp>(createSCFToControlFlowPass());
  pm.addNestedPass<gpu::GPUModuleOp>(createConvertGpuOpsToNVVMOps());
  // Note [Tensor map parameters]: kernels that take tensor maps get them by
  // value; the others are untouched.
  pm.addNestedPass<gpu::GPUModuleOp>(createFusionTensorMapParams());
  // NVVM ops without an LLVM intrinsic (the mbarrier wait loop of
  // fusion.mbarrier_wait) become inline PTX.
  pm.addNestedPass<gpu::GPUModuleOp>(createConvertNVVMToLLVMPass());
  pm.addNestedPass<gpu::GPUModuleOp>(createReconcileUnrealizedCastsPass());
  GpuNVVMAttachTargetOptions target;
  target.chip = options.chip;
  target.optLevel = options.optLevel;
  pm.addPass(createGpuNVVMAttachTarget(target));
  // Note [Verification in the pipeline]: with the target attached, the NVVM
  // ops check that the chip has them (a cluster op for sm_80 is an error on
  // the op here, an LLVM crash in the serializer otherwise).
  pm.addNestedPass<gpu::GPUModuleOp>(std::make_unique<VerifyPass>());
  // gpu-module-to-binary (format isa), split in two: serialization is a
  // pass on gpu.module, which the pass manager runs in parallel.
  pm.addNestedPass<gpu::GPUModuleOp>(
      createFusionSerializeKernelModule(findCudaToolkit()));
  pm.addPass(createFusionKernelModulesToBinaries());
}

void mlir::fusion::registerFusionPipelines() {
  registerFusionKernelModulePasses();
  PassRegistration<VerifyPass>();
  PassPipelineRegistration<FusionToPTXOptions>(
      "fusion-to-ptx",
      "Decompose, segment, schedule and lower fusions to gpu.func, then to "
      "NVVM and PTX (gpu.binary)",
      buildFusionToPTXPipeline);
}
