//===- ShapeTest.cpp - shape, factory and indexing ops --------------------===//

#include "TestSupport.h"

using namespace mlir::fusion::interp;
using namespace mlir::fusion::interp::test;

namespace {

using Shape = InterpreterTest;

HostTensor iota(DType dtype, std::vector<int64_t> sizes) {
  HostTensor t(dtype, sizes);
  for (int64_t i = 0; i < t.numElements(); ++i)
    t.storeInt(i, i);
  return t;
}

TEST_F(Shape, BroadcastInDim) {
  std::string source = R"(
fusion.fusion @f(%x: tensor<?xf32>, %m: index) -> tensor<?x?xf32> {
  %n = fusion.dim %x, 0 : tensor<?xf32>
  %r = fusion.broadcast_in_dim %x [1] (%m, %n) : tensor<?xf32> -> tensor<?x?xf32>
  fusion.return %r : tensor<?x?xf32>
}
)";
  HostTensor out = run1(source, {f32s({1, 2, 3}), HostValue::index(2)});
  EXPECT_EQ(sizesOf(out), (std::vector<int64_t>{2, 3}));
  EXPECT_TRUE(sameDoubles(out, {1, 2, 3, 1, 2, 3}));

  // Size-1 dims broadcast; the new dim goes in the middle.
  std::string middle = R"(
fusion.fusion @f(%x: tensor<2x1xi32>) -> tensor<2x3x2xi32> {
  %r = fusion.broadcast_in_dim %x [0, 2] : tensor<2x1xi32> -> tensor<2x3x2xi32>
  fusion.return %r : tensor<2x3x2xi32>
}
)";
  EXPECT_TRUE(sameInts(run1(middle, {iota(DType::I32, {2, 1})}),
                       {0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1}));

  // A scalar fills the result.
  std::string scalar = R"(
fusion.fusion @f(%x: f32) -> tensor<2x2xf32> {
  %r = fusion.broadcast_in_dim %x [] : f32 -> tensor<2x2xf32>
  fusion.return %r : tensor<2x2xf32>
}
)";
  EXPECT_TRUE(sameDoubles(run1(scalar, {HostValue::scalar(DType::F32, 7)}),
                          {7, 7, 7, 7}));
}

TEST_F(Shape, BroadcastMismatchAtRunTime) {
  std::string source = R"(
fusion.fusion @f(%x: tensor<?xf32>) -> tensor<2x4xf32> {
  %r = fusion.broadcast_in_dim %x [1] : tensor<?xf32> -> tensor<2x4xf32>
  fusion.return %r : tensor<2x4xf32>
}
)";
  EXPECT_EQ(runError(source, {f32s({1, 2, 3})}),
            "'fusion.broadcast_in_dim' at test.mlir:3:8: operand dim 0 (size "
            "3) cannot "
            "broadcast to result dim 1 (size 4)");
}

TEST_F(Shape, Expand) {
  std::string source = R"(
fusion.fusion @f(%x: tensor<2x1xf32>, %n: index) -> tensor<2x?xf32> {
  %r = fusion.expand %x (%n) : tensor<2x1xf32> -> tensor<2x?xf32>
  fusion.return %r : tensor<2x?xf32>
}
)";
  HostTensor out =
      run1(source, {tensor(DType::F32, {2, 1}, {5, 6}), HostValue::index(3)});
  EXPECT_EQ(sizesOf(out), (std::vector<int64_t>{2, 3}));
  EXPECT_TRUE(sameDoubles(out, {5, 5, 5, 6, 6, 6}));
}

TEST_F(Shape, ReshapeAndPermute) {
  std::string reshape = R"(
fusion.fusion @f(%x: tensor<2x3xi64>) -> tensor<3x2xi64> {
  %r = fusion.reshape %x : tensor<2x3xi64> -> tensor<3x2xi64>
  fusion.return %r : tensor<3x2xi64>
}
)";
  HostTensor out = run1(reshape, {iota(DType::I64, {2, 3})});
  EXPECT_EQ(sizesOf(out), (std::vector<int64_t>{3, 2}));
  EXPECT_TRUE(sameInts(out, {0, 1, 2, 3, 4, 5}));

  std::string dynamic = R"(
fusion.fusion @f(%x: tensor<?x?xi64>, %n: index) -> tensor<?xi64> {
  %r = fusion.reshape %x (%n) : tensor<?x?xi64> -> tensor<?xi64>
  fusion.return %r : tensor<?xi64>
}
)";
  EXPECT_EQ(runError(dynamic, {iota(DType::I64, {2, 3}), HostValue::index(5)}),
            "'fusion.reshape' at test.mlir:3:8: operand shape [2, 3] has 6 "
            "elements but "
            "result shape [5] has 5");

  std::string permute = R"(
