//===- Check.cpp - comparing kernel outputs with the reference ------------===//

#include "Check.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>

using namespace fusion_run;
using interp::DType;

namespace {

std::string indexText(const std::string &name, llvm::ArrayRef<int64_t> index) {
  std::string text = name + "[";
  for (size_t d = 0; d < index.size(); ++d)
    text += (d ? ", " : "") + std::to_string(index[d]);
  return text + "]";
}

/// Row-major multi-index of `linear` in `sizes`.
std::vector<int64_t> unflatten(int64_t linear, llvm::ArrayRef<int64_t> sizes) {
  std::vector<int64_t> index(sizes.size(), 0);
  for (int64_t d = static_cast<int64_t>(sizes.size()) - 1; d >= 0; --d) {
    index[d] = linear % sizes[d];
    linear /= sizes[d];
  }
  return index;
}

} // namespace

std::string fusion_run::formatNumber(double value) {
  if (std::isnan(value))
    return "nan";
  if (std::isinf(value))
    return value > 0 ? "inf" : "-inf";
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), "%.9g", value);
  return buffer;
}

// Overrides from --rtol/--atol (negative: keep the dtype's default).
static double rtolOverride = -1, atolOverride = -1;

void fusion_run::setToleranceOverride(double rtol, double atol) {
  rtolOverride = rtol;
  atolOverride = atol;
}

Tolerance fusion_run::toleranceFor(DType dtype) {
  Tolerance tol = defaultToleranceFor(dtype);
  if (!tol.exact) {
    if (rtolOverride >= 0)
      tol.rtol = rtolOverride;
    if (atolOverride >= 0) {
      tol.atol = atolOverride;
      tol.scaleAtol = false;
    }
  }
  return tol;
}

Tolerance fusion_run::defaultToleranceFor(DType dtype) {
  switch (dtype) {
  case DType::F64:
    return {1e-12, 1e-14, false};
  case DType::F32:
    return {1e-5, 1e-6, false};
  case DType::F16:
    return {1e-3, 1e-3, false};
  case DType::BF16:
    return {8e-3, 8e-3, false};
  case DType::F8E4M3FN:
    return {0.125, 0.125 * 0x1p-6, false};
  case DType::F8E5M2:
    return {0.25, 0.25 * 0x1p-14, false};
  default:
    return {0, 0, true};
  }
}

int64_t Box::numElements() const {
  int64_t n = 1;
  for (int64_t size : sizes)
    n *= size;
  return n;
}

double Comparison::relL2() const {
  if (sumSqRef > 0)
    return std::sqrt(sumSqErr / sumSqRef);
  return std::sqrt(sumSqErr);
}

Sample fusion_run::chooseSample(llvm::ArrayRef<int64_t> shape, uint64_t seed,
                                int64_t target, int numBoxes) {
  Sample sample;
  int64_t numel = 1;
  for (int64_t size : shape)
    numel *= size;
  const int64_t rank = static_cast<int64_t>(shape.size());
  if (numel <= target || rank == 0 || numBoxes < 1)
    return sample;
  const int64_t perBox = std::max<int64_t>(1, target / numBoxes);
  // The outermost dim whose trailing rows fit in one box.
  int64_t dim = rank - 1, rowElements = 1;
  for (int64_t d = 0; d < rank; ++d) {
    int64_t suffix = 1;
    for (int64_t e = d + 1; e < rank; ++e)
      suffix *= shape[e];
    if (suffix <= perBox) {
      dim = d;
      rowElements = suffix;
      break;
    }
  }
  sample.dim = dim;
  const int64_t count =
      std::clamp<int64_t>(perBox / rowElements, 1, shape[dim]);
  uint64_t state = mix64(seed ^ 0x6A09E667F3BCC909ull);
  auto draw = [&](int64_t bound) {
    state = mix64(state);
    return static_cast<int64_t>(state % static_cast<uint64_t>(bound));
  };
  for (int b = 0; b < numBoxes; ++b) {
    Box box;
    bool first = b == 0, last = b == numBoxes - 1 && b > 0;
    for (int64_t d = 0; d < rank; ++d) {
      if (d < dim) {
        box.origin.push_back(first ? 0 : last ? shape[d] - 1 : draw(shape[d]));
        box.sizes.push_back(1);
      } else if (d == dim) {
        int64_t span = shape[d] - count + 1;
        box.origin.push_back(first ? 0 : last ? span - 1 : draw(span));
        box.sizes.push_back(count);
      } else {
        box.origin.push_back(0);
        box.sizes.push_back(shape[d]);
      }
    }
    sample.boxes.push_back(std::move(box));
  }
  return sample;
}

