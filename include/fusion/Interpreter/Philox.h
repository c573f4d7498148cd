//===- Philox.h - counter-based random numbers ------------------*- C++ -*-===//
// Philox-4x32-10 and the recipes of fusion.rand and fusion.randn, bit for bit
// as docs/random.md specifies them for kernels.
//===----------------------------------------------------------------------===//
#ifndef FUSION_INTERPRETER_PHILOX_H
#define FUSION_INTERPRETER_PHILOX_H

#include "fusion/Interpreter/HostTensor.h"

#include <array>
#include <cstdint>

namespace mlir::fusion::interp {

using PhiloxCounter = std::array<uint32_t, 4>;
using PhiloxKey = std::array<uint32_t, 2>;

/// The Philox-4x32 block function with `rounds` rounds (10 for Philox-4x32-10,
/// the Random123 reference algorithm).
PhiloxCounter philox4x32(PhiloxCounter counter, PhiloxKey key, int rounds = 10);

/// The four words of the block holding element `i`: key (seed lo, seed hi),
/// counter (i/4 lo, i/4 hi, offset lo, offset hi).
PhiloxCounter philoxBlock(uint64_t seed, uint64_t offset, uint64_t i);

/// Element `i` of `fusion.rand` of float dtype `dtype`: uniform in [0, 1),
/// a multiple of 2^-p (p = 24 for f32 and f64, 11 for f16, 8 for bf16, 4 for
/// f8E4M3FN, 3 for f8E5M2).
double randUniform(uint64_t seed, uint64_t offset, uint64_t i, DType dtype);
/// Element `i` of `fusion.randn` (before rounding to its dtype): standard
/// normal by Box-Muller.
double randNormal(uint64_t seed, uint64_t offset, uint64_t i);

} // namespace mlir::fusion::interp

#endif // FUSION_INTERPRETER_PHILOX_H