fusion.fusion @f(%x: tensor<2x3x4xi64>) -> tensor<4x2x3xi64> {
  %r = fusion.permute %x [2, 0, 1] : tensor<2x3x4xi64> -> tensor<4x2x3xi64>
  fusion.return %r : tensor<4x2x3xi64>
}
)";
  HostTensor p = run1(permute, {iota(DType::I64, {2, 3, 4})});
  EXPECT_EQ(sizesOf(p), (std::vector<int64_t>{4, 2, 3}));
  // result[k][i][j] = input[i][j][k] = 12 i + 4 j + k.
  std::vector<int64_t> expected;
  for (int k = 0; k < 4; ++k)
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 3; ++j)
        expected.push_back(12 * i + 4 * j + k);
  EXPECT_TRUE(sameInts(p, expected));
}

TEST_F(Shape, Squeeze) {
  std::string source = R"(
fusion.fusion @f(%x: tensor<1x?x1xf32>) -> tensor<?xf32> {
  %r = fusion.squeeze %x [0, 2] : tensor<1x?x1xf32> -> tensor<?xf32>
  fusion.return %r : tensor<?xf32>
}
)";
  EXPECT_TRUE(sameDoubles(
      run1(source, {tensor(DType::F32, {1, 3, 1}, {1, 2, 3})}), {1, 2, 3}));
  std::string dynamic = R"(
fusion.fusion @f(%x: tensor<?x3xf32>) -> tensor<3xf32> {
  %r = fusion.squeeze %x [0] : tensor<?x3xf32> -> tensor<3xf32>
  fusion.return %r : tensor<3xf32>
}
)";
  EXPECT_EQ(
      runError(dynamic, {HostTensor(DType::F32, {2, 3})}),
      "'fusion.squeeze' at test.mlir:3:8: squeezed dim 0 has size 2, not 1");
}

TEST_F(Shape, SliceWithStepsAndClampedBounds) {
  std::string source = R"(
fusion.fusion @f(%x: tensor<3x5xi32>) -> tensor<2x2xi32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %cm = arith.constant -7 : index
  %c10 = arith.constant 10 : index
  %r = fusion.slice %x [%cm, %c1] [%c2, %c10] [%c1, %c2] : tensor<3x5xi32> -> tensor<2x2xi32>
  fusion.return %r : tensor<2x2xi32>
}
)";
  // Rows [-7, 2) clamp to [0, 2); columns 1, 3 of [1, 10) clamped to 5.
  EXPECT_TRUE(sameInts(run1(source, {iota(DType::I32, {3, 5})}), {1, 3, 6, 8}));

  std::string dynamic = R"(
fusion.fusion @f(%x: tensor<?xi32>, %lo: index, %hi: index, %st: index) -> tensor<?xi32> {
  %r = fusion.slice %x [%lo] [%hi] [%st] : tensor<?xi32> -> tensor<?xi32>
  fusion.return %r : tensor<?xi32>
}
)";
  auto slice = [&](int64_t lo, int64_t hi, int64_t st) {
    return run1(dynamic, {iota(DType::I32, {10}), HostValue::index(lo),
                          HostValue::index(hi), HostValue::index(st)});
  };
  EXPECT_TRUE(sameInts(slice(2, 9, 3), {2, 5, 8}));
  EXPECT_TRUE(sameInts(slice(8, 100, 1), {8, 9}));
  EXPECT_TRUE(sameInts(slice(5, 2, 1), {}));   // empty, not an error
  EXPECT_TRUE(sameInts(slice(-5, -1, 1), {})); // negative bounds don't wrap
  EXPECT_EQ(runError(dynamic, {iota(DType::I32, {10}), HostValue::index(0),
                               HostValue::index(5), HostValue::index(0)}),
            "'fusion.slice' at test.mlir:3:8: step of dim 0 is 0; steps must "
            "be >= 1");
}

TEST_F(Shape, SliceDisagreeingWithItsStaticType) {
  std::string source = R"(
fusion.fusion @f(%x: tensor<?xi32>, %hi: index) -> tensor<3xi32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = fusion.slice %x [%c0] [%hi] [%c1] : tensor<?xi32> -> tensor<3xi32>
  fusion.return %r : tensor<3xi32>
}
)";
  EXPECT_EQ(
      runError(source, {iota(DType::I32, {10}), HostValue::index(4)}),
      "'fusion.slice' at test.mlir:5:8: result 0 has shape [4] but its type is "
      "tensor<3xi32>");
}

