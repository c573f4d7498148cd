//===- Shape.cpp - shape, factory and indexing fusion ops -----------------===//
// Ops that move or make elements without arithmetic: broadcasts, reshapes,
// permutes, slices, pads, concatenation, fills, iota, random numbers and the
// gathers. Every run-time size the verifier could not check is checked here.
//===----------------------------------------------------------------------===//

#include "Internal.h"

#include "fusion/Interpreter/Philox.h"

#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::fusion;
using namespace mlir::fusion::interp;
using namespace mlir::fusion::interp::eval;

namespace {

/// Calls `fn(index, linear)` for every row-major multi-index of `shape`.
template <typename Fn> void forEachIndex(ArrayRef<int64_t> shape, Fn fn) {
  int64_t n = 1;
  for (int64_t s : shape)
    n *= s;
  SmallVector<int64_t, 4> index(shape.size(), 0);
  for (int64_t linear = 0; linear < n; ++linear) {
    fn(ArrayRef<int64_t>(index), linear);
    for (int64_t d = int64_t(shape.size()) - 1; d >= 0; --d) {
      if (++index[d] < shape[d])
        break;
      index[d] = 0;
    }
  }
}

/// Fills `out` from `in` through per-dim strides of `in` (0 broadcasts).
void gatherStrided(DenseValue &out, const DenseValue &in,
                   ArrayRef<int64_t> strides, int64_t base = 0) {
  forEachIndex(out.shape, [&](ArrayRef<int64_t> index, int64_t linear) {
    int64_t from = base;
    for (auto [i, s] : llvm::zip(index, strides))
      from += i * s;
    out.copyFrom(linear, in, from);
  });
}

class ShapeEvaluator {
public:
  ShapeEvaluator(Operation *op, Env &env) : op(op), env(env) {}

  llvm::Error run();

private:
  const DenseValue &get(mlir::Value v) { return env.get(v); }

  /// Makes the tensor result with the given shape.
  llvm::Error make(ArrayRef<int64_t> shape) {
    auto dtype = dtypeOfResult(op, op->getResult(0).getType());
    if (!dtype)
      return dtype.takeError();
    if (auto err = checkElementCount(op, shape))
      return err;
    out = DenseValue::make(*dtype, shape);
    return llvm::Error::success();
  }
  /// Makes the result with the shape its type and size operands give.
  llvm::Error makeSized(ValueRange sizes) {
    auto shape = resultShape(
        op, cast<RankedTensorType>(op->getResult(0).getType()), sizes, env);
    if (!shape)
      return shape.takeError();
    return make(*shape);
  }
  llvm::Error finish() {
    env.set(op->getResult(0), std::move(out));
    return llvm::Error::success();
  }

  llvm::Error broadcast(const DenseValue &in, ArrayRef<int64_t> dims,
                        ValueRange sizes);
  llvm::Error reshape(ReshapeOp reshape);
  llvm::Error permute(PermuteOp permute);
  llvm::Error squeeze(SqueezeOp squeeze);
  llvm::Error slice(SliceOp slice);
  llvm::Error pad(PadOp pad);
  llvm::Error cat(CatOp cat);
  llvm::Error full(FullOp full);
  llvm::Error iota(IotaOp iota);
  llvm::Error random(mlir::Value seed, mlir::Value offset, ValueRange sizes,
                     bool normal);
  llvm::Error indexSelect(IndexSelectOp select);
  llvm::Error gather(GatherOp gather);

  Operation *op;
  Env &env;
  DenseValue out;
};

} // namespace

llvm::Error ShapeEvaluator::broadcast(const DenseValue &in,
                                      ArrayRef<int64_t> dims,
                                      ValueRange sizes) {
  if (auto err = makeSized(sizes))
    return err;
  SmallVector<int64_t, 4> inStrides = rowMajorStrides(in.shape);
  SmallVector<int64_t, 4> strides(out.shape.size(), 0);
  for (auto [i, d] : llvm::enumerate(dims)) {
    int64_t from = in.shape[i], to = out.shape[d];
    if (from != 1 && from != to)
      return opError(op, "operand dim " + Twine(i) + " (size " + Twine(from) +
                             ") cannot broadcast to result dim " + Twine(d) +
                             " (size " + Twine(to) + ")");
    strides[d] = from == 1 ? 0 : inStrides[i];
  }
  gatherStrided(out, in, strides);
  return finish();
}

