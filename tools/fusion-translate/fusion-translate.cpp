//===- fusion-translate.cpp - fusion IR to PTX or module files ------------===//
// Compiles textual fusion IR through --fusion-to-ptx and writes PTX or a
// module file for the runtime.
//===----------------------------------------------------------------------===//

#include "CompileFlags.h"
#include "fusion/Dialect/Fusion/IR/FusionOps.h"
#include "fusion/Registration.h"
#include "fusion/Support/ToolLimits.h"
#include "fusion/Target/CompileCache.h"
#include "fusion/Target/ModuleWriter.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Support/Timing.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"

#include <chrono>

using namespace mlir;
namespace cl = llvm::cl;

static cl::OptionCategory category("fusion-translate options");

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  mlir::fusion::addToolVersionPrinter();
  cl::opt<std::string> input(cl::Positional, cl::desc("<input .mlir>"),
                             cl::init("-"), cl::cat(category));
  cl::opt<std::string> output("o", cl::desc("Output file"), cl::init("-"),
                              cl::cat(category));
  enum class Mode { PTX, Module, IR, Lowered };
  cl::opt<Mode> mode(
      cl::desc("What to write:"),
      cl::values(
          clEnumValN(Mode::PTX, "fusion-to-ptx", "PTX of all kernels"),
          clEnumValN(Mode::Module, "fusion-to-module",
                     "a module file for the runtime"),
          clEnumValN(Mode::IR, "fusion-to-lowered-ir",
                     "the IR after the pipeline (host program + gpu.binary)"),
          clEnumValN(Mode::Lowered, "lowered-to-module",
                     "a module file from a lowered module (a host program of "
                     "launches and gpu.modules of kernels; with "
                     "--definition)")),
      cl::init(Mode::PTX), cl::cat(category));
  cl::opt<std::string> fusionName("fusion", cl::desc("The fusion to compile"),
                                  cl::init(""), cl::cat(category));
  cl::opt<std::string> definitionFile(
      "definition",
      cl::desc("With --lowered-to-module: the file of the fusion's "
               "definition, stored in the module (fusion-run checks the "
               "kernels against it)"),
      cl::init(""), cl::cat(category));
  fusion::CompileFlags flags(category);
  cl::opt<unsigned> repeat(
      "repeat",
      cl::desc("With --fusion-to-module: compile this many times in this "
               "process and print each compile's wall time to stderr (the "
               "first is cold, the others show a warm process)"),
      cl::init(1), cl::cat(category));
  cl::opt<bool> printStages("print-stages",
                            cl::desc("Print the IR after every pass"),
                            cl::init(false), cl::cat(category));
  cl::opt<bool> verifyEach(
      "verify-each",
      cl::desc("Verify the IR after every pass of the pipeline (by default "
               "only where the fusion passes leave it; FUSION_VERIFY_EACH=1 "
               "does the same)"),
      cl::init(false), cl::cat(category));
  cl::opt<bool> explain(
      "explain",
      cl::desc("Print the segmenter's and schedulers' decisions, with their "
               "reasons, as remarks (the compile cache is not used)"),
      cl::init(false), cl::cat(category));
  cl::opt<bool> noCache(
      "no-cache",
      cl::desc("With --fusion-to-module: compile even when the compile cache "
               "has the module, and do not store it (FUSION_CACHE=0 does the "
               "same; --repeat, --print-stages and --mlir-timing imply it)"),
      cl::init(false), cl::cat(category));
  cl::opt<bool> cacheReport(
      "cache-report",
      cl::desc("With --fusion-to-module: say on stderr what the compile "
               "cache did (hit, stored, off) and the key"),
      cl::init(false), cl::cat(category));
  // --mlir-timing (parse, each pass, ptxas, launch plan, output) and
  // --mlir-disable-threading work too, but --help lists only this tool's own
  // options (--help-hidden lists the rest).
  registerDefaultTimingManagerCLOptions();
  registerMLIRContextCLOptions();
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(
      argc, argv,
      "fusion-translate: compile fusion IR to PTX or to a module file\n\n"
      "  fusion-translate f.mlir --fusion-to-ptx -o f.ptx\n"
      "  fusion-translate f.mlir --fusion-to-module --fusion=softmax -o "
      "softmax.fusionmod\n");
  return fusion::runWithLargeStack([&]() -> int {
    DefaultTimingManager timingManager;
    applyDefaultTimingManagerCLOptions(timingManager);
    TimingScope timing = timingManager.getRootScope();

    TimingScope contextTiming = timing.nest("context");
    DialectRegistry registry;
    fusion::registerAllDialects(registry);
    MLIRContext context(registry);
    context.loadAllAvailableDialects();
    contextTiming.stop();

    std::string error;
    auto file = openInputFile(input, &error);
    if (!file) {
      llvm::errs() << "fusion-translate: " << error << "\n";
      return 1;
    }
    llvm::SourceMgr sourceMgr;
    sourceMgr.AddNewSourceBuffer(std::move(file), llvm::SMLoc());
    if (!fusion::checkInput(sourceMgr))
      return 1;
    SourceMgrDiagnosticHandler handler(sourceMgr, &context);
    TimingScope parseTiming = timing.nest("parse");
    OwningOpRef<ModuleOp> module =
        parseSourceFile<ModuleOp>(sourceMgr, &context);
    if (!module)
      return 1;
    parseTiming.stop();

    fusion::CompileOptions options;
    flags.apply(options);
    if (options.deferKernels != fusion::DeferKernels::None &&
        mode != Mode::Module) {
      llvm::errs() << "fusion-translate: --defer-kernels needs "
                      "--fusion-to-module\n";
      return 1;
    }
    options.printStages = printStages;
    options.verifyEach = verifyEach;
    options.explain = explain;
    // One PTX file with every entry, as ptxas and readers expect.
    options.splitKernels = mode != Mode::PTX;
    options.timing = &timing;

    // Note [Compile cache]: module files compiled before, by any process.
    std::string cacheError;
    fusion::CompileCacheConfig cacheConfig =
        fusion::CompileCacheConfig::fromEnvironment(&cacheError);
    if (!cacheError.empty())
      llvm::errs() << "fusion-translate: compile cache off: " << cacheError
                   << "\n";
    bool useCache = mode == Mode::Module && cacheConfig.enabled && !noCache &&
                    repeat <= 1 && !printStages && !timingManager.isEnabled();
    std::optional<fusion::CompileCache> cache;
    if (useCache)
      cache.emplace(cacheConfig);

    std::string result;
    if (mode == Mode::Lowered) {
      // Note [Lowered modules]: kernels written by hand (or by a scheduler
      // under development) run through the pipeline's tail and fusion-run
      // checks them against the definition like any compiled fusion.
      if (definitionFile.empty()) {
        llvm::errs() << "fusion-translate: --lowered-to-module needs "
                        "--definition=FILE\n";
        return 1;
      }
      auto definition = openInputFile(definitionFile, &error);
      if (!definition) {
        llvm::errs() << "fusion-translate: " << error << "\n";
        return 1;
      }
      auto bytes = fusion::compileLoweredToModuleFile(
          *module, fusionName, definition->getBuffer(), options);
      if (failed(bytes))
        return 1;
      result = std::move(*bytes);
    } else if (mode == Mode::Module) {
      std::string source = sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID())
                               ->getBuffer()
                               .str();
      for (unsigned i = 0; i < std::max(1u, unsigned(repeat)); ++i) {
        OwningOpRef<ModuleOp> copy =
            i == 0 ? std::move(module)
                   : parseSourceString<ModuleOp>(source, &context);
        if (!copy)
          return 1;
        auto start = std::chrono::steady_clock::now();
        fusion::CompileCacheReport report;
        // Timing only when asked for: a hit runs no pass to time.
        options.timing = timingManager.isEnabled() ? &timing : nullptr;
        auto bytes = fusion::compileToModuleFile(
            *copy, fusionName, options, cache ? &*cache : nullptr, &report);
        if (cacheReport) {
          using Outcome = fusion::CompileCacheReport::Outcome;
          llvm::errs() << "fusion-translate: compile cache ";
          switch (report.outcome) {
          case Outcome::Off:
            llvm::errs() << "off";
            break;
          case Outcome::Hit:
            llvm::errs() << "hit " << report.key;
            break;
          case Outcome::Stored:
            llvm::errs() << "stored " << report.key << " in "
                         << cacheConfig.directory;
            break;
          case Outcome::NotStored:
            llvm::errs() << "not stored " << report.key << ": " << report.error;
            break;
          }
          llvm::errs() << "\n";
        }
        double ms = std::chrono::duration<double, std::milli>(
                        std::chrono::steady_clock::now() - start)
                        .count();
        if (failed(bytes))
          return 1;
        if (repeat > 1)
          llvm::errs() << "fusion-translate: compile " << i + 1 << " of "
                       << unsigned(repeat) << ": " << llvm::format("%.1f", ms)
                       << " ms\n";
        result = std::move(*bytes);
      }
    } else {
      // --fusion keeps one fusion of the file (each fusion's kernels are a
      // separate PTX module, so a file of several is not one ptxas input).
      SmallVector<StringRef> names;
      for (auto f : module->getOps<fusion::FusionOp>())
        names.push_back(f.getSymName());
      if (fusionName.empty() && mode == Mode::PTX && names.size() > 1) {
        llvm::errs() << "fusion-translate: " << input << " has " << names.size()
                     << " fusions (@" << llvm::join(names, ", @")
                     << "): their PTX modules are not one ptxas input; name "
                        "one with --fusion=NAME\n";
        return 1;
      }
      if (!fusionName.empty()) {
        bool found = false;
        for (Operation &op : llvm::make_early_inc_range(*module->getBody())) {
          auto f = dyn_cast<fusion::FusionOp>(op);
          if (!f)
            continue;
          if (f.getSymName() == fusionName)
            found = true;
          else
            op.erase();
        }
        if (!found) {
          llvm::errs() << "fusion-translate: no fusion named '" << fusionName
                       << "' in " << input << "\n";
          return 1;
        }
      }
      if (failed(fusion::lowerToPTX(*module, options)))
        return 1;
      if (mode == Mode::PTX) {
        result = fusion::collectPTX(*module);
      } else {
        llvm::raw_string_ostream os(result);
        module->print(os);
      }
    }
    TimingScope outputTiming = timing.nest("output");
    auto out = openOutputFile(output, &error);
    if (!out) {
      llvm::errs() << "fusion-translate: " << error << "\n";
      return 1;
    }
    out->os() << result;
    out->keep();
    return 0;
  });
}
