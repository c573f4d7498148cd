//===- Philox.cpp - counter-based random numbers --------------------------===//
// Philox-4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2,
// 3", SC'11) and the uniform and normal recipes of docs/random.md.
//===----------------------------------------------------------------------===//

#include "fusion/Interpreter/Philox.h"

#include <cmath>

using namespace mlir::fusion::interp;

namespace {
constexpr uint32_t kM0 = 0xD2511F53;
constexpr uint32_t kM1 = 0xCD9E8D57;
constexpr uint32_t kW0 = 0x9E3779B9; // golden ratio
constexpr uint32_t kW1 = 0xBB67AE85; // sqrt(3) - 1
} // namespace

PhiloxCounter mlir::fusion::interp::philox4x32(PhiloxCounter c, PhiloxKey k,
                                               int rounds) {
  for (int r = 0; r < rounds; ++r) {
    if (r > 0) {
      k[0] += kW0;
      k[1] += kW1;
    }
    uint64_t p0 = uint64_t(kM0) * c[0];
    uint64_t p1 = uint64_t(kM1) * c[2];
    uint32_t hi0 = uint32_t(p0 >> 32), lo0 = uint32_t(p0);
    uint32_t hi1 = uint32_t(p1 >> 32), lo1 = uint32_t(p1);
    c = {hi1 ^ c[1] ^ k[0], lo1, hi0 ^ c[3] ^ k[1], lo0};
  }
  return c;
}

PhiloxCounter mlir::fusion::interp::philoxBlock(uint64_t seed, uint64_t offset,
                                                uint64_t i) {
  uint64_t block = i / 4;
  return philox4x32({uint32_t(block), uint32_t(block >> 32), uint32_t(offset),
                     uint32_t(offset >> 32)},
                    {uint32_t(seed), uint32_t(seed >> 32)});
}

/// Significand bits a uniform sample of `dtype` keeps, so that every sample
/// is exactly representable and below 1 (24 bits would round up to 1.0 in
/// f16 or bf16).
static int uniformBits(DType dtype) {
  switch (dtype) {
  case DType::F16:
    return 11;
  case DType::BF16:
    return 8;
  case DType::F8E4M3FN:
    return 4;
  case DType::F8E5M2:
    return 3;
  default:
    return 24;
  }
}

double mlir::fusion::interp::randUniform(uint64_t seed, uint64_t offset,
                                         uint64_t i, DType dtype) {
  uint32_t word = philoxBlock(seed, offset, i)[i % 4];
  int bits = uniformBits(dtype);
  return std::ldexp(double(word >> (32 - bits)), -bits);
}

double mlir::fusion::interp::randNormal(uint64_t seed, uint64_t offset,
                                        uint64_t i) {
  PhiloxCounter words = philoxBlock(seed, offset, i);
  // Elements 4k and 4k+1 share words 0 and 1, 4k+2 and 4k+3 words 2 and 3:
  // the cosine and the sine of one Box-Muller pair.
  unsigned pair = (i % 4) / 2;
  // u1 in (0, 1] keeps the log finite; u2 in [0, 1).
  double u1 = std::ldexp(double((words[2 * pair] >> 8) + 1), -24);
  double u2 = std::ldexp(double(words[2 * pair + 1] >> 8), -24);
  double radius = std::sqrt(-2.0 * std::log(u1));
  double angle = 2.0 * M_PI * u2;
  return (i % 2 == 0) ? radius * std::cos(angle) : radius * std::sin(angle);
}
