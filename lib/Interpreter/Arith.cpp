//===- Arith.cpp - arith ops on scalars and index values ------------------===//
// The arith ops a fusion uses to compute sizes, bounds and scalar operands.
// Integers are kept sign-extended in int64 and wrapped to their width after
// every op; index is 64 bits wide.
//===----------------------------------------------------------------------===//

#include "Internal.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "llvm/ADT/TypeSwitch.h"

#include <cmath>
#include <optional>

using namespace mlir;
using namespace mlir::fusion::interp;
using namespace mlir::fusion::interp::eval;

namespace {

unsigned widthOf(Type type) {
  if (isa<IndexType>(type))
    return 64;
  return cast<IntegerType>(type).getWidth();
}

/// Sign-extends the low `width` bits; i1 stays 0 or 1 like fusion's i1.
int64_t wrap(uint64_t v, unsigned width) {
  if (width == 64)
    return static_cast<int64_t>(v);
  if (width == 1)
    return v & 1;
  uint64_t mask = (uint64_t(1) << width) - 1;
  v &= mask;
  uint64_t signBit = uint64_t(1) << (width - 1);
  return static_cast<int64_t>((v ^ signBit) - signBit);
}

uint64_t toUnsigned(int64_t v, unsigned width) {
  if (width == 64)
    return static_cast<uint64_t>(v);
  return static_cast<uint64_t>(v) & ((uint64_t(1) << width) - 1);
}

class ArithEvaluator {
public:
  ArithEvaluator(Operation *op, Env &env) : op(op), env(env) {}

  llvm::Error run();

private:
  std::optional<llvm::Error> runInteger();
  std::optional<llvm::Error> runOther();

  const DenseValue &operand(unsigned k) { return env.get(op->getOperand(k)); }
  int64_t intOperand(unsigned k) { return operand(k).i[0]; }
  double floatOperand(unsigned k) { return operand(k).f[0]; }
  unsigned operandWidth(unsigned k) {
    return widthOf(op->getOperand(k).getType());
  }

  llvm::Error setInt(int64_t v) {
    Type type = op->getResult(0).getType();
    if (isa<IndexType>(type)) {
      env.set(op->getResult(0), DenseValue::index(v));
      return llvm::Error::success();
    }
    auto dtype = dtypeOfResult(op, type);
    if (!dtype)
      return dtype.takeError();
    DenseValue out = DenseValue::make(*dtype, {}, DenseValue::Kind::Scalar);
    out.i[0] = wrap(static_cast<uint64_t>(v), widthOf(type));
    env.set(op->getResult(0), std::move(out));
    return llvm::Error::success();
  }

  llvm::Error setFloat(double v) {
    auto dtype = dtypeOfResult(op, op->getResult(0).getType());
    if (!dtype)
      return dtype.takeError();
    DenseValue out = DenseValue::make(*dtype, {}, DenseValue::Kind::Scalar);
    out.f[0] = roundToDType(v, *dtype);
    env.set(op->getResult(0), std::move(out));
    return llvm::Error::success();
  }

  /// Applies `fn` to the two integer operands, wrapping to the width.
  template <typename Fn> llvm::Error binaryInt(Fn fn) {
    unsigned width = operandWidth(0);
    return setInt(wrap(fn(intOperand(0), intOperand(1), width), width));
  }

  llvm::Error divisionByZero() { return opError(op, "division by zero"); }

  llvm::Error constant(arith::ConstantOp c);
  llvm::Error compareInt(arith::CmpIOp cmp);
  llvm::Error compareFloat(arith::CmpFOp cmp);

  Operation *op;
  Env &env;
};

} // namespace

llvm::Error ArithEvaluator::constant(arith::ConstantOp c) {
  Attribute value = c.getValue();
  Type type = c.getType();
  if (auto integer = dyn_cast<IntegerAttr>(value)) {
    if (isa<IndexType>(type))
      return setInt(integer.getInt());
    return setInt(integer.getValue().getBitWidth() == 1
                      ? int64_t(integer.getValue().getZExtValue())
                      : integer.getValue().getSExtValue());
  }
  if (auto fp = dyn_cast<FloatAttr>(value))
    return setFloat(fp.getValueAsDouble());
  auto dense = dyn_cast<DenseElementsAttr>(value);
  auto tensorType = dyn_cast<RankedTensorType>(type);
  if (!dense || !tensorType)
    return opError(op, "only integer, float and dense tensor constants are "
                       "supported");
  auto dtype = dtypeOfResult(op, type);
  if (!dtype)
    return dtype.takeError();
  DenseValue out = DenseValue::make(*dtype, tensorType.getShape());
  if (out.isFloat()) {
    int64_t k = 0;
    for (APFloat element : dense.getValues<APFloat>()) {
      bool lost;
      element.convert(llvm::APFloat::IEEEdouble(),
                      llvm::APFloat::rmNearestTiesToEven, &lost);
      out.f[k++] = element.convertToDouble();
    }
  } else {
    int64_t k = 0;
    for (APInt element : dense.getValues<APInt>())
      out.i[k++] = element.getBitWidth() == 1 ? int64_t(element.getZExtValue())
                                              : element.getSExtValue();
  }
  env.set(op->getResult(0), std::move(out));
  return llvm::Error::success();
}

