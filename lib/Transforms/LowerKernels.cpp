//===- LowerKernels.cpp - scheduled kernels to gpu.func + host program ----===//
// Lowers every pointwise fusion.kernel to gpu.func variants (vectorized,
// scalar, 32/64-bit indices) and replaces it with the host program that
// allocates outputs, computes launch parameters and picks a variant.
//===----------------------------------------------------------------------===//

#include "fusion/Runtime/ModuleFormat.h"
#include "fusion/Transforms/Passes.h"
#include "fusion/Transforms/RowKernel.h"
#include "fusion/Transforms/ShapeReification.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/TypeSwitch.h"

#include <map>

namespace mlir::fusion {
#define GEN_PASS_DEF_FUSIONLOWERKERNELS
#include "fusion/Transforms/Passes.h.inc"
} // namespace mlir::fusion

using namespace mlir;
using namespace mlir::fusion;

namespace {

/// i1 tensors are stored one byte per element (as PyTorch's bool).
Type storageType(Type element) {
  if (element.isInteger(1))
    return IntegerType::get(element.getContext(), 8);
  return element;
}

int64_t storageBytes(Type element) {
  return std::max<int64_t>(1, storageType(element).getIntOrFloatBitWidth() / 8);
}

bool isHalfFloat(Type t) { return t.isF16() || t.isBF16(); }

/// The type reductions of `element` accumulate in: f32 for floats of 32 bits
/// or fewer, f64 for f64, i64 for integers.
Type accumulatorType(Type element) {
  MLIRContext *ctx = element.getContext();
  if (!isa<FloatType>(element))
    return IntegerType::get(ctx, 64);
  return element.isF64() ? Type(Float64Type::get(ctx))
                         : Type(Float32Type::get(ctx));
}

/// A generated value: a vector of the variant's width, or a scalar that is
/// uniform along the innermost iteration dim.
struct Gen {
  Value value;
  bool isVector = false;
};

/// One kernel variant: vector width and index width.
struct Variant {
  int64_t vector;
  bool index64;
  std::string name;
  int64_t unroll = 1;
  bool fastMath = false;
  /// Inner reductions: vectors per thread kept in registers (0: streaming).
  int64_t items = 0;
  /// Inner reductions: rows split over gridDim.y blocks (Note [Split rows]).
  bool split = false;
  /// Persistent inner reductions: the row's loaded values are kept in
  /// shared memory across passes (Note [Staged rows]), for blocks of up to
  /// `maxBlock` threads.
  bool stage = false;
  int64_t maxBlock = 0;
};

/// Staged rows: the most dynamic shared memory a block's staged row may
/// take (two such blocks fit an H100/H200 SM's 228 KB).
constexpr int64_t kMaxStageBytes = 96 * 1024;
/// The dynamic shared memory of a kernel (Note [Staged rows]).
constexpr llvm::StringLiteral kDynamicSmemSymbol = "fusion_dynamic_smem";

/// Emits the body of one gpu.func for one variant of a pointwise kernel.
class PointwiseEmitter {
public:
  PointwiseEmitter(KernelOp kernel, const Variant &variant,
                   RankedTensorType iterType)
      : kernel(kernel), variant(variant), iterType(iterType),
        rank(iterType.getRank()) {}

  const Variant &getVariant() const { return variant; }

  /// Kernel parameters: per tensor input a memref and its effective strides,
  /// per scalar input the scalar, per result a memref, then the iteration
  /// sizes and the number of work items.
  FunctionType signature(MLIRContext *ctx) {
    Type idx = indexType(ctx);
    SmallVector<Type> params;
    for (Value input : kernel.getInputs()) {
      if (auto tensor = dyn_cast<RankedTensorType>(input.getType())) {
        params.push_back(memrefType(tensor));
        params.append(tensor.getRank(), idx);
      } else if (input.getType().isIndex()) {
        params.push_back(idx);
      } else {
        params.push_back(input.getType());
      }
    }
    for (Type result : kernel.getResultTypes())
      params.push_back(memrefType(cast<RankedTensorType>(result)));
    for (Type element : extraBufferElements)
      params.push_back(MemRefType::get({ShapedType::kDynamic}, element));
    params.append(rank, idx);
    params.push_back(idx);
    params.append(numExtraParams, idx);
    return FunctionType::get(ctx, params, {});
  }

  /// Maps the kernel's inputs to the gpu.func's parameters (the layout
  /// `signature` describes) and returns the output memrefs, the iteration
  /// sizes and the work count.
  std::tuple<SmallVector<Value>, SmallVector<Value>, Value>
  bindParams(gpu::GPUFuncOp func) {
    auto args = func.getArguments();
    unsigned a = 0;
    Block &body = kernel.getBody().front();
    for (auto [input, blockArg] :
         llvm::zip(kernel.getInputs(), body.getArguments())) {
      if (auto tensor = dyn_cast<RankedTensorType>(input.getType())) {
        TensorParam param;
        param.memref = args[a++];
        for (int64_t d = 0; d < tensor.getRank(); ++d)
          param.strides.push_back(args[a++]);
        tensors[blockArg] = param;
      } else {
        scalars[blockArg] = args[a++];
      }
    }
    SmallVector<Value> outputs;
    for (unsigned i = 0; i < kernel.getNumResults(); ++i)
      outputs.push_back(args[a++]);
    extraBuffers.clear();
    for (size_t i = 0; i < extraBufferElements.size(); ++i)
      extraBuffers.push_back(args[a++]);
    SmallVector<Value> sizes;
    for (int64_t d = 0; d < rank; ++d)
      sizes.push_back(args[a++]);
    Value count = args[a++];
    extraArgs.clear();
    for (int64_t i = 0; i < numExtraParams; ++i)
      extraArgs.push_back(args[a++]);
    return {outputs, sizes, count};
  }

  LogicalResult emit(gpu::GPUFuncOp func) {
    MLIRContext *ctx = func.getContext();
    Location loc = kernel.getLoc();
    OpBuilder b = OpBuilder::atBlockBegin(&func.getBody().front());
    Type idx = indexType(ctx);
    Block &body = kernel.getBody().front();
    auto [outputs, sizes, count] = bindParams(func);

    auto toIdx = [&](Value v) {
      return arith::IndexCastOp::create(b, loc, idx, v).getResult();
    };
    Value threadId = toIdx(gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x));
    Value blockId = toIdx(gpu::BlockIdOp::create(b, loc, gpu::Dimension::x));
    Value blockDim = toIdx(gpu::BlockDimOp::create(b, loc, gpu::Dimension::x));
    Value gridDim = toIdx(gpu::GridDimOp::create(b, loc, gpu::Dimension::x));
    Value first = arith::AddIOp::create(
        b, loc, arith::MulIOp::create(b, loc, blockId, blockDim), threadId);
    Value step = arith::MulIOp::create(b, loc, gridDim, blockDim);
    builder = &b;
    this->loc = loc;
    auto yield = cast<YieldOp>(body.getTerminator());

    // Note [Unrolled pointwise loop]: each iteration of the main loop takes
    // `unroll` work items `step` apart and emits every load of every item
    // before the first store, so a thread has `unroll` times the bytes in
    // flight (stores could alias later loads, so the backend cannot hoist
    // loads above them itself). A remainder loop takes the last items one
    // at a time.
    int64_t unroll = std::max<int64_t>(1, variant.unroll);
    Value next = first;
    if (unroll > 1) {
      Value stepU = arith::MulIOp::create(b, loc, step, constIdx(unroll));
      // c is in the main loop while c + (unroll - 1) * step < count.
      Value bound = arith::MaxSIOp::create(
          b, loc,
          arith::SubIOp::create(
              b, loc, count,
              arith::MulIOp::create(b, loc, step, constIdx(unroll - 1))),
          constIdx(0));
      auto main = scf::ForOp::create(b, loc, first, bound, stepU);
      {
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPoint(main.getBody()->getTerminator());
        SmallVector<SmallVector<Gen>> values;
        SmallVector<Value> items;
        for (int64_t u = 0; u < unroll; ++u) {
          Value item = arith::AddIOp::create(
              b, loc, main.getInductionVar(),
              arith::MulIOp::create(b, loc, step, constIdx(u)));
          items.push_back(item);
          auto generated = generateItem(item, sizes, yield);
          if (failed(generated))
            return failure();
          values.push_back(*generated);
        }
        for (int64_t u = 0; u < unroll; ++u)
          storeItem(items[u], values[u], yield, outputs);
      }
      // The first item the main loop did not take.
      Value taken = arith::CeilDivSIOp::create(
          b, loc,
          arith::MaxSIOp::create(
              b, loc, arith::SubIOp::create(b, loc, bound, first), constIdx(0)),
          stepU);
      next = arith::AddIOp::create(b, loc, first,
                                   arith::MulIOp::create(b, loc, taken, stepU));
    }
    auto loop = scf::ForOp::create(b, loc, next, count, step);
    b.setInsertionPoint(loop.getBody()->getTerminator());
    auto generated = generateItem(loop.getInductionVar(), sizes, yield);
    if (failed(generated))
      return failure();
    storeItem(loop.getInductionVar(), *generated, yield, outputs);
    b.setInsertionPointToEnd(&func.getBody().front());
    gpu::ReturnOp::create(b, loc);
    return success();
  }

  /// The body of an inner-reduction kernel (Note [Inner reduction
  /// lowering]). `info` describes the reductions and results; the variant's
  /// `items` > 0 makes it persistent.
  LogicalResult emitRowKernel(gpu::GPUFuncOp func, const RowKernelInfo &info) {
    MLIRContext *ctx = func.getContext();
    Location loc = kernel.getLoc();
    OpBuilder b = OpBuilder::atBlockBegin(&func.getBody().front());
    builder = &b;
    this->loc = loc;
    Type idx = indexType(ctx);
    auto [outputs, sizes, rows] = bindParams(func);
    Value threadsPerRow = extraArgs[0];
    Block &body = kernel.getBody().front();
    auto yield = cast<YieldOp>(body.getTerminator());
    int64_t v = variant.vector;
    bool persistent = variant.items > 0;
    bool split = variant.split;
    int64_t itemsPerChunk = persistent ? variant.items : kStreamItems;
    if (split && (persistent || info.numPasses != 1 || info.hasFullResult()))
      return kernel.emitOpError("a split row variant needs one streaming "
                                "pass and per-row results only");

    // One part per accumulated state: a sum/prod/max/min (one value), a
    // var_mean (Welford: count, mean, centered sum of squares) or an online
    // max with its sum of exp(x - max) (max, sum).
    SmallVector<RowPart> parts;
    for (const RowReduction &r : info.reductions) {
      if (r.onlineMax)
        continue; // computed with its max
      Type element = cast<RankedTensorType>(r.op->getOperand(0).getType())
                         .getElementType();
      RowPart part;
      part.reduction = &r;
      part.isFloat = isa<FloatType>(element);
      part.acc = accumulatorType(element);
      part.kind = kindOf(r.op);
      part.state = isa<VarMeanOp>(r.op)            ? RowPart::Welford
                   : isa<ArgmaxOp, ArgminOp>(r.op) ? RowPart::Arg
                   : r.onlineSum                   ? RowPart::Online
                                                   : RowPart::Simple;
      for (size_t c = 0; c < part.width(); ++c)
        part.shared.push_back(func.addWorkgroupAttribution(
            MemRefType::get(
                {32}, part.componentType(c, ctx), MemRefLayoutAttrInterface(),
                gpu::AddressSpaceAttr::get(
                    ctx, gpu::GPUDialect::getWorkgroupAddressSpace())),
            loc));
      parts.push_back(part);
    }
    // Split rows: whether this block is its row's last (Note [Split rows]).
    Value lastFlag;
    if (split)
      lastFlag = func.addWorkgroupAttribution(
          MemRefType::get(
              {1}, b.getI32Type(), MemRefLayoutAttrInterface(),
              gpu::AddressSpaceAttr::get(
                  ctx, gpu::GPUDialect::getWorkgroupAddressSpace())),
          loc);

    auto toIdx = [&](Value x) {
      return arith::IndexCastOp::create(b, loc, idx, x).getResult();
    };
    auto cmp = [&](arith::CmpIPredicate p, Value x, Value y) {
      return arith::CmpIOp::create(b, loc, p, x, y).getResult();
    };
    auto andI = [&](Value x, Value y) {
      return arith::AndIOp::create(b, loc, x, y).getResult();
    };
    Value threadId = toIdx(gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x));
    Value blockId = toIdx(gpu::BlockIdOp::create(b, loc, gpu::Dimension::x));
    Value blockDim = toIdx(gpu::BlockDimOp::create(b, loc, gpu::Dimension::x));
    Value gridDim = toIdx(gpu::GridDimOp::create(b, loc, gpu::Dimension::x));
    Value tid = arith::RemUIOp::create(b, loc, threadId, threadsPerRow);
    Value ty = arith::DivUIOp::create(b, loc, threadId, threadsPerRow);
    Value rowsPerBlock =
        arith::DivUIOp::create(b, loc, blockDim, threadsPerRow);
    Value lane = arith::RemUIOp::create(b, loc, tid, constIdx(32));
    Value warp = arith::DivUIOp::create(b, loc, tid, constIdx(32));
    Value warpsPerRow =
        arith::DivUIOp::create(b, loc, threadsPerRow, constIdx(32));
    Value multiWarp =
        cmp(arith::CmpIPredicate::ugt, threadsPerRow, constIdx(32));
    Value slot0 = arith::MulIOp::create(b, loc, ty, warpsPerRow);
    Value rowLength = sizes[rank - 1];
    Value rowBlocks = arith::DivUIOp::create(
        b, loc,
        arith::AddIOp::create(
            b, loc, rows,
            arith::SubIOp::create(b, loc, rowsPerBlock, constIdx(1))),
        rowsPerBlock);

    SmallVector<int64_t> identity;
    for (int64_t d = 0; d < rank; ++d)
      identity.push_back(d);
    auto rowOf = [&](Value rowBlock) -> Value {
      return arith::AddIOp::create(
          b, loc, arith::MulIOp::create(b, loc, rowBlock, rowsPerBlock), ty);
    };
    auto setOuter = [&](Value r) {
      iterIndex.assign(rank, Value());
      Value rest = r;
      for (int64_t d = rank - 2; d >= 0; --d) {
        if (d == 0) {
          iterIndex[d] = rest;
        } else {
          iterIndex[d] = arith::RemUIOp::create(b, loc, rest, sizes[d]);
          rest = arith::DivUIOp::create(b, loc, rest, sizes[d]);
        }
      }
    };
    auto itemCol = [&](int64_t r) -> Value {
      return arith::MulIOp::create(
          b, loc,
          arith::AddIOp::create(
              b, loc, arith::MulIOp::create(b, loc, constIdx(r), threadsPerRow),
              tid),
          constIdx(v));
    };
    // Note [Row prefetch]: the persistent variant loads the row data of
    // its next row (the loads that depend on the row and the column) before
    // it reduces the current one, so a block keeps loads in flight across
    // its reductions; the values travel in the row loop's iter_args.
    Block &kernelBody = kernel.getBody().front();
    auto loadRow = [&](Value r) {
      SmallVector<Value> values;
      setOuter(r);
      Value rowOk = cmp(arith::CmpIPredicate::ult, r, rows);
      for (int64_t item = 0; item < (persistent ? itemsPerChunk : 0); ++item) {
        Value col = itemCol(item);
        iterIndex[rank - 1] = col;
        loadGuard = andI(rowOk, cmp(arith::CmpIPredicate::ult, col, rowLength));
        for (auto &[k, map] : prefetch) {
          memo.clear();
          values.push_back(load(kernelBody.getArgument(k), map).value);
        }
      }
      loadGuard = Value();
      memo.clear();
      return values;
    };
    SmallVector<Value> prefetched = loadRow(rowOf(blockId));
    auto rowLoop =
        scf::ForOp::create(b, loc, blockId, rowBlocks, gridDim, prefetched);
    if (prefetched.empty())
      b.setInsertionPoint(rowLoop.getBody()->getTerminator());
    else
      b.setInsertionPointToStart(rowLoop.getBody());
    SmallVector<Value> current(rowLoop.getRegionIterArgs().begin(),
                               rowLoop.getRegionIterArgs().end());
    // Note [Staged rows]: each thread stores its vectors of the current row
    // into its own slots of dynamic shared memory and reads them back in
    // every pass, so values derived from them are recomputed per pass
    // instead of held in registers across the row's reductions.
    // Note [Staged rows]: the accesses are volatile through a pointer cast
    // from an integer: the dynamic shared memory is an internal global that
    // nothing else can reach, so LLVM would otherwise forward the stored
    // registers to every load (and drop the stores).
    SmallVector<Value> stageBases; // byte offset of each prefetched input
    Value stagePtr;
    auto elementOf = [&](unsigned k) {
      return cast<RankedTensorType>(kernelBody.getArgument(k).getType())
          .getElementType();
    };
    int64_t bytesPerThread = 0;
    for (auto &entry : prefetch)
      bytesPerThread +=
          variant.items * v * storageBytes(elementOf(entry.first));
    bool stage = variant.stage && persistent && !current.empty() &&
                 bytesPerThread * variant.maxBlock <= kMaxStageBytes &&
                 llvm::none_of(prefetch, [&](auto &entry) {
                   return elementOf(entry.first).isInteger(1);
                 });
    auto stageAddress = [&](unsigned j, int64_t item) -> Value {
      // Byte offset: base_j + ((item * blockDim + threadId) * v) * bytes.
      Value slot = arith::MulIOp::create(
          b, loc,
          arith::AddIOp::create(
              b, loc, arith::MulIOp::create(b, loc, constIdx(item), blockDim),
              threadId),
          constIdx(v * storageBytes(elementOf(prefetch[j].first))));
      Value offset = arith::AddIOp::create(b, loc, stageBases[j], slot);
      return LLVM::GEPOp::create(b, loc, stagePtr.getType(), b.getI8Type(),
                                 stagePtr, ValueRange{offset});
    };
    auto stageAlign = [&](unsigned j) {
      return unsigned(v * storageBytes(elementOf(prefetch[j].first)));
    };
    if (stage) {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPoint(rowLoop);
      // The block's dynamic shared memory: an external zero-sized array
      // (PTX `.extern .shared`), declared once per gpu.module. An internal
      // one (what gpu.dynamic_shared_memory lowers to) is demoted by the
      // NVPTX backend to a one-byte static array in the function, which the
      // staged slots would then overrun.
      auto gpuModule = func->getParentOfType<gpu::GPUModuleOp>();
      auto sharedPtr = LLVM::LLVMPointerType::get(
          ctx, static_cast<unsigned>(NVVM::NVVMMemorySpace::Shared));
      if (!SymbolTable::lookupSymbolIn(gpuModule, kDynamicSmemSymbol)) {
        OpBuilder mb = OpBuilder::atBlockBegin(gpuModule.getBody());
        LLVM::GlobalOp::create(
            mb, loc, LLVM::LLVMArrayType::get(b.getI8Type(), 0),
            /*isConstant=*/false, LLVM::Linkage::External, kDynamicSmemSymbol,
            Attribute(), /*alignment=*/16,
            static_cast<unsigned>(NVVM::NVVMMemorySpace::Shared));
      }
      stagePtr =
          LLVM::AddressOfOp::create(b, loc, sharedPtr, kDynamicSmemSymbol);
      Value count =
          arith::MulIOp::create(b, loc, blockDim, constIdx(variant.items * v));
      Value offset = constIdx(0);
      for (auto &entry : prefetch) {
        int64_t bytes = storageBytes(elementOf(entry.first));
        stageBases.push_back(offset);
        offset = arith::AddIOp::create(
            b, loc, offset,
            arith::MulIOp::create(b, loc, count, constIdx(bytes)));
      }
      func->setAttr("fusion.stage_bytes_per_thread",
                    b.getI64IntegerAttr(bytesPerThread));
    }
    SmallVector<Value> next;
    if (!prefetched.empty())
      next = loadRow(rowOf(
          arith::AddIOp::create(b, loc, rowLoop.getInductionVar(), gridDim)));
    Value row = rowOf(rowLoop.getInductionVar());
    Value valid = cmp(arith::CmpIPredicate::ult, row, rows);
    setOuter(row);
    reduced.clear();
    if (stage) {
      for (int64_t item = 0; item < variant.items; ++item)
        for (unsigned j = 0; j < prefetch.size(); ++j) {
          Value x = current[item * prefetch.size() + j];
          LLVM::StoreOp::create(b, loc, x, stageAddress(j, item), stageAlign(j),
                                /*isVolatile=*/true);
        }
    }

