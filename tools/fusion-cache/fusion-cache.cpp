//===- fusion-cache.cpp - the compile cache on the command line -----------===//
// Lists, prunes and clears the directory of compiled module files that
// fusion-translate, fusion-run, the compiler's C API and the Python package
// share (Note [Compile cache] in include/fusion/Target/CompileCache.h).
//===----------------------------------------------------------------------===//

#include "fusion/Runtime/Executable.h"
#include "fusion/Runtime/ModuleFormat.h"
#include "fusion/Target/CompileCache.h"
#include "fusion/Version.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir::fusion;
namespace cl = llvm::cl;

static cl::OptionCategory category("fusion-cache options");

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  cl::SetVersionPrinter([](llvm::raw_ostream &os) {
    os << "Fusion version " FUSION_VERSION_STRING " (module format "
       << fusion::runtime::kModuleFormatVersion << ")\n";
  });
  enum class Command { Dir, List, Prune, Clear };
  cl::opt<std::string> commandName(
      cl::Positional,
      cl::desc("<command>: dir (print the cache directory), list (one line "
               "per entry, least recently used first: key, bytes, last use, "
               "fusion, target), prune (delete least recently used entries "
               "down to --max-mb, default FUSION_CACHE_MAX_MB, else 2048), "
               "clear (delete every entry)"),
      cl::Required, cl::cat(category));
  cl::opt<int64_t> maxMb("max-mb", cl::desc("prune: the bound in MiB"),
                         cl::init(-1), cl::cat(category));
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(
      argc, argv,
      "fusion-cache: the compile cache of module files\n\n"
      "  fusion-cache list\n"
      "  fusion-cache prune --max-mb=512\n\n"
      "FUSION_CACHE_DIR moves the cache (default $XDG_CACHE_HOME/fusion, "
      "else ~/.cache/fusion),\nFUSION_CACHE_MAX_MB bounds it, FUSION_CACHE=0 "
      "turns it off for the compilers.\n");

  Command command;
  if (commandName == "dir") {
    command = Command::Dir;
  } else if (commandName == "list") {
    command = Command::List;
  } else if (commandName == "prune") {
    command = Command::Prune;
  } else if (commandName == "clear") {
    command = Command::Clear;
  } else {
    llvm::errs() << "fusion-cache: unknown command '" << commandName
                 << "' (dir, list, prune or clear)\n";
    return 2;
  }

  std::string error;
  CompileCacheConfig config = CompileCacheConfig::fromEnvironment(&error);
  if (!error.empty()) {
    llvm::errs() << "fusion-cache: " << error << "\n";
    return 1;
  }
  // The commands work on the directory even when the compilers' use of the
  // cache is off.
  config.enabled = true;
  CompileCache cache(config);
  switch (command) {
  case Command::Dir:
    llvm::outs() << config.directory << "\n";
    return 0;
  case Command::List: {
    uint64_t total = 0;
    std::vector<CompileCacheEntry> entries = cache.list();
    for (const CompileCacheEntry &entry : entries) {
      std::string what = "(not a module file)";
      if (auto buffer = llvm::MemoryBuffer::getFile(entry.path, false, false)) {
        llvm::StringRef bytes = (*buffer)->getBuffer();
        auto exe =
            fusion::runtime::Executable::load(bytes.data(), bytes.size());
        if (exe.ok()) {
          const fusion::runtime::ModuleInfo &info = (*exe)->info();
          what = "@" + info.name + " " + info.target;
          // Note [Deferred kernels]: how many are built so far.
          size_t deferred = 0;
          for (const fusion::runtime::KernelInfo &kernel : info.kernels)
            deferred += kernel.deferred;
          if (deferred)
            what += " (" + std::to_string(info.kernels.size() - deferred) +
                    " of " + std::to_string(info.kernels.size()) +
                    " kernels built)";
        }
      }
      std::time_t when = std::chrono::system_clock::to_time_t(entry.lastUse);
      char stamp[32];
      std::strftime(stamp, sizeof(stamp), "%Y-%m-%d %H:%M:%S",
                    std::localtime(&when));
      llvm::outs() << entry.key << "  " << llvm::format("%9llu", entry.bytes)
                   << "  " << stamp << "  " << what << "\n";
      total += entry.bytes;
    }
    llvm::outs() << entries.size() << " entries, " << total << " bytes in "
                 << config.directory << "\n";
    return 0;
  }
  case Command::Prune: {
    // Given, the bound is 0 MiB (empty the cache) or more, and a byte count
    // that fits 64 bits.
    if (maxMb.getNumOccurrences() &&
        (maxMb < 0 || maxMb > (int64_t(1) << 43))) {
      llvm::errs() << "fusion-cache: --max-mb must be 0 to 8796093022208, got "
                   << maxMb << "\n";
      return 1;
    }
    uint64_t bound =
        maxMb.getNumOccurrences() ? uint64_t(maxMb) << 20 : config.maxBytes;
    size_t removed = cache.prune(bound);
    llvm::outs() << "removed " << removed << " entries; " << cache.totalBytes()
                 << " bytes left in " << config.directory << "\n";
    return 0;
  }
  case Command::Clear:
    llvm::outs() << "removed " << cache.clear() << " entries from "
                 << config.directory << "\n";
    return 0;
  }
  return 1;
}
