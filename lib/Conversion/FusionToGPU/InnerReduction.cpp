//===- InnerReduction.cpp - lowering of #fusion.inner_reduction -----------===//
// Reductions of the innermost dim and normalization: persistent, streaming,
// staged and split-row variants and their host program (the variants'
// bodies: InnerReductionKernel.cpp).
//===----------------------------------------------------------------------===//

#include "HostProgram.h"

#include "fusion/Dialect/Fusion/Transforms/ShapeReification.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::fusion;

namespace mlir::fusion::lowering {

// Note [Column-major rows]: a row kernel over an input whose rows lie
// across memory (a transposed view: unit stride along the rows, the row's
// own elements a stride apart) cannot take the vectorized variants, and
// the scalar ones gave each row at least a warp of consecutive threads,
// each reading one element per 32-byte sector. The column-major variant
// (`cs_i32`, tried before the scalar ones) takes such rows. Its block holds
// `block / T` rows with T threads each and reads them with consecutive threads
// on consecutive rows (thread t takes row t mod rows-per-block, column slot t
// div rows-per-block), so a warp's load is one run of neighbouring rows per
// column; after the row loop each thread's states move through shared memory to
// the thread that holds the same (row, slot) in the usual mapping, which
// reduces the row and writes its result. T is the largest power of two within
// `max_grid` x 128 / rows (2 to 32): the resident threads' worth of rows (Note
// [Streaming threads per row]) with as many rows side by side as that allows;
// and at most block x element bytes / 32, so that a block's rows fill a 32-byte
// sector of each column (f32: 8 rows, bf16: 16). Inputs of 2^31 elements
// or more take the 64-bit scalar variant, with the fewest threads (2 to
// 16) that keep those threads busy, a warp's consecutive threads on one
// row. On an H100 (fusion-run --bench --layout=0:transposed, fraction of
// copy, one run; torch on x.t() in the same session): f32 sums, the
// scalar variant with few threads / this variant / torch eager /
// torch.compile: 32768 x 4096 0.647 / 0.985 / 0.941 / 0.738, 16384 x 8192
// 0.644 / 0.912 / 0.907 / 0.673, 8192 x 16384 0.656 / 0.789 / 0.882 /
// 0.442, 262144 x 1024 0.973 / 1.016 / 0.889 / 0.728, 4096 x 50257 0.465 /
// 0.821 / 0.892 / 0.323; bf16 sums 0.309 / 0.815 / 0.762 / 0.623 at
// 32768 x 4096 and 0.289 / 0.553 / 0.795 / 0.294 at 8192 x 16384 (the
// first column from an earlier run of the same day). Rounding T up
// instead (16 threads at 32768 rows, 32 at 16384) read 0.900 and 0.774;
// 8 or 16 loads in flight per thread instead of 4 read less for f32
// (0.963 / 0.961 at 32768 x 4096); bf16 read the same with 8 and less
// with 16 (0.815 -> 0.787). Kernels with per-element results (softmax,
// the norms; several passes too) take the column variant as well,
// before the persistent scalar one (Note [Column-major rows with
// per-element results] in InnerReductionKernel.cpp: their results go out
// through a tile in shared memory). Their other scalar variants keep their
// launch: with few threads per row in the usual mapping a warp's stores hit
// 16 rows at once (softmax 262144 x 1024 read 0.305 with the persistent
// scalar variant's block per row and 0.092 with 2 threads per row; with 16
// 0.149 -> 0.253 at 32768 x 4096, layer_norm 0.171 -> 0.169). A column
// variant is emitted where its static shared memory (exchange slots, tiles)
// stays within kMaxColumnSharedBytes. One thread
// per row is not used: no GPU run has checked it. Rows are column-major
// when every input that spans both the rows' last dim and the row has a
// unit stride along the first and another along the second; a kernel
// without such an input keeps no column variant. Where one is emitted,
// `s_i32` never meets column-major rows but shares `s_i64`'s launch
// values, so the older rule for a kernel of per-row results (the scalar
// variants' few threads per row) costs its plan nothing.
static Value columnMajorRows(
    HostBuilder &h, KernelOp kernel, int64_t rank,
    const llvm::SetVector<std::tuple<unsigned, int64_t, int64_t>> &accesses,
    const KernelLowering::LaunchArgs &launch, int64_t &elementBytes) {
  if (rank < 2)
    return Value();
  // Each input's dims along the row (rank - 1) and along the rows' last
  // dim (rank - 2).
  llvm::MapVector<unsigned, std::pair<int64_t, int64_t>> spans;
  for (auto [k, d, it] : accesses) {
    auto &span = spans.try_emplace(k, std::make_pair(-1, -1)).first->second;
    if (it == rank - 1)
      span.first = d;
    else if (it == rank - 2)
      span.second = d;
  }
  Value all;
  for (auto &[k, span] : spans) {
    auto [inner, outer] = span;
    if (inner < 0 || outer < 0 || k >= launch.inputStrides.size())
      continue;
    ArrayRef<Value> strides = launch.inputStrides[k];
    Type element = getElementTypeOrSelf(kernel.getBody().getArgument(k));
    int64_t bytes = std::max<int64_t>(element.getIntOrFloatBitWidth() / 8, 1);
    elementBytes = elementBytes ? std::min(elementBytes, bytes) : bytes;
    Value one = h.c(1);
    Value across =
        h.mul(h.eq(strides[outer], one), h.sub(one, h.eq(strides[inner], one)));
    all = all ? h.mul(all, across) : across;
  }
  return all;
}

/// The most static shared memory a column variant may take (48 KB is the
/// most a block may have without opting in, and the block reduction's
/// slots come on top).
constexpr int64_t kMaxColumnSharedBytes = 44 * 1024;

/// The column variant's static shared memory: the exchange slots (one per
/// thread of the largest block for each state component), the block
/// reduction's slots and a tile per per-element result (columnTileElements:
/// Note [Column-major rows with per-element results]).
static int64_t columnSharedBytes(KernelOp kernel, const RowKernelInfo &info) {
  int64_t bytes = 0;
  for (const RowReduction &r : info.reductions)
    for (Type component : rowStateComponents(r))
      bytes += (kMaxRowBlockThreads + 32) * storageBytes(component);
  for (auto [type, full] : llvm::zip(kernel.getResultTypes(), info.fullResult))
    if (full) {
      int64_t elementBytes = storageBytes(getElementTypeOrSelf(type));
      bytes += KernelEmitter::columnTileElements(elementBytes) * elementBytes;
    }
  return bytes;
}

// Note [Inner reduction lowering]: rows are the outer dims; `T` threads
// reduce a row (a parameter computed at launch from the row length, see
// Note [Inner reduction heuristic]) and a block of `max(block, T)` threads
// takes `block / T` rows at a time. Variants, tried in order: persistent
// (the row stays in registers) vectorized and scalar when the row fits,
// then streaming (one read of the row per pass) vectorized, scalar 32-bit
// and scalar 64-bit. The guards are the pointwise ones plus the row-length
// bound of the persistent variants.
LogicalResult
KernelLowering::lowerRowKernel(KernelOp kernel,
                               InnerReductionScheduleAttr schedule) {
  std::string why;
  Operation *culprit = nullptr;
  FailureOr<RowKernelInfo> info = analyzeRowKernel(kernel, why, culprit);
  if (failed(info))
    return (culprit ? culprit->emitOpError() : kernel.emitOpError())
           << "cannot be lowered with an inner_reduction schedule: " << why;
  if (failed(checkReadsFusionInputs(kernel)))
    return failure();
  auto fusion = kernel->getParentOfType<FusionOp>();
  RankedTensorType iterType = info->domain;
  int64_t rank = iterType.getRank();
  // Note [Ragged rows]: not where the row length is known to be a
  // multiple of the width. (Row kernels have no index ops that move the
  // lanes: analyzeRowKernel takes gathers and index_selects only.)
  int64_t rowDim = iterType.getDimSize(rank - 1);
  bool ragged =
      ShapedType::isDynamic(rowDim) || rowDim % schedule.getVector() != 0;
  RowVariants rv = rowVariants(*info, schedule, kernel.getSymName(), ragged,
                               columnSharedBytes(kernel, *info));

  gpu::GPUModuleOp gpuModule = gpuModuleFor(fusion);
  // Per-row gathers read extents at run time (Note [Index ops in row
  // kernels]): index parameters after threads per row.
  SmallVector<std::pair<Value, int64_t>> extents =
      KernelEmitter::collectExtents(kernel);
  auto withExtents = [&](KernelEmitter &emitter) {
    emitter.extents = extents;
    emitter.extentBase = 1;
  };
  int64_t numExtra = 1 + static_cast<int64_t>(extents.size());
  SmallVector<gpu::GPUFuncOp> splitFuncs;
  if (!rv.split.empty()) {
    FailureOr<EmittedVariants> emittedSplit = emitVariants(
        kernel, gpuModule, rv.split, iterType, /*block=*/std::nullopt,
        [&](KernelEmitter &emitter, gpu::GPUFuncOp func) {
          withExtents(emitter);
          return emitter.emitRowKernel(func, *info);
        },
        numExtra, rv.stateElements);
    if (failed(emittedSplit))
      return failure();
    splitFuncs = emittedSplit->funcs;
  }
  // The cluster rows variants (Note [Cluster rows]) and the plain ones,
  // all prefetching the loads one probe finds.
  std::optional<ProbedLoads> probed;
  auto emitRowVariants = [&](ArrayRef<Variant> variants) {
    return emitVariants(
        kernel, gpuModule, variants, iterType, /*block=*/std::nullopt,
        [&](KernelEmitter &emitter, gpu::GPUFuncOp func) {
          withExtents(emitter);
          return emitRowVariant(kernel, *info, emitter, func, probed);
        },
        numExtra);
  };
  SmallVector<gpu::GPUFuncOp> clusterFuncs;
  if (!rv.cluster.empty()) {
    FailureOr<EmittedVariants> emittedCluster = emitRowVariants(rv.cluster);
    if (failed(emittedCluster))
      return failure();
    clusterFuncs = emittedCluster->funcs;
  }
  FailureOr<EmittedVariants> emitted = emitRowVariants(rv.plain);
  if (failed(emitted))
    return failure();
  SmallVector<gpu::GPUFuncOp> &funcs = emitted->funcs;
  auto &vectorLoaded = emitted->vectorLoaded;
  auto &accesses = emitted->accesses;

  OpBuilder b(kernel);
  Location loc = kernel.getLoc();
  HostBuilder h(b, loc);
  SmallVector<Operation *> reductionOps;
  for (const RowReduction &r : info->reductions)
    reductionOps.push_back(r.op);
  FailureOr<SmallVector<Value>> domainSizes =
      reifyReducedDomain(kernel, info->domainValue, reductionOps, h);
  if (failed(domainSizes))
    return failure();
  SmallVector<Value> &sizes = *domainSizes;
  Value rows = h.c(1);
  for (int64_t d = 0; d + 1 < rank; ++d)
    rows = h.mul(rows, sizes[d]);
  FailureOr<SmallVector<Value>> outputs =
      rowKernelOutputs(kernel, *info, b, h, sizes);
  if (failed(outputs))
    return failure();
  FailureOr<LaunchArgs> launch =
      hostArgs(kernel, fusion, h, sizes, accesses, vectorLoaded,
               schedule.getVector(), *outputs);
  if (failed(launch))
    return failure();
  if (llvm::any_of(rv.plain, [](const Variant &v) { return v.ragged; }))
    launch->raggedOk = raggedAccessOk(kernel, h, sizes, *emitted,
                                      schedule.getVector(), *outputs, *launch);
  Value rowLength = sizes[rank - 1];
  // An arg reduction over an empty dim has no answer (as in PyTorch and
  // the interpreter): rows > 0 need a row length > 0.
  for (const RowReduction &r : info->reductions)
    if (isa<ArgmaxOp, ArgminOp>(r.op)) {
      Value answerable =
          h.select(h.lt(h.c(0), rows), h.lt(h.c(0), rowLength), h.c(1));
      CheckOp::create(b, loc, h.eq(answerable, h.c(1)),
                      (r.op->getName().stripDialect() +
                       " over an empty dim: there is no extreme element "
                       "(rows with elements)")
                          .str(),
                      answerable, h.c(1));
    }
  FailureOr<SmallVector<Value>> extentArgs =
      indexOpHostArgs(kernel, h, extents);
  if (failed(extentArgs))
    return failure();
  RowLaunch rl{gpuModule, rank, rows, rowLength, &*launch, *extentArgs};
  rl.columnMajor =
      columnMajorRows(h, kernel, rank, accesses, *launch, rl.columnBytes);
  rl.fullResult = info->hasFullResult();
  // The column variant only where an input can be column-major: without
  // one its guard would be 0 and its kernel dead weight in the module.
  auto *columnVariant =
      llvm::find_if(rv.plain, [](const Variant &v) { return v.columnRows; });
  if (!rl.columnMajor && columnVariant != rv.plain.end()) {
    size_t i = columnVariant - rv.plain.begin();
    fallbackFuncs.erase(funcs[i]);
    funcs[i].erase();
    funcs.erase(funcs.begin() + i);
    rv.plain.erase(columnVariant);
  }
  if (!splitFuncs.empty())
    launchSplitRows(b, h, schedule, rl, rv, splitFuncs);
  if (!clusterFuncs.empty())
    launchClusterRows(b, h, schedule, rl, rv.cluster, clusterFuncs, rv.plain);
  launchRowVariants(b, h, schedule, rl, rv.plain, funcs);
  kernel.replaceAllUsesWith(*outputs);
  kernel.erase();
  return success();
}

// Note [Long persistent rows]: the persistent variant keeps a row of up to
// 512 threads x `items` vectors on chip (16384 bf16 elements with the
// heuristic's 4 vectors of 8); a longer row used to stream, reading the
// row once per pass. A second persistent variant with twice the items
// (at most kMaxLongRowItems) takes the rows between the two lengths,
// before the streaming ones; shorter rows keep the first (more items per
// thread made 4096-element rows slower: softmax 0.904 -> 0.861 of copy,
// layer_norm 0.844 -> 0.693). Softmax-like kernels (an online max + sum)
// hand it rows from 256 threads' worth on: at 16384 bf16 elements 256
// threads with 8 vectors each read 0.818 of copy against 0.724 for 512
// with 4 (and 0.849 / 0.854 at 8192); rms_norm and layer_norm read less
// that way (0.920 -> 0.887, 0.725 -> 0.639) and keep the first up to 512. It is
// PTX only, compiled by the driver when a launch first needs it, like the
// fallbacks; rows of such lengths that are not a multiple of the width still
// stream (a ragged copy would add the largest code of the kernel to every
// compile). On the H200 (fusion-run
// --bench, bf16, 4096 rows of 32768): rms_norm 0.612 -> 0.882 of copy,
// softmax 0.624 -> 0.658, layer_norm 0.412 -> 0.589.
constexpr int64_t kMaxLongRowItems = 8;
/// Registers per thread of a persistent variant with the wide grid (Note
/// [Wide row grids]): 32 warps per SM.
constexpr int64_t kWideGridRegisters = 64;

auto KernelLowering::rowVariants(const RowKernelInfo &info,
                                 InnerReductionScheduleAttr schedule,
                                 StringRef kernelName, bool ragged,
                                 int64_t columnSharedBytes) -> RowVariants {
  RowVariants rv;
  int64_t vector = schedule.getVector();
  int64_t items = info.hasFullResult() ? schedule.getItems() : 0;
  bool index64 = schedule.getIndex64();
  std::string base = kernelName.str();
  std::string ix = index64 ? "_i64" : "_i32";
  std::string vname = "v" + std::to_string(vector);
  SmallVector<Variant> &variants = rv.plain;
  if (items > 0) {
    if (vector > 1) {
      variants.push_back({vector, index64, base + "_p" + vname + ix});
      variants.back().items = items;
      // Longer rows stay on chip too: rows up to twice as long in one block
      // (Note [Long persistent rows]), then longer ones split over a
      // cluster, each block keeping its span in registers (Note [Cluster
      // persistent rows]).
      bool clusterRows = schedule.getLongCluster() > 1 && clusters && !index64;
      bool longRows = 2 * items <= kMaxLongRowItems;
      // Softmax-like kernels (an online max + sum state) hand rows that
      // would need more than 256 threads to the long-row variant.
      if (longRows && llvm::any_of(info.reductions, [](const RowReduction &r) {
            return r.onlineSum || r.onlineMax;
          }))
        variants.back().rowThreads = kMaxRowThreads / 2;
      if (longRows) {
        variants.push_back({vector, index64, base + "_pl" + vname + ix});
        variants.back().items = 2 * items;
        variants.back().longRows = true;
      }
      if (clusterRows) {
        variants.push_back({vector, false, base + "_cp" + vname + "_i32"});
        variants.back().items = items;
        variants.back().cluster = true;
      }
    }
    variants.push_back({1, index64, base + "_ps" + ix});
    variants.back().items = std::max<int64_t>(1, vector * items / 2);
  }
  variants.append(plainVariants(base, vector, index64, schedule.getFastMath()));
  // The ragged variants (Note [Ragged rows]) where no vectorized variant
  // runs: persistent and streaming, before the scalar ones.
  if (ragged && vector > 1) {
    SmallVector<Variant> raggedVariants;
    for (const Variant &v : variants) {
      // No ragged copy of the long-row variant: its code is the largest
      // of all, and odd rows that long stream (compile time).
      if (v.vector == 1 || v.longRows || v.cluster)
        continue;
      Variant copy = v;
      copy.ragged = true;
      copy.rowThreads = 0; // no ragged long-row variant to hand rows to
      copy.name = base + (v.items > 0 ? "_pr" : "_r") + vname + ix;
      raggedVariants.push_back(copy);
    }
    auto *firstScalar =
        llvm::find_if(variants, [](const Variant &v) { return v.vector == 1; });
    variants.insert(firstScalar, raggedVariants.begin(), raggedVariants.end());
  }
  // Rows of transposed inputs, before the scalar variants that would take
  // them, the persistent one included (Note [Column-major rows]), where its
  // static shared memory fits. Not for kernels of several passes whose
  // results are all per row: no GPU run has checked those (their earlier
  // passes' results would be the loading threads' when the usual ones
  // store them, unless brought back as for per-element results).
  if (schedule.getColumnRows() && !index64 && info.domain.getRank() >= 2 &&
      (info.numPasses == 1 || info.hasFullResult()) &&
      columnSharedBytes <= kMaxColumnSharedBytes) {
    auto *scalar32 =
        llvm::find_if(variants, [](const Variant &v) { return v.vector == 1; });
    Variant columns{1, false, base + "_cs_i32"};
    columns.columnRows = true;
    variants.insert(scalar32, columns);
  }
  for (Variant &variant : variants) {
    variant.fastMath = schedule.getFastMath();
    variant.stage = variant.items > 0 && variant.vector > 1 &&
                    (schedule.getStageRow() ||
                     (variant.longRows && schedule.getLongStage()));
    // The cluster persistent and ragged variants take no async copy (a
    // cluster keeps one row; a ragged row's vectors are not aligned). In a
    // kernel of several passes under an async schedule their rows stay in
    // registers, as synchronous staging read slower for layer_norm (H100,
    // bf16, the cluster variant: 1024 x 65536 0.597 of copy in registers,
    // 0.560 staged; 512 x 131072 0.575, 0.535); one-pass kernels (softmax
    // with --inner-stage=2) stage them synchronously.
    if ((variant.cluster || variant.ragged) && schedule.getAsyncStage() &&
        info.numPasses != 1)
      variant.stage = false;
    // The long-row variant copies asynchronously only with long_async
    // (Note [Staged rows heuristic]).
    variant.asyncStage = variant.stage && schedule.getAsyncStage() &&
                         asyncCopies &&
                         (!variant.longRows || schedule.getLongAsync());
    // Bulk copies need sm_90 (the chips with clusters).
    variant.bulkStage =
        variant.asyncStage && schedule.getBulkStage() && clusters;
    // An sm_90 block may take 227 KB of shared memory, earlier chips less.
    variant.maxAsyncStageBytes = clusters ? 2 * kMaxStageBytes : kMaxStageBytes;
    variant.maxBlock = std::max(schedule.getBlock(), kMaxRowThreads);
    // Note [Wide row grids]: streaming and staged persistent variants, not
    // the ragged ones (not measured) nor those that keep rows in registers.
    variant.wideGrid =
        schedule.getRowGrid() > 0 && !variant.ragged && !variant.cluster &&
        (variant.items == 0 || (variant.stage && !variant.longRows));
  }
  // Cluster rows (Note [Cluster rows]), tried first: vectorized streaming
  // with 32-bit offsets, where the schedule asks and the chip has
  // clusters.
  if (schedule.getCluster() > 1 && clusters && info.hasFullResult() &&
      vector > 1 && !index64) {
    rv.cluster.push_back({vector, false, base + "_c" + vname + "_i32"});
    rv.cluster.back().cluster = true;
    rv.cluster.back().fastMath = schedule.getFastMath();
  }
  // Split-row variants, tried first (Note [Split rows]): per-row results
  // of one pass, 32-bit offsets.
  if (info.hasFullResult() || info.numPasses != 1 || index64)
    return rv;
  if (vector > 1)
    rv.split.push_back({vector, false, base + "_g" + vname + "_i32"});
  rv.split.push_back({1, false, base + "_gs_i32"});
  for (Variant &variant : rv.split) {
    variant.split = true;
    variant.fastMath = schedule.getFastMath();
  }
  for (const RowReduction &r : info.reductions)
    rv.stateElements.append(rowStateComponents(r));
  rv.stateElements.push_back(IntegerType::get(&getContext(), 32));
  return rv;
}

LogicalResult
KernelLowering::emitRowVariant(KernelOp kernel, const RowKernelInfo &info,
                               KernelEmitter &emitter, gpu::GPUFuncOp func,
                               std::optional<ProbedLoads> &probed) {
  int64_t rank = info.domain.getRank();
  if (emitter.getVariant().items > 0 || emitter.getVariant().vector > 1 ||
      (emitter.getVariant().columnRows && info.hasFullResult())) {
    // A probe emission finds the loads that depend on the row and the
    // column: those are prefetched, a row ahead in the persistent variants
    // (Note [Row prefetch]), a chunk ahead in the vectorized streaming ones
    // and the column variant with per-element results (Note [Chunk
    // prefetch], Note [Column-major rows with per-element results]).
    // Note [One probe per row kernel]: the loads a row kernel's body makes
    // (input, index map) are the body's, whichever variant writes them, so
    // the kernel's first probed variant probes for all of them (each probe
    // emitted a whole kernel, a third of the lowering's time).
    if (!probed) {
      KernelEmitter probe(kernel, emitter.getVariant(), info.domain);
      probe.hardwareFp8 = emitter.hardwareFp8;
      probe.numExtraParams = emitter.numExtraParams;
      probe.extents = emitter.extents;
      probe.extentBase = emitter.extentBase;
      OpBuilder pb(func);
      auto probeFunc = gpu::GPUFuncOp::create(pb, kernel.getLoc(), "probe",
                                              probe.signature(&getContext()));
      probe.recordLoads = true;
      LogicalResult ok = probe.emitRowKernel(probeFunc, info);
      probeFunc.erase();
      if (failed(ok))
        return failure();
      probed = std::move(probe.loadLog);
    }
    for (auto &entry : *probed) {
      ArrayRef<int64_t> map = entry.second;
      bool inner = !map.empty() && map.back() == rank - 1;
      bool outer = llvm::any_of(map.drop_back(), [&](int64_t it) {
        return it >= 0 && it < rank - 1;
      });
      if (inner && outer)
        emitter.prefetch.push_back(entry);
    }
  }
  if (emitter.getVariant().items > 0 && innerMinBlocks > 0)
    func->setAttr(
        "nvvm.minctasm",
        IntegerAttr::get(IntegerType::get(&getContext(), 32), innerMinBlocks));
  else if (emitter.getVariant().items > 0 && emitter.getVariant().wideGrid)
    func->setAttr(NVVM::NVVMDialect::getMaxnregAttrName(),
                  IntegerAttr::get(IntegerType::get(&getContext(), 32),
                                   kWideGridRegisters));
  return emitter.emitRowKernel(func, info);
}

FailureOr<SmallVector<Value>>
KernelLowering::rowKernelOutputs(KernelOp kernel, const RowKernelInfo &info,
                                 OpBuilder &b, HostBuilder &h,
                                 ArrayRef<Value> sizes) {
  Location loc = kernel.getLoc();
  int64_t rank = info.domain.getRank();
  SmallVector<Value> outputs;
  for (auto [r, type] : llvm::enumerate(kernel.getResultTypes())) {
    auto rt = cast<RankedTensorType>(type);
    SmallVector<Value> dyn;
    for (int64_t d = 0; d < rt.getRank(); ++d) {
      if (!rt.isDynamicDim(d) && !(info.fullResult[r] || d + 1 < rank))
        continue;
      FailureOr<Value> size = reifyDim(b, loc, kernel.getResult(r), d);
      if (failed(size))
        return kernel.emitOpError("cannot express result ")
               << r << " dim " << d << " from the inputs";
      if (d < rank && (info.fullResult[r] || d + 1 < rank))
        checkSameSize(h, *size, sizes[d],
                      "result " + Twine(r) + " dim " + Twine(d) +
                          " must equal dim " + Twine(d) +
                          " of the reduced "
                          "tensor");
      if (rt.isDynamicDim(d))
        dyn.push_back(*size);
    }
    outputs.push_back(EmptyOp::create(b, loc, rt, dyn, nullptr));
  }
  return outputs;
}

void KernelLowering::launchSplitRows(OpBuilder &b, HostBuilder &h,
                                     InnerReductionScheduleAttr schedule,
                                     const RowLaunch &rl, const RowVariants &rv,
                                     ArrayRef<gpu::GPUFuncOp> splitFuncs) {
  Location loc = h.location();
  Value rows = rl.rows, rowLength = rl.rowLength;
  const LaunchArgs &launch = *rl.launch;
  // About max_grid / 4 blocks of 512 threads (4 per SM by default), at
  // least one chunk of the streaming loop per block.
  Value targetBlocks = h.c(std::max<int64_t>(schedule.getMaxGrid() / 4, 1));
  auto splitsFor = [&](int64_t vec) {
    Value chunk = h.c(kMaxRowThreads * vec * KernelEmitter::kStreamItems);
    Value splits = h.min(h.ceilDiv(targetBlocks, h.max(rows, h.c(1))),
                         h.ceilDiv(rowLength, chunk));
    return h.max(h.min(splits, h.c(65535)), h.c(1));
  };
  // The scalar variant splits the most: the buffers fit it.
  Value most = splitsFor(1);
  Value used = h.lt(h.c(1), most);
  Value slots = h.select(used, h.mul(rows, most), h.c(0));
  SmallVector<Value> extra;
  for (Type element : ArrayRef<Type>(rv.stateElements).drop_back())
    extra.push_back(EmptyOp::create(
        b, loc, RankedTensorType::get({ShapedType::kDynamic}, element),
        ValueRange{slots}, nullptr));
  extra.push_back(EmptyOp::create(
      b, loc,
      RankedTensorType::get({ShapedType::kDynamic},
                            IntegerType::get(&getContext(), 32)),
      ValueRange{h.select(used, rows, h.c(0))}, b.getUnitAttr(),
      b.getUnitAttr()));
  SmallVector<Value> splitArgs(launch.args);
  splitArgs.insert(splitArgs.end() - rl.rank, extra.begin(), extra.end());
  splitArgs.push_back(rows);
  splitArgs.push_back(h.c(kMaxRowThreads));
  splitArgs.append(rl.extents);
  for (auto [variant, func] : llvm::zip(rv.split, splitFuncs)) {
    Value splits = splitsFor(variant.vector);
    Value guard = h.mul(h.lt(h.c(1), splits), launch.fits32);
    guard = h.mul(guard, h.lt(h.c(0), rows));
    // The scalar split only where the vectorized variants cannot run:
    // a row a vectorized block streams alone beats scalar loads.
    if (variant.vector > 1)
      guard = h.mul(guard, launch.vecOk);
    else if (schedule.getVector() > 1)
      guard = h.mul(guard, h.sub(h.c(1), launch.vecOk));
    createLaunch(b, loc, h, rl.gpuModule, func, guard, rows, splits,
                 h.c(kMaxRowThreads), splitArgs);
  }
}

/// The cluster persistent variant's cluster size for a row of `rowLength`
/// (Note [Cluster persistent rows]): the fewest of 2, 4 and 8 blocks (at
/// most the schedule's long_cluster) of 512 threads with `perThread`
/// elements each that hold the row; 0 where none does.
static Value clusterPersistentSize(HostBuilder &h,
                                   InnerReductionScheduleAttr schedule,
                                   Value rowLength, int64_t perThread) {
  Value size = h.c(0);
  for (int64_t cs : {8, 4, 2})
    if (cs <= schedule.getLongCluster())
      size = h.select(
          h.lt(rowLength,
               h.c(cs * KernelLowering::kMaxRowThreads * perThread + 1)),
          h.c(cs), size);
  return size;
}

// Note [Cluster rows]: a kernel with per-element results (softmax, the
// norms) over few long rows runs one block per row in the plain variants,
// so 16 rows of a million elements keep 16 of the H200's 132 SMs busy. With
// the schedule's `cluster = C` (--inner-cluster; 8 by default), a vectorized
// streaming variant (`_cv8_i32`) takes such rows first: a row per thread block
// cluster of `cs` blocks of 512 threads; the block of rank r streams the
// r-th span of whole chunks of the row, reduces its state across the block
// (fusion.block_reduce), then across the cluster through distributed
// shared memory (fusion.cluster_reduce: every block gets the same bits),
// once per pass, and writes the per-element results of its span; the
// cluster's first block writes the per-row results. `cs` is the largest of
// 8, 4 and 2 that is at most C, at most the SMs per row (the SMs counted as
// max_grid / 16, the default blocks per SM) and at most the row's chunks
// of 512 threads (each block gets one); the variant runs where `cs >= 2`,
// with the vectorized variants' guards. The grid is rows * cs blocks, at
// most the SM count, so every cluster is resident at once; the runtime
// asks the driver that a cluster can be resident at all (Note [Cluster
// residency]). Only on sm_90 and later, and compiled to PTX only, as the
// fallbacks are (only few long rows take it). On by default since its
// cluster reductions go through mbarriers (Note [Cluster reductions through
// mbarriers]): on an H100 it read more than the plain variants in every
// row measured (bf16 softmax 16 x 10^6 0.40 against 0.17, 4 x 4194304 0.31
// against 0.05, 64 x 131072 0.57 against 0.44 (`_cpv8`); layer_norm 0.30 /
// 0.22 / 0.43 against 0.09 / 0.03 / 0.33).
//
// Note [Cluster rows or cluster persistent rows]: where the cluster
// persistent variant would take the row (longer than the one-block
// persistent variants hold, at most 8 blocks' worth) and all its clusters
// are resident at once (rows x its cluster size at most the SMs), it has
// the parallelism of this variant and reads the row once: it goes first.
// On an H100 (bf16, fraction of copy, this variant / the cluster
// persistent one): softmax 16 x 65536 0.159 / 0.172, 8 x 131072 0.150 /
// 0.173; layer_norm 0.157 / 0.189, 0.161 / 0.199; where its clusters take
// several waves this variant reads more (64 x 131072 softmax 0.566 /
// 0.435, layer_norm 0.426 / 0.330).
void KernelLowering::launchClusterRows(OpBuilder &b, HostBuilder &h,
                                       InnerReductionScheduleAttr schedule,
                                       const RowLaunch &rl,
                                       ArrayRef<Variant> variants,
                                       ArrayRef<gpu::GPUFuncOp> funcs,
                                       ArrayRef<Variant> plain) {
  Location loc = h.location();
  const LaunchArgs &launch = *rl.launch;
  Value rows = rl.rows, rowLength = rl.rowLength;
  Value sms = h.c(std::max<int64_t>(schedule.getMaxGrid() / 16, 1));
  // 1 where the cluster persistent variant takes the row in one wave.
  Value persistentWave = h.c(0);
  Value heldInOneBlock = h.c(0);
  for (const Variant &p : plain) {
    if (p.items == 0 || p.vector == 1 || p.ragged)
      continue;
    int64_t perThread = p.vector * p.items;
    if (!p.cluster) {
      int64_t rowThreads = p.rowThreads ? p.rowThreads : kMaxRowThreads;
      heldInOneBlock = h.max(heldInOneBlock,
                             h.lt(rowLength, h.c(rowThreads * perThread + 1)));
      continue;
    }
    Value size = clusterPersistentSize(h, schedule, rowLength, perThread);
    Value oneWave = h.lt(h.mul(rows, size), h.add(sms, h.c(1)));
    persistentWave = h.mul(h.mul(h.lt(h.c(1), size), oneWave),
                           h.sub(h.c(1), heldInOneBlock));
  }
  for (auto [variant, func] : llvm::zip(variants, funcs)) {
    Value chunk =
        h.c(kMaxRowThreads * variant.vector * KernelEmitter::kStreamItems);
    Value limit = h.min(h.floorDiv(sms, h.max(rows, h.c(1))),
                        h.ceilDiv(rowLength, chunk));
    Value size = h.c(1);
    for (int64_t cs : {2, 4, 8})
      if (cs <= schedule.getCluster())
        size = h.select(h.lt(h.c(cs - 1), limit), h.c(cs), size);
    Value guard = h.mul(h.mul(launch.vecOk, launch.fits32),
                        h.mul(h.lt(h.c(1), size), h.lt(h.c(0), rows)));
    guard = h.mul(guard, h.sub(h.c(1), persistentWave));
    SmallVector<Value> args = rl.kernelArgs(h.c(kMaxRowThreads));
    createLaunch(b, loc, h, rl.gpuModule, func, guard, h.mul(rows, size),
                 h.c(1), h.c(kMaxRowThreads), args, h.c(0),
                 ValueRange{size, h.c(1), h.c(1)});
  }
}

/// Dynamic shared memory of a block of `blockThreads` threads: the staged
/// row's bytes (Note [Staged rows]), none for a variant that does not stage.
static Value stagedRowBytes(HostBuilder &h, gpu::GPUFuncOp func,
                            Value blockThreads) {
  if (auto bytes =
          func->getAttrOfType<IntegerAttr>("fusion.stage_bytes_per_thread"))
    return h.mul(blockThreads, h.c(bytes.getInt()));
  return h.c(0);
}

// Note [Cluster persistent rows]: the persistent variant holds a row of
// up to 512 threads x `items` vectors (16384 bf16 elements with the
// heuristic's 4 vectors of 8) in one block's registers, the long-row
// variant (Note [Long persistent rows]) twice that; longer rows streamed,
// reading the row once per pass. With the schedule's `long_cluster = L`
// (8 by default; sm_90 and later) a variant `_cpv8_i32`, tried after
// those two, splits such a row over a thread block cluster: `cs`, the
// fewest of 2, 4 and 8 (at most L) whose blocks of 512 threads hold the
// row, blocks of T threads each (a multiple of 32, the fewest that hold a
// `cs`-th of the row), the block of rank r keeping columns [r * S, (r + 1)
// * S) with S = T * items * vector. The per-thread code is the first
// persistent variant's, with the loads and stores offset by the block's
// span; after each pass the block's state meets the cluster's through
// distributed shared memory (fusion.cluster_reduce through mbarriers, the
// row loop counting the rounds: no cluster barrier in the loop, Note
// [Cluster reductions through mbarriers]), and the cluster's first block
// writes the per-row results. Clusters loop
// over rows with the next row prefetched, as blocks do in the plain
// persistent variant; the grid is `cs` times the smaller of the row count
// and max_grid / cs. PTX only, compiled by the driver when a launch first
// needs it, as the long-row variant.
//
// Measured on an H100 (fusion-run --bench, bf16, fraction of a copy):
// against streaming, 2048 x 65536 rms_norm 0.599 -> 0.851, softmax 0.646
// -> 0.724, layer_norm 0.414 -> 0.468; 1024 x 131072 0.584 -> 0.813,
// 0.636 -> 0.648, 0.401 -> 0.432. It lost to the long-row variant where
// that holds the row (4096 x 32768: layer_norm 0.725 -> 0.524, rms_norm
// 0.947 -> 0.868, softmax 0.892 -> 0.766), so it comes after it. With a
// cluster barrier per reduction (before the mbarriers) it read 0.849 /
// 0.722 / 0.471 at 2048 x 65536 and 0.808 / 0.648 / 0.435 at 1024 x 131072;
// through mbarriers 0.939 / 0.762 / 0.66 and 0.929 / 0.692 / 0.621 (the
// barrier's release compiled to MEMBAR.ALL.GPU, which waited for the next
// row's prefetch).
void KernelLowering::launchClusterPersistentRows(
    OpBuilder &b, HostBuilder &h, InnerReductionScheduleAttr schedule,
    const RowLaunch &rl, const Variant &variant, gpu::GPUFuncOp func) {
  Location loc = h.location();
  Value rows = rl.rows, rowLength = rl.rowLength;
  int64_t perThread = variant.vector * variant.items;
  Value size = clusterPersistentSize(h, schedule, rowLength, perThread);
  Value guard = h.mul(plainGuard(h, variant, *rl.launch),
                      h.mul(h.lt(h.c(1), size), h.lt(h.c(0), rows)));
  Value clusterBlocks = h.max(size, h.c(1));
  Value threads = h.mul(
      h.ceilDiv(h.ceilDiv(h.ceilDiv(rowLength, clusterBlocks), h.c(perThread)),
                h.c(32)),
      h.c(32));
  threads = h.min(h.max(threads, h.c(32)), h.c(kMaxRowThreads));
  Value clusters =
      h.max(h.min(rows, h.floorDiv(h.c(schedule.getMaxGrid()), clusterBlocks)),
            h.c(1));
  SmallVector<Value> args = rl.kernelArgs(threads);
  Value smem = stagedRowBytes(h, func, threads);
  createLaunch(b, loc, h, rl.gpuModule, func, guard,
               h.mul(clusters, clusterBlocks), h.c(1), threads, args, smem,
               ValueRange{clusterBlocks, h.c(1), h.c(1)});
}

// Note [Wide row grids]: a plain row variant's blocks loop over row groups
// (Note [Row prefetch]), at most `max_grid` of them: 16 per SM, as many as
// could be resident. But a block of 256 threads with 64 registers each
// leaves room for 4 per SM, so the 16 ran in four waves of ~8 row groups
// each, and the groups split unevenly (32768 rows of 4096: 16384 groups
// over 2112 blocks, 7.76 each, so the last round left a quarter of the
// blocks idle). With the schedule's `row_grid` (128 blocks per SM) a block
// takes about one group where rows are fewer, and the hardware hands out
// blocks as SMs free up. That pays where enough warps are resident to hide a
// row's latency without the prefetch: the streaming variants and the staged
// persistent one (at most 64 registers). The variants that keep a row in
// registers (layer_norm's first persistent variant before it was staged,
// 111 registers: one 512-thread block per SM at 16384-element rows; its
// cluster and ragged variants still do) and the long-row one
// (up to 128 registers) need the prefetch and keep `max_grid`; so do the
// ragged variants, not measured with the wide grid.
//
// Measured on an H100 (fusion-run --bench, fraction of a copy; the grid
// cap as `--sm-count` 132 / 264 / 1024 gave 16 / 32 / 124 blocks per SM,
// rows of 4096 / 16384 / 1024 at the public shapes, each run twice):
// inner_sum (f32, streaming) 0.975 / 1.003 / 0.988 -> 1.030 / 1.020 /
// 1.043 at 124 per SM; softmax (staged) 0.939 / 0.953 / 0.949 -> 0.980 /
// 0.966 (the long-row variant) / 0.987; rms_norm (staged) 0.941 / 0.955 /
// 0.954 -> 0.974 / 0.975 / 0.985; layer_norm (rows in registers) 0.932 /
// 0.911 / 0.955 -> 0.787 / 0.685 / 0.979. Cross-entropy's streaming
// kernel (chunked rows) read the same with the wide grid: 8192 x 32000
// 1.001 -> 0.997, 16384 x 128256 1.055 -> 1.055.
//
// Staged is not enough: rms_norm with an fp8 result, staged, took 78
// registers (three 256-thread blocks per SM, one of 512) and with the wide
// grid read 0.896 / 0.688 / 0.998 where it read 0.939 / 0.890 / 0.962. So
// a persistent variant with the wide grid is kept to 64 registers
// (`nvvm.maxnreg`): 32 warps per SM at any block size. softmax and
// rms_norm took 64 and 63 already; rms_norm_fp8 takes 64 without spills
// (ptxas -v, sm_90a). An explicit `--inner-min-blocks` replaces the cap.
static int64_t gridCap(InnerReductionScheduleAttr schedule,
                       const Variant &variant) {
  return variant.wideGrid ? schedule.getRowGrid() : schedule.getMaxGrid();
}

/// Threads of `max_grid` blocks of 128 (16 per SM, 2048 threads each): the
/// threads the launch plan expects to be resident at once.
static int64_t residentThreads(InnerReductionScheduleAttr schedule) {
  return schedule.getMaxGrid() * 128;
}

/// The power of two from 2 to 16 that covers `wanted` threads (16 beyond):
/// a row's threads where fewer than a warp serve it (Note [Short rows],
/// Note [Column-major rows]).
static Value fewThreadsPerRow(HostBuilder &h, Value wanted) {
  return h.select(h.lt(wanted, h.c(3)), h.c(2),
                  h.select(h.lt(wanted, h.c(5)), h.c(4),
                           h.select(h.lt(wanted, h.c(9)), h.c(8), h.c(16))));
}

// Note [Column blocks of few rows]: the column variant gives a row at most
// block x element bytes / 32 threads (Note [Column-major rows]), so that a
// block's rows fill a 32-byte sector of each column: 16 with bf16 and
// 256-thread blocks. For a kernel with per-element results over few rows
// that bound left few blocks: softmax over 4096 transposed rows of 50257 bf16
// took 16 threads per row, 256 blocks of 16 rows, under two per SM of an
// H100 where the kernel's registers allow four. Where the bound cuts the
// threads `wanted` asks for and leaves at most max_grid / 8 blocks, the
// block doubles (512 threads: up to 32 per row, still 16 rows a block). On
// an H100 (fusion-run --bench --layout=0:transposed, bf16, fraction of copy,
// the module files without and with the change in one run, two rounds
// within 0.001): 4096 x 50257 softmax 0.220 -> 0.334, layer_norm 0.146 ->
// 0.232, rms_norm 0.175 -> 0.289; 2113 x 4096 0.143 -> 0.192, 0.098 ->
// 0.134, 0.108 -> 0.173; 8192 x 16384 and 32768 x 4096 keep their launch
// and read the same. An earlier run found doubling where the bound leaves
// more blocks no better: 8192 x 16384 (512 blocks) 0.349 / 0.240 / 0.298
// against 0.341 / 0.230 / 0.289 doubled. Per-row results keep the bound
// (not measured).
void KernelLowering::launchRowVariants(OpBuilder &b, HostBuilder &h,
                                       InnerReductionScheduleAttr schedule,
                                       const RowLaunch &rl,
                                       ArrayRef<Variant> variants,
                                       ArrayRef<gpu::GPUFuncOp> funcs) {
  Location loc = h.location();
  Value rows = rl.rows, rowLength = rl.rowLength;
  Value blockTarget = h.c(schedule.getBlock());
  for (auto [i, variant] : llvm::enumerate(variants)) {
    if (variant.cluster) {
      launchClusterPersistentRows(b, h, schedule, rl, variant, funcs[i]);
      continue;
    }
    Value guard = plainGuard(h, variant, *rl.launch);
    // The column variant's block, where it differs from the schedule's.
    Value columnBlock;
    if (variant.ragged) {
      // Where no plain vectorized variant runs (Note [Ragged rows]).
      guard = h.mul(rl.launch->raggedOk, h.sub(h.c(1), rl.launch->vecOk));
      if (!variant.index64)
        guard = h.mul(guard, rl.launch->fits32);
    }
    if (variant.columnRows)
      guard = h.mul(guard, rl.columnMajor ? rl.columnMajor : h.c(0));
    int64_t perThread =
        variant.vector *
        (variant.items > 0 ? variant.items : KernelEmitter::kStreamItems);
    if (variant.items > 0) {
      int64_t rowThreads =
          variant.rowThreads ? variant.rowThreads : kMaxRowThreads;
      Value fits = h.lt(rowLength, h.c(rowThreads * perThread + 1));
      guard = guard ? h.mul(guard, fits) : fits;
    }
    // T: a multiple of 32 with `perThread` elements each, 32 to 512 (fewer
    // for short rows, below).
    Value threads = h.mul(
        h.ceilDiv(h.ceilDiv(rowLength, h.c(perThread)), h.c(32)), h.c(32));
    Value most = h.c(kMaxRowThreads);
    if (variant.items == 0) {
      // Note [Streaming threads per row]: a streaming row kernel whose row
      // takes several chunks even at 512 threads is bound by the latency
      // of its chunks and of each row's block reduction, so where there
      // are rows enough to fill the GPU (`max_grid` blocks of 128 threads,
      // 16 per SM: 2048 threads each) such a row gets fewer threads (down
      // to 128) and an SM works on more rows at once. On the H200,
      // cross-entropy forward (bf16, with Note [Chunk prefetch]): 8192 x
      // 32000 read 0.60 / 0.82 / 0.90 of copy with 512 / 256 / 128 threads
      // per row, 16384 x 128256 0.92 / 1.00 / 1.03. A row that one chunk
      // of at most 512 threads covers keeps its threads: splitting it
      // would add a chunk loop's latency to a row that has no other
      // (docs/performance.md has the inner_sum readings).
      Value resident = h.c(residentThreads(schedule));
      Value wanted =
          h.mul(h.ceilDiv(h.ceilDiv(resident, h.max(rows, h.c(1))), h.c(32)),
                h.c(32));
      Value chunks = h.lt(h.c(kMaxRowThreads * perThread), rowLength);
      most = h.select(chunks,
                      h.min(h.max(wanted, h.c(kMinStreamThreads)), most), most);
    }
    threads = h.min(h.max(threads, h.c(32)), most);
    // Note [Short rows]: a row that needs at most 16 threads (`perThread`
    // elements each) gets the power of two it needs, at least 2 (the
    // ragged variants' edge item takes threads 0 and 1), instead of a
    // whole warp: a warp then holds 32 / T rows, each reduced by the
    // butterfly's distances below T alone (fusion.block_reduce's `width`),
    // and a block of `block` threads takes block / T rows. With a warp per
    // row, a softmax over rows of 77 bf16 elements kept 3 of 32 lanes busy
    // (0.06 of copy on the H200).
    Value needed = h.ceilDiv(rowLength, h.c(perThread));
    threads =
        h.select(h.lt(needed, h.c(17)), fewThreadsPerRow(h, needed), threads);
    if (variant.vector == 1 && rl.columnMajor &&
        (variant.columnRows || !rl.fullResult)) {
      // Note [Column-major rows]: threads per row for the resident
      // threads' worth of rows: the column variant's 2 to 32, few enough
      // that a block's rows span a 32-byte sector; the scalar variants'
      // of per-row results 2 to 16 (with per-element results they keep
      // their launch).
      Value wanted =
          h.ceilDiv(h.c(residentThreads(schedule)), h.max(rows, h.c(1)));
      Value few;
      if (variant.columnRows) {
        // The largest power of two within `wanted`: fewer threads per row
        // put more rows side by side in a warp's load.
        auto sectorOf = [&](int64_t block) {
          return std::clamp<int64_t>(block * rl.columnBytes / 32, 2, 32);
        };
        int64_t block = schedule.getBlock();
        few = h.c(2);
        for (int64_t t = 4; t <= 32; t *= 2)
          few = h.select(h.lt(wanted, h.c(t)), few, h.c(t));
        Value capped = h.min(few, h.c(sectorOf(block)));
        if (rl.fullResult && 2 * block <= kMaxRowBlockThreads) {
          // Note [Column blocks of few rows]: where the sector's bound
          // leaves at most two blocks per SM, the block doubles and its
          // rows take up to twice the threads.
          Value blocks =
              h.ceilDiv(rows, h.max(h.floorDiv(h.c(block), capped), h.c(1)));
          Value widen = h.mul(h.lt(capped, few),
                              h.lt(blocks, h.c(schedule.getMaxGrid() / 8 + 1)));
          columnBlock = h.select(widen, h.c(2 * block), h.c(block));
          capped =
              h.select(widen, h.min(few, h.c(sectorOf(2 * block))), capped);
        }
        few = capped;
      } else {
        few = fewThreadsPerRow(h, wanted);
      }
      threads = h.select(rl.columnMajor, few, threads);
    }
    Value rowsPerBlock = h.max(
        h.floorDiv(columnBlock ? columnBlock : blockTarget, threads), h.c(1));
    // Note [Column-major rows with per-element results]: such a kernel's
    // column variant only where its blocks fill the SMs (max_grid / 16
    // blocks) and its rows get 8 threads or more; fewer rows keep a block
    // per row, more rows the persistent scalar variant.
    if (variant.columnRows && rl.fullResult)
      guard = h.mul(h.mul(guard, h.lt(h.c(schedule.getMaxGrid() / 16 - 1),
                                      h.ceilDiv(rows, rowsPerBlock))),
                    h.lt(h.c(7), threads));
    Value blockSize = h.mul(threads, rowsPerBlock);
    Value grid = h.max(
        h.min(h.ceilDiv(rows, rowsPerBlock), h.c(gridCap(schedule, variant))),
        h.c(1));
    SmallVector<Value> launchArgs = rl.kernelArgs(threads);
    Value smem = stagedRowBytes(h, funcs[i], blockSize);
    createLaunch(b, loc, h, rl.gpuModule, funcs[i], guard, grid, h.c(1),
                 blockSize, launchArgs, smem);
  }
}

} // namespace mlir::fusion::lowering
