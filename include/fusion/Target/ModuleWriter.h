//===- ModuleWriter.h - lowered fusions to module files ---------*- C++ -*-===//
// Serializes a fusion after --fusion-to-ptx (host program + gpu.binary) into
// the FlatBuffers module file the runtime loads.
//===----------------------------------------------------------------------===//
#ifndef FUSION_TARGET_MODULEWRITER_H
#define FUSION_TARGET_MODULEWRITER_H

#include "fusion/Dialect/Fusion/Transforms/KernelModules.h"
#include "fusion/Dialect/Fusion/Transforms/ScheduleDefaults.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/Timing.h"
#include "llvm/ADT/StringMap.h"
#include <string>
#include <vector>

namespace mlir::fusion {
class FusionOp;
struct FusionToPTXOptions;

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
  /// Note [Deferred kernels]: launches marked kDeferredKernelAttr have no
  /// gpu.binary; their kernel is written with this code when it has an
  /// entry here (built by an earlier build of the same module), deferred
  /// otherwise, and the file then records `compileOptions`.
  struct KernelCode {
    std::string ptx;
    std::vector<uint8_t> cubin;
  };
  llvm::StringMap<KernelCode> prebuiltKernels;
  std::string compileOptions;
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
  /// none, -1: heuristic; Note [Cluster rows]).
  int64_t innerCluster = -1;
  /// Persistent inner reductions: rows longer than a block holds split over
  /// clusters of up to this many blocks (-1: heuristic; Note [Cluster
  /// persistent rows]).
  int64_t innerLongCluster = -1;
  /// Inner reductions: the column-major variant (0: off, -1: heuristic;
  /// Note [Column-major rows]).
  int64_t innerColumns = -1;
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
  /// Note [Deferred kernels]: kernels left to be built when a launch first
  /// needs them (needs splitKernels), and kernels built whatever it says.
  DeferKernels deferKernels = DeferKernels::None;
  std::vector<std::string> buildKernels;
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

/// Note [Deferred kernels]: the options that change a compile's bytes, as
/// text ("chip=sm_90a sm-count=132 ... emit-cubin=true"), which module files
/// with deferred kernels record and the cache key includes.
std::string compileOptionsText(const CompileOptions &options);
/// Parses compileOptionsText's form into `options` (fields not named keep
/// their values); failure with the reason in `error`.
LogicalResult parseCompileOptionsText(StringRef text, CompileOptions &options,
                                      std::string &error);
/// The pipeline's options of a compile, and the reverse (the fields the
/// pipeline has; the rest of `options` is kept).
void fillPipelineOptions(const CompileOptions &options,
                         FusionToPTXOptions &pipeline);
void applyPipelineOptions(const FusionToPTXOptions &pipeline,
                          CompileOptions &options);

/// Note [Deferred kernels]: builds deferred kernel `kernel` of the module
/// file `moduleBytes` (which records the definition and the compile
/// options) with this compiler in `context` (which must have the dialects
/// of fusion::registerAllDialects) and returns the module file with that kernel
/// built, beside the kernels built before. With a `cache`: when the cache's
/// module of the compile that wrote the file has the kernel built (another
/// process built it), that module is the result (`cacheHit` set), else the
/// result is stored under that compile's key, so later compiles and builds
/// get the kernel built. On failure, `error` says why.
FailureOr<std::string>
buildDeferredKernel(MLIRContext *context, StringRef moduleBytes,
                    StringRef kernel, const CompileCache *cache,
                    std::string &error, bool *cacheHit = nullptr);
} // namespace mlir::fusion
#endif
