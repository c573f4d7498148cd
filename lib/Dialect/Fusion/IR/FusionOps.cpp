//===- FusionOps.cpp - fusion dialect ops ---------------------------------===//
// Verifiers, folders and custom syntax of the fusion dialect's ops. Every
// diagnostic names the operand, dim and sizes at fault.
//===----------------------------------------------------------------------===//

#include "fusion/Dialect/Fusion/IR/FusionOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/FunctionImplementation.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallBitVector.h"

using namespace mlir;
using namespace mlir::fusion;

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

Type mlir::fusion::getI1Like(Type type) {
  Type i1 = IntegerType::get(type.getContext(), 1);
  if (auto tensor = dyn_cast<RankedTensorType>(type))
    return tensor.clone(i1);
  return i1;
}

LogicalResult mlir::fusion::verifyElementwiseShapes(Operation *op) {
  SmallVector<std::pair<std::string, Type>> values;
  for (auto [i, v] : llvm::enumerate(op->getOperands()))
    values.push_back({"operand " + std::to_string(i), v.getType()});
  for (auto [i, v] : llvm::enumerate(op->getResults()))
    values.push_back({"result " + std::to_string(i), v.getType()});
  if (values.empty())
    return success();
  auto first = dyn_cast<RankedTensorType>(values.front().second);
  // Ops of one type get diagnostics naming the values that differ, before
  // the generic SameOperandsAndResultType message.
  bool oneType = op->hasTrait<OpTrait::SameOperandsAndResultType>();
  Type firstElement = getElementTypeOrSelf(values.front().second);
  for (auto &[name, type] : values) {
    auto tensor = dyn_cast<RankedTensorType>(type);
    if (bool(tensor) != bool(first))
      return op->emitOpError()
             << name << " is " << (tensor ? "a tensor" : "a scalar") << " but "
             << values.front().first << " is "
             << (first ? "a tensor" : "a scalar")
             << "; broadcast scalars with fusion.broadcast_in_dim";
    if (oneType && getElementTypeOrSelf(type) != firstElement)
      return op->emitOpError()
             << name << " element type " << getElementTypeOrSelf(type)
             << " differs from " << values.front().first << " element type "
             << firstElement << "; insert a fusion.cast";
    if (!tensor)
      continue;
    if (tensor.getRank() != first.getRank())
      return op->emitOpError()
             << name << " has rank " << tensor.getRank() << " but "
             << values.front().first << " has rank " << first.getRank()
             << "; broadcasting is explicit (fusion.broadcast_in_dim)";
    for (int64_t d = 0; d < first.getRank(); ++d) {
      int64_t a = first.getDimSize(d), b = tensor.getDimSize(d);
      if (!ShapedType::isDynamic(a) && !ShapedType::isDynamic(b) && a != b)
        return op->emitOpError()
               << name << " dim " << d << " is " << b << " but "
               << values.front().first << " dim " << d << " is " << a
               << "; broadcasting is explicit (fusion.broadcast_in_dim)";
    }
    if (oneType && type != values.front().second)
      return op->emitOpError()
             << name << " has type " << type << " but " << values.front().first
             << " has type " << values.front().second
             << "; all operands and results of " << op->getName()
             << " have one type";
  }
  return success();
}

/// Shape-making ops take one index operand per dynamic result dim.
static LogicalResult verifyDynamicSizes(Operation *op, RankedTensorType type,
                                        ValueRange sizes) {
  int64_t dynamic = type.getNumDynamicDims();
  if (static_cast<int64_t>(sizes.size()) != dynamic)
    return op->emitOpError() << "result type " << type << " has " << dynamic
                             << " dynamic dims but " << sizes.size()
                             << " size operands were given";
  return success();
}

static LogicalResult verifyDimInRange(Operation *op, int64_t dim, int64_t rank,
                                      StringRef what = "dim") {
  if (dim < 0 || dim >= rank)
    return op->emitOpError()
           << what << " " << dim << " is out of range [0, " << rank << ")";
  return success();
}

