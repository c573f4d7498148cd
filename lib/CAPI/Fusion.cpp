//===- Fusion.cpp - the compiler's C API (fusion-c/Fusion.h) --------------===//
// Wraps registration and compileToModuleFile. A compile collects every
// diagnostic of the context while it runs (Diagnostics.h) and keeps the
// bytes and the diagnostics' strings until fusionCompilationDestroy.
//===----------------------------------------------------------------------===//

#include "fusion-c/Fusion.h"

#include "Diagnostics.h"

#include "fusion/Dialect/Fusion/IR/FusionOps.h"
#include "fusion/Dialect/Fusion/Utils/Promotion.h"
#include "fusion/Pipeline/Pipeline.h"
#include "fusion/Registration.h"
#include "fusion/Target/CompileCache.h"
#include "fusion/Target/ModuleWriter.h"
#include "fusion/Version.h"

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Pass.h"
#include "mlir/CAPI/Registration.h"
#include "mlir/CAPI/Support.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>
#include <string>
#include <vector>

using namespace mlir;

MLIR_DEFINE_CAPI_DIALECT_REGISTRATION(Fusion, fusion,
                                      mlir::fusion::FusionDialect)

namespace {

struct Compilation {
  bool succeeded = false;
  bool cacheHit = false;
  std::string bytes;
  std::vector<fusion::capi::RecordedDiagnostic> diagnostics;
};

FusionCompilation wrapCompilation(Compilation *c) { return {c}; }
Compilation *unwrapCompilation(FusionCompilation c) {
  return static_cast<Compilation *>(c.ptr);
}

const FusionCompileOptions &orDefaults(const FusionCompileOptions *options,
                                       FusionCompileOptions &defaults) {
  if (options)
    return *options;
  fusionCompileOptionsInit(&defaults);
  return defaults;
}

/// The pipeline's options: chip and smCount, then the textual ones.
LogicalResult pipelineOptions(const FusionCompileOptions &o,
                              fusion::FusionToPTXOptions &pipeline,
                              std::string &error) {
  if (o.chip.length)
    pipeline.chip = unwrap(o.chip).str();
  pipeline.smCount = o.smCount;
  llvm::raw_string_ostream os(error);
  if (o.pipelineOptions.length &&
      failed(pipeline.parseFromString(unwrap(o.pipelineOptions), os)))
    return failure();
  if (pipeline.smCount < 1) {
    os << "sm count must be at least 1, got " << pipeline.smCount;
    return failure();
  }
  return success();
}

void compileInto(Compilation &c, ModuleOp module,
                 const FusionCompileOptions *options,
                 FusionOutputKind kind = FusionOutputModuleFile) {
  FusionCompileOptions defaults;
  const FusionCompileOptions &o = orDefaults(options, defaults);
  fusion::FusionToPTXOptions pipeline;
  std::string error;
  if (failed(pipelineOptions(o, pipeline, error))) {
    // A value the option's parser refuses is reported on stderr by LLVM's
    // option library, not in `error`: name the options in any case.
    emitError(module.getLoc())
        << "bad compile options '" << unwrap(o.pipelineOptions) << "'"
        << (error.empty()
                ? std::string(" (a value is not one the option takes)")
                : ": " + error);
    return;
  }
  fusion::CompileOptions compile;
  fusion::applyPipelineOptions(pipeline, compile);
  compile.emitCubin = o.emitCubin;
  if (kind != FusionOutputModuleFile) {
    // Text of one fusion: the others are dropped before the pipeline runs.
    if (failed(fusion::keepOnlyFusion(module, unwrap(o.fusionName))))
      return;
    // One PTX module per fusion, as fusion-translate --fusion-to-ptx prints.
    compile.splitKernels = kind != FusionOutputPTX && compile.splitKernels;
    llvm::raw_string_ostream stages(c.bytes);
    if (kind == FusionOutputStages) {
      compile.printStages = true;
      compile.stagesStream = &stages;
    }
    if (failed(fusion::lowerToPTX(module, compile)))
      return;
    if (kind == FusionOutputPTX)
      c.bytes = fusion::collectPTX(module);
    else if (kind == FusionOutputLoweredIR)
      module.print(stages);
    c.succeeded = true;
    return;
  }
  // Note [Compile cache]: configured by the environment, read per compile.
  std::optional<fusion::CompileCache> cache;
  if (o.useCache)
    cache = fusion::environmentCache();
  fusion::CompileCacheReport report;
  FailureOr<std::string> bytes =
      fusion::compileToModuleFile(module, unwrap(o.fusionName), compile,
                                  cache ? &*cache : nullptr, &report);
  if (failed(bytes))
    return;
  c.cacheHit = report.outcome == fusion::CompileCacheReport::Outcome::Hit;
  c.bytes = std::move(*bytes);
  c.succeeded = true;
}

void appendAllDialects(MLIRContext *ctx) {
  DialectRegistry registry;
  fusion::registerAllDialects(registry);
  ctx->appendDialectRegistry(registry);
}

} // namespace

const char *fusionCompilerVersion(void) { return FUSION_VERSION_STRING; }

MlirType fusionPromoteElementTypes(const MlirType *types, const int32_t *roles,
                                   intptr_t n) {
  if (n <= 0 || !types || !roles)
    return {nullptr};
  SmallVector<fusion::PromotionOperand> operands;
  for (intptr_t i = 0; i < n; ++i) {
    if (roles[i] < 0 || roles[i] > 2 || mlirTypeIsNull(types[i]))
      return {nullptr};
    operands.push_back(
        {unwrap(types[i]), static_cast<fusion::PromotionRole>(roles[i])});
  }
  return wrap(fusion::promoteElementTypes(operands));
}

