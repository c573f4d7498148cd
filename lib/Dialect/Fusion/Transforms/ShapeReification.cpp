//===- ShapeReification.cpp - result sizes as host values -----------------===//
// Walks from a tensor to the fusion inputs and size operands that determine
// one of its dims.
//===----------------------------------------------------------------------===//

#include "fusion/Dialect/Fusion/Transforms/ShapeReification.h"

#include "fusion/Dialect/Fusion/IR/FusionOps.h"
#include "fusion/Dialect/Fusion/Transforms/RowKernel.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::fusion;

/// The `k`-th dynamic-size operand of a shape op stands for the `k`-th
/// dynamic dim of its result.
static Value dynamicSizeOperand(RankedTensorType type, ValueRange sizes,
                                int64_t dim) {
  int64_t k = 0;
  for (int64_t d = 0; d < dim; ++d)
    k += type.isDynamicDim(d);
  return k < static_cast<int64_t>(sizes.size()) ? sizes[k] : Value();
}

FailureOr<Value> mlir::fusion::reifyDim(OpBuilder &builder, Location loc,
                                        Value tensor, int64_t dim,
                                        function_ref<Value(Value)> mapValue) {
  auto type = cast<RankedTensorType>(tensor.getType());
  if (!type.isDynamicDim(dim))
    return Value(
        arith::ConstantIndexOp::create(builder, loc, type.getDimSize(dim)));
  auto mapped = [&](Value v) -> FailureOr<Value> {
    if (!mapValue)
      return v;
    Value m = mapValue(v);
    if (!m)
      return failure();
    return m;
  };
  if (auto arg = dyn_cast<BlockArgument>(tensor)) {
    auto input = mapped(arg);
    if (failed(input))
      return failure();
    if (!isa<RankedTensorType>(input->getType()))
      return failure();
    // A kernel's block argument maps to a value that may itself be computed.
    if (!isa<BlockArgument>(*input) && mapValue)
      return reifyDim(builder, loc, *input, dim, nullptr);
    return Value(DimOp::create(builder, loc, *input, dim));
  }
  Operation *op = tensor.getDefiningOp();
  auto fromSizes = [&](ValueRange sizes) -> FailureOr<Value> {
    Value size = dynamicSizeOperand(type, sizes, dim);
    if (!size)
      return failure();
    // A size known at compile time (a constant, or the dim of a tensor
    // whose type has it) is rebuilt as a constant where the caller wants
    // it; a dim of a tensor computed inside a kernel is followed to the
    // kernel's inputs. Neither operand may exist where the size is needed
    // (a kernel body is lowered away).
    APInt constant;
    if (matchPattern(size, m_ConstantInt(&constant)))
      return Value(arith::ConstantIndexOp::create(builder, loc,
                                                  constant.getSExtValue()));
    auto dimOp = size.getDefiningOp<DimOp>();
    if (dimOp && !dimOp.getInput().getType().isDynamicDim(dimOp.getDim()))
      return Value(arith::ConstantIndexOp::create(
          builder, loc, dimOp.getInput().getType().getDimSize(dimOp.getDim())));
    FailureOr<Value> m = mapped(size);
    if (failed(m) && dimOp)
      return reifyDim(builder, loc, dimOp.getInput(), dimOp.getDim(), mapValue);
    return m;
  };
  // An index operand (a bound or a step) at the insertion point.
  auto indexOperand = [&](Value v) -> FailureOr<Value> {
    APInt constant;
    if (matchPattern(v, m_ConstantInt(&constant)))
      return Value(arith::ConstantIndexOp::create(builder, loc,
                                                  constant.getSExtValue()));
    return mapped(v);
  };
  return TypeSwitch<Operation *, FailureOr<Value>>(op)
      .Case<SliceOp>([&](SliceOp s) -> FailureOr<Value> {
        // As the interpreter: bounds clamped to [0, size], then
        // ceil((stop - start) / step), at least 0.
        FailureOr<Value> size =
            reifyDim(builder, loc, s.getInput(), dim, mapValue);
        FailureOr<Value> start = indexOperand(s.getStarts()[dim]);
        FailureOr<Value> stop = indexOperand(s.getStops()[dim]);
        FailureOr<Value> step = indexOperand(s.getSteps()[dim]);
        if (failed(size) || failed(start) || failed(stop) || failed(step))
          return failure();
        Value zero = arith::ConstantIndexOp::create(builder, loc, 0);
        auto clamp = [&](Value v) -> Value {
          return arith::MinSIOp::create(
              builder, loc, arith::MaxSIOp::create(builder, loc, v, zero),
              *size);
        };
        Value diff =
            arith::SubIOp::create(builder, loc, clamp(*stop), clamp(*start));
        return Value(arith::MaxSIOp::create(
            builder, loc, arith::CeilDivSIOp::create(builder, loc, diff, *step),
            zero));
      })
      .Case<PadOp>([&](PadOp p) -> FailureOr<Value> {
        FailureOr<Value> size =
            reifyDim(builder, loc, p.getInput(), dim, mapValue);
        if (failed(size))
          return failure();
        return Value(arith::AddIOp::create(
            builder, loc, *size,
            arith::ConstantIndexOp::create(
                builder, loc, p.getLow()[dim] + p.getHigh()[dim])));
      })
      .Case<CatOp>([&](CatOp c) -> FailureOr<Value> {
        if (dim != static_cast<int64_t>(c.getDim()))
          return reifyDim(builder, loc, c.getInputs()[0], dim, mapValue);
        Value total;
        for (Value input : c.getInputs()) {
          FailureOr<Value> size = reifyDim(builder, loc, input, dim, mapValue);
          if (failed(size))
            return failure();
          total = total
                      ? Value(arith::AddIOp::create(builder, loc, total, *size))
                      : *size;
        }
        return total;
      })
      .Case<BroadcastInDimOp, ExpandOp, ReshapeOp, FullOp, IotaOp, RandOp,
            RandnOp, EmptyOp>(
          [&](auto shapeOp) { return fromSizes(shapeOp.getSizes()); })
      .Case<PermuteOp>([&](PermuteOp p) {
        return reifyDim(builder, loc, p.getInput(), p.getPerm()[dim], mapValue);
      })
      .Case<SqueezeOp>([&](SqueezeOp s) -> FailureOr<Value> {
        int64_t inputRank = s.getInput().getType().getRank();
        int64_t seen = 0;
        for (int64_t d = 0; d < inputRank; ++d) {
          if (llvm::is_contained(s.getDims(), d))
            continue;
          if (seen++ == dim)
            return reifyDim(builder, loc, s.getInput(), d, mapValue);
        }
        return failure();
      })
      .Case<SumOp, ProdOp, MaxOp, MinOp, VarMeanOp>(
          [&](auto r) -> FailureOr<Value> {
            // Result dim `dim` is the `dim`-th input dim that survives.
            int64_t inputRank = r.getInput().getType().getRank();
            int64_t out = 0;
            for (int64_t d = 0; d < inputRank; ++d) {
              if (llvm::is_contained(r.getDims(), d) && !r.getKeepdim())
                continue;
              if (out++ == dim)
                return reifyDim(builder, loc, r.getInput(), d, mapValue);
            }
            return failure();
          })
      .Case<ArgmaxOp, ArgminOp>([&](auto r) -> FailureOr<Value> {
        int64_t inputRank = r.getInput().getType().getRank();
        int64_t out = 0;
        for (int64_t d = 0; d < inputRank; ++d) {
          if (d == static_cast<int64_t>(r.getDim()) && !r.getKeepdim())
            continue;
          if (out++ == dim)
            return reifyDim(builder, loc, r.getInput(), d, mapValue);
        }
        return failure();
      })
      .Case<IndexSelectOp, GatherOp>([&](auto g) -> FailureOr<Value> {
        if (isa<GatherOp>(g.getOperation()) ||
            dim == static_cast<int64_t>(g.getDim()))
          return reifyDim(builder, loc, g.getIndex(),
                          isa<GatherOp>(g.getOperation()) ? dim : 0, mapValue);
        return reifyDim(builder, loc, g.getInput(), dim, mapValue);
      })
      .Case<KernelOp>([&](KernelOp k) -> FailureOr<Value> {
        unsigned index = cast<OpResult>(tensor).getResultNumber();
        Value yielded = k.getBody().front().getTerminator()->getOperand(index);
        return reifyDim(builder, loc, yielded, dim,
                        [&](Value v) { return kernelValueOnHost(k, v); });
      })
      .Default([&](Operation *other) -> FailureOr<Value> {
        // Element-wise ops (and anything shape-preserving) share the shape
        // of their first tensor operand.
        if (other->hasTrait<FusionElementwise>() ||
            other->getNumOperands() > 0) {
          for (Value operand : other->getOperands())
            if (isa<RankedTensorType>(operand.getType()) &&
                other->hasTrait<FusionElementwise>())
              return reifyDim(builder, loc, operand, dim, mapValue);
        }
        return failure();
      });
}
