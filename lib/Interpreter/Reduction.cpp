//===- Reduction.cpp - reductions, var_mean and arg reductions ------------===//
// Every reduction accumulates in double (int64 for integers, wrapping) and
// rounds once at the end, so the result is the correctly rounded value of a
// (nearly) exact sum, product or extreme.
//===----------------------------------------------------------------------===//

#include "Internal.h"

#include "llvm/ADT/SmallBitVector.h"
#include "llvm/ADT/TypeSwitch.h"

#include <cmath>

using namespace mlir;
using namespace mlir::fusion;
using namespace mlir::fusion::interp;
using namespace mlir::fusion::interp::eval;

ReductionPlan eval::planReduction(ArrayRef<int64_t> inputShape,
                                  ArrayRef<int64_t> dims, bool keepdim) {
  int64_t rank = inputShape.size();
  llvm::SmallBitVector reduced(rank);
  for (int64_t d : dims)
    reduced.set(d);
  SmallVector<int64_t, 4> strides = rowMajorStrides(inputShape);
  ReductionPlan plan;
  SmallVector<int64_t, 4> keptSizes, keptStrides, redSizes, redStrides;
  for (int64_t d = 0; d < rank; ++d) {
    if (reduced.test(d)) {
      redSizes.push_back(inputShape[d]);
      redStrides.push_back(strides[d]);
      if (keepdim)
        plan.shape.push_back(1);
    } else {
      keptSizes.push_back(inputShape[d]);
      keptStrides.push_back(strides[d]);
      plan.shape.push_back(inputShape[d]);
    }
  }
  // Row-major enumeration of offsets over one group of dims.
  auto enumerate = [](ArrayRef<int64_t> sizes, ArrayRef<int64_t> strides) {
    int64_t n = 1;
    for (int64_t s : sizes)
      n *= s;
    std::vector<int64_t> offsets(n);
    SmallVector<int64_t, 4> index(sizes.size(), 0);
    for (int64_t k = 0; k < n; ++k) {
      int64_t offset = 0;
      for (auto [i, s] : llvm::zip(index, strides))
        offset += i * s;
      offsets[k] = offset;
      for (int64_t d = int64_t(sizes.size()) - 1; d >= 0; --d) {
        if (++index[d] < sizes[d])
          break;
        index[d] = 0;
      }
    }
    return offsets;
  };
  plan.bases = enumerate(keptSizes, keptStrides);
  plan.offsets = enumerate(redSizes, redStrides);
  return plan;
}