    // Items: the vectors of one chunk of the row a thread takes.
    struct Item {
      Value col, inBounds;
      Memo memo;
      int64_t index = -1; // persistent: the item's prefetched values
    };
    auto makeItems = [&](Value chunkBase) {
      std::vector<Item> items(itemsPerChunk);
      for (int64_t r = 0; r < itemsPerChunk; ++r) {
        Value col = arith::MulIOp::create(
            b, loc,
            arith::AddIOp::create(
                b, loc,
                arith::MulIOp::create(b, loc, constIdx(r), threadsPerRow), tid),
            constIdx(v));
        if (chunkBase)
          col = arith::AddIOp::create(b, loc, chunkBase, col);
        items[r].col = col;
        items[r].index = chunkBase ? -1 : r;
        items[r].inBounds =
            andI(valid, cmp(arith::CmpIPredicate::ult, col, rowLength));
      }
      return items;
    };
    auto activate = [&](Item &item) {
      iterIndex[rank - 1] = item.col;
      loadGuard = item.inBounds;
      std::swap(memo, item.memo);
      if (item.index >= 0 && !current.empty())
        for (auto [j, entry] : llvm::enumerate(prefetch)) {
          Value x = current[item.index * prefetch.size() + j];
          if (stage)
            x = LLVM::LoadOp::create(b, loc, x.getType(),
                                     stageAddress(j, item.index), stageAlign(j),
                                     /*isVolatile=*/true);
          stagedSlots[kernelBody.getArgument(entry.first)] = {
              Gen{x, isa<VectorType>(x.getType())}, entry.second};
        }
    };
    auto deactivate = [&](Item &item) {
      std::swap(memo, item.memo);
      loadGuard = Value();
      stagedSlots.clear();
    };

