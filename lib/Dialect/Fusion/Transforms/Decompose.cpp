//===- Decompose.cpp - composite ops into primitives ----------------------===//
// Rewrites softmax, log_softmax, layer_norm, rms_norm, gelu and silu into
// reductions, broadcasts and element-wise ops, and sum/prod/max/min over
// sets of dims the schedulers do not take into ones they do.
//===----------------------------------------------------------------------===//

#include "fusion/Dialect/Fusion/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::fusion {
#define GEN_PASS_DEF_FUSIONDECOMPOSE
#include "fusion/Dialect/Fusion/Transforms/Passes.h.inc"
} // namespace mlir::fusion

using namespace mlir;
using namespace mlir::fusion;

namespace {

// Note [Compute type of composites]: 16-bit float composites are computed in
// f32 and rounded once at the end, as PyTorch does; f32 and f64 stay as they
// are.
Type computeElementType(Type element) {
  if (element.isF16() || element.isBF16())
    return Float32Type::get(element.getContext());
  return element;
}

/// Builds primitives for one composite op at one location.
class Builder {
public:
  Builder(PatternRewriter &rewriter, Location loc)
      : rewriter(rewriter), loc(loc) {}

  /// One fusion.dim per dynamic dim of `value`.
  SmallVector<Value> dynamicSizes(Value value) {
    auto type = mlir::cast<RankedTensorType>(value.getType());
    SmallVector<Value> sizes;
    for (int64_t d = 0; d < type.getRank(); ++d)
      if (type.isDynamicDim(d))
        sizes.push_back(DimOp::create(rewriter, loc, value, d));
    return sizes;
  }

  Value castTo(Value value, Type element) {
    auto type = mlir::cast<RankedTensorType>(value.getType());
    if (type.getElementType() == element)
      return value;
    return CastOp::create(rewriter, loc, type.clone(element), value);
  }

  /// A tensor like `like` filled with the float constant `value`.
  Value splat(double value, Value like) {
    auto type = mlir::cast<RankedTensorType>(like.getType());
    auto element = mlir::cast<FloatType>(type.getElementType());
    Value scalar = arith::ConstantOp::create(
        rewriter, loc, element, rewriter.getFloatAttr(element, value));
    return BroadcastInDimOp::create(rewriter, loc, type, scalar,
                                    rewriter.getDenseI64ArrayAttr({}),
                                    dynamicSizes(like));
  }

  /// Expands a keepdim reduction result back to the shape of `like`.
  Value expandTo(Value reduced, Value like) {
    auto type = mlir::cast<RankedTensorType>(like.getType());
    auto reducedType = mlir::cast<RankedTensorType>(reduced.getType());
    return ExpandOp::create(rewriter, loc,
                            type.clone(reducedType.getElementType()), reduced,
                            dynamicSizes(like));
  }

  /// Broadcasts a normalization parameter over the leading dims of `like`.
  Value broadcastTrailing(Value param, Value like, int64_t axis) {
    auto type = mlir::cast<RankedTensorType>(like.getType());
    auto paramType = mlir::cast<RankedTensorType>(param.getType());
    SmallVector<int64_t> dims;
    for (int64_t d = axis; d < type.getRank(); ++d)
      dims.push_back(d);
    return BroadcastInDimOp::create(
        rewriter, loc, type.clone(paramType.getElementType()), param,
        rewriter.getDenseI64ArrayAttr(dims), dynamicSizes(like));
  }

  /// `value` with its dims in the order `perm` (result dim i is dim
  /// perm[i]).
  Value permute(Value value, ArrayRef<int64_t> perm) {
    auto type = mlir::cast<RankedTensorType>(value.getType());
    SmallVector<int64_t> shape;
    for (int64_t d : perm)
      shape.push_back(type.getDimSize(d));
    return PermuteOp::create(
        rewriter, loc, RankedTensorType::get(shape, type.getElementType()),
        value, rewriter.getDenseI64ArrayAttr(perm));
  }

  /// The reduction of `value` over `dims` with keepdim.
  template <typename ReduceOp>
  Value reduceKeep(Value value, ArrayRef<int64_t> dims) {
    auto type = mlir::cast<RankedTensorType>(value.getType());
    SmallVector<int64_t> shape(type.getShape());
    for (int64_t d : dims)
      shape[d] = 1;
    return ReduceOp::create(rewriter, loc, type.clone(shape), value,
                            rewriter.getDenseI64ArrayAttr(dims),
                            rewriter.getUnitAttr());
  }

