// Element types of Fusion tensors and scalars: names, byte sizes, parsing.
// The values equal fusion::fb::DType in the module schema.
#ifndef FUSION_RUNTIME_DTYPE_H
#define FUSION_RUNTIME_DTYPE_H

#include <cstdint>
#include <optional>
#include <string_view>

namespace fusion::runtime {

enum class DType : int32_t {
  F64 = 0,
  F32 = 1,
  F16 = 2,
  BF16 = 3,
  I64 = 4,
  I32 = 5,
  I16 = 6,
  I8 = 7,
  I1 = 8, // stored as one byte per element
  F8E4M3 = 9,
  F8E5M2 = 10,
};

inline constexpr int32_t kNumDTypes = 11;

/// True if `value` is one of the DType enumerators.
inline bool isValidDType(int32_t value) {
  return value >= 0 && value < kNumDTypes;
}

/// "f64", "f32", "f16", "bf16", "i64", "i32", "i16", "i8", "i1", "f8e4m3",
/// "f8e5m2"; "invalid" for a value that is not a DType.
const char *dtypeName(DType dtype);

/// Bytes per element (i1 is stored as 1 byte); 0 for an invalid value.
int64_t dtypeByteSize(DType dtype);

/// The DType named `name` (as dtypeName spells it), or nullopt.
std::optional<DType> parseDType(std::string_view name);

/// Floating-point types (f64 ... f8e5m2); scalar inputs of these dtypes are
/// bound by their double value, the others by their int64 value.
bool isFloatingDType(DType dtype);

} // namespace fusion::runtime

#endif // FUSION_RUNTIME_DTYPE_H
