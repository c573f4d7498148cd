// Names of the runtime's error codes and the Status printer.
#include "fusion/Runtime/Status.h"

namespace fusion::runtime {

const char *errorCodeName(ErrorCode code) {
  switch (code) {
  case ErrorCode::Ok:
    return "Ok";
  case ErrorCode::InvalidArgument:
    return "InvalidArgument";
  case ErrorCode::FileError:
    return "FileError";
  case ErrorCode::InvalidModule:
    return "InvalidModule";
  case ErrorCode::UnsupportedVersion:
    return "UnsupportedVersion";
  case ErrorCode::WrongInputCount:
    return "WrongInputCount";
  case ErrorCode::WrongInputKind:
    return "WrongInputKind";
  case ErrorCode::WrongDType:
    return "WrongDType";
  case ErrorCode::WrongRank:
    return "WrongRank";
  case ErrorCode::WrongSize:
    return "WrongSize";
  case ErrorCode::NullPointer:
    return "NullPointer";
  case ErrorCode::ConstraintViolation:
    return "ConstraintViolation";
  case ErrorCode::DivisionByZero:
    return "DivisionByZero";
  case ErrorCode::IntegerOverflow:
    return "IntegerOverflow";
  case ErrorCode::NoLaunchVariant:
    return "NoLaunchVariant";
  case ErrorCode::InvalidLaunchValue:
    return "InvalidLaunchValue";
  case ErrorCode::WrongOutput:
    return "WrongOutput";
  case ErrorCode::DriverUnavailable:
    return "DriverUnavailable";
  case ErrorCode::CudaError:
    return "CudaError";
  case ErrorCode::MisalignedPointer:
    return "MisalignedPointer";
  case ErrorCode::KernelNotBuilt:
    return "KernelNotBuilt";
  }
  return "Unknown";
}

std::string Status::toString() const {
  if (ok())
    return "Ok";
  return std::string(errorCodeName(code_)) + ": " + message_;
}

} // namespace fusion::runtime