  template <typename OpTy, typename... Args> Value op(Args &&...args) {
    return OpTy::create(rewriter, loc, std::forward<Args>(args)...);
  }

  PatternRewriter &rewriter;
  Location loc;
};

template <typename OpTy, bool Log>
struct DecomposeSoftmax : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    Builder b(rewriter, op.getLoc());
    Type element = op.getType().getElementType();
    Value x = b.castTo(op.getInput(), computeElementType(element));
    int64_t dim = op.getDim();
    Value shifted =
        b.op<SubOp>(x, b.expandTo(b.reduceKeep<MaxOp>(x, {dim}), x));
    Value exp = b.op<ExpOp>(shifted);
    Value sum = b.expandTo(b.reduceKeep<SumOp>(exp, {dim}), x);
    Value result =
        Log ? b.op<SubOp>(shifted, b.op<LogOp>(sum)) : b.op<DivOp>(exp, sum);
    rewriter.replaceOp(op, b.castTo(result, element));
    return success();
  }
};

/// The number of elements `dims` of `input` hold, as an i64.
Value reducedCount(PatternRewriter &rewriter, Location loc, Value input,
                   ArrayRef<int64_t> dims) {
  auto type = mlir::cast<RankedTensorType>(input.getType());
  Value count = arith::ConstantIndexOp::create(rewriter, loc, 1);
  for (int64_t d : dims) {
    Value size = type.isDynamicDim(d)
                     ? Value(DimOp::create(rewriter, loc, input, d))
                     : Value(arith::ConstantIndexOp::create(
                           rewriter, loc, type.getDimSize(d)));
    count = arith::MulIOp::create(rewriter, loc, count, size);
  }
  return arith::IndexCastOp::create(rewriter, loc, rewriter.getI64Type(),
                                    count);
}

/// An i64 scalar cast to `compute` and broadcast to the shape of `like`.
Value broadcastScalar(PatternRewriter &rewriter, Builder &b, Location loc,
                      Type compute, Value scalar, Value like) {
  auto type = mlir::cast<RankedTensorType>(like.getType());
  Value cast = CastOp::create(rewriter, loc, compute, scalar);
  return BroadcastInDimOp::create(rewriter, loc, type, cast,
                                  rewriter.getDenseI64ArrayAttr({}),
                                  b.dynamicSizes(like));
}

/// `(x - mean) * rsqrt(var + eps)` or `x * rsqrt(mean(x^2) + eps)`, then the
/// optional affine parameters.
template <typename OpTy>
LogicalResult decomposeNorm(OpTy op, PatternRewriter &rewriter, bool center,
                            Value weight, Value bias) {
  Builder b(rewriter, op.getLoc());
  Type element = op.getType().getElementType();
  Type compute = computeElementType(element);
  Value x = b.castTo(op.getInput(), compute);
  auto type = mlir::cast<RankedTensorType>(x.getType());
  SmallVector<int64_t> dims;
  for (int64_t d = op.getAxis(); d < type.getRank(); ++d)
    dims.push_back(d);
  // Note [Norms as sums]: layer_norm normalizes by the variance, rms_norm
  // by the mean of squares; both are sums divided by the row length, not a
  // Welford var_mean: layer_norm takes the mean, then the sum of squares
  // centered on it (two passes over a row that stays on chip; a row too
  // long for that is read three times instead of twice). On the H200 (bf16,
  // rows of 4096 / 16384 / 1024) this moved layer_norm from 0.81 / 0.56 /
  // 0.94 of copy to 0.86 / 0.74 / 0.95, and rms_norm from 0.89 / 0.72 / 0.95
  // to 0.90 / 0.93 / 0.95 with staged rows: Welford merges carry three
  // values and a division per step, and the state kept 80-100 registers.
  Location loc = op.getLoc();
  Value count = reducedCount(rewriter, loc, x, dims);
  auto meanOf = [&](Value v) -> Value {
    Value sum = b.reduceKeep<SumOp>(v, dims);
    return b.op<DivOp>(sum,
                       broadcastScalar(rewriter, b, loc, compute, count, sum));
  };
  // y: x centered on its mean (layer_norm) or x; second: the mean of y^2.
  Value y = center ? b.op<SubOp>(x, b.expandTo(meanOf(x), x)) : x;
  Value second = meanOf(b.op<MulOp>(y, y));
  double eps = op.getEps().convertToDouble();
  Value rstd =
      b.op<RsqrtOp>(b.op<AddOp>(second, b.splat(eps, second), FloatAttr()));
  y = b.op<MulOp>(y, b.expandTo(rstd, x));
  auto affine = [&](Value v) {
    return b.broadcastTrailing(b.castTo(v, compute), x, op.getAxis());
  };
  // With both affine parameters, y * weight + bias is one fma: one rounding
  // and one instruction per element instead of two.
  if (weight && bias) {
    Value scale = affine(weight);
    y = b.op<FmaOp>(y, scale, affine(bias));
  } else if (weight) {
    y = b.op<MulOp>(y, affine(weight));
  } else if (bias) {
    y = b.op<AddOp>(y, affine(bias), FloatAttr());
  }
  rewriter.replaceOp(op, b.castTo(y, element));
  return success();
}