llvm::Error ArithEvaluator::compareInt(arith::CmpIOp cmp) {
  unsigned width = operandWidth(0);
  int64_t a = intOperand(0), b = intOperand(1);
  uint64_t ua = toUnsigned(a, width), ub = toUnsigned(b, width);
  bool r = false;
  switch (cmp.getPredicate()) {
  case arith::CmpIPredicate::eq:
    r = a == b;
    break;
  case arith::CmpIPredicate::ne:
    r = a != b;
    break;
  case arith::CmpIPredicate::slt:
    r = a < b;
    break;
  case arith::CmpIPredicate::sle:
    r = a <= b;
    break;
  case arith::CmpIPredicate::sgt:
    r = a > b;
    break;
  case arith::CmpIPredicate::sge:
    r = a >= b;
    break;
  case arith::CmpIPredicate::ult:
    r = ua < ub;
    break;
  case arith::CmpIPredicate::ule:
    r = ua <= ub;
    break;
  case arith::CmpIPredicate::ugt:
    r = ua > ub;
    break;
  case arith::CmpIPredicate::uge:
    r = ua >= ub;
    break;
  }
  return setInt(r);
}

llvm::Error ArithEvaluator::compareFloat(arith::CmpFOp cmp) {
  double a = floatOperand(0), b = floatOperand(1);
  bool unordered = std::isnan(a) || std::isnan(b);
  bool r = false;
  using P = arith::CmpFPredicate;
  switch (cmp.getPredicate()) {
  case P::AlwaysFalse:
    r = false;
    break;
  case P::OEQ:
    r = !unordered && a == b;
    break;
  case P::OGT:
    r = !unordered && a > b;
    break;
  case P::OGE:
    r = !unordered && a >= b;
    break;
  case P::OLT:
    r = !unordered && a < b;
    break;
  case P::OLE:
    r = !unordered && a <= b;
    break;
  case P::ONE:
    r = !unordered && a != b;
    break;
  case P::ORD:
    r = !unordered;
    break;
  case P::UEQ:
    r = unordered || a == b;
    break;
  case P::UGT:
    r = unordered || a > b;
    break;
  case P::UGE:
    r = unordered || a >= b;
    break;
  case P::ULT:
    r = unordered || a < b;
    break;
  case P::ULE:
    r = unordered || a <= b;
    break;
  case P::UNE:
    r = unordered || a != b;
    break;
  case P::UNO:
    r = unordered;
    break;
  case P::AlwaysTrue:
    r = true;
    break;
  }
  return setInt(r);
}

static uint64_t shiftLeft(int64_t a, int64_t b, unsigned width) {
  return (b < 0 || uint64_t(b) >= width) ? 0 : uint64_t(a) << b;
}

llvm::Error ArithEvaluator::run() {
  if (auto c = dyn_cast<arith::ConstantOp>(op))
    return constant(c);
  for (mlir::Value v : op->getOperands())
    if (env.get(v).isTensor())
      return opError(op, "arith ops on tensors are not supported; use the "
                         "fusion ops");
  auto needsDivisor =
      isa<arith::DivSIOp, arith::DivUIOp, arith::RemSIOp, arith::RemUIOp,
          arith::CeilDivSIOp, arith::FloorDivSIOp, arith::CeilDivUIOp>(op);
  if (needsDivisor && intOperand(1) == 0)
    return divisionByZero();

  for (auto group : {&ArithEvaluator::runInteger, &ArithEvaluator::runOther})
    if (std::optional<llvm::Error> result = (this->*group)())
      return std::move(*result);
  return opError(op, "is not supported by the interpreter");
}

