//===- Elementwise.cpp - element-wise fusion ops --------------------------===//
// Unary, binary and ternary ops, comparisons, where and cast. Each element is
// computed in double (floats) or int64 (integers) and rounded or wrapped to
// the result's dtype once.
//===----------------------------------------------------------------------===//

#include "Internal.h"

#include "llvm/ADT/TypeSwitch.h"

#include <cmath>
#include <optional>

using namespace mlir;
using namespace mlir::fusion;
using namespace mlir::fusion::interp;
using namespace mlir::fusion::interp::eval;

namespace {

double sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }

double gelu(double x, bool approximate) {
  if (approximate) {
    double inner = std::sqrt(2.0 / M_PI) * (x + 0.044715 * x * x * x);
    return 0.5 * x * (1.0 + std::tanh(inner));
  }
  return 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0)));
}

double sign(double x) {
  if (std::isnan(x))
    return x;
  return double((x > 0) - (x < 0));
}

/// The larger value, NaN if either is; +0 over -0.
double maximum(double a, double b) {
  if (std::isnan(a) || std::isnan(b))
    return NAN;
  if (a == b)
    return std::signbit(a) ? b : a;
  return a > b ? a : b;
}

double minimum(double a, double b) {
  if (std::isnan(a) || std::isnan(b))
    return NAN;
  if (a == b)
    return std::signbit(a) ? a : b;
  return a < b ? a : b;
}

/// Python's % (torch.remainder): the sign of the divisor.
double remainder(double a, double b) {
  double r = std::fmod(a, b);
  if (r != 0 && ((b < 0) != (r < 0)))
    r += b;
  return r;
}

uint64_t u(int64_t v) { return static_cast<uint64_t>(v); }

/// Integer ops that can fail set `error` to a message.
using IntBinary = int64_t (*)(int64_t, int64_t, unsigned width,
                              const char *&error);

int64_t intDiv(int64_t a, int64_t b, unsigned, const char *&error) {
  if (b == 0) {
    error = "integer division by zero";
    return 0;
  }
  return b == -1 ? int64_t(0 - u(a)) : a / b;
}

int64_t intFmod(int64_t a, int64_t b, unsigned, const char *&error) {
  if (b == 0) {
    error = "integer fmod by zero";
    return 0;
  }
  return b == -1 ? 0 : a % b;
}

int64_t intRemainder(int64_t a, int64_t b, unsigned, const char *&error) {
  if (b == 0) {
    error = "integer remainder by zero";
    return 0;
  }
  int64_t r = b == -1 ? 0 : a % b;
  if (r != 0 && ((b < 0) != (r < 0)))
    r += b;
  return r;
}

int64_t shiftLeft(int64_t a, int64_t b, unsigned width, const char *&) {
  return (b < 0 || u(b) >= width) ? 0 : int64_t(u(a) << b);
}

int64_t shiftRight(int64_t a, int64_t b, unsigned width, const char *&) {
  if (b < 0 || u(b) >= width)
    return a < 0 ? -1 : 0;
  return a >> b;
}

class ElementwiseEvaluator {
public:
  ElementwiseEvaluator(Operation *op, Env &env) : op(op), env(env) {}

  llvm::Error run();

private:
  std::optional<llvm::Error> runUnary();
  std::optional<llvm::Error> runBinary();
  std::optional<llvm::Error> runOther();

  const DenseValue &in(unsigned k) { return env.get(op->getOperand(k)); }

  /// Checks that all operands have one shape and makes the result.
  llvm::Error prepare() {
    const DenseValue &first = in(0);
    for (unsigned k = 1; k < op->getNumOperands(); ++k) {
      const DenseValue &v = in(k);
      if (v.shape != first.shape)
        return opError(op, "operand " + Twine(k) + " has shape " +
                               shapeString(v.shape) + " but operand 0 has " +
                               shapeString(first.shape) +
                               "; element-wise operands need one shape");
    }
    auto dtype = dtypeOfResult(op, op->getResult(0).getType());
    if (!dtype)
      return dtype.takeError();
    out = DenseValue::make(*dtype, first.shape, first.kind);
    return llvm::Error::success();
  }