namespace {

enum class Reduce { Sum, Prod, Max, Min };

double reduceFloat(const DenseValue &in, int64_t base,
                   const std::vector<int64_t> &offsets, Reduce kind) {
  switch (kind) {
  case Reduce::Sum: {
    double acc = 0;
    for (int64_t o : offsets)
      acc += in.f[base + o];
    return acc;
  }
  case Reduce::Prod: {
    double acc = 1;
    for (int64_t o : offsets)
      acc *= in.f[base + o];
    return acc;
  }
  case Reduce::Max:
  case Reduce::Min: {
    bool isMax = kind == Reduce::Max;
    double acc = isMax ? -INFINITY : INFINITY;
    for (int64_t o : offsets) {
      double v = in.f[base + o];
      if (std::isnan(v))
        return v; // NaN propagates, as torch.max
      acc = isMax ? std::max(acc, v) : std::min(acc, v);
    }
    return acc;
  }
  }
  return 0;
}

int64_t reduceInt(const DenseValue &in, int64_t base,
                  const std::vector<int64_t> &offsets, Reduce kind) {
  switch (kind) {
  case Reduce::Sum: {
    uint64_t acc = 0;
    for (int64_t o : offsets)
      acc += uint64_t(in.i[base + o]);
    return int64_t(acc);
  }
  case Reduce::Prod: {
    uint64_t acc = 1;
    for (int64_t o : offsets)
      acc *= uint64_t(in.i[base + o]);
    return int64_t(acc);
  }
  case Reduce::Max: {
    int64_t acc = intMin(in.dtype);
    for (int64_t o : offsets)
      acc = std::max(acc, in.i[base + o]);
    return acc;
  }
  case Reduce::Min: {
    int64_t acc = intMax(in.dtype);
    for (int64_t o : offsets)
      acc = std::min(acc, in.i[base + o]);
    return acc;
  }
  }
  return 0;
}

template <typename OpTy> llvm::Error reduce(OpTy op, Env &env, Reduce kind) {
  const DenseValue &in = env.get(op.getInput());
  ReductionPlan plan = planReduction(in.shape, op.getDims(), op.getKeepdim());
  DenseValue out = DenseValue::make(in.dtype, plan.shape);
  for (int64_t k = 0, n = out.numel(); k < n; ++k) {
    // Storing into i1 tests for non-zero: a sum or max of i1 is "any", a
    // product or min is "all".
    if (in.isFloat())
      out.setDouble(k, reduceFloat(in, plan.bases[k], plan.offsets, kind));
    else
      out.setInt(k, reduceInt(in, plan.bases[k], plan.offsets, kind));
  }
  env.set(op.getResult(), std::move(out));
  return llvm::Error::success();
}

llvm::Error varMean(VarMeanOp op, Env &env) {
  const DenseValue &in = env.get(op.getInput());
  ReductionPlan plan = planReduction(in.shape, op.getDims(), op.getKeepdim());
  DenseValue variance = DenseValue::make(in.dtype, plan.shape);
  DenseValue mean = DenseValue::make(in.dtype, plan.shape);
  double n = double(plan.offsets.size());
  double divisor = n - double(op.getCorrection());
  for (int64_t k = 0, e = mean.numel(); k < e; ++k) {
    int64_t base = plan.bases[k];
    // Two passes in double: the mean, then the squared deviations from it.
    double sum = 0;
    for (int64_t o : plan.offsets)
      sum += in.f[base + o];
    double m = sum / n; // NaN over empty dims, as torch.var_mean
    double squares = 0;
    for (int64_t o : plan.offsets) {
      double d = in.f[base + o] - m;
      squares += d * d;
    }
    mean.setDouble(k, m);
    variance.setDouble(k, divisor > 0 ? squares / divisor : NAN);
  }
  env.set(op.getVariance(), std::move(variance));
  env.set(op.getMean(), std::move(mean));
  return llvm::Error::success();
}

template <typename OpTy> llvm::Error argReduce(OpTy op, Env &env, bool isMax) {
  const DenseValue &in = env.get(op.getInput());
  int64_t dim = op.getDim();
  if (in.shape[dim] == 0)
    return opError(op, "dim " + Twine(dim) +
                           " is empty; there is no extreme element to find");
  ReductionPlan plan = planReduction(in.shape, {dim}, op.getKeepdim());
  DenseValue out = DenseValue::make(DType::I64, plan.shape);
  for (int64_t k = 0, n = out.numel(); k < n; ++k) {
    int64_t base = plan.bases[k], best = 0;
    for (int64_t r = 0, e = plan.offsets.size(); r < e; ++r) {
      int64_t at = base + plan.offsets[r];
      if (in.isFloat()) {
        double v = in.f[at], b = in.f[base + plan.offsets[best]];
        // The first NaN is the extreme; nothing beats it.
        if (std::isnan(b))
          break;
        if (std::isnan(v) || (isMax ? v > b : v < b))
          best = r;
      } else {
        int64_t v = in.i[at], b = in.i[base + plan.offsets[best]];
        if (isMax ? v > b : v < b)
          best = r;
      }
    }
    out.i[k] = best;
  }
  env.set(op.getResult(), std::move(out));
  return llvm::Error::success();
}

} // namespace

llvm::Error eval::evalReduction(Operation *op, Env &env, bool &handled) {
  handled = isa<SumOp, ProdOp, MaxOp, MinOp, VarMeanOp, ArgmaxOp, ArgminOp>(op);
  if (!handled)
    return llvm::Error::success();
  return llvm::TypeSwitch<Operation *, llvm::Error>(op)
      .Case([&](SumOp s) { return reduce(s, env, Reduce::Sum); })
      .Case([&](ProdOp p) { return reduce(p, env, Reduce::Prod); })
      .Case([&](MaxOp m) { return reduce(m, env, Reduce::Max); })
      .Case([&](MinOp m) { return reduce(m, env, Reduce::Min); })
      .Case([&](VarMeanOp v) { return varMean(v, env); })
      .Case([&](ArgmaxOp a) { return argReduce(a, env, true); })
      .Case([&](ArgminOp a) { return argReduce(a, env, false); })
      .Default([&](Operation *) { return llvm::Error::success(); });
}
