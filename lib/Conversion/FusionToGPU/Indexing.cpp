//===- Indexing.cpp - index ops in the element-wise generator -------------===//
// slice, pad, cat, index_select, gather, reshape, iota, rand and randn in
// pointwise kernels: each reads its operands at other indices than its
// result's, so the operands are generated in an index context of their own
// (Note [Index contexts]).
//===----------------------------------------------------------------------===//

#include "KernelEmitter.h"

#include "fusion/Support/RandomThreshold.h"

#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::fusion;

namespace mlir::fusion::lowering {

// Note [Index contexts]: the generator computes a value at the indices of
// the current work item: `iterIndex[it]` is the index along iteration dim
// `it`, and a value's map says which iteration dim each of its dims walks.
// An index op reads its operand elsewhere: a slice at `start + i * step`, a
// pad at `i - low` (and nowhere outside the operand), a piece of a cat at
// `i - offset`, index_select and gather where an index tensor says, a
// reshape at the delinearized row-major position. Its operand is generated
// in a new context: `iterIndex` changed along the dims concerned (a dim the
// result broadcasts gets an index slot of its own past the iteration rank),
// everything below the op recomputed there (a fresh memo key, so nothing is
// shared with other contexts by mistake), and loads predicated where the
// index may be out of range: a scalar `loadGuard` when the whole work item
// agrees, a lane mask (masked vector loads) when the lanes of a vector
// differ. The op's value then selects (pad value, cat pieces, zero for an
// out-of-range index). Reads along changed dims skip the host's "extent
// equals the iteration extent" check: their bounds are those of the op.
// The extents the ops need at run time (a pad's operand, a cat's pieces,
// the shape a reshape or rand linearizes with) are index parameters after
// the work count (`collectExtents`).
//
// Vector variants: lane j of the innermost iteration dim is at `base + j *
// laneStep` (a slice with a constant step on it multiplies laneStep; loads
// then gather lanes); `innerAligned` says whether `base` is a multiple of
// the width (a shift by a constant that is a multiple keeps it), else
// vector loads claim only element alignment. The scheduler gives kernels
// whose index ops would make the lanes irregular (data-dependent indices
// along the innermost dim, a symbolic step on it, a reshape that does not
// keep it) the scalar variants only (Schedule.cpp).

bool KernelEmitter::isIndexingOp(Operation *op) {
  return isa<SliceOp, PadOp, CatOp, IndexSelectOp, GatherOp, ReshapeOp, IotaOp,
             RandOp, RandnOp>(op);
}

SmallVector<std::pair<Value, int64_t>>
KernelEmitter::collectExtents(KernelOp kernel) {
  SmallVector<std::pair<Value, int64_t>> extents;
  auto need = [&](Value v, int64_t d) {
    auto type = cast<RankedTensorType>(v.getType());
    if (!type.isDynamicDim(d) ||
        llvm::is_contained(extents, std::make_pair(v, d)))
      return;
    extents.push_back({v, d});
  };
  kernel.getBody().walk([&](Operation *op) {
    TypeSwitch<Operation *>(op)
        .Case<PadOp>([&](PadOp pad) {
          for (int64_t d = 0; d < pad.getInput().getType().getRank(); ++d)
            need(pad.getInput(), d);
        })
        .Case<CatOp>([&](CatOp cat) {
          for (Value input : cat.getInputs().drop_back())
            need(input, cat.getDim());
        })
        .Case<IndexSelectOp, GatherOp>(
            [&](auto g) { need(g.getInput(), g.getDim()); })
        .Case<RandOp, RandnOp>([&](auto r) {
          for (int64_t d = 1; d < r.getType().getRank(); ++d)
            need(r.getResult(), d);
        })
        .Case<ReshapeOp>([&](ReshapeOp r) {
          for (int64_t d = 1; d < r.getType().getRank(); ++d)
            need(r.getResult(), d);
          for (int64_t d = 0; d < r.getInput().getType().getRank(); ++d)
            need(r.getInput(), d);
        });
  });
  return extents;
}

KernelEmitter::SavedContext KernelEmitter::enterContext() {
  SavedContext saved{iterIndex,    shiftedDims, contextId, laneStep,
                     innerAligned, loadGuard,   laneMask};
  contextId = nextContextId++;
  shiftedDims.resize(iterIndex.size(), false);
  return saved;
}

void KernelEmitter::leaveContext(SavedContext saved) {
  iterIndex = std::move(saved.iterIndex);
  shiftedDims = std::move(saved.shiftedDims);
  contextId = saved.contextId;
  laneStep = saved.laneStep;
  innerAligned = saved.innerAligned;
  loadGuard = saved.loadGuard;
  laneMask = saved.laneMask;
}

Value KernelEmitter::indexAt(ArrayRef<int64_t> map, int64_t d) {
  return map[d] >= 0 ? iterIndex[map[d]] : constIdx(0);
}

void KernelEmitter::setOperandIndex(ArrayRef<int64_t> map, int64_t d,
                                    Value index,
                                    SmallVectorImpl<int64_t> &operandMap) {
  if (map[d] >= 0) {
    iterIndex[map[d]] = index;
    shiftedDims[map[d]] = true;
    operandMap[d] = map[d];
    return;
  }
  operandMap[d] = iterIndex.size();
  iterIndex.push_back(index);
  shiftedDims.push_back(true);
}

FailureOr<Value> KernelEmitter::indexScalar(Value v) {
  APInt constant;
  if (matchPattern(v, m_ConstantInt(&constant)))
    return constIdx(constant.getSExtValue());
  FailureOr<Gen> g = generate(v, {});
  if (failed(g) || g->isVector)
    return failure();
  Value x = g->value;
  Type idx = indexType(builder->getContext());
  if (x.getType() == idx)
    return x;
  return arith::IndexCastOp::create(*builder, loc, idx, x).getResult();
}

Value KernelEmitter::extentOf(Value value, int64_t d) {
  auto type = cast<RankedTensorType>(value.getType());
  if (!type.isDynamicDim(d))
    return constIdx(type.getDimSize(d));
  auto it = llvm::find(extents, std::make_pair(value, d));
  assert(it != extents.end() && "extent not collected");
  return extraArgs[extentBase + (it - extents.begin())];
}

Value KernelEmitter::laneIndices(Value shift) {
  OpBuilder &b = *builder;
  Type idx = indexType(b.getContext());
  auto vt = VectorType::get({variant.vector}, idx);
  SmallVector<Attribute> steps;
  for (int64_t j = 0; j < variant.vector; ++j)
    steps.push_back(IntegerAttr::get(idx, j * laneStep));
  Value base = arith::SubIOp::create(b, loc, iterIndex[rank - 1], shift);
  Value splat = vector::BroadcastOp::create(b, loc, vt, base);
  Value offsets =
      arith::ConstantOp::create(b, loc, vt, DenseElementsAttr::get(vt, steps));
  return arith::AddIOp::create(b, loc, splat, offsets);
}

Value KernelEmitter::andCond(Value x, Value y) {
  if (!x)
    return y;
  if (!y)
    return x;
  return arith::AndIOp::create(*builder, loc, x, y);
}

Gen KernelEmitter::selectGen(Value cond, Gen a, Gen b) {
  if (!cond)
    return a;
  bool vec = a.isVector || b.isVector || isa<VectorType>(cond.getType());
  Value x = vec ? splat(a) : a.value, y = vec ? splat(b) : b.value;
  return {arith::SelectOp::create(*builder, loc, cond, x, y), vec};
}

FailureOr<Gen> KernelEmitter::generateIndexing(Operation *op,
                                               ArrayRef<int64_t> map) {
  return TypeSwitch<Operation *, FailureOr<Gen>>(op)
      .Case<SliceOp>([&](SliceOp s) { return generateSlice(s, map); })
      .Case<PadOp>([&](PadOp p) { return generatePad(p, map); })
      .Case<CatOp>([&](CatOp c) { return generateCat(c, map); })
      .Case<IndexSelectOp, GatherOp>(
          [&](Operation *g) { return generateSelect(g, map); })
      .Case<ReshapeOp>([&](ReshapeOp r) { return generateReshape(r, map); })
      .Case<IotaOp>([&](IotaOp i) { return generateIota(i, map); })
      .Case<RandOp>(
          [&](RandOp r) { return generateRandom(r, map, RandomForm::Uniform); })
      .Case<RandnOp>(
          [&](RandnOp r) { return generateRandom(r, map, RandomForm::Normal); })
      .Default([&](Operation *other) -> FailureOr<Gen> {
        return other->emitOpError("is not an index op");
      });
}

/// A constant index operand's value, if it is one.
static std::optional<int64_t> constantIndex(Value v) {
  APInt c;
  if (matchPattern(v, m_ConstantInt(&c)))
    return c.getSExtValue();
  return std::nullopt;
}

FailureOr<Gen> KernelEmitter::generateSlice(SliceOp op, ArrayRef<int64_t> map) {
  OpBuilder &b = *builder;
  int64_t r = op.getType().getRank();
  SmallVector<Value> starts, steps;
  for (int64_t d = 0; d < r; ++d) {
    FailureOr<Value> start = indexScalar(op.getStarts()[d]);
    FailureOr<Value> step = indexScalar(op.getSteps()[d]);
    if (failed(start) || failed(step))
      return op.emitOpError("has bounds the kernel cannot compute");
    // Starts below 0 are clamped to 0; one past the size makes the result
    // empty, so no element is read.
    starts.push_back(arith::MaxSIOp::create(b, loc, *start, constIdx(0)));
    steps.push_back(*step);
  }
  SavedContext saved = enterContext();
  SmallVector<int64_t> operandMap(map.begin(), map.end());
  for (int64_t d = 0; d < r; ++d) {
    std::optional<int64_t> start = constantIndex(op.getStarts()[d]);
    std::optional<int64_t> step = constantIndex(op.getSteps()[d]);
    if (map[d] == rank - 1 && variant.vector > 1) {
      if (!step) {
        leaveContext(std::move(saved));
        return op.emitOpError("has a symbolic step along the vectorized dim");
      }
      innerAligned &= *step == 1 && start && *start % variant.vector == 0;
      laneStep *= *step;
    }
    Value index = arith::AddIOp::create(
        b, loc, starts[d],
        arith::MulIOp::create(b, loc, indexAt(map, d), steps[d]));
    setOperandIndex(map, d, index, operandMap);
  }
  FailureOr<Gen> result = generate(op.getInput(), operandMap);
  leaveContext(std::move(saved));
  return result;
}

FailureOr<Gen> KernelEmitter::generatePad(PadOp op, ArrayRef<int64_t> map) {
  OpBuilder &b = *builder;
  int64_t r = op.getType().getRank();
  FailureOr<Gen> padValue = generate(op.getValue(), {});
  if (failed(padValue))
    return failure();
  SavedContext saved = enterContext();
  SmallVector<int64_t> operandMap(map.begin(), map.end());
  Value uniform, lanes; // where the operand is read: the whole item, lanes
  for (int64_t d = 0; d < r; ++d) {
    int64_t low = op.getLow()[d], high = op.getHigh()[d];
    if (low == 0 && high == 0) {
      if (map[d] >= 0)
        shiftedDims[map[d]] = true;
      continue;
    }
    Value extent = extentOf(op.getInput(), d);
    Value shift = constIdx(low);
    bool vectorDim = map[d] == rank - 1 && variant.vector > 1;
    if (vectorDim) {
      // Lane k reads operand index base + k * laneStep - low.
      Value idxs = laneIndices(shift);
      auto vt = cast<VectorType>(idxs.getType());
      Value zeros = arith::ConstantOp::create(
          b, loc, vt,
          DenseElementsAttr::get(vt, b.getZeroAttr(vt.getElementType())));
      Value extents = vector::BroadcastOp::create(b, loc, vt, extent);
      Value ok;
      if (low > 0)
        ok = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, idxs,
                                   zeros);
      if (high > 0)
        ok = andCond(ok, arith::CmpIOp::create(
                             b, loc, arith::CmpIPredicate::slt, idxs, extents));
      lanes = andCond(lanes, ok);
      innerAligned &= low % variant.vector == 0;
    }
    Value index = arith::SubIOp::create(b, loc, indexAt(map, d), shift);
    if (!vectorDim) {
      Value ok;
      if (low > 0)
        ok = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, index,
                                   constIdx(0));
      if (high > 0)
        ok = andCond(ok, arith::CmpIOp::create(
                             b, loc, arith::CmpIPredicate::slt, index, extent));
      uniform = andCond(uniform, ok);
    }
    setOperandIndex(map, d, index, operandMap);
  }
  loadGuard = andCond(loadGuard, uniform);
  laneMask = andCond(laneMask, lanes);
  FailureOr<Gen> inner = generate(op.getInput(), operandMap);
  leaveContext(std::move(saved));
  if (failed(inner))
    return failure();
  Gen result = selectGen(uniform, *inner, *padValue);
  return selectGen(lanes, result, *padValue);
}

