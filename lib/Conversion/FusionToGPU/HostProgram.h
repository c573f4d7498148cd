//===- HostProgram.h - the host side of the kernel lowerings ----*- C++ -*-===//
// The host program that replaces a lowered kernel (buffers, size checks,
// variant guards, launches) and the lowering of one module's kernels, whose
// parts live in the file of each scheduler (docs/lowering.md).
//===----------------------------------------------------------------------===//
#ifndef FUSION_CONVERSION_FUSIONTOGPU_HOSTPROGRAM_H
#define FUSION_CONVERSION_FUSIONTOGPU_HOSTPROGRAM_H

#include "KernelEmitter.h"
#include "fusion/Dialect/Fusion/IR/ScheduleLimits.h"

#include "mlir/IR/BuiltinOps.h"

namespace mlir::fusion::lowering {

/// Host-side index arithmetic for the launch program.
class HostBuilder {
public:
  HostBuilder(OpBuilder &b, Location loc) : b(b), loc(loc) {}
  OpBuilder &builder() { return b; }
  Location location() const { return loc; }
  Value c(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }
  Value add(Value x, Value y) { return arith::AddIOp::create(b, loc, x, y); }
  Value mul(Value x, Value y) { return arith::MulIOp::create(b, loc, x, y); }
  Value sub(Value x, Value y) { return arith::SubIOp::create(b, loc, x, y); }
  Value floorDiv(Value x, Value y) {
    return arith::FloorDivSIOp::create(b, loc, x, y);
  }
  Value ceilDiv(Value x, Value y) {
    return arith::CeilDivSIOp::create(b, loc, x, y);
  }
  Value rem(Value x, Value y) { return arith::RemSIOp::create(b, loc, x, y); }
  Value min(Value x, Value y) { return arith::MinSIOp::create(b, loc, x, y); }
  Value max(Value x, Value y) { return arith::MaxSIOp::create(b, loc, x, y); }
  /// Comparisons give 0 or 1 as an index, so guards combine with `mul`.
  Value eq(Value x, Value y) {
    return toIndex(
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, x, y));
  }
  Value lt(Value x, Value y) {
    return toIndex(
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, x, y));
  }
  Value select(Value cond, Value x, Value y) {
    Value flag =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, cond, c(0));
    return arith::SelectOp::create(b, loc, flag, x, y);
  }

private:
  Value toIndex(Value flag) {
    return arith::IndexCastUIOp::create(b, loc, b.getIndexType(), flag);
  }
  OpBuilder &b;
  Location loc;
};

/// Lowers the scheduled kernels of one module: --fusion-lower-kernels's
/// work, with its options.
class KernelLowering {
public:
  KernelLowering(ModuleOp module, int64_t innerMinBlocks, int64_t transposeTile,
                 bool hardwareFp8, bool clusters, bool asyncCopies)
      : module(module), innerMinBlocks(innerMinBlocks),
        transposeTile(transposeTile), hardwareFp8(hardwareFp8),
        clusters(clusters), asyncCopies(asyncCopies) {}

  /// Replaces `kernel` with its gpu.func variants and host program, by its
  /// schedule.
  LogicalResult lower(KernelOp kernel);

  gpu::GPUModuleOp gpuModuleFor(FusionOp fusion);

  struct EmittedVariants {
    SmallVector<gpu::GPUFuncOp> funcs;
    /// Inputs the vectorized variant reads with vector loads.
    llvm::SmallSetVector<unsigned, 4> vectorLoaded;
    /// (input, input dim, iteration dim) reads, for the size checks.
    llvm::SetVector<std::tuple<unsigned, int64_t, int64_t>> accesses;
    /// The ragged variant's aligned and element-aligned vector loads
    /// (Note [Ragged rows]).
    llvm::SmallSetVector<unsigned, 4> raggedAligned, raggedUnaligned;
  };

  /// Creates one gpu.func per variant in `gpuModule` and fills its body
  /// with `emitBody`.
  FailureOr<EmittedVariants> emitVariants(
      KernelOp kernel, gpu::GPUModuleOp gpuModule, ArrayRef<Variant> variants,
      RankedTensorType iterType, std::optional<int64_t> block,
      function_ref<LogicalResult(KernelEmitter &, gpu::GPUFuncOp)> emitBody,
      int64_t numExtraParams = 0, ArrayRef<Type> extraBufferElements = {});

