//===- FloatFormatsTest.cpp - narrow float encodings ----------------------===//
// Known encodings by hand, then every encoding and the rounding boundaries
// between them against LLVM's APFloat.
//===----------------------------------------------------------------------===//

#include "fusion/Interpreter/FloatFormats.h"
#include "fusion/Interpreter/HostTensor.h"

#include "llvm/ADT/APFloat.h"
#include "gtest/gtest.h"

#include <cfloat>
#include <cmath>
#include <random>

using namespace mlir::fusion::interp;

namespace {

TEST(FloatFormats, F16KnownValues) {
  EXPECT_EQ(encodeF16(1.0), 0x3C00);
  EXPECT_EQ(encodeF16(-2.0), 0xC000);
  EXPECT_EQ(encodeF16(65504.0), 0x7BFF); // max finite
  EXPECT_EQ(encodeF16(65519.0), 0x7BFF); // below the midpoint
  EXPECT_EQ(encodeF16(65520.0), 0x7C00); // midpoint: ties to even = inf
  EXPECT_EQ(encodeF16(1e10), 0x7C00);
  EXPECT_EQ(encodeF16(-INFINITY), 0xFC00);
  EXPECT_EQ(encodeF16(NAN), 0x7E00);
  EXPECT_EQ(encodeF16(-0.0), 0x8000);
  EXPECT_EQ(encodeF16(std::ldexp(1.0, -24)), 0x0001); // smallest subnormal
  EXPECT_EQ(encodeF16(std::ldexp(1.0, -25)), 0x0000); // tie to even: 0
  EXPECT_EQ(encodeF16(std::ldexp(3.0, -26)), 0x0001); // above the tie
  EXPECT_EQ(encodeF16(std::ldexp(1.0, -14)), 0x0400); // smallest normal
  EXPECT_EQ(encodeF16(1.0 + std::ldexp(1.0, -11)), 0x3C00); // tie to even
  EXPECT_EQ(encodeF16(1.0 + std::ldexp(3.0, -11)), 0x3C02); // tie to even
  EXPECT_EQ(decodeF16(0x3555), 0.333251953125);
  EXPECT_EQ(decodeF16(0x0001), std::ldexp(1.0, -24));
  EXPECT_TRUE(std::isnan(decodeF16(0x7C01)));
  EXPECT_EQ(decodeF16(0x7C00), INFINITY);
}

TEST(FloatFormats, BF16KnownValues) {
  EXPECT_EQ(encodeBF16(1.0), 0x3F80);
  EXPECT_EQ(encodeBF16(1.0 + std::ldexp(1.0, -8)), 0x3F80); // tie to even
  EXPECT_EQ(encodeBF16(1.0 + std::ldexp(3.0, -8)), 0x3F82); // tie to even
  EXPECT_EQ(encodeBF16(1.0 + std::ldexp(1.0, -8) + std::ldexp(1.0, -30)),
            0x3F81); // just above the tie
  EXPECT_EQ(encodeBF16(3.14159265358979), 0x4049);
  EXPECT_EQ(encodeBF16(FLT_MAX), 0x7F80);               // rounds up to inf
  EXPECT_EQ(encodeBF16(3.3895313892515355e38), 0x7F7F); // max finite
  EXPECT_EQ(encodeBF16(NAN), 0x7FC0);
  EXPECT_EQ(encodeBF16(-NAN) & 0x8000, 0x8000);         // NaN keeps its sign
  EXPECT_EQ(encodeBF16(std::ldexp(1.0, -133)), 0x0001); // smallest subnormal
  EXPECT_EQ(decodeBF16(0x4049), 3.140625);
  EXPECT_EQ(decodeBF16(0xFF80), -INFINITY);
}

TEST(FloatFormats, F8E4M3FNKnownValues) {
  EXPECT_EQ(encodeF8E4M3FN(1.0), 0x38);
  EXPECT_EQ(encodeF8E4M3FN(448.0), 0x7E); // max finite
  EXPECT_EQ(encodeF8E4M3FN(464.0), 0x7E); // tie to even stays at 448
  EXPECT_EQ(encodeF8E4M3FN(465.0), 0x7F); // overflow is NaN: no inf
  EXPECT_EQ(encodeF8E4M3FN(1e6), 0x7F);
  EXPECT_EQ(encodeF8E4M3FN(INFINITY), 0x7F);
  EXPECT_EQ(encodeF8E4M3FN(-INFINITY), 0xFF);
  EXPECT_EQ(encodeF8E4M3FN(-448.0), 0xFE);
  EXPECT_EQ(encodeF8E4M3FN(std::ldexp(1.0, -9)), 0x01);  // min subnormal
  EXPECT_EQ(encodeF8E4M3FN(std::ldexp(1.0, -10)), 0x00); // tie to even
  EXPECT_EQ(encodeF8E4M3FN(1.0625), 0x38); // tie between 1 and 1.125
  EXPECT_EQ(encodeF8E4M3FN(1.1875), 0x3A); // tie between 1.125 and 1.25
  EXPECT_EQ(decodeF8E4M3FN(0x7E), 448.0);
  EXPECT_EQ(decodeF8E4M3FN(0x78), 256.0); // exponent all-ones is finite
  EXPECT_TRUE(std::isnan(decodeF8E4M3FN(0x7F)));
  EXPECT_TRUE(std::isnan(decodeF8E4M3FN(0xFF)));
}

TEST(FloatFormats, F8E5M2KnownValues) {
  EXPECT_EQ(encodeF8E5M2(1.0), 0x3C);
  EXPECT_EQ(encodeF8E5M2(57344.0), 0x7B); // max finite
  EXPECT_EQ(encodeF8E5M2(61440.0), 0x7C); // tie to even: inf
  EXPECT_EQ(encodeF8E5M2(60000.0), 0x7B);
  EXPECT_EQ(encodeF8E5M2(std::ldexp(1.0, -16)), 0x01); // min subnormal
  EXPECT_EQ(encodeF8E5M2(NAN), 0x7E);
  EXPECT_EQ(encodeF8E5M2(1.125), 0x3C); // tie to even
  EXPECT_EQ(encodeF8E5M2(1.375), 0x3E); // tie to even
  EXPECT_EQ(decodeF8E5M2(0x7C), INFINITY);
  EXPECT_TRUE(std::isnan(decodeF8E5M2(0x7D)));
}

TEST(FloatFormats, F32Rounding) {
  EXPECT_EQ(roundToF32(0.1), 0.100000001490116119384765625);
  EXPECT_EQ(roundToF32(1e39), INFINITY);
  EXPECT_EQ(roundToF32(-1e39), -INFINITY);
  EXPECT_EQ(roundToF32(double(FLT_MAX) + std::ldexp(1.0, 102)), FLT_MAX);
  EXPECT_EQ(roundToF32(std::ldexp(1.0, 128) - std::ldexp(1.0, 103)), INFINITY);
  EXPECT_TRUE(std::isnan(roundToF32(NAN)));
}

struct FormatCase {
  const char *name;
  const llvm::fltSemantics &(*semantics)();
  unsigned bits;
  uint32_t (*encode)(double);
  double (*decode)(uint32_t);
};

const FormatCase kFormats[] = {
    {"f16", llvm::APFloat::IEEEhalf, 16,
     [](double v) { return uint32_t(encodeF16(v)); },
     [](uint32_t b) { return decodeF16(uint16_t(b)); }},
    {"bf16", llvm::APFloat::BFloat, 16,
     [](double v) { return uint32_t(encodeBF16(v)); },
     [](uint32_t b) { return decodeBF16(uint16_t(b)); }},
    {"f8E4M3FN", llvm::APFloat::Float8E4M3FN, 8,
     [](double v) { return uint32_t(encodeF8E4M3FN(v)); },
     [](uint32_t b) { return decodeF8E4M3FN(uint8_t(b)); }},
    {"f8E5M2", llvm::APFloat::Float8E5M2, 8,
     [](double v) { return uint32_t(encodeF8E5M2(v)); },
     [](uint32_t b) { return decodeF8E5M2(uint8_t(b)); }},
};

/// APFloat's encoding of `value`, rounded to nearest even.
uint32_t referenceEncode(double value, const llvm::fltSemantics &semantics) {
  llvm::APFloat f(value);
  bool lost;
  f.convert(semantics, llvm::APFloat::rmNearestTiesToEven, &lost);
  return uint32_t(f.bitcastToAPInt().getZExtValue());
}

TEST(FloatFormats, DecodeEveryEncodingLikeAPFloat) {
  for (const FormatCase &format : kFormats) {
    for (uint32_t bits = 0; bits < (1u << format.bits); ++bits) {
      llvm::APFloat ref(format.semantics(), llvm::APInt(format.bits, bits));
      double expected = ref.isNaN() ? NAN : [&] {
        bool lost;
        llvm::APFloat wide = ref;
        wide.convert(llvm::APFloat::IEEEdouble(),
                     llvm::APFloat::rmNearestTiesToEven, &lost);
        return wide.convertToDouble();
      }();
      double got = format.decode(bits);
      if (std::isnan(expected)) {
        ASSERT_TRUE(std::isnan(got)) << format.name << " bits " << bits;
        continue;
      }
      ASSERT_EQ(got, expected) << format.name << " bits " << bits;
      ASSERT_EQ(std::signbit(got), std::signbit(expected))
          << format.name << " bits " << bits;
      // Every finite value encodes back to itself.
      ASSERT_EQ(format.encode(got), bits) << format.name << " bits " << bits;
    }
  }
}

TEST(FloatFormats, EncodeRoundingBoundariesLikeAPFloat) {
  for (const FormatCase &format : kFormats) {
    auto check = [&](double x) {
      uint32_t expected = referenceEncode(x, format.semantics());
      uint32_t got = format.encode(x);
      bool expectedNaN = std::isnan(format.decode(expected));
      if (expectedNaN) {
        ASSERT_TRUE(std::isnan(format.decode(got)))
            << format.name << " x=" << x;
        return;
      }
      ASSERT_EQ(got, expected) << format.name << " x=" << x;
    };
    // The midpoints between neighbouring values, and one double ulp either
    // side of them, are where rounding decides.
    std::vector<double> finite;
    for (uint32_t bits = 0; bits < (1u << format.bits); ++bits) {
      double v = format.decode(bits);
      if (std::isfinite(v) && !std::signbit(v))
        finite.push_back(v);
    }
    std::sort(finite.begin(), finite.end());
    finite.erase(std::unique(finite.begin(), finite.end()), finite.end());
    double top = finite.back();
    // Beyond the largest value, the next power step continues the grid.
    finite.push_back(top + (top - finite[finite.size() - 2]));
    for (size_t i = 0; i + 1 < finite.size(); ++i) {
      double mid = (finite[i] + finite[i + 1]) / 2;
      for (double x : {finite[i], mid, std::nextafter(mid, 0.0),
                       std::nextafter(mid, INFINITY)}) {
        check(x);
        check(-x);
      }
    }
    check(1e300);
    check(-1e300);
    check(5e-324);
    check(INFINITY);
    check(-INFINITY);
  }
}

TEST(FloatFormats, EncodeRandomDoublesLikeAPFloat) {
  std::mt19937_64 rng(42);
  for (const FormatCase &format : kFormats) {
    for (int i = 0; i < 200000; ++i) {
      // Random magnitudes spanning the format's range and beyond.
      double x = std::ldexp(std::uniform_real_distribution<double>(1, 2)(rng),
                            std::uniform_int_distribution<int>(-140, 130)(rng));
      if (rng() & 1)
        x = -x;
      uint32_t expected = referenceEncode(x, format.semantics());
      uint32_t got = format.encode(x);
      if (std::isnan(format.decode(expected)))
        ASSERT_TRUE(std::isnan(format.decode(got)))
            << format.name << " x=" << x;
      else
        ASSERT_EQ(got, expected) << format.name << " x=" << x;
    }
  }
}

TEST(FloatFormats, IntegerConversionsRoundOnce) {
  // 2^24 + 1 is a tie in f32: even is 2^24.
  EXPECT_EQ(intToFloat((1 << 24) + 1, DType::F32), double(1 << 24));
  EXPECT_EQ(intToFloat((1 << 24) + 3, DType::F32), double((1 << 24) + 4));
  // 2^60 + 2^36 + 1 is just above the f32 tie at 2^60 + 2^36: a naive
  // int64 -> double -> float would round to the even 2^60 twice.
  int64_t big = (int64_t(1) << 60) + (int64_t(1) << 36) + 1;
  EXPECT_EQ(intToFloat(big, DType::F32),
            std::ldexp(1.0, 60) + std::ldexp(1.0, 37));
  EXPECT_EQ(intToFloat(-big, DType::F32),
            -(std::ldexp(1.0, 60) + std::ldexp(1.0, 37)));
  EXPECT_EQ(intToFloat(INT64_MIN, DType::BF16), -std::ldexp(1.0, 63));
  EXPECT_EQ(intToFloat(300, DType::F8E4M3FN), 288.0);
  EXPECT_EQ(intToFloat(257, DType::BF16), 256.0);
  EXPECT_EQ(intToFloat(70000, DType::F16), INFINITY);

  EXPECT_EQ(floatToInt(-2.9, DType::I32), -2);
  EXPECT_EQ(floatToInt(2.9, DType::I8), 2);
  EXPECT_EQ(floatToInt(NAN, DType::I64), 0);
  EXPECT_EQ(floatToInt(1e20, DType::I64), INT64_MAX);
  EXPECT_EQ(floatToInt(-1e20, DType::I64), INT64_MIN);
  EXPECT_EQ(floatToInt(300.0, DType::I8), 127);
  EXPECT_EQ(floatToInt(-300.0, DType::I8), -128);
  EXPECT_EQ(floatToInt(0.25, DType::I1), 1);
  EXPECT_EQ(floatToInt(NAN, DType::I1), 1);
  EXPECT_EQ(floatToInt(-0.0, DType::I1), 0);

  EXPECT_EQ(wrapToDType(300, DType::I8), 44);
  EXPECT_EQ(wrapToDType(-129, DType::I8), 127);
  EXPECT_EQ(wrapToDType(int64_t(1) << 32, DType::I32), 0);
  EXPECT_EQ(wrapToDType(2, DType::I1), 1);
}

} // namespace
