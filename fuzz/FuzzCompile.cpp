//===- FuzzCompile.cpp - libFuzzer target: IR text through --fusion-to-ptx ===//
// fusion-fuzz-compile: the input bytes are textual IR. They are parsed with
// the registry the tools use (fusion::registerAllDialects; dialects loaded
// on demand), verified, and
// each fusion of the module is lowered to PTX alone, the way
// `fusion-translate --fusion-to-ptx --fusion=NAME` does (fusion::lowerToPTX,
// then fusion::collectPTX; inputs of odd length with --inner-cluster=8). No
// ptxas runs. Every diagnostic goes to a handler
// that drops it: a rejected input is a normal outcome, and only a crash,
// a sanitizer report, a timeout or running out of memory is a finding.
// See docs/fuzzing.md.
//===----------------------------------------------------------------------===//

#include "fusion/Dialect/Fusion/IR/FusionOps.h"
#include "fusion/Registration.h"
#include "fusion/Support/ToolLimits.h"
#include "fusion/Target/ModuleWriter.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"

#include <cstddef>
#include <cstdint>
#include <string>

using namespace mlir;

namespace {

/// Inputs above this size are skipped: the interesting bugs show up in small
/// inputs, and big ones only slow the search down.
constexpr size_t kMaxInputBytes = 64 * 1024;

/// Input the tools refuse before parsing is skipped, as it never reaches
/// the parser there either: absurd nesting, which overflows the stack of
/// MLIR's recursive-descent parser before any diagnostic can be given (Note
/// [Tool limits]), and a malformed `permutation`/`dimensions` list, on which
/// LLVM 22's linalg parsers dereference a null attribute after reporting
/// the error (Note [Integer lists]).
bool refusedByTools(llvm::StringRef text) {
  return fusion::refusedBeforeParsing(text);
}

const DialectRegistry &registry() {
  static const DialectRegistry *r = [] {
    auto *reg = new DialectRegistry;
    fusion::registerAllDialects(*reg);
    return reg;
  }();
  return *r;
}

/// Lowers each fusion of `module` to PTX on a clone holding that fusion only
/// (fusion-translate --fusion-to-ptx --fusion=NAME).
void compileEachFusion(ModuleOp module, int64_t innerCluster) {
  llvm::SmallVector<std::string> names;
  for (auto fusionOp : module.getBody()->getOps<fusion::FusionOp>())
    names.push_back(fusionOp.getSymName().str());
  for (const std::string &name : names) {
    OwningOpRef<ModuleOp> copy = module.clone();
    for (Operation &op : llvm::make_early_inc_range(*copy->getBody()))
      if (auto f = dyn_cast<fusion::FusionOp>(op); f && f.getSymName() != name)
        op.erase();
    fusion::CompileOptions options;
    options.emitCubin = false;
    options.innerCluster = innerCluster;
    // One PTX text with every entry, as fusion-translate --fusion-to-ptx.
    options.splitKernels = false;
    if (succeeded(fusion::lowerToPTX(*copy, options))) {
      std::string ptx = fusion::collectPTX(*copy);
      // Keep the result observable so nothing above is optimized away.
      volatile size_t size = ptx.size();
      (void)size;
    }
  }
}

int compileInput(llvm::StringRef text) {
  // A fresh context per input: nothing one input interns or registers can
  // change how the next one compiles, and a reproducer replays alone.
  // Threading off: deterministic, and the machines running this are small.
  // Dialects load as the parser and the passes ask for them, as in a
  // compiler that embeds ours; loading every dialect up front, as the tools
  // do, took 8 ms per input, most of the time of an input the parser
  // rejects (about 4x fewer executions a second).
  MLIRContext context(registry(), MLIRContext::Threading::DISABLED);
  ScopedDiagnosticHandler swallow(&context,
                                  [](Diagnostic &) { return success(); });

  // A NUL-terminated copy: MLIR's lexer reads the terminator at the end.
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(text, "fuzz-input.mlir"),
      llvm::SMLoc());
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sourceMgr, &context);
  if (!module)
    return 0;
  if (failed(verify(*module)))
    return 0;
  // Every other input (by its length) also builds the cluster rows
  // variants of its inner reductions (Note [Cluster rows]).
  compileEachFusion(*module, text.size() % 2 ? 8 : 0);
  return 0;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size > kMaxInputBytes)
    return -1; // not added to the corpus
  llvm::StringRef text(reinterpret_cast<const char *>(data), size);
  if (refusedByTools(text))
    return -1;
  // On a thread with the tools' large stack (Note [Tool limits]), so that
  // what the tools accept, this target accepts too.
  return fusion::runWithLargeStack([&] { return compileInput(text); });
}
