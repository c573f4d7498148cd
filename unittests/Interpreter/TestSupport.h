//===- TestSupport.h - fixtures of the interpreter tests --------*- C++ -*-===//
// Parses fusions from strings and runs them, with helpers that build inputs
// and compare outputs.
//===----------------------------------------------------------------------===//
#ifndef FUSION_UNITTESTS_INTERPRETER_TESTSUPPORT_H
#define FUSION_UNITTESTS_INTERPRETER_TESTSUPPORT_H

#include "fusion/Dialect/Fusion/IR/FusionOps.h"
#include "fusion/Interpreter/Interpreter.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include "gtest/gtest.h"

#include <cmath>
#include <string>
#include <vector>

namespace mlir::fusion::interp::test {

class InterpreterTest : public ::testing::Test {
public:
  InterpreterTest() {
    context.loadDialect<FusionDialect, arith::ArithDialect>();
    // Parse errors are test failures with their text.
    context.getDiagEngine().registerHandler(
        [this](Diagnostic &diag) { diagnostics += diag.str() + "\n"; });
  }

  /// The first fusion of `source`, or null (with a test failure).
  FusionOp parse(llvm::StringRef source) {
    diagnostics.clear();
    modules.push_back(
        parseSourceString<ModuleOp>(source, &context, "test.mlir"));
    if (!modules.back()) {
      ADD_FAILURE() << "cannot parse:\n" << source.str() << "\n" << diagnostics;
      return {};
    }
    auto fusions = modules.back()->getOps<FusionOp>();
    if (fusions.empty()) {
      ADD_FAILURE() << "no fusion in:\n" << source.str();
      return {};
    }
    return *fusions.begin();
  }

  /// Runs the first fusion of `source`; failures become test failures and
  /// an empty result.
  std::vector<HostTensor> run(llvm::StringRef source,
                              llvm::ArrayRef<HostValue> inputs) {
    FusionOp fusion = parse(source);
    if (!fusion)
      return {};
    auto outputs = interpret(fusion, inputs);
    if (!outputs) {
      ADD_FAILURE() << "interpret failed: "
                    << llvm::toString(outputs.takeError());
      return {};
    }
    return std::move(*outputs);
  }

  /// The one output of a fusion with one result.
  HostTensor run1(llvm::StringRef source, llvm::ArrayRef<HostValue> inputs) {
    auto outputs = run(source, inputs);
    if (outputs.size() != 1) {
      ADD_FAILURE() << "expected one output, got " << outputs.size();
      return HostTensor(DType::F32, {0});
    }
    return outputs[0];
  }

  /// The error message of a run expected to fail ("" and a test failure if
  /// it succeeds).
  std::string runError(llvm::StringRef source,
                       llvm::ArrayRef<HostValue> inputs) {
    FusionOp fusion = parse(source);
    if (!fusion)
      return "";
    auto outputs = interpret(fusion, inputs);
    if (outputs) {
      ADD_FAILURE() << "expected the run to fail";
      return "";
    }
    return llvm::toString(outputs.takeError());
  }

  MLIRContext context;
  std::vector<OwningOpRef<ModuleOp>> modules;
  std::string diagnostics;
};

/// A fusion `@f(%x: type) -> resultType` whose body is `body`, which must
/// define %r.
inline std::string fusion1(llvm::StringRef type, llvm::StringRef resultType,
                           llvm::StringRef body) {
  return ("fusion.fusion @f(%x: " + type + ") -> " + resultType + " {\n" +
          body + "\n  fusion.return %r : " + resultType + "\n}\n")
      .str();
}

/// A fusion applying a unary element-wise op: `%r = fusion.<op> %x : type`.
inline std::string unaryFusion(llvm::StringRef op, llvm::StringRef type) {
  return fusion1(type, type, ("  %r = fusion." + op + " %x : " + type).str());
}

/// A fusion applying a binary op to %x and %y of `type`.
inline std::string binaryFusion(llvm::StringRef op, llvm::StringRef type,
                                llvm::StringRef resultType = "") {
  std::string result = resultType.empty() ? type.str() : resultType.str();
  return ("fusion.fusion @f(%x: " + type + ", %y: " + type + ") -> " + result +
          " {\n  %r = fusion." + op + " %x, %y : " + type +
          "\n  fusion.return %r : " + result + "\n}\n")
      .str();
}

inline HostTensor tensor(DType dtype, llvm::ArrayRef<int64_t> sizes,
                         llvm::ArrayRef<double> values) {
  return HostTensor::fromDoubles(dtype, sizes, values);
}
inline HostTensor f64s(llvm::ArrayRef<double> values) {
  return tensor(DType::F64, {int64_t(values.size())}, values);
}
inline HostTensor f32s(llvm::ArrayRef<double> values) {
  return tensor(DType::F32, {int64_t(values.size())}, values);
}
inline HostTensor ints(DType dtype, llvm::ArrayRef<int64_t> values) {
  return HostTensor::fromInts(dtype, {int64_t(values.size())}, values);
}

/// Exact comparison that treats NaN as equal to NaN and tells +0 from -0.
inline ::testing::AssertionResult sameDoubles(const HostTensor &t,
                                              llvm::ArrayRef<double> expected) {
  std::vector<double> got = t.toDoubles();
  if (got.size() != expected.size())
    return ::testing::AssertionFailure()
           << "got " << got.size() << " elements, expected " << expected.size();
  for (size_t i = 0; i < got.size(); ++i) {
    double a = got[i], b = expected[i];
    bool same = (std::isnan(a) && std::isnan(b)) ||
                (a == b && std::signbit(a) == std::signbit(b));
    if (!same)
      return ::testing::AssertionFailure()
             << "element " << i << ": got " << formatFloat(a, DType::F64)
             << ", expected " << formatFloat(b, DType::F64);
  }
  return ::testing::AssertionSuccess();
}

inline ::testing::AssertionResult nearDoubles(const HostTensor &t,
                                              llvm::ArrayRef<double> expected,
                                              double tolerance) {
  std::vector<double> got = t.toDoubles();
  if (got.size() != expected.size())
    return ::testing::AssertionFailure()
           << "got " << got.size() << " elements, expected " << expected.size();
  for (size_t i = 0; i < got.size(); ++i) {
    double a = got[i], b = expected[i];
    if ((std::isnan(a) && std::isnan(b)) || a == b)
      continue;
    if (!(std::fabs(a - b) <= tolerance))
      return ::testing::AssertionFailure()
             << "element " << i << ": got " << formatFloat(a, DType::F64)
             << ", expected " << formatFloat(b, DType::F64);
  }
  return ::testing::AssertionSuccess();
}

inline ::testing::AssertionResult sameInts(const HostTensor &t,
                                           llvm::ArrayRef<int64_t> expected) {
  std::vector<int64_t> got = t.toInts();
  if (got != std::vector<int64_t>(expected.begin(), expected.end())) {
    auto fail = ::testing::AssertionFailure() << "got [";
    for (int64_t v : got)
      fail << v << " ";
    fail << "], expected [";
    for (int64_t v : expected)
      fail << v << " ";
    return fail << "]";
  }
  return ::testing::AssertionSuccess();
}

inline std::vector<int64_t> sizesOf(const HostTensor &t) {
  return std::vector<int64_t>(t.sizes().begin(), t.sizes().end());
}

} // namespace mlir::fusion::interp::test

#endif // FUSION_UNITTESTS_INTERPRETER_TESTSUPPORT_H
