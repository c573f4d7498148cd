//===- Composite.cpp - softmax, log_softmax, layer_norm, rms_norm ---------===//
// Composites evaluated directly, in double with one rounding at the end, so
// tests can hold --fusion-decompose's primitives against them. (gelu and silu
// are element-wise and live in Elementwise.cpp.)
//===----------------------------------------------------------------------===//

#include "Internal.h"

#include "llvm/ADT/TypeSwitch.h"

#include <cmath>

using namespace mlir;
using namespace mlir::fusion;
using namespace mlir::fusion::interp;
using namespace mlir::fusion::interp::eval;

namespace {

llvm::Error softmax(Operation *op, mlir::Value input, int64_t dim, bool log,
                    Env &env) {
  const DenseValue &in = env.get(input);
  ReductionPlan plan = planReduction(in.shape, {dim}, /*keepdim=*/true);
  DenseValue out = DenseValue::make(in.dtype, in.shape);
  for (int64_t base : plan.bases) {
    // Max-subtracted, as the decomposition: exp never overflows, and rows of
    // -inf give NaN as in PyTorch.
    double max = -INFINITY;
    bool nan = false;
    for (int64_t o : plan.offsets) {
      double v = in.f[base + o];
      nan |= std::isnan(v);
      max = std::max(max, v);
    }
    if (nan)
      max = NAN;
    double sum = 0;
    for (int64_t o : plan.offsets)
      sum += std::exp(in.f[base + o] - max);
    for (int64_t o : plan.offsets) {
      double shifted = in.f[base + o] - max;
      out.setDouble(base + o,
                    log ? shifted - std::log(sum) : std::exp(shifted) / sum);
    }
  }
  env.set(op->getResult(0), std::move(out));
  return llvm::Error::success();
}

/// layer_norm (center = true) and rms_norm over dims [axis, rank).
llvm::Error normalize(Operation *op, mlir::Value input, mlir::Value weight,
                      mlir::Value bias, int64_t axis, double eps, bool center,
                      Env &env) {
  const DenseValue &in = env.get(input);
  SmallVector<int64_t, 4> dims;
  for (int64_t d = axis; d < int64_t(in.shape.size()); ++d)
    dims.push_back(d);
  ReductionPlan plan = planReduction(in.shape, dims, /*keepdim=*/true);
  const DenseValue *w = weight ? &env.get(weight) : nullptr;
  const DenseValue *b = bias ? &env.get(bias) : nullptr;
  int64_t n = plan.offsets.size();
  // Weight and bias have the normalized dims' shape; dynamic dims are checked
  // here.
  ArrayRef<int64_t> normalized = ArrayRef<int64_t>(in.shape).drop_front(axis);
  for (auto [name, param] :
       {std::pair<const char *, const DenseValue *>{"weight", w}, {"bias", b}})
    if (param && ArrayRef<int64_t>(param->shape) != normalized)
      return opError(
          op, Twine(name) + " has shape " + shapeString(param->shape) +
                  " but the normalized dims are " + shapeString(normalized));
  DenseValue out = DenseValue::make(in.dtype, in.shape);
  for (int64_t base : plan.bases) {
    double mean = 0, second = 0;
    if (center) {
      for (int64_t o : plan.offsets)
        mean += in.f[base + o];
      mean /= double(n);
      for (int64_t o : plan.offsets) {
        double d = in.f[base + o] - mean;
        second += d * d;
      }
    } else {
      for (int64_t o : plan.offsets)
        second += in.f[base + o] * in.f[base + o];
    }
    second /= double(n); // biased variance, or the mean square
    double rstd = 1.0 / std::sqrt(second + eps);
    for (int64_t r = 0; r < n; ++r) {
      int64_t at = base + plan.offsets[r];
      double y = (in.f[at] - mean) * rstd;
      if (w)
        y *= w->f[r];
      if (b)
        y += b->f[r];
      out.setDouble(at, y);
    }
  }
  env.set(op->getResult(0), std::move(out));
  return llvm::Error::success();
}

} // namespace

llvm::Error eval::evalComposite(Operation *op, Env &env, bool &handled) {
  handled = isa<SoftmaxOp, LogSoftmaxOp, LayerNormOp, RmsNormOp>(op);
  if (!handled)
    return llvm::Error::success();
  return llvm::TypeSwitch<Operation *, llvm::Error>(op)
      .Case([&](SoftmaxOp s) {
        return softmax(op, s.getInput(), s.getDim(), false, env);
      })
      .Case([&](LogSoftmaxOp s) {
        return softmax(op, s.getInput(), s.getDim(), true, env);
      })
      .Case([&](LayerNormOp l) {
        return normalize(op, l.getInput(), l.getWeight(), l.getBias(),
                         l.getAxis(), l.getEps().convertToDouble(), true, env);
      })
      .Case([&](RmsNormOp r) {
        return normalize(op, r.getInput(), r.getWeight(), mlir::Value(),
                         r.getAxis(), r.getEps().convertToDouble(), false, env);
      })
      .Default([&](Operation *) { return llvm::Error::success(); });
}