FailureOr<Gen> KernelEmitter::generateCat(CatOp op, ArrayRef<int64_t> map) {
  OpBuilder &b = *builder;
  int64_t dim = op.getDim();
  bool vectorDim = map[dim] == rank - 1 && variant.vector > 1;
  // Piece k covers [offsets[k], offsets[k + 1]).
  SmallVector<Value> offsets{constIdx(0)};
  SmallVector<std::optional<int64_t>> staticOffsets{int64_t(0)};
  for (Value input : op.getInputs().drop_back()) {
    offsets.push_back(
        arith::AddIOp::create(b, loc, offsets.back(), extentOf(input, dim)));
    auto type = cast<RankedTensorType>(input.getType());
    std::optional<int64_t> prev = staticOffsets.back();
    staticOffsets.push_back(
        prev && !type.isDynamicDim(dim)
            ? std::optional<int64_t>(*prev + type.getDimSize(dim))
            : std::nullopt);
  }
  // Whole vectors fall in one piece when every boundary is a constant
  // multiple of the width and the lanes are contiguous and aligned.
  bool uniformLanes = !vectorDim || (laneStep == 1 && innerAligned &&
                                     llvm::all_of(staticOffsets, [&](auto o) {
                                       return o && *o % variant.vector == 0;
                                     }));
  Value index = indexAt(map, dim);
  Value lanes = vectorDim && !uniformLanes ? laneIndices(constIdx(0)) : Value();
  auto below = [&](Value bound) -> Value {
    if (lanes)
      return arith::CmpIOp::create(
          b, loc, arith::CmpIPredicate::slt, lanes,
          vector::BroadcastOp::create(b, loc, lanes.getType(), bound));
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, index,
                                 bound);
  };
  auto notCond = [&](Value c) -> Value {
    Value ones = isa<VectorType>(c.getType()) ? intConst(c.getType(), 1)
                                              : intConst(b.getI1Type(), 1);
    return arith::XOrIOp::create(b, loc, c, ones);
  };
  size_t pieces = op.getInputs().size();
  SmallVector<Gen> values;
  SmallVector<Value> belowNext; // piece k: index < offsets[k + 1]
  for (size_t k = 0; k < pieces; ++k) {
    Value inPiece;
    if (k + 1 < pieces) {
      belowNext.push_back(below(offsets[k + 1]));
      inPiece = belowNext.back();
    }
    if (k > 0)
      inPiece = andCond(inPiece, notCond(belowNext[k - 1]));
    SavedContext saved = enterContext();
    SmallVector<int64_t> operandMap(map.begin(), map.end());
    for (int64_t d = 0; d < static_cast<int64_t>(map.size()); ++d)
      if (map[d] >= 0)
        shiftedDims[map[d]] = true;
    if (vectorDim &&
        !(staticOffsets[k] && *staticOffsets[k] % variant.vector == 0))
      innerAligned = false;
    if (inPiece) {
      if (isa<VectorType>(inPiece.getType()))
        laneMask = andCond(laneMask, inPiece);
      else
        loadGuard = andCond(loadGuard, inPiece);
    }
    setOperandIndex(map, dim, arith::SubIOp::create(b, loc, index, offsets[k]),
                    operandMap);
    FailureOr<Gen> piece = generate(op.getInputs()[k], operandMap);
    leaveContext(std::move(saved));
    if (failed(piece))
      return failure();
    values.push_back(*piece);
  }
  Gen result = values.back();
  for (size_t k = pieces - 1; k-- > 0;)
    result = selectGen(belowNext[k], values[k], result);
  return result;
}

