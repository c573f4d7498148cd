//===- Transpose.cpp - the tiled transpose variant ------------------------===//
// A pointwise kernel that reads an input across its innermost dim stages
// tiles in shared memory (Note [Tiled transpose]).
//===----------------------------------------------------------------------===//

#include "HostProgram.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::fusion;

namespace mlir::fusion::lowering {

/// Writes the tiled transpose variant (Note [Tiled transpose]): a loop over
/// the tiles; per tile the staged inputs go to shared memory along p, then
/// the outputs are computed and written along q. Ops are created in the
/// order the IR has them.
class KernelEmitter::TransposeWriter : PhaseWriter {
public:
  TransposeWriter(KernelEmitter &e, gpu::GPUFuncOp func, int64_t p,
                  ArrayRef<unsigned> staged,
                  const DenseMap<unsigned, SmallVector<int64_t>> &stagedMaps,
                  OpBuilder &b)
      : PhaseWriter(e, func, b), p(p), q(e.rank - 1), staged(staged),
        stagedMaps(stagedMaps), tile(e.transposeTile), pad(e.transposeTile + 1),
        width(e.variant.vector), steps(tile * tile / (kThreads * width)),
        kernelBody(e.kernel.getBody().front()) {}

  LogicalResult write();

private:
  static constexpr int64_t kThreads = 256;

  void makeSharedTiles();
  void emitTileLoop();
  std::pair<Value, Value> position(int64_t step, bool fastAlongP);
  void stageStep(int64_t step);
  LogicalResult storeStep(int64_t step);

  int64_t p, q;
  ArrayRef<unsigned> staged;
  const DenseMap<unsigned, SmallVector<int64_t>> &stagedMaps;
  const int64_t tile, pad;
  // Note [Transpose pairs]: with variant.vector == 2 every thread moves
  // two neighbouring elements per access: a 2-element load along p when
  // staging, a 2-element store along q when writing.
  const int64_t width, steps;
  Block &kernelBody;

  SmallVector<Value> outputs, sizes;
  YieldOp yield;
  DenseMap<unsigned, Value> shared;
  Value threadId, p0, q0;
};

LogicalResult KernelEmitter::emitTransposeTiled(
    gpu::GPUFuncOp func, int64_t p, ArrayRef<unsigned> staged,
    const DenseMap<unsigned, SmallVector<int64_t>> &stagedMaps) {
  OpBuilder b = OpBuilder::atBlockBegin(&func.getBody().front());
  builder = &b;
  loc = kernel.getLoc();
  return TransposeWriter(*this, func, p, staged, stagedMaps, b).write();
}

LogicalResult KernelEmitter::TransposeWriter::write() {
  Value count;
  std::tie(outputs, sizes, count) = e.bindParams(func);
  yield = cast<YieldOp>(kernelBody.getTerminator());
  makeSharedTiles();
  emitTileLoop();
  for (int64_t step = 0; step < steps; ++step)
    stageStep(step);
  gpu::BarrierOp::create(b, loc);
  for (int64_t step = 0; step < steps; ++step)
    if (failed(storeStep(step)))
      return failure();
  // The next tile reuses the shared tiles.
  gpu::BarrierOp::create(b, loc);
  b.setInsertionPointToEnd(&func.getBody().front());
  gpu::ReturnOp::create(b, loc);
  return success();
}

/// A tile of each staged input, its rows padded by one element.
void KernelEmitter::TransposeWriter::makeSharedTiles() {
  for (unsigned k : staged) {
    Type element =
        storageType(cast<RankedTensorType>(e.kernel.getInputs()[k].getType())
                        .getElementType());
    shared[k] = addWorkgroupBuffer(func, tile * pad, element, loc);
  }
}

/// The grid-stride loop over the tiles (of p and q, times the other dims);
/// inside it, the other dims' indices and the tile's origin (p0, q0).
void KernelEmitter::TransposeWriter::emitTileLoop() {
  threadId = toIdx(gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x));
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
  e.iterIndex.assign(rank, Value());
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
      e.iterIndex[d] = rest;
    } else {
      e.iterIndex[d] = arith::RemUIOp::create(b, loc, rest, sizes[d]);
      rest = arith::DivUIOp::create(b, loc, rest, sizes[d]);
    }
  }
  p0 = mul(tp, constIdx(tile));
  q0 = mul(tq, constIdx(tile));
}

// Access e of a step: (a along p, c along q), the first of `width`
// neighbours along the fast dim. With pairs the sizes of p and q are
// even (the variant's guard), so the pair of an in-bounds first element
// is in bounds. Returns (in bounds, shared slot).
std::pair<Value, Value>
KernelEmitter::TransposeWriter::position(int64_t step, bool fastAlongP) {
  Value at = add(threadId, constIdx(step * kThreads));
  Value fast = arith::RemUIOp::create(b, loc, at, constIdx(tile / width));
  Value slow = arith::DivUIOp::create(b, loc, at, constIdx(tile / width));
  fast = mul(fast, constIdx(width));
  Value a = fastAlongP ? fast : slow, c = fastAlongP ? slow : fast;
  e.iterIndex[p] = add(p0, a);
  e.iterIndex[q] = add(q0, c);
  Value inBounds = arith::AndIOp::create(
      b, loc, cmp(arith::CmpIPredicate::ult, e.iterIndex[p], sizes[p]),
      cmp(arith::CmpIPredicate::ult, e.iterIndex[q], sizes[q]));
  Value slot = add(mul(a, constIdx(pad)), c);
  return std::make_pair(inBounds, slot);
}

