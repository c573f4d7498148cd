//===- ReductionTest.cpp - reductions, var_mean, argmax/argmin ------------===//

#include "TestSupport.h"

using namespace mlir::fusion::interp;
using namespace mlir::fusion::interp::test;

namespace {

using Reduction = InterpreterTest;

std::string reduceFusion(const std::string &op, const std::string &in,
                         const std::string &out, const std::string &dims,
                         bool keepdim) {
  return "fusion.fusion @f(%x: " + in + ") -> " + out + " {\n  %r = fusion." +
         op + " %x [" + dims + "]" + (keepdim ? " keepdim" : "") + " : " + in +
         " -> " + out + "\n  fusion.return %r : " + out + "\n}\n";
}

// x = [[1, 2, 3], [4, 5, 6]]
HostTensor matrix(DType dtype = DType::F32) {
  return HostTensor::fromDoubles(dtype, {2, 3}, {1, 2, 3, 4, 5, 6});
}

TEST_F(Reduction, SumProdMaxMinOverEachDim) {
  struct Case {
    const char *op;
    std::vector<double> rows, cols, all;
  };
  for (const Case &c : std::vector<Case>{
           {"sum", {6, 15}, {5, 7, 9}, {21}},
           {"prod", {6, 120}, {4, 10, 18}, {720}},
           {"max", {3, 6}, {4, 5, 6}, {6}},
           {"min", {1, 4}, {1, 2, 3}, {1}},
       }) {
    EXPECT_TRUE(sameDoubles(
        run1(reduceFusion(c.op, "tensor<2x3xf32>", "tensor<2xf32>", "1", false),
             {matrix()}),
        c.rows))
        << c.op;
    HostTensor cols = run1(
        reduceFusion(c.op, "tensor<2x3xf32>", "tensor<1x3xf32>", "0", true),
        {matrix()});
    EXPECT_EQ(sizesOf(cols), (std::vector<int64_t>{1, 3}));
    EXPECT_TRUE(sameDoubles(cols, c.cols)) << c.op;
    // Several dims, in any order.
    HostTensor all = run1(
        reduceFusion(c.op, "tensor<2x3xf32>", "tensor<1x1xf32>", "1, 0", true),
        {matrix()});
    EXPECT_EQ(sizesOf(all), (std::vector<int64_t>{1, 1}));
    EXPECT_TRUE(sameDoubles(all, c.all)) << c.op;
    HostTensor scalar = run1(
        reduceFusion(c.op, "tensor<2x3xf32>", "tensor<f32>", "0, 1", false),
        {matrix()});
    EXPECT_EQ(scalar.rank(), 0);
    EXPECT_TRUE(sameDoubles(scalar, c.all)) << c.op;
  }
}

TEST_F(Reduction, MiddleDimOfRank3) {
  HostTensor x(DType::I64, {2, 3, 2});
  for (int i = 0; i < 12; ++i)
    x.storeInt(i, i);
  // sum over dim 1: [[0+2+4, 1+3+5], [6+8+10, 7+9+11]]
  EXPECT_TRUE(sameInts(run1(reduceFusion("sum", "tensor<2x3x2xi64>",
                                         "tensor<2x1x2xi64>", "1", true),
                            {x}),
                       {6, 9, 24, 27}));
  EXPECT_TRUE(sameInts(run1(reduceFusion("max", "tensor<2x3x2xi64>",
                                         "tensor<3xi64>", "0, 2", false),
                            {x}),
                       {7, 9, 11}));
}

TEST_F(Reduction, EmptyDims) {
  HostTensor empty(DType::F32, {2, 0});
  EXPECT_TRUE(sameDoubles(
      run1(reduceFusion("sum", "tensor<2x?xf32>", "tensor<2xf32>", "1", false),
           {empty}),
      {0, 0}));
  EXPECT_TRUE(sameDoubles(
      run1(reduceFusion("prod", "tensor<2x?xf32>", "tensor<2xf32>", "1", false),
           {empty}),
      {1, 1}));
  EXPECT_TRUE(sameDoubles(
      run1(reduceFusion("max", "tensor<2x?xf32>", "tensor<2xf32>", "1", false),
           {empty}),
      {-INFINITY, -INFINITY}));
  EXPECT_TRUE(sameDoubles(
      run1(reduceFusion("min", "tensor<2x?xf32>", "tensor<2xf32>", "1", false),
           {empty}),
      {INFINITY, INFINITY}));
  HostTensor emptyInts(DType::I16, {0});
  EXPECT_TRUE(sameInts(
      run1(reduceFusion("max", "tensor<?xi16>", "tensor<i16>", "0", false),
           {emptyInts}),
      {-32768}));
  EXPECT_TRUE(sameInts(
      run1(reduceFusion("min", "tensor<?xi16>", "tensor<i16>", "0", false),
           {emptyInts}),
      {32767}));
  // Reducing a non-empty dim of an empty tensor gives an empty result.
  HostTensor out =
      run1(reduceFusion("sum", "tensor<2x?xf32>", "tensor<?xf32>", "0", false),
           {empty});
  EXPECT_EQ(out.numElements(), 0);
}

TEST_F(Reduction, NaNPropagates) {
  HostTensor x = f32s({1, NAN, 3});
  for (const char *op : {"sum", "prod", "max", "min"})
    EXPECT_TRUE(sameDoubles(
        run1(reduceFusion(op, "tensor<3xf32>", "tensor<f32>", "0", false), {x}),
        {NAN}))
        << op;
}

TEST_F(Reduction, AccumulatesInDoubleAndRoundsOnce) {
  // 1 + 2^-8 + 2^-8 in bf16 step by step stays 1 (each add ties to even);
  // accumulated exactly it is 1 + 2^-7.
  HostTensor x = tensor(DType::BF16, {3}, {1, 0.00390625, 0.00390625});
  EXPECT_TRUE(sameDoubles(
      run1(reduceFusion("sum", "tensor<3xbf16>", "tensor<bf16>", "0", false),
           {x}),
      {1.0078125}));
  // Integer sums wrap in the element type.
  EXPECT_TRUE(sameInts(
      run1(reduceFusion("sum", "tensor<2xi8>", "tensor<i8>", "0", false),
           {ints(DType::I8, {100, 100})}),
      {-56}));
}

TEST_F(Reduction, BoolReductionsAreAnyAndAll) {
  HostTensor x = HostTensor::fromInts(DType::I1, {2, 2}, {0, 1, 0, 0});
  EXPECT_TRUE(sameInts(
      run1(reduceFusion("sum", "tensor<2x2xi1>", "tensor<2xi1>", "1", false),
           {x}),
      {1, 0}));
  EXPECT_TRUE(sameInts(
      run1(reduceFusion("max", "tensor<2x2xi1>", "tensor<2xi1>", "1", false),
           {x}),
      {1, 0}));
  EXPECT_TRUE(sameInts(
      run1(reduceFusion("prod", "tensor<2x2xi1>", "tensor<2xi1>", "0", false),
           {x}),
      {0, 0}));
}

std::string varMeanFusion(const std::string &in, const std::string &out,
                          const std::string &dims, int correction,
                          bool keepdim) {
  return "fusion.fusion @f(%x: " + in + ") -> (" + out + ", " + out +
         ") {\n  %v, %m = fusion.var_mean %x [" + dims +
         "] correction = " + std::to_string(correction) +
         (keepdim ? " keepdim" : "") + " : " + in + " -> " + out +
         "\n  fusion.return %v, %m : " + out + ", " + out + "\n}\n";
}

TEST_F(Reduction, VarMeanWithCorrection) {
  // Rows [1, 2, 3] and [4, 5, 6]: mean 2 and 5, squared deviations sum 2.
  auto outputs =
      run(varMeanFusion("tensor<2x3xf64>", "tensor<2xf64>", "1", 1, false),
          {matrix(DType::F64)});
  ASSERT_EQ(outputs.size(), 2u);
  EXPECT_TRUE(sameDoubles(outputs[0], {1, 1}));
  EXPECT_TRUE(sameDoubles(outputs[1], {2, 5}));

  outputs =
      run(varMeanFusion("tensor<2x3xf64>", "tensor<2x1xf64>", "1", 0, true),
          {matrix(DType::F64)});
  ASSERT_EQ(outputs.size(), 2u);
  EXPECT_EQ(sizesOf(outputs[0]), (std::vector<int64_t>{2, 1}));
  EXPECT_TRUE(nearDoubles(outputs[0], {2.0 / 3, 2.0 / 3}, 1e-15));

  // Over all elements: mean 3.5, sum of squares 17.5, / (6 - 2).
  outputs =
      run(varMeanFusion("tensor<2x3xf64>", "tensor<f64>", "0, 1", 2, false),
          {matrix(DType::F64)});
  ASSERT_EQ(outputs.size(), 2u);
  EXPECT_TRUE(sameDoubles(outputs[0], {4.375}));
  EXPECT_TRUE(sameDoubles(outputs[1], {3.5}));

  // N - correction <= 0 gives NaN; the mean of nothing is NaN.
  outputs =
      run(varMeanFusion("tensor<2x3xf64>", "tensor<2xf64>", "1", 3, false),
          {matrix(DType::F64)});
  ASSERT_EQ(outputs.size(), 2u);
  EXPECT_TRUE(sameDoubles(outputs[0], {NAN, NAN}));
  outputs = run(varMeanFusion("tensor<?xf32>", "tensor<f32>", "0", 0, false),
                {HostTensor(DType::F32, {0})});
  ASSERT_EQ(outputs.size(), 2u);
  EXPECT_TRUE(sameDoubles(outputs[0], {NAN}));
  EXPECT_TRUE(sameDoubles(outputs[1], {NAN}));
}

std::string argFusion(const std::string &op, const std::string &in,
                      const std::string &out, int dim, bool keepdim) {
  return "fusion.fusion @f(%x: " + in + ") -> " + out + " {\n  %r = fusion." +
         op + " %x dim = " + std::to_string(dim) + (keepdim ? " keepdim" : "") +
         " : " + in + " -> " + out + "\n  fusion.return %r : " + out + "\n}\n";
}

TEST_F(Reduction, ArgmaxArgmin) {
  HostTensor x =
      HostTensor::fromDoubles(DType::F32, {2, 4}, {3, 7, 7, 1, 2, 2, 0, 0});
  // The first extreme wins ties.
  EXPECT_TRUE(sameInts(
      run1(argFusion("argmax", "tensor<2x4xf32>", "tensor<2xi64>", 1, false),
           {x}),
      {1, 0}));
  EXPECT_TRUE(sameInts(
      run1(argFusion("argmin", "tensor<2x4xf32>", "tensor<2xi64>", 1, false),
           {x}),
      {3, 2}));
  HostTensor cols = run1(
      argFusion("argmax", "tensor<2x4xf32>", "tensor<1x4xi64>", 0, true), {x});
  EXPECT_EQ(sizesOf(cols), (std::vector<int64_t>{1, 4}));
  EXPECT_TRUE(sameInts(cols, {0, 0, 0, 0}));
  // NaN is the extreme for both.
  HostTensor nan = f32s({1, NAN, 5, NAN});
  EXPECT_TRUE(sameInts(
      run1(argFusion("argmax", "tensor<4xf32>", "tensor<i64>", 0, false),
           {nan}),
      {1}));
  EXPECT_TRUE(sameInts(
      run1(argFusion("argmin", "tensor<4xf32>", "tensor<i64>", 0, false),
           {nan}),
      {1}));
  EXPECT_TRUE(sameInts(
      run1(argFusion("argmin", "tensor<3xi32>", "tensor<i64>", 0, false),
           {ints(DType::I32, {4, -2, -2})}),
      {1}));
  EXPECT_EQ(
      runError(argFusion("argmax", "tensor<?xf32>", "tensor<i64>", 0, false),
               {HostTensor(DType::F32, {0})}),
      "'fusion.argmax' at test.mlir:2:8: dim 0 is empty; there is no extreme "
      "element to find");
}

TEST_F(Reduction, StridedInput) {
  // The transpose of [[1, 2, 3], [4, 5, 6]] through strides.
  auto x = HostTensor::strided(DType::F32, {3, 2}, {1, 3}, 6);
  ASSERT_TRUE(bool(x));
  for (int i = 0; i < 6; ++i)
    x->storeDouble(i, i + 1);
  EXPECT_TRUE(sameDoubles(
      run1(reduceFusion("sum", "tensor<3x2xf32>", "tensor<3xf32>", "1", false),
           {*x}),
      {5, 7, 9}));
}

} // namespace