/// Checks `actual` against the expected shape; dynamic dims on either side
/// are compatible.
static LogicalResult verifyShape(Operation *op, StringRef what,
                                 ArrayRef<int64_t> expected,
                                 RankedTensorType actual) {
  if (static_cast<int64_t>(expected.size()) != actual.getRank())
    return op->emitOpError()
           << what << " has rank " << actual.getRank() << " but rank "
           << expected.size() << " is expected";
  for (auto [d, e] : llvm::enumerate(expected)) {
    int64_t a = actual.getDimSize(d);
    if (!ShapedType::isDynamic(e) && !ShapedType::isDynamic(a) && e != a)
      return op->emitOpError() << what << " dim " << d << " is " << a << " but "
                               << e << " is expected";
  }
  return success();
}

static LogicalResult verifySameElementType(Operation *op, Type a, Type b,
                                           StringRef aName, StringRef bName) {
  if (getElementTypeOrSelf(a) != getElementTypeOrSelf(b))
    return op->emitOpError()
           << aName << " element type " << getElementTypeOrSelf(a)
           << " differs from " << bName << " element type "
           << getElementTypeOrSelf(b) << "; insert a fusion.cast";
  return success();
}

/// Verifies a list of reduced dims and returns the reduced shape.
static FailureOr<SmallVector<int64_t>> verifyReducedDims(Operation *op,
                                                         RankedTensorType input,
                                                         ArrayRef<int64_t> dims,
                                                         bool keepdim) {
  llvm::SmallBitVector reduced(input.getRank());
  for (int64_t d : dims) {
    if (failed(verifyDimInRange(op, d, input.getRank(), "reduced dim")))
      return failure();
    if (reduced.test(d))
      return op->emitOpError() << "reduced dim " << d << " appears twice";
    reduced.set(d);
  }
  SmallVector<int64_t> shape;
  for (int64_t d = 0; d < input.getRank(); ++d) {
    if (!reduced.test(d))
      shape.push_back(input.getDimSize(d));
    else if (keepdim)
      shape.push_back(1);
  }
  return shape;
}

//===----------------------------------------------------------------------===//
// FusionOp
//===----------------------------------------------------------------------===//

ParseResult FusionOp::parse(OpAsmParser &parser, OperationState &result) {
  auto buildType = [](Builder &builder, ArrayRef<Type> inputs,
                      ArrayRef<Type> results,
                      function_interface_impl::VariadicFlag, std::string &) {
    return builder.getFunctionType(inputs, results);
  };
  return function_interface_impl::parseFunctionOp(
      parser, result, /*allowVariadic=*/false,
      getFunctionTypeAttrName(result.name), buildType,
      getArgAttrsAttrName(result.name), getResAttrsAttrName(result.name));
}

void FusionOp::print(OpAsmPrinter &p) {
  function_interface_impl::printFunctionOp(
      p, *this, /*isVariadic=*/false, getFunctionTypeAttrName(),
      getArgAttrsAttrName(), getResAttrsAttrName());
}

/// The element types of the dialect (Fusion_Element in FusionOps.td).
static bool isFusionElement(Type type) {
  return type.isF64() || type.isF32() || type.isF16() || type.isBF16() ||
         type.isSignlessInteger(64) || type.isSignlessInteger(32) ||
         type.isSignlessInteger(16) || type.isSignlessInteger(8) ||
         type.isSignlessInteger(1) ||
         isa<Float8E4M3FNType, Float8E5M2Type>(type);
}

