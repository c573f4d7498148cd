//===- fusion-opt.cpp - the fusion optimizer driver -----------------------===//
// mlir-opt's sibling: runs fusion and upstream passes on textual IR.
//===----------------------------------------------------------------------===//

#include "fusion/Registration.h"
#include "fusion/Support/ToolLimits.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"

#include <cstdio>

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  mlir::fusion::addToolVersionPrinter();
  mlir::DialectRegistry registry;
  mlir::fusion::registerAllDialects(registry);
  mlir::fusion::registerAllPasses();
  auto [input, output] = mlir::registerAndParseCLIOptions(
      argc, argv, "Fusion optimizer driver\n", registry);
  mlir::MlirOptMainConfig config =
      mlir::MlirOptMainConfig::createFromCLOptions();
  // --show-dialects and --list-passes read no input.
  if (config.shouldShowDialects() || config.shouldListPasses())
    return mlir::asMainReturnCode(
        mlir::MlirOptMain(argc, argv, input, output, registry));

  // What MlirOptMain(argc, argv, input, output, registry) does, with the
  // input read here, so that a file or standard input alike is checked
  // before MLIR's parser sees it: Note [Tool limits] (absurd nesting, then
  // a large stack) and Note [Integer lists].
  if (input == "-" &&
      llvm::sys::Process::FileDescriptorIsDisplayed(fileno(stdin)))
    llvm::errs() << "(processing input from stdin now, hit ctrl-c/ctrl-d to "
                    "interrupt)\n";
  std::string error;
  std::unique_ptr<llvm::MemoryBuffer> file = mlir::openInputFile(input, &error);
  if (!file) {
    llvm::errs() << error << "\n";
    return 1;
  }
  {
    // A view of the buffer: MlirOptMain takes the buffer itself.
    llvm::SourceMgr sourceMgr;
    sourceMgr.AddNewSourceBuffer(
        llvm::MemoryBuffer::getMemBuffer(file->getMemBufferRef(),
                                         /*RequiresNullTerminator=*/false),
        llvm::SMLoc());
    if (!mlir::fusion::checkInput(sourceMgr))
      return 1;
  }
  std::unique_ptr<llvm::ToolOutputFile> out =
      mlir::openOutputFile(output, &error);
  if (!out) {
    llvm::errs() << error << "\n";
    return 1;
  }
  return mlir::fusion::runWithLargeStack([&] {
    if (mlir::failed(
            mlir::MlirOptMain(out->os(), std::move(file), registry, config)))
      return 1;
    // Kept only when MlirOptMain succeeded, as it does itself.
    out->keep();
    return 0;
  });
}
