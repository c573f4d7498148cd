//===- KernelEmitter.h - writes one gpu.func variant ------------*- C++ -*-===//
// The state and helpers shared by the lowerings of lib/Conversion/FusionToGPU
// while they write one kernel variant (docs/lowering.md).
//===----------------------------------------------------------------------===//
#ifndef FUSION_CONVERSION_FUSIONTOGPU_KERNELEMITTER_H
#define FUSION_CONVERSION_FUSIONTOGPU_KERNELEMITTER_H

#include "fusion/Dialect/Fusion/IR/FusionOps.h"
#include "fusion/Dialect/Fusion/IR/ScheduleLimits.h"
#include "fusion/Dialect/Fusion/Transforms/RowKernel.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "llvm/ADT/SetVector.h"

#include <array>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace mlir::fusion::lowering {

/// i1 tensors are stored one byte per element (as PyTorch's bool).
inline Type storageType(Type element) {
  if (element.isInteger(1))
    return IntegerType::get(element.getContext(), 8);
  return element;
}

inline int64_t storageBytes(Type element) {
  return std::max<int64_t>(1, storageType(element).getIntOrFloatBitWidth() / 8);
}

inline bool isHalfFloat(Type t) { return t.isF16() || t.isBF16(); }

/// The type reductions of `element` accumulate in: f32 for floats of 32 bits
/// or fewer, f64 for f64, i64 for integers.
inline Type accumulatorType(Type element) {
  MLIRContext *ctx = element.getContext();
  if (!isa<FloatType>(element))
    return IntegerType::get(ctx, 64);
  return element.isF64() ? Type(Float64Type::get(ctx))
                         : Type(Float32Type::get(ctx));
}

/// The types of a row reduction's state components, the shared slots and
/// exchanges of every row variant hold one array per component: the
/// accumulator once (sum, prod, max, min), three times (var_mean's Welford
/// count, mean and centered sum of squares), twice (an online max with its
/// sum of exp(x - max)), or the accumulator and an i64 index (argmax and
/// argmin: Note [Arg reductions]). An online max has none of its own: its
/// sum's state holds it.
inline SmallVector<Type, 3> rowStateComponents(const RowReduction &r) {
  if (r.onlineMax)
    return {};
  Type acc = accumulatorType(
      cast<RankedTensorType>(r.op->getOperand(0).getType()).getElementType());
  if (isa<ArgmaxOp, ArgminOp>(r.op))
    return {acc, IntegerType::get(acc.getContext(), 64)};
  int64_t width = isa<VarMeanOp>(r.op) ? 3 : r.onlineSum ? 2 : 1;
  return SmallVector<Type, 3>(width, acc);
}

/// A static 1-d buffer of `size` elements in `func`'s workgroup (shared)
/// memory.
inline Value addWorkgroupBuffer(gpu::GPUFuncOp func, int64_t size, Type element,
                                Location loc) {
  return func.addWorkgroupAttribution(
      MemRefType::get(
          {size}, element, MemRefLayoutAttrInterface(),
          gpu::AddressSpaceAttr::get(
              func.getContext(), gpu::GPUDialect::getWorkgroupAddressSpace())),
      loc);
}

/// The most blocks of a cluster the row variants launch (the portable
/// cluster size): each cluster reduction's slots hold that many per set.
inline constexpr int64_t kMaxClusterBlocks = 8;

/// A generated value: a vector of the variant's width, or a scalar that is
/// uniform along the innermost iteration dim.
struct Gen {
  Value value;
  bool isVector = false;
};

/// One kernel variant: vector width and index width.
/// Staged rows: the most dynamic shared memory a block's staged row may
/// take (two such blocks fit an H100/H200 SM's 228 KB).
inline constexpr int64_t kMaxStageBytes = 96 * 1024;