FailureOr<Gen> KernelEmitter::generateSelect(Operation *op,
                                             ArrayRef<int64_t> map) {
  OpBuilder &b = *builder;
  auto select = dyn_cast<IndexSelectOp>(op);
  auto gather = dyn_cast<GatherOp>(op);
  Value input = select ? select.getInput() : gather.getInput();
  Value indexTensor = select ? select.getIndex() : gather.getIndex();
  int64_t dim = select ? select.getDim() : gather.getDim();
  // index_select's index is rank 1 along `dim`; gather's has the result's
  // shape.
  SmallVector<int64_t> indexMap =
      select ? SmallVector<int64_t>{map[dim]}
             : SmallVector<int64_t>(map.begin(), map.end());
  FailureOr<Gen> ix = generate(indexTensor, indexMap);
  if (failed(ix))
    return failure();
  if (ix->isVector)
    return op->emitOpError("reads indices that vary along the vectorized "
                           "dim (the scheduler should have chosen scalar "
                           "variants)");
  Type i64 = b.getI64Type();
  Value i = ix->value;
  if (i.getType() != i64)
    i = arith::ExtSIOp::create(b, loc, i64, i);
  Value extent = extentOf(input, dim);
  if (extent.getType() != i64)
    extent = arith::ExtSIOp::create(b, loc, i64, extent);
  // Note [Out-of-range indices]: an index outside [0, size) reads nothing
  // and gives 0 (the interpreter reports an error instead; PyTorch raises a
  // device-side assert).
  Value ok = arith::AndIOp::create(
      b, loc,
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, i,
                            intConst(i64, 0)),
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, i, extent));
  Value safe = arith::SelectOp::create(b, loc, ok, i, intConst(i64, 0));
  Type idx = indexType(b.getContext());
  if (idx != i64)
    safe = arith::TruncIOp::create(b, loc, idx, safe);
  SavedContext saved = enterContext();
  SmallVector<int64_t> operandMap(map.begin(), map.end());
  for (int64_t d = 0; d < static_cast<int64_t>(map.size()); ++d)
    if (map[d] >= 0)
      shiftedDims[map[d]] = true;
  setOperandIndex(map, dim, safe, operandMap);
  loadGuard = andCond(loadGuard, ok);
  FailureOr<Gen> value = generate(input, operandMap);
  leaveContext(std::move(saved));
  if (failed(value))
    return failure();
  Type element =
      cast<RankedTensorType>(op->getResult(0).getType()).getElementType();
  Type type = value->isVector ? Type(vectorOf(element)) : element;
  return selectGen(ok, *value, Gen{zero(type), value->isVector});
}

