//===- Pipeline.h - the registered pipeline --fusion-to-ptx ----*- C++ -*-===//
// Its options, how to build it into a pass manager, and its registration.
//===----------------------------------------------------------------------===//
#ifndef FUSION_PIPELINE_PIPELINE_H
#define FUSION_PIPELINE_PIPELINE_H

#include "fusion/Conversion/Passes.h"
#include "fusion/Dialect/Fusion/Transforms/KernelModules.h"
#include "fusion/Dialect/Fusion/Transforms/Passes.h"
#include "mlir/Pass/PassOptions.h"

namespace mlir::fusion {

/// Options of the pipeline from definition to PTX.
struct FusionToPTXOptions : public PassPipelineOptions<FusionToPTXOptions> {
  PassOptions::Option<std::string> chip{
      *this, "chip", llvm::cl::desc("Target SM, e.g. sm_90a"),
      llvm::cl::init("sm_90a")};
  PassOptions::Option<int64_t> smCount{
      *this, "sm-count", llvm::cl::desc("Multiprocessors of the target"),
      llvm::cl::init(132)};
  PassOptions::Option<int64_t> unroll{
      *this, "unroll", llvm::cl::desc("Pointwise unroll (0: heuristic)"),
      llvm::cl::init(0)};
  PassOptions::Option<int64_t> blocksPerSM{
      *this, "blocks-per-sm",
      llvm::cl::desc("Pointwise blocks per SM (0: heuristic)"),
      llvm::cl::init(0)};
  PassOptions::Option<int64_t> innerItems{
      *this, "inner-items",
      llvm::cl::desc("Inner reductions: vectors per thread in registers "
                     "(0: none, -1: heuristic)"),
      llvm::cl::init(-1)};
  PassOptions::Option<int64_t> innerBlock{
      *this, "inner-block",
      llvm::cl::desc("Inner reductions: threads per block (0: heuristic)"),
      llvm::cl::init(0)};
  PassOptions::Option<int64_t> innerStage{
      *this, "inner-stage",
      llvm::cl::desc("Persistent inner reductions: row in shared memory (1; "
                     "2: next row copied there with cp.async; 3: with bulk "
                     "copies, sm_90), in registers (0), heuristic (-1)"),
      llvm::cl::init(-1)};
  PassOptions::Option<int64_t> innerCluster{
      *this, "inner-cluster",
      llvm::cl::desc("Inner reductions with per-element results: split few "
                     "long rows over clusters of up to this many blocks (2, "
                     "4 or 8; 0: none; -1: heuristic)"),
      llvm::cl::init(-1)};
  PassOptions::Option<int64_t> innerLongCluster{
      *this, "inner-long-cluster",
      llvm::cl::desc("Persistent inner reductions: rows longer than a block "
                     "holds split over clusters of up to this many blocks "
                     "(2, 4 or 8; 0: none; -1: heuristic)"),
      llvm::cl::init(-1)};
  PassOptions::Option<int64_t> innerColumns{
      *this, "inner-columns",
      llvm::cl::desc("Inner reductions and normalizations: the "
                     "column-major variant for transposed inputs (1: on, 0: "
                     "off, -1: heuristic)"),
      llvm::cl::init(-1)};
  PassOptions::Option<int64_t> computeBoundCost{
      *this, "compute-bound-cost",
      llvm::cl::desc("Kernels estimated above this many instructions per "
                     "element take one element per thread and step (0: "
                     "never)"),
      llvm::cl::init(kDefaultComputeBoundCost)};
  PassOptions::Option<bool> splitKernels{
      *this, "split-kernels",
      llvm::cl::desc("One gpu.module (PTX, cubin) per kernel variant"),
      llvm::cl::init(true)};
  PassOptions::Option<int64_t> innerMinBlocks{
      *this, "inner-min-blocks",
      llvm::cl::desc("Persistent inner reductions: resident blocks per SM "
                     "(nvvm.minctasm, 0: none)"),
      llvm::cl::init(0)};
  PassOptions::Option<int64_t> transposeTile{
      *this, "transpose-tile",
      llvm::cl::desc("Tile edge of the tiled transpose variant"),
      llvm::cl::init(64)};
  PassOptions::Option<bool> explain{
      *this, "explain",
      llvm::cl::desc("Remarks with the segmenter's and schedulers' decisions "
                     "and their reasons"),
      llvm::cl::init(false)};
  PassOptions::Option<DeferKernels> deferKernels{
      *this, "defer-kernels",
      llvm::cl::desc("Kernels left to be built when a launch first needs "
                     "them (Note [Deferred kernels]): none, fallbacks or all"),
      llvm::cl::init(DeferKernels::None),
      llvm::cl::values(
          clEnumValN(DeferKernels::None, "none", "build every kernel"),
          clEnumValN(DeferKernels::Fallbacks, "fallbacks",
                     "defer kernels only fallback launches use"),
          clEnumValN(DeferKernels::All, "all", "defer every kernel"))};
  PassOptions::ListOption<std::string> buildKernels{
      *this, "build-kernels",
      llvm::cl::desc("Kernels built whatever defer-kernels says (the kernel "
                     "builder's request)")};
  PassOptions::Option<int> optLevel{
      *this, "O", llvm::cl::desc("LLVM optimization level"), llvm::cl::init(3)};
};

/// decompose, segment, schedule, lower-kernels, then the upstream NVVM
/// lowering and gpu-module-to-binary (PTX).
/// The CUDA toolkit whose nvvm/libdevice/libdevice.10.bc the kernels' math
/// calls link against: $CUDA_HOME, $CUDA_ROOT or $CUDA_PATH, else
/// /usr/local/cuda, else the folder above the ptxas on PATH; empty if none.
std::string findCudaToolkit();

void buildFusionToPTXPipeline(OpPassManager &pm,
                              const FusionToPTXOptions &options);

/// The pipeline's tail from a lowered module (a host program of launches
/// and gpu.modules of kernels that may use the kernel-level ops): the
/// kernel-level ops lowered, the upstream NVVM lowering, PTX. The last part
/// of buildFusionToPTXPipeline (chip and splitKernels are the options it
/// reads).
void buildKernelsToPTXPipeline(OpPassManager &pm,
                               const FusionToPTXOptions &options);
void registerFusionPipelines();

} // namespace mlir::fusion

#endif