struct Variant {
  int64_t vector;
  bool index64;
  std::string name;
  int64_t unroll = 1;
  bool fastMath = false;
  /// Inner reductions: vectors per thread kept in registers (0: streaming).
  int64_t items = 0;
  /// Persistent inner reductions: the variant with twice the schedule's
  /// items, for rows the first one cannot hold (Note [Long persistent
  /// rows] in InnerReduction.cpp).
  bool longRows = false;
  /// Persistent inner reductions: the most threads per row this variant
  /// takes a row with (0: kMaxRowThreads); a longer row goes on to the
  /// next variant.
  int64_t rowThreads = 0;
  /// Inner reductions: rows split over gridDim.y blocks (Note [Split rows]).
  bool split = false;
  /// Persistent inner reductions: the row's loaded values are kept in
  /// shared memory across passes (Note [Staged rows]), for blocks of up to
  /// `maxBlock` threads.
  bool stage = false;
  int64_t maxBlock = 0;
  /// Staged rows: the next row is copied into a second buffer with
  /// cp.async (Note [Async staged rows] in InnerReductionKernel.cpp), if
  /// both buffers take at most `maxAsyncStageBytes`.
  bool asyncStage = false;
  int64_t maxAsyncStageBytes = kMaxStageBytes;
  /// Async staged rows: the copies are bulk copies completing on mbarriers
  /// (Note [Bulk staged rows] in InnerReductionKernel.cpp; sm_90 and later).
  bool bulkStage = false;
  /// Streaming inner reductions: rows may start anywhere modulo the width
  /// and end mid-vector (Note [Ragged rows] in InnerReductionKernel.cpp).
  bool ragged = false;
  /// Streaming inner reductions with per-element results: a row split over
  /// the blocks of a thread block cluster (Note [Cluster rows] in
  /// InnerReduction.cpp).
  bool cluster = false;
  /// Inner reductions: launched with up to the schedule's `row_grid` blocks
  /// rather than `max_grid`, and a persistent one kept to 64 registers
  /// (Note [Wide row grids] in InnerReduction.cpp).
  bool wideGrid = false;
  /// Streaming inner reductions with per-row results only: rows whose
  /// inputs lie across memory, read with a block's lanes along the rows
  /// (Note [Column-major rows] in InnerReduction.cpp).
  bool columnRows = false;
};

/// Writes the body of one gpu.func: one variant of a kernel of any
/// schedule. The schedulers' lowerings (Pointwise.cpp, InnerReduction.cpp,
/// OuterReduction.cpp, Transpose.cpp) drive it; the element-wise generator
/// (Elementwise.cpp, Casts.cpp) and the reduction states
/// (ReductionState.cpp) are its shared parts.
class KernelEmitter {
public:
  KernelEmitter(KernelOp kernel, const Variant &variant,
                RankedTensorType iterType)
      : kernel(kernel), variant(variant), iterType(iterType),
        rank(iterType.getRank()) {}

  const Variant &getVariant() const { return variant; }

  /// Kernel parameters: per tensor input a memref and its effective strides,
  /// per scalar input the scalar, per result a memref, then the iteration
  /// sizes and the number of work items.
  FunctionType signature(MLIRContext *ctx);

  /// Maps the kernel's inputs to the gpu.func's parameters (the layout
  /// `signature` describes) and returns the output memrefs, the iteration
  /// sizes and the work count.
  std::tuple<SmallVector<Value>, SmallVector<Value>, Value>
  bindParams(gpu::GPUFuncOp func);

  LogicalResult emit(gpu::GPUFuncOp func);

  /// The body of an inner-reduction kernel (Note [Inner reduction
  /// lowering]). `info` describes the reductions and results; the variant's
  /// `items` > 0 makes it persistent.
  LogicalResult emitRowKernel(gpu::GPUFuncOp func, const RowKernelInfo &info);

  /// Streaming variants take this many vectors per thread and chunk.
  static constexpr int64_t kStreamItems = 4;

  /// The column variant's tile of a per-element result (Note [Column tile
  /// pitch] in InnerReductionKernel.cpp): each of the block's rows takes
  /// the chunk's columns plus this many elements of `elementBytes` bytes,
  /// so that a row's pitch is an odd number of 4-byte words (8-byte
  /// elements: an odd number of elements).
  static constexpr int64_t columnTilePad(int64_t elementBytes) {
    return elementBytes >= 4 ? 1 : 4 / elementBytes;
  }
  /// The tile's elements: a block's chunk (at most kMaxRowBlockThreads x
  /// kStreamItems elements) and the pad of each of its rows (at most
  /// kMaxRowBlockThreads / 2: rows get 2 threads or more).
  static constexpr int64_t columnTileElements(int64_t elementBytes) {
    return kMaxRowBlockThreads * kStreamItems +
           kMaxRowBlockThreads / 2 * columnTilePad(elementBytes);
  }

  enum class RedKind { Sum, Prod, Max, Min };