/// Inputs and results are ranked tensors of the dialect's element types, or
/// scalars of those types or index.
static LogicalResult verifySignatureType(Operation *op, StringRef what,
                                         unsigned i, Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor && !type.isIntOrIndexOrFloat())
    return op->emitOpError() << what << " " << i << " has type " << type << "; "
                             << what << "s are ranked tensors or scalars";
  Type element = tensor ? tensor.getElementType() : type;
  if (!isFusionElement(element) && (tensor || !element.isIndex()))
    return op->emitOpError()
           << what << " " << i << " has element type " << element
           << "; element types are f64, f32, f16, bf16, i64, i32, i16, i8, "
              "i1, f8E4M3FN and f8E5M2 (and index for scalars)";
  return success();
}

// The body's shape (one block) and its arguments' types are checked by ODS
// and the function interface before this runs.
LogicalResult FusionOp::verify() {
  for (auto [i, type] : llvm::enumerate(getArgumentTypes()))
    if (failed(verifySignatureType(*this, "input", i, type)))
      return failure();
  for (auto [i, type] : llvm::enumerate(getResultTypes()))
    if (failed(verifySignatureType(*this, "result", i, type)))
      return failure();
  return success();
}

std::string FusionOp::getInputName(unsigned i) {
  if (auto name = getArgAttrOfType<StringAttr>(i, "fusion.name"))
    return name.str();
  return "arg" + std::to_string(i);
}

LogicalResult ReturnOp::verify() {
  auto fusion = cast<FusionOp>((*this)->getParentOp());
  ArrayRef<Type> results = fusion.getResultTypes();
  if (getNumOperands() != results.size())
    return emitOpError() << "returns " << getNumOperands()
                         << " values but the fusion has " << results.size()
                         << " results";
  for (auto [i, pair] : llvm::enumerate(llvm::zip(getOperandTypes(), results)))
    if (std::get<0>(pair) != std::get<1>(pair))
      return emitOpError() << "value " << i << " has type " << std::get<0>(pair)
                           << " but the fusion returns " << std::get<1>(pair);
  return success();
}

//===----------------------------------------------------------------------===//
// DimOp
//===----------------------------------------------------------------------===//

LogicalResult DimOp::verify() {
  return verifyDimInRange(*this, getDim(), getInput().getType().getRank());
}

OpFoldResult DimOp::fold(FoldAdaptor) {
  auto type = getInput().getType();
  int64_t dim = getDim();
  if (dim < 0 || dim >= type.getRank() || type.isDynamicDim(dim))
    return {};
  return IntegerAttr::get(IndexType::get(getContext()), type.getDimSize(dim));
}

// Note [Static dims canonicalize to constants]: the fusion dialect has no
// constant materializer, so the folder's attribute cannot replace the op in
// the greedy driver; this pattern makes the constant explicitly.
LogicalResult DimOp::canonicalize(DimOp op, PatternRewriter &rewriter) {
  auto type = op.getInput().getType();
  int64_t dim = op.getDim();
  if (dim < 0 || dim >= type.getRank() || type.isDynamicDim(dim))
    return failure();
  rewriter.replaceOpWithNewOp<arith::ConstantIndexOp>(op, type.getDimSize(dim));
  return success();
}

//===----------------------------------------------------------------------===//
// Element-wise
//===----------------------------------------------------------------------===//

namespace {
/// `add` with alpha == 1 is a plain add.
struct DropUnitAlpha : OpRewritePattern<AddOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(AddOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.getAlpha() || op.getAlpha()->convertToDouble() != 1.0)
      return failure();
    rewriter.modifyOpInPlace(op, [&] { op.removeAlphaAttr(); });
    return success();
  }
};
} // namespace

void AddOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                        MLIRContext *context) {
  results.add<DropUnitAlpha>(context);
}

OpFoldResult WhereOp::fold(FoldAdaptor adaptor) {
  if (getLhs() == getRhs())
    return getLhs();
  if (auto cond = dyn_cast_if_present<DenseElementsAttr>(adaptor.getCond())) {
    if (cond.isSplat())
      return cond.getSplatValue<bool>() ? getLhs() : getRhs();
  } else if (auto cond = dyn_cast_if_present<IntegerAttr>(adaptor.getCond())) {
    return cond.getValue().isZero() ? getRhs() : getLhs();
  }
  return {};
}

