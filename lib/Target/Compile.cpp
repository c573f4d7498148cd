//===- Compile.cpp - definition to PTX and module files -------------------===//
// The compiler's entry points used by fusion-translate and fusion-run.
//===----------------------------------------------------------------------===//

#include "fusion/Target/ModuleWriter.h"

#include "fusion/Dialect/Fusion/IR/FusionOps.h"
#include "fusion/Pipeline/Pipeline.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Pass/PassManager.h"

using namespace mlir;
using namespace mlir::fusion;

LogicalResult mlir::fusion::lowerToPTX(ModuleOp module,
                                       const CompileOptions &options) {
  PassManager pm(module.getContext());
  if (options.printStages) {
    module.getContext()->disableMultithreading();
    pm.enableIRPrinting(
        /*shouldPrintBeforePass=*/[](Pass *, Operation *) { return false; },
        /*shouldPrintAfterPass=*/[](Pass *, Operation *) { return true; },
        /*printModuleScope=*/true, /*printAfterOnlyOnChange=*/true);
  }
  FusionToPTXOptions pipeline;
  pipeline.chip = options.chip;
  pipeline.smCount = options.smCount;
  pipeline.unroll = options.unroll;
  pipeline.blocksPerSM = options.blocksPerSM;
  pipeline.innerItems = options.innerItems;
  pipeline.innerBlock = options.innerBlock;
  pipeline.innerStage = options.innerStage;
  pipeline.innerMinBlocks = options.innerMinBlocks;
  pipeline.transposeTile = options.transposeTile;
  pipeline.splitKernels = options.splitKernels;
  buildFusionToPTXPipeline(pm, pipeline);
  std::optional<TimingScope> timing;
  if (options.timing) {
    timing = options.timing->nest("pipeline");
    pm.enableTiming(*timing);
  }
  return pm.run(module);
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
mlir::fusion::compileToModuleFile(ModuleOp module, StringRef fusionName,
                                  const CompileOptions &options) {
  // Which fusion is written is settled before anything compiles, and only
  // that one is compiled (and stored as the definition).
  FailureOr<FusionOp> selected = selectFusion(module, fusionName);
  if (failed(selected))
    return failure();
  for (auto other : llvm::make_early_inc_range(module.getOps<FusionOp>()))
    if (other != *selected)
      other.erase();
  std::string definition;
  {
    llvm::raw_string_ostream os(definition);
    module.print(os);
  }
  if (failed(lowerToPTX(module, options)))
    return failure();
  ModuleWriterOptions writer;
  writer.chip = options.chip;
  writer.emitCubin = options.emitCubin;
  writer.timing = options.timing;
  return writeModuleFile(module, fusionName, definition, writer);
}
