// Tests of the dtype helpers: names, byte sizes, parsing.
#include "fusion/Runtime/DType.h"

#include <gtest/gtest.h>

using namespace fusion::runtime;

TEST(DTypeTest, NamesAndSizes) {
  struct Expected {
    DType dtype;
    const char *name;
    int64_t bytes;
    bool floating;
  } cases[] = {
      {DType::F64, "f64", 8, true},      {DType::F32, "f32", 4, true},
      {DType::F16, "f16", 2, true},      {DType::BF16, "bf16", 2, true},
      {DType::I64, "i64", 8, false},     {DType::I32, "i32", 4, false},
      {DType::I16, "i16", 2, false},     {DType::I8, "i8", 1, false},
      {DType::I1, "i1", 1, false},       {DType::F8E4M3, "f8e4m3", 1, true},
      {DType::F8E5M2, "f8e5m2", 1, true}};
  ASSERT_EQ(std::size(cases), static_cast<size_t>(kNumDTypes));
  for (const Expected &c : cases) {
    EXPECT_STREQ(dtypeName(c.dtype), c.name);
    EXPECT_EQ(dtypeByteSize(c.dtype), c.bytes) << c.name;
    EXPECT_EQ(isFloatingDType(c.dtype), c.floating) << c.name;
    std::optional<DType> parsed = parseDType(c.name);
    ASSERT_TRUE(parsed.has_value()) << c.name;
    EXPECT_EQ(*parsed, c.dtype);
  }
}

TEST(DTypeTest, InvalidValues) {
  EXPECT_FALSE(parseDType("float32").has_value());
  EXPECT_FALSE(parseDType("").has_value());
  EXPECT_FALSE(parseDType("F32").has_value());
  EXPECT_STREQ(dtypeName(static_cast<DType>(11)), "invalid");
  EXPECT_STREQ(dtypeName(static_cast<DType>(-1)), "invalid");
  EXPECT_EQ(dtypeByteSize(static_cast<DType>(42)), 0);
  EXPECT_FALSE(isValidDType(11));
  EXPECT_TRUE(isValidDType(0));
}