LogicalResult CastOp::verify() {
  // The element-wise trait has compared ranks and static sizes; a cast that
  // made a dynamic size static (or back) would be a shape assertion.
  auto input = dyn_cast<RankedTensorType>(getInput().getType());
  auto result = dyn_cast<RankedTensorType>(getType());
  if (input && result && input.getShape() != result.getShape())
    return emitOpError() << "changes the shape from " << input << " to "
                         << result << "; it converts element types only";
  return success();
}

/// Whether every value of element type `from` comes back unchanged from a
/// cast to `to` and back (see the cast semantics in FusionOps.td).
static bool castRoundTrips(Type from, Type to) {
  if (from == to)
    return true;
  // i1 becomes 0 or 1, and the test for non-zero restores it.
  if (from.isInteger(1))
    return true;
  auto fromInt = dyn_cast<IntegerType>(from);
  if (auto toInt = dyn_cast<IntegerType>(to))
    return fromInt && toInt.getWidth() >= fromInt.getWidth();
  auto toFloat = dyn_cast<FloatType>(to);
  if (!toFloat)
    return false;
  const llvm::fltSemantics &semantics = toFloat.getFloatSemantics();
  if (fromInt) {
    // Magnitudes up to 2^(width-1) must be exact integers in `to`.
    unsigned bits = fromInt.getWidth() - 1;
    return APFloat::semanticsPrecision(semantics) >= bits &&
           APFloat::semanticsMaxExponent(semantics) >=
               static_cast<APFloat::ExponentType>(bits);
  }
  if (auto fromFloat = dyn_cast<FloatType>(from))
    return APFloat::isRepresentableBy(fromFloat.getFloatSemantics(), semantics);
  return false;
}

OpFoldResult CastOp::fold(FoldAdaptor) {
  if (getInput().getType() == getType())
    return getInput();
  // A lossless widening cast and the cast back to the original type.
  if (auto inner = getInput().getDefiningOp<CastOp>())
    if (inner.getInput().getType() == getType() &&
        castRoundTrips(getElementTypeOrSelf(getType()),
                       getElementTypeOrSelf(inner.getType())))
      return inner.getInput();
  return {};
}

//===----------------------------------------------------------------------===//
// Shape ops
//===----------------------------------------------------------------------===//

LogicalResult BroadcastInDimOp::verify() {
  auto result = getType();
  if (failed(verifyDynamicSizes(*this, result, getSizes())) ||
      failed(verifySameElementType(*this, getInput().getType(), result,
                                   "operand", "result")))
    return failure();
  ArrayRef<int64_t> dims = getDims();
  auto input = dyn_cast<RankedTensorType>(getInput().getType());
  int64_t inputRank = input ? input.getRank() : 0;
  if (static_cast<int64_t>(dims.size()) != inputRank)
    return emitOpError() << "has " << dims.size()
                         << " dims but the operand has rank " << inputRank;
  for (auto [i, d] : llvm::enumerate(dims)) {
    if (failed(verifyDimInRange(*this, d, result.getRank(), "mapped dim")))
      return failure();
    if (i > 0 && d <= dims[i - 1])
      return emitOpError() << "dims must be strictly increasing, got " << d
                           << " after " << dims[i - 1];
    int64_t in = input.getDimSize(i), out = result.getDimSize(d);
    if (!ShapedType::isDynamic(in) && in != 1 && !ShapedType::isDynamic(out) &&
        in != out)
      return emitOpError() << "operand dim " << i << " (size " << in
                           << ") cannot broadcast to result dim " << d
                           << " (size " << out << ")";
  }
  return success();
}

