//===- CompileFlags.cpp - The compile options as command-line flags -------===//

#include "CompileFlags.h"

using namespace mlir::fusion;
namespace cl = llvm::cl;

CompileFlags::CompileFlags(cl::OptionCategory &category)
    : chip("chip", cl::desc("Target SM (sm_90a: Hopper with its bulk copies)"),
           cl::init("sm_90a"), cl::cat(category)),
      smCount("sm-count",
              cl::desc("Multiprocessors the schedules assume (default 132)"),
              cl::init(132), cl::cat(category)),
      unroll("unroll", cl::desc("Pointwise unroll (0: heuristic)"), cl::init(0),
             cl::cat(category)),
      blocksPerSM("blocks-per-sm",
                  cl::desc("Pointwise blocks per SM (0: heuristic)"),
                  cl::init(0), cl::cat(category)),
      innerItems("inner-items",
                 cl::desc("Inner reductions: vectors per thread kept in "
                          "registers (0: no persistent variant, -1: "
                          "heuristic)"),
                 cl::init(-1), cl::cat(category)),
      innerBlock("inner-block",
                 cl::desc("Inner reductions: threads per block (0: "
                          "heuristic)"),
                 cl::init(0), cl::cat(category)),
      innerStage("inner-stage",
                 cl::desc("Persistent inner reductions: keep the row in "
                          "shared memory across passes (1; 2: and copy the "
                          "next row there with cp.async; 3: with bulk "
                          "copies, sm_90), in registers (0), heuristic (-1)"),
                 cl::init(-1), cl::cat(category)),
      innerCluster("inner-cluster",
                   cl::desc("Inner reductions with per-element results: "
                            "split few long rows over thread block clusters "
                            "of up to this many blocks (2, 4 or 8; 0: none; "
                            "-1: heuristic; sm_90 and later)"),
                   cl::init(-1), cl::cat(category)),
      innerLongCluster(
          "inner-long-cluster",
          cl::desc("Persistent inner reductions with per-element results: "
                   "rows longer than one block holds are split over a thread "
                   "block cluster of up to this many blocks, each keeping "
                   "its span in registers (2, 4 or 8; 0: none; -1: "
                   "heuristic; sm_90 and later)"),
          cl::init(-1), cl::cat(category)),
      innerColumns("inner-columns",
                   cl::desc("Inner reductions and normalizations: the "
                            "column-major variant for rows of transposed "
                            "inputs (1: on; 0: off, such rows take the "
                            "scalar variants; -1: heuristic, on)"),
                   cl::init(-1), cl::cat(category)),
      computeBoundCost("compute-bound-cost",
                       cl::desc("Kernels estimated above this many "
                                "instructions per element take one element "
                                "per thread and step (0: never)"),
                       cl::init(kDefaultComputeBoundCost), cl::cat(category)),
      innerMinBlocks("inner-min-blocks",
                     cl::desc("Persistent inner reductions: resident blocks "
                              "per SM (nvvm.minctasm, 0: none)"),
                     cl::init(0), cl::cat(category)),
      transposeTile("transpose-tile",
                    cl::desc("Tile edge of the tiled transpose variant (16, "
                             "32 or 64)"),
                    cl::init(64), cl::cat(category)),
      noCubin("no-cubin", cl::desc("Compile to PTX only (no ptxas)"),
              cl::init(false), cl::cat(category)),
      fallbackCubins("fallback-cubins",
                     cl::desc("Run ptxas over the fallback variants too "
                              "(scalar, 64-bit index); without it they keep "
                              "PTX only and the driver compiles one when a "
                              "launch first needs it"),
                     cl::init(false), cl::cat(category)),
      deferKernels(
          "defer-kernels",
          cl::desc("Kernels left out of the module, to be built by the "
                   "compiler when a launch first needs one (fusion-run, the "
                   "Python package; docs/cache.md)"),
          cl::init(DeferKernels::None),
          cl::values(
              clEnumValN(DeferKernels::None, "none",
                         "build every kernel (a file any runtime can run)"),
              clEnumValN(DeferKernels::Fallbacks, "fallbacks",
                         "defer the kernels only fallback launches use"),
              clEnumValN(DeferKernels::All, "all", "defer every kernel")),
          cl::cat(category)) {}

std::vector<std::string> CompileFlags::given() const {
  std::vector<std::string> names;
  for (const cl::Option *option : std::initializer_list<const cl::Option *>{
           &chip, &smCount, &unroll, &blocksPerSM, &innerItems, &innerBlock,
           &innerStage, &innerCluster, &innerLongCluster, &innerColumns,
           &computeBoundCost, &innerMinBlocks, &transposeTile, &noCubin,
           &fallbackCubins, &deferKernels})
    if (option->getNumOccurrences())
      names.push_back(("--" + option->ArgStr).str());
  return names;
}

void CompileFlags::apply(CompileOptions &options) const {
  options.chip = chip;
  options.smCount = smCount;
  options.unroll = unroll;
  options.blocksPerSM = blocksPerSM;
  options.innerItems = innerItems;
  options.innerBlock = innerBlock;
  options.innerStage = innerStage;
  options.innerCluster = innerCluster;
  options.innerLongCluster = innerLongCluster;
  options.innerColumns = innerColumns;
  options.computeBoundCost = computeBoundCost;
  options.innerMinBlocks = innerMinBlocks;
  options.transposeTile = transposeTile;
  options.emitCubin = !noCubin;
  options.fallbackCubins = fallbackCubins;
  options.deferKernels = deferKernels;
}
