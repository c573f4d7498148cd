//===- PhiloxTest.cpp - Philox-4x32-10 and fusion.rand / fusion.randn -----===//

#include "TestSupport.h"

#include "fusion/Interpreter/Philox.h"
#include "fusion/Support/RandomThreshold.h"

#include <limits>
#include <random>

using namespace mlir::fusion::interp;
using namespace mlir::fusion::interp::test;

namespace {

// The known-answer vectors of Random123 (kat_vectors, philox4x32 10).
TEST(Philox, KnownAnswers) {
  EXPECT_EQ(philox4x32({0, 0, 0, 0}, {0, 0}),
            (PhiloxCounter{0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}));
  EXPECT_EQ(philox4x32({0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff},
                       {0xffffffff, 0xffffffff}),
            (PhiloxCounter{0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}));
  EXPECT_EQ(philox4x32({0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344},
                       {0xa4093822, 0x299f31d0}),
            (PhiloxCounter{0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}));
}

TEST(Philox, BlockLayout) {
  // Element i uses counter (i/4 lo, i/4 hi, offset lo, offset hi) and key
  // (seed lo, seed hi).
  uint64_t seed = 0x123456789abcdef0ULL, offset = 0xfedcba9876543210ULL;
  uint64_t i = 4 * 0x100000001ULL + 2;
  PhiloxCounter expected =
      philox4x32({1, 1, 0x76543210, 0xfedcba98}, {0x9abcdef0, 0x12345678});
  EXPECT_EQ(philoxBlock(seed, offset, i), expected);
  EXPECT_EQ(randUniform(seed, offset, i, DType::F32),
            std::ldexp(double(expected[2] >> 8), -24));
  EXPECT_EQ(randUniform(seed, offset, i, DType::BF16),
            std::ldexp(double(expected[2] >> 24), -8));
  EXPECT_EQ(randUniform(seed, offset, i, DType::F16),
            std::ldexp(double(expected[2] >> 21), -11));
  EXPECT_EQ(randUniform(seed, offset, i, DType::F64),
            randUniform(seed, offset, i, DType::F32));
}

TEST(Philox, BoxMullerPairs) {
  // Elements 4k and 4k+1 are the cosine and sine of one pair: their squares
  // add up to -2 ln u1.
  PhiloxCounter words = philoxBlock(7, 3, 8);
  double u1 = std::ldexp(double((words[0] >> 8) + 1), -24);
  double z0 = randNormal(7, 3, 8), z1 = randNormal(7, 3, 9);
  EXPECT_NEAR(z0 * z0 + z1 * z1, -2 * std::log(u1), 1e-12);
  double u3 = std::ldexp(double((words[2] >> 8) + 1), -24);
  double z2 = randNormal(7, 3, 10), z3 = randNormal(7, 3, 11);
  EXPECT_NEAR(z2 * z2 + z3 * z3, -2 * std::log(u3), 1e-12);
}

using Random = InterpreterTest;

const char *kRand = R"(
fusion.fusion @f(%seed: i64, %offset: i64, %n: index) -> (tensor<?xf32>, tensor<?xbf16>, tensor<?xf64>) {
  %a = fusion.rand %seed, %offset (%n) : tensor<?xf32>
  %b = fusion.rand %seed, %offset (%n) : tensor<?xbf16>
  %c = fusion.randn %seed, %offset (%n) : tensor<?xf64>
  fusion.return %a, %b, %c : tensor<?xf32>, tensor<?xbf16>, tensor<?xf64>
}
)";

TEST_F(Random, RandMatchesTheRecipe) {
  const int64_t n = 40000;
  auto outputs =
      run(kRand, {HostValue::intScalar(DType::I64, 42),
                  HostValue::intScalar(DType::I64, 5), HostValue::index(n)});
  ASSERT_EQ(outputs.size(), 3u);
  std::vector<double> f32 = outputs[0].toDoubles();
  std::vector<double> bf16 = outputs[1].toDoubles();
  std::vector<double> normal = outputs[2].toDoubles();
  double sum = 0, sumNormal = 0, squaresNormal = 0;
  for (int64_t i = 0; i < n; ++i) {
    ASSERT_EQ(f32[i], randUniform(42, 5, i, DType::F32));
    ASSERT_GE(f32[i], 0.0);
    ASSERT_LT(f32[i], 1.0);
    ASSERT_GE(bf16[i], 0.0);
    ASSERT_LT(bf16[i], 1.0); // never rounds up to 1
    ASSERT_EQ(normal[i], randNormal(42, 5, i));
    sum += f32[i];
    sumNormal += normal[i];
    squaresNormal += normal[i] * normal[i];
  }
  EXPECT_NEAR(sum / n, 0.5, 0.01);
  EXPECT_NEAR(sumNormal / n, 0.0, 0.02);
  EXPECT_NEAR(squaresNormal / n, 1.0, 0.03);
}