/// Whether a shape op's result provably has the shape of `input`: the same
/// static shape, and each dynamic result dim given by a `fusion.dim` of
/// `input` along that dim. A dynamic dim given by any other size may still
/// broadcast a size-1 input dim at run time.
static bool keepsShape(Value input, RankedTensorType result, ValueRange sizes) {
  auto type = dyn_cast<RankedTensorType>(input.getType());
  if (type != result ||
      static_cast<int64_t>(sizes.size()) != result.getNumDynamicDims())
    return false;
  auto size = sizes.begin();
  for (int64_t d = 0; d < result.getRank(); ++d) {
    if (!result.isDynamicDim(d))
      continue;
    auto dim = (*size++).getDefiningOp<DimOp>();
    if (!dim || dim.getInput() != input ||
        static_cast<int64_t>(dim.getDim()) != d)
      return false;
  }
  return true;
}

OpFoldResult BroadcastInDimOp::fold(FoldAdaptor) {
  for (auto [i, d] : llvm::enumerate(getDims()))
    if (static_cast<int64_t>(i) != d)
      return {};
  if (keepsShape(getInput(), getType(), getSizes()))
    return getInput();
  return {};
}

OpFoldResult ExpandOp::fold(FoldAdaptor) {
  if (keepsShape(getInput(), getType(), getSizes()))
    return getInput();
  return {};
}

LogicalResult ExpandOp::verify() {
  auto input = getInput().getType();
  auto result = getType();
  if (failed(verifyDynamicSizes(*this, result, getSizes())) ||
      failed(verifySameElementType(*this, input, result, "operand", "result")))
    return failure();
  if (input.getRank() != result.getRank())
    return emitOpError() << "operand rank " << input.getRank()
                         << " differs from result rank " << result.getRank();
  for (int64_t d = 0; d < input.getRank(); ++d) {
    int64_t in = input.getDimSize(d), out = result.getDimSize(d);
    if (!ShapedType::isDynamic(in) && in != 1 && !ShapedType::isDynamic(out) &&
        in != out)
      return emitOpError() << "operand dim " << d << " (size " << in
                           << ") can only expand from size 1 (to " << out
                           << ")";
  }
  return success();
}

LogicalResult ReshapeOp::verify() {
  auto input = getInput().getType();
  auto result = getType();
  if (failed(verifyDynamicSizes(*this, result, getSizes())) ||
      failed(verifySameElementType(*this, input, result, "operand", "result")))
    return failure();
  if (input.hasStaticShape() && result.hasStaticShape() &&
      input.getNumElements() != result.getNumElements())
    return emitOpError() << "operand has " << input.getNumElements()
                         << " elements but result has "
                         << result.getNumElements();
  return success();
}

OpFoldResult ReshapeOp::fold(FoldAdaptor) {
  if (keepsShape(getInput(), getType(), getSizes()))
    return getInput();
  return {};
}

LogicalResult PermuteOp::verify() {
  auto input = getInput().getType();
  auto result = getType();
  if (failed(verifySameElementType(*this, input, result, "operand", "result")))
    return failure();
  ArrayRef<int64_t> perm = getPerm();
  if (static_cast<int64_t>(perm.size()) != input.getRank())
    return emitOpError() << "perm has " << perm.size()
                         << " entries but the operand has rank "
                         << input.getRank();
  llvm::SmallBitVector seen(input.getRank());
  SmallVector<int64_t> expected;
  for (int64_t p : perm) {
    if (failed(verifyDimInRange(*this, p, input.getRank(), "perm entry")))
      return failure();
    if (seen.test(p))
      return emitOpError() << "perm entry " << p << " appears twice";
    seen.set(p);
    expected.push_back(input.getDimSize(p));
  }
  return verifyShape(*this, "result", expected, result);
}

OpFoldResult PermuteOp::fold(FoldAdaptor) {
  ArrayRef<int64_t> perm = getPerm();
  for (auto [i, p] : llvm::enumerate(perm))
    if (static_cast<int64_t>(i) != p)
      return {};
  if (getInput().getType() == getType())
    return getInput();
  return {};
}

