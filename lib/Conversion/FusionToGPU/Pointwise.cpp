//===- Pointwise.cpp - lowering of #fusion.pointwise kernels
//----------------===//
// The unrolled grid-stride loop of a pointwise kernel, its variants, and its
// host program (with the tiled transpose variant of Transpose.cpp first).
//===----------------------------------------------------------------------===//

#include "HostProgram.h"

#include "fusion/Transforms/ShapeReification.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::fusion;

namespace mlir::fusion::lowering {

LogicalResult KernelEmitter::emit(gpu::GPUFuncOp func) {
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

FailureOr<SmallVector<Gen>>
KernelEmitter::generateItem(Value work, ArrayRef<Value> sizes, YieldOp yield) {
  OpBuilder &b = *builder;
  memo.clear();
  iterIndex.assign(rank, Value());
  Value rest = work;
  for (int64_t d = rank - 1; d >= 0; --d) {
    Value extent = sizes[d];
    if (d == rank - 1 && variant.vector > 1)
      extent = arith::DivUIOp::create(b, loc, extent, constIdx(variant.vector));
    if (d == 0) {
      iterIndex[d] = rest;
    } else {
      iterIndex[d] = arith::RemUIOp::create(b, loc, rest, extent);
      rest = arith::DivUIOp::create(b, loc, rest, extent);
    }
    if (d == rank - 1 && variant.vector > 1)
      iterIndex[d] =
          arith::MulIOp::create(b, loc, iterIndex[d], constIdx(variant.vector));
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

void KernelEmitter::storeItem(Value work, ArrayRef<Gen> values, YieldOp yield,
                              ArrayRef<Value> outputs) {
  Value offset =
      variant.vector > 1
          ? arith::MulIOp::create(*builder, loc, work, constIdx(variant.vector))
                .getResult()
          : work;
  for (auto [gen, value, out] : llvm::zip(values, yield.getOperands(), outputs))
    store(gen, cast<RankedTensorType>(value.getType()).getElementType(), out,
          offset);
}

LogicalResult KernelLowering::lowerPointwise(KernelOp kernel,
                                             PointwiseScheduleAttr schedule) {
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
                   [&](KernelEmitter &emitter, gpu::GPUFuncOp func) {
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
          << "result " << r << " dim " << d << " must equal result 0 dim " << d
          << ": outputs of different shapes in one pointwise kernel "
          << "are not supported yet";
      CheckOp::create(b, loc, h.eq(*size, sizes[d]), message, *size, sizes[d]);
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
        narrowest = std::min(
            narrowest,
            storageBytes(cast<RankedTensorType>(kernel.getInputs()[k].getType())
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
        KernelEmitter emitter(kernel, tiled, iterType);
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
        createLaunch(b, loc, h, gpuModule, func, guard, grid, h.c(1), h.c(256),
                     launchArgs);
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
    createLaunch(b, loc, h, gpuModule, funcs[i], guard, grid, h.c(1), blockSize,
                 launchArgs, smem);
  }
  kernel.replaceAllUsesWith(outputs);
  kernel.erase();
  return success();
}

} // namespace mlir::fusion::lowering