    // A thread's state of a part over some items (a chunk or all of them).
    auto localState = [&](RowPart &part,
                          std::vector<Item> &items) -> FailureOr<RowState> {
      Type target = v > 1 ? Type(VectorType::get({v}, part.acc)) : part.acc;
      auto gather = [&](SmallVector<Value> &xs) -> LogicalResult {
        for (Item &item : items) {
          activate(item);
          FailureOr<Gen> gen =
              generate(part.reduction->op->getOperand(0), identity);
          deactivate(item);
          if (failed(gen))
            return failure();
          Value x = v > 1 ? splat(*gen) : gen->value;
          if (x.getType() != target)
            x = widenToAccumulator(x, target, part.isFloat);
          xs.push_back(x);
        }
        return success();
      };
      SmallVector<Value> xs;
      if (failed(gather(xs)))
        return failure();
      auto masked = [&](Item &item, Value x, Value fill) {
        return arith::SelectOp::create(b, loc, item.inBounds, x, fill)
            .getResult();
      };
      auto fold = [&](RedKind kind, function_ref<Value(size_t)> value) {
        Value acc = neutral(kind, part.isFloat, target);
        for (size_t i = 0; i < items.size(); ++i)
          acc = combine(
              kind, part.isFloat, acc,
              masked(items[i], value(i), neutral(kind, part.isFloat, target)));
        if (v > 1)
          acc = vector::ReductionOp::create(
              b, loc, combiningKind(kind, part.isFloat), acc);
        return acc;
      };
      auto splatAcc = [&](Value scalar) -> Value {
        return v > 1 ? vector::BroadcastOp::create(b, loc, target, scalar)
                           .getResult()
                     : scalar;
      };
      switch (part.state) {
      case RowPart::Simple:
        return RowState{fold(part.kind, [&](size_t i) { return xs[i]; })};
      case RowPart::Welford: {
        // Count, mean and centered sum of squares of the thread's elements
        // (two passes over its registers), merged across threads later.
        Value n = floatConst(part.acc, 0);
        for (Item &item : items)
          n = arith::AddFOp::create(
              b, loc, n,
              arith::SelectOp::create(b, loc, item.inBounds,
                                      floatConst(part.acc, v),
                                      floatConst(part.acc, 0)));
        Value sum = fold(RedKind::Sum, [&](size_t i) { return xs[i]; });
        Value mean = arith::DivFOp::create(
            b, loc, sum,
            arith::MaximumFOp::create(b, loc, n, floatConst(part.acc, 1)));
        Value meanV = splatAcc(mean);
        // Staged rows read the elements again for the second sweep rather
        // than keep them in registers across it (Note [Staged rows]).
        if (stage && items.front().index >= 0) {
          for (Item &item : items)
            item.memo.clear();
          xs.clear();
          if (failed(gather(xs)))
            return failure();
        }
        Value m2 = fold(RedKind::Sum, [&](size_t i) -> Value {
          Value d = arith::SubFOp::create(b, loc, xs[i], meanV);
          return arith::MulFOp::create(b, loc, d, d);
        });
        return RowState{n, mean, m2};
      }
      case RowPart::Arg: {
        // Each element with its column (Note [Arg reductions]).
        RowState best = neutralState(part);
        Type i64 = b.getI64Type();
        for (auto [i, item] : llvm::enumerate(items)) {
          for (int64_t j = 0; j < v; ++j) {
            Value x =
                v > 1 ? vector::ExtractOp::create(b, loc, xs[i], j).getResult()
                      : xs[i];
            Value col = arith::AddIOp::create(b, loc, item.col, constIdx(j));
            Value index =
                col.getType() == i64
                    ? col
                    : arith::ExtUIOp::create(b, loc, i64, col).getResult();
            RowState merged = combineArg(part, best, {x, index});
            best = {arith::SelectOp::create(b, loc, item.inBounds, merged[0],
                                            best[0]),
                    arith::SelectOp::create(b, loc, item.inBounds, merged[1],
                                            best[1])};
          }
        }
        return best;
      }
      case RowPart::Online: {
        Value m = fold(RedKind::Max, [&](size_t i) { return xs[i]; });
        Value mV = splatAcc(m);
        Value sum = fold(RedKind::Sum, [&](size_t i) -> Value {
          return expOf(arith::SubFOp::create(b, loc, xs[i], mV));
        });
        return RowState{m, sum};
      }
      }
      return failure();
    };
    // Records a part's results from its state folded over the row.
    auto finish = [&](RowPart &part, const RowState &state) {
      auto setResult = [&](Value result, Value acc) {
        Type element =
            cast<RankedTensorType>(result.getType()).getElementType();
        Value r = acc;
        if (element != acc.getType())
          r = narrowFromAccumulator(acc, element, part.isFloat);
        reduced[result] = Gen{r, false};
      };
      Operation *op = part.reduction->op;
      switch (part.state) {
      case RowPart::Simple:
        setResult(op->getResult(0), state[0]);
        return;
      case RowPart::Welford: {
        auto varMean = cast<VarMeanOp>(op);
        Value dof = arith::MaxSIOp::create(
            b, loc,
            arith::SubIOp::create(b, loc, rowLength,
                                  constIdx(varMean.getCorrection())),
            constIdx(0));
        Value var = arith::DivFOp::create(
            b, loc, state[2], arith::SIToFPOp::create(b, loc, part.acc, dof));
        // An empty row's mean is NaN, as 0 / 0 (the state keeps 0).
        Value empty = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                            rowLength, constIdx(0));
        Value mean = arith::SelectOp::create(
            b, loc, empty,
            floatConst(part.acc, std::numeric_limits<double>::quiet_NaN()),
            state[1]);
        setResult(varMean.getMean(), mean);
        setResult(varMean.getVariance(), var);
        return;
      }
      case RowPart::Online:
        setResult(op->getResult(0), state[0]);
        setResult(part.reduction->onlineSum->getResult(0), state[1]);
        return;
      case RowPart::Arg:
        setResult(op->getResult(0), state[1]);
        return;
      }
    };
    SmallVector<RowState> splitStates; // split rows: each part's block state
    auto reduceRow = [&](RowPart &part, const RowState &state) {
      finish(part, blockReduceState(part, state, lane, warp, slot0, warpsPerRow,
                                    multiWarp));
    };

    SmallVector<Value> fullOutputs, rowOutputs;
    SmallVector<Value> fullValues, rowValues;
    for (auto [i, value] : llvm::enumerate(yield.getOperands())) {
      (info.fullResult[i] ? fullOutputs : rowOutputs).push_back(outputs[i]);
      (info.fullResult[i] ? fullValues : rowValues).push_back(value);
    }
    auto storeFull = [&](Item &item) -> LogicalResult {
      activate(item);
      SmallVector<Gen> gens;
      for (Value value : fullValues) {
        FailureOr<Gen> gen = generate(value, identity);
        if (failed(gen)) {
          deactivate(item);
          return failure();
        }
        gens.push_back(*gen);
      }
      deactivate(item);
      auto ifIn = scf::IfOp::create(b, loc, item.inBounds, false);
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPoint(ifIn.thenBlock()->getTerminator());
      Value offset = arith::AddIOp::create(
          b, loc, arith::MulIOp::create(b, loc, row, rowLength), item.col);
      for (auto [gen, value, out] : llvm::zip(gens, fullValues, fullOutputs))
        store(gen, cast<RankedTensorType>(value.getType()).getElementType(),
              out, offset);
      return success();
    };

    if (persistent) {
      // Note [Persistent rows]: each item keeps its memo across passes, so
      // loads and the work before the reductions are emitted once and the
      // values stay in registers until the epilogue.
      std::vector<Item> items = makeItems(Value());
      // Staged rows recompute from shared memory in every pass (Note
      // [Staged rows]).
      auto prune = [&]() {
        if (stage)
          for (Item &item : items)
            item.memo.clear();
      };
      for (int64_t pass = 0; pass < info.numPasses; ++pass) {
        if (pass > 0)
          prune();
        for (RowPart &part : parts) {
          if (part.reduction->pass != pass)
            continue;
          FailureOr<RowState> state = localState(part, items);
          if (failed(state))
            return failure();
          reduceRow(part, *state);
        }
      }
      prune();
      for (Item &item : items)
        if (failed(storeFull(item)))
          return failure();
    } else {
      // Streaming: one loop over the row per pass, chunks of
      // `itemsPerChunk` vectors per thread, each chunk's state merged into
      // the running one.
      Value chunk = arith::MulIOp::create(b, loc, threadsPerRow,
                                          constIdx(v * itemsPerChunk));
      Value begin = constIdx(0);
      Value end =
          arith::SelectOp::create(b, loc, valid, rowLength, constIdx(0));
      if (split) {
        // Block y of gridDim.y takes a span of whole chunks of the row.
        Value splitId =
            toIdx(gpu::BlockIdOp::create(b, loc, gpu::Dimension::y));
        Value splits = toIdx(gpu::GridDimOp::create(b, loc, gpu::Dimension::y));
        auto ceilDiv = [&](Value x, Value y) -> Value {
          return arith::DivUIOp::create(
              b, loc,
              arith::AddIOp::create(
                  b, loc, x, arith::SubIOp::create(b, loc, y, constIdx(1))),
              y);
        };
        Value span = arith::MulIOp::create(
            b, loc, ceilDiv(ceilDiv(rowLength, splits), chunk), chunk);
        begin = arith::MulIOp::create(b, loc, splitId, span);
        end = arith::MinUIOp::create(
            b, loc, end, arith::AddIOp::create(b, loc, begin, span));
      }
      for (int64_t pass = 0; pass < info.numPasses; ++pass) {
        SmallVector<RowPart *> passParts;
        SmallVector<Value> inits;
        for (RowPart &part : parts) {
          if (part.reduction->pass != pass)
            continue;
          passParts.push_back(&part);
          RowState init = neutralState(part);
          inits.append(init.begin(), init.end());
        }
        auto loop = scf::ForOp::create(b, loc, begin, end, chunk, inits);
        {
          OpBuilder::InsertionGuard guard(b);
          b.setInsertionPointToStart(loop.getBody());
          std::vector<Item> items = makeItems(loop.getInductionVar());
          SmallVector<Value> next;
          unsigned at = 0;
          for (RowPart *part : passParts) {
            RowState old(loop.getRegionIterArgs().begin() + at,
                         loop.getRegionIterArgs().begin() + at + part->width());
            at += part->width();
            FailureOr<RowState> local = localState(*part, items);
            if (failed(local))
              return failure();
            RowState merged = combineState(*part, old, *local);
            next.append(merged.begin(), merged.end());
          }
          scf::YieldOp::create(b, loc, next);
        }
        unsigned at = 0;
        for (RowPart *part : passParts) {
          RowState state(loop.getResults().begin() + at,
                         loop.getResults().begin() + at + part->width());
          at += part->width();
          if (split)
            splitStates.push_back(blockReduceState(
                *part, state, lane, warp, slot0, warpsPerRow, multiWarp));
          else
            reduceRow(*part, state);
        }
      }
      if (split)
        foldSplits(parts, splitStates, row, valid, tid, threadId, threadsPerRow,
                   lastFlag, lane, warp, slot0, warpsPerRow, multiWarp, finish);
      if (!fullValues.empty()) {
        auto loop = scf::ForOp::create(b, loc, constIdx(0), end, chunk);
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPoint(loop.getBody()->getTerminator());
        std::vector<Item> items = makeItems(loop.getInductionVar());
        for (Item &item : items)
          if (failed(storeFull(item)))
            return failure();
      }
    }

    // Per-row results: computed by every thread, written by the row's first.
    if (!rowValues.empty()) {
      memo.clear();
      iterIndex[rank - 1] = constIdx(0);
      loadGuard = valid;
      SmallVector<Gen> gens;
      for (Value value : rowValues) {
        auto type = cast<RankedTensorType>(value.getType());
        FailureOr<Gen> gen = generate(
            value, ArrayRef<int64_t>(identity).take_front(type.getRank()));
        if (failed(gen))
          return failure();
        gens.push_back(*gen);
      }
      loadGuard = Value();
      Value first =
          andI(valid, cmp(arith::CmpIPredicate::eq, tid, constIdx(0)));
      auto ifFirst = scf::IfOp::create(b, loc, first, false);
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPoint(ifFirst.thenBlock()->getTerminator());
      for (auto [gen, value, out] : llvm::zip(gens, rowValues, rowOutputs)) {
        Type element = cast<RankedTensorType>(value.getType()).getElementType();
        Value x = gen.value;
        if (element.isInteger(1))
          x = arith::ExtUIOp::create(b, loc, b.getI8Type(), x);
        memref::StoreOp::create(b, loc, x, out, toIndex(row));
      }
    }
    if (!prefetched.empty()) {
      b.setInsertionPointToEnd(rowLoop.getBody());
      scf::YieldOp::create(b, loc, next);
    }
    b.setInsertionPointToEnd(&func.getBody().front());
    gpu::ReturnOp::create(b, loc);
    return success();
  }

  /// Streaming variants take this many vectors per thread and chunk.
  static constexpr int64_t kStreamItems = 4;

  enum class RedKind { Sum, Prod, Max, Min };

  /// How a sum/prod/max/min (var_mean: its sums) combines values.
  static RedKind kindOf(Operation *op) {
    return isa<SumOp, VarMeanOp>(op)  ? RedKind::Sum
           : isa<ProdOp>(op)          ? RedKind::Prod
           : isa<MaxOp, ArgmaxOp>(op) ? RedKind::Max
                                      : RedKind::Min;
  }

  Value neutral(RedKind kind, bool isFloat, Type type) {
    double inf = std::numeric_limits<double>::infinity();
    switch (kind) {
    case RedKind::Sum:
      return isFloat ? floatConst(type, 0) : intConst(type, 0);
    case RedKind::Prod:
      return isFloat ? floatConst(type, 1) : intConst(type, 1);
    case RedKind::Max:
      return isFloat ? floatConst(type, -inf)
                     : intConst(type, std::numeric_limits<int64_t>::min());
    case RedKind::Min:
      return isFloat ? floatConst(type, inf)
                     : intConst(type, std::numeric_limits<int64_t>::max());
    }
    return Value();
  }

  Value combine(RedKind kind, bool isFloat, Value x, Value y) {
    OpBuilder &b = *builder;
    switch (kind) {
    case RedKind::Sum:
      return isFloat ? arith::AddFOp::create(b, loc, x, y).getResult()
                     : arith::AddIOp::create(b, loc, x, y).getResult();
    case RedKind::Prod:
      return isFloat ? arith::MulFOp::create(b, loc, x, y).getResult()
                     : arith::MulIOp::create(b, loc, x, y).getResult();
    case RedKind::Max:
      return isFloat ? arith::MaximumFOp::create(b, loc, x, y).getResult()
                     : arith::MaxSIOp::create(b, loc, x, y).getResult();
    case RedKind::Min:
      return isFloat ? arith::MinimumFOp::create(b, loc, x, y).getResult()
                     : arith::MinSIOp::create(b, loc, x, y).getResult();
    }
    return Value();
  }

  static vector::CombiningKind combiningKind(RedKind kind, bool isFloat) {
    switch (kind) {
    case RedKind::Sum:
      return vector::CombiningKind::ADD;
    case RedKind::Prod:
      return vector::CombiningKind::MUL;
    case RedKind::Max:
      return isFloat ? vector::CombiningKind::MAXIMUMF
                     : vector::CombiningKind::MAXSI;
    case RedKind::Min:
      return isFloat ? vector::CombiningKind::MINIMUMF
                     : vector::CombiningKind::MINSI;
    }
    return vector::CombiningKind::ADD;
  }

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
    size_t width() const {
      return state == Simple ? 1 : state == Welford ? 3 : 2;
    }
    /// The type of state component `c`: the accumulator, except an arg
    /// reduction's index (i64).
    Type componentType(size_t c, MLIRContext *ctx) const {
      return state == Arg && c == 1 ? Type(IntegerType::get(ctx, 64)) : acc;
    }
  };
  using RowState = SmallVector<Value, 3>;

  RowState neutralState(RowPart &part) {
    switch (part.state) {
    case RowPart::Simple:
      return {neutral(part.kind, part.isFloat, part.acc)};
    case RowPart::Welford:
      return {floatConst(part.acc, 0), floatConst(part.acc, 0),
              floatConst(part.acc, 0)};
    case RowPart::Online:
      return {floatConst(part.acc, -std::numeric_limits<double>::infinity()),
              floatConst(part.acc, 0)};
    case RowPart::Arg:
      return {
          neutral(part.kind, part.isFloat, part.acc),
          intConst(builder->getI64Type(), std::numeric_limits<int64_t>::max())};
    }
    return {};
  }

  // Note [Arg reductions]: an argmax/argmin state is (value, index), the
  // neutral one (-inf or +inf, INT64_MAX). `x` replaces `a` when it is the
  // better extreme, or equal with a smaller index (the first occurrence
  // wins, so the merge order does not matter); a NaN beats any number and
  // the first NaN wins, as in PyTorch.
  RowState combineArg(RowPart &part, const RowState &a, const RowState &x) {
    OpBuilder &b = *builder;
    auto andI = [&](Value p, Value q) -> Value {
      return arith::AndIOp::create(b, loc, p, q);
    };
    auto orI = [&](Value p, Value q) -> Value {
      return arith::OrIOp::create(b, loc, p, q);
    };
    Value earlier =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, x[1], a[1]);
    Value take;
    if (part.isFloat) {
      bool isMax = part.kind == RedKind::Max;
      Value better = arith::CmpFOp::create(
          b, loc, isMax ? arith::CmpFPredicate::OGT : arith::CmpFPredicate::OLT,
          x[0], a[0]);
      Value equal =
          arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, x[0], a[0]);
      Value xNaN =
          arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, x[0], x[0]);
      Value aNaN =
          arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, a[0], a[0]);
      Value aNumber = arith::XOrIOp::create(
          b, loc, aNaN, arith::ConstantIntOp::create(b, loc, 1, 1));
      // x NaN: take it unless a is a NaN seen earlier; x a number: take it
      // when a is a number and x is better, or equal and earlier.
      Value takeNaN = andI(xNaN, orI(aNumber, earlier));
      Value takeNumber = andI(aNumber, orI(better, andI(equal, earlier)));
      take = orI(takeNaN, takeNumber);
    } else {
      bool isMax = part.kind == RedKind::Max;
      Value better = arith::CmpIOp::create(
          b, loc, isMax ? arith::CmpIPredicate::sgt : arith::CmpIPredicate::slt,
          x[0], a[0]);
      Value equal =
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, x[0], a[0]);
      take = orI(better, andI(equal, earlier));
    }
    return {arith::SelectOp::create(b, loc, take, x[0], a[0]),
            arith::SelectOp::create(b, loc, take, x[1], a[1])};
  }

  /// exp as the kernel computes it (Note [Approximate exp and division]).
  Value expOf(Value x) {
    if (variant.fastMath && getElementTypeOrSelf(x.getType()).isF32())
      return approxExp(x);
    return math::ExpOp::create(*builder, loc, x);
  }

  // Note [Merging row states]: Welford states merge with Chan et al.'s
  // formula (n = na + nb, mean = ma + d * nb / n, m2 = m2a + m2b +
  // d^2 * na * nb / n with d = mb - ma; empty states stay zero); online
  // softmax states (m, s) merge as m = max(ma, mb), s = sa * exp(ma - m) +
  // sb * exp(mb - m), where a side whose max is -inf (no elements)
  // contributes 0. NaN propagates through max and the products.
  RowState combineState(RowPart &part, const RowState &a, const RowState &x) {
    OpBuilder &b = *builder;
    switch (part.state) {
    case RowPart::Arg:
      return combineArg(part, a, x);
    case RowPart::Simple:
      return {combine(part.kind, part.isFloat, a[0], x[0])};
    case RowPart::Welford: {
      Value n = arith::AddFOp::create(b, loc, a[0], x[0]);
      Value w = arith::DivFOp::create(
          b, loc, x[0],
          arith::MaximumFOp::create(b, loc, n, floatConst(part.acc, 1)));
      Value d = arith::SubFOp::create(b, loc, x[1], a[1]);
      Value mean = arith::AddFOp::create(b, loc, a[1],
                                         arith::MulFOp::create(b, loc, d, w));
      Value m2 = arith::AddFOp::create(
          b, loc, arith::AddFOp::create(b, loc, a[2], x[2]),
          arith::MulFOp::create(b, loc, arith::MulFOp::create(b, loc, d, d),
                                arith::MulFOp::create(b, loc, a[0], w)));
      return {n, mean, m2};
    }
    case RowPart::Online: {
      Value m = arith::MaximumFOp::create(b, loc, a[0], x[0]);
      Value minusInf =
          floatConst(part.acc, -std::numeric_limits<double>::infinity());
      auto scaled = [&](Value mi, Value si) -> Value {
        Value e = expOf(arith::SubFOp::create(b, loc, mi, m));
        Value none = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ,
                                           mi, minusInf);
        return arith::SelectOp::create(b, loc, none, floatConst(part.acc, 0),
                                       arith::MulFOp::create(b, loc, si, e));
      };
      return {m, arith::AddFOp::create(b, loc, scaled(a[0], a[1]),
                                       scaled(x[0], x[1]))};
    }
    }
    return {};
  }

  /// Folds a state across the threads of a row: xor-shuffles within the
  /// warp; when a row has several warps, their states meet in shared
  /// memory (slots `slot0 .. slot0 + warps`) and every thread folds them, so
  /// all threads of the row get the row's state.
  RowState blockReduceState(RowPart &part, RowState x, Value lane, Value warp,
                            Value slot0, Value warpsPerRow, Value multiWarp) {
    OpBuilder &b = *builder;
    for (int64_t offset = 16; offset >= 1; offset /= 2) {
      RowState other;
      for (Value c : x)
        other.push_back(gpu::ShuffleOp::create(b, loc, c,
                                               static_cast<int32_t>(offset), 32,
                                               gpu::ShuffleMode::XOR)
                            .getShuffleResult());
      x = combineState(part, x, other);
    }
    SmallVector<Type> types;
    for (Value c : x)
      types.push_back(c.getType());
    auto ifMulti = scf::IfOp::create(b, loc, types, multiWarp,
                                     /*withElseRegion=*/true);
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(ifMulti.thenBlock());
      Value isLane0 = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                            lane, constIdx(0));
      auto write = scf::IfOp::create(b, loc, isLane0, false);
      {
        OpBuilder::InsertionGuard g2(b);
        b.setInsertionPoint(write.thenBlock()->getTerminator());
        Value at = toIndex(arith::AddIOp::create(b, loc, slot0, warp));
        for (auto [c, shared] : llvm::zip(x, part.shared))
          memref::StoreOp::create(b, loc, c, shared, at);
      }
      gpu::BarrierOp::create(b, loc);
      RowState init = neutralState(part);
      auto fold = scf::ForOp::create(b, loc, constIdx(0), warpsPerRow,
                                     constIdx(1), ValueRange(init));
      {
        OpBuilder::InsertionGuard g2(b);
        b.setInsertionPointToStart(fold.getBody());
        Value at = toIndex(
            arith::AddIOp::create(b, loc, slot0, fold.getInductionVar()));
        RowState loaded;
        for (Value shared : part.shared)
          loaded.push_back(memref::LoadOp::create(b, loc, shared, at));
        RowState acc(fold.getRegionIterArgs().begin(),
                     fold.getRegionIterArgs().end());
        scf::YieldOp::create(b, loc,
                             ValueRange(combineState(part, acc, loaded)));
      }
      // The slots are reused by the next reduction.
      gpu::BarrierOp::create(b, loc);
      scf::YieldOp::create(b, loc, fold.getResults());
    }
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(ifMulti.elseBlock());
      scf::YieldOp::create(b, loc, ValueRange(x));
    }
    return RowState(ifMulti.getResults().begin(), ifMulti.getResults().end());
  }

  // Note [Split rows]: with few long rows and per-row results only (one
  // pass), a row is split over gridDim.y blocks of T = blockDim threads:
  // block y streams a span of whole chunks, reduces it across the block,
  // and thread 0 writes the state to the workspaces (one buffer per state
  // component, slot row * S + y). Then, as in Note [Grid reduction], a
  // fence and a per-row counter: the block that completes the count folds
  // the S states (each thread a strided share, then across the block),
  // resets the counter for the next launch, and computes and writes the
  // row's results. Extra buffers: the workspaces of every part's
  // components in order, then the counters (zeroed by the runtime).
  void foldSplits(SmallVector<RowPart> &parts, ArrayRef<RowState> states,
                  Value row, Value valid, Value tid, Value threadId,
                  Value threadsPerRow, Value lastFlag, Value lane, Value warp,
                  Value slot0, Value warpsPerRow, Value multiWarp,
                  function_ref<void(RowPart &, const RowState &)> finish) {
    OpBuilder &b = *builder;
    Type idx = indexType(b.getContext());
    auto toIdx = [&](Value x) {
      return arith::IndexCastOp::create(b, loc, idx, x).getResult();
    };
    auto cmp = [&](arith::CmpIPredicate p, Value x, Value y) {
      return arith::CmpIOp::create(b, loc, p, x, y).getResult();
    };
    Value splitId = toIdx(gpu::BlockIdOp::create(b, loc, gpu::Dimension::y));
    Value splits = toIdx(gpu::GridDimOp::create(b, loc, gpu::Dimension::y));
    Value counters = extraBuffers.back();
    Value rowBase = arith::MulIOp::create(b, loc, row, splits);
    {
      Value writer = arith::AndIOp::create(
          b, loc, valid, cmp(arith::CmpIPredicate::eq, tid, constIdx(0)));
      auto ifWriter = scf::IfOp::create(b, loc, writer, false);
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPoint(ifWriter.thenBlock()->getTerminator());
      Value at = toIndex(arith::AddIOp::create(b, loc, rowBase, splitId));
      unsigned k = 0;
      for (const RowState &state : states)
        for (Value c : state)
          memref::StoreOp::create(b, loc, c, extraBuffers[k++], at);
    }
    fence();
    gpu::BarrierOp::create(b, loc);
    Value zero32 = arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(0));
    countBlockIn(arith::AndIOp::create(
                     b, loc, valid,
                     cmp(arith::CmpIPredicate::eq, threadId, constIdx(0))),
                 counters, row, splits, lastFlag);
    gpu::BarrierOp::create(b, loc);
    Value last = arith::AndIOp::create(
        b, loc, valid,
        arith::CmpIOp::create(
            b, loc, arith::CmpIPredicate::ne,
            memref::LoadOp::create(b, loc, lastFlag, toIndex(constIdx(0))),
            zero32));
    auto ifLast = scf::IfOp::create(b, loc, last, false);
    // The caller's per-row results follow inside this region.
    b.setInsertionPoint(ifLast.thenBlock()->getTerminator());
    fence();
    {
      auto ifFirst = scf::IfOp::create(
          b, loc, cmp(arith::CmpIPredicate::eq, threadId, constIdx(0)), false);
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPoint(ifFirst.thenBlock()->getTerminator());
      memref::StoreOp::create(b, loc, zero32, counters, toIndex(row));
    }
    unsigned k = 0;
    for (RowPart &part : parts) {
      RowState init = neutralState(part);
      auto loop = scf::ForOp::create(b, loc, tid, splits, threadsPerRow,
                                     ValueRange(init));
      {
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPointToStart(loop.getBody());
        Value at = toIndex(
            arith::AddIOp::create(b, loc, rowBase, loop.getInductionVar()));
        RowState loaded;
        for (size_t c = 0; c < part.width(); ++c)
          loaded.push_back(
              memref::LoadOp::create(b, loc, extraBuffers[k + c], at));
        RowState acc(loop.getRegionIterArgs().begin(),
                     loop.getRegionIterArgs().end());
        scf::YieldOp::create(b, loc,
                             ValueRange(combineState(part, acc, loaded)));
      }
      k += part.width();
      RowState folded(loop.getResults().begin(), loop.getResults().end());
      finish(part, blockReduceState(part, folded, lane, warp, slot0,
                                    warpsPerRow, multiWarp));
    }
  }

  /// The body of an outer reduction (Note [Outer reduction lowering]).
  /// Extra parameters: the reduced row count R, the split count S and the
  /// rows per split; extra buffers: one workspace per reduction, then the
  /// counters.
  LogicalResult emitOuterReduction(gpu::GPUFuncOp func,
                                   const OuterKernelInfo &info,
                                   int64_t unroll) {
    MLIRContext *ctx = func.getContext();
    Location loc = kernel.getLoc();
    OpBuilder b = OpBuilder::atBlockBegin(&func.getBody().front());
    builder = &b;
    this->loc = loc;
    Type idx = indexType(ctx);
    auto [outputs, sizes, cols] = bindParams(func);
    Value reducedRows = extraArgs[0], splits = extraArgs[1],
          rowsPerSplit = extraArgs[2];
    Value counters = extraBuffers.back();
    Block &body = kernel.getBody().front();
    auto yield = cast<YieldOp>(body.getTerminator());
    int64_t v = variant.vector;
    int64_t p = info.numReduced;
    const int64_t kCols = 32, kRows = 8;

    auto toIdx = [&](Value x) {
      return arith::IndexCastOp::create(b, loc, idx, x).getResult();
    };
    auto cmp = [&](arith::CmpIPredicate pred, Value x, Value y) {
      return arith::CmpIOp::create(b, loc, pred, x, y).getResult();
    };
    auto andI = [&](Value x, Value y) {
      return arith::AndIOp::create(b, loc, x, y).getResult();
    };
    auto workgroup = [&](int64_t n, Type element) {
      return func.addWorkgroupAttribution(
          MemRefType::get(
              {n}, element, MemRefLayoutAttrInterface(),
              gpu::AddressSpaceAttr::get(
                  ctx, gpu::GPUDialect::getWorkgroupAddressSpace())),
          loc);
    };
    struct Part {
      Operation *op;
      Type acc;
      bool isFloat;
      RedKind kind;
      Value shared, workspace;
    };
    SmallVector<Part> parts;
    for (auto [k, op] : llvm::enumerate(info.reductions)) {
      Type element =
          cast<RankedTensorType>(op->getOperand(0).getType()).getElementType();
      bool isFloat = isa<FloatType>(element);
      Type acc = accumulatorType(element);
      RedKind kind = kindOf(op);
      parts.push_back({op, acc, isFloat, kind,
                       workgroup(kCols * kRows * v, acc), extraBuffers[k]});
    }
    Value flag = workgroup(1, b.getI32Type());

    Value threadId = toIdx(gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x));
    Value blockX = toIdx(gpu::BlockIdOp::create(b, loc, gpu::Dimension::x));
    Value blockY = toIdx(gpu::BlockIdOp::create(b, loc, gpu::Dimension::y));
    Value tx = arith::RemUIOp::create(b, loc, threadId, constIdx(kCols));
    Value ty = arith::DivUIOp::create(b, loc, threadId, constIdx(kCols));
    Value col = arith::MulIOp::create(
        b, loc,
        arith::AddIOp::create(
            b, loc, arith::MulIOp::create(b, loc, blockX, constIdx(kCols)), tx),
        constIdx(v));
    Value colOk = cmp(arith::CmpIPredicate::ult, col, cols);
    Value rowBegin = arith::MulIOp::create(b, loc, blockY, rowsPerSplit);
    Value rowEnd = arith::MinUIOp::create(
        b, loc, arith::AddIOp::create(b, loc, rowBegin, rowsPerSplit),
        reducedRows);
    // Kept dims from the column; reduced dims from the row, per item.
    iterIndex.assign(rank, Value());
    Value rest = col;
    for (int64_t d = rank - 1; d >= p; --d) {
      if (d == p) {
        iterIndex[d] = rest;
      } else {
        iterIndex[d] = arith::RemUIOp::create(b, loc, rest, sizes[d]);
        rest = arith::DivUIOp::create(b, loc, rest, sizes[d]);
      }
    }
    auto setRow = [&](Value row) {
      Value r = row;
      for (int64_t d = p - 1; d >= 0; --d) {
        if (d == 0) {
          iterIndex[d] = r;
        } else {
          iterIndex[d] = arith::RemUIOp::create(b, loc, r, sizes[d]);
          r = arith::DivUIOp::create(b, loc, r, sizes[d]);
        }
      }
    };
    SmallVector<int64_t> identity;
    for (int64_t d = 0; d < rank; ++d)
      identity.push_back(d);
    auto accType = [&](Part &part) -> Type {
      return v > 1 ? Type(VectorType::get({v}, part.acc)) : part.acc;
    };

    // The row loop: `unroll` rows per thread and step, 8 rows apart.
    SmallVector<Value> inits;
    for (Part &part : parts)
      inits.push_back(neutral(part.kind, part.isFloat, accType(part)));
    auto loop =
        scf::ForOp::create(b, loc, arith::AddIOp::create(b, loc, rowBegin, ty),
                           rowEnd, constIdx(kRows * unroll), inits);
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(loop.getBody());
      SmallVector<Value> partials(loop.getRegionIterArgs());
      for (int64_t u = 0; u < unroll; ++u) {
        Value row = arith::AddIOp::create(b, loc, loop.getInductionVar(),
                                          constIdx(u * kRows));
        Value inBounds =
            andI(colOk, cmp(arith::CmpIPredicate::ult, row, rowEnd));
        setRow(row);
        memo.clear();
        loadGuard = inBounds;
        for (auto [k, part] : llvm::enumerate(parts)) {
          FailureOr<Gen> gen = generate(part.op->getOperand(0), identity);
          if (failed(gen))
            return failure();
          Value x = v > 1 ? splat(*gen) : gen->value;
          Type target = accType(part);
          if (x.getType() != target)
            x = widenToAccumulator(x, target, part.isFloat);
          x = arith::SelectOp::create(b, loc, inBounds, x,
                                      neutral(part.kind, part.isFloat, target));
          partials[k] = combine(part.kind, part.isFloat, partials[k], x);
        }
        loadGuard = Value();
      }
      scf::YieldOp::create(b, loc, partials);
    }

    // Folds the 8 row-threads of each column through shared memory; every
    // thread gets its column's total.
    auto foldRows = [&](Part &part, Value partial) -> Value {
      Value slot = arith::MulIOp::create(
          b, loc,
          arith::AddIOp::create(
              b, loc, arith::MulIOp::create(b, loc, ty, constIdx(kCols)), tx),
          constIdx(v));
      auto storeShared = [&](Value x, Value at) {
        if (v > 1)
          vector::StoreOp::create(b, loc, x, part.shared, toIndex(at));
        else
          memref::StoreOp::create(b, loc, x, part.shared, toIndex(at));
      };
      auto loadShared = [&](Value at) -> Value {
        if (v > 1)
          return vector::LoadOp::create(b, loc, accType(part), part.shared,
                                        toIndex(at));
        return memref::LoadOp::create(b, loc, part.shared, toIndex(at));
      };
      storeShared(partial, slot);
      gpu::BarrierOp::create(b, loc);
      Value total = neutral(part.kind, part.isFloat, accType(part));
      for (int64_t t = 0; t < kRows; ++t)
        total = combine(
            part.kind, part.isFloat, total,
            loadShared(arith::MulIOp::create(
                b, loc, arith::AddIOp::create(b, loc, constIdx(t * kCols), tx),
                constIdx(v))));
      gpu::BarrierOp::create(b, loc);
      return total;
    };
    // Writes the results of one column group from the totals.
    auto writeResults = [&](ArrayRef<Value> totals) -> LogicalResult {
      Value writer =
          andI(colOk, cmp(arith::CmpIPredicate::eq, ty, constIdx(0)));
      auto ifWriter = scf::IfOp::create(b, loc, writer, false);
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPoint(ifWriter.thenBlock()->getTerminator());
      reduced.clear();
      memo.clear();
      for (auto [part, total] : llvm::zip(parts, totals)) {
        Type element = cast<RankedTensorType>(part.op->getResult(0).getType())
                           .getElementType();
        Type target = v > 1 ? Type(VectorType::get({v}, element)) : element;
        Value r = total;
        if (target != total.getType())
          r = narrowFromAccumulator(total, target, part.isFloat);
        reduced[part.op->getResult(0)] = Gen{r, v > 1};
      }
      for (int64_t d = 0; d < p; ++d)
        iterIndex[d] = constIdx(0);
      for (auto [value, out] : llvm::zip(yield.getOperands(), outputs)) {
        auto type = cast<RankedTensorType>(value.getType());
        SmallVector<int64_t> map =
            type.getRank() == rank
                ? identity
                : SmallVector<int64_t>(
                      ArrayRef<int64_t>(identity).drop_front(p));
        FailureOr<Gen> gen = generate(value, map);
        if (failed(gen))
          return failure();
        store(*gen, type.getElementType(), out, col);
      }
      return success();
    };

    SmallVector<Value> totals;
    for (auto [k, part] : llvm::enumerate(parts))
      totals.push_back(foldRows(part, loop.getResult(k)));
    Value isSplit = cmp(arith::CmpIPredicate::ugt, splits, constIdx(1));
    auto ifSplit = scf::IfOp::create(b, loc, isSplit, true);
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPoint(ifSplit.elseBlock()->getTerminator());
      if (failed(writeResults(totals)))
        return failure();
    }
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(ifSplit.thenBlock()->getTerminator());
    // Note [Grid reduction]: each block writes its partials, makes them
    // visible (fence), and one thread counts the block in; the block that
    // brings the count to S folds all S partials and resets the counter.
    Value writer = andI(colOk, cmp(arith::CmpIPredicate::eq, ty, constIdx(0)));
    Value partialAt = arith::AddIOp::create(
        b, loc, arith::MulIOp::create(b, loc, blockY, cols), col);
    {
      auto ifWriter = scf::IfOp::create(b, loc, writer, false);
      OpBuilder::InsertionGuard g2(b);
      b.setInsertionPoint(ifWriter.thenBlock()->getTerminator());
      for (auto [part, total] : llvm::zip(parts, totals)) {
        if (v > 1)
          vector::StoreOp::create(b, loc, total, part.workspace,
                                  toIndex(partialAt));
        else
          memref::StoreOp::create(b, loc, total, part.workspace,
                                  toIndex(partialAt));
      }
    }
    fence();
    gpu::BarrierOp::create(b, loc);
    Value zero = constIdx(0);
    Value isThread0 = cmp(arith::CmpIPredicate::eq, threadId, zero);
    countBlockIn(isThread0, counters, blockX, splits, flag);
    gpu::BarrierOp::create(b, loc);
    Value lastBlock = arith::CmpIOp::create(
        b, loc, arith::CmpIPredicate::ne,
        memref::LoadOp::create(b, loc, flag, toIndex(constIdx(0))),
        arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(0)));
    auto ifLast = scf::IfOp::create(b, loc, lastBlock, false);
    b.setInsertionPoint(ifLast.thenBlock()->getTerminator());
    fence();
    SmallVector<Value> finals;
    for (Part &part : parts) {
      auto fold = scf::ForOp::create(
          b, loc, ty, splits, constIdx(kRows),
          ValueRange{neutral(part.kind, part.isFloat, accType(part))});
      {
        OpBuilder::InsertionGuard g2(b);
        b.setInsertionPointToStart(fold.getBody());
        Value at = arith::AddIOp::create(
            b, loc, arith::MulIOp::create(b, loc, fold.getInductionVar(), cols),
            col);
        auto ifCol =
            scf::IfOp::create(b, loc, TypeRange{accType(part)}, colOk, true);
        {
          OpBuilder::InsertionGuard g3(b);
          b.setInsertionPointToStart(ifCol.thenBlock());
          Value x = v > 1 ? vector::LoadOp::create(b, loc, accType(part),
                                                   part.workspace, toIndex(at))
                                .getResult()
                          : memref::LoadOp::create(b, loc, part.workspace,
                                                   toIndex(at))
                                .getResult();
          scf::YieldOp::create(b, loc, x);
          b.setInsertionPointToStart(ifCol.elseBlock());
          scf::YieldOp::create(b, loc,
                               neutral(part.kind, part.isFloat, accType(part)));
        }
        scf::YieldOp::create(b, loc,
                             combine(part.kind, part.isFloat,
                                     fold.getRegionIterArgs()[0],
                                     ifCol.getResult(0)));
      }
      finals.push_back(foldRows(part, fold.getResult(0)));
    }
    if (failed(writeResults(finals)))
      return failure();
    {
      auto ifFirst = scf::IfOp::create(b, loc, isThread0, false);
      OpBuilder::InsertionGuard g2(b);
      b.setInsertionPoint(ifFirst.thenBlock()->getTerminator());
      memref::StoreOp::create(
          b, loc, arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(0)),
          counters, toIndex(blockX));
    }
    b.setInsertionPointToEnd(&func.getBody().front());
    gpu::ReturnOp::create(b, loc);
    return success();
  }

  /// Note [Grid reduction]: under `cond` (one thread of the block), counts
  /// the block in at `counters[index]` and stores into `flag[0]` (shared
  /// memory) whether it was the last of `splits` blocks.
  void countBlockIn(Value cond, Value counters, Value index, Value splits,
                    Value flag) {
    OpBuilder &b = *builder;
    auto ifFirst = scf::IfOp::create(b, loc, cond, false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(ifFirst.thenBlock()->getTerminator());
    Value one = arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(1));
    Value old = memref::AtomicRMWOp::create(b, loc, arith::AtomicRMWKind::addi,
                                            one, counters, toIndex(index));
    Value splits32 =
        splits.getType().isInteger(32)
            ? splits
            : arith::TruncIOp::create(b, loc, b.getI32Type(), splits)
                  .getResult();
    Value last = arith::SubIOp::create(b, loc, splits32, one);
    Value isLast = arith::ExtUIOp::create(
        b, loc, b.getI32Type(),
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, old, last));
    memref::StoreOp::create(b, loc, isLast, flag, toIndex(constIdx(0)));
  }

  /// A GPU-scope acquire-release fence (orders the partials of a grid
  /// reduction with the counter).
  void fence() {
    LLVM::InlineAsmOp::create(
        *builder, loc, TypeRange{}, ValueRange{},
        builder->getStringAttr("fence.acq_rel.gpu;"),
        builder->getStringAttr("~{memory}"), builder->getUnitAttr(), UnitAttr(),
        LLVM::TailCallKindAttr(), LLVM::AsmDialectAttr(), ArrayAttr());
  }

  /// The tiled transpose variant of a pointwise kernel (Note [Tiled
  /// transpose]): inputs in `staged` are read along iteration dim `p` (their
  /// innermost dim) with the maps in `stagedMaps`.
  LogicalResult emitTransposeTiled(
      gpu::GPUFuncOp func, int64_t p, ArrayRef<unsigned> staged,
      const DenseMap<unsigned, SmallVector<int64_t>> &stagedMaps) {
    MLIRContext *ctx = func.getContext();
    Location loc = kernel.getLoc();
    OpBuilder b = OpBuilder::atBlockBegin(&func.getBody().front());
    builder = &b;
    this->loc = loc;
    Type idx = indexType(ctx);
    auto [outputs, sizes, count] = bindParams(func);
    Block &body = kernel.getBody().front();
    auto yield = cast<YieldOp>(body.getTerminator());
    const int64_t tile = transposeTile, pad = transposeTile + 1;
    // Note [Transpose pairs]: with variant.vector == 2 every thread moves
    // two neighbouring elements per access: a 2-element load along p when
    // staging, a 2-element store along q when writing.
    const int64_t width = variant.vector;
    const int64_t threads = 256, steps = tile * tile / (threads * width);
    int64_t q = rank - 1;

    auto toIdx = [&](Value x) {
      return arith::IndexCastOp::create(b, loc, idx, x).getResult();
    };
    auto cmp = [&](arith::CmpIPredicate pred, Value x, Value y) {
      return arith::CmpIOp::create(b, loc, pred, x, y).getResult();
    };
    auto add = [&](Value x, Value y) {
      return arith::AddIOp::create(b, loc, x, y).getResult();
    };
    auto mul = [&](Value x, Value y) {
      return arith::MulIOp::create(b, loc, x, y).getResult();
    };
    DenseMap<unsigned, Value> shared;
    for (unsigned k : staged) {
      Type element =
          storageType(cast<RankedTensorType>(kernel.getInputs()[k].getType())
                          .getElementType());
      shared[k] = func.addWorkgroupAttribution(
          MemRefType::get(
              {tile * pad}, element, MemRefLayoutAttrInterface(),
              gpu::AddressSpaceAttr::get(
                  ctx, gpu::GPUDialect::getWorkgroupAddressSpace())),
          loc);
    }
    Value threadId = toIdx(gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x));
    Value blockId = toIdx(gpu::BlockIdOp::create(b, loc, gpu::Dimension::x));
    Value gridDim = toIdx(gpu::GridDimOp::create(b, loc, gpu::Dimension::x));
    auto ceilTiles = [&](Value n) {
      return arith::DivUIOp::create(b, loc, add(n, constIdx(tile - 1)),
                                    constIdx(tile))
          .getResult();
    };
    Value tilesQ = ceilTiles(sizes[q]);
    Value tilesP = ceilTiles(sizes[p]);
    Value numTiles = mul(tilesQ, tilesP);
    for (int64_t d = 0; d < rank; ++d)
      if (d != p && d != q)
        numTiles = mul(numTiles, sizes[d]);
    auto loop = scf::ForOp::create(b, loc, blockId, numTiles, gridDim);
    b.setInsertionPoint(loop.getBody()->getTerminator());
    Value t = loop.getInductionVar();
    iterIndex.assign(rank, Value());
    Value tq = arith::RemUIOp::create(b, loc, t, tilesQ);
    Value rest = arith::DivUIOp::create(b, loc, t, tilesQ);
    Value tp = arith::RemUIOp::create(b, loc, rest, tilesP);
    rest = arith::DivUIOp::create(b, loc, rest, tilesP);
    int64_t outermost = -1;
    for (int64_t d = 0; d < rank && outermost < 0; ++d)
      if (d != p && d != q)
        outermost = d;
    for (int64_t d = rank - 1; d >= 0; --d) {
      if (d == p || d == q)
        continue;
      if (d == outermost) {
        iterIndex[d] = rest;
      } else {
        iterIndex[d] = arith::RemUIOp::create(b, loc, rest, sizes[d]);
        rest = arith::DivUIOp::create(b, loc, rest, sizes[d]);
      }
    }
    Value p0 = mul(tp, constIdx(tile)), q0 = mul(tq, constIdx(tile));
    // Access e of a step: (a along p, c along q), the first of `width`
    // neighbours along the fast dim. With pairs the sizes of p and q are
    // even (the variant's guard), so the pair of an in-bounds first element
    // is in bounds.
    auto position = [&](int64_t step, bool fastAlongP) {
      Value e = add(threadId, constIdx(step * threads));
      Value fast = arith::RemUIOp::create(b, loc, e, constIdx(tile / width));
      Value slow = arith::DivUIOp::create(b, loc, e, constIdx(tile / width));
      fast = mul(fast, constIdx(width));
      Value a = fastAlongP ? fast : slow, c = fastAlongP ? slow : fast;
      iterIndex[p] = add(p0, a);
      iterIndex[q] = add(q0, c);
      Value inBounds = arith::AndIOp::create(
          b, loc, cmp(arith::CmpIPredicate::ult, iterIndex[p], sizes[p]),
          cmp(arith::CmpIPredicate::ult, iterIndex[q], sizes[q]));
      Value slot = add(mul(a, constIdx(pad)), c);
      return std::make_pair(inBounds, slot);
    };
    Block &kernelBody = kernel.getBody().front();
    // Stage: consecutive threads read consecutive elements of the staged
    // inputs (along p, their innermost dim).
    for (int64_t step = 0; step < steps; ++step) {
      auto [inBounds, slot] = position(step, /*fastAlongP=*/true);
      for (unsigned k : staged) {
        memo.clear();
        if (width == 1) {
          loadGuard = inBounds;
          Gen g = load(kernelBody.getArgument(k), stagedMaps.lookup(k));
          loadGuard = Value();
          memref::StoreOp::create(b, loc, g.value, shared[k], toIndex(slot));
          continue;
        }
        // A pair along p, the input's innermost dim (unit stride: the
        // guard), into the slots of rows a and a + 1.
        TensorParam &param = tensors[kernelBody.getArgument(k)];
        Value offset = constIdx(0);
        for (auto [d, it] : llvm::enumerate(stagedMaps.lookup(k)))
          if (it >= 0)
            offset = add(offset, mul(iterIndex[it], param.strides[d]));
        Type stored = cast<MemRefType>(shared[k].getType()).getElementType();
        VectorType pairType = vectorOf(stored);
        auto ifIn = scf::IfOp::create(b, loc, TypeRange{pairType}, inBounds,
                                      /*withElseRegion=*/true);
        {
          OpBuilder::InsertionGuard guard(b);
          b.setInsertionPointToStart(ifIn.thenBlock());
          int64_t align = width * storageBytes(stored);
          Value pair = vector::LoadOp::create(b, loc, pairType, param.memref,
                                              toIndex(offset), false,
                                              llvm::MaybeAlign(align));
          scf::YieldOp::create(b, loc, pair);
          b.setInsertionPointToStart(ifIn.elseBlock());
          scf::YieldOp::create(b, loc, zero(pairType));
        }
        for (int64_t j = 0; j < width; ++j) {
          Value element = vector::ExtractOp::create(b, loc, ifIn.getResult(0),
                                                    ArrayRef<int64_t>{j});
          memref::StoreOp::create(b, loc, element, shared[k],
                                  toIndex(add(slot, constIdx(j * pad))));
        }
      }
    }
    gpu::BarrierOp::create(b, loc);
    // Compute and store: consecutive threads write consecutive elements of
    // the outputs (along q); staged inputs come from shared memory.
    for (int64_t step = 0; step < steps; ++step) {
      auto [inBounds, slot] = position(step, /*fastAlongP=*/false);
      memo.clear();
      stagedSlots.clear();
      for (unsigned k : staged) {
        // A pair along q: two neighbouring slots of row a.
        Value first = memref::LoadOp::create(b, loc, shared[k], toIndex(slot));
        Gen g{first, false};
        if (width > 1) {
          SmallVector<Value> lanes = {first};
          for (int64_t j = 1; j < width; ++j)
            lanes.push_back(memref::LoadOp::create(
                b, loc, shared[k], toIndex(add(slot, constIdx(j)))));
          g = Gen{vector::FromElementsOp::create(
                      b, loc, vectorOf(first.getType()), lanes),
                  true};
        }
        stagedSlots[kernelBody.getArgument(k)] = {g, stagedMaps.lookup(k)};
      }
      loadGuard = inBounds;
      SmallVector<Gen> gens;
      SmallVector<int64_t> identity;
      for (int64_t d = 0; d < rank; ++d)
        identity.push_back(d);
      for (Value value : yield.getOperands()) {
        FailureOr<Gen> gen = generate(value, identity);
        if (failed(gen))
          return failure();
        gens.push_back(*gen);
      }
      loadGuard = Value();
      stagedSlots.clear();
      auto ifIn = scf::IfOp::create(b, loc, inBounds, false);
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPoint(ifIn.thenBlock()->getTerminator());
      Value offset = constIdx(0);
      for (int64_t d = 0; d < rank; ++d)
        offset = add(mul(offset, sizes[d]), iterIndex[d]);
      for (auto [gen, value, out] :
           llvm::zip(gens, yield.getOperands(), outputs))
        store(gen, cast<RankedTensorType>(value.getType()).getElementType(),
              out, offset);
    }
    // The next tile reuses the shared tiles.
    gpu::BarrierOp::create(b, loc);
    b.setInsertionPointToEnd(&func.getBody().front());
    gpu::ReturnOp::create(b, loc);
    return success();
  }

  /// Tile edge of the tiled transpose variant (16, 32 or 64).
  int64_t transposeTile = 64;

  /// Generates the yielded values of the work item `work` (a vector of
  /// the innermost dim, or one element).
  FailureOr<SmallVector<Gen>> generateItem(Value work, ArrayRef<Value> sizes,
                                           YieldOp yield) {
    OpBuilder &b = *builder;
    memo.clear();
    iterIndex.assign(rank, Value());
    Value rest = work;
    for (int64_t d = rank - 1; d >= 0; --d) {
      Value extent = sizes[d];
      if (d == rank - 1 && variant.vector > 1)
        extent =
            arith::DivUIOp::create(b, loc, extent, constIdx(variant.vector));
      if (d == 0) {
        iterIndex[d] = rest;
      } else {
        iterIndex[d] = arith::RemUIOp::create(b, loc, rest, extent);
        rest = arith::DivUIOp::create(b, loc, rest, extent);
      }
      if (d == rank - 1 && variant.vector > 1)
        iterIndex[d] = arith::MulIOp::create(b, loc, iterIndex[d],
                                             constIdx(variant.vector));
    }
    SmallVector<int64_t> identity;
    for (int64_t d = 0; d < rank; ++d)
      identity.push_back(d);
    SmallVector<Gen> values;
    for (Value value : yield.getOperands()) {
      FailureOr<Gen> gen = generate(value, identity);
      if (failed(gen))
        return failure();
      values.push_back(*gen);
    }
    return values;
  }

  /// Outputs are contiguous with the iteration shape: item c starts at
  /// element c * vector.
  void storeItem(Value work, ArrayRef<Gen> values, YieldOp yield,
                 ArrayRef<Value> outputs) {
    Value offset = variant.vector > 1
                       ? arith::MulIOp::create(*builder, loc, work,
                                               constIdx(variant.vector))
                             .getResult()
                       : work;
    for (auto [gen, value, out] :
         llvm::zip(values, yield.getOperands(), outputs))
      store(gen, cast<RankedTensorType>(value.getType()).getElementType(), out,
            offset);
  }

  /// Inputs read with vector loads along their innermost dim (the
  /// vectorized variant's run-time guard needs their strides and alignment).
  llvm::SmallSetVector<unsigned, 4> vectorLoadedInputs;
  /// Every (input, input dim, iteration dim) read: the input's extent must
  /// equal the iteration extent or be 1 (a broadcast).
  llvm::SetVector<std::tuple<unsigned, int64_t, int64_t>> accesses;

