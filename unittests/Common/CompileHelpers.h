//===- CompileHelpers.h - compile IR to module files in tests ---*- C++ -*-===//
//
// Test helpers shared by the pipeline tests (unittests/Target) and the
// fake-driver tests (unittests/Runtime): compile a fusion's IR to a module
// file (PTX only: ptxas is optional on CI machines, and the fake driver takes
// PTX) and load it. Header-only; the including target defines
// FUSION_EXAMPLES_DIR.
//
//===----------------------------------------------------------------------===//

#ifndef FUSION_UNITTESTS_COMMON_COMPILEHELPERS_H
#define FUSION_UNITTESTS_COMMON_COMPILEHELPERS_H

#include "fusion/Registration.h"
#include "fusion/Runtime/Executable.h"
#include "fusion/Target/CompileCache.h"
#include "fusion/Target/ModuleWriter.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/MemoryBuffer.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

namespace fusion::testing {

/// Two kernels through an intermediate: x - mean(x, dim 0) (an outer
/// reduction, then a pointwise kernel reading its result).
inline const char *const kOuterCenterSource = R"mlir(
fusion.fusion @outer_center(%x: tensor<?x?xf32>, %count: f32) -> tensor<?x?xf32> {
  %m = fusion.dim %x, 0 : tensor<?x?xf32>
  %n = fusion.dim %x, 1 : tensor<?x?xf32>
  %s = fusion.sum %x [0] keepdim : tensor<?x?xf32> -> tensor<1x?xf32>
  %c = fusion.broadcast_in_dim %count [] (%n) : f32 -> tensor<1x?xf32>
  %mean = fusion.div %s, %c : tensor<1x?xf32>
  %e = fusion.expand %mean (%m, %n) : tensor<1x?xf32> -> tensor<?x?xf32>
  %y = fusion.sub %x, %e : tensor<?x?xf32>
  fusion.return %y : tensor<?x?xf32>
})mlir";

/// The module file bytes of `source` (its only fusion, or `fusionName`),
/// compiled in a context of its own, through `cache` when given; empty on
/// failure (with a test failure).
inline std::string
compileBytes(llvm::StringRef source, bool threads = true,
             const mlir::fusion::CompileOptions *given = nullptr,
             llvm::StringRef fusionName = "",
             const mlir::fusion::CompileCache *cache = nullptr,
             mlir::fusion::CompileCacheReport *report = nullptr) {
  mlir::DialectRegistry registry;
  mlir::fusion::registerAllDialects(registry);
  mlir::MLIRContext context(registry);
  if (!threads)
    context.disableMultithreading();
  context.loadAllAvailableDialects();
  auto module = mlir::parseSourceString<mlir::ModuleOp>(source, &context);
  EXPECT_TRUE(bool(module));
  if (!module)
    return "";
  mlir::fusion::CompileOptions options;
  options.emitCubin = false;
  if (given)
    options = *given;
  auto bytes = mlir::fusion::compileToModuleFile(*module, fusionName, options,
                                                 cache, report);
  EXPECT_TRUE(mlir::succeeded(bytes));
  return mlir::succeeded(bytes) ? *bytes : "";
}

/// `source` compiled (with `options`, or the defaults) and loaded; null on
/// failure (with a test failure).
inline std::unique_ptr<runtime::Executable>
compileSource(llvm::StringRef source,
              const mlir::fusion::CompileOptions *options = nullptr) {
  std::string bytes = compileBytes(source, true, options);
  if (bytes.empty())
    return nullptr;
  auto exe = runtime::Executable::load(bytes.data(), bytes.size());
  EXPECT_TRUE(exe.ok()) << exe.status().toString();
  return exe.ok() ? std::move(exe.value()) : nullptr;
}

/// The text of examples/<name>.mlir.
inline std::string readExample(const std::string &name) {
  auto buffer = llvm::MemoryBuffer::getFile(std::string(FUSION_EXAMPLES_DIR) +
                                            "/" + name + ".mlir");
  EXPECT_TRUE(bool(buffer)) << name;
  return buffer ? (*buffer)->getBuffer().str() : "";
}

/// examples/<name>.mlir compiled (with `options`, or the defaults) and
/// loaded.
inline std::unique_ptr<runtime::Executable>
compileExample(const std::string &name,
               const mlir::fusion::CompileOptions *options = nullptr) {
  std::string source = readExample(name);
  return source.empty() ? nullptr : compileSource(source, options);
}

} // namespace fusion::testing

#endif // FUSION_UNITTESTS_COMMON_COMPILEHELPERS_H