FailureOr<Gen> KernelEmitter::generateReshape(ReshapeOp op,
                                              ArrayRef<int64_t> map) {
  OpBuilder &b = *builder;
  auto resultType = op.getType();
  auto inputType = op.getInput().getType();
  int64_t r = resultType.getRank(), n = inputType.getRank();
  // The row-major position of the result's element ...
  Value linear = constIdx(0);
  for (int64_t d = 0; d < r; ++d) {
    Value scaled = indexAt(map, d);
    for (int64_t e = d + 1; e < r; ++e)
      scaled =
          arith::MulIOp::create(b, loc, scaled, extentOf(op.getResult(), e));
    linear = arith::AddIOp::create(b, loc, linear, scaled);
  }
  // ... is that of the operand's element.
  bool vectorDim = r > 0 && map[r - 1] == rank - 1 && variant.vector > 1;
  if (vectorDim &&
      (n == 0 || inputType.isDynamicDim(n - 1) ||
       resultType.isDynamicDim(r - 1) ||
       inputType.getDimSize(n - 1) != resultType.getDimSize(r - 1)))
    return op.emitOpError("changes the vectorized dim (the scheduler should "
                          "have chosen scalar variants)");
  SavedContext saved = enterContext();
  SmallVector<int64_t> operandMap(n, -1);
  for (bool &s : shiftedDims)
    s = true;
  Value rest = linear;
  for (int64_t d = n - 1; d >= 0; --d) {
    Value index = rest;
    if (d > 0) {
      Value extent = extentOf(op.getInput(), d);
      index = arith::RemUIOp::create(b, loc, rest, extent);
      rest = arith::DivUIOp::create(b, loc, rest, extent);
    }
    if (d == n - 1 && vectorDim) {
      iterIndex[rank - 1] = index;
      shiftedDims[rank - 1] = true;
      operandMap[d] = rank - 1;
      continue;
    }
    // A slot past the iteration rank (setOperandIndex of an unmapped dim).
    setOperandIndex(operandMap, d, index, operandMap);
  }
  FailureOr<Gen> result = generate(op.getInput(), operandMap);
  leaveContext(std::move(saved));
  return result;
}

