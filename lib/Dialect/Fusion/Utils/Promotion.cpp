//===- Promotion.cpp - PyTorch-like type promotion for frontends ----------===//
//
// See Promotion.h for the rules. The element-type part follows PyTorch's
// `at::native::result_type`: one promoted type per role (dimensioned tensors,
// 0-d tensors, wrapped numbers), then the roles combined by category.
//
//===----------------------------------------------------------------------===//

#include "fusion/Dialect/Fusion/Utils/Promotion.h"

#include "fusion/Dialect/Fusion/IR/FusionOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/STLExtras.h"

using namespace mlir;
using namespace mlir::fusion;

//===----------------------------------------------------------------------===//
// Element types
//===----------------------------------------------------------------------===//

namespace {
/// PyTorch's type categories, in promotion order.
enum class Category { Bool, Integer, Floating };
} // namespace

static bool isFp8(Type type) {
  return isa<Float8E4M3FNType, Float8E5M2Type>(type);
}

/// Whether `type` is a dialect element type (or index, for scalars only).
static bool isSupported(Type type, PromotionRole role) {
  if (auto integer = dyn_cast<IntegerType>(type)) {
    unsigned width = integer.getWidth();
    return integer.isSignless() && (width == 1 || width == 8 || width == 16 ||
                                    width == 32 || width == 64);
  }
  if (isa<IndexType>(type))
    return role == PromotionRole::WrappedNumber;
  return type.isF16() || type.isBF16() || type.isF32() || type.isF64() ||
         isFp8(type);
}

static Category getCategory(Type type) {
  if (type.isInteger(1))
    return Category::Bool;
  if (isa<IntegerType, IndexType>(type))
    return Category::Integer;
  return Category::Floating;
}

/// PyTorch's `promoteTypes` for two supported, non-fp8 types of one role; a
/// null type stands for "no operand yet".
static Type promotePair(Type a, Type b) {
  if (!a)
    return b;
  if (!b || a == b)
    return a;
  Category ca = getCategory(a), cb = getCategory(b);
  if (ca != cb)
    return ca > cb ? a : b;
  // Two different types of one category: integers or floats (one i1 only).
  unsigned wa = a.getIntOrFloatBitWidth(), wb = b.getIntOrFloatBitWidth();
  if (wa == wb) // f16 and bf16: neither holds the other.
    return Float32Type::get(a.getContext());
  return wa > wb ? a : b;
}

/// The type a wrapped number counts as: only its category matters (a Python
/// float is the default float type, a Python int is int64).
static Type getWrappedType(Type type) {
  MLIRContext *ctx = type.getContext();
  switch (getCategory(type)) {
  case Category::Bool:
    return type;
  case Category::Integer:
    return IntegerType::get(ctx, 64);
  case Category::Floating:
    return Float32Type::get(ctx);
  }
  llvm_unreachable("unknown category");
}

/// PyTorch's `combine_categories`: `lower` (the result of the roles of lower
/// priority) changes `higher` only if its category is higher.
static Type combineCategories(Type higher, Type lower) {
  if (!higher)
    return lower;
  if (!lower)
    return higher;
  Category ch = getCategory(higher), cl = getCategory(lower);
  if (ch == Category::Floating)
    return higher;
  if (ch == Category::Bool || cl == Category::Floating)
    return promotePair(higher, lower);
  return higher;
}

Type mlir::fusion::promoteElementTypes(ArrayRef<PromotionOperand> operands) {
  if (operands.empty())
    return {};
  for (const PromotionOperand &operand : operands)
    if (!operand.type || !isSupported(operand.type, operand.role))
      return {};
  // fp8 types are storage types: no implicit conversion to or from them.
  if (llvm::any_of(operands,
                   [](const PromotionOperand &o) { return isFp8(o.type); })) {
    Type first = operands.front().type;
    bool same = llvm::all_of(
        operands, [&](const PromotionOperand &o) { return o.type == first; });
    return same ? first : Type();
  }
  Type dimResult, zeroResult, wrappedResult;
  for (const PromotionOperand &operand : operands) {
    switch (operand.role) {
    case PromotionRole::Tensor:
      dimResult = promotePair(dimResult, operand.type);
      break;
    case PromotionRole::ZeroDimTensor:
      zeroResult = promotePair(zeroResult, operand.type);
      break;
    case PromotionRole::WrappedNumber:
      wrappedResult = promotePair(wrappedResult, getWrappedType(operand.type));
      break;
    }
  }
  return combineCategories(dimResult,
                           combineCategories(zeroResult, wrappedResult));
}

Type mlir::fusion::promoteElementTypes(Type a, Type b, bool aIsScalar,
                                       bool bIsScalar) {
  auto role = [](bool isScalar) {
    return isScalar ? PromotionRole::WrappedNumber : PromotionRole::Tensor;
  };
  PromotionOperand operands[] = {{a, role(aIsScalar)}, {b, role(bIsScalar)}};
  return promoteElementTypes(operands);
}

//===----------------------------------------------------------------------===//
// Operands
//===----------------------------------------------------------------------===//

