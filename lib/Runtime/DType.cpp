// Names, byte sizes and parsing of the runtime's element types.
#include "fusion/Runtime/DType.h"

namespace fusion::runtime {

namespace {
struct DTypeRecord {
  const char *name;
  int64_t bytes;
  bool floating;
};
// Indexed by the DType value.
constexpr DTypeRecord kDTypes[kNumDTypes] = {
    {"f64", 8, true},    {"f32", 4, true},   {"f16", 2, true},
    {"bf16", 2, true},   {"i64", 8, false},  {"i32", 4, false},
    {"i16", 2, false},   {"i8", 1, false},   {"i1", 1, false},
    {"f8e4m3", 1, true}, {"f8e5m2", 1, true}};
} // namespace

const char *dtypeName(DType dtype) {
  int32_t value = static_cast<int32_t>(dtype);
  return isValidDType(value) ? kDTypes[value].name : "invalid";
}

int64_t dtypeByteSize(DType dtype) {
  int32_t value = static_cast<int32_t>(dtype);
  return isValidDType(value) ? kDTypes[value].bytes : 0;
}

std::optional<DType> parseDType(std::string_view name) {
  for (int32_t i = 0; i < kNumDTypes; ++i)
    if (name == kDTypes[i].name)
      return static_cast<DType>(i);
  return std::nullopt;
}

bool isFloatingDType(DType dtype) {
  int32_t value = static_cast<int32_t>(dtype);
  return isValidDType(value) && kDTypes[value].floating;
}

} // namespace fusion::runtime
