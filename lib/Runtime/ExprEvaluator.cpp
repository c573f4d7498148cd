// The expression-program interpreter. It runs once per new input signature
// (the result is cached), so clarity beats speed here.
#include "ExprEvaluator.h"

#include "Format.h"

#include <algorithm>
#include <limits>

namespace fusion::runtime {

int64_t argumentStride(const Argument &arg, int64_t dim) {
  if (arg.strides)
    return arg.strides[dim];
  // Row-major strides of sizes whose product overflows int64 are refused
  // when the signature is bound (Executable.cpp); saturate rather than wrap
  // should one get here anyway.
  int64_t stride = 1;
  for (int64_t d = arg.rank - 1; d > dim; --d)
    if (__builtin_mul_overflow(stride, std::max<int64_t>(arg.sizes[d], 1),
                               &stride))
      return std::numeric_limits<int64_t>::max();
  return stride;
}

namespace {

/// Python-style floor division; b != 0 and not (INT64_MIN / -1).
int64_t floorDiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  if (a % b != 0 && ((a < 0) != (b < 0)))
    --q;
  return q;
}

int64_t ceilDiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  if (a % b != 0 && ((a < 0) == (b < 0)))
    ++q;
  return q;
}

/// Remainder with the sign of b (Python's %); b != 0.
int64_t floorRem(int64_t a, int64_t b) {
  if (b == -1)
    return 0; // INT64_MIN % -1 is undefined behaviour in C++.
  int64_t r = a % b;
  if (r != 0 && ((r < 0) != (b < 0)))
    r += b;
  return r;
}

} // namespace

Expected<std::vector<int64_t>> evaluateExprProgram(const ModuleDesc &desc,
                                                   const Argument *inputs,
                                                   const uint8_t *ptrAligned) {
  std::vector<int64_t> r(desc.exprs.size());
  size_t alignedIndex = 0;
  for (size_t i = 0; i < desc.exprs.size(); ++i) {
    const ExprInstDesc &e = desc.exprs[i];
    auto fail = [&](ErrorCode code, const char *what) {
      return Status(code, concat("launch-plan expr ", i, " (", exprOpName(e.op),
                                 "): ", what, " (r", e.a, " = ", r[e.a], ", r",
                                 e.b, " = ", r[e.b], ")"));
    };
    int64_t a = 0, b = 0;
    bool binary = e.op >= ExprOp::Add && e.op <= ExprOp::Select;
    if (binary) {
      a = r[e.a];
      b = r[e.b];
    }
    int64_t value = 0;
    switch (e.op) {
    case ExprOp::Const:
      value = e.imm;
      break;
    case ExprOp::InputSize:
      value = inputs[e.a].sizes[e.b];
      break;
    case ExprOp::InputStride:
      value = argumentStride(inputs[e.a], e.b);
      break;
    case ExprOp::ScalarInput:
      value = inputs[e.a].intValue;
      break;
    case ExprOp::Add:
      if (__builtin_add_overflow(a, b, &value))
        return fail(ErrorCode::IntegerOverflow, "int64 overflow");
      break;
    case ExprOp::Sub:
      if (__builtin_sub_overflow(a, b, &value))
        return fail(ErrorCode::IntegerOverflow, "int64 overflow");
      break;
    case ExprOp::Mul:
      if (__builtin_mul_overflow(a, b, &value))
        return fail(ErrorCode::IntegerOverflow, "int64 overflow");
      break;
    case ExprOp::FloorDiv:
    case ExprOp::CeilDiv:
    case ExprOp::Rem:
      if (b == 0)
        return fail(ErrorCode::DivisionByZero, "division by zero");
      if (e.op != ExprOp::Rem && a == std::numeric_limits<int64_t>::min() &&
          b == -1)
        return fail(ErrorCode::IntegerOverflow, "int64 overflow");
      value = e.op == ExprOp::FloorDiv  ? floorDiv(a, b)
              : e.op == ExprOp::CeilDiv ? ceilDiv(a, b)
                                        : floorRem(a, b);
      break;
    case ExprOp::Min:
      value = std::min(a, b);
      break;
    case ExprOp::Max:
      value = std::max(a, b);
      break;
    case ExprOp::Eq:
      value = a == b;
      break;
    case ExprOp::Lt:
      value = a < b;
      break;
    case ExprOp::Select:
      value = a != 0 ? b : r[e.c];
      break;
    case ExprOp::PtrAligned:
      value = ptrAligned[alignedIndex++];
      break;
    }
    r[i] = value;
  }
  return r;
}

} // namespace fusion::runtime