struct DecomposeLayerNorm : OpRewritePattern<LayerNormOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(LayerNormOp op,
                                PatternRewriter &rewriter) const override {
    return decomposeNorm(op, rewriter, /*center=*/true, op.getWeight(),
                         op.getBias());
  }
};

struct DecomposeRmsNorm : OpRewritePattern<RmsNormOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(RmsNormOp op,
                                PatternRewriter &rewriter) const override {
    return decomposeNorm(op, rewriter, /*center=*/false, op.getWeight(),
                         Value());
  }
};

struct DecomposeGelu : OpRewritePattern<GeluOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(GeluOp op,
                                PatternRewriter &rewriter) const override {
    if (!isa<RankedTensorType>(op.getType()))
      return rewriter.notifyMatchFailure(op, "scalar gelu stays as it is");
    Builder b(rewriter, op.getLoc());
    Type element = mlir::cast<RankedTensorType>(op.getType()).getElementType();
    Value x = b.castTo(op.getInput(), computeElementType(element));
    Value half = b.op<MulOp>(x, b.splat(0.5, x));
    Value inner;
    if (op.getTanh()) {
      // sqrt(2/pi) * (x + 0.044715 x^3)
      Value cube = b.op<MulOp>(b.op<MulOp>(x, x), x);
      Value poly =
          b.op<AddOp>(x, b.op<MulOp>(cube, b.splat(0.044715, x)), FloatAttr());
      inner = b.op<TanhOp>(b.op<MulOp>(poly, b.splat(0.7978845608028654, x)));
    } else {
      inner = b.op<ErfOp>(b.op<MulOp>(x, b.splat(0.7071067811865476, x)));
    }
    Value y =
        b.op<MulOp>(half, b.op<AddOp>(inner, b.splat(1.0, x), FloatAttr()));
    rewriter.replaceOp(op, b.castTo(y, element));
    return success();
  }
};

struct DecomposeSilu : OpRewritePattern<SiluOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(SiluOp op,
                                PatternRewriter &rewriter) const override {
    if (!isa<RankedTensorType>(op.getType()))
      return rewriter.notifyMatchFailure(op, "scalar silu stays as it is");
    Builder b(rewriter, op.getLoc());
    Type element = mlir::cast<RankedTensorType>(op.getType()).getElementType();
    Value x = b.castTo(op.getInput(), computeElementType(element));
    Value y = b.op<MulOp>(x, b.op<SigmoidOp>(x));
    rewriter.replaceOp(op, b.castTo(y, element));
    return success();
  }
};

// Note [Reductions over any dims]: the schedulers reduce the innermost dim
// (inner) or leading dims (outer). Sum, prod, max and min over other sets
// of dims are rewritten into those shapes: a set with the innermost dim and
// others reduces the innermost dim first, then the rest (two reductions,
// segmented into two kernels: a row reduction, then an outer or 1-D one);
// a set without the innermost dim that is not leading reduces a permuted
// view whose reduced dims lead (the kept dims stay in order, so the result
// is the same tensor; keepdim puts the size-1 dims back with a
// broadcast_in_dim). Floating-point sums then add in another order, as any
// reduction schedule does.
template <typename OpTy>
struct SplitInnermostReduction : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    auto type = mlir::cast<RankedTensorType>(op.getInput().getType());
    int64_t rank = type.getRank();
    ArrayRef<int64_t> dims = op.getDims();
    if (dims.size() < 2 || !llvm::is_contained(dims, rank - 1))
      return rewriter.notifyMatchFailure(op, "not innermost plus others");
    bool keep = op.getKeepdim();
    SmallVector<int64_t> innerShape(type.getShape());
    if (keep)
      innerShape.back() = 1;
    else
      innerShape.pop_back();
    auto innerType = RankedTensorType::get(innerShape, type.getElementType());
    Value inner = OpTy::create(rewriter, op.getLoc(), innerType, op.getInput(),
                               rewriter.getDenseI64ArrayAttr({rank - 1}),
                               op.getKeepdimAttr());
    SmallVector<int64_t> rest;
    for (int64_t d : dims)
      if (d != rank - 1)
        rest.push_back(d);
    llvm::sort(rest);
    rewriter.replaceOpWithNewOp<OpTy>(op, op.getType(), inner,
                                      rewriter.getDenseI64ArrayAttr(rest),
                                      op.getKeepdimAttr());
    return success();
  }
};

