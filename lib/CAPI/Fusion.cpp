//===- Fusion.cpp - the compiler's C API (fusion-c/Fusion.h) --------------===//
// Wraps registration and compileToModuleFile. A compile collects every
// diagnostic of the context while it runs (a scoped handler, so the
// caller's handlers see nothing of it) and keeps the bytes and the
// diagnostics' strings until fusionCompilationDestroy.
//===----------------------------------------------------------------------===//

#include "fusion-c/Fusion.h"

#include "fusion/Dialect/Fusion/IR/FusionOps.h"
#include "fusion/Pipeline/Pipeline.h"
#include "fusion/Registration.h"
#include "fusion/Target/CompileCache.h"
#include "fusion/Target/ModuleWriter.h"

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

struct Recorded {
  FusionDiagnosticSeverity severity;
  std::string message, file;
  unsigned line = 0, column = 0;
};

struct Compilation {
  bool succeeded = false;
  bool cacheHit = false;
  std::string bytes;
  std::vector<Recorded> diagnostics;
};

FusionCompilation wrapCompilation(Compilation *c) { return {c}; }
Compilation *unwrapCompilation(FusionCompilation c) {
  return static_cast<Compilation *>(c.ptr);
}

FusionDiagnosticSeverity severityOf(DiagnosticSeverity severity) {
  switch (severity) {
  case DiagnosticSeverity::Error:
    return FusionDiagnosticError;
  case DiagnosticSeverity::Warning:
    return FusionDiagnosticWarning;
  case DiagnosticSeverity::Note:
    return FusionDiagnosticNote;
  case DiagnosticSeverity::Remark:
    return FusionDiagnosticRemark;
  }
  return FusionDiagnosticError;
}

/// A diagnostic and its notes, in order, each with the file location its
/// location holds (through fused and named locations).
void record(Compilation &c, Recorded &&d, Location loc) {
  if (auto file = dyn_cast<FileLineColLoc>(loc)) {
    d.file = file.getFilename().str();
    d.line = file.getLine();
    d.column = file.getColumn();
  } else {
    loc->walk([&](Location inner) {
      if (auto file = dyn_cast<FileLineColLoc>(inner)) {
        d.file = file.getFilename().str();
        d.line = file.getLine();
        d.column = file.getColumn();
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
  }
  c.diagnostics.push_back(std::move(d));
}

/// Collects the context's diagnostics while it lives.
class Collector {
public:
  Collector(MLIRContext *ctx, Compilation &c)
      : handler(ctx, [&c](mlir::Diagnostic &diag) {
          record(c, {severityOf(diag.getSeverity()), diag.str(), "", 0, 0},
                 diag.getLocation());
          for (mlir::Diagnostic &note : diag.getNotes())
            record(c, {FusionDiagnosticNote, note.str(), "", 0, 0},
                   note.getLocation());
          return success();
        }) {}

private:
  ScopedDiagnosticHandler handler;
};

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
                 const FusionCompileOptions *options) {
  FusionCompileOptions defaults;
  const FusionCompileOptions &o = orDefaults(options, defaults);
  fusion::FusionToPTXOptions pipeline;
  std::string error;
  if (failed(pipelineOptions(o, pipeline, error))) {
    emitError(module.getLoc()) << "bad compile options: " << error;
    return;
  }
  fusion::CompileOptions compile;
  compile.chip = pipeline.chip;
  compile.smCount = pipeline.smCount;
  compile.unroll = pipeline.unroll;
  compile.blocksPerSM = pipeline.blocksPerSM;
  compile.innerItems = pipeline.innerItems;
  compile.innerBlock = pipeline.innerBlock;
  compile.innerStage = pipeline.innerStage;
  compile.innerMinBlocks = pipeline.innerMinBlocks;
  compile.transposeTile = pipeline.transposeTile;
  compile.splitKernels = pipeline.splitKernels;
  compile.emitCubin = o.emitCubin;
  // Note [Compile cache]: configured by the environment, read per compile.
  std::optional<fusion::CompileCache> cache;
  if (o.useCache) {
    fusion::CompileCacheConfig config =
        fusion::CompileCacheConfig::fromEnvironment();
    if (config.enabled)
      cache.emplace(std::move(config));
  }
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
  auto *c = new Compilation;
  MLIRContext *ctx = unwrap(context);
  appendAllDialects(ctx);
  Collector collector(ctx, *c);
  ParserConfig config(ctx);
  OwningOpRef<ModuleOp> module =
      parseSourceString<ModuleOp>(unwrap(source), config, unwrap(sourceName));
  if (module)
    compileInto(*c, *module, options);
  return wrapCompilation(c);
}

FusionCompilation fusionCompileModule(MlirModule module,
                                      const FusionCompileOptions *options) {
  auto *c = new Compilation;
  ModuleOp original = unwrap(module);
  MLIRContext *ctx = original.getContext();
  appendAllDialects(ctx);
  Collector collector(ctx, *c);
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
  const auto &all = unwrapCompilation(result)->diagnostics;
  if (index < 0 || static_cast<size_t>(index) >= all.size())
    return {FusionDiagnosticError, mlirStringRefCreate(nullptr, 0),
            mlirStringRefCreate(nullptr, 0), 0, 0};
  const Recorded &d = all[static_cast<size_t>(index)];
  return {d.severity, mlirStringRefCreate(d.message.data(), d.message.size()),
          mlirStringRefCreate(d.file.data(), d.file.size()), d.line, d.column};
}

void fusionCompilationDestroy(FusionCompilation result) {
  delete unwrapCompilation(result);
}
