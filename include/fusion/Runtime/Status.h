// Typed errors of the Fusion runtime: an ErrorCode plus a message that names
// the offending input and values. No runtime call aborts on user input.
#ifndef FUSION_RUNTIME_STATUS_H
#define FUSION_RUNTIME_STATUS_H

#include <cassert>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>

namespace fusion::runtime {

/// Error codes. The values are part of the C API (fusion_runtime.h mirrors
/// them), so only append.
enum class ErrorCode : int32_t {
  Ok = 0,
  InvalidArgument = 1,      // API misuse: null handle, index out of range, ...
  FileError = 2,            // a module file could not be read
  InvalidModule = 3,        // not a module, corrupt, or semantically invalid
  UnsupportedVersion = 4,   // module format newer than this runtime
  WrongInputCount = 5,      // number of inputs differs from the signature
  WrongInputKind = 6,       // tensor given for a scalar or the reverse
  WrongDType = 7,           // input dtype differs from the signature
  WrongRank = 8,            // tensor rank differs from the signature
  WrongSize = 9,            // static size mismatch or a negative size
  NullPointer = 10,         // null data pointer of a non-empty tensor
  ConstraintViolation = 11, // an ExprCheck of the module failed
  DivisionByZero = 12,      // launch-plan expression divided by zero
  IntegerOverflow = 13,     // int64 expression or i32 parameter overflow
  NoLaunchVariant = 14,     // no variant guard of a launch was true
  InvalidLaunchValue = 15, // negative grid, block 0, shared memory too big, ...
  WrongOutput = 16,        // a caller-provided output does not match
  DriverUnavailable = 17,  // libcuda.so.1 missing, too old, or no device
  CudaError = 18,          // a CUDA driver call failed
  MisalignedPointer = 19,  // data pointer not a multiple of the element size
  KernelNotBuilt = 20,     // a deferred kernel with no builder, or its build
                           // failed (Note [Deferred kernels])
};

/// The enumerator's name, e.g. "WrongDType"; "Unknown" for other values.
const char *errorCodeName(ErrorCode code);

/// Success, or an ErrorCode with a message. Cheap to return when ok.
class [[nodiscard]] Status {
public:
  Status() = default;
  Status(ErrorCode code, std::string message)
      : code_(code), message_(std::move(message)) {}
  static Status success() { return Status(); }

  bool ok() const { return code_ == ErrorCode::Ok; }
  ErrorCode code() const { return code_; }
  const std::string &message() const { return message_; }
  /// "WrongDType: input 1 (b): expected dtype bf16, got f32".
  std::string toString() const;

private:
  ErrorCode code_ = ErrorCode::Ok;
  std::string message_;
};

/// A value or the Status saying why there is none.
template <typename T> class [[nodiscard]] Expected {
public:
  Expected(T value) : value_(std::move(value)) {}
  Expected(Status status) : status_(std::move(status)) {
    assert(!status_.ok() && "an Expected without a value needs an error");
  }

  bool ok() const { return value_.has_value(); }
  explicit operator bool() const { return ok(); }
  const Status &status() const { return status_; }

  T &value() {
    assert(ok());
    return *value_;
  }
  const T &value() const {
    assert(ok());
    return *value_;
  }
  T &operator*() { return value(); }
  const T &operator*() const { return value(); }
  T *operator->() { return &value(); }
  const T *operator->() const { return &value(); }

private:
  std::optional<T> value_;
  Status status_;
};

} // namespace fusion::runtime

#endif // FUSION_RUNTIME_STATUS_H