  llvm::Error finish() {
    env.set(op->getResult(0), std::move(out));
    return llvm::Error::success();
  }

  template <typename F> llvm::Error unaryFloat(F fn) {
    if (auto err = prepare())
      return err;
    const DenseValue &x = in(0);
    for (int64_t k = 0, n = out.numel(); k < n; ++k)
      out.setDouble(k, fn(x.f[k]));
    return finish();
  }

  template <typename FF, typename FI> llvm::Error unaryNumeric(FF ff, FI fi) {
    if (auto err = prepare())
      return err;
    const DenseValue &x = in(0);
    for (int64_t k = 0, n = out.numel(); k < n; ++k) {
      if (x.isFloat())
        out.setDouble(k, ff(x.f[k]));
      else
        out.setInt(k, fi(x.i[k]));
    }
    return finish();
  }

  template <typename F> llvm::Error binaryFloat(F fn) {
    if (auto err = prepare())
      return err;
    const DenseValue &a = in(0), &b = in(1);
    for (int64_t k = 0, n = out.numel(); k < n; ++k)
      out.setDouble(k, fn(a.f[k], b.f[k]));
    return finish();
  }

  template <typename FI> llvm::Error binaryInt(FI fi) {
    if (auto err = prepare())
      return err;
    const DenseValue &a = in(0), &b = in(1);
    unsigned width = intBitWidth(a.dtype);
    for (int64_t k = 0, n = out.numel(); k < n; ++k) {
      const char *error = nullptr;
      int64_t r = fi(a.i[k], b.i[k], width, error);
      if (error)
        return opError(op, Twine(error) + " at element " + Twine(k));
      out.setInt(k, r);
    }
    return finish();
  }

  template <typename FF, typename FI> llvm::Error binaryNumeric(FF ff, FI fi) {
    if (in(0).isFloat())
      return binaryFloat(ff);
    return binaryInt(fi);
  }

  template <typename FF, typename FI> llvm::Error compare(FF ff, FI fi) {
    if (auto err = prepare())
      return err;
    const DenseValue &a = in(0), &b = in(1);
    for (int64_t k = 0, n = out.numel(); k < n; ++k)
      out.i[k] = a.isFloat() ? ff(a.f[k], b.f[k]) : fi(a.i[k], b.i[k]);
    return finish();
  }

  llvm::Error add(AddOp add);
  llvm::Error cast();
  llvm::Error where();
  llvm::Error clamp();
  llvm::Error predicate(bool (*test)(double));

  Operation *op;
  Env &env;
  DenseValue out;
};

} // namespace

llvm::Error ElementwiseEvaluator::add(AddOp addOp) {
  std::optional<double> alpha;
  if (auto attr = addOp.getAlpha())
    alpha = attr->convertToDouble();
  if (in(0).isFloat()) {
    DType dtype = in(0).dtype;
    // "The product is computed in the element type": it rounds before the
    // sum does.
    return binaryFloat([&](double a, double b) {
      return a + (alpha ? roundToDType(*alpha * b, dtype) : b);
    });
  }
  int64_t scale = 1;
  if (alpha) {
    if (*alpha != std::trunc(*alpha))
      return opError(op, "alpha " + Twine(formatFloat(*alpha, DType::F64)) +
                             " is not an integer, as an integer add needs");
    scale = static_cast<int64_t>(*alpha);
  }
  if (auto err = prepare())
    return err;
  const DenseValue &a = in(0), &b = in(1);
  for (int64_t k = 0, n = out.numel(); k < n; ++k)
    out.setInt(k, int64_t(u(a.i[k]) + u(b.i[k]) * u(scale)));
  return finish();
}