std::vector<interp::HostValue>
fusion_run::sliceInputs(const std::vector<InputDesc> &inputs,
                        const std::vector<interp::HostTensor> &tensors,
                        llvm::ArrayRef<int64_t> shape, int64_t dim,
                        const Box &box) {
  std::vector<interp::HostValue> values;
  const int64_t rank = static_cast<int64_t>(shape.size());
  for (size_t k = 0; k < inputs.size(); ++k) {
    const InputDesc &input = inputs[k];
    const interp::HostTensor &tensor = tensors[k];
    if (!input.isTensor || static_cast<int64_t>(input.sizes.size()) < rank) {
      values.push_back(hostValue(input, tensor));
      continue;
    }
    std::vector<int64_t> sizes = input.sizes;
    int64_t offset = tensor.offset();
    for (int64_t d = 0; d <= dim && d < rank; ++d) {
      if (sizes[d] != shape[d] || shape[d] == 1)
        continue;
      sizes[d] = box.sizes[d];
      offset += box.origin[d] * input.strides[d];
    }
    auto view = tensor.view(sizes, input.strides, offset);
    if (!view) {
      // Cannot happen for a box inside the input; pass it whole instead.
      llvm::consumeError(view.takeError());
      values.push_back(hostValue(input, tensor));
      continue;
    }
    values.push_back(interp::HostValue(*view));
  }
  return values;
}

void fusion_run::compareRegion(const interp::HostTensor &out,
                               const interp::HostTensor &ref,
                               llvm::ArrayRef<int64_t> origin,
                               const std::string &name, Comparison &result,
                               size_t maxExamples) {
  const DType dtype = out.dtype();
  const Tolerance tol = toleranceFor(dtype);
  const bool isFloat = interp::isFloatDType(dtype);
  const int64_t rank = ref.rank();
  const int64_t n = ref.numElements();
  llvm::ArrayRef<int64_t> sizes = ref.sizes();
  llvm::ArrayRef<int64_t> strides = out.strides();
  // Note [Tolerance at the output's scale]: the absolute term is in units
  // of the region's root mean square (at least 1). Sums of K values of size
  // about 1 are about sqrt(K) in size, and another order of the additions
  // moves each by a few 2^-24 * sqrt(K) in f32, also one that cancels to
  // near 0: a fixed 1e-6 fails that row (inner_sum 333x4096: 3e-5 off),
  // 1e-6 * rms does not. Element-wise outputs of size about 1 keep the
  // fixed term. An --atol is taken as given.
  double atol = tol.atol;
  if (isFloat && tol.scaleAtol) {
    double sumSq = 0;
    int64_t finite = 0;
    for (int64_t i = 0; i < n; ++i) {
      double want = ref.getDouble(i);
      if (std::isfinite(want)) {
        sumSq += want * want;
        ++finite;
      }
    }
    if (finite > 0)
      atol *= std::max(1.0, std::sqrt(sumSq / double(finite)));
  }
  std::vector<int64_t> local(rank, 0);
  const uint8_t *raw = out.storage();
  for (int64_t i = 0; i < n; ++i) {
    int64_t position = out.offset();
    for (int64_t d = 0; d < rank; ++d)
      position += (origin[d] + local[d]) * strides[d];
    bool ok;
    double got, want;
    if (isFloat) {
      got = out.loadDouble(position);
      want = ref.getDouble(i);
      if (std::isnan(want)) {
        ok = std::isnan(got);
      } else if (std::isinf(want)) {
        ok = got == want;
      } else if (!std::isfinite(got)) {
        ok = false;
      } else {
        double diff = std::fabs(got - want);
        ok = diff <= atol + tol.rtol * std::fabs(want);
        result.maxAbsErr = std::max(result.maxAbsErr, diff);
        result.sumSqErr += diff * diff;
        result.sumSqRef += want * want;
      }
    } else {
      // Bools are compared by their byte: only 0 and 1 are valid.
      int64_t g = dtype == DType::I1 ? static_cast<int64_t>(raw[position])
                                     : out.loadInt(position);
      int64_t w = ref.getInt(i);
      ok = g == w;
      got = static_cast<double>(g);
      want = static_cast<double>(w);
      double diff = std::fabs(got - want);
      result.maxAbsErr = std::max(result.maxAbsErr, diff);
      result.sumSqErr += diff * diff;
      result.sumSqRef += want * want;
    }
    ++result.checked;
    if (!ok) {
      ++result.mismatches;
      if (result.examples.size() < maxExamples) {
        std::vector<int64_t> index(rank);
        for (int64_t d = 0; d < rank; ++d)
          index[d] = origin[d] + local[d];
        std::string text = indexText(name, index) + ": got " +
                           formatNumber(got) + ", expected " +
                           formatNumber(want);
        if (isFloat && std::isfinite(want) && std::isfinite(got))
          text += " (|diff| " + formatNumber(std::fabs(got - want)) +
                  " > tolerance " +
                  formatNumber(atol + tol.rtol * std::fabs(want)) + ")";
        result.examples.push_back(text);
      }
    }
    for (int64_t d = rank - 1; d >= 0; --d) {
      if (++local[d] < sizes[d])
        break;
      local[d] = 0;
    }
  }
}