LogicalResult SqueezeOp::verify() {
  auto input = getInput().getType();
  auto result = getType();
  if (failed(verifySameElementType(*this, input, result, "operand", "result")))
    return failure();
  llvm::SmallBitVector squeezed(input.getRank());
  for (int64_t d : getDims()) {
    if (failed(verifyDimInRange(*this, d, input.getRank(), "squeezed dim")))
      return failure();
    if (squeezed.test(d))
      return emitOpError() << "squeezed dim " << d << " appears twice";
    squeezed.set(d);
    if (!input.isDynamicDim(d) && input.getDimSize(d) != 1)
      return emitOpError() << "squeezed dim " << d << " has size "
                           << input.getDimSize(d) << ", not 1";
  }
  SmallVector<int64_t> expected;
  for (int64_t d = 0; d < input.getRank(); ++d)
    if (!squeezed.test(d))
      expected.push_back(input.getDimSize(d));
  return verifyShape(*this, "result", expected, result);
}

LogicalResult SliceOp::verify() {
  auto input = getInput().getType();
  auto result = getType();
  if (failed(verifySameElementType(*this, input, result, "operand", "result")))
    return failure();
  int64_t rank = input.getRank();
  for (auto [name, range] :
       {std::pair<StringRef, OperandRange>{"starts", getStarts()},
        {"stops", getStops()},
        {"steps", getSteps()}})
    if (static_cast<int64_t>(range.size()) != rank)
      return emitOpError() << "has " << range.size() << " " << name
                           << " but the operand has rank " << rank;
  if (result.getRank() != rank)
    return emitOpError() << "result rank " << result.getRank()
                         << " differs from operand rank " << rank;
  for (auto [d, step] : llvm::enumerate(getSteps())) {
    APInt value;
    if (matchPattern(step, m_ConstantInt(&value)) && value.getSExtValue() < 1)
      return emitOpError() << "step of dim " << d << " is "
                           << value.getSExtValue() << "; steps must be >= 1";
  }
  // With constant bounds and a static operand dim the result size is known.
  for (int64_t d = 0; d < rank; ++d) {
    APInt start, stop, step;
    if (input.isDynamicDim(d) || result.isDynamicDim(d) ||
        !matchPattern(getStarts()[d], m_ConstantInt(&start)) ||
        !matchPattern(getStops()[d], m_ConstantInt(&stop)) ||
        !matchPattern(getSteps()[d], m_ConstantInt(&step)))
      continue;
    int64_t size = input.getDimSize(d);
    int64_t lo = std::clamp<int64_t>(start.getSExtValue(), 0, size);
    int64_t hi = std::clamp<int64_t>(stop.getSExtValue(), 0, size);
    int64_t st = std::max<int64_t>(step.getSExtValue(), 1);
    int64_t expected = hi > lo ? (hi - lo + st - 1) / st : 0;
    if (expected != result.getDimSize(d))
      return emitOpError() << "result dim " << d << " is "
                           << result.getDimSize(d) << " but the slice has "
                           << expected << " elements";
  }
  return success();
}

LogicalResult PadOp::verify() {
  auto input = getInput().getType();
  auto result = getType();
  if (failed(
          verifySameElementType(*this, input, result, "operand", "result")) ||
      failed(verifySameElementType(*this, getValue().getType(), result,
                                   "padding value", "result")))
    return failure();
  int64_t rank = input.getRank();
  if (static_cast<int64_t>(getLow().size()) != rank ||
      static_cast<int64_t>(getHigh().size()) != rank)
    return emitOpError() << "low and high need " << rank
                         << " entries (the operand rank), got "
                         << getLow().size() << " and " << getHigh().size();
  SmallVector<int64_t> expected;
  for (int64_t d = 0; d < rank; ++d) {
    if (getLow()[d] < 0 || getHigh()[d] < 0)
      return emitOpError() << "padding of dim " << d
                           << " is negative; use fusion.slice to crop";
    expected.push_back(input.isDynamicDim(d)
                           ? ShapedType::kDynamic
                           : input.getDimSize(d) + getLow()[d] + getHigh()[d]);
  }
  return verifyShape(*this, "result", expected, result);
}