llvm::Error ElementwiseEvaluator::cast() {
  if (auto err = prepare())
    return err;
  const DenseValue &x = in(0);
  for (int64_t k = 0, n = out.numel(); k < n; ++k) {
    // setDouble and setInt implement the conversions: rounding between
    // floats, truncation (saturating, NaN -> 0) to integers, != 0 to i1,
    // wrapping between integers.
    if (x.isFloat())
      out.setDouble(k, x.f[k]);
    else
      out.setInt(k, x.i[k]);
  }
  return finish();
}

llvm::Error ElementwiseEvaluator::where() {
  if (auto err = prepare())
    return err;
  const DenseValue &cond = in(0), &a = in(1), &b = in(2);
  for (int64_t k = 0, n = out.numel(); k < n; ++k)
    out.copyFrom(k, cond.i[k] ? a : b, k);
  return finish();
}

llvm::Error ElementwiseEvaluator::clamp() {
  if (auto err = prepare())
    return err;
  const DenseValue &x = in(0), &lo = in(1), &hi = in(2);
  for (int64_t k = 0, n = out.numel(); k < n; ++k) {
    if (x.isFloat())
      out.setDouble(k, minimum(maximum(x.f[k], lo.f[k]), hi.f[k]));
    else
      out.setInt(k, std::min(std::max(x.i[k], lo.i[k]), hi.i[k]));
  }
  return finish();
}

llvm::Error ElementwiseEvaluator::predicate(bool (*test)(double)) {
  if (auto err = prepare())
    return err;
  const DenseValue &x = in(0);
  for (int64_t k = 0, n = out.numel(); k < n; ++k)
    out.i[k] = test(x.f[k]);
  return finish();
}

// The ops in three groups (none is empty when `op` is in its group).
llvm::Error ElementwiseEvaluator::run() {
  for (auto group :
       {&ElementwiseEvaluator::runUnary, &ElementwiseEvaluator::runBinary,
        &ElementwiseEvaluator::runOther})
    if (std::optional<llvm::Error> result = (this->*group)())
      return std::move(*result);
  return opError(op, "is not supported by the interpreter");
}

