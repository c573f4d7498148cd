//===- Pointwise.cpp - lowering of #fusion.pointwise kernels --------------===//
// The unrolled grid-stride loop of a pointwise kernel, its variants, and its
// host program (with the tiled transpose variant of Transpose.cpp first).
//===----------------------------------------------------------------------===//

#include "HostProgram.h"

#include "fusion/Dialect/Fusion/Transforms/ShapeReification.h"

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

Value KernelEmitter::firstElementOf(Value work) {
  if (variant.vector == 1)
    return work;
  return arith::MulIOp::create(*builder, loc, work, constIdx(variant.vector));
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
  itemOffset = firstElementOf(work);
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
  Value offset = firstElementOf(work);
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
  // Index ops read extents at run time (Note [Index contexts]).
  SmallVector<std::pair<Value, int64_t>> extents =
      KernelEmitter::collectExtents(kernel);
  bool hasIndexOps = false;
  kernel.getBody().walk(
      [&](Operation *op) { hasIndexOps |= KernelEmitter::isIndexingOp(op); });
  FailureOr<EmittedVariants> emitted = emitVariants(
      kernel, gpuModule, variants, iterType, schedule.getBlock(),
      [&](KernelEmitter &emitter, gpu::GPUFuncOp func) {
        emitter.extents = extents;
        return emitter.emit(func);
      },
      extents.size());
  if (failed(emitted))
    return failure();
  SmallVector<gpu::GPUFuncOp> &funcs = emitted->funcs;
  auto &vectorLoaded = emitted->vectorLoaded;
  auto &accesses = emitted->accesses;

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
  // All results share the iteration space; symbolic sizes that element-wise
  // ops tie together are checked before launching (segmentation puts
  // results that could differ in separate kernels: Note [Results of one
  // shape]).
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

  bool tiled = false;
  if (!hasIndexOps &&
      failed(lowerTransposeVariants(
          kernel, schedule, accesses, h,
          {gpuModule, iterType, base, sizes, numel, args, fits32, outputs},
          tiled)))
    return failure();
  if (tiled)
    fallbackFuncs.insert(funcs.begin(), funcs.end());

  FailureOr<SmallVector<Value>> extentArgs =
      indexOpHostArgs(kernel, h, extents);
  if (failed(extentArgs))
    return failure();

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
    launchArgs.append(*extentArgs);
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