TEST_F(Random, SeedAndOffsetChangeTheStream) {
  auto a =
      run(kRand, {HostValue::intScalar(DType::I64, 1),
                  HostValue::intScalar(DType::I64, 0), HostValue::index(8)});
  auto b =
      run(kRand, {HostValue::intScalar(DType::I64, 1),
                  HostValue::intScalar(DType::I64, 1), HostValue::index(8)});
  auto c =
      run(kRand, {HostValue::intScalar(DType::I64, 1),
                  HostValue::intScalar(DType::I64, 0), HostValue::index(8)});
  ASSERT_EQ(a.size(), 3u);
  ASSERT_EQ(b.size(), 3u);
  ASSERT_EQ(c.size(), 3u);
  EXPECT_NE(a[0].toDoubles(), b[0].toDoubles());
  EXPECT_EQ(a[0].toDoubles(), c[0].toDoubles());
}

// Note [Random thresholds]: a comparison of fusion.rand's value with a
// constant, as a test on the word, agrees with the comparison of the value
// the interpreter computes from that word, for every predicate, at
// thresholds on, just off and between the value grid, and outside [0, 1).
TEST(Philox, ThresholdsOnWordsMatchTheValues) {
  using P = mlir::fusion::ThresholdPredicate;
  std::mt19937_64 rng(7);
  const double inf = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  struct Case {
    DType dtype;
    int bits;
  };
  int64_t checked = 0;
  for (Case k :
       {Case{DType::BF16, 8}, Case{DType::F16, 11}, Case{DType::F32, 24}}) {
    std::vector<double> thresholds = {0.0, -0.0, 1.0,  -1.0, 2.0,   0.1,   0.5,
                                      0.9, inf,  -inf, nan,  1e-30, -1e-30};
    for (int64_t t : {int64_t(1), int64_t(2), int64_t(3),
                      int64_t(1) << (k.bits - 1), (int64_t(1) << k.bits) - 1}) {
      double on = std::ldexp(double(t), -k.bits);
      thresholds.push_back(on);
      thresholds.push_back(std::nextafter(on, 0.0));
      thresholds.push_back(std::nextafter(on, 2.0));
    }
    for (int j = 0; j < 20; ++j)
      thresholds.push_back(std::uniform_real_distribution<double>(0, 1)(rng));
    for (double c : thresholds) {
      for (P pred : {P::Ge, P::Gt, P::Le, P::Lt}) {
        mlir::fusion::RandomThreshold threshold =
            mlir::fusion::randomThreshold(c, k.bits, pred);
        // Words from the interpreter's Philox stream, and words on and
        // around every grid point near the threshold.
        std::vector<uint32_t> words;
        for (uint64_t i = 0; i < 2000; ++i)
          words.push_back(philoxBlock(3, 5, i)[i % 4]);
        if (std::isfinite(c)) {
          int64_t near = static_cast<int64_t>(std::ldexp(c, k.bits));
          for (int64_t t = near - 2; t <= near + 2; ++t) {
            if (t < 0 || t >= (int64_t(1) << k.bits))
              continue;
            uint32_t base = uint32_t(t) << (32 - k.bits);
            words.push_back(base);
            words.push_back(base | ((uint32_t(1) << (32 - k.bits)) - 1));
          }
        }
        for (uint32_t word : words) {
          double u = std::ldexp(double(word >> (32 - k.bits)), -k.bits);
          bool expected = pred == P::Ge   ? u >= c
                          : pred == P::Gt ? u > c
                          : pred == P::Le ? u <= c
                                          : u < c;
          ASSERT_EQ(mlir::fusion::passes(threshold, word), expected)
              << "bits " << k.bits << " c " << c << " pred "
              << static_cast<int>(pred) << " word " << word;
          ++checked;
        }
      }
    }
    // The value grid is the interpreter's.
    for (uint64_t i = 0; i < 64; ++i) {
      uint32_t word = philoxBlock(11, 13, i)[i % 4];
      EXPECT_EQ(randUniform(11, 13, i, k.dtype),
                std::ldexp(double(word >> (32 - k.bits)), -k.bits));
    }
  }
  EXPECT_GT(checked, 100000);
}

} // namespace
