//===- ModuleWriter.h - lowered fusions to module files ---------*- C++ -*-===//
// Serializes a fusion after --fusion-to-ptx (host program + gpu.binary) into
// the FlatBuffers module file the runtime loads.
//===----------------------------------------------------------------------===//
#ifndef FUSION_TARGET_MODULEWRITER_H
#define FUSION_TARGET_MODULEWRITER_H

#include "fusion/Dialect/Fusion/Transforms/ScheduleDefaults.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/Timing.h"
#include <string>

namespace mlir::fusion {
class FusionOp;

struct ModuleWriterOptions {
  /// Compile the PTX to a cubin with ptxas when ptxas can be found.
  bool emitCubin = true;
  /// Also a cubin for the fallback variants (launches marked `fallback`);
  /// off, they keep PTX only (Note [Cubins for expected variants]).
  bool fallbackCubins = false;
  /// ptxas to use; empty: search PATH, $CUDA_HOME/bin, /usr/local/cuda/bin.
  std::string ptxas;
  std::string chip = "sm_90a";
  /// When set, the ptxas runs and the launch plan are timed under it.
  TimingScope *timing = nullptr;
};

/// The fusion named `fusionName` (empty: the only one) of `module`, or an
/// error on the module naming the fusions it has.
FailureOr<FusionOp> selectFusion(ModuleOp module, StringRef fusionName);

/// selectFusion, then erases every other fusion of `module`.
FailureOr<FusionOp> keepOnlyFusion(ModuleOp module, StringRef fusionName);

/// Serializes fusion `fusionName` (empty: the only fusion) of a module that
/// went through --fusion-to-ptx. `definition` is the fusion's textual IR
/// before lowering, stored in the file. Diagnostics go to the context.
FailureOr<std::string> writeModuleFile(ModuleOp module, StringRef fusionName,
                                       StringRef definition,
                                       const ModuleWriterOptions &options);

/// Finds ptxas as ModuleWriterOptions describes; empty if there is none.
std::string findPtxas(StringRef hint = "");

} // namespace mlir::fusion

namespace mlir::fusion {
struct CompileOptions {
  std::string chip = "sm_90a";
  int64_t smCount = 132;
  /// Pointwise schedule overrides (0: the heuristic's choice).
  int64_t unroll = 0;
  int64_t blocksPerSM = 0;
  /// Inner-reduction overrides (-1 / 0: the heuristic's choice).
  int64_t innerItems = -1;
  int64_t innerBlock = 0;
  int64_t innerStage = -1;
  /// Inner reductions: the cluster variant's most blocks per cluster (0:
  /// none; Note [Cluster rows]).
  int64_t innerCluster = 0;
  /// Note [Compute-bound kernels] (0: never).
  int64_t computeBoundCost = kDefaultComputeBoundCost;
  int64_t innerMinBlocks = 0;
  int64_t transposeTile = 64;
  /// Remarks with the segmenter's and schedulers' decisions.
  bool explain = false;
  bool emitCubin = true;
  /// See ModuleWriterOptions::fallbackCubins.
  bool fallbackCubins = false;
  /// Print the IR after every pass of the pipeline to `stagesStream`
  /// (stderr when null).
  bool printStages = false;
  llvm::raw_ostream *stagesStream = nullptr;
  /// Verify the IR after every pass of the pipeline, not only where this
  /// project's passes leave it (Note [Verification in the pipeline]).
  bool verifyEach = false;
  /// One gpu.module (PTX, cubin) per kernel variant; off, all variants of a
  /// fusion share one PTX (e.g. to print it as one ptxas-able file).
  bool splitKernels = true;
  /// When set, the pipeline's passes, ptxas and the module file writer are
  /// timed under it (fusion-translate --mlir-timing).
  TimingScope *timing = nullptr;
};

/// Runs --fusion-to-ptx on `module` in place.
LogicalResult lowerToPTX(ModuleOp module, const CompileOptions &options);

/// A lowered module (a fusion's host program of launches, written by hand or
/// by a scheduler under development, and the gpu.modules of its kernels,
/// which may use the kernel-level ops) through the pipeline's tail
/// (buildKernelsToPTXPipeline) to module file bytes holding `definition`,
/// the fusion's definition (what fusion-run checks the kernels against).
/// No compile cache.
FailureOr<std::string>
compileLoweredToModuleFile(ModuleOp module, StringRef fusionName,
                           StringRef definition, const CompileOptions &options);

/// The PTX text of every gpu.binary in a lowered module, concatenated.
std::string collectPTX(ModuleOp module);

class CompileCache;

/// What the compile cache did for one compile (Note [Compile cache]).
struct CompileCacheReport {
  enum class Outcome {
    Off,      // no cache, or the compile prints or times its stages
    Hit,      // the bytes came from the cache, nothing was compiled
    Stored,   // compiled and stored
    NotStored // compiled; the store failed (`error` says why)
  };
  Outcome outcome = Outcome::Off;
  std::string key;
  std::string error;
};

/// Lowers fusion `fusionName` (empty: the only one) of `module` in place and
/// returns the module file bytes. With a `cache` (enabled, and neither
/// printStages nor timing set) the bytes come from it when it has them;
/// otherwise the compiled bytes are stored in it. `module` is lowered only
/// when the compile runs.
FailureOr<std::string> compileToModuleFile(
    ModuleOp module, StringRef fusionName, const CompileOptions &options,
    const CompileCache *cache = nullptr, CompileCacheReport *report = nullptr);

/// The cache key of compiling `module`'s only fusion with `options`: the
/// definition after canonicalize and CSE, the options, ptxas (when a cubin
/// is wanted) and `compilerId`. Failure when the definition does not
/// canonicalize (the compile reports why).
FailureOr<std::string> compileCacheKey(ModuleOp module,
                                       const CompileOptions &options,
                                       StringRef compilerId);
} // namespace mlir::fusion
#endif