  /// How a sum/prod/max/min (var_mean: its sums) combines values.
  static RedKind kindOf(Operation *op);

  Value neutral(RedKind kind, bool isFloat, Type type);

  Value combine(RedKind kind, bool isFloat, Value x, Value y);

  static vector::CombiningKind combiningKind(RedKind kind, bool isFloat);

  /// The accumulated state of one part of a row kernel (see
  /// emitRowKernel).
  struct RowPart {
    enum State { Simple, Welford, Online, Arg };
    const RowReduction *reduction = nullptr;
    State state = Simple;
    Type acc;
    bool isFloat = true;
    RedKind kind = RedKind::Sum;
    SmallVector<Value> shared; // one shared array per state component
    /// Cluster rows: one shared buffer of two sets of kMaxClusterBlocks
    /// slots per state component (fusion.cluster_reduce's slots), and the
    /// two mbarriers of its rounds (Note [Cluster reductions through
    /// mbarriers]).
    SmallVector<Value> clusterSlots;
    Value clusterBarriers;
    /// The state components' types (rowStateComponents).
    SmallVector<Type, 3> components;
    size_t width() const { return components.size(); }
    Type componentType(size_t c) const { return components[c]; }
  };
  using RowState = SmallVector<Value, 3>;

  RowState neutralState(RowPart &part);

  RowState combineArg(RowPart &part, const RowState &a, const RowState &x);

  /// exp as the kernel computes it (Note [Approximate exp and division]).
  Value expOf(Value x);

  RowState combineState(RowPart &part, const RowState &a, const RowState &x);

  /// An online state's sum `si` (at max `mi`) rescaled to the max `m`:
  /// si * exp(mi - m), 0 where mi is -inf (no elements).
  Value rescaleOnline(RowPart &part, Value mi, Value si, Value m);

  /// Folds a state across the threads of a row (fusion.block_reduce):
  /// xor-shuffles within the warp; when a row has several warps, their
  /// states meet in shared memory (slots `slot0 .. slot0 + warps`) and every
  /// thread folds them, so all threads of the row get the row's state.
  RowState blockReduceState(RowPart &part, RowState x, Value lane, Value warp,
                            Value slot0, Value warpsPerRow, Value multiWarp,
                            Value width = {});

  /// Folds a block's state (the same in all its threads) across the blocks
  /// of the thread block cluster (fusion.cluster_reduce, through
  /// `part.clusterSlots`; `leader` is one thread of the block), so every
  /// block gets the cluster's state (Note [Cluster rows]).
  /// `round`: how many reductions through these slots came before it in
  /// the block (Note [Cluster reductions through mbarriers]).
  RowState clusterReduceState(RowPart &part, RowState x, Value leader,
                              Value round);

  /// The identity and combiner regions of a kernel-level reduction of
  /// `part`'s state (fusion.block_reduce).
  void buildStateRegions(RowPart &part, Region &identity, Region &combiner);
  /// The same for the concatenated states of several parts.
  void buildStateRegions(ArrayRef<RowPart *> parts, Region &identity,
                         Region &combiner);
  /// The identity and combiner regions of any kernel-level reduction of a
  /// state of `types`: `neutral` gives the identity state, `combine` the
  /// combination of two states.
  void buildReductionRegions(
      Region &identity, Region &combiner, TypeRange types,
      function_ref<SmallVector<Value>()> neutral,
      function_ref<SmallVector<Value>(ValueRange, ValueRange)> combine);
  /// The `last` region of a fusion.grid_reduce (arguments: the folded
  /// state); the builder is left before its terminator.
  Block *beginLastRegion(GridReduceOp op);

  void foldSplits(SmallVector<RowPart> &parts, ArrayRef<RowState> states,
                  Value row, Value valid, Value tid, Value threadId,
                  Value threadsPerRow, Value lastFlag, Value lane, Value warp,
                  Value slot0, Value warpsPerRow, Value multiWarp,
                  function_ref<void(RowPart &, const RowState &)> finish);

  /// The body of an outer reduction (Note [Outer reduction lowering]).
  /// Extra parameters: the reduced row count R, the split count S and the
  /// rows per split; extra buffers: one workspace per reduction, then the
  /// counters.
  LogicalResult emitOuterReduction(gpu::GPUFuncOp func,
                                   const OuterKernelInfo &info, int64_t unroll);

