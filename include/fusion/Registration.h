//===- Registration.h - dialects and passes of the compiler -----*- C++ -*-===//
// One place that registers everything the fusion tools need.
//===----------------------------------------------------------------------===//
#ifndef FUSION_REGISTRATION_H
#define FUSION_REGISTRATION_H

#include "mlir/IR/DialectRegistry.h"

namespace mlir::fusion {
/// The fusion dialect and the upstream dialects (and their convert-to-LLVM
/// and translation interfaces) the pipeline uses.
void registerAllDialects(DialectRegistry &registry);
/// The fusion passes and pipelines and the upstream passes they build on.
void registerAllPasses();
/// --version: the project's version and the module file format, printed
/// after LLVM's lines (call before parsing the command line).
void addToolVersionPrinter();
} // namespace mlir::fusion

#endif