FailureOr<Gen> KernelEmitter::generateIota(IotaOp op, ArrayRef<int64_t> map) {
  OpBuilder &b = *builder;
  Type element = op.getType().getElementType();
  FailureOr<Gen> start = generate(op.getStart(), {});
  FailureOr<Gen> step = generate(op.getStep(), {});
  if (failed(start) || failed(step))
    return failure();
  bool vec = map[0] == rank - 1 && variant.vector > 1;
  Type i64 = b.getI64Type();
  Value k = indexAt(map, 0);
  if (k.getType() != i64)
    k = arith::ExtSIOp::create(b, loc, i64, k);
  if (vec) {
    auto vt = VectorType::get({variant.vector}, i64);
    SmallVector<Attribute> lanes;
    for (int64_t j = 0; j < variant.vector; ++j)
      lanes.push_back(IntegerAttr::get(i64, j * laneStep));
    k = arith::AddIOp::create(
        b, loc, vector::BroadcastOp::create(b, loc, vt, k),
        arith::ConstantOp::create(b, loc, vt,
                                  DenseElementsAttr::get(vt, lanes)));
  }
  auto shaped = [&](Type e) -> Type {
    return vec ? Type(VectorType::get({variant.vector}, e)) : e;
  };
  auto splatTo = [&](Value s) -> Value {
    return vec ? vector::BroadcastOp::create(b, loc, shaped(s.getType()), s)
                     .getResult()
               : s;
  };
  // As the interpreter: start + k * step in f64 (i64 for integers), then
  // one conversion to the element type.
  if (isa<FloatType>(element)) {
    Type f64 = b.getF64Type();
    auto toF64 = [&](Value s) -> Value {
      return s.getType().isF64()
                 ? s
                 : arith::ExtFOp::create(b, loc, f64, s).getResult();
    };
    Value kf = arith::SIToFPOp::create(b, loc, shaped(f64), k);
    Value v = arith::AddFOp::create(
        b, loc, splatTo(toF64(start->value)),
        arith::MulFOp::create(b, loc, kf, splatTo(toF64(step->value))));
    return Gen{emitCast(v, f64, element, shaped), vec};
  }
  auto toI64 = [&](Value s) -> Value {
    return s.getType().isInteger(64)
               ? s
               : arith::ExtSIOp::create(b, loc, i64, s).getResult();
  };
  Value v = arith::AddIOp::create(
      b, loc, splatTo(toI64(start->value)),
      arith::MulIOp::create(b, loc, k, splatTo(toI64(step->value))));
  if (!element.isInteger(64))
    v = arith::TruncIOp::create(b, loc, shaped(element), v);
  return Gen{v, vec};
}

