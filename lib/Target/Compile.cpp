//===- Compile.cpp - definition to PTX and module files -------------------===//
// The compiler's entry points used by fusion-translate and fusion-run.
//===----------------------------------------------------------------------===//

#include "fusion/Target/ModuleWriter.h"

#include "fusion/Target/CompileCache.h"

#include "fusion/Dialect/Fusion/IR/FusionOps.h"
#include "fusion/Pipeline/Pipeline.h"
#include "fusion/Runtime/fusion_module_generated.h"
#include "fusion/Support/ToolLimits.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"

#include <cstdlib>
#include <cstring>
#include <optional>

using namespace mlir;
using namespace mlir::fusion;
namespace fb = ::fusion::fb;

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
  writer.compileOptions = compileOptionsText(options);
  return writer;
}

StringRef deferKernelsName(DeferKernels mode) {
  switch (mode) {
  case DeferKernels::None:
    return "none";
  case DeferKernels::Fallbacks:
    return "fallbacks";
  case DeferKernels::All:
    return "all";
  }
  return "none";
}
} // namespace

// Note [Deferred kernels]: a fusion compiles to several kernels, most of
// them variants that run only for some inputs (odd sizes, misaligned or
// strided inputs, 2^31 elements and more), and most of a compile's CPU time
// is LLVM and ptxas over them (softmax: 7 variants, 256 KB of PTX). With
// `defer-kernels` (fallbacks: the kernels only fallback launches use; all:
// every kernel) the compile lowers every variant to a gpu.func, as always,
// then drops the deferred ones' gpu.funcs before the lowering of the
// kernel-level ops, the split into one module per kernel and the NVVM
// conversion (--fusion-defer-kernels; their
// launches keep naming the module they were lowered into) and writes them
// to the module file by name,
// without code (Kernel.deferred, format version 4), with the compile
// options as text (Module.compile_options) beside the definition the file
// always holds. The launch plan is the complete one: the runtime picks
// variants as before. When a launch first takes a deferred kernel, the
// runtime calls the kernel builder that the process registered
// (fusion::runtime::setKernelBuilder, fusion_set_kernel_builder; the
// compiler's is buildDeferredKernel, which fusion-run and the Python package
// register), once per kernel and executable. The builder parses the
// definition, compiles it again with the recorded options and
// `build-kernels=<kernel>` (every other kernel deferred, its code taken from
// the file when it was built before: no kernel is built twice), and
// returns the whole module file; the runtime verifies it, checks that it is
// the same module (kernel names, launches) and takes the new code. The
// kernel is byte-for-byte the one a compile without deferral makes (the
// same pipeline on the same definition; tested). The builder also stores
// the file in the compile cache under the key of the compile that made the
// original, so the next process that compiles the fusion gets the kernels
// built so far; and before compiling it looks there, so a kernel another
// process built is taken from the cache's module of the same definition. A
// process without a builder (a runtime-only host) gets a KernelNotBuilt error
// naming the kernel when a launch needs a deferred one: files meant for such
// hosts are compiled without deferral (the default of fusion-translate and of
// the compiler's APIs).

std::string mlir::fusion::compileOptionsText(const CompileOptions &o) {
  std::string text;
  llvm::raw_string_ostream os(text);
  auto flag = [](bool b) { return b ? "true" : "false"; };
  os << "chip=" << o.chip << " sm-count=" << o.smCount << " unroll=" << o.unroll
     << " blocks-per-sm=" << o.blocksPerSM << " inner-items=" << o.innerItems
     << " inner-block=" << o.innerBlock << " inner-stage=" << o.innerStage
     << " inner-cluster=" << o.innerCluster
     << " inner-long-cluster=" << o.innerLongCluster
     << " inner-columns=" << o.innerColumns
     << " compute-bound-cost=" << o.computeBoundCost
     << " inner-min-blocks=" << o.innerMinBlocks
     << " transpose-tile=" << o.transposeTile
     << " split-kernels=" << flag(o.splitKernels)
     << " defer-kernels=" << deferKernelsName(o.deferKernels)
     << " emit-cubin=" << flag(o.emitCubin)
     << " fallback-cubins=" << flag(o.fallbackCubins);
  return text;
}