private:
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

  void store(Gen gen, Type element, Value memref, Value offset) {
    OpBuilder &b = *builder;
    Value v = variant.vector > 1 ? splat(gen) : gen.value;
    if (element.isInteger(1)) {
      Type i8 = b.getI8Type();
      v = arith::ExtUIOp::create(
          b, loc, variant.vector > 1 ? Type(vectorOf(i8)) : i8, v);
    }
    Value index = toIndex(offset);
    if (variant.vector > 1) {
      int64_t align =
          std::min<int64_t>(16, variant.vector * storageBytes(element));
      vector::StoreOp::create(b, loc, v, memref, index, false,
                              llvm::MaybeAlign(align));
    } else {
      memref::StoreOp::create(b, loc, v, memref, index);
    }
  }

  Gen load(BlockArgument arg, ArrayRef<int64_t> map) {
    OpBuilder &b = *builder;
    if (recordLoads) {
      auto entry = std::make_pair(arg.getArgNumber(),
                                  SmallVector<int64_t>(map.begin(), map.end()));
      if (!llvm::is_contained(loadLog, entry))
        loadLog.push_back(entry);
    }
    TensorParam &param = tensors[arg];
    auto tensor = cast<RankedTensorType>(arg.getType());
    Type element = tensor.getElementType();
    Value offset = constIdx(0);
    int64_t innerDim = -1;
    for (auto [d, it] : llvm::enumerate(map)) {
      if (it < 0)
        continue;
      accesses.insert({arg.getArgNumber(), static_cast<int64_t>(d), it});
      if (it == rank - 1)
        innerDim = d;
      offset = arith::AddIOp::create(
          b, loc, offset,
          arith::MulIOp::create(b, loc, iterIndex[it], param.strides[d]));
    }
    auto fromStorage = [&](Value v) -> Value {
      if (!element.isInteger(1))
        return v;
      Value zero = arith::ConstantOp::create(b, loc, v.getType(),
                                             b.getZeroAttr(v.getType()));
      return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, v, zero);
    };
    Type stored = storageType(element);
    // Under a load guard the load sits in an scf.if that yields zero
    // elsewhere (rows and items past the end).
    auto guarded = [&](Type type, function_ref<Value()> emitLoad) -> Value {
      if (!loadGuard)
        return emitLoad();
      auto ifOp = scf::IfOp::create(b, loc, TypeRange{type}, loadGuard, true);
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(ifOp.thenBlock());
      scf::YieldOp::create(b, loc, emitLoad());
      b.setInsertionPointToStart(ifOp.elseBlock());
      scf::YieldOp::create(b, loc, zero(type));
      return ifOp.getResult(0);
    };
    if (variant.vector == 1 || innerDim < 0) {
      Value v = guarded(stored, [&]() -> Value {
        return memref::LoadOp::create(b, loc, param.memref, toIndex(offset));
      });
      return {fromStorage(v), false};
    }
    if (innerDim == tensor.getRank() - 1) {
      // Contiguous innermost dim (the run-time guard checked stride 1).
      vectorLoadedInputs.insert(arg.getArgNumber());
      int64_t align =
          std::min<int64_t>(16, variant.vector * storageBytes(element));
      Value v = guarded(vectorOf(stored), [&]() -> Value {
        return vector::LoadOp::create(b, loc, vectorOf(stored), param.memref,
                                      toIndex(offset), false,
                                      llvm::MaybeAlign(align));
      });
      return {fromStorage(v), true};
    }
    // The innermost iteration dim walks a strided dim of this input: gather.
    Value v = guarded(vectorOf(stored), [&]() -> Value {
      SmallVector<Value> lanes;
      for (int64_t j = 0; j < variant.vector; ++j) {
        Value laneOffset = arith::AddIOp::create(
            b, loc, offset,
            arith::MulIOp::create(b, loc, constIdx(j),
                                  param.strides[innerDim]));
        lanes.push_back(
            memref::LoadOp::create(b, loc, param.memref, toIndex(laneOffset)));
      }
      return vector::FromElementsOp::create(b, loc, vectorOf(stored), lanes);
    });
    return {fromStorage(v), true};
  }

  FailureOr<Gen> generate(Value value, ArrayRef<int64_t> map) {
    auto key = std::make_pair(value.getAsOpaquePointer(),
                              std::vector<int64_t>(map.begin(), map.end()));
    auto it = memo.find(key);
    if (it != memo.end())
      return it->second;
    if (failed(generateOperandsFirst(value, map)))
      return failure();
    FailureOr<Gen> result = generateUncached(value, map);
    if (succeeded(result))
      memo[key] = *result;
    return result;
  }

  // Note [Deep chains]: generate() recurses through the operands of
  // element-wise ops, so a chain of tens of thousands of them would overflow
  // the stack. Before an element-wise op is generated, the element-wise ops
  // it depends on (through operands with the same index map) are generated
  // bottom-up from an explicit stack, in the order the recursion would have
  // finished them (each op's other operands generated in their turn), so the
  // recursion below finds each operand in the memo and goes one level deep.
  // The IR emitted is the same as without it (the PTX of every definition of
  // examples/, bench/cases/ and test/GPU/ is byte-identical).
  LogicalResult generateOperandsFirst(Value value, ArrayRef<int64_t> map) {
    auto pending = [&](Value v) -> Operation * {
      Operation *op = v.getDefiningOp();
      if (!op || !op->hasTrait<FusionElementwise>() || reduced.count(v))
        return nullptr;
      ArrayRef<int64_t> m =
          isa<RankedTensorType>(v.getType()) ? map : ArrayRef<int64_t>();
      auto key = std::make_pair(v.getAsOpaquePointer(),
                                std::vector<int64_t>(m.begin(), m.end()));
      return memo.count(key) ? nullptr : op;
    };
    Operation *root = pending(value);
    if (!root)
      return success();
    // (op, next operand to visit): an op is generated once its operands
    // are; the root is left to the caller.
    SmallVector<std::pair<Operation *, unsigned>> stack{{root, 0}};
    while (!stack.empty()) {
      auto &[op, next] = stack.back();
      if (next < op->getNumOperands()) {
        Value operand = op->getOperand(next++);
        if (Operation *child = pending(operand)) {
          stack.push_back({child, 0});
          continue;
        }
        // Operands that are not deferred are generated in their turn, as
        // elementwise() would: the order of the emitted IR is unchanged.
        if (failed(generate(operand, isa<RankedTensorType>(operand.getType())
                                         ? map
                                         : ArrayRef<int64_t>())))
          return failure();
        continue;
      }
      Operation *done = op;
      stack.pop_back();
      Value result = done->getResult(0);
      if (done == root || !pending(result))
        continue;
      if (failed(generate(result, isa<RankedTensorType>(result.getType())
                                      ? map
                                      : ArrayRef<int64_t>())))
        return failure();
    }
    return success();
  }

  /// Operand maps of the index-mapping ops; -1 marks a broadcast dim.
  static SmallVector<int64_t> broadcastMap(RankedTensorType operand,
                                           ArrayRef<int64_t> resultMap,
                                           ArrayRef<int64_t> dims) {
    SmallVector<int64_t> map;
    for (auto [i, d] : llvm::enumerate(dims))
      map.push_back(operand.getDimSize(i) == 1 ? -1 : resultMap[d]);
    return map;
  }

  FailureOr<Gen> generateUncached(Value value, ArrayRef<int64_t> map) {
    OpBuilder &b = *builder;
    if (auto it = reduced.find(value); it != reduced.end())
      return it->second;
    if (auto arg = dyn_cast<BlockArgument>(value)) {
      if (auto it = stagedSlots.find(arg);
          it != stagedSlots.end() &&
          ArrayRef<int64_t>(it->second.second) == map)
        return it->second.first;
      if (tensors.count(arg))
        return load(arg, map);
      return Gen{scalars.lookup(arg), false};
    }
    Operation *op = value.getDefiningOp();
    if (auto constant = dyn_cast<arith::ConstantOp>(op)) {
      if (!isa<ShapedType>(constant.getType()))
        return Gen{b.clone(*constant)->getResult(0), false};
      // A tensor constant is one value everywhere (a splat) or a table the
      // kernel would have to index; only the first has a lowering here.
      auto dense = dyn_cast<DenseElementsAttr>(constant.getValue());
      if (!dense || !dense.isSplat())
        return constant.emitOpError(
            "is a tensor constant of several values, which has no GPU "
            "lowering yet: pass the values as an input tensor");
      return Gen{arith::ConstantOp::create(
                     b, loc, cast<TypedAttr>(dense.getSplatValue<Attribute>()))
                     .getResult(),
                 false};
    }
    if (auto bcast = dyn_cast<BroadcastInDimOp>(op)) {
      auto operand = dyn_cast<RankedTensorType>(bcast.getInput().getType());
      if (!operand)
        return generate(bcast.getInput(), {});
      return generate(bcast.getInput(),
                      broadcastMap(operand, map, bcast.getDims()));
    }
    if (auto expand = dyn_cast<ExpandOp>(op)) {
      auto operand = expand.getInput().getType();
      SmallVector<int64_t> dims;
      for (int64_t d = 0; d < operand.getRank(); ++d)
        dims.push_back(d);
      return generate(expand.getInput(), broadcastMap(operand, map, dims));
    }
    if (auto permute = dyn_cast<PermuteOp>(op)) {
      SmallVector<int64_t> operandMap(map.size(), -1);
      for (auto [i, p] : llvm::enumerate(permute.getPerm()))
        operandMap[p] = map[i];
      return generate(permute.getInput(), operandMap);
    }
    if (auto squeeze = dyn_cast<SqueezeOp>(op)) {
      SmallVector<int64_t> operandMap;
      unsigned next = 0;
      for (int64_t d = 0; d < squeeze.getInput().getType().getRank(); ++d)
        operandMap.push_back(
            llvm::is_contained(squeeze.getDims(), d) ? -1 : map[next++]);
      return generate(squeeze.getInput(), operandMap);
    }
    if (auto full = dyn_cast<FullOp>(op))
      return generate(full.getValue(), {});
    if (isa<arith::IndexCastOp, arith::IndexCastUIOp>(op)) {
      // A size (an index kernel parameter, i32 or i64 here) as an integer
      // scalar (Note [Scalars computed from sizes] in Segment.cpp).
      Type to = op->getResult(0).getType();
      FailureOr<Gen> in = generate(op->getOperand(0), map);
      if (failed(in))
        return failure();
      if (in->isVector || to.isIndex() || !in->value.getType().isInteger())
        return op->emitOpError("is supported from an index to an integer "
                               "scalar only");
      Value v = in->value;
      unsigned from = v.getType().getIntOrFloatBitWidth();
      unsigned want = to.getIntOrFloatBitWidth();
      bool isSigned = isa<arith::IndexCastOp>(op);
      if (from < want)
        v = isSigned ? arith::ExtSIOp::create(b, loc, to, v).getResult()
                     : arith::ExtUIOp::create(b, loc, to, v).getResult();
      else if (from > want)
        v = arith::TruncIOp::create(b, loc, to, v);
      return Gen{v, false};
    }
    if (op->getDialect()->getNamespace() == "arith" &&
        op->getNumResults() == 1 && op->getNumRegions() == 0 &&
        op->getResult(0).getType().isIntOrFloat()) {
      // Other scalar arithmetic on such values, as written.
      IRMapping mapping;
      for (Value operand : op->getOperands()) {
        FailureOr<Gen> in = generate(operand, map);
        if (failed(in))
          return failure();
        if (in->isVector || in->value.getType() != operand.getType())
          return op->emitOpError("is supported on scalars of its own types "
                                 "only");
        mapping.map(operand, in->value);
      }
      return Gen{b.clone(*op, mapping)->getResult(0), false};
    }
    if (op->hasTrait<FusionElementwise>())
      return elementwise(op, map);
    return op->emitOpError("is not supported by the pointwise lowering");
  }

  FailureOr<Gen> elementwise(Operation *op, ArrayRef<int64_t> map) {
    OpBuilder &b = *builder;
    SmallVector<Gen> operands;
    bool anyVector = false;
    for (Value operand : op->getOperands()) {
      bool isTensor = isa<RankedTensorType>(operand.getType());
      FailureOr<Gen> g =
          generate(operand, isTensor ? map : ArrayRef<int64_t>());
      if (failed(g))
        return failure();
      operands.push_back(*g);
      anyVector |= g->isVector;
    }
    SmallVector<Value> values;
    for (Gen &g : operands)
      values.push_back(anyVector ? splat(g) : g.value);
    Type resultElement = getElementTypeOrSelf(op->getResult(0).getType());
    Type operandElement = getElementTypeOrSelf(op->getOperand(0).getType());
    auto shaped = [&](Type element) -> Type {
      return anyVector ? Type(vectorOf(element)) : element;
    };

    // Note [fp8 on the GPU]: LLVM has no fp8 types, and arith.extf/truncf
    // to or from them do not translate; fp8 tensors are loaded and stored as
    // they are (the LLVM lowering keeps them as i8) and every conversion is
    // integer arithmetic on the bits: fp8 -> f32 is exact (decodeFp8), f32
    // or f64 -> fp8 rounds to nearest even with the reference interpreter's
    // rules (encodeFp8: beyond the largest finite value e4m3fn gives NaN and
    // e5m2 gives inf; NaN stays NaN). Other types go through f32 (fp8 values
    // are exact in f16, bf16 and f32; an integer that f32 rounds is beyond
    // both formats' range). The ops that accept fp8 besides the cast
    // (comparisons and where) decode to f32 and encode the result back, as
    // the interpreter computes them in double.
    if (auto cast = dyn_cast<CastOp>(op);
        cast && (isFp8(operandElement) || isFp8(resultElement)))
      return Gen{emitFp8Cast(values[0], operandElement, resultElement, shaped),
                 anyVector};
    if (llvm::any_of(op->getOperandTypes(),
                     [](Type t) { return isFp8(getElementTypeOrSelf(t)); })) {
      Type f32 = b.getF32Type();
      for (Value &v : values)
        if (isFp8(getElementTypeOrSelf(v.getType())))
          v = decodeFp8(v, getElementTypeOrSelf(v.getType()), shaped);
      FailureOr<Value> result = emitOp(op, values, f32, shaped(f32));
      if (failed(result))
        return failure();
      Value r = *result;
      if (isFp8(resultElement))
        r = encodeFp8(r, resultElement, shaped);
      return Gen{r, anyVector};
    }
    if (auto cast = dyn_cast<CastOp>(op))
      return Gen{emitCast(values[0], operandElement, resultElement, shaped),
                 anyVector};

    // 16-bit floats compute in f32 and round after each op, which is what
    // the reference interpreter does too.
    Type computeElement = operandElement;
    if (isa<WhereOp>(op))
      computeElement = getElementTypeOrSelf(op->getOperand(1).getType());
    bool widen = isHalfFloat(computeElement);
    if (widen) {
      Type f32 = b.getF32Type();
      for (auto [i, v] : llvm::enumerate(values))
        if (isHalfFloat(getElementTypeOrSelf(v.getType())))
          values[i] = arith::ExtFOp::create(b, loc, shaped(f32), v);
      computeElement = f32;
    }
    FailureOr<Value> result =
        emitOp(op, values, computeElement, shaped(computeElement));
    if (failed(result))
      return failure();
    Value r = *result;
    if (widen && isHalfFloat(resultElement))
      r = arith::TruncFOp::create(b, loc, shaped(resultElement), r);
    return Gen{r, anyVector};
  }

  Value floatConst(Type type, double v) {
    Type element = getElementTypeOrSelf(type);
    Attribute attr = builder->getFloatAttr(element, v);
    if (auto vt = dyn_cast<VectorType>(type))
      attr = DenseElementsAttr::get(vt, attr);
    return arith::ConstantOp::create(*builder, loc, type,
                                     cast<TypedAttr>(attr));
  }
  Value intConst(Type type, int64_t v) {
    Type element = getElementTypeOrSelf(type);
    Attribute attr = builder->getIntegerAttr(element, v);
    if (auto vt = dyn_cast<VectorType>(type))
      attr = DenseElementsAttr::get(vt, attr);
    return arith::ConstantOp::create(*builder, loc, type,
                                     cast<TypedAttr>(attr));
  }
  Value zero(Type type) {
    return isa<FloatType>(getElementTypeOrSelf(type)) ? floatConst(type, 0)
                                                      : intConst(type, 0);
  }

  // Note [Approximate tanh]: PTX's tanh.approx.f32 (one MUFU instruction,
  // max relative error about 2^-11) instead of libdevice's tanhf, which
  // costs dozens of instructions and makes bf16 gelu compute-bound. Used
  // only when the schedule allows fast math (16-bit float results, whose
  // own rounding is coarser than the approximation).
  Value approxTanh(Value v) {
    return approxF32("tanh.approx.f32 $0, $1;", {v});
  }

  // Note [Approximate exp and division]: with fast math, exp(x) is
  // ex2.approx.ftz.f32(x * log2(e)) (two instructions; relative error about
  // 2^-22 plus |x| * 2^-24 from the product, far below bf16's 2^-9) and
  // f32 division is div.full.f32 (at most 2 ulp): libdevice's expf and the
  // IEEE division cost about ten instructions each per element and made
  // bf16 softmax compute-bound on the H200.
  Value approxExp(Value v) {
    Value log2e = floatConst(v.getType(), 1.4426950408889634);
    Value scaled = arith::MulFOp::create(*builder, loc, v, log2e);
    return approxF32("ex2.approx.ftz.f32 $0, $1;", {scaled});
  }
  Value approxDiv(Value x, Value y) {
    return approxF32("div.full.f32 $0, $1, $2;", {x, y});
  }

  /// One PTX instruction per lane on f32 scalars or vectors.
  Value approxF32(StringRef text, ArrayRef<Value> operands) {
    OpBuilder &b = *builder;
    std::string constraints = "=f";
    for (size_t i = 0; i < operands.size(); ++i)
      constraints += ",f";
    auto one = [&](ValueRange xs) -> Value {
      return LLVM::InlineAsmOp::create(
                 b, loc, b.getF32Type(), xs, b.getStringAttr(text),
                 b.getStringAttr(constraints), UnitAttr(), UnitAttr(),
                 LLVM::TailCallKindAttr(), LLVM::AsmDialectAttr(), ArrayAttr())
          .getResult(0);
    };
    auto vt = dyn_cast<VectorType>(operands[0].getType());
    if (!vt)
      return one(operands);
    SmallVector<Value> lanes;
    for (int64_t i = 0; i < vt.getNumElements(); ++i) {
      SmallVector<Value> xs;
      for (Value x : operands)
        xs.push_back(
            vector::ExtractOp::create(b, loc, x, ArrayRef<int64_t>{i}));
      lanes.push_back(one(xs));
    }
    return vector::FromElementsOp::create(b, loc, vt, lanes);
  }

  /// A loaded value (scalar or vector) widened to a reduction's accumulator
  /// type `target` (of the same shape); fp8 is decoded from its bits (Note
  /// [fp8 on the GPU]).
  Value widenToAccumulator(Value x, Type target, bool isFloat) {
    OpBuilder &b = *builder;
    Type from = getElementTypeOrSelf(x.getType());
    if (isFp8(from))
      return emitFp8Cast(x, from, getElementTypeOrSelf(target),
                         shapedLike(x.getType()));
    return isFloat ? arith::ExtFOp::create(b, loc, target, x).getResult()
                   : arith::ExtSIOp::create(b, loc, target, x).getResult();
  }

  /// An accumulator narrowed to a reduction's result type `target` (of the
  /// same shape); fp8 is encoded to its bits (Note [fp8 on the GPU]).
  Value narrowFromAccumulator(Value acc, Type target, bool isFloat) {
    OpBuilder &b = *builder;
    Type to = getElementTypeOrSelf(target);
    if (isFp8(to))
      return emitFp8Cast(acc, getElementTypeOrSelf(acc.getType()), to,
                         shapedLike(acc.getType()));
    return isFloat ? arith::TruncFOp::create(b, loc, target, acc).getResult()
                   : arith::TruncIOp::create(b, loc, target, acc).getResult();
  }

  /// Element type -> the same shape as `like` (a vector or a scalar).
  static std::function<Type(Type)> shapedLike(Type like) {
    return [like](Type element) -> Type {
      if (auto vt = dyn_cast<VectorType>(like))
        return VectorType::get(vt.getShape(), element);
      return element;
    };
  }

  Value emitCast(Value v, Type from, Type to, function_ref<Type(Type)> shaped) {
    OpBuilder &b = *builder;
    Type target = shaped(to);
    if (from == to)
      return v;
    if (to.isInteger(1)) {
      if (isa<FloatType>(from))
        return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNE, v,
                                     zero(v.getType()));
      return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, v,
                                   zero(v.getType()));
    }
    bool fromFloat = isa<FloatType>(from), toFloat = isa<FloatType>(to);
    if (fromFloat && toFloat) {
      if (from.getIntOrFloatBitWidth() < to.getIntOrFloatBitWidth())
        return arith::ExtFOp::create(b, loc, target, v);
      // bf16 <-> f16 have the same width: go through f32.
      if (from.getIntOrFloatBitWidth() == to.getIntOrFloatBitWidth())
        v = arith::ExtFOp::create(b, loc, shaped(b.getF32Type()), v);
      return arith::TruncFOp::create(b, loc, target, v);
    }
    if (!fromFloat && toFloat) {
      if (from.isInteger(1))
        return arith::UIToFPOp::create(b, loc, target, v);
      return arith::SIToFPOp::create(b, loc, target, v);
    }
    if (fromFloat && !toFloat) {
      // NaN converts to 0 (PTX's cvt.rzi does that; LLVM calls it poison).
      Value isNan =
          arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, v, v);
      v = arith::SelectOp::create(b, loc, isNan, zero(v.getType()), v);
      return arith::FPToSIOp::create(b, loc, target, v);
    }
    unsigned fw = from.getIntOrFloatBitWidth(), tw = to.getIntOrFloatBitWidth();
    if (fw < tw)
      return from.isInteger(1)
                 ? arith::ExtUIOp::create(b, loc, target, v).getResult()
                 : arith::ExtSIOp::create(b, loc, target, v).getResult();
    return arith::TruncIOp::create(b, loc, target, v);
  }

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
  static Fp8Format fp8Format(Type t) {
    if (isa<Float8E4M3FNType>(t))
      return {3, 7, false};
    return {2, 15, true};
  }

  /// fp8 (scalar or vector) -> f32, exactly (see Note [fp8 on the GPU]).
  Value decodeFp8(Value v, Type from, function_ref<Type(Type)> shaped) {
    OpBuilder &b = *builder;
    Fp8Format f = fp8Format(from);
    int m = f.mantBits;
    Type i32 = shaped(b.getI32Type()), f32 = shaped(b.getF32Type());
    auto c = [&](int64_t k) { return intConst(i32, k); };
    Value byte = arith::BitcastOp::create(b, loc, shaped(b.getI8Type()), v);
    Value x = arith::ExtUIOp::create(b, loc, i32, byte);
    Value sign = arith::ShLIOp::create(
        b, loc, arith::AndIOp::create(b, loc, x, c(0x80)), c(24));
    Value mag = arith::AndIOp::create(b, loc, x, c(0x7F));
    Value mant = arith::AndIOp::create(b, loc, mag, c((1 << m) - 1));
    // Normal: the fields move into place and the exponent is rebiased.
    Value normal = arith::AddIOp::create(
        b, loc, arith::ShLIOp::create(b, loc, mag, c(23 - m)),
        c(int64_t(127 - f.bias) << 23));
    // Subnormal (exponent 0, or zero): mant * 2^(1 - bias - m), a normal
    // f32 (or zero) computed exactly.
    Value sub = arith::BitcastOp::create(
        b, loc, i32,
        arith::MulFOp::create(
            b, loc, arith::UIToFPOp::create(b, loc, f32, mant),
            floatConst(f32, std::ldexp(1.0, 1 - f.bias - m))));
    Value isSub = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, mag,
                                        c(1 << m));
    Value special, specialBits;
    if (f.hasInf) {
      special = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge, mag,
                                      c(f.infOrNan()));
      specialBits = arith::OrIOp::create(
          b, loc, arith::ShLIOp::create(b, loc, mant, c(23 - m)),
          c(0x7F800000));
    } else {
      special = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, mag,
                                      c(f.nan()));
      specialBits = c(0x7FC00000);
    }
    Value bits = arith::SelectOp::create(
        b, loc, isSub, sub,
        arith::SelectOp::create(b, loc, special, specialBits, normal));
    return arith::BitcastOp::create(b, loc, f32,
                                    arith::OrIOp::create(b, loc, bits, sign));
  }

  /// f32 or f64 (scalar or vector) -> fp8, rounding to nearest even as the
  /// reference interpreter does (see Note [fp8 on the GPU]). Working on the
  /// source's own bits avoids rounding twice.
  Value encodeFp8(Value v, Type to, function_ref<Type(Type)> shaped) {
    OpBuilder &b = *builder;
    using IP = arith::CmpIPredicate;
    Fp8Format f = fp8Format(to);
    Type from = getElementTypeOrSelf(v.getType());
    if (!from.isF64() && !from.isF32())
      v = arith::ExtFOp::create(b, loc, shaped(b.getF32Type()), v);
    bool wide = from.isF64();
    const int width = wide ? 64 : 32, p = wide ? 52 : 23,
              srcBias = wide ? 1023 : 127, m = f.mantBits;
    Type iw = shaped(b.getIntegerType(width));
    auto c = [&](int64_t k) { return intConst(iw, k); };
    auto cmp = [&](IP pred, Value l, Value r) -> Value {
      return arith::CmpIOp::create(b, loc, pred, l, r);
    };
    Value bits = arith::BitcastOp::create(b, loc, iw, v);
    Value sign = arith::ShRUIOp::create(b, loc, bits, c(width - 1));
    Value abs = arith::AndIOp::create(
        b, loc, bits, c(int64_t((uint64_t(1) << (width - 1)) - 1)));
    Value expField = arith::ShRUIOp::create(b, loc, abs, c(p));
    // Normal range: round the significand to m bits, ties to even (a carry
    // moves into the exponent), then rebias.
    Value lsb = arith::AndIOp::create(
        b, loc, arith::ShRUIOp::create(b, loc, abs, c(p - m)), c(1));
    Value rounded = arith::AddIOp::create(
        b, loc, abs,
        arith::AddIOp::create(b, loc, lsb, c((int64_t(1) << (p - m - 1)) - 1)));
    Value normal = arith::SubIOp::create(
        b, loc, arith::ShRUIOp::create(b, loc, rounded, c(p - m)),
        c(int64_t(srcBias - f.bias) << m));
    // Below the smallest normal: shift the significand (with its implicit
    // bit) to the subnormal quantum, ties to even; rounding up to 2^m lands
    // on the smallest normal. The shift is clamped to [1, width - 1] (the
    // lanes that take the normal path may compute any shift; anything
    // shifted by more than p + 2 rounds to zero anyway).
    Value sig = arith::OrIOp::create(
        b, loc, arith::AndIOp::create(b, loc, abs, c((int64_t(1) << p) - 1)),
        c(int64_t(1) << p));
    Value shift = arith::SubIOp::create(b, loc, c(srcBias + p + 1 - f.bias - m),
                                        expField);
    shift = arith::MinUIOp::create(
        b, loc, arith::MaxUIOp::create(b, loc, shift, c(1)), c(width - 1));
    Value q = arith::ShRUIOp::create(b, loc, sig, shift);
    Value rem = arith::AndIOp::create(
        b, loc, sig,
        arith::SubIOp::create(
            b, loc, arith::ShLIOp::create(b, loc, c(1), shift), c(1)));
    Value half = arith::ShLIOp::create(
        b, loc, c(1), arith::SubIOp::create(b, loc, shift, c(1)));
    Value odd = cmp(IP::ne, arith::AndIOp::create(b, loc, q, c(1)), c(0));
    Value up = arith::OrIOp::create(
        b, loc, cmp(IP::ugt, rem, half),
        arith::AndIOp::create(b, loc, cmp(IP::eq, rem, half), odd));
    Value sub = arith::AddIOp::create(b, loc, q,
                                      arith::ExtUIOp::create(b, loc, iw, up));
    Value isSub = cmp(IP::ult, expField, c(srcBias + 1 - f.bias));
    Value mag = arith::SelectOp::create(b, loc, isSub, sub, normal);
    // Beyond the largest finite value (inf and NaN included): inf for e5m2,
    // NaN for e4m3fn; NaN stays NaN.
    mag = arith::SelectOp::create(b, loc, cmp(IP::ugt, mag, c(f.maxFinite())),
                                  c(f.infOrNan()), mag);
    if (f.hasInf) {
      int64_t inf = int64_t((uint64_t(1) << (width - 1)) -
                            (uint64_t(1) << p)); // exponent all ones
      mag = arith::SelectOp::create(b, loc, cmp(IP::ugt, abs, c(inf)),
                                    c(f.nan()), mag);
    }
    Type i8 = shaped(b.getI8Type());
    Value byte = arith::OrIOp::create(
        b, loc, arith::TruncIOp::create(b, loc, i8, mag),
        arith::ShLIOp::create(b, loc, arith::TruncIOp::create(b, loc, i8, sign),
                              intConst(i8, 7)));
    return arith::BitcastOp::create(b, loc, shaped(to), byte);
  }

  /// A cast from or to fp8: through f32 (f64 encodes directly), see Note
  /// [fp8 on the GPU].
  Value emitFp8Cast(Value v, Type from, Type to,
                    function_ref<Type(Type)> shaped) {
    OpBuilder &b = *builder;
    Type f32 = b.getF32Type();
    if (from == to)
      return v;
    if (isFp8(from)) {
      v = decodeFp8(v, from, shaped);
      from = f32;
      if (isa<IntegerType>(to) && !to.isInteger(1))
        return emitFp8ToInt(v, to, shaped);
      if (!isFp8(to))
        return emitCast(v, from, to, shaped);
    }
    if (!from.isF64() && !from.isF32()) {
      v = emitCast(v, from, f32, shaped);
      from = f32;
    }
    return encodeFp8(v, to, shaped);
  }

  /// f32 (decoded fp8) -> integer: truncation toward zero that saturates
  /// (fp8 values reach 57344 and inf), NaN -> 0, as the interpreter does.
  Value emitFp8ToInt(Value v, Type to, function_ref<Type(Type)> shaped) {
    OpBuilder &b = *builder;
    using P = arith::CmpFPredicate;
    unsigned w = to.getIntOrFloatBitWidth();
    Type target = shaped(to);
    Value limit = floatConst(v.getType(), std::ldexp(1.0, w - 1));
    Value negLimit = floatConst(v.getType(), -std::ldexp(1.0, w - 1));
    Value tooBig = arith::CmpFOp::create(b, loc, P::OGE, v, limit);
    Value tooSmall = arith::CmpFOp::create(b, loc, P::OLE, v, negLimit);
    Value isNan = arith::CmpFOp::create(b, loc, P::UNO, v, v);
    Value out = arith::OrIOp::create(
        b, loc, isNan, arith::OrIOp::create(b, loc, tooBig, tooSmall));
    v = arith::SelectOp::create(b, loc, out, zero(v.getType()), v);
    Value r = arith::FPToSIOp::create(b, loc, target, v);
    int64_t max = w == 64 ? std::numeric_limits<int64_t>::max()
                          : (int64_t(1) << (w - 1)) - 1;
    r = arith::SelectOp::create(b, loc, tooBig, intConst(target, max), r);
    return arith::SelectOp::create(b, loc, tooSmall, intConst(target, -max - 1),
                                   r);
  }

  FailureOr<Value> emitOp(Operation *op, ArrayRef<Value> v, Type element,
                          Type type) {
    OpBuilder &b = *builder;
    bool isFloat = isa<FloatType>(element);
    using P = arith::CmpFPredicate;
    using IP = arith::CmpIPredicate;
    auto cmp = [&](P fp, IP ip, Value l, Value r) -> Value {
      if (isFloat)
        return arith::CmpFOp::create(b, loc, fp, l, r);
      return arith::CmpIOp::create(b, loc, ip, l, r);
    };
    auto binary = [&](auto floatTag, auto intTag) -> Value {
      using F = decltype(floatTag);
      using I = decltype(intTag);
      if (isFloat)
        return F::create(b, loc, v[0], v[1]);
      return I::create(b, loc, v[0], v[1]);
    };
    auto unaryF = [&](auto tag) -> Value {
      return decltype(tag)::create(b, loc, v[0]);
    };
    auto one = [&]() {
      return isFloat ? floatConst(type, 1) : intConst(type, 1);
    };
    return TypeSwitch<Operation *, FailureOr<Value>>(op)
        .Case<AddOp>([&](AddOp add) -> Value {
          Value rhs = v[1];
          if (add.getAlpha()) {
            double alpha = add.getAlpha()->convertToDouble();
            Value a = isFloat ? floatConst(type, alpha)
                              : intConst(type, static_cast<int64_t>(alpha));
            rhs = isFloat ? arith::MulFOp::create(b, loc, rhs, a).getResult()
                          : arith::MulIOp::create(b, loc, rhs, a).getResult();
          }
          if (isFloat)
            return arith::AddFOp::create(b, loc, v[0], rhs);
          return arith::AddIOp::create(b, loc, v[0], rhs);
        })
        .Case<SetOp>([&](auto) -> Value { return v[0]; })
        .Case<SubOp>(
            [&](auto) { return binary(arith::SubFOp(), arith::SubIOp()); })
        .Case<MulOp>(
            [&](auto) { return binary(arith::MulFOp(), arith::MulIOp()); })
        .Case<DivOp>([&](auto) -> Value {
          if (variant.fastMath && element.isF32())
            return approxDiv(v[0], v[1]);
          return binary(arith::DivFOp(), arith::DivSIOp());
        })
        .Case<FmodOp>(
            [&](auto) { return binary(arith::RemFOp(), arith::RemSIOp()); })
        .Case<RemainderOp>([&](auto) -> Value {
          // Python's %: the remainder takes the divisor's sign.
          Value r = binary(arith::RemFOp(), arith::RemSIOp());
          Value z = zero(type);
          Value nonZero = cmp(P::UNE, IP::ne, r, z);
          Value signsDiffer =
              arith::XOrIOp::create(b, loc, cmp(P::OLT, IP::slt, r, z),
                                    cmp(P::OLT, IP::slt, v[1], z));
          Value fix = arith::AndIOp::create(b, loc, nonZero, signsDiffer);
          Value adjusted =
              isFloat ? arith::AddFOp::create(b, loc, r, v[1]).getResult()
                      : arith::AddIOp::create(b, loc, r, v[1]).getResult();
          return arith::SelectOp::create(b, loc, fix, adjusted, r);
        })
        .Case<PowOp>([&](auto) {
          return math::PowFOp::create(b, loc, v[0], v[1]).getResult();
        })
        .Case<MaximumOp>(
            [&](auto) { return binary(arith::MaximumFOp(), arith::MaxSIOp()); })
        .Case<MinimumOp>(
            [&](auto) { return binary(arith::MinimumFOp(), arith::MinSIOp()); })
        .Case<Atan2Op>([&](auto) {
          return math::Atan2Op::create(b, loc, v[0], v[1]).getResult();
        })
        .Case<LogicalAndOp, BitwiseAndOp>([&](auto) {
          return arith::AndIOp::create(b, loc, v[0], v[1]).getResult();
        })
        .Case<LogicalOrOp, BitwiseOrOp>([&](auto) {
          return arith::OrIOp::create(b, loc, v[0], v[1]).getResult();
        })
        .Case<LogicalXorOp, BitwiseXorOp>([&](auto) {
          return arith::XOrIOp::create(b, loc, v[0], v[1]).getResult();
        })
        .Case<ShiftLeftOp>([&](auto) -> Value {
          int64_t bits = element.getIntOrFloatBitWidth();
          Value tooFar = arith::CmpIOp::create(b, loc, IP::uge, v[1],
                                               intConst(type, bits));
          Value safe =
              arith::SelectOp::create(b, loc, tooFar, zero(type), v[1]);
          Value shifted = arith::ShLIOp::create(b, loc, v[0], safe);
          return arith::SelectOp::create(b, loc, tooFar, zero(type), shifted);
        })
        .Case<ShiftRightOp>([&](auto) -> Value {
          int64_t bits = element.getIntOrFloatBitWidth();
          Value amount =
              arith::MinUIOp::create(b, loc, v[1], intConst(type, bits - 1));
          return arith::ShRSIOp::create(b, loc, v[0], amount);
        })
        .Case<EqOp>([&](auto) { return cmp(P::OEQ, IP::eq, v[0], v[1]); })
        .Case<NeOp>([&](auto) { return cmp(P::UNE, IP::ne, v[0], v[1]); })
        .Case<LtOp>([&](auto) {
          return cmp(P::OLT, element.isInteger(1) ? IP::ult : IP::slt, v[0],
                     v[1]);
        })
        .Case<LeOp>([&](auto) {
          return cmp(P::OLE, element.isInteger(1) ? IP::ule : IP::sle, v[0],
                     v[1]);
        })
        .Case<GtOp>([&](auto) {
          return cmp(P::OGT, element.isInteger(1) ? IP::ugt : IP::sgt, v[0],
                     v[1]);
        })
        .Case<GeOp>([&](auto) {
          return cmp(P::OGE, element.isInteger(1) ? IP::uge : IP::sge, v[0],
                     v[1]);
        })
        .Case<WhereOp>([&](auto) {
          return arith::SelectOp::create(b, loc, v[0], v[1], v[2]).getResult();
        })
        .Case<ClampOp>([&](auto) -> Value {
          if (isFloat)
            return arith::MinimumFOp::create(
                b, loc, arith::MaximumFOp::create(b, loc, v[0], v[1]), v[2]);
          return arith::MinSIOp::create(
              b, loc, arith::MaxSIOp::create(b, loc, v[0], v[1]), v[2]);
        })
        .Case<LerpOp>([&](auto) -> Value {
          Value diff = arith::SubFOp::create(b, loc, v[1], v[0]);
          return arith::AddFOp::create(
              b, loc, v[0], arith::MulFOp::create(b, loc, v[2], diff));
        })
        .Case<FmaOp>([&](auto) {
          return math::FmaOp::create(b, loc, v[0], v[1], v[2]).getResult();
        })
        .Case<NegOp>([&](auto) -> Value {
          if (isFloat)
            return arith::NegFOp::create(b, loc, v[0]);
          return arith::SubIOp::create(b, loc, zero(type), v[0]);
        })
        .Case<AbsOp>([&](auto) -> Value {
          if (isFloat)
            return math::AbsFOp::create(b, loc, v[0]);
          return math::AbsIOp::create(b, loc, v[0]);
        })
        .Case<ExpOp>([&](auto) -> Value {
          if (variant.fastMath && element.isF32())
            return approxExp(v[0]);
          return unaryF(math::ExpOp());
        })
        .Case<Exp2Op>([&](auto) { return unaryF(math::Exp2Op()); })
        .Case<Expm1Op>([&](auto) { return unaryF(math::ExpM1Op()); })
        .Case<LogOp>([&](auto) { return unaryF(math::LogOp()); })
        .Case<Log2Op>([&](auto) { return unaryF(math::Log2Op()); })
        .Case<Log1pOp>([&](auto) { return unaryF(math::Log1pOp()); })
        .Case<SqrtOp>([&](auto) { return unaryF(math::SqrtOp()); })
        .Case<RsqrtOp>([&](auto) { return unaryF(math::RsqrtOp()); })
        .Case<SinOp>([&](auto) { return unaryF(math::SinOp()); })
        .Case<CosOp>([&](auto) { return unaryF(math::CosOp()); })
        .Case<TanOp>([&](auto) { return unaryF(math::TanOp()); })
        .Case<TanhOp>([&](auto) -> Value {
          if (variant.fastMath && element.isF32())
            return approxTanh(v[0]);
          return math::TanhOp::create(b, loc, v[0]);
        })
        .Case<ErfOp>([&](auto) { return unaryF(math::ErfOp()); })
        .Case<ErfcOp>([&](auto) { return unaryF(math::ErfcOp()); })
        .Case<FloorOp>([&](auto) { return unaryF(math::FloorOp()); })
        .Case<CeilOp>([&](auto) { return unaryF(math::CeilOp()); })
        .Case<RoundOp>([&](auto) { return unaryF(math::RoundEvenOp()); })
        .Case<TruncOp>([&](auto) { return unaryF(math::TruncOp()); })
        .Case<ReciprocalOp>([&](auto) -> Value {
          return arith::DivFOp::create(b, loc, one(), v[0]);
        })
        .Case<SigmoidOp>([&](auto) -> Value {
          Value e =
              math::ExpOp::create(b, loc, arith::NegFOp::create(b, loc, v[0]));
          return arith::DivFOp::create(b, loc, one(),
                                       arith::AddFOp::create(b, loc, one(), e));
        })
        .Case<SiluOp>([&](auto) -> Value {
          Value e =
              math::ExpOp::create(b, loc, arith::NegFOp::create(b, loc, v[0]));
          return arith::DivFOp::create(b, loc, v[0],
                                       arith::AddFOp::create(b, loc, one(), e));
        })
        .Case<ReluOp>([&](auto) -> Value {
          if (isFloat)
            return arith::MaximumFOp::create(b, loc, v[0], zero(type));
          return arith::MaxSIOp::create(b, loc, v[0], zero(type));
        })
        .Case<SignOp>([&](auto) -> Value {
          Value z = zero(type);
          Value pos = cmp(P::OGT, IP::sgt, v[0], z);
          Value neg = cmp(P::OLT, IP::slt, v[0], z);
          Value minusOne = isFloat ? floatConst(type, -1) : intConst(type, -1);
          // Zero and NaN keep their value.
          Value r = arith::SelectOp::create(b, loc, neg, minusOne, v[0]);
          return arith::SelectOp::create(b, loc, pos, one(), r);
        })
        .Case<IsNanOp>([&](auto) -> Value {
          return arith::CmpFOp::create(b, loc, P::UNO, v[0], v[0]);
        })
        .Case<IsInfOp>([&](auto) -> Value {
          Value abs = math::AbsFOp::create(b, loc, v[0]);
          return arith::CmpFOp::create(
              b, loc, P::OEQ, abs,
              floatConst(type, std::numeric_limits<double>::infinity()));
        })
        .Case<LogicalNotOp, BitwiseNotOp>([&](auto) -> Value {
          return arith::XOrIOp::create(b, loc, v[0], intConst(type, -1));
        })
        .Default([&](Operation *other) -> FailureOr<Value> {
          return other->emitOpError(
              "has no pointwise lowering (run --fusion-decompose first?)");
        });
  }

  KernelOp kernel;
  Variant variant;
  RankedTensorType iterType;
  int64_t rank;
  OpBuilder *builder = nullptr;
  Location loc = UnknownLoc::get(kernel.getContext());
  DenseMap<Value, TensorParam> tensors;
  DenseMap<Value, Value> scalars;
  SmallVector<Value> iterIndex;
  using Memo = std::map<std::pair<void *, std::vector<int64_t>>, Gen>;
  Memo memo;
  /// Results of the reductions computed so far for the current row.
  DenseMap<Value, Gen> reduced;
  /// When set, loads happen only where this i1 holds (zero otherwise).
  Value loadGuard;
  /// Tiled transpose: inputs whose element for the current item was staged
  /// in shared memory, with the map it was staged for.
  DenseMap<Value, std::pair<Gen, SmallVector<int64_t>>> stagedSlots;