LogicalResult CatOp::verify() {
  auto result = getType();
  if (getInputs().empty())
    return emitOpError("needs at least one operand");
  int64_t rank = result.getRank();
  if (failed(verifyDimInRange(*this, getDim(), rank)))
    return failure();
  int64_t total = 0;
  bool dynamicTotal = false;
  for (auto [i, value] : llvm::enumerate(getInputs())) {
    auto type = cast<RankedTensorType>(value.getType());
    if (failed(verifySameElementType(*this, type, result,
                                     "operand " + std::to_string(i), "result")))
      return failure();
    if (type.getRank() != rank)
      return emitOpError() << "operand " << i << " has rank " << type.getRank()
                           << " but the result has rank " << rank;
    for (int64_t d = 0; d < rank; ++d) {
      int64_t a = type.getDimSize(d);
      if (d == getDim()) {
        dynamicTotal |= ShapedType::isDynamic(a);
        total += ShapedType::isDynamic(a) ? 0 : a;
        continue;
      }
      int64_t b = result.getDimSize(d);
      if (!ShapedType::isDynamic(a) && !ShapedType::isDynamic(b) && a != b)
        return emitOpError() << "operand " << i << " dim " << d << " is " << a
                             << " but result dim " << d << " is " << b;
    }
  }
  if (!dynamicTotal && !result.isDynamicDim(getDim()) &&
      result.getDimSize(getDim()) != total)
    return emitOpError() << "result dim " << getDim() << " is "
                         << result.getDimSize(getDim())
                         << " but the operands add up to " << total;
  return success();
}

LogicalResult FullOp::verify() {
  if (failed(verifyDynamicSizes(*this, getType(), getSizes())))
    return failure();
  return verifySameElementType(*this, getValue().getType(), getType(),
                               "fill value", "result");
}

LogicalResult IotaOp::verify() {
  if (failed(verifyDynamicSizes(*this, getType(), getSizes())))
    return failure();
  if (getType().getRank() != 1)
    return emitOpError() << "result must have rank 1, got rank "
                         << getType().getRank();
  if (getStart().getType() != getStep().getType())
    return emitOpError() << "start type " << getStart().getType()
                         << " differs from step type " << getStep().getType();
  return verifySameElementType(*this, getStart().getType(), getType(), "start",
                               "result");
}

LogicalResult RandOp::verify() {
  return verifyDynamicSizes(*this, getType(), getSizes());
}
LogicalResult RandnOp::verify() {
  return verifyDynamicSizes(*this, getType(), getSizes());
}

//===----------------------------------------------------------------------===//
// Indexing
//===----------------------------------------------------------------------===//

LogicalResult IndexSelectOp::verify() {
  auto input = getInput().getType();
  auto index = getIndex().getType();
  if (failed(verifySameElementType(*this, input, getType(), "operand",
                                   "result")) ||
      failed(verifyDimInRange(*this, getDim(), input.getRank())))
    return failure();
  if (index.getRank() != 1)
    return emitOpError() << "index must have rank 1, got rank "
                         << index.getRank();
  SmallVector<int64_t> expected(input.getShape());
  expected[getDim()] = index.getDimSize(0);
  return verifyShape(*this, "result", expected, getType());
}