std::array<Value, 4> KernelEmitter::philox(Value block, Value seed,
                                           Value offset) {
  OpBuilder &b = *builder;
  Type i32 = b.getI32Type(), i64 = b.getI64Type();
  auto lo = [&](Value x) -> Value {
    return arith::TruncIOp::create(b, loc, i32, x);
  };
  auto hi = [&](Value x) -> Value {
    return lo(arith::ShRUIOp::create(b, loc, x, intConst(i64, 32)));
  };
  auto c32 = [&](uint32_t v) { return intConst(i32, int64_t(int32_t(v))); };
  auto xor3 = [&](Value x, Value y, Value z) -> Value {
    return arith::XOrIOp::create(b, loc, arith::XOrIOp::create(b, loc, x, y),
                                 z);
  };
  std::array<Value, 4> c{lo(block), hi(block), lo(offset), hi(offset)};
  Value k0 = lo(seed), k1 = hi(seed);
  for (int round = 0; round < 10; ++round) {
    if (round > 0) {
      k0 = arith::AddIOp::create(b, loc, k0, c32(0x9E3779B9));
      k1 = arith::AddIOp::create(b, loc, k1, c32(0xBB67AE85));
    }
    auto p0 = arith::MulUIExtendedOp::create(b, loc, c32(0xD2511F53), c[0]);
    auto p1 = arith::MulUIExtendedOp::create(b, loc, c32(0xCD9E8D57), c[2]);
    c = {xor3(p1.getHigh(), c[1], k0), p1.getLow(),
         xor3(p0.getHigh(), c[3], k1), p0.getLow()};
  }
  return c;
}

/// docs/random.md: fusion.rand's value takes the top p bits of its word, p
/// the significand its element type holds (f64 takes f32's 24).
static int uniformBits(Type element) {
  return element.isF16() ? 11 : element.isBF16() ? 8 : 24;
}

Value KernelEmitter::uniformOf(Value word, Type element) {
  OpBuilder &b = *builder;
  int bits = uniformBits(element);
  Value top =
      arith::ShRUIOp::create(b, loc, word, intConst(word.getType(), 32 - bits));
  Value f = arith::UIToFPOp::create(b, loc, b.getF32Type(), top);
  return arith::MulFOp::create(
      b, loc, f, floatConst(b.getF32Type(), std::ldexp(1.0, -bits)));
}

