//===- ImportLinalg.cpp - the pass --fusion-import-linalg -----------------===//
// Turns functions of upstream ops on tensors into fusion.fusion ops
// (docs/embedding.md): element-wise and reduction linalg.generic ops with
// arith/math bodies, linalg.softmax, linalg.transpose and linalg.broadcast,
// with tensor.empty and linalg.fill as their inits; tensor.collapse_shape and
// tensor.expand_shape (fusion.reshape), tensor.extract_slice (fusion.slice,
// and fusion.squeeze when it drops dims) and tensor.concat (fusion.cat). A
// function with any op the pass cannot express stays as it is, with a warning
// on that op saying why.
//===----------------------------------------------------------------------===//

#include "fusion/Conversion/Passes.h"
#include "fusion/Dialect/Fusion/IR/FusionOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/TypeSwitch.h"

#include <cmath>

namespace mlir::fusion {
#define GEN_PASS_DEF_FUSIONIMPORTLINALG
#include "fusion/Conversion/Passes.h.inc"
} // namespace mlir::fusion

using namespace mlir;
using namespace mlir::fusion;

namespace {

/// Why an op cannot be imported; empty when it can.
using Reason = std::string;

/// The reduction a generic's body performs with its output argument.
enum class Combine { None, Add, Mul, Max, Min };

/// Builds the fusion ops of one function.
class Importer {
public:
  Importer(OpBuilder &b) : b(b) {}

  /// Imports `func` into a fusion.fusion before it; on failure nothing
  /// stays and `bad` is the op at fault.
  LogicalResult run(func::FuncOp func, Operation *&bad, Reason &why);

private:
  LogicalResult importOp(Operation *op, Reason &why);
  /// linalg.generic and the named structured ops with a payload region
  /// (linalg.add, linalg.exp, linalg.reduce, ...).
  LogicalResult importGeneric(linalg::LinalgOp op, Reason &why);
  /// The dynamic sizes of a tensor of the domain, from `like`'s dims.
  SmallVector<Value> sizesOf(Value like, RankedTensorType type);
  Value indexValue(Value v, Reason &why);
  /// A static or dynamic index of a tensor op (offsets, sizes, strides).
  Value index(OpFoldResult v, Reason &why);
  LogicalResult importReshape(Operation *op, Reason &why);
  LogicalResult importSlice(tensor::ExtractSliceOp slice, Reason &why);
  /// `v` (mapped) spread over the domain: a projection map becomes a
  /// broadcast_in_dim, identity is `v` itself.
  Value toDomain(Value v, AffineMap map, RankedTensorType domain, Value like,
                 Reason &why);
  Value scalarOp(Operation *op, ArrayRef<Value> operands, RankedTensorType type,
                 Reason &why);

