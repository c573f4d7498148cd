//===- Compile.cpp - definition to PTX and module files -------------------===//
// The compiler's entry points used by fusion-translate and fusion-run.
//===----------------------------------------------------------------------===//

#include "fusion/Target/ModuleWriter.h"

#include "fusion/Target/CompileCache.h"

#include "fusion/Dialect/Fusion/IR/FusionOps.h"
#include "fusion/Pipeline/Pipeline.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"

#include <cstdlib>

using namespace mlir;
using namespace mlir::fusion;

namespace {
/// Runs `build`'s passes over `module` as the compile options ask: the IR
/// after every pass with printStages, timed under options.timing.
LogicalResult runPipeline(ModuleOp module, const CompileOptions &options,
                          llvm::function_ref<void(OpPassManager &)> build) {
  PassManager pm(module.getContext());
  if (options.printStages) {
    module.getContext()->disableMultithreading();
    pm.enableIRPrinting(
        /*shouldPrintBeforePass=*/[](Pass *, Operation *) { return false; },
        /*shouldPrintAfterPass=*/[](Pass *, Operation *) { return true; },
        /*printModuleScope=*/true, /*printAfterOnlyOnChange=*/true,
        /*printAfterOnlyOnFailure=*/false,
        options.stagesStream ? *options.stagesStream : llvm::errs());
  }
  build(pm);
  // Note [Verification in the pipeline].
  const char *verifyEach = std::getenv("FUSION_VERIFY_EACH");
  pm.enableVerifier(options.verifyEach ||
                    (verifyEach && StringRef(verifyEach) != "0" &&
                     StringRef(verifyEach) != ""));
  std::optional<TimingScope> timing;
  if (options.timing) {
    timing = options.timing->nest("pipeline");
    pm.enableTiming(*timing);
  }
  return pm.run(module);
}

/// The module writer's options of a compile.
ModuleWriterOptions writerOptions(const CompileOptions &options) {
  ModuleWriterOptions writer;
  writer.chip = options.chip;
  writer.emitCubin = options.emitCubin;
  writer.fallbackCubins = options.fallbackCubins;
  writer.timing = options.timing;
  return writer;
}
} // namespace

LogicalResult mlir::fusion::lowerToPTX(ModuleOp module,
                                       const CompileOptions &options) {
  FusionToPTXOptions pipeline;
  pipeline.chip = options.chip;
  pipeline.smCount = options.smCount;
  pipeline.unroll = options.unroll;
  pipeline.blocksPerSM = options.blocksPerSM;
  pipeline.innerItems = options.innerItems;
  pipeline.innerBlock = options.innerBlock;
  pipeline.innerStage = options.innerStage;
  pipeline.innerCluster = options.innerCluster;
  pipeline.computeBoundCost = options.computeBoundCost;
  pipeline.innerMinBlocks = options.innerMinBlocks;
  pipeline.transposeTile = options.transposeTile;
  pipeline.splitKernels = options.splitKernels;
  pipeline.explain = options.explain;
  return runPipeline(module, options, [&](OpPassManager &pm) {
    buildFusionToPTXPipeline(pm, pipeline);
  });
}

FailureOr<std::string>
mlir::fusion::compileLoweredToModuleFile(ModuleOp module, StringRef fusionName,
                                         StringRef definition,
                                         const CompileOptions &options) {
  if (failed(keepOnlyFusion(module, fusionName)))
    return failure();
  FusionToPTXOptions pipeline;
  pipeline.chip = options.chip;
  pipeline.splitKernels = options.splitKernels;
  if (failed(runPipeline(module, options, [&](OpPassManager &pm) {
        buildKernelsToPTXPipeline(pm, pipeline);
      })))
    return failure();
  return writeModuleFile(module, fusionName, definition,
                         writerOptions(options));
}

std::string mlir::fusion::collectPTX(ModuleOp module) {
  std::string ptx;
  module.walk([&](gpu::BinaryOp binary) {
    for (Attribute attr : binary.getObjects())
      if (auto object = dyn_cast<gpu::ObjectAttr>(attr))
        ptx += object.getObject().getValue().str();
  });
  return ptx;
}