/// Integer arithmetic, bitwise and shift ops.
std::optional<llvm::Error> ArithEvaluator::runInteger() {
  auto add = [](int64_t a, int64_t b, unsigned) {
    return uint64_t(a) + uint64_t(b);
  };
  auto sub = [](int64_t a, int64_t b, unsigned) {
    return uint64_t(a) - uint64_t(b);
  };
  auto mul = [](int64_t a, int64_t b, unsigned) {
    return uint64_t(a) * uint64_t(b);
  };
  // Signed division helpers on values already sign-extended; INT64_MIN / -1
  // is the one overflowing case and wraps.
  auto divTrunc = [](int64_t a, int64_t b) -> int64_t {
    if (b == -1)
      return int64_t(0 - uint64_t(a));
    return a / b;
  };
  auto remTrunc = [](int64_t a, int64_t b) -> int64_t {
    return b == -1 ? 0 : a % b;
  };
  auto floorDiv = [&](int64_t a, int64_t b) -> int64_t {
    int64_t q = divTrunc(a, b);
    return (remTrunc(a, b) != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
  };
  auto ceilDiv = [&](int64_t a, int64_t b) -> int64_t {
    int64_t q = divTrunc(a, b);
    return (remTrunc(a, b) != 0 && ((a < 0) == (b < 0))) ? q + 1 : q;
  };
  return llvm::TypeSwitch<Operation *, std::optional<llvm::Error>>(op)
      .Case([&](arith::AddIOp) { return binaryInt(add); })
      .Case([&](arith::SubIOp) { return binaryInt(sub); })
      .Case([&](arith::MulIOp) { return binaryInt(mul); })
      .Case([&](arith::DivSIOp) {
        return binaryInt([&](int64_t a, int64_t b, unsigned) {
          return uint64_t(divTrunc(a, b));
        });
      })
      .Case([&](arith::RemSIOp) {
        return binaryInt([&](int64_t a, int64_t b, unsigned) {
          return uint64_t(remTrunc(a, b));
        });
      })
      .Case([&](arith::FloorDivSIOp) {
        return binaryInt([&](int64_t a, int64_t b, unsigned) {
          return uint64_t(floorDiv(a, b));
        });
      })
      .Case([&](arith::CeilDivSIOp) {
        return binaryInt([&](int64_t a, int64_t b, unsigned) {
          return uint64_t(ceilDiv(a, b));
        });
      })
      .Case([&](arith::DivUIOp) {
        return binaryInt([](int64_t a, int64_t b, unsigned w) {
          return toUnsigned(a, w) / toUnsigned(b, w);
        });
      })
      .Case([&](arith::RemUIOp) {
        return binaryInt([](int64_t a, int64_t b, unsigned w) {
          return toUnsigned(a, w) % toUnsigned(b, w);
        });
      })
      .Case([&](arith::CeilDivUIOp) {
        return binaryInt([](int64_t a, int64_t b, unsigned w) {
          uint64_t ua = toUnsigned(a, w), ub = toUnsigned(b, w);
          return ua / ub + (ua % ub != 0);
        });
      })
      .Case([&](arith::MinSIOp) {
        return binaryInt([](int64_t a, int64_t b, unsigned) {
          return uint64_t(std::min(a, b));
        });
      })
      .Case([&](arith::MaxSIOp) {
        return binaryInt([](int64_t a, int64_t b, unsigned) {
          return uint64_t(std::max(a, b));
        });
      })
      .Case([&](arith::MinUIOp) {
        return binaryInt([](int64_t a, int64_t b, unsigned w) {
          return std::min(toUnsigned(a, w), toUnsigned(b, w));
        });
      })
      .Case([&](arith::MaxUIOp) {
        return binaryInt([](int64_t a, int64_t b, unsigned w) {
          return std::max(toUnsigned(a, w), toUnsigned(b, w));
        });
      })
      .Case([&](arith::AndIOp) {
        return binaryInt(
            [](int64_t a, int64_t b, unsigned) { return uint64_t(a & b); });
      })
      .Case([&](arith::OrIOp) {
        return binaryInt(
            [](int64_t a, int64_t b, unsigned) { return uint64_t(a | b); });
      })
      .Case([&](arith::XOrIOp) {
        return binaryInt(
            [](int64_t a, int64_t b, unsigned) { return uint64_t(a ^ b); });
      })
      // Shifts by the width or more are poison in arith; give 0 (or the
      // sign for shrsi), as fusion.shift_left/shift_right define.
      .Case([&](arith::ShLIOp) { return binaryInt(shiftLeft); })
      .Case([&](arith::ShRUIOp) {
        return binaryInt([](int64_t a, int64_t b, unsigned w) {
          return (b < 0 || uint64_t(b) >= w) ? 0 : toUnsigned(a, w) >> b;
        });
      })
      .Case([&](arith::ShRSIOp) {
        return binaryInt([](int64_t a, int64_t b, unsigned w) {
          if (b < 0 || uint64_t(b) >= w)
            return uint64_t(a < 0 ? -1 : 0);
          return uint64_t(a >> b);
        });
      })
      .Default([&](Operation *) -> std::optional<llvm::Error> {
        return std::nullopt;
      });
}

/// Casts, float arithmetic, comparisons and select.
std::optional<llvm::Error> ArithEvaluator::runOther() {
  return llvm::TypeSwitch<Operation *, std::optional<llvm::Error>>(op)
      .Case([&](arith::IndexCastOp) { return setInt(intOperand(0)); })
      .Case([&](arith::ExtSIOp) { return setInt(intOperand(0)); })
      .Case([&](arith::TruncIOp) { return setInt(intOperand(0)); })
      .Case<arith::IndexCastUIOp, arith::ExtUIOp>([&](auto) {
        return setInt(int64_t(toUnsigned(intOperand(0), operandWidth(0))));
      })
      .Case([&](arith::SIToFPOp) {
        auto dtype = dtypeOfResult(op, op->getResult(0).getType());
        if (!dtype)
          return dtype.takeError();
        return setFloat(intToFloat(intOperand(0), *dtype));
      })
      .Case([&](arith::UIToFPOp) {
        return setFloat(
            static_cast<double>(toUnsigned(intOperand(0), operandWidth(0))));
      })
      .Case([&](arith::FPToSIOp) {
        unsigned width = widthOf(op->getResult(0).getType());
        double v = std::trunc(floatOperand(0));
        double lo = -std::ldexp(1.0, width - 1);
        if (std::isnan(v))
          return setInt(0);
        if (v <= lo)
          return setInt(static_cast<int64_t>(lo));
        if (v >= -lo)
          return setInt(int64_t((uint64_t(1) << (width - 1)) - 1));
        return setInt(static_cast<int64_t>(v));
      })
      .Case([&](arith::FPToUIOp) {
        unsigned width = widthOf(op->getResult(0).getType());
        double v = std::trunc(floatOperand(0));
        double hi = std::ldexp(1.0, width);
        if (std::isnan(v) || v <= 0)
          return setInt(0);
        if (v >= hi)
          return setInt(int64_t(~uint64_t(0)));
        return setInt(int64_t(static_cast<uint64_t>(v)));
      })
      .Case<arith::ExtFOp, arith::TruncFOp>(
          [&](auto) { return setFloat(floatOperand(0)); })
      .Case([&](arith::AddFOp) {
        return setFloat(floatOperand(0) + floatOperand(1));
      })
      .Case([&](arith::SubFOp) {
        return setFloat(floatOperand(0) - floatOperand(1));
      })
      .Case([&](arith::MulFOp) {
        return setFloat(floatOperand(0) * floatOperand(1));
      })
      .Case([&](arith::DivFOp) {
        return setFloat(floatOperand(0) / floatOperand(1));
      })
      .Case([&](arith::RemFOp) {
        return setFloat(std::fmod(floatOperand(0), floatOperand(1)));
      })
      .Case([&](arith::NegFOp) { return setFloat(-floatOperand(0)); })
      .Case([&](arith::MaximumFOp) {
        double a = floatOperand(0), b = floatOperand(1);
        return setFloat(std::isnan(a) || std::isnan(b) ? NAN : std::fmax(a, b));
      })
      .Case([&](arith::MinimumFOp) {
        double a = floatOperand(0), b = floatOperand(1);
        return setFloat(std::isnan(a) || std::isnan(b) ? NAN : std::fmin(a, b));
      })
      .Case([&](arith::MaxNumFOp) {
        return setFloat(std::fmax(floatOperand(0), floatOperand(1)));
      })
      .Case([&](arith::MinNumFOp) {
        return setFloat(std::fmin(floatOperand(0), floatOperand(1)));
      })
      .Case([&](arith::CmpIOp cmp) { return compareInt(cmp); })
      .Case([&](arith::CmpFOp cmp) { return compareFloat(cmp); })
      .Case([&](arith::SelectOp) {
        DenseValue out = operand(intOperand(0) ? 1 : 2);
        env.set(op->getResult(0), std::move(out));
        return llvm::Error::success();
      })
      .Default([&](Operation *) -> std::optional<llvm::Error> {
        return std::nullopt;
      });
}

llvm::Error eval::evalArith(Operation *op, Env &env, bool &handled) {
  if (!isa<arith::ArithDialect>(op->getDialect()))
    return llvm::Error::success();
  handled = true;
  return ArithEvaluator(op, env).run();
}
