//===- Elementwise.cpp - the element-wise generator -----------------------===//
// Fusion ops on the scalars and vectors of a work item: loads and stores of
// the kernel's parameters, the memo of generated values, approximate math.
//===----------------------------------------------------------------------===//

#include "KernelEmitter.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::fusion;

namespace mlir::fusion::lowering {

FunctionType KernelEmitter::signature(MLIRContext *ctx) {
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

std::tuple<SmallVector<Value>, SmallVector<Value>, Value>
KernelEmitter::bindParams(gpu::GPUFuncOp func) {
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
  // Note [Static extents]: a dim the iteration type knows is a constant in
  // the kernel, not the size parameter the host passes beside it (the host
  // program has checked that they agree), so the backend turns the divisions
  // and remainders that split a work item into indices into shifts and
  // multiplications: RoPE's [tokens, heads, 128] divides by 128 / 8 vectors
  // per row with a shift and by the heads alone.
  SmallVector<Value> sizes;
  OpBuilder entry = OpBuilder::atBlockBegin(&func.getBody().front());
  for (int64_t d = 0; d < rank; ++d) {
    Value size = args[a++];
    if (!iterType.isDynamicDim(d))
      size = arith::ConstantOp::create(
          entry, func.getLoc(),
          IntegerAttr::get(size.getType(), iterType.getDimSize(d)));
    sizes.push_back(size);
  }
  Value count = args[a++];
  extraArgs.clear();
  for (int64_t i = 0; i < numExtraParams; ++i)
    extraArgs.push_back(args[a++]);
  return {outputs, sizes, count};
}

void KernelEmitter::store(Gen gen, Type element, Value memref, Value offset) {
  OpBuilder &b = *builder;
  Value v = variant.vector > 1 ? splat(gen) : gen.value;
  if (element.isInteger(1)) {
    Type i8 = b.getI8Type();
    v = arith::ExtUIOp::create(b, loc,
                               variant.vector > 1 ? Type(vectorOf(i8)) : i8, v);
  }
  Value index = toIndex(offset);
  if (variant.vector > 1) {
    int64_t align =
        std::min<int64_t>(16, variant.vector * storageBytes(element));
    if (laneMask)
      vector::MaskedStoreOp::create(b, loc, memref, ValueRange{index}, laneMask,
                                    v, llvm::MaybeAlign(align));
    else
      vector::StoreOp::create(b, loc, v, memref, index, false,
                              llvm::MaybeAlign(align));
  } else {
    memref::StoreOp::create(b, loc, v, memref, index);
  }
}

Value KernelEmitter::elementOffset(BlockArgument arg, ArrayRef<int64_t> map,
                                   int64_t &innerDim) {
  OpBuilder &b = *builder;
  TensorParam &param = tensors[arg];
  Value offset = constIdx(0);
  innerDim = -1;
  for (auto [d, it] : llvm::enumerate(map)) {
    if (it < 0)
      continue;
    if (!isShifted(it))
      accesses.insert({arg.getArgNumber(), static_cast<int64_t>(d), it});
    if (it == rank - 1)
      innerDim = d;
    offset = arith::AddIOp::create(
        b, loc, offset,
        arith::MulIOp::create(b, loc, iterIndex[it], param.strides[d]));
  }
  return offset;
}

bool KernelEmitter::loadsAlignedVectors(BlockArgument arg,
                                        ArrayRef<int64_t> map) const {
  auto tensor = cast<RankedTensorType>(arg.getType());
  if (variant.vector == 1 || laneStep != 1 || !innerAligned || laneMask ||
      tensor.getElementType().isInteger(1) || variant.ragged)
    return false;
  int64_t innerDim = -1;
  for (auto [d, it] : llvm::enumerate(map)) {
    if (it < 0)
      continue;
    if (isShifted(it))
      return false;
    if (it == rank - 1)
      innerDim = d;
  }
  return innerDim >= 0 && innerDim == tensor.getRank() - 1;
}

void KernelEmitter::stageCopy(BlockArgument arg, ArrayRef<int64_t> map,
                              Value at) {
  OpBuilder &b = *builder;
  TensorParam &param = tensors[arg];
  Type element = cast<RankedTensorType>(arg.getType()).getElementType();
  int64_t innerDim = -1;
  Value offset = elementOffset(arg, map, innerDim);
  vectorLoadedInputs.insert(arg.getArgNumber());
  Value valid = loadGuard
                    ? loadGuard
                    : arith::ConstantIntOp::create(b, loc, 1, 1).getResult();
  StageCopyOp::create(
      b, loc, param.memref, toIndex(offset), at, valid,
      b.getI64IntegerAttr(variant.vector * storageBytes(element)));
}

void KernelEmitter::stageBulkCopy(BlockArgument arg, ArrayRef<int64_t> map,
                                  Value offset, Value bytes, Value barriers,
                                  Value barrier) {
  OpBuilder &b = *builder;
  TensorParam &param = tensors[arg];
  int64_t innerDim = -1;
  Value at = elementOffset(arg, map, innerDim);
  vectorLoadedInputs.insert(arg.getArgNumber());
  StageBulkCopyOp::create(b, loc, param.memref, toIndex(at), offset, bytes,
                          barriers, barrier);
}

Gen KernelEmitter::load(BlockArgument arg, ArrayRef<int64_t> map) {
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
  int64_t innerDim = -1;
  Value offset = elementOffset(arg, map, innerDim);
  auto fromStorage = [&](Value v) -> Value {
    if (!element.isInteger(1))
      return v;
    Value zero = arith::ConstantOp::create(b, loc, v.getType(),
                                           b.getZeroAttr(v.getType()));
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, v, zero);
  };
  Type stored = storageType(element);
  // An scf.if yielding `then()` or `otherwise()`, each emitted in its
  // branch.
  auto ifElse = [&](Type type, Value cond, function_ref<Value()> then,
                    function_ref<Value()> otherwise) -> Value {
    auto ifOp = scf::IfOp::create(b, loc, TypeRange{type}, cond, true);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(ifOp.thenBlock());
    scf::YieldOp::create(b, loc, then());
    b.setInsertionPointToStart(ifOp.elseBlock());
    scf::YieldOp::create(b, loc, otherwise());
    return ifOp.getResult(0);
  };
  // Under a load guard the load sits in an scf.if that yields zero
  // elsewhere (rows and items past the end).
  auto guarded = [&](Type type, function_ref<Value()> emitLoad) -> Value {
    if (!loadGuard)
      return emitLoad();
    return ifElse(type, loadGuard, emitLoad, [&]() { return zero(type); });
  };
  if (variant.vector == 1 || innerDim < 0) {
    Value v = guarded(stored, [&]() -> Value {
      return memref::LoadOp::create(b, loc, param.memref, toIndex(offset));
    });
    return {fromStorage(v), false};
  }
  if (innerDim == tensor.getRank() - 1 && laneStep == 1) {
    // Contiguous innermost dim (the run-time guard checked stride 1).
    // loadsAlignedVectors() mirrors this branch's conditions.
    vectorLoadedInputs.insert(arg.getArgNumber());
    // Lanes shifted by an index op (Note [Index contexts]) may start
    // anywhere: only the element's own alignment is known. So may the
    // lanes of an input that does not walk every iteration dim in a ragged
    // variant (Note [Ragged rows]).
    bool aligned = innerAligned;
    if (variant.ragged) {
      bool walksAll = tensor.getRank() == rank;
      for (auto [d, it] : llvm::enumerate(map))
        walksAll &= it == static_cast<int64_t>(d) && !isShifted(it);
      aligned &= walksAll;
      (aligned ? raggedAligned : raggedUnaligned).insert(arg.getArgNumber());
    }
    int64_t vectorAlign =
        std::min<int64_t>(16, variant.vector * storageBytes(element));
    int64_t align = aligned ? vectorAlign : storageBytes(element);
    auto plainLoad = [&](int64_t alignment) -> Value {
      return vector::LoadOp::create(b, loc, vectorOf(stored), param.memref,
                                    toIndex(offset), false,
                                    llvm::MaybeAlign(alignment));
    };
    auto slowLoad = [&]() -> Value {
      if (laneMask)
        return vector::MaskedLoadOp::create(
            b, loc, vectorOf(stored), param.memref, ValueRange{toIndex(offset)},
            laneMask, zero(vectorOf(stored)), llvm::MaybeAlign(align));
      return plainLoad(align);
    };
    // Note [Whole vectors of shifted lanes]: lanes an index op shifted by
    // an amount the compiler does not know (a symbolic cat offset or slice
    // start), or masked lane by lane (a cut inside the vector), load
    // element by element, with a branch per lane under a mask. Yet nearly
    // every vector lies wholly inside its piece, and where the shift is a
    // multiple of the width it is aligned too: the guard of the vector
    // variants has already checked the buffer's alignment and strides
    // (Note [Variant guards]), so the element offset decides. Such a
    // vector takes one aligned vector load; a vector with no lane in
    // range loads nothing; only the vectors across a cut, or shifted off
    // the alignment, take the lane-wise path. (Ragged rows keep their own
    // scheme.)
    if ((laneMask || !aligned) && !variant.ragged) {
      Value misalign =
          arith::AndIOp::create(b, loc, offset, constIdx(variant.vector - 1));
      Value fast = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                         misalign, constIdx(0));
      Value all, any;
      if (laneMask) {
        std::tie(all, any) = laneExtremes(laneMask);
        fast = arith::AndIOp::create(b, loc, fast, all);
      }
      Value v = guarded(vectorOf(stored), [&]() -> Value {
        return ifElse(
            vectorOf(stored), fast, [&]() { return plainLoad(vectorAlign); },
            [&]() -> Value {
              if (!laneMask)
                return slowLoad();
              return ifElse(vectorOf(stored), any, slowLoad,
                            [&]() { return zero(vectorOf(stored)); });
            });
      });
      return {fromStorage(v), true};
    }
    Value v = guarded(vectorOf(stored), slowLoad);
    return {fromStorage(v), true};
  }
  // The innermost iteration dim walks a strided dim of this input (or a
  // strided slice of its innermost one): gather.
  Value v = guarded(vectorOf(stored), [&]() -> Value {
    SmallVector<Value> lanes;
    for (int64_t j = 0; j < variant.vector; ++j) {
      Value laneOffset = arith::AddIOp::create(
          b, loc, offset,
          arith::MulIOp::create(b, loc, constIdx(j * laneStep),
                                param.strides[innerDim]));
      auto loadLane = [&]() -> Value {
        return memref::LoadOp::create(b, loc, param.memref,
                                      toIndex(laneOffset));
      };
      if (!laneMask) {
        lanes.push_back(loadLane());
        continue;
      }
      Value valid =
          vector::ExtractOp::create(b, loc, laneMask, ArrayRef<int64_t>{j});
      lanes.push_back(
          ifElse(stored, valid, loadLane, [&]() { return zero(stored); }));
    }
    return vector::FromElementsOp::create(b, loc, vectorOf(stored), lanes);
  });
  return {fromStorage(v), true};
}

