//===- KernelModules.h - one gpu.module per kernel, compiled in parallel --===//
// The passes between the kernel lowering and the module file: split the
// gpu.module of a fusion into one gpu.module per gpu.func (so each kernel
// gets its own PTX and cubin), serialize the modules to PTX in parallel, and
// replace them with gpu.binary ops.
//===----------------------------------------------------------------------===//

#ifndef FUSION_TRANSFORMS_KERNELMODULES_H
#define FUSION_TRANSFORMS_KERNELMODULES_H

#include "mlir/Pass/Pass.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <memory>
#include <string>

namespace mlir::fusion {

/// --fusion-split-kernel-modules: every gpu.module with several gpu.funcs
/// becomes one gpu.module per gpu.func, named after the func (other ops of
/// the module, e.g. globals, are copied into each); fusion.launch references
/// follow.
std::unique_ptr<Pass> createFusionSplitKernelModules();

/// Note [Deferred kernels] (lib/Target/Compile.cpp): which kernels a
/// compile leaves to be built when a launch first needs them.
enum class DeferKernels {
  None,      // every kernel is built
  Fallbacks, // kernels only fallback launches use (scalar, 64-bit index, ...)
  All,       // every kernel
};

/// The unit attribute on a fusion.launch whose kernel was deferred (its
/// gpu.module is gone); the module writer writes the kernel without code.
inline constexpr llvm::StringLiteral kDeferredKernelAttr = "fusion.deferred";

/// --fusion-defer-kernels (before --fusion-split-kernel-modules): erases
/// the gpu.func of every launched kernel that `mode` defers, except the
/// kernels named in `build`, and marks the launches of those kernels
/// kDeferredKernelAttr; a gpu.module left without launched kernels goes
/// too. A kernel any launch not marked `fallback` uses is not a fallback.
/// `split`: the split follows (without it, deferral is an error).
std::unique_ptr<Pass>
createFusionDeferKernels(DeferKernels mode,
                         llvm::ArrayRef<std::string> build = {},
                         bool split = true);

/// --fusion-serialize-kernel-module (on gpu.module): serializes the module
/// for each of its targets (PTX, CompilationTarget::Assembly) and records
/// the objects in the `fusion.objects` attribute. A pass on gpu.module, so
/// the pass manager runs it over the modules in parallel. libdevice
/// (`toolkitPath`/nvvm/libdevice) is linked only into modules that call
/// __nv_* functions: parsing it costs more than compiling a small kernel.
std::unique_ptr<Pass>
createFusionSerializeKernelModule(const std::string &toolkitPath = "");

/// --fusion-kernel-modules-to-binaries: replaces each serialized gpu.module
/// by a gpu.binary with its objects (as gpu-module-to-binary does).
std::unique_ptr<Pass> createFusionKernelModulesToBinaries();

void registerFusionKernelModulePasses();

} // namespace mlir::fusion

#endif // FUSION_TRANSFORMS_KERNELMODULES_H
