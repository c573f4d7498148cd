// A host compiler's *-opt tool: every upstream dialect, with Fusion's
// dialects and passes registered beside them by one call each.
#include "fusion/Registration.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::fusion::registerAllDialects(registry);
  mlir::fusion::registerAllPasses();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "consumer-opt\n", registry));
}