TEST_F(Shape, Pad) {
  std::string source = R"(
fusion.fusion @f(%x: tensor<2x2xf32>) -> tensor<3x5xf32> {
  %v = arith.constant -1.0 : f32
  %r = fusion.pad %x, %v low [1, 0] high [0, 3] : tensor<2x2xf32>, f32 -> tensor<3x5xf32>
  fusion.return %r : tensor<3x5xf32>
}
)";
  EXPECT_TRUE(
      sameDoubles(run1(source, {tensor(DType::F32, {2, 2}, {1, 2, 3, 4})}),
                  {-1, -1, -1, -1, -1, 1, 2, -1, -1, -1, 3, 4, -1, -1, -1}));
}

TEST_F(Shape, Cat) {
  std::string source = R"(
fusion.fusion @f(%a: tensor<2x1xi32>, %b: tensor<2x?xi32>) -> tensor<2x?xi32> {
  %r = fusion.cat %a, %b dim = 1 : tensor<2x1xi32>, tensor<2x?xi32> -> tensor<2x?xi32>
  fusion.return %r : tensor<2x?xi32>
}
)";
  HostTensor out =
      run1(source, {HostTensor::fromInts(DType::I32, {2, 1}, {-1, -2}),
                    iota(DType::I32, {2, 2})});
  EXPECT_EQ(sizesOf(out), (std::vector<int64_t>{2, 3}));
  EXPECT_TRUE(sameInts(out, {-1, 0, 1, -2, 2, 3}));

  std::string rows = R"(
fusion.fusion @f(%a: tensor<?x2xi32>, %b: tensor<?x2xi32>) -> tensor<?x2xi32> {
  %r = fusion.cat %a, %b dim = 0 : tensor<?x2xi32>, tensor<?x2xi32> -> tensor<?x2xi32>
  fusion.return %r : tensor<?x2xi32>
}
)";
  EXPECT_TRUE(sameInts(
      run1(rows, {iota(DType::I32, {1, 2}), HostTensor(DType::I32, {0, 2})}),
      {0, 1}));
}

TEST_F(Shape, FullAndIota) {
  std::string full = R"(
fusion.fusion @f(%n: index) -> tensor<2x?xbf16> {
  %v = arith.constant 0.1 : bf16
  %r = fusion.full %v (%n) : bf16 -> tensor<2x?xbf16>
  fusion.return %r : tensor<2x?xbf16>
}
)";
  HostTensor out = run1(full, {HostValue::index(2)});
  EXPECT_EQ(out.typeString(), "tensor<2x2xbf16>");
  EXPECT_TRUE(sameDoubles(
      out, {0.10009765625, 0.10009765625, 0.10009765625, 0.10009765625}));

  std::string iotaF = R"(
fusion.fusion @f(%n: index) -> tensor<?xf32> {
  %s = arith.constant 1.0 : f32
  %d = arith.constant 0.5 : f32
  %r = fusion.iota %s, %d (%n) : f32 -> tensor<?xf32>
  fusion.return %r : tensor<?xf32>
}
)";
  EXPECT_TRUE(
      sameDoubles(run1(iotaF, {HostValue::index(4)}), {1, 1.5, 2, 2.5}));
  std::string iotaI = R"(
fusion.fusion @f() -> tensor<4xi8> {
  %s = arith.constant 120 : i8
  %d = arith.constant 3 : i8
  %r = fusion.iota %s, %d : i8 -> tensor<4xi8>
  fusion.return %r : tensor<4xi8>
}
)";
  // Wraps in the element type.
  EXPECT_TRUE(sameInts(run1(iotaI, {}), {120, 123, 126, -127}));
}

TEST_F(Shape, IndexSelect) {
  std::string source = R"(
fusion.fusion @f(%x: tensor<3x2xf32>, %i: tensor<?xi64>) -> tensor<?x2xf32> {
  %r = fusion.index_select %x, %i dim = 0 : tensor<3x2xf32>, tensor<?xi64> -> tensor<?x2xf32>
  fusion.return %r : tensor<?x2xf32>
}
)";
  HostTensor x = tensor(DType::F32, {3, 2}, {0, 1, 10, 11, 20, 21});
  EXPECT_TRUE(sameDoubles(run1(source, {x, ints(DType::I64, {2, 0, 2})}),
                          {20, 21, 0, 1, 20, 21}));
  EXPECT_EQ(
      runError(source, {x, ints(DType::I64, {1, 3})}),
      "'fusion.index_select' at test.mlir:3:8: index 3 at position 1 is out of "
      "range [0, 3) of dim 0");
  EXPECT_EQ(runError(source, {x, ints(DType::I64, {-1})}),
            "'fusion.index_select' at test.mlir:3:8: index -1 at position 0 is "
            "out of "
            "range [0, 3) of dim 0");

  std::string cols = R"(
