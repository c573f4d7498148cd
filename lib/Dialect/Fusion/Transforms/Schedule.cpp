//===- Schedule.cpp - choose a schedule for every kernel ------------------===//
// Heuristics that turn a kernel's shapes, dtypes and the target into a
// schedule attribute. Decisions are data: a hand-written schedule is kept.
//===----------------------------------------------------------------------===//

#include "fusion/Dialect/Fusion/IR/ScheduleLimits.h"
#include "fusion/Dialect/Fusion/Transforms/Passes.h"
#include "fusion/Dialect/Fusion/Transforms/Schedulers.h"

#include "mlir/IR/Matchers.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <limits>

namespace mlir::fusion {
#define GEN_PASS_DEF_FUSIONSCHEDULE
#include "fusion/Dialect/Fusion/Transforms/Passes.h.inc"
} // namespace mlir::fusion

using namespace mlir;
using namespace mlir::fusion;

namespace {

/// Bytes of one element in memory (i1 is stored as a byte).
int64_t storageBytes(Type element) {
  return std::max<int64_t>(1, element.getIntOrFloatBitWidth() / 8);
}

/// Why a kernel gets the scheduler chooseScheduler picked (`explain`).
StringRef reasonOf(SchedulerKind kind) {
  switch (kind) {
  case SchedulerKind::Pointwise:
    return "pointwise scheduler: no reduction, every output element is "
           "computed on its own";
  case SchedulerKind::InnerReduction:
    return "inner-reduction scheduler: it reduces the innermost dims (a row "
           "per block or warp; normalizations keep the row on chip)";
  case SchedulerKind::OuterReduction:
    return "outer-reduction scheduler: it reduces outer dims (columns "
           "across blocks, combined by a grid reduction)";
  }
  return "";
}

// Note [Compute-bound kernels]: a kernel whose work per element is long
// (a chain of transcendental ops, recomputed once per pass of a row
// kernel) is bound by arithmetic, not memory. Vectors, unrolling and rows
// held in registers buy memory-level parallelism such a kernel does not
// need, and each multiplies its code: a 100-op chain with 4 inner
// reductions (one row kernel of 5 passes) was 3.9 MB of PTX over 5
// variants (1.66 MB for the persistent vector one, 32 elements per thread
// unrolled) and took 20 s to compile on 2 cores. So when the estimated
// cost of one element (the weights below summed over the kernel's ops, times
// the passes of a row kernel) exceeds `compute-bound-cost`, the kernel gets
// vector 1, unroll 1 and no persistent variant: one element per thread and
// step, a scalar kernel and its 64-bit-index fallback. The weights are rough
// instruction counts of an f32 element: 0 for shape ops, 16 for the long
// libdevice functions and Philox, 4 for the short ones, 1 for the rest. The
// default (512) is several times the point where the H200's arithmetic
// (about 33 T instructions/s) falls behind its memory (4.8 TB/s: about 56
// instructions per 8-byte element), so memory-bound kernels, the suite's
// among them, keep their schedules.
int64_t elementWeight(Operation *op) {
  if (isa<BroadcastInDimOp, ExpandOp, SqueezeOp, ReshapeOp, PermuteOp, FullOp,
          YieldOp, ReduceYieldOp, DimOp, StrideOp>(op))
    return 0;
  if (isa<SinOp, CosOp, TanOp, ErfOp, ErfcOp, Expm1Op, Log1pOp, Atan2Op, PowOp,
          FmodOp, RemainderOp, GeluOp, RandOp, RandnOp>(op))
    return 16;
  if (isa<DivOp, ReciprocalOp, SqrtOp, RsqrtOp, ExpOp, Exp2Op, LogOp, Log2Op,
          TanhOp, SigmoidOp, SiluOp>(op))
    return 4;
  return 1;
}

/// The estimated cost of one element of a kernel's work, per pass
/// (Note [Compute-bound kernels]).
int64_t elementCost(KernelOp kernel) {
  int64_t cost = 0;
  kernel.getBody().walk([&](Operation *op) {
    if (isa<FusionDialect>(op->getDialect()))
      cost += elementWeight(op);
  });
  return cost;
}

struct FusionSchedulePass
    : mlir::fusion::impl::FusionScheduleBase<FusionSchedulePass> {
  using FusionScheduleBase::FusionScheduleBase;

  /// Whether the kernel is compute-bound (Note [Compute-bound kernels]),
  /// reading its element cost times `passes`; the reason goes to
  /// `computeBoundReason` for the explain remark.
  bool isComputeBound(KernelOp kernel, int64_t passes) {
    computeBoundReason.clear();
    if (computeBoundCost <= 0)
      return false;
    int64_t cost = elementCost(kernel) * std::max<int64_t>(1, passes);
    if (cost <= computeBoundCost)
      return false;
    computeBoundReason =
        ("; compute-bound (about " + llvm::Twine(cost) +
         " instructions per element, over " + llvm::Twine(computeBoundCost) +
         "): one element per thread and step")
            .str();
    return true;
  }
  std::string computeBoundReason;

  // Note [Schedule options]: an option out of its range is an error that
  // names it, before anything is scheduled. A negative unroll or a stage
  // of 5 used to pass as the heuristic or as 1, silently. Reported at the
  // fusion's location without the op printed (the whole definition would
  // follow the message).
  LogicalResult checkOptions() {
    auto bad = [&](StringRef name, int64_t value, StringRef expected) {
      mlir::emitError(getOperation().getLoc())
          << "the option " << name << " must be " << expected << ", got "
          << value;
      return failure();
    };
    if (smCount < 1 || smCount > 1024)
      return bad("sm-count", smCount, "1 to 1024");
    if (threadsPerSM < 32 || threadsPerSM > 4096)
      return bad("threads-per-sm", threadsPerSM, "32 to 4096");
    if (unroll < 0 || unroll > 16)
      return bad("unroll", unroll, "0 (heuristic) or 1 to 16");
    if (blocksPerSM < 0 || blocksPerSM > 64)
      return bad("blocks-per-sm", blocksPerSM, "0 (heuristic) or 1 to 64");
    if (innerItems < -1 || innerItems > 16)
      return bad("inner-items", innerItems,
                 "-1 (heuristic), 0 (no persistent variant) or 1 to 16");
    if (innerBlock < 0 || innerBlock > kMaxRowBlockThreads)
      return bad("inner-block", innerBlock,
                 "0 (heuristic) or 1 to " +
                     std::to_string(kMaxRowBlockThreads));
    if (innerStage < -1 || innerStage > 3)
      return bad("inner-stage", innerStage,
                 "-1 (heuristic), 0 (registers), 1 (shared memory), 2 "
                 "(shared memory, next row by cp.async) or 3 (shared memory, "
                 "next row by bulk copies)");
    if (innerCluster != -1 && innerCluster != 0 && innerCluster != 2 &&
        innerCluster != 4 && innerCluster != 8)
      return bad("inner-cluster", innerCluster,
                 "-1 (heuristic), 0 (none), 2, 4 or 8");
    if (innerLongCluster != -1 && innerLongCluster != 0 &&
        innerLongCluster != 2 && innerLongCluster != 4 && innerLongCluster != 8)
      return bad("inner-long-cluster", innerLongCluster,
                 "-1 (heuristic), 0 (none), 2, 4 or 8");
    if (innerColumns < -1 || innerColumns > 1)
      return bad("inner-columns", innerColumns,
                 "-1 (heuristic), 0 (off) or 1 (on)");
    if (computeBoundCost < 0)
      return bad("compute-bound-cost", computeBoundCost, "0 (never) or more");
    return success();
  }

  void runOnOperation() override {
    if (failed(checkOptions()))
      return signalPassFailure();
    WalkResult result = getOperation().walk([&](KernelOp kernel) {
      if (kernel.getScheduleAttr())
        return WalkResult::advance();
      std::string why;
      Operation *culprit = nullptr;
      FailureOr<SchedulerChoice> choice = chooseScheduler(kernel, why, culprit);
      if (failed(choice)) {
        (culprit ? culprit->emitOpError() : kernel.emitOpError())
            << "has no scheduler yet: " << why;
        return WalkResult::interrupt();
      }
      switch (choice->kind) {
      case SchedulerKind::Pointwise:
        kernel.setScheduleAttr(pointwise(kernel));
        break;
      case SchedulerKind::InnerReduction:
        kernel.setScheduleAttr(innerReductionSchedule(kernel, *choice->row));
        break;
      case SchedulerKind::OuterReduction:
        kernel.setScheduleAttr(outerReductionSchedule(kernel, *choice->outer));
        break;
      }
      if (printSchedules)
        llvm::errs() << "fusion-schedule: " << kernel.getSymName() << ": "
                     << kernel.getScheduleAttr() << "\n";
      if (explain)
        mlir::emitRemark(kernel.getLoc())
            << kernel.getSymName() << ": " << reasonOf(choice->kind)
            << computeBoundReason << "; schedule " << kernel.getScheduleAttr();
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }

  /// Index tensors of index_select and gather are read once per row or
  /// element they pick, not in vectors: their width does not bound the
  /// vector.
  static bool readOnlyAsIndices(BlockArgument arg) {
    return !arg.use_empty() && llvm::all_of(arg.getUses(), [](OpOperand &use) {
      return isa<IndexSelectOp, GatherOp>(use.getOwner()) &&
             use.getOperandNumber() == 1;
    });
  }

  // Note [Inner reduction heuristic]: 16-byte loads of the narrowest
  // input; each thread of a row takes 32 elements (`items` vectors) in the
  // persistent variant, so rows up to 512 * 32 = 16384 elements stay in
  // registers with at most 512 threads per row (a 512-thread block may use
  // up to 128 registers per thread). Blocks of 256 threads: rows of 1024
  // bf16 elements get a warp each, 8 rows per block. Kernels whose results
  // are all per row need no persistence (items = 0).
  InnerReductionScheduleAttr innerReductionSchedule(KernelOp kernel,
                                                    const RowKernelInfo &info) {
    int64_t minBytes = 8;
    Block &body = kernel.getBody().front();
    for (auto [t, arg] :
         llvm::zip(kernel.getInputs().getTypes(), body.getArguments()))
      if (auto tensor = dyn_cast<RankedTensorType>(t);
          tensor && !readOnlyAsIndices(arg))
        minBytes = std::min(minBytes, storageBytes(tensor.getElementType()));
    int64_t vector = std::min<int64_t>(16 / minBytes, 8);
    int64_t items =
        info.hasFullResult() ? std::max<int64_t>(1, 32 / vector) : 0;
    if (isComputeBound(kernel, info.numPasses)) {
      vector = 1;
      items = 0;
    }
    if (innerItems >= 0 && info.hasFullResult())
      items = innerItems;
    int64_t block = innerBlock > 0 ? innerBlock : 256;
    // Blocks loop over row groups (the persistent variant prefetches the
    // next group's data): 16 blocks per SM unless blocks-per-sm says.
    int64_t maxGrid = smCount * (blocksPerSM > 0 ? blocksPerSM : 16);
    bool index64 = info.domain.hasStaticShape() &&
                   info.domain.getNumElements() >= (int64_t(1) << 31);
    bool fastMath = llvm::all_of(kernel.getResultTypes(), [](Type t) {
      Type e = getElementTypeOrSelf(t);
      return e.isBF16() || e.isF16();
    });
    // Note [Staged rows heuristic]: measured on the H200 (bf16, public
    // shapes, bench/experiments/inner-variants.sh), staging the row in
    // shared memory moved softmax from 0.83 / 0.63 / 0.94 of copy (4096 /
    // 16384 / 1024-element rows) to 0.92 / 0.74 / 0.94 and rms_norm (one
    // sum pass) from 0.90 / 0.89 / 0.96 to 0.91 / 0.93 / 0.95; it made
    // layer_norm slower, both as one Welford pass (0.81 / 0.56 / 0.94 to
    // 0.72 / 0.53 / 0.90) and as two sum passes (0.86 / 0.74 / 0.95 to
    // 0.82 / 0.65 / 0.93). So rows are staged for one-pass kernels without
    // a var_mean.
    // With the wide row grid (Note [Wide row grids]) a kernel of several
    // passes without a var_mean (layer_norm as two sums) gains from staging
    // once the next row comes by cp.async instead of through registers: the
    // staged variant runs at 64 registers and more rows per SM. layer_norm
    // read 0.955 / 0.912 / 0.982 of copy with the async copy against 0.932
    // / 0.909 / 0.964 in registers (H100, fusion-run --bench, bf16, public
    // shapes, 2026-12-06). So such kernels stage their rows with the async
    // copy. Chips without cp.async (before sm_80; the schedule does not
    // know the chip) get the synchronous staging, which read slower above
    // and is not measured on them. The ragged and cluster persistent
    // variants of such kernels keep their rows in registers (the lowering,
    // InnerReduction.cpp: they take no async copy). Kernels with a var_mean
    // keep their rows in registers (one Welford pass, not measured async).
    // The long-row variant (twice the items, Note [Long persistent rows]) is
    // different: holding 64 elements per thread across layer_norm's passes
    // spills (128 registers, 1.5 M local requests at 4096 x 32768), and
    // staging moved it from 0.722 to 0.812 of copy at 4096 x 32768 and from
    // 0.712 to 0.885 at 8192 x 24576 (2048 x 32768: 0.685 -> 0.692; H100,
    // fusion-run --bench, bf16; the async copy read 0.787 / 0.876 / 0.709).
    // So `long_stage` stages that variant whatever stage_row says, unless
    // inner-stage is 0, and the heuristic leaves it synchronous
    // (`long_async` off): the async copy read 0.810 -> 0.783 at 4096 x 32768
    // and 0.885 -> 0.876 at 8192 x 24576 with the wide grid (2048 x 32768:
    // 0.689 -> 0.706; H100). inner-stage=2 and 3 make it async too.
    bool welford = llvm::any_of(info.reductions, [](const RowReduction &r) {
      return isa<VarMeanOp>(r.op);
    });
    bool heuristic = innerStage < 0;
    bool stage = items > 0 && (heuristic ? !welford : innerStage > 0);
    bool longStage = items > 0 && vector > 1 && innerStage != 0;
    // Note [Cluster rows]: for kernels with per-element results, vectors
    // and 32-bit offsets, clusters of up to 8 blocks unless inner-cluster
    // says otherwise (the lowering adds the variant on sm_90 and later
    // only; the launch takes it for few long rows only).
    int64_t cluster = info.hasFullResult() && vector > 1 && !index64
                          ? (innerCluster >= 0 ? innerCluster.getValue() : 8)
                          : 0;
    // Note [Async staged rows]: inner-stage=2 copies the next row with
    // cp.async instead of loading it into registers.
    bool asyncStage = stage && (heuristic ? info.numPasses != 1
                                          : innerStage == 2 || innerStage == 3);
    bool longAsync = asyncStage && !heuristic;
    // Note [Bulk staged rows]: inner-stage=3 copies it in bulk instead.
    bool bulkStage = stage && innerStage == 3;
    // Note [Cluster persistent rows] (InnerReduction.cpp): rows longer than
    // the persistent variants hold split over clusters of up to 8 blocks,
    // for persistent vectorized kernels with 32-bit offsets (the lowering
    // adds the variant on sm_90 and later only).
    int64_t longCluster =
        items > 0 && vector > 1 && !index64
            ? (innerLongCluster >= 0 ? innerLongCluster.getValue() : 8)
            : 0;
    // Note [Wide row grids] (InnerReduction.cpp): the streaming and staged
    // persistent variants launch up to 128 blocks per SM, so blocks rather
    // than a fixed set of persistent ones share out the rows; blocks-per-sm
    // sets both grids.
    int64_t rowGrid = blocksPerSM > 0 ? 0 : smCount * 128;
    // Note [Column-major rows] (InnerReduction.cpp): on unless
    // inner-columns=0 (the lowering adds the variant only to kernels with
    // per-row results of one pass).
    bool columnRows = innerColumns != 0;
    return InnerReductionScheduleAttr::get(
        &getContext(), vector, items, block, maxGrid, index64, fastMath, stage,
        cluster, asyncStage, longCluster, longStage, bulkStage, rowGrid,
        longAsync, columnRows);
  }

  // Note [Outer reduction heuristic]: 16-byte loads of the narrowest input
  // along the kept dims, 4 rows per thread and step, and a grid of about 8
  // blocks of 256 threads per SM (the SM count from `sm-count`): the split
  // of the reduced dims is chosen at launch to reach it.
  OuterReductionScheduleAttr
  outerReductionSchedule(KernelOp kernel, const OuterKernelInfo &info) {
    int64_t minBytes = 8;
    for (Type t : kernel.getInputs().getTypes())
      if (auto tensor = dyn_cast<RankedTensorType>(t))
        minBytes = std::min(minBytes, storageBytes(tensor.getElementType()));
    int64_t vector = std::min<int64_t>(16 / minBytes, 8);
    bool index64 = info.domain.hasStaticShape() &&
                   info.domain.getNumElements() >= (int64_t(1) << 31);
    bool fastMath = llvm::all_of(kernel.getResultTypes(), [](Type t) {
      Type e = getElementTypeOrSelf(t);
      return e.isBF16() || e.isF16();
    });
    bool heavy = isComputeBound(kernel, 1);
    if (heavy)
      vector = 1;
    int64_t unrollFactor = unroll > 0 ? unroll : heavy ? 1 : 4;
    int64_t perSM = blocksPerSM > 0 ? blocksPerSM : 8;
    return OuterReductionScheduleAttr::get(&getContext(), vector, unrollFactor,
                                           smCount * perSM, index64, fastMath);
  }

  // Note [Pointwise heuristic]: the kernel streams memory, so what matters is
  // 16-byte accesses and enough bytes in flight. The vector width fills 16
  // bytes of the narrowest tensor element; wider tensors move 16 bytes per
  // access several times. Each thread takes two vectors (unroll 2, all loads
  // before the stores) and the grid has one block per 512 vectors: measured
  // on the H200 (2026-11-29, add_relu f32 and gelu_bias bf16 at the public
  // shapes), this reached 1.03 and 0.97-0.99 of copy bandwidth, where a grid
  // capped at the resident blocks with a grid-stride loop reached 0.86-0.97
  // and 0.84-0.89, and four vectors per thread 0.91-0.94 on gelu_bias.
  // `blocks-per-sm` caps the grid (the grid-stride loop takes the rest).
  // Note [Index contexts] (lib/Conversion/FusionToGPU/Indexing.cpp): index
  // ops whose reads would differ from lane to lane in ways a vector cannot
  // follow make the kernel scalar: gathers (data-dependent indices along
  // any dim), index_select along the innermost dim (or with a permute that
  // may move its dim there), slices with a symbolic step, reshapes that
  // change the innermost extent.
  static bool hasIrregularLanes(KernelOp kernel) {
    bool permutes = false, selects = false, irregular = false;
    kernel.getBody().walk([&](Operation *op) {
      permutes |= isa<PermuteOp>(op);
      if (isa<GatherOp>(op))
        irregular = true;
      if (auto select = dyn_cast<IndexSelectOp>(op)) {
        selects = true;
        irregular |= static_cast<int64_t>(select.getDim()) ==
                     select.getType().getRank() - 1;
      }
      if (auto slice = dyn_cast<SliceOp>(op))
        for (Value step : slice.getSteps())
          irregular |= !matchPattern(step, m_Constant());
      if (auto reshape = dyn_cast<ReshapeOp>(op)) {
        auto in = reshape.getInput().getType();
        auto out = reshape.getType();
        irregular |= in.getRank() == 0 || out.getRank() == 0 ||
                     in.isDynamicDim(in.getRank() - 1) ||
                     out.isDynamicDim(out.getRank() - 1) ||
                     in.getDimSize(in.getRank() - 1) !=
                         out.getDimSize(out.getRank() - 1);
      }
    });
    return irregular || (permutes && selects);
  }

  // Note [Loads per item]: the pointwise unroll of 2 keeps two items' loads
  // in flight per thread; it was measured on add_relu and gelu_bias, whose
  // items load two vectors. RoPE's items load four (x at i and at i +- 64
  // through the slices and the cat, cos and sin): unrolled twice it took 39
  // registers per thread (75% occupancy) and read 0.846 / 0.846 / 0.883 of
  // copy on the H200; unrolled once, 32 registers (100%) and 0.962 / 0.951 /
  // 1.004 (unroll 4: 0.822 / 0.825 / 0.865). So an item that reads its
  // tensor inputs at four or more places is not unrolled. The element-wise
  // ops on an input read it where the item is (one load, shared by all of
  // them); every other op on it (a slice, a broadcast, a cat) reads it
  // elsewhere. Index tensors do not count.
  static int64_t loadsPerItem(KernelOp kernel) {
    int64_t loads = 0;
    Block &body = kernel.getBody().front();
    for (auto [t, arg] :
         llvm::zip(kernel.getInputs().getTypes(), body.getArguments())) {
      if (!isa<RankedTensorType>(t) || readOnlyAsIndices(arg))
        continue;
      bool direct = false;
      for (Operation *user : arg.getUsers()) {
        if (user->hasTrait<FusionElementwise>())
          direct = true;
        else
          ++loads;
      }
      loads += direct;
    }
    return loads;
  }

  // Note [Shifted lanes unrolled once]: where an index op shifts the
  // lanes of the innermost dim by an amount not known to be a multiple of
  // the width (a symbolic or odd slice start, a cat piece of such a size) or
  // masks some of them (a pad of that dim), each load it feeds has two
  // paths, whole vectors and lane by lane (Note [Whole vectors of shifted
  // lanes] in lib/Conversion/FusionToGPU/Elementwise.cpp), and two items
  // per thread keep both paths' state live: slice + cat + mul took 57
  // registers unrolled twice (50% occupancy) against 30 once. On an H100
  // (fusion-run --bench, bf16, the cut at n / 2) unrolled twice read 201.9
  // / 200.6 / 395.9 us at 32768x4096 / 8192x16384 / 262144x1024, unrolled
  // once 181.8 / 181.3 / 356.9, and the lane-by-lane loads of the compiler
  // before, unrolled twice as it was, 183.0 / 182.4 / 358.1. So such items
  // are not unrolled.
  static bool hasShiftedLanes(KernelOp kernel, int64_t vector) {
    if (vector == 1)
      return false;
    auto multiple = [&](Value v) {
      APInt c;
      return matchPattern(v, m_ConstantInt(&c)) &&
             c.getSExtValue() % vector == 0;
    };
    bool shifted = false;
    kernel.getBody().walk([&](Operation *op) {
      if (auto slice = dyn_cast<SliceOp>(op)) {
        int64_t inner = slice.getType().getRank() - 1;
        // Strided lanes gather element by element either way.
        APInt step;
        shifted |=
            inner >= 0 &&
            matchPattern(slice.getSteps()[inner], m_ConstantInt(&step)) &&
            step.isOne() && !multiple(slice.getStarts()[inner]);
      } else if (auto pad = dyn_cast<PadOp>(op)) {
        int64_t inner = pad.getType().getRank() - 1;
        shifted |= inner >= 0 &&
                   (pad.getLow()[inner] != 0 || pad.getHigh()[inner] != 0);
      } else if (auto cat = dyn_cast<CatOp>(op)) {
        int64_t inner = cat.getType().getRank() - 1;
        if (static_cast<int64_t>(cat.getDim()) != inner)
          return;
        for (Value input : cat.getInputs().drop_back()) {
          auto type = cast<RankedTensorType>(input.getType());
          shifted |=
              type.isDynamicDim(inner) || type.getDimSize(inner) % vector != 0;
        }
      }
    });
    return shifted;
  }

  PointwiseScheduleAttr pointwise(KernelOp kernel) {
    int64_t minBytes = 8;
    bool allStatic = true;
    int64_t numel = 1;
    auto visit = [&](Type type) {
      auto tensor = dyn_cast<RankedTensorType>(type);
      if (!tensor)
        return;
      minBytes = std::min(minBytes, storageBytes(tensor.getElementType()));
      allStatic &= tensor.hasStaticShape();
      if (tensor.hasStaticShape())
        numel = std::max(numel, tensor.getNumElements());
    };
    Block &body = kernel.getBody().front();
    for (auto [t, arg] :
         llvm::zip(kernel.getInputs().getTypes(), body.getArguments()))
      if (!readOnlyAsIndices(arg))
        visit(t);
    for (Type t : kernel.getResultTypes())
      visit(t);
    int64_t vector = std::min<int64_t>(16 / minBytes, 8);
    bool heavy = isComputeBound(kernel, 1);
    if (hasIrregularLanes(kernel) || heavy)
      vector = 1;
    int64_t block = 256;
    if (allStatic && numel < block * vector)
      block = std::max<int64_t>(32, (numel + vector - 1) / vector);
    int64_t maxGrid = blocksPerSM > 0 ? smCount * blocksPerSM
                                      : std::numeric_limits<int32_t>::max();
    // Two vectors per thread and iteration keep twice the bytes in flight
    // (Note [Loads per item]: one when an item already loads four or more;
    // Note [Shifted lanes unrolled once]).
    int64_t unrollFactor =
        unroll > 0 ? unroll
        : heavy || loadsPerItem(kernel) >= 4 || hasShiftedLanes(kernel, vector)
            ? 1
            : 2;
    // Approximate transcendentals are safe when every result is a 16-bit
    // float: their error is below the results' own rounding.
    bool fastMath = llvm::all_of(kernel.getResultTypes(), [](Type t) {
      Type e = getElementTypeOrSelf(t);
      return e.isBF16() || e.isF16();
    });
    // Offsets past 2^31 need 64-bit index arithmetic; with symbolic sizes
    // the lowering adds a 64-bit fallback chosen at run time.
    bool index64 = allStatic && numel >= (int64_t(1) << 31);
    return PointwiseScheduleAttr::get(&getContext(), vector, unrollFactor,
                                      block, maxGrid, index64, fastMath);
  }
};

} // namespace