  /// The tiled transpose variant of a pointwise kernel (Note [Tiled
  /// transpose]): inputs in `staged` are read along iteration dim `p` (their
  /// innermost dim) with the maps in `stagedMaps`.
  LogicalResult emitTransposeTiled(
      gpu::GPUFuncOp func, int64_t p, ArrayRef<unsigned> staged,
      const DenseMap<unsigned, SmallVector<int64_t>> &stagedMaps);

  /// Tile edge of the tiled transpose variant (16, 32 or 64).
  int64_t transposeTile = 64;
  /// f32 -> fp8 with the hardware's cvt (Note [Hardware fp8 conversion]).
  bool hardwareFp8 = false;

  /// Generates the yielded values of the work item `work` (a vector of
  /// the innermost dim, or one element).
  FailureOr<SmallVector<Gen>> generateItem(Value work, ArrayRef<Value> sizes,
                                           YieldOp yield);

  /// Outputs are contiguous with the iteration shape: item c starts at
  /// element c * vector.
  void storeItem(Value work, ArrayRef<Gen> values, YieldOp yield,
                 ArrayRef<Value> outputs);

  /// Inputs read with vector loads along their innermost dim (the
  /// vectorized variant's run-time guard needs their strides and alignment).
  llvm::SmallSetVector<unsigned, 4> vectorLoadedInputs;
  /// Ragged variants (Note [Ragged rows]): the inputs read with aligned
  /// vector loads (they walk every iteration dim, so a row's vectors start
  /// where the output's do) and those read with element-aligned ones.
  llvm::SmallSetVector<unsigned, 4> raggedAligned, raggedUnaligned;
  /// Every (input, input dim, iteration dim) read: the input's extent must
  /// equal the iteration extent or be 1 (a broadcast).
  llvm::SetVector<std::tuple<unsigned, int64_t, int64_t>> accesses;

private:
  /// What the phase writers share: the emitter, the gpu.func, the builder
  /// and the index arithmetic (in the variant's index type).
  class PhaseWriter {
  protected:
    PhaseWriter(KernelEmitter &e, gpu::GPUFuncOp func, OpBuilder &b)
        : e(e), func(func), b(b), loc(e.loc), ctx(func.getContext()),
          idx(e.indexType(ctx)), rank(e.rank) {}

    Value constIdx(int64_t x) { return e.constIdx(x); }
    /// To `index` (memref subscripts).
    Value toIndex(Value x) { return e.toIndex(x); }
    /// To the variant's index type (thread and block ids).
    Value toIdx(Value x) {
      return arith::IndexCastOp::create(b, loc, idx, x).getResult();
    }
    Value cmp(arith::CmpIPredicate pred, Value x, Value y) {
      return arith::CmpIOp::create(b, loc, pred, x, y).getResult();
    }
    Value andI(Value x, Value y) {
      return arith::AndIOp::create(b, loc, x, y).getResult();
    }
    Value add(Value x, Value y) {
      return arith::AddIOp::create(b, loc, x, y).getResult();
    }
    Value mul(Value x, Value y) {
      return arith::MulIOp::create(b, loc, x, y).getResult();
    }

    KernelEmitter &e;
    gpu::GPUFuncOp func;
    OpBuilder &b;
    Location loc;
    MLIRContext *ctx;
    Type idx;
    int64_t rank;
  };
  /// Write the bodies of emitRowKernel (InnerReductionKernel.cpp),
  /// emitOuterReduction (OuterReduction.cpp) and emitTransposeTiled
  /// (Transpose.cpp), one member function per phase.
  class RowKernelWriter;
  class OuterReductionWriter;
  class TransposeWriter;

  struct TensorParam {
    Value memref;
    SmallVector<Value> strides;
  };

  Type indexType(MLIRContext *ctx) {
    return IntegerType::get(ctx, variant.index64 ? 64 : 32);
  }
  MemRefType memrefType(RankedTensorType tensor) {
    return MemRefType::get({ShapedType::kDynamic},
                           storageType(tensor.getElementType()));
  }
  Value constIdx(int64_t v) {
    return arith::ConstantOp::create(
        *builder, loc, IntegerAttr::get(indexType(builder->getContext()), v));
  }
  Value toIndex(Value v) {
    return arith::IndexCastOp::create(*builder, loc, builder->getIndexType(),
                                      v);
  }
  VectorType vectorOf(Type element) {
    return VectorType::get({variant.vector}, element);
  }
  Value splat(Gen g) {
    if (g.isVector || variant.vector == 1)
      return g.value;
    return vector::BroadcastOp::create(*builder, loc,
                                       vectorOf(g.value.getType()), g.value);
  }