LogicalResult GatherOp::verify() {
  auto input = getInput().getType();
  auto index = getIndex().getType();
  if (failed(verifySameElementType(*this, input, getType(), "operand",
                                   "result")) ||
      failed(verifyDimInRange(*this, getDim(), input.getRank())))
    return failure();
  if (index.getRank() != input.getRank())
    return emitOpError() << "index rank " << index.getRank()
                         << " differs from operand rank " << input.getRank();
  return verifyShape(*this, "result", index.getShape(), getType());
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

template <typename OpTy> static LogicalResult verifyReduction(OpTy op) {
  auto input = op.getInput().getType();
  auto shape = verifyReducedDims(op, input, op.getDims(), op.getKeepdim());
  if (failed(shape) || failed(verifySameElementType(op, input, op.getType(),
                                                    "operand", "result")))
    return failure();
  return verifyShape(op, "result", *shape, op.getType());
}

LogicalResult SumOp::verify() { return verifyReduction(*this); }
LogicalResult ProdOp::verify() { return verifyReduction(*this); }
LogicalResult MaxOp::verify() { return verifyReduction(*this); }
LogicalResult MinOp::verify() { return verifyReduction(*this); }

LogicalResult VarMeanOp::verify() {
  auto input = getInput().getType();
  auto shape = verifyReducedDims(*this, input, getDims(), getKeepdim());
  if (failed(shape) ||
      failed(verifySameElementType(*this, input, getVariance().getType(),
                                   "operand", "result")))
    return failure();
  // The I64Attr getter is unsigned: read the attribute as signed.
  int64_t correction = getCorrectionAttr().getInt();
  if (correction < 0)
    return emitOpError() << "correction must be >= 0, got " << correction;
  return verifyShape(*this, "result", *shape, getVariance().getType());
}

template <typename OpTy> static LogicalResult verifyArgReduction(OpTy op) {
  auto input = op.getInput().getType();
  int64_t dim = op.getDim();
  auto shape = verifyReducedDims(op, input, {dim}, op.getKeepdim());
  if (failed(shape))
    return failure();
  return verifyShape(op, "result", *shape, op.getType());
}

LogicalResult ArgmaxOp::verify() { return verifyArgReduction(*this); }
LogicalResult ArgminOp::verify() { return verifyArgReduction(*this); }

//===----------------------------------------------------------------------===//
// Composites
//===----------------------------------------------------------------------===//

LogicalResult SoftmaxOp::verify() {
  return verifyDimInRange(*this, getDim(), getType().getRank());
}
LogicalResult LogSoftmaxOp::verify() {
  return verifyDimInRange(*this, getDim(), getType().getRank());
}

/// Weight and bias of a normalization have the shape of dims [axis, rank).
static LogicalResult verifyNormParams(Operation *op, RankedTensorType input,
                                      int64_t axis, Value weight, Value bias) {
  if (failed(verifyDimInRange(op, axis, input.getRank(), "axis")))
    return failure();
  ArrayRef<int64_t> normalized = input.getShape().drop_front(axis);
  for (auto [name, value] :
       {std::pair<StringRef, Value>{"weight", weight}, {"bias", bias}}) {
    if (!value)
      continue;
    auto type = cast<RankedTensorType>(value.getType());
    if (failed(verifySameElementType(op, type, input, name, "input")) ||
        failed(verifyShape(op, name, normalized, type)))
      return failure();
  }
  return success();
}

LogicalResult LayerNormOp::verify() {
  double eps = getEps().convertToDouble();
  if (!(eps >= 0)) // NaN too
    return emitOpError() << "eps must be >= 0, got " << eps;
  return verifyNormParams(*this, getInput().getType(), getAxis(), getWeight(),
                          getBias());
}

LogicalResult RmsNormOp::verify() {
  double eps = getEps().convertToDouble();
  if (!(eps >= 0)) // NaN too
    return emitOpError() << "eps must be >= 0, got " << eps;
  return verifyNormParams(*this, getInput().getType(), getAxis(), getWeight(),
                          Value());
}

#define GET_OP_CLASSES
#include "fusion/Dialect/Fusion/IR/FusionOps.cpp.inc"