  /// Kernel parameters as the module writer packs them (a memref is a
  /// descriptor of five 8-byte words, i32 and f32 take 4 bytes, the rest 8,
  /// each aligned to its size) must fit the driver's limit; a kernel that
  /// reads thousands of tensors is refused before anything is compiled.
  static LogicalResult checkParamBytes(KernelOp kernel, FunctionType signature);

  /// A launch of `func` (guard null: always taken) with the kernel's
  /// parameter types recorded, for packing once the gpu.func has become a
  /// binary; `cluster`, when given, is the cluster's 3 dims.
  void createLaunch(OpBuilder &b, Location loc, HostBuilder &h,
                    gpu::GPUModuleOp gpuModule, gpu::GPUFuncOp func,
                    Value guard, Value gridX, Value gridY, Value blockX,
                    ValueRange args, Value smem = Value(),
                    ValueRange cluster = {});

  /// Kernels read fusion inputs and the buffers of kernels lowered before
  /// them (intermediates between the kernels of a multi-kernel fusion).
  LogicalResult checkReadsFusionInputs(KernelOp kernel);

  /// The sizes and strides of a kernel input on the host: a fusion input's
  /// as bound at run time, a buffer's from its sizes (buffers are
  /// contiguous, row-major).
  void inputDimsAndStrides(HostBuilder &h, Value input,
                           SmallVectorImpl<Value> &dims,
                           SmallVectorImpl<Value> &strides);

  /// How size checks name kernel input `k`: the fusion input, or the
  /// intermediate buffer.
  static std::string describeInput(KernelOp kernel, FusionOp fusion,
                                   unsigned k);

  /// The vectorized (when `vector` > 1), scalar 32-bit (unless `index64`)
  /// and scalar 64-bit variants, tried in that order.
  static SmallVector<Variant> plainVariants(StringRef base, int64_t vector,
                                            bool index64, bool fastMath);

  /// Whether two host sizes are the same value or the same dim of one input.
  static bool sameSize(Value x, Value y);

  /// A run-time check that `size` equals `expected` (none when both are the
  /// same value or the same dim of one input).
  void checkSameSize(HostBuilder &h, Value size, Value expected,
                     const Twine &what);

  /// The sizes of a reduction kernel's domain (`domainValue`, inside the
  /// kernel) as host values, with checks that every reduction's operand has
  /// them.
  FailureOr<SmallVector<Value>>
  reifyReducedDomain(KernelOp kernel, Value domainValue,
                     ArrayRef<Operation *> reductions, HostBuilder &h);

  struct LaunchArgs {
    SmallVector<Value> args;
    Value vecOk, fits32;
    /// What a ragged row variant needs (Note [Ragged rows]); null without
    /// one.
    Value raggedOk;
    /// Each input's effective strides (0 along a dim of 1).
    SmallVector<SmallVector<Value>> inputStrides;
  };

  /// The run-time guard of a ragged row variant (Note [Ragged rows]): unit
  /// innermost strides, 16-byte aligned outputs and aligned inputs, and
  /// aligned inputs whose row offsets agree with the output's modulo the
  /// width (any row length).
  Value raggedAccessOk(KernelOp kernel, HostBuilder &h, ArrayRef<Value> sizes,
                       const EmittedVariants &emitted, int64_t width,
                       ValueRange outputs, const LaunchArgs &launch);

  /// `ok` and what `width`-element accesses of `input` need (Note [Variant
  /// guards]): a unit innermost stride, other strides that are multiples of
  /// the width, and a buffer aligned to `align` bytes.
  Value andVectorAccessOk(HostBuilder &h, OpBuilder &b, Location loc, Value ok,
                          Value input, ArrayRef<Value> strides, int64_t width,
                          int64_t align);