FailureOr<Gen> KernelEmitter::generateRandom(Operation *op,
                                             ArrayRef<int64_t> map,
                                             RandomForm form) {
  OpBuilder &b = *builder;
  Value result = op->getResult(0);
  auto type = cast<RankedTensorType>(result.getType());
  bool normal = form == RandomForm::Normal, words = form == RandomForm::Word;
  Type element = words ? b.getI32Type() : type.getElementType();
  int64_t r = type.getRank();
  FailureOr<Gen> seed = generate(op->getOperand(0), {});
  FailureOr<Gen> offset = generate(op->getOperand(1), {});
  if (failed(seed) || failed(offset))
    return failure();
  Type i64 = b.getI64Type();
  auto toI64 = [&](Value x) -> Value {
    return x.getType() == i64
               ? x
               : arith::ExtUIOp::create(b, loc, i64, x).getResult();
  };
  // The element's row-major position (64-bit: the counter is).
  // Note [Random counters in pointwise kernels]: where the result walks the
  // iteration space as is (the first context, each dim on its own
  // iteration dim), that position is the item's element offset, which the
  // kernel has already: no products of the result's extents per item.
  bool walksItems = contextId == 0 && itemOffset && r == rank;
  for (int64_t d = 0; walksItems && d < r; ++d)
    walksItems = map[d] == d;
  Value linear = intConst(i64, 0);
  int64_t vecDim = -1;
  Value laneLinear = intConst(i64, laneStep); // linear distance of two lanes
  if (walksItems) {
    linear = toI64(itemOffset);
    vecDim = variant.vector > 1 ? r - 1 : -1;
  }
  for (int64_t d = 0; !walksItems && d < r; ++d) {
    Value scaled = toI64(indexAt(map, d));
    Value after = intConst(i64, 1);
    for (int64_t e = d + 1; e < r; ++e)
      after = arith::MulIOp::create(b, loc, after, toI64(extentOf(result, e)));
    scaled = arith::MulIOp::create(b, loc, scaled, after);
    linear = arith::AddIOp::create(b, loc, linear, scaled);
    if (map[d] == rank - 1 && variant.vector > 1) {
      vecDim = d;
      laneLinear =
          arith::MulIOp::create(b, loc, after, intConst(i64, laneStep));
    }
  }
  Type compute = element.isF64() ? b.getF64Type() : b.getF32Type();
  auto narrow = [&](Value v) -> Value {
    if (v.getType() == element)
      return v;
    if (element.isF64())
      return arith::ExtFOp::create(b, loc, element, v);
    return arith::TruncFOp::create(b, loc, element, v);
  };
  // Box-Muller on a word pair: (r cos t, r sin t).
  auto boxMuller = [&](Value w0, Value w1) -> std::pair<Value, Value> {
    Type i32 = b.getI32Type();
    Value one = intConst(i32, 1), eight = intConst(i32, 8);
    auto toFloat = [&](Value w) -> Value {
      return arith::UIToFPOp::create(b, loc, compute, w);
    };
    Value scale = floatConst(compute, std::ldexp(1.0, -24));
    Value u1 = arith::MulFOp::create(
        b, loc,
        toFloat(arith::AddIOp::create(
            b, loc, arith::ShRUIOp::create(b, loc, w0, eight), one)),
        scale);
    Value u2 = arith::MulFOp::create(
        b, loc, toFloat(arith::ShRUIOp::create(b, loc, w1, eight)), scale);
    Value radius = math::SqrtOp::create(
        b, loc,
        arith::MulFOp::create(b, loc, floatConst(compute, -2.0),
                              math::LogOp::create(b, loc, u1)));
    Value angle = arith::MulFOp::create(
        b, loc, floatConst(compute, 2.0 * 3.14159265358979323846), u2);
    return {arith::MulFOp::create(b, loc, radius,
                                  math::CosOp::create(b, loc, angle)),
            arith::MulFOp::create(b, loc, radius,
                                  math::SinOp::create(b, loc, angle))};
  };
  // The value of element `i` from its own Philox block.
  auto elementAt = [&](Value i) -> Value {
    Value block = arith::ShRUIOp::create(b, loc, i, intConst(i64, 2));
    Value which = arith::AndIOp::create(b, loc, i, intConst(i64, 3));
    std::array<Value, 4> w = philox(block, seed->value, offset->value);
    auto pick = [&](Value sel, Value x, Value y) -> Value {
      return arith::SelectOp::create(b, loc, sel, x, y);
    };
    auto is = [&](int64_t k) -> Value {
      return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, which,
                                   intConst(i64, k));
    };
    if (!normal) {
      Value word =
          pick(is(0), w[0], pick(is(1), w[1], pick(is(2), w[2], w[3])));
      if (words)
        return word;
      Value u = uniformOf(word, element);
      return narrow(compute.isF64()
                        ? arith::ExtFOp::create(b, loc, compute, u).getResult()
                        : u);
    }
    Value second = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge,
                                         which, intConst(i64, 2));
    auto [c, s] = boxMuller(pick(second, w[2], w[0]), pick(second, w[3], w[1]));
    Value odd = arith::TruncIOp::create(b, loc, b.getI1Type(), which);
    return narrow(pick(odd, s, c));
  };
  if (vecDim < 0)
    return Gen{elementAt(linear), false};
  SmallVector<Value> lanes;
  // Context 0 with the vectorized dim innermost in the result: lane 0 is a
  // multiple of the width (the vector variant needs the innermost extent to
  // be one), so every 4 lanes share one Philox block.
  if (contextId == 0 && vecDim == r - 1 && laneStep == 1 &&
      variant.vector % 4 == 0) {
    Value block0 = arith::ShRUIOp::create(b, loc, linear, intConst(i64, 2));
    for (int64_t g = 0; g < variant.vector / 4; ++g) {
      Value block = arith::AddIOp::create(b, loc, block0, intConst(i64, g));
      std::array<Value, 4> w = philox(block, seed->value, offset->value);
      if (!normal) {
        for (Value word : w) {
          if (words) {
            lanes.push_back(word);
            continue;
          }
          Value u = uniformOf(word, element);
          lanes.push_back(
              narrow(compute.isF64()
                         ? arith::ExtFOp::create(b, loc, compute, u).getResult()
                         : u));
        }
        continue;
      }
      auto [c0, s0] = boxMuller(w[0], w[1]);
      auto [c1, s1] = boxMuller(w[2], w[3]);
      for (Value v : {c0, s0, c1, s1})
        lanes.push_back(narrow(v));
    }
  } else {
    for (int64_t j = 0; j < variant.vector; ++j)
      lanes.push_back(elementAt(arith::AddIOp::create(
          b, loc, linear,
          arith::MulIOp::create(b, loc, laneLinear, intConst(i64, j)))));
  }
  return Gen{vector::FromElementsOp::create(b, loc, vectorOf(element), lanes),
             true};
}