public:
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

struct FusionLowerKernelsPass
    : mlir::fusion::impl::FusionLowerKernelsBase<FusionLowerKernelsPass> {
  using FusionLowerKernelsBase::FusionLowerKernelsBase;
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<KernelOp> kernels;
    module.walk([&](KernelOp k) { kernels.push_back(k); });
    if (kernels.empty())
      return;
    if (transposeTile != 16 && transposeTile != 32 && transposeTile != 64) {
      module.emitError("transpose-tile must be 16, 32 or 64, got ")
          << static_cast<int64_t>(transposeTile);
      return signalPassFailure();
    }
    module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                    UnitAttr::get(&getContext()));
    for (KernelOp kernel : kernels)
      if (failed(lower(kernel)))
        return signalPassFailure();
  }

  gpu::GPUModuleOp gpuModuleFor(FusionOp fusion) {
    ModuleOp module = getOperation();
    std::string name = (fusion.getSymName() + "_kernels").str();
    if (auto existing = module.lookupSymbol<gpu::GPUModuleOp>(name))
      return existing;
    OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
    return gpu::GPUModuleOp::create(b, fusion.getLoc(), name);
  }

  struct EmittedVariants {
    SmallVector<gpu::GPUFuncOp> funcs;
    /// Inputs the vectorized variant reads with vector loads.
    llvm::SmallSetVector<unsigned, 4> vectorLoaded;
    /// (input, input dim, iteration dim) reads, for the size checks.
    llvm::SetVector<std::tuple<unsigned, int64_t, int64_t>> accesses;
  };

  /// Creates one gpu.func per variant in `gpuModule` and fills its body
  /// with `emitBody`.
  FailureOr<EmittedVariants> emitVariants(
      KernelOp kernel, gpu::GPUModuleOp gpuModule, ArrayRef<Variant> variants,
      RankedTensorType iterType, std::optional<int64_t> block,
      function_ref<LogicalResult(PointwiseEmitter &, gpu::GPUFuncOp)> emitBody,
      int64_t numExtraParams = 0, ArrayRef<Type> extraBufferElements = {}) {
    EmittedVariants result;
    for (const Variant &variant : variants) {
      PointwiseEmitter emitter(kernel, variant, iterType);
      emitter.numExtraParams = numExtraParams;
      emitter.extraBufferElements.assign(extraBufferElements.begin(),
                                         extraBufferElements.end());
      OpBuilder mb = OpBuilder::atBlockEnd(gpuModule.getBody());
      FunctionType signature = emitter.signature(&getContext());
      if (failed(checkParamBytes(kernel, signature)))
        return failure();
      auto func =
          gpu::GPUFuncOp::create(mb, kernel.getLoc(), variant.name, signature);
      func->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), mb.getUnitAttr());
      // A block size chosen at launch is bounded instead (nvvm.maxntid).
      if (block)
        func.setKnownBlockSizeAttr(
            mb.getDenseI32ArrayAttr({static_cast<int32_t>(*block), 1, 1}));
      else
        func->setAttr("nvvm.maxntid",
                      mb.getDenseI32ArrayAttr(
                          {static_cast<int32_t>(kMaxRowThreads), 1, 1}));
      if (failed(emitBody(emitter, func)))
        return failure();
      if (variant.vector > 1)
        result.vectorLoaded = emitter.vectorLoadedInputs;
      result.accesses = emitter.accesses;
      result.funcs.push_back(func);
    }
    return result;
  }

  /// Kernel parameters as the module writer packs them (a memref is a
  /// descriptor of five 8-byte words, i32 and f32 take 4 bytes, the rest 8,
  /// each aligned to its size) must fit the driver's limit; a kernel that
  /// reads thousands of tensors is refused before anything is compiled.
  static LogicalResult checkParamBytes(KernelOp kernel,
                                       FunctionType signature) {
    size_t bytes = 0;
    size_t tensors = 0;
    for (Type type : signature.getInputs()) {
      size_t words = 1, size = 8;
      if (isa<MemRefType>(type)) {
        words = 5;
        ++tensors;
      } else if (type.isInteger(32) || type.isF32()) {
        size = 4;
      }
      for (size_t w = 0; w < words; ++w)
        bytes = (bytes + size - 1) / size * size + size;
    }
    if (bytes <= ::fusion::runtime::kMaxParamBytes)
      return success();
    return kernel.emitOpError()
           << "needs " << bytes << " bytes of kernel parameters ("
           << signature.getNumInputs() << " parameters, " << tensors
           << " of them tensors), over the "
           << ::fusion::runtime::kMaxParamBytes << " a launch can pass";
  }

  /// A launch of `func` (guard null: always taken) with the kernel's
  /// parameter types recorded, for packing once the gpu.func has become a
  /// binary.
  void createLaunch(OpBuilder &b, Location loc, HostBuilder &h,
                    gpu::GPUModuleOp gpuModule, gpu::GPUFuncOp func,
                    Value guard, Value gridX, Value gridY, Value blockX,
                    ValueRange args, Value smem = Value()) {
    auto symbol = SymbolRefAttr::get(
        &getContext(), gpuModule.getName(),
        {FlatSymbolRefAttr::get(&getContext(), func.getName())});
    auto launch =
        LaunchOp::create(b, loc, symbol, guard, gridX, gridY, h.c(1), blockX,
                         h.c(1), h.c(1), smem ? smem : h.c(0), args);
    launch->setAttr("param_types", b.getTypeArrayAttr(func.getArgumentTypes()));
  }

  /// Kernels read fusion inputs and the buffers of kernels lowered before
  /// them (intermediates between the kernels of a multi-kernel fusion).
  LogicalResult checkReadsFusionInputs(KernelOp kernel) {
    for (Value input : kernel.getInputs())
      if (isa<RankedTensorType>(input.getType()) &&
          !isa<BlockArgument>(input) && !input.getDefiningOp<EmptyOp>())
        return kernel.emitOpError(
            "reads a tensor that is neither a fusion input nor the buffer of "
            "a kernel before it");
    return success();
  }

  /// The sizes and strides of a kernel input on the host: a fusion input's
  /// as bound at run time, a buffer's from its sizes (buffers are
  /// contiguous, row-major).
  void inputDimsAndStrides(HostBuilder &h, Value input,
                           SmallVectorImpl<Value> &dims,
                           SmallVectorImpl<Value> &strides) {
    auto tensor = cast<RankedTensorType>(input.getType());
    OpBuilder &b = h.builder();
    Location loc = h.location();
    if (auto empty = input.getDefiningOp<EmptyOp>()) {
      unsigned next = 0;
      for (int64_t d = 0; d < tensor.getRank(); ++d)
        dims.push_back(tensor.isDynamicDim(d) ? empty.getSizes()[next++]
                                              : h.c(tensor.getDimSize(d)));
      strides.resize(tensor.getRank());
      Value stride = h.c(1);
      for (int64_t d = tensor.getRank() - 1; d >= 0; --d) {
        strides[d] = stride;
        stride = h.mul(stride, dims[d]);
      }
      return;
    }
    for (int64_t d = 0; d < tensor.getRank(); ++d) {
      dims.push_back(tensor.isDynamicDim(d)
                         ? Value(DimOp::create(b, loc, input, d))
                         : h.c(tensor.getDimSize(d)));
      strides.push_back(StrideOp::create(b, loc, input, d));
    }
  }

  /// How size checks name kernel input `k`: the fusion input, or the
  /// intermediate buffer.
  static std::string describeInput(KernelOp kernel, FusionOp fusion,
                                   unsigned k) {
    std::string text;
    llvm::raw_string_ostream os(text);
    if (auto arg = dyn_cast<BlockArgument>(kernel.getInputs()[k]))
      os << "input " << arg.getArgNumber() << " ("
         << fusion.getInputName(arg.getArgNumber()) << ")";
    else
      os << "intermediate input " << k << " of " << kernel.getSymName();
    return text;
  }

  /// The vectorized (when `vector` > 1), scalar 32-bit (unless `index64`)
  /// and scalar 64-bit variants, tried in that order.
  static SmallVector<Variant> plainVariants(StringRef base, int64_t vector,
                                            bool index64, bool fastMath) {
    std::string ix = index64 ? "_i64" : "_i32";
    SmallVector<Variant> variants;
    if (vector > 1)
      variants.push_back(
          {vector, index64, (base + "_v" + Twine(vector) + ix).str()});
    if (!index64)
      variants.push_back({1, false, (base + "_s_i32").str()});
    variants.push_back({1, true, (base + "_s_i64").str()});
    for (Variant &variant : variants)
      variant.fastMath = fastMath;
    return variants;
  }

  /// Whether two host sizes are the same value or the same dim of one input.
  static bool sameSize(Value x, Value y) {
    auto dx = x.getDefiningOp<DimOp>(), dy = y.getDefiningOp<DimOp>();
    return x == y || (dx && dy && dx.getInput() == dy.getInput() &&
                      dx.getDim() == dy.getDim());
  }

  /// A run-time check that `size` equals `expected` (none when both are the
  /// same value or the same dim of one input).
  void checkSameSize(HostBuilder &h, Value size, Value expected,
                     const Twine &what) {
    if (sameSize(size, expected))
      return;
    std::string message;
    llvm::raw_string_ostream(message) << what;
    CheckOp::create(h.builder(), h.location(), h.eq(size, expected), message,
                    size, expected);
  }

  /// The sizes of a reduction kernel's domain (`domainValue`, inside the
  /// kernel) as host values, with checks that every reduction's operand has
  /// them.
  FailureOr<SmallVector<Value>>
  reifyReducedDomain(KernelOp kernel, Value domainValue,
                     ArrayRef<Operation *> reductions, HostBuilder &h) {
    auto toHost = [&](Value v) { return kernelInputOutside(kernel, v); };
    int64_t rank = cast<RankedTensorType>(domainValue.getType()).getRank();
    SmallVector<Value> sizes;
    for (int64_t d = 0; d < rank; ++d) {
      FailureOr<Value> size =
          reifyDim(h.builder(), h.location(), domainValue, d, toHost);
      if (failed(size))
        return kernel.emitOpError("cannot express reduced dim ")
               << d << " from the inputs";
      sizes.push_back(*size);
    }
    for (Operation *op : reductions)
      for (int64_t d = 0; d < rank; ++d) {
        FailureOr<Value> size =
            reifyDim(h.builder(), h.location(), op->getOperand(0), d, toHost);
        if (failed(size))
          return op->emitOpError("cannot express operand dim ")
                 << d << " from the inputs";
        checkSameSize(h, *size, sizes[d],
                      "dim " + Twine(d) +
                          " of a reduced tensor must equal dim " + Twine(d) +
                          " of the kernel's first reduced tensor");
      }
    return sizes;
  }

  struct LaunchArgs {
    SmallVector<Value> args;
    Value vecOk, fits32;
  };

  /// `ok` and what `width`-element accesses of `input` need (Note [Variant
  /// guards]): a unit innermost stride, other strides that are multiples of
  /// the width, and a buffer aligned to `align` bytes.
  Value andVectorAccessOk(HostBuilder &h, OpBuilder &b, Location loc, Value ok,
                          Value input, ArrayRef<Value> strides, int64_t width,
                          int64_t align) {
    ok = h.mul(ok, h.eq(strides.back(), h.c(1)));
    for (size_t d = 0; d + 1 < strides.size(); ++d)
      ok = h.mul(ok, h.eq(h.rem(strides[d], h.c(width)), h.c(0)));
    return h.mul(ok, PtrAlignedOp::create(b, loc, input, align));
  }

  /// The host side shared by the kernel kinds: effective strides of the
  /// inputs, the checks that symbolic extents agree, and the run-time guards
  /// of the vectorized and 32-bit variants. `sizes` are the iteration
  /// extents; the launch arguments are the inputs (with their strides), the
  /// outputs and the sizes (the work count is appended by the caller).
  FailureOr<LaunchArgs> hostArgs(
      KernelOp kernel, FusionOp fusion, HostBuilder &h, ArrayRef<Value> sizes,
      const llvm::SetVector<std::tuple<unsigned, int64_t, int64_t>> &accesses,
      const llvm::SmallSetVector<unsigned, 4> &vectorLoaded, int64_t vector,
      ValueRange outputs) {
    OpBuilder b(kernel);
    Location loc = kernel.getLoc();
    int64_t rank = sizes.size();
    Value numel = h.c(1);
    for (Value size : sizes)
      numel = h.mul(numel, size);
    // Effective strides: a size-1 dim broadcasts, so its stride is 0.
    SmallVector<Value> args;
    SmallVector<SmallVector<Value>> inputStrides, inputDims;
    for (Value input : kernel.getInputs()) {
      auto tensor = dyn_cast<RankedTensorType>(input.getType());
      inputStrides.emplace_back();
      inputDims.emplace_back();
      args.push_back(input);
      if (!tensor)
        continue;
      SmallVector<Value> strides;
      inputDimsAndStrides(h, input, inputDims.back(), strides);
      for (auto [dim, stride] : llvm::zip(inputDims.back(), strides)) {
        Value effective = h.select(h.eq(dim, h.c(1)), h.c(0), stride);
        inputStrides.back().push_back(effective);
        args.push_back(effective);
      }
    }
    args.append(outputs.begin(), outputs.end());
    args.append(sizes.begin(), sizes.end());

    // Note [Equal operand sizes]: element-wise operands have equal sizes
    // (broadcasting is explicit: docs/dialect.md); only broadcast_in_dim and
    // expand stretch a size-1 dim. The access checks below let an input dim
    // be 1, which such a broadcast needs, so the operands of each
    // element-wise op are checked against each other too, as the interpreter
    // and the Python frontend check them: add(a of 2x3, b of 1x3) is an
    // error, not a broadcast.
    auto toHost = [&](Value v) { return kernelInputOutside(kernel, v); };
    auto describe = [&](Value v, unsigned operand) -> std::string {
      auto arg = dyn_cast<BlockArgument>(v);
      if (arg && arg.getOwner() == &kernel.getBody().front())
        return describeInput(kernel, fusion, arg.getArgNumber());
      return "operand " + std::to_string(operand);
    };
    kernel.getBody().walk([&](Operation *op) {
      if (!op->hasTrait<FusionElementwise>())
        return;
      Value first;
      unsigned firstIndex = 0;
      for (auto [i, operand] : llvm::enumerate(op->getOperands())) {
        auto type = dyn_cast<RankedTensorType>(operand.getType());
        if (!type)
          continue;
        if (!first) {
          first = operand;
          firstIndex = i;
          continue;
        }
        auto firstType = cast<RankedTensorType>(first.getType());
        for (int64_t d = 0; d < type.getRank(); ++d) {
          if (!type.isDynamicDim(d) && !firstType.isDynamicDim(d))
            continue; // equal, by the verifier
          FailureOr<Value> size =
              reifyDim(h.builder(), h.location(), operand, d, toHost);
          FailureOr<Value> expected =
              reifyDim(h.builder(), h.location(), first, d, toHost);
          if (failed(size) || failed(expected))
            continue;
          std::string message;
          llvm::raw_string_ostream os(message);
          os << describe(operand, i) << " dim " << d << " must equal "
             << describe(first, firstIndex) << " dim " << d
             << ", as operands of '" << op->getName()
             << "' (broadcasting is explicit: "
             << "broadcast_in_dim or expand)";
          checkSameSize(h, *size, *expected, message);
        }
      }
    });

    // Dynamic extents that must agree are checked before any launch.
    for (auto [k, d, it] : accesses) {
      auto tensor = cast<RankedTensorType>(kernel.getInputs()[k].getType());
      if (!tensor.isDynamicDim(d) && !isa<BlockArgument>(sizes[it]) &&
          sizes[it].getDefiningOp<arith::ConstantOp>())
        continue;
      Value dim = inputDims[k][d];
      if (!isa<BlockArgument>(kernel.getInputs()[k]) &&
          sameSize(dim, sizes[it]))
        continue; // an intermediate of the right size
      Value ok = h.max(h.eq(dim, sizes[it]), h.eq(dim, h.c(1)));
      std::string message;
      llvm::raw_string_ostream os(message);
      os << describeInput(kernel, fusion, k) << " dim " << d
         << " must equal result dim " << it << " or be 1";
      CheckOp::create(b, loc, ok, message, dim, sizes[it]);
    }

    // Note [Variant guards]: the vectorized variant needs the innermost
    // size to be a multiple of the width, 16-byte aligned buffers, unit
    // innermost strides and other strides that keep vectors aligned; the
    // 32-bit variants need every offset below 2^31.
    Value vecOk = h.c(1);
    if (vector > 1) {
      vecOk = h.eq(h.rem(sizes[rank - 1], h.c(vector)), h.c(0));
      for (unsigned k : vectorLoaded)
        vecOk = andVectorAccessOk(h, b, loc, vecOk, kernel.getInputs()[k],
                                  inputStrides[k], vector, 16);
      for (Value out : outputs)
        vecOk = h.mul(vecOk, PtrAlignedOp::create(b, loc, out, 16));
    }
    const int64_t limit32 = (int64_t(1) << 31) - (int64_t(1) << 25);
    Value fits32 = h.lt(numel, h.c(limit32));
    for (auto [k, input] : llvm::enumerate(kernel.getInputs())) {
      if (!isa<RankedTensorType>(input.getType()))
        continue;
      Value maxOffset = h.c(0);
      for (auto [dim, stride] : llvm::zip(inputDims[k], inputStrides[k]))
        maxOffset =
            h.add(maxOffset, h.mul(h.max(h.sub(dim, h.c(1)), h.c(0)), stride));
      fits32 = h.mul(fits32, h.lt(maxOffset, h.c(limit32)));
    }

    return LaunchArgs{args, vecOk, fits32};
  }

  /// The run-time guard of a plain variant (Note [Variant guards]): the
  /// vector checks and 32-bit offsets as the variant needs; null (always
  /// taken) for the scalar 64-bit one.
  static Value plainGuard(HostBuilder &h, const Variant &variant,
                          const LaunchArgs &launch) {
    if (variant.vector > 1)
      return variant.index64 ? launch.vecOk
                             : h.mul(launch.vecOk, launch.fits32);
    return variant.index64 ? Value() : launch.fits32;
  }

  LogicalResult lower(KernelOp kernel) {
    if (auto reduce = dyn_cast_if_present<InnerReductionScheduleAttr>(
            kernel.getScheduleAttr()))
      return lowerRowKernel(kernel, reduce);
    if (auto outer = dyn_cast_if_present<OuterReductionScheduleAttr>(
            kernel.getScheduleAttr()))
      return lowerOuterReduction(kernel, outer);
    auto schedule =
        dyn_cast_if_present<PointwiseScheduleAttr>(kernel.getScheduleAttr());
    if (!schedule)
      return kernel.emitOpError(
          "needs a #fusion.pointwise or #fusion.inner_reduction schedule (run "
          "--fusion-schedule)");
    if (kernel.getNumResults() == 0)
      return kernel.emitOpError("has no results");
    auto iterType = cast<RankedTensorType>(kernel.getResult(0).getType());
    for (Type t : kernel.getResultTypes()) {
      auto rt = cast<RankedTensorType>(t);
      if (rt.getRank() != iterType.getRank())
        return kernel.emitOpError(
                   "pointwise kernels need results of one shape; got ranks ")
               << iterType.getRank() << " and " << rt.getRank();
      for (int64_t d = 0; d < rt.getRank(); ++d)
        if (!rt.isDynamicDim(d) && !iterType.isDynamicDim(d) &&
            rt.getDimSize(d) != iterType.getDimSize(d))
          return kernel.emitOpError(
                     "pointwise kernels need results of one shape; dim ")
                 << d << " is " << iterType.getDimSize(d) << " and "
                 << rt.getDimSize(d);
    }
    auto fusion = kernel->getParentOfType<FusionOp>();
    if (failed(checkReadsFusionInputs(kernel)))
      return failure();
    int64_t rank = iterType.getRank();
    int64_t vector = schedule.getVector();
    if (rank == 0)
      vector = 1;

    std::string base = kernel.getSymName().str();
    SmallVector<Variant> variants = plainVariants(
        base, vector, schedule.getIndex64(), schedule.getFastMath());
    // The fallbacks handle odd layouts; unrolling serves the fast path.
    for (Variant &variant : variants)
      variant.unroll = variant.vector > 1 ? schedule.getUnroll() : 1;

    gpu::GPUModuleOp gpuModule = gpuModuleFor(fusion);
    FailureOr<EmittedVariants> emitted =
        emitVariants(kernel, gpuModule, variants, iterType, schedule.getBlock(),
                     [&](PointwiseEmitter &emitter, gpu::GPUFuncOp func) {
                       return emitter.emit(func);
                     });
    if (failed(emitted))
      return failure();
    auto &[funcs, vectorLoaded, accesses] = *emitted;

    // The host program, in place of the kernel.
    OpBuilder b(kernel);
    Location loc = kernel.getLoc();
    HostBuilder h(b, loc);
    SmallVector<Value> sizes;
    for (int64_t d = 0; d < rank; ++d) {
      FailureOr<Value> size = reifyDim(b, loc, kernel.getResult(0), d);
      if (failed(size))
        return kernel.emitOpError("cannot express result dim ")
               << d << " from the inputs";
      sizes.push_back(*size);
    }
    Value numel = h.c(1);
    for (Value s : sizes)
      numel = h.mul(numel, s);
    // All results share the iteration space; symbolic sizes that could
    // differ are checked before launching (segmentation puts results whose
    // ranks or static sizes differ in separate kernels).
    for (unsigned r = 1; r < kernel.getNumResults(); ++r) {
      for (int64_t d = 0; d < rank; ++d) {
        FailureOr<Value> size = reifyDim(b, loc, kernel.getResult(r), d);
        if (failed(size))
          return kernel.emitOpError("cannot express result ")
                 << r << " dim " << d << " from the inputs";
        if (*size == sizes[d])
          continue;
        std::string message;
        llvm::raw_string_ostream(message)
            << "result " << r << " dim " << d << " must equal result 0 dim "
            << d << ": outputs of different shapes in one pointwise kernel "
            << "are not supported yet";
        CheckOp::create(b, loc, h.eq(*size, sizes[d]), message, *size,
                        sizes[d]);
      }
    }

    SmallVector<Value> outputs;
    for (Type t : kernel.getResultTypes()) {
      auto rt = cast<RankedTensorType>(t);
      SmallVector<Value> dyn;
      for (int64_t d = 0; d < rank; ++d)
        if (rt.isDynamicDim(d))
          dyn.push_back(sizes[d]);
      outputs.push_back(EmptyOp::create(b, loc, rt, dyn, nullptr));
    }

    FailureOr<LaunchArgs> launch = hostArgs(kernel, fusion, h, sizes, accesses,
                                            vectorLoaded, vector, outputs);
    if (failed(launch))
      return failure();
    SmallVector<Value> args = launch->args;
    Value vecOk = launch->vecOk, fits32 = launch->fits32;

    // Note [Tiled transpose]: an input read along a non-innermost iteration
    // dim `p` by its own innermost dim (a transpose) makes the plain variants
    // read it with a large stride. A first variant then works on 64 x 64
    // tiles of dims (p, innermost; `transpose-tile`): 256 threads stage the
    // tile of each such input in shared memory (rows padded by one element)
    // reading along its innermost dim, 16 elements each, then compute and
    // write the outputs along theirs. Its guard is the 32-bit one. On the
    // H200 (bf16 transpose at the public shapes, fraction of copy): 64 x 64
    // tiles 0.785 / 0.817 / 0.819, 32 x 32 0.540 / 0.580 / 0.585, 16 x 16
    // 0.248 / 0.247 / 0.236.
    {
      int64_t p = -1;
      DenseMap<unsigned, SmallVector<int64_t>> maps;
      DenseSet<unsigned> conflicted;
      for (auto [k, d, it] : accesses) {
        auto t = cast<RankedTensorType>(kernel.getInputs()[k].getType());
        auto &map = maps[k];
        if (map.empty())
          map.assign(t.getRank(), -1);
        if (map[d] >= 0 && map[d] != it)
          conflicted.insert(k);
        map[d] = it;
      }
      SmallVector<unsigned> staged;
      for (auto &[k, map] : maps) {
        auto t = cast<RankedTensorType>(kernel.getInputs()[k].getType());
        int64_t inner = map.back();
        // A transpose: another dim of the input walks the innermost
        // iteration dim (a vector broadcast along rows is not one).
        bool transposed = llvm::is_contained(map, rank - 1);
        if (conflicted.contains(k) || t.getElementType().isInteger(1) ||
            !transposed || inner < 0 || inner == rank - 1 ||
            (p >= 0 && inner != p))
          continue;
        p = inner;
        staged.push_back(k);
      }
      llvm::sort(staged);
      if (rank >= 2 && !staged.empty()) {
        int64_t tile = transposeTile > 0 ? transposeTile : 64;
        Value tiles = h.mul(h.ceilDiv(sizes[rank - 1], h.c(tile)),
                            h.ceilDiv(sizes[p], h.c(tile)));
        for (int64_t d = 0; d < rank; ++d)
          if (d != p && d != rank - 1)
            tiles = h.mul(tiles, sizes[d]);
        Value grid = h.max(h.min(tiles, h.c(schedule.getMaxGrid())), h.c(1));
        SmallVector<Value> launchArgs(args);
        launchArgs.push_back(numel);
        // Note [Transpose pairs]: elements under 4 bytes move in pairs per
        // access in a first variant (a 4-byte bf16 pair: on the H200 an f32
        // transpose read 0.94-0.96 of copy where bf16, one 2-byte element
        // per access, read 0.77-0.81). Its guard adds even sizes along p
        // and q, unit innermost strides and even other strides for the
        // staged inputs and for inputs read along q, and 4-byte aligned
        // buffers; otherwise the one-element variant runs. Pairs with
        // 128 x 128 tiles read 0.910 / 0.917 / 0.899 in the suite against
        // 0.892 / 0.917 / 0.885 with 64 x 64, but the 32 unrolled pair
        // loads per thread doubled the cold compile of the transpose (250-
        // 308 ms against 149 on the GPU machine): 64 x 64 it is.
        int64_t narrowest = 8;
        for (unsigned k : staged)
          narrowest = std::min(narrowest,
                               storageBytes(cast<RankedTensorType>(
                                                kernel.getInputs()[k].getType())
                                                .getElementType()));
        SmallVector<int64_t> widths;
        if (narrowest < 4)
          widths.push_back(2);
        widths.push_back(1);
        for (int64_t width : widths) {
          Variant tiled{width, false,
                        base + "_t" + std::to_string(tile) +
                            (width > 1 ? "x" + std::to_string(width) : "") +
                            "_i32"};
          tiled.fastMath = schedule.getFastMath();
          PointwiseEmitter emitter(kernel, tiled, iterType);
          emitter.transposeTile = tile;
          OpBuilder mb = OpBuilder::atBlockEnd(gpuModule.getBody());
          auto func = gpu::GPUFuncOp::create(mb, kernel.getLoc(), tiled.name,
                                             emitter.signature(&getContext()));
          func->setAttr(gpu::GPUDialect::getKernelFuncAttrName(),
                        mb.getUnitAttr());
          func.setKnownBlockSizeAttr(mb.getDenseI32ArrayAttr({256, 1, 1}));
          if (failed(emitter.emitTransposeTiled(func, p, staged, maps)))
            return failure();
          Value guard = fits32;
          if (width > 1) {
            Value ok = h.mul(h.eq(h.rem(sizes[p], h.c(width)), h.c(0)),
                             h.eq(h.rem(sizes[rank - 1], h.c(width)), h.c(0)));
            for (auto &[k, map] : maps) {
              Value input = kernel.getInputs()[k];
              bool stagedInput = llvm::is_contained(staged, k);
              // Read along q with unit stride in the write phase: a pair
              // (an input read in two ways is checked either way).
              if (!stagedInput && map.back() != rank - 1 &&
                  !conflicted.contains(k))
                continue;
              SmallVector<Value> dims, strides;
              inputDimsAndStrides(h, input, dims, strides);
              ok = andVectorAccessOk(h, b, loc, ok, input, strides, width, 4);
            }
            for (Value out : outputs)
              ok = h.mul(ok, PtrAlignedOp::create(b, loc, out, 4));
            guard = h.mul(fits32, ok);
          }
          createLaunch(b, loc, h, gpuModule, func, guard, grid, h.c(1),
                       h.c(256), launchArgs);
        }
      }
    }

    Value blockSize = h.c(schedule.getBlock());
    for (auto [i, variant] : llvm::enumerate(variants)) {
      Value guard;
      if (variant.vector > 1)
        guard = variant.index64 ? vecOk : h.mul(vecOk, fits32);
      else if (!variant.index64 && i + 1 < variants.size())
        guard = fits32;
      Value count =
          variant.vector > 1 ? h.floorDiv(numel, h.c(variant.vector)) : numel;
      // Enough blocks for `unroll` items per thread, capped by max_grid;
      // past the cap the kernel's grid-stride loop takes the rest.
      Value grid =
          h.max(h.min(h.ceilDiv(count, h.mul(blockSize, h.c(variant.unroll))),
                      h.c(schedule.getMaxGrid())),
                h.c(1));
      SmallVector<Value> launchArgs(args);
      launchArgs.push_back(count);
      Value smem = h.c(0);
      if (auto bytes = funcs[i]->getAttrOfType<IntegerAttr>(
              "fusion.stage_bytes_per_thread"))
        smem = h.mul(blockSize, h.c(bytes.getInt()));
      createLaunch(b, loc, h, gpuModule, funcs[i], guard, grid, h.c(1),
                   blockSize, launchArgs, smem);
    }
    kernel.replaceAllUsesWith(outputs);
    kernel.erase();
    return success();
  }

  // Note [Outer reduction lowering]: columns are the kept (trailing) dims,
  // rows the reduced (leading) ones; see #fusion.outer_reduction. The host
  // program picks the split S of the rows per column group from the grid
  // target, and allocates the workspaces (S x columns, accumulation type)
  // and the counters (zeroed by the runtime; the last block of a group
  // resets its counter). Variants and guards are the pointwise ones.
  LogicalResult lowerOuterReduction(KernelOp kernel,
                                    OuterReductionScheduleAttr schedule) {
    std::string why;
    Operation *culprit = nullptr;
    FailureOr<OuterKernelInfo> info = analyzeOuterKernel(kernel, why, culprit);
    if (failed(info))
      return (culprit ? culprit->emitOpError() : kernel.emitOpError())
             << "cannot be lowered with an outer_reduction schedule: " << why;
    if (failed(checkReadsFusionInputs(kernel)))
      return failure();
    auto fusion = kernel->getParentOfType<FusionOp>();
    RankedTensorType iterType = info->domain;
    int64_t rank = iterType.getRank(), p = info->numReduced;
    int64_t vector = schedule.getVector();
    SmallVector<Variant> variants =
        plainVariants(kernel.getSymName(), vector, schedule.getIndex64(),
                      schedule.getFastMath());

    SmallVector<Type> accTypes;
    for (Operation *op : info->reductions)
      accTypes.push_back(
          accumulatorType(cast<RankedTensorType>(op->getOperand(0).getType())
                              .getElementType()));
    SmallVector<Type> bufferElements(accTypes);
    bufferElements.push_back(IntegerType::get(&getContext(), 32));

    gpu::GPUModuleOp gpuModule = gpuModuleFor(fusion);
    FailureOr<EmittedVariants> emittedOr = emitVariants(
        kernel, gpuModule, variants, iterType, /*block=*/256,
        [&](PointwiseEmitter &emitter, gpu::GPUFuncOp func) {
          return emitter.emitOuterReduction(func, *info, schedule.getUnroll());
        },
        /*numExtraParams=*/3, bufferElements);
    if (failed(emittedOr))
      return failure();
    EmittedVariants &emitted = *emittedOr;

    OpBuilder b(kernel);
    Location loc = kernel.getLoc();
    HostBuilder h(b, loc);
    FailureOr<SmallVector<Value>> domainSizes =
        reifyReducedDomain(kernel, info->domainValue, info->reductions, h);
    if (failed(domainSizes))
      return failure();
    SmallVector<Value> &sizes = *domainSizes;
    Value rows = h.c(1), cols = h.c(1);
    for (int64_t d = 0; d < rank; ++d)
      (d < p ? rows : cols) = h.mul(d < p ? rows : cols, sizes[d]);
    SmallVector<Value> outputs;
    for (auto [r, type] : llvm::enumerate(kernel.getResultTypes())) {
      auto rt = cast<RankedTensorType>(type);
      SmallVector<Value> dyn;
      for (int64_t d = 0; d < rt.getRank(); ++d) {
        if (!rt.isDynamicDim(d))
          continue;
        FailureOr<Value> size = reifyDim(b, loc, kernel.getResult(r), d);
        if (failed(size))
          return kernel.emitOpError("cannot express result ")
                 << r << " dim " << d << " from the inputs";
        dyn.push_back(*size);
      }
      outputs.push_back(EmptyOp::create(b, loc, rt, dyn, nullptr));
    }
    // The split: about `target_blocks` blocks, at least 64 rows per split.
    Value groups = h.ceilDiv(h.ceilDiv(cols, h.c(vector)), h.c(32));
    Value maxSplits = h.max(h.ceilDiv(rows, h.c(64)), h.c(1));
    Value splits = h.max(h.min(h.min(h.ceilDiv(h.c(schedule.getTargetBlocks()),
                                               h.max(groups, h.c(1))),
                                     maxSplits),
                               h.c(65535)),
                         h.c(1));
    Value rowsPerSplit = h.max(h.ceilDiv(rows, splits), h.c(1));
    SmallVector<Value> buffers(outputs);
    for (Type acc : accTypes) {
      Value size = h.mul(h.select(h.lt(h.c(1), splits), splits, h.c(0)), cols);
      buffers.push_back(EmptyOp::create(
          b, loc, RankedTensorType::get({ShapedType::kDynamic}, acc),
          ValueRange{size}, nullptr));
    }
    // Counters for the scalar variants' column groups (the most).
    Value counterSize = h.ceilDiv(cols, h.c(32));
    buffers.push_back(EmptyOp::create(
        b, loc,
        RankedTensorType::get({ShapedType::kDynamic},
                              IntegerType::get(&getContext(), 32)),
        ValueRange{counterSize}, b.getUnitAttr(), b.getUnitAttr()));
    FailureOr<LaunchArgs> launch =
        hostArgs(kernel, fusion, h, sizes, emitted.accesses,
                 emitted.vectorLoaded, vector, buffers);
    if (failed(launch))
      return failure();
    for (auto [i, variant] : llvm::enumerate(variants)) {
      Value guard = plainGuard(h, variant, *launch);
      Value grid = h.max(
          h.ceilDiv(h.ceilDiv(cols, h.c(variant.vector)), h.c(32)), h.c(1));
      SmallVector<Value> launchArgs(launch->args);
      launchArgs.push_back(cols);
      launchArgs.append({rows, splits, rowsPerSplit});
      createLaunch(b, loc, h, gpuModule, emitted.funcs[i], guard, grid, splits,
                   h.c(256), launchArgs);
    }
    kernel.replaceAllUsesWith(outputs);
    kernel.erase();
    return success();
  }

  // Note [Inner reduction lowering]: rows are the outer dims; `T` threads
  // reduce a row (a parameter computed at launch from the row length, see
  // Note [Inner reduction heuristic]) and a block of `max(block, T)` threads
  // takes `block / T` rows at a time. Variants, tried in order: persistent
  // (the row stays in registers) vectorized and scalar when the row fits,
  // then streaming (one read of the row per pass) vectorized, scalar 32-bit
  // and scalar 64-bit. The guards are the pointwise ones plus the row-length
  // bound of the persistent variants.
  LogicalResult lowerRowKernel(KernelOp kernel,
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
    int64_t vector = schedule.getVector();
    int64_t items = info->hasFullResult() ? schedule.getItems() : 0;
    bool index64 = schedule.getIndex64();
    std::string base = kernel.getSymName().str();
    std::string ix = index64 ? "_i64" : "_i32";
    std::string vname = "v" + std::to_string(vector);
    SmallVector<Variant> variants;
    if (items > 0) {
      if (vector > 1) {
        variants.push_back({vector, index64, base + "_p" + vname + ix});
        variants.back().items = items;
      }
      variants.push_back({1, index64, base + "_ps" + ix});
      variants.back().items = std::max<int64_t>(1, vector * items / 2);
    }
    variants.append(
        plainVariants(base, vector, index64, schedule.getFastMath()));
    for (Variant &variant : variants) {
      variant.fastMath = schedule.getFastMath();
      variant.stage =
          variant.items > 0 && variant.vector > 1 && schedule.getStageRow();
      variant.maxBlock = std::max(schedule.getBlock(), kMaxRowThreads);
    }
    // Split-row variants, tried first (Note [Split rows]): per-row results
    // of one pass, 32-bit offsets.
    SmallVector<Variant> splitVariants;
    SmallVector<Type> stateElements;
    if (!info->hasFullResult() && info->numPasses == 1 && !index64) {
      if (vector > 1)
        splitVariants.push_back({vector, false, base + "_g" + vname + "_i32"});
      splitVariants.push_back({1, false, base + "_gs_i32"});
      for (Variant &variant : splitVariants) {
        variant.split = true;
        variant.fastMath = schedule.getFastMath();
      }
      for (const RowReduction &r : info->reductions) {
        if (r.onlineMax)
          continue;
        Type acc = accumulatorType(
            cast<RankedTensorType>(r.op->getOperand(0).getType())
                .getElementType());
        if (isa<ArgmaxOp, ArgminOp>(r.op)) {
          // (value, index): Note [Arg reductions].
          stateElements.push_back(acc);
          stateElements.push_back(IntegerType::get(&getContext(), 64));
          continue;
        }
        int64_t width = isa<VarMeanOp>(r.op) ? 3 : r.onlineSum ? 2 : 1;
        stateElements.append(width, acc);
      }
      stateElements.push_back(IntegerType::get(&getContext(), 32));
    }

    gpu::GPUModuleOp gpuModule = gpuModuleFor(fusion);
    SmallVector<gpu::GPUFuncOp> splitFuncs;
    if (!splitVariants.empty()) {
      FailureOr<EmittedVariants> emittedSplit = emitVariants(
          kernel, gpuModule, splitVariants, iterType, /*block=*/std::nullopt,
          [&](PointwiseEmitter &emitter, gpu::GPUFuncOp func) {
            return emitter.emitRowKernel(func, *info);
          },
          /*numExtraParams=*/1, stateElements);
      if (failed(emittedSplit))
        return failure();
      splitFuncs = emittedSplit->funcs;
    }
    FailureOr<EmittedVariants> emitted = emitVariants(
        kernel, gpuModule, variants, iterType, /*block=*/std::nullopt,
        [&](PointwiseEmitter &emitter, gpu::GPUFuncOp func) {
          if (emitter.getVariant().items > 0) {
            // A probe emission finds the loads that depend on the row and
            // the column: those are prefetched (Note [Row prefetch]).
            PointwiseEmitter probe(kernel, emitter.getVariant(), iterType);
            probe.numExtraParams = 1;
            OpBuilder pb(func);
            auto probeFunc = gpu::GPUFuncOp::create(
                pb, kernel.getLoc(), "probe", probe.signature(&getContext()));
            probe.recordLoads = true;
            LogicalResult ok = probe.emitRowKernel(probeFunc, *info);
            probeFunc.erase();
            if (failed(ok))
              return failure();
            for (auto &entry : probe.loadLog) {
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
            func->setAttr("nvvm.minctasm",
                          IntegerAttr::get(IntegerType::get(&getContext(), 32),
                                           innerMinBlocks));
          return emitter.emitRowKernel(func, *info);
        },
        /*numExtraParams=*/1);
    if (failed(emitted))
      return failure();
    auto &[funcs, vectorLoaded, accesses] = *emitted;

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
    SmallVector<Value> outputs;
    for (auto [r, type] : llvm::enumerate(kernel.getResultTypes())) {
      auto rt = cast<RankedTensorType>(type);
      SmallVector<Value> dyn;
      for (int64_t d = 0; d < rt.getRank(); ++d) {
        if (!rt.isDynamicDim(d) && !(info->fullResult[r] || d + 1 < rank))
          continue;
        FailureOr<Value> size = reifyDim(b, loc, kernel.getResult(r), d);
        if (failed(size))
          return kernel.emitOpError("cannot express result ")
                 << r << " dim " << d << " from the inputs";
        if (d < rank && (info->fullResult[r] || d + 1 < rank))
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
    FailureOr<LaunchArgs> launch = hostArgs(kernel, fusion, h, sizes, accesses,
                                            vectorLoaded, vector, outputs);
    if (failed(launch))
      return failure();
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
    if (!splitFuncs.empty()) {
      // About max_grid / 4 blocks of 512 threads (4 per SM by default), at
      // least one chunk of the streaming loop per block.
      Value targetBlocks = h.c(std::max<int64_t>(schedule.getMaxGrid() / 4, 1));
      auto splitsFor = [&](int64_t vec) {
        Value chunk =
            h.c(kMaxRowThreads * vec * PointwiseEmitter::kStreamItems);
        Value splits = h.min(h.ceilDiv(targetBlocks, h.max(rows, h.c(1))),
                             h.ceilDiv(rowLength, chunk));
        return h.max(h.min(splits, h.c(65535)), h.c(1));
      };
      // The scalar variant splits the most: the buffers fit it.
      Value most = splitsFor(1);
      Value used = h.lt(h.c(1), most);
      Value slots = h.select(used, h.mul(rows, most), h.c(0));
      SmallVector<Value> extra;
      for (Type element : ArrayRef<Type>(stateElements).drop_back())
        extra.push_back(EmptyOp::create(
            b, loc, RankedTensorType::get({ShapedType::kDynamic}, element),
            ValueRange{slots}, nullptr));
      extra.push_back(EmptyOp::create(
          b, loc,
          RankedTensorType::get({ShapedType::kDynamic},
                                IntegerType::get(&getContext(), 32)),
          ValueRange{h.select(used, rows, h.c(0))}, b.getUnitAttr(),
          b.getUnitAttr()));
      SmallVector<Value> splitArgs(launch->args);
      splitArgs.insert(splitArgs.end() - rank, extra.begin(), extra.end());
      splitArgs.push_back(rows);
      splitArgs.push_back(h.c(kMaxRowThreads));
      for (auto [variant, func] : llvm::zip(splitVariants, splitFuncs)) {
        Value splits = splitsFor(variant.vector);
        Value guard = h.mul(h.lt(h.c(1), splits), launch->fits32);
        guard = h.mul(guard, h.lt(h.c(0), rows));
        // The scalar split only where the vectorized variants cannot run:
        // a row a vectorized block streams alone beats scalar loads.
        if (variant.vector > 1)
          guard = h.mul(guard, launch->vecOk);
        else if (vector > 1)
          guard = h.mul(guard, h.sub(h.c(1), launch->vecOk));
        createLaunch(b, loc, h, gpuModule, func, guard, rows, splits,
                     h.c(kMaxRowThreads), splitArgs);
      }
    }
    Value blockTarget = h.c(schedule.getBlock());
    for (auto [i, variant] : llvm::enumerate(variants)) {
      Value guard = plainGuard(h, variant, *launch);
      int64_t perThread =
          variant.vector *
          (variant.items > 0 ? variant.items : PointwiseEmitter::kStreamItems);
      if (variant.items > 0) {
        Value fits = h.lt(rowLength, h.c(kMaxRowThreads * perThread + 1));
        guard = guard ? h.mul(guard, fits) : fits;
      }
      // T: a multiple of 32 with `perThread` elements each, 32 to 512.
      Value threads = h.mul(
          h.ceilDiv(h.ceilDiv(rowLength, h.c(perThread)), h.c(32)), h.c(32));
      threads = h.min(h.max(threads, h.c(32)), h.c(kMaxRowThreads));
      Value rowsPerBlock = h.max(h.floorDiv(blockTarget, threads), h.c(1));
      Value blockSize = h.mul(threads, rowsPerBlock);
      Value grid = h.max(
          h.min(h.ceilDiv(rows, rowsPerBlock), h.c(schedule.getMaxGrid())),
          h.c(1));
      SmallVector<Value> launchArgs(launch->args);
      launchArgs.push_back(rows);
      launchArgs.push_back(threads);
      Value smem = h.c(0);
      if (auto bytes = funcs[i]->getAttrOfType<IntegerAttr>(
              "fusion.stage_bytes_per_thread"))
        smem = h.mul(blockSize, h.c(bytes.getInt()));
      createLaunch(b, loc, h, gpuModule, funcs[i], guard, grid, h.c(1),
                   blockSize, launchArgs, smem);
    }
    kernel.replaceAllUsesWith(outputs);
    kernel.erase();
    return success();
  }

  /// Most threads reducing one row; kernels declare it as their maximum
  /// block size, so ptxas keeps them within 128 registers per thread.
  static constexpr int64_t kMaxRowThreads = 512;
};

} // namespace
