//===- HostTensorTest.cpp - host tensors, views and printing --------------===//

#include "fusion/Interpreter/HostTensor.h"

#include "gtest/gtest.h"

#include <cmath>

using namespace mlir::fusion::interp;

namespace {

std::string printed(const HostTensor &t, PrintOptions options = {}) {
  std::string s;
  llvm::raw_string_ostream os(s);
  printTensor(os, t, options);
  return s;
}

TEST(HostTensor, ContiguousRoundTrip) {
  HostTensor t =
      HostTensor::fromDoubles(DType::F32, {2, 3}, {0.1, 1, 2, 3, 4, 5});
  EXPECT_EQ(t.rank(), 2);
  EXPECT_EQ(t.numElements(), 6);
  EXPECT_TRUE(t.isContiguous());
  EXPECT_EQ(t.strides()[0], 3);
  EXPECT_EQ(t.getDouble({0, 0}), double(0.1f));
  EXPECT_EQ(t.getDouble({1, 2}), 5.0);
  EXPECT_EQ(t.typeString(), "tensor<2x3xf32>");
  EXPECT_EQ(dtypeBytes(DType::BF16), 2);
  EXPECT_EQ(t.storageElements(), 6);
}

TEST(HostTensor, StridedViewsAndZeroStrides) {
  // A transposed view of a 2x3 buffer.
  auto base = HostTensor::strided(DType::F64, {3, 2}, {1, 3}, 6);
  ASSERT_TRUE(bool(base)) << llvm::toString(base.takeError());
  for (int i = 0; i < 6; ++i)
    base->storeDouble(i, i);
  EXPECT_FALSE(base->isContiguous());
  EXPECT_EQ(base->toDoubles(), (std::vector<double>{0, 3, 1, 4, 2, 5}));
  HostTensor dense = base->clone();
  EXPECT_TRUE(dense.isContiguous());
  EXPECT_EQ(dense.toDoubles(), (std::vector<double>{0, 3, 1, 4, 2, 5}));

  // A broadcast: one row repeated with stride 0.
  auto row = base->view({4, 3}, {0, 1}, 0);
  ASSERT_TRUE(bool(row)) << llvm::toString(row.takeError());
  EXPECT_EQ(row->getDouble({3, 2}), 2.0);
  // Views share storage.
  base->storeDouble(1, 42);
  EXPECT_EQ(row->getDouble({2, 1}), 42.0);
  // Negative strides walk backwards.
  auto reversed = base->view({6}, {-1}, 5);
  ASSERT_TRUE(bool(reversed));
  EXPECT_EQ(reversed->getDouble(int64_t(0)), 5.0);
}

TEST(HostTensor, ViewsOutsideTheStorageAreErrors) {
  auto bad = HostTensor::strided(DType::F32, {2, 3}, {3, 1}, 5);
  ASSERT_FALSE(bool(bad));
  EXPECT_EQ(llvm::toString(bad.takeError()),
            "the view reaches elements [0, 5] outside the storage of 5 "
            "elements");
  // Empty tensors reach nothing.
  auto empty = HostTensor::strided(DType::F32, {0, 3}, {100, 1}, 0);
  EXPECT_TRUE(bool(empty));
}

TEST(HostTensor, IntegerAndBoolStorage) {
  HostTensor t = HostTensor::fromInts(DType::I8, {3}, {127, 128, -129});
  EXPECT_EQ(t.toInts(), (std::vector<int64_t>{127, -128, 127}));
  HostTensor b = HostTensor::fromInts(DType::I1, {3}, {0, 5, -1});
  EXPECT_EQ(b.toInts(), (std::vector<int64_t>{0, 1, 1}));
  EXPECT_EQ(b.storage()[1], 1);
  HostTensor h = HostTensor::fromDoubles(DType::BF16, {2}, {1.00390625, 3});
  EXPECT_EQ(h.toDoubles(), (std::vector<double>{1.0, 3.0}));
}

TEST(HostTensor, Values) {
  HostValue s = HostValue::scalar(DType::F16, 0.1);
  EXPECT_TRUE(s.isScalar());
  EXPECT_EQ(s.getDouble(), 0.0999755859375);
  EXPECT_EQ(s.typeString(), "f16");
  HostValue i = HostValue::index(7);
  EXPECT_TRUE(i.isIndex());
  EXPECT_EQ(i.getInt(), 7);
  EXPECT_EQ(i.typeString(), "index");
  HostValue t = HostTensor(DType::I32, {2});
  EXPECT_EQ(t.typeString(), "tensor<2xi32>");
}

TEST(HostTensor, Printing) {
  EXPECT_EQ(printed(HostTensor::fromDoubles(DType::F32, {2, 2},
                                            {0.1, -2, 1.5, INFINITY})),
            "[[0.1, -2],\n [1.5, inf]]");
  EXPECT_EQ(printed(HostTensor::fromInts(DType::I1, {2}, {1, 0})),
            "[true, false]");
  EXPECT_EQ(printed(HostTensor::scalar(DType::BF16, 1.00390625)), "1");
  EXPECT_EQ(printed(HostTensor(DType::F32, {0})), "[]");
  EXPECT_EQ(printed(HostTensor::fromInts(DType::I64, {2, 1, 2}, {1, 2, 3, 4})),
            "[[[1, 2]],\n\n [[3, 4]]]");
  std::vector<double> many(20);
  for (int i = 0; i < 20; ++i)
    many[i] = i;
  PrintOptions options;
  options.summarizeAbove = 10;
  EXPECT_EQ(printed(HostTensor::fromDoubles(DType::F64, {20}, many), options),
            "[0, 1, 2, ..., 17, 18, 19]\n(20 elements; min 0, max 19, mean "
            "9.5)");
  EXPECT_EQ(formatFloat(0.1f, DType::F32), "0.1");
  EXPECT_EQ(formatFloat(0.1, DType::F64), "0.1");
  EXPECT_EQ(formatFloat(double(0.1f), DType::F64), "0.10000000149011612");
  EXPECT_EQ(formatFloat(NAN, DType::F32), "nan");
}

} // namespace