FailureOr<std::string>
mlir::fusion::compileCacheKey(ModuleOp module, const CompileOptions &options,
                              StringRef compilerId) {
  // The definition as the pipeline's first passes leave it, printed.
  OwningOpRef<ModuleOp> copy(cast<ModuleOp>(module->clone()));
  PassManager pm(module.getContext());
  OpPassManager &perFusion = pm.nest<FusionOp>();
  perFusion.addPass(createCanonicalizerPass());
  perFusion.addPass(createCSEPass());
  // A definition the passes refuse gets its diagnostics from the compile.
  ScopedDiagnosticHandler quiet(module.getContext(),
                                [](Diagnostic &) { return success(); });
  if (failed(pm.run(*copy)))
    return failure();
  std::string definition;
  {
    llvm::raw_string_ostream os(definition);
    copy->print(os);
  }
  // Every option that changes the bytes (printStages and timing do not).
  std::string settings;
  {
    llvm::raw_string_ostream os(settings);
    os << "chip=" << options.chip << ";sm=" << options.smCount
       << ";unroll=" << options.unroll << ";bps=" << options.blocksPerSM
       << ";items=" << options.innerItems << ";block=" << options.innerBlock
       << ";stage=" << options.innerStage << ";cluster=" << options.innerCluster
       << ";computebound=" << options.computeBoundCost
       << ";minblocks=" << options.innerMinBlocks
       << ";tile=" << options.transposeTile << ";cubin=" << options.emitCubin
       << ";fallbackcubins=" << options.fallbackCubins
       << ";split=" << options.splitKernels;
  }
  // The cubin is ptxas's: another ptxas (or none) is another entry; the
  // math calls link libdevice's bitcode.
  std::string ptxas = "none";
  if (options.emitCubin)
    if (std::string found = findPtxas(); !found.empty())
      ptxas = fileIdentity(found);
  std::string libdevice = "none";
  if (std::string toolkit = findCudaToolkit(); !toolkit.empty())
    libdevice = fileIdentity(toolkit + "/nvvm/libdevice/libdevice.10.bc");
  return hashParts({"fusion-compile-cache-1", compilerId, settings, ptxas,
                    libdevice, definition});
}

FailureOr<std::string> mlir::fusion::compileToModuleFile(
    ModuleOp module, StringRef fusionName, const CompileOptions &options,
    const CompileCache *cache, CompileCacheReport *report) {
  CompileCacheReport ignored;
  if (!report)
    report = &ignored;
  *report = CompileCacheReport();
  // Which fusion is written is settled before anything compiles, and only
  // that one is compiled (and stored as the definition).
  if (failed(keepOnlyFusion(module, fusionName)))
    return failure();
  // A compile that prints, times or explains itself runs.
  bool cached = cache && cache->config().enabled && !options.printStages &&
                !options.timing && !options.explain;
  if (cached) {
    FailureOr<std::string> key =
        compileCacheKey(module, options, cache->config().compilerId);
    if (succeeded(key)) {
      report->key = *key;
      if (std::optional<std::string> bytes = cache->lookup(*key)) {
        report->outcome = CompileCacheReport::Outcome::Hit;
        return std::move(*bytes);
      }
    } else {
      cached = false;
    }
  }
  std::string definition;
  {
    llvm::raw_string_ostream os(definition);
    module.print(os);
  }
  if (failed(lowerToPTX(module, options)))
    return failure();
  FailureOr<std::string> bytes =
      writeModuleFile(module, fusionName, definition, writerOptions(options));
  if (succeeded(bytes) && cached) {
    std::string error;
    if (cache->store(report->key, *bytes, &error)) {
      report->outcome = CompileCacheReport::Outcome::Stored;
    } else {
      report->outcome = CompileCacheReport::Outcome::NotStored;
      report->error = error;
    }
  }
  return bytes;
}