llvm::Error ShapeEvaluator::reshape(ReshapeOp reshape) {
  const DenseValue &in = get(reshape.getInput());
  if (auto err = makeSized(reshape.getSizes()))
    return err;
  if (out.numel() != in.numel())
    return opError(op, "operand shape " + shapeString(in.shape) + " has " +
                           Twine(in.numel()) + " elements but result shape " +
                           shapeString(out.shape) + " has " +
                           Twine(out.numel()));
  out.f = in.f;
  out.i = in.i;
  return finish();
}

llvm::Error ShapeEvaluator::permute(PermuteOp permute) {
  const DenseValue &in = get(permute.getInput());
  ArrayRef<int64_t> perm = permute.getPerm();
  SmallVector<int64_t, 4> shape, strides;
  SmallVector<int64_t, 4> inStrides = rowMajorStrides(in.shape);
  for (int64_t p : perm) {
    shape.push_back(in.shape[p]);
    strides.push_back(inStrides[p]);
  }
  if (auto err = make(shape))
    return err;
  gatherStrided(out, in, strides);
  return finish();
}

llvm::Error ShapeEvaluator::squeeze(SqueezeOp squeeze) {
  const DenseValue &in = get(squeeze.getInput());
  ArrayRef<int64_t> dims = squeeze.getDims();
  SmallVector<int64_t, 4> shape;
  for (int64_t d = 0; d < int64_t(in.shape.size()); ++d) {
    if (!llvm::is_contained(dims, d)) {
      shape.push_back(in.shape[d]);
      continue;
    }
    if (in.shape[d] != 1)
      return opError(op, "squeezed dim " + Twine(d) + " has size " +
                             Twine(in.shape[d]) + ", not 1");
  }
  if (auto err = make(shape))
    return err;
  out.f = in.f;
  out.i = in.i;
  return finish();
}

llvm::Error ShapeEvaluator::slice(SliceOp slice) {
  const DenseValue &in = get(slice.getInput());
  int64_t rank = in.shape.size();
  SmallVector<int64_t, 4> shape, strides, inStrides = rowMajorStrides(in.shape);
  int64_t base = 0;
  for (int64_t d = 0; d < rank; ++d) {
    int64_t size = in.shape[d];
    int64_t start = get(slice.getStarts()[d]).getInt(0);
    int64_t stop = get(slice.getStops()[d]).getInt(0);
    int64_t step = get(slice.getSteps()[d]).getInt(0);
    if (step < 1)
      return opError(op, "step of dim " + Twine(d) + " is " + Twine(step) +
                             "; steps must be >= 1");
    // Bounds clamp to [0, size]; negative bounds are not wrapped.
    int64_t lo = std::clamp<int64_t>(start, 0, size);
    int64_t hi = std::clamp<int64_t>(stop, 0, size);
    shape.push_back(hi > lo ? (hi - lo - 1) / step + 1 : 0);
    strides.push_back(inStrides[d] * step);
    base += lo * inStrides[d];
  }
  if (auto err = make(shape))
    return err;
  gatherStrided(out, in, strides, base);
  return finish();
}

llvm::Error ShapeEvaluator::pad(PadOp pad) {
  const DenseValue &in = get(pad.getInput());
  const DenseValue &value = get(pad.getValue());
  ArrayRef<int64_t> low = pad.getLow(), high = pad.getHigh();
  SmallVector<int64_t, 4> shape;
  for (auto [d, size] : llvm::enumerate(in.shape))
    shape.push_back(size + low[d] + high[d]);
  if (auto err = make(shape))
    return err;
  SmallVector<int64_t, 4> outStrides = rowMajorStrides(shape);
  for (int64_t k = 0, n = out.numel(); k < n; ++k)
    out.copyFrom(k, value, 0);
  forEachIndex(in.shape, [&](ArrayRef<int64_t> index, int64_t linear) {
    int64_t to = 0;
    for (auto [d, i] : llvm::enumerate(index))
      to += (i + low[d]) * outStrides[d];
    out.copyFrom(to, in, linear);
  });
  return finish();
}