  /// Stores `gen` at `offset`; vector variants store the lanes of
  /// `laneMask` only when it is set.
  void store(Gen gen, Type element, Value memref, Value offset);

  Gen load(BlockArgument arg, ArrayRef<int64_t> map);
  /// Whether every lane of a lane mask is set, and whether any may be:
  /// scalar conditions, exact or erring towards the lane-wise path (Note
  /// [Whole vectors of shifted lanes]).
  std::pair<Value, Value> laneExtremes(Value mask);
  /// Whether `load(arg, map)` reads whole, aligned vectors of contiguous
  /// elements (no lane mask), so a stage copy can take it instead.
  bool loadsAlignedVectors(BlockArgument arg, ArrayRef<int64_t> map) const;
  /// Note [Async staged rows]: instead of `load(arg, map)`, copies the
  /// vector to byte `offset` of the dynamic shared memory with
  /// fusion.stage_copy (zeros where the load guard is false). Needs
  /// loadsAlignedVectors(arg, map).
  void stageCopy(BlockArgument arg, ArrayRef<int64_t> map, Value offset);
  /// `bytes` (i32) of `arg` from the current iteration index on, along its
  /// innermost dim, to byte `offset` of the dynamic shared memory in one
  /// bulk copy completing on barrier `barrier` of `barriers`
  /// (fusion.stage_bulk_copy). Needs loadsAlignedVectors(arg, map).
  void stageBulkCopy(BlockArgument arg, ArrayRef<int64_t> map, Value offset,
                     Value bytes, Value barriers, Value barrier);

  FailureOr<Gen> generate(Value value, ArrayRef<int64_t> map);

  LogicalResult generateOperandsFirst(Value value, ArrayRef<int64_t> map);

  /// Operand maps of the index-mapping ops; -1 marks a broadcast dim.
  static SmallVector<int64_t> broadcastMap(RankedTensorType operand,
                                           ArrayRef<int64_t> resultMap,
                                           ArrayRef<int64_t> dims);

  FailureOr<Gen> generateUncached(Value value, ArrayRef<int64_t> map);

  FailureOr<Gen> elementwise(Operation *op, ArrayRef<int64_t> map);

  Value floatConst(Type type, double v);
  Value intConst(Type type, int64_t v);
  Value zero(Type type);

  Value approxTanh(Value v);

  Value approxExp(Value v);
  Value approxDiv(Value x, Value y);

  /// One PTX instruction per lane on f32 scalars or vectors.
  Value approxF32(StringRef text, ArrayRef<Value> operands);

  /// A loaded value (scalar or vector) widened to a reduction's accumulator
  /// type `target` (of the same shape); fp8 is decoded from its bits (Note
  /// [fp8 on the GPU]).
  Value widenToAccumulator(Value x, Type target, bool isFloat);
  /// arith.extf, with vectors of bf16 pairs widened to f32 as bits (Note
  /// [bf16 pairs widened as bits]).
  Value extendFloat(Value v, Type target);

  /// An accumulator narrowed to a reduction's result type `target` (of the
  /// same shape); fp8 is encoded to its bits (Note [fp8 on the GPU]).
  Value narrowFromAccumulator(Value acc, Type target, bool isFloat);

  /// Element type -> the same shape as `like` (a vector or a scalar).
  static std::function<Type(Type)> shapedLike(Type like);

  Value emitCast(Value v, Type from, Type to, function_ref<Type(Type)> shaped);

  static bool isFp8(Type t) { return isa<Float8E4M3FNType, Float8E5M2Type>(t); }

  /// An fp8 format: e4m3fn has no inf and only all-ones as NaN; e5m2 is
  /// IEEE-like (the top exponent holds inf and NaN).
  struct Fp8Format {
    int mantBits, bias;
    bool hasInf;
    uint32_t maxFinite() const { return hasInf ? 0x7B : 0x7E; }
    uint32_t infOrNan() const { return hasInf ? 0x7C : 0x7F; }
    uint32_t nan() const { return hasInf ? 0x7E : 0x7F; }
  };
  static Fp8Format fp8Format(Type t);

  /// fp8 (scalar or vector) -> f32, exactly (see Note [fp8 on the GPU]).
  Value decodeFp8(Value v, Type from, function_ref<Type(Type)> shaped);