/// Unary ops (set, math, rounding, bitwise and logical not, predicates).
std::optional<llvm::Error> ElementwiseEvaluator::runUnary() {
  return llvm::TypeSwitch<Operation *, std::optional<llvm::Error>>(op)
      .Case([&](SetOp) -> llvm::Error {
        if (auto err = prepare())
          return err;
        const DenseValue &x = in(0);
        for (int64_t k = 0, n = out.numel(); k < n; ++k) {
          if (out.isFloat())
            out.f[k] = x.f[k];
          else
            out.i[k] = x.i[k];
        }
        return finish();
      })
      .Case([&](NegOp) {
        return unaryNumeric([](double x) { return -x; },
                            [](int64_t x) { return int64_t(0 - u(x)); });
      })
      .Case([&](AbsOp) {
        return unaryNumeric(
            [](double x) { return std::fabs(x); },
            [](int64_t x) { return x < 0 ? int64_t(0 - u(x)) : x; });
      })
      .Case([&](ReluOp) {
        return unaryNumeric(
            [](double x) { return std::isnan(x) ? x : (x > 0 ? x : 0.0); },
            [](int64_t x) { return std::max<int64_t>(x, 0); });
      })
      .Case([&](SignOp) {
        return unaryNumeric(
            sign, [](int64_t x) { return int64_t((x > 0) - (x < 0)); });
      })
      .Case([&](ExpOp) {
        return unaryFloat([](double x) { return std::exp(x); });
      })
      .Case([&](Exp2Op) {
        return unaryFloat([](double x) { return std::exp2(x); });
      })
      .Case([&](Expm1Op) {
        return unaryFloat([](double x) { return std::expm1(x); });
      })
      .Case([&](LogOp) {
        return unaryFloat([](double x) { return std::log(x); });
      })
      .Case([&](Log2Op) {
        return unaryFloat([](double x) { return std::log2(x); });
      })
      .Case([&](Log1pOp) {
        return unaryFloat([](double x) { return std::log1p(x); });
      })
      .Case([&](SqrtOp) {
        return unaryFloat([](double x) { return std::sqrt(x); });
      })
      .Case([&](RsqrtOp) {
        return unaryFloat([](double x) { return 1.0 / std::sqrt(x); });
      })
      .Case([&](ReciprocalOp) {
        return unaryFloat([](double x) { return 1.0 / x; });
      })
      .Case([&](SinOp) {
        return unaryFloat([](double x) { return std::sin(x); });
      })
      .Case([&](CosOp) {
        return unaryFloat([](double x) { return std::cos(x); });
      })
      .Case([&](TanOp) {
        return unaryFloat([](double x) { return std::tan(x); });
      })
      .Case([&](TanhOp) {
        return unaryFloat([](double x) { return std::tanh(x); });
      })
      .Case([&](SigmoidOp) { return unaryFloat(sigmoid); })
      .Case([&](ErfOp) {
        return unaryFloat([](double x) { return std::erf(x); });
      })
      .Case([&](ErfcOp) {
        return unaryFloat([](double x) { return std::erfc(x); });
      })
      .Case([&](SiluOp) {
        return unaryFloat([](double x) { return x * sigmoid(x); });
      })
      .Case([&](GeluOp geluOp) {
        bool approximate = geluOp.getTanh();
        return unaryFloat([&](double x) { return gelu(x, approximate); });
      })
      .Case([&](FloorOp) {
        return unaryFloat([](double x) { return std::floor(x); });
      })
      .Case([&](CeilOp) {
        return unaryFloat([](double x) { return std::ceil(x); });
      })
      // nearbyint rounds half to even in the default rounding mode.
      .Case([&](RoundOp) {
        return unaryFloat([](double x) { return std::nearbyint(x); });
      })
      .Case([&](TruncOp) {
        return unaryFloat([](double x) { return std::trunc(x); });
      })
      .Case([&](BitwiseNotOp) {
        bool isBool = in(0).dtype == DType::I1;
        return unaryNumeric(
            [](double x) { return x; },
            [&](int64_t x) { return isBool ? int64_t(!x) : ~x; });
      })
      .Case([&](LogicalNotOp) {
        return unaryNumeric([](double x) { return x; },
                            [](int64_t x) { return int64_t(!x); });
      })
      .Case([&](IsNanOp) {
        return predicate([](double x) { return std::isnan(x); });
      })
      .Case([&](IsInfOp) {
        return predicate([](double x) { return std::isinf(x); });
      })
      .Default([&](Operation *) -> std::optional<llvm::Error> {
        return std::nullopt;
      });
}