llvm::Error ShapeEvaluator::cat(CatOp cat) {
  int64_t dim = cat.getDim();
  const DenseValue &first = get(cat.getInputs()[0]);
  SmallVector<int64_t, 4> shape(first.shape);
  shape[dim] = 0;
  for (auto [k, input] : llvm::enumerate(cat.getInputs())) {
    const DenseValue &v = get(input);
    for (int64_t d = 0; d < int64_t(shape.size()); ++d)
      if (d != dim && v.shape[d] != first.shape[d])
        return opError(op, "operand " + Twine(k) + " has shape " +
                               shapeString(v.shape) + " but operand 0 has " +
                               shapeString(first.shape) +
                               "; they may differ only in dim " + Twine(dim));
    shape[dim] += v.shape[dim];
  }
  if (auto err = make(shape))
    return err;
  SmallVector<int64_t, 4> outStrides = rowMajorStrides(shape);
  int64_t at = 0;
  for (mlir::Value input : cat.getInputs()) {
    const DenseValue &v = get(input);
    forEachIndex(v.shape, [&](ArrayRef<int64_t> index, int64_t linear) {
      int64_t to = at * outStrides[dim];
      for (auto [d, i] : llvm::enumerate(index))
        to += i * outStrides[d];
      out.copyFrom(to, v, linear);
    });
    at += v.shape[dim];
  }
  return finish();
}

llvm::Error ShapeEvaluator::full(FullOp full) {
  if (auto err = makeSized(full.getSizes()))
    return err;
  const DenseValue &value = get(full.getValue());
  for (int64_t k = 0, n = out.numel(); k < n; ++k)
    out.copyFrom(k, value, 0);
  return finish();
}

llvm::Error ShapeEvaluator::iota(IotaOp iota) {
  if (auto err = makeSized(iota.getSizes()))
    return err;
  const DenseValue &start = get(iota.getStart()), &step = get(iota.getStep());
  // As torch.arange: start + i * step in double (int64), rounded once.
  for (int64_t k = 0, n = out.numel(); k < n; ++k) {
    if (out.isFloat())
      out.setDouble(k, start.f[0] + double(k) * step.f[0]);
    else
      out.setInt(
          k, int64_t(uint64_t(start.i[0]) + uint64_t(k) * uint64_t(step.i[0])));
  }
  return finish();
}

llvm::Error ShapeEvaluator::random(mlir::Value seedValue,
                                   mlir::Value offsetValue, ValueRange sizes,
                                   bool normal) {
  if (auto err = makeSized(sizes))
    return err;
  uint64_t seed = uint64_t(get(seedValue).i[0]);
  uint64_t offset = uint64_t(get(offsetValue).i[0]);
  for (int64_t k = 0, n = out.numel(); k < n; ++k)
    out.setDouble(k, normal ? randNormal(seed, offset, k)
                            : randUniform(seed, offset, k, out.dtype));
  return finish();
}

llvm::Error ShapeEvaluator::indexSelect(IndexSelectOp select) {
  const DenseValue &in = get(select.getInput());
  const DenseValue &index = get(select.getIndex());
  int64_t dim = select.getDim();
  SmallVector<int64_t, 4> shape(in.shape);
  shape[dim] = index.shape[0];
  for (int64_t k = 0; k < index.shape[0]; ++k)
    if (index.i[k] < 0 || index.i[k] >= in.shape[dim])
      return opError(op, "index " + Twine(index.i[k]) + " at position " +
                             Twine(k) + " is out of range [0, " +
                             Twine(in.shape[dim]) + ") of dim " + Twine(dim));
  if (auto err = make(shape))
    return err;
  SmallVector<int64_t, 4> inStrides = rowMajorStrides(in.shape);
  forEachIndex(shape, [&](ArrayRef<int64_t> at, int64_t linear) {
    int64_t from = 0;
    for (auto [d, i] : llvm::enumerate(at))
      from += (int64_t(d) == dim ? index.i[i] : i) * inStrides[d];
    out.copyFrom(linear, in, from);
  });
  return finish();
}