void fusionRegisterAllDialects(MlirDialectRegistry registry) {
  fusion::registerAllDialects(*unwrap(registry));
}

void fusionRegisterAllPasses(void) { fusion::registerAllPasses(); }

void fusionCompileOptionsInit(FusionCompileOptions *options) {
  options->chip = mlirStringRefCreateFromCString("sm_90a");
  options->smCount = 132;
  options->fusionName = mlirStringRefCreate(nullptr, 0);
  options->emitCubin = true;
  options->pipelineOptions = mlirStringRefCreate(nullptr, 0);
  options->useCache = true;
}

MlirLogicalResult
fusionAddFusionToPTXPipeline(MlirOpPassManager passManager,
                             const FusionCompileOptions *options,
                             MlirStringCallback errorCallback, void *userData) {
  FusionCompileOptions defaults;
  fusion::FusionToPTXOptions pipeline;
  std::string error;
  if (failed(pipelineOptions(orDefaults(options, defaults), pipeline, error))) {
    if (errorCallback)
      errorCallback(mlirStringRefCreate(error.data(), error.size()), userData);
    return mlirLogicalResultFailure();
  }
  fusion::buildFusionToPTXPipeline(*unwrap(passManager), pipeline);
  return mlirLogicalResultSuccess();
}

FusionCompilation fusionCompileSource(MlirContext context, MlirStringRef source,
                                      MlirStringRef sourceName,
                                      const FusionCompileOptions *options) {
  return fusionCompileSourceTo(context, source, sourceName, options,
                               FusionOutputModuleFile);
}

FusionCompilation fusionCompileSourceTo(MlirContext context,
                                        MlirStringRef source,
                                        MlirStringRef sourceName,
                                        const FusionCompileOptions *options,
                                        FusionOutputKind kind) {
  auto *c = new Compilation;
  MLIRContext *ctx = unwrap(context);
  appendAllDialects(ctx);
  fusion::capi::DiagnosticCollector collector(ctx, c->diagnostics);
  if (failed(fusion::capi::refuseBeforeParsing(ctx, unwrap(source),
                                               unwrap(sourceName))))
    return wrapCompilation(c);
  ParserConfig config(ctx);
  OwningOpRef<ModuleOp> module =
      parseSourceString<ModuleOp>(unwrap(source), config, unwrap(sourceName));
  if (!module)
    return wrapCompilation(c);
  if (kind == FusionOutputVerifiedIR) {
    // parseSourceString verified it.
    llvm::raw_string_ostream os(c->bytes);
    module->print(os);
    c->succeeded = true;
  } else if (kind < FusionOutputModuleFile || kind > FusionOutputStages) {
    emitError(module->getLoc())
        << "unknown output kind " << static_cast<int>(kind);
  } else {
    compileInto(*c, *module, options, kind);
  }
  return wrapCompilation(c);
}

FusionCompilation fusionCompileModule(MlirModule module,
                                      const FusionCompileOptions *options) {
  auto *c = new Compilation;
  ModuleOp original = unwrap(module);
  MLIRContext *ctx = original.getContext();
  appendAllDialects(ctx);
  fusion::capi::DiagnosticCollector collector(ctx, c->diagnostics);
  OwningOpRef<ModuleOp> copy(cast<ModuleOp>(original->clone()));
  compileInto(*c, *copy, options);
  return wrapCompilation(c);
}

bool fusionCompilationSucceeded(FusionCompilation result) {
  return unwrapCompilation(result)->succeeded;
}

bool fusionCompilationCacheHit(FusionCompilation result) {
  return unwrapCompilation(result)->cacheHit;
}

MlirStringRef fusionCompilationGetBytes(FusionCompilation result) {
  const std::string &bytes = unwrapCompilation(result)->bytes;
  return mlirStringRefCreate(bytes.data(), bytes.size());
}

intptr_t fusionCompilationGetNumDiagnostics(FusionCompilation result) {
  return static_cast<intptr_t>(unwrapCompilation(result)->diagnostics.size());
}

FusionDiagnostic fusionCompilationGetDiagnostic(FusionCompilation result,
                                                intptr_t index) {
  return fusion::capi::viewOf(unwrapCompilation(result)->diagnostics, index);
}

void fusionCompilationDestroy(FusionCompilation result) {
  delete unwrapCompilation(result);
}

int fusionBuildDeferredKernel(void *user, const void *module, size_t size,
                              const char *kernel, void *result,
                              FusionKernelBuildResult setResult) {
  (void)user;
  auto report = [&](bool ok, const std::string &bytes) {
    if (setResult)
      setResult(result, ok ? 1 : 0, bytes.data(), bytes.size());
    return ok ? 0 : 1;
  };
  if (!module || !kernel)
    return report(false, "no module or no kernel name");
  // A context of its own: the runtime calls this from any thread.
  MLIRContext context;
  appendAllDialects(&context);
  std::optional<fusion::CompileCache> cache = fusion::environmentCache();
  std::string error;
  FailureOr<std::string> built = fusion::buildDeferredKernel(
      &context, StringRef(static_cast<const char *>(module), size), kernel,
      cache ? &*cache : nullptr, error);
  if (failed(built))
    return report(false, error);
  return report(true, *built);
}
