//===- fusion-opt.cpp - the fusion optimizer driver -----------------------===//
// mlir-opt's sibling: runs fusion and upstream passes on textual IR.
//===----------------------------------------------------------------------===//

#include "fusion/Registration.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  mlir::fusion::registerAllDialects(registry);
  mlir::fusion::registerAllPasses();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "Fusion optimizer driver\n", registry));
}