/// Replaces a reduction `op` over permuted dims by `reduced`, its values
/// with the kept dims in order (`keptDims`, dims of the input); with
/// keepdim, a broadcast_in_dim puts the reduced dims back as size-1 dims
/// (the kept sizes from the input's dims).
static void replaceWithKeptDims(PatternRewriter &rewriter, Operation *op,
                                Value reduced, ArrayRef<int64_t> keptDims,
                                bool keepdim) {
  if (!keepdim) {
    rewriter.replaceOp(op, reduced);
    return;
  }
  auto keptType = mlir::cast<RankedTensorType>(op->getResult(0).getType());
  SmallVector<Value> dynamicSizes;
  for (int64_t d = 0; d < keptType.getRank(); ++d)
    if (keptType.isDynamicDim(d))
      dynamicSizes.push_back(
          DimOp::create(rewriter, op->getLoc(), op->getOperand(0), d));
  rewriter.replaceOpWithNewOp<BroadcastInDimOp>(
      op, keptType, reduced, rewriter.getDenseI64ArrayAttr(keptDims),
      dynamicSizes);
}

template <typename OpTy> struct LeadReducedDims : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    auto type = mlir::cast<RankedTensorType>(op.getInput().getType());
    int64_t rank = type.getRank();
    SmallVector<int64_t> dims(op.getDims());
    llvm::sort(dims);
    if (dims.empty() || llvm::is_contained(dims, rank - 1))
      return rewriter.notifyMatchFailure(op, "not a middle reduction");
    bool leading = true;
    for (auto [i, d] : llvm::enumerate(dims))
      leading &= d == static_cast<int64_t>(i);
    if (leading)
      return rewriter.notifyMatchFailure(op, "leading dims already");
    SmallVector<int64_t> perm(dims);
    for (int64_t d = 0; d < rank; ++d)
      if (!llvm::is_contained(dims, d))
        perm.push_back(d);
    Value permuted =
        Builder(rewriter, op.getLoc()).permute(op.getInput(), perm);
    SmallVector<int64_t> leadingDims;
    for (int64_t i = 0; i < static_cast<int64_t>(dims.size()); ++i)
      leadingDims.push_back(i);
    SmallVector<int64_t> keptShape, keptDims;
    for (int64_t d = 0; d < rank; ++d) {
      if (llvm::is_contained(dims, d))
        continue;
      keptShape.push_back(type.getDimSize(d));
      keptDims.push_back(d);
    }
    Value reduced = OpTy::create(
        rewriter, op.getLoc(),
        RankedTensorType::get(keptShape, type.getElementType()), permuted,
        rewriter.getDenseI64ArrayAttr(leadingDims), UnitAttr());
    replaceWithKeptDims(rewriter, op, reduced, keptDims, op.getKeepdim());
    return success();
  }
};

// Note [Arg reductions]: the inner scheduler finds argmax/argmin along the
// innermost dim; along another dim, the op reads a permuted view with that
// dim last (a strided read). With keepdim the size-1 dim is put back by a
// broadcast_in_dim of that result, as for the other reductions over middle
// dims (LeadReducedDims).
template <typename OpTy> struct ArgDimLast : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    auto type = mlir::cast<RankedTensorType>(op.getInput().getType());
    int64_t rank = type.getRank();
    int64_t dim = op.getDim();
    if (rank == 0 || dim == rank - 1)
      return rewriter.notifyMatchFailure(op, "the innermost dim already");
    SmallVector<int64_t> perm, keptShape;
    for (int64_t d = 0; d < rank; ++d)
      if (d != dim) {
        perm.push_back(d);
        keptShape.push_back(type.getDimSize(d));
      }
    perm.push_back(dim);
    Location loc = op.getLoc();
    Value permuted = Builder(rewriter, loc).permute(op.getInput(), perm);
    auto resultType = mlir::cast<RankedTensorType>(op.getType());
    // The kept dims in order (the result's type without keepdim).
    auto rowsType =
        RankedTensorType::get(keptShape, resultType.getElementType());
    Value rows = OpTy::create(rewriter, loc, rowsType, permuted,
                              rewriter.getI64IntegerAttr(rank - 1), UnitAttr());
    replaceWithKeptDims(rewriter, op, rows, ArrayRef<int64_t>(perm).drop_back(),
                        op.getKeepdim());
    return success();
  }
};

