//===- FloatFormats.h - narrow float encodings ------------------*- C++ -*-===//
// Exact conversions between double and the narrow float formats the fusion
// dialect stores (f16, bf16, f8E4M3FN, f8E5M2), without MLIR or LLVM.
//===----------------------------------------------------------------------===//
#ifndef FUSION_INTERPRETER_FLOATFORMATS_H
#define FUSION_INTERPRETER_FLOATFORMATS_H

#include <cstdint>

namespace mlir::fusion::interp {

// Every encoder rounds to nearest, ties to even, from the exact double value
// (one rounding, so f32 -> f16 through double is exact too). NaN keeps its
// sign and becomes the format's canonical quiet NaN. Overflow gives inf in
// the IEEE-like formats (f16, bf16, f8E5M2); f8E4M3FN has no inf, so
// overflow and inf give NaN, as PyTorch and LLVM's APFloat do (no
// saturation; see docs/interpreter.md).

/// IEEE binary16: 1 sign, 5 exponent (bias 15), 10 mantissa bits.
uint16_t encodeF16(double value);
double decodeF16(uint16_t bits);

/// bfloat16: the upper half of an IEEE binary32.
uint16_t encodeBF16(double value);
double decodeBF16(uint16_t bits);

/// OCP FP8 E4M3FN: bias 7, no inf, NaN only as S.1111.111, max 448.
uint8_t encodeF8E4M3FN(double value);
double decodeF8E4M3FN(uint8_t bits);

/// OCP FP8 E5M2: bias 15, IEEE-like with inf and NaN, max 57344.
uint8_t encodeF8E5M2(double value);
double decodeF8E5M2(uint8_t bits);

/// The nearest f32 to `value` (ties to even), widened back to double.
double roundToF32(double value);

} // namespace mlir::fusion::interp

#endif // FUSION_INTERPRETER_FLOATFORMATS_H
