//===- Casts.cpp - casts between element types ----------------------------===//
// Casts of the element-wise generator, accumulator widening, and the fp8
// codecs (LLVM has no fp8 types).
//===----------------------------------------------------------------------===//

#include "KernelEmitter.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::fusion;

namespace mlir::fusion::lowering {

Value KernelEmitter::widenToAccumulator(Value x, Type target, bool isFloat) {
  OpBuilder &b = *builder;
  Type from = getElementTypeOrSelf(x.getType());
  if (isFp8(from))
    return emitFp8Cast(x, from, getElementTypeOrSelf(target),
                       shapedLike(x.getType()));
  return isFloat ? extendFloat(x, target)
                 : arith::ExtSIOp::create(b, loc, target, x).getResult();
}

// Note [bf16 pairs widened as bits]: a bf16 is the high half of the f32 it
// widens to, and ptxas widens one with a bit operation, but an element in
// the high half of a loaded word took two (`cvt.f32.bf16` became a PRMT
// moving it down and a shift back up). Widening a vector of pairs as words
// instead, the low element a shift (`w << 16`) and the high one a mask (`w
// & 0xffff0000`), takes one each for the same bits, NaNs included. Used
// where the f32 values stay f32 (explicit casts, reduction inputs); the
// element-wise generator's own widening of 16-bit math (extend, compute,
// round) keeps arith.extf, which LLVM narrows to packed bf16 math where that
// rounds the same (RoPE's multiplies: 112 SASS instructions, 176 as bits).
// Only for vectors that lie in registers as loaded: one assembled element
// by element (rounded, selected, shuffled) would be packed into words first.
// With Note [Float sums from -0], a 16384-element layer_norm row's staged
// variant (`_pv8`, five widenings per element: the row in three passes,
// weight, bias) went from 802 to 667 SASS instructions per thread and row
// in its row loop (sm_90a, ptxas of CUDA 13), and layer_norm's module PTX
// from 411,530 to 382,126 bytes.
Value KernelEmitter::extendFloat(Value v, Type target) {
  OpBuilder &b = *builder;
  auto vt = dyn_cast<VectorType>(v.getType());
  if (!vt || vt.getRank() != 1 || vt.isScalable() ||
      vt.getNumElements() % 2 != 0 || !vt.getElementType().isBF16() ||
      !getElementTypeOrSelf(target).isF32())
    return arith::ExtFOp::create(b, loc, target, v);
  // A splat widens its one element.
  if (auto splat = v.getDefiningOp<vector::BroadcastOp>();
      splat && !isa<VectorType>(splat.getSource().getType()))
    return vector::BroadcastOp::create(
        b, loc, target,
        arith::ExtFOp::create(b, loc, getElementTypeOrSelf(target),
                              splat.getSource()));
  // Only a vector that lies in registers as loaded (memory words, also
  // through block arguments and scf.if); one assembled element by element
  // (rounded from f32, selected, shuffled) would be packed into words first.
  if (isa_and_present<arith::TruncFOp, arith::SelectOp, vector::FromElementsOp,
                      vector::ShuffleOp, vector::InsertOp,
                      vector::InsertStridedSliceOp>(v.getDefiningOp()))
    return arith::ExtFOp::create(b, loc, target, v);
  int64_t pairs = vt.getNumElements() / 2;
  auto words = VectorType::get({pairs}, b.getI32Type());
  auto floats = VectorType::get({pairs}, b.getF32Type());
  Value w = vector::BitCastOp::create(b, loc, words, v);
  Value low = arith::BitcastOp::create(
      b, loc, floats, arith::ShLIOp::create(b, loc, w, intConst(words, 16)));
  Value high = arith::BitcastOp::create(
      b, loc, floats,
      arith::AndIOp::create(
          b, loc, w, intConst(words, static_cast<int32_t>(0xffff0000u))));
  SmallVector<int64_t> order;
  for (int64_t k = 0; k < pairs; ++k) {
    order.push_back(k);
    order.push_back(pairs + k);
  }
  return vector::ShuffleOp::create(b, loc, low, high, order);
}

Value KernelEmitter::narrowFromAccumulator(Value acc, Type target,
                                           bool isFloat) {
  OpBuilder &b = *builder;
  Type to = getElementTypeOrSelf(target);
  if (isFp8(to))
    return emitFp8Cast(acc, getElementTypeOrSelf(acc.getType()), to,
                       shapedLike(acc.getType()));
  return isFloat ? arith::TruncFOp::create(b, loc, target, acc).getResult()
                 : arith::TruncIOp::create(b, loc, target, acc).getResult();
}

std::function<Type(Type)> KernelEmitter::shapedLike(Type like) {
  return [like](Type element) -> Type {
    if (auto vt = dyn_cast<VectorType>(like))
      return VectorType::get(vt.getShape(), element);
    return element;
  };
}

Value KernelEmitter::emitCast(Value v, Type from, Type to,
                              function_ref<Type(Type)> shaped) {
  OpBuilder &b = *builder;
  Type target = shaped(to);
  if (from == to)
    return v;
  if (to.isInteger(1)) {
    if (isa<FloatType>(from))
      return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNE, v,
                                   zero(v.getType()));
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, v,
                                 zero(v.getType()));
  }
  bool fromFloat = isa<FloatType>(from), toFloat = isa<FloatType>(to);
  if (fromFloat && toFloat) {
    if (from.getIntOrFloatBitWidth() < to.getIntOrFloatBitWidth())
      return extendFloat(v, target);
    // bf16 <-> f16 have the same width: go through f32.
    if (from.getIntOrFloatBitWidth() == to.getIntOrFloatBitWidth())
      v = arith::ExtFOp::create(b, loc, shaped(b.getF32Type()), v);
    return arith::TruncFOp::create(b, loc, target, v);
  }
  if (!fromFloat && toFloat) {
    if (from.isInteger(1))
      return arith::UIToFPOp::create(b, loc, target, v);
    return arith::SIToFPOp::create(b, loc, target, v);
  }
  if (fromFloat && !toFloat) {
    // NaN converts to 0 (PTX's cvt.rzi does that; LLVM calls it poison).
    Value isNan =
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, v, v);
    v = arith::SelectOp::create(b, loc, isNan, zero(v.getType()), v);
    return arith::FPToSIOp::create(b, loc, target, v);
  }
  unsigned fw = from.getIntOrFloatBitWidth(), tw = to.getIntOrFloatBitWidth();
  if (fw < tw)
    return from.isInteger(1)
               ? arith::ExtUIOp::create(b, loc, target, v).getResult()
               : arith::ExtSIOp::create(b, loc, target, v).getResult();
  return arith::TruncIOp::create(b, loc, target, v);
}