// The lane masks of index ops compare lane indices `base + steps` (a
// constant vector) with a bound: a monotone predicate, so its first and last
// lanes decide all and any with one scalar compare each. Conjunctions and
// negations combine them; "all" may only err towards false and "any" only
// towards true, which keeps both safe for the load that uses them. Any
// other mask is reduced lane by lane.
std::pair<Value, Value> KernelEmitter::laneExtremes(Value mask) {
  OpBuilder &b = *builder;
  auto reduce = [&]() -> std::pair<Value, Value> {
    return {
        vector::ReductionOp::create(b, loc, vector::CombiningKind::AND, mask),
        vector::ReductionOp::create(b, loc, vector::CombiningKind::OR, mask)};
  };
  auto scalarOf = [](Value v) -> Value {
    if (auto splat = v.getDefiningOp<vector::BroadcastOp>())
      return splat.getSource();
    return Value();
  };
  auto notI1 = [&](Value v) -> Value {
    return arith::XOrIOp::create(b, loc, v,
                                 arith::ConstantIntOp::create(b, loc, 1, 1));
  };
  // `base + steps`: the scalar base and the lowest and highest step. Only
  // matched here; the lanes' indices are built once the bound and the
  // predicate are known to fit.
  struct LaneRange {
    Value base;
    int64_t lo = INT64_MAX, hi = INT64_MIN;
  };
  auto laneRange = [&](Value lanes) -> std::optional<LaneRange> {
    auto add = lanes.getDefiningOp<arith::AddIOp>();
    if (!add)
      return std::nullopt;
    for (int k = 0; k < 2; ++k) {
      LaneRange range;
      range.base = scalarOf(add->getOperand(k));
      DenseIntElementsAttr steps;
      if (!range.base ||
          !matchPattern(add->getOperand(1 - k), m_Constant(&steps)))
        continue;
      for (const APInt &step : steps.getValues<APInt>()) {
        range.lo = std::min(range.lo, step.getSExtValue());
        range.hi = std::max(range.hi, step.getSExtValue());
      }
      return range;
    }
    return std::nullopt;
  };
  auto boundOf = [&](Value v) -> Value {
    if (Value s = scalarOf(v))
      return s;
    DenseIntElementsAttr c;
    if (matchPattern(v, m_Constant(&c)) && c.isSplat())
      return constIdx(c.getSplatValue<APInt>().getSExtValue());
    return Value();
  };
  if (auto cmp = mask.getDefiningOp<arith::CmpIOp>()) {
    arith::CmpIPredicate pred = cmp.getPredicate();
    Value lanes = cmp.getLhs(), bound = cmp.getRhs();
    auto range = laneRange(lanes);
    using P = arith::CmpIPredicate;
    if (!range) {
      // bound P lanes: lanes P' bound with the operands swapped.
      std::swap(lanes, bound);
      pred = pred == P::slt   ? P::sgt
             : pred == P::sgt ? P::slt
             : pred == P::sle ? P::sge
             : pred == P::sge ? P::sle
                              : pred;
      range = laneRange(lanes);
    }
    // Signed orders only: they are monotone in the lane index.
    bool below = pred == P::slt || pred == P::sle;
    bool above = pred == P::sgt || pred == P::sge;
    Value bnd = range && (below || above) ? boundOf(bound) : Value();
    if (!bnd)
      return reduce();
    Value lo = arith::AddIOp::create(b, loc, range->base, constIdx(range->lo));
    Value hi = arith::AddIOp::create(b, loc, range->base, constIdx(range->hi));
    auto c = [&](Value x) -> Value {
      return arith::CmpIOp::create(b, loc, pred, x, bnd);
    };
    // lanes < bound: all lanes hold where the highest does, some lane
    // where the lowest does; lanes > bound the other way round.
    return below ? std::make_pair(c(hi), c(lo)) : std::make_pair(c(lo), c(hi));
  }
  if (auto andOp = mask.getDefiningOp<arith::AndIOp>()) {
    auto [allA, anyA] = laneExtremes(andOp.getLhs());
    auto [allB, anyB] = laneExtremes(andOp.getRhs());
    return {arith::AndIOp::create(b, loc, allA, allB),
            arith::AndIOp::create(b, loc, anyA, anyB)};
  }
  if (auto xorOp = mask.getDefiningOp<arith::XOrIOp>()) {
    for (int k = 0; k < 2; ++k) {
      DenseIntElementsAttr ones;
      if (!matchPattern(xorOp->getOperand(1 - k), m_Constant(&ones)) ||
          !ones.isSplat() || !ones.getSplatValue<APInt>().isAllOnes())
        continue;
      auto [all, any] = laneExtremes(xorOp->getOperand(k));
      return {notI1(any), notI1(all)};
    }
  }
  return reduce();
}

