//===- NpyTest.cpp - .npy reading and writing -----------------------------===//

#include "fusion/Interpreter/Npy.h"

#include "gtest/gtest.h"

using namespace mlir::fusion::interp;

namespace {

/// A .npy image with the given header dict and raw data.
std::string npy(const std::string &dict, const std::string &data) {
  std::string header = dict;
  while ((10 + header.size() + 1) % 64)
    header += ' ';
  header += '\n';
  std::string out = "\x93NUMPY";
  out += char(1);
  out += char(0);
  out += char(header.size() & 0xff);
  out += char(header.size() >> 8);
  return out + header + data;
}

template <typename T> std::string raw(std::initializer_list<T> values) {
  std::string s;
  for (T v : values)
    s.append(reinterpret_cast<const char *>(&v), sizeof(T));
  return s;
}

TEST(Npy, RoundTripsEveryDType) {
  for (DType dtype :
       {DType::F64, DType::F32, DType::F16, DType::BF16, DType::I64, DType::I32,
        DType::I16, DType::I8, DType::I1, DType::F8E4M3FN, DType::F8E5M2}) {
    HostTensor t = HostTensor::fromDoubles(dtype, {2, 3}, {0, 1, -2, 3, 1, 0});
    auto back = parseNpy(serializeNpy(t), dtype);
    ASSERT_TRUE(bool(back))
        << dtypeName(dtype).str() << ": " << llvm::toString(back.takeError());
    EXPECT_EQ(back->dtype(), dtype);
    EXPECT_EQ(back->typeString(), t.typeString());
    EXPECT_EQ(back->toDoubles(), t.toDoubles()) << dtypeName(dtype).str();
  }
}

TEST(Npy, HeaderIsNumpys) {
  std::string image =
      serializeNpy(HostTensor::fromDoubles(DType::F32, {3}, {1, 2, 3}));
  EXPECT_EQ(image.size() % 64, 12u); // 64-byte header, then 3 * 4 bytes
  EXPECT_NE(image.find("{'descr': '<f4', 'fortran_order': False, 'shape': "
                       "(3,), }"),
            std::string::npos);
  std::string scalar = serializeNpy(HostTensor::scalar(DType::F64, 1));
  EXPECT_NE(scalar.find("'shape': ()"), std::string::npos);
}

TEST(Npy, StridedTensorsAreWrittenInCOrder) {
  auto t = HostTensor::strided(DType::I32, {2, 2}, {1, 2}, 4);
  ASSERT_TRUE(bool(t));
  for (int i = 0; i < 4; ++i)
    t->storeInt(i, i);
  auto back = parseNpy(serializeNpy(*t));
  ASSERT_TRUE(bool(back));
  EXPECT_EQ(back->toInts(), (std::vector<int64_t>{0, 2, 1, 3}));
}

TEST(Npy, ReadsFortranOrder) {
  auto t = parseNpy(npy("{'descr': '<i8', 'fortran_order': True, 'shape': "
                        "(2, 3), }",
                        raw<int64_t>({1, 4, 2, 5, 3, 6})));
  ASSERT_TRUE(bool(t)) << llvm::toString(t.takeError());
  EXPECT_FALSE(t->isContiguous());
  EXPECT_EQ(t->toInts(), (std::vector<int64_t>{1, 2, 3, 4, 5, 6}));
}

TEST(Npy, ReadsBoolsAndBytes) {
  auto b = parseNpy(npy("{'descr': '|b1', 'fortran_order': False, 'shape': "
                        "(3,), }",
                        raw<uint8_t>({1, 0, 1})));
  ASSERT_TRUE(bool(b));
  EXPECT_EQ(b->dtype(), DType::I1);
  EXPECT_EQ(b->toInts(), (std::vector<int64_t>{1, 0, 1}));
  auto i = parseNpy(npy("{'descr': '|i1', 'fortran_order': False, 'shape': "
                        "(2,), }",
                        raw<int8_t>({-5, 7})));
  ASSERT_TRUE(bool(i));
  EXPECT_EQ(i->toInts(), (std::vector<int64_t>{-5, 7}));
}

TEST(Npy, RawBitsNeedTheirDType) {
  std::string fp8 = npy("{'descr': '|V1', 'fortran_order': False, 'shape': "
                        "(2,), }",
                        raw<uint8_t>({0x38, 0x7E}));
  auto unknown = parseNpy(fp8);
  ASSERT_FALSE(bool(unknown));
  EXPECT_EQ(llvm::toString(unknown.takeError()),
            "npy: fp8 data ('|V1') needs an expected dtype (f8E4M3FN or "
            "f8E5M2)");
  auto e4m3 = parseNpy(fp8, DType::F8E4M3FN);
  ASSERT_TRUE(bool(e4m3));
  EXPECT_EQ(e4m3->toDoubles(), (std::vector<double>{1.0, 448.0}));
  auto bf16 = parseNpy(npy("{'descr': '<V2', 'fortran_order': False, "
                           "'shape': (1,), }",
                           raw<uint16_t>({0x3F80})));
  ASSERT_TRUE(bool(bf16));
  EXPECT_EQ(bf16->dtype(), DType::BF16);
  EXPECT_EQ(bf16->toDoubles(), (std::vector<double>{1.0}));
}

TEST(Npy, Errors) {
  auto check = [](const std::string &image, const std::string &message) {
    auto t = parseNpy(image);
    ASSERT_FALSE(bool(t));
    EXPECT_EQ(llvm::toString(t.takeError()), message);
  };
  check("hello", "npy: not a .npy file (bad magic)");
  check(npy("{'descr': '>f4', 'fortran_order': False, 'shape': (1,), }",
            raw<float>({1})),
        "npy: big-endian data ('>f4') is not supported; save it "
        "little-endian");
  check(npy("{'descr': '<c8', 'fortran_order': False, 'shape': (1,), }",
            raw<float>({1, 2})),
        "npy: unsupported dtype '<c8'");
  check(npy("{'descr': '<f4', 'fortran_order': False, 'shape': (4,), }",
            raw<float>({1})),
        "npy: the data holds 4 bytes but 4 elements of f32 need 16");
  auto missing = readNpy("/nonexistent/x.npy");
  ASSERT_FALSE(bool(missing));
  EXPECT_NE(llvm::toString(missing.takeError()).find("cannot read"),
            std::string::npos);
}

} // namespace