  /// The host side shared by the kernel kinds: effective strides of the
  /// inputs, the checks that symbolic extents agree, and the run-time guards
  /// of the vectorized and 32-bit variants. `sizes` are the iteration
  /// extents; the launch arguments are the inputs (with their strides), the
  /// outputs and the sizes (the work count is appended by the caller).
  FailureOr<LaunchArgs> hostArgs(
      KernelOp kernel, FusionOp fusion, HostBuilder &h, ArrayRef<Value> sizes,
      const llvm::SetVector<std::tuple<unsigned, int64_t, int64_t>> &accesses,
      const llvm::SmallSetVector<unsigned, 4> &vectorLoaded, int64_t vector,
      ValueRange outputs);

  /// The host side of the index ops of a kernel (Note [Index contexts]):
  /// checks that a cat's pieces agree off the cat dim and that a gather's
  /// index fits its input, and the host values of `extents` (the extents
  /// the index ops read, KernelEmitter::collectExtents), returned as launch
  /// arguments.
  FailureOr<SmallVector<Value>>
  indexOpHostArgs(KernelOp kernel, HostBuilder &h,
                  ArrayRef<std::pair<Value, int64_t>> extents);

  /// The run-time guard of a plain variant (Note [Variant guards]): the
  /// vector checks and 32-bit offsets as the variant needs; null (always
  /// taken) for the scalar 64-bit one.
  static Value plainGuard(HostBuilder &h, const Variant &variant,
                          const LaunchArgs &launch);

  LogicalResult lowerPointwise(KernelOp kernel, PointwiseScheduleAttr schedule);

  /// What the host side of a pointwise kernel has built when its variants'
  /// launches are written.
  struct PointwiseHost {
    gpu::GPUModuleOp gpuModule;
    RankedTensorType iterType;
    std::string base;
    SmallVector<Value> sizes;
    Value numel;
    SmallVector<Value> args;
    Value fits32;
    SmallVector<Value> outputs;
  };

  /// The tiled transpose variants of a pointwise kernel and their launches,
  /// tried before the plain variants (Note [Tiled transpose]); none when no
  /// input is read across its innermost dim. Sets `tiled` when it made
  /// them (the plain variants are fallbacks then).
  LogicalResult lowerTransposeVariants(
      KernelOp kernel, PointwiseScheduleAttr schedule,
      const llvm::SetVector<std::tuple<unsigned, int64_t, int64_t>> &accesses,
      HostBuilder &h, const PointwiseHost &host, bool &tiled);

  LogicalResult lowerOuterReduction(KernelOp kernel,
                                    OuterReductionScheduleAttr schedule);

  LogicalResult lowerRowKernel(KernelOp kernel,
                               InnerReductionScheduleAttr schedule);

  /// An inner reduction's variants (InnerReduction.cpp): the plain ones in
  /// the order they are tried, the split-row ones (tried first; none when
  /// the kernel has full-size results, several passes or 64-bit offsets)
  /// and the element types of the split rows' state buffers (each state
  /// component, then the i32 counters).
  struct RowVariants {
    SmallVector<Variant> plain, split, cluster;
    SmallVector<Type> stateElements;
  };
  RowVariants rowVariants(const RowKernelInfo &info,
                          InnerReductionScheduleAttr schedule,
                          StringRef kernelName, bool ragged,
                          int64_t columnSharedBytes);

  /// The (input, index map) loads of a row kernel's body, found by a probe
  /// emission (Note [One probe per row kernel]).
  using ProbedLoads = SmallVector<std::pair<unsigned, SmallVector<int64_t>>>;

  /// The body of a plain row variant; a persistent or vectorized one
  /// prefetches the kernel's probed loads that depend on the row and the
  /// column (Note [Row prefetch]), probing them first if `probed` is empty.
  LogicalResult emitRowVariant(KernelOp kernel, const RowKernelInfo &info,
                               KernelEmitter &emitter, gpu::GPUFuncOp func,
                               std::optional<ProbedLoads> &probed);

  /// The host's fusion.empty results of a row kernel, with the checks that
  /// their sizes match the reduced domain's.
  FailureOr<SmallVector<Value>> rowKernelOutputs(KernelOp kernel,
                                                 const RowKernelInfo &info,
                                                 OpBuilder &b, HostBuilder &h,
                                                 ArrayRef<Value> sizes);