KernelEmitter::Fp8Format KernelEmitter::fp8Format(Type t) {
  if (isa<Float8E4M3FNType>(t))
    return {3, 7, false};
  return {2, 15, true};
}

Value KernelEmitter::decodeFp8(Value v, Type from,
                               function_ref<Type(Type)> shaped) {
  OpBuilder &b = *builder;
  Fp8Format f = fp8Format(from);
  int m = f.mantBits;
  Type i32 = shaped(b.getI32Type()), f32 = shaped(b.getF32Type());
  auto c = [&](int64_t k) { return intConst(i32, k); };
  Value byte = arith::BitcastOp::create(b, loc, shaped(b.getI8Type()), v);
  Value x = arith::ExtUIOp::create(b, loc, i32, byte);
  Value sign = arith::ShLIOp::create(
      b, loc, arith::AndIOp::create(b, loc, x, c(0x80)), c(24));
  Value mag = arith::AndIOp::create(b, loc, x, c(0x7F));
  Value mant = arith::AndIOp::create(b, loc, mag, c((1 << m) - 1));
  // Normal: the fields move into place and the exponent is rebiased.
  Value normal = arith::AddIOp::create(
      b, loc, arith::ShLIOp::create(b, loc, mag, c(23 - m)),
      c(int64_t(127 - f.bias) << 23));
  // Subnormal (exponent 0, or zero): mant * 2^(1 - bias - m), a normal
  // f32 (or zero) computed exactly.
  Value sub = arith::BitcastOp::create(
      b, loc, i32,
      arith::MulFOp::create(b, loc, arith::UIToFPOp::create(b, loc, f32, mant),
                            floatConst(f32, std::ldexp(1.0, 1 - f.bias - m))));
  Value isSub =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, mag, c(1 << m));
  Value special, specialBits;
  if (f.hasInf) {
    special = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge, mag,
                                    c(f.infOrNan()));
    specialBits = arith::OrIOp::create(
        b, loc, arith::ShLIOp::create(b, loc, mant, c(23 - m)), c(0x7F800000));
  } else {
    special = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, mag,
                                    c(f.nan()));
    specialBits = c(0x7FC00000);
  }
  Value bits = arith::SelectOp::create(
      b, loc, isSub, sub,
      arith::SelectOp::create(b, loc, special, specialBits, normal));
  return arith::BitcastOp::create(b, loc, f32,
                                  arith::OrIOp::create(b, loc, bits, sign));
}