// The fields CompileOptions and FusionToPTXOptions share, by their common
// name (buildKernels, a list option, is copied by hand).
#define FUSION_PIPELINE_FIELDS(X)                                              \
  X(chip)                                                                      \
  X(smCount)                                                                   \
  X(unroll)                                                                    \
  X(blocksPerSM)                                                               \
  X(innerItems)                                                                \
  X(innerBlock)                                                                \
  X(innerStage)                                                                \
  X(innerCluster)                                                              \
  X(innerLongCluster)                                                          \
  X(innerColumns)                                                              \
  X(computeBoundCost)                                                          \
  X(innerMinBlocks)                                                            \
  X(transposeTile)                                                             \
  X(splitKernels)                                                              \
  X(explain)                                                                   \
  X(deferKernels)

void mlir::fusion::fillPipelineOptions(const CompileOptions &options,
                                       FusionToPTXOptions &pipeline) {
#define FUSION_TO_PIPELINE(field) pipeline.field = options.field;
  FUSION_PIPELINE_FIELDS(FUSION_TO_PIPELINE)
#undef FUSION_TO_PIPELINE
  pipeline.buildKernels = options.buildKernels;
}

void mlir::fusion::applyPipelineOptions(const FusionToPTXOptions &pipeline,
                                        CompileOptions &options) {
#define FUSION_FROM_PIPELINE(field) options.field = pipeline.field;
  FUSION_PIPELINE_FIELDS(FUSION_FROM_PIPELINE)
#undef FUSION_FROM_PIPELINE
  options.buildKernels.assign(pipeline.buildKernels.begin(),
                              pipeline.buildKernels.end());
}
#undef FUSION_PIPELINE_FIELDS

LogicalResult mlir::fusion::parseCompileOptionsText(StringRef text,
                                                    CompileOptions &options,
                                                    std::string &error) {
  // The module writer's flags; the rest is the pipeline's textual form.
  SmallVector<StringRef> words;
  text.split(words, ' ', -1, /*KeepEmpty=*/false);
  std::string rest;
  for (StringRef word : words) {
    auto [key, value] = word.split('=');
    if (key == "emit-cubin" || key == "fallback-cubins") {
      bool &field =
          key == "emit-cubin" ? options.emitCubin : options.fallbackCubins;
      if (value != "true" && value != "false") {
        error = ("bad value '" + value + "' of " + key).str();
        return failure();
      }
      field = value == "true";
      continue;
    }
    rest += word.str() + " ";
  }
  FusionToPTXOptions pipeline;
  fillPipelineOptions(options, pipeline);
  llvm::raw_string_ostream os(error);
  if (failed(pipeline.parseFromString(rest, os)))
    return failure();
  applyPipelineOptions(pipeline, options);
  return success();
}