  /// f32 or f64 (scalar or vector) -> fp8, rounding to nearest even as the
  /// reference interpreter does (see Note [fp8 on the GPU]). Working on the
  /// source's own bits avoids rounding twice.
  Value encodeFp8(Value v, Type to, function_ref<Type(Type)> shaped);

  /// f32 (scalar or vector) -> fp8 with the hardware's cvt, two lanes per
  /// instruction, and the interpreter's results where the hardware
  /// saturates (Note [Hardware fp8 conversion]).
  Value encodeFp8Hardware(Value v, Type to, function_ref<Type(Type)> shaped);

  /// A cast from or to fp8: through f32 (f64 encodes directly), see Note
  /// [fp8 on the GPU].
  Value emitFp8Cast(Value v, Type from, Type to,
                    function_ref<Type(Type)> shaped);

  /// f32 (decoded fp8) -> integer: truncation toward zero that saturates
  /// (fp8 values reach 57344 and inf), NaN -> 0, as the interpreter does.
  Value emitFp8ToInt(Value v, Type to, function_ref<Type(Type)> shaped);

  /// A float (`fp`) or integer (`ip`) comparison of `l` and `r`.
  Value compare(bool isFloat, arith::CmpFPredicate fp, arith::CmpIPredicate ip,
                Value l, Value r);
  /// The op on operand values `v` (scalars or vectors of `element`; `type`
  /// is the result's scalar or vector type): binary and ternary ops here,
  /// the rest through emitUnaryOp.
  FailureOr<Value> emitOp(Operation *op, ArrayRef<Value> v, Type element,
                          Type type);
  FailureOr<Value> emitUnaryOp(Operation *op, ArrayRef<Value> v, Type element,
                               Type type);

