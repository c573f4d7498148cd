//===- CheckTest.cpp - fusion-run's comparison with the reference ---------===//

#include "Check.h"

#include "gtest/gtest.h"

#include <cmath>

using namespace fusion_run;
using mlir::fusion::interp::DType;
using mlir::fusion::interp::HostTensor;

namespace {

Comparison compare(DType dtype, const std::vector<double> &out,
                   const std::vector<double> &ref) {
  int64_t n = static_cast<int64_t>(ref.size());
  HostTensor o = HostTensor::fromDoubles(dtype, {n}, out);
  HostTensor r = HostTensor::fromDoubles(dtype, {n}, ref);
  Comparison result;
  compareRegion(o, r, {0}, "out0", result);
  return result;
}

// Note [Tolerance at the output's scale]: row sums of about 64 (a sum of
// 4096 values of size 1) with one row that cancels to 0.5.
TEST(FusionRunCheck, AbsoluteToleranceFollowsTheOutputsScale) {
  std::vector<double> ref = {64, -60, 0.5, 70};
  std::vector<double> out = ref;
  // Off by 3e-5, as a different summation order leaves it in f32: more
  // than 1e-6 + 1e-5 * 0.5, less than 1e-6 * rms (about 56) + 5e-6.
  out[2] += 3e-5;
  Comparison scaled = compare(DType::F32, out, ref);
  EXPECT_EQ(scaled.mismatches, 0);
  EXPECT_EQ(scaled.checked, 4);
  // Off by 1e-3: a wrong answer at this scale still fails, and says the
  // tolerance it was held to.
  out[2] = ref[2] + 1e-3;
  Comparison wrong = compare(DType::F32, out, ref);
  EXPECT_EQ(wrong.mismatches, 1);
  ASSERT_EQ(wrong.examples.size(), 1u);
  EXPECT_NE(wrong.examples[0].find("out0[2]: got"), std::string::npos)
      << wrong.examples[0];
  EXPECT_NE(wrong.examples[0].find("tolerance 6."), std::string::npos)
      << wrong.examples[0];
}

TEST(FusionRunCheck, AnAtolFromTheCommandLineIsNotScaled) {
  std::vector<double> ref = {64, -60, 0.5, 70};
  std::vector<double> out = ref;
  out[2] += 3e-5;
  setToleranceOverride(-1, 1e-6);
  Comparison given = compare(DType::F32, out, ref);
  setToleranceOverride(-1, -1);
  EXPECT_EQ(given.mismatches, 1);
  EXPECT_EQ(compare(DType::F32, out, ref).mismatches, 0);
}

TEST(FusionRunCheck, OutputsOfSizeOneKeepTheFixedTerm) {
  // rms below 1: the absolute term stays 1e-6, so 3e-5 off near 0 fails.
  std::vector<double> ref = {0.25, -0.5, 0.0, 0.75};
  std::vector<double> out = ref;
  out[2] = 3e-5;
  EXPECT_EQ(compare(DType::F32, out, ref).mismatches, 1);
  out[2] = 5e-7;
  EXPECT_EQ(compare(DType::F32, out, ref).mismatches, 0);
}

TEST(FusionRunCheck, NonFiniteReferencesDoNotSetTheScale) {
  // inf and nan are compared exactly and left out of the scale: the finite
  // elements' rms is 1, so 3e-5 off still fails.
  std::vector<double> ref = {INFINITY, NAN, 1.0, 1.0};
  std::vector<double> out = {INFINITY, NAN, 1.0, 1.0 + 3e-5};
  EXPECT_EQ(compare(DType::F32, out, ref).mismatches, 1);
  out[3] = 1.0;
  out[1] = 2.0; // a number where nan is expected
  EXPECT_EQ(compare(DType::F32, out, ref).mismatches, 1);
}

TEST(FusionRunCheck, IntegersStayExact) {
  std::vector<double> ref = {1000, 2000, 3000};
  std::vector<double> out = {1000, 2001, 3000};
  EXPECT_EQ(compare(DType::I32, out, ref).mismatches, 1);
}

} // namespace
