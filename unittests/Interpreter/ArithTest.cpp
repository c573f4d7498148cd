//===- ArithTest.cpp - arith ops on scalars and index values --------------===//

#include "TestSupport.h"

using namespace mlir::fusion::interp;
using namespace mlir::fusion::interp::test;

namespace {

using Arith = InterpreterTest;

/// A fusion computing one scalar from two index inputs.
std::string indexFusion(const std::string &body, const std::string &type) {
  return "fusion.fusion @f(%a: index, %b: index) -> " + type + " {\n" + body +
         "\n  fusion.return %r : " + type + "\n}\n";
}

int64_t evalIndex(Arith &test, const std::string &op, int64_t a, int64_t b) {
  HostTensor out =
      test.run1(indexFusion("  %r = arith." + op + " %a, %b : index", "index"),
                {HostValue::index(a), HostValue::index(b)});
  return out.numElements() == 1 ? out.getInt(int64_t(0)) : -999;
}

TEST_F(Arith, IndexOps) {
  EXPECT_EQ(evalIndex(*this, "addi", 7, -3), 4);
  EXPECT_EQ(evalIndex(*this, "subi", 7, -3), 10);
  EXPECT_EQ(evalIndex(*this, "muli", 7, -3), -21);
  EXPECT_EQ(evalIndex(*this, "divsi", -7, 2), -3);
  EXPECT_EQ(evalIndex(*this, "ceildivsi", 7, 2), 4);
  EXPECT_EQ(evalIndex(*this, "ceildivsi", -7, 2), -3);
  EXPECT_EQ(evalIndex(*this, "floordivsi", -7, 2), -4);
  EXPECT_EQ(evalIndex(*this, "floordivsi", 7, 2), 3);
  EXPECT_EQ(evalIndex(*this, "remsi", -7, 2), -1);
  EXPECT_EQ(evalIndex(*this, "minsi", -7, 2), -7);
  EXPECT_EQ(evalIndex(*this, "maxsi", -7, 2), 2);
}

TEST_F(Arith, DivisionByZeroIsAnError) {
  EXPECT_EQ(runError(indexFusion("  %r = arith.divsi %a, %b : index", "index"),
                     {HostValue::index(1), HostValue::index(0)}),
            "'arith.divsi' at test.mlir:2:8: division by zero");
}

TEST_F(Arith, CastsCompareAndSelect) {
  std::string source = R"(
fusion.fusion @f(%a: index, %b: index) -> (i32, f32, i1, index, f32) {
  %i = arith.index_cast %a : index to i32
  %f = arith.sitofp %i : i32 to f32
  %c = arith.cmpi slt, %a, %b : index
  %s = arith.select %c, %a, %b : index
  %h = arith.constant 0.5 : f32
  %g = arith.mulf %f, %h : f32
  fusion.return %i, %f, %c, %s, %g : i32, f32, i1, index, f32
}
)";
  auto outputs = run(source, {HostValue::index(-3), HostValue::index(5)});
  ASSERT_EQ(outputs.size(), 5u);
  EXPECT_TRUE(sameInts(outputs[0], {-3}));
  EXPECT_EQ(outputs[0].dtype(), DType::I32);
  EXPECT_TRUE(sameDoubles(outputs[1], {-3}));
  EXPECT_TRUE(sameInts(outputs[2], {1}));
  EXPECT_TRUE(sameInts(outputs[3], {-3}));
  EXPECT_EQ(outputs[3].dtype(), DType::I64); // an index comes back as i64
  EXPECT_TRUE(sameDoubles(outputs[4], {-1.5}));
}

TEST_F(Arith, IntegerWidthsWrap) {
  std::string source = R"(
fusion.fusion @f() -> (i8, i8, i32) {
  %a = arith.constant 100 : i8
  %s = arith.addi %a, %a : i8
  %m = arith.constant -128 : i8
  %n = arith.constant -1 : i8
  %d = arith.divsi %m, %n : i8
  %x = arith.constant 3000000000 : i64
  %t = arith.trunci %x : i64 to i32
  fusion.return %s, %d, %t : i8, i8, i32
}
)";
  auto outputs = run(source, {});
  ASSERT_EQ(outputs.size(), 3u);
  EXPECT_TRUE(sameInts(outputs[0], {-56}));
  EXPECT_TRUE(sameInts(outputs[1], {-128}));
  EXPECT_TRUE(sameInts(outputs[2], {3000000000LL - 4294967296LL}));
}

TEST_F(Arith, FloatsRoundToTheirType) {
  std::string source = R"(
fusion.fusion @f(%x: f32) -> (bf16, f32, i32, f32) {
  %t = arith.truncf %x : f32 to bf16
  %one = arith.constant 1.0 : f32
  %y = arith.addf %x, %one : f32
  %i = arith.fptosi %x : f32 to i32
  %c = arith.constant dense<[1.5, 2.5]> : tensor<2xf32>
  %n = arith.negf %x : f32
  fusion.return %t, %y, %i, %n : bf16, f32, i32, f32
}
)";
  auto outputs = run(source, {HostValue::scalar(DType::F32, -2.7)});
  ASSERT_EQ(outputs.size(), 4u);
  EXPECT_TRUE(sameDoubles(outputs[0], {-2.703125}));
  EXPECT_TRUE(sameDoubles(outputs[1], {double(-2.7f + 1.0f)}));
  EXPECT_TRUE(sameInts(outputs[2], {-2}));
  EXPECT_TRUE(sameDoubles(outputs[3], {double(2.7f)}));
}

TEST_F(Arith, DenseConstants) {
  std::string source = R"(
fusion.fusion @f() -> tensor<2x2xi32> {
  %c = arith.constant dense<[[1, -2], [3, 4]]> : tensor<2x2xi32>
  fusion.return %c : tensor<2x2xi32>
}
)";
  EXPECT_TRUE(sameInts(run1(source, {}), {1, -2, 3, 4}));
  std::string splat = R"(
fusion.fusion @f() -> tensor<3xf16> {
  %c = arith.constant dense<0.1> : tensor<3xf16>
  fusion.return %c : tensor<3xf16>
}
)";
  EXPECT_TRUE(sameDoubles(run1(splat, {}),
                          {0.0999755859375, 0.0999755859375, 0.0999755859375}));
}

TEST_F(Arith, ScalarFusionArgsFeedFusionOps) {
  std::string source = R"(
fusion.fusion @f(%x: tensor<3xf32>, %s: f32) -> tensor<3xf32> {
  %b = fusion.broadcast_in_dim %s [] : f32 -> tensor<3xf32>
  %r = fusion.mul %x, %b : tensor<3xf32>
  fusion.return %r : tensor<3xf32>
}
)";
  EXPECT_TRUE(sameDoubles(
      run1(source, {f32s({1, 2, 3}), HostValue::scalar(DType::F32, 0.5)}),
      {0.5, 1, 1.5}));
}

} // namespace