FailureOr<Gen> KernelEmitter::generate(Value value, ArrayRef<int64_t> map) {
  auto key =
      std::make_tuple(value.getAsOpaquePointer(),
                      std::vector<int64_t>(map.begin(), map.end()), contextId);
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
LogicalResult KernelEmitter::generateOperandsFirst(Value value,
                                                   ArrayRef<int64_t> map) {
  auto pending = [&](Value v) -> Operation * {
    Operation *op = v.getDefiningOp();
    // A random threshold reads no operand as a value (Note [Random
    // thresholds]): it is generated in its turn.
    if (!op || !op->hasTrait<FusionElementwise>() || reduced.count(v) ||
        isRandomThreshold(op))
      return nullptr;
    ArrayRef<int64_t> m =
        isa<RankedTensorType>(v.getType()) ? map : ArrayRef<int64_t>();
    auto key =
        std::make_tuple(v.getAsOpaquePointer(),
                        std::vector<int64_t>(m.begin(), m.end()), contextId);
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

SmallVector<int64_t> KernelEmitter::broadcastMap(RankedTensorType operand,
                                                 ArrayRef<int64_t> resultMap,
                                                 ArrayRef<int64_t> dims) {
  SmallVector<int64_t> map;
  for (auto [i, d] : llvm::enumerate(dims))
    map.push_back(operand.getDimSize(i) == 1 ? -1 : resultMap[d]);
  return map;
}

FailureOr<Gen> KernelEmitter::generateUncached(Value value,
                                               ArrayRef<int64_t> map) {
  OpBuilder &b = *builder;
  if (auto it = reduced.find(value); it != reduced.end())
    return it->second;
  if (auto arg = dyn_cast<BlockArgument>(value)) {
    if (auto it = stagedSlots.find(arg);
        contextId == 0 && it != stagedSlots.end() &&
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
  if (op->getDialect()->getNamespace() == "arith" && op->getNumResults() == 1 &&
      op->getNumRegions() == 0 && op->getResult(0).getType().isIntOrFloat()) {
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
  if (isRandomThreshold(op))
    return generateRandomThreshold(op, map);
  if (op->hasTrait<FusionElementwise>())
    return elementwise(op, map);
  if (isIndexingOp(op))
    return generateIndexing(op, map);
  return op->emitOpError("is not supported by the pointwise lowering");
}

FailureOr<Gen> KernelEmitter::elementwise(Operation *op,
                                          ArrayRef<int64_t> map) {
  OpBuilder &b = *builder;
  SmallVector<Gen> operands;
  bool anyVector = false;
  for (Value operand : op->getOperands()) {
    bool isTensor = isa<RankedTensorType>(operand.getType());
    FailureOr<Gen> g = generate(operand, isTensor ? map : ArrayRef<int64_t>());
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
  // e5m2 gives inf; NaN stays NaN; on sm_89 and later an f32 source takes
  // the hardware's conversion instead, Note [Hardware fp8 conversion] in
  // Casts.cpp). Other types go through f32 (fp8 values
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

Value KernelEmitter::floatConst(Type type, double v) {
  Type element = getElementTypeOrSelf(type);
  Attribute attr = builder->getFloatAttr(element, v);
  if (auto vt = dyn_cast<VectorType>(type))
    attr = DenseElementsAttr::get(vt, attr);
  return arith::ConstantOp::create(*builder, loc, type, cast<TypedAttr>(attr));
}

Value KernelEmitter::intConst(Type type, int64_t v) {
  Type element = getElementTypeOrSelf(type);
  Attribute attr = builder->getIntegerAttr(element, v);
  if (auto vt = dyn_cast<VectorType>(type))
    attr = DenseElementsAttr::get(vt, attr);
  return arith::ConstantOp::create(*builder, loc, type, cast<TypedAttr>(attr));
}

Value KernelEmitter::zero(Type type) {
  return isa<FloatType>(getElementTypeOrSelf(type)) ? floatConst(type, 0)
                                                    : intConst(type, 0);
}

// Note [Approximate tanh]: PTX's tanh.approx.f32 (one MUFU instruction,
// max relative error about 2^-11) instead of libdevice's tanhf, which
// costs dozens of instructions and makes bf16 gelu compute-bound. Used
// only when the schedule allows fast math (16-bit float results, whose
// own rounding is coarser than the approximation).
Value KernelEmitter::approxTanh(Value v) {
  return approxF32("tanh.approx.f32 $0, $1;", {v});
}

// Note [Approximate exp and division]: with fast math, exp(x) is
// ex2.approx.ftz.f32(x * log2(e)) (two instructions; relative error about
// 2^-22 plus |x| * 2^-24 from the product, far below bf16's 2^-9) and
// f32 division is div.full.f32 (at most 2 ulp): libdevice's expf and the
// IEEE division cost about ten instructions each per element and made
// bf16 softmax compute-bound on the H200.
//
// Note [exp of a difference]: exp(v) is ex2(v * log2(e)); where v is a
// difference a - b (softmax's x - max, the online states' rescaling) the
// scaling goes into one fma, ex2(fma(a, log2(e), b * -log2(e))), where b's
// product is computed once per b (CSE) rather than once per element: one
// instruction per element instead of two. The result differs from the
// sub-then-mul form by the rounding of b * log2(e) (fast-math only, below
// the 16-bit results' own rounding); infinities give what they gave: a =
// -inf still maps to 0, a = b = -inf and a = b = +inf to NaN.
Value KernelEmitter::approxExp(Value v) {
  OpBuilder &b = *builder;
  Value log2e = floatConst(v.getType(), 1.4426950408889634);
  Value scaled;
  if (auto sub = v.getDefiningOp<arith::SubFOp>()) {
    Value negLog2e = floatConst(v.getType(), -1.4426950408889634);
    Value offset = arith::MulFOp::create(b, loc, sub.getRhs(), negLog2e);
    scaled = math::FmaOp::create(b, loc, sub.getLhs(), log2e, offset);
  } else {
    scaled = arith::MulFOp::create(b, loc, v, log2e);
  }
  return approxF32("ex2.approx.ftz.f32 $0, $1;", {scaled});
}

// Note [Division by a row's value]: x / y where y is one value for all of
// a vector's lanes (a reduced value broadcast over the row: softmax's sum)
// is x * rcp(y), the reciprocal approximated once per y (rcp.approx.ftz,
// at most 1 ulp) instead of div.full.f32 per element.
Value KernelEmitter::approxDiv(Value x, Value y) {
  if (auto splat = y.getDefiningOp<vector::BroadcastOp>())
    if (splat.getSource().getType().isF32()) {
      Value r = approxF32("rcp.approx.ftz.f32 $0, $1;", {splat.getSource()});
      Value rV = vector::BroadcastOp::create(*builder, loc, y.getType(), r);
      return arith::MulFOp::create(*builder, loc, x, rV);
    }
  return approxF32("div.full.f32 $0, $1, $2;", {x, y});
}

Value KernelEmitter::approxF32(StringRef text, ArrayRef<Value> operands) {
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
      xs.push_back(vector::ExtractOp::create(b, loc, x, ArrayRef<int64_t>{i}));
    lanes.push_back(one(xs));
  }
  return vector::FromElementsOp::create(b, loc, vt, lanes);
}

Value KernelEmitter::compare(bool isFloat, arith::CmpFPredicate fp,
                             arith::CmpIPredicate ip, Value l, Value r) {
  if (isFloat)
    return arith::CmpFOp::create(*builder, loc, fp, l, r);
  return arith::CmpIOp::create(*builder, loc, ip, l, r);
}

FailureOr<Value> KernelEmitter::emitOp(Operation *op, ArrayRef<Value> v,
                                       Type element, Type type) {
  OpBuilder &b = *builder;
  bool isFloat = isa<FloatType>(element);
  using P = arith::CmpFPredicate;
  using IP = arith::CmpIPredicate;
  auto cmp = [&](P fp, IP ip, Value l, Value r) {
    return compare(isFloat, fp, ip, l, r);
  };
  auto binary = [&](auto floatTag, auto intTag) -> Value {
    using F = decltype(floatTag);
    using I = decltype(intTag);
    if (isFloat)
      return F::create(b, loc, v[0], v[1]);
    return I::create(b, loc, v[0], v[1]);
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
        Value signsDiffer = arith::XOrIOp::create(
            b, loc, cmp(P::OLT, IP::slt, r, z), cmp(P::OLT, IP::slt, v[1], z));
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
        Value tooFar =
            arith::CmpIOp::create(b, loc, IP::uge, v[1], intConst(type, bits));
        Value safe = arith::SelectOp::create(b, loc, tooFar, zero(type), v[1]);
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
        return arith::AddFOp::create(b, loc, v[0],
                                     arith::MulFOp::create(b, loc, v[2], diff));
      })
      .Case<FmaOp>([&](auto) {
        return math::FmaOp::create(b, loc, v[0], v[1], v[2]).getResult();
      })
      .Default([&](Operation *other) {
        return emitUnaryOp(other, v, element, type);
      });
}

FailureOr<Value> KernelEmitter::emitUnaryOp(Operation *op, ArrayRef<Value> v,
                                            Type element, Type type) {
  OpBuilder &b = *builder;
  bool isFloat = isa<FloatType>(element);
  using P = arith::CmpFPredicate;
  using IP = arith::CmpIPredicate;
  auto cmp = [&](P fp, IP ip, Value l, Value r) {
    return compare(isFloat, fp, ip, l, r);
  };
  auto unaryF = [&](auto tag) -> Value {
    return decltype(tag)::create(b, loc, v[0]);
  };
  auto one = [&]() {
    return isFloat ? floatConst(type, 1) : intConst(type, 1);
  };
  return TypeSwitch<Operation *, FailureOr<Value>>(op)
      .Case<NegOp>([&](auto) -> Value {
        if (isFloat)
          return arith::NegFOp::create(b, loc, v[0]);
        return arith::SubIOp::create(b, loc, zero(type), v[0]);
      })
      .Case<AbsOp>([&](auto) -> Value {
        if (isFloat)
          return math::AbsFOp::create(b, loc, v[0]);
        // math.absi has no lowering to NVVM here: max(x, -x) (the minimum
        // stays itself, as in two's complement abs).
        return arith::MaxSIOp::create(
            b, loc, v[0], arith::SubIOp::create(b, loc, zero(type), v[0]));
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
      .Case<TruncOp>([&](auto) -> Value {
        // math.trunc has no lowering to LLVM here (found by the op table,
        // docs/ops.md): floor above zero, ceil below (NaN stays NaN, -0.5
        // gives -0).
        Value positive =
            arith::CmpFOp::create(b, loc, P::OGE, v[0], floatConst(type, 0));
        return arith::SelectOp::create(
            b, loc, positive, unaryF(math::FloorOp()), unaryF(math::CeilOp()));
      })
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

} // namespace mlir::fusion::lowering
