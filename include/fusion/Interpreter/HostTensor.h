//===- HostTensor.h - CPU tensors of the reference interpreter --*- C++ -*-===//
// Element types, strided host tensors with owning storage, and the values
// (tensors, scalars, indices) a fusion takes as inputs.
//===----------------------------------------------------------------------===//
#ifndef FUSION_INTERPRETER_HOSTTENSOR_H
#define FUSION_INTERPRETER_HOSTTENSOR_H

#include "mlir/IR/Types.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace mlir::fusion::interp {

/// The element types of the fusion dialect. The order equals the runtime's
/// fusion::runtime::DType, so the two convert by value.
enum class DType : uint8_t {
  F64,
  F32,
  F16,
  BF16,
  I64,
  I32,
  I16,
  I8,
  I1, // one byte per element, 0 or 1
  F8E4M3FN,
  F8E5M2,
};

/// The MLIR spelling: "f64", "bf16", "i1", "f8E4M3FN", ...
llvm::StringRef dtypeName(DType dtype);
/// Parses the MLIR spelling (case-sensitive); also accepts "bool" for i1.
std::optional<DType> parseDType(llvm::StringRef name);
/// Bytes per element in storage.
int64_t dtypeBytes(DType dtype);

/// Parses a scalar written on a command line: "1.5", "-2", "1e3", "inf",
/// "nan", "true" (1) or "false" (0). None if the text is not a number.
std::optional<double> parseScalarText(llvm::StringRef text);
/// f64, f32, f16, bf16 and the fp8 types.
bool isFloatDType(DType dtype);
/// Bit width of an integer dtype (64 ... 1).
unsigned intBitWidth(DType dtype);
/// The dtype of a builtin element type, or nullopt (index is no dtype).
std::optional<DType> dtypeOf(mlir::Type type);
mlir::Type toMLIRType(DType dtype, mlir::MLIRContext *context);

/// `value` rounded to the nearest value of the float dtype (ties to even).
double roundToDType(double value, DType dtype);
/// `value` stored into an integer dtype: two's-complement wrap, and != 0 for
/// i1 (the cast semantics).
int64_t wrapToDType(int64_t value, DType dtype);
/// An integer converted to a float dtype with one rounding, even for
/// integers beyond 2^53.
double intToFloat(int64_t value, DType dtype);
/// A float converted to an integer dtype: truncation toward zero, saturated
/// to the type's range, NaN -> 0 (PTX cvt.rzi semantics); != 0 for i1.
int64_t floatToInt(double value, DType dtype);
/// The smallest and largest values of an integer dtype.
int64_t intMin(DType dtype);
int64_t intMax(DType dtype);

/// A strided tensor on the host. Sizes and strides count elements; storage
/// is shared between copies of a HostTensor (as between torch views) and is
/// released with the last one. Use clone() for an independent copy.
class HostTensor {
public:
  /// An empty rank-0 f32 tensor without storage; valid() is false.
  HostTensor() = default;
  /// A contiguous row-major tensor, zero-filled.
  HostTensor(DType dtype, llvm::ArrayRef<int64_t> sizes);

  /// A tensor over fresh zero-filled storage of `storageElements` elements,
  /// addressing element `offset + sum(index[d] * strides[d])`. Strides may be
  /// zero (broadcast views) or negative; every reachable element must lie in
  /// the storage.
  static llvm::Expected<HostTensor> strided(DType dtype,
                                            llvm::ArrayRef<int64_t> sizes,
                                            llvm::ArrayRef<int64_t> strides,
                                            int64_t storageElements,
                                            int64_t offset = 0);
  /// Another view of this tensor's storage.
  llvm::Expected<HostTensor> view(llvm::ArrayRef<int64_t> sizes,
                                  llvm::ArrayRef<int64_t> strides,
                                  int64_t offset) const;

  /// Contiguous tensors from row-major values, rounded (floats) or wrapped
  /// (integers) into `dtype`.
  static HostTensor fromDoubles(DType dtype, llvm::ArrayRef<int64_t> sizes,
                                llvm::ArrayRef<double> values);
  static HostTensor fromInts(DType dtype, llvm::ArrayRef<int64_t> sizes,
                             llvm::ArrayRef<int64_t> values);
  /// A rank-0 tensor.
  static HostTensor scalar(DType dtype, double value);