LogicalResult mlir::fusion::lowerToPTX(ModuleOp module,
                                       const CompileOptions &options) {
  FusionToPTXOptions pipeline;
  fillPipelineOptions(options, pipeline);
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
  // Every option that changes the bytes (printStages and timing do not;
  // buildKernels is the kernel builder's, which stores under the key of the
  // compile that wrote the file).
  std::string settings = compileOptionsText(options);
  // The cubin is ptxas's: another ptxas (or none) is another entry; the
  // math calls link libdevice's bitcode.
  std::string ptxas = "none";
  if (options.emitCubin)
    if (std::string found = findPtxas(); !found.empty())
      ptxas = fileIdentity(found);
  std::string libdevice = "none";
  if (std::string toolkit = findCudaToolkit(); !toolkit.empty())
    libdevice = fileIdentity(toolkit + "/nvvm/libdevice/libdevice.10.bc");
  return hashParts({"fusion-compile-cache-2", compilerId, settings, ptxas,
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

FailureOr<std::string>
mlir::fusion::buildDeferredKernel(MLIRContext *context, StringRef moduleBytes,
                                  StringRef kernel, const CompileCache *cache,
                                  std::string &error, bool *cacheHit) {
  if (cacheHit)
    *cacheHit = false;
  auto fail = [&](const Twine &why) -> FailureOr<std::string> {
    error = why.str();
    return failure();
  };
  // FlatBuffers reads scalars in place: an 8-byte aligned copy.
  std::vector<uint64_t> aligned((moduleBytes.size() + 7) / 8);
  std::memcpy(aligned.data(), moduleBytes.data(), moduleBytes.size());
  const auto *bytes = reinterpret_cast<const uint8_t *>(aligned.data());
  flatbuffers::Verifier verifier(bytes, moduleBytes.size());
  if (!fb::ModuleBufferHasIdentifier(bytes) ||
      !fb::VerifyModuleBuffer(verifier))
    return fail("not a valid module file");
  const fb::Module *file = fb::GetModule(bytes);
  if (!file->definition() || !file->compile_options())
    return fail("the module file records no definition or compile options "
                "(it has no deferred kernels)");
  CompileOptions original;
  if (failed(parseCompileOptionsText(file->compile_options()->string_view(),
                                     original, error)))
    return fail("the module file's compile options do not parse: " + error);
  if (file->target() && file->target()->string_view() != original.chip)
    return fail("the module file's target does not match its compile options");
  // The kernels built before keep their code; `kernel` must be deferred.
  ModuleWriterOptions writer = writerOptions(original);
  writer.compileOptions = file->compile_options()->str();
  bool found = false;
  if (file->kernels())
    for (const fb::Kernel *k : *file->kernels()) {
      if (!k->name())
        continue;
      if (StringRef(k->name()->c_str(), k->name()->size()) == kernel) {
        if (!k->deferred())
          return fail("kernel " + kernel + " is not deferred");
        found = true;
        continue;
      }
      if (k->deferred())
        continue;
      ModuleWriterOptions::KernelCode &code =
          writer.prebuiltKernels[k->name()->string_view()];
      if (k->ptx())
        code.ptx = k->ptx()->str();
      if (k->cubin())
        code.cubin.assign(k->cubin()->begin(), k->cubin()->end());
    }
  if (!found)
    return fail("the module file has no kernel named " + kernel);

  // The definition, compiled again: everything deferred but `kernel`.
  std::string diagnostics;
  ScopedDiagnosticHandler collect(context, [&](Diagnostic &diag) {
    if (diag.getSeverity() == DiagnosticSeverity::Error)
      diagnostics += (diagnostics.empty() ? "" : "; ") + diag.str();
    return success();
  });
  StringRef definition = file->definition()->string_view();
  // A definition the tools would refuse (Note [Integer lists]: MLIR's parser
  // crashes on some) is not parsed.
  if (std::optional<InputRefusal> refusal = findRefusal(definition))
    return fail("the module file's definition is refused: " + refusal->message);
  OwningOpRef<ModuleOp> module =
      parseSourceString<ModuleOp>(definition, ParserConfig(context));
  if (!module)
    return fail("the module file's definition does not parse: " + diagnostics);
  FailureOr<FusionOp> fusion = selectFusion(*module, "");
  if (failed(fusion))
    return fail(diagnostics);
  std::optional<std::string> key;
  if (cache && cache->config().enabled)
    if (FailureOr<std::string> k =
            compileCacheKey(*module, original, cache->config().compilerId);
        succeeded(k))
      key = *k;
  // Another process may have built the kernel already: the cache's module
  // of the same compile, when it has the kernel, is the answer.
  if (key)
    if (std::optional<std::string> cached = cache->lookup(*key)) {
      std::vector<uint64_t> copy((cached->size() + 7) / 8);
      std::memcpy(copy.data(), cached->data(), cached->size());
      const auto *data = reinterpret_cast<const uint8_t *>(copy.data());
      flatbuffers::Verifier check(data, cached->size());
      if (fb::ModuleBufferHasIdentifier(data) &&
          fb::VerifyModuleBuffer(check)) {
        const fb::Module *entry = fb::GetModule(data);
        bool same =
            entry->definition() && entry->definition()->string_view() ==
                                       file->definition()->string_view();
        if (same && entry->kernels())
          for (const fb::Kernel *k : *entry->kernels())
            if (k->name() &&
                StringRef(k->name()->c_str(), k->name()->size()) == kernel &&
                !k->deferred() && (k->ptx() || k->cubin())) {
              if (cacheHit)
                *cacheHit = true;
              return std::move(*cached);
            }
      }
    }
  CompileOptions build = original;
  build.deferKernels = DeferKernels::All;
  build.buildKernels = {kernel.str()};
  if (failed(lowerToPTX(*module, build)))
    return fail("building kernel " + kernel + ": " + diagnostics);
  FailureOr<std::string> result =
      writeModuleFile(*module, "", definition, writer);
  if (failed(result))
    return fail("writing the module with kernel " + kernel + ": " +
                diagnostics);
  if (key)
    (void)cache->store(*key, *result);
  return result;
}
