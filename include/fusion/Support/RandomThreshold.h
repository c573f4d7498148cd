//===- RandomThreshold.h - rand comparisons as word tests ------*- C++ -*-===//
// A comparison of a `fusion.rand` value with a constant, as an exact test on
// the Philox word the value is made of (docs/random.md).
//===----------------------------------------------------------------------===//
#ifndef FUSION_SUPPORT_RANDOMTHRESHOLD_H
#define FUSION_SUPPORT_RANDOMTHRESHOLD_H

#include <cmath>
#include <cstdint>

namespace mlir::fusion {

// Note [Random thresholds]: the value of `fusion.rand` is u = t * 2^-p with
// t = word >> (32 - p) (docs/random.md), so comparing it with a constant c,
// as a dropout mask does (`rand >= p`), needs no float at all:
//   u >= c  <=>  t >= ceil(c * 2^p)         u > c  <=>  t >= floor(c * 2^p) + 1
// (t is an integer and c * 2^p is exact: a power-of-two scaling), and
// t >= K <=> word >= K << (32 - p) for 0 < K < 2^p; u < c and u <= c are the
// negations (c is not NaN). An ordered comparison with NaN is false. The
// kernels compare the word once per element instead of shifting it,
// converting it to float, scaling and comparing (four instructions, one of
// them a slow integer-to-float conversion), with the same result bit for bit.

enum class ThresholdPredicate { Ge, Gt, Le, Lt };

struct RandomThreshold {
  enum Kind {
    Never,       // false for every word
    Always,      // true for every word
    WordAtLeast, // word >= bound (unsigned)
    WordBelow,   // word < bound (unsigned)
  };
  Kind kind;
  uint32_t bound = 0;
};

/// `u PRED c` for u = (word >> (32 - bits)) * 2^-bits, 1 <= bits <= 31, as a
/// test on the word.
inline RandomThreshold randomThreshold(double c, int bits,
                                       ThresholdPredicate pred) {
  if (std::isnan(c))
    return {RandomThreshold::Never};
  double scaled = std::ldexp(c, bits);
  bool atLeast =
      pred == ThresholdPredicate::Ge || pred == ThresholdPredicate::Gt;
  // u >= c (Ge, and Lt = !Ge) or u > c (Gt, and Le = !Gt) <=> t >= k.
  double k = pred == ThresholdPredicate::Ge || pred == ThresholdPredicate::Lt
                 ? std::ceil(scaled)
                 : std::floor(scaled) + 1;
  if (k <= 0)
    return {atLeast ? RandomThreshold::Always : RandomThreshold::Never};
  if (k >= std::ldexp(1.0, bits))
    return {atLeast ? RandomThreshold::Never : RandomThreshold::Always};
  uint32_t bound = static_cast<uint32_t>(k) << (32 - bits);
  return {atLeast ? RandomThreshold::WordAtLeast : RandomThreshold::WordBelow,
          bound};
}

/// Whether `word` passes `threshold`.
inline bool passes(RandomThreshold threshold, uint32_t word) {
  switch (threshold.kind) {
  case RandomThreshold::Never:
    return false;
  case RandomThreshold::Always:
    return true;
  case RandomThreshold::WordAtLeast:
    return word >= threshold.bound;
  case RandomThreshold::WordBelow:
    return word < threshold.bound;
  }
  return false;
}

} // namespace mlir::fusion

#endif // FUSION_SUPPORT_RANDOMTHRESHOLD_H