Value KernelEmitter::encodeFp8(Value v, Type to,
                               function_ref<Type(Type)> shaped) {
  OpBuilder &b = *builder;
  using IP = arith::CmpIPredicate;
  Fp8Format f = fp8Format(to);
  Type from = getElementTypeOrSelf(v.getType());
  if (!from.isF64() && !from.isF32())
    v = extendFloat(v, shaped(b.getF32Type()));
  bool wide = from.isF64();
  if (hardwareFp8 && !wide)
    return encodeFp8Hardware(v, to, shaped);
  const int width = wide ? 64 : 32, p = wide ? 52 : 23,
            srcBias = wide ? 1023 : 127, m = f.mantBits;
  Type iw = shaped(b.getIntegerType(width));
  auto c = [&](int64_t k) { return intConst(iw, k); };
  auto cmp = [&](IP pred, Value l, Value r) -> Value {
    return arith::CmpIOp::create(b, loc, pred, l, r);
  };
  Value bits = arith::BitcastOp::create(b, loc, iw, v);
  Value sign = arith::ShRUIOp::create(b, loc, bits, c(width - 1));
  Value abs = arith::AndIOp::create(
      b, loc, bits, c(int64_t((uint64_t(1) << (width - 1)) - 1)));
  Value expField = arith::ShRUIOp::create(b, loc, abs, c(p));
  // Normal range: round the significand to m bits, ties to even (a carry
  // moves into the exponent), then rebias.
  Value lsb = arith::AndIOp::create(
      b, loc, arith::ShRUIOp::create(b, loc, abs, c(p - m)), c(1));
  Value rounded = arith::AddIOp::create(
      b, loc, abs,
      arith::AddIOp::create(b, loc, lsb, c((int64_t(1) << (p - m - 1)) - 1)));
  Value normal = arith::SubIOp::create(
      b, loc, arith::ShRUIOp::create(b, loc, rounded, c(p - m)),
      c(int64_t(srcBias - f.bias) << m));
  // Below the smallest normal: shift the significand (with its implicit
  // bit) to the subnormal quantum, ties to even; rounding up to 2^m lands
  // on the smallest normal. The shift is clamped to [1, width - 1] (the
  // lanes that take the normal path may compute any shift; anything
  // shifted by more than p + 2 rounds to zero anyway).
  Value sig = arith::OrIOp::create(
      b, loc, arith::AndIOp::create(b, loc, abs, c((int64_t(1) << p) - 1)),
      c(int64_t(1) << p));
  Value shift =
      arith::SubIOp::create(b, loc, c(srcBias + p + 1 - f.bias - m), expField);
  shift = arith::MinUIOp::create(
      b, loc, arith::MaxUIOp::create(b, loc, shift, c(1)), c(width - 1));
  Value q = arith::ShRUIOp::create(b, loc, sig, shift);
  Value rem = arith::AndIOp::create(
      b, loc, sig,
      arith::SubIOp::create(b, loc, arith::ShLIOp::create(b, loc, c(1), shift),
                            c(1)));
  Value half = arith::ShLIOp::create(
      b, loc, c(1), arith::SubIOp::create(b, loc, shift, c(1)));
  Value odd = cmp(IP::ne, arith::AndIOp::create(b, loc, q, c(1)), c(0));
  Value up = arith::OrIOp::create(
      b, loc, cmp(IP::ugt, rem, half),
      arith::AndIOp::create(b, loc, cmp(IP::eq, rem, half), odd));
  Value sub =
      arith::AddIOp::create(b, loc, q, arith::ExtUIOp::create(b, loc, iw, up));
  Value isSub = cmp(IP::ult, expField, c(srcBias + 1 - f.bias));
  Value mag = arith::SelectOp::create(b, loc, isSub, sub, normal);
  // Beyond the largest finite value (inf and NaN included): inf for e5m2,
  // NaN for e4m3fn; NaN stays NaN.
  mag = arith::SelectOp::create(b, loc, cmp(IP::ugt, mag, c(f.maxFinite())),
                                c(f.infOrNan()), mag);
  if (f.hasInf) {
    int64_t inf = int64_t((uint64_t(1) << (width - 1)) -
                          (uint64_t(1) << p)); // exponent all ones
    mag = arith::SelectOp::create(b, loc, cmp(IP::ugt, abs, c(inf)), c(f.nan()),
                                  mag);
  }
  Type i8 = shaped(b.getI8Type());
  Value byte = arith::OrIOp::create(
      b, loc, arith::TruncIOp::create(b, loc, i8, mag),
      arith::ShLIOp::create(b, loc, arith::TruncIOp::create(b, loc, i8, sign),
                            intConst(i8, 7)));
  return arith::BitcastOp::create(b, loc, shaped(to), byte);
}