int64_t fusion_run::countDifferences(const interp::HostTensor &a,
                                     const interp::HostTensor &b,
                                     const std::string &name,
                                     std::vector<std::string> &examples,
                                     size_t maxExamples) {
  const int64_t bytes = interp::dtypeBytes(a.dtype());
  const int64_t n = a.numElements();
  const int64_t rank = a.rank();
  llvm::ArrayRef<int64_t> sizes = a.sizes();
  llvm::ArrayRef<int64_t> strides = a.strides();
  int64_t differences = 0;
  auto report = [&](int64_t linear, int64_t position) {
    ++differences;
    if (examples.size() >= maxExamples)
      return;
    std::string first, second;
    if (a.dtype() == DType::I1 || !interp::isFloatDType(a.dtype())) {
      first =
          std::to_string(a.dtype() == DType::I1 ? int64_t(a.storage()[position])
                                                : a.loadInt(position));
      second =
          std::to_string(b.dtype() == DType::I1 ? int64_t(b.storage()[position])
                                                : b.loadInt(position));
    } else {
      first = formatNumber(a.loadDouble(position));
      second = formatNumber(b.loadDouble(position));
    }
    examples.push_back(indexText(name, unflatten(linear, sizes)) +
                       ": the first run left " + first + ", the second run " +
                       second + " (unwritten element, or a race)");
  };
  if (a.isContiguous() && a.offset() == 0 && b.offset() == 0) {
    // Fast path: compare chunks, look into the ones that differ.
    const int64_t chunk = std::max<int64_t>(1, (int64_t(1) << 20) / bytes);
    for (int64_t start = 0; start < n; start += chunk) {
      int64_t count = std::min(chunk, n - start);
      if (std::memcmp(a.storage() + start * bytes, b.storage() + start * bytes,
                      count * bytes) == 0)
        continue;
      for (int64_t i = start; i < start + count; ++i)
        if (std::memcmp(a.storage() + i * bytes, b.storage() + i * bytes,
                        bytes) != 0)
          report(i, i);
    }
    return differences;
  }
  std::vector<int64_t> index(rank, 0);
  for (int64_t i = 0; i < n; ++i) {
    int64_t position = a.offset();
    for (int64_t d = 0; d < rank; ++d)
      position += index[d] * strides[d];
    if (std::memcmp(a.storage() + position * bytes,
                    b.storage() + position * bytes, bytes) != 0)
      report(i, position);
    for (int64_t d = rank - 1; d >= 0; --d) {
      if (++index[d] < sizes[d])
        break;
      index[d] = 0;
    }
  }
  return differences;
}
