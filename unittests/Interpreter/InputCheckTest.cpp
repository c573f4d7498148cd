//===- InputCheckTest.cpp - inputs checked against the signature ----------===//
// Every mismatch is an error naming the input by index and name, with the
// expected and actual values.
//===----------------------------------------------------------------------===//

#include "TestSupport.h"

using namespace mlir::fusion::interp;
using namespace mlir::fusion::interp::test;

namespace {

using InputCheck = InterpreterTest;

const char *kSource = R"(
fusion.fusion @f(%x: tensor<?x4xf32> {fusion.name = "x"},
                 %bias: tensor<4xbf16> {fusion.name = "bias"},
                 %s: f32, %n: index) -> tensor<?x4xf32> {
  %b = fusion.cast %bias : tensor<4xbf16> to tensor<4xf32>
  %m = fusion.dim %x, 0 : tensor<?x4xf32>
  %bb = fusion.broadcast_in_dim %b [1] (%m) : tensor<4xf32> -> tensor<?x4xf32>
  %r = fusion.add %x, %bb : tensor<?x4xf32>
  fusion.return %r : tensor<?x4xf32>
}
)";

std::vector<HostValue> goodInputs() {
  return {HostTensor(DType::F32, {3, 4}), HostTensor(DType::BF16, {4}),
          HostValue::scalar(DType::F32, 1), HostValue::index(2)};
}

TEST_F(InputCheck, GoodInputsRun) {
  auto outputs = run(kSource, goodInputs());
  ASSERT_EQ(outputs.size(), 1u);
  EXPECT_EQ(outputs[0].typeString(), "tensor<3x4xf32>");
}

TEST_F(InputCheck, Count) {
  auto inputs = goodInputs();
  inputs.pop_back();
  EXPECT_EQ(runError(kSource, inputs), "fusion @f expects 4 inputs, got 3");
}

TEST_F(InputCheck, DType) {
  auto inputs = goodInputs();
  inputs[1] = HostTensor(DType::F32, {4});
  EXPECT_EQ(runError(kSource, inputs),
            "input 1 (bias): expected dtype bf16, got f32");
  inputs = goodInputs();
  inputs[2] = HostValue::scalar(DType::F64, 1);
  EXPECT_EQ(runError(kSource, inputs),
            "input 2 (arg2): expected dtype f32, got f64");
}

TEST_F(InputCheck, Rank) {
  auto inputs = goodInputs();
  inputs[0] = HostTensor(DType::F32, {3, 4, 1});
  EXPECT_EQ(runError(kSource, inputs),
            "input 0 (x): expected rank 2 (tensor<?x4xf32>), got rank 3 "
            "(tensor<3x4x1xf32>)");
}

TEST_F(InputCheck, StaticSize) {
  auto inputs = goodInputs();
  inputs[0] = HostTensor(DType::F32, {3, 5});
  EXPECT_EQ(runError(kSource, inputs),
            "input 0 (x): dim 1 expected size 4, got 5 (tensor<3x5xf32> for "
            "tensor<?x4xf32>)");
  inputs = goodInputs();
  inputs[1] = HostTensor(DType::BF16, {2});
  EXPECT_EQ(runError(kSource, inputs),
            "input 1 (bias): dim 0 expected size 4, got 2 (tensor<2xbf16> for "
            "tensor<4xbf16>)");
}

TEST_F(InputCheck, Kind) {
  auto inputs = goodInputs();
  inputs[0] = HostValue::scalar(DType::F32, 1);
  EXPECT_EQ(runError(kSource, inputs),
            "input 0 (x): expected a tensor tensor<?x4xf32>, got a scalar f32");
  inputs = goodInputs();
  inputs[2] = HostTensor(DType::F32, {});
  EXPECT_EQ(runError(kSource, inputs),
            "input 2 (arg2): expected a scalar f32, got a tensor tensor<f32>");
  inputs = goodInputs();
  inputs[3] = HostValue::intScalar(DType::I64, 2);
  EXPECT_EQ(runError(kSource, inputs),
            "input 3 (arg3): expected an index, got i64");
  inputs = goodInputs();
  inputs[2] = HostValue::index(1);
  EXPECT_EQ(runError(kSource, inputs),
            "input 2 (arg2): expected a scalar f32, got an index");
}

TEST_F(InputCheck, NoStorage) {
  auto inputs = goodInputs();
  inputs[1] = HostTensor();
  EXPECT_EQ(runError(kSource, inputs), "input 1 (bias): has no storage");
}

TEST_F(InputCheck, RunTimeSizeMismatchNamesTheOp) {
  const char *source = R"(
fusion.fusion @f(%a: tensor<?xf32>, %b: tensor<?xf32>) -> tensor<?xf32> {
  %r = fusion.mul %a, %b : tensor<?xf32>
  fusion.return %r : tensor<?xf32>
}
)";
  EXPECT_EQ(runError(source, {HostTensor(DType::F32, {3}),
                              HostTensor(DType::F32, {4})}),
            "'fusion.mul' at test.mlir:3:8: operand 1 has shape [4] but "
            "operand 0 has "
            "[3]; element-wise operands need one shape");
}

} // namespace