/// Stage: consecutive threads read consecutive elements of the staged
/// inputs (along p, their innermost dim).
void KernelEmitter::TransposeWriter::stageStep(int64_t step) {
  auto [inBounds, slot] = position(step, /*fastAlongP=*/true);
  for (unsigned k : staged) {
    e.memo.clear();
    if (width == 1) {
      e.loadGuard = inBounds;
      Gen g = e.load(kernelBody.getArgument(k), stagedMaps.lookup(k));
      e.loadGuard = Value();
      memref::StoreOp::create(b, loc, g.value, shared[k], toIndex(slot));
      continue;
    }
    // A pair along p, the input's innermost dim (unit stride: the
    // guard), into the slots of rows a and a + 1.
    TensorParam &param = e.tensors[kernelBody.getArgument(k)];
    Value offset = constIdx(0);
    for (auto [d, it] : llvm::enumerate(stagedMaps.lookup(k)))
      if (it >= 0)
        offset = add(offset, mul(e.iterIndex[it], param.strides[d]));
    Type stored = cast<MemRefType>(shared[k].getType()).getElementType();
    VectorType pairType = e.vectorOf(stored);
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
      scf::YieldOp::create(b, loc, e.zero(pairType));
    }
    for (int64_t j = 0; j < width; ++j) {
      Value element = vector::ExtractOp::create(b, loc, ifIn.getResult(0),
                                                ArrayRef<int64_t>{j});
      memref::StoreOp::create(b, loc, element, shared[k],
                              toIndex(add(slot, constIdx(j * pad))));
    }
  }
}

/// Compute and store: consecutive threads write consecutive elements of
/// the outputs (along q); staged inputs come from shared memory.
LogicalResult KernelEmitter::TransposeWriter::storeStep(int64_t step) {
  auto [inBounds, slot] = position(step, /*fastAlongP=*/false);
  e.memo.clear();
  e.stagedSlots.clear();
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
                  b, loc, e.vectorOf(first.getType()), lanes),
              true};
    }
    e.stagedSlots[kernelBody.getArgument(k)] = {g, stagedMaps.lookup(k)};
  }
  e.loadGuard = inBounds;
  SmallVector<Gen> gens;
  SmallVector<int64_t> identity;
  for (int64_t d = 0; d < rank; ++d)
    identity.push_back(d);
  for (Value value : yield.getOperands()) {
    FailureOr<Gen> gen = e.generate(value, identity);
    if (failed(gen))
      return failure();
    gens.push_back(*gen);
  }
  e.loadGuard = Value();
  e.stagedSlots.clear();
  auto ifIn = scf::IfOp::create(b, loc, inBounds, false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(ifIn.thenBlock()->getTerminator());
  Value offset = constIdx(0);
  for (int64_t d = 0; d < rank; ++d)
    offset = add(mul(offset, sizes[d]), e.iterIndex[d]);
  for (auto [gen, value, out] : llvm::zip(gens, yield.getOperands(), outputs))
    e.store(gen, cast<RankedTensorType>(value.getType()).getElementType(), out,
            offset);
  return success();
}

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
LogicalResult KernelLowering::lowerTransposeVariants(
    KernelOp kernel, PointwiseScheduleAttr schedule,
    const llvm::SetVector<std::tuple<unsigned, int64_t, int64_t>> &accesses,
    HostBuilder &h, const PointwiseHost &host, bool &tiled) {
  OpBuilder &b = h.builder();
  Location loc = h.location();
  auto [gpuModule, iterType, base, sizes, numel, args, fits32, outputs] = host;
  int64_t rank = iterType.getRank();
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
        !transposed || inner < 0 || inner == rank - 1 || (p >= 0 && inner != p))
      continue;
    p = inner;
    staged.push_back(k);
  }
  llvm::sort(staged);
  tiled = rank >= 2 && !staged.empty();
  if (tiled) {
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
      emitter.hardwareFp8 = hardwareFp8;
      OpBuilder mb = OpBuilder::atBlockEnd(gpuModule.getBody());
      auto func = gpu::GPUFuncOp::create(mb, kernel.getLoc(), tiled.name,
                                         emitter.signature(&getContext()));
      func->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), mb.getUnitAttr());
      func.setKnownBlockSizeAttr(mb.getDenseI32ArrayAttr({256, 1, 1}));
      if (failed(emitter.emitTransposeTiled(func, p, staged, maps)))
        return failure();
      if (width != widths.front())
        fallbackFuncs.insert(func);
      Value guard = fits32;
      if (width > 1) {
        Value ok = h.mul(h.eq(h.rem(sizes[p], h.c(width)), h.c(0)),
                         h.eq(h.rem(sizes[rank - 1], h.c(width)), h.c(0)));
        for (auto &[k, map] : maps) {
          Value input = kernel.getInputs()[k];
          bool stagedInput = llvm::is_contained(staged, k);
          // Read along q with unit stride in the write phase: a pair
          // (an input read in two ways is checked either way).
          if (!stagedInput && map.back() != rank - 1 && !conflicted.contains(k))
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
  return success();
}

} // namespace mlir::fusion::lowering