fusion.fusion @f(%x: tensor<2x3xi32>, %i: tensor<2xi32>) -> tensor<2x2xi32> {
  %r = fusion.index_select %x, %i dim = 1 : tensor<2x3xi32>, tensor<2xi32> -> tensor<2x2xi32>
  fusion.return %r : tensor<2x2xi32>
}
)";
  EXPECT_TRUE(
      sameInts(run1(cols, {iota(DType::I32, {2, 3}), ints(DType::I32, {2, 2})}),
               {2, 2, 5, 5}));
}

TEST_F(Shape, Gather) {
  std::string source = R"(
fusion.fusion @f(%x: tensor<2x3xf32>, %i: tensor<2x2xi64>) -> tensor<2x2xf32> {
  %r = fusion.gather %x, %i dim = 1 : tensor<2x3xf32>, tensor<2x2xi64> -> tensor<2x2xf32>
  fusion.return %r : tensor<2x2xf32>
}
)";
  HostTensor x = tensor(DType::F32, {2, 3}, {0, 1, 2, 10, 11, 12});
  EXPECT_TRUE(sameDoubles(
      run1(source, {x, HostTensor::fromInts(DType::I64, {2, 2}, {2, 0, 1, 1})}),
      {2, 0, 11, 11}));
  EXPECT_EQ(runError(source, {x, HostTensor::fromInts(DType::I64, {2, 2},
                                                      {0, 0, 5, 0})}),
            "'fusion.gather' at test.mlir:3:8: index 5 at [1, 0] is out of "
            "range [0, 3) of "
            "dim 1");
}

TEST_F(Shape, DimAndIndexArithmetic) {
  std::string source = R"(
fusion.fusion @f(%x: tensor<?x?xf32>) -> tensor<?xf32> {
  %m = fusion.dim %x, 0 : tensor<?x?xf32>
  %n = fusion.dim %x, 1 : tensor<?x?xf32>
  %mn = arith.muli %m, %n : index
  %r = fusion.reshape %x (%mn) : tensor<?x?xf32> -> tensor<?xf32>
  fusion.return %r : tensor<?xf32>
}
)";
  HostTensor out = run1(source, {tensor(DType::F32, {2, 2}, {1, 2, 3, 4})});
  EXPECT_EQ(sizesOf(out), (std::vector<int64_t>{4}));
}

TEST_F(Shape, NegativeSizeOperandIsAnError) {
  std::string source = R"(
fusion.fusion @f(%n: index) -> tensor<?xf32> {
  %v = arith.constant 0.0 : f32
  %r = fusion.full %v (%n) : f32 -> tensor<?xf32>
  fusion.return %r : tensor<?xf32>
}
)";
  EXPECT_EQ(runError(source, {HostValue::index(-2)}),
            "'fusion.full' at test.mlir:4:8: size operand 0 (result dim 0) is "
            "negative: "
            "-2");
}

TEST_F(Shape, HugeResultsAreErrorsNotCrashes) {
  std::string source = R"(
fusion.fusion @f(%n: index) -> tensor<?x?xf32> {
  %v = arith.constant 0.0 : f32
  %r = fusion.full %v (%n, %n) : f32 -> tensor<?x?xf32>
  fusion.return %r : tensor<?x?xf32>
}
)";
  EXPECT_EQ(runError(source, {HostValue::index(int64_t(1) << 40)}),
            "'fusion.full' at test.mlir:4:8: result shape [1099511627776, "
            "1099511627776] has more than 2^32 elements, too many for the "
            "interpreter");
  // Huge steps don't overflow the slice size.
  std::string slice = R"(
fusion.fusion @f(%x: tensor<?xi32>, %st: index) -> tensor<?xi32> {
  %c0 = arith.constant 0 : index
  %c9 = arith.constant 9 : index
  %r = fusion.slice %x [%c0] [%c9] [%st] : tensor<?xi32> -> tensor<?xi32>
  fusion.return %r : tensor<?xi32>
}
)";
  EXPECT_TRUE(sameInts(
      run1(slice, {iota(DType::I32, {10}), HostValue::index(INT64_MAX)}), {0}));
}

} // namespace