  KernelOp kernel;
  Variant variant;
  RankedTensorType iterType;
  int64_t rank;
  OpBuilder *builder = nullptr;
  Location loc = UnknownLoc::get(kernel.getContext());
  /// The element offset of `arg` at the current iteration index through
  /// `map`, and the dim of `arg` the innermost iteration dim walks (-1:
  /// none); records the access for the run-time guards.
  Value elementOffset(BlockArgument arg, ArrayRef<int64_t> map,
                      int64_t &innerDim);
  DenseMap<Value, TensorParam> tensors;
  DenseMap<Value, Value> scalars;
  SmallVector<Value> iterIndex;
  /// Keyed by (value, index map, index context): Note [Index contexts].
  using Memo =
      std::map<std::tuple<void *, std::vector<int64_t>, unsigned>, Gen>;
  Memo memo;
  /// Results of the reductions computed so far for the current row.
  DenseMap<Value, Gen> reduced;
  /// When set, loads happen only where this i1 holds (zero otherwise).
  Value loadGuard;
  /// Note [Index contexts] (Indexing.cpp): the current context, its lanes
  /// (vector variants: lane j of the innermost iteration dim is at index
  /// `iterIndex[rank - 1] + j * laneStep`; `innerAligned` when lane 0's
  /// index is a multiple of the vector width), the lanes whose loads are
  /// valid (null: all) and the iteration dims whose index no longer walks
  /// the iteration extent (no size check applies to reads along them).
  unsigned contextId = 0, nextContextId = 1;
  int64_t laneStep = 1;
  bool innerAligned = true;
  Value laneMask;
  SmallVector<bool> shiftedDims;
  struct SavedContext {
    SmallVector<Value> iterIndex;
    SmallVector<bool> shiftedDims;
    unsigned contextId;
    int64_t laneStep;
    bool innerAligned;
    Value loadGuard, laneMask;
  };
  SavedContext enterContext();
  void leaveContext(SavedContext saved);
  bool isShifted(int64_t it) const {
    return it >= rank ||
           (it < static_cast<int64_t>(shiftedDims.size()) && shiftedDims[it]);
  }
  /// The index of tensor dim `d` under `map` (0 where it broadcasts).
  Value indexAt(ArrayRef<int64_t> map, int64_t d);
  /// Sets the index of operand dim `d` (result dim `d` under `map`) to
  /// `index` in the current context and records it in `operandMap`.
  void setOperandIndex(ArrayRef<int64_t> map, int64_t d, Value index,
                       SmallVectorImpl<int64_t> &operandMap);
  /// An index scalar of the kernel (a size operand) in the variant's index
  /// type.
  FailureOr<Value> indexScalar(Value v);
  /// Extent of `value` along `d`: a constant or an extent parameter.
  Value extentOf(Value value, int64_t d);
  /// The lanes' indices along the innermost iteration dim minus `shift`, as
  /// a vector of the index type.
  Value laneIndices(Value shift);
  Value andCond(Value x, Value y);
  /// `cond ? a : b` over Gens (cond: i1 or a vector of i1).
  Gen selectGen(Value cond, Gen a, Gen b);
  FailureOr<Gen> generateIndexing(Operation *op, ArrayRef<int64_t> map);
  FailureOr<Gen> generateSlice(SliceOp op, ArrayRef<int64_t> map);
  FailureOr<Gen> generatePad(PadOp op, ArrayRef<int64_t> map);
  FailureOr<Gen> generateCat(CatOp op, ArrayRef<int64_t> map);
  FailureOr<Gen> generateSelect(Operation *op, ArrayRef<int64_t> map);
  FailureOr<Gen> generateReshape(ReshapeOp op, ArrayRef<int64_t> map);
  FailureOr<Gen> generateIota(IotaOp op, ArrayRef<int64_t> map);
  /// What generateRandom produces: fusion.rand's values, fusion.randn's, or
  /// the Philox word of each element of fusion.rand (i32; Note [Random
  /// thresholds]).
  enum class RandomForm { Uniform, Normal, Word };
  FailureOr<Gen> generateRandom(Operation *op, ArrayRef<int64_t> map,
                                RandomForm form);
  /// Note [Random thresholds] (include/fusion/Support/RandomThreshold.h): a
  /// comparison of a fusion.rand result with a float constant, where every
  /// use of that result is such a comparison; generated as a test on the
  /// Philox words.
  static bool isRandomThreshold(Operation *op);
  FailureOr<Gen> generateRandomThreshold(Operation *op, ArrayRef<int64_t> map);
  /// Pointwise kernels: the row-major element offset of the current item's
  /// first element (null elsewhere), which fusion.rand's counter uses where
  /// its result walks the iteration space as is (Note [Random counters in
  /// pointwise kernels]).
  Value itemOffset;
  /// Pointwise kernels: the row-major element offset of work item `work`'s
  /// first element (the item times the vector width).
  Value firstElementOf(Value work);
  /// Philox-4x32-10 of counter block `block` (i64) for `seed` and `offset`
  /// (i64): four i32 words (docs/random.md).
  std::array<Value, 4> philox(Value block, Value seed, Value offset);
  /// Element `word` of a Philox block as the value of fusion.rand (or
  /// fusion.randn from a word pair), as f32 or f64.
  Value uniformOf(Value word, Type element);
  /// Tiled transpose: inputs whose element for the current item was staged
  /// in shared memory, with the map it was staged for.
  DenseMap<Value, std::pair<Gen, SmallVector<int64_t>>> stagedSlots;

public:
  /// Ops of the pointwise lowering that read their operands elsewhere than
  /// at the result's index (Indexing.cpp).
  static bool isIndexingOp(Operation *op);
  /// The extents those ops need at run time, in order: they are index
  /// parameters after the work count (static extents are constants), from
  /// extra parameter `extentBase` on (row kernels: after threads per row).
  static SmallVector<std::pair<Value, int64_t>> collectExtents(KernelOp kernel);
  SmallVector<std::pair<Value, int64_t>> extents;
  int64_t extentBase = 0;

  /// When set, load() records the (input, map) pairs it reads.
  bool recordLoads = false;
  SmallVector<std::pair<unsigned, SmallVector<int64_t>>> loadLog;
  /// Persistent row kernels: the (input, map) loads to prefetch one row
  /// ahead (Note [Row prefetch]).
  SmallVector<std::pair<unsigned, SmallVector<int64_t>>> prefetch;

public:
  /// Index parameters after the work count (inner reductions: threads per
  /// row) and their values in the gpu.func.
  int64_t numExtraParams = 0;
  SmallVector<Value> extraArgs;
  /// Element types of device buffers after the outputs (outer reductions:
  /// workspaces and counters) and their memrefs in the gpu.func.
  SmallVector<Type> extraBufferElements;
  SmallVector<Value> extraBuffers;
};

} // namespace mlir::fusion::lowering

#endif // FUSION_CONVERSION_FUSIONTOGPU_KERNELEMITTER_H