// Note [Hardware fp8 conversion]: sm_89 and later convert two f32 values
// to e4m3fn or e5m2 in one instruction (cvt.rn.satfinite.{e4m3x2,e5m2x2}.f32,
// NVVM's convert.f32x2.to.f8x2), rounding to nearest even as encodeFp8 does;
// the integer encoder costs about 40 instructions per element and made an
// fp8 cast after rmsnorm compute-bound. The instruction only exists in the
// saturating form, so where it differs from the interpreter's rules
// (docs/interpreter.md, casts) the result is replaced afterwards:
// - e4m3fn: |x| > 464 (the midpoint between 448, the largest finite value,
//   and 480, where ties to even would round up) and inf give NaN, not 448;
// - e5m2: |x| >= 61440 (the midpoint between 57344 and 2^16, a tie that
//   rounds to the even 2^16) and inf give inf, not 57344;
// - NaN gives the format's NaN with the input's sign (the hardware's NaN
//   has no sign).
// Those lanes are found on the magnitude's bits, and replacing bytes lane by
// lane costs more than the conversion itself, so a vector takes the
// replacement only when the largest magnitude among its lanes needs it (a
// warp-divergent branch that values within range never take).
// f64 sources keep the integer encoder (rounding through f32 first would
// round twice); targets before sm_89 keep it for every source.
Value KernelEmitter::encodeFp8Hardware(Value v, Type to,
                                       function_ref<Type(Type)> shaped) {
  OpBuilder &b = *builder;
  Fp8Format f = fp8Format(to);
  Type i8 = b.getI8Type(), i16 = b.getI16Type();
  auto pair = [&](Value hi, Value lo) -> Value {
    return NVVM::ConvertF32x2ToF8x2Op::create(
        b, loc, i16, hi, lo, NVVM::FPRoundingMode::RN,
        NVVM::SaturationMode::SATFINITE, /*relu=*/false, to);
  };
  // The lower byte holds the second operand's conversion: lanes i and i + 1
  // go in as (i + 1, i), so the pairs, read as one vector of i16 (widths
  // are powers of two), are the bytes in lane order.
  Value converted;
  if (auto vt = dyn_cast<VectorType>(v.getType())) {
    int64_t n = vt.getNumElements();
    assert(vt.getRank() == 1 && n % 2 == 0 && "vectors of an even width");
    SmallVector<Value> pairs;
    for (int64_t i = 0; i < n; i += 2)
      pairs.push_back(
          pair(vector::ExtractOp::create(b, loc, v, ArrayRef<int64_t>{i + 1}),
               vector::ExtractOp::create(b, loc, v, ArrayRef<int64_t>{i})));
    converted = vector::BitCastOp::create(
        b, loc, VectorType::get({n}, i8),
        vector::FromElementsOp::create(b, loc, VectorType::get({n / 2}, i16),
                                       pairs));
  } else {
    converted = arith::TruncIOp::create(b, loc, i8, pair(v, v));
  }
  // The interpreter's results where the hardware saturates, chosen on the
  // magnitude's bits (NaN's are above inf's, so one unsigned compare finds
  // both): beyond 464 for e4m3fn, from 61440 on for e5m2.
  Type i8s = shaped(i8), i32s = shaped(b.getI32Type());
  auto c32 = [&](int64_t k) { return intConst(i32s, k); };
  const int64_t lastSaturated = f.hasInf ? 0x476FFFFF  // below 61440
                                         : 0x43E80000; // 464
  auto fixed = [&]() -> Value {
    using IP = arith::CmpIPredicate;
    Value bits = arith::BitcastOp::create(b, loc, i32s, v);
    Value absBits = arith::AndIOp::create(b, loc, bits, c32(0x7FFFFFFF));
    Value special =
        arith::CmpIOp::create(b, loc, IP::ugt, absBits, c32(lastSaturated));
    Value isNan =
        arith::CmpIOp::create(b, loc, IP::ugt, absBits, c32(0x7F800000));
    Value sign = arith::AndIOp::create(
        b, loc,
        arith::TruncIOp::create(b, loc, i8s,
                                arith::ShRUIOp::create(b, loc, bits, c32(24))),
        intConst(i8s, 0x80));
    Value replacement = arith::OrIOp::create(
        b, loc,
        arith::SelectOp::create(b, loc, isNan, intConst(i8s, f.nan()),
                                intConst(i8s, f.infOrNan())),
        sign);
    return arith::SelectOp::create(b, loc, special, replacement, converted);
  };
  Value byte;
  if (!isa<VectorType>(v.getType())) {
    byte = fixed();
  } else {
    // Lane-wise selects on bytes cost more than the conversion itself
    // (each byte is unpacked, selected and packed again), so they run only
    // when some lane of the vector needs them: one max over the lanes'
    // magnitudes decides. It is a float max that keeps NaN (max.NaN, whose
    // operands' absolute values come free in SASS) with an unordered
    // compare, the same lanes as the bits' compare above at about half the
    // instructions of masking the bits and an integer max.
    Type f32 = getElementTypeOrSelf(v.getType());
    Value largest =
        vector::ReductionOp::create(b, loc, vector::CombiningKind::MAXIMUMF,
                                    math::AbsFOp::create(b, loc, v));
    Value any = arith::CmpFOp::create(
        b, loc,
        f.hasInf ? arith::CmpFPredicate::UGE : arith::CmpFPredicate::UGT,
        largest, floatConst(f32, f.hasInf ? 61440.0 : 464.0));
    auto ifOp = scf::IfOp::create(b, loc, TypeRange{i8s}, any, true);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(ifOp.thenBlock());
    scf::YieldOp::create(b, loc, fixed());
    b.setInsertionPointToStart(ifOp.elseBlock());
    scf::YieldOp::create(b, loc, converted);
    byte = ifOp.getResult(0);
  }
  return arith::BitcastOp::create(b, loc, shaped(to), byte);
}