  bool valid() const { return storage_ != nullptr; }
  DType dtype() const { return dtype_; }
  llvm::ArrayRef<int64_t> sizes() const { return sizes_; }
  llvm::ArrayRef<int64_t> strides() const { return strides_; }
  int64_t offset() const { return offset_; }
  int64_t rank() const { return static_cast<int64_t>(sizes_.size()); }
  int64_t numElements() const;
  /// Row-major with no gaps (size-1 dims may have any stride).
  bool isContiguous() const;
  /// "tensor<2x3xf32>".
  std::string typeString() const;

  /// The storage, from its first element (not from offset()).
  uint8_t *storage();
  const uint8_t *storage() const;
  int64_t storageElements() const;

  /// Element at a multi-index or at a row-major linear index, as double
  /// (any dtype; integers convert) or int64 (integer dtypes exactly; floats
  /// truncate as floatToInt(value, I64)).
  double getDouble(llvm::ArrayRef<int64_t> index) const;
  double getDouble(int64_t linear) const;
  int64_t getInt(llvm::ArrayRef<int64_t> index) const;
  int64_t getInt(int64_t linear) const;
  /// Stores with the same rounding and wrapping as fromDoubles/fromInts.
  void setDouble(llvm::ArrayRef<int64_t> index, double value);
  void setInt(llvm::ArrayRef<int64_t> index, int64_t value);

  /// All elements in row-major order.
  std::vector<double> toDoubles() const;
  std::vector<int64_t> toInts() const;

  /// A contiguous deep copy.
  HostTensor clone() const;

  /// Raw storage access by storage element position.
  double loadDouble(int64_t position) const;
  int64_t loadInt(int64_t position) const;
  void storeDouble(int64_t position, double value);
  void storeInt(int64_t position, int64_t value);

private:
  int64_t positionOf(llvm::ArrayRef<int64_t> index) const;
  int64_t positionOfLinear(int64_t linear) const;

  DType dtype_ = DType::F32;
  llvm::SmallVector<int64_t, 4> sizes_;
  llvm::SmallVector<int64_t, 4> strides_;
  int64_t offset_ = 0;
  std::shared_ptr<std::vector<uint8_t>> storage_;
};

/// A fusion input or output: a tensor, a scalar of a dtype, or an index.
class HostValue {
public:
  enum class Kind { Tensor, Scalar, Index };

  HostValue(HostTensor tensor) // NOLINT: implicit, tensors are the norm
      : kind_(Kind::Tensor), tensor_(std::move(tensor)) {}
  /// A scalar of a float or integer dtype (rounded or truncated into it).
  static HostValue scalar(DType dtype, double value);
  static HostValue intScalar(DType dtype, int64_t value);
  static HostValue index(int64_t value);

  Kind kind() const { return kind_; }
  bool isTensor() const { return kind_ == Kind::Tensor; }
  bool isScalar() const { return kind_ == Kind::Scalar; }
  bool isIndex() const { return kind_ == Kind::Index; }
  /// The tensor; for scalars and indices a rank-0 tensor holding the value
  /// (dtype i64 for an index).
  const HostTensor &tensor() const { return tensor_; }
  DType dtype() const { return tensor_.dtype(); }
  double getDouble() const { return tensor_.getDouble(int64_t(0)); }
  int64_t getInt() const { return tensor_.getInt(int64_t(0)); }
  /// "tensor<2x3xf32>", "f32" or "index".
  std::string typeString() const;

private:
  HostValue(Kind kind, HostTensor tensor)
      : kind_(kind), tensor_(std::move(tensor)) {}
  Kind kind_;
  HostTensor tensor_;
};

/// Options of printTensor.
struct PrintOptions {
  /// Tensors with more elements are summarized: the first and last
  /// `edgeItems` entries of every dim, and a line of statistics.
  int64_t summarizeAbove = 1000;
  int64_t edgeItems = 3;
  /// Print floats as the shortest decimal of their exact value (as f64)
  /// rather than the shortest that reads back in their dtype: bf16 0.30078125
  /// prints as 0.30078125, not 0.3.
  bool exact = false;
};

/// Prints the elements nested by dim, numpy style. Floats use the shortest
/// decimal form that reads back to the same value of the dtype.
void printTensor(llvm::raw_ostream &os, const HostTensor &tensor,
                 const PrintOptions &options = {});
/// The shortest decimal form of `value` that rounds back to it in `dtype`.
std::string formatFloat(double value, DType dtype);

} // namespace mlir::fusion::interp

#endif // FUSION_INTERPRETER_HOSTTENSOR_H