/// Binary arithmetic, bitwise and shift ops.
std::optional<llvm::Error> ElementwiseEvaluator::runBinary() {
  return llvm::TypeSwitch<Operation *, std::optional<llvm::Error>>(op)
      .Case([&](AddOp addOp) { return add(addOp); })
      .Case([&](SubOp) {
        return binaryNumeric([](double a, double b) { return a - b; },
                             [](int64_t a, int64_t b, unsigned, const char *&) {
                               return int64_t(u(a) - u(b));
                             });
      })
      .Case([&](MulOp) {
        return binaryNumeric([](double a, double b) { return a * b; },
                             [](int64_t a, int64_t b, unsigned, const char *&) {
                               return int64_t(u(a) * u(b));
                             });
      })
      .Case([&](DivOp) {
        return binaryNumeric([](double a, double b) { return a / b; }, intDiv);
      })
      .Case([&](FmodOp) {
        return binaryNumeric([](double a, double b) { return std::fmod(a, b); },
                             intFmod);
      })
      .Case([&](RemainderOp) { return binaryNumeric(remainder, intRemainder); })
      .Case([&](PowOp) {
        return binaryFloat([](double a, double b) { return std::pow(a, b); });
      })
      .Case([&](MaximumOp) {
        return binaryNumeric(maximum,
                             [](int64_t a, int64_t b, unsigned, const char *&) {
                               return std::max(a, b);
                             });
      })
      .Case([&](MinimumOp) {
        return binaryNumeric(minimum,
                             [](int64_t a, int64_t b, unsigned, const char *&) {
                               return std::min(a, b);
                             });
      })
      .Case([&](Atan2Op) {
        return binaryFloat([](double a, double b) { return std::atan2(a, b); });
      })
      .Case<LogicalAndOp, BitwiseAndOp>([&](auto) {
        return binaryInt([](int64_t a, int64_t b, unsigned, const char *&) {
          return a & b;
        });
      })
      .Case<LogicalOrOp, BitwiseOrOp>([&](auto) {
        return binaryInt([](int64_t a, int64_t b, unsigned, const char *&) {
          return a | b;
        });
      })
      .Case<LogicalXorOp, BitwiseXorOp>([&](auto) {
        return binaryInt([](int64_t a, int64_t b, unsigned, const char *&) {
          return a ^ b;
        });
      })
      .Case([&](ShiftLeftOp) { return binaryInt(shiftLeft); })
      .Case([&](ShiftRightOp) { return binaryInt(shiftRight); })
      .Default([&](Operation *) -> std::optional<llvm::Error> {
        return std::nullopt;
      });
}

/// Comparisons, where, clamp, lerp, fma and casts.
std::optional<llvm::Error> ElementwiseEvaluator::runOther() {
  return llvm::TypeSwitch<Operation *, std::optional<llvm::Error>>(op)
      .Case([&](EqOp) {
        return compare([](double a, double b) { return a == b; },
                       [](int64_t a, int64_t b) { return a == b; });
      })
      .Case([&](NeOp) {
        return compare([](double a, double b) { return a != b; },
                       [](int64_t a, int64_t b) { return a != b; });
      })
      .Case([&](LtOp) {
        return compare([](double a, double b) { return a < b; },
                       [](int64_t a, int64_t b) { return a < b; });
      })
      .Case([&](LeOp) {
        return compare([](double a, double b) { return a <= b; },
                       [](int64_t a, int64_t b) { return a <= b; });
      })
      .Case([&](GtOp) {
        return compare([](double a, double b) { return a > b; },
                       [](int64_t a, int64_t b) { return a > b; });
      })
      .Case([&](GeOp) {
        return compare([](double a, double b) { return a >= b; },
                       [](int64_t a, int64_t b) { return a >= b; });
      })
      .Case([&](WhereOp) { return where(); })
      .Case([&](ClampOp) { return clamp(); })
      .Case([&](LerpOp) {
        if (auto err = prepare())
          return err;
        const DenseValue &start = in(0), &end = in(1), &weight = in(2);
        for (int64_t k = 0, n = out.numel(); k < n; ++k)
          out.setDouble(k, start.f[k] + weight.f[k] * (end.f[k] - start.f[k]));
        return finish();
      })
      .Case([&](FmaOp) {
        if (auto err = prepare())
          return err;
        const DenseValue &a = in(0), &b = in(1), &c = in(2);
        for (int64_t k = 0, n = out.numel(); k < n; ++k)
          out.setDouble(k, std::fma(a.f[k], b.f[k], c.f[k]));
        return finish();
      })
      .Case([&](CastOp) { return cast(); })
      .Default([&](Operation *) -> std::optional<llvm::Error> {
        return std::nullopt;
      });
}

llvm::Error eval::evalElementwise(Operation *op, Env &env, bool &handled) {
  if (!op->hasTrait<FusionElementwise>())
    return llvm::Error::success();
  handled = true;
  return ElementwiseEvaluator(op, env).run();
}