  OpBuilder &b;
  IRMapping map;
  Location loc = UnknownLoc::get(b.getContext());
};

SmallVector<Value> Importer::sizesOf(Value like, RankedTensorType type) {
  SmallVector<Value> sizes;
  for (int64_t d = 0; d < type.getRank(); ++d)
    if (type.isDynamicDim(d))
      sizes.push_back(DimOp::create(b, loc, b.getIndexType(), like, d));
  return sizes;
}

/// An index operand of tensor.empty: tensor.dim of an imported tensor or a
/// constant.
Value Importer::indexValue(Value v, Reason &why) {
  if (Value mapped = map.lookupOrNull(v))
    return mapped;
  if (auto dim = v.getDefiningOp<tensor::DimOp>()) {
    std::optional<int64_t> d = dim.getConstantIndex();
    Value source = map.lookupOrNull(dim.getSource());
    if (d && source)
      return DimOp::create(b, loc, b.getIndexType(), source, *d);
  }
  if (matchPattern(v, m_Constant()))
    return b.clone(*v.getDefiningOp())->getResult(0);
  why = "a size that is neither tensor.dim of a tensor nor a constant";
  return {};
}

Value Importer::toDomain(Value v, AffineMap m, RankedTensorType domain,
                         Value like, Reason &why) {
  if (m.isIdentity())
    return v;
  SmallVector<int64_t> dims;
  for (AffineExpr e : m.getResults()) {
    auto d = dyn_cast<AffineDimExpr>(e);
    if (!d) {
      why = "an indexing map that is not a projection of the loops";
      return {};
    }
    if (!dims.empty() &&
        d.getPosition() <= static_cast<unsigned>(dims.back())) {
      why = "a permuted indexing map (write it as linalg.transpose)";
      return {};
    }
    dims.push_back(d.getPosition());
  }
  if (static_cast<int64_t>(dims.size()) == domain.getRank()) {
    why = "an indexing map that is not an identity or an ordered projection";
    return {};
  }
  return BroadcastInDimOp::create(b, loc, domain, v, dims,
                                  sizesOf(like, domain));
}

/// One op of a generic's body on tensors of the domain's shape.
Value Importer::scalarOp(Operation *op, ArrayRef<Value> x,
                         RankedTensorType type, Reason &why) {
  auto t = [&](Type element) { return type.clone(element); };
  Type element = op->getNumResults() ? op->getResult(0).getType() : Type();
  RankedTensorType result = element ? t(element) : type;
  auto binary = [&](auto tag) -> Value {
    using OpT = decltype(tag);
    return OpT::create(b, loc, result, x[0], x[1]);
  };
  auto unary = [&](auto tag) -> Value {
    using OpT = decltype(tag);
    return OpT::create(b, loc, result, x[0]);
  };
  return llvm::TypeSwitch<Operation *, Value>(op)
      .Case<arith::AddFOp, arith::AddIOp>([&](auto) -> Value {
        return AddOp::create(b, loc, result, x[0], x[1], FloatAttr());
      })
      .Case<arith::SubFOp, arith::SubIOp>([&](auto) { return binary(SubOp()); })
      .Case<arith::MulFOp, arith::MulIOp>([&](auto) { return binary(MulOp()); })
      .Case<arith::DivFOp>([&](auto) { return binary(DivOp()); })
      .Case<arith::MaximumFOp, arith::MaxNumFOp>(
          [&](auto) { return binary(MaximumOp()); })
      .Case<arith::MinimumFOp, arith::MinNumFOp>(
          [&](auto) { return binary(MinimumOp()); })
      .Case<arith::NegFOp>([&](auto) { return unary(NegOp()); })
      .Case<math::ExpOp>([&](auto) { return unary(ExpOp()); })
      .Case<math::LogOp>([&](auto) { return unary(LogOp()); })
      .Case<math::TanhOp>([&](auto) { return unary(TanhOp()); })
      .Case<math::SqrtOp>([&](auto) { return unary(SqrtOp()); })
      .Case<math::RsqrtOp>([&](auto) { return unary(RsqrtOp()); })
      .Case<math::AbsFOp>([&](auto) { return unary(AbsOp()); })
      .Case<arith::ExtFOp, arith::TruncFOp, arith::SIToFPOp, arith::FPToSIOp>(
          [&](auto) { return unary(CastOp()); })
      .Default([&](Operation *) -> Value {
        why = "'" + op->getName().getStringRef().str() +
              "' in its body has no fusion counterpart here";
        return {};
      });
}

Combine combineOf(Operation *op) {
  if (isa<arith::AddFOp, arith::AddIOp>(op))
    return Combine::Add;
  if (isa<arith::MulFOp, arith::MulIOp>(op))
    return Combine::Mul;
  if (isa<arith::MaximumFOp, arith::MaxNumFOp>(op))
    return Combine::Max;
  if (isa<arith::MinimumFOp, arith::MinNumFOp>(op))
    return Combine::Min;
  return Combine::None;
}

/// Whether `init` is a linalg.fill of the combine's neutral value.
bool neutralInit(Value init, Combine c) {
  auto fill = init.getDefiningOp<linalg::FillOp>();
  if (!fill)
    return false;
  Value value = fill.getInputs()[0];
  FloatAttr f;
  IntegerAttr i;
  if (matchPattern(value, m_Constant(&f))) {
    double v = f.getValueAsDouble();
    switch (c) {
    case Combine::Add:
      return v == 0.0;
    case Combine::Mul:
      return v == 1.0;
    case Combine::Max:
      return std::isinf(v) && v < 0;
    case Combine::Min:
      return std::isinf(v) && v > 0;
    case Combine::None:
      return false;
    }
  }
  if (matchPattern(value, m_Constant(&i)))
    return (c == Combine::Add && i.getValue().isZero()) ||
           (c == Combine::Mul && i.getValue().isOne());
  return false;
}

LogicalResult Importer::importGeneric(linalg::LinalgOp op, Reason &why) {
  if (linalg::isaContractionOpInterface(op) ||
      isa<linalg::ConvolutionOpInterface>(op.getOperation())) {
    why = "'" + op->getName().getStringRef().str() +
          "' is a contraction or convolution, which has no fusion "
          "counterpart";
    return failure();
  }
  if (!op.hasPureTensorSemantics() || op->getNumResults() != 1) {
    why = "a structured op that is not on tensors with one result";
    return failure();
  }
  if (op.getNumDpsInits() != 1) {
    why = "a generic with several outputs";
    return failure();
  }
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  SmallVector<int64_t> reduced;
  for (auto [i, it] : llvm::enumerate(iterators))
    if (it == utils::IteratorType::reduction)
      reduced.push_back(static_cast<int64_t>(i));
  // The domain: the shape of an input read through the identity map.
  Value like;
  for (OpOperand *in : op.getDpsInputOperands())
    if (op.getMatchingIndexingMap(in).isIdentity())
      like = map.lookupOrNull(in->get());
  OpOperand *out = op.getDpsInitOperand(0);
  if (!like) {
    why = "no input is read whole (through the identity map)";
    return failure();
  }
  auto domain = cast<RankedTensorType>(like.getType());
  Block &body = *op.getBlock();
  IRMapping values;
  for (OpOperand *in : op.getDpsInputOperands()) {
    Value v = map.lookupOrNull(in->get());
    if (!v) {
      why = "an input that is not a tensor the function computes";
      return failure();
    }
    Value spread =
        toDomain(v, op.getMatchingIndexingMap(in),
                 domain.clone(cast<ShapedType>(v.getType()).getElementType()),
                 like, why);
    if (!spread)
      return failure();
    values.map(body.getArgument(in->getOperandNumber()), spread);
  }
  BlockArgument outArg = body.getArgument(op.getNumDpsInputs());
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  Value yielded = yield.getOperand(0);
  Combine combine = Combine::None;
  Operation *combineOp = nullptr;
  if (!reduced.empty()) {
    combineOp = yielded.getDefiningOp();
    combine = combineOp ? combineOf(combineOp) : Combine::None;
    if (combine == Combine::None ||
        !llvm::is_contained(combineOp->getOperands(), outArg)) {
      why = "a reduction whose body does not end in an add, mul, max or min "
            "with the output";
      return failure();
    }
    if (!neutralInit(out->get(), combine)) {
      why = "a reduction whose init is not a linalg.fill of its neutral "
            "value";
      return failure();
    }
  } else if (!outArg.use_empty()) {
    why = "an element-wise generic that reads its output";
    return failure();
  }
  for (Operation &inner : body.without_terminator()) {
    if (&inner == combineOp)
      continue;
    if (auto constant = dyn_cast<arith::ConstantOp>(inner)) {
      Value scalar = b.clone(inner)->getResult(0);
      if (!isa<IntegerType, FloatType>(scalar.getType())) {
        why = "a constant that is not a scalar";
        return failure();
      }
      values.map(constant.getResult(),
                 BroadcastInDimOp::create(
                     b, loc, domain.clone(scalar.getType()), scalar,
                     ArrayRef<int64_t>{}, sizesOf(like, domain)));
      continue;
    }
    SmallVector<Value> operands;
    for (Value v : inner.getOperands()) {
      if (v == outArg) {
        why = "a reduction that uses its output outside the final combine";
        return failure();
      }
      Value mapped = values.lookupOrNull(v);
      if (!mapped) {
        why = "its body uses a value from outside the generic";
        return failure();
      }
      operands.push_back(mapped);
    }
    Value r = scalarOp(&inner, operands, domain, why);
    if (!r)
      return failure();
    values.map(inner.getResult(0), r);
  }
  Value result;
  if (reduced.empty()) {
    result = values.lookupOrNull(yielded);
  } else {
    Value other = combineOp->getOperand(0) == outArg ? combineOp->getOperand(1)
                                                     : combineOp->getOperand(0);
    Value x = values.lookupOrNull(other);
    auto type = cast<RankedTensorType>(op->getResult(0).getType());
    if (!x || !op.getMatchingIndexingMap(out).isProjectedPermutation()) {
      why = "a reduction whose output map is not a projection";
      return failure();
    }
    switch (combine) {
    case Combine::Add:
      result = SumOp::create(b, loc, type, x, reduced, false);
      break;
    case Combine::Mul:
      result = ProdOp::create(b, loc, type, x, reduced, false);
      break;
    case Combine::Max:
      result = fusion::MaxOp::create(b, loc, type, x, reduced, false);
      break;
    case Combine::Min:
      result = fusion::MinOp::create(b, loc, type, x, reduced, false);
      break;
    case Combine::None:
      break;
    }
  }
  if (!result) {
    why = "its yield is not computed from its inputs";
    return failure();
  }
  map.map(op->getResult(0), result);
  return success();
}

Value Importer::index(OpFoldResult v, Reason &why) {
  if (auto attr = dyn_cast<Attribute>(v))
    return arith::ConstantIndexOp::create(b, loc,
                                          cast<IntegerAttr>(attr).getInt());
  return indexValue(cast<Value>(v), why);
}

/// tensor.collapse_shape and tensor.expand_shape: a fusion.reshape (same
/// elements in row-major order). A collapsed dynamic dim is the product of
/// its group's sizes; an expanded one is the op's output_shape operand.
LogicalResult Importer::importReshape(Operation *op, Reason &why) {
  Value source = map.lookupOrNull(op->getOperand(0));
  if (!source) {
    why = "an input that is not a tensor the function computes";
    return failure();
  }
  auto type = cast<RankedTensorType>(op->getResult(0).getType());
  SmallVector<Value> sizes;
  if (auto collapse = dyn_cast<tensor::CollapseShapeOp>(op)) {
    for (auto [d, group] :
         llvm::enumerate(collapse.getReassociationIndices())) {
      if (!type.isDynamicDim(d))
        continue;
      Value size;
      for (int64_t s : group) {
        Value dim = DimOp::create(b, loc, b.getIndexType(), source, s);
        size =
            size ? arith::MulIOp::create(b, loc, size, dim).getResult() : dim;
      }
      sizes.push_back(size);
    }
  } else {
    auto expand = cast<tensor::ExpandShapeOp>(op);
    for (auto [d, size] : llvm::enumerate(expand.getMixedOutputShape())) {
      if (!type.isDynamicDim(d))
        continue;
      Value v = index(size, why);
      if (!v)
        return failure();
      sizes.push_back(v);
    }
  }
  map.map(op->getResult(0), ReshapeOp::create(b, loc, type, source, sizes));
  return success();
}

/// tensor.extract_slice: a fusion.slice (starts = offsets, steps = strides,
/// stops one past the last element taken), then a fusion.squeeze of the
/// unit dims a rank-reducing slice drops.
LogicalResult Importer::importSlice(tensor::ExtractSliceOp slice, Reason &why) {
  Value source = map.lookupOrNull(slice.getSource());
  if (!source) {
    why = "an input that is not a tensor the function computes";
    return failure();
  }
  RankedTensorType sourceType = slice.getSourceType();
  int64_t rank = sourceType.getRank();
  SmallVector<Value> starts, stops, steps;
  SmallVector<int64_t> shape;
  for (int64_t d = 0; d < rank; ++d) {
    OpFoldResult offset = slice.getMixedOffsets()[d];
    OpFoldResult size = slice.getMixedSizes()[d];
    OpFoldResult stride = slice.getMixedStrides()[d];
    std::optional<int64_t> st = getConstantIntValue(stride);
    if (st && *st < 1) {
      why = "a slice with a stride below 1";
      return failure();
    }
    Value start = index(offset, why), step = index(stride, why);
    if (!start || !step)
      return failure();
    // stop = offset + (size - 1) * stride + 1: exactly `size` elements.
    std::optional<int64_t> n = getConstantIntValue(size);
    Value stop;
    if (n && st) {
      Value span = arith::ConstantIndexOp::create(b, loc, (*n - 1) * *st + 1);
      stop = arith::AddIOp::create(b, loc, start, span);
    } else {
      Value count = index(size, why);
      if (!count)
        return failure();
      Value one = arith::ConstantIndexOp::create(b, loc, 1);
      Value last = arith::MulIOp::create(
          b, loc, arith::SubIOp::create(b, loc, count, one), step);
      stop = arith::AddIOp::create(
          b, loc, arith::AddIOp::create(b, loc, start, last), one);
    }
    starts.push_back(start);
    stops.push_back(stop);
    steps.push_back(step);
    shape.push_back(n ? *n : ShapedType::kDynamic);
  }
  auto sliced = RankedTensorType::get(shape, sourceType.getElementType());
  Value result = SliceOp::create(b, loc, sliced, source, starts, stops, steps);
  RankedTensorType type = slice.getResultType();
  if (type.getRank() != rank) {
    llvm::SmallBitVector dropped = slice.getDroppedDims();
    SmallVector<int64_t> dims;
    for (int64_t d = 0; d < rank; ++d)
      if (dropped.test(d))
        dims.push_back(d);
    result = SqueezeOp::create(b, loc, type, result, dims);
  }
  map.map(slice.getResult(), result);
  return success();
}

LogicalResult Importer::importOp(Operation *op, Reason &why) {
  loc = op->getLoc();
  // Inits: their values are never read by what the pass accepts.
  if (isa<tensor::EmptyOp, linalg::FillOp, tensor::DimOp>(op))
    return success();
  if (auto constant = dyn_cast<arith::ConstantOp>(op)) {
    if (!isa<IntegerType, FloatType, IndexType>(constant.getType())) {
      why = "a constant that is not a scalar";
      return failure();
    }
    map.map(constant.getResult(), b.clone(*op)->getResult(0));
    return success();
  }
  // Size arithmetic (arith on index values), for reshape and slice bounds.
  if (op->getDialect() && op->getDialect()->getNamespace() == "arith" &&
      op->getNumRegions() == 0 && op->getNumResults() == 1 &&
      op->getResult(0).getType().isIndex() &&
      llvm::all_of(op->getOperandTypes(), [](Type t) { return t.isIndex(); })) {
    IRMapping operands;
    for (Value v : op->getOperands()) {
      Value x = indexValue(v, why);
      if (!x)
        return failure();
      operands.map(v, x);
    }
    map.map(op->getResult(0), b.clone(*op, operands)->getResult(0));
    return success();
  }
  auto input = [&](Value v) -> Value {
    Value mapped = map.lookupOrNull(v);
    if (!mapped)
      why = "an input that is not a tensor the function computes";
    return mapped;
  };
  if (auto softmax = dyn_cast<linalg::SoftmaxOp>(op)) {
    Value x = input(softmax.getInput());
    if (!x)
      return failure();
    map.map(softmax.getResult()[0],
            SoftmaxOp::create(b, loc, x.getType(), x,
                              static_cast<int64_t>(softmax.getDimension())));
    return success();
  }
  if (auto transpose = dyn_cast<linalg::TransposeOp>(op)) {
    Value x = input(transpose.getInput());
    if (!x)
      return failure();
    map.map(transpose.getResult()[0],
            PermuteOp::create(b, loc, transpose.getResult()[0].getType(), x,
                              transpose.getPermutation()));
    return success();
  }
  if (auto broadcast = dyn_cast<linalg::BroadcastOp>(op)) {
    Value x = input(broadcast.getInput());
    if (!x)
      return failure();
    auto type = cast<RankedTensorType>(broadcast.getResult()[0].getType());
    SmallVector<int64_t> kept;
    for (int64_t d = 0; d < type.getRank(); ++d)
      if (!llvm::is_contained(broadcast.getDimensions(), d))
        kept.push_back(d);
    auto empty = broadcast.getInit().getDefiningOp<tensor::EmptyOp>();
    if (!empty) {
      why = "a broadcast whose init is not tensor.empty";
      return failure();
    }
    SmallVector<Value> sizes;
    for (Value s : empty.getDynamicSizes()) {
      Value v = indexValue(s, why);
      if (!v)
        return failure();
      sizes.push_back(v);
    }
    map.map(broadcast.getResult()[0],
            BroadcastInDimOp::create(b, loc, type, x, kept, sizes));
    return success();
  }
  if (isa<tensor::CollapseShapeOp, tensor::ExpandShapeOp>(op))
    return importReshape(op, why);
  if (auto slice = dyn_cast<tensor::ExtractSliceOp>(op))
    return importSlice(slice, why);
  if (auto concat = dyn_cast<tensor::ConcatOp>(op)) {
    SmallVector<Value> inputs;
    for (Value v : concat.getInputs()) {
      Value x = input(v);
      if (!x)
        return failure();
      inputs.push_back(x);
    }
    map.map(concat.getResult(),
            CatOp::create(b, loc, concat.getResultType(), inputs,
                          static_cast<int64_t>(concat.getDim())));
    return success();
  }
  if (auto structured = dyn_cast<linalg::LinalgOp>(op))
    return importGeneric(structured, why);
  why = "'" + op->getName().getStringRef().str() +
        "' has no fusion counterpart here";
  return failure();
}

LogicalResult Importer::run(func::FuncOp func, Operation *&bad, Reason &why) {
  FunctionType type = func.getFunctionType();
  for (Type t : llvm::concat<const Type>(type.getInputs(), type.getResults()))
    if (!isa<RankedTensorType>(t)) {
      bad = func;
      why = "a function whose arguments and results are not all ranked "
            "tensors";
      return failure();
    }
  if (!func.getBody().hasOneBlock()) {
    bad = func;
    why = "a function of several blocks";
    return failure();
  }
  auto fusionOp = FusionOp::create(b, func.getLoc(), func.getSymName(), type,
                                   ArrayAttr(), ArrayAttr());
  Block *entry =
      b.createBlock(&fusionOp.getBody(), {}, type.getInputs(),
                    SmallVector<Location>(type.getNumInputs(), func.getLoc()));
  map.map(func.getArguments(), entry->getArguments());
  for (Operation &op : func.getBody().front()) {
    if (auto ret = dyn_cast<func::ReturnOp>(op)) {
      SmallVector<Value> results;
      for (Value v : ret.getOperands())
        results.push_back(map.lookupOrNull(v));
      if (llvm::is_contained(results, Value())) {
        bad = ret;
        why = "a result that is not computed by imported ops";
        fusionOp.erase();
        return failure();
      }
      loc = ret.getLoc();
      ReturnOp::create(b, loc, results);
      continue;
    }
    if (failed(importOp(&op, why))) {
      bad = &op;
      fusionOp.erase();
      return failure();
    }
  }
  return success();
}

struct FusionImportLinalgPass
    : mlir::fusion::impl::FusionImportLinalgBase<FusionImportLinalgPass> {
  void runOnOperation() override {
    for (auto func :
         llvm::make_early_inc_range(getOperation().getOps<func::FuncOp>())) {
      if (func.isExternal())
        continue;
      OpBuilder b(func);
      Importer importer(b);
      Operation *bad = nullptr;
      Reason why;
      if (failed(importer.run(func, bad, why))) {
        bad->emitWarning() << "not imported into fusion (function @"
                           << func.getSymName() << " stays as it is): " << why;
        continue;
      }
      func.erase();
    }
  }
};

} // namespace
