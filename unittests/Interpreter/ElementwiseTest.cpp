//===- ElementwiseTest.cpp - element-wise ops against hand values ---------===//

#include "TestSupport.h"

#include "fusion/Interpreter/FloatFormats.h"

using namespace mlir::fusion::interp;
using namespace mlir::fusion::interp::test;

namespace {

using Elementwise = InterpreterTest;

struct UnaryCase {
  const char *op;
  std::vector<double> input;
  std::vector<double> expected;
};

TEST_F(Elementwise, UnaryFloatOpsInF64) {
  const double e = 2.718281828459045, pi = 3.141592653589793;
  std::vector<UnaryCase> cases = {
      {"neg", {-1.5, 0.0, 2}, {1.5, -0.0, -2}},
      {"abs", {-1.5, -0.0, 2}, {1.5, 0.0, 2}},
      {"exp", {0, 1, -1}, {1, e, 0.36787944117144233}},
      {"exp2", {3, -1}, {8, 0.5}},
      {"expm1", {0, 1e-10}, {0, 1.00000000005e-10}},
      {"log", {1, e, 0, -1}, {0, 1, -INFINITY, NAN}},
      {"log2", {8, 0.25}, {3, -2}},
      {"log1p", {0, 1e-10}, {0, 9.9999999995e-11}},
      {"sqrt", {4, 2, -1}, {2, 1.4142135623730951, NAN}},
      {"rsqrt", {4, 0}, {0.5, INFINITY}},
      {"reciprocal", {4, -0.0}, {0.25, -INFINITY}},
      {"sin", {0, pi / 2}, {0, 1}},
      {"cos", {0, pi}, {1, -1}},
      {"tan", {0}, {0}},
      {"tanh", {0, 1}, {0, 0.7615941559557649}},
      {"sigmoid", {0, 1}, {0.5, 0.7310585786300049}},
      {"erf", {0, 1}, {0, 0.8427007929497149}},
      {"erfc", {0, 1}, {1, 0.15729920705028513}},
      {"relu", {-1, 0, 2, NAN}, {0, 0, 2, NAN}},
      {"silu", {1, -1}, {0.7310585786300049, -0.2689414213699951}},
      {"gelu", {1, -1}, {0.8413447460685429, -0.15865525393145707}},
      {"floor", {-1.5, -0.5, 0.5, 2.7}, {-2, -1, 0, 2}},
      {"ceil", {-1.5, -0.5, 0.5, 2.7}, {-1, -0.0, 1, 3}},
      // Half to even, as torch.round.
      {"round", {-1.5, -0.5, 0.5, 1.5, 2.5, 2.7}, {-2, -0.0, 0, 2, 2, 3}},
      {"trunc", {-1.5, -0.5, 2.7}, {-1, -0.0, 2}},
      {"sign", {-3, 0, 2, NAN}, {-1, 0, 1, NAN}},
  };
  for (const UnaryCase &c : cases) {
    std::string type = "tensor<" + std::to_string(c.input.size()) + "xf64>";
    HostTensor out = run1(unaryFusion(c.op, type), {f64s(c.input)});
    EXPECT_TRUE(nearDoubles(out, c.expected, 1e-15)) << c.op;
  }
  // Signed zeros and NaNs exactly.
  EXPECT_TRUE(sameDoubles(
      run1(unaryFusion("neg", "tensor<1xf64>"), {f64s({0.0})}), {-0.0}));
  EXPECT_TRUE(sameDoubles(
      run1(unaryFusion("round", "tensor<1xf64>"), {f64s({-0.5})}), {-0.0}));
}

TEST_F(Elementwise, GeluTanhApproximation) {
  std::string source = fusion1("tensor<2xf64>", "tensor<2xf64>",
                               "  %r = fusion.gelu %x tanh : tensor<2xf64>");
  EXPECT_TRUE(nearDoubles(run1(source, {f64s({1, -2})}),
                          {0.8411919906082768, -0.04540230591222494}, 1e-15));
}

TEST_F(Elementwise, ResultsRoundToTheElementType) {
  // exp(1) in f32 is the f32 nearest e; in bf16 2.71875.
  EXPECT_TRUE(
      sameDoubles(run1(unaryFusion("exp", "tensor<1xf32>"), {f32s({1})}),
                  {2.7182817459106445}));
  EXPECT_TRUE(sameDoubles(run1(unaryFusion("exp", "tensor<1xbf16>"),
                               {tensor(DType::BF16, {1}, {1})}),
                          {2.71875}));
  // 0.1 + 0.2 in f32 rounds once from the f32 operands.
  EXPECT_TRUE(sameDoubles(
      run1(binaryFusion("add", "tensor<1xf32>"), {f32s({0.1}), f32s({0.2})}),
      {0.30000001192092896}));
  // bf16: 1 + 2^-8 is a tie and goes to even (1); 1 + 3 * 2^-8 to 1 + 2^-6.
  EXPECT_TRUE(
      sameDoubles(run1(binaryFusion("add", "tensor<2xbf16>"),
                       {tensor(DType::BF16, {2}, {1, 1}),
                        tensor(DType::BF16, {2}, {0.00390625, 0.01171875})}),
                  {1.0, 1.015625}));
  // f16: 0.1 * 0.1.
  EXPECT_TRUE(sameDoubles(
      run1(binaryFusion("mul", "tensor<1xf16>"),
           {tensor(DType::F16, {1}, {0.1}), tensor(DType::F16, {1}, {0.1})}),
      {0.0099945068359375}));
  // f16 overflow gives inf; fp8 e4m3fn overflow gives NaN.
  EXPECT_TRUE(sameDoubles(
      run1(binaryFusion("mul", "tensor<1xf16>"),
           {tensor(DType::F16, {1}, {300}), tensor(DType::F16, {1}, {300})}),
      {INFINITY}));
}

TEST_F(Elementwise, BinaryFloatOps) {
  struct Case {
    const char *op;
    std::vector<double> x, y, expected;
  };
  std::vector<Case> cases = {
      {"sub", {5, 1}, {2, 3}, {3, -2}},
      {"mul", {1.5, -2}, {2, 3}, {3, -6}},
      {"div", {1, -1, 0}, {4, 0, 0}, {0.25, -INFINITY, NAN}},
      // fmod takes the sign of lhs, remainder the sign of rhs.
      {"fmod", {5.5, -5.5, 5.5, -5.5}, {2, 2, -2, -2}, {1.5, -1.5, 1.5, -1.5}},
      {"remainder",
       {5.5, -5.5, 5.5, -5.5},
       {2, 2, -2, -2},
       {1.5, 0.5, -0.5, -1.5}},
      {"pow", {2, 4, -8}, {10, 0.5, 1.0 / 3}, {1024, 2, NAN}},
      {"maximum", {1, NAN, -0.0}, {2, 1, 0.0}, {2, NAN, 0.0}},
      {"minimum", {1, 3, -0.0}, {2, NAN, 0.0}, {1, NAN, -0.0}},
      {"atan2",
       {1, 1, 0},
       {-1, 0, 1},
       {2.356194490192345, 1.5707963267948966, 0}},
  };
  for (const Case &c : cases) {
    std::string type = "tensor<" + std::to_string(c.x.size()) + "xf64>";
    HostTensor out = run1(binaryFusion(c.op, type), {f64s(c.x), f64s(c.y)});
    EXPECT_TRUE(sameDoubles(out, c.expected)) << c.op;
  }
}

TEST_F(Elementwise, AddWithAlphaRoundsTheProduct) {
  std::string source =
      "fusion.fusion @f(%x: tensor<2xbf16>, %y: tensor<2xbf16>) -> "
      "tensor<2xbf16> {\n"
      "  %r = fusion.add %x, %y alpha = 3.0 : tensor<2xbf16>\n"
      "  fusion.return %r : tensor<2xbf16>\n}\n";
  // 3 * 1.0078125 = 3.0234375 rounds to 3.03125 in bf16 before the add;
  // 100 + 3.03125 rounds to 103.
  EXPECT_TRUE(
      sameDoubles(run1(source, {tensor(DType::BF16, {2}, {100, 1}),
                                tensor(DType::BF16, {2}, {1.0078125, -1})}),
                  {103, -2}));
  std::string intAdd =
      "fusion.fusion @f(%x: tensor<2xi32>, %y: tensor<2xi32>) -> "
      "tensor<2xi32> {\n"
      "  %r = fusion.add %x, %y alpha = -2.0 : tensor<2xi32>\n"
      "  fusion.return %r : tensor<2xi32>\n}\n";
  EXPECT_TRUE(sameInts(
      run1(intAdd, {ints(DType::I32, {10, 1}), ints(DType::I32, {3, 4})}),
      {4, -7}));
}

TEST_F(Elementwise, IntegerArithmeticWrapsAndTruncates) {
  auto i32 = [](std::vector<int64_t> v) { return ints(DType::I32, v); };
  auto i8 = [](std::vector<int64_t> v) { return ints(DType::I8, v); };
  EXPECT_TRUE(sameInts(
      run1(binaryFusion("add", "tensor<2xi8>"), {i8({127, -128}), i8({1, -1})}),
      {-128, 127}));
  EXPECT_TRUE(sameInts(
      run1(binaryFusion("mul", "tensor<1xi32>"), {i32({65536}), i32({65536})}),
      {0}));
  // Division truncates toward zero; INT_MIN / -1 wraps.
  EXPECT_TRUE(
      sameInts(run1(binaryFusion("div", "tensor<4xi32>"),
                    {i32({7, -7, 7, -2147483648}), i32({2, 2, -2, -1})}),
               {3, -3, -3, -2147483648}));
  EXPECT_TRUE(sameInts(run1(binaryFusion("fmod", "tensor<4xi32>"),
                            {i32({7, -7, 7, -7}), i32({3, 3, -3, -3})}),
                       {1, -1, 1, -1}));
  EXPECT_TRUE(sameInts(run1(binaryFusion("remainder", "tensor<4xi32>"),
                            {i32({7, -7, 7, -7}), i32({3, 3, -3, -3})}),
                       {1, 2, -2, -1}));
  EXPECT_TRUE(sameInts(run1(binaryFusion("maximum", "tensor<2xi32>"),
                            {i32({1, -5}), i32({2, -6})}),
                       {2, -5}));
  EXPECT_TRUE(sameInts(run1(binaryFusion("minimum", "tensor<2xi32>"),
                            {i32({1, -5}), i32({2, -6})}),
                       {1, -6}));
  EXPECT_TRUE(sameInts(
      run1(unaryFusion("neg", "tensor<2xi8>"), {i8({-128, 5})}), {-128, -5}));
  EXPECT_TRUE(sameInts(
      run1(unaryFusion("abs", "tensor<2xi8>"), {i8({-128, -3})}), {-128, 3}));
  EXPECT_TRUE(sameInts(
      run1(unaryFusion("relu", "tensor<2xi32>"), {i32({-1, 4})}), {0, 4}));
  EXPECT_TRUE(
      sameInts(run1(unaryFusion("sign", "tensor<3xi32>"), {i32({-7, 0, 9})}),
               {-1, 0, 1}));
}

TEST_F(Elementwise, IntegerDivisionByZeroIsAnError) {
  std::string message =
      runError(binaryFusion("div", "tensor<2xi32>"),
               {ints(DType::I32, {1, 2}), ints(DType::I32, {1, 0})});
  EXPECT_EQ(message,
            "'fusion.div' at test.mlir:2:8: integer division by zero at "
            "element 1");
}

TEST_F(Elementwise, BitwiseAndLogicalOps) {
  auto i8 = [](std::vector<int64_t> v) { return ints(DType::I8, v); };
  auto i1 = [](std::vector<int64_t> v) { return ints(DType::I1, v); };
  EXPECT_TRUE(sameInts(run1(binaryFusion("bitwise_and", "tensor<2xi8>"),
                            {i8({12, -1}), i8({10, 5})}),
                       {8, 5}));
  EXPECT_TRUE(sameInts(run1(binaryFusion("bitwise_or", "tensor<2xi8>"),
                            {i8({12, -128}), i8({10, 1})}),
                       {14, -127}));
  EXPECT_TRUE(sameInts(run1(binaryFusion("bitwise_xor", "tensor<2xi8>"),
                            {i8({12, -1}), i8({10, 1})}),
                       {6, -2}));
  EXPECT_TRUE(
      sameInts(run1(unaryFusion("bitwise_not", "tensor<2xi8>"), {i8({0, 5})}),
               {-1, -6}));
  EXPECT_TRUE(sameInts(
      run1(unaryFusion("bitwise_not", "tensor<2xi1>"), {i1({0, 1})}), {1, 0}));
  EXPECT_TRUE(sameInts(
      run1(unaryFusion("logical_not", "tensor<2xi1>"), {i1({0, 1})}), {1, 0}));
  EXPECT_TRUE(sameInts(run1(binaryFusion("logical_and", "tensor<4xi1>"),
                            {i1({0, 0, 1, 1}), i1({0, 1, 0, 1})}),
                       {0, 0, 0, 1}));
  EXPECT_TRUE(sameInts(run1(binaryFusion("logical_or", "tensor<4xi1>"),
                            {i1({0, 0, 1, 1}), i1({0, 1, 0, 1})}),
                       {0, 1, 1, 1}));
  EXPECT_TRUE(sameInts(run1(binaryFusion("logical_xor", "tensor<4xi1>"),
                            {i1({0, 0, 1, 1}), i1({0, 1, 0, 1})}),
                       {0, 1, 1, 0}));
}

TEST_F(Elementwise, ShiftsOfTheWidthOrMore) {
  auto i8 = [](std::vector<int64_t> v) { return ints(DType::I8, v); };
  EXPECT_TRUE(sameInts(run1(binaryFusion("shift_left", "tensor<4xi8>"),
                            {i8({1, 1, 3, 1}), i8({3, 7, 8, 100})}),
                       {8, -128, 0, 0}));
  EXPECT_TRUE(sameInts(run1(binaryFusion("shift_right", "tensor<4xi8>"),
                            {i8({-128, 64, -1, 5}), i8({3, 6, 8, 9})}),
                       {-16, 1, -1, 0}));
  auto i64 = [](std::vector<int64_t> v) { return ints(DType::I64, v); };
  EXPECT_TRUE(sameInts(run1(binaryFusion("shift_left", "tensor<2xi64>"),
                            {i64({1, 1}), i64({63, 64})}),
                       {INT64_MIN, 0}));
}

TEST_F(Elementwise, ComparisonsAndNaN) {
  struct Case {
    const char *op;
    std::vector<int64_t> expected;
  };
  std::vector<double> x = {1, 2, 3, NAN}, y = {2, 2, 2, NAN};
  for (const Case &c : std::vector<Case>{{"eq", {0, 1, 0, 0}},
                                         {"ne", {1, 0, 1, 1}},
                                         {"lt", {1, 0, 0, 0}},
                                         {"le", {1, 1, 0, 0}},
                                         {"gt", {0, 0, 1, 0}},
                                         {"ge", {0, 1, 1, 0}}}) {
    HostTensor out = run1(binaryFusion(c.op, "tensor<4xf32>", "tensor<4xi1>"),
                          {f32s(x), f32s(y)});
    EXPECT_EQ(out.dtype(), DType::I1);
    EXPECT_TRUE(sameInts(out, c.expected)) << c.op;
  }
  EXPECT_TRUE(sameInts(run1(binaryFusion("lt", "tensor<2xi64>", "tensor<2xi1>"),
                            {ints(DType::I64, {INT64_MIN, 5}),
                             ints(DType::I64, {INT64_MAX, 5})}),
                       {1, 0}));
}

TEST_F(Elementwise, Predicates) {
  std::string isnan = "fusion.fusion @f(%x: tensor<3xf32>) -> tensor<3xi1> {\n"
                      "  %r = fusion.isnan %x : tensor<3xf32>\n"
                      "  fusion.return %r : tensor<3xi1>\n}\n";
  EXPECT_TRUE(sameInts(run1(isnan, {f32s({NAN, INFINITY, 1})}), {1, 0, 0}));
  std::string isinf = "fusion.fusion @f(%x: tensor<3xf32>) -> tensor<3xi1> {\n"
                      "  %r = fusion.isinf %x : tensor<3xf32>\n"
                      "  fusion.return %r : tensor<3xi1>\n}\n";
  EXPECT_TRUE(sameInts(run1(isinf, {f32s({NAN, -INFINITY, 1})}), {0, 1, 0}));
}

TEST_F(Elementwise, TernaryOps) {
  std::string where =
      "fusion.fusion @f(%c: tensor<3xi1>, %x: tensor<3xi32>, %y: "
      "tensor<3xi32>) -> tensor<3xi32> {\n"
      "  %r = fusion.where %c, %x, %y : tensor<3xi1>, tensor<3xi32>\n"
      "  fusion.return %r : tensor<3xi32>\n}\n";
  EXPECT_TRUE(sameInts(
      run1(where, {ints(DType::I1, {1, 0, 1}), ints(DType::I32, {1, 2, 3}),
                   ints(DType::I32, {-1, -2, -3})}),
      {1, -2, 3}));
  std::string clamp =
      "fusion.fusion @f(%x: tensor<4xf32>, %lo: tensor<4xf32>, %hi: "
      "tensor<4xf32>) -> tensor<4xf32> {\n"
      "  %r = fusion.clamp %x, %lo, %hi : tensor<4xf32>\n"
      "  fusion.return %r : tensor<4xf32>\n}\n";
  EXPECT_TRUE(sameDoubles(run1(clamp, {f32s({-5, 0.5, 5, NAN}),
                                       f32s({0, 0, 0, 0}), f32s({1, 1, 1, 1})}),
                          {0, 0.5, 1, NAN}));
  std::string lerp =
      "fusion.fusion @f(%a: tensor<2xf64>, %b: tensor<2xf64>, %w: "
      "tensor<2xf64>) -> tensor<2xf64> {\n"
      "  %r = fusion.lerp %a, %b, %w : tensor<2xf64>\n"
      "  fusion.return %r : tensor<2xf64>\n}\n";
  EXPECT_TRUE(sameDoubles(
      run1(lerp, {f64s({1, 10}), f64s({3, 20}), f64s({0.25, 2})}), {1.5, 30}));
  // fma rounds once: in f32, 1 + 2^-23 squared minus (1 + 2^-22) leaves
  // 2^-46, which a separate multiply would lose.
  std::string fma =
      "fusion.fusion @f(%a: tensor<1xf32>, %b: tensor<1xf32>, %c: "
      "tensor<1xf32>) -> tensor<1xf32> {\n"
      "  %r = fusion.fma %a, %b, %c : tensor<1xf32>\n"
      "  fusion.return %r : tensor<1xf32>\n}\n";
  double a = 1 + std::ldexp(1.0, -23);
  EXPECT_TRUE(sameDoubles(
      run1(fma, {f32s({a}), f32s({a}), f32s({-(1 + std::ldexp(1.0, -22))})}),
      {std::ldexp(1.0, -46)}));
}

std::string castFusion(const std::string &from, const std::string &to, int n) {
  std::string in = "tensor<" + std::to_string(n) + "x" + from + ">";
  std::string out = "tensor<" + std::to_string(n) + "x" + to + ">";
  return "fusion.fusion @f(%x: " + in + ") -> " + out +
         " {\n  %r = fusion.cast %x : " + in + " to " + out +
         "\n  fusion.return %r : " + out + "\n}\n";
}

TEST_F(Elementwise, Casts) {
  // Float to float rounds to nearest even.
  EXPECT_TRUE(
      sameDoubles(run1(castFusion("f32", "bf16", 3),
                       {f32s({1.00390625, 1.01171875, 3.3895313892515355e38})}),
                  {1.0, 1.015625, 3.3895313892515355e38}));
  EXPECT_TRUE(sameDoubles(
      run1(castFusion("f32", "f16", 3), {f32s({65520, 0.1, -1e-8})}),
      {INFINITY, 0.0999755859375, -0.0}));
  EXPECT_TRUE(sameDoubles(run1(castFusion("f32", "f8E4M3FN", 4),
                               {f32s({1.0625, 1.1875, 464, 500})}),
                          {1.0, 1.25, 448, NAN}));
  EXPECT_TRUE(sameDoubles(
      run1(castFusion("f32", "f8E5M2", 3), {f32s({1.125, 60000, 70000})}),
      {1.0, 57344, INFINITY}));
  EXPECT_TRUE(sameDoubles(run1(castFusion("f8E4M3FN", "f32", 2),
                               {tensor(DType::F8E4M3FN, {2}, {448, -0.5})}),
                          {448, -0.5}));
  // Float to integer truncates toward zero, saturates, NaN -> 0.
  EXPECT_TRUE(sameInts(
      run1(castFusion("f32", "i32", 5), {f32s({2.9, -2.9, NAN, 1e10, -1e10})}),
      {2, -2, 0, 2147483647, -2147483648}));
  EXPECT_TRUE(sameInts(run1(castFusion("f64", "i8", 2), {f64s({300, -0.5})}),
                       {127, 0}));
  // To i1 tests for non-zero; from i1 gives 0 or 1.
  EXPECT_TRUE(
      sameInts(run1(castFusion("f32", "i1", 4), {f32s({0.0, -0.0, 0.1, NAN})}),
               {0, 0, 1, 1}));
  EXPECT_TRUE(sameInts(
      run1(castFusion("i32", "i1", 3), {ints(DType::I32, {0, 256, -1})}),
      {0, 1, 1}));
  EXPECT_TRUE(sameDoubles(
      run1(castFusion("i1", "f32", 2), {ints(DType::I1, {1, 0})}), {1, 0}));
  // Integer to integer wraps; integer to float rounds once.
  EXPECT_TRUE(sameInts(
      run1(castFusion("i32", "i8", 3), {ints(DType::I32, {300, -129, 127})}),
      {44, 127, 127}));
  EXPECT_TRUE(sameInts(
      run1(castFusion("i8", "i64", 1), {ints(DType::I8, {-5})}), {-5}));
  EXPECT_TRUE(sameDoubles(
      run1(castFusion("i64", "f32", 1), {ints(DType::I64, {(1 << 24) + 1})}),
      {16777216}));
  EXPECT_TRUE(sameDoubles(
      run1(castFusion("i32", "bf16", 1), {ints(DType::I32, {257})}), {256}));
}

TEST_F(Elementwise, ScalarOperands) {
  std::string source = "fusion.fusion @f(%x: f32, %y: f32) -> f32 {\n"
                       "  %r = fusion.mul %x, %y : f32\n"
                       "  fusion.return %r : f32\n}\n";
  HostTensor out = run1(source, {HostValue::scalar(DType::F32, 1.5),
                                 HostValue::scalar(DType::F32, -4)});
  EXPECT_EQ(out.rank(), 0);
  EXPECT_TRUE(sameDoubles(out, {-6}));
  std::string gelu = "fusion.fusion @f(%x: f64) -> f64 {\n"
                     "  %r = fusion.gelu %x : f64\n"
                     "  fusion.return %r : f64\n}\n";
  EXPECT_TRUE(nearDoubles(run1(gelu, {HostValue::scalar(DType::F64, 1)}),
                          {0.8413447460685429}, 1e-15));
}

TEST_F(Elementwise, NonContiguousAndZeroStrideInputs) {
  // x is the transpose of a 3x2 buffer, y one row broadcast with stride 0.
  auto x = HostTensor::strided(DType::F32, {2, 3}, {1, 2}, 6);
  ASSERT_TRUE(bool(x));
  for (int i = 0; i < 6; ++i)
    x->storeDouble(i, i); // x = [[0, 2, 4], [1, 3, 5]]
  auto y = HostTensor::strided(DType::F32, {2, 3}, {0, 1}, 3);
  ASSERT_TRUE(bool(y));
  for (int i = 0; i < 3; ++i)
    y->storeDouble(i, 10 * (i + 1)); // y = [[10, 20, 30], [10, 20, 30]]
  HostTensor out = run1(binaryFusion("add", "tensor<?x?xf32>"), {*x, *y});
  EXPECT_EQ(sizesOf(out), (std::vector<int64_t>{2, 3}));
  EXPECT_TRUE(out.isContiguous());
  EXPECT_TRUE(sameDoubles(out, {10, 22, 34, 11, 23, 35}));
  // A fully broadcast scalar-like tensor: every stride 0 over one element.
  auto z = HostTensor::strided(DType::F32, {2, 3}, {0, 0}, 1);
  ASSERT_TRUE(bool(z));
  z->storeDouble(0, 1);
  EXPECT_TRUE(
      sameDoubles(run1(binaryFusion("mul", "tensor<2x3xf32>"), {*x, *z}),
                  {0, 2, 4, 1, 3, 5}));
}

TEST_F(Elementwise, EmptyTensors) {
  HostTensor out =
      run1(binaryFusion("add", "tensor<?x3xf32>"),
           {HostTensor(DType::F32, {0, 3}), HostTensor(DType::F32, {0, 3})});
  EXPECT_EQ(sizesOf(out), (std::vector<int64_t>{0, 3}));
  EXPECT_EQ(out.numElements(), 0);
}

} // namespace
