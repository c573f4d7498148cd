//===- fusion-opt.cpp - the fusion optimizer driver -----------------------===//
// mlir-opt's sibling: runs fusion and upstream passes on textual IR.
//===----------------------------------------------------------------------===//

#include "fusion/Registration.h"
#include "fusion/Support/ToolLimits.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/SourceMgr.h"

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  mlir::fusion::addToolVersionPrinter();
  mlir::DialectRegistry registry;
  mlir::fusion::registerAllDialects(registry);
  mlir::fusion::registerAllPasses();
  auto [input, output] = mlir::registerAndParseCLIOptions(
      argc, argv, "Fusion optimizer driver\n", registry);
  // Note [Tool limits]: refuse absurd nesting before MLIR's parser recurses
  // into it (a file; standard input is read once, by MlirOptMain), and run
  // on a large stack.
  std::string error;
  if (input == "-") {
  } else if (auto file = mlir::openInputFile(input, &error)) {
    llvm::SourceMgr sourceMgr;
    sourceMgr.AddNewSourceBuffer(std::move(file), llvm::SMLoc());
    if (!mlir::fusion::checkNesting(sourceMgr))
      return 1;
  }
  return mlir::fusion::runWithLargeStack([&] {
    return mlir::asMainReturnCode(
        mlir::MlirOptMain(argc, argv, input, output, registry));
  });
}