/// A float constant that `v` holds everywhere: an arith.constant (scalar or
/// splat), or a broadcast or fusion.full of one.
static std::optional<APFloat> splatFloat(Value v) {
  Operation *op = v.getDefiningOp();
  if (auto bcast = dyn_cast_or_null<BroadcastInDimOp>(op))
    return splatFloat(bcast.getInput());
  if (auto full = dyn_cast_or_null<FullOp>(op))
    return splatFloat(full.getValue());
  APFloat value(0.0);
  if (matchPattern(v, m_ConstantFloat(&value)))
    return value;
  return std::nullopt;
}

/// The fusion.rand operand of a threshold comparison, its predicate with
/// the rand on the left, and the constant.
struct ThresholdParts {
  RandOp rand;
  ThresholdPredicate pred;
  APFloat constant;
};

static std::optional<ThresholdParts> thresholdParts(Operation *op) {
  std::optional<ThresholdPredicate> pred =
      TypeSwitch<Operation *, std::optional<ThresholdPredicate>>(op)
          .Case<GeOp>([](auto) { return ThresholdPredicate::Ge; })
          .Case<GtOp>([](auto) { return ThresholdPredicate::Gt; })
          .Case<LeOp>([](auto) { return ThresholdPredicate::Le; })
          .Case<LtOp>([](auto) { return ThresholdPredicate::Lt; })
          .Default([](Operation *) { return std::nullopt; });
  if (!pred)
    return std::nullopt;
  auto flipped = [](ThresholdPredicate p) {
    switch (p) {
    case ThresholdPredicate::Ge:
      return ThresholdPredicate::Le;
    case ThresholdPredicate::Gt:
      return ThresholdPredicate::Lt;
    case ThresholdPredicate::Le:
      return ThresholdPredicate::Ge;
    case ThresholdPredicate::Lt:
      return ThresholdPredicate::Gt;
    }
    return p;
  };
  for (int side = 0; side < 2; ++side) {
    auto rand = op->getOperand(side).getDefiningOp<RandOp>();
    std::optional<APFloat> c = splatFloat(op->getOperand(1 - side));
    if (!rand || !c)
      continue;
    Type element = rand.getType().getElementType();
    if (!(element.isF32() || element.isF64() || element.isF16() ||
          element.isBF16()))
      return std::nullopt;
    return ThresholdParts{rand, side == 0 ? *pred : flipped(*pred), *c};
  }
  return std::nullopt;
}

bool KernelEmitter::isRandomThreshold(Operation *op) {
  std::optional<ThresholdParts> parts = thresholdParts(op);
  // Only where no use needs the values: the words would be drawn twice.
  return parts && llvm::all_of(parts->rand->getUsers(), [](Operation *user) {
           return thresholdParts(user).has_value();
         });
}

FailureOr<Gen> KernelEmitter::generateRandomThreshold(Operation *op,
                                                      ArrayRef<int64_t> map) {
  OpBuilder &b = *builder;
  ThresholdParts parts = *thresholdParts(op);
  Type element = parts.rand.getType().getElementType();
  RandomThreshold threshold = randomThreshold(parts.constant.convertToDouble(),
                                              uniformBits(element), parts.pred);
  if (threshold.kind == RandomThreshold::Never ||
      threshold.kind == RandomThreshold::Always)
    return Gen{
        intConst(b.getI1Type(), threshold.kind == RandomThreshold::Always),
        false};
  FailureOr<Gen> words = generateRandom(parts.rand, map, RandomForm::Word);
  if (failed(words))
    return failure();
  Value bound = intConst(b.getI32Type(), int64_t(int32_t(threshold.bound)));
  if (words->isVector)
    bound = vector::BroadcastOp::create(b, loc, words->value.getType(), bound);
  auto pred = threshold.kind == RandomThreshold::WordAtLeast
                  ? arith::CmpIPredicate::uge
                  : arith::CmpIPredicate::ult;
  return Gen{arith::CmpIOp::create(b, loc, pred, words->value, bound),
             words->isVector};
}

} // namespace mlir::fusion::lowering