llvm::Error ShapeEvaluator::gather(GatherOp gather) {
  const DenseValue &in = get(gather.getInput());
  const DenseValue &index = get(gather.getIndex());
  int64_t dim = gather.getDim();
  for (int64_t d = 0; d < int64_t(in.shape.size()); ++d)
    if (d != dim && index.shape[d] > in.shape[d])
      return opError(
          op, "index dim " + Twine(d) + " has size " + Twine(index.shape[d]) +
                  ", larger than the operand's " + Twine(in.shape[d]));
  if (auto err = make(index.shape))
    return err;
  SmallVector<int64_t, 4> inStrides = rowMajorStrides(in.shape);
  std::optional<std::string> error;
  forEachIndex(index.shape, [&](ArrayRef<int64_t> at, int64_t linear) {
    int64_t i = index.i[linear];
    if (i < 0 || i >= in.shape[dim]) {
      if (!error)
        error = "index " + std::to_string(i) + " at " + shapeString(at) +
                " is out of range [0, " + std::to_string(in.shape[dim]) +
                ") of dim " + std::to_string(dim);
      return;
    }
    int64_t from = 0;
    for (auto [d, a] : llvm::enumerate(at))
      from += (int64_t(d) == dim ? i : a) * inStrides[d];
    out.copyFrom(linear, in, from);
  });
  if (error)
    return opError(op, *error);
  return finish();
}

llvm::Error ShapeEvaluator::run() {
  return llvm::TypeSwitch<Operation *, llvm::Error>(op)
      .Case([&](DimOp dim) {
        const DenseValue &in = get(dim.getInput());
        env.set(dim.getResult(), DenseValue::index(in.shape[dim.getDim()]));
        return llvm::Error::success();
      })
      .Case([&](BroadcastInDimOp b) {
        return broadcast(get(b.getInput()), b.getDims(), b.getSizes());
      })
      .Case([&](ExpandOp e) {
        const DenseValue &in = get(e.getInput());
        SmallVector<int64_t, 4> dims;
        for (int64_t d = 0; d < int64_t(in.shape.size()); ++d)
          dims.push_back(d);
        return broadcast(in, dims, e.getSizes());
      })
      .Case([&](ReshapeOp r) { return reshape(r); })
      .Case([&](PermuteOp p) { return permute(p); })
      .Case([&](SqueezeOp s) { return squeeze(s); })
      .Case([&](SliceOp s) { return slice(s); })
      .Case([&](PadOp p) { return pad(p); })
      .Case([&](CatOp c) { return cat(c); })
      .Case([&](FullOp f) { return full(f); })
      .Case([&](IotaOp i) { return iota(i); })
      .Case([&](RandOp r) {
        return random(r.getSeed(), r.getOffset(), r.getSizes(), false);
      })
      .Case([&](RandnOp r) {
        return random(r.getSeed(), r.getOffset(), r.getSizes(), true);
      })
      .Case([&](IndexSelectOp s) { return indexSelect(s); })
      .Case([&](GatherOp g) { return gather(g); })
      .Default([&](Operation *) { return llvm::Error::success(); });
}

llvm::Error eval::evalShape(Operation *op, Env &env, bool &handled) {
  handled = isa<DimOp, BroadcastInDimOp, ExpandOp, ReshapeOp, PermuteOp,
                SqueezeOp, SliceOp, PadOp, CatOp, FullOp, IotaOp, RandOp,
                RandnOp, IndexSelectOp, GatherOp>(op);
  if (!handled)
    return llvm::Error::success();
  return ShapeEvaluator(op, env).run();
}