// Note [var_mean over other dims]: the inner scheduler keeps a Welford
// state per row; over any other set of dims, var_mean becomes the two-pass
// algorithm: mean = sum(x) / N, var = sum((x - mean)^2) / max(N -
// correction, 0), in f32 for 16-bit inputs. Segmentation makes it two
// reductions (kernels) reading x twice; N is computed in the kernels from
// the sizes (Note [Scalars computed from sizes] in Segment.cpp). An empty
// reduced set gives 0 / 0 = NaN, as Welford's empty state does.
struct DecomposeVarMeanOverOtherDims : OpRewritePattern<VarMeanOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(VarMeanOp op,
                                PatternRewriter &rewriter) const override {
    auto inputType = mlir::cast<RankedTensorType>(op.getInput().getType());
    int64_t rank = inputType.getRank();
    SmallVector<int64_t> dims(op.getDims());
    llvm::sort(dims);
    if (rank == 0 || (dims.size() == 1 && dims[0] == rank - 1))
      return rewriter.notifyMatchFailure(op, "the inner scheduler's Welford");
    Location loc = op.getLoc();
    Builder b(rewriter, loc);
    auto resultType = mlir::cast<RankedTensorType>(op.getMean().getType());
    Type compute = computeElementType(resultType.getElementType());
    Value x = b.castTo(op.getInput(), compute);
    // N, the number of reduced elements, as i64.
    Type i64 = rewriter.getI64Type();
    Value count64 = reducedCount(rewriter, loc, op.getInput(), dims);
    Value dof64 = arith::MaxSIOp::create(
        rewriter, loc,
        arith::SubIOp::create(rewriter, loc, count64,
                              arith::ConstantIntOp::create(rewriter, loc, i64,
                                                           op.getCorrection())),
        arith::ConstantIntOp::create(rewriter, loc, i64, 0));
    auto scalarLike = [&](Value scalar, Value like) -> Value {
      return broadcastScalar(rewriter, b, loc, compute, scalar, like);
    };
    auto reduce = [&](Value value, bool keep) -> Value {
      auto type = mlir::cast<RankedTensorType>(value.getType());
      if (keep)
        return b.reduceKeep<SumOp>(value, dims);
      SmallVector<int64_t> shape;
      for (int64_t d = 0; d < rank; ++d)
        if (!llvm::is_contained(dims, d))
          shape.push_back(type.getDimSize(d));
      return SumOp::create(rewriter, loc, type.clone(shape), value,
                           rewriter.getDenseI64ArrayAttr(dims), UnitAttr());
    };
    Value sumKeep = reduce(x, true);
    Value meanKeep = b.op<DivOp>(sumKeep, scalarLike(count64, sumKeep));
    Value centered = b.op<SubOp>(x, b.expandTo(meanKeep, x));
    Value squares = reduce(b.op<MulOp>(centered, centered), op.getKeepdim());
    Value var = b.op<DivOp>(squares, scalarLike(dof64, squares));
    Value mean = meanKeep;
    if (!op.getKeepdim()) {
      Value sum = reduce(x, false);
      mean = b.op<DivOp>(sum, scalarLike(count64, sum));
    }
    Type element = resultType.getElementType();
    rewriter.replaceOp(op, {b.castTo(var, element), b.castTo(mean, element)});
    return success();
  }
};

struct FusionDecomposePass
    : mlir::fusion::impl::FusionDecomposeBase<FusionDecomposePass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<
        DecomposeSoftmax<SoftmaxOp, false>,
        DecomposeSoftmax<LogSoftmaxOp, true>, DecomposeLayerNorm,
        DecomposeRmsNorm, DecomposeGelu, DecomposeSilu,
        SplitInnermostReduction<SumOp>, SplitInnermostReduction<ProdOp>,
        SplitInnermostReduction<MaxOp>, SplitInnermostReduction<MinOp>,
        LeadReducedDims<SumOp>, LeadReducedDims<ProdOp>, LeadReducedDims<MaxOp>,
        LeadReducedDims<MinOp>, DecomposeVarMeanOverOtherDims,
        ArgDimLast<ArgmaxOp>, ArgDimLast<ArgminOp>>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