/// Converts scalar `value` to `to`, which promotion made from its type, so
/// `to` has the same or a higher category (see the cast semantics of
/// `fusion.cast`: i1 becomes 0 or 1).
static Value castScalar(OpBuilder &b, Location loc, Value value, Type to) {
  Type from = value.getType();
  if (from == to)
    return value;
  if (isa<IndexType>(from)) {
    if (isa<IntegerType>(to))
      return arith::IndexCastOp::create(b, loc, to, value);
    value = arith::IndexCastOp::create(b, loc, b.getI64Type(), value);
    from = value.getType();
  }
  if (auto fromInt = dyn_cast<IntegerType>(from)) {
    bool isBool = fromInt.getWidth() == 1;
    if (auto toInt = dyn_cast<IntegerType>(to)) {
      assert(toInt.getWidth() > 1 && "promotion never demotes to i1");
      if (isBool)
        return arith::ExtUIOp::create(b, loc, to, value);
      if (toInt.getWidth() > fromInt.getWidth())
        return arith::ExtSIOp::create(b, loc, to, value);
      return arith::TruncIOp::create(b, loc, to, value);
    }
    if (isBool)
      return arith::UIToFPOp::create(b, loc, to, value);
    return arith::SIToFPOp::create(b, loc, to, value);
  }
  assert(isa<FloatType>(from) && isa<FloatType>(to) &&
         "promotion never turns a float into an integer");
  unsigned fromWidth = from.getIntOrFloatBitWidth();
  unsigned toWidth = to.getIntOrFloatBitWidth();
  if (fromWidth == toWidth) {
    // f16 <-> bf16: through f32, which holds both exactly.
    value = arith::ExtFOp::create(b, loc, b.getF32Type(), value,
                                  arith::FastMathFlagsAttr());
    fromWidth = 32;
  }
  if (toWidth > fromWidth)
    return arith::ExtFOp::create(b, loc, to, value, arith::FastMathFlagsAttr());
  return arith::TruncFOp::create(b, loc, to, value);
}

FailureOr<SmallVector<Value>>
mlir::fusion::promoteOperands(OpBuilder &b, Location loc, ValueRange operands) {
  // Roles and element types; nothing is built until everything checks out.
  SmallVector<PromotionOperand> promotion;
  int64_t rank = 0;
  bool anyTensor = false;
  for (auto [i, operand] : llvm::enumerate(operands)) {
    Type type = operand.getType();
    if (auto tensor = dyn_cast<RankedTensorType>(type)) {
      anyTensor = true;
      rank = std::max(rank, tensor.getRank());
      promotion.push_back({tensor.getElementType(),
                           tensor.getRank() == 0 ? PromotionRole::ZeroDimTensor
                                                 : PromotionRole::Tensor});
      continue;
    }
    if (!type.isIntOrIndexOrFloat())
      return emitError(loc) << "operand " << i << " has type " << type
                            << "; expected a ranked tensor or a scalar";
    promotion.push_back({type, PromotionRole::WrappedNumber});
  }
  if (operands.empty())
    return SmallVector<Value>();

  Type element = promoteElementTypes(promotion);
  if (!element) {
    InFlightDiagnostic diag = emitError(loc)
                              << "cannot promote operand types (";
    llvm::interleaveComma(operands.getTypes(), diag);
    diag << ") to a common element type";
    if (llvm::any_of(promotion,
                     [](const PromotionOperand &o) { return isFp8(o.type); }))
      diag << "; fp8 types are storage types, cast them explicitly";
    return diag;
  }

  if (!anyTensor) {
    SmallVector<Value> results;
    for (Value operand : operands)
      results.push_back(castScalar(b, loc, operand, element));
    return results;
  }

  // The broadcast shape, aligning trailing dims. For each result dim: the
  // static size other than 1 (and who has it), or the first dynamic dim.
  SmallVector<int64_t> shape(rank, 1);
  SmallVector<std::pair<unsigned, int64_t>> staticOwner(rank, {0, -1});
  SmallVector<std::pair<unsigned, int64_t>> dynamicOwner(rank, {0, -1});
  for (auto [i, operand] : llvm::enumerate(operands)) {
    auto tensor = dyn_cast<RankedTensorType>(operand.getType());
    if (!tensor)
      continue;
    int64_t offset = rank - tensor.getRank();
    for (int64_t d = 0; d < tensor.getRank(); ++d) {
      int64_t r = offset + d, size = tensor.getDimSize(d);
      if (ShapedType::isDynamic(size)) {
        if (dynamicOwner[r].second < 0)
          dynamicOwner[r] = {i, d};
        continue;
      }
      if (size == 1)
        continue;
      if (staticOwner[r].second < 0) {
        staticOwner[r] = {i, d};
        shape[r] = size;
        continue;
      }
      if (size != shape[r]) {
        auto [j, dj] = staticOwner[r];
        return emitError(loc)
               << "operands do not broadcast: operand " << j << " dim " << dj
               << " has size " << shape[r] << " but operand " << i << " dim "
               << d << " has size " << size;
      }
    }
  }
  for (int64_t r = 0; r < rank; ++r)
    if (staticOwner[r].second < 0 && dynamicOwner[r].second >= 0)
      shape[r] = ShapedType::kDynamic;
  auto resultType = RankedTensorType::get(shape, element);

  // The sizes of the dynamic result dims, made on first use.
  SmallVector<Value> sizes;
  auto getSizes = [&]() -> ValueRange {
    if (sizes.empty())
      for (int64_t r = 0; r < rank; ++r)
        if (resultType.isDynamicDim(r)) {
          auto [i, d] = dynamicOwner[r];
          sizes.push_back(
              DimOp::create(b, loc, operands[i], static_cast<uint64_t>(d)));
        }
    return sizes;
  };

  SmallVector<Value> results;
  for (Value operand : operands) {
    Value value = operand;
    SmallVector<int64_t> dims;
    if (auto tensor = dyn_cast<RankedTensorType>(value.getType())) {
      if (tensor.getElementType() != element)
        value = CastOp::create(b, loc, tensor.clone(element), value);
      dims = llvm::to_vector(llvm::seq<int64_t>(rank - tensor.getRank(), rank));
    } else {
      value = castScalar(b, loc, value, element);
    }
    if (value.getType() != resultType)
      value = BroadcastInDimOp::create(
          b, loc, resultType, value, b.getDenseI64ArrayAttr(dims), getSizes());
    results.push_back(value);
  }
  return results;
}
