//===- FloatFormats.cpp - narrow float encodings --------------------------===//
// One encoder and one decoder parameterized by the format, so every narrow
// type rounds by the same (tested) code path.
//===----------------------------------------------------------------------===//

#include "fusion/Interpreter/FloatFormats.h"

#include <algorithm>
#include <cfloat>
#include <cmath>

using namespace mlir::fusion::interp;

namespace {

struct Format {
  int expBits;
  int mantBits;
  // IEEE-like formats reserve the top exponent for inf and NaN; the "FN"
  // formats use it for finite values and keep only all-ones as NaN.
  bool hasInf;

  int bias() const { return (1 << (expBits - 1)) - 1; }
  uint32_t expAllOnes() const { return (1u << expBits) - 1; }
  uint32_t mantMask() const { return (1u << mantBits) - 1; }
  uint32_t signBit() const { return 1u << (expBits + mantBits); }
  uint32_t infBits() const { return expAllOnes() << mantBits; }
  uint32_t nanBits() const {
    return hasInf ? infBits() | (1u << (mantBits - 1)) : infBits() | mantMask();
  }
  // The largest finite encoding, without sign.
  uint32_t maxFinite() const {
    return hasInf ? ((expAllOnes() - 1) << mantBits) | mantMask()
                  : infBits() | (mantMask() - 1);
  }
};

constexpr Format kF16{5, 10, true};
constexpr Format kBF16{8, 7, true};
constexpr Format kE4M3FN{4, 3, false};
constexpr Format kE5M2{5, 2, true};

uint32_t encode(double value, const Format &f) {
  uint32_t sign = std::signbit(value) ? f.signBit() : 0;
  if (std::isnan(value))
    return sign | f.nanBits();
  double a = std::fabs(value);
  if (std::isinf(a))
    return sign | (f.hasInf ? f.infBits() : f.nanBits());
  if (a == 0)
    return sign;
  int e;
  std::frexp(a, &e);
  int exponent = e - 1; // a is in [2^exponent, 2^(exponent + 1))
  int emin = 1 - f.bias();
  // Scaling by a power of two is exact, so nearbyint is the only rounding
  // (ties to even in the default rounding mode).
  int quantum = std::max(exponent, emin) - f.mantBits;
  uint64_t m = static_cast<uint64_t>(std::nearbyint(std::ldexp(a, -quantum)));
  uint64_t bits;
  if (exponent < emin) {
    // Subnormal; rounding up to 2^mantBits lands exactly on the smallest
    // normal encoding, so the bits need no fix-up.
    bits = m;
  } else {
    if (m == (uint64_t(1) << (f.mantBits + 1))) {
      ++exponent;
      m >>= 1;
    }
    int64_t biased = exponent + f.bias();
    if (biased > static_cast<int64_t>(f.expAllOnes()))
      return sign | (f.hasInf ? f.infBits() : f.nanBits());
    bits = (uint64_t(biased) << f.mantBits) | (m & f.mantMask());
  }
  if (bits > f.maxFinite())
    return sign | (f.hasInf ? f.infBits() : f.nanBits());
  return sign | static_cast<uint32_t>(bits);
}

double decode(uint32_t bits, const Format &f) {
  bool negative = bits & f.signBit();
  uint32_t exp = (bits >> f.mantBits) & f.expAllOnes();
  uint32_t mant = bits & f.mantMask();
  double magnitude;
  if (f.hasInf && exp == f.expAllOnes()) {
    magnitude = mant == 0 ? INFINITY : NAN;
  } else if (!f.hasInf && exp == f.expAllOnes() && mant == f.mantMask()) {
    magnitude = NAN;
  } else if (exp == 0) {
    magnitude = std::ldexp(double(mant), 1 - f.bias() - f.mantBits);
  } else {
    magnitude = std::ldexp(double(mant | (1u << f.mantBits)),
                           int(exp) - f.bias() - f.mantBits);
  }
  return negative ? -magnitude : magnitude;
}

} // namespace

uint16_t mlir::fusion::interp::encodeF16(double value) {
  return static_cast<uint16_t>(encode(value, kF16));
}
double mlir::fusion::interp::decodeF16(uint16_t bits) {
  return decode(bits, kF16);
}
uint16_t mlir::fusion::interp::encodeBF16(double value) {
  return static_cast<uint16_t>(encode(value, kBF16));
}
double mlir::fusion::interp::decodeBF16(uint16_t bits) {
  return decode(bits, kBF16);
}
uint8_t mlir::fusion::interp::encodeF8E4M3FN(double value) {
  return static_cast<uint8_t>(encode(value, kE4M3FN));
}
double mlir::fusion::interp::decodeF8E4M3FN(uint8_t bits) {
  return decode(bits, kE4M3FN);
}
uint8_t mlir::fusion::interp::encodeF8E5M2(double value) {
  return static_cast<uint8_t>(encode(value, kE5M2));
}
double mlir::fusion::interp::decodeF8E5M2(uint8_t bits) {
  return decode(bits, kE5M2);
}

double mlir::fusion::interp::roundToF32(double value) {
  // A double beyond the f32 range is undefined behaviour to convert in C++;
  // 2^128 - 2^103 is the midpoint between FLT_MAX and 2^128, where ties to
  // even goes to inf.
  double a = std::fabs(value);
  if (a > FLT_MAX && !std::isinf(a))
    return std::copysign(a >= 0x1.ffffffp127 ? INFINITY : FLT_MAX, value);
  return static_cast<double>(static_cast<float>(value));
}
