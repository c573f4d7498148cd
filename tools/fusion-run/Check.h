//===- Check.h - comparing kernel outputs with the reference ----*- C++ -*-===//
// Per-dtype tolerances, element-by-element comparison of a downloaded output
// with the reference interpreter's, the choice of sampled regions for large
// outputs, and the check that two runs wrote the same bytes everywhere.
//===----------------------------------------------------------------------===//
#ifndef FUSION_TOOLS_FUSIONRUN_CHECK_H
#define FUSION_TOOLS_FUSIONRUN_CHECK_H

#include "Inputs.h"

#include "fusion/Interpreter/HostTensor.h"

#include "llvm/ADT/ArrayRef.h"

#include <cstdint>
#include <string>
#include <vector>

namespace fusion_run {

/// |out - ref| <= atol + rtol * |ref|; `exact` for integers and bools.
struct Tolerance {
  double rtol = 0;
  double atol = 0;
  bool exact = false;
  /// `atol` is in units of the output's size (compareRegion); off when
  /// --atol gives it.
  bool scaleAtol = true;
};
/// f64 1e-12 relative, f32 1e-5 + 1e-6, f16 1e-3 + 1e-3, bf16 8e-3 + 8e-3
/// (one bf16 ulp), fp8 one ulp, integers and bools exact.
Tolerance toleranceFor(interp::DType dtype);
/// The per-dtype defaults, before --rtol/--atol.
Tolerance defaultToleranceFor(interp::DType dtype);
/// Float tolerances from the command line; a negative value keeps the
/// default. The default absolute term is scaled by the output's size
/// (compareRegion), which covers sums in a different order; reductions whose
/// error grows faster than their result (long sums of large values that
/// cancel) still need --atol, which is taken as given.
void setToleranceOverride(double rtol, double atol);

/// A box of an output: `sizes[d]` elements from `origin[d]` in every dim.
struct Box {
  std::vector<int64_t> origin;
  std::vector<int64_t> sizes;
  int64_t numElements() const;
};

/// The sampled region of an output of `shape`: `numBoxes` boxes of about
/// `target / numBoxes` elements each, every one made of whole rows of the
/// trailing dims from some `dim` on (dims before it are fixed to one index,
/// `dim` takes a contiguous range). The first box is at the start, the last
/// at the end, the others at positions drawn from `seed`. Empty when the
/// output has at most `target` elements (then everything is compared).
struct Sample {
  int64_t dim = 0;
  std::vector<Box> boxes;
};
Sample chooseSample(llvm::ArrayRef<int64_t> shape, uint64_t seed,
                    int64_t target, int numBoxes = 4);

/// The inputs restricted to `box` of an output of `shape`: a tensor input of
/// rank >= the output's has each dim d <= `dim` whose size equals the
/// output's (and is not 1) sliced to the box; everything else is passed
/// whole. Right for element-wise fusions with explicit broadcasts and for
/// operations along the trailing dims; the caller checks that the reference
/// comes back with the box's shape and otherwise interprets everything.
std::vector<interp::HostValue>
sliceInputs(const std::vector<InputDesc> &inputs,
            const std::vector<interp::HostTensor> &tensors,
            llvm::ArrayRef<int64_t> shape, int64_t dim, const Box &box);

/// The running result of comparing one output.
struct Comparison {
  int64_t checked = 0;
  int64_t mismatches = 0;
  double maxAbsErr = 0;
  double sumSqErr = 0;
  double sumSqRef = 0;
  std::vector<std::string> examples; // the first few mismatches
  double relL2() const;
};

/// Compares `ref` (contiguous, the reference values of the region at
/// `origin`, of `ref`'s shape) with the same region of `out` (a downloaded
/// output, any strides). `name` labels mismatches: "out0[3, 7]: ...".
/// Float elements pass with |out - ref| <= atol * max(1, rms) + rtol * |ref|,
/// rms the root mean square of the region's finite reference values (atol
/// alone when it came from --atol).
void compareRegion(const interp::HostTensor &out, const interp::HostTensor &ref,
                   llvm::ArrayRef<int64_t> origin, const std::string &name,
                   Comparison &result, size_t maxExamples = 8);

/// Elements whose bytes differ between two downloads of one output (same
/// layout): a kernel that leaves elements unwritten shows as a difference,
/// since the two runs poisoned the output with different bytes; so does a
/// race. Examples go to `examples`.
int64_t countDifferences(const interp::HostTensor &a,
                         const interp::HostTensor &b, const std::string &name,
                         std::vector<std::string> &examples,
                         size_t maxExamples = 8);

/// "%.9g", and "nan", "inf", "-inf".
std::string formatNumber(double value);

} // namespace fusion_run

#endif // FUSION_TOOLS_FUSIONRUN_CHECK_H