Value KernelEmitter::emitFp8Cast(Value v, Type from, Type to,
                                 function_ref<Type(Type)> shaped) {
  OpBuilder &b = *builder;
  Type f32 = b.getF32Type();
  if (from == to)
    return v;
  if (isFp8(from)) {
    v = decodeFp8(v, from, shaped);
    from = f32;
    if (isa<IntegerType>(to) && !to.isInteger(1))
      return emitFp8ToInt(v, to, shaped);
    if (!isFp8(to))
      return emitCast(v, from, to, shaped);
  }
  if (!from.isF64() && !from.isF32()) {
    v = emitCast(v, from, f32, shaped);
    from = f32;
  }
  return encodeFp8(v, to, shaped);
}

Value KernelEmitter::emitFp8ToInt(Value v, Type to,
                                  function_ref<Type(Type)> shaped) {
  OpBuilder &b = *builder;
  using P = arith::CmpFPredicate;
  unsigned w = to.getIntOrFloatBitWidth();
  Type target = shaped(to);
  Value limit = floatConst(v.getType(), std::ldexp(1.0, w - 1));
  Value negLimit = floatConst(v.getType(), -std::ldexp(1.0, w - 1));
  Value tooBig = arith::CmpFOp::create(b, loc, P::OGE, v, limit);
  Value tooSmall = arith::CmpFOp::create(b, loc, P::OLE, v, negLimit);
  Value isNan = arith::CmpFOp::create(b, loc, P::UNO, v, v);
  Value out = arith::OrIOp::create(
      b, loc, isNan, arith::OrIOp::create(b, loc, tooBig, tooSmall));
  v = arith::SelectOp::create(b, loc, out, zero(v.getType()), v);
  Value r = arith::FPToSIOp::create(b, loc, target, v);
  int64_t max = w == 64 ? std::numeric_limits<int64_t>::max()
                        : (int64_t(1) << (w - 1)) - 1;
  r = arith::SelectOp::create(b, loc, tooBig, intConst(target, max), r);
  return arith::SelectOp::create(b, loc, tooSmall, intConst(target, -max - 1),
                                 r);
}

} // namespace mlir::fusion::lowering