  /// What the launches of a row kernel's variants share.
  struct RowLaunch {
    gpu::GPUModuleOp gpuModule;
    int64_t rank;
    Value rows, rowLength;
    const LaunchArgs *launch;
    /// The extents the index ops read, after threads per row.
    SmallVector<Value> extents;
    /// 1 where the rows lie across memory (Note [Column-major rows]);
    /// null for a kernel of one row dim or none.
    Value columnMajor;
    /// Whether the kernel has per-element results: only its column
    /// variant's launch then depends on columnMajor.
    bool fullResult = false;
    /// The smallest element (bytes) of the inputs that decide columnMajor.
    int64_t columnBytes = 0;
    /// A row variant's arguments: the launch's, the row count, `threads`
    /// per row, the extents.
    SmallVector<Value> kernelArgs(Value threads) const {
      SmallVector<Value> args(launch->args);
      args.push_back(rows);
      args.push_back(threads);
      args.append(extents);
      return args;
    }
  };

  /// The split-row launches (Note [Split rows]): the split count, the state
  /// buffers and counters, the guards.
  void launchSplitRows(OpBuilder &b, HostBuilder &h,
                       InnerReductionScheduleAttr schedule, const RowLaunch &rl,
                       const RowVariants &rv,
                       ArrayRef<gpu::GPUFuncOp> splitFuncs);

  /// The cluster-row launches (Note [Cluster rows]): the cluster size, the
  /// grid, the guards.
  /// `plain`: the plain variants, tried after these (Note [Cluster rows
  /// or cluster persistent rows]).
  void launchClusterRows(OpBuilder &b, HostBuilder &h,
                         InnerReductionScheduleAttr schedule,
                         const RowLaunch &rl, ArrayRef<Variant> variants,
                         ArrayRef<gpu::GPUFuncOp> funcs,
                         ArrayRef<Variant> plain);

  /// The cluster persistent variant's launch (Note [Cluster persistent
  /// rows]): the cluster size, threads per block, the grid, the guard.
  void launchClusterPersistentRows(OpBuilder &b, HostBuilder &h,
                                   InnerReductionScheduleAttr schedule,
                                   const RowLaunch &rl, const Variant &variant,
                                   gpu::GPUFuncOp func);

  /// The plain variants' launches: threads per row, rows per block, grid,
  /// dynamic shared memory of staged rows, guards.
  void launchRowVariants(OpBuilder &b, HostBuilder &h,
                         InnerReductionScheduleAttr schedule,
                         const RowLaunch &rl, ArrayRef<Variant> variants,
                         ArrayRef<gpu::GPUFuncOp> funcs);

  /// Most threads reducing one row; kernels declare it as their maximum
  /// block size, so ptxas keeps them within 128 registers per thread.
  static constexpr int64_t kMaxRowThreads = kMaxRowBlockThreads;
  /// The fewest threads a streaming row gets when rows are many (Note
  /// [Streaming threads per row] in InnerReduction.cpp).
  static constexpr int64_t kMinStreamThreads = 128;

private:
  MLIRContext &getContext() { return *module.getContext(); }

  ModuleOp module;
  /// Variants a launch takes only when the expected ones cannot run
  /// (scalar beside a vectorized variant, 64-bit index beside a 32-bit
  /// one): their launches are marked `fallback` (Note [Cubins for expected
  /// variants] in ModuleWriter.cpp).
  llvm::DenseSet<Operation *> fallbackFuncs;
  /// Persistent inner-reduction variants: blocks per SM (nvvm.minctasm).
  int64_t innerMinBlocks;
  /// Tile edge of the tiled transpose variant.
  int64_t transposeTile;
  /// The target converts f32 to fp8 in hardware (sm_89 and later).
  bool hardwareFp8;
  /// The target has thread block clusters (sm_90 and later).
  bool clusters;
  /// The target has cp.async (sm_80 and later).
  bool asyncCopies;
};

} // namespace mlir::fusion::lowering

#endif // FUSION_CONVERSION_FUSIONTOGPU_HOSTPROGRAM_H
