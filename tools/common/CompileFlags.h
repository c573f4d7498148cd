//===- CompileFlags.h - The compile options as command-line flags -*- C++
//-*-===//
//
// The flags of the compile options (fusion::CompileOptions) that the tools
// that compile share: fusion-translate and fusion-run take the same
// schedule overrides, target and ptxas flags, with the same names,
// defaults and help, from this one list.
//
//===----------------------------------------------------------------------===//

#ifndef FUSION_TOOLS_COMMON_COMPILEFLAGS_H
#define FUSION_TOOLS_COMMON_COMPILEFLAGS_H

#include "fusion/Target/ModuleWriter.h"
#include "llvm/Support/CommandLine.h"

namespace mlir::fusion {

/// Registers its flags in `category` when constructed (before
/// llvm::cl::ParseCommandLineOptions; a tool keeps one for its lifetime).
class CompileFlags {
public:
  explicit CompileFlags(llvm::cl::OptionCategory &category);

  /// Sets the fields the flags cover; the others keep their values.
  void apply(CompileOptions &options) const;

  /// The flags given on the command line, as "--name" (for a tool that
  /// does not compile this time and says so).
  std::vector<std::string> given() const;

  llvm::cl::opt<std::string> chip;
  llvm::cl::opt<int64_t> smCount;
  llvm::cl::opt<int64_t> unroll;
  llvm::cl::opt<int64_t> blocksPerSM;
  llvm::cl::opt<int64_t> innerItems;
  llvm::cl::opt<int64_t> innerBlock;
  llvm::cl::opt<int64_t> innerStage;
  llvm::cl::opt<int64_t> innerCluster;
  llvm::cl::opt<int64_t> innerLongCluster;
  llvm::cl::opt<int64_t> innerColumns;
  llvm::cl::opt<int64_t> computeBoundCost;
  llvm::cl::opt<int64_t> innerMinBlocks;
  llvm::cl::opt<int64_t> transposeTile;
  llvm::cl::opt<bool> noCubin;
  llvm::cl::opt<bool> fallbackCubins;
  llvm::cl::opt<DeferKernels> deferKernels;
};

} // namespace mlir::fusion

#endif // FUSION_TOOLS_COMMON_COMPILEFLAGS_H
